//! The regex of a content search (`searchFiles`, target 'content').
//!
//! The pattern is ripgrep's syntax: the Rust `regex` crate through
//! `grep-regex`, whose matching time is linear. That engine has no
//! lookaround and no backreferences, so a pattern that needs them
//! (`foo(?=bar)`, `(?<!x)y`, `(\w)\1`) goes to a fallback engine instead, as
//! `rg -P` would run it, rather than being refused. The choice is automatic:
//! the normal matcher is built first, and only when its parser says the
//! pattern uses lookaround or a backreference (regex-syntax's
//! `UnsupportedLookAround` / `UnsupportedBackreference`) is the fallback
//! built. Every other pattern, valid or not, is the normal matcher's.
//!
//! The fallback is PCRE2 through `grep-pcre2`, ripgrep's own `-P` matcher,
//! set up as ripgrep sets it (UTF-8 with Unicode classes, multi-line
//! anchors, JIT when available with a 10 MiB JIT stack, `caseless` for
//! `ignoreCase`). Chosen over `fancy-regex` behind a hand-written
//! `grep_matcher::Matcher` because:
//! - it is exactly `rg -P`: same syntax, same answers (tests compare with
//!   `rg -P` when it is installed), and its `Matcher` impl is ripgrep's;
//! - it matches bytes, with `PCRE2_MATCH_INVALID_UTF`, so lines that are not
//!   UTF-8 need nothing special (fancy-regex matches `&str` only: every
//!   line would need a lossy copy and an offset map back to the bytes);
//! - the JIT makes the backtracking fast, and PCRE2's match limit turns a
//!   catastrophic pattern into an error instead of a hang (reported here as
//!   `invalid-pattern`, never a silent skip of the file).
//!
//! The cost is build time and a C compiler: `pcre2-sys` compiles the
//! bundled PCRE2 sources with `cc` (no system library is needed; it builds
//! offline from the crates.io package). On the 2-core build machine its
//! build script took 36 s of a clean release build (fancy-regex's own crate
//! took 24 s in the same kind of build), once; incremental builds do not
//! repeat it, and the addon grew by about 0.75 MB.

use crate::content_sketch::{Prefilter, Probe, RuledOut};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::limits::MAX_CONTENT_REGEX_BYTES;
use grep_regex::RegexMatcherBuilder;
use regex_syntax::ast::ErrorKind;
use std::sync::{Arc, OnceLock};

/// The largest JIT stack PCRE2 may grow to (ripgrep's value).
const JIT_STACK_BYTES: usize = 10 << 20;

/// How the pattern(s) of a content search are read: `ignoreCase`,
/// `literal` (rg -F), `multiline` (rg -U) and `maxPerFile` (rg -m).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modes {
    pub ignore_case: bool,
    /// Every pattern is a fixed string.
    pub literal: bool,
    /// A match may span lines: the searcher reads each file whole.
    pub multiline: bool,
    /// At most this many matching lines per file (reported runs of matches,
    /// in multiline mode; see `content::Collect::go_on`).
    pub max_per_file: Option<u64>,
}

/// The engine a content search runs.
#[derive(Debug, Clone)]
pub enum Engine {
    /// ripgrep's default engine (Rust `regex` syntax).
    Rust(grep_regex::RegexMatcher),
    /// PCRE2, for lookaround and backreferences.
    Pcre2(Box<grep_pcre2::RegexMatcher>),
}

impl Engine {
    /// Whether the engine finds a match in `bytes`.
    pub fn is_match(&self, bytes: &[u8]) -> bool {
        use grep_matcher::Matcher;
        match self {
            Engine::Rust(m) => m.is_match(bytes).unwrap_or(false),
            Engine::Pcre2(m) => m.is_match(bytes).unwrap_or(false),
        }
    }

    /// Whether `searcher` reports runs of matches that may span lines with
    /// this engine: only in multiline mode, and only when the pattern can
    /// match a line end. Otherwise it searches line by line even in
    /// multiline mode (as rg -U does with `fn`), and each matching line is
    /// one report.
    pub fn spans_lines(&self, searcher: &grep_searcher::Searcher) -> bool {
        match self {
            Engine::Rust(m) => searcher.multi_line_with_matcher(m),
            Engine::Pcre2(m) => searcher.multi_line_with_matcher(m.as_ref()),
        }
    }

    /// Calls `each` with the start of every match that starts inside
    /// `range` of `buffer`, in order, until it returns false. As ripgrep's
    /// printers find the matches of a reported run: from the run's start in
    /// the searcher's buffer (so what precedes it is seen), with at most
    /// `LOOK_AHEAD_BYTES` after the run's end (for a look-ahead).
    pub fn match_starts(&self, buffer: &[u8], range: std::ops::Range<usize>, mut each: impl FnMut(usize) -> bool) {
        use grep_matcher::Matcher;
        let end = range.end.saturating_add(LOOK_AHEAD_BYTES).min(buffer.len());
        let bytes = &buffer[..end];
        let mut found = |m: grep_matcher::Match| m.start() < range.end && each(m.start());
        // An engine error here leaves what was found: the search of the
        // same bytes has just succeeded.
        let _ = match self {
            Engine::Rust(m) => m.find_iter_at(bytes, range.start, &mut found).is_ok(),
            Engine::Pcre2(m) => m.find_iter_at(bytes, range.start, &mut found).is_ok(),
        };
    }
}

/// Bytes past a reported run searched for a look-ahead when its matches are
/// found again (grep-printer's `MAX_LOOK_AHEAD`).
const LOOK_AHEAD_BYTES: usize = 128;

/// A compiled content regex, and the first failure of a search with it
/// (shared by clones, so every walker thread reports to one place): its
/// engine could not finish a file, a file could not be opened or read, or
/// the search was cancelled inside a file.
#[derive(Debug, Clone)]
pub struct ContentMatcher {
    /// Every pattern as one alternation (as ripgrep joins `-e A -e B`).
    pub engine: Engine,
    failure: Arc<OnceLock<FindError>>,
    /// The trigrams every match holds, for a live index's sketches.
    prefilter: Option<Arc<Prefilter>>,
    /// With `patterns`: each pattern's own engine, to tell which of them
    /// match a reported line (`None`: a single `pattern`, not reported).
    each: Option<Arc<[Engine]>>,
    pub modes: Modes,
    /// The one pattern as a regex (escaped when `literal`), for the
    /// near readings of an empty search; `None` with several patterns or
    /// `multiline`, which those line-by-line readings do not cover.
    pattern: Option<Arc<str>>,
    /// The bytes a line matches exactly when it holds them (see
    /// `fixed_line`).
    fixed_line: Option<Arc<memchr::memmem::Finder<'static>>>,
}

impl ContentMatcher {
    /// One pattern, read as a regex, line by line.
    pub fn new(pattern: &str, ignore_case: bool) -> Result<ContentMatcher> {
        ContentMatcher::build(&[pattern], Modes { ignore_case, ..Modes::default() }, false)
    }

    /// Any of `patterns` (at least one), read as `modes` says; with
    /// `report_each`, each reported line says which of them match it.
    ///
    /// When one of them needs the fallback engine (lookaround or a
    /// backreference), all of them run on it as one alternation, as `rg -P
    /// -e A -e B` would.
    pub fn build(patterns: &[&str], modes: Modes, report_each: bool) -> Result<ContentMatcher> {
        let named = |i: usize, e: FindError| match patterns.len() {
            1 => e,
            _ => FindError::new(e.code, format!("in pattern {i} (`{}`): {}", clip(patterns[i], 100), e.message)),
        };
        let singles: Vec<Engine> = patterns
            .iter()
            .enumerate()
            .map(|(i, p)| engine(&[p], modes).map_err(|e| named(i, e)))
            .collect::<Result<_>>()?;
        let engine = match singles.len() {
            1 => singles[0].clone(),
            _ => engine(patterns, modes)?,
        };
        // The fallback's syntax (lookaround, backreferences) is not analysed.
        let prefilter = match engine {
            Engine::Rust(_) => Prefilter::any_of(patterns, modes.ignore_case, modes.literal).map(Arc::new),
            Engine::Pcre2(_) => None,
        };
        let each = report_each.then(|| singles.into());
        let pattern = match (patterns, modes.multiline) {
            ([one], false) if modes.literal => Some(regex_syntax::escape(one).into()),
            ([one], false) => Some((*one).into()),
            _ => None,
        };
        let fixed_line = match (patterns, &engine, &each) {
            ([one], Engine::Rust(_), None) => {
                fixed_line(one, modes).map(|b| Arc::new(memchr::memmem::Finder::new(&b).into_owned()))
            }
            _ => None,
        };
        Ok(ContentMatcher { engine, failure: Arc::new(OnceLock::new()), prefilter, each, modes, pattern, fixed_line })
    }

    /// A substring search that finds exactly the lines this matcher
    /// matches: `Some` for one case-sensitive pattern that is a plain string
    /// (`literal`, or a regex of literal characters only, like `function`),
    /// searched line by line with no per-file limit. Counting a file's
    /// matching lines then needs no regex engine (see
    /// `content::scan_input`).
    pub fn fixed_line(&self) -> Option<&memchr::memmem::Finder<'static>> {
        self.fixed_line.as_deref()
    }

    /// The indexes of the patterns that match `lines` (a reported line, or
    /// the lines of a multiline match); `None` for a single `pattern`.
    pub fn which(&self, lines: &[u8]) -> Option<Vec<u32>> {
        let each = self.each.as_ref()?;
        Some((0..each.len()).filter(|&i| each[i].is_match(lines)).map(|i| i as u32).collect())
    }

    /// The one pattern as a regex (see the field).
    pub fn pattern(&self) -> Option<&str> {
        self.pattern.as_deref()
    }

    /// Whether case is ignored.
    pub fn ignores_case(&self) -> bool {
        self.modes.ignore_case
    }

    /// `Some` when a file with this sketch of its contents holds no match
    /// (see `Prefilter::rules_out`).
    pub fn rules_out<P: Probe + ?Sized>(&self, sketch: &P) -> Option<RuledOut> {
        self.prefilter.as_ref()?.rules_out(sketch)
    }

    /// What `rules_out` asks of a sketch, when it asks anything.
    pub fn prefilter(&self) -> Option<&Prefilter> {
        self.prefilter.as_deref()
    }

    /// Whether the fallback engine runs this pattern.
    pub fn is_fallback(&self) -> bool {
        matches!(self.engine, Engine::Pcre2(_))
    }

    /// Records why the engine could not finish a file (the first failure wins).
    pub fn fail(&self, file: &str, why: &str) {
        self.fail_with(FindError::invalid_pattern(format!(
            "the regex could not be matched to the end of `{}`: {}; simplify the pattern \
             (nested repetition with lookaround or backreferences backtracks too much)",
            clip(file, 200),
            clip(why, 300)
        )));
    }

    /// Records that a file could not be opened or read (`doing`: "cannot
    /// open", "cannot read") for another reason than its absence or a
    /// refusal (the first failure wins).
    pub fn fail_io(&self, file: &str, doing: &str, e: &std::io::Error) {
        self.fail_with(FindError::new(
            ErrorCode::FsError,
            format!("{doing} `{}` to search it: {e}{}", clip(file, 300), crate::error::io_advice(e)),
        ));
    }

    /// Records why the search must fail (the first failure wins).
    pub fn fail_with(&self, err: FindError) {
        let _ = self.failure.set(err);
    }

    /// The error a search ends in when it failed on some file: its answer
    /// would otherwise silently miss that file.
    pub fn failure(&self) -> Option<FindError> {
        self.failure.get().cloned()
    }
}

/// The bytes `pattern` matches and nothing else, when a line matches it
/// exactly when it holds them (see `ContentMatcher::fixed_line`): never with
/// `ignoreCase`, `multiline` or `maxPerFile`, nor for an empty pattern or
/// one that spans a line end.
fn fixed_line(pattern: &str, modes: Modes) -> Option<Vec<u8>> {
    if modes.ignore_case || modes.multiline || modes.max_per_file.is_some() {
        return None;
    }
    let bytes = match modes.literal {
        true => pattern.as_bytes().to_vec(),
        // Parsed as the engine parses it (Unicode on, case kept): only a
        // pattern of literal characters is one literal here.
        false => match regex_syntax::Parser::new().parse(pattern).ok()?.into_kind() {
            regex_syntax::hir::HirKind::Literal(regex_syntax::hir::Literal(bytes)) => bytes.into_vec(),
            _ => return None,
        },
    };
    (!bytes.is_empty() && !bytes.contains(&b'\n')).then_some(bytes)
}

/// The engine of `patterns` as one alternation: the normal one, or the
/// fallback when the normal parser refuses one of them only for
/// lookaround or a backreference.
fn engine<P: AsRef<str>>(patterns: &[P], modes: Modes) -> Result<Engine> {
    let mut builder = RegexMatcherBuilder::new();
    builder.case_insensitive(modes.ignore_case).fixed_strings(modes.literal).size_limit(MAX_CONTENT_REGEX_BYTES);
    if modes.multiline {
        // As rg -U: no line terminator, so `\n` may match, and `^`/`$`
        // anchor at line ends; `.` stops at them unless `(?s)`.
        builder.multi_line(true);
    } else {
        builder.line_terminator(Some(b'\n'));
    }
    match builder.build_many(patterns) {
        Ok(m) => Ok(Engine::Rust(m)),
        Err(_) if !modes.literal && patterns.iter().any(|p| needs_fallback(p.as_ref())) => {
            Ok(Engine::Pcre2(Box::new(pcre2(patterns, modes)?)))
        }
        Err(e) if e.to_string().contains("exceeds size limit") => Err(FindError::invalid_pattern(format!(
            "regex too big: it compiles to more than {} MiB, the limit (counted repetition multiplies \
             its size: `\\w{{1000}}` is 1000 copies of a Unicode class): use smaller counts, `+` or `*`, \
             or a narrower class such as `[a-z]` instead of `\\w` or `.`",
            MAX_CONTENT_REGEX_BYTES >> 20
        ))),
        Err(e) => {
            let text = e.to_string();
            // Line by line, a line end cannot be matched: say how it can.
            // A pattern that does not parse (`foo(`) was most likely meant
            // as text: say how to search for it as written.
            let hint = match !modes.multiline && text.contains(r#""\n" is not allowed"#) {
                true => "; to match across lines, set `multiline: true`".to_string(),
                false => literal_hint(patterns).unwrap_or_default(),
            };
            Err(FindError::invalid_pattern(format!(
                "invalid regex (Rust `regex` syntax, as ripgrep's; {}): {}{hint}",
                if modes.multiline { "a match may span lines" } else { "searched line by line" },
                crate::error::regex_error(&text, 600)
            )))
        }
    }
}

/// Whether the normal parser refuses `pattern` only for what the fallback
/// adds: lookaround or a backreference (the first error it meets).
/// PCRE2's named and relative backreferences (`\k<n>`, `\g1`) are unknown
/// escapes to the normal parser.
fn needs_fallback(pattern: &str) -> bool {
    match regex_syntax::ast::parse::Parser::new().parse(pattern) {
        Err(e) => match e.kind() {
            ErrorKind::UnsupportedLookAround | ErrorKind::UnsupportedBackreference => true,
            ErrorKind::EscapeUnrecognized => {
                let at = &pattern[e.span().start.offset..];
                ["\\k<", "\\k{", "\\k'", "\\g"].iter().any(|p| at.starts_with(p))
            }
            _ => false,
        },
        Ok(_) => false,
    }
}

fn pcre2<P: AsRef<str>>(patterns: &[P], modes: Modes) -> Result<grep_pcre2::RegexMatcher> {
    let mut builder = grep_pcre2::RegexMatcherBuilder::new();
    builder.caseless(modes.ignore_case).multi_line(true).utf(true).ucp(true);
    if cfg!(target_pointer_width = "64") {
        builder.jit_if_available(true).max_jit_stack_size(Some(JIT_STACK_BYTES));
    }
    builder.build_many(patterns).map_err(|e| {
        FindError::invalid_pattern(format!(
            "invalid regex (it uses lookaround or a backreference, so it is read as PCRE2 syntax, as `rg -P` \
             reads it; {}): {}; {LITERAL_HINT} (or escape its special characters with `\\`)",
            if modes.multiline { "a match may span lines" } else { "searched line by line" },
            clip(&e.to_string(), 600)
        ))
    })
}

/// What a model reads when its pattern does not parse as a regex: the most
/// common case is text with a regex character in it (`foo(`), so it is told
/// the option that searches for the text as written.
const LITERAL_HINT: &str = "to search for the text as written, set `literal: true`";

/// For the first of `patterns` the regex parser refuses (an unbalanced `(`,
/// `[` or `{`, a `*` with nothing before it, a trailing `\`): the hint that
/// names `literal: true`, and the character to escape otherwise.
fn literal_hint<P: AsRef<str>>(patterns: &[P]) -> Option<String> {
    patterns.iter().find_map(|p| {
        let p = p.as_ref();
        let e = regex_syntax::ast::parse::Parser::new().parse(p).err()?;
        let escape = match p.get(e.span().start.offset..).and_then(|rest| rest.chars().next()) {
            Some(c) if r"()[]{}*+?|\.^$".contains(c) => format!("escape the `{c}` as `\\{c}`"),
            _ => "escape its special characters with `\\`".to_string(),
        };
        Some(format!("; {LITERAL_HINT} (or {escape})"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn regexes_too_big_to_compile_say_the_limit_and_what_to_do() {
        for p in [r"\w{1000}{1000}", r"\w{100}{100}"] {
            let e = ContentMatcher::new(p, true).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidPattern);
            assert!(e.message.starts_with("regex too big: it compiles to more than 10 MiB"), "{}", e.message);
            assert!(e.message.contains("use smaller counts"), "{}", e.message);
        }
        assert!(ContentMatcher::new(r"\w{100}", true).is_ok());
    }

    #[test]
    fn a_pattern_that_does_not_parse_names_literal_and_what_to_escape() {
        for (p, escape) in [
            ("foo(", "escape the `(` as `\\(`"),
            ("foo)", "escape the `)` as `\\)`"),
            ("a[b", "escape the `[` as `\\[`"),
            ("x{2", "escape the `{` as `\\{`"),
            ("*foo", "escape the `*` as `\\*`"),
            ("foo(?=bar", "escape its special characters with `\\`"),
        ] {
            let e = ContentMatcher::new(p, true).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidPattern);
            assert!(e.message.contains("to search for the text as written, set `literal: true`"), "{p}: {}", e.message);
            assert!(e.message.contains(escape), "{p}: {}", e.message);
        }
        // Not a syntax error: the hint for it, and no word of `literal`.
        let e = ContentMatcher::new(r"\w{1000}{1000}", true).unwrap_err();
        assert!(!e.message.contains("literal"), "{}", e.message);
    }

    #[test]
    fn only_lookaround_and_backreferences_take_the_fallback() {
        for p in ["foo(?=bar)", "(?<!x)y", r"(\w)\1", "(?<n>a)\\k<n>", "a(?!b)"] {
            assert!(ContentMatcher::new(p, false).unwrap().is_fallback(), "{p}");
        }
        for p in ["fn main", r"\bfoo\b", "(?i)TODO", r"\p{Greek}+"] {
            assert!(!ContentMatcher::new(p, false).unwrap().is_fallback(), "{p}");
        }
        // Errors that are not about lookaround stay the normal parser's.
        let e = ContentMatcher::new("(open", false).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPattern);
        assert!(e.message.contains("Rust `regex` syntax"), "{}", e.message);
        // A fallback pattern PCRE2 refuses says so.
        let e = ContentMatcher::new("(?<=a+)b(", false).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPattern);
        assert!(e.message.contains("PCRE2"), "{}", e.message);
    }
}
