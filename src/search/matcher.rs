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

use crate::content_sketch::{Prefilter, Sketch};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::limits::MAX_CONTENT_REGEX_BYTES;
use grep_regex::RegexMatcherBuilder;
use regex_syntax::ast::ErrorKind;
use std::sync::{Arc, OnceLock};

/// The largest JIT stack PCRE2 may grow to (ripgrep's value).
const JIT_STACK_BYTES: usize = 10 << 20;

/// The engine a content search runs.
#[derive(Debug, Clone)]
pub enum Engine {
    /// ripgrep's default engine (Rust `regex` syntax).
    Rust(grep_regex::RegexMatcher),
    /// PCRE2, for lookaround and backreferences.
    Pcre2(Box<grep_pcre2::RegexMatcher>),
}

/// A compiled content regex, and the first failure of a search with it
/// (shared by clones, so every walker thread reports to one place): its
/// engine could not finish a file, a file could not be opened or read, or
/// the search was cancelled inside a file.
#[derive(Debug, Clone)]
pub struct ContentMatcher {
    pub engine: Engine,
    failure: Arc<OnceLock<FindError>>,
    /// The trigrams every match holds, for a live index's sketches.
    prefilter: Option<Arc<Prefilter>>,
    /// The pattern as given, and whether case is ignored.
    pattern: Arc<str>,
    ignore_case: bool,
}

impl ContentMatcher {
    pub fn new(pattern: &str, ignore_case: bool) -> Result<ContentMatcher> {
        let engine = match RegexMatcherBuilder::new()
            .case_insensitive(ignore_case)
            .line_terminator(Some(b'\n'))
            .size_limit(MAX_CONTENT_REGEX_BYTES)
            .build(pattern)
        {
            Ok(m) => Engine::Rust(m),
            Err(_) if needs_fallback(pattern) => Engine::Pcre2(Box::new(pcre2(pattern, ignore_case)?)),
            Err(e) if e.to_string().contains("exceeds size limit") => {
                return Err(FindError::invalid_pattern(format!(
                    "regex too big: it compiles to more than {} MiB, the limit (counted repetition multiplies \
                     its size: `\\w{{1000}}` is 1000 copies of a Unicode class): use smaller counts, `+` or `*`, \
                     or a narrower class such as `[a-z]` instead of `\\w` or `.`",
                    MAX_CONTENT_REGEX_BYTES >> 20
                )))
            }
            Err(e) => {
                return Err(FindError::invalid_pattern(format!(
                    "invalid regex (Rust `regex` syntax, as ripgrep's; searched line by line): {}",
                    crate::error::regex_error(&e.to_string(), 600)
                )))
            }
        };
        // The fallback's syntax (lookaround, backreferences) is not analysed.
        let prefilter = match engine {
            Engine::Rust(_) => Prefilter::new(pattern, ignore_case).map(Arc::new),
            Engine::Pcre2(_) => None,
        };
        Ok(ContentMatcher {
            engine,
            failure: Arc::new(OnceLock::new()),
            prefilter,
            pattern: pattern.into(),
            ignore_case,
        })
    }

    /// The pattern as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether case is ignored.
    pub fn ignores_case(&self) -> bool {
        self.ignore_case
    }

    /// Whether a file with this sketch of its contents may hold a match.
    pub fn may_match(&self, sketch: &Sketch) -> bool {
        self.prefilter.as_ref().is_none_or(|p| p.may_match(sketch))
    }

    /// What `may_match` asks of a sketch, when it asks anything.
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

fn pcre2(pattern: &str, ignore_case: bool) -> Result<grep_pcre2::RegexMatcher> {
    let mut builder = grep_pcre2::RegexMatcherBuilder::new();
    builder.caseless(ignore_case).multi_line(true).utf(true).ucp(true);
    if cfg!(target_pointer_width = "64") {
        builder.jit_if_available(true).max_jit_stack_size(Some(JIT_STACK_BYTES));
    }
    builder.build(pattern).map_err(|e| {
        FindError::invalid_pattern(format!(
            "invalid regex (it uses lookaround or a backreference, so it is read as PCRE2 syntax, as `rg -P` \
             reads it; searched line by line): {}",
            clip(&e.to_string(), 600)
        ))
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
