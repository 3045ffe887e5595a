// One table of options (the binding's optionTable(), which its validation
// reads) drives the unknown-option message, the tool JSON Schemas and the
// CLI's flags and usage; index.d.ts is written by hand and must name the
// same options, so it cannot drift unnoticed.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'

import { REPO } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { OPTIONS, optionsOf, HOST_FIXED } = require('../js/options.js')
const { toolDefinitions } = require('../js/tools.js')

/** The field names of `interface <name>` in index.d.ts, with those of the interfaces it extends. */
function fieldsOf(source, name) {
  const at = source.match(new RegExp(`interface ${name}(?: extends (\\w+))? \\{([\\s\\S]*?)\\n\\}`))
  assert.ok(at, `index.d.ts declares ${name}`)
  const own = [...at[2].matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1])
  return at[1] ? [...fieldsOf(source, at[1]), ...own] : own
}

const sorted = (names) => [...new Set(names)].sort()
const names = (call, keep = () => true) => optionsOf(call).filter(keep).map((o) => o.name)
const cli = (...args) => spawnSync(process.execPath, [`${REPO}/bin/agent-find.js`, ...args], { encoding: 'utf8' })

describe('option table', () => {
  test('validation reads it: every native option is accepted, any other name is refused with the whole list', async () => {
    const { find, searchFiles } = await import('../index.mjs')
    for (const [call, run] of [['find', find], ['search', searchFiles]]) {
      for (const name of names(call, (o) => o.kind !== 'host')) {
        const error = await run({ pattern: 'x', cwd: '/nonexistent-agent-find-dir', [name]: Symbol('x') }).catch((e) => e)
        assert.doesNotMatch(error.message, /unknown option/, `${call} ${name}`)
      }
      const error = await run({ pattern: 'x', cwd: '/', readr: 1 }).catch((e) => e)
      assert.equal(error.code, 'invalid-argument')
      assert.equal(error.message, `unknown option \`readr\`; the options are: ${names(call).join(', ')}`)
      assert.ok(names(call).includes('reader'))
    }
  })

  test('index.d.ts: FindOptions and SearchOptions name exactly these options', () => {
    const dts = fs.readFileSync(`${REPO}/index.d.ts`, 'utf8')
    assert.deepEqual(sorted(fieldsOf(dts, 'FindOptions')), sorted(names('find')))
    assert.deepEqual(sorted(fieldsOf(dts, 'SearchOptions')), sorted(names('search')))
  })

  test('the tool schemas hold every option with a model text, with its default, choices and text', () => {
    for (const [call, tool] of [['find', 'find'], ['search', 'search_files']]) {
      const properties = toolDefinitions[tool].parameters.properties
      assert.deepEqual(Object.keys(properties), names(call, (o) => o.model !== undefined))
      for (const option of optionsOf(call).filter((o) => o.model !== undefined)) {
        const p = properties[option.name]
        assert.equal(p.description, option.model)
        assert.deepEqual(p.default, option.default, option.name)
        if (option.choices) assert.deepEqual(p.enum, option.choices)
      }
    }
    assert.deepEqual(sorted(HOST_FIXED), sorted(OPTIONS.filter((o) => !o.model).map((o) => o.name)))
    assert.match(toolDefinitions.find.parameters.properties.limit.description, /above 1000 are lowered to 1000/, 'limits filled in')
  })

  test('the CLI has a flag for every option but the positionals and the JS-only ones, and its usage lists each', () => {
    for (const call of ['find', 'search']) {
      const missing = optionsOf(call).filter((o) => !o.flag && o.kind !== 'host' && !['pattern', 'path'].includes(o.name))
      assert.deepEqual(missing.map((o) => o.name), [], call)
      const usage = cli(...(call === 'search' ? ['search'] : []), '--help').stdout
      for (const { flag } of optionsOf(call).filter((o) => o.flag)) {
        assert.ok(usage.includes(`--${flag.long}`) && usage.includes(flag.help), `${call} --help lists --${flag.long}`)
      }
    }
  })

  test('each CLI flag reaches its option: a bad value comes back with the option or the flag named', () => {
    // A value the library refuses names the option it reached; a number the CLI cannot read, the flag.
    const bad = { integer: '-5', number: 'x', choice: 'nonsense', size: '12 parsecs', date: 'not a date' }
    for (const call of ['find', 'search']) {
      for (const option of optionsOf(call).filter((o) => o.flag && o.flag.arg && bad[o.kind])) {
        const run = cli(...(call === 'search' ? ['search'] : []), 'x', '--cwd', REPO, `--${option.flag.long}=${bad[option.kind]}`)
        assert.equal(run.status, 2, `${call} --${option.flag.long}: ${run.stderr}`)
        assert.match(run.stderr, new RegExp(`\`${option.name}\`|^agent-find: invalid-argument: --${option.flag.long} takes `), `${call} --${option.flag.long}`)
      }
    }
  })
})
