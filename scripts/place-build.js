'use strict'
// Moves a fresh build from .napi-out/ into the package root by rename, so a
// process that has the old .node loaded keeps its (unchanged) file instead of
// seeing it rewritten under it.
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const out = path.join(root, '.napi-out')
for (const name of fs.readdirSync(out)) {
  fs.renameSync(path.join(out, name), path.join(root, name))
}
fs.rmdirSync(out)
