// A live index's sketches kept across processes (`openIndex` `cacheDir`,
// `persist`): saved once the background build is done and at close, loaded
// by the next index of the folder only for files whose size, mtime, ctime
// and inode are still what they were (a rewrite with the mtime set back, a
// rename, a chmod all change the ctime), never for a file changed too close
// to its reading, and never from a cache file that is corrupt, truncated,
// of another version or of another folder. Answers always equal a fresh
// search. Files are written a few seconds before an index reads them: a
// file changed within 2 s of its reading gets no stamp (git's racily-clean
// rule), so nothing of it would be saved.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { openIndex, searchFiles } from '../index.mjs'
import { runChild } from './hostile-helpers.mjs'
import { REPO, makeTmp, openIndexBuilt, removeTmp, tmpTree } from './helpers.mjs'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const RACY_MS = 2100
const uncursored = (r) => (r.cursor === undefined ? r : { ...r, cursor: '<cursor>' })


/** A whole second, so that a file's mtime can be set back exactly. */
const SECOND = 1_700_000_000

/** `tmpTree`, every file's mtime a whole second. */
function sourceTree(t, files) {
  const root = tmpTree(t, files)
  for (const rel of Object.keys(files)) fs.utimesSync(path.join(root, rel), SECOND, SECOND)
  return root
}

function sourceFiles(n) {
  const files = {}
  for (let i = 0; i < n; i++) files[`src/m${i % 8}/f${i}.js`] = `export const v${i} = ${i % 25 === 0 ? '"needle"' : i}\n`
  return files
}

const QUERIES = [{ pattern: 'needle' }, { pattern: 'v1[0-9]\\b', outputMode: 'count' }, { pattern: 'rewritten' }, { pattern: 'nowhere at all' }]

async function sameAsFresh(index, root, why) {
  for (const q of QUERIES) {
    assert.deepEqual(uncursored(await index.searchFiles(q)), uncursored(await searchFiles({ ...q, cwd: root })), `${why}: ${JSON.stringify(q)}`)
  }
}

function cacheDirFor(t) {
  const dir = makeTmp()
  t.after(() => removeTmp(dir))
  return path.join(dir, 'cache')
}

describe('the content layer kept across processes', () => {
  test('saved when built and loaded by the next process; owner-only file', async (t) => {
    const root = sourceTree(t, sourceFiles(120))
    const cacheDir = cacheDirFor(t)
    await sleep(RACY_MS)
    const first = await openIndexBuilt(root, { cacheDir })
    const built = first.stats()
    assert.equal(built.cacheLoaded, 0)
    assert.equal(built.cacheSaved, 120, JSON.stringify(built))
    assert.ok(built.cacheFile && built.cacheFile.startsWith(cacheDir), built.cacheFile)
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(built.cacheFile).mode & 0o777, 0o600)
      assert.equal(fs.statSync(cacheDir).mode & 0o777, 0o700)
    }
    await first.close()
    // Another process: every sketch is loaded (none read again), answers unchanged.
    const out = runChild(`
      const index = await af.openIndex(arg.root, { cacheDir: arg.cacheDir })
      while (!['done', 'stopped'].includes(index.stats().contentBuild)) await new Promise((r) => setTimeout(r, 5))
      const stats = index.stats()
      const found = await index.searchFiles({ pattern: 'needle', outputMode: 'files' })
      await index.close()
      return { stats, files: found.files }`, { arg: { root, cacheDir } })
    assert.equal(out.stats.cacheLoaded, 120, JSON.stringify(out.stats))
    assert.equal(out.stats.cacheError, undefined)
    assert.deepEqual(out.files, (await searchFiles({ pattern: 'needle', outputMode: 'files', cwd: root })).files)
  })

  test('a file changed while no index ran is read again: rewritten with its mtime set back, renamed, chmod, deleted, made', async (t) => {
    const root = sourceTree(t, sourceFiles(60))
    const cacheDir = cacheDirFor(t)
    await sleep(RACY_MS)
    await (await openIndexBuilt(root, { cacheDir })).close()
    // Same size, same mtime: only its ctime (and the contents) tell.
    const rewritten = path.join(root, 'src/m1/f1.js')
    const before = fs.statSync(rewritten)
    const text = `${'rewritten'.padEnd(before.size - 1, ' ')}\n`
    fs.writeFileSync(rewritten, text)
    fs.utimesSync(rewritten, SECOND, SECOND)
    assert.equal(fs.statSync(rewritten).mtimeMs, before.mtimeMs)
    fs.renameSync(path.join(root, 'src/m2/f2.js'), path.join(root, 'src/m2/renamed.js'))
    fs.chmodSync(path.join(root, 'src/m3/f3.js'), 0o600)
    fs.rmSync(path.join(root, 'src/m4/f4.js'))
    fs.writeFileSync(path.join(root, 'src/m4/new.js'), 'needle rewritten\n')
    const index = await openIndexBuilt(root, { cacheDir })
    t.after(() => index.close())
    const s = index.stats()
    // 60 saved: the rewritten, renamed, chmod and deleted files are not loaded.
    assert.equal(s.cacheLoaded, 56, JSON.stringify(s))
    await sameAsFresh(index, root, 'after changes while closed')
    assert.equal((await index.searchFiles({ pattern: 'rewritten', outputMode: 'files' })).files.sort().join(), 'src/m1/f1.js,src/m4/new.js')
  })

  test('a file written just before its reading is not saved (racily clean)', async (t) => {
    const root = sourceTree(t, sourceFiles(30))
    const cacheDir = cacheDirFor(t)
    await sleep(RACY_MS)
    fs.writeFileSync(path.join(root, 'src/fresh.js'), 'needle fresh\n')
    const index = await openIndexBuilt(root, { cacheDir })
    assert.equal(index.stats().cacheSaved, 30, JSON.stringify(index.stats()))
    await index.close()
  })

  test('a corrupt, truncated, foreign or other-version cache file is never answered from, and is made anew', async (t) => {
    const root = sourceTree(t, sourceFiles(40))
    const other = sourceTree(t, sourceFiles(40))
    const cacheDir = cacheDirFor(t)
    await sleep(RACY_MS)
    const made = await openIndexBuilt(root, { cacheDir })
    const file = made.stats().cacheFile
    await made.close()
    const good = fs.readFileSync(file)
    const otherIndex = await openIndexBuilt(other, { cacheDir })
    const otherFile = otherIndex.stats().cacheFile
    await otherIndex.close()
    const otherGood = fs.readFileSync(otherFile)
    const corruptions = {
      'random bytes': Buffer.from(Array.from({ length: good.length }, (_, i) => (i * 7919 + 13) % 256)),
      truncated: good.subarray(0, Math.floor(good.length / 2)),
      'one byte flipped': Buffer.from(good.map((b, i) => (i === Math.floor(good.length / 3) ? b ^ 0x40 : b))),
      'another version': Buffer.concat([good.subarray(0, 8), Buffer.from([99, 0, 0, 0]), good.subarray(12)]),
      "another folder's": otherGood,
      empty: Buffer.alloc(0),
    }
    for (const [why, bytes] of Object.entries(corruptions)) {
      fs.writeFileSync(file, bytes)
      const index = await openIndexBuilt(root, { cacheDir })
      const s = index.stats()
      assert.equal(s.cacheLoaded, 0, `${why}: ${JSON.stringify(s)}`)
      assert.ok(s.cacheError && /was not used/.test(s.cacheError), `${why}: ${s.cacheError}`)
      await sameAsFresh(index, root, why)
      await index.close()
      // Made anew by that index: the next one loads it whole.
      const next = await openIndexBuilt(root, { cacheDir })
      assert.equal(next.stats().cacheLoaded, 40, `${why}, made anew: ${JSON.stringify(next.stats())}`)
      await next.close()
    }
  })

  test('persist: false keeps nothing; a cacheDir that cannot be made is said, and the index works', async (t) => {
    const root = sourceTree(t, sourceFiles(20))
    const cacheDir = cacheDirFor(t)
    await sleep(RACY_MS)
    const off = await openIndexBuilt(root, { cacheDir, persist: false })
    assert.equal(off.stats().cacheFile, undefined)
    await off.close()
    assert.equal(fs.existsSync(cacheDir), false, 'nothing written')
    fs.writeFileSync(cacheDir, 'a file where the folder should be')
    const blocked = await openIndexBuilt(root, { cacheDir })
    await sameAsFresh(blocked, root, 'cache folder blocked')
    await blocked.close()
    assert.match(blocked.stats().cacheError ?? '', /could not be written/)
    for (const bad of [1, '', {}]) await assert.rejects(openIndex(root, { cacheDir: bad }), /`cacheDir` must be a non-empty path/)
    for (const bad of [1, 'yes', null]) await assert.rejects(openIndex(root, { persist: bad }), /`persist` must be true or false/)
  })

  test('two indexes of one folder save to it at once: neither corrupts it', async (t) => {
    const root = sourceTree(t, sourceFiles(50))
    const cacheDir = cacheDirFor(t)
    await sleep(RACY_MS)
    const [a, b] = await Promise.all([openIndexBuilt(root, { cacheDir }), openIndexBuilt(root, { cacheDir })])
    await Promise.all([a.close(), b.close()])
    const next = await openIndexBuilt(root, { cacheDir })
    assert.equal(next.stats().cacheLoaded, 50, JSON.stringify(next.stats()))
    assert.deepEqual(fs.readdirSync(cacheDir).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left')
    await next.close()
  })
})

describe('restarts: killed mid-build or mid-save, the tree changed while nothing ran', () => {
  test('every answer equals a fresh search after each restart, and stale temporary files are cleared', async (t) => {
    const root = sourceTree(t, sourceFiles(3000))
    const cacheDir = cacheDirFor(t)
    await sleep(RACY_MS)
    const killedAfter = [40, 150, 300, 600, 900, 1500]
    for (const [round, ms] of killedAfter.entries()) {
      // A process that opens the index, waits for its build (which saves) and is killed at some point.
      const child = spawn(process.execPath, ['--input-type=module', '-e', `
        import { createRequire } from 'node:module'
        const af = createRequire(${JSON.stringify(path.join(REPO, 'x.js'))})(${JSON.stringify(REPO)})
        const index = await af.openIndex(${JSON.stringify(root)}, { cacheDir: ${JSON.stringify(cacheDir)} })
        setInterval(() => {}, 1000)`], { stdio: 'ignore' })
      await sleep(ms)
      child.kill('SIGKILL')
      await new Promise((resolve) => child.once('exit', resolve))
      // Changes while nothing runs: a same-size rewrite with the mtime set back, a rename, a delete, a new file.
      const file = path.join(root, `src/m${round}/f${round * 8 + round}.js`)
      if (fs.existsSync(file)) {
        const size = fs.statSync(file).size
        fs.writeFileSync(file, `${`needle r${round}`.padEnd(size - 1, ' ')}\n`)
        fs.utimesSync(file, SECOND, SECOND)
      }
      const moved = path.join(root, `src/m7/f${round * 8 + 7}.js`)
      if (fs.existsSync(moved)) fs.renameSync(moved, path.join(root, `src/m7/moved${round}.js`))
      fs.rmSync(path.join(root, `src/m6/f${round * 8 + 6}.js`), { force: true })
      fs.writeFileSync(path.join(root, `src/m5/new${round}.js`), `needle new ${round}\n`)
      const index = await openIndexBuilt(root, { cacheDir })
      await sameAsFresh(index, root, `round ${round}, killed after ${ms} ms`)
      assert.equal(index.stats().cacheError, undefined, `round ${round}: ${index.stats().cacheError}`)
      await index.close()
    }
    // A temporary file a killed save left, once old, is removed by the next save.
    const leftover = path.join(cacheDir, `.${path.basename(fs.readdirSync(cacheDir).find((f) => f.endsWith('.sketches')))}.1.2.tmp`)
    fs.writeFileSync(leftover, 'partial')
    fs.utimesSync(leftover, SECOND, SECOND)
    fs.writeFileSync(path.join(root, 'src/m0/touch.js'), 'changed\n')
    const index = await openIndexBuilt(root, { cacheDir })
    await index.close()
    assert.equal(fs.existsSync(leftover), false, 'the stale temporary file is gone')
  })
})

// The native CLI (`agent-find search`) passes over the files whose sketch
// the saved index rules out while their stamps are the saved ones (the
// core's own test proves it trusts them; here its answers are held to the
// library's on the same disk, through changes made while nothing runs).
const BUILT = fs.readdirSync(REPO).filter((f) => /^agent-find\.[\w-]+$/.test(f) || /^agent-find\.[\w-]+\.exe$/.test(f))
const NATIVE = BUILT.length === 1 ? path.join(REPO, BUILT[0]) : undefined

function cliJson(args, cwd, cacheDir) {
  const r = spawnSync(NATIVE, [...args, '--json'], { cwd, env: { ...process.env, AGENT_FIND_CACHE_DIR: cacheDir }, encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.error) throw r.error
  assert.equal(r.status, 0, `agent-find ${args.join(' ')}: ${r.stderr}`)
  assert.equal(r.stderr, '')
  return JSON.parse(r.stdout)
}

const CLI_QUERIES = [
  [['needle'], { pattern: 'needle' }],
  [['needle', '--mode', 'files'], { pattern: 'needle', outputMode: 'files' }],
  [['v1[0-9]\\b', '--mode', 'count'], { pattern: 'v1[0-9]\\b', outputMode: 'count' }],
  [['nowhere at all', '--skipped'], { pattern: 'nowhere at all', skipped: true }],
  [['NEEDLE', '--ignore-case', '--mode', 'files'], { pattern: 'NEEDLE', ignoreCase: true, outputMode: 'files' }],
]

/** Every query from `cwd`: the CLI with the saved index, without it, and the library, alike. */
async function cliSameAsFresh(cwd, cacheDir, why) {
  for (const [args, options] of CLI_QUERIES) {
    const fresh = uncursored(await searchFiles({ ...options, cwd }))
    assert.deepEqual(uncursored(cliJson(['search', ...args], cwd, cacheDir)), fresh, `${why}: ${args.join(' ')}`)
    assert.deepEqual(uncursored(cliJson(['search', ...args, '--no-index'], cwd, cacheDir)), fresh, `${why}: ${args.join(' ')} --no-index`)
  }
}

describe('the native CLI with a saved index', () => {
  test('answers as a fresh search, from the root and below it, through changes and a broken cache file', async (t) => {
    assert.ok(NATIVE, `one agent-find.<platform> in ${REPO}: run npm run build`)
    const files = sourceFiles(160)
    files['bin/blob.dat'] = 'needle? no: \0 binary\n'
    files['bin/other.dat'] = 'binary \0 but no match\n'
    const root = sourceTree(t, files)
    const cacheDir = cacheDirFor(t)
    await sleep(RACY_MS)
    const index = await openIndexBuilt(root, { cacheDir })
    await index.close()
    assert.ok(index.stats().cacheSaved >= 160, JSON.stringify(index.stats()))
    await cliSameAsFresh(root, cacheDir, 'as saved')
    await cliSameAsFresh(path.join(root, 'src/m1'), cacheDir, 'below the saved root')

    // Changes while nothing runs: a same-size rewrite with the mtime set back (the
    // word now in a file whose sketch says it is not), a rename, a delete, a new
    // file, a file turned into a folder, a chmod.
    const file = path.join(root, 'src/m3/f3.js')
    const size = fs.statSync(file).size
    fs.writeFileSync(file, `${'needle'.padEnd(size - 1, ' ')}\n`)
    fs.utimesSync(file, SECOND, SECOND)
    fs.renameSync(path.join(root, 'src/m2/f2.js'), path.join(root, 'src/m2/renamed.js'))
    fs.rmSync(path.join(root, 'src/m0/f0.js'))
    fs.writeFileSync(path.join(root, 'src/m4/new.js'), 'needle new\n')
    fs.rmSync(path.join(root, 'src/m5/f5.js'))
    fs.mkdirSync(path.join(root, 'src/m5/f5.js'))
    fs.writeFileSync(path.join(root, 'src/m5/f5.js/inside.js'), 'v15 needle\n')
    fs.chmodSync(path.join(root, 'src/m6/f6.js'), 0o600)
    await cliSameAsFresh(root, cacheDir, 'after changes')
    const found = cliJson(['search', 'needle', '--mode', 'files'], root, cacheDir)
    assert.ok(found.files.includes('src/m3/f3.js'), `the rewrite whose mtime was set back is read: ${JSON.stringify(found)}`)

    // A broken cache file is passed over: the same answers, no error.
    const cacheFile = index.stats().cacheFile
    const bytes = fs.readFileSync(cacheFile)
    bytes[bytes.length >> 1] ^= 0xff
    fs.writeFileSync(cacheFile, bytes)
    await cliSameAsFresh(root, cacheDir, 'with a corrupt cache file')
    fs.writeFileSync(cacheFile, bytes.subarray(0, 100))
    await cliSameAsFresh(root, cacheDir, 'with a truncated cache file')
  })
})
