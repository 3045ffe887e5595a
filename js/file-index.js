'use strict'
// `openIndex` and the FileIndex it opens: a live index of one folder, kept
// by the binding, answering `find`, `findFiles` and `searchFiles`.

const nodePath = require('node:path')
const binding = require('./native.js')
const { FindFilesError, invalid } = require('./errors.js')
const { describe, isNonArrayObject } = require('./util.js')
const { searches } = require('./search.js')

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

  /**
   * Releases every watcher, the index's thread, its tree and the folder's
   * descriptor; later calls reject.
   */
  async close() {
    await this.#native.close()
  }
}

/** The options `openIndex` takes. */
const OPEN_OPTIONS = ['cwd', 'contentCacheBytes', 'cacheDir', 'persist', 'maxEntries', 'threads', 'watcher', 'pollIntervalMs']
const WATCHERS = ['native', 'recursive', 'poll']
/** How often `watcher: 'poll'` looks at the folder again unless told. */
const DEFAULT_POLL_INTERVAL_MS = 2000

/** `openIndex(path, { cwd, contentCacheBytes, cacheDir, persist, maxEntries, threads, watcher, pollIntervalMs }?)`: walks the folder once, then watches it. */
async function openIndex(path, options = {}) {
  if (typeof path !== 'string' || path === '') throw invalid('openIndex(path) takes the folder to index, as a non-empty string')
  if (!isNonArrayObject(options)) throw invalid('openIndex(path, options) takes an options object such as { cwd }')
  for (const key of Object.keys(options)) {
    if (!OPEN_OPTIONS.includes(key)) {
      const names = OPEN_OPTIONS.map((o) => `\`${o}\``)
      throw invalid(`openIndex: unknown option \`${key}\`; the options are ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`)
    }
  }
  if (options.cwd !== undefined && (typeof options.cwd !== 'string' || options.cwd === '')) {
    throw invalid('openIndex: `cwd` must be a non-empty path')
  }
  const cache = options.contentCacheBytes
  if (cache !== undefined && !(typeof cache === 'number' && Number.isSafeInteger(cache) && cache >= 0)) {
    throw invalid(
      `openIndex: \`contentCacheBytes\` must be a whole number of bytes, 0 or more (0 keeps no file contents in memory), not ${describe(cache)}`,
    )
  }
  if (options.cacheDir !== undefined && (typeof options.cacheDir !== 'string' || options.cacheDir === '')) {
    throw invalid('openIndex: `cacheDir` must be a non-empty path (the folder its saved sketches go to)')
  }
  if (options.persist !== undefined && typeof options.persist !== 'boolean') {
    throw invalid(`openIndex: \`persist\` must be true or false, not ${describe(options.persist)}`)
  }
  const { maxEntries, threads, watcher = 'native', pollIntervalMs } = options
  if (maxEntries !== undefined && !(Number.isSafeInteger(maxEntries) && maxEntries >= 1)) {
    throw invalid(`openIndex: \`maxEntries\` must be a whole number of entries, at least 1, not ${describe(maxEntries)}`)
  }
  if (threads !== undefined && !(Number.isSafeInteger(threads) && threads >= 1 && threads <= 256)) {
    throw invalid(`openIndex: \`threads\` must be a whole number from 1 to 256, not ${describe(threads)}`)
  }
  if (!WATCHERS.includes(watcher)) {
    throw invalid(`openIndex: \`watcher\` must be 'native', 'recursive' or 'poll', not ${describe(watcher)}`)
  }
  if (pollIntervalMs !== undefined && watcher !== 'poll') {
    throw invalid("openIndex: `pollIntervalMs` is the interval of `watcher: 'poll'`; give both or neither")
  }
  if (pollIntervalMs !== undefined && !(Number.isSafeInteger(pollIntervalMs) && pollIntervalMs >= 10 && pollIntervalMs <= 3_600_000)) {
    throw invalid(`openIndex: \`pollIntervalMs\` must be a whole number of ms from 10 to 3600000, not ${describe(pollIntervalMs)}`)
  }
  const cacheDir = options.cacheDir === undefined ? undefined : nodePath.resolve(options.cwd ?? process.cwd(), options.cacheDir)
  const native = new binding.FileIndex()
  const poll = watcher === 'poll' ? pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS : undefined
  const failure = await native.open(path, options.cwd, {
    contentCacheBytes: cache, cacheDir, persist: options.persist !== false, maxEntries, threads, watcher, pollIntervalMs: poll,
  })
  if (failure) throw new FindFilesError(failure.code, failure.message)
  return new FileIndex(native)
}

module.exports = { openIndex, FileIndex }
