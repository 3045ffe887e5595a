// Tokens a model reads for the same search results in the compact model text
// (formatSearchResult) and in the previous one (`file:line: text` a line, as
// src/search/render.rs wrote it before the compact text; rebuilt below from
// the same result). Counted with a real tokenizer (gpt-tokenizer's o200k_base,
// the GPT-4o/GPT-5 encoding) on this repository and on its installed
// node_modules (pinned by package-lock.json, searched with noIgnore).
//
//   npm run bench:tokens            # prints a table, and the totals
//   BENCH_TOKENS_JSON=1 npm run bench:tokens   # the rows as JSON too
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'

import { formatSearchResult, searchFiles } from '../index.mjs'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const MAX_BYTES = 51200
const ADVICE = 'narrow the pattern or `path`, or raise `maxResults` (max 500)'

/** The previous model text of a content result, as the renderer before the compact one wrote it. */
export function previousText(r) {
  const head = `Search directory: ${r.path}`
  let body = r.matches.length ? r.matches.map((m) => `${m.file}:${m.line}: ${m.match}`) : ['No matches found.']
  let trailer = []
  if (r.truncated) trailer.push(`Showing the first ${r.matches.length} of ${r.matchCount} matching lines; ${ADVICE}.`)
  if (r.notice) trailer.push(r.notice)
  const len = (s) => Buffer.byteLength(s)
  const size = head.length + [...body, ...trailer].reduce((n, l) => n + len(l) + 1, 0)
  if (size > MAX_BYTES) {
    const cut = `Output truncated at ${MAX_BYTES} bytes; refine the pattern or narrow \`path\`.`
    const reserve = len(head) + len(cut) + 1 + (r.notice ? len(r.notice) + 1 : 0)
    let used = 0
    const kept = []
    for (const l of body) {
      used += len(l) + 1
      if (used + reserve > MAX_BYTES) break
      kept.push(l)
    }
    body = kept
    trailer = [cut, ...(r.notice ? [r.notice] : [])]
  }
  return [head, ...body, ...trailer].join('\n')
}

const TREES = [
  {
    name: 'agent-find (this repo)',
    base: { cwd: REPO },
    patterns: ['TODO', 'fn [a-z_]+\\(', 'searchFiles', 'Result<', 'assert\\.', 'const ', 'import ', 'match', 'limits::', 'cancel'],
  },
  {
    name: 'node_modules (package-lock)',
    base: { cwd: REPO, path: 'node_modules', noIgnore: true },
    patterns: ['TODO', 'function ', 'require\\(', 'export ', 'deprecated', 'Promise', 'throw new', 'process\\.env'],
  },
]

const rows = []
for (const tree of TREES) {
  for (const pattern of tree.patterns) {
    for (const maxResults of [50, 500]) {
      const r = await searchFiles({ ...tree.base, pattern, maxResults })
      if (r.matches.length === 0) continue
      const [old, now] = [previousText(r), formatSearchResult(r)]
      // Lines of matches each text holds: at the byte cap, the compact one holds more.
      const shownBefore = old.split('\n').filter((l) => /^[^ ].*:\d+: /.test(l)).length
      const shownAfter = now.split('\n').filter((l) => /^\d+(:\d+)?: /.test(l)).length
      const [before, after] = [countTokens(old), countTokens(now)]
      rows.push({ tree: tree.name, pattern, maxResults, files: new Set(r.matches.map((m) => m.file)).size, shownBefore, shownAfter, before, after })
    }
  }
}

const pct = (before, after) => `${(100 * (1 - after / before)).toFixed(1)}%`
const perLine = (r) => pct(r.before / r.shownBefore, r.after / r.shownAfter)
console.log('| tree | pattern | maxResults | files | lines shown before / compact | tokens before | tokens compact | fewer | fewer per line shown |')
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const r of rows) {
  const name = r.pattern.replace(/\|/g, '\\|')
  console.log(`| ${r.tree} | \`${name}\` | ${r.maxResults} | ${r.files} | ${r.shownBefore} / ${r.shownAfter} | ${r.before} | ${r.after} | ${pct(r.before, r.after)} | ${perLine(r)} |`)
}
console.log()
for (const name of [...TREES.map((t) => t.name), 'all']) {
  const of = rows.filter((r) => name === 'all' || r.tree === name)
  const before = of.reduce((n, r) => n + r.before, 0)
  const after = of.reduce((n, r) => n + r.after, 0)
  const median = of.map((r) => 1 - r.after / r.before).sort((a, b) => a - b)[Math.floor(of.length / 2)]
  const lines = (k) => of.reduce((n, r) => n + r[k], 0)
  console.log(
    `${name}: ${before} -> ${after} tokens, ${pct(before, after)} fewer in all; median per query ${(100 * median).toFixed(1)}%; ` +
      `per line shown ${(before / lines('shownBefore')).toFixed(1)} -> ${(after / lines('shownAfter')).toFixed(1)} tokens, ` +
      `${pct(before / lines('shownBefore'), after / lines('shownAfter'))} fewer (${of.length} queries)`,
  )
}
if (process.env.BENCH_TOKENS_JSON) console.log(JSON.stringify(rows))
