// A live index searched through a symlink: a search path as written that
// passes through a symlinked folder (the last name, one deeper in the path,
// or one into another subtree), and an index opened through a symlink. The
// walk follows where the path leads, and so must everything reported about
// it: `skipped` names, for each folder an ignore file hid, the deciding line
// with its file relative to the folder searched. That folder is the real one,
// as in a fresh call (`../.git/info/exclude`, not a path counted from the
// symlink's place), and the ignore files above it are those above the real
// folder, not those on the way as written. Every answer must equal the fresh
// call's.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { find, openIndex, searchFiles } from '../index.mjs'
import { makeTmp, removeTmp, writeTree } from './helpers.mjs'

const uncursored = (r) => (r.cursor === undefined ? r : { ...r, cursor: '<cursor>' })

/** A temp tree (`writeTree`'s spec) removed when the test ends. */
function tree(t, spec) {
  const root = makeTmp()
  t.after(() => removeTmp(root))
  writeTree(root, spec)
  return root
}

/** An index of `root`, settled, closed when the test ends. */
async function settledIndex(t, root) {
  const index = await openIndex(root, { persist: false })
  t.after(() => index.close())
  await index.settled()
  return index
}

/** Each query run at each search path (relative to `root`), by the index and by a fresh call: the answers must be equal. */
async function sameAsFresh(index, root, searchPaths, queries) {
  for (const at of searchPaths) {
    for (const [kind, q] of queries) {
      const call = kind === 'find' ? find : searchFiles
      const indexed = await index[kind]({ ...q, path: at }).catch((e) => `${e.code}: ${e.message}`)
      const fresh = await call({ ...q, path: path.join(root, at) }).catch((e) => `${e.code}: ${e.message}`)
      assert.deepEqual(uncursored(indexed), uncursored(fresh), `${kind} ${JSON.stringify(q)} at ${at}`)
    }
  }
}

/** The rule `skipped` cites for the ignored folder `folder`, as the index answers a search at `at`. */
async function ruleFor(index, at, pattern, folder) {
  const result = await index.searchFiles({ pattern, path: at, skipped: true })
  const ignored = (result.skipped ?? []).find((g) => g.reason === 'ignored')
  return ignored?.folders.find((f) => f.path === folder)?.rule
}

const QUERIES = [
  ['searchFiles', { pattern: 'more', skipped: true }],
  ['searchFiles', { pattern: 'nowhere at all' }],
  ['find', { pattern: '**', skipped: true }],
]

test('a search path that is a symlink to its own parent: ignore lines named from the real folder', async (t) => {
  const root = tree(t, {
    '.git/info/exclude': '!keep.log\ngen\ndeep/\n',
    'up-28/build3/deep/a.txt': 'more\n',
    'up-28/b.txt': 'x\n',
    'up-28/moved-85': { symlink: '../up-28' },
  })
  const index = await settledIndex(t, root)
  assert.equal(await ruleFor(index, 'up-28/moved-85', 'more', 'build3/deep'), '../.git/info/exclude:3: deep/')
  await sameAsFresh(index, root, ['up-28/moved-85', 'up-28', 'up-28/moved-85/build3', '.'], QUERIES)
})

test('a symlink deeper in the path, to a sibling or into another subtree, with .gitignore files above', async (t) => {
  const root = tree(t, {
    '.git/info/exclude': 'deep/\n',
    '.gitignore': '# top\nlogs/\n',
    // On the way as written only: must not decide for what the walk finds through `a/link`.
    'a/.gitignore': '# a\nhid/\nlogs/\n',
    'a/sib/b/deep/f.txt': 'more\n',
    'a/sib/b/hid/f.txt': 'more\n',
    'a/sib/b/logs/f.txt': 'more\n',
    'a/same': { symlink: 'sib' },
    'x/.gitignore': 'hid/\n',
    'x/y/.gitignore': '# y\n\nlogs/\n',
    'x/y/b/deep/f.txt': 'more\n',
    'x/y/b/hid/f.txt': 'more\n',
    'x/y/b/logs/f.txt': 'more\n',
    'x/y/b/c.txt': 'more\n',
    'a/link': { symlink: '../x/y' },
    'p/q/r/up': { symlink: '../../../x' },
    // Into a repository of its own below the index's folder.
    'inner/.git/info/exclude': '# inner\ndeep/\n',
    'inner/sub/deep/f.txt': 'more\n',
    'inner/sub/hid/f.txt': 'more\n',
    'a/into': { symlink: '../inner' },
  })
  const index = await settledIndex(t, root)
  // The folder searched is `x/y/b`: `hid` is hidden by `x/.gitignore`, not by `a/.gitignore`.
  assert.equal(await ruleFor(index, 'a/link/b', 'more', 'hid'), '../../.gitignore:1: hid/')
  assert.equal(await ruleFor(index, 'a/link/b', 'more', 'deep'), '../../../.git/info/exclude:1: deep/')
  assert.equal(await ruleFor(index, 'p/q/r/up/y/b', 'more', 'logs'), '../.gitignore:3: logs/')
  await sameAsFresh(
    index,
    root,
    ['a/same/b', 'a/link/b', 'a/link', 'p/q/r/up', 'p/q/r/up/y/b', 'a/into/sub', 'a/into', 'x/y/b'],
    QUERIES,
  )
})

test('an index opened through a symlink: ignore lines named from its real folder', async (t) => {
  const outer = tree(t, {
    '.git/info/exclude': 'deep/\n',
    '.gitignore': 'hid/\n',
    'd1/d2/proj/s/deep/f.txt': 'more\n',
    'd1/d2/proj/s/hid/f.txt': 'more\n',
    'd1/d2/proj/t.txt': 'more\n',
    alias: { symlink: 'd1/d2/proj' },
  })
  const root = path.join(outer, 'alias')
  const index = await settledIndex(t, root)
  assert.equal(await ruleFor(index, '.', 'more', 's/deep'), '../../../.git/info/exclude:1: deep/')
  await sameAsFresh(index, root, ['.', 's'], QUERIES)
})
