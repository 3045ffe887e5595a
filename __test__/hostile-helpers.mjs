// Helpers for the robustness suites (hostile-trees, hostile-input, security,
// load): big trees built fast, deep chains, running a search as an
// unprivileged user, and reading this process's threads and memory.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'

import { NOBODY, REPO, cannotRunAsNobody, makeTmp } from './helpers.mjs'

/**
 * A fresh temp dir for big generated trees: on /dev/shm when it is a tmpfs
 * with room (building and removing 200,000 links there takes ~2 s instead of
 * ~5 s on this VM's ext4), else in os.tmpdir(). Remove it with `removeTmp`.
 */
export function makeScratch(minFreeBytes = 2 ** 31) {
  try {
    const st = fs.statfsSync('/dev/shm')
    if (st.bavail * st.bsize >= minFreeBytes) {
      const dir = fs.realpathSync(fs.mkdtempSync('/dev/shm/af-'))
      fs.accessSync(dir, fs.constants.W_OK)
      return dir
    }
  } catch {}
  return makeTmp()
}

/** ext4 allows 65,000 links to one inode; each base file serves at most this many. */
const LINKS_PER_BASE = 60_000

/**
 * Builds `root/<name>` holding `dirs` folders of `perDir` empty regular files
 * (d0000/f000.txt ...), all hard links to a few empty base files outside the
 * tree, so no inode is allocated per file (see `buildBigTree` in helpers.mjs
 * for why). All files share one mtime (2023-11-14) and size (0), so every
 * sort falls back to the path. With `dirs: 0` the files go straight into
 * the tree folder; `startDir` adds folders to an existing tree.
 * Returns the tree's path.
 */
export function buildLinkedTree(root, { dirs, perDir, name = 'tree', startDir = 0 }) {
  const tree = path.join(root, name)
  fs.mkdirSync(tree, { recursive: true })
  const dw = Math.max(4, String(startDir + dirs - 1).length)
  const fw = Math.max(3, String(perDir - 1).length)
  let base = null
  let used = LINKS_PER_BASE
  const link = (to) => {
    if (used === LINKS_PER_BASE) {
      base = path.join(root, `base-${name}-${fs.readdirSync(root).filter((n) => n.startsWith('base-')).length}`)
      fs.writeFileSync(base, '')
      fs.utimesSync(base, 1_700_000_000, 1_700_000_000) // every file of every tree: one mtime
      used = 0
    }
    fs.linkSync(base, to)
    used++
  }
  const file = (f) => `f${String(f).padStart(fw, '0')}.txt`
  if (dirs === 0) {
    for (let f = 0; f < perDir; f++) link(path.join(tree, file(f)))
    return tree
  }
  for (let d = startDir; d < startDir + dirs; d++) {
    const dir = path.join(tree, `d${String(d).padStart(dw, '0')}`)
    fs.mkdirSync(dir)
    for (let f = 0; f < perDir; f++) link(path.join(dir, file(f)))
  }
  return tree
}

/**
 * Creates `depth` nested folders named `name` under `dir` (and `leaf`, a file,
 * at the bottom). Done in a child process that chdirs down the chain, because
 * the full path soon exceeds PATH_MAX, which every path-based call refuses.
 */
export function buildChain(dir, depth, name = 'd', leaf = 'bottom.txt') {
  const script = `const fs = require('fs'); process.chdir(${JSON.stringify(dir)});
    for (let i = 0; i < ${depth}; i++) { fs.mkdirSync(${JSON.stringify(name)}); process.chdir(${JSON.stringify(name)}) }
    fs.writeFileSync(${JSON.stringify(leaf)}, 'bottom')`
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 })
  assert.equal(out.status, 0, `building a chain of ${depth} folders failed: ${out.stderr}`)
}

/** `rm -rf`: unlike fs.rmSync it copes with trees deeper than PATH_MAX. */
export function removeDeep(dir) {
  if (!path.basename(dir).startsWith('af-')) throw new Error(`refusing to remove ${dir}`)
  execFileSync('rm', ['-rf', '--one-file-system', dir])
}

export { NOBODY, cannotRunAsNobody }

/**
 * Runs `(af) => promise` (source text; `af` is the package) as uid 65534 in a
 * child process. Returns `{ ok: true, value }` or `{ ok: false, name, code, message }`.
 */
export function runAsNobody(fnSource) {
  const script = `
    const af = require(${JSON.stringify(path.join(REPO, 'index.js'))})
    Promise.resolve().then(() => (${fnSource})(af)).then(
      (value) => console.log(JSON.stringify({ ok: true, value })),
      (e) => console.log(JSON.stringify({ ok: false, name: e && e.constructor && e.constructor.name, code: e && e.code, message: e && e.message })))`
  const out = spawnSync(NOBODY[0], [...NOBODY.slice(1), process.execPath, '-e', script], { encoding: 'utf8', timeout: 30_000 })
  assert.equal(out.status, 0, `child failed: ${out.stderr}`)
  return JSON.parse(out.stdout)
}

/**
 * Runs `body` (ES module source; `af` is the package, `arg` the JSON
 * argument) in a child node under the shell line `limits`, with `env` added.
 * Its last `RESULT <json>` line is the answer.
 */
export function runChild(body, { limits = '', env = {}, arg = null, timeout = 60_000 } = {}) {
  const script = `
    import { createRequire } from 'node:module'
    const af = createRequire(${JSON.stringify(path.join(REPO, 'x.js'))})(${JSON.stringify(REPO)})
    const arg = JSON.parse(process.argv[1])
    const result = await (async () => { ${body} })()
    console.log('RESULT ' + JSON.stringify(result))`
  const r = spawnSync('/bin/sh', ['-c', `${limits}\nexec "$0" --input-type=module -e "$1" "$2"`, process.execPath, script, JSON.stringify(arg)], {
    encoding: 'utf8', timeout, killSignal: 'SIGKILL', env: { ...process.env, ...env },
  })
  const line = (r.stdout || '').split('\n').reverse().find((l) => l.startsWith('RESULT '))
  assert.ok(line, `the child ended without an answer (${r.signal ?? `status ${r.status}`}): ${(r.stderr || '').slice(0, 600)}`)
  return JSON.parse(line.slice('RESULT '.length))
}

/** Makes `dir` and every folder above it up to / enterable by others (mkdtemp makes 0700). */
export function openToOthers(dir) {
  fs.chmodSync(dir, 0o755)
}

/** Threads, current RSS and peak RSS (VmHWM) of this process, from /proc/self/status. */
export function procStatus() {
  const text = fs.readFileSync('/proc/self/status', 'utf8')
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)[1])
  return { threads: field('Threads'), rssMb: field('VmRSS') / 1024, hwmMb: field('VmHWM') / 1024 }
}

/** Resets VmHWM to the current RSS (Linux >= 4.0; needs write access to clear_refs). */
export function resetPeakRss() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5')
    return true
  } catch {
    return false
  }
}

let gcFn
/** A full garbage collection (exposes V8's gc without --expose-gc). */
export function gc() {
  if (!gcFn) {
    v8.setFlagsFromString('--expose-gc')
    gcFn = vm.runInNewContext('gc')
  }
  gcFn()
  gcFn()
}

/** The worst pause of the event loop while `fn()` runs, measured by a 1 ms interval timer. */
export async function worstLoopGap(fn) {
  let last = performance.now()
  let worst = 0
  const timer = setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last)
    last = now
  }, 1)
  try {
    const value = await fn()
    worst = Math.max(worst, performance.now() - last)
    return { value, worst }
  } finally {
    clearInterval(timer)
  }
}

/** Glob-escapes every metacharacter of a literal name, so it matches only itself. */
export const escapeGlob = (name) => name.replace(/[*?[\]{}\\]/g, (c) => `\\${c}`)

/** Entry bytes: `pathBytes` when present, else the UTF-8 of `path`. */
export const entryBytes = (e) => (e.pathBytes ? Buffer.from(e.pathBytes) : Buffer.from(e.path, 'utf8'))
