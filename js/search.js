'use strict'
// The search calls: `find`, `findFiles` and `searchFiles` in their argument
// forms, on the disk (or a host's `reader`) or from a live index; the
// options split into what only JS holds (signal, policy, approve, reader) and
// the plain data for Rust; and the internal `findFilesWith` (for createTools).

const nodePath = require('node:path')
const binding = require('./native.js')
const { FindFilesError, invalid, abortedError } = require('./errors.js')
const { describe, isNonArrayObject } = require('./util.js')
const { checkPolicy, deadlineOf, untilAborted } = require('./policy.js')
const { findResult, allPaths } = require('./columns.js')
const { adaptReader, insideReader } = require('./readers/adapter.js')

/** `find(options)` or `find(pattern, options?)` → one options object. */
function callOptions(first, second) {
  if (typeof first === 'string') {
    if (second !== undefined && second !== null && !isNonArrayObject(second)) {
      throw invalid('the second argument of find(pattern, options) must be an options object')
    }
    return { ...(second || {}), pattern: first }
  }
  if (isNonArrayObject(first)) return first
  throw invalid("find() takes an options object such as { pattern: '**/*.ts' }, or a pattern string and options")
}

/** Splits off what only JS can hold; the rest goes to Rust as plain data. */
function splitOptions(options) {
  const { signal, policy, approve, reader, priority, ...native } = options
  if (signal !== undefined && signal !== null &&
      !(typeof signal === 'object' && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function')) {
    throw invalid('`signal` must be an AbortSignal')
  }
  for (const [name, fn] of [['policy', policy], ['approve', approve]]) {
    if (fn !== undefined && fn !== null && typeof fn !== 'function') throw invalid(`\`${name}\` must be a function`)
  }
  if (priority !== undefined && priority !== null && priority !== 'normal' && priority !== 'low') {
    throw invalid(`\`priority\` must be 'normal' or 'low', not ${describe(priority)}`)
  }
  if (native.modifiedSince instanceof Date) native.modifiedSince = native.modifiedSince.getTime()
  const storage = reader === undefined || reader === null ? undefined : adaptReader(reader)
  return { signal: signal || undefined, policy: policy || undefined, approve: approve || undefined, storage, native, low: priority === 'low' }
}

async function runPlan(tool, purpose, options, index) {
  const { signal, policy, approve, storage, native, low } = splitOptions(options)
  if (index && storage) throw invalid('an index searches its own folder: pass `reader` to find(), not to an index')
  // timeoutMs counts from here: the policy and approve are part of the call (the plan counts from its making too).
  const deadline = deadlineOf(native.timeoutMs)
  const plan = new binding.Plan(native, purpose, storage, index, low)
  // Validating compiles the patterns: on the blocking pool, never on the event loop.
  await plan.prepare()
  const refused = plan.error
  if (refused) throw new FindFilesError(refused.code, refused.message)
  if (signal && signal.aborted) throw abortedError()
  await checkPolicy(policy, approve, { tool, operation: 'search_files', path: plan.path }, signal, deadline)
  if (signal && signal.aborted) throw abortedError()
  const onAbort = () => plan.cancel()
  if (signal) signal.addEventListener('abort', onAbort, { once: true })
  try {
    // A call waiting for a walk slot still rejects as soon as it is aborted (and frees
    // its place: the plan is cancelled, so it ends at once if it gets a slot later).
    // A search started by a reader's own code takes no reader slot (see readers/adapter.js).
    const out = await untilAborted(plan.run(insideReader()), signal)
    if (out.error) throw new FindFilesError(out.error.code, out.error.message)
    return out
  } finally {
    if (signal) signal.removeEventListener('abort', onAbort)
  }
}

/** findFiles with a whole options object (cwd, roots, policy...): for createTools. */
async function findFilesWith(options) {
  return allPaths(await runPlan('find_files', 'findFiles', options))
}

/** `findFiles(pattern, path?, options?)` or `findFiles(pattern, options?)` as one options object. */
function findFilesOptions(pattern, path, more) {
  if (typeof pattern !== 'string') throw invalid('findFiles(pattern, path?, options?) takes a glob string as `pattern`')
  if (isNonArrayObject(path) && more === undefined) [path, more] = [undefined, path]
  if (more !== undefined && more !== null && !isNonArrayObject(more)) {
    throw invalid('the last argument of findFiles(pattern, path?, options?) must be an options object')
  }
  const options = { ...(more || {}), pattern }
  if (path !== undefined) options.path = path
  return options
}

function searchOptions(options) {
  if (!isNonArrayObject(options)) {
    throw invalid("searchFiles() takes an options object such as { pattern: 'TODO', fileGlob: '*.py' }")
  }
  return options
}

/**
 * `find`, `findFiles` and `searchFiles`, on the disk (or a `reader`) when
 * `index` is undefined, else from that live index.
 */
function searches(index) {
  return {
    find: async (first, second) => findResult(await runPlan('find', 'find', callOptions(first, second), index)),
    findFiles: async (pattern, path, more) =>
      allPaths(await runPlan('find_files', 'findFiles', findFilesOptions(pattern, path, more), index)),
    searchFiles: async (options) => (await runPlan('search_files', 'search', searchOptions(options), index)).search,
  }
}

const { find, findFiles, searchFiles } = searches(undefined)

/**
 * `explain(path, options?)`: why `path` (relative to `cwd`, or absolute) is or
 * is not in the results of `find(options)`; with no `pattern`, only the walk's
 * rules and the filters decide.
 */
async function explain(target, options) {
  if (typeof target !== 'string' || target === '') {
    throw invalid("explain(path, options?) takes the path to explain as a non-empty string, such as 'build/out.js'")
  }
  if (options !== undefined && options !== null && !isNonArrayObject(options)) {
    throw invalid('the second argument of explain(path, options) must be an options object (find\'s options)')
  }
  const opts = { ...(options || {}) }
  if (opts.reader !== undefined && opts.reader !== null) {
    throw invalid('`explain` reads the local disk; it does not take a `reader`: drop `reader`, or call find() on the reader to see what it lists')
  }
  const cwd = typeof opts.cwd === 'string' && opts.cwd !== '' ? opts.cwd : '.'
  opts.explain = nodePath.resolve(cwd, target)
  return (await runPlan('explain_path', 'explain', opts)).explanation
}

module.exports = { find, findFiles, searchFiles, explain, searches, findFilesWith }
