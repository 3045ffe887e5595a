// The live index: how much faster `index.find` answers than a
// fresh `find` on the same tree, what a change costs the next query, and
// what the index holds in memory per entry. On the generated trees of
// trees.mjs; each index is opened in this process, medians of several runs,
// fresh and indexed queries interleaved so load on the machine hits both.
// Prints markdown on stdout, progress on stderr.
//
//   node bench/index.mjs                gen-100k (speed) and gen-1m (memory)
//   BENCH_QUICK=1 node bench/index.mjs  gen-10k only, fewer runs
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

import { GENERATED, ensureGeneratedTree } from './trees.mjs'

const require = createRequire(import.meta.url)
const { find, openIndex } = require('../index.js')

const QUICK = process.env.BENCH_QUICK === '1'
const SPEED_TREE = QUICK ? 'gen-10k' : 'gen-100k'
const MEMORY_TREE = QUICK ? 'gen-10k' : 'gen-1m'
const RUNS = QUICK ? 5 : 21
const QUERIES = [
  ['`**/*.ts` (the defaults)', { pattern: '**/*.ts' }],
  ['`*.md`, top level', { pattern: '*.md' }],
  ['`**/*.json`, sorted by name', { pattern: '**/*.json', sortBy: 'name' }],
  ['largest 10 files', { pattern: '**/*', sortBy: 'size', reverse: true, limit: 10 }],
  ['`**/*`, gitignore off', { pattern: '**/*', gitignore: false }],
]

const started = performance.now()
const log = (msg) => process.stderr.write(`[index ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${msg}\n`)
const tree = (name) => ensureGeneratedTree(GENERATED.find((g) => g.name === name), log).dir
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (x, digits = 1) => x.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })

async function timed(fn) {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

async function speed() {
  const root = tree(SPEED_TREE)
  log(`${SPEED_TREE}: opening the index`)
  let index
  const openMs = await timed(async () => (index = await openIndex(root)))
  const rows = []
  for (const [name, q] of QUERIES) {
    const fresh = []
    const indexed = []
    assert(JSON.stringify(await index.find(q)) === JSON.stringify(await find({ ...q, cwd: root })), `${name}: the index answers differently`)
    for (let i = 0; i < RUNS; i++) {
      fresh.push(await timed(() => find({ ...q, cwd: root })))
      indexed.push(await timed(() => index.find(q)))
    }
    const [f, x] = [median(fresh), median(indexed)]
    rows.push(`| ${name} | ${fmt(f)} | ${fmt(x, 2)} | **${fmt(f / x)}x** |`)
    log(`${name}: fresh ${fmt(f)} ms, index ${fmt(x, 2)} ms`)
  }
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
  await index.close()
  return [
    `Tree \`${SPEED_TREE}\` (${stats.entries.toLocaleString('en')} entries): the index opened in ${fmt(openMs / 1000, 2)} s. ` +
      `Medians of ${RUNS} runs, fresh and indexed interleaved; each indexed answer was first checked equal to the fresh one.`,
    '',
    '| query | fresh `find` (ms) | `index.find` (ms) | faster |',
    '|---|---:|---:|---:|',
    ...rows,
    '',
    `The first \`**/*.ts\` query after a file was written (and \`settled()\`): ${fmt(median(afterChange), 2)} ms ` +
      '(the change drops the lists kept per rule set, so that query walks the tree in memory once).',
  ]
}

async function memory() {
  const root = tree(MEMORY_TREE)
  global.gc?.()
  const before = process.memoryUsage().rss
  log(`${MEMORY_TREE}: opening the index`)
  let index
  const openMs = await timed(async () => (index = await openIndex(root)))
  global.gc?.()
  const after = process.memoryUsage().rss
  const stats = index.stats()
  const times = []
  for (let i = 0; i < 5; i++) times.push(await timed(() => index.find({ pattern: '**/*.ts' })))
  const cached = index.stats().cachedBytes
  await index.close()
  return [
    `Tree \`${MEMORY_TREE}\`: ${stats.entries.toLocaleString('en')} entries, opened in ${fmt(openMs / 1000, 1)} s ` +
      `(one parallel walk, and a watch on each folder). The index's structures hold ${fmt(stats.bytes / 2 ** 20)} MiB: ` +
      `**${stats.bytesPerEntry} bytes per entry** (paths are never stored whole: one node per entry, names interned). ` +
      `The process grew by ${fmt((after - before) / 2 ** 20)} MiB of RSS (${Math.round((after - before) / stats.entries)} bytes per entry, ` +
      `allocator overhead and the build's transient buffers included). ` +
      `\`index.find({ pattern: '**/*.ts' })\` then takes ${fmt(median(times), 1)} ms; the list kept for its rule set ` +
      `adds ${fmt(cached / 2 ** 20)} MiB (${Math.round(cached / stats.entries)} bytes per entry) until the tree changes.`,
  ]
}

function assert(ok, message) {
  if (!ok) throw new Error(message)
}

const lines = ['### Speed', '', ...(await speed()), '', '### Memory', '', ...(await memory())]
process.stdout.write(lines.join('\n') + '\n')
