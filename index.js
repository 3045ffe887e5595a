'use strict'
// The public entry: wraps the generated binding where JS is the right place
// (argument forms, FindFilesError, AbortSignal, the policy callbacks).

const binding = loadBinding()

const CODES = [
  'invalid-argument', 'invalid-pattern', 'not-found', 'not-a-dir', 'permission-denied',
  'approval-required', 'outside-root', 'aborted', 'fs-error',
]

class FindFilesError extends Error {
  constructor(code, message, options) {
    super(message, options)
    this.name = 'FindFilesError'
    this.code = CODES.includes(code) ? code : 'fs-error'
  }
}

function loadBinding() {
  try {
    return require('./binding.js')
  } catch (cause) {
    const { platform, arch } = process
    let abi = ''
    if (platform === 'linux') {
      const glibc = process.report && process.report.getReport().header.glibcVersionRuntime
      abi = glibc ? '-gnu' : '-musl'
    } else if (platform === 'win32') {
      abi = '-msvc'
    }
    const target = `${platform}-${arch}${abi}`
    throw new Error(
      `agent-find: no native binary loads on this platform (${target}). ` +
        `Install the prebuilt package for it (npm install agent-find-${target}), ` +
        `or build from source with \`npm run build\` (needs Rust). Cause: ${cause && cause.message}`,
      { cause },
    )
  }
}

function invalid(message) {
  return new FindFilesError('invalid-argument', message)
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** `find(options)` or `find(pattern, options?)` → one options object. */
function callOptions(first, second) {
  if (typeof first === 'string') {
    if (second !== undefined && second !== null && !isPlainObject(second)) {
      throw invalid('the second argument of find(pattern, options) must be an options object')
    }
    return { ...(second || {}), pattern: first }
  }
  if (isPlainObject(first)) return first
  throw invalid("find() takes an options object such as { pattern: '**/*.ts' }, or a pattern string and options")
}

/** Splits off what only JS can hold; the rest goes to Rust as plain data. */
function splitOptions(options) {
  const { signal, policy, approve, ...native } = options
  if (signal !== undefined && signal !== null &&
      !(typeof signal === 'object' && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function')) {
    throw invalid('`signal` must be an AbortSignal')
  }
  for (const [name, fn] of [['policy', policy], ['approve', approve]]) {
    if (fn !== undefined && fn !== null && typeof fn !== 'function') throw invalid(`\`${name}\` must be a function`)
  }
  if (native.modifiedSince instanceof Date) native.modifiedSince = native.modifiedSince.getTime()
  return { signal: signal || undefined, policy: policy || undefined, approve: approve || undefined, native }
}

function abortedError() {
  return new FindFilesError('aborted', 'the search was aborted before it finished')
}

/** Resolves as `promise` does, or rejects with `aborted` when `signal` fires first. */
function untilAborted(promise, signal) {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(abortedError())
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError())
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Asks `policy` (and `approve`) before anything is touched; throws unless allowed. */
async function checkPolicy(policy, approve, request, signal) {
  if (!policy) return
  let decision
  try {
    decision = await untilAborted(Promise.resolve().then(() => policy({ ...request })), signal)
  } catch (err) {
    if (err instanceof FindFilesError && err.code === 'aborted') throw err
    decision = 'deny'
  }
  if (decision === 'allow') return
  if (decision === 'require_approval') {
    let approved = false
    if (approve) {
      try {
        approved = (await untilAborted(Promise.resolve().then(() => approve({ ...request })), signal)) === true
      } catch (err) {
        if (err instanceof FindFilesError && err.code === 'aborted') throw err
      }
    }
    if (approved) return
    throw new FindFilesError(
      'approval-required',
      `approval required: ${request.tool} requires application approval for \`${request.path}\` before execution`,
    )
  }
  throw new FindFilesError('permission-denied', `permission denied: ${request.tool} is not allowed for \`${request.path}\``)
}

async function runPlan(tool, purpose, options) {
  const { signal, policy, approve, native } = splitOptions(options)
  const plan = new binding.Plan(native, purpose)
  const refused = plan.error
  if (refused) throw new FindFilesError(refused.code, refused.message)
  if (signal && signal.aborted) throw abortedError()
  await checkPolicy(policy, approve, { tool, operation: 'search_files', path: plan.path }, signal)
  if (signal && signal.aborted) throw abortedError()
  const onAbort = () => plan.cancel()
  if (signal) signal.addEventListener('abort', onAbort, { once: true })
  try {
    const out = await plan.run()
    if (out.error) throw new FindFilesError(out.error.code, out.error.message)
    return out
  } finally {
    if (signal) signal.removeEventListener('abort', onAbort)
  }
}

async function find(first, second) {
  const out = await runPlan('find', 'find', callOptions(first, second))
  return out.result
}

async function findFiles(pattern, path) {
  if (typeof pattern !== 'string') throw invalid('findFiles(pattern, path?) takes a glob string as `pattern`')
  const options = { pattern }
  if (path !== undefined) options.path = path
  const out = await runPlan('find_files', 'findFiles', options)
  return out.paths
}

async function searchFiles(options) {
  if (!isPlainObject(options)) {
    throw invalid("searchFiles() takes an options object such as { pattern: 'TODO', fileGlob: '*.py' }")
  }
  const out = await runPlan('search_files', 'search', options)
  return out.search
}

/** Renders with the native formatter, turning a malformed result into `invalid-argument`. */
function formatWith(render, name, kind, result) {
  if (!isPlainObject(result)) throw invalid(`${name}(result) takes the ${kind} that was returned`)
  try {
    return render(result)
  } catch (cause) {
    throw new FindFilesError('invalid-argument', `${name}: not a ${kind} (${cause.message})`, { cause })
  }
}

function formatFindResult(result) {
  return formatWith(binding.formatFindResult, 'formatFindResult', 'FindResult', result)
}

function formatSearchResult(result) {
  return formatWith(binding.formatSearchResult, 'formatSearchResult', 'SearchResult', result)
}

module.exports = { find, findFiles, searchFiles, formatFindResult, formatSearchResult, FindFilesError }
