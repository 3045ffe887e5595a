//! The text a model reads for a search (`formatSearchResult`): the search
//! directory first (as `find`'s text has it, so relative paths can be
//! joined), then `file:line: text` lines, a path a line, or `file: N` lines,
//! then the truncation line and the notice; capped at `MAX_BYTES` like
//! `find` output.

use super::{SearchItems, SearchOutcome, MAX_RESULTS};
use crate::limits::DEFAULT_MAX_BYTES;
use crate::render::{bytes_notice, header};

pub const MAX_BYTES: usize = DEFAULT_MAX_BYTES;
pub const NO_MATCH: &str = "No matches found.";

fn item_lines(items: &SearchItems) -> Vec<String> {
    match items {
        SearchItems::Matches(m) => m.iter().map(|m| format!("{}:{}: {}", m.file, m.line, m.text)).collect(),
        SearchItems::Files(f) => f.clone(),
        SearchItems::Counts(c) => c.iter().map(|(file, n)| format!("{file}: {n}")).collect(),
    }
}

fn truncation_line(result: &SearchOutcome, shown: usize) -> String {
    let advice = format!("narrow the pattern or `path`, or raise `maxResults` (max {MAX_RESULTS})");
    match &result.items {
        SearchItems::Matches(_) => {
            format!("Showing the first {shown} of {} matching lines; {advice}.", result.match_count)
        }
        SearchItems::Files(_) => format!("Showing {shown} of {} matching files; {advice}.", result.match_count),
        SearchItems::Counts(_) => format!(
            "Showing counts for the first {shown} files; {} matching lines in all; {advice}.",
            result.match_count
        ),
    }
}

pub fn render(result: &SearchOutcome) -> String {
    let head = header(&result.path);
    let lines = item_lines(&result.items);
    let mut trailer: Vec<String> = Vec::new();
    if result.truncated {
        trailer.push(truncation_line(result, lines.len()));
    }
    trailer.extend(result.notice.clone());
    let mut body: Vec<&str> =
        if lines.is_empty() { vec![NO_MATCH] } else { lines.iter().map(String::as_str).collect() };
    let size = |body: &[&str], trailer: &[String]| {
        head.len() + body.iter().map(|l| l.len() + 1).chain(trailer.iter().map(|l| l.len() + 1)).sum::<usize>()
    };
    if size(&body, &trailer) > MAX_BYTES {
        let cut_notice = bytes_notice(MAX_BYTES);
        let reserve = head.len() + cut_notice.len() + 1 + result.notice.as_ref().map_or(0, |n| n.len() + 1);
        let mut used = 0;
        let keep = body.iter().take_while(|l| {
            used += l.len() + 1;
            used + reserve <= MAX_BYTES
        });
        body = keep.copied().collect();
        trailer = std::iter::once(cut_notice).chain(result.notice.clone()).collect();
    }
    std::iter::once(head).chain(body.iter().map(|l| l.to_string())).chain(trailer).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::LineMatch;

    fn outcome(items: SearchItems, match_count: u64, truncated: bool) -> SearchOutcome {
        SearchOutcome { path: "/w".into(), items, match_count, file_count: 0, truncated, notice: None }
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
            .map(|i| LineMatch { file: format!("file{i}.txt"), line: 1, text: "y".repeat(400), ..Default::default() })
            .collect();
        let t = render(&outcome(SearchItems::Matches(matches), 500, false));
        assert!(t.len() <= MAX_BYTES, "{}", t.len());
        assert!(t.ends_with(&bytes_notice(MAX_BYTES)));
    }
}
