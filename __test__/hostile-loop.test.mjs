// The event loop is never held by a call: patterns (globs, `exclude`,
// regexes) compile on the blocking pool, so a call returns its promise at
// once however slow its pattern is to compile; and patterns too big to
// compile quickly are refused as `invalid-pattern`, with a message that
// says the limit and what to do. Timing bounds here are generous (STALL_MS:
// a busy 2-core machine alone shows gaps near 100 ms), while these patterns
// held the loop for seconds when they compiled on the JS thread.
// Large answers cross into JS through one time-budgeted queue shared by
// every call (js/columns.js): many at once still come back whole and right.
import assert from 'node:assert/strict'
import path from 'node:path'
import { describe, test } from 'node:test'

import { createTools, find, findFiles, searchFiles } from '../index.mjs'
import { buildBigTree, makeTmp, rejectsWith, removeTmp, tmpTree } from './helpers.mjs'
import { worstLoopGap } from './hostile-helpers.mjs'

const KiB = 1024
/** A stall this long fails (compiling on the JS thread: 3-12 s here). */
const STALL_MS = 500
/** `unit` repeated to `bytes` (16 KiB: the longest pattern accepted). */
const fill = (unit, bytes = 16 * KiB) => unit.repeat(Math.floor(bytes / unit.length))

/** Runs `calls` together; returns how long they took to hand back their promises and the worst loop gap. */
async function timed(calls) {
  let returned = 0
  const { value, worst } = await worstLoopGap(async () => {
    const start = performance.now()
    const promises = calls.map((call) => call())
    returned = performance.now() - start
    return Promise.allSettled(promises)
  })
  return { returned, worst, outcomes: value }
}

describe('compiling patterns never blocks the event loop', () => {
  test('slow globs, a full exclude and a slow content regex: promises at once, no stall', { timeout: 60_000 }, async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x\n', 'b/c.md': 'y\n' })
    // Each of these compiles for a good part of a second on the JS thread
    // (`?` takes a whole character: a glob and its Unicode twin); together
    // several seconds. All are within the limits and answer.
    const slowGlob = fill('?a')
    const fullExclude = Array(4).fill(fill('?a')) // 64 KiB: the most `exclude` may hold
    const calls = [
      () => find({ pattern: slowGlob, cwd: dir }),
      () => find({ pattern: '**', cwd: dir, exclude: fullExclude }),
      () => findFiles(slowGlob, dir),
      () => searchFiles({ pattern: slowGlob, cwd: dir, target: 'files' }),
      () => searchFiles({ pattern: '\\w{100}\\w{90}', cwd: dir }),
      () => createTools({ cwd: dir }).call('find', { pattern: '**', exclude: fullExclude }),
    ]
    const { returned, worst, outcomes } = await timed(calls)
    t.diagnostic(`promises returned after ${returned.toFixed(0)} ms; worst loop gap ${worst.toFixed(0)} ms`)
    for (const o of outcomes) assert.equal(o.status, 'fulfilled', o.reason && o.reason.message)
    assert.deepEqual(outcomes[0].value.entries, [])
    assert.deepEqual(outcomes[1].value.entries.map((e) => e.path).sort(), ['a.txt', 'b/c.md'])
    assert.ok(returned < STALL_MS, `the calls took ${returned.toFixed(0)} ms to return their promises`)
    assert.ok(worst < STALL_MS, `the event loop stalled for ${worst.toFixed(0)} ms`)
  })

  test('a refused pattern is refused without a stall, as a rejection', { timeout: 60_000 }, async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x\n' })
    const { returned, worst, outcomes } = await timed([
      () => searchFiles({ pattern: '\\w{1000}{1000}', cwd: dir }),
      () => find({ pattern: '**', cwd: dir, exclude: Array(150).fill(fill('*a')) }),
      () => find({ pattern: '(unclosed', regex: true, cwd: dir }),
    ])
    t.diagnostic(`promises returned after ${returned.toFixed(0)} ms; worst loop gap ${worst.toFixed(0)} ms`)
    assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected', 'rejected'])
    assert.deepEqual(outcomes.map((o) => o.reason.code), ['invalid-pattern', 'invalid-pattern', 'invalid-pattern'])
    assert.ok(returned < STALL_MS && worst < STALL_MS, `returned after ${returned.toFixed(0)} ms, stalled ${worst.toFixed(0)} ms`)
  })
})

describe('patterns too big to compile quickly are invalid-pattern', () => {
  test('a content regex that compiles past 10 MiB, though 17 bytes long', async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x\n' })
    for (const pattern of ['\\w{1000}{1000}', '.{0,65535}b']) {
      await rejectsWith(searchFiles({ pattern, cwd: dir }), 'invalid-pattern', 'regex too big', 'more than 10 MiB', 'use smaller counts')
    }
    // Large but under the limit: searched.
    const ok = await searchFiles({ pattern: 'x\\w{0,100}', cwd: dir })
    assert.equal(ok.matchCount, 1)
  })

  test('`exclude`: more than 1,000 globs, or more than 64 KiB in all', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '', 'dist/b.txt': '' })
    await rejectsWith(find({ pattern: '**', cwd: dir, exclude: Array.from({ length: 1001 }, (_, i) => `d${i}`) }),
      'invalid-pattern', '`exclude` holds 1001 globs; the limit is 1000', 'broader globs')
    await rejectsWith(find({ pattern: '**', cwd: dir, exclude: Array(5).fill(fill('a')) }),
      'invalid-pattern', '`exclude` globs are 81920 bytes in all; the limit is 65536', 'shorter globs')
    // The tool refuses it the same way, as an error the model reads.
    const tool = await createTools({ cwd: dir }).call('find', { pattern: '**', exclude: Array(5).fill(fill('a')) })
    assert.match(tool.text, /invalid-pattern.*81920 bytes in all; the limit is 65536/s)
    // At the limits: answered.
    const atLimit = await find({ pattern: '**', cwd: dir, exclude: [...Array.from({ length: 999 }, (_, i) => `d${i}`), 'dist'] })
    assert.deepEqual(atLimit.entries.map((e) => e.path), ['a.txt'])
  })

  test('a pattern over 16 KiB is still refused by its length, before compiling', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await rejectsWith(find({ pattern: fill('?a', 16 * KiB + 2), cwd: dir }), 'invalid-pattern', 'the limit is 16384')
  })
})

describe('large answers from many calls at once', () => {
  test('40 concurrent find and findFiles calls of 2,501 entries: each whole, in order, the loop turning', { timeout: 120_000 }, async (t) => {
    const root = makeTmp()
    t.after(() => removeTmp(root))
    // 2,501 files (41 x 61): a first slice, full slices and a last partial one.
    const tree = buildBigTree(root, 41, 61)
    const options = { pattern: '**/*.txt', path: tree, sortBy: 'name', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }
    const want = (await find(options)).entries.map((e) => e.path)
    assert.equal(want.length, 2501)
    assert.deepEqual(want, [...want].sort())
    const { value, worst } = await worstLoopGap(() =>
      Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? findFiles('**/*.txt', tree) : find(options)))))
    t.diagnostic(`worst loop gap ${worst.toFixed(0)} ms`)
    for (const [i, answer] of value.entries()) {
      if (i % 2) assert.deepEqual([...answer].sort(), want.map((p) => path.join(tree, p)).sort())
      else {
        assert.deepEqual(answer.entries.map((e) => e.path), want)
        assert.ok(answer.entries.every((e) => e.type === 'file' && e.size === 0 && typeof e.mtimeMs === 'number'))
      }
    }
    assert.ok(worst < 2 * STALL_MS, `the loop stalled ${worst.toFixed(0)} ms`)
  })
})
