// The same query on the same tree gives the same answer, although the walk
// is parallel (several threads, work stealing): order, ties, caps, omitted.
import assert from 'node:assert/strict'
import os from 'node:os'
import { after, before, describe, test } from 'node:test'

import { find, findFiles, formatFindResult } from '../index.mjs'
import { buildBigTree, makeTmp, paths, removeTmp } from './helpers.mjs'

const DIRS = 60
const PER_DIR = 100
let top
let dir

describe('determinism on a 6,000-file tree', () => {
  before(() => {
    top = makeTmp()
    // Hard links to one file: every file has the same mtime and size, so
    // 'recent', 'mtime' and 'size' are decided by the path tie-break alone.
    dir = buildBigTree(top, DIRS, PER_DIR)
  })

  after(() => removeTmp(top))

  test('the same query twice gives identical results (ties broken by path)', async (t) => {
    t.diagnostic(`available parallelism: ${os.availableParallelism()} (the walk uses up to 12 threads)`)
    for (const opts of [{}, { sortBy: 'none' }, { sortBy: 'size' }, { sortBy: 'mtime', reverse: true }, { limit: 137 }, { maxBytes: 3000 }]) {
      const runs = []
      for (let i = 0; i < 3; i++) runs.push(await find('**/*', { cwd: dir, ...opts }))
      assert.deepEqual(runs[1], runs[0], JSON.stringify(opts))
      assert.deepEqual(runs[2], runs[0], JSON.stringify(opts))
      assert.equal(formatFindResult(runs[2]), formatFindResult(runs[0]))
      assert.equal(runs[0].matched, DIRS * PER_DIR)
    }
  })

  test("with equal mtimes, 'recent' lists in path order and the cut is the first paths", async () => {
    const r = await find('**/*', { cwd: dir, limit: 250 })
    const expected = []
    for (let d = 0; expected.length < 250; d++) {
      for (let f = 0; f < PER_DIR && expected.length < 250; f++) expected.push(`d${String(d).padStart(2, '0')}/f${String(f).padStart(2, '0')}.txt`)
    }
    assert.deepEqual(paths(r), expected)
    assert.equal(r.truncatedBy, 'limit')
    // Left out: 50 in d02 and 100 in each of d03..d59; the five largest groups tie at 100, by name.
    assert.deepEqual(r.omitted, ['d03', 'd04', 'd05', 'd06', 'd07'].map((d) => ({ dir: d, count: 100 })))
  })

  test('findFiles is identical run to run and in path order', async () => {
    const a = await findFiles('**/*.txt', dir)
    const b = await findFiles('**/*.txt', dir)
    assert.equal(a.length, DIRS * PER_DIR)
    assert.deepEqual(a, b)
    assert.deepEqual(a, [...a].sort())
  })
})
