// What git scoping (`git`, `changedSince`, `gitStatus`) never does, on real
// repositories made with the git binary: run a program the repository's or
// the user's config names (a filter driver, fsmonitor, hooks, ssh, pagers),
// read a repository or object store outside `roots`, wait past the deadline
// (a long history, an aborted call), block on a FIFO or read a device where a
// file should be. And what it must still answer as git does: untracked files
// whatever `status.showUntrackedFiles` says, sparse checkouts (cone mode and
// a sparse index), names that are not UTF-8.
//
// Hostile set-ups that could hang run in a child process with a time limit,
// so a regression fails the test instead of stopping the suite.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { explain, find, formatFindResult, formatSearchResult, openIndex, searchFiles } from '../index.mjs'
import { rejectsWith, tmpTree, useOwnGitEnv, writeTree } from './helpers.mjs'
import { runChild } from './hostile-helpers.mjs'

const HOME = useOwnGitEnv()
const unix = process.platform !== 'win32'

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/** A repository at `dir/name` with one commit of `files`. */
function repoWith(dir, name, files) {
  const at = path.join(dir, name)
  writeTree(at, files)
  git(at, 'init', '-q', '-b', 'main')
  git(at, 'add', '-A')
  git(at, 'commit', '-q', '-m', 'base')
  return at
}

const sorted = (r) => r.entries.map((e) => e.path).sort()

/** `git status --porcelain -uall` as { path: 'XY' }, for the paths on disk. */
function porcelain(dir) {
  const out = git(dir, 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames')
  const pairs = out.split('\0').filter(Boolean).map((line) => [line.slice(3), line.slice(0, 2)])
  return Object.fromEntries(pairs.filter(([p]) => fs.existsSync(path.join(dir, p))))
}

describe('no program is run, whatever the config names', () => {
  // Every setting git (or a library reading git's config) may run a program for.
  const commands = {
    'filter.probe.clean': 'clean',
    'filter.probe.smudge': 'smudge',
    'filter.probe.process': 'process',
    'filter.lfs.clean': 'lfs-clean',
    'core.fsmonitor': 'fsmonitor',
    'core.sshCommand': 'ssh',
    'core.pager': 'pager',
    'core.editor': 'editor',
    'core.askPass': 'askpass',
    'diff.external': 'diff-external',
    'credential.helper': 'credential',
    'gpg.program': 'gpg',
    'core.hooksPath': null, // set below to a folder of hooks that all write the marker
  }

  function hostileRepo(t) {
    const dir = tmpTree(t)
    const marker = path.join(dir, 'ran')
    const write = (what) => `sh -c 'echo ${what} >> "${marker}"; cat'`
    const repo = repoWith(dir, 'r', { 'a.txt': 'hello\n', 'b.bin': 'pointer\n', 'keep.txt': 'same\n', '.gitattributes': '*.txt filter=probe\n*.bin filter=lfs\n' })
    const hooks = path.join(dir, 'hooks')
    fs.mkdirSync(hooks)
    for (const hook of ['post-index-change', 'post-checkout', 'reference-transaction', 'fsmonitor-watchman', 'pre-commit', 'post-commit']) {
      fs.writeFileSync(path.join(hooks, hook), `#!/bin/sh\necho hook-${hook} >> "${marker}"\n`, { mode: 0o755 })
    }
    for (const [key, what] of Object.entries(commands)) git(repo, 'config', key, what === null ? hooks : write(what))
    // The user's config names drivers too.
    fs.writeFileSync(path.join(HOME, '.gitconfig'), `[filter "probe"]\n\tclean = ${write('user-clean')}\n[core]\n\tfsmonitor = ${write('user-fsmonitor')}\n`)
    t.after(() => fs.rmSync(path.join(HOME, '.gitconfig'), { force: true }))
    writeTree(repo, { 'a.txt': 'changed\n', 'b.bin': 'the real large contents\n', 'new.txt': 'untracked\n' })
    return { repo, marker }
  }

  test('git itself runs the filter driver on this repository (the set-up is live)', (t) => {
    const { repo, marker } = hostileRepo(t)
    git(repo, 'status', '--porcelain')
    assert.ok(fs.existsSync(marker), 'git status ran no program: the test would prove nothing')
  })

  test('find, searchFiles, explain and an index, every scope: nothing runs', async (t) => {
    const { repo, marker } = hostileRepo(t)
    const scopes = [{ git: 'modified' }, { git: 'staged' }, { git: 'untracked' }, { git: 'changed' }, { changedSince: 'HEAD' }, { gitStatus: true }, { git: 'changed', gitStatus: true }]
    for (const scope of scopes) {
      await find({ pattern: '**', cwd: repo, ...scope })
      await searchFiles({ pattern: 'e', cwd: repo, ...scope })
    }
    await explain('keep.txt', { cwd: repo, git: 'modified' })
    const index = await openIndex(repo)
    try {
      for (const scope of scopes) await index.find({ pattern: '**', ...scope })
    } finally {
      await index.close()
    }
    assert.equal(fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '', '', 'a search started a program')
  })

  test('a file a driver applies to is judged on its raw bytes, and the answer says so', async (t) => {
    const { repo, marker } = hostileRepo(t)
    const r = await find({ pattern: '**', cwd: repo, git: 'modified', gitStatus: true })
    // a.txt changed whatever the (cat) filter does; keep.txt is untouched, so its stat matches.
    assert.deepEqual(sorted(r), ['a.txt', 'b.bin'])
    assert.deepEqual(r.gitStatus, { 'a.txt': ' M', 'b.bin': ' M' })
    assert.match(r.hint, /filter drivers \(`lfs`, `probe`\) were not run: 2 files they apply to count as modified/)
    assert.match(formatFindResult(r), /were not run/)
    const s = await searchFiles({ pattern: 'e', cwd: repo, git: 'modified' })
    assert.match(s.notice, /were not run/)
    assert.match(formatSearchResult(s), /were not run/)
    // Untracked and staged answers judge no content: no sentence.
    const u = await find({ pattern: '**', cwd: repo, git: 'untracked' })
    assert.deepEqual(sorted(u), ['new.txt'])
    assert.equal(u.hint, undefined)
    assert.ok(!fs.existsSync(marker))
  })
})

describe('nothing outside the roots is read', () => {
  test('a .git file inside the roots naming a repository outside them: outside-root, naming it', async (t) => {
    const dir = tmpTree(t)
    const secret = repoWith(dir, 'secret', { 'creds.txt': 'pw=hunter2\n' })
    const ws = path.join(dir, 'ws')
    writeTree(ws, { 'probe/creds.txt': 'pw=hunter2\n', 'probe/.git': `gitdir: ${path.join(secret, '.git')}\n` })
    const base = { pattern: '**', cwd: ws, roots: [ws], path: 'probe' }
    for (const scope of [{ git: 'changed' }, { changedSince: 'HEAD' }, { gitStatus: true }]) {
      await rejectsWith(find({ ...base, ...scope }), 'outside-root', path.join(secret, '.git'), 'outside the allowed roots')
      await rejectsWith(searchFiles({ ...base, pattern: 'pw', ...scope }), 'outside-root')
    }
    await rejectsWith(explain('probe/creds.txt', { cwd: ws, roots: [ws], path: 'probe', git: 'modified' }), 'outside-root')
    // Without roots, or with roots that hold both, the same call reads it.
    assert.deepEqual(sorted(await find({ ...base, roots: undefined, gitStatus: true })), ['creds.txt'])
    assert.deepEqual((await find({ ...base, roots: [dir], gitStatus: true })).gitStatus, {})
  })

  test('roots below the top of a repository: outside-root, naming the work tree', async (t) => {
    const dir = tmpTree(t)
    const repo = repoWith(dir, 'r', { 'pkg/a.txt': 'a\n', 'top.txt': 't\n' })
    writeTree(repo, { 'pkg/a.txt': 'changed\n' })
    const pkg = path.join(repo, 'pkg')
    await rejectsWith(find({ pattern: '**', cwd: pkg, roots: [pkg], git: 'modified' }), 'outside-root', `repository at \`${repo}\``)
    assert.deepEqual(sorted(await find({ pattern: '**', cwd: pkg, roots: [repo], git: 'modified' })), ['a.txt'])
    assert.deepEqual(sorted(await find({ pattern: '**', cwd: pkg, git: 'modified' })), ['a.txt'])
  })

  test('an object store named by objects/info/alternates outside the roots: outside-root', async (t) => {
    const dir = tmpTree(t)
    const upstream = repoWith(dir, 'upstream', { 'a.txt': 'a\n' })
    const ws = path.join(dir, 'ws')
    fs.mkdirSync(ws)
    git(ws, 'clone', '-q', '--shared', upstream, 'clone')
    const clone = path.join(ws, 'clone')
    assert.ok(fs.existsSync(path.join(clone, '.git/objects/info/alternates')), 'git clone --shared writes alternates')
    await rejectsWith(find({ pattern: '**', cwd: clone, roots: [ws], changedSince: 'HEAD' }), 'outside-root', 'objects/info/alternates')
    assert.deepEqual(sorted(await find({ pattern: '**', cwd: clone, roots: [dir], git: 'changed' })), [])
  })

  test("the user's global excludes file is read wherever it is (the host's own setting)", async (t) => {
    const dir = tmpTree(t)
    const repo = repoWith(dir, 'r', { 'a.txt': 'a\n' })
    writeTree(repo, { 'new.txt': 'n\n', 'secret.key': 'k\n' })
    fs.writeFileSync(path.join(HOME, 'global-ignore'), '*.key\n')
    fs.writeFileSync(path.join(HOME, '.gitconfig'), `[core]\n\texcludesFile = ${path.join(HOME, 'global-ignore')}\n`)
    t.after(() => fs.rmSync(path.join(HOME, '.gitconfig'), { force: true }))
    assert.deepEqual(Object.keys(porcelain(repo)), ['new.txt'])
    assert.deepEqual(sorted(await find({ pattern: '**', cwd: repo, roots: [repo], git: 'untracked' })), ['new.txt'])
  })
})

describe('deadlines: every git step stops with the call', () => {
  /** A repository whose main and side branches part 40,000 commits back (fast-import, a few seconds). */
  function longHistory(t) {
    const dir = tmpTree(t)
    const repo = path.join(dir, 'h')
    fs.mkdirSync(repo)
    git(repo, 'init', '-q', '-b', 'main')
    const parts = []
    for (let i = 1; i <= 40_000; i++) {
      const data = `v${i}\n`
      parts.push(`commit refs/heads/main\nmark :${i}\ncommitter t <a@b> ${1_600_000_000 + i} +0000\ndata ${String(i).length + 1}\nc${i}\n`)
      if (i > 1) parts.push(`from :${i - 1}\n`)
      parts.push(`M 644 inline f${i % 50}.txt\ndata ${data.length}\n${data}\n`)
      if (i === 1) parts.push('commit refs/heads/side\ncommitter t <a@b> 1600000000 +0000\ndata 5\nside\nfrom :1\nM 644 inline side.txt\ndata 2\ns\n\n')
    }
    execFileSync('git', ['fast-import', '--quiet'], { cwd: repo, input: parts.join(''), stdio: ['pipe', 'ignore', 'pipe'] })
    git(repo, 'reset', '-q', '--hard', 'main')
    return repo
  }

  test('changedSince: the merge base and the steps back stop at timeoutMs; aborted calls free their slots', async (t) => {
    const repo = longHistory(t)
    const whole = Date.now()
    await find({ pattern: '**', cwd: repo, changedSince: 'side' })
    const unbounded = Date.now() - whole
    t.diagnostic(`changedSince 'side' without a deadline: ${unbounded} ms`)
    for (const changedSince of ['side', 'HEAD~39990']) {
      const start = Date.now()
      await rejectsWith(find({ pattern: '**', cwd: repo, changedSince, timeoutMs: 1 }), 'aborted', 'timeoutMs')
      const took = Date.now() - start
      assert.ok(took < Math.max(200, unbounded / 2), `${changedSince}: rejected after ${took} ms (unbounded ${unbounded} ms)`)
    }
    const controllers = [1, 2, 3].map(() => new AbortController())
    const calls = controllers.map((c) => find({ pattern: '**', cwd: repo, changedSince: 'side', signal: c.signal }).catch((e) => e.code))
    controllers.forEach((c) => c.abort())
    assert.deepEqual(await Promise.all(calls), ['aborted', 'aborted', 'aborted'])
    // The answer itself equals git's.
    const base = git(repo, 'merge-base', 'HEAD', 'side').trim()
    const want = git(repo, 'diff', '--name-only', base).split('\n').filter(Boolean).sort()
    assert.deepEqual(sorted(await find({ pattern: '**', cwd: repo, changedSince: 'side' })), want)
  })

  test('changedSince takes a ref and ~N/^N steps; history searches and ranges are refused at once', async (t) => {
    const dir = tmpTree(t)
    const repo = repoWith(dir, 'r', { 'a.txt': 'a\n' })
    writeTree(repo, { 'a.txt': 'b\n' })
    git(repo, 'commit', '-q', '-am', 'second')
    writeTree(repo, { 'a.txt': 'c\n', 'u.txt': 'u\n' })
    for (const ok of ['HEAD', 'main', 'HEAD~1', 'HEAD^', 'HEAD^1~0', git(repo, 'rev-parse', '--short', 'HEAD~1').trim()]) {
      const r = await find({ pattern: '**', cwd: repo, changedSince: ok })
      assert.deepEqual(sorted(r), ['a.txt', 'u.txt'], ok)
    }
    for (const refused of [':/second', 'HEAD^{/second}', 'HEAD:a.txt', 'main..HEAD', 'HEAD@{1}', '-x']) {
      await rejectsWith(find({ pattern: '**', cwd: repo, changedSince: refused }), 'invalid-argument', 'changedSince')
    }
    await rejectsWith(find({ pattern: '**', cwd: repo, changedSince: 'HEAD~5' }), 'invalid-argument', 'past the first commit')
  })
})

describe('FIFOs and devices are never opened or read', { skip: !unix && 'FIFOs and /dev/zero are Unix' }, () => {
  /** Runs `find` in a child with a 20 s limit: the answer, or why there was none. */
  function childFind(options) {
    return runChild(`
      const fs = (await import('node:fs')).default
      const hwm = () => Number(/VmHWM:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024
      const before = hwm()
      try {
        const r = await af.find(arg)
        return { paths: r.entries.map((e) => e.path).sort(), gitStatus: r.gitStatus, growthMb: hwm() - before }
      } catch (e) { return { code: e.code, message: e.message, growthMb: hwm() - before } }`, { arg: options, limits: 'ulimit -v 3000000', timeout: 20_000 })
  }

  test('a FIFO .gitignore or .gitattributes in the work tree is passed over, as the plain walk does', (t) => {
    const dir = tmpTree(t)
    const repo = repoWith(dir, 'r', { 'a.txt': 'a\n' })
    fs.mkdirSync(path.join(repo, 'sub'))
    execFileSync('mkfifo', [path.join(repo, 'sub/.gitignore'), path.join(repo, '.gitattributes')])
    writeTree(repo, { 'sub/u.txt': 'u\n', 'a.txt': 'changed\n' })
    for (const git of ['untracked', 'changed', 'modified']) {
      const out = childFind({ pattern: '**', cwd: repo, git })
      assert.deepEqual(out.paths, { untracked: ['sub/u.txt'], changed: ['a.txt', 'sub/u.txt'], modified: ['a.txt'] }[git], JSON.stringify(out))
    }
  })

  test('/dev/zero as info/exclude, core.excludesFile or .gitattributes: the answer git gives, memory flat', (t) => {
    const dir = tmpTree(t)
    const repo = repoWith(dir, 'r', { 'a.txt': 'a\n' })
    writeTree(repo, { 'u.txt': 'u\n' })
    fs.rmSync(path.join(repo, '.git/info/exclude'), { force: true })
    fs.symlinkSync('/dev/zero', path.join(repo, '.git/info/exclude'))
    fs.symlinkSync('/dev/zero', path.join(repo, '.gitattributes'))
    git(repo, 'config', 'core.excludesFile', '/dev/zero')
    const out = childFind({ pattern: '**', cwd: repo, git: 'untracked', gitStatus: true })
    // (A link to a device is never listed, so `.gitattributes` is not shown.)
    assert.deepEqual(out.paths, ['u.txt'], JSON.stringify(out))
    assert.deepEqual(out.gitStatus, { 'u.txt': '??' })
    assert.ok(out.growthMb < 200, `peak RSS grew by ${out.growthMb} MB`)
  })

  test("a FIFO in a nested repository's .git is never read: its files are its own", (t) => {
    const dir = tmpTree(t)
    const repo = repoWith(dir, 'r', { 'a.txt': 'a\n' })
    fs.mkdirSync(path.join(repo, 'nested/.git'), { recursive: true })
    execFileSync('mkfifo', [path.join(repo, 'nested/.git/HEAD'), path.join(repo, 'nested/.git/commondir')])
    writeTree(repo, { 'nested/inner.txt': 'i\n', 'other/.git': 'gitdir: /nowhere/at/all\n', 'other/o.txt': 'o\n', 'top.txt': 't\n' })
    const out = childFind({ pattern: '**', cwd: repo, git: 'untracked' })
    assert.deepEqual(out.paths, ['top.txt'], JSON.stringify(out))
  })

  test('a FIFO or device among the git dir files gix opens: fs-error at once, naming it', (t) => {
    const dir = tmpTree(t)
    for (const [name, make] of [['index', 'fifo'], ['packed-refs', 'fifo'], ['refs/heads/side', 'fifo'], ['config', 'zero'], ['HEAD', 'zero']]) {
      const repo = repoWith(dir, name.replace(/\W/g, '-'), { 'a.txt': 'a\n' })
      const at = path.join(repo, '.git', name)
      fs.rmSync(at, { force: true })
      if (make === 'fifo') execFileSync('mkfifo', [at])
      else fs.symlinkSync('/dev/zero', at)
      const out = childFind({ pattern: '**', cwd: repo, git: 'changed' })
      if (name === 'HEAD') {
        // No HEAD file: git does not take the folder for a repository either.
        assert.equal(out.code, 'not-a-repository', JSON.stringify(out))
        continue
      }
      assert.equal(out.code, 'fs-error', `${name}: ${JSON.stringify(out)}`)
      assert.match(out.message, new RegExp(`\\.git/${name}\` is (a FIFO|a device)`), out.message)
    }
  })
})

describe('answers git gives, whatever the config and checkout', () => {
  test('status.showUntrackedFiles=no does not hide the untracked files a call asks for', async (t) => {
    const dir = tmpTree(t)
    const repo = repoWith(dir, 'r', { 'a.txt': 'a\n' })
    writeTree(repo, { 'a.txt': 'mod\n', 'u.txt': 'u\n', 'd/v.txt': 'v\n' })
    git(repo, 'config', 'status.showUntrackedFiles', 'no')
    const want = porcelain(repo)
    assert.deepEqual(want, { 'a.txt': ' M', 'd/v.txt': '??', 'u.txt': '??' })
    assert.deepEqual(sorted(await find({ pattern: '**', cwd: repo, git: 'untracked' })), ['d/v.txt', 'u.txt'])
    for (const scope of [{ git: 'changed' }, { changedSince: 'HEAD' }, { gitStatus: true }]) {
      const r = await find({ pattern: '**', cwd: repo, gitStatus: true, ...scope })
      assert.deepEqual(r.gitStatus, want, JSON.stringify(scope))
    }
    const s = await searchFiles({ pattern: 'v', cwd: repo, git: 'untracked', outputMode: 'files' })
    assert.deepEqual(s.files, ['d/v.txt'])
  })

  test('sparse checkout, cone mode and a sparse index: the files git lists', async (t) => {
    const dir = tmpTree(t)
    const src = repoWith(dir, 'src', { 'a/1.txt': '1\n', 'a/2.txt': '2\n', 'b/1.txt': '1\n', 'b/2.txt': '2\n', 'c/x/1.txt': '1\n' })
    const check = async (repo, label) => {
      writeTree(repo, { 'b/stray.txt': 's\n', 'c/x/new.txt': 'n\n', 'top.txt': 't\n', 'a/1.txt': 'edited\n' })
      const want = porcelain(repo)
      assert.deepEqual(Object.keys(want).sort(), ['a/1.txt', 'b/stray.txt', 'c/x/new.txt', 'top.txt'], label)
      for (const which of ['untracked', 'modified', 'changed']) {
        const keep = { untracked: (xy) => xy === '??', modified: (xy) => xy[1] !== ' ' && xy !== '??', changed: () => true }[which]
        const r = await find({ pattern: '**', cwd: repo, git: which })
        assert.deepEqual(sorted(r), Object.keys(want).filter((p) => keep(want[p])).sort(), `${label}: ${which}`)
      }
      assert.deepEqual((await find({ pattern: '**', cwd: repo, gitStatus: true })).gitStatus, want, label)
      assert.deepEqual(sorted(await find({ pattern: '**', cwd: repo, changedSince: 'HEAD' })), Object.keys(want).sort(), label)
    }
    git(dir, 'clone', '-q', '--no-local', src, 'cone')
    git(path.join(dir, 'cone'), 'sparse-checkout', 'set', '--cone', 'a')
    await check(path.join(dir, 'cone'), 'cone')
    git(dir, 'clone', '-q', '--no-local', src, 'sparse')
    const sparse = path.join(dir, 'sparse')
    git(sparse, 'sparse-checkout', 'set', '--cone', '--sparse-index', 'a')
    assert.match(git(sparse, 'ls-files', '--sparse', '-s'), /^040000 .*\tb\/$/m, 'the index holds a sparse folder entry')
    await check(sparse, 'sparse index')
  })

  test('gitStatus has the letters of a name that is not UTF-8, under the path shown', { skip: process.platform !== 'linux' && 'names of raw bytes' }, async (t) => {
    const dir = tmpTree(t)
    const repo = repoWith(dir, 'r', { 'a.txt': 'a\n' })
    const raw = Buffer.concat([Buffer.from(repo + '/caf'), Buffer.from([0xe9]), Buffer.from('.txt')])
    fs.writeFileSync(raw, 'x')
    writeTree(repo, { 'plain.txt': 'p\n' })
    const r = await find({ pattern: '**', cwd: repo, git: 'untracked', gitStatus: true })
    assert.equal(r.entries.length, 2)
    for (const e of r.entries) assert.equal(r.gitStatus[e.path], '??', `${e.path}: ${JSON.stringify(r.gitStatus)}`)
    const s = await searchFiles({ pattern: 'x', cwd: repo, git: 'untracked', gitStatus: true, outputMode: 'files' })
    assert.equal(s.files.length, 1)
    assert.equal(s.gitStatus[s.files[0]], '??')
  })
})
