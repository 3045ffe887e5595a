//! The text a model reads for a search (`formatSearchResult`): the search
//! directory first (as `find`'s text has it, so relative paths can be
//! joined), then `file:line: text` lines, a path a line, or `file: N` lines,
//! then the truncation line, what an incomplete (`partial`) search covered,
//! the cursor of the next page and the notice; capped at `MAX_BYTES` like
//! `find` output.

use super::cursor::{Cursor, Key, Order};
use super::{SearchItems, SearchOutcome, MAX_RESULTS};
use crate::limits::DEFAULT_MAX_BYTES;
use crate::render::{bytes_notice, header, skipped_line};

pub const MAX_BYTES: usize = DEFAULT_MAX_BYTES;
pub const NO_MATCH: &str = "No matches found.";

fn item_lines(items: &SearchItems) -> Vec<String> {
    match items {
        // A multiline match shows each of its lines under its own number, as rg -U does.
        SearchItems::Matches(m) => m
            .iter()
            .flat_map(|m| m.text.split('\n').zip(m.line..).map(move |(text, n)| format!("{}:{n}: {text}", m.file)))
            .collect(),
        SearchItems::Files(f) => f.clone(),
        SearchItems::Counts(c) => c.iter().map(|(file, n)| format!("{file}: {n}")).collect(),
    }
}

fn truncation_line(result: &SearchOutcome, shown: usize) -> String {
    let advice = format!("narrow the pattern or `path`, or raise `maxResults` (max {MAX_RESULTS})");
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
        SearchItems::Matches(_) => {
            format!("Showing the first {shown} of {total} matching lines; {advice}.")
        }
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
    format!(
        "Search incomplete: `timeoutMs` ran out before every file was searched. Shown: the results of the files searched in time, in path order; {found} found so far (more may exist)."
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
    let head = header(&result.path);
    let lines = item_lines(&result.items);
    let mut trailer: Vec<String> = Vec::new();
    if result.truncated {
        trailer.push(truncation_line(result, lines.len()));
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
        let next = match next {
            Some(_) => cursor_after(result, body.len()).map(|c| cursor_line(&c)),
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
    use crate::search::LineMatch;

    fn outcome(items: SearchItems, match_count: u64, truncated: bool) -> SearchOutcome {
        SearchOutcome {
            path: "/w".into(),
            items,
            match_count,
            truncated,
            notice: None,
            cursor: None,
            offset: None,
            incomplete: false,
            index_changed: false,
            skipped: None,
        }
    }

    #[test]
    fn each_mode_has_its_line_shape() {
        let m = outcome(
            SearchItems::Matches(vec![LineMatch {
                file: "a.py".into(),
                line: 3,
                text: "x = 1".into(),
                patterns: None,
            }]),
            1,
            false,
        );
        assert_eq!(render(&m), "Search directory: /w\na.py:3: x = 1");
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

    #[test]
    fn output_is_capped() {
        let matches = (0..500)
            .map(|i| LineMatch { file: format!("file{i}.txt"), line: 1, text: "y".repeat(400), patterns: None })
            .collect();
        let t = render(&outcome(SearchItems::Matches(matches), 500, false));
        assert!(t.len() <= MAX_BYTES, "{}", t.len());
        assert!(t.ends_with(&bytes_notice(MAX_BYTES)));
    }
}
