// The live index (openIndex) against a hostile file system: a folder removed
// by its parent's listing while a look at it is pending, an index dropped
// unclosed while its thread is busy, close() with the object kept, folders
// that can be listed but not entered, its own folder made unreadable, a root
// deleted or replaced, a folder touched every few milliseconds while the
// index opens, and the inotify watch limit (folders, and files with more than
// one name). Every wait is bounded.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { find, openIndex } from '../index.mjs'
import { buildChain, openToOthers, removeDeep, runAsNobody } from './hostile-helpers.mjs'
import { REPO, cannotRunAsNobody, makeTmp, rejectsWith, removeTmp, requireTool } from './helpers.mjs'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
/** `promise`'s value, or `late` if it takes longer than `ms`. */
const within = (promise, ms, late = 'timed out') => Promise.race([promise, sleep(ms).then(() => late)])

/** A temp dir that uid 65534 may write in (removed after the test). */
function sharedTmp(t) {
  const dir = makeTmp()
  openToOthers(dir)
  fs.chmodSync(dir, 0o777)
  t.after(() => {
    for (const sub of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, sub), 0o755)
    removeTmp(dir)
  })
  return dir
}

describe('openIndex: its thread never dies silently', () => {
  // A new folder waits for a second look while its parent, listed again, drops
  // it: the parent is made listable but not searchable (0444) right after the
  // folders are renamed away and back. Reusing the dropped folder's slot used
  // to panic the keeper thread, after which settled() never resolved.
  test('a folder dropped while its second look is pending (uid 65534)', async (t) => {
    const why = cannotRunAsNobody()
    if (why) return t.skip(why)
    const dir = sharedTmp(t)
    const out = runAsNobody(`async ({ find, openIndex }) => {
      const fs = require('fs'), path = require('path')
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
      const root = ${JSON.stringify(dir)}, a = path.join(root, 'a')
      const seen = []
      for (let attempt = 0; attempt < 3; attempt++) {
        try { fs.chmodSync(a, 0o755) } catch {}
        fs.rmSync(a, { recursive: true, force: true }); fs.rmSync(path.join(root, 'after.txt'), { force: true })
        fs.mkdirSync(path.join(a, 'b'), { recursive: true })
        const index = await openIndex(root)
        fs.mkdirSync(path.join(a, 'b', 'c')); await sleep(5)
        fs.renameSync(a, a + '2'); await sleep(5)
        fs.renameSync(a + '2', a); await sleep(5)
        fs.chmodSync(a, 0o444)
        await sleep(300)
        const settled = await Promise.race([index.settled().then(() => 'resolved', (e) => e.code), sleep(5000).then(() => 'pending')])
        fs.writeFileSync(path.join(root, 'after.txt'), 'x')
        await Promise.race([index.settled(), sleep(5000)])
        const after = await index.find({ pattern: 'after.txt' }).then((r) => r.matched, (e) => e.code)
        const q = { pattern: '**', type: 'any', sortBy: 'name' }
        const show = (r) => JSON.stringify(r.entries.map((e) => e.path))
        const same = await index.find(q).then(show, (e) => e.code) === show(await find({ ...q, cwd: root }))
        seen.push({ settled, after, same })
        await index.close()
      }
      fs.chmodSync(a, 0o755)
      return seen
    }`)
    assert.ok(out.ok, JSON.stringify(out))
    for (const round of out.value) {
      assert.deepEqual(round, { settled: 'resolved', after: 1, same: true }, JSON.stringify(out.value))
    }
  })

  // The keeper thread could hold the last reference to an unclosed index and
  // then join itself ("failed to join thread: Resource deadlock avoided").
  test('an unclosed index garbage-collected while its thread is busy', { timeout: 90_000 }, (t) => {
    const dir = makeTmp()
    t.after(() => removeTmp(dir))
    for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(dir, `f${i}`), 'x')
    const script = `
      const fs = require('fs'), path = require('path')
      const { openIndex } = require(${JSON.stringify(path.join(REPO, 'index.js'))})
      const root = ${JSON.stringify(dir)}
      ;(async () => {
        for (let round = 0; round < 6; round++) {
          let index = await openIndex(root)
          for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(root, 'f' + i), String(round))
          index = null
          global.gc(); global.gc()
          await new Promise((r) => setTimeout(r, 30))
        }
        await new Promise((r) => setTimeout(r, 500)); global.gc()
        console.log('rounds done')
      })()`
    const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 80_000, killSignal: 'SIGKILL' })
    assert.equal(r.signal, null, `the child was killed (${r.error?.code ?? r.signal})`)
    assert.doesNotMatch(r.stderr, /panicked|failed to join thread/)
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /rounds done/)
  })
})

describe('openIndex: close() frees what the index holds', () => {
  test('no descriptor on the folder and no entries stay after close(), with the object kept', { skip: process.platform !== 'linux' }, async (t) => {
    const dir = makeTmp()
    t.after(() => removeTmp(dir))
    for (let d = 0; d < 10; d++) {
      fs.mkdirSync(path.join(dir, `d${d}`))
      for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(dir, `d${d}`, `f${i}.ts`), '')
    }
    const onFolder = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`) === dir
        } catch {
          return false
        }
      }).length
    const before = onFolder()
    const kept = []
    for (let i = 0; i < 3; i++) {
      const index = await openIndex(dir)
      assert.equal(index.stats().entries, 510)
      assert.equal(onFolder(), before + 1, 'the open index holds one descriptor on its folder')
      const closing = index.close()
      // Later calls fail at once, before the promise settles.
      await rejectsWith(index.find('**'), 'invalid-argument', /index is closed/)
      await closing
      kept.push(index)
      assert.equal(onFolder(), before, 'the descriptor is closed by close(), not at GC')
      assert.deepEqual({ entries: index.stats().entries, closed: index.stats().closed }, { entries: 0, closed: true })
    }
    await rejectsWith(kept[0].settled(), 'invalid-argument', /index is closed/)
  })
})

describe('openIndex: the same entries as a fresh find', () => {
  test('in a folder that can be listed but not entered (uid 65534)', async (t) => {
    const why = cannotRunAsNobody()
    if (why) return t.skip(why)
    const dir = sharedTmp(t)
    const out = runAsNobody(`async ({ find, openIndex }) => {
      const fs = require('fs'), path = require('path')
      const root = ${JSON.stringify(dir)}
      fs.mkdirSync(path.join(root, 'locked', 'sub'), { recursive: true })
      fs.writeFileSync(path.join(root, 'locked', 'a.txt'), 'a'); fs.writeFileSync(path.join(root, 'open.txt'), 'o')
      fs.chmodSync(path.join(root, 'locked'), 0o444)
      const q = { pattern: '**/*', type: 'any', sortBy: 'name' }
      const show = (r) => r.entries.map((e) => e.path + ':' + e.type + ':' + e.size)
      const index = await openIndex(root)
      const rounds = [[show(await find({ ...q, cwd: root })), show(await index.find(q))]]
      // A change: the locked folder's listing is compared again too.
      fs.chmodSync(path.join(root, 'locked'), 0o755)
      fs.writeFileSync(path.join(root, 'locked', 'b.txt'), 'bb')
      fs.chmodSync(path.join(root, 'locked'), 0o444)
      await Promise.race([index.settled(), new Promise((r) => setTimeout(r, 5000))])
      rounds.push([show(await find({ ...q, cwd: root })), show(await index.find(q))])
      await index.close()
      fs.chmodSync(path.join(root, 'locked'), 0o755)
      return rounds
    }`)
    assert.ok(out.ok, JSON.stringify(out))
    const [[fresh, indexed], [fresh2, indexed2]] = out.value
    assert.ok(fresh.includes('locked/a.txt:file:0') && fresh.includes('locked/sub:dir:0'), JSON.stringify(fresh))
    assert.deepEqual(indexed, fresh)
    assert.ok(fresh2.includes('locked/b.txt:file:0'), JSON.stringify(fresh2))
    assert.deepEqual(indexed2, fresh2)
  })
})

describe('openIndex: its own folder made unreadable', () => {
  // Mode 311 (-wx: entered but not listed), 000, then 444 (r--: listed but
  // not entered), then 755 again: every call answers as a fresh one does,
  // refusals included, and nothing cached (a file's contents) leaks while
  // the folder is refused. A file made while it was refused is found after.
  test('every call answers as a fresh call: permission-denied while refused, then the tree as it is (uid 65534)', async (t) => {
    const why = cannotRunAsNobody()
    if (why) return t.skip(why)
    const dir = sharedTmp(t)
    const out = runAsNobody(`async ({ find, findFiles, searchFiles, openIndex }) => {
      const fs = require('fs'), path = require('path')
      const root = path.join(${JSON.stringify(dir)}, 'ws')
      fs.mkdirSync(path.join(root, 'sub'), { recursive: true })
      fs.writeFileSync(path.join(root, 'a.txt'), 'secret needle\\n'); fs.writeFileSync(path.join(root, 'sub', 'b.txt'), 'needle b\\n')
      const index = await openIndex(root)
      const settle = () => Promise.race([index.settled(), new Promise((r) => setTimeout(r, 5000))])
      const show = (r) => JSON.stringify(Array.isArray(r) ? r : r.entries ? r.entries.map((e) => e.path + ':' + e.type + ':' + e.size) : r.matches)
      const calls = [
        ['find', { pattern: '**', type: 'any', sortBy: 'name' }],
        ['find', { pattern: '**', path: 'sub', sortBy: 'name' }],
        ['findFiles', '**'],
        ['searchFiles', { pattern: 'needle' }],
        ['searchFiles', { pattern: 'needle', path: 'sub' }],
      ]
      const run = (f, a) => f(a).then(show, (e) => e.code)
      const round = async () => {
        const out = []
        for (const [name, args] of calls) {
          const fresh = name === 'findFiles' ? await findFiles(args, root).then(show, (e) => e.code) : await run((o) => ({ find, searchFiles })[name]({ ...o, cwd: root }), args)
          const indexed = name === 'findFiles' ? await index.findFiles(args).then(show, (e) => e.code) : await run((o) => index[name](o), args)
          out.push({ call: name + ' ' + JSON.stringify(args), fresh, indexed })
        }
        return out
      }
      const rounds = { open: await round() }
      for (const mode of [0o311, 0o000, 0o444, 0o755]) {
        fs.chmodSync(root, mode)
        if (mode === 0o311) fs.writeFileSync(path.join(root, 'made-while-refused.txt'), 'needle new\\n')
        await settle()
        rounds[mode.toString(8)] = await round()
      }
      await index.close()
      return rounds
    }`)
    assert.ok(out.ok, JSON.stringify(out))
    for (const [mode, calls] of Object.entries(out.value)) {
      for (const { call, fresh, indexed } of calls) assert.equal(indexed, fresh, `mode ${mode}: ${call}`)
    }
    const codes = (mode) => out.value[mode].map((c) => c.fresh)
    assert.deepEqual(codes('311').map((c) => c === 'permission-denied'), [true, false, true, true, false], JSON.stringify(out.value['311']))
    assert.ok(codes('0').every((c) => c === 'permission-denied'), JSON.stringify(out.value['0']))
    assert.match(codes('755')[0], /made-while-refused\.txt/)
  })
})

describe('openIndex: a root deleted or replaced', () => {
  const q = { pattern: '**/*', sortBy: 'name' }
  function setup(t) {
    const dir = makeTmp()
    t.after(() => removeTmp(dir))
    const root = path.join(dir, 'root')
    fs.mkdirSync(path.join(root, 'src'), { recursive: true })
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, 'src', `f${i}.ts`), `old ${i}\n`)
    return { dir, root }
  }

  test('deleted: every call rejects with not-found, and still does once it is re-created', async (t) => {
    const { root } = setup(t)
    const index = await openIndex(root)
    t.after(() => index.close())
    assert.equal((await index.find(q)).entries.length, 5)
    fs.rmSync(root, { recursive: true })
    await rejectsWith(within(index.settled(), 5000), 'not-found', /indexed folder `.*root` was deleted or moved away/, /openIndex/)
    await rejectsWith(index.find(q), 'not-found', /was deleted or moved away/)
    await rejectsWith(index.searchFiles({ pattern: 'old' }), 'not-found', /was deleted or moved away/)
    fs.mkdirSync(root)
    fs.writeFileSync(path.join(root, 'new.txt'), 'new\n')
    await rejectsWith(index.find(q), 'not-found', /was deleted or moved away/)
    assert.equal(index.stats().entries, 0, 'the tree is freed')
    assert.match(index.stats().lastError, /was deleted or moved away/)
  })

  test('moved away and replaced: every call rejects, never the moved files', async (t) => {
    const { root } = setup(t)
    const index = await openIndex(root)
    t.after(() => index.close())
    fs.renameSync(root, `${root}.old`)
    fs.mkdirSync(root)
    fs.writeFileSync(path.join(root, 'new.txt'), 'new\n')
    fs.writeFileSync(path.join(`${root}.old`, 'src', 'added-after-move.ts'), 'x\n')
    // `fs-error` once another folder is at the path; `not-found` if the index
    // looked in between, when nothing was there (the first answer stays).
    const failure = await index.find(q).then(() => null, (e) => e)
    assert.ok(failure, 'index.find answered from the moved folder')
    const code = failure.code
    assert.ok(['fs-error', 'not-found'].includes(code), `${code}: ${failure.message}`)
    assert.match(failure.message, code === 'fs-error' ? /moved away or replaced by another folder/ : /deleted or moved away/)
    await rejectsWith(index.searchFiles({ pattern: 'old|new', outputMode: 'files' }), code, /moved away/)
    await rejectsWith(within(index.settled(), 5000), code, /moved away/)
  })

  test('rm -rf of a 2,000-file root leaves no entry behind', async (t) => {
    const { root } = setup(t)
    for (let d = 0; d < 20; d++) {
      fs.mkdirSync(path.join(root, `d${d}`))
      for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(root, `d${d}`, `f${i}.ts`), 'x')
    }
    const index = await openIndex(root)
    t.after(() => index.close())
    spawnSync('rm', ['-rf', root])
    await within(index.settled().catch(() => {}), 5000)
    await rejectsWith(index.find({ pattern: '**/*', type: 'any' }), 'not-found')
  })
})

describe('openIndex: a busy folder', () => {
  test('opens in bounded time while a file in it is appended to every 4 ms', { timeout: 60_000 }, async (t) => {
    const dir = makeTmp()
    let children = []
    t.after(async () => {
      await Promise.all(children.map((c) => new Promise((resolve) => (c.exitCode === null && c.signalCode === null ? (c.once('exit', resolve), c.kill('SIGKILL')) : resolve()))))
      removeTmp(dir)
    })
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, `f${i}.ts`), 'x\n')
    const log = path.join(dir, 'app.log')
    const code = `const fs = require('fs'); const s = new Int32Array(new SharedArrayBuffer(4)); const parent = process.ppid, end = Date.now() + 30000
      while (process.ppid === parent && Date.now() < end) { fs.appendFileSync(${JSON.stringify(log)}, 'line\\n'); Atomics.wait(s, 0, 0, 4) }`
    children = [0, 1].map(() => spawn(process.execPath, ['-e', code], { stdio: 'ignore' }))
    for (let i = 0; i < 100 && !fs.existsSync(log); i++) await sleep(20)
    await sleep(200)
    const opening = openIndex(dir)
    const opened = await within(opening, 8000, null)
    if (opened === null) opening.then((index) => index.close(), () => {})
    assert.ok(opened, 'openIndex did not resolve within 8 s on a busy folder')
    t.after(() => opened.close())
    assert.equal((await opened.find('*.ts')).matched, 20)
  })
})

describe('openIndex: what is watched', () => {
  /** The inodes this process's inotify descriptors watch (Linux fdinfo). */
  const watchedInodes = () => {
    const inodes = []
    for (const fd of fs.readdirSync('/proc/self/fd')) {
      try {
        if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== 'anon_inode:inotify') continue
        for (const line of fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n')) {
          const m = /^inotify wd:\S+ ino:([0-9a-f]+)/.exec(line)
          if (m) inodes.push(parseInt(m[1], 16))
        }
      } catch {}
    }
    return inodes
  }

  // Folders renamed away and recreated under the same name, in bursts with
  // no wait between, under CPU load (two busy children): the new folder's
  // files, never the old one's. A race before (about one round in ten of 40
  // folders); the index's Rust test of the same case is deterministic.
  test('folders renamed away and recreated under their names', { timeout: 90_000 }, async (t) => {
    const root = makeTmp()
    const hogs = [0, 1].map(() => spawn(process.execPath, ['-e', 'const t = Date.now() + 60000; while (Date.now() < t) {}'], { stdio: 'ignore' }))
    t.after(() => {
      hogs.forEach((h) => h.kill('SIGKILL'))
      removeTmp(root)
    })
    const FOLDERS = 30
    const fill = (dir, tag) => {
      fs.mkdirSync(dir, { recursive: true })
      for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, `${tag}_${i}.ts`), tag)
    }
    for (let d = 0; d < FOLDERS; d++) fill(path.join(root, `d${d}`, 's'), 'old')
    const index = await openIndex(root)
    t.after(() => index.close())
    const q = { pattern: '**/*.ts', sortBy: 'name', limit: 100_000 }
    const show = (r) => r.entries.map((e) => e.path)
    for (let round = 0; round < 6; round++) {
      for (let d = 0; d < FOLDERS; d++) {
        const s = path.join(root, `d${d}`, 's')
        fs.rmSync(path.join(s, fs.readdirSync(s)[0]))
        fs.renameSync(s, path.join(root, `d${d}`, `s_${round}`))
        fill(s, `r${round}`)
      }
      await within(index.settled(), 10_000)
      assert.deepEqual(show(await index.find(q)), show(await find({ ...q, cwd: root })), `round ${round}`)
    }
  })

  test('a folder deeper than PATH_MAX is watched: a file written there later is found', { timeout: 60_000 }, async (t) => {
    const root = makeTmp()
    t.after(() => removeDeep(root))
    buildChain(root, 2200) // paths of about 4,400 bytes
    const index = await openIndex(root)
    t.after(() => index.close())
    assert.equal(index.stats().watchErrors, 0)
    const script = `const fs = require('fs'); process.chdir(${JSON.stringify(root)});
      for (let i = 0; i < 2150; i++) process.chdir('d'); fs.writeFileSync('late.txt', 'x')`
    assert.equal(spawnSync(process.execPath, ['-e', script], { timeout: 30_000 }).status, 0)
    await sleep(200)
    await within(index.settled(), 10_000)
    assert.equal((await index.find({ pattern: '**/late.txt' })).matched, 1)
  })

  // A new folder swapped for a symlink to a folder outside: its target's tree
  // must never be watched (the watches are added by handle).
  test('a folder swapped for a symlink: nothing outside is watched', { skip: process.platform !== 'linux', timeout: 60_000 }, async (t) => {
    const tmp = makeTmp()
    t.after(() => removeTmp(tmp))
    const root = path.join(tmp, 'root')
    const outside = path.join(tmp, 'outside')
    fs.mkdirSync(path.join(root, 'src'), { recursive: true })
    for (let i = 0; i < 20; i++) fs.mkdirSync(path.join(outside, `d${i}`), { recursive: true })
    const outsideInodes = new Set([outside, ...fs.readdirSync(outside).map((d) => path.join(outside, d))].map((p) => fs.statSync(p).ino))
    const outsideWatched = () => watchedInodes().filter((i) => outsideInodes.has(i)).length
    const index = await openIndex(root)
    t.after(() => index.close())
    const x = path.join(root, 'x')
    for (let tries = 0; tries < 8 && !outsideWatched(); tries++) {
      // A tree moved in keeps the watcher busy while x becomes a symlink.
      const stage = path.join(tmp, `stage${tries}`)
      for (let i = 0; i < 200; i++) fs.mkdirSync(path.join(stage, `b${i}`), { recursive: true })
      fs.renameSync(stage, path.join(root, `big${tries}`))
      fs.mkdirSync(x)
      fs.rmdirSync(x)
      fs.symlinkSync(outside, x)
      await sleep(50)
      if (!outsideWatched()) fs.unlinkSync(x)
    }
    assert.equal(outsideWatched(), 0, 'folders outside the index are watched')
    await within(index.settled(), 10_000)
    assert.ok(index.stats().entries > 200)
  })

  // Past the inotify watch limit (50 watches, set inside `unshare -Ur`, a
  // user namespace of its own): the folders not watched are counted one by
  // one, and each query lists them again first, so what changes in them is
  // found all the same, including folders made inside them later.
  const limitScript = `
    const fs = require('fs'), path = require('path'), os = require('os')
    const { openIndex, find, findFiles, searchFiles } = require(${JSON.stringify(REPO)})
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
    ;(async () => {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'af-limit-')), root = path.join(base, 'root')
      try {
        for (let i = 0; i < 30; i++) fs.mkdirSync(path.join(root, 'd' + i), { recursive: true })
        const index = await openIndex(root)
        for (let i = 0; i < 40; i++) fs.mkdirSync(path.join(base, 'new', 'n' + i), { recursive: true })
        fs.renameSync(path.join(base, 'new'), path.join(root, 'new')) // 41 folders; room for 19
        await sleep(300); await Promise.race([index.settled(), sleep(5000)])
        const before = index.stats().watchErrors
        for (let i = 0; i < 40; i++) {
          fs.writeFileSync(path.join(root, 'new', 'n' + i, 'late.txt'), 'needle ' + i)
          fs.mkdirSync(path.join(root, 'new', 'n' + i, 'deeper', 'still'), { recursive: true })
          fs.writeFileSync(path.join(root, 'new', 'n' + i, 'deeper', 'still', 'later.txt'), 'needle')
        }
        fs.rmSync(path.join(root, 'new', 'n0'), { recursive: true })
        await sleep(300); await Promise.race([index.settled(), sleep(5000)])
        const q = { pattern: '**/*.txt', sortBy: 'name', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }
        const same = JSON.stringify(await index.find(q)) === JSON.stringify(await find({ ...q, cwd: root }))
          && JSON.stringify(await index.findFiles('**/late.txt')) === JSON.stringify(await findFiles('**/late.txt', root))
          && JSON.stringify({ ...(await index.searchFiles({ pattern: 'needle', outputMode: 'count' })), cursor: 0 }) === JSON.stringify({ ...(await searchFiles({ pattern: 'needle', outputMode: 'count', cwd: root })), cursor: 0 })
        const found = (await index.find({ pattern: '**/later.txt' })).matched
        const stats = index.stats()
        await index.close()
        console.log('RESULT ' + JSON.stringify({ before, same, found, watchErrors: stats.watchErrors, lastError: stats.lastError }))
      } finally { fs.rmSync(base, { recursive: true, force: true }) }
    })()`
  test('past the inotify watch limit: unwatched folders counted, and listed again by every query', { skip: process.platform !== 'linux' && 'inotify is Linux only', timeout: 60_000 }, (t) => {
    const { skip } = requireTool('unshare', {
      why: 'a user namespace whose inotify watch limit can be lowered',
      probe: ['-Ur', 'sh', '-c', 'echo 50 > /proc/sys/user/max_inotify_watches'],
      install: 'apt-get install -y util-linux, on a kernel that allows unprivileged user namespaces (not in a container that forbids unshare)',
    })
    if (skip) return t.skip(skip)
    const r = spawnSync('unshare', ['-Ur', 'sh', '-c', 'echo 50 > /proc/sys/user/max_inotify_watches && exec "$0" "$@"', process.execPath, '-e', limitScript],
      { encoding: 'utf8', timeout: 50_000, killSignal: 'SIGKILL' })
    const line = /^RESULT (.*)$/m.exec(r.stdout)
    assert.ok(line, `the child did not finish: status ${r.status} ${r.signal ?? ''} ${r.stderr}`)
    const out = JSON.parse(line[1])
    assert.ok(out.before >= 20, `watchErrors ${out.before} after 41 folders moved in with room for 19 watches`)
    assert.equal(out.same, true, 'index answers differ from fresh calls')
    assert.equal(out.found, 39)
    assert.ok(out.watchErrors >= 20, `watchErrors ${out.watchErrors}`)
    assert.match(out.lastError, /max_user_watches/)
  })

  // Files with more than one name (hard links into a store outside the
  // folder, as pnpm makes them) past the same limit (12 watches): those not
  // watched are counted, and each query looks again at those it shows, so a
  // write through the name outside is found without any event (also in a
  // gitignored folder, once a query shows it); folders made later take
  // watches from files rather than go unwatched.
  const linkScript = `
    const fs = require('fs'), path = require('path'), os = require('os')
    const { openIndex, find, searchFiles } = require(${JSON.stringify(REPO)})
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
    ;(async () => {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'af-links-')), root = path.join(base, 'root'), store = path.join(base, 'store')
      try {
        fs.mkdirSync(store)
        for (let d = 0; d < 3; d++) fs.mkdirSync(path.join(root, 'd' + d), { recursive: true })
        // Hidden from a call by default, shown with gitignore: false: looked at only then.
        fs.writeFileSync(path.join(root, '.gitignore'), 'd2/\\n')
        for (let i = 0; i < 30; i++) {
          fs.writeFileSync(path.join(store, 'f' + i), 'needle old ' + i + '\\n')
          fs.linkSync(path.join(store, 'f' + i), path.join(root, 'd' + (i % 3), 'f' + i + '.txt'))
        }
        const index = await openIndex(root)
        const q = { pattern: '**', sortBy: 'name', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }
        const show = (r) => JSON.stringify(r.entries.map((e) => e.path + ':' + e.size + ':' + e.mtimeMs))
        const all = { ...q, gitignore: false }
        const same = async () => show(await index.find(q)) === show(await find({ ...q, cwd: root }))
          && show(await index.find(all)) === show(await find({ ...all, cwd: root }))
          && JSON.stringify((await index.searchFiles({ pattern: 'new' })).matches) === JSON.stringify((await searchFiles({ pattern: 'new', cwd: root })).matches)
        const rounds = [await same()]
        const before = index.stats().watchErrors
        // Every file written through its name outside, with no wait for events.
        for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(store, 'f' + i), 'needle new ' + i + ', longer\\n')
        rounds.push(await same())
        // Folders moved in take their watches from files.
        for (let i = 0; i < 4; i++) fs.mkdirSync(path.join(base, 'new', 'n' + i), { recursive: true })
        fs.renameSync(path.join(base, 'new'), path.join(root, 'new'))
        await sleep(300); await Promise.race([index.settled(), sleep(5000)])
        for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(root, 'new', 'n' + i, 'later.txt'), 'new')
        for (let i = 0; i < 30; i++) fs.appendFileSync(path.join(store, 'f' + i), 'new again\\n')
        await sleep(300); await Promise.race([index.settled(), sleep(5000)])
        rounds.push(await same())
        const stats = index.stats()
        await index.close()
        console.log('RESULT ' + JSON.stringify({ rounds, before, watchErrors: stats.watchErrors, lastError: stats.lastError }))
      } finally { fs.rmSync(base, { recursive: true, force: true }) }
    })()`
  test('files with more than one name past the inotify watch limit: counted, and looked at again by every query', { skip: process.platform !== 'linux' && 'inotify is Linux only', timeout: 60_000 }, (t) => {
    const { skip } = requireTool('unshare', {
      why: 'a user namespace whose inotify watch limit can be lowered',
      probe: ['-Ur', 'sh', '-c', 'echo 12 > /proc/sys/user/max_inotify_watches'],
      install: 'apt-get install -y util-linux, on a kernel that allows unprivileged user namespaces (not in a container that forbids unshare)',
    })
    if (skip) return t.skip(skip)
    const r = spawnSync('unshare', ['-Ur', 'sh', '-c', 'echo 12 > /proc/sys/user/max_inotify_watches && exec "$0" "$@"', process.execPath, '-e', linkScript],
      { encoding: 'utf8', timeout: 50_000, killSignal: 'SIGKILL' })
    const line = /^RESULT (.*)$/m.exec(r.stdout)
    assert.ok(line, `the child did not finish: status ${r.status} ${r.signal ?? ''} ${r.stderr}`)
    const out = JSON.parse(line[1])
    assert.deepEqual(out.rounds, [true, true, true], 'index answers differ from fresh calls')
    assert.ok(out.before >= 20, `watchErrors ${out.before} with 30 linked files and room for 8 watches`)
    assert.ok(out.watchErrors >= 20, `watchErrors ${out.watchErrors}`)
    assert.match(out.lastError, /hard link/)
  })
})
