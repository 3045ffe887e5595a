// searchFiles' filters and pattern modes: `type` (ripgrep's file types),
// `exclude` (find's globs), `maxPerFile` (rg -m), `literal` (rg -F),
// `multiline` (rg -U) and `patterns` (rg -e ... -e ...). On a generated
// tree, each answer is held to ripgrep's (the same matching lines and
// counts), when an rg is found (`ripgrepPath`: AGENT_FIND_RG, the pinned one
// of `npm run install:rg`, else PATH; in CI, none fails the run); the same calls on
// a memoryReader and a live index (twice: the second search runs on the
// index's content sketches, so its prefilter must not rule a match out)
// answer as the disk does. Errors are checked without rg.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, describe, test } from 'node:test'

import { FindFilesError, fileTypes, formatSearchResult, memoryReader, openIndex, searchFiles } from '../index.mjs'
import { NO_RIPGREP, REPO, makeTmp, removeTmp, ripgrepPath, writeTree } from './helpers.mjs'

const BIN = path.join(REPO, 'bin', 'agent-find.js')

const RG = ripgrepPath()
const NO_RG = RG ? false : NO_RIPGREP

// ---------------------------------------------------------------- the generated tree

/** A small deterministic generator (mulberry32). */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = [
  'TODO fix this', 'FIXME later', 'call foo(bar)', 'foo(', 'a.b', 'axb', 'begin', '  end', 'start here', 'and stop',
  'todo lower', 'Todo mixed', 'fn main() {}', 'import os', 'const x = 1', 'plain text', 'x', 'y', 'TODO and FIXME',
  'the a.b.c path', '[bracket]', 'price $5', 'üñí TODO', '',
]
const EXTS = ['js', 'py', 'rs', 'md', 'txt', 'ts', 'c', 'json']

function generate(seed) {
  const next = random(seed)
  const files = {}
  for (let i = 0; i < 60; i++) {
    const dir = ['', 'src/', 'src/lib/', 'docs/', 'gen/', 'tools/x/'][Math.floor(next() * 6)]
    const ext = EXTS[Math.floor(next() * EXTS.length)]
    const lines = []
    for (let n = Math.floor(next() * 30); n > 0; n--) lines.push(WORDS[Math.floor(next() * WORDS.length)])
    files[`${dir}f${i}.${ext}`] = `${lines.join('\n')}\n`
  }
  files['Makefile'] = 'all:\n\techo TODO\n'
  files['src/CMakeLists.txt'] = 'TODO cmake\n'
  files['many.txt'] = `${'TODO line\n'.repeat(50)}`
  return files
}

const FILES = generate(18)
const tmp = makeTmp()
after(() => removeTmp(tmp))
writeTree(tmp, FILES)
const ALL = { cwd: tmp, maxResults: 10_000 }

/** rg's `path:line:text` lines (or `path:count`), sorted as we sort (path, then line). */
function rg(args) {
  // The path `.` given, so rg never reads its stdin; its `./` taken off.
  const r = spawnSync(RG, ['--no-config', '--no-heading', '--with-filename', '--color', 'never', ...args, '.'], {
    cwd: tmp,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  assert.ok(r.status === 0 || r.status === 1, `rg ${args.join(' ')}: ${r.stderr}`)
  return r.stdout.split('\n').filter(Boolean).map((l) => l.replace(/^\.\//, ''))
}

const byPathLine = (a, b) => {
  const [pa, la] = splitLine(a)
  const [pb, lb] = splitLine(b)
  return pa < pb ? -1 : pa > pb ? 1 : la - lb
}
function splitLine(s) {
  const m = /^(.*?):(\d+)[:-]/.exec(s)
  return m ? [m[1], Number(m[2])] : [s, 0]
}

/** Our matches as rg -n prints them: each line of a (multiline) match under its own number. */
function asRgLines(result) {
  const out = []
  for (const m of result.matches) m.match.split('\n').forEach((text, i) => out.push(`${m.file}:${m.line + i}:${text}`))
  return [...new Set(out)].sort(byPathLine)
}
const asRgCounts = (result) => result.counts.map((c) => `${c.file}:${c.count}`).sort()

/** Checks a search against rg: the lines (content) and the counts. */
async function sameAsRg(options, rgArgs) {
  const content = await searchFiles({ ...ALL, ...options })
  const want = rg(['-n', ...rgArgs]).sort(byPathLine)
  assert.ok(want.length > 0, `rg ${rgArgs.join(' ')} finds something: the case is about matches`)
  assert.deepEqual(asRgLines(content), want, `content: ${JSON.stringify(options)}`)
  assert.equal(content.truncated, false)
  const counts = await searchFiles({ ...ALL, ...options, outputMode: 'count' })
  assert.deepEqual(asRgCounts(counts), rg(['--count', ...rgArgs]).sort(), `counts: ${JSON.stringify(options)}`)
  const files = await searchFiles({ ...ALL, ...options, outputMode: 'files' })
  assert.deepEqual([...files.files].sort(), rg(['--files-with-matches', ...rgArgs]).sort(), `files: ${JSON.stringify(options)}`)
  return content
}

// ---------------------------------------------------------------- against ripgrep

describe('against ripgrep', { skip: NO_RG }, () => {
  test('type: one name, a list, and a type of names without an extension (make, cmake)', async () => {
    await sameAsRg({ pattern: 'TODO', type: 'js' }, ['-t', 'js', 'TODO'])
    await sameAsRg({ pattern: 'TODO', type: ['py', 'rust', 'md'] }, ['-t', 'py', '-t', 'rust', '-t', 'md', 'TODO'])
    await sameAsRg({ pattern: 'TODO', type: ['make', 'cmake'] }, ['-t', 'make', '-t', 'cmake', 'TODO'])
  })

  test('exclude: a folder and a name glob, as rg -g !GLOB', async () => {
    const r = await sameAsRg({ pattern: 'TODO', exclude: ['src/lib', '*.md'] }, ['-g', '!src/lib', '-g', '!*.md', 'TODO'])
    assert.ok(!r.matches.some((m) => m.file.startsWith('src/lib/') || m.file.endsWith('.md')))
    assert.ok(r.matches.some((m) => m.file.startsWith('src/')))
  })

  test('maxPerFile: at most N lines per file, and counts of at most N (rg -m)', async () => {
    for (const n of [1, 2, 5]) {
      const r = await sameAsRg({ pattern: 'TODO', maxPerFile: n }, ['-m', String(n), 'TODO'])
      const perFile = new Map()
      for (const m of r.matches) perFile.set(m.file, [...(perFile.get(m.file) ?? []), m])
      assert.ok([...perFile.values()].every((lines) => lines.length <= n))
      assert.ok([...perFile.values()].some((lines) => lines.length === n))
      assert.equal(r.matchCount, r.matches.length, 'matchCount counts at most N per file')
    }
    // The model text says the counted total.
    const text = formatSearchResult(await searchFiles({ ...ALL, pattern: 'TODO', maxPerFile: 1, fileGlob: 'many.txt' }))
    assert.match(text, /^many\.txt\n1: TODO line$/m)
    assert.doesNotMatch(text, /many\.txt:2:/)
  })

  test('literal: regex characters are text (rg -F), with and without ignoreCase', async () => {
    for (const pattern of ['foo(', 'a.b', '[bracket]', 'price $5']) {
      await sameAsRg({ pattern, literal: true }, ['-F', '-e', pattern])
    }
    await sameAsRg({ pattern: 'TODO AND', literal: true, ignoreCase: true }, ['-F', '-i', '-e', 'TODO AND'])
    // a.b as text does not match axb; as a regex it does.
    const lit = await searchFiles({ ...ALL, pattern: 'a.b', literal: true })
    assert.ok(lit.matches.every((m) => m.match.includes('a.b')))
    const re = await searchFiles({ ...ALL, pattern: 'a.b' })
    assert.ok(re.matchCount > lit.matchCount)
  })

  test('multiline: a match spans lines (rg -U); `.` stops at a line end unless (?s)', async () => {
    const r = await sameAsRg({ pattern: 'begin\\n\\s*end', multiline: true }, ['-U', 'begin\\n\\s*end'])
    const m = r.matches[0]
    assert.match(m.match, /^begin\n {2}end$/, 'the match holds its lines')
    await sameAsRg({ pattern: '(?s)start here.*?and stop', multiline: true }, ['-U', '(?s)start here.*?and stop'])
    // Without (?s), `.` does not cross a line end: nothing spans "start here\n...".
    const dot = await searchFiles({ ...ALL, pattern: 'start here.+stop', multiline: true })
    assert.equal(dot.matchCount, 0)
    // Line by line, `\n` is refused (as rg refuses it without -U), saying what to do.
    await assert.rejects(searchFiles({ ...ALL, pattern: 'begin\\n\\s*end' }), (err) => {
      assert.equal(err.code, 'invalid-pattern')
      assert.match(err.message, /set `multiline: true`/)
      return true
    })
    // With maxPerFile, multiline counts as rg -U -m does.
    // Matches in a row, even on touching lines: the lines and counts are rg's.
    const chained = '(?:TODO|FIXME).*\\n.*(?:TODO|FIXME)'
    const notMany = { exclude: ['many.txt'] }
    await sameAsRg({ pattern: chained, multiline: true, ...notMany }, ['-U', '-g', '!many.txt', chained])
    for (const n of [1, 2]) {
      await sameAsRg({ pattern: chained, multiline: true, maxPerFile: n, ...notMany }, ['-U', '-m', String(n), '-g', '!many.txt', chained])
    }
    // 50 lines in one run of matches: its text holds the first 20 and says how many more; its count is rg's.
    const many = await searchFiles({ ...ALL, pattern: chained, multiline: true, fileGlob: 'many.txt' })
    const lines = many.matches.flatMap((m) => m.match.split('\n'))
    assert.deepEqual(lines, [...Array(20).fill('TODO line'), '…[30 more lines]'])
    // One item holding 25 matches: nothing is left out, even with maxResults 1; across the tree, more runs are.
    const one = await searchFiles({ ...ALL, pattern: chained, multiline: true, fileGlob: 'many.txt', maxResults: 1 })
    assert.deepEqual([one.matches.length, one.matchCount, one.truncated], [1, 25, false])
    const cut = await searchFiles({ ...ALL, pattern: chained, multiline: true, maxResults: 2 })
    assert.deepEqual([cut.matches.length, cut.truncated], [2, true])
    const manyCount = await searchFiles({ ...ALL, pattern: chained, multiline: true, fileGlob: 'many.txt', outputMode: 'count' })
    assert.deepEqual(asRgCounts(manyCount), rg(['--count', '-U', '-g', 'many.txt', chained]))
    // The model text gives each line of a match its own number, as rg does.
    const text = formatSearchResult(r)
    assert.match(text, new RegExp(`^${m.line + 1}:   end$`, 'm'))
    assert.match(text, new RegExp(`^${m.file.replace(/\./g, '\\.')}$`, 'm'))
  })

  test('patterns: any of several (rg -e A -e B); each match names the patterns that match it', async () => {
    const patterns = ['TODO', 'FIXME', 'foo\\(']
    const r = await sameAsRg({ patterns }, patterns.flatMap((p) => ['-e', p]))
    const regexes = patterns.map((p) => new RegExp(p))
    for (const m of r.matches) {
      const want = regexes.flatMap((re, i) => (re.test(m.match) ? [i] : []))
      assert.deepEqual(m.patterns, want, `${m.file}:${m.line}: ${m.match}`)
    }
    assert.ok(r.matches.some((m) => m.patterns.length === 2), 'a line matching two patterns names both')
    // `pattern` with `patterns`: `pattern` is index 0.
    const both = await sameAsRg({ pattern: 'import', patterns: ['FIXME'] }, ['-e', 'import', '-e', 'FIXME'])
    assert.ok(both.matches.some((m) => m.patterns[0] === 0) && both.matches.some((m) => m.patterns.includes(1)))
    // Literal patterns, case ignored.
    await sameAsRg({ patterns: ['a.b', 'foo('], literal: true, ignoreCase: true }, ['-F', '-i', '-e', 'a.b', '-e', 'foo('])
    // A single `pattern` reports no indexes.
    const one = await searchFiles({ ...ALL, pattern: 'TODO' })
    assert.ok(one.matches.every((m) => !('patterns' in m) || m.patterns === undefined || m.patterns === null))
  })

  test('all together: type, exclude, maxPerFile, literal and patterns', async () => {
    await sameAsRg(
      { patterns: ['TODO', 'a.b'], literal: true, type: ['js', 'py', 'txt'], exclude: ['gen'], maxPerFile: 3 },
      ['-F', '-e', 'TODO', '-e', 'a.b', '-t', 'js', '-t', 'py', '-t', 'txt', '-g', '!gen', '-m', '3'],
    )
  })
})

// ---------------------------------------------------------------- the same on a reader and an index

const SAME = [
  { pattern: 'TODO', type: ['js', 'md'] },
  { pattern: '*', target: 'files', type: 'rust' },
  { pattern: 'f1', target: 'files', fuzzy: true, type: 'py' },
  { pattern: 'TODO', exclude: ['docs', '*.txt'] },
  { pattern: 'TODO', maxPerFile: 2, outputMode: 'count' },
  { pattern: 'foo(', literal: true },
  { pattern: 'a.b', literal: true, ignoreCase: true },
  { pattern: 'begin\\n\\s*end', multiline: true },
  { pattern: '(?s)start here.*?and stop', multiline: true, outputMode: 'count' },
  { patterns: ['FIXME', 'fn main', 'a\\.b'] },
  { patterns: ['(?i)todo', 'x'], maxPerFile: 1 },
  { patterns: ['(?<=call )foo', 'FIXME'] },
  { pattern: '(?<=begin)\\n\\s*end', multiline: true },
  { pattern: 'begin\n  END', literal: true, multiline: true, ignoreCase: true },
]

describe('the same answers on disk, on a memoryReader and on a live index', () => {
  test('each case', async (t) => {
    const reader = memoryReader(FILES)
    const index = await openIndex(tmp)
    t.after(() => index.close())
    await index.settled()
    for (const q of SAME) {
      const fresh = await searchFiles({ ...q, ...ALL })
      assert.ok(fresh.matchCount > 0, `the case finds something: ${JSON.stringify(q)}`)
      const viaReader = await searchFiles({ ...q, maxResults: ALL.maxResults, reader, cwd: '/' })
      // A reader's files share one mtime: files listed newest first come by path.
      if (fresh.files && !q.fuzzy) fresh.files.sort()
      assert.deepEqual({ ...viaReader, path: fresh.path }, fresh, `reader: ${JSON.stringify(q)}`)
      const again = await searchFiles({ ...q, ...ALL })
      if (again.files && !q.fuzzy) again.files.sort()
      for (const round of ['first', 'second (sketches)']) {
        const got = await index.searchFiles({ ...q, maxResults: ALL.maxResults })
        if (got.files && !q.fuzzy) got.files.sort()
        assert.deepEqual(got, again, `index, ${round} search: ${JSON.stringify(q)}`)
      }
    }
  })
})

// ---------------------------------------------------------------- an empty search's hints

describe('the near-miss notice of a search that found nothing', () => {
  test('literal: no advice to escape (the text is already literal), but case is still offered', async () => {
    const r = await searchFiles({ ...ALL, pattern: 'FOO(BAR)', literal: true })
    assert.equal(r.matchCount, 0)
    assert.match(r.notice ?? '', /set `ignoreCase: true`/)
    assert.doesNotMatch(r.notice ?? '', /escape/)
    const regex = await searchFiles({ ...ALL, pattern: 'foo(bar)' })
    assert.match(regex.notice ?? '', /escape the regex characters/, 'as a regex, the literal reading is offered')
  })
  test('several patterns or multiline: no near reading is offered', async () => {
    const several = await searchFiles({ ...ALL, patterns: ['FOO\\(BAR', 'never_written'] })
    assert.equal(several.matchCount, 0)
    assert.doesNotMatch(several.notice ?? '', /ignoreCase|escape/)
    const multi = await searchFiles({ ...ALL, pattern: 'BEGIN\\n', multiline: true })
    assert.equal(multi.matchCount, 0)
    assert.doesNotMatch(multi.notice ?? '', /ignoreCase|escape/)
  })
})

// ---------------------------------------------------------------- fileTypes, errors, CLI

describe('fileTypes()', () => {
  test("ripgrep's types, name -> globs", () => {
    const types = fileTypes()
    assert.ok(Object.keys(types).length > 100)
    assert.ok(types.js.includes('*.js'))
    assert.ok(types.rust.includes('*.rs'))
    assert.ok(types.py.includes('*.py'))
    const names = Object.keys(types)
    assert.deepEqual(names, [...names].sort(), 'in name order')
  })
})

describe('bad input is invalid-argument (or invalid-pattern) with a message saying what to do', () => {
  const rejects = async (options, code, re) => {
    await assert.rejects(searchFiles({ cwd: tmp, ...options }), (err) => {
      assert.ok(err instanceof FindFilesError, String(err))
      assert.equal(err.code, code, err.message)
      assert.match(err.message, re)
      return true
    })
  }
  test('type', async () => {
    await rejects({ pattern: 'x', type: 'pyton' }, 'invalid-argument', /'pyton' is not a ripgrep file type.*'python'/)
    await rejects({ pattern: 'x', type: 'rsut' }, 'invalid-argument', /did you mean/)
    await rejects({ pattern: 'x', type: 'zzzzzzzz' }, 'invalid-argument', /fileTypes\(\)/)
    await rejects({ pattern: 'x', type: 3 }, 'invalid-argument', /type/)
  })
  test('exclude', async () => {
    await rejects({ pattern: 'x', exclude: 'dist' }, 'invalid-argument', /exclude/)
  })
  test('maxPerFile', async () => {
    for (const bad of [0, -1, 1.5, '2', NaN]) await rejects({ pattern: 'x', maxPerFile: bad }, 'invalid-argument', /maxPerFile/)
    await rejects({ pattern: 'x', target: 'files', maxPerFile: 2 }, 'invalid-argument', /content search only/)
  })
  test('literal and multiline', async () => {
    await rejects({ pattern: 'x', literal: 'yes' }, 'invalid-argument', /literal/)
    await rejects({ pattern: 'x', target: 'files', literal: true }, 'invalid-argument', /content search only/)
    await rejects({ pattern: 'x', target: 'files', multiline: true }, 'invalid-argument', /content search only/)
    await rejects({ pattern: 'a(', multiline: true }, 'invalid-pattern', /a match may span lines/)
  })
  test('patterns', async () => {
    await rejects({ patterns: ['a', ''] }, 'invalid-argument', /empty pattern/)
    await rejects({ patterns: 'a' }, 'invalid-argument', /patterns/)
    await rejects({ patterns: ['a', 1] }, 'invalid-argument', /patterns/)
    await rejects({ patterns: ['ok', '('] }, 'invalid-pattern', /in pattern 1 \(`\(`\)/)
    await rejects({ pattern: 'ok', patterns: ['('] }, 'invalid-pattern', /in pattern 1/)
    await rejects({ patterns: ['a'], target: 'files' }, 'invalid-argument', /content search only/)
    await rejects({ patterns: Array(1001).fill('a') }, 'invalid-argument', /limit is 1000/)
    await rejects({}, 'invalid-argument', /`pattern` is empty/)
    // An empty list is the default, as if left out.
    await rejects({ patterns: [] }, 'invalid-argument', /`pattern` is empty/)
    const withEmpty = await searchFiles({ ...ALL, pattern: 'TODO', patterns: [], type: [] })
    assert.deepEqual(withEmpty, await searchFiles({ ...ALL, pattern: 'TODO' }))
  })
})

describe('CLI', () => {
  const cli = (...args) => spawnSync(process.execPath, [BIN, 'search', ...args], { cwd: tmp, encoding: 'utf8' })
  test('-t, -e, -F, -U, -m, --exclude and --type-list', () => {
    const typed = cli('TODO', '-t', 'py', '--mode', 'files', '--json')
    assert.equal(typed.status, 0, typed.stderr)
    assert.ok(JSON.parse(typed.stdout).files.every((f) => f.endsWith('.py')))
    const several = cli('-e', 'FIXME', '-e', 'fn main', '--json', 'src')
    assert.equal(several.status, 0, several.stderr)
    const r = JSON.parse(several.stdout)
    assert.ok(r.matches.length > 0 && r.matches.every((m) => m.patterns.length > 0))
    assert.ok(r.path.endsWith('src'))
    const fixed = cli('foo(', '-F', '--json')
    assert.equal(fixed.status, 0, fixed.stderr)
    assert.ok(JSON.parse(fixed.stdout).matches.length > 0)
    const multi = cli('begin\\n\\s*end', '-U', '-m', '1', '--exclude', 'docs', '--json')
    assert.equal(multi.status, 0, multi.stderr)
    assert.ok(JSON.parse(multi.stdout).matches.every((m) => m.match.includes('\n') && !m.file.startsWith('docs/')))
    const list = spawnSync(process.execPath, [BIN, 'search', '--type-list'], { encoding: 'utf8' })
    assert.equal(list.status, 0, list.stderr)
    assert.match(list.stdout, /^rust: \*\.rs$/m)
    const bad = cli('x', '-t', 'pyton')
    assert.equal(bad.status, 2, bad.stderr)
    assert.match(bad.stderr, /python/)
  })
})

test('the test tree is as generated', () => {
  assert.equal(fs.readFileSync(path.join(tmp, 'many.txt'), 'utf8').split('\n').length, 51)
})
