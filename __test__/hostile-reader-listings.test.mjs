// Readers whose listings lie: a folder that lists itself (a cycle, as a
// store following `loop -> .` gives) must end the walk with an error that
// says so, and a name listed twice in one folder is one entry.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { find, searchFiles } from '../index.mjs'

const cyclicReader = (branches) => {
  const reader = {
    lists: 0,
    list: async () => {
      reader.lists++
      return [...Array.from({ length: branches }, (_, i) => ({ name: `loop${i}`, type: 'dir' })), { name: 'a.txt', type: 'file' }]
    },
    stat: async () => ({ type: 'dir' }),
    read: async () => 'TODO\n',
  }
  return reader
}

describe('readers whose listings lie', () => {
  test('a folder that lists itself: fs-error naming the cycle, after a bounded walk', { timeout: 60_000 }, async () => {
    const reader = cyclicReader(1)
    const error = await find({ pattern: '**', type: 'dir', reader, limit: 5 }).then(() => null, (e) => e)
    assert.ok(error, 'the walk ended with an error')
    assert.equal(error.code, 'fs-error')
    assert.match(error.message, /nested more than 1000 deep/)
    assert.match(error.message, /likely holds a cycle/)
    assert.ok(reader.lists <= 1002, `${reader.lists} folders listed`)
    // searchFiles walks the same way.
    const search = await searchFiles({ pattern: 'TODO', reader: cyclicReader(1) }).then(() => null, (e) => e)
    assert.equal(search && search.code, 'fs-error')
  })

  test('under a maxDepth the caller set, a cyclic listing is walked to that depth and answers', async () => {
    const r = await find({ pattern: '**', type: 'any', reader: cyclicReader(1), maxDepth: 2, sortBy: 'name' })
    assert.deepEqual(r.entries.map((e) => e.path), ['a.txt', 'loop0', 'loop0/a.txt', 'loop0/loop0', 'loop0/loop0/a.txt', 'loop0/loop0/loop0'])
  })

  test('a name listed twice in one folder is one entry, in find and searchFiles', async () => {
    const dup = {
      list: async (d) => (d === '/' ? [{ name: 'a.txt', type: 'file' }, { name: 'a.txt', type: 'file' }, { name: 'b.txt', type: 'file' }] : []),
      stat: async () => ({ type: 'dir' }),
      read: async () => 'TODO\n',
    }
    const r = await find({ pattern: '*', reader: dup, sortBy: 'name' })
    assert.deepEqual(r.entries.map((e) => e.path), ['a.txt', 'b.txt'])
    assert.equal(r.matched, 2)
    const s = await searchFiles({ pattern: 'TODO', reader: dup })
    assert.deepEqual(s.matches.map((m) => m.file).sort(), ['a.txt', 'b.txt'])
    const names = await searchFiles({ pattern: 'a', target: 'files', reader: dup })
    assert.deepEqual(names.files, ['a.txt'])
  })
})
