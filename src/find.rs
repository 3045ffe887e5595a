//! One `find` call from validated options to the answer: sandbox, walk,
//! filter, sort, cap, explain.

use crate::cancel::Cancel;
use crate::entry::{EntryKind, Found, Meta};
use crate::error::Result;
use crate::filter::Filters;
use crate::hint;
use crate::page::{paginate, Caps};
use crate::pattern::NameMatcher;
use crate::result::FindOutcome;
use crate::sandbox::{check_roots, open_search_dir};
use crate::sort::{sort_and_split, SortBy};
use crate::walk::{walk, WalkRules};
use ignore::DirEntry;
use std::path::{Path, PathBuf};

/// Above this many returned entries, metadata is read by the walker threads
/// in parallel rather than for the final page alone.
const STAT_IN_WALK_ABOVE: usize = 4096;

/// Everything a search needs, validated (see `options`).
#[derive(Debug, Clone)]
pub struct FindConfig {
    /// The pattern as the caller wrote it, for messages.
    pub pattern: String,
    pub matcher: NameMatcher,
    pub case_sensitive: bool,
    pub rules: WalkRules,
    pub filters: Filters,
    pub sort: SortBy,
    pub reverse: bool,
    pub caps: Caps,
    /// `cwd` + `path`, absolute and normalized: what the policy is asked about.
    pub logical_path: PathBuf,
    pub roots: Option<Vec<PathBuf>>,
    pub timeout_ms: Option<u64>,
    /// Fill `size`/`mtimeMs` of returned entries (false for `findFiles`).
    pub want_meta: bool,
}

/// Keeps the entries the pattern and filters accept; reads metadata only
/// when `stat` is set.
pub fn select<'a>(
    matcher: &'a NameMatcher,
    filters: &'a Filters,
    stat: bool,
) -> impl Fn(&Path, EntryKind, &DirEntry) -> Option<Found> + Sync + 'a {
    move |relative, kind, entry| {
        if !filters.kind.accepts(kind) || !matcher.is_match(relative) {
            return None;
        }
        let meta = if stat {
            let meta = Meta::from_fs(kind, &entry.metadata().ok()?);
            if !filters.accepts_meta(&meta) {
                return None;
            }
            Some(meta)
        } else {
            None
        };
        Some(Found { path: posix_string(relative), kind, meta })
    }
}

/// A relative path as the result shows it: `/` separators, lossy UTF-8.
pub fn posix_string(relative: &Path) -> String {
    let text = relative.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

pub fn run(config: &FindConfig, cancel: &Cancel) -> Result<FindOutcome> {
    cancel.check()?;
    if let Some(roots) = &config.roots {
        check_roots(&config.logical_path, roots)?;
    }
    let root = open_search_dir(&config.logical_path)?;
    let stat = config.filters.needs_meta()
        || config.sort.needs_meta()
        || (config.want_meta && config.caps.limit > STAT_IN_WALK_ABOVE);
    let mut found = walk(&root, &config.rules, cancel, select(&config.matcher, &config.filters, stat))?;
    let matched = found.len();
    let left_out = sort_and_split(&mut found, config.sort, config.reverse, config.caps.limit);
    if config.want_meta && !stat {
        fill_meta(&root, &mut found);
    }
    let path = config.logical_path.to_string_lossy().into_owned();
    let hint = if matched == 0 { hint::explain_no_match(config, &root, cancel)? } else { None };
    let page = paginate(&path, found, left_out, matched, config.caps);
    let mut outcome = FindOutcome {
        path,
        entries: page.entries,
        matched,
        truncated_by: page.truncated_by,
        notice: page.notice,
        hint,
        omitted: page.omitted,
    };
    if let (Some(max_bytes), true) = (config.caps.max_bytes, outcome.hint.is_some()) {
        if crate::render::render(&outcome).len() > max_bytes {
            outcome.hint = None;
        }
    }
    Ok(outcome)
}

/// Reads size and mtime for the returned page only. An entry that vanished
/// since the walk keeps zeros rather than being dropped from the count.
fn fill_meta(root: &Path, found: &mut [Found]) {
    for f in found.iter_mut() {
        if let Ok(md) = std::fs::symlink_metadata(root.join(&f.path)) {
            f.meta = Some(Meta::from_fs(f.kind, &md));
        }
    }
}
