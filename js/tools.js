'use strict'
// agent-find for language models: the `find`, `search_files` and
// `explain_path` tool definitions (JSON Schema), adapters to the shapes the common SDKs take
// (OpenAI, Anthropic, Vercel AI SDK), and `createTools`, the workspace-bound,
// JSON-in / JSON-out surface for codemode scripts and tool hosts.
//
// No SDK is a dependency: each adapter returns a plain object of the shape
// that SDK documents.

const nodePath = require('node:path')

const { FindFilesError } = require('./errors.js')
const { find, findFilesWith, searchFiles, explain } = require('./search.js')
const { formatFindResult, formatSearchResult } = require('./format.js')
const native = require('./native.js')
const { optionsOf, parametersOf, HOST_FIXED } = require('./options.js')
const { openIndex, FileIndex } = require('./file-index.js')

/**
 * Where a `createTools` object keeps its `runTool(name, args, signal)`: the
 * model text, or the FindFilesError a refused call throws. The framework
 * adapters (js/frameworks.js) use it to hand a refusal to each framework as
 * the error kind it knows; it is not part of the public surface.
 */
const RUN_TOOL = Symbol('agent-find.runTool')

// ---------------------------------------------------------------------------
// Tool definitions

/** `find`'s default byte cap, as a model reads it: 51,200. */
const DEFAULT_MAX_BYTES = optionsOf('find').find((o) => o.name === 'maxBytes').default.toLocaleString('en')

const FIND_DESCRIPTION = [
  'Find files (or folders) in the workspace by glob pattern, like `fd` or `find`.',
  'Respects .gitignore and never lists .git. Returns the search directory, then one path per line relative to it',
  "(folders end with '/'), newest first by default. Glob syntax: '**' spans any number of folders, '*' and '?' stay",
  "within one name, '{ts,tsx}' alternatives, '[abc]' classes; case-insensitive.",
  "'*.py' matches only at the top level of `path`: use '**/*.py' for any depth.",
  `The answer holds at most \`limit\` entries and ${DEFAULT_MAX_BYTES} bytes, with a note saying how many matched and where the rest are.`,
  'When nothing matches, the answer says why if it can tell (for example, matches only in ignored folders), and an',
  'empty or cut answer names what was not searched.',
  'A time limit, if any, is set by the host: a search that runs out of time needs a narrower `path` or pattern.',
  'To search text inside files, use search_files.',
].join(' ')

const SEARCH_DESCRIPTION = [
  'Search inside files with a regex, like ripgrep, or find files by name (`target: "files"`, `fuzzy` for typos).',
  'Skips .git, node_modules, dist, build, vendor and similar folders, gitignored and binary files, unless `noIgnore`.',
  'Output: the search directory, exact totals, then each matching file once with its lines (`12: text`;',
  '`context`/`before`/`after` add `11- text` lines); or the files newest first ("files"), or `file: count` ("count"),',
  `paths relative to the search directory; at most \`maxResults\` and ${DEFAULT_MAX_BYTES} bytes. A cut answer gives a`,
  '`cursor` for the next page; an empty or cut one says what was not searched.',
  `Case-sensitive unless \`ignoreCase\` (find is case-insensitive); a line longer than ${native.MODEL_LINE_CHARS} characters is shown around its match.`,
  'Narrow with `type` (["py"]), `fileGlob`, `exclude`, `maxPerFile`; `literal: true` for plain text, `patterns` for several',
  'regexes, `multiline: true` to span lines. To list files by path, size or date, use find.',
].join(' ')

const EXPLAIN_DESCRIPTION = [
  'Explain why a file or folder is or is not listed by find: names the ignore-file line that hides it',
  '(`.gitignore:3: build/`, and a `!` line that re-includes it), as `git check-ignore -v` does, or the other reason:',
  'hidden, an `exclude` glob, `.git`, deeper than `maxDepth`, below a symlink, not of the `type` asked, the pattern does not',
  'match, outside the size or date filters, missing, or outside the search directory. Pass the options of the find call that',
  'missed it. Call it before concluding that something does not exist. Reads only the folders on the way, so it is cheap.',
].join(' ')

const FIND_PARAMETERS = parametersOf('find')
const SEARCH_PARAMETERS = parametersOf('search')

/** What decides whether find lists a path: find's options but the order and caps, with `path` the path to explain. */
const EXPLAIN_PARAMETERS = (() => {
  const properties = {
    path: { type: 'string', description: 'The file or folder to explain, relative to the workspace (or absolute), such as "build/out.js".' },
  }
  const irrelevant = ['path', 'limit', 'sortBy', 'reverse']
  for (const [name, schema] of Object.entries(FIND_PARAMETERS.properties)) {
    if (!irrelevant.includes(name)) properties[name] = name === 'pattern' ? { ...schema, description: `Optional: the find pattern, to check it too. ${schema.description}` } : schema
  }
  return { type: 'object', properties, required: ['path'], additionalProperties: false }
})()

function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

const toolDefinitions = deepFreeze({
  find: { name: 'find', title: 'Find files', description: FIND_DESCRIPTION, parameters: FIND_PARAMETERS },
  search_files: { name: 'search_files', title: 'Search files', description: SEARCH_DESCRIPTION, parameters: SEARCH_PARAMETERS },
  explain_path: { name: 'explain_path', title: 'Explain a path', description: EXPLAIN_DESCRIPTION, parameters: EXPLAIN_PARAMETERS },
})

const TOOL_NAMES = Object.keys(toolDefinitions)

// ---------------------------------------------------------------------------
// Adapters: a definition → the object each SDK takes (fresh copies, mutable)

/** A fresh, mutable copy of a JSON value (a definition's schema). */
const jsonCopy = (value) => JSON.parse(JSON.stringify(value))

/** What every tool here is, as MCP annotations say it: it only reads. */
const READ_ONLY = Object.freeze({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })

/** The text a model reads for a refused call (its message already as a model should read it). */
const errorText = (error) => `Error (${error.code}): ${error.message}`

function checkDefinition(definition) {
  if (!definition || typeof definition.name !== 'string' || !definition.parameters) {
    throw new TypeError('expected a tool definition such as toolDefinitions.find')
  }
  return definition
}

/** OpenAI Chat Completions: `{ type: 'function', function: { name, description, parameters } }`. */
function openaiTool(definition) {
  const { name, description, parameters } = checkDefinition(definition)
  return { type: 'function', function: { name, description, parameters: jsonCopy(parameters) } }
}

/** OpenAI Responses API: `{ type: 'function', name, description, parameters, strict: false }`. */
function openaiResponsesTool(definition) {
  const { name, description, parameters } = checkDefinition(definition)
  // `strict: true` would require every property in `required`; the options are optional.
  return { type: 'function', name, description, parameters: jsonCopy(parameters), strict: false }
}

/** Anthropic Messages API: `{ name, description, input_schema }`. */
function anthropicTool(definition) {
  const { name, description, parameters } = checkDefinition(definition)
  return { name, description, input_schema: jsonCopy(parameters) }
}

// The Vercel AI SDK recognises a schema by this global symbol (what its
// `jsonSchema()` helper returns), so no import of `ai` is needed.
const VERCEL_SCHEMA = Symbol.for('vercel.ai.schema')

/**
 * Vercel AI SDK: the object `tool({ description, inputSchema, execute })`
 * returns. `execute(input, { abortSignal })` resolves to the model text.
 */
function vercelTool(definition, execute) {
  const { name, description, parameters } = checkDefinition(definition)
  if (execute !== undefined && typeof execute !== 'function') throw new TypeError('execute must be a function')
  const schema = jsonCopy(parameters)
  const inputSchema = {
    [VERCEL_SCHEMA]: true,
    _type: undefined,
    jsonSchema: schema,
    validate(value) {
      try {
        return { success: true, value: toolArgs(name, value) }
      } catch (error) {
        return { success: false, error }
      }
    },
  }
  const tool = { description, inputSchema }
  if (execute) tool.execute = execute
  return tool
}

// ---------------------------------------------------------------------------
// Arguments from a model or a script

// Options the host fixes: a model or script that passes them gets a clear error
// instead of a way out of its workspace.

/**
 * Checks that `args` is a plain object whose keys the tool's schema names
 * (JSON text is parsed first); the values are checked by find / searchFiles.
 */
function toolArgs(name, args, makeError = defaultError) {
  const definition = toolDefinitions[name]
  if (typeof args === 'string') args = jsonArgs(name, args, makeError)
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw makeError('invalid-argument', `${name} takes an object of arguments, such as { "pattern": "**/*.ts" }`)
  }
  const known = definition.parameters.properties
  for (const key of Object.keys(args)) {
    if (Object.prototype.hasOwnProperty.call(known, key)) continue
    if (HOST_FIXED.includes(key)) {
      throw makeError('invalid-argument', `${name}: \`${key}\` is set by the host, not by the caller; use \`path\` to choose where to search`)
    }
    throw makeError(
      'invalid-argument',
      `${name}: unknown argument \`${key}\`; the arguments are ${Object.keys(known).map((k) => `\`${k}\``).join(', ')}`,
    )
  }
  return { ...args }
}

// JSON object text starts with `{` then a quote or `}`; a brace glob such as
// `{src,lib}/**` does not.
const JSON_OBJECT_START = /^\s*\{\s*["}]/

/** A tool call's arguments as JSON text. */
function jsonArgs(name, text, makeError) {
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw makeError('invalid-argument', `${name}: the arguments are not valid JSON (${cause.message})`)
  }
}

function defaultError(code, message) {
  const error = new TypeError(message)
  error.code = code
  return error
}

// ---------------------------------------------------------------------------
// createTools: one workspace, plain JSON in and out

/** A value that survives JSON.stringify / JSON.parse unchanged: plain objects, arrays, strings, finite numbers, booleans. */
const plain = (value) => JSON.parse(JSON.stringify(value))

const argError = (code, message) => new FindFilesError(code, message)

function createTools(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new FindFilesError('invalid-argument', 'createTools(options) takes an object such as { cwd, roots }')
  }
  const known = ['cwd', 'roots', 'reader', 'policy', 'approve', 'timeoutMs', 'priority', 'maxLimit', 'maxBytes', 'index']
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new FindFilesError('invalid-argument', `createTools: unknown option \`${key}\`; the options are ${known.join(', ')}`)
    }
  }
  if (options.priority !== undefined && options.priority !== null && options.priority !== 'normal' && options.priority !== 'low') {
    throw new FindFilesError('invalid-argument', "createTools: `priority` must be 'normal' or 'low'")
  }
  if (options.cwd !== undefined && (typeof options.cwd !== 'string' || options.cwd === '')) {
    throw new FindFilesError('invalid-argument', 'createTools: `cwd` must be a non-empty path')
  }
  // With a reader, paths live in its POSIX namespace, rooted at `/`.
  const paths = options.reader ? nodePath.posix : nodePath
  const cwd = options.reader ? paths.resolve('/', options.cwd ?? '/') : paths.resolve(options.cwd ?? process.cwd())
  if (options.roots !== undefined && options.roots !== null &&
      !(Array.isArray(options.roots) && options.roots.every((r) => typeof r === 'string'))) {
    throw new FindFilesError('invalid-argument', 'createTools: `roots` must be an array of paths')
  }
  // The workspace is the sandbox unless the host says otherwise (`roots: null` lifts it).
  const roots = options.roots === undefined ? [cwd] : options.roots === null ? undefined : options.roots.map((r) => paths.resolve(cwd, r))
  const live = liveIndexes(options, roots ?? [cwd])
  const call = { cwd, roots, reader: options.reader, policy: options.policy, approve: options.approve, timeoutMs: options.timeoutMs, priority: options.priority }
  const findHost = { ...call, maxLimit: options.maxLimit, maxBytes: options.maxBytes }
  const withHost = (args, host, signal) => {
    const merged = { ...args, ...host, signal }
    for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key]
    return merged
  }

  // Codemode scripts call `tools.find('**/*.ts')` or `tools.find('*.ts', { path })`,
  // as the plain functions take them: a string that is not JSON object text
  // is the pattern (a brace glob such as '{src,lib}/**' is a pattern too).
  const withPattern = (name, args, more) => {
    if (typeof args === 'string' && more === undefined) return JSON_OBJECT_START.test(args) ? args : { pattern: args }
    if (more === undefined) return args
    if (typeof args !== 'string' || more === null || typeof more !== 'object' || Array.isArray(more)) {
      throw new FindFilesError('invalid-argument', `${name} takes one object of arguments, or (pattern, { ...options })`)
    }
    return { ...toolArgs(name, more, argError), pattern: args }
  }
  const runFind = (args, signal) =>
    live.run(withHost(toolArgs('find', args, argError), findHost, signal), find, (index, o) => index.find(o))
  const runSearch = (args, signal) =>
    live.run(withHost(toolArgs('search_files', args, argError), call, signal), searchFiles, (index, o) => index.searchFiles(o))
  const runExplain = (args, signal) => {
    const { path, ...rest } = toolArgs('explain_path', typeof args === 'string' && !JSON_OBJECT_START.test(args) ? { path: args } : args, argError)
    if (typeof path !== 'string' || path === '') {
      throw new FindFilesError('invalid-argument', 'explain_path: `path` is missing: pass the file or folder to explain, such as "build/out.js"')
    }
    return explain(path, withHost(rest, call, signal))
  }

  /** One tool call's model text; a FindFilesError (its message as a model should read it) when refused. */
  const runTool = async (name, args, signal) => {
    try {
      // Said once, before the first answer a fresh walk gave in its place: that a root is too big to index.
      const note = (text) => {
        const said = live.notice()
        return said ? `${said}\n\n${text}` : text
      }
      if (name === 'find') return note(formatFindResult(await runFind(args, signal)))
      if (name === 'search_files') return note(formatSearchResult(await runSearch(args, signal)))
      if (name === 'explain_path') return (await runExplain(args, signal)).text
      throw new FindFilesError('invalid-argument', `unknown tool \`${name}\`; the tools are ${TOOL_NAMES.join(', ')}`)
    } catch (error) {
      if (error instanceof FindFilesError) throw new FindFilesError(error.code, forModel(error.message), { cause: error })
      throw error
    }
  }

  const tools = {
    /** The workspace: where relative paths start. */
    cwd,
    /** The folders every search must stay inside (`null` when unconfined). */
    roots: roots ? [...roots] : null,

    /**
     * `find` with the workspace's cwd and roots: a plain-JSON FindResult.
     * Takes `{ pattern, ... }`, its JSON text, or `(pattern, { ...options })`.
     */
    async find(args, more) {
      return plain(await runFind(withPattern('find', args, more)))
    },

    /** Absolute paths of the files matching `pattern` (`{ pattern, path? }`, or the pattern string), in path order. */
    async findFiles(args, path) {
      if (typeof args === 'string') args = path === undefined ? { pattern: args } : { pattern: args, path }
      if (args === null || typeof args !== 'object' || Array.isArray(args)) {
        throw new FindFilesError('invalid-argument', 'findFiles takes { pattern, path? } or a pattern string')
      }
      for (const key of Object.keys(args)) {
        if (key !== 'pattern' && key !== 'path') {
          throw new FindFilesError('invalid-argument', `findFiles: unknown argument \`${key}\`; the arguments are \`pattern\` and \`path\``)
        }
      }
      const o = withHost({ pattern: args.pattern, path: args.path }, call)
      return plain(await live.run(o, findFilesWith, (index) => index.findFiles(o.pattern, o)))
    },

    /**
     * `searchFiles` with the workspace's cwd and roots: a plain-JSON SearchResult.
     * Takes `{ pattern, ... }`, its JSON text, or `(pattern, { ...options })`.
     */
    async searchFiles(args, more) {
      return plain(await runSearch(withPattern('search_files', args, more)))
    },

    /**
     * `explain` in the workspace: why a path is or is not listed by `find`
     * with these options. Takes `{ path, ...findOptions }`, its JSON text, or the path string.
     */
    async explain(args) {
      return plain(await runExplain(args))
    },

    /**
     * Runs one tool call from a model: `name` is 'find', 'search_files' or 'explain_path',
     * `args` an object or its JSON text. Resolves to `{ text, isError }`:
     * the model text, or the error (`Error (code): message`) for the model
     * to read and recover from. Only bugs reject.
     */
    async call(name, args, callOptions = {}) {
      try {
        return { text: await runTool(name, args, callOptions && callOptions.signal), isError: false }
      } catch (error) {
        if (error instanceof FindFilesError) return { text: errorText(error), isError: true }
        throw error
      }
    },

    /**
     * Resolves once the live indexes `index: true` opens are ready (or have
     * failed, and fresh walks serve instead); at once without `index`.
     */
    ready: () => live.ready(),

    /** Closes the indexes `index: true` opened (a FileIndex passed in is the host's to close). */
    close: () => live.close(),

    /** The tool definitions, as `toolDefinitions` holds them. */
    definitions: TOOL_NAMES.map((n) => toolDefinitions[n]),
    /** For OpenAI Chat Completions `tools`. */
    openaiTools: TOOL_NAMES.map((n) => openaiTool(toolDefinitions[n])),
    /** For the OpenAI Responses API `tools`. */
    openaiResponsesTools: TOOL_NAMES.map((n) => openaiResponsesTool(toolDefinitions[n])),
    /** For the Anthropic Messages API `tools`. */
    anthropicTools: TOOL_NAMES.map((n) => anthropicTool(toolDefinitions[n])),
    /**
     * For the Vercel AI SDK `tools` (generateText / streamText): execute
     * resolves to the model text, and a refused call throws its
     * FindFilesError, which the SDK reports to the model as a tool error.
     */
    vercelTools: Object.fromEntries(
      TOOL_NAMES.map((n) => [n, vercelTool(toolDefinitions[n], (input, opts) => runTool(n, input, opts && opts.abortSignal))]),
    ),
  }
  Object.defineProperty(tools, RUN_TOOL, { value: runTool })
  return tools
}

/**
 * An error message as the model should read it: a time limit is the host's
 * setting here, which the model cannot raise, so it is told what it can do.
 */
function forModel(message) {
  return message.replace(
    /within timeoutMs \((\d+) ms\); narrow `path` or raise `timeoutMs`/,
    'within the time limit the host set ($1 ms); narrow `path` or the pattern and call again',
  )
}

/**
 * The live indexes behind `createTools({ index })`: `true` opens one per
 * root (the workspace when unconfined) in the background, a `FileIndex` is
 * used as it is. A call whose search path lies in an open index's folder is
 * answered from it; any other call, a call made while the index is still
 * opening, and a call the index rejects (a path through a symlink that leads
 * out, a closed or broken index) get a fresh walk, so every answer is the
 * one a fresh call gives (an abort is not retried).
 */
function liveIndexes(options, folders) {
  const { index } = options
  const none = { run: (o, fresh) => fresh(o), ready: async () => {}, close: async () => {}, notice: () => undefined }
  if (index === undefined || index === false) return none
  if (index !== true && !(index instanceof FileIndex)) {
    throw new FindFilesError('invalid-argument', 'createTools: `index` must be true, false or a FileIndex from openIndex()')
  }
  if (options.reader) {
    throw new FindFilesError('invalid-argument', 'createTools: `index` indexes the local disk; it cannot be used with `reader`')
  }
  // Roots too big to index, not yet told to the model.
  const tooLarge = []
  const entries = index === true
    ? folders.map((folder) => {
      const entry = { folder, index: null, owned: true }
      // A folder that cannot be indexed (gone, unwatchable, too big) is served by fresh walks.
      entry.opening = openIndex(folder).then((opened) => { entry.index = opened }, (error) => {
        if (error instanceof FindFilesError && error.code === 'too-large') tooLarge.push(folder)
      })
      return entry
    })
    : [{ folder: index.path, index, owned: false, opening: Promise.resolve() }]
  const inside = (dir, folder) => dir === folder || dir.startsWith(folder.endsWith(nodePath.sep) ? folder : folder + nodePath.sep)
  return {
    async run(o, fresh, indexed) {
      const dir = nodePath.resolve(o.cwd, o.path ?? '.')
      const entry = entries.find((e) => e.index && !e.index.stats().closed && inside(dir, e.folder))
      if (!entry) return fresh(o)
      try {
        return await indexed(entry.index, o)
      } catch (error) {
        if (error instanceof FindFilesError && error.code === 'aborted') throw error
        return fresh(o)
      }
    },
    ready: async () => { await Promise.all(entries.map((e) => e.opening)) },
    /** Once, what a model should know of roots too big to index; then undefined. */
    notice() {
      if (tooLarge.length === 0) return undefined
      const folders = tooLarge.splice(0).map((f) => `\`${f}\``).join(', ')
      return `Note: ${folders} holds too much to keep a live index of (more than a live index may hold), so every call walks it anew and may be slow. Search a narrower folder with \`path\`, or start the server with a narrower --root (a project folder, not a home folder or a disk).`
    },
    close: async () => {
      await Promise.all(entries.map((e) => e.opening))
      await Promise.all(entries.filter((e) => e.owned && e.index).map((e) => e.index.close()))
    },
  }
}

module.exports = {
  toolDefinitions, openaiTool, openaiResponsesTool, anthropicTool, vercelTool, createTools, HOST_FIXED,
  RUN_TOOL, TOOL_NAMES, READ_ONLY, errorText, jsonCopy,
}
