// Claude Agent SDK: docs/API.md's snippet runs a real `query()` against
// @anthropic-ai/claude-agent-sdk 0.3 (the newest; the SDK runs its Claude
// Code binary) and 0.1 (the oldest; its Claude Code is JavaScript run by
// Node), with a scripted model: a Messages API on 127.0.0.1
// (ANTHROPIC_BASE_URL) that calls `mcp__files__find` and the other tools,
// then answers with the tool results Claude Code sent back. No network, no
// key. A refused call comes back as a `tool_result` with `is_error: true`.
// The tools are also called the way the SDK calls them, over MCP, with the
// SDK's own MCP server instance.
import assert from 'node:assert/strict'
import http from 'node:http'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { z } from 'zod'
import { z as z3 } from 'zod/v3'

import { claudeAgentServer, createTools, toolDefinitions } from '../index.mjs'
import { makeTmp, removeTmp } from './helpers.mjs'
import { importSnippet, writeWorkspace } from './frameworks-helpers.mjs'

// 0.1's MCP server (bundled, older) reads zod 3 schemas only: there, the
// snippet's zod is zod 3's API ('zod/v3', as zod 3.25 and 4 ship it).
const VERSIONS = [
  { label: '0.3 (newest)', pkg: '@anthropic-ai/claude-agent-sdk', zods: [z, z3], rewrite: {} },
  {
    label: '0.1 (oldest)', pkg: '@anthropic-ai/claude-agent-sdk-v0', zods: [z3],
    rewrite: { "@anthropic-ai/claude-agent-sdk'": "@anthropic-ai/claude-agent-sdk-v0'", "zod'": "zod/v3'" },
  },
]

/**
 * A Messages API that scripts the model: the agent's turn (below) is
 * answered with `calls` as `tool_use` blocks until it holds tool results,
 * then with their text; any other request (Claude Code's side requests)
 * with 'ok'. Streams as the
 * API does when asked to. `turns` keeps the tool results each turn got.
 */
async function fakeMessagesApi() {
  const api = { calls: [], turns: [], requests: 0 }
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => { body += chunk })
    req.on('end', () => {
      api.requests++
      if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ input_tokens: 1 }))
        return
      }
      const request = JSON.parse(body)
      const last = request.messages[request.messages.length - 1]
      const results = Array.isArray(last.content) ? last.content.filter((b) => b.type === 'tool_result') : []
      // Claude Code also asks side questions (titles, warm-ups of its subagents, some with tools): the
      // agent's own turns are those that offer tools and start with the prompt the test gave.
      const first = request.messages[0]
      const agentTurn = Array.isArray(request.tools) && request.tools.length > 0 && api.prompt !== undefined &&
        textOf(first.content).includes(api.prompt)
      let content
      if (agentTurn && results.length) {
        api.turns.push(results.map((r) => ({ id: r.tool_use_id, isError: r.is_error === true, text: textOf(r.content) })))
        content = [{ type: 'text', text: `got: ${results.map((r) => textOf(r.content)).join(' | ')}` }]
      } else if (agentTurn) {
        content = api.calls.map((c, i) => ({ type: 'tool_use', id: `toolu_${i}`, name: c.name, input: c.input }))
      } else {
        content = [{ type: 'text', text: 'ok' }]
      }
      reply(res, request, content)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  api.url = `http://127.0.0.1:${server.address().port}`
  api.close = () => new Promise((resolve) => server.close(resolve))
  return api
}

const textOf = (content) => (typeof content === 'string' ? content : content.map((b) => (typeof b.text === 'string' ? b.text : '')).join(''))

/** A Messages API answer holding `content`, as one JSON body or as server-sent events. */
function reply(res, request, content) {
  const stop = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'
  const message = { id: 'msg_test', type: 'message', role: 'assistant', model: request.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ ...message, content, stop_reason: stop }))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
  send('message_start', { message })
  content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } })
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } })
    } else {
      send('content_block_start', { index, content_block: { ...block, input: {} } })
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } })
    }
    send('content_block_stop', { index })
  })
  send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } })
  send('message_stop', {})
  res.end()
}

describe('Claude Agent SDK', () => {
  let api
  before(async () => {
    api = await fakeMessagesApi()
    // What query() hands Claude Code: the scripted API, a key it never checks, and a home and config
    // folder of its own (the SDK and Claude Code write logs and sessions there). Kept for the rest of
    // this test file's process: the SDK writes its debug log after a query has ended.
    const home = makeTmp()
    process.on('exit', () => removeTmp(home))
    Object.assign(process.env, {
      HOME: home, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-test', CLAUDE_CONFIG_DIR: path.join(home, 'config'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', DISABLE_ERROR_REPORTING: '1',
    })
  })
  after(() => api.close())

  for (const { label, pkg, zods, rewrite } of VERSIONS) {
    describe(label, () => {

      test("the docs' query(): the model calls find and search_files, and gets their answers back", { timeout: 120_000 }, async (t) => {
        const dir = makeTmp()
        t.after(() => removeTmp(dir))
        writeWorkspace(dir)
        const { askClaude } = await importSnippet('frameworks-claude', dir, rewrite)
        api.calls = [
          { name: 'mcp__files__find', input: { pattern: '**/*.md' } },
          { name: 'mcp__files__search_files', input: { pattern: 'foo(', literal: true } },
        ]
        api.turns = []
        api.prompt = 'Where is the README, and who calls foo?'
        const answer = await askClaude(api.prompt)
        const found = `Search directory: ${dir}\nREADME.md`
        const searched = `Search directory: ${dir}\nFound 1 matching line in 1 file.\nsrc/app.js\n1: export const x = foo(1)`
        assert.deepEqual(api.turns, [[{ id: 'toolu_0', isError: false, text: found }, { id: 'toolu_1', isError: false, text: searched }]])
        assert.equal(answer, `got: ${found} | ${searched}`)
      })

      test('a refused call reaches the model as a tool_result with is_error, with the text that says what to do', { timeout: 120_000 }, async (t) => {
        const dir = makeTmp()
        t.after(() => removeTmp(dir))
        writeWorkspace(dir)
        const { askClaude } = await importSnippet('frameworks-claude', dir, rewrite)
        api.calls = [
          { name: 'mcp__files__find', input: { pattern: '*', path: '/etc' } },
          { name: 'mcp__files__search_files', input: { pattern: 'foo(' } },
        ]
        api.turns = []
        api.prompt = 'List /etc, and find foo('
        await askClaude(api.prompt)
        assert.equal(api.turns.length, 1)
        const [outside, regex] = api.turns[0]
        assert.equal(outside.isError, true)
        assert.match(outside.text, /^Error \(outside-root\): `\/etc` resolves outside the allowed roots/)
        assert.equal(regex.isError, true)
        assert.match(regex.text, /^Error \(invalid-pattern\): .*set `literal: true`/s)
      })

      test('over MCP, as the SDK calls them: names, annotations, schemas from its zod, results and errors', async (t) => {
        const dir = makeTmp()
        t.after(() => removeTmp(dir))
        writeWorkspace(dir)
        const { createSdkMcpServer, tool } = await import(pkg)
        for (const zod of zods) {
          const server = claudeAgentServer(createTools({ cwd: dir }), { createSdkMcpServer, tool, z: zod }, { name: 'workspace' })
          assert.equal(server.type, 'sdk')
          assert.equal(server.name, 'workspace')
          const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
          await server.instance.connect(serverSide)
          const client = new Client({ name: 'test', version: '1.0.0' })
          await client.connect(clientSide)
          try {
            const { tools } = await client.listTools()
            assert.deepEqual(tools.map((x) => x.name), ['find', 'search_files', 'explain_path'])
            for (const listed of tools) {
              const definition = toolDefinitions[listed.name]
              assert.equal(listed.description, definition.description)
              // 0.1's tool() takes no annotations.
              if (pkg === '@anthropic-ai/claude-agent-sdk') {
                assert.deepEqual(listed.annotations, { title: definition.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
              }
              assert.deepEqual(Object.keys(listed.inputSchema.properties), Object.keys(definition.parameters.properties))
              assert.deepEqual(listed.inputSchema.required, definition.parameters.required)
            }
            const findSchema = tools[0].inputSchema.properties
            assert.deepEqual(findSchema.type.enum, ['file', 'dir', 'any'])
            assert.match(findSchema.type.description, /Default: "file"\.$/)
            assert.equal(findSchema.limit.minimum, 1)
            const ok = await client.callTool({ name: 'find', arguments: { pattern: '**/*.js', gitignore: false, sortBy: 'name' } })
            assert.deepEqual(ok, { content: [{ type: 'text', text: `Search directory: ${dir}\nbuild/out.js\nsrc/app.js` }], isError: false })
            const refused = await client.callTool({ name: 'search_files', arguments: { pattern: 'x', path: '/etc' } })
            assert.equal(refused.isError, true)
            assert.match(refused.content[0].text, /^Error \(outside-root\): /)
          } finally {
            await client.close()
          }
        }
      })

      test('the adapter asks for zod and the two factories', async () => {
        const { createSdkMcpServer, tool } = await import(pkg)
        assert.throws(() => claudeAgentServer(createTools(), { createSdkMcpServer, tool }), /pass zod as `z`/)
        assert.throws(() => claudeAgentServer(createTools(), { tool, z }), /missing `createSdkMcpServer`/)
        assert.throws(() => claudeAgentServer({}, { createSdkMcpServer, tool, z }), /first argument must be the object createTools\(\) returns/)
      })
    })
  }
})
