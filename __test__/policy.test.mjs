// The policy / approve hooks: what they are asked, when, and what each answer does.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import { find } from '../index.mjs'
import { paths, rejectsWith, sortedPaths, tmpTree } from './helpers.mjs'

const denied = (p) => `permission denied: find is not allowed for \`${p}\``
const needsApproval = (p) => `approval required: find requires application approval for \`${p}\` before execution`

/** A recording hook: answers with `answer(req)` and keeps every request it saw. */
function recorder(answer) {
  const calls = []
  const fn = (req) => {
    calls.push(structuredClone(req))
    return answer(req)
  }
  fn.calls = calls
  return fn
}

async function deniedWith(promise, p) {
  const err = await rejectsWith(promise, 'permission-denied')
  assert.equal(err.message, denied(p))
}

async function approvalWith(promise, p) {
  const err = await rejectsWith(promise, 'approval-required')
  assert.equal(err.message, needsApproval(p))
}

describe('policy', () => {
  test("is asked once with { tool: 'find', operation: 'search_files', path } and 'allow' proceeds", async (t) => {
    const dir = tmpTree(t, { 'src/a.ts': '', 'src/b.ts': '' })
    const policy = recorder(() => 'allow')
    const approve = recorder(() => true)
    const r = await find('*.ts', { cwd: dir, path: 'src', policy, approve })
    assert.deepEqual(sortedPaths(r), ['a.ts', 'b.ts'])
    assert.deepEqual(policy.calls, [{ tool: 'find', operation: 'search_files', path: path.join(dir, 'src') }])
    assert.deepEqual(approve.calls, [], 'approve is not asked when the policy allows')
  })

  test('the request path is path.resolve(cwd, path): logical, not the realpath', async (t) => {
    const dir = tmpTree(t, { 'real/a.md': '', 'alias': { symlink: 'real' }, 'x/': null })
    const policy = recorder(() => 'allow')
    await find('*', { cwd: path.join(dir, 'x'), path: '../alias/', policy })
    assert.equal(policy.calls[0].path, path.resolve(path.join(dir, 'x'), '../alias/'))
    assert.equal(policy.calls[0].path, path.join(dir, 'alias'))
  })

  test("'deny' rejects with permission-denied and the exact message", async (t) => {
    const dir = tmpTree(t, { 'private/key.pem': '' })
    const approve = recorder(() => true)
    await deniedWith(find('**/*', { cwd: dir, path: 'private', policy: () => 'deny', approve }), path.join(dir, 'private'))
    assert.deepEqual(approve.calls, [])
  })

  test('any answer other than allow / require_approval denies', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    for (const answer of ['ALLOW', 'Allow', 'yes', 'approve', '', undefined, null, true, 1, {}, ['allow']]) {
      await deniedWith(find('*', { cwd: dir, policy: () => answer }), dir)
    }
  })

  test('a throwing or rejecting policy denies', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await deniedWith(find('*', { cwd: dir, policy: () => { throw new Error('boom') } }), dir)
    await deniedWith(find('*', { cwd: dir, policy: async () => { throw new TypeError('boom') } }), dir)
    await deniedWith(find('*', { cwd: dir, policy: () => Promise.reject(new Error('nope')) }), dir)
  })

  test('async policies work', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const r = await find('*', { cwd: dir, policy: async () => { await sleep(20); return 'allow' } })
    assert.deepEqual(paths(r), ['a.txt'])
    await deniedWith(find('*', { cwd: dir, policy: async () => { await sleep(5); return 'deny' } }), dir)
  })

  test('the policy cannot change what is searched by mutating the request', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const approve = recorder(() => true)
    const r = await find('*', {
      cwd: dir,
      policy: (req) => { req.path = '/'; req.tool = 'other'; return 'require_approval' },
      approve,
    })
    assert.equal(r.path, dir)
    assert.deepEqual(paths(r), ['a.txt'])
    assert.deepEqual(approve.calls, [{ tool: 'find', operation: 'search_files', path: dir }])
  })
})

describe('require_approval', () => {
  test('approve is asked with the same request; true proceeds', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const policy = recorder(() => 'require_approval')
    const approve = recorder(() => true)
    const r = await find('*', { cwd: dir, policy, approve })
    assert.deepEqual(paths(r), ['a.txt'])
    assert.deepEqual(approve.calls, [{ tool: 'find', operation: 'search_files', path: dir }])
    assert.deepEqual(approve.calls, policy.calls)
  })

  test('false rejects with approval-required and the exact message', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await approvalWith(find('*', { cwd: dir, policy: () => 'require_approval', approve: () => false }), dir)
  })

  test('only true approves: truthy non-true answers are refusals', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    for (const answer of ['true', 1, 'yes', {}, [true], undefined, null]) {
      await approvalWith(find('*', { cwd: dir, policy: () => 'require_approval', approve: () => answer }), dir)
    }
  })

  test('a missing approve rejects with approval-required', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await approvalWith(find('*', { cwd: dir, policy: () => 'require_approval' }), dir)
    await approvalWith(find('*', { cwd: dir, policy: () => 'require_approval', approve: null }), dir)
  })

  test('a throwing or rejecting approve rejects with approval-required', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    await approvalWith(find('*', { cwd: dir, policy: () => 'require_approval', approve: () => { throw new Error('boom') } }), dir)
    await approvalWith(find('*', { cwd: dir, policy: () => 'require_approval', approve: async () => { throw new Error('boom') } }), dir)
  })

  test('async policy and approve', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const ok = await find('*', {
      cwd: dir,
      policy: async () => { await sleep(5); return 'require_approval' },
      approve: async () => { await sleep(5); return true },
    })
    assert.deepEqual(paths(ok), ['a.txt'])
    await approvalWith(find('*', {
      cwd: dir,
      policy: async () => 'require_approval',
      approve: async () => { await sleep(5); return false },
    }), dir)
  })
})

describe('when the policy is asked', () => {
  test('after option validation: invalid options never reach the policy', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const policy = recorder(() => 'allow')
    await rejectsWith(find('*', { cwd: dir, limit: 0, policy }), 'invalid-argument', '`limit`')
    await rejectsWith(find('src/[abc', { cwd: dir, policy }), 'invalid-pattern')
    await rejectsWith(find('*', { cwd: dir, sortby: 'name', policy }), 'invalid-argument', '`sortby`')
    assert.deepEqual(policy.calls, [])
  })

  test('before the path is checked: a denied missing path is permission-denied, not not-found', async (t) => {
    const dir = tmpTree(t, { 'file.txt': '' })
    const missing = path.join(dir, 'missing')
    await deniedWith(find('*', { cwd: dir, path: 'missing', policy: () => 'deny' }), missing)
    await rejectsWith(find('*', { cwd: dir, path: 'missing', policy: () => 'allow' }), 'not-found', missing)
    await deniedWith(find('*', { cwd: dir, path: 'file.txt', policy: () => 'deny' }), path.join(dir, 'file.txt'))
    await approvalWith(find('*', { cwd: dir, path: 'missing', policy: () => 'require_approval', approve: () => false }), missing)
    await rejectsWith(find('*', { cwd: dir, path: 'missing', policy: () => 'require_approval', approve: () => true }), 'not-found')
  })

  test('before the roots sandbox: a denied path outside the roots is permission-denied', async (t) => {
    const dir = tmpTree(t, { 'root/a.txt': '', 'other/b.txt': '' })
    await deniedWith(find('*', { cwd: dir, path: 'other', roots: ['root'], policy: () => 'deny' }), path.join(dir, 'other'))
    await rejectsWith(find('*', { cwd: dir, path: 'other', roots: ['root'], policy: () => 'allow' }), 'outside-root')
  })

  test('before the walk: files the policy creates are found', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const r = await find('*', {
      cwd: dir,
      sortBy: 'name',
      policy: async (req) => {
        fs.writeFileSync(path.join(req.path, 'made-by-policy.txt'), '')
        return 'allow'
      },
    })
    assert.deepEqual(paths(r), ['a.txt', 'made-by-policy.txt'])
  })

  test('no policy means allow, even with an approve that refuses', async (t) => {
    const dir = tmpTree(t, { 'a.txt': '' })
    const approve = recorder(() => false)
    assert.deepEqual(paths(await find('*', { cwd: dir, approve })), ['a.txt'])
    assert.deepEqual(approve.calls, [])
  })
})
