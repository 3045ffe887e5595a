// Content search: agent-find's in-process searchFiles against ripgrep (`rg`,
// a whole process) on the same regexes over the same generated tree. Each row
// checks that both report the same number of matching lines; a row whose
// counts differ is marked and is not a comparison. Prints a markdown table.
//
//   node bench/search.mjs            (BENCH_QUICK=1 for a smaller tree)
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { searchFiles } = require('../index.js')
const here = path.dirname(fileURLToPath(import.meta.url))
const QUICK = process.env.BENCH_QUICK === '1'
const FILES = QUICK ? 5_000 : 40_000
const RUNS = QUICK ? 3 : 7

function ensureRipgrep() {
  if (spawnSync('rg', ['--version']).status === 0) return true
  if (process.getuid && process.getuid() === 0 && spawnSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq ripgrep'], { stdio: 'ignore' }).status === 0) return true
  console.error('ripgrep (rg) is not installed and could not be installed; rows show agent-find only')
  return false
}

/** A deterministic tree of source-like text files: 100 folders, 2 KB average. */
function makeTree(root, files) {
  const stamp = path.join(root, `.done-v2-${files}`)
  // Its own repository, so the checkout's .gitignore (which ignores bench/.trees) does not apply.
  if (fs.existsSync(stamp)) {
    if (!fs.existsSync(path.join(root, '.git'))) execFileSync('git', ['init', '-q', root])
    return
  }
  fs.rmSync(root, { recursive: true, force: true })
  const words = ['alpha', 'beta', 'gamma', 'delta', 'function', 'return', 'const', 'TODO', 'error', 'value', 'index', 'result', 'async', 'await', 'import', 'export']
  let seed = 42
  const rand = (n) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 8) % n)
  const exts = ['ts', 'js', 'py', 'md', 'rs']
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `pkg${i % 100}`, `mod${i % 7}`)
    fs.mkdirSync(dir, { recursive: true })
    const lines = []
    for (let l = 0, n = 20 + rand(60); l < n; l++) {
      const line = []
      for (let w = 0, k = 3 + rand(8); w < k; w++) line.push(words[rand(words.length)])
      lines.push(line.join(' '))
    }
    fs.writeFileSync(path.join(dir, `file${i}.${exts[i % exts.length]}`), `${lines.join('\n')}\n`)
  }
  fs.writeFileSync(stamp, '')
  execFileSync('git', ['init', '-q', root])
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

async function timeIt(fn) {
  await fn()
  const times = []
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint()
    await fn()
    times.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  return median(times)
}

function rgCount(regex, root, ignoreCase) {
  const args = ['--count', '--no-messages', ...(ignoreCase ? ['-i'] : []), '-e', regex, root]
  const r = spawnSync('rg', args, { encoding: 'utf8', maxBuffer: 1 << 28 })
  return r.stdout.split('\n').filter(Boolean).reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(':') + 1)), 0)
}

export async function benchSearch() {
  const root = path.join(here, '.trees', `search-${FILES}`)
  makeTree(root, FILES)
  const haveRg = ensureRipgrep()
  const queries = [
    { name: 'literal', regex: 'TODO' },
    { name: 'word regex', regex: '\\bfunc\\w+ return\\b' },
    { name: 'case-insensitive', regex: 'todo error', ignoreCase: true },
    { name: 'no match', regex: 'zzz_not_here_\\d+' },
  ]
  const rows = []
  for (const q of queries) {
    const ours = await searchFiles({ pattern: q.regex, path: root, outputMode: 'count', ignoreCase: !!q.ignoreCase, maxResults: 500 })
    const oursMs = await timeIt(() => searchFiles({ pattern: q.regex, path: root, ignoreCase: !!q.ignoreCase }))
    let rgMs = NaN
    let rgLines = NaN
    if (haveRg) {
      rgLines = rgCount(q.regex, root, q.ignoreCase)
      // rg counts every matching line, as searchFiles does for matchCount (it prints only the first 50).
      const args = ['--no-messages', '--count', ...(q.ignoreCase ? ['-i'] : []), '-e', q.regex, root]
      rgMs = await timeIt(() => { spawnSync('rg', args, { stdio: 'ignore' }) })
    }
    const agree = !haveRg || rgLines === ours.matchCount
    rows.push({ query: `${q.name} \`${q.regex}\``, lines: ours.matchCount, rgLines, oursMs, rgMs, agree })
  }
  const lines = [
    `### Content search: searchFiles vs rg (${FILES.toLocaleString('en')} files, median of ${RUNS} warm runs)`,
    '',
    'agent-find: `searchFiles({ pattern })` in process (counts every matching line, returns the first 50); rg: `rg --count -e <regex>` as a whole process.',
    '',
    '| query | matching lines (agent-find / rg) | agent-find ms | rg ms | rg / agent-find |',
    '| --- | --- | ---: | ---: | ---: |',
    ...rows.map((r) =>
      `| ${r.query} | ${r.lines} / ${Number.isNaN(r.rgLines) ? 'n/a' : r.rgLines}${r.agree ? '' : ' **(differ: not comparable)**'} | ${r.oursMs.toFixed(1)} | ${Number.isNaN(r.rgMs) ? 'n/a' : r.rgMs.toFixed(1)} | ${r.agree && !Number.isNaN(r.rgMs) ? (r.rgMs / r.oursMs).toFixed(2) + 'x' : '-'} |`),
  ]
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await benchSearch())
}
