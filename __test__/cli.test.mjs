// The `agent-find` command as a user runs it, through the npm bin
// (bin/agent-find.js, which runs the native CLI that `npm run build`
// places), as a real process on real temp trees: the text, `--json`, the
// flags and the exit codes of docs/API.md. __test__/cli-native.test.mjs
// holds the binary's answers to the library's, case by case.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'agent-find.js')
let dir

function cli(...args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8' })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'af-cli-'))
  fs.mkdirSync(path.join(dir, 'src', 'lib'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'src', 'a.ts'), 'x'.repeat(10))
  fs.writeFileSync(path.join(dir, 'src', 'lib', 'b.ts'), 'x'.repeat(300))
  fs.writeFileSync(path.join(dir, 'README.md'), 'hi')
})

after(() => fs.rmSync(dir, { recursive: true, force: true }))

test('prints the model text by default', () => {
  const r = cli('**/*.ts', '--sort', 'name')
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stdout, `Search directory: ${dir}\nsrc/a.ts\nsrc/lib/b.ts\n`)
})

test('--json prints the FindResult', () => {
  const r = cli('**/*.ts', 'src', '--sort', 'size', '--reverse', '--json')
  assert.equal(r.status, 0, r.stderr)
  const result = JSON.parse(r.stdout)
  assert.equal(result.path, path.join(dir, 'src'))
  assert.deepEqual(result.entries.map((e) => [e.path, e.size]), [['lib/b.ts', 300], ['a.ts', 10]])
  assert.equal(result.matched, 2)
  assert.equal(result.truncated, false)
})

test('flags reach the options: type, limit, depth, excludes, sizes', () => {
  const dirs = cli('**', '--type', 'dir', '--sort', 'name')
  assert.equal(dirs.stdout, `Search directory: ${dir}\nsrc/\nsrc/lib/\n`)
  const limited = cli('**/*', '--limit', '1', '--sort', 'name')
  assert.match(limited.stdout, /^3 files matched; returned first 1\. Refine the pattern or raise `limit` \(max 1000\)\.$/m)
  assert.equal(cli('**/*.ts', '--max-depth', '1', '--json').stdout.includes('lib/b.ts'), false)
  assert.equal(cli('**/*.ts', '--exclude', 'lib', '--json').stdout.includes('lib/b.ts'), false)
  const big = JSON.parse(cli('**/*', '--min-size', '100', '--json').stdout)
  assert.deepEqual(big.entries.map((e) => e.path), ['src/lib/b.ts'])
  const regex = JSON.parse(cli('^b\\.TS$', '--regex', '--json').stdout)
  assert.deepEqual(regex.entries.map((e) => e.path), ['src/lib/b.ts'])
})

test('no match is success, with the no-match text', () => {
  const r = cli('**/*.nothing')
  assert.equal(r.status, 0)
  assert.equal(r.stdout, `Search directory: ${dir}\nNo files matched.\n`)
})

test('bad usage exits 2 with the code on stderr', () => {
  for (const args of [[], ['*', '--limit', '0'], ['*', '--bogus'], ['src/[x'], ['*', '--type', 'folder'], ['a', 'b', 'c']]) {
    const r = cli(...args)
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /^agent-find: (invalid-argument|invalid-pattern): /, args.join(' '))
    assert.equal(r.stdout, '')
  }
})

test('other errors exit 1 with the code on stderr', () => {
  const missing = cli('*', 'missing')
  assert.equal(missing.status, 1)
  assert.match(missing.stderr, /^agent-find: not-found: .*missing/)
  const file = cli('*', 'README.md')
  assert.equal(file.status, 1)
  assert.match(file.stderr, /^agent-find: not-a-dir: /)
  const outside = cli('*', '..', '--root', '.')
  assert.equal(outside.status, 1)
  assert.match(outside.stderr, /^agent-find: outside-root: /)
})

test('flag values as fd and ripgrep read them: decimal numbers, values that start with a dash', () => {
  fs.writeFileSync(path.join(dir, '-dash.md'), '-x marks\n')
  try {
    for (const bad of ['0x10', '1e3', ' 3', '1.5']) {
      const r = cli('*', '--limit', bad)
      assert.equal(r.status, 2, bad)
      assert.equal(r.stderr, `agent-find: invalid-argument: --limit takes a whole number, at least 1; got '${bad}' (see agent-find --help)\n`)
    }
    assert.equal(JSON.parse(cli('**/*', '--max-bytes', '1e4', '--limit=Infinity', '--json').stdout).matched, 4)
    // A flag's value may start with a dash, as rg -e -x takes it; a pattern that does goes after `--`.
    const dashed = cli('search', '-e', '-x', '--exclude', '-nothing')
    assert.equal(dashed.status, 0, dashed.stderr)
    assert.equal(dashed.stdout, `Search directory: ${dir}\nFound 1 matching line in 1 file.\n-dash.md\n1: -x marks\n`)
    assert.equal(cli('--', '-dash*').stdout, `Search directory: ${dir}\n-dash.md\n`)
  } finally {
    fs.rmSync(path.join(dir, '-dash.md'))
  }
})

test('--help and --version', () => {
  const help = cli('--help')
  assert.equal(help.status, 0)
  assert.match(help.stdout, /^Usage: agent-find <pattern> \[path\]/)
  const version = cli('--version')
  assert.equal(version.stdout.trim(), JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url))).version)
})

test('search subcommand: grep-style content search, modes, name search', () => {
  fs.writeFileSync(path.join(dir, 'src', 'todo.py'), 'x = 1\n# TODO one\n# todo two\n')
  const lines = cli('search', 'TODO', 'src', '--glob', '*.py')
  assert.equal(lines.status, 0, lines.stderr)
  assert.equal(lines.stdout, `Search directory: ${path.join(dir, 'src')}\nFound 1 matching line in 1 file.\ntodo.py\n2: # TODO one\n`)
  const context = cli('search', 'TODO', 'src', '--glob', '*.py', '-B', '1', '--after', '1')
  assert.equal(context.stdout, `Search directory: ${path.join(dir, 'src')}\nFound 1 matching line in 1 file.\ntodo.py\n1- x = 1\n2: # TODO one\n3- # todo two\n`)
  const refused = cli('search', 'TODO', '-C', '2', '--mode', 'count')
  assert.equal(refused.status, 2, 'a usage error')
  assert.match(refused.stderr, /invalid-argument: `context` shows lines around matching lines/)
  const counts = cli('search', 'todo', '-i', '--mode', 'count')
  assert.equal(counts.stdout, `Search directory: ${dir}\nsrc/todo.py: 2\n`)
  const files = JSON.parse(cli('search', 'TODO', '--mode', 'files', '--json').stdout)
  assert.deepEqual(files.files, ['src/todo.py'])
  assert.equal(files.matchCount, 1)
  const names = cli('search', 'tod', '--files')
  assert.equal(names.stdout, `Search directory: ${dir}\nsrc/todo.py\n`)
  const none = cli('search', 'absent-text')
  assert.equal(none.status, 0)
  assert.equal(none.stdout, `Search directory: ${dir}\nNo matches found.\n`)
  const help = cli('search', '--help')
  assert.match(help.stdout, /^Usage: agent-find search <regex> \[path\]/)
})

test('search subcommand: bad usage exits 2, other errors 1', () => {
  for (const args of [['search'], ['search', '(open'], ['search', 'x', '--max-results', '0'], ['search', 'x', '--mode', 'lines']]) {
    const r = cli(...args)
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, /^agent-find: (invalid-argument|invalid-pattern): /)
  }
  const missing = cli('search', 'x', 'missing')
  assert.equal(missing.status, 1)
  assert.match(missing.stderr, /^agent-find: not-found: /)
})

test('a reader closing the pipe early is not an error', () => {
  for (let i = 0; i < 3000; i++) fs.writeFileSync(path.join(dir, `many-${i}.txt`), '')
  try {
    // --json makes the answer larger than a pipe's buffer, so the writer meets the closed pipe.
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" '*.txt' --limit 3000 --max-bytes Infinity --json | head -1; echo "status=\${PIPESTATUS[0]}"`], { cwd: dir, encoding: 'utf8' })
    assert.equal(r.stdout, '{\nstatus=0\n')
    assert.doesNotMatch(r.stderr, /EPIPE|Error/)
  } finally {
    for (let i = 0; i < 3000; i++) fs.rmSync(path.join(dir, `many-${i}.txt`))
  }
})
