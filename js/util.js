'use strict'
// Checks and descriptions of the values a caller passes, shared by the
// modules that validate arguments: `describe` (a wrong value, for a message),
// `isPlainObject`, `isNonArrayObject` and `pairsOf`.

/** A short description of a wrong value, for a message. */
function describe(value) {
  if (value === null || value === undefined) return String(value)
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no prototype'})`
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`
  return `the ${typeof value} ${String(value)}`
}

/** An object literal (or `Object.create(null)`): not an array, a Map, a Date or a class instance. */
const isPlainObject = (value) =>
  value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))

/**
 * Any object but an array (a Map, a class instance or an object from another
 * realm included): what an options or result argument may be.
 */
function isNonArrayObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** `[key, value]` pairs of a plain object or a Map, or null for anything else. */
function pairsOf(value) {
  if (value instanceof Map) return [...value]
  if (isPlainObject(value)) return Object.entries(value)
  return null
}

module.exports = { describe, isPlainObject, isNonArrayObject, pairsOf }
