//! The walk of a `searchFiles` call: each file the walk admits goes to the
//! selector of the call's target (`Selector`: a name glob, a fuzzy
//! ranking, or a regex over the contents), which keeps it as a `Hit` or
//! not. A host's storage cannot open files on the walker threads: its
//! files' contents are read after the walk (`read_listed`). Under a
//! `partial` budget, files past it are noted as unsearched, and at least
//! the first of them is searched (`search_first_unsearched`). A live
//! index's walk also teaches the index the contents it reads (`Sketching`).

use super::content::{binary_searcher, new_searcher, scan_contents, scan_file, scan_read, FileScan, Scan};
use super::cursor::{Budget, Order};
use super::fuzzy;
use super::matcher::ContentMatcher;
use super::{OutputMode, SearchConfig, Target};
use crate::cancel::Cancel;
use crate::content_sketch::{RuledOut, Sketcher, MAX_SKETCHED_FILE_BYTES};
use crate::entry::EntryKind;
use crate::error::{FindError, Result};
use crate::path_bytes::posix_string;
use crate::pattern::NameMatcher;
use crate::result::SkipReason;
use crate::source::{walk_screened, Contents, Root};
use crate::walk::{Entry, Screen, WalkRules, Walked};
use grep_searcher::Searcher;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// One file that matched, as a walker thread reports it.
pub(super) struct Hit {
    pub path: String,
    /// The path to open (the real name, also when it is not UTF-8).
    pub relative: PathBuf,
    /// Matching lines (or 1 for a file that matched); `UNREAD` for a file
    /// in a storage, read after the walk (see `read_listed`).
    pub count: u64,
    pub mtime_ms: f64,
    /// Its place in a fuzzy search's order.
    pub rank: Option<fuzzy::Rank>,
}

pub(super) const UNREAD: u64 = u64::MAX;

/// What one call's walk asks of a file, shared by its walker threads.
struct Gathering<'a> {
    config: &'a SearchConfig,
    scan: Scan,
    /// A selector opens files on the walker threads (not a storage).
    reads_in_walk: bool,
    newest_first: bool,
    wanted: &'a (dyn Fn(&Path) -> bool + Sync),
    on_match: &'a (dyn Fn(&Path) + Sync),
    budget: Option<&'a Budget>,
    /// Files the search itself left out, by reason (binary, denied, too
    /// large), for `skipped`.
    left_out: [AtomicU64; SkipReason::ALL.len()],
}

impl Gathering<'_> {
    fn searcher(&self) -> Searcher {
        if self.config.search_binary {
            binary_searcher()
        } else {
            new_searcher(self.scan)
        }
    }

    /// The count of a file's scan, noting why it was left out if it was.
    fn note(&self, found: FileScan) -> u64 {
        if let Some(reason) = found.left_out {
            self.count_left_out(reason);
        }
        found.count
    }

    fn count_left_out(&self, reason: SkipReason) {
        self.left_out[reason as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// What a saved sketch of `relative` says, when the file on disk still
    /// has the stamp it was saved with (see `SearchConfig::saved`). The
    /// sketch is asked first: a file it cannot rule out is read anyway,
    /// with no stamp read for it.
    fn saved_rules_out(&self, regex: &ContentMatcher, relative: &Path, entry: &Entry) -> Option<RuledOut> {
        let saved = self.config.saved.as_ref().filter(|_| !self.config.search_binary)?;
        let record = saved.get(relative.as_os_str().as_encoded_bytes())?;
        let out = regex.rules_out(&record.sketch)?;
        (entry.stamp()? == record.stamp).then_some(out)
    }

    /// A selector for one walker thread.
    fn selector(&self) -> Selector<'_> {
        match &self.config.target {
            Target::Files { name } => Selector::Name(name),
            Target::Fuzzy { query } => Selector::Fuzzy(query.scorer()),
            Target::Content { regex, file_glob, .. } => Selector::Content {
                regex,
                file_glob: file_glob.as_ref(),
                searcher: self.searcher(),
                sketching: Sketching::default(),
            },
        }
    }

    /// The hit a selector made of a file it kept with `count`.
    fn hit(&self, relative: &Path, entry: &Entry, count: u64) -> Option<Hit> {
        if count != UNREAD {
            (self.on_match)(relative);
        }
        // As `find` does: a file that vanished is dropped, one whose
        // metadata cannot be read (in a folder listable but not
        // enterable) is kept with time 0, so the live index (which holds
        // it so) and a walk list the same files.
        let mtime_ms = match self.newest_first.then(|| entry.stat()) {
            Some(Ok(st)) => st.meta.mtime_ms,
            Some(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => return None,
            _ => 0.0,
        };
        Some(Hit { path: posix_string(relative), relative: relative.to_path_buf(), count, mtime_ms, rank: None })
    }
}

/// What a walker thread does with each file the walk admits, by target.
enum Selector<'a> {
    /// A glob over names.
    Name(&'a NameMatcher),
    /// A ranking of names against a query.
    Fuzzy(fuzzy::Scorer<'a>),
    /// A regex over contents, with this thread's searcher.
    Content { regex: &'a ContentMatcher, file_glob: Option<&'a NameMatcher>, searcher: Searcher, sketching: Sketching },
}

impl Selector<'_> {
    /// The hit `relative` makes, if it matches.
    fn select(&mut self, call: &Gathering<'_>, relative: &Path, entry: &Entry, cancel: &Cancel) -> Option<Hit> {
        match self {
            Selector::Name(name) => {
                let count = u64::from(name.is_match(relative));
                (count > 0).then(|| call.hit(relative, entry, count)).flatten()
            }
            Selector::Fuzzy(scorer) => {
                // Ranked by name alone: no time to read, no contents.
                let rank = match relative.to_str() {
                    Some(text) if std::path::MAIN_SEPARATOR == '/' => scorer.rank(text)?,
                    _ => scorer.rank(&posix_string(relative))?,
                };
                (call.on_match)(relative);
                // `relative` is only kept to read a file's contents later: not here.
                let path = posix_string(relative);
                Some(Hit { path, relative: PathBuf::new(), count: 1, mtime_ms: 0.0, rank: Some(rank) })
            }
            Selector::Content { regex, file_glob, searcher, sketching } => {
                if file_glob.is_some_and(|g| !g.is_match(relative)) {
                    return None;
                }
                let count = count_in_file(call, regex, searcher, sketching, relative, entry, cancel)?;
                (count > 0).then(|| call.hit(relative, entry, count)).flatten()
            }
        }
    }
}

/// The matching lines of a file the walk admitted (`UNREAD` for a storage's,
/// read after the walk); `None` when it is not searched at all.
fn count_in_file(
    call: &Gathering<'_>,
    regex: &ContentMatcher,
    searcher: &mut Searcher,
    sketching: &mut Sketching,
    relative: &Path,
    entry: &Entry,
    cancel: &Cancel,
) -> Option<u64> {
    // An empty file holds no line to match: not opened.
    if entry.known_size() == Some(0) {
        return None;
    }
    // A live index's cache may hold the contents (its sketches ruled out
    // files before they were offered: see `Screen`).
    let known = entry.known();
    // Past the budget, a file is noted as unsearched rather than read.
    if call.reads_in_walk && call.budget.is_some_and(|b| b.spent_on(relative)) {
        return None;
    }
    let scan = call.scan;
    if let Some(contents) = known.as_ref().and_then(|known| known.contents) {
        return Some(call.note(scan_read(searcher, regex, contents, scan, relative, cancel)?));
    }
    match call.saved_rules_out(regex, relative, entry) {
        // Not read, but counted as the search would have counted it.
        Some(RuledOut::Binary) => return Some(call.note(FileScan::left_out(SkipReason::Binary)?)),
        Some(RuledOut::Text) => return None,
        None => {}
    }
    let found = match entry.open() {
        // Refused but empty: nothing is missed, and an index, which opens
        // no empty file, would not count it either.
        Some(Err(e)) if e.kind() == std::io::ErrorKind::PermissionDenied && entry.size_unopened() == Some(0) => {
            return None
        }
        Some(file) if sketching.wanted(entry, known.is_some()) => {
            sketching.scan(searcher, regex, file, scan, relative, cancel, entry, known.is_some())?
        }
        Some(file) => scan_file(searcher, regex, file, scan, relative, cancel)?,
        None => return Some(UNREAD),
    };
    Some(call.note(found))
}

/// Walks `root` under `rules` and keeps the files that match: by name, or
/// by content with their matching lines counted. Only files `wanted`
/// admits are tested; `on_match` hears of each match as it is found.
pub(super) fn gather(
    config: &SearchConfig,
    root: &Root,
    rules: &WalkRules,
    cancel: &Cancel,
    wanted: &(dyn Fn(&Path) -> bool + Sync),
    on_match: &(dyn Fn(&Path) + Sync),
    budget: Option<&Budget>,
) -> Result<Walked<Hit>> {
    let call = Gathering {
        config,
        scan: config.target.scan(),
        reads_in_walk: root.opens_in_walk(),
        newest_first: config.order() == Order::Newest,
        wanted,
        on_match,
        budget,
        left_out: Default::default(),
    };
    let call = &call;
    // The files offered to the selector: on the page, of the types asked.
    let admitted =
        |relative: &Path| (call.wanted)(relative) && config.types.as_ref().is_none_or(|t| t.is_match(relative));
    // The files the search reads: those, within its file glob (which the content selector applies).
    let considers = |relative: &Path| {
        admitted(relative)
            && !matches!(&config.target, Target::Content { file_glob: Some(g), .. } if !g.is_match(relative))
    };
    let screen = config.target.prefilter().map(|prefilter| Screen { prefilter, considers: &considers });
    let mut walked = walk_screened(root, rules, cancel, screen, || {
        let mut selector = call.selector();
        move |relative: &Path, kind, entry: &Entry| match kind == EntryKind::File && admitted(relative) {
            true => selector.select(call, relative, entry, cancel),
            false => None,
        }
    })?;
    if let (Target::Content { regex, .. }, false) = (&config.target, call.reads_in_walk) {
        walked.found = read_listed(call, root, regex, std::mem::take(&mut walked.found), cancel)?;
    }
    if let (Some(budget), Target::Content { regex, .. }) = (budget, &config.target) {
        walked.found.extend(search_first_unsearched(call, root, regex, budget, cancel)?);
    }
    if rules.tally {
        for reason in SkipReason::ALL {
            walked.tally.add(reason, call.left_out[reason as usize].load(Ordering::Relaxed));
        }
    }
    Ok(walked)
}

/// The files a storage's walk listed, their contents read now (under a
/// budget, in path order, so what is read in time is a start of the answer),
/// keeping those that match.
fn read_listed(
    call: &Gathering<'_>,
    root: &Root,
    regex: &ContentMatcher,
    mut listed: Vec<Hit>,
    cancel: &Cancel,
) -> Result<Vec<Hit>> {
    let mut searcher = call.searcher();
    let mut kept = Vec::new();
    // Under a budget: in path order, and what each is, to note those left.
    let names: Vec<(String, PathBuf)> = match call.budget {
        Some(_) => {
            listed.sort_unstable_by(|a, b| a.path.cmp(&b.path));
            listed.iter().map(|h| (h.path.clone(), h.relative.clone())).collect()
        }
        None => Vec::new(),
    };
    let mut done = vec![false; names.len()];
    let mut out_of_time = false;
    let read = root.read_each(
        listed.into_iter().enumerate().collect(),
        |(_, hit)| &hit.relative,
        cancel,
        |(i, mut hit), contents| {
            if call.budget.is_some_and(Budget::spent) {
                out_of_time = true;
                return Err(FindError::aborted());
            }
            if let Some(done) = done.get_mut(i) {
                *done = true;
            }
            if let Some(found) = scan_contents(&mut searcher, regex, contents, call.scan, Path::new(&hit.path), cancel)
            {
                let count = call.note(found);
                if count > 0 {
                    hit.count = count;
                    (call.on_match)(&hit.relative);
                    kept.push(hit);
                }
            }
            Ok(())
        },
    );
    match read {
        // The budget's own stop; an abort by the caller still fails.
        Err(_) if out_of_time && cancel.check().is_ok() => {}
        read => read?,
    }
    if let (Some(budget), true) = (call.budget, out_of_time) {
        for ((path, relative), _) in names.into_iter().zip(done).filter(|(_, done)| !done) {
            budget.unsearched(path, relative);
        }
    }
    Ok(kept)
}

/// However slow the walk, a call searches at least the first file left
/// unsearched, so a later call from its cursor always gets further.
fn search_first_unsearched(
    call: &Gathering<'_>,
    root: &Root,
    regex: &ContentMatcher,
    budget: &Budget,
    cancel: &Cancel,
) -> Result<Option<Hit>> {
    let Some((path, relative)) = budget.take_first() else { return Ok(None) };
    let contents = root.read_one(&relative, cancel)?;
    let failure = contents.as_ref().and_then(Contents::failure);
    let found =
        contents.and_then(|c| scan_contents(&mut call.searcher(), regex, c, call.scan, Path::new(&path), cancel));
    if let Some(failure) = failure {
        failure.check()?;
    }
    let count = found.map_or(0, |found| call.note(found));
    if count == 0 {
        return Ok(None);
    }
    (call.on_match)(&relative);
    Ok(Some(Hit { path, relative, count, mtime_ms: 0.0, rank: None }))
}

/// A walker thread's means to teach a live index the contents of the files
/// it reads (see `content_sketch` and the index's content layer): each such
/// file is read whole, sketched, kept in the index's cache when it has room,
/// and searched from memory.
#[derive(Default)]
struct Sketching {
    contents: Vec<u8>,
    sketcher: Option<Box<Sketcher>>,
}

impl Sketching {
    /// Whether `entry` (a file whose contents are not in memory; `sketched`
    /// when it has a sketch) is a live index's file small enough to read
    /// whole whose sketch or contents the index would keep.
    fn wanted(&self, entry: &Entry, sketched: bool) -> bool {
        entry.known_size().is_some_and(|size| size <= MAX_SKETCHED_FILE_BYTES)
            && ((!sketched && entry.wants_sketch()) || entry.wants_contents())
    }

    /// Reads `file` whole, hands its sketch (and its contents, when the
    /// index wants them) to `entry`, and searches it (not at all when the
    /// sketch rules a match out). A file the index has sketched already
    /// (`sketched`: its sketch did not rule a match out, or it would not be
    /// read) is not sketched again: sketching costs more than the search. A
    /// file that cannot be read whole, or turns out larger than a sketch
    /// covers, is searched as usual, which reports any failure.
    #[allow(clippy::too_many_arguments)]
    fn scan(
        &mut self,
        searcher: &mut Searcher,
        regex: &ContentMatcher,
        file: std::io::Result<std::fs::File>,
        scan: Scan,
        relative: &Path,
        cancel: &Cancel,
        entry: &Entry,
        sketched: bool,
    ) -> Option<FileScan> {
        let Ok(mut file) = file else { return scan_file(searcher, regex, file, scan, relative, cancel) };
        self.contents.clear();
        let read = (&mut file).take(MAX_SKETCHED_FILE_BYTES + 1).read_to_end(&mut self.contents);
        if read.is_err() || self.contents.len() as u64 > MAX_SKETCHED_FILE_BYTES {
            let rewound = std::io::Seek::rewind(&mut file).map(|()| file);
            return scan_file(searcher, regex, rewound, scan, relative, cancel);
        }
        // Kept only when read as long as the index says the file is: one
        // written to meanwhile is read again once its event comes.
        let keep = entry.wants_contents() && entry.known_size() == Some(self.contents.len() as u64);
        let kept = keep.then(|| self.contents.as_slice().into());
        if sketched {
            entry.remember(None, kept);
            return scan_read(searcher, regex, &self.contents, scan, relative, cancel);
        }
        let sketch = self.sketcher.get_or_insert_with(Box::default).sketch(&self.contents);
        let ruled_out = regex.rules_out(&sketch);
        entry.remember(Some(sketch), kept);
        match ruled_out {
            // Not searched, but counted as the search would have counted it.
            Some(RuledOut::Binary) => return FileScan::left_out(SkipReason::Binary),
            Some(RuledOut::Text) => return None,
            None => {}
        }
        scan_read(searcher, regex, &self.contents, scan, relative, cancel)
    }
}

impl Target {
    /// How much of each file the walk reads: up to the first match to list
    /// a file, every match to count or to page lines.
    fn scan(&self) -> Scan {
        match self {
            Target::Content { mode: OutputMode::Files, .. } => Scan::Any,
            Target::Content { mode: OutputMode::Count, .. } => Scan::Totals,
            _ => Scan::Count,
        }
    }

    /// What rules out a file before it is read (a live index's sketches).
    pub(super) fn prefilter(&self) -> Option<&crate::content_sketch::Prefilter> {
        match self {
            Target::Content { regex, .. } => regex.prefilter(),
            Target::Files { .. } | Target::Fuzzy { .. } => None,
        }
    }
}
