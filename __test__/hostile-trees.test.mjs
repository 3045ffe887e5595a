// Hostile trees: symlink loops and links out of the tree, a chain of
// 5,000 folders, 200,000 files in one folder, every kind of file name
// (including names that are not valid UTF-8), a tree that changes during the
// walk, unreadable folders and ignore files, and ignore files that are huge,
// malformed or not files at all. The search keeps working, loses nothing and
// never follows a link.
import assert from 'node:assert/strict'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { find, findFiles, formatFindResult, searchFiles } from '../index.mjs'
import { REPO, gitInit, paths, removeTmp, requireTool, sortedPaths, tmpTree } from './helpers.mjs'
import {
  buildChain, buildLinkedTree, cannotRunAsNobody, entryBytes, escapeGlob, makeScratch, openToOthers, procStatus, removeDeep, resetPeakRss,
  runAsNobody,
} from './hostile-helpers.mjs'

const ALL = { type: 'any', sortBy: 'name', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }
const CLI = path.join(REPO, 'bin', 'agent-find.js')

describe('symlinks: listed as themselves, never followed', () => {
  function linkTree(t) {
    return tmpTree(t, {
      'real/a.txt': 'needle',
      'real/sub/b.txt': 'needle',
      'loop-a': { symlink: 'loop-b' },
      'loop-b': { symlink: 'loop-a' },
      'self': { symlink: 'self' },
      'to-root': { symlink: '/' },
      'to-parent': { symlink: '..' },
      'real/sub/up': { symlink: '..' },
      'real/sub/to-top': { symlink: '../..' },
      'real/cycle': { symlink: '../real' },
      'dangling': { symlink: 'nowhere/at/all' },
      'dangling-abs': { symlink: '/nonexistent/agent-find/x' },
      'to-file': { symlink: 'real/a.txt' },
    })
  }
  const LINKS = ['dangling', 'dangling-abs', 'loop-a', 'loop-b', 'real/cycle', 'real/sub/to-top', 'real/sub/up', 'self', 'to-file', 'to-parent', 'to-root']

  test('a loop, a link to /, to the parent, to itself, and dangling links: each listed once, none entered', { timeout: 30_000 }, async (t) => {
    const dir = linkTree(t)
    const r = await find('**/*', { cwd: dir, ...ALL })
    assert.deepEqual(r.entries.map((e) => [e.path, e.type]), [
      ['dangling', 'symlink'], ['dangling-abs', 'symlink'], ['loop-a', 'symlink'], ['loop-b', 'symlink'],
      ['real', 'dir'], ['real/a.txt', 'file'], ['real/cycle', 'symlink'], ['real/sub', 'dir'], ['real/sub/b.txt', 'file'],
      ['real/sub/to-top', 'symlink'], ['real/sub/up', 'symlink'], ['self', 'symlink'], ['to-file', 'symlink'],
      ['to-parent', 'symlink'], ['to-root', 'symlink'],
    ])
    assert.equal(r.truncated, false)
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, sortBy: 'name' })), ['real/a.txt', 'real/sub/b.txt'])
    const links = (await find('**', { cwd: dir, ...ALL })).entries.filter((e) => e.type === 'symlink').map((e) => e.path)
    assert.deepEqual(links, LINKS)
  })

  test('patterns that name a path through a link find nothing behind it', async (t) => {
    const dir = linkTree(t)
    for (const pattern of ['to-root/**', 'to-root/etc/passwd', 'to-root/*', 'to-parent/**', 'loop-a/**', 'real/cycle/**', 'real/sub/up/**', 'to-file/**']) {
      const r = await find(pattern, { cwd: dir, ...ALL })
      assert.deepEqual(paths(r), [], pattern)
    }
    const deep = await find('**/passwd', { cwd: dir, ...ALL })
    assert.deepEqual(paths(deep), [])
  })

  test('findFiles and searchFiles do not follow links either', { timeout: 30_000 }, async (t) => {
    const dir = linkTree(t)
    assert.deepEqual(await findFiles('**/*', dir), [path.join(dir, 'real/a.txt'), path.join(dir, 'real/sub/b.txt')])
    const content = await searchFiles({ pattern: 'needle', path: dir, outputMode: 'files' })
    assert.deepEqual(content.files.sort(), ['real/a.txt', 'real/sub/b.txt'])
    const names = await searchFiles({ pattern: '*', path: dir, target: 'files' })
    assert.deepEqual(names.files.sort(), ['real/a.txt', 'real/sub/b.txt'])
    const root = await searchFiles({ pattern: 'root:', path: dir, outputMode: 'count' })
    assert.equal(root.matchCount, 0, 'nothing from /etc/passwd through to-root')
  })

  test('a symlinked root (through a chain of links) is resolved and walked once', async (t) => {
    const dir = tmpTree(t, {
      'real/a.txt': '', 'real/sub/b.txt': '', 'real/back': { symlink: '..' }, 'real/me': { symlink: '.' },
      'link1': { symlink: 'real' }, 'link2': { symlink: 'link1' },
    })
    fs.symlinkSync(path.join(dir, 'link2'), path.join(dir, 'abs'))
    for (const p of ['link1', 'link2', 'abs', 'link2/me', 'link2/me/me']) {
      const r = await find('**/*', { cwd: dir, path: p, ...ALL })
      assert.deepEqual(r.entries.map((e) => [e.path, e.type]), [
        ['a.txt', 'file'], ['back', 'symlink'], ['me', 'symlink'], ['sub', 'dir'], ['sub/b.txt', 'file'],
      ], p)
      assert.ok([path.join(dir, p), path.join(dir, 'real')].includes(r.path), r.path)
      for (const e of r.entries) assert.ok(fs.lstatSync(path.join(r.path, e.path)), `${e.path} opens from ${r.path}`)
    }
  })
})

describe('deep and wide trees', () => {
  test('5,000 folders in one chain: listed completely, no crash (folders are opened by handle, so PATH_MAX does not apply)', { timeout: 60_000 }, async (t) => {
    const dir = makeScratch()
    t.after(() => removeDeep(dir))
    buildChain(dir, 5000)
    const deepest = `${Array(5000).fill('d').join('/')}/bottom.txt`
    for (const sortBy of ['name', 'recent']) {
      const all = await find('**/*', { cwd: dir, type: 'any', sortBy, limit: Infinity, maxLimit: Infinity, maxBytes: Infinity })
      assert.equal(all.matched, 5001, sortBy)
      assert.equal(all.entries.length, 5001, sortBy)
      const bottom = all.entries.find((e) => e.path === deepest)
      assert.ok(bottom && bottom.type === 'file' && bottom.size === 6 && bottom.mtimeMs > 0, sortBy)
    }
    assert.deepEqual(paths(await find('**/bottom.txt', { cwd: dir })), [deepest])
    assert.deepEqual(await findFiles('**/bottom.txt', dir), [path.join(dir, deepest)])
    const hits = await searchFiles({ pattern: 'bottom', path: dir })
    assert.deepEqual(hits.matches, [{ file: deepest, line: 1, match: 'bottom' }])
    const shallow = await find('**/*', { cwd: dir, type: 'dir', maxDepth: 1500, ...ALL })
    assert.equal(shallow.matched, 1501)
    assert.equal(shallow.entries.at(-1).path, Array(1501).fill('d').join('/'))
  })

  test('a chain of 12,000 folders under a limit: memory stays flat (folder counts hold names, not whole paths)', { timeout: 120_000, skip: process.platform !== 'linux' && 'reads the peak RSS from /proc' }, async (t) => {
    // Counting matches per folder by whole path took the square of the
    // depth: 144 MB of paths here, 3 GB at 40,000 levels.
    const { skip } = requireTool('/proc/self/clear_refs', {
      why: 'resetting the peak RSS',
      probe: () => (resetPeakRss() ? null : 'cannot write 5 to /proc/self/clear_refs'),
      install: 'a Linux kernel (4.0+) whose /proc/self/clear_refs this process may write',
    })
    if (skip) return t.skip(skip)
    const dir = makeScratch()
    t.after(() => removeDeep(dir))
    buildChain(dir, 12_000)
    assert.ok(resetPeakRss(), 'the peak RSS is reset')
    const before = procStatus().hwmMb
    const r = await find('**', { cwd: dir, type: 'dir', limit: 10 })
    const grew = procStatus().hwmMb - before
    t.diagnostic(`peak RSS grew by ${grew.toFixed(0)} MB`)
    assert.equal(r.matched, 12_000)
    // The deepest paths are 24 KB: the maxBytes cap keeps fewer than 10.
    assert.ok(r.entries.length >= 1 && r.entries.length <= 10)
    assert.equal(r.omitted.reduce((n, o) => n + o.count, 0), 12_000 - r.entries.length)
    assert.ok(grew < 60, `peak RSS grew by ${grew.toFixed(0)} MB`)
  })

  test('a chain of 1,900 folders (paths of 3,800 bytes) is listed completely', { timeout: 60_000 }, async (t) => {
    const dir = makeScratch()
    t.after(() => removeDeep(dir))
    buildChain(dir, 1900)
    const r = await find('**/*', { cwd: dir, ...ALL })
    assert.equal(r.matched, 1901)
    const deepest = `${Array(1900).fill('d').join('/')}/bottom.txt`
    assert.equal(r.entries.at(-1).path, deepest)
    assert.equal(r.entries.at(-1).size, 6)
    assert.deepEqual(paths(await find('**/bottom.txt', { cwd: dir })), [deepest])
    const text = formatFindResult(r)
    assert.equal(text.split('\n').length, 1902)
    const hits = await searchFiles({ pattern: 'bottom', path: dir })
    assert.deepEqual(hits.matches, [{ file: deepest, line: 1, match: 'bottom' }])
  })

  describe('200,000 files in one folder', () => {
    let top
    let flat
    const N = 200_000
    before(() => {
      top = makeScratch()
      flat = buildLinkedTree(top, { dirs: 0, perDir: N, name: 'flat' })
    })
    after(() => removeTmp(top))

    test('every file is counted, the first and last are right, and the omitted folder is named', async (t) => {
      const start = performance.now()
      const r = await find('*', { cwd: flat })
      t.diagnostic(`find '*' over 200,000 files in one folder: ${(performance.now() - start).toFixed(0)} ms`)
      assert.equal(r.matched, N)
      assert.equal(r.entries.length, 1000)
      assert.equal(r.truncatedBy, 'maximum')
      assert.deepEqual(r.omitted, [{ dir: '.', count: N - 1000 }])
      assert.equal(new Set(paths(r)).size, 1000)
      assert.deepEqual(paths(await find('*.txt', { cwd: flat, sortBy: 'name', limit: 3 })), ['f000000.txt', 'f000001.txt', 'f000002.txt'])
      assert.deepEqual(paths(await find('f1234[5-6]?.txt', { cwd: flat, sortBy: 'name' })), Array.from({ length: 20 }, (_, i) => `f${123450 + i}.txt`))
    })

    test('findFiles returns all 200,000 paths, each once, in order', async () => {
      const files = await findFiles('*', flat)
      assert.equal(files.length, N)
      assert.equal(files[0], path.join(flat, 'f000000.txt'))
      assert.equal(files.at(-1), path.join(flat, 'f199999.txt'))
      for (let i = 1; i < files.length; i++) assert.ok(files[i - 1] < files[i])
    })

    test('name search finds one file among them', async () => {
      const r = await searchFiles({ pattern: 'f199999', path: flat, target: 'files' })
      assert.deepEqual(r.files, ['f199999.txt'])
      assert.equal(r.matchCount, 1)
    })
  })
})

describe('file names', () => {
  const PLANES = Array.from({ length: 17 }, (_, p) => `plane${p}-${String.fromCodePoint(p * 0x10000 + 0x1234)}`)
  const ODD = [
    'with space.txt', ' leading space', 'trailing space ', 'tab\there', 'new\nline', 'carriage\rreturn',
    "single'quote", 'double"quote', 'back\\slash', '\\', 'star*', 'question?', '[brackets]', ']', '[', '{braces}',
    '{a,b}', '!bang', '-leading-dash', '--double-dash', '-', '--', 'semi;colon', 'pipe|', 'amp&', '$HOME', 'back`tick`',
    'percent%20', '#hash', '~', 'tilde~', '.hidden', '..dots', '...', 'ends-with-dot.', 'emoji-😀', 'cjk-漢字',
    'rtl-\u202Eevil.txt', 'zero-width-\u200B', 'nfd-e\u0301', 'nfc-\u00E9', 'bom-\uFEFF', 'replacement-\uFFFD',
    'nbsp\u00A0', 'control-\u0001-\u001F-\u007F', 'x'.repeat(255), `${'😀'.repeat(63)}abc`, ...PLANES,
  ]
  const DIRS = ['dir with\nnewline', 'dir*[?]{x}', '-rf', '😀 dir']

  function oddTree(t) {
    const spec = {}
    for (const name of ODD) spec[name] = `needle in ${JSON.stringify(name)}\n`
    for (const d of DIRS) spec[`${d}/inner.txt`] = 'needle\n'
    return tmpTree(t, spec)
  }
  const expectedFiles = () => [...ODD, ...DIRS.map((d) => `${d}/inner.txt`)]

  test('every odd name is listed exactly, in byte order, in find and the model text', async (t) => {
    const dir = oddTree(t)
    assert.equal(Buffer.byteLength('😀'.repeat(63) + 'abc'), 255)
    const r = await find('**/*', { cwd: dir, ...ALL })
    const expected = [...expectedFiles(), ...DIRS].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    assert.deepEqual(paths(r), expected)
    for (const e of r.entries) {
      assert.ok(!('pathBytes' in e), `${JSON.stringify(e.path)} is valid UTF-8: no pathBytes`)
      assert.equal(fs.lstatSync(path.join(r.path, e.path)).isDirectory(), e.type === 'dir')
    }
    const text = formatFindResult(r)
    for (const e of r.entries) assert.ok(text.includes(`\n${e.path}${e.type === 'dir' ? '/' : ''}`), JSON.stringify(e.path))
    const lines = new Set(text.split('\n'))
    for (const name of ODD.filter((n) => !/[\n\r]/.test(n))) assert.ok(lines.has(name), `a line of its own: ${JSON.stringify(name)}`)
  })

  test('each odd name is found by its own escaped glob, and only by it', async (t) => {
    const dir = oddTree(t)
    for (const name of expectedFiles()) {
      const r = await find(escapeGlob(name), { cwd: dir, ...ALL, caseSensitive: true })
      assert.deepEqual(paths(r), [name], `glob ${JSON.stringify(escapeGlob(name))}`)
    }
  })

  test('findFiles, searchFiles (content and names) and the CLI list them all', async (t) => {
    const dir = oddTree(t)
    const files = expectedFiles()
    assert.deepEqual((await findFiles('**/*', dir)).sort(), files.map((f) => path.join(dir, f)).sort())
    const hits = await searchFiles({ pattern: 'needle', path: dir, outputMode: 'count', maxResults: 500 })
    assert.deepEqual(hits.counts.map((c) => c.file).sort(), [...files].sort())
    assert.equal(hits.matchCount, files.length)
    const lines = await searchFiles({ pattern: 'needle', path: dir, maxResults: 500 })
    assert.deepEqual(lines.matches.map((m) => m.file).sort(), [...files].sort())
    const names = await searchFiles({ pattern: '*', path: dir, target: 'files', maxResults: 500 })
    assert.deepEqual([...names.files].sort(), [...files].sort())
    const cli = spawnSync(process.execPath, [CLI, '**/*', dir, '--type', 'any', '--sort', 'name', '--limit', '1000', '--json'], { encoding: 'utf8' })
    assert.equal(cli.status, 0, cli.stderr)
    assert.deepEqual(JSON.parse(cli.stdout).entries.map((e) => e.path).sort(), [...files, ...DIRS].sort())
    const dash = spawnSync(process.execPath, [CLI, '--json', '--', '-leading-dash', dir], { encoding: 'utf8' })
    assert.equal(dash.status, 0, dash.stderr)
    assert.deepEqual(JSON.parse(dash.stdout).entries.map((e) => e.path), ['-leading-dash'])
  })

  describe('names that are not valid UTF-8', () => {
    const B = (s) => Buffer.from(s, 'latin1')
    // Relative paths as bytes, and their sizes (so metadata read through the real name is checked).
    const RAW = [
      [B('bad-\xff.txt'), 1], [B('bad-\xfe.txt'), 2], [B('caf\xe9.txt'), 3], [B('\xc3\x28.txt'), 4],
      [B('overlong-\xc0\xaf.txt'), 5], [B('surrogate-\xed\xa0\x80.txt'), 6], [B('too-big-\xf4\x90\x80\x80.txt'), 7],
      [B('truncated-\xe2\x82.txt'), 8], [B('\x80'), 9], [B('dir-\xff/inner.txt'), 10],
    ]
    const VALID = [['bad-\uFFFD.txt', 11], ['plain.txt', 12]]

    function rawTree(t) {
      const dir = tmpTree(t, {})
      fs.mkdirSync(Buffer.concat([B(`${dir}/`), B('dir-\xff')]))
      for (const [rel, size] of RAW) fs.writeFileSync(Buffer.concat([B(`${dir}/`), rel]), Buffer.alloc(size, 'n'))
      for (const [rel, size] of VALID) fs.writeFileSync(path.join(dir, rel), Buffer.alloc(size, 'n'))
      return dir
    }
    const rawPaths = [...RAW.map(([rel]) => rel), B('dir-\xff')]

    test('find lists each with the lossy path and the exact pathBytes, ordered by the real bytes', async (t) => {
      const dir = rawTree(t)
      const r = await find('**/*', { cwd: dir, ...ALL })
      assert.equal(r.entries.length, RAW.length + VALID.length + 1)
      const want = [...rawPaths, ...VALID.map(([rel]) => Buffer.from(rel))].sort(Buffer.compare)
      assert.deepEqual(r.entries.map(entryBytes), want)
      for (const e of r.entries) {
        const bytes = entryBytes(e)
        const isRaw = rawPaths.some((p) => p.equals(bytes))
        assert.equal('pathBytes' in e, isRaw, e.path)
        if (!isRaw) continue
        assert.ok(Array.isArray(e.pathBytes) && e.pathBytes.every((b) => Number.isInteger(b) && b >= 0 && b < 256))
        assert.equal(e.path, bytes.toString('utf8'), 'path is the lossy text, as Buffer decodes it')
        assert.ok(e.path.includes('\uFFFD'))
        const st = fs.lstatSync(Buffer.concat([Buffer.from(`${r.path}/`), bytes]))
        assert.equal(e.size, e.type === 'dir' ? 0 : st.size, `size read through the real name: ${e.path}`)
        assert.equal(e.mtimeMs, st.mtimeMs)
      }
      // Two names that differ only in invalid bytes are both there, and the
      // valid name they both decode to is a third entry.
      assert.equal(r.entries.filter((e) => e.path === 'bad-\uFFFD.txt').length, 3)
    })

    test('the order is stable and every sort keeps every entry', async (t) => {
      const dir = rawTree(t)
      const first = await find('**/*', { cwd: dir, ...ALL })
      assert.deepEqual(await find('**/*', { cwd: dir, ...ALL }), first)
      const reversed = await find('**/*', { cwd: dir, ...ALL, reverse: true })
      assert.deepEqual(reversed.entries, [...first.entries].reverse())
      for (const sortBy of ['recent', 'size', 'mtime', 'none']) {
        const r = await find('**/*', { cwd: dir, ...ALL, sortBy })
        assert.deepEqual(r.entries.map(entryBytes).sort(Buffer.compare), first.entries.map(entryBytes), sortBy)
      }
      const bySize = await find('**/*', { cwd: dir, ...ALL, type: 'file', sortBy: 'size' })
      assert.deepEqual(bySize.entries.map((e) => e.size), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
      // U+FFFD is EF BF BD: the valid name sorts before the 0xFE and 0xFF ones.
      const two = await find('bad-*', { cwd: dir, sortBy: 'name', limit: 2 })
      assert.deepEqual(two.entries.map(entryBytes), [Buffer.from('bad-\uFFFD.txt'), B('bad-\xfe.txt')])
      assert.equal(two.matched, 3)
    })

    test('the model text marks them, and renders the same after a JSON round trip', async (t) => {
      const dir = rawTree(t)
      const r = await find('**/*', { cwd: dir, ...ALL })
      const text = formatFindResult(r)
      const lines = text.split('\n')
      for (const e of r.entries) {
        const shown = `${e.path}${e.type === 'dir' ? '/' : ''}${e.pathBytes ? ' [name is not valid UTF-8]' : ''}`
        assert.ok(lines.includes(shown), `line ${JSON.stringify(shown)} in\n${text}`)
      }
      assert.equal(lines.filter((l) => l.endsWith(' [name is not valid UTF-8]')).length, rawPaths.length)
      assert.ok(lines.includes('dir-\uFFFD/ [name is not valid UTF-8]'))
      assert.equal(formatFindResult(JSON.parse(JSON.stringify(r))), text)
      const capped = await find('**/*', { cwd: dir, ...ALL, maxBytes: 256 })
      assert.ok(Buffer.byteLength(formatFindResult(capped)) <= 256)
    })

    test('the CLI: --json carries pathBytes, the text carries the mark', async (t) => {
      const dir = rawTree(t)
      const json = spawnSync(process.execPath, [CLI, 'caf*', dir, '--json'], { encoding: 'utf8' })
      assert.equal(json.status, 0, json.stderr)
      const out = JSON.parse(json.stdout)
      assert.deepEqual(out.entries.map((e) => [e.path, e.pathBytes]), [['caf\uFFFD.txt', [...B('caf\xe9.txt')]]])
      const text = spawnSync(process.execPath, [CLI, 'caf*', dir], { encoding: 'utf8' })
      assert.equal(text.status, 0, text.stderr)
      assert.equal(text.stdout, `Search directory: ${dir}\ncaf\uFFFD.txt [name is not valid UTF-8]\n`)
    })

    test('findFiles and name search give lossy strings, but lose no file', async (t) => {
      const dir = rawTree(t)
      const files = await findFiles('**/*', dir)
      assert.equal(files.length, RAW.length + VALID.length)
      assert.deepEqual(files.filter((f) => f.endsWith('/bad-\uFFFD.txt')).length, 3)
      const names = await searchFiles({ pattern: 'bad-', path: dir, target: 'files' })
      assert.equal(names.matchCount, 3)
      assert.deepEqual(names.files, ['bad-\uFFFD.txt', 'bad-\uFFFD.txt', 'bad-\uFFFD.txt'])
      const counts = await searchFiles({ pattern: 'n', path: dir, outputMode: 'count', maxResults: 500 })
      assert.equal(counts.counts.length, RAW.length + VALID.length)
    })

    // Was a bug: the matching lines were re-read through the lossy name, so they were
    // dropped (matchCount counted them), or read from caf\uFFFD.txt when that existed.
    test('content search shows the matching lines of a file whose name is not UTF-8',
      async (t) => {
        const dir = tmpTree(t, { 'caf\uFFFD.txt': 'other file\n', 'ok.txt': 'needle two\n' })
        fs.writeFileSync(Buffer.concat([B(`${dir}/`), B('caf\xe9.txt')]), 'needle one\n')
        const r = await searchFiles({ pattern: 'needle', path: dir })
        assert.equal(r.matchCount, 2)
        assert.deepEqual(r.matches, [
          { file: 'caf\uFFFD.txt', line: 1, match: 'needle one' },
          { file: 'ok.txt', line: 1, match: 'needle two' },
        ])
      })
  })
})

describe('a tree that changes during the walk', () => {
  // A second process creates, renames and deletes files and folders (in
  // folders the walk also lists) for as long as the searches run.
  const CHURN = `
    const fs = require('fs'), path = require('path')
    const [root, ms] = [process.argv[1], Number(process.argv[2])]
    const until = Date.now() + ms
    const stable = (i) => path.join(root, 'stable', 'd' + String(i % 50).padStart(4, '0'))
    const tryIt = (fn) => { try { fn() } catch {} }
    let i = 0
    for (; Date.now() < until; i++) {
      const d = path.join(root, 'churn', 'c' + (i % 16))
      tryIt(() => { fs.mkdirSync(d, { recursive: true }); for (let j = 0; j < 8; j++) fs.writeFileSync(path.join(d, 'f' + j + '.txt'), 'needle') })
      tryIt(() => fs.renameSync(path.join(d, 'f0.txt'), path.join(d, 'moved.txt')))
      tryIt(() => fs.writeFileSync(path.join(d, '.gitignore'), '*.log\\n'))
      tryIt(() => fs.renameSync(d, d + '-renamed'))
      tryIt(() => fs.writeFileSync(path.join(stable(i), 'tmp-' + i + '.tmp'), 'needle'))
      tryIt(() => fs.mkdirSync(path.join(stable(i), 'tmpdir-' + i)))
      const old = i - 4
      if (old >= 0) {
        tryIt(() => fs.rmSync(path.join(root, 'churn', 'c' + (old % 16) + '-renamed'), { recursive: true, force: true }))
        tryIt(() => fs.unlinkSync(path.join(stable(old), 'tmp-' + old + '.tmp')))
        tryIt(() => fs.rmdirSync(path.join(stable(old), 'tmpdir-' + old)))
      }
      const swap = path.join(root, 'churn', 'swap')
      tryIt(() => {
        fs.rmSync(swap, { recursive: true, force: true })
        if (i % 2) fs.writeFileSync(swap, 'needle')
        else { fs.mkdirSync(swap); fs.writeFileSync(path.join(swap, 'in.txt'), 'needle') }
      })
    }
    console.log(i)`

  test('no error, no duplicate, and every untouched file is always found', { timeout: 60_000 }, async (t) => {
    const dir = tmpTree(t, { 'churn/': null })
    buildLinkedTree(dir, { dirs: 50, perDir: 100, name: 'stable' })
    const stableFiles = []
    for (let d = 0; d < 50; d++) for (let f = 0; f < 100; f++) stableFiles.push(`stable/d${String(d).padStart(4, '0')}/f${String(f).padStart(3, '0')}.txt`)
    const churner = spawn(process.execPath, ['-e', CHURN, dir, '2000'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let rounds = ''
    churner.stdout.on('data', (d) => { rounds += d })
    const exited = new Promise((resolve) => churner.on('exit', resolve))
    let running = true
    exited.then(() => { running = false })

    const calls = { find: 0, findFiles: 0, search: 0 }
    const unique = (list, what) => assert.equal(new Set(list).size, list.length, `${what}: a path listed twice`)
    try {
      while (running) {
        const all = await find('**/*', { cwd: dir, ...ALL, sortBy: 'recent' })
        unique(paths(all), 'find')
        const listed = new Set(paths(all))
        for (const f of stableFiles) assert.ok(listed.has(f), `find lost ${f}`)
        const txt = await find('stable/**/*.txt', { cwd: dir, ...ALL, sortBy: 'size' })
        assert.deepEqual(sortedPaths(txt), stableFiles)
        const files = await findFiles('**/*.txt', dir)
        unique(files, 'findFiles')
        const fileSet = new Set(files)
        for (const f of stableFiles) assert.ok(fileSet.has(path.join(dir, f)), `findFiles lost ${f}`)
        const counts = await searchFiles({ pattern: 'needle', path: dir, outputMode: 'count', maxResults: 500 })
        unique(counts.counts.map((c) => c.file), 'searchFiles count')
        const names = await searchFiles({ pattern: 'f0', path: dir, target: 'files', maxResults: 500 })
        unique(names.files, 'searchFiles names')
        calls.find += 2
        calls.findFiles += 1
        calls.search += 2
      }
    } finally {
      // Stop the churn before the temp dir is removed.
      if (churner.exitCode === null) churner.kill()
      await exited
    }
    assert.equal(churner.exitCode, 0)
    t.diagnostic(`${calls.find} find, ${calls.findFiles} findFiles, ${calls.search} searchFiles calls during ${rounds.trim()} rounds of churn`)
    assert.ok(calls.find >= 4, 'the searches overlapped the churn')
  })
})

describe('unreadable folders and ignore files (as uid 65534)', () => {
  function lockedTree(t) {
    const dir = tmpTree(t, {
      'open/a.txt': '', 'zero/b.txt': '', 'zero-mine/c.txt': '', '.gitignore': '*.tmp\n',
      'gi/.gitignore': '*.log\n', 'gi/x.log': '', 'gi/y.txt': '', 'gi/z.tmp': '',
      'secret.txt': 'needle', 'pub.txt': 'needle',
    })
    openToOthers(dir)
    fs.chmodSync(path.join(dir, 'zero'), 0o000)
    fs.chownSync(path.join(dir, 'zero-mine'), 65534, 65534)
    fs.chmodSync(path.join(dir, 'zero-mine'), 0o000)
    fs.chmodSync(path.join(dir, 'gi/.gitignore'), 0o000)
    fs.chmodSync(path.join(dir, 'secret.txt'), 0o000)
    return dir
  }

  test('a chmod 000 folder is skipped, an unreadable .gitignore is passed over, the rest is listed', async (t) => {
    const why = cannotRunAsNobody()
    if (why) return t.skip(why)
    const dir = lockedTree(t)
    const out = runAsNobody(`(af) => af.find('**/*', { cwd: ${JSON.stringify(dir)}, type: 'any', sortBy: 'name' }).then((r) => r.entries.map((e) => e.path))`)
    assert.equal(out.ok, true, JSON.stringify(out))
    // gi/.gitignore cannot be read, so *.log is not applied there; the root .gitignore (*.tmp) still is.
    assert.deepEqual(out.value, ['.gitignore', 'gi', 'gi/.gitignore', 'gi/x.log', 'gi/y.txt', 'open', 'open/a.txt', 'pub.txt', 'secret.txt', 'zero', 'zero-mine'])
    const files = runAsNobody(`(af) => af.findFiles('**/*', ${JSON.stringify(dir)})`)
    assert.deepEqual(files.value.map((f) => path.relative(dir, f)), ['.gitignore', 'gi/.gitignore', 'gi/x.log', 'gi/y.txt', 'open/a.txt', 'pub.txt', 'secret.txt'])
  })

  test('searchFiles skips a file it cannot read and the folders it cannot enter', async (t) => {
    const why = cannotRunAsNobody()
    if (why) return t.skip(why)
    const dir = lockedTree(t)
    const out = runAsNobody(`(af) => af.searchFiles({ pattern: 'needle', path: ${JSON.stringify(dir)} })`)
    assert.equal(out.ok, true, JSON.stringify(out))
    assert.deepEqual(out.value.matches, [{ file: 'pub.txt', line: 1, match: 'needle' }])
  })

  // Was a bug: children whose metadata cannot be read (r but no x on their folder) were
  // listed by 'name' but silently dropped by 'recent', 'size' and 'mtime'.
  test('a folder that can be listed but not entered (r--) gives the same entries whatever the sort',
    async (t) => {
      const why = cannotRunAsNobody()
      if (why) return t.skip(why)
      const dir = tmpTree(t, { 'rnox/c.txt': 'x', 'rnox/sub/d.txt': '', 'open.txt': '' })
      openToOthers(dir)
      fs.chmodSync(path.join(dir, 'rnox'), 0o644)
      const list = (sortBy, sub = '') => runAsNobody(`(af) => af.find('**/*', { cwd: ${JSON.stringify(path.join(dir, sub))}, type: 'any', sortBy: '${sortBy}' }).then((r) => r.entries.map((e) => e.path).sort())`)
      const byName = list('name')
      assert.deepEqual(byName.value, ['open.txt', 'rnox', 'rnox/c.txt', 'rnox/sub'])
      for (const sortBy of ['recent', 'size', 'mtime']) assert.deepEqual(list(sortBy).value, byName.value, sortBy)
      const rooted = runAsNobody(`(af) => af.find('*', { cwd: ${JSON.stringify(path.join(dir, 'rnox'))} })`)
      assert.ok(!rooted.ok || rooted.value.entries.some((e) => e.path === 'c.txt'), JSON.stringify(rooted))
    })
})

describe('ignore files that are huge, malformed or not files', () => {
  test('a 10 MB .gitignore is applied, negation included', { timeout: 120_000 }, async (t) => {
    const long = 'component-'.repeat(8)
    const dir = tmpTree(t, {
      'kept.txt': '', 'x.log': '', 'keep-me.log': '', [`gen/${long}1235/out.bin`]: '', [`gen/${long}1234/out.bin`]: '',
      'gen/other/out.bin': '', 'a.ext7770': '', 'b.ext7771': '',
    })
    gitInit(dir)
    // ~100-byte folder rules, and every tenth line an extension rule.
    const parts = []
    let size = 0
    for (let i = 0; size < 10 << 20; i++) {
      const line = i % 10 === 0 ? `*.ext${i}\n` : i % 2 ? `gen/${long}${i}/\n` : `# ${long}${i}\n`
      parts.push(line)
      size += line.length
    }
    parts.push('*.log\n!keep-me.log\n')
    fs.writeFileSync(path.join(dir, '.gitignore'), parts.join(''))
    assert.ok(fs.statSync(path.join(dir, '.gitignore')).size >= 10 << 20)
    const start = performance.now()
    const r = await find('**/*', { cwd: dir, sortBy: 'name' })
    t.diagnostic(`find with a 10 MB .gitignore (${parts.length} lines): ${(performance.now() - start).toFixed(0)} ms`)
    assert.deepEqual(paths(r), ['.gitignore', 'b.ext7771', `gen/${long}1234/out.bin`, 'gen/other/out.bin', 'keep-me.log', 'kept.txt'])
    const git = execFileSync('git', ['-C', dir, 'ls-files', '--others', '--exclude-standard'], { encoding: 'utf8' })
    assert.deepEqual(git.trim().split('\n').sort(), paths(r), 'git agrees')
  })

  test('a .gitignore of one 1 MB line, and one of 1 MB of blank lines: no error', { timeout: 60_000 }, async (t) => {
    for (const content of ['x'.repeat(1 << 20), `${'\n'.repeat(1 << 20)}*.log\n`]) {
      const dir = tmpTree(t, { 'a.txt': '', 'b.log': '' })
      gitInit(dir)
      fs.writeFileSync(path.join(dir, '.gitignore'), content)
      const r = await find('*', { cwd: dir, sortBy: 'name' })
      assert.ok(paths(r).includes('a.txt'))
      assert.equal(paths(r).includes('b.log'), !content.endsWith('*.log\n'))
    }
  })

  test('a .gitignore with invalid UTF-8: the valid rules around it still apply', async (t) => {
    const dir = tmpTree(t, { 'a.log': '', 'b.tmp': '', 'c.txt': '' })
    gitInit(dir)
    fs.writeFileSync(path.join(dir, '.gitignore'), Buffer.concat([Buffer.from('a.log\n'), Buffer.from([0xff, 0xfe, 0x80, 0x0a]), Buffer.from('*.tmp\n')]))
    assert.deepEqual(paths(await find('*', { cwd: dir, sortBy: 'name' })), ['.gitignore', 'c.txt'])
  })

  test('a .gitignore rule whose bytes are not UTF-8 applies to the file it names, as in git',
    async (t) => {
      const dir = tmpTree(t, { 'c.txt': '' })
      gitInit(dir)
      fs.writeFileSync(path.join(dir, '.gitignore'), Buffer.from('bad-\xff.txt\n', 'latin1'))
      fs.writeFileSync(Buffer.from(`${dir}/bad-\xff.txt`, 'latin1'), '')
      const git = execFileSync('git', ['-C', dir, 'ls-files', '--others', '--exclude-standard'], { encoding: 'utf8' })
      assert.deepEqual(git.trim().split('\n').sort(), ['.gitignore', 'c.txt'])
      assert.deepEqual(paths(await find('*', { cwd: dir, sortBy: 'name' })), ['.gitignore', 'c.txt'])
    })

  test('a .gitignore of 20,000 wildcard rules still applies its rules', { timeout: 60_000 },
    async (t) => {
      const dir = tmpTree(t, { 'x.log': '', 'y.txt': '' })
      gitInit(dir)
      const lines = ['*.log']
      for (let i = 0; i < 20_000; i++) lines.push(`a*b${i}*c`)
      fs.writeFileSync(path.join(dir, '.gitignore'), `${lines.join('\n')}\n`)
      assert.deepEqual(paths(await find('*', { cwd: dir, sortBy: 'name' })), ['.gitignore', 'y.txt'])
    })

  test('a folder named .gitignore is passed over', async (t) => {
    const dir = tmpTree(t, { '.gitignore/inner': '*.txt\n', 'a.txt': '' })
    assert.deepEqual(paths(await find('*', { cwd: dir, sortBy: 'name' })), ['a.txt'])
  })

  /**
   * Runs a search in a child process that is killed after `ms` (or when its
   * RSS passes 1 GB): returns what it printed, or why it was stopped.
   */
  async function boundedSearch(dir, expr, ms) {
    const script = `
      const af = require(${JSON.stringify(path.join(REPO, 'index.js'))})
      setInterval(() => { if (process.memoryUsage().rss > 1e9) { console.log(JSON.stringify({ stopped: 'rss over 1 GB' })); process.exit(0) } }, 20).unref()
      ;(${expr})(af, ${JSON.stringify(dir)}).then(
        (value) => { console.log(JSON.stringify({ ok: true, value })); process.exit(0) },
        (e) => { console.log(JSON.stringify({ ok: false, code: e.code, message: e.message })); process.exit(0) })`
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => { out += d })
    const timer = setTimeout(() => child.kill('SIGKILL'), ms)
    await new Promise((resolve) => child.on('exit', resolve))
    clearTimeout(timer)
    return out.trim() ? JSON.parse(out.trim().split('\n').at(-1)) : { stopped: `no answer within ${ms} ms` }
  }

  function specialTree(t, kind) {
    const dir = tmpTree(t, { 'a.txt': '' })
    const at = path.join(dir, kind.endsWith('.ignore') ? '.ignore' : '.gitignore')
    if (kind.startsWith('fifo')) execFileSync('mkfifo', [at])
    else fs.symlinkSync(kind === 'zero' ? '/dev/zero' : '/dev/urandom', at)
    return dir
  }

  test('with gitignore: false, ignore files that are FIFOs or links to /dev/zero are never opened', { timeout: 30_000 }, async (t) => {
    const results = await Promise.all(['zero', 'urandom', 'fifo', 'fifo.ignore'].map((kind) =>
      boundedSearch(specialTree(t, kind), `(af, dir) => af.find('*', { cwd: dir, gitignore: false }).then((r) => r.entries.map((e) => e.path))`, 10_000)))
    for (const r of results) assert.deepEqual(r, { ok: true, value: ['a.txt'] })
  })

  test('an ignore file that is a FIFO, or a link to /dev/zero or /dev/urandom, neither hangs the walk nor eats memory',
    { timeout: 30_000 },
    async (t) => {
      const kinds = ['zero', 'urandom', 'fifo', 'fifo.ignore']
      const results = await Promise.all(kinds.map((kind) =>
        boundedSearch(specialTree(t, kind), `(af, dir) => af.find('*', { cwd: dir, timeoutMs: 500 }).then((r) => r.entries.map((e) => e.path))`, 2_000)))
      results.forEach((r, i) => {
        assert.ok(r.ok === true || (r.ok === false && r.code === 'aborted'), `${kinds[i]}: ${JSON.stringify(r)}`)
        if (r.ok) assert.deepEqual(r.value, ['a.txt'], kinds[i])
      })
    })
})

describe('special files in the tree', () => {
  test('FIFOs, sockets and links to devices are not listed, opened or followed', { timeout: 30_000 }, async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'needle', 'zero.txt': { symlink: '/dev/zero' }, 'random.txt': { symlink: '/dev/urandom' } })
    execFileSync('mkfifo', [path.join(dir, 'pipe.txt')])
    const server = net.createServer().listen(path.join(dir, 'sock.txt'))
    await new Promise((resolve) => server.on('listening', resolve))
    t.after(() => server.close())
    assert.deepEqual(paths(await find('**/*', { cwd: dir, ...ALL })), ['a.txt', 'random.txt', 'zero.txt'])
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'name' })), ['a.txt'])
    assert.deepEqual(await findFiles('*.txt', dir), [path.join(dir, 'a.txt')])
    const hits = await searchFiles({ pattern: 'needle', path: dir, timeoutMs: 10_000 })
    assert.deepEqual(hits.matches, [{ file: 'a.txt', line: 1, match: 'needle' }])
    const names = await searchFiles({ pattern: '*.txt', path: dir, target: 'files' })
    assert.deepEqual(names.files, ['a.txt'])
  })
})
