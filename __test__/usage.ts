// Type-level usage of the public surface (index.d.ts), checked with
// `npx tsc --noEmit -p __test__/tsconfig.json`; never run. Every export,
// option and result field appears here, and the `@ts-expect-error` lines prove
// that wrong option types are really rejected.
import {
  explain,
  find,
  findFiles,
  formatFindResult,
  formatSearchResult,
  searchFiles,
  fileTypes,
  FindFilesError,
  type AccessRequest,
  type ContentSearchResult,
  type CountSearchResult,
  type FilesSearchResult,
  type LineMatch,
  type SearchOptions,
  type SearchResult,
  type Decision,
  type EntryType,
  type Explanation,
  type ExplainReason,
  type IgnoreRule,
  type FindEntry,
  type FindFilesErrorCode,
  type FindOptions,
  type GitScope,
  type GitStatusLetters,
  type FindResult,
  type OmittedDir,
  createTools,
  memoryReader,
  mountReader,
  openIndex,
  type FileIndex,
  type IndexStats,
  type DirectoryEntry,
  type FileStat,
  type StorageReader,
  toolDefinitions,
  openaiTool,
  openaiResponsesTool,
  anthropicTool,
  vercelTool,
  claudeAgentServer,
  openaiAgentsTools,
  langchainTools,
  mastraTools,
  type ClaudeAgentSdkFactories,
  type FrameworkToolSchema,
  type LangChainToolFields,
  type MastraToolOptions,
  type OpenAIAgentsToolOptions,
  type StrictToolParameters,
  type ZodLike,
  type AnthropicTool,
  type FindToolArgs,
  type JsonSchema,
  type OpenAITool,
  type SearchToolArgs,
  type ToolCallResult,
  type ToolDefinition,
  type ToolInputSchema,
  type ToolName,
  type ToolParameters,
  type Tools,
  type VercelTool,
  type WorkspaceOptions,
} from 'agent-find'

// Each option of FindOptions, with a value of every accepted form.
const policy = (req: AccessRequest): Decision => (req.path.startsWith('/workspace') ? 'allow' : 'require_approval')
const asyncPolicy = async (req: AccessRequest): Promise<Decision> => (req.tool === 'find' ? 'allow' : 'deny')
const approve = (req: AccessRequest): boolean => req.operation === 'search_files'
const asyncApprove = async (_req: AccessRequest): Promise<boolean> => true

const everything: FindOptions = {
  pattern: '**/*.{ts,tsx}',
  path: 'src',
  cwd: '/workspace',
  regex: false,
  matchBase: false,
  caseSensitive: false,
  type: 'file',
  limit: 100,
  maxLimit: Infinity,
  maxDepth: 3,
  sortBy: 'recent',
  reverse: false,
  modifiedSince: '24h',
  minSize: '1KB',
  maxSize: 1024 * 1024,
  hidden: true,
  gitignore: true,
  exclude: ['dist', '*.log'],
  maxBytes: 51200,
  signal: new AbortController().signal,
  timeoutMs: 5000,
  policy,
  approve,
  roots: ['/workspace'],
}

const otherForms: FindOptions[] = [
  { pattern: '^test_.*\\.py$', regex: true, caseSensitive: true, type: 'dir', sortBy: 'name' },
  { pattern: '*.rs', matchBase: true, type: 'any', sortBy: 'mtime', reverse: true },
  { pattern: '*', sortBy: 'size', modifiedSince: Date.now(), minSize: 0, maxSize: '1.5MB' },
  { pattern: '**/*.ts', git: 'changed' },
  { pattern: '**/*', git: 'staged' as GitScope },
  { pattern: '**/*', changedSince: 'origin/main' },
  { pattern: '**/*', git: 'modified', gitStatus: true },
  { pattern: '*', sortBy: 'none', modifiedSince: new Date('2024-05-01'), signal: AbortSignal.timeout(100) },
  { pattern: '*', policy: asyncPolicy, approve: asyncApprove },
]

const decisions: Decision[] = ['allow', 'deny', 'require_approval']
const tools: AccessRequest['tool'][] = ['find', 'find_files', 'search_files']
const entryTypes: EntryType[] = ['file', 'dir', 'symlink']

function describeEntry(entry: FindEntry): string {
  const kind: EntryType = entry.type
  const size: number = entry.size
  const mtime: Date = new Date(entry.mtimeMs)
  const rel: string = entry.path
  return `${rel} ${kind} ${size} ${mtime.toISOString()}`
}

function describeResult(result: FindResult): string[] {
  const lines: string[] = [result.path, String(result.matched), String(result.truncated)]
  for (const entry of result.entries) lines.push(describeEntry(entry))
  const by: 'limit' | 'maximum' | 'bytes' | undefined = result.truncatedBy
  if (by !== undefined) lines.push(by)
  const notice: string | undefined = result.notice
  const hint: string | undefined = result.hint
  if (notice) lines.push(notice)
  if (hint) lines.push(hint)
  const omitted: OmittedDir[] | undefined = result.omitted
  for (const o of omitted ?? []) lines.push(`${o.dir}: ${o.count}`)
  const letters: GitStatusLetters | undefined = result.gitStatus
  for (const [path, xy] of Object.entries(letters ?? {})) lines.push(`${xy} ${path}`)
  return lines
}

function explainCode(code: FindFilesErrorCode): string {
  switch (code) {
    case 'invalid-argument':
    case 'invalid-pattern':
      return 'fix the call'
    case 'not-found':
    case 'not-a-dir':
    case 'not-a-repository':
      return 'fix the path'
    case 'permission-denied':
    case 'approval-required':
    case 'outside-root':
      return 'not allowed'
    case 'aborted':
      return 'stopped'
    case 'fs-error':
      return 'file system'
    case 'too-large':
      return 'narrow the folder'
    default: {
      const unreachable: never = code
      return unreachable
    }
  }
}

export async function usage(): Promise<void> {
  const a: FindResult = await find(everything)
  const b: FindResult = await find('**/*.md')
  const c: FindResult = await find('**/*.md', { cwd: '/workspace', limit: 10 })
  const d: FindResult = await find('*.ts', {})
  for (const opts of otherForms) describeResult(await find(opts))
  const text: string = formatFindResult(a)
  const files: string[] = await findFiles('**/*.ts')
  const more: string[] = await findFiles('**/*.ts', 'src')
  const why: Explanation = await explain('build/out.js', { cwd: '/repo', hidden: false, pattern: '**/*.js' })
  const reason: ExplainReason = why.reason
  const rule: IgnoreRule | undefined = why.rule
  const cited: string = rule ? `${rule.file}:${rule.line}: ${rule.pattern} ${rule.ignores}` : why.text
  const plain: boolean = (await explain('a.ts')).found && reason !== 'ignored' && cited.length > 0 && why.overrides?.line !== 0
  // @ts-expect-error the path is a string
  await explain(42)
  // Storage readers: the host's own, and the two shipped.
  const own: StorageReader = {
    async list(dir: string): Promise<DirectoryEntry[]> {
      return [{ name: 'a.ts', type: 'file', size: 1, modifiedTime: new Date() }, { name: dir.length > 1 ? 'x' : 'y', type: 'dir' }]
    },
    stat: (path: string): FileStat => ({ type: path === '/' ? 'dir' : 'file', modifiedTime: 0 }),
    read: async () => new Uint8Array([65]),
    concurrency: 8,
  }
  const inMemory: StorageReader = memoryReader({ 'src/a.ts': 'x', 'docs/': null, 'b.md': { content: 'b', modifiedTime: 5 } })
  const mounted: StorageReader = mountReader({ '/workspace': '/home/me/project' })
  const viaReader: FindResult = await find({ pattern: '**/*.ts', reader: own })
  const listed: string[] = await findFiles('**/*.ts', '/src', { reader: inMemory })
  const listed2: string[] = await findFiles('**/*.ts', { reader: mounted, cwd: '/workspace' })
  const searched: SearchResult = await searchFiles({ pattern: 'TODO', reader: mounted })
  createTools({ reader: mounted, cwd: '/workspace' })
  // @ts-expect-error a reader needs list and stat
  await find({ pattern: '*', reader: { list: async () => [] } })
  // @ts-expect-error entry types are file, dir, symlink
  const wrongEntry: DirectoryEntry = { name: 'a', type: 'folder' }
  console.log(viaReader, listed, listed2, searched, wrongEntry)
  // A live index.
  const index: FileIndex = await openIndex('/workspace', { cwd: '/' })
  const fromIndex: FindResult = await index.find({ pattern: '**/*.ts' })
  const fromIndex2: FindResult = await index.find('*.md', { path: 'docs' })
  const indexedFiles: string[] = await index.findFiles('**/*.ts', 'src')
  const indexStats: IndexStats = index.stats()
  await index.settled()
  await index.close()
  // @ts-expect-error: openIndex takes a path string
  await openIndex({ path: '/workspace' })
  const bounded: FileIndex = await openIndex('/mnt/share', { maxEntries: 500_000, watcher: 'poll', pollIntervalMs: 5000 })
  const watchedBy: 'inotify' | 'fsevents' | 'windows' | 'kqueue' | 'poll' = bounded.stats().watcher
  // @ts-expect-error: the watchers are 'native', 'recursive' and 'poll'
  await openIndex('/workspace', { watcher: 'fsevents' })
  // Tools answered from a live index: one it opens, or one passed in.
  const indexedTools: Tools = createTools({ cwd: '/workspace', index: true })
  await indexedTools.ready()
  await indexedTools.close()
  createTools({ index })
  // @ts-expect-error: index is a boolean or a FileIndex
  createTools({ index: '/workspace' })
  console.log(fromIndex, fromIndex2, indexedFiles, indexStats.bytesPerEntry, index.path, watchedBy)
  console.log(text, describeResult(b), describeResult(c), d.entries.length, files, more, decisions, tools, entryTypes)

  try {
    await find({ pattern: '' })
  } catch (err) {
    if (err instanceof FindFilesError) {
      const code: FindFilesErrorCode = err.code
      const name: 'FindFilesError' = err.name
      const message: string = err.message
      console.log(explainCode(code), name, message)
    }
  }
  const made = new FindFilesError('aborted', 'stopped', { cause: new Error('why') })
  const alsoError: Error = made
  console.log(alsoError, new FindFilesError('fs-error', 'x'))
}

// searchFiles: every option, each output mode and its result type.
const searchEverything: SearchOptions = {
  pattern: 'TODO\\(\\w+\\)',
  target: 'content',
  path: 'src',
  cwd: '/workspace',
  fileGlob: '*.{ts,tsx}',
  outputMode: 'content',
  ignoreCase: true,
  noIgnore: false,
  maxResults: 100,
  signal: AbortSignal.timeout(1000),
  timeoutMs: 1000,
  policy: asyncPolicy,
  approve: asyncApprove,
  roots: ['/workspace'],
  offset: 50,
  cursor: undefined,
  partial: true,
  patterns: ['FIXME', 'XXX'],
  literal: false,
  multiline: false,
  maxPerFile: 3,
  type: ['ts', 'js'],
  exclude: ['dist'],
}

function searchSummary(result: SearchResult): string {
  const status: GitStatusLetters = result.gitStatus ?? {}
  const base = `${result.path} ${result.matchCount} ${result.truncated} ${result.notice ?? ''} ${Object.keys(status)}`
  if ('matches' in result) return base + result.matches.map((m: LineMatch) => `${m.file}:${m.line}:${m.match}`).join('\n')
  if ('files' in result) return base + result.files.join('\n')
  return base + result.counts.map((c) => `${c.file}: ${c.count}`).join('\n')
}

export async function searchUsage(): Promise<string[]> {
  const content: ContentSearchResult = await searchFiles({ pattern: 'fn main' })
  const content2: ContentSearchResult = await searchFiles({ pattern: 'fn main', outputMode: 'content' })
  const named: FilesSearchResult = await searchFiles({ pattern: 'config', target: 'files' })
  const files: FilesSearchResult = await searchFiles({ pattern: 'fn main', outputMode: 'files' })
  const counts: CountSearchResult = await searchFiles({ pattern: 'fn main', outputMode: 'count' })
  const any: SearchResult = await searchFiles(searchEverything)
  const several: ContentSearchResult = await searchFiles({ patterns: ['TODO', 'FIXME'], type: 'py', gitStatus: true })
  const which: number[] = several.matches.flatMap((m) => m.patterns ?? [])
  const types: Record<string, string[]> = fileTypes()
  // The next page, while there is one; a partial answer says so.
  const pages: string[] = []
  let page: SearchResult = any
  while (page.cursor !== undefined && !page.indexChanged) {
    const incomplete: true | undefined = page.incomplete
    const before: number | undefined = page.offset
    pages.push(`${before ?? 0} ${incomplete ?? false}`)
    page = await searchFiles({ ...searchEverything, offset: 0, cursor: page.cursor })
  }
  const texts: string[] = [content, content2, named, files, counts, any, several].map((r) => formatSearchResult(r) + searchSummary(r))
  texts.push(...pages)
  texts.push(String(which.length), Object.keys(types).join(','))
  return texts
}

// Wrong types must not compile.
export async function misuse(): Promise<void> {
  // @ts-expect-error: 'folder' is not an entry type filter
  await find('*', { type: 'folder' })
  // @ts-expect-error: 'symlink' is a result type, not a filter
  await find('*', { type: 'symlink' })
  // @ts-expect-error: no such sort order
  await find('*', { sortBy: 'date' })
  // @ts-expect-error: limit is a number
  await find('*', { limit: '10' })
  // @ts-expect-error: unknown option (the real one is maxDepth)
  await find('*', { maxdepth: 2 })
  // @ts-expect-error: exclude is an array of globs
  await find('*', { exclude: 'dist' })
  // @ts-expect-error: modifiedSince is a date, epoch ms or an age string
  await find('*', { modifiedSince: true })
  // @ts-expect-error: minSize is a number or a size string
  await find('*', { minSize: [1] })
  // @ts-expect-error: hidden is a boolean
  await find('*', { hidden: 'yes' })
  // @ts-expect-error: pattern is required in the options form
  await find({ path: 'src' })
  // @ts-expect-error: the pattern-first form takes no pattern in its options
  await find('*', { pattern: '*.ts' })
  // @ts-expect-error: find takes options or a pattern, not a number
  await find(42)
  // @ts-expect-error: a policy answers a Decision
  await find('*', { policy: () => 'maybe' })
  // @ts-expect-error: approve answers a boolean
  await find('*', { approve: () => 'yes' })
  // @ts-expect-error: signal is an AbortSignal
  await find('*', { signal: new AbortController() })
  // @ts-expect-error: roots is an array of paths
  await find('*', { roots: '/workspace' })
  // @ts-expect-error: findFiles takes options last, not a second path
  await findFiles('*', 'src', 'lib')
  // @ts-expect-error: unknown error code
  new FindFilesError('bogus', 'message')
  const r = await find('*')
  // @ts-expect-error: entry types are file, dir or symlink
  const t: FindEntry['type'] = 'link'
  // @ts-expect-error: truncatedBy is limit, maximum or bytes
  r.truncatedBy = 'time'
  // @ts-expect-error: formatFindResult takes a FindResult
  formatFindResult({ path: '/w' })
  // @ts-expect-error: outputMode is content, files or count
  await searchFiles({ pattern: 'x', outputMode: 'lines' })
  // @ts-expect-error: target is content or files
  await searchFiles({ pattern: 'x', target: 'dirs' })
  // @ts-expect-error: a count result has no matches
  ;(await searchFiles({ pattern: 'x', outputMode: 'count' })).matches
  const err = new FindFilesError('aborted', 'x')
  // @ts-expect-error: name is readonly
  err.name = 'Other'
  console.log(t)
}

// Tools for models (js/tools.js): definitions, adapters, createTools.
export async function toolUsage(): Promise<string[]> {
  const names: ToolName[] = [toolDefinitions.find.name, toolDefinitions.search_files.name]
  const def: ToolDefinition<'find'> = toolDefinitions.find
  const params: ToolParameters = def.parameters
  const limit: JsonSchema | undefined = params.properties.limit
  const required: readonly string[] = params.required
  const openai: OpenAITool = openaiTool(def)
  const responses: { type: 'function'; name: string; strict: false } = openaiResponsesTool(def)
  const fresh: ToolInputSchema = openai.function.parameters
  fresh.properties.limit = { type: 'integer', minimum: 1, maximum: 100 }
  const anthropic: AnthropicTool = anthropicTool(toolDefinitions.search_files)
  const vercel: VercelTool = vercelTool(def, async (input, { abortSignal }) => `${JSON.stringify(input)} ${abortSignal?.aborted}`)

  const workspace: WorkspaceOptions = {
    cwd: '/workspace',
    roots: ['/workspace'],
    policy: asyncPolicy,
    approve: asyncApprove,
    timeoutMs: 5000,
    maxLimit: Infinity,
    maxBytes: 20000,
  }
  const tools: Tools = createTools(workspace)
  const unconfined: Tools = createTools({ roots: null })
  const rootsOrNull: string[] | null = unconfined.roots
  const findArgs: FindToolArgs = { pattern: '**/*.ts', type: 'dir', sortBy: 'size', modifiedSince: Date.now(), minSize: '1KB', exclude: ['dist'] }
  const found: FindResult = await tools.find(findArgs)
  const files: string[] = await tools.findFiles({ pattern: '*.md', path: 'docs' })
  const files2: string[] = await tools.findFiles('*.md', 'docs')
  const searchArgs: SearchToolArgs = { pattern: 'TODO', fileGlob: '*.py', maxResults: 10 }
  const content: ContentSearchResult = await tools.searchFiles({ pattern: 'TODO' })
  const counted: CountSearchResult = await tools.searchFiles({ ...searchArgs, outputMode: 'count' })
  const named: FilesSearchResult = await tools.searchFiles({ pattern: 'readme', target: 'files' })
  const any: SearchResult = await tools.searchFiles(searchArgs)
  const call: ToolCallResult = await tools.call('search_files', { pattern: 'x' }, { signal: AbortSignal.timeout(100) })
  const fromJson: ToolCallResult = await tools.call('find', '{"pattern":"*"}')
  const isError: boolean = call.isError || fromJson.isError
  const lists: unknown[] = [tools.definitions, tools.openaiTools, tools.anthropicTools, tools.vercelTools.find, tools.vercelTools.search_files]

  // @ts-expect-error: the workspace's roots are fixed by the host
  await tools.find({ pattern: '*', roots: ['/'] })
  // @ts-expect-error: so is cwd
  await tools.searchFiles({ pattern: 'x', cwd: '/' })
  // @ts-expect-error: and the limit ceiling
  await tools.find({ pattern: '*', maxLimit: 5000 })
  // @ts-expect-error: a tool definition's name is a known tool
  const wrong: ToolName = 'grep'
  // @ts-expect-error: toolDefinitions is read-only
  toolDefinitions.find = toolDefinitions.search_files
  // @ts-expect-error: createTools takes no unknown options
  createTools({ root: '/workspace' })

  return [
    ...names, String(limit?.default), ...required, anthropic.name, vercel.description, String(rootsOrNull),
    String(found.matched), ...files, ...files2, String(content.matches.length), String(counted.counts.length),
    String(named.files.length), String(any.matchCount), String(isError), String(lists.length), wrong,
  ]
}

// The framework adapters with factories of the shapes they need (the real
// frameworks' types: frameworks-usage.ts): each returns what its factory returns.
export function frameworkAdapterUsage(z: ZodLike): string[] {
  const tools = createTools({ cwd: '/workspace' })
  const claude: ClaudeAgentSdkFactories<{ type: 'sdk'; name: string }> = {
    createSdkMcpServer: ({ name }) => ({ type: 'sdk', name }),
    tool: (name, description, inputSchema, handler) => ({ name, description, inputSchema, handler }),
    z,
  }
  const server: { type: 'sdk'; name: string } = claudeAgentServer(tools, claude, { name: 'files' })
  const strict: { name: string; parameters: StrictToolParameters }[] = openaiAgentsTools(tools, { tool: (o: OpenAIAgentsToolOptions) => ({ name: o.name, parameters: o.parameters }) })
  const chains: LangChainToolFields[] = langchainTools(tools, { tool: (_func, fields) => fields, ToolMessage: class { constructor(readonly fields: unknown) {} } })
  const mastra: { find: MastraToolOptions; search_files: MastraToolOptions; explain_path: MastraToolOptions } = mastraTools(tools, { createTool: (o) => o })
  const schema: FrameworkToolSchema = mastra.find.inputSchema
  // @ts-expect-error: the Claude Agent SDK's tool() takes a zod shape, so zod is required
  claudeAgentServer(tools, { createSdkMcpServer: claude.createSdkMcpServer, tool: claude.tool })
  return [server.name, ...strict.map((t) => t.name), ...chains.map((c) => c.name), schema.type]
}
