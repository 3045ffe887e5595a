// Hostile disks: a symlink through /proc/<pid>/root of another mount
// namespace (the roots are checked by identity, with openat2 and with the
// component walk older kernels get), a file with one huge line (memory stays
// bounded, in a child under `ulimit -v`), a process out of file descriptors
// (a right answer or fs-error, never a partial one; in a child under
// `ulimit -n`), and a folder that opens but refuses its listing (skipped).
// Tests that need what a machine may lack (root for `unshare -m`, user
// namespaces) skip and say why, and fail under CI (see `requireTool`).
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { find } from '../index.mjs'
import { REPO, cannotRunAsNobody, requireTool, tmpTree } from './helpers.mjs'
import { openToOthers, runAsNobody, runChild } from './hostile-helpers.mjs'

const linux = process.platform === 'linux'

/** Why `unshare` with these flags cannot run here (`why`: what for), or false. */
function cannotUnshare(flags, why) {
  const install = 'apt-get install -y util-linux, as root on a kernel (or container) that allows namespaces'
  return requireTool('unshare', { why, probe: [...flags, 'true'], install }).skip
}

describe('roots: checked by identity, not by path strings', { skip: !linux && 'needs Linux /proc' }, () => {
  const nsFlags = ['-m', '--propagation', 'private']

  test('a symlink to /proc/<pid>/root of another mount namespace is outside the roots', async (t) => {
    const why = cannotUnshare(nsFlags, 'a mount namespace (`unshare -m`, as root)')
    if (why) return t.skip(why)
    const base = tmpTree(t, {
      'ws/inner/ok.txt': 'ok\n',
      'ws/sub/deep/ok.txt': 'ok\n',
      'secret/key.txt': 'SECRET-OUTSIDE-ROOTS\n',
    })
    const ws = path.join(base, 'ws')
    // In its own mount namespace, ws/inner is the secret folder.
    const other = spawn('unshare', [...nsFlags, 'sh', '-c', `mount --bind '${base}/secret' '${ws}/inner' && exec sleep 60`], { stdio: 'ignore' })
    t.after(() => other.kill('SIGKILL'))
    const through = `/proc/${other.pid}/root${ws}/inner`
    const deadline = Date.now() + 10_000
    while (!fs.existsSync(`${through}/key.txt`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    assert.ok(fs.existsSync(`${through}/key.txt`), 'the bind mount appeared in the other namespace')
    fs.symlinkSync(through, path.join(ws, 'portal'))
    fs.symlinkSync(path.join(ws, 'sub'), path.join(ws, 'abs-link'))
    fs.symlinkSync('sub/deep', path.join(ws, 'rel-link'))
    assert.equal(fs.realpathSync(path.join(ws, 'portal')), path.join(ws, 'inner'), 'its real path lies inside the roots')

    const calls = `
      const { ws } = arg
      const show = (p) => p.then((r) => ({ ok: true, paths: r.entries?.map((e) => e.path) ?? r.matches?.map((m) => m.file) }), (e) => ({ ok: false, code: e.code, message: e.message }))
      const out = {}
      out.find = await show(af.find({ pattern: '**/*', cwd: ws, path: 'portal', roots: [ws] }))
      out.search = await show(af.searchFiles({ pattern: 'SECRET', cwd: ws, path: 'portal', roots: [ws] }))
      out.tools = (await af.createTools({ cwd: ws }).call('search_files', { pattern: 'SECRET', path: 'portal' })).text
      out.abs = await show(af.find({ pattern: '**/*.txt', cwd: ws, path: 'abs-link', roots: [ws] }))
      out.rel = await show(af.find({ pattern: '**/*.txt', cwd: ws, path: 'rel-link', roots: [ws] }))
      out.plain = await show(af.find({ pattern: '**/*.txt', cwd: ws, path: 'inner', roots: [ws] }))
      return out`
    for (const sandbox of ['openat2', 'components']) {
      const out = runChild(calls, { arg: { ws }, env: sandbox === 'components' ? { AGENT_FIND_SANDBOX: 'components' } : {} })
      assert.deepEqual(out.find.code, 'outside-root', `${sandbox}: ${JSON.stringify(out.find)}`)
      assert.match(out.find.message, /outside the allowed roots \(through a symlink\)/)
      assert.equal(out.search.code, 'outside-root', sandbox)
      assert.match(out.tools, /outside-root/, sandbox)
      assert.doesNotMatch(out.tools, /SECRET-OUTSIDE-ROOTS/, sandbox)
      // Links that stay inside the roots still lead where they point.
      assert.deepEqual(out.abs.paths, ['deep/ok.txt'], `${sandbox}: ${JSON.stringify(out.abs)}`)
      assert.deepEqual(out.rel.paths, ['ok.txt'], sandbox)
      assert.deepEqual(out.plain.paths, ['ok.txt'], sandbox)
    }
    const cli = spawnSync(process.execPath, [path.join(REPO, 'bin', 'agent-find.js'), 'search', 'SECRET', 'portal', '--cwd', ws, '--root', ws], { encoding: 'utf8', timeout: 30_000 })
    assert.doesNotMatch(cli.stdout + cli.stderr, /SECRET-OUTSIDE-ROOTS/)
    assert.match(cli.stderr, /outside-root/)
  })

  test('a folder on the way that may be searched but not read does not stop it (as uid 65534)', async (t) => {
    const why = cannotRunAsNobody()
    if (why) return t.skip(why)
    const dir = tmpTree(t, { 'pass/inner/ok.txt': 'ok\n' })
    openToOthers(dir)
    fs.chmodSync(path.join(dir, 'pass'), 0o711) // search, not read, for others
    for (const sandbox of ['openat2', 'components']) {
      const before = process.env.AGENT_FIND_SANDBOX
      if (sandbox === 'components') process.env.AGENT_FIND_SANDBOX = 'components'
      try {
        const out = runAsNobody(`(af) => af.find('*.txt', { cwd: ${JSON.stringify(dir)}, path: 'pass/inner', roots: [${JSON.stringify(dir)}] }).then((r) => r.entries.map((e) => e.path))`)
        assert.deepEqual(out, { ok: true, value: ['ok.txt'] }, sandbox)
      } finally {
        if (before === undefined) delete process.env.AGENT_FIND_SANDBOX
        else process.env.AGENT_FIND_SANDBOX = before
      }
    }
  })

  test('without roots a symlinked search path is followed as before', async (t) => {
    const dir = tmpTree(t, { 'real/a.txt': 'needle\n', 'link': { symlink: 'real' } })
    const r = await find({ pattern: '*.txt', cwd: dir, path: 'link' })
    assert.deepEqual(r.entries.map((e) => e.path), ['a.txt'])
  })
})

describe('content search: memory bounded on a file with one huge line', { skip: !linux && 'reads the peak RSS from /proc' }, () => {
  test('a 64 MiB line is searched in pieces: a clipped match, memory flat', async (t) => {
    const dir = tmpTree(t)
    const MiB = 1 << 20
    const fd = fs.openSync(path.join(dir, 'one-line.json'), 'w')
    const chunk = Buffer.alloc(8 * MiB, 'a')
    for (let i = 0; i < 8; i++) fs.writeSync(fd, chunk)
    fs.writeSync(fd, 'needle at the end\nsecond line needle\n')
    fs.closeSync(fd)
    const out = runChild(`
      const fs = (await import('node:fs')).default
      const hwm = () => Number(/VmHWM:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024
      const before = hwm()
      const lines = await af.searchFiles({ pattern: 'needle', cwd: arg.dir })
      const count = await af.searchFiles({ pattern: 'needle', cwd: arg.dir, outputMode: 'count' })
      const files = await af.searchFiles({ pattern: 'at the end', cwd: arg.dir, outputMode: 'files' })
      return { lines, count, files, growthMb: hwm() - before }`, { limits: 'ulimit -v 3000000', arg: { dir } })
    assert.equal(out.lines.matchCount, 2)
    assert.deepEqual(out.lines.matches.map((m) => m.line), [1, 2])
    const first = out.lines.matches[0].match
    assert.ok(first.startsWith('[line cut]… ') && first.includes('needle at the end'), first)
    assert.ok(first.length < 600, `the text is clipped (${first.length} characters)`)
    assert.equal(out.lines.matches[1].match, 'second line needle')
    assert.deepEqual(out.count.counts, [{ file: 'one-line.json', count: 2 }])
    assert.deepEqual(out.files.files, ['one-line.json'])
    t.diagnostic(`peak RSS growth: ${out.growthMb.toFixed(1)} MB`)
    // The whole line buffered costs more than its 64 MiB.
    assert.ok(out.growthMb < 40, `peak RSS grew by ${out.growthMb.toFixed(1)} MB`)
  })
})

describe('out of file descriptors: a right answer or fs-error, never a partial one', { skip: !linux && 'uses ulimit -n' }, () => {
  test('find and searchFiles near the descriptor limit', async (t) => {
    const spec = {}
    // As many folders as files, so that some calls get their folders open
    // and then run out when opening files and ignore files.
    for (let i = 0; i < 100; i++) {
      spec[`d${i}/.gitignore`] = '*.log\n'
      spec[`d${i}/a.log`] = 'TODO\n'
      spec[`d${i}/b.txt`] = 'TODO\n'
      for (let j = 0; j < 4; j++) spec[`d${i}/s${j}/c.txt`] = 'TODO\n'
    }
    const dir = tmpTree(t, spec)
    const out = runChild(`
      const fs = (await import('node:fs')).default
      const held = []
      try { for (let i = 0; i < 100_000; i++) held.push(fs.openSync('/dev/null', 'r')) } catch (e) { if (e.code !== 'EMFILE') throw e }
      for (let i = 0; i < 4; i++) fs.closeSync(held.pop())
      const tally = { right: 0, fsError: 0, wrong: [], messages: [] }
      const cwd = arg.dir
      for (let round = 0; round < 10; round++) {
        const calls = [
          [af.find({ pattern: '**/*.log', cwd, limit: 10000 }), (r) => r.matched, 0],
          [af.searchFiles({ pattern: 'TODO', cwd, outputMode: 'files', maxResults: 500 }), (r) => r.matchCount, 500],
          [af.searchFiles({ pattern: 'TODO', cwd, outputMode: 'count', noIgnore: true, maxResults: 500 }), (r) => r.matchCount, 600],
        ]
        await Promise.all(calls.map(async ([p, got, want]) => {
          try {
            const n = got(await p)
            if (n === want) tally.right++
            else tally.wrong.push(n + ' instead of ' + want)
          } catch (e) {
            if (e.code === 'fs-error') { tally.fsError++; tally.messages.push(e.message) } else tally.wrong.push(e.code)
          }
        }))
      }
      for (const fd of held) fs.closeSync(fd)
      return tally`, { limits: 'ulimit -n 256', arg: { dir } })
    t.diagnostic(`right ${out.right}, fs-error ${out.fsError}`)
    assert.deepEqual(out.wrong, [], 'no call answered with files missing or ignored files listed')
    assert.equal(out.right + out.fsError, 30)
    assert.ok(out.fsError > 0, 'the limit was reached')
    for (const m of out.messages) assert.match(m, /Too many open files/, m)
    assert.ok(out.messages.some((m) => /ulimit -n/.test(m)) || out.messages.every((m) => /cannot list the directory/.test(m)), out.messages.join('\n'))
  })
})

describe('a folder that opens but refuses its listing is skipped', { skip: !linux && 'needs /proc' }, () => {
  test('/proc/<pid>/map_files from a user namespace', async (t) => {
    const why = cannotUnshare(['-Ur'], 'a user namespace (`unshare -Ur`)')
    if (why) return t.skip(why)
    const helper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
    try {
      const script = `
        const fs = require('node:fs')
        const af = require(${JSON.stringify(path.join(REPO, 'index.js'))})
        const top = '/proc/' + process.argv[1]
        let refused = false
        try { const d = fs.opendirSync(top + '/map_files'); try { d.readSync() } catch (e) { refused = e.code === 'EACCES' } finally { d.closeSync() } } catch {}
        const show = (p) => p.then((r) => ({ ok: true, n: r.matched ?? r.matchCount ?? r.length }), (e) => ({ ok: false, code: e.code, message: e.message }))
        ;(async () => {
          const out = { refused }
          if (refused) {
            out.find = await show(af.find({ pattern: '**/status', cwd: top, limit: 5 }))
            out.findFiles = await show(af.findFiles('**/status', top))
            out.search = await show(af.searchFiles({ pattern: 'status', target: 'files', cwd: top }))
            out.root = await show(af.find({ pattern: '*', cwd: top + '/map_files' }))
          }
          console.log('RESULT ' + JSON.stringify(out))
        })()`
      const r = spawnSync('unshare', ['-Ur', process.execPath, '-e', script, String(helper.pid)], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' })
      const line = (r.stdout || '').split('\n').find((l) => l.startsWith('RESULT '))
      assert.ok(line, r.stderr)
      const out = JSON.parse(line.slice(7))
      const { skip } = requireTool('/proc/<pid>/map_files', {
        why: 'a folder that opens but refuses its listing',
        probe: () => (out.refused ? null : 'map_files can be listed from the user namespace here'),
        install: 'a Linux kernel that refuses a user namespace the listing of /proc/<pid>/map_files of a process outside it (as Linux 4.x-6.x do)',
      })
      if (skip) return t.skip(skip)
      for (const k of ['find', 'findFiles', 'search']) assert.ok(out[k].ok && out[k].n > 0, `${k}: ${JSON.stringify(out[k])}`)
      // The search path itself refusing its listing is still an error.
      assert.equal(out.root.code, 'permission-denied', JSON.stringify(out.root))
    } finally {
      helper.kill('SIGKILL')
    }
  })
})
