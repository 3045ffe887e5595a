//! The name matcher: a glob tested against the relative path (or against the
//! basename with `matchBase`), or a JavaScript regex tested against the
//! basename (`regex: true`, see `js_regex`).
//!
//! Globs are normalized first, so that what a model writes works as fast-glob
//! users expect: a leading `./` or `/` and a trailing `/` are dropped, and a
//! `**` that is not a whole path segment (`src**`, `**test**`) means `*`.
//!
//! globset compiles a glob to a byte regex: `?` and `[...]` match one byte,
//! not one character, and case folding is ASCII only. A glob where that
//! matters (with `?`, a class, or non-ASCII letters matched case-insensitively)
//! also gets a Unicode twin, made from globset's own regex, that tests names
//! which are valid UTF-8 and not all ASCII: `?.txt` finds `é.txt` and `é*`
//! finds `Éclair.txt`. Names that are not UTF-8 keep byte matching.

use crate::error::{FindError, Result};
use crate::js_regex::JsRegex;
use globset::{GlobBuilder, GlobMatcher};
use regex::bytes::{Regex, RegexBuilder};
use std::ffi::OsStr;
use std::path::Path;

pub use crate::limits::MAX_PATTERN_BYTES;
use crate::limits::{MAX_EXCLUDE_BYTES, MAX_EXCLUDE_GLOBS};

/// The compiled-size limit of a glob's Unicode twin (Unicode classes are
/// larger than byte classes; globset's own limit is 10 MiB).
const WIDE_REGEX_BYTES: usize = 64 << 20;

/// How `pattern` is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternMode {
    /// A glob against the path relative to the search directory.
    PathGlob,
    /// A glob against the basename (`matchBase`).
    BaseGlob,
    /// A regex against the basename (`regex`).
    BaseRegex,
}

/// A compiled pattern, ready to test entries.
#[derive(Debug, Clone)]
pub struct NameMatcher {
    mode: PatternMode,
    glob: Option<GlobMatcher>,
    /// The Unicode twin of `glob`, for non-ASCII names (see the module doc).
    wide: Option<Regex>,
    /// The JavaScript regex of `regex: true` (see `js_regex`).
    regex: Option<JsRegex>,
    /// A fast way to the same answer for the commonest globs (`**/*.ts`).
    suffix: Option<Suffix>,
    /// The glob as compiled (after normalization), for hints.
    pub normalized: String,
}

/// `**/*<literal>` or `*<literal>` (no `/` in it): a name ending with the
/// literal, at any depth or at the top. Tested on ASCII paths only, where
/// ASCII case folding is all the folding there is; other paths take the glob.
#[derive(Debug, Clone)]
struct Suffix {
    /// Lowercased when the match ignores case.
    literal: Vec<u8>,
    case_sensitive: bool,
    any_depth: bool,
}

impl Suffix {
    fn of(glob: &str, case_sensitive: bool) -> Option<Suffix> {
        let (rest, any_depth) = match glob.strip_prefix("**/*") {
            Some(rest) => (rest, true),
            None => (glob.strip_prefix('*')?, false),
        };
        let plain =
            !rest.is_empty() && rest.is_ascii() && !rest.contains(['*', '?', '[', ']', '{', '}', '\\', '/', '!']);
        let literal = if case_sensitive { rest.as_bytes().to_vec() } else { rest.to_ascii_lowercase().into_bytes() };
        plain.then_some(Suffix { literal, case_sensitive, any_depth })
    }

    /// `None` when the candidate's last bytes (where the literal would be)
    /// are not ASCII: there, Unicode case folding could differ.
    fn matches(&self, candidate: &[u8]) -> Option<bool> {
        let Some(at) = candidate.len().checked_sub(self.literal.len()) else {
            return candidate.is_ascii().then_some(false);
        };
        let tail = &candidate[at..];
        if !tail.is_ascii() {
            return None;
        }
        let hit = if self.case_sensitive { tail == self.literal } else { tail.eq_ignore_ascii_case(&self.literal) };
        // The literal holds no `/`, so a hit lies inside the last name, and
        // `*` takes whatever precedes it there.
        Some(hit && (self.any_depth || !candidate[..at].contains(&b'/')))
    }
}

impl NameMatcher {
    pub fn new(pattern: &str, mode: PatternMode, case_sensitive: bool) -> Result<Self> {
        if pattern.is_empty() {
            return Err(FindError::invalid_argument(
                "`pattern` is empty: pass a glob such as '**/*.ts' (or a regex with `regex: true`)",
            ));
        }
        // globset panics when a glob's regex outgrows its size limit; refuse
        // long patterns before that can happen.
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(FindError::invalid_pattern(format!(
                "pattern is {} bytes long; the limit is {MAX_PATTERN_BYTES}: write a shorter glob or regex",
                pattern.len()
            )));
        }
        // A JavaScript regex tests names as V8 would, as they are listed.
        if mode == PatternMode::BaseRegex {
            return Ok(NameMatcher {
                mode,
                glob: None,
                wide: None,
                regex: Some(JsRegex::new(pattern, case_sensitive)?),
                suffix: None,
                normalized: pattern.to_string(),
            });
        }
        // A glob's names are matched in NFC (see `names`), so the glob is too.
        let pattern = &*crate::names::nfc_text(pattern);
        let normalized = normalize_glob(pattern);
        if normalized.is_empty() {
            return Err(FindError::invalid_argument(format!(
                "`pattern` '{}' is empty once its leading './' or '/' is removed: pass a glob such as '**/*' to list everything",
                crate::error::clip(pattern, 100)
            )));
        }
        let glob = compile_glob(&normalized, pattern, case_sensitive)?;
        let byte_level_differs = normalized.contains(['?', '[']) || (!case_sensitive && !normalized.is_ascii());
        let wide = match byte_level_differs {
            true => Some(compile_wide(glob.glob().regex(), pattern)?),
            false => None,
        };
        let suffix = Suffix::of(&normalized, case_sensitive);
        Ok(NameMatcher { mode, glob: Some(glob), wide, regex: None, suffix, normalized })
    }

    pub fn mode(&self) -> PatternMode {
        self.mode
    }

    /// An error when the regex engine failed (panicked) on some name while
    /// testing: the walk then skipped that name, so its answer is not whole.
    pub fn failure(&self) -> Option<FindError> {
        self.regex.as_ref().and_then(JsRegex::failure)
    }

    /// Tests an entry by its path relative to the search directory: a glob
    /// in NFC (a name stored in NFD is found by the glob a model types), a
    /// regex on the name as listed (as V8 would test it).
    #[inline]
    pub fn is_match(&self, relative: &Path) -> bool {
        let candidate = match self.mode {
            PatternMode::PathGlob => relative.as_os_str(),
            PatternMode::BaseGlob | PatternMode::BaseRegex => relative.file_name().unwrap_or(relative.as_os_str()),
        };
        let bytes = os_bytes(candidate);
        if bytes.is_ascii() || self.mode == PatternMode::BaseRegex {
            return self.bytes_match(&bytes, candidate);
        }
        match crate::names::nfc(&bytes) {
            std::borrow::Cow::Borrowed(_) => self.bytes_match(&bytes, candidate),
            std::borrow::Cow::Owned(normal) => self.bytes_match(&normal, crate::path_bytes::os_str(&normal)),
        }
    }

    /// `is_match` of a candidate, as bytes and as the same name as an `OsStr`.
    fn bytes_match(&self, bytes: &[u8], candidate: &OsStr) -> bool {
        if self.mode == PatternMode::BaseRegex {
            return self.regex.as_ref().is_some_and(|r| r.is_match(bytes));
        }
        if let Some(answer) = self.suffix.as_ref().and_then(|s| s.matches(bytes)) {
            return answer;
        }
        if let Some(wide) = &self.wide {
            if !bytes.is_ascii() && std::str::from_utf8(bytes).is_ok() {
                return wide.is_match(bytes);
            }
        }
        self.glob.as_ref().is_some_and(|g| g.is_match(candidate))
    }

    /// For a path glob with no `/` (so it only reaches the top level), the same
    /// glob under `**/`, to tell the model when deeper files would match.
    pub fn deep_variant(&self, case_sensitive: bool) -> Option<NameMatcher> {
        if self.mode != PatternMode::PathGlob || self.normalized.contains('/') {
            return None;
        }
        let deep = format!("**/{}", self.normalized);
        NameMatcher::new(&deep, PatternMode::PathGlob, case_sensitive).ok()
    }
}

fn compile_glob(glob: &str, original: &str, case_sensitive: bool) -> Result<GlobMatcher> {
    GlobBuilder::new(glob)
        .literal_separator(true)
        .case_insensitive(!case_sensitive)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| {
            let place = unclosed_at(glob)
                .map(|at| {
                    format!(
                        " (the bracket at character {} of '{}' is never closed)",
                        at + 1,
                        crate::error::clip(glob, 200)
                    )
                })
                .unwrap_or_default();
            FindError::invalid_pattern(format!(
                "invalid glob '{}': {}{place}. Escape a literal '[', '{{' or '*' as '[[]', '[{{]', '[*]'",
                crate::error::clip(original, 200),
                e.kind()
            ))
        })
}

/// The Unicode twin of a globset regex: the same regex with Unicode mode on
/// and its `\xNN` byte escapes turned back into the characters they spell
/// (globset escapes every non-ASCII character byte by byte).
fn compile_wide(byte_regex: &str, original: &str) -> Result<Regex> {
    let body = byte_regex.strip_prefix("(?-u)").unwrap_or(byte_regex);
    let mut text = String::with_capacity(body.len());
    let mut bytes: Vec<u8> = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let escaped_byte =
            rest.strip_prefix("\\x").and_then(|hex| u8::from_str_radix(hex.get(..2)?, 16).ok().map(|b| (b, &hex[2..])));
        if let Some((byte, after)) = escaped_byte {
            bytes.push(byte);
            rest = after;
            continue;
        }
        if !bytes.is_empty() {
            text.push_str(&String::from_utf8_lossy(&bytes));
            bytes.clear();
        }
        // An escape is copied whole, so `\\` followed by `x41` stays a backslash and text.
        let len = rest.strip_prefix('\\').map_or(0, |after| 1 + after.chars().next().map_or(0, char::len_utf8));
        let len = len.max(rest.chars().next().map_or(1, char::len_utf8));
        text.push_str(&rest[..len]);
        rest = &rest[len..];
    }
    text.push_str(&String::from_utf8_lossy(&bytes));
    RegexBuilder::new(&text).dot_matches_new_line(true).size_limit(WIDE_REGEX_BYTES).build().map_err(|_| {
        FindError::invalid_pattern(format!(
            "glob '{}' is too complex to match non-ASCII names by character: write a shorter glob",
            crate::error::clip(original, 200)
        ))
    })
}

#[cfg(unix)]
fn os_bytes(name: &OsStr) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(name.as_bytes())
}

#[cfg(not(unix))]
fn os_bytes(name: &OsStr) -> std::borrow::Cow<'_, [u8]> {
    match name.to_string_lossy() {
        std::borrow::Cow::Borrowed(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
    }
}

/// Refuses an `exclude` list too big to compile quickly: each glob costs
/// its compile however short it is, and the bytes bound the rest (see
/// `limits`). Checked before any glob is compiled.
pub fn check_exclude_size(globs: &[String]) -> Result<()> {
    if globs.len() > MAX_EXCLUDE_GLOBS {
        return Err(FindError::invalid_pattern(format!(
            "`exclude` holds {} globs; the limit is {MAX_EXCLUDE_GLOBS}: use fewer, broader globs \
             (a folder name such as 'dist' leaves out everything in it), or a .gitignore file",
            globs.len()
        )));
    }
    let bytes: usize = globs.iter().map(String::len).sum();
    if bytes > MAX_EXCLUDE_BYTES {
        return Err(FindError::invalid_pattern(format!(
            "`exclude` globs are {bytes} bytes in all; the limit is {MAX_EXCLUDE_BYTES}: use fewer, shorter globs \
             such as 'dist' or '*.log'"
        )));
    }
    Ok(())
}

/// Drops leading `./` and `/` and trailing `/`, and turns every `**` that is
/// not a whole segment into `*` (and `***…` into `**`).
pub fn normalize_glob(pattern: &str) -> String {
    let mut rest = pattern;
    loop {
        if let Some(r) = rest.strip_prefix("./") {
            rest = r;
        } else if let Some(r) = rest.strip_prefix('/') {
            rest = r;
        } else {
            break;
        }
    }
    while rest.len() > 1 && rest.ends_with('/') && !rest.ends_with("\\/") {
        rest = &rest[..rest.len() - 1];
    }
    if rest == "/" {
        rest = "";
    }
    let chars: Vec<char> = rest.chars().collect();
    let mut out = String::with_capacity(rest.len());
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            out.push(c);
            out.push(chars[i + 1]);
            i += 2;
            continue;
        }
        if in_class {
            // `]` right after `[` or `[!` is a literal member, not the end.
            let opened_at_prev = out.ends_with('[') || out.ends_with("[!") || out.ends_with("[^");
            if c == ']' && !opened_at_prev {
                in_class = false;
            }
            out.push(c);
            i += 1;
            continue;
        }
        if c == '[' {
            in_class = true;
            out.push(c);
            i += 1;
            continue;
        }
        if c == '*' {
            let start = i;
            while i < chars.len() && chars[i] == '*' {
                i += 1;
            }
            let run = i - start;
            let segment_start = start == 0 || chars[start - 1] == '/';
            let segment_end = i == chars.len() || chars[i] == '/';
            if run >= 2 && segment_start && segment_end {
                out.push_str("**");
            } else {
                out.push('*');
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Where an unclosed `[` or `{` opens, for error messages.
fn unclosed_at(glob: &str) -> Option<usize> {
    let mut braces: Vec<usize> = Vec::new();
    let mut class: Option<usize> = None;
    let mut escaped = false;
    for (i, c) in glob.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '[' if class.is_none() => class = Some(i),
            ']' if class.is_some_and(|at| i > at + 1) => class = None,
            '{' if class.is_none() => braces.push(i),
            '}' if class.is_none() => {
                braces.pop();
            }
            _ => {}
        }
    }
    let at = class.or_else(|| braces.last().copied())?;
    Some(glob[..at].chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn glob(p: &str) -> NameMatcher {
        NameMatcher::new(p, PatternMode::PathGlob, false).unwrap()
    }

    fn m(p: &str, path: &str) -> bool {
        glob(p).is_match(Path::new(path))
    }

    #[test]
    fn suffix_globs_take_the_fast_path_with_the_same_answers() {
        let m = |p: &str, cs: bool| NameMatcher::new(p, PatternMode::PathGlob, cs).unwrap();
        let deep = m("**/*.TS", false);
        assert!(deep.suffix.is_some());
        for (path, want) in [("a.ts", true), ("x/y/B.Ts", true), (".ts", true), ("a.tsx", false), ("ts", false)] {
            assert_eq!(deep.is_match(Path::new(path)), want, "{path}");
        }
        assert!(!m("**/*.TS", true).is_match(Path::new("a.ts")));
        let top = m("*.md", false);
        assert!(top.suffix.is_some() && top.is_match(Path::new("README.md")) && !top.is_match(Path::new("docs/a.md")));
        // Not all ASCII: the glob itself answers (Unicode folding, whole characters).
        assert!(deep.is_match(Path::new("é/a.ts")));
        assert!(m("**/*.{ts,js}", false).suffix.is_none() && m("src/*.ts", false).suffix.is_none());
    }

    #[test]
    fn star_stays_in_one_segment() {
        assert!(m("*.py", "a.py"));
        assert!(!m("*.py", "src/a.py"));
        assert!(m("src/*.py", "src/a.py"));
        assert!(!m("src/*.py", "src/x/a.py"));
        assert!(m("?.py", "a.py"));
        assert!(!m("?.py", "ab.py"));
        assert!(!m("a?b", "a/b"));
    }

    #[test]
    fn double_star_spans_zero_or_more_segments() {
        assert!(m("**/*.py", "a.py"));
        assert!(m("**/*.py", "x/y/z/a.py"));
        assert!(m("src/**/*.rs", "src/lib.rs"));
        assert!(m("src/**/*.rs", "src/a/b/lib.rs"));
        assert!(!m("src/**/*.rs", "lib.rs"));
        assert!(m("src/**", "src/a/b"));
        assert!(m("**", "anything/at/all"));
    }

    #[test]
    fn braces_and_classes() {
        assert!(m("**/*.{ts,tsx}", "a/b.tsx"));
        assert!(m("**/*.{ts,tsx}", "b.ts"));
        assert!(!m("**/*.{ts,tsx}", "b.js"));
        assert!(m("{src,lib/{a,b}}/*.c", "lib/b/x.c"));
        assert!(!m("{src,lib/{a,b}}/*.c", "lib/c/x.c"));
        assert!(m("[abc].txt", "b.txt"));
        assert!(!m("[abc].txt", "d.txt"));
        assert!(m("[!a-c].txt", "d.txt"));
        assert!(!m("[!a-c].txt", "a.txt"));
    }

    #[test]
    fn case_insensitive_unless_asked() {
        assert!(m("*.MD", "readme.md"));
        let cs = NameMatcher::new("*.MD", PatternMode::PathGlob, true).unwrap();
        assert!(!cs.is_match(Path::new("readme.md")));
        assert!(cs.is_match(Path::new("README.MD")));
    }

    #[test]
    fn case_folding_covers_non_ascii_letters() {
        assert!(m("é*", "Éclair.txt"));
        assert!(m("åsa/*", "ÅSA/x.md"));
        assert!(!m("é*", "eclair.txt"));
        let cs = NameMatcher::new("é*", PatternMode::PathGlob, true).unwrap();
        assert!(!cs.is_match(Path::new("Éclair.txt")));
    }

    #[test]
    fn names_and_patterns_are_matched_in_one_normal_form() {
        let (nfd, nfc) = ("cafe\u{301}", "caf\u{e9}");
        for (pattern, name) in [(nfc, nfd), (nfd, nfc)] {
            assert!(m(&format!("{pattern}.txt"), &format!("{name}.txt")), "{pattern:?} {name:?}");
            assert!(m(&format!("**/{pattern}*"), &format!("d/{name}.txt")));
            assert!(m("caf?.txt", &format!("{name}.txt")) && m("*\u{c9}.TXT", &format!("{name}.txt")));
        }
        // A regex tests the name as listed, as V8 does: `é` is not `e` and a combining mark.
        let base = NameMatcher::new(&format!("^{nfc}\\."), PatternMode::BaseRegex, true).unwrap();
        assert!(
            base.is_match(Path::new(&format!("d/{nfc}.txt"))) && !base.is_match(Path::new(&format!("d/{nfd}.txt")))
        );
        assert!(!m("cafe.txt", &format!("{nfd}.txt")));
    }

    #[test]
    fn question_marks_and_classes_take_whole_characters() {
        assert!(m("?.txt", "é.txt"));
        assert!(!m("??.txt", "é.txt"));
        assert!(m("[é]x", "éx") && m("[!a]x", "éx") && m("[à-ê]", "é"));
        assert!(m("a/?/b", "a/😀/b") && !m("a?b", "a/b"));
        assert!(
            m("[É]*", "éclair")
                && !NameMatcher::new("[É]*", PatternMode::PathGlob, true).unwrap().is_match(Path::new("éclair"))
        );
        // An escaped backslash before `x` is not read as a byte escape.
        assert!(m("\\\\x41?", "\\x41é"));
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_match_by_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let name = Path::new(OsStr::from_bytes(b"a\xff.txt"));
        assert!(glob("a?.txt").is_match(name) && glob("*.txt").is_match(name) && !glob("a??.txt").is_match(name));
    }

    #[test]
    fn dotfiles_match_stars() {
        assert!(m("*", ".env"));
        assert!(m("**/*", "a/.hidden/b"));
        assert!(m("*rc", ".bashrc"));
    }

    #[test]
    fn leading_dot_slash_and_slash_are_stripped() {
        assert_eq!(normalize_glob("./src/*.ts"), "src/*.ts");
        assert_eq!(normalize_glob("/src/*.ts"), "src/*.ts");
        assert_eq!(normalize_glob(".//./a"), "a");
        assert_eq!(normalize_glob("docs/"), "docs");
        assert!(m("./src/*.ts", "src/a.ts"));
        assert!(m("/*.md", "README.md"));
    }

    #[test]
    fn partial_double_star_means_star() {
        assert_eq!(normalize_glob("src**"), "src*");
        assert_eq!(normalize_glob("**test**"), "*test*");
        assert_eq!(normalize_glob("a/***/b"), "a/**/b");
        assert_eq!(normalize_glob("[**]x"), "[**]x");
        assert_eq!(normalize_glob("\\*\\*x"), "\\*\\*x");
        assert!(m("**test**", "my_test_file"));
    }

    #[test]
    fn match_base_tests_the_basename() {
        let b = NameMatcher::new("*.rs", PatternMode::BaseGlob, false).unwrap();
        assert!(b.is_match(Path::new("deep/down/lib.rs")));
        assert!(!b.is_match(Path::new("deep/down/lib.rsx")));
    }

    #[test]
    fn regex_tests_the_basename() {
        let r = NameMatcher::new(r"^test_.*\.py$", PatternMode::BaseRegex, false).unwrap();
        assert!(r.is_match(Path::new("tests/test_a.py")));
        assert!(r.is_match(Path::new("TEST_B.PY")));
        assert!(!r.is_match(Path::new("test_dir/a.py")));
        let cs = NameMatcher::new("^A", PatternMode::BaseRegex, true).unwrap();
        assert!(!cs.is_match(Path::new("abc")));
        // JavaScript syntax: lookaround, backreferences, the `/source/flags` form.
        let r = |p: &str| NameMatcher::new(p, PatternMode::BaseRegex, true).unwrap();
        assert!(r(r"^(?!test).*\.py$").is_match(Path::new("src/main.py")));
        assert!(!r(r"^(?!test).*\.py$").is_match(Path::new("src/test_main.py")));
        assert!(r(r"^(\w)\1").is_match(Path::new("x/aab")) && r("(?<=a)b").is_match(Path::new("ab")));
        assert!(r("/MAIN/i").is_match(Path::new("main.rs")) && !r("/MAIN/").is_match(Path::new("main.rs")));
    }

    #[test]
    fn bad_patterns_say_where() {
        let e = NameMatcher::new("src/[abc", PatternMode::PathGlob, false).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPattern);
        assert!(e.message.contains("character 5"), "{}", e.message);
        let e = NameMatcher::new("*.{ts,js", PatternMode::PathGlob, false).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPattern);
        assert!(e.message.contains("character 3"), "{}", e.message);
        let e = NameMatcher::new("(unclosed", PatternMode::BaseRegex, false).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPattern);
        assert!(e.message.contains("regex"), "{}", e.message);
    }

    #[test]
    fn overlong_patterns_are_refused_not_compiled() {
        let long = "a".repeat(MAX_PATTERN_BYTES + 1);
        for mode in [PatternMode::PathGlob, PatternMode::BaseGlob, PatternMode::BaseRegex] {
            let e = NameMatcher::new(&long, mode, false).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidPattern);
            assert!(e.message.len() < 200, "{}", e.message.len());
        }
        assert!(NameMatcher::new(&"**/".repeat(5000), PatternMode::PathGlob, false).is_ok());
    }

    #[test]
    fn exclude_lists_too_big_to_compile_quickly_are_refused() {
        let globs = |n: usize, len: usize| vec!["a".repeat(len); n];
        assert!(check_exclude_size(&globs(MAX_EXCLUDE_GLOBS, 1)).is_ok());
        assert!(check_exclude_size(&globs(4, MAX_EXCLUDE_BYTES / 4)).is_ok());
        let e = check_exclude_size(&globs(MAX_EXCLUDE_GLOBS + 1, 1)).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPattern);
        assert!(e.message.contains("1001 globs; the limit is 1000"), "{}", e.message);
        let e = check_exclude_size(&globs(5, MAX_EXCLUDE_BYTES / 4)).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPattern);
        assert!(e.message.contains("81920 bytes in all; the limit is 65536"), "{}", e.message);
    }

    #[test]
    fn empty_patterns_are_invalid_arguments() {
        for p in ["", "/", "./"] {
            let e = NameMatcher::new(p, PatternMode::PathGlob, false).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{p}");
        }
    }

    #[test]
    fn long_patterns_give_short_messages() {
        let long = "x".repeat(10_000);
        for (p, mode) in [
            (format!("[{long}"), PatternMode::PathGlob),
            ("./".repeat(5_000), PatternMode::PathGlob),
            (format!("({long}"), PatternMode::BaseRegex),
        ] {
            let e = NameMatcher::new(&p, mode, false).unwrap_err();
            assert!(e.message.len() < 1024, "{} bytes: {}", e.message.len(), crate::error::clip(&e.message, 300));
        }
        let e = NameMatcher::new(&format!("({long}"), PatternMode::BaseRegex, false).unwrap_err();
        assert!(e.message.contains("(10001 bytes in all)/i: Unbalanced parenthesis"), "{}", e.message);
        let e = NameMatcher::new(&format!("[{long}"), PatternMode::PathGlob, false).unwrap_err();
        assert!(e.message.contains("the bracket at character 1 of '[xxx"), "{}", e.message);
    }

    #[test]
    fn deep_variant_only_for_top_level_globs() {
        let d = glob("*.py").deep_variant(false).unwrap();
        assert!(d.is_match(Path::new("a/b.py")));
        assert!(glob("src/*.py").deep_variant(false).is_none());
    }
}
