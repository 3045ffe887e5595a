// The per-platform packages: one npm/<platform>/ for every target in
// `napi.targets`, each with the os/cpu/libc npm uses to pick it, and ready for
// `napi prepublish` (checked with its --dry-run); the release workflow builds
// every target.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { REPO, tmpTree } from './helpers.mjs'

const PKG = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'))
const NAPI_CLI = path.join(REPO, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')

// Rust target triple → the napi-rs platform name and npm's os / cpu / libc.
const TRIPLES = {
  'x86_64-unknown-linux-gnu': { platform: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc' },
  'aarch64-unknown-linux-gnu': { platform: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'x86_64-unknown-linux-musl': { platform: 'linux-x64-musl', os: 'linux', cpu: 'x64', libc: 'musl' },
  'aarch64-unknown-linux-musl': { platform: 'linux-arm64-musl', os: 'linux', cpu: 'arm64', libc: 'musl' },
  'x86_64-apple-darwin': { platform: 'darwin-x64', os: 'darwin', cpu: 'x64' },
  'aarch64-apple-darwin': { platform: 'darwin-arm64', os: 'darwin', cpu: 'arm64' },
  'x86_64-pc-windows-msvc': { platform: 'win32-x64-msvc', os: 'win32', cpu: 'x64' },
  'aarch64-pc-windows-msvc': { platform: 'win32-arm64-msvc', os: 'win32', cpu: 'arm64' },
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'))

describe('platform packages', () => {
  test('napi.targets and npm/* agree: one folder per target, no other', () => {
    const targets = PKG.napi.targets
    assert.ok(targets.includes('x86_64-unknown-linux-gnu'))
    for (const t of ['aarch64-unknown-linux-gnu', 'x86_64-unknown-linux-musl', 'x86_64-apple-darwin', 'aarch64-apple-darwin', 'x86_64-pc-windows-msvc']) {
      assert.ok(targets.includes(t), `the usual set includes ${t}`)
    }
    for (const t of targets) assert.ok(TRIPLES[t], `a known triple: ${t}`)
    const expected = targets.map((t) => TRIPLES[t].platform).sort()
    const dirs = fs.readdirSync(path.join(REPO, 'npm')).filter((d) => fs.statSync(path.join(REPO, 'npm', d)).isDirectory()).sort()
    assert.deepEqual(dirs, expected)
  })

  for (const triple of PKG.napi.targets) {
    const { platform, os, cpu, libc } = TRIPLES[triple] || {}
    test(`npm/${platform}: name, version, main, files, os/cpu${libc ? '/libc' : ''}`, () => {
      const manifest = readJson(path.join(REPO, 'npm', platform, 'package.json'))
      assert.equal(manifest.name, `${PKG.name}-${platform}`)
      assert.equal(manifest.version, PKG.version, 'released in lockstep with the main package')
      assert.equal(manifest.main, `${PKG.napi.binaryName}.${platform}.node`)
      // The addon and the native CLI (cli/, which bin/agent-find.js runs), nothing else.
      assert.deepEqual(manifest.files, [manifest.main, os === 'win32' ? 'agent-find.exe' : 'agent-find'], 'the binaries and nothing else')
      assert.deepEqual(manifest.os, [os])
      assert.deepEqual(manifest.cpu, [cpu])
      if (libc) assert.deepEqual(manifest.libc, [libc])
      else assert.equal(manifest.libc, undefined, 'libc only on Linux')
      assert.equal(manifest.license, PKG.license)
      assert.deepEqual(manifest.engines, PKG.engines)
      assert.ok(fs.existsSync(path.join(REPO, 'npm', platform, 'README.md')))
    })
  }

  test('optionalDependencies are written at publish time by `napi prepublish`, not kept in the repo', () => {
    // The platform packages are not on the registry until the first release:
    // listing them here would make `npm ci` fetch (and fail on) them.
    assert.equal(PKG.optionalDependencies, undefined)
    assert.match(PKG.scripts.prepublishOnly, /^napi prepublish -t npm\b/)
  })

  test('`napi prepublish --dry-run` accepts the packages once each holds its binaries', (t) => {
    // A staged copy of package.json and npm/ with stand-in binaries (the
    // addon and the native CLI) in each package, as the release job leaves them.
    const dir = tmpTree(t, {})
    fs.copyFileSync(path.join(REPO, 'package.json'), path.join(dir, 'package.json'))
    fs.cpSync(path.join(REPO, 'npm'), path.join(dir, 'npm'), { recursive: true })
    for (const platform of fs.readdirSync(path.join(dir, 'npm'))) {
      fs.writeFileSync(path.join(dir, 'npm', platform, `${PKG.napi.binaryName}.${platform}.node`), 'stand-in')
      fs.writeFileSync(path.join(dir, 'npm', platform, platform.startsWith('win32-') ? 'agent-find.exe' : 'agent-find'), 'stand-in')
    }
    const before = fs.readFileSync(path.join(dir, 'package.json'), 'utf8')
    const run = () => spawnSync(process.execPath, [NAPI_CLI, 'prepublish', '-t', 'npm', '--dry-run', '--no-gh-release'], {
      cwd: dir, encoding: 'utf8', env: { ...process.env, DEBUG: '' },
    })
    const ok = run()
    assert.equal(ok.status, 0, ok.stderr + ok.stdout)
    assert.equal(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), before, 'a dry run changes nothing')
    // And it does check: a package without its binary is refused.
    fs.rmSync(path.join(dir, 'npm', 'darwin-arm64', `${PKG.napi.binaryName}.darwin-arm64.node`))
    const missing = run()
    assert.notEqual(missing.status, 0)
    assert.match(missing.stderr + missing.stdout, /agent-find-darwin-arm64 is incomplete: missing agent-find\.darwin-arm64\.node/)
    // A package without its native CLI too: the release cannot ship without it.
    fs.writeFileSync(path.join(dir, 'npm', 'darwin-arm64', `${PKG.napi.binaryName}.darwin-arm64.node`), 'stand-in')
    fs.rmSync(path.join(dir, 'npm', 'darwin-arm64', 'agent-find'))
    const noCli = run()
    assert.notEqual(noCli.status, 0)
    assert.match(noCli.stderr + noCli.stdout, /agent-find-darwin-arm64 is incomplete: missing agent-find\b/)
  })

  test('the release workflow builds, tests and publishes every target', () => {
    const workflow = fs.readFileSync(path.join(REPO, '.github', 'workflows', 'release.yml'), 'utf8')
    for (const triple of PKG.napi.targets) {
      assert.ok(workflow.includes(`target: ${triple}`), `builds ${triple}`)
    }
    for (const step of ['napi artifacts', 'napi prepublish -t npm', 'npm publish', 'upload-artifact', 'download-artifact', '-p agent-find-cli', 'node scripts/place-build.js']) {
      assert.ok(workflow.includes(step), `has ${step}`)
    }
  })
})
