// `npm run bench:cli`: the agent-find command as a shell agent runs it, a
// process per call, against fd and `rg --files`, on the generated 10k and
// 100k trees (bench/trees.mjs), for a small answer (one rare file name) and a
// large one (`**/*.js`). Four commands: fd, rg --files, the native CLI
// (`agent-find.<platform>`, which `npm run build` places; what npm puts on
// PATH on Linux and macOS) and the npm bin where it stays JavaScript
// (`node bin/agent-find.js`, which runs the native CLI: Windows, pnpm, yarn,
// --ignore-scripts). agent-find gets the flags of the
// CLI rows in bench/RESULTS.md (`--no-gitignore --sort none --limit ...`);
// fd and rg the same set (hidden files, no ignore files, .git left out).
//
// One run, interleaved: every round runs each command once, in an order
// that rotates, after WARMUP rounds; the medians are compared, stdout to
// /dev/null. Each command's answer is checked first (the same set of paths).
// A start-up table (`--version`) shows what is left once the walk is taken
// away. The target: the native CLI within 1.1x of fd in all four cells.
//
// RUNS=31 node bench/cli.mjs for more rounds (default 21).
import { spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { GENERATED, ensureGeneratedTree } from './trees.mjs'
import { ensureTool } from './peers.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.dirname(here)
const SHIM = path.join(repo, 'bin', 'agent-find.js')
const RUNS = Number(process.env.RUNS) || 21
const WARMUP = 3
const TARGET = 1.1

const log = (msg) => process.stderr.write(`[bench:cli] ${msg}\n`)

const version = (bin, args = ['--version']) => {
  const r = spawnSync(bin, args, { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.split('\n')[0].trim() : 'missing'
}

/** The native CLI the JS bin would run (AGENT_FIND_CLI=which). */
function nativeBinary() {
  const r = spawnSync(process.execPath, [SHIM], { encoding: 'utf8', env: { ...process.env, AGENT_FIND_CLI: 'which' } })
  if (r.status !== 0) {
    log(`no native CLI (${r.stderr.trim()}): run \`npm run build\` first`)
    process.exit(1)
  }
  return r.stdout.trim()
}

// The answers: a name found once in each tree, and every .js file (2,148 and 20,511).
const ANSWERS = [
  { id: 'small', label: 'small: `**/AvatarAccount.tsx`', glob: '**/AvatarAccount.tsx', name: 'AvatarAccount.tsx' },
  { id: 'large', label: 'large: `**/*.js`', glob: '**/*.js', name: '*.js' },
]

/** The flags of the agent-find CLI rows in bench/RESULTS.md (bench/peers.mjs `cliArgs`). */
const cliArgs = (a) => [a.glob, '.', '--type', 'file', '--max-bytes', '1000000000000000', '--no-gitignore', '--sort', 'none', '--limit', '1000000000', '--max-limit', 'Infinity']

/** Each command: [file, args, env], and how to read its answer. */
function commands(native, have) {
  const agentFind = (out) => {
    const lines = out.split('\n').filter(Boolean).slice(1) // the `Search directory:` line
    return lines[0] === 'No files matched.' ? [] : lines
  }
  const plain = (out) => out.split('\n').filter(Boolean).map((p) => p.replace(/^\.\//, ''))
  return [
    have.fd && { tool: 'fd', run: (a) => ['fdfind', ['--type', 'f', '--hidden', '--exclude', '.git', '--no-ignore', '--color', 'never', '--glob', a.name]], read: plain },
    have.rg && { tool: 'rg --files', run: (a) => ['rg', ['--files', '--hidden', '-g', '!.git', '--no-ignore', '--type-add', `bench:${a.name}`, '-t', 'bench']], read: plain },
    { tool: 'agent-find native', run: (a) => [native, cliArgs(a)], read: agentFind },
    { tool: 'agent-find JS bin (node bin/agent-find.js)', run: (a) => [process.execPath, [SHIM, ...cliArgs(a)]], read: agentFind },
  ].filter(Boolean)
}

function digest(paths) {
  const sorted = [...paths].sort()
  return { count: sorted.length, hash: crypto.createHash('sha1').update(sorted.join('\n')).digest('hex').slice(0, 10) }
}

const devNull = fs.openSync(os.devNull, 'w')

function timeOnce(file, args, cwd, env) {
  const t0 = performance.now()
  const r = spawnSync(file, args, { cwd, stdio: ['ignore', devNull, 'ignore'], env: { ...process.env, ...env } })
  const ms = performance.now() - t0
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.status}`)
  return ms
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Runs each job once per round, rotating the order, and returns each job's times after the warm-up. */
function interleaved(jobs) {
  const times = jobs.map(() => [])
  for (let round = 0; round < WARMUP + RUNS; round++) {
    for (let k = 0; k < jobs.length; k++) {
      const i = (k + round) % jobs.length
      const ms = jobs[i]()
      if (round >= WARMUP) times[i].push(ms)
    }
  }
  return times
}

const fmt = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1))

function main() {
  const have = { fd: ensureTool('fdfind', 'fd-find', log), rg: ensureTool('rg', 'ripgrep', log) }
  const native = nativeBinary()
  const cmds = commands(native, have)
  const trees = GENERATED.filter((g) => g.name === 'gen-10k' || g.name === 'gen-100k').map((g) => ensureGeneratedTree(g, log))
  const rows = []
  const verdicts = []
  for (const tree of trees) {
    const name = path.basename(tree.dir)
    for (const answer of ANSWERS) {
      // The answers first: every command lists the same paths.
      const answers = cmds.map((c) => {
        const [file, args, env] = c.run(answer)
        const r = spawnSync(file, args, { cwd: tree.dir, encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, ...env } })
        return digest(c.read(r.stdout))
      })
      const agreed = answers.every((d) => d.hash === answers[0].hash)
      log(`${name} ${answer.id}: ${answers[0].count} paths, ${agreed ? 'the same in every command' : 'DIFFERENT answers'}; timing ${RUNS} rounds...`)
      const times = interleaved(cmds.map((c) => () => timeOnce(...withCwd(c.run(answer), tree.dir))))
      const medians = times.map(median)
      const fd = have.fd ? medians[0] : NaN
      cmds.forEach((c, i) => {
        rows.push(`| ${name} | ${answer.label} | ${c.tool} | ${answers[i].count.toLocaleString('en')}${answers[i].hash === answers[0].hash ? ' ✓' : ' ✗'} | ${fmt(medians[i])} | ${fmt(Math.min(...times[i]))} | ${have.fd ? `${(medians[i] / fd).toFixed(2)}x` : 'n/a'} |`)
      })
      const nativeAt = cmds.findIndex((c) => c.tool === 'agent-find native')
      const ratio = medians[nativeAt] / fd
      verdicts.push(`${name} ${answer.id}: native ${ratio.toFixed(2)}x of fd (${ratio <= TARGET ? 'met' : 'NOT met'})`)
    }
  }
  // What is left without the walk: start-up and exit alone.
  const startup = [
    have.fd && ['fdfind --version', 'fdfind', ['--version']],
    have.rg && ['rg --version', 'rg', ['--version']],
    ['agent-find native --version', native, ['--version']],
    ['node -e 0 (Node start-up alone)', process.execPath, ['-e', '0']],
    ['JS bin --version (Node, then the native CLI)', process.execPath, [SHIM, '--version']],
  ].filter(Boolean)
  const startTimes = interleaved(startup.map(([, file, args, env]) => () => timeOnce(file, args, repo, env)))

  const out = [
    `## CLI start-up and answers (bench/cli.mjs)`,
    '',
    `- machine: ${os.cpus()[0].model}, ${os.availableParallelism ? os.availableParallelism() : os.cpus().length} threads, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; node ${process.version}`,
    `- fd: ${have.fd ? version('fdfind') : 'missing'}; rg: ${have.rg ? version('rg') : 'missing'}; agent-find native: ${path.relative(repo, native)} (${(fs.statSync(native).size / 1e6).toFixed(1)} MB)`,
    `- ${RUNS} interleaved rounds after ${WARMUP} warm-up rounds; medians; stdout to /dev/null; ✓: the same paths as the first row`,
    `- target (native CLI within ${TARGET}x of fd): ${verdicts.join('; ')}`,
    '',
    '| tree | answer | command | paths | median ms | min ms | vs fd |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    '| start-up only | median ms | min ms |',
    '| --- | ---: | ---: |',
    ...startup.map(([label], i) => `| ${label} | ${fmt(median(startTimes[i]))} | ${fmt(Math.min(...startTimes[i]))} |`),
    '',
  ].join('\n')
  process.stdout.write(out)
}

function withCwd([file, args, env], cwd) {
  return [file, args, cwd, env]
}

main()
