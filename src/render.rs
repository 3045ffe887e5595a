//! The text a model reads (`formatFindResult`), and the exact sentences
//! docs/API.md quotes. `page` uses the same line functions to fit the byte cap.

use crate::entry::{EntryKind, Found};
use crate::result::{FindOutcome, OmittedDir};
use crate::result::{SkipReason, SkippedGroup};

pub const NO_MATCH: &str = "No files matched.";

pub fn header(path: &str) -> String {
    format!("Search directory: {path}")
}

/// Marks a line whose name is not valid UTF-8 (shown lossily).
pub const NOT_UTF8: &str = " [name is not valid UTF-8]";

/// Bytes of an entry's line, without its newline: directories end with `/`.
pub fn entry_len(found: &Found) -> usize {
    found.path.len() + usize::from(found.kind == EntryKind::Dir) + if found.raw.is_some() { NOT_UTF8.len() } else { 0 }
}

fn push_entry(out: &mut String, found: &Found) {
    out.push_str(&found.path);
    if found.kind == EntryKind::Dir {
        out.push('/');
    }
    if found.raw.is_some() {
        out.push_str(NOT_UTF8);
    }
}

pub fn limit_notice(matched: usize, limit: usize, max_limit: Option<usize>) -> String {
    match max_limit {
        Some(max) => {
            format!("{matched} files matched; returned first {limit}. Refine the pattern or raise `limit` (max {max}).")
        }
        None => format!("{matched} files matched; returned first {limit}. Refine the pattern or raise `limit`."),
    }
}

pub fn maximum_notice(matched: usize, limit: usize) -> String {
    format!("{matched} files matched; returned first {limit} (maximum). Refine the pattern or narrow `path`.")
}

pub fn bytes_notice(max_bytes: usize) -> String {
    format!("Output truncated at {max_bytes} bytes; refine the pattern or narrow `path`.")
}

/// The cut notice when `maxTokens` set the byte cap: what was shown of what.
pub fn tokens_notice(max_tokens: usize, shown: usize, matched: usize) -> String {
    format!(
        "Output cut to maxTokens ({max_tokens} tokens, counted as {} bytes each): showing {shown} of {matched} matches; refine the pattern, narrow `path` or raise `maxTokens`.",
        crate::limits::BYTES_PER_TOKEN
    )
}

/// The notice for a result that says it was cut but carries no notice
/// (one built by hand): the text docs/API.md gives, with the default caps.
pub fn default_notice(by: crate::result::Truncation, matched: usize, shown: usize) -> Option<String> {
    use crate::limits::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LIMIT};
    use crate::result::Truncation;
    Some(match by {
        Truncation::Limit => limit_notice(matched, shown, Some(DEFAULT_MAX_LIMIT)),
        Truncation::Maximum => maximum_notice(matched, shown),
        Truncation::Bytes => bytes_notice(DEFAULT_MAX_BYTES),
    })
}

/// One line naming the folders that hold most left-out entries.
pub fn omitted_line(omitted: &[OmittedDir]) -> Option<String> {
    if omitted.is_empty() {
        return None;
    }
    let parts: Vec<String> = omitted
        .iter()
        .map(|o| {
            let dir = if o.dir == "." { "./".to_string() } else { format!("{}/", o.dir) };
            format!("{dir} ({})", o.count)
        })
        .collect();
    Some(format!("Most left-out entries are in: {}", parts.join(", ")))
}

/// The longest `skipped` line, in bytes: it must fit any byte cap's room.
pub const MAX_SKIPPED_LINE: usize = 240;

/// One line saying what the walk left out (the `skipped` option), for a
/// text whose answer is empty or cut: ``Not searched: node_modules/
/// (.gitignore:3: node_modules/), .cache/ (hidden), 12 more ignored entries,
/// 3 binary files.`` At most `MAX_SKIPPED_LINE` bytes.
pub fn skipped_line(groups: &[SkippedGroup]) -> Option<String> {
    let mut parts = Vec::new();
    for g in groups {
        let label = match g.reason {
            SkipReason::Ignored => "ignored",
            SkipReason::Hidden => "hidden",
            SkipReason::Excluded => "excluded",
            SkipReason::AlwaysSkipped => "always skipped",
            SkipReason::Depth => "past maxDepth",
            SkipReason::Symlink => "symlink, not followed",
            SkipReason::Denied => "permission denied",
            SkipReason::Binary => "binary",
            SkipReason::TooLarge => "too large",
        };
        for folder in &g.folders {
            parts.push(format!("{}/ ({})", folder.path, folder.rule.as_deref().unwrap_or(label)));
        }
        let rest = g.count.saturating_sub(g.folders.len() as u64);
        if rest == 0 {
            continue;
        }
        let more = if g.folders.is_empty() { "" } else { "more " };
        let plural = rest != 1;
        parts.push(match g.reason {
            SkipReason::Symlink => format!("{rest} {more}symlink{} (not followed)", if plural { "s" } else { "" }),
            SkipReason::Binary => format!("{rest} {more}binary file{}", if plural { "s" } else { "" }),
            SkipReason::TooLarge => format!(
                "{rest} {more}file{} over {} MiB (multiline)",
                if plural { "s" } else { "" },
                crate::limits::MAX_MULTILINE_FILE_BYTES >> 20
            ),
            _ => format!("{rest} {more}{label} entr{}", if plural { "ies" } else { "y" }),
        });
    }
    if parts.is_empty() {
        return None;
    }
    let line = format!("Not searched: {}.", parts.join(", "));
    Some(match line.len() > MAX_SKIPPED_LINE {
        true => {
            let mut end = MAX_SKIPPED_LINE - " …".len();
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            format!("{} …", &line[..end])
        }
        false => line,
    })
}

/// The whole model text: header, one line per entry, then the truncation
/// notice, the omitted-folders line and the hint, each when present, and
/// with `skipped`, what was left out when the answer is empty or cut.
pub fn render(result: &FindOutcome) -> String {
    let mut out = header(&result.path);
    if result.entries.is_empty() && result.matched == 0 {
        out.push('\n');
        out.push_str(NO_MATCH);
    }
    for found in &result.entries {
        out.push('\n');
        push_entry(&mut out, found);
    }
    let shows_skipped = result.entries.is_empty() || result.truncated_by.is_some();
    let trailer = [
        result.notice.clone(),
        omitted_line(&result.omitted),
        result.hint.clone(),
        skipped_line(result.skipped.as_deref().unwrap_or_default()).filter(|_| shows_skipped),
    ];
    for line in trailer.into_iter().flatten() {
        out.push('\n');
        out.push_str(&line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Truncation;

    fn found(path: &str, kind: EntryKind) -> Found {
        Found::new(path.into(), kind, None)
    }

    fn outcome() -> FindOutcome {
        FindOutcome {
            path: "/workspace".into(),
            entries: vec![
                found("README.md", EntryKind::File),
                found("docs", EntryKind::Dir),
                found("docs/notes.md", EntryKind::File),
            ],
            matched: 3,
            truncated_by: None,
            notice: None,
            hint: None,
            omitted: vec![],
            skipped: None,
            git_status: None,
        }
    }

    #[test]
    fn lists_entries_with_dirs_slashed() {
        assert_eq!(render(&outcome()), "Search directory: /workspace\nREADME.md\ndocs/\ndocs/notes.md");
        let o = outcome();
        assert_eq!(o.entries.iter().map(entry_len).sum::<usize>(), 9 + 5 + 13);
    }

    #[test]
    fn no_match_with_hint() {
        let o = FindOutcome { entries: vec![], matched: 0, hint: Some("Try `**/*.py`.".into()), ..outcome() };
        assert_eq!(render(&o), "Search directory: /workspace\nNo files matched.\nTry `**/*.py`.");
    }

    #[test]
    fn contract_sentences_word_for_word() {
        assert_eq!(
            limit_notice(1500, 100, Some(1000)),
            "1500 files matched; returned first 100. Refine the pattern or raise `limit` (max 1000)."
        );
        assert_eq!(
            maximum_notice(1500, 1000),
            "1500 files matched; returned first 1000 (maximum). Refine the pattern or narrow `path`."
        );
        assert_eq!(bytes_notice(51200), "Output truncated at 51200 bytes; refine the pattern or narrow `path`.");
    }

    #[test]
    fn truncated_text_ends_with_notice_and_omitted() {
        let o = FindOutcome {
            matched: 10,
            truncated_by: Some(Truncation::Limit),
            notice: Some(limit_notice(10, 3, Some(1000))),
            omitted: vec![OmittedDir { dir: "src".into(), count: 5 }, OmittedDir { dir: ".".into(), count: 2 }],
            ..outcome()
        };
        let text = render(&o);
        assert!(text.ends_with(
            "docs/notes.md\n10 files matched; returned first 3. Refine the pattern or raise `limit` (max 1000).\nMost left-out entries are in: src/ (5), ./ (2)"
        ), "{text}");
    }
}
