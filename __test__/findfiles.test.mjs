// findFiles(pattern, path?): absolute paths of regular files, path order, no caps.
import assert from 'node:assert/strict'
import path from 'node:path'
import { describe, test } from 'node:test'

import { findFiles } from '../index.mjs'
import { gitInit, rejectsWith, tmpTree } from './helpers.mjs'

describe('findFiles', () => {
  test('absolute paths of regular files only, in path order (bytewise)', async (t) => {
    const dir = tmpTree(t, {
      'b.txt': '', 'B.txt': '', 'a/c.txt': '', 'a-b.txt': '', 'a.txt': '', 'dir/': null,
      'link.txt': { symlink: 'a.txt' }, 'dirlink': { symlink: 'a' },
    })
    const files = await findFiles('**/*', dir)
    assert.deepEqual(files, ['B.txt', 'a-b.txt', 'a.txt', 'a/c.txt', 'b.txt'].map((p) => `${dir}/${p}`))
    for (const f of files) assert.ok(path.isAbsolute(f))
  })

  test('the same glob semantics as find: *.txt is top-level only', async (t) => {
    const dir = tmpTree(t, { 'x.txt': '', 'sub/y.txt': '', 'sub/Z.TXT': '' })
    assert.deepEqual(await findFiles('*.txt', dir), [`${dir}/x.txt`])
    assert.deepEqual(await findFiles('**/*.txt', dir), [`${dir}/sub/Z.TXT`, `${dir}/sub/y.txt`, `${dir}/x.txt`])
    assert.deepEqual(await findFiles('sub/{y,z}.txt', dir), [`${dir}/sub/Z.TXT`, `${dir}/sub/y.txt`])
  })

  test('no limit and no byte cap', async (t) => {
    const spec = {}
    const long = 'x'.repeat(80)
    for (let i = 0; i < 1500; i++) spec[`d${i % 10}/${long}-${String(i).padStart(4, '0')}.txt`] = ''
    const dir = tmpTree(t, spec)
    const files = await findFiles('**/*.txt', dir)
    assert.equal(files.length, 1500)
    assert.ok(files.join('\n').length > 51200)
    assert.deepEqual(files, Object.keys(spec).sort().map((p) => `${dir}/${p}`))
  })

  test('the same ignore defaults as find: gitignore on, hidden files included', async (t) => {
    const dir = tmpTree(t, { '.gitignore': 'build/\n*.log\n', 'build/out.js': '', 'a.log': '', 'src/a.js': '', '.env': '', '.github/ci.yml': '' })
    gitInit(dir)
    assert.deepEqual(await findFiles('**/*', dir), ['.env', '.github/ci.yml', '.gitignore', 'src/a.js'].map((p) => `${dir}/${p}`))
  })

  test('path defaults to process.cwd(); a relative path resolves against it', async (t) => {
    const dir = tmpTree(t, { 'one.md': '', 'sub/two.md': '' })
    const before = process.cwd()
    process.chdir(dir)
    try {
      assert.deepEqual(await findFiles('**/*.md'), [`${dir}/one.md`, `${dir}/sub/two.md`])
      assert.deepEqual(await findFiles('*.md', 'sub'), [`${dir}/sub/two.md`])
      assert.deepEqual(await findFiles('*.md', './sub/../sub/'), [`${dir}/sub/two.md`])
    } finally {
      process.chdir(before)
    }
  })

  test('paths are logical: a symlinked search path is kept, not resolved', async (t) => {
    const dir = tmpTree(t, { 'real/a.ts': '', 'alias': { symlink: 'real' } })
    assert.deepEqual(await findFiles('*.ts', path.join(dir, 'alias')), [`${dir}/alias/a.ts`])
  })

  test('nothing matched: an empty array', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    assert.deepEqual(await findFiles('**/*.py', dir), [])
  })

  test('errors: not-found, not-a-dir, invalid-pattern, invalid-argument', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await rejectsWith(findFiles('*', path.join(dir, 'missing')), 'not-found', path.join(dir, 'missing'))
    await rejectsWith(findFiles('*', path.join(dir, 'a.txt')), 'not-a-dir', path.join(dir, 'a.txt'))
    await rejectsWith(findFiles('src/[abc', dir), 'invalid-pattern', 'character 5')
    await rejectsWith(findFiles('', dir), 'invalid-argument', 'pattern')
    await rejectsWith(findFiles('*', ''), 'invalid-argument', 'path')
    await rejectsWith(() => findFiles(42, dir), 'invalid-argument', 'pattern')
    await rejectsWith(() => findFiles(undefined), 'invalid-argument', 'pattern')
  })
})
