// LangChain.js: docs/API.md's snippet runs against @langchain/core 1.x and
// 0.3 (an npm alias): a scripted chat model (a BaseChatModel of that
// version; LangChain's own fakes cannot answer a tool call with a second
// turn) calls a tool, LangChain's tool answers with a ToolMessage, and the
// model's next turn gets it. A refused call comes back as a ToolMessage with
// status 'error'; called with plain arguments, the tool throws the
// FindFilesError.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { FindFilesError, createTools, langchainTools } from '../index.mjs'
import { tmpTree } from './helpers.mjs'
import { importSnippet, writeWorkspace } from './frameworks-helpers.mjs'

const VERSIONS = [
  { label: '@langchain/core 1.x', pkg: '@langchain/core' },
  { label: '@langchain/core 0.3', pkg: '@langchain/core-v0' },
]

/**
 * A chat model that answers with `calls` (tool calls) first, then with the
 * text of the tool messages it got; it keeps every list of messages it was
 * given, and the tools as `bindTools` would send them to a provider.
 */
async function scriptedModel(pkg, calls) {
  const { BaseChatModel } = await import(`${pkg}/language_models/chat_models`)
  const { AIMessage } = await import(`${pkg}/messages`)
  const { convertToOpenAITool } = await import(`${pkg}/utils/function_calling`)
  class ScriptedChatModel extends BaseChatModel {
    seen = []
    bound = []
    _llmType() { return 'scripted' }
    bindTools(tools) {
      this.bound = tools.map((t) => convertToOpenAITool(t))
      return this
    }
    async _generate(messages) {
      this.seen.push(messages)
      const last = messages[messages.length - 1]
      const message = last._getType() === 'tool'
        ? new AIMessage(`got: ${messages.filter((m) => m._getType() === 'tool').map((m) => m.content).join(' | ')}`)
        : new AIMessage({ content: '', tool_calls: calls.map((c, i) => ({ ...c, id: `call_${i}`, type: 'tool_call' })) })
      return { generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] }
    }
  }
  return new ScriptedChatModel({})
}

for (const { label, pkg } of VERSIONS) {
  describe(`LangChain.js (${label})`, () => {
    const rewrite = pkg === '@langchain/core' ? {} : { '@langchain/core/': `${pkg}/` }

    test("the docs' loop: the model calls find and search_files, and gets their answers back", async (t) => {
      const dir = tmpTree(t)
      writeWorkspace(dir)
      const { askLangChain } = await importSnippet('frameworks-langchain', dir, rewrite)
      const model = await scriptedModel(pkg, [
        { name: 'find', args: { pattern: '**/*.md' } },
        { name: 'search_files', args: { pattern: 'foo(', literal: true } },
      ])
      const answer = await askLangChain(model, 'Where is the README, and who calls foo?')
      assert.equal(answer, `got: Search directory: ${dir}\nREADME.md | Search directory: ${dir}\nFound 1 matching line in 1 file.\nsrc/app.js\n1: export const x = foo(1)`)
      // The second turn got the tool messages, each answering its call.
      const toolMessages = model.seen[1].filter((m) => m._getType() === 'tool')
      assert.deepEqual(toolMessages.map((m) => [m.tool_call_id, m.name, m.status]), [['call_0', 'find', 'success'], ['call_1', 'search_files', 'success']])
      // What bindTools sends a provider: our schemas, as they are.
      assert.deepEqual(model.bound.map((b) => b.function.name), ['find', 'search_files', 'explain_path'])
      assert.deepEqual(model.bound[0].function.parameters.required, ['pattern'])
      assert.equal(model.bound[0].function.parameters.additionalProperties, false)
    })

    test("a refused call reaches the model as a ToolMessage with status 'error', and the model can recover", async (t) => {
      const dir = tmpTree(t)
      writeWorkspace(dir)
      const { askLangChain } = await importSnippet('frameworks-langchain', dir, rewrite)
      const model = await scriptedModel(pkg, [
        { name: 'find', args: { pattern: '*', path: '/etc' } },
        { name: 'search_files', args: { pattern: 'foo(' } },
      ])
      const answer = await askLangChain(model, 'List /etc, and find foo(')
      const [outside, regex] = model.seen[1].filter((m) => m._getType() === 'tool')
      assert.equal(outside.status, 'error')
      assert.match(outside.content, /^Error \(outside-root\): `\/etc` resolves outside the allowed roots/)
      assert.equal(regex.status, 'error')
      assert.match(regex.content, /^Error \(invalid-pattern\): .*set `literal: true`/s)
      assert.match(answer, /^got: Error \(outside-root\)/)
    })

    test('invoked with plain arguments, a refused call throws its FindFilesError; a bad argument is a schema error', async (t) => {
      const dir = tmpTree(t)
      writeWorkspace(dir)
      const { tool } = await import(`${pkg}/tools`)
      const { ToolMessage } = await import(`${pkg}/messages`)
      const [find] = langchainTools(createTools({ cwd: dir }), { tool, ToolMessage })
      assert.equal(await find.invoke({ pattern: '*.md' }), `Search directory: ${dir}\nREADME.md`)
      await assert.rejects(find.invoke({ pattern: '*', path: '/etc' }), (e) => e instanceof FindFilesError && e.code === 'outside-root')
      // LangChain checks the arguments against the JSON Schema first, and says which.
      const { ToolInputParsingException } = await import(`${pkg}/tools`)
      await assert.rejects(find.invoke({ pattern: '*', limit: 0 }), (e) => e instanceof ToolInputParsingException && /limit.*less than 1/s.test(e.message))
      await assert.rejects(find.invoke({ pattern: '*', cwd: '/' }), (e) => e instanceof ToolInputParsingException)
    })

    test('the adapter refuses anything but a createTools object and the two factories', async () => {
      const { tool } = await import(`${pkg}/tools`)
      assert.throws(() => langchainTools({}, { tool }), /first argument must be the object createTools\(\) returns/)
      assert.throws(() => langchainTools(createTools(), { tool }), /missing `ToolMessage`/)
    })
  })
}
