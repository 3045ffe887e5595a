// Fuzzy file-name search latency: agent-find's `searchFiles({ target: 'files',
// fuzzy: true })` on a fresh walk and on a live index (repeated queries)
// against fff's `fileSearch` (`@ff-labs/fff-node`, its own in-memory index),
// on the same trees, with the same misspelled queries. Each tool returns its
// best 50. Also each tool's first file, to compare what a model would open.
//
//   npm run bench:fuzzy                          # gen-100k-js and nm
//   BENCH_FUZZY_TREES=nm npm run bench:fuzzy     # these trees only
//   BENCH_RUNS=9                                 # repeated runs per query (default 7)
//
// Markdown on stdout, progress on stderr. The trees come from
// bench/trees.mjs and bench/content-trees.mjs (built once under bench/.trees).
import { createRequire } from 'node:module'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { ensureContentTree, walk } from './content-trees.mjs'
import { loadFff, median } from './peers.mjs'
import { ensureFixture } from './trees.mjs'

const require = createRequire(import.meta.url)
const RUNS = Number(process.env.BENCH_RUNS || 7)
const log = (msg) => process.stderr.write(`[fuzzy] ${msg}\n`)

/** Misspelled names (a wrong, missing or extra letter), a fragment, and a subsequence. */
const QUERIES = ['indx.js', 'pakage.json', 'readme', 'typescropt.ts', 'utls.js', 'lodash/map', 'cmpnt']

function trees() {
  const names = process.env.BENCH_FUZZY_TREES ? process.env.BENCH_FUZZY_TREES.split(',') : ['gen-100k-js', 'nm']
  return names.map((name) => {
    if (name === 'nm') {
      const { dir } = ensureFixture(log)
      return { name, dir, files: walk(dir).files.length }
    }
    const m = /^gen-(\d+)k-js$/.exec(name)
    if (!m) throw new Error(`unknown tree ${name}: nm or gen-<N>k-js`)
    const built = ensureContentTree({ name: `gen-${m[1]}k`, files: Number(m[1]) * 1000 }, log)
    return { name, dir: built.dir, files: built.files }
  })
}

async function timed(fn) {
  const t = performance.now()
  const value = await fn()
  return { ms: performance.now() - t, value }
}

async function main() {
  const { searchFiles, openIndex } = require('../index.js')
  const fff = await loadFff()
  if (fff.why) log(`fff left out: ${fff.why}`)
  const out = []
  out.push(`${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.availableParallelism?.() ?? os.cpus().length} cores, ` +
    `${RUNS} runs per query (medians, ms)${fff.version ? `, fff \`@ff-labs/fff-node\` ${fff.version}` : ''}. ` +
    'agent-find: `searchFiles({ pattern, target: \'files\', fuzzy: true, noIgnore: true, maxResults: 50 })`; fff: `fileSearch(pattern, { pageSize: 50 })`.', '')
  for (const tree of trees()) {
    log(`${tree.name}: ${tree.files} files`)
    const options = (pattern) => ({ pattern, target: 'files', fuzzy: true, noIgnore: true, maxResults: 50 })
    await searchFiles({ ...options('warm'), path: tree.dir })
    const opened = await timed(async () => {
      const index = await openIndex(tree.dir)
      await index.settled()
      return index
    })
    const index = opened.value
    let finder
    let fffReady = NaN
    if (!fff.why) {
      const t = performance.now()
      const created = fff.FileFinder.create({ basePath: tree.dir })
      if (!created.ok) throw new Error(`fff: ${created.error}`)
      finder = created.value
      await finder.waitForScan(600_000)
      fffReady = performance.now() - t
    }
    const rows = []
    for (const q of QUERIES) {
      const s = { fresh: [], index: [], fff: [] }
      let freshTop
      let indexTop
      let fffTop
      let count
      for (let i = 0; i < RUNS; i++) {
        const f = await timed(() => searchFiles({ ...options(q), path: tree.dir }))
        s.fresh.push(f.ms)
        freshTop = f.value.files[0]
        count = f.value.matchCount
        const x = await timed(() => index.searchFiles(options(q)))
        s.index.push(x.ms)
        indexTop = x.value.files[0]
        if (JSON.stringify(x.value.files) !== JSON.stringify(f.value.files)) throw new Error(`${tree.name} ${q}: the index answered otherwise than the walk`)
        if (finder) {
          const t = performance.now()
          const r = finder.fileSearch(q, { pageSize: 50 })
          s.fff.push(performance.now() - t)
          if (!r.ok) throw new Error(`fff: ${r.error}`)
          fffTop = r.value.items[0]?.relativePath
        }
      }
      rows.push({ q, count, fresh: median(s.fresh), index: median(s.index), fff: median(s.fff), freshTop, indexTop, fffTop })
    }
    await index.close()
    finder?.destroy()
    out.push(`### ${tree.name}: ${tree.files.toLocaleString('en')} files`, '',
      `Index opened (and settled) in ${opened.ms.toFixed(0)} ms; fff scanned in ${fffReady.toFixed(0)} ms.`, '',
      '| query | matchCount | fresh walk ms | index ms | fff ms | index/fff | agent-find first | fff first |',
      '| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |')
    for (const r of rows) {
      out.push(`| \`${r.q}\` | ${r.count.toLocaleString('en')} | ${r.fresh.toFixed(1)} | ${r.index.toFixed(1)} | ${r.fff.toFixed(1)} | ${(r.index / r.fff).toFixed(2)} | \`${r.indexTop}\` | \`${r.fffTop}\` |`)
    }
    out.push('')
  }
  out.push(`Load at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}.`)
  process.stdout.write(`${out.join('\n')}\n`)
}

await main()
