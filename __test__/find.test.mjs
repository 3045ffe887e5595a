// find(): call forms, result shape, glob/regex/matchBase matching, entry
// types and symlinks, ignore rules, sorting and filters.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { find } from '../index.mjs'
import { gitInit, paths, setMtime, sortedPaths, tmpTree, writeTree } from './helpers.mjs'

const byName = { sortBy: 'name' }

describe('call forms and result shape', () => {
  test('find(options) and find(pattern, options) give the same result', async (t) => {
    const dir = tmpTree(t, { 'a.ts': 'x', 'src/b.ts': 'yy', 'src/c.js': '' })
    const one = await find({ pattern: '**/*.ts', cwd: dir })
    const two = await find('**/*.ts', { cwd: dir })
    assert.deepEqual(one, two)
    assert.deepEqual(sortedPaths(one), ['a.ts', 'src/b.ts'])
  })

  test('find(pattern) with null or undefined options searches process.cwd()', async (t) => {
    const dir = tmpTree(t, { 'only-here.md': '' })
    const before = process.cwd()
    process.chdir(dir)
    try {
      for (const r of [await find('*.md'), await find('*.md', undefined), await find('*.md', null)]) {
        assert.equal(r.path, dir)
        assert.deepEqual(paths(r), ['only-here.md'])
      }
    } finally {
      process.chdir(before)
    }
  })

  test('a relative cwd resolves against process.cwd(); path resolves against cwd', async (t) => {
    const dir = tmpTree(t, { 'proj/src/x.rs': '', 'proj/y.rs': '' })
    const before = process.cwd()
    process.chdir(dir)
    try {
      const r = await find('**/*.rs', { cwd: 'proj', path: 'src' })
      assert.equal(r.path, path.join(dir, 'proj', 'src'))
      assert.deepEqual(paths(r), ['x.rs'])
    } finally {
      process.chdir(before)
    }
  })

  test('entries carry relative POSIX path, type, size and mtimeMs as fs.lstat reports them', async (t) => {
    const dir = tmpTree(t, { 'top.txt': 'hello', 'sub/deeper/file.bin': 1234, 'sub/empty.txt': '' })
    setMtime(path.join(dir, 'top.txt'), 1_600_000_000)
    setMtime(path.join(dir, 'sub/deeper/file.bin'), 1_600_000_100)
    setMtime(path.join(dir, 'sub/empty.txt'), 1_600_000_050)
    setMtime(path.join(dir, 'sub/deeper'), 1_600_000_200)
    setMtime(path.join(dir, 'sub'), 1_600_000_300)
    const r = await find('**/*', { cwd: dir, type: 'any' })
    assert.equal(r.path, dir)
    assert.equal(r.matched, 5)
    assert.equal(r.truncated, false)
    for (const key of ['truncatedBy', 'notice', 'omitted', 'hint']) assert.equal(r[key], undefined, key)
    const byPath = Object.fromEntries(r.entries.map((e) => [e.path, e]))
    assert.deepEqual(Object.keys(byPath).sort(), ['sub', 'sub/deeper', 'sub/deeper/file.bin', 'sub/empty.txt', 'top.txt'])
    assert.deepEqual(byPath['top.txt'], { path: 'top.txt', type: 'file', size: 5, mtimeMs: 1_600_000_000_000 })
    assert.deepEqual(byPath['sub/deeper/file.bin'], { path: 'sub/deeper/file.bin', type: 'file', size: 1234, mtimeMs: 1_600_000_100_000 })
    assert.equal(byPath['sub/empty.txt'].size, 0)
    for (const d of ['sub', 'sub/deeper']) {
      assert.equal(byPath[d].type, 'dir')
      assert.equal(byPath[d].size, 0, 'directories have size 0')
    }
    assert.equal(byPath['sub/deeper'].mtimeMs, 1_600_000_200_000)
    assert.equal(byPath.sub.mtimeMs, 1_600_000_300_000)
    for (const e of r.entries) {
      assert.ok(!e.path.startsWith('/') && !e.path.startsWith('./') && !e.path.includes('\\'), e.path)
    }
  })

  test('result.path is path.resolve(cwd, path): logical, with .. folded and trailing / dropped', async (t) => {
    const dir = tmpTree(t, { 'a/x.txt': '', 'b/y.txt': '' })
    const r = await find('*', { cwd: path.join(dir, 'a'), path: '../b/' })
    assert.equal(r.path, path.resolve(path.join(dir, 'a'), '../b/'))
    assert.equal(r.path, path.join(dir, 'b'))
    assert.deepEqual(paths(r), ['y.txt'])
    const abs = await find('*', { cwd: '/nonexistent-cwd-is-ignored', path: path.join(dir, 'a') })
    assert.equal(abs.path, path.join(dir, 'a'))
    assert.deepEqual(paths(abs), ['x.txt'])
  })

  test('a symlinked search root keeps its logical path and is walked', async (t) => {
    const dir = tmpTree(t, { 'real/one.md': '', 'real/sub/two.md': '', 'link': { symlink: 'real' } })
    const r = await find('**/*.md', { cwd: dir, path: 'link', ...byName })
    assert.equal(r.path, path.join(dir, 'link'), 'not the realpath')
    assert.deepEqual(paths(r), ['one.md', 'sub/two.md'])
  })

  test('null for an option means its default', async (t) => {
    const dir = tmpTree(t, { 'b.txt': '', 'a/c.txt': '', '.hidden': '' })
    const nulls = await find('**/*', {
      cwd: dir, path: null, type: null, limit: null, maxLimit: null, sortBy: null, hidden: null,
      gitignore: null, exclude: null, maxDepth: null, regex: null, matchBase: null, caseSensitive: null,
      reverse: null, modifiedSince: null, minSize: null, maxSize: null, maxBytes: null, timeoutMs: null,
      roots: null, signal: null, policy: null, approve: null,
    })
    const defaults = await find('**/*', { cwd: dir })
    assert.deepEqual(nulls, defaults)
    assert.deepEqual(sortedPaths(defaults), ['.hidden', 'a/c.txt', 'b.txt'])
  })
})

describe('glob matching', () => {
  const tree = {
    'a.py': '', 'b.py': '', 'ab.py': '', 'README.md': '', '.env': '', '.config/settings.json': '',
    'src/main.py': '', 'src/util/helpers.py': '', 'src/util/deep/x/y.py': '', 'src/app.ts': '', 'src/view.tsx': '',
    'lib/a/x.c': '', 'lib/b/y.c': '', 'lib/c/z.c': '', 'src/k.c': '', 'docs/notes.md': '',
    'srcfoo.txt': '', 'mytestfile.txt': '', 'src/test-utils.txt': '', '[draft].md': '',
  }

  test('* and ? never cross /; *.py matches top-level files only', async (t) => {
    const dir = tmpTree(t, tree)
    assert.deepEqual(sortedPaths(await find('*.py', { cwd: dir })), ['a.py', 'ab.py', 'b.py'])
    assert.deepEqual(sortedPaths(await find('?.py', { cwd: dir })), ['a.py', 'b.py'])
    assert.deepEqual(sortedPaths(await find('src/*.py', { cwd: dir })), ['src/main.py'])
    assert.deepEqual(sortedPaths(await find('src*py', { cwd: dir })), [], '* must not cross /')
    assert.deepEqual(sortedPaths(await find('src?main.py', { cwd: dir })), [], '? must not match /')
  })

  test('** matches zero or more directory segments', async (t) => {
    const dir = tmpTree(t, tree)
    assert.deepEqual(sortedPaths(await find('**/*.py', { cwd: dir })),
      ['a.py', 'ab.py', 'b.py', 'src/main.py', 'src/util/deep/x/y.py', 'src/util/helpers.py'])
    assert.deepEqual(sortedPaths(await find('src/**/*.py', { cwd: dir })),
      ['src/main.py', 'src/util/deep/x/y.py', 'src/util/helpers.py'])
    assert.deepEqual(sortedPaths(await find('src/**/x/*.py', { cwd: dir })), ['src/util/deep/x/y.py'])
    assert.deepEqual(sortedPaths(await find('src/util/**', { cwd: dir, type: 'any' })),
      ['src/util/deep', 'src/util/deep/x', 'src/util/deep/x/y.py', 'src/util/helpers.py'])
  })

  test('braces, nested braces and character classes', async (t) => {
    const dir = tmpTree(t, tree)
    assert.deepEqual(sortedPaths(await find('**/*.{ts,tsx}', { cwd: dir })), ['src/app.ts', 'src/view.tsx'])
    assert.deepEqual(sortedPaths(await find('{src,lib/{a,b}}/*.c', { cwd: dir })), ['lib/a/x.c', 'lib/b/y.c', 'src/k.c'])
    assert.deepEqual(sortedPaths(await find('[ab].py', { cwd: dir })), ['a.py', 'b.py'])
    assert.deepEqual(sortedPaths(await find('[!a].py', { cwd: dir })), ['b.py'])
    assert.deepEqual(sortedPaths(await find('lib/[!a-b]/*.c', { cwd: dir })), ['lib/c/z.c'])
    assert.deepEqual(sortedPaths(await find('[[]draft].md', { cwd: dir })), ['[draft].md'], 'escaped [ is literal')
  })

  test('leading ./ and / are stripped; a trailing / is dropped', async (t) => {
    const dir = tmpTree(t, tree)
    const plain = sortedPaths(await find('src/*.py', { cwd: dir }))
    assert.deepEqual(sortedPaths(await find('./src/*.py', { cwd: dir })), plain)
    assert.deepEqual(sortedPaths(await find('/src/*.py', { cwd: dir })), plain)
    assert.deepEqual(sortedPaths(await find('docs/', { cwd: dir, type: 'dir' })), ['docs'])
    assert.deepEqual(sortedPaths(await find('./lib/*/', { cwd: dir, type: 'dir' })), ['lib/a', 'lib/b', 'lib/c'])
  })

  test('a ** that is not a whole segment means *', async (t) => {
    const dir = tmpTree(t, tree)
    assert.deepEqual(sortedPaths(await find('src**', { cwd: dir, type: 'any' })), ['src', 'srcfoo.txt'])
    assert.deepEqual(sortedPaths(await find('**test**', { cwd: dir })), ['mytestfile.txt'])
  })

  test('case-insensitive by default, exact with caseSensitive: true', async (t) => {
    const dir = tmpTree(t, tree)
    assert.deepEqual(sortedPaths(await find('readme.MD', { cwd: dir })), ['README.md'])
    assert.deepEqual(sortedPaths(await find('SRC/MAIN.PY', { cwd: dir })), ['src/main.py'])
    assert.deepEqual(sortedPaths(await find('readme.MD', { cwd: dir, caseSensitive: true })), [])
    assert.deepEqual(sortedPaths(await find('README.md', { cwd: dir, caseSensitive: true })), ['README.md'])
  })

  test('case-insensitive matching covers non-ASCII letters, as regex: true does',
    async (t) => {
      const dir = tmpTree(t, { 'Éclair.txt': '', 'ÅSA/x.md': '', 'other.txt': '' })
      assert.deepEqual(sortedPaths(await find('^é', { cwd: dir, regex: true })), ['Éclair.txt'], 'regex mode folds Unicode case')
      assert.deepEqual(sortedPaths(await find('é*', { cwd: dir })), ['Éclair.txt'])
      assert.deepEqual(sortedPaths(await find('åsa/*', { cwd: dir })), ['ÅSA/x.md'])
      assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, exclude: ['åsa'] })), ['other.txt', 'Éclair.txt'])
    })

  test('dotfiles match * and ** (hidden is on by default)', async (t) => {
    const dir = tmpTree(t, tree)
    assert.ok(paths(await find('*', { cwd: dir })).includes('.env'))
    assert.ok(paths(await find('**/*.json', { cwd: dir })).includes('.config/settings.json'))
    assert.deepEqual(sortedPaths(await find('*env', { cwd: dir })), ['.env'])
  })
})

describe('regex and matchBase', () => {
  const tree = {
    'test_a.py': '', 'tests/test_b.py': '', 'tests/TEST_C.PY': '', 'test_dir/a.py': '', 'tests/b_test.py': '',
    'src/lib.rs': '', 'src/deep/mod.rs': '', 'src/deep/mod.rsx': '',
  }

  test('regex: true tests a JavaScript regex against the basename, case-insensitively', async (t) => {
    const dir = tmpTree(t, tree)
    const r = await find('^test_.*\\.py$', { cwd: dir, regex: true })
    assert.deepEqual(sortedPaths(r), ['test_a.py', 'tests/TEST_C.PY', 'tests/test_b.py'], 'test_dir/a.py: the folder name is not tested')
    const cs = await find('^test_.*\\.py$', { cwd: dir, regex: true, caseSensitive: true })
    assert.deepEqual(sortedPaths(cs), ['test_a.py', 'tests/test_b.py'])
    const unanchored = await find('test', { cwd: dir, regex: true })
    assert.deepEqual(sortedPaths(unanchored), ['test_a.py', 'tests/TEST_C.PY', 'tests/b_test.py', 'tests/test_b.py'])
    const dirs = await find('^tests?(_dir)?$', { cwd: dir, regex: true, type: 'dir' })
    assert.deepEqual(sortedPaths(dirs), ['test_dir', 'tests'])
    const rust = await find('\\.rs$|^mod\\.rsx$', { cwd: dir, regex: true })
    assert.deepEqual(sortedPaths(rust), ['src/deep/mod.rs', 'src/deep/mod.rsx', 'src/lib.rs'])
  })

  test('a glob is not a regex without regex: true', async (t) => {
    const dir = tmpTree(t, tree)
    assert.deepEqual(sortedPaths(await find('.*\\.rs$', { cwd: dir })), [])
  })

  test('matchBase: true tests the glob against the basename at any depth', async (t) => {
    const dir = tmpTree(t, tree)
    assert.deepEqual(sortedPaths(await find('*.rs', { cwd: dir, matchBase: true })), ['src/deep/mod.rs', 'src/lib.rs'])
    assert.deepEqual(sortedPaths(await find('*.rs', { cwd: dir })), [], 'without matchBase *.rs is top-level only')
    assert.deepEqual(sortedPaths(await find('MOD.*', { cwd: dir, matchBase: true })), ['src/deep/mod.rs', 'src/deep/mod.rsx'])
  })

  test('matchBase with a / in the pattern matches nothing and the hint explains why', async (t) => {
    const dir = tmpTree(t, tree)
    const r = await find('src/*.rs', { cwd: dir, matchBase: true })
    assert.deepEqual(r.entries, [])
    assert.equal(r.matched, 0)
    assert.match(r.hint, /matchBase/)
    assert.ok(r.hint.includes('src/*.rs'), r.hint)
  })
})

describe('entry types, symlinks and .git', () => {
  function linkTree(t) {
    return tmpTree(t, {
      'file.txt': 'abc', 'dir/inner.txt': '', 'dir/sub/': null,
      'file-link': { symlink: 'file.txt' }, 'dir-link': { symlink: 'dir' }, 'dangling': { symlink: 'does-not-exist' },
    })
  }

  test("type 'file' (default) lists regular files only, never symlinks or folders", async (t) => {
    const dir = linkTree(t)
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir })), ['dir/inner.txt', 'file.txt'])
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, type: 'file' })), ['dir/inner.txt', 'file.txt'])
  })

  test("type 'dir' lists folders only (size 0); symlinks to folders are not folders", async (t) => {
    const dir = linkTree(t)
    const r = await find('**/*', { cwd: dir, type: 'dir' })
    assert.deepEqual(sortedPaths(r), ['dir', 'dir/sub'])
    for (const e of r.entries) {
      assert.equal(e.type, 'dir')
      assert.equal(e.size, 0)
    }
  })

  test("type 'any' lists files, folders and symlinks (as 'symlink'), never following links", async (t) => {
    const dir = linkTree(t)
    const r = await find('**/*', { cwd: dir, type: 'any', ...byName })
    assert.deepEqual(r.entries.map((e) => [e.path, e.type]), [
      ['dangling', 'symlink'], ['dir', 'dir'], ['dir-link', 'symlink'], ['dir/inner.txt', 'file'],
      ['dir/sub', 'dir'], ['file-link', 'symlink'], ['file.txt', 'file'],
    ])
    assert.ok(!paths(r).some((p) => p.startsWith('dir-link/')), 'a symlinked folder is never descended')
  })

  test('a symlink loop (link to a parent folder) finishes and is listed once as a symlink', async (t) => {
    const dir = tmpTree(t, { 'a/b/f.txt': '', 'a/b/up': { symlink: '..' }, 'a/b/root': { symlink: '../..' } })
    const r = await find('**/*', { cwd: dir, type: 'any', ...byName })
    assert.deepEqual(r.entries.map((e) => [e.path, e.type]), [
      ['a', 'dir'], ['a/b', 'dir'], ['a/b/f.txt', 'file'], ['a/b/root', 'symlink'], ['a/b/up', 'symlink'],
    ])
    assert.equal(r.matched, 5)
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir })), ['a/b/f.txt'])
  })

  test('.git/ is never listed, even with gitignore: false and hidden: true', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '', '.gitignore': 'ignored.txt\n', 'ignored.txt': '', 'sub/.git': 'gitdir: elsewhere\n', 'sub/b.txt': '' })
    gitInit(dir)
    for (const opts of [{}, { gitignore: false, hidden: true }]) {
      const r = await find('**/*', { cwd: dir, type: 'any', ...opts })
      const listed = paths(r)
      assert.ok(!listed.some((p) => p === '.git' || p.startsWith('.git/') || p.endsWith('/.git') || p.includes('/.git/')), listed.join(','))
      assert.ok(listed.includes('.gitignore') && listed.includes('sub/b.txt'))
      assert.equal(listed.includes('ignored.txt'), opts.gitignore === false)
    }
    const explicit = await find('**/.git/**', { cwd: dir, type: 'any', gitignore: false })
    assert.deepEqual(explicit.entries, [])
    const gitDir = await find('.git', { cwd: dir, type: 'any', gitignore: false })
    assert.deepEqual(gitDir.entries, [])
  })
})

describe('ignore rules', () => {
  test('nested .gitignore with negation, .ignore and .git/info/exclude apply in a git repo', async (t) => {
    const dir = tmpTree(t, {
      '.gitignore': '*.log\nbuild/\n',
      'sub/.gitignore': '!keep.log\n',
      'sub/keep.log': '', 'sub/drop.log': '', 'top.log': '',
      'sub/build/out.js': '', 'build/x.js': '',
      '.ignore': 'notes.md\n', 'notes.md': '', 'deep/notes.md': '',
      'secret.txt': '', 'a.txt': '',
    })
    gitInit(dir)
    fs.writeFileSync(path.join(dir, '.git/info/exclude'), 'secret.txt\n')
    const on = await find('**/*', { cwd: dir, ...byName })
    assert.deepEqual(paths(on), ['.gitignore', '.ignore', 'a.txt', 'sub/.gitignore', 'sub/keep.log'])
    const off = await find('**/*', { cwd: dir, gitignore: false, ...byName })
    assert.deepEqual(paths(off), [
      '.gitignore', '.ignore', 'a.txt', 'build/x.js', 'deep/notes.md', 'notes.md', 'secret.txt',
      'sub/.gitignore', 'sub/build/out.js', 'sub/drop.log', 'sub/keep.log', 'top.log',
    ])
  })

  test('searching a subfolder of a repo applies the .gitignore files from the repo root down', async (t) => {
    const dir = tmpTree(t, { '.gitignore': '*.log\n', 'pkg/a.log': '', 'pkg/a.js': '', 'pkg/.gitignore': 'gen/\n', 'pkg/gen/g.js': '', 'pkg/src/b.js': '' })
    gitInit(dir)
    const r = await find('**/*', { cwd: dir, path: 'pkg', ...byName })
    assert.deepEqual(paths(r), ['.gitignore', 'a.js', 'src/b.js'])
  })

  test('a .gitignore above the repository root does not apply', async (t) => {
    const dir = tmpTree(t, { '.gitignore': '*.txt\n', 'repo/a.txt': '', 'repo/sub/b.txt': '', 'repo/c.md': '' })
    gitInit(path.join(dir, 'repo'))
    const r = await find('**/*', { cwd: dir, path: 'repo', ...byName })
    assert.deepEqual(paths(r), ['a.txt', 'c.md', 'sub/b.txt'])
  })

  test('outside any repo, only ignore files at and below the search root apply', async (t) => {
    const dir = tmpTree(t, { '.gitignore': '*.txt\n', 'proj/a.txt': '', 'proj/.gitignore': '*.tmp\n', 'proj/b.tmp': '', 'proj/deep/.gitignore': 'c.md\n', 'proj/deep/c.md': '', 'proj/d.md': '' })
    const r = await find('**/*', { cwd: dir, path: 'proj', ...byName })
    assert.deepEqual(paths(r), ['.gitignore', 'a.txt', 'd.md', 'deep/.gitignore'])
  })

  test('hidden: false leaves out dotfiles and everything in dot-folders', async (t) => {
    const dir = tmpTree(t, { '.env': '', '.config/app/x.json': '', 'src/.secret': '', 'src/main.js': '', 'a.json': '' })
    const on = await find('**/*', { cwd: dir, ...byName })
    assert.deepEqual(paths(on), ['.config/app/x.json', '.env', 'a.json', 'src/.secret', 'src/main.js'])
    const off = await find('**/*', { cwd: dir, hidden: false, type: 'any', ...byName })
    assert.deepEqual(paths(off), ['a.json', 'src', 'src/main.js'])
  })

  test('exclude: a glob without / matches any basename at any depth; an excluded folder is left out with all it holds', async (t) => {
    const dir = tmpTree(t, {
      'dist/a.js': '', 'pkg/dist/b.js': '', 'pkg/index.js': '', 'A.LOG': '', 'k/b.log': '', 'keep.ts': '',
      'src/gen/x.ts': '', 'lib/src/gen/y.ts': '',
    })
    const r = await find('**/*', { cwd: dir, type: 'any', exclude: ['dist', '*.log'], ...byName })
    assert.deepEqual(paths(r), ['k', 'keep.ts', 'lib', 'lib/src', 'lib/src/gen', 'lib/src/gen/y.ts', 'pkg', 'pkg/index.js', 'src', 'src/gen', 'src/gen/x.ts'])
    const anchored = await find('**/*.ts', { cwd: dir, exclude: ['src/gen'], ...byName })
    assert.deepEqual(paths(anchored), ['keep.ts', 'lib/src/gen/y.ts'], "'src/gen' is anchored at the search root")
    const cs = await find('**/*', { cwd: dir, exclude: ['*.log'], caseSensitive: true, ...byName })
    assert.ok(paths(cs).includes('A.LOG') && !paths(cs).includes('k/b.log'))
  })
})

describe('sorting', () => {
  // path order:  'B.txt' < 'a-b.txt' < 'a.txt' < 'a/z.txt' < 'c.txt'  (bytewise)
  function sortTree(t) {
    const dir = tmpTree(t, {
      'a.txt': { content: 30, mtime: 1_700_000_300 },
      'B.txt': { content: 10, mtime: 1_700_000_100 },
      'a-b.txt': { content: 20, mtime: 1_700_000_300 },
      'a/z.txt': { content: 20, mtime: 1_700_000_050 },
      'c.txt': { content: 40, mtime: 1_700_000_200 },
    })
    return dir
  }

  test("'recent' is the default: newest first, ties by path ascending", async (t) => {
    const dir = sortTree(t)
    const expected = ['a-b.txt', 'a.txt', 'c.txt', 'B.txt', 'a/z.txt']
    assert.deepEqual(paths(await find('**/*', { cwd: dir })), expected)
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'recent' })), expected)
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'recent', reverse: true })), [...expected].reverse())
  })

  test("'name' sorts by relative path, bytewise; 'none' is the same order", async (t) => {
    const dir = sortTree(t)
    const expected = ['B.txt', 'a-b.txt', 'a.txt', 'a/z.txt', 'c.txt']
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'name' })), expected)
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'none' })), expected)
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'name', reverse: true })), [...expected].reverse())
  })

  test("'mtime' and 'size' ascend with ties by path; reverse flips", async (t) => {
    const dir = sortTree(t)
    const mtime = ['a/z.txt', 'B.txt', 'c.txt', 'a-b.txt', 'a.txt']
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'mtime' })), mtime)
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'mtime', reverse: true })), [...mtime].reverse())
    const size = ['B.txt', 'a-b.txt', 'a/z.txt', 'a.txt', 'c.txt']
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'size' })), size)
    assert.deepEqual(paths(await find('**/*', { cwd: dir, sortBy: 'size', reverse: true })), [...size].reverse())
  })

  test('sorting happens before limit: the largest N and the newest N are right', async (t) => {
    const spec = {}
    // path order and size/mtime order disagree, so a limit applied before sorting would show.
    for (let i = 0; i < 60; i++) {
      const name = `f${String(i).padStart(2, '0')}.dat`
      spec[name] = { content: ((i * 37) % 60) * 10 + 1, mtime: 1_700_000_000 + ((i * 23) % 60) }
    }
    const dir = tmpTree(t, spec)
    const all = Object.entries(spec).map(([p, v]) => ({ p, size: v.content, mtime: v.mtime }))
    const largest = [...all].sort((a, b) => b.size - a.size).slice(0, 5).map((x) => x.p)
    const r = await find('*.dat', { cwd: dir, sortBy: 'size', reverse: true, limit: 5 })
    assert.deepEqual(paths(r), largest)
    assert.deepEqual(r.entries.map((e) => e.size), largest.map((p) => spec[p].content))
    assert.equal(r.matched, 60)
    const newest = [...all].sort((a, b) => b.mtime - a.mtime).slice(0, 3).map((x) => x.p)
    assert.deepEqual(paths(await find('*.dat', { cwd: dir, limit: 3 })), newest)
    const smallest = [...all].sort((a, b) => a.size - b.size).slice(0, 4).map((x) => x.p)
    assert.deepEqual(paths(await find('*.dat', { cwd: dir, sortBy: 'size', limit: 4 })), smallest)
  })

  test('filters apply before limit', async (t) => {
    const spec = {}
    for (let i = 0; i < 20; i++) spec[`f${String(i).padStart(2, '0')}.txt`] = i % 2 ? 100 : 1
    const dir = tmpTree(t, spec)
    const r = await find('*.txt', { cwd: dir, minSize: 100, limit: 3, sortBy: 'name' })
    assert.deepEqual(paths(r), ['f01.txt', 'f03.txt', 'f05.txt'])
    assert.equal(r.matched, 10)
  })
})

describe('filters', () => {
  test('maxDepth 0 lists only direct children; maxDepth 1 one level more', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '', 'd/b.txt': '', 'd/e/c.txt': '', 'd/e/f/g.txt': '' })
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, maxDepth: 0, type: 'any' })), ['a.txt', 'd'])
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, maxDepth: 1, type: 'any' })), ['a.txt', 'd', 'd/b.txt', 'd/e'])
    assert.deepEqual(sortedPaths(await find('**/*', { cwd: dir, maxDepth: Infinity })), ['a.txt', 'd/b.txt', 'd/e/c.txt', 'd/e/f/g.txt'])
  })

  test('modifiedSince: ISO date (UTC midnight), ISO date-time, epoch ms, Date — all strictly after', async (t) => {
    const midnight = Date.UTC(2024, 0, 1) / 1000
    const dir = tmpTree(t, {
      'before.txt': { mtime: midnight - 1 },
      'exact.txt': { mtime: midnight },
      'after.txt': { mtime: midnight + 3600 },
    })
    const since = async (value) => sortedPaths(await find('*', { cwd: dir, modifiedSince: value }))
    const after = ['after.txt']
    assert.deepEqual(await since('2024-01-01'), after)
    assert.deepEqual(await since('2024-01-01T00:00:00Z'), after)
    assert.deepEqual(await since('2024-01-01T02:00:00+02:00'), after)
    assert.deepEqual(await since(midnight * 1000), after)
    assert.deepEqual(await since(new Date(midnight * 1000)), after)
    assert.deepEqual(await since(midnight * 1000 - 1), ['after.txt', 'exact.txt'])
    assert.deepEqual(await since('2024-01-01T00:30:00Z'), ['after.txt'])
    assert.deepEqual(await since(new Date((midnight + 7200) * 1000)), [])
    assert.deepEqual(await since(0), ['after.txt', 'before.txt', 'exact.txt'])
  })

  test("modifiedSince ages: '30m' '1h' '24h' '7d' count back from now", async (t) => {
    const now = Date.now() / 1000
    const dir = tmpTree(t, {
      'min10.txt': { mtime: now - 10 * 60 },
      'min45.txt': { mtime: now - 45 * 60 },
      'h5.txt': { mtime: now - 5 * 3600 },
      'd3.txt': { mtime: now - 3 * 86400 },
      'd30.txt': { mtime: now - 30 * 86400 },
    })
    const since = async (value) => sortedPaths(await find('*', { cwd: dir, modifiedSince: value }))
    assert.deepEqual(await since('30m'), ['min10.txt'])
    assert.deepEqual(await since('1h'), ['min10.txt', 'min45.txt'])
    assert.deepEqual(await since('24h'), ['h5.txt', 'min10.txt', 'min45.txt'])
    assert.deepEqual(await since('7d'), ['d3.txt', 'h5.txt', 'min10.txt', 'min45.txt'])
  })

  // Sub-millisecond mtimes, as files written by tools get them.
  function subMsTree(t) {
    const spec = {}
    for (let i = 0; i < 50; i++) spec[`f${i}`] = ''
    const dir = tmpTree(t, spec)
    for (let i = 0; i < 50; i++) fs.utimesSync(path.join(dir, `f${i}`), 1_700_000_000, 1_700_000_000.123456789 + i * 0.001000337)
    return dir
  }

  test('entry mtimeMs equals fs.statSync(file).mtimeMs for sub-millisecond mtimes', async (t) => {
    const dir = subMsTree(t)
    const r = await find('*', { cwd: dir, limit: 100 })
    assert.equal(r.entries.length, 50)
    const differ = r.entries
      .filter((e) => e.mtimeMs !== fs.statSync(path.join(dir, e.path)).mtimeMs)
      .map((e) => `${e.path}: ${e.mtimeMs} vs fs.stat ${fs.statSync(path.join(dir, e.path)).mtimeMs}`)
    assert.deepEqual(differ, [])
  })

  test("modifiedSince: fs.statSync(file).mtimeMs leaves that file out (strictly after); a bound just below keeps it", async (t) => {
    const dir = subMsTree(t)
    const wrong = []
    for (let i = 0; i < 50; i++) {
      const { mtimeMs } = fs.statSync(path.join(dir, `f${i}`))
      const at = await find(`f${i}`, { cwd: dir, modifiedSince: mtimeMs })
      if (at.entries.length !== 0) wrong.push(`f${i} kept at its own mtimeMs ${mtimeMs}`)
      const below = await find(`f${i}`, { cwd: dir, modifiedSince: mtimeMs - 0.001 })
      if (below.entries.length !== 1) wrong.push(`f${i} left out just below ${mtimeMs}`)
    }
    assert.deepEqual(wrong, [])
  })

  test('minSize / maxSize: numbers or 1024-based strings, inclusive', async (t) => {
    const dir = tmpTree(t, {
      'zero': 0, 'k-1': 1023, 'k': 1024, 'k1.5': 1536, 'k2': 2048,
      'm1.5': 1_572_864, 'm1.5+1': 1_572_865,
    })
    const sized = async (opts) => sortedPaths(await find('*', { cwd: dir, ...opts }))
    assert.deepEqual(await sized({ minSize: '1KB' }), ['k', 'k1.5', 'k2', 'm1.5', 'm1.5+1'])
    assert.deepEqual(await sized({ minSize: 1024, maxSize: '1.5KB' }), ['k', 'k1.5'])
    assert.deepEqual(await sized({ maxSize: 1023 }), ['k-1', 'zero'])
    assert.deepEqual(await sized({ minSize: '1.5MB' }), ['m1.5', 'm1.5+1'])
    assert.deepEqual(await sized({ minSize: '1KB', maxSize: '1.5MB' }), ['k', 'k1.5', 'k2', 'm1.5'])
    assert.deepEqual(await sized({ minSize: 0, maxSize: 0 }), ['zero'])
    assert.deepEqual(await sized({ minSize: '2kb', maxSize: '2KiB' }), ['k2'])
  })

  test('size filters never remove folders', async (t) => {
    const dir = tmpTree(t, { 'd/f': 10, 'e/': null })
    assert.deepEqual(sortedPaths(await find('*', { cwd: dir, type: 'dir', minSize: 1 })), ['d', 'e'])
    assert.deepEqual(sortedPaths(await find('*', { cwd: dir, type: 'dir', maxSize: 0 })), ['d', 'e'])
    assert.deepEqual(sortedPaths(await find('**', { cwd: dir, type: 'any', minSize: 11 })), ['d', 'e'])
  })
})
