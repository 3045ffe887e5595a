// Reader conformance: one spec tree, written to a temp dir and held
// by a memoryReader (and the temp dir mounted by a mountReader), answers the
// same suite of find, findFiles and searchFiles calls identically: the same
// FindResult / SearchResult / paths once the search directory is mapped, the
// same model text, the same error code. The local walk is the reference;
// each case also checks that the local answer is the one the case is about.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, describe, test } from 'node:test'

import {
  FindFilesError, find, findFiles, formatFindResult, formatSearchResult, memoryReader, mountReader, openIndex, searchFiles,
} from '../index.mjs'
import { bytes, makeTmp, removeTmp } from './helpers.mjs'

// ---------------------------------------------------------------- the spec tree

const T = 1_700_000_000 // seconds; every time below is T + a distinct offset

/** Files: relative path → [contents, mtime offset in seconds]. */
const FILES = {
  '.git/HEAD': ['ref: refs/heads/main\n', 1],
  '.git/info/exclude': ['excluded-by-info.txt\n', 2],
  '.gitignore': ['node_modules/\n*.log\nbuild/\n', 3],
  '.ignore': ['secret.txt\n', 4],
  '.hidden-notes.md': ['TODO: hidden\n', 5],
  '.config/settings.json': ['{"theme":"dark"}\n', 6],
  '.config/.deeper/state.json': ['{}', 7],
  'README.md': ['# Project\n\nTODO: write the guide\n', 100],
  'CHANGELOG.md': ['## 1.0\n- first\n', 90],
  'notes.txt': ['plain notes\n', 80],
  'excluded-by-info.txt': ['excluded by .git/info/exclude\n', 70],
  'app.log': ['log line TODO\n', 60],
  'secret.txt': ['TODO secret\n', 50],
  'big.bin': [Buffer.concat([Buffer.from('BINARYMARK TODO\0'), Buffer.alloc(5000, 7)]), 40],
  'src/index.ts': ["import { util } from './util'\nexport const main = () => util() // TODO: main\n", 200],
  'src/util.ts': ['export function util() {\n  return 42\n}\n', 190],
  'src/lib/.gitignore': ['*.gen.ts\n!keep.gen.ts\n', 180],
  'src/lib/deep.ts': ['export const deep = true // TODO deep\n', 170],
  'src/lib/deep.test.ts': ["test('deep', () => {})\n", 160],
  'src/lib/a.gen.ts': ['// generated\n', 150],
  'src/lib/keep.gen.ts': ['// generated, kept\n', 140],
  'src/components/Button.tsx': ['export const Button = () => null\n', 130],
  'src/components/button.css': ['.button { color: red }\n', 120],
  'docs/guide.md': ['# Guide\nTODO: more\n', 300],
  'docs/Äpfel.md': ['Äpfel und Birnen\n', 290],
  'docs/é.txt': ['é\n', 280],
  'docs/日本語/ノート.md': ['日本語のノート TODO\n', 270],
  'scripts/build.py': ['print("build")\n', 400],
  'scripts/tools/gen.py': ['print("gen")  # TODO\n', 390],
  'data/small.json': ['[1,2,3,4]\n', 500],
  'data/medium.json': [`[${'1,'.repeat(498)}1]`, 510],
  'data/large.json': [`[${'12,'.repeat(6666)}1]`, 520],
  'node_modules/pkg/index.js': ['module.exports = 42\n', 600],
  'node_modules/pkg/package.json': ['{"name":"pkg"}\n', 610],
  'build/out.js': ['console.log("built")\n', 620],
  'coverage/lcov.txt': ['SF:src/index.ts COVONLY\n', 640],
  'vendored/.git/HEAD': ['ref: refs/heads/main\n', 9],
  'vendored/lib.log': ['a nested repository: the parent .gitignore (*.log) does not apply\n', 660],
}

/** Folders with a modification time (offset in seconds); every other folder has time 0. */
const DIRS = {
  'src': 210,
  'src/lib': 185,
  'src/components': 135,
  'docs': 310,
  'scripts': 410,
  'data': 530,
  'empty-dir': 700,
  '.config': 8,
  'build': 630,
  'coverage': 650,
}

const SYMLINK = { path: 'link-to-src', target: 'src' }

/** Every folder of the tree (holding a file, or listed in DIRS), deepest first. */
function allDirs() {
  const dirs = new Set(Object.keys(DIRS))
  for (const file of Object.keys(FILES)) {
    for (let d = path.posix.dirname(file); d !== '.'; d = path.posix.dirname(d)) dirs.add(d)
  }
  return [...dirs].sort((a, b) => b.split('/').length - a.split('/').length || (a < b ? -1 : 1))
}

/** Writes the tree into `root`, times last: files, then folders deepest first. */
function writeLocal(root) {
  for (const dir of allDirs()) fs.mkdirSync(path.join(root, dir), { recursive: true })
  for (const [file, [content]] of Object.entries(FILES)) fs.writeFileSync(path.join(root, file), content)
  fs.symlinkSync(SYMLINK.target, path.join(root, SYMLINK.path))
  fs.lutimesSync(path.join(root, SYMLINK.path), 0, 0)
  for (const [file, [, offset]] of Object.entries(FILES)) fs.utimesSync(path.join(root, file), T + offset, T + offset)
  for (const dir of allDirs()) {
    const when = dir in DIRS ? T + DIRS[dir] : 0
    fs.utimesSync(path.join(root, dir), when, when)
  }
}

/** The same tree for memoryReader (a Map, so the order is the spec's). */
function memoryTree() {
  const tree = new Map()
  for (const [file, [content, offset]] of Object.entries(FILES)) {
    tree.set(file, { content: typeof content === 'string' ? content : new Uint8Array(content), modifiedTime: (T + offset) * 1000 })
  }
  for (const [dir, offset] of Object.entries(DIRS)) tree.set(`${dir}/`, { type: 'dir', modifiedTime: (T + offset) * 1000 })
  tree.set(SYMLINK.path, { type: 'symlink', target: SYMLINK.target })
  return tree
}

const tmp = makeTmp()
after(() => removeTmp(tmp))
writeLocal(tmp)

/** Where a suite runs: its options and how it names a path of the tree. */
function place(name, base, readerOptions) {
  const abs = (rel = '') => (base === tmp ? path.join(tmp, rel) : rel === '' ? base : path.posix.join(base, rel))
  return {
    name,
    base,
    abs,
    opts: readerOptions ?? { cwd: tmp },
    /** The second argument of findFiles for the folder `rel`. */
    filesArg: (rel) => (readerOptions ? { reader: readerOptions.reader, path: abs(rel) } : abs(rel)),
  }
}

const LOCAL = place('local', tmp)
const PLACES = [
  // Marked mounted, so its search directory shows rooted as the local one
  // does; the plain display (`docs`, `.`) is tested in seeds.test.mjs.
  place('memoryReader', '/', { reader: { ...memoryReader(memoryTree()), mounted: true }, cwd: '/' }),
  place('mountReader', '/workspace', { reader: mountReader({ '/workspace': tmp }), cwd: '/workspace' }),
]

// ---------------------------------------------------------------- the cases

const ALL = { limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }
const capAt = (p) => 300 - bytes(tmp) + bytes(p.base)
const paths = (r) => r.entries.map((e) => e.path)
const nonEmpty = (r) => assert.ok(r.entries.length > 0, 'the local walk finds something')
const empty = (r) => assert.equal(r.entries.length, 0)
const hinted = (re) => (r) => {
  empty(r)
  assert.match(r.hint ?? '', re)
}
const has = (...want) => (r) => {
  for (const p of want) assert.ok(paths(r).includes(p), `local has ${p}: ${paths(r)}`)
}
const lacks = (...unwanted) => (r) => {
  nonEmpty(r)
  for (const p of unwanted) assert.ok(!paths(r).includes(p), `local lacks ${p}`)
}
const truncatedBy = (by) => (r) => {
  assert.equal(r.truncated, true)
  assert.equal(r.truncatedBy, by)
}

/**
 * find cases: [name, options (or a function of the place), check, rewrite?]. A check is a
 * function of the local answer, or the error code (or codes) the local call must fail with;
 * `rewrite(json, place)` adjusts the mapped local answer where the options differ by place.
 */
const FIND = [
  ['**/*.ts, defaults', { pattern: '**/*.ts' }, has('src/index.ts', 'src/lib/keep.gen.ts')],
  ['nested .gitignore with a negation', { pattern: '**/*.gen.ts', ...ALL }, (r) => assert.deepEqual(paths(r), ['src/lib/keep.gen.ts'])],
  ['*.md matches the top level only', { pattern: '*.md', sortBy: 'name' }, (r) => assert.deepEqual(paths(r), ['.hidden-notes.md', 'CHANGELOG.md', 'README.md'])],
  ['braces', { pattern: '**/*.{ts,tsx}', sortBy: 'name' }, has('src/components/Button.tsx')],
  ['nested braces', { pattern: '{src/{lib,components},docs}/*.{md,ts}', sortBy: 'name' }, has('docs/guide.md', 'src/lib/deep.ts')],
  ['a class', { pattern: '**/[bB]utton.*', sortBy: 'name' }, (r) => assert.equal(r.entries.length, 2)],
  ['a negated class', { pattern: '**/[!a-m]*.md', sortBy: 'name' }, has('README.md', 'docs/Äpfel.md')],
  ['? takes one non-ASCII character', { pattern: '**/?.txt' }, (r) => assert.deepEqual(paths(r), ['docs/é.txt'])],
  ['regex on the basename', { pattern: '^deep.*\\.ts$', regex: true, sortBy: 'name' }, (r) => assert.deepEqual(paths(r), ['src/lib/deep.test.ts', 'src/lib/deep.ts'])],
  ['matchBase', { pattern: '*.md', matchBase: true, ...ALL }, has('docs/日本語/ノート.md')],
  ['matchBase with a / explains itself', { pattern: 'docs/*.md', matchBase: true }, hinted(/matchBase/)],
  ['type dir', { pattern: '**', type: 'dir', ...ALL }, has('src/lib', 'empty-dir', 'docs/日本語', '.config/.deeper')],
  ['type any lists the symlink, not followed', { pattern: '**/*', type: 'any', ...ALL }, lacks('link-to-src/index.ts', '.git/HEAD')],
  ['a pattern through the symlink finds nothing', { pattern: 'link-to-src/**' }, empty],
  ['.git is never listed', { pattern: '.git/**', type: 'any', gitignore: false }, empty],
  ['sortBy recent', { pattern: '**/*', type: 'any', sortBy: 'recent', ...ALL }, nonEmpty],
  ['sortBy name', { pattern: '**/*', type: 'any', sortBy: 'name', ...ALL }, nonEmpty],
  ['sortBy mtime', { pattern: '**/*', type: 'any', sortBy: 'mtime', ...ALL }, nonEmpty],
  ['sortBy size', { pattern: '**/*', type: 'any', sortBy: 'size', ...ALL }, nonEmpty],
  ['sortBy none', { pattern: '**/*', type: 'any', sortBy: 'none', ...ALL }, nonEmpty],
  ['sortBy recent, reverse', { pattern: '**/*', type: 'any', sortBy: 'recent', reverse: true, ...ALL }, nonEmpty],
  ['sortBy name, reverse', { pattern: '**/*', type: 'any', sortBy: 'name', reverse: true, ...ALL }, nonEmpty],
  ['sortBy mtime, reverse', { pattern: '**/*', type: 'any', sortBy: 'mtime', reverse: true, ...ALL }, nonEmpty],
  ['sortBy size, reverse: the largest files', { pattern: '**/*', sortBy: 'size', reverse: true, limit: 3 }, (r) => assert.equal(paths(r)[0], 'data/large.json')],
  ['limit', { pattern: '**/*', limit: 3 }, truncatedBy('limit')],
  ['maxLimit clamps limit', { pattern: '**/*', limit: 50, maxLimit: 4 }, truncatedBy('maximum')],
  // The header names the search directory, whose length differs by place: each gets as many bytes for entries.
  // So does the `Not searched:` line a cut keeps room for (a reader names no ignore lines): left out here.
  ['maxBytes truncates the text', (p) => ({ pattern: '**/*', type: 'any', maxBytes: capAt(p), skipped: false }), truncatedBy('bytes'),
    (json, p) => json.replaceAll('truncated at 300 bytes', `truncated at ${capAt(p)} bytes`)],
  ['maxDepth 0', { pattern: '**/*', type: 'any', maxDepth: 0, ...ALL }, lacks('src/index.ts')],
  ['maxDepth 1', { pattern: '**/*', type: 'any', maxDepth: 1, ...ALL }, lacks('src/lib/deep.ts')],
  ['hidden: false', { pattern: '**/*', type: 'any', hidden: false, ...ALL }, lacks('.config', '.hidden-notes.md', '.gitignore')],
  ['gitignore: false', { pattern: '**/*', type: 'any', gitignore: false, ...ALL }, has('node_modules/pkg/index.js', 'secret.txt', 'excluded-by-info.txt', 'src/lib/a.gen.ts')],
  ['.ignore and .git/info/exclude apply', { pattern: '**/*.txt', ...ALL }, lacks('secret.txt', 'excluded-by-info.txt')],
  ["a nested repository does not inherit its parent's .gitignore", { pattern: '**/*.log', ...ALL }, (r) => assert.deepEqual(paths(r), ['vendored/lib.log'])],
  ['exclude', { pattern: '**/*', exclude: ['src/lib', '*.md'], ...ALL }, lacks('src/lib/deep.ts', 'docs/guide.md')],
  ['exclude with **', { pattern: '**/*', type: 'any', exclude: ['**/components'], ...ALL }, lacks('src/components')],
  ['modifiedSince an ISO date', { pattern: '**/*', type: 'any', modifiedSince: new Date((T + 295) * 1000).toISOString(), ...ALL }, has('docs/guide.md', 'data')],
  ['modifiedSince epoch ms is strictly after', { pattern: '**/*', modifiedSince: (T + 500) * 1000, ...ALL }, lacks('data/small.json')],
  ['modifiedSince just before an mtime keeps that entry', { pattern: '**/*', modifiedSince: (T + 500) * 1000 - 1, ...ALL }, has('data/small.json')],
  ['modifiedSince a Date', { pattern: '**', type: 'dir', modifiedSince: new Date((T + 200) * 1000), ...ALL }, has('src')],
  ['minSize', { pattern: '**/*', minSize: '1KB', ...ALL }, (r) => assert.deepEqual(paths(r).sort(), ['big.bin', 'data/large.json'])],
  ['maxSize', { pattern: '**/*', maxSize: 10, ...ALL }, has('data/small.json')],
  ['size filters never remove folders', { pattern: '**/*', type: 'any', minSize: '1MB', ...ALL }, has('src', 'empty-dir')],
  ['minSize and maxSize', { pattern: '**/*', type: 'any', minSize: 11, maxSize: '1KB', sortBy: 'size', ...ALL }, has('data/medium.json')],
  ['caseSensitive misses README.md', { pattern: '**/readme.md', caseSensitive: true }, empty],
  ['case-insensitive by default', { pattern: '**/readme.md' }, has('README.md')],
  ['case folding beyond ASCII', { pattern: '**/äpfel*' }, has('docs/Äpfel.md')],
  ['path: a subfolder', { pattern: '**/*', path: 'src', ...ALL }, has('index.ts', 'lib/keep.gen.ts')],
  ['path below the repository: ignore files above it apply', { pattern: '*.ts', path: 'src/lib', ...ALL }, lacks('a.gen.ts')],
  ['path: non-ASCII folder', { pattern: '**/*', path: 'docs/日本語' }, has('ノート.md')],
  ['path with ..', { pattern: '*', path: 'src/../docs' }, has('guide.md')],
  ['path: absolute', (p) => ({ pattern: '*.md', path: p.abs('docs') }), has('guide.md')],
  ['roots: a path inside', (p) => ({ pattern: '*.ts', path: 'src', roots: [p.abs('src')] }), has('index.ts')],
  ['no match: *.py exists only deeper', { pattern: '*.py' }, hinted(/\*\*\/\*\.py/)],
  ['no match: only in ignored places', { pattern: '**/*.js' }, hinted(/node_modules/)],
  ['no match: only in hidden places', { pattern: '**/settings.json', hidden: false }, hinted(/hidden/)],
  ['no match: excluded by .git/info/exclude', { pattern: '**/excluded-by-info.txt' }, hinted(/excluded-by-info|gitignore/)],
  ['the policy is asked with the logical path', (p) => ({ pattern: '*', path: 'docs', policy: (req) => (req.path === p.abs('docs') ? 'allow' : 'deny') }), has('guide.md')],
  ['error permission-denied (policy)', { pattern: '*', path: 'docs', policy: () => 'deny' }, 'permission-denied'],
  ['error approval-required (policy)', { pattern: '*', policy: () => 'require_approval', approve: () => false }, 'approval-required'],
  ['error aborted', { pattern: '**/*', signal: AbortSignal.abort() }, 'aborted'],
  ['error not-found', { pattern: '*', path: 'nope' }, 'not-found'],
  ['error not-found below a missing folder', { pattern: '*', path: 'nope/deeper' }, 'not-found'],
  ['error not-a-dir', { pattern: '*', path: 'README.md' }, 'not-a-dir'],
  ['error below a file', { pattern: '*', path: 'README.md/x' }, ['not-found', 'not-a-dir']],
  ['error outside-root', (p) => ({ pattern: '*', path: 'docs', roots: [p.abs('src')] }), 'outside-root'],
  ['error outside-root through ..', (p) => ({ pattern: '*', path: 'src/..', roots: [p.abs('src')] }), 'outside-root'],
  ['error invalid-pattern (glob)', { pattern: 'src/[abc' }, 'invalid-pattern'],
  ['error invalid-pattern (regex)', { pattern: '(', regex: true }, 'invalid-pattern'],
  ['error invalid-pattern (exclude)', { pattern: '*', exclude: ['[x'] }, 'invalid-pattern'],
]

/** findFiles cases: [name, pattern, folder (relative), check]. */
const FIND_FILES = [
  ['findFiles in a subfolder', '**/*.ts', 'src', (r) => assert.equal(r.length, 5)],
  ['findFiles everywhere', '**/*', '', (r) => assert.ok(r.length > 20)],
  ['findFiles at the top level', '*.md', '', (r) => assert.equal(r.length, 3)],
  ['findFiles: not-found', '*', 'nope', 'not-found'],
]

/** searchFiles cases: [name, options, check]. */
const SEARCH = [
  ['content with fileGlob', { pattern: 'TODO', fileGlob: '*.md' }, (r) => assert.ok(r.matches.length >= 3)],
  ['content, all files (binary, ignored and skipped ones left out)', { pattern: 'TODO' }, (r) => assert.ok(!r.matches.some((m) => /big\.bin|app\.log|secret/.test(m.file)))],
  ['content with a path', { pattern: 'export', path: 'src' }, (r) => assert.ok(r.matches.length >= 3)],
  ['content, ignoreCase', { pattern: 'todo', ignoreCase: true, fileGlob: '*.{ts,py}' }, (r) => assert.ok(r.matches.length >= 2)],
  ['outputMode files (newest first)', { pattern: 'TODO', outputMode: 'files' }, (r) => assert.ok(r.files.length >= 4)],
  ['outputMode count', { pattern: 'TODO', outputMode: 'count' }, (r) => assert.ok(r.counts.length >= 4)],
  ['noIgnore', { pattern: 'TODO', outputMode: 'count', noIgnore: true }, (r) => assert.ok(r.counts.some((c) => c.file === 'secret.txt'))],
  ['maxResults truncates', { pattern: 'TODO', maxResults: 2 }, (r) => assert.equal(r.truncated, true)],
  ['context lines', { pattern: 'export', context: 1 }, (r) => assert.ok(r.matches.some((m) => m.before?.length || m.after?.length))],
  ['before and after, cut by maxResults', { pattern: 'TODO', before: 2, after: 1, maxResults: 3 }, (r) => assert.ok(r.truncated && r.matches.some((m) => m.before?.length))],
  ['error context with outputMode count', { pattern: 'TODO', outputMode: 'count', after: 1 }, 'invalid-argument'],
  ['offset', { pattern: 'TODO', offset: 2, maxResults: 2 }, (r) => assert.equal(r.offset, 2)],
  ['offset past the end', { pattern: 'TODO', offset: 1000 }, (r) => assert.deepEqual(r.matches, [])],
  ['count, offset', { pattern: 'TODO', outputMode: 'count', offset: 1, maxResults: 2 }, (r) => assert.equal(r.counts.length, 2)],
  ['files, offset', { pattern: 'TODO', outputMode: 'files', offset: 1, maxResults: 2 }, (r) => assert.equal(r.files.length, 2)],
  ['partial: a file list in path order', { pattern: 'TODO', outputMode: 'files', partial: true }, (r) => assert.deepEqual(r.files, [...r.files].sort())],
  ['partial with ample time: complete', { pattern: 'TODO', partial: true, timeoutMs: 60_000 }, (r) => assert.equal(r.incomplete, undefined)],
  ['error: a negative offset', { pattern: 'TODO', offset: -1 }, 'invalid-argument'],
  ['error: not a cursor', { pattern: 'TODO', cursor: 'zz' }, 'invalid-argument'],
  ['target files, a bare word', { pattern: 'button', target: 'files' }, (r) => assert.deepEqual(r.files, ['src/components/button.css'])],
  ['target files, ignoreCase', { pattern: 'button', target: 'files', ignoreCase: true }, (r) => assert.equal(r.files.length, 2)],
  ['target files, a glob', { pattern: '*.json', target: 'files' }, (r) => assert.ok(r.files.length >= 3)],
  ['fuzzy, a typo ranks the name first', { pattern: 'utl.ts', target: 'files', fuzzy: true }, (r) => assert.equal(r.files[0], 'src/util.ts')],
  ['fuzzy, a folder segment', { pattern: 'components', target: 'files', fuzzy: true }, (r) => assert.deepEqual(r.files, ['src/components/Button.tsx', 'src/components/button.css'])],
  ['fuzzy, non-ASCII names', { pattern: 'apfel', target: 'files', fuzzy: true }, (r) => assert.equal(r.files[0], 'docs/Äpfel.md')],
  ['fuzzy, maxResults', { pattern: 'json', target: 'files', fuzzy: true, maxResults: 2 }, (r) => assert.equal(r.truncated, true)],
  ['fuzzy, offset', { pattern: 'json', target: 'files', fuzzy: true, offset: 1, maxResults: 1 }, (r) => assert.equal(r.files.length, 1)],
  ['fuzzy error: with content', { pattern: 'x', fuzzy: true }, 'invalid-argument'],
  ['modes, type', { pattern: 'TODO', type: 'py', outputMode: 'count' }, (r) => assert.deepEqual(r.counts.map((c) => c.file), ['scripts/tools/gen.py'])],
  ['modes, type list on names', { pattern: '*', target: 'files', type: ['ts', 'md'] }, (r) => assert.ok(r.files.length >= 6 && r.files.every((f) => /\.(ts|tsx|md)$/.test(f)))],
  ['modes, exclude', { pattern: 'TODO', exclude: ['docs', '*.py'] }, (r) => assert.ok(r.matches.length >= 2 && !r.matches.some((m) => /^docs\/|\.py$/.test(m.file)))],
  ['modes, maxPerFile', { pattern: 'e', maxPerFile: 1, outputMode: 'count' }, (r) => assert.ok(r.counts.length >= 5 && r.counts.every((c) => c.count === 1))],
  ['modes, literal', { pattern: 'util()', literal: true }, (r) => assert.ok(r.matches.length >= 2 && r.matches.every((m) => m.match.includes('util()')))],
  ['modes, multiline', { pattern: 'util\\(\\) \\{\\n\\s+return', multiline: true }, (r) => assert.deepEqual(r.matches, [{ file: 'src/util.ts', line: 1, match: 'export function util() {\n  return 42' }])],
  ['modes, patterns', { patterns: ['TODO', 'deep'], fileGlob: '*.ts' }, (r) => assert.ok(r.matches.some((m) => m.patterns.join() === '0,1') && r.matches.some((m) => m.patterns.join() === '0'))],
  ['modes error: unknown type', { pattern: 'x', type: 'pyton' }, 'invalid-argument'],
  ['modes error: literal with names', { pattern: 'x', target: 'files', literal: true }, 'invalid-argument'],
  ['no match: the notice names skipped folders', { pattern: 'COVONLY' }, (r) => assert.match(r.notice ?? '', /coverage/)],
  ['a binary file is skipped', { pattern: 'BINARYMARK' }, (r) => assert.equal(r.matchCount, 0)],
  ['error invalid-pattern', { pattern: '(' }, 'invalid-pattern'],
  ['error not-found', { pattern: 'x', path: 'nope' }, 'not-found'],
]

/** Searches walked page by page with the cursor: [name, options]. */
const PAGED = [
  ['content', { pattern: 'TODO', maxResults: 2 }],
  ['files', { pattern: 'TODO', outputMode: 'files', maxResults: 2 }],
  ['count', { pattern: 'TODO', outputMode: 'count', maxResults: 2 }],
  ['name search', { pattern: '*.ts', target: 'files', maxResults: 2 }],
  ['fuzzy', { pattern: 'json', target: 'files', fuzzy: true, maxResults: 1 }],
]

/** Every page of `options`, following each result's cursor. */
async function allPages(search, options) {
  const pages = [await search(options)]
  while (pages.at(-1).cursor) {
    assert.ok(pages.length < 100, 'the pages end')
    pages.push(await search({ ...options, cursor: pages.at(-1).cursor }))
  }
  return pages
}

const CASES = [
  ...FIND.map(([name, options, check, rewrite]) => ({
    name,
    check,
    rewrite,
    kind: 'find',
    run: (p) => find({ ...p.opts, ...(typeof options === 'function' ? options(p) : options) }),
  })),
  ...FIND_FILES.map(([name, pattern, folder, check]) => ({ name, check, kind: 'findFiles', run: (p) => findFiles(pattern, p.filesArg(folder)) })),
  ...SEARCH.map(([name, options, check]) => ({ name: `searchFiles: ${name}`, check, kind: 'search', run: (p) => searchFiles({ ...p.opts, ...options }) })),
  ...PAGED.map(([name, options]) => ({
    name: `searchFiles: every page by cursor, ${name}`,
    check: (pages) => assert.ok(pages.length >= 2, 'several pages'),
    kind: 'pages',
    run: (p) => allPages((o) => searchFiles({ ...p.opts, ...o }), options),
  })),
]

// ---------------------------------------------------------------- comparing

// A cursor fingerprints its search's options (`cwd`, `reader`, ...), so it
// differs between places: answers are compared with it masked (each place
// follows its own cursors in the 'every page' cases).
const uncursored = (r) => (typeof r.cursor === 'string' ? { ...r, cursor: '<cursor>' } : r)
const uncursoredText = (text) => text.replace(/cursor: "[0-9a-f]+"/g, 'cursor: "<cursor>"')

/** `{ value, text }` of a call, or `{ error: code }`; the error itself beside it. */
async function outcome(c, p) {
  try {
    const value = await c.run(p)
    if (c.kind === 'find') return { outcome: { value, text: formatFindResult(value) } }
    if (c.kind === 'search') return { outcome: { value: uncursored(value), text: uncursoredText(formatSearchResult(value)) } }
    if (c.kind === 'pages') return { outcome: { value: value.map(uncursored), text: value.map((r) => uncursoredText(formatSearchResult(r))) } }
    return { outcome: { value } }
  } catch (err) {
    assert.ok(err instanceof FindFilesError, `${p.name}: a FindFilesError, got ${err && err.stack}`)
    return { outcome: { error: err.code }, err }
  }
}

/** The local answer `value` as case `c` should give it at place `p`: every mention of the temp dir replaced by `p.base`. */
function mapped(value, c, p) {
  const json = JSON.stringify(value).split(`${tmp}/`).join(p.base === '/' ? '/' : `${p.base}/`).split(tmp).join(p.base)
  return withoutRuleLines(JSON.parse(c.rewrite ? c.rewrite(json, p) : json))
}

/**
 * A reader's `skipped` names no ignore lines (they are looked up on the local
 * disk only): an ignored folder is `(ignored)` in its text, with no `rule`.
 */
function withoutRuleLines(outcome) {
  const results = [outcome.value].flat()
  for (const r of results) {
    for (const g of (r && r.skipped) || []) for (const f of g.folders) delete f.rule
  }
  const strip = (text) =>
    text
      .split('\n')
      .map((line) => (line.startsWith('Not searched: ') ? line.replace(/\/ \([^()]*:\d+: [^()]*\)/g, '/ (ignored)') : line))
      .join('\n')
  if (typeof outcome.text === 'string') outcome.text = strip(outcome.text)
  if (Array.isArray(outcome.text)) outcome.text = outcome.text.map(strip)
  return outcome
}

const localAnswers = new Map()
function localAnswer(c) {
  if (!localAnswers.has(c)) localAnswers.set(c, outcome(c, LOCAL))
  return localAnswers.get(c)
}

test("with a reader, cwd defaults to '/'", async () => {
  const reader = PLACES[0].opts.reader
  const withCwd = await find({ pattern: '**/*.ts', reader, cwd: '/' })
  assert.ok(withCwd.entries.length > 0)
  assert.deepEqual(await find({ pattern: '**/*.ts', reader }), withCwd)
  assert.deepEqual(await findFiles('**/*.ts', { reader }), await findFiles('**/*.ts', { reader, path: '/' }))
  assert.deepEqual(await searchFiles({ pattern: 'TODO', reader }), await searchFiles({ pattern: 'TODO', reader, cwd: '/' }))
})

for (const p of PLACES) {
  describe(`${p.name} answers as the local walk`, () => {
    for (const c of CASES) {
      test(c.name, async () => {
        const want = await localAnswer(c)
        // The case means what it says: the local answer is the one it is about.
        if (typeof c.check === 'function') {
          assert.ok(!want.err, `local failed: ${want.err && want.err.message}`)
          c.check(want.outcome.value)
        } else {
          assert.ok([c.check].flat().includes(want.outcome.error), `local: ${want.err ? want.err.message : 'resolved'}`)
        }
        const got = await outcome(c, p)
        assert.deepEqual(got.outcome, mapped(want.outcome, c, p), got.err ? `${p.name} failed: ${got.err.message}` : undefined)
        if (got.err) assert.ok(!got.err.message.includes(tmp), `a local path in: ${got.err.message}`)
      })
    }
  })
}

// A live index answers the fuzzy cases and the filter and pattern-mode
// cases as the local walk does (its other searchFiles answers are held to
// fresh ones in index-content.test.mjs); the modes twice, the second time
// through the content sketches the first search made.
test('an index answers the fuzzy and modes searchFiles cases as the local walk', async (t) => {
  const index = await openIndex(tmp)
  t.after(() => index.close())
  await index.settled()
  const fuzzyCases = SEARCH.filter(([name]) => name.startsWith('fuzzy'))
  assert.ok(fuzzyCases.length >= 4)
  const modesCases = SEARCH.filter(([name]) => name.startsWith('modes'))
  assert.ok(modesCases.length >= 9)
  for (const [name, options] of [...fuzzyCases, ...modesCases, ...modesCases]) {
    const c = CASES.find((c) => c.name === `searchFiles: ${name}`)
    const want = await localAnswer(c)
    const got = await outcome({ ...c, run: () => index.searchFiles(options) }, LOCAL)
    assert.deepEqual(got.outcome, want.outcome, name)
  }
})

// The page options on an index: offsets, partial and every page by cursor
// answer as the local walk does.
test('an index answers the paging searchFiles cases as the local walk', async (t) => {
  const index = await openIndex(tmp)
  t.after(() => index.close())
  await index.settled()
  const paging = SEARCH.filter(([, options]) => ['offset', 'cursor', 'partial'].some((k) => k in options))
  assert.ok(paging.length >= 7)
  for (const [name, options] of paging) {
    const c = CASES.find((c) => c.name === `searchFiles: ${name}`)
    const got = await outcome({ ...c, run: () => index.searchFiles(options) }, LOCAL)
    assert.deepEqual(got.outcome, (await localAnswer(c)).outcome, name)
  }
  for (const [name, options] of PAGED) {
    const c = CASES.find((c) => c.name === `searchFiles: every page by cursor, ${name}`)
    const got = await outcome({ ...c, run: () => allPages((o) => index.searchFiles(o), options) }, LOCAL)
    assert.deepEqual(got.outcome, (await localAnswer(c)).outcome, name)
  }
})

// ---------------------------------------------------------------- a reader that follows symlinks

/**
 * A reader over the local folder `root` at '/' whose `list`, `stat` (below the
 * last part) and `read` follow symlinks, as `fs.readdir` and most remote
 * stores do. (The shipped readers follow none.)
 */
function followingReader(root) {
  const local = (p) => path.join(root, p)
  const entry = (name, s) => ({ name, type: s.isSymbolicLink() ? 'symlink' : s.isDirectory() ? 'dir' : 'file', size: s.size, modifiedTime: s.mtimeMs })
  return {
    list: async (dir) => Promise.all((await fs.promises.readdir(local(dir))).map(async (n) => entry(n, await fs.promises.lstat(path.join(local(dir), n))))),
    stat: async (p) => entry('', await fs.promises.lstat(local(p))),
    read: (p) => fs.promises.readFile(local(p)),
  }
}

test('roots hold against a reader that follows symlinks: a symlink in the search path leading out is outside-root, as on disk', async (t) => {
  const dir = makeTmp()
  t.after(() => removeTmp(dir))
  fs.mkdirSync(path.join(dir, 'src'))
  fs.mkdirSync(path.join(dir, 'private'))
  fs.writeFileSync(path.join(dir, 'src/a.ts'), 'TOPSECRET is not here')
  fs.writeFileSync(path.join(dir, 'private/secret.txt'), 'TOPSECRET')
  fs.symlinkSync('..', path.join(dir, 'src/up'))
  const reader = followingReader(dir)
  for (const where of ['src/up', 'src/up/private']) {
    const onDisk = { cwd: dir, path: where, roots: [path.join(dir, 'src')] }
    const viaReader = { reader, cwd: '/', path: where, roots: ['/src'] }
    const calls = [
      ['find', (o) => find({ pattern: '**/*', ...o })],
      ['findFiles', (o) => findFiles('**/*', o)],
      ['searchFiles', (o) => searchFiles({ pattern: 'TOPSECRET', ...o })],
    ]
    for (const [name, call] of calls) {
      const local = await call(onDisk).then(() => 'resolved', (e) => e.code)
      assert.equal(local, 'outside-root', `${name} ${where} on disk`)
      const got = await call(viaReader).then((r) => `resolved: ${JSON.stringify(r)}`, (e) => e.code)
      assert.equal(got, 'outside-root', `${name} ${where} through the reader`)
    }
  }
})

// ---------------------------------------------------------------- git scoping

// `git` and `changedSince` on the spec tree made a real repository: the disk
// and a live index give the same answers and the same model text; a reader
// (the repository is not on the local disk for it) refuses them. The answers
// are held to `git status` itself in git-scope.test.mjs.
test('git scoping and gitStatus: disk and index answer alike; readers refuse them', async (t) => {
  const dir = makeTmp()
  t.after(() => removeTmp(dir))
  writeLocal(dir)
  for (const fake of ['.git', 'vendored/.git']) fs.rmSync(path.join(dir, fake), { recursive: true, force: true })
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@a', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@a' }
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-q', '-m', 'spec tree')
  git('checkout', '-q', '-b', 'work')
  fs.writeFileSync(path.join(dir, 'src/util.ts'), 'export function util() {\n  return 43 // TODO: committed\n}\n')
  git('commit', '-q', '-am', 'work')
  fs.writeFileSync(path.join(dir, 'README.md'), '# Project\n\nTODO: modified\n')
  fs.writeFileSync(path.join(dir, 'docs/guide.md'), '# Guide\nTODO: staged\n')
  git('add', 'docs/guide.md')
  fs.writeFileSync(path.join(dir, 'src/lib/new.ts'), 'export const fresh = 1 // TODO: untracked\n')
  fs.writeFileSync(path.join(dir, 'debug.log'), 'TODO: ignored\n')
  const index = await openIndex(dir)
  t.after(() => index.close())
  await index.settled()
  const scopes = [
    { git: 'modified' },
    { git: 'staged' },
    { git: 'untracked' },
    { git: 'changed' },
    { changedSince: 'main' },
    { git: 'modified', gitStatus: true },
    { gitStatus: true },
  ]
  for (const scope of scopes) {
    const findOptions = { pattern: '**/*', type: 'any', sortBy: 'name', ...scope }
    const onDisk = await find({ ...findOptions, cwd: dir })
    assert.ok(onDisk.entries.length > 0, JSON.stringify(scope))
    if (scope.gitStatus) assert.ok(Object.keys(onDisk.gitStatus).length > 0, 'the letters are there to compare')
    const inIndex = await index.find(findOptions)
    assert.deepEqual(inIndex, onDisk, JSON.stringify(scope))
    assert.equal(formatFindResult(inIndex), formatFindResult(onDisk))
    for (const search of [{ pattern: 'TODO' }, { pattern: 'TODO', outputMode: 'count' }, { pattern: '*.ts', target: 'files' }]) {
      const a = await searchFiles({ ...search, ...scope, cwd: dir })
      const b = await index.searchFiles({ ...search, ...scope })
      assert.deepEqual(b, a, `${JSON.stringify(scope)} ${JSON.stringify(search)}`)
      assert.equal(formatSearchResult(b), formatSearchResult(a))
    }
  }
  for (const p of PLACES) {
    for (const scope of scopes) {
      await assert.rejects(find({ pattern: '**/*', ...p.opts, ...scope }), (e) => e instanceof FindFilesError && e.code === 'invalid-argument' && /local disk/.test(e.message), p.name)
      await assert.rejects(searchFiles({ pattern: 'TODO', ...p.opts, ...scope }), (e) => e.code === 'invalid-argument', p.name)
    }
  }
})
