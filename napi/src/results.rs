//! The result types as JS sees them (`RunOutput` and what it holds, and a
//! `FindResult` or `SearchResult` handed back to the formatters), made here
//! from the core's outcomes. The entries themselves cross as columns (see
//! `columns`); `format` turns results back into outcomes.
//!
//! The order of the types is part of the generated `binding.d.ts`:
//! napi-derive writes a field's type under its `js_name` only once it has
//! expanded that type's definition. `SkippedGroup.folders` and
//! `LineMatch.before`/`after` come before their types, so they keep the Rust
//! names (`JsSkippedFolder`, `JsContextLine`) there; the other types come
//! before their users, here and in `lib.rs`.

use crate::columns::{split_entries, EntrySlice, PathSlice, Remaining};
use agent_find_core::{
    ContextLine, Explanation, FindError, FindOutcome, IgnoreLine, SearchItems, SearchOutcome, SkippedGroup,
};
use napi_derive::napi;
use std::collections::BTreeMap;

#[napi(object, js_name = "FindEntry", object_to_js = false)]
pub struct JsFindEntry {
    pub path: String,
    #[napi(js_name = "type", ts_type = "'file' | 'dir' | 'symlink'")]
    pub kind: String,
    pub size: f64,
    pub mtime_ms: f64,
    pub path_bytes: Option<Vec<u32>>,
}

#[napi(object, js_name = "OmittedDir")]
pub struct JsOmittedDir {
    pub dir: String,
    pub count: f64,
}

/// What a walk left out for one reason (the `skipped` option).
#[napi(object, js_name = "SkippedGroup")]
pub struct JsSkippedGroup {
    #[napi(
        ts_type = "'ignored' | 'hidden' | 'excluded' | 'always-skipped' | 'depth' | 'symlink' | 'denied' | 'binary' | 'too-large'"
    )]
    pub reason: String,
    /// Entries left out (a folder counts once: it is not entered).
    pub count: f64,
    /// The first folders left out, in path order (no trailing `/`).
    pub folders: Vec<JsSkippedFolder>,
}

#[napi(object, js_name = "SkippedFolder")]
pub struct JsSkippedFolder {
    pub path: String,
    /// For an ignored folder: the ignore line, `file:line: pattern`.
    pub rule: Option<String>,
}

pub fn skipped_to_js(groups: Option<Vec<SkippedGroup>>) -> Option<Vec<JsSkippedGroup>> {
    groups.map(|groups| {
        groups
            .into_iter()
            .map(|g| JsSkippedGroup {
                reason: g.reason.name().to_string(),
                count: g.count as f64,
                folders: g.folders.into_iter().map(|f| JsSkippedFolder { path: f.path, rule: f.rule }).collect(),
            })
            .collect()
    })
}

/// A `FindResult` as JS passes it back to `formatFindResult`.
#[napi(object, js_name = "FindResult", object_to_js = false)]
pub struct JsFindResult {
    pub path: String,
    pub entries: Vec<JsFindEntry>,
    pub matched: f64,
    pub truncated: bool,
    #[napi(ts_type = "'limit' | 'maximum' | 'bytes'")]
    pub truncated_by: Option<String>,
    pub notice: Option<String>,
    pub hint: Option<String>,
    pub omitted: Option<Vec<JsOmittedDir>>,
    pub skipped: Option<Vec<JsSkippedGroup>>,
}

/// A `FindResult` on its way to JS: the entries come as `first` (and the
/// rest through `RunOutput.remaining`); the JS wrapper builds the objects.
#[napi(object, object_from_js = false)]
pub struct FindOutput {
    pub path: String,
    pub first: EntrySlice,
    pub matched: f64,
    pub truncated: bool,
    pub truncated_by: Option<String>,
    pub notice: Option<String>,
    pub hint: Option<String>,
    pub omitted: Option<Vec<JsOmittedDir>>,
    pub skipped: Option<Vec<JsSkippedGroup>>,
    /// With `gitStatus`: the porcelain letters of each changed entry, by path.
    pub git_status: Option<BTreeMap<String, String>>,
}

/// Splits an outcome into what crosses now and what crosses in slices.
pub fn find_output(o: FindOutcome) -> (FindOutput, Option<Remaining>) {
    let (first, remaining) = split_entries(o.entries);
    let output = FindOutput {
        path: o.path,
        first,
        matched: o.matched as f64,
        truncated: o.truncated_by.is_some(),
        truncated_by: o.truncated_by.map(|t| t.as_str().to_string()),
        notice: o.notice,
        hint: o.hint,
        omitted: (!o.omitted.is_empty())
            .then(|| o.omitted.into_iter().map(|d| JsOmittedDir { dir: d.dir, count: d.count as f64 }).collect()),
        skipped: skipped_to_js(o.skipped),
        git_status: o.git_status,
    };
    (output, remaining)
}

/// A failure as data: the JS wrapper turns it into a `FindFilesError`.
#[napi(object)]
pub struct Failure {
    pub code: String,
    pub message: String,
}

impl From<FindError> for Failure {
    fn from(e: FindError) -> Self {
        Failure { code: e.code.as_str().to_string(), message: e.message }
    }
}

#[napi(object, js_name = "LineMatch")]
pub struct JsLineMatch {
    pub file: String,
    pub line: f64,
    #[napi(js_name = "match")]
    pub text: String,
    /// With `patterns`: the indexes of the patterns that match the line(s).
    pub patterns: Option<Vec<u32>>,
    pub column: Option<f64>,
    pub before: Option<Vec<JsContextLine>>,
    pub after: Option<Vec<JsContextLine>>,
}

#[napi(object, js_name = "ContextLine")]
pub struct JsContextLine {
    pub line: f64,
    pub text: String,
}

/// Context lines for JS: left out when there are none (no context asked).
fn js_context(lines: Vec<ContextLine>) -> Option<Vec<JsContextLine>> {
    (!lines.is_empty())
        .then(|| lines.into_iter().map(|c| JsContextLine { line: c.line as f64, text: c.text }).collect())
}

#[napi(object, js_name = "FileCount")]
pub struct JsFileCount {
    pub file: String,
    pub count: f64,
}

/// A `searchFiles` answer: exactly one of `matches`, `files`, `counts` is set.
#[napi(object, js_name = "SearchResult")]
pub struct JsSearchResult {
    pub path: String,
    pub matches: Option<Vec<JsLineMatch>>,
    pub files: Option<Vec<String>>,
    pub counts: Option<Vec<JsFileCount>>,
    pub match_count: f64,
    /// Files that matched, before `maxResults`.
    pub file_count: Option<f64>,
    pub truncated: bool,
    pub notice: Option<String>,
    /// Where the next page starts, when more follows.
    pub cursor: Option<String>,
    /// With `offset` or `cursor`: the results of the whole answer before the first one shown.
    pub offset: Option<f64>,
    /// `partial` ran out of time (set only then).
    pub incomplete: Option<bool>,
    /// The index changed since the `cursor` was made (set only then).
    pub index_changed: Option<bool>,
    pub skipped: Option<Vec<JsSkippedGroup>>,
    /// `maxTokens` cut the matching lines, spread across the files (set only then).
    pub spread: Option<bool>,
    /// With `gitStatus`: the porcelain letters of each changed file shown, by path.
    pub git_status: Option<BTreeMap<String, String>>,
}

impl From<SearchOutcome> for JsSearchResult {
    fn from(o: SearchOutcome) -> Self {
        let mut r = JsSearchResult {
            path: o.path,
            matches: None,
            files: None,
            counts: None,
            match_count: o.match_count as f64,
            file_count: Some(o.file_count as f64),
            truncated: o.truncated,
            notice: o.notice,
            cursor: o.cursor,
            offset: o.offset.map(|n| n as f64),
            incomplete: o.incomplete.then_some(true),
            index_changed: o.index_changed.then_some(true),
            spread: o.spread.then_some(true),
            skipped: skipped_to_js(o.skipped),
            git_status: o.git_status,
        };
        match o.items {
            SearchItems::Matches(m) => {
                r.matches = Some(
                    m.into_iter()
                        .map(|m| JsLineMatch {
                            file: m.file,
                            line: m.line as f64,
                            text: m.text,
                            patterns: m.patterns,
                            column: m.column.map(|c| c as f64),
                            before: js_context(m.before),
                            after: js_context(m.after),
                        })
                        .collect(),
                )
            }
            SearchItems::Files(f) => r.files = Some(f),
            SearchItems::Counts(c) => {
                r.counts = Some(c.into_iter().map(|(file, n)| JsFileCount { file, count: n as f64 }).collect())
            }
        }
        r
    }
}

/// An ignore-file line that matches the path `explain` was asked about.
#[napi(object, js_name = "IgnoreRule", object_from_js = false)]
pub struct JsIgnoreLine {
    /// The file, relative to the search directory (`.gitignore`, `src/.ignore`,
    /// `../.gitignore`, `.git/info/exclude`), or `core.excludesFile`.
    pub file: String,
    /// From 1.
    pub line: f64,
    /// The line as written.
    pub pattern: String,
    /// It ignores the path; false for a `!` line, which re-includes it.
    pub ignores: bool,
}

impl From<IgnoreLine> for JsIgnoreLine {
    fn from(l: IgnoreLine) -> Self {
        JsIgnoreLine { file: l.file, line: l.line as f64, pattern: l.text, ignores: l.ignores }
    }
}

/// Why a path is or is not in the results of a `find` (see `explain`).
#[napi(object, js_name = "Explanation", object_from_js = false)]
pub struct JsExplanation {
    pub path: String,
    pub found: bool,
    #[napi(
        ts_type = "'found' | 'missing' | 'outside' | 'search-directory' | 'hidden' | 'ignored' | 'git-dir' | 'always-skipped' | 'excluded' | 'symlink' | 'depth' | 'special' | 'type' | 'pattern' | 'metadata'"
    )]
    pub reason: String,
    pub at: Option<String>,
    pub rule: Option<JsIgnoreLine>,
    pub overrides: Option<JsIgnoreLine>,
    pub exclude: Option<String>,
    pub text: String,
}

impl From<Explanation> for JsExplanation {
    fn from(e: Explanation) -> Self {
        JsExplanation {
            path: e.path,
            found: e.found,
            reason: e.reason.name().to_string(),
            at: e.at,
            rule: e.rule.map(Into::into),
            overrides: e.overrides.map(Into::into),
            exclude: e.exclude,
            text: e.text,
        }
    }
}

/// What `Plan.run` resolves to: one of `result`, `paths`, `text`, `search`,
/// `explanation`, `error`, and with a large `result` or `paths`, `remaining`
/// for the rest.
#[napi(object, object_from_js = false)]
pub struct RunOutput {
    pub result: Option<FindOutput>,
    pub paths: Option<PathSlice>,
    pub search: Option<JsSearchResult>,
    pub explanation: Option<JsExplanation>,
    pub error: Option<Failure>,
    pub remaining: Option<Remaining>,
}

impl RunOutput {
    /// Nothing set yet: each answer sets its own fields.
    pub fn empty() -> Self {
        RunOutput { result: None, paths: None, search: None, explanation: None, error: None, remaining: None }
    }

    /// A call that failed: the error as data, which the JS wrapper throws.
    pub fn failed(e: FindError) -> Self {
        RunOutput { error: Some(e.into()), ..RunOutput::empty() }
    }
}
