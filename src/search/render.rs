//! The text a model reads for a search (`formatSearchResult`): the search
//! directory first (as `find`'s text has it, so relative paths can be
//! joined), then for content the exact totals and each file's lines under
//! it, or a path a line, or `file: N` lines, then the truncation line, what
//! an incomplete (`partial`) search covered, the cursor of the next page
//! and the notice; capped at `MAX_BYTES` like
//! `find` output.
//!
//! Content results are compact: a totals line (`Found 3,412 matching lines
//! in 212 files; showing the first 50 ...`), then each file's path once with
//! its lines under it, `12: text` for a match and `11- text` for context,
//! `--` between groups of one file that are apart: rg's `--heading` layout,
//! which models know, unindented, as an indent costs a token a line.
//! A line longer than `MODEL_LINE_CHARS` is shown as a window around its
//! match, `12:812: …text…` (812 being the match's column, as rg --column
//! gives it), rather than cut at its start. Files and counts are a path a
//! line and `file: N` lines.

use super::cursor::{Cursor, Key, Order};
use super::{LineMatch, SearchItems, SearchOutcome, MAX_RESULTS};
use crate::limits::{DEFAULT_MAX_BYTES, MODEL_LINE_CHARS};
use crate::render::{bytes_notice, header, skipped_line};
use crate::search::shown::LEAD_MARK;

pub const MAX_BYTES: usize = DEFAULT_MAX_BYTES;
pub const NO_MATCH: &str = "No matches found.";
/// Characters of a long line shown before its match.
const BEFORE_MATCH_CHARS: usize = 60;
const CLIP: &str = "…";

/// `n` with thousands separators: 3412 → `3,412`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `text` cut to `MODEL_LINE_CHARS` characters from `from` (a char index), marked where cut.
fn clip_from(text: &str, from: usize) -> String {
    let mut out = String::new();
    if from > 0 {
        out.push_str(CLIP);
    }
    let mut chars = text.chars().skip(from);
    out.extend(chars.by_ref().take(MODEL_LINE_CHARS));
    if chars.next().is_some() {
        out.push_str(CLIP);
    }
    out
}

/// A match's line (`line`, `text`, `column` of a `LineMatch`): short lines
/// as they are; a long one as a window around its match, with the match's
/// column when the window starts inside it.
fn match_line(line: u64, text: &str, column: Option<u64>) -> String {
    let long = text.chars().nth(MODEL_LINE_CHARS).is_some();
    let (Some(column), true) = (column, long) else {
        return format!("{line}: {}", if long { clip_from(text, 0) } else { text.to_string() });
    };
    // The text starts at the line's start, or (marked) a little before the
    // match, which is then within the first characters.
    let at = match text.starts_with(LEAD_MARK) {
        true => 0,
        false => {
            let byte = (column - 1) as usize;
            text.char_indices().take_while(|(i, _)| *i < byte).count().saturating_sub(BEFORE_MATCH_CHARS)
        }
    };
    match at {
        0 if !text.starts_with(LEAD_MARK) => format!("{line}: {}", clip_from(text, 0)),
        _ => format!("{line}:{column}: {}", clip_from(text, at)),
    }
}

/// Content results grouped under their files.
/// Also the end (in lines) of each match's lines, so a cut text can tell
/// how many matches it kept whole.
fn match_lines(matches: &[LineMatch]) -> (Vec<String>, Vec<usize>) {
    let context = matches.iter().any(|m| !m.before.is_empty() || !m.after.is_empty());
    let mut out = Vec::new();
    let mut ends = Vec::with_capacity(matches.len());
    let mut last: Option<(&str, u64)> = None;
    for m in matches {
        let first = m.before.first().map_or(m.line, |c| c.line);
        match last {
            Some((file, _)) if file != m.file => out.push(m.file.clone()),
            None => out.push(m.file.clone()),
            Some((_, line)) if context && first > line + 1 => out.push("--".into()),
            Some(_) => {}
        }
        out.extend(m.before.iter().map(|c| format!("{}- {}", c.line, clip_from(&c.text, 0))));
        // A multiline match shows each of its lines under its own number, as
        // rg -U does; its first line (where its column is) as a single one.
        let spans = m.text.matches('\n').count() as u64;
        let mut lines = m.text.split('\n').zip(m.line..);
        if let Some((text, n)) = lines.next() {
            out.push(match_line(n, text, m.column));
        }
        out.extend(lines.map(|(text, n)| format!("{n}: {}", clip_from(text, 0))));
        out.extend(m.after.iter().map(|c| format!("{}- {}", c.line, clip_from(&c.text, 0))));
        last = Some((&m.file, m.after.last().map_or(m.line + spans, |c| c.line)));
        ends.push(out.len());
    }
    (out, ends)
}

/// The text's lines of the items, and where each item's lines end.
fn item_lines(items: &SearchItems) -> (Vec<String>, Vec<usize>) {
    let one_each = |lines: Vec<String>| {
        let ends = (1..=lines.len()).collect();
        (lines, ends)
    };
    match items {
        SearchItems::Matches(m) => match_lines(m),
        SearchItems::Files(f) => one_each(f.clone()),
        SearchItems::Counts(c) => one_each(c.iter().map(|(file, n)| format!("{file}: {n}")).collect()),
    }
}

fn advice() -> String {
    format!("narrow the pattern or `path`, or raise `maxResults` (max {MAX_RESULTS})")
}

/// The totals line of content results: exact counts, and what is shown
/// (on a later page, which lines).
fn totals_line(result: &SearchOutcome, matches: &[LineMatch]) -> String {
    let files = match result.file_count {
        // A result built by hand may not say: the files shown.
        0 => {
            let mut files: Vec<&str> = matches.iter().map(|m| m.file.as_str()).collect();
            files.dedup();
            files.len() as u64
        }
        n => n,
    };
    let (lines, files_word) = (thousands(result.match_count), if files == 1 { "file" } else { "files" });
    let lines_word = if result.match_count == 1 { "line" } else { "lines" };
    let found = format!("Found {lines} matching {lines_word} in {} {files_word}", thousands(files));
    let shown = matches.len() as u64;
    match (result.offset.filter(|&first| first > 0 || result.truncated), result.truncated) {
        (Some(first), _) => {
            let (from, to) = (thousands(first + 1), thousands(first + shown));
            format!("{found}; showing lines {from}-{to}; {}.", advice())
        }
        (None, true) if result.spread => format!(
            "{found}; showing {} of them, spread across the files to fit `maxTokens`; raise `maxTokens` or narrow the pattern or `path` to see more.",
            thousands(shown)
        ),
        (None, true) => format!("{found}; showing the first {}; {}.", thousands(shown), advice()),
        (None, false) => format!("{found}."),
    }
}

fn truncation_line(result: &SearchOutcome, shown: usize) -> String {
    let advice = advice();
    let total = result.match_count;
    // A later page says which items it shows.
    if let Some(first) = result.offset.filter(|_| shown > 0) {
        let (from, to) = (first + 1, first + shown as u64);
        return match &result.items {
            SearchItems::Matches(_) => format!("Showing matching lines {from}-{to} of {total}; {advice}."),
            SearchItems::Files(_) => format!("Showing matching files {from}-{to} of {total}; {advice}."),
            SearchItems::Counts(_) => {
                format!("Showing counts for files {from}-{to}; {total} matching lines in all; {advice}.")
            }
        };
    }
    match &result.items {
        // Content results say it in their totals line; this is for the type's sake.
        SearchItems::Matches(_) => format!("Showing the first {shown} of {total} matching lines; {advice}."),
        SearchItems::Files(_) => format!("Showing {shown} of {total} matching files; {advice}."),
        SearchItems::Counts(_) => {
            format!("Showing counts for the first {shown} files; {total} matching lines in all; {advice}.")
        }
    }
}

/// What an incomplete search covered.
fn incomplete_line(result: &SearchOutcome) -> String {
    let found = match &result.items {
        SearchItems::Files(_) => format!("{} matching files", result.match_count),
        _ => format!("{} matching lines", result.match_count),
    };
    // Without a cursor (a multiline search's matching lines are not paged),
    // the rest comes only from a call given the time to reach it.
    let rest = match result.cursor {
        Some(_) => "",
        None => " To search the rest, call again with a larger `timeoutMs` or a narrower `path`.",
    };
    format!(
        "Search incomplete: `timeoutMs` ran out before every file was searched. Shown: the results of the files searched in time, in path order; {found} found so far (more may exist).{rest}"
    )
}

fn item_count(items: &SearchItems) -> usize {
    match items {
        SearchItems::Matches(m) => m.len(),
        SearchItems::Files(f) => f.len(),
        SearchItems::Counts(c) => c.len(),
    }
}

fn cursor_line(cursor: &str) -> String {
    format!("Next page: call again with the same options and `cursor: \"{cursor}\"`.")
}

/// The cursor that continues right after the last item the text kept,
/// when the text had to drop some of the page's items: only where an item
/// alone names its place (by path; a newest-first file list's items lack
/// their time).
fn cursor_after(result: &SearchOutcome, kept: usize) -> Option<String> {
    let cursor = Cursor::decode(result.cursor.as_deref()?).ok()?;
    match (cursor.order, &cursor.start) {
        (Order::Path, _) => {}
        // The page ends right before `at`.
        (Order::Rank, Key::Rank { at }) if cursor.skip == 0 => {
            let first = at.checked_sub(item_count(&result.items) as u64)?;
            return Some(Cursor { start: Key::Rank { at: first + kept as u64 }, ..cursor }.encode());
        }
        _ => return None,
    }
    let last = match &result.items {
        SearchItems::Matches(m) => {
            Key::Path { path: m.get(kept.checked_sub(1)?)?.file.clone(), line: m[kept - 1].line }
        }
        SearchItems::Counts(c) => Key::Path { path: c.get(kept.checked_sub(1)?)?.0.clone(), line: 0 },
        SearchItems::Files(f) => Key::Path { path: f.get(kept.checked_sub(1)?)?.clone(), line: 0 },
    };
    Some(Cursor { start: last.after(), skip: 0, ..cursor }.encode())
}

pub fn render(result: &SearchOutcome) -> String {
    let mut head = header(&result.path);
    let (lines, ends) = item_lines(&result.items);
    let mut trailer: Vec<String> = Vec::new();
    match &result.items {
        SearchItems::Matches(m) if !m.is_empty() => {
            head.push('\n');
            head.push_str(&totals_line(result, m));
        }
        SearchItems::Matches(_) => {}
        _ if result.truncated => trailer.push(truncation_line(result, lines.len())),
        _ => {}
    }
    if result.incomplete {
        trailer.push(incomplete_line(result));
    }
    trailer.extend(result.cursor.as_deref().map(cursor_line));
    trailer.extend(result.notice.clone());
    let skipped =
        skipped_line(result.skipped.as_deref().unwrap_or_default()).filter(|_| lines.is_empty() || result.truncated);
    trailer.extend(skipped.clone());
    let mut body: Vec<&str> =
        if lines.is_empty() { vec![NO_MATCH] } else { lines.iter().map(String::as_str).collect() };
    let size = |body: &[&str], trailer: &[String]| {
        head.len() + body.iter().map(|l| l.len() + 1).chain(trailer.iter().map(|l| l.len() + 1)).sum::<usize>()
    };
    if size(&body, &trailer) > MAX_BYTES {
        let cut_notice = bytes_notice(MAX_BYTES);
        // The page's cursor would pass over the items the text dropped: a
        // cursor right after the last line kept (of the same length) replaces it.
        let next = result.cursor.as_deref().map(cursor_line);
        let incomplete = result.incomplete.then(|| incomplete_line(result));
        let skipped = skipped_line(result.skipped.as_deref().unwrap_or_default());
        let reserve = head.len()
            + cut_notice.len()
            + 1
            + result.notice.as_ref().map_or(0, |n| n.len() + 1)
            + next.as_ref().map_or(0, |n| n.len() + 1)
            + incomplete.as_ref().map_or(0, |n| n.len() + 1)
            + skipped.as_ref().map_or(0, |l| l.len() + 1);
        let mut used = 0;
        let keep = body.iter().take_while(|l| {
            used += l.len() + 1;
            used + reserve <= MAX_BYTES
        });
        body = keep.copied().collect();
        // The items whose lines were all kept.
        let kept = ends.iter().take_while(|&&end| end <= body.len()).count();
        // No item shown in part (a file's path alone, a match without its context lines).
        if kept > 0 {
            body.truncate(ends[kept - 1]);
        }
        let next = match next {
            Some(_) => cursor_after(result, kept).map(|c| cursor_line(&c)),
            None => None,
        };
        trailer = std::iter::once(cut_notice)
            .chain(incomplete)
            .chain(next)
            .chain(result.notice.clone())
            .chain(skipped)
            .collect();
    }
    std::iter::once(head).chain(body.iter().map(|l| l.to_string())).chain(trailer).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{ContextLine, LineMatch};

    fn outcome(items: SearchItems, match_count: u64, truncated: bool) -> SearchOutcome {
        SearchOutcome {
            path: "/w".into(),
            items,
            match_count,
            file_count: 0,
            truncated,
            notice: None,
            cursor: None,
            offset: None,
            incomplete: false,
            index_changed: false,
            skipped: None,
            spread: false,
            git_status: None,
        }
    }

    #[test]
    fn each_mode_has_its_line_shape() {
        let m = outcome(
            SearchItems::Matches(vec![LineMatch {
                file: "a.py".into(),
                line: 3,
                text: "x = 1".into(),
                ..Default::default()
            }]),
            1,
            false,
        );
        assert_eq!(render(&m), "Search directory: /w\nFound 1 matching line in 1 file.\na.py\n3: x = 1");
        let files = render(&outcome(SearchItems::Files(vec!["a".into(), "b/c".into()]), 2, false));
        assert_eq!(files, "Search directory: /w\na\nb/c");
        let counts = render(&outcome(SearchItems::Counts(vec![("a".into(), 4)]), 4, false));
        assert_eq!(counts, "Search directory: /w\na: 4");
        let none = SearchOutcome { notice: Some("Skipped.".into()), ..outcome(SearchItems::Files(vec![]), 0, false) };
        assert_eq!(render(&none), "Search directory: /w\nNo matches found.\nSkipped.");
    }

    #[test]
    fn truncation_says_the_true_total() {
        let t = render(&outcome(SearchItems::Files(vec!["a".into()]), 9, true));
        assert!(
            t.ends_with(
                "Showing 1 of 9 matching files; narrow the pattern or `path`, or raise `maxResults` (max 500)."
            ),
            "{t}"
        );
    }

    fn hit(file: &str, line: u64, text: &str) -> LineMatch {
        LineMatch { file: file.into(), line, text: text.into(), ..Default::default() }
    }

    fn context(lines: &[u64]) -> Vec<ContextLine> {
        lines.iter().map(|&line| ContextLine { line, text: format!("c{line}") }).collect()
    }

    #[test]
    fn matches_are_grouped_under_their_file_with_context_and_separators() {
        let m = vec![
            LineMatch { before: context(&[1]), after: context(&[3]), ..hit("a.rs", 2, "x") },
            LineMatch { after: context(&[5]), ..hit("a.rs", 4, "y") },
            LineMatch { before: context(&[9]), ..hit("a.rs", 10, "z") },
            LineMatch { before: context(&[1]), ..hit("b/c.rs", 2, "w") },
        ];
        let o = SearchOutcome { file_count: 30, ..outcome(SearchItems::Matches(m), 3412, true) };
        assert_eq!(
            render(&o),
            "Search directory: /w\n\
             Found 3,412 matching lines in 30 files; showing the first 4; narrow the pattern or `path`, or raise `maxResults` (max 500).\n\
             a.rs\n1- c1\n2: x\n3- c3\n4: y\n5- c5\n--\n9- c9\n10: z\n\
             b/c.rs\n1- c1\n2: w"
        );
        // Without context, lines that are apart have no separator (as rg).
        let o = outcome(SearchItems::Matches(vec![hit("a", 1, "x"), hit("a", 9, "y")]), 2, false);
        assert_eq!(render(&o), "Search directory: /w\nFound 2 matching lines in 1 file.\na\n1: x\n9: y");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn long_lines_are_shown_around_their_match_with_its_column() {
        let line = format!("{}needle{}", "a".repeat(300), "b".repeat(150));
        let m = LineMatch { column: Some(301), ..hit("f", 7, &line) };
        let t = render(&outcome(SearchItems::Matches(vec![m]), 1, false));
        let shown = t.lines().last().unwrap();
        let window = format!("…{}needle{}…", "a".repeat(60), "b".repeat(MODEL_LINE_CHARS - 66));
        assert_eq!(shown, format!("7:301: {window}"));
        // Near the start: cut at the end only, no column needed.
        let m = LineMatch { column: Some(3), ..hit("f", 7, &line) };
        let t = render(&outcome(SearchItems::Matches(vec![m]), 1, false));
        assert_eq!(t.lines().last().unwrap(), format!("7: {}…", "a".repeat(MODEL_LINE_CHARS)));
        // A text already cut before its match (see `content::matched_text`): from its start.
        let text = format!("{LEAD_MARK}{}needle{}", "a".repeat(80), "b".repeat(400));
        let m = LineMatch { column: Some(5000), ..hit("f", 7, &text) };
        let t = render(&outcome(SearchItems::Matches(vec![m]), 1, false));
        let shown = t.lines().last().unwrap();
        assert!(shown.starts_with(&format!("7:5000: {LEAD_MARK}")) && shown.contains("needle"), "{shown}");
        // Short lines are whole.
        let m = LineMatch { column: Some(3), ..hit("f", 7, "short") };
        assert!(render(&outcome(SearchItems::Matches(vec![m]), 1, false)).ends_with("\n7: short"));
    }

    #[test]
    fn a_multiline_match_shows_its_first_line_around_its_column() {
        let first = format!("{}needle\n{}", "a".repeat(300), "b".repeat(10));
        let m = LineMatch { column: Some(301), ..hit("f", 7, &first) };
        let t = render(&outcome(SearchItems::Matches(vec![m]), 1, false));
        let window = format!("…{}needle", "a".repeat(60));
        assert_eq!(
            t.lines().rev().take(2).collect::<Vec<_>>(),
            [&format!("8: {}", "b".repeat(10)), &format!("7:301: {window}")]
        );
    }

    #[test]
    fn output_is_capped() {
        let matches = (0..500)
            .map(|i| LineMatch { file: format!("file{i}.txt"), line: 1, text: "y".repeat(400), ..Default::default() })
            .collect();
        let t = render(&outcome(SearchItems::Matches(matches), 500, false));
        assert!(t.len() <= MAX_BYTES, "{}", t.len());
        assert!(t.ends_with(&bytes_notice(MAX_BYTES)));
    }
}
