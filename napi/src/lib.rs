//! The napi binding: converts JS values into the Rust types of the core
//! crate (`agent-find-core`, in the repository's `src/`) and results back,
//! and runs each search on tokio's blocking pool so that the JS event loop
//! never waits for a walk. No search logic lives here.

mod js_reader;
mod slots;

use agent_find_core::{
    clip, default_notice, explain, lock, parse_find_options, parse_search_options, render_find, render_search,
    resolve_logical, run_find, run_search, Cancel, CancelFlag, ContentCaps, ContextLine, EntryKind, ErrorCode,
    Explanation, FindConfig, FindError, FindOutcome, Found, IgnoreLine, Index, IndexRef, LineMatch, Meta, OmittedDir,
    Purpose, SearchConfig, SearchItems, SearchOutcome, Shared, SkipReason, SkippedFolder, SkippedGroup, Source,
    Truncation, Value,
};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::collections::BTreeMap;
use std::sync::Arc;

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

fn skipped_to_js(groups: Option<Vec<SkippedGroup>>) -> Option<Vec<JsSkippedGroup>> {
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

/// A result's `skipped` as JS hands it back (an unknown reason is passed over).
fn skipped_from_js(groups: Option<Vec<JsSkippedGroup>>) -> Option<Vec<SkippedGroup>> {
    groups.map(|groups| {
        groups
            .into_iter()
            .filter_map(|g| {
                Some(SkippedGroup {
                    reason: SkipReason::parse(&g.reason)?,
                    count: g.count.max(0.0) as u64,
                    folders: g.folders.into_iter().map(|f| SkippedFolder { path: f.path, rule: f.rule }).collect(),
                })
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

/// Entries in columns: `paths` joined by NUL (which no file name holds) and
/// typed arrays, because building one JS object per entry through napi is
/// slow, while JS builds them from columns in a fraction of the time.
#[napi(object, object_from_js = false)]
pub struct EntrySlice {
    pub count: u32,
    pub paths: String,
    /// 0 file, 1 dir, 2 symlink.
    pub kinds: Uint8Array,
    pub sizes: Float64Array,
    pub mtimes: Float64Array,
    /// Entries whose names are not valid UTF-8: their index in this slice and bytes.
    pub raw: Vec<RawName>,
}

#[napi(object, object_from_js = false)]
pub struct RawName {
    pub index: u32,
    pub bytes: Vec<u32>,
}

/// `findFiles` paths, joined by NUL.
#[napi(object, object_from_js = false)]
pub struct PathSlice {
    pub count: u32,
    pub paths: String,
}

fn entry_slice(found: impl Iterator<Item = Found>) -> EntrySlice {
    let (mut paths, mut kinds, mut sizes, mut mtimes, mut raw) =
        (String::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for f in found {
        if let Some(bytes) = &f.raw {
            raw.push(RawName { index: kinds.len() as u32, bytes: bytes.iter().map(|&b| u32::from(b)).collect() });
        }
        if !kinds.is_empty() {
            paths.push('\0');
        }
        paths.push_str(&f.path);
        kinds.push(kind_code(f.kind));
        sizes.push(f.size() as f64);
        mtimes.push(f.mtime_ms());
    }
    EntrySlice {
        count: kinds.len() as u32,
        paths,
        kinds: Uint8Array::new(kinds),
        sizes: Float64Array::new(sizes),
        mtimes: Float64Array::new(mtimes),
        raw,
    }
}

fn path_slice(paths: impl Iterator<Item = String>) -> PathSlice {
    let mut joined = String::new();
    let mut count = 0;
    for p in paths {
        if count > 0 {
            joined.push('\0');
        }
        joined.push_str(&p);
        count += 1;
    }
    PathSlice { count, paths: joined }
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

/// A failure as data: the JS wrapper turns it into a `FindFilesError`.
#[napi(object)]
pub struct Failure {
    pub code: String,
    pub message: String,
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

fn rust_context(lines: Option<Vec<JsContextLine>>) -> Vec<ContextLine> {
    lines.unwrap_or_default().into_iter().map(|c| ContextLine { line: c.line.max(0.0) as u64, text: c.text }).collect()
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
    /// The model text of a `find` (purpose `"findText"`, for the CLI).
    pub text: Option<String>,
    pub search: Option<JsSearchResult>,
    pub explanation: Option<JsExplanation>,
    pub error: Option<Failure>,
    pub remaining: Option<Remaining>,
}

impl RunOutput {
    fn empty() -> Self {
        RunOutput {
            result: None,
            paths: None,
            text: None,
            search: None,
            explanation: None,
            error: None,
            remaining: None,
        }
    }
}

/// Entries (or paths) per slice handed to JS. Turning Rust values into JS
/// values happens on the event loop, so a large answer crosses in slices,
/// which `js/columns.js` takes within a time budget per turn of the loop.
/// A slice of 1,000 entries takes well under a millisecond to cross and
/// decode.
const ENTRIES_PER_SLICE: usize = 1_000;
const PATHS_PER_SLICE: usize = 2_000;
/// The first slice crosses with the answer, when the call resolves: many
/// calls can resolve in one turn of the loop (napi hands over every
/// finished call at once), so it is small, and the rest comes through the
/// budgeted queue. Small answers still cross whole, in one go.
const FIRST_ENTRIES: usize = 500;
const FIRST_PATHS: usize = 1_000;

enum Pending {
    Entries(std::vec::IntoIter<Found>),
    Paths(std::vec::IntoIter<String>),
}

/// The part of a large answer not yet handed over; JS takes it slice by slice.
#[napi]
pub struct Remaining {
    pending: std::sync::Mutex<Pending>,
}

#[napi]
impl Remaining {
    /// The next slice of `FindResult.entries` (`count` 0 when done).
    #[napi(catch_unwind)]
    pub fn take_entries(&self) -> EntrySlice {
        match &mut *lock(&self.pending) {
            Pending::Entries(rest) => entry_slice(rest.by_ref().take(ENTRIES_PER_SLICE)),
            Pending::Paths(_) => entry_slice(std::iter::empty()),
        }
    }

    /// The next slice of `findFiles` paths (`count` 0 when done).
    #[napi(catch_unwind)]
    pub fn take_paths(&self) -> PathSlice {
        match &mut *lock(&self.pending) {
            Pending::Paths(rest) => path_slice(rest.by_ref().take(PATHS_PER_SLICE)),
            Pending::Entries(_) => path_slice(std::iter::empty()),
        }
    }
}

impl From<FindError> for Failure {
    fn from(e: FindError) -> Self {
        Failure { code: e.code.as_str().to_string(), message: e.message }
    }
}

/// Splits an outcome into what crosses now and what crosses in slices.
fn find_output(o: FindOutcome) -> (FindOutput, Option<Remaining>) {
    let mut entries = o.entries.into_iter();
    let first = entry_slice(entries.by_ref().take(FIRST_ENTRIES));
    let remaining =
        (entries.len() > 0).then(|| Remaining { pending: std::sync::Mutex::new(Pending::Entries(entries)) });
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

impl From<JsFindResult> for FindOutcome {
    fn from(r: JsFindResult) -> Self {
        let entries: Vec<Found> = r
            .entries
            .into_iter()
            .map(|e| Found {
                kind: match e.kind.as_str() {
                    "dir" => EntryKind::Dir,
                    "symlink" => EntryKind::Symlink,
                    _ => EntryKind::File,
                },
                meta: Some(Meta { size: e.size.max(0.0) as u64, mtime_ms: e.mtime_ms }),
                raw: e.path_bytes.map(|bytes| bytes.into_iter().map(|b| b as u8).collect()),
                path: e.path,
            })
            .collect();
        let matched = r.matched.max(0.0) as usize;
        let truncated_by = r.truncated_by.as_deref().and_then(Truncation::parse).filter(|_| r.truncated);
        let notice = r.notice.or_else(|| default_notice(truncated_by?, matched, entries.len()));
        FindOutcome {
            path: r.path,
            matched,
            truncated_by,
            notice,
            hint: r.hint,
            omitted: r
                .omitted
                .unwrap_or_default()
                .into_iter()
                .map(|d| OmittedDir { dir: d.dir, count: d.count.max(0.0) as usize })
                .collect(),
            skipped: skipped_from_js(r.skipped),
            // The model text does not show the letters.
            git_status: None,
            entries,
        }
    }
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

impl From<JsSearchResult> for SearchOutcome {
    fn from(r: JsSearchResult) -> Self {
        let items = if let Some(m) = r.matches {
            SearchItems::Matches(
                m.into_iter()
                    .map(|m| LineMatch {
                        file: m.file,
                        line: m.line.max(0.0) as u64,
                        text: m.text,
                        patterns: m.patterns,
                        column: m.column.filter(|c| *c >= 1.0).map(|c| c as u64),
                        before: rust_context(m.before),
                        after: rust_context(m.after),
                    })
                    .collect(),
            )
        } else if let Some(c) = r.counts {
            SearchItems::Counts(c.into_iter().map(|c| (c.file, c.count.max(0.0) as u64)).collect())
        } else {
            SearchItems::Files(r.files.unwrap_or_default())
        };
        SearchOutcome {
            path: r.path,
            items,
            match_count: r.match_count.max(0.0) as u64,
            file_count: r.file_count.map_or(0, |n| n.max(0.0) as u64),
            truncated: r.truncated,
            notice: r.notice,
            cursor: r.cursor,
            offset: r.offset.map(|n| n.max(0.0) as u64),
            incomplete: r.incomplete == Some(true),
            index_changed: r.index_changed == Some(true),
            skipped: skipped_from_js(r.skipped),
            spread: r.spread == Some(true),
            git_status: r.git_status,
        }
    }
}

/// Lists longer than this are refused rather than copied.
const MAX_LIST: u32 = 10_000;

fn to_value(value: &Unknown, top: bool) -> Result<Value> {
    Ok(match value.get_type()? {
        ValueType::Undefined | ValueType::Null => Value::Absent,
        ValueType::Boolean => Value::Bool(unsafe { value.cast::<bool>()? }),
        ValueType::Number => Value::Number(unsafe { value.cast::<f64>()? }),
        ValueType::String => Value::Text(unsafe { value.cast::<String>()? }),
        ValueType::Object if top && value.is_array()? => {
            let array: Object = unsafe { value.cast()? };
            let len = array.get_array_length()?;
            if len > MAX_LIST {
                return Ok(Value::Other("array of more than 10000 items"));
            }
            let mut items = Vec::with_capacity(len as usize);
            for i in 0..len {
                items.push(to_value(&array.get_element::<Unknown>(i)?, false)?);
            }
            Value::List(items)
        }
        ValueType::Object if value.is_array()? => Value::Other("array"),
        ValueType::Object => Value::Other("object"),
        ValueType::Function => Value::Other("function"),
        ValueType::Symbol => Value::Other("symbol"),
        ValueType::BigInt => Value::Other("bigint"),
        _ => Value::Other("value"),
    })
}

fn read_options(options: &Unknown) -> std::result::Result<Vec<(String, Value)>, FindError> {
    let fail = |e: napi::Error| FindError::invalid_argument(format!("cannot read the options object: {e}"));
    if options.get_type().map_err(fail)? != ValueType::Object || options.is_array().map_err(fail)? {
        return Err(FindError::invalid_argument("options must be an object such as { pattern: '**/*.ts' }"));
    }
    let object: Object = unsafe { options.cast() }.map_err(fail)?;
    let mut fields = Vec::new();
    for key in Object::keys(&object).map_err(fail)? {
        let value = object.get_named_property::<Unknown>(&key).map_err(fail)?;
        fields.push((key, to_value(&value, true).map_err(fail)?));
    }
    Ok(fields)
}

/// What a plan runs.
#[derive(Clone)]
enum Job {
    Find(Arc<FindConfig>, Answer),
    Search(Arc<SearchConfig>),
}

/// The shape a find's answer crosses into JS in.
#[derive(Clone)]
enum Answer {
    /// A `FindResult`, entries in columnar slices.
    Entries,
    /// `findFiles`: absolute paths.
    Paths,
    /// The model text alone, rendered here: the CLI prints it without making
    /// an object per entry.
    Text,
    /// Why this path (absolute) is or is not among the entries.
    Explain(Arc<std::path::Path>),
}

/// The options as read from JS, not yet parsed: parsing compiles the
/// patterns (globs, `exclude`, regexes), which can take a good part of a
/// second, so it runs on the blocking pool (`Plan.prepare`), never on the
/// event loop.
struct Input {
    fields: Vec<(String, Value)>,
    source: Source,
    purpose: String,
}

impl Input {
    /// Options into a `Job`: validation and pattern compiling. Off the loop.
    fn parse(self) -> std::result::Result<Job, FindError> {
        let Input { mut fields, source, purpose } = self;
        let mut explained = None;
        if purpose == "explain" {
            // The JS wrapper resolves the path asked about (against `cwd`) and passes it in `explain`.
            let at = fields.iter().position(|(name, _)| name == "explain");
            explained = match at.map(|i| fields.remove(i).1) {
                Some(Value::Text(path)) if std::path::Path::new(&path).is_absolute() => {
                    Some(Arc::from(std::path::Path::new(&path)))
                }
                _ => return Err(FindError::invalid_argument("`explain(path, options)` takes the path as a string")),
            };
            // With no pattern, only the walk's rules (and the filters) decide.
            if !fields.iter().any(|(name, _)| name == "pattern") {
                fields.push(("pattern".to_string(), Value::Text("**".to_string())));
            }
        }
        let find = |purpose, answer: Answer| {
            parse_find_options(&fields, purpose, source.clone()).map(|mut c| {
                // The text shows no size or date: read them only where a filter or the order needs them.
                c.want_meta &= !matches!(answer, Answer::Text);
                Job::Find(Arc::new(c), answer)
            })
        };
        match purpose.as_str() {
            "search" => parse_search_options(&fields, source.clone()).map(|c| Job::Search(Arc::new(c))),
            "findFiles" => find(Purpose::FindFiles, Answer::Paths),
            "findText" => find(Purpose::Find, Answer::Text),
            "find" => find(Purpose::Find, Answer::Entries),
            "explain" => {
                find(Purpose::Find, Answer::Explain(explained.unwrap_or_else(|| Arc::from(std::path::Path::new("/")))))
            }
            other => Err(FindError::invalid_argument(format!(
                "internal: unknown purpose `{}`; it is find, findText, findFiles, search or explain",
                clip(other, 40)
            ))),
        }
    }
}

/// Where a plan is: options read (or refused while reading them), then
/// parsed into a job (or refused).
enum Stage {
    Read(std::result::Result<Input, FindError>),
    /// `prepare` is parsing them on the blocking pool.
    Parsing,
    Parsed(std::result::Result<Job, FindError>),
}

/// A call, validated by `prepare` and then run once: the JS wrapper asks the
/// policy about `path` between the two.
#[napi]
pub struct Plan {
    stage: Arc<std::sync::Mutex<Stage>>,
    flag: CancelFlag,
    /// When the call was made: `timeoutMs` counts from here (the policy, and
    /// the wait for a walk slot, are part of the call).
    made: std::time::Instant,
}

/// Parses the plan's input on the blocking pool, once; the later calls find it done.
async fn parse_once(stage: Arc<std::sync::Mutex<Stage>>) -> std::result::Result<Job, FindError> {
    let taken = match &mut *lock(&stage) {
        Stage::Parsed(job) => return job.clone(),
        Stage::Parsing => None,
        read => match std::mem::replace(read, Stage::Parsing) {
            Stage::Read(input) => Some(input),
            _ => None,
        },
    };
    let Some(input) = taken else {
        return Err(FindError::invalid_argument("internal: a plan was prepared twice at once; await `prepare()`"));
    };
    let job = match input {
        // As many compile at once as walk: each would otherwise hold a blocking-pool thread
        // (200 calls at once grew the pool by 100 threads).
        Ok(input) => match compile_slots().acquire().await {
            Ok(_slot) => off_the_loop(move || {
                yield_to_the_loop();
                input.parse()
            })
            .await
            .and_then(|parsed| parsed),
            Err(_) => Err(FindError::new(ErrorCode::FsError, "internal error in agent-find: no compile slot")),
        },
        Err(e) => Err(e),
    };
    *lock(&stage) = Stage::Parsed(job.clone());
    job
}

#[napi]
impl Plan {
    /// `purpose` is `"find"`, `"findText"`, `"findFiles"` or `"search"`;
    /// `reader`, the host's storage as `js/readers/adapter.js` adapts it.
    /// Only reads the options (cheap); `prepare` validates them. Never
    /// throws: see `error`.
    #[napi(constructor, catch_unwind)]
    pub fn new(options: Unknown, purpose: String, reader: Option<Object>, index: Option<&FileIndex>) -> Self {
        let input = read_options(&options).and_then(|fields| {
            let source = match (reader, index) {
                (Some(reader), _) => {
                    let storage = js_reader::JsStorage::from_js(&reader).map_err(|e| {
                        FindError::invalid_argument(format!("`reader` must have list, stat and read functions: {e}"))
                    })?;
                    Source::Storage(Shared(Arc::new(storage)))
                }
                (None, Some(index)) => Source::Index(index.opened()?),
                (None, None) => Source::Disk,
            };
            Ok(Input { fields, source, purpose })
        });
        Plan {
            stage: Arc::new(std::sync::Mutex::new(Stage::Read(input))),
            flag: CancelFlag::default(),
            made: std::time::Instant::now(),
        }
    }

    /// Validates the options and compiles the patterns, on the blocking
    /// pool; resolves when done (then `error` and `path` answer).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn prepare<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        let stage = Arc::clone(&self.stage);
        env.spawn_future(async move {
            let _ = parse_once(stage).await;
            Ok(())
        })
    }

    /// Why the options were refused, if they were.
    #[napi(getter)]
    pub fn error(&self) -> Option<Failure> {
        match &*lock(&self.stage) {
            Stage::Read(Err(e)) | Stage::Parsed(Err(e)) => Some(e.clone().into()),
            _ => None,
        }
    }

    /// The logical, resolved search path the policy is asked about (once prepared).
    #[napi(getter)]
    pub fn path(&self) -> Option<String> {
        Some(match &*lock(&self.stage) {
            Stage::Parsed(Ok(Job::Find(c, _))) => c.scope.logical(),
            Stage::Parsed(Ok(Job::Search(c))) => c.scope.logical(),
            _ => return None,
        })
    }

    /// Stops a running call; it resolves with an `aborted` error.
    #[napi]
    pub fn cancel(&self) {
        self.flag.cancel();
    }

    /// Runs the call (preparing it first if `prepare` was not awaited).
    /// `nested`: the JS side runs this call from inside a reader's call
    /// (see `slots`).
    #[napi(ts_return_type = "Promise<RunOutput>")]
    pub fn run<'env>(&self, env: &'env Env, nested: Option<bool>) -> Result<PromiseRaw<'env, RunOutput>> {
        let stage = Arc::clone(&self.stage);
        let flag = self.flag.clone();
        let made = self.made;
        env.spawn_future(async move {
            let job = match parse_once(stage).await {
                Ok(job) => job,
                Err(e) => return Ok(failed(e)),
            };
            let cancel = job.cancel(flag.clone(), made);
            let pool = match (job.source(), nested) {
                (Source::Storage(_), Some(true)) => slots::Pool::Nested,
                (Source::Storage(_), _) => slots::Pool::Reader,
                _ => slots::Pool::Walk,
            };
            let _slot = match slots::take(pool, cancel.deadline()).await {
                Ok(slot) => slot,
                // The deadline passed while waiting: the same answer as a walk that ran out of time.
                Err(slots::NoSlot::TimedOut) => {
                    return Ok(failed(cancel.check().err().unwrap_or_else(FindError::aborted)))
                }
                Err(slots::NoSlot::Closed) => {
                    return Ok(failed(FindError::new(ErrorCode::FsError, "internal error in agent-find: no walk slot")))
                }
            };
            Ok(off_the_loop(move || run_job(&job, flag, made)).await.unwrap_or_else(failed))
        })
    }
}

/// Runs `work` on tokio's blocking pool; a panic in it becomes an `fs-error`
/// (it never takes Node down).
async fn off_the_loop<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> std::result::Result<T, FindError> {
    tokio::task::spawn_blocking(work).await.map_err(|join| {
        FindError::new(ErrorCode::FsError, format!("internal error in agent-find (please report it): {join}"))
    })
}

impl Job {
    fn source(&self) -> &Source {
        match self {
            Job::Find(config, _) => &config.source,
            Job::Search(config) => &config.source,
        }
    }

    /// What stops its wait for a slot: `flag`, and `timeoutMs` counted from
    /// `made` (as `run_job` makes it), except for a `partial` search, which
    /// answers (with nothing searched) once its time is out.
    fn cancel(&self, flag: CancelFlag, made: std::time::Instant) -> Cancel {
        let timeout_ms = match self {
            Job::Find(config, _) => config.timeout_ms,
            Job::Search(config) if config.page.partial => None,
            Job::Search(config) => config.timeout_ms,
        };
        Cancel::since(flag, timeout_ms, made)
    }
}

/// Lowers the calling thread's priority to `WORKER_NICE` (Linux, where nice
/// is per thread and the walk's own threads inherit it). Never raised back:
/// the blocking pool runs only this crate's work.
fn yield_to_the_loop() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread; a failure leaves the priority as it was.
    unsafe {
        let tid = libc::gettid() as libc::id_t;
        if libc::getpriority(libc::PRIO_PROCESS, tid) < agent_find_core::limits::WORKER_NICE {
            libc::setpriority(libc::PRIO_PROCESS, tid, agent_find_core::limits::WORKER_NICE);
        }
    }
}

/// How many calls parse their options (compile their patterns) at once.
fn compile_slots() -> &'static tokio::sync::Semaphore {
    static SLOTS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    SLOTS
        .get_or_init(|| tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get()).max(2)))
}

/// Runs on tokio's blocking pool.
fn run_job(job: &Job, flag: CancelFlag, made: std::time::Instant) -> RunOutput {
    yield_to_the_loop();
    let done = match job {
        Job::Find(config, Answer::Explain(target)) => {
            let cancel = Cancel::since(flag, config.timeout_ms, made);
            explain(config, target, &cancel).map(|e| RunOutput { explanation: Some(e.into()), ..RunOutput::empty() })
        }
        Job::Find(config, answer) => {
            let cancel = Cancel::since(flag, config.timeout_ms, made);
            run_find(config, &cancel).map(|outcome| match answer {
                Answer::Entries => {
                    let (result, remaining) = find_output(outcome);
                    RunOutput { result: Some(result), remaining, ..RunOutput::empty() }
                }
                Answer::Text => RunOutput { text: Some(render_find(&outcome)), ..RunOutput::empty() },
                Answer::Explain(_) => unreachable_explain(),
                Answer::Paths => {
                    let root = &config.scope.logical_path;
                    let paths: Vec<String> =
                        outcome.entries.iter().map(|f| root.join(&f.path).to_string_lossy().into_owned()).collect();
                    let mut paths = paths.into_iter();
                    let first = path_slice(paths.by_ref().take(FIRST_PATHS));
                    let remaining =
                        (paths.len() > 0).then(|| Remaining { pending: std::sync::Mutex::new(Pending::Paths(paths)) });
                    RunOutput { paths: Some(first), remaining, ..RunOutput::empty() }
                }
            })
        }
        Job::Search(config) => {
            let cancel = Cancel::since(flag, config.timeout_ms, made);
            run_search(config, &cancel).map(|outcome| RunOutput { search: Some(outcome.into()), ..RunOutput::empty() })
        }
    };
    done.unwrap_or_else(failed)
}

/// Explain answers are matched before `run_find`.
fn unreachable_explain() -> RunOutput {
    failed(FindError::new(ErrorCode::FsError, "internal error in agent-find: explain ran as find"))
}

fn failed(e: FindError) -> RunOutput {
    RunOutput { error: Some(e.into()), ..RunOutput::empty() }
}

/// A live index (see `index`), as JS holds it: made empty, then opened.
#[napi]
pub struct FileIndex {
    index: Arc<std::sync::Mutex<Option<IndexRef>>>,
}

/// What `FileIndex.stats()` returns.
#[napi(object, object_from_js = false)]
pub struct IndexStats {
    /// Files, folders and symlinks held.
    pub entries: f64,
    /// Memory held by the index's structures.
    pub bytes: f64,
    pub bytes_per_entry: f64,
    /// Memory held by the lists kept for recent queries' rules.
    pub cached_bytes: f64,
    /// Memory held by the sketches of files' contents (the content layer).
    pub content_bytes: f64,
    /// Files with a sketch of their contents.
    pub content_files: f64,
    /// Bytes of file contents held in memory (the content layer's cache).
    pub content_cache_bytes: f64,
    /// Files whose contents are held in memory.
    pub content_cache_files: f64,
    /// File-system events received.
    pub events: f64,
    /// Folders listed again after events.
    pub folders_reconciled: f64,
    /// Whole-tree comparisons after the OS dropped events.
    pub rescans: f64,
    pub last_rescan: Option<String>,
    /// Folders that could not be watched (the OS's limit); every call lists them again.
    pub watch_errors: f64,
    pub last_error: Option<String>,
    pub closed: bool,
}

impl FileIndex {
    fn opened(&self) -> std::result::Result<IndexRef, FindError> {
        lock(&self.index)
            .clone()
            .ok_or_else(|| FindError::invalid_argument("this index is not open; use `await openIndex(path)`"))
    }
}

#[napi]
impl FileIndex {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        FileIndex { index: Arc::new(std::sync::Mutex::new(None)) }
    }

    /// Walks `path` (resolved against `cwd`) and starts watching it.
    #[napi(ts_return_type = "Promise<Failure | null>")]
    pub fn open<'env>(
        &self,
        env: &'env Env,
        path: String,
        cwd: Option<String>,
        content_cache_bytes: Option<f64>,
    ) -> Result<PromiseRaw<'env, Option<Failure>>> {
        let slot = Arc::clone(&self.index);
        let mut caps = ContentCaps::default();
        if let Some(bytes) = content_cache_bytes {
            // Checked in JS: a whole number of bytes, not negative.
            caps.contents = bytes.min(usize::MAX as f64) as usize;
        }
        env.spawn_future(async move {
            let opened = off_the_loop(move || {
                let logical = resolve_logical(cwd.as_deref(), Some(&path))?;
                Index::open(logical, caps)
            });
            Ok(match opened.await.and_then(|done| done) {
                Ok(index) => {
                    *lock(&slot) = Some(Shared(index));
                    None
                }
                Err(e) => Some(e.into()),
            })
        })
    }

    /// Resolves once every change made before the call is in the index.
    #[napi(ts_return_type = "Promise<Failure | null>")]
    pub fn settled<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, Option<Failure>>> {
        let index = self.opened();
        env.spawn_future(async move {
            let index = match index {
                Ok(index) => index,
                Err(e) => return Ok(Some(e.into())),
            };
            let settled = off_the_loop(move || index.settle(&Cancel::never())).await;
            Ok(settled.and_then(|done| done).err().map(Failure::from))
        })
    }

    #[napi(catch_unwind)]
    pub fn stats(&self) -> Option<IndexStats> {
        let s = self.opened().ok()?.stats();
        Some(IndexStats {
            entries: s.entries as f64,
            bytes: s.bytes as f64,
            bytes_per_entry: if s.entries == 0 { 0.0 } else { (s.bytes as f64 / s.entries as f64).round() },
            cached_bytes: s.cached_bytes as f64,
            content_bytes: s.content.sketch_bytes as f64,
            content_files: s.content.sketched_files as f64,
            content_cache_bytes: s.content.cached_bytes as f64,
            content_cache_files: s.content.cached_files as f64,
            events: s.events as f64,
            folders_reconciled: s.folders_reconciled as f64,
            rescans: s.rescans as f64,
            last_rescan: s.last_rescan,
            watch_errors: s.watch_errors as f64,
            last_error: s.last_error,
            closed: s.closed,
        })
    }

    /// Stops watching: every watch, the index's thread, its tree and its
    /// folder's descriptor are released. Off the event loop: the thread may
    /// be finishing a batch.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        // Later calls fail from here on, even before the promise settles.
        let closing = self.opened().ok().map(|index| (index.begin_close(), index));
        env.spawn_future(async move {
            if let Some((closing, index)) = closing {
                let _ = off_the_loop(move || index.finish_close(closing)).await;
            }
            Ok(())
        })
    }

    /// The indexed folder, as it was named.
    #[napi(getter)]
    pub fn path(&self) -> Option<String> {
        Some(self.opened().ok()?.logical_path.to_string_lossy().into_owned())
    }
}

/// The text a model reads for a `FindResult`.
#[napi(catch_unwind)]
pub fn format_find_result(result: JsFindResult) -> String {
    render_find(&result.into())
}

/// The text a model reads for a `SearchResult`.
#[napi(catch_unwind)]
pub fn format_search_result(result: JsSearchResult) -> String {
    render_search(&result.into())
}

/// One row of the option table (see the core's `option_table`), as JS reads it.
#[napi(object)]
pub struct OptionRow {
    /// `find` or `search`.
    pub call: String,
    pub name: String,
    /// `boolean`, `integer`, `number`, `string`, `choice`, `size`, `date`,
    /// `strings`, or `host` (a JS value the binding never sees).
    pub kind: String,
    /// For `choice`: the values.
    pub choices: Option<Vec<String>>,
    /// For `integer`: the least value.
    pub minimum: Option<u32>,
    /// The default, when it is a value (a boolean, a number, a string or
    /// an empty list), as JSON text.
    pub default_json: Option<String>,
    /// What a model reads; absent when the host sets the option.
    pub model: Option<String>,
    pub flag: Option<FlagRow>,
}

/// An option's command-line flag.
#[napi(object)]
pub struct FlagRow {
    pub long: String,
    pub short: Option<String>,
    /// The value's name in the usage text; absent for a switch.
    pub arg: Option<String>,
    /// For a switch, the value it sets (`false`, or a string) as JSON text; absent: `true`.
    pub sets_json: Option<String>,
    pub repeats: bool,
    pub help: String,
}

/// Every option of every call, one row per call that takes it, in the
/// order the schemas and usage texts list them: validation reads the same table, and `js/tools.js`,
/// `js/cli.js` and a test of `index.d.ts` read this export.
#[napi]
pub fn option_table() -> Vec<OptionRow> {
    use agent_find_core::option_table::{fill, Default, Kind, OPTIONS};
    // The texts in the table hold no quote or backslash to escape.
    let default = |d: Default| match d {
        Default::None => None,
        Default::Bool(b) => Some(b.to_string()),
        Default::Count(n) => Some(n.to_string()),
        Default::Text(t) => Some(format!("\"{t}\"")),
        Default::Empty => Some("[]".to_string()),
    };
    OPTIONS
        .iter()
        .flat_map(|o| o.calls.iter().map(move |call| (call, o)))
        .map(|(call, o)| OptionRow {
            call: call.as_str().to_string(),
            name: o.name.to_string(),
            kind: o.kind.as_str().to_string(),
            choices: match o.kind {
                Kind::Choice(values) => Some(values.iter().map(|v| v.to_string()).collect()),
                _ => None,
            },
            minimum: match o.kind {
                Kind::Integer { minimum } => Some(minimum),
                _ => None,
            },
            default_json: default(o.default),
            model: o.model.map(fill),
            flag: o.flag.map(|f| FlagRow {
                long: f.long.to_string(),
                short: f.short.map(String::from),
                arg: f.arg.map(String::from),
                sets_json: f.sets.map(|v| match v {
                    "false" => v.to_string(),
                    text => format!("\"{text}\""),
                }),
                repeats: f.repeats,
                help: fill(f.help),
            }),
        })
        .collect()
}

/// The entry kinds as they cross between JS and Rust: a kind's code is its
/// index here. JS reads the same table through `entryKinds()`.
const KIND_CODES: [EntryKind; 3] = [EntryKind::File, EntryKind::Dir, EntryKind::Symlink];

fn kind_code(kind: EntryKind) -> u8 {
    KIND_CODES.iter().position(|k| *k == kind).unwrap_or(0) as u8
}

/// ripgrep's file types, as `searchFiles`' `type` takes them: each name
/// with its globs, in name order.
#[napi]
pub fn file_types() -> Vec<FileType> {
    agent_find_core::file_types().into_iter().map(|(name, globs)| FileType { name, globs }).collect()
}

#[napi(object, object_from_js = false)]
pub struct FileType {
    pub name: String,
    pub globs: Vec<String>,
}

/// The entry kinds' names, in code order.
#[napi]
pub fn entry_kinds() -> Vec<&'static str> {
    KIND_CODES.iter().map(|k| k.as_str()).collect()
}

/// The most calls in flight a reader may ask for.
#[napi]
pub const MAX_READER_CONCURRENCY: u32 = js_reader::MAX_CONCURRENCY;

/// The longest matching line `searchFiles` shows whole (longer ones are clipped).
#[napi]
pub const MAX_LINE_CHARS: u32 = agent_find_core::limits::MAX_LINE_CHARS as u32;
/// The longest matching line the model text shows whole (longer ones as a window around the match).
#[napi]
pub const MODEL_LINE_CHARS: u32 = agent_find_core::limits::MODEL_LINE_CHARS as u32;
