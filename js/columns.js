'use strict'
// Decodes what a search hands back from the binding: entries and paths come
// as columnar slices (see EntrySlice in napi/src/columns.rs), a small first one
// with the answer and the rest taken slice by slice; this builds the
// FindResult (entry objects) and the findFiles path list from them.
//
// Every call's slices go through one queue that works for at most
// BUDGET_MS per turn of the event loop, then yields (setImmediate): with
// many calls answering at once, a turn per call and slice would still run
// them all back to back in one turn (200 calls, 150-230 ms), while the
// queue keeps every turn short whatever the number of calls. The queue
// finishes the oldest call first, so answers arrive in order and each call
// holds its half-built result for as little time as it can.

const { performance } = require('node:perf_hooks')

// The kinds in code order, from the one table in the binding.
const KINDS = require('./native.js').entryKinds()

/** The most time the decoding takes per turn of the event loop, in ms. */
const BUDGET_MS = 4

/** Builds entry objects from a slice of columns (see EntrySlice in napi/src/columns.rs). */
function addEntries(slice, entries) {
  if (slice.count === 0) return
  const start = entries.length
  const paths = slice.paths.split('\0')
  const { kinds, sizes, mtimes } = slice
  for (let i = 0; i < slice.count; i++) {
    entries.push({ path: paths[i], type: KINDS[kinds[i]], size: sizes[i], mtimeMs: mtimes[i] })
  }
  // Names that are not valid UTF-8: `path` is lossy, `pathBytes` exact.
  for (const { index, bytes } of slice.raw) entries[start + index].pathBytes = bytes
}

function addPaths(slice, paths) {
  if (slice.count > 0) for (const p of slice.paths.split('\0')) paths.push(p)
}

/** Calls waiting to decode, oldest first: `{ step, resolve, reject }`, `step()` true when done. */
const queue = []
let draining = false

function drain() {
  const end = performance.now() + BUDGET_MS
  while (queue.length > 0 && performance.now() < end) {
    const job = queue[0]
    let done
    try {
      done = job.step()
    } catch (err) {
      queue.shift()
      job.reject(err)
      continue
    }
    if (done) {
      queue.shift()
      job.resolve()
    }
  }
  if (queue.length > 0) setImmediate(drain)
  else draining = false
}

/** Runs `step` (one slice a call) in the shared queue until it returns true. */
function decode(step) {
  return new Promise((resolve, reject) => {
    queue.push({ step, resolve, reject })
    if (!draining) {
      draining = true
      setImmediate(drain)
    }
  })
}

/** Decodes `first`, then takes the rest slice by slice, all in the queue. */
function decodeAll(first, takeSlice, add) {
  let next = first
  return decode(() => {
    if (next) add(next)
    next = takeSlice ? takeSlice() : undefined
    return !next || next.count === 0
  })
}

/** The FindResult, with its keys in the order docs/API.md shows. */
async function findResult(out) {
  const { first, path, matched, truncated, truncatedBy, notice, hint, omitted, skipped, gitStatus } = out.result
  const entries = []
  if (out.remaining || first.count > 0) {
    await decodeAll(first, out.remaining && (() => out.remaining.takeEntries()), (slice) => addEntries(slice, entries))
  }
  const result = { path, entries, matched, truncated }
  if (truncatedBy !== undefined) result.truncatedBy = truncatedBy
  if (notice !== undefined) result.notice = notice
  if (hint !== undefined) result.hint = hint
  if (omitted !== undefined) result.omitted = omitted
  if (skipped !== undefined) result.skipped = skipped
  if (gitStatus !== undefined) result.gitStatus = gitStatus
  return result
}

async function allPaths(out) {
  const paths = []
  if (out.remaining || out.paths.count > 0) {
    await decodeAll(out.paths, out.remaining && (() => out.remaining.takePaths()), (slice) => addPaths(slice, paths))
  }
  return paths
}

module.exports = { findResult, allPaths }
