'use strict'
// The reader side of the StorageReader contract, shared by the ready-made
// readers (memory.js, mount.js): the paths a reader takes (normalized
// absolute POSIX paths, '/' or '/a/b': no '.', '..' or empty segment, no
// trailing '/', as the core sends them), and its errors as Node's fs makes
// them (ENOENT, ENOTDIR, EACCES, EPERM, EISDIR, ELOOP), naming virtual paths.

const DESCRIPTIONS = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'illegal operation on a directory',
  ELOOP: 'too many symbolic links encountered',
}

/** The errors fsError made, which name virtual paths only. */
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

/** Whether `err` was made by fsError here, so names virtual paths only. */
function isReaderFsError(err) {
  return made.has(err)
}

module.exports = { DESCRIPTIONS, fsError, isReaderFsError, segmentsOf }
