// Bundling an app that uses agent-find, with esbuild and webpack
// (devDependencies): the setups docs/PACKAGING.md gives work (agent-find
// external, or with esbuild the .node copied beside the bundle), a default
// build fails at build time on the .node file, and a bundle whose .node went
// missing fails at load time with the loader's bundle message (not "install
// the platform package").
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'node:test'

import { requireTool, tmpTree } from './helpers.mjs'

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const ESBUILD = path.join(REPO, 'node_modules', '.bin', 'esbuild')
const NODE_FILES = fs.readdirSync(REPO).filter((f) => /^agent-find\..*\.node$/.test(f))

const APP = `
const { find } = require('agent-find')
find({ pattern: '*.txt', cwd: process.argv[2], sortBy: 'name' }).then((r) => console.log(JSON.stringify(r.entries.map((e) => e.path))))
`

/** An app folder with agent-find installed as a link to this checkout, and a small tree to search. */
function app(t) {
  const dir = tmpTree(t, { 'app.js': APP, 'tree/a.txt': '', 'tree/b.txt': '' })
  fs.mkdirSync(path.join(dir, 'node_modules'))
  fs.symlinkSync(REPO, path.join(dir, 'node_modules', 'agent-find'))
  return dir
}

const esbuild = (cwd, ...args) => spawnSync(ESBUILD, ['app.js', '--bundle', '--platform=node', ...args], { cwd, encoding: 'utf8' })
const run = (cwd, bundle) => spawnSync(process.execPath, [bundle, path.join(cwd, 'tree')], { cwd, encoding: 'utf8' })

/** Skips (fails under CI) without the bundler at `bin`, a devDependency; then needs the built addon. */
function needs(name, bin) {
  const { skip } = requireTool(name, {
    why: 'bundling an app',
    probe: () => (fs.existsSync(bin) ? null : `${name} is not installed at ${bin}`),
    install: 'npm ci (it is a devDependency)',
  })
  return skip || (NODE_FILES.length !== 1 && 'needs one built .node')
}

describe('esbuild', { skip: needs('esbuild', ESBUILD) }, () => {
  test('agent-find external: the bundle runs', (t) => {
    const dir = app(t)
    const built = esbuild(dir, '--outfile=out/app.js', '--external:agent-find')
    assert.equal(built.status, 0, built.stderr)
    const out = run(dir, 'out/app.js')
    assert.equal(out.status, 0, out.stderr)
    assert.deepEqual(JSON.parse(out.stdout), ['a.txt', 'b.txt'])
  })

  test('the .node copied beside the bundle: the bundle runs on its own, without node_modules', (t) => {
    const dir = app(t)
    const built = esbuild(dir, '--outdir=out', '--loader:.node=copy')
    assert.equal(built.status, 0, built.stderr)
    const copied = fs.readdirSync(path.join(dir, 'out')).filter((f) => f.endsWith('.node'))
    assert.equal(copied.length, 1)
    fs.rmSync(path.join(dir, 'node_modules'), { recursive: true })
    const out = run(dir, 'out/app.js')
    assert.equal(out.status, 0, out.stderr)
    assert.deepEqual(JSON.parse(out.stdout), ['a.txt', 'b.txt'])
  })

  test('the default build fails at build time, naming the .node file', (t) => {
    const dir = app(t)
    const built = esbuild(dir, '--outdir=out')
    assert.notEqual(built.status, 0)
    assert.match(built.stderr, /\.node/)
  })

  test('a bundle whose .node is gone: the loader says the bundle is the cause and how to fix it', (t) => {
    const dir = app(t)
    assert.equal(esbuild(dir, '--outdir=out', '--loader:.node=copy').status, 0)
    for (const f of fs.readdirSync(path.join(dir, 'out'))) if (f.endsWith('.node')) fs.rmSync(path.join(dir, 'out', f))
    fs.rmSync(path.join(dir, 'node_modules'), { recursive: true })
    const out = run(dir, 'out/app.js')
    assert.notEqual(out.status, 0)
    assert.match(out.stderr, /agent-find: its native binary \(agent-find\.[\w-]+\.node\) did not load from a bundle/)
    assert.match(out.stderr, /--external:agent-find/)
    assert.match(out.stderr, /--loader:\.node=copy/)
    assert.doesNotMatch(out.stderr, /npm install agent-find-/)
  })
})

const WEBPACK = path.join(REPO, 'node_modules', 'webpack')

/** Runs webpack's Node API on the app with `config` added; resolves to { errors, warnings } as text. */
async function webpackBuild(dir, config) {
  const { default: webpack } = await import(path.join(WEBPACK, 'lib', 'index.js'))
  return new Promise((resolve, reject) => {
    webpack({
      mode: 'production',
      target: 'node',
      context: dir,
      entry: './app.js',
      output: { path: path.join(dir, 'wout'), filename: 'app.js' },
      optimization: { minimize: false },
      ...config,
    }, (err, stats) => {
      if (err) return reject(err)
      const info = stats.toJson({ all: false, errors: true })
      resolve({ errors: info.errors.map((e) => e.message).join('\n') })
    })
  })
}

describe('webpack', { skip: needs('webpack', WEBPACK) }, () => {
  test('agent-find in externals: the bundle runs', async (t) => {
    const dir = app(t)
    const { errors } = await webpackBuild(dir, { externals: { 'agent-find': 'commonjs agent-find' } })
    assert.equal(errors, '')
    const out = run(dir, 'wout/app.js')
    assert.equal(out.status, 0, out.stderr)
    assert.deepEqual(JSON.parse(out.stdout), ['a.txt', 'b.txt'])
  })

  test('the default build fails at build time on the .node file', async (t) => {
    const dir = app(t)
    const { errors } = await webpackBuild(dir, {})
    // webpack parses the binary as JavaScript: its ELF/Mach-O/PE magic is the unexpected character.
    assert.match(errors, /Module parse failed: Unexpected character/)
    assert.match(errors, /no loaders are configured/)
  })
})
