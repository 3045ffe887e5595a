'use strict'
// FindFilesError, the package's one error class, and its codes; the errors
// several modules make (`invalid`: invalid-argument, `abortedError`: aborted);
// and `clip`, which shortens quoted input in a message. Every module that
// throws a FindFilesError requires it from here.

const CODES = [
  'invalid-argument', 'invalid-pattern', 'not-found', 'not-a-dir', 'permission-denied',
  'approval-required', 'outside-root', 'aborted', 'fs-error', 'not-a-repository', 'too-large',
]

class FindFilesError extends Error {
  constructor(code, message, options) {
    super(message, options)
    this.name = 'FindFilesError'
    this.code = CODES.includes(code) ? code : 'fs-error'
  }

  /** `{ name, code, message }`, so an error serializes for a model or a log. */
  toJSON() {
    return { name: this.name, code: this.code, message: this.message }
  }
}

function invalid(message) {
  return new FindFilesError('invalid-argument', message)
}

function abortedError() {
  return new FindFilesError('aborted', 'the search was aborted before it finished')
}

/** `text` cut to about `max` characters for quoting in a message, as Rust's `error::clip` does. */
function clip(text, max = 300) {
  if (text.length <= max) return text
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max
  return `${text.slice(0, end)}… (${Buffer.byteLength(text)} bytes in all)`
}

module.exports = { FindFilesError, invalid, abortedError, clip }
