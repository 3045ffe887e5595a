#!/usr/bin/env node
'use strict'
// The `agent-find` command as npm installs it (the package's `bin`). Where a
// native CLI for this platform is present (cli/, the `agent-find` binary: in
// the platform package `agent-find-<platform>` beside the .node, or
// `agent-find.<platform>` in the package folder, where `npm run build` puts
// it) and the command is not `mcp`, it runs that binary with this process's
// stdio and ends as it ends (exit status, or the same signal), so a shell
// agent pays Node's start-up once, not the addon's load too. Otherwise (no
// binary, `mcp`, or a binary that cannot start) the JS CLI in js/cli.js runs
// here. Both answer the same: __test__/cli-native.test.mjs runs them side by
// side. AGENT_FIND_CLI=js forces the JS CLI; AGENT_FIND_CLI=which prints
// which one would run (`native <path>` or `js`) and exits.
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
  // Both libcs' binaries are here (a copied node_modules): ask which one this Node runs on (slower).
  const musl = !process.report.getReport().header.glibcVersionRuntime
  const wanted = found.find(([platform]) => platform.endsWith(musl ? '-musl' : '-gnu'))
  return wanted && wanted[1]
}

function runJs(args) {
  require('../js/cli.js').main(args)
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
  // The binary did not start (not executable, wrong libc, removed): nothing ran yet, so the JS CLI answers.
  child.on('error', (err) => {
    if (child.pid !== undefined) throw err
    stop()
    runJs(args)
  })
  child.on('exit', (code, signal) => {
    stop()
    if (signal) process.kill(process.pid, signal)
    else process.exit(code)
  })
}

const args = process.argv.slice(2)
const forced = process.env.AGENT_FIND_CLI
const bin = forced === 'js' || args[0] === 'mcp' ? undefined : nativeBinary()
if (forced === 'which') process.stdout.write(bin ? `native ${bin}\n` : 'js\n')
else if (bin) runNative(bin, args)
else runJs(args)
