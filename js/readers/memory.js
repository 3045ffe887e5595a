'use strict'
// `memoryReader`: a storage reader for `find({ reader })`, `findFiles` and
// `searchFiles` over a snapshot of an in-memory tree, for tests, sandboxes
// and virtual workspaces. It takes only normalized absolute POSIX paths
// (see paths.js); any other path rejects with ENOENT. It never follows a
// symlink: `stat` reports one as `type: 'symlink'`, a path through one is
// ENOTDIR and reading one is ELOOP.

const { invalid } = require('../errors.js')
const { describe, isPlainObject, pairsOf } = require('../util.js')
const { fsError } = require('./fs-errors.js')
const { segmentsOf } = require('./paths.js')

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

module.exports = { memoryReader }
