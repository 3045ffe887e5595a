// Waits on host code: a reader call, a policy or an approve that never
// answers ends at `timeoutMs` or the signal and frees its walk slot; a reader
// whose own code calls find() never deadlocks; mountReader reads large files
// in bounded chunks and never mixes two folders in one answer; the MCP server
// answers an oversized request line and keeps serving. Every wait here is
// bounded (`within`), so a regression fails instead of hanging the suite.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { describe, test } from 'node:test'

import { createTools, find, memoryReader, mountReader, searchFiles } from '../index.mjs'
import { REPO, rejectsWith, requireTool, tmpTree } from './helpers.mjs'

const require = createRequire(import.meta.url)
const never = () => new Promise(() => {})
const CORES = Math.max(2, os.availableParallelism?.() ?? os.cpus().length)
/** More calls than there are reader slots (see napi/src/slots.rs), so a leaked slot shows. */
const MORE_THAN_READER_SLOTS = Math.max(8, 4 * CORES) + 2

/** `promise`, or a rejection naming `what` once `ms` pass: no test waits forever. */
function within(promise, ms, what) {
  let timer
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** A reader over `files` (name → text) in one folder, with `over` replacing some of its methods. */
function flatReader(files, over = {}) {
  return {
    list: async (dir) => (dir === '/' ? Object.keys(files).map((name) => ({ name, type: 'file', size: files[name].length })) : []),
    stat: async (p) => (p === '/' ? { type: 'dir' } : { type: 'file' }),
    read: async (p) => files[p.slice(1)],
    ...over,
  }
}

describe('a reader call that never answers ends at the deadline', () => {
  test('stat never answers: timeoutMs rejects with aborted', async () => {
    const reader = flatReader({ 'a.txt': 'x' }, { stat: never })
    const t0 = Date.now()
    await within(rejectsWith(find({ pattern: '*', reader, timeoutMs: 150 }), 'aborted', 'timeoutMs'), 5000, 'stat')
    assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`)
  })

  test('the read of an ignore file above the search path never answers: timeoutMs rejects with aborted', async () => {
    const dirs = { '/': ['.git', 'sub'], '/.git': [], '/sub': [] }
    const reader = {
      list: async (d) => (dirs[d] ?? []).map((name) => ({ name, type: 'dir' })).concat(d === '/' ? [{ name: '.gitignore', type: 'file' }] : d === '/sub' ? [{ name: 'a.txt', type: 'file' }] : []),
      stat: async (p) => {
        if (dirs[p]) return { type: 'dir' }
        throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' })
      },
      read: (p) => (p === '/.gitignore' ? never() : Promise.reject(Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' }))),
    }
    await within(rejectsWith(find({ pattern: '*', reader, cwd: '/sub', timeoutMs: 150 }), 'aborted', 'timeoutMs'), 5000, 'ignore file above')
  })

  test('the second read of a content search never answers: timeoutMs rejects with aborted', async () => {
    let reads = 0
    const reader = flatReader({ 'a.txt': 'TODO\n' }, {
      read: (p) => (++reads === 1 ? Promise.resolve('TODO\n') : never()),
    })
    await within(rejectsWith(searchFiles({ pattern: 'TODO', reader, timeoutMs: 200, noIgnore: true }), 'aborted', 'timeoutMs'), 5000, 'second read')
    assert.equal(reads, 2)
  })

  test('calls aborted by their signal free their slots: later reader and disk searches run', async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x' })
    const hanging = flatReader({ 'a.txt': 'x' }, { stat: never })
    const aborted = Array.from({ length: MORE_THAN_READER_SLOTS }, () => {
      const ac = new AbortController()
      setTimeout(() => ac.abort(), 50)
      return rejectsWith(find({ pattern: '*', reader: hanging, signal: ac.signal }), 'aborted')
    })
    await within(Promise.all(aborted), 5000, 'aborted calls')
    const viaReader = await within(find({ pattern: '*', reader: memoryReader({ 'b.txt': 'y' }) }), 5000, 'a reader find after the aborts')
    assert.deepEqual(viaReader.entries.map((e) => e.path), ['b.txt'])
    const onDisk = await within(find({ pattern: '*', cwd: dir }), 5000, 'a disk find after the aborts')
    assert.deepEqual(onDisk.entries.map((e) => e.path), ['a.txt'])
  })

  test('calls stopped by timeoutMs free their slots too', async () => {
    const hanging = flatReader({ 'a.txt': 'x' }, { stat: never })
    const stopped = Array.from({ length: MORE_THAN_READER_SLOTS }, () =>
      rejectsWith(find({ pattern: '*', reader: hanging, timeoutMs: 100 }), 'aborted'))
    await within(Promise.all(stopped), 10_000, 'timed-out calls')
    const after = await within(find({ pattern: '*', reader: memoryReader({ 'b.txt': 'y' }) }), 5000, 'a reader find after them')
    assert.equal(after.entries.length, 1)
  })

  test('a disk search never waits behind reader searches that wait for their reader', async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x' })
    const ac = new AbortController()
    const slow = flatReader({ 'a.txt': 'x' }, { list: never })
    const waiting = Array.from({ length: 2 * CORES }, () =>
      find({ pattern: '*', reader: slow, signal: ac.signal }).catch((e) => e.code))
    try {
      const onDisk = await within(find({ pattern: '*', cwd: dir }), 5000, 'a disk find beside hung reader searches')
      assert.equal(onDisk.entries.length, 1)
    } finally {
      ac.abort()
      assert.deepEqual(new Set(await within(Promise.all(waiting), 5000, 'the aborted reader searches')), new Set(['aborted']))
    }
  })
})

describe('timeoutMs covers the policy and approve', () => {
  test('a policy that never answers', async (t) => {
    const cwd = tmpTree(t, { 'a.txt': 'x' })
    await within(rejectsWith(find({ pattern: '*', cwd, policy: never, timeoutMs: 100 }), 'aborted', 'the policy', 'timeoutMs (100 ms)'), 5000, 'policy')
    await within(rejectsWith(searchFiles({ pattern: 'x', cwd, policy: never, timeoutMs: 100 }), 'aborted', 'the policy'), 5000, 'policy (search)')
  })

  test('an approve that never answers', async (t) => {
    const cwd = tmpTree(t, { 'a.txt': 'x' })
    const call = find({ pattern: '*', cwd, policy: () => 'require_approval', approve: never, timeoutMs: 100 })
    await within(rejectsWith(call, 'aborted', 'approve', 'timeoutMs'), 5000, 'approve')
  })

  test('the time the policy took counts: the walk gets only what is left', async (t) => {
    const slowPolicy = () => new Promise((resolve) => setTimeout(() => resolve('allow'), 250))
    const slowList = flatReader({ 'a.txt': 'x' }, { list: () => new Promise((r) => setTimeout(() => r([]), 250)) })
    // 250 ms of policy, then a 250 ms listing: past a 400 ms deadline counted from the call.
    await within(rejectsWith(find({ pattern: '*', reader: slowList, policy: slowPolicy, timeoutMs: 400 }), 'aborted', 'timeoutMs'), 5000, 'policy + walk')
    // A policy that answers in time still lets the call run.
    const cwd = tmpTree(t, { 'a.txt': 'x' })
    const policy = () => new Promise((resolve) => setTimeout(() => resolve('allow'), 20))
    const result = await within(find({ pattern: '*', cwd, policy, timeoutMs: 5000 }), 5000, 'allowed call')
    assert.equal(result.entries.length, 1)
  })

  test('createTools({ timeoutMs }) bounds a policy that never answers', async (t) => {
    const cwd = tmpTree(t, { 'a.txt': 'x' })
    const tools = createTools({ cwd, timeoutMs: 100, policy: never })
    const out = await within(tools.call('find', { pattern: '*' }), 5000, 'tools.call')
    assert.equal(out.isError, true)
    assert.match(out.text, /aborted/)
    assert.match(out.text, /timeoutMs/)
  })
})

describe('a reader whose own code calls find()', () => {
  test('a reader whose list calls a disk find: many at once finish', async (t) => {
    const cwd = tmpTree(t, { 'a.txt': 'x', 'b.txt': 'x' })
    const reader = flatReader({}, {
      list: async (dir) => {
        const local = await find({ pattern: '*', cwd, limit: 10 })
        return dir === '/' ? local.entries.map((e) => ({ name: e.path, type: 'file' })) : []
      },
    })
    const all = Array.from({ length: MORE_THAN_READER_SLOTS }, () => find({ pattern: '*', reader, gitignore: false }))
    const results = await within(Promise.all(all), 15_000, 'reader searches whose list calls find')
    for (const r of results) assert.deepEqual(r.entries.map((e) => e.path), ['a.txt', 'b.txt'])
  })

  test('a reader whose list calls find through another reader: many at once finish', async () => {
    const inner = memoryReader({ 'x.txt': '', 'y.txt': '' })
    const reader = flatReader({}, {
      list: async (dir) => {
        // After a timer too: the inner call still counts as the reader's own.
        await new Promise((r) => setTimeout(r, 5))
        const listed = await find({ pattern: '*', reader: inner })
        return dir === '/' ? listed.entries.map((e) => ({ name: e.path, type: 'file' })) : []
      },
    })
    const all = Array.from({ length: MORE_THAN_READER_SLOTS }, () => find({ pattern: '*', reader, gitignore: false }))
    const results = await within(Promise.all(all), 15_000, 'nested reader searches')
    for (const r of results) assert.deepEqual(r.entries.map((e) => e.path), ['x.txt', 'y.txt'])
  })
})

describe('ranged reads (read(path, { offset, length }))', () => {
  test('mountReader reads the part asked for, and the whole file without a range', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '0123456789' })
    const reader = mountReader({ '/w': dir })
    assert.equal(reader.ranges, true)
    assert.equal(Buffer.from(await reader.read('/w/a.txt', { offset: 2, length: 3 })).toString(), '234')
    assert.equal(Buffer.from(await reader.read('/w/a.txt', { offset: 8, length: 100 })).toString(), '89')
    assert.equal((await reader.read('/w/a.txt', { offset: 50, length: 4 })).length, 0)
    assert.equal(Buffer.from(await reader.read('/w/a.txt')).toString(), '0123456789')
    await assert.rejects(reader.read('/w/a.txt', { offset: -1, length: 3 }), /offset, length/)
  })

  test('a large file is searched in chunks: matches past the first chunk and across chunk edges, as on disk', async (t) => {
    const dir = tmpTree(t, {})
    const MiB = 1 << 20
    const filler = Buffer.alloc(3 * MiB + 12345, 'a\n')
    // A match 3 bytes before the 1 MiB edge runs across it, another deep in the file.
    filler.write('NEEDLE one', MiB - 3)
    filler.write('\nNEEDLE two\n', 2 * MiB + 777)
    fs.writeFileSync(path.join(dir, 'big.txt'), filler)
    fs.writeFileSync(path.join(dir, 'small.txt'), 'NEEDLE small\n')
    const local = await within(searchFiles({ pattern: 'NEEDLE \\w+', cwd: dir, outputMode: 'content' }), 20_000, 'local')
    const base = mountReader({ '/w': dir })
    let ranged = 0
    const counting = { ...base, read: (p, range, search) => { if (range) ranged++; return base.read(p, range, search) } }
    const mounted = await within(searchFiles({ pattern: 'NEEDLE \\w+', reader: counting, cwd: '/w', outputMode: 'content' }), 20_000, 'mounted')
    assert.ok(ranged >= 4, `the big file was read in ${ranged} ranged reads`)
    assert.equal(local.matches.length, 3)
    assert.deepEqual(mounted.matches, local.matches)
    const counted = await within(searchFiles({ pattern: 'NEEDLE', reader: mountReader({ '/w': dir }), cwd: '/w', outputMode: 'count' }), 20_000, 'count')
    const localCount = await within(searchFiles({ pattern: 'NEEDLE', cwd: dir, outputMode: 'count' }), 20_000, 'local count')
    assert.equal(localCount.matchCount, 3)
    assert.deepEqual(counted.counts, localCount.counts)
  })

  test('a line longer than the line buffer, read in chunks, is searched in pieces as on disk', async (t) => {
    const dir = tmpTree(t, {})
    const long = Buffer.alloc(6 << 20, 'x')
    long.write('NEEDLE', 3 << 20)
    fs.writeFileSync(path.join(dir, 'long.txt'), Buffer.concat([Buffer.from('first\n'), long, Buffer.from('\nNEEDLE after\n')]))
    const local = await within(searchFiles({ pattern: 'NEEDLE', cwd: dir, outputMode: 'content' }), 20_000, 'local')
    const mounted = await within(searchFiles({ pattern: 'NEEDLE', reader: mountReader({ '/w': dir }), cwd: '/w', outputMode: 'content' }), 20_000, 'mounted')
    assert.equal(local.matches.length, 2)
    assert.deepEqual(mounted.matches.map((m) => [m.file, m.line]), [['long.txt', 2], ['long.txt', 3]])
    assert.deepEqual(mounted.matches, local.matches)
  })

  test('the core asks for at most 1 MiB a read, and bounds the bytes in flight', async () => {
    const MiB = 1 << 20
    const sizes = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}.txt`, 2 * MiB + i]))
    let inFlight = 0
    let peak = 0
    let largest = 0
    const reader = {
      concurrency: 64,
      ranges: true,
      list: async (dir) => (dir === '/' ? Object.keys(sizes).map((name) => ({ name, type: 'file', size: sizes[name] })) : []),
      stat: async () => ({ type: 'dir' }),
      read: async (p, range) => {
        assert.ok(range, 'content search asks a reader with ranges: true for ranges (ignore files are off here)')
        largest = Math.max(largest, range.length)
        inFlight += range.length
        peak = Math.max(peak, inFlight)
        await new Promise((r) => setTimeout(r, 1))
        inFlight -= range.length
        const size = sizes[p.slice(1)]
        const n = Math.max(0, Math.min(range.length, size - range.offset))
        const out = Buffer.alloc(n, 'x\n')
        if (range.offset + n === size && n > 0) out.write('Z', n - 1)
        return out
      },
    }
    const result = await within(searchFiles({ pattern: 'Z', reader, noIgnore: true }), 30_000, 'chunked search')
    assert.equal(result.matches.length, 40, 'the match at the end of every file is found')
    assert.ok(largest <= MiB, `a read asked for ${largest} bytes`)
    assert.ok(peak <= 33 * MiB, `${peak} bytes were asked for at once`)
  })

  test('`ranges` must be a boolean and needs read; a plain reader is asked for whole files, as before', async () => {
    await rejectsWith(find({ pattern: '*', reader: { ...flatReader({}), ranges: 'yes' } }), 'invalid-argument', 'reader.ranges')
    const { read, ...noRead } = flatReader({})
    await rejectsWith(find({ pattern: '*', reader: { ...noRead, ranges: true } }), 'invalid-argument', 'ranges')
    const seen = []
    const reader = flatReader({ 'a.txt': 'TODO\n' }, { read: async (p, range) => { seen.push(range); return 'TODO\n' } })
    const result = await within(searchFiles({ pattern: 'TODO', reader, noIgnore: true }), 5000, 'plain reader')
    assert.equal(result.matches.length, 1)
    assert.ok(seen.length > 0 && seen.every((r) => r === undefined))
  })

  test('a ranged read answering more than asked fails the call with fs-error', async () => {
    const reader = flatReader({ 'a.txt': 'x' }, { ranges: true, read: async () => Buffer.alloc(3 << 20) })
    await within(rejectsWith(searchFiles({ pattern: 'x', reader, noIgnore: true }), 'fs-error', 'at most `length` bytes'), 10_000, 'oversized answer')
  })

  test('a ranged read that fails mid-file fails the call; one that never answers ends at timeoutMs', async () => {
    const big = 3 << 20
    const base = { ranges: true, list: async (d) => (d === '/' ? [{ name: 'a.txt', type: 'file', size: big }] : []), stat: async () => ({ type: 'dir' }) }
    const failing = { ...base, read: async (p, r) => { if (r.offset > 0) throw Object.assign(new Error('disk on fire'), { code: 'EIO' }); return Buffer.alloc(r.length, 'a\n') } }
    await within(rejectsWith(searchFiles({ pattern: 'Z', reader: failing, noIgnore: true }), 'fs-error', 'disk on fire'), 10_000, 'failing chunk')
    const hanging = { ...base, read: (p, r) => (r.offset > 0 ? never() : Promise.resolve(Buffer.alloc(r.length, 'a\n'))) }
    await within(rejectsWith(searchFiles({ pattern: 'Z', reader: hanging, noIgnore: true, timeoutMs: 300 }), 'aborted', 'timeoutMs'), 10_000, 'hanging chunk')
  })

  test('mountReader: large files cost bounded memory, and one over 2 GiB does not fail the search (child, ulimit -v)', (t) => {
    const dir = tmpTree(t, { 'notes.txt': 'TODO find me\n' })
    const MiB = 1 << 20
    const fd = fs.openSync(path.join(dir, 'f0.log'), 'w')
    const block = Buffer.alloc(4 * MiB, 'the quick brown fox\n')
    for (let i = 0; i < 16; i++) fs.writeSync(fd, block) // 64 MiB
    fs.closeSync(fd)
    for (let i = 1; i < 4; i++) fs.linkSync(path.join(dir, 'f0.log'), path.join(dir, `f${i}.log`))
    fs.closeSync(fs.openSync(path.join(dir, 'disk.img'), 'w'))
    fs.truncateSync(path.join(dir, 'disk.img'), 2.5 * 1024 ** 3) // sparse
    const script = `
      const { searchFiles, mountReader } = require(${JSON.stringify(REPO)})
      const hwm = () => Number(require('fs').readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\\s+(\\d+)/)[1]) * 1024
      const before = hwm()
      searchFiles({ pattern: 'TODO|needle', reader: mountReader({ '/w': process.argv[1] }), cwd: '/w' })
        .then((r) => console.log(JSON.stringify({ files: r.matches.map((m) => m.file), growth: hwm() - before })),
              (e) => console.log(JSON.stringify({ error: e.code + ': ' + e.message })))`
    const run = spawnSync('/bin/sh', ['-c', 'ulimit -v 2500000; exec "$0" -e "$1" "$2"', process.execPath, script, dir],
      { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' })
    assert.equal(run.status, 0, `the child died: ${run.signal ?? run.status} ${run.stderr}`)
    const out = JSON.parse(run.stdout.trim().split('\n').pop())
    assert.deepEqual(out, { files: ['notes.txt'], growth: out.growth }, JSON.stringify(out))
    // Whole files would hold 4 x 64 MiB at least twice (JS and Rust copies).
    assert.ok(out.growth < 160 * MiB, `peak RSS grew by ${Math.round(out.growth / MiB)} MiB`)
  })
})

describe('mountReader: one folder per search', () => {
  test('a mount folder replaced during a search fails its later calls with ESTALE; a new search sees the new folder', async (t) => {
    const root = tmpTree(t, { 'w/d/old.txt': '', 'other/d/new.txt': '' })
    const w = path.join(root, 'w')
    const reader = mountReader({ '/w': w })
    const search = {}
    assert.deepEqual((await reader.list('/w', search)).map((e) => e.name), ['d'])
    fs.renameSync(w, `${w}.real`)
    fs.symlinkSync(path.join(root, 'other'), w)
    await assert.rejects(reader.list('/w/d', search), (e) => e.code === 'ESTALE' && /replaced/.test(e.message) && !e.message.includes(root))
    await assert.rejects(reader.stat('/w/d', search), { code: 'ESTALE' })
    assert.deepEqual((await reader.list('/w/d', {})).map((e) => e.name), ['new.txt'])
    fs.unlinkSync(w)
    await assert.rejects(reader.read('/w/d/new.txt', undefined, search), { code: 'ESTALE' })
  })

  test('through find: the replaced folder fails the call with fs-error, not a mixed answer', async (t) => {
    const root = tmpTree(t, { 'w/a/x.txt': '', 'w/b/y.txt': '', 'other/a/p.txt': '', 'other/b/q.txt': '' })
    const w = path.join(root, 'w')
    const base = mountReader({ '/w': w })
    let swapped = false
    // Swaps the folder as soon as the first listing answered.
    const reader = {
      ...base,
      list: async (dir, search) => {
        const out = await base.list(dir, search)
        if (!swapped) {
          swapped = true
          fs.renameSync(w, `${w}.real`)
          fs.symlinkSync(path.join(root, 'other'), w)
        }
        return out
      },
    }
    await within(rejectsWith(find({ pattern: '**', reader, cwd: '/w' }), 'fs-error', 'replaced'), 5000, 'swapped search')
  })
})

describe('MCP: a request line over 10 MiB', () => {
  const { limitLines, idOf } = require('../js/mcp.js')

  test('limitLines passes short lines, drops a long one without holding it, and names its id', async () => {
    const { PassThrough } = await import('node:stream')
    const input = new PassThrough()
    const dropped = []
    const out = limitLines(input, 16, (head) => dropped.push(head.toString()))
    let text = ''
    out.on('data', (d) => { text += d })
    const ended = new Promise((r) => out.on('end', r))
    input.write('{"id":1}\n{"id":2,"x":"')
    input.write('a'.repeat(100))
    input.write('"}\n{"id":3}\n')
    input.end('tail')
    await within(ended, 2000, 'limitLines')
    assert.equal(text, '{"id":1}\n{"id":3}\ntail')
    assert.equal(dropped.length, 1)
    assert.ok(dropped[0].startsWith('{"id":2'))
    assert.equal(idOf(Buffer.from('{"jsonrpc":"2.0","id":7,"method":"tools/call"')), 7)
    assert.equal(idOf(Buffer.from('{"jsonrpc": "2.0", "id": "abc", "params"')), 'abc')
    assert.equal(idOf(Buffer.from('{"method":"x","params":{"id":5}')), null)
  })

  test('the server answers it with a JSON-RPC error and serves the next call', async (t) => {
    const { skip } = requireTool('@modelcontextprotocol/sdk', {
      why: 'the MCP server',
      probe: () => {
        require.resolve('@modelcontextprotocol/sdk/server/stdio.js')
        return null
      },
      install: 'npm ci (it is a devDependency)',
    })
    if (skip) return t.skip(skip)
    const dir = tmpTree(t, { 'a.txt': 'x' })
    const child = spawn(process.execPath, [path.join(REPO, 'bin', 'agent-find.js'), 'mcp', '--root', dir], { stdio: ['pipe', 'pipe', 'pipe'] })
    t.after(() => child.kill('SIGKILL'))
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => { out += d })
    child.stderr.on('data', (d) => { err += d })
    child.stdin.on('error', () => {})
    const send = (o) => child.stdin.write(JSON.stringify(o) + '\n')
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } })
    send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'find', arguments: { pattern: 'a'.repeat(11 << 20) } } })
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'find', arguments: { pattern: '*' } } })
    const answers = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l))
    await within((async () => {
      while (!answers().some((m) => m.id === 3)) await new Promise((r) => setTimeout(r, 50))
    })(), 20_000, `the answer to the call after the long line (stderr: ${err})`)
    const big = answers().find((m) => m.id === 2)
    assert.equal(big.error.code, -32600)
    assert.match(big.error.message, /10 MiB/)
    assert.match(answers().find((m) => m.id === 3).result.content[0].text, /a\.txt/)
    assert.match(err, /request line over/)
  })
})
