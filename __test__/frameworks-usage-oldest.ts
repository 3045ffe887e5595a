// The agent-framework adapters against the oldest versions tested, as npm
// aliases (`npm run typecheck`); never run. Mastra's oldest supported
// version is in the major frameworks-usage.ts checks (1.x).
import { query, createSdkMcpServer, tool as claudeTool, type McpSdkServerConfigWithInstance } from '@anthropic-ai/claude-agent-sdk-v0'
import { z as z3 } from 'zod/v3'
import { Agent, run, tool as openaiTool, type FunctionTool, type Model } from '@openai/agents-core-v0'
import { tool as langchainTool, type StructuredToolInterface } from '@langchain/core-v0/tools'
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core-v0/messages'
import type { BaseChatModel } from '@langchain/core-v0/language_models/chat_models'
import { claudeAgentServer, createTools, langchainTools, openaiAgentsTools } from 'agent-find'

export async function askClaude(prompt: string): Promise<string | undefined> {
  const tools = createTools({ cwd: '/workspace' })
  const files: McpSdkServerConfigWithInstance = claudeAgentServer(tools, { createSdkMcpServer, tool: claudeTool, z: z3 })
  for await (const message of query({ prompt, options: { cwd: '/workspace', mcpServers: { files }, allowedTools: ['mcp__files'] } })) {
    if (message.type === 'result') return message.subtype === 'success' ? message.result : undefined
  }
  return undefined
}

export async function askAgent(model: Model, input: string): Promise<unknown> {
  const tools = createTools({ cwd: '/workspace' })
  const agentTools: FunctionTool<any, any, any>[] = openaiAgentsTools(tools, { tool: openaiTool })
  const agent = new Agent({ name: 'Files', instructions: 'Answer from the files.', model, tools: agentTools })
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
