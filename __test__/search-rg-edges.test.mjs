// Content search where ripgrep's answer is easy to get wrong, on small
// hand-made files, each answer held to ripgrep 14.1's own (the rg found by
// `ripgrepPath`; in CI, none fails the run) and to the values rg 14.1 printed
// for them, written out so the cases say what they check even without rg:
// - `multiline` counts (rg --count -U): a pattern that cannot match a line end
//   is searched line by line (a line counts once), one that can counts the
//   matches of each reported run; with maxPerFile, as rg -m N counts;
// - `multiline` count and files output page by file: the cursor and offset
//   they hand out work; content output hands out none, also when partial;
// - `maxPerFile` with `after`/`context`: the last allowed match keeps its
//   after lines, as rg -m N -A prints them;
// - a `multiline` match past a long line's cut is shown around it, with
//   rg --column's column.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, test } from 'node:test'

import { FindFilesError, formatSearchResult, searchFiles } from '../index.mjs'
import { ripgrepPath, seededRandom, tmpTree } from './helpers.mjs'

const RG = ripgrepPath()
const LEAD_MARK = '[line cut]… '

/** rg's output lines over `dir`, `./` taken off (none: exit 1). */
function rg(dir, args) {
  const r = spawnSync(RG, ['--no-config', '--no-heading', '--with-filename', '--color', 'never', ...args, '.'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  assert.ok(r.status === 0 || r.status === 1, `rg ${args.join(' ')}: ${r.stderr}`)
  return r.stdout.split('\n').filter(Boolean).map((l) => l.replace(/^\.\//, ''))
}

const byFileLine = (a, b) => {
  const [fa, la] = /^(.*?)[:-](\d+)[:-]/.exec(a).slice(1)
  const [fb, lb] = /^(.*?)[:-](\d+)[:-]/.exec(b).slice(1)
  return fa < fb ? -1 : fa > fb ? 1 : Number(la) - Number(lb)
}

/** Our matches (each line of a multiline one under its number) and their context lines, as rg -n prints them. */
function asRg(result) {
  const out = []
  for (const m of result.matches) {
    for (const c of m.before ?? []) out.push(`${m.file}-${c.line}-${c.text}`)
    m.match.split('\n').forEach((text, i) => out.push(`${m.file}:${m.line + i}:${text}`))
    for (const c of m.after ?? []) out.push(`${m.file}-${c.line}-${c.text}`)
  }
  return [...new Set(out)].sort(byFileLine)
}
const counts = (r) => Object.fromEntries(r.counts.map((c) => [c.file, c.count]))
const rgCounts = (lines) => Object.fromEntries(lines.map((l) => [l.slice(0, l.lastIndexOf(':')), Number(l.slice(l.lastIndexOf(':') + 1))]))

const MULTI = {
  'a.txt': 'fn fn fn\n',
  'b.txt': 'a\nb\nx\na\nb\n',
  'c.txt': 'xa\nb a\nb y\nq\n',
  'd.txt': 'a\nb\nc\nd\n',
  'e.txt': 'a\nb a\nb\nx\na\nb\nz\na\nb\n',
  'f.txt': 'fn\nfn fn\nx\nfn\n',
}

describe('multiline counts are rg --count -U\'s', () => {
  // What rg 14.1 prints for MULTI (rg -U --count [-m N]), by pattern, then N (0: no -m).
  const PRINTED = {
    fn: { 0: { 'a.txt': 1, 'f.txt': 3 }, 1: { 'a.txt': 1, 'f.txt': 1 }, 2: { 'a.txt': 1, 'f.txt': 2 } },
    'fn\\s?': { 0: { 'a.txt': 3, 'f.txt': 4 }, 1: { 'a.txt': 3, 'f.txt': 3 } },
    'a\\nb': {
      0: { 'b.txt': 2, 'c.txt': 2, 'd.txt': 1, 'e.txt': 4 },
      1: { 'b.txt': 1, 'c.txt': 2, 'd.txt': 1, 'e.txt': 2 },
      2: { 'b.txt': 2, 'c.txt': 2, 'd.txt': 1, 'e.txt': 2 },
      3: { 'b.txt': 2, 'c.txt': 2, 'd.txt': 1, 'e.txt': 3 },
    },
    'fn|x\\n': { 0: { 'a.txt': 3, 'b.txt': 1, 'e.txt': 1, 'f.txt': 5 }, 1: { 'a.txt': 3, 'b.txt': 1, 'e.txt': 1, 'f.txt': 5 } },
  }

  test('a line-only pattern counts lines, one that can match a line end counts matches, maxPerFile as rg -m N counts', async (t) => {
    const dir = tmpTree(t, MULTI)
    for (const [pattern, byMax] of Object.entries(PRINTED)) {
      for (const [max, want] of Object.entries(byMax)) {
        const maxPerFile = Number(max) || undefined
        const what = `${pattern}, maxPerFile ${maxPerFile}`
        const r = await searchFiles({ cwd: dir, pattern, multiline: true, outputMode: 'count', maxPerFile })
        assert.deepEqual(counts(r), want, what)
        assert.equal(r.matchCount, Object.values(want).reduce((a, b) => a + b), what)
      }
    }
  })

  test('count, content and files output equal rg -U --count, rg -U -n and rg -U -l, with and without -m', { skip: !RG && 'no rg' }, async (t) => {
    const dir = tmpTree(t, MULTI)
    for (const pattern of [...Object.keys(PRINTED), '\\n', '(?s)a.*d', 'a\\nb\\nc', 'b a\\n', '^b']) {
      for (const max of [0, 1, 2, 3]) {
        const maxPerFile = max || undefined
        const m = max ? ['-m', String(max)] : []
        const what = `${pattern}, maxPerFile ${maxPerFile}`
        const options = { cwd: dir, pattern, multiline: true, maxPerFile }
        const count = await searchFiles({ ...options, outputMode: 'count' })
        assert.deepEqual(counts(count), rgCounts(rg(dir, ['-U', '--count', ...m, '-e', pattern])), `count: ${what}`)
        if (PRINTED[pattern]?.[max]) assert.deepEqual(counts(count), PRINTED[pattern][max], `rg 14.1's printed counts: ${what}`)
        const content = await searchFiles({ ...options })
        assert.deepEqual(asRg(content), rg(dir, ['-U', '-n', ...m, '-e', pattern]).sort(byFileLine), `content: ${what}`)
        // Content output stops after N reported runs (as rg -n -m N), so it counts at least what count output counts.
        if (max) assert.ok(content.matchCount >= count.matchCount, what)
        else assert.equal(content.matchCount, count.matchCount, what)
        const perFile = new Map()
        for (const x of content.matches) perFile.set(x.file, (perFile.get(x.file) ?? 0) + 1)
        if (max) assert.ok([...perFile.values()].every((n) => n <= max), `at most N items a file: ${what}`)
        const files = await searchFiles({ ...options, outputMode: 'files' })
        assert.deepEqual([...files.files].sort(), rg(dir, ['-U', '-l', ...m, '-e', pattern]).sort(), `files: ${what}`)
      }
    }
  })

  test('content output: N runs a file, counted match by match', async (t) => {
    const dir = tmpTree(t, { 'e.txt': MULTI['e.txt'] })
    // Runs: lines 1-3 (2 matches), 5-6 and 8-9. rg -U -n -m 2 prints the first two runs; rg -U --count -m 2 prints 2.
    const content = await searchFiles({ cwd: dir, pattern: 'a\\nb', multiline: true, maxPerFile: 2 })
    assert.deepEqual(content.matches.map((m) => [m.line, m.match]), [[1, 'a\nb a\nb'], [5, 'a\nb']])
    assert.equal(content.matchCount, 3)
    const count = await searchFiles({ cwd: dir, pattern: 'a\\nb', multiline: true, maxPerFile: 2, outputMode: 'count' })
    assert.equal(count.matchCount, 2)
    // A line-only pattern: three items on three lines, each counted once.
    const lines = await searchFiles({ cwd: dir, pattern: 'a|b', multiline: true })
    assert.equal(lines.matchCount, 7)
  })
})

describe('multiline paging', () => {
  /** Seven files of 1 to 7 runs, each file a minute newer than the one before. */
  function spec() {
    const out = {}
    for (let i = 1; i <= 7; i++) out[`f${i}.txt`] = { content: 'a\nb\nx\n'.repeat(i), mtime: new Date(Date.UTC(2024, 0, 1, 0, i)) }
    return out
  }
  const items = (r) => r.counts ?? r.files ?? r.matches

  for (const outputMode of ['count', 'files']) {
    test(`${outputMode} output: the cursor and offset page by file, to the whole answer`, async (t) => {
      const dir = tmpTree(t, spec())
      const options = { cwd: dir, pattern: 'a\\nb', multiline: true, outputMode }
      const full = await searchFiles({ ...options, maxResults: 500 })
      assert.equal(items(full).length, 7)
      if (outputMode === 'files') assert.deepEqual(full.files, ['f7.txt', 'f6.txt', 'f5.txt', 'f4.txt', 'f3.txt', 'f2.txt', 'f1.txt'], 'newest first')
      else assert.deepEqual(full.counts.map((c) => c.count), [1, 2, 3, 4, 5, 6, 7])
      const got = []
      let cursor
      for (let page = 0; ; page++) {
        assert.ok(page < 10, 'the pages end')
        const r = await searchFiles({ ...options, maxResults: 2, cursor })
        const text = formatSearchResult(r)
        assert.equal(/Next page: call again with the same options and `cursor: "/.test(text), Boolean(r.cursor), 'the text offers a next page exactly when there is a cursor')
        assert.equal(r.truncated, Boolean(r.cursor))
        assert.equal(r.matchCount, full.matchCount, 'every page counts the whole answer')
        if (page > 0) assert.equal(r.offset, got.length)
        got.push(...items(r))
        if (!r.cursor) break
        cursor = r.cursor
      }
      assert.deepEqual(got, items(full))
      const byOffset = await searchFiles({ ...options, maxResults: 3, offset: 2 })
      assert.deepEqual([items(byOffset), byOffset.offset], [items(full).slice(2, 5), 2])
    })
  }

  test('content output hands out no cursor, and refuses one and offset, saying what pages', async (t) => {
    const dir = tmpTree(t, spec())
    const options = { cwd: dir, pattern: 'a\\nb', multiline: true }
    const r = await searchFiles({ ...options, maxResults: 2 })
    assert.deepEqual([r.matches.length, r.truncated, r.cursor], [2, true, undefined])
    const text = formatSearchResult(r)
    assert.doesNotMatch(text, /Next page/)
    assert.match(text, /showing the first 2; narrow the pattern or `path`, or raise `maxResults`/)
    for (const page of [{ offset: 2 }, { cursor: (await searchFiles({ ...options, outputMode: 'count', maxResults: 2 })).cursor }]) {
      await assert.rejects(searchFiles({ ...options, ...page }), (e) => {
        assert.ok(e instanceof FindFilesError)
        assert.equal(e.code, 'invalid-argument')
        return true
      })
    }
    await assert.rejects(searchFiles({ ...options, offset: 2 }), /do not page a `multiline` search in `content` output.*`outputMode: 'count'` or `'files'`, which page by file/)
  })

  test('partial: count output continues by its cursor to the whole answer; content output, cut short, says how to get the rest', { timeout: 120_000 }, async (t) => {
    const spec = {}
    for (let i = 0; i < 3000; i++) spec[`d${i % 30}/f${String(i).padStart(4, '0')}.txt`] = `line\n${i % 3 === 0 ? 'needle\nhere\n' : ''}${'padding text\n'.repeat(40)}`
    const dir = tmpTree(t, spec)
    const options = { cwd: dir, pattern: 'needle\\nhere', multiline: true, maxResults: 500, partial: true }
    const full = []
    for (let cursor; ;) {
      const r = await searchFiles({ ...options, outputMode: 'count', cursor })
      full.push(...r.counts)
      if (!(cursor = r.cursor)) break
    }
    assert.equal(full.length, 1000)
    // A 1 ms budget does not cover 3000 files (as in search-pages).
    const first = await searchFiles({ ...options, outputMode: 'count', timeoutMs: 1 })
    assert.equal(first.incomplete, true)
    assert.equal(typeof first.cursor, 'string')
    const got = [...first.counts]
    for (let cursor = first.cursor, calls = 0; cursor; calls++) {
      assert.ok(calls < 3000, 'the calls end')
      const r = await searchFiles({ ...options, outputMode: 'count', timeoutMs: 200, cursor })
      got.push(...r.counts)
      cursor = r.cursor
    }
    assert.deepEqual(got, full)
    const content = await searchFiles({ ...options, timeoutMs: 1 })
    assert.deepEqual([content.incomplete, content.cursor], [true, undefined])
    const text = formatSearchResult(content)
    assert.doesNotMatch(text, /Next page/)
    assert.match(text, /Search incomplete: .* To search the rest, call again with a larger `timeoutMs` or a narrower `path`\./)
  })
})

describe('maxPerFile with after or context lines: the last allowed match keeps its after lines, as rg -m N -A', () => {
  const FILES = {
    's.txt': 'needle\na\nb\nc\nneedle\n',
    's2.txt': 'needle\na\nneedle\nb\nc\nneedle\nd\n',
    's3.txt': 'x\nneedle\nneedle\nneedle\ny\n',
  }

  test('the lines rg -m 1 -A 2 prints, a match among them shown as context', async (t) => {
    const dir = tmpTree(t, FILES)
    const r = await searchFiles({ cwd: dir, pattern: 'needle', maxPerFile: 1, after: 2 })
    const shape = r.matches.map((m) => [m.file, m.line, (m.after ?? []).map((c) => `${c.line}-${c.text}`)])
    assert.deepEqual(shape, [
      ['s.txt', 1, ['2-a', '3-b']],
      ['s2.txt', 1, ['2-a', '3-needle']],
      ['s3.txt', 2, ['3-needle', '4-needle']],
    ])
    assert.equal(r.matchCount, 3, 'at most one a file, as rg --count -m 1')
    // The model text: the lines rg -n -m 1 -A 2 prints.
    assert.match(formatSearchResult(r), /\ns2\.txt\n1: needle\n2- a\n3- needle\ns3\.txt\n2: needle\n3- needle\n4- needle$/)
    // Multiline: after the last line of the match.
    const multi = await searchFiles({ cwd: dir, pattern: 'needle\\na', multiline: true, maxPerFile: 1, after: 2, fileGlob: 's2.txt' })
    assert.deepEqual(multi.matches, [{ file: 's2.txt', line: 1, match: 'needle\na', after: [{ line: 3, text: 'needle' }, { line: 4, text: 'b' }] }])
  })

  /**
   * rg's lines with the matches past N in a file (which rg -m prints in the
   * last one's after lines) written as context, as grep -m writes them.
   * `multiline`: a match is a run of matching lines in a row.
   */
  function limited(lines, n, multiline = false) {
    const seen = new Map()
    let last = null
    return lines.filter((l) => l !== '--').map((l) => {
      const m = /^(.*?):(\d+):(.*)$/.exec(l)
      const here = m && `${m[1]}:${Number(m[2])}`
      const goesOn = multiline && m && last === `${m[1]}:${Number(m[2]) - 1}`
      last = here
      if (!m) return l
      const k = (seen.get(m[1]) ?? 0) + (goesOn ? 0 : 1)
      seen.set(m[1], k)
      return k > n ? `${m[1]}-${m[2]}-${m[3]}` : l
    })
  }

  test('on generated files: the same lines as rg -n -m N -A/-B/-C', { skip: !RG && 'no rg' }, async (t) => {
    const next = seededRandom(11)
    const words = ['needle', 'x', 'needle y', 'z', 'w']
    const spec = {}
    for (let i = 0; i < 12; i++) {
      spec[`g${i}.txt`] = `${Array.from({ length: 5 + Math.floor(next() * 25) }, () => words[Math.floor(next() * words.length)]).join('\n')}\n`
    }
    const dir = tmpTree(t, spec)
    let withTrailingMatch = 0
    for (const n of [1, 2, 3]) {
      for (const [options, flags] of [
        [{ after: 1 }, ['-A', '1']],
        [{ after: 3 }, ['-A', '3']],
        [{ context: 2 }, ['-C', '2']],
        [{ before: 1, after: 2 }, ['-B', '1', '-A', '2']],
      ]) {
        const r = await searchFiles({ cwd: dir, pattern: 'needle', maxPerFile: n, ...options, maxResults: 500 })
        const theirs = rg(dir, ['-n', '-m', String(n), ...flags, 'needle'])
        assert.deepEqual(asRg(r), limited(theirs, n).sort(byFileLine), `maxPerFile ${n}, ${JSON.stringify(options)}`)
        const isMatch = (l) => /^.*?:\d+:/.test(l)
        withTrailingMatch += theirs.filter(isMatch).length - limited(theirs, n).filter(isMatch).length
        const count = await searchFiles({ cwd: dir, pattern: 'needle', maxPerFile: n, outputMode: 'count' })
        assert.deepEqual(counts(count), rgCounts(rg(dir, ['--count', '-m', String(n), 'needle'])))
      }
    }
    assert.ok(withTrailingMatch > 0, 'some case has a match inside the last allowed one\'s after lines')
    // Multiline: runs of matches, a later run inside the after lines counting as one line of them.
    let trailingRuns = 0
    for (const pattern of ['needle\\n(?:x|z)', 'w\\nneedle', 'needle\\n']) {
      for (const n of [1, 2]) {
        for (const [options, flags] of [[{ after: 1 }, ['-A', '1']], [{ after: 3 }, ['-A', '3']], [{ context: 2 }, ['-C', '2']]]) {
          const what = `${pattern}, maxPerFile ${n}, ${JSON.stringify(options)}`
          const r = await searchFiles({ cwd: dir, pattern, multiline: true, maxPerFile: n, ...options, maxResults: 500 })
          const theirs = rg(dir, ['-U', '-n', '-m', String(n), ...flags, '-e', pattern])
          assert.ok(theirs.length > 0, what)
          // Deduplicated: rg 14.1 -U prints some after lines twice (`g2.txt-4-x` after a run ending on line 3).
          assert.deepEqual(asRg(r), [...new Set(limited(theirs, n, true))].sort(byFileLine), what)
          const isMatch = (l) => /^.*?:\d+:/.test(l)
          trailingRuns += theirs.filter(isMatch).length - limited(theirs, n, true).filter(isMatch).length
        }
      }
    }
    assert.ok(trailingRuns > 0, 'some multiline case has a run inside the last allowed one\'s after lines')
  })
})

describe('a multiline match past a long line\'s cut is shown around it', () => {
  const LONG = {
    'l.txt': `${'y'.repeat(3000)} needle here\nnext line\n`,
    'l2.txt': `a\n${'y'.repeat(3000)}b\nc\n`,
  }

  test('with its column, as rg -U --column gives it, and in the model text', async (t) => {
    const dir = tmpTree(t, LONG)
    for (const pattern of ['needle', 'needle here\\nnext']) {
      const r = await searchFiles({ cwd: dir, pattern, multiline: true })
      assert.equal(r.matches.length, 1, pattern)
      const [m] = r.matches
      const first = m.match.split('\n')[0]
      assert.ok(first.startsWith(LEAD_MARK) && first.includes(' needle here'), `${pattern}: ${first.slice(0, 40)}`)
      assert.ok(first.length < 600, 'a window, not the line')
      assert.equal(m.column, 3002, pattern)
      const plain = (await searchFiles({ cwd: dir, pattern: 'needle' })).matches[0]
      if (pattern === 'needle') assert.deepEqual(m, plain, 'a line-only pattern: the same as without multiline')
      if (RG) assert.equal(Number(rg(dir, ['-U', '-n', '--column', '-e', pattern])[0].split(':')[2]), m.column, `rg --column: ${pattern}`)
      // The model text shows its first line as a line-by-line search shows it.
      const text = formatSearchResult(r).split('\n')
      const plainText = formatSearchResult(await searchFiles({ cwd: dir, pattern: 'needle' })).split('\n')
      assert.match(plainText[3], /^1: \[line cut\]… y+ needle here$/)
      assert.deepEqual(text.slice(2, 4), plainText.slice(2, 4), pattern)
      if (pattern.includes('\\n')) assert.equal(text[4], '2: next line')
    }
    // A run whose second line holds a match past the cut: that line too is shown around it.
    const run = await searchFiles({ cwd: dir, pattern: 'a\\n|b\\nc', multiline: true })
    assert.equal(run.matches.length, 1)
    const lines = run.matches[0].match.split('\n')
    assert.deepEqual([lines.length, lines[0], lines[2]], [3, 'a', 'c'])
    assert.ok(lines[1].startsWith(LEAD_MARK) && lines[1].endsWith('yb'), lines[1].slice(0, 40))
    assert.equal(run.matches[0].column, undefined, 'a short first line has no column')
    assert.equal(run.matchCount, 2)
    if (RG) assert.deepEqual(counts(await searchFiles({ cwd: dir, pattern: 'a\\n|b\\nc', multiline: true, outputMode: 'count' })), rgCounts(rg(dir, ['-U', '--count', '-e', 'a\\n|b\\nc'])))
  })
})
