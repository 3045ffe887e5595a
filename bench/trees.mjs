// Benchmark trees: generated monorepo-like trees of 10k, 100k and 1M files,
// and a real node_modules installed from the pinned fixture. Everything lives
// under bench/.trees/ (gitignored) and is built once: a stamp file beside each
// tree records what was built, so re-runs reuse it.
//
// Generated trees are deterministic (a seeded PRNG decides every name) and
// fast to write: every file is a hard link to one of POOL empty files whose
// mtimes differ, so a million files cost a million link() calls and no new
// inodes, and `sortBy: 'recent'` still has 2,000 distinct mtimes to order.
// A hard-linked file is an ordinary regular file to every tool.
//
// Never delete and recreate a big tree casually: on ext4, inode allocation is
// slow for a while after many deletes. Bump GEN_VERSION only on purpose.
import { execFileSync, spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
export const TREES_DIR = path.join(here, '.trees')
const GEN_VERSION = 1
const POOL = 2000
const POOL_MTIME_BASE = Date.UTC(2024, 0, 1) / 1000 // seconds
const MAX_DEPTH = 8 // deepest folder, counted from the tree root

export const GENERATED = [
  { name: 'gen-10k', files: 10_000 },
  { name: 'gen-100k', files: 100_000 },
  { name: 'gen-1m', files: 1_000_000 },
]

// ---------------------------------------------------------------- PRNG

/** A small seeded PRNG: deterministic trees from a seed. */
export function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

class Rng {
  constructor(seed) {
    this.next = mulberry32(seed)
  }
  int(n) {
    return Math.floor(this.next() * n)
  }
  range(lo, hi) {
    return lo + this.int(hi - lo + 1)
  }
  pick(list) {
    return list[this.int(list.length)]
  }
  /** Picks from [[weight, value], ...]. */
  weighted(table) {
    let total = 0
    for (const [w] of table) total += w
    let r = this.next() * total
    for (const [w, v] of table) if ((r -= w) < 0) return v
    return table[table.length - 1][1]
  }
  chance(p) {
    return this.next() < p
  }
}

// ---------------------------------------------------------------- vocabulary

const WORDS = (
  'button modal user auth api client server utils helpers config types store reducer hooks context ' +
  'provider router theme layout header footer form input table list item card chart date format parse ' +
  'validate logger cache queue worker session token request response schema model service controller ' +
  'middleware handler event emitter stream buffer file path search filter sort page query mutation resolver ' +
  'entity repository mapper adapter factory builder registry plugin loader parser lexer node tree graph color ' +
  'icon image avatar badge tooltip dropdown menu tabs toast dialog drawer grid stack text title link nav ' +
  'breadcrumb pagination spinner progress slider toggle checkbox radio select upload editor preview settings ' +
  'profile dashboard report invoice payment order cart product catalog inventory shipping notification ' +
  'message chat comment post feed follow share account billing plan team member role permission audit ' +
  'metrics trace span job task cron retry backoff limit rate quota region cluster deploy release build'
).split(' ')

const SRC_DIRS = (
  'src lib components utils hooks api services models views pages styles internal core common shared ' +
  'config types helpers store routes middleware handlers assets icons locales features modules widgets ' +
  'layouts providers context reducers selectors actions schemas validators adapters clients fixtures mocks'
).split(' ')

const PY_DIRS = 'app core api models schemas services utils db migrations workers tasks routers deps tests fixtures'.split(' ')
const RS_DIRS = 'src bin parser lexer ast codegen runtime io net fs sync util tests benches examples'.split(' ')
const NM_DIRS = 'lib dist cjs esm es types src internal utils helpers build modules compat legacy locale umd'.split(' ')
const DOC_DIRS = 'guide api reference tutorials concepts how-to blog images assets examples recipes'.split(' ')

const cap = (w) => w[0].toUpperCase() + w.slice(1)

function baseName(rng, style) {
  const a = rng.pick(WORDS)
  const b = rng.pick(WORDS)
  switch (style) {
    case 'pascal':
      return rng.chance(0.5) ? cap(a) + cap(b) : cap(a)
    case 'kebab':
      return rng.chance(0.6) ? `${a}-${b}` : a
    case 'snake':
      return rng.chance(0.6) ? `${a}_${b}` : a
    default:
      return rng.chance(0.6) ? a + cap(b) : a
  }
}

// Each kind: how its files are named, and what its folders are called.
// Extensions are lowercase only, so case-insensitive agent-find and the
// case-sensitive peers list the same files.
const KINDS = {
  ts: {
    dirs: SRC_DIRS,
    file(rng) {
      return rng.weighted([
        [24, () => `${baseName(rng, 'camel')}.ts`],
        [16, () => `${baseName(rng, 'pascal')}.tsx`],
        [10, () => `${baseName(rng, 'camel')}.js`],
        [4, () => `${baseName(rng, 'kebab')}.mjs`],
        [8, () => `${baseName(rng, 'camel')}.test.ts`],
        [3, () => `${baseName(rng, 'pascal')}.test.tsx`],
        [3, () => `${baseName(rng, 'pascal')}.stories.tsx`],
        [2, () => `${baseName(rng, 'camel')}.d.ts`],
        [5, () => `${baseName(rng, 'kebab')}.json`],
        [5, () => `${baseName(rng, 'pascal')}.module.css`],
        [3, () => `${baseName(rng, 'kebab')}.scss`],
        [3, () => `${baseName(rng, 'kebab')}.md`],
        [2, () => `${baseName(rng, 'kebab')}.svg`],
        [1, () => `${baseName(rng, 'kebab')}.png`],
        [1, () => `${baseName(rng, 'camel')}.gen.js`],
        [1, () => `${baseName(rng, 'camel')}.test.ts.snap`],
        [1, () => 'index.ts'],
        [1, () => 'index.js'],
        [1, () => `${baseName(rng, 'kebab')}.log`],
      ])()
    },
  },
  py: {
    dirs: PY_DIRS,
    file(rng) {
      return rng.weighted([
        [60, () => `${baseName(rng, 'snake')}.py`],
        [10, () => `test_${baseName(rng, 'snake')}.py`],
        [5, () => '__init__.py'],
        [4, () => `${baseName(rng, 'snake')}.pyi`],
        [5, () => `${baseName(rng, 'snake')}.json`],
        [4, () => `${baseName(rng, 'snake')}.yaml`],
        [4, () => `${baseName(rng, 'snake')}.sql`],
        [4, () => `${baseName(rng, 'kebab')}.md`],
        [4, () => `${baseName(rng, 'snake')}.txt`],
      ])()
    },
  },
  rs: {
    dirs: RS_DIRS,
    file(rng) {
      return rng.weighted([
        [70, () => `${baseName(rng, 'snake')}.rs`],
        [5, () => 'mod.rs'],
        [5, () => `${baseName(rng, 'snake')}.toml`],
        [5, () => `${baseName(rng, 'kebab')}.md`],
        [5, () => `${baseName(rng, 'snake')}.json`],
        [5, () => `${baseName(rng, 'snake')}.txt`],
      ])()
    },
  },
  rsTarget: {
    dirs: 'debug release build deps incremental fingerprint examples out .fingerprint'.split(' '),
    file(rng) {
      return rng.weighted([
        [40, () => `${baseName(rng, 'snake')}-${rng.int(1e6).toString(16)}.d`],
        [20, () => `lib${baseName(rng, 'snake')}-${rng.int(1e6).toString(16)}.rlib`],
        [20, () => `${baseName(rng, 'snake')}-${rng.int(1e6).toString(16)}.o`],
        [10, () => `${baseName(rng, 'snake')}.rs`],
        [10, () => `${baseName(rng, 'snake')}.json`],
      ])()
    },
  },
  dist: {
    dirs: 'cjs esm types umd chunks assets'.split(' '),
    file(rng) {
      return rng.weighted([
        [40, () => `${baseName(rng, 'camel')}.js`],
        [25, () => `${baseName(rng, 'camel')}.d.ts`],
        [20, () => `${baseName(rng, 'camel')}.js.map`],
        [5, () => `${baseName(rng, 'camel')}.cjs`],
        [5, () => `${baseName(rng, 'kebab')}.css`],
        [5, () => `${baseName(rng, 'camel')}.d.ts.map`],
      ])()
    },
  },
  nm: {
    dirs: NM_DIRS,
    file(rng) {
      return rng.weighted([
        [45, () => `${baseName(rng, 'camel')}.js`],
        [15, () => `${baseName(rng, 'camel')}.d.ts`],
        [6, () => `${baseName(rng, 'kebab')}.mjs`],
        [6, () => `${baseName(rng, 'kebab')}.cjs`],
        [8, () => `${baseName(rng, 'camel')}.js.map`],
        [5, () => `${baseName(rng, 'kebab')}.json`],
        [4, () => `${baseName(rng, 'pascal')}.md`],
        [3, () => `${baseName(rng, 'camel')}.ts`],
        [2, () => `${baseName(rng, 'kebab')}.css`],
        [2, () => 'index.js'],
        [2, () => 'LICENSE'],
        [2, () => `${baseName(rng, 'kebab')}.flow`],
      ])()
    },
  },
  docs: {
    dirs: DOC_DIRS,
    file(rng) {
      return rng.weighted([
        [55, () => `${baseName(rng, 'kebab')}.md`],
        [15, () => `${baseName(rng, 'kebab')}.mdx`],
        [10, () => `${baseName(rng, 'kebab')}.png`],
        [8, () => `${baseName(rng, 'kebab')}.svg`],
        [5, () => `${baseName(rng, 'kebab')}.yml`],
        [4, () => `${baseName(rng, 'kebab')}.html`],
        [3, () => `${baseName(rng, 'kebab')}.txt`],
      ])()
    },
  },
  logs: {
    dirs: 'app server worker build ci archive'.split(' '),
    file(rng) {
      return `${rng.pick(['app', 'server', 'worker', 'build', 'debug'])}-${rng.int(1e5)}.log`
    },
  },
  scripts: {
    dirs: 'ci release dev db tools codegen'.split(' '),
    file(rng) {
      return `${baseName(rng, 'kebab')}${rng.pick(['.sh', '.js', '.mjs', '.ts', '.py', '.log'])}`
    },
  },
  cache: {
    dirs: 'babel-loader eslint webpack jest ts tmp v8 prettier'.split(' '),
    file(rng) {
      return rng.weighted([
        [40, () => `${rng.int(2 ** 31).toString(16)}.json`],
        [30, () => `${rng.int(2 ** 31).toString(16)}.js`],
        [20, () => `${rng.int(2 ** 31).toString(16)}.pack`],
        [10, () => `${rng.int(2 ** 31).toString(16)}.map`],
      ])()
    },
  },
}

const ROOT_GITIGNORE = `# dependencies
node_modules/
# logs
*.log
logs/
# tool output
coverage/
.cache/
/tmp
.env
.env.local
`

const GITIGNORES = {
  package: 'dist/\n*.tsbuildinfo\n# generated, except the schema\n*.gen.js\n!schema.gen.js\n.turbo/\n',
  app: '.next/\nout/\nbuild/\n*.tsbuildinfo\n',
  service: '__pycache__/\n*.pyc\n.venv/\n/build/\n.pytest_cache/\n',
  crate: '/target\n**/*.rs.bk\n',
}

// ---------------------------------------------------------------- the writer

/** Creates folders and files; every file is a hard link into the pool. */
class Writer {
  constructor(root, rng, pool) {
    this.root = root
    this.rng = rng
    this.pool = pool
    this.files = 0
    this.dirs = 0
    this.names = new Map() // dir -> Set of names taken
  }

  unique(dir, name) {
    let taken = this.names.get(dir)
    if (!taken) this.names.set(dir, (taken = new Set()))
    if (!taken.has(name)) {
      taken.add(name)
      return name
    }
    const dot = name.indexOf('.', 1)
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, '']
    for (let i = 2; ; i++) {
      const candidate = `${stem}${i}${ext}`
      if (!taken.has(candidate)) {
        taken.add(candidate)
        return candidate
      }
    }
  }

  mkdir(parent, name) {
    const dir = path.join(parent, this.unique(parent, name))
    fs.mkdirSync(dir)
    this.dirs++
    return dir
  }

  /** An empty file: a hard link to a pool file, so it has that file's mtime. */
  file(dir, name) {
    fs.linkSync(this.pool[this.rng.int(this.pool.length)], path.join(dir, this.unique(dir, name)))
    this.files++
  }

  /** A file with content (ignore files): a new inode, written now. */
  text(dir, name, content) {
    fs.writeFileSync(path.join(dir, this.unique(dir, name)), content)
    this.files++
  }

  /** Forgets the names of a finished folder (the 1M tree has ~100k folders). */
  done(dir) {
    this.names.delete(dir)
  }

  /**
   * Fills `dir` (at `depth` below the root) with `budget` files of `kind`:
   * a few here, the rest split among 2-6 subfolders until MAX_DEPTH.
   */
  grow(dir, depth, budget, kind) {
    const { rng } = this
    let here = Math.min(budget, rng.range(3, 20))
    let rest = budget - here
    if (rest > 0 && (depth >= MAX_DEPTH || rest < 4)) {
      here += rest
      rest = 0
    }
    for (let i = 0; i < here; i++) this.file(dir, kind.file(rng))
    if (rest > 0) {
      const k = Math.max(1, Math.min(rng.range(2, 6), Math.floor(rest / 4)))
      const weights = Array.from({ length: k }, () => 0.3 + rng.next())
      const total = weights.reduce((a, b) => a + b, 0)
      let left = rest
      for (let i = 0; i < k; i++) {
        const share = i === k - 1 ? left : Math.min(left, Math.round((rest * weights[i]) / total))
        left -= share
        if (share > 0) this.grow(this.mkdir(dir, rng.pick(kind.dirs)), depth + 1, share, kind)
      }
    }
    this.done(dir)
  }
}

/** Splits `total` into parts proportional to `fractions` (which sum to 1); exact. */
function split(total, fractions) {
  const parts = fractions.map((f) => Math.floor(total * f))
  parts[0] += total - parts.reduce((a, b) => a + b, 0)
  return parts
}

function sizeOf(n, per, min, max) {
  return Math.max(min, Math.min(max, Math.round(n / per)))
}

/** Writes the whole monorepo-like tree of about `files` files into `root`. */
function generate(root, files, pool) {
  const rng = new Rng(0x5eed + files)
  const w = new Writer(root, rng, pool)
  // Root: config dotfiles, a .github and .vscode folder, the root .gitignore.
  w.text(root, '.gitignore', ROOT_GITIGNORE)
  for (const f of ['package.json', 'README.md', 'tsconfig.json', 'turbo.json', 'LICENSE', 'CHANGELOG.md',
    '.editorconfig', '.eslintrc.js', '.prettierrc', '.nvmrc', '.env', '.env.example', 'pnpm-workspace.yaml']) {
    w.file(root, f)
  }
  const gh = w.mkdir(w.mkdir(root, '.github'), 'workflows')
  for (const f of ['ci.yml', 'release.yml', 'codeql.yml']) w.file(gh, f)
  const vscode = w.mkdir(root, '.vscode')
  for (const f of ['settings.json', 'extensions.json', 'launch.json']) w.file(vscode, f)
  const husky = w.mkdir(root, '.husky')
  for (const f of ['pre-commit', 'commit-msg']) w.file(husky, f)

  const budget = files - w.files
  const [pkgs, apps, services, crates, docs, nm, cache, logs, scripts] =
    split(budget, [0.4, 0.12, 0.1, 0.07, 0.04, 0.22, 0.02, 0.01, 0.02])

  // packages/<name>/: package.json, nested .gitignore (dist/, *.gen.js but
  // not schema.gen.js), src/ deep, test/, dist/ (ignored), sometimes .storybook/.
  const packagesDir = w.mkdir(root, 'packages')
  const nPkgs = sizeOf(pkgs, 1600, 3, 400)
  split(pkgs, Array(nPkgs).fill(1 / nPkgs)).forEach((n, i) => {
    const dir = w.mkdir(packagesDir, `${rng.pick(WORDS)}-${rng.pick(WORDS)}`)
    w.text(dir, '.gitignore', GITIGNORES.package)
    for (const f of ['package.json', 'README.md', 'tsconfig.json', 'CHANGELOG.md']) w.file(dir, f)
    if (i % 3 === 0) w.file(dir, 'schema.gen.js')
    if (i % 4 === 0) {
      const sb = w.mkdir(dir, '.storybook')
      for (const f of ['main.js', 'preview.tsx', 'manager.ts']) w.file(sb, f)
    }
    if (i % 5 === 0) w.file(dir, 'tsconfig.tsbuildinfo')
    const [src, test, dist] = split(n, [0.7, 0.12, 0.18])
    w.grow(w.mkdir(dir, 'src'), 3, src, KINDS.ts)
    w.grow(w.mkdir(dir, rng.chance(0.5) ? 'test' : '__tests__'), 3, test, KINDS.ts)
    w.grow(w.mkdir(dir, 'dist'), 3, dist, KINDS.dist)
    w.done(dir)
  })

  // apps/<name>/: a web app with public/, and an ignored .next/ build folder.
  const appsDir = w.mkdir(root, 'apps')
  const nApps = sizeOf(apps, 5000, 1, 30)
  split(apps, Array(nApps).fill(1 / nApps)).forEach((n) => {
    const dir = w.mkdir(appsDir, rng.pick(['web', 'admin', 'docs-site', 'mobile', 'dashboard', 'landing', 'portal']))
    w.text(dir, '.gitignore', GITIGNORES.app)
    for (const f of ['package.json', 'next.config.js', 'tsconfig.json', 'next-env.d.ts']) w.file(dir, f)
    const [src, pub, next] = split(n, [0.7, 0.1, 0.2])
    w.grow(w.mkdir(dir, 'src'), 3, src, KINDS.ts)
    w.grow(w.mkdir(dir, 'public'), 3, pub, KINDS.docs)
    w.grow(w.mkdir(dir, '.next'), 3, next, KINDS.dist)
    w.done(dir)
  })

  // services/<name>/: Python, with ignored __pycache__/ folders.
  const servicesDir = w.mkdir(root, 'services')
  const nServices = sizeOf(services, 3000, 1, 60)
  split(services, Array(nServices).fill(1 / nServices)).forEach((n) => {
    const dir = w.mkdir(servicesDir, `${rng.pick(WORDS)}-service`)
    w.text(dir, '.gitignore', GITIGNORES.service)
    for (const f of ['pyproject.toml', 'requirements.txt', 'README.md', 'Dockerfile']) w.file(dir, f)
    const [app, cacheN] = split(n, [0.85, 0.15])
    w.grow(w.mkdir(dir, 'app'), 3, app, KINDS.py)
    const pyc = w.mkdir(dir, '__pycache__')
    for (let i = 0; i < cacheN; i++) w.file(pyc, `${baseName(rng, 'snake')}.cpython-312.pyc`)
    w.done(dir)
  })

  // crates/<name>/: Rust, with an ignored target/ folder.
  const cratesDir = w.mkdir(root, 'crates')
  const nCrates = sizeOf(crates, 3000, 1, 40)
  split(crates, Array(nCrates).fill(1 / nCrates)).forEach((n) => {
    const dir = w.mkdir(cratesDir, `${rng.pick(WORDS)}-${rng.pick(['core', 'rs', 'sys', 'cli', 'macros'])}`)
    w.text(dir, '.gitignore', GITIGNORES.crate)
    for (const f of ['Cargo.toml', 'README.md', 'build.rs']) w.file(dir, f)
    const [src, target] = split(n, [0.6, 0.4])
    w.grow(w.mkdir(dir, 'src'), 3, src, KINDS.rs)
    w.grow(w.mkdir(dir, 'target'), 3, target, KINDS.rsTarget)
    w.done(dir)
  })

  w.grow(w.mkdir(root, 'docs'), 1, docs, KINDS.docs)

  // node_modules/: ignored by the root .gitignore; packages with nested node_modules.
  const nmDir = w.mkdir(root, 'node_modules')
  const growPackages = (parent, total, depth) => {
    const count = sizeOf(total, 120, 1, 2000)
    split(total, Array(count).fill(1 / count)).forEach((n) => {
      const scoped = rng.chance(0.15)
      const base = scoped ? w.mkdir(parent, `@${rng.pick(WORDS)}`) : parent
      const dir = w.mkdir(base, `${rng.pick(WORDS)}${rng.chance(0.5) ? `-${rng.pick(WORDS)}` : ''}`)
      for (const f of ['package.json', 'README.md', 'LICENSE', 'index.js']) w.file(dir, f)
      if (rng.chance(0.2)) w.file(dir, '.npmignore')
      const nested = depth < 2 && n > 200 && rng.chance(0.3) ? Math.floor(n * 0.3) : 0
      w.grow(dir, depth + 2, n - nested, KINDS.nm)
      if (nested) growPackages(w.mkdir(dir, 'node_modules'), nested, depth + 2)
    })
  }
  growPackages(nmDir, nm, 1)

  w.grow(w.mkdir(root, '.cache'), 1, cache, KINDS.cache)
  w.grow(w.mkdir(root, 'logs'), 1, logs, KINDS.logs)
  w.grow(w.mkdir(root, 'scripts'), 1, scripts, KINDS.scripts)
  return { files: w.files, dirs: w.dirs }
}

/** The pool of empty files every generated file links to, mtimes an hour apart. */
function ensurePool() {
  const dir = path.join(TREES_DIR, 'pool')
  const stamp = path.join(TREES_DIR, 'pool.stamp')
  const files = Array.from({ length: POOL }, (_, i) => path.join(dir, `f${i}`))
  if (!fs.existsSync(stamp)) {
    fs.mkdirSync(dir, { recursive: true })
    files.forEach((f, i) => {
      if (!fs.existsSync(f)) fs.writeFileSync(f, '')
      const t = POOL_MTIME_BASE + i * 3600
      fs.utimesSync(f, t, t)
    })
    fs.writeFileSync(stamp, `${POOL}\n`)
  }
  return files
}

function readStamp(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return null
  }
}

/** A generated tree, built now if its stamp is missing or stale. */
export function ensureGeneratedTree({ name, files }, log = () => {}) {
  fs.mkdirSync(TREES_DIR, { recursive: true })
  const dir = path.join(TREES_DIR, name)
  const stampFile = path.join(TREES_DIR, `${name}.stamp`)
  const stamp = readStamp(stampFile)
  if (stamp && stamp.version === GEN_VERSION && stamp.target === files && fs.existsSync(dir)) return { dir, ...stamp }
  const pool = ensurePool()
  const partial = `${dir}.partial`
  for (const stale of [partial, dir]) {
    if (fs.existsSync(stale)) {
      log(`removing the stale ${path.basename(stale)} (an interrupted or older build)`)
      fs.rmSync(stale, { recursive: true, force: true })
    }
  }
  log(`generating ${name} (${files.toLocaleString('en')} files, hard links)...`)
  const t0 = Date.now()
  fs.mkdirSync(partial)
  const counts = generate(partial, files, pool)
  execFileSync('git', ['init', '-q'], { cwd: partial })
  fs.renameSync(partial, dir)
  const built = { version: GEN_VERSION, target: files, ...counts, seconds: (Date.now() - t0) / 1000 }
  fs.writeFileSync(stampFile, `${JSON.stringify(built)}\n`)
  log(`generated ${name}: ${counts.files.toLocaleString('en')} files, ${counts.dirs.toLocaleString('en')} folders in ${built.seconds.toFixed(1)} s`)
  return { dir, ...built }
}

/**
 * The real tree: node_modules from bench/fixture (pinned package-lock.json),
 * installed with `npm ci --ignore-scripts` into bench/.trees/nm, a git repo
 * of its own with no .gitignore. Reinstalled only when the lockfile changes.
 */
export function ensureFixture(log = () => {}) {
  fs.mkdirSync(TREES_DIR, { recursive: true })
  const fixture = path.join(here, 'fixture')
  const dir = path.join(TREES_DIR, 'nm')
  const stampFile = path.join(TREES_DIR, 'nm.stamp')
  const lock = fs.readFileSync(path.join(fixture, 'package-lock.json'))
  const hash = crypto.createHash('sha256').update(lock).update(fs.readFileSync(path.join(fixture, 'package.json'))).digest('hex')
  const stamp = readStamp(stampFile)
  if (stamp && stamp.hash === hash && fs.existsSync(path.join(dir, 'node_modules'))) return { dir, ...stamp }
  if (fs.existsSync(dir)) {
    log('removing the stale node_modules fixture')
    fs.rmSync(dir, { recursive: true, force: true })
  }
  log('installing the node_modules fixture (npm ci, first run only; needs the npm registry, ~30 s)...')
  const t0 = Date.now()
  fs.mkdirSync(dir)
  for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(fixture, f), path.join(dir, f))
  const npm = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (npm.status !== 0) throw new Error(`npm ci for the node_modules fixture failed (status ${npm.status})`)
  execFileSync('git', ['init', '-q'], { cwd: dir })
  const built = { hash, seconds: (Date.now() - t0) / 1000 }
  fs.writeFileSync(stampFile, `${JSON.stringify(built)}\n`)
  log(`installed the fixture in ${built.seconds.toFixed(1)} s`)
  return { dir, ...built }
}
