// Mastra: docs/API.md's snippet runs against @mastra/core (the newest 1.x)
// with Mastra's own mock model (MastraLanguageModelV2Mock, the AI SDK's
// MockLanguageModelV2 as Mastra wraps it): the model calls a tool, the
// Mastra agent runs it and hands the answer back in the next model call. A
// refused call reaches the model as a tool error, with our text.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { createTools, mastraTools, toolDefinitions } from '../index.mjs'
import { tmpTree } from './helpers.mjs'
import { importSnippet, writeWorkspace } from './frameworks-helpers.mjs'

const { MastraLanguageModelV2Mock, simulateReadableStream } = await import('@mastra/core/test-utils/llm-mock')
const { createTool } = await import('@mastra/core/tools')

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }

/**
 * A mock model that calls `calls` first, then answers with the text of the
 * tool results it got; `prompts` keeps the prompt of each call.
 */
function scriptedModel(calls) {
  const prompts = []
  /** The model's answer to `prompt`: the calls first, then the text of the results it got. */
  const answer = (prompt) => {
    prompts.push(prompt)
    const results = prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content).filter((p) => p.type === 'tool-result')
    return results.length
      ? { content: [{ type: 'text', text: `got: ${results.map((r) => r.output.value).join(' | ')}` }], finishReason: 'stop' }
      : { content: calls.map((c, i) => ({ type: 'tool-call', toolCallId: `call_${i}`, toolName: c.name, input: JSON.stringify(c.args) })), finishReason: 'tool-calls' }
  }
  const model = new MastraLanguageModelV2Mock({
    doGenerate: async ({ prompt }) => ({ ...answer(prompt), usage, warnings: [] }),
    doStream: async ({ prompt }) => {
      const { content, finishReason } = answer(prompt)
      const parts = content.flatMap((c) => (c.type === 'text'
        ? [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: c.text }, { type: 'text-end', id: 't' }]
        : [c]))
      return { stream: simulateReadableStream({ chunks: [{ type: 'stream-start', warnings: [] }, ...parts, { type: 'finish', finishReason, usage }] }) }
    },
  })
  return { model, prompts }
}

/** The tool results of a prompt, as `[toolName, output type, output text]`. */
const toolResults = (prompt) => prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content)
  .filter((p) => p.type === 'tool-result').map((p) => [p.toolName, p.output.type, p.output.value])

describe('Mastra (@mastra/core 1.x)', () => {
  test("the docs' agent: the model calls find and search_files, and gets their answers back", async (t) => {
    const dir = tmpTree(t)
    writeWorkspace(dir)
    const { askMastra } = await importSnippet('frameworks-mastra', dir)
    const { model, prompts } = scriptedModel([
      { name: 'find', args: { pattern: '**/*.md' } },
      { name: 'search_files', args: { pattern: 'foo(', literal: true } },
    ])
    const answer = await askMastra(model, 'Where is the README, and who calls foo?')
    const found = `Search directory: ${dir}\nREADME.md`
    const searched = `Search directory: ${dir}\nFound 1 matching line in 1 file.\nsrc/app.js\n1: export const x = foo(1)`
    assert.equal(answer, `got: ${found} | ${searched}`)
    assert.equal(prompts.length, 2)
    assert.deepEqual(toolResults(prompts[1]), [['find', 'text', found], ['search_files', 'text', searched]])
  })

  test('a refused call reaches the model as a tool error, with the text that says what to do', async (t) => {
    const dir = tmpTree(t)
    writeWorkspace(dir)
    const { askMastra } = await importSnippet('frameworks-mastra', dir)
    const { model, prompts } = scriptedModel([
      { name: 'find', args: { pattern: '*', path: '/etc' } },
      { name: 'search_files', args: { pattern: 'foo(' } },
    ])
    const answer = await askMastra(model, 'List /etc, and find foo(')
    const [outside, regex] = toolResults(prompts[1])
    assert.equal(outside[1], 'error-text', 'a tool error, not an ordinary result')
    assert.match(outside[2], /Error \(outside-root\): `\/etc` resolves outside the allowed roots/)
    assert.equal(regex[1], 'error-text')
    assert.match(regex[2], /Error \(invalid-pattern\): .*set `literal: true`/s)
    assert.match(answer, /^got: .*outside-root/)
  })

  test('the tools are Mastra tools with our JSON Schema; the adapter refuses anything else', () => {
    const tools = mastraTools(createTools(), { createTool })
    assert.deepEqual(Object.keys(tools), ['find', 'search_files', 'explain_path'])
    assert.equal(tools.find.id, 'find')
    assert.equal(tools.search_files.description, toolDefinitions.search_files.description)
    assert.throws(() => mastraTools(createTools(), {}), /pass `createTool` from '@mastra\/core\/tools'/)
  })
})
