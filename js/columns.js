'use strict'
// Decodes what a search hands back from the binding: entries and paths come
// as columnar slices (see EntrySlice in napi/src/lib.rs), the first with the
// answer and the rest taken slice by slice; this builds the FindResult
// (entry objects) and the findFiles path list from them.

// The kinds in code order, from the one table in the binding.
const KINDS = require('./native.js').entryKinds()

/** Builds entry objects from a slice of columns (see EntrySlice in napi/src/lib.rs). */
function addEntries(slice, entries) {
  if (slice.count === 0) return
  const start = entries.length
  const paths = slice.paths.split('\0')
  for (let i = 0; i < slice.count; i++) {
    entries.push({ path: paths[i], type: KINDS[slice.kinds[i]], size: slice.sizes[i], mtimeMs: slice.mtimes[i] })
  }
  // Names that are not valid UTF-8: `path` is lossy, `pathBytes` exact.
  for (const { index, bytes } of slice.raw) entries[start + index].pathBytes = bytes
}

function addPaths(slice, paths) {
  if (slice.count > 0) for (const p of slice.paths.split('\0')) paths.push(p)
}

/** Takes the rest of a large answer slice by slice, a turn of the event loop apart. */
async function takeRest(takeSlice, add) {
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve))
    const slice = takeSlice()
    if (slice.count === 0) return
    add(slice)
  }
}

/** The FindResult, with its keys in the order docs/API.md shows. */
async function findResult(out) {
  const { first, path, matched, truncated, truncatedBy, notice, hint, omitted } = out.result
  const entries = []
  addEntries(first, entries)
  if (out.remaining) await takeRest(() => out.remaining.takeEntries(), (slice) => addEntries(slice, entries))
  const result = { path, entries, matched, truncated }
  if (truncatedBy !== undefined) result.truncatedBy = truncatedBy
  if (notice !== undefined) result.notice = notice
  if (hint !== undefined) result.hint = hint
  if (omitted !== undefined) result.omitted = omitted
  return result
}

async function allPaths(out) {
  const paths = []
  addPaths(out.paths, paths)
  if (out.remaining) await takeRest(() => out.remaining.takePaths(), (slice) => addPaths(slice, paths))
  return paths
}

module.exports = { findResult, allPaths }
