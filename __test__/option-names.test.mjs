// One list of option names per call: the native validation's (exported by
// the binding as optionNames()) is the reference, and index.d.ts, the tool
// JSON Schemas and the CLI's flags must name the same options, so they
// cannot drift apart unnoticed.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'

import { REPO } from './helpers.mjs'

const require = createRequire(import.meta.url)
const native = require('../js/native.js')
const { toolDefinitions, HOST_FIXED } = require('../js/tools.js')

/** Options only the JS side holds (functions and objects that cannot cross as plain values). */
const JS_SIDE = ['signal', 'policy', 'approve', 'reader']

/** The field names of `interface <name>` in index.d.ts, with those of the interfaces it extends. */
function fieldsOf(source, name) {
  const at = source.match(new RegExp(`interface ${name}(?: extends (\\w+))? \\{([\\s\\S]*?)\\n\\}`))
  assert.ok(at, `index.d.ts declares ${name}`)
  const own = [...at[2].matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1])
  return at[1] ? [...fieldsOf(source, at[1]), ...own] : own
}

const sorted = (names) => [...new Set(names)].sort()

describe('option names', () => {
  const names = native.optionNames()
  const dts = fs.readFileSync(`${REPO}/index.d.ts`, 'utf8')

  test('the binding exports the lists validation uses', async () => {
    assert.ok(names.find.includes('maxDepth') && names.search.includes('fileGlob'))
    const { find } = await import('../index.mjs')
    // Every listed name is accepted (no unknown-option error) ...
    for (const name of names.find) {
      const error = await find({ pattern: '*', cwd: '/nonexistent-agent-find-dir', [name]: Symbol('x') }).catch((e) => e)
      assert.doesNotMatch(error.message, /unknown option/, name)
    }
  })

  test('index.d.ts: FindOptions and SearchOptions name exactly these options', () => {
    assert.deepEqual(sorted(fieldsOf(dts, 'FindOptions')), sorted([...names.find, ...JS_SIDE]))
    assert.deepEqual(sorted(fieldsOf(dts, 'SearchOptions')), sorted([...names.search, ...JS_SIDE]))
  })

  test('the tool schemas name every option a model may set, and no other', () => {
    const modelSettable = (list) => sorted(list.filter((n) => !HOST_FIXED.includes(n)))
    assert.deepEqual(sorted(Object.keys(toolDefinitions.find.parameters.properties)), modelSettable(names.find))
    assert.deepEqual(sorted(Object.keys(toolDefinitions.search_files.parameters.properties)), modelSettable(names.search))
  })

  test('the CLI maps a flag to every find and search option (but the JS-only ones)', () => {
    const cli = fs.readFileSync(`${REPO}/bin/agent-find.js`, 'utf8')
    const mapped = (list) => list.filter((n) => !new RegExp(`\\b${n}\\s*:`).test(cli))
    // The CLI reads the pattern and path as positionals and `cwd` from --cwd.
    assert.deepEqual(mapped(names.find.filter((n) => !['pattern', 'path'].includes(n))), [])
    assert.deepEqual(mapped(names.search.filter((n) => !['pattern', 'path'].includes(n))), [])
  })
})
