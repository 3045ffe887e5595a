// Hostile input: every option given every wrong type from JS, huge
// numbers, a 1 MB pattern, 10,000 '**/', malformed results handed to the
// formatters. Each call settles with a FindFilesError of the right code or a
// documented clamp/default; never a crash, a hang, a synchronous throw, or a
// TypeError from inside the binding.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, test } from 'node:test'

import { FindFilesError, find, findFiles, formatFindResult, formatSearchResult, searchFiles } from '../index.mjs'
import { REPO, paths, rejectsWith, tmpTree } from './helpers.mjs'

const MB = 1 << 20
const CODES = ['invalid-argument', 'invalid-pattern', 'not-found', 'not-a-dir', 'permission-denied', 'approval-required', 'outside-root', 'aborted', 'fs-error', 'not-a-repository']

/** Every kind of JS value, by a readable name. */
function hostileValues() {
  return {
    null: null, undefined, '{}': {}, '[]': [], NaN, Infinity, '-Infinity': -Infinity, '1e308': 1e308, '-1e308': -1e308,
    '2**53+2': 2 ** 53 + 2, MIN_VALUE: Number.MIN_VALUE, '-0': -0, 0: 0, 1.5: 1.5, "''": '', '1 MB string': 'x'.repeat(MB),
    "'**/' x 10000": '**/'.repeat(10000), true: true, false: false, symbol: Symbol('s'), bigint: 10n, function: () => 'allow',
    'Date(NaN)': new Date(NaN), 'Date(0)': new Date(0), regexp: /x/, Map: new Map(), 'Object.create(null)': Object.create(null),
    'new String': new String('x'), 'new Number': new Number(5), '[1, 2]': [1, 2], "['a']": ['a'], '[null]': [null],
    'sparse [, a]': [, 'a'], '10,001 items': new Array(10_001).fill('a'), Buffer: Buffer.from('x'), Proxy: new Proxy({}, {}),
    'NUL string': 'a\0b',
  }
}

/** What each option accepts, by JS type. */
const FIND_KINDS = {
  pattern: 'string', path: 'string', cwd: 'string', type: 'enum', sortBy: 'enum',
  regex: 'boolean', matchBase: 'boolean', caseSensitive: 'boolean', reverse: 'boolean', hidden: 'boolean', gitignore: 'boolean',
  limit: 'count', maxLimit: 'count', maxDepth: 'count', maxBytes: 'count', timeoutMs: 'count',
  modifiedSince: 'date', minSize: 'size', maxSize: 'size', exclude: 'strings', roots: 'strings',
  policy: 'function', approve: 'function', signal: 'signal', git: 'enum', changedSince: 'string',
}
const SEARCH_KINDS = {
  pattern: 'string', path: 'string', cwd: 'string', fileGlob: 'string', target: 'enum', outputMode: 'enum',
  ignoreCase: 'boolean', noIgnore: 'boolean', maxResults: 'count', timeoutMs: 'count', roots: 'strings',
  policy: 'function', approve: 'function', signal: 'signal', git: 'enum', changedSince: 'string',
}

/** True when `value` has a JS type the option takes (its value may still be refused). */
function typeFits(kind, value) {
  if (value === null || value === undefined) return true
  switch (kind) {
    case 'string': case 'enum': return typeof value === 'string'
    case 'boolean': return typeof value === 'boolean'
    case 'count': return typeof value === 'number'
    case 'date': return typeof value === 'number' || typeof value === 'string' || value instanceof Date
    case 'size': return typeof value === 'number' || typeof value === 'string'
    case 'strings': return Array.isArray(value)
    case 'function': return typeof value === 'function'
    case 'signal': return false
  }
  throw new Error(kind)
}

/** Settles `fn()` within `ms`: { ok, value } or { ok: false, error }; a synchronous throw fails the test. */
async function settle(fn, ms = 15_000) {
  let promise
  assert.doesNotThrow(() => { promise = fn() }, 'threw synchronously')
  assert.ok(promise instanceof Promise, 'returns a promise')
  let timer
  const hang = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms) })
  try {
    return { ok: true, value: await Promise.race([promise, hang]) }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('no answer within')) throw error
    return { ok: false, error }
  } finally {
    clearTimeout(timer)
  }
}

const label = (name, valueName) => `${name}: ${valueName}`

/** What is wrong with one outcome, or null. */
function badOutcome(out, what, { kind, value, option }) {
  if (out.ok) return typeFits(kind, value) ? null : `${what}: a value of the wrong type was accepted`
  const e = out.error
  if (!(e instanceof FindFilesError)) return `${what}: got ${e && e.constructor && e.constructor.name}: ${String(e && e.message).slice(0, 120)}`
  if (!CODES.includes(e.code)) return `${what}: code ${e.code}`
  if (typeFits(kind, value)) return null
  if (e.code !== 'invalid-argument') return `${what}: ${e.code}: ${e.message.slice(0, 120)}`
  if (!e.message.includes(`\`${option}\``)) return `${what}: the message does not name the option: ${e.message.slice(0, 120)}`
  return null
}


describe('every option, every wrong type', () => {
  test('find: a FindFilesError with the right code, or a documented default/clamp', { timeout: 120_000 }, async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x', 'sub/b.txt': 'y' })
    const values = hostileValues()
    const problems = []
    let settled = 0
    for (const [option, kind] of Object.entries(FIND_KINDS)) {
      for (const [valueName, value] of Object.entries(values)) {
        const out = await settle(() => find({ pattern: '**/*', cwd: dir, [option]: value }))
        const bad = badOutcome(out, label(option, valueName), { kind, value, option })
        if (bad) problems.push(bad)
        settled++
      }
    }
    t.diagnostic(`${settled} find calls: ${Object.keys(FIND_KINDS).length} options × ${Object.keys(values).length} values`)
    assert.deepEqual(problems, [])
  })

  test('searchFiles: the same', { timeout: 120_000 }, async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'needle', 'sub/b.txt': 'needle' })
    const values = hostileValues()
    const problems = []
    for (const [option, kind] of Object.entries(SEARCH_KINDS)) {
      for (const [valueName, value] of Object.entries(values)) {
        const out = await settle(() => searchFiles({ pattern: 'needle', cwd: dir, [option]: value }))
        const bad = badOutcome(out, label(option, valueName), { kind, value, option })
        if (bad) problems.push(bad)
      }
    }
    assert.deepEqual(problems, [])
  })

  test('null and undefined mean the default for every option but pattern', async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x', 'sub/b.txt': 'y' })
    const base = await find('**/*', { cwd: dir, sortBy: 'name' })
    for (const option of Object.keys(FIND_KINDS)) {
      if (['pattern', 'cwd', 'sortBy'].includes(option)) continue
      for (const value of [null, undefined]) {
        assert.deepEqual(await find('**/*', { cwd: dir, sortBy: 'name', [option]: value }), base, `${option}: ${value}`)
      }
    }
    await rejectsWith(find({ pattern: null, cwd: dir }), 'invalid-argument', '`pattern`')
  })

  test('Infinity is allowed for limit, maxLimit, maxDepth, maxBytes and timeoutMs; huge whole numbers clamp', async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x', 'sub/b.txt': 'y' })
    for (const option of ['limit', 'maxLimit', 'maxDepth', 'maxBytes', 'timeoutMs']) {
      for (const value of [Infinity, 1e308, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER]) {
        const r = await find('**/*', { cwd: dir, sortBy: 'name', [option]: value })
        assert.deepEqual(paths(r), ['a.txt', 'sub/b.txt'], `${option}: ${value}`)
      }
    }
    const clamped = await find('**/*', { cwd: dir, limit: 1e308 })
    assert.equal(clamped.truncated, false)
    await rejectsWith(find('*', { cwd: dir, limit: -Infinity }), 'invalid-argument', '`limit`')
    await rejectsWith(find('*', { cwd: dir, maxDepth: -Infinity }), 'invalid-argument', '`maxDepth`')
    await rejectsWith(find('*', { cwd: dir, minSize: 1e308 }), 'invalid-argument', '`minSize`')
    await rejectsWith(find('*', { cwd: dir, minSize: Infinity }), 'invalid-argument', '`minSize`')
    assert.deepEqual(paths(await find('**/*', { cwd: dir, maxSize: 2 ** 53, sortBy: 'name' })), ['a.txt', 'sub/b.txt'])
    assert.deepEqual(paths(await find('**/*', { cwd: dir, modifiedSince: 1e308 })), [])
    assert.deepEqual(paths(await find('**/*', { cwd: dir, modifiedSince: -1e308, sortBy: 'name' })), ['a.txt', 'sub/b.txt'])
    assert.deepEqual(paths(await find('**/*', { cwd: dir, modifiedSince: `${'9'.repeat(400)}d`, sortBy: 'name' })), ['a.txt', 'sub/b.txt'])
    for (const maxResults of [Infinity, 1e308]) {
      const s = await searchFiles({ pattern: 'x|y', cwd: dir, maxResults })
      assert.equal(s.matchCount, 2)
    }
  })

  // Was a bug: 1e308 saturated to usize::MAX and `max_depth + 1` wrapped to 0 (nothing found).
  test('a maxDepth of 2^64 or more (1e308, Number.MAX_VALUE) means no depth limit, like Infinity',
    async (t) => {
      const dir = tmpTree(t, { 'a.txt': 'x', 'sub/b.txt': 'y' })
      for (const maxDepth of [1e308, Number.MAX_VALUE, 2 ** 64]) {
        assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'name', maxDepth })), ['a.txt', 'sub/b.txt'], String(maxDepth))
      }
    })

  test('options objects that are odd themselves', async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x' })
    await rejectsWith(find(JSON.parse(`{"pattern": "*", "cwd": ${JSON.stringify(dir)}, "__proto__": {"limit": 0}}`)), 'invalid-argument', '`__proto__`')
    await rejectsWith(find(Object.create({ pattern: '*' })), 'invalid-argument', '`pattern`')
    const many = { pattern: '*', cwd: dir }
    for (let i = 0; i < 20_000; i++) many[`option${i}`] = i
    await rejectsWith(find(many), 'invalid-argument', 'unknown option')
    assert.deepEqual(paths(await find(Object.freeze({ pattern: '*', cwd: dir }))), ['a.txt'])
    assert.deepEqual(paths(await find({ pattern: '*', cwd: dir, [Symbol('limit')]: 0 })), ['a.txt'], 'symbol keys are not options')
    const proxy = new Proxy({ pattern: '*', cwd: dir }, {})
    assert.deepEqual(paths(await find(proxy)), ['a.txt'])
    // A getter or proxy trap that throws: the caller's own error comes back as a rejection, never a synchronous throw.
    for (const opts of [
      { pattern: '*', cwd: dir, get limit() { throw new Error('getter boom') } },
      new Proxy({ pattern: '*', cwd: dir }, { ownKeys() { throw new Error('trap boom') } }),
    ]) {
      const out = await settle(() => find(opts))
      assert.equal(out.ok, false)
      assert.ok(/boom/.test(out.error.message) || out.error instanceof FindFilesError, out.error.message)
    }
  })

  test('findFiles: wrong argument types', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    for (const pattern of [undefined, null, 5, {}, [], ['*'], true, Symbol('x'), 10n, () => '*']) {
      await rejectsWith(settle(() => findFiles(pattern, dir)).then((o) => (o.ok ? o.value : Promise.reject(o.error))), 'invalid-argument')
    }
    // A plain object is the options form, findFiles(pattern, options).
    for (const p of [5, [], true, Symbol('x'), 10n, () => dir, '', 'a\0b']) {
      const out = await settle(() => findFiles('*', p))
      assert.equal(out.ok, false, String(p))
      assert.ok(out.error instanceof FindFilesError && out.error.code === 'invalid-argument', `${String(p)}: ${out.error.message}`)
    }
    for (const more of [5, [], 'x', () => ({})]) {
      await rejectsWith(findFiles('*', dir, more), 'invalid-argument')
    }
    await rejectsWith(findFiles('*', { cwd: dir, reader: 5 }), 'invalid-argument')
    assert.deepEqual(await findFiles('*', dir), [path.join(dir, 'a.txt')])
    assert.deepEqual(await findFiles('*', { cwd: dir }), [path.join(dir, 'a.txt')])
  })
})

describe('huge and pathological patterns', () => {
  /**
   * A long pattern either works as its short form would, or (above a
   * documented length limit) is refused as invalid-pattern with a short
   * message; never a panic, a hang or another error.
   */
  async function sameAsShortOrRefused(call, want, what) {
    const out = await settle(call, 20_000)
    if (out.ok) {
      assert.deepEqual(want(out.value), true, `${what}: a different answer`)
      return 'answered'
    }
    assert.ok(out.error instanceof FindFilesError, `${what}: ${out.error.constructor.name}: ${String(out.error.message).slice(0, 200)}`)
    assert.equal(out.error.code, 'invalid-pattern', `${what}: ${out.error.message.slice(0, 200)}`)
    assert.ok(out.error.message.length < 1024, `${what}: a ${out.error.message.length}-character message`)
    return 'refused'
  }

  test("10,000 '**/' (and other long spellings of short globs): the short glob's answer, or invalid-pattern", { timeout: 60_000 }, async (t) => {
    const dir = tmpTree(t, { 'a.txt': '', 'x/y/z/b.txt': '', 'x/c.md': '' })
    const start = performance.now()
    const is = (list) => (r) => JSON.stringify(paths(r)) === JSON.stringify(list)
    const outcomes = {}
    const cases = [
      [`${'**/'.repeat(10_000)}*.txt`, is(['a.txt', 'x/y/z/b.txt'])],
      ['**/'.repeat(10_000), is(['a.txt', 'x/c.md', 'x/y/z/b.txt'])],
      [`x/${'**/'.repeat(10_000)}b.txt`, is(['x/y/z/b.txt'])],
      [`${'./'.repeat(100_000)}a.txt`, is(['a.txt'])],
      [`${'/'.repeat(MB)}a.txt`, is(['a.txt'])],
      [`[${'a'.repeat(MB)}].txt`, is(['a.txt'])],
      [`{${'x,'.repeat(MB / 2)}a}.txt`, is(['a.txt'])],
    ]
    for (const [pattern, want] of cases) {
      const what = `${pattern.slice(0, 12)}... (${pattern.length} chars)`
      outcomes[what] = await sameAsShortOrRefused(() => find(pattern, { cwd: dir, sortBy: 'name' }), want, what)
    }
    const names = await sameAsShortOrRefused(() => searchFiles({ pattern: `${'**/'.repeat(10_000)}*.txt`, cwd: dir, target: 'files' }), (r) => r.matchCount === 2, 'name search')
    t.diagnostic(`${JSON.stringify({ ...outcomes, 'name search': names })} in ${(performance.now() - start).toFixed(0)} ms`)
  })

  test('a 1 MB regex, 10,000 nested groups or braces: invalid-pattern (or an answer), quickly', { timeout: 60_000 }, async (t) => {
    const dir = tmpTree(t, { 'a.txt': '', 'b.md': '' })
    const cases = [
      [{ pattern: 'a'.repeat(MB), regex: true }, 'invalid-pattern'],
      [{ pattern: `(${'('.repeat(10_000)}a${')'.repeat(10_000)})`, regex: true }, 'invalid-pattern'],
      // A valid JavaScript regex (V8 compiles it): regress loops instead of unrolling, so it is answered.
      [{ pattern: '(a{1000}){1000}', regex: true }, 'ok'],
      [{ pattern: '.*'.repeat(100_000), regex: true }, 'invalid-pattern'],
      [{ pattern: `${'{'.repeat(10_000)}a${'}'.repeat(10_000)}` }, 'invalid-pattern'],
      [{ pattern: `${'{'.repeat(300_000)}a${'}'.repeat(300_000)}` }, 'invalid-pattern'],
      [{ pattern: '['.repeat(MB) }, 'invalid-pattern'],
      [{ pattern: `[${'a'.repeat(MB)}]\\.txt`, regex: true }, 'ok or invalid-pattern'],
    ]
    for (const [opts, want] of cases) {
      const start = performance.now()
      const out = await settle(() => find({ cwd: dir, ...opts }), 20_000)
      const ms = performance.now() - start
      const what = `${opts.regex ? 'regex' : 'glob'} ${opts.pattern.slice(0, 30)}... (${opts.pattern.length} chars)`
      if (want === 'ok or invalid-pattern') assert.ok(out.ok || out.error.code === 'invalid-pattern', `${what}: ${out.error && out.error.message.slice(0, 200)}`)
      else if (want === 'ok') assert.ok(out.ok, `${what}: ${out.error && out.error.message.slice(0, 200)}`)
      else {
        assert.ok(!out.ok && out.error instanceof FindFilesError, `${what}: ${out.ok ? 'resolved' : out.error.message.slice(0, 200)}`)
        assert.equal(out.error.code, want, what)
      }
      assert.ok(ms < 10_000, `${what} took ${ms.toFixed(0)} ms`)
    }
    const grep = await settle(() => searchFiles({ pattern: 'a'.repeat(MB), cwd: dir }), 20_000)
    assert.ok(grep.ok || grep.error.code === 'invalid-pattern', grep.ok ? '' : grep.error.message.slice(0, 200))
  })

  /** Runs `expr` (source of `(af, dir) => promise`) in a child, so a panic's MB of stderr stays out of the report. */
  async function inChild(expr, dir) {
    const script = `
      const af = require(${JSON.stringify(path.join(REPO, 'index.js'))})
      Promise.resolve().then(() => (${expr})(af, ${JSON.stringify(dir)})).then(
        (v) => console.log(JSON.stringify({ ok: true, matched: v && v.matched })),
        (e) => console.log(JSON.stringify({ ok: false, name: e.constructor.name, code: e.code, length: String(e.message).length, message: String(e.message).slice(0, 300) })))`
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderrBytes = 0
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderrBytes += d.length })
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    const [status, signal] = await new Promise((resolve) => child.on('exit', (...a) => resolve(a)))
    clearTimeout(timer)
    assert.equal(status, 0, `child crashed (signal ${signal})`)
    return { ...JSON.parse(stdout), stderrBytes }
  }

  // Was a bug: globset's Glob::compile_matcher() panicked once the glob's regex passed its size
  // limit (from ~131,070 characters), which reached JS as a plain Error ('GenericFailure') with
  // a 1-4 MB message, or as 'fs-error: internal error' when the hint's '**/' variant panicked.
  test('a glob past ~130,000 characters (a 1 MB pattern, a long exclude or fileGlob) is invalid-pattern, not a panic',
    { timeout: 60_000 },
    async (t) => {
      const dir = tmpTree(t, { 'a.txt': 'x' })
      const calls = [
        `(af, dir) => af.find('a'.repeat(${MB}), { cwd: dir })`,
        `(af, dir) => af.find('?'.repeat(140000), { cwd: dir })`,
        `(af, dir) => af.find('*', { cwd: dir, exclude: ['a'.repeat(140000)] })`,
        `(af, dir) => af.searchFiles({ pattern: 'x', cwd: dir, fileGlob: 'a'.repeat(140000) })`,
        `(af, dir) => af.find('a'.repeat(131066), { cwd: dir })`,
      ]
      const results = await Promise.all(calls.map((expr) => inChild(expr, dir)))
      results.forEach((r, i) => {
        assert.equal(r.name, 'FindFilesError', `${calls[i]}: ${JSON.stringify(r)}`)
        assert.equal(r.code, 'invalid-pattern', `${calls[i]}: ${JSON.stringify(r)}`)
        assert.equal(r.stderrBytes, 0, 'nothing printed')
      })
    })

  test('error messages stay short whatever the size of the input', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const big = 'x'.repeat(MB)
    const long10k = 'x'.repeat(10_000)
    const cases = [
      { pattern: `[${big}` }, { pattern: big, regex: true }, { pattern: '*', exclude: [big] }, { pattern: '*', modifiedSince: big },
      { pattern: '*', minSize: big }, { pattern: '*', sortBy: big }, { pattern: '*', type: big }, { pattern: '*', path: big },
      { pattern: '*', cwd: big }, { pattern: '*', roots: [big] }, { pattern: '*', [big]: 1 },
      // under the 16 KiB pattern limit, so these reach the glob and regex parsers, which quote their input
      { pattern: `[${long10k}` }, { pattern: `(${long10k}`, regex: true }, { pattern: './'.repeat(5_000) },
      { pattern: '*', path: '/', roots: Array.from({ length: 1_000 }, (_, i) => `/r${i}-${long10k}`) },
      { pattern: '*', path: long10k, policy: () => 'deny' }, { pattern: '*', path: long10k, policy: () => 'require_approval' },
    ]
    const long = []
    for (const opts of cases) {
      const out = await settle(() => find({ cwd: dir, ...opts }))
      assert.ok(!out.ok && out.error instanceof FindFilesError)
      if (out.error.message.length >= 1024) long.push(`${Object.keys(opts).map((k) => k.slice(0, 12)).join(',')}: ${out.error.message.length} chars`)
    }
    for (const opts of [{ outputMode: big }, { target: big }, { pattern: `(${big}` }, { fileGlob: `[${long10k}` }]) {
      const out = await settle(() => searchFiles({ pattern: 'x', cwd: dir, ...opts }))
      assert.ok(!out.ok && out.error instanceof FindFilesError)
      if (out.error.message.length >= 1024) long.push(`${Object.keys(opts)}: ${out.error.message.length} chars`)
    }
    assert.deepEqual(long, [])
  })
})

describe('formatters given garbage', () => {
  test('formatFindResult: a string or invalid-argument, never a TypeError or a crash', () => {
    const entry = { path: 'a', type: 'file', size: 1, mtimeMs: 0 }
    const cases = [
      undefined, null, 5, 'x', [], {}, Object.create(null), { path: 1 }, { path: '/', entries: null }, { path: '/', entries: [null] },
      { path: '/', entries: [{ path: 5 }] }, { path: '/', entries: 'abc', matched: 0, truncated: false },
      { path: '/', entries: [], matched: 'x', truncated: false }, { path: '/', entries: [], matched: NaN, truncated: 'yes' },
      { path: '/', entries: [{ ...entry, type: 'weird', size: -1, mtimeMs: NaN }], matched: -5, truncated: false },
      { path: '/', entries: [{ ...entry, pathBytes: [300, -1, 2.5] }], matched: 1, truncated: false },
      { path: '/', entries: [{ ...entry, pathBytes: 'abc' }], matched: 1, truncated: false },
      { path: '/', entries: [{ ...entry, pathBytes: new Array(MB).fill(97) }], matched: 1, truncated: false },
      { path: '/', entries: [entry], matched: 1e308, truncated: true, truncatedBy: 'nonsense' },
      { path: '/', entries: [entry], matched: 1, truncated: true, truncatedBy: 'bytes', omitted: [{ dir: 5 }] },
      { path: '/', entries: [entry], matched: 1, truncated: false, hint: 5 },
      { path: 'x'.repeat(MB), entries: new Array(50_000).fill(entry), matched: 50_000, truncated: false },
      new Proxy({}, { get() { throw new Error('trap') } }),
      { path: '/', get entries() { throw new Error('getter') }, matched: 0, truncated: false },
    ]
    for (const [i, value] of cases.entries()) {
      try {
        const text = formatFindResult(value)
        assert.equal(typeof text, 'string', `case ${i}`)
      } catch (e) {
        assert.ok(e instanceof FindFilesError, `case ${i}: ${e.constructor.name}: ${e.message}`)
        assert.equal(e.code, 'invalid-argument', `case ${i}`)
      }
    }
  })

  test('formatSearchResult: the same', () => {
    const cases = [
      undefined, null, 5, 'x', [], {}, { path: '/', matchCount: 0, truncated: false },
      { path: '/', matches: null, matchCount: 0, truncated: false }, { path: '/', matches: [null], matchCount: 1, truncated: false },
      { path: '/', matches: [{ file: 1, line: 'x', match: null }], matchCount: 1, truncated: false },
      { path: '/', files: [5], matchCount: 1, truncated: false }, { path: '/', counts: [{ file: 'a', count: -1 }], matchCount: NaN, truncated: 'no' },
      { path: '/', matches: [{ file: 'a', line: 1e308, match: 'x'.repeat(MB) }], matchCount: 1, truncated: false },
      new Proxy({}, { get() { throw new Error('trap') } }),
    ]
    for (const [i, value] of cases.entries()) {
      try {
        assert.equal(typeof formatSearchResult(value), 'string', `case ${i}`)
      } catch (e) {
        assert.ok(e instanceof FindFilesError, `case ${i}: ${e.constructor.name}: ${e.message}`)
        assert.equal(e.code, 'invalid-argument', `case ${i}`)
      }
    }
  })
})

describe('the CLI given hostile arguments', () => {
  const CLI = path.join(REPO, 'bin', 'agent-find.js')
  const run = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 })

  test('bad numbers and values exit 2 with the code on stderr; Infinity clamps', (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    for (const args of [['--limit', 'abc'], ['--limit', '-1'], ['--limit', '1.5'], ['--max-depth', '-1'], ['--timeout', 'NaN'], ['--type', 'folder'], ['--min-size', 'huge'], ['--modified-since', 'x'.repeat(10_000)], ['--limit']]) {
      const out = run('*', dir, ...args)
      assert.equal(out.status, 2, `${args.join(' ')}: ${out.stderr.slice(0, 200)}`)
      assert.match(out.stderr, /^agent-find: invalid-argument: /)
    }
    const inf = run('*', dir, '--limit', 'Infinity', '--max-depth', 'Infinity', '--json')
    assert.equal(inf.status, 0, inf.stderr)
    assert.deepEqual(JSON.parse(inf.stdout).entries.map((e) => e.path), ['a.txt'])
    const badGlob = run('src/[abc', dir)
    assert.equal(badGlob.status, 2)
    assert.match(badGlob.stderr, /^agent-find: invalid-pattern: /)
  })

  test('a long bad value or unknown flag gives a short first line', (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const long = 'x'.repeat(100_000)
    for (const args of [['--sort', long], ['--type', long], [`--${long}`], [`[${long.slice(0, 10_000)}`]]) {
      const out = run(...(args[0].startsWith('-') ? ['*', dir, ...args] : [...args, dir]))
      assert.equal(out.status, 2, out.stderr.slice(0, 200))
      const first = out.stderr.split('\n')[0]
      assert.ok(first.length < 1024, `${args[0].slice(0, 12)}: ${first.length} chars`)
    }
  })
})
