'use strict'
// The paths the ready-made readers (memory.js, mount.js) take: normalized
// absolute POSIX paths, as the core sends them: '/' or '/a/b', with no '.',
// '..' or empty segment and no trailing '/'.

/** The segments of a normalized absolute POSIX path, or null when it is not one. */
function segmentsOf(path) {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) return null
  if (path === '/') return []
  const segments = path.slice(1).split('/')
  return segments.every((s) => s !== '' && s !== '.' && s !== '..') ? segments : null
}

module.exports = { segmentsOf }
