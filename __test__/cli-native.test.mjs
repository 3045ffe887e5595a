// The native CLI (cli/, the `agent-find` binary that `npm run build` places
// as agent-find.<platform>) against the library, its oracle: on real temp
// trees, each command's `--json` is the result `find`, `searchFiles` or
// `explain` returns for the same options (the same fields, values and field
// order), its text is `formatFindResult` / `formatSearchResult` / the
// explanation's text of that result, and an error is the library's error
// (code and message) with exit status 2 for bad usage, 1 otherwise. Then
// what only the CLI has (its flag errors), the npm bin (bin/agent-find.js
// and bin/agent-find: the binary run with the arguments, stdio, status and
// signals; the message when it is missing), bin/install.js (the bin made
// the binary), and `agent-find mcp` handed from the binary to Node.
// Without a built binary these tests fail (they do not skip).
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'

import { explain, find, formatFindResult, formatSearchResult, searchFiles } from '../index.mjs'
import { REPO, tmpTree, makeTmp, removeTmp, writeTree, gitInit, setMtime } from './helpers.mjs'

const SHIM = path.join(REPO, 'bin', 'agent-find.js')
const NPM_BIN = path.join(REPO, 'bin', 'agent-find')
const INSTALL = path.join(REPO, 'bin', 'install.js')
const WINDOWS = process.platform === 'win32'
const VERSION = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version
const BUILT = fs.readdirSync(REPO).filter((f) => /^agent-find\.[\w-]+$/.test(f) || /^agent-find\.[\w-]+\.exe$/.test(f))
const NATIVE = BUILT.length === 1 ? path.join(REPO, BUILT[0]) : undefined
const PLATFORM = NATIVE && path.basename(NATIVE).slice('agent-find.'.length).replace(/\.exe$/, '')

function run(file, args, cwd, env) {
  const r = spawnSync(file, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.error) throw r.error
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr }
}

const native = (args, cwd, env) => run(NATIVE, args, cwd, env)

/** A result as JSON text: the fields and their order, as the CLI's `--json` must give them. */
const canonical = (value) => JSON.stringify(value)

test('npm run build placed the native CLI in the package folder, where the bin finds it', () => {
  assert.ok(NATIVE, `one agent-find.<platform> in ${REPO} (found: ${BUILT.join(', ') || 'none'}): run npm run build`)
  assert.equal(run(process.execPath, [SHIM], REPO, { AGENT_FIND_CLI: 'which' }).stdout, `${NATIVE}\n`)
  assert.equal(native(['--version'], REPO).stdout, `${VERSION}\n`)
})

describe('the native CLI answers as the library', () => {
  let dir
  const EPOCH = Date.UTC(2024, 4, 1) / 1000

  before(() => {
    // A made tree: sources, a gitignored folder and file, hidden files, dependency
    // folders, sizes and mtimes apart, files for content search.
    const spec = {
      'README.md': '# readme\nTODO: write it\n',
      'src/a.ts': { content: 'export const a = 1 // TODO one\n', mtime: EPOCH + 10 },
      'src/lib/b.ts': { content: 'x'.repeat(300), mtime: EPOCH + 20 },
      'src/lib/c.tsx': { content: 'foo\nbar\nfoo bar\n', mtime: EPOCH + 30 },
      'src/todo.py': 'x = 1\n# TODO one\n# todo two\nprint("a.b")\none\ntwo\n',
      'src/app.js': 'const foo = 1\n// TODO js\nconst bar = 2\n' + 'line\n'.repeat(20) + 'foo again\n',
      'src/deep/er/z.rs': 'fn main() { /* TODO rust */ }\n',
      'src/long.txt': `${'word '.repeat(400)}TODO far out\n`,
      '.hidden/h.ts': 'hidden TODO\n',
      '.env': 'SECRET=1\n',
      '.gitignore': '*.log\n!keep.log\nbuild/\n',
      'debug.log': 'TODO logged\n',
      'keep.log': 'kept\n',
      'build/out.js': 'TODO built\n',
      'node_modules/dep/index.js': 'TODO dep\n',
      'docs/guide.md': { content: 1500, mtime: EPOCH + 40 },
      'data/big.bin': 5000,
      '10': 'a file named as a number: JS puts such keys first in an object\n',
    }
    dir = writeTree(makeTmp(), spec)
    gitInit(dir)
    for (const [i, f] of ['README.md', '.gitignore', 'src/todo.py', 'src/app.js', 'src/deep/er/z.rs', 'src/long.txt', '.env', 'debug.log', 'data/big.bin', '10'].entries()) {
      setMtime(path.join(dir, f), EPOCH + 100 + i)
    }
    // Changes git sees, for --git and --git-status.
    fs.appendFileSync(path.join(dir, 'README.md'), 'more\n')
    fs.writeFileSync(path.join(dir, 'src', 'new.ts'), 'TODO new\n')
    setMtime(path.join(dir, 'src', 'new.ts'), EPOCH + 200)
    setMtime(path.join(dir, 'README.md'), EPOCH + 201)
    if (!WINDOWS && process.platform !== 'darwin') {
      // A name that is not UTF-8: `path` lossy, `pathBytes` exact in --json.
      fs.writeFileSync(Buffer.concat([Buffer.from(path.join(dir, 'src', 'bad-')), Buffer.from([0xff, 0xfe]), Buffer.from('.bin')]), 'x')
    }
  })

  after(() => removeTmp(dir))

  /**
   * The library's answer to `call(options)` run in `dir`, as the CLI runs
   * there (the same options: no `cwd` unless the case gives one, which a
   * cursor's fingerprint would tell apart): its result, or its error.
   */
  async function library(call, options) {
    const here = process.cwd()
    process.chdir(dir)
    try {
      return { result: await call(options) }
    } catch (error) {
      return { error }
    } finally {
      process.chdir(here)
    }
  }

  /** The CLI's `args` (text, then `--json`) against the library's `call(options)` and `format`. */
  async function same(args, call, options, format) {
    const what = `agent-find ${args.join(' ')}`
    const { result, error } = await library(call, options)
    for (const json of [false, true]) {
      // `--json` first, so it stays a flag where the case ends with `-- <pattern>`.
      const named = ['search', 'explain'].includes(args[0]) ? 1 : 0
      const got = native(json ? [...args.slice(0, named), '--json', ...args.slice(named)] : args, dir)
      if (error) {
        const usage = ['invalid-argument', 'invalid-pattern'].includes(error.code)
        assert.deepEqual(got, { status: usage ? 2 : 1, signal: null, stdout: '', stderr: `agent-find: ${error.code}: ${error.message}\n` }, what)
        continue
      }
      assert.equal(got.stderr, '', what)
      assert.equal(got.status, 0, what)
      if (json) assert.equal(canonical(JSON.parse(got.stdout)), canonical(result), `${what} --json`)
      else assert.equal(got.stdout, `${format(result)}\n`, what)
    }
    return result
  }

  const findCase = (args, options) => same(args, find, options, formatFindResult)
  const searchCase = (args, options) => same(['search', ...args], searchFiles, options, formatSearchResult)
  const explainCase = (args, target, options) => same(['explain', ...args], (o) => explain(target, o), options, (e) => e.text)

  test('find: the text and --json, with every flag', async () => {
    const seen = new Set()
    const note = (result) => {
      for (const key of Object.keys(result ?? {})) seen.add(key)
      for (const e of result?.entries ?? []) for (const key of Object.keys(e)) seen.add(`entry.${key}`)
    }
    const cases = [
      [['**/*.ts'], { pattern: '**/*.ts' }],
      [['**/*'], { pattern: '**/*' }],
      [['**/*.ts', 'src', '--sort', 'name'], { pattern: '**/*.ts', path: 'src', sortBy: 'name' }],
      [['**', '--type', 'dir', '--sort', 'name'], { pattern: '**', type: 'dir', sortBy: 'name' }],
      [['**', '--type=any', '--sort', 'name', '--no-gitignore'], { pattern: '**', type: 'any', sortBy: 'name', gitignore: false }],
      [['**/*', '--limit', '2', '--sort', 'size', '--reverse'], { pattern: '**/*', limit: 2, sortBy: 'size', reverse: true }],
      [['*.MD', '--match-base'], { pattern: '*.MD', matchBase: true }],
      [['*.MD', '--match-base', '--case-sensitive'], { pattern: '*.MD', matchBase: true, caseSensitive: true }],
      [['^[bc]\\.tsx?$', '--regex'], { pattern: '^[bc]\\.tsx?$', regex: true }],
      [['**/*', '--no-hidden', '--no-gitignore', '--sort', 'mtime'], { pattern: '**/*', hidden: false, gitignore: false, sortBy: 'mtime' }],
      [['**/*', '--exclude', 'src', '--exclude=*.md', '--max-depth', '1', '--sort', 'name'], { pattern: '**/*', exclude: ['src', '*.md'], maxDepth: 1, sortBy: 'name' }],
      [['**/*', '--min-size', '100', '--max-size', '2KB', '--sort', 'size'], { pattern: '**/*', minSize: 100, maxSize: '2KB', sortBy: 'size' }],
      [['**/*', '--modified-since', '2024-05-01T00:00:25Z'], { pattern: '**/*', modifiedSince: '2024-05-01T00:00:25Z' }],
      [['**/*', '--modified-since', String((EPOCH + 25) * 1000)], { pattern: '**/*', modifiedSince: (EPOCH + 25) * 1000 }],
      [['**/*', '--modified-since', '3650d'], { pattern: '**/*', modifiedSince: '3650d' }],
      [['**/*', '--max-bytes', '300', '--sort', 'name'], { pattern: '**/*', maxBytes: 300, sortBy: 'name' }],
      [['**/*', '--max-bytes', '2.5e2'], { pattern: '**/*', maxBytes: 250 }],
      [['**/*', '--max-tokens', '64'], { pattern: '**/*', maxTokens: 64 }],
      [['**/*', '--limit', 'Infinity', '--max-limit', 'Infinity', '--sort', 'none'], { pattern: '**/*', limit: Infinity, maxLimit: Infinity, sortBy: 'none' }],
      [['**/*', '--skipped', '--sort', 'name'], { pattern: '**/*', skipped: true, sortBy: 'name' }],
      [['**/*', '--skipped', '--no-hidden'], { pattern: '**/*', skipped: true, hidden: false }],
      [['**/*', '--git', 'untracked', '--sort', 'name'], { pattern: '**/*', git: 'untracked', sortBy: 'name' }],
      [['**/*', '--git', 'changed', '--git-status'], { pattern: '**/*', git: 'changed', gitStatus: true }],
      [['**/*', '--git-status', '--sort', 'name', '--limit', '50'], { pattern: '**/*', gitStatus: true, sortBy: 'name', limit: 50 }],
      [['**/*', '--changed-since', 'HEAD', '--sort', 'name'], { pattern: '**/*', changedSince: 'HEAD', sortBy: 'name' }],
      [['**/*', '--timeout', '60000', '--sort', 'name'], { pattern: '**/*', timeoutMs: 60000, sortBy: 'name' }],
      [['**/*.ts', '.', '--root', '.', '--cwd', 'src', '--sort', 'name'], { pattern: '**/*.ts', path: '.', roots: ['.'], cwd: 'src', sortBy: 'name' }],
      [['**/*.nothing'], { pattern: '**/*.nothing' }],
      [['**/*.bin', '--sort', 'name'], { pattern: '**/*.bin', sortBy: 'name' }],
      [['**/*.log'], { pattern: '**/*.log' }],
      [['**/out.js'], { pattern: '**/out.js' }],
      [['--', '**/*.ts'], { pattern: '**/*.ts' }],
      [['--', '-x'], { pattern: '-x' }],
      // Errors: the library's code and message, exit 2 for bad usage and 1 for the rest.
      [['src/[x'], { pattern: 'src/[x' }],
      [['*', '--type', 'folder'], { pattern: '*', type: 'folder' }],
      [['*', '--modified-since', 'yesterday'], { pattern: '*', modifiedSince: 'yesterday' }],
      [['*', '--min-size', '10XB'], { pattern: '*', minSize: '10XB' }],
      [['*', '--max-limit', '-5'], { pattern: '*', maxLimit: -5 }],
      [['*', '--git', 'sideways'], { pattern: '*', git: 'sideways' }],
      [['*', '--changed-since', 'no-such-ref'], { pattern: '*', changedSince: 'no-such-ref' }],
      [['*', 'missing'], { pattern: '*', path: 'missing' }],
      [['*', 'README.md'], { pattern: '*', path: 'README.md' }],
      [['*', '..', '--root', '.'], { pattern: '*', path: '..', roots: ['.'] }],
    ]
    for (const [args, options] of cases) note(await findCase(args, options))
    // The cases reach every optional field of a FindResult and of an entry.
    const optional = ['truncatedBy', 'notice', 'hint', 'omitted', 'skipped', 'gitStatus']
    if (!WINDOWS && process.platform !== 'darwin') optional.push('entry.pathBytes')
    for (const key of optional) assert.ok(seen.has(key), `a case has ${key}`)
  })

  test('search: the text and --json, with every flag, and a cursor carried to the next page', async () => {
    const seen = new Set()
    const note = (result) => {
      for (const key of Object.keys(result ?? {})) seen.add(key)
      for (const m of result?.matches ?? []) for (const key of Object.keys(m)) seen.add(`match.${key}`)
    }
    const cases = [
      [['TODO'], { pattern: 'TODO' }],
      [['todo', '-i', '-C', '1'], { pattern: 'todo', ignoreCase: true, context: 1 }],
      [['TODO', 'src', '--glob', '*.py', '-B', '1', '--after', '2'], { pattern: 'TODO', path: 'src', fileGlob: '*.py', before: 1, after: 2 }],
      [['-e', 'foo', '-e', 'bar', 'src'], { patterns: ['foo', 'bar'], path: 'src' }],
      [['foo', '-e', 'bar'], { patterns: ['bar'], path: 'foo' }],
      [['-e', '-foo'], { patterns: ['-foo'] }],
      [['TODO', '-t', 'py', '--type', 'js'], { pattern: 'TODO', type: ['py', 'js'] }],
      [['TODO', '--mode', 'count'], { pattern: 'TODO', outputMode: 'count' }],
      [['TODO', '--mode=files', '--skipped'], { pattern: 'TODO', outputMode: 'files', skipped: true }],
      [['a.b', '-F'], { pattern: 'a.b', literal: true }],
      [['one\\ntwo', '-U'], { pattern: 'one\\ntwo', multiline: true }],
      [['foo', '-m', '1', '--max-results', '3'], { pattern: 'foo', maxPerFile: 1, maxResults: 3 }],
      [['TODO', '--offset', '2'], { pattern: 'TODO', offset: 2 }],
      [['TODO', '--max-results', '2', '--offset', '1'], { pattern: 'TODO', maxResults: 2, offset: 1 }],
      [['TODO', '--no-ignore', '--skipped'], { pattern: 'TODO', noIgnore: true, skipped: true }],
      [['TODO', '--max-tokens', '64'], { pattern: 'TODO', maxTokens: 64 }],
      [['far out'], { pattern: 'far out' }],
      [['tod', '--files'], { pattern: 'tod', target: 'files' }],
      [['readmi', '--files', '--fuzzy'], { pattern: 'readmi', target: 'files', fuzzy: true }],
      [['(?<=const )foo'], { pattern: '(?<=const )foo' }],
      [['TODO', '--git', 'untracked'], { pattern: 'TODO', git: 'untracked' }],
      [['TODO', '--git-status', '--mode', 'files'], { pattern: 'TODO', gitStatus: true, outputMode: 'files' }],
      [['absent-text'], { pattern: 'absent-text' }],
      [['TODO', '--timeout', '60000', '--partial'], { pattern: 'TODO', timeoutMs: 60000, partial: true }],
      [['TODO', '--exclude', 'src', '--exclude', '*.md'], { pattern: 'TODO', exclude: ['src', '*.md'] }],
      // Errors.
      [['(open'], { pattern: '(open' }],
      [['x', '--mode', 'lines'], { pattern: 'x', outputMode: 'lines' }],
      [['TODO', '-C', '2', '--mode', 'count'], { pattern: 'TODO', context: 2, outputMode: 'count' }],
      [['x', '--cursor', 'garbage'], { pattern: 'x', cursor: 'garbage' }],
      [['x', '-t', 'pyton'], { pattern: 'x', type: ['pyton'] }],
      [['x', 'missing'], { pattern: 'x', path: 'missing' }],
    ]
    for (const [args, options] of cases) note(await searchCase(args, options))
    // The cases reach the optional fields of a SearchResult and a line match (`incomplete`:
    // the next test; `indexChanged` needs an index, which the CLI never has).
    for (const key of ['matches', 'files', 'counts', 'fileCount', 'notice', 'offset', 'skipped', 'spread', 'gitStatus', 'match.patterns', 'match.column', 'match.before', 'match.after']) {
      assert.ok(seen.has(key), `a case has ${key}`)
    }
    const first = await searchCase(['TODO', '--max-results', '2'], { pattern: 'TODO', maxResults: 2 })
    assert.ok(first.cursor, 'a first page with more to come has a cursor')
    await searchCase(['TODO', '--max-results', '2', '--cursor', first.cursor], { pattern: 'TODO', maxResults: 2, cursor: first.cursor })
  })

  test('explain: reasons, text and --json', async () => {
    const seen = new Set()
    const cases = [
      [['debug.log'], 'debug.log', {}],
      [['keep.log'], 'keep.log', {}],
      [['build/out.js'], 'build/out.js', {}],
      [['src/a.ts', '**/*.ts'], 'src/a.ts', { pattern: '**/*.ts' }],
      [['src/a.ts', '**/*.py'], 'src/a.ts', { pattern: '**/*.py' }],
      [['.env', '--no-hidden'], '.env', { hidden: false }],
      [['node_modules/dep/index.js'], 'node_modules/dep/index.js', {}],
      [['missing.txt'], 'missing.txt', {}],
      [['src/deep/er/z.rs', '--max-depth', '1'], 'src/deep/er/z.rs', { maxDepth: 1 }],
      [['a.ts', '--cwd', 'src'], 'a.ts', { cwd: 'src' }],
      [['./src/../src/lib/b.ts', '--min-size', '1KB'], 'src/lib/b.ts', { minSize: '1KB' }],
      [['src', '--exclude', 'src'], 'src', { exclude: ['src'] }],
      [['src/a.ts', '--type', 'folder'], 'src/a.ts', { type: 'folder' }],
    ]
    for (const [args, target, options] of cases) {
      const result = await explainCase(args, target, options)
      for (const key of Object.keys(result ?? {})) seen.add(key)
    }
    for (const key of ['at', 'rule', 'overrides', 'exclude']) assert.ok(seen.has(key), `a case has ${key}`)
  })

  test('help, version, type list', () => {
    for (const args of [['--help'], ['-h'], ['x', '--help'], ['--version'], ['-V'], ['search', '--help'], ['explain', '-h'], ['search', '--type-list']]) {
      const r = native(args, dir)
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`)
      assert.equal(r.stderr, '')
    }
    assert.match(native(['--help'], dir).stdout, /^Usage: agent-find <pattern> \[path\] \[options\]\n/)
    assert.match(native(['search', '-h'], dir).stdout, /^Usage: agent-find search <regex> \[path\] \[options\]\n/)
    assert.match(native(['explain', '--help'], dir).stdout, /^Usage: agent-find explain <path> \[pattern\] \[options\]\n/)
    assert.equal(native(['-V'], dir).stdout, `${VERSION}\n`)
    assert.match(native(['search', '--type-list'], dir).stdout, /^py: .*\*\.py/m)
  })

  test('usage errors of the command line itself (exit 2): the flag named, and where to look', () => {
    const cases = [
      [[], 'missing <pattern>; try: agent-find "**/*.ts" src'],
      [['search'], "missing <regex>; try: agent-find search 'TODO' src --glob '*.py'"],
      [['explain'], 'missing <path>; try: agent-find explain build/out.js'],
      [['explain', ''], "the path to explain is empty; give one such as 'build/out.js'"],
      [['a', 'b', 'c'], "unexpected argument 'c': give one pattern and at most one path"],
      [['search', '-e', 'a', 'b', 'c'], "unexpected argument 'c': give one regex and at most one path"],
      [['explain', 'a', 'b', 'c'], "unexpected argument 'c': give one path and at most one pattern"],
      [['--bogus'], "unknown flag '--bogus' (see agent-find --help)"],
      [['x', '--bogus', '--help'], "unknown flag '--bogus' (see agent-find --help)"],
      [['-x'], "unknown flag '-x' (see agent-find --help)"],
      [['--héllo'], "unknown flag '--héllo' (see agent-find --help)"],
      [['-\u{1F600}'], "unknown flag '-\u{1F600}' (see agent-find --help)"],
      [['search', '--version'], "unknown flag '--version' (see agent-find search --help)"],
      [['--type-list'], "unknown flag '--type-list' (see agent-find --help)"],
      [['explain', 'a', '--version'], "unknown flag '--version' (see agent-find explain --help)"],
      [['--limit'], "missing argument for option '--limit' (see agent-find --help)"],
      [['search', 'x', '-t'], "missing argument for option '-t' (see agent-find search --help)"],
      [['x', '--regex=1'], 'unexpected argument for option \'--regex\': "1" (see agent-find --help)'],
      [['x', '--limit', 'abc'], "--limit takes a whole number, at least 1; got 'abc' (see agent-find --help)"],
      [['x', '--limit', '0'], "--limit takes a whole number, at least 1; got '0' (see agent-find --help)"],
      [['x', '--limit', '-5'], "--limit takes a whole number, at least 1; got '-5' (see agent-find --help)"],
      [['x', '--limit=1.5'], "--limit takes a whole number, at least 1; got '1.5' (see agent-find --help)"],
      [['x', '--limit', '0x10'], "--limit takes a whole number, at least 1; got '0x10' (see agent-find --help)"],
      [['x', '--limit', ' 3 '], "--limit takes a whole number, at least 1; got ' 3 ' (see agent-find --help)"],
      [['x', '--limit', ''], "--limit takes a whole number, at least 1; got '' (see agent-find --help)"],
      [['search', 'x', '-C', 'two'], "-C takes a whole number; got 'two' (see agent-find search --help)"],
      [['x', '--max-limit', 'inf'], "--max-limit takes a number (or Infinity); got 'inf' (see agent-find --help)"],
      [['x', '--timeout', 'NaN'], "--timeout takes a number (or Infinity); got 'NaN' (see agent-find --help)"],
      [[`--${'x'.repeat(700)}`], `unknown flag '--${'x'.repeat(98)}… (702 bytes in all)' (see agent-find --help)`],
    ]
    for (const [args, message] of cases) {
      const r = native(args, dir)
      assert.deepEqual(r, { status: 2, signal: null, stdout: '', stderr: `agent-find: invalid-argument: ${message}\n` }, args.join(' '))
    }
  })

  test('arguments that are not UTF-8 are read lossily (U+FFFD), without a panic', { skip: WINDOWS && 'Windows passes arguments as UTF-16' }, async () => {
    const bash = (line) => run('bash', ['-c', `"${NATIVE}" ${line}`], dir)
    const found = await library(find, { pattern: '\uFFFD' })
    assert.deepEqual(bash("$'\\xff'"), { status: 0, signal: null, stdout: `${formatFindResult(found.result)}\n`, stderr: '' })
    const hits = await library(searchFiles, { pattern: 'a\uFFFD\uFFFD' })
    assert.deepEqual(bash("search $'a\\xfe\\xff'"), { status: 0, signal: null, stdout: `${formatSearchResult(hits.result)}\n`, stderr: '' })
    const flag = bash("'*' $'--li\\xffmit'")
    assert.deepEqual(flag, { status: 2, signal: null, stdout: '', stderr: "agent-find: invalid-argument: unknown flag '--li\uFFFDmit' (see agent-find --help)\n" })
  })
})

test('timeoutMs holds natively: past its deadline a walk fails with aborted (exit 1), or with --partial answers incomplete', async (t) => {
  const spec = {}
  for (let i = 0; i < 4000; i++) spec[`d${i % 40}/e${i % 7}/f${i}.txt`] = 'TODO\n'
  const dir = tmpTree(t, spec)
  for (const args of [['**/*', '--timeout', '1'], ['search', 'TODO', '--timeout', '1']]) {
    const r = native(args, dir)
    assert.equal(r.status, 1, `${args.join(' ')}: ${r.stdout}`)
    assert.equal(r.stdout, '')
    assert.match(r.stderr, /^agent-find: aborted: .*timeoutMs.*1 ms/)
  }
  // The library's answer cut at a deadline, as the oracle of which fields a partial answer has.
  const partial = await searchFiles({ cwd: dir, pattern: 'TODO', timeoutMs: 1, partial: true })
  const r = native(['search', 'TODO', '--timeout', '1', '--partial', '--json'], dir)
  assert.equal(r.status, 0, r.stderr)
  const got = JSON.parse(r.stdout)
  assert.equal(got.incomplete, true)
  assert.equal(partial.incomplete, true)
  assert.deepEqual(Object.keys(got), Object.keys(partial))
})

test('a reader closing the pipe early is not an error', { skip: WINDOWS && 'uses bash and head' }, (t) => {
  const spec = {}
  for (let i = 0; i < 3000; i++) spec[`many-${i}.txt`] = ''
  const dir = tmpTree(t, spec)
  const r = spawnSync('bash', ['-c', `"${NATIVE}" '*.txt' --limit 3000 --max-bytes Infinity --json | head -1; echo "status=\${PIPESTATUS[0]}"`], { cwd: dir, encoding: 'utf8' })
  assert.equal(r.stdout, '{\nstatus=0\n')
  assert.equal(r.stderr, '')
})

describe('the npm bin', { skip: WINDOWS && 'the stand-in binary is a shell script' }, () => {
  /**
   * A package folder of its own with this repository's bin/ and js/, and
   * `binary` (a shell script standing in for the real one, or the real one)
   * where `npm run build` puts it: what the bin runs, with which arguments,
   * and how it ends, is then what the stand-in shows.
   */
  function fakePackage(t, { script, binary, mode = 0o755, pkg = { name: 'agent-find', version: VERSION } } = {}) {
    const dir = tmpTree(t, { 'package.json': JSON.stringify(pkg) })
    fs.cpSync(path.join(REPO, 'bin'), path.join(dir, 'bin'), { recursive: true })
    fs.symlinkSync(path.join(REPO, 'js'), path.join(dir, 'js'))
    const fake = path.join(dir, path.basename(NATIVE))
    if (script !== undefined) fs.writeFileSync(fake, `#!/bin/sh\n${script}\n`)
    if (binary) fs.copyFileSync(binary, fake)
    if (script !== undefined || binary) fs.chmodSync(fake, mode)
    return { dir, bin: path.join(dir, 'bin', 'agent-find.js'), npmBin: path.join(dir, 'bin', 'agent-find'), fake }
  }

  test('runs the binary with the arguments and ends with its status or signal', (t) => {
    const { bin, npmBin, fake } = fakePackage(t, { script: 'printf "fake:%s|" "$@"\ncase "$1" in exit3) exit 3;; term) kill -TERM $$;; esac' })
    const plain = run(process.execPath, [bin, 'a b', '--json', ''], REPO)
    assert.deepEqual(plain, { status: 0, signal: null, stdout: 'fake:a b|fake:--json|fake:|', stderr: '' })
    assert.equal(run(process.execPath, [bin, 'exit3'], REPO).status, 3)
    assert.equal(run(process.execPath, [bin, 'term'], REPO).signal, 'SIGTERM')
    assert.equal(run(process.execPath, [bin], REPO, { AGENT_FIND_CLI: 'which' }).stdout, `${fake}\n`)
    // The npm bin itself (a JS file until bin/install.js replaces it) runs the same.
    assert.deepEqual(run(npmBin, ['x', '-V'], REPO), { status: 0, signal: null, stdout: 'fake:x|fake:-V|', stderr: '' })
    assert.equal(run(npmBin, ['exit3'], REPO).status, 3)
  })

  test('passes a signal it gets on to the binary, then ends as the binary ends', async (t) => {
    // The stand-in says it is ready, then waits; on SIGTERM it says so and exits 7.
    const { bin } = fakePackage(t, { script: "trap 'echo got-term; exit 7' TERM\necho ready\nwhile :; do sleep 0.05; done" })
    const child = spawn(process.execPath, [bin], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    await new Promise((resolve) => child.stdout.on('data', (chunk) => {
      out += chunk
      if (out.includes('ready')) resolve()
    }))
    const ended = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
    child.kill('SIGTERM')
    assert.deepEqual(await ended, { code: 7, signal: null })
    assert.equal(out, 'ready\ngot-term\n')
  })

  test('finds the binary in the platform package, as npm installs it', (t) => {
    // node_modules/agent-find (the bin) beside node_modules/agent-find-<platform> (the real binary).
    const dir = tmpTree(t)
    const top = path.join(dir, 'node_modules', 'agent-find')
    fs.mkdirSync(top, { recursive: true })
    fs.cpSync(path.join(REPO, 'bin'), path.join(top, 'bin'), { recursive: true })
    fs.symlinkSync(path.join(REPO, 'js'), path.join(top, 'js'))
    fs.copyFileSync(path.join(REPO, 'package.json'), path.join(top, 'package.json'))
    const pkg = path.join(dir, 'node_modules', `agent-find-${PLATFORM}`)
    fs.mkdirSync(pkg)
    fs.copyFileSync(path.join(REPO, 'npm', PLATFORM, 'package.json'), path.join(pkg, 'package.json'))
    fs.copyFileSync(NATIVE, path.join(pkg, 'agent-find'))
    fs.chmodSync(path.join(pkg, 'agent-find'), 0o755)
    const bin = path.join(top, 'bin', 'agent-find.js')
    assert.equal(run(process.execPath, [bin], dir, { AGENT_FIND_CLI: 'which' }).stdout, `${path.join(pkg, 'agent-find')}\n`)
    assert.deepEqual(run(process.execPath, [bin, '-V'], dir), { status: 0, signal: null, stdout: `${VERSION}\n`, stderr: '' })
    // The binary there hands `mcp` to Node, with the package found beside its own.
    const mcp = run(path.join(pkg, 'agent-find'), ['mcp', '--help'], dir)
    assert.equal(mcp.status, 0, mcp.stderr)
    assert.match(mcp.stdout, /^Usage: agent-find mcp/)
  })

  test('without a binary for this machine: which package to install, exit 1', (t) => {
    const optional = { name: 'agent-find', version: VERSION, optionalDependencies: { [`agent-find-${PLATFORM}`]: VERSION } }
    const { bin } = fakePackage(t, { pkg: optional })
    for (const args of [['*.md'], ['search', 'x', '--json']]) {
      const r = run(process.execPath, [bin, ...args], REPO)
      assert.equal(r.status, 1)
      assert.equal(r.stdout, '')
      assert.equal(r.stderr, `agent-find: missing-binary: the agent-find command for ${PLATFORM} is not installed: it comes in the package agent-find-${PLATFORM} (npm install agent-find-${PLATFORM}, or reinstall agent-find with optional dependencies)\n`)
    }
    const which = run(process.execPath, [bin], REPO, { AGENT_FIND_CLI: 'which' })
    assert.equal(which.status, 1)
    assert.match(which.stderr, /^agent-find: missing-binary: /)
    // A platform with no package: build it from the repository.
    const none = fakePackage(t)
    const r = run(process.execPath, [none.bin, '*.md'], REPO)
    assert.equal(r.status, 1)
    assert.equal(r.stderr, `agent-find: missing-binary: agent-find has no prebuilt command for ${PLATFORM}; build it from the repository (npm run build, which needs Rust)\n`)
    // A binary that cannot start (not executable): said so, exit 1.
    const broken = fakePackage(t, { script: 'echo fake', mode: 0o644 })
    const b = run(process.execPath, [broken.bin, '-V'], REPO)
    assert.equal(b.status, 1)
    assert.match(b.stderr, /^agent-find: missing-binary: .* could not start \(EACCES\); reinstall agent-find\n$/)
  })

  test('runs mcp on Node itself', (t) => {
    const { bin } = fakePackage(t, { script: 'echo fake' })
    const mcp = run(process.execPath, [bin, 'mcp', '--help'], REPO)
    assert.equal(mcp.status, 0, mcp.stderr)
    assert.match(mcp.stdout, /^Usage: agent-find mcp/)
  })

  describe('bin/install.js', () => {
    const NPM_AGENT = 'npm/11.0.0 node/v20.0.0 linux x64 workspaces/false'
    /** An installed package: node_modules/agent-find with the real binary in node_modules/agent-find-<platform>. */
    function installed(t, { binary = NATIVE } = {}) {
      const dir = tmpTree(t, { 'w/notes.md': '' })
      const top = path.join(dir, 'node_modules', 'agent-find')
      fs.mkdirSync(top, { recursive: true })
      fs.cpSync(path.join(REPO, 'bin'), path.join(top, 'bin'), { recursive: true })
      for (const f of ['js', 'package.json', 'index.js', 'binding.js', ...fs.readdirSync(REPO).filter((f) => f.endsWith('.node'))]) {
        fs.symlinkSync(path.join(REPO, f), path.join(top, f))
      }
      const pkg = path.join(dir, 'node_modules', `agent-find-${PLATFORM}`)
      fs.mkdirSync(pkg)
      fs.copyFileSync(path.join(REPO, 'npm', PLATFORM, 'package.json'), path.join(pkg, 'package.json'))
      fs.copyFileSync(binary, path.join(pkg, 'agent-find'))
      fs.chmodSync(path.join(pkg, 'agent-find'), 0o755)
      return { dir, top, npmBin: path.join(top, 'bin', 'agent-find'), binary: path.join(pkg, 'agent-find') }
    }
    const install = (top, agent = NPM_AGENT) => run(process.execPath, [path.join(top, 'bin', 'install.js')], top, { npm_config_user_agent: agent })
    const isJs = (file) => fs.readFileSync(file, 'utf8').startsWith('#!/usr/bin/env node')

    test('under npm, the npm bin becomes the binary: it finds, answers --version and hands mcp to Node', (t) => {
      const { dir, top, npmBin, binary } = installed(t)
      assert.ok(isJs(npmBin))
      assert.deepEqual(install(top), { status: 0, signal: null, stdout: '', stderr: '' })
      assert.ok(!isJs(npmBin), 'the npm bin is the binary now')
      assert.equal(fs.statSync(npmBin).ino, fs.statSync(binary).ino, 'a hard link to the platform package\'s binary')
      assert.deepEqual(fs.readdirSync(path.join(top, 'bin')).sort(), ['agent-find', 'agent-find.js', 'install.js'], 'no temporary file left')
      // As npm links it: node_modules/.bin/agent-find -> ../agent-find/bin/agent-find.
      const link = path.join(dir, 'node_modules', '.bin', 'agent-find')
      fs.mkdirSync(path.dirname(link))
      fs.symlinkSync(path.join('..', 'agent-find', 'bin', 'agent-find'), link)
      assert.deepEqual(run(link, ['*.md', 'w'], dir), { status: 0, signal: null, stdout: `Search directory: ${path.join(dir, 'w')}\nnotes.md\n`, stderr: '' })
      const mcp = run(link, ['mcp', '--help'], dir)
      assert.equal(mcp.status, 0, mcp.stderr)
      assert.match(mcp.stdout, /^Usage: agent-find mcp/)
      // bin/agent-find.js stays JavaScript: `node .../bin/agent-find.js` still works.
      assert.equal(run(process.execPath, [path.join(top, 'bin', 'agent-find.js'), '-V'], dir).stdout, `${VERSION}\n`)
      // Run again (npm rebuild): the same.
      assert.equal(install(top).status, 0)
      assert.equal(run(link, ['-V'], dir).stdout, `${VERSION}\n`)
    })

    test('left as JS: pnpm, yarn, bun; a binary of another version; outside node_modules', (t) => {
      for (const agent of ['pnpm/9.0.0 npm/? node/v20.0.0 linux x64', 'yarn/4.0.0 npm/? node/v20.0.0 linux x64', 'bun/1.1.0 npm/? node/v20.0.0 linux x64', '']) {
        const { top, npmBin } = installed(t)
        assert.equal(install(top, agent).status, 0)
        assert.ok(isJs(npmBin), agent)
      }
      const stale = path.join(tmpTree(t), 'old-agent-find')
      fs.writeFileSync(stale, '#!/bin/sh\necho 0.0.1\n')
      const other = installed(t, { binary: stale })
      assert.equal(install(other.top).status, 0)
      assert.ok(isJs(other.npmBin))
      const checkout = fakePackage(t, { binary: NATIVE })
      assert.equal(run(process.execPath, [path.join(checkout.dir, 'bin', 'install.js')], checkout.dir, { npm_config_user_agent: NPM_AGENT }).status, 0)
      assert.ok(isJs(checkout.npmBin))
    })
  })
})

describe('agent-find mcp, handed from the binary to Node', { skip: WINDOWS && 'uses POSIX paths and PATH' }, () => {
  test('--help and a real session: initialize, list the tools, call find', async (t) => {
    const help = native(['mcp', '--help'], REPO)
    assert.equal(help.status, 0, help.stderr)
    assert.match(help.stdout, /^Usage: agent-find mcp/)
    const root = tmpTree(t, { 'a.txt': 'hello\n', 'b/c.txt': '' })
    const child = spawn(NATIVE, ['mcp', '--root', root, '--no-index'], { stdio: ['pipe', 'pipe', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d) => { err += d })
    const replies = new Map()
    const lines = readline.createInterface({ input: child.stdout })
    lines.on('line', (line) => {
      const msg = JSON.parse(line)
      replies.get(msg.id)?.(msg)
    })
    const ask = (id, method, params) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method}; stderr: ${err}`)), 30_000)
      replies.set(id, (m) => { clearTimeout(timer); resolve(m) })
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
    const ended = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
    try {
      const init = await ask(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } })
      assert.equal(init.result.serverInfo.name, 'agent-find')
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
      const list = await ask(2, 'tools/list', {})
      assert.deepEqual(list.result.tools.map((tool) => tool.name), ['find', 'search_files', 'explain_path'])
      const call = await ask(3, 'tools/call', { name: 'find', arguments: { pattern: '**/*.txt', sortBy: 'name' } })
      assert.equal(call.result.content[0].text, `Search directory: ${fs.realpathSync(root)}\na.txt\nb/c.txt`)
    } finally {
      child.stdin.end()
    }
    // stdin closed: the server ends, and so does the binary's process (it became Node).
    assert.deepEqual(await ended, { code: 0, signal: null })
  })

  test('ends as Node ends: its status, and a signal reaches the server', async () => {
    const bad = native(['mcp', '--root', '/no/such/folder'], REPO)
    assert.equal(bad.status, 2)
    assert.match(bad.stderr, /^agent-find: not-found: root `\/no\/such\/folder` does not exist/)
    const child = spawn(NATIVE, ['mcp', '--root', REPO, '--no-index'], { stdio: ['pipe', 'pipe', 'pipe'] })
    // The server is up once it answers.
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`)
    await new Promise((resolve) => child.stdout.once('data', resolve))
    const ended = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
    child.kill('SIGTERM')
    assert.deepEqual(await ended, { code: null, signal: 'SIGTERM' })
  })

  test('Node from npm_node_execpath, else PATH; a clear error without Node or without the package', (t) => {
    const empty = tmpTree(t)
    const noNode = { PATH: empty, npm_node_execpath: '' }
    const missing = native(['mcp', '--help'], REPO, noNode)
    assert.equal(missing.status, 1)
    assert.equal(missing.stdout, '')
    assert.equal(missing.stderr, 'agent-find: missing-node: `agent-find mcp` runs on Node.js (the MCP server is JavaScript), and no `node` is on PATH: install Node.js 18 or later\n')
    const viaNpm = native(['mcp', '--help'], REPO, { ...noNode, npm_node_execpath: process.execPath })
    assert.equal(viaNpm.status, 0, viaNpm.stderr)
    assert.match(viaNpm.stdout, /^Usage: agent-find mcp/)
    // A binary on its own, with no package around it.
    const alone = path.join(tmpTree(t), 'agent-find')
    fs.copyFileSync(NATIVE, alone)
    fs.chmodSync(alone, 0o755)
    const lost = run(alone, ['mcp'], REPO)
    assert.equal(lost.status, 1)
    assert.match(lost.stderr, /^agent-find: missing-package: `agent-find mcp` runs on Node from the npm package agent-find, and no package is beside or above .*: run it as `npx agent-find mcp`, or install agent-find with npm\n$/)
    // The rest of the command needs no package.
    assert.equal(run(alone, ['-V'], REPO).stdout, `${VERSION}\n`)
  })
})
