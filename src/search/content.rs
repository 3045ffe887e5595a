//! Searching inside one file with ripgrep's engine (`grep-searcher` with the
//! matcher of `matcher`): binary files (a NUL byte) are skipped whole, lines
//! come 1-based, and long lines are cut to `MAX_LINE_CHARS`. A file that
//! cannot be read is skipped; one the regex engine could not finish (PCRE2's
//! match limit) is recorded on the matcher, which then fails the search.

use super::matcher::{ContentMatcher, Engine};
use crate::source::Contents;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkError, SinkFinish, SinkMatch};
use std::fs::File;
use std::panic::{catch_unwind, AssertUnwindSafe};

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

/// Where a file's contents come from.
enum Input<'a> {
    File(&'a File),
    Bytes(&'a [u8]),
    /// A storage's file, read chunk by chunk as the search goes.
    Chunks(crate::source::Chunks),
}

/// Searches a file opened by the walk; `None` when it is binary or cannot be
/// read (it vanished, or permission was denied): such files are skipped.
/// `name` names the file if the engine fails on it.
pub fn scan_file(
    searcher: &mut Searcher,
    matcher: &ContentMatcher,
    file: std::io::Result<File>,
    scan: Scan,
    name: &std::path::Path,
) -> Option<FileScan> {
    scan_input(searcher, matcher, Input::File(&file.ok()?), scan, name)
}

/// `scan_file` or `scan_bytes`, as the source gave the contents.
pub fn scan_contents(
    searcher: &mut Searcher,
    matcher: &ContentMatcher,
    contents: Contents,
    scan: Scan,
    name: &std::path::Path,
) -> Option<FileScan> {
    match contents {
        Contents::Opened(file) => scan_file(searcher, matcher, file, scan, name),
        Contents::Bytes(bytes) => scan_bytes(searcher, matcher, &bytes, scan, name),
        Contents::Chunks(chunks) => scan_input(searcher, matcher, Input::Chunks(chunks), scan, name),
    }
}

/// `scan_file` for contents already read (from a host's storage).
pub fn scan_bytes(
    searcher: &mut Searcher,
    matcher: &ContentMatcher,
    bytes: &[u8],
    scan: Scan,
    name: &std::path::Path,
) -> Option<FileScan> {
    scan_input(searcher, matcher, Input::Bytes(bytes), scan, name)
}

fn scan_input(
    searcher: &mut Searcher,
    matcher: &ContentMatcher,
    input: Input<'_>,
    scan: Scan,
    name: &std::path::Path,
) -> Option<FileScan> {
    let mut sink = Collect { scan, found: FileScan::default(), binary: false };
    // A panic in an engine must not unwind through the walker threads.
    let done = catch_unwind(AssertUnwindSafe(|| match (&matcher.engine, input) {
        (Engine::Rust(m), Input::File(f)) => searcher.search_file(m, f, &mut sink),
        (Engine::Rust(m), Input::Bytes(b)) => searcher.search_slice(m, b, &mut sink),
        (Engine::Pcre2(m), Input::File(f)) => searcher.search_file(m.as_ref(), f, &mut sink),
        (Engine::Pcre2(m), Input::Bytes(b)) => searcher.search_slice(m.as_ref(), b, &mut sink),
        (Engine::Rust(m), Input::Chunks(c)) => searcher.search_reader(m, c, &mut sink),
        (Engine::Pcre2(m), Input::Chunks(c)) => searcher.search_reader(m.as_ref(), c, &mut sink),
    }));
    match done {
        Ok(Ok(())) => (!sink.binary).then_some(sink.found),
        Ok(Err(Stop::Unreadable)) => None,
        Ok(Err(Stop::Engine(why))) => {
            matcher.fail(&name.to_string_lossy(), &why);
            None
        }
        Err(_) => {
            matcher.fail(
                &name.to_string_lossy(),
                "the regex engine panicked (an internal error in agent-find; please report it)",
            );
            None
        }
    }
}

struct Collect {
    scan: Scan,
    found: FileScan,
    binary: bool,
}

/// Why a file's search stopped early.
#[derive(Debug)]
enum Stop {
    /// Reading failed (the file vanished or is not readable): it is skipped.
    Unreadable,
    /// The regex engine failed (grep-searcher reports matcher errors as messages).
    Engine(String),
}

impl SinkError for Stop {
    fn error_message<T: std::fmt::Display>(message: T) -> Self {
        Stop::Engine(message.to_string())
    }

    fn error_io(_: std::io::Error) -> Self {
        Stop::Unreadable
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
    use std::path::Path;

    fn matcher(p: &str) -> ContentMatcher {
        ContentMatcher::new(p, false).unwrap()
    }

    /// A temp tree holding one file `f` with `bytes`, and that file's path.
    fn file(name: &str, bytes: &[u8]) -> (crate::testing::TempTree, std::path::PathBuf) {
        let tree = crate::testing::TempTree::new(&format!("content-{name}"));
        let path = tree.write("f", bytes);
        (tree, path)
    }

    #[test]
    fn lines_are_numbered_and_counted() {
        let (_tree, p) = file("count", b"alpha\nbeta\nalpha beta\r\ngamma\n");
        let found = scan_file(
            &mut new_searcher(Scan::Lines(1)),
            &matcher("alpha"),
            File::open(&p),
            Scan::Lines(1),
            Path::new("f"),
        )
        .unwrap();
        assert_eq!(found.count, 2);
        assert_eq!(found.lines, vec![LineHit { line: 1, text: "alpha".into() }]);
        let all = scan_file(
            &mut new_searcher(Scan::Lines(10)),
            &matcher("beta"),
            File::open(&p),
            Scan::Lines(10),
            Path::new("f"),
        )
        .unwrap();
        assert_eq!(all.lines[1], LineHit { line: 3, text: "alpha beta".into() });
        let any =
            scan_file(&mut new_searcher(Scan::Any), &matcher("a"), File::open(&p), Scan::Any, Path::new("f")).unwrap();
        assert_eq!(any.count, 1);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn binary_and_missing_files_are_skipped() {
        let (_tree, p) = file("bin", b"needle\n\x00\x01\x02needle\n");
        assert!(scan_file(
            &mut new_searcher(Scan::Count),
            &matcher("needle"),
            File::open(&p),
            Scan::Count,
            Path::new("f")
        )
        .is_none());
        std::fs::remove_file(&p).unwrap();
        assert!(scan_file(
            &mut new_searcher(Scan::Count),
            &matcher("needle"),
            File::open(&p),
            Scan::Count,
            Path::new("f")
        )
        .is_none());
    }

    #[test]
    fn lookaround_and_backreferences_run_on_the_fallback() {
        let (_tree, p) = file("fallback", b"foobar\nfoobaz\nxfoo\naab\r\nab\n\xff\xfeaa\n");
        let run = |pattern: &str, ignore_case: bool| {
            let m = ContentMatcher::new(pattern, ignore_case).unwrap();
            assert!(m.is_fallback(), "{pattern}");
            let found =
                scan_file(&mut new_searcher(Scan::Lines(10)), &m, File::open(&p), Scan::Lines(10), Path::new("f"));
            let lines: Vec<u64> = found.unwrap().lines.iter().map(|l| l.line).collect();
            (lines, m.failure().is_none())
        };
        assert_eq!(run("foo(?=bar)", false), (vec![1], true));
        assert_eq!(run("(?<!x)foo", false), (vec![1, 2], true));
        assert_eq!(
            run(r"(\w)\1", false),
            (vec![1, 2, 3, 4, 6], true),
            "oo, oo, oo, aa, and aa after bytes that are not UTF-8"
        );
        assert_eq!(run("(?<=x)FOO", true), (vec![3], true));
        assert_eq!(run("(?<=x)FOO", false), (vec![], true));
        assert_eq!(run(r"^a(?=b$)", false), (vec![5], true), "^ and $ are line anchors, as in rg -P");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn an_engine_failure_is_recorded_not_skipped_silently() {
        let line = format!("{}!\n", "a".repeat(4000));
        let (_tree, p) = file("catastrophic", line.as_bytes());
        let m = ContentMatcher::new(r"^(\w+\s?)*(?=x)$", false).unwrap();
        let found = scan_file(&mut new_searcher(Scan::Count), &m, File::open(&p), Scan::Count, Path::new("big.txt"));
        assert!(found.is_none());
        let e = m.failure().expect("PCRE2 stops at its match limit");
        assert_eq!(e.code, crate::error::ErrorCode::InvalidPattern);
        assert!(e.message.contains("`big.txt`"), "{}", e.message);
        std::fs::remove_file(p).unwrap();
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
