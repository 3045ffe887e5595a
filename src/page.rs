//! Cutting sorted matches down to what the caller sees: first `limit`, then
//! the `maxBytes` cap on the rendered text (which always holds), saying which
//! cap hit and which folders hold most of what was left out.

use crate::collect::parent_dir;
use crate::entry::Found;
use crate::folder_counts::FolderCounts;
use crate::render;
use crate::result::{OmittedDir, Truncation};

/// The caps of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Already clamped to `max_limit`.
    pub limit: usize,
    /// `None` is `Infinity`.
    pub max_limit: Option<usize>,
    /// `None`: no text will be rendered (programmatic calls such as `findFiles`).
    /// The byte cap in force: `maxBytes`, or less when `maxTokens` asks for less.
    pub max_bytes: Option<usize>,
    /// `maxTokens`, when it is what sets `max_bytes`: a cut then says so.
    pub max_tokens: Option<usize>,
}

pub struct Page {
    pub entries: Vec<Found>,
    pub truncated_by: Option<Truncation>,
    pub notice: Option<String>,
    pub omitted: Vec<OmittedDir>,
}

pub use crate::limits::OMITTED_DIRS;

/// `kept` is the sorted first `limit` matches; `left_out` counts the rest by folder.
#[cfg(test)]
pub fn paginate(search_path: &str, kept: Vec<Found>, left_out: FolderCounts, matched: usize, caps: Caps) -> Page {
    paginate_leaving(search_path, kept, left_out, matched, caps, 0)
}

/// Whether the whole of `kept` fits `max_bytes` with its header (no cut).
pub fn fits(search_path: &str, kept: &[Found], max_bytes: usize) -> bool {
    let mut used = render::header(search_path).len();
    kept.iter().all(|found| {
        used += 1 + render::entry_len(found);
        used <= max_bytes
    })
}

/// `paginate`, leaving `reserve` bytes of the byte cap for a line the text
/// ends with when the answer is cut (the `skipped` line): a whole answer
/// that fits without it does not show it, so needs no room for it.
pub fn paginate_leaving(
    search_path: &str,
    mut kept: Vec<Found>,
    mut left_out: FolderCounts,
    matched: usize,
    caps: Caps,
    reserve: usize,
) -> Page {
    let mut truncated_by = match (matched <= kept.len(), caps.max_limit) {
        (true, _) => None,
        (false, Some(max)) if caps.limit >= max => Some(Truncation::Maximum),
        (false, _) => Some(Truncation::Limit),
    };
    let mut notice = truncated_by.map(|t| match t {
        Truncation::Maximum => render::maximum_notice(matched, caps.limit),
        _ => render::limit_notice(matched, caps.limit, caps.max_limit),
    });
    let mut omitted = left_out.grouped(OMITTED_DIRS);

    if let Some(max_bytes) = caps.max_bytes {
        let header = render::header(search_path).len();
        let mut prefix = Vec::with_capacity(kept.len() + 1);
        prefix.push(header);
        for found in &kept {
            prefix.push(prefix.last().copied().unwrap_or(0) + 1 + render::entry_len(found));
        }
        let trailer_len = |notice: &Option<String>, omitted: &[OmittedDir]| {
            reserve
                + notice.as_ref().map_or(0, |n| n.len() + 1)
                + render::omitted_line(omitted).map_or(0, |l| l.len() + 1)
        };
        let whole_fits = truncated_by.is_none() && prefix[kept.len()] <= max_bytes;
        if !whole_fits && prefix[kept.len()] + trailer_len(&notice, &omitted) > max_bytes {
            // Sized with `matched` for the count shown: no shorter than the final one.
            let cut_notice = |shown: usize| match caps.max_tokens {
                Some(tokens) => render::tokens_notice(tokens, shown, matched),
                None => render::bytes_notice(max_bytes),
            };
            let bytes_notice = Some(cut_notice(matched));
            let mut reserve = trailer_len(&bytes_notice, &[]);
            let mut cut_omitted = Vec::new();
            let mut keep = 0;
            // The omitted line depends on where the cut falls, so settle both.
            for _ in 0..8 {
                keep = prefix.iter().rposition(|&used| used + reserve <= max_bytes).unwrap_or(0);
                // Counted in for the grouping, then taken out again.
                for f in &kept[keep..] {
                    left_out.add(parent_dir(&f.path), 1);
                }
                cut_omitted = left_out.grouped(OMITTED_DIRS);
                for f in &kept[keep..] {
                    left_out.remove(parent_dir(&f.path), 1);
                }
                let needed = trailer_len(&bytes_notice, &cut_omitted);
                if prefix[keep] + needed <= max_bytes {
                    break;
                }
                reserve = needed;
                if keep == 0 {
                    cut_omitted.clear();
                    break;
                }
            }
            // When naming the left-out folders would leave no entry at all,
            // show entries instead of the folders.
            if keep == 0 {
                let without = prefix.iter().rposition(|&used| used + trailer_len(&bytes_notice, &[]) <= max_bytes);
                if let Some(more) = without.filter(|&k| k > 0) {
                    keep = more;
                    cut_omitted.clear();
                }
            }
            kept.truncate(keep);
            truncated_by = Some(Truncation::Bytes);
            notice = Some(cut_notice(keep));
            omitted = cut_omitted;
        }
    }
    Page { entries: kept, truncated_by, notice, omitted }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::EntryKind;

    fn dirs_of(paths: &[&str]) -> FolderCounts {
        let mut counts = FolderCounts::default();
        for p in paths {
            counts.add(parent_dir(p), 1);
        }
        counts
    }

    fn omitted_dirs(counts: &FolderCounts) -> Vec<OmittedDir> {
        counts.grouped(OMITTED_DIRS)
    }

    fn files(paths: &[&str]) -> Vec<Found> {
        paths.iter().map(|p| Found::new(p.to_string(), EntryKind::File, None)).collect()
    }

    fn caps(limit: usize, max_bytes: Option<usize>) -> Caps {
        Caps { limit, max_limit: Some(1000), max_bytes, max_tokens: None }
    }

    #[test]
    fn omitted_groups_below_the_common_folder() {
        let paths = ["src/a/1", "src/a/2", "src/b/3", "src/4"];
        let groups = omitted_dirs(&dirs_of(&paths));
        assert_eq!(
            groups,
            vec![
                OmittedDir { dir: "src/a".into(), count: 2 },
                OmittedDir { dir: "src".into(), count: 1 },
                OmittedDir { dir: "src/b".into(), count: 1 },
            ]
        );
        let top = omitted_dirs(&dirs_of(&["x", "lib/y", "lib/z/w"]));
        assert_eq!(top[0], OmittedDir { dir: "lib".into(), count: 2 });
        assert_eq!(top[1], OmittedDir { dir: ".".into(), count: 1 });
        assert!(omitted_dirs(&FolderCounts::default()).is_empty());
    }

    #[test]
    fn omitted_names_at_most_five() {
        let paths: Vec<String> = (0..9).map(|i| format!("d{i}/f")).collect();
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        assert_eq!(omitted_dirs(&dirs_of(&refs)).len(), OMITTED_DIRS);
    }

    #[test]
    fn limit_and_maximum() {
        let p = paginate("/w", files(&["a"]), dirs_of(&["b", "c"]), 3, caps(1, None));
        assert_eq!(p.truncated_by, Some(Truncation::Limit));
        assert_eq!(p.notice.unwrap(), render::limit_notice(3, 1, Some(1000)));
        let p = paginate(
            "/w",
            files(&["a"]),
            dirs_of(&["b"]),
            2,
            Caps { limit: 1, max_limit: Some(1), max_bytes: None, max_tokens: None },
        );
        assert_eq!(p.truncated_by, Some(Truncation::Maximum));
        let p = paginate("/w", files(&["a"]), FolderCounts::default(), 1, caps(1, Some(10_000)));
        assert_eq!(p.truncated_by, None);
        assert!(p.notice.is_none() && p.omitted.is_empty());
    }

    #[test]
    fn byte_cap_always_holds() {
        let names: Vec<String> = (0..500).map(|i| format!("dir{}/file-{i:04}.txt", i % 7)).collect();
        let all = files(&names.iter().map(String::as_str).collect::<Vec<_>>());
        for max in [150, 300, 1000, 4000] {
            let p = paginate("/workspace", all.clone(), FolderCounts::default(), 500, caps(1000, Some(max)));
            assert_eq!(p.truncated_by, Some(Truncation::Bytes));
            let outcome = crate::result::FindOutcome {
                path: "/workspace".into(),
                entries: p.entries,
                matched: 500,
                truncated_by: p.truncated_by,
                notice: p.notice,
                hint: None,
                omitted: p.omitted,
                skipped: None,
                git_status: None,
            };
            let text = render::render(&outcome);
            assert!(text.len() <= max, "{} > {max}", text.len());
            assert!(!outcome.entries.is_empty(), "cap {max} left no entry");
            assert!(text.len() + 40 > max, "cap {max} wasted: {}", text.len());
            assert!(text.contains(&render::bytes_notice(max)));
        }
    }

    #[test]
    fn byte_cap_holds_with_the_skipped_line() {
        use crate::result::{SkipReason, SkippedFolder, SkippedGroup};
        let names: Vec<String> = (0..500).map(|i| format!("dir{}/file-{i:04}.txt", i % 7)).collect();
        let all = files(&names.iter().map(String::as_str).collect::<Vec<_>>());
        let folder = |path: &str| SkippedFolder { path: path.into(), rule: Some(format!(".gitignore:1: {path}/")) };
        let skipped = vec![
            SkippedGroup {
                reason: SkipReason::Ignored,
                count: 40,
                folders: vec![folder("node_modules"), folder("dist")],
            },
            SkippedGroup { reason: SkipReason::Binary, count: 3, folders: vec![] },
        ];
        let line = render::skipped_line(&skipped).unwrap();
        assert_eq!(
            line,
            "Not searched: node_modules/ (.gitignore:1: node_modules/), dist/ (.gitignore:1: dist/), 38 more ignored entries, 3 binary files."
        );
        for max in [300, 1000, 4000] {
            let p = paginate_leaving(
                "/workspace",
                all.clone(),
                FolderCounts::default(),
                500,
                caps(1000, Some(max)),
                line.len() + 1,
            );
            let outcome = crate::result::FindOutcome {
                path: "/workspace".into(),
                entries: p.entries,
                matched: 500,
                truncated_by: p.truncated_by,
                notice: p.notice,
                hint: None,
                omitted: p.omitted,
                skipped: Some(skipped.clone()),
                git_status: None,
            };
            let text = render::render(&outcome);
            assert!(text.len() <= max, "{} > {max}", text.len());
            assert!(text.ends_with(&line), "{text}");
        }
        // An answer neither empty nor cut does not show it.
        let p =
            paginate_leaving("/w", files(&["a"]), FolderCounts::default(), 1, caps(10, Some(10_000)), line.len() + 1);
        let whole = crate::result::FindOutcome {
            path: "/w".into(),
            entries: p.entries,
            matched: 1,
            truncated_by: p.truncated_by,
            notice: p.notice,
            hint: None,
            omitted: p.omitted,
            skipped: Some(skipped),
            git_status: None,
        };
        assert_eq!(render::render(&whole), "Search directory: /w\na");
        // Nor is it cut to make room for the line: it fits as it is.
        let exact = "Search directory: /w\na".len();
        let p =
            paginate_leaving("/w", files(&["a"]), FolderCounts::default(), 1, caps(10, Some(exact)), line.len() + 1);
        assert_eq!((p.entries.len(), p.truncated_by), (1, None));
        assert!(fits("/w", &files(&["a"]), exact) && !fits("/w", &files(&["a"]), exact - 1));
    }
}
