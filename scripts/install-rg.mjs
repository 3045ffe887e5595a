#!/usr/bin/env node
// Puts a pinned ripgrep where the tests find it (node_modules/.cache/ripgrep/rg),
// without apt: PyPI's `ripgrep` wheel carries the static binary, so pip
// downloads it and Python's zipfile takes the binary out. The content-search
// tests use it as their oracle (`AGENT_FIND_RG` overrides the path).
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const VERSION = '14.1.0'
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dir = join(root, 'node_modules', '.cache', 'ripgrep')
const bin = join(dir, process.platform === 'win32' ? 'rg.exe' : 'rg')

function version(path) {
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8' }).split('\n')[0]
  } catch {
    return null
  }
}

if (version(bin)?.includes(`ripgrep ${VERSION}`)) {
  console.log(`ripgrep ${VERSION} already at ${bin}`)
  process.exit(0)
}

const canRun = (p, args) => {
  try {
    execFileSync(p, args, { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
// Python unpacks the wheel (its zipfile module); pip, when there, downloads it.
const python = ['python3', 'python'].find((p) => canRun(p, ['-c', 'import zipfile']))
if (!python) {
  console.error('install:rg needs Python 3 (its zipfile module unpacks the `ripgrep` wheel from PyPI)')
  process.exit(1)
}
const wheels = join(dir, 'wheel')
rmSync(wheels, { recursive: true, force: true })
mkdirSync(wheels, { recursive: true })
if (canRun(python, ['-m', 'pip', '--version'])) {
  execFileSync(
    python,
    ['-m', 'pip', 'download', `ripgrep==${VERSION}`, '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '-d', wheels],
    { stdio: 'inherit' },
  )
} else {
  // No pip: the wheel for this machine, found in PyPI's simple index, fetched directly.
  const tags = { 'linux-x64': 'manylinux', 'linux-arm64': 'manylinux', 'darwin-x64': 'macosx', 'darwin-arm64': 'macosx', 'win32-x64': 'win_amd64' }
  const arch = { x64: ['x86_64', 'amd64'], arm64: ['aarch64', 'arm64'] }[process.arch] ?? []
  const index = await (await fetch('https://pypi.org/simple/ripgrep/')).text()
  const links = [...index.matchAll(/href="([^"#]+\/(ripgrep-[^"#/]+\.whl))(#[^"]*)?"/g)].map((m) => ({ url: m[1], filename: m[2] }))
  const file = links.find((u) => u.filename.startsWith(`ripgrep-${VERSION}-`) && u.filename.includes(tags[`${process.platform}-${process.arch}`] ?? '?') &&
    arch.some((a) => u.filename.includes(a)))
  if (!file) {
    console.error(`PyPI lists no ripgrep ${VERSION} wheel for ${process.platform}-${process.arch}`)
    process.exit(1)
  }
  writeFileSync(join(wheels, file.filename), Buffer.from(await (await fetch(file.url)).arrayBuffer()))
}
const wheel = readdirSync(wheels).find((f) => f.endsWith('.whl'))
if (!wheel) {
  console.error(`no ripgrep ${VERSION} wheel for this platform in ${wheels}`)
  process.exit(1)
}
const extract = `
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
name = next(n for n in z.namelist() if n.split('/')[-1] in ('rg', 'rg.exe') and '/scripts/' in n)
open(sys.argv[2], 'wb').write(z.read(name))
`
execFileSync(python, ['-c', extract, join(wheels, wheel), bin], { stdio: 'inherit' })
chmodSync(bin, 0o755)
rmSync(wheels, { recursive: true, force: true })
const got = version(bin)
if (!got?.includes(`ripgrep ${VERSION}`)) {
  console.error(`${bin} does not run as ripgrep ${VERSION} (got: ${got})`)
  process.exit(1)
}
console.log(`${got} at ${bin}`)
