// maxTokens: a token budget a model can set, counted as 4 bytes a token.
// The text fits it, says exactly what was shown of what, and the host's
// maxBytes still holds when it is the smaller.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { find, formatFindResult, formatSearchResult, createTools, searchFiles } from '../index.mjs'
import { rejectsWith, tmpTree } from './helpers.mjs'

function tree(t, n = 300) {
  const root = tmpTree(t, {})
  fs.mkdirSync(path.join(root, 'src'))
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(root, `src/module-${String(i).padStart(4, '0')}.ts`), '')
  return root
}

test('find: the text fits maxTokens × 4 bytes and says what it shows of what', async (t) => {
  const root = tree(t)
  for (const maxTokens of [64, 100, 500, 1000]) {
    const r = await find({ pattern: '**/*.ts', cwd: root, maxTokens, sortBy: 'name' })
    const text = formatFindResult(r)
    assert.ok(Buffer.byteLength(text) <= maxTokens * 4, `${Buffer.byteLength(text)} > ${maxTokens * 4}`)
    assert.equal(r.truncatedBy, 'bytes')
    assert.equal(r.matched, 300)
    assert.equal(
      r.notice,
      `Output cut to maxTokens (${maxTokens} tokens, counted as 4 bytes each): showing ${r.entries.length} of 300 matches; refine the pattern, narrow \`path\` or raise \`maxTokens\`.`,
    )
    assert.ok(r.entries.length > 0)
    // The budget is used, not wasted.
    assert.ok(Buffer.byteLength(text) > maxTokens * 4 - 40, `${maxTokens}: ${Buffer.byteLength(text)} bytes`)
  }
})

test('find: a budget above the answer changes nothing; maxBytes below the budget wins', async (t) => {
  const root = tree(t, 5)
  const plain = await find({ pattern: '**/*.ts', cwd: root })
  assert.deepEqual(await find({ pattern: '**/*.ts', cwd: root, maxTokens: 10_000 }), plain)
  const big = tree(t)
  const r = await find({ pattern: '**/*.ts', cwd: big, maxTokens: 5000, maxBytes: 1000 })
  assert.equal(r.notice, 'Output truncated at 1000 bytes; refine the pattern or narrow `path`.')
  assert.ok(Buffer.byteLength(formatFindResult(r)) <= 1000)
})

test('a model can set maxTokens through the tool; bad values are refused', async (t) => {
  const root = tree(t)
  const tools = createTools({ cwd: root })
  const { text, isError } = await tools.call('find', { pattern: '**/*.ts', maxTokens: 200 })
  assert.equal(isError, false)
  assert.ok(Buffer.byteLength(text) <= 800)
  assert.match(text, /showing \d+ of 300 matches/)
  await rejectsWith(find({ pattern: '*', cwd: root, maxTokens: 10 }), 'invalid-argument', 'maxTokens')
  await rejectsWith(find({ pattern: '*', cwd: root, maxTokens: 'many' }), 'invalid-argument', 'maxTokens')
  await rejectsWith(find({ pattern: '*', cwd: root, maxTokens: 100.5 }), 'invalid-argument', 'maxTokens')
})

test('searchFiles: a cut content result spreads its lines across files, fits the budget, and says what it shows', async (t) => {
  // One file with 200 matching lines, then 30 files with 1 to 3 each.
  const spec = { 'a-big.txt': Array.from({ length: 200 }, (_, i) => `needle ${i}`).join('\n') }
  for (let i = 0; i < 30; i++) spec[`b/f${String(i).padStart(2, '0')}.txt`] = Array.from({ length: 1 + (i % 3) }, (_, j) => `needle ${j}`).join('\n')
  const root = tmpTree(t, spec)
  const plain = await searchFiles({ pattern: 'needle', cwd: root, maxResults: 100 })
  assert.deepEqual([...new Set(plain.matches.map((m) => m.file))], ['a-big.txt'], 'without a budget: the first lines in path order')
  for (const maxTokens of [300, 600]) {
    const r = await searchFiles({ pattern: 'needle', cwd: root, maxResults: 100, maxTokens })
    const text = formatSearchResult(r)
    assert.ok(Buffer.byteLength(text) <= maxTokens * 4, `${Buffer.byteLength(text)} > ${maxTokens * 4}`)
    assert.equal(r.spread, true)
    assert.equal(r.truncated, true)
    assert.equal(r.cursor, undefined, 'a spread cut is no start of the answer: no cursor')
    assert.equal(r.matchCount, 200 + 30 + 30)
    const files = new Set(r.matches.map((m) => m.file))
    assert.ok(files.size > 5, `lines from ${files.size} files`)
    // Every file shown before any shows a second line: the big file has at most as many as files shown allow.
    const perFile = r.matches.reduce((n, m) => ({ ...n, [m.file]: (n[m.file] ?? 0) + 1 }), {})
    if (Object.values(perFile).some((n) => n > 1)) assert.equal(files.size, 31, 'second lines only once every file has its first')
    // In path order, then line, and each one a real matching line of its file.
    const keys = r.matches.map((m) => `${m.file}\0${String(m.line).padStart(5, '0')}`)
    assert.deepEqual(keys, [...keys].sort())
    for (const m of r.matches) assert.match(m.match, /^needle \d+$/)
    assert.match(text.split('\n')[1], new RegExp(`^Found 260 matching lines in 31 files; showing ${r.matches.length} of them, spread across the files to fit \`maxTokens\``))
  }
  // A whole answer the budget holds: unchanged.
  assert.deepEqual(await searchFiles({ pattern: 'needle', cwd: root, maxResults: 100, fileGlob: 'b/*', maxTokens: 10_000 }),
    await searchFiles({ pattern: 'needle', cwd: root, maxResults: 100, fileGlob: 'b/*' }))
  // Cut by maxResults alone, with a budget: spread too (each file's first line before any second).
  const few = await searchFiles({ pattern: 'needle', cwd: root, maxResults: 31, maxTokens: 10_000 })
  assert.equal(few.spread, true)
  assert.equal(new Set(few.matches.map((m) => m.file)).size, 31)
})

test('searchFiles: file lists and counts keep their first items that fit', async (t) => {
  const spec = {}
  for (let i = 0; i < 200; i++) spec[`some/longer/folder/name/file-${String(i).padStart(3, '0')}.txt`] = 'needle\n'
  const root = tmpTree(t, spec)
  for (const outputMode of ['files', 'count']) {
    const r = await searchFiles({ pattern: 'needle', cwd: root, outputMode, maxResults: 200, maxTokens: 200 })
    const text = formatSearchResult(r)
    assert.ok(Buffer.byteLength(text) <= 800, `${outputMode}: ${Buffer.byteLength(text)}`)
    assert.equal(r.truncated, true)
    const shown = (r.files ?? r.counts).length
    assert.ok(shown > 0 && shown < 200, `${outputMode}: ${shown}`)
    assert.match(text, new RegExp(outputMode === 'files' ? `Showing ${shown} of 200 matching files` : `Showing counts for the first ${shown} files`))
  }
  await rejectsWith(searchFiles({ pattern: 'x', cwd: root, maxTokens: 3 }), 'invalid-argument', 'maxTokens')
})
