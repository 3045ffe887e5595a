// Statements of the seed documents (../shared/seeds in the workspace, summarised
// in docs and README) that each need a behaviour of their own: fileGlob's
// extension form, size filters and directories, modifiedSince's strict bound,
// plain vs mounted reader display, anchored `exclude`, the search directory
// in the search text, the notice for matches only in skipped places, and
// codemode's bare-string pattern.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import {
  createTools, find, findFiles, formatFindResult, formatSearchResult, memoryReader, mountReader, searchFiles,
} from '../index.mjs'
import { gitInit, rejectsWith, setMtime, sortedPaths, tmpTree } from './helpers.mjs'

describe('fileGlob: an extension alone means every file with it', () => {
  test("'.py' is '*.py' and '.{ts,tsx}' is '*.{ts,tsx}', at any depth", async (t) => {
    const dir = tmpTree(t, {
      'a.py': 'hit\n', 'src/b.py': 'hit\n', 'c.ts': 'hit\n', 'src/d.tsx': 'hit\n', 'e.js': 'hit\n', 'py': 'hit\n',
    })
    const files = async (fileGlob) => (await searchFiles({ pattern: 'hit', cwd: dir, fileGlob, outputMode: 'files' })).files.sort()
    assert.deepEqual(await files('.py'), ['a.py', 'src/b.py'])
    assert.deepEqual(await files('*.py'), ['a.py', 'src/b.py'])
    assert.deepEqual(await files('.{ts,tsx}'), ['c.ts', 'src/d.tsx'])
    assert.deepEqual(await files('.PY'), ['a.py', 'src/b.py'], 'file globs ignore case')
  })
})

describe('size filters never remove directories', () => {
  test("{ type: 'any', minSize } keeps folders and filters files", async (t) => {
    const dir = tmpTree(t, { 'big.bin': 4096, 'small.txt': 10, 'sub/deep.bin': 2048, 'sub/tiny': 1, 'empty/': null })
    const r = await find('**/*', { cwd: dir, type: 'any', minSize: '1KB', sortBy: 'name' })
    assert.deepEqual(r.entries.map((e) => `${e.path}:${e.type}`), ['big.bin:file', 'empty:dir', 'sub:dir', 'sub/deep.bin:file'])
    const dirs = await find('**/*', { cwd: dir, type: 'dir', maxSize: 0, sortBy: 'name' })
    assert.deepEqual(dirs.entries.map((e) => e.path), ['empty', 'sub'])
    const files = await find('**/*', { cwd: dir, maxSize: 100, sortBy: 'name' })
    assert.deepEqual(files.entries.map((e) => e.path), ['small.txt', 'sub/tiny'])
  })
})

describe('modifiedSince keeps entries modified strictly after', () => {
  test('an entry modified exactly at the bound is left out; one a second later is kept', async (t) => {
    const dir = tmpTree(t, { 'at.txt': 'a', 'after.txt': 'b', 'before.txt': 'c' })
    const bound = Date.UTC(2024, 0, 1)
    setMtime(path.join(dir, 'at.txt'), new Date(bound))
    setMtime(path.join(dir, 'after.txt'), new Date(bound + 1000))
    setMtime(path.join(dir, 'before.txt'), new Date(bound - 1000))
    for (const since of [bound, new Date(bound), '2024-01-01T00:00:00Z', '2024-01-01']) {
      assert.deepEqual(sortedPaths(await find('*', { cwd: dir, modifiedSince: since })), ['after.txt'], String(since))
    }
    // Through a reader too, where the time comes from the listing.
    const reader = memoryReader({ 'at.txt': { content: 'a', modifiedTime: bound }, 'after.txt': { content: 'b', modifiedTime: bound + 1 } })
    assert.deepEqual(sortedPaths(await find('*', { reader, modifiedSince: bound })), ['after.txt'])
  })
})

describe('plain readers keep relative POSIX syntax; mounted readers show rooted paths', () => {
  const tree = { 'docs/guide.md': '# guide\nTODO\n', 'docs/api/ref.md': 'ref', 'README.md': 'TODO' }

  test('memoryReader: `docs`, and `.` for its root, in the result and the text', async () => {
    const reader = memoryReader(tree)
    const docs = await find({ pattern: '**/*.md', path: 'docs', reader })
    assert.equal(docs.path, 'docs')
    assert.ok(formatFindResult(docs).startsWith('Search directory: docs\n'), formatFindResult(docs))
    const top = await find({ pattern: '*.md', reader })
    assert.equal(top.path, '.')
    assert.equal(formatFindResult(top), 'Search directory: .\nREADME.md')
    const nested = await find({ pattern: '*', path: 'api', cwd: 'docs', reader })
    assert.equal(nested.path, 'docs/api')
    const none = await find({ pattern: '*.xyz', path: './docs/', reader })
    assert.equal(formatFindResult(none), 'Search directory: docs\nNo files matched.')
    const search = await searchFiles({ pattern: 'TODO', path: 'docs', reader })
    assert.equal(search.path, 'docs')
    assert.equal(formatSearchResult(search), 'Search directory: docs\nFound 1 matching line in 1 file.\nguide.md\n2: TODO')
    // The reader is still called with rooted paths, and findFiles gives them.
    assert.deepEqual(await findFiles('**/*.md', 'docs', { reader }), ['/docs/api/ref.md', '/docs/guide.md'])
  })

  test('the policy is asked with the rooted logical path either way', async () => {
    const asked = []
    const policy = (req) => { asked.push(req.path); return 'allow' }
    await find({ pattern: '*', path: 'docs', reader: memoryReader(tree), policy })
    assert.deepEqual(asked, ['/docs'])
  })

  test('a custom reader is plain unless it says `mounted: true`', async () => {
    const base = memoryReader(tree)
    const plain = { list: base.list, stat: base.stat, read: base.read }
    assert.equal((await find({ pattern: '*', path: 'docs', reader: plain })).path, 'docs')
    const mounted = { ...plain, mounted: true }
    const r = await find({ pattern: '*', path: 'docs', reader: mounted })
    assert.equal(r.path, '/docs')
    assert.ok(formatFindResult(r).startsWith('Search directory: /docs\n'))
    await rejectsWith(find({ pattern: '*', reader: { ...plain, mounted: 'yes' } }), 'invalid-argument', '`reader.mounted`', 'boolean')
  })

  test('mountReader keeps the canonical rooted path', async (t) => {
    const dir = tmpTree(t, tree)
    const reader = mountReader({ '/workspace': dir })
    const r = await find({ pattern: '*.md', path: 'docs', cwd: '/workspace', reader })
    assert.equal(r.path, '/workspace/docs')
    assert.ok(formatFindResult(r).startsWith('Search directory: /workspace/docs\n'))
    const s = await searchFiles({ pattern: 'TODO', path: '/workspace/docs/', reader })
    assert.equal(formatSearchResult(s), 'Search directory: /workspace/docs\nFound 1 matching line in 1 file.\nguide.md\n2: TODO')
  })

  test('createTools with a plain reader shows relative paths to the model', async () => {
    const tools = createTools({ reader: memoryReader(tree) })
    const { text } = await tools.call('find', { pattern: '*.md', path: 'docs' })
    assert.equal(text, 'Search directory: docs\nguide.md')
  })
})

describe('exclude: a leading / anchors at the search root, a trailing / means folders only', () => {
  test("'/*.md' leaves out top-level .md files only", async (t) => {
    const dir = tmpTree(t, { 'a.md': '', 'b.txt': '', 'docs/c.md': '', 'docs/deep/d.md': '' })
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, exclude: ['/*.md'] })), ['b.txt', 'docs/c.md', 'docs/deep/d.md'])
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, exclude: ['*.md'] })), ['b.txt'])
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, exclude: ['/docs/*.md'] })), ['a.md', 'b.txt', 'docs/deep/d.md'])
  })

  test("'/build' is the top folder only; 'out/' is a folder, never a file of that name", async (t) => {
    const dir = tmpTree(t, { 'build/a.js': '', 'src/build/b.js': '', 'out/c.js': '', 'src/out': 'a file named out' })
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, exclude: ['/build'] })), ['out/c.js', 'src/build/b.js', 'src/out'])
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, exclude: ['out/'] })), ['build/a.js', 'src/build/b.js', 'src/out'])
    await rejectsWith(find('*', { cwd: dir, exclude: ['/'] }), 'invalid-argument', '`exclude`')
  })

  test('the same as git with those lines in .gitignore', async (t) => {
    const dir = tmpTree(t, { 'a.md': '', 'docs/c.md': '', 'build/x': '', 'src/build/y': '', 'out/z': '', 'src/out': '' })
    gitInit(dir)
    const lines = ['/*.md', '/build', 'out/']
    const ours = sortedPaths(await find('**/*', { cwd: dir, exclude: lines, gitignore: false }))
    fs.writeFileSync(path.join(dir, '.gitignore'), `${lines.join('\n')}\n`)
    const git = execFileSync('git', ['ls-files', '-o', '--exclude-standard'], { cwd: dir, encoding: 'utf8' })
    const theirs = git.split('\n').filter((p) => p && p !== '.gitignore').sort()
    assert.deepEqual(ours, theirs)
  })
})

describe('the search text starts with the search directory', () => {
  test('every output mode, and an empty answer', async (t) => {
    const dir = tmpTree(t, { 'src/app.ts': 'const x = 1 // TODO\n' })
    const content = await searchFiles({ pattern: 'TODO', cwd: dir, path: 'src' })
    assert.equal(formatSearchResult(content), `Search directory: ${path.join(dir, 'src')}\nFound 1 matching line in 1 file.\napp.ts\n1: const x = 1 // TODO`)
    const files = await searchFiles({ pattern: 'TODO', cwd: dir, path: 'src', outputMode: 'files' })
    assert.equal(formatSearchResult(files), `Search directory: ${path.join(dir, 'src')}\napp.ts`)
    const count = await searchFiles({ pattern: 'TODO', cwd: dir, outputMode: 'count' })
    assert.equal(formatSearchResult(count), `Search directory: ${dir}\nsrc/app.ts: 1`)
    const none = await searchFiles({ pattern: 'nothing-here', cwd: dir })
    assert.equal(formatSearchResult(none), `Search directory: ${dir}\nNo matches found.`)
  })

  test('the byte cap still holds with the header', async (t) => {
    const spec = {}
    // Long lines: the model text shows 200 characters of each around the match, so 500 of them outgrow the cap.
    for (let i = 0; i < 500; i++) spec[`f${String(i).padStart(3, '0')}.txt`] = `${'y'.repeat(300)} hit ${'z'.repeat(300)}\n`
    const dir = tmpTree(t, spec)
    const r = await searchFiles({ pattern: 'hit', cwd: dir, maxResults: 500 })
    const text = formatSearchResult(r)
    assert.ok(Buffer.byteLength(text) <= 51200, `${Buffer.byteLength(text)} bytes`)
    assert.ok(text.startsWith(`Search directory: ${dir}\n`))
    assert.match(text, /Output truncated at 51200 bytes/)
  })

  test('the tool description says paths are relative to it', async () => {
    const { toolDefinitions } = await import('../index.mjs')
    assert.match(toolDefinitions.search_files.description, /relative to the search directory/)
  })
})

describe('an empty search says where matches were skipped', () => {
  test('a match only in a gitignored folder is named, with noIgnore', async (t) => {
    const dir = tmpTree(t, {
      '.gitignore': 'node_modules/\nsecret.txt\n', 'src/app.js': 'nothing\n',
      'node_modules/pkg/index.js': 'needle\n', 'secret.txt': 'needle\n', 'logs/other.log': 'nothing\n',
    })
    gitInit(dir)
    const r = await searchFiles({ pattern: 'needle', cwd: dir })
    assert.equal(r.matchCount, 0)
    assert.ok(r.notice, 'a notice is given')
    assert.match(r.notice, /node_modules\/ \(ignored by an ignore file\)/)
    assert.match(r.notice, /secret\.txt \(ignored by an ignore file\)/)
    assert.match(r.notice, /`noIgnore: true`/)
    assert.match(formatSearchResult(r), /No matches found\.\nNothing matched in the files searched, but there are matches/)
    // noIgnore finds exactly what the notice promised.
    const all = await searchFiles({ pattern: 'needle', cwd: dir, noIgnore: true, outputMode: 'files' })
    assert.deepEqual(all.files.sort(), ['node_modules/pkg/index.js', 'secret.txt'])
  })

  test('always-skipped folders holding a match are named; ones without are said to hold none', async (t) => {
    const dir = tmpTree(t, { 'src/a.js': 'x\n', 'dist/bundle.js': 'needle\n', 'build/out.js': 'x\n' })
    const hit = await searchFiles({ pattern: 'needle', cwd: dir })
    assert.match(hit.notice, /matches in places that were skipped: dist\/ \(always skipped\)\. Also skipped: build\/\./)
    const miss = await searchFiles({ pattern: 'absent-word', cwd: dir })
    assert.match(miss.notice, /these folders were skipped: build\/, dist\/\..*They hold no match either\./)
  })

  test('nothing is said when the skipped places hold no match and no folder was skipped', async (t) => {
    const dir = tmpTree(t, { '.gitignore': '*.log\n', 'a.log': 'other\n', 'b.txt': 'text\n' })
    gitInit(dir)
    const r = await searchFiles({ pattern: 'needle', cwd: dir })
    assert.equal(r.notice, undefined)
  })

  test('fileGlob and name search are honoured in the skipped places', async (t) => {
    const dir = tmpTree(t, { 'node_modules/a/x.md': 'needle\n', 'node_modules/b/y.js': 'other\n', 'src/z.js': '' })
    const r = await searchFiles({ pattern: 'needle', cwd: dir, fileGlob: '*.js' })
    assert.match(r.notice, /They hold no match either/)
    const byName = await searchFiles({ pattern: 'y.js', target: 'files', cwd: dir })
    assert.match(byName.notice, /node_modules\/ \(always skipped\)/)
  })

  test('the same notice through a reader', async () => {
    const reader = memoryReader({ '.gitignore': 'vendor/\n', 'vendor/lib.js': 'needle\n', 'app.js': 'x\n' })
    const r = await searchFiles({ pattern: 'needle', reader })
    assert.match(r.notice, /vendor\/ \(ignored by an ignore file\)/)
  })
})

describe('codemode: a bare string is the pattern', () => {
  test('tools.find and tools.searchFiles take the pattern alone, or with options', async (t) => {
    const dir = tmpTree(t, { 'src/a.ts': 'TODO one\n', 'b.md': 'TODO two\n', '{x}.txt': '' })
    const tools = createTools({ cwd: dir })
    assert.deepEqual(sortedPaths(await tools.find('**/*.ts')), ['src/a.ts'])
    assert.deepEqual((await tools.searchFiles('TODO')).matches.map((m) => m.file).sort(), ['b.md', 'src/a.ts'])
    assert.deepEqual(sortedPaths(await tools.find('*.ts', { path: 'src' })), ['a.ts'])
    assert.deepEqual((await tools.searchFiles('TODO', { outputMode: 'files', path: 'src' })).files, ['a.ts'])
    // A brace glob is a pattern, not JSON; JSON object text is still arguments.
    assert.deepEqual(sortedPaths(await tools.find('{src,lib}/*.ts')), ['src/a.ts'])
    assert.deepEqual(sortedPaths(await tools.find('{"pattern":"*.md"}')), ['b.md'])
    await rejectsWith(tools.find('{"pattern":'), 'invalid-argument', 'not valid JSON')
    await rejectsWith(tools.find('*.ts', { roots: ['/'] }), 'invalid-argument', 'set by the host')
    await rejectsWith(tools.find({ pattern: '*' }, { path: 'src' }), 'invalid-argument', '(pattern, { ...options })')
    // A model's tool call is JSON text: a bare string there is a mistake to report.
    assert.match((await tools.call('find', '**/*.ts')).text, /^Error \(invalid-argument\): find: the arguments are not valid JSON/)
  })
})
