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

/**
 * The rows of the Markdown table whose header row starts `header`, in the
 * part of `doc` from the heading `section` to the next heading of its level:
 * each as its cells (`\|` is a pipe inside a cell).
 */
function tableRows(doc, section, header) {
  const start = doc.indexOf(`\n${section}\n`)
  assert.ok(start >= 0, `docs/API.md has the heading ${section}`)
  const level = section.match(/^#+ /)[0]
  const end = doc.indexOf(`\n${level}`, start + section.length + 2)
  const lines = doc.slice(start, end < 0 ? undefined : end).split('\n')
  const at = lines.findIndex((line) => line.startsWith(header))
  assert.ok(at >= 0, `${section} has a table ${header}`)
  const rows = []
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll('\\|', '|')))
  }
  return rows
}

/** The `name`s a cell lists in backticks. */
const codeNames = (cell) => [...cell.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1])

/** A default as docs/API.md writes it: `true`, `1000`, `'file'`, `[]`; undefined for none (the doc then says what leaving it out does). */
function docDefault(option) {
  if (option.default === undefined) return undefined
  return `\`${typeof option.default === 'string' ? `'${option.default}'` : JSON.stringify(option.default)}\``
}

/** Each option a table documents, with the default and meaning its row gives it. */
function documented(rows) {
  const byName = new Map()
  for (const [names, defaults, meaning] of rows) {
    const listed = codeNames(names)
    // One default for every name of the row, or one each (`cwd`, `process.cwd()`).
    const each = defaults.split(/,\s*(?![^(]*\))/)
    for (const [i, name] of listed.entries()) {
      assert.ok(!byName.has(name), `docs/API.md documents \`${name}\` twice in one table`)
      byName.set(name, { default: each.length === listed.length ? each[i] : defaults, meaning })
    }
  }
  return byName
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

  // The tables in docs/API.md are written for people, with examples and
  // prose the option table does not hold, so they are checked against it
  // rather than generated from it: every option once, its default as the
  // table has it, each choice named, the least value of a bounded integer.
  test('docs/API.md documents every option with the option table\'s default, choices and minimum', () => {
    const doc = fs.readFileSync(`${REPO}/docs/API.md`, 'utf8')
    const tables = {
      find: documented(tableRows(doc, '### Options', '| option | default | meaning | example |')),
      search: documented(tableRows(doc, '## `searchFiles`: content and name search', '| option | default | meaning |')),
    }
    for (const call of ['find', 'search']) {
      const docs = tables[call]
      assert.deepEqual(sorted(docs.keys()), sorted(names(call)), `${call}: the options docs/API.md lists`)
      for (const option of optionsOf(call)) {
        const row = docs.get(option.name)
        const want = docDefault(option)
        if (want === undefined) {
          assert.doesNotMatch(row.default, /^`(true|false|\d+|'.*'|\[\])`$/, `${call} \`${option.name}\` has no default value`)
        } else {
          assert.equal(row.default, want, `${call} \`${option.name}\`'s default`)
        }
        // A choice is named in its row, or (`as in find`) in find's.
        const meaning = `${row.meaning} ${tables.find.get(option.name)?.meaning ?? ''}`
        for (const choice of option.choices ?? []) {
          assert.ok(meaning.includes(`\`${choice}\``) || meaning.includes(`\`'${choice}'\``), `${call} \`${option.name}\` names '${choice}'`)
        }
        if (option.kind === 'integer' && option.minimum > 1) {
          assert.ok(row.meaning.includes(`at least ${option.minimum}`), `${call} \`${option.name}\` says it is at least ${option.minimum}`)
        }
      }
    }
    // createTools passes `maxLimit` and `maxBytes` on to find: its defaults are find's.
    const workspace = documented(tableRows(doc, '### `createTools(options?)`', '| option | default | meaning |'))
    for (const name of ['maxLimit', 'maxBytes']) {
      const option = optionsOf('find').find((o) => o.name === name)
      assert.equal(workspace.get(name).default, String(option.default), `createTools \`${name}\``)
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
