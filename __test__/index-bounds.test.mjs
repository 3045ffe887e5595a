// A live index on any root: bounded (`maxEntries`, and the root of a file
// system or the home folder refused unless bounded), with `too-large` named
// in the error and, for the tools and the MCP server, said once in the text
// while fresh walks answer; and each watcher (`native`, `recursive`: the
// `notify` path macOS and Windows take, `poll`) keeping the index equal to a
// fresh call through changes, each named in `stats().watcher`.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, test } from 'node:test'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { createTools, find, openIndex, searchFiles } from '../index.mjs'
import { REPO, rejectsWith, tmpTree } from './helpers.mjs'

const uncursored = (r) => (r.cursor === undefined ? r : { ...r, cursor: '<cursor>' })

function files(n) {
  const spec = {}
  for (let i = 0; i < n; i++) spec[`d${i % 5}/f${i}.txt`] = `line ${i}${i % 7 === 0 ? ' needle' : ''}\n`
  return spec
}

describe('openIndex bounds', () => {
  test('options are checked', async (t) => {
    const root = tmpTree(t, files(3))
    await rejectsWith(openIndex(root, { maxEntries: 0 }), 'invalid-argument', '`maxEntries`', 'at least 1')
    await rejectsWith(openIndex(root, { maxEntries: 1.5 }), 'invalid-argument', '`maxEntries`')
    await rejectsWith(openIndex(root, { watcher: 'fsevents' }), 'invalid-argument', "'native', 'recursive' or 'poll'")
    await rejectsWith(openIndex(root, { threads: 0 }), 'invalid-argument', '`threads`', 'from 1 to 256')
    await rejectsWith(openIndex(root, { pollIntervalMs: 100 }), 'invalid-argument', "`watcher: 'poll'`")
    await rejectsWith(openIndex(root, { watcher: 'poll', pollIntervalMs: 5 }), 'invalid-argument', 'from 10 to 3600000')
  })

  test('a folder past maxEntries rejects with too-large, naming the count and the option', async (t) => {
    const root = tmpTree(t, files(40))
    const err = await rejectsWith(openIndex(root, { maxEntries: 20 }), 'too-large', '`maxEntries` (20)', 'narrower folder')
    assert.ok(err.message.startsWith(`\`${root}\` holds more`), err.message)
    const index = await openIndex(root, { maxEntries: 100, threads: 1 })
    assert.equal(index.stats().entries, 45)
    assert.equal((await index.find({ pattern: '**/*.txt' })).matched, 40)
    await index.close()
  })

  test('the root of the file system and the home folder are refused before any walk, unless bounded', async () => {
    const started = Date.now()
    await rejectsWith(openIndex('/'), 'too-large', 'the root of a file system', '`maxEntries`')
    await rejectsWith(openIndex(os.homedir()), 'too-large', 'your home folder')
    assert.ok(Date.now() - started < 2000, `refused at once, not after a walk (${Date.now() - started} ms)`)
    // Bounded: walked, and stopped at the bound.
    await rejectsWith(openIndex('/', { maxEntries: 1000 }), 'too-large', '`maxEntries` (1000)')
  })

  test('createTools({ index: true }) on a root too big to index: fresh walks answer, and the text says so once', async (t) => {
    const project = tmpTree(t, files(12))
    const tools = createTools({ cwd: '/', roots: ['/'], index: true })
    await tools.ready()
    const first = await tools.call('find', { pattern: '**/*.txt', path: project })
    assert.equal(first.isError, false)
    assert.match(first.text, /^Note: `\/` holds too much to keep a live index of/)
    assert.match(first.text, /narrower --root/)
    const fresh = await find({ pattern: '**/*.txt', cwd: project })
    assert.ok(first.text.includes(`Found ${fresh.entries.length} `) || first.text.includes(fresh.entries[0].path), first.text)
    const second = await tools.call('search_files', { pattern: 'needle', path: project })
    assert.doesNotMatch(second.text, /Note:/)
    assert.match(second.text, /needle/)
    await tools.close()
  })

  test('the MCP server started on a root too big to index answers with fresh walks and says so once', async (t) => {
    const project = tmpTree(t, files(6))
    const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(REPO, 'bin', 'agent-find.js'), 'mcp', '--root', '/'], stderr: 'pipe' })
    const client = new Client({ name: 'agent-find-test', version: '1.0.0' })
    await client.connect(transport)
    t.after(() => client.close())
    const texts = []
    // The index's refusal is immediate; a call sent before it was known still answers (without the note).
    for (let i = 0; i < 3; i++) {
      const r = await client.callTool({ name: 'search_files', arguments: { pattern: 'needle', path: project } })
      assert.ok(!r.isError, r.content[0].text)
      texts.push(r.content[0].text)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.equal(texts.filter((text) => text.startsWith('Note: `/` holds too much')).length, 1, texts.join('\n---\n'))
    for (const text of texts) assert.match(text, /f0\.txt/)
  })
})

// Each watcher, through the changes each must see: created, removed and renamed files
// and folders, a same-size rewrite with the mtime set back, a chmod, an ignore file edited.
const WATCHERS = [
  { options: { watcher: 'native' }, name: process.platform === 'linux' ? 'inotify' : process.platform === 'darwin' ? 'fsevents' : 'windows' },
  { options: { watcher: 'recursive' }, name: process.platform === 'linux' ? 'inotify' : process.platform === 'darwin' ? 'fsevents' : 'windows' },
  { options: { watcher: 'poll', pollIntervalMs: 40 }, name: 'poll' },
]

const QUERIES = [
  { call: 'find', options: { pattern: '**/*', sortBy: 'name' } },
  { call: 'search', options: { pattern: 'needle' } },
  { call: 'search', options: { pattern: 'needle', outputMode: 'count' } },
]

async function sameAsFresh(index, root, why) {
  for (const q of QUERIES) {
    const [indexed, fresh] = q.call === 'find'
      ? [await index.find(q.options), await find({ ...q.options, cwd: root })]
      : [await index.searchFiles(q.options), await searchFiles({ ...q.options, cwd: root })]
    assert.deepEqual(uncursored(indexed), uncursored(fresh), `${why}: ${JSON.stringify(q)}`)
  }
}

describe('each watcher keeps the index exact', () => {
  for (const { options, name } of WATCHERS) {
    test(`watcher ${JSON.stringify(options)}`, async (t) => {
      const root = tmpTree(t, { ...files(20), '.gitignore': '*.log\n' })
      const index = await openIndex(root, options)
      t.after(() => index.close())
      assert.equal(index.stats().watcher, name)
      await sameAsFresh(index, root, 'at open')
      await index.searchFiles({ pattern: 'needle' })

      fs.writeFileSync(path.join(root, 'd1/new.txt'), 'a new needle\n')
      fs.rmSync(path.join(root, 'd2/f2.txt'))
      fs.renameSync(path.join(root, 'd3'), path.join(root, 'd3-moved'))
      fs.mkdirSync(path.join(root, 'd9/deep'), { recursive: true })
      fs.writeFileSync(path.join(root, 'd9/deep/x.txt'), 'needle deep\n')
      const rewritten = path.join(root, 'd4/f4.txt')
      const { size, mtime } = fs.statSync(rewritten)
      fs.writeFileSync(rewritten, `${'needle'.padEnd(size - 1, '!')}\n`)
      fs.utimesSync(rewritten, mtime, mtime)
      fs.writeFileSync(path.join(root, 'd0/keep.log'), 'needle in a log\n')
      fs.chmodSync(path.join(root, 'd0/f5.txt'), 0o600)
      await index.settled()
      await sameAsFresh(index, root, 'after changes')
      const found = await index.searchFiles({ pattern: 'needle', outputMode: 'files' })
      assert.ok(found.files.includes('d4/f4.txt'), `the rewrite with its mtime set back is seen: ${JSON.stringify(found.files)}`)

      fs.writeFileSync(path.join(root, '.gitignore'), '*.txt\n')
      await index.settled()
      await sameAsFresh(index, root, 'after the ignore file changed')
      assert.ok(index.stats().events > 0)
    })
  }
})

// A root reached through a symlinked parent (macOS's /var -> /private/var, a
// home folder on another volume): events come by the real path, results and
// `path` keep the name the caller gave, and answers equal a fresh call's.
describe('a root reached through a symlinked parent', () => {
  for (const { options } of WATCHERS) {
    test(`watcher ${JSON.stringify(options)}`, async (t) => {
      const base = tmpTree(t, { 'private/var/project/src/a.ts': 'needle\n', 'private/var/project/b.md': 'b\n' })
      fs.symlinkSync(path.join(base, 'private/var'), path.join(base, 'var'))
      const root = path.join(base, 'var/project')
      const index = await openIndex(root, options)
      t.after(() => index.close())
      assert.equal(index.path, root)
      fs.writeFileSync(path.join(base, 'private/var/project/src/c.ts'), 'needle two\n')
      fs.renameSync(path.join(root, 'b.md'), path.join(root, 'src/b2.md'))
      await index.settled()
      const [indexed, fresh] = [await index.find({ pattern: '**/*', sortBy: 'name' }), await find({ pattern: '**/*', sortBy: 'name', cwd: root })]
      assert.deepEqual(uncursored(indexed), uncursored(fresh))
      assert.equal(indexed.path, root)
      assert.deepEqual(indexed.entries.map((e) => e.path).sort(), ['src/a.ts', 'src/b2.md', 'src/c.ts'])
      const found = await index.searchFiles({ pattern: 'needle', outputMode: 'files' })
      assert.deepEqual(found.files.sort(), ['src/a.ts', 'src/c.ts'])
    })
  }
})

// A name stored in NFD (as macOS HFS+ stores every name, and a file copied
// from there keeps it) is found by the NFC a model types, and the other way
// round, fresh and from an index; results show it as the folder lists it.
describe('names in another Unicode normal form', () => {
  const NFD = 'cafe\u0301'
  const NFC = 'caf\u00e9'
  test('an NFC pattern finds an NFD name, and shows it as listed', async (t) => {
    const root = tmpTree(t, { [`docs/${NFD}.md`]: 'menu\n', [`src/${NFC}-nfc.ts`]: 'menu\n', 'src/cafe.ts': 'menu\n' })
    const index = await openIndex(root)
    t.after(() => index.close())
    for (const [how, call] of [['fresh', (o) => find({ ...o, cwd: root })], ['index', (o) => index.find(o)]]) {
      const byNfc = await call({ pattern: `**/${NFC}*` })
      assert.deepEqual(byNfc.entries.map((e) => e.path).sort(), [`docs/${NFD}.md`, `src/${NFC}-nfc.ts`], how)
      assert.ok(byNfc.entries.some((e) => e.path === `docs/${NFD}.md`), `${how}: shown in NFD, as listed`)
      const byNfd = await call({ pattern: `**/${NFD}*`, sortBy: 'name' })
      assert.deepEqual(byNfd.entries.map((e) => e.path).sort(), [`docs/${NFD}.md`, `src/${NFC}-nfc.ts`], how)
      const excluded = await call({ pattern: '**/*', type: 'file', exclude: [`${NFC}.md`] })
      assert.deepEqual(excluded.entries.map((e) => e.path).sort(), ['src/cafe.ts', `src/${NFC}-nfc.ts`], how)
      // A regex tests names as listed, as V8's RegExp does.
      const regex = await call({ pattern: `^${NFC}`, regex: true })
      assert.deepEqual(regex.entries.map((e) => e.path), [`src/${NFC}-nfc.ts`], how)
      assert.equal(new RegExp(`^${NFC}`).test(`${NFD}.md`), false)
    }
    const named = await searchFiles({ pattern: 'menu', cwd: root, fileGlob: `**/${NFC}.md`, outputMode: 'files' })
    assert.deepEqual(named.files, [`docs/${NFD}.md`])
  })
})
