'use strict'
// `agent-find mcp`: the `find`, `search_files` and `explain_path` tools over MCP (stdio), with
// the official SDK, confined to the --root folders (default: the current
// folder). Loaded only by the `mcp` subcommand, so `require('agent-find')`
// never loads the SDK.
//
// It uses the SDK's low-level `Server`: the tools are described by the same
// JSON Schemas as `toolDefinitions` (McpServer.registerTool takes zod schemas).
// stdin reaches the SDK through `limitLines`: a request line over
// MAX_LINE_BYTES is dropped as it streams in (never held whole) and answered
// with a JSON-RPC error, and the server keeps serving. (The SDK's own reader
// would close the transport on such a line, and the server would end silently.)
// A line the SDK would drop unanswered (not JSON, not a JSON-RPC 2.0 message,
// a batch) is answered there too, as JSON-RPC 2.0 says, so a client never
// waits for ever on a request it got wrong.

const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { PassThrough } = require('node:stream')

/** The longest request line served (the SDK's own read buffer holds 10 MiB). */
const MAX_LINE_BYTES = 10 * 1024 * 1024
/** JSON-RPC "Invalid Request". */
const INVALID_REQUEST = -32600
/** JSON-RPC "Parse error". */
const PARSE_ERROR = -32700

/**
 * Passes whole lines from `input` to the returned stream; a line longer than
 * `max` bytes is dropped as it arrives (at most `max` bytes are held) and
 * `onTooLong(head)` is called with its first bytes, to answer it. A whole
 * line is passed on only when `accept(line)` (if given) returns true.
 */
function limitLines(input, max, onTooLong, accept = () => true) {
  const output = new PassThrough()
  let held = [] // the current line's chunks, while it is short enough
  let heldBytes = 0
  let dropping = null // the head of a line being dropped
  input.on('data', (chunk) => {
    let from = 0
    while (from < chunk.length) {
      const newline = chunk.indexOf(10, from)
      const end = newline === -1 ? chunk.length : newline + 1
      const piece = chunk.subarray(from, end)
      from = end
      if (dropping === null && heldBytes + piece.length > max + 1) {
        dropping = Buffer.concat([...held, piece]).subarray(0, 4096)
        held = []
        heldBytes = 0
      }
      if (dropping !== null) {
        if (newline !== -1) {
          onTooLong(dropping)
          dropping = null
        }
        continue
      }
      held.push(piece)
      heldBytes += piece.length
      if (newline !== -1) {
        const line = held.length === 1 ? held[0] : Buffer.concat(held)
        held = []
        heldBytes = 0
        if (accept(line)) output.write(line)
      }
    }
  })
  input.on('end', () => {
    if (dropping !== null) onTooLong(dropping)
    else if (heldBytes) output.write(Buffer.concat(held))
    output.end()
  })
  input.on('error', (err) => output.destroy(err))
  return output
}

/** The request id at the start of a line's head (`{"jsonrpc":"2.0","id":7,...`), else null. */
function idOf(head) {
  const m = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*[,}]/.exec(head.toString('utf8'))
  if (!m) return null
  try {
    return JSON.parse(m[1])
  } catch {
    return null
  }
}

/**
 * Why the SDK would drop `line` (one line of stdin, its newline included)
 * without an answer: the JSON-RPC error to answer it with, as
 * `{ id, code, message }`; `null` for a message the SDK reads, and for a
 * blank line, which is no message and is passed over. `schema` is the SDK's
 * own `JSONRPCMessageSchema`, so exactly what it refuses is answered.
 */
function refusalOf(line, schema) {
  const text = line.toString('utf8').replace(/\r?\n$/, '')
  if (text.trim() === '') return { id: null, code: null, message: null }
  let message
  try {
    message = JSON.parse(text)
  } catch (err) {
    return { id: null, code: PARSE_ERROR, message: `Parse error: the line is not valid JSON (${clip(err.message)})` }
  }
  if (Array.isArray(message)) {
    // MCP 2025-06-18 dropped JSON-RPC batching (and the SDK never read a batch):
    // one error for the whole array, as JSON-RPC answers a batch it cannot take.
    return { id: null, code: INVALID_REQUEST, message: 'Invalid Request: a batch (a JSON array) is not supported; send each message on a line of its own' }
  }
  if (schema.safeParse(message).success) return null
  const isObject = message !== null && typeof message === 'object'
  const id = isObject && (typeof message.id === 'string' || Number.isFinite(message.id)) ? message.id : null
  const why = !isObject
    ? 'a message is a JSON object'
    : message.jsonrpc !== '2.0'
      ? `\`jsonrpc\` must be "2.0" (got ${clip(JSON.stringify(message.jsonrpc) ?? 'none')})`
      : 'not a JSON-RPC 2.0 request, notification or response (a request has a `method` string, `params` an object if any, and an `id` string or integer)'
  return { id, code: INVALID_REQUEST, message: `Invalid Request: ${why}` }
}

/** At most 200 characters of `text`, for an error message. */
const clip = (text) => (text.length > 200 ? `${text.slice(0, 200)}…` : text)

const USAGE = `Usage: agent-find mcp [--root DIR]... [--timeout MS] [--no-index]

Serve the find, search_files and explain_path tools to an MCP client over stdio.
Every search stays inside the roots (default: the current folder); relative
paths start at the first root. A live index of each root answers repeated
searches from memory; until it is built, and wherever it cannot watch,
fresh walks answer.

Options:
  --root DIR        a folder the tools may search (repeatable)
  --timeout MS      give up on a tool call after MS milliseconds
  --no-index        answer every call with a fresh walk (no live index)
  -h, --help        show this help

Run it with npx -y agent-find mcp --root DIR: npx fetches the MCP SDK on first
use (npm install agent-find @modelcontextprotocol/sdk makes it start faster).
Client config: { "mcpServers": { "files": { "command": "npx", "args": ["-y", "agent-find", "mcp", "--root", "/path/to/project"] } } }`

/**
 * Where npm exec installed its packages, when this runs under it: the folders
 * holding the `node_modules/.bin` it put on PATH. A package npm exec links
 * from a folder (this one, when `withSdkThroughNpx` ran it) resolves its own
 * requires from its real location, which does not see the SDK npm exec
 * installed beside the link: the SDK is looked for there too.
 */
function npmExecFolders() {
  // Only in the run `withSdkThroughNpx` started: any other PATH may hold a
  // project's node_modules/.bin (npm run puts it there) whose SDK is not ours to use.
  if (process.env.npm_command !== 'exec' || !process.env[RETRIED]) return []
  return (process.env.PATH || '').split(path.delimiter)
    .filter((dir) => path.basename(dir) === '.bin' && path.basename(path.dirname(dir)) === 'node_modules')
    .map((dir) => path.dirname(path.dirname(dir)))
}

/** `require(id)`, else from the folders npm exec installed into. */
function requireSdk(id) {
  try {
    return require(id)
  } catch (cause) {
    const paths = npmExecFolders()
    if (!paths.length || !(cause && cause.code === 'MODULE_NOT_FOUND')) throw cause
    let found
    try {
      found = require.resolve(id, { paths })
    } catch {
      throw cause
    }
    return require(found)
  }
}

function loadSdk() {
  try {
    return {
      Server: requireSdk('@modelcontextprotocol/sdk/server/index.js').Server,
      StdioServerTransport: requireSdk('@modelcontextprotocol/sdk/server/stdio.js').StdioServerTransport,
      types: requireSdk('@modelcontextprotocol/sdk/types.js'),
    }
  } catch (cause) {
    if (cause && cause.code === 'MODULE_NOT_FOUND' && /@modelcontextprotocol\/sdk/.test(cause.message)) {
      const error = new Error(
        'agent-find mcp needs the MCP SDK, an optional peer dependency: ' +
          'npm install @modelcontextprotocol/sdk (or run it with npx -y agent-find mcp, which fetches the SDK)',
        { cause },
      )
      error.code = 'missing-sdk'
      throw error
    }
    throw cause
  }
}

/** Starts the server on stdin/stdout; resolves once it is connected. */
async function serve({ roots, timeoutMs, index = true } = {}) {
  const { createTools, toolDefinitions, READ_ONLY } = require('./tools.js')
  const { version } = require('../package.json')
  const { Server, StdioServerTransport, types } = loadSdk()
  const tools = createTools({ cwd: roots[0], roots, timeoutMs, index })

  const server = new Server(
    { name: 'agent-find', version },
    {
      capabilities: { tools: {} },
      instructions:
        `File search in ${roots.map((r) => `\`${r}\``).join(', ')}. Use find to list files by glob, type, size or date ` +
        `and search_files to search their contents; explain_path says why find does not list a path. Relative paths start at \`${roots[0]}\`; paths outside the roots are refused.`,
    },
  )

  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
    tools: Object.values(toolDefinitions).map((d) => ({
      name: d.name,
      title: d.title,
      description: d.description,
      inputSchema: d.parameters,
      annotations: { title: d.title, ...READ_ONLY },
    })),
  }))

  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params
    const { text, isError } = await tools.call(name, args ?? {}, { signal: extra && extra.signal })
    return { content: [{ type: 'text', text }], isError }
  })

  /** Answers a line the SDK does not get, and says so on stderr. */
  const refuse = (id, code, message) => {
    process.stderr.write(`agent-find: ${message}\n`)
    transport.send({ jsonrpc: '2.0', id, error: { code, message } }).catch(() => {})
  }
  const tooLong = (head) =>
    refuse(idOf(head), INVALID_REQUEST, `request line over ${MAX_LINE_BYTES} bytes (10 MiB): not read; send smaller arguments`)
  const input = limitLines(process.stdin, MAX_LINE_BYTES, tooLong, (line) => {
    const refused = refusalOf(line, types.JSONRPCMessageSchema)
    if (refused && refused.code !== null) refuse(refused.id, refused.code, refused.message)
    return refused === null
  })
  // The SDK's buffer may take more than one line at a time: room for several whole ones.
  const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: 4 * MAX_LINE_BYTES })
  transport.onerror = (err) => process.stderr.write(`agent-find: mcp: ${err && err.message}\n`)
  await server.connect(transport)
  return server
}

/** The `agent-find mcp ...` command line: parses `argv` (after `mcp`) and serves. */
async function main(argv) {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        root: { type: 'string', multiple: true },
        timeout: { type: 'string' },
        'no-index': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (err) {
    return fail('invalid-argument', `${err.message}\n\n${USAGE}`, 2)
  }
  if (values.help) return void process.stdout.write(`${USAGE}\n`)

  const roots = []
  for (const root of values.root && values.root.length ? values.root : [process.cwd()]) {
    let real
    try {
      real = fs.realpathSync(path.resolve(root))
    } catch {
      return fail('not-found', `root \`${root}\` does not exist`, 2)
    }
    if (!fs.statSync(real).isDirectory()) return fail('not-a-dir', `root \`${root}\` is not a folder`, 2)
    roots.push(real)
  }
  let timeoutMs
  if (values.timeout !== undefined) {
    timeoutMs = Number(values.timeout)
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return fail('invalid-argument', '--timeout takes a number of milliseconds', 2)
  }

  try {
    await serve({ roots, timeoutMs, index: !values['no-index'] })
  } catch (err) {
    if (err && err.code === 'missing-sdk') {
      if (withSdkThroughNpx(argv)) return
      return fail('missing-sdk', err.message, 1)
    }
    throw err
  }
}

/** Set in the environment of the run `withSdkThroughNpx` starts, so it is tried once. */
const RETRIED = 'AGENT_FIND_MCP_WITH_SDK'

/**
 * Run by `npx agent-find mcp` (npm exec) without the SDK beside it: runs the
 * same command again through npm exec, with this package and the SDK (the
 * peer range) as its packages, its stdio handed over, and exits as it does.
 * So `npx -y agent-find mcp --root DIR` works with nothing else installed,
 * while `npm install agent-find` never pulls the SDK in. False when not
 * under npm exec, or already retried.
 */
function withSdkThroughNpx(argv) {
  const npm = process.env.npm_execpath
  if (process.env.npm_command !== 'exec' || !npm || process.env[RETRIED]) return false
  const { spawn } = require('node:child_process')
  const pkg = require('../package.json')
  const range = pkg.peerDependencies['@modelcontextprotocol/sdk']
  const args = [npm, 'exec', '--yes', `--package=${path.join(__dirname, '..')}`, `--package=@modelcontextprotocol/sdk@${range}`, '--', 'agent-find', 'mcp', ...argv]
  process.stderr.write(`agent-find: mcp: the MCP SDK is not installed beside agent-find; running it through npm exec with @modelcontextprotocol/sdk@${range}\n`)
  const child = spawn(process.execPath, args, { stdio: 'inherit', env: { ...process.env, [RETRIED]: '1' } })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0)
  })
  child.on('error', (err) => fail('missing-sdk', `could not run npm exec to fetch the MCP SDK: ${err.message}`, 1))
  return true
}

function fail(code, message, status) {
  process.stderr.write(`agent-find: ${code}: ${message}\n`)
  process.exitCode = status
}

module.exports = { main, serve, limitLines, idOf, refusalOf, MAX_LINE_BYTES }
