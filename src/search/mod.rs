//! `searchFiles`: one call for "what is written in the files" (a regex over
//! file contents) and "where is that file" (a name glob), with dependency and
//! build folders skipped unless asked, and results ready for a model.

pub mod content;
mod elsewhere;
pub mod fuzzy;
pub mod matcher;
mod near_miss;
pub mod options;
pub mod render;

use crate::cancel::Cancel;
use crate::content_sketch::{Sketcher, MAX_SKETCHED_FILE_BYTES};
use crate::entry::EntryKind;
use crate::error::Result;
use crate::pattern::NameMatcher;
use crate::sandbox::Scope;
use crate::source::{walk_screened, Contents, Root, Source};
use crate::walk::{posix_string, Entry, SkipReason, WalkRules, Walked};
pub use content::ContextLine;
use content::{
    binary_searcher, context_searcher, new_searcher, scan_contents, scan_file, scan_read, FileScan, LineHit, Scan,
};
use grep_searcher::Searcher;
use matcher::ContentMatcher;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Folders never searched unless `noIgnore`.
pub const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".mypy_cache",
    ".pytest_cache",
    "dist",
    "build",
    ".next",
    "target",
    "vendor",
    ".tox",
    "coverage",
    ".idea",
];

pub use crate::limits::{DEFAULT_MAX_RESULTS, MAX_RESULTS};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// Matching lines.
    Content,
    /// Files that matched.
    Files,
    /// Matching lines per file.
    Count,
}

/// What is matched against `pattern`.
#[derive(Debug, Clone)]
pub enum Target {
    /// A regex over each file's lines; `file_glob` limits which files.
    Content { regex: ContentMatcher, file_glob: Option<NameMatcher>, mode: OutputMode },
    /// A glob over file names (a bare word is a contains-match).
    Files { name: NameMatcher },
    /// A file name, perhaps misspelled: every file ranked against it (see `fuzzy`).
    Fuzzy { query: fuzzy::FuzzyQuery },
}

impl Target {
    /// Whether results come newest-modified first (file lists), not in path order.
    fn newest_first(&self) -> bool {
        match self {
            Target::Files { .. } => true,
            Target::Fuzzy { .. } => false,
            Target::Content { mode, .. } => *mode == OutputMode::Files,
        }
    }
}

#[derive(Debug, Clone)]
pub struct SearchConfig {
    pub target: Target,
    /// `type`: only files of these ripgrep file types (either target).
    pub types: Option<options::FileTypes>,
    pub rules: WalkRules,
    pub max_results: usize,
    pub scope: Scope,
    /// What is walked: the disk, a storage or an index.
    pub source: Source,
    pub timeout_ms: Option<u64>,
    /// Binary files are searched as text instead of skipped: only the
    /// search for what a search that found nothing missed sets it.
    pub search_binary: bool,
    /// Lines of context shown before and after each matching line
    /// (`before`, `after`, `context`; content output only).
    pub context: Context,
}

/// How many lines of context a content search shows around each match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Context {
    pub before: usize,
    pub after: usize,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineMatch {
    pub file: String,
    pub line: u64,
    /// The line; for a multiline match, its lines joined by `\n`.
    pub text: String,
    /// With `patterns`: the indexes of those that match the line(s).
    pub patterns: Option<Vec<u32>>,
    /// 1-based byte column of the line's first match (`rg --column`).
    pub column: Option<u64>,
    /// Context lines (see `LineHit`).
    pub before: Vec<ContextLine>,
    pub after: Vec<ContextLine>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SearchItems {
    Matches(Vec<LineMatch>),
    Files(Vec<String>),
    Counts(Vec<(String, u64)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchOutcome {
    /// The search directory, absolute (`cwd` + `path`).
    pub path: String,
    pub items: SearchItems,
    /// Matching lines (content and count modes) or matching files (files
    /// mode, and name search), before `maxResults`.
    pub match_count: u64,
    /// Files that matched, before `maxResults`.
    pub file_count: u64,
    pub truncated: bool,
    /// Set when nothing matched and something near was found (the
    /// pattern's literal text, other case, binary files; see `near_miss`)
    /// or places were passed over (see `elsewhere`).
    pub notice: Option<String>,
    /// With `skipped: true`: what the walk and the search left out, by reason.
    /// `None` unless asked.
    pub skipped: Option<Vec<crate::walk::SkippedGroup>>,
}

/// One file that matched, as a walker thread reports it.
struct Hit {
    path: String,
    /// The path to open (the real name, also when it is not UTF-8).
    relative: std::path::PathBuf,
    /// Matching lines (or 1 for a file that matched); `UNREAD` for a file
    /// in a storage, read after the walk (see `scan_stored`).
    count: u64,
    mtime_ms: f64,
    /// Its place in a fuzzy search's order.
    rank: Option<fuzzy::Rank>,
}

const UNREAD: u64 = u64::MAX;

pub fn run(config: &SearchConfig, cancel: &Cancel) -> Result<SearchOutcome> {
    cancel.check()?;
    let root = config.source.open(&config.scope, cancel)?;
    let newest_first = config.target.newest_first();
    let walked = gather(config, &root, &config.rules, cancel, &|_| true, &|_| {})?;
    let skipped = config.rules.tally.then(|| crate::skipped::groups(&walked.tally, &root, &config.rules));
    let mut hits = walked.found;
    if let Target::Fuzzy { .. } = config.target {
        hits.sort_unstable_by(|a, b| a.rank.cmp(&b.rank).then_with(|| a.path.cmp(&b.path)));
    } else if newest_first {
        hits.sort_unstable_by(|a, b| b.mtime_ms.total_cmp(&a.mtime_ms).then_with(|| a.path.cmp(&b.path)));
    } else {
        hits.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    }
    let first_rank = hits.first().and_then(|h| h.rank);
    let max = config.max_results;
    let file_count = hits.len() as u64;
    let (items, match_count, truncated) = match &config.target {
        Target::Files { .. } | Target::Fuzzy { .. } | Target::Content { mode: OutputMode::Files, .. } => {
            let total = hits.len() as u64;
            let files = hits.into_iter().take(max).map(|h| h.path).collect();
            (SearchItems::Files(files), total, total > max as u64)
        }
        Target::Content { mode: OutputMode::Count, .. } => {
            let total = hits.iter().map(|h| h.count).sum();
            let truncated = hits.len() > max;
            (SearchItems::Counts(hits.into_iter().take(max).map(|h| (h.path, h.count)).collect()), total, truncated)
        }
        Target::Content { regex, mode: OutputMode::Content, .. } => {
            let total: u64 = hits.iter().map(|h| h.count).sum();
            if regex.modes.multiline {
                // A run of matches is one item, so the count of matches
                // cannot tell whether items were left out: one more is sought.
                let mut matches = first_lines(&root, regex, &hits, max + 1, config.context, cancel)?;
                let truncated = matches.len() > max;
                matches.truncate(max);
                (SearchItems::Matches(matches), total, truncated)
            } else {
                let matches = first_lines(&root, regex, &hits, max, config.context, cancel)?;
                (SearchItems::Matches(matches), total, total > max as u64)
            }
        }
    };
    if let Some(err) = match &config.target {
        Target::Content { regex, .. } => regex.failure(),
        Target::Files { .. } | Target::Fuzzy { .. } => None,
    } {
        return Err(err);
    }
    let notice = match (match_count, &config.target) {
        (0, _) => {
            let near = near_miss::notice(config, &root, cancel)?;
            let places = elsewhere::notice(config, &root, &walked.skipped, walked.ignored, cancel)?;
            match (near, places) {
                (Some(near), Some(places)) => Some(format!("{near} {places}")),
                (near, places) => near.or(places),
            }
        }
        (_, Target::Fuzzy { query }) => {
            first_rank.filter(|r| !r.is_literal()).map(|_| fuzzy::approximate_notice(query))
        }
        _ => None,
    };
    Ok(SearchOutcome {
        path: config.source.display(&config.scope),
        items,
        match_count,
        file_count,
        truncated,
        notice,
        skipped,
    })
}

/// Walks `root` under `rules` and keeps the files that match: by name, or
/// by content with their matching lines counted. Only files `wanted`
/// admits are tested; `on_match` hears of each match as it is found.
fn gather(
    config: &SearchConfig,
    root: &Root,
    rules: &WalkRules,
    cancel: &Cancel,
    wanted: &(dyn Fn(&Path) -> bool + Sync),
    on_match: &(dyn Fn(&Path) + Sync),
) -> Result<Walked<Hit>> {
    let newest_first = config.target.newest_first();
    let scan = match &config.target {
        Target::Content { mode: OutputMode::Files, .. } => Scan::Any,
        _ => Scan::Count,
    };
    let screen = match &config.target {
        Target::Content { regex, .. } => regex.prefilter(),
        Target::Files { .. } | Target::Fuzzy { .. } => None,
    };
    let searcher_for = |scan| if config.search_binary { binary_searcher() } else { new_searcher(scan) };
    // Files a content search left out (binary, denied), for `skipped`.
    let left_out = [AtomicU64::new(0), AtomicU64::new(0)];
    let note = |found: FileScan| {
        match found.left_out {
            Some(SkipReason::Binary) => left_out[0].fetch_add(1, Ordering::Relaxed),
            Some(_) => left_out[1].fetch_add(1, Ordering::Relaxed),
            None => 0,
        };
        found.count
    };
    let mut walked = walk_screened(root, rules, cancel, screen, || {
        let mut searcher = searcher_for(scan);
        let mut sketching = Sketching::default();
        let mut scorer = match &config.target {
            Target::Fuzzy { query } => Some(query.scorer()),
            _ => None,
        };
        move |relative: &Path, kind, entry: &Entry| {
            if kind != EntryKind::File || !wanted(relative) {
                return None;
            }
            if config.types.as_ref().is_some_and(|t| !t.is_match(relative)) {
                return None;
            }
            let count = match &config.target {
                Target::Files { name } => u64::from(name.is_match(relative)),
                Target::Fuzzy { .. } => {
                    // Ranked by name alone: no time to read, no contents.
                    let rank = match relative.to_str() {
                        Some(text) if std::path::MAIN_SEPARATOR == '/' => scorer.as_mut()?.rank(text)?,
                        _ => scorer.as_mut()?.rank(&posix_string(relative))?,
                    };
                    on_match(relative);
                    // `relative` is only kept to read a file's contents later: not here.
                    let path = posix_string(relative);
                    return Some(Hit { path, relative: PathBuf::new(), count: 1, mtime_ms: 0.0, rank: Some(rank) });
                }
                Target::Content { regex, file_glob, .. } => {
                    if file_glob.as_ref().is_some_and(|g| !g.is_match(relative)) {
                        return None;
                    }
                    // An empty file holds no line to match: not opened.
                    if entry.known_size() == Some(0) {
                        return None;
                    }
                    // A live index's sketch may tell that it holds no match,
                    // and its cache may hold the contents.
                    let known = entry.known();
                    if known.as_ref().is_some_and(|known| !regex.may_match(known.sketch)) {
                        return None;
                    }
                    if let Some(contents) = known.as_ref().and_then(|known| known.contents) {
                        note(scan_read(&mut searcher, regex, contents, scan, relative, cancel)?)
                    } else {
                        match entry.open() {
                            Some(file) if sketching.wanted(entry, known.is_some()) => {
                                note(sketching.scan(&mut searcher, regex, file, scan, relative, cancel, entry)?)
                            }
                            Some(file) => note(scan_file(&mut searcher, regex, file, scan, relative, cancel)?),
                            None => UNREAD,
                        }
                    }
                }
            };
            if count == 0 {
                return None;
            }
            if count != UNREAD {
                on_match(relative);
            }
            // As `find` does: a file that vanished is dropped, one whose
            // metadata cannot be read (in a folder listable but not
            // enterable) is kept with time 0, so the live index (which holds
            // it so) and a walk list the same files.
            let mtime_ms = match newest_first.then(|| entry.stat()) {
                Some(Ok(st)) => st.meta.mtime_ms,
                Some(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => return None,
                _ => 0.0,
            };
            Some(Hit { path: posix_string(relative), relative: relative.to_path_buf(), count, mtime_ms, rank: None })
        }
    })?;
    if let (Target::Content { regex, .. }, false) = (&config.target, root.opens_in_walk()) {
        // The walk only listed these: their contents come now.
        let mut searcher = searcher_for(scan);
        let mut kept = Vec::new();
        root.read_each(
            std::mem::take(&mut walked.found),
            |hit| &hit.relative,
            cancel,
            |mut hit, contents| {
                if let Some(found) = scan_contents(&mut searcher, regex, contents, scan, Path::new(&hit.path), cancel) {
                    let count = note(found);
                    if count > 0 {
                        hit.count = count;
                        on_match(&hit.relative);
                        kept.push(hit);
                    }
                }
                Ok(())
            },
        )?;
        walked.found = kept;
    }
    if rules.tally {
        walked.tally.add(SkipReason::Binary, left_out[0].load(Ordering::Relaxed));
        walked.tally.add(SkipReason::Denied, left_out[1].load(Ordering::Relaxed));
    }
    Ok(walked)
}

/// A walker thread's means to teach a live index the contents of the files
/// it reads (see `content_sketch` and the index's content layer): each such
/// file is read whole, sketched, kept in the index's cache when it has room,
/// and searched from memory.
#[derive(Default)]
struct Sketching {
    contents: Vec<u8>,
    sketcher: Option<Box<Sketcher>>,
}

impl Sketching {
    /// Whether `entry` (a file whose contents are not in memory; `sketched`
    /// when it has a sketch) is a live index's file small enough to read
    /// whole whose sketch or contents the index would keep.
    fn wanted(&self, entry: &Entry, sketched: bool) -> bool {
        entry.known_size().is_some_and(|size| size <= MAX_SKETCHED_FILE_BYTES)
            && ((!sketched && entry.wants_sketch()) || entry.wants_contents())
    }

    /// Reads `file` whole, hands its sketch (and its contents, when the
    /// index wants them) to `entry`, and searches it (not at all when the
    /// sketch rules a match out). A file that cannot be read whole, or turns
    /// out larger than a sketch covers, is searched as usual, which reports
    /// any failure.
    #[allow(clippy::too_many_arguments)]
    fn scan(
        &mut self,
        searcher: &mut Searcher,
        regex: &ContentMatcher,
        file: std::io::Result<std::fs::File>,
        scan: Scan,
        relative: &Path,
        cancel: &Cancel,
        entry: &Entry,
    ) -> Option<FileScan> {
        let Ok(mut file) = file else { return scan_file(searcher, regex, file, scan, relative, cancel) };
        self.contents.clear();
        let read = (&mut file).take(MAX_SKETCHED_FILE_BYTES + 1).read_to_end(&mut self.contents);
        if read.is_err() || self.contents.len() as u64 > MAX_SKETCHED_FILE_BYTES {
            let rewound = std::io::Seek::rewind(&mut file).map(|()| file);
            return scan_file(searcher, regex, rewound, scan, relative, cancel);
        }
        let sketch = self.sketcher.get_or_insert_with(Box::default).sketch(&self.contents);
        let may_match = regex.may_match(&sketch);
        // Kept only when read as long as the index says the file is: one
        // written to meanwhile is read again once its event comes.
        let keep = entry.wants_contents() && entry.known_size() == Some(self.contents.len() as u64);
        entry.remember(sketch, keep.then(|| self.contents.as_slice().into()));
        if !may_match {
            return None;
        }
        scan_read(searcher, regex, &self.contents, scan, relative, cancel)
    }
}

/// The first `max` matching lines in path order, with their `context`: the
/// walk only counted, so only the few files that hold them are read again,
/// for their text.
fn first_lines(
    root: &Root,
    regex: &ContentMatcher,
    hits: &[Hit],
    max: usize,
    context: Context,
    cancel: &Cancel,
) -> Result<Vec<LineMatch>> {
    let mut searcher = match context {
        Context { before: 0, after: 0 } => new_searcher(Scan::Lines(max)),
        Context { before, after } => context_searcher(before, after),
    };
    let mut out = Vec::with_capacity(max.min(1024));
    for hit in hits {
        if out.len() >= max {
            break;
        }
        cancel.check()?;
        let scan = Scan::Lines(max - out.len());
        let contents = root.read_one(&hit.relative, cancel)?;
        let failure = contents.as_ref().and_then(Contents::failure);
        let found = contents.and_then(|c| scan_contents(&mut searcher, regex, c, scan, Path::new(&hit.path), cancel));
        if let Some(failure) = failure {
            failure.check()?;
        }
        let FileScan { lines, .. } = found.unwrap_or_default();
        out.extend(lines.into_iter().map(|LineHit { line, text, patterns, column, before, after }| LineMatch {
            file: hit.path.clone(),
            line,
            text,
            patterns,
            column,
            before,
            after,
        }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Value;
    use crate::error::ErrorCode;
    use crate::storage::memory::MemoryStorage;
    use std::sync::Arc;

    fn search_in(storage: &Arc<MemoryStorage>, pairs: &[(&str, &str)]) -> Result<SearchOutcome> {
        let fields: Vec<_> = pairs.iter().map(|(k, v)| (k.to_string(), Value::Text(v.to_string()))).collect();
        let source = Source::Storage(crate::shared::Shared(Arc::new(Arc::clone(storage))));
        run(&options::parse(&fields, source)?, &Cancel::never())
    }

    #[test]
    fn contents_are_read_through_a_storage() {
        let s = MemoryStorage::new(&[
            ("/src/a.rs", "fn main() {}\n// TODO one\n// TODO two\n"),
            ("/src/b.rs", "nothing\n"),
            ("/bin.dat", "TODO\0binary"),
            ("/node_modules/m/x.rs", "TODO skipped\n"),
        ]);
        let o = search_in(&s, &[("pattern", "TODO")]).unwrap();
        let SearchItems::Matches(m) = &o.items else { panic!("{:?}", o.items) };
        assert_eq!(m.iter().map(|m| (m.file.as_str(), m.line)).collect::<Vec<_>>(), [("src/a.rs", 2), ("src/a.rs", 3)]);
        let o = search_in(&s, &[("pattern", "TODO"), ("outputMode", "count")]).unwrap();
        assert_eq!(o.items, SearchItems::Counts(vec![("src/a.rs".into(), 2)]));
        let o = search_in(&s, &[("pattern", "a.rs"), ("target", "files")]).unwrap();
        assert_eq!(o.items, SearchItems::Files(vec!["src/a.rs".into()]));
        s.unreadable("/src/gone.rs", "ENOENT");
        assert_eq!(search_in(&s, &[("pattern", "TODO"), ("outputMode", "files")]).unwrap().match_count, 1);
        s.unreadable("/src/b.rs", "EIO");
        let err = search_in(&s, &[("pattern", "TODO")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::FsError);
        assert!(err.message.contains("`/src/b.rs`") && err.message.contains("EIO"), "{}", err.message);
    }
}
