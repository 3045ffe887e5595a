// Before/after in one run: the same `find` queries on the same generated tree,
// answered by two builds of the addon, in alternating child processes so that
// machine noise falls on both alike. For checking that a change made nothing
// slower.
//
//   npm run bench:ab -- <git-ref> [tree]        build <git-ref> in a temp worktree
//                                               (release profile), compare with
//                                               the current build
//   npm run bench:ab -- <a.node> <b.node> [tree]  compare two built addons
//                                               (with this checkout's JS)
//   npm run bench:ab -- <dir-a> <dir-b> [tree]  compare two built checkouts, each
//                                               with its own JS (needed when the
//                                               JS and the binding changed together)
//
// tree: gen-10k, gen-100k (default) or gen-1m (see trees.mjs). AB_ROUNDS
// (default 7) sets the rounds, AB_ONLY=js-gi,recent the queries (by id). Prints a
// markdown table: median ms of each build per query and the ratio B/A
// (above 1: B is slower).
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { GENERATED, ensureGeneratedTree } from './trees.mjs'
import { QUERIES, agentFindOptions, median } from './peers.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.dirname(here)
const ROUNDS = Number(process.env.AB_ROUNDS || 7)
const log = (msg) => process.stderr.write(`[ab] ${msg}\n`)

/** Extra queries beyond peers.mjs's: the regex and filter paths. */
const EXTRA = [
  { id: 'regex', label: '`regex: true` `\\.tsx?$`', options: (dir) => ({ pattern: '\\.tsx?$', regex: true, path: dir, sortBy: 'none', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }) },
  { id: 'size', label: '`**/*`, `minSize: 1`', options: (dir) => ({ pattern: '**/*', minSize: 1, path: dir, sortBy: 'none', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }) },
  { id: 'exclude', label: "`**/*.js`, `exclude: ['/d0*', 'x/']`", options: (dir) => ({ pattern: '**/*.js', exclude: ['/d0*', 'x/'], path: dir, sortBy: 'none', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }) },
]

function buildRef(ref) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'af-ab-'))
  log(`building ${ref} in ${dir} (release, a few minutes)...`)
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: repo, stdio: 'ignore' })
  try {
    const env = { ...process.env, CARGO_TARGET_DIR: path.join(repo, 'target', 'ab') }
    execFileSync('cargo', ['build', '--release', '--locked', '-p', 'agent-find'], { cwd: dir, env, stdio: 'inherit' })
    const built = path.join(env.CARGO_TARGET_DIR, 'release', process.platform === 'darwin' ? 'libagent_find.dylib' : 'libagent_find.so')
    const out = path.join(os.tmpdir(), `af-ab-${process.pid}.node`)
    fs.copyFileSync(built, out)
    return out
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: repo, stdio: 'ignore' })
  }
}

function currentBuild() {
  const found = fs.readdirSync(repo).find((f) => /^agent-find\..*\.node$/.test(f))
  if (!found) throw new Error('no built addon in the project root: run `npm run build` first')
  return path.join(repo, found)
}

/** Runs one query `runs` times in a child that loads `side` (an addon file, or a built checkout); the times in ms. */
function timeIn(side, options, runs) {
  const isDir = fs.statSync(side).isDirectory()
  const script = `
    const af = require(${JSON.stringify(path.join(isDir ? side : repo, 'index.js'))})
    const options = ${JSON.stringify(options)}
    for (const k of ['limit', 'maxLimit', 'maxBytes']) if (options[k] === null) options[k] = Infinity
    ;(async () => {
      const times = []
      await af.find(options)
      for (let i = 0; i < ${runs}; i++) {
        const t = process.hrtime.bigint()
        await af.find(options)
        times.push(Number(process.hrtime.bigint() - t) / 1e6)
      }
      console.log(JSON.stringify(times))
    })().catch((e) => { console.error(e); process.exit(1) })`
  const r = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: isDir ? process.env : { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: side },
  })
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').pop())
}

const args = process.argv.slice(2)
if (args.length === 0) {
  console.error('usage: node bench/ab.mjs <git-ref> [tree] | <a.node> <b.node> [tree] | <dir-a> <dir-b> [tree]')
  process.exit(2)
}
let a, b, treeName
const isBuild = (arg) => arg && (arg.endsWith('.node') || (fs.existsSync(arg) && fs.statSync(arg).isDirectory()))
if (isBuild(args[0]) && isBuild(args[1])) [a, b, treeName] = [path.resolve(args[0]), path.resolve(args[1]), args[2]]
else [a, b, treeName] = [buildRef(args[0]), currentBuild(), args[1]]
const tree = GENERATED.find((t) => t.name === (treeName || 'gen-100k'))
if (!tree) throw new Error(`unknown tree ${treeName}; one of ${GENERATED.map((t) => t.name).join(', ')}`)
const { dir } = ensureGeneratedTree(tree, log)

const rows = []
const queries = [
  ...QUERIES.map((q) => ({ id: q.id, label: q.label, options: (d) => agentFindOptions(q, d) })),
  ...EXTRA,
]
const only = process.env.AB_ONLY ? process.env.AB_ONLY.split(',') : null
for (const q of queries.filter((q) => !only || only.includes(q.id))) {
  const options = JSON.parse(JSON.stringify(q.options(dir)))
  const times = { a: [], b: [] }
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always runs on a warmer cache.
    for (const which of round % 2 ? ['b', 'a'] : ['a', 'b']) times[which].push(...timeIn(which === 'a' ? a : b, options, 3))
  }
  const ma = median(times.a)
  const mb = median(times.b)
  rows.push(`| ${q.label} | ${ma.toFixed(1)} | ${mb.toFixed(1)} | ${(mb / ma).toFixed(2)} |`)
  log(`${q.id}: A ${ma.toFixed(1)} ms, B ${mb.toFixed(1)} ms`)
}
console.log(`\n${tree.name}: A = ${path.basename(a)}, B = ${path.basename(b)}; median of ${ROUNDS * 3} runs each, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`)
console.log('| query | A ms | B ms | B/A |\n| --- | ---: | ---: | ---: |')
console.log(rows.join('\n'))
