// Large answers: every entry of a 50k-file tree arrives, and the event loop
// keeps turning while they cross from Rust to JS.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'

import { find, findFiles, formatFindResult } from '../index.mjs'
import { makeTmp, removeTmp, buildBigTree } from './helpers.mjs'
import { worstLoopGap as worstGap } from './hostile-helpers.mjs'

let tmp
let tree

before(() => {
  tmp = makeTmp()
  tree = buildBigTree(tmp, 500, 100)
})

after(() => removeTmp(tmp))

test('find with no caps returns all 50,000 entries, in order, without stalling the loop', async (t) => {
  const { value: r, worst } = await worstGap(() =>
    find('**/*.txt', { path: tree, limit: Infinity, maxLimit: Infinity, maxBytes: Infinity, sortBy: 'name' }),
  )
  t.diagnostic(`worst event-loop gap while 50k entries crossed: ${worst.toFixed(1)} ms`)
  assert.equal(r.entries.length, 50_000)
  assert.equal(r.matched, 50_000)
  assert.equal(r.truncated, false)
  assert.equal(r.entries[0].path, 'd000/f00.txt')
  assert.equal(r.entries[49_999].path, 'd499/f99.txt')
  for (let i = 1; i < r.entries.length; i++) assert.ok(r.entries[i - 1].path < r.entries[i].path)
  assert.ok(worst < 100, `event loop stalled ${worst.toFixed(1)} ms`)
  assert.ok(formatFindResult(r).split('\n').length === 50_001)
})

test('findFiles returns all 50,000 absolute paths without stalling the loop', async (t) => {
  const { value: files, worst } = await worstGap(() => findFiles('**/*', tree))
  t.diagnostic(`worst event-loop gap while 50k paths crossed: ${worst.toFixed(1)} ms`)
  assert.equal(files.length, 50_000)
  assert.equal(new Set(files).size, 50_000)
  assert.equal(files[0], `${tree}/d000/f00.txt`)
  assert.equal(files.at(-1), `${tree}/d499/f99.txt`)
  assert.ok(worst < 100, `event loop stalled ${worst.toFixed(1)} ms`)
})

test('the default byte cap still holds on a large tree', async () => {
  const r = await find('**/*.txt', { path: tree, limit: Infinity, maxLimit: Infinity })
  assert.equal(r.truncatedBy, 'bytes')
  assert.equal(r.matched, 50_000)
  assert.ok(Buffer.byteLength(formatFindResult(r)) <= 51_200)
})
