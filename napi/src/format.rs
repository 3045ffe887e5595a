//! What the formatters (`formatFindResult`, `formatSearchResult`) render: a
//! result as JS hands it back, turned into the core's outcome, so that the
//! core renders the text a model reads.

use crate::results::{JsContextLine, JsFindResult, JsSearchResult, JsSkippedGroup};
use agent_find_core::{
    default_notice, ContextLine, EntryKind, FindOutcome, Found, LineMatch, Meta, OmittedDir, SearchItems,
    SearchOutcome, SkipReason, SkippedFolder, SkippedGroup, Truncation,
};

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

fn rust_context(lines: Option<Vec<JsContextLine>>) -> Vec<ContextLine> {
    lines.unwrap_or_default().into_iter().map(|c| ContextLine { line: c.line.max(0.0) as u64, text: c.text }).collect()
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
