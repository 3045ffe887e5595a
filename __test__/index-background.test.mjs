// Work nobody waits for, and the priority calls run at: a live index
// sketches the files a default `searchFiles` reads in the background once
// its tree is built (lowest priority, stopping at close), a content search
// during that build answers exactly as a fresh search, and calls run at the
// host's own priority unless the host passes `priority: 'low'` (checked on
// Linux from /proc: the nice value of the process's threads while a call runs).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { describe, test } from 'node:test'

import { createTools, find, openIndex, searchFiles } from '../index.mjs'
import { rejectsWith, tmpTree, writeTree } from './helpers.mjs'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const isLinux = process.platform === 'linux'

async function until(what, check, ms = 20_000) {
  const start = Date.now()
  for (;;) {
    const value = check()
    if (value) return value
    if (Date.now() - start > ms) throw new Error(`${what}: not within ${ms} ms`)
    await sleep(10)
  }
}

/** The name and nice value of each thread of this process (Linux). */
function threadNices() {
  const out = []
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      const name = stat.slice(stat.indexOf('(') + 1, close)
      // Fields after the name start at field 3 (state); nice is field 19.
      const nice = Number(stat.slice(close + 2).split(' ')[16])
      out.push({ name, nice })
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out
}

/** A tree of `n` small source files holding `needle` in every 97th, plus what a default search leaves out. */
function sourceTree(t, n) {
  const files = {
    '.gitignore': 'ignored/\n',
    'ignored/x.js': 'needle in an ignored file\n',
    'node_modules/pkg/index.js': 'needle in node_modules\n',
    '.hidden/h.js': 'needle in a hidden folder\n',
    'empty.txt': '',
  }
  for (let i = 0; i < n; i++) {
    files[`src/d${i % 40}/f${i}.js`] = `export const v${i} = ${i % 97 === 0 ? '"needle"' : i}\n// ${'line '.repeat(i % 13)}\n`
  }
  return tmpTree(t, files)
}

const uncursored = (r) => (r.cursor === undefined ? r : { ...r, cursor: '<cursor>' })

describe('the background build of the content layer', () => {
  test('sketches exactly the files a default searchFiles reads, says how far it is, and changes no answer', async (t) => {
    const n = 400
    const root = sourceTree(t, n)
    const index = await openIndex(root)
    t.after(() => index.close())
    const first = index.stats()
    assert.ok(['waiting', 'running', 'done'].includes(first.contentBuild), first.contentBuild)
    const stats = await until('the build is done', () => {
      const s = index.stats()
      return s.contentBuild === 'done' && s
    })
    // The n sources, empty.txt, .gitignore and .hidden/h.js (a search reads hidden names):
    // not the ignored or node_modules files.
    assert.equal(stats.contentBuildTotal, n + 3)
    assert.equal(stats.contentBuildFiles, n + 3)
    assert.equal(stats.contentFiles, n + 2, 'every non-empty file read got a sketch, the empty one none')
    assert.equal(stats.contentCacheFiles, 0, 'the build keeps no contents: searches fill the cache')
    for (const q of [{ pattern: 'needle' }, { pattern: 'needle', noIgnore: true }, { pattern: 'v1[0-9]\\b', outputMode: 'count' }]) {
      assert.deepEqual(uncursored(await index.searchFiles(q)), uncursored(await searchFiles({ ...q, cwd: root })), JSON.stringify(q))
    }
  })

  test('a content search while the build runs answers as a fresh search, edits included', async (t) => {
    const root = sourceTree(t, 20_000)
    const index = await openIndex(root)
    t.after(() => index.close())
    let during = 0
    for (let round = 0; round < 12; round++) {
      if (index.stats().contentBuild !== 'done') during++
      if (round === 4) {
        writeTree(root, { 'src/d1/f1.js': 'needle written during the build\n', 'src/new.js': 'needle new\n' })
        await index.settled()
      }
      const q = round % 2 ? { pattern: 'needle', outputMode: 'files', maxResults: 1000 } : { pattern: 'v5[0-9]{2}\\b', outputMode: 'count', maxResults: 1000 }
      assert.deepEqual(uncursored(await index.searchFiles(q)), uncursored(await searchFiles({ ...q, cwd: root })), `round ${round}: ${JSON.stringify(q)}`)
    }
    t.diagnostic(`${during} of 12 searches ran before the build was done`)
    assert.ok(during > 0, 'some searches ran during the build')
    await until('the build ends', () => ['done', 'stopped'].includes(index.stats().contentBuild))
    const q = { pattern: 'needle', outputMode: 'files', maxResults: 1000 }
    assert.deepEqual(uncursored(await index.searchFiles(q)), uncursored(await searchFiles({ ...q, cwd: root })), 'after the build')
  })

  test('close() stops the build at once and frees what it made', async (t) => {
    const root = sourceTree(t, 20_000)
    const index = await openIndex(root)
    const start = Date.now()
    await index.close()
    assert.ok(Date.now() - start < 3000, `close took ${Date.now() - start} ms`)
    const s = index.stats()
    assert.equal(s.closed, true)
    assert.ok(['stopped', 'done', 'waiting'].includes(s.contentBuild), s.contentBuild)
    assert.equal(s.contentFiles, 0)
  })

  test('the build runs at the lowest priority (Linux: nice 19)', { skip: !isLinux && 'reads /proc' }, async (t) => {
    const root = sourceTree(t, 20_000)
    const index = await openIndex(root)
    t.after(() => index.close())
    const seen = await until('a sketch thread shows', () => threadNices().filter((th) => th.name.startsWith('agent-find-sket')), 20_000)
    for (const th of seen) assert.equal(th.nice, 19, JSON.stringify(th))
  })
})

describe('priority', () => {
  test("a call runs at the host's priority; `priority: 'low'` runs it lower with the same answer", { skip: !isLinux && 'reads /proc' }, async (t) => {
    const spec = {}
    for (let i = 0; i < 30_000; i++) spec[`d${i % 300}/f${i}.txt`] = ''
    const root = tmpTree(t, spec)
    const lowest = async (options) => {
      let most = 0
      let low = 0
      let done = false
      const watching = (async () => {
        while (!done) {
          for (const th of threadNices()) {
            // A low call's thread (and the walker threads it starts, which take its name) may
            // still be ending when the next call starts; the index's sketch threads (none here)
            // run lower by design.
            if (th.name === 'agent-find-low') low = Math.max(low, th.nice)
            else if (!th.name.startsWith('agent-find-sket')) most = Math.max(most, th.nice)
          }
          await sleep(1)
        }
      })()
      let result
      for (let i = 0; i < 5; i++) result = await find({ pattern: '**/*.txt', cwd: root, limit: 5, ...options })
      done = true
      await watching
      return { most, low, result }
    }
    // The host's own priority: its main thread's.
    const host = threadNices()[0].nice
    const normal = await lowest({})
    assert.equal(normal.most, host, "no thread of a normal call runs below the host's priority")
    const low = await lowest({ priority: 'low' })
    assert.equal(low.low, Math.max(10, host), "a low call's thread runs at nice 10")
    assert.deepEqual(low.result.entries.map((e) => e.path), normal.result.entries.map((e) => e.path))
    // And a normal call after a low one still runs at the host's priority (no pooled thread was lowered).
    assert.equal((await lowest({})).most, host)
  })

  test('priority takes only normal or low', async (t) => {
    const root = tmpTree(t, { 'a.txt': 'x\n' })
    for (const bad of ['high', 1, true, {}]) {
      await rejectsWith(find({ pattern: '*', cwd: root, priority: bad }), 'invalid-argument', /`priority` must be 'normal' or 'low'/)
      await rejectsWith(searchFiles({ pattern: 'x', cwd: root, priority: bad }), 'invalid-argument', /`priority`/)
    }
    for (const ok of ['normal', 'low', undefined, null]) {
      assert.equal((await find({ pattern: '*', cwd: root, priority: ok })).entries.length, 1)
      assert.equal((await searchFiles({ pattern: 'x', cwd: root, priority: ok })).matchCount, 1)
    }
    const tools = createTools({ cwd: root, priority: 'low' })
    const answer = await tools.call('find', { pattern: '*.txt' })
    assert.equal(answer.isError, false, answer.text)
    assert.throws(() => createTools({ cwd: root, priority: 'urgent' }), /`priority` must be 'normal' or 'low'/)
  })
})
