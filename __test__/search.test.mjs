// searchFiles through the real addon on real temp trees: each output mode,
// name search, skipped folders and the notice, binary files, truncation with
// the true count, the model text, and every error path.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import { searchFiles, formatSearchResult, FindFilesError } from '../index.mjs'
import { tmpTree, gitInit, setMtime, rejectsWith, bytes } from './helpers.mjs'

function project(t) {
  const dir = tmpTree(t, {
    'src/app.py': 'def main():\n    # TODO: fix\n    return 1\n# todo later\n',
    'src/ui.tsx': 'export const x = "TODO in tsx"\n',
    'src/lib.ts': 'let y = 2 // TODO ts\n',
    'src/notes.md': 'nothing to do here\n',
    'node_modules/dep/index.js': 'TODO inside a dependency\n',
    'web/dist/bundle.js': 'TODO built\n',
    'src/blob.bin': Buffer.from('TODO\u0000binary TODO\n', 'latin1'),
    'ignored.log': 'TODO in an ignored file\n',
    '.gitignore': '*.log\n',
  })
  gitInit(dir)
  return dir
}

test('content mode: file, 1-based line and the line text, in path order', async (t) => {
  const dir = project(t)
  const r = await searchFiles({ pattern: 'TODO', path: dir })
  assert.deepEqual(r.matches, [
    { file: 'src/app.py', line: 2, match: '    # TODO: fix' },
    { file: 'src/lib.ts', line: 1, match: 'let y = 2 // TODO ts' },
    { file: 'src/ui.tsx', line: 1, match: 'export const x = "TODO in tsx"' },
  ])
  assert.equal(r.matchCount, 3)
  assert.equal(r.truncated, false)
  assert.equal(r.path, dir)
  assert.equal(r.notice, undefined)
  assert.equal(
    formatSearchResult(r),
    `Search directory: ${dir}\nFound 3 matching lines in 3 files.\nsrc/app.py\n2:     # TODO: fix\nsrc/lib.ts\n1: let y = 2 // TODO ts\nsrc/ui.tsx\n1: export const x = "TODO in tsx"`,
  )
})

test('ignoreCase and fileGlob with braces', async (t) => {
  const dir = project(t)
  const exact = await searchFiles({ pattern: 'todo', path: dir })
  assert.deepEqual(exact.matches.map((m) => [m.file, m.line]), [['src/app.py', 4]])
  const any = await searchFiles({ pattern: 'todo', path: dir, ignoreCase: true, fileGlob: '*.{ts,tsx}' })
  assert.deepEqual(any.matches.map((m) => m.file), ['src/lib.ts', 'src/ui.tsx'])
  const py = await searchFiles({ pattern: 'todo', path: dir, ignoreCase: true, fileGlob: '*.py' })
  assert.equal(py.matchCount, 2)
  const byPath = await searchFiles({ pattern: 'TODO', path: dir, fileGlob: 'src/*.ts' })
  assert.deepEqual(byPath.matches.map((m) => m.file), ['src/lib.ts'])
})

test('files mode lists matching files newest first; count mode counts lines per file', async (t) => {
  const dir = project(t)
  setMtime(path.join(dir, 'src/app.py'), 1_000_000)
  setMtime(path.join(dir, 'src/ui.tsx'), 3_000_000)
  setMtime(path.join(dir, 'src/lib.ts'), 2_000_000)
  const files = await searchFiles({ pattern: 'TODO', path: dir, outputMode: 'files' })
  assert.deepEqual(files.files, ['src/ui.tsx', 'src/lib.ts', 'src/app.py'])
  assert.equal(files.matchCount, 3)
  assert.equal(formatSearchResult(files), `Search directory: ${dir}\nsrc/ui.tsx\nsrc/lib.ts\nsrc/app.py`)
  const counts = await searchFiles({ pattern: 'todo', ignoreCase: true, path: dir, outputMode: 'count' })
  assert.deepEqual(counts.counts, [
    { file: 'src/app.py', count: 2 },
    { file: 'src/lib.ts', count: 1 },
    { file: 'src/ui.tsx', count: 1 },
  ])
  assert.equal(counts.matchCount, 4)
  assert.equal(formatSearchResult(counts), `Search directory: ${dir}\nsrc/app.py: 2\nsrc/lib.ts: 1\nsrc/ui.tsx: 1`)
})

test('skipped folders and gitignored files are searched only with noIgnore', async (t) => {
  const dir = project(t)
  const dep = await searchFiles({ pattern: 'dependency', path: dir })
  assert.equal(dep.matchCount, 0)
  assert.deepEqual(dep.matches, [])
  assert.match(dep.notice, /matches in places that were skipped: node_modules\/ \(always skipped\)/)
  assert.match(dep.notice, /Also skipped: web\/dist\//)
  assert.match(dep.notice, /`noIgnore: true`/)
  assert.equal(
    formatSearchResult(dep),
    `Search directory: ${dir}\nNo matches found.\n${dep.notice}\nNot searched: 1 ignored entry, node_modules/ (always skipped), web/dist/ (always skipped), 1 binary file.`,
  )
  const found = await searchFiles({ pattern: 'dependency', path: dir, noIgnore: true })
  assert.deepEqual(found.matches, [{ file: 'node_modules/dep/index.js', line: 1, match: 'TODO inside a dependency' }])
  assert.equal(found.notice, undefined)
  const ignored = await searchFiles({ pattern: 'ignored file', path: dir })
  assert.equal(ignored.matchCount, 0)
  const unignored = await searchFiles({ pattern: 'ignored file', path: dir, noIgnore: true })
  assert.deepEqual(unignored.matches.map((m) => m.file), ['ignored.log'])
  const git = await searchFiles({ pattern: 'repositoryformatversion', path: dir, noIgnore: true })
  assert.equal(git.matchCount, 0, '.git stays skipped')
})

test('no notice when nothing was skipped', async (t) => {
  const dir = tmpTree(t, { 'a.txt': 'hello\n' })
  const r = await searchFiles({ pattern: 'absent', path: dir })
  assert.equal(r.matchCount, 0)
  assert.equal(r.notice, undefined)
  assert.equal(formatSearchResult(r), `Search directory: ${dir}\nNo matches found.`)
})

test('binary files are skipped', async (t) => {
  const dir = project(t)
  const r = await searchFiles({ pattern: 'binary', path: dir })
  assert.equal(r.matchCount, 0)
})

test('name search: globs, bare words as contains-match, newest first', async (t) => {
  const dir = tmpTree(t, {
    'reports/ai-news-report.md': 'x',
    'ai-news.txt': 'x',
    'other/news.md': 'x',
    'src/deep/main.py': 'x',
    'node_modules/ai-news/index.js': 'x',
  })
  setMtime(path.join(dir, 'ai-news.txt'), 1_000_000)
  setMtime(path.join(dir, 'reports/ai-news-report.md'), 2_000_000)
  const bare = await searchFiles({ pattern: 'ai-news', target: 'files', path: dir })
  assert.deepEqual(bare.files, ['reports/ai-news-report.md', 'ai-news.txt'])
  assert.equal(bare.matchCount, 2)
  const glob = await searchFiles({ pattern: '*.py', target: 'files', path: dir })
  assert.deepEqual(glob.files, ['src/deep/main.py'])
  const withDeps = await searchFiles({ pattern: 'index', target: 'files', path: dir, noIgnore: true })
  assert.deepEqual(withDeps.files, ['node_modules/ai-news/index.js'])
  const none = await searchFiles({ pattern: 'index', target: 'files', path: dir })
  assert.deepEqual(none.files, [])
  assert.match(none.notice, /node_modules\//)
  const cased = await searchFiles({ pattern: 'AI-NEWS', target: 'files', path: dir, ignoreCase: true })
  assert.equal(cased.matchCount, 2)
})

test('truncation keeps the true matchCount', async (t) => {
  const spec = {}
  for (let i = 0; i < 30; i++) spec[`f${String(i).padStart(2, '0')}.txt`] = 'hit\nhit\n'
  const dir = tmpTree(t, spec)
  const r = await searchFiles({ pattern: 'hit', path: dir, maxResults: 5 })
  assert.equal(r.matches.length, 5)
  assert.equal(r.matchCount, 60)
  assert.equal(r.truncated, true)
  assert.deepEqual(r.matches.map((m) => `${m.file}:${m.line}`), ['f00.txt:1', 'f00.txt:2', 'f01.txt:1', 'f01.txt:2', 'f02.txt:1'])
  assert.equal(
    formatSearchResult(r).split('\n')[1],
    'Found 60 matching lines in 30 files; showing the first 5; narrow the pattern or `path`, or raise `maxResults` (max 500).',
  )
  assert.match(formatSearchResult(r), /\nNext page: call again with the same options and `cursor: "[0-9a-f]+"`\.$/)
  assert.equal(r.fileCount, 30)
  const def = await searchFiles({ pattern: 'hit', path: dir })
  assert.equal(def.matches.length, 50, 'default maxResults is 50')
  const clamped = await searchFiles({ pattern: 'hit', path: dir, maxResults: 100000 })
  assert.equal(clamped.matches.length, 60)
  const files = await searchFiles({ pattern: 'hit', path: dir, outputMode: 'files', maxResults: 3 })
  assert.equal(files.files.length, 3)
  assert.equal(files.matchCount, 30)
  assert.equal(files.truncated, true)
})

test('long lines are cut and marked; the model text stays under its cap', async (t) => {
  const long = 'x'.repeat(2000)
  const spec = {}
  for (let i = 0; i < 400; i++) spec[`f${i}.txt`] = `needle ${long}\n`
  const dir = tmpTree(t, spec)
  const r = await searchFiles({ pattern: 'needle', path: dir, maxResults: 500 })
  assert.equal(r.matches.length, 400)
  for (const m of r.matches) {
    assert.ok(m.match.endsWith('…[line cut]'), m.match.slice(-20))
    assert.ok(m.match.length < 600)
  }
  const text = formatSearchResult(r)
  assert.ok(bytes(text) <= 51200, `${bytes(text)} bytes`)
  assert.match(text, /Output truncated at 51200 bytes; refine the pattern or narrow `path`\.$/)
  // The model text shows a window of a long line: 200 characters, then a mark.
  assert.ok(text.includes(`\nf0.txt\n1: needle ${'x'.repeat(193)}…\n`), text.slice(0, 400))
})

test('a long line whose match lies past the cut is shown around the match, with its column', async (t) => {
  const line = `${'a'.repeat(3000)} needle ${'b'.repeat(3000)}`
  const dir = tmpTree(t, { 'f.txt': `${line}\n` })
  const r = await searchFiles({ pattern: 'needle', path: dir })
  const [m] = r.matches
  assert.equal(m.column, 3002)
  assert.ok(m.match.startsWith('[line cut]… ') && m.match.includes(' needle ') && m.match.endsWith('…[line cut]'), m.match)
  const shown = formatSearchResult(r).split('\n')[3]
  assert.ok(shown.startsWith('1:3002: [line cut]… ') && shown.includes(' needle ') && shown.endsWith('…'), shown)
  assert.ok(shown.length < 230, shown)
})

test('errors: invalid regex, bad arguments, missing paths, policy', async (t) => {
  const dir = project(t)
  const err = await rejectsWith(searchFiles({ pattern: '(unclosed', path: dir }), 'invalid-pattern', 'regex')
  assert.match(err.message, /unclosed group/)
  await rejectsWith(searchFiles({ pattern: '', path: dir }), 'invalid-argument', '`pattern`')
  for (const maxResults of [0, -1, NaN, 1.5, '10']) {
    await rejectsWith(searchFiles({ pattern: 'x', path: dir, maxResults }), 'invalid-argument', '`maxResults`')
  }
  await rejectsWith(searchFiles({ pattern: 'x', path: dir, outputMode: 'lines' }), 'invalid-argument', '`outputMode`')
  await rejectsWith(searchFiles({ pattern: 'x', path: dir, target: 'names' }), 'invalid-argument', '`target`')
  await rejectsWith(searchFiles({ pattern: 'x', path: dir, fileGlob: '*.{py' }), 'invalid-pattern')
  await rejectsWith(searchFiles({ pattern: 'x', path: dir, globs: '*.py' }), 'invalid-argument', 'unknown option `globs`')
  await rejectsWith(searchFiles('TODO'), 'invalid-argument')
  await rejectsWith(searchFiles({ pattern: 'x', path: path.join(dir, 'missing') }), 'not-found')
  await rejectsWith(searchFiles({ pattern: 'x', path: path.join(dir, 'src/app.py') }), 'not-a-dir')
  await rejectsWith(searchFiles({ pattern: 'x', path: '..', cwd: dir, roots: [dir] }), 'outside-root')
  const seen = []
  await rejectsWith(
    searchFiles({ pattern: 'x', path: dir, policy: (req) => (seen.push(req), 'deny') }),
    'permission-denied',
  )
  assert.deepEqual(seen, [{ tool: 'search_files', operation: 'search_files', path: dir }])
  const denied = await rejectsWith(searchFiles({ pattern: 'x', path: dir, policy: () => 'deny' }), 'permission-denied')
  assert.equal(denied.message, `permission denied: search_files is not allowed for \`${dir}\``)
  const approval = await rejectsWith(searchFiles({ pattern: 'x', path: dir, policy: () => 'require_approval' }), 'approval-required')
  assert.equal(approval.message, `approval required: search_files requires application approval for \`${dir}\` before execution`)
  const ok = await searchFiles({ pattern: 'TODO', path: dir, policy: () => 'require_approval', approve: async () => true })
  assert.equal(ok.matchCount, 3)
  const aborted = new AbortController()
  aborted.abort()
  await rejectsWith(searchFiles({ pattern: 'x', path: dir, signal: aborted.signal }), 'aborted')
  assert.ok(FindFilesError)
})

test('results survive JSON and format the same', async (t) => {
  const dir = project(t)
  const r = await searchFiles({ pattern: 'TODO', path: dir })
  const copy = JSON.parse(JSON.stringify(r))
  assert.deepEqual(copy, r)
  assert.equal(formatSearchResult(copy), formatSearchResult(r))
  assert.throws(() => formatSearchResult(null), (e) => e instanceof FindFilesError && e.code === 'invalid-argument')
})

test('files that vanish are not an error', async (t) => {
  const dir = tmpTree(t, {})
  for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), 'needle\n')
  const search = searchFiles({ pattern: 'needle', path: dir, outputMode: 'count', maxResults: 500 })
  for (let i = 0; i < 300; i += 2) fs.rmSync(path.join(dir, `f${i}.txt`), { force: true })
  const r = await search
  assert.ok(r.matchCount >= 150 && r.matchCount <= 300, String(r.matchCount))
})
