// Every failure: FindFilesError with the right code and a message that says
// what was wrong. Argument validation, bad patterns, missing / non-directory
// paths, the `roots` sandbox, OS permission errors and other fs errors.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { FindFilesError, find, openIndex, searchFiles } from '../index.mjs'
import { NOBODY, REPO, cannotRunAsNobody, paths, rejectsWith, sortedPaths, tmpTree } from './helpers.mjs'

// A cwd that does not exist: a call that got past validation would fail
// with not-found here instead of walking anything.
const NOWHERE = '/nonexistent/agent-find-test'
const at = (opts = {}) => ({ cwd: NOWHERE, ...opts })

describe('invalid-argument', () => {
  test('failures reject a promise; they never throw synchronously', async () => {
    for (const call of [() => find(), () => find(42), () => find('', at()), () => find('*', at({ limit: 0 })), () => find('*', at({ maxdepth: 1 }))]) {
      let result
      assert.doesNotThrow(() => { result = call() })
      assert.ok(result instanceof Promise)
      await assert.rejects(result, FindFilesError)
    }
  })

  test('missing, empty or non-string pattern', async () => {
    await rejectsWith(find({ cwd: NOWHERE }), 'invalid-argument', '`pattern`', 'missing')
    await rejectsWith(find({ pattern: undefined, cwd: NOWHERE }), 'invalid-argument', '`pattern`')
    await rejectsWith(find('', at()), 'invalid-argument', '`pattern`', 'empty')
    await rejectsWith(find({ pattern: '', cwd: NOWHERE }), 'invalid-argument', '`pattern`')
    await rejectsWith(find('./', at()), 'invalid-argument', '`pattern`')
    await rejectsWith(find({ pattern: 5, cwd: NOWHERE }), 'invalid-argument', '`pattern`', 'string')
    await rejectsWith(find({ pattern: ['*.ts'], cwd: NOWHERE }), 'invalid-argument', '`pattern`')
  })

  test('non-object options', async () => {
    await rejectsWith(find(), 'invalid-argument', 'options')
    await rejectsWith(find(null), 'invalid-argument', 'options')
    await rejectsWith(find(42), 'invalid-argument', 'options')
    await rejectsWith(find(['*.ts']), 'invalid-argument', 'options')
    await rejectsWith(find('*.ts', 42), 'invalid-argument', 'options')
    await rejectsWith(find('*.ts', 'src'), 'invalid-argument', 'options')
    await rejectsWith(find('*.ts', ['src']), 'invalid-argument', 'options')
  })

  test('empty path or cwd', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await rejectsWith(find('*', at({ cwd: dir, path: '' })), 'invalid-argument', '`path`', 'empty')
    await rejectsWith(find('*', at({ cwd: '' })), 'invalid-argument', '`cwd`', 'empty')
  })

  test('bad limit: 0, -1, NaN, 1.5, a string, -Infinity', async () => {
    for (const limit of [0, -1, NaN, 1.5, '10', -Infinity, true]) {
      await rejectsWith(find('*', at({ limit })), 'invalid-argument', '`limit`')
    }
    for (const maxLimit of [0, -5, 2.5, NaN, '1000']) {
      await rejectsWith(find('*', at({ maxLimit })), 'invalid-argument', '`maxLimit`')
    }
  })

  test('bad numbers: maxDepth, maxBytes, timeoutMs', async () => {
    for (const maxDepth of [-1, 1.5, NaN, '2']) await rejectsWith(find('*', at({ maxDepth })), 'invalid-argument', '`maxDepth`')
    for (const maxBytes of [0, -1, 10.5, NaN, -Infinity, '51200']) await rejectsWith(find('*', at({ maxBytes })), 'invalid-argument', '`maxBytes`')
    for (const timeoutMs of [0, -5, NaN, '100']) await rejectsWith(find('*', at({ timeoutMs })), 'invalid-argument', '`timeoutMs`')
  })

  test('wrong option types name the option and what it must be', async () => {
    const cases = [
      [{ type: 'folder' }, '`type`', "'file'"],
      [{ type: 1 }, '`type`'],
      [{ sortBy: 'date' }, '`sortBy`', "'recent'"],
      [{ sortBy: 1 }, '`sortBy`'],
      [{ hidden: 'yes' }, '`hidden`'],
      [{ gitignore: 1 }, '`gitignore`'],
      [{ regex: 'true' }, '`regex`'],
      [{ matchBase: 0 }, '`matchBase`'],
      [{ caseSensitive: 'no' }, '`caseSensitive`'],
      [{ reverse: null, limit: {} }, '`limit`'],
      [{ reverse: 1 }, '`reverse`'],
      [{ exclude: 'dist' }, '`exclude`', 'array'],
      [{ exclude: [1] }, '`exclude`'],
      [{ exclude: [''] }, '`exclude`'],
      [{ path: 5 }, '`path`'],
      [{ cwd: {} }, '`cwd`'],
      [{ roots: 'src' }, '`roots`'],
      [{ roots: [''] }, '`roots`'],
      [{ roots: [1] }, '`roots`'],
      [{ signal: {} }, '`signal`'],
      [{ signal: 'abort' }, '`signal`'],
      [{ policy: 'allow' }, '`policy`'],
      [{ approve: true }, '`approve`'],
    ]
    for (const [opts, ...needles] of cases) {
      await rejectsWith(find('*', at(opts)), 'invalid-argument', ...needles)
    }
  })

  test('unknown option names are refused and the known ones listed', async () => {
    await rejectsWith(find('*', at({ maxdepth: 1 })), 'invalid-argument', '`maxdepth`', 'maxDepth')
    await rejectsWith(find('*', at({ ignoreCase: true })), 'invalid-argument', '`ignoreCase`', 'caseSensitive')
    await rejectsWith(find({ pattern: '*', types: 'file', cwd: NOWHERE }), 'invalid-argument', '`types`')
    // The list names the options the JS side takes too, `reader` among them.
    await rejectsWith(find({ pattern: '*', readr: 1, cwd: NOWHERE }), 'invalid-argument', '`readr`', 'signal, policy, approve, reader')
  })

  test('bad sizes and dates', async () => {
    for (const minSize of ['big', '10XB', '-1KB', '1.2.3MB', -1, 1.5, NaN, true]) {
      await rejectsWith(find('*', at({ minSize })), 'invalid-argument', '`minSize`')
    }
    await rejectsWith(find('*', at({ maxSize: 'huge' })), 'invalid-argument', '`maxSize`', '10KB')
    await rejectsWith(find('*', at({ minSize: 10, maxSize: 5 })), 'invalid-argument', '`minSize`', '`maxSize`')
    await rejectsWith(find('*', at({ minSize: '2KB', maxSize: '1KB' })), 'invalid-argument', '`minSize`')
    for (const modifiedSince of ['last week', '7x', '2024-13-01', '', {}, NaN, Infinity, new Date('not a date'), true]) {
      await rejectsWith(find('*', at({ modifiedSince })), 'invalid-argument', '`modifiedSince`')
    }
  })

  test('validation runs before the path is looked at', async (t) => {
    const dir = tmpTree(t, {})
    await rejectsWith(find('*', at({ cwd: dir, path: 'missing', limit: 0 })), 'invalid-argument', '`limit`')
  })
})

describe('invalid-pattern', () => {
  test('an unclosed class names the character position', async () => {
    const err = await rejectsWith(find('src/[abc', at()), 'invalid-pattern', 'src/[abc', 'character 5')
    assert.match(err.message, /never closed/)
  })

  test('an unclosed brace names the character position', async () => {
    await rejectsWith(find('*.{ts,js', at()), 'invalid-pattern', 'character 3')
  })

  test('a bad regex says it is a JavaScript regex and shows the parse error', async () => {
    const err = await rejectsWith(find('(unclosed', at({ regex: true })), 'invalid-pattern', 'JavaScript regex')
    assert.match(err.message, /Unbalanced parenthesis/)
    await rejectsWith(find('[z-a]', at({ regex: true })), 'invalid-pattern', 'regex')
  })

  test('a bad exclude glob is an invalid-pattern naming exclude', async () => {
    await rejectsWith(find('*', at({ exclude: ['ok', '[unclosed'] })), 'invalid-pattern', '`exclude`', '[unclosed')
  })
})

describe('not-found and not-a-dir', () => {
  test('a missing path: not-found naming the resolved path', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await rejectsWith(find('*', { cwd: dir, path: 'missing/deeper' }), 'not-found', path.join(dir, 'missing/deeper'))
    await rejectsWith(find('*', { cwd: path.join(dir, 'nope') }), 'not-found', path.join(dir, 'nope'))
  })

  test('a path through a file: not-found saying a part of it is a file', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await rejectsWith(find('*', { cwd: dir, path: 'a.txt/sub' }), 'not-found', 'a.txt/sub', 'file')
  })

  test('a file as path (or a symlink to a file): not-a-dir', async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x', 'link': { symlink: 'a.txt' } })
    const err = await rejectsWith(find('*', { cwd: dir, path: 'a.txt' }), 'not-a-dir', path.join(dir, 'a.txt'))
    assert.match(err.message, /pattern/, 'the message says what to do')
    await rejectsWith(find('*', { cwd: dir, path: 'link' }), 'not-a-dir', path.join(dir, 'link'))
  })

  test('a dangling symlink as path: not-found', async (t) => {
    const dir = tmpTree(t, { 'gone': { symlink: 'nowhere' } })
    await rejectsWith(find('*', { cwd: dir, path: 'gone' }), 'not-found', path.join(dir, 'gone'))
  })
})

describe('outside-root (roots sandbox)', () => {
  function sandbox(t) {
    return tmpTree(t, {
      'root/in.txt': '', 'root/sub/s.txt': '', 'root/inner-link': { symlink: 'sub' },
      'root/escape': { symlink: '../outside' }, 'outside/o/x.txt': '', 'root-evil/e.txt': '',
    })
  }

  test('paths inside the roots are searched', async (t) => {
    const dir = sandbox(t)
    const roots = [path.join(dir, 'root')]
    assert.deepEqual(paths(await find('*', { cwd: dir, path: 'root', roots })), ['in.txt'])
    assert.deepEqual(paths(await find('*', { cwd: dir, path: 'root/sub', roots })), ['s.txt'])
    assert.deepEqual(paths(await find('*', { cwd: dir, path: 'root/inner-link', roots })), ['s.txt'], 'a link that stays inside is fine')
    assert.deepEqual(paths(await find('*', { cwd: path.join(dir, 'root'), roots: ['.'] })), ['in.txt'], 'roots resolve against cwd')
    assert.deepEqual(paths(await find('*', { cwd: dir, path: 'outside/o', roots: ['root', 'outside'] })), ['x.txt'], 'any of several roots')
    assert.deepEqual(paths(await find('*', { cwd: dir, path: 'root/sub/../sub', roots })), ['s.txt'])
  })

  test("escaping with '..' is outside-root", async (t) => {
    const dir = sandbox(t)
    const root = path.join(dir, 'root')
    const err = await rejectsWith(find('*', { cwd: root, path: '../outside', roots: [root] }), 'outside-root', path.join(dir, 'outside'), root)
    assert.match(err.message, /inside one of them/)
    await rejectsWith(find('*', { cwd: root, path: '..', roots: [root] }), 'outside-root', dir)
    await rejectsWith(find('*', { cwd: dir, path: '/', roots: [root] }), 'outside-root')
  })

  test('a sibling folder sharing the root as a name prefix is outside', async (t) => {
    const dir = sandbox(t)
    await rejectsWith(find('*', { cwd: dir, path: 'root-evil', roots: ['root'] }), 'outside-root', 'root-evil')
  })

  test('a symlink inside the root pointing outside is outside-root, and says so', async (t) => {
    const dir = sandbox(t)
    const roots = [path.join(dir, 'root')]
    await rejectsWith(find('*', { cwd: dir, path: 'root/escape', roots }), 'outside-root', 'root/escape', 'symlink')
    await rejectsWith(find('*', { cwd: dir, path: 'root/escape/o', roots }), 'outside-root', 'symlink')
  })

  test('a missing path below a symlink that points outside is outside-root, not not-found',
    async (t) => {
      const dir = sandbox(t)
      const roots = [path.join(dir, 'root')]
      // outside/o exists (outside-root) and outside/missing does not: both must answer the same.
      await rejectsWith(find('*', { cwd: dir, path: 'root/escape/missing', roots }), 'outside-root')
    })

  test('roots: [] denies everything', async (t) => {
    const dir = sandbox(t)
    await rejectsWith(find('*', { cwd: dir, roots: [] }), 'outside-root', 'empty')
    await rejectsWith(find('*', { cwd: dir, path: 'root', roots: [] }), 'outside-root')
  })

  test('the sandbox is checked before existence: a missing path outside is outside-root', async (t) => {
    const dir = sandbox(t)
    await rejectsWith(find('*', { cwd: dir, path: 'nope', roots: ['root'] }), 'outside-root')
    await rejectsWith(find('*', { cwd: dir, path: 'root/nope', roots: ['root'] }), 'not-found')
  })

  test('symlinks inside the walked tree that point outside are listed, never followed', async (t) => {
    const dir = sandbox(t)
    const r = await find('**/*', { cwd: dir, path: 'root', roots: ['root'], type: 'any', sortBy: 'name' })
    assert.deepEqual(r.entries.map((e) => [e.path, e.type]), [
      ['escape', 'symlink'], ['in.txt', 'file'], ['inner-link', 'symlink'], ['sub', 'dir'], ['sub/s.txt', 'file'],
    ])
  })
})

describe('fs-error and odd paths', () => {
  test('a self-referencing symlink as path: fs-error naming the path and the OS error', async (t) => {
    const dir = tmpTree(t, { 'self': { symlink: 'self' } })
    await rejectsWith(find('*', { cwd: dir, path: 'self' }), 'fs-error', path.join(dir, 'self'), 'symbolic links')
  })

  test('a path the OS refuses for its length is invalid-argument (find, searchFiles, an index); the longest name is not-found', async (t) => {
    const dir = tmpTree(t, { 'sub/a.txt': 'a' })
    for (const p of ['x'.repeat(256), 'x'.repeat(5000), `sub/${'y'.repeat(300)}`]) {
      const err = await rejectsWith(find('*', { cwd: dir, path: p }), 'invalid-argument', 'too long', '`path`')
      assert.ok(err.message.length < 1024, 'the path is clipped in the message')
      await rejectsWith(searchFiles({ pattern: 'a', cwd: dir, path: p }), 'invalid-argument', 'too long')
      await rejectsWith(searchFiles({ pattern: 'a', target: 'files', cwd: dir, path: p }), 'invalid-argument', 'too long')
    }
    const index = await openIndex(dir)
    t.after(() => index.close())
    await rejectsWith(index.find({ pattern: '*', path: 'x'.repeat(300) }), 'invalid-argument', 'too long')
    await rejectsWith(index.searchFiles({ pattern: 'a', path: `sub/${'y'.repeat(300)}` }), 'invalid-argument', 'too long')
    // 255 bytes is a name a file could have: nothing is there.
    await rejectsWith(find('*', { cwd: dir, path: 'x'.repeat(255) }), 'not-found')
    // A missing folder before the long name: nothing is there either.
    await rejectsWith(find('*', { cwd: dir, path: `nope/${'y'.repeat(300)}` }), 'not-found')
  })

  test('a path holding a NUL byte is an invalid argument',
    async (t) => {
      const dir = tmpTree(t, {})
      await rejectsWith(find('*', { cwd: dir, path: 'a\0b' }), 'invalid-argument', '`path`')
    })
})

describe('permission-denied from the OS (run as nobody)', () => {

  /** Runs `find(opts)` as uid 65534 in a child; returns { ok, result } or { ok: false, code, message }. */
  function findAsNobody(opts) {
    const script = `
      const { find, FindFilesError } = require(${JSON.stringify(path.join(REPO, 'index.js'))})
      find(${JSON.stringify(opts)}).then(
        (result) => console.log(JSON.stringify({ ok: true, result })),
        (e) => console.log(JSON.stringify({ ok: false, isFindFilesError: e instanceof FindFilesError, code: e.code, message: e.message })))`
    const out = spawnSync(NOBODY[0], [...NOBODY.slice(1), process.execPath, '-e', script], { encoding: 'utf8', timeout: 20_000 })
    assert.equal(out.status, 0, `child failed: ${out.stderr}`)
    return JSON.parse(out.stdout)
  }

  function lockedTree(t) {
    const dir = tmpTree(t, { 'open/a.txt': '', 'locked/secret/b.txt': '', 'open/locked-deep/c.txt': '', 'open/z.txt': '' })
    fs.chmodSync(dir, 0o755)
    fs.chmodSync(path.join(dir, 'locked'), 0o700) // owned by root: nobody can neither list nor enter it
    fs.chmodSync(path.join(dir, 'open/locked-deep'), 0o700)
    return dir
  }

  test('an unreadable root is permission-denied', async (t) => {
    const why = cannotRunAsNobody()
    if (why) return t.skip(why)
    const dir = lockedTree(t)
    const root = findAsNobody({ pattern: '*', cwd: dir, path: 'locked' })
    assert.equal(root.ok, false, JSON.stringify(root))
    assert.equal(root.isFindFilesError, true)
    assert.equal(root.code, 'permission-denied')
    assert.ok(root.message.includes(path.join(dir, 'locked')), root.message)
    const below = findAsNobody({ pattern: '*', cwd: dir, path: 'locked/secret' })
    assert.equal(below.ok, false, JSON.stringify(below))
    assert.equal(below.code, 'permission-denied')
    assert.ok(below.message.includes(path.join(dir, 'locked/secret')), below.message)
  })

  test('unreadable folders below the root are skipped, the rest is listed', async (t) => {
    const why = cannotRunAsNobody()
    if (why) return t.skip(why)
    const dir = lockedTree(t)
    const out = findAsNobody({ pattern: '**/*', cwd: dir, type: 'any', sortBy: 'name' })
    assert.equal(out.ok, true, JSON.stringify(out))
    assert.deepEqual(out.result.entries.map((e) => e.path), ['locked', 'open', 'open/a.txt', 'open/locked-deep', 'open/z.txt'])
    // The same search as root sees everything, so the difference is the permission.
    const asRoot = await find('**/*', { cwd: dir, type: 'any' })
    assert.deepEqual(sortedPaths(asRoot), ['locked', 'locked/secret', 'locked/secret/b.txt', 'open', 'open/a.txt', 'open/locked-deep', 'open/locked-deep/c.txt', 'open/z.txt'])
  })
})
