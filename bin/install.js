'use strict'
// postinstall: puts the native binary in the place of the npm bin
// (bin/agent-find, a small JS file), so `agent-find` starts without Node, as
// fast as fd; esbuild's install does the same. Done only where that is safe,
// and otherwise nothing is changed (the JS bin runs the binary, Node's start-up later):
// - npm only (npm_config_user_agent): npm links a bin by symlink on Unix, so
//   the link then reaches the binary. pnpm and yarn write shell wrappers that
//   run the bin with node, which a binary would break;
// - not on Windows, where every package manager's wrapper runs node;
// - in an installed package (under node_modules), never in a checkout;
// - with a binary for this machine that answers `--version` with this
//   package's version (not the other libc's, not a broken one).
// The binary is hard-linked (or copied) to a temporary name beside the bin
// and renamed over it, so the bin is whole at every moment; the result is
// checked the same way, and the JS bin put back if it fails. No network,
// nothing written outside this package, and an install never fails because of this.
// bin/agent-find.js stays JavaScript: `node .../bin/agent-find.js` works
// either way, and the binary hands `agent-find mcp` to it.

const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const PKG = path.join(__dirname, '..')
const BIN = path.join(__dirname, 'agent-find')

/** The binary answers `--version` with this package's version. */
function works(file) {
  try {
    const out = execFileSync(file, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000, windowsHide: true })
    return out.toString().trim() === require('../package.json').version
  } catch {
    return false
  }
}

function install() {
  if (process.platform === 'win32' || !/^npm\//.test(process.env.npm_config_user_agent || '')) return
  if (path.basename(path.dirname(PKG)) !== 'node_modules') return
  const binary = require('./agent-find.js').nativeBinary()
  if (!binary || !works(binary)) return
  const js = fs.readFileSync(BIN)
  const temp = path.join(__dirname, `.agent-find-${process.pid}.tmp`)
  try {
    // Executable already (it answered --version); a link shares its mode, a copy takes it.
    try {
      fs.linkSync(binary, temp)
    } catch {
      fs.copyFileSync(binary, temp)
    }
    fs.renameSync(temp, BIN)
    if (!works(BIN)) {
      fs.writeFileSync(temp, js, { mode: 0o755 })
      fs.renameSync(temp, BIN)
    }
  } finally {
    fs.rmSync(temp, { force: true })
  }
}

try {
  install()
} catch {
  // The JS bin is still in place and runs the binary.
}
