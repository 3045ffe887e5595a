#!/usr/bin/env node
'use strict'
// The `agent-find` command on Node. It runs as the npm bin (through
// bin/agent-find) where bin/install.js did not put the native binary in that
// file's place (Windows, pnpm, yarn, --ignore-scripts, a checkout), as
// `node .../bin/agent-find.js`, and for `agent-find mcp` started from the
// binary (cli/src/mcp.rs). `find`, `search` and `explain` are the native
// CLI's (cli/): this runs it, from the platform package
// `agent-find-<platform>` or as `agent-find.<platform>` in the package folder
// (where `npm run build` and a locally packed tarball put it), with this
// process's stdio, passes SIGINT/SIGTERM/SIGHUP/SIGQUIT on, and ends as it
// ends (its status, or the same signal). With no binary for this machine it
// says which package to install and exits 1. `mcp` is JavaScript
// (js/mcp.js) and runs here. AGENT_FIND_CLI=which prints the binary's path.
// This file stays small and loads nothing else on the native path.

const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')
const EXE = process.platform === 'win32' ? '.exe' : ''

/** The names napi-rs gives this machine's platform; on Linux both libcs, until one is found. */
function platforms() {
  const { platform, arch } = process
  if (platform === 'linux') return [`linux-${arch}-gnu`, `linux-${arch}-musl`]
  if (platform === 'win32') return [`win32-${arch}-msvc`]
  return [`${platform}-${arch}`]
}

/** True where this Node runs on musl (asked only when it matters: process.report costs ~15 ms). */
const isMusl = () => process.platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime

/** The native CLI for this machine, or undefined. */
function nativeBinary() {
  const found = []
  for (const platform of platforms()) {
    const built = path.join(ROOT, `agent-find.${platform}${EXE}`)
    if (fs.existsSync(built)) {
      found.push([platform, built])
      continue
    }
    let folder
    try {
      folder = path.dirname(require.resolve(`agent-find-${platform}/package.json`))
    } catch {
      continue
    }
    const installed = path.join(folder, `agent-find${EXE}`)
    if (fs.existsSync(installed)) found.push([platform, installed])
  }
  if (found.length <= 1) return found[0] && found[0][1]
  // Both libcs' binaries are here (a copied node_modules, or an npm that ignores `libc`).
  const wanted = found.find(([platform]) => platform.endsWith(isMusl() ? '-musl' : '-gnu'))
  return wanted && wanted[1]
}

/** What to say when this machine has no binary: the platform package to install, or that there is none. */
function missing() {
  const [gnu, musl] = platforms()
  const platform = musl && isMusl() ? musl : gnu
  const pkg = `agent-find-${platform}`
  const known = fs.existsSync(path.join(ROOT, 'npm', platform)) || (require('../package.json').optionalDependencies ?? {})[pkg]
  const built = fs.existsSync(path.join(ROOT, 'Cargo.toml')) ? '; in this checkout, `npm run build` builds it' : ''
  return known || built
    ? `agent-find: missing-binary: the agent-find command for ${platform} is not installed: it comes in the package ${pkg} (npm install ${pkg}, or reinstall agent-find with optional dependencies)${built}\n`
    : `agent-find: missing-binary: agent-find has no prebuilt command for ${platform}; build it from the repository (npm run build, which needs Rust)\n`
}

/** Runs `bin` with this process's stdio; ends with its status, or dies of its signal. */
function runNative(bin, args) {
  const { spawn } = require('node:child_process')
  const child = spawn(bin, args, { stdio: 'inherit', windowsHide: true })
  const signals = process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']
  const forward = (signal) => child.kill(signal)
  for (const signal of signals) process.on(signal, forward)
  const stop = () => {
    for (const signal of signals) process.off(signal, forward)
  }
  child.on('error', (err) => {
    if (child.pid !== undefined) throw err
    // Not executable, the wrong libc, removed: nothing ran.
    stop()
    process.stderr.write(`agent-find: missing-binary: ${bin} could not start (${err.code || err.message}); reinstall agent-find\n`)
    process.exitCode = 1
  })
  child.on('exit', (code, signal) => {
    stop()
    if (signal) process.kill(process.pid, signal)
    else process.exit(code)
  })
}

/** Runs the command `args` (the arguments after `agent-find`). */
function main(args) {
  if (args[0] === 'mcp') {
    // A client that closed the pipe early has all it wanted.
    process.stdout.on('error', (err) => {
      if (err.code === 'EPIPE') process.exit(0)
      throw err
    })
    return void require('../js/mcp.js').main(args.slice(1))
  }
  const bin = nativeBinary()
  if (bin && process.env.AGENT_FIND_CLI === 'which') process.stdout.write(`${bin}\n`)
  else if (bin) runNative(bin, args)
  else {
    process.stderr.write(missing())
    process.exitCode = 1
  }
}

module.exports = { nativeBinary, main }
if (require.main === module) main(process.argv.slice(2))
