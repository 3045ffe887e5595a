// `npm run bench:warm`: is agent-find warm from an agent's first call? The
// first calls an agent makes (a new MCP server, a new process, an index still
// being built, a busy machine) against the peers an agent could use instead,
// all measured in the same run, on a tree of real JavaScript:
//
//  1. The MCP server (`node bin/agent-find.js mcp --root <tree>`, a fresh
//     process each time, driven by the official SDK client over stdio):
//     `search_files` for a rare word (a) sent at once after connecting,
//     (b) sent 5 s after start (separate servers), (c) the second call,
//     (d) later calls (median of 5).
//  2. fff (`@ff-labs/fff-node`, a fresh process each time):
//     `FileFinder.create` then `grep` (a) at once after its scan, (b) 5 s
//     after create, (c) second, (d) later, then warmed up (its content index).
//  3. `rg -l <word>` as a process; `fdfind -e ts` against agent-find's `find`.
//  4. A fresh `searchFiles({ pattern, cwd })`: the first call of a new node
//     process, and the same call repeated (warm).
//  5. An index being built: `openIndex(dir)` then at once
//     `index.searchFiles(...)`, against a fresh `searchFiles` (target ≤1.2x).
//  6. A busy machine: two busy loops at normal priority (child processes,
//     killed at the end and on any exit), then a fresh `searchFiles` against
//     `rg -l` and `find('**/*.ts')` against `fdfind -e ts` (targets ≤1.2x), and
//     a warm `index.searchFiles`.
//  7. Warm greps: `index.searchFiles` for the rare word, a word found nowhere
//     and a common word (its exact count), against fff's warm `grep`.
//  8. Memory: the index process's RSS growth per file, opened and settled, and
//     after its first content search; `stats()` printed whole (new fields show).
//  9. Persistence: `openIndex(dir, { cacheDir })` when the build takes it (else
//     "not supported by this build"): a first process whose background build
//     ends before it closes (a whole earlier session), then a second one on the same cacheDir,
//     the rare word sent at once and 1 s after start, against `rg -l`; and the
//     CLI (`node bin/agent-find.js search <word> <dir>`, and the native binary
//     with `--no-index`) as a process, then the native binary with the sketches
//     the second process saved in cacheDir (9d, target ≥3x faster than
//     `rg -l`, rounds of its own with `rg -l` in them).
//
// Every tool must give the same files for the rare word (checked; the run
// exits 1 if not). Medians of several processes or calls; ratios are
// agent-find's time over the peer's, measured in the same run (the machine is
// 2 shared, noisy cores: read the ratios, not single times).
//
//   npm run bench:warm                          # js64k (~64k files), 2-3.5 min once built
//   BENCH_QUICK=1 npm run bench:warm            # fewer rounds (1-1.5 min)
//   WARM_TREES=js64k,gen-200k-js npm run bench:warm   # also the 200k-file tree of bench/content-trees.mjs
//   WARM_TREES=gen-200k-js-copies npm run bench:warm  # the same tree of copies, not hard links (~1 GB; see below)
//   node bench/warm.mjs --report                # the last run's tables again (bench/.trees/warm-last.json)
//
// Trees: `js64k` (bench/content-trees.mjs `ensureNpmTree`: ten npm packages
// installed under bench/.trees/js64k/lib, the folders tools skip renamed, and
// 5 files holding `zqxRareMarker42`; built once, ~25 s, needs the npm
// registry) and `gen-200k-js` (bench/content-trees.mjs; its rare word is
// `deadlock`, in 7 files). Markdown on stdout, progress on stderr. The addon
// is copied aside at the start and every process of the run loads that copy
// (a rebuild during the run does not mix builds); the CLI rows run the
// checkout's CLI as it is.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { NPM_TREE_MARKER, RARE, ensureContentTree, ensureNpmTree } from './content-trees.mjs'
import { COUNT_FLOOR_BIN, buildFloors, ensureTool, loadFff, median } from './peers.mjs'
import { TREES_DIR } from './trees.mjs'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.dirname(here)
const SELF = fileURLToPath(import.meta.url)
const CLI_JS = path.join(repo, 'bin', 'agent-find.js')
/** The last run's measurements, for `--report`. */
const LAST = path.join(TREES_DIR, 'warm-last.json')

const QUICK = process.env.BENCH_QUICK === '1'
/** Processes per measured row (rg, fresh searchFiles, find, fd, index build, CLI). */
const ROUNDS = QUICK ? 3 : 7
/** MCP servers and fff processes per variant ((a) at once, (b) 5 s after start). */
const SERVERS = QUICK ? 1 : 3
/** Later calls in one process (median). */
const LATER = 5
/** Rounds of the warm greps (rare, nowhere, common) in one index / fff process. */
const WARM_ROUNDS = QUICK ? 5 : 9
const DELAY_MS = 5000
const PERSIST_DELAY_MS = 1000
const TARGET = 1.2
const NOWHERE = 'qqzNowhereWord77'
const COMMON = 'function'
const BUSY_LOOPS = 2
const CHILD_TIMEOUT_MS = 900_000

const started = performance.now()
const log = (msg) => process.stderr.write(`[warm ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const sorted = (xs) => [...new Set(xs)].sort()

// ================================================================ children
//
// `node bench/warm.mjs --child <json spec>`: one measurement in a process of
// its own; prints one JSON line.

function rss() {
  globalThis.gc?.()
  return process.memoryUsage().rss
}

async function timed(fn) {
  const t = performance.now()
  const value = await fn()
  return { ms: performance.now() - t, value }
}

const filesOf = (r) => sorted(r.matches.map((m) => m.file))

const CHILDREN = {
  /** A fresh `searchFiles` (op 'search') or `find('**\/*.ts')` (op 'find'): the first call of this process, then `warm` more. */
  async fresh({ dir, word, op, warm }) {
    const load = await timed(() => require('../index.js'))
    const { searchFiles, find } = load.value
    const call = op === 'search' ? () => searchFiles({ pattern: word, cwd: dir }) : () => find({ pattern: '**/*.ts', cwd: dir })
    const first = await timed(call)
    const answerAt = performance.timeOrigin + performance.now()
    const times = []
    for (let i = 0; i < warm; i++) times.push((await timed(call)).ms)
    const r = first.value
    const answer = op === 'search' ? { files: filesOf(r), matchCount: r.matchCount } : { matched: r.matched, entries: r.entries.length }
    return { requireMs: load.ms, firstMs: first.ms, answerAt, warmMs: times.length ? median(times) : null, ...answer }
  },

  /** `openIndex(dir)`, then at once `index.searchFiles` for the word: the call made as the index comes up. */
  async build({ dir, word }) {
    const { openIndex } = require('../index.js')
    const open = await timed(() => openIndex(dir))
    const index = open.value
    const call = await timed(() => index.searchFiles({ pattern: word }))
    const stats = index.stats()
    await index.close()
    return { openMs: open.ms, callMs: call.ms, files: filesOf(call.value), stats }
  },

  /**
   * An index opened and settled, its RSS and stats() along the way, then its
   * first (cold) content search and `rounds` rounds of warm greps.
   */
  async index({ dir, words, rounds, buildWaitMs = Infinity }) {
    const { openIndex } = require('../index.js')
    const rss0 = rss()
    const t0 = performance.now()
    const open = await timed(() => openIndex(dir))
    const index = open.value
    await index.settled()
    const settledMs = performance.now() - t0
    // Warm means its content layer is built: the background build ends by itself
    // (`contentBuild` done, or stopped at the sketch cap) when no call keeps it waiting.
    // On a busy machine the build, at the lowest priority, gets almost no CPU: waited for up to `buildWaitMs`.
    while (!['done', 'stopped'].includes(index.stats().contentBuild ?? 'done') && performance.now() - t0 < buildWaitMs) await new Promise((r) => setTimeout(r, 10))
    const builtMs = performance.now() - t0
    const rssOpen = rss()
    const statsOpen = index.stats()
    const first = await timed(() => index.searchFiles({ pattern: words.rare }))
    const rssFirst = rss()
    const statsFirst = index.stats()
    const second = await timed(() => index.searchFiles({ pattern: words.rare }))
    const times = { rare: [], nowhere: [], common: [] }
    const counts = {}
    for (let i = 0; i < rounds; i++) {
      for (const [key, word] of Object.entries(words)) {
        const r = await timed(() => index.searchFiles({ pattern: word }))
        times[key].push(r.ms)
        counts[key] = { matchCount: r.value.matchCount, fileCount: r.value.fileCount }
      }
    }
    const statsEnd = index.stats()
    await index.close()
    return {
      openMs: open.ms,
      settledMs,
      builtMs,
      firstMs: first.ms,
      secondMs: second.ms,
      files: filesOf(first.value),
      warm: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])),
      counts,
      rss0,
      rssOpen,
      rssFirst,
      statsOpen,
      statsFirst,
      statsEnd,
    }
  },

  /**
   * fff: `FileFinder.create`, its scan, then `grep` for the rare word at
   * `delayMs` after create (at once after the scan when 0), a second and
   * `later` more; with `warmRounds`, then its warm-up (`waitForIndexReady`)
   * and rounds of the three words.
   */
  async fff({ dir, words, delayMs, later, warmRounds }) {
    const fff = await loadFff()
    if (fff.why) throw new Error(fff.why)
    const rss0 = rss()
    const t0 = performance.now()
    const created = fff.FileFinder.create({ basePath: dir })
    if (!created.ok) throw new Error(`fff: ${created.error}`)
    const finder = created.value
    const scanned = await finder.waitForScan(CHILD_TIMEOUT_MS)
    if (!scanned.ok || !scanned.value) throw new Error(`fff: the scan did not finish: ${scanned.error ?? 'timeout'}`)
    const scanMs = performance.now() - t0
    // While it waits for `delayMs`: when its warm-up (content cache and index) is done.
    let warmupMs = null
    while (performance.now() < t0 + delayMs) {
      if (warmupMs === null && finder.getScanProgress().value?.isWarmupComplete) warmupMs = performance.now() - t0
      await sleep(Math.min(20, Math.max(0, t0 + delayMs - performance.now())))
    }
    const options = { mode: 'plain', smartCase: false, pageSize: 50 }
    /** Every page (the rare word's answer is one page: the whole tree searched). */
    const grepAll = (word) => {
      const files = []
      let cursor = null
      let totalFiles
      do {
        const r = finder.grep(word, { ...options, cursor })
        if (!r.ok) throw new Error(`fff grep ${word}: ${r.error}`)
        files.push(...r.value.items.map((i) => i.relativePath))
        cursor = r.value.nextCursor
        totalFiles = r.value.totalFiles
      } while (cursor)
      return { files: sorted(files), totalFiles }
    }
    const callAt = performance.now() - t0
    const first = await timed(() => grepAll(words.rare))
    const answerMs = performance.now() - t0
    const second = await timed(() => grepAll(words.rare))
    const times = []
    for (let i = 0; i < later; i++) times.push((await timed(() => grepAll(words.rare))).ms)
    const out = { scanMs, warmupMs, callAt, firstMs: first.ms, answerMs, secondMs: second.ms, laterMs: median(times), files: first.value.files, totalFiles: first.value.totalFiles }
    if (warmRounds) {
      const ready = await finder.waitForIndexReady(CHILD_TIMEOUT_MS)
      out.readyMs = performance.now() - t0
      out.ready = ready.ok && ready.value
      out.rssGrowth = rss() - rss0
      const warm = { rare: [], nowhere: [], common: [] }
      for (let i = 0; i < warmRounds; i++) {
        warm.rare.push((await timed(() => grepAll(words.rare))).ms)
        warm.nowhere.push((await timed(() => grepAll(words.nowhere))).ms)
        // The common word: its first page (asked for 50 matches; fff returns more), as an agent asks; fff counts no total.
        const common = await timed(() => finder.grep(words.common, options))
        if (!common.value.ok) throw new Error(`fff grep ${words.common}: ${common.value.error}`)
        warm.common.push(common.ms)
        out.commonPage = { items: common.value.value.items.length, more: common.value.value.nextCursor !== null }
      }
      out.warm = Object.fromEntries(Object.entries(warm).map(([k, v]) => [k, median(v)]))
      out.fffVersion = fff.version
    }
    finder.destroy()
    return out
  },

  /** Does `openIndex` take `cacheDir`? An `invalid-argument` error says no. */
  async probeCache({ dir, cacheDir }) {
    const { openIndex } = require('../index.js')
    try {
      const index = await openIndex(dir, { cacheDir })
      await index.close()
      return { supported: true }
    } catch (e) {
      if (e && e.code === 'invalid-argument') return { supported: false, message: e.message }
      throw e
    }
  },

  /**
   * `openIndex(dir, { cacheDir })`: with `prime`, settled, one content search,
   * closed (what a first process leaves in the cache); else the rare word sent
   * `delayMs` after the open started (at once when 0).
   */
  async persist({ dir, word, cacheDir, delayMs, prime }) {
    const { openIndex } = require('../index.js')
    const t0 = performance.now()
    const open = await timed(() => openIndex(dir, { cacheDir }))
    const index = open.value
    if (prime) {
      // A whole earlier session: its background build done, so what it saves is every sketch.
      await index.settled()
      while (!['done', 'stopped'].includes(index.stats().contentBuild ?? 'done')) await sleep(10)
      await index.searchFiles({ pattern: word })
      await index.close()
      return { openMs: open.ms, primedMs: performance.now() - t0 }
    }
    if (delayMs) await sleep(Math.max(0, t0 + delayMs - performance.now()))
    const call = await timed(() => index.searchFiles({ pattern: word }))
    const answerMs = performance.now() - t0
    const stats = index.stats()
    await index.close()
    return { openMs: open.ms, callMs: call.ms, answerMs, files: filesOf(call.value), stats }
  },
}

// ================================================================ parent: processes

/** Every process the run started and has not seen end: killed on any exit. */
const live = new Set()

function killAll() {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
  live.clear()
}
process.on('exit', killAll)
for (const [signal, n] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]]) {
  process.on(signal, () => {
    killAll()
    process.exit(128 + n)
  })
}

/** The addon copied aside, so a rebuild during the run does not mix builds (as bench/run.mjs does). */
function snapshotAddon() {
  const built = fs.readdirSync(repo).filter((f) => /^agent-find\..+\.node$/.test(f))
  if (built.length !== 1) return null
  const source = path.join(repo, built[0])
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-find-warm-'))
  const copy = path.join(dir, built[0])
  fs.copyFileSync(source, copy)
  process.env.NAPI_RS_NATIVE_LIBRARY_PATH = copy
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
  return { name: built[0], mtime: fs.statSync(source).mtime }
}

/**
 * The cache folder every process of rows 1-8 starts with, emptied before each
 * starts: saved sketches (the user's own, or an earlier process's) would make
 * a cold start look warm. Row 9 passes a `cacheDir` of its own.
 */
let emptyCacheDir = null
function emptyCache() {
  if (!emptyCacheDir) {
    emptyCacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-find-warm-empty-'))
    process.on('exit', () => fs.rmSync(emptyCacheDir, { recursive: true, force: true }))
  }
  for (const f of fs.readdirSync(emptyCacheDir)) fs.rmSync(path.join(emptyCacheDir, f), { recursive: true, force: true })
  return emptyCacheDir
}

/** Runs a CHILDREN entry in a new `node --expose-gc` process; its JSON answer and the process's wall time. */
function runChild(kind, spec) {
  const t = performance.now()
  const spawnedAt = performance.timeOrigin + t
  const r = spawnSync(process.execPath, ['--expose-gc', SELF, '--child', kind, JSON.stringify(spec)], {
    env: { ...process.env, AGENT_FIND_CACHE_DIR: emptyCache() },
    encoding: 'utf8',
    cwd: repo,
    timeout: CHILD_TIMEOUT_MS,
    maxBuffer: 1 << 26,
  })
  const wallMs = performance.now() - t
  const line = (r.stdout || '').trim().split('\n').pop()
  if (r.status !== 0 || !line) {
    throw new Error(`child ${kind} failed (${r.status ?? r.signal}): ${(r.stderr || r.error?.message || '').trim().split('\n').slice(-4).join(' | ')}`)
  }
  return { ...JSON.parse(line), wallMs, spawnedAt }
}

/** A command as a process, timed (stdout captured, parsed by the caller). */
function runProcess(file, args, cwd, env) {
  const t = performance.now()
  // stdin closed: rg given no path searches a piped stdin, not the folder.
  const r = spawnSync(file, args, { cwd, env: { ...process.env, AGENT_FIND_CACHE_DIR: emptyCache(), ...env }, encoding: 'utf8', maxBuffer: 1 << 28, timeout: CHILD_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] })
  const ms = performance.now() - t
  if (r.error || (r.status !== 0 && r.status !== 1)) throw new Error(`${file} ${args.join(' ')}: ${r.error?.message ?? `exit ${r.status}`} ${(r.stderr || '').slice(0, 300)}`)
  return { ms, stdout: r.stdout }
}

const BINARY_EXTENSIONS = new Set('pyc pyo class o so dll exe wasm node png jpg jpeg gif ico webp zip gz tgz br woff woff2 ttf otf eot pdf'.split(' '))

/** A file some tool may count as binary: a NUL byte in it, or a compiled or binary format's extension. */
function binaryish(file) {
  if (BINARY_EXTENSIONS.has(path.extname(file).slice(1).toLowerCase())) return true
  try {
    return fs.readFileSync(file).includes(0)
  } catch {
    return false
  }
}

const lines = (text) => text.split('\n').filter(Boolean).map((l) => (l.startsWith('./') ? l.slice(2) : l))

/** The files a search's model text lists (the MCP `search_files` answer, the CLI's output). */
function filesInText(text) {
  const all = text.split('\n')
  const found = all.findIndex((l) => /^Found \d+/.test(l))
  if (found < 0) return []
  const files = []
  for (const l of all.slice(found + 1)) {
    if (!l.trim()) break
    if (!/^\d+[:-]/.test(l) && !/^\s/.test(l)) files.push(l)
  }
  return sorted(files)
}

/**
 * One MCP server on `dir` (a new process, the SDK's stdio client): the rare
 * word sent `delayMs` after the server was started (at once after connecting
 * when 0), a second call, `later` more.
 */
async function mcpServer(dir, word, delayMs, later) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_JS, 'mcp', '--root', dir],
    cwd: repo,
    env: { NAPI_RS_NATIVE_LIBRARY_PATH: process.env.NAPI_RS_NATIVE_LIBRARY_PATH ?? '', AGENT_FIND_CACHE_DIR: emptyCache() },
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (d) => {
    stderr = (stderr + d).slice(-2000)
  })
  const client = new Client({ name: 'agent-find-bench-warm', version: '1.0.0' })
  const t0 = performance.now()
  let pid = null
  try {
    await client.connect(transport)
    pid = transport.pid
    if (pid) live.add(pid)
    const connectMs = performance.now() - t0
    if (delayMs) await sleep(Math.max(0, t0 + delayMs - performance.now()))
    const call = async () => {
      const t = performance.now()
      const r = await client.callTool({ name: 'search_files', arguments: { pattern: word } }, undefined, { timeout: CHILD_TIMEOUT_MS })
      const ms = performance.now() - t
      if (r.isError) throw new Error(`search_files: ${r.content?.[0]?.text}`)
      return { ms, text: r.content[0].text }
    }
    const callAt = performance.now() - t0
    const first = await call()
    const answerMs = performance.now() - t0
    const second = await call()
    const times = []
    for (let i = 0; i < later; i++) times.push((await call()).ms)
    return { connectMs, callAt, firstMs: first.ms, answerMs, secondMs: second.ms, laterMs: median(times), files: filesInText(first.text), laterFiles: filesInText(second.text) }
  } catch (e) {
    throw new Error(`MCP server: ${e.message}${stderr ? ` (its stderr: ${stderr.trim().slice(-300)})` : ''}`)
  } finally {
    await client.close().catch(() => {})
    if (pid) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {}
      live.delete(pid)
    }
  }
}

/** Starts BUSY_LOOPS spinning node processes at normal priority; each also ends itself once its parent is gone. */
function startBusyLoops() {
  const code = 'const p = process.ppid; for (let i = 0; ; i++) if ((i & 0x3ffffff) === 0 && process.ppid !== p) process.exit(0)'
  const loops = []
  for (let i = 0; i < BUSY_LOOPS; i++) {
    const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' })
    live.add(child.pid)
    child.on('exit', () => live.delete(child.pid))
    loops.push(child)
  }
  return () => {
    for (const child of loops) {
      child.kill('SIGKILL')
      live.delete(child.pid)
    }
  }
}

// ================================================================ parent: one tree

/** Rotates `list` by `r`: each round runs the same commands in another order. */
const rotate = (list, r) => list.map((_, i) => list[(i + r) % list.length])

async function measureTree(tree, tools) {
  const { dir, rare } = tree
  const words = { rare, nowhere: NOWHERE, common: COMMON }
  const out = { tree, answers: {}, errors: [] }
  /** A tool's files for the rare word: its first answer, and any later one that differs from it. */
  const answer = (who, files) => {
    if (!(who in out.answers)) out.answers[who] = files
    else if (JSON.stringify(out.answers[who]) !== JSON.stringify(files)) out.answers[`${who} (another round)`] = files
  }
  const attempt = async (what, fn) => {
    // A turn of the event loop first: a signal that came during a spawnSync is handled here (killAll, exit).
    await new Promise((resolve) => setImmediate(resolve))
    try {
      return await fn()
    } catch (e) {
      log(`${what} failed: ${e.message}`)
      out.errors.push(`${what}: ${e.message}`)
      return null
    }
  }

  // Page cache: every file read once before anything is timed.
  log(`${tree.name}: warming the page cache (rg)...`)
  out.rgFiles = lines(runProcess(tools.rg, ['--files', '.'], dir).stdout).length
  runProcess(tools.rg, ['-l', rare, '.'], dir)

  // ---- rows 3, 4, 5, 9 (CLI): processes, interleaved round by round
  const t = { rg: [], fresh: [], freshProcess: [], freshWarm: [], build: [], buildOpen: [], find: [], fd: [], cliJs: [], cliNative: [] }
  for (let r = 0; r < ROUNDS; r++) {
    log(`${tree.name}: process round ${r + 1}/${ROUNDS}`)
    const steps = {
      rg: () => {
        const p = runProcess(tools.rg, ['-l', rare, '.'], dir)
        t.rg.push(p.ms)
        answer('rg -l', sorted(lines(p.stdout)))
      },
      fresh: () => {
        const c = runChild('fresh', { dir, word: rare, op: 'search', warm: LATER })
        t.fresh.push(c.firstMs)
        t.freshProcess.push(c.answerAt - c.spawnedAt)
        t.freshWarm.push(c.warmMs)
        answer('searchFiles (fresh process)', c.files)
      },
      build: () => {
        const c = runChild('build', { dir, word: rare })
        t.build.push(c.callMs)
        t.buildOpen.push(c.openMs + c.callMs)
        answer('openIndex + at once index.searchFiles', c.files)
      },
      find: () => {
        const c = runChild('fresh', { dir, op: 'find', warm: 0 })
        t.find.push(c.firstMs)
        out.findMatched = c.matched
      },
      fd: () => {
        if (!tools.fd) return
        const p = runProcess(tools.fd, ['-e', 'ts', '--color', 'never', '.'], dir)
        t.fd.push(p.ms)
        out.fdCount = lines(p.stdout).length
      },
      cliJs: () => {
        const p = runProcess(process.execPath, [CLI_JS, 'search', rare, dir], repo)
        t.cliJs.push(p.ms)
        answer('CLI (node bin/agent-find.js search)', filesInText(p.stdout))
      },
      cliNative: () => {
        if (!tools.native) return
        // Whatever the user's cache folder holds: read every file (9d uses the saved sketches).
        const p = runProcess(tools.native, ['search', rare, dir, '--no-index'], repo)
        t.cliNative.push(p.ms)
      },
    }
    for (const [name, step] of rotate(Object.entries(steps), r)) await attempt(`${name} (round ${r + 1})`, step)
  }
  out.proc = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.length ? median(v) : null]))

  // ---- rows 1, 2: MCP servers and fff processes, (a) at once and (b) 5 s after start
  const mcp = { a: [], b: [] }
  const fff = { a: [], b: [] }
  for (let i = 0; i < SERVERS; i++) {
    log(`${tree.name}: MCP servers and fff processes, round ${i + 1}/${SERVERS}`)
    for (const v of ['a', 'b']) {
      const delayMs = v === 'a' ? 0 : DELAY_MS
      const m = await attempt(`MCP (${v})`, () => mcpServer(dir, rare, delayMs, LATER))
      if (m) {
        mcp[v].push(m)
        answer(`MCP search_files (${v})`, m.files)
        answer(`MCP search_files (${v}, second call)`, m.laterFiles)
      }
      if (!tools.fff) continue
      // The warm rounds (row 7) in one (b) process: after its 5 s calls, warmed up.
      const warmRounds = v === 'b' && i === 0 ? WARM_ROUNDS : 0
      const f = await attempt(`fff (${v})`, () => runChild('fff', { dir, words, delayMs, later: LATER, warmRounds }))
      if (f) {
        fff[v].push(f)
        answer(`fff grep (${v})`, f.files)
        if (f.warm) out.fffWarm = f
      }
    }
  }
  const med = (list, key) => (list.length ? median(list.map((x) => x[key])) : null)
  out.mcp = Object.fromEntries(['a', 'b'].map((v) => [v, Object.fromEntries(['connectMs', 'callAt', 'firstMs', 'answerMs', 'secondMs', 'laterMs'].map((k) => [k, med(mcp[v], k)]))]))
  out.fff = Object.fromEntries(['a', 'b'].map((v) => [v, Object.fromEntries(['scanMs', 'warmupMs', 'callAt', 'firstMs', 'answerMs', 'secondMs', 'laterMs'].map((k) => [k, med(fff[v], k)]))]))
  out.fffFiles = fff.a[0]?.totalFiles ?? fff.b[0]?.totalFiles

  // ---- rows 7, 8: an index process: memory, its first content search, warm greps
  log(`${tree.name}: index process (memory, warm greps)`)
  out.index = await attempt('index process', () => runChild('index', { dir, words, rounds: WARM_ROUNDS }))
  if (out.index) answer('index.searchFiles (settled)', out.index.files)
  // The common word's exact count, checked against rg's (lines, files); its files, for row 7e.
  let commonFiles = null
  await attempt('rg --count', () => {
    const p = runProcess(tools.rg, ['--count', '--', COMMON, '.'], dir)
    const listed = lines(p.stdout).map((l) => [l.slice(0, l.lastIndexOf(':')), Number(l.slice(l.lastIndexOf(':') + 1))])
    out.rgCommon = { lines: listed.reduce((a, [, n]) => a + n, 0), files: listed.length }
    commonFiles = listed.map(([file]) => file)
  })
  // Row 7e, the floor of 7c: the same lines counted in the same files (those `rg --count` listed), already in memory (bench/floor's count-floor).
  if (tools.countFloor && commonFiles) {
    await attempt('count floor', () => {
      const files = commonFiles.join('\n')
      const threads = String(os.availableParallelism?.() ?? os.cpus().length)
      const r = spawnSync(tools.countFloor, [dir, COMMON, threads, '15'], { input: files, encoding: 'utf8', maxBuffer: 1 << 20, timeout: CHILD_TIMEOUT_MS })
      if (r.status !== 0) throw new Error(`count-floor: exit ${r.status} ${(r.stderr || '').slice(0, 300)}`)
      const [ms, countedLines, countedFiles, bytes] = r.stdout.trim().split(' ').map(Number)
      out.countFloor = { ms, lines: countedLines, files: countedFiles, bytes, threads }
    })
  }

  // ---- row 9: persistence (cacheDir), when this build takes it
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-find-warm-cache-'))
  try {
    const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-find-warm-probe-'))
    const probe = await attempt('cacheDir probe', () => runChild('probeCache', { dir: probeDir, cacheDir: path.join(probeDir, 'cache') }))
    fs.rmSync(probeDir, { recursive: true, force: true })
    out.persist = { supported: !!probe?.supported, message: probe?.message }
    if (probe?.supported) {
      log(`${tree.name}: persistence (cacheDir)`)
      const primed = await attempt('persist: first process', () => runChild('persist', { dir, word: rare, cacheDir, prime: true }))
      out.persist.primedMs = primed?.primedMs
      const at = { once: [], later: [] }
      for (let r = 0; r < ROUNDS; r++) {
        for (const [key, delayMs] of rotate([['once', 0], ['later', PERSIST_DELAY_MS]], r)) {
          const c = await attempt(`persist (${key})`, () => runChild('persist', { dir, word: rare, cacheDir, delayMs }))
          if (!c) continue
          at[key].push(c)
          answer(`openIndex with cacheDir, second process (${key})`, c.files)
          out.persist.stats = c.stats
        }
      }
      out.persist.once = { callMs: med(at.once, 'callMs'), openMs: med(at.once, 'openMs'), answerMs: med(at.once, 'answerMs') }
      out.persist.later = { callMs: med(at.later, 'callMs'), openMs: med(at.later, 'openMs') }
      // 9d: the native CLI with the sketches saved in cacheDir, and `rg -l`, in the same rounds.
      if (tools.native) {
        const d = { cli: [], noIndex: [], rg: [] }
        for (let r = 0; r < ROUNDS * 2; r++) {
          const steps = {
            cli: () => {
              const p = runProcess(tools.native, ['search', rare, dir], repo, { AGENT_FIND_CACHE_DIR: cacheDir })
              d.cli.push(p.ms)
              answer('native CLI with the saved sketches', filesInText(p.stdout))
            },
            noIndex: () => d.noIndex.push(runProcess(tools.native, ['search', rare, dir, '--no-index'], repo).ms),
            rg: () => d.rg.push(runProcess(tools.rg, ['-l', rare, '.'], dir).ms),
          }
          for (const [name, step] of rotate(Object.entries(steps), r)) await attempt(`saved CLI ${name} (round ${r + 1})`, step)
        }
        out.persist.cli = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v.length ? median(v) : null]))
      }
    }
  } finally {
    fs.rmSync(cacheDir, { recursive: true, force: true })
  }

  // ---- row 6: a busy machine
  log(`${tree.name}: ${BUSY_LOOPS} busy loops started`)
  const stopLoops = startBusyLoops()
  try {
    await sleep(500)
    const b = { fresh: [], rg: [], find: [], fd: [] }
    for (let r = 0; r < ROUNDS; r++) {
      log(`${tree.name}: busy round ${r + 1}/${ROUNDS}`)
      const steps = {
        fresh: () => {
          const c = runChild('fresh', { dir, word: rare, op: 'search', warm: 0 })
          b.fresh.push(c.firstMs)
          answer('searchFiles (fresh process, busy machine)', c.files)
        },
        rg: () => b.rg.push(runProcess(tools.rg, ['-l', rare, '.'], dir).ms),
        find: () => b.find.push(runChild('fresh', { dir, op: 'find', warm: 0 }).firstMs),
        fd: () => tools.fd && b.fd.push(runProcess(tools.fd, ['-e', 'ts', '--color', 'never', '.'], dir).ms),
      }
      for (const [name, step] of rotate(Object.entries(steps), r)) await attempt(`busy ${name} (round ${r + 1})`, step)
    }
    out.busy = Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.length ? median(v) : null]))
    log(`${tree.name}: index process on the busy machine`)
    const idx = await attempt('busy index process', () => runChild('index', { dir, words: { rare }, rounds: WARM_ROUNDS, buildWaitMs: 20_000 }))
    out.busy.indexWarm = idx?.warm.rare ?? null
    out.busy.indexOpen = idx?.openMs ?? null
    out.busy.indexFirst = idx?.firstMs ?? null
    out.busy.indexBuild = idx ? `${idx.statsOpen.contentBuild}, ${idx.statsOpen.contentBuildFiles} of ${idx.statsOpen.contentBuildTotal} files after ${Math.round(idx.builtMs)} ms` : null
    out.busy.loadavg = os.loadavg()
  } finally {
    stopLoops()
    log(`${tree.name}: busy loops stopped`)
  }
  return out
}

// ================================================================ report

const fmt = (ms) => (ms === null || ms === undefined || Number.isNaN(ms) ? 'n/a' : ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms).toLocaleString('en'))
const int = (n) => (n === undefined || n === null ? 'n/a' : n.toLocaleString('en'))
const mb = (bytes) => (bytes / 1048576).toFixed(1)

function report(results, meta) {
  const md = []
  md.push('## Warm from the first call (`npm run bench:warm`)', '')
  md.push(meta, '')
  md.push('Ratios are agent-find / peer (below 1: agent-find is faster), from medians of the same run. ' +
    `Processes per row: ${ROUNDS} (interleaved, order rotating); MCP servers and fff processes: ${SERVERS} per variant; later calls: median of ${LATER}.`)
  for (const r of results) md.push('', ...treeReport(r))
  return md.join('\n')
}

function treeReport(o) {
  const { tree } = o
  const md = [`### ${tree.name}: ${int(tree.files)} files, rare word \`${tree.rare}\` (${tree.source})`, '']
  const rows = []
  /** One row: what, agent-find ms, the peer and its ms, and the target when there is one. */
  const row = (id, what, af, peer, peerMs, target) => {
    const ratio = af != null && peerMs != null ? af / peerMs : null
    let t = '—'
    if (target) t = ratio == null ? `target: ≤${target}x (n/a)` : `target: ≤${target}x: ${ratio <= target ? 'met' : '**missed**'}`
    rows.push(`| ${id} | ${what} | ${fmt(af)} | ${peer} | ${fmt(peerMs)} | ${ratio == null ? 'n/a' : `${ratio.toFixed(2)}x`} | ${t} |`)
  }
  const p = o.proc
  const rg = p.rg
  const rgPeer = '`rg -l` process'
  row('1a', `MCP (a): \`search_files\` sent at once after connect (the call; connect took ${fmt(o.mcp.a.connectMs)} ms)`, o.mcp.a.firstMs, 'fff: `grep` at once after its scan (the call)', o.fff.a.firstMs)
  row('1a', 'MCP (a): the same call', o.mcp.a.firstMs, rgPeer, rg)
  row('1a', 'MCP (a): server start → answer (spawn, connect, call)', o.mcp.a.answerMs, 'fff: process start → answer (create, scan, grep)', o.fff.a.answerMs)
  row('1b', `MCP (b): sent ${DELAY_MS / 1000} s after start (the call)`, o.mcp.b.firstMs, `fff: \`grep\` ${DELAY_MS / 1000} s after create`, o.fff.b.firstMs)
  row('1b', 'MCP (b): the same call', o.mcp.b.firstMs, rgPeer, rg)
  row('1c', 'MCP: the second call (server a)', o.mcp.a.secondMs, 'fff: second `grep` (process a)', o.fff.a.secondMs)
  row('1c', 'MCP: the second call (server b)', o.mcp.b.secondMs, 'fff: second `grep` (process b)', o.fff.b.secondMs)
  row('1d', `MCP: later calls, median of ${LATER} (server a)`, o.mcp.a.laterMs, 'fff: later `grep`s (process a)', o.fff.a.laterMs)
  row('1d', `MCP: later calls, median of ${LATER} (server b)`, o.mcp.b.laterMs, 'fff: later `grep`s (process b)', o.fff.b.laterMs)
  row('2', 'agent-find `openIndex` (index process, row 7)', o.index?.openMs, 'fff: create → scan done', o.fff.a.scanMs)
  row('3', `\`find({ pattern: '**/*.ts' })\`, first call of a new process (defaults: newest first, limit 1000; matched ${int(o.findMatched)}${o.fdCount != null ? (o.findMatched === o.fdCount ? ' ✓' : ' **≠ fd**') : ''})`, p.find, `\`fdfind -e ts\` process (${int(o.fdCount)} files)`, p.fd)
  row('4a', '`searchFiles({ pattern, cwd })`, first call of a new node process (the call)', p.fresh, rgPeer, rg)
  row('4b', 'the same, whole process: node start, require, first call', p.freshProcess, rgPeer, rg)
  row('4c', `warm: the same call repeated in that process (median of ${LATER})`, p.freshWarm, rgPeer, rg)
  row('5', 'index building: `openIndex(dir)` resolved, then at once `index.searchFiles` (the call)', p.build, 'fresh `searchFiles`, first call of a process (4a)', p.fresh, TARGET)
  row('5', 'the same: `openIndex` + that call (open → answer)', p.buildOpen, 'fresh `searchFiles` (4a)', p.fresh)
  const b = o.busy
  if (b) {
    row('6a', `busy machine (${BUSY_LOOPS} busy loops): fresh \`searchFiles\`, first call of a new process`, b.fresh, `${rgPeer}, same loops`, b.rg, TARGET)
    row('6b', "busy machine: `find({ pattern: '**/*.ts' })`, first call of a new process", b.find, '`fdfind -e ts` process, same loops', b.fd, TARGET)
    row('6c', `busy machine: warm \`index.searchFiles\` (median of ${WARM_ROUNDS}, index opened under the loops)`, b.indexWarm, `${rgPeer}, same loops`, b.rg)
  }
  const w = o.index?.warm
  const fw = o.fffWarm?.warm
  if (w) {
    row('7a', `warm: \`index.searchFiles\` rare word (median of ${WARM_ROUNDS})`, w.rare, 'fff: warm `grep` (content index ready)', fw?.rare)
    row('7b', `warm: a word found nowhere (\`${NOWHERE}\`)`, w.nowhere, 'fff: warm `grep`', fw?.nowhere)
    const c = o.index.counts.common
    const check = o.rgCommon ? (o.rgCommon.lines === c.matchCount && o.rgCommon.files === c.fileCount ? ', = `rg --count` ✓' : `, **rg --count: ${int(o.rgCommon.lines)} lines in ${int(o.rgCommon.files)} files**`) : ''
    const page = o.fffWarm?.commonPage ? ` (${o.fffWarm.commonPage.items} matches${o.fffWarm.commonPage.more ? ', more pages' : ''}; no total)` : ''
    row('7c', `warm: common word \`${COMMON}\`, exact total ${int(c.matchCount)} lines in ${int(c.fileCount)} files${check}`, w.common, `fff: warm \`grep\`, first page${page}`, fw?.common)
    const f = o.countFloor
    if (f) row('7e', `floor of 7c: the ${int(f.lines)} lines counted in the same ${int(f.files)} files (${mb(f.bytes)} MiB) already in memory, one \`memchr::memmem\` pass on ${f.threads} threads, no read, no binary check (best of 15)`, f.ms, `fff: warm \`grep\`, first page`, fw?.common)
    row('7d', `the index's first content search, its layer built in the background (open → built: ${Math.round(o.index.builtMs)} ms)`, o.index.firstMs, 'fresh `searchFiles` (4a)', p.fresh)
  }
  const pst = o.persist
  if (pst?.supported) {
    row('9a', `persistence: second process, \`openIndex(dir, { cacheDir })\` then the rare word at once (open → answer; open ${fmt(pst.once.openMs)} ms)`, pst.once.answerMs, rgPeer, rg)
    row('9a', 'the same: the call alone', pst.once.callMs, rgPeer, rg)
    row('9b', `persistence: second process, the rare word ${PERSIST_DELAY_MS / 1000} s after start (the call)`, pst.later.callMs, rgPeer, rg)
  } else {
    rows.push(`| 9a | persistence: a second process with \`openIndex(dir, { cacheDir })\`, the rare word at once | not supported by this build | ${rgPeer} | ${fmt(rg)} | n/a | — |`)
    rows.push(`| 9b | persistence: the same, ${PERSIST_DELAY_MS / 1000} s after start | not supported by this build | ${rgPeer} | ${fmt(rg)} | n/a | — |`)
  }
  row('9c', `CLI as a process: \`node bin/agent-find.js search ${tree.rare} <dir>\``, p.cliJs, rgPeer, rg)
  if (p.cliNative != null) row('9c', 'the native CLI binary directly, `--no-index` (what npm puts on PATH on Linux and macOS)', p.cliNative, rgPeer, rg)
  if (pst?.cli) {
    row('9d', `the native CLI with the sketches saved in cacheDir: \`agent-find search ${tree.rare} <dir>\` (rounds of its own)`, pst.cli.cli, '`rg -l` process (same rounds)', pst.cli.rg, 0.34)
    row('9d', 'the same, `--no-index`', pst.cli.noIndex, '`rg -l` process (same rounds)', pst.cli.rg)
  }

  md.push('| # | what is measured | agent-find ms | peer (same run) | peer ms | agent-find / peer | target |')
  md.push('| --- | --- | ---: | --- | ---: | ---: | --- |')
  md.push(...rows, '')

  // Answers: every tool's files for the rare word against the marker files (js64k) or rg's.
  const want = tree.expect ? sorted(tree.expect) : o.answers['rg -l']
  const notes = []
  const wrong = []
  for (const [who, files] of Object.entries(o.answers)) {
    const extra = files.filter((f) => !want?.includes(f))
    const missing = (want ?? []).filter((f) => !files.includes(f))
    if (!extra.length && !missing.length) continue
    const what = `${who}: ${extra.length ? `+ ${extra.join(', ')}` : ''}${extra.length && missing.length ? '; ' : ''}${missing.length ? `− ${missing.join(', ')}` : ''}`
    // Tools tell binary files apart differently (a NUL byte, an extension): such a difference is shown, not failed.
    if ([...extra, ...missing].every((f) => binaryish(path.join(tree.dir, f)))) notes.push(what)
    else wrong.push(what)
  }
  o.mismatch = wrong.length > 0 || !want?.length
  md.push(`**Same files for \`${tree.rare}\`** (${want?.length ?? 0}${tree.expect ? ', the marker files' : ', as `rg -l`'}): ` +
    (o.mismatch ? `**no**: ${wrong.join('; ')}` : `yes, from ${Object.keys(o.answers).join(', ')}`) +
    (notes.length ? `. Binary files (a NUL byte or a compiled file's extension), which tools tell apart differently: ${notes.join('; ')}.` : '.'))
  md.push('')
  md.push(`Files each tool sees: \`rg --files\` ${int(o.rgFiles)}, fff ${int(o.fffFiles)}, agent-find index ${int(o.index?.statsOpen.entries)} entries (files and folders).` +
    (o.fff.a.scanMs != null ? ` fff's scan: ${fmt(o.fff.a.scanMs)} ms after create; its warm-up (\`getScanProgress().isWarmupComplete\`, polled in process b) done ${fmt(o.fff.b.warmupMs)} ms after create.` : '') +
    ` MCP (b)'s call went out ${fmt(o.mcp.b.callAt)} ms after start, fff (b)'s ${fmt(o.fff.b.callAt)} ms.`)
  if (o.index) {
    const n = tree.files
    const i = o.index
    md.push('', `**Memory** (row 8, the index process, RSS after \`gc()\`): ${mb(i.rss0)} MB before \`openIndex\`; ` +
      `opened, settled and its sketches built +${mb(i.rssOpen - i.rss0)} MB (${Math.round((i.rssOpen - i.rss0) / n)} B per file); ` +
      `after the first content search +${mb(i.rssFirst - i.rss0)} MB (${Math.round((i.rssFirst - i.rss0) / n)} B per file)` +
      (o.fffWarm?.rssGrowth != null ? `; fff after its scan and warm-up +${mb(o.fffWarm.rssGrowth)} MB (${Math.round(o.fffWarm.rssGrowth / n)} B per file).` : '.'))
    const contentPerFile = (s) => (s.contentBytes != null && s.contentFiles ? ` (\`contentBytes\` ${Math.round(s.contentBytes / s.contentFiles)} B per file held)` : '')
    md.push('', `\`stats()\` opened and settled: \`${JSON.stringify(i.statsOpen)}\``, '')
    md.push(`\`stats()\` after the first content search${contentPerFile(i.statsFirst)}: \`${JSON.stringify(i.statsFirst)}\``)
  }
  if (!o.persist?.supported) md.push('', `Persistence: not supported by this build (${o.persist?.message ?? 'the probe failed'}).`)
  else md.push('', `Persistence: the first process (open, settle, one search, close) took ${fmt(o.persist.primedMs)} ms; \`stats()\` of a second process: \`${JSON.stringify(o.persist.stats)}\``)
  if (o.busy) {
    md.push('', `Busy machine (row 6): load (1, 5, 15 min) ${o.busy.loadavg.map((l) => l.toFixed(1)).join(' ')} at the end of its rows; ` +
      `the index process under the loops opened in ${fmt(o.busy.indexOpen)} ms; its background build (lowest priority) was ${o.busy.indexBuild ?? 'n/a'} (waited for at most 20 s); its first content search then took ${fmt(o.busy.indexFirst)} ms.`)
  }
  if (o.errors.length) md.push('', `**Errors** (${o.errors.length}): ${o.errors.join('; ')}`)
  return md
}

// ================================================================ parent

function trees() {
  const names = (process.env.WARM_TREES || 'js64k').split(',').map((s) => s.trim()).filter(Boolean)
  return names.map((name) => {
    if (name === 'js64k') {
      const t = ensureNpmTree(log)
      return { name, dir: t.dir, files: t.files, rare: NPM_TREE_MARKER, expect: t.markers, source: `npm packages under lib/: ${t.packages}` }
    }
    const m = /^gen-(\d+)k-js(-copies)?$/.exec(name)
    if (!m) throw new Error(`unknown tree ${name}: js64k, gen-<N>k-js or gen-<N>k-js-copies`)
    const copies = !!m[2]
    const t = ensureContentTree({ name: `gen-${m[1]}k`, files: Number(m[1]) * 1000, copies }, log)
    return { name, dir: t.dir, files: t.files, rare: RARE, source: `gen-${m[1]}k's layout, each file ${copies ? 'a copy of' : 'a hard link to'} a node_modules fixture file` }
  })
}

async function parent() {
  const addon = snapshotAddon()
  try {
    require('../index.js')
  } catch (err) {
    console.error(`agent-find does not load (${err.message.split('\n')[0]}); run \`npm run build\` first`)
    process.exit(1)
  }
  const cached = path.join(repo, 'node_modules', '.cache', 'ripgrep', 'rg')
  const rg = fs.existsSync(cached) ? cached : ensureTool('rg', 'ripgrep', log) ? 'rg' : null
  if (!rg) throw new Error('rg is needed (the reference answer): npm run install:rg, or apt-get install ripgrep')
  const native = fs.readdirSync(repo).find((f) => /^agent-find\.[a-z0-9-]+$/.test(f) && !f.endsWith('.node'))
  const fff = await loadFff()
  if (fff.why) log(`fff left out: ${fff.why}`)
  try {
    buildFloors(log)
  } catch (e) {
    // Row 7e is left out, not the run.
    log(`the floors did not build: ${e.message}`)
  }
  const tools = {
    rg,
    fd: ensureTool('fdfind', 'fd-find', log) ? 'fdfind' : null,
    fff: !fff.why,
    native: native ? path.join(repo, native) : null,
    countFloor: fs.existsSync(COUNT_FLOOR_BIN) ? COUNT_FLOOR_BIN : null,
  }
  const version = (bin) => (bin ? spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.split('\n')[0].trim() : 'missing')

  const list = trees()
  const load0 = os.loadavg()
  const results = []
  for (const tree of list) {
    log(`${tree.name}: ${int(tree.files)} files at ${tree.dir}`)
    results.push(await measureTree(tree, tools))
  }
  const meta = `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, ${os.availableParallelism?.() ?? os.cpus().length} cores; ` +
    `load (1, 5, 15 min) ${load0.map((l) => l.toFixed(1)).join(' ')} at the start, ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end; ` +
    `addon ${addon ? `${addon.name} built ${addon.mtime.toISOString().slice(0, 16).replace('T', ' ')}` : 'as index.js loads it'}; ` +
    `${version(rg)}, ${tools.fd ? version('fdfind') : 'fd missing'}, fff ${fff.why ? 'not available' : `\`@ff-labs/fff-node\` ${fff.version}`}` +
    `${QUICK ? '; quick mode (BENCH_QUICK=1)' : ''}; took ${((performance.now() - started) / 60000).toFixed(1)} min.`
  fs.writeFileSync(LAST, `${JSON.stringify({ results, meta })}\n`)
  console.log(report(results, meta))
  if (results.some((r) => r.mismatch)) {
    log('answers differed: see "Same files" above')
    process.exitCode = 1
  }
}

if (process.argv[2] === '--child') {
  const [kind, spec] = process.argv.slice(3)
  CHILDREN[kind](JSON.parse(spec)).then(
    (out) => {
      process.stdout.write(`${JSON.stringify(out)}\n`)
      process.exit(0)
    },
    (err) => {
      process.stderr.write(`${err && err.stack ? err.stack : err}\n`)
      process.exit(1)
    },
  )
} else if (process.argv[2] === '--report') {
  const { results, meta } = JSON.parse(fs.readFileSync(LAST, 'utf8'))
  console.log(report(results, meta))
} else {
  await parent()
}
