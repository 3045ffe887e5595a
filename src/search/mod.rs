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
pub mod render;

use crate::cancel::Cancel;
use crate::content_sketch::{RuledOut, Sketcher, MAX_SKETCHED_FILE_BYTES};
use crate::entry::EntryKind;
use crate::error::{FindError, Result};
use crate::git_scope;
use crate::git_status::GitAsk;
use crate::pattern::NameMatcher;
use crate::sandbox::Scope;
use crate::skipped::SkippedReport;
use crate::source::{walk_screened, Backend, Contents, Root, Source};
use crate::walk::{posix_string, Entry, SkipReason, WalkRules, Walked};
pub use content::ContextLine;
use content::{
    binary_searcher, context_searcher, new_searcher, scan_contents, scan_file, scan_read, FileScan, LineHit, Scan,
};
use cursor::{Budget, Cursor, Key, Order, Paging};
use grep_searcher::Searcher;
use matcher::ContentMatcher;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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
}

impl SearchConfig {
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
    pub skipped: Option<Vec<crate::walk::SkippedGroup>>,
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
    cancel.check()?;
    let root = config.source.open(&config.scope, cancel)?;
    let scoped;
    let git = git_scope::apply(&config.git, &root, config.scope.roots.as_deref(), &config.rules, cancel)?;
    let config = match git.rules {
        Some(rules) => {
            scoped = SearchConfig { rules, ..config.clone() };
            &scoped
        }
        None => config,
    };
    // Read before the walk: a tree that changes during it counts as changed.
    let generation = match &root.backend {
        Backend::Index(index, _) => {
            let (id, generation) = index.generation();
            Some(cursor::tree_version(id, generation))
        }
        _ => None,
    };
    // Under a budget, files before the cursor's are not searched: the time
    // goes to the page asked for (and counts start at the cursor's file).
    let from = match (&budget, &config.page.cursor) {
        (Some(_), Some(Cursor { start: Key::Path { path, .. }, .. })) => Some(path.as_str()),
        _ => None,
    };
    let wanted = |relative: &Path| from.is_none_or(|from| posix_string(relative).as_str() >= from);
    let walked = gather(config, &root, &config.rules, cancel, &wanted, &|_| {}, budget.as_ref())?;
    let mut hits = walked.found;
    let order = config.order();
    // Newest first: the newest time of the first page's answer, which its
    // cursors carry on (see `cursor::newest_cmp`).
    let since = match &config.page.cursor {
        Some(Cursor { start: Key::Newest { since, .. }, .. }) => *since,
        _ => hits.iter().map(|h| h.mtime_ms).fold(f64::NEG_INFINITY, f64::max),
    };
    match order {
        Order::Rank => {
            let reach = rank_reach(config);
            if let Target::Fuzzy { query } = &config.target {
                score_subsequences(query, &mut hits, reach);
            }
            // Only the items a page can reach need their order (one more
            // tells whether more follow); the rest are only counted.
            let by_rank = |a: &Hit, b: &Hit| a.rank.cmp(&b.rank).then_with(|| a.path.cmp(&b.path));
            let reach = reach.saturating_add(1);
            if reach < hits.len() {
                hits.select_nth_unstable_by(reach, by_rank);
                hits[..reach].sort_unstable_by(by_rank);
            } else {
                hits.sort_unstable_by(by_rank);
            }
        }
        Order::Newest => {
            hits.sort_unstable_by(|a, b| cursor::newest_cmp((a.mtime_ms, &a.path), (b.mtime_ms, &b.path), since))
        }
        Order::Path => hits.sort_unstable_by(|a, b| a.path.cmp(&b.path)),
    }
    let first_rank = hits.first().and_then(|h| h.rank);
    let lines = matches!(config.target, Target::Content { mode: OutputMode::Content | OutputMode::Count, .. });
    let match_count: u64 = if lines { hits.iter().map(|h| h.count).sum() } else { hits.len() as u64 };
    let file_count = hits.len() as u64;
    // The answer covers the files before the first one left unsearched.
    let bound = budget.as_ref().and_then(Budget::first_unsearched);
    if let Some(bound) = &bound {
        hits.retain(|h| h.path < *bound);
    }
    // The key of the item at `at` in the answer.
    let key = |at: usize, h: &Hit| match order {
        Order::Path => Key::Path { path: h.path.clone(), line: 0 },
        Order::Newest => Key::Newest { mtime_ms: h.mtime_ms, path: h.path.clone(), since },
        Order::Rank => Key::Rank { at: at as u64 },
    };
    let start = config.page.cursor.as_ref().map(|c| c.start.clone());
    let skip = config.page.offset.saturating_add(config.page.cursor.as_ref().map_or(0, |c| c.skip));
    // Files before the cursor's: in content mode the cursor's own file
    // stays, its lines are cut below.
    let before = match (&start, &config.target) {
        (Some(Key::Path { path, .. }), Target::Content { mode: OutputMode::Content, .. }) => {
            hits.partition_point(|h| h.path < *path)
        }
        (Some(Key::Rank { at }), _) => usize::try_from(*at).unwrap_or(usize::MAX).min(hits.len()),
        (Some(start), _) => hits.partition_point(|h| key(0, h).cmp_to(start).is_lt()),
        (None, _) => 0,
    };
    // Items are lines in content mode, files otherwise.
    let line_items = matches!(config.target, Target::Content { mode: OutputMode::Content, .. });
    let passed: u64 = if line_items { hits[..before].iter().map(|h| h.count).sum() } else { before as u64 };
    let hits = &hits[before..];
    let max = config.max_results;
    let mut page = Page { passed, ..Page::default() };
    let mut multiline_cut = false;
    // Files shown that were modified after the first page was made.
    let mut modified_since = 0;
    let items = match &config.target {
        Target::Files { .. } | Target::Fuzzy { .. } | Target::Content { mode: OutputMode::Files, .. } => {
            let shown = page.window(hits, before, skip, max, &key);
            if order == Order::Newest && config.page.cursor.is_some() {
                modified_since = shown.iter().filter(|h| h.mtime_ms.total_cmp(&since).is_gt()).count();
            }
            SearchItems::Files(shown.iter().map(|h| h.path.clone()).collect())
        }
        Target::Content { mode: OutputMode::Count, .. } => {
            let shown = page.window(hits, before, skip, max, &key);
            SearchItems::Counts(shown.iter().map(|h| (h.path.clone(), h.count)).collect())
        }
        Target::Content { regex, mode: OutputMode::Content, .. } if regex.modes.multiline => {
            // A run of matches is one item, so counts cannot place a page
            // (`offset` and `cursor` are refused): one more is sought.
            let mut matches = Page::default().lines(&root, regex, hits, 0, 0, max + 1, config.context, cancel)?;
            multiline_cut = matches.len() > max;
            matches.truncate(max);
            SearchItems::Matches(matches)
        }
        Target::Content { regex, mode: OutputMode::Content, .. } => {
            let from_line = match &start {
                Some(Key::Path { path, line }) if hits.first().is_some_and(|h| h.path == *path) => *line,
                _ => 0,
            };
            let matches = page.lines(&root, regex, hits, from_line, skip, max, config.context, cancel)?;
            SearchItems::Matches(matches)
        }
    };
    if let Some(err) = match &config.target {
        Target::Content { regex, .. } => regex.failure(),
        Target::Files { .. } | Target::Fuzzy { .. } => None,
    } {
        return Err(err);
    }
    let incomplete = bound.is_some();
    let truncated = page.next.is_some() || multiline_cut;
    // Matching lines of a multiline search are not paged (see `options`):
    // an incomplete one hands out no cursor either, and its text says so.
    let paged_lines =
        !matches!(&config.target, Target::Content { regex, mode: OutputMode::Content, .. } if regex.modes.multiline);
    let next = match (page.next, &bound) {
        (Some(next), _) => Some((next, 0)),
        (None, Some(bound)) if paged_lines => Some((Key::Path { path: bound.clone(), line: 0 }, page.skip_left)),
        _ => None,
    };
    let cursor = next
        .map(|(start, skip)| Cursor { order, fingerprint: config.page.fingerprint, generation, start, skip }.encode());
    // Off an index there is no tree to have changed; a cursor made off one
    // (a walk on disk) records no tree to compare with, so it is continued
    // as a walk's cursor is, by the place it names.
    let index_changed = generation.is_some()
        && config.page.cursor.as_ref().is_some_and(|c| c.generation.is_some_and(|g| Some(g) != generation));
    let mut notice = match (match_count, &config.target) {
        (_, _) if incomplete => None,
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
    if modified_since > 0 {
        let moved = format!("{modified_since} of these files changed after the first page was made: they are listed after the others, oldest change first, so a file an earlier page showed may be listed again.");
        notice = Some(match notice {
            Some(n) => format!("{n} {moved}"),
            None => moved,
        });
    }
    if index_changed {
        let changed = "The indexed folder changed since the `cursor` was made: this page is of the files as they are now, so results may have moved between pages.";
        notice = Some(match notice {
            Some(n) => format!("{changed} {n}"),
            None => changed.to_string(),
        });
    }
    if let Some(note) = git.note {
        notice = Some(match notice {
            Some(n) => format!("{n} {note}"),
            None => note,
        });
    }
    let paged = config.page.cursor.is_some() || config.page.offset > 0;
    let mut outcome = SearchOutcome {
        path: config.source.display(&config.scope),
        items,
        match_count,
        file_count,
        truncated,
        notice,
        skipped: None,
        cursor,
        // Under a budget from a cursor, what came before is not counted.
        offset: (paged && from.is_none()).then_some(page.passed),
        incomplete,
        index_changed,
        spread: false,
        git_status: None,
    };
    // Short: empty, cut to a page, or more than the text's byte cap holds.
    let short = || {
        let cap = config.max_text_bytes.map_or(render::MAX_BYTES, |b| b.min(render::MAX_BYTES));
        outcome.items.is_empty() || outcome.truncated || render::render(&outcome).len() > cap
    };
    if !walked.tally.is_empty() && config.skipped.carries(short) {
        outcome.skipped = Some(crate::skipped::groups(&walked.tally, &root, &config.rules));
    }
    if let Some(budget) = config.max_text_bytes {
        let regex = match &config.target {
            Target::Content { regex, mode: OutputMode::Content, .. } if !regex.modes.multiline => Some(regex),
            _ => None,
        };
        budget::fit(&mut outcome, hits, &root, regex, config.context, max, budget, cancel)?;
    }
    outcome.git_status = git.status.map(|changed| changed.porcelain_of(outcome.items.files()));
    Ok(outcome)
}

/// How many items, in rank order, a page of this call may show or pass
/// over: those before the cursor, `offset`, then `maxResults`.
fn rank_reach(config: &SearchConfig) -> usize {
    let start = match config.page.cursor.as_ref().map(|c| &c.start) {
        Some(Key::Rank { at }) => usize::try_from(*at).unwrap_or(usize::MAX),
        _ => 0,
    };
    let skip = config.page.offset.saturating_add(config.page.cursor.as_ref().map_or(0, |c| c.skip));
    start.saturating_add(usize::try_from(skip).unwrap_or(usize::MAX)).saturating_add(config.max_results)
}

/// Scores the fuzzy matches of the last class (the query's letters in
/// order: nucleo's score orders them), which the walk only told apart, when
/// the page reaches that class: most pages of a common query end before it.
fn score_subsequences(query: &fuzzy::FuzzyQuery, hits: &mut [Hit], reach: usize) {
    let before = hits.iter().filter(|h| h.rank.is_some_and(|r| !r.is_subsequence())).count();
    if before >= reach {
        return;
    }
    // On every thread, as the walk would have scored them.
    let chunk = hits.len().div_ceil(crate::walk::thread_count()).max(1024);
    std::thread::scope(|scope| {
        let threads: Vec<_> = hits
            .chunks_mut(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut scorer = query.scorer();
                    for hit in part {
                        if let Some(rank) = hit.rank.filter(fuzzy::Rank::unscored) {
                            hit.rank = Some(scorer.score(&hit.path, rank));
                        }
                    }
                })
            })
            .collect();
        // A panic in nucleo leaves its part unscored (still in a fixed
        // order), rather than unwinding into the caller.
        for thread in threads {
            let _ = thread.join();
        }
    });
}

/// What one page showed of the items after the cursor.
#[derive(Default)]
struct Page {
    /// Items of the whole answer before the first one shown.
    passed: u64,
    /// Where the next page starts, when more items follow this page.
    next: Option<Key>,
    /// What is left of `offset` once the items were all passed over.
    skip_left: u64,
}

impl Page {
    /// A page of whole files: `skip` passed over, then at most `max`;
    /// `hits` start at `base` in the answer.
    fn window<'h>(
        &mut self,
        hits: &'h [Hit],
        base: usize,
        skip: u64,
        max: usize,
        key: &dyn Fn(usize, &Hit) -> Key,
    ) -> &'h [Hit] {
        let from = usize::try_from(skip).unwrap_or(usize::MAX).min(hits.len());
        self.skip_left = skip - from as u64;
        self.passed += from as u64;
        let shown = &hits[from..hits.len().min(from.saturating_add(max))];
        if from + shown.len() < hits.len() {
            self.next = shown.last().map(|h| key(base + from + shown.len() - 1, h).after());
        }
        shown
    }

    /// A page of matching lines: from line `from_line` of the first file
    /// (the cursor's), `skip` lines passed over, then at most `max`, each
    /// with its `context` lines. The walk only counted, so only the files
    /// that hold them are read again, for their text.
    #[allow(clippy::too_many_arguments)]
    fn lines(
        &mut self,
        root: &Root,
        regex: &ContentMatcher,
        hits: &[Hit],
        from_line: u64,
        mut skip: u64,
        max: usize,
        context: Context,
        cancel: &Cancel,
    ) -> Result<Vec<LineMatch>> {
        let mut searcher = lines_searcher(context, max);
        let mut out = Vec::with_capacity(max.min(1024));
        for (i, hit) in hits.iter().enumerate() {
            let from_line = if i == 0 { from_line } else { 0 };
            if out.len() >= max {
                // Every file after the cursor's holds a matching line.
                self.next = out.last().map(|m: &LineMatch| Key::Path { path: m.file.clone(), line: m.line }.after());
                break;
            }
            if from_line == 0 && skip >= hit.count {
                // Passed over whole, unread.
                skip -= hit.count;
                self.passed += hit.count;
                continue;
            }
            cancel.check()?;
            let n = max - out.len();
            // A page that starts at a file's first line takes its first lines.
            let scan = match (from_line, skip) {
                (0, 0) => Scan::Lines(n),
                _ => Scan::Window { from_line, skip, n },
            };
            let FileScan { lines, count, window, .. } = reread(root, hit, &mut searcher, regex, scan, cancel)?;
            let window = if let Scan::Lines(_) = scan { count } else { window };
            // Lines before `from_line` were on earlier pages; `skip` passes over more.
            let skipped = skip.min(window);
            self.passed += count.saturating_sub(window) + skipped;
            skip -= skipped;
            let left = window - skipped - (lines.len() as u64).min(window - skipped);
            out.extend(lines.into_iter().map(|line| line_match(&hit.path, line)));
            if out.len() >= max && left > 0 {
                self.next = out.last().map(|m| Key::Path { path: m.file.clone(), line: m.line }.after());
                return Ok(out);
            }
        }
        self.skip_left = skip;
        Ok(out)
    }
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
    budget: Option<&Budget>,
) -> Result<Walked<Hit>> {
    let newest_first = config.order() == Order::Newest;
    let reads_in_walk = root.opens_in_walk();
    // Past the budget, a file is noted as unsearched rather than read.
    let spent = |relative: &Path| budget.is_some_and(|b| b.spent_on(relative));
    let scan = match &config.target {
        Target::Content { mode: OutputMode::Files, .. } => Scan::Any,
        Target::Content { mode: OutputMode::Count, .. } => Scan::Totals,
        _ => Scan::Count,
    };
    let screen = match &config.target {
        Target::Content { regex, .. } => regex.prefilter(),
        Target::Files { .. } | Target::Fuzzy { .. } => None,
    };
    let searcher_for = |scan| if config.search_binary { binary_searcher() } else { new_searcher(scan) };
    // Files the search itself left out, by reason (binary, denied, too large), for `skipped`.
    let left_out_counts: [AtomicU64; SkipReason::ALL.len()] = Default::default();
    let left_out = &left_out_counts;
    let note = |found: FileScan| {
        if let Some(reason) = found.left_out {
            left_out[reason as usize].fetch_add(1, Ordering::Relaxed);
        }
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
                    if let Some(out) = known.as_ref().and_then(|known| regex.rules_out(known.sketch)) {
                        // Counted as binary as the search it saves would have counted it.
                        if out == RuledOut::Binary {
                            left_out[SkipReason::Binary as usize].fetch_add(1, Ordering::Relaxed);
                        }
                        return None;
                    }
                    if reads_in_walk && spent(relative) {
                        return None;
                    }
                    if let Some(contents) = known.as_ref().and_then(|known| known.contents) {
                        note(scan_read(&mut searcher, regex, contents, scan, relative, cancel)?)
                    } else {
                        match entry.open() {
                            // Refused but empty: nothing is missed, and an index,
                            // which opens no empty file, would not count it either.
                            Some(Err(e))
                                if e.kind() == std::io::ErrorKind::PermissionDenied
                                    && entry.size_unopened() == Some(0) =>
                            {
                                return None
                            }
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
    if let (Target::Content { regex, .. }, false) = (&config.target, reads_in_walk) {
        // The walk only listed these: their contents come now (under a
        // budget, in path order, so what is read in time is a start).
        let mut searcher = searcher_for(scan);
        let mut kept = Vec::new();
        let mut listed = std::mem::take(&mut walked.found);
        // Under a budget: in path order, and what each is, to note those left.
        let names: Vec<(String, PathBuf)> = match budget {
            Some(_) => {
                listed.sort_unstable_by(|a, b| a.path.cmp(&b.path));
                listed.iter().map(|h| (h.path.clone(), h.relative.clone())).collect()
            }
            None => Vec::new(),
        };
        let mut done = vec![false; names.len()];
        let mut out_of_time = false;
        let read = root.read_each(
            listed.into_iter().enumerate().collect(),
            |(_, hit)| &hit.relative,
            cancel,
            |(i, mut hit), contents| {
                if budget.is_some_and(Budget::spent) {
                    out_of_time = true;
                    return Err(FindError::aborted());
                }
                if let Some(done) = done.get_mut(i) {
                    *done = true;
                }
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
        );
        match read {
            // The budget's own stop; an abort by the caller still fails.
            Err(_) if out_of_time && cancel.check().is_ok() => {}
            read => read?,
        }
        if let (Some(budget), true) = (budget, out_of_time) {
            for ((path, relative), _) in names.into_iter().zip(done).filter(|(_, done)| !done) {
                budget.unsearched(path, relative);
            }
        }
        walked.found = kept;
    }
    if let (Some(budget), Target::Content { regex, .. }) = (budget, &config.target) {
        // However slow the walk, a call searches at least the first file
        // left, so a later call from its cursor always gets further.
        if let Some((path, relative)) = budget.take_first() {
            let contents = root.read_one(&relative, cancel)?;
            let failure = contents.as_ref().and_then(Contents::failure);
            let found =
                contents.and_then(|c| scan_contents(&mut searcher_for(scan), regex, c, scan, Path::new(&path), cancel));
            if let Some(failure) = failure {
                failure.check()?;
            }
            let count = found.map_or(0, note);
            if count > 0 {
                on_match(&relative);
                walked.found.push(Hit { path, relative, count, mtime_ms: 0.0, rank: None });
            }
        }
    }
    if rules.tally {
        for reason in SkipReason::ALL {
            walked.tally.add(reason, left_out[reason as usize].load(Ordering::Relaxed));
        }
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
        let ruled_out = regex.rules_out(&sketch);
        // Kept only when read as long as the index says the file is: one
        // written to meanwhile is read again once its event comes.
        let keep = entry.wants_contents() && entry.known_size() == Some(self.contents.len() as u64);
        entry.remember(sketch, keep.then(|| self.contents.as_slice().into()));
        match ruled_out {
            // Not searched, but counted as the search would have counted it.
            Some(RuledOut::Binary) => return FileScan::left_out(SkipReason::Binary),
            Some(RuledOut::Text) => return None,
            None => {}
        }
        scan_read(searcher, regex, &self.contents, scan, relative, cancel)
    }
}

/// A searcher for matching lines, with `context` lines around them.
fn lines_searcher(context: Context, max: usize) -> Searcher {
    match context {
        Context { before: 0, after: 0 } => new_searcher(Scan::Lines(max)),
        Context { before, after } => context_searcher(before, after),
    }
}

/// What `scan` asks of a file that matched, read again (for the text of
/// its lines: the walk only counted).
fn reread(
    root: &Root,
    hit: &Hit,
    searcher: &mut Searcher,
    regex: &ContentMatcher,
    scan: Scan,
    cancel: &Cancel,
) -> Result<FileScan> {
    let contents = root.read_one(&hit.relative, cancel)?;
    let failure = contents.as_ref().and_then(Contents::failure);
    let found = contents.and_then(|c| scan_contents(searcher, regex, c, scan, Path::new(&hit.path), cancel));
    if let Some(failure) = failure {
        failure.check()?;
    }
    Ok(found.unwrap_or_default())
}

/// A file's matching line as results carry it.
fn line_match(file: &str, hit: LineHit) -> LineMatch {
    let LineHit { line, text, patterns, column, before, after } = hit;
    LineMatch { file: file.to_string(), line, text, patterns, column, before, after }
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
