'use strict'
// The package entry (CommonJS): gathers the public surface from the modules
// under js/, each of which says what it owns. index.mjs re-exports the same
// values as ESM; index.d.ts types them.

const { find, findFiles, searchFiles, explain } = require('./js/search.js')
const { formatFindResult, formatSearchResult } = require('./js/format.js')
const { FindFilesError } = require('./js/errors.js')
const { memoryReader } = require('./js/readers/memory.js')
const { mountReader } = require('./js/readers/mount.js')
const { openIndex } = require('./js/file-index.js')
const { fileTypes } = require('./js/options.js')
const { toolDefinitions, openaiTool, openaiResponsesTool, anthropicTool, vercelTool, createTools } = require('./js/tools.js')
const { claudeAgentServer, openaiAgentsTools, langchainTools, mastraTools } = require('./js/frameworks.js')

module.exports = {
  find, findFiles, searchFiles, explain, formatFindResult, formatSearchResult, FindFilesError, memoryReader, mountReader, openIndex,
  toolDefinitions, openaiTool, openaiResponsesTool, anthropicTool, vercelTool, createTools, fileTypes,
  claudeAgentServer, openaiAgentsTools, langchainTools, mastraTools,
}
