// The live index (openIndex): exact after thousands of random changes (the
// same answers as a fresh find, every round), files with more than one name
// written through a name outside it, what it reports, its errors, and that
// close() gives back every watch and thread.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { find, findFiles, openIndex, searchFiles } from '../index.mjs'
import { rejectsWith, seededRandom as random, tmpTree } from './helpers.mjs'


/** Every folder and file below `root` (relative), `.git` left out. */
function listTree(root) {
  const dirs = ['']
  const files = []
  for (let i = 0; i < dirs.length; i++) {
    for (const e of fs.readdirSync(path.join(root, dirs[i]), { withFileTypes: true })) {
      const rel = dirs[i] ? `${dirs[i]}/${e.name}` : e.name
      if (e.name === '.git') continue
      if (e.isDirectory()) dirs.push(rel)
      else files.push(rel)
    }
  }
  return { dirs, files }
}

const NAMES = ['a', 'b', 'c', 'index', 'main', 'util', '.env', 'keep', 'x y', 'naïve']
const EXTS = ['.ts', '.js', '.log', '.md', '']
const IGNORE_LINES = ['*.log', 'build/', '!keep.log', '*.md', 'gen', '/top.js', 'x y*']

/** One random change to the tree; returns what it did, for failure messages. */
function change(root, rand) {
  const pick = (list) => list[Math.floor(rand() * list.length)]
  const { dirs, files } = listTree(root)
  const where = pick(dirs)
  const fresh = () => path.join(root, where, pick(NAMES) + pick(EXTS) + (rand() < 0.3 ? String(Math.floor(rand() * 50)) : ''))
  const roll = rand()
  if (roll < 0.3 || files.length < 5) {
    const file = fresh()
    if (!fs.existsSync(file)) fs.writeFileSync(file, 'x'.repeat(Math.floor(rand() * 100)))
    return `create ${file}`
  }
  if (roll < 0.45) {
    const file = path.join(root, pick(files))
    fs.rmSync(file, { force: true })
    return `delete ${file}`
  }
  if (roll < 0.55) {
    const [from, to] = [path.join(root, pick(files)), fresh()]
    if (!fs.existsSync(to)) fs.renameSync(from, to)
    return `rename ${from} -> ${to}`
  }
  if (roll < 0.63) {
    const dir = path.join(root, where, pick(['src', 'build', 'gen', 'docs', '.cache', 'lib']) + Math.floor(rand() * 5))
    fs.mkdirSync(path.join(dir, 'deep'), { recursive: true })
    fs.writeFileSync(path.join(dir, 'deep', pick(NAMES) + '.ts'), 'deep')
    return `mkdir ${dir}`
  }
  if (roll < 0.7 && dirs.length > 2) {
    const dir = pick(dirs.slice(1))
    const target = path.join(root, pick(dirs.filter((d) => !d.startsWith(dir))), `moved-${Math.floor(rand() * 1000)}`)
    if (!fs.existsSync(target)) fs.renameSync(path.join(root, dir), target)
    return `move folder ${dir} -> ${target}`
  }
  if (roll < 0.75 && dirs.length > 2) {
    const dir = path.join(root, pick(dirs.slice(1)))
    fs.rmSync(dir, { recursive: true, force: true })
    return `delete folder ${dir}`
  }
  if (roll < 0.88) {
    const file = path.join(root, where, rand() < 0.8 ? '.gitignore' : '.ignore')
    const lines = IGNORE_LINES.filter(() => rand() < 0.3)
    fs.writeFileSync(file, lines.join('\n') + '\n')
    return `ignore file ${file}: ${lines.join(', ')}`
  }
  const file = path.join(root, pick(files))
  if (fs.existsSync(file)) fs.appendFileSync(file, 'more')
  return `append ${file}`
}

/** The queries every round compares, each with its options. */
function queries(root) {
  const sub = listTree(root).dirs.filter(Boolean).sort()[0]
  const all = [
    { pattern: '**/*' },
    { pattern: '**/*.ts' },
    { pattern: '**/*', type: 'any', sortBy: 'name', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity },
    { pattern: '**/*', type: 'dir', sortBy: 'mtime' },
    { pattern: '**/*', gitignore: false, sortBy: 'name', limit: 500 },
    { pattern: '**/*', hidden: false, sortBy: 'size', reverse: true, limit: 20 },
    { pattern: '*.log' },
    { pattern: '**/*.md', maxDepth: 1 },
    { pattern: '**/*', exclude: ['src*', '*.js'], sortBy: 'name' },
    { pattern: 'nothing-matches-this', hidden: false },
  ]
  if (sub) all.push({ pattern: '**/*', path: sub, type: 'any', sortBy: 'name' })
  return all
}

async function sameAsFresh(index, root, round, did) {
  for (const q of queries(root)) {
    const fresh = await find({ ...q, cwd: root })
    const indexed = await index.find(q)
    assert.deepEqual(indexed, fresh, `round ${round}, ${JSON.stringify(q)}; changes: ${did.slice(-5).join('; ')}`)
  }
  assert.deepEqual(await index.findFiles('**/*.ts'), await findFiles('**/*.ts', root), `round ${round}: findFiles`)
  const sub = listTree(root).dirs.filter(Boolean).sort()[0]
  const searches = [
    { pattern: 'main', target: 'files' },
    // Content, read from disk by the index's walk: lines, files, counts, and below a folder.
    { pattern: 'more' },
    { pattern: 'mo+re$', outputMode: 'count' },
    { pattern: '.', outputMode: 'files', noIgnore: true },
    ...(sub ? [{ pattern: 'more', path: sub }] : []),
  ]
  for (const q of searches) {
    assert.deepEqual(await index.searchFiles(q), await searchFiles({ ...q, cwd: root }), `round ${round}: searchFiles ${JSON.stringify(q)}`)
  }
}

describe('openIndex: exact while files change', () => {
  test('thousands of random creates, deletes, renames and ignore-file edits: every round equals a fresh find', async (t) => {
    const root = tmpTree(t, {
      '.gitignore': '*.log\nbuild/\n',
      'src/a.ts': 'a', 'src/b.js': 'b', 'src/gen/x.ts': 'x', 'docs/guide.md': 'g', 'build/out.js': 'o',
      'top.js': 't', '.cache/c.ts': 'c', 'keep.log': 'k',
    })
    fs.mkdirSync(path.join(root, '.git/info'), { recursive: true })
    fs.writeFileSync(path.join(root, '.git/info/exclude'), 'secret*\n')
    const index = await openIndex(root)
    t.after(() => index.close())
    const seed = Number(process.env.AF_INDEX_SEED || 7)
    const rand = random(seed)
    const did = []
    const rounds = 12
    for (let round = 0; round < rounds; round++) {
      const burst = 150 + Math.floor(rand() * 100)
      for (let i = 0; i < burst; i++) did.push(change(root, rand))
      if (round === 5) {
        // Mass delete: a whole subtree at once.
        const { dirs } = listTree(root)
        for (const d of dirs.filter((x) => x && !x.includes('/')).slice(0, 3)) fs.rmSync(path.join(root, d), { recursive: true, force: true })
        did.push('mass delete')
      }
      if (round === 8) fs.writeFileSync(path.join(root, '.git/info/exclude'), '*.ts\n')
      await index.settled()
      await sameAsFresh(index, root, round, did)
    }
    assert.ok(did.length >= 2000, `${did.length} changes`)
    const stats = index.stats()
    assert.ok(stats.events > 0 && stats.foldersReconciled > 0, JSON.stringify(stats))
    const final = listTree(root)
    assert.equal(stats.entries, final.dirs.length - 1 + final.files.length, 'every entry but .git, once')
  })
})

describe('openIndex: what it reports and refuses', () => {
  test('stats count entries and bytes; settled resolves; path is the folder', async (t) => {
    const root = tmpTree(t, { 'a.ts': 'a', 'src/b.ts': 'b', 'src/c/d.md': 'd' })
    const index = await openIndex(root)
    t.after(() => index.close())
    assert.equal(index.path, root)
    const s = index.stats()
    assert.equal(s.entries, 5)
    assert.ok(s.bytes > 0 && s.bytesPerEntry === Math.round(s.bytes / 5), JSON.stringify(s))
    assert.equal(s.rescans, 0)
    assert.equal(s.closed, false)
    await index.settled()
    fs.writeFileSync(path.join(root, 'new.ts'), 'n')
    await index.settled()
    assert.equal(index.stats().entries, 6)
    const r = await index.find('**/*.ts', { sortBy: 'name' })
    assert.deepEqual(r.entries.map((e) => e.path), ['a.ts', 'new.ts', 'src/b.ts'])
  })

  test('errors: missing folder, a file, a path outside, bad arguments, a closed index', async (t) => {
    const root = tmpTree(t, { 'f.txt': 'x', 'sub/g.txt': 'y' })
    await rejectsWith(openIndex(path.join(root, 'nope')), 'not-found')
    await rejectsWith(openIndex(path.join(root, 'f.txt')), 'not-a-dir')
    await rejectsWith(openIndex(''), 'invalid-argument')
    await rejectsWith(openIndex(5), 'invalid-argument')
    await rejectsWith(openIndex(root, { watch: false }), 'invalid-argument', /unknown option/)
    const index = await openIndex('sub', { cwd: root })
    assert.equal(index.path, path.join(root, 'sub'))
    await rejectsWith(index.find({ pattern: '*', path: '..' }), 'outside-root', /outside the index's folder/)
    await rejectsWith(index.find({ pattern: '*', path: 'missing' }), 'not-found')
    await rejectsWith(index.find({ pattern: '*', path: 'g.txt' }), 'not-a-dir')
    await rejectsWith(index.find({ pattern: '[' }), 'invalid-pattern')
    await rejectsWith(index.find({ pattern: '*', reader: { list() {}, stat() {} } }), 'invalid-argument', /index/)
    assert.deepEqual((await index.find('*')).entries.map((e) => e.path), ['g.txt'])
    await index.close()
    assert.equal(index.stats().closed, true)
    await rejectsWith(index.find('*'), 'invalid-argument', /index is closed/)
    await rejectsWith(index.findFiles('*'), 'invalid-argument', /index is closed/)
    await rejectsWith(index.settled(), 'invalid-argument', /index is closed/)
  })
})

describe('openIndex: files with more than one name (hard links)', () => {
  /** The index's answers and a fresh call's, on the same tree. */
  async function answers(index, root) {
    const queries = [
      (o) => [find, 'find', { pattern: '**', type: 'any', sortBy: 'name', ...o }],
      (o) => [searchFiles, 'searchFiles', { pattern: 'BBB|CCC|DDD', ...o }],
      (o) => [searchFiles, 'searchFiles', { pattern: 'needle', outputMode: 'count', ...o }],
    ]
    const out = []
    for (const q of queries) {
      const [fresh, method, options] = q({})
      const show = (r) => JSON.stringify(r.entries ? r.entries.map((e) => `${e.path}:${e.size}:${e.mtimeMs}`) : r.matches ?? r.counts)
      out.push([show(await fresh({ cwd: root, ...options })), show(await index[method](options)), options.pattern])
    }
    return out
  }
  const assertSame = async (index, root, what) => {
    for (const [fresh, indexed, pattern] of await answers(index, root)) assert.equal(indexed, fresh, `${what}: ${pattern}`)
  }

  test('written through a name outside the folder: after settled() the index answers as a fresh call', { skip: process.platform !== 'linux' }, async (t) => {
    const top = tmpTree(t, { 'store/f.txt': 'needle AAA\n', 'store/g.txt': 'needle one\n', 'store/h.txt': 'needle h\n', 'ws/plain.txt': 'needle plain\n', 'ws/x/': null, 'ws/y/': null })
    const [store, ws] = [path.join(top, 'store'), path.join(top, 'ws')]
    fs.linkSync(path.join(store, 'f.txt'), path.join(ws, 'hl.txt'))
    // One file under two names in the index, in two folders.
    fs.linkSync(path.join(store, 'h.txt'), path.join(ws, 'x', 'h1.txt'))
    fs.linkSync(path.join(store, 'h.txt'), path.join(ws, 'y', 'h2.txt'))
    const index = await openIndex(ws)
    t.after(() => index.close())
    // Content searches read every file, so the index keeps their sketches and contents.
    await assertSame(index, ws, 'at open')
    fs.writeFileSync(path.join(store, 'f.txt'), 'needle BBB, and longer\n')
    await index.settled()
    await assertSame(index, ws, 'written through the name outside')
    fs.appendFileSync(path.join(store, 'h.txt'), 'needle CCC\n')
    await index.settled()
    await assertSame(index, ws, 'a file with two names in the index, written outside')
    // A name made after the index opened, then written through the other one.
    fs.linkSync(path.join(store, 'g.txt'), path.join(ws, 'x', 'late.txt'))
    await index.settled()
    fs.writeFileSync(path.join(store, 'g.txt'), 'needle DDD twice\nneedle\n')
    await index.settled()
    await assertSame(index, ws, 'a name made later')
    // Its name outside removed: one name left, written through it as usual.
    fs.rmSync(path.join(store, 'f.txt'))
    fs.writeFileSync(path.join(ws, 'hl.txt'), 'needle again\n')
    await index.settled()
    await assertSame(index, ws, 'one name left')
    assert.equal(index.stats().watchErrors, 0, JSON.stringify(index.stats()))
  })
})

describe('openIndex: a search path through a symlink', () => {
  test('is looked up where it leads, as find does: inside the index, outside it, and against roots', async (t) => {
    const top = tmpTree(t, { 'ws/real/x.txt': 'x', 'out/y.txt': 'y' })
    const ws = path.join(top, 'ws')
    fs.symlinkSync(path.join(ws, 'real'), path.join(ws, 'in'))
    fs.symlinkSync(path.join(top, 'out'), path.join(ws, 'away'))
    const index = await openIndex(ws)
    t.after(() => index.close())
    const same = async (options) => {
      const [f, i] = await Promise.all([find({ cwd: ws, ...options }), index.find(options)].map((p) => p.then(
        (r) => r.entries.map((e) => e.path).join(','), (e) => `rejected ${e.code}`)))
      assert.equal(i, f, JSON.stringify(options))
      return i
    }
    assert.equal(await same({ pattern: '*', path: 'in' }), 'x.txt')
    assert.equal(await same({ pattern: '*', path: 'in', roots: [ws] }), 'x.txt')
    assert.equal(await same({ pattern: '*', path: 'away', roots: [ws] }), 'rejected outside-root')
    // Without roots find searches where the link leads; the index cannot, and says so.
    await rejectsWith(index.find({ pattern: '*', path: 'away' }), 'outside-root', /leads \(through a symlink\) outside the index's folder/)
  })
})

describe('openIndex: close()', () => {
  /** The names of this process's threads. */
  const threadNames = () =>
    fs.readdirSync('/proc/self/task').flatMap((tid) => {
      try {
        return [fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()]
      } catch {
        return []
      }
    }).sort()
  // The runtime's blocking pool keeps idle threads for 10 s, more of them when
  // calls overlap on a loaded machine: not the index's, so not counted. The
  // index's own threads are named agent-find-*, and walk threads end with their call.
  const threads = () => threadNames().filter((name) => name !== 'tokio-rt-worker').length
  /** Waits up to 2 s for `done()`. */
  const until = async (done) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const inotifyFds = () =>
    fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`).includes('inotify')
      } catch {
        return false
      }
    }).length

  test('releases every watch and the index thread', { skip: process.platform !== 'linux' }, async (t) => {
    const root = tmpTree(t, { 'a/b/c.txt': 'x', 'd/e.txt': 'y' })
    const fdsBefore = inotifyFds()
    // Warm up first: the runtime's pool of blocking threads (idle ones live on
    // for a while) must already hold the threads three opens use. A closed
    // watcher's own thread ends (and closes its descriptor) just after close().
    for (const index of await Promise.all([openIndex(root), openIndex(root), openIndex(root)])) await index.close()
    await until(() => inotifyFds() === fdsBefore)
    const threadsBefore = threads()
    const namesBefore = threadNames()
    const allBefore = namesBefore.length
    const indexes = await Promise.all([openIndex(root), openIndex(root), openIndex(root)])
    assert.ok(inotifyFds() >= fdsBefore + 3, `inotify fds ${inotifyFds()}`)
    // Each index's keeper, at least (a thread shows its own name only once it has run).
    assert.ok(threadNames().length >= allBefore + 3, `threads: ${threadNames()}`)
    for (const index of indexes) await index.close()
    await until(() => threads() <= threadsBefore && inotifyFds() <= fdsBefore)
    assert.equal(inotifyFds(), fdsBefore, 'every inotify descriptor is closed')
    // Idle pool threads of earlier tests may end meanwhile: never more than before.
    assert.ok(threads() <= threadsBefore, `every index and watcher thread has ended: ${threads()} > ${threadsBefore}: ${threadNames()} (before: ${namesBefore})`)
    assert.deepEqual(threadNames().filter((name) => name.startsWith('agent-find')), [], 'no thread of an index is left')
  })
})
