// Repeated content search: `index.searchFiles` (a live index) against a fresh
// `searchFiles` and fff's `grep` (first page), on the same real-JavaScript
// trees, in one run. Every indexed answer is checked equal (deepStrictEqual)
// to the fresh answer of the same round: a speed-up that changes an answer is
// a bug. Also the worst event-loop gap during the indexed searches, and the
// memory of the index and its content layer. See bench/README.md
// ("Content search from the index") for the method.
//
//   npm run bench:index-content                  # nm, gen-100k-js, gen-200k-js: writes bench/RESULTS.md's section
//   BENCH_QUICK=1 npm run bench:index-content    # gen-10k-js, 3 runs: bench/.trees/RESULTS-index-content-quick.md
//   BENCH_CONTENT_TREES=nm,gen-200k-js npm run bench:index-content   # these trees only (a partial file)
//   BENCH_CONTENT_TREE=/some/dir npm run bench:index-content         # any folder (rare count not asserted)
//   BENCH_RUNS=9                                 # repeated runs per query (default 5; quick 3)
//   node bench/index-content.mjs --report        # the last run's tables again (bench/.trees/index-content-last.json)
//
// Each tree runs in its own child `node --expose-gc` (so its RSS is its own);
// the parent builds the trees (bench/trees.mjs, bench/content-trees.mjs),
// prints markdown on stdout, progress on stderr.
import assert from 'node:assert'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { RARE, ensureContentTree, walk } from './content-trees.mjs'
import { loadFff, median } from './peers.mjs'
import { TREES_DIR, ensureFixture } from './trees.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const QUICK = process.env.BENCH_QUICK === '1'
const RUNS = Number(process.env.BENCH_RUNS || (QUICK ? 3 : 5))
const MAX_RARE_FILES = 10

/**
 * The queries. `fff` is the same search in fff's grep: its default smartCase
 * makes an all-lowercase query case-insensitive, so it is off except for the
 * case-insensitive row. `target`: the largest index/fresh time ratio that meets
 * the goal; `beatFff`: the index must also be faster than fff's first page.
 */
const QUERIES = [
  { id: 'rare', label: `rare literal \`${RARE}\``, query: { pattern: RARE }, fff: { mode: 'plain', smartCase: false }, target: 1 / 30, beatFff: true },
  { id: 'none', label: 'no match', query: { pattern: 'zq9xk_never_written_anywhere' }, fff: { mode: 'plain', smartCase: false }, target: 1 / 30, beatFff: true },
  { id: 'common', label: 'common word `function`', query: { pattern: 'function' }, fff: { mode: 'plain', smartCase: false }, target: 1 / 5 },
  { id: 'alt', label: 'alternation `(require|import)\\(`', query: { pattern: '(require|import)\\(' }, fff: { mode: 'regex', smartCase: false } },
  { id: 'ci', label: 'case-insensitive `todo`', query: { pattern: 'todo', ignoreCase: true }, fff: { mode: 'plain', smartCase: true } },
]

const log = (msg) => process.stderr.write(`[index-content] ${msg}\n`)
const mb = (bytes) => (bytes / 1048576).toFixed(1)

// ---------------------------------------------------------------- fff


// ---------------------------------------------------------------- child: one tree

/** Runs `fn` under a 1 ms setInterval: its time, its value, and the worst gap between two ticks (minus the 1 ms). */
async function measured(fn) {
  let last = performance.now()
  let gap = 0
  const timer = setInterval(() => {
    const now = performance.now()
    gap = Math.max(gap, now - last - 1)
    last = now
  }, 1)
  const start = performance.now()
  const value = await fn()
  const ms = performance.now() - start
  gap = Math.max(gap, performance.now() - last - 1)
  clearInterval(timer)
  return { ms, value, gap }
}

function rss() {
  globalThis.gc?.()
  return process.memoryUsage().rss
}

async function child(dir, checkRare) {
  const { searchFiles, openIndex } = require('../index.js')
  const out = { queries: {}, mismatches: [] }
  const same = (id, fresh, indexed, when) => {
    try {
      assert.deepStrictEqual(indexed, fresh)
    } catch (e) {
      out.mismatches.push(`${id} (${when}): ${e.message.split('\n').slice(0, 6).join(' ')}`)
    }
  }
  const optionsOf = (q) => ({ ...q.query, path: dir, noIgnore: true, maxResults: 50 })

  // Page cache: every file read once before anything is timed.
  await searchFiles(optionsOf(QUERIES[1]))
  // Calibration: the worst gap of a loop with nothing to do, for 2 s (what the machine's load alone does).
  out.idleGap = (await measured(() => new Promise((resolve) => setTimeout(resolve, 2000)))).gap
  out.rssStart = rss()
  const opened = await measured(async () => {
    const index = await openIndex(dir)
    await index.settled()
    return index
  })
  const index = opened.value
  out.openMs = opened.ms
  out.rssOpen = rss()
  out.statsOpen = index.stats()

  // First (cold) run of each query through the index, after a fresh one.
  for (const q of QUERIES) {
    const fresh = await measured(() => searchFiles(optionsOf(q)))
    const first = await measured(() => index.searchFiles(optionsOf(q)))
    same(q.id, fresh.value, first.value, 'first run')
    const r = fresh.value
    const files = new Set(r.matches.map((m) => m.file)).size
    out.queries[q.id] = { matchCount: r.matchCount, files, truncated: r.truncated, fresh: [fresh.ms], freshGap: [fresh.gap], first: first.ms, firstGap: first.gap, index: [], indexGap: [], fff: [] }
    if (q.id === 'rare' && checkRare && (r.truncated || files > MAX_RARE_FILES || files === 0)) {
      throw new Error(`the rare literal "${RARE}" is in ${files} files here${r.truncated ? ' (truncated)' : ''}, not 1-${MAX_RARE_FILES}: pick another`)
    }
    if (q === QUERIES[0]) {
      out.rssFirstSearch = rss()
      out.statsFirstSearch = index.stats()
    }
  }
  out.rssFirstRuns = rss()
  out.statsFirstRuns = index.stats()

  // Repeated runs, fresh and indexed interleaved (the order alternates), so load hits both alike.
  for (let round = 0; round < RUNS; round++) {
    for (const q of QUERIES) {
      const s = out.queries[q.id]
      let fresh
      let indexed
      for (const tool of round % 2 ? ['index', 'fresh'] : ['fresh', 'index']) {
        if (tool === 'fresh') {
          const m = await measured(() => searchFiles(optionsOf(q)))
          fresh = m.value
          s.fresh.push(m.ms)
          s.freshGap.push(m.gap)
        } else {
          const m = await measured(() => index.searchFiles(optionsOf(q)))
          indexed = m.value
          s.index.push(m.ms)
          s.indexGap.push(m.gap)
        }
      }
      same(q.id, fresh, indexed, `round ${round + 1}`)
    }
    log(`round ${round + 1}/${RUNS} done`)
  }
  out.statsEnd = index.stats()
  out.rssEnd = rss()

  // fff, only now: interleaved with agent-find's calls, its threads (scan,
  // warm-up, watcher) and its answers in the same heap made those calls'
  // loop gaps larger (a fresh `function`: 0.55-1.56 s interleaved, 10-92 ms
  // after, on the same loaded machine), and the RSS above is agent-find's
  // alone. The index stays open meanwhile.
  const fff = await loadFff()
  if (fff.why) log(`fff left out: ${fff.why}`)
  else {
    const before = rss()
    const t = performance.now()
    const created = fff.FileFinder.create({ basePath: dir })
    if (!created.ok) throw new Error(`fff: ${created.error}`)
    const finder = created.value
    const scanned = await finder.waitForScan(600_000)
    if (!scanned.ok || !scanned.value) throw new Error(`fff: the scan did not finish: ${scanned.error ?? 'timeout'}`)
    const ready = await finder.waitForIndexReady(600_000)
    out.fff = { version: fff.version, readyMs: performance.now() - t, ready: ready.ok && ready.value, rssGrowth: rss() - before }
    for (let round = 0; round < RUNS; round++) {
      for (const q of QUERIES) {
        const started = performance.now()
        const r = finder.grep(q.query.pattern, { ...q.fff, pageSize: 50 })
        const ms = performance.now() - started
        if (!r.ok) throw new Error(`fff grep ${q.label}: ${r.error}`)
        if (r.value.regexFallbackError) throw new Error(`fff grep ${q.label} fell back to a literal: ${r.value.regexFallbackError}`)
        const s = out.queries[q.id]
        s.fff.push(ms)
        s.fffItems = r.value.items.length
        s.fffFiles = r.value.totalFiles
        s.fffMore = r.value.nextCursor !== null
      }
    }
    finder.destroy()
  }
  await index.close()
  out.load = os.loadavg()
  out.date = new Date().toISOString().slice(0, 10)
  process.stdout.write(`${JSON.stringify(out)}\n`)
}

// ---------------------------------------------------------------- parent

/** The trees of this run: [{ name, dir, files, checkRare, source }]. */
function trees() {
  if (process.env.BENCH_CONTENT_TREE) {
    const dir = path.resolve(process.env.BENCH_CONTENT_TREE)
    return [{ name: path.basename(dir), dir, files: walk(dir).files.length, checkRare: false, source: dir }]
  }
  const names = process.env.BENCH_CONTENT_TREES ? process.env.BENCH_CONTENT_TREES.split(',') : QUICK ? ['gen-10k-js'] : ['nm', 'gen-100k-js', 'gen-200k-js']
  return names.map((name) => {
    if (name === 'nm') {
      const { dir } = ensureFixture(log)
      return { name, dir, files: walk(dir).files.length, checkRare: true, source: 'the node_modules fixture as `npm ci` installs it (bench/fixture)' }
    }
    const m = /^gen-(\d+)k-js$/.exec(name)
    if (!m) throw new Error(`unknown tree ${name}: nm or gen-<N>k-js`)
    const built = ensureContentTree({ name: `gen-${m[1]}k`, files: Number(m[1]) * 1000 }, log)
    return { name, dir: built.dir, files: built.files, checkRare: true, source: `gen-${m[1]}k's layout, each file a hard link to a fixture file` }
  })
}

const f1 = (x) => (x === undefined ? 'n/a' : x.toFixed(1))
const ratio = (x) => (x < 0.1 ? `1/${(1 / x).toFixed(0)}` : x.toFixed(2))

function report(results) {
  const lines = []
  // Saved by each child, so that --report prints the run's own load and date.
  const done = results.filter((r) => r.out?.load)
  const load = done.map((r) => r.out.load.map((l) => l.toFixed(1)).join(' ')).join('; ') || 'n/a'
  const date = done[0]?.out.date ?? 'n/a'
  const fffVersion = results.find((r) => r.out?.fff)?.out.fff.version
  lines.push(`${date}, Node ${process.version}, ${os.availableParallelism?.() ?? os.cpus().length} cores, load (1, 5, 15 min) at the end of each tree ${load}; ` +
    `${RUNS} repeated runs per query (medians), fff ${fffVersion ? `\`@ff-labs/fff-node\` ${fffVersion}` : 'not available'}. ` +
    'agent-find runs with `noIgnore: true`, `maxResults: 50` (exact `matchCount`); fff\'s `grep` returns its first page (50 matches).')
  lines.push('', ...summary(results))
  for (const { tree, out, error } of results) {
    lines.push('', `### ${tree.name}: ${tree.files.toLocaleString('en')} files (${tree.source})`, '')
    if (error) {
      lines.push(`Failed: ${error}`)
      continue
    }
    const st = out.statsFirstRuns
    lines.push(`Index opened (and settled) in ${out.openMs.toFixed(0)} ms, ${out.statsOpen.entries.toLocaleString('en')} entries` +
      `; the loop idle for 2 s (calibration): worst gap ${f1(out.idleGap)} ms` +
      (out.fff ? `; fff scanned and warmed up in ${out.fff.readyMs.toFixed(0)} ms${out.fff.ready ? '' : ' (not ready: timed out)'}, ${out.queries.none.fffFiles?.toLocaleString('en') ?? 'n/a'} files.` : '.'), '')
    lines.push('| query | matchCount (files, when all listed) | fresh ms | index first ms | index repeated ms | fff first page ms | index/fresh (target) | index/fff (target) | worst gap, index ms | worst gap, fresh ms | same answer |')
    lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
    for (const q of QUERIES) {
      const s = out.queries[q.id]
      const fresh = median(s.fresh)
      const idx = median(s.index)
      const fff = s.fff.length ? median(s.fff) : undefined
      const r = idx / fresh
      const target = q.target ? ` (≤ 1/${Math.round(1 / q.target)}: ${r <= q.target ? 'met' : '**not met**'})` : ''
      const vsFff = fff === undefined ? 'n/a' : `${(idx / fff).toFixed(2)}${q.beatFff ? ` (< 1: ${idx < fff ? 'met' : '**not met**'})` : ''}`
      const gap = Math.max(s.firstGap, ...s.indexGap)
      const wrong = out.mismatches.some((m) => m.startsWith(`${q.id} `))
      const fffNote = fff === undefined ? '' : ` [${s.fffItems}${s.fffMore ? '+' : ''}]`
      lines.push(`| ${q.label} | ${s.matchCount.toLocaleString('en')}${s.truncated ? '' : ` (${s.files})`} | ${f1(fresh)} | ${f1(s.first)} | ${f1(idx)} | ${f1(fff)}${fffNote} | ${ratio(r)}${target} | ${vsFff} | ${f1(gap)} (${gap < 10 ? 'met' : '**not met**'}) | ${f1(Math.max(...s.freshGap))} | ${wrong ? '**no**' : `yes (${s.index.length + 1}/${s.index.length + 1})`} |`)
    }
    lines.push('')
    const perFile = (bytes, n) => (bytes === undefined ? 'n/a' : `${(bytes / n).toFixed(0)} B`)
    const contentBytes = out.statsEnd.contentBytes
    const contentFiles = out.statsEnd.contentFiles
    lines.push(`Memory: RSS ${mb(out.rssStart)} MB before the index, ${mb(out.rssOpen)} MB with it open (+${mb(out.rssOpen - out.rssStart)}), ` +
      `${mb(out.rssFirstSearch)} MB after its first content search (+${mb(out.rssFirstSearch - out.rssOpen)}), ` +
      `${mb(out.rssFirstRuns)} MB after one run of each query, ${mb(out.rssEnd)} MB after the repeated runs; ` +
      `\`stats().bytes\` ${mb(out.statsOpen.bytes)} MB open, ${mb(st.bytes)} MB after the first runs (${out.statsEnd.bytesPerEntry?.toFixed?.(0) ?? 'n/a'} B per entry); ` +
      `\`contentBytes\` ${contentBytes === undefined ? 'n/a' : `${mb(contentBytes)} MB`}, ` +
      `per indexed file ${perFile(contentBytes, contentFiles ?? tree.files)}${contentFiles === undefined ? '' : ` (${contentFiles.toLocaleString('en')} files in the content layer)`}` +
      (out.statsEnd.contentCacheBytes === undefined ? '' : `; \`contentCacheBytes\` ${mb(out.statsEnd.contentCacheBytes)} MB (${out.statsEnd.contentCacheFiles.toLocaleString('en')} files held)`) +
      (out.fff ? `; fff's scan and warm-up grew RSS by ${mb(out.fff.rssGrowth)} MB.` : '.'))
    if (out.mismatches.length) lines.push('', `**Answers differed** (${out.mismatches.length}): ${out.mismatches.slice(0, 3).join('; ')}`)
  }
  return lines.join('\n')
}

/** The targets, one row each, one column per tree. */
function summary(results) {
  const ok = results.filter((r) => r.out)
  const cell = (fn) => ok.map(({ tree, out }) => fn(out, tree)).join(' | ')
  const q = (out, id) => out.queries[id]
  const vsFresh = (id, target) => (out) => {
    const r = median(q(out, id).index) / median(q(out, id).fresh)
    return `${ratio(r)} (${r <= target ? 'met' : '**not met**'})`
  }
  const vsFff = (id) => (out) => {
    const s = q(out, id)
    if (!s.fff.length) return 'n/a'
    const r = median(s.index) / median(s.fff)
    return `${r.toFixed(1)}x fff's time (${r < 1 ? 'met' : '**not met**'})`
  }
  const gap = (out) => {
    const g = Math.max(...QUERIES.map((x) => Math.max(q(out, x.id).firstGap, ...q(out, x.id).indexGap)))
    return `${f1(g)} ms (${g < 10 ? 'met' : '**not met**'}; idle loop ${f1(out.idleGap)} ms)`
  }
  const cache = (out, tree) => {
    const { contentCacheBytes: b, contentCacheFiles: n } = out.statsEnd
    return b === undefined ? 'n/a (no content cache in this build)' : `${mb(b)} MB, ${n.toLocaleString('en')} of ${tree.files.toLocaleString('en')} files`
  }
  const content = (out, tree) => {
    const b = out.statsEnd.contentBytes
    return b === undefined ? 'n/a (no `contentBytes` in this build)' : `${(b / (out.statsEnd.contentFiles ?? tree.files)).toFixed(0)} B (${mb(b)} MB)`
  }
  return [
    `| target | ${ok.map(({ tree }) => `${tree.name} (${tree.files.toLocaleString('en')} files)`).join(' | ')} |`,
    `| --- | ${ok.map(() => '---').join(' | ')} |`,
    `| rare literal: index/fresh ≤ 1/30 | ${cell(vsFresh('rare', 1 / 30))} |`,
    `| rare literal: index faster than fff's first page | ${cell(vsFff('rare'))} |`,
    `| no match: index/fresh ≤ 1/30 | ${cell(vsFresh('none', 1 / 30))} |`,
    `| no match: index faster than fff's first page | ${cell(vsFff('none'))} |`,
    `| common word, exact matchCount: index/fresh ≤ 1/5 | ${cell(vsFresh('common', 1 / 5))} |`,
    `| event loop: worst gap during indexed searches < 10 ms | ${cell(gap)} |`,
    `| content layer: sketch bytes per indexed file (reported) | ${cell(content)} |`,
    `| content cache: file contents held in memory (default cap 256 MiB, smallest files first) | ${cell(cache)} |`,
    `| RSS with the index open, after its first content search (reported) | ${cell((out) => `${mb(out.rssFirstSearch)} MB (${mb(out.rssFirstSearch - out.rssStart)} MB over the process before the index)`)} |`,
    `| indexed answers equal to fresh ones | ${cell((out) => (out.mismatches.length ? `**${out.mismatches.length} differed**` : 'all'))} |`,
  ]
}

const START = '<!-- bench/index-content.mjs: start -->'
const END = '<!-- bench/index-content.mjs: end -->'

/** Replaces this bench's section of bench/RESULTS.md (between the markers), or appends it. */
function writeSection(file, body) {
  const section = `${START}\n## Content search from the index (\`npm run bench:index-content\`)\n\n${body}\n${END}\n`
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
  const a = text.indexOf(START)
  const b = text.indexOf(END)
  const next = a >= 0 && b > a ? text.slice(0, a) + section + text.slice(b + END.length + 1) : `${text}${text.endsWith('\n') || !text ? '' : '\n'}\n${section}`
  fs.writeFileSync(file, next)
}

async function parent() {
  const list = trees()
  const results = []
  for (const tree of list) {
    log(`${tree.name}: ${tree.files.toLocaleString('en')} files at ${tree.dir}`)
    const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', tree.dir, tree.checkRare ? '1' : '0'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 3_600_000,
      maxBuffer: 64 << 20,
    })
    const line = r.stdout.trim().split('\n').pop()
    if (r.status !== 0 || !line) results.push({ tree, error: `status ${r.status}${r.error ? `: ${r.error.message}` : ''}` })
    else results.push({ tree, out: JSON.parse(line) })
  }
  fs.writeFileSync(path.join(TREES_DIR, 'index-content-last.json'), `${JSON.stringify(results)}\n`)
  const body = report(results)
  console.log(body)
  const custom = process.env.BENCH_CONTENT_TREE || process.env.BENCH_CONTENT_TREES
  const file = QUICK ? path.join(TREES_DIR, 'RESULTS-index-content-quick.md') : custom ? path.join(TREES_DIR, 'RESULTS-index-content-partial.md') : path.join(here, 'RESULTS.md')
  writeSection(file, body)
  log(`wrote ${path.relative(process.cwd(), file)}`)
  if (results.some((r) => r.error || r.out.mismatches.length)) process.exitCode = 1
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4] === '1')
else if (process.argv[2] === '--report') console.log(report(JSON.parse(fs.readFileSync(path.join(TREES_DIR, 'index-content-last.json'), 'utf8'))))
else await parent()
