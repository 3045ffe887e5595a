// `agent-find mcp`: the MCP server over stdio, driven by the official SDK's
// client as a child process: list the tools, call each, and get errors
// (a path outside --root, bad arguments) back as tool errors, not crashes.
import assert from 'node:assert/strict'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { find, formatFindResult, formatSearchResult, searchFiles, toolDefinitions } from '../index.mjs'
import { REPO, makeTmp, removeTmp, writeTree } from './helpers.mjs'

const BIN = path.join(REPO, 'bin', 'agent-find.js')

/** Starts `agent-find mcp ...args` and connects the SDK client to it. */
async function connect(args) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], stderr: 'pipe' })
  let stderr = ''
  transport.stderr.on('data', (chunk) => { stderr += chunk })
  const client = new Client({ name: 'agent-find-test', version: '1.0.0' })
  await client.connect(transport)
  return { client, transport, stderr: () => stderr }
}

const textOf = (result) => {
  assert.equal(result.content.length, 1)
  assert.equal(result.content[0].type, 'text')
  return result.content[0].text
}

describe('agent-find mcp', () => {
  let tmp, root, other, outside, server

  before(async () => {
    tmp = makeTmp()
    root = path.join(tmp, 'project')
    other = path.join(tmp, 'other')
    outside = path.join(tmp, 'outside')
    writeTree(tmp, {
      'project/README.md': '# project\nTODO(ana): docs\n',
      'project/src/app.ts': 'export const app = 1 // TODO(bo)\n',
      'project/src/util.ts': 'export function util() {}\n',
      'project/node_modules/dep/index.js': 'TODO(dep)\n',
      'other/notes.md': 'TODO(other)\n',
      'outside/secret.txt': 'TODO(secret)\n',
    })
    fs.symlinkSync(outside, path.join(root, 'escape'))
    server = await connect(['--root', root, '--root', other])
  })

  after(async () => {
    if (server) await server.client.close()
    removeTmp(tmp)
  })

  test('initializes as agent-find, with instructions naming the roots', () => {
    const info = server.client.getServerVersion()
    assert.equal(info.name, 'agent-find')
    assert.equal(info.version, JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version)
    assert.ok(server.client.getServerCapabilities().tools)
    const instructions = server.client.getInstructions()
    assert.ok(instructions.includes(root) && instructions.includes(other), instructions)
  })

  test('lists find, search_files and explain_path with the JSON Schemas of toolDefinitions, read-only', async () => {
    const { tools } = await server.client.listTools()
    assert.deepEqual(tools.map((t) => t.name), ['find', 'search_files', 'explain_path'])
    for (const tool of tools) {
      const def = toolDefinitions[tool.name]
      assert.equal(tool.description, def.description)
      assert.deepEqual(tool.inputSchema, def.parameters)
      assert.equal(tool.annotations.readOnlyHint, true)
      assert.equal(tool.annotations.destructiveHint, false)
      assert.equal(tool.annotations.openWorldHint, false)
    }
  })

  test('find answers the model text of formatFindResult, relative to the first root', async () => {
    const args = { pattern: '**/*.ts', sortBy: 'name' }
    const result = await server.client.callTool({ name: 'find', arguments: args })
    assert.equal(result.isError, false)
    assert.equal(textOf(result), formatFindResult(await find({ ...args, cwd: root })))
    assert.equal(textOf(result), `Search directory: ${root}\nsrc/app.ts\nsrc/util.ts`)
  })

  test('search_files answers the model text of formatSearchResult, in each output mode', async () => {
    for (const args of [
      { pattern: 'TODO\\((\\w+)\\)' },
      { pattern: 'todo', ignoreCase: true, outputMode: 'count' },
      { pattern: 'TODO', outputMode: 'files', noIgnore: true },
      { pattern: 'util', target: 'files' },
    ]) {
      const result = await server.client.callTool({ name: 'search_files', arguments: args })
      assert.equal(result.isError, false, JSON.stringify(args))
      assert.equal(textOf(result), formatSearchResult(await searchFiles({ ...args, cwd: root })), JSON.stringify(args))
    }
    const content = await server.client.callTool({ name: 'search_files', arguments: { pattern: 'TODO' } })
    assert.equal(
      textOf(content),
      `Search directory: ${root}\nFound 2 matching lines in 2 files.\nREADME.md\n2: TODO(ana): docs\nsrc/app.ts\n1: export const app = 1 // TODO(bo)`,
    )
  })

  test('the other root is searchable by its absolute path', async () => {
    const result = await server.client.callTool({ name: 'find', arguments: { pattern: '*.md', path: other } })
    assert.equal(result.isError, false)
    assert.equal(textOf(result), `Search directory: ${other}\nnotes.md`)
  })

  test('a path outside the roots comes back as a tool error with the code and message, and the server lives on', async () => {
    const denied = [
      ['find', { pattern: '*', path: '..' }, path.dirname(root)],
      ['find', { pattern: '*', path: outside }, outside],
      ['find', { pattern: '*', path: 'escape' }, path.join(root, 'escape')],
      ['search_files', { pattern: 'TODO', path: outside }, outside],
      ['search_files', { pattern: 'TODO', path: '/' }, '/'],
    ]
    for (const [name, args, where] of denied) {
      const result = await server.client.callTool({ name, arguments: args })
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`)
      const text = textOf(result)
      assert.match(text, /^Error \(outside-root\): /, text)
      assert.ok(text.includes(`\`${where}\` resolves outside the allowed roots`), text)
      assert.ok(!text.includes('secret'), 'nothing from outside leaks')
    }
    const still = await server.client.callTool({ name: 'find', arguments: { pattern: 'README.md' } })
    assert.equal(still.isError, false, 'the server still answers')
  })

  test('bad arguments, a bad pattern and an unknown tool are tool errors too', async () => {
    const cases = [
      ['find', { pattern: '*', roots: ['/'] }, /^Error \(invalid-argument\): find: `roots` is set by the host/],
      ['find', { pattern: '*', type: 'folder' }, /^Error \(invalid-argument\): /],
      ['find', {}, /^Error \(invalid-argument\): /],
      ['find', { pattern: 'src/[abc' }, /^Error \(invalid-pattern\): /],
      ['search_files', { pattern: '(unclosed' }, /^Error \(invalid-pattern\): /],
      ['find', { pattern: '*', path: 'missing' }, /^Error \(not-found\): /],
      ['grep', { pattern: 'x' }, /^Error \(invalid-argument\): unknown tool `grep`/],
    ]
    for (const [name, args, expected] of cases) {
      const result = await server.client.callTool({ name, arguments: args })
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`)
      assert.match(textOf(result), expected)
    }
    const noArgs = await server.client.callTool({ name: 'find' })
    assert.equal(noArgs.isError, true)
    assert.equal(server.stderr(), '', 'nothing on stderr: no crash, no warnings')
  })

  test('explain_path refuses a path no file can have as explain() does: invalid-argument', async () => {
    for (const [p, says] of [['README.md\0', /NUL byte/], ['x'.repeat(5000), /too long/], [`src/${'y'.repeat(300)}`, /too long/]]) {
      const result = await server.client.callTool({ name: 'explain_path', arguments: { path: p } })
      assert.equal(result.isError, true, p.slice(0, 20))
      assert.match(textOf(result), /^Error \(invalid-argument\): /)
      assert.match(textOf(result), says)
    }
    const fine = await server.client.callTool({ name: 'explain_path', arguments: { path: 'src/app.ts' } })
    assert.equal(fine.isError, false)
    assert.match(textOf(fine), /is in the results/)
  })
})

describe('agent-find mcp: a malformed request gets a JSON-RPC error, and the server keeps serving', () => {
  /** `agent-find mcp` on raw stdio: what it answers, one message a line. */
  function rawServer(t, root) {
    const child = spawn(process.execPath, [BIN, 'mcp', '--root', root, '--no-index'], { stdio: ['pipe', 'pipe', 'pipe'] })
    t.after(() => child.kill('SIGKILL'))
    const got = []
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => {
      out += d
      let i
      while ((i = out.indexOf('\n')) >= 0) {
        got.push(JSON.parse(out.slice(0, i)))
        out = out.slice(i + 1)
      }
    })
    child.stderr.on('data', (d) => { err += d })
    child.stdin.on('error', () => {})
    const send = (line) => child.stdin.write(`${line}\n`)
    /** Waits until `done(got)` holds (10 s at most). */
    const until = async (done, what) => {
      const deadline = Date.now() + 10_000
      while (!done(got)) {
        if (Date.now() > deadline) assert.fail(`no ${what} within 10 s; got ${JSON.stringify(got)}; stderr: ${err}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    }
    return { child, got, send, until, stderr: () => err }
  }

  test('not JSON, no or a wrong `jsonrpc`, a batch, not a request: each answered once, in order, then a call is served', async (t) => {
    const root = makeTmp()
    t.after(() => removeTmp(root))
    writeTree(root, { 'a.txt': 'a\n' })
    const server = rawServer(t, root)
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }))
    await server.until((got) => got.some((m) => m.id === 1), 'answer to initialize')
    server.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
    const malformed = [
      ['{"jsonrpc":"2.0","id":7,"method":"tools/list"', null, -32700, /^Parse error: the line is not valid JSON/],
      ['{"id":8,"method":"tools/list"}', 8, -32600, /^Invalid Request: `jsonrpc` must be "2\.0" \(got none\)/],
      ['{"jsonrpc":"1.0","id":9,"method":"tools/list"}', 9, -32600, /^Invalid Request: `jsonrpc` must be "2\.0" \(got "1\.0"\)/],
      ['[{"jsonrpc":"2.0","id":10,"method":"tools/list"}]', null, -32600, /^Invalid Request: a batch \(a JSON array\) is not supported/],
      ['[]', null, -32600, /batch/],
      ['42', null, -32600, /a message is a JSON object/],
      ['{"jsonrpc":"2.0","id":"s","method":5}', 's', -32600, /not a JSON-RPC 2\.0 request/],
      ['{"jsonrpc":"2.0","id":12,"method":"tools/list","params":[1]}', 12, -32600, /not a JSON-RPC 2\.0 request/],
      ['{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}', null, -32600, /an `id` string or integer/],
      ['{"jsonrpc":"2.0","method":"notifications/x","params":"p"}', null, -32600, /not a JSON-RPC 2\.0 request/],
    ]
    for (const [line] of malformed) server.send(line)
    server.send('') // a blank line is no message: no answer
    server.send('   ')
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'find', arguments: { pattern: '*' } } }))
    server.send(`${JSON.stringify({ jsonrpc: '2.0', id: 21, method: 'ping' })}\r`) // CRLF, as the SDK reads it
    await server.until((got) => got.some((m) => m.id === 20) && got.some((m) => m.id === 21), 'answer to the calls after the malformed lines')
    await new Promise((r) => setTimeout(r, 200)) // nothing more arrives
    const errors = server.got.filter((m) => m.error)
    assert.deepEqual(errors.map((m) => [m.id, m.error.code]), malformed.map(([, id, code]) => [id, code]), JSON.stringify(errors))
    errors.forEach((m, i) => {
      assert.equal(m.jsonrpc, '2.0')
      assert.match(m.error.message, malformed[i][3])
    })
    assert.equal(server.got.length, 1 + malformed.length + 2, 'one answer for each line, none for the blank ones')
    assert.equal(server.got.find((m) => m.id === 20).result.content[0].text, `Search directory: ${root}\na.txt`)
    assert.deepEqual(server.got.find((m) => m.id === 21).result, {})
    assert.equal(server.child.exitCode, null, 'still running')
    assert.match(server.stderr(), /Parse error/)
    assert.match(server.stderr(), /Invalid Request: a batch/)
  })

  test('a malformed line before initialize is answered too, and initialize still works', async (t) => {
    const root = makeTmp()
    t.after(() => removeTmp(root))
    const server = rawServer(t, root)
    server.send('not json at all')
    server.send('{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}')
    await server.until((got) => got.length === 2, 'two answers')
    assert.deepEqual(server.got[0], { jsonrpc: '2.0', id: null, error: { code: -32700, message: server.got[0].error.message } })
    assert.equal(server.got[1].id, 3)
    assert.equal(server.got[1].result.serverInfo.name, 'agent-find')
  })
})

describe('agent-find mcp: the command line', () => {
  test('the current folder is the root by default', async () => {
    const tmp = makeTmp()
    try {
      writeTree(tmp, { 'a.txt': '' })
      const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: tmp, stderr: 'pipe' })
      const client = new Client({ name: 't', version: '1' })
      await client.connect(transport)
      const result = await client.callTool({ name: 'find', arguments: { pattern: '*' } })
      assert.equal(textOf(result), `Search directory: ${tmp}\na.txt`)
      const up = await client.callTool({ name: 'find', arguments: { pattern: '*', path: '..' } })
      assert.equal(up.isError, true)
      await client.close()
    } finally {
      removeTmp(tmp)
    }
  })

  test('a live index answers by default and follows changes; --no-index answers the same from fresh walks', async () => {
    const tmp = makeTmp()
    const clients = []
    try {
      writeTree(tmp, { 'src/a.ts': 'TODO\n', 'b.md': '' })
      for (const extra of [[], ['--no-index']]) {
        const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', tmp, ...extra], stderr: 'pipe' })
        const client = new Client({ name: 't', version: '1' })
        await client.connect(transport)
        clients.push(client)
      }
      const ask = (client, args) => client.callTool({ name: 'find', arguments: args }).then(textOf)
      const fresh = async (args) => formatFindResult(await find({ cwd: tmp, roots: [tmp], ...args }))
      fs.writeFileSync(path.join(tmp, 'src', 'c.ts'), '')
      for (const args of [{ pattern: '**/*.ts', sortBy: 'name' }, { pattern: '**', type: 'any', sortBy: 'name' }]) {
        // The indexed server sees the new file once its watcher has: within a few seconds at most.
        const want = await fresh(args)
        const deadline = Date.now() + 5000
        let got = await ask(clients[0], args)
        while (got !== want && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50))
          got = await ask(clients[0], args)
        }
        assert.equal(got, want, 'indexed')
        assert.equal(await ask(clients[1], args), want, '--no-index')
      }
    } finally {
      for (const client of clients) await client.close()
      removeTmp(tmp)
    }
  })

  test('--help prints the usage; a missing root or unknown flag exits 2', () => {
    const help = spawnSync(process.execPath, [BIN, 'mcp', '--help'], { encoding: 'utf8' })
    assert.equal(help.status, 0)
    assert.match(help.stdout, /^Usage: agent-find mcp \[--root DIR\]/)
    const missing = spawnSync(process.execPath, [BIN, 'mcp', '--root', '/definitely/not/here'], { encoding: 'utf8' })
    assert.equal(missing.status, 2)
    assert.match(missing.stderr, /^agent-find: not-found: root `\/definitely\/not\/here` does not exist/)
    const bad = spawnSync(process.execPath, [BIN, 'mcp', '--rooot', '.'], { encoding: 'utf8' })
    assert.equal(bad.status, 2)
    assert.match(bad.stderr, /^agent-find: invalid-argument: /)
    const main = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' })
    assert.match(main.stdout, /agent-find mcp --root DIR/, 'the main help mentions the subcommand')
  })

  test("--help shows the README's command and client config, and no SDK to install first", () => {
    const help = spawnSync(process.execPath, [BIN, 'mcp', '--help'], { encoding: 'utf8' }).stdout
    const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8')
    const api = fs.readFileSync(path.join(REPO, 'docs', 'API.md'), 'utf8')
    assert.match(readme, /npx -y agent-find mcp --root /)
    assert.match(help, /npx -y agent-find mcp --root DIR/)
    assert.doesNotMatch(help, /Needs @modelcontextprotocol|"-p"/, 'npx -y agent-find mcp works alone')
    // The client config in the help is the README's (and docs/API.md's), as JSON.
    const config = (text) => JSON.parse(/^(?:Client config: )?(\{ "mcpServers": .*\})$/m.exec(text)?.[1] ?? 'null')
    const want = config(readme)
    assert.ok(want, "the README has the client config on one line")
    assert.deepEqual(config(help), want)
    assert.deepEqual(config(api), want)
    assert.deepEqual(want.mcpServers.files.args.slice(0, 3), ['-y', 'agent-find', 'mcp'])
  })

  test("require('agent-find') does not load the MCP SDK", () => {
    const out = execFileSync(process.execPath, [
      '-e',
      `require(${JSON.stringify(REPO)}); console.log(Object.keys(require.cache).filter((k) => k.includes('modelcontextprotocol') || k.endsWith('mcp.js')).length)`,
    ], { encoding: 'utf8' })
    assert.equal(out.trim(), '0')
  })
})
