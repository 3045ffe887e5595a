//! One page of a `searchFiles` answer: the matched files put in the
//! answer's order (by rank, newest first, or by path), the items before the
//! cursor and `offset` passed over (counted, and for lines, unread), at most
//! `maxResults` shown (files, counts, or matching lines, read again for
//! their text), and where the next page starts.

use super::content::{context_searcher, new_searcher, scan_contents, FileScan, Scan};
use super::cursor::{newest_cmp, Key, Order};
use super::fuzzy;
use super::matcher::ContentMatcher;
use super::select::Hit;
use super::{Context, LineMatch, OutputMode, SearchConfig, SearchItems, Target};
use crate::cancel::Cancel;
use crate::error::Result;
use crate::source::{Contents, Root};
use grep_searcher::Searcher;
use std::path::Path;

/// Puts `hits` in the answer's `order`: by rank (only as far as a page of
/// this call can reach; the rest are only counted), newest first (files
/// modified after `since` last, see `cursor::newest_cmp`), or by path.
pub(super) fn sort(config: &SearchConfig, order: Order, hits: &mut [Hit], since: f64) {
    match order {
        Order::Rank => {
            let reach = rank_reach(config);
            if let Target::Fuzzy { query } = &config.target {
                score_subsequences(query, hits, reach);
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
        Order::Newest => hits.sort_unstable_by(|a, b| newest_cmp((a.mtime_ms, &a.path), (b.mtime_ms, &b.path), since)),
        Order::Path => hits.sort_unstable_by(|a, b| a.path.cmp(&b.path)),
    }
}

/// The page a call asked for of the answer `hits` (sorted).
pub(super) struct SearchPage {
    pub items: SearchItems,
    /// Items of the whole answer before the first one shown.
    pub passed: u64,
    /// Where the next page starts, when more items follow this page.
    pub next: Option<Key>,
    /// What is left of `offset` once the items were all passed over.
    pub skip_left: u64,
    /// A multiline content answer had more than `maxResults` runs (it has no pages).
    pub multiline_cut: bool,
    /// Files shown that were modified after the first page was made.
    pub modified_since: usize,
    /// How many of `hits` come before the page's first file.
    pub before: usize,
}

/// The page `config` asks for of `hits`, in `order` (`since` as `sort` took it).
pub(super) fn page(
    config: &SearchConfig,
    root: &Root,
    hits: &[Hit],
    order: Order,
    since: f64,
    cancel: &Cancel,
) -> Result<SearchPage> {
    // The key of the item at `at` in the answer.
    let key = |at: usize, h: &Hit| match order {
        Order::Path => Key::Path { path: h.path.clone(), line: 0 },
        Order::Newest => Key::Newest { mtime_ms: h.mtime_ms, path: h.path.clone(), since },
        Order::Rank => Key::Rank { at: at as u64 },
    };
    let start = config.page.cursor.as_ref().map(|c| c.start.clone());
    let skip = config.page.offset.saturating_add(config.page.cursor.as_ref().map_or(0, |c| c.skip));
    let line_items = matches!(config.target, Target::Content { mode: OutputMode::Content, .. });
    // Files before the cursor's: in content mode the cursor's own file
    // stays, its lines are cut below.
    let before = match &start {
        Some(Key::Path { path, .. }) if line_items => hits.partition_point(|h| h.path < *path),
        Some(Key::Rank { at }) => usize::try_from(*at).unwrap_or(usize::MAX).min(hits.len()),
        Some(start) => hits.partition_point(|h| key(0, h).cmp_to(start).is_lt()),
        None => 0,
    };
    // Items are lines in content mode, files otherwise.
    let passed: u64 = if line_items { hits[..before].iter().map(|h| h.count).sum() } else { before as u64 };
    let hits = &hits[before..];
    let max = config.max_results;
    let mut window = Window { passed, ..Window::default() };
    let mut multiline_cut = false;
    let mut modified_since = 0;
    let items = match &config.target {
        Target::Files { .. } | Target::Fuzzy { .. } | Target::Content { mode: OutputMode::Files, .. } => {
            let shown = window.window(hits, before, skip, max, &key);
            if order == Order::Newest && config.page.cursor.is_some() {
                modified_since = shown.iter().filter(|h| h.mtime_ms.total_cmp(&since).is_gt()).count();
            }
            SearchItems::Files(shown.iter().map(|h| h.path.clone()).collect())
        }
        Target::Content { mode: OutputMode::Count, .. } => {
            let shown = window.window(hits, before, skip, max, &key);
            SearchItems::Counts(shown.iter().map(|h| (h.path.clone(), h.count)).collect())
        }
        Target::Content { regex, mode: OutputMode::Content, .. } if regex.modes.multiline => {
            // A run of matches is one item, so counts cannot place a page
            // (`offset` and `cursor` are refused): one more is sought.
            let mut matches = Window::default().lines(root, regex, hits, 0, 0, max + 1, config.context, cancel)?;
            multiline_cut = matches.len() > max;
            matches.truncate(max);
            SearchItems::Matches(matches)
        }
        Target::Content { regex, mode: OutputMode::Content, .. } => {
            let from_line = match &start {
                Some(Key::Path { path, line }) if hits.first().is_some_and(|h| h.path == *path) => *line,
                _ => 0,
            };
            SearchItems::Matches(window.lines(root, regex, hits, from_line, skip, max, config.context, cancel)?)
        }
    };
    let Window { passed, next, skip_left } = window;
    Ok(SearchPage { items, passed, next, skip_left, multiline_cut, modified_since, before })
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

/// What a page showed of the items after the cursor.
#[derive(Default)]
struct Window {
    /// Items of the whole answer before the first one shown.
    passed: u64,
    /// Where the next page starts, when more items follow this page.
    next: Option<Key>,
    /// What is left of `offset` once the items were all passed over.
    skip_left: u64,
}

impl Window {
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
            out.extend(lines);
            if out.len() >= max && left > 0 {
                self.next = out.last().map(|m| Key::Path { path: m.file.clone(), line: m.line }.after());
                return Ok(out);
            }
        }
        self.skip_left = skip;
        Ok(out)
    }
}

/// A searcher for matching lines, with `context` lines around them.
pub(super) fn lines_searcher(context: Context, max: usize) -> Searcher {
    match context {
        Context { before: 0, after: 0 } => new_searcher(Scan::Lines(max)),
        Context { before, after } => context_searcher(before, after),
    }
}

/// What `scan` asks of a file that matched, read again (for the text of
/// its lines: the walk only counted).
pub(super) fn reread(
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
