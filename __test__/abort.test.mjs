// Long walks on a 50,000-file tree: abort mid-walk, timeoutMs, and the event
// loop staying responsive. Also the small-tree abort paths (already aborted,
// abort during the policy, abort after the end).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import { find } from '../index.mjs'
import { buildBigTree, makeTmp, paths, rejectsWith, removeTmp, tmpTree } from './helpers.mjs'

const FILES = 50_000
let top
let big
/** The median of three full default walks of the big tree, in ms. */
let fullWalkMs

async function timed(fn) {
  const start = performance.now()
  const value = await fn()
  return { value, ms: performance.now() - start }
}

/**
 * Settles `promise` and measures the time since `since`; `rejection` is a
 * function returning a promise that settles as `promise` did, for `rejectsWith`.
 */
async function settleTime(promise, since) {
  try {
    const value = await promise
    return { ms: performance.now() - since, rejection: () => Promise.resolve(value) }
  } catch (err) {
    return { ms: performance.now() - since, rejection: () => Promise.reject(err) }
  }
}

describe('on a 50,000-file tree', () => {
  before(async () => {
    top = makeTmp()
    big = buildBigTree(top, 500, 100)
    const runs = []
    for (let i = 0; i < 3; i++) {
      const { value, ms } = await timed(() => find('**/*', { cwd: big }))
      assert.equal(value.matched, FILES)
      runs.push(ms)
    }
    fullWalkMs = runs.sort((a, b) => a - b)[1]
  })

  after(() => removeTmp(top))

  test('a full walk finds all 50,000 files (the baseline)', async (t) => {
    const { value: r, ms } = await timed(() => find('**/*', { cwd: big }))
    t.diagnostic(`full default walk: ${ms.toFixed(1)} ms (median of the warm-up runs: ${fullWalkMs.toFixed(1)} ms)`)
    assert.equal(r.matched, FILES)
    assert.equal(r.entries.length, 1000)
    assert.equal(r.truncatedBy, 'maximum')
    const dirs = await find('*', { cwd: big, type: 'dir', sortBy: 'name', limit: 1000 })
    assert.equal(dirs.matched, 500)
    assert.equal(dirs.entries[0].path, 'd000')
  })

  test('abort mid-walk rejects with aborted, well before a full walk would finish', async (t) => {
    // A rejection proves the abort reached the running walk: once the walk is
    // done, a late abort changes nothing and find() resolves. Only when the
    // 3 ms timer itself fires after a whole walk's time (a stalled machine)
    // is the attempt not meaningful, and it is tried again.
    for (let attempt = 1; ; attempt++) {
      const ac = new AbortController()
      const start = performance.now()
      const pending = find('**/*', { cwd: big, signal: ac.signal })
      let abortedAt
      setTimeout(() => {
        abortedAt = performance.now()
        ac.abort()
      }, 3)
      const { ms, rejection } = await settleTime(pending, start)
      if (abortedAt === undefined) await sleep(20)
      const late = abortedAt === undefined || abortedAt - start >= fullWalkMs
      if (late && attempt < 3) {
        t.diagnostic(`attempt ${attempt}: the 3 ms timer fired after ${abortedAt === undefined ? '?' : (abortedAt - start).toFixed(1)} ms; trying again`)
        continue
      }
      await rejectsWith(rejection, 'aborted', 'aborted')
      const afterAbort = performance.now() - abortedAt
      t.diagnostic(`aborted after ${(abortedAt - start).toFixed(1)} ms; rejected ${afterAbort.toFixed(1)} ms later; total ${ms.toFixed(1)} ms vs full walk ${fullWalkMs.toFixed(1)} ms`)
      assert.ok(afterAbort < fullWalkMs / 2, `rejected ${afterAbort.toFixed(1)} ms after abort(); a full walk takes ${fullWalkMs.toFixed(1)} ms`)
      assert.ok(ms < fullWalkMs, `took ${ms.toFixed(1)} ms in all; a full walk takes ${fullWalkMs.toFixed(1)} ms`)
      return
    }
  })

  test('abort with a custom reason still rejects with FindFilesError aborted', async () => {
    const ac = new AbortController()
    const pending = find('**/*', { cwd: big, signal: ac.signal })
    setTimeout(() => ac.abort(new Error('user pressed stop')), 2)
    await rejectsWith(pending, 'aborted')
  })

  test('AbortSignal.timeout() stops the walk', async () => {
    const start = performance.now()
    const { ms, rejection } = await settleTime(find('**/*', { cwd: big, signal: AbortSignal.timeout(5) }), start)
    await rejectsWith(rejection, 'aborted')
    assert.ok(ms < fullWalkMs, `took ${ms.toFixed(1)} ms; a full walk takes ${fullWalkMs.toFixed(1)} ms`)
  })

  test('timeoutMs: 1 rejects with aborted, naming timeoutMs', async (t) => {
    const start = performance.now()
    const { ms, rejection } = await settleTime(find('**/*', { cwd: big, timeoutMs: 1 }), start)
    await rejectsWith(rejection, 'aborted', 'timeoutMs')
    t.diagnostic(`timeoutMs: 1 rejected after ${ms.toFixed(1)} ms`)
    assert.ok(ms < fullWalkMs / 2, `took ${ms.toFixed(1)} ms; a full walk takes ${fullWalkMs.toFixed(1)} ms`)
  })

  test('a generous timeoutMs lets the walk finish', async () => {
    const r = await find('**/*', { cwd: big, timeoutMs: 60_000 })
    assert.equal(r.matched, FILES)
  })

  test('after an abort, the same search runs to completion', async () => {
    const ac = new AbortController()
    const pending = find('**/*', { cwd: big, signal: ac.signal })
    setTimeout(() => ac.abort(), 2)
    await rejectsWith(pending, 'aborted')
    const r = await find('**/*', { cwd: big, sortBy: 'name', limit: 3 })
    assert.equal(r.matched, FILES)
    assert.deepEqual(paths(r), ['d000/f00.txt', 'd000/f01.txt', 'd000/f02.txt'])
  })

  test('the event loop keeps running during a walk (1 ms interval)', async (t) => {
    const ticks = []
    const start = performance.now()
    const timer = setInterval(() => ticks.push(performance.now()), 1)
    let r
    try {
      r = await find('**/*', { cwd: big })
    } finally {
      clearInterval(timer)
    }
    const end = performance.now()
    assert.equal(r.matched, FILES)
    const marks = [start, ...ticks, end]
    let worst = 0
    for (let i = 1; i < marks.length; i++) worst = Math.max(worst, marks[i] - marks[i - 1])
    const walkMs = end - start
    t.diagnostic(`worst event-loop gap: ${worst.toFixed(1)} ms over ${ticks.length} ticks during a ${walkMs.toFixed(1)} ms walk`)
    assert.ok(worst < 100, `the event loop stalled for ${worst.toFixed(1)} ms`)
    assert.ok(ticks.length >= Math.min(10, walkMs / 20), `only ${ticks.length} ticks in ${walkMs.toFixed(1)} ms`)
  })

  test('two concurrent walks both complete and agree', async () => {
    const [a, b] = await Promise.all([
      find('**/*', { cwd: big, sortBy: 'name', limit: 50 }),
      find('**/*', { cwd: big, sortBy: 'name', limit: 50 }),
    ])
    assert.equal(a.matched, FILES)
    assert.deepEqual(a, b)
  })
})

describe('aborting outside the walk', () => {
  test('an already-aborted signal rejects with aborted and never asks the policy', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    let asked = 0
    const err = await rejectsWith(find('*', { cwd: dir, signal: AbortSignal.abort(), policy: () => { asked++; return 'allow' } }), 'aborted')
    assert.match(err.message, /aborted/)
    assert.equal(asked, 0)
  })

  test('invalid options win over an aborted signal (validation comes first)', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await rejectsWith(find('*', { cwd: dir, limit: -1, signal: AbortSignal.abort() }), 'invalid-argument', '`limit`')
  })

  test('abort while the policy is still deciding rejects with aborted promptly', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const ac = new AbortController()
    let approveCalls = 0
    const start = performance.now()
    const pending = find('*', {
      cwd: dir,
      signal: ac.signal,
      policy: () => sleep(2000).then(() => 'require_approval'),
      approve: () => { approveCalls++; return true },
    })
    setTimeout(() => ac.abort(), 20)
    await rejectsWith(pending, 'aborted')
    assert.ok(performance.now() - start < 1000, 'did not wait for the slow policy')
    assert.equal(approveCalls, 0)
  })

  test('abort while approve is still deciding rejects with aborted', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const ac = new AbortController()
    const start = performance.now()
    const pending = find('*', {
      cwd: dir,
      signal: ac.signal,
      policy: () => 'require_approval',
      approve: () => sleep(2000).then(() => true),
    })
    setTimeout(() => ac.abort(), 20)
    await rejectsWith(pending, 'aborted')
    assert.ok(performance.now() - start < 1000, 'did not wait for the slow approve')
  })

  test('aborting after the search finished changes nothing', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const ac = new AbortController()
    const r = await find('*', { cwd: dir, signal: ac.signal })
    ac.abort()
    await sleep(5)
    assert.deepEqual(paths(r), ['a.txt'])
    assert.deepEqual(paths(await find('*', { cwd: dir, signal: new AbortController().signal })), ['a.txt'])
  })
})
