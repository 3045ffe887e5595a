// Content trees for bench/index-content.mjs: the generated layouts of
// bench/trees.mjs (gen-10k, gen-100k, gen-200k) filled with real JavaScript.
//
// A generated tree's files are all empty (hard links to an empty pool), so a
// content search over it reads nothing. `gen-<N>k-js` mirrors its folders and
// file names, and makes each file a hard link to a real file of the
// node_modules fixture (bench/fixture, `npm ci`), picked by a seeded PRNG: the
// same names and depth, real text, and no new bytes on disk. Files of the
// fixture that hold the rare literal (RARE) are left out of that pick and
// linked once each, spread over the tree, so the rare query matches the same
// handful of files at every size.
//
// Every tool must search the same files, and each skips some by default:
// fff skips hidden files and, outside a git repository, `node_modules` and
// build folders; agent-find skips its always-skipped folders unless
// `noIgnore: true`. So the mirror renames those folders and drops the dot of
// hidden names (`node_modules` -> `node_modules_`, `.cache` -> `_cache`), and
// leaves the `.gitignore` files out (a JS file named `.gitignore` would hide
// random paths). Built once under bench/.trees/ and reused; rebuilt when the
// fixture or MIRROR_VERSION changes.
import fs from 'node:fs'
import path from 'node:path'
import { TREES_DIR, ensureFixture, ensureGeneratedTree, mulberry32 } from './trees.mjs'

const MIRROR_VERSION = 2
/** Folder names some tool skips by default (agent-find's always-skipped list, fff's build folders). */
const SKIPPED = new Set('node_modules __pycache__ .venv venv .mypy_cache .pytest_cache dist build .next target vendor .tox coverage .idea out'.split(' '))

/** A path of the layout as the mirror names it: no hidden or always-skipped component. */
function visible(rel) {
  return rel
    .split('/')
    .map((c) => (SKIPPED.has(c) ? `${c.replace(/^\./, '_')}_` : c.startsWith('.') ? `_${c.slice(1)}` : c))
    .join('/')
}
/** The rare literal of the benchmark: in 7 files (8 lines) of the fixture. */
export const RARE = 'deadlock'


/** Every regular file and folder under `root` (relative, sorted), never `.git`; symlinks skipped. */
export function walk(root) {
  const files = []
  const dirs = []
  const stack = ['']
  while (stack.length) {
    const rel = stack.pop()
    for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (d.name === '.git') continue
      const child = rel ? `${rel}/${d.name}` : d.name
      if (d.isDirectory()) {
        dirs.push(child)
        stack.push(child)
      } else if (d.isFile()) files.push(child)
    }
  }
  return { files: files.sort(), dirs: dirs.sort() }
}

function readStamp(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return null
  }
}

/** The fixture's non-empty files, split into those holding RARE and the rest (absolute paths, sorted). */
function fixturePool(fixtureDir) {
  const rare = []
  const pool = []
  for (const rel of walk(fixtureDir).files) {
    const abs = path.join(fixtureDir, rel)
    const bytes = fs.readFileSync(abs)
    if (bytes.length === 0) continue
    ;(bytes.includes(RARE) ? rare : pool).push(abs)
  }
  return { rare, pool }
}

/** `gen-<N>k-js`: the layout of generated tree `{ name, files }` with the fixture's content. */
export function ensureContentTree({ name, files }, log = () => {}) {
  const fixture = ensureFixture(log)
  const fixtureDir = path.join(fixture.dir, 'node_modules')
  const jsName = `${name}-js`
  const dir = path.join(TREES_DIR, jsName)
  const stampFile = path.join(TREES_DIR, `${jsName}.stamp`)
  const stamp = readStamp(stampFile)
  if (stamp && stamp.version === MIRROR_VERSION && stamp.fixture === fixture.hash && stamp.target === files && fs.existsSync(dir)) {
    return { dir, name: jsName, ...stamp }
  }
  const layout = ensureGeneratedTree({ name, files }, log)
  log(`building ${jsName}: ${name}'s layout, each file a hard link to a fixture file...`)
  const t0 = Date.now()
  const partial = `${dir}.partial`
  for (const stale of [partial, dir]) fs.rmSync(stale, { recursive: true, force: true })
  const { rare, pool } = fixturePool(fixtureDir)
  if (!rare.length) throw new Error(`no file of the fixture holds "${RARE}": pick another rare literal`)
  const { files: names, dirs } = walk(layout.dir)
  const list = names.filter((f) => path.basename(f) !== '.gitignore')
  fs.mkdirSync(partial)
  for (const d of dirs) fs.mkdirSync(path.join(partial, visible(d)))
  const rng = mulberry32(0xc0de + files)
  const rareAt = new Map(rare.map((f, j) => [Math.floor(((j + 0.5) * list.length) / rare.length), f]))
  list.forEach((rel, i) => {
    const source = rareAt.get(i) ?? pool[Math.floor(rng() * pool.length)]
    fs.linkSync(source, path.join(partial, visible(rel)))
  })
  fs.renameSync(partial, dir)
  const built = { version: MIRROR_VERSION, fixture: fixture.hash, target: files, files: list.length, dirs: dirs.length, rareFiles: rare.length, seconds: (Date.now() - t0) / 1000 }
  fs.writeFileSync(stampFile, `${JSON.stringify(built)}\n`)
  log(`built ${jsName}: ${list.length.toLocaleString('en')} files in ${built.seconds.toFixed(1)} s`)
  return { dir, name: jsName, ...built }
}
