'use strict'
// The errors of the ready-made readers (memory.js, mount.js), as Node's fs
// makes them: a code (ENOENT, ENOTDIR, EACCES, EPERM, EISDIR, ELOOP), the
// operation and a message that names the virtual path, never a local one.

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

/** Whether `err` was made by fsError, so names virtual paths only. */
function isReaderFsError(err) {
  return made.has(err)
}

module.exports = { DESCRIPTIONS, fsError, isReaderFsError }
