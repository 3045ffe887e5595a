//! Searching inside one file with ripgrep's engine (`grep-searcher` with the
//! matcher of `matcher`): binary files (a NUL byte) are skipped whole, lines
//! come 1-based, and long lines are cut to `MAX_LINE_CHARS`. A file that is
//! gone or denied is skipped; one that cannot be opened or read otherwise
//! (out of descriptors, an I/O error), or that the regex engine could not
//! finish (PCRE2's match limit), is recorded on the matcher, which then
//! fails the search: never an answer silently missing a file.
//!
//! Memory is bounded whatever the file holds. The line buffer may grow to
//! `MAX_LINE_BUFFER_BYTES`; a file with a longer line is searched again from
//! the start with its over-long lines cut into pieces of `LINE_PIECE_BYTES`
//! (each repeating the last `PIECE_OVERLAP_BYTES` of the one before, so a
//! match shorter than that is found across a cut). A match in such a line
//! counts once for the line, keeps its real line number, and shows the text
//! around the match, cut and marked. The cancel flag and deadline are
//! checked at every read, so a huge file does not outlast `timeoutMs`.

use super::matcher::{ContentMatcher, Engine};
use super::reading::{Cancelled, Checked, Cutter};
use super::shown::{around_match, line_text, matched_text, run_text};
use crate::cancel::Cancel;
use crate::dir::is_skippable;
use crate::result::SkipReason;
use crate::source::{Contents, Rewind};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkError, SinkFinish, SinkMatch,
};
use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{self, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use crate::limits::{MAX_LINE_BUFFER_BYTES, MAX_MATCH_LINES, MAX_MULTILINE_FILE_BYTES};

/// One matching line (or run of lines, with `multiline`) of a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineMatch {
    /// The file, relative to the search directory, `/`-separated.
    pub file: String,
    /// 1-based.
    pub line: u64,
    /// The line; for a multiline match, its lines joined by `\n`.
    pub text: String,
    /// With `patterns`: the indexes of those that match the line(s).
    pub patterns: Option<Vec<u32>>,
    /// 1-based byte column of the line's first match, as `rg --column`
    /// gives it, for a line longer than `MODEL_LINE_CHARS` bytes (the model
    /// text shows such a line around it); `None` for shorter lines, so the
    /// answers for them are as they were, and inside an over-long line
    /// searched in pieces.
    pub column: Option<u64>,
    /// Context lines shown before and after it (`before`/`after` options),
    /// each line once, as ripgrep prints them: a line that is another
    /// match's context, or a match, is not repeated.
    pub before: Vec<ContextLine>,
    pub after: Vec<ContextLine>,
}

/// A line around a match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextLine {
    /// 1-based.
    pub line: u64,
    pub text: String,
}

/// What one file gave: the number of matching lines and the first of them.
#[derive(Debug, Default)]
pub struct FileScan {
    pub count: u64,
    pub lines: Vec<LineMatch>,
    /// With `Scan::Window`: the matching lines at or after its `from_line`.
    pub window: u64,
    /// Set (with no count and no lines) when the file was left out: binary,
    /// or its opening denied.
    pub left_out: Option<SkipReason>,
}

impl FileScan {
    pub fn left_out(reason: SkipReason) -> Option<FileScan> {
        Some(FileScan { left_out: Some(reason), ..FileScan::default() })
    }
}

/// How much of each file to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Stop at the first matching line.
    Any,
    /// Count every matching line (with `multiline`, every match of each
    /// reported run that may span lines); with `maxPerFile` N, stop after N
    /// reports, as `rg -m N` prints them.
    Count,
    /// `Count` as `rg --count` counts (count output): with `maxPerFile` N,
    /// stop once the count reaches N. Only multiline tells them apart: a
    /// run holding several matches counts them all, so ripgrep 14's count
    /// passes N there, and stops before N runs.
    Totals,
    /// Count every matching line and keep the text of the first `n`.
    Lines(usize),
    /// Count every matching line and keep the text of `n` of those at or
    /// after line `from_line`, once the first `skip` of them are passed: a
    /// page that starts inside a file.
    Window { from_line: u64, skip: u64, n: usize },
}

/// A searcher for one thread; it reuses its buffers across files. Counting
/// lines costs a pass over every byte, so only `Scan::Lines` asks for numbers.
/// Its line buffer is capped (see the module's doc).
pub fn new_searcher(scan: Scan) -> Searcher {
    builder().line_number(matches!(scan, Scan::Lines(_) | Scan::Window { .. })).build()
}

/// A `Scan::Lines` searcher that also reports `before` and `after` lines of
/// context around each match (grep-searcher's own context handling, the
/// one ripgrep prints from).
pub fn context_searcher(before: usize, after: usize) -> Searcher {
    builder().line_number(true).before_context(before).after_context(after).build()
}

/// A searcher that stops at nothing: binary files are searched as text
/// (only to tell that matches exist in files a search skipped as binary).
pub fn binary_searcher() -> Searcher {
    builder().binary_detection(BinaryDetection::none()).build()
}

fn builder() -> SearcherBuilder {
    builder_for(false)
}

/// A searcher's settings; `multiline` (rg -U) reads each file whole, up to
/// `MAX_MULTILINE_FILE_BYTES` (a larger file is passed over in that mode).
fn builder_for(multiline: bool) -> SearcherBuilder {
    let mut builder = SearcherBuilder::new();
    let limit = if multiline { MAX_MULTILINE_FILE_BYTES } else { MAX_LINE_BUFFER_BYTES };
    builder.binary_detection(BinaryDetection::quit(b'\x00')).heap_limit(Some(limit)).multi_line(multiline);
    builder
}

/// Where a file's contents come from.
enum Input<'a> {
    File(&'a File),
    Bytes(&'a [u8]),
    /// A file on disk already read whole (see `scan_read`).
    Read(&'a [u8]),
    /// A storage's file, read chunk by chunk as the search goes.
    Chunks(crate::source::Chunks),
}

/// Searches a file opened by the walk; `None` when it is binary, or skipped
/// (see the module's doc; a failure is recorded on `matcher`). `name` names
/// the file in messages; `cancel` is checked at every read.
pub fn scan_file(
    searcher: &mut Searcher,
    matcher: &ContentMatcher,
    file: io::Result<File>,
    scan: Scan,
    name: &std::path::Path,
    cancel: &Cancel,
) -> Option<FileScan> {
    match file {
        Ok(file) => scan_input(searcher, matcher, Input::File(&file), scan, name, cancel),
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => FileScan::left_out(SkipReason::Denied),
        Err(e) if is_skippable(&e) => None,
        Err(e) => {
            matcher.fail_io(&name.to_string_lossy(), "cannot open", &e);
            None
        }
    }
}

/// `scan_file` or `scan_read`, as the source gave the contents.
pub fn scan_contents(
    searcher: &mut Searcher,
    matcher: &ContentMatcher,
    contents: Contents,
    scan: Scan,
    name: &std::path::Path,
    cancel: &Cancel,
) -> Option<FileScan> {
    match contents {
        Contents::Opened(file) => scan_file(searcher, matcher, file, scan, name, cancel),
        Contents::Bytes(bytes) => scan_read(searcher, matcher, &bytes, scan, name, cancel),
        Contents::Chunks(chunks) => scan_input(searcher, matcher, Input::Chunks(chunks), scan, name, cancel),
    }
}

/// `scan_file` for a file already read whole into `bytes` (a host's storage
/// gave it so, or a live index's search read it whole to sketch it, or holds
/// it in memory):
/// the answer is the file's. Up to `SLICE_BYTES` and without a NUL it is
/// searched in place, as one slice: no line can outgrow the line buffer
/// there, and no binary check can stop it. Otherwise it is read chunk by
/// chunk as the file would be, so over-long lines are cut alike and a NUL
/// stops the search where it would stop in the file (a files-mode search that
/// matched before it still lists the file, as ripgrep does).
pub fn scan_read(
    searcher: &mut Searcher,
    matcher: &ContentMatcher,
    bytes: &[u8],
    scan: Scan,
    name: &std::path::Path,
    cancel: &Cancel,
) -> Option<FileScan> {
    let in_place = bytes.len() <= SLICE_BYTES && memchr::memchr(0, bytes).is_none();
    let input = if in_place { Input::Bytes(bytes) } else { Input::Read(bytes) };
    scan_input(searcher, matcher, input, scan, name, cancel)
}

/// The line buffer grep-searcher starts with (its default capacity): a file
/// read no further cannot have grown it.
const INITIAL_BUFFER_BYTES: u64 = 64 << 10;

/// The largest contents `scan_read` searches as one slice: half the line
/// buffer's cap, so a read chunk by chunk could never have met a line too long.
const SLICE_BYTES: usize = MAX_LINE_BUFFER_BYTES / 2;

fn scan_input(
    searcher: &mut Searcher,
    matcher: &ContentMatcher,
    input: Input<'_>,
    scan: Scan,
    name: &std::path::Path,
    cancel: &Cancel,
) -> Option<FileScan> {
    // Contents taken in place hold no NUL and no line too long: for a count
    // of a plain string's lines, a substring search finds what the engine
    // would, without its work per matching line.
    if let (Input::Bytes(bytes), Some(finder), Scan::Any | Scan::Count | Scan::Totals) =
        (&input, matcher.fixed_line(), scan)
    {
        return Some(FileScan { count: lines_holding(finder, bytes, scan == Scan::Any), ..FileScan::default() });
    }
    // A thread's searcher is made line by line; a multiline search needs its own.
    if searcher.multi_line() != matcher.modes.multiline {
        *searcher = builder_for(matcher.modes.multiline)
            .line_number(searcher.line_number())
            .binary_detection(searcher.binary_detection().clone())
            .before_context(searcher.before_context())
            .after_context(searcher.after_context())
            .build();
    }
    // A panic in an engine must not unwind through the walker threads.
    let done = catch_unwind(AssertUnwindSafe(|| match input {
        Input::File(mut file) => search_file(searcher, matcher, &mut file, scan, cancel),
        Input::Chunks(mut chunks) => search_file(searcher, matcher, &mut chunks, scan, cancel),
        Input::Read(bytes) => search_file(searcher, matcher, &mut io::Cursor::new(bytes), scan, cancel),
        Input::Bytes(bytes) => {
            let mut sink = Collect::new(scan, matcher, None);
            search(searcher, &matcher.engine, From::<&[u8]>::Slice(bytes), &mut sink).map(|()| sink)
        }
    }));
    let shown = || name.to_string_lossy();
    match done {
        Ok(Ok(sink)) if sink.binary => FileScan::left_out(SkipReason::Binary),
        Ok(Ok(mut sink)) => {
            // The sink knows no file: its lines are named here, once each.
            if !sink.found.lines.is_empty() {
                let file = crate::path_bytes::posix_string(name);
                sink.found.lines.iter_mut().for_each(|line| line.file.clone_from(&file));
            }
            Some(sink.found)
        }
        Ok(Err(Stop::Io(e))) if is_skippable(&e) || e.kind() == io::ErrorKind::InvalidInput => None,
        Ok(Err(Stop::Io(e))) => {
            matcher.fail_io(&shown(), "cannot read", &e);
            None
        }
        // Line by line, only the pieces could outgrow the buffer, and they
        // are far smaller; multiline, a file over its cap is passed over.
        Ok(Err(Stop::TooLong)) if matcher.modes.multiline => FileScan::left_out(SkipReason::TooLarge),
        Ok(Err(Stop::TooLong)) => None,
        Ok(Err(Stop::Cancelled)) => {
            if let Err(e) = cancel.check() {
                matcher.fail_with(e);
            }
            None
        }
        Ok(Err(Stop::Engine(why))) => {
            matcher.fail(&shown(), &why);
            None
        }
        Err(_) => {
            matcher.fail(&shown(), "the regex engine panicked (an internal error in agent-find; please report it)");
            None
        }
    }
}

/// The lines of `bytes` that hold what `finder` looks for (the first one
/// only, with `first_only`), each counted once.
fn lines_holding(finder: &memchr::memmem::Finder<'_>, bytes: &[u8], first_only: bool) -> u64 {
    let (mut lines, mut at) = (0, 0);
    while let Some(found) = finder.find(&bytes[at..]) {
        lines += 1;
        let start = at + found;
        match memchr::memchr(b'\n', &bytes[start..]) {
            Some(end) if !first_only => at = start + end + 1,
            _ => break,
        }
    }
    lines
}

/// Searches `file`: as it is, and if a line outgrows the buffer, again from
/// the start with over-long lines cut into pieces.
fn search_file<'m>(
    searcher: &mut Searcher,
    matcher: &'m ContentMatcher,
    file: &mut impl Rewind,
    scan: Scan,
    cancel: &Cancel,
) -> Result<Collect<'m>, Stop> {
    let mut sink = Collect::new(scan, matcher, None);
    let read = Cell::new(0);
    let done =
        search(searcher, &matcher.engine, From::Reader(Checked { file, cancel, cutter: None, read: &read }), &mut sink);
    // A line longer than the buffer grows it, and a larger buffer reads
    // larger chunks, which would change where a later file's NUL stops its
    // search (and whether a match before it counts): every file starts from
    // the same buffer, so answers do not depend on what a thread read before.
    if read.get() > INITIAL_BUFFER_BYTES {
        *searcher = builder_for(matcher.modes.multiline)
            .line_number(searcher.line_number())
            .binary_detection(searcher.binary_detection().clone())
            .before_context(searcher.before_context())
            .after_context(searcher.after_context())
            .build();
    }
    match done {
        // Pieces would break what a multiline match may span: such a file
        // is over `MAX_MULTILINE_FILE_BYTES`, and passed over.
        Err(Stop::TooLong) if !matcher.modes.multiline => {}
        done => return done.map(|()| sink),
    }
    file.rewind_to_start().map_err(Stop::Io)?;
    let breaks = Rc::new(RefCell::new(Vec::new()));
    let pieces = Pieces { breaks: Rc::clone(&breaks), engine: &matcher.engine, last: None };
    let mut sink = Collect::new(scan, matcher, Some(pieces));
    let cutter = Some(Cutter::new(breaks));
    let mut in_pieces = builder().line_number(true).binary_detection(searcher.binary_detection().clone()).build();
    let read = Cell::new(0);
    search(&mut in_pieces, &matcher.engine, From::Reader(Checked { file, cancel, cutter, read: &read }), &mut sink)?;
    Ok(sink)
}

/// What a searcher reads.
enum From<'a, R> {
    Reader(R),
    Slice(&'a [u8]),
}

fn search<R: Read>(
    searcher: &mut Searcher,
    engine: &Engine,
    from: From<'_, R>,
    sink: &mut Collect,
) -> Result<(), Stop> {
    match (engine, from) {
        (Engine::Rust(m), From::Reader(r)) => searcher.search_reader(m, r, sink),
        (Engine::Rust(m), From::Slice(b)) => searcher.search_slice(m, b, sink),
        (Engine::Pcre2(m), From::Reader(r)) => searcher.search_reader(m.as_ref(), r, sink),
        (Engine::Pcre2(m), From::Slice(b)) => searcher.search_slice(m.as_ref(), b, sink),
    }
}

/// What the sink needs to map pieces back to the lines they were cut from.
struct Pieces<'a> {
    breaks: Rc<RefCell<Vec<u64>>>,
    engine: &'a Engine,
    /// The real line last counted: a line's pieces count once.
    last: Option<u64>,
}

struct Collect<'a> {
    scan: Scan,
    matcher: &'a ContentMatcher,
    found: FileScan,
    binary: bool,
    pieces: Option<Pieces<'a>>,
    /// The matching lines reported (with `multiline`, the runs of matches
    /// on touching lines, each reported once, as rg prints them).
    reported: u64,
    /// Context lines heard since the last match, for the next one.
    before: Vec<ContextLine>,
    /// A match past the lines kept was heard: later context is no kept match's.
    closed: bool,
    /// With `maxPerFile` and `after`: the limit is reached, and this many
    /// lines after the last match are still to be kept as its `after`
    /// lines, matching or not (as rg -m prints them; a later run of matches
    /// over several lines counts as one, as rg counts it).
    trailing: Option<u64>,
}

impl<'a> Collect<'a> {
    fn new(scan: Scan, matcher: &'a ContentMatcher, pieces: Option<Pieces<'a>>) -> Collect<'a> {
        Collect {
            scan,
            matcher,
            found: FileScan::default(),
            binary: false,
            pieces,
            reported: 0,
            before: Vec::new(),
            closed: false,
            trailing: None,
        }
    }

    /// Whether the search of this file goes on after a match: not when one
    /// is all it asks, nor once `maxPerFile` are reported (as rg -m, which
    /// with -U counts a run of matches as one) or, for `Scan::Totals`,
    /// counted (as `rg --count -m`).
    fn go_on(&self) -> bool {
        match (self.scan, self.matcher.modes.max_per_file) {
            (Scan::Any, _) => false,
            (_, None) => true,
            (Scan::Totals, Some(max)) => self.found.count < max,
            (_, Some(max)) => self.reported < max,
        }
    }

    /// Keeps `lines` (a context line, or a run of matches) as `after`
    /// lines of the last match kept, once the limit is reached; whether
    /// more are still to come.
    fn trail(&mut self, lines: impl IntoIterator<Item = ContextLine>) -> bool {
        let Some(left) = self.trailing.filter(|&left| left > 0) else { return false };
        if let Some(last) = self.found.lines.last_mut() {
            last.after.extend(lines);
        }
        self.trailing = Some(left - 1);
        left > 1
    }
}

/// Why a file's search stopped early.
#[derive(Debug)]
enum Stop {
    /// Reading failed.
    Io(io::Error),
    /// A line outgrew the buffer's cap.
    TooLong,
    /// The search was cancelled or ran out of time.
    Cancelled,
    /// The regex engine failed (grep-searcher reports matcher errors as messages).
    Engine(String),
}

impl SinkError for Stop {
    fn error_message<T: std::fmt::Display>(message: T) -> Self {
        Stop::Engine(message.to_string())
    }

    fn error_io(e: io::Error) -> Self {
        if e.get_ref().is_some_and(|inner| inner.is::<Cancelled>()) {
            Stop::Cancelled
        } else if e.raw_os_error().is_none() && e.to_string().contains("allocation limit") {
            // grep-searcher's error for a line over `heap_limit`.
            Stop::TooLong
        } else {
            Stop::Io(e)
        }
    }
}

impl Sink for Collect<'_> {
    type Error = Stop;

    fn matched(&mut self, searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Stop> {
        if self.trailing.is_some() {
            // Past the limit, a match in the last one's `after` lines is one
            // of them (rg prints it there; the limit still holds). A run's
            // lines are as many as a match shows.
            let first = mat.line_number().unwrap_or(0);
            let lines = mat.lines().take(MAX_MATCH_LINES).zip(first..);
            return Ok(self.trail(lines.map(|(bytes, line)| ContextLine { line, text: line_text(bytes) })));
        }
        let mut line = mat.line_number().unwrap_or(0);
        let (mut cut, mut lead) = (false, false);
        if let Some(pieces) = &mut self.pieces {
            let breaks = pieces.breaks.borrow();
            let at = mat.absolute_byte_offset();
            let end = at + mat.bytes().len() as u64;
            // Cuts before this piece added lines that are not the file's.
            line = line.saturating_sub(breaks.partition_point(|&b| b < at) as u64);
            if pieces.last == Some(line) {
                drop(breaks);
                return Ok(self.go_on());
            }
            pieces.last = Some(line);
            let cut_before = at > 0 && breaks.binary_search(&(at - 1)).is_ok();
            let cut_after = end > 0 && breaks.binary_search(&(end - 1)).is_ok();
            cut = cut_before || cut_after;
            lead = cut_before;
        }
        self.reported += 1;
        // A run of matches on touching lines comes as one report when the
        // pattern can match a line end: counted match by match, as
        // `rg --count -U` counts it; line by line, a line counts once.
        self.found.count += match self.matcher.engine.spans_lines(searcher) {
            true => {
                let mut n = 0;
                self.matcher.engine.match_starts(mat.buffer(), mat.bytes_range_in_buffer(), |_| {
                    n += 1;
                    true
                });
                n.max(1)
            }
            false => 1,
        };
        let wanted = match self.scan {
            Scan::Lines(n) => self.found.lines.len() < n,
            Scan::Window { from_line, skip, n } if line >= from_line => {
                self.found.window += 1;
                self.found.window > skip && self.found.lines.len() < n
            }
            _ => false,
        };
        let before = std::mem::take(&mut self.before);
        if wanted {
            let (text, column) = match (&self.pieces, cut) {
                (Some(pieces), true) => (around_match(pieces.engine, mat.bytes(), lead), None),
                (Some(_), false) => (line_text(mat.bytes()), None),
                _ if self.matcher.engine.spans_lines(searcher) => run_text(&self.matcher.engine, mat),
                _ => matched_text(&self.matcher.engine, mat.bytes()),
            };
            let patterns = self.matcher.which(mat.bytes());
            self.found.lines.push(LineMatch {
                file: String::new(),
                line,
                text,
                patterns,
                column,
                before,
                after: Vec::new(),
            });
        } else if !self.found.lines.is_empty() {
            // A match past the lines kept: later context is no kept match's.
            self.closed = true;
        }
        let go_on = self.go_on();
        // The limit reached on a match kept: its `after` lines are still
        // shown, as rg -m N -A prints them.
        let after = searcher.after_context() as u64;
        if !go_on && wanted && after > 0 && self.scan != Scan::Any && self.pieces.is_none() {
            self.trailing = Some(after);
            return Ok(true);
        }
        Ok(go_on)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, Stop> {
        // Inside pieces of an over-long line, context lines would be pieces.
        if self.closed || self.pieces.is_some() || !matches!(self.scan, Scan::Lines(_) | Scan::Window { .. }) {
            return Ok(true);
        }
        let line = ContextLine { line: context.line_number().unwrap_or(0), text: line_text(context.bytes()) };
        if self.trailing.is_some() {
            return Ok(*context.kind() == SinkContextKind::After && self.trail([line]));
        }
        match (context.kind(), self.found.lines.last_mut()) {
            (SinkContextKind::After, Some(last)) => last.after.push(line),
            (SinkContextKind::After, None) => {}
            _ => self.before.push(line),
        }
        Ok(true)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{LINE_PIECE_BYTES, MAX_LINE_CHARS};
    use crate::search::shown::{CUT_MARK, LEAD_MARK};
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
            &Cancel::never(),
        )
        .unwrap();
        assert_eq!(found.count, 2);
        assert_eq!(
            found.lines,
            vec![LineMatch {
                file: found.lines[0].file.clone(),
                line: 1,
                text: "alpha".into(),
                ..LineMatch::default()
            }]
        );
        let all = scan_file(
            &mut new_searcher(Scan::Lines(10)),
            &matcher("beta"),
            File::open(&p),
            Scan::Lines(10),
            Path::new("f"),
            &Cancel::never(),
        )
        .unwrap();
        assert_eq!(
            all.lines[1],
            LineMatch { file: all.lines[1].file.clone(), line: 3, text: "alpha beta".into(), ..LineMatch::default() }
        );
        let any = scan_file(
            &mut new_searcher(Scan::Any),
            &matcher("a"),
            File::open(&p),
            Scan::Any,
            Path::new("f"),
            &Cancel::never(),
        )
        .unwrap();
        assert_eq!(any.count, 1);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn context_lines_come_once_and_alike_from_a_file_and_from_memory() {
        let bytes = b"a\nhit 2\nb\nhit 4\nc\nd\ne\nf\nhit 9\ng\n";
        let (_tree, p) = file("context", bytes);
        let m = matcher("hit");
        let shape = |found: FileScan| {
            found
                .lines
                .iter()
                .map(|h| {
                    let lines = |c: &[ContextLine]| c.iter().map(|c| c.line).collect::<Vec<_>>();
                    (lines(&h.before), h.line, lines(&h.after))
                })
                .collect::<Vec<_>>()
        };
        let run_file = |scan| {
            scan_file(&mut context_searcher(1, 2), &m, File::open(&p), scan, Path::new("f"), &Cancel::never()).unwrap()
        };
        let expected = vec![(vec![1], 2, vec![3]), (vec![], 4, vec![5, 6]), (vec![8], 9, vec![10])];
        assert_eq!(shape(run_file(Scan::Lines(10))), expected);
        let from_memory =
            scan_read(&mut context_searcher(1, 2), &m, bytes, Scan::Lines(10), Path::new("f"), &Cancel::never());
        assert_eq!(shape(from_memory.unwrap()), expected);
        // Cut at two matches: the second keeps its after lines, the third's before is dropped.
        let cut = run_file(Scan::Lines(2));
        assert_eq!(cut.count, 3);
        assert_eq!(shape(cut), expected[..2]);
        assert_eq!(run_file(Scan::Lines(1)).lines[0].after[0], ContextLine { line: 3, text: "b".into() });
    }

    #[test]
    fn binary_and_missing_files_are_skipped() {
        let (_tree, p) = file("bin", b"needle\n\x00\x01\x02needle\n");
        let found = scan_file(
            &mut new_searcher(Scan::Count),
            &matcher("needle"),
            File::open(&p),
            Scan::Count,
            Path::new("f"),
            &Cancel::never(),
        )
        .expect("a binary file is left out, and said so");
        assert_eq!((found.count, found.lines.len(), found.left_out), (0, 0, Some(SkipReason::Binary)));
        std::fs::remove_file(&p).unwrap();
        assert!(scan_file(
            &mut new_searcher(Scan::Count),
            &matcher("needle"),
            File::open(&p),
            Scan::Count,
            Path::new("f"),
            &Cancel::never()
        )
        .is_none());
    }

    #[test]
    fn lookaround_and_backreferences_run_on_the_fallback() {
        let (_tree, p) = file("fallback", b"foobar\nfoobaz\nxfoo\naab\r\nab\n\xff\xfeaa\n");
        let run = |pattern: &str, ignore_case: bool| {
            let m = ContentMatcher::new(pattern, ignore_case).unwrap();
            assert!(m.is_fallback(), "{pattern}");
            let found = scan_file(
                &mut new_searcher(Scan::Lines(10)),
                &m,
                File::open(&p),
                Scan::Lines(10),
                Path::new("f"),
                &Cancel::never(),
            );
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
        let found = scan_file(
            &mut new_searcher(Scan::Count),
            &m,
            File::open(&p),
            Scan::Count,
            Path::new("big.txt"),
            &Cancel::never(),
        );
        assert!(found.is_none());
        let e = m.failure().expect("PCRE2 stops at its match limit");
        assert_eq!(e.code, crate::error::ErrorCode::InvalidPattern);
        assert!(e.message.contains("`big.txt`"), "{}", e.message);
        std::fs::remove_file(p).unwrap();
    }

    /// Scans the file at `p` for `pattern`.
    fn scan_at(p: &Path, pattern: &str, scan: Scan, cancel: &Cancel) -> (Option<FileScan>, ContentMatcher) {
        let m = matcher(pattern);
        let found = scan_file(&mut new_searcher(scan), &m, File::open(p), scan, Path::new("f"), cancel);
        (found, m)
    }

    #[test]
    fn a_line_longer_than_the_buffer_is_searched_in_pieces() {
        // Short lines, then one line of 3 times the buffer cap with a match
        // across a cut and one near its end, then short lines again.
        let long = MAX_LINE_BUFFER_BYTES * 3;
        let mut bytes = b"first needle\nplain\n".to_vec();
        let line_start = bytes.len();
        bytes.resize(line_start + long, b'a');
        let across = line_start + LINE_PIECE_BYTES - 3; // "needle" spans the first cut
        bytes[across..across + 6].copy_from_slice(b"needle");
        let late = line_start + long - 1000;
        bytes[late..late + 12].copy_from_slice("é needle é".as_bytes());
        bytes.extend_from_slice(b"\nafter\nlast needle\n");
        // Many short lines after it, a few matching (lines 6 to 20,005).
        for n in 0..20_000 {
            bytes.extend_from_slice(if n % 5000 == 0 { b"short needle\n" } else { b"short line\n" });
        }
        let (_tree, p) = file("long", &bytes);
        let (found, m) = scan_at(&p, "needle", Scan::Lines(10), &Cancel::never());
        let found = found.expect("searched, not skipped");
        assert!(m.failure().is_none());
        assert_eq!(found.count, 7, "the long line counts once");
        let lines: Vec<u64> = found.lines.iter().map(|l| l.line).collect();
        assert_eq!(lines, [1, 3, 5, 6, 5006, 10006, 15006], "real line numbers, not pieces");
        // Found in the piece after the cut (it repeats the cut's last bytes).
        let text = &found.lines[1].text;
        assert!(text.starts_with(LEAD_MARK) && text.contains("aaneedleaa") && text.ends_with(CUT_MARK), "{text}");
        assert_eq!(found.lines[2].text, "last needle");
        // A match at the start of the line: shown from there, cut at the end only.
        let (found, _) = scan_at(&p, "^a{10}", Scan::Lines(10), &Cancel::never());
        let found = found.unwrap();
        assert_eq!(found.count, 1);
        let text = &found.lines[0].text;
        assert!(text.starts_with("aaaaaaaaaa") && text.ends_with(CUT_MARK), "{text}");
        // Only a match past the first piece: shown from just before it, marked.
        let (found, _) = scan_at(&p, "é needle", Scan::Lines(10), &Cancel::never());
        let hit = &found.unwrap().lines[0];
        assert_eq!(hit.line, 3);
        assert!(hit.text.starts_with(LEAD_MARK) && hit.text.contains("é needle é"), "{}", hit.text);
        assert!(hit.text.chars().count() < MAX_LINE_CHARS + 40, "{}", hit.text);
        assert_eq!(scan_at(&p, "needle", Scan::Count, &Cancel::never()).0.unwrap().count, 7);
        assert_eq!(scan_at(&p, "é needle", Scan::Any, &Cancel::never()).0.unwrap().count, 1);
        assert_eq!(scan_at(&p, "nothing", Scan::Count, &Cancel::never()).0.unwrap().count, 0);
    }

    #[test]
    fn a_cancel_stops_inside_a_file_and_is_recorded() {
        let (_tree, p) = file("cancel", "needle\n".repeat(100_000).as_bytes());
        let flag = crate::cancel::CancelFlag::default();
        flag.cancel();
        let (found, m) = scan_at(&p, "needle", Scan::Count, &Cancel::new(flag, None));
        assert!(found.is_none());
        assert_eq!(m.failure().expect("recorded").code, crate::error::ErrorCode::Aborted);
        let (found, m) = scan_at(&p, "needle", Scan::Count, &Cancel::new(Default::default(), Some(0)));
        assert!(found.is_none());
        assert!(m.failure().expect("recorded").message.contains("timeoutMs"));
    }

    #[cfg(unix)]
    #[test]
    fn a_file_that_cannot_be_opened_fails_unless_gone_or_denied() {
        let run = |err: std::io::Error| {
            let m = matcher("x");
            let found = scan_file(
                &mut new_searcher(Scan::Count),
                &m,
                Err(err),
                Scan::Count,
                Path::new("a.txt"),
                &Cancel::never(),
            );
            // Denied is left out and said so; gone, or anything else, gives nothing.
            let denied = found.as_ref().is_some_and(|f| f.left_out == Some(SkipReason::Denied) && f.count == 0);
            assert!(found.is_none() || denied);
            m.failure()
        };
        assert!(run(std::io::Error::from_raw_os_error(libc::ENOENT)).is_none());
        assert!(run(std::io::Error::from_raw_os_error(libc::EACCES)).is_none());
        assert!(run(std::io::Error::from_raw_os_error(libc::ELOOP)).is_none(), "a symlink is not followed");
        let e = run(std::io::Error::from_raw_os_error(libc::EMFILE)).expect("out of descriptors fails");
        assert_eq!(e.code, crate::error::ErrorCode::FsError);
        assert!(e.message.contains("`a.txt`") && e.message.contains("ulimit -n"), "{}", e.message);
        let e = run(std::io::Error::from_raw_os_error(libc::EIO)).expect("an I/O error fails");
        assert_eq!(e.code, crate::error::ErrorCode::FsError);
    }

    /// A matcher read as `rg -U [-m max]` reads `pattern`.
    fn multiline(pattern: &str, max: Option<u64>) -> ContentMatcher {
        let modes = super::super::matcher::Modes { multiline: true, max_per_file: max, ..Default::default() };
        ContentMatcher::build(&[pattern], modes, false).unwrap()
    }

    /// What `scan` of `bytes` finds: the count, and each kept line's number and text.
    fn scan_bytes(m: &ContentMatcher, bytes: &[u8], scan: Scan, searcher: Searcher) -> (u64, Vec<(u64, String)>) {
        let found = scan_read(&mut { searcher }, m, bytes, scan, Path::new("f"), &Cancel::never()).unwrap();
        (found.count, found.lines.into_iter().map(|h| (h.line, h.text)).collect())
    }

    #[test]
    fn a_plain_string_counted_without_the_engine_counts_as_the_engine_does() {
        use super::super::matcher::Modes;
        let texts: [&[u8]; 7] = [
            b"function a() {}\nfunction b() { function c() {} }\nnone\n",
            b"functionfunction\n\nfunction",
            b"x\r\nfunction\r\n\r\nfunction\r\n",
            b"aaaa\naa\na\n",
            b"caf\xc3\xa9 na\xc3\xafve\n\xff\xfe not utf-8 caf\xc3\xa9\n",
            b"foo( bar\nfoo(\n(foo\n",
            b"",
        ];
        let plain = [
            ("function", false),
            ("aa", false),
            ("caf\u{e9}", false),
            ("a\\.b", false),
            ("foo(", true),
            ("\\x41", false),
        ];
        for (pattern, literal) in plain {
            let m = ContentMatcher::build(&[pattern], Modes { literal, ..Modes::default() }, false).unwrap();
            assert!(m.fixed_line().is_some(), "{pattern} is a plain string");
            for (i, text) in texts.iter().enumerate() {
                let (_tree, path) = file(&format!("fixed-{i}"), text);
                for scan in [Scan::Any, Scan::Count, Scan::Totals] {
                    let engine =
                        scan_file(&mut new_searcher(scan), &m, File::open(&path), scan, &path, &Cancel::never());
                    let fixed = scan_read(&mut new_searcher(scan), &m, text, scan, &path, &Cancel::never());
                    assert_eq!(fixed.map(|f| f.count), engine.map(|f| f.count), "{pattern} in text {i}, {scan:?}");
                }
            }
        }
        // Not one plain string, or not line by line, or case ignored: the engine counts.
        let not_plain: [(&str, Modes); 8] = [
            ("a.b", Modes::default()),
            ("(?i)abc", Modes::default()),
            ("abc", Modes { ignore_case: true, ..Modes::default() }),
            ("abc", Modes { multiline: true, ..Modes::default() }),
            ("abc", Modes { max_per_file: Some(1), ..Modes::default() }),
            ("a|b", Modes::default()),
            ("", Modes::default()),
            ("^abc", Modes::default()),
        ];
        for (pattern, modes) in not_plain {
            let m = ContentMatcher::build(&[pattern], modes, false).unwrap();
            assert!(m.fixed_line().is_none(), "{pattern} with {modes:?}");
        }
        let both = ContentMatcher::build(&["abc", "def"], Modes::default(), false).unwrap();
        assert!(both.fixed_line().is_none(), "two patterns");
        let each = ContentMatcher::build(&["abc"], Modes::default(), true).unwrap();
        assert!(each.fixed_line().is_none(), "each line says which patterns match it");
    }

    #[test]
    fn multiline_counts_lines_or_matches_as_rg_count_does() {
        let count = |pattern: &str, max: Option<u64>, bytes: &[u8], scan: Scan| {
            scan_bytes(&multiline(pattern, max), bytes, scan, new_searcher(scan)).0
        };
        // A pattern that cannot match a line end is searched line by line: a line counts once.
        assert_eq!(count("fn", None, b"fn fn fn\n", Scan::Totals), 1);
        assert_eq!(count("fn", None, b"fn\nfn fn\nx\nfn\n", Scan::Count), 3);
        // One that can counts the matches of each run (rg -U --count: 3 and 4).
        assert_eq!(count(r"fn\s?", None, b"fn fn fn\n", Scan::Totals), 3);
        assert_eq!(count(r"fn\s?", None, b"fn\nfn fn\nx\nfn\n", Scan::Totals), 4);
        // Runs of "a\nb": lines 1-3 (two matches), 5-6, 8-9.
        let runs = b"a\nb a\nb\nx\na\nb\nz\na\nb\n";
        assert_eq!(count(r"a\nb", None, runs, Scan::Totals), 4);
        // `rg --count -m N` stops once the count reaches N: 2, 2, 3.
        let totals: Vec<u64> = (1..=3).map(|n| count(r"a\nb", Some(n), runs, Scan::Totals)).collect();
        assert_eq!(totals, [2, 2, 3]);
        // `rg -n -m N` prints N runs; their matches are counted: 2, 3, 4.
        let counted: Vec<u64> = (1..=3).map(|n| count(r"a\nb", Some(n), runs, Scan::Count)).collect();
        assert_eq!(counted, [2, 3, 4]);
        let (n, lines) = scan_bytes(&multiline(r"a\nb", Some(2)), runs, Scan::Lines(10), new_searcher(Scan::Lines(10)));
        assert_eq!((n, lines), (3, vec![(1, "a\nb a\nb".to_string()), (5, "a\nb".to_string())]));
    }

    #[test]
    fn max_per_file_keeps_the_after_lines_of_the_last_match() {
        let m = ContentMatcher::build(
            &["needle"],
            super::super::matcher::Modes { max_per_file: Some(1), ..Default::default() },
            false,
        )
        .unwrap();
        let after = |bytes: &[u8], lines: usize| {
            let found = scan_read(
                &mut context_searcher(0, lines),
                &m,
                bytes,
                Scan::Lines(10),
                Path::new("f"),
                &Cancel::never(),
            )
            .unwrap();
            assert_eq!(found.count, 1);
            found.lines.iter().map(|h| (h.line, h.after.iter().map(|c| c.line).collect::<Vec<_>>())).collect::<Vec<_>>()
        };
        assert_eq!(after(b"needle\na\nb\nc\nneedle\n", 2), [(1, vec![2, 3])]);
        // A match among them is one of them (rg prints it there; the limit holds).
        assert_eq!(after(b"x\nneedle\nneedle\nneedle\ny\n", 2), [(2, vec![3, 4])]);
        assert_eq!(after(b"needle\na\nneedle\nb\nc\n", 3), [(1, vec![2, 3, 4])]);
        // At the end of the file, what there is.
        assert_eq!(after(b"needle\na\n", 3), [(1, vec![2])]);
        // Multiline: after the match's last line; a later run among them
        // counts once, as rg -U -m 1 -A 3 prints 3-x, 4:needle, 5:a, 6-b.
        let m = multiline(r"needle\na", Some(1));
        let found = scan_read(
            &mut context_searcher(0, 3),
            &m,
            b"needle\na\nx\nneedle\na\nb\n",
            Scan::Lines(10),
            Path::new("f"),
            &Cancel::never(),
        )
        .unwrap();
        assert_eq!(found.count, 1);
        let after: Vec<(u64, &str)> = found.lines[0].after.iter().map(|c| (c.line, c.text.as_str())).collect();
        assert_eq!(after, [(3, "x"), (4, "needle"), (5, "a"), (6, "b")]);
    }

    #[test]
    fn a_multiline_match_past_a_long_lines_cut_is_shown_around_it() {
        let long = format!("{} needle here\nnext line\n", "y".repeat(3000));
        for pattern in ["needle", r"needle here\nnext"] {
            let found = scan_read(
                &mut new_searcher(Scan::Lines(1)),
                &multiline(pattern, None),
                long.as_bytes(),
                Scan::Lines(1),
                Path::new("f"),
                &Cancel::never(),
            )
            .unwrap();
            let hit = &found.lines[0];
            assert_eq!(hit.column, Some(3002), "{pattern}");
            let first = hit.text.split('\n').next().unwrap();
            assert!(first.starts_with(LEAD_MARK) && first.ends_with(" needle here"), "{pattern}: {first}");
        }
        // A later line of a run: shown around the first match on it, with no column (the first line is short).
        let bytes = format!("a\n{}b\nc\n", "y".repeat(3000));
        let (n, lines) =
            scan_bytes(&multiline(r"a\n|b\nc", None), bytes.as_bytes(), Scan::Lines(1), new_searcher(Scan::Lines(1)));
        assert_eq!(n, 2);
        let shown: Vec<&str> = lines[0].1.split('\n').collect();
        assert_eq!((shown.len(), shown[0], shown[2]), (3, "a", "c"));
        assert!(shown[1].starts_with(LEAD_MARK) && shown[1].ends_with("yb"), "{}", shown[1]);
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
