// What counting what was left out costs: find and searchFiles on the
// generated 100k tree (with its .gitignore files, hidden folders and
// node_modules), each call with `skipped: false` (nothing counted), as by
// default (counted; reported when the answer is empty or cut) and with
// `skipped: true` (always reported), interleaved in one run so the
// machine's noise hits all alike. Also `explain` of a deep ignored path.
//
//   npm run bench:skipped                    # gen-100k
//   BENCH_SKIPPED_TREE=gen-10k npm run bench:skipped
//   BENCH_RUNS=11                            # runs per call (default 9)
//
// Markdown on stdout, progress on stderr. The tree comes from bench/trees.mjs
// (built once under bench/.trees).
import { createRequire } from 'node:module'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { median } from './peers.mjs'
import { GENERATED, ensureGeneratedTree } from './trees.mjs'

const require = createRequire(import.meta.url)
const RUNS = Number(process.env.BENCH_RUNS || 9)
const log = (msg) => process.stderr.write(`[skipped] ${msg}\n`)

const CALLS = [
  ['find `**/*.ts`', (api, dir, extra) => api.find({ pattern: '**/*.ts', cwd: dir, ...extra })],
  ['find `**/*.nothing` (empty)', (api, dir, extra) => api.find({ pattern: '**/*.nothing', cwd: dir, ...extra })],
  ['find `**` hidden: false, maxDepth: 3', (api, dir, extra) => api.find({ pattern: '**', cwd: dir, hidden: false, maxDepth: 3, ...extra })],
  ['searchFiles `deadlock`', (api, dir, extra) => api.searchFiles({ pattern: 'deadlock', cwd: dir, ...extra })],
]

async function main() {
  const api = require('../index.js')
  const name = process.env.BENCH_SKIPPED_TREE || 'gen-100k'
  const spec = GENERATED.find((t) => t.name === name)
  if (!spec) throw new Error(`unknown tree ${name}: ${GENERATED.map((t) => t.name).join(', ')}`)
  const { dir } = ensureGeneratedTree(spec, log)
  const out = [
    `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.availableParallelism?.() ?? os.cpus().length} cores, ${name}, ${RUNS} runs per call, interleaved (medians, ms).`,
    '',
    '| call | `skipped: false` | default | `skipped: true` | default / false | true / false | what was counted |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ]
  const variants = [{ skipped: false }, {}, { skipped: true }]
  for (const [label, call] of CALLS) {
    for (const extra of variants) await call(api, dir, extra)
    const times = variants.map(() => [])
    let last
    for (let i = 0; i < RUNS; i++) {
      for (const [v, extra] of variants.entries()) {
        const t = performance.now()
        last = await call(api, dir, extra)
        times[v].push(performance.now() - t)
      }
    }
    const [off, auto, on] = times.map(median)
    const what = (last.skipped ?? []).map((g) => `${g.reason} ${g.count}`).join(', ')
    log(`${label}: ${off.toFixed(1)} / ${auto.toFixed(1)} / ${on.toFixed(1)} ms`)
    out.push(`| ${label} | ${off.toFixed(1)} | ${auto.toFixed(1)} | ${on.toFixed(1)} | ${(auto / off).toFixed(2)} | ${(on / off).toFixed(2)} | ${what} |`)
  }
  // explain: a path in an ignored folder, deep in the tree.
  const { find, explain } = api
  const any = (await find({ pattern: '**/*', cwd: dir, gitignore: false, limit: 200_000, maxLimit: Infinity, maxBytes: Infinity, sortBy: 'none' })).entries
  const deepest = any.map((e) => e.path).sort((a, b) => b.split('/').length - a.split('/').length)[0]
  const times = []
  let said
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    said = await explain(deepest, { cwd: dir })
    times.push(performance.now() - t)
  }
  out.push('', `\`explain('${deepest}')\` (${deepest.split('/').length} levels deep): ${median(times).toFixed(2)} ms median; reason \`${said.reason}\`.`)
  process.stdout.write(`${out.join('\n')}\n`)
}

main().catch((e) => {
  process.stderr.write(`${e.stack}\n`)
  process.exit(1)
})
