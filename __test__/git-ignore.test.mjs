// Ignore rules against git itself: on real repositories made with git (a
// linked worktree, a submodule, a `.git` symlink, ignore files starting with
// a byte order mark, core.ignoreCase, the global excludes file), the files
// `find`, `searchFiles` and `openIndex` list must be those
// `git ls-files -co --exclude-standard` lists (tracked, plus untracked and
// not ignored), each submodule and nested repository listed by its own git.
//
// This file's process runs with a HOME of its own (no system config, no
// XDG_CONFIG_HOME), so the user's real git config cannot change the answers;
// the global excludes cases run their searches in child processes, each with
// the HOME, XDG_CONFIG_HOME and GIT_CONFIG_* of its case, and git with the same.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { find, memoryReader, openIndex, searchFiles } from '../index.mjs'
import { makeTmp, REPO, removeTmp, requireTool, tmpTree, useOwnGitEnv, writeTree } from './helpers.mjs'

// Before any search: nothing reads the environment yet.
const OWN_HOME = useOwnGitEnv()

const BOM = '\ufeff'

/** Runs git in `cwd` (with `env`, this process's by default); its output as text. */
function git(cwd, args, env = process.env) {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/**
 * The files git shows in the work tree at `dir`, relative to it, sorted:
 * `ls-files -co --exclude-standard` (tracked, plus untracked not ignored),
 * with each submodule (a gitlink) and nested repository (`name/`) listed by
 * its own git.
 */
function gitFiles(dir, env = process.env) {
  const z = (args) => git(dir, [...args, '-z'], env).split('\0').filter(Boolean)
  const links = new Set(z(['ls-files', '-s']).filter((l) => l.startsWith('160000 ')).map((l) => l.slice(l.indexOf('\t') + 1)))
  const out = []
  for (const p of z(['ls-files', '-co', '--exclude-standard'])) {
    const nested = links.has(p) ? `${p}/` : p.endsWith('/') ? p : null
    if (nested) out.push(...gitFiles(path.join(dir, nested), env).map((q) => nested + q))
    else out.push(p)
  }
  return [...new Set(out)].sort()
}

/** The files that hold an `x` among `files` (relative to `dir`): what `searchFiles({ pattern: 'x' })` finds. */
const withX = (dir, files) => files.filter((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes('x'))

const list = (result) => result.entries.map((e) => e.path).sort()
const findFiles = async (cwd, options = {}) => list(await find('**', { cwd, type: 'file', ...options }))
const searched = async (cwd) =>
  (await searchFiles({ pattern: 'x', cwd, outputMode: 'files', maxResults: 500 })).files.sort()

/** `index.find` of every file, on an index opened for `dir` and closed after. */
async function indexFiles(dir) {
  const index = await openIndex(dir)
  try {
    await index.settled()
    return list(await index.find({ pattern: '**', type: 'file' }))
  } finally {
    await index.close()
  }
}

/** Asserts that find, searchFiles and (unless `index: false`) an index of `dir` list what git lists. */
async function sameAsGit(dir, { index = true } = {}) {
  const want = gitFiles(dir)
  assert.deepEqual(await findFiles(dir), want, `find in ${dir}`)
  assert.deepEqual(await searched(dir), withX(dir, want), `searchFiles in ${dir}`)
  if (index) assert.deepEqual(await indexFiles(dir), want, `openIndex of ${dir}`)
  return want
}

describe('ignore files as git reads them', () => {
  test('a byte order mark before the first rule is skipped (find, searchFiles, openIndex, memoryReader)', async (t) => {
    const tree = {
      '.gitignore': `${BOM}deps/\n*.tmp\n`,
      'b/.gitignore': `${BOM}*.bak\n`,
      'a/.ignore': `${BOM}*.out\n`,
      'app.js': 'x\n', 'debug.log': 'x\n', 'c.tmp': 'x\n', 'deps/pkg/index.js': 'x\n',
      'b/ok.js': 'x\n', 'b/y.bak': 'x\n', 'a/keep.js': 'x\n', 'a/x.out': 'x\n',
    }
    const root = tmpTree(t, tree)
    git(root, ['init', '-q'])
    fs.writeFileSync(path.join(root, '.git/info/exclude'), `${BOM}*.log\n`)
    // git itself skips each BOM; `.ignore` is not git's, so a/x.out is left out by hand.
    const want = gitFiles(root).filter((p) => p !== 'a/x.out')
    for (const p of ['debug.log', 'c.tmp', 'deps/pkg/index.js', 'b/y.bak']) assert.ok(!want.includes(p), `git ignores ${p}`)
    assert.deepEqual(await findFiles(root), want)
    assert.deepEqual(await searched(root), withX(root, want))
    assert.deepEqual(await indexFiles(root), want)
    const inMemory = { ...tree, '.git/HEAD': 'ref: refs/heads/main\n', '.git/info/exclude': `${BOM}*.log\n` }
    assert.deepEqual(list(await find('**', { reader: memoryReader(inMemory), type: 'file' })), want)
  })

  test("a linked worktree applies its repository's info/exclude (and a .gitignore above a subfolder)", async (t) => {
    const top = tmpTree(t)
    const main = path.join(top, 'main')
    const wt = path.join(top, 'wt')
    writeTree(main, { '.gitignore': '*.log\n', 'tracked.txt': 'x\n' })
    git(main, ['init', '-q'])
    git(main, ['add', '.'])
    git(main, ['commit', '-q', '-m', 'init'])
    fs.appendFileSync(path.join(main, '.git/info/exclude'), 'secret.txt\ngen/\n')
    git(main, ['worktree', 'add', '-q', '--detach', wt])
    assert.match(fs.readFileSync(path.join(wt, '.git'), 'utf8'), /^gitdir: /)
    writeTree(wt, { 'secret.txt': 'x\n', 'app.js': 'x\n', 'sub/secret.txt': 'x\n', 'sub/a.log': 'x\n', 'sub/keep.js': 'x\n', 'gen/out.js': 'x\n' })
    const want = await sameAsGit(wt)
    for (const p of ['secret.txt', 'sub/secret.txt', 'gen/out.js']) assert.ok(!want.includes(p), `git excludes ${p}`)
    // From a folder inside the worktree: the rules above it, the exclude among them.
    await sameAsGit(path.join(wt, 'sub'))
  })

  test("a submodule applies its own info/exclude, not its superproject's, from inside and from above", async (t) => {
    const top = tmpTree(t)
    const lib = path.join(top, 'lib')
    const app = path.join(top, 'app')
    writeTree(lib, { 'api.js': 'x\n' })
    git(lib, ['init', '-q'])
    git(lib, ['add', '.'])
    git(lib, ['commit', '-q', '-m', 'init'])
    fs.mkdirSync(app)
    git(app, ['init', '-q'])
    const added = spawnSync('git', ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'lib'], { cwd: app, encoding: 'utf8' })
    const { skip } = requireTool('git', {
      why: 'a submodule (`git submodule add`)',
      probe: () => (added.status === 0 ? null : `git submodule add failed here: ${added.error ? added.error.message : added.stderr}`),
      install: 'apt-get install -y git (as .ci/run does)',
    })
    if (skip) return t.skip(skip)
    assert.match(fs.readFileSync(path.join(app, 'lib/.git'), 'utf8'), /^gitdir: \.\.\/\.git\/modules\/lib/)
    fs.appendFileSync(path.join(app, '.git/modules/lib/info/exclude'), 'local-*\n')
    fs.appendFileSync(path.join(app, '.git/info/exclude'), 'top-only.txt\n')
    writeTree(app, { 'top-only.txt': 'x\n', 'main.js': 'x\n', 'lib/local-notes.txt': 'x\n', 'lib/new.js': 'x\n', 'lib/top-only.txt': 'x\n' })
    const want = await sameAsGit(app)
    assert.ok(!want.includes('lib/local-notes.txt') && want.includes('lib/top-only.txt') && !want.includes('top-only.txt'))
    await sameAsGit(path.join(app, 'lib'))
    // A live index of the superproject sees a later edit of the submodule's exclude (in .git/modules/).
    const index = await openIndex(app)
    t.after(() => index.close())
    fs.appendFileSync(path.join(app, '.git/modules/lib/info/exclude'), 'new.js\n')
    await index.settled()
    const later = gitFiles(app)
    assert.ok(!later.includes('lib/new.js'))
    assert.deepEqual(list(await index.find({ pattern: '**', type: 'file' })), later)
  })

  test('.git as a symlink to the git folder: its info/exclude applies', async (t) => {
    const top = tmpTree(t)
    git(top, ['init', '-q', 'real'])
    fs.renameSync(path.join(top, 'real/.git'), path.join(top, 'store.git'))
    const wt = path.join(top, 'wt')
    fs.mkdirSync(wt)
    fs.symlinkSync('../store.git', path.join(wt, '.git'))
    fs.appendFileSync(path.join(top, 'store.git/info/exclude'), 'secret.txt\n')
    writeTree(wt, { '.gitignore': '*.log\n', 'sub/a.log': 'x\n', 'sub/ok.js': 'x\n', 'sub/secret.txt': 'x\n' })
    const want = await sameAsGit(wt)
    assert.ok(!want.includes('sub/secret.txt') && want.includes('sub/ok.js'))
  })

  test('core.ignoreCase=true: rules match whatever the case, per repository, in its worktrees too', async (t) => {
    const top = tmpTree(t)
    const repo = path.join(top, 'repo')
    writeTree(repo, {
      '.gitignore': '.DS_Store\nOut/\n*.LOG\n',
      '.DS_STORE': 'x\n', 'out/o.js': 'x\n', 'a.log': 'x\n', 'secret.TXT': 'x\n', 'app.js': 'x\n', 'sub/B.Log': 'x\n',
      'inner/.gitignore': '*.LOG\n', 'inner/b.log': 'x\n', 'inner/c.LOG': 'x\n',
    })
    git(repo, ['init', '-q'])
    git(repo, ['config', 'core.ignoreCase', 'false'])
    fs.appendFileSync(path.join(repo, '.git/info/exclude'), 'SECRET.txt\n')
    git(path.join(repo, 'inner'), ['init', '-q'])
    git(path.join(repo, 'inner'), ['config', 'core.ignoreCase', 'false'])
    // A live index opened before the setting sees it once the config is written.
    const index = await openIndex(repo)
    t.after(() => index.close())
    const before = gitFiles(repo)
    assert.ok(before.includes('a.log'))
    assert.deepEqual(list(await index.find({ pattern: '**', type: 'file' })), before)
    git(repo, ['config', 'core.ignoreCase', 'true'])
    await index.settled()
    const want = await sameAsGit(repo)
    assert.deepEqual(list(await index.find({ pattern: '**', type: 'file' })), want)
    for (const p of ['.DS_STORE', 'out/o.js', 'a.log', 'secret.TXT', 'sub/B.Log', 'inner/c.LOG']) assert.ok(!want.includes(p), `git ignores ${p}`)
    assert.ok(want.includes('inner/b.log'), "the nested repository's own setting")
    // A linked worktree takes the setting from the common dir's config.
    git(repo, ['add', '.gitignore', 'app.js'])
    git(repo, ['commit', '-q', '-m', 'init'])
    const wt = path.join(top, 'wt')
    git(repo, ['worktree', 'add', '-q', '--detach', wt])
    writeTree(wt, { 'z.log': 'x\n', 'out/p.js': 'x\n', 'kept.js': 'x\n' })
    assert.deepEqual(await sameAsGit(wt), ['.gitignore', 'app.js', 'kept.js'])
  })
})

/** A script for a child process: find, searchFiles and openIndex in `cwd`, printed as JSON. */
const CHILD = `
const af = require(process.argv[1])
const [cwd, options] = [process.argv[2], JSON.parse(process.argv[3])]
const list = (r) => r.entries.map((e) => e.path).sort()
;(async () => {
  const found = list(await af.find('**', { cwd, type: 'file', ...options }))
  if (options.gitignore === false) return console.log(JSON.stringify({ found }))
  const searched = (await af.searchFiles({ pattern: 'x', cwd, outputMode: 'files', maxResults: 500 })).files.sort()
  const index = await af.openIndex(cwd)
  await index.settled()
  const indexed = list(await index.find({ pattern: '**', type: 'file' }))
  await index.close()
  console.log(JSON.stringify({ found, searched, indexed }))
})().catch((e) => { console.error(e); process.exit(1) })
`

/** Runs `CHILD` in a process whose environment is `env`. */
function inChild(cwd, env, options = {}) {
  const run = spawnSync(process.execPath, ['-e', CHILD, REPO, cwd, JSON.stringify(options)], { env, encoding: 'utf8', timeout: 60_000 })
  assert.equal(run.status, 0, `child failed: ${run.stderr}`)
  return JSON.parse(run.stdout)
}

describe('the global excludes file (core.excludesFile), in child processes with their own HOME', () => {
  test('found where git finds it, applied below the repository own files, in every repository and only there', async (t) => {
    const top = tmpTree(t)
    const home = path.join(top, 'home')
    const repo = path.join(top, 'repo')
    const plain = path.join(top, 'plain')
    const base = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' }
    for (const name of ['XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM']) delete base[name]
    writeTree(top, {
      'home/.config/git/ignore': `${BOM}.DS_Store\n.cache/\n*.swp\n/top.txt\n`,
      'home/xdg/git/ignore': '*.xdg\n',
      'home/mine': '*.mine\n',
      'home/other-config': '[core]\n\texcludesFile = "~/other"\n',
      'home/other': '*.other\n',
      'elsewhere/excludes': '*.repo\n',
      'repo/.gitignore': '!kept.swp\n',
      'repo/.DS_Store': 'x\n', 'repo/.cache/ws.xml': 'x\n', 'repo/.main.c.swp': 'x\n', 'repo/kept.swp': 'x\n', 'repo/app.js': 'x\n',
      'repo/top.txt': 'x\n', 'repo/sub/top.txt': 'x\n', 'repo/a.xdg': 'x\n', 'repo/a.mine': 'x\n', 'repo/a.other': 'x\n', 'repo/a.repo': 'x\n',
      'repo/nested/.DS_Store': 'x\n', 'repo/nested/top.txt': 'x\n', 'repo/nested/n.js': 'x\n', 'repo/nested/a.mine': 'x\n',
      'plain/.DS_Store': 'x\n', 'plain/p.js': 'x\n',
    })
    git(repo, ['init', '-q'], base)
    git(path.join(repo, 'nested'), ['init', '-q'], base)
    const check = (env, label) => {
      const want = gitFiles(repo, env)
      const got = inChild(repo, env)
      assert.deepEqual(got.found, want, `find, ${label}`)
      assert.deepEqual(got.searched, withX(repo, want), `searchFiles, ${label}`)
      assert.deepEqual(got.indexed, want, `openIndex, ${label}`)
      return want
    }
    // The default place: ~/.config/git/ignore (XDG_CONFIG_HOME unset), its lines anchored at each repository's top.
    let want = check(base, 'default file')
    for (const p of ['.DS_Store', '.cache/ws.xml', '.main.c.swp', 'top.txt', 'nested/.DS_Store', 'nested/top.txt']) {
      assert.ok(!want.includes(p), `git ignores ${p}`)
    }
    assert.ok(want.includes('kept.swp') && want.includes('sub/top.txt'))
    // Outside any repository it does not apply; `gitignore: false` turns it off.
    assert.deepEqual(inChild(plain, base).found, ['.DS_Store', 'p.js'])
    assert.ok(inChild(repo, base, { gitignore: false }).found.includes('.DS_Store'))
    // XDG_CONFIG_HOME moves it (an empty one does not).
    want = check({ ...base, XDG_CONFIG_HOME: path.join(home, 'xdg') }, 'XDG_CONFIG_HOME')
    assert.ok(!want.includes('a.xdg') && want.includes('.DS_Store'))
    check({ ...base, XDG_CONFIG_HOME: '' }, 'empty XDG_CONFIG_HOME')
    // core.excludesFile in ~/.gitconfig, with ~/ expanded.
    fs.writeFileSync(path.join(home, '.gitconfig'), '[core]\n\texcludesfile = ~/mine\n')
    want = check(base, '~/.gitconfig')
    assert.ok(!want.includes('a.mine') && want.includes('.DS_Store'))
    // GIT_CONFIG_GLOBAL replaces the global files.
    want = check({ ...base, GIT_CONFIG_GLOBAL: path.join(home, 'other-config') }, 'GIT_CONFIG_GLOBAL')
    assert.ok(!want.includes('a.other') && want.includes('a.mine'))
    // The repository's own config wins over the user's.
    git(repo, ['config', 'core.excludesFile', path.join(top, 'elsewhere/excludes')], base)
    want = check(base, "the repository's config")
    assert.ok(!want.includes('a.repo') && want.includes('a.mine'))
    assert.ok(!want.includes('nested/a.mine') && want.includes('nested/top.txt'), "the nested repository keeps the user's file")
  })
})
