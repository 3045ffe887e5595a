'use strict'
// `formatFindResult` and `formatSearchResult`: a result as the model text,
// rendered by the native formatter.

const binding = require('./native.js')
const { FindFilesError, invalid } = require('./errors.js')
const { isNonArrayObject } = require('./util.js')

/** Renders with the native formatter, turning a malformed result into `invalid-argument`. */
function formatWith(render, name, kind, result) {
  if (!isNonArrayObject(result)) throw invalid(`${name}(result) takes the ${kind} that was returned`)
  try {
    return render(result)
  } catch (cause) {
    throw new FindFilesError('invalid-argument', `${name}: not a ${kind} (${cause.message})`, { cause })
  }
}

function formatFindResult(result) {
  return formatWith(binding.formatFindResult, 'formatFindResult', 'FindResult', result)
}

function formatSearchResult(result) {
  return formatWith(binding.formatSearchResult, 'formatSearchResult', 'SearchResult', result)
}

module.exports = { formatFindResult, formatSearchResult }
