//! The directory walk: which entries a search sees. Ignore files (see
//! `gitignore`), hidden entries, `exclude` globs, depth, always-skipped
//! folders (`.git/`) and symlinks (listed, never followed) are decided by one
//! `Gate`, the same way for every engine: the local disk, walked by threads
//! over directory handles (`local`), a host's storage, walked by many calls
//! in flight at once (`listed`), and a live index's tree in memory
//! (`index::query`). A selector, given each entry that passes, decides which
//! become results. `source` picks the engine for an opened root.

mod folder;
mod listed;
mod local;
mod threads;

pub use folder::Pending;
pub use threads::{listing_ended, walk_folders, FolderAt, ListFolder};

use crate::cancel::Cancel;
use crate::content_sketch::Sketch;
use crate::dir::{Dir, Stat};
use crate::entry::{EntryKind, Meta};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::git_status::ChangedPaths;
use crate::gitignore::Rules;
use crate::path_bytes::posix_string;
use crate::pattern::{normalize_glob, NameMatcher, PatternMode};
use crate::result::{SkipReason, Tally};
use crate::storage::{Listed, StorageRef};
use crate::sync::{lock, unpoisoned};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Which entries the walk skips before any pattern is tested.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkRules {
    /// Include dotfiles and dot-folders.
    pub hidden: bool,
    /// Apply `.gitignore` (nested, negations), `.ignore`, each repository's
    /// `info/exclude` and the global excludes file (see `gitignore`).
    pub gitignore: bool,
    /// Extra globs to leave out, gitignore-style, compiled once (see `Excludes`).
    pub exclude: Excludes,
    pub case_sensitive: bool,
    /// 0 = only the direct children of the root.
    pub max_depth: Option<usize>,
    /// Folder names never entered, at any depth (`.git` is also skipped as a file).
    pub skip_dirs: &'static [&'static str],
    /// Keep the entries that ignore files hid (`Walked::ignored`), so a
    /// search that found nothing can look there.
    pub record_ignored: bool,
    /// With `git` or `changedSince`: only the changed files, and the
    /// folders on the way to them (see `git_status`). Set once the search
    /// folder is open, as the set is relative to it.
    pub changed: Option<ChangedPaths>,
    /// Count what the walk leaves out, by reason (`Walked::tally`): the
    /// `skipped` option.
    pub tally: bool,
}

/// What a walk hands each entry that passes the rules: one collector per
/// walker thread (or per slice of an index), each finished once its share
/// is done; the walk returns what each one finished with.
pub trait Collector: Send {
    type Out: Send;
    /// One entry, at `rel` from the root.
    fn offer(&mut self, rel: &Path, kind: EntryKind, entry: &Entry);
    fn finish(self) -> Self::Out;
}

/// A selector as a collector: keeps what the selector returns for each entry.
pub struct Keep<T, S> {
    select: S,
    kept: Vec<T>,
}

impl<T, S> Keep<T, S> {
    pub fn new(select: S) -> Keep<T, S> {
        Keep { select, kept: Vec::new() }
    }
}

impl<T, S> Collector for Keep<T, S>
where
    T: Send,
    S: FnMut(&Path, EntryKind, &Entry) -> Option<T> + Send,
{
    type Out = Vec<T>;

    fn offer(&mut self, rel: &Path, kind: EntryKind, entry: &Entry) {
        self.kept.extend((self.select)(rel, kind, entry));
    }

    fn finish(self) -> Vec<T> {
        self.kept
    }
}

/// What a walk returns: what it found (what its collectors finished with, or
/// the selected entries), in no defined order, the
/// folders it did not enter because of `skip_dirs` (relative, `.git` left
/// out), the folders where it passed over a `.git` (relative), and with
/// `record_ignored`, the entries ignore files hid (relative, whether a
/// folder; a hidden folder's own entries are not listed).
#[derive(Debug)]
pub struct Walked<T> {
    pub found: Vec<T>,
    pub skipped: Vec<String>,
    pub git_holders: Vec<PathBuf>,
    pub ignored: Vec<(String, bool)>,
    /// With `WalkRules::tally`: what was left out, by reason.
    pub tally: Tally,
}

impl<T> Walked<T> {
    /// The same walk with what was found turned into something else.
    pub fn map_found<U>(self, f: impl FnOnce(Vec<T>) -> Vec<U>) -> Walked<U> {
        Walked {
            found: f(self.found),
            skipped: self.skipped,
            git_holders: self.git_holders,
            ignored: self.ignored,
            tally: self.tally,
        }
    }
}

/// What the rules say of one entry, by the first rule that leaves it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    Seen,
    /// A dotfile or dot-folder, without `hidden`.
    Hidden,
    /// An ignore file's line (see `Rules::matching_lines` for which).
    Ignored,
    /// `.git`, file or folder: never listed.
    GitDir,
    /// A folder named in `skip_dirs`.
    AlwaysSkipped,
    /// An `exclude` glob (see `Excludes::first_match` for which).
    Excluded,
    /// Not changed in git (a file), or holding no changed file (a folder),
    /// under `git` or `changedSince`.
    Unchanged,
}

impl WalkRules {
    /// Whether the child `name`, at `rel` from the root, is seen (and, for
    /// a folder, entered) under `ignore`, the ignore rules of its folder:
    /// the one decision every walk takes (through `Gate::passes`) and
    /// `explain` reports.
    pub fn judge(&self, name: &OsStr, rel: &Path, is_dir: bool, ignore: Option<&Rules>) -> Judgement {
        if !self.hidden && name.as_encoded_bytes().starts_with(b".") {
            return Judgement::Hidden;
        }
        // Ignore rules speak of untracked files only, as in git: under git
        // scoping a tracked file that a rule matches is still changed.
        let kept = self.changed.as_ref().map(|changed| changed.keeps(rel, is_dir));
        if kept != Some(true) && ignore.is_some_and(|rules| rules.is_ignored(rel, is_dir)) {
            return Judgement::Ignored;
        }
        if self.skip_dirs.iter().any(|skip| name == *skip) && (is_dir || name == ".git") {
            return if name == ".git" { Judgement::GitDir } else { Judgement::AlwaysSkipped };
        }
        if !self.exclude.is_empty() && self.exclude.is_excluded(rel, is_dir) {
            return Judgement::Excluded;
        }
        if kept == Some(false) {
            return Judgement::Unchanged;
        }
        Judgement::Seen
    }

    /// The same rules with every skip that the model could turn off turned off.
    pub fn relaxed(&self) -> WalkRules {
        WalkRules { hidden: true, gitignore: false, exclude: Excludes::default(), ..self.uncounted() }
    }

    /// The same rules, counting nothing left out: for the extra walks behind
    /// a hint or a notice, whose left-out entries are not the answer's.
    pub fn uncounted(&self) -> WalkRules {
        WalkRules { tally: false, ..self.clone() }
    }

    /// True when some rule hides entries that an option could bring back.
    pub fn skips_anything(&self) -> bool {
        !self.hidden || self.gitignore || !self.exclude.is_empty()
    }
}

/// The compiled `exclude` globs. Each is matched the way a `.gitignore` line
/// is: without `/` against every name at any depth; with a leading or inner
/// `/`, against the path from the search root (`/*.md` is the top level
/// only); with a trailing `/`, against folders only. An excluded folder is
/// not entered.
/// Compiled when the options are read and shared by every walk of the call
/// (and the hint's); two are equal when their globs are (the case rule is
/// `WalkRules::case_sensitive`).
#[derive(Debug, Clone, Default)]
pub struct Excludes {
    globs: Vec<String>,
    compiled: Arc<Vec<Exclude>>,
}

impl PartialEq for Excludes {
    fn eq(&self, other: &Excludes) -> bool {
        self.globs == other.globs
    }
}

#[derive(Debug, Clone)]
struct Exclude {
    matcher: NameMatcher,
    dirs_only: bool,
}

impl Excludes {
    pub fn new(globs: Vec<String>, case_sensitive: bool) -> Result<Excludes> {
        crate::pattern::check_exclude_size(&globs)?;
        let compile = |glob: &String| {
            let trimmed = glob.strip_prefix("./").unwrap_or(glob);
            let dirs_only = trimmed.len() > 1 && trimmed.ends_with('/');
            let body = trimmed.strip_suffix('/').filter(|_| dirs_only).unwrap_or(trimmed);
            let anchored = body.starts_with('/');
            let body = body.trim_start_matches('/');
            if body.is_empty() {
                return Err(FindError::invalid_argument(format!(
                    "`exclude` holds {}; remove it or write a glob such as 'dist' or '*.log'",
                    if trimmed.is_empty() {
                        "an empty glob".to_string()
                    } else {
                        format!("'{trimmed}', which names no entry")
                    }
                )));
            }
            let mode = if anchored || normalize_glob(body).contains('/') {
                PatternMode::PathGlob
            } else {
                PatternMode::BaseGlob
            };
            let matcher = NameMatcher::new(body, mode, case_sensitive)
                .map_err(|e| FindError::new(e.code, format!("in `exclude`: {}", e.message)))?;
            Ok(Exclude { matcher, dirs_only })
        };
        let compiled = globs.iter().map(compile).collect::<Result<Vec<_>>>()?;
        Ok(Excludes { globs, compiled: Arc::new(compiled) })
    }

    pub fn is_empty(&self) -> bool {
        self.globs.is_empty()
    }

    pub fn is_excluded(&self, relative: &Path, is_dir: bool) -> bool {
        self.first_match(relative, is_dir).is_some()
    }

    /// The first glob, as written, that excludes the entry.
    pub fn first_match(&self, relative: &Path, is_dir: bool) -> Option<&str> {
        let hit = self.compiled.iter().position(|e| (is_dir || !e.dirs_only) && e.matcher.is_match(relative))?;
        self.globs.get(hit).map(String::as_str)
    }
}

/// One entry as a selector sees it: on disk, metadata and contents are read
/// through its folder's handle, never by path; in a storage, the metadata
/// came with the listing.
pub struct Entry<'a>(At<'a>);

impl<'a> Entry<'a> {
    /// A live index's entry at `rel` below the folder `folders` opens from,
    /// number `at` of what `contents` knows: its kind and metadata are
    /// known, its contents are read from disk.
    pub fn indexed(
        kind: EntryKind,
        meta: crate::entry::Meta,
        rel: &'a Path,
        folders: &'a OpenedFolders<'a>,
        at: usize,
        contents: &'a dyn KnownContents,
    ) -> Entry<'a> {
        Entry(At::Indexed { kind, meta, rel, folders, at, contents })
    }
}

/// What a live index knows of its files' contents without reading them
/// (see `content_sketch`), for the entries of one walk by number.
pub trait KnownContents {
    /// What is known of entry `at`'s contents as they are now.
    fn known(&self, at: usize) -> Option<KnownFile<'_>>;
    /// Whether a sketch made now would be kept (the layer has room).
    fn wants_sketch(&self) -> bool;
    /// Whether the contents of a file of `size` bytes, read now, would be
    /// kept in memory.
    fn wants_contents(&self, size: u64) -> bool;
    /// Keeps `sketch`, made of entry `at`'s contents as just read (`None`:
    /// the one held is still right), and the contents when they were wanted.
    fn remember(&self, at: usize, sketch: Option<Sketch>, contents: Option<Box<[u8]>>);
}

/// What a live index knows of one file's contents as they are now: that it
/// has their sketch (a search screens with it before offering the file, see
/// `Screen`), and the contents themselves while its cache holds them.
pub struct KnownFile<'a> {
    pub contents: Option<&'a [u8]>,
}

enum At<'a> {
    InDir {
        dir: &'a Dir,
        name: &'a OsStr,
    },
    Listed(&'a Listed),
    Indexed {
        kind: EntryKind,
        meta: crate::entry::Meta,
        rel: &'a Path,
        folders: &'a OpenedFolders<'a>,
        at: usize,
        contents: &'a dyn KnownContents,
    },
}

/// Files opened by their path below a base folder, each folder on the way
/// opened by handle (never through a symlink) and the last one kept: a
/// live index offers a folder's files one after another, so each folder is
/// opened once per run of them, not once per file.
pub struct OpenedFolders<'a> {
    base: &'a Dir,
    last: std::cell::RefCell<Option<(PathBuf, Option<Dir>)>>,
}

impl<'a> OpenedFolders<'a> {
    pub fn new(base: &'a Dir) -> OpenedFolders<'a> {
        OpenedFolders { base, last: std::cell::RefCell::new(None) }
    }

    fn open_file(&self, rel: &Path) -> std::io::Result<std::fs::File> {
        let name = rel.file_name().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
        let folder = rel.parent().unwrap_or(Path::new(""));
        let mut last = self.last.borrow_mut();
        if last.as_ref().is_none_or(|(at, _)| at != folder) {
            *last = Some((folder.to_path_buf(), self.base.folder_beneath(folder)?));
        }
        let opened = last.as_ref().and_then(|(_, dir)| dir.as_ref()).unwrap_or(self.base);
        opened.open_file(name)
    }
}

impl Entry<'_> {
    /// The size, when the walk knows it without asking the file system
    /// (a live index's entries; a storage's listing may leave it out).
    pub fn known_size(&self) -> Option<u64> {
        match &self.0 {
            At::Indexed { meta, .. } => known_meta(meta).map(|meta| meta.size),
            At::InDir { .. } | At::Listed(_) => None,
        }
    }

    /// The file's size as told without opening it: a live index's, or a
    /// stat on disk; `None` when its metadata cannot be read.
    pub fn size_unopened(&self) -> Option<u64> {
        match &self.0 {
            At::InDir { dir, name } => dir.stat(name).ok().map(|st| st.meta.size),
            At::Listed(listed) => Some(listed.meta.size),
            At::Indexed { meta, .. } => known_meta(meta).map(|meta| meta.size),
        }
    }

    /// What a live index knows of this file's contents as they are now
    /// (see `content_sketch`); `None` elsewhere or when it knows nothing.
    pub fn known(&self) -> Option<KnownFile<'_>> {
        match &self.0 {
            At::Indexed { at, contents, .. } => contents.known(*at),
            At::InDir { .. } | At::Listed(_) => None,
        }
    }

    /// Whether a sketch of this file, made from its contents, would be kept.
    pub fn wants_sketch(&self) -> bool {
        match &self.0 {
            At::Indexed { contents, .. } => contents.wants_sketch(),
            At::InDir { .. } | At::Listed(_) => false,
        }
    }

    /// Whether this file's contents, read now, would be kept in memory.
    pub fn wants_contents(&self) -> bool {
        match &self.0 {
            At::Indexed { contents, meta, .. } => contents.wants_contents(meta.size),
            At::InDir { .. } | At::Listed(_) => false,
        }
    }

    /// Hands over a sketch made from this file's contents as just read
    /// (`None`: the index's is still right), and the contents if
    /// `wants_contents` said so.
    pub fn remember(&self, sketch: Option<Sketch>, read: Option<Box<[u8]>>) {
        if let At::Indexed { at, contents, .. } = &self.0 {
            contents.remember(*at, sketch, read);
        }
    }

    /// Type, size and mtime, not following a symlink.
    pub fn stat(&self) -> std::io::Result<Stat> {
        match &self.0 {
            At::InDir { dir, name } => dir.stat(name),
            At::Listed(listed) => Ok(Stat { kind: Some(listed.kind), meta: listed.meta }),
            At::Indexed { kind, meta, .. } => Ok(Stat { kind: Some(*kind), meta: *meta }),
        }
    }

    /// The file's stamp on disk as it is now (see `dir::Stamp`); `None` in a
    /// storage or a live index, or when it cannot be read.
    pub fn stamp(&self) -> Option<crate::dir::Stamp> {
        match &self.0 {
            At::InDir { dir, name } => dir.stamp(name).ok(),
            At::Listed(_) | At::Indexed { .. } => None,
        }
    }

    /// Opens a file on disk for reading (a symlink is refused); `None` in a
    /// storage, whose files are read through it later (see `search`).
    /// (A live index's files are on disk.)
    pub fn open(&self) -> Option<std::io::Result<std::fs::File>> {
        match &self.0 {
            At::InDir { dir, name } => Some(dir.open_file(name)),
            At::Indexed { rel, folders, .. } => Some(folders.open_file(rel)),
            At::Listed(_) => None,
        }
    }
}

/// A live index's metadata of an entry, unless it is the zeros it keeps for
/// an entry whose metadata could not be read (in a folder listable but not
/// searchable). A real empty file dated exactly 1970 reads as unknown too:
/// it is then opened rather than passed over, which changes no answer.
fn known_meta(meta: &Meta) -> Option<&Meta> {
    (meta.size != 0 || meta.mtime_ms != 0.0).then_some(meta)
}

/// The rules that decide, name by name, what the walk passes on: the one
/// folder-by-folder judgement every walk engine (disk, storage, index) asks.
pub struct Gate<'a> {
    rules: &'a WalkRules,
    cancel: &'a Cancel,
    /// Folders not entered because of `skip_dirs` (relative, `.git` left out).
    skipped: Mutex<Vec<String>>,
    /// Folders holding a `.git` that was passed over.
    git_holders: Mutex<Vec<PathBuf>>,
    /// With `record_ignored`: what ignore files hid.
    ignored: Mutex<Vec<(String, bool)>>,
    /// With `WalkRules::tally`: what was left out, by reason.
    tally: Mutex<Tally>,
}

impl Gate<'_> {
    /// Whether the child `name`, at `rel` from the root, is seen (and, for a
    /// folder, entered) under `ignore`, the ignore rules of its folder.
    pub fn passes(&self, name: &OsStr, rel: &Path, is_dir: bool, ignore: Option<&Rules>) -> bool {
        let judged = self.rules.judge(name, rel, is_dir, ignore);
        let counted = match judged {
            Judgement::Seen => return true,
            Judgement::Hidden => Some(SkipReason::Hidden),
            Judgement::Excluded => Some(SkipReason::Excluded),
            // Not a skip the caller could undo by an option but `git`/`changedSince` itself.
            Judgement::Unchanged => None,
            Judgement::Ignored => {
                if self.rules.record_ignored {
                    lock(&self.ignored).push((posix_string(rel), is_dir));
                }
                Some(SkipReason::Ignored)
            }
            Judgement::GitDir => {
                let holder = rel.parent().unwrap_or(Path::new("")).to_path_buf();
                lock(&self.git_holders).push(holder);
                None
            }
            Judgement::AlwaysSkipped => {
                lock(&self.skipped).push(posix_string(rel));
                Some(SkipReason::AlwaysSkipped)
            }
        };
        // `.git` is never listed, whatever the options: not worth a mention.
        if let (true, Some(reason), false) = (self.rules.tally, counted, name == ".git") {
            self.count(reason, rel, is_dir);
        }
        false
    }

    /// Counts an entry left out (with `WalkRules::tally`; a folder is also named).
    pub fn count(&self, reason: SkipReason, rel: &Path, is_dir: bool) {
        match is_dir {
            true if self.rules.tally => lock(&self.tally).add_folder(reason, posix_string(rel)),
            true => {}
            false => self.count_files(reason, 1),
        }
    }

    /// Counts `files` files left out (with `WalkRules::tally`).
    pub fn count_files(&self, reason: SkipReason, files: u64) {
        if self.rules.tally && files > 0 {
            lock(&self.tally).add(reason, files);
        }
    }

    /// What an engine that kept an earlier walk's tally reports again.
    pub fn add_tally(&self, tally: &Tally) {
        lock(&self.tally).merge(tally);
    }

    /// The tally so far, taken out.
    pub fn take_tally(&self) -> Tally {
        std::mem::take(&mut *lock(&self.tally))
    }

    /// Whether children at `depth` (the root's are at 1) are listed in turn.
    pub fn descends_at(&self, depth: usize) -> bool {
        self.rules.max_depth.is_none_or(|max| depth <= max)
    }

    /// The rules it applies.
    pub fn rules(&self) -> &WalkRules {
        self.rules
    }

    /// The search's cancel flag and deadline.
    pub fn cancel(&self) -> &Cancel {
        self.cancel
    }

    /// Folders not entered because of `skip_dirs`, as an engine that kept
    /// them from an earlier walk reports them.
    pub fn add_skipped(&self, folders: impl IntoIterator<Item = String>) {
        lock(&self.skipped).extend(folders);
    }

    /// The skipped folders recorded so far, taken out.
    pub fn take_skipped(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.skipped))
    }

    /// Entries ignore files hid (with `record_ignored`), as an engine that
    /// kept them from an earlier walk reports them.
    pub fn add_ignored(&self, entries: impl IntoIterator<Item = (String, bool)>) {
        lock(&self.ignored).extend(entries);
    }

    /// The ignored entries recorded so far, taken out.
    pub fn take_ignored(&self) -> Vec<(String, bool)> {
        std::mem::take(&mut *lock(&self.ignored))
    }
}

/// Runs one walk engine under `rules`: `engine` gets the gate that judges
/// each name and returns what its selectors kept; the gate's records
/// (skipped folders, `.git` holders, ignored entries) join them.
pub fn gated<T>(rules: &WalkRules, cancel: &Cancel, engine: impl FnOnce(&Gate) -> Result<Vec<T>>) -> Result<Walked<T>> {
    cancel.check()?;
    let gate = Gate {
        rules,
        cancel,
        skipped: Mutex::new(Vec::new()),
        git_holders: Mutex::new(Vec::new()),
        ignored: Mutex::new(Vec::new()),
        tally: Mutex::new(Tally::default()),
    };
    let found = engine(&gate)?;
    cancel.check()?;
    let mut skipped = unpoisoned(gate.skipped.into_inner());
    skipped.sort_unstable();
    let git_holders = unpoisoned(gate.git_holders.into_inner());
    let ignored = unpoisoned(gate.ignored.into_inner());
    let tally = unpoisoned(gate.tally.into_inner());
    Ok(Walked { found, skipped, git_holders, ignored, tally })
}

/// Walks an open folder on disk (see `local`).
pub fn walk_dir<C, M>(
    dir: &Arc<Dir>,
    root: &Path,
    rules: &WalkRules,
    cancel: &Cancel,
    new_collector: M,
) -> Result<Walked<C::Out>>
where
    C: Collector,
    M: Fn() -> C + Sync,
{
    gated(rules, cancel, |gate| local::walk(dir, root, gate, new_collector))
}

/// Walks a host's storage from `root` (see `listed`).
pub fn walk_storage<C: Collector>(
    storage: &StorageRef,
    root: &Path,
    rules: &WalkRules,
    cancel: &Cancel,
    collector: C,
) -> Result<Walked<C::Out>> {
    gated(rules, cancel, |gate| listed::walk(storage, root, gate, collector).map(|out| vec![out]))
}

/// What a content search tells a live index's walk so it need not offer
/// the files that cannot match (see `index::query::walk`): the trigrams
/// every match holds, and which files the search would look at at all
/// (its file glob, types and page), so that a file passed over by its
/// sketch is counted as binary only where the search would have read it.
#[derive(Clone, Copy)]
pub struct Screen<'a> {
    pub prefilter: &'a crate::content_sketch::Prefilter,
    pub considers: &'a (dyn Fn(&Path) -> bool + Sync),
}

/// Threads a walk (or an index search) runs on: every core (up to 12), or
/// one while other calls are in flight (see `calls_in_flight::crowded`).
pub fn thread_count() -> usize {
    match crate::calls_in_flight::crowded() {
        true => 1,
        false => std::thread::available_parallelism().map_or(2, |n| n.get()).min(12),
    }
}

/// Entries between two looks at the cancel flag and the clock.
pub const CANCEL_EVERY: u32 = 256;

/// The failure for a folder that cannot be listed: `permission-denied` for
/// the root (as docs/API.md has it), `fs-error` otherwise. `refuser` is
/// who said no: the OS, or the reader.
pub fn cannot_list(root: &Path, rel: &Path, err: &std::io::Error, refuser: &str) -> FindError {
    if rel.as_os_str().is_empty() && err.kind() == std::io::ErrorKind::PermissionDenied {
        return FindError::new(
            ErrorCode::PermissionDenied,
            format!("permission denied: {refuser} refused to list `{}`", clip(&root.to_string_lossy(), 300)),
        );
    }
    FindError::new(
        ErrorCode::FsError,
        format!("cannot list the directory `{}`: {err}", clip(&root.join(rel).to_string_lossy(), 300)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::Found;
    use crate::source::{walk, Root};
    use crate::testing::TempTree;
    use std::fs;

    fn tree(name: &str) -> TempTree {
        TempTree::new(&format!("walk-{name}"))
    }

    pub(super) fn rules() -> WalkRules {
        WalkRules {
            hidden: true,
            gitignore: true,
            exclude: Excludes::default(),
            case_sensitive: false,
            max_depth: None,
            skip_dirs: &[".git"],
            record_ignored: false,
            changed: None,
            tally: false,
        }
    }

    fn paths(root: &Path, rules: &WalkRules) -> Vec<String> {
        let mut out: Vec<String> = walk(&Root::open_local(root).unwrap(), rules, &Cancel::never(), || {
            |rel: &Path, kind, _: &Entry| Some(Found::new(rel.to_string_lossy().into_owned(), kind, None))
        })
        .unwrap()
        .found
        .into_iter()
        .map(|f| f.path)
        .collect();
        out.sort();
        out
    }

    #[test]
    fn gitignore_nested_with_negation_and_git_dir_skipped() {
        let root = tree("gi");
        fs::create_dir_all(root.join(".git/info")).unwrap();
        fs::write(root.join(".git/info/exclude"), "secret.txt\n").unwrap();
        fs::write(root.join(".gitignore"), "*.log\nbuild/\n").unwrap();
        fs::create_dir_all(root.join("sub/build")).unwrap();
        fs::write(root.join("sub/.gitignore"), "!keep.log\n").unwrap();
        fs::write(root.join("sub/keep.log"), "").unwrap();
        fs::write(root.join("sub/drop.log"), "").unwrap();
        fs::write(root.join("sub/build/x"), "").unwrap();
        fs::write(root.join("secret.txt"), "").unwrap();
        fs::write(root.join(".ignore"), "notes.md\n").unwrap();
        fs::write(root.join("notes.md"), "").unwrap();
        fs::write(root.join("a.txt"), "").unwrap();
        assert_eq!(
            paths(&root, &rules()),
            vec![".gitignore", ".ignore", "a.txt", "sub", "sub/.gitignore", "sub/keep.log"]
        );
        let all = paths(&root, &WalkRules { gitignore: false, ..rules() });
        assert!(all.contains(&"sub/build/x".to_string()));
        assert!(!all.iter().any(|p| p.starts_with(".git/") || p == ".git"));
    }

    #[test]
    fn hidden_exclude_and_depth() {
        let root = tree("hx");
        fs::create_dir_all(root.join(".cache/deep")).unwrap();
        fs::create_dir_all(root.join("src/dist")).unwrap();
        fs::write(root.join(".cache/deep/f"), "").unwrap();
        fs::write(root.join("src/dist/bundle.js"), "").unwrap();
        fs::write(root.join("src/a.LOG"), "").unwrap();
        fs::write(root.join("top.txt"), "").unwrap();
        let no_hidden = paths(&root, &WalkRules { hidden: false, ..rules() });
        assert_eq!(no_hidden, vec!["src", "src/a.LOG", "src/dist", "src/dist/bundle.js", "top.txt"]);
        let excluded = paths(
            &root,
            &WalkRules { exclude: Excludes::new(vec!["dist".into(), "*.log".into()], false).unwrap(), ..rules() },
        );
        assert!(!excluded.iter().any(|p| p.contains("dist") || p.ends_with(".LOG")), "{excluded:?}");
        let shallow = paths(&root, &WalkRules { max_depth: Some(0), ..rules() });
        assert_eq!(shallow, vec![".cache", "src", "top.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_listed_not_followed() {
        let root = tree("ln");
        fs::create_dir_all(root.join("d")).unwrap();
        fs::write(root.join("d/f"), "").unwrap();
        std::os::unix::fs::symlink(&root, root.join("d/loop")).unwrap();
        std::os::unix::fs::symlink("/nonexistent", root.join("dangling")).unwrap();
        assert_eq!(paths(&root, &rules()), vec!["d", "d/f", "d/loop", "dangling"]);
    }

    #[test]
    fn cancelled_walk_aborts() {
        let root = tree("cx");
        for i in 0..600 {
            fs::write(root.join(format!("f{i}")), "").unwrap();
        }
        let flag = crate::cancel::CancelFlag::default();
        flag.cancel();
        let err = walk(&Root::open_local(&root).unwrap(), &rules(), &Cancel::new(flag, None), || {
            |_: &Path, _, _: &Entry| None::<()>
        })
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Aborted);
    }

    #[test]
    fn a_changed_set_keeps_its_files_and_the_folders_on_their_way() {
        use crate::git_status::{ChangedPaths, Letters};
        let root = tree("changed");
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::write(root.join(".gitignore"), "out/\n").unwrap();
        for file in ["a.txt", "b.txt", "src/keep.rs", "src/skip.rs", "other/x.rs", "out/tracked.js", "out/gen.js"] {
            fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            fs::write(root.join(file), "").unwrap();
        }
        let changed = ChangedPaths::from_paths(
            ["a.txt", "src/keep.rs", "out/tracked.js"].map(|p| (PathBuf::from(p), Letters::default())),
        );
        let scoped = WalkRules { changed: Some(changed), ..rules() };
        // `out/` is ignored, but a changed (so tracked) file in it is kept, as git has it.
        assert_eq!(paths(&root, &scoped), vec!["a.txt", "out", "out/tracked.js", "src", "src/keep.rs"]);
        assert_eq!(scoped.judge(OsStr::new("other"), Path::new("other"), true, None), Judgement::Unchanged);
        assert_eq!(scoped.judge(OsStr::new("b.txt"), Path::new("b.txt"), false, None), Judgement::Unchanged);
    }

    #[test]
    fn bad_exclude_globs_are_reported() {
        let err = Excludes::new(vec!["[".into()], false).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidPattern);
        assert!(err.message.starts_with("in `exclude`:"), "{}", err.message);
        let err = Excludes::new(vec!["".into()], false).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
    }
}
