// A live index on a root too big to hold: `openIndex` on a generated tree
// of 3,000,000 entries (bench/trees.mjs, hard links to a small pool) with
// the default bound must reject with `too-large` within its memory estimate
// (the peak RSS of the process is reported against it), and the MCP server
// started on that root must still answer, saying once that it walks anew.
//
//   npm run bench:too-large            # generates gen-3000k once (~3 GB of inodes, a few minutes)
//   TOO_LARGE_FILES=2500000 npm run bench:too-large
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { ensureGeneratedTree } from './trees.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.join(here, '..')
const log = (m) => process.stderr.write(`[too-large] ${m}\n`)

if (process.argv[2] === '--child') {
  const { openIndex } = await import('../index.mjs')
  const peak = () => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024
  const before = peak()
  const t0 = performance.now()
  let out
  try {
    const index = await openIndex(process.argv[3])
    out = { opened: true, entries: index.stats().entries }
    await index.close()
  } catch (e) {
    out = { code: e.code, message: e.message }
  }
  out.ms = performance.now() - t0
  out.peakBefore = before
  out.peak = peak()
  console.log(JSON.stringify(out))
  process.exit(0)
}

const files = Number(process.env.TOO_LARGE_FILES || 3_000_000)
const tree = ensureGeneratedTree({ name: `gen-${Math.round(files / 1000)}k`, files }, log)
log(`tree: ${tree.dir} (${tree.files.toLocaleString('en')} files, ${tree.dirs.toLocaleString('en')} folders)`)

const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', tree.dir], { encoding: 'utf8', env: { ...process.env, AGENT_FIND_CACHE_DIR: fs.mkdtempSync('/tmp/af-too-large-') } })
const child = JSON.parse(r.stdout.trim().split('\n').pop())
const mb = (b) => `${(b / 1048576).toFixed(0)} MB`
console.log(`openIndex on ${tree.files.toLocaleString('en')} files: ${child.code ?? 'opened'} after ${Math.round(child.ms)} ms`)
if (child.message) console.log(`  message: ${child.message}`)
console.log(`  peak RSS ${mb(child.peak)} (${mb(child.peakBefore)} before openIndex; grown ${mb(child.peak - child.peakBefore)})`)
const estimate = /about (\d+) MB of memory/.exec(child.message ?? '')
if (estimate) console.log(`  the walk's own estimate when it stopped: ${estimate[1]} MB`)

// The MCP server on that root: a call still answers (a fresh walk of a small path), and says so once.
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(repo, 'bin', 'agent-find.js'), 'mcp', '--root', tree.dir], stderr: 'pipe' })
const client = new Client({ name: 'too-large', version: '1' })
await client.connect(transport)
const sub = fs.readdirSync(tree.dir).find((d) => fs.statSync(path.join(tree.dir, d)).isDirectory() && d !== '.git')
const texts = []
for (let i = 0; i < 4; i++) {
  const t = performance.now()
  const res = await client.callTool({ name: 'find', arguments: { pattern: '*', path: sub, limit: 3 } })
  texts.push({ ms: Math.round(performance.now() - t), note: res.content[0].text.startsWith('Note:'), error: !!res.isError })
  await new Promise((resolve) => setTimeout(resolve, 3000))
}
await client.close()
console.log(`MCP server on that root, \`find\` in \`${sub}\` every 3 s: ${texts.map((x) => `${x.ms} ms${x.note ? ' (with the note)' : ''}${x.error ? ' ERROR' : ''}`).join(', ')}`)
if (child.code !== 'too-large' || texts.some((x) => x.error) || texts.filter((x) => x.note).length > 1) process.exit(1)
