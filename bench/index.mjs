// The live index against a fresh `find` and against fff (`@ff-labs/fff-node`,
// a devDependency: the closest peer, a Node SDK with an index of its own), on
// the same trees in the same run:
//
// - Opening: `openIndex(dir)` until it resolves and until `settled()`, against
//   fff's `FileFinder.create` + `waitForScan` and until its watcher is ready;
//   the RSS each grew by, per entry it holds. Each open runs in its own child
//   `node --expose-gc`, the tools' rounds interleaved.
// - Queries, in this process, medians of interleaved runs: `index.find`
//   against a fresh `find`; `index.findFiles` and `index.find` against fff's
//   `glob` (every match, and a first page); name search, `index.searchFiles`
//   with `target: 'files'` and `index.find` with a glob on the name, against
//   fff's fuzzy `fileSearch`. fff's calls are synchronous (they hold the event
//   loop for their whole run); agent-find's are not.
//
// Prints markdown on stdout, progress on stderr.
//
//   node --expose-gc bench/index.mjs          gen-100k and nm (queries), gen-100k, gen-1m and nm (opening)
//   BENCH_QUICK=1 node bench/index.mjs        gen-10k only, fewer runs
//   INDEX_TREES=gen-100k,nm node bench/index.mjs   only these trees (opening and queries)
//   INDEX_ROUNDS=5                            open rounds per tool (default 3, quick 2)
//
// `nm` (a real node_modules, see trees.mjs) is used when it is installed
// (`npm run bench` installs it); it is never installed from here.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { loadFff } from './peers.mjs'
import { GENERATED, TREES_DIR, ensureGeneratedTree } from './trees.mjs'

const require = createRequire(import.meta.url)
const { find, openIndex } = require('../index.js')

const QUICK = process.env.BENCH_QUICK === '1'
const RUNS = QUICK ? 5 : 15
const ROUNDS = Number(process.env.INDEX_ROUNDS || (QUICK ? 2 : 3))
const BUDGET_MS = QUICK ? 5_000 : 20_000
const CHILD_TIMEOUT_MS = 900_000
const ALL = { hidden: false, sortBy: 'none', limit: Infinity, maxLimit: Infinity, maxBytes: 1e15 }

/** Queries against a fresh `find` (the defaults an agent calls with). */
const FRESH_QUERIES = [
  ['`**/*.ts` (the defaults)', { pattern: '**/*.ts' }],
  ['`*.md`, top level', { pattern: '*.md' }],
  ['`**/*.json`, sorted by name', { pattern: '**/*.json', sortBy: 'name' }],
  ['largest 10 files', { pattern: '**/*', sortBy: 'size', reverse: true, limit: 10 }],
  ['`**/*`, gitignore off', { pattern: '**/*', gitignore: false }],
]
/** Globs against fff's `glob` (which skips hidden files and applies `.gitignore`: so does agent-find here, `hidden: false`). */
const GLOBS = ['**/*.ts', '**/*.json', '**/*.md', '**/*']
/** Names against fff's `fileSearch`. */
const NAMES = ['index', 'config', 'util', 'button']

const started = performance.now()
const log = (msg) => process.stderr.write(`[index ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${msg}\n`)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (x, digits = 1) => x.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const int = (x) => Math.round(x).toLocaleString('en')
const mib = (bytes) => fmt(bytes / 2 ** 20)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

async function timed(fn) {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

/**
 * Times each of `calls` in turn, round after round: `RUNS` rounds, or fewer
 * (at least one) once a query's rounds took `BUDGET_MS`; the median of each.
 * A gc() before each call, so that one call's garbage is not collected in
 * the next one's time.
 */
async function interleaved(calls) {
  const times = Object.fromEntries(Object.keys(calls).map((k) => [k, []]))
  const t = performance.now()
  for (let i = 0; i < RUNS && (i < 1 || performance.now() - t < BUDGET_MS); i++) {
    for (const [k, call] of Object.entries(calls)) {
      global.gc?.()
      times[k].push(await timed(call))
    }
  }
  return { ...Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])), runs: times[Object.keys(calls)[0]].length }
}

function assert(ok, message) {
  if (!ok) throw new Error(message)
}

/** A finder on `dir`, scanned and with its watcher ready; the times of both. */
async function openFff(FileFinder, dir) {
  const t = performance.now()
  const created = FileFinder.create({ basePath: dir })
  if (!created.ok) throw new Error(`fff: ${created.error}`)
  const finder = created.value
  const scanned = await finder.waitForScan(CHILD_TIMEOUT_MS)
  if (!scanned.ok || !scanned.value) throw new Error(`fff: the scan did not finish: ${scanned.error ?? 'timeout'}`)
  const open = performance.now() - t
  const until = Date.now() + 120_000
  let progress
  while (!(progress = finder.getScanProgress().value)?.isWatcherReady) {
    if (Date.now() > until) throw new Error('fff: its watcher was not ready within 120 s')
    await sleep(5)
  }
  return { finder, open, ready: performance.now() - t, files: progress.scannedFilesCount }
}

// ---------------------------------------------------------------- opening (child)

async function openChild(tool, dir) {
  const fff = tool === 'fff' ? await loadFff() : null
  if (fff?.why) throw new Error(fff.why)
  global.gc?.()
  const rss0 = process.memoryUsage().rss
  const cpu0 = process.cpuUsage()
  let out
  if (tool === 'agent-find') {
    const t = performance.now()
    const index = await openIndex(dir)
    const open = performance.now() - t
    await index.settled()
    const ready = performance.now() - t
    const cpu = process.cpuUsage(cpu0)
    global.gc?.()
    const rss = process.memoryUsage().rss - rss0
    const stats = index.stats()
    const queryMs = await timed(() => index.find({ pattern: '**/*.ts' }))
    out = { open, ready, cpu: (cpu.user + cpu.system) / 1000, rss, entries: stats.entries, bytes: stats.bytes, cached: index.stats().cachedBytes, queryMs, watchErrors: stats.watchErrors }
    await index.close()
  } else {
    const { finder, open, ready, files } = await openFff(fff.FileFinder, dir)
    const cpu = process.cpuUsage(cpu0)
    global.gc?.()
    out = { open, ready, cpu: (cpu.user + cpu.system) / 1000, rss: process.memoryUsage().rss - rss0, entries: files }
    finder.destroy()
  }
  process.stdout.write(`${JSON.stringify(out)}\n`)
}

function runOpenChild(tool, dir) {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--open', tool, dir], { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS })
  const line = r.stdout?.trim().split('\n').pop()
  if (r.status !== 0 || !line) return { error: (r.stderr || r.error?.message || `status ${r.status ?? r.signal}`).trim().split('\n').slice(-2).join(' ') }
  return JSON.parse(line)
}

async function opening(name, dir) {
  const tools = ['agent-find', 'fff']
  const runs = { 'agent-find': [], fff: [] }
  const errors = {}
  for (let round = 0; round < ROUNDS; round++) {
    for (const tool of tools) {
      if (errors[tool]) continue
      const r = runOpenChild(tool, dir)
      if (r.error) errors[tool] = r.error
      else runs[tool].push(r)
      log(`${name} open ${round + 1}/${ROUNDS} ${tool}: ${r.error ? `error: ${r.error}` : `${fmt(r.open, 0)} ms, ready ${fmt(r.ready, 0)} ms, +${mib(r.rss)} MiB`}`)
    }
  }
  const m = (tool, key) => median(runs[tool].map((r) => r[key]))
  const fffOpen = runs.fff.length ? m('fff', 'open') : null
  const ratio = (x) => (fffOpen ? `**${fmt(x / fffOpen, 2)}x**` : '')
  const lines = [
    `| \`${name}\` | until | median ms | min ms | CPU ms | vs fff's open | entries held | RSS growth | RSS per entry |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ]
  const row = (label, until, tool, key) => {
    const rs = runs[tool]
    if (!rs.length) return lines.push(`| ${label} | ${until} | n/a: ${errors[tool]} | | | | | | |`)
    const entries = m(tool, 'entries')
    lines.push(
      `| ${label} | ${until} | ${fmt(m(tool, key), 0)} | ${fmt(Math.min(...rs.map((r) => r[key])), 0)} | ${key === 'open' ? '' : fmt(m(tool, 'cpu'), 0)} | ` +
        `${ratio(m(tool, key))} | ${int(entries)} | ${mib(m(tool, 'rss'))} MiB | ${int(m(tool, 'rss') / entries)} B |`,
    )
  }
  row('agent-find `openIndex`', 'resolved', 'agent-find', 'open')
  row('', '`settled()`', 'agent-find', 'ready')
  row('fff `FileFinder.create`', '`waitForScan`', 'fff', 'open')
  row('', 'watcher ready', 'fff', 'ready')
  const af = runs['agent-find']
  const notes = []
  if (af.length) {
    notes.push(
      `agent-find's structures: ${mib(m('agent-find', 'bytes'))} MiB, ${int(m('agent-find', 'bytes') / m('agent-find', 'entries'))} bytes per entry ` +
        `(\`stats().bytes\`); a first \`index.find({ pattern: '**/*.ts' })\` took ${fmt(m('agent-find', 'queryMs'), 1)} ms and its list kept for that rule set ` +
        `adds ${int(m('agent-find', 'cached') / m('agent-find', 'entries'))} bytes per entry until the tree changes. watchErrors: ${m('agent-find', 'watchErrors')}.`,
    )
  }
  return { lines, notes, ratio: fffOpen && af.length ? m('agent-find', 'open') / fffOpen : null }
}

// ---------------------------------------------------------------- queries (this process)

/** `index.find` against a fresh `find`, the defaults an agent calls with. */
async function freshQueries(root, index) {
  const rows = ['| query | fresh `find` (ms) | `index.find` (ms) | faster |', '|---|---:|---:|---:|']
  for (const [name, q] of FRESH_QUERIES) {
    assert(JSON.stringify(await index.find(q)) === JSON.stringify(await find({ ...q, cwd: root })), `${name}: the index answers differently`)
    const m = await interleaved({ fresh: () => find({ ...q, cwd: root }), index: () => index.find(q) })
    const [f, x] = [m.fresh, m.index]
    rows.push(`| ${name} | ${fmt(f)} | ${fmt(x, 2)} | **${fmt(f / x)}x** |`)
    log(`${name}: fresh ${fmt(f)} ms, index ${fmt(x, 2)} ms`)
  }
  return rows
}

/** Globs: every match, and a first page of 100, against fff's `glob`. */
async function globQueries(root, index, finder) {
  const rows = [
    '| glob (`hidden: false`) | matches | `index.findFiles` | `index.find` every match | fff `glob` every match | fff / `findFiles` | `index.find` `limit: 100` | fff `glob` first 100 | fff / `index.find` |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ]
  let worst = Infinity
  for (const pattern of GLOBS) {
    const ours = await index.findFiles(pattern, { hidden: false })
    // A page as large as the answer: a larger one costs fff more.
    const first = finder.glob(pattern, { pageSize: 100 })
    if (!first.ok) throw new Error(`fff glob ${pattern}: ${first.error}`)
    const pageSize = Math.max(1, first.value.totalMatched)
    const theirs = finder.glob(pattern, { pageSize })
    const counts = ours.length === theirs.value.items.length ? int(ours.length) : `${int(ours.length)} / fff ${int(theirs.value.items.length)}`
    const m = await interleaved({
      files: () => index.findFiles(pattern, { hidden: false }),
      fffAll: () => finder.glob(pattern, { pageSize }),
      all: () => index.find({ pattern, ...ALL }),
      page: () => index.find({ pattern, ...ALL, limit: 100 }),
      fffPage: () => finder.glob(pattern, { pageSize: 100 }),
    })
    worst = Math.min(worst, m.fffAll / m.files, m.fffPage / m.page)
    rows.push(
      `| \`${pattern}\` | ${counts} | ${fmt(m.files, 2)} | ${fmt(m.all, 2)} | ${fmt(m.fffAll, 2)} | **${fmt(m.fffAll / m.files)}x** | ` +
        `${fmt(m.page, 2)} | ${fmt(m.fffPage, 2)} | **${fmt(m.fffPage / m.page)}x** |`,
    )
    log(`glob ${pattern}: findFiles ${fmt(m.files, 2)} ms, fff ${fmt(m.fffAll, 2)} ms; first 100: ${fmt(m.page, 2)} vs ${fmt(m.fffPage, 2)} ms (${m.runs} runs)`)
  }
  return { rows, worst }
}

/** Name search: fff's fuzzy `fileSearch` against agent-find's name matches. */
async function nameQueries(index, finder) {
  const rows = [
    '| name | fff `fileSearch` (first 50) | `index.searchFiles` `target: \'files\'` (first 50) | `index.find` `**/*name*` (defaults) | fff / `searchFiles` | fff / `index.find` |',
    '|---|---:|---:|---:|---:|---:|',
  ]
  const worst = { find: Infinity, search: Infinity }
  for (const word of NAMES) {
    const fuzzy = finder.fileSearch(word, { pageSize: 50 })
    if (!fuzzy.ok) throw new Error(`fff fileSearch ${word}: ${fuzzy.error}`)
    const named = await index.searchFiles({ pattern: word, target: 'files', maxResults: 50 })
    const globbed = await index.find({ pattern: `**/*${word}*` })
    const m = await interleaved({
      fff: () => finder.fileSearch(word, { pageSize: 50 }),
      search: () => index.searchFiles({ pattern: word, target: 'files', maxResults: 50 }),
      find: () => index.find({ pattern: `**/*${word}*` }),
    })
    worst.find = Math.min(worst.find, m.fff / m.find)
    worst.search = Math.min(worst.search, m.fff / m.search)
    const total = named.truncated ? `${named.files.length}+` : String(named.files.length)
    rows.push(
      `| \`${word}\` | ${fmt(m.fff, 2)} ms (of ${int(fuzzy.value.totalMatched)}) | ${fmt(m.search, 2)} ms (${total}) | ` +
        `${fmt(m.find, 2)} ms (${int(globbed.entries.length)}${globbed.truncated ? '+' : ''}) | **${fmt(m.fff / m.search)}x** | **${fmt(m.fff / m.find)}x** |`,
    )
    log(`name ${word}: fff ${fmt(m.fff, 2)} ms, searchFiles ${fmt(m.search, 2)} ms, find ${fmt(m.find, 2)} ms`)
  }
  return { rows, worst }
}

async function queries(name, root) {
  log(`${name}: opening the index and fff for the queries`)
  let index
  const openMs = await timed(async () => (index = await openIndex(root)))
  await index.settled()
  const lines = [`#### \`${name}\``, '']
  const fresh = await freshQueries(root, index)
  // After a change: the event is applied, and the next query redoes the walk in memory once.
  const touched = path.join(root, 'agent-find-bench-touch.ts')
  const afterChange = []
  for (let i = 0; i < Math.min(RUNS, 7); i++) {
    fs.writeFileSync(touched, String(i))
    await index.settled()
    afterChange.push(await timed(() => index.find({ pattern: '**/*.ts' })))
  }
  fs.rmSync(touched, { force: true })
  await index.settled()
  const stats = index.stats()
  lines.push(
    `${int(stats.entries)} entries; this process opened the index in ${fmt(openMs / 1000, 2)} s. Against a fresh \`find\`, medians of up to ${RUNS} interleaved runs (fewer once a query's runs took ${BUDGET_MS / 1000} s, at least one), a gc() before each, each ` +
      'indexed answer first checked equal to the fresh one:',
    '',
    ...fresh,
    '',
    `The first \`**/*.ts\` query after a file was written (and \`settled()\`): ${fmt(median(afterChange), 2)} ms ` +
      '(the change drops the lists kept per rule set, so that query walks the tree in memory once).',
    '',
  )
  const fff = await loadFff()
  let worst = null
  if (fff.why) {
    lines.push(`fff: n/a (${fff.why}).`)
  } else {
    const { finder, open } = await openFff(fff.FileFinder, root)
    log(`${name}: fff scanned in ${fmt(open, 0)} ms`)
    const globs = await globQueries(root, index, finder)
    const names = await nameQueries(index, finder)
    finder.destroy()
    worst = { glob: globs.worst, find: names.worst.find, search: names.worst.search }
    lines.push(
      `Against fff, medians of up to ${RUNS} interleaved runs, as above (fff's calls are synchronous: each holds the event loop for its whole run):`,
      '',
      ...globs.rows,
      '',
      ...names.rows,
    )
  }
  await index.close()
  return { lines, worst }
}

// ---------------------------------------------------------------- parent

function trees() {
  const chosen = process.env.INDEX_TREES?.split(',').filter(Boolean)
  const nm = fs.existsSync(path.join(TREES_DIR, 'nm.stamp')) && fs.existsSync(path.join(TREES_DIR, 'nm', 'node_modules'))
  const dir = (name) => (name === 'nm' ? path.join(TREES_DIR, 'nm') : ensureGeneratedTree(GENERATED.find((g) => g.name === name), log).dir)
  const pick = (names) => names.filter((n) => n !== 'nm' || nm).map((n) => [n, dir(n)])
  if (chosen) {
    const unknown = chosen.filter((n) => n !== 'nm' && !GENERATED.some((g) => g.name === n))
    if (unknown.length) throw new Error(`INDEX_TREES: unknown tree ${unknown.join(', ')} (gen-10k, gen-100k, gen-1m, nm)`)
    if (chosen.includes('nm') && !nm) log('nm is not installed (npm run bench installs it): left out')
    return { open: pick(chosen), query: pick(chosen) }
  }
  if (QUICK) return { open: pick(['gen-10k']), query: pick(['gen-10k']) }
  return { open: pick(['gen-100k', 'gen-1m', 'nm']), query: pick(['gen-100k', 'nm']) }
}

async function parent() {
  const which = trees()
  const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ')
  const cores = os.availableParallelism ? os.availableParallelism() : os.cpus().length
  const head = `Node ${process.version}, ${cores} cores, load ${load()} at the start`
  const out = ['### Opening', '']
  const ratios = []
  for (const [name, dir] of which.open) {
    const { lines, notes, ratio } = await opening(name, dir)
    if (ratio !== null) ratios.push([name, ratio])
    out.push(...lines, '', ...notes, '')
  }
  out.push(`Medians of ${ROUNDS} rounds per tool, each open in its own child process, the tools interleaved.`, '')
  out.push('### Queries', '')
  const worst = []
  for (const [name, dir] of which.query) {
    const q = await queries(name, dir)
    if (q.worst !== null) worst.push([name, q.worst])
    out.push(...q.lines, '')
  }
  const summary = [
    `${head}, ${load()} at the end.`,
    ...ratios.map(([name, r]) => `- \`${name}\`: \`openIndex\` resolved in ${fmt(r, 2)}x fff's \`create\` + \`waitForScan\` (target: at most 1.5x).`),
    ...worst.map(
      ([name, w]) =>
        `- \`${name}\`: fff's time over agent-find's, the smallest of each kind of query (above 1: agent-find ahead): ` +
          `globs ${fmt(w.glob, 1)}x, names through \`index.find\` ${fmt(w.find, 1)}x, names through \`index.searchFiles\` ${fmt(w.search, 1)}x.`,
    ),
    '',
  ]
  process.stdout.write([...summary, ...out].join('\n') + '\n')
}

if (process.argv[2] === '--open') await openChild(process.argv[3], process.argv[4])
else await parent()
