// Content search from a live index against a fresh `searchFiles` on the
// same tree, in this process, interleaved so load hits both. The tree is
// real JavaScript: the project's own node_modules (npm ci brings it), or
// BENCH_CONTENT_TREE. Both answers are compared: a speed-up that changes an
// answer is a bug. Prints markdown on stdout, progress on stderr.
//
//   node bench/index-content.mjs            (npm run bench:index-content)
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { searchFiles, findFiles, openIndex } = require('../index.js')

const here = path.dirname(fileURLToPath(import.meta.url))
const tree = process.env.BENCH_CONTENT_TREE || path.join(here, '..', 'node_modules')
const RUNS = Number(process.env.BENCH_RUNS || 9)
const QUERIES = [
  ['rare literal (in 9 files of node_modules)', { pattern: 'deadlock' }],
  ['no match', { pattern: 'zq9xk_never_written_anywhere' }],
  ['common word `function`', { pattern: 'function' }],
  ['alternation `(require|import)\\(`', { pattern: '(require|import)\\(' }],
  ['case-insensitive `todo`', { pattern: 'todo', ignoreCase: true }],
]

const log = (msg) => process.stderr.write(`[index-content] ${msg}\n`)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
async function timed(fn) {
  const t = performance.now()
  const value = await fn()
  return [performance.now() - t, value]
}

if (!fs.existsSync(tree)) throw new Error(`no tree at ${tree}: run npm ci first, or set BENCH_CONTENT_TREE`)
const files = (await findFiles('**/*', { cwd: tree, gitignore: false })).length
log(`tree ${tree}: ${files} files; opening the index...`)
const [openMs, index] = await timed(() => openIndex(tree))
await index.settled()
const rows = []
for (const [label, query] of QUERIES) {
  const options = { ...query, path: tree, noIgnore: true, maxResults: 50 }
  const times = { fresh: [], index: [] }
  let answers = {}
  for (let i = 0; i < RUNS; i++) {
    for (const which of i % 2 ? ['index', 'fresh'] : ['fresh', 'index']) {
      const [ms, r] = await timed(() => (which === 'index' ? index.searchFiles(options) : searchFiles(options)))
      times[which].push(ms)
      answers[which] = r
    }
  }
  const same = JSON.stringify(answers.fresh) === JSON.stringify(answers.index)
  const f = median(times.fresh)
  const x = median(times.index)
  rows.push(`| ${label} | ${answers.fresh.matchCount} | ${f.toFixed(1)} | ${x.toFixed(1)} | ${(x / f).toFixed(2)} | ${same ? 'yes' : '**no**'} |`)
  log(`${label}: fresh ${f.toFixed(1)} ms, index ${x.toFixed(1)} ms${same ? '' : ' (ANSWERS DIFFER)'}`)
}
await index.close()
console.log(`\n${files} files (${tree}); index opened in ${openMs.toFixed(0)} ms; median of ${RUNS} runs each, load ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}\n`)
console.log('| query | matchCount | fresh ms | index ms | index/fresh | same answer |')
console.log('| --- | ---: | ---: | ---: | ---: | --- |')
console.log(rows.join('\n'))
