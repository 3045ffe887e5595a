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
import { spawnSync } from 'node:child_process'
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

/**
 * `gen-<N>k-js`: the layout of generated tree `{ name, files }` with the fixture's content; with `copies`,
 * `gen-<N>k-js-copies`, each file a copy rather than a hard link (a live index gives every file with more
 * than one name a watch of its own, so a tree of hard links measures that, not its search).
 */
export function ensureContentTree({ name, files, copies = false }, log = () => {}) {
  const fixture = ensureFixture(log)
  const fixtureDir = path.join(fixture.dir, 'node_modules')
  const jsName = copies ? `${name}-js-copies` : `${name}-js`
  const dir = path.join(TREES_DIR, jsName)
  const stampFile = path.join(TREES_DIR, `${jsName}.stamp`)
  const stamp = readStamp(stampFile)
  if (stamp && stamp.version === MIRROR_VERSION && stamp.fixture === fixture.hash && stamp.target === files && fs.existsSync(dir) && !!stamp.copies === copies) {
    return { dir, name: jsName, ...stamp }
  }
  const layout = ensureGeneratedTree({ name, files }, log)
  log(`building ${jsName}: ${name}'s layout, each file ${copies ? 'a copy of' : 'a hard link to'} a fixture file...`)
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
    if (copies) fs.copyFileSync(source, path.join(partial, visible(rel)))
    else fs.linkSync(source, path.join(partial, visible(rel)))
  })
  fs.renameSync(partial, dir)
  const built = { version: MIRROR_VERSION, copies, fixture: fixture.hash, target: files, files: list.length, dirs: dirs.length, rareFiles: rare.length, seconds: (Date.now() - t0) / 1000 }
  fs.writeFileSync(stampFile, `${JSON.stringify(built)}\n`)
  log(`built ${jsName}: ${list.length.toLocaleString('en')} files in ${built.seconds.toFixed(1)} s`)
  return { dir, name: jsName, ...built }
}

// ---------------------------------------------------------------- js64k (bench/warm.mjs)

/** The packages of `js64k`: ~64k files of real JavaScript and TypeScript (latest majors, so not pinned). */
export const NPM_TREE_PACKAGES = ['typescript@5', '@babel/core', 'webpack', 'eslint', 'rxjs', 'lodash', 'date-fns', '@mui/icons-material', 'three', '@types/node']
/** The word of the files `ensureNpmTree` adds: in those files and nowhere else. */
export const NPM_TREE_MARKER = 'zqxRareMarker42'
const NPM_TREE_VERSION = 1
const NPM_TREE_MARKER_FILES = 5

/**
 * `js64k`: the packages above as npm installs them (`--ignore-scripts`), with
 * `node_modules` moved to `lib/` and every folder name some tool skips by
 * default, and every hidden name, renamed as `visible` does (`dist` ->
 * `dist_`, `.bin` -> `_bin`), symlinks removed: so that agent-find, fff, rg
 * and fd all search the same files (the counts are printed by bench/warm.mjs).
 * Then NPM_TREE_MARKER_FILES small files holding NPM_TREE_MARKER, each in a
 * different folder spread over the tree. Built once (a stamp beside it);
 * needs the npm registry the first time (~1-2 minutes).
 */
export function ensureNpmTree(log = () => {}) {
  fs.mkdirSync(TREES_DIR, { recursive: true })
  const name = 'js64k'
  const dir = path.join(TREES_DIR, name)
  const stampFile = path.join(TREES_DIR, `${name}.stamp`)
  const stamp = readStamp(stampFile)
  const wanted = NPM_TREE_PACKAGES.join(' ')
  if (stamp && stamp.version === NPM_TREE_VERSION && stamp.packages === wanted && fs.existsSync(dir)) return { dir, name, ...stamp }
  const partial = `${dir}.partial`
  for (const stale of [partial, dir]) fs.rmSync(stale, { recursive: true, force: true })
  log(`building ${name}: npm install ${wanted} (first run only; needs the npm registry, ~1-2 min)...`)
  const t0 = Date.now()
  fs.mkdirSync(partial)
  fs.writeFileSync(path.join(partial, 'package.json'), '{ "name": "js64k", "private": true }\n')
  const npm = spawnSync('npm', ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...NPM_TREE_PACKAGES], {
    cwd: partial,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (npm.status !== 0) throw new Error(`npm install for ${name} failed (status ${npm.status})`)
  for (const f of ['package.json', 'package-lock.json']) fs.rmSync(path.join(partial, f), { force: true })
  fs.renameSync(path.join(partial, 'node_modules'), path.join(partial, 'lib'))
  // Top-down: each folder's entries renamed before it is entered.
  const stack = ['lib']
  let renamed = 0
  let symlinks = 0
  while (stack.length) {
    const rel = stack.pop()
    for (const d of fs.readdirSync(path.join(partial, rel), { withFileTypes: true })) {
      const from = path.join(partial, rel, d.name)
      if (d.isSymbolicLink()) {
        fs.unlinkSync(from)
        symlinks++
        continue
      }
      const to = visible(d.name)
      if (to !== d.name) {
        fs.renameSync(from, path.join(partial, rel, to))
        renamed++
      }
      if (d.isDirectory()) stack.push(`${rel}/${to}`)
    }
  }
  const { files, dirs } = walk(partial)
  const marked = files.filter((f) => fs.readFileSync(path.join(partial, f)).includes(NPM_TREE_MARKER))
  if (marked.length) throw new Error(`${NPM_TREE_MARKER} is already in ${marked.join(', ')}: pick another marker`)
  // Marker files: in folders spread over the sorted folder list, never two in one package.
  const markers = []
  const packages = new Set()
  const pkgOf = (d) => d.split('/').slice(0, d.split('/')[1]?.startsWith('@') ? 3 : 2).join('/')
  for (let j = 0; markers.length < NPM_TREE_MARKER_FILES && j < dirs.length; j++) {
    const d = dirs[Math.floor(((j * 0.618034) % 1) * dirs.length)]
    if (d.split('/').length < 3 || packages.has(pkgOf(d))) continue
    packages.add(pkgOf(d))
    const file = `${d}/zqx-marker-${markers.length + 1}.js`
    fs.writeFileSync(path.join(partial, file), `// A file bench/warm.mjs searches for.\nexport const ${NPM_TREE_MARKER} = ${markers.length + 1}\n`)
    markers.push(file)
  }
  fs.renameSync(partial, dir)
  const built = { version: NPM_TREE_VERSION, packages: wanted, files: files.length + markers.length, dirs: dirs.length, renamed, symlinks, markers, seconds: (Date.now() - t0) / 1000 }
  fs.writeFileSync(stampFile, `${JSON.stringify(built)}\n`)
  log(`built ${name}: ${built.files.toLocaleString('en')} files, ${dirs.length.toLocaleString('en')} folders in ${built.seconds.toFixed(1)} s (${renamed} names renamed, ${symlinks} symlinks removed)`)
  return { dir, name, ...built }
}
