// `skipped: true`: what the walk (and a content search) left out, by reason,
// counted as it went: a folder left out counts once and is not entered; the
// first folders of each reason are named, an ignored one with the line that
// hides it. The same counts from the disk, a reader and an index; the model
// text's `Not searched:` line when the answer is empty or cut, inside maxBytes.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { find, formatFindResult, formatSearchResult, memoryReader, openIndex, searchFiles } from '../index.mjs'
import { gitInit, tmpTree } from './helpers.mjs'

const TREE = {
  '.gitignore': 'node_modules/\n*.log\nout/\n',
  'src/a.js': 'const x = 1\n',
  'src/b.log': 'log line\n',
  'src/.cache/c.js': 'cached\n',
  'src/deep/er/d.js': 'deep\n',
  'out/gen.js': 'generated\n',
  'blob.bin': Buffer.from('binary\0stuff\n'),
  'notes.md': 'x = 1 in notes\n',
}
for (let i = 0; i < 50; i++) TREE[`node_modules/pkg${i}/index.js`] = 'const x = 1\n'

function repo(t) {
  const root = tmpTree(t, TREE)
  gitInit(root)
  fs.symlinkSync('src', path.join(root, 'link'))
  return root
}

const group = (result, reason) => (result.skipped ?? []).find((g) => g.reason === reason)

test('off by default: no `skipped`, and the text is as before', async (t) => {
  const root = repo(t)
  const f = await find({ pattern: '**/*.nothing', cwd: root })
  assert.equal('skipped' in f, false)
  assert.doesNotMatch(formatFindResult(f), /Not searched/)
  const s = await searchFiles({ pattern: 'nothing here', cwd: root })
  assert.equal('skipped' in s, false)
})

test('find: counts by reason, a folder counted once and named with its ignore line', async (t) => {
  const root = repo(t)
  const f = await find({ pattern: '**/*.nothing', cwd: root, skipped: true, hidden: false, exclude: ['notes.md'], maxDepth: 1 })
  assert.deepEqual(group(f, 'ignored'), {
    reason: 'ignored',
    // node_modules/ and out/ (folders, not entered: their 51 files are not counted) and src/b.log.
    count: 3,
    folders: [{ path: 'node_modules', rule: '.gitignore:1: node_modules/' }, { path: 'out', rule: '.gitignore:3: out/' }],
  })
  // .gitignore and src/.cache (.git is never mentioned).
  assert.deepEqual(group(f, 'hidden'), { reason: 'hidden', count: 2, folders: [{ path: 'src/.cache' }] })
  assert.deepEqual(group(f, 'excluded'), { reason: 'excluded', count: 1, folders: [] })
  // maxDepth 1: src/deep is listed but not entered.
  assert.deepEqual(group(f, 'depth'), { reason: 'depth', count: 1, folders: [{ path: 'src/deep' }] })
  assert.deepEqual(group(f, 'symlink'), { reason: 'symlink', count: 1, folders: [] })
  assert.equal(group(f, 'binary'), undefined, 'find reads no contents')
  assert.deepEqual(f.skipped.map((g) => g.reason), ['ignored', 'hidden', 'excluded', 'depth', 'symlink'])
  const text = formatFindResult(f)
  assert.equal(
    text.split('\n').at(-1),
    'Not searched: node_modules/ (.gitignore:1: node_modules/), out/ (.gitignore:3: out/), 1 more ignored entry, src/.cache/ (hidden), 1 more hidden entry, 1 excluded entry, src/deep/ (past maxDepth), 1 symlink (not followed).',
  )
  // A found entry does not change what was left out.
  const found = await find({ pattern: '**/*.js', cwd: root, skipped: true, hidden: false, exclude: ['notes.md'], maxDepth: 1 })
  assert.deepEqual(found.skipped, f.skipped)
  assert.doesNotMatch(formatFindResult(found), /Not searched/, 'whole answers do not show the line')
})

test('searchFiles: always-skipped folders, binary files, and the line', async (t) => {
  const root = repo(t)
  fs.mkdirSync(path.join(root, 'dist'))
  fs.writeFileSync(path.join(root, 'dist/x.js'), 'const x = 1\n')
  const s = await searchFiles({ pattern: 'stuff', cwd: root, skipped: true })
  assert.equal(s.matchCount, 0)
  assert.deepEqual(group(s, 'always-skipped'), { reason: 'always-skipped', count: 1, folders: [{ path: 'dist' }] })
  assert.deepEqual(group(s, 'binary'), { reason: 'binary', count: 1, folders: [] })
  // Content search skips no dotfiles: nothing is hidden.
  assert.equal(group(s, 'hidden'), undefined)
  const text = formatSearchResult(s)
  assert.match(text.split('\n').at(-1), /^Not searched: node_modules\/ \(\.gitignore:1: node_modules\/\), out\/ \(\.gitignore:3: out\/\), 1 more ignored entry, dist\/ \(always skipped\), 1 symlink \(not followed\), 1 binary file\.$/)
  // The binary file is also named by the empty search's notice, before the line.
  assert.match(text, /Binary files hold matches, such as `blob\.bin`/)
})

test('a cut answer shows the line, and the text still fits maxBytes', async (t) => {
  const root = repo(t)
  for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(root, `src/file-with-a-long-name-${String(i).padStart(3, '0')}.txt`), '')
  for (const maxBytes of [300, 600, 2000]) {
    const f = await find({ pattern: '**/*.txt', cwd: root, skipped: true, maxBytes, sortBy: 'name' })
    const text = formatFindResult(f)
    assert.ok(Buffer.byteLength(text) <= maxBytes, `${Buffer.byteLength(text)} > ${maxBytes}`)
    assert.equal(f.truncatedBy, 'bytes')
    assert.match(text.split('\n').at(-1), /^Not searched: node_modules\//)
  }
  const limited = await find({ pattern: '**/*.txt', cwd: root, skipped: true, limit: 5 })
  assert.match(formatFindResult(limited), /\nNot searched: /)
  const s = await searchFiles({ pattern: 'x', cwd: root, skipped: true, maxResults: 1 })
  assert.equal(s.truncated, true)
  assert.match(formatSearchResult(s), /\nNot searched: /)
})

test('the same counts on the disk, a reader and an index', async (t) => {
  const root = repo(t)
  const queries = [
    ['find', { pattern: '**/*.nothing', skipped: true, hidden: false, maxDepth: 1 }],
    ['find', { pattern: '**', type: 'any', skipped: true, exclude: ['src/deep'] }],
    ['search', { pattern: 'stuff', skipped: true }],
    ['search', { pattern: 'x = 1', skipped: true, outputMode: 'count' }],
  ]
  const index = await openIndex(root)
  t.after(() => index.close())
  const tree = {}
  for (const [rel, value] of Object.entries(TREE)) tree[rel] = typeof value === 'string' ? value : new Uint8Array(value)
  const reader = memoryReader(tree)
  for (const [call, q] of queries) {
    const run = call === 'find' ? find : searchFiles
    const disk = await run({ ...q, cwd: root })
    const indexed = await (call === 'find' ? index.find(q) : index.searchFiles(q))
    // An index's content layer passes over files it knows cannot match without reading them, so it
    // meets (and counts) no more binary files than a walk does; everything else is the same.
    const notBinary = (r) => (r.skipped ?? []).filter((g) => g.reason !== 'binary')
    assert.deepEqual(notBinary(indexed), notBinary(disk), `index: ${JSON.stringify(q)}`)
    assert.ok((group(indexed, 'binary')?.count ?? 0) <= (group(disk, 'binary')?.count ?? 0))
    // A reader has no .git, no symlink and no rule lines to cite: the counts of the rest agree.
    const stored = await run({ ...q, reader, cwd: '/' })
    const counts = (r) => (r.skipped ?? []).filter((g) => g.reason !== 'symlink').map((g) => [g.reason, g.count, g.folders.map((f) => f.path)])
    assert.deepEqual(counts(stored), counts(disk), `reader: ${JSON.stringify(q)}`)
  }
})

test('bad values are refused', async (t) => {
  const root = repo(t)
  await assert.rejects(find({ pattern: '*', cwd: root, skipped: 'yes' }), (e) => e.code === 'invalid-argument' && /skipped/.test(e.message))
  await assert.rejects(searchFiles({ pattern: 'x', cwd: root, skipped: 1 }), (e) => e.code === 'invalid-argument' && /skipped/.test(e.message))
})
