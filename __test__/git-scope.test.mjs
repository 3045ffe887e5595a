// Git scoping (`git`, `changedSince`) against git itself: on real
// repositories made with the git binary (commits, a branch, staged, modified,
// untracked, ignored and deleted files, a tracked file under an ignored
// folder, a linked worktree, a submodule), the files `find`, `findFiles`,
// `searchFiles`, `explain` and an `openIndex` index keep must be those
// `git status --porcelain` (or `git diff --name-only <merge-base>` plus the
// untracked files) names; `gitStatus` gives the letters `git status
// --porcelain` prints for each changed path shown. Also the errors: no repository, an unknown ref, a
// reader, options that contradict each other.
//
// This file's process runs with a HOME of its own, so the user's git config
// cannot change the answers.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { explain, find, findFiles, formatFindResult, formatSearchResult, memoryReader, openIndex, searchFiles } from '../index.mjs'
import { makeTmp, REPO, removeTmp, tmpTree, useOwnGitEnv, writeTree } from './helpers.mjs'

const OWN_HOME = useOwnGitEnv()

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

const ALL = { limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }

/**
 * `git status --porcelain` as [xy, path] pairs (every untracked file listed,
 * renames by their new path), for the files that are on disk.
 */
function porcelain(dir) {
  const out = git(dir, 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames')
  const pairs = out.split('\0').filter(Boolean).map((line) => [line.slice(0, 2), line.slice(3)])
  return pairs.filter(([, p]) => fs.existsSync(path.join(dir, p)))
}

/** The files git has as `which` ('modified', 'staged', 'untracked', 'changed'), relative to `dir`, sorted. */
function oracle(dir, which) {
  const keep = {
    modified: ([x, y]) => y !== ' ' && y !== '?',
    staged: ([x]) => x !== ' ' && x !== '?',
    untracked: ([x]) => x === '?',
    changed: () => true,
  }[which]
  return porcelain(dir).filter(([xy]) => keep(xy)).map(([, p]) => p).sort()
}

/** `git diff --name-only <merge-base with ref>` and the untracked files, on disk, sorted. */
function oracleSince(dir, ref) {
  const base = git(dir, 'merge-base', 'HEAD', ref).trim()
  const diffed = git(dir, 'diff', '--name-only', '-z', '--no-renames', base).split('\0').filter(Boolean)
  const untracked = git(dir, 'ls-files', '-o', '--exclude-standard', '-z').split('\0').filter(Boolean)
  return [...new Set([...diffed, ...untracked])].filter((p) => fs.existsSync(path.join(dir, p))).sort()
}

const paths = (r) => r.entries.map((e) => e.path).sort()

/**
 * A repository with every kind of change: on branch `feature`, made from
 * `main`, one commit ahead, then edits that are staged, modified, both,
 * untracked, ignored and deleted.
 */
function makeRepo(t) {
  const dir = tmpTree(t, {
    '.gitignore': '*.log\nbuild/\n',
    'README.md': '# readme\n',
    'src/a.rs': 'fn a() {}\n',
    'src/b.rs': 'fn b() {}\n',
    'src/deep/c.rs': 'fn c() {}\n',
    'src/gone.rs': 'fn gone() {}\n',
    'docs/guide.md': 'guide\n',
    'docs/stable.md': 'stable\n',
    'build/tracked.js': 'tracked though ignored\n',
    'untouched/x.txt': 'x\n',
  })
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '.')
  git(dir, 'add', '-f', 'build/tracked.js')
  git(dir, 'commit', '-q', '-m', 'base')
  git(dir, 'checkout', '-q', '-b', 'feature')
  writeTree(dir, { 'src/deep/c.rs': 'fn c() { changed on the branch }\n', 'src/feature.rs': 'fn feature() {}\n' })
  git(dir, 'add', '.')
  git(dir, 'commit', '-q', '-m', 'feature work')
  // main moves on too: its own change must not count as the branch's.
  git(dir, 'checkout', '-q', 'main')
  writeTree(dir, { 'docs/stable.md': 'changed on main after the branch\n' })
  git(dir, 'commit', '-q', '-am', 'main moves')
  git(dir, 'checkout', '-q', 'feature')
  writeTree(dir, {
    'README.md': '# readme, modified\n', // modified, not staged
    'docs/guide.md': 'guide, staged\n', // staged
    'src/b.rs': 'fn b() { staged }\n', // staged, then modified again
    'build/tracked.js': 'tracked and modified\n', // tracked under an ignored folder
    'notes/todo.md': 'TODO: untracked\n', // untracked
    'notes/deeper/idea.txt': 'TODO: idea\n', // untracked, in an untracked folder
    'debug.log': 'TODO: ignored\n', // ignored
    'src/added.rs': 'fn added() {}\n', // staged new file
  })
  git(dir, 'add', 'docs/guide.md', 'src/b.rs', 'src/added.rs')
  writeTree(dir, { 'src/b.rs': 'fn b() { staged, then modified }\n' })
  fs.rmSync(path.join(dir, 'src/gone.rs')) // deleted: on no disk, never listed
  return dir
}

describe('git scoping matches git status', () => {
  test('git: modified, staged, untracked, changed; find, findFiles and searchFiles', async (t) => {
    const dir = makeRepo(t)
    for (const which of ['modified', 'staged', 'untracked', 'changed']) {
      const want = oracle(dir, which)
      assert.ok(want.length > 0, `the repository has ${which} files`)
      const r = await find({ pattern: '**/*', cwd: dir, git: which, ...ALL })
      assert.deepEqual(paths(r), want, `find git: ${which}`)
      const ff = (await findFiles('**/*', dir, { git: which })).map((p) => path.relative(dir, p))
      assert.deepEqual(ff.sort(), want, `findFiles git: ${which}`)
      const s = await searchFiles({ pattern: '*', target: 'files', cwd: dir, git: which, maxResults: 500, noIgnore: true })
      assert.deepEqual([...s.files].sort(), want, `searchFiles names git: ${which}`)
      // Without noIgnore, searchFiles still passes over its always-skipped folders (build/).
      const skipping = await searchFiles({ pattern: '*', target: 'files', cwd: dir, git: which, maxResults: 500 })
      assert.deepEqual([...skipping.files].sort(), want.filter((p) => !p.startsWith('build/')), `searchFiles git: ${which}`)
    }
    // Spot checks of the oracle itself, so a broken oracle cannot pass.
    assert.deepEqual(oracle(dir, 'modified'), ['README.md', 'build/tracked.js', 'src/b.rs'])
    assert.deepEqual(oracle(dir, 'staged'), ['docs/guide.md', 'src/added.rs', 'src/b.rs'])
    assert.deepEqual(oracle(dir, 'untracked'), ['notes/deeper/idea.txt', 'notes/todo.md'])
  })

  test('content search keeps only changed files; ignored files never count', async (t) => {
    const dir = makeRepo(t)
    const all = await searchFiles({ pattern: 'TODO', cwd: dir, outputMode: 'files', noIgnore: true })
    assert.ok(all.files.includes('debug.log'), 'the ignored file holds the word')
    const r = await searchFiles({ pattern: 'TODO', cwd: dir, git: 'changed', outputMode: 'files' })
    assert.deepEqual([...r.files].sort(), ['notes/deeper/idea.txt', 'notes/todo.md'])
    const none = await searchFiles({ pattern: 'fn c', cwd: dir, git: 'changed' })
    assert.equal(none.matchCount, 0, 'src/deep/c.rs is committed, so not changed in the work tree')
  })

  test('changedSince: the merge base with the ref, plus the work tree and untracked files', async (t) => {
    const dir = makeRepo(t)
    const want = oracleSince(dir, 'main')
    assert.ok(want.includes('src/deep/c.rs') && want.includes('src/feature.rs'), 'committed on the branch')
    assert.ok(!want.includes('docs/stable.md'), "main's own later change is not the branch's")
    const r = await find({ pattern: '**/*', cwd: dir, changedSince: 'main', ...ALL })
    assert.deepEqual(paths(r), want)
    const s = await searchFiles({ pattern: 'fn ', cwd: dir, changedSince: 'main', outputMode: 'files' })
    const rs = want.filter((p) => p.endsWith('.rs'))
    assert.deepEqual([...s.files].sort(), rs)
    // A commit id and HEAD~1 work as refs too.
    const base = git(dir, 'rev-parse', 'HEAD~1').trim()
    assert.deepEqual(paths(await find({ pattern: '**/*', cwd: dir, changedSince: base, ...ALL })), oracleSince(dir, base))
    assert.deepEqual(paths(await find({ pattern: '**/*', cwd: dir, changedSince: 'HEAD~1', ...ALL })), oracleSince(dir, 'HEAD~1'))
    // With git: 'changed' it is the same scope.
    assert.deepEqual(paths(await find({ pattern: '**/*', cwd: dir, changedSince: 'main', git: 'changed', ...ALL })), want)
  })

  test('combines with the other options: pattern, path, type, exclude, maxDepth', async (t) => {
    const dir = makeRepo(t)
    const rs = await find({ pattern: '**/*.rs', cwd: dir, git: 'changed', ...ALL })
    assert.deepEqual(paths(rs), oracle(dir, 'changed').filter((p) => p.endsWith('.rs')))
    const inSrc = await find({ pattern: '**/*', cwd: dir, path: 'src', git: 'changed', ...ALL })
    assert.deepEqual(paths(inSrc), oracle(dir, 'changed').filter((p) => p.startsWith('src/')).map((p) => path.posix.relative('src', p)))
    assert.deepEqual(paths(inSrc), ['added.rs', 'b.rs'])
    const dirs = await find({ pattern: '**', type: 'dir', cwd: dir, git: 'changed', ...ALL })
    assert.deepEqual(paths(dirs), ['build', 'docs', 'notes', 'notes/deeper', 'src'], 'folders holding a change')
    const excluded = await find({ pattern: '**/*', cwd: dir, git: 'changed', exclude: ['notes'], ...ALL })
    assert.ok(!paths(excluded).some((p) => p.startsWith('notes/')))
    const shallow = await find({ pattern: '**/*', cwd: dir, git: 'changed', maxDepth: 0, ...ALL })
    assert.deepEqual(paths(shallow), ['README.md'])
    const empty = await find({ pattern: '**/*', cwd: dir, path: 'untouched', git: 'changed' })
    assert.deepEqual(empty.entries, [])
  })

  test('a search folder below the top: its own changes only, whatever its name holds', async (t) => {
    // The status is read for the search folder alone (a literal pathspec
    // from the top): glob characters, a sibling whose name starts the same,
    // and the process's own directory (another repository) must not matter.
    const names = ['a[1]*?', 'a', 'a2', 'sub dir/deep']
    const files = {}
    for (const n of names) files[`${n}/kept.txt`] = 'kept\n'
    const dir = tmpTree(t, files)
    git(dir, 'init', '-q', '-b', 'main')
    git(dir, 'add', '.')
    git(dir, 'commit', '-q', '-m', 'base')
    for (const n of names) writeTree(dir, { [`${n}/kept.txt`]: 'edited\n', [`${n}/new.txt`]: 'new\n' })
    git(dir, 'add', 'a/new.txt')
    for (const n of names) {
      for (const which of ['modified', 'staged', 'untracked', 'changed']) {
        const r = await find({ pattern: '**/*', cwd: dir, path: n, git: which, gitStatus: true, ...ALL })
        const want = oracle(dir, which).filter((p) => p.startsWith(`${n}/`)).map((p) => p.slice(n.length + 1))
        assert.deepEqual(paths(r), want, `${n} ${which}`)
        assert.deepEqual(r.gitStatus, lettersOf(dir, paths(r), `${n}/`), `${n} ${which}`)
      }
    }
    assert.deepEqual(paths(await find({ pattern: '**/*', cwd: dir, path: 'a', git: 'changed', ...ALL })), ['kept.txt', 'new.txt'])
    assert.equal((await find({ pattern: '**/*', cwd: dir, path: 'a', git: 'staged', gitStatus: true })).gitStatus['new.txt'], 'A ')
  })

  test('an index answers as the disk does, and follows the work tree', async (t) => {
    const dir = makeRepo(t)
    const index = await openIndex(dir)
    t.after(() => index.close())
    for (const which of ['modified', 'staged', 'untracked', 'changed']) {
      const onDisk = await find({ pattern: '**/*', cwd: dir, git: which, ...ALL })
      const inIndex = await index.find({ pattern: '**/*', git: which, ...ALL })
      assert.deepEqual(paths(inIndex), paths(onDisk), which)
      const s1 = await searchFiles({ pattern: 'TODO|fn', cwd: dir, git: which, outputMode: 'count' })
      const s2 = await index.searchFiles({ pattern: 'TODO|fn', git: which, outputMode: 'count' })
      assert.deepEqual(s2.counts, s1.counts, `searchFiles ${which}`)
    }
    assert.deepEqual(
      paths(await index.find({ pattern: '**/*', changedSince: 'main', ...ALL })),
      oracleSince(dir, 'main'),
    )
    // A new untracked file and a commit: the next call sees both.
    writeTree(dir, { 'fresh.txt': 'new\n' })
    git(dir, 'add', 'README.md')
    await index.settled()
    assert.deepEqual(paths(await index.find({ pattern: '**/*', git: 'untracked', ...ALL })), oracle(dir, 'untracked'))
    assert.ok(oracle(dir, 'untracked').includes('fresh.txt'))
    assert.deepEqual(paths(await index.find({ pattern: '**/*', git: 'staged', ...ALL })), oracle(dir, 'staged'))
  })

  test('a linked worktree has its own changes', async (t) => {
    const dir = makeRepo(t)
    const wt = path.join(dir, '..', `${path.basename(dir)}-wt`)
    fs.mkdirSync(wt)
    const linked = path.join(wt, 'linked')
    t.after(() => fs.rmSync(wt, { recursive: true, force: true }))
    git(dir, 'worktree', 'add', '-q', '-b', 'other', linked, 'main')
    writeTree(linked, { 'src/a.rs': 'fn a() { in the worktree }\n', 'wt-only.txt': 'new\n' })
    git(linked, 'add', 'wt-only.txt')
    for (const which of ['modified', 'staged', 'changed']) {
      const r = await find({ pattern: '**/*', cwd: linked, git: which, ...ALL })
      assert.deepEqual(paths(r), oracle(linked, which), which)
    }
    assert.deepEqual(oracle(linked, 'changed'), ['src/a.rs', 'wt-only.txt'])
    // The main work tree's changes are its own.
    assert.deepEqual(paths(await find({ pattern: '**/*', cwd: dir, git: 'changed', ...ALL })), oracle(dir, 'changed'))
    assert.deepEqual(
      paths(await find({ pattern: '**/*', cwd: linked, changedSince: 'feature', ...ALL })),
      oracleSince(linked, 'feature'),
    )
  })

  test('a submodule is its own repository', async (t) => {
    const sub = tmpTree(t, { 'lib.rs': 'fn lib() {}\n' })
    git(sub, 'init', '-q', '-b', 'main')
    git(sub, 'add', '.')
    git(sub, 'commit', '-q', '-m', 'sub')
    const dir = tmpTree(t, { 'top.txt': 'top\n' })
    git(dir, 'init', '-q', '-b', 'main')
    git(dir, 'add', '.')
    git(dir, 'commit', '-q', '-m', 'top')
    execFileSync('git', ['-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', sub, 'vendor/sub'], { cwd: dir, stdio: 'ignore' })
    git(dir, 'commit', '-q', '-m', 'add the submodule')
    const inner = path.join(dir, 'vendor/sub')
    writeTree(inner, { 'lib.rs': 'fn lib() { edited }\n', 'new.rs': 'fn new() {}\n' })
    writeTree(dir, { 'top.txt': 'top, edited\n' })
    // The outer repository: its own file only (git shows the submodule as a
    // gitlink, never its files).
    assert.deepEqual(paths(await find({ pattern: '**/*', cwd: dir, git: 'changed', ...ALL })), ['top.txt'])
    // Inside the submodule: its own changes.
    const r = await find({ pattern: '**/*', cwd: inner, git: 'changed', ...ALL })
    assert.deepEqual(paths(r), oracle(inner, 'changed'))
    assert.deepEqual(paths(r), ['lib.rs', 'new.rs'])
  })

  test('explain names a file git has no change of', async (t) => {
    const dir = makeRepo(t)
    const e = await explain(path.join(dir, 'src/a.rs'), { pattern: '**/*', cwd: dir, git: 'changed' })
    assert.equal(e.found, false)
    assert.equal(e.reason, 'unchanged')
    assert.match(e.text, /git has no change/)
    const folder = await explain(path.join(dir, 'untouched/x.txt'), { pattern: '**/*', cwd: dir, git: 'changed' })
    assert.equal(folder.reason, 'unchanged')
    assert.equal(folder.at, 'untouched')
    const ok = await explain(path.join(dir, 'src/b.rs'), { pattern: '**/*', cwd: dir, git: 'changed' })
    assert.equal(ok.found, true)
    const tracked = await explain(path.join(dir, 'build/tracked.js'), { pattern: '**/*', cwd: dir, git: 'modified' })
    assert.equal(tracked.found, true, 'a tracked file under an ignored folder is changed, as git says')
  })
})

/** `git status --porcelain` letters by path, relative to `below` (a folder of `dir`), for the paths in `shown`. */
function lettersOf(dir, shown, below = '') {
  const all = porcelain(dir)
    .filter(([, p]) => p.startsWith(below))
    .map(([xy, p]) => [path.posix.relative(below || '.', p), xy])
  return Object.fromEntries(all.filter(([p]) => shown.includes(p)).sort(([a], [b]) => (a < b ? -1 : 1)))
}

describe('gitStatus: the letters git status prints, for what a result shows', () => {
  test('with git scoping: each file shown, both columns, whatever the scope', async (t) => {
    const dir = makeRepo(t)
    for (const which of ['modified', 'staged', 'untracked', 'changed']) {
      const r = await find({ pattern: '**/*', cwd: dir, git: which, gitStatus: true, ...ALL })
      assert.deepEqual(r.gitStatus, lettersOf(dir, paths(r)), which)
      assert.deepEqual(Object.keys(r.gitStatus).sort(), paths(r).filter((p) => !r.entries.find((e) => e.path === p && e.type === 'dir')))
    }
    // Spot checks of the letters themselves: staged, both, work tree, untracked, added.
    const r = await find({ pattern: '**/*', cwd: dir, git: 'modified', gitStatus: true, ...ALL })
    assert.deepEqual(r.gitStatus, { 'README.md': ' M', 'build/tracked.js': ' M', 'src/b.rs': 'MM' })
    const c = await find({ pattern: '**/*.{rs,md}', cwd: dir, git: 'changed', gitStatus: true, ...ALL })
    assert.deepEqual(c.gitStatus, { 'README.md': ' M', 'docs/guide.md': 'M ', 'notes/todo.md': '??', 'src/added.rs': 'A ', 'src/b.rs': 'MM' })
  })

  test('alone: every entry shown as without it, the changed ones with letters', async (t) => {
    const dir = makeRepo(t)
    const plain = await find({ pattern: '**/*', cwd: dir, ...ALL })
    const r = await find({ pattern: '**/*', cwd: dir, gitStatus: true, ...ALL })
    assert.deepEqual(r.entries, plain.entries)
    assert.equal(plain.gitStatus, undefined)
    assert.deepEqual(r.gitStatus, lettersOf(dir, paths(r)))
    assert.ok(!('untouched/x.txt' in r.gitStatus) && !('debug.log' in r.gitStatus), 'unchanged and ignored files have none')
    // The model text is the same: the letters are for the host.
    assert.equal(formatFindResult(r), formatFindResult(plain))
    // Relative to the search folder, as the entries are; only the entries shown.
    const src = await find({ pattern: '*.rs', cwd: dir, path: 'src', gitStatus: true, limit: 1, sortBy: 'name' })
    assert.deepEqual(src.entries.map((e) => e.path), ['a.rs'])
    assert.deepEqual(src.gitStatus, {})
    const inSrc = await find({ pattern: '**/*.rs', cwd: dir, path: 'src', gitStatus: true, ...ALL })
    assert.deepEqual(inSrc.gitStatus, lettersOf(dir, paths(inSrc), 'src/'))
    assert.deepEqual(inSrc.gitStatus, { 'added.rs': 'A ', 'b.rs': 'MM' })
  })

  test('searchFiles: the files of every output mode; a cursor from a call without it still pages', async (t) => {
    const dir = makeRepo(t)
    const files = await searchFiles({ pattern: 'fn|TODO', cwd: dir, outputMode: 'files', gitStatus: true })
    assert.deepEqual(files.gitStatus, lettersOf(dir, files.files))
    assert.ok(Object.keys(files.gitStatus).length >= 3)
    const counts = await searchFiles({ pattern: 'fn|TODO', cwd: dir, outputMode: 'count', gitStatus: true })
    assert.deepEqual(counts.gitStatus, files.gitStatus)
    const lines = await searchFiles({ pattern: 'fn|TODO', cwd: dir, gitStatus: true, git: 'changed' })
    assert.deepEqual(lines.gitStatus, lettersOf(dir, lines.matches.map((m) => m.file)))
    assert.equal(formatSearchResult(lines), formatSearchResult(await searchFiles({ pattern: 'fn|TODO', cwd: dir, git: 'changed' })))
    const names = await searchFiles({ pattern: 'rs', target: 'files', cwd: dir, gitStatus: true, fuzzy: true })
    assert.deepEqual(names.gitStatus, lettersOf(dir, names.files))
    const first = await searchFiles({ pattern: 'fn', cwd: dir, maxResults: 2 })
    assert.ok(first.cursor, 'more than one page')
    const next = await searchFiles({ pattern: 'fn', cwd: dir, maxResults: 2, cursor: first.cursor, gitStatus: true })
    assert.deepEqual(next.gitStatus, lettersOf(dir, next.matches.map((m) => m.file)))
  })

  test('an index gives the letters the disk does, and follows the work tree', async (t) => {
    const dir = makeRepo(t)
    const index = await openIndex(dir)
    t.after(() => index.close())
    const q = { pattern: '**/*', gitStatus: true, ...ALL }
    assert.deepEqual((await index.find(q)).gitStatus, (await find({ ...q, cwd: dir })).gitStatus)
    const s = { pattern: 'fn|TODO', outputMode: 'files', gitStatus: true }
    assert.deepEqual((await index.searchFiles(s)).gitStatus, (await searchFiles({ ...s, cwd: dir })).gitStatus)
    git(dir, 'add', 'README.md')
    writeTree(dir, { 'src/a.rs': 'fn a() { edited }\n' })
    await index.settled()
    const after = await index.find({ ...q, git: 'changed' })
    assert.equal(after.gitStatus['README.md'], 'M ')
    assert.equal(after.gitStatus['src/a.rs'], ' M')
    assert.deepEqual(after.gitStatus, lettersOf(dir, paths(after)))
  })

  test('errors: as git scoping, and a value that is not a boolean', async (t) => {
    const outside = tmpTree(t, { 'a.txt': 'a\n' })
    const isCode = (c, re) => (err) => err.code === c && (!re || re.test(err.message))
    await assert.rejects(find({ pattern: '*', cwd: outside, gitStatus: true }), isCode('not-a-repository'))
    await assert.rejects(searchFiles({ pattern: 'a', cwd: outside, gitStatus: true }), isCode('not-a-repository'))
    // false asks for nothing, so no repository is needed.
    assert.equal((await find({ pattern: '*', cwd: outside, gitStatus: false })).gitStatus, undefined)
    const reader = memoryReader({ 'a.txt': 'a' })
    await assert.rejects(find({ pattern: '*', reader, gitStatus: true }), isCode('invalid-argument', /gitStatus.*local disk/))
    await assert.rejects(searchFiles({ pattern: 'a', reader, gitStatus: true }), isCode('invalid-argument', /local disk/))
    const dir = makeRepo(t)
    await assert.rejects(find({ pattern: '*', cwd: dir, gitStatus: 'yes' }), isCode('invalid-argument', /`gitStatus`/))
    // findFiles returns paths only: it has nowhere to put the letters.
    await assert.rejects(findFiles('**/*', dir, { gitStatus: true }), isCode('invalid-argument', /findFiles.*`find`/))
  })
})

test('the CLI: --git and --changed-since, for find and search', async (t) => {
  const dir = makeRepo(t)
  const cli = (...args) => spawnSync(process.execPath, [path.join(REPO, 'bin/agent-find.js'), ...args], { cwd: dir, encoding: 'utf8' })
  const listed = (r) => JSON.parse(r.stdout).entries.map((e) => e.path).sort()
  let r = cli('**/*', '--git', 'modified', '--limit', '1000', '--json')
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(listed(r), oracle(dir, 'modified'))
  r = cli('**/*', '--changed-since', 'main', '--limit', '1000', '--json')
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(listed(r), oracleSince(dir, 'main'))
  r = cli('search', 'TODO', '--git', 'untracked', '--mode', 'files', '--json')
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual([...JSON.parse(r.stdout).files].sort(), oracle(dir, 'untracked'))
  r = cli('**/*', '--git', 'changed', '--git-status', '--limit', '1000', '--json')
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(JSON.parse(r.stdout).gitStatus, lettersOf(dir, listed(r)))
  r = cli('search', 'fn', '--git-status', '--mode', 'files', '--json')
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(JSON.parse(r.stdout).gitStatus, lettersOf(dir, JSON.parse(r.stdout).files))
  r = cli('**/*', '--changed-since', 'nope')
  assert.equal(r.status, 2)
  assert.match(r.stderr, /invalid-argument: .*'nope'/)
  r = cli('**/*', '--git', 'changed', '--cwd', makeTmpGone(t))
  assert.equal(r.status, 1)
  assert.match(r.stderr, /not-a-repository/)
})

/** A temp dir in no repository, removed when the test ends. */
function makeTmpGone(t) {
  return tmpTree(t, { 'a.txt': 'a\n' })
}

describe('git scoping errors', () => {
  const code = (c, re) => (err) => {
    assert.equal(err.name, 'FindFilesError')
    assert.equal(err.code, c, err.message)
    if (re) assert.match(err.message, re)
    return true
  }

  test('a folder in no repository: not-a-repository', async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'a\n' })
    await assert.rejects(find({ pattern: '*', cwd: dir, git: 'changed' }), code('not-a-repository', /not inside a git work tree/))
    await assert.rejects(searchFiles({ pattern: 'a', cwd: dir, changedSince: 'main' }), code('not-a-repository'))
    // Without git scoping the same folder searches fine.
    assert.equal((await find({ pattern: '*', cwd: dir })).entries.length, 1)
  })

  test('inside .git: not-a-repository', async (t) => {
    const dir = makeRepo(t)
    await assert.rejects(find({ pattern: '*', cwd: path.join(dir, '.git'), git: 'changed' }), code('not-a-repository'))
  })

  test('an unknown ref: invalid-argument naming it and how to list refs', async (t) => {
    const dir = makeRepo(t)
    await assert.rejects(
      find({ pattern: '*', cwd: dir, changedSince: 'no-such-branch' }),
      code('invalid-argument', /'no-such-branch'.*git branch -a/),
    )
    await assert.rejects(searchFiles({ pattern: 'x', cwd: dir, changedSince: 'no-such-branch' }), code('invalid-argument', /no-such-branch/))
  })

  test('a repository with no commit yet: git scoping still works, changedSince says why it cannot', async (t) => {
    const dir = tmpTree(t, { 'new.txt': 'new\n', 'staged.txt': 's\n' })
    git(dir, 'init', '-q', '-b', 'main')
    git(dir, 'add', 'staged.txt')
    assert.deepEqual(paths(await find({ pattern: '**/*', cwd: dir, git: 'untracked', ...ALL })), ['new.txt'])
    assert.deepEqual(paths(await find({ pattern: '**/*', cwd: dir, git: 'staged', ...ALL })), ['staged.txt'])
    await assert.rejects(find({ pattern: '*', cwd: dir, changedSince: 'main' }), code('invalid-argument', /changedSince/))
  })

  test('bad values, contradicting options and a reader: invalid-argument', async (t) => {
    const dir = makeRepo(t)
    await assert.rejects(find({ pattern: '*', cwd: dir, git: 'dirty' }), code('invalid-argument', /`git` must be one of 'modified', 'staged', 'untracked', 'changed'/))
    await assert.rejects(find({ pattern: '*', cwd: dir, git: true }), code('invalid-argument', /`git`/))
    await assert.rejects(find({ pattern: '*', cwd: dir, changedSince: '' }), code('invalid-argument', /`changedSince` is empty/))
    await assert.rejects(find({ pattern: '*', cwd: dir, changedSince: 3 }), code('invalid-argument', /`changedSince`/))
    await assert.rejects(find({ pattern: '*', cwd: dir, changedSince: 'main', git: 'staged' }), code('invalid-argument', /pass it alone/))
    const reader = memoryReader({ 'a.txt': 'a' })
    await assert.rejects(find({ pattern: '*', reader, git: 'changed' }), code('invalid-argument', /local disk/))
    await assert.rejects(searchFiles({ pattern: 'a', reader, changedSince: 'main' }), code('invalid-argument', /local disk/))
  })
})
