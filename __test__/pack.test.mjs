// Install as a user does: `npm pack`, then `npm install <tarball>` in a fresh
// project, and there: `import` (ESM), `require` (CJS), the `agent-find` bin,
// the MCP server (with the SDK installed beside it, and a clear error without
// it), and a TypeScript file using the whole typed surface under `tsc --strict`.
// Uses only the local tarball and registry packages (from npm's cache when it
// has them).
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import readline from 'node:readline'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { REPO, makeTmp, removeTmp, writeTree } from './helpers.mjs'

const PKG = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'))
const NODE_FILES = fs.readdirSync(REPO).filter((f) => /^agent-find\..+\.node$/.test(f))
/** The native CLI as `npm run build` places it: a locally packed tarball carries it. */
const CLI_FILES = fs.readdirSync(REPO).filter((f) => /^agent-find\.[\w-]+(\.exe)?$/.test(f))
const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')
const versionOf = (name) => JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules', name, 'package.json'), 'utf8')).version

// What a user needs, and nothing else.
const EXPECTED_FILES = [
  'LICENSE', 'README.md', 'package.json', 'index.js', 'index.mjs', 'index.d.ts', 'index.d.mts', 'binding.js',
  'js/columns.js', 'js/errors.js', 'js/file-index.js', 'js/format.js', 'js/frameworks.js', 'js/mcp.js', 'js/native.js', 'js/options.js', 'js/policy.js', 'js/search.js', 'js/tools.js',
  'js/util.js', 'js/readers/adapter.js', 'js/readers/fs-errors.js', 'js/readers/memory.js', 'js/readers/mount.js', 'js/readers/paths.js',
  'bin/agent-find', 'bin/agent-find.js', 'bin/install.js', ...NODE_FILES, ...CLI_FILES,
].sort()

/** Runs npm (npm.cmd on Windows) and returns its stdout; fails the test with stderr otherwise. */
/** This process's PATH without any node_modules/.bin (npm test puts this repository's there, with its SDK). */
const PLAIN_PATH = (process.env.PATH ?? '').split(path.delimiter).filter((p) => !p.endsWith(path.join('node_modules', '.bin'))).join(path.delimiter)

/** The oldest MCP SDK the peer range admits: tested here beside the newest (the devDependency). */
const OLDEST_SDK = /^>=(\d+\.\d+\.\d+) <2$/.exec(PKG.peerDependencies['@modelcontextprotocol/sdk'])?.[1] ?? 'unknown'

function npm(args, cwd) {
  const out = spawnSync('npm', args, {
    cwd, encoding: 'utf8', shell: process.platform === 'win32', env: { ...process.env, npm_config_update_notifier: 'false' },
  })
  assert.equal(out.status, 0, `npm ${args.join(' ')} failed:\n${out.stderr}`)
  return out.stdout
}

function node(args, cwd) {
  return spawnSync(process.execPath, args, { cwd, encoding: 'utf8' })
}

function listFiles(dir, base = dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name)
    return e.isDirectory() ? listFiles(full, base) : [path.relative(base, full).split(path.sep).join('/')]
  })
}

const ESM_SCRIPT = `
import { find, findFiles, searchFiles, formatFindResult, formatSearchResult, FindFilesError, createTools, toolDefinitions } from 'agent-find'
import * as all from 'agent-find'
const result = await find('**/*.txt', { path: 'data', sortBy: 'name' })
const files = await findFiles('**/*.txt', 'data')
const hits = await searchFiles({ pattern: 'hello', path: 'data' })
let code
try { await find({ pattern: '*', path: 'missing' }) } catch (e) { code = e instanceof FindFilesError && e.code }
const tools = createTools({ cwd: 'data' })
console.log(JSON.stringify({
  text: formatFindResult(result), files, hits: formatSearchResult(hits), code,
  tool: (await tools.call('find', { pattern: '**/*.txt', sortBy: 'name' })).text,
  toolNames: Object.keys(toolDefinitions), exports: Object.keys(all).sort(),
}))
`

const CJS_SCRIPT = `
const af = require('agent-find')
af.find('**/*.txt', { path: 'data', sortBy: 'name' }).then(async (result) => {
  const esm = await import('agent-find')
  console.log(JSON.stringify({
    text: af.formatFindResult(result), sameAsEsm: esm.find === af.find && esm.default === af,
    resolved: require.resolve('agent-find'), exports: Object.keys(af).sort(),
  }))
})
`

const MCP_CLIENT = `
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
const transport = new StdioClientTransport({
  command: process.execPath, args: ['node_modules/agent-find/bin/agent-find.js', 'mcp', '--root', 'data'],
})
const client = new Client({ name: 'consumer', version: '1.0.0' })
await client.connect(transport)
const { tools } = await client.listTools()
const found = await client.callTool({ name: 'find', arguments: { pattern: '**/*.txt', sortBy: 'name' } })
const denied = await client.callTool({ name: 'search_files', arguments: { pattern: 'x', path: '..' } })
await client.close()
console.log(JSON.stringify({ names: tools.map((t) => t.name), found: found.content[0].text, denied: [denied.isError, denied.content[0].text] }))
`

// Every export, option and result type of the public surface, as a user writes it.
const USAGE_TS = `
import {
  find, findFiles, searchFiles, formatFindResult, formatSearchResult, FindFilesError,
  createTools, toolDefinitions, openaiTool, anthropicTool, vercelTool,
  type FindOptions, type FindResult, type FindEntry, type OmittedDir, type EntryType, type Decision,
  type AccessRequest, type FindFilesErrorCode, type SearchOptions, type SearchResult, type ContentSearchResult,
  type FilesSearchResult, type CountSearchResult, type LineMatch, type CallOptions,
  type Tools, type ToolCallResult, type ToolDefinition, type ToolName, type OpenAITool, type AnthropicTool,
  type VercelTool, type WorkspaceOptions, type FindToolArgs, type SearchToolArgs, type ToolInputSchema, type JsonSchema,
} from 'agent-find'

const policy = (req: AccessRequest): Decision => (req.tool === 'find' ? 'allow' : 'deny')
const options: FindOptions = { pattern: '**/*.ts', path: 'src', limit: 10, sortBy: 'size', reverse: true, policy, signal: AbortSignal.timeout(1000) }
const where: CallOptions = { cwd: '/w', roots: ['/w'] }

export async function main(): Promise<string[]> {
  const result: FindResult = await find(options)
  const again: FindResult = await find('*.md', { ...where, type: 'dir' })
  const entries: FindEntry[] = result.entries
  const kinds: EntryType[] = entries.map((e) => e.type)
  const omitted: OmittedDir[] = again.omitted ?? []
  const files: string[] = await findFiles('**/*.ts', 'src')
  const search: SearchOptions = { pattern: 'TODO', fileGlob: '*.ts', ignoreCase: true }
  const content: ContentSearchResult = await searchFiles({ pattern: 'TODO', fileGlob: '*.ts', ignoreCase: true })
  const lines: LineMatch[] = content.matches
  const named: FilesSearchResult = await searchFiles({ pattern: 'config', target: 'files' })
  const counts: CountSearchResult = await searchFiles({ pattern: 'x', outputMode: 'count' })
  const any: SearchResult = await searchFiles({ ...search, outputMode: 'files' })
  let code: FindFilesErrorCode | undefined
  try {
    await find({ pattern: '' })
  } catch (err) {
    if (err instanceof FindFilesError) code = err.code
  }
  // @ts-expect-error: 'folder' is not an entry type filter
  await find('*', { type: 'folder' })

  const workspace: WorkspaceOptions = { cwd: '/w', roots: ['/w'], maxLimit: Infinity }
  const tools: Tools = createTools(workspace)
  const args: FindToolArgs = { pattern: '**/*.md', modifiedSince: '24h' }
  const found: FindResult = await tools.find(args)
  const searchArgs: SearchToolArgs = { pattern: 'TODO', outputMode: 'count' }
  const counted: CountSearchResult = await tools.searchFiles({ ...searchArgs, outputMode: 'count' })
  const paths: string[] = await tools.findFiles({ pattern: '*.ts' })
  const call: ToolCallResult = await tools.call('find', '{"pattern":"*"}')
  const name: ToolName = toolDefinitions.search_files.name
  const def: ToolDefinition = toolDefinitions.find
  const schema: ToolInputSchema = openaiTool(def).function.parameters
  const limit: JsonSchema | undefined = def.parameters.properties.limit
  const oa: OpenAITool[] = tools.openaiTools
  const an: AnthropicTool = anthropicTool(toolDefinitions.search_files)
  const ve: VercelTool = vercelTool(def, async () => 'text')
  // @ts-expect-error: the workspace is fixed by the host, not by tool arguments
  await tools.find({ pattern: '*', roots: ['/'] })
  return [
    formatFindResult(result), formatSearchResult(any), String(kinds), String(omitted.length), ...files,
    String(lines.length), String(named.files.length), String(counts.counts.length), String(code),
    String(found.matched), String(counted.matchCount), ...paths, call.text, name, String(schema.required),
    String(limit?.default), String(oa.length), an.name, ve.description,
  ]
}
`

const USAGE_CTS = `
import agentFind = require('agent-find')
import type { FindResult } from 'agent-find'
export async function cjs(): Promise<number> {
  const result: FindResult = await agentFind.find('**/*.ts')
  const tools = agentFind.createTools({ cwd: '.' })
  return result.entries.length + tools.definitions.length
}
`

describe('npm pack, then npm install the tarball in a fresh project', { skip: NODE_FILES.length === 1 ? false : 'needs exactly one built binary' }, () => {
  let tmp, project, packed

  before(() => {
    tmp = makeTmp()
    project = path.join(tmp, 'consumer')
    writeTree(project, {
      'package.json': JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
      'data/a.txt': 'hello\n',
      'data/deep/b.txt': '',
      'data/deep/c.md': '',
    })
    packed = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp], REPO))[0]
    npm(['install', path.join(tmp, packed.filename), '--no-audit', '--no-fund', '--prefer-offline'], project)
  })

  after(() => removeTmp(tmp))

  test('the tarball holds only what a user needs', () => {
    assert.equal(packed.name, 'agent-find')
    assert.equal(packed.version, PKG.version)
    const files = packed.files.map((f) => f.path).sort()
    assert.deepEqual(files, EXPECTED_FILES)
    for (const f of files) assert.ok(!/^(target|src|__test__|bench|npm|scripts|\.github|\.ci)\//.test(f), f)
    // Two binaries (the .node and the CLI, ~4.5 MB each packed) and a little JS.
    assert.ok(packed.size < 12 * 1024 * 1024, `tarball size ${packed.size}`)
  })

  test('installed: exactly the tarball files, no dependencies pulled in', () => {
    const dir = path.join(project, 'node_modules', 'agent-find')
    assert.deepEqual(listFiles(dir).sort(), EXPECTED_FILES)
    const installed = fs.readdirSync(path.join(project, 'node_modules')).filter((d) => !d.startsWith('.'))
    assert.deepEqual(installed, ['agent-find'], 'the MCP SDK is an optional peer: not installed unless asked for')
  })

  /** Writes `source` into the project as `name`, runs it, and returns what it printed as JSON. */
  function runInProject(name, source) {
    const script = path.join(project, name)
    fs.writeFileSync(script, source)
    const out = node([script], project)
    assert.equal(out.status, 0, out.stderr)
    return JSON.parse(out.stdout)
  }

  test("ESM: import { find } from 'agent-find' works", () => {
    const r = runInProject('esm.mjs', ESM_SCRIPT)
    assert.equal(r.text, `Search directory: ${path.join(project, 'data')}\na.txt\ndeep/b.txt`)
    assert.deepEqual(r.files, [path.join(project, 'data', 'a.txt'), path.join(project, 'data', 'deep', 'b.txt')])
    assert.equal(r.hits, `Search directory: ${path.join(project, 'data')}\nFound 1 matching line in 1 file.\na.txt\n1: hello`)
    assert.equal(r.code, 'not-found')
    assert.equal(r.tool, r.text)
    assert.deepEqual(r.toolNames, ['find', 'search_files', 'explain_path'])
    assert.deepEqual(r.exports, [
      'FindFilesError', 'anthropicTool', 'claudeAgentServer', 'createTools', 'default', 'explain', 'fileTypes', 'find', 'findFiles', 'formatFindResult',
      'formatSearchResult', 'langchainTools', 'mastraTools', 'memoryReader', 'mountReader', 'openIndex', 'openaiAgentsTools', 'openaiResponsesTool',
      'openaiTool', 'searchFiles', 'toolDefinitions', 'vercelTool',
    ])
  })

  test("CJS: require('agent-find') works, the same module as the ESM entry", () => {
    const r = runInProject('cjs.cjs', CJS_SCRIPT)
    assert.equal(r.text, `Search directory: ${path.join(project, 'data')}\na.txt\ndeep/b.txt`)
    assert.equal(r.sameAsEsm, true)
    assert.equal(r.resolved, path.join(project, 'node_modules', 'agent-find', 'index.js'))
  })

  test('the agent-find bin is linked and runs; under npm off Windows, the postinstall made it the native binary', () => {
    const bin = path.join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'agent-find.cmd' : 'agent-find')
    assert.ok(fs.existsSync(bin))
    if (process.platform !== 'win32') {
      const head = fs.readFileSync(bin).subarray(0, 2).toString()
      assert.notEqual(head, '#!', 'bin/install.js put the binary in the place of the JS bin')
      const installed = path.join(project, 'node_modules', 'agent-find', 'bin', 'agent-find')
      assert.equal(fs.statSync(bin).ino, fs.statSync(installed).ino, '.bin/agent-find links to bin/agent-find')
    }
    const out = spawnSync(bin, ['**/*.md', 'data'], { cwd: project, encoding: 'utf8', shell: process.platform === 'win32' })
    assert.equal(out.status, 0, out.stderr)
    assert.equal(out.stdout, `Search directory: ${path.join(project, 'data')}\ndeep/c.md\n`)
  })

  test('agent-find mcp without the SDK: a clear error saying what to install', () => {
    const out = node(['node_modules/agent-find/bin/agent-find.js', 'mcp'], project)
    assert.equal(out.status, 1)
    assert.match(out.stderr, /^agent-find: missing-sdk: agent-find mcp needs the MCP SDK, an optional peer dependency: npm install @modelcontextprotocol\/sdk/)
  })

  test('npx agent-find mcp without the SDK runs itself again through npm exec with the SDK, and exits as that run does', () => {
    // A stand-in for npm's CLI that records how it was called.
    const fakeNpm = path.join(project, 'fake-npm.cjs')
    const record = path.join(project, 'npm-exec.json')
    fs.writeFileSync(fakeNpm, `require('fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), retried: process.env.AGENT_FIND_MCP_WITH_SDK })); process.exit(7)`)
    const out = spawnSync(process.execPath, ['node_modules/agent-find/bin/agent-find.js', 'mcp', '--root', 'data'], {
      cwd: project, encoding: 'utf8', env: { ...process.env, PATH: PLAIN_PATH, npm_command: 'exec', npm_execpath: fakeNpm },
    })
    assert.equal(out.status, 7, out.stderr)
    assert.match(out.stderr, /running it through npm exec with @modelcontextprotocol\/sdk@>=1\.20\.0 <2/)
    const { argv, retried } = JSON.parse(fs.readFileSync(record, 'utf8'))
    assert.deepEqual(argv, [
      'exec', '--yes', `--package=${path.join(project, 'node_modules', 'agent-find')}`,
      `--package=@modelcontextprotocol/sdk@${PKG.peerDependencies['@modelcontextprotocol/sdk']}`, '--', 'agent-find', 'mcp', '--root', 'data',
    ])
    assert.equal(retried, '1', 'the second run is marked, so it never loops')
    // Already retried: the plain error, no third run.
    const again = spawnSync(process.execPath, ['node_modules/agent-find/bin/agent-find.js', 'mcp'], {
      cwd: project, encoding: 'utf8', env: { ...process.env, PATH: PLAIN_PATH, npm_command: 'exec', npm_execpath: fakeNpm, AGENT_FIND_MCP_WITH_SDK: '1' },
    })
    assert.equal(again.status, 1)
    assert.match(again.stderr, /missing-sdk/)
  })

  test('npm exec agent-find mcp in a folder with nothing installed: the server answers (the SDK fetched through npm exec)', async () => {
    const empty = path.join(tmp, 'empty')
    writeTree(empty, { 'data/a.txt': 'hello\n' })
    const child = spawn('npm', ['exec', '--yes', `--package=${path.join(tmp, packed.filename)}`, '--', 'agent-find', 'mcp', '--root', 'data', '--no-index'], {
      cwd: empty, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PATH: PLAIN_PATH, npm_config_audit: 'false', npm_config_fund: 'false' },
    })
    let err = ''
    child.stderr.on('data', (d) => { err += d })
    const lines = readline.createInterface({ input: child.stdout })
    const replies = new Map()
    const waiting = new Map()
    lines.on('line', (line) => {
      const msg = JSON.parse(line)
      if (msg.id !== undefined) (waiting.get(msg.id) ?? ((m) => replies.set(msg.id, m)))(msg)
    })
    const ask = (id, method, params) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method} in 120 s; stderr: ${err}`)), 120_000)
      waiting.set(id, (m) => { clearTimeout(timer); resolve(m) })
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
    try {
      const init = await ask(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } })
      assert.equal(init.result.serverInfo.name, 'agent-find', JSON.stringify(init))
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
      const list = await ask(2, 'tools/list', {})
      assert.deepEqual(list.result.tools.map((t) => t.name), ['find', 'search_files', 'explain_path'])
      const call = await ask(3, 'tools/call', { name: 'find', arguments: { pattern: '**/*.txt' } })
      assert.equal(call.result.content[0].text, `Search directory: ${fs.realpathSync(path.join(empty, 'data'))}\na.txt`)
      assert.match(err, /running it through npm exec with @modelcontextprotocol\/sdk/)
    } finally {
      child.stdin.end()
      child.kill()
    }
  })

  describe('with the MCP SDK and @types/node installed beside it', () => {
    before(() => {
      npm([
        'install', `@modelcontextprotocol/sdk@${versionOf('@modelcontextprotocol/sdk')}`, `@types/node@${versionOf('@types/node')}`,
        '--no-audit', '--no-fund', '--prefer-offline',
      ], project)
    })

    test('the MCP server from the installed package answers the SDK client', () => {
      const script = path.join(project, 'mcp-client.mjs')
      fs.writeFileSync(script, MCP_CLIENT)
      const out = node([script], project)
      assert.equal(out.status, 0, out.stderr)
      const r = JSON.parse(out.stdout)
      assert.deepEqual(r.names, ['find', 'search_files', 'explain_path'])
      assert.equal(r.found, `Search directory: ${path.join(project, 'data')}\na.txt\ndeep/b.txt`)
      assert.equal(r.denied[0], true)
      assert.match(r.denied[1], /^Error \(outside-root\): /)
    })

    test('a .ts (ESM) and a .cts (CJS) file using the whole typed surface compile under tsc --strict', () => {
      fs.writeFileSync(path.join(project, 'usage.ts'), USAGE_TS)
      fs.writeFileSync(path.join(project, 'usage-cjs.cts'), USAGE_CTS)
      fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({
        compilerOptions: {
          strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022',
          lib: ['es2022'], types: ['node'], noUnusedLocals: true,
        },
        files: ['usage.ts', 'usage-cjs.cts'],
      }))
      const out = node([TSC, '-p', path.join(project, 'tsconfig.json')], project)
      assert.equal(out.status, 0, `tsc failed:\n${out.stdout}${out.stderr}`)
      // And the check is real: a wrong type in the same project is an error.
      fs.writeFileSync(path.join(project, 'wrong.ts'), "import { find } from 'agent-find'\nexport const r = find({ pattern: '*', limit: '10' })\n")
      fs.writeFileSync(path.join(project, 'tsconfig.wrong.json'), JSON.stringify({
        extends: './tsconfig.json', files: ['wrong.ts'],
      }))
      const wrong = node([TSC, '-p', path.join(project, 'tsconfig.wrong.json')], project)
      assert.notEqual(wrong.status, 0)
      assert.match(wrong.stdout, /wrong\.ts.*limit|Type 'string' is not assignable to type 'number'/s)
    })
  })

  // The oldest SDK the peer range admits, in a project of its own.
  describe(`with the oldest supported MCP SDK (${OLDEST_SDK})`, () => {
    let oldProject
    before(() => {
      oldProject = path.join(tmp, 'oldest-sdk')
      writeTree(oldProject, {
        'package.json': JSON.stringify({ name: 'oldest', version: '1.0.0', private: true, type: 'module' }),
        'data/a.txt': 'hello\n',
        'data/deep/b.txt': '',
      })
      npm(['install', path.join(tmp, packed.filename), `@modelcontextprotocol/sdk@${OLDEST_SDK}`, '--no-audit', '--no-fund', '--prefer-offline'], oldProject)
    })

    test('npm accepts it beside agent-find, and the MCP server answers its client', () => {
      const installed = JSON.parse(fs.readFileSync(path.join(oldProject, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8'))
      assert.equal(installed.version, OLDEST_SDK)
      const script = path.join(oldProject, 'mcp-client.mjs')
      fs.writeFileSync(script, MCP_CLIENT)
      const out = node([script], oldProject)
      assert.equal(out.status, 0, out.stderr)
      const r = JSON.parse(out.stdout)
      assert.deepEqual(r.names, ['find', 'search_files', 'explain_path'])
      assert.equal(r.found, `Search directory: ${path.join(oldProject, 'data')}\na.txt\ndeep/b.txt`)
      assert.match(r.denied[1], /^Error \(outside-root\): /)
    })
  })
})
