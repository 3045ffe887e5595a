//! When a content search finds nothing: whether something near the pattern
//! is in the files it searched, said in a sentence the model can act on.
//! Three near readings are looked for, in one more search of the same files
//! with one regex that matches any of them:
//! - the pattern's literal text, when it holds regex syntax (`foo(bar)`,
//!   `$x`, `a+b` written for the text itself);
//! - the pattern with case ignored, when the search kept case;
//! - the pattern itself in binary files, which a content search skips.
//!
//! That search runs to the end rather than stopping at the first match, so
//! the sentence depends only on the files (not on which thread was first):
//! the files it finds are then read in path order, a few at most, to tell
//! which reading matched where. It costs about one more search, paid only
//! when there was no match; a deadline that passes meanwhile leaves the
//! notice out, and an abort by the caller still rejects.

use super::content::{binary_searcher, new_searcher, scan_contents, Scan};
use super::matcher::{ContentMatcher, Engine};
use super::select::gather;
use super::{OutputMode, SearchConfig, Target};
use crate::cancel::Cancel;
use crate::error::{clip, ErrorCode, Result};
use crate::source::Root;
use grep_searcher::Searcher;
use std::path::Path;

/// How many of the files found are read again to tell which reading
/// matched in them.
const TOLD_APART: usize = 20;

/// One near reading of the pattern.
struct Reading {
    matcher: ContentMatcher,
    /// Searched with binary files as text.
    binary: bool,
    found: Option<String>,
}

/// The sentence(s) for a content search that found nothing, if anything
/// near was found.
pub(super) fn notice(config: &SearchConfig, root: &Root, cancel: &Cancel) -> Result<Option<String>> {
    let Target::Content { regex, file_glob, .. } = &config.target else { return Ok(None) };
    let Some(pattern) = regex.pattern() else { return Ok(None) };
    let pcre2 = matches!(regex.engine, Engine::Pcre2(_));
    let literal = regex_syntax::escape(pattern);
    // A `literal: true` pattern is already its text.
    let literal_differs = literal != pattern && !regex.modes.literal;
    // PCRE2 patterns keep their groups' numbers only in first place: a copy
    // under `(?i:...)` would renumber what its backreferences name.
    let case_differs = !regex.ignores_case() && !pcre2 && pattern.chars().any(|c| c.is_lowercase() != c.is_uppercase());
    let mut branches = vec![format!("(?:{pattern})")];
    if literal_differs {
        branches.push(literal.clone());
    }
    if case_differs {
        branches.push(format!("(?i:{pattern})"));
    }
    let Ok(any) = ContentMatcher::new(&branches.join("|"), regex.ignores_case()) else { return Ok(None) };
    let probe = SearchConfig {
        target: Target::Content { regex: any.clone(), file_glob: file_glob.clone(), mode: OutputMode::Files },
        search_binary: true,
        ..config.clone()
    };
    let walked = match gather(&probe, root, &config.rules.uncounted(), cancel, &|_| true, &|_| {}, None) {
        Ok(walked) => walked,
        Err(e) if e.code == ErrorCode::Aborted && !cancel.is_aborted_by_caller() => return Ok(None),
        Err(e) => return Err(e),
    };
    if any.failure().is_some() || walked.found.is_empty() {
        return Ok(None);
    }
    let mut files: Vec<(String, std::path::PathBuf)> =
        walked.found.into_iter().map(|hit| (hit.path, hit.relative)).collect();
    files.sort_unstable();

    let reading = |pattern: &str, ignore_case: bool, binary: bool| {
        ContentMatcher::new(pattern, ignore_case).ok().map(|matcher| Reading { matcher, binary, found: None })
    };
    let mut literal_reading = literal_differs.then(|| reading(&literal, regex.ignores_case(), false)).flatten();
    let mut case_reading = case_differs.then(|| reading(pattern, true, false)).flatten();
    let mut binary_reading = reading(pattern, regex.ignores_case(), true);
    let mut text_searcher = new_searcher(Scan::Any);
    let mut any_searcher = binary_searcher();
    for (path, relative) in files.iter().take(TOLD_APART) {
        for reading in [&mut literal_reading, &mut case_reading, &mut binary_reading].into_iter().flatten() {
            if reading.found.is_some() {
                continue;
            }
            let searcher: &mut Searcher = if reading.binary { &mut any_searcher } else { &mut text_searcher };
            let Ok(Some(contents)) = root.read_one(relative, cancel) else { continue };
            let hit = scan_contents(searcher, &reading.matcher, contents, Scan::Any, Path::new(path), cancel);
            if hit.is_some_and(|h| h.count > 0) {
                reading.found = Some(path.clone());
            }
        }
    }
    cancel.check().or_else(|e| if cancel.is_aborted_by_caller() { Err(e) } else { Ok(()) })?;

    fn shown(path: &str) -> std::borrow::Cow<'_, str> {
        clip(path, 200)
    }
    let mut said = Vec::new();
    if let Some(path) = literal_reading.and_then(|r| r.found) {
        said.push(format!(
            "The pattern is a regex and as one matched nothing, but its literal text is in `{}`: to search for the \
             text, escape the regex characters: `{}`.",
            shown(&path),
            clip(&literal, 300)
        ));
    }
    if let Some(path) = case_reading.and_then(|r| r.found) {
        said.push(format!("It matches with case ignored, in `{}`: set `ignoreCase: true`.", shown(&path)));
    }
    if let Some(path) = binary_reading.and_then(|r| r.found) {
        said.push(format!(
            "Binary files hold matches, such as `{}`: content search skips files with a NUL byte.",
            shown(&path)
        ));
    }
    Ok((!said.is_empty()).then(|| said.join(" ")))
}
