'use strict'
const fs = require('node:fs')
const path = require('node:path')
// The native addon: loads `../binding.js`, the loader `napi build` generates
// at the package root (build output), and when no binary loads on this
// platform, throws an Error naming the platform and what to install or build.

/** This machine as napi-rs names platforms: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`. */
function platformName() {
  const { platform, arch } = process
  let abi = ''
  if (platform === 'linux') {
    const glibc = process.report && process.report.getReport().header.glibcVersionRuntime
    abi = glibc ? '-gnu' : '-musl'
  } else if (platform === 'win32') {
    abi = '-msvc'
  }
  return `${platform}-${arch}${abi}`
}

/** The platforms with a prebuilt package, from `napi.targets` (Rust target triples). */
function prebuiltPlatforms() {
  try {
    const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32', freebsd: 'freebsd', android: 'android' }
    const ARCH = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' }
    return require('../package.json').napi.targets.map((triple) => {
      const [cpu, , os, env] = triple.split('-')
      const name = `${OS[os] || os}-${ARCH[cpu] || cpu}`
      return env ? `${name}-${env.replace(/eabihf$/, '')}` : name
    })
  } catch {
    return undefined
  }
}

/** The package's own folder, when this file sits in it as installed (not inlined into a bundle). */
function packageFolder() {
  // Inlined into a bundle, this code runs as the bundle's file, not as js/native.js.
  const asInstalled = path.basename(__filename) === 'native.js' && path.basename(__dirname) === 'js' && fs.existsSync(__filename)
  return asInstalled ? path.join(__dirname, '..') : undefined
}

function loadErrorMessage(cause) {
  const target = platformName()
  const why = `Cause: ${cause && cause.message}`
  const folder = packageFolder()
  if (!folder) {
    return (
      `agent-find: its native binary (agent-find.${target}.node) did not load from a bundle: the bundler changed ` +
      'how the .node file is found. Mark `agent-find` as external (esbuild `--external:agent-find`, webpack `externals`, ' +
      'Vite/rollup `external`), or with esbuild copy the .node beside the bundle (`--loader:.node=copy`); ' +
      `see docs/PACKAGING.md, "Bundlers", in the agent-find package. ${why}`
    )
  }
  // `npm run build` only works in a checkout of the repository (it needs the Rust sources).
  const build = fs.existsSync(path.join(folder, 'Cargo.toml'))
    ? `build it from source with \`npm run build\` in ${folder} (needs Rust)`
    : 'build it from source: clone the agent-find repository and run `npm ci && npm run build` there (needs Rust), then depend on that folder'
  const prebuilt = prebuiltPlatforms()
  if (prebuilt && !prebuilt.includes(target)) {
    return `agent-find: no prebuilt binary for this platform (${target}); there are packages for ${prebuilt.join(', ')}. To use it here, ${build}. ${why}`
  }
  return (
    `agent-find: no native binary loads on this platform (${target}). ` +
    `Install the prebuilt package for it (npm install agent-find-${target}); npm skips it when ` +
    `optional dependencies are omitted or the lockfile was made on another platform. Or ${build}. ${why}`
  )
}

function loadBinding() {
  try {
    return require('../binding.js')
  } catch (cause) {
    throw new Error(loadErrorMessage(cause), { cause })
  }
}

module.exports = loadBinding()
