//! Searching inside one file with ripgrep's engine (`grep-searcher` with a
//! `grep-regex` matcher): binary files (a NUL byte) are skipped whole, lines
//! come 1-based, and long lines are cut to `MAX_LINE_CHARS`.

use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkError, SinkFinish, SinkMatch};
use std::fs::File;

pub use crate::limits::MAX_LINE_CHARS;
pub const CUT_MARK: &str = " …[line cut]";

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineHit {
    /// 1-based.
    pub line: u64,
    pub text: String,
}

/// What one file gave: the number of matching lines and the first of them.
#[derive(Debug, Default)]
pub struct FileScan {
    pub count: u64,
    pub lines: Vec<LineHit>,
}

/// How much of each file to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Stop at the first matching line.
    Any,
    /// Count every matching line.
    Count,
    /// Count every matching line and keep the text of the first `n`.
    Lines(usize),
}

/// A searcher for one thread; it reuses its buffers across files. Counting
/// lines costs a pass over every byte, so only `Scan::Lines` asks for numbers.
pub fn new_searcher(scan: Scan) -> Searcher {
    SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .line_number(matches!(scan, Scan::Lines(_)))
        .build()
}

/// Searches a file opened by the walk; `None` when it is binary or cannot be
/// read (it vanished, or permission was denied): such files are skipped.
pub fn scan_file(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    file: std::io::Result<File>,
    scan: Scan,
) -> Option<FileScan> {
    let mut sink = Collect { scan, found: FileScan::default(), binary: false };
    searcher.search_file(matcher, &file.ok()?, &mut sink).ok()?;
    (!sink.binary).then_some(sink.found)
}

/// `scan_file` for contents already read (from a host's storage).
pub fn scan_bytes(searcher: &mut Searcher, matcher: &RegexMatcher, bytes: &[u8], scan: Scan) -> Option<FileScan> {
    let mut sink = Collect { scan, found: FileScan::default(), binary: false };
    searcher.search_slice(matcher, bytes, &mut sink).ok()?;
    (!sink.binary).then_some(sink.found)
}

struct Collect {
    scan: Scan,
    found: FileScan,
    binary: bool,
}

#[derive(Debug)]
struct Stop;

impl SinkError for Stop {
    fn error_message<T: std::fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl Sink for Collect {
    type Error = Stop;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Stop> {
        self.found.count += 1;
        if let Scan::Lines(n) = self.scan {
            if self.found.lines.len() < n {
                let line = mat.line_number().unwrap_or(0);
                self.found.lines.push(LineHit { line, text: line_text(mat.bytes()) });
            }
        }
        Ok(self.scan != Scan::Any)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, Stop> {
        self.binary = true;
        Ok(false)
    }

    fn finish(&mut self, _: &Searcher, finish: &SinkFinish) -> Result<(), Stop> {
        self.binary |= finish.binary_byte_offset().is_some();
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use grep_regex::RegexMatcherBuilder;

    fn matcher(p: &str) -> RegexMatcher {
        RegexMatcherBuilder::new().line_terminator(Some(b'\n')).build(p).unwrap()
    }

    fn file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("af-content-{name}-{}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn lines_are_numbered_and_counted() {
        let p = file("count", b"alpha\nbeta\nalpha beta\r\ngamma\n");
        let found =
            scan_file(&mut new_searcher(Scan::Lines(1)), &matcher("alpha"), File::open(&p), Scan::Lines(1)).unwrap();
        assert_eq!(found.count, 2);
        assert_eq!(found.lines, vec![LineHit { line: 1, text: "alpha".into() }]);
        let all =
            scan_file(&mut new_searcher(Scan::Lines(10)), &matcher("beta"), File::open(&p), Scan::Lines(10)).unwrap();
        assert_eq!(all.lines[1], LineHit { line: 3, text: "alpha beta".into() });
        let any = scan_file(&mut new_searcher(Scan::Any), &matcher("a"), File::open(&p), Scan::Any).unwrap();
        assert_eq!(any.count, 1);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn binary_and_missing_files_are_skipped() {
        let p = file("bin", b"needle\n\x00\x01\x02needle\n");
        assert!(scan_file(&mut new_searcher(Scan::Count), &matcher("needle"), File::open(&p), Scan::Count).is_none());
        std::fs::remove_file(&p).unwrap();
        assert!(scan_file(&mut new_searcher(Scan::Count), &matcher("needle"), File::open(&p), Scan::Count).is_none());
    }

    #[test]
    fn long_lines_are_cut_and_marked() {
        let long = "é".repeat(MAX_LINE_CHARS + 10);
        let text = line_text(long.as_bytes());
        assert!(text.ends_with(CUT_MARK));
        assert_eq!(text.chars().count(), MAX_LINE_CHARS + CUT_MARK.chars().count());
        assert_eq!(line_text(b"short\r\n"), "short");
    }
}
