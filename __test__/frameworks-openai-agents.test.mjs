// OpenAI Agents SDK: docs/API.md's snippet runs against @openai/agents (the
// newest) and @openai/agents-core 0.2 (the oldest tested, an npm alias): a
// scripted Model (the SDK's Model interface; the SDK ships no fake) calls a
// tool, the SDK runs it and hands the answer back in the next request. The
// schemas are strict (every property required, nullable where optional,
// no additional properties), a call with nulls for unset options answers
// as one that omits them, and a refused call goes through the SDK's
// errorFunction, with our text, and marks the tool span as failed.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { createTools, openaiAgentsTools, toolDefinitions } from '../index.mjs'
import { tmpTree } from './helpers.mjs'
import { eachObjectSchema, importSnippet, writeWorkspace } from './frameworks-helpers.mjs'

const VERSIONS = [
  { label: '@openai/agents (newest)', snippet: '@openai/agents', core: '@openai/agents-core' },
  { label: '@openai/agents-core 0.2 (oldest)', snippet: '@openai/agents-core-v0', core: '@openai/agents-core-v0' },
]

/**
 * A Model that answers the first request with `calls` (function calls) and
 * each later one with the text of the tool outputs it got; it keeps every
 * request.
 */
async function scriptedModel(core, calls) {
  const { Usage } = await import(core)
  const requests = []
  return {
    requests,
    async getResponse(request) {
      requests.push(request)
      const results = Array.isArray(request.input) ? request.input.filter((i) => i.type === 'function_call_result') : []
      const output = results.length
        ? [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `got: ${results.map(outputText).join(' | ')}` }] }]
        : calls.map((c, i) => ({ type: 'function_call', callId: `call_${i}`, name: c.name, arguments: JSON.stringify(c.args), status: 'completed' }))
      return { usage: new Usage(), output }
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() { throw new Error('not streamed') },
  }
}

/** A function_call_result's text, whichever form this version gives it. */
const outputText = (item) => (typeof item.output === 'string' ? item.output : item.output.text)

/**
 * The tool spans each run ends, as a trace processor sees them (set after
 * '@openai/agents' is loaded: loading it sets its own processors). Without
 * '@openai/agents', agents-core has no default model provider, which a
 * Runner asks for even when the agent has its Model: one that is never used.
 */
async function recordSpans(core) {
  const { setTraceProcessors, setTracingDisabled, setDefaultModelProvider } = await import(core)
  if (core !== '@openai/agents-core') setDefaultModelProvider({ getModel: () => { throw new Error('the agent has its model') } })
  const spans = []
  setTracingDisabled(false)
  setTraceProcessors([{
    onTraceStart: async () => {}, onTraceEnd: async () => {}, onSpanStart: async () => {},
    onSpanEnd: async (span) => { if (span.spanData.type === 'function') spans.push({ name: span.spanData.name, error: span.error }) },
    shutdown: async () => {}, forceFlush: async () => {},
  }])
  return spans
}

for (const { label, snippet, core } of VERSIONS) {
  describe(`OpenAI Agents SDK (${label})`, () => {
    const rewrite = snippet === '@openai/agents' ? {} : { '@openai/agents\'': `${snippet}'` }

    test('the schemas pass strict mode: every property required, nullable where optional, no additional properties', async () => {
      const { tool } = await import(core)
      const agentTools = openaiAgentsTools(createTools(), { tool })
      assert.deepEqual(agentTools.map((t) => [t.type, t.name, t.strict]), [['function', 'find', true], ['function', 'search_files', true], ['function', 'explain_path', true]])
      for (const t of agentTools) {
        const definition = toolDefinitions[t.name].parameters
        let objects = 0
        eachObjectSchema(t.parameters, (schema, where) => {
          objects++
          assert.equal(schema.additionalProperties, false, `${t.name} ${where}`)
          assert.deepEqual([...schema.required].sort(), Object.keys(schema.properties).sort(), `${t.name} ${where}: every property required`)
        })
        assert.equal(objects, 1, 'the parameters are one object (the array items are strings)')
        assert.deepEqual(Object.keys(t.parameters.properties), Object.keys(definition.properties), 'every option is there')
        for (const [name, schema] of Object.entries(t.parameters.properties)) {
          const optional = !definition.required.includes(name)
          const takesNull = [].concat(schema.type ?? []).includes('null') || (schema.anyOf ?? []).some((b) => b.type === 'null')
          assert.equal(takesNull, optional, `${t.name}.${name}: nullable exactly when optional`)
          if (schema.enum) assert.equal(schema.enum.includes(null), optional, `${t.name}.${name}: its enum takes null`)
        }
      }
    })

    test('a call with null for every unset option answers as one that omits them', async (t) => {
      const dir = tmpTree(t)
      writeWorkspace(dir)
      const { tool } = await import(core)
      const tools = createTools({ cwd: dir })
      const [find, search] = openaiAgentsTools(tools, { tool })
      const nulls = (t) => Object.fromEntries(Object.keys(t.parameters.properties).map((k) => [k, null]))
      const context = {}
      assert.equal(await find.invoke(context, JSON.stringify({ ...nulls(find), pattern: '**/*.js' })), (await tools.call('find', { pattern: '**/*.js' })).text)
      assert.equal(await search.invoke(context, JSON.stringify({ ...nulls(search), pattern: 'foo(', literal: true })), (await tools.call('search_files', { pattern: 'foo(', literal: true })).text)
      assert.match(await find.invoke(context, JSON.stringify({ ...nulls(find), pattern: '**/*.js' })), /src\/app\.js/)
    })

    test("the docs' agent: the model calls find and search_files, and gets their answers back", async (t) => {
      const dir = tmpTree(t)
      writeWorkspace(dir)
      const { askAgent } = await importSnippet('frameworks-openai-agents', dir, rewrite)
      const spans = await recordSpans(core)
      const model = await scriptedModel(core, [
        { name: 'find', args: { pattern: '**/*.md' } },
        { name: 'search_files', args: { pattern: 'foo(', literal: true } },
      ])
      const answer = await askAgent(model, 'Where is the README, and who calls foo?')
      assert.equal(answer, `got: Search directory: ${dir}\nREADME.md | Search directory: ${dir}\nFound 1 matching line in 1 file.\nsrc/app.js\n1: export const x = foo(1)`)
      assert.equal(model.requests.length, 2)
      // The first request offered the strict tools.
      assert.deepEqual(model.requests[0].tools.map((x) => [x.name, x.strict]), [['find', true], ['search_files', true], ['explain_path', true]])
      assert.deepEqual(spans.map((s) => [s.name, s.error]).sort(), [['find', null], ['search_files', null]], 'the calls run side by side')
    })

    test('a refused call goes through the SDK as a tool error, with the text that says what to do', async (t) => {
      const dir = tmpTree(t)
      writeWorkspace(dir)
      const { askAgent } = await importSnippet('frameworks-openai-agents', dir, rewrite)
      const spans = await recordSpans(core)
      const model = await scriptedModel(core, [
        { name: 'find', args: { pattern: '*', path: '/etc' } },
        { name: 'search_files', args: { pattern: 'foo(' } },
      ])
      const answer = await askAgent(model, 'List /etc, and find foo(')
      const [outside, regex] = model.requests[1].input.filter((i) => i.type === 'function_call_result').map(outputText)
      assert.match(outside, /^Error \(outside-root\): `\/etc` resolves outside the allowed roots/)
      assert.match(regex, /^Error \(invalid-pattern\): .*set `literal: true`/s)
      assert.match(answer, /^got: Error \(outside-root\)/)
      // The SDK saw an error (the tool span is marked failed), not an ordinary answer.
      assert.deepEqual(spans.map((s) => [s.name, s.error?.message]).sort(), [['find', 'Error running tool (non-fatal)'], ['search_files', 'Error running tool (non-fatal)']])
    })

    test('the adapter refuses anything but a createTools object and the tool factory', async () => {
      const { tool } = await import(core)
      assert.throws(() => openaiAgentsTools(null, { tool }), /first argument must be the object createTools\(\) returns/)
      assert.throws(() => openaiAgentsTools(createTools(), {}), /pass `tool` from '@openai\/agents'/)
    })
  })
}
