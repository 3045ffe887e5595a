'use strict'
// Hands a host's storage reader to the native core: checks its shape once,
// and wraps list/stat/read so that every call resolves (never rejects) with
// plain data the core copies in one step: a listing as columns, a failure as
// `{ code, message }` (Node's error codes: ENOENT, ENOTDIR, EACCES, ...).
// Each call runs in an async context that marks it as a reader's call, so a
// search the reader's own code starts (`insideReader`) takes no walk slot:
// it must not wait behind the walk that is waiting for it.

const { AsyncLocalStorage } = require('node:async_hooks')

const { invalid } = require('../errors.js')

const native = require('../native.js')

// A kind's code is its index in the binding's table, as Rust reads it.
const TYPE_CODES = new Map(native.entryKinds().map((kind, code) => [kind, code]))
const DEFAULT_CONCURRENCY = 32
const MAX_CONCURRENCY = native.MAX_READER_CONCURRENCY
const MAX_MESSAGE = 500

/** An answer of the wrong shape: the call fails with `fs-error` and this message. */
function badReply(message) {
  return Object.assign(new Error(message), { code: 'EBADREPLY' })
}

/**
 * A wrong value, for this module's messages: a string is quoted in single
 * quotes and cut to 40 characters, anything else is named by its type. Not
 * util.js's `describe`, whose messages differ (`the string "x"`, `the number 5`).
 */
function describeBriefly(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'string' ? `the string '${value.slice(0, 40)}'` : `a value of type ${typeof value}`
}

function failure(err) {
  const code = err !== null && typeof err === 'object' && typeof err.code === 'string' ? err.code : 'EREADER'
  let message = String(err !== null && typeof err === 'object' && 'message' in err ? err.message : err)
  if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE)}…`
  return { code, message }
}

const readerCalls = new AsyncLocalStorage()

/** Whether the code running now was started by a reader's call (its list, stat or read). */
function insideReader() {
  return readerCalls.getStore() === true
}

/** Runs one reader call; its answer shaped by `shape`, or a failure. */
function settle(call, shape) {
  return readerCalls.run(true, () => Promise.resolve().then(call)).then(shape).then(undefined, failure)
}

function typeCode(type, what) {
  const code = TYPE_CODES.get(type)
  if (code === undefined) throw badReply(`${what} has type ${describeBriefly(type)}; it must be 'file', 'dir' or 'symlink'`)
  return code
}

function byteCount(size, what) {
  if (size === undefined || size === null) return 0
  if (typeof size === 'number' && size >= 0 && Number.isFinite(size)) return size
  throw badReply(`${what} has size ${describeBriefly(size)}; it must be a number of bytes, 0 or more, or be left out`)
}

function epochMs(time, what) {
  if (time === undefined || time === null) return 0
  if (time instanceof Date) time = time.getTime()
  if (typeof time === 'number' && Number.isFinite(time)) return time
  throw badReply(`${what} has modifiedTime ${describeBriefly(time)}; it must be a Date or epoch milliseconds, or be left out`)
}

function columns(entries, dir) {
  if (!Array.isArray(entries)) {
    throw badReply(`reader.list('${dir}') resolved with ${describeBriefly(entries)}, not an array of { name, type, size?, modifiedTime? }`)
  }
  const n = entries.length
  const names = new Array(n)
  const kinds = new Uint8Array(n)
  const sizes = new Float64Array(n)
  const mtimes = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const entry = entries[i]
    if (entry === null || typeof entry !== 'object' || typeof entry.name !== 'string') {
      throw badReply(`reader.list('${dir}') gave ${describeBriefly(entry)} at index ${i}; each entry must be { name: string, type, ... }`)
    }
    const what = `reader.list('${dir}'): entry '${entry.name.slice(0, 100)}'`
    names[i] = entry.name
    kinds[i] = typeCode(entry.type, what)
    sizes[i] = byteCount(entry.size, what)
    mtimes[i] = epochMs(entry.modifiedTime, what)
  }
  return { names: names.join('\0'), kinds, sizes, mtimes }
}

function statReply(stat, path) {
  if (stat === null || typeof stat !== 'object') {
    throw badReply(`reader.stat('${path}') resolved with ${describeBriefly(stat)}, not { type, size?, modifiedTime? }`)
  }
  const what = `reader.stat('${path}')`
  return { type: typeCode(stat.type, what), size: byteCount(stat.size, what), mtime: epochMs(stat.modifiedTime, what) }
}

function readReply(data, path) {
  if (typeof data === 'string') return { data: Buffer.from(data, 'utf8') }
  if (data instanceof Uint8Array) return { data }
  if (data instanceof ArrayBuffer) return { data: new Uint8Array(data) }
  throw badReply(`reader.read('${path}') resolved with ${describeBriefly(data)}, not a Uint8Array or a string`)
}

/** A ranged read's answer: at most `length` bytes. */
function rangeReply(data, path, offset, length) {
  const reply = readReply(data, path)
  if (reply.data.length > length) {
    throw badReply(`reader.read('${path}', { offset: ${offset}, length: ${length} }) resolved with ${reply.data.length} bytes; a ranged read returns at most \`length\` bytes (fewer only where the file ends)`)
  }
  return reply
}

/**
 * The reader as the native core takes it. Throws `invalid-argument` when
 * `reader` is not a reader.
 */
function adaptReader(reader) {
  if (reader === null || typeof reader !== 'object') {
    throw invalid('`reader` must be an object with list(dir) and stat(path) methods (and read(path) for contents)')
  }
  for (const name of ['list', 'stat']) {
    if (typeof reader[name] !== 'function') throw invalid(`\`reader.${name}\` must be a function; got ${describeBriefly(reader[name])}`)
  }
  if (reader.read !== undefined && typeof reader.read !== 'function') {
    throw invalid(`\`reader.read\` must be a function when present; got ${describeBriefly(reader.read)}`)
  }
  const concurrency = reader.concurrency === undefined ? DEFAULT_CONCURRENCY : reader.concurrency
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw invalid(`\`reader.concurrency\` must be a whole number from 1 to ${MAX_CONCURRENCY}; got ${describeBriefly(concurrency)}`)
  }
  const noRead = (path) => ({
    code: 'ENOREAD',
    message: `the reader has no read(path), which is needed for '${path}' (contents, and ignore files unless gitignore: false)`,
  })
  if (reader.mounted !== undefined && typeof reader.mounted !== 'boolean') {
    throw invalid(`\`reader.mounted\` must be a boolean when present; got ${describeBriefly(reader.mounted)}`)
  }
  if (reader.ranges !== undefined && typeof reader.ranges !== 'boolean') {
    throw invalid(`\`reader.ranges\` must be a boolean when present; got ${describeBriefly(reader.ranges)}`)
  }
  if (reader.ranges === true && !reader.read) {
    throw invalid('`reader.ranges` is true but the reader has no read(path, { offset, length })')
  }
  // The same object for every call of this search: a reader may keep per-search state by it.
  const search = Object.freeze({})
  return {
    concurrency,
    // Mounted: the search directory shows as a rooted path; plain: relative POSIX.
    mounted: reader.mounted === true,
    list: (dir) => settle(() => reader.list(dir, search), (entries) => columns(entries, dir)),
    stat: (path) => settle(() => reader.stat(path, search), (stat) => statReply(stat, path)),
    read: (path) =>
      reader.read ? settle(() => reader.read(path, undefined, search), (data) => readReply(data, path)) : Promise.resolve(noRead(path)),
    // Only for a reader whose read takes { offset, length }: the core then reads large files in chunks.
    readRange: reader.ranges === true
      ? (path, offset, length) => settle(() => reader.read(path, { offset, length }, search), (data) => rangeReply(data, path, offset, length))
      : undefined,
  }
}

module.exports = { adaptReader, insideReader, DEFAULT_CONCURRENCY }
