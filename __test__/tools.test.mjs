// Tools for language models: the JSON Schema tool definitions (validated with
// ajv, defaults and enums checked against docs/API.md and against what the
// library really does), the SDK adapters, and createTools (codemode: plain
// JSON in and out, confined to its workspace).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'
import vm from 'node:vm'

import Ajv from 'ajv'

import {
  FindFilesError,
  anthropicTool,
  createTools,
  find,
  formatFindResult,
  formatSearchResult,
  openaiTool,
  openaiResponsesTool,
  searchFiles,
  toolDefinitions,
  vercelTool,
} from '../index.mjs'
import { rejectsWith, setMtime, tmpTree } from './helpers.mjs'

// As docs/API.md lists them: every option of FindOptions / SearchOptions.
const FIND_OPTIONS = [
  'pattern', 'path', 'cwd', 'regex', 'matchBase', 'caseSensitive', 'type', 'limit', 'maxLimit', 'maxDepth', 'sortBy',
  'reverse', 'modifiedSince', 'minSize', 'maxSize', 'hidden', 'gitignore', 'exclude', 'maxBytes', 'signal', 'timeoutMs',
  'policy', 'approve', 'roots', 'skipped', 'maxTokens', 'git', 'changedSince',
]
const SEARCH_OPTIONS = [
  'pattern', 'patterns', 'literal', 'multiline', 'target', 'fuzzy', 'path', 'cwd', 'fileGlob', 'type', 'exclude', 'maxPerFile',
  'outputMode', 'ignoreCase', 'noIgnore', 'maxResults', 'context', 'before', 'after', 'signal', 'timeoutMs', 'policy', 'approve',
  'roots', 'skipped', 'offset', 'cursor', 'partial', 'maxTokens', 'git', 'changedSince',
]
// What the host fixes (JS-only, the workspace, and the host's budgets): not for the model.
const HOST_ONLY = ['cwd', 'roots', 'signal', 'policy', 'approve', 'timeoutMs', 'partial', 'maxLimit', 'maxBytes']
// The defaults and enums docs/API.md gives.
const FIND_DEFAULTS = {
  type: 'file', limit: 1000, sortBy: 'recent', regex: false, matchBase: false, caseSensitive: false, reverse: false,
  hidden: true, gitignore: true, exclude: [],
}
const SEARCH_DEFAULTS = {
  target: 'content', fuzzy: false, outputMode: 'content', ignoreCase: false, noIgnore: false, maxResults: 50,
  literal: false, multiline: false, type: [], exclude: [], patterns: [], context: 0, before: 0, after: 0, offset: 0,
}
const GIT_SCOPES = ['modified', 'staged', 'untracked', 'changed']
const ENUMS = {
  find: { type: ['file', 'dir', 'any'], sortBy: ['recent', 'name', 'mtime', 'size', 'none'], git: GIT_SCOPES },
  search_files: { target: ['content', 'files'], outputMode: ['content', 'files', 'count'], git: GIT_SCOPES },
}

const ajv = new Ajv({ strict: true, allErrors: true })
const validators = {
  find: ajv.compile(toolDefinitions.find.parameters),
  search_files: ajv.compile(toolDefinitions.search_files.parameters),
  explain_path: ajv.compile(toolDefinitions.explain_path.parameters),
}

/** A small workspace with some of everything: depth, sizes, ages, a dotfile, an ignored file. */
function workspace(t) {
  const dir = tmpTree(t, {
    'README.md': '# demo\nTODO(ana): write more\n',
    'src/app.ts': 'export const x = 1 // TODO(bo): rename\n',
    'src/big.ts': { content: 4096, mtime: 1_600_000_000 },
    'src/lib/util.ts': 'export function util() {}\n',
    'docs/guide.md': 'guide\n',
    '.env': 'SECRET=1\n',
    '.gitignore': 'out/\n',
    'out/bundle.js': 'TODO(gen)\n',
    'node_modules/dep/index.js': 'TODO(dep)\n',
  })
  setMtime(path.join(dir, 'README.md'), 1_700_000_000)
  return dir
}

/** Asserts `value` is plain JSON: only plain objects, arrays, strings, finite numbers, booleans, null. */
function assertPlainJson(value, where = 'result') {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return
  if (typeof value === 'number') return assert.ok(Number.isFinite(value), `${where} is a finite number`)
  assert.equal(typeof value, 'object', `${where} is JSON (got ${typeof value})`)
  if (Array.isArray(value)) {
    assert.equal(Object.getPrototypeOf(value), Array.prototype, `${where} is a plain array`)
    value.forEach((v, i) => assertPlainJson(v, `${where}[${i}]`))
    return
  }
  assert.equal(Object.getPrototypeOf(value), Object.prototype, `${where} is a plain object, not a class instance`)
  for (const [k, v] of Object.entries(value)) {
    assert.notEqual(v, undefined, `${where}.${k} is not undefined`)
    assertPlainJson(v, `${where}.${k}`)
  }
}

function assertSurvivesJson(value) {
  assertPlainJson(value)
  assert.deepStrictEqual(JSON.parse(JSON.stringify(value)), value, 'unchanged by JSON.stringify / JSON.parse')
  assert.deepStrictEqual(structuredClone(value), value, 'unchanged by structuredClone')
}

describe('a time limit the host set', () => {
  test('a tool call that runs out of time tells the model what it can change, not to raise timeoutMs', async () => {
    const reader = { list: () => new Promise(() => {}), stat: async () => ({ type: 'dir' }) }
    const tools = createTools({ reader, timeoutMs: 50 })
    for (const name of ['find', 'search_files']) {
      const { text, isError } = await tools.call(name, { pattern: 'x' })
      assert.equal(isError, true)
      assert.match(text, /^Error \(aborted\): .*within the time limit the host set \(50 ms\); narrow `path` or the pattern and call again/)
      assert.doesNotMatch(text, /timeoutMs/)
    }
  })
})

describe('toolDefinitions', () => {
  test('find, search_files and explain_path: name, a description written for a model, an object schema', () => {
    assert.deepEqual(Object.keys(toolDefinitions), ['find', 'search_files', 'explain_path'])
    for (const [key, def] of Object.entries(toolDefinitions)) {
      assert.equal(def.name, key)
      assert.match(def.name, /^[a-zA-Z0-9_-]{1,64}$/, 'a name every SDK accepts')
      assert.ok(def.description.length > 200 && def.description.length < 1024, `${key}: a useful description, not an essay`)
      assert.equal(typeof def.title, 'string')
      const p = def.parameters
      assert.equal(p.type, 'object')
      assert.deepEqual(p.required, [key === 'explain_path' ? 'path' : 'pattern'])
      assert.equal(p.additionalProperties, false)
      for (const [name, prop] of Object.entries(p.properties)) {
        assert.ok(prop.description && prop.description.length > 15, `${key}.${name} has a description`)
        assert.ok(prop.type || prop.anyOf, `${key}.${name} has a type`)
      }
    }
    assert.match(toolDefinitions.find.description, /\*\*\/\*\.py/, 'teaches the ** glob')
    assert.match(toolDefinitions.find.description, /51,200 bytes/, 'says the byte cap')
    assert.match(toolDefinitions.find.description, /case-insensitive/)
    assert.match(toolDefinitions.search_files.description, /Case-sensitive unless `ignoreCase` \(find is case-insensitive\)/)
    assert.match(toolDefinitions.search_files.description, /longer than 200 characters is shown around its match/)
    assert.match(toolDefinitions.find.description, /time limit, if any, is set by the host/)
    assert.match(toolDefinitions.find.description, /search_files/, 'points to the other tool')
    assert.match(toolDefinitions.search_files.description, /node_modules/, 'says what it skips')
  })

  test('the parameters are the options of docs/API.md minus what the host fixes', () => {
    const expect = (all) => all.filter((o) => !HOST_ONLY.includes(o)).sort()
    assert.deepEqual(Object.keys(toolDefinitions.find.parameters.properties).sort(), expect(FIND_OPTIONS))
    assert.deepEqual(Object.keys(toolDefinitions.search_files.parameters.properties).sort(), expect(SEARCH_OPTIONS))
  })

  test("the schemas' defaults and enums are those of docs/API.md", () => {
    const defaults = (def) => Object.fromEntries(
      Object.entries(def.parameters.properties).filter(([, p]) => 'default' in p).map(([k, p]) => [k, p.default]),
    )
    assert.deepEqual(defaults(toolDefinitions.find), FIND_DEFAULTS)
    assert.deepEqual(defaults(toolDefinitions.search_files), SEARCH_DEFAULTS)
    for (const [tool, enums] of Object.entries(ENUMS)) {
      const props = toolDefinitions[tool].parameters.properties
      const found = Object.fromEntries(Object.entries(props).filter(([, p]) => p.enum).map(([k, p]) => [k, p.enum]))
      assert.deepEqual(found, enums, `${tool} enums`)
    }
  })

  test('each default is what the library does when the option is left out', async (t) => {
    const dir = workspace(t)
    const baseline = await find({ pattern: '**', cwd: dir })
    for (const [name, value] of Object.entries(FIND_DEFAULTS)) {
      assert.deepEqual(await find({ pattern: '**', cwd: dir, [name]: value }), baseline, `find ${name}: ${JSON.stringify(value)}`)
    }
    for (const pattern of ['TODO', 'md']) {
      const plainSearch = await searchFiles({ pattern, cwd: dir })
      for (const [name, value] of Object.entries(SEARCH_DEFAULTS)) {
        assert.deepEqual(await searchFiles({ pattern, cwd: dir, [name]: value }), plainSearch, `search ${name}: ${JSON.stringify(value)}`)
      }
    }
  })

  test('every enum value is accepted by the library, and one outside the enum is not', async (t) => {
    const dir = workspace(t)
    for (const value of ENUMS.find.type) await find({ pattern: '*', cwd: dir, type: value })
    for (const value of ENUMS.find.sortBy) await find({ pattern: '*', cwd: dir, sortBy: value })
    for (const value of ENUMS.search_files.target) await searchFiles({ pattern: 'x', cwd: dir, target: value })
    for (const value of ENUMS.search_files.outputMode) await searchFiles({ pattern: 'x', cwd: dir, outputMode: value })
    await rejectsWith(find({ pattern: '*', cwd: dir, type: 'folder' }), 'invalid-argument')
    await rejectsWith(find({ pattern: '*', cwd: dir, sortBy: 'date' }), 'invalid-argument')
    await rejectsWith(searchFiles({ pattern: 'x', cwd: dir, target: 'dirs' }), 'invalid-argument')
    await rejectsWith(searchFiles({ pattern: 'x', cwd: dir, outputMode: 'lines' }), 'invalid-argument')
  })

  test('is frozen, so one host cannot change another host\'s tools', () => {
    assert.ok(Object.isFrozen(toolDefinitions))
    assert.ok(Object.isFrozen(toolDefinitions.find.parameters.properties.type.enum))
    assert.throws(() => { 'use strict'; toolDefinitions.find.description = 'x' }, TypeError)
  })
})

describe('tool arguments: ajv and the tools agree', () => {
  const VALID = {
    find: [
      { pattern: '**/*.ts' },
      { pattern: 'src/**/*.{ts,tsx}', path: 'src', type: 'file', limit: 20, sortBy: 'name', reverse: true },
      { pattern: '^util\\.ts$', regex: true, caseSensitive: true, type: 'any', maxDepth: 3 },
      { pattern: '*.md', matchBase: true, hidden: false, gitignore: false, exclude: ['docs', '*.min.js'] },
      { pattern: '**', modifiedSince: '7d', minSize: 1024, maxSize: '1.5MB', sortBy: 'size' },
      { pattern: '**', modifiedSince: '2020-01-01', minSize: '0', type: 'dir', sortBy: 'mtime' },
      { pattern: '*', sortBy: 'none', limit: 1 },
    ],
    search_files: [
      { pattern: 'TODO\\(\\w+\\)' },
      { pattern: 'todo', ignoreCase: true, fileGlob: '*.{ts,md}', outputMode: 'count', path: 'src' },
      { pattern: 'TODO', noIgnore: true, outputMode: 'files', maxResults: 3 },
      { pattern: 'util', target: 'files' },
    ],
    explain_path: [
      { path: 'src/a.ts' },
      { path: 'src', type: 'dir', hidden: false, gitignore: true, exclude: ['dist'], maxDepth: 2 },
      { path: 'src/a.ts', pattern: '**/*.ts', minSize: 0, modifiedSince: '2020-01-01' },
    ],
  }
  const INVALID = {
    find: [
      {},
      { path: 'src' },
      { pattern: 42 },
      { pattern: '*', type: 'folder' },
      { pattern: '*', type: 'symlink' },
      { pattern: '*', limit: '10' },
      { pattern: '*', limit: 0 },
      { pattern: '*', limit: 2.5 },
      { pattern: '*', maxDepth: -1 },
      { pattern: '*', sortBy: 'date' },
      { pattern: '*', exclude: 'dist' },
      { pattern: '*', hidden: 'yes' },
      { pattern: '*', minSize: -5 },
      { pattern: '*', maxdepth: 2 },
      { pattern: '*', roots: ['/'] },
      { pattern: '*', cwd: '/' },
      { pattern: '*', maxLimit: 1e9 },
    ],
    explain_path: [
      {},
      { pattern: '*.ts' },
      { path: 42 },
      { path: 'a', limit: 3 },
      { path: 'a', hidden: 'yes' },
      { path: 'a', roots: ['/'] },
    ],
    search_files: [
      {},
      { pattern: 'x', outputMode: 'lines' },
      { pattern: 'x', target: 'dirs' },
      { pattern: 'x', maxResults: 0 },
      { pattern: 'x', maxResults: 2.5 },
      { pattern: 'x', ignoreCase: 'true' },
      { pattern: 'x', roots: ['/'] },
      { pattern: 'x', glob: '*.py' },
    ],
  }

  for (const tool of ['find', 'search_files', 'explain_path']) {
    test(`${tool}: sample arguments the schema accepts, the tool runs`, async (t) => {
      const tools = createTools({ cwd: workspace(t) })
      for (const args of VALID[tool]) {
        assert.ok(validators[tool](args), `schema accepts ${JSON.stringify(args)}: ${ajv.errorsText(validators[tool].errors)}`)
        const { text, isError } = await tools.call(tool, args)
        assert.equal(isError, false, `${JSON.stringify(args)}: ${text}`)
      }
    })

    test(`${tool}: sample arguments the schema rejects, the tool rejects as invalid-argument`, async (t) => {
      const tools = createTools({ cwd: workspace(t) })
      for (const args of INVALID[tool]) {
        assert.equal(validators[tool](args), false, `schema rejects ${JSON.stringify(args)}`)
        const { text, isError } = await tools.call(tool, args)
        assert.equal(isError, true, `tool rejects ${JSON.stringify(args)}`)
        assert.match(text, /^Error \(invalid-argument\): /, `${JSON.stringify(args)}: ${text}`)
      }
    })
  }
})

describe('SDK adapters', () => {
  test('openaiTool: a Chat Completions function tool', () => {
    const tool = openaiTool(toolDefinitions.find)
    assert.deepEqual(Object.keys(tool), ['type', 'function'])
    assert.equal(tool.type, 'function')
    assert.deepEqual(tool.function, {
      name: 'find', description: toolDefinitions.find.description, parameters: toolDefinitions.find.parameters,
    })
    tool.function.parameters.properties.limit.default = 1
    assert.equal(toolDefinitions.find.parameters.properties.limit.default, 1000, 'a fresh copy, free to change')
  })

  test('anthropicTool: { name, description, input_schema }', () => {
    const tool = anthropicTool(toolDefinitions.search_files)
    assert.deepEqual(tool, {
      name: 'search_files', description: toolDefinitions.search_files.description, input_schema: toolDefinitions.search_files.parameters,
    })
    assert.ok(!Object.isFrozen(tool.input_schema))
  })

  test("vercelTool: what ai's tool() returns, its inputSchema marked as ai's jsonSchema() marks it", async () => {
    const execute = async () => 'text'
    const tool = vercelTool(toolDefinitions.find, execute)
    assert.deepEqual(Object.keys(tool).sort(), ['description', 'execute', 'inputSchema'])
    assert.equal(tool.execute, execute)
    const schema = tool.inputSchema
    // isSchema() in @ai-sdk/provider-utils: the global symbol, `jsonSchema` and `validate`.
    assert.equal(schema[Symbol.for('vercel.ai.schema')], true)
    assert.ok('jsonSchema' in schema && 'validate' in schema)
    assert.deepEqual(schema.jsonSchema, toolDefinitions.find.parameters)
    assert.deepEqual(await schema.validate({ pattern: '*.ts' }), { success: true, value: { pattern: '*.ts' } })
    const bad = await schema.validate({ pattern: '*', roots: ['/'] })
    assert.equal(bad.success, false)
    assert.match(bad.error.message, /`roots` is set by the host/)
    assert.equal((await schema.validate('not an object')).success, false)
    assert.deepEqual(Object.keys(vercelTool(toolDefinitions.find)).sort(), ['description', 'inputSchema'])
  })

  test('createTools carries the adapted tools, executing in its workspace', async (t) => {
    const dir = workspace(t)
    const tools = createTools({ cwd: dir })
    const defs = Object.values(toolDefinitions)
    assert.deepEqual(tools.definitions, defs)
    assert.deepEqual(tools.openaiTools, defs.map(openaiTool))
    assert.deepEqual(tools.openaiResponsesTools, defs.map(openaiResponsesTool))
    for (const [i, t] of tools.openaiResponsesTools.entries()) {
      assert.deepEqual(t, { type: 'function', name: defs[i].name, description: defs[i].description, parameters: defs[i].parameters, strict: false })
    }
    assert.throws(() => openaiResponsesTool({}), TypeError)
    assert.deepEqual(tools.anthropicTools, defs.map(anthropicTool))
    assert.deepEqual(Object.keys(tools.vercelTools), ['find', 'search_files', 'explain_path'])
    const text = await tools.vercelTools.find.execute({ pattern: '**/*.ts', sortBy: 'name' }, { toolCallId: 'c1', messages: [] })
    assert.equal(text, formatFindResult(await find({ pattern: '**/*.ts', sortBy: 'name', cwd: dir })))
    // A refused call throws, so the SDK reports a tool error to the model rather than an ordinary answer.
    await assert.rejects(tools.vercelTools.search_files.execute({ pattern: 'x', path: '/' }, {}), (e) =>
      e instanceof FindFilesError && e.code === 'outside-root' && /resolves outside the allowed roots/.test(e.message))
  })

  test('throws a TypeError for something that is not a tool definition', () => {
    assert.throws(() => openaiTool({}), TypeError)
    assert.throws(() => anthropicTool(null), TypeError)
    assert.throws(() => vercelTool(toolDefinitions.find, 'run'), TypeError)
  })
})

describe('createTools (codemode)', () => {
  test('find, findFiles and searchFiles answer plain JSON that survives JSON.parse(JSON.stringify(x))', async (t) => {
    const dir = workspace(t)
    const tools = createTools({ cwd: dir })
    const results = [
      await tools.find({ pattern: '**' }),
      await tools.find({ pattern: '**', limit: 2, sortBy: 'size', reverse: true }), // truncated: notice, omitted
      await tools.find({ pattern: '*.ts' }), // nothing at the top level: a hint
      await tools.find({ pattern: '**', type: 'any', gitignore: false, hidden: false, maxDepth: 1 }),
      await tools.findFiles({ pattern: '**/*.md' }),
      await tools.findFiles('**/*.ts', 'src'),
      await tools.searchFiles({ pattern: 'TODO\\((\\w+)\\)' }),
      await tools.searchFiles({ pattern: 'TODO', outputMode: 'files' }),
      await tools.searchFiles({ pattern: 'TODO', outputMode: 'count', maxResults: 1 }),
      await tools.searchFiles({ pattern: 'gen', target: 'files', noIgnore: true }),
      await tools.searchFiles({ pattern: 'nothing-here-at-all' }), // a notice about skipped folders
    ]
    for (const r of results) assertSurvivesJson(r)
    assert.ok(results[1].truncated && results[1].omitted, 'the truncated case is covered')
    assert.ok(results[2].hint, 'the hint case is covered')
    assert.ok(results[10].notice, 'the notice case is covered')
    assert.deepEqual(results[4], [path.join(dir, 'README.md'), path.join(dir, 'docs/guide.md')])
    assert.deepEqual(results[5], [path.join(dir, 'src/app.ts'), path.join(dir, 'src/big.ts'), path.join(dir, 'src/lib/util.ts')])
  })

  test('the answers are the library\'s answers, in the workspace', async (t) => {
    const dir = workspace(t)
    const tools = createTools({ cwd: dir })
    assert.deepEqual(await tools.find({ pattern: '**/*.ts', sortBy: 'name' }), await find({ pattern: '**/*.ts', sortBy: 'name', cwd: dir }))
    assert.deepEqual(await tools.searchFiles({ pattern: 'TODO', outputMode: 'count' }), await searchFiles({ pattern: 'TODO', outputMode: 'count', cwd: dir }))
    const { text } = await tools.call('search_files', { pattern: 'TODO' })
    assert.equal(text, formatSearchResult(await searchFiles({ pattern: 'TODO', cwd: dir })))
    assert.equal(tools.cwd, dir)
    assert.deepEqual(tools.roots, [dir])
  })

  test('a model-written script in a vm context calls tools.find and serializes the answer', async (t) => {
    const dir = workspace(t)
    const tools = createTools({ cwd: dir })
    const script = `(async () => {
      const ts = await tools.find({ pattern: '**/*.ts', sortBy: 'name' })
      const todos = await tools.searchFiles({ pattern: 'TODO', outputMode: 'count' })
      let error
      try { await tools.find({ pattern: '*', path: '..' }) } catch (e) { error = JSON.parse(JSON.stringify(e)) }
      return JSON.stringify({ files: ts.entries.map((e) => e.path), todos: todos.counts, error })
    })()`
    const json = await vm.runInNewContext(script, { tools })
    const answer = JSON.parse(json)
    assert.deepEqual(answer.files, ['src/app.ts', 'src/big.ts', 'src/lib/util.ts'])
    assert.deepEqual(answer.todos, [{ file: 'README.md', count: 1 }, { file: 'src/app.ts', count: 1 }])
    assert.equal(answer.error.name, 'FindFilesError')
    assert.equal(answer.error.code, 'outside-root', 'FindFilesError serializes with its code and message')
    assert.match(answer.error.message, /outside the allowed roots/)
  })

  test('is confined to its workspace: no way out through path, roots or cwd', async (t) => {
    const dir = workspace(t)
    const outside = tmpTree(t, { 'secret.txt': 'TODO(secret)\n' })
    fs.symlinkSync(outside, path.join(dir, 'escape'))
    const tools = createTools({ cwd: dir })
    await rejectsWith(tools.find({ pattern: '*', path: '..' }), 'outside-root')
    await rejectsWith(tools.find({ pattern: '*', path: outside }), 'outside-root')
    await rejectsWith(tools.find({ pattern: '*', path: 'escape' }), 'outside-root')
    await rejectsWith(tools.searchFiles({ pattern: 'TODO', path: outside }), 'outside-root')
    await rejectsWith(tools.findFiles({ pattern: '*', path: outside }), 'outside-root')
    await rejectsWith(tools.find({ pattern: '*', roots: [outside] }), 'invalid-argument', '`roots` is set by the host')
    await rejectsWith(tools.find({ pattern: '*', cwd: outside }), 'invalid-argument', '`cwd` is set by the host')
    await rejectsWith(tools.searchFiles({ pattern: 'x', policy: null }), 'invalid-argument', '`policy` is set by the host')
    await rejectsWith(tools.findFiles({ pattern: '*', roots: [outside] }), 'invalid-argument')
    const all = await tools.searchFiles({ pattern: 'TODO', noIgnore: true, outputMode: 'files' })
    assert.ok(!all.files.some((f) => f.includes('secret')), 'the symlink is not followed')
  })

  test('the host options apply to every call: roots, policy, approve, maxLimit, maxBytes, timeoutMs', async (t) => {
    const dir = workspace(t)
    const seen = []
    const tools = createTools({
      cwd: dir,
      roots: ['src', 'docs'],
      policy: (req) => (seen.push(req), req.path.endsWith('docs') ? 'require_approval' : 'allow'),
      approve: () => false,
      maxLimit: 2,
      maxBytes: 1000,
      timeoutMs: 10_000,
    })
    assert.deepEqual(tools.roots, [path.join(dir, 'src'), path.join(dir, 'docs')])
    const r = await tools.find({ pattern: '**', path: 'src', limit: 50 })
    assert.equal(r.entries.length, 2, 'maxLimit clamps limit')
    assert.equal(r.truncatedBy, 'maximum')
    await rejectsWith(tools.find({ pattern: '*' }), 'outside-root')
    await rejectsWith(tools.searchFiles({ pattern: 'guide', path: 'docs' }), 'approval-required')
    await rejectsWith(tools.findFiles({ pattern: '*', path: 'docs' }), 'approval-required')
    assert.deepEqual(seen.map((s) => s.tool), ['find', 'find', 'search_files', 'find_files'])
    const { text, isError } = await tools.call('find', { pattern: '**', path: 'docs' })
    assert.equal(isError, true)
    assert.equal(text, `Error (approval-required): approval required: find requires application approval for \`${path.join(dir, 'docs')}\` before execution`)
    const free = createTools({ cwd: dir, roots: null })
    assert.equal(free.roots, null)
    assert.equal((await free.find({ pattern: '*', path: '..', maxDepth: 0, type: 'any' })).path, path.dirname(dir))
  })

  test('call(): JSON text or objects in, { text, isError } out; model mistakes come back as errors to read', async (t) => {
    const dir = workspace(t)
    const tools = createTools({ cwd: dir })
    const ok = await tools.call('find', '{"pattern":"**/*.md","sortBy":"name"}')
    assert.deepEqual(ok, { text: `Search directory: ${dir}\nREADME.md\ndocs/guide.md`, isError: false })
    const cases = [
      [['find', '{"pattern":'], /^Error \(invalid-argument\): find: the arguments are not valid JSON/],
      [['find', '[1]'], /^Error \(invalid-argument\): find takes an object/],
      [['find', { pattern: 'src/[abc' }], /^Error \(invalid-pattern\): /],
      [['search_files', { pattern: '(' }], /^Error \(invalid-pattern\): /],
      [['find', { pattern: '*', path: 'missing' }], /^Error \(not-found\): /],
      [['find', { pattern: '*', path: 'README.md' }], /^Error \(not-a-dir\): /],
      [['grep', { pattern: 'x' }], /^Error \(invalid-argument\): unknown tool `grep`; the tools are find, search_files, explain_path$/],
      [['find', { pattern: '*', limitt: 3 }], /unknown argument `limitt`; the arguments are `pattern`, `path`/],
    ]
    for (const [[name, args], expected] of cases) {
      const out = await tools.call(name, args)
      assert.equal(out.isError, true, `${name} ${JSON.stringify(args)}`)
      assert.match(out.text, expected)
    }
    const aborted = await tools.call('find', { pattern: '**' }, { signal: AbortSignal.abort() })
    assert.equal(aborted.isError, true)
    assert.match(aborted.text, /^Error \(aborted\): /)
  })

  test('createTools checks its own options', () => {
    assert.throws(() => createTools({ root: '/' }), (e) => e instanceof FindFilesError && e.code === 'invalid-argument' && /unknown option `root`/.test(e.message))
    assert.throws(() => createTools({ roots: '/w' }), FindFilesError)
    assert.throws(() => createTools({ cwd: '' }), FindFilesError)
    assert.throws(() => createTools('/w'), FindFilesError)
    assert.equal(createTools().cwd, process.cwd())
  })
})

describe('FindFilesError serializes', () => {
  test('JSON.stringify gives name, code and message', () => {
    const err = new FindFilesError('not-found', 'search path `/x` does not exist')
    assert.deepEqual(JSON.parse(JSON.stringify(err)), { name: 'FindFilesError', code: 'not-found', message: 'search path `/x` does not exist' })
  })
})
