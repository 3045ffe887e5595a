// The README's code: its JavaScript blocks, joined in order into one module
// (later blocks go on from earlier ones), type-check against the package's
// own types (index.d.mts, as an app importing 'agent-find' sees them); its
// JSON blocks parse; the commands of its shell blocks name flags the CLI has.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8')

/** The fenced blocks of `lang`, in order. */
function blocks(lang) {
  return [...README.matchAll(/^ *```(\w+)\n([\s\S]*?)^ *```$/gm)].filter((m) => m[1] === lang).map((m) => m[2].replace(/^ {2}/gm, ''))
}

test('the JavaScript blocks type-check against the package types', (t) => {
  const js = blocks('js')
  assert.ok(js.length >= 3, 'the README has its examples')
  const dir = fs.mkdtempSync(path.join(REPO, '__test__', '.readme-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'readme.mts'), `${js.join('\n;\n')}\nexport {}\n`)
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'], types: ['node'], strict: true, noEmit: true },
    include: ['readme.mts'],
  }))
  const tsc = spawnSync(process.execPath, [path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' })
  assert.equal(tsc.status, 0, `${tsc.stdout}${tsc.stderr}`)
})

test('the JSON blocks parse', () => {
  for (const json of blocks('json')) JSON.parse(json)
})

test('every flag the shell blocks pass to agent-find is one its help lists', () => {
  const help = ['', 'search', 'explain', 'mcp'].map((cmd) =>
    spawnSync(process.execPath, [path.join(REPO, 'bin', 'agent-find.js'), ...(cmd ? [cmd] : []), '--help'], { encoding: 'utf8' }).stdout).join('\n')
  for (const sh of blocks('sh')) {
    for (const line of sh.split('\n').filter((l) => /\bagent-find\b/.test(l) && !/npm install/.test(l))) {
      for (const flag of line.replace(/#.*$/, '').match(/(?<=\s)--?[a-z][\w-]*/g) ?? []) {
        assert.ok(help.includes(flag), `${flag} (in \`${line.trim()}\`) is not in agent-find's help`)
      }
    }
  }
})
