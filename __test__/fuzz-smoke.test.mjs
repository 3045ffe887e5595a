// A short smoke run of each fuzz target in `npm test` (the long runs
// stay outside CI: see fuzz/README.md). The stable runner mutates the saved
// corpus for a few seconds per target; a panic fails the test and is saved
// under fuzz/artifacts/<target>/.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const FUZZ = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fuzz')
const SECONDS = 3

test('fuzz smoke run: every target, a few seconds each, no crash', { timeout: 600_000 }, (t) => {
  for (const target of ['pattern', 'parsers', 'options']) {
    const run = spawnSync('cargo', ['run', '--release', '--locked', '--quiet', '--no-default-features', '--bin', 'stable', '--', target, '--seconds', String(SECONDS)], {
      cwd: FUZZ,
      encoding: 'utf8',
      timeout: 540_000,
    })
    assert.equal(run.status, 0, `${target}: exit ${run.status}\n${run.stderr.slice(-2000)}`)
    const summary = run.stdout.trim().split('\n').at(-1) || run.stderr.trim().split('\n').at(-1)
    t.diagnostic(summary)
    assert.match(summary, / 0 distinct crashes/, `${target}: ${summary}`)
    assert.match(summary, /^\w+: [1-9]\d* runs/, `${target} ran no input: ${summary}`)
  }
})
