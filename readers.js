'use strict'
// Ready-made storage readers for `find({ reader })`, `findFiles` and
// `searchFiles`: `memoryReader` (a snapshot of an in-memory tree, for tests,
// sandboxes and virtual workspaces) and `mountReader` (local folders mounted
// at virtual paths, never reachable beyond them, local paths never shown).
// It owns the reader side of the StorageReader interface (docs/API.md): path checks, the
// error codes (ENOENT, ENOTDIR, EACCES, EPERM, EISDIR, ELOOP) and Node-style
// messages.
//
// Both readers take only normalized absolute POSIX paths ('/', '/a/b': no
// '.', '..' or empty segment, no trailing '/'), as the core sends them; any
// other path rejects with ENOENT. Neither follows a symlink: `stat` reports
// one as `type: 'symlink'`, a path through one is ENOTDIR and reading one is
// ELOOP (mountReader: EACCES when it leads out of its mount).

const fs = require('node:fs')
const nodePath = require('node:path')
const util = require('node:util')

const DESCRIPTIONS = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'illegal operation on a directory',
  ELOOP: 'too many symbolic links encountered',
}

/** The errors made here, which name virtual paths only. */
const made = new WeakSet()

/** An Error as Node's fs makes them: `ENOENT: no such file or directory, list '/a/b'`. */
function fsError(code, op, path, description = DESCRIPTIONS[code], note = '') {
  const err = new Error(`${code}: ${description || 'failed'}, ${op} '${path}'${note}`)
  err.code = code
  err.syscall = op
  err.path = path
  made.add(err)
  return err
}

/** The segments of a normalized absolute POSIX path, or null when it is not one. */
function segmentsOf(path) {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) return null
  if (path === '/') return []
  const segments = path.slice(1).split('/')
  return segments.every((s) => s !== '' && s !== '.' && s !== '..') ? segments : null
}

const isPlainObject = (value) =>
  value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))

/** `[key, value]` pairs of a plain object or a Map, or null for anything else. */
function pairsOf(value) {
  if (value instanceof Map) return [...value]
  if (isPlainObject(value)) return Object.entries(value)
  return null
}

/** A short description of a wrong value, for a message. */
function describe(value) {
  if (value === null || value === undefined) return String(value)
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no prototype'})`
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`
  return `the ${typeof value} ${String(value)}`
}

function bind({ FindFilesError }) {
  const invalid = (message) => new FindFilesError('invalid-argument', message)

  // -------------------------------------------------------------- memoryReader

  const VALUE_FORMS =
    "file contents (a string or Uint8Array), null (an empty folder), { content?, modifiedTime? } (a file), " +
    "{ type: 'dir', modifiedTime? } (a folder) or { type: 'symlink', target } (a symlink)"

  /** `{ segments, folder }` of a tree key: leading '/' optional, a trailing '/' marks a folder. */
  function treeKey(key) {
    const bad = (why) => invalid(`memoryReader: the path ${JSON.stringify(key)} ${why}`)
    if (typeof key !== 'string') throw invalid(`memoryReader: every path must be a string; got ${describe(key)}`)
    if (key === '') throw invalid("memoryReader: a path is empty; write files as 'dir/name' (relative to '/') and the root as '/'")
    if (key.includes('\0')) throw bad('holds a NUL character; file names cannot')
    if (key === '/') return { segments: [], folder: true }
    const folder = key.endsWith('/')
    const segments = key.slice(key.startsWith('/') ? 1 : 0, folder ? -1 : undefined).split('/')
    if (segments.includes('')) throw bad("has an empty segment ('//' or a leading '//'); write it as 'a/b'")
    if (segments.some((s) => s === '.' || s === '..')) throw bad("has a '.' or '..' segment; give normalized paths such as 'a/b'")
    return { segments, folder }
  }

  function modifiedTimeOf(key, value) {
    if (value === undefined) return undefined
    const ms = value instanceof Date ? value.getTime() : value
    if (typeof ms !== 'number' || !Number.isFinite(ms)) {
      throw invalid(`memoryReader: the modifiedTime of ${JSON.stringify(key)} must be epoch milliseconds or a valid Date; got ${describe(value)}`)
    }
    return ms
  }

  function bytesOf(key, content) {
    if (typeof content === 'string') return new Uint8Array(Buffer.from(content, 'utf8'))
    if (content instanceof Uint8Array) return Uint8Array.prototype.slice.call(content)
    throw invalid(`memoryReader: the content of ${JSON.stringify(key)} must be a string or Uint8Array; got ${describe(content)}`)
  }

  /** The node a tree value describes: `{ type, bytes?, target?, modifiedTime? }`. */
  function nodeOf(key, value, folder) {
    let node
    if (value === null) {
      node = { type: 'dir' }
    } else if (typeof value === 'string' || value instanceof Uint8Array) {
      node = { type: 'file', bytes: bytesOf(key, value) }
    } else if (isPlainObject(value)) {
      const type = value.type === undefined ? 'file' : value.type
      const allowed = { file: ['type', 'content', 'modifiedTime'], dir: ['type', 'modifiedTime'], symlink: ['type', 'target'] }[type]
      if (!allowed) {
        throw invalid(`memoryReader: the type of ${JSON.stringify(key)} must be 'file', 'dir' or 'symlink'; got ${describe(value.type)}`)
      }
      const unknown = Object.keys(value).filter((k) => !allowed.includes(k))
      if (unknown.length) {
        throw invalid(`memoryReader: ${JSON.stringify(key)} has the unknown key \`${unknown[0]}\`; a ${type} takes ${allowed.map((k) => `\`${k}\``).join(', ')}`)
      }
      if (type === 'symlink') {
        if (typeof value.target !== 'string' || value.target === '' || value.target.includes('\0')) {
          throw invalid(`memoryReader: the symlink ${JSON.stringify(key)} needs a \`target\`: a non-empty string without NUL; got ${describe(value.target)}`)
        }
        node = { type, target: value.target }
      } else {
        node = { type, modifiedTime: modifiedTimeOf(key, value.modifiedTime) }
        if (type === 'file') node.bytes = value.content === undefined ? new Uint8Array(0) : bytesOf(key, value.content)
      }
    } else {
      throw invalid(`memoryReader: the value of ${JSON.stringify(key)} must be ${VALUE_FORMS}; got ${describe(value)}`)
    }
    if (folder && node.type !== 'dir') {
      throw invalid(`memoryReader: ${JSON.stringify(key)} ends with '/', which names a folder, but its value is a ${node.type}; drop the '/' or give null`)
    }
    return node
  }

  /** The root folder node of a validated snapshot of `tree`. */
  function buildTree(tree) {
    const pairs = pairsOf(tree)
    if (!pairs) throw invalid(`memoryReader(tree) takes a plain object or a Map of paths to contents; got ${describe(tree)}`)
    // Nodes given by a key carry it in `given`; folders implied by a deeper key, that key in `impliedBy`.
    const root = { type: 'dir', children: new Map() }
    const conflict = (key, type, below) =>
      invalid(`memoryReader: ${JSON.stringify(key)} is a ${type} but also the folder of ${JSON.stringify(below)}; a path is either a file or a folder`)
    for (const [key, value] of pairs) {
      const { segments, folder } = treeKey(key)
      const node = nodeOf(key, value, folder)
      let dir = root
      for (let i = 0; i < segments.length - 1; i++) {
        let child = dir.children.get(segments[i])
        if (!child) {
          child = { type: 'dir', children: new Map(), impliedBy: key }
          dir.children.set(segments[i], child)
        } else if (child.type !== 'dir') {
          throw conflict(child.given, child.type, key)
        }
        dir = child
      }
      const name = segments[segments.length - 1]
      const existing = segments.length === 0 ? root : dir.children.get(name)
      if (existing && existing.given) {
        throw invalid(`memoryReader: the path ${JSON.stringify(key)} is given twice (also as ${JSON.stringify(existing.given)})`)
      }
      if (existing && node.type !== 'dir') throw conflict(key, node.type, existing.impliedBy)
      if (existing) {
        // The root, or a folder first implied by a deeper path, now given itself.
        Object.assign(existing, { given: key, modifiedTime: node.modifiedTime })
      } else {
        if (node.type === 'dir') node.children = new Map()
        dir.children.set(name, Object.assign(node, { given: key }))
      }
    }
    return root
  }

  /** What `stat` reports of a node; `list` gives the same with the name first. */
  function statOf(node) {
    const stat = { type: node.type }
    if (node.type === 'file') stat.size = node.bytes.length
    if (node.type === 'symlink') stat.size = Buffer.byteLength(node.target, 'utf8')
    if (node.modifiedTime !== undefined) stat.modifiedTime = node.modifiedTime
    return stat
  }

  /**
   * A reader over a snapshot of `tree`: keys are POSIX paths ('src/a.ts' or
   * '/src/a.ts'), values file contents, null or a `dir/` key for an empty
   * folder, `{ content, modifiedTime }`, `{ type: 'dir', modifiedTime }` or
   * `{ type: 'symlink', target }`. Parent folders are implied. Symlinks are
   * never followed: a path through one is ENOTDIR, reading one ELOOP.
   */
  function memoryReader(tree) {
    const root = buildTree(tree)

    /** The node at `path`, or a rejection as the OS would give it. */
    function lookup(op, path) {
      const segments = segmentsOf(path)
      if (!segments) throw fsError('ENOENT', op, String(path))
      let node = root
      for (const name of segments) {
        if (node.type !== 'dir') throw fsError('ENOTDIR', op, path)
        node = node.children.get(name)
        if (!node) throw fsError('ENOENT', op, path)
      }
      return node
    }

    return {
      async list(dir) {
        const node = lookup('list', dir)
        if (node.type !== 'dir') throw fsError('ENOTDIR', 'list', dir)
        return [...node.children].map(([name, child]) => ({ name, ...statOf(child) }))
      },
      async stat(path) {
        return statOf(lookup('stat', path))
      },
      async read(path) {
        const node = lookup('read', path)
        if (node.type === 'dir') throw fsError('EISDIR', 'read', path)
        if (node.type === 'symlink') throw fsError('ELOOP', 'read', path, undefined, ' (symlinks are not followed)')
        return node.bytes.slice()
      },
    }
  }

  // -------------------------------------------------------------- mountReader

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
   * Known limit: a folder swapped for a symlink between the realpath check
   * and `readdir` (or a file between the check and `open`, which is made with
   * O_NOFOLLOW) is followed once. The walk itself never asks for such paths.
   */
  function mountReader(mounts) {
    const table = mountsOf(mounts)

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
      const system = typeof err?.errno === 'number' ? util.getSystemErrorMap().get(err.errno) : undefined
      return fsError(code, op, path, DESCRIPTIONS[code] || (system && system[1]))
    }

    /**
     * The real local path of `rest` in `mount`: refused with EACCES when it
     * leaves the mount, with ENOTDIR (or ELOOP, reading a symlink) when it
     * goes through a symlink at all.
     */
    async function realInside(op, path, mount, rest) {
      if (rest.length === 0) return fs.promises.realpath(mount.local)
      const [rootReal, real] = await Promise.all([
        fs.promises.realpath(mount.local),
        fs.promises.realpath(nodePath.join(mount.local, ...rest)),
      ])
      if (!within(rootReal, real)) throw fsError('EACCES', op, path, undefined, ' (it leads outside its mount)')
      const lexical = nodePath.join(rootReal, ...rest)
      if (real !== lexical) {
        const parent = nodePath.dirname(lexical)
        const last = op === 'read' && (await fs.promises.realpath(parent)) === parent
        throw fsError(last ? 'ELOOP' : 'ENOTDIR', op, path, undefined, ' (symlinks are not followed)')
      }
      return real
    }

    /** Runs `fn(place)` for a path inside a mount, rewriting local errors to virtual ones. */
    async function inMount(op, path, fn) {
      const place = locate(path)
      if (!place) throw fsError('ENOENT', op, String(path))
      if (!place.mount) return fn(place)
      try {
        return await fn(place)
      } catch (err) {
        if (made.has(err)) throw err
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
      async list(dir) {
        return inMount('list', dir, async ({ mount, rest, children }) => {
          if (!mount) return [...children].map((name) => ({ name, type: 'dir' }))
          const real = await realInside('list', dir, mount, rest)
          const names = await fs.promises.readdir(real)
          return (await Promise.all(names.map((name) => entryAt(real, name)))).filter(Boolean)
        })
      },

      async stat(path) {
        return inMount('stat', path, async ({ mount, rest }) => {
          if (!mount) return { type: 'dir' }
          let stats
          if (rest.length === 0) {
            stats = await fs.promises.stat(await realInside('stat', path, mount, rest))
          } else {
            // The last component is not followed (a symlink is reported as one); its folder must stay inside.
            const parent = await realInside('stat', path, mount, rest.slice(0, -1))
            stats = await fs.promises.lstat(nodePath.join(parent, rest[rest.length - 1]))
          }
          const type = TYPE_OF(stats)
          if (!type) throw fsError('ENOENT', 'stat', path, undefined, ' (sockets, FIFOs and devices are not listed)')
          return { type, size: stats.size, modifiedTime: stats.mtimeMs }
        })
      },

      async read(path) {
        return inMount('read', path, async ({ mount, rest }) => {
          if (!mount) throw fsError('EISDIR', 'read', path)
          const real = await realInside('read', path, mount, rest)
          const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants
          // O_NONBLOCK: opening a FIFO does not wait for a writer; it is refused below.
          const handle = await fs.promises.open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
          try {
            const stats = await handle.stat()
            if (stats.isDirectory()) throw fsError('EISDIR', 'read', path)
            if (!stats.isFile()) throw fsError('ENOENT', 'read', path, undefined, ' (sockets, FIFOs and devices are not listed)')
            return await handle.readFile()
          } finally {
            await handle.close()
          }
        })
      },
    }
  }

  return { memoryReader, mountReader }
}

module.exports = { bind }
