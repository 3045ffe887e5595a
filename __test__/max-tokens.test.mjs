// maxTokens: a token budget a model can set, counted as 4 bytes a token.
// The text fits it, says exactly what was shown of what, and the host's
// maxBytes still holds when it is the smaller.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { find, formatFindResult, createTools } from '../index.mjs'
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
