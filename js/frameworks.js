'use strict'
// The tools of `createTools` in the shapes the agent frameworks take: the
// Claude Agent SDK (an in-process MCP server), the OpenAI Agents SDK (strict
// FunctionTools), LangChain.js (structured tools) and Mastra (createTool
// tools). Each adapter runs the calls through the `createTools` object it is
// given, so the workspace, its sandbox, the policy, the live index and the
// FindFilesError codes carry over, and hands a refused call to the
// framework as the error kind that framework knows.
//
// No framework is a dependency, nor loaded here: the caller passes the
// framework's own factories (`tool`, `createSdkMcpServer`, `createTool`,
// `ToolMessage`) and, where a zod schema is needed, its own zod. Taking the
// factories, rather than building the objects they return, keeps each
// adapter right across the framework's versions, whose tool objects change
// shape more often than their factories' arguments do.

const { FindFilesError } = require('./errors.js')
const { toolDefinitions, RUN_TOOL, TOOL_NAMES, READ_ONLY, errorText, jsonCopy: copy } = require('./tools.js')

/** The `runTool` of a `createTools` object; a TypeError for anything else. */
function runnerOf(tools, adapter) {
  const run = tools && tools[RUN_TOOL]
  if (typeof run !== 'function') throw new TypeError(`${adapter}: the first argument must be the object createTools() returns`)
  return run
}

/** Checks that `sdk` holds the named functions, naming the ones missing and where they come from. */
function needs(adapter, sdk, names, from) {
  const missing = names.filter((n) => !sdk || typeof sdk[n] !== 'function')
  if (missing.length) {
    throw new TypeError(`${adapter}: pass ${names.map((n) => `\`${n}\``).join(', ')} from ${from} as the second argument; missing ${missing.map((n) => `\`${n}\``).join(', ')}`)
  }
}

// ---------------------------------------------------------------------------
// JSON Schema → zod, with the zod the caller passes (zod 3 or zod 4: only
// what both have is used)

/** The zod type of one property schema of the option table (js/options.js `propertySchema`). */
function zodType(schema, z) {
  if (schema.anyOf) return z.union(schema.anyOf.map((s) => zodType(s, z)))
  switch (schema.type) {
    case 'boolean': return z.boolean()
    case 'integer': {
      const int = z.number().int()
      return schema.minimum === undefined ? int : int.min(schema.minimum)
    }
    case 'number': return z.number()
    case 'string': return schema.enum ? z.enum(schema.enum) : z.string()
    case 'array': return z.array(zodType(schema.items, z))
    default: throw new TypeError(`no zod type for the schema ${JSON.stringify(schema)}`)
  }
}

/**
 * A tool's parameters as a zod raw shape (`{ pattern: z.string(), ... }`).
 * Defaults go into the descriptions, not `.default()`: the tools apply them,
 * and a model reads them there.
 */
function zodShape(parameters, z) {
  const shape = {}
  for (const [name, schema] of Object.entries(parameters.properties)) {
    const described = schema.default === undefined ? schema.description : `${schema.description} Default: ${JSON.stringify(schema.default)}.`
    const type = zodType(schema, z)
    shape[name] = (parameters.required.includes(name) ? type : type.optional()).describe(described)
  }
  return shape
}

// ---------------------------------------------------------------------------
// Claude Agent SDK: an in-process MCP server

/**
 * An in-process MCP server for the Claude Agent SDK's `query({ options: {
 * mcpServers: { files } } })`: `createSdkMcpServer({ name, version, tools })`
 * with one `tool(name, description, zodShape, handler)` per tool. The key
 * under `mcpServers` names the tools the model sees: `mcp__files__find`,
 * `mcp__files__search_files`, `mcp__files__explain_path`. A refused call is
 * an MCP tool result with `isError: true` (the SDK's tool error), its text
 * `Error (code): message`.
 */
function claudeAgentServer(tools, sdk, options = {}) {
  runnerOf(tools, 'claudeAgentServer')
  needs('claudeAgentServer', sdk, ['createSdkMcpServer', 'tool'], "'@anthropic-ai/claude-agent-sdk'")
  const z = sdk.z
  if (!z || typeof z.object !== 'function' || typeof z.string !== 'function') {
    throw new TypeError("claudeAgentServer: pass zod as `z` in the second argument ({ createSdkMcpServer, tool, z }, with z from 'zod'): the SDK's tool() takes a zod shape")
  }
  const name = options.name ?? 'files'
  if (typeof name !== 'string' || !/^[\w-]+$/.test(name)) throw new TypeError('claudeAgentServer: `name` must be letters, digits, `_` or `-`')
  const { version } = require('../package.json')
  const serverTools = TOOL_NAMES.map((toolName) => {
    const definition = toolDefinitions[toolName]
    const handler = async (args, extra) => {
      const { text, isError } = await tools.call(toolName, args, { signal: extra && extra.signal })
      return { content: [{ type: 'text', text }], isError }
    }
    return sdk.tool(toolName, definition.description, zodShape(definition.parameters, z), handler, {
      annotations: { title: definition.title, ...READ_ONLY },
    })
  })
  return sdk.createSdkMcpServer({ name, version, tools: serverTools })
}

// ---------------------------------------------------------------------------
// OpenAI Agents SDK: strict FunctionTools

/**
 * A property schema that also takes `null`: OpenAI's strict mode requires
 * every property, so an option left unset is sent as null.
 */
function nullable(schema) {
  if (schema.anyOf) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] }
  const out = { ...schema, type: [schema.type, 'null'] }
  if (schema.enum) out.enum = [...schema.enum, null]
  return out
}

/**
 * A tool's parameters for OpenAI's strict mode: every property required, the
 * optional ones nullable, `additionalProperties: false` (every object here is
 * the top one; the array items are strings).
 */
function strictParameters(parameters) {
  const properties = {}
  for (const [name, schema] of Object.entries(parameters.properties)) {
    properties[name] = parameters.required.includes(name) ? copy(schema) : nullable(copy(schema))
  }
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false }
}

/** The arguments without the nulls strict mode sends for unset options. */
function withoutNulls(args) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null))
}

/**
 * The tools for an OpenAI Agents SDK `Agent({ tools })`: `tool({ name,
 * description, parameters, strict: true, execute, errorFunction })` for each,
 * with the `tool` factory from '@openai/agents'. A refused call throws its
 * FindFilesError in `execute`; the SDK hands it to `errorFunction` (and marks
 * the tool span as failed), which answers the model with
 * `Error (code): message`. Other errors get the SDK's own generic text.
 */
function openaiAgentsTools(tools, sdk) {
  const run = runnerOf(tools, 'openaiAgentsTools')
  needs('openaiAgentsTools', sdk, ['tool'], "'@openai/agents'")
  return TOOL_NAMES.map((name) => {
    const definition = toolDefinitions[name]
    return sdk.tool({
      name,
      description: definition.description,
      parameters: strictParameters(definition.parameters),
      strict: true,
      execute: (input, _context, details) => run(name, withoutNulls(input), details && details.signal),
      errorFunction: (_context, error) =>
        error instanceof FindFilesError ? errorText(error) : 'An error occurred while running the tool. Please try again.',
    })
  })
}

// ---------------------------------------------------------------------------
// LangChain.js: structured tools

/**
 * Structured tools for LangChain.js (`model.bindTools(tools)`, LangGraph's
 * ToolNode, `createAgent`): `tool(func, { name, description, schema })` with
 * `tool` from '@langchain/core/tools' and the JSON Schema as `schema`. Called
 * with a tool call (`tool.invoke(aiMessage.tool_calls[0])`), a refused call
 * answers a `ToolMessage` with `status: 'error'` (`ToolMessage` from
 * '@langchain/core/messages'); called with plain arguments, it throws its
 * FindFilesError.
 */
function langchainTools(tools, sdk) {
  const run = runnerOf(tools, 'langchainTools')
  needs('langchainTools', sdk, ['tool', 'ToolMessage'], "'@langchain/core/tools' and '@langchain/core/messages'")
  return TOOL_NAMES.map((name) => {
    const definition = toolDefinitions[name]
    const func = async (input, config) => {
      try {
        return await run(name, input, config && config.signal)
      } catch (error) {
        const call = config && config.toolCall
        if (!(error instanceof FindFilesError) || !call || typeof call.id !== 'string') throw error
        return new sdk.ToolMessage({ content: errorText(error), tool_call_id: call.id, name, status: 'error' })
      }
    }
    // verboseParsingErrors: a schema mismatch tells the model which argument was wrong.
    return sdk.tool(func, { name, description: definition.description, schema: copy(definition.parameters), verboseParsingErrors: true })
  })
}

// ---------------------------------------------------------------------------
// Mastra: createTool

/**
 * Tools for a Mastra `Agent({ tools })`, keyed by name: `createTool({ id,
 * description, inputSchema, execute })` with `createTool` from
 * '@mastra/core/tools' and the JSON Schema as `inputSchema` (Mastra 1.11 and
 * later take it). A refused call throws a FindFilesError in `execute`, its
 * message the `Error (code): message` text, which Mastra reports to the
 * model as a tool error.
 */
function mastraTools(tools, sdk) {
  const run = runnerOf(tools, 'mastraTools')
  needs('mastraTools', sdk, ['createTool'], "'@mastra/core/tools'")
  return Object.fromEntries(TOOL_NAMES.map((name) => {
    const definition = toolDefinitions[name]
    return [name, sdk.createTool({
      id: name,
      description: definition.description,
      inputSchema: copy(definition.parameters),
      mcp: { annotations: { title: definition.title, ...READ_ONLY } },
      execute: async (input, context) => {
        try {
          return await run(name, input, context && context.abortSignal)
        } catch (error) {
          // Mastra gives the model the error's message alone: put the code in it, as tools.call does.
          if (error instanceof FindFilesError) throw new FindFilesError(error.code, errorText(error), { cause: error })
          throw error
        }
      },
    })]
  }))
}

module.exports = { claudeAgentServer, openaiAgentsTools, langchainTools, mastraTools, strictParameters, zodShape }
