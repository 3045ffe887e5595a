// The tools the benchmark compares, and how each one runs a query.
//
// In-process tools (agent-find's `find`/`findFiles` and the JS globbers) run
// in a child node process per (tool, query, tree): `node --expose-gc
// bench/peers.mjs --child <spec>`. The child loads the tool, notes
// `process.resourceUsage().maxRSS`, makes one call (its peak RSS growth and
// its answer are what is reported), then makes `runs` timed calls with a
// gc() before each; a 1 ms setInterval measures the worst event-loop gap over
// every call. Processes (fd, rg, the agent-find CLI, the floor) are timed as
// whole processes, stdout to /dev/null; one more run with stdout piped gives
// their answer and, under /usr/bin/time, their peak RSS.
//
// Every tool's answer is normalized (relative `/` paths, no `./`, no
// trailing `/`), sorted (except for the `recent` query, whose order is the
// answer) and hashed, so a row compares the same set, not only its size.
import { execFileSync, spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.dirname(here)
export const FLOOR_BIN = path.join(here, 'floor', 'target', 'release', 'bench-floor')
/** bench/floor's other binary: a word's lines counted in files already in memory. */
export const COUNT_FLOOR_BIN = path.join(here, 'floor', 'target', 'release', 'count-floor')
const CLI = path.join(repo, 'bin', 'agent-find.js')
export const DUMP_DIR = path.join(os.tmpdir(), 'agent-find-bench')
const BIG = 1e15 // maxBytes cannot be Infinity; this never caps

// ---------------------------------------------------------------- queries

/**
 * The queries. `glob` is the relative-path glob every globber gets; `exts`
 * the extensions (fd and rg match basenames); `gitignore: false` means
 * agent-find `{ gitignore: false, hidden: true }` and peers with `dot: true`
 * and no ignore files; `.git/` is skipped by every tool (agent-find always
 * skips it).
 */
export const QUERIES = [
  { id: 'js', label: '`**/*.js`', glob: '**/*.js', exts: ['js'], type: 'file', gitignore: false },
  { id: 'ts', label: '`**/*.{ts,tsx}`', glob: '**/*.{ts,tsx}', exts: ['ts', 'tsx'], type: 'file', gitignore: false },
  { id: 'none', label: '`**/*.nomatch`', glob: '**/*.nomatch', exts: ['nomatch'], type: 'file', gitignore: false },
  { id: 'js-gi', label: '`**/*.js`, gitignore', glob: '**/*.js', exts: ['js'], type: 'file', gitignore: true },
  { id: 'ts-gi', label: '`**/*.{ts,tsx}`, gitignore', glob: '**/*.{ts,tsx}', exts: ['ts', 'tsx'], type: 'file', gitignore: true },
  { id: 'none-gi', label: '`**/*.nomatch`, gitignore', glob: '**/*.nomatch', exts: ['nomatch'], type: 'file', gitignore: true },
  { id: 'recent', label: "`**/*`, `sortBy: 'recent'`, `limit: 1000`", glob: '**/*', exts: null, type: 'file', gitignore: false, recent: 1000 },
  { id: 'dir', label: "`**`, `type: 'dir'`", glob: '**', exts: null, type: 'dir', gitignore: false },
]

/** agent-find's options for a query: the fair mapping (see the file header). */
export function agentFindOptions(q, dir) {
  const common = { pattern: q.glob, path: dir, type: q.type, gitignore: q.gitignore, hidden: true, maxBytes: BIG }
  if (q.recent) return { ...common, sortBy: 'recent', limit: q.recent }
  return { ...common, sortBy: 'none', limit: Infinity, maxLimit: Infinity }
}

// ---------------------------------------------------------------- in-process tools

const stripDir = (dir) => {
  const prefix = `${path.resolve(dir)}/`
  return (p) => (p.startsWith(prefix) ? p.slice(prefix.length) : p)
}

/** Newest first, ties by path: agent-find's `recent` order. */
function recentFirst(items, limit) {
  items.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return items.slice(0, limit).map((i) => i.path)
}

/**
 * Each in-process tool: `supports(q)` is true or a reason why not;
 * `prepare(q, dir)` loads the library and returns `() => Promise<string[]>`.
 */
export const IN_PROCESS = {
  'agent-find': {
    supports: () => true,
    async prepare(q, dir) {
      const { find } = require('../index.js')
      const options = agentFindOptions(q, dir)
      return async () => (await find(options)).entries.map((e) => e.path)
    },
  },
  // Explicit options (the "where agent-find spends time" variants): q.options.
  'agent-find (variant)': {
    supports: (q) => !!q.options || 'variants only',
    async prepare(q, dir) {
      const { find } = require('../index.js')
      const options = { maxBytes: BIG, ...q.options, pattern: q.glob, path: dir }
      return async () => (await find(options)).entries.map((e) => e.path)
    },
  },
  'agent-find findFiles': {
    supports: (q) => (q.type === 'file' && q.gitignore && !q.recent) || 'findFiles always applies .gitignore',
    async prepare(q, dir) {
      const { findFiles } = require('../index.js')
      const rel = stripDir(dir)
      return async () => (await findFiles(q.glob, dir)).map(rel)
    },
  },
  'fast-glob': {
    supports: (q) => !q.gitignore || 'no .gitignore support',
    async prepare(q, dir) {
      const fg = (await import('fast-glob')).default
      const base = { cwd: dir, dot: true, ignore: ['**/.git'], followSymbolicLinks: false }
      if (q.recent) {
        const options = { ...base, onlyFiles: true, stats: true }
        return async () => recentFirst((await fg(q.glob, options)).map((e) => ({ path: e.path, mtimeMs: e.stats.mtimeMs })), q.recent)
      }
      const options = { ...base, onlyFiles: q.type === 'file', onlyDirectories: q.type === 'dir' }
      return () => fg(q.glob, options)
    },
  },
  fdir: {
    supports: (q) => (q.gitignore ? 'no .gitignore support' : q.recent ? 'no stat/sort' : true),
    async prepare(q, dir) {
      const { fdir } = await import('fdir')
      const skipGit = (name) => name === '.git'
      if (q.type === 'dir') {
        // onlyDirs() also lists the root itself ('.' or ''): dropped.
        return async () =>
          (await new fdir({ excludeSymlinks: true }).withRelativePaths().onlyDirs().exclude(skipGit).crawl(dir).withPromise())
            .filter((p) => p !== '.' && p !== '' && p !== './')
      }
      return () =>
        new fdir({ excludeSymlinks: true }).withRelativePaths().exclude(skipGit).globWithOptions([q.glob], { dot: true }).crawl(dir).withPromise()
    },
  },
  tinyglobby: {
    supports: (q) => (q.gitignore ? 'no .gitignore support' : q.recent ? 'no stat/sort' : true),
    async prepare(q, dir) {
      const { glob } = await import('tinyglobby')
      const options = {
        cwd: dir,
        dot: true,
        ignore: ['**/.git'],
        followSymbolicLinks: false,
        expandDirectories: false,
        onlyFiles: q.type === 'file',
        onlyDirectories: q.type === 'dir',
      }
      return () => glob([q.glob], options)
    },
  },
  glob: {
    supports: (q) => !q.gitignore || 'no .gitignore support',
    async prepare(q, dir) {
      const { glob } = await import('glob')
      const ignore = { ignored: (p) => p.name === '.git', childrenIgnored: (p) => p.name === '.git' }
      const base = { cwd: dir, dot: true, follow: false, ignore }
      if (q.recent) {
        const options = { ...base, nodir: true, stat: true, withFileTypes: true }
        return async () =>
          recentFirst(
            // nodir keeps symlinks (node_modules/.bin/*); agent-find's type 'file' is regular files only.
            (await glob(q.glob, options)).filter((p) => p.isFile()).map((p) => ({ path: p.relativePosix(), mtimeMs: p.mtimeMs })),
            q.recent,
          )
      }
      if (q.type === 'dir') {
        // `**/` lists folders only; the root itself comes back as '' or '.': dropped.
        return async () => (await glob('**/', base)).filter((p) => p !== '' && p !== '.')
      }
      return () => glob(q.glob, { ...base, nodir: true })
    },
  },
  globby: {
    supports: (q) => (!q.gitignore ? 'run only with gitignore (without it, it is fast-glob)' : q.recent ? 'no sort' : true),
    async prepare(q, dir) {
      const { globby } = await import('globby')
      const options = {
        cwd: dir,
        dot: true,
        gitignore: true,
        ignore: ['**/.git'],
        followSymbolicLinks: false,
        onlyFiles: q.type === 'file',
        onlyDirectories: q.type === 'dir',
      }
      return () => globby(q.glob, options)
    },
  },
}

/**
 * Not a tool: the event-loop gap this machine shows when nothing blocks the
 * loop but every core is busy (one spinning worker thread per core, as a
 * parallel walk keeps them), so a gap can be told from scheduling noise.
 */
export const CALIBRATION = {
  supports: () => true,
  async prepare(q) {
    const { Worker } = await import('node:worker_threads')
    const n = os.availableParallelism ? os.availableParallelism() : os.cpus().length
    const code = `const t = Date.now(); while (Date.now() - t < ${q.spinMs});`
    return () =>
      new Promise((resolve) => {
        let left = n
        for (let i = 0; i < n; i++) new Worker(code, { eval: true }).on('exit', () => --left === 0 && resolve([]))
      })
  },
}

// ---------------------------------------------------------------- processes

function cliArgs(q) {
  const args = [CLI, q.glob, '.', '--type', q.type, '--max-bytes', String(BIG)]
  if (!q.gitignore) args.push('--no-gitignore')
  if (q.recent) args.push('--sort', 'recent', '--limit', String(q.recent))
  else args.push('--sort', 'none', '--limit', '1000000000', '--max-limit', 'Infinity')
  return args
}

/** Each process tool: `supports(q)`, `command(q, dir)` → [file, args, cwd], `parse(stdout, q)` → paths. */
export const PROCESSES = {
  fd: {
    supports: (q) => !q.recent || 'cannot sort by mtime',
    command(q, dir) {
      const args = ['--type', q.type === 'dir' ? 'd' : 'f', '--hidden', '--exclude', '.git', '--color', 'never']
      if (!q.gitignore) args.push('--no-ignore')
      if (q.exts) args.push('--glob', q.exts.length === 1 ? `*.${q.exts[0]}` : `*.{${q.exts.join(',')}}`)
      return ['fdfind', args, dir]
    },
    parse: (out) => lines(out),
  },
  rg: {
    supports: (q) => (q.recent ? 'cannot sort by mtime' : q.type === 'dir' ? 'lists files only' : true),
    command(q, dir) {
      // A type filter, not -g: rg's -g globs override .gitignore (a gitignored
      // file that matches -g is listed), types apply after the ignore rules.
      const args = ['--files', '--hidden', '-g', '!.git', ...q.exts.flatMap((e) => ['--type-add', `bench:*.${e}`]), '-t', 'bench']
      if (!q.gitignore) args.push('--no-ignore')
      return ['rg', args, dir]
    },
    parse: (out) => lines(out),
  },
  'agent-find CLI': {
    supports: () => true,
    command: (q, dir) => [process.execPath, cliArgs(q), dir],
    parse(out, q) {
      // The model text: a header line, then one path a line (folders end in
      // '/'), then a notice when cut by `limit`; 'No files matched.' when empty.
      const all = lines(out).slice(1)
      if (all[0] === 'No files matched.') return []
      return q.recent ? all.slice(0, q.recent) : all
    },
  },
}

function lines(out) {
  return out.split('\n').filter(Boolean)
}

const normalize = (p) => {
  let s = p.startsWith('./') ? p.slice(2) : p
  if (s.endsWith('/')) s = s.slice(0, -1)
  return s
}

/** Count, order-insensitive hash (order-sensitive for `recent`), and the list itself. */
export function digest(paths, q) {
  const list = paths.map(normalize)
  if (!q.recent) list.sort()
  const hash = crypto.createHash('sha1').update(list.join('\n')).digest('hex').slice(0, 12)
  return { count: list.length, hash, list }
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0)

let aptUpdated = false
/**
 * Makes sure `bin` runs; installs the Debian package `pkg` (apt-get, as
 * root) when it does not. False, said through `log`, when it cannot.
 */
export function ensureTool(bin, pkg, log) {
  const works = () => spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0
  if (works()) return true
  if (!(process.getuid && process.getuid() === 0)) {
    log(`${bin} is missing and this is not root: apt-get install -y ${pkg}, then run again; its rows are left out`)
    return false
  }
  log(`installing ${pkg} (apt-get)...`)
  if (!aptUpdated) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore' })
    aptUpdated = true
  }
  spawnSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  if (works()) return true
  log(`could not install ${pkg}; its rows are left out`)
  return false
}

/**
 * fff's `FileFinder` and version, from the devDependency (`npm ci` installs
 * it), or why it cannot be used here.
 */
export async function loadFff() {
  try {
    const { FileFinder } = await import('@ff-labs/fff-node')
    if (typeof FileFinder.isAvailable === 'function' && !FileFinder.isAvailable()) return { why: 'its native library is not available on this platform' }
    const { version } = JSON.parse(fs.readFileSync(path.join(repo, 'node_modules', '@ff-labs', 'fff-node', 'package.json'), 'utf8'))
    return { FileFinder, version }
  } catch (e) {
    return { why: `@ff-labs/fff-node does not load (${String(e.message).split('\n')[0]}): run \`npm ci\`` }
  }
}

export function median(xs) {
  if (!xs.length) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

// ---------------------------------------------------------------- running

/** Runs an in-process tool in a child node process; see the file header. */
export function runInChild(tool, q, dir, { runs, budgetMs, dumpFile }) {
  const spec = JSON.stringify({ tool, q, dir, runs, budgetMs, dumpFile })
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', spec], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    cwd: repo,
  })
  const line = r.stdout.trim().split('\n').pop()
  try {
    return JSON.parse(line)
  } catch {
    return { error: `child failed (status ${r.status}): ${(r.stderr || '').trim().split('\n').slice(-3).join(' ')}` }
  }
}

const DEV_NULL = fs.openSync('/dev/null', 'w')

/** Times a process `runs` times (stdout to /dev/null) after one piped run that gives its answer and peak RSS. */
export function runProcess(tool, q, dir, { runs, budgetMs, dumpFile }) {
  const t = PROCESSES[tool]
  const [file, args, cwd] = t.command(q, dir)
  const rssFile = path.join(DUMP_DIR, 'time.out')
  fs.mkdirSync(DUMP_DIR, { recursive: true })
  const t0 = performance.now()
  const first = spawnSync('/usr/bin/time', ['-f', '%M', '-o', rssFile, file, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 30 })
  const firstMs = performance.now() - t0
  if (first.status !== 0 && !(tool === 'rg' && first.status === 1)) return { error: `${tool} exited ${first.status}: ${(first.stderr || '').trim().slice(0, 200)}` }
  const { count, hash, list } = digest(t.parse(first.stdout, q), q)
  if (dumpFile) fs.writeFileSync(dumpFile, list.join('\n'))
  const rssMB = Number(fs.readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024
  const times = []
  while (times.length < runs && firstMs <= budgetMs && sum(times) < budgetMs) {
    const t1 = performance.now()
    spawnSync(file, args, { cwd, stdio: ['ignore', DEV_NULL, 'ignore'] })
    times.push(performance.now() - t1)
  }
  return { count, hash, ms: times.length ? median(times) : firstMs, times, firstMs, rssMB }
}

/** Builds bench/floor (both floors: `FLOOR_BIN`, `COUNT_FLOOR_BIN`); throws if cargo fails. */
export function buildFloors(log) {
  log('building the floors (cargo build --release --manifest-path bench/floor/Cargo.toml)...')
  execFileSync('cargo', ['build', '--release', '--quiet', '--manifest-path', path.join(here, 'floor', 'Cargo.toml')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
}

/** The floor: counts of the whole tree, timed like a process. */
export function runFloor(dir, runs) {
  const first = spawnSync(FLOOR_BIN, [dir], { encoding: 'utf8' })
  if (first.status !== 0) return { error: `floor exited ${first.status}` }
  const [files, dirs, other] = first.stdout.trim().split(/\s+/).map(Number)
  const times = []
  for (let i = 0; i < runs; i++) {
    const t1 = performance.now()
    spawnSync(FLOOR_BIN, [dir], { stdio: ['ignore', DEV_NULL, 'ignore'] })
    times.push(performance.now() - t1)
  }
  return { files, dirs, other, ms: median(times), times }
}

// ---------------------------------------------------------------- the child

async function child(spec) {
  const { tool, q, dir, runs, budgetMs, dumpFile } = JSON.parse(spec)
  const call = await (tool === 'calibration' ? CALIBRATION : IN_PROCESS[tool]).prepare(q, dir)
  const gc = globalThis.gc || (() => {})
  gc()
  let last = performance.now()
  let worst = 0
  let active = false
  const timer = setInterval(() => {
    const now = performance.now()
    if (active) worst = Math.max(worst, now - last)
    last = now
  }, 1)
  const measured = async () => {
    await new Promise((resolve) => setTimeout(resolve, 2))
    last = performance.now()
    active = true
    const t0 = performance.now()
    const result = await call()
    const t1 = performance.now()
    worst = Math.max(worst, t1 - last)
    active = false
    return [result, t1 - t0]
  }
  const rss0 = process.resourceUsage().maxRSS
  const [result, firstMs] = await measured()
  const rss1 = process.resourceUsage().maxRSS
  const { count, hash, list } = digest(result, q)
  if (dumpFile) fs.writeFileSync(dumpFile, list.join('\n'))
  // Timed runs until `runs` or `budgetMs` is used up; a tool whose first call
  // alone took longer than the budget is reported by that call.
  const times = []
  while (times.length < runs && firstMs <= budgetMs && sum(times) < budgetMs) {
    gc()
    times.push((await measured())[1])
  }
  clearInterval(timer)
  const ms = times.length ? median(times) : firstMs
  process.stdout.write(`${JSON.stringify({ count, hash, ms, times, firstMs, rssGrowthMB: (rss1 - rss0) / 1024, worstGapMs: worst })}\n`)
}

// Only as the child `runInChild` starts: a script that imports this module
// and runs its own `--child` processes must not start this one's.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--child') {
  child(process.argv[3]).catch((err) => {
    process.stderr.write(`${err && err.stack ? err.stack : err}\n`)
    process.exit(1)
  })
}
