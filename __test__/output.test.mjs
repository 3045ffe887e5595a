// What the model reads: limit / maximum / byte truncation, their notices,
// `omitted`, `formatFindResult`, and the hints when nothing matched.
import assert from 'node:assert/strict'
import path from 'node:path'
import { describe, test } from 'node:test'

import { FindFilesError, find, formatFindResult } from '../index.mjs'
import { bytes, gitInit, paths, rejectsWith, tmpTree } from './helpers.mjs'

const pad = (n, w = 4) => String(n).padStart(w, '0')

/** `n` files f0000.txt ... directly in the root. */
function flat(n, prefix = 'f') {
  const spec = {}
  for (let i = 0; i < n; i++) spec[`${prefix}${pad(i)}.txt`] = ''
  return spec
}

/** 'aaa/k.txt', 14 files in src/, 'zz.txt': by name, limit 1 leaves out src (14) and . (1). */
function omittedTree() {
  const spec = { 'aaa/k.txt': '', 'zz.txt': '' }
  for (let i = 1; i <= 14; i++) spec[`src/f${pad(i, 2)}.txt`] = ''
  return spec
}

describe('limit and maxLimit', () => {
  test('limit below maxLimit: truncatedBy limit, the notice docs/API.md gives, omitted, and the text', async (t) => {
    const dir = tmpTree(t, omittedTree())
    const r = await find('**/*', { cwd: dir, sortBy: 'name', limit: 1 })
    assert.deepEqual(paths(r), ['aaa/k.txt'])
    assert.equal(r.matched, 16)
    assert.equal(r.truncated, true)
    assert.equal(r.truncatedBy, 'limit')
    assert.equal(r.notice, '16 files matched; returned first 1. Refine the pattern or raise `limit` (max 1000).')
    assert.deepEqual(r.omitted, [{ dir: 'src', count: 14 }, { dir: '.', count: 1 }])
    assert.equal(formatFindResult(r), [
      `Search directory: ${dir}`,
      'aaa/k.txt',
      '16 files matched; returned first 1. Refine the pattern or raise `limit` (max 1000).',
      'Most left-out entries are in: src/ (14), ./ (1)',
    ].join('\n'))
  })

  test('the notice names the caller\'s maxLimit', async (t) => {
    const dir = tmpTree(t, flat(30))
    const r = await find('*', { cwd: dir, sortBy: 'name', limit: 4, maxLimit: 20 })
    assert.equal(r.truncatedBy, 'limit')
    assert.equal(r.notice, '30 files matched; returned first 4. Refine the pattern or raise `limit` (max 20).')
    assert.deepEqual(paths(r), ['f0000.txt', 'f0001.txt', 'f0002.txt', 'f0003.txt'])
    assert.deepEqual(r.omitted, [{ dir: '.', count: 26 }])
  })

  test('exactly limit matches is not truncated', async (t) => {
    const dir = tmpTree(t, flat(16))
    const r = await find('*', { cwd: dir, limit: 16 })
    assert.equal(r.entries.length, 16)
    assert.equal(r.matched, 16)
    assert.equal(r.truncated, false)
    for (const key of ['truncatedBy', 'notice', 'omitted']) assert.equal(r[key], undefined, key)
    assert.ok(!formatFindResult(r).includes('matched;'))
  })

  test('the default limit is 1000, the maximum: truncatedBy maximum with the notice docs/API.md gives', async (t) => {
    const dir = tmpTree(t, flat(1005))
    const r = await find('*.txt', { cwd: dir, sortBy: 'name' })
    assert.equal(r.entries.length, 1000)
    assert.equal(r.matched, 1005)
    assert.equal(r.truncatedBy, 'maximum')
    assert.equal(r.notice, '1005 files matched; returned first 1000 (maximum). Refine the pattern or narrow `path`.')
    assert.equal(r.entries.at(-1).path, 'f0999.txt')
    assert.deepEqual(r.omitted, [{ dir: '.', count: 5 }])
    const text = formatFindResult(r)
    assert.ok(text.endsWith('\n1005 files matched; returned first 1000 (maximum). Refine the pattern or narrow `path`.\nMost left-out entries are in: ./ (5)'), text.slice(-200))
  })

  test('limit above maxLimit is clamped to it (maximum)', async (t) => {
    const dir = tmpTree(t, flat(1005))
    const big = await find('*.txt', { cwd: dir, limit: 5000 })
    assert.equal(big.entries.length, 1000)
    assert.equal(big.truncatedBy, 'maximum')
    const small = await find('*.txt', { cwd: dir, limit: 10, maxLimit: 3, sortBy: 'name' })
    assert.deepEqual(paths(small), ['f0000.txt', 'f0001.txt', 'f0002.txt'])
    assert.equal(small.truncatedBy, 'maximum')
    assert.equal(small.notice, '1005 files matched; returned first 3 (maximum). Refine the pattern or narrow `path`.')
    const infinite = await find('*.txt', { cwd: dir, limit: Infinity })
    assert.equal(infinite.entries.length, 1000)
    assert.equal(infinite.truncatedBy, 'maximum')
    const onlyMax = await find('*.txt', { cwd: dir, maxLimit: 2 })
    assert.equal(onlyMax.entries.length, 2, 'the default limit is clamped too')
    assert.equal(onlyMax.truncatedBy, 'maximum')
    const equal = await find('*.txt', { cwd: dir, limit: 7, maxLimit: 7 })
    assert.equal(equal.entries.length, 7)
    assert.equal(equal.truncatedBy, 'maximum')
  })

  test('maxLimit: Infinity lifts the maximum', async (t) => {
    const dir = tmpTree(t, flat(1005))
    const all = await find('*.txt', { cwd: dir, maxLimit: Infinity, limit: Infinity })
    assert.equal(all.entries.length, 1005)
    assert.equal(all.truncated, false)
    const most = await find('*.txt', { cwd: dir, maxLimit: Infinity, limit: 1003 })
    assert.equal(most.entries.length, 1003)
    assert.equal(most.truncatedBy, 'limit')
    assert.ok(most.notice.startsWith('1005 files matched; returned first 1003. Refine the pattern or raise `limit`'), most.notice)
    assert.ok(!/Infinity/.test(most.notice), most.notice)
  })
})

describe('byte cap (maxBytes)', () => {
  const longName = (i) => `folder-${pad(i % 7, 2)}/a-rather-long-file-name-to-fill-the-output-quickly-${pad(i)}.txt`

  test('the default 51200-byte cap: truncatedBy bytes, the notice, and the text fits', async (t) => {
    const spec = {}
    for (let i = 0; i < 1000; i++) spec[longName(i)] = ''
    const dir = tmpTree(t, spec)
    const r = await find('**/*.txt', { cwd: dir, sortBy: 'name' })
    const text = formatFindResult(r)
    assert.equal(r.truncatedBy, 'bytes')
    assert.equal(r.truncated, true)
    assert.equal(r.matched, 1000)
    assert.equal(r.notice, 'Output truncated at 51200 bytes; refine the pattern or narrow `path`.')
    assert.ok(bytes(text) <= 51200, `${bytes(text)} bytes`)
    assert.ok(bytes(text) > 51200 - 300, `cap wasted: only ${bytes(text)} bytes`)
    assert.ok(r.entries.length > 500 && r.entries.length < 1000, String(r.entries.length))
    const everything = Object.keys(spec).sort()
    assert.deepEqual(paths(r), everything.slice(0, r.entries.length), 'the kept entries are the first ones in sort order')
    assert.ok(text.includes('\nOutput truncated at 51200 bytes; refine the pattern or narrow `path`.'))
    assert.ok(Array.isArray(r.omitted) && r.omitted.length > 0 && r.omitted.length <= 5)
    const left = everything.length - r.entries.length
    assert.ok(r.omitted.reduce((s, o) => s + o.count, 0) <= left)
  })

  test('bytes are counted as UTF-8 bytes, not characters', async (t) => {
    const spec = {}
    for (let i = 0; i < 300; i++) spec[`日本語のファイル名-${pad(i)}.md`] = ''
    const dir = tmpTree(t, spec)
    const r = await find('*.md', { cwd: dir, sortBy: 'name', maxBytes: 4000 })
    const text = formatFindResult(r)
    assert.equal(r.truncatedBy, 'bytes')
    assert.equal(r.notice, 'Output truncated at 4000 bytes; refine the pattern or narrow `path`.')
    assert.ok(bytes(text) <= 4000, `${bytes(text)} bytes`)
    assert.ok(text.length < bytes(text))
    assert.ok(bytes(text) > 4000 - 120, `cap wasted: ${bytes(text)}`)
  })

  test('for many caps, the text always fits and keeps a prefix of the sorted matches', async (t) => {
    const spec = {}
    for (let i = 0; i < 200; i++) spec[`${['src', 'lib/deep', 'docs', 'té/st'][i % 4]}/file-${pad(i)}.txt`] = ''
    const dir = tmpTree(t, spec)
    const full = paths(await find('**/*', { cwd: dir, sortBy: 'name', maxBytes: 1_000_000 }))
    assert.equal(full.length, 200)
    for (const maxBytes of [256, 333, 512, 1000, 2048, 4000]) {
      const r = await find('**/*', { cwd: dir, sortBy: 'name', maxBytes })
      const size = bytes(formatFindResult(r))
      assert.ok(size <= maxBytes, `maxBytes ${maxBytes}: ${size} bytes`)
      assert.ok(r.entries.length > 0, `maxBytes ${maxBytes} left no entry`)
      assert.equal(r.truncatedBy, 'bytes')
      assert.equal(r.matched, 200)
      assert.equal(r.notice, `Output truncated at ${maxBytes} bytes; refine the pattern or narrow \`path\`.`)
      assert.deepEqual(paths(r), full.slice(0, r.entries.length))
    }
  })

  test('the byte cap applies after limit', async (t) => {
    const spec = {}
    for (let i = 0; i < 100; i++) spec[longName(i)] = ''
    const dir = tmpTree(t, spec)
    const r = await find('**/*.txt', { cwd: dir, limit: 50, maxBytes: 1500, sortBy: 'name' })
    assert.equal(r.truncatedBy, 'bytes')
    assert.ok(r.entries.length < 50)
    assert.ok(bytes(formatFindResult(r)) <= 1500)
    const roomy = await find('**/*.txt', { cwd: dir, limit: 5, maxBytes: 1500, sortBy: 'name' })
    assert.equal(roomy.truncatedBy, 'limit')
    assert.equal(roomy.entries.length, 5)
  })

  test('a maxBytes too small for the header and notice is refused; 256 is the floor', async (t) => {
    const dir = tmpTree(t, flat(10))
    for (const maxBytes of [1, 60, 255]) {
      const err = await rejectsWith(find('*', { cwd: dir, maxBytes }), 'invalid-argument', '`maxBytes`', 'at least 256')
      assert.match(err.message, new RegExp(`got number ${maxBytes}$`))
    }
    const r = await find('*', { cwd: dir, maxBytes: 256 })
    assert.ok(bytes(formatFindResult(r)) <= 256)
  })
})

describe('omitted', () => {
  test('groups sit below the deepest folder holding all left-out entries', async (t) => {
    const dir = tmpTree(t, {
      'a.txt': '', 'src/a/x/1.txt': '', 'src/a/x/2.txt': '', 'src/a/x/3.txt': '', 'src/a/y/4.txt': '', 'src/a/5.txt': '', 'src/a/6.txt': '',
    })
    const r = await find('**/*.txt', { cwd: dir, sortBy: 'name', limit: 1 })
    assert.deepEqual(paths(r), ['a.txt'])
    assert.deepEqual(r.omitted, [{ dir: 'src/a/x', count: 3 }, { dir: 'src/a', count: 2 }, { dir: 'src/a/y', count: 1 }])
    assert.ok(formatFindResult(r).endsWith('\nMost left-out entries are in: src/a/x/ (3), src/a/ (2), src/a/y/ (1)'))
  })

  test('at most 5 groups, largest first, ties by name', async (t) => {
    const spec = { '0.txt': '' }
    const sizes = { g: 1, b: 4, c: 2, d: 2, a: 2, f: 3, e: 1 }
    for (const [d, n] of Object.entries(sizes)) for (let i = 0; i < n; i++) spec[`${d}/${i}.txt`] = ''
    const dir = tmpTree(t, spec)
    const r = await find('**/*.txt', { cwd: dir, sortBy: 'name', limit: 1 })
    assert.deepEqual(paths(r), ['0.txt'])
    assert.deepEqual(r.omitted, [
      { dir: 'b', count: 4 }, { dir: 'f', count: 3 }, { dir: 'a', count: 2 }, { dir: 'c', count: 2 }, { dir: 'd', count: 2 },
    ])
  })
})

describe('formatFindResult', () => {
  test('header, one line per entry, folders end with /', async (t) => {
    const dir = tmpTree(t, { 'README.md': '', 'docs/notes.md': '' })
    const r = await find('**/*', { cwd: dir, type: 'any', sortBy: 'name' })
    assert.equal(formatFindResult(r), `Search directory: ${dir}\nREADME.md\ndocs/\ndocs/notes.md`)
  })

  test('no match: the header and "No files matched."', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const r = await find('**/*.zzz', { cwd: dir })
    assert.deepEqual(r.entries, [])
    assert.equal(r.matched, 0)
    assert.equal(r.truncated, false)
    assert.equal(r.hint, undefined)
    // Nothing was left out either, so no `Not searched:` line.
    assert.equal('skipped' in r, false)
    assert.equal(formatFindResult(r), `Search directory: ${dir}\nNo files matched.`)
  })

  test('formats a hand-built result', () => {
    const result = {
      path: '/workspace',
      entries: [
        { path: 'README.md', type: 'file', size: 1, mtimeMs: 0 },
        { path: 'docs', type: 'dir', size: 0, mtimeMs: 0 },
        { path: 'link', type: 'symlink', size: 0, mtimeMs: 0 },
      ],
      matched: 3,
      truncated: false,
    }
    assert.equal(formatFindResult(result), 'Search directory: /workspace\nREADME.md\ndocs/\nlink')
    assert.equal(
      formatFindResult({ path: '/w', entries: [], matched: 0, truncated: false, hint: 'Try `**/*.py`.' }),
      'Search directory: /w\nNo files matched.\nTry `**/*.py`.',
    )
  })

  test('anything but a FindResult throws FindFilesError invalid-argument', () => {
    for (const bad of [null, undefined, 42, 'text', [], {}, { path: '/w', entries: [{ path: 'a' }], matched: 1, truncated: false }]) {
      assert.throws(() => formatFindResult(bad), (err) => {
        assert.ok(err instanceof FindFilesError, String(err))
        assert.equal(err.code, 'invalid-argument')
        assert.match(err.message, /FindResult/)
        return true
      }, JSON.stringify(bad))
    }
  })
})

describe('hints when nothing matched', () => {
  test("'*.py' with no top-level match but deeper files: the hint suggests '**/*.py' with an example", async (t) => {
    const dir = tmpTree(t, { 'src/b/y.py': '', 'src/a/x.py': '', 'README.md': '' })
    const r = await find('*.py', { cwd: dir })
    assert.deepEqual(r.entries, [])
    assert.equal(r.matched, 0)
    assert.ok(r.hint.includes('**/*.py'), r.hint)
    assert.ok(r.hint.includes('src/a/x.py'), r.hint)
    assert.equal(formatFindResult(r), `Search directory: ${dir}\nNo files matched.\n${r.hint}`)
    assert.equal((await find('**/*.py', { cwd: dir })).matched, 2, 'following the hint finds them')
  })

  test('no hint when the pattern matches nothing anywhere', async (t) => {
    const dir = tmpTree(t, { 'src/a.js': '', 'node_modules/x.js': '', '.gitignore': 'node_modules\n' })
    const r = await find('*.py', { cwd: dir })
    assert.equal(r.hint, undefined)
    // What was not searched, since nothing was found.
    assert.equal(formatFindResult(r), `Search directory: ${dir}\nNo files matched.\nNot searched: node_modules/ (.gitignore:1: node_modules).`)
  })

  test('matches only under a gitignored folder: the hint names it and says gitignore: false', async (t) => {
    const dir = tmpTree(t, { '.gitignore': 'node_modules/\n', 'node_modules/pkg/index.js': '', 'src/a.ts': '' })
    gitInit(dir)
    const r = await find('**/*.js', { cwd: dir })
    assert.deepEqual(r.entries, [])
    assert.ok(r.hint.includes('node_modules/'), r.hint)
    assert.ok(r.hint.includes('gitignore: false'), r.hint)
    assert.ok(formatFindResult(r).endsWith(`\nNo files matched.\n${r.hint}\nNot searched: node_modules/ (.gitignore:1: node_modules/).`))
    assert.deepEqual(paths(await find('**/*.js', { cwd: dir, gitignore: false })), ['node_modules/pkg/index.js'])
  })

  test('matches only in a hidden folder with hidden: false: the hint names it and says hidden: true', async (t) => {
    const dir = tmpTree(t, { '.config/app.yml': '', 'src/a.ts': '' })
    const r = await find('**/*.yml', { cwd: dir, hidden: false })
    assert.deepEqual(r.entries, [])
    assert.ok(r.hint.includes('.config/'), r.hint)
    assert.ok(r.hint.includes('hidden: true'), r.hint)
    assert.deepEqual(paths(await find('**/*.yml', { cwd: dir, hidden: true })), ['.config/app.yml'])
  })

  test('matches only in an excluded folder: the hint names it and mentions exclude', async (t) => {
    const dir = tmpTree(t, { 'dist/bundle.js': '', 'src/a.ts': '' })
    const r = await find('**/*.js', { cwd: dir, exclude: ['dist'] })
    assert.deepEqual(r.entries, [])
    assert.ok(r.hint.includes('dist/'), r.hint)
    assert.match(r.hint, /exclude/)
    assert.ok(!r.hint.includes('gitignore: false'), r.hint)
  })

  test('a hint never makes the text exceed maxBytes', async (t) => {
    const spec = { '.gitignore': '*-ignored-folder-with-a-long-name/\n' }
    for (let i = 0; i < 6; i++) spec[`number-${i}-ignored-folder-with-a-long-name/pkg/index.js`] = ''
    const dir = tmpTree(t, spec)
    const loose = await find('**/*.js', { cwd: dir })
    assert.ok(loose.hint)
    const tightCap = 256
    assert.ok(bytes(formatFindResult(loose)) > tightCap, 'the hint alone overflows the tight cap')
    const tight = await find('**/*.js', { cwd: dir, maxBytes: tightCap })
    assert.ok(bytes(formatFindResult(tight)) <= tightCap)
    assert.equal(tight.hint, undefined)
    assert.equal(path.isAbsolute(tight.path), true)
  })
})
