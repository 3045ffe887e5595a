// The storage readers of js/readers/, called directly: memoryReader and
// mountReader results (list, stat, read), every error code and message, tree
// and mount validation, snapshots, and mountReader's promises: it never
// leaves its mounts (symlinks pointing out are refused, EACCES), follows no
// symlink inside them either (as memoryReader), and never shows a local path
// (in a message, an error property or a result).
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'
import util from 'node:util'

import { FindFilesError, memoryReader, mountReader } from '../index.mjs'
import { NOBODY, REPO, cannotRunAsNobody, makeTmp, removeTmp, tmpTree } from './helpers.mjs'

const byName = (entries) => [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
const utf8 = (text) => new TextEncoder().encode(text)

/** Asserts that `promise` rejects with an Error of `code` whose message is exactly `message`. */
async function rejectsFs(promise, code, message) {
  assert.ok(promise instanceof Promise, 'reader methods return promises (errors are rejections, not throws)')
  const err = await promise.then(
    (value) => assert.fail(`expected ${code}, resolved with ${util.inspect(value)}`),
    (e) => e,
  )
  assert.ok(err instanceof Error, `an Error, got ${util.inspect(err)}`)
  assert.equal(err.code, code, `code of: ${err.message}`)
  if (message instanceof RegExp) assert.match(err.message, message)
  else assert.equal(err.message, message)
  return err
}

/** Asserts that building a reader throws invalid-argument with a message matching `pattern`. */
function throwsInvalid(build, pattern) {
  assert.throws(build, (err) => {
    assert.ok(err instanceof FindFilesError, `a FindFilesError, got ${err}`)
    assert.equal(err.code, 'invalid-argument')
    assert.match(err.message, pattern)
    return true
  })
}

describe('memoryReader', () => {
  const T1 = 1_700_000_000_000
  const tree = () => ({
    'README.md': '# hi',
    '/src/index.ts': 'export {}\n',
    'src/lib/': null,
    'docs/é.txt': 'é',
    'docs/日本.md': { content: '日本', modifiedTime: T1 },
    'docs/when.txt': { content: '', modifiedTime: new Date(T1 + 1000) },
    'data.bin': new Uint8Array([0, 1, 2, 255]),
    'empty/': { type: 'dir', modifiedTime: T1 + 2000 },
    'nothing': { modifiedTime: T1 + 3000 },
    'link': { type: 'symlink', target: 'src/index.ts' },
    'far': { type: 'symlink', target: '/döcs' },
  })

  test('list gives names, types, UTF-8 byte sizes and modification times; parents are implied', async () => {
    const r = memoryReader(tree())
    assert.deepEqual(byName(await r.list('/')), [
      { name: 'README.md', type: 'file', size: 4 },
      { name: 'data.bin', type: 'file', size: 4 },
      { name: 'docs', type: 'dir' },
      { name: 'empty', type: 'dir', modifiedTime: T1 + 2000 },
      { name: 'far', type: 'symlink', size: 6 },
      { name: 'link', type: 'symlink', size: 12 },
      { name: 'nothing', type: 'file', size: 0, modifiedTime: T1 + 3000 },
      { name: 'src', type: 'dir' },
    ])
    assert.deepEqual(byName(await r.list('/docs')), [
      { name: 'when.txt', type: 'file', size: 0, modifiedTime: T1 + 1000 },
      { name: 'é.txt', type: 'file', size: 2 },
      { name: '日本.md', type: 'file', size: 6, modifiedTime: T1 },
    ])
    assert.deepEqual(byName(await r.list('/src')), [
      { name: 'index.ts', type: 'file', size: 10 },
      { name: 'lib', type: 'dir' },
    ])
    assert.deepEqual(await r.list('/src/lib'), [])
    assert.deepEqual(await r.list('/empty'), [])
  })

  test('stat reports what the path is, without following a symlink', async () => {
    const r = memoryReader(tree())
    assert.deepEqual(await r.stat('/'), { type: 'dir' })
    assert.deepEqual(await r.stat('/docs/日本.md'), { type: 'file', size: 6, modifiedTime: T1 })
    assert.deepEqual(await r.stat('/docs/when.txt'), { type: 'file', size: 0, modifiedTime: T1 + 1000 })
    assert.deepEqual(await r.stat('/empty'), { type: 'dir', modifiedTime: T1 + 2000 })
    assert.deepEqual(await r.stat('/src'), { type: 'dir' })
    assert.deepEqual(await r.stat('/link'), { type: 'symlink', size: 12 })
  })

  test('read returns the bytes: strings as UTF-8, Uint8Array as given', async () => {
    const r = memoryReader(tree())
    const text = await r.read('/docs/日本.md')
    assert.ok(text instanceof Uint8Array)
    assert.deepEqual(text, utf8('日本'))
    assert.deepEqual(await r.read('/data.bin'), new Uint8Array([0, 1, 2, 255]))
    assert.deepEqual(await r.read('/nothing'), new Uint8Array(0))
  })

  test('a Map tree gives the same reader as the plain object', async () => {
    const r1 = memoryReader(tree())
    const r2 = memoryReader(new Map(Object.entries(tree())))
    for (const dir of ['/', '/docs', '/src', '/src/lib', '/empty']) {
      assert.deepEqual(byName(await r2.list(dir)), byName(await r1.list(dir)), dir)
    }
    assert.deepEqual(await r2.read('/data.bin'), await r1.read('/data.bin'))
    assert.deepEqual(await r2.stat('/link'), await r1.stat('/link'))
  })

  test('the root can be given a modification time with the key "/"', async () => {
    const r = memoryReader({ '/': { type: 'dir', modifiedTime: 5 }, 'a.txt': 'a' })
    assert.deepEqual(await r.stat('/'), { type: 'dir', modifiedTime: 5 })
    assert.deepEqual(await memoryReader({ '/': null }).list('/'), [])
    assert.deepEqual(await memoryReader({}).list('/'), [])
  })

  test('a folder implied by a deeper path and also given itself takes the given time', async () => {
    for (const t of [{ 'a/b.txt': 'x', 'a': { type: 'dir', modifiedTime: 7 } }, { 'a/': { type: 'dir', modifiedTime: 7 }, 'a/b.txt': 'x' }]) {
      const r = memoryReader(t)
      assert.deepEqual(await r.list('/'), [{ name: 'a', type: 'dir', modifiedTime: 7 }])
      assert.deepEqual(await r.list('/a'), [{ name: 'b.txt', type: 'file', size: 1 }])
    }
  })

  test('the tree is a snapshot: later changes to it, its buffers or the answers do not show', async () => {
    const bytes = new Uint8Array([1, 2, 3])
    const t = { 'a.bin': bytes, 'b.txt': 'b', 'dir/c.txt': 'c' }
    const r = memoryReader(t)
    bytes[0] = 9
    t['new.txt'] = 'new'
    delete t['b.txt']
    const listed = await r.list('/')
    listed[0].name = 'changed'
    listed.push({ name: 'pushed', type: 'file' })
    const read = await r.read('/a.bin')
    read[1] = 9
    assert.deepEqual(byName(await r.list('/')).map((e) => e.name), ['a.bin', 'b.txt', 'dir'])
    assert.deepEqual(await r.read('/a.bin'), new Uint8Array([1, 2, 3]))
  })

  test('ENOENT for a missing path, ENOTDIR through a file or symlink, EISDIR for reading a folder', async () => {
    const r = memoryReader(tree())
    await rejectsFs(r.list('/missing'), 'ENOENT', "ENOENT: no such file or directory, list '/missing'")
    await rejectsFs(r.list('/src/missing/deeper'), 'ENOENT', "ENOENT: no such file or directory, list '/src/missing/deeper'")
    await rejectsFs(r.stat('/docs/nope.md'), 'ENOENT', "ENOENT: no such file or directory, stat '/docs/nope.md'")
    await rejectsFs(r.read('/nope'), 'ENOENT', "ENOENT: no such file or directory, read '/nope'")
    await rejectsFs(r.list('/README.md'), 'ENOTDIR', "ENOTDIR: not a directory, list '/README.md'")
    await rejectsFs(r.list('/README.md/x'), 'ENOTDIR', "ENOTDIR: not a directory, list '/README.md/x'")
    await rejectsFs(r.stat('/README.md/x'), 'ENOTDIR', "ENOTDIR: not a directory, stat '/README.md/x'")
    await rejectsFs(r.read('/docs/é.txt/x'), 'ENOTDIR', "ENOTDIR: not a directory, read '/docs/é.txt/x'")
    await rejectsFs(r.list('/link'), 'ENOTDIR', "ENOTDIR: not a directory, list '/link'")
    await rejectsFs(r.read('/link/x'), 'ENOTDIR', "ENOTDIR: not a directory, read '/link/x'")
    await rejectsFs(r.read('/src'), 'EISDIR', "EISDIR: illegal operation on a directory, read '/src'")
    await rejectsFs(r.read('/'), 'EISDIR', "EISDIR: illegal operation on a directory, read '/'")
    const err = await rejectsFs(r.read('/link'), 'ELOOP', /^ELOOP: .*, read '\/link' \(symlinks are not followed\)$/)
    assert.equal(err.syscall, 'read')
    assert.equal(err.path, '/link')
  })

  test('paths that are not normalized and absolute are ENOENT', async () => {
    const r = memoryReader(tree())
    for (const p of ['', 'src', 'src/index.ts', '/src/', '//src', '/./src', '/src/.', '/src/../src', '/src//lib', '/src\0', 42, null, undefined]) {
      await rejectsFs(r.list(p), 'ENOENT', `ENOENT: no such file or directory, list '${String(p)}'`)
      await rejectsFs(r.stat(p), 'ENOENT', `ENOENT: no such file or directory, stat '${String(p)}'`)
      await rejectsFs(r.read(p), 'ENOENT', `ENOENT: no such file or directory, read '${String(p)}'`)
    }
  })

  test('invalid trees throw invalid-argument saying what is wrong and how to fix it', () => {
    const cases = [
      [undefined, /takes a plain object or a Map .*got undefined/],
      [null, /got null/],
      ['a.txt', /got the string "a.txt"/],
      [['a.txt'], /got an array/],
      [new Set(['a']), /got an object \(Set\)/],
      [new Map([[1, 'x']]), /every path must be a string; got the number 1/],
      [new Map([[Symbol('s'), 'x']]), /every path must be a string; got the symbol Symbol\(s\)/],
      [{ '': 'x' }, /a path is empty.*the root as '\/'/],
      [{ 'a\0b': 'x' }, /"a\\u0000b" holds a NUL character/],
      [{ 'a//b': 'x' }, /"a\/\/b" has an empty segment/],
      [{ '//a': 'x' }, /"\/\/a" has an empty segment/],
      [{ '//': null }, /"\/\/" has an empty segment/],
      [{ 'a/../b': 'x' }, /"a\/..\/b" has a '.' or '..' segment; give normalized paths/],
      [{ './a': 'x' }, /"\.\/a" has a '\.' or '\.\.' segment/],
      [{ 'a': 'x', 'a/b': 'y' }, /"a" is a file but also the folder of "a\/b"; a path is either a file or a folder/],
      [{ 'a/b/c': 'y', 'a': 'x' }, /"a" is a file but also the folder of "a\/b\/c"/],
      [{ 'l': { type: 'symlink', target: 'x' }, 'l/f': 'y' }, /"l" is a symlink but also the folder of "l\/f"/],
      [{ 'a': 'x', '/a': 'y' }, /the path "\/a" is given twice \(also as "a"\)/],
      [{ 'a/': null, 'a': 'x' }, /the path "a" is given twice \(also as "a\/"\)/],
      [{ 'a/': null, '/a/': { type: 'dir' } }, /the path "\/a\/" is given twice \(also as "a\/"\)/],
      [new Map([['/', null], ['/', null]]).set('x/', null).set('/x', null), /the path "\/x" is given twice/],
      [{ 'a/': 'text' }, /"a\/" ends with '\/', which names a folder, but its value is a file; drop the '\/' or give null/],
      [{ '/': 'text' }, /"\/" ends with '\/'/],
      [{ 'a': 5 }, /the value of "a" must be file contents \(a string or Uint8Array\), null \(an empty folder\).*; got the number 5/],
      [{ 'a': undefined }, /the value of "a" must be .*; got undefined/],
      [{ 'a': true }, /got the boolean true/],
      [{ 'a': [1] }, /got an array/],
      [{ 'a': new ArrayBuffer(2) }, /got an object \(ArrayBuffer\)/],
      [{ 'a': { contents: 'x' } }, /"a" has the unknown key `contents`; a file takes `type`, `content`, `modifiedTime`/],
      [{ 'a': { type: 'dir', content: 'x' } }, /unknown key `content`; a dir takes `type`, `modifiedTime`/],
      [{ 'a': { type: 'folder' } }, /the type of "a" must be 'file', 'dir' or 'symlink'; got the string "folder"/],
      [{ 'a': { content: 5 } }, /the content of "a" must be a string or Uint8Array; got the number 5/],
      [{ 'a': { modifiedTime: '2024-01-01' } }, /the modifiedTime of "a" must be epoch milliseconds or a valid Date; got the string/],
      [{ 'a': { modifiedTime: NaN } }, /modifiedTime .* got the number NaN/],
      [{ 'a': { modifiedTime: new Date('nope') } }, /modifiedTime .* got an object \(Date\)/],
      [{ 'a': { type: 'dir', modifiedTime: Infinity } }, /modifiedTime .* got the number Infinity/],
      [{ 'l': { type: 'symlink' } }, /the symlink "l" needs a `target`: a non-empty string without NUL; got undefined/],
      [{ 'l': { type: 'symlink', target: '' } }, /needs a `target`.*got the string ""/],
      [{ 'l': { type: 'symlink', target: 'x', modifiedTime: 1 } }, /unknown key `modifiedTime`; a symlink takes `type`, `target`/],
    ]
    for (const [bad, pattern] of cases) throwsInvalid(() => memoryReader(bad), pattern)
  })

  test('valid odd names: spaces, backslashes, leading dots, non-ASCII', async () => {
    const r = memoryReader({ 'a b/c\\d': 'x', '.hidden/..x': 'y', 'ü/…': 'z' })
    assert.deepEqual(await r.list('/a b'), [{ name: 'c\\d', type: 'file', size: 1 }])
    assert.deepEqual(await r.list('/.hidden'), [{ name: '..x', type: 'file', size: 1 }])
    assert.deepEqual(await r.read('/ü/…'), utf8('z'))
  })

  test('it takes no concurrency limit of its own (the core default applies)', () => {
    assert.equal(memoryReader({}).concurrency, undefined)
    assert.deepEqual(Object.keys(memoryReader({})).sort(), ['list', 'read', 'stat'])
  })
})

/** Asserts that nothing about `value` (a result or an error) names the local folder `dir`. */
function noLocalPath(value, dir) {
  const shown = [util.inspect(value, { depth: 10, showHidden: true }), JSON.stringify(value) ?? '']
  if (value instanceof Error) shown.push(value.message, String(value.stack), ...Object.values(value).map(String))
  for (const text of shown) assert.ok(!text.includes(dir), `local path shown: ${text}`)
}

describe('mountReader', () => {
  /** A workspace and a library to mount, and an outside folder holding a secret. */
  function layout(t) {
    const dir = tmpTree(t, {
      'ws/README.md': 'hello',
      'ws/src/a.ts': 'export const a = 1\n',
      'ws/src/deep/b.ts': '',
      'ws/empty/': null,
      'ws/inner-link': { symlink: 'src' },
      'ws/file-link': { symlink: 'README.md' },
      'ws/dangling': { symlink: 'nowhere' },
      'ws/out-link': { symlink: '../outside' },
      'ws/out-file': { symlink: '../outside/secret.txt' },
      'ws/src/up': { symlink: '../..' },
      'lib/x.md': 'lib',
      'outside/secret.txt': 'secret',
      'outside/sub/more.txt': 'secret',
    })
    fs.symlinkSync(path.join(dir, 'outside'), path.join(dir, 'ws/abs-out'))
    return { dir, ws: path.join(dir, 'ws'), lib: path.join(dir, 'lib') }
  }

  test('a strict ancestor of mount points lists the next components as folders', async (t) => {
    const { ws, lib } = layout(t)
    const r = mountReader({ '/workspace': ws, '/mnt/data/library': lib, '/mnt/other': lib })
    assert.deepEqual(byName(await r.list('/')), [{ name: 'mnt', type: 'dir' }, { name: 'workspace', type: 'dir' }])
    assert.deepEqual(byName(await r.list('/mnt')), [{ name: 'data', type: 'dir' }, { name: 'other', type: 'dir' }])
    assert.deepEqual(await r.list('/mnt/data'), [{ name: 'library', type: 'dir' }])
    assert.deepEqual(await r.stat('/'), { type: 'dir' })
    assert.deepEqual(await r.stat('/mnt/data'), { type: 'dir' })
    assert.deepEqual(await r.list('/mnt/data/library'), [{ name: 'x.md', type: 'file', size: 3, modifiedTime: fs.lstatSync(path.join(lib, 'x.md')).mtimeMs }])
  })

  test('inside a mount, list reports lstat: type, size and mtimeMs; symlinks as symlinks', async (t) => {
    const { ws } = layout(t)
    const r = mountReader(new Map([['/workspace', ws]]))
    const expect = (name) => {
      const s = fs.lstatSync(path.join(ws, name))
      const type = s.isSymbolicLink() ? 'symlink' : s.isDirectory() ? 'dir' : 'file'
      return { name, type, size: s.size, modifiedTime: s.mtimeMs }
    }
    const names = ['README.md', 'abs-out', 'dangling', 'empty', 'file-link', 'inner-link', 'out-file', 'out-link', 'src']
    assert.deepEqual(byName(await r.list('/workspace')), names.map(expect))
    assert.equal(byName(await r.list('/workspace')).find((e) => e.name === 'inner-link').size, 3)
    assert.deepEqual(byName(await r.list('/workspace/src')), ['a.ts', 'deep', 'up'].map((n) => expect(`src/${n}`)).map((e) => ({ ...e, name: path.basename(e.name) })))
    assert.deepEqual(await r.list('/workspace/empty'), [])
  })

  test('stat does not follow the last symlink; the mount point itself is followed', async (t) => {
    const { dir, ws } = layout(t)
    fs.symlinkSync(ws, path.join(dir, 'ws-link'))
    const r = mountReader({ '/workspace': path.join(dir, 'ws-link') })
    const mtime = (p) => fs.lstatSync(path.join(ws, p)).mtimeMs
    assert.deepEqual(await r.stat('/workspace/README.md'), { type: 'file', size: 5, modifiedTime: mtime('README.md') })
    assert.deepEqual(await r.stat('/workspace/out-link'), { type: 'symlink', size: 10, modifiedTime: mtime('out-link') })
    assert.deepEqual(await r.stat('/workspace/dangling'), { type: 'symlink', size: 7, modifiedTime: mtime('dangling') })
    const root = await r.stat('/workspace')
    assert.equal(root.type, 'dir')
    assert.equal(root.modifiedTime, fs.statSync(ws).mtimeMs)
    assert.deepEqual(byName(await r.list('/workspace/src')).map((e) => e.name), ['a.ts', 'deep', 'up'])
  })

  test('read returns the file contents', async (t) => {
    const { ws } = layout(t)
    const r = mountReader({ '/workspace': ws })
    const a = await r.read('/workspace/src/a.ts')
    assert.ok(a instanceof Uint8Array)
    assert.equal(Buffer.from(a).toString(), 'export const a = 1\n')
    assert.equal(Buffer.from(await r.read('/workspace/src/deep/b.ts')).length, 0)
  })

  test('a symlink that stays inside the mount is not followed either: ENOTDIR, or ELOOP to read it (as memoryReader)', async (t) => {
    const { dir, ws } = layout(t)
    const r = mountReader({ '/workspace': ws })
    const m = memoryReader({ 'README.md': 'hello', 'src/a.ts': '', 'inner-link': { type: 'symlink', target: 'src' }, 'file-link': { type: 'symlink', target: 'README.md' } })
    const cases = [
      ['list', '/workspace/inner-link', 'ENOTDIR'], ['list', '/workspace/inner-link/deep', 'ENOTDIR'],
      ['stat', '/workspace/inner-link/a.ts', 'ENOTDIR'], ['read', '/workspace/inner-link/a.ts', 'ENOTDIR'],
      ['read', '/workspace/file-link', 'ELOOP'], ['list', '/workspace/file-link', 'ENOTDIR'],
    ]
    for (const [op, p, code] of cases) {
      const message = `${code}: ${code === 'ELOOP' ? 'too many symbolic links encountered' : 'not a directory'}, ${op} '${p}'`
      noLocalPath(await rejectsFs(r[op](p), code, `${message} (symlinks are not followed)`), dir)
      // memoryReader answers the same for the same tree (there at '/').
      const virtual = p.slice('/workspace'.length)
      await rejectsFs(m[op](virtual), code, new RegExp(`^${code}: .*, ${op} '${virtual}'`))
    }
  })

  test('ENOENT, ENOTDIR and EISDIR name the virtual path, never the local one', async (t) => {
    const { dir, ws } = layout(t)
    const r = mountReader({ '/workspace': ws, '/gone': path.join(dir, 'missing-folder'), '/afile': path.join(ws, 'README.md') })
    const errors = [
      await rejectsFs(r.list('/workspace/nope'), 'ENOENT', "ENOENT: no such file or directory, list '/workspace/nope'"),
      await rejectsFs(r.stat('/workspace/nope/deeper'), 'ENOENT', "ENOENT: no such file or directory, stat '/workspace/nope/deeper'"),
      await rejectsFs(r.read('/workspace/nope.txt'), 'ENOENT', "ENOENT: no such file or directory, read '/workspace/nope.txt'"),
      await rejectsFs(r.list('/workspace/dangling'), 'ENOENT', "ENOENT: no such file or directory, list '/workspace/dangling'"),
      await rejectsFs(r.list('/gone'), 'ENOENT', "ENOENT: no such file or directory, list '/gone'"),
      await rejectsFs(r.stat('/gone'), 'ENOENT', "ENOENT: no such file or directory, stat '/gone'"),
      await rejectsFs(r.list('/workspace/README.md'), 'ENOTDIR', "ENOTDIR: not a directory, list '/workspace/README.md'"),
      await rejectsFs(r.list('/workspace/README.md/x'), 'ENOTDIR', "ENOTDIR: not a directory, list '/workspace/README.md/x'"),
      await rejectsFs(r.stat('/workspace/README.md/x'), 'ENOTDIR', "ENOTDIR: not a directory, stat '/workspace/README.md/x'"),
      await rejectsFs(r.read('/workspace/README.md/x'), 'ENOTDIR', "ENOTDIR: not a directory, read '/workspace/README.md/x'"),
      await rejectsFs(r.list('/afile'), 'ENOTDIR', "ENOTDIR: not a directory, list '/afile'"),
      await rejectsFs(r.read('/workspace/src'), 'EISDIR', "EISDIR: illegal operation on a directory, read '/workspace/src'"),
      await rejectsFs(r.read('/workspace'), 'EISDIR', "EISDIR: illegal operation on a directory, read '/workspace'"),
      await rejectsFs(r.read('/'), 'EISDIR', "EISDIR: illegal operation on a directory, read '/'"),
    ]
    for (const err of errors) {
      noLocalPath(err, dir)
      assert.ok(['list', 'stat', 'read'].includes(err.syscall))
      assert.equal(err.cause, undefined)
    }
    assert.deepEqual(await r.stat('/afile'), { type: 'file', size: 5, modifiedTime: fs.statSync(path.join(ws, 'README.md')).mtimeMs })
  })

  test('paths outside every mount, relative or not normalized are ENOENT', async (t) => {
    const { dir, ws } = layout(t)
    const r = mountReader({ '/workspace': ws })
    const bad = ['/other', '/workspace2', '/work', '/workspace2/README.md', 'workspace', 'workspace/README.md', '',
      '/workspace/../workspace', '/workspace/src/..', '/workspace/./src', '/workspace/', '//workspace', '/workspace//src', 7]
    for (const p of bad) {
      for (const op of ['list', 'stat', 'read']) {
        noLocalPath(await rejectsFs(r[op](p), 'ENOENT', `ENOENT: no such file or directory, ${op} '${String(p)}'`), dir)
      }
    }
  })

  test('a symlink leading out of its mount is refused with EACCES (list, read, and any path through it)', async (t) => {
    const { dir, ws } = layout(t)
    const r = mountReader({ '/workspace': ws })
    const refused = [
      ['list', '/workspace/out-link'], ['list', '/workspace/abs-out'], ['list', '/workspace/out-link/sub'],
      ['list', '/workspace/src/up'], ['list', '/workspace/inner-link/up'], ['read', '/workspace/out-file'],
      ['read', '/workspace/out-link/secret.txt'], ['read', '/workspace/abs-out/secret.txt'],
      ['stat', '/workspace/out-link/secret.txt'], ['stat', '/workspace/out-link/sub'], ['stat', '/workspace/src/up/outside'],
    ]
    for (const [op, p] of refused) {
      const err = await rejectsFs(r[op](p), 'EACCES', `EACCES: permission denied, ${op} '${p}' (it leads outside its mount)`)
      noLocalPath(err, dir)
    }
    // Listing and stat show the links themselves, which are inside.
    assert.equal((await r.stat('/workspace/out-link')).type, 'symlink')
    assert.ok((await r.list('/workspace')).some((e) => e.name === 'out-link' && e.type === 'symlink'))
  })

  test('one mount cannot reach another, nor a sibling folder whose name extends it', async (t) => {
    const { dir } = layout(t)
    fs.mkdirSync(path.join(dir, 'ws-evil'))
    fs.writeFileSync(path.join(dir, 'ws-evil/evil.txt'), 'evil')
    fs.symlinkSync('../ws-evil', path.join(dir, 'ws/evil-link'))
    fs.symlinkSync('../lib', path.join(dir, 'ws/lib-link'))
    const r = mountReader({ '/workspace': path.join(dir, 'ws'), '/library': path.join(dir, 'lib') })
    await rejectsFs(r.list('/workspace/evil-link'), 'EACCES', /^EACCES: permission denied, list '\/workspace\/evil-link'/)
    await rejectsFs(r.read('/workspace/evil-link/evil.txt'), 'EACCES', /^EACCES/)
    await rejectsFs(r.list('/workspace/lib-link'), 'EACCES', /^EACCES/)
    assert.deepEqual((await r.list('/library')).map((e) => e.name), ['x.md'])
  })

  test('sockets, FIFOs and devices are not listed; stat and read of one are ENOENT, and read does not block', { timeout: 10_000 }, async (t) => {
    if (process.platform === 'win32') return t.skip('no FIFOs on Windows')
    const { ws } = layout(t)
    execFileSync('mkfifo', [path.join(ws, 'pipe')])
    fs.symlinkSync('/dev/null', path.join(ws, 'devnull'))
    const r = mountReader({ '/workspace': ws, '/dev-mount': '/dev' })
    assert.ok(!(await r.list('/workspace')).some((e) => e.name === 'pipe'))
    await rejectsFs(r.stat('/workspace/pipe'), 'ENOENT', "ENOENT: no such file or directory, stat '/workspace/pipe' (sockets, FIFOs and devices are not listed)")
    await rejectsFs(r.read('/workspace/pipe'), 'ENOENT', "ENOENT: no such file or directory, read '/workspace/pipe' (sockets, FIFOs and devices are not listed)")
    await rejectsFs(r.read('/dev-mount/null'), 'ENOENT', /^ENOENT: .*, read '\/dev-mount\/null'/)
    assert.ok(!(await r.list('/dev-mount')).some((e) => e.name === 'null'))
    await rejectsFs(r.read('/workspace/devnull'), 'EACCES', /^EACCES/) // /dev/null is outside the mount
  })

  test('permission denied by the OS keeps its code (EACCES) and shows the virtual path only', (t) => {
    const why = cannotRunAsNobody()
    if (why) return t.skip(why)
    const dir = makeTmp()
    t.after(() => removeTmp(dir))
    fs.chmodSync(dir, 0o755)
    fs.mkdirSync(path.join(dir, 'ws/private'), { recursive: true })
    fs.writeFileSync(path.join(dir, 'ws/private/p.txt'), 'p')
    fs.writeFileSync(path.join(dir, 'ws/locked.txt'), 'l')
    fs.chmodSync(path.join(dir, 'ws/private'), 0o700)
    fs.chmodSync(path.join(dir, 'ws/locked.txt'), 0o600)
    const script = `
      const { mountReader } = require(${JSON.stringify(path.join(REPO, 'index.js'))})
      const r = mountReader({ '/workspace': ${JSON.stringify(path.join(dir, 'ws'))} })
      const show = (p) => p.then(() => 'resolved', (e) => ({ code: e.code, message: e.message, keys: Object.keys(e), values: Object.values(e) }))
      Promise.all([r.list('/workspace/private'), r.read('/workspace/locked.txt'), r.read('/workspace/private/p.txt'), r.stat('/workspace/private/p.txt')].map(show))
        .then((out) => console.log(JSON.stringify(out)))`
    const run = spawnSync(NOBODY[0], [...NOBODY.slice(1), process.execPath, '-e', script], { encoding: 'utf8', timeout: 20_000 })
    assert.equal(run.status, 0, run.stderr)
    const [list, readLocked, readPrivate, statPrivate] = JSON.parse(run.stdout)
    assert.deepEqual(list, { code: 'EACCES', message: "EACCES: permission denied, list '/workspace/private'", keys: ['code', 'syscall', 'path'], values: ['EACCES', 'list', '/workspace/private'] })
    assert.equal(readLocked.message, "EACCES: permission denied, read '/workspace/locked.txt'")
    assert.equal(readPrivate.message, "EACCES: permission denied, read '/workspace/private/p.txt'")
    assert.equal(statPrivate.message, "EACCES: permission denied, stat '/workspace/private/p.txt'")
    assert.ok(!run.stdout.includes(dir))
  })

  test('no result names a local path', async (t) => {
    const { dir, ws, lib } = layout(t)
    const r = mountReader({ '/workspace': ws, '/library': lib })
    for (const d of ['/', '/workspace', '/workspace/src', '/workspace/src/deep', '/library']) noLocalPath(await r.list(d), dir)
    for (const p of ['/workspace', '/workspace/out-link', '/workspace/src/a.ts']) noLocalPath(await r.stat(p), dir)
  })

  test('invalid mounts throw invalid-argument saying what is wrong and how to fix it', (t) => {
    const { ws, lib } = layout(t)
    const cases = [
      [undefined, /mountReader\(mounts\) takes a plain object or a Map such as \{ '\/workspace': .*got undefined/],
      ['/workspace', /got the string "\/workspace"/],
      [[['/w', ws]], /got an array/],
      [{}, /no mounts; give at least one/],
      [new Map(), /no mounts/],
      [new Map([[1, ws]]), /every mount point must be a string; got the number 1/],
      [{ '/': ws }, /'\/' cannot be a mount point; mount folders below it/],
      [{ 'workspace': ws }, /the mount point "workspace" must be an absolute POSIX path without '\.', '\.\.' or empty segments/],
      [{ '/a/../b': ws }, /the mount point "\/a\/..\/b" must be an absolute POSIX path/],
      [{ '/a/./b': ws }, /must be an absolute POSIX path/],
      [{ '/a//b': ws }, /must be an absolute POSIX path/],
      [{ '/a\0': ws }, /must be an absolute POSIX path/],
      [{ '/a': ws, '/a/b': lib }, /the mount points "\/a" and "\/a\/b" are nested; mount points must be disjoint/],
      [{ '/a/b': ws, '/a': lib }, /"\/a" and "\/a\/b" are nested/],
      [{ '/a': ws, '/a/': lib }, /"\/a" and "\/a" are the same/],
      [{ '/a': '' }, /the local folder of "\/a" must be a non-empty path; got the string ""/],
      [{ '/a': 5 }, /the local folder of "\/a" must be a non-empty path; got the number 5/],
      [{ '/a': null }, /got null/],
      [{ '/a': 'x\0y' }, /must be a non-empty path/],
    ]
    for (const [bad, pattern] of cases) throwsInvalid(() => mountReader(bad), pattern)
  })

  test('a trailing slash on a mount point and a relative local folder are accepted', async (t) => {
    const { dir } = layout(t)
    const before = process.cwd()
    process.chdir(dir)
    let r
    try {
      r = mountReader({ '/workspace/': 'ws' }) // resolved now, against this cwd
    } finally {
      process.chdir(before)
    }
    assert.deepEqual(await r.list('/'), [{ name: 'workspace', type: 'dir' }])
    assert.equal(Buffer.from(await r.read('/workspace/README.md')).toString(), 'hello')
  })
})
