'use strict'
// Moves a fresh build from .napi-out/ into the package root by rename, so a
// process that has the old .node loaded keeps its (unchanged) file instead of
// seeing it rewritten under it. Then places the native CLI that the same
// cargo run built (cli/, binary `agent-find`) beside it as
// `agent-find.<platform>` (`.exe` on Windows), the platform taken from the
// .node's name: bin/agent-find.js runs it from there. Copied to a temporary
// name and renamed, for the same reason as the .node. Neither is in the
// package's `files`, except the .node (see docs/PACKAGING.md).
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const out = path.join(root, '.napi-out')
let platform
for (const name of fs.readdirSync(out)) {
  const node = /^agent-find\.(.+)\.node$/.exec(name)
  if (node) platform = node[1]
  fs.renameSync(path.join(out, name), path.join(root, name))
}
fs.rmdirSync(out)

const exe = process.platform === 'win32' ? '.exe' : ''
const targetDir = path.resolve(root, process.env.CARGO_TARGET_DIR || process.env.CARGO_BUILD_TARGET_DIR || 'target')
// napi builds with `--target <triple>` (this machine's unless given): target/<triple>/release/.
// The newest binary is the one this build made.
const candidates = [path.join(targetDir, 'release'), ...fs.readdirSync(targetDir).map((d) => path.join(targetDir, d, 'release'))]
  .map((folder) => path.join(folder, `agent-find${exe}`))
  .filter((file) => fs.existsSync(file))
  .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)
const built = candidates[0]
if (!platform || !built) {
  console.error(`place-build: no native CLI under ${targetDir}/*/release (the build script builds it with -p agent-find-cli)`)
  process.exit(1)
}
const placed = path.join(root, `agent-find.${platform}${exe}`)
fs.copyFileSync(built, `${placed}.tmp`)
fs.chmodSync(`${placed}.tmp`, 0o755)
fs.renameSync(`${placed}.tmp`, placed)
