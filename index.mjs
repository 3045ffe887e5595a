// ESM entry: the same functions as the CommonJS one.
import cjs from './index.js'

export const {
  find,
  findFiles,
  searchFiles,
  explain,
  formatFindResult,
  formatSearchResult,
  FindFilesError,
  memoryReader,
  mountReader,
  openIndex,
  toolDefinitions,
  openaiTool,
  openaiResponsesTool,
  anthropicTool,
  vercelTool,
  createTools,
  fileTypes,
  claudeAgentServer,
  openaiAgentsTools,
  langchainTools,
  mastraTools,
} = cjs
export default cjs
