// Content search from a live index: the content layer (a sketch of each
// file's contents, made when a search reads it) lets later searches pass
// over files that cannot hold a match, and never changes an answer: after
// every kind of edit, `index.searchFiles` equals a fresh `searchFiles`.
// Edits that keep a file's size and mtime (restored with utimes) are
// included: only the event tells the index the contents changed.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { memoryReader, openIndex, searchFiles } from '../index.mjs'
import { openIndexBuilt, requireTool, seededRandom, tmpTree } from './helpers.mjs'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const within = (promise, ms) => Promise.race([promise, sleep(ms).then(() => { throw new Error(`not settled within ${ms} ms`) })])

/** A whole second, so that a time set again is exactly the same. */
const SECOND = 1_700_000_000

/** Rewrites `file` with `text` and sets its mtime to `SECOND`: with the same length, the same size and time. */
function rewriteKeepingTime(file, text) {
  fs.writeFileSync(file, text)
  fs.utimesSync(file, SECOND, SECOND)
}

/** Sets every file below `root` to `SECOND`. */
function setAllTimes(root) {
  for (const rel of fs.readdirSync(root, { recursive: true })) {
    const file = path.join(root, rel)
    if (fs.statSync(file).isFile()) fs.utimesSync(file, SECOND, SECOND)
  }
}

// A cursor names its search's options and, on an index, the index and its
// tree's generation: equal answers differ only in it.
const uncursored = (r) => (r.cursor === undefined ? r : { ...r, cursor: '<cursor>' })


async function sameAsFresh(index, root, queries, why) {
  for (const q of queries) {
    assert.deepEqual(uncursored(await index.searchFiles(q)), uncursored(await searchFiles({ ...q, cwd: root })), `${why}: ${JSON.stringify(q)}`)
  }
}

describe('index.searchFiles with the content layer', () => {
  test('sketches are made in the background, searches meanwhile and after answer as a fresh search does', async (t) => {
    const files = {}
    for (let i = 0; i < 60; i++) files[`src/m${i % 6}/f${i}.js`] = `export function f${i}() {\n  return ${i % 7 === 0 ? '"needle"' : 'null'}\n}\n`
    files['empty.txt'] = ''
    files['bin.dat'] = 'needle\0binary'
    // A NUL past the first chunk a reader takes: dropped whole, from memory as from disk.
    files['late-nul.txt'] = `needle\n${'x'.repeat(300_000)}\n\0`
    // Lines longer than the line buffer (4 MiB): searched in pieces from memory too.
    files['long-line.txt'] = `${'y'.repeat(5 << 20)} needle ${'z'.repeat(100)}\nneedle again\n`
    const root = tmpTree(t, files)
    const index = await openIndex(root)
    t.after(() => index.close())
    const queries = [
      { pattern: 'needle' },
      { pattern: 'needle', outputMode: 'count' },
      { pattern: 'NEEDLE', ignoreCase: true, outputMode: 'files' },
      { pattern: 'return (null|"needle")', outputMode: 'count' },
      { pattern: 'never written anywhere' },
      { pattern: 'f1[0-9]\\(' },
    ]
    await sameAsFresh(index, root, queries, 'first searches')
    for (const start = Date.now(); index.stats().contentBuild !== 'done'; await sleep(5)) {
      assert.ok(Date.now() - start < 30_000, JSON.stringify(index.stats()))
    }
    const stats = index.stats()
    assert.equal(stats.contentFiles, 63, 'every non-empty file got a sketch (the empty one is never opened)')
    assert.ok(stats.contentBytes > 61 * 8 && stats.contentBytes < 1_000_000, `contentBytes ${stats.contentBytes}`)
    await sameAsFresh(index, root, queries, 'searches from the sketches')
    await index.close()
    const closed = index.stats()
    assert.equal(closed.closed, true)
    assert.equal(closed.contentBytes, 0, 'close() frees the sketches')
    assert.equal(closed.contentFiles, 0)
  })

  test('a file rewritten with the same size and mtime is searched anew', async (t) => {
    const root = tmpTree(t, { 'a.txt': 'alpha beta\n', 'b.txt': 'other words\n' })
    setAllTimes(root)
    const index = await openIndexBuilt(root)
    t.after(() => index.close())
    assert.equal((await index.searchFiles({ pattern: 'gamma', outputMode: 'count' })).matchCount, 0)
    rewriteKeepingTime(path.join(root, 'a.txt'), 'gamma beta\n')
    await sleep(50)
    await within(index.settled(), 10_000)
    assert.equal((await index.searchFiles({ pattern: 'gamma', outputMode: 'count' })).matchCount, 1)
    assert.equal((await index.searchFiles({ pattern: 'alpha', outputMode: 'count' })).matchCount, 0)
  })

  for (const [cache, what] of [[undefined, 'the default cache'], [300, 'a 300-byte cache (files evicted and kept in turn)']]) test(`random edits of contents, renames and new files: every round equals a fresh search, with ${what}`, { timeout: 120_000 }, async (t) => {
    const rand = seededRandom(Number(process.env.AF_CONTENT_SEED || 11))
    const WORDS = ['alpha', 'beta', 'Gamma', 'delta', 'needle', 'haystack', 'función', 'KELVIN', 'x', 'import', 'require(']
    const pick = (list) => list[Math.floor(rand() * list.length)]
    const line = () => Array.from({ length: 1 + Math.floor(rand() * 6) }, () => pick(WORDS)).join(' ')
    const text = () => Array.from({ length: Math.floor(rand() * 8) }, line).join('\n') + (rand() < 0.8 ? '\n' : '')
    const spec = {}
    for (let i = 0; i < 40; i++) spec[`d${i % 4}/f${i}.txt`] = text()
    const root = tmpTree(t, spec)
    setAllTimes(root)
    const index = await openIndexBuilt(root, { contentCacheBytes: cache })
    t.after(() => index.close())
    const queries = [
      { pattern: 'needle', outputMode: 'count' },
      { pattern: 'gamma', ignoreCase: true },
      { pattern: 'alpha beta', outputMode: 'files' },
      { pattern: '(import|require)\\(', outputMode: 'count' },
      { pattern: 'función' },
      { pattern: 'kelvin', ignoreCase: true, outputMode: 'count' },
      { pattern: 'haystack needle x' },
    ]
    await sameAsFresh(index, root, queries, 'before any edit')
    const list = () => fs.readdirSync(root, { recursive: true }).filter((p) => p.endsWith('.txt'))
    let edits = 0
    for (let round = 0; round < 8; round++) {
      const did = []
      for (let n = 0; n < 15; n++, edits++) {
        const file = path.join(root, pick(list()))
        const roll = rand()
        if (roll < 0.35) {
          fs.writeFileSync(file, text())
          did.push(`write ${file}`)
        } else if (roll < 0.6) {
          // Same length, same mtime: only the event says it changed.
          const old = fs.readFileSync(file, 'utf8')
          rewriteKeepingTime(file, old.split('').map((c) => (c === '\n' ? c : pick('abcnedlxyz'.split('')))).join(''))
          did.push(`rewrite in place ${file}`)
        } else if (roll < 0.75) {
          fs.appendFileSync(file, `${line()}\n`)
          did.push(`append ${file}`)
        } else if (roll < 0.85) {
          const to = path.join(root, `d${Math.floor(rand() * 4)}`, `r${edits}.txt`)
          fs.renameSync(file, to)
          did.push(`rename ${file} -> ${to}`)
        } else {
          fs.writeFileSync(path.join(root, `d${Math.floor(rand() * 4)}`, `n${edits}.txt`), text())
          did.push('new file')
        }
      }
      await sleep(30)
      await within(index.settled(), 10_000)
      await sameAsFresh(index, root, queries, `round ${round} after ${did.slice(-4).join('; ')}`)
    }
    const stats = index.stats()
    if (cache !== undefined) assert.ok(stats.contentCacheBytes <= cache, `contentCacheBytes ${stats.contentCacheBytes} over the cap ${cache}`)
    assert.ok(stats.contentCacheFiles > 0, 'some contents are held')
    t.diagnostic(`${edits} edits, 8 rounds, ${queries.length} queries a round; ${stats.contentFiles} files sketched, ${stats.contentCacheFiles} held (${stats.contentCacheBytes} B)`)
  })
})

/** Read system calls this process made so far (Linux), or null. */
function readCalls() {
  try {
    return Number(/^syscr: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))[1])
  } catch {
    return null
  }
}

describe('the content cache (openIndex contentCacheBytes)', () => {
  test('files held whole answer as files on disk: a NUL past the first chunk, a line over the line buffer', async (t) => {
    const files = {
      'late-nul.txt': `needle\n${'x'.repeat(300_000)}\n\0needle\n`,
      'long-line.txt': `${'y'.repeat(5 << 20)} needle\nneedle again\n`,
      'plain.txt': 'a needle\n',
    }
    const root = tmpTree(t, files)
    const index = await openIndexBuilt(root)
    t.after(() => index.close())
    for (const outputMode of ['content', 'count', 'files']) {
      const q = { pattern: 'needle', outputMode }
      const fresh = await searchFiles({ ...q, cwd: root })
      assert.deepEqual(uncursored(await index.searchFiles(q)), uncursored(fresh), `index, first search: ${outputMode}`)
      assert.deepEqual(uncursored(await index.searchFiles(q)), uncursored(fresh), `index, from memory: ${outputMode}`)
      // (A reader's files all have the same mtime: files mode, newest first, lists them by path.)
      const viaReader = await searchFiles({ ...q, reader: memoryReader(files), cwd: '/' })
      if (outputMode === 'files') fresh.files.sort()
      assert.deepEqual(uncursored({ ...viaReader, path: fresh.path }), uncursored(fresh), `a reader's files held whole: ${outputMode}`)
    }
    assert.ok(index.stats().contentCacheFiles >= 2)
  })

  test('a repeated search is answered from memory: it reads no file; with a cap of 0 it reads them all', { skip: process.platform !== 'linux' && 'counts reads in /proc/self/io' }, async (t) => {
    const { skip } = requireTool('/proc/self/io', {
      why: 'counting the read calls',
      probe: () => (readCalls() === null ? 'no syscr line to read' : null),
      install: 'a Linux kernel with task I/O accounting (CONFIG_TASK_IO_ACCOUNTING)',
    })
    if (skip) return t.skip(skip)
    const files = {}
    for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}.txt`] = `line ${i}\n${i % 50 === 0 ? 'needle here\n' : 'hay\n'}`
    const root = tmpTree(t, files)
    for (const [cache, held] of [[undefined, 300], [0, 0]]) {
      const index = await openIndexBuilt(root, { contentCacheBytes: cache })
      const q = { pattern: 'line|needle', outputMode: 'count' }
      const first = await index.searchFiles(q)
      assert.equal(first.matchCount, 306)
      assert.equal(index.stats().contentCacheFiles, held)
      const before = readCalls()
      const again = await index.searchFiles(q)
      const reads = readCalls() - before
      assert.deepEqual(again, first)
      assert.deepEqual(uncursored(again), uncursored(await searchFiles({ ...q, cwd: root })))
      if (cache === 0) assert.ok(reads >= 300, `with no cache every file is read again (${reads} reads)`)
      else assert.ok(reads < 100, `a search from the cache made ${reads} read calls for 300 files`)
      t.diagnostic(`cache ${cache ?? 'default'}: ${reads} read calls for the repeated search`)
      await index.close()
      assert.equal(index.stats().contentCacheBytes, 0, 'close() frees the cache')
    }
  })

  test('under a small cap the smallest files are held, the largest make room, and answers do not change', async (t) => {
    const files = {}
    for (let i = 0; i < 10; i++) files[`small${i}.txt`] = `${String(i).padStart(99, 's')}\n`
    for (let i = 0; i < 5; i++) files[`big${i}.txt`] = `${String(i).padStart(999, 'b')}\n`
    const root = tmpTree(t, files)
    const index = await openIndexBuilt(root, { contentCacheBytes: 1500 })
    t.after(() => index.close())
    for (const q of [{ pattern: '[0-9]$', outputMode: 'count' }, { pattern: 'b+3$' }, { pattern: 's+7$' }]) {
      assert.deepEqual(uncursored(await index.searchFiles(q)), uncursored(await searchFiles({ ...q, cwd: root })), JSON.stringify(q))
      const { contentCacheBytes, contentCacheFiles } = index.stats()
      assert.deepEqual({ contentCacheBytes, contentCacheFiles }, { contentCacheBytes: 1000, contentCacheFiles: 10 }, JSON.stringify(q))
    }
  })

  test('contentCacheBytes must be a whole number of bytes', async (t) => {
    const root = tmpTree(t, { 'a.txt': 'a\n' })
    for (const bad of [-1, 1.5, '64M', Number.NaN, Infinity, null, {}]) {
      await assert.rejects(openIndex(root, { contentCacheBytes: bad }), (err) => {
        assert.equal(err.name, 'FindFilesError')
        assert.equal(err.code, 'invalid-argument')
        assert.match(err.message, /`contentCacheBytes` must be a whole number of bytes, 0 or more/)
        return true
      }, String(bad))
    }
    await assert.rejects(openIndex(root, { contentCache: 10 }), /unknown option `contentCache`; the options are `cwd`, `contentCacheBytes`, `cacheDir`, `persist`, `maxEntries`, `threads`, `watcher` and `pollIntervalMs`/)
  })
})
