//! `searchFiles`: one call for "what is written in the files" (a regex over
//! file contents) and "where is that file" (a name glob), with dependency and
//! build folders skipped unless asked, and results ready for a model.

mod budget;
pub mod content;
pub mod cursor;
mod elsewhere;
pub mod fuzzy;
pub mod matcher;
mod near_miss;
pub mod options;
mod pages;
mod reading;
pub mod render;
mod select;
pub mod shown;

use crate::call::{join_sentences, prepare, CallOptions, Prepared};
use crate::cancel::Cancel;
use crate::error::{FindError, Result};
use crate::git_status::GitAsk;
use crate::path_bytes::posix_string;
use crate::pattern::NameMatcher;
use crate::sandbox::Scope;
use crate::skipped::SkippedReport;
use crate::source::{Root, Source};
use crate::walk::{WalkRules, Walked};
pub use content::{ContextLine, LineMatch};
use cursor::{Budget, Cursor, Key, Order, Paging};
use matcher::ContentMatcher;
use select::{gather, Hit};
use std::path::Path;

pub use crate::limits::MAX_RESULTS;

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
    /// Whether the answer counts lines (content and count output), not files.
    fn counts_lines(&self) -> bool {
        matches!(self, Target::Content { mode: OutputMode::Content | OutputMode::Count, .. })
    }

    /// Whether the items are runs of matching lines of a multiline search,
    /// which are not paged.
    fn multiline_lines(&self) -> bool {
        matches!(self, Target::Content { regex, mode: OutputMode::Content, .. } if regex.modes.multiline)
    }

    /// The failure the regex engine recorded while searching, if any.
    fn failure(&self) -> Option<FindError> {
        match self {
            Target::Content { regex, .. } => regex.failure(),
            Target::Files { .. } | Target::Fuzzy { .. } => None,
        }
    }

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
    /// `maxTokens`, as bytes of model text (see `budget`).
    pub max_text_bytes: Option<usize>,
    /// Lines of context shown before and after each matching line
    /// (`before`, `after`, `context`; content output only).
    pub context: Context,
    /// `offset`, `cursor`, `partial`.
    pub page: Paging,
    /// Only files changed in git (`git`, `changedSince`), and their status
    /// letters (`gitStatus`); see `git_scope`.
    pub git: GitAsk,
    /// When the result carries `skipped`.
    pub skipped: SkippedReport,
    /// Sketches an index saved of the files below the search folder (the
    /// native CLI loads them): a file on disk whose stamp is still the
    /// saved one is passed over when its sketch rules out a match.
    pub saved: Option<std::sync::Arc<crate::index::SavedSketches>>,
}

impl SearchConfig {
    /// Screens a content search on disk with the sketches an index saved in
    /// `cache_dir` of the search folder (or a folder above it): sets
    /// `saved`. Nothing to do for other searches, or where nothing is saved;
    /// `Err` says why a cache file found could not be used (the search is
    /// exact without it).
    pub fn use_saved_sketches(&mut self, cache_dir: &std::path::Path) -> std::result::Result<(), String> {
        if self.source != Source::Disk || self.search_binary || self.target.prefilter().is_none() {
            return Ok(());
        }
        let saved = crate::index::SavedSketches::below(&self.scope.logical_path, cache_dir)?;
        self.saved = saved.filter(|s| !s.is_empty()).map(std::sync::Arc::new);
        Ok(())
    }

    /// The order of the result's items: fuzzy matches by rank; file lists
    /// newest first, except under `partial` (a partial answer must be a
    /// start of the full one, and which files are newest is known only once
    /// all are searched); lines and counts by path, then line.
    pub fn order(&self) -> Order {
        match &self.target {
            Target::Fuzzy { .. } => Order::Rank,
            target if target.newest_first() && !self.page.partial => Order::Newest,
            _ => Order::Path,
        }
    }
}

/// How many lines of context a content search shows around each match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Context {
    pub before: usize,
    pub after: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SearchItems {
    Matches(Vec<LineMatch>),
    Files(Vec<String>),
    Counts(Vec<(String, u64)>),
}

impl SearchItems {
    pub fn is_empty(&self) -> bool {
        match self {
            SearchItems::Matches(m) => m.is_empty(),
            SearchItems::Files(f) => f.is_empty(),
            SearchItems::Counts(c) => c.is_empty(),
        }
    }

    /// The file of each item, in order (a file with many matching lines is
    /// named once for each).
    pub fn files(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match self {
            SearchItems::Matches(m) => Box::new(m.iter().map(|m| m.file.as_str())),
            SearchItems::Files(f) => Box::new(f.iter().map(String::as_str)),
            SearchItems::Counts(c) => Box::new(c.iter().map(|(file, _)| file.as_str())),
        }
    }
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
    /// or places were passed over (see `elsewhere`), or when the index
    /// changed since the `cursor` was made.
    pub notice: Option<String>,
    /// With `skipped: true`: what the walk and the search left out, by reason.
    /// `None` unless asked.
    pub skipped: Option<Vec<crate::result::SkippedGroup>>,
    /// Where the next page starts, when more follows (`truncated` or `incomplete`).
    pub cursor: Option<String>,
    /// How many items of the whole answer come before the first one shown
    /// (`offset` and `cursor`); `None` when neither was given.
    pub offset: Option<u64>,
    /// `partial` ran out of time: the items are the start of the answer, up
    /// to `cursor`, and `match_count` counts what was found so far.
    pub incomplete: bool,
    /// The index's tree changed since the `cursor` was made.
    pub index_changed: bool,
    /// `maxTokens` cut a content result: its lines are spread across the
    /// files (see `budget`), not the first ones.
    pub spread: bool,
    /// With `gitStatus`: the `git status --porcelain` letters of each file
    /// shown that git has a change of, by path.
    pub git_status: Option<std::collections::BTreeMap<String, String>>,
}

impl CallOptions for SearchConfig {
    fn source(&self) -> &Source {
        &self.source
    }
    fn scope(&self) -> &Scope {
        &self.scope
    }
    fn rules(&self) -> &WalkRules {
        &self.rules
    }
    fn with_rules(&self, rules: WalkRules) -> SearchConfig {
        SearchConfig { rules, ..self.clone() }
    }
}

/// The walk rules of a default `searchFiles`, as its option parser makes
/// them: what a live index prepares for (see `Index::open_saved`).
pub fn default_search_rules() -> Option<WalkRules> {
    let fields = [("pattern".to_string(), crate::args::Value::Text("default".to_string()))];
    options::parse(&fields, Source::Disk).ok().map(|config| config.rules)
}

pub fn run(config: &SearchConfig, cancel: &Cancel) -> Result<SearchOutcome> {
    // With `partial`, the deadline bounds the reading of contents; the walk
    // itself (listing folders) runs to its end, so the files left unsearched
    // are all known and the answer can stop right before the first of them.
    let (cancel, budget) = match config.page.partial {
        true => {
            let (walk, deadline) = cancel.without_deadline();
            (walk, deadline.map(Budget::new))
        }
        false => (cancel.clone(), None),
    };
    let cancel = &cancel;
    let Prepared { options: config, root, status, git_note, in_flight: _in_flight } =
        prepare(config, &config.git, cancel)?;
    let config = config.as_ref();
    // Read before the walk: a tree that changes during it counts as changed.
    let generation = root.tree_version().map(|(id, generation)| cursor::tree_version(id, generation));
    // Under a budget, files before the cursor's are not searched: the time
    // goes to the page asked for (and counts start at the cursor's file).
    let from = match (&budget, &config.page.cursor) {
        (Some(_), Some(Cursor { start: Key::Path { path, .. }, .. })) => Some(path.as_str()),
        _ => None,
    };
    let wanted = |relative: &Path| from.is_none_or(|from| posix_string(relative).as_str() >= from);
    let mut walked = gather(config, &root, &config.rules, cancel, &wanted, &|_| {}, budget.as_ref())?;
    let mut hits = std::mem::take(&mut walked.found);
    let order = config.order();
    // Newest first: the newest time of the first page's answer, which its
    // cursors carry on (see `cursor::newest_cmp`).
    let since = match &config.page.cursor {
        Some(Cursor { start: Key::Newest { since, .. }, .. }) => *since,
        _ => hits.iter().map(|h| h.mtime_ms).fold(f64::NEG_INFINITY, f64::max),
    };
    pages::sort(config, order, &mut hits, since);
    let first_rank = hits.first().and_then(|h| h.rank);
    let match_count: u64 = match config.target.counts_lines() {
        true => hits.iter().map(|h| h.count).sum(),
        false => hits.len() as u64,
    };
    let file_count = hits.len() as u64;
    // The answer covers the files before the first one left unsearched.
    let bound = budget.as_ref().and_then(Budget::first_unsearched);
    if let Some(bound) = &bound {
        hits.retain(|h| h.path < *bound);
    }
    let page = pages::page(config, &root, &hits, order, since, cancel)?;
    if let Some(err) = config.target.failure() {
        return Err(err);
    }
    let incomplete = bound.is_some();
    // Matching lines of a multiline search are not paged (see `options`):
    // an incomplete one hands out no cursor either, and its text says so.
    let next = match (page.next.clone(), &bound) {
        (Some(next), _) => Some((next, 0)),
        (None, Some(bound)) if !config.target.multiline_lines() => {
            Some((Key::Path { path: bound.clone(), line: 0 }, page.skip_left))
        }
        _ => None,
    };
    let cursor = next
        .map(|(start, skip)| Cursor { order, fingerprint: config.page.fingerprint, generation, start, skip }.encode());
    // Off an index there is no tree to have changed; a cursor made off one
    // (a walk on disk) records no tree to compare with, so it is continued
    // as a walk's cursor is, by the place it names.
    let index_changed = generation.is_some()
        && config.page.cursor.as_ref().is_some_and(|c| c.generation.is_some_and(|g| Some(g) != generation));
    let notice = match incomplete {
        true => None,
        false => notice(config, &root, &mut walked, match_count, first_rank, cancel)?,
    };
    let paged = config.page.cursor.is_some() || config.page.offset > 0;
    let mut outcome = SearchOutcome {
        path: config.source.display(&config.scope),
        items: page.items,
        match_count,
        file_count,
        truncated: page.next.is_some() || page.multiline_cut,
        notice: page_notices(notice, page.modified_since, index_changed, git_note),
        skipped: None,
        cursor,
        // Under a budget from a cursor, what came before is not counted.
        offset: (paged && from.is_none()).then_some(page.passed),
        incomplete,
        index_changed,
        spread: false,
        git_status: None,
    };
    finish(&mut outcome, config, &root, &walked.tally, &hits[page.before..], cancel)?;
    outcome.git_status = status.map(|changed| changed.porcelain_of(outcome.items.files()));
    Ok(outcome)
}

/// The caps on an answer's text: `skipped` carried when the answer is short
/// (empty, cut to a page, or more than the text's byte cap holds), then the
/// text cut to `maxTokens` (`hits` are the files from the page's first).
fn finish(
    outcome: &mut SearchOutcome,
    config: &SearchConfig,
    root: &Root,
    tally: &crate::result::Tally,
    hits: &[Hit],
    cancel: &Cancel,
) -> Result<()> {
    let short = || {
        let cap = config.max_text_bytes.map_or(render::MAX_BYTES, |b| b.min(render::MAX_BYTES));
        outcome.items.is_empty() || outcome.truncated || render::render(outcome).len() > cap
    };
    if !tally.is_empty() && config.skipped.carries(short) {
        outcome.skipped = Some(crate::skipped::groups(tally, root, &config.rules));
    }
    let Some(budget) = config.max_text_bytes else { return Ok(()) };
    let regex = match &config.target {
        Target::Content { regex, mode: OutputMode::Content, .. } if !regex.modes.multiline => Some(regex),
        _ => None,
    };
    budget::fit(outcome, hits, root, regex, config.context, config.max_results, budget, cancel)
}

/// What a complete answer says of itself: for an empty one, what was near
/// (`near_miss`) and where else to look (`elsewhere`); for a fuzzy one
/// whose best match is not the query's text, that the order is approximate.
fn notice(
    config: &SearchConfig,
    root: &Root,
    walked: &mut Walked<Hit>,
    match_count: u64,
    first_rank: Option<fuzzy::Rank>,
    cancel: &Cancel,
) -> Result<Option<String>> {
    Ok(match (match_count, &config.target) {
        (0, _) => {
            let near = near_miss::notice(config, root, cancel)?;
            let places = elsewhere::notice(config, root, &walked.skipped, std::mem::take(&mut walked.ignored), cancel)?;
            join_sentences(near, places)
        }
        (_, Target::Fuzzy { query }) => {
            first_rank.filter(|r| !r.is_literal()).map(|_| fuzzy::approximate_notice(query))
        }
        _ => None,
    })
}

/// `notice` with what the page itself says: files listed late because they
/// changed after the first page, the index's tree having changed since the
/// cursor (first), and git scoping's sentence (last).
fn page_notices(
    notice: Option<String>,
    modified_since: usize,
    index_changed: bool,
    git_note: Option<String>,
) -> Option<String> {
    let moved = (modified_since > 0).then(|| format!("{modified_since} of these files changed after the first page was made: they are listed after the others, oldest change first, so a file an earlier page showed may be listed again."));
    let changed = index_changed.then(|| "The indexed folder changed since the `cursor` was made: this page is of the files as they are now, so results may have moved between pages.".to_string());
    join_sentences(join_sentences(changed, join_sentences(notice, moved)), git_note)
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
