// The agent-framework adapters against each framework's own types, the
// newest version tested (`npm run typecheck`); never run. The code is that of
// docs/API.md's snippets, typed. frameworks-usage-oldest.ts does the same
// for the oldest versions (npm aliases).
import { query, createSdkMcpServer, tool as claudeTool, type McpSdkServerConfigWithInstance } from '@anthropic-ai/claude-agent-sdk'
import { z } from 'zod'
import { z as z3 } from 'zod/v3'
import { Agent as OpenAIAgent, run, tool as openaiTool, type FunctionTool, type Model } from '@openai/agents'
import { tool as langchainTool, type StructuredToolInterface } from '@langchain/core/tools'
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { Agent as MastraAgent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { claudeAgentServer, createTools, langchainTools, mastraTools, openaiAgentsTools } from 'agent-find'

export async function askClaude(prompt: string): Promise<string | undefined> {
  const tools = createTools({ cwd: '/workspace' })
  const files: McpSdkServerConfigWithInstance = claudeAgentServer(tools, { createSdkMcpServer, tool: claudeTool, z })
  claudeAgentServer(tools, { createSdkMcpServer, tool: claudeTool, z: z3 }, { name: 'workspace' })
  const options = { cwd: '/workspace', mcpServers: { files }, allowedTools: ['mcp__files'] }
  for await (const message of query({ prompt, options })) {
    if (message.type === 'result') return message.subtype === 'success' ? message.result : undefined
  }
  return undefined
}

export async function askAgent(model: string | Model, input: string): Promise<unknown> {
  const tools = createTools({ cwd: '/workspace' })
  const agentTools: FunctionTool<any, any, any>[] = openaiAgentsTools(tools, { tool: openaiTool })
  const agent = new OpenAIAgent({ name: 'Files', instructions: 'Answer from the files.', model, tools: agentTools })
  return (await run(agent, input)).finalOutput
}

export async function askLangChain(model: BaseChatModel, question: string): Promise<unknown> {
  const tools = createTools({ cwd: '/workspace' })
  const fileTools: StructuredToolInterface[] = langchainTools(tools, { tool: langchainTool, ToolMessage })
  const byName = Object.fromEntries(fileTools.map((t) => [t.name, t]))
  const withTools = model.bindTools!(fileTools)
  const messages: BaseMessage[] = [new HumanMessage(question)]
  const reply = await withTools.invoke(messages)
  messages.push(reply)
  for (const call of reply.tool_calls ?? []) messages.push(await byName[call.name].invoke(call))
  return reply.content
}

export async function askMastra(model: ConstructorParameters<typeof MastraAgent>[0]['model'], question: string): Promise<string> {
  const tools = createTools({ cwd: '/workspace' })
  const agent = new MastraAgent({ id: 'files', name: 'Files', instructions: 'Answer from the files.', model, tools: mastraTools(tools, { createTool }) })
  return (await agent.generate(question, { maxSteps: 5 })).text
}

// @ts-expect-error the Claude adapter needs zod
claudeAgentServer(createTools(), { createSdkMcpServer, tool: claudeTool })
// @ts-expect-error the first argument is a createTools object
openaiAgentsTools({}, { tool: openaiTool })
