// find({ regex: true }) is a JavaScript regex: a differential test against V8
// itself. Thousands of patterns from a small grammar (seeded, deterministic)
// are run by the real `find` over real files in a temp folder, and the names
// it returns must be exactly `names.filter(n => new RegExp(src, flags).test(n))`;
// a pattern V8 refuses must be refused with `invalid-pattern`, and only then.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'

import { find, FindFilesError } from '../index.mjs'
import { seededRandom as prng, sortedPaths, tmpTree } from './helpers.mjs'


/** The literal form (docs/API.md): a leading `/`, and a last `/` followed only by flag letters. */
function splitLiteral(pattern) {
  if (!pattern.startsWith('/')) return null
  const slash = pattern.lastIndexOf('/')
  if (slash === 0) return null
  const flags = pattern.slice(slash + 1)
  return /^[dgimsuvy]*$/.test(flags) ? [pattern.slice(1, slash), flags] : null
}

/**
 * What V8 says: the matching names (and the names where V8's quirk below
 * decides), or null when `new RegExp` throws.
 *
 * The quirk: with `u` or `v`, V8 also tries an empty match between the two
 * halves of a surrogate pair, which the spec (and regress) never does:
 * `/\B/u.test('a😀b')` is true in V8 only (it matches at index 2). A name
 * whose first V8 match is such an empty match inside a pair may go either
 * way here; the module doc of src/js_regex.rs says so.
 */
function v8Expected(pattern, caseSensitive, names) {
  let [source, flags] = splitLiteral(pattern) ?? [pattern, '']
  if (!caseSensitive && !flags.includes('i')) flags += 'i'
  let re
  try {
    re = new RegExp(source, flags)
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e
    return null
  }
  const quirk = []
  const matched = names.filter((n) => {
    re.lastIndex = 0
    const m = re.exec(n)
    if (m && m[0] === '' && (re.unicode || re.unicodeSets) && isTrail(n.charCodeAt(m.index)) && isLead(n.charCodeAt(m.index - 1))) quirk.push(n)
    return m !== null
  })
  return { matched: matched.sort(), quirk }
}

// ES2025 lets a name repeat in different alternatives (`(?<a>x)|(?<a>y)`);
// the V8 of Node 20 and 22 refuses that, and so does agent-find. Under a
// newer V8, such patterns are left out of the comparison.
const V8_ALLOWS_DUPLICATE_NAMES = (() => {
  try {
    return new RegExp('(?<a>x)|(?<a>y)') instanceof RegExp
  } catch {
    return false
  }
})()

// V8 11.3 (Node 20) mis-matches `[^]` (any character) under `v`:
// `/[^]$/v.test('Ab')` is false there, `/^A[^]$/v.test('Ab')` true. agent-find
// matches any character, as the spec and later V8 do; where the running V8
// has that bug, `v` patterns holding `[^]` are left out of the comparison.
const V8_V_EMPTY_COMPLEMENT_BUG = (() => {
  try {
    return !new RegExp('[^]$', 'v').test('Ab')
  } catch {
    return false
  }
})()

const isLead = (u) => u >= 0xd800 && u <= 0xdbff
const isTrail = (u) => u >= 0xdc00 && u <= 0xdfff

async function viaFind(dir, pattern, caseSensitive) {
  try {
    const r = await find(pattern, { cwd: dir, regex: true, caseSensitive, gitignore: false, limit: Infinity, maxLimit: Infinity, maxBytes: Infinity, sortBy: 'name' })
    return { names: r.entries.map((e) => e.path).sort() }
  } catch (e) {
    if (e instanceof FindFilesError) return { code: e.code, message: e.message }
    throw e
  }
}

// Letters chosen for case folding and UTF-16: ſ folds to s and K (Kelvin) to
// k only under `u`; ß has no simple uppercase; İ/ı; Σσς; 😀 and Deseret 𐐀/𐐨
// (an astral case pair) are surrogate pairs without `u`; ٣ is a digit only
// for \p{Nd}; U+00A0 and U+FEFF are \s in JS.
const LETTERS = ['a', 'b', 'c', 'k', 's', 'x', 'A', 'B', 'K', 'S', '0', '1', '9', '_', '-', ' ', 'é', 'É', 'ß', 'ſ', '\u212A', 'Σ', 'σ', 'ς', 'İ', 'ı', 'i', 'I', '😀', '𐐀', '𐐨', 'ａ', '٣', '\u00a0', 'e\u0301']
const NAME_CHARS = [...LETTERS, '.', '.', 'a', 'b', 's', 'k', 'x', 'x', '\r', '\n', '\t', '\ufeff', '\u2028', '$', '(', ')', '[', ']', '\\', '*', '+', '?', '{', '}', '|', '^', "'"]

const FIXED_NAMES = [
  'main.py', 'test_main.py', 'tests.py', 'MAIN.rs', 'main.rs', 'a', 'ab', 'aab', 'abb', 'abab', 'b', 'ba', 'bab',
  '😀', '😀😀', 'a😀b', '𐐀', '𐐨', '𐐀𐐨', 'é', 'É', 'e\u0301', 'ß', 'SS', 'ss', 'ſ', 'S', 's', '\u212A', 'k', 'K',
  'Σ', 'σ', 'ς', 'İ', 'ı', 'i', 'I', 'a\nb', 'a\rb', '\r\n', 'a b', ' ', 'x\u00a0y', '\ufeff', '\u2028x',
  'file.test.ts', 'README.md', '.env', '123', '٣', 'ａ', '_', '-', '$', '[', '\\', 'x.y.z', 'aaaaaaaaaa', 'AbC', 'abc',
]

function makeNames(rand, count) {
  const pick = (xs) => xs[Math.floor(rand() * xs.length)]
  const names = new Set(FIXED_NAMES)
  while (names.size < count) {
    const len = 1 + Math.floor(rand() * 10)
    let n = ''
    for (let i = 0; i < len; i++) n += pick(NAME_CHARS)
    names.add(n)
  }
  // Not file names, or names that would change the walk.
  for (const n of ['.', '..', '.git', '.gitignore', '.ignore']) names.delete(n)
  return [...names]
}

/** A pattern from a small grammar, kept free of nested unbounded quantifiers (no catastrophic backtracking). */
function makePattern(rand) {
  const pick = (xs) => xs[Math.floor(rand() * xs.length)]
  const chance = (p) => rand() < p
  let unbounded = 0
  const CLASS_ITEMS = ['a', 'b', 'k', 's', 'S', 'é', 'ß', 'ſ', '\u212A', 'σ', '😀', '𐐀', '_', '.', '-', ' ', 'a-z', 'A-Z', '0-9', 'à-ÿ', 'K-k', 'Z-a', 'ą-ž',
    '\\d', '\\w', '\\s', '\\D', '\\W', '\\S', '\\-', '\\]', '\\\\', '\\b', '\\u00e9', '\\u{1F600}', '\\uD83D\\uDE00', '\\x41', '\\p{L}', '\\p{Lu}', '[', '^', '$', '😀-😂', 'z-a']
  const ESCAPES = ['\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '\\.', '\\-', '\\$', '\\(', '\\/', '\\*', '\\_', '\\u00e9', '\\u{1F600}', '\\uD83D', '\\uD83D\\uDE00',
    '\\x41', '\\p{L}', '\\p{Lu}', '\\P{Ll}', '\\p{Script=Greek}', '\\cA', '\\0', '\\t', '\\n', '\\r', '\\u212A', '\\u017F', '\\e', '\\k']
  function quantifier(allowUnbounded) {
    // A few are invalid (`{2,1}`, `**`) or literal without `u` (`{,2}`, `{1`).
    if (chance(0.06)) return pick(['{2,1}', '{,2}', '{1', '**', '+*'])
    const bounded = ['?', '{2}', '{0,2}', '{1,2}', '??', '{0,1}?']
    const all = [...bounded, '*', '+', '{1,}', '*?', '+?', '{2,}?']
    const q = pick(allowUnbounded && unbounded < 3 ? all : bounded)
    if (/[*+]|,}/.test(q)) unbounded++
    return q
  }
  function classText() {
    let s = chance(0.3) ? '[^' : '['
    const n = Math.floor(rand() * 4)
    for (let i = 0; i < n; i++) s += pick(CLASS_ITEMS)
    return s + ']'
  }
  function atom(depth, allowUnbounded) {
    const r = rand()
    if (r < 0.38) return { text: pick(LETTERS), q: true }
    if (r < 0.48) return { text: '.', q: true }
    if (r < 0.6) return { text: pick(ESCAPES), q: true }
    if (r < 0.72) return { text: classText(), q: true }
    if (r < 0.76) return { text: pick(['\\1', '\\2', '\\k<n>', '\\k<m>', '\\3']), q: true }
    if (r < 0.8) return { text: pick(['^', '$', '\\b', '\\B']), q: false }
    if (depth >= 3) return { text: pick(LETTERS), q: true }
    const open = pick(['(', '(', '(?:', '(?<n>', '(?<m>', '(?=', '(?!', '(?<=', '(?<!'])
    return { text: open + alternation(depth + 1, allowUnbounded) + ')', q: true, group: true }
  }
  function sequence(depth, allowUnbounded) {
    let s = ''
    const n = 1 + Math.floor(rand() * 4)
    for (let i = 0; i < n; i++) {
      // Decide a group's quantifier first: inside a `*`/`+` group only bounded ones.
      if (chance(0.3)) {
        const q = quantifier(allowUnbounded)
        const inner = /[*+]|,}/.test(q) ? false : allowUnbounded
        const a = atom(depth, inner)
        s += a.text + (a.q || chance(0.2) ? q : '')
      } else {
        s += atom(depth, allowUnbounded).text
      }
    }
    return s
  }
  function alternation(depth, allowUnbounded) {
    let s = sequence(depth, allowUnbounded)
    while (chance(0.2)) s += '|' + (chance(0.1) ? '' : sequence(depth, allowUnbounded))
    return s
  }
  let source = alternation(0, true)
  if (chance(0.15)) source = '^' + source
  if (chance(0.15)) source += '$'
  if (chance(0.45)) return { pattern: source, caseSensitive: chance(0.3) }
  let flags = ''
  for (const f of 'gimsuyvd') if (chance(f === 'v' ? 0.08 : 0.25)) flags += f
  if (chance(0.03)) flags += pick(['i', 'g', 'u'])
  if (flags.includes('u') && flags.includes('v')) flags = chance(0.2) ? flags : flags.replace('v', '')
  return { pattern: `/${source}/${flags}`, caseSensitive: chance(0.4) }
}

describe('regex: true is a JavaScript regex', () => {
  test('lookahead, lookbehind, backreferences, named groups', async (t) => {
    const dir = tmpTree(t, { 'main.py': '', 'test_main.py': '', 'src/util.py': '', 'aab.txt': '', 'abb.txt': '', 'xyx': '', 'a.rs': '' })
    assert.deepEqual(sortedPaths(await find('^(?!test).*\\.py$', { cwd: dir, regex: true })), ['main.py', 'src/util.py'])
    assert.deepEqual(sortedPaths(await find('(?<=a)b', { cwd: dir, regex: true })), ['aab.txt', 'abb.txt'])
    assert.deepEqual(sortedPaths(await find('(?<!a)b', { cwd: dir, regex: true })), ['abb.txt'])
    assert.deepEqual(sortedPaths(await find('^(\\w)\\1', { cwd: dir, regex: true })), ['aab.txt'])
    assert.deepEqual(sortedPaths(await find('^(?<c>\\w)\\w\\k<c>$', { cwd: dir, regex: true })), ['xyx'])
  })

  test('the /source/flags form, and caseSensitive', async (t) => {
    const dir = tmpTree(t, { 'main.rs': '', 'MAIN.md': '', 'other.txt': '' })
    const names = async (pattern, opts = {}) => sortedPaths(await find(pattern, { cwd: dir, regex: true, ...opts }))
    assert.deepEqual(await names('/MAIN/i'), ['MAIN.md', 'main.rs'], 'a regex literal is not a pattern with slashes in it')
    assert.deepEqual(await names('/MAIN/i', { caseSensitive: true }), ['MAIN.md', 'main.rs'], "the literal's own i stays")
    assert.deepEqual(await names('/MAIN/', { caseSensitive: true }), ['MAIN.md'])
    assert.deepEqual(await names('/MAIN/'), ['MAIN.md', 'main.rs'], 'i is added unless caseSensitive')
    assert.deepEqual(await names('MAIN', { caseSensitive: true }), ['MAIN.md'])
    assert.deepEqual(await names('/^m.*\\.rs$/gd'), ['main.rs'])
    assert.deepEqual(await names('/a/y'), [], 'sticky: the match must start at 0')
    assert.deepEqual(await names('/o/y'), ['other.txt'])
    for (const bad of ['/x/ii', '/x/uv', '(?<=a', '\\k<n>(?<m>x)', '/\\-/u']) {
      await assert.rejects(find(bad, { cwd: dir, regex: true }), (e) => e instanceof FindFilesError && e.code === 'invalid-pattern' && /JavaScript regex/.test(e.message), bad)
    }
  })

  test('code units without u, code points with u or v', async (t) => {
    const dir = tmpTree(t, { '😀': '', 'ab': '' })
    assert.deepEqual(sortedPaths(await find('^.$', { cwd: dir, regex: true })), [])
    assert.deepEqual(sortedPaths(await find('^..$', { cwd: dir, regex: true })), ['ab', '😀'])
    assert.deepEqual(sortedPaths(await find('/^.$/u', { cwd: dir, regex: true })), ['😀'])
    assert.deepEqual(sortedPaths(await find('/^.$/v', { cwd: dir, regex: true })), ['😀'])
  })

  test('differential: thousands of generated patterns against V8 on real files', { timeout: 120_000 }, async (t) => {
    // REGEX_V8_SEED and REGEX_V8_PATTERNS explore further (the defaults are what CI runs).
    const rand = prng(Number(process.env.REGEX_V8_SEED ?? 0xa6e17f1d))
    const count = Number(process.env.REGEX_V8_PATTERNS ?? 4000)
    const dir = tmpTree(t)
    for (const n of makeNames(rand, 240)) fs.writeFileSync(path.join(dir, n), '')
    // What the folder really holds is the ground truth (a case-insensitive
    // or normalizing file system would merge some names).
    const names = fs.readdirSync(dir)
    const cases = []
    const seen = new Set()
    while (cases.length < count) {
      const c = makePattern(rand)
      if (V8_V_EMPTY_COMPLEMENT_BUG && /\[\^\]/.test(c.pattern) && /\/[dgimsuy]*v[dgimsuy]*$/.test(c.pattern)) continue
      const key = `${c.caseSensitive} ${c.pattern}`
      if (!seen.has(key)) {
        seen.add(key)
        cases.push(c)
      }
    }
    const start = performance.now()
    const wrong = []
    let refused = 0
    let matchedSomething = 0
    let quirks = 0
    const BATCH = 16
    for (let at = 0; at < cases.length; at += BATCH) {
      const batch = cases.slice(at, at + BATCH)
      const got = await Promise.all(batch.map((c) => viaFind(dir, c.pattern, c.caseSensitive)))
      batch.forEach((c, i) => {
        const want = v8Expected(c.pattern, c.caseSensitive, names)
        const g = got[i]
        if (want === null) {
          refused++
          if (g.code !== 'invalid-pattern') wrong.push(`${JSON.stringify(c)}: V8 refuses it, find gave ${g.code ?? JSON.stringify(g.names)}`)
          else if (!/JavaScript regex/.test(g.message)) wrong.push(`${JSON.stringify(c)}: the message does not say JavaScript regex: ${g.message}`)
        } else if (g.code && V8_ALLOWS_DUPLICATE_NAMES && /Duplicate capture group name/.test(g.message)) {
          // See V8_ALLOWS_DUPLICATE_NAMES.
        } else if (g.code) {
          wrong.push(`${JSON.stringify(c)}: V8 accepts it, find failed: ${g.code}: ${g.message}`)
        } else {
          if (want.matched.length) matchedSomething++
          const missing = want.matched.filter((n) => !g.names.includes(n) && !want.quirk.includes(n))
          const extra = g.names.filter((n) => !want.matched.includes(n))
          quirks += want.quirk.length
          if (missing.length || extra.length) {
            wrong.push(`${JSON.stringify(c)}: missing ${JSON.stringify(missing.slice(0, 5))}, extra ${JSON.stringify(extra.slice(0, 5))}`)
          }
        }
      })
    }
    const ms = performance.now() - start
    // REGEX_V8_LOG=file writes every disagreement there, for debugging.
    if (process.env.REGEX_V8_LOG) fs.writeFileSync(process.env.REGEX_V8_LOG, wrong.join('\n') + '\n')
    t.diagnostic(`${cases.length} patterns x ${names.length} names in ${ms.toFixed(0)} ms: ${refused} refused by V8, ${matchedSomething} matched some name, ${quirks} V8 mid-pair quirks, ${wrong.length} disagreements`)
    // The generator must reach both outcomes often, or the test proves little.
    assert.ok(refused > 200 && matchedSomething > 1500, `refused ${refused}, matched ${matchedSomething}`)
    assert.deepEqual(wrong.slice(0, 25), [], `${wrong.length} disagreements with V8`)
  })
})
