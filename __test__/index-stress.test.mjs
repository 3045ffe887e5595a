// Stress test of the live index (openIndex): random bursts of changes with no
// settle between them, for several seeds, under CPU load (busy child
// processes). After each burst, settled() and then every query kind (find
// with many patterns and filters, findFiles, searchFiles by name and by
// content) must equal a fresh call on the tree as it is.
//
// The bursts rename files and folders (to new names, away and back, swaps,
// moves between parents, deep moves), recreate entries under the same name
// (also as another kind), delete in bulk, edit `.gitignore`, `.ignore` and
// `.git/info/exclude`, create and swap symlinks (to files, to folders,
// dangling, a folder replaced by one) and change modes (000, r--, --x on
// folders; 000, r--, --x, -w- on files). Modes only matter to a user the kernel
// checks, so as root the index and the fresh calls run in a child process as
// uid 65534; elsewhere the child runs as the current user.
//
// Each seed runs under each watcher (AF_STRESS_WATCHERS, default
// native,recursive,poll: the platform's own, `notify`'s recursive watcher,
// which macOS and Windows use, and the poller; see WATCHER_OPTIONS). CI runs a small version (3 seeds x 6 rounds x 40
// operations a watcher). The long one:
//   AF_STRESS_SEEDS=20 AF_STRESS_ROUNDS=20 AF_STRESS_OPS=200 node --test __test__/index-stress.test.mjs
// A failure names its seed; replay it alone with AF_STRESS_SEED=<n> (and the
// same AF_STRESS_ROUNDS / AF_STRESS_OPS). AF_STRESS_HOGS sets the number of
// busy children (default 2). To minimize a failure by hand, run the child
// alone (AF_STRESS_CHILD=1 AF_STRESS_ARGS='{"root":...,"seed":n,"rounds":r,
// "ops":o}'): AF_STRESS_TRACE=<file> writes every operation there on failure,
// AF_STRESS_KEEP_MODES=1 leaves the tree's modes as the failure found them.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const SELF = fileURLToPath(import.meta.url)
/** How long one burst's settled() may take before the round fails. */
const SETTLE_MS = 30_000
/**
 * The watchers a seed can run under (AF_STRESS_WATCHERS, comma-separated): the platform's own,
 * `notify`'s recursive one (the event path of macOS and Windows) and the poller, all three by
 * default. On Linux `notify`'s recursive watcher is its inotify backend, which names what happens
 * in a moved folder by the folder's old path for a while, can lose its watches of a folder moved
 * into one it has just walked, and stops watching a new folder's subfolders at one removed while
 * it walks them (docs/RELIABILITY.md says how the index works around each).
 */
const WATCHER_OPTIONS = { native: { watcher: 'native' }, recursive: { watcher: 'recursive' }, poll: { watcher: 'poll', pollIntervalMs: 50 } }

// ---------------------------------------------------------------- the child

/** Runs one seed (arguments in AF_STRESS_ARGS) and prints one JSON line: the counts, or the failure. */
async function child() {
  const { root, seed, rounds, ops, watcher } = JSON.parse(process.env.AF_STRESS_ARGS)
  let out
  try {
    out = { ok: true, ...(await stress(root, seed, rounds, ops, watcher)) }
  } catch (e) {
    out = { ok: false, message: e && e.stack ? e.stack : String(e) }
    // Every operation of the run, for minimizing a failure by hand.
    if (process.env.AF_STRESS_TRACE && e.did) fs.writeFileSync(process.env.AF_STRESS_TRACE, e.did.join('\n') + '\n')
  } finally {
    // Whatever a burst locked, the parent must be able to remove the tree.
    if (!process.env.AF_STRESS_KEEP_MODES) unlockAll(root)
  }
  fs.writeSync(1, JSON.stringify(out) + '\n')
  process.exit(0)
}

async function stress(root, seed, rounds, ops, watcher) {
  const { find, findFiles, openIndex, searchFiles } = await import('../index.mjs')
  const { seededRandom } = await import('./helpers.mjs')
  const rand = seededRandom(seed)
  const burst = new Burst(root, rand)
  burst.setup()
  const index = await openIndex(root, WATCHER_OPTIONS[watcher])
  const started = Date.now()
  let compared = 0
  try {
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < ops; i++) burst.step()
      const where = `seed ${seed}, round ${round}`
      const settled = await within(index.settled().then(() => 'ok', (e) => `rejected ${e.code}: ${e.message}`), SETTLE_MS)
      if (settled !== 'ok') throw new Error(`${where}: settled() ${settled ?? `did not resolve within ${SETTLE_MS} ms`}\n${burst.lastOps()}`)
      for (const [label, indexed, fresh] of burst.calls(rand, { find, findFiles, searchFiles }, index)) {
        const [a, b] = [comparable(await outcome(indexed())), comparable(await outcome(fresh()))]
        compared++
        try {
          assert.deepEqual(a, b)
        } catch {
          throw Object.assign(new Error(`${where}: ${label} differs from a fresh call\n${difference(a, b)}\n${burst.lastOps()}`), { did: burst.did })
        }
      }
    }
    return { seed, rounds, ops: burst.done, failedOps: burst.failed, compared, ms: Date.now() - started, stats: index.stats() }
  } finally {
    await index.close()
  }
}

/** `promise`'s value, or undefined if it takes longer than `ms`. */
function within(promise, ms) {
  let timer
  return Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer))
}

/** A call's result, or its rejection's code and message, so refusals are compared too. */
const outcome = (promise) => promise.then((value) => ({ value }), (e) => ({ error: e && e.code, message: e && e.message }))

/**
 * The outcome as compared. A search that finds nothing names at most 10 of
 * the skipped places that hold matches, the first ones found, and says "and
 * maybe more", then the always-skipped folders not among them: which 10
 * depends on the walk's threads, so both lists are left out then (fresh
 * calls differ from each other there too).
 */
function comparable(o) {
  // A search's cursor names the index and its tree's generation: never a fresh call's.
  if (o.value && typeof o.value.cursor === 'string') o = { ...o, value: { ...o.value, cursor: '<cursor>' } }
  const notice = o.value && o.value.notice
  if (typeof notice !== 'string' || !notice.includes(' and maybe more.')) return o
  // The always-skipped folders named after them are those not among the 10: left out too.
  const named = notice.replace(/(places that were skipped: ).*?( and maybe more\.)/, '$1(10 of them)$2').replace(/ Also skipped: .*?(?= Set `noIgnore)/, '')
  return { ...o, value: { ...o.value, notice: named } }
}

/** What one side holds that the other lacks (entries, matches, files, counts), for the failure message. */
function difference(indexed, fresh) {
  const list = (o) => {
    const v = o.value
    if (!v) return null
    return v.entries ?? v.matches ?? v.files ?? v.counts ?? (Array.isArray(v) ? v : null)
  }
  const [a, b] = [list(indexed), list(fresh)]
  if (!a || !b) return `index: ${JSON.stringify(indexed).slice(0, 600)}\nfresh: ${JSON.stringify(fresh).slice(0, 600)}`
  const [sa, sb] = [new Set(a.map((x) => JSON.stringify(x))), new Set(b.map((x) => JSON.stringify(x)))]
  const only = (x, y) => [...x].filter((e) => !y.has(e)).slice(0, 10).join('\n    ')
  const rest = (o) => JSON.stringify({ ...o.value, entries: undefined, matches: undefined, files: undefined, counts: undefined }).slice(0, 1200)
  if (JSON.stringify(a) === JSON.stringify(b)) return `the same ${a.length} items; other fields differ:\nindex: ${rest(indexed)}\nfresh: ${rest(fresh)}`
  if (a.length === b.length && !only(sa, sb) && !only(sb, sa)) return `the same ${a.length} items in another order:\nindex: ${JSON.stringify(a).slice(0, 600)}\nfresh: ${JSON.stringify(b).slice(0, 600)}`
  return `only in the index's answer:\n    ${only(sa, sb) || '(none)'}\nonly in the fresh answer:\n    ${only(sb, sa) || '(none)'}\n` +
    `index (other fields): ${rest(indexed)}\nfresh (other fields): ${rest(fresh)}`
}

/** Gives every folder below `root` back its owner's rwx (a burst may have locked some). */
function unlockAll(root) {
  const stack = [root]
  while (stack.length) {
    const dir = stack.pop()
    try {
      fs.chmodSync(dir, 0o755)
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) stack.push(path.join(dir, e.name))
    } catch {}
  }
}

const NAMES = ['a', 'b', 'c', 'index', 'main', 'util', '.env', 'keep', 'x y', 'naïve', 'gen', 'build']
const EXTS = ['.ts', '.js', '.log', '.md', '']
const DIRS = ['src', 'build', 'gen', 'docs', '.cache', 'lib', 'deep', 'x y']
const IGNORE_LINES = ['*.log', 'build/', '!keep.log', '*.md', 'gen', '/top.js', 'x y*', 'deep/', '*.ts', '!main.ts', 'lib/**/a*', '.env']
const CONTENT = ['', 'x', 'more\n', 'main()\nmore\n', 'TODO more more\n', 'a\nb\nmain more\n', 'x'.repeat(200)]
const FOLDER_MODES = [0o000, 0o444, 0o111, 0o555, 0o700]
const FILE_MODES = [0o000, 0o444, 0o111, 0o200]

/** The random operations of one seed, on the tree at `root`, and the queries compared after each burst. */
class Burst {
  constructor(root, rand) {
    this.root = root
    this.rand = rand
    this.did = []
    this.done = 0
    this.failed = 0
    this.serial = 0
  }

  pick(list) {
    return list[Math.floor(this.rand() * list.length)]
  }

  abs(rel) {
    return path.join(this.root, rel)
  }

  /** A name not used before in this run (suffix `n`), for targets that must not exist. */
  unique(base) {
    return `${base}-${++this.serial}`
  }

  setup() {
    const files = {
      '.gitignore': '*.log\nbuild/\n', 'src/a.ts': 'main()\nmore\n', 'src/b.js': 'b', 'src/gen/x.ts': 'x', 'docs/guide.md': 'TODO more\n',
      'build/out.js': 'o', 'top.js': 't', '.cache/c.ts': 'c', 'keep.log': 'k', 'lib/one/two/three/four.ts': 'deep more\n', 'x y/naïve.md': 'n',
      '.git/info/exclude': 'secret*\n',
    }
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(this.abs(rel)), { recursive: true })
      fs.writeFileSync(this.abs(rel), text)
    }
    fs.symlinkSync('src', this.abs('src-link'))
    fs.symlinkSync('top.js', this.abs('top-link.js'))
    fs.symlinkSync('nowhere', this.abs('dangling'))
  }

  /**
   * Folders (by depth), files and symlinks below the root, relative and
   * sorted (readdir's order is not the same on every file system); `.git`
   * is left out, folders that cannot be listed are skipped.
   */
  list() {
    const dirs = ['']
    const files = []
    const links = []
    for (let i = 0; i < dirs.length; i++) {
      let names
      try {
        names = fs.readdirSync(this.abs(dirs[i]), { withFileTypes: true })
      } catch {
        continue
      }
      names.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
      for (const e of names) {
        const rel = dirs[i] ? `${dirs[i]}/${e.name}` : e.name
        if (rel === '.git') continue
        if (e.isDirectory()) dirs.push(rel)
        else if (e.isSymbolicLink()) links.push(rel)
        else files.push(rel)
      }
    }
    return { dirs, files, links }
  }

  /** One random operation; its description (and its error, if the file system refused it) is kept for failure messages. */
  step() {
    const t = this.list()
    let what
    try {
      what = this.operation(t)
    } catch (e) {
      this.failed++
      what = `${this.current} -> ${e.code ?? e.message}`
    }
    this.done++
    this.did.push(what)
  }

  lastOps(n = 25) {
    return `last operations (of ${this.done}), oldest first:\n  ${this.did.slice(-n).join('\n  ')}`
  }

  /** Records what is being tried before trying it, so a refusal still names it. */
  note(text) {
    this.current = text
    return text
  }

  /** A new file's path in a random folder. */
  freshFile(dirs) {
    const ext = this.pick(EXTS)
    const name = this.pick(NAMES) + (this.rand() < 0.3 ? String(Math.floor(this.rand() * 30)) : '') + ext
    return path.posix.join(this.pick(dirs), name)
  }

  write(rel) {
    fs.writeFileSync(this.abs(rel), this.pick(CONTENT))
  }

  /** Fills a folder with a few files (and sometimes a subfolder) of new names. */
  fill(rel) {
    fs.mkdirSync(this.abs(rel), { recursive: true })
    const n = 1 + Math.floor(this.rand() * 3)
    for (let i = 0; i < n; i++) this.write(path.posix.join(rel, this.unique(this.pick(NAMES)) + this.pick(EXTS)))
    if (this.rand() < 0.3) {
      const sub = path.posix.join(rel, this.pick(DIRS))
      fs.mkdirSync(this.abs(sub), { recursive: true })
      this.write(path.posix.join(sub, this.pick(NAMES) + '.ts'))
    }
  }

  operation({ dirs, files, links }) {
    const sub = dirs.slice(1)
    const entries = [...sub, ...files, ...links]
    const roll = this.rand()
    if (entries.length < 150 && this.rand() < 0.15) {
      // Keeps the tree from shrinking to a few entries over a long run.
      const d = path.posix.join(this.pick(dirs), this.pick(DIRS) + Math.floor(this.rand() * 4))
      this.note(`grow ${d}`)
      this.fill(d)
      return this.current
    }
    if (roll < 0.12 || files.length < 5) {
      const rel = this.freshFile(dirs)
      this.note(`create ${rel}`)
      this.write(rel)
      return this.current
    }
    if (roll < 0.17) {
      const rel = this.pick(files)
      this.note(`delete ${rel}`)
      fs.rmSync(this.abs(rel))
      return this.current
    }
    if (roll < 0.23) {
      // A rename, often to another folder (a move between parents).
      const [from, to] = [this.pick([...files, ...links]), this.freshFile(dirs)]
      this.note(`rename ${from} -> ${to}`)
      fs.renameSync(this.abs(from), this.abs(to))
      return this.current
    }
    if (roll < 0.3 && entries.length) {
      // Away and back: a->b, b->a, with a change while away half the time.
      const a = this.pick(entries)
      const b = path.posix.join(this.pick(dirs.filter((d) => !(d + '/').startsWith(a + '/'))), this.unique('away'))
      this.note(`away and back ${a} -> ${b} -> ${a}`)
      fs.renameSync(this.abs(a), this.abs(b))
      if (this.rand() < 0.5) {
        if (fs.lstatSync(this.abs(b)).isDirectory()) this.write(path.posix.join(b, this.unique('while-away') + '.ts'))
        else fs.appendFileSync(this.abs(b), 'more\n')
      }
      fs.renameSync(this.abs(b), this.abs(a))
      return this.current
    }
    if (roll < 0.36 && entries.length > 1) {
      // Swap two entries (files, folders, symlinks, or one of each), neither inside the other.
      const a = this.pick(entries)
      const others = entries.filter((e) => e !== a && !(e + '/').startsWith(a + '/') && !(a + '/').startsWith(e + '/'))
      if (others.length) {
        const b = this.pick(others)
        const tmp = path.posix.join(path.posix.dirname(a), this.unique('swap'))
        this.note(`swap ${a} <-> ${b}`)
        fs.renameSync(this.abs(a), this.abs(tmp))
        fs.renameSync(this.abs(b), this.abs(a))
        fs.renameSync(this.abs(tmp), this.abs(b))
        return this.current
      }
    }
    if (roll < 0.41 && sub.length) {
      // A folder moved to another parent.
      const d = this.pick(sub)
      const to = path.posix.join(this.pick(dirs.filter((x) => !(x + '/').startsWith(d + '/'))), this.unique('moved'))
      this.note(`move folder ${d} -> ${to}`)
      fs.renameSync(this.abs(d), this.abs(to))
      return this.current
    }
    if (roll < 0.46) {
      // A deep move: into the deepest folders, or from deep up to the top.
      const depth = (d) => d.split('/').length
      const deep = sub.filter((d) => depth(d) >= 3)
      if (deep.length && this.rand() < 0.5) {
        const d = this.pick(deep)
        const to = this.unique('up')
        this.note(`deep move ${d} -> ${to}`)
        fs.renameSync(this.abs(d), this.abs(to))
        return this.current
      }
      const chain = path.posix.join(this.pick(dirs), 'l1/l2/l3/l4')
      const moving = this.pick(sub.length ? sub : [''])
      const to = path.posix.join(chain, this.unique('sunk'))
      this.note(`deep move ${moving} -> ${to}`)
      fs.mkdirSync(this.abs(chain), { recursive: true })
      if (moving && !(chain + '/').startsWith(moving + '/')) fs.renameSync(this.abs(moving), this.abs(to))
      return this.current
    }
    if (roll < 0.53 && entries.length) {
      // Recreated under the same name: new contents, or another kind.
      const e = this.pick(entries)
      const old = fs.lstatSync(this.abs(e))
      const how = this.pick(['rename-away', 'delete', 'as-other-kind'])
      this.note(`recreate ${e} (${old.isDirectory() ? 'folder' : old.isSymbolicLink() ? 'symlink' : 'file'}, ${how})`)
      if (how === 'rename-away') fs.renameSync(this.abs(e), this.abs(path.posix.join(path.posix.dirname(e), this.unique('old'))))
      else fs.rmSync(this.abs(e), { recursive: true })
      if ((how === 'as-other-kind') === old.isDirectory()) this.write(e)
      else this.fill(e)
      return this.current
    }
    if (roll < 0.57) {
      const d = path.posix.join(this.pick(dirs), this.pick(DIRS) + Math.floor(this.rand() * 4))
      this.note(`mkdir ${d}`)
      this.fill(d)
      return this.current
    }
    if (roll < 0.6 && sub.length) {
      const d = this.pick(sub)
      this.note(`delete folder ${d}`)
      fs.rmSync(this.abs(d), { recursive: true })
      return this.current
    }
    if (roll < 0.615) {
      // Mass delete: several top folders at once, or every file of a folder.
      const top = sub.filter((d) => !d.includes('/'))
      if (top.length > 2 && this.rand() < 0.5) {
        const gone = top.filter(() => this.rand() < 0.5).slice(0, 3)
        this.note(`mass delete ${gone.join(', ')}`)
        for (const d of gone) fs.rmSync(this.abs(d), { recursive: true, force: true })
        return this.current
      }
      const d = this.pick(dirs)
      const gone = files.filter((f) => path.posix.dirname(f) === (d || '.'))
      this.note(`mass delete ${gone.length} files of ${d || '.'}`)
      for (const f of gone) fs.rmSync(this.abs(f), { force: true })
      return this.current
    }
    if (roll < 0.7) {
      const lines = IGNORE_LINES.filter(() => this.rand() < 0.25)
      const rel = this.rand() < 0.2
        ? '.git/info/exclude'
        : path.posix.join(this.pick(dirs), this.rand() < 0.7 ? '.gitignore' : '.ignore')
      this.note(`ignore file ${rel}: ${lines.join(', ')}`)
      fs.writeFileSync(this.abs(rel), lines.join('\n') + '\n')
      return this.current
    }
    if (roll < 0.76) {
      // A new symlink: to a file, to a folder, dangling, or leading out of the tree.
      const where = this.pick(dirs)
      const rel = path.posix.join(where, this.unique(this.pick(['link', 'ln.ts', '.hidden-link'])))
      const kind = this.pick(['file', 'folder', 'dangling', 'outside'])
      const target = kind === 'file' && files.length
        ? path.posix.relative(where, this.pick(files))
        : kind === 'folder' && sub.length ? path.posix.relative(where, this.pick(sub)) : kind === 'outside' ? '/tmp' : this.unique('nowhere')
      this.note(`symlink ${rel} -> ${target}`)
      fs.symlinkSync(target || '.', this.abs(rel))
      return this.current
    }
    if (roll < 0.8 && links.length) {
      // A symlink swapped for one to another target: in place, or renamed over it.
      const rel = this.pick(links)
      const target = this.pick([...files, ...sub, 'nowhere'])
      const rename = this.rand() < 0.5
      this.note(`swap symlink ${rel} -> /${target} (${rename ? 'renamed over' : 'unlink, symlink'})`)
      const linkTarget = path.posix.relative(path.posix.dirname(rel), target) || '.'
      if (rename) {
        const tmp = path.posix.join(path.posix.dirname(rel), this.unique('newlink'))
        fs.symlinkSync(linkTarget, this.abs(tmp))
        fs.renameSync(this.abs(tmp), this.abs(rel))
      } else {
        fs.unlinkSync(this.abs(rel))
        fs.symlinkSync(linkTarget, this.abs(rel))
      }
      return this.current
    }
    if (roll < 0.83 && sub.length > 1) {
      // A folder replaced by a symlink (to another folder) under its name.
      const d = this.pick(sub)
      const target = this.pick(sub.filter((x) => x !== d))
      this.note(`folder ${d} replaced by a symlink to /${target}`)
      if (this.rand() < 0.5) fs.rmSync(this.abs(d), { recursive: true })
      else fs.renameSync(this.abs(d), this.abs(path.posix.join(path.posix.dirname(d), this.unique('was'))))
      fs.symlinkSync(path.posix.relative(path.posix.dirname(d), target) || '.', this.abs(d))
      return this.current
    }
    if (roll < 0.88 && sub.length) {
      const d = this.pick(sub)
      const mode = this.pick(FOLDER_MODES)
      this.note(`chmod ${mode.toString(8).padStart(3, '0')} folder ${d}`)
      fs.chmodSync(this.abs(d), mode)
      return this.current
    }
    if (roll < 0.92) {
      // Unlock a folder a burst locked (one the listing still reaches).
      const locked = sub.filter((d) => {
        try {
          return (fs.lstatSync(this.abs(d)).mode & 0o777) !== 0o755
        } catch {
          return false
        }
      })
      if (locked.length) {
        const d = this.pick(locked)
        this.note(`chmod 755 folder ${d}`)
        fs.chmodSync(this.abs(d), 0o755)
        return this.current
      }
    }
    if (roll < 0.95) {
      const f = this.pick(files)
      const mode = this.rand() < 0.4 ? 0o644 : this.pick(FILE_MODES)
      this.note(`chmod ${mode.toString(8).padStart(3, '0')} file ${f}`)
      fs.chmodSync(this.abs(f), mode)
      return this.current
    }
    const f = this.pick(files)
    this.note(`append ${f}`)
    fs.appendFileSync(this.abs(f), this.pick(['more\n', 'main\n', 'x']))
    return this.current
  }

  /**
   * The calls compared after a burst: [label, index call, fresh call].
   * The subfolder and the symlinked folder searched are picked at random.
   */
  calls(rand, { find, findFiles, searchFiles }, index) {
    const { dirs, links } = this.list()
    const sub = dirs.length > 1 ? dirs[1 + Math.floor(rand() * (dirs.length - 1))] : null
    const deepest = dirs[dirs.length - 1] || null
    const folderLinks = links.filter((l) => {
      try {
        return fs.statSync(this.abs(l)).isDirectory() && fs.realpathSync(this.abs(l)).startsWith(this.root + '/')
      } catch {
        return false
      }
    })
    const viaLink = folderLinks.length ? folderLinks[Math.floor(rand() * folderLinks.length)] : null
    const finds = [
      { pattern: '**/*' },
      { pattern: '**/*.ts' },
      { pattern: '**/*', type: 'any', sortBy: 'name', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity },
      { pattern: '**/*', type: 'any', gitignore: false, hidden: false, sortBy: 'name', limit: 2000 },
      { pattern: '**/*', type: 'dir', sortBy: 'mtime' },
      { pattern: '**/*', gitignore: false, sortBy: 'name', limit: 500 },
      { pattern: '**/*', hidden: false, sortBy: 'size', reverse: true, limit: 20 },
      { pattern: '*.log' },
      { pattern: '**/l4/**', type: 'any', gitignore: false },
      { pattern: '**/*.md', maxDepth: 1 },
      { pattern: '**/*', type: 'any', maxDepth: 3, sortBy: 'name', limit: 2000 },
      { pattern: '**/*', exclude: ['src*', '*.js', '**/away-*'], sortBy: 'name' },
      { pattern: '**/{main,index}*', type: 'any', sortBy: 'name' },
      { pattern: 'nothing-matches-this', hidden: false },
    ]
    for (const p of [sub, deepest, viaLink]) {
      if (p) finds.push({ pattern: '**/*', path: p, type: 'any', sortBy: 'name' }, { pattern: '*', path: p, gitignore: false, maxDepth: 2 })
    }
    const searches = [
      { pattern: 'main', target: 'files' },
      { pattern: '*.md', target: 'files', noIgnore: true },
      { pattern: 'more' },
      { pattern: 'mo+re$', outputMode: 'count' },
      { pattern: '.', outputMode: 'files', noIgnore: true },
      { pattern: 'TODO|main', outputMode: 'files', fileGlob: '*.{ts,md}' },
    ]
    for (const p of [sub, viaLink]) {
      if (p) searches.push({ pattern: 'more', path: p }, { pattern: 'main', path: p, outputMode: 'count', noIgnore: true }, { pattern: 'a', target: 'files', path: p })
    }
    const root = this.root
    return [
      ...finds.map((q) => [`find ${JSON.stringify(q)}`, () => index.find(q), () => find({ ...q, cwd: root })]),
      ['findFiles("**/*.ts")', () => index.findFiles('**/*.ts'), () => findFiles('**/*.ts', root)],
      ...(sub ? [[`findFiles("**/*", ${JSON.stringify(sub)})`, () => index.findFiles('**/*', sub), () => findFiles('**/*', path.join(root, sub))]] : []),
      ...searches.map((q) => [`searchFiles ${JSON.stringify(q)}`, () => index.searchFiles(q), () => searchFiles({ ...q, cwd: root })]),
    ]
  }
}

// --------------------------------------------------------------- the parent

async function parent() {
  const { describe, test } = await import('node:test')
  const { NOBODY, cannotRunAsNobody, makeTmp, removeTmp } = await import('./helpers.mjs')
  const int = (name, fallback) => {
    const v = process.env[name]
    if (v === undefined || v === '') return fallback
    const n = Number(v)
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${JSON.stringify(v)}`)
    return n
  }
  const rounds = int('AF_STRESS_ROUNDS', 6)
  const ops = int('AF_STRESS_OPS', 40)
  const one = int('AF_STRESS_SEED', null)
  const seeds = one !== null ? [one] : Array.from({ length: int('AF_STRESS_SEEDS', 3) }, (_, i) => i + 1)
  const hogCount = int('AF_STRESS_HOGS', 2)
  // Per seed: start-up and settling, plus the operations at a generous pace.
  const budget = 60_000 + rounds * ops * 100

  await regressions({ describe, test }, cannotRunAsNobody)

  const watchers = (process.env.AF_STRESS_WATCHERS ?? 'native,recursive,poll').split(',')
  for (const w of watchers) assert.ok(w in WATCHER_OPTIONS, `AF_STRESS_WATCHERS: no watcher ${w}`)

  describe('openIndex under stress: random bursts, no settle between changes, CPU load', () => {
    for (const watcher of watchers) test(`watcher ${watcher}: ${seeds.length} seeds x ${rounds} rounds x ${ops} operations: every query equals a fresh call after each burst (as uid 65534 where it can)`,
      { timeout: budget * seeds.length + 30_000 }, async (t) => {
        // As uid 65534, modes matter; that needs root (and fails under CI without it).
        const nobody = cannotRunAsNobody() === null
        t.diagnostic(nobody ? 'the children run as uid 65534' : 'the children run as this user: cannot run as uid 65534')
        const hogs = []
        const stopHogs = () => {
          for (const h of hogs) if (h.exitCode === null && h.signalCode === null) h.kill('SIGKILL')
        }
        t.after(stopHogs)
        // Busy children: each ends by itself when its deadline passes or its parent is gone.
        const hogCode = `const p = process.ppid, end = Date.now() + ${budget * seeds.length}; while (Date.now() < end && process.ppid === p) {}`
        for (let i = 0; i < hogCount; i++) hogs.push(spawn(process.execPath, ['-e', hogCode], { stdio: 'ignore' }))
        const totals = { ops: 0, failedOps: 0, compared: 0, ms: 0 }
        const failures = []
        try {
          for (const seed of seeds) {
            const root = makeTmp()
            try {
              if (nobody) fs.chownSync(root, 65534, 65534)
              const out = await runChild(root, seed, rounds, ops, watcher, nobody ? NOBODY : [], budget)
              // Every seed runs: a long run reports all that fail, not the first.
              if (!out.ok) {
                failures.push(`seed ${seed} (replay: AF_STRESS_WATCHERS=${watcher} AF_STRESS_SEED=${seed} AF_STRESS_ROUNDS=${rounds} AF_STRESS_OPS=${ops}):\n${out.message}`)
                t.diagnostic(`seed ${seed}: FAILED: ${out.message.split('\n')[0]}`)
                continue
              }
              assert.equal(out.ops, rounds * ops)
              // Most operations must have happened, or the test proves little.
              assert.ok(out.failedOps < out.ops / 3, `seed ${seed}: ${out.failedOps} of ${out.ops} operations were refused`)
              for (const k of Object.keys(totals)) totals[k] += out[k]
              t.diagnostic(`seed ${seed}: ${out.ops} ops (${out.failedOps} refused), ${out.compared} calls compared, ${out.ms} ms; ` +
                `stats ${JSON.stringify({ entries: out.stats.entries, events: out.stats.events, reconciled: out.stats.foldersReconciled, rescans: out.stats.rescans })}`)
            } finally {
              removeTmp(root)
            }
          }
        } finally {
          stopHogs()
        }
        t.diagnostic(`total: ${seeds.length} seeds x ${rounds} rounds x ${ops} ops = ${totals.ops} ops, ${totals.compared} calls compared, ${totals.ms} ms in the children, ${hogCount} busy children`)
        assert.deepEqual(failures, [], `${failures.length} of ${seeds.length} seeds failed:\n\n${failures.join('\n\n')}`)
      })
  })
}

/** Cases the stress test found, each replayed alone (as uid 65534: modes matter only then). */
async function regressions({ describe, test }, cannotRunAsNobody) {
  const { runAsNobody, openToOthers } = await import('./hostile-helpers.mjs')
  const { makeTmp, removeTmp } = await import('./helpers.mjs')
  const sharedTmp = (t) => {
    const dir = makeTmp()
    openToOthers(dir)
    fs.chmodSync(dir, 0o777)
    t.after(() => removeTmp(dir))
    return dir
  }

  describe('openIndex under stress: cases found, replayed alone', () => {
    // A file in a folder that can be listed but not entered has no readable
    // time: searchFiles by name (newest first) dropped it from a fresh walk,
    // while find and the index list it with time 0.
    test('searchFiles by name lists a file of an r-- folder, fresh and indexed (uid 65534)', async (t) => {
      const why = cannotRunAsNobody()
      if (why) return t.skip(why)
      const dir = sharedTmp(t)
      const out = runAsNobody(`async ({ find, openIndex, searchFiles }) => {
        const fs = require('fs'), path = require('path')
        const root = ${JSON.stringify(dir)}
        fs.mkdirSync(path.join(root, 'docs'))
        fs.writeFileSync(path.join(root, 'docs', 'main.ts'), 'main')
        fs.writeFileSync(path.join(root, 'main.js'), 'main')
        const index = await openIndex(root)
        fs.chmodSync(path.join(root, 'docs'), 0o444)
        let timer; await Promise.race([index.settled(), new Promise((r) => (timer = setTimeout(r, 5000)))]).finally(() => clearTimeout(timer))
        const q = { pattern: 'main', target: 'files' }
        const out = {
          fresh: (await searchFiles({ ...q, cwd: root })).files,
          indexed: (await index.searchFiles(q)).files,
          find: (await find({ pattern: '**/main*', cwd: root, sortBy: 'name' })).entries.map((e) => e.path),
        }
        await index.close()
        fs.chmodSync(path.join(root, 'docs'), 0o755)
        return out
      }`)
      assert.ok(out.ok, JSON.stringify(out))
      assert.deepEqual(out.value.find, ['docs/main.ts', 'main.js'])
      // main.js has a real time, docs/main.ts time 0: newest first.
      assert.deepEqual(out.value.fresh, ['main.js', 'docs/main.ts'])
      assert.deepEqual(out.value.indexed, out.value.fresh)
    })

    // The index held the folder, so it answered from memory; a walk on disk
    // cannot open it and refuses the search path.
    test('a search path the OS refuses to open (000, --x, below r--) is refused as on disk (uid 65534)', async (t) => {
      const why = cannotRunAsNobody()
      if (why) return t.skip(why)
      const dir = sharedTmp(t)
      const out = runAsNobody(`async ({ find, openIndex, searchFiles }) => {
        const fs = require('fs'), path = require('path')
        const root = ${JSON.stringify(dir)}
        for (const d of ['none/in', 'exec/in', 'read/in', 'open/in']) {
          fs.mkdirSync(path.join(root, d), { recursive: true })
          fs.writeFileSync(path.join(root, d, 'f.ts'), 'more')
        }
        const index = await openIndex(root)
        const modes = { none: 0o000, exec: 0o111, read: 0o444 }
        for (const [d, mode] of Object.entries(modes)) fs.chmodSync(path.join(root, d), mode)
        let timer; await Promise.race([index.settled(), new Promise((r) => (timer = setTimeout(r, 5000)))]).finally(() => clearTimeout(timer))
        const show = (p) => p.then((r) => JSON.stringify(r.entries ?? r.matches), (e) => e.code + ': ' + e.message.replace(root, '<root>'))
        const out = []
        for (const p of ['none', 'exec', 'read', 'read/in', 'open']) {
          // By name: newest first would hang on whether a file's write crossed a clock tick after its folder's.
          out.push([p, await show(find({ pattern: '**', type: 'any', path: p, cwd: root, sortBy: 'name' })), await show(index.find({ pattern: '**', type: 'any', path: p, sortBy: 'name' }))])
          out.push([p, await show(searchFiles({ pattern: 'more', path: p, cwd: root })), await show(index.searchFiles({ pattern: 'more', path: p }))])
        }
        await index.close()
        for (const d of Object.keys(modes)) fs.chmodSync(path.join(root, d), 0o755)
        return out
      }`)
      assert.ok(out.ok, JSON.stringify(out))
      for (const [p, fresh, indexed] of out.value) assert.equal(indexed, fresh, p)
      const refused = out.value.filter(([, fresh]) => fresh.startsWith('permission-denied')).map(([p]) => p)
      assert.deepEqual(refused, ['none', 'none', 'exec', 'exec', 'read/in', 'read/in'])
    })

    // The index cannot list a --x folder, so it holds nothing below it; a
    // walk on disk still reaches a folder there by its path. The index said
    // not-found (seeds 1, 7 and 15 of the long run).
    test('a search path below a --x folder is walked as on disk (uid 65534)', async (t) => {
      const why = cannotRunAsNobody()
      if (why) return t.skip(why)
      const dir = sharedTmp(t)
      const out = runAsNobody(`async ({ find, findFiles, openIndex, searchFiles }) => {
        const fs = require('fs'), path = require('path')
        const root = ${JSON.stringify(dir)}
        fs.mkdirSync(path.join(root, 'x', 'in', 'deeper'), { recursive: true })
        fs.writeFileSync(path.join(root, 'x', 'in', 'f.ts'), 'more')
        fs.writeFileSync(path.join(root, 'x', 'in', 'deeper', 'g.md'), 'more')
        fs.symlinkSync('x/in', path.join(root, 'link'))
        const index = await openIndex(root)
        fs.chmodSync(path.join(root, 'x'), 0o111)
        let timer; await Promise.race([index.settled(), new Promise((r) => (timer = setTimeout(r, 5000)))]).finally(() => clearTimeout(timer))
        const show = (p) => p.then((r) => JSON.stringify(Array.isArray(r) ? r : r.entries ? r.entries.map((e) => e.path) : r.files), (e) => e.code)
        const out = []
        for (const p of ['x/in', 'x/in/deeper', 'link', 'x/missing']) {
          // By name: newest first would hang on whether a file's write crossed a clock tick after its folder's.
          out.push([p, await show(find({ pattern: '**', type: 'any', path: p, cwd: root, sortBy: 'name' })), await show(index.find({ pattern: '**', type: 'any', path: p, sortBy: 'name' }))])
          out.push([p, await show(searchFiles({ pattern: 'more', outputMode: 'files', path: p, cwd: root })), await show(index.searchFiles({ pattern: 'more', outputMode: 'files', path: p }))])
        }
        out.push(['findFiles', await show(findFiles('**', path.join(root, 'x/in'))), await show(index.findFiles('**', 'x/in'))])
        await index.close()
        fs.chmodSync(path.join(root, 'x'), 0o755)
        return out
      }`)
      assert.ok(out.ok, JSON.stringify(out))
      for (const [p, fresh, indexed] of out.value) assert.equal(indexed, fresh, p)
      assert.equal(out.value[0][1], JSON.stringify(['deeper', 'deeper/g.md', 'f.ts']))
      assert.equal(out.value[6][1], 'not-found')
    })

    // The list of what a set of rules lets through is kept for the next
    // query; what ignore files hid was not kept with it, so the second search
    // that found nothing lost its notice of matches in ignored places.
    test('a search that finds nothing says where matches were skipped, also when asked again', async (t) => {
      const { openIndex, searchFiles } = await import('../index.mjs')
      const root = sharedTmp(t)
      fs.writeFileSync(path.join(root, '.gitignore'), 'ign/\n')
      fs.mkdirSync(path.join(root, 'ign'))
      fs.writeFileSync(path.join(root, 'ign', 'a.ts'), 'main\n')
      fs.writeFileSync(path.join(root, 'b.ts'), 'other\n')
      const index = await openIndex(root)
      t.after(() => index.close())
      for (const q of [{ pattern: 'main' }, { pattern: 'main' }, { pattern: 'TODO|main', outputMode: 'files' }, { pattern: 'main', target: 'files' }]) {
        const fresh = await searchFiles({ ...q, cwd: root })
        assert.deepEqual(await index.searchFiles(q), fresh, JSON.stringify(q))
        if (!q.target) assert.match(fresh.notice, /ign\/ \(ignored by an ignore file\)/)
      }
    })
  })
}

/** Runs one seed in a child process (as `prefix`, e.g. setpriv to uid 65534); resolves to its JSON line. */
function runChild(root, seed, rounds, ops, watcher, prefix, timeoutMs) {
  const env = { ...process.env, AF_STRESS_CHILD: '1', AF_STRESS_ARGS: JSON.stringify({ root, seed, rounds, ops, watcher }) }
  delete env.NODE_TEST_CONTEXT
  const argv = [...prefix, process.execPath, SELF]
  return new Promise((resolve) => {
    const c = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => (stdout += d))
    c.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => c.kill('SIGKILL'), timeoutMs)
    c.on('close', (code, signal) => {
      clearTimeout(timer)
      const line = stdout.trim().split('\n').pop()
      try {
        resolve(JSON.parse(line))
      } catch {
        resolve({ ok: false, message: `the child ended (code ${code}, signal ${signal}${signal === 'SIGKILL' ? `, killed after ${timeoutMs} ms` : ''}) without a result:\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}` })
      }
    })
  })
}

// Last, once every declaration above is initialized (classes and consts are not hoisted).
if (process.env.AF_STRESS_CHILD === '1') await child()
else await parent()
