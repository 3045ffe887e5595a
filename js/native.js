'use strict'
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

function loadErrorMessage(cause) {
  const target = platformName()
  const prebuilt = prebuiltPlatforms()
  const why = `Cause: ${cause && cause.message}`
  if (prebuilt && !prebuilt.includes(target)) {
    return (
      `agent-find: no prebuilt binary for this platform (${target}); there are packages for ${prebuilt.join(', ')}. ` +
      `Build it from source (needs Rust): \`npm run build\` in the agent-find package folder. ${why}`
    )
  }
  return (
    `agent-find: no native binary loads on this platform (${target}). ` +
    `Install the prebuilt package for it (npm install agent-find-${target}); npm skips it when ` +
    `optional dependencies are omitted or the lockfile was made on another platform. ` +
    `Or build from source with \`npm run build\` (needs Rust). ${why}`
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
