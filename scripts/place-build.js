'use strict'
// Moves a fresh build from .napi-out/ into the package root by rename, so a
// process that has the old .node loaded keeps its (unchanged) file instead of
// seeing it rewritten under it. Then places the native CLI that the same
// cargo run built (cli/, binary `agent-find`) beside the .node as
// `agent-find.<platform>` (`.exe` on Windows), the platform read from the
// newest .node's name: bin/agent-find.js runs it from there, and the release
// workflow (which builds into the root, without .napi-out/) ships it in the
// platform package. Copied to a temporary name and renamed, for the same
// reason as the .node. The main package's `files` take the .node, never the
// CLI (see docs/PACKAGING.md).
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const out = path.join(root, '.napi-out')
if (fs.existsSync(out)) {
  for (const name of fs.readdirSync(out)) fs.renameSync(path.join(out, name), path.join(root, name))
  fs.rmdirSync(out)
}

const newest = (files) => files.filter((f) => fs.existsSync(f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]
const node = newest(fs.readdirSync(root).filter((f) => /^agent-find\..+\.node$/.test(f)).map((f) => path.join(root, f)))
const platform = node && /^agent-find\.(.+)\.node$/.exec(path.basename(node))[1]
const exe = platform && platform.startsWith('win32-') ? '.exe' : ''
const targetDir = path.resolve(root, process.env.CARGO_TARGET_DIR || process.env.CARGO_BUILD_TARGET_DIR || 'target')
// napi builds with `--target <triple>` (this machine's unless given): target/<triple>/release/.
const built = fs.existsSync(targetDir) &&
  newest([path.join(targetDir, 'release'), ...fs.readdirSync(targetDir).map((d) => path.join(targetDir, d, 'release'))].map((d) => path.join(d, `agent-find${exe}`)))
if (!platform || !built) {
  console.error(`place-build: ${platform ? `no native CLI under ${targetDir}/*/release (build it with -p agent-find-cli)` : 'no agent-find.<platform>.node in the package root'}`)
  process.exit(1)
}
const placed = path.join(root, `agent-find.${platform}${exe}`)
fs.copyFileSync(built, `${placed}.tmp`)
fs.chmodSync(`${placed}.tmp`, 0o755)
fs.renameSync(`${placed}.tmp`, placed)
