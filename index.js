'use strict'
// The public entry: wraps the generated binding where JS is the right place
// (argument forms, FindFilesError, AbortSignal, the policy callbacks, a
// host's storage reader).

const binding = loadBinding()
const { FindFilesError, invalid, abortedError, clip } = require('./js/errors.js')
const { isNonArrayObject } = require('./js/util.js')
const { adaptReader } = require('./js/readers/adapter.js')
const { memoryReader } = require('./js/readers/memory.js')
const { mountReader } = require('./js/readers/mount.js')

function loadBinding() {
  try {
    return require('./binding.js')
  } catch (cause) {
    throw new Error(loadErrorMessage(cause), { cause })
  }
}

/** This machine as napi-rs names platforms: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`. */
function platformName() {
  const { platform, arch } = process
  let abi = ''
  if (platform === 'linux') {
    const glibc = process.report && process.report.getReport().header.glibcVersionRuntime
    abi = glibc ? '-gnu' : '-musl'
  } else if (platform === 'win32') {
    abi = '-msvc'
  }
  return `${platform}-${arch}${abi}`
}

/** The platforms with a prebuilt package, from `napi.targets` (Rust target triples). */
function prebuiltPlatforms() {
  try {
    const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32', freebsd: 'freebsd', android: 'android' }
    const ARCH = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' }
    return require('./package.json').napi.targets.map((triple) => {
      const [cpu, , os, env] = triple.split('-')
      const name = `${OS[os] || os}-${ARCH[cpu] || cpu}`
      return env ? `${name}-${env.replace(/eabihf$/, '')}` : name
    })
  } catch {
    return undefined
  }
}

function loadErrorMessage(cause) {
  const target = platformName()
  const prebuilt = prebuiltPlatforms()
  const why = `Cause: ${cause && cause.message}`
  if (prebuilt && !prebuilt.includes(target)) {
    return (
      `agent-find: no prebuilt binary for this platform (${target}); there are packages for ${prebuilt.join(', ')}. ` +
      `Build it from source (needs Rust): \`npm run build\` in the agent-find package folder. ${why}`
    )
  }
  return (
    `agent-find: no native binary loads on this platform (${target}). ` +
    `Install the prebuilt package for it (npm install agent-find-${target}); npm skips it when ` +
    `optional dependencies are omitted or the lockfile was made on another platform. ` +
    `Or build from source with \`npm run build\` (needs Rust). ${why}`
  )
}

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
  const { signal, policy, approve, reader, ...native } = options
  if (signal !== undefined && signal !== null &&
      !(typeof signal === 'object' && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function')) {
    throw invalid('`signal` must be an AbortSignal')
  }
  for (const [name, fn] of [['policy', policy], ['approve', approve]]) {
    if (fn !== undefined && fn !== null && typeof fn !== 'function') throw invalid(`\`${name}\` must be a function`)
  }
  if (native.modifiedSince instanceof Date) native.modifiedSince = native.modifiedSince.getTime()
  const storage = reader === undefined || reader === null ? undefined : adaptReader(reader)
  return { signal: signal || undefined, policy: policy || undefined, approve: approve || undefined, storage, native }
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
      `approval required: ${request.tool} requires application approval for \`${clip(request.path)}\` before execution`,
    )
  }
  throw new FindFilesError('permission-denied', `permission denied: ${request.tool} is not allowed for \`${clip(request.path)}\``)
}

const KINDS = ['file', 'dir', 'symlink']

/** Builds entry objects from a slice of columns (see EntrySlice in src/lib.rs). */
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

/** The FindResult, with its keys in the contract's order. */
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

async function runPlan(tool, purpose, options, index) {
  const { signal, policy, approve, storage, native } = splitOptions(options)
  if (index && storage) throw invalid('an index searches its own folder: pass `reader` to find(), not to an index')
  const plan = new binding.Plan(native, purpose, storage, index)
  const refused = plan.error
  if (refused) throw new FindFilesError(refused.code, refused.message)
  if (signal && signal.aborted) throw abortedError()
  await checkPolicy(policy, approve, { tool, operation: 'search_files', path: plan.path }, signal)
  if (signal && signal.aborted) throw abortedError()
  const onAbort = () => plan.cancel()
  if (signal) signal.addEventListener('abort', onAbort, { once: true })
  try {
    // A call waiting for a walk slot still rejects as soon as it is aborted.
    const out = await untilAborted(plan.run(), signal)
    if (out.error) throw new FindFilesError(out.error.code, out.error.message)
    return out
  } finally {
    if (signal) signal.removeEventListener('abort', onAbort)
  }
}

/** The model text of a `find`, rendered natively (no object per entry): for the CLI. */
async function findText(options) {
  return (await runPlan('find', 'findText', callOptions(options))).text
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
 * A live index of one folder: the same calls as the module's, answered from
 * memory and kept exact by file-system events. `cwd` defaults to its folder;
 * a `path` outside it is `outside-root`.
 */
class FileIndex {
  #native
  #searches

  constructor(native) {
    this.#native = native
    this.#searches = searches(native)
  }

  /** The indexed folder. */
  get path() {
    return this.#native.path
  }

  find(first, second) {
    return this.#searches.find(first, second)
  }

  findFiles(pattern, path, more) {
    return this.#searches.findFiles(pattern, path, more)
  }

  searchFiles(options) {
    return this.#searches.searchFiles(options)
  }

  /** Counts and sizes; `closed: true` once closed. */
  stats() {
    return this.#native.stats()
  }

  /** Resolves once every change made before the call is reflected. */
  async settled() {
    const failure = await this.#native.settled()
    if (failure) throw new FindFilesError(failure.code, failure.message)
  }

  /** Releases every watcher and the index's thread; later calls reject. */
  async close() {
    this.#native.close()
  }
}

/** `openIndex(path, { cwd }?)`: walks the folder once, then watches it. */
async function openIndex(path, options = {}) {
  if (typeof path !== 'string' || path === '') throw invalid('openIndex(path) takes the folder to index, as a non-empty string')
  if (!isNonArrayObject(options)) throw invalid('openIndex(path, options) takes an options object such as { cwd }')
  for (const key of Object.keys(options)) {
    if (key !== 'cwd') throw invalid(`openIndex: unknown option \`${key}\`; the only option is \`cwd\``)
  }
  if (options.cwd !== undefined && (typeof options.cwd !== 'string' || options.cwd === '')) {
    throw invalid('openIndex: `cwd` must be a non-empty path')
  }
  const native = new binding.FileIndex()
  const failure = await native.open(path, options.cwd)
  if (failure) throw new FindFilesError(failure.code, failure.message)
  return new FileIndex(native)
}

/** Renders with the native formatter, turning a malformed result into `invalid-argument`. */
function formatWith(render, name, kind, result) {
  if (!isNonArrayObject(result)) throw invalid(`${name}(result) takes the ${kind} that was returned`)
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

const core = {
  find, findFiles, searchFiles, formatFindResult, formatSearchResult, FindFilesError, memoryReader, mountReader, openIndex,
}
const { toolDefinitions, openaiTool, anthropicTool, vercelTool, createTools } = require('./tools.js').bind({ ...core, findFilesWith })

module.exports = { ...core, toolDefinitions, openaiTool, anthropicTool, vercelTool, createTools }
// Internal, for bin/agent-find.js: not part of the public surface.
Object.defineProperty(module.exports, 'findText', { value: findText, enumerable: false })
