// What git scoping costs: `find` and `searchFiles` on the generated 100k
// tree made a git repository (every file committed once, then a few files
// modified, staged and added), each query plain and with `git: 'changed'`
// (and `changedSince`, and `gitStatus` alone), on a fresh walk and on a live
// index, in the same run.
// The scoped calls read git's status (the index against the work tree, the
// untracked files, HEAD's tree against the index) and walk only the folders
// that hold a change.
//
//   npm run bench:git                  # gen-100k
//   BENCH_GIT_TREE=gen-10k npm run bench:git
//   BENCH_RUNS=9                       # runs per query (default 7)
//
// Markdown on stdout, progress on stderr. The repository is a hard-linked
// copy of the generated tree (`cp -al`) under bench/.trees/<tree>-git, built
// once; a changed file is written anew (unlinked first), never through the
// shared link.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { median } from './peers.mjs'
import { ensureGeneratedTree, GENERATED, TREES_DIR } from './trees.mjs'

const require = createRequire(import.meta.url)
const RUNS = Number(process.env.BENCH_RUNS || 7)
/** A folder of gen-100k with about 1,300 files. */
const SMALL_FOLDER = process.env.BENCH_GIT_FOLDER || 'packages/adapter-team'
const log = (msg) => process.stderr.write(`[git-scope] ${msg}\n`)
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
}
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', maxBuffer: 1 << 28 })

/** Every file below `dir` (relative), `.git` left out (ignored ones too). */
function files(dir, rel = '', out = []) {
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (e.name === '.git') continue
    const p = rel ? `${rel}/${e.name}` : e.name
    if (e.isDirectory()) files(dir, p, out)
    else if (e.isFile()) out.push(p)
  }
  return out
}

/** The repository: the generated tree, committed once, then 20 changes of every kind. */
function ensureRepo(name) {
  const spec = GENERATED.find((g) => g.name === name)
  if (!spec) throw new Error(`unknown tree ${name}`)
  const tree = ensureGeneratedTree(spec, log)
  const dir = path.join(TREES_DIR, `${name}-git`)
  const stamp = path.join(TREES_DIR, `${name}-git.stamp`)
  if (fs.existsSync(stamp) && fs.existsSync(dir)) return { dir, ...JSON.parse(fs.readFileSync(stamp, 'utf8')) }
  fs.rmSync(dir, { recursive: true, force: true })
  log(`copying ${name} (hard links) and committing it...`)
  const t0 = performance.now()
  execFileSync('cp', ['-al', tree.dir, dir])
  fs.rmSync(path.join(dir, '.git'), { recursive: true, force: true })
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'the tree')
  git(dir, 'checkout', '-q', '-b', 'work')
  // Tracked files only: the generated tree has ignored folders, where a change would not count.
  const all = git(dir, 'ls-files', '-z').split('\0').filter(Boolean).sort()
  const pick = (i) => all[Math.floor((i * all.length) / 23)]
  const rewrite = (rel, text) => {
    const full = path.join(dir, rel)
    fs.rmSync(full, { force: true })
    fs.writeFileSync(full, text)
  }
  // 5 committed on the branch, 5 staged, 5 modified, 5 untracked.
  for (let i = 0; i < 5; i++) rewrite(pick(i), `committed on the branch ${i}\nTODO branch\n`)
  git(dir, 'commit', '-q', '-am', 'branch work')
  for (let i = 5; i < 10; i++) rewrite(pick(i), `staged ${i}\nTODO staged\n`)
  git(dir, 'add', '-A')
  for (let i = 10; i < 15; i++) rewrite(pick(i), `modified ${i}\nTODO modified\n`)
  for (let i = 15; i < 20; i++) fs.writeFileSync(path.join(dir, path.dirname(pick(i)), `untracked-${i}.txt`), 'TODO untracked\n')
  const made = { files: files(dir).length, tracked: all.length, seconds: (performance.now() - t0) / 1000 }
  fs.writeFileSync(stamp, `${JSON.stringify(made)}\n`)
  log(`made ${dir}: ${all.length} files in ${made.seconds.toFixed(1)} s`)
  return { dir, ...made }
}

async function timed(fn) {
  const t = performance.now()
  const value = await fn()
  return { ms: performance.now() - t, value }
}

async function main() {
  const { find, findFiles, searchFiles, openIndex } = require('../index.js')
  const name = process.env.BENCH_GIT_TREE || 'gen-100k'
  const repo = ensureRepo(name)
  const status = git(repo.dir, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean)
  log(`${name}: ${repo.files} files, git status lists ${status.length}`)
  const ALL = { limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }
  const queries = [
    ['find `**/*`', (o) => find({ pattern: '**/*', path: repo.dir, ...ALL, ...o }), (r) => r.entries.length],
    ['findFiles `**/*.js`', (o) => findFiles('**/*.js', repo.dir, o), (r) => r.length],
    ['searchFiles `TODO` (content, files)', (o) => searchFiles({ pattern: 'TODO', path: repo.dir, outputMode: 'files', maxResults: 500, ...o }), (r) => r.matchCount],
    ['searchFiles `*.json` (names)', (o) => searchFiles({ pattern: '*.json', target: 'files', path: repo.dir, maxResults: 500, ...o }), (r) => r.matchCount],
    // A small folder of the repository: git's status is read for it alone.
    [`find \`**/*\` in ${SMALL_FOLDER}`, (o) => find({ pattern: '**/*', path: path.join(repo.dir, SMALL_FOLDER), ...ALL, ...o }), (r) => r.entries.length],
  ]
  const scopes = [
    ['plain', {}],
    ["git: 'changed'", { git: 'changed' }],
    ["git: 'modified'", { git: 'modified' }],
    ["changedSince: 'main'", { changedSince: 'main' }],
    // The letters alone: every entry kept, the status read as for 'changed' (findFiles refuses it: paths only).
    ['gitStatus: true', { gitStatus: true }],
  ]
  const index = await openIndex(repo.dir)
  await index.settled()
  const onIndex = {
    find: (o) => index.find({ pattern: '**/*', ...ALL, ...o }),
    search: (o) => index.searchFiles({ pattern: 'TODO', outputMode: 'files', maxResults: 500, ...o }),
  }
  const out = []
  out.push(`${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.availableParallelism?.() ?? os.cpus().length} cores, ` +
    `${RUNS} runs per cell (medians, ms, warm cache). Tree: ${name} (${repo.files.toLocaleString('en')} files, ${repo.tracked.toLocaleString('en')} of them tracked: the rest is gitignored) committed, then ` +
    `${status.length} entries in \`git status\` (5 committed on the branch since \`main\`, 5 staged, 5 modified, 5 untracked).`, '')
  out.push(`| query | ${scopes.map(([s]) => s).join(' | ')} | ${scopes.slice(1).map(([s]) => `${s} / plain`).join(' | ')} |`)
  out.push(`| --- | ${scopes.map(() => '---:').join(' | ')} | ${scopes.slice(1).map(() => '---:').join(' | ')} |`)
  const rows = [
    ...queries.map(([label, run, count]) => [label, run, count]),
    ['index.find `**/*`', onIndex.find, (r) => r.entries.length],
    ['index.searchFiles `TODO` (content, files)', onIndex.search, (r) => r.matchCount],
  ]
  for (const [label, run, count] of rows) {
    await run({})
    const cells = []
    for (const [, o] of scopes) {
      if (o.gitStatus && label.startsWith('findFiles')) {
        cells.push(undefined)
        continue
      }
      const ms = []
      let n
      for (let i = 0; i < RUNS; i++) {
        const t = await timed(() => run(o))
        ms.push(t.ms)
        n = count(t.value)
      }
      cells.push({ ms: median(ms), n })
    }
    const plain = cells[0].ms
    const cell = (c) => (c ? `${c.ms.toFixed(1)} (${c.n.toLocaleString('en')})` : '—')
    const ratio = (c) => (c ? (c.ms / plain).toFixed(2) : '—')
    out.push(`| ${label} | ${cells.map(cell).join(' | ')} | ${cells.slice(1).map(ratio).join(' | ')} |`)
    log(`${label} done`)
  }
  await index.close()
  // git itself, for scale: the status the scoped calls compute.
  const gitMs = []
  for (let i = 0; i < RUNS; i++) gitMs.push((await timed(async () => git(repo.dir, 'status', '--porcelain', '--untracked-files=all'))).ms)
  out.push('', `Each cell: the median time, and in parentheses what came back (entries, or matchCount). For scale, \`git status --porcelain --untracked-files=all\` (the git binary) takes ${median(gitMs).toFixed(1)} ms here.`)
  out.push(`Load at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}.`)
  process.stdout.write(`${out.join('\n')}\n`)
}

await main()
