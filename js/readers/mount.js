'use strict'
// `mountReader`: a storage reader for `find({ reader })`, `findFiles` and
// `searchFiles` over local folders mounted at virtual paths, never reachable
// beyond them, local paths never shown. It takes only normalized absolute
// POSIX paths (see paths.js); any other path rejects with ENOENT. It
// never follows a symlink: `stat` reports one as `type: 'symlink'`, a path
// through one is ENOTDIR and reading one is ELOOP (EACCES when it leads out
// of its mount). It reads ranges (`read(path, { offset, length })`), so the
// core reads a large file in chunks and never holds it whole.

const fs = require('node:fs')
const nodePath = require('node:path')
const nodeUtil = require('node:util')

const { invalid } = require('../errors.js')
const { describe, pairsOf } = require('../util.js')
const { DESCRIPTIONS, fsError, isReaderFsError } = require('./fs-errors.js')
const { segmentsOf } = require('./paths.js')

/** The validated mounts, `[{ at: ['workspace'], local: '/abs/local' }]`. */
function mountsOf(mounts) {
  const pairs = pairsOf(mounts)
  if (!pairs) throw invalid(`mountReader(mounts) takes a plain object or a Map such as { '/workspace': '/home/me/project' }; got ${describe(mounts)}`)
  if (pairs.length === 0) throw invalid("mountReader: no mounts; give at least one, such as { '/workspace': '/home/me/project' }")
  const list = pairs.map(([key, local]) => {
    if (typeof key !== 'string') throw invalid(`mountReader: every mount point must be a string; got ${describe(key)}`)
    const at = segmentsOf(key.length > 1 && key.endsWith('/') ? key.slice(0, -1) : key)
    if (!at) {
      throw invalid(`mountReader: the mount point ${JSON.stringify(key)} must be an absolute POSIX path without '.', '..' or empty segments, such as '/workspace'`)
    }
    if (at.length === 0) throw invalid("mountReader: '/' cannot be a mount point; mount folders below it, such as '/workspace'")
    if (typeof local !== 'string' || local === '' || local.includes('\0')) {
      throw invalid(`mountReader: the local folder of ${JSON.stringify(key)} must be a non-empty path; got ${describe(local)}`)
    }
    return { at, name: `/${at.join('/')}`, local: nodePath.resolve(local) }
  })
  for (const a of list) {
    for (const b of list) {
      if (a !== b && a.at.length <= b.at.length && a.at.every((s, i) => s === b.at[i])) {
        throw invalid(`mountReader: the mount points ${JSON.stringify(a.name)} and ${JSON.stringify(b.name)} ${a.at.length === b.at.length ? 'are the same' : 'are nested'}; mount points must be disjoint`)
      }
    }
  }
  return list
}

/** Whether the local path `real` is `rootReal` or inside it. */
function within(rootReal, real) {
  const rel = nodePath.relative(rootReal, real)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${nodePath.sep}`) && !nodePath.isAbsolute(rel))
}

const TYPE_OF = (stats) => (stats.isFile() ? 'file' : stats.isDirectory() ? 'dir' : stats.isSymbolicLink() ? 'symlink' : null)

/**
 * A reader of local folders mounted at virtual paths:
 * `mountReader({ '/workspace': '/home/me/project' })`. A strict ancestor of
 * mount points lists the next components as folders; anything outside them
 * is ENOENT. A path whose real path (through symlinks) leaves its mount is
 * refused with EACCES; one through a symlink that stays inside, with
 * ENOTDIR (ELOOP to read the symlink itself), as memoryReader does: no
 * symlink is followed, so `roots`, checked on virtual paths as written,
 * cannot be left through one. Error messages name virtual paths only.
 *
 * One search sees one folder per mount: the first call of a search (the
 * `search` object the core passes, the same for all its calls) pins each
 * mount's folder by real path and identity (device, inode), and every later
 * call of that search, before and after its work, checks the folder is
 * still that one; if it was replaced (say, swapped for a symlink) or
 * removed, the call fails with ESTALE, which fails the search: never an
 * answer mixing two folders.
 *
 * Known limit: a folder below a mount swapped for a symlink between the
 * realpath check and `readdir` (or a file between the check and `open`,
 * which is made with O_NOFOLLOW) is followed once. The walk itself never
 * asks for such paths.
 */
function mountReader(mounts) {
  const table = mountsOf(mounts)
  /** Per search: the folder each mount was found at, `Map(mount → { real, dev, ino })`. */
  const pins = new WeakMap()

  /**
   * The real path of `mount`'s folder; for a search, the one it had at the
   * search's first call (ESTALE once it is another folder, or gone).
   */
  async function rootOf(op, path, mount, search) {
    let pinned = null
    if (search !== null && typeof search === 'object') {
      pinned = pins.get(search)
      if (!pinned) pins.set(search, (pinned = new Map()))
    }
    const was = pinned && pinned.get(mount)
    let real, stats
    try {
      real = await fs.promises.realpath(mount.local)
      stats = await fs.promises.stat(real)
    } catch (err) {
      if (was) throw replaced(op, path, mount)
      throw err
    }
    if (!pinned) return real
    if (!was) pinned.set(mount, { real, dev: stats.dev, ino: stats.ino })
    else if (was.real !== real || was.dev !== stats.dev || was.ino !== stats.ino) throw replaced(op, path, mount)
    return real
  }

  /** Where `path` leads: `{ mount, rest }` inside a mount, `{ children }` above some, or null. */
  function locate(path) {
    const segments = segmentsOf(path)
    // A segment holding the local separator (say '\' on Windows) would be two names locally.
    if (!segments || segments.some((s) => s.includes(nodePath.sep))) return null
    const children = new Set()
    for (const mount of table) {
      if (mount.at.length <= segments.length) {
        if (mount.at.every((s, i) => s === segments[i])) return { mount, rest: segments.slice(mount.at.length) }
      } else if (segments.every((s, i) => s === mount.at[i])) {
        children.add(mount.at[segments.length])
      }
    }
    return children.size ? { children } : null
  }

  /** The error of a local failure with its code, its message naming the virtual path. */
  function rewrite(err, op, path) {
    const code = typeof err?.code === 'string' ? err.code : 'EIO'
    const system = typeof err?.errno === 'number' ? nodeUtil.getSystemErrorMap().get(err.errno) : undefined
    return fsError(code, op, path, DESCRIPTIONS[code] || (system && system[1]))
  }

  /**
   * The real local path of `rest` in `mount`: refused with EACCES when it
   * leaves the mount, with ENOTDIR (or ELOOP, reading a symlink) when it
   * goes through a symlink at all.
   */
  async function realInside(op, path, mount, rest, search) {
    if (rest.length === 0) return rootOf(op, path, mount, search)
    // Both at once, but a replaced or removed mount is the error to report,
    // whichever of the two fails first.
    const [root, target] = await Promise.allSettled([
      rootOf(op, path, mount, search),
      fs.promises.realpath(nodePath.join(mount.local, ...rest)),
    ])
    if (root.status === 'rejected') throw root.reason
    if (target.status === 'rejected') throw target.reason
    const [rootReal, real] = [root.value, target.value]
    if (!within(rootReal, real)) throw fsError('EACCES', op, path, undefined, ' (it leads outside its mount)')
    const lexical = nodePath.join(rootReal, ...rest)
    if (real !== lexical) {
      const parent = nodePath.dirname(lexical)
      const last = op === 'read' && (await fs.promises.realpath(parent)) === parent
      throw fsError(last ? 'ELOOP' : 'ENOTDIR', op, path, undefined, ' (symlinks are not followed)')
    }
    return real
  }

  /**
   * Runs `fn(place)` for a path inside a mount, rewriting local errors to
   * virtual ones; for a search, checks afterwards that the mount's folder
   * was not replaced meanwhile (the answer might hold the other folder's).
   */
  async function inMount(op, path, search, fn) {
    const place = locate(path)
    if (!place) throw fsError('ENOENT', op, String(path))
    if (!place.mount) return fn(place)
    try {
      const answer = await fn(place)
      if (search !== null && typeof search === 'object') await rootOf(op, path, place.mount, search)
      return answer
    } catch (err) {
      if (isReaderFsError(err)) throw err
      // A local failure because the mount's folder went away mid-call is that, not ENOENT.
      if (search !== null && typeof search === 'object') {
        await rootOf(op, path, place.mount, search).catch((check) => {
          if (isReaderFsError(check)) throw check
        })
      }
      throw rewrite(err, op, path)
    }
  }

  async function entryAt(dirReal, name) {
    let stats
    try {
      stats = await fs.promises.lstat(nodePath.join(dirReal, name))
    } catch (err) {
      if (err.code === 'ENOENT') return null // vanished since readdir
      throw err
    }
    const type = TYPE_OF(stats)
    return type && { name, type, size: stats.size, modifiedTime: stats.mtimeMs }
  }

  return {
    // Its search directories show as rooted virtual paths (`/workspace/docs`).
    mounted: true,
    // read(path, { offset, length }) reads that part only: large files are searched in chunks.
    ranges: true,
    async list(dir, search) {
      return inMount('list', dir, search, async ({ mount, rest, children }) => {
        if (!mount) return [...children].map((name) => ({ name, type: 'dir' }))
        const real = await realInside('list', dir, mount, rest, search)
        const names = await fs.promises.readdir(real)
        return (await Promise.all(names.map((name) => entryAt(real, name)))).filter(Boolean)
      })
    },

    async stat(path, search) {
      return inMount('stat', path, search, async ({ mount, rest }) => {
        if (!mount) return { type: 'dir' }
        let stats
        if (rest.length === 0) {
          stats = await fs.promises.stat(await realInside('stat', path, mount, rest, search))
        } else {
          // The last component is not followed (a symlink is reported as one); its folder must stay inside.
          const parent = await realInside('stat', path, mount, rest.slice(0, -1), search)
          stats = await fs.promises.lstat(nodePath.join(parent, rest[rest.length - 1]))
        }
        const type = TYPE_OF(stats)
        if (!type) throw fsError('ENOENT', 'stat', path, undefined, ' (sockets, FIFOs and devices are not listed)')
        return { type, size: stats.size, modifiedTime: stats.mtimeMs }
      })
    },

    async read(path, range, search) {
      const part = range === undefined || range === null ? undefined : rangeOf(range)
      return inMount('read', path, search, async ({ mount, rest }) => {
        if (!mount) throw fsError('EISDIR', 'read', path)
        const real = await realInside('read', path, mount, rest, search)
        const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants
        // O_NONBLOCK: opening a FIFO does not wait for a writer; it is refused below.
        const handle = await fs.promises.open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        try {
          const stats = await handle.stat()
          if (stats.isDirectory()) throw fsError('EISDIR', 'read', path)
          if (!stats.isFile()) throw fsError('ENOENT', 'read', path, undefined, ' (sockets, FIFOs and devices are not listed)')
          if (part) return await readPart(handle, part, stats.size)
          return await handle.readFile()
        } finally {
          await handle.close()
        }
      })
    },
  }
}

/** The error of a call that finds its mount's folder replaced during the search. */
function replaced(op, path, mount) {
  return fsError('ESTALE', op, path, 'stale file handle', ` (the folder mounted at ${mount.name} was replaced or removed during this search; search again)`)
}

/** `{ offset, length }` checked: whole numbers, 0 or more. */
function rangeOf(range) {
  const ok = (n) => Number.isSafeInteger(n) && n >= 0
  if (range === null || typeof range !== 'object' || !ok(range.offset) || !ok(range.length)) {
    throw invalid(`mountReader: read(path, range) takes { offset, length }, whole numbers of bytes, 0 or more; got ${describe(range)}`)
  }
  return { offset: range.offset, length: range.length }
}

/** Up to `length` bytes from `offset` (fewer only where the file ends). */
async function readPart(handle, { offset, length }, size) {
  const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(length, size - offset)))
  let filled = 0
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, offset + filled)
    if (bytesRead === 0) break // it shrank since fstat
    filled += bytesRead
  }
  return buffer.subarray(0, filled)
}

module.exports = { mountReader }
