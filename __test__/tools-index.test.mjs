// createTools({ index }): calls answered from a live index where its folder
// holds the search path, fresh walks everywhere else, and every answer the
// one a fresh call gives on the same tree.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { createTools, openIndex } from '../index.mjs'
import { openIndexBuilt, tmpTree } from './helpers.mjs'

const TREE = {
  '.gitignore': 'dist/\n',
  'src/a.ts': 'export const a = 1 // TODO(a)\n',
  'src/deep/b.tsx': 'TODO(b)\n',
  'dist/out.js': 'TODO(dist)\n',
  'docs/readme.md': '# docs\n',
  '.hidden/x.ts': 'x\n',
}

/** The same calls through two tool sets: each answer must be equal. */
async function sameAnswers(indexed, fresh) {
  const calls = [
    ['find', { pattern: '**/*.ts', sortBy: 'name' }],
    ['find', { pattern: '**', type: 'dir', sortBy: 'name' }],
    ['find', { pattern: '*', path: 'src', sortBy: 'name' }],
    ['find', { pattern: '**/*', gitignore: false, hidden: false, sortBy: 'name', limit: 3 }],
    ['search_files', { pattern: 'TODO' }],
    ['search_files', { pattern: 'readme', target: 'files' }],
    ['search_files', { pattern: 'TODO', noIgnore: true, outputMode: 'count' }],
    ['find', { pattern: '[' }],
    ['find', { pattern: '*', path: '..' }],
  ]
  for (const [name, args] of calls) {
    assert.deepEqual(await indexed.call(name, args), await fresh.call(name, args), `${name} ${JSON.stringify(args)}`)
  }
  assert.deepEqual(await indexed.findFiles('**/*.ts'), await fresh.findFiles('**/*.ts'))
  assert.deepEqual(await indexed.find('**/*.tsx'), await fresh.find('**/*.tsx'))
}

describe('createTools({ index })', () => {
  test('index: true opens a live index of the workspace and answers from it, as a fresh walk would', async (t) => {
    const root = tmpTree(t, TREE)
    const indexed = createTools({ cwd: root, index: true })
    t.after(() => indexed.close())
    await indexed.ready()
    await sameAnswers(indexed, createTools({ cwd: root }))
    // A change reaches the index's answers.
    fs.writeFileSync(path.join(root, 'src', 'new.ts'), 'TODO(new)\n')
    const deadline = Date.now() + 5000
    let found = false
    while (!found && Date.now() < deadline) {
      found = (await indexed.find('**/new.ts')).matched === 1
      if (!found) await new Promise((r) => setTimeout(r, 20))
    }
    assert.ok(found, 'the new file is found')
    await sameAnswers(indexed, createTools({ cwd: root }))
  })

  test('a FileIndex passed in is used for paths in its folder (its cache fills), fresh walks elsewhere', async (t) => {
    const root = tmpTree(t, TREE)
    // Once built, the index holds one list of its own (a default search's): the find adds its own.
    const index = await openIndexBuilt(path.join(root, 'src'))
    t.after(() => index.close())
    const indexed = createTools({ cwd: root, index })
    const fresh = createTools({ cwd: root })
    const before = index.stats().cachedBytes
    assert.deepEqual(await indexed.find('*', { path: 'src' }), await fresh.find('*', { path: 'src' }))
    assert.ok(index.stats().cachedBytes > before, 'the index answered')
    await sameAnswers(indexed, fresh)
    // Closed by its owner: fresh walks answer.
    await index.close()
    await sameAnswers(indexed, fresh)
  })

  test('close() closes the indexes it opened; later calls are fresh walks', async (t) => {
    const root = tmpTree(t, TREE)
    const indexed = createTools({ cwd: root, roots: [path.join(root, 'src'), path.join(root, 'docs')], index: true })
    await indexed.ready()
    await indexed.close()
    const fresh = createTools({ cwd: root, roots: [path.join(root, 'src'), path.join(root, 'docs')] })
    for (const args of [{ pattern: '**', path: 'src' }, { pattern: '*', path: 'docs' }, { pattern: '*' }]) {
      assert.deepEqual(await indexed.call('find', args), await fresh.call('find', args))
    }
  })

  test('a folder that cannot be indexed is served by fresh walks', async (t) => {
    const root = tmpTree(t, TREE)
    const missing = path.join(root, 'not-yet')
    const indexed = createTools({ cwd: root, roots: [root, missing], index: true })
    t.after(() => indexed.close())
    await indexed.ready()
    fs.mkdirSync(missing)
    fs.writeFileSync(path.join(missing, 'late.txt'), '')
    assert.deepEqual((await indexed.find('*', { path: missing })).entries.map((e) => e.path), ['late.txt'])
  })

  test('bad values: index must be true, false or a FileIndex, and not with a reader', () => {
    for (const index of [1, 'yes', {}, null]) {
      assert.throws(() => createTools({ index }), { code: 'invalid-argument' }, String(index))
    }
    const reader = { list: async () => [], stat: async () => ({ type: 'dir' }) }
    assert.throws(() => createTools({ index: true, reader }), { code: 'invalid-argument', message: /reader/ })
    assert.doesNotThrow(() => createTools({ index: false }))
  })
})
