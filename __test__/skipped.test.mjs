// `skipped`: what the walk (and a content search) left out, by reason,
// counted as it went (in a short answer by default, always with `true`): a folder left out counts once and is not entered; the
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

test('by default only a short answer carries it; false counts nothing', async (t) => {
  const root = repo(t)
  const line = 'Not searched: node_modules/ (.gitignore:1: node_modules/), out/ (.gitignore:3: out/), 1 more ignored entry, 1 symlink (not followed).'
  // Empty: the result carries it and the text ends with the line.
  const empty = await find({ pattern: '**/*.nothing', cwd: root })
  assert.deepEqual(empty.skipped.map((g) => [g.reason, g.count]), [['ignored', 3], ['symlink', 1]])
  assert.equal(formatFindResult(empty).split('\n').at(-1), line)
  // Whole: neither key nor line.
  const whole = await find({ pattern: '**/*.js', cwd: root })
  assert.ok(whole.entries.length > 0 && !whole.truncated)
  assert.equal('skipped' in whole, false)
  assert.doesNotMatch(formatFindResult(whole), /Not searched/)
  // Cut by `limit`: carried, and shown.
  const cut = await find({ pattern: '**/*', cwd: root, limit: 1 })
  assert.equal(cut.truncatedBy, 'limit')
  assert.equal(formatFindResult(cut).split('\n').at(-1), line)
  // false: nothing, even when empty.
  const off = await find({ pattern: '**/*.nothing', cwd: root, skipped: false })
  assert.equal('skipped' in off, false)
  assert.equal(formatFindResult(off), `Search directory: ${root}\nNo files matched.`)
  // A content search alike, with the binary file it met.
  const s = await searchFiles({ pattern: 'nothing here', cwd: root })
  assert.deepEqual(s.skipped.map((g) => g.reason), ['ignored', 'symlink', 'binary'])
  assert.match(formatSearchResult(s).split('\n').at(-1), /^Not searched: .*1 binary file\.$/)
  const found = await searchFiles({ pattern: 'const x', cwd: root })
  assert.ok(found.matchCount > 0 && !found.truncated)
  assert.equal('skipped' in found, false)
  const sOff = await searchFiles({ pattern: 'nothing here', cwd: root, skipped: false })
  assert.equal('skipped' in sOff, false)
  assert.doesNotMatch(formatSearchResult(sOff), /Not searched/)
})

test('a whole answer that fits maxBytes is not cut to make room for the line', async (t) => {
  const root = repo(t)
  for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(root, `src/module-${String(i).padStart(2, '0')}.js`), '')
  const whole = await find({ pattern: '**/*.js', cwd: root, sortBy: 'name' })
  const exact = Buffer.byteLength(formatFindResult(whole))
  const tight = await find({ pattern: '**/*.js', cwd: root, sortBy: 'name', maxBytes: exact })
  assert.deepEqual(tight.entries.map((e) => e.path), whole.entries.map((e) => e.path))
  assert.equal(tight.truncated, false)
  // One byte less cuts it, and the cut text ends with the line, within the cap.
  const cut = await find({ pattern: '**/*.js', cwd: root, sortBy: 'name', maxBytes: exact - 1 })
  assert.equal(cut.truncatedBy, 'bytes')
  const text = formatFindResult(cut)
  assert.ok(Buffer.byteLength(text) <= exact - 1)
  assert.match(text.split('\n').at(-1), /^Not searched: /)
})

test('multiline: a file over 32 MiB is counted as too large', async (t) => {
  const root = tmpTree(t, { 'small.txt': 'alpha\nbeta\n' })
  const big = Buffer.alloc(33 << 20, 'a')
  big.write('alpha\nbeta\n', 0)
  fs.writeFileSync(path.join(root, 'big.txt'), big)
  const s = await searchFiles({ pattern: 'alpha\nbeta', multiline: true, cwd: root, skipped: true })
  assert.deepEqual(s.matches.map((m) => m.file), ['small.txt'])
  assert.deepEqual(group(s, 'too-large'), { reason: 'too-large', count: 1, folders: [] })
  const empty = await searchFiles({ pattern: 'gamma\ndelta', multiline: true, cwd: root })
  assert.equal(formatSearchResult(empty).split('\n').at(-1), 'Not searched: 1 file over 32 MiB (multiline).')
  // Line by line, the same file is searched (in pieces), and nothing is left out.
  const lines = await searchFiles({ pattern: 'alpha', cwd: root, skipped: true })
  assert.deepEqual(lines.matches.map((m) => m.file).sort(), ['big.txt', 'small.txt'])
  assert.equal(group(lines, 'too-large'), undefined)
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
  await index.settled()
  t.after(() => index.close())
  const tree = {}
  for (const [rel, value] of Object.entries(TREE)) tree[rel] = typeof value === 'string' ? value : new Uint8Array(value)
  const reader = memoryReader(tree)
  for (const [call, q] of queries) {
    const run = call === 'find' ? find : searchFiles
    const disk = await run({ ...q, cwd: root })
    const indexed = await (call === 'find' ? index.find(q) : index.searchFiles(q))
    // The same, binary files included: a file the index's content layer passes over unread
    // (its sketch rules a match out) is counted as binary when it holds a NUL byte.
    assert.deepEqual(indexed.skipped, disk.skipped, `index: ${JSON.stringify(q)}`)
    // Again, now that the first searches sketched every file.
    const again = await (call === 'find' ? index.find(q) : index.searchFiles(q))
    assert.deepEqual(again.skipped, disk.skipped, `index, sketched: ${JSON.stringify(q)}`)
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
