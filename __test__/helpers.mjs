// Shared helpers for the agent-find test suite: temp trees, git, big trees,
// and assertions on FindFilesError rejections.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { FindFilesError, openIndex } from '../index.mjs'

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

// Live indexes keep their sketches between processes: in a folder of this
// test process's own (its children inherit it), never the user's cache.
if (!process.env.AGENT_FIND_CACHE_DIR) {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'af-cache-'))
  process.env.AGENT_FIND_CACHE_DIR = cacheDir
  process.on('exit', () => fs.rmSync(cacheDir, { recursive: true, force: true }))
}

/**
 * `openIndex`, once its background build of sketches is over: searches made
 * before then read as a fresh search does and keep nothing.
 */
export async function openIndexBuilt(root, options) {
  const index = await openIndex(root, options)
  for (const start = Date.now(); !['done', 'stopped'].includes(index.stats().contentBuild); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() - start > 30_000) throw new Error(`the background build did not end: ${JSON.stringify(index.stats())}`)
  }
  return index
}

/** Why a comparison with ripgrep cannot run, for a test's `skip`. */
export const NO_RIPGREP =
  'no ripgrep found: run `npm run install:rg` (the pinned rg in node_modules/.cache/ripgrep), set AGENT_FIND_RG, or put rg on PATH'

/**
 * The ripgrep the content-search tests hold answers to: `AGENT_FIND_RG`, else
 * the pinned one `npm run install:rg` puts in node_modules/.cache/ripgrep,
 * else `rg` on PATH; null when none runs. An `AGENT_FIND_RG` that does not
 * run is an error (it was asked for), and so is finding none in CI
 * (`CI=true`): there an oracle test must fail, never skip.
 */
export function ripgrepPath() {
  const runs = (candidate) => spawnSync(candidate, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).status === 0
  const asked = process.env.AGENT_FIND_RG
  if (asked) {
    if (runs(asked)) return asked
    throw new Error(`AGENT_FIND_RG=${asked} does not run (\`${asked} --version\` failed)`)
  }
  const pinned = path.join(REPO, 'node_modules', '.cache', 'ripgrep', process.platform === 'win32' ? 'rg.exe' : 'rg')
  for (const candidate of [pinned, 'rg']) {
    if ((candidate === 'rg' || fs.existsSync(candidate)) && runs(candidate)) return candidate
  }
  if (strictCi()) throw new Error(`${NO_RIPGREP}; in CI the comparisons with ripgrep must run`)
  return null
}

/**
 * A ripgrep built with PCRE2, for comparisons with `rg -P`:
 * `AGENT_FIND_RG_PCRE2`, else the first of `ripgrepPath()` and `rg` on PATH
 * that answers `--pcre2-version` (the pinned rg of `npm run install:rg` has
 * no PCRE2; Debian's `ripgrep` package, which `.ci/run` installs, has). Null
 * when none; in CI (see `strictCi`) that is an error.
 */
export function ripgrepPcre2Path() {
  const hasPcre2 = (candidate) => spawnSync(candidate, ['--pcre2-version'], { stdio: 'ignore' }).status === 0
  const asked = process.env.AGENT_FIND_RG_PCRE2
  if (asked) {
    if (hasPcre2(asked)) return asked
    throw new Error(`AGENT_FIND_RG_PCRE2=${asked} does not run \`--pcre2-version\``)
  }
  const found = [ripgrepPath(), 'rg'].filter(Boolean).find(hasPcre2)
  if (found) return found
  if (strictCi()) throw new Error('no ripgrep with PCRE2 found (`rg --pcre2-version` fails): apt-get install -y ripgrep (as .ci/run does), or set AGENT_FIND_RG_PCRE2; in CI the comparisons with rg -P must run')
  return null
}

/** A fresh, empty temp dir (its real path, so comparisons with process.cwd() hold). */
export function makeTmp() {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'af-')))
}

/** Removes a temp dir made by `makeTmp`, even if a test left it read-only. */
export function removeTmp(dir) {
  if (!dir || !path.basename(dir).startsWith('af-')) throw new Error(`refusing to remove ${dir}`)
  fs.rmSync(dir, { recursive: true, force: true })
}

/**
 * A fresh temp dir removed when the test ends (`t.after`).
 * `spec` is passed to `writeTree`.
 */
export function tmpTree(t, spec = {}) {
  const dir = makeTmp()
  t.after(() => removeTmp(dir))
  writeTree(dir, spec)
  return dir
}

/**
 * Writes `spec` under `root`. Keys are relative POSIX paths; values:
 * - a string or Buffer: file contents;
 * - a number: a file of that many bytes;
 * - `null` or a key ending in '/': an empty directory;
 * - `{ symlink: target }`: a symbolic link;
 * - `{ content, mtime }`: a file with an mtime (seconds, a Date, or ms via `mtimeMs`).
 */
export function writeTree(root, spec) {
  for (const [rel, value] of Object.entries(spec)) {
    const full = path.join(root, rel)
    if (value === null || rel.endsWith('/')) {
      fs.mkdirSync(full, { recursive: true })
      continue
    }
    fs.mkdirSync(path.dirname(full), { recursive: true })
    if (typeof value === 'string' || Buffer.isBuffer(value)) {
      fs.writeFileSync(full, value)
    } else if (typeof value === 'number') {
      fs.writeFileSync(full, Buffer.alloc(value, 'x'))
    } else if (value && typeof value === 'object' && 'symlink' in value) {
      fs.symlinkSync(value.symlink, full)
    } else if (value && typeof value === 'object') {
      const content = typeof value.content === 'number' ? Buffer.alloc(value.content, 'x') : (value.content ?? '')
      fs.writeFileSync(full, content)
      if (value.mtime !== undefined) setMtime(full, value.mtime)
    } else {
      throw new Error(`bad tree spec for ${rel}`)
    }
  }
  return root
}

/** Sets atime and mtime of `file` (seconds since epoch, or a Date). */
export function setMtime(file, when) {
  fs.utimesSync(file, when, when)
}

/** `git init -q` in `dir` (a real repository, so `.git` exists). */
export function gitInit(dir) {
  execFileSync('git', ['init', '-q', dir], { stdio: ['ignore', 'ignore', 'pipe'] })
  assert.ok(fs.statSync(path.join(dir, '.git')).isDirectory(), 'git init made .git')
  return dir
}

/**
 * Builds a tree of `dirs` folders holding `perDir` empty regular files each
 * (d000/f00.txt ...) in `root/tree`, and returns that path.
 *
 * The files are hard links to one empty file (`root/base`, outside the tree):
 * to the walker each is a regular file of its own, but no inode is allocated
 * per file. On this VM's ext4, allocating inodes right after many were
 * deleted costs ~0.6 ms each (the allocator skips recently deleted inodes),
 * which made a 50,000-file tree take ~30 s to build instead of ~1 s.
 * All files share one mtime and size, so every sort falls back to the path.
 */
export function buildBigTree(root, dirs = 500, perDir = 100) {
  const pad = (n, w) => String(n).padStart(w, '0')
  const dw = String(dirs - 1).length
  const fw = String(perDir - 1).length
  const base = path.join(root, 'base')
  const tree = path.join(root, 'tree')
  fs.writeFileSync(base, '')
  fs.mkdirSync(tree)
  for (let d = 0; d < dirs; d++) {
    const dir = path.join(tree, `d${pad(d, dw)}`)
    fs.mkdirSync(dir)
    for (let f = 0; f < perDir; f++) fs.linkSync(base, path.join(dir, `f${pad(f, fw)}.txt`))
  }
  assert.equal(fs.statSync(base).nlink, dirs * perDir + 1)
  return tree
}

/** The relative paths of a result's entries, in result order. */
export const paths = (result) => result.entries.map((e) => e.path)

/** The relative paths of a result's entries, sorted (for order-insensitive checks). */
export const sortedPaths = (result) => paths(result).sort()

/**
 * Awaits `promiseOrFn` and asserts it rejects with a FindFilesError of `code`
 * whose message matches every regex / includes every string in `messages`.
 * Returns the error for further checks.
 */
export async function rejectsWith(promiseOrFn, code, ...messages) {
  let err
  let rejected = false
  try {
    await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn)
  } catch (e) {
    err = e
    rejected = true
  }
  assert.ok(rejected, `expected a rejection with code '${code}', but it resolved`)
  assert.ok(err instanceof FindFilesError, `expected a FindFilesError, got ${err && err.constructor && err.constructor.name}: ${err && err.message}`)
  assert.ok(err instanceof Error)
  assert.equal(err.name, 'FindFilesError')
  assert.equal(err.code, code, `wrong code; message: ${err.message}`)
  assert.equal(typeof err.message, 'string')
  assert.ok(err.message.length > 10, `message too short to be useful: '${err.message}'`)
  for (const m of messages) {
    if (m instanceof RegExp) assert.match(err.message, m)
    else assert.ok(err.message.includes(m), `message should mention ${JSON.stringify(m)}: ${err.message}`)
  }
  return err
}

/** Byte length of a string as UTF-8. */
export const bytes = (text) => Buffer.byteLength(text, 'utf8')

/** A small deterministic PRNG (mulberry32): `seededRandom(seed)()` gives numbers in [0, 1), the same for the same seed, so a failure can be replayed. */
export function seededRandom(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** setpriv arguments that run a command as uid/gid 65534 (nobody). */
export const NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']

/**
 * Why searches cannot run as uid 65534 here, or null when they can. Off
 * Linux that is the platform; on Linux it is a need (`requireTool`), which
 * fails the test under CI.
 */
export function cannotRunAsNobody() {
  if (process.platform !== 'linux') return 'not Linux'
  const install = 'run the tests as root, with setpriv (apt-get install -y util-linux), from a checkout uid 65534 may read (every folder above it o+x)'
  return requireTool('setpriv', { why: 'switching to uid 65534 (nobody)', probe: nobodyProbe, install }).skip || null
}

function nobodyProbe() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'not running as root, cannot switch to nobody'
  const probe = spawnSync(NOBODY[0], [...NOBODY.slice(1), process.execPath, '-e', `require(${JSON.stringify(path.join(REPO, 'index.js'))})`], { encoding: 'utf8', timeout: 20_000 })
  if (probe.error) return `setpriv unavailable: ${probe.error.message}`
  if (probe.status !== 0) return `nobody cannot load the addon from ${REPO}: ${probe.stderr.trim().split('\n')[0]}`
  return null
}

/** The Debian package that holds each program the tests run (what `.ci/run` installs). */
const DEBIAN_PACKAGE = { git: 'git', setpriv: 'util-linux', unshare: 'util-linux' }
const needs = new Map()

/**
 * What a test needs from the machine: a program, or a feature of the kernel
 * or of the user the tests run as. Outside CI an unmet need skips the test
 * and says why; under CI (`CI=true`) it throws, naming what to install, so
 * CI runs every test or fails, never passing with tests left out.
 * Platform limits (a Linux-only test on macOS) are not needs: test for the
 * platform first and skip there.
 *
 * - `name`: the program, looked up on PATH; with a `probe` function, the
 *   feature's name (`'/proc/self/io'`).
 * - `why`: what the test uses it for, for the messages.
 * - `probe`: arguments of a run of the program that must exit 0 (found on
 *   PATH is enough without them), or a function answering null when the
 *   need is met and why not otherwise. A program with its arguments, or a
 *   probe function, is probed once a process.
 * - `install`: what makes it met (default: the Debian package, as `.ci/run`
 *   installs it).
 *
 * Returns `{ path, skip }`: `skip` is false when the need is met (`path` is
 * then the program's path, null for a feature), else the reason, for
 * node:test's `skip` option or `t.skip()`.
 */
export function requireTool(name, { why, probe, install } = {}) {
  const key = typeof probe === 'function' ? probe : JSON.stringify([name, probe ?? null])
  if (!needs.has(key)) needs.set(key, findTool(name, probe))
  const { path: found, missing } = needs.get(key)
  if (!missing) return { path: found, skip: false }
  const reason = `${why ? `${why}: ` : ''}${missing}`
  if (strictCi()) {
    const fix = install ?? (DEBIAN_PACKAGE[name] ? `apt-get install -y ${DEBIAN_PACKAGE[name]} (as .ci/run does)` : `make ${name} available`)
    throw new Error(`${reason}. Under CI every test must run: ${fix}`)
  }
  return { path: found, skip: reason }
}

/**
 * Whether an unmet need fails the run: under CI (`CI=true`) on Linux, where
 * `.ci/run` installs everything, unless the job says it runs on a machine
 * that cannot have it (`AGENT_FIND_ALLOW_SKIPS=1`: the release workflow's
 * test jobs, on runners that are not root or are containers without
 * namespaces).
 */
function strictCi() {
  return process.env.CI === 'true' && process.platform === 'linux' && process.env.AGENT_FIND_ALLOW_SKIPS !== '1'
}

function findTool(name, probe) {
  if (typeof probe === 'function') {
    let missing
    try {
      missing = probe()
    } catch (e) {
      missing = `${name}: ${e && e.message}`
    }
    return { path: null, missing: missing ? String(missing) : null }
  }
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : ['']
  const dirs = (process.env.PATH || '').split(path.delimiter).filter(Boolean)
  const found = dirs.flatMap((d) => exts.map((e) => path.join(d, name + e))).find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK)
      return fs.statSync(p).isFile()
    } catch {
      return false
    }
  })
  if (!found) return { path: null, missing: `\`${name}\` is not on PATH` }
  if (!probe) return { path: found, missing: null }
  const run = spawnSync(found, probe, { encoding: 'utf8', timeout: 20_000 })
  if (run.status === 0) return { path: found, missing: null }
  const said = (run.error ? run.error.message : (run.stderr || '').trim().split('\n')[0]) || `exit status ${run.status}`
  return { path: found, missing: `\`${name} ${probe.join(' ')}\` fails here: ${said}` }
}

/**
 * Gives this test process (and the git it runs) a git setup of its own: an
 * empty temp HOME (no user config or global excludes), no system config, a
 * fixed author, and none of the variables that point git elsewhere. Call it
 * before any search; returns the HOME, removed when the process exits.
 */
export function useOwnGitEnv() {
  const home = makeTmp()
  process.on('exit', () => removeTmp(home))
  Object.assign(process.env, {
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'a',
    GIT_AUTHOR_EMAIL: 'a@a',
    GIT_COMMITTER_NAME: 'a',
    GIT_COMMITTER_EMAIL: 'a@a',
  })
  for (const name of ['XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR']) {
    delete process.env[name]
  }
  return home
}
