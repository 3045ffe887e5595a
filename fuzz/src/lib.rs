//! The fuzz target functions, shared by the libFuzzer targets
//! (`fuzz_targets/*.rs`, run with `cargo fuzz`) and by `stable`, a
//! mutation runner that works on a stable toolchain.
//!
//! Each function takes raw bytes, must never panic, hang or abort, and checks
//! a few invariants; it returns a short description of what happened (used
//! by `stable` as a coarse novelty signal, ignored by libFuzzer).

use agent_find_core::{
    normalize_glob, parse_find_options, size, time, Excludes, NameMatcher, PatternMode, Purpose, Source, Value,
};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Glob and regex compilation and matching.
///
/// Input: a flags byte (mode, case), then the pattern (as UTF-8, lossily: JS
/// strings always arrive as valid UTF-8), a NUL, and a path whose bytes are
/// used as they are (Linux names may be any bytes but `/` and NUL).
pub fn pattern(data: &[u8]) -> String {
    let Some((&flags, rest)) = data.split_first() else {
        return "empty".into();
    };
    let (pat, path) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let pattern = String::from_utf8_lossy(pat);
    let mode = [PatternMode::PathGlob, PatternMode::BaseGlob, PatternMode::BaseRegex][flags as usize % 3];
    let case_sensitive = flags & 4 != 0;

    let once = normalize_glob(&pattern);
    assert_eq!(normalize_glob(&once), once, "normalize_glob is not idempotent on {pattern:?}");

    let matcher = match NameMatcher::new(&pattern, mode, case_sensitive) {
        Ok(m) => m,
        Err(e) => return format!("{mode:?} err {:?}", e.code),
    };
    let raw = Path::new(OsStr::from_bytes(path));
    let mut hits = 0;
    for candidate in [raw, Path::new(matcher.normalized.as_str()), Path::new(pattern.as_ref())] {
        hits += usize::from(matcher.is_match(candidate));
    }
    // A plain name (no glob syntax) matches itself, whatever the case.
    let plain = !pattern.is_empty()
        && pattern.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && mode != PatternMode::BaseRegex;
    if plain {
        assert!(matcher.is_match(Path::new(pattern.as_ref())), "{pattern:?} does not match itself");
        assert!(matcher.is_match(Path::new(&pattern.to_ascii_uppercase())) || case_sensitive);
    }
    if let Some(deep) = matcher.deep_variant(case_sensitive) {
        hits += usize::from(deep.is_match(raw));
    }
    if mode != PatternMode::BaseRegex {
        if let Ok(ex) = Excludes::new(vec![pattern.clone().into_owned()], case_sensitive) {
            hits += usize::from(ex.is_excluded(raw, false));
        }
    }
    format!("{mode:?} ok {} hits", hits.min(2))
}

const NOW_MS: f64 = 1_700_000_000_000.0;

/// `minSize`/`maxSize` and `modifiedSince` parsing, from text and from numbers.
pub fn parsers(data: &[u8]) -> String {
    let text = String::from_utf8_lossy(data);
    let mut out = String::new();
    match size::size_from_text("minSize", &text) {
        Ok(n) => {
            // A bare whole number of bytes is itself.
            if text.bytes().all(|b| b.is_ascii_digit()) && text.len() <= 15 {
                assert_eq!(n, text.parse::<u64>().unwrap(), "size of {text:?}");
            }
            out.push_str("size ok;");
        }
        Err(e) => {
            assert!(e.message.contains("`minSize`"));
            out.push_str("size err;");
        }
    }
    match time::since_from_text(&text, NOW_MS) {
        Ok(ms) => {
            assert!(!ms.is_nan(), "modifiedSince {text:?} gave NaN");
            out.push_str(if ms.is_finite() { "since ok;" } else { "since infinite;" });
        }
        Err(_) => out.push_str("since err;"),
    }
    if let Some(bytes) = data.get(..8) {
        let n = f64::from_le_bytes(bytes.try_into().unwrap());
        if let Ok(v) = size::size_from_number("maxSize", n) {
            assert!(n.is_finite() && n >= 0.0 && n.fract() == 0.0, "{n} accepted as a size");
            assert!(v as f64 <= n.max(0.0) + 1.0 || n > u64::MAX as f64 / 2.0);
            out.push_str("num size ok;");
        }
        if let Ok(v) = time::since_from_number(n) {
            assert!(v.is_finite(), "{n} accepted as a date");
            out.push_str("num since ok;");
        }
    }
    out
}

/// Option keys the decoder picks from: every known one, and two unknown.
#[rustfmt::skip]
const KEYS: &[&str] = &[
    "pattern", "path", "cwd", "regex", "matchBase", "caseSensitive", "type", "limit", "maxLimit", "maxDepth",
    "sortBy", "reverse", "modifiedSince", "minSize", "maxSize", "hidden", "gitignore", "exclude", "maxBytes",
    "timeoutMs", "roots", "target", "fileGlob", "outputMode", "ignoreCase", "noIgnore", "maxResults", "maxdepth",
    "__proto__",
];

/// Strings the decoder likes to use: valid values and near misses.
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "**/*.ts", "*", "[", "{a,b}", "file", "dir", "any", "recent", "name", "size", "mtime", "none", "content",
    "files", "count", "10KB", "1.5MB", "24h", "7d", "2024-01-01", "2024-01-01T00:00:00Z", "", "/", "..", "a\0b",
    "/nonexistent/fuzz", "x",
];

#[rustfmt::skip]
const NUMBERS: &[f64] = &[
    0.0, -0.0, 1.0, -1.0, 1.5, 255.0, 256.0, 1000.0, 1001.0, 1e308, -1e308, 9007199254740993.0,
    f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE, 18446744073709551615.0, 4294967296.0,
];

struct Bytes<'a>(std::slice::Iter<'a, u8>);

impl Bytes<'_> {
    fn next(&mut self) -> Option<u8> {
        self.0.next().copied()
    }

    fn value(&mut self, depth: u8) -> Option<Value> {
        let tag = self.next()?;
        Some(match tag % 8 {
            0 => Value::Absent,
            1 => Value::Bool(tag & 8 != 0),
            2 => Value::Number(NUMBERS[self.next()? as usize % NUMBERS.len()]),
            3 => {
                let mut raw = [0u8; 8];
                for b in &mut raw {
                    *b = self.next()?;
                }
                Value::Number(f64::from_le_bytes(raw))
            }
            4 => Value::Text(WORDS[self.next()? as usize % WORDS.len()].to_string()),
            5 => {
                let len = self.next()? as usize % 40;
                let bytes: Vec<u8> = (0..len).map_while(|_| self.next()).collect();
                Value::Text(String::from_utf8_lossy(&bytes).into_owned())
            }
            6 if depth == 0 => {
                let n = self.next()? as usize % 5;
                Value::List((0..n).map_while(|_| self.value(depth + 1)).collect())
            }
            _ => Value::Other(["object", "function", "symbol", "bigint", "array"][tag as usize / 8 % 5]),
        })
    }
}

/// Option validation for `find`, `findFiles` and `searchFiles` on decoded
/// option lists (which never touches the file system).
pub fn options(data: &[u8]) -> String {
    let mut input = Bytes(data.iter());
    let mut fields = vec![("cwd".to_string(), Value::Text("/nonexistent/fuzz".into()))];
    while let Some(k) = input.next() {
        let Some(v) = input.value(0) else { break };
        fields.push((KEYS[k as usize % KEYS.len()].to_string(), v));
    }
    let mut out = String::new();
    for purpose in [Purpose::Find, Purpose::FindFiles] {
        match parse_find_options(&fields, purpose, Source::Disk) {
            Ok(c) => {
                assert!(c.caps.limit >= 1, "limit 0 accepted");
                if let Some(max) = c.caps.max_bytes {
                    assert!(max >= agent_find_core::limits::MIN_MAX_BYTES, "maxBytes {max} accepted");
                }
                if let (Some(min), Some(max)) = (c.filters.min_size, c.filters.max_size) {
                    assert!(min <= max, "minSize {min} > maxSize {max} accepted");
                }
                if let Some(since) = c.filters.modified_since {
                    assert!(!since.is_nan(), "NaN modifiedSince accepted");
                }
                assert!(c.scope.logical_path.is_absolute());
                out.push_str("ok;");
            }
            Err(e) => {
                assert!(!e.message.is_empty());
                out.push_str(&format!("{:?};", e.code));
            }
        }
    }
    match agent_find_core::parse_search_options(&fields, Source::Disk) {
        Ok(c) => {
            assert!(
                (1..=agent_find_core::limits::MAX_RESULTS).contains(&c.max_results),
                "maxResults {}",
                c.max_results
            );
            out.push_str("search ok");
        }
        Err(e) => out.push_str(&format!("search {:?}", e.code)),
    }
    out
}
