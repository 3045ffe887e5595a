// A content search that finds nothing says, in a sentence, what near it is
// in the files searched: the pattern's literal text (a regex written for
// text), the pattern with case ignored, or matches in binary files. The
// same sentence comes from the disk, a reader and an index; and nothing is
// said when nothing near exists.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { FindFilesError, createTools, formatSearchResult, memoryReader, openIndex, searchFiles } from '../index.mjs'
import { tmpTree } from './helpers.mjs'

const FILES = {
  'src/call.js': 'const r = foo(bar)\nlet price = $total\n',
  'src/other.js': 'nothing to see\n',
  'docs/Readme.md': 'Welcome to the Widget factory\n',
  'assets/blob.bin': Buffer.concat([Buffer.from('header\0'), Buffer.from('secretToken inside\n')]),
  'z/last.txt': 'a+b is a sum\n',
}

/** With a file where the regex `foo(bar)` matches once case is ignored. */
const WITH_UPPER = { ...FILES, 'lib/upper.txt': 'FOOBAR here\n' }

/** Runs `query` on the disk, a memoryReader and an index of the same files; asserts they agree; returns the disk's result. */
async function everywhere(t, query, files = FILES) {
  const root = tmpTree(t, files)
  const disk = await searchFiles({ ...query, cwd: root })
  const tree = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? v : new Uint8Array(v)]))
  const reader = await searchFiles({ ...query, reader: memoryReader(tree), cwd: '/' })
  assert.equal(reader.notice, disk.notice, `reader: ${JSON.stringify(query)}`)
  assert.equal(reader.matchCount, disk.matchCount)
  const index = await openIndex(root)
  try {
    const indexed = await index.searchFiles(query)
    assert.deepEqual(indexed, disk, `index: ${JSON.stringify(query)}`)
    // Asked again, once the index has sketched the contents: still the same.
    assert.deepEqual(await index.searchFiles(query), disk, `index, again: ${JSON.stringify(query)}`)
  } finally {
    await index.close()
  }
  return disk
}

test('a regex written for text: the literal reading is named, with the escaped pattern', async (t) => {
  const r = await everywhere(t, { pattern: 'foo(bar)' })
  assert.equal(r.matchCount, 0)
  assert.equal(
    r.notice,
    'The pattern is a regex and as one matched nothing, but its literal text is in `src/call.js`: to search for the text, escape the regex characters: `foo\\(bar\\)`.',
  )
  assert.ok(formatSearchResult(r).includes(r.notice))
  // The escaped pattern it suggests does find the text.
  const root = tmpTree(t, FILES)
  const escaped = await searchFiles({ pattern: 'foo\\(bar\\)', cwd: root })
  assert.equal(escaped.matchCount, 1)
  assert.equal(escaped.notice, undefined)
})

test('a `$` anchor written for a dollar sign', async (t) => {
  const r = await everywhere(t, { pattern: '$total' })
  assert.equal(r.matchCount, 0)
  assert.match(r.notice, /literal text is in `src\/call\.js`.*`\\\$total`/)
})

test('a `+` written for a plus sign, found in the last file in path order', async (t) => {
  const r = await everywhere(t, { pattern: 'a+b' })
  assert.equal(r.matchCount, 0)
  assert.match(r.notice, /literal text is in `z\/last\.txt`/)
})

test('case: the pattern matches only with case ignored', async (t) => {
  const r = await everywhere(t, { pattern: 'widget Factory' })
  assert.equal(r.matchCount, 0)
  assert.equal(r.notice, 'It matches with case ignored, in `docs/Readme.md`: set `ignoreCase: true`.')
  const root = tmpTree(t, FILES)
  assert.equal((await searchFiles({ pattern: 'widget Factory', ignoreCase: true, cwd: root })).matchCount, 1)
})

test('case: with ignoreCase already set there is nothing to suggest', async (t) => {
  const r = await everywhere(t, { pattern: 'no such words', ignoreCase: true })
  assert.equal(r.matchCount, 0)
  assert.equal(r.notice, undefined)
})

test('binary files: matches only in a file with a NUL byte are named', async (t) => {
  const r = await everywhere(t, { pattern: 'secretToken' })
  assert.equal(r.matchCount, 0)
  assert.equal(r.notice, 'Binary files hold matches, such as `assets/blob.bin`: content search skips files with a NUL byte.')
})

test('two near readings at once are both said', async (t) => {
  const r = await everywhere(t, { pattern: 'SECRETTOKEN' })
  assert.equal(r.matchCount, 0)
  // Case ignored matches only in the binary file: the sentence for binary
  // files names the pattern as written, which is not there; only case is said.
  assert.equal(r.notice, undefined)
  const both = await everywhere(t, { pattern: 'foo(bar)' }, WITH_UPPER)
  assert.equal(
    both.notice,
    'The pattern is a regex and as one matched nothing, but its literal text is in `src/call.js`: to search for the text, escape the regex characters: `foo\\(bar\\)`. It matches with case ignored, in `lib/upper.txt`: set `ignoreCase: true`.',
  )
  const literalAndCase = await everywhere(t, { pattern: 'Welcome to the widget.factory' })
  // `.` matches any character, so the regex reading is only missed by case.
  assert.equal(literalAndCase.notice, 'It matches with case ignored, in `docs/Readme.md`: set `ignoreCase: true`.')
})

test('nothing near: no notice', async (t) => {
  const r = await everywhere(t, { pattern: 'zebra(s)?' })
  assert.equal(r.matchCount, 0)
  assert.equal(r.notice, undefined)
  assert.equal(formatSearchResult(r).includes('literal'), false)
})

test('the hint respects the search scope: a file glob that leaves out the file says nothing', async (t) => {
  const r = await everywhere(t, { pattern: 'foo(bar)', fileGlob: '*.md' })
  assert.equal(r.matchCount, 0)
  assert.equal(r.notice, undefined)
})

test('a search that matched says nothing of near readings', async (t) => {
  const r = await everywhere(t, { pattern: 'price' })
  assert.equal(r.matchCount, 1)
  assert.equal(r.notice, undefined)
})

test('files and count output modes give the same hint', async (t) => {
  for (const outputMode of ['files', 'count']) {
    const r = await everywhere(t, { pattern: 'foo(bar)', outputMode })
    assert.match(r.notice ?? '', /literal text is in `src\/call\.js`/, outputMode)
  }
})

test("an unbalanced `(` (`foo(`): invalid-pattern naming `literal: true`, and the call that follows it finds `foo(`", async (t) => {
  const root = tmpTree(t, FILES)
  for (const query of [{ pattern: 'foo(' }, { patterns: ['bar', 'foo('] }]) {
    const err = await searchFiles({ ...query, cwd: root }).then(() => null, (e) => e)
    assert.ok(err instanceof FindFilesError, JSON.stringify(query))
    assert.equal(err.code, 'invalid-pattern')
    assert.match(err.message, /unclosed group; to search for the text as written, set `literal: true` \(or escape the `\(` as `\\\(`\)$/)
  }
  const found = await searchFiles({ pattern: 'foo(', literal: true, cwd: root })
  assert.deepEqual(found.matches.map((m) => [m.file, m.match]), [['src/call.js', 'const r = foo(bar)']])
  // The same through the tools a model calls: the error text, then the answer.
  const tools = createTools({ cwd: root })
  const refused = await tools.call('search_files', { pattern: 'foo(' })
  assert.equal(refused.isError, true)
  assert.match(refused.text, /^Error \(invalid-pattern\): .*set `literal: true`/s)
  const next = await tools.call('search_files', { pattern: 'foo(', literal: true })
  assert.equal(next.isError, false)
  assert.match(next.text, /src\/call\.js\n1: const r = foo\(bar\)/)
  // Other unbalanced characters name the one to escape; an escaped one is fine.
  for (const [pattern, ch] of [['foo)', ')'], ['a[b', '['], ['x{2', '{'], ['*foo', '*']]) {
    await assert.rejects(searchFiles({ pattern, cwd: root }), (e) => e.code === 'invalid-pattern' && e.message.includes(`set \`literal: true\` (or escape the \`${ch}\` as \`\\${ch}\`)`))
  }
  assert.equal((await searchFiles({ pattern: 'foo\\(', cwd: root })).matchCount, 1)
})
