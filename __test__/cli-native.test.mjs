// The native CLI (cli/, the `agent-find` binary) against the JS CLI
// (js/cli.js, forced with AGENT_FIND_CLI=js) and the bin shim: the same
// cases on real temp trees, and the same stdout, stderr and exit status from
// each, byte for byte. `npm run build` builds and places the binary; without
// it these tests fail (they do not skip). Node's wording of a bad flag is
// matched too (the native CLI reads flags as util.parseArgs does), so the
// error cases compare whole stderr as well.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import { REPO, tmpTree, makeTmp, removeTmp, writeTree, gitInit, setMtime } from './helpers.mjs'

const SHIM = path.join(REPO, 'bin', 'agent-find.js')
const WINDOWS = process.platform === 'win32'

/** What the shim would run: `native <path>` or `js` (AGENT_FIND_CLI=which). */
function shimChoice() {
  const r = spawnSync(process.execPath, [SHIM], { encoding: 'utf8', env: { ...process.env, AGENT_FIND_CLI: 'which' } })
  assert.equal(r.status, 0, r.stderr)
  return r.stdout.trim()
}

const CHOICE = shimChoice()
const NATIVE = CHOICE.startsWith('native ') ? CHOICE.slice('native '.length) : undefined

function run(file, args, cwd, env) {
  const r = spawnSync(file, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.error) throw r.error
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr }
}

const native = (args, cwd) => run(NATIVE, args, cwd)
const js = (args, cwd) => run(process.execPath, [SHIM, ...args], cwd, { AGENT_FIND_CLI: 'js' })
const shim = (args, cwd) => run(process.execPath, [SHIM, ...args], cwd, { AGENT_FIND_CLI: '' })

/** Runs `args` in `cwd` with the JS CLI, the native CLI and the shim; all three must agree. */
function same(args, cwd, what = args.join(' ')) {
  const expected = js(args, cwd)
  const got = native(args, cwd)
  assert.deepEqual(got, expected, `native vs JS: agent-find ${what}`)
  assert.deepEqual(shim(args, cwd), expected, `shim vs JS: agent-find ${what}`)
  return expected
}

test('npm run build placed the native CLI where the shim finds it', () => {
  assert.ok(NATIVE, `the shim finds no native CLI (it says "${CHOICE}"): run npm run build`)
  assert.ok(fs.existsSync(NATIVE), NATIVE)
  assert.equal(path.dirname(NATIVE), REPO, 'a dev build sits in the package folder')
  assert.match(path.basename(NATIVE), WINDOWS ? /^agent-find\.[\w-]+\.exe$/ : /^agent-find\.[\w-]+$/)
})

describe('the native CLI answers as the JS CLI', () => {
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
    }
    dir = writeTree(makeTmp(), spec)
    gitInit(dir)
    for (const [i, f] of ['README.md', '.gitignore', 'src/todo.py', 'src/app.js', 'src/deep/er/z.rs', 'src/long.txt', '.env', 'debug.log', 'data/big.bin'].entries()) {
      setMtime(path.join(dir, f), EPOCH + 100 + i)
    }
    if (!WINDOWS && process.platform !== 'darwin') {
      // A name that is not UTF-8: `path` lossy, `pathBytes` exact in --json.
      fs.writeFileSync(Buffer.concat([Buffer.from(path.join(dir, 'src', 'bad-')), Buffer.from([0xff, 0xfe]), Buffer.from('.bin')]), 'x')
    }
  })

  after(() => removeTmp(dir))

  test('find: the text, with many flags', () => {
    for (const args of [
      ['**/*.ts'],
      ['**/*'],
      ['**/*.ts', 'src', '--sort', 'name'],
      ['**', '--type', 'dir', '--sort', 'name'],
      ['**', '--type=any', '--sort', 'name', '--no-gitignore'],
      ['**/*', '--limit', '2', '--sort', 'size', '--reverse'],
      ['*.MD', '--match-base'],
      ['*.MD', '--match-base', '--case-sensitive'],
      ['^[bc]\\.tsx?$', '--regex'],
      ['**/*', '--no-hidden', '--no-gitignore', '--sort', 'mtime'],
      ['**/*', '--exclude', 'src', '--exclude=*.md', '--max-depth', '1', '--sort', 'name'],
      ['**/*', '--min-size', '100', '--max-size', '2KB', '--sort', 'size'],
      ['**/*', '--min-size', '0x10', '--max-size', '1e4'],
      ['**/*', '--modified-since', '2024-05-01T00:00:25Z'],
      ['**/*', '--modified-since', String((EPOCH + 25) * 1000)],
      ['**/*', '--modified-since', '3650d'],
      ['**/*', '--max-bytes', '300'],
      ['**/*', '--max-tokens', '64'],
      ['**/*', '--limit', 'Infinity', '--max-limit', 'Infinity', '--sort', 'none'],
      ['**/*', '--limit', ' 3 ', '--sort', 'name'],
      ['**/*', '--skipped', '--sort', 'name'],
      ['**/*', '--git', 'untracked', '--sort', 'name'],
      ['**/*', '--timeout', '60000', '--sort', 'name'],
      ['**/*.ts', '.', '--root', '.', '--cwd', 'src', '--sort', 'name'],
      ['**/*.nothing'],
      ['--', '**/*.ts'],
    ]) {
      same(args, dir)
    }
  })

  test('find --json: the same FindResult, byte for byte', () => {
    const seen = new Set()
    for (const args of [
      ['**/*', '--json', '--sort', 'name'],
      ['**/*', '--json', '--limit', '1'],
      ['**/*', '--json', '--max-bytes', '300', '--sort', 'name'],
      ['**/*', '--json', '--skipped', '--no-hidden'],
      ['**', '--json', '--type', 'dir', '--sort', 'size'],
      ['**/*.nothing', '--json'],
      ['**/*.bin', '--json', '--sort', 'name'],
      ['**/*', '--json', '--limit', '2', '--sort', 'name'],
      ['**/*.log', '--json'],
      ['**/out.js', '--json'],
    ]) {
      for (const key of Object.keys(JSON.parse(same(args, dir).stdout))) seen.add(key)
    }
    // The cases reach every optional field of a FindResult but `skipped`'s rule-less folders.
    for (const key of ['truncatedBy', 'notice', 'hint', 'omitted', 'skipped']) assert.ok(seen.has(key), `a case has ${key}`)
  })

  test('search: context, type, glob, -e, modes, names', () => {
    for (const args of [
      ['search', 'TODO'],
      ['search', 'todo', '-i', '-C', '1'],
      ['search', 'TODO', 'src', '--glob', '*.py', '-B', '1', '--after', '2'],
      ['search', '-e', 'foo', '-e', 'bar', 'src'],
      ['search', 'foo', '-e', 'bar'],
      ['search', 'TODO', '-t', 'py', '--type', 'js'],
      ['search', 'TODO', '--mode', 'count'],
      ['search', 'TODO', '--mode=files'],
      ['search', 'a.b', '-F'],
      ['search', 'one\\ntwo', '-U'],
      ['search', 'foo', '-m', '1', '--max-results', '3'],
      ['search', 'TODO', '--offset', '2'],
      ['search', 'TODO', '--no-ignore', '--skipped'],
      ['search', 'TODO', '--max-tokens', '64'],
      ['search', 'far out'],
      ['search', 'tod', '--files'],
      ['search', 'readmi', '--files', '--fuzzy'],
      ['search', '(?<=const )foo'],
      ['search', 'TODO', '--git', 'untracked'],
      ['search', 'absent-text'],
      ['search', 'TODO', '--timeout', '60000', '--partial'],
    ]) {
      same(args, dir)
    }
  })

  test('search --json, and a cursor carried to the next page', () => {
    const seen = new Set()
    for (const args of [
      ['search', 'TODO', '-C', '1', '--json'],
      ['search', '-e', 'foo', '-e', 'bar', '--json'],
      ['search', 'TODO', '--mode', 'count', '--json'],
      ['search', 'TODO', '--mode', 'files', '--json', '--skipped'],
      ['search', 'tod', '--files', '--json'],
      ['search', 'TODO', '--max-results', '2', '--offset', '1', '--json'],
      ['search', 'far out', '--json'],
      ['search', 'TODO', '--max-tokens', '64', '--json'],
    ]) {
      const result = JSON.parse(same(args, dir).stdout)
      for (const key of Object.keys(result)) seen.add(key)
      for (const m of result.matches ?? []) for (const key of Object.keys(m)) seen.add(`match.${key}`)
    }
    // The cases reach the optional fields of a SearchResult and a line match (`incomplete` and
    // `indexChanged` need a deadline that runs out and an index: not here).
    for (const key of ['matches', 'files', 'counts', 'fileCount', 'offset', 'skipped', 'spread', 'match.patterns', 'match.column', 'match.before', 'match.after']) {
      assert.ok(seen.has(key), `a case has ${key}`)
    }
    const first = JSON.parse(same(['search', 'TODO', '--max-results', '2', '--json'], dir).stdout)
    assert.ok(first.cursor, 'a first page with more to come has a cursor')
    same(['search', 'TODO', '--max-results', '2', '--cursor', first.cursor], dir)
  })

  test('explain: reasons, text and --json', () => {
    for (const args of [
      ['explain', 'debug.log'],
      ['explain', 'keep.log', '--json'],
      ['explain', 'build/out.js', '--json'],
      ['explain', 'src/a.ts', '**/*.ts'],
      ['explain', 'src/a.ts', '**/*.py', '--json'],
      ['explain', '.env', '--no-hidden', '--json'],
      ['explain', 'node_modules/dep/index.js'],
      ['explain', 'missing.txt'],
      ['explain', 'src/deep/er/z.rs', '--max-depth', '1'],
      ['explain', 'a.ts', '--cwd', 'src', '--json'],
      ['explain', './src/../src/lib/b.ts', '--min-size', '1KB'],
      ['explain', 'src', '--exclude', 'src'],
    ]) {
      same(args, dir)
    }
  })

  test('help, version, type list', () => {
    for (const args of [['--help'], ['-h'], ['--version'], ['-V'], ['search', '--help'], ['explain', '-h'], ['search', '--type-list'], ['x', '--help', '--bogus-after-help-is-still-an-error']]) {
      const r = same(args, dir)
      assert.ok(args.includes('--bogus-after-help-is-still-an-error') ? r.status === 2 : r.status === 0, args.join(' '))
    }
  })

  test('usage errors (exit 2): Node\'s flag messages, the library\'s option messages', () => {
    for (const args of [
      [], ['--bogus'], ['-x'], ['--limit'], ['--limit', '-5'], ['--regex=1'], ['-h=1'], ['-hx'], ['search', '-t'],
      ['search', '-t', '-x'], ['search', '--version'], ['--type-list'], ['explain', '--version'],
      ['*', '--limit', 'abc'], ['*', '--limit', '1.5'], ['*', '--limit', '0'], ['*', '--limit', ''], ['*', '--max-limit', '-Infinity'],
      ['src/[x'], ['*', '--type', 'folder'], ['*', '--modified-since', 'yesterday'], ['*', '--min-size', '10XB'],
      ['a', 'b', 'c'], ['search'], ['search', '(open'], ['search', 'x', '--max-results', '0'], ['search', 'x', '--mode', 'lines'],
      ['search', 'TODO', '-C', '2', '--mode', 'count'], ['search', 'x', '--cursor', 'garbage'], ['search', '-e', 'a', 'b', 'c'],
      ['explain'], ['explain', ''], ['explain', 'a', 'b', 'c'], ['*', '--git', 'sideways'], ['*', '--changed-since', 'no-such-ref'],
      [`--${'x'.repeat(700)}`], ['-\u{1F600}'], ['--héllo'],
    ]) {
      const r = same(args, dir)
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.match(r.stderr, /^agent-find: (invalid-argument|invalid-pattern): /)
      assert.equal(r.stdout, '')
    }
  })

  test('other errors (exit 1)', () => {
    for (const args of [['*', 'missing'], ['*', 'README.md'], ['*', '..', '--root', '.'], ['search', 'x', 'missing']]) {
      const r = same(args, dir)
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`)
      assert.match(r.stderr, /^agent-find: [a-z-]+: /)
    }
  })

  test('arguments that are not UTF-8 are read as Node reads them, without a panic', { skip: WINDOWS && 'Windows passes arguments as UTF-16' }, () => {
    for (const args of [["$'\\xff'"], ['search', "$'a\\xfe\\xff'"], ["'*'", "$'--li\\xffmit'"]]) {
      const line = args.join(' ')
      const js = run('bash', ['-c', `AGENT_FIND_CLI=js "${process.execPath}" "${SHIM}" ${line}`], dir)
      const got = run('bash', ['-c', `"${NATIVE}" ${line}`], dir)
      assert.deepEqual(got, js, line)
      assert.doesNotMatch(got.stderr, /panicked|internal error/)
    }
  })
})

test('timeoutMs holds natively: a walk past its deadline fails with aborted (exit 1)', (t) => {
  const spec = {}
  for (let i = 0; i < 4000; i++) spec[`d${i % 40}/e${i % 7}/f${i}.txt`] = 'TODO\n'
  const dir = tmpTree(t, spec)
  for (const args of [['**/*', '--timeout', '1'], ['search', 'TODO', '--timeout', '1']]) {
    const r = native(args, dir)
    assert.equal(r.status, 1, `${args.join(' ')}: ${r.stdout}`)
    assert.equal(r.stdout, '')
    // The same wording as the JS CLI's (it depends on timing, so each is checked on its own).
    assert.match(r.stderr, /^agent-find: aborted: .*timeoutMs.*1 ms/)
    const j = js(args, dir)
    assert.equal(j.status, 1)
    assert.match(j.stderr, /^agent-find: aborted: .*timeoutMs.*1 ms/)
    assert.equal(r.stderr, j.stderr)
  }
})

test('a reader closing the pipe early is not an error (native)', { skip: WINDOWS && 'uses bash and head' }, (t) => {
  const spec = {}
  for (let i = 0; i < 3000; i++) spec[`many-${i}.txt`] = ''
  const dir = tmpTree(t, spec)
  const r = spawnSync('bash', ['-c', `"${NATIVE}" '*.txt' --limit 3000 --max-bytes Infinity --json | head -1; echo "status=\${PIPESTATUS[0]}"`], { cwd: dir, encoding: 'utf8' })
  assert.equal(r.stdout, '{\nstatus=0\n')
  assert.equal(r.stderr, '')
})

describe('the shim', { skip: WINDOWS && 'the stand-in binary is a shell script' }, () => {
  // A copy of the shim in a package folder of its own, with a stand-in
  // binary where `npm run build` puts the real one: what the shim runs, with
  // which arguments, and how it ends, is then what the stand-in shows.
  function fakePackage(t, script, mode = 0o755) {
    const dir = tmpTree(t, { 'bin/agent-find.js': fs.readFileSync(SHIM) })
    fs.symlinkSync(path.join(REPO, 'js'), path.join(dir, 'js'))
    const fake = path.join(dir, path.basename(NATIVE))
    fs.writeFileSync(fake, `#!/bin/sh\n${script}\n`)
    fs.chmodSync(fake, mode)
    return { dir, bin: path.join(dir, 'bin', 'agent-find.js') }
  }

  test('runs the binary with the arguments and ends with its status or signal', (t) => {
    const { bin } = fakePackage(t, 'printf "fake:%s|" "$@"\ncase "$1" in exit3) exit 3;; term) kill -TERM $$;; esac')
    const plain = run(process.execPath, [bin, 'a b', '--json', ''], REPO)
    assert.deepEqual(plain, { status: 0, signal: null, stdout: 'fake:a b|fake:--json|fake:|', stderr: '' })
    assert.equal(run(process.execPath, [bin, 'exit3'], REPO).status, 3)
    const killed = run(process.execPath, [bin, 'term'], REPO)
    assert.equal(killed.signal, 'SIGTERM')
    assert.equal(run(process.execPath, [bin], REPO, { AGENT_FIND_CLI: 'which' }).stdout, `native ${path.join(path.dirname(path.dirname(bin)), path.basename(NATIVE))}\n`)
  })

  test('passes a signal it gets on to the binary, then ends as the binary ends', async (t) => {
    // The stand-in says it is ready, then waits; on SIGTERM it says so and exits 7.
    const { bin } = fakePackage(t, "trap 'echo got-term; exit 7' TERM\necho ready\nwhile :; do sleep 0.05; done")
    const child = spawn(process.execPath, [bin], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, AGENT_FIND_CLI: '' } })
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
    // node_modules/agent-find (the shim) beside node_modules/agent-find-<platform> (the real binary).
    const platform = path.basename(NATIVE).slice('agent-find.'.length)
    const dir = tmpTree(t, { 'node_modules/agent-find/bin/agent-find.js': fs.readFileSync(SHIM) })
    fs.symlinkSync(path.join(REPO, 'js'), path.join(dir, 'node_modules', 'agent-find', 'js'))
    const pkg = path.join(dir, 'node_modules', `agent-find-${platform}`)
    fs.mkdirSync(pkg)
    fs.copyFileSync(path.join(REPO, 'npm', platform, 'package.json'), path.join(pkg, 'package.json'))
    fs.copyFileSync(NATIVE, path.join(pkg, 'agent-find'))
    fs.chmodSync(path.join(pkg, 'agent-find'), 0o755)
    const bin = path.join(dir, 'node_modules', 'agent-find', 'bin', 'agent-find.js')
    assert.equal(run(process.execPath, [bin], dir, { AGENT_FIND_CLI: 'which' }).stdout, `native ${path.join(pkg, 'agent-find')}\n`)
    const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version
    assert.deepEqual(run(process.execPath, [bin, '-V'], dir), { status: 0, signal: null, stdout: `${version}\n`, stderr: '' })
  })

  test('runs the JS CLI for mcp, with AGENT_FIND_CLI=js, and when the binary cannot start', (t) => {
    const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version
    const { bin } = fakePackage(t, 'echo fake')
    assert.equal(run(process.execPath, [bin, '--version'], REPO, { AGENT_FIND_CLI: 'js' }).stdout, `${version}\n`)
    assert.equal(run(process.execPath, [bin], REPO, { AGENT_FIND_CLI: 'which' }).stdout.startsWith('native '), true)
    const mcp = run(process.execPath, [bin, 'mcp', '--help'], REPO)
    assert.equal(mcp.status, 0, mcp.stderr)
    assert.match(mcp.stdout, /^Usage: agent-find mcp/)
    const broken = fakePackage(t, 'echo fake', 0o644)
    assert.equal(run(process.execPath, [broken.bin, '--version'], REPO).stdout, `${version}\n`)
  })
})
