// explain(path, options): why a path is or is not in a find's results.
// Two oracles: find itself (for every path in generated trees, `found` is
// true exactly when find lists the path, under several option sets), and
// `git check-ignore -v` (the same deciding file, line and pattern for every
// path an ignore line matches, on generated repositories with nested
// .gitignore files, negations and info/exclude). Then each reason's answer,
// and the errors.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { explain, find, memoryReader, searchFiles } from '../index.mjs'
import { gitInit, makeTmp, rejectsWith, removeTmp, seededRandom, tmpTree } from './helpers.mjs'

// No user git settings (global excludes file) here or in the git this test runs.
const home = makeTmp()
process.on('exit', () => removeTmp(home))
process.env.HOME = home
process.env.XDG_CONFIG_HOME = path.join(home, '.config')
const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(home, 'none') }

const NAMES = ['a.js', 'b.log', 'keep.log', 'x.o', 'important.o', 'README.md', 'notes.md', 'tmp1', 'top.txt', '.env', 'c.secret']
const DIRS = ['src', 'src/gen', 'docs', 'build', 'build/keep', 'lib/deep/er', '.cache', 'node_modules/pkg', 'tmpdir']
const LINES = ['*.log', '!keep.log', 'build/', '/top.txt', 'docs/*.md', '!docs/README.md', '**/gen/', 'tmp*', '*.o', '!important.o', 'er/', '# a comment', '', '\\#not', 'deep/a.js', '!build/keep/']

/** A random repository: files in DIRS, .gitignore files at the top and in some folders, info/exclude. */
function randomRepo(root, seed) {
  const rand = seededRandom(seed)
  const pick = (list, n) => Array.from({ length: n }, () => list[Math.floor(rand() * list.length)])
  gitInit(root)
  for (const dir of ['', ...DIRS]) {
    fs.mkdirSync(path.join(root, dir), { recursive: true })
    for (const name of pick(NAMES, 4)) fs.writeFileSync(path.join(root, dir, name), name)
  }
  fs.writeFileSync(path.join(root, '.gitignore'), pick(LINES, 6).join('\n') + '\n')
  for (const dir of pick(DIRS, 3)) fs.writeFileSync(path.join(root, dir, '.gitignore'), pick(LINES, 3).join('\n') + '\n')
  fs.writeFileSync(path.join(root, '.git/info/exclude'), '*.secret\n' + pick(LINES, 2).join('\n') + '\n')
  fs.symlinkSync('src', path.join(root, 'link'))
  fs.writeFileSync(path.join(root, 'src/.hidden-file'), '')
}

/** Every path below `root` (relative, `/`), `.git` and what is below a symlink left out. */
function allPaths(root, rel = '') {
  const out = []
  for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (entry.name === '.git') continue
    const p = rel ? `${rel}/${entry.name}` : entry.name
    out.push(p)
    if (entry.isDirectory()) out.push(...allPaths(root, p))
  }
  return out.sort()
}

const ALL = { limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }

describe('explain agrees with find', () => {
  const OPTION_SETS = [
    {},
    { hidden: false },
    { type: 'any' },
    { pattern: '**/*.{js,md}', type: 'any' },
    { exclude: ['docs', '*.o'], type: 'any', hidden: false },
    { maxDepth: 1, type: 'any' },
    { gitignore: false, type: 'dir' },
    { minSize: 5, pattern: '**/*.log' },
  ]
  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: found is true exactly for what find lists`, async (t) => {
      const root = makeTmp()
      t.after(() => removeTmp(root))
      randomRepo(root, seed)
      const paths = allPaths(root)
      for (const options of OPTION_SETS) {
        const listed = new Set((await find({ pattern: '**', ...options, ...ALL, cwd: root })).entries.map((e) => e.path))
        for (const p of paths) {
          const e = await explain(p, { ...options, cwd: root })
          assert.equal(e.found, listed.has(p), `${p} with ${JSON.stringify(options)}: ${e.text}`)
          assert.equal(e.found, e.reason === 'found')
          assert.equal(e.path, p)
          assert.ok(e.text.startsWith(`\`${p}\``), e.text)
        }
      }
    })
  }
})

describe('explain agrees with git check-ignore -v', () => {
  for (const seed of [11, 12, 13, 14, 15]) {
    test(`seed ${seed}: the same deciding file, line and pattern`, async (t) => {
      const root = makeTmp()
      t.after(() => removeTmp(root))
      randomRepo(root, seed)
      // Symlinks are left out: git does not look through them, and explain stops at one.
      const paths = allPaths(root).filter((p) => !p.startsWith('link'))
      const out = execFileSync('git', ['check-ignore', '-v', '-n', '--no-index', '--stdin'], {
        cwd: root, env: GIT_ENV, input: paths.join('\n') + '\n', encoding: 'utf8',
      })
      const verdicts = new Map()
      for (const line of out.split('\n').filter(Boolean)) {
        const [where, p] = line.split('\t')
        const m = /^(.*?):(\d*):(.*)$/.exec(where)
        verdicts.set(p, m[1] === '' ? null : { file: m[1], line: Number(m[2]), pattern: m[3] })
      }
      assert.equal(verdicts.size, paths.length)
      let decided = 0
      for (const p of paths) {
        const git = verdicts.get(p)
        const e = await explain(p, { cwd: root, hidden: true, type: 'any' })
        const why = `${p}: git says ${JSON.stringify(git)}, explain says ${e.text}`
        if (git === null) {
          assert.equal(e.rule, undefined, why)
          assert.notEqual(e.reason, 'ignored', why)
          continue
        }
        decided++
        assert.ok(e.rule, why)
        assert.deepEqual({ file: e.rule.file, line: e.rule.line, pattern: e.rule.pattern }, git, why)
        assert.equal(e.rule.ignores, !git.pattern.startsWith('!'), why)
        assert.equal(e.reason === 'ignored', e.rule.ignores, why)
      }
      assert.ok(decided > 5, `the repository exercises ignore lines (${decided} decided)`)
    })
  }
})

describe('each reason', () => {
  const tree = {
    '.gitignore': '*.log\n!keep.log\nout/\n',
    'src/a.js': 'x',
    'src/big.js': 'x'.repeat(100),
    'src/keep.log': '',
    'src/drop.log': '',
    'src/.env': '',
    'out/gen/x.js': '',
    'node_modules/pkg/index.js': '',
    'a/b/c/d.js': '',
  }

  test('ignored: the deciding line, also for a file inside an ignored folder', async (t) => {
    const root = tmpTree(t, tree)
    gitInit(root)
    const e = await explain('src/drop.log', { cwd: root })
    assert.equal(e.reason, 'ignored')
    assert.deepEqual(e.rule, { file: '.gitignore', line: 1, pattern: '*.log', ignores: true })
    assert.equal(e.text, '`src/drop.log` is not in the results: it is ignored by `.gitignore:1: *.log`: set `gitignore: false` to include ignored entries.')
    const deep = await explain('out/gen/x.js', { cwd: root })
    assert.equal(deep.at, 'out')
    assert.deepEqual(deep.rule, { file: '.gitignore', line: 3, pattern: 'out/', ignores: true })
    assert.match(deep.text, /its folder `out\/` is ignored by `\.gitignore:3: out\/`/)
    assert.equal((await explain('out/gen/x.js', { cwd: root, gitignore: false })).found, true)
  })

  test('re-included: the `!` line and the line it overrides', async (t) => {
    const root = tmpTree(t, tree)
    gitInit(root)
    const e = await explain('src/keep.log', { cwd: root })
    assert.equal(e.found, true)
    assert.deepEqual(e.rule, { file: '.gitignore', line: 2, pattern: '!keep.log', ignores: false })
    assert.deepEqual(e.overrides, { file: '.gitignore', line: 1, pattern: '*.log', ignores: true })
    assert.match(e.text, /`\.gitignore:1: \*\.log` would ignore it, but `\.gitignore:2: !keep\.log` re-includes it\./)
  })

  test('rules above the search directory are named relative to it', async (t) => {
    const root = tmpTree(t, tree)
    gitInit(root)
    const e = await explain('drop.log', { cwd: path.join(root, 'src') })
    assert.deepEqual(e.rule, { file: '../.gitignore', line: 1, pattern: '*.log', ignores: true })
  })

  test('hidden, excluded, .git, always skipped folders of find, depth, type, pattern, size', async (t) => {
    const root = tmpTree(t, tree)
    gitInit(root)
    const reason = async (p, o = {}) => (await explain(p, { cwd: root, ...o })).reason
    assert.equal(await reason('src/.env'), 'found')
    assert.equal(await reason('src/.env', { hidden: false }), 'hidden')
    const ex = await explain('src/a.js', { cwd: root, exclude: ['*.md', 'src/'] })
    assert.equal(ex.reason, 'excluded')
    assert.equal(ex.exclude, 'src/')
    assert.match(ex.text, /its folder `src\/` matches the `exclude` glob 'src\/'/)
    assert.equal(await reason('.git/HEAD'), 'git-dir')
    // find walks node_modules unless an ignore file says otherwise.
    assert.equal(await reason('node_modules/pkg/index.js'), 'found')
    const depth = await explain('a/b/c/d.js', { cwd: root, maxDepth: 1 })
    assert.equal(depth.reason, 'depth')
    assert.match(depth.text, /set `maxDepth` to 3 or more/)
    assert.equal(await reason('a/b/c/d.js', { maxDepth: 3 }), 'found')
    assert.equal(await reason('src'), 'type')
    assert.equal(await reason('src', { type: 'dir' }), 'found')
    const pat = await explain('src/a.js', { cwd: root, pattern: '**/*.ts' })
    assert.equal(pat.reason, 'pattern')
    assert.match(pat.text, /the pattern `\*\*\/\*\.ts` does not match it/)
    assert.equal(await reason('src/big.js', { minSize: 10 }), 'found')
    assert.equal(await reason('src/a.js', { minSize: 10 }), 'metadata')
  })

  test('missing, below a file, below a symlink, outside, the search directory', async (t) => {
    const root = tmpTree(t, tree)
    fs.symlinkSync('src', path.join(root, 'ln'))
    const reason = async (p, o = {}) => (await explain(p, { cwd: root, ...o })).reason
    assert.equal(await reason('src/nope.js'), 'missing')
    assert.equal(await reason('nope/a.js'), 'missing')
    assert.equal(await reason('src/a.js/x'), 'missing')
    const link = await explain('ln/a.js', { cwd: root })
    assert.equal(link.reason, 'symlink')
    assert.equal(link.at, 'ln')
    assert.equal(await reason('ln', { type: 'any' }), 'found')
    const out = await explain('../elsewhere.js', { cwd: root })
    assert.equal(out.reason, 'outside')
    assert.equal(out.path, path.resolve(root, '../elsewhere.js'))
    assert.equal(await reason('.'), 'search-directory')
    // An absolute path, and a search directory set with `path`.
    assert.equal(await reason(path.join(root, 'src/a.js')), 'found')
    assert.equal((await explain('big.js', { cwd: root, path: 'src' })).reason, 'outside', 'the path is taken from cwd, not from path')
    const inSrc = await explain(path.join(root, 'src/a.js'), { cwd: root, path: 'src' })
    assert.equal(inSrc.path, 'a.js')
    assert.equal(inSrc.found, true)
  })

  test('bad input is a FindFilesError', async (t) => {
    const root = tmpTree(t, tree)
    await rejectsWith(explain(42), 'invalid-argument', 'explain(path, options?)')
    await rejectsWith(explain(''), 'invalid-argument', 'non-empty string')
    await rejectsWith(explain('a', 'b'), 'invalid-argument', 'options object')
    await rejectsWith(explain('a', { cwd: root, hidden: 'yes' }), 'invalid-argument', 'hidden')
    await rejectsWith(explain('a', { cwd: root, nosuch: 1 }), 'invalid-argument', 'nosuch')
    await rejectsWith(explain('a', { reader: memoryReader({ a: 'x' }) }), 'invalid-argument', 'reader')
    await rejectsWith(explain('a', { cwd: path.join(root, 'missing') }), 'not-found')
    const err = await rejectsWith(explain('src/a.js', { cwd: root, roots: [path.join(root, 'node_modules')] }), 'outside-root')
    assert.ok(err.message.length > 10)
    const aborted = new AbortController()
    aborted.abort()
    await rejectsWith(explain('src/a.js', { cwd: root, signal: aborted.signal }), 'aborted')
  })
})

describe('a path no file can have: refused as find refuses its `path`', () => {
  test('a NUL byte is invalid-argument, wherever it is and however the path is given', async (t) => {
    const root = tmpTree(t, { 'a.txt': 'a', 'sub/b.txt': 'b' })
    for (const p of ['a.txt\0', 'sub/\0/b.txt', '\0', path.join(root, 'a\0.txt'), '/elsewhere\0', '../x\0']) {
      await rejectsWith(explain(p, { cwd: root }), 'invalid-argument', 'the path to explain contains a NUL byte')
    }
    // find says the same of its `path`: the same check.
    await rejectsWith(find('*', { cwd: root, path: 'a.txt\0' }), 'invalid-argument', '`path` contains a NUL byte')
    // The options' own paths keep their codes.
    await rejectsWith(explain('a.txt', { cwd: root, path: 'sub\0' }), 'invalid-argument', '`path` contains a NUL byte')
    await rejectsWith(explain('a.txt', { cwd: `${root}\0` }), 'invalid-argument', 'NUL byte')
  })

  test('a name too long for the file system is invalid-argument, as find and searchFiles answer for such a path', async (t) => {
    const root = tmpTree(t, { 'a.txt': 'a', 'sub/b.txt': 'b' })
    const long = 'x'.repeat(5000)
    for (const p of [long, 'x'.repeat(256), `sub/${'y'.repeat(300)}`, `sub/${'y'.repeat(300)}/deeper.txt`, path.join(root, long)]) {
      const err = await rejectsWith(explain(p, { cwd: root }), 'invalid-argument', 'too long')
      assert.ok(err.message.length < 1024, `the name is clipped in the message: ${err.message.length} bytes`)
      await rejectsWith(find('*', { cwd: root, path: p }), 'invalid-argument', 'too long')
      await rejectsWith(searchFiles({ pattern: 'a', cwd: root, path: p }), 'invalid-argument', 'too long')
    }
    // Such a name as the search directory (`path`): the same error as find's.
    await rejectsWith(explain(`${long}/a.txt`, { cwd: root, path: long }), 'invalid-argument', 'too long', 'search path')
    // A name a file could have (255 bytes), or a missing folder before the long name: nothing is there.
    for (const [p, at] of [['x'.repeat(255), 'x'.repeat(255)], [`nope/${'y'.repeat(300)}`, 'nope']]) {
      const missing = await explain(p, { cwd: root })
      assert.equal(missing.reason, 'missing', p.slice(0, 20))
      assert.equal(missing.at, at)
      await rejectsWith(find('*', { cwd: root, path: p }), 'not-found')
    }
  })

  test('the CLI and the explain_path tool answer the same code', async (t) => {
    const { createTools } = await import('../index.mjs')
    const root = tmpTree(t, { 'a.txt': 'a' })
    const BIN = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'bin', 'agent-find.js')
    const long = 'x'.repeat(5000)
    const r = spawnSync(process.execPath, [BIN, 'explain', long], { cwd: root, encoding: 'utf8' })
    assert.equal(r.status, 2, r.stderr)
    assert.match(r.stderr, /^agent-find: invalid-argument: .*too long/)
    assert.equal(r.stdout, '')
    const f = spawnSync(process.execPath, [BIN, '*', long], { cwd: root, encoding: 'utf8' })
    assert.equal(f.status, 2, f.stderr)
    assert.match(f.stderr, /^agent-find: invalid-argument: .*too long/)
    const tools = createTools({ cwd: root })
    for (const [p, says] of [['a.txt\0', /NUL byte/], [long, /too long/]]) {
      const { text, isError } = await tools.call('explain_path', { path: p })
      assert.equal(isError, true, text)
      assert.match(text, /^Error \(invalid-argument\): /)
      assert.match(text, says)
    }
  })
})

describe('the explain_path tool', () => {
  test('createTools: the model text, plain JSON, the workspace sandbox', async (t) => {
    const { createTools, toolDefinitions } = await import('../index.mjs')
    const root = tmpTree(t, { '.gitignore': 'dist/\n', 'dist/app.js': '', 'src/a.ts': '' })
    gitInit(root)
    const tools = createTools({ cwd: root })
    const { text, isError } = await tools.call('explain_path', { path: 'dist/app.js' })
    assert.equal(isError, false)
    assert.equal(text, "`dist/app.js` is not in the results: its folder `dist/` is ignored by `.gitignore:1: dist/`: set `gitignore: false` to include ignored entries.")
    assert.equal((await tools.call('explain_path', '{"path":"dist/app.js","gitignore":false}')).text, '`dist/app.js` is in the results (`limit` may still leave it off the page).')
    const plain = await tools.explain({ path: 'src/a.ts', pattern: '**/*.js' })
    assert.equal(plain.reason, 'pattern')
    assert.deepEqual(JSON.parse(JSON.stringify(plain)), plain)
    assert.equal((await tools.explain('src/a.ts')).found, true)
    // Outside the workspace: refused by the sandbox as any call is, or outside the search directory.
    const outside = await tools.call('explain_path', { path: '/etc/passwd' })
    assert.equal(outside.isError, false)
    assert.match(outside.text, /is not below the search directory/)
    const refused = await tools.call('explain_path', { path: 'x', roots: ['/'] })
    assert.equal(refused.isError, true)
    assert.match(refused.text, /^Error \(invalid-argument\): .*`roots` is set by the host/)
    assert.match((await tools.call('explain_path', {})).text, /^Error \(invalid-argument\): explain_path: `path` is missing/)
    assert.ok(toolDefinitions.explain_path.description.includes('git check-ignore -v'))
  })
})

describe('agent-find explain', () => {
  const BIN = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'bin', 'agent-find.js')
  const cli = (cwd, ...args) => {
    const r = spawnSync(process.execPath, [BIN, 'explain', ...args], { cwd, encoding: 'utf8' })
    return { status: r.status, stdout: r.stdout, stderr: r.stderr }
  }

  test('prints the text, or the Explanation with --json; find flags apply; bad usage exits 2', async (t) => {
    const root = tmpTree(t, { '.gitignore': 'dist/\n', 'dist/app.js': '', 'src/a.ts': '', '.env': '' })
    gitInit(root)
    const ignored = cli(root, 'dist/app.js')
    assert.equal(ignored.status, 0, ignored.stderr)
    assert.equal(ignored.stdout, `${(await explain('dist/app.js', { cwd: root })).text}\n`)
    assert.match(cli(root, 'dist/app.js', '--no-gitignore').stdout, /is in the results/)
    assert.match(cli(root, '.env', '--no-hidden').stdout, /is hidden/)
    assert.match(cli(root, 'src/a.ts', '**/*.js').stdout, /the pattern `\*\*\/\*\.js` does not match it/)
    const json = JSON.parse(cli(root, 'src/a.ts', '--json').stdout)
    assert.deepEqual(json, await explain('src/a.ts', { cwd: root }))
    const missing = cli(root)
    assert.equal(missing.status, 2)
    assert.match(missing.stderr, /^agent-find: invalid-argument: missing <path>/)
    assert.equal(cli(root, 'a', 'b', 'c').status, 2)
    assert.match(cli(root, '--help').stdout, /^Usage: agent-find explain <path> \[pattern\]/)
  })
})
