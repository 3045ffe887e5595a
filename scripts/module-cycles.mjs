#!/usr/bin/env node
// Module dependency cycles in a Rust crate: reads every `src/**/*.rs` of the
// crate given (default: the project root), takes each file's top-level module
// (src/walk/local.rs is `walk`), collects the `crate::<module>` paths it uses,
// and reports every cycle among the top-level modules. Exits 1 when there is
// one. `node scripts/module-cycles.mjs [crate-dir ...]`, run by `npm run lint`.
//
// Hand-written rather than `cargo modules`: that tool needs a rust-analyzer
// build (minutes) for an answer a text scan gives in milliseconds; a `use`
// inside a string or comment could fool it, so comments are stripped first.
import fs from 'node:fs'
import path from 'node:path'

function rustFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? rustFiles(p) : e.name.endsWith('.rs') ? [p] : []
  })
}

/** The top-level module a file belongs to (`lib` for lib.rs/main.rs). */
function moduleOf(src, file) {
  const rel = path.relative(src, file).split(path.sep)
  const first = rel[0].replace(/\.rs$/, '')
  return first === 'main' ? 'lib' : first
}

const stripComments = (text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')

/** `#[cfg(test)] mod tests { ... }` blocks are left out: tests may reach anywhere. */
function withoutTests(text) {
  const at = text.search(/#\[cfg\(test\)\]\s*mod\s+\w+\s*\{/)
  return at === -1 ? text : text.slice(0, at)
}

function graphOf(crateDir) {
  const src = path.join(crateDir, 'src')
  const edges = new Map()
  for (const file of rustFiles(src)) {
    const from = moduleOf(src, file)
    if (from === 'lib' || from === 'bin') continue
    const text = withoutTests(stripComments(fs.readFileSync(file, 'utf8')))
    const targets = edges.get(from) ?? new Set()
    for (const m of text.matchAll(/\bcrate::(?:\{\s*)?([a-z_][a-z0-9_]*)/g)) targets.add(m[1])
    // `use crate::{a, b::c}`: every name in the braces.
    for (const m of text.matchAll(/\bcrate::\{([^}]*)\}/g)) {
      for (const part of m[1].split(',')) {
        const name = part.trim().split('::')[0]
        if (/^[a-z_][a-z0-9_]*$/.test(name)) targets.add(name)
      }
    }
    targets.delete(from)
    edges.set(from, targets)
  }
  for (const [from, targets] of edges) for (const t of targets) if (!edges.has(t)) targets.delete(t)
  return edges
}

/** Strongly connected components of more than one module (Tarjan). */
function cycles(edges) {
  let index = 0
  const stack = []
  const info = new Map()
  const found = []
  const visit = (v) => {
    info.set(v, { index, low: index, onStack: true })
    index++
    stack.push(v)
    for (const w of edges.get(v) ?? []) {
      if (!info.has(w)) {
        visit(w)
        info.get(v).low = Math.min(info.get(v).low, info.get(w).low)
      } else if (info.get(w).onStack) {
        info.get(v).low = Math.min(info.get(v).low, info.get(w).index)
      }
    }
    if (info.get(v).low === info.get(v).index) {
      const component = []
      let w
      do {
        w = stack.pop()
        info.get(w).onStack = false
        component.push(w)
      } while (w !== v)
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const v of [...edges.keys()].sort()) if (!info.has(v)) visit(v)
  return found
}

const crates = process.argv.slice(2)
let failed = false
for (const crateDir of crates.length ? crates : ['.']) {
  const edges = graphOf(crateDir)
  const found = cycles(edges)
  if (found.length === 0) {
    console.log(`${crateDir}: ${edges.size} modules, no dependency cycle`)
    continue
  }
  failed = true
  for (const component of found) {
    const inside = component.flatMap((m) => [...edges.get(m)].filter((t) => component.includes(t)).map((t) => `${m} -> ${t}`))
    console.log(`${crateDir}: cycle among ${component.join(', ')}: ${inside.join('; ')}`)
  }
}
process.exit(failed ? 1 : 0)
