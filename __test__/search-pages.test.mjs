// searchFiles pages: `offset`, the `cursor` a truncated result hands back,
// and `partial` with `timeoutMs`. On generated trees, on disk, on a
// memoryReader and on an index: walking every page with the cursor (or with
// offsets) gives exactly the full answer; a cursor from other options is
// refused; an index changed between pages says so, a cursor made on disk and
// continued on an index does not; a newest-first file list edited between
// pages lists the modified files on later pages; a partial answer is a
// start of the full one and its cursor continues with the rest.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

import { createTools, searchFiles, formatSearchResult, memoryReader, openIndex } from '../index.mjs'
import { tmpTree, rejectsWith, seededRandom } from './helpers.mjs'

const T = 1_700_000_000_000 // ms

/** A tree of files holding 0-6 lines with `needle`, among other lines; distinct mtimes. */
function treeSpec(seed = 7, files = 40) {
  const rand = seededRandom(seed)
  const spec = {}
  for (let i = 0; i < files; i++) {
    const dir = ['src', 'src/lib', 'docs', 'test/deep/er', ''][i % 5]
    const name = `${dir ? `${dir}/` : ''}f${String(i).padStart(2, '0')}.txt`
    const lines = []
    const hits = Math.floor(rand() * 7)
    for (let h = 0; h < hits; h++) {
      lines.push(`filler ${h}`)
      if (rand() < 0.5) lines.push(`more filler ${h}`)
      lines.push(`the needle ${i}.${h}`)
    }
    lines.push('end')
    spec[name] = { content: lines.join('\n') + '\n', mtime: new Date(T + ((i * 7919) % files) * 60_000) }
  }
  return spec
}

function memoryFrom(spec) {
  const tree = new Map()
  for (const [file, { content, mtime }] of Object.entries(spec)) tree.set(file, { content, modifiedTime: mtime.getTime() })
  return { ...memoryReader(tree), mounted: true }
}

/** The items of a result, whichever mode. */
const items = (r) => r.matches ?? r.files ?? r.counts

const MODES = [
  ['content', { pattern: 'needle' }],
  ['files', { pattern: 'needle', outputMode: 'files' }],
  ['count', { pattern: 'needle', outputMode: 'count' }],
  ['name search', { pattern: '*.txt', target: 'files' }],
  ['fuzzy', { pattern: 'f1.txt', target: 'files', fuzzy: true }],
]

/** Every page of `options` by cursor, `size` at a time. */
async function walkByCursor(search, options, size) {
  const pages = []
  let cursor
  for (let guard = 0; guard < 1000; guard++) {
    const r = await search({ ...options, maxResults: size, ...(cursor ? { cursor } : {}) })
    pages.push(r)
    assert.ok(items(r).length <= size)
    if (!r.cursor) {
      assert.equal(r.truncated, false, 'the last page is not truncated')
      return pages
    }
    assert.equal(r.truncated, true, 'a page with a cursor is truncated')
    assert.equal(typeof r.cursor, 'string')
    cursor = r.cursor
  }
  throw new Error('the cursor walk did not end')
}

async function backends(t, spec) {
  const dir = tmpTree(t, spec)
  const index = await openIndex(dir)
  t.after(() => index.close())
  const reader = memoryFrom(spec)
  return [
    ['disk', (o) => searchFiles({ path: dir, ...o })],
    ['memoryReader', (o) => searchFiles({ reader, cwd: '/', ...o })],
    ['index', (o) => index.searchFiles(o)],
  ]
}

describe('the cursor walk over all pages equals the full result', () => {
  for (const [backendName] of [['disk'], ['memoryReader'], ['index']]) {
    for (const [mode, options] of MODES) {
      test(`${backendName}, ${mode}`, async (t) => {
        const search = (await backends(t, treeSpec())).find(([n]) => n === backendName)[1]
        const full = await search({ ...options, maxResults: 500 })
        assert.equal(full.truncated, false)
        assert.equal(full.cursor, undefined)
        assert.ok(items(full).length > 12, 'enough items for several pages')
        for (const size of [1, 5, 7]) {
          const pages = await walkByCursor(search, options, size)
          assert.deepEqual(pages.flatMap(items), items(full), `pages of ${size}`)
          for (const p of pages) assert.equal(p.matchCount, full.matchCount, 'every page counts the whole answer')
          // Offsets give the same pages.
          let before = 0
          for (const [i, p] of pages.entries()) {
            const byOffset = await search({ ...options, maxResults: size, offset: i * size })
            assert.deepEqual(items(byOffset), items(p), `offset ${i * size}`)
            if (i > 0) assert.equal(p.offset, before, 'a later page says how many items came before it')
            before += items(p).length
          }
        }
      })
    }
  }

  test('the order is path then line on every backend (files lists: newest first, ties by path)', async (t) => {
    const answers = []
    for (const [, search] of await backends(t, treeSpec(11))) {
      const content = await search({ pattern: 'needle', maxResults: 500 })
      const keys = content.matches.map((m) => [m.file, m.line])
      const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]))
      assert.deepEqual(keys, sorted)
      answers.push([content, await search({ pattern: 'needle', outputMode: 'files', maxResults: 500 })])
    }
    assert.deepEqual(answers[1], answers[0].map((r, i) => ({ ...r, path: answers[1][i].path })))
    assert.deepEqual(answers[2], answers[0])
  })

  test('a page ending inside a file continues on its next matching line (rg -n agrees)', async (t) => {
    const dir = tmpTree(t, { 'a.txt': 'x\nneedle 1\nneedle 2\ny\nneedle 3\n', 'b.txt': 'needle 4\n' })
    const p1 = await searchFiles({ path: dir, pattern: 'needle', maxResults: 2 })
    assert.deepEqual(p1.matches.map((m) => [m.file, m.line]), [['a.txt', 2], ['a.txt', 3]])
    const p2 = await searchFiles({ path: dir, pattern: 'needle', maxResults: 2, cursor: p1.cursor })
    assert.deepEqual(p2.matches.map((m) => [m.file, m.line]), [['a.txt', 5], ['b.txt', 1]])
    assert.equal(p2.cursor, undefined)
    assert.equal(p2.offset, 2)
    // offset and cursor add up.
    const p3 = await searchFiles({ path: dir, pattern: 'needle', maxResults: 5, cursor: p1.cursor, offset: 1 })
    assert.deepEqual(p3.matches.map((m) => [m.file, m.line]), [['b.txt', 1]])
    assert.equal(p3.offset, 3)
  })
})

test('an offset past the end: no items, the whole count, no cursor', async (t) => {
  for (const [name, search] of await backends(t, treeSpec())) {
    for (const [mode, options] of MODES) {
      const full = await search({ ...options, maxResults: 500 })
      const r = await search({ ...options, offset: 10_000 })
      assert.deepEqual(items(r), [], `${name} ${mode}`)
      assert.equal(r.matchCount, full.matchCount)
      assert.equal(r.truncated, false)
      assert.equal(r.cursor, undefined)
      assert.equal(r.offset, items(full).length, 'every item came before')
      assert.match(formatSearchResult(r), /No matches found\./)
    }
  }
})

test('without offset or cursor the result is as before: no offset, no cursor unless truncated', async (t) => {
  const dir = tmpTree(t, treeSpec())
  const r = await searchFiles({ path: dir, pattern: 'needle', maxResults: 500 })
  assert.deepEqual(Object.keys(r).filter((k) => r[k] !== undefined).sort(), ['fileCount', 'matchCount', 'matches', 'path', 'truncated'])
  const cut = await searchFiles({ path: dir, pattern: 'needle', maxResults: 3 })
  assert.equal(cut.offset, undefined)
  assert.equal(typeof cut.cursor, 'string')
})

describe('refused cursors and offsets', () => {
  test('a cursor from a search with other options is invalid-argument, saying so', async (t) => {
    const dir = tmpTree(t, treeSpec())
    const first = await searchFiles({ path: dir, pattern: 'needle', maxResults: 3 })
    for (const other of [
      { pattern: 'filler' },
      { pattern: 'needle', ignoreCase: true },
      { pattern: 'needle', outputMode: 'count' },
      { pattern: 'needle', fileGlob: '*.txt' },
      { pattern: 'needle', path: path.join(dir, 'src') },
    ]) {
      await rejectsWith(searchFiles({ path: dir, maxResults: 3, ...other, cursor: first.cursor }), 'invalid-argument', 'other options')
    }
    // The page options may change: maxResults and offset.
    const next = await searchFiles({ path: dir, pattern: 'needle', maxResults: 9, offset: 1, cursor: first.cursor })
    assert.ok(next.matches.length > 0)
  })

  test('a cursor that is not one, or was altered, is invalid-argument', async (t) => {
    const dir = tmpTree(t, treeSpec())
    const first = await searchFiles({ path: dir, pattern: 'needle', maxResults: 3 })
    const flip = (s, i) => s.slice(0, i) + (s[i] === '0' ? '1' : '0') + s.slice(i + 1)
    for (const bad of ['', 'abc', 'not a cursor', first.cursor.slice(0, -2), flip(first.cursor, 20), 'ff'.repeat(40000)]) {
      await rejectsWith(searchFiles({ path: dir, pattern: 'needle', cursor: bad }), 'invalid-argument', '`cursor`')
    }
    await rejectsWith(searchFiles({ path: dir, pattern: 'needle', cursor: 12 }), 'invalid-argument', 'cursor')
  })

  test('offset must be a whole number, 0 or more', async (t) => {
    const dir = tmpTree(t, treeSpec())
    for (const bad of [-1, 1.5, '3', NaN, true]) {
      await rejectsWith(searchFiles({ path: dir, pattern: 'needle', offset: bad }), 'invalid-argument', 'offset')
    }
    await rejectsWith(searchFiles({ path: dir, pattern: 'needle', partial: 'yes' }), 'invalid-argument', 'partial')
  })
})

describe('the model text', () => {
  test('a truncated page tells how to get the next one; a later page says which items it shows', async (t) => {
    const dir = tmpTree(t, treeSpec())
    const p1 = await searchFiles({ path: dir, pattern: 'needle', maxResults: 3 })
    const text1 = formatSearchResult(p1)
    assert.ok(text1.includes(`cursor: "${p1.cursor}"`), text1)
    const p2 = await searchFiles({ path: dir, pattern: 'needle', maxResults: 3, cursor: p1.cursor })
    assert.match(formatSearchResult(p2), new RegExp(`^Found ${p1.matchCount} matching lines in \\d+ files; showing lines 4-6; `, 'm'))
  })

  test('when the byte cap cuts a page, the cursor in the text continues after the last line shown', async (t) => {
    // Lines over 200 characters show as a 200-character window: about 230 bytes a file in the text.
    const long = 'needle ' + 'x'.repeat(400)
    const spec = {}
    for (let i = 0; i < 400; i++) spec[`f${String(i).padStart(3, '0')}.txt`] = `${long}\n`
    const dir = tmpTree(t, spec)
    const r = await searchFiles({ path: dir, pattern: 'needle', maxResults: 500 })
    assert.equal(r.cursor, undefined, 'the whole answer fits maxResults')
    const page = await searchFiles({ path: dir, pattern: 'needle', maxResults: 300 })
    const text = formatSearchResult(page)
    assert.ok(Buffer.byteLength(text) <= 51_200)
    // Grouped: each file's path, then its one matching line.
    const shown = text.split('\n').filter((l) => /^1: needle/.test(l)).length
    assert.ok(shown < 300 && shown > 0, `${shown} lines shown`)
    const cursor = text.match(/cursor: "([0-9a-f]+)"/)[1]
    assert.notEqual(cursor, page.cursor)
    const rest = await searchFiles({ path: dir, pattern: 'needle', maxResults: 500, cursor })
    assert.equal(rest.matches[0].file, page.matches[shown].file)
    assert.equal(rest.matches.length, 400 - shown)
  })
})

test('an index changed between pages: the page answers, and says so (notice and indexChanged)', async (t) => {
  const spec = treeSpec()
  const dir = tmpTree(t, spec)
  const index = await openIndex(dir)
  t.after(() => index.close())
  const p1 = await index.searchFiles({ pattern: 'needle', maxResults: 5 })
  const same = await index.searchFiles({ pattern: 'needle', maxResults: 5, cursor: p1.cursor })
  assert.equal(same.indexChanged, undefined)
  assert.equal(same.notice, undefined)
  fs.writeFileSync(path.join(dir, 'zz-new.txt'), 'a new needle\n')
  await index.settled()
  const p2 = await index.searchFiles({ pattern: 'needle', maxResults: 5, cursor: p1.cursor })
  assert.equal(p2.indexChanged, true)
  assert.match(p2.notice, /changed since the `cursor` was made/)
  assert.deepEqual(p2.matches, same.matches, 'the new file sorts last: this page is unchanged')
  assert.match(formatSearchResult(p2), /changed since the `cursor` was made/)
  // A cursor from another index never passes for this one's.
  const other = await openIndex(dir)
  t.after(() => other.close())
  const fromOther = await other.searchFiles({ pattern: 'needle', maxResults: 5, cursor: p1.cursor })
  assert.equal(fromOther.indexChanged, true)
  // One from the disk records no tree: it goes on by the place it names, as on disk.
  const disk = await searchFiles({ cwd: dir, pattern: 'needle', maxResults: 5 })
  const fromDisk = await index.searchFiles({ cwd: dir, pattern: 'needle', maxResults: 5, cursor: disk.cursor })
  assert.equal(fromDisk.indexChanged, undefined)
  const diskPage2 = await searchFiles({ cwd: dir, pattern: 'needle', maxResults: 5, cursor: disk.cursor })
  assert.deepEqual({ ...fromDisk, cursor: undefined }, { ...diskPage2, cursor: undefined })
  // Off an index there is no tree to have changed.
  const fromIndex = await index.searchFiles({ cwd: dir, pattern: 'needle', maxResults: 5 })
  const onDisk = await searchFiles({ cwd: dir, pattern: 'needle', maxResults: 5, cursor: fromIndex.cursor })
  assert.equal(onDisk.indexChanged, undefined)
  assert.deepEqual(onDisk.matches, fromDisk.matches)
})

test('a cursor made on disk, continued on an index of an unchanged folder: no change reported (createTools does this while its index opens)', async (t) => {
  const dir = tmpTree(t, treeSpec())
  const index = await openIndex(dir)
  t.after(() => index.close())
  for (const options of [{ pattern: 'needle' }, { pattern: 'needle', outputMode: 'files' }, { pattern: '*.txt', target: 'files' }]) {
    const p1 = await searchFiles({ cwd: dir, ...options, maxResults: 4 })
    const onDisk = await searchFiles({ cwd: dir, ...options, maxResults: 4, cursor: p1.cursor })
    const onIndex = await index.searchFiles({ cwd: dir, ...options, maxResults: 4, cursor: p1.cursor })
    assert.equal(onIndex.indexChanged, undefined, JSON.stringify(options))
    assert.equal(onIndex.notice, undefined, JSON.stringify(options))
    // The same page (the index's cursor also names its tree).
    assert.deepEqual({ ...onIndex, cursor: undefined }, { ...onDisk, cursor: undefined }, JSON.stringify(options))
    assert.ok(onIndex.cursor)
  }
  const tools = createTools({ cwd: dir, index: true })
  t.after(() => tools.close())
  const t1 = await tools.searchFiles({ pattern: 'needle', maxResults: 4 })
  await tools.ready()
  const t2 = await tools.searchFiles({ pattern: 'needle', maxResults: 4, cursor: t1.cursor })
  assert.equal(t2.indexChanged, undefined)
  assert.equal(t2.notice, undefined)
})

describe('newest-first pages while files change: a file modified between pages is on a later page', () => {
  const spec = () => {
    const files = {}
    for (let i = 1; i <= 10; i++) files[`f${String(i).padStart(2, '0')}.txt`] = { content: 'needle\n', mtime: new Date(T + i * 60_000) }
    return files
  }
  const MODES = [['files output', { pattern: 'needle', outputMode: 'files' }], ['name search', { pattern: '*.txt', target: 'files' }]]
  for (const backend of ['disk', 'index']) {
    for (const [mode, options] of MODES) {
      test(`${backend}, ${mode}`, async (t) => {
        const dir = tmpTree(t, spec())
        const index = backend === 'index' ? await openIndex(dir) : null
        t.after(() => index?.close())
        const search = async (o) => {
          if (index) await index.settled()
          return index ? index.searchFiles(o) : searchFiles({ cwd: dir, ...o })
        }
        const p1 = await search({ ...options, maxResults: 3 })
        assert.deepEqual(p1.files, ['f10.txt', 'f09.txt', 'f08.txt'])
        // Not shown yet, modified: it would now sort first, before the cursor.
        fs.appendFileSync(path.join(dir, 'f02.txt'), 'edited\n')
        // Shown already, modified again.
        fs.appendFileSync(path.join(dir, 'f09.txt'), 'edited\n')
        // Made between pages.
        fs.writeFileSync(path.join(dir, 'f11.txt'), 'needle\n')
        const seen = [...p1.files]
        const notices = []
        let cursor = p1.cursor
        for (let guard = 0; cursor && guard < 20; guard++) {
          const r = await search({ ...options, maxResults: 3, cursor })
          seen.push(...r.files)
          notices.push(r.notice)
          cursor = r.cursor
          if (guard === 0) {
            // Modified while the pages are walked (later than the others: a clock tick apart).
            await new Promise((resolve) => setTimeout(resolve, 50))
            fs.appendFileSync(path.join(dir, 'f04.txt'), 'edited\n')
          }
        }
        assert.equal(cursor, undefined, 'the pages end')
        // The unchanged files in their order, then the changed ones, oldest change first.
        assert.deepEqual(seen.slice(0, 8), ['f10.txt', 'f09.txt', 'f08.txt', 'f07.txt', 'f06.txt', 'f05.txt', 'f03.txt', 'f01.txt'])
        assert.deepEqual(seen.slice(8).sort(), ['f02.txt', 'f04.txt', 'f09.txt', 'f11.txt'])
        assert.equal(seen.at(-1), 'f04.txt', 'modified last, listed last')
        assert.equal(new Set(seen).size, 11, 'every file is on a page')
        assert.ok(notices.some((n) => /changed after the first page was made/.test(n ?? '')), JSON.stringify(notices))
        // A walk with no change has no such notice.
        const again = []
        let c
        do {
          const r = await search({ ...options, maxResults: 3, ...(c ? { cursor: c } : {}) })
          again.push(r)
          c = r.cursor
        } while (c)
        assert.ok(again.every((r) => r.notice === undefined && r.indexChanged === undefined), JSON.stringify(again.map((r) => r.notice)))
        assert.deepEqual(again.flatMap((r) => r.files).length, 11)
      })
    }
  }
})

describe('partial: what was found by timeoutMs, a start of the full answer', () => {
  /** A tree big enough that 1 ms never searches it all. */
  function bigSpec(files = 3000) {
    const spec = {}
    for (let i = 0; i < files; i++) {
      const body = `line\n${i % 3 === 0 ? 'needle here\n' : ''}${'padding text\n'.repeat(40)}${i % 5 === 0 ? 'needle again\n' : ''}`
      spec[`d${String(i % 30).padStart(2, '0')}/f${String(i).padStart(4, '0')}.txt`] = body
    }
    return spec
  }

  /** Continues `first` with the cursor, a budget per call, to the end: the items of every call. */
  async function rest(search, options, first) {
    const got = [...items(first)]
    let cursor = first.cursor
    let calls = 1
    while (cursor) {
      const r = await search({ ...options, maxResults: 500, partial: true, timeoutMs: 200, cursor })
      got.push(...items(r))
      cursor = r.cursor
      assert.ok(++calls < 500, 'the walk ends')
    }
    return { got, calls }
  }

  /** `fast`: an index searches 3000 files from memory in well under 1 ms once warm, so 1 ms may cover them all. */
  async function continues(search, options, t, { fast = false } = {}) {
    // Under `partial`, file lists too are in path order.
    const fullPages = await walkByCursor(search, { ...options, partial: true }, 500)
    const fullItems = fullPages.flatMap(items)
    const matchCount = fullPages[0].matchCount
    // Budgets from none to ample: which part each covers depends on the
    // machine; each answer must be a start, and continue to the whole.
    let cut = 0
    for (const timeoutMs of [1, 5, 20, 60, 150, 60_000]) {
      const first = await search({ ...options, maxResults: 500, partial: true, timeoutMs })
      const shown = items(first)
      assert.deepEqual(shown, fullItems.slice(0, shown.length), `${timeoutMs} ms: a prefix of the full answer`)
      assert.ok(first.matchCount <= matchCount)
      assert.equal(first.offset, undefined)
      if (!first.incomplete) {
        assert.equal(first.matchCount, matchCount, `${timeoutMs} ms: complete, the whole count`)
        continue
      }
      assert.equal(typeof first.cursor, 'string')
      assert.match(formatSearchResult(first), /Search incomplete: `timeoutMs` ran out/)
      if (shown.length > 0 && shown.length < fullItems.length) cut++
      const { got, calls } = await rest(search, options, first)
      assert.deepEqual(got, fullItems, `${timeoutMs} ms: the pages together are the full answer`)
      t.diagnostic(`${timeoutMs} ms: ${shown.length} of ${fullItems.length} items, ${calls} calls in all`)
    }
    const first = await search({ ...options, maxResults: 500, partial: true, timeoutMs: 1 })
    if (!fast) assert.equal(first.incomplete, true, 'a 1 ms budget does not cover 3000 files')
    t.diagnostic(`${cut} budgets cut the answer between its first and last item`)
  }

  for (const [mode, options] of [['content', { pattern: 'needle' }], ['count', { pattern: 'needle', outputMode: 'count' }], ['files', { pattern: 'needle', outputMode: 'files' }]]) {
    test(`disk, ${mode}`, { timeout: 120_000 }, async (t) => {
      const dir = tmpTree(t, bigSpec())
      await continues((o) => searchFiles({ path: dir, ...o }), options, t)
    })
  }

  test('memoryReader, content (read after the walk)', { timeout: 120_000 }, async (t) => {
    const tree = new Map(Object.entries(bigSpec()).map(([k, v]) => [k, { content: v, modifiedTime: T }]))
    const reader = memoryReader(tree)
    await continues((o) => searchFiles({ reader, cwd: '/', ...o }), { pattern: 'needle' }, t)
  })

  test('index, content', { timeout: 120_000 }, async (t) => {
    const dir = tmpTree(t, bigSpec())
    const index = await openIndex(dir)
    t.after(() => index.close())
    await continues((o) => index.searchFiles(o), { pattern: 'needle' }, t, { fast: true })
  })

  test('a file list under partial is in path order (not newest first)', async (t) => {
    const dir = tmpTree(t, treeSpec())
    const r = await searchFiles({ path: dir, pattern: 'needle', outputMode: 'files', partial: true, maxResults: 500 })
    assert.deepEqual(r.files, [...r.files].sort())
    assert.equal(r.incomplete, undefined, 'no timeoutMs: complete')
    // Its cursor is not one for the newest-first list.
    const cut = await searchFiles({ path: dir, pattern: 'needle', outputMode: 'files', partial: true, maxResults: 2 })
    await rejectsWith(searchFiles({ path: dir, pattern: 'needle', outputMode: 'files', cursor: cut.cursor }), 'invalid-argument', '`partial`')
  })

  test('without partial, the timeout still rejects; with partial, an abort still rejects', async (t) => {
    const dir = tmpTree(t, bigSpec(1500))
    await rejectsWith(searchFiles({ path: dir, pattern: 'needle', timeoutMs: 1 }), 'aborted')
    const controller = new AbortController()
    controller.abort()
    await rejectsWith(searchFiles({ path: dir, pattern: 'needle', partial: true, timeoutMs: 10_000, signal: controller.signal }), 'aborted')
  })
})
