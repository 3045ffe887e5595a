// ESM entry: the same functions as the CommonJS one.
import cjs from './index.js'

export const { find, findFiles, formatFindResult, FindFilesError } = cjs
export default cjs
