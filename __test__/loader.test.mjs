// The loader: a copy of the package loads its binary from beside it, from the
// platform package (the published layout), and from an Electron
// `app.asar.unpacked` folder; without a binary it names the platform and the
// package to install.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { REPO, tmpTree } from './helpers.mjs'

const PKG = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'))
const NODE_FILES = fs.readdirSync(REPO).filter((f) => /^agent-find\..+\.node$/.test(f))
// This machine's platform, as the build named the binary: linux-x64-gnu, darwin-arm64, ...
const PLATFORM = NODE_FILES.length === 1 ? NODE_FILES[0].slice('agent-find.'.length, -'.node'.length) : undefined
const PLATFORMS = fs.readdirSync(path.join(REPO, 'npm')).sort()

/** Copies the package as npm installs it (its JS files, js/, package.json, bin/), optionally with the binary. */
function copyPackage(dest, { binary }) {
  fs.mkdirSync(path.join(dest, 'bin'), { recursive: true })
  for (const f of ['index.js', 'index.mjs', 'index.d.ts', 'binding.js', 'package.json', 'bin/agent-find.js']) {
    fs.copyFileSync(path.join(REPO, f), path.join(dest, f))
  }
  fs.cpSync(path.join(REPO, 'js'), path.join(dest, 'js'), { recursive: true })
  if (binary) fs.copyFileSync(path.join(REPO, NODE_FILES[0]), path.join(dest, NODE_FILES[0]))
  // The native CLI beside it, as a locally packed tarball has it.
  if (binary) for (const f of fs.readdirSync(REPO).filter((f) => /^agent-find\.[\w-]+(\.exe)?$/.test(f))) fs.copyFileSync(path.join(REPO, f), path.join(dest, f))
  return dest
}

/** Builds npm/<platform>/ as published: its package.json and the binary its `main` names. */
function copyPlatformPackage(dest, platform) {
  fs.mkdirSync(dest, { recursive: true })
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'npm', platform, 'package.json'), 'utf8'))
  fs.writeFileSync(path.join(dest, 'package.json'), JSON.stringify(manifest))
  fs.copyFileSync(path.join(REPO, NODE_FILES[0]), path.join(dest, manifest.main))
  return dest
}

/** Runs `code` (CommonJS) in a fresh node; returns { status, stdout, stderr }. */
function runNode(code, { cwd, preload, input } = {}) {
  const args = []
  if (preload) args.push('--require', preload)
  args.push('-e', code)
  return spawnSync(process.execPath, args, { cwd, encoding: 'utf8', input, env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: '' } })
}

/** The script a packaged app would run: require the package, search, and say which .node it loaded. */
const searchScript = (pkgDir, treeDir) => `
  const af = require(${JSON.stringify(pkgDir)})
  af.find('**/*.txt', { cwd: ${JSON.stringify(treeDir)}, sortBy: 'name' }).then(async (r) => {
    const tools = af.createTools({ cwd: ${JSON.stringify(treeDir)} })
    const hits = await tools.searchFiles({ pattern: 'hello' })
    const esm = await import(${JSON.stringify(path.join(pkgDir, 'index.mjs'))})
    console.log(JSON.stringify({
      entries: r.entries.map((e) => e.path),
      text: af.formatFindResult(r),
      hits: hits.matches,
      esmSame: esm.find === af.find,
      loaded: Object.keys(require.cache).filter((k) => k.endsWith('.node')),
    }))
  })`

describe('the loader', { skip: PLATFORM ? false : `needs exactly one built agent-find.*.node in the repo (found ${NODE_FILES.length})` }, () => {
  test('the built addon carries no symbol table (the release profile strips it)', { skip: process.platform !== 'linux' && 'ELF only' }, () => {
    const bytes = fs.readFileSync(path.join(REPO, NODE_FILES[0]))
    assert.equal(bytes.subarray(0, 4).toString('latin1'), '\x7fELF')
    assert.equal(bytes.includes(Buffer.from('.symtab\0')), false, 'a .symtab section is present')
  })

  test('without a binary: an Error naming this platform and the package to install', (t) => {
    const dir = tmpTree(t, {})
    const pkg = copyPackage(path.join(dir, 'node_modules', 'agent-find'), { binary: false })
    const out = runNode(`try { require(${JSON.stringify(pkg)}) } catch (e) { console.log(JSON.stringify({ message: e.message, cause: !!e.cause })) }`)
    assert.equal(out.status, 0, out.stderr)
    const { message, cause } = JSON.parse(out.stdout)
    assert.ok(message.startsWith(`agent-find: no native binary loads on this platform (${PLATFORM}). `), message)
    assert.ok(message.includes(`npm install agent-find-${PLATFORM}`), message)
    // An installed package holds no Rust sources: `npm run build` there would fail, so it is not suggested.
    assert.ok(message.includes('clone the agent-find repository and run `npm ci && npm run build` there'), message)
    assert.ok(!message.includes('`npm run build` in'), message)
    assert.ok(cause, 'keeps the loader error as the cause')
  })

  test('in a checkout (Rust sources beside package.json), the error says to build in that folder', (t) => {
    const dir = tmpTree(t, {})
    const pkg = copyPackage(path.join(dir, 'agent-find'), { binary: false })
    fs.writeFileSync(path.join(pkg, 'Cargo.toml'), '[workspace]\n')
    const out = runNode(`try { require(${JSON.stringify(pkg)}) } catch (e) { console.log(e.message) }`)
    assert.equal(out.status, 0, out.stderr)
    assert.ok(out.stdout.includes(`build it from source with \`npm run build\` in ${pkg} (needs Rust)`), out.stdout)
  })

  test('on another supported platform, the error names that platform and its package', (t) => {
    const dir = tmpTree(t, {})
    const pkg = copyPackage(path.join(dir, 'node_modules', 'agent-find'), { binary: false })
    for (const [platform, arch, expected] of [['darwin', 'arm64', 'darwin-arm64'], ['darwin', 'x64', 'darwin-x64'], ['win32', 'x64', 'win32-x64-msvc']]) {
      const preload = path.join(dir, `as-${expected}.cjs`)
      fs.writeFileSync(preload, `Object.defineProperty(process, 'platform', { value: '${platform}' }); Object.defineProperty(process, 'arch', { value: '${arch}' })`)
      const out = runNode(`try { require(${JSON.stringify(pkg)}) } catch (e) { console.log(e.message) }`, { preload })
      assert.equal(out.status, 0, out.stderr)
      assert.ok(out.stdout.includes(`(${expected})`), out.stdout)
      assert.ok(out.stdout.includes(`npm install agent-find-${expected}`), out.stdout)
      assert.ok(PLATFORMS.includes(expected), `${expected} is one of the npm/ packages`)
    }
  })

  test('on a platform with no prebuilt package, the error says so and lists the ones there are', (t) => {
    const dir = tmpTree(t, {})
    const pkg = copyPackage(path.join(dir, 'node_modules', 'agent-find'), { binary: false })
    const preload = path.join(dir, 'as-freebsd.cjs')
    fs.writeFileSync(preload, "Object.defineProperty(process, 'platform', { value: 'freebsd' }); Object.defineProperty(process, 'arch', { value: 'x64' })")
    const out = runNode(`try { require(${JSON.stringify(pkg)}) } catch (e) { console.log(e.message) }`, { preload })
    assert.equal(out.status, 0, out.stderr)
    assert.ok(out.stdout.startsWith('agent-find: no prebuilt binary for this platform (freebsd-x64); there are packages for '), out.stdout)
    for (const p of PLATFORMS) assert.ok(out.stdout.includes(p), `lists ${p}`)
    assert.match(out.stdout, /To use it here, build it from source: clone the agent-find repository/)
  })

  test('the published layout: the binary comes from the platform package agent-find-<platform>', (t) => {
    const dir = tmpTree(t, { 'tree/a.txt': 'hello\n', 'tree/b/c.txt': '' })
    const modules = path.join(dir, 'node_modules')
    const pkg = copyPackage(path.join(modules, 'agent-find'), { binary: false })
    const platformPkg = copyPlatformPackage(path.join(modules, `agent-find-${PLATFORM}`), PLATFORM)
    const out = runNode(searchScript(pkg, path.join(dir, 'tree')))
    assert.equal(out.status, 0, out.stderr)
    const answer = JSON.parse(out.stdout)
    assert.deepEqual(answer.entries, ['a.txt', 'b/c.txt'])
    assert.deepEqual(answer.loaded, [path.join(platformPkg, `agent-find.${PLATFORM}.node`)])
  })
})

describe('Electron: the package under app.asar.unpacked', { skip: PLATFORM ? false : 'needs a built binary' }, () => {
  for (const layout of ['the binary beside the package', 'the binary in the platform package']) {
    test(`loads and searches (${layout})`, (t) => {
      const dir = tmpTree(t, { 'home/notes/a.txt': 'hello\n', 'home/notes/b/c.txt': '' })
      // What electron-builder (asarUnpack) or forge (asar.unpack) leave on disk.
      const modules = path.join(dir, 'MyApp', 'resources', 'app.asar.unpacked', 'node_modules')
      const pkg = copyPackage(path.join(modules, 'agent-find'), { binary: layout.includes('beside') })
      fs.writeFileSync(path.join(dir, 'MyApp', 'resources', 'app.asar'), 'asar archive stand-in')
      if (!layout.includes('beside')) copyPlatformPackage(path.join(modules, `agent-find-${PLATFORM}`), PLATFORM)
      const out = runNode(searchScript(pkg, path.join(dir, 'home', 'notes')), { cwd: path.join(dir, 'MyApp') })
      assert.equal(out.status, 0, out.stderr)
      const answer = JSON.parse(out.stdout)
      assert.deepEqual(answer.entries, ['a.txt', 'b/c.txt'])
      assert.equal(answer.text, `Search directory: ${path.join(dir, 'home', 'notes')}\na.txt\nb/c.txt`)
      assert.deepEqual(answer.hits, [{ file: 'a.txt', line: 1, match: 'hello' }])
      assert.equal(answer.esmSame, true, 'the ESM entry loads from there too')
      assert.equal(answer.loaded.length, 1)
      assert.ok(answer.loaded[0].includes(`${path.sep}app.asar.unpacked${path.sep}node_modules${path.sep}`), answer.loaded[0])
    })
  }

  test('the CLI runs from there too', (t) => {
    const dir = tmpTree(t, { 'w/x.md': '' })
    const pkg = copyPackage(path.join(dir, 'resources', 'app.asar.unpacked', 'node_modules', 'agent-find'), { binary: true })
    const out = spawnSync(process.execPath, [path.join(pkg, 'bin', 'agent-find.js'), '*.md', path.join(dir, 'w')], { encoding: 'utf8' })
    assert.equal(out.status, 0, out.stderr)
    assert.equal(out.stdout, `Search directory: ${path.join(dir, 'w')}\nx.md\n`)
  })
})
