//! `find({ regex: true })`: the pattern is a JavaScript regex, read and run
//! exactly as `new RegExp(source, flags).test(basename)` would in V8.
//!
//! What this module owns:
//! - Reading the pattern: plain text is the source, with flags `i` (unless
//!   `caseSensitive`); the literal form `/source/flags` (a leading `/`, and a
//!   last `/` followed only by flag letters `dgimsuvy`) gives its own source
//!   and flags, plus `i` unless `caseSensitive`. Unknown or repeated flags,
//!   or `u` with `v`, are refused as V8 refuses them.
//! - Matching with `regress`, an ECMAScript regex engine (vendored in
//!   `vendor/regress` with the fixes its PATCHES.md lists: case folding
//!   without `u`, `v` class sets, a few syntax checks), for lookaround,
//!   backreferences, named groups, `u`/`v` classes and JS case folding. A JS
//!   string is UTF-16: without `u`/`v` a regex sees code units (`^.$` does
//!   not match an astral emoji, `^..$` does), with them code points. So the
//!   source is handed to regress as code units or code points, and each name
//!   is encoded as UTF-16 and run through `find_from_ucs2` or
//!   `find_from_utf16` to match. A name that is not UTF-8 is tested as its
//!   lossy decoding (what Node shows for it). Flags `g` and `d` change
//!   nothing for one `test`; `y` (sticky, `lastIndex` 0) means the match
//!   must start at the first character.
//! - One known difference, a V8 quirk: with `u`/`v`, V8 also tries an empty
//!   match between the two halves of a surrogate pair, which the spec (and
//!   regress) never does, so `/\B/u.test('a😀b')` is true in V8 and false
//!   here. Only patterns that can match empty at such a place notice.
//! - A fast path: a small, safe subset of the syntax (ASCII literals, `.`,
//!   anchors, groups, alternation, greedy and lazy quantifiers, ASCII classes
//!   with `\d\w\s`, `\b`; flags `i s g d` only) means the same in JS and in
//!   the `regex` crate on ASCII text, where every Unicode/UTF-16 difference
//!   vanishes. Such a pattern is also translated here, by hand (no crate
//!   translates JS regex syntax to Rust's), to a byte regex in ASCII mode
//!   that tests names which are all ASCII; every other name, and every
//!   pattern outside the subset or whose translation does not compile, goes
//!   to regress. regress always compiles the pattern too, so what is refused
//!   is decided by one engine.
//!
//! Cost bounds: the pattern is at most `MAX_PATTERN_BYTES`; regress compiles
//! counted repetition to loops (no unrolling, so `(a{1000}){1000}` is
//! small) and limits nesting to 256 levels (deeper groups, which V8 takes,
//! are refused as `invalid-pattern`), so compiling stays cheap: the worst
//! patterns under 16 KiB (hundreds of `\p{L}` classes under `iu`, or set
//! operations under `iv`) compiled in about 0.2 s here. regress backtracks and has no step limit: as in V8, nested
//! quantifiers (`^(a+)+$`) can take exponential time on a name that almost
//! matches. A name is at most 255 bytes on Linux, which bounds each test's
//! input but not that exponent; names all ASCII with a pattern in the fast
//! subset run on the linear-time `regex` crate instead. A panic in regress
//! (a bug) never unwinds into the walk: it is caught and reported after the
//! walk as `invalid-pattern`.

use crate::error::{clip, FindError, Result};
use regex::bytes::{Regex as ByteRegex, RegexBuilder};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The flag letters V8 accepts.
const FLAG_LETTERS: &str = "dgimsuvy";

/// The compiled-size limit of the fast path's twin: past it, regress serves.
const FAST_SIZE_LIMIT: usize = 1 << 20;

/// A JavaScript regex, compiled.
#[derive(Debug, Clone)]
pub struct JsRegex {
    engine: regress::Regex,
    /// `u` or `v`: match code points; otherwise UTF-16 code units.
    unicode: bool,
    /// `y`: the match must start at index 0.
    sticky: bool,
    /// The `regex` crate twin for names all ASCII (see the module doc).
    fast: Option<ByteRegex>,
    /// The source and flags as run, for messages.
    shown: String,
    /// Set when regress panicked on some name (shared by clones).
    failed: Arc<AtomicBool>,
}

/// Source and flags of a JS regex, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts<'a> {
    pub source: &'a str,
    pub flags: String,
}

/// `/source/flags` split in two when `pattern` has that form: a leading `/`
/// and a last `/` followed only by flag letters (which may still be repeated:
/// that is refused later, as V8 does).
pub fn split_literal(pattern: &str) -> Option<(&str, &str)> {
    let rest = pattern.strip_prefix('/')?;
    let slash = rest.rfind('/')?;
    let flags = &rest[slash + 1..];
    flags.chars().all(|c| FLAG_LETTERS.contains(c)).then_some((&rest[..slash], flags))
}

/// The source and flags that `pattern` stands for: its literal form's, or
/// the pattern itself with none; `i` is added unless `case_sensitive`.
pub fn parts(pattern: &str, case_sensitive: bool) -> Result<Parts<'_>> {
    let (source, written) = split_literal(pattern).unwrap_or((pattern, ""));
    let mut seen = String::new();
    for c in written.chars() {
        if seen.contains(c) || (c == 'u' && seen.contains('v')) || (c == 'v' && seen.contains('u')) {
            return Err(FindError::invalid_pattern(format!(
                "invalid JavaScript regex '{}': Invalid flags supplied to RegExp constructor '{written}' \
                 (a flag is repeated, or `u` and `v` are both set)",
                clip(pattern, 200)
            )));
        }
        seen.push(c);
    }
    if !case_sensitive && !seen.contains('i') {
        seen.push('i');
    }
    Ok(Parts { source, flags: seen })
}

impl JsRegex {
    /// Compiles `pattern` (plain source or `/source/flags`).
    pub fn new(pattern: &str, case_sensitive: bool) -> Result<JsRegex> {
        let Parts { source, flags } = parts(pattern, case_sensitive)?;
        let has = |c: char| flags.contains(c);
        let unicode = has('u') || has('v');
        let shown = format!("/{}/{flags}", clip(source, 200));
        let engine_flags = regress::Flags {
            icase: has('i'),
            multiline: has('m'),
            dot_all: has('s'),
            // `v` is `u` plus class set syntax: regress checks `unicode` for
            // everything else (strict escapes, case folding, code points).
            unicode,
            unicode_sets: has('v'),
            ..regress::Flags::default()
        };
        let compiled = catch_unwind(|| {
            if unicode {
                regress::Regex::from_unicode(source.chars().map(u32::from), engine_flags)
            } else {
                // Without `u`/`v`, JS reads the source as UTF-16 code units too.
                regress::Regex::from_unicode(source.encode_utf16().map(u32::from), engine_flags)
            }
        });
        let engine = match compiled {
            Ok(Ok(engine)) => engine,
            Ok(Err(e)) => {
                return Err(FindError::invalid_pattern(format!(
                    "invalid JavaScript regex {shown}: {} (the pattern is read as `new RegExp(source, flags)` \
                     and tested against each file name)",
                    clip(&e.text, 300)
                )))
            }
            Err(_) => return Err(engine_panicked(&shown)),
        };
        let fast = fast_twin(source, &flags);
        Ok(JsRegex { engine, unicode, sticky: has('y'), fast, shown, failed: Arc::new(AtomicBool::new(false)) })
    }

    /// Whether the fast path serves all-ASCII names.
    #[cfg(test)]
    pub fn has_fast_path(&self) -> bool {
        self.fast.is_some()
    }

    /// `RegExp.prototype.test` on a name given as bytes.
    pub fn is_match(&self, name: &[u8]) -> bool {
        if let Some(fast) = &self.fast {
            if name.is_ascii() {
                return fast.is_match(name);
            }
        }
        self.engine_match(name)
    }

    /// The answer of regress alone (the fast path skipped).
    pub fn engine_match(&self, name: &[u8]) -> bool {
        let text = String::from_utf8_lossy(name);
        let units: Vec<u16> = text.encode_utf16().collect();
        let found = catch_unwind(AssertUnwindSafe(|| {
            let first = match self.unicode {
                true => self.engine.find_from_utf16(&units, 0).next(),
                false => self.engine.find_from_ucs2(&units, 0).next(),
            };
            // The engine tries start positions in order, so the first match
            // starts at 0 exactly when some match does.
            first.is_some_and(|m| !self.sticky || m.start() == 0)
        }));
        found.unwrap_or_else(|_| {
            self.failed.store(true, Ordering::Relaxed);
            false
        })
    }

    /// An error when regress panicked on some name during a walk.
    pub fn failure(&self) -> Option<FindError> {
        self.failed.load(Ordering::Relaxed).then(|| engine_panicked(&self.shown))
    }
}

fn engine_panicked(shown: &str) -> FindError {
    FindError::invalid_pattern(format!(
        "the JavaScript regex engine failed on {shown} (an internal error in agent-find; please report it): \
         rewrite the pattern more simply, or use a glob"
    ))
}

/// The fast path's byte regex, when `source` stays inside the subset that
/// means the same in JS and in the `regex` crate (ASCII mode) on ASCII text.
fn fast_twin(source: &str, flags: &str) -> Option<ByteRegex> {
    if !flags.chars().all(|c| "isgd".contains(c)) {
        return None;
    }
    let translated = translate(source, flags.contains('s'))?;
    RegexBuilder::new(&translated)
        .unicode(false)
        .case_insensitive(flags.contains('i'))
        .size_limit(FAST_SIZE_LIMIT)
        .dfa_size_limit(FAST_SIZE_LIMIT)
        .build()
        .ok()
}

/// A literal character as the `regex` crate reads it anywhere (in a class too).
fn push_char(out: &mut String, c: u8) {
    if c.is_ascii_alphanumeric() {
        out.push(c as char);
    } else {
        out.push_str(&format!("\\x{c:02X}"));
    }
}

/// What one escape (the character after `\`) means, in the subset.
enum Escape {
    /// A character.
    Char(u8),
    /// `\d \D \w \W \s \S`.
    Class(u8),
}

fn escape(e: u8) -> Option<Escape> {
    Some(match e {
        b'd' | b'D' | b'w' | b'W' | b's' | b'S' => Escape::Class(e),
        b't' => Escape::Char(b'\t'),
        b'n' => Escape::Char(b'\n'),
        b'r' => Escape::Char(b'\r'),
        b'f' => Escape::Char(0x0C),
        b'v' => Escape::Char(0x0B),
        _ if e.is_ascii_punctuation() => Escape::Char(e),
        _ => return None,
    })
}

/// Translates a JS source in the subset to the `regex` crate's syntax, or
/// `None` when anything falls outside it (regress then serves every name).
fn translate(source: &str, dot_all: bool) -> Option<String> {
    let s = source.as_bytes();
    if !source.is_ascii() {
        return None;
    }
    let mut out = String::with_capacity(s.len() * 2);
    let mut depth = 0usize;
    // Whether the last item can take a quantifier (JS: "Nothing to repeat").
    let mut quantifiable = false;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        i += 1;
        match c {
            b'\\' => {
                let e = *s.get(i)?;
                i += 1;
                match e {
                    b'b' | b'B' => {
                        out.push('\\');
                        out.push(e as char);
                        quantifiable = false;
                        continue;
                    }
                    _ => match escape(e)? {
                        Escape::Char(c) => push_char(&mut out, c),
                        Escape::Class(k) => {
                            out.push('\\');
                            out.push(k as char);
                        }
                    },
                }
                quantifiable = true;
            }
            b'.' => {
                out.push_str(if dot_all { "(?s:.)" } else { "[^\\x0A\\x0D]" });
                quantifiable = true;
            }
            b'^' | b'$' | b'|' => {
                out.push(c as char);
                quantifiable = false;
            }
            b'(' => {
                if s.get(i) == Some(&b'?') {
                    if s.get(i + 1) != Some(&b':') {
                        return None;
                    }
                    i += 2;
                    out.push_str("(?:");
                } else {
                    out.push('(');
                }
                depth += 1;
                quantifiable = false;
            }
            b')' => {
                depth = depth.checked_sub(1)?;
                out.push(')');
                quantifiable = true;
            }
            b'*' | b'+' | b'?' | b'{' => {
                if !quantifiable {
                    return None;
                }
                if c == b'{' {
                    let (text, len) = counted(&s[i..])?;
                    out.push_str(&text);
                    i += len;
                } else {
                    out.push(c as char);
                }
                if s.get(i) == Some(&b'?') {
                    out.push('?');
                    i += 1;
                }
                quantifiable = false;
            }
            b'}' | b']' => return None,
            b'[' => {
                i += class(&s[i..], &mut out)?;
                quantifiable = true;
            }
            _ => {
                push_char(&mut out, c);
                quantifiable = true;
            }
        }
    }
    (depth == 0).then_some(out)
}

/// `{n}`, `{n,}` or `{n,m}` (`rest` starts after the `{`): the text to emit
/// and the bytes read. Anything else is `None` (in JS a stray `{` is a
/// literal or an error; regress decides).
fn counted(rest: &[u8]) -> Option<(String, usize)> {
    let end = rest.iter().position(|&b| b == b'}')?;
    let body = std::str::from_utf8(&rest[..end]).ok()?;
    let number = |t: &str| (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse::<u32>().ok())?;
    match body.split_once(',') {
        None => {
            number(body)?;
        }
        Some((lo, "")) => {
            number(lo)?;
        }
        Some((lo, hi)) => {
            if number(lo)? > number(hi)? {
                return None;
            }
        }
    }
    Some((format!("{{{body}}}"), end + 1))
}

/// A class (`rest` starts after the `[`), appended to `out`; the bytes read.
fn class(rest: &[u8], out: &mut String) -> Option<usize> {
    let mut i = 0;
    out.push('[');
    if rest.first() == Some(&b'^') {
        out.push('^');
        i += 1;
    }
    // `[]` and `[^]` have no `regex` crate spelling.
    if rest.get(i) == Some(&b']') {
        return None;
    }
    let atom = |i: &mut usize| -> Option<Escape> {
        let c = *rest.get(*i)?;
        *i += 1;
        if c != b'\\' {
            return Some(Escape::Char(c));
        }
        let e = *rest.get(*i)?;
        *i += 1;
        // `\b` is a backspace in a class; `\B` and others stay with regress.
        escape(e)
    };
    loop {
        match rest.get(i) {
            None => return None,
            Some(b']') => {
                out.push(']');
                return Some(i + 1);
            }
            Some(_) => {}
        }
        let first = atom(&mut i)?;
        let is_range = rest.get(i) == Some(&b'-') && rest.get(i + 1).is_some_and(|&b| b != b']');
        match (first, is_range) {
            (Escape::Class(k), false) => {
                out.push('\\');
                out.push(k as char);
            }
            (Escape::Char(c), false) => push_char(out, c),
            (Escape::Char(lo), true) => {
                i += 1;
                let Escape::Char(hi) = atom(&mut i)? else { return None };
                if lo > hi {
                    return None;
                }
                push_char(out, lo);
                out.push('-');
                push_char(out, hi);
            }
            // `[\d-z]`: a literal `-` in JS (Annex B); left to regress.
            (Escape::Class(_), true) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(p: &str) -> JsRegex {
        JsRegex::new(p, false).unwrap()
    }

    fn cs(p: &str) -> JsRegex {
        JsRegex::new(p, true).unwrap()
    }

    #[test]
    fn literal_form_and_flags() {
        assert_eq!(split_literal("/MAIN/i"), Some(("MAIN", "i")));
        assert_eq!(split_literal("/a/b/gim"), Some(("a/b", "gim")));
        assert_eq!(split_literal("/a/x"), None);
        assert_eq!(split_literal("/"), None);
        assert_eq!(split_literal("a/i"), None);
        assert_eq!(parts("/x/m", false).unwrap(), Parts { source: "x", flags: "mi".into() });
        assert_eq!(parts("/x/m", true).unwrap(), Parts { source: "x", flags: "m".into() });
        assert_eq!(parts("/x/i", true).unwrap(), Parts { source: "x", flags: "i".into() });
        assert_eq!(parts("x", true).unwrap(), Parts { source: "x", flags: String::new() });
        for bad in ["/x/ii", "/x/uv", "/x/gg"] {
            let e = JsRegex::new(bad, false).unwrap_err();
            assert_eq!(e.code, crate::error::ErrorCode::InvalidPattern);
            assert!(e.message.contains("Invalid flags"), "{}", e.message);
        }
    }

    #[test]
    fn javascript_features() {
        assert!(js(r"^(?!test).*\.py$").is_match(b"main.py"));
        assert!(!js(r"^(?!test).*\.py$").is_match(b"test_main.py"));
        assert!(js("(?<=a)b").is_match(b"ab") && !js("(?<=a)b").is_match(b"cb"));
        assert!(js(r"^(\w)\1").is_match(b"aab") && !js(r"^(\w)\1").is_match(b"abb"));
        assert!(js(r"^(?<x>.)\k<x>$").is_match(b"zz"));
        assert!(js("/MAIN/").is_match(b"main.rs") && !cs("/MAIN/").is_match(b"main.rs"));
        assert!(cs("/MAIN/i").is_match(b"main.rs"));
    }

    #[test]
    fn code_units_without_u_code_points_with_it() {
        let emoji = "😀".as_bytes();
        assert!(!js("^.$").is_match(emoji) && js("^..$").is_match(emoji));
        assert!(js("/^.$/u").is_match(emoji) && !js("/^..$/u").is_match(emoji));
        assert!(js("^😀+$").is_match("😀".as_bytes()));
        // Kelvin sign folds to k only under `u`; `ſ` to s likewise.
        assert!(!js("^k$").is_match("\u{212A}".as_bytes()) && js("/^k$/u").is_match("\u{212A}".as_bytes()));
    }

    #[test]
    fn sticky_starts_at_zero() {
        assert!(js("/b/y").is_match(b"bc") && !js("/b/y").is_match(b"abc"));
    }

    #[test]
    fn names_that_are_not_utf8_are_tested_lossily() {
        assert!(js("^a\u{FFFD}b$").is_match(b"a\xffb"));
    }

    #[test]
    fn fast_path_covers_the_subset_only() {
        for p in [r"^test_.*\.py$", r"\.(ts|tsx)$", "[a-z0-9_-]+", r"\bfoo\B", "a{2,3}?b", "x|y|", r"[\d\-.]"] {
            assert!(js(p).has_fast_path(), "{p}");
        }
        for p in ["(?=a)", r"(a)\1", "é", "a{,2}", "[]", "[^]", r"[\d-z]", "/a/m", "/a/u", "/a/y", "*a", "a**", r"\cA"]
        {
            if let Ok(r) = JsRegex::new(p, false) {
                assert!(!r.has_fast_path(), "{p}");
            }
        }
    }

    #[test]
    fn fast_path_agrees_with_regress_on_ascii() {
        let names: &[&[u8]] =
            &[b"a.py", b"test_x.py", b"TEST_X.PY", b"a\nb", b"a\rb", b"-", b"ab", b"aab", b"x y", b""];
        for p in [r"^test_.*\.py$", "^a.b$", "/^a.b$/s", r"\w+\s\w", "[^a-z]", r"[\W]", "^(a|)b$", "a{2}", r"\bb"] {
            for case_sensitive in [false, true] {
                let r = JsRegex::new(p, case_sensitive).unwrap();
                assert!(r.has_fast_path(), "{p}");
                for name in names {
                    assert_eq!(r.is_match(name), r.engine_match(name), "{p} on {:?}", String::from_utf8_lossy(name));
                }
            }
        }
    }

    #[test]
    fn errors_say_javascript_and_what() {
        let e = JsRegex::new("(unclosed", false).unwrap_err();
        assert!(e.message.contains("JavaScript regex"), "{}", e.message);
        let long = format!("({}", "x".repeat(10_000));
        let e = JsRegex::new(&long, false).unwrap_err();
        assert!(e.message.len() < 1024, "{}", e.message.len());
    }
}

/// `cargo test --release --lib js_regex::timing -- --ignored --nocapture`:
/// the cost of testing 10,000 names, fast path against regress.
#[cfg(test)]
mod timing {
    use super::*;
    use std::time::Instant;

    #[test]
    #[ignore]
    fn fast_path_against_regress_on_10k_names() {
        let names: Vec<String> = (0..10_000)
            .map(|i| {
                format!("{}file_{}_{i}.{}", if i % 3 == 0 { "mod_" } else { "test_" }, i / 100, ["py", "ts"][i % 2])
            })
            .collect();
        for pattern in [r"^test_.*\.py$", r"\.(py|ts)$", r"^[a-z]+_\d+_\d+\.py$"] {
            let r = JsRegex::new(pattern, false).unwrap();
            assert!(r.has_fast_path());
            let time = |f: &dyn Fn(&[u8]) -> bool| {
                let start = Instant::now();
                let mut hits = 0;
                for _ in 0..10 {
                    hits += names.iter().filter(|n| f(n.as_bytes())).count();
                }
                (start.elapsed() / 10, hits / 10)
            };
            let (fast, a) = time(&|n| r.is_match(n));
            let (slow, b) = time(&|n| r.engine_match(n));
            assert_eq!(a, b);
            println!("{pattern:<24} fast path {fast:>10.2?}  regress {slow:>10.2?}  ({a} of 10000 match)");
        }
    }
}
