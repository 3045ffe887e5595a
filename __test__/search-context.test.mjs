// Context lines (`before`, `after`, `context`) against ripgrep as the oracle:
// on generated trees, the matches, their context lines, the `--` between
// groups that are apart and the counts per file equal `rg -n -B/-A/-C` and
// `rg --count`. Then the same answers on disk, on a memoryReader, on a
// mountReader and on an index, and the argument errors.
// ripgrep is found by `ripgrepPath` (helpers.mjs): `AGENT_FIND_RG`, the pinned
// one of `npm run install:rg`, or PATH; in CI, none is a failure.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { memoryReader, mountReader, openIndex, searchFiles } from '../index.mjs'
import { NO_RIPGREP, rejectsWith, ripgrepPath, seededRandom, tmpTree } from './helpers.mjs'

const RG = ripgrepPath()
const noRg = RG ? false : NO_RIPGREP

/** `rg` over `dir`, its stdout with paths relative to it ('' when nothing matched: exit 1). */
function rg(dir, args) {
  try {
    // An explicit `.` (else rg would read stdin, a pipe here), taken off the paths after.
    const out = execFileSync(RG, ['--no-config', '--no-heading', '--color=never', ...args, '.'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 })
    return out.replace(/^\.\//gm, '')
  } catch (e) {
    if (e.status === 1) return ''
    throw e
  }
}

/** A tree of text files whose lines often match `needle` close together, so context groups touch and overlap. */
function generated(seed, files = 12) {
  const rand = seededRandom(seed)
  const words = ['alpha', 'beta', 'gamma', 'delta', 'const x = 1;', '  return y', '}', '']
  const spec = {}
  for (let f = 0; f < files; f++) {
    const lines = []
    const n = 1 + Math.floor(rand() * 60)
    for (let i = 0; i < n; i++) {
      const r = rand()
      lines.push(r < 0.15 ? `  needle ${i}` : r < 0.2 ? 'needle needle' : words[Math.floor(rand() * words.length)])
    }
    // Some files end without a newline, some have no match at all.
    const text = lines.join('\n') + (rand() < 0.5 ? '\n' : '')
    spec[`${f % 3 === 0 ? 'src/' : f % 3 === 1 ? 'lib/deep/' : ''}file${f}.txt`] = text
  }
  return spec
}

/**
 * Our matches written as rg prints them (`file:12:text`, `file-11-text`), in
 * blocks: a block is a run of lines with no gap, which rg ends with `--`
 * (with no context, rg prints no `--`: a file's lines are one block).
 */
function ourBlocks(matches, separated = true) {
  const blocks = []
  let last = null
  for (const m of matches) {
    const lines = [
      ...(m.before ?? []).map((c) => [c.line, `${m.file}-${c.line}-${c.text}`]),
      [m.line, `${m.file}:${m.line}:${m.match}`],
      ...(m.after ?? []).map((c) => [c.line, `${m.file}-${c.line}-${c.text}`]),
    ]
    for (const [line, text] of lines) {
      if (!last || last.file !== m.file || (separated && line !== last.line + 1)) blocks.push([])
      assert.ok(!last || last.file !== m.file || line > last.line, `line ${line} of ${m.file} shown twice or out of order`)
      blocks.at(-1).push(text)
      last = { file: m.file, line }
    }
  }
  return blocks.map((b) => b.join('\n'))
}

/** rg's output cut into the same blocks (at `--`, and where the file changes). */
function rgBlocks(out) {
  const blocks = []
  let file = null
  for (const line of out.split('\n').filter((l) => l !== '')) {
    if (line === '--') {
      blocks.push([])
      file = null
      continue
    }
    const f = /^(.*?)[:-]\d+[:-]/.exec(line)[1]
    if (file !== null && f !== file) blocks.push([])
    if (blocks.length === 0) blocks.push([])
    blocks.at(-1).push(line)
    file = f
  }
  return blocks.filter((b) => b.length > 0).map((b) => b.join('\n'))
}

const byFile = (blocks) => [...blocks].sort()

describe('context lines agree with ripgrep', { skip: noRg }, () => {
  const combos = [
    { before: 2 },
    { after: 3 },
    { context: 1 },
    { context: 2 },
    { before: 1, after: 4 },
    { context: 3, after: 0 },
    { before: 0, after: 0 },
  ]
  const rgArgs = (o) => {
    const a = []
    if (o.context !== undefined) a.push('-C', String(o.context))
    if (o.before !== undefined) a.push('-B', String(o.before))
    if (o.after !== undefined) a.push('-A', String(o.after))
    return a
  }

  for (const seed of [1, 2, 3]) {
    test(`generated tree ${seed}: the same lines, line numbers and separators as rg -n -A/-B/-C, and counts as rg --count`, (t) => {
      const dir = tmpTree(t, generated(seed))
      return (async () => {
        for (const o of combos) {
          const r = await searchFiles({ pattern: 'needle', cwd: dir, maxResults: 500, ...o })
          assert.equal(r.truncated, false)
          const expected = rgBlocks(rg(dir, ['-n', ...rgArgs(o), 'needle']))
          assert.ok(expected.length > 3, 'the tree has several groups')
          const separated = Object.values(o).some((n) => n > 0)
          assert.deepEqual(byFile(ourBlocks(r.matches, separated)), byFile(expected), JSON.stringify(o))
        }
        const counts = await searchFiles({ pattern: 'needle', cwd: dir, outputMode: 'count', maxResults: 500 })
        const rgCounts = rg(dir, ['--count', 'needle']).trim().split('\n').sort()
        assert.deepEqual(counts.counts.map((c) => `${c.file}:${c.count}`).sort(), rgCounts)
        assert.equal(counts.fileCount, rgCounts.length)
        const all = await searchFiles({ pattern: 'needle', cwd: dir, maxResults: 500, context: 2 })
        assert.equal(all.matchCount, rgCounts.reduce((n, l) => n + Number(l.split(':').at(-1)), 0))
        assert.equal(all.fileCount, rgCounts.length)
      })()
    })
  }

  test('a long line\'s match has ripgrep\'s column (rg --column); a short line has none, as before', (t) => {
    const long = (lead) => `${lead}${'x'.repeat(250)} needle ${'y'.repeat(100)}`
    const dir = tmpTree(t, { 'a.txt': `x needle\n${long('')}\n${long('  é')}\n`, 'b.txt': `${long('needle ')}\n` })
    return (async () => {
      const r = await searchFiles({ pattern: 'needle', cwd: dir })
      const ours = r.matches.filter((m) => m.column).map((m) => `${m.file}:${m.line}:${m.column}`).sort()
      const theirs = rg(dir, ['-n', '--column', 'needle']).trim().split('\n').filter((l) => l.length > 200)
      assert.deepEqual(ours, theirs.map((l) => l.split(':').slice(0, 3).join(':')).sort())
      assert.equal(ours.length, 3)
      assert.equal(r.matches.find((m) => m.line === 1).column, undefined)
    })()
  })
})

describe('context lines', () => {
  const spec = { 'a.txt': 'one\ntwo\nhit 3\nfour\nhit 5\nsix\nseven\neight\nnine\nhit 10\n', 'b/c.txt': 'hit\n' }

  test('a line is shown once: context between close matches belongs to the first as `after`', (t) => {
    const dir = tmpTree(t, spec)
    return (async () => {
      const r = await searchFiles({ pattern: 'hit', cwd: dir, context: 1 })
      const shape = r.matches.map((m) => [m.file, m.line, (m.before ?? []).map((c) => c.line), (m.after ?? []).map((c) => c.line)])
      assert.deepEqual(shape, [
        ['a.txt', 3, [2], [4]],
        ['a.txt', 5, [], [6]],
        ['a.txt', 10, [9], []],
        ['b/c.txt', 1, [], []],
      ])
      assert.deepEqual(r.matches[0].before, [{ line: 2, text: 'two' }])
    })()
  })

  test('without context, matches carry no before or after (as before)', (t) => {
    const dir = tmpTree(t, spec)
    return (async () => {
      const r = await searchFiles({ pattern: 'hit', cwd: dir })
      assert.ok(r.matches.every((m) => !('before' in m) && !('after' in m)), JSON.stringify(r.matches))
      assert.equal(r.fileCount, 2)
    })()
  })

  test('the last match kept under maxResults keeps its after lines', (t) => {
    const dir = tmpTree(t, spec)
    return (async () => {
      const r = await searchFiles({ pattern: 'hit', cwd: dir, after: 3, maxResults: 1 })
      assert.equal(r.truncated, true)
      assert.deepEqual(r.matches.map((m) => [m.line, (m.after ?? []).map((c) => c.text)]), [[3, ['four']]])
      const r2 = await searchFiles({ pattern: 'hit', cwd: dir, after: 3, maxResults: 2 })
      assert.deepEqual(r2.matches[1].after.map((c) => c.line), [6, 7, 8])
    })()
  })

  test('the same answers on disk, on a memoryReader, a mountReader and an index', async (t) => {
    const dir = tmpTree(t, generated(7))
    const reader = memoryReader(Object.fromEntries(Object.entries(generated(7)).map(([k, v]) => [`/w/${k}`, v])))
    const mount = mountReader({ '/w': dir })
    const index = await openIndex(dir)
    t.after(() => index.close())
    for (const o of [{ context: 2 }, { before: 3 }, { after: 1, maxResults: 7 }]) {
      const q = { pattern: 'needle', ...o }
      const disk = await searchFiles({ ...q, cwd: dir })
      // A cursor names where it was made (the folder, the index), so it differs by design.
      const strip = (r) => ({ ...r, path: undefined, cursor: typeof r.cursor })
      assert.deepEqual(strip(await searchFiles({ ...q, reader, cwd: '/w' })), strip(disk), `memoryReader ${JSON.stringify(o)}`)
      assert.deepEqual(strip(await searchFiles({ ...q, reader: mount, cwd: '/w' })), strip(disk), `mountReader ${JSON.stringify(o)}`)
      assert.deepEqual({ ...(await index.searchFiles(q)), cursor: undefined }, { ...disk, cursor: undefined }, `index ${JSON.stringify(o)}`)
    }
  })

  test('bad values and other output modes are invalid-argument, saying why', async (t) => {
    const dir = tmpTree(t, spec)
    await rejectsWith(searchFiles({ pattern: 'hit', cwd: dir, context: -1 }), 'invalid-argument', '`context`')
    await rejectsWith(searchFiles({ pattern: 'hit', cwd: dir, before: 1.5 }), 'invalid-argument', '`before`')
    await rejectsWith(searchFiles({ pattern: 'hit', cwd: dir, after: '2' }), 'invalid-argument', '`after`')
    await rejectsWith(searchFiles({ pattern: 'hit', cwd: dir, after: 2, outputMode: 'count' }), 'invalid-argument', "`outputMode: 'count'`", 'matching lines')
    await rejectsWith(searchFiles({ pattern: 'hit', cwd: dir, context: 1, outputMode: 'files' }), 'invalid-argument', "`outputMode: 'files'`")
    await rejectsWith(searchFiles({ pattern: 'hit', cwd: dir, before: 1, target: 'files' }), 'invalid-argument', "`target: 'files'`")
    // More than the cap is lowered to it.
    const many = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`)
    many[40] = 'hit'
    fs.writeFileSync(path.join(dir, 'long.txt'), many.join('\n'))
    const r = await searchFiles({ pattern: '^hit$', cwd: dir, context: 1000, fileGlob: 'long.txt' })
    assert.equal(r.matches[0].before.length, 20)
    assert.equal(r.matches[0].after.length, 19)
  })
})
