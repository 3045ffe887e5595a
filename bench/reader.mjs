// Storage readers: what a StorageReader written in JS costs per
// listed folder against the local walk, on the generated trees of trees.mjs.
// `find({ pattern: '**/*.nothing', cwd })` (all defaults, so ignore files are
// read and the empty answer's hint walk runs) is timed locally, through
// mountReader over the same folder and through a memoryReader holding a copy
// of it; the extra time is divided by the `list` calls one find makes. Then a
// slow remote (memoryReader behind a 2 ms delay per `list`) at concurrency 1,
// 8 and 32 shows that the core keeps that many calls in flight.
// Prints markdown on stdout, progress on stderr.
//
//   node bench/reader.mjs            gen-10k and gen-100k
//   BENCH_QUICK=1 node bench/reader.mjs   gen-10k only, fewer runs
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'

import { GENERATED, ensureGeneratedTree } from './trees.mjs'

const require = createRequire(import.meta.url)
const { find, memoryReader, mountReader } = require('../index.js')

const QUICK = process.env.BENCH_QUICK === '1'
const TREES = QUICK ? ['gen-10k'] : ['gen-10k', 'gen-100k']
const RUNS = QUICK ? 3 : 7
const SLOW_TREE = 'gen-10k'
const SLOW_DELAY_MS = 2
const SLOW_RUNS = QUICK ? 1 : 3
const CONCURRENCY = [1, 8, 32]
const QUERY = { pattern: '**/*.nothing' }

const started = performance.now()
const log = (msg) => process.stderr.write(`[reader ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${msg}\n`)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a')

/**
 * The tree under `root` as a memoryReader tree, and its file and folder
 * counts. Of `.git` (never listed) only the folder is kept: it marks the
 * repository root.
 */
function snapshot(root) {
  const tree = new Map()
  let folders = 0
  let files = 0
  const visit = (dir, rel) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (rel === '' && entry.name === '.git') {
        tree.set('.git/', null)
        continue
      }
      const full = path.join(dir, entry.name)
      const key = rel ? `${rel}/${entry.name}` : entry.name
      const stats = fs.lstatSync(full)
      if (entry.isDirectory()) {
        folders++
        tree.set(`${key}/`, { type: 'dir', modifiedTime: stats.mtimeMs })
        visit(full, key)
      } else if (entry.isSymbolicLink()) {
        tree.set(key, { type: 'symlink', target: fs.readlinkSync(full) })
      } else if (entry.isFile()) {
        files++
        tree.set(key, { content: stats.size ? fs.readFileSync(full) : '', modifiedTime: stats.mtimeMs })
      }
    }
  }
  visit(root, '')
  return { tree, files, folders }
}

/** Median ms of `runs` calls of `fn`, after one untimed call. */
async function time(fn, runs) {
  await fn()
  const times = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn()
    times.push(performance.now() - t0)
  }
  return median(times)
}

/** `reader` with its `list` calls counted, each delayed by `delayMs`, and a `concurrency` when given. */
function counted(reader, { delayMs = 0, concurrency } = {}) {
  const wrapped = {
    lists: 0,
    async list(dir) {
      wrapped.lists++
      if (delayMs) await sleep(delayMs)
      return reader.list(dir)
    },
    stat: (p) => reader.stat(p),
    read: (p) => reader.read(p),
  }
  if (concurrency !== undefined) wrapped.concurrency = concurrency
  return wrapped
}

/** The same answer from every side, or the bench measures different work. */
function sameAnswer(a, b, what) {
  const key = (r) => JSON.stringify({ matched: r.matched, entries: r.entries, hint: r.hint })
  if (key(a) !== key(b)) throw new Error(`${what} answers differently from the local walk: ${key(b)} vs ${key(a)}`)
}

async function benchTree(name) {
  const { dir } = ensureGeneratedTree(GENERATED.find((g) => g.name === name), log)
  log(`${name}: copying the tree into memory`)
  const { tree, files, folders } = snapshot(dir)
  const memory = memoryReader(tree)
  const mount = mountReader({ '/tree': dir })
  const local = () => find({ ...QUERY, cwd: dir })
  const viaMount = () => find({ ...QUERY, reader: mount, cwd: '/tree' })
  const viaMemory = () => find({ ...QUERY, reader: memory, cwd: '/' })

  const counter = counted(memory)
  const reference = await local()
  sameAnswer(reference, await find({ ...QUERY, reader: counter, cwd: '/' }), 'memoryReader')
  sameAnswer(reference, await viaMount(), 'mountReader')
  const lists = counter.lists

  log(`${name}: ${folders} folders, ${lists} list calls per find; timing local, mountReader, memoryReader (${RUNS} runs each)`)
  const localMs = await time(local, RUNS)
  const mountMs = await time(viaMount, RUNS)
  const memoryMs = await time(viaMemory, RUNS)
  return { name, folders, lists, localMs, mountMs, memoryMs, files, tree }
}

async function benchSlow(tree) {
  const rows = []
  for (const concurrency of CONCURRENCY) {
    const reader = counted(memoryReader(tree), { delayMs: SLOW_DELAY_MS, concurrency })
    log(`slow remote: concurrency ${concurrency}`)
    const ms = await time(() => find({ ...QUERY, reader, cwd: '/' }), SLOW_RUNS)
    rows.push({ concurrency, ms, lists: reader.lists / (SLOW_RUNS + 1) }) // time() made SLOW_RUNS + 1 calls
  }
  return rows
}

const results = []
for (const name of TREES) results.push(await benchTree(name))
const slow = await benchSlow(results.find((r) => r.name === SLOW_TREE).tree)

const perFolder = (ms, r) => ((ms - r.localMs) * 1000) / r.lists
const out = [
  `\`find({ pattern: '**/*.nothing', cwd })\` with all defaults (ignore files read through the reader, and the empty answer's hint walk), ` +
    `median of ${RUNS} warm runs after one untimed call. "list calls" = \`list\` calls one find makes (folders walked, counted on the ` +
    'memoryReader); "per folder" = (reader time − local time) / list calls. mountReader reads the same folder ' +
    '(`readdir` + one `lstat` per entry + two `realpath` per folder, on libuv\'s pool); memoryReader holds a copy of it.',
  '',
  '| tree | files | folders | list calls per find | local ms | mountReader ms | memoryReader ms | mountReader µs per folder | memoryReader µs per folder |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...results.map((r) =>
    `| ${r.name} | ${r.files.toLocaleString('en')} | ${r.folders.toLocaleString('en')} | ${r.lists.toLocaleString('en')} | ${fmt(r.localMs)} | ` +
      `${fmt(r.mountMs)} | ${fmt(r.memoryMs)} | ${fmt(perFolder(r.mountMs, r))} | ${fmt(perFolder(r.memoryMs, r))} |`,
  ),
  '',
  `A slow remote: memoryReader on ${SLOW_TREE} behind a ${SLOW_DELAY_MS} ms delay per \`list\`, at each \`concurrency\`; ` +
    `median of ${SLOW_RUNS} run${SLOW_RUNS === 1 ? '' : 's'} after one untimed call. ` +
    `"serial bound" = list calls × ${SLOW_DELAY_MS} ms / concurrency, the time if every call waited its turn in full.`,
  '',
  '| concurrency | ms | list calls | serial bound ms | speed-up vs concurrency 1 |',
  '| ---: | ---: | ---: | ---: | ---: |',
  ...slow.map((s) =>
    `| ${s.concurrency} | ${fmt(s.ms, 0)} | ${s.lists.toLocaleString('en')} | ${fmt((s.lists * SLOW_DELAY_MS) / s.concurrency, 0)} | ${fmt(slow[0].ms / s.ms, 1)}x |`,
  ),
]
console.log(out.join('\n'))
log('done')
