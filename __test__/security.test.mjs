// Security: `roots` cannot be escaped by '..', absolute paths,
// symlinks (in the path or inside the tree), NUL bytes, Windows-style paths or
// patterns such as '../**' and '/etc/**'; a policy that throws or answers
// garbage denies, with the message docs/API.md gives.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import { createTools, find, searchFiles } from '../index.mjs'
import { paths, rejectsWith, tmpTree } from './helpers.mjs'

const ALL = { type: 'any', sortBy: 'name', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity }

/**
 * dir/root is the sandbox; dir/outside holds the secret. Inside the root:
 * links out (direct, chained, relative, absolute, to /), a link that stays
 * inside, and folders whose names look like paths elsewhere.
 */
function sandbox(t) {
  const dir = tmpTree(t, {
    'root/in.txt': 'needle', 'root/sub/deep/s.txt': 'needle', 'root/etc/inside.txt': 'needle',
    'outside/outside-secret.txt': 'secret needle', 'outside/sub/more-secret.txt': 'secret needle',
    'root-evil/evil-secret.txt': 'secret needle',
    'root/inner-link': { symlink: 'sub' },
    'root/link-out': { symlink: '../outside' },
    'root/link-chain': { symlink: 'link-out' },
    'root/link-root': { symlink: '/' },
    'root/sub/link-up': { symlink: '../..' },
    'root/..\\outside/win.txt': 'needle',
  })
  fs.symlinkSync(path.join(dir, 'outside'), path.join(dir, 'root/link-abs'))
  return { dir, root: path.join(dir, 'root'), outside: path.join(dir, 'outside') }
}

/** Asserts that every entry of `r` lies inside `root` and none is a secret. */
function allInside(r, root, what) {
  for (const e of r.entries) {
    const full = path.resolve(r.path, e.path)
    assert.ok(full === root || full.startsWith(`${root}/`), `${what}: ${e.path} resolves outside ${root}`)
    assert.ok(!e.path.split('/').includes('..'), `${what}: ${e.path} has a '..' segment`)
    assert.ok(!/secret/.test(e.path), `${what}: ${e.path} is from outside`)
  }
}

describe('the search path cannot leave roots', () => {
  test("'..', absolute paths and symlinks in the path are outside-root", async (t) => {
    const { dir, root, outside } = sandbox(t)
    const escapes = [
      '..', '../', '../outside', '../../', 'sub/../..', 'sub/../../outside', './../outside', 'sub/deep/../../../outside',
      '/', '/etc', '/tmp', outside, `${root}/../outside`, `${root}-evil`, '../root-evil',
      'link-out', 'link-out/', 'link-out/sub', 'link-chain', 'link-abs', 'link-root', 'link-root/etc', 'sub/link-up',
      'sub/link-up/outside', 'inner-link/link-up', 'link-out/missing/deeper',
    ]
    for (const p of escapes) {
      await rejectsWith(find('**/*', { cwd: root, path: p, roots: [root] }), 'outside-root')
      await rejectsWith(searchFiles({ pattern: 'needle', cwd: root, path: p, roots: [root] }), 'outside-root')
    }
    await rejectsWith(find('*', { cwd: dir, path: 'outside', roots: ['root'] }), 'outside-root')
    await rejectsWith(find('*', { cwd: '/', path: outside, roots: [root] }), 'outside-root')
  })

  test('paths that stay inside, however written, are searched and list only what is inside', async (t) => {
    const { root } = sandbox(t)
    for (const p of ['.', './', 'sub/..', 'sub/deep/../..', 'inner-link', 'inner-link/deep', `${root}/sub`, 'sub/link-up/root']) {
      const r = await find('**/*', { cwd: root, path: p, roots: [root], ...ALL })
      allInside(r, root, p)
    }
    for (const roots of [[`${root}/`], [`${root}/.`], [`${root}/sub/..`], ['/'], [root, '/nonexistent']]) {
      const r = await find('**/*', { cwd: root, roots, ...ALL })
      assert.ok(r.entries.length > 5, JSON.stringify(roots))
      allInside(r, root, JSON.stringify(roots))
    }
  })

  test('a NUL byte in path, cwd or roots is invalid-argument, never a truncated path', async (t) => {
    const { root } = sandbox(t)
    for (const opts of [{ path: 'sub\0/../..' }, { path: '..\0' }, { path: '\0' }, { cwd: `${root}\0/..` }, { roots: [`${root}\0`] }, { roots: [root, '/\0'] }]) {
      await rejectsWith(find('*', { cwd: root, roots: [root], ...opts }), 'invalid-argument')
      await rejectsWith(searchFiles({ pattern: 'x', cwd: root, roots: [root], ...opts }), 'invalid-argument')
    }
  })

  test('Windows-style paths are plain names on POSIX: they stay inside (not-found, or the folder of that name)', async (t) => {
    const { root } = sandbox(t)
    for (const p of ['C:\\Windows', 'C:\\', 'C:/Windows', '..\\..\\etc', '\\\\server\\share', '\\\\?\\C:\\', '\\..\\outside', 'sub\\..\\..']) {
      const err = await find('*', { cwd: root, path: p, roots: [root] }).then(() => null, (e) => e)
      assert.ok(err && err.code === 'not-found', `${p}: ${err && err.code} ${err && err.message}`)
      assert.ok(err.message.includes(path.join(root, p)), err.message)
    }
    const r = await find('*', { cwd: root, path: '..\\outside', roots: [root], ...ALL })
    assert.equal(r.path, path.join(root, '..\\outside'))
    assert.deepEqual(paths(r), ['win.txt'])
  })

  test('roots given through a symlink confine to where the link leads', async (t) => {
    const { dir, root } = sandbox(t)
    fs.symlinkSync(root, path.join(dir, 'root-alias'))
    const alias = path.join(dir, 'root-alias')
    const r = await find('**/*', { cwd: alias, roots: [alias], ...ALL })
    allInside({ ...r, path: root }, root, 'through the alias')
    assert.ok(paths(r).includes('in.txt'))
    await rejectsWith(find('*', { cwd: alias, path: '../outside', roots: [alias] }), 'outside-root')
    await rejectsWith(find('*', { cwd: alias, path: 'link-out', roots: [alias] }), 'outside-root')
  })

  test('createTools: the workspace is the sandbox for every tool', async (t) => {
    const { root } = sandbox(t)
    const tools = createTools({ cwd: root })
    for (const p of ['..', '../outside', '/', '/etc', 'link-out', 'link-root']) {
      await rejectsWith(tools.find({ pattern: '*', path: p }), 'outside-root')
      await rejectsWith(tools.findFiles({ pattern: '*', path: p }), 'outside-root')
      await rejectsWith(tools.searchFiles({ pattern: 'needle', path: p }), 'outside-root')
      const answer = await tools.call('find', { pattern: '*', path: p })
      assert.equal(answer.isError, true)
      assert.match(answer.text, /outside-root/)
      assert.doesNotMatch(answer.text, /secret/)
    }
    await rejectsWith(tools.find({ pattern: '*', cwd: '/' }), 'invalid-argument')
    await rejectsWith(tools.find({ pattern: '*', roots: ['/'] }), 'invalid-argument')
  })
})

describe('patterns cannot reach outside the search path', () => {
  const PATTERNS = [
    '../**', '../*', '../outside/**', '../outside/outside-secret.txt', '/etc/**', '/etc/passwd', '**/../**', 'sub/../../**',
    '..', '../../../../../../etc/passwd', '{..,.}/**', '{../outside,sub}/**', '**/..', '**/../outside/*', '~/**',
    '../root-evil/*', './../**', '.*/**', '**/.*', 'link-out/**', 'link-root/**', 'link-root/etc/passwd', 'sub/link-up/**',
    '**/*secret*', '**/outside-secret.txt', '/**', '//**', '\\.\\./**', '..\\**',
  ]

  test('no glob lists anything outside, in find, findFiles-style and name search', async (t) => {
    const { root, outside } = sandbox(t)
    for (const pattern of PATTERNS) {
      const r = await find(pattern, { cwd: root, roots: [root], ...ALL })
      allInside(r, root, pattern)
      if (r.hint) assert.doesNotMatch(r.hint, /secret|outside-|root-evil/, `${pattern}: ${r.hint}`)
      const names = await searchFiles({ pattern, cwd: root, roots: [root], target: 'files', maxResults: 500 })
      for (const f of names.files) assert.ok(!/secret/.test(f) && !f.split('/').includes('..'), `${pattern}: ${f}`)
      const content = await searchFiles({ pattern: 'needle', fileGlob: pattern, cwd: root, roots: [root], outputMode: 'files', maxResults: 500 })
      for (const f of content.files) assert.ok(!/secret/.test(f), `${pattern}: ${f}`)
    }
    // The absolute-looking globs are read relative to the search path ('/etc/**' is 'etc/**').
    assert.deepEqual(paths(await find('/etc/**', { cwd: root, roots: [root], ...ALL })), ['etc/inside.txt'])
    assert.ok(fs.existsSync(path.join(outside, 'outside-secret.txt')), 'the secret is really there')
  })

  test('regexes and matchBase cannot either', async (t) => {
    const { root } = sandbox(t)
    for (const pattern of ['.*', '\\.\\./.*', '^\\.\\.$', 'secret', '/', '.*passwd.*']) {
      allInside(await find(pattern, { cwd: root, roots: [root], regex: true, ...ALL }), root, pattern)
    }
    for (const pattern of ['*', '..', '*secret*', 'passwd']) {
      allInside(await find(pattern, { cwd: root, roots: [root], matchBase: true, ...ALL }), root, pattern)
    }
    const grep = await searchFiles({ pattern: 'secret', cwd: root, roots: [root], noIgnore: true })
    assert.equal(grep.matchCount, 0, 'content search never reads a file outside')
  })

  test('the sandbox holds while the tree changes under the walk',
    { timeout: 30_000 },
    async (t) => {
      const { root } = sandbox(t)
      fs.renameSync(path.join(root, 'sub'), path.join(root, '.sub-dir'))
      fs.symlinkSync(path.join(root, '..', 'outside'), path.join(root, '.sub-link'))
      fs.symlinkSync('etc', path.join(root, 'flip'))
      fs.mkdirSync(path.join(root, 'pad'))
      for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(root, 'pad', `p${i}`), '')
      for (let i = 0; i < 2000; i++) fs.linkSync(path.join(root, 'pad', `p${i}`), path.join(root, `pad-${i}`))
      const script = `
        const fs = require('fs'); const [root, ms] = [process.argv[1], Number(process.argv[2])]; const until = Date.now() + ms
        const tryIt = (fn) => { try { fn() } catch {} }
        while (Date.now() < until) {
          tryIt(() => fs.renameSync(root + '/.sub-dir', root + '/sub')); tryIt(() => fs.renameSync(root + '/sub', root + '/.sub-dir'))
          tryIt(() => fs.renameSync(root + '/.sub-link', root + '/sub')); tryIt(() => fs.renameSync(root + '/sub', root + '/.sub-link'))
          tryIt(() => { fs.symlinkSync('link-out', root + '/.flip'); fs.renameSync(root + '/.flip', root + '/flip') })
          tryIt(() => { fs.symlinkSync('etc', root + '/.flip'); fs.renameSync(root + '/.flip', root + '/flip') })
        }`
      const child = spawn(process.execPath, ['-e', script, root, '2500'], { stdio: 'ignore' })
      let running = true
      const exited = new Promise((resolve) => child.on('exit', () => { running = false; resolve() }))
      const seen = { walks: 0, rootCalls: 0, escapes: [] }
      try {
        while (running) {
          const r = await find('**/*', { cwd: root, roots: [root], type: 'any', sortBy: 'name', limit: Infinity, maxLimit: Infinity, maxBytes: Infinity, hidden: false })
          seen.walks++
          for (const e of r.entries) if (/secret/.test(e.path)) seen.escapes.push(`walk: ${e.path}`)
          for (let i = 0; i < 10; i++) {
            seen.rootCalls++
            // 'flip' always exists (swapped by rename) and leads to etc/ or, through link-out, outside.
            const q = await find('**/*', { cwd: root, path: 'flip', roots: [root], ...ALL }).catch((e) => {
              assert.equal(e.code, 'outside-root', `${e.code}: ${e.message}`)
              return { entries: [] }
            })
            for (const e of q.entries) if (/secret/.test(e.path)) seen.escapes.push(`root: ${e.path}`)
          }
        }
      } finally {
        // Stop the swapping before the temp dir is removed.
        if (child.exitCode === null) child.kill()
        await exited
      }
      const kinds = (k) => new Set(seen.escapes.filter((e) => e.startsWith(k))).size
      t.diagnostic(`${seen.walks} walks, ${seen.rootCalls} rooted calls; entries from outside: ${kinds('walk')} distinct in walks, ${kinds('root')} in rooted calls (${seen.escapes.length} in all)`)
      assert.deepEqual(seen.escapes, [])
    })
})

describe('a policy that throws or answers garbage denies', () => {
  const denied = (tool, p) => `permission denied: ${tool} is not allowed for \`${p}\``
  const needsApproval = (tool, p) => `approval required: ${tool} requires application approval for \`${p}\` before execution`

  test('throwing anything, rejecting with anything (even "allow"), or answering a non-string denies', async (t) => {
    const { root } = sandbox(t)
    const policies = [
      () => { throw 'allow' }, () => { throw null }, () => { throw undefined }, () => { throw new TypeError('x') },
      () => Promise.reject('allow'), async () => { throw 'allow' },
      () => new String('allow'), () => ({ toString: () => 'allow' }), () => ['allow'], () => Symbol('allow'),
      () => 'allow ', () => ' allow', () => 'allow\0', () => 'Allow', () => 'require-approval', () => () => 'allow',
      () => ({ then: () => { throw new Error('bad thenable') } }),
      () => new Proxy({}, { get() { throw new Error('trap') } }),
      new Proxy(() => 'allow', { apply() { throw new Error('apply trap') } }),
      class Policy {}, function* gen() { yield 'allow' }, async function* agen() { yield 'allow' },
      () => 10n, () => NaN, () => Object.create(null),
    ]
    for (const [i, policy] of policies.entries()) {
      const err = await rejectsWith(find('*', { cwd: root, policy }), 'permission-denied')
      assert.equal(err.message, denied('find', root), `policy #${i}`)
      const s = await rejectsWith(searchFiles({ pattern: 'x', cwd: root, policy }), 'permission-denied')
      assert.equal(s.message, denied('search_files', root), `policy #${i}`)
    }
  })

  test('a thenable answering allow is a promise of allow', async (t) => {
    const { root } = sandbox(t)
    const r = await find('*', { cwd: root, policy: () => ({ then: (resolve) => resolve('allow') }) })
    assert.deepEqual(paths(r), ['in.txt'])
  })

  test('approve throwing, rejecting or answering anything but true refuses', async (t) => {
    const { root } = sandbox(t)
    const approves = [
      () => { throw true }, () => Promise.reject(true), () => 'true', () => 1, () => new Boolean(true), () => [true],
      () => ({ then: (resolve) => resolve('true') }), () => new Proxy({}, { get() { throw new Error('trap') } }),
    ]
    for (const approve of approves) {
      const err = await rejectsWith(find('*', { cwd: root, policy: () => 'require_approval', approve }), 'approval-required')
      assert.equal(err.message, needsApproval('find', root))
    }
    const tools = createTools({ cwd: root, policy: () => 'require_approval', approve: () => 'yes' })
    const err = await rejectsWith(tools.findFiles({ pattern: '*' }), 'approval-required')
    assert.equal(err.message, needsApproval('find_files', root))
  })

  test('a policy that never answers is stopped by the signal', async (t) => {
    const { root } = sandbox(t)
    // (Not AbortSignal.timeout: its timer does not keep the process alive.)
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 50)
    await rejectsWith(find('*', { cwd: root, policy: () => new Promise(() => {}), signal: ac.signal }), 'aborted')
  })

  test('a policy that rewrites the options or the request changes nothing about what is searched', async (t) => {
    const { root } = sandbox(t)
    const opts = { pattern: '**/*', cwd: root, roots: [root], ...ALL }
    const r = await find({
      ...opts,
      policy(req) {
        opts.cwd = '/'; opts.path = '/etc'; opts.roots = ['/']; opts.pattern = '../**'
        req.path = '/'; Object.freeze(req)
        return 'allow'
      },
    })
    assert.equal(r.path, root)
    allInside(r, root, 'rewritten')
    assert.ok(paths(r).includes('in.txt'))
  })

  test('a policy may itself call find (re-entrant) without deadlock', async (t) => {
    const { root } = sandbox(t)
    const r = await find('*', {
      cwd: root,
      policy: async (req) => ((await find('*', { cwd: req.path })).entries.length > 0 ? 'allow' : 'deny'),
    })
    assert.deepEqual(paths(r), ['in.txt'])
    await sleep(1)
  })
})
