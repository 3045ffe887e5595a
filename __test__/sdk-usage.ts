// The docs' SDK snippets, type-checked against the SDKs' own types (devDependencies):
// `npx tsc --noEmit -p __test__/tsconfig.json`; never run (no network, no keys).
// The OpenAI Chat Completions loop of docs/API.md (the assistant message first, then a
// tool message per function call) and the Responses API loop.
import OpenAI from 'openai'
import { createTools } from 'agent-find'

export async function chatCompletionsLoop(openai: OpenAI, model: string): Promise<void> {
  const tools = createTools({ cwd: '/workspace' })
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Find the README.' }]
  const res = await openai.chat.completions.create({ model, messages, tools: tools.openaiTools })
  const reply = res.choices[0].message
  messages.push(reply)
  for (const c of reply.tool_calls ?? []) {
    if (c.type !== 'function') continue
    messages.push({ role: 'tool', tool_call_id: c.id, content: (await tools.call(c.function.name, c.function.arguments)).text })
  }
}

export async function responsesLoop(openai: OpenAI, model: string): Promise<void> {
  const tools = createTools({ cwd: '/workspace' })
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Find the README.' }]
  const res = await openai.responses.create({ model, input, tools: tools.openaiResponsesTools })
  for (const item of res.output) {
    if (item.type !== 'function_call') continue
    input.push(item)
    input.push({ type: 'function_call_output', call_id: item.call_id, output: (await tools.call(item.name, item.arguments)).text })
  }
}
