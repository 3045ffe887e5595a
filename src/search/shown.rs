//! How a matching line is shown: without its line end, lossy UTF-8, cut to
//! `MAX_LINE_CHARS` and marked where cut; a long line whose match lies past
//! the cut is shown from a little before the match (marked at its start),
//! with the match's column; a multiline run line by line, each around the
//! first match on it, at most `MAX_MATCH_LINES` lines.

use super::matcher::Engine;
use crate::limits::{MAX_LINE_CHARS, MAX_MATCH_LINES, MODEL_LINE_CHARS};
use grep_matcher::Matcher;
use grep_searcher::SinkMatch;

/// Ends the text of a line cut to `MAX_LINE_CHARS`.
pub const CUT_MARK: &str = " …[line cut]";
/// Starts the text of a match shown from inside an over-long line.
pub const LEAD_MARK: &str = "[line cut]… ";
/// Bytes shown before a match inside an over-long line.
const BEFORE_MATCH_BYTES: usize = 80;

/// The text of a match inside a piece of an over-long line: from a little
/// before the match, cut to `MAX_LINE_CHARS`, marked where it was cut
/// (`lead`: the piece itself starts inside the line).
pub(super) fn around_match(engine: &Engine, piece: &[u8], lead: bool) -> String {
    window(piece, first_match(engine, piece).unwrap_or(0), lead)
}

/// Where the first match in `bytes` starts.
fn first_match(engine: &Engine, bytes: &[u8]) -> Option<usize> {
    let found = match engine {
        Engine::Rust(m) => m.find(bytes).ok().flatten(),
        Engine::Pcre2(m) => m.find(bytes).ok().flatten(),
    };
    found.map(|m| m.start())
}

/// A matching line's text and, when it is long, its first match's 1-based
/// byte column (see `LineMatch`). A line
/// over `MAX_LINE_CHARS` whose match lies past what the cut keeps is shown
/// from a little before the match instead (marked), so the text holds it.
pub(super) fn matched_text(engine: &Engine, line: &[u8]) -> (String, Option<u64>) {
    shown_line(line, || first_match(engine, line))
}

/// `matched_text` for a line whose first match starts at `start()` (asked
/// only of a long line).
fn shown_line(line: &[u8], start: impl FnOnce() -> Option<usize>) -> (String, Option<u64>) {
    let content = line.strip_suffix(b"\n").unwrap_or(line);
    if content.strip_suffix(b"\r").unwrap_or(content).len() <= MODEL_LINE_CHARS {
        return (line_text(line), None);
    }
    let start = start();
    let column = start.map(|at| at as u64 + 1);
    let text = line_text(line);
    match start {
        Some(at) if text.ends_with(CUT_MARK) && at + BEFORE_MATCH_BYTES > text.len() - CUT_MARK.len() => {
            (window(line, at, false), column)
        }
        _ => (text, column),
    }
}

/// `bytes` from a little before `at`, cut to `MAX_LINE_CHARS`, marked where
/// it was cut (`lead`: `bytes` itself starts inside the line).
fn window(bytes: &[u8], at: usize, lead: bool) -> String {
    let mut from = at.saturating_sub(BEFORE_MATCH_BYTES);
    // Start on a character, not inside one.
    while from > 0 && bytes.get(from).is_some_and(|b| b & 0xC0 == 0x80) {
        from -= 1;
    }
    let mark = if lead || from > 0 { LEAD_MARK } else { "" };
    format!("{mark}{}", line_text(&bytes[from..]))
}

/// The text of a reported run of matches over one or more lines, and the
/// column of its first match (see `LineMatch`): its lines joined by `\n`, at
/// most `MAX_MATCH_LINES`, then a line saying how many more. Each line is
/// shown as a matching line is (`matched_text`), around the first match
/// that starts on it, so a match past a long line's cut is still seen.
pub(super) fn run_text(engine: &Engine, mat: &SinkMatch<'_>) -> (String, Option<u64>) {
    let bytes = mat.bytes();
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    // Where each shown line starts in the run, and where the first match on it starts.
    let mut at = 0;
    let spans: Vec<(usize, usize)> = lines[..lines.len().min(MAX_MATCH_LINES)]
        .iter()
        .map(|l| {
            let span = (at, at + l.len() + 1);
            at = span.1;
            span
        })
        .collect();
    let mut firsts: Vec<Option<usize>> = vec![None; spans.len()];
    let run = mat.bytes_range_in_buffer();
    let shown_end = run.start + spans.last().map_or(0, |s| s.1).min(run.len());
    let mut i = 0;
    engine.match_starts(mat.buffer(), run.start..shown_end, |start| {
        let start = start - run.start;
        while i < spans.len() && spans[i].1 <= start {
            i += 1;
        }
        if let Some(first) = firsts.get_mut(i) {
            first.get_or_insert(start - spans[i].0);
        }
        i < spans.len()
    });
    let mut column = None;
    let mut shown: Vec<String> = Vec::with_capacity(spans.len() + 1);
    for (n, line) in lines.iter().take(MAX_MATCH_LINES).enumerate() {
        let (text, at) = shown_line(line, || firsts[n]);
        if n == 0 {
            column = at;
        }
        shown.push(text);
    }
    if lines.len() > MAX_MATCH_LINES {
        shown.push(format!("…[{} more lines]", lines.len() - MAX_MATCH_LINES));
    }
    (shown.join("\n"), column)
}

/// The line without its terminator, lossy UTF-8, cut to `MAX_LINE_CHARS`.
pub fn line_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}{CUT_MARK}", &text[..cut]),
        None => text.into_owned(),
    }
}
