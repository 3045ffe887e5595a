// The event loop under load: 200 concurrent searches, each returning the
// same 6,800 files, and the worst pause of the event loop meanwhile, for
// agent-find and the peers that install from npm (fdir, fast-glob,
// tinyglobby, and fff's Node binding, the devDependency `npm ci` installs).
//
//   npm run bench:loop                 # every tool, 5 rounds each, interleaved
//   LOOP_ROUNDS=9 npm run bench:loop   # more rounds
//   LOOP_TOOLS=agent-find,fdir npm run bench:loop
//   LOOP_PROF=1 npm run bench:loop     # also --cpu-prof the agent-find children (in bench/.trees/loop-prof/)
//
// Each (tool, round) runs in a child `node --expose-gc`: it loads the tool,
// makes one call (checking the answer: 6,800 paths), gc()s, then starts a
// 1 ms setInterval (the worst gap between two ticks, minus the 1 ms) and
// perf_hooks.monitorEventLoopDelay, fires the 200 calls at once and awaits
// them all. The report gives the worst gap (median and worst over rounds),
// the 99th percentile of the loop delay, and the wall time of the 200 calls.
//
// The tree (bench/.trees/loop-6800, gitignored, built once): 17 packages x
// 4 modules x 100 files, `pkg-NN/src/module-N/file-NNN.ts`, each a hard link
// to one of 100 empty files with distinct mtimes. fff keeps an index of its
// own: it is created and scanned before the timing, and its `glob` calls are
// synchronous (each holds the loop for its whole run), so 10 are timed and
// the numbers scaled to 200. The `idle (calibration)` row is no tool: the
// loop waits 5 s (LOOP_IDLE_MS) with nothing to do, and its worst gap is what
// the machine's load alone does to a loop.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

import { loadFff, median } from './peers.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const TREES = path.join(here, '.trees')
const TREE = path.join(TREES, 'loop-6800')
const CALLS = 200
const EXPECTED = 6800
const GLOB = '**/*.ts'

// ---------------------------------------------------------------- tools

const require = createRequire(import.meta.url)

/** Each tool: `load()` → `() => Promise<array>`: what the tool answers for the tree, as it answers it (6,800 items). */
const TOOLS = {
  'agent-find': async () => {
    const { find } = require('../index.js')
    const options = { pattern: GLOB, path: TREE, limit: Infinity, maxLimit: Infinity, maxBytes: 1e15 }
    return async () => (await find(options)).entries
  },
  'agent-find findFiles': async () => {
    const { findFiles } = require('../index.js')
    return () => findFiles(GLOB, TREE)
  },
  fdir: async () => {
    const { fdir } = await import('fdir')
    return () => new fdir({ excludeSymlinks: true }).withRelativePaths().globWithOptions([GLOB], { dot: true }).crawl(TREE).withPromise()
  },
  'fast-glob': async () => {
    const fg = (await import('fast-glob')).default
    return () => fg(GLOB, { cwd: TREE, dot: true, followSymbolicLinks: false })
  },
  tinyglobby: async () => {
    const { glob } = await import('tinyglobby')
    return () => glob(GLOB, { cwd: TREE, dot: true, followSymbolicLinks: false, expandDirectories: false })
  },
  // Not a tool: the loop idles for as long as the 200 calls took; its worst
  // gap is what this machine's load does to a loop that nothing blocks.
  'idle (calibration)': async () => {
    const wait = Number(process.env.LOOP_IDLE_MS || 5000)
    return async () => { await new Promise((r) => setTimeout(r, wait)); return Array(EXPECTED) }
  },
  // Not tools: no search at all. The loop builds and keeps the same 200 x
  // 6,800 entry objects (a path string, a kind, a size, an mtime), each
  // call's from one joined string per 1,000 entries, as agent-find's
  // decoding queue does: at most 4 ms a turn, or one slice every
  // 3 ms (`paced`: the 200 calls take about as long as agent-find's). Their
  // worst gap is what holding that many fresh objects costs the loop (V8's
  // young-generation collections): the floor for any tool answering with them.
  'floor (plain objects)': () => plainObjects(false),
  'floor (plain objects paced)': () => plainObjects(true),
  fff: async () => {
    const { FileFinder, why } = await loadFff()
    if (why) throw new Error(why)
    const created = FileFinder.create({ basePath: TREE })
    if (!created.ok) throw new Error(created.error)
    const finder = created.value
    const scanned = await finder.waitForScan(30_000)
    if (!scanned.ok || !scanned.value) throw new Error(`fff: scan did not finish: ${scanned.error ?? 'timeout'}`)
    return async () => {
      const r = finder.glob(GLOB, { pageSize: EXPECTED })
      if (!r.ok) throw new Error(r.error)
      return r.value.items.map((i) => i.relativePath)
    }
  },
}

/** The floor rows' `load()`: builds entry objects in JS from a real answer's columns, `paced` or dense. */
async function plainObjects(paced) {
  const { find } = require('../index.js')
  const { entries } = await find({ pattern: GLOB, path: TREE, limit: Infinity, maxLimit: Infinity, maxBytes: 1e15 })
  const slices = []
  for (let at = 0; at < entries.length; at += 1000) slices.push(entries.slice(at, at + 1000).map((e) => e.path).join('\0'))
  const mtimes = Float64Array.from(entries, (e) => e.mtimeMs)
  const queue = []
  const drain = () => {
    const end = performance.now() + 4
    do {
      const job = queue[0]
      const paths = slices[job.slice++].split('\0')
      for (let i = 0; i < paths.length; i++) job.out.push({ path: paths[i], type: 'file', size: 0, mtimeMs: mtimes[job.out.length] })
      if (job.slice === slices.length) {
        queue.shift()
        job.resolve(job.out)
      }
    } while (!paced && queue.length > 0 && performance.now() < end)
    if (queue.length > 0) paced ? setTimeout(drain, 3) : setImmediate(drain)
  }
  return () => new Promise((resolve) => {
    queue.push({ slice: 0, out: [], resolve })
    if (queue.length === 1) setImmediate(drain)
  })
}

// ---------------------------------------------------------------- child

/** fff's calls are synchronous: 200 of them hold the loop 20 times as long as 10 (timed, then scaled). */
const SYNC_CALLS = { fff: 10 }

async function child(name) {
  const call = await TOOLS[name]()
  const calls = name === 'idle (calibration)' ? 1 : SYNC_CALLS[name] ?? CALLS
  const first = await call()
  if (first.length !== EXPECTED) throw new Error(`${name} returned ${first.length} paths, not ${EXPECTED}`)
  globalThis.gc?.()
  await new Promise((r) => setTimeout(r, 50))
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  let last = performance.now()
  let worst = 0
  let worstAt = 0 // when the worst gap began (ms since the process started; --trace-gc counts alike)
  const timer = setInterval(() => {
    const now = performance.now()
    if (now - last - 1 > worst) [worst, worstAt] = [now - last - 1, last]
    last = now
  }, 1)
  histogram.enable()
  const start = performance.now()
  const answers = await Promise.all(Array.from({ length: calls }, () => call()))
  const ms = performance.now() - start
  worst = Math.max(worst, performance.now() - last - 1)
  histogram.disable()
  clearInterval(timer)
  const wrong = answers.filter((a) => a.length !== EXPECTED).length
  const scale = SYNC_CALLS[name] ? CALLS / calls : 1
  const out = { worst: worst * scale, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6, ms: ms * scale, wrong, scaled: scale !== 1, worstAt: Math.round(worstAt) }
  process.stdout.write(`${JSON.stringify(out)}\n`)
}

// ---------------------------------------------------------------- parent

function buildTree() {
  const stamp = path.join(TREES, 'loop-6800.stamp')
  if (fs.existsSync(stamp)) return
  fs.rmSync(TREE, { recursive: true, force: true })
  const base = path.join(TREES, 'loop-6800-base')
  fs.mkdirSync(base, { recursive: true })
  for (let i = 0; i < 100; i++) {
    const f = path.join(base, `b${i}`)
    fs.writeFileSync(f, '')
    fs.utimesSync(f, 1_700_000_000 + i * 60, 1_700_000_000 + i * 60)
  }
  for (let p = 0; p < 17; p++) {
    for (let m = 0; m < 4; m++) {
      const dir = path.join(TREE, `pkg-${String(p).padStart(2, '0')}`, 'src', `module-${m}`)
      fs.mkdirSync(dir, { recursive: true })
      for (let f = 0; f < 100; f++) fs.linkSync(path.join(base, `b${f}`), path.join(dir, `file-${String(f).padStart(3, '0')}.ts`))
    }
  }
  fs.writeFileSync(stamp, `${EXPECTED} files\n`)
}

function runChild(name, round) {
  const args = ['--expose-gc']
  if (process.env.LOOP_PROF && name.startsWith('agent-find')) {
    args.push('--cpu-prof', '--cpu-prof-dir', path.join(TREES, 'loop-prof'), '--cpu-prof-name', `${name.replace(/ /g, '-')}-${round}.cpuprofile`)
  }
  const r = spawnSync(process.execPath, [...args, fileURLToPath(import.meta.url), '--child', name], { encoding: 'utf8', timeout: 300_000 })
  const line = r.stdout.trim().split('\n').pop()
  if (r.status !== 0 || !line) return { error: (r.stderr || `status ${r.status}`).trim().split('\n').slice(-3).join(' ') }
  return JSON.parse(line)
}

const f1 = (x) => x.toFixed(1)

async function parent() {
  fs.mkdirSync(TREES, { recursive: true })
  buildTree()
  const rounds = Number(process.env.LOOP_ROUNDS || 5)
  let names = process.env.LOOP_TOOLS ? process.env.LOOP_TOOLS.split(',') : Object.keys(TOOLS)
  if (names.includes('fff')) {
    const { why } = await loadFff()
    if (why) {
      console.error(`fff left out: ${why}`)
      names = names.filter((n) => n !== 'fff')
    }
  }
  const results = Object.fromEntries(names.map((n) => [n, []]))
  const errors = {}
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      const r = runChild(name, round)
      if (r.error) errors[name] = r.error
      else results[name].push(r)
      process.stderr.write(`round ${round + 1}/${rounds} ${name}: ${r.error ? `error ${r.error}` : `worst gap ${f1(r.worst)} ms, ${f1(r.ms)} ms`}\n`)
    }
  }
  const base = results['agent-find']?.length ? median(results['agent-find'].map((r) => r.worst)) : null
  const lines = [
    `${CALLS} concurrent calls, each returning ${EXPECTED} files (\`${GLOB}\`), ${rounds} rounds per tool, Node ${process.version}, ` +
      `${os.availableParallelism ? os.availableParallelism() : os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}.`,
    '',
    '| tool | worst gap ms (median of rounds) | worst gap ms (worst round) | loop delay p99 ms | 200 calls ms (median) | gap vs agent-find |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const name of names) {
    const rs = results[name]
    if (!rs.length) {
      lines.push(`| ${name} | n/a: ${errors[name]} | | | | |`)
      continue
    }
    const worst = rs.map((r) => r.worst)
    const wrong = rs.some((r) => r.wrong) ? ' (some answers were not 6,800 paths)' : rs[0].scaled ? ` (synchronous: ${SYNC_CALLS[name]} calls timed, x${CALLS / SYNC_CALLS[name]})` : ''
    const ratio = base ? `${(median(worst) / base).toFixed(1)}x` : ''
    lines.push(`| ${name}${wrong} | ${f1(median(worst))} | ${f1(Math.max(...worst))} | ${f1(median(rs.map((r) => r.p99)))} | ${median(rs.map((r) => r.ms)).toFixed(0)} | ${ratio} |`)
  }
  console.log(lines.join('\n'))
}

if (process.argv[2] === '--child') await child(process.argv[3])
else await parent()
