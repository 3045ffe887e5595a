// Fuzzy file-name search (`searchFiles` with `target: 'files'`, `fuzzy: true`)
// on a real generated tree: misspelled queries written down with the file
// each one means, which must come FIRST; the same answers from a fresh walk,
// a memoryReader and a live index; ranking classes, maxResults, the
// approximate notice, and the argument errors.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'

import { FindFilesError, formatSearchResult, memoryReader, openIndex, searchFiles } from '../index.mjs'
import { makeTmp, removeTmp, writeTree } from './helpers.mjs'

/** The files a query means, among many decoys (near names, same names elsewhere). */
const MEANT = [
  'src/compiler/typescript.ts',
  'src/index.js',
  'README.md',
  'package.json',
  'src/components/Button.tsx',
  'src/server/UserController.ts',
  'config/webpack.config.js',
  'docs/CONTRIBUTING.md',
  'src/utils/debounce.ts',
  'test/fixtures/schema.graphql',
  'scripts/deploy.sh',
  '.github/workflows/release.yml',
  'src/hooks/useLocalStorage.ts',
  'Dockerfile',
  'src/models/invoice.py',
  'tsconfig.json',
]

/** [misspelled query, the file it means]: a wrong, missing or extra letter, case, or a fragment. */
const QUERIES = [
  ['typescropt.ts', 'src/compiler/typescript.ts'],
  ['indx.js', 'src/index.js'],
  ['readme', 'README.md'],
  ['pakage.json', 'package.json'],
  ['packagee.json', 'package.json'],
  ['buton.tsx', 'src/components/Button.tsx'],
  ['usercontroler', 'src/server/UserController.ts'],
  ['webpak.config.js', 'config/webpack.config.js'],
  ['contributting', 'docs/CONTRIBUTING.md'],
  ['debunce', 'src/utils/debounce.ts'],
  ['shema.graphql', 'test/fixtures/schema.graphql'],
  ['deplyo.sh', 'scripts/deploy.sh'],
  ['relaese.yml', '.github/workflows/release.yml'],
  ['uselocalstorge', 'src/hooks/useLocalStorage.ts'],
  ['dockerfle', 'Dockerfile'],
  ['invoce.py', 'src/models/invoice.py'],
  ['tsconfg.json', 'tsconfig.json'],
  ['compiler/typescript', 'src/compiler/typescript.ts'],
]

/** A generated tree: the meant files, their decoys, and many plain files. */
function spec() {
  const files = {}
  for (const f of MEANT) files[f] = `// ${f}\n`
  const decoys = [
    'src/compiler/types.ts', 'src/compiler/typescript-utils.test.ts', 'lib/type-script.md',
    'src/indexer.js', 'src/reindex.js', 'src/lib/index.jsx', 'packages/a/page.json', 'src/package-lock.ts',
    'src/components/ButtonGroup.tsx', 'src/components/button.css', 'src/server/UserService.ts', 'src/server/Controller.ts',
    'config/webpack.dev.js', 'docs/CONTRIBUTORS.txt', 'src/utils/bounce.ts', 'test/fixtures/scheme.json',
    'scripts/deploy-old.txt', 'src/release-notes.md', 'src/hooks/useStorage.ts', 'docker/compose.yml',
    'src/models/voice.py', 'tsconfig.base.txt', 'README-old/notes.txt', 'src/readers/x.ts',
  ]
  for (const f of decoys) files[f] = 'decoy\n'
  // Filler: a deterministic mass of ordinary names in nested folders.
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'core', 'util', 'view', 'store', 'route']
  for (let i = 0; i < 1500; i++) {
    const a = words[i % words.length]
    const b = words[(i * 7) % words.length]
    files[`pkg/${a}/${b}${i % 13}/${a}-${b}-${i}.${['ts', 'js', 'md', 'json'][i % 4]}`] = 'x\n'
  }
  return files
}

let root
let files
before(() => {
  root = makeTmp()
  files = spec()
  writeTree(root, files)
})
after(() => removeTmp(root))

const fuzzy = (pattern, extra = {}) => ({ pattern, target: 'files', fuzzy: true, ...extra })

describe('fuzzy file-name search', () => {
  test('every misspelled query finds the file it means FIRST', async () => {
    assert.ok(QUERIES.length >= 15)
    for (const [query, meant] of QUERIES) {
      const r = await searchFiles(fuzzy(query, { cwd: root }))
      assert.equal(r.files[0], meant, `${query}: ${r.files.slice(0, 5).join(', ')}`)
    }
  })

  test('a fresh walk, a memoryReader and a live index answer the same', async (t) => {
    const index = await openIndex(root)
    t.after(() => index.close())
    await index.settled()
    const reader = memoryReader(Object.fromEntries(Object.entries(files).map(([p, c]) => [`/${p}`, c])))
    for (const [query] of [...QUERIES, ['src/comp', ''], ['zzqx', '']]) {
      const fresh = await searchFiles(fuzzy(query, { cwd: root, maxResults: 20 }))
      const indexed = await index.searchFiles(fuzzy(query, { maxResults: 20 }))
      assert.deepEqual(indexed, fresh, `index: ${query}`)
      const viaReader = await searchFiles(fuzzy(query, { reader, cwd: '/', maxResults: 20 }))
      assert.deepEqual({ ...viaReader, path: fresh.path }, fresh, `reader: ${query}`)
    }
  })

  test('exact and prefix names first, then words and folders, then typos, then subsequences', async () => {
    const r = await searchFiles(fuzzy('button', { cwd: root }))
    // Equal ranks (both prefixes, as long): by path, and 'B' sorts before 'b'.
    assert.deepEqual(r.files.slice(0, 3), ['src/components/Button.tsx', 'src/components/button.css', 'src/components/ButtonGroup.tsx'])
    const idx = await searchFiles(fuzzy('index.js', { cwd: root }))
    assert.deepEqual(idx.files.slice(0, 3), ['src/index.js', 'src/lib/index.jsx', 'src/reindex.js'])
    assert.equal(idx.notice, undefined)
    const sub = await searchFiles(fuzzy('srcmodinv', { cwd: root }))
    assert.equal(sub.files[0], 'src/models/invoice.py')
  })

  test('maxResults keeps the best; matchCount counts all; ties go by path', async () => {
    const all = await searchFiles(fuzzy('alpha', { cwd: root, maxResults: 500 }))
    const top = await searchFiles(fuzzy('alpha', { cwd: root, maxResults: 7 }))
    assert.equal(top.files.length, 7)
    assert.equal(top.truncated, true)
    assert.equal(top.matchCount, all.matchCount)
    assert.deepEqual(top.files, all.files.slice(0, 7))
    assert.match(formatSearchResult(top), /Showing 7 of/)
  })

  // Pages that end before the last class (letters in order) and pages that
  // reach into it: the last class is ordered by nucleo's score only when a
  // page reaches it, and every page, on disk and on an index, is the full
  // answer's slice.
  test('pages into the subsequence class are slices of the full answer', async (t) => {
    const dir = makeTmp('af-fuzzy-pages-')
    t.after(() => removeTmp(dir))
    const tree = {}
    for (let i = 0; i < 12; i++) tree[`lib/widget${i}.js`] = ''
    // Letters of 'widget' in order, nowhere as a word: the last class, in score order.
    for (const name of ['w_i_d_g_e_t.js', 'wxixdxgxextx.js', 'w/i/d/g/e/t.js', 'wi/dg/et.js', 'wid/get/z.js']) tree[`sub/${name}`] = ''
    writeTree(dir, tree)
    const index = await openIndex(dir)
    t.after(() => index.close())
    await index.settled()
    for (const run of [searchFiles, (o) => index.searchFiles(o)]) {
      const full = await run(fuzzy('widget', { cwd: dir, maxResults: 500 }))
      assert.equal(full.matchCount, 17)
      const last = full.files.slice(12)
      assert.deepEqual(new Set(last), new Set(Object.keys(tree).filter((f) => f.startsWith('sub/'))))
      // The tightest run of the letters scores best.
      assert.equal(last[0], 'sub/wid/get/z.js')
      for (const size of [1, 3, 5, 12, 13]) {
        const pages = []
        let cursor
        do {
          const page = await run(fuzzy('widget', { cwd: dir, maxResults: size, ...(cursor && { cursor }) }))
          assert.equal(page.matchCount, 17)
          pages.push(...page.files)
          cursor = page.cursor
        } while (cursor)
        assert.deepEqual(pages, full.files, `pages of ${size}`)
        for (let offset = 0; offset < 17; offset += 4) {
          const page = await run(fuzzy('widget', { cwd: dir, maxResults: 4, offset }))
          assert.deepEqual(page.files, full.files.slice(offset, offset + 4), `offset ${offset}`)
        }
      }
    }
  })

  test('a typo answer says its order is approximate', async () => {
    const r = await searchFiles(fuzzy('indx.js', { cwd: root }))
    assert.match(r.notice ?? '', /No file path contains `indx\.js` as written/)
    assert.match(formatSearchResult(r), /closest names/)
    const none = await searchFiles(fuzzy('qqqqzzzz', { cwd: root }))
    assert.equal(none.matchCount, 0)
    assert.deepEqual(none.files, [])
  })

  test('without fuzzy, target files is the glob search as before', async () => {
    const r = await searchFiles({ pattern: 'indx.js', target: 'files', cwd: root })
    assert.equal(r.matchCount, 0)
  })

  test('bad combinations are invalid-argument with a clear message', async () => {
    const bad = [
      [{ pattern: 'indx.js', fuzzy: true }, /target: 'files'/],
      [{ pattern: 'indx.js', fuzzy: true, target: 'content' }, /target: 'files'/],
      [fuzzy('  ./ '), /no name to look for/],
      [fuzzy('x', { fileGlob: '*.js' }), /fileGlob/],
      [fuzzy('x', { fuzzy: 'yes' }), /fuzzy/],
    ]
    for (const [options, message] of bad) {
      await assert.rejects(searchFiles({ cwd: root, ...options }), (e) => {
        assert.ok(e instanceof FindFilesError)
        assert.equal(e.code, 'invalid-argument')
        assert.match(e.message, message)
        return true
      })
    }
  })
})

test('nothing ranks: the notice names the skipped folders that hold a match', async (t) => {
  const dir = makeTmp()
  t.after(() => removeTmp(dir))
  writeTree(dir, { 'src/a.ts': 'x', 'node_modules/pkg/webpack.config.js': 'x' })
  const r = await searchFiles(fuzzy('webpak.config.js', { cwd: dir }))
  assert.equal(r.matchCount, 0)
  assert.match(r.notice ?? '', /there are matches in places that were skipped: node_modules\//)
  const all = await searchFiles(fuzzy('webpak.config.js', { cwd: dir, noIgnore: true }))
  assert.deepEqual(all.files, ['node_modules/pkg/webpack.config.js'])
})

test('fuzzy on a path that is not there is not-found', async () => {
  const dir = makeTmp()
  try {
    fs.mkdirSync(path.join(dir, 'a'))
    await assert.rejects(searchFiles(fuzzy('x', { cwd: dir, path: 'nope' })), (e) => e.code === 'not-found')
  } finally {
    removeTmp(dir)
  }
})
