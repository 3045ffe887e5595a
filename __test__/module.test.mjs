// The package surface: ESM and CJS entries, the package name, FindFilesError.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { describe, test } from 'node:test'

import defaultExport, * as esm from '../index.mjs'
import { FindFilesError, find, findFiles, formatFindResult } from '../index.mjs'
import { REPO, tmpTree } from './helpers.mjs'

const require = createRequire(import.meta.url)
const cjs = require('../index.js')
const EXPORTS = ['FindFilesError', 'find', 'findFiles', 'formatFindResult']

describe('module entries', () => {
  test('ESM and CJS expose the same functions', () => {
    for (const name of EXPORTS) {
      assert.equal(typeof cjs[name], 'function', `CJS ${name}`)
      assert.equal(typeof esm[name], 'function', `ESM ${name}`)
    }
    const named = Object.keys(esm).filter((k) => k !== 'default').sort()
    assert.deepEqual(named, Object.keys(cjs).sort(), 'the ESM named exports are exactly the CJS exports')
    for (const name of named) assert.equal(esm[name], cjs[name], `${name} is the same value in ESM and CJS`)
    assert.equal(find, cjs.find)
    assert.equal(findFiles, cjs.findFiles)
    assert.equal(formatFindResult, cjs.formatFindResult)
    assert.equal(defaultExport, cjs, 'the ESM default export is the CJS module')
  })

  test('both entries search: the ESM find and the CJS find agree', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '', 'b/c.txt': '' })
    const viaEsm = await find('**/*.txt', { cwd: dir, sortBy: 'name' })
    const viaCjs = await cjs.find('**/*.txt', { cwd: dir, sortBy: 'name' })
    assert.deepEqual(viaEsm, viaCjs)
    assert.deepEqual(viaEsm.entries.map((e) => e.path), ['a.txt', 'b/c.txt'])
  })

  test("the package name resolves through package.json \"exports\" (require and import)", async (t) => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'))
    assert.equal(pkg.name, 'agent-find')
    if (!pkg.exports) return t.skip('package.json has no "exports" yet: self-reference by name is not possible')
    const byName = require('agent-find')
    assert.equal(byName, cjs)
    assert.equal(require.resolve('agent-find'), path.join(REPO, 'index.js'))
    const imported = await import('agent-find')
    assert.equal(imported.find, cjs.find)
    assert.equal(imported.FindFilesError, FindFilesError)
    assert.equal(import.meta.resolve('agent-find'), new URL('../index.mjs', import.meta.url).href)
  })
})

describe('FindFilesError', () => {
  test('is a class extending Error with name and code', () => {
    const cause = new Error('underlying')
    const err = new FindFilesError('not-found', 'search path `/x` does not exist', { cause })
    assert.ok(err instanceof FindFilesError)
    assert.ok(err instanceof Error)
    assert.equal(err.name, 'FindFilesError')
    assert.equal(err.code, 'not-found')
    assert.equal(err.message, 'search path `/x` does not exist')
    assert.equal(err.cause, cause)
    assert.ok(String(err.stack).includes('FindFilesError'))
    assert.equal(Object.getPrototypeOf(FindFilesError.prototype), Error.prototype)
  })

  test('errors from find are instances of the exported class, from either entry', async (t) => {
    const dir = tmpTree(t, {})
    const err = await find('*', { cwd: dir, path: 'missing' }).catch((e) => e)
    assert.ok(err instanceof FindFilesError)
    assert.ok(err instanceof cjs.FindFilesError)
    assert.equal(err.code, 'not-found')
    const err2 = await cjs.findFiles('*', path.join(dir, 'missing')).catch((e) => e)
    assert.ok(err2 instanceof FindFilesError)
    assert.equal(err2.code, 'not-found')
  })

  test('without a loadable binary the loader throws a clear error naming the platform', (t) => {
    // index.js and js/ alone, without binding.js and the .node beside them.
    const dir = tmpTree(t, {})
    fs.copyFileSync(path.join(REPO, 'index.js'), path.join(dir, 'index.js'))
    fs.cpSync(path.join(REPO, 'js'), path.join(dir, 'js'), { recursive: true })
    const abi = process.platform === 'linux' ? (process.report.getReport().header.glibcVersionRuntime ? '-gnu' : '-musl') : ''
    const target = `${process.platform}-${process.arch}${abi}`
    assert.throws(() => createRequire(path.join(dir, 'x.js'))('./index.js'), (err) => {
      assert.ok(err instanceof Error)
      assert.ok(err.message.includes(`(${target})`), err.message)
      assert.match(err.message, /agent-find/)
      assert.ok(err.message.includes(`agent-find-${target}`), 'names the package to install')
      assert.ok(err.cause, 'keeps the underlying error as cause')
      return true
    })
  })
})
