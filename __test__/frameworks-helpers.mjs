// What the agent-framework tests share: docs/API.md's snippet for each
// framework, loaded as the module the test runs (the docs' code is the
// tested code), and a small tree to search.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

import { REPO, writeTree } from './helpers.mjs'

const API_MD = path.join(REPO, 'docs', 'API.md')

/** The ```js block after `<!-- snippet: NAME -->` in docs/API.md. */
export function docSnippet(name) {
  const text = fs.readFileSync(API_MD, 'utf8')
  const m = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`js\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(text)
  assert.ok(m, `docs/API.md has the snippet \`${name}\``)
  return m[1]
}

/**
 * Imports docs/API.md's snippet `name` as a module, with its workspace
 * `'/workspace'` at `workspace` and each import specifier of `rewrite`
 * (`{ from: to }`) replaced, so the same code runs against an older major
 * (an npm alias). The module file sits in __test__/ so that 'agent-find'
 * and the frameworks resolve as in a project.
 */
export async function importSnippet(name, workspace, rewrite = {}) {
  let code = docSnippet(name)
  assert.ok(code.includes("'/workspace'"), `the snippet \`${name}\` works in '/workspace'`)
  code = code.replaceAll("'/workspace'", JSON.stringify(workspace))
  for (const [from, to] of Object.entries(rewrite)) {
    assert.ok(code.includes(`'${from}`), `the snippet \`${name}\` imports ${from}`)
    code = code.replaceAll(`'${from}`, `'${to}`)
  }
  const file = path.join(REPO, '__test__', `.snippet-${name}-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`)
  fs.writeFileSync(file, code)
  try {
    return await import(pathToFileURL(file).href)
  } finally {
    fs.rmSync(file, { force: true })
  }
}

/** The tree the round trips search: a README, a source file holding `foo(` and an ignored build folder. */
export function writeWorkspace(dir) {
  writeTree(dir, {
    '.gitignore': 'build/\n',
    'README.md': '# demo\n',
    'src/app.js': 'export const x = foo(1)\n',
    'build/out.js': 'built\n',
  })
}

/** Every object level of a JSON Schema: `fn(schema, where)` for the root and each nested object. */
export function eachObjectSchema(schema, fn, where = '') {
  if (!schema || typeof schema !== 'object') return
  const types = [].concat(schema.type ?? [])
  if (types.includes('object') || schema.properties) fn(schema, where || '(root)')
  for (const [key, sub] of Object.entries(schema.properties ?? {})) eachObjectSchema(sub, fn, `${where}.${key}`)
  if (schema.items) eachObjectSchema(schema.items, fn, `${where}[]`)
  for (const [i, sub] of (schema.anyOf ?? []).entries()) eachObjectSchema(sub, fn, `${where}|${i}`)
}
