// searchFiles keeps ripgrep's regex syntax, and a pattern that needs
// lookaround or a backreference runs on the fallback engine (PCRE2, as
// `rg -P`) instead of being refused. Expectations come from JavaScript's
// RegExp run line by line over the same files (these patterns mean the same
// in both), and from `rg -P` itself (`ripgrepPcre2Path`: the pinned rg of
// `npm run install:rg` is built without PCRE2, Debian's has it).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { FindFilesError, searchFiles } from '../index.mjs'
import { ripgrepPcre2Path, tmpTree } from './helpers.mjs'

const TREE = {
  'src/app.ts': 'const foobar = 1\nconst foobaz = 2\n// TODO(ana): split\n// TODO: later\nreturn foo\n',
  'src/util.py': 'def foo(): pass\nxfoo = foobar\nemail = "ana@example.com"\nthe the end\nmississippi\n',
  'notes.md': 'Foobar in caps\r\nno match here\r\nbook keeper\r\n@mention and @other\r\n',
  'deep/a/b/c.txt': 'aa bb\nabc\nTODO(x)\n',
  'latin1.txt': Buffer.from('caf\xe9 foobar\nplain\n', 'latin1'),
  'bin.dat': Buffer.from('foobar\0binary'),
}

// [pattern, ignoreCase, the same pattern for JavaScript]
const CASES = [
  ['foo(?=bar)', false, 'foo(?=bar)'],
  ['foo(?!bar)', false, 'foo(?!bar)'],
  ['(?<!x)foo', false, '(?<!x)foo'],
  ['(?<=@)\\w+', false, '(?<=@)\\w+'],
  ['(\\w)\\1', false, '(\\w)\\1'],
  ['\\b(\\w+) \\1\\b', false, '\\b(\\w+) \\1\\b'],
  ['TODO(?!:)', false, 'TODO(?!:)'],
  ['todo(?=\\()', true, 'todo(?=\\()'],
  ['FOO(?=BAR)', true, 'FOO(?=BAR)'],
  ['(?<n>s)\\k<n>', false, '(?<n>s)\\k<n>'],
]

/** Matching lines per file, from JavaScript, as searchFiles should see them. */
function expected(dir, files, jsPattern, ignoreCase) {
  const re = new RegExp(jsPattern, ignoreCase ? 'i' : '')
  const out = []
  for (const file of files) {
    const text = fs.readFileSync(path.join(dir, file), 'latin1')
    text.split('\n').forEach((line, i) => {
      if (line !== '' || i < text.split('\n').length - 1) {
        if (re.test(line)) out.push({ file, line: i + 1 })
      }
    })
  }
  return out
}

const TEXT_FILES = ['deep/a/b/c.txt', 'latin1.txt', 'notes.md', 'src/app.ts', 'src/util.py']
/** The rg to compare with, one that can run `-P`; null (outside CI) when there is none. */
const RG = ripgrepPcre2Path()

function rg(dir, args) {
  // An explicit '.', or rg would read its standard input; its paths then start with './'.
  const r = spawnSync(RG, ['--no-config', '--hidden', '-P', ...args, '.'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  assert.ok(r.status === 0 || r.status === 1, r.stderr)
  return r.stdout.split('\n').filter(Boolean).map((l) => l.replace(/^\.\//, ''))
}

describe('content search: lookaround and backreferences on the fallback engine', () => {
  test('lines, counts and files equal the expected semantics (and rg -P when installed)', async (t) => {
    const dir = tmpTree(t, TREE)
    for (const [pattern, ignoreCase, js] of CASES) {
      const want = expected(dir, TEXT_FILES, js, ignoreCase)
      const what = `${pattern}${ignoreCase ? ' (ignoreCase)' : ''}`
      const content = await searchFiles({ pattern, ignoreCase, cwd: dir, maxResults: 500 })
      assert.deepEqual(content.matches.map(({ file, line }) => ({ file, line })), want, what)
      assert.equal(content.matchCount, want.length, what)
      const counts = await searchFiles({ pattern, ignoreCase, cwd: dir, outputMode: 'count' })
      const wantCounts = {}
      for (const { file } of want) wantCounts[file] = (wantCounts[file] ?? 0) + 1
      assert.deepEqual(Object.fromEntries(counts.counts.map((c) => [c.file, c.count])), wantCounts, what)
      const files = await searchFiles({ pattern, ignoreCase, cwd: dir, outputMode: 'files' })
      assert.deepEqual([...files.files].sort(), Object.keys(wantCounts).sort(), what)
      if (RG) {
        const flags = ignoreCase ? ['-i'] : []
        const rgCounts = Object.fromEntries(rg(dir, [...flags, '--count', '--with-filename', '-e', pattern]).map((l) => {
          const at = l.lastIndexOf(':')
          return [l.slice(0, at), Number(l.slice(at + 1))]
        }))
        assert.deepEqual(rgCounts, wantCounts, `${what}: rg -P --count`)
        const rgLines = rg(dir, [...flags, '-n', '--with-filename', '--no-heading', '--sort', 'path', '-e', pattern]).map((l) => {
          const [file, line] = l.split(':')
          return { file, line: Number(line) }
        })
        assert.deepEqual(content.matches.map(({ file, line }) => ({ file, line })), rgLines, `${what}: rg -P -n`)
      }
    }
    if (!RG) t.diagnostic('no rg with PCRE2 here: the rg -P comparison was not made (CI requires it)')
  })

  test('every case matches somewhere, so the comparisons above prove something', async (t) => {
    const dir = tmpTree(t, TREE)
    for (const [pattern, ignoreCase, js] of CASES) {
      assert.ok(expected(dir, TEXT_FILES, js, ignoreCase).length > 0, pattern)
    }
  })

  test('the matched text is the whole line, as for the normal engine', async (t) => {
    const dir = tmpTree(t, TREE)
    const r = await searchFiles({ pattern: '(?<=@)example', cwd: dir })
    assert.deepEqual(r.matches, [{ file: 'src/util.py', line: 3, match: 'email = "ana@example.com"' }])
  })

  test('ripgrep syntax stays the default; its errors stay its own', async (t) => {
    const dir = tmpTree(t, TREE)
    const plain = await searchFiles({ pattern: '\\bfoo\\w+', cwd: dir, outputMode: 'count' })
    assert.ok(plain.matchCount > 0)
    await assert.rejects(searchFiles({ pattern: '(unclosed', cwd: dir }), (e) => e instanceof FindFilesError && e.code === 'invalid-pattern' && /Rust `regex` syntax/.test(e.message))
    await assert.rejects(searchFiles({ pattern: '(?<=a)b(', cwd: dir }), (e) => e instanceof FindFilesError && e.code === 'invalid-pattern' && /PCRE2/.test(e.message))
  })

  test('a pattern that backtracks past PCRE2\'s limit is invalid-pattern, not a silently skipped file', async (t) => {
    const dir = tmpTree(t, { 'big.txt': `${'a'.repeat(4000)}!\n`, 'small.txt': 'ok\n' })
    await assert.rejects(searchFiles({ pattern: '^(\\w+\\s?)*(?=x)$', cwd: dir }), (e) => e instanceof FindFilesError && e.code === 'invalid-pattern' && /big\.txt/.test(e.message))
  })
})
