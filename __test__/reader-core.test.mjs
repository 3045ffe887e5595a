// The core's side of storage readers, with small readers written here: how
// many calls run at once, what each kind of failure does, answers of the
// wrong shape, abort and timeout on a reader that never answers, and the
// path rules (cwd, roots, policy) in the reader's namespace.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { find, findFiles, searchFiles, formatFindResult, FindFilesError } from '../index.mjs'
import { rejectsWith } from './helpers.mjs'

const errorWith = (code, message = code) => Object.assign(new Error(message), { code })

/**
 * A reader over `{ '/dir': ['name', ...] }` (folders) and `{ '/file': contents }`;
 * `hooks` replace or wrap its methods. It counts calls and the most in flight.
 */
function tinyReader(folders, files = {}, hooks = {}) {
  const stats = { calls: 0, inFlight: 0, peak: 0, listed: [] }
  const full = (dir, name) => (dir === '/' ? `/${name}` : `${dir}/${name}`)
  const reader = {
    stats,
    async list(dir) {
      stats.calls++
      stats.listed.push(dir)
      stats.inFlight++
      stats.peak = Math.max(stats.peak, stats.inFlight)
      try {
        if (hooks.delayMs) await new Promise((resolve) => setTimeout(resolve, hooks.delayMs))
        if (hooks.list) return await hooks.list(dir)
        if (!(dir in folders)) throw errorWith(dir in files ? 'ENOTDIR' : 'ENOENT', `no folder ${dir}`)
        return folders[dir].map((name) => {
          const p = full(dir, name)
          if (p in folders) return { name, type: 'dir' }
          const content = files[p] ?? ''
          return { name, type: 'file', size: Buffer.byteLength(content), modifiedTime: hooks.mtimes?.[p] }
        })
      } finally {
        stats.inFlight--
      }
    },
    async stat(p) {
      if (hooks.stat) return hooks.stat(p)
      if (p in folders) return { type: 'dir' }
      if (p in files) return { type: 'file', size: Buffer.byteLength(files[p]) }
      throw errorWith('ENOENT', `no ${p}`)
    },
    async read(p) {
      if (hooks.read) return hooks.read(p)
      if (p in files) return files[p]
      throw errorWith(p in folders ? 'EISDIR' : 'ENOENT', `cannot read ${p}`)
    },
  }
  if (hooks.concurrency !== undefined) reader.concurrency = hooks.concurrency
  if (hooks.noRead) delete reader.read
  return reader
}

/** `/d0` ... `/d{n-1}`, each holding `f.txt`. */
function wideTree(n) {
  const folders = { '/': [] }
  const files = {}
  for (let i = 0; i < n; i++) {
    folders['/'].push(`d${i}`)
    folders[`/d${i}`] = ['f.txt']
    files[`/d${i}/f.txt`] = 'x'
  }
  return { folders, files }
}

describe('reader: calls in flight', () => {
  test('many folders are listed at once, never more than reader.concurrency', async () => {
    const { folders, files } = wideTree(40)
    for (const concurrency of [1, 4, 16]) {
      const reader = tinyReader(folders, files, { delayMs: 5, concurrency })
      const r = await find({ pattern: '**/*.txt', reader, limit: Infinity, maxLimit: Infinity })
      assert.equal(r.matched, 40)
      assert.ok(reader.stats.peak <= concurrency, `peak ${reader.stats.peak} > ${concurrency}`)
      if (concurrency > 1) assert.ok(reader.stats.peak > 1, `peak ${reader.stats.peak} with concurrency ${concurrency}`)
    }
  })

  test('the default is 32 at once; a bad concurrency is invalid-argument', async () => {
    const { folders, files } = wideTree(80)
    const reader = tinyReader(folders, files, { delayMs: 5 })
    await find({ pattern: '**/*.txt', reader })
    assert.ok(reader.stats.peak > 8 && reader.stats.peak <= 32, `peak ${reader.stats.peak}`)
    for (const concurrency of [0, -1, 1.5, 1025, '8', NaN]) {
      await rejectsWith(find({ pattern: '*', reader: tinyReader({ '/': [] }, {}, { concurrency }) }), 'invalid-argument', /concurrency/)
    }
  })
})

describe('reader: failures', () => {
  test('below the root, not-found, not-a-dir and permission errors skip the folder', async () => {
    for (const code of ['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM']) {
      const folders = { '/': ['ok', 'bad'], '/ok': ['a.txt'], '/bad': ['b.txt'] }
      const reader = tinyReader(folders, { '/ok/a.txt': 'a', '/bad/b.txt': 'b' }, {
        list: async (dir) => {
          if (dir === '/bad') throw errorWith(code)
          return folders[dir].map((name) => ({ name, type: name.endsWith('.txt') ? 'file' : 'dir' }))
        },
      })
      const r = await find({ pattern: '**/*.txt', reader })
      assert.deepEqual(r.entries.map((e) => e.path), ['ok/a.txt'], code)
    }
  })

  test('any other failure fails the whole call with fs-error, never a partial answer', async () => {
    const folders = { '/': ['ok', 'bad'], '/ok': ['a.txt'], '/bad': [] }
    for (const failure of [errorWith('EIO', 'disk on fire'), new Error('socket hang up'), 'a bare string', null]) {
      const reader = tinyReader(folders, { '/ok/a.txt': 'a' }, {
        list: async (dir) => {
          if (dir === '/bad') throw failure
          return folders[dir].map((name) => ({ name, type: name.endsWith('.txt') ? 'file' : 'dir' }))
        },
      })
      const err = await rejectsWith(find({ pattern: '**/*.txt', reader }), 'fs-error', /`\/bad`/)
      if (failure instanceof Error) assert.ok(err.message.includes(failure.message), err.message)
    }
  })

  test('a reader method that throws synchronously is a failure like a rejection', async () => {
    const reader = tinyReader({ '/': [] }, {}, { list: () => { throw errorWith('EIO', 'sync throw') } })
    reader.list = () => { throw errorWith('EIO', 'sync throw') }
    await rejectsWith(find({ pattern: '*', reader }), 'fs-error', /sync throw/)
  })

  test('the search path: not-found, not-a-dir, permission-denied, fs-error', async () => {
    const folders = { '/': ['src', 'f.txt'], '/src': [] }
    const files = { '/f.txt': 'x' }
    await rejectsWith(find({ pattern: '*', reader: tinyReader(folders, files), path: 'nope' }), 'not-found', /`nope`/)
    await rejectsWith(find({ pattern: '*', reader: tinyReader(folders, files), path: 'f.txt' }), 'not-a-dir', /`f.txt`/)
    const denied = tinyReader(folders, files, { stat: async () => { throw errorWith('EACCES') } })
    await rejectsWith(find({ pattern: '*', reader: denied }), 'permission-denied')
    const listDenied = tinyReader(folders, files, { list: async () => { throw errorWith('EACCES') } })
    await rejectsWith(find({ pattern: '*', reader: listDenied }), 'permission-denied', /refused to list `\/`/)
    const broken = tinyReader(folders, files, { stat: async () => { throw errorWith('EIO', 'backend down') } })
    await rejectsWith(find({ pattern: '*', reader: broken }), 'fs-error', /backend down/)
  })

  test('answers of the wrong shape are fs-error naming what was wrong', async () => {
    const cases = [
      [async () => 'not an array', /not an array/],
      [async () => [{ name: 'a', type: 'file-ish' }], /type the string 'file-ish'/],
      [async () => [{ name: 5, type: 'file' }], /at index 0/],
      [async () => [null], /at index 0/],
      [async () => [{ name: 'a', type: 'file', size: -1 }], /size/],
      [async () => [{ name: 'a', type: 'file', modifiedTime: 'yesterday' }], /modifiedTime/],
      [async () => [{ name: 'a/b', type: 'file' }], /named `a\/b`/],
      [async () => [{ name: '..', type: 'dir' }], /named `\.\.`/],
      [async () => [{ name: '', type: 'file' }], /non-empty/],
      [async () => [{ name: 'a\0b', type: 'file' }], /NUL/],
    ]
    for (const [list, message] of cases) {
      await rejectsWith(find({ pattern: '**/*', reader: tinyReader({ '/': [] }, {}, { list }) }), 'fs-error', message)
    }
    const badStat = tinyReader({ '/': [] }, {}, { stat: async () => ({ type: 'folder' }) })
    await rejectsWith(find({ pattern: '*', reader: badStat }), 'fs-error', /reader.stat\('\/'\)/)
  })

  test('a reader that is not one is invalid-argument', async () => {
    for (const reader of [5, 'fs', [], { list() {} }, { stat() {} }, { list() {}, stat() {}, read: 5 }]) {
      const err = await rejectsWith(find({ pattern: '*', reader }), 'invalid-argument', /reader/)
      assert.ok(err instanceof FindFilesError)
    }
  })

  test('without read(), ignore files cannot be read: a clear fs-error, or gitignore: false', async () => {
    const folders = { '/': ['.gitignore', 'a.txt'] }
    const files = { '/.gitignore': '*.log\n', '/a.txt': 'a' }
    const reader = tinyReader(folders, files, { noRead: true })
    await rejectsWith(find({ pattern: '*', reader }), 'fs-error', /no read\(path\).*gitignore: false/)
    const r = await find({ pattern: '*', reader, gitignore: false, sortBy: 'name' })
    assert.deepEqual(r.entries.map((e) => e.path), ['.gitignore', 'a.txt'])
  })
})

describe('reader: stopping', () => {
  const hanging = () => tinyReader({ '/': [] }, {}, { list: () => new Promise(() => {}) })

  test('an AbortSignal stops a walk waiting on a reader that never answers', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const started = Date.now()
    await rejectsWith(find({ pattern: '*', reader: hanging(), signal: controller.signal }), 'aborted')
    assert.ok(Date.now() - started < 2000)
  })

  test('timeoutMs stops it too', async () => {
    const started = Date.now()
    await rejectsWith(find({ pattern: '*', reader: hanging(), timeoutMs: 100 }), 'aborted', /timeoutMs/)
    assert.ok(Date.now() - started < 2000)
  })
})

describe('reader: paths, policy, results', () => {
  const folders = { '/': ['work', 'other'], '/work': ['src', 'b.ts'], '/work/src': ['a.ts'], '/other': ['c.ts'] }
  const files = { '/work/b.ts': 'bb', '/work/src/a.ts': 'TODO: a', '/other/c.ts': 'c' }

  test('cwd defaults to / and a relative cwd starts there; a plain reader shows relative paths', async () => {
    const reader = tinyReader(folders, files)
    const all = await find({ pattern: '**/*.ts', reader, sortBy: 'name' })
    assert.equal(all.path, '.')
    assert.deepEqual(all.entries.map((e) => e.path), ['other/c.ts', 'work/b.ts', 'work/src/a.ts'])
    const work = await find({ pattern: '**/*.ts', reader, cwd: 'work', path: 'src' })
    assert.equal(work.path, 'work/src')
    assert.ok(formatFindResult(work).startsWith('Search directory: work/src\n'))
    const mounted = await find({ pattern: '**/*.ts', reader: { ...reader, mounted: true }, cwd: 'work', path: 'src' })
    assert.equal(mounted.path, '/work/src')
    assert.deepEqual(await findFiles('**/*.ts', 'work', { reader }), ['/work/b.ts', '/work/src/a.ts'])
    assert.deepEqual(await findFiles('*.ts', { reader, cwd: '/other' }), ['/other/c.ts'])
  })

  test('the policy is asked about the logical path; roots confine it lexically', async () => {
    const reader = tinyReader(folders, files)
    const asked = []
    const policy = (req) => { asked.push(req.path); return req.path.startsWith('/work') ? 'allow' : 'deny' }
    await find({ pattern: '*', reader, path: '/work', policy })
    await rejectsWith(find({ pattern: '*', reader, path: '/other', policy }), 'permission-denied', /`\/other`/)
    assert.deepEqual(asked, ['/work', '/other'])
    await rejectsWith(find({ pattern: '*', reader, path: '/work/../other', roots: ['/work'] }), 'outside-root')
    assert.equal((await find({ pattern: '**/*', reader, path: 'src', cwd: '/work', roots: ['/work'] })).matched, 1)
  })

  test('a symlink as the search path, or below a root on the way to it, is refused: the walk cannot see where it leads', async () => {
    const f = { '/': ['work', 'link'], '/work': ['up', 'a.ts'], '/work/up': ['secret'], '/link': ['x'] }
    const reader = tinyReader(f, { '/work/a.ts': 'a' }, {
      stat: async (p) => (p === '/link' || p === '/work/up' ? { type: 'symlink' } : p in f ? { type: 'dir' } : { type: 'file' }),
    })
    await rejectsWith(find({ pattern: '*', reader, path: '/link' }), 'not-a-dir', /symlink/)
    await rejectsWith(find({ pattern: '**/*', reader, path: '/work/up', roots: ['/work'] }), 'outside-root', /through a symlink/)
    await rejectsWith(find({ pattern: '**/*', reader, path: '/work/up/secret', roots: ['/work'] }), 'outside-root', /through a symlink/)
    const inside = await find({ pattern: '**/*', reader, path: '/work', roots: ['/work'], type: 'any', sortBy: 'name' })
    assert.deepEqual(inside.entries.map((e) => [e.path, e.type]), [['a.ts', 'file'], ['up', 'dir'], ['up/secret', 'file']])
  })

  test('sizes and times come from the listing: missing time is 0, ties by path', async () => {
    const reader = tinyReader(folders, files, { mtimes: { '/work/b.ts': new Date(5000), '/other/c.ts': 7000 } })
    const r = await find({ pattern: '**/*.ts', reader })
    assert.deepEqual(r.entries.map((e) => [e.path, e.mtimeMs, e.size]), [
      ['other/c.ts', 7000, 1], ['work/b.ts', 5000, 2], ['work/src/a.ts', 0, 7],
    ])
    const since = await find({ pattern: '**/*.ts', reader, modifiedSince: 6000 })
    assert.deepEqual(since.entries.map((e) => e.path), ['other/c.ts'])
  })

  test('searchFiles reads through the reader: strings and bytes, binary skipped, failures by kind', async () => {
    const bytes = { '/work/b.ts': new TextEncoder().encode('TODO: b'), '/work/bin.ts': new Uint8Array([84, 79, 68, 79, 0, 1]) }
    const f = { ...folders, '/work': ['src', 'b.ts', 'bin.ts', 'gone.ts'] }
    const reader = tinyReader(f, { ...files, '/work/bin.ts': '', '/work/gone.ts': '' }, {
      read: async (p) => {
        if (p === '/work/gone.ts') throw errorWith('ENOENT')
        return bytes[p] ?? files[p]
      },
    })
    const r = await searchFiles({ pattern: 'TODO', reader, path: 'work' })
    assert.deepEqual(r.matches, [{ file: 'b.ts', line: 1, match: 'TODO: b' }, { file: 'src/a.ts', line: 1, match: 'TODO: a' }])
    const counted = await searchFiles({ pattern: 'TODO', reader, outputMode: 'count' })
    assert.equal(counted.matchCount, 2)
    const failing = tinyReader(folders, files, { read: async () => { throw errorWith('EIO', 'read failed') } })
    await rejectsWith(searchFiles({ pattern: 'TODO', reader: failing, path: 'work' }), 'fs-error', /read failed/)
  })
})

describe('reader: createTools', () => {
  test('a workspace on a reader: cwd and roots in its namespace, reader fixed by the host', async () => {
    const { createTools, memoryReader } = await import('../index.mjs')
    const reader = memoryReader({ 'workspace/src/a.ts': 'TODO a', 'workspace/b.md': 'b', 'private/key.txt': 'k' })
    const tools = createTools({ reader, cwd: '/workspace' })
    assert.equal(tools.cwd, '/workspace')
    assert.deepEqual(tools.roots, ['/workspace'])
    const r = await tools.find({ pattern: '**/*', sortBy: 'name' })
    assert.deepEqual(r.entries.map((e) => e.path), ['b.md', 'src/a.ts'])
    const s = await tools.searchFiles({ pattern: "TODO" })
    assert.deepEqual(s.matches, [{ file: 'src/a.ts', line: 1, match: 'TODO a' }])
    await rejectsWith(tools.find({ pattern: '*', path: '../private' }), 'outside-root')
    await assert.rejects(tools.find({ pattern: '*', reader: memoryReader({}) }), /set by the host/)
  })
})
