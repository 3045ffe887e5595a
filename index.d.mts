// The ESM entry's types: the same declarations as index.d.ts (the CommonJS
// entry's), re-exported, plus the default export index.mjs has (the
// CommonJS module object).
export * from './index.js'
import * as agentFind from './index.js'
export default agentFind
