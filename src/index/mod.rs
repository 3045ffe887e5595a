//! A live index of one folder: built by one parallel walk, then kept exact
//! by file-system events (on Linux inotify used directly, see `inotify`;
//! elsewhere the `notify` crate: FSEvents, ReadDirectoryChangesW), so
//! repeated searches are answered from memory (see `query`) with the same
//! results as a fresh walk.
//!
//! Every folder is watched before it is listed: by the first walk, as it
//! opens each folder (one parallel pass), and later ones before their own
//! listing; so every change after a folder was listed raises an event. An
//! event only says which folder changed: that folder is listed again and
//! compared with the index (`reconcile`), so renames, mass deletes and edits
//! of ignore files all come down to the same step. A folder holding `.git`
//! reads its repository's `info/exclude` and `config` again each time it is
//! listed again: on any event inside its `.git`, and for a submodule on an
//! event in its git dir under the superproject's `.git/modules/`
//! (`submodule_folders`). The user's git config and global excludes file are
//! read once, at open (`GitEnv`). A new folder is watched by the watcher only
//! once its creation has been reported, so what was put in it before that
//! raises no event: each new folder is listed again once events go quiet
//! (`second_look`). When the OS drops events (inotify's queue overflows), the
//! whole tree is compared again, and `stats` says so.
//!
//! What it never does is answer from a picture it cannot vouch for. A panic
//! in the keeper thread is caught and the tree walked again whole; if that
//! fails too, every later call fails with `fs-error` naming what happened.
//! The root is known by its identity (device and inode): once the folder at
//! its path is gone or is another one, calls fail (`not-found`, `fs-error`).
//! `close` frees the tree and the folder's descriptor at once.

pub mod content;
#[cfg(target_os = "linux")]
mod inotify;
pub mod query;
pub mod tree;

use crate::cancel::Cancel;
use crate::dir::{Dir, FullStat};
use crate::entry::{EntryKind, Meta};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::gitignore::{folders_above_on_disk, FolderRules, GitEnv, IgnoreFiles, Rules, GITIGNORE, IGNORE};
use crate::shared::Shared;
use crate::sync::{lock, unpoisoned};
use crate::walk::{walk_dir, Entry, Excludes, SkipReason, WalkRules};
use content::ContentLayer;
pub use content::{Caps as ContentCaps, LayerSize};
#[cfg(not(target_os = "linux"))]
use notify::{RecursiveMode, Watcher};
use query::{Visible, VisibleKey};
use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
#[cfg(not(target_os = "linux"))]
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};
use tree::{Handle, Id, Tree, ROOT};

/// How long no event must arrive before the index counts as settled.
const QUIET: Duration = Duration::from_millis(100);

/// How long `open` waits at most for the events its own watching raised to
/// stop before it walks: on a folder written to all the time they never stop.
#[cfg(not(target_os = "linux"))]
const DRAIN_AT_MOST: Duration = Duration::from_millis(500);

/// The size and time of an entry that is listed but cannot be looked at (in a
/// folder that is readable but not searchable): what a fresh walk shows.
const UNKNOWN_META: Meta = Meta { size: 0, mtime_ms: 0.0 };

/// A shared index.
pub type IndexRef = Shared<Index>;

/// A live index: the tree, the rules above its root, and the thread that
/// keeps it current.
pub struct Index {
    /// The folder as the caller named it (what results show).
    pub logical_path: PathBuf,
    /// Its real path, where events are reported.
    real_path: PathBuf,
    /// The folder's handle, `None` once closed or failed (see `release`).
    dir: Mutex<Option<Arc<Dir>>>,
    /// The root's `(st_dev, st_ino)` at open, where the OS tells it.
    identity: Option<(u64, u64)>,
    /// The root's mode and owner as last seen (see `root_access_changed`).
    root_access: Mutex<Option<(u32, u32, u32)>>,
    tree: RwLock<Tree>,
    /// The user's git settings and global excludes file, as read at open.
    git: Arc<GitEnv>,
    /// The ignore rules of the folders above the root (up to its repository).
    above: Vec<(PathBuf, Option<Arc<FolderRules>>)>,
    status: Status,
    keeper: Mutex<Option<Keeper>>,
    /// Why the index no longer answers (its root is gone or replaced, or an
    /// internal error it could not recover from): every call fails with it.
    broken: Mutex<Option<FindError>>,
    /// Bumped by every change to the tree.
    generation: AtomicU64,
    /// Unique among the indexes of this process, so two indexes' generations never pass for each other.
    id: u64,
    /// The watcher (Linux), `None` once closed or failed.
    #[cfg(target_os = "linux")]
    inotify: Mutex<Option<Arc<inotify::Inotify>>>,
    /// What recent queries' rules let through, for the generation it was made in.
    visible: Mutex<Vec<(VisibleKey, u64, Arc<Visible>)>>,
    /// What content searches learnt of the files' contents (see `content`).
    content: RwLock<ContentLayer>,
}

/// The id the next index opened takes.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// How many sets of rules keep their `Visible` list.
const VISIBLE_KEPT: usize = 4;

/// Counters for `stats()`.
#[derive(Default)]
struct Status {
    events: AtomicU64,
    folders_reconciled: AtomicU64,
    rescans: AtomicU64,
    watch_errors: AtomicU64,
    /// The keeper is applying a batch, or new folders wait for their second look.
    busy: AtomicBool,
    last_event: Mutex<Option<Instant>>,
    last_rescan: Mutex<Option<String>>,
    last_error: Mutex<Option<String>>,
    /// Tests only: the keeper's next batch panics.
    #[cfg(test)]
    panic_next: AtomicBool,
}

struct Keeper {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

/// An index being closed: from `begin_close`, for `finish_close`.
pub struct Closing(Option<Keeper>);

/// What `stats()` reports.
#[derive(Debug, Clone)]
pub struct Stats {
    pub entries: usize,
    pub bytes: usize,
    /// Held by the lists kept for recent queries' rules (`Visible`).
    pub cached_bytes: usize,
    /// What the content layer holds (see `content`).
    pub content: LayerSize,
    pub events: u64,
    pub folders_reconciled: u64,
    pub rescans: u64,
    pub last_rescan: Option<String>,
    pub watch_errors: u64,
    pub last_error: Option<String>,
    pub closed: bool,
}

/// What the watcher reports.
type Message = notify::Result<notify::Event>;

/// Bytes taken from an `OsStr` (whole names, or names joined by `/`) as one again.
pub fn os(bytes: &[u8]) -> &OsStr {
    #[cfg(unix)]
    return std::os::unix::ffi::OsStrExt::from_bytes(bytes);
    // SAFETY: the bytes come from `as_encoded_bytes`, cut and joined at ASCII `/` only.
    #[cfg(not(unix))]
    return unsafe { OsStr::from_encoded_bytes_unchecked(bytes) };
}

impl Index {
    /// Opens `root` (as `open_search_dir` would), walks it and starts
    /// watching; its content layer holds at most `caps`.
    pub fn open(logical_path: PathBuf, caps: ContentCaps) -> Result<Arc<Index>> {
        let (dir, real_path) = crate::sandbox::open_search_dir(&logical_path)?;
        let identity = identity_of(&dir);
        let dir = Arc::new(dir);
        let source = Source::new(&real_path)?;
        let git = GitEnv::from_process();
        let index = Arc::new(Index {
            logical_path,
            above: folders_above_on_disk(&real_path, &git),
            real_path,
            git,
            dir: Mutex::new(Some(Arc::clone(&dir))),
            identity,
            root_access: Mutex::new(access_of(&dir)),
            tree: RwLock::new(Tree::new(UNKNOWN_META)),
            status: Status::default(),
            keeper: Mutex::new(None),
            broken: Mutex::new(None),
            generation: AtomicU64::new(0),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            visible: Mutex::new(Vec::new()),
            content: RwLock::new(ContentLayer::new(caps)),
            #[cfg(target_os = "linux")]
            inotify: Mutex::new(match &source {
                Source::Inotify(inotify) => Some(Arc::clone(inotify)),
            }),
        });
        // Each folder is watched by the walk itself, once opened and before
        // it is listed, so every change after the walk saw a folder raises
        // an event (one parallel pass: no walk of its own for the watches).
        #[cfg(target_os = "linux")]
        {
            let Source::Inotify(inotify) = &source;
            let (built, linked) = index.build(&dir, Some(inotify))?;
            let mut tree = unpoisoned(index.tree.write());
            *tree = built;
            index.watch_links(&dir, &mut tree, &linked);
        }
        #[cfg(not(target_os = "linux"))]
        {
            let Source::Notify(watcher, events) = &source;
            if let Err(e) = lock(watcher).watch(&index.real_path, RecursiveMode::Recursive) {
                return Err(FindError::new(
                    ErrorCode::FsError,
                    format!("cannot watch `{}` for changes: {e}", clip(&index.logical_path.to_string_lossy(), 300)),
                ));
            }
            // The watcher lists the whole tree to add its watches, and every
            // folder opened raises an event it does not read meanwhile: the OS's
            // queue overflows on a large tree. Those events are older than the
            // walk below, which sees what they would say: they are let go. Only
            // for a while: on a folder changed all the time they never stop, and
            // what is left goes to the keeper (at worst one more comparison).
            let until = Instant::now() + DRAIN_AT_MOST;
            let mut quiet_since = Instant::now();
            while quiet_since.elapsed() < QUIET / 2 && Instant::now() < until {
                match events.recv_timeout(Duration::from_millis(5)) {
                    Ok(message) if !changes_nothing(&message) => quiet_since = Instant::now(),
                    Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            *unpoisoned(index.tree.write()) = index.build(&dir, None)?.0;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let keeper = {
            let (index, stop) = (Arc::downgrade(&index), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("agent-find-index".into())
                .spawn(move || keep(index, source, stop))
                .map_err(|e| FindError::new(ErrorCode::FsError, format!("cannot start the index thread: {e}")))?
        };
        *lock(&index.keeper) = Some(Keeper { stop, thread: keeper });
        Ok(index)
    }

    /// A parallel walk of the whole folder into a new tree: every entry
    /// (hidden and ignored ones too: a query may ask for them). With `watch`
    /// (the first walk, on Linux), each folder is watched as the walk opens
    /// it, before listing it, and each `.git` before its rules are read.
    /// Also gives the files with more than one name, for `watch_links`.
    fn build(&self, dir: &Arc<Dir>, watch: Option<&Watcher>) -> Result<(Tree, Vec<Id>)> {
        let everything = WalkRules {
            hidden: true,
            gitignore: false,
            exclude: Excludes::default(),
            case_sensitive: true,
            max_depth: None,
            skip_dirs: &[".git"],
            record_ignored: false,
            changed: None,
            // For the folders it is refused (`Node::denied`).
            tally: true,
        };
        let walked = walk_dir(dir, &self.real_path, &everything, &Cancel::never(), || Building {
            watch,
            out: Built::default(),
        })?;
        let mut listings = Vec::new();
        #[cfg(target_os = "linux")]
        let (mut watched, mut failed) = (Vec::new(), Vec::new());
        for built in walked.found {
            listings.extend(built.listings);
            #[cfg(target_os = "linux")]
            {
                watched.extend(built.watched);
                failed.extend(built.failed);
            }
        }
        // A folder's listing names it: shallower listings first.
        listings.sort_by_cached_key(|l| l.rel.iter().filter(|&&b| b == b'/').count() + usize::from(!l.rel.is_empty()));
        let root_meta = dir.stat(OsStr::new(".")).map(|s| s.meta).unwrap_or(UNKNOWN_META);
        let mut tree = Tree::new(root_meta);
        let mut folders: HashMap<Vec<u8>, Id> = HashMap::with_capacity(listings.len());
        folders.insert(Vec::new(), ROOT);
        // Folders with ignore files or a `.git`: the only ones whose rules are read.
        let git_holders: BTreeSet<Vec<u8>> =
            walked.git_holders.iter().map(|p| p.as_os_str().as_encoded_bytes().to_vec()).collect();
        let mut with_rules = git_holders.clone();
        let mut opened = std::collections::HashSet::with_capacity(listings.len());
        let mut linked = Vec::new();
        for listing in listings {
            // A folder that vanished mid-walk (or was not listed in its
            // parent) was skipped: so is what it held.
            let Some(&id) = folders.get(&listing.rel) else { continue };
            // Its own metadata as its walker saw it once watched (its entry
            // in its parent's listing may be older), and its inode number,
            // to tell it from one that replaces it.
            if let Some((meta, ino)) = listing.own {
                tree.node_mut(id).meta = meta;
                if id != ROOT {
                    tree.set_ino(id, ino);
                }
                opened.insert(id);
            }
            let mut start = 0;
            for &(end, kind, meta, is_linked) in &listing.children {
                let name = &listing.names[start..end];
                start = end;
                if kind == EntryKind::File && (name == GITIGNORE.as_bytes() || name == IGNORE.as_bytes()) {
                    with_rules.insert(listing.rel.clone());
                }
                let child = tree.add(id, name, kind, meta);
                if is_linked {
                    linked.push(child);
                }
                if kind == EntryKind::Dir {
                    let rel = match listing.rel.is_empty() {
                        true => name.to_vec(),
                        false => [&listing.rel[..], b"/", name].concat(),
                    };
                    folders.insert(rel, child);
                }
            }
        }
        for rel in walked.tally.folders_of(SkipReason::Denied) {
            if let Some(&id) = folders.get(rel.as_bytes()) {
                tree.node_mut(id).denied = true;
            }
        }
        // Folders listed but not opened (not ours to read): their inode number all the same.
        for (rel, &id) in &folders {
            if id != ROOT && !opened.contains(&id) {
                if let Ok(full) = dir.stat_full(os(rel)) {
                    tree.set_ino(id, full.ino);
                }
            }
        }
        // The watches made by path, now on the tree's folders; each `.git`
        // watched before its `info/exclude` and config are read below.
        #[cfg(target_os = "linux")]
        if let Some(inotify) = watch {
            inotify.adopt(&tree, watched, failed);
            for rel in &git_holders {
                if let (Some(&id), Ok(held)) = (folders.get(rel), dir.folder_beneath(Path::new(os(rel)))) {
                    inotify.watch_git(held.as_ref().unwrap_or(dir), tree.handle(id));
                }
            }
        }
        // Opening a folder raises an event on it: only these few are opened again.
        for rel in with_rules {
            let Some(&id) = folders.get(&rel) else { continue };
            if let Ok(held) = dir.folder_beneath(Path::new(os(&rel))) {
                let dir = held.as_ref().unwrap_or(dir);
                tree.node_mut(id).rules = folder_rules(dir, &tree, id, git_holders.contains(&rel), &self.git);
            }
        }
        Ok((tree, linked))
    }

    /// Opens the file at `relative` below the folder `folder` (both relative
    /// to the root), by handle, never through a symlink.
    /// The indexed folder's real path (symlinks resolved), which the tree's
    /// relative paths start from.
    pub fn real_path(&self) -> &Path {
        &self.real_path
    }

    pub fn open_file(&self, folder: &[u8], relative: &Path) -> std::io::Result<std::fs::File> {
        let dir = self.dir().map_err(|e| std::io::Error::other(e.message))?;
        dir.open_beneath(&Path::new(os(folder)).join(relative))
    }

    /// The folder's handle while the index is open.
    pub fn dir(&self) -> Result<Arc<Dir>> {
        self.usable()?;
        lock(&self.dir).clone().ok_or_else(closed)
    }

    /// What `key`'s rules let through in the current tree: kept from an
    /// earlier query if the tree has not changed since, else made by `build`.
    pub fn visible(&self, key: &VisibleKey, build: impl FnOnce(&Tree) -> Result<Visible>) -> Result<Arc<Visible>> {
        let tree = self.read()?;
        let generation = self.generation.load(Ordering::SeqCst);
        let kept =
            lock(&self.visible).iter().find(|(k, g, _)| k == key && *g == generation).map(|(.., v)| Arc::clone(v));
        if let Some(visible) = kept {
            return Ok(visible);
        }
        let visible = Arc::new(build(&tree)?);
        let mut cache = lock(&self.visible);
        cache.retain(|(k, g, _)| *g == generation && k != key);
        if cache.len() >= VISIBLE_KEPT {
            cache.remove(0);
        }
        cache.push((key.clone(), generation, Arc::clone(&visible)));
        Ok(visible)
    }

    /// This index and its tree as they are now: `(id, generation)`; the
    /// generation changes whenever the tree may have (a search's cursor
    /// keeps it, to tell when the tree changed between pages).
    pub fn generation(&self) -> (u64, u64) {
        (self.id, self.generation.load(Ordering::SeqCst))
    }

    /// The content layer, for a query to read (see `query`).
    pub fn content(&self) -> RwLockReadGuard<'_, ContentLayer> {
        unpoisoned(self.content.read())
    }

    /// Keeps what a query learnt of files' contents (see `ContentLayer::keep`).
    pub fn keep_learnt(&self, epoch: u64, learnt: Vec<content::Learnt>) {
        unpoisoned(self.content.write()).keep(epoch, learnt);
    }

    /// The tree at the start of a call: once its folders that are not
    /// watched have been listed again (see `relist_unwatched`).
    pub fn read_for_call(&self) -> Result<RwLockReadGuard<'_, Tree>> {
        self.check_open()?;
        self.relist_unwatched()?;
        self.read()
    }

    /// The tree, once the index is known to still stand for its folder.
    pub fn read(&self) -> Result<RwLockReadGuard<'_, Tree>> {
        self.check_open()?;
        let tree = unpoisoned(self.tree.read());
        // Closed or failed meanwhile: the tree held is an empty one.
        self.usable()?;
        Ok(tree)
    }

    /// Fails once closed or failed: what every call checks first.
    fn usable(&self) -> Result<()> {
        if lock(&self.keeper).is_none() {
            return Err(closed());
        }
        match lock(&self.broken).clone() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// `usable`, and the root is still the folder indexed, and the keeper
    /// still runs; fails the index for good when either is no longer so.
    fn check_open(&self) -> Result<()> {
        self.usable()?;
        if let Some(lost) = self.root_changed() {
            self.fail(lost.clone());
            return Err(lost);
        }
        let died = lock(&self.keeper).as_ref().is_some_and(|k| k.thread.is_finished());
        if died {
            let e = FindError::new(
                ErrorCode::FsError,
                "internal error in agent-find (please report it): the index's thread ended, so the index no longer follows changes; open a new index with openIndex(path)",
            );
            self.fail(e.clone());
            return Err(e);
        }
        self.usable()
    }

    /// Why the folder at the root's path is no longer the one indexed: it is
    /// gone (deleted, or moved away) or another folder took its place.
    fn root_changed(&self) -> Option<FindError> {
        let expected = self.identity?;
        let shown = self.logical_path.to_string_lossy();
        let shown = clip(&shown, 300);
        match path_identity(&self.real_path) {
            Ok(now) if now == expected => None,
            Ok(_) => Some(FindError::new(
                ErrorCode::FsError,
                format!("the indexed folder `{shown}` was moved away or replaced by another folder after the index was opened, so the index no longer answers for it; open a new index with openIndex(path)"),
            )),
            Err(e) if dir_is_gone(&e) => Some(FindError::new(
                ErrorCode::NotFound,
                format!("the indexed folder `{shown}` was deleted or moved away after the index was opened, so the index no longer answers for it; open a new index with openIndex(path) if it exists again"),
            )),
            // Not ours to look at any more (a folder above it was locked):
            // the index goes on through its handle and its watches, and a
            // call is refused as on disk while it stays so (`query::walk`).
            Err(_) => None,
        }
    }

    /// Makes every later call fail with `why`, and frees what the index holds.
    fn fail(&self, why: FindError) {
        {
            let mut broken = lock(&self.broken);
            if broken.is_some() {
                return;
            }
            *lock(&self.status.last_error) = Some(why.message.clone());
            *broken = Some(why);
        }
        if let Some(keeper) = lock(&self.keeper).as_ref() {
            keeper.stop.store(true, Ordering::SeqCst);
        }
        self.status.busy.store(false, Ordering::SeqCst);
        self.release();
    }

    /// Frees the tree, the lists kept for queries and the folder's handle
    /// (queries under way keep what they hold until they end).
    fn release(&self) {
        *lock(&self.dir) = None;
        #[cfg(target_os = "linux")]
        {
            *lock(&self.inotify) = None;
        }
        *unpoisoned(self.tree.write()) = Tree::new(UNKNOWN_META);
        unpoisoned(self.content.write()).clear();
        lock(&self.visible).clear();
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The ignore rules that apply to the folder `start` from above it, as
    /// `rules_above_on_disk` gives them: from the nearest folder holding
    /// `.git` (in the index or above it) down to `start`'s parent.
    pub fn rules_above(&self, tree: &Tree, start: Id) -> Rules {
        let start_path = self.real_path.join(os(&tree.path(start)));
        let has_git = |id: Id| tree.node(id).rules.as_ref().is_some_and(|r| r.has_git());
        if has_git(start) {
            return Rules::default();
        }
        let chain = tree.ancestors(start);
        let from = chain.iter().rposition(|&id| has_git(id));
        let mut rules = Rules::default();
        if from.is_none() {
            for (folder, compiled) in &self.above {
                rules = rules.above(&start_path, folder, compiled.as_ref());
            }
        }
        for &id in &chain[from.unwrap_or(0)..] {
            let folder = self.real_path.join(os(&tree.path(id)));
            rules = rules.above(&start_path, &folder, tree.node(id).rules.as_ref());
        }
        rules
    }

    pub fn stats(&self) -> Stats {
        let tree = unpoisoned(self.tree.read());
        // Folders not watched now (Linux: counted one by one).
        #[cfg(target_os = "linux")]
        let unwatched = lock(&self.inotify).as_ref().map(|i| i.unwatched()).unwrap_or_default();
        #[cfg(not(target_os = "linux"))]
        let unwatched: (usize, Option<String>) = (0, None);
        let content = unpoisoned(self.content.read()).size();
        let s = &self.status;
        Stats {
            entries: tree.entries(),
            bytes: tree.bytes(),
            cached_bytes: lock(&self.visible).iter().map(|(.., v)| v.bytes()).sum(),
            content,
            events: s.events.load(Ordering::Relaxed),
            folders_reconciled: s.folders_reconciled.load(Ordering::Relaxed),
            rescans: s.rescans.load(Ordering::Relaxed),
            last_rescan: lock(&s.last_rescan).clone(),
            watch_errors: s.watch_errors.load(Ordering::Relaxed) + unwatched.0 as u64,
            last_error: lock(&s.last_error).clone().or(unwatched.1),
            closed: lock(&self.keeper).is_none(),
        }
    }

    /// Blocks until every change made before the call is in the index: no
    /// event for `QUIET` since the call and since the last event, and none
    /// being applied.
    pub fn settle(&self, cancel: &Cancel) -> Result<()> {
        let called = Instant::now();
        loop {
            cancel.check()?;
            self.check_open()?;
            let last = lock(&self.status.last_event).unwrap_or(called).max(called);
            if !self.status.busy.load(Ordering::SeqCst) && last.elapsed() >= QUIET {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Stops watching, joins the thread and frees the tree and the folder's
    /// handle; later calls fail.
    pub fn close(&self) {
        let closing = self.begin_close();
        self.finish_close(closing);
    }

    /// The quick half of `close`: later calls fail from now on, and the
    /// keeper is told to stop.
    pub fn begin_close(&self) -> Closing {
        let keeper = lock(&self.keeper).take();
        if let Some(keeper) = &keeper {
            keeper.stop.store(true, Ordering::SeqCst);
        }
        Closing(keeper)
    }

    /// The rest of `close`, which may wait for the keeper to finish a batch.
    pub fn finish_close(&self, closing: Closing) {
        if let Some(keeper) = closing.0 {
            // The keeper itself may hold the last reference (see `Drop`).
            if keeper.thread.thread().id() != std::thread::current().id() {
                let _ = keeper.thread.join();
            }
        }
        self.release();
    }
}

impl Drop for Index {
    /// Dropped unclosed: the keeper is told to stop, not joined. Its thread
    /// may be the one dropping the index (it held the last reference while
    /// applying a batch), and otherwise it ends by itself within one wait
    /// for events, dropping the watcher.
    fn drop(&mut self) {
        if let Some(keeper) = lock(&self.keeper).take() {
            keeper.stop.store(true, Ordering::SeqCst);
        }
    }
}

fn closed() -> FindError {
    FindError::invalid_argument("this index is closed; open a new one with openIndex(path)")
}

/// The folder's `(st_dev, st_ino)`, by its handle.
#[cfg(unix)]
fn identity_of(dir: &Dir) -> Option<(u64, u64)> {
    dir.identity().ok()
}

#[cfg(not(unix))]
fn identity_of(_: &Dir) -> Option<(u64, u64)> {
    None
}

/// The folder's mode, owner and group, by its handle.
#[cfg(unix)]
fn access_of(dir: &Dir) -> Option<(u32, u32, u32)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: a valid descriptor and room for the answer.
    if unsafe { libc::fstat(dir.raw_fd(), st.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: fstat succeeded, so it filled `st`.
    let st = unsafe { st.assume_init() };
    #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
    Some((st.st_mode as u32, st.st_uid as u32, st.st_gid as u32))
}

#[cfg(not(unix))]
fn access_of(_: &Dir) -> Option<(u32, u32, u32)> {
    None
}

/// The `(st_dev, st_ino)` of what is at `path` now.
#[cfg(unix)]
fn path_identity(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path)?;
    Ok((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn path_identity(_: &Path) -> std::io::Result<(u64, u64)> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Nothing at the path, or a file where a folder on the way was.
fn dir_is_gone(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory)
}

/// What a caught panic said.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => text.to_string(),
        (_, Some(text)) => text.clone(),
        _ => "a panic".to_string(),
    }
}

/// The failure to start watching `folder`. inotify answers EMFILE both for
/// its own per-user limit on instances and for the process's open files, so
/// the message names both rather than only "Too many open files".
fn cannot_watch(folder: &Path, e: &notify::Error) -> FindError {
    let path = folder.to_string_lossy();
    let shown = clip(&path, 300);
    let emfile = matches!(&e.kind, notify::ErrorKind::Io(io) if io.raw_os_error() == Some(24));
    let message = match emfile {
        true => {
            let limit = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_instances")
                .map(|t| format!(" = {}", t.trim()))
                .unwrap_or_default();
            format!(
                "cannot watch `{shown}`: the limit on inotify instances (fs.inotify.max_user_instances{limit}; each open index takes one) or on this process's open files is reached; close indexes no longer in use (index.close()), or raise the limit"
            )
        }
        false => format!("cannot watch `{shown}`: {e}"),
    };
    FindError::new(ErrorCode::FsError, message)
}

/// A folder's compiled ignore files, read when it holds any (or `.git`,
/// which the caller saw while listing it: then its repository's
/// `info/exclude` and config are read again, the user's settings being
/// those read at open).
fn folder_rules(dir: &Dir, tree: &Tree, id: Id, has_git: bool, git: &GitEnv) -> Option<Arc<FolderRules>> {
    let node = tree.node(id);
    let named = |name: &str| node.children.iter().any(|&c| tree.name(c) == name.as_bytes());
    if !has_git && !named(GITIGNORE) && !named(IGNORE) {
        return None;
    }
    FolderRules::compile(IgnoreFiles::read_knowing_git(dir, has_git, git))
}

/// The keeper thread: applies batches of events until told to stop, and
/// gives new folders their second look once events go quiet. Holds the
/// index weakly, so a dropped index stops it too; owns the watcher, so its
/// end removes every watch. A panic in its work is caught and answered by
/// walking the whole tree again (`recover`): it never dies silently.
fn keep(index: std::sync::Weak<Index>, source: Source, stop: Arc<AtomicBool>) {
    let mut second_look: Vec<Vec<u8>> = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        let go_on = match catch_unwind(AssertUnwindSafe(|| keep_step(&index, &source, &mut second_look))) {
            Ok(go_on) => go_on,
            Err(panic) => {
                second_look.clear();
                index.upgrade().is_some_and(|index| index.recover(&panic_text(&*panic)))
            }
        };
        if !go_on {
            break;
        }
    }
    drop(source);
}

/// Where events come from: inotify used directly on Linux (see `inotify`),
/// `notify` elsewhere.
enum Source {
    #[cfg(target_os = "linux")]
    Inotify(Arc<inotify::Inotify>),
    #[cfg(not(target_os = "linux"))]
    Notify(Mutex<notify::RecommendedWatcher>, Receiver<Message>),
}

/// What one wait for events gave.
enum Next {
    Quiet,
    Ended,
    #[cfg(not(target_os = "linux"))]
    Batch(Vec<Message>),
    #[cfg(target_os = "linux")]
    Raw(Vec<inotify::Raw>),
}

impl Source {
    fn new(real_path: &Path) -> Result<Source> {
        #[cfg(target_os = "linux")]
        return inotify::Inotify::new()
            .map(|i| Source::Inotify(Arc::new(i)))
            .map_err(|e| cannot_watch(real_path, &notify::Error::io(e)));
        #[cfg(not(target_os = "linux"))]
        {
            let (sender, events) = channel();
            let handler = move |event| {
                let _ = sender.send(event);
            };
            let config = notify::Config::default().with_follow_symlinks(false);
            let watcher = notify::RecommendedWatcher::new(handler, config).map_err(|e| cannot_watch(real_path, &e))?;
            Ok(Source::Notify(Mutex::new(watcher), events))
        }
    }

    /// Waits up to 20 ms for events.
    fn next(&self) -> Next {
        match self {
            #[cfg(target_os = "linux")]
            Source::Inotify(inotify) => match inotify.wait(Duration::from_millis(20)) {
                Ok(raw) if raw.is_empty() => Next::Quiet,
                Ok(raw) => Next::Raw(raw),
                Err(_) => Next::Ended,
            },
            #[cfg(not(target_os = "linux"))]
            Source::Notify(_, events) => match events.recv_timeout(Duration::from_millis(20)) {
                Ok(message) if changes_nothing(&message) => Next::Batch(Vec::new()),
                Ok(message) => {
                    let mut batch = vec![message];
                    batch.extend(events.try_iter().filter(|m| !changes_nothing(m)));
                    Next::Batch(batch)
                }
                Err(RecvTimeoutError::Timeout) => Next::Quiet,
                Err(RecvTimeoutError::Disconnected) => Next::Ended,
            },
        }
    }
}

/// The watcher the first walk adds its watches with (none off Linux, where
/// `notify` watches the whole folder by itself).
#[cfg(target_os = "linux")]
type Watcher = inotify::Inotify;
#[cfg(not(target_os = "linux"))]
type Watcher = std::convert::Infallible;

/// One walker thread's share of `Index::build`.
struct Building<'a> {
    watch: Option<&'a Watcher>,
    out: Built,
}

/// What one walker thread found: the listing of each folder it opened; on
/// Linux, the watches it made by path and the folders it could not watch
/// (with why).
#[derive(Default)]
struct Built {
    listings: Vec<Listing>,
    #[cfg(target_os = "linux")]
    watched: Vec<(i32, Vec<u8>)>,
    #[cfg(target_os = "linux")]
    failed: Vec<(Vec<u8>, String)>,
}

/// One folder as a walker listed it: its path from the root, its own
/// metadata and inode number (once watched), and its children: their names
/// end to end, and each one's end in `names`, kind, metadata and whether it
/// is a file with more than one name.
struct Listing {
    rel: Vec<u8>,
    own: Option<(Meta, u64)>,
    names: Vec<u8>,
    children: Vec<(usize, EntryKind, Meta, bool)>,
}

impl crate::walk::Collector for Building<'_> {
    type Out = Built;

    fn offer(&mut self, rel: &Path, kind: EntryKind, entry: &Entry) {
        // Listed but not to be looked at (its folder is `r--`): kept with
        // no size or time, as a fresh walk lists it.
        let (meta, linked) = match entry.stat_full() {
            Ok(full) => (full.stat.meta, full.linked),
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => (UNKNOWN_META, false),
            Err(_) => return,
        };
        let rel = rel.as_os_str().as_encoded_bytes();
        let (folder, name) = match rel.iter().rposition(|&b| b == b'/') {
            Some(at) => (&rel[..at], &rel[at + 1..]),
            None => (&rel[..0], rel),
        };
        // The entries of a folder follow its `folder` call; should they not
        // (an engine that makes none), the folder's listing starts here.
        if self.out.listings.last().is_none_or(|l| l.rel != folder) {
            self.out.listings.push(Listing {
                rel: folder.to_vec(),
                own: None,
                names: Vec::new(),
                children: Vec::new(),
            });
        }
        let Some(listing) = self.out.listings.last_mut() else { return };
        listing.names.extend_from_slice(name);
        listing.children.push((listing.names.len(), kind, meta, linked));
    }

    fn folder(&mut self, rel: &Path, dir: &Dir) {
        let rel = rel.as_os_str().as_encoded_bytes().to_vec();
        #[cfg(target_os = "linux")]
        if let Some(inotify) = self.watch {
            match inotify.watch_before(dir) {
                Ok(wd) => self.out.watched.push((wd, rel.clone())),
                Err(why) => self.out.failed.push((rel.clone(), why)),
            }
        }
        // After the watch: a change to the folder from now on raises an event.
        let own = dir.stat_full(OsStr::new(".")).ok().map(|full| (full.stat.meta, full.ino));
        self.out.listings.push(Listing { rel, own, names: Vec::new(), children: Vec::new() });
    }

    fn finish(self) -> Built {
        self.out
    }
}

/// One wait for events and what follows: a batch applied, or new folders'
/// second look. False when the keeper is to end.
fn keep_step(index: &std::sync::Weak<Index>, source: &Source, second_look: &mut Vec<Vec<u8>>) -> bool {
    let next = source.next();
    let Some(index) = index.upgrade() else { return false };
    let batch = match next {
        Next::Quiet => {
            if !second_look.is_empty() {
                index.look_again(std::mem::take(second_look));
                index.status.busy.store(false, Ordering::SeqCst);
            }
            return true;
        }
        Next::Ended => return false,
        #[cfg(not(target_os = "linux"))]
        Next::Batch(batch) => batch,
        #[cfg(target_os = "linux")]
        Next::Raw(raw) => index.translate(raw),
    };
    if batch.is_empty() {
        return true;
    }
    index.status.busy.store(true, Ordering::SeqCst);
    second_look.extend(index.apply(batch));
    *lock(&index.status.last_event) = Some(Instant::now());
    if let Some(lost) = index.root_changed() {
        index.fail(lost);
        return false;
    }
    index.status.busy.store(!second_look.is_empty(), Ordering::SeqCst);
    true
}

/// Removes everything below the folder `id`.
/// `forget_children` for a folder the OS now refuses to open or list.
fn forget_denied(tree: &mut Tree, id: Id) {
    forget_children(tree, id);
    tree.node_mut(id).denied = true;
}

fn forget_children(tree: &mut Tree, id: Id) {
    for child in tree.node(id).children.clone() {
        tree.remove(child);
    }
    tree.node_mut(id).rules = None;
}

/// The metadata of `name`, listed in `dir` as `kind`, with its inode number
/// and whether it is a file with more than one name (see `FullStat`):
/// `None` if it is gone or no longer that kind; no size or time (nor inode
/// number) if it may be listed but not looked at (`dir` is readable but not
/// searchable), as a fresh walk shows it.
fn meta_of(dir: &Dir, name: &[u8], kind: EntryKind) -> Option<FullStat> {
    match dir.stat_full(os(name)) {
        Ok(full) => (full.stat.kind == Some(kind)).then_some(full),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            Some(FullStat { stat: crate::dir::Stat { kind: Some(kind), meta: UNKNOWN_META }, ino: 0, linked: false })
        }
        Err(_) => None,
    }
}

/// Opening, reading and closing (the index's own listings among them) change nothing.
#[cfg(not(target_os = "linux"))]
fn changes_nothing(message: &Message) -> bool {
    let Ok(event) = message else { return false };
    matches!(event.kind, notify::EventKind::Access(_)) && !event.need_rescan()
}

#[cfg(target_os = "linux")]
impl Index {
    /// inotify's events as the index applies them: each at its folder's
    /// path in the tree now (events of folders no longer in it are let go).
    fn translate(&self, raw: Vec<inotify::Raw>) -> Vec<Message> {
        let Some(inotify) = lock(&self.inotify).clone() else { return Vec::new() };
        let tree = unpoisoned(self.tree.read());
        let mut batch = Vec::new();
        for event in raw {
            if event.mask & libc::IN_Q_OVERFLOW != 0 {
                batch.push(Ok(inotify::as_event(&event, PathBuf::new())));
                continue;
            }
            // A file's own watch: the event is at each of its names in the tree.
            if let Some(files) = inotify.file_target(&event) {
                for id in files.into_iter().filter_map(|f| tree.resolve(f)) {
                    batch.push(Ok(inotify::as_event(&event, self.real_path.join(os(&tree.path(id))))));
                }
                continue;
            }
            let Some(target) = inotify.target(&event) else { continue };
            let Some(id) = tree.resolve(target.folder) else { continue };
            let mut rel = tree.path(id);
            for part in [target.git.as_deref(), Some(&event.name[..]).filter(|n| !n.is_empty())].into_iter().flatten() {
                if !rel.is_empty() {
                    rel.push(b'/');
                }
                rel.extend_from_slice(part);
            }
            batch.push(Ok(inotify::as_event(&event, self.real_path.join(os(&rel)))));
        }
        batch
    }

    /// Whether the folder's watch was dropped by the kernel because the
    /// folder was deleted (see `Inotify::was_deleted`).
    fn was_deleted(&self, folder: Handle) -> bool {
        lock(&self.inotify).as_ref().is_some_and(|i| i.was_deleted(folder))
    }

    /// Watches the folder `id`, open as `dir` (before it is listed); true
    /// when it was not watched as this folder before.
    fn watch(&self, dir: &Dir, tree: &Tree, id: Id) -> bool {
        let inotify = lock(&self.inotify).clone();
        inotify.is_some_and(|i| i.watch_folder(dir, tree.handle(id)))
    }

    fn watch_git(&self, dir: &Dir, tree: &Tree, id: Id) {
        if let Some(inotify) = lock(&self.inotify).clone() {
            inotify.watch_git(dir, tree.handle(id));
        }
    }

    /// Stops the watches of folders no longer in `tree`.
    fn sweep(&self, tree: &Tree) {
        if let Some(inotify) = lock(&self.inotify).clone() {
            inotify.sweep(tree);
        }
    }

    /// After a tree was built anew: the files with more than one name it
    /// found (`files`) are watched, each file's watch made anew; each is
    /// looked at again once watched, as the walk saw it before.
    fn watch_links(&self, root: &Dir, tree: &mut Tree, files: &[Id]) {
        let Some(inotify) = lock(&self.inotify).clone() else { return };
        inotify.clear_files();
        let mut by_folder: Vec<(Id, Id)> = files.iter().map(|&f| (tree.node(f).parent(), f)).collect();
        by_folder.sort_unstable();
        for group in by_folder.chunk_by(|a, b| a.0 == b.0) {
            let Ok(held) = root.folder_beneath(Path::new(os(&tree.path(group[0].0)))) else { continue };
            let dir = held.as_ref().unwrap_or(root);
            for &(_, file) in group {
                self.track_file(dir, tree, file, true);
            }
        }
    }

    /// Keeps the watch on the file `id` of the folder open as `dir` as its
    /// link count asks: a file with more than one name is watched (and
    /// looked at again once it is, for what changed before), one with a
    /// single name is not.
    fn track_file(&self, dir: &Dir, tree: &mut Tree, id: Id, linked: bool) {
        let Some(inotify) = lock(&self.inotify).clone() else { return };
        let handle = tree.handle(id);
        if !linked {
            inotify.unwatch_file(handle);
            return;
        }
        if inotify.watch_file(dir, tree.name(id), handle) == inotify::FileWatch::New {
            // Gone or changed meanwhile: its folder's event follows.
            if let Some(full) = meta_of(dir, tree.name(id), EntryKind::File) {
                tree.node_mut(id).meta = full.stat.meta;
            }
        }
    }

    /// After `old` was replaced by `new` (built anew): the watches follow,
    /// and the folders in `new` with none get one.
    fn rewatch(&self, root: &Arc<Dir>, old: &Tree, new: &Tree) {
        let Some(inotify) = lock(&self.inotify).clone() else { return };
        inotify.remap(old, new);
        let watched = inotify.watched();
        let mut stack = vec![ROOT];
        while let Some(id) = stack.pop() {
            let handle = new.handle(id);
            if !watched.contains(&handle) {
                if let Ok(held) = root.folder_beneath(Path::new(os(&new.path(id)))) {
                    let dir = held.as_ref().unwrap_or(root);
                    if inotify.watch_folder(dir, handle) && new.node(id).rules.as_ref().is_some_and(|r| r.has_git()) {
                        inotify.watch_git(dir, handle);
                    }
                }
            }
            stack.extend(new.node(id).children.iter().copied().filter(|&c| new.node(c).kind == EntryKind::Dir));
        }
    }
}

#[cfg(target_os = "linux")]
impl Index {
    /// Lists again every folder the watcher could not watch (past the
    /// inotify limit), and all new folders found in them, trying to watch
    /// each: changes there raise no event, so a query pays for exactness
    /// with these listings. A panic meanwhile is recovered from as in the
    /// keeper (the tree is walked again whole).
    fn relist_unwatched(&self) -> Result<()> {
        let Some(inotify) = lock(&self.inotify).clone() else { return Ok(()) };
        self.relist(inotify.unwatched_folders())
    }

    /// Lists the folders `folders` again (and the new folders found in
    /// them) outside the keeper, for a call.
    fn relist(&self, folders: Vec<Handle>) -> Result<()> {
        if folders.is_empty() {
            return Ok(());
        }
        let root = self.dir()?;
        let relisted = catch_unwind(AssertUnwindSafe(|| {
            let mut tree = unpoisoned(self.tree.write());
            let mut found = Vec::new();
            for handle in folders {
                if let Some(id) = tree.resolve(handle).filter(|&id| tree.node(id).kind == EntryKind::Dir) {
                    self.reconcile(&root, &mut tree, id, &mut found);
                }
            }
            while let Some(handle) = found.pop() {
                if let Some(id) = tree.resolve(handle) {
                    self.reconcile(&root, &mut tree, id, &mut found);
                }
            }
            self.sweep(&tree);
            self.generation.fetch_add(1, Ordering::SeqCst);
        }));
        if let Err(panic) = relisted {
            if !self.recover(&panic_text(&*panic)) {
                return self.usable();
            }
        }
        Ok(())
    }
}

#[cfg(target_os = "linux")]
impl Index {
    /// Looks again at the files among `files` (those a call is about to
    /// show) that have more than one name and no watch, and lists again the
    /// folders of those that changed since the tree saw them (their size,
    /// time or kind, or they are gone or have one name now): true when it
    /// did (the tree changed). A call pays for the files it shows only.
    pub fn look_at_unwatched_files(&self, files: &[Handle]) -> Result<bool> {
        let Some(inotify) = lock(&self.inotify).clone() else { return Ok(false) };
        let files = inotify.unwatched_among(files);
        if files.is_empty() {
            return Ok(false);
        }
        let changed = self.changed_files(files)?;
        let relisted = !changed.is_empty();
        self.relist(changed)?;
        Ok(relisted)
    }

    /// The folders of `files` where one changed since the tree saw it.
    fn changed_files(&self, files: Vec<Handle>) -> Result<Vec<Handle>> {
        let root = self.dir()?;
        // What the tree shows of each, by folder; then looked at without the lock.
        let mut shown: Vec<(Handle, Vec<u8>, Vec<u8>, Meta)> = {
            let tree = unpoisoned(self.tree.read());
            files
                .into_iter()
                .filter_map(|f| tree.resolve(f))
                .map(|id| {
                    let folder = tree.node(id).parent();
                    (tree.handle(folder), tree.path(folder), tree.name(id).to_vec(), tree.node(id).meta)
                })
                .collect()
        };
        shown.sort_unstable_by(|a, b| a.1.cmp(&b.1));
        let mut changed = Vec::new();
        for group in shown.chunk_by(|a, b| a.0 == b.0) {
            let held = match root.folder_beneath(Path::new(os(&group[0].1))) {
                Ok(held) => held,
                Err(_) => {
                    changed.push(group[0].0);
                    continue;
                }
            };
            let dir = held.as_ref().unwrap_or(&root);
            let same = |(_, _, name, meta): &(Handle, Vec<u8>, Vec<u8>, Meta)| {
                meta_of(dir, name, EntryKind::File).is_some_and(|full| full.linked && full.stat.meta == *meta)
            };
            if !group.iter().all(same) {
                changed.push(group[0].0);
            }
        }
        Ok(changed)
    }
}

/// Off Linux, `notify` watches the whole folder by itself.
#[cfg(not(target_os = "linux"))]
impl Index {
    fn relist_unwatched(&self) -> Result<()> {
        Ok(())
    }

    pub fn look_at_unwatched_files(&self, _: &[Handle]) -> Result<bool> {
        Ok(false)
    }

    fn was_deleted(&self, _: Handle) -> bool {
        false
    }

    fn watch(&self, _: &Dir, _: &Tree, _: Id) -> bool {
        false
    }

    fn watch_git(&self, _: &Dir, _: &Tree, _: Id) {}

    fn sweep(&self, _: &Tree) {}

    fn rewatch(&self, _: &Arc<Dir>, _: &Tree, _: &Tree) {}

    fn watch_links(&self, _: &Dir, _: &mut Tree, _: &[Id]) {}

    fn track_file(&self, _: &Dir, _: &mut Tree, _: Id, _: bool) {}
}

impl Index {
    /// Turns a batch of events into the folders to compare again, and does
    /// it; returns the new folders found, for their second look.
    fn apply(&self, batch: Vec<Message>) -> Vec<Vec<u8>> {
        #[cfg(test)]
        if self.status.panic_next.swap(false, Ordering::SeqCst) {
            let _tree = unpoisoned(self.tree.write());
            panic!("a panic made by a test while the tree is locked");
        }
        self.status.events.fetch_add(batch.len() as u64, Ordering::Relaxed);
        let Ok(root) = self.dir() else { return Vec::new() };
        let mut dirty: BTreeSet<Vec<u8>> = BTreeSet::new();
        // Entries whose mode or owner changed: a folder among them may have
        // become enterable or not, which changes what lies below it.
        let mut access: BTreeSet<Vec<u8>> = BTreeSet::new();
        // Entries an event names: their contents may have changed.
        let mut touched: BTreeSet<Vec<u8>> = BTreeSet::new();
        let mut rescan = None;
        // The root's own metadata changed (its mode, say).
        let mut root_metadata = false;
        for event in batch {
            match event {
                Ok(event) if event.need_rescan() => rescan = Some("the OS dropped events (queue overflow)"),
                Ok(event) => {
                    let metadata =
                        matches!(event.kind, notify::EventKind::Modify(notify::event::ModifyKind::Metadata(_)));
                    for path in &event.paths {
                        root_metadata |=
                            metadata && path.strip_prefix(&self.real_path).is_ok_and(|r| r.as_os_str().is_empty());
                        if let Some(folder) = self.changed_folder(path) {
                            dirty.insert(folder);
                        }
                        let entry = self.entry_at(path);
                        dirty.extend(self.submodule_folders(path));
                        if metadata {
                            access.extend(entry.clone());
                        }
                        touched.extend(entry);
                    }
                }
                // A folder the OS would not watch (its limit): counted, as
                // comparing again would not make it watched.
                Err(e) => {
                    self.status.watch_errors.fetch_add(1, Ordering::Relaxed);
                    *lock(&self.status.last_error) = Some(e.to_string());
                }
            }
        }
        let mut tree = unpoisoned(self.tree.write());
        let mut content = unpoisoned(self.content.write());
        for rel in &touched {
            if let Some(id) = tree.find(rel) {
                content.forget(id);
            }
        }
        let mut new_folders = Vec::new();
        if let Some(why) = rescan {
            // Walked again whole, in parallel; the old tree answers nothing meanwhile.
            self.status.rescans.fetch_add(1, Ordering::Relaxed);
            *lock(&self.status.last_rescan) = Some(why.to_string());
            match self.build(&root, None) {
                Ok((fresh, linked)) => {
                    let old = std::mem::replace(&mut *tree, fresh);
                    content.clear();
                    self.rewatch(&root, &old, &tree);
                    self.watch_links(&root, &mut tree, &linked);
                }
                Err(e) => *lock(&self.status.last_error) = Some(e.message),
            }
        } else {
            // Shallowest first: a folder removed with its parent is not looked for.
            let mut dirty: Vec<Vec<u8>> = dirty.into_iter().collect();
            dirty.sort_by_key(|rel| rel.iter().filter(|&&b| b == b'/').count());
            for rel in dirty {
                if let Some(id) = tree.find(&rel).filter(|&id| tree.node(id).kind == EntryKind::Dir) {
                    self.reconcile(&root, &mut tree, id, &mut new_folders);
                }
            }
            let mut changed: Vec<Handle> =
                access.iter().filter_map(|rel| tree.find(rel)).map(|id| tree.handle(id)).collect();
            // As for a folder below it: what lies below the root may now be
            // listed, looked at or entered, or no longer.
            if root_metadata && self.root_access_changed(&root) {
                changed.push(tree.handle(ROOT));
            }
            self.relist_below(&root, &mut tree, changed);
        }
        // New folders are listed down their whole subtree (a later listing
        // may have removed one already: its handle then resolves to nothing).
        let new_roots: Vec<Vec<u8>> =
            new_folders.iter().filter_map(|&h| tree.resolve(h)).map(|id| tree.path(id)).collect();
        while let Some(handle) = new_folders.pop() {
            if let Some(id) = tree.resolve(handle) {
                self.reconcile(&root, &mut tree, id, &mut new_folders);
            }
        }
        self.sweep(&tree);
        content.sweep(&tree);
        self.generation.fetch_add(1, Ordering::SeqCst);
        new_roots
    }

    /// Whether the root's mode or owner differs from when last seen (then
    /// noted): its other metadata (its time, say) changes nothing below it.
    fn root_access_changed(&self, root: &Dir) -> bool {
        let now = access_of(root);
        let mut seen = lock(&self.root_access);
        let changed = now.is_none() || *seen != now;
        *seen = now;
        changed
    }

    /// After a panic in the keeper's work: the tree may be half changed, so
    /// it is walked again whole. False (and the index failed for good, every
    /// call saying why) when that cannot be done.
    fn recover(&self, what: &str) -> bool {
        let error = format!("internal error in the index's thread (please report it): {what}");
        if let Some(lost) = self.root_changed() {
            self.fail(lost);
            return false;
        }
        let Ok(root) = self.dir() else { return false };
        let failed = match catch_unwind(AssertUnwindSafe(|| self.build(&root, None))) {
            Ok(Ok((fresh, linked))) => {
                let mut tree = unpoisoned(self.tree.write());
                unpoisoned(self.content.write()).clear();
                let old = std::mem::replace(&mut *tree, fresh);
                // The old tree may be half changed: its watches are remade from scratch if need be.
                if catch_unwind(AssertUnwindSafe(|| self.rewatch(&root, &old, &tree))).is_err() {
                    self.rewatch(&root, &Tree::new(UNKNOWN_META), &tree);
                }
                self.watch_links(&root, &mut tree, &linked);
                drop(tree);
                self.generation.fetch_add(1, Ordering::SeqCst);
                self.status.rescans.fetch_add(1, Ordering::Relaxed);
                *lock(&self.status.last_rescan) =
                    Some("an internal error in the index's thread (see lastError)".into());
                *lock(&self.status.last_error) = Some(format!("{error}; the index was walked again whole"));
                *lock(&self.status.last_event) = Some(Instant::now());
                self.status.busy.store(false, Ordering::SeqCst);
                return true;
            }
            Ok(Err(e)) => e.message,
            Err(panic) => panic_text(&*panic),
        };
        self.fail(FindError::new(
            ErrorCode::FsError,
            format!("the index stopped following changes after an {error}, and walking the folder again failed ({failed}); open a new index with openIndex(path)"),
        ));
        false
    }

    /// Lists new folders (and all below them) once more, now that the
    /// watcher watches them: what was put in them before it did is found.
    fn look_again(&self, folders: Vec<Vec<u8>>) {
        let Ok(root) = self.dir() else { return };
        let mut tree = unpoisoned(self.tree.write());
        let start: Vec<Handle> = folders.iter().filter_map(|rel| tree.find(rel)).map(|id| tree.handle(id)).collect();
        self.relist_below(&root, &mut tree, start);
        self.sweep(&tree);
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// Lists the folders `start` (those still in the tree) and every folder
    /// below them again.
    fn relist_below(&self, root: &Dir, tree: &mut Tree, start: Vec<Handle>) {
        // Handles, not ids: listing a folder again may remove one below it
        // that is still to be looked at (and its slot be reused).
        let mut stack = start;
        let mut found = Vec::new();
        while let Some(handle) = stack.pop() {
            let Some(id) = tree.resolve(handle) else { continue };
            if tree.node(id).kind != EntryKind::Dir {
                continue;
            }
            self.reconcile(root, tree, id, &mut found);
            let tree = &*tree;
            stack.extend(
                tree.node(id)
                    .children
                    .iter()
                    .filter(|&&c| tree.node(c).kind == EntryKind::Dir)
                    .map(|&c| tree.handle(c)),
            );
            found.clear();
        }
    }

    /// The entry (relative to the root) an event on `path` is about, unless
    /// it is the root itself or inside a `.git`.
    fn entry_at(&self, path: &Path) -> Option<Vec<u8>> {
        let rel = path.strip_prefix(&self.real_path).ok()?.as_os_str().as_encoded_bytes();
        let parts: Vec<&[u8]> = rel.split(|&b| b == b'/').filter(|p| !p.is_empty()).collect();
        (!parts.is_empty() && !parts.contains(&&b".git"[..])).then(|| parts.join(&b'/'))
    }

    /// The folder (relative to the root) to compare again after an event on
    /// `path`: its parent, or for anything inside a `.git`, the folder holding it.
    fn changed_folder(&self, path: &Path) -> Option<Vec<u8>> {
        let rel = path.strip_prefix(&self.real_path).ok()?.as_os_str().as_encoded_bytes();
        let parts: Vec<&[u8]> = rel.split(|&b| b == b'/').filter(|p| !p.is_empty()).collect();
        let cut = match parts.iter().position(|&p| p == b".git") {
            Some(git) => git,
            None => parts.len().saturating_sub(1),
        };
        Some(parts[..cut].join(&b'/'))
    }

    /// For an event inside a submodule's git dir (`<folder>/.git/modules/<name>/...`),
    /// the folders the submodule may be checked out in (`<folder>/<name>`, the
    /// name being a path that may hold `/`): listed again, those that exist
    /// read their repository's `info/exclude` and config anew.
    fn submodule_folders(&self, path: &Path) -> Vec<Vec<u8>> {
        let Ok(rel) = path.strip_prefix(&self.real_path) else { return Vec::new() };
        let parts: Vec<&[u8]> =
            rel.as_os_str().as_encoded_bytes().split(|&b| b == b'/').filter(|p| !p.is_empty()).collect();
        let Some(git) = parts.windows(2).position(|w| w == [&b".git"[..], &b"modules"[..]]) else {
            return Vec::new();
        };
        let (holder, name) = (&parts[..git], &parts[git + 2..]);
        (1..name.len()).map(|n| [holder, &name[..n]].concat().join(&b'/')).collect()
    }

    /// Lists the folder `id` again and makes its children in the index match:
    /// gone ones removed (with what they held), new ones added (new folders
    /// pushed on `new_folders`), metadata and the folder's ignore rules renewed.
    fn reconcile(&self, root: &Dir, tree: &mut Tree, id: Id, new_folders: &mut Vec<Handle>) {
        self.status.folders_reconciled.fetch_add(1, Ordering::Relaxed);
        let rel = tree.path(id);
        let held = match root.folder_beneath(Path::new(os(&rel))) {
            Ok(held) => held,
            // No longer to be entered: a fresh walk lists nothing in it.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return forget_denied(tree, id),
            // Gone or no longer a folder: its parent's event removes it.
            Err(_) => return,
        };
        let dir = held.as_ref().unwrap_or(root);
        // Watched before it is listed: what changes after the listing raises an event.
        let newly_watched = self.watch(dir, tree, id);
        let mut listed: HashMap<Vec<u8>, EntryKind> = HashMap::new();
        let mut has_git = false;
        let read = dir.for_each(|name, kind| match (kind, name == ".git") {
            (Some(_), true) => has_git = true,
            (Some(kind), false) => {
                listed.insert(name.as_encoded_bytes().to_vec(), kind);
            }
            (None, _) => {}
        });
        match read {
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return forget_denied(tree, id),
            Err(_) => return,
            Ok(()) => tree.node_mut(id).denied = false,
        }
        for child in tree.node(id).children.clone() {
            let name = tree.name(child).to_vec();
            match listed.remove(&name) {
                // A folder: the same one, or another put in its place (renamed
                // away and recreated), listed anew with all it holds.
                Some(EntryKind::Dir) if tree.node(child).kind == EntryKind::Dir => {
                    match meta_of(dir, &name, EntryKind::Dir) {
                        Some(FullStat { ino, .. })
                            if tree.ino(child).is_some_and(|known| ino != 0 && known != ino)
                                || self.was_deleted(tree.handle(child)) =>
                        {
                            tree.remove(child);
                            listed.insert(name, EntryKind::Dir);
                        }
                        Some(full) => {
                            tree.node_mut(child).meta = full.stat.meta;
                            tree.set_ino(child, full.ino);
                        }
                        None => tree.remove(child),
                    }
                }
                Some(kind) if kind == tree.node(child).kind => match meta_of(dir, &name, kind) {
                    Some(full) => {
                        tree.node_mut(child).meta = full.stat.meta;
                        if kind == EntryKind::File {
                            self.track_file(dir, tree, child, full.linked);
                        }
                    }
                    // Gone or changed since it was listed: its own event follows.
                    None => tree.remove(child),
                },
                Some(kind) => {
                    tree.remove(child);
                    listed.insert(name, kind);
                }
                None => tree.remove(child),
            }
        }
        for (name, kind) in listed {
            let Some(full) = meta_of(dir, &name, kind) else { continue };
            let child = tree.add(id, &name, kind, full.stat.meta);
            if kind == EntryKind::Dir {
                tree.set_ino(child, full.ino);
                new_folders.push(tree.handle(child));
            }
            if full.linked {
                self.track_file(dir, tree, child, true);
            }
        }
        if let Ok(st) = dir.stat(OsStr::new(".")) {
            tree.node_mut(id).meta = st.meta;
        }
        tree.node_mut(id).rules = folder_rules(dir, tree, id, has_git, &self.git);
        if has_git && newly_watched {
            self.watch_git(dir, tree, id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_out_of_inotify_instances_is_named_as_such() {
        let emfile = notify::Error::io(std::io::Error::from_raw_os_error(24));
        let message = cannot_watch(Path::new("/w"), &emfile).message;
        assert!(message.contains("limit on inotify instances") && message.contains("index.close()"), "{message}");
        let other = notify::Error::io(std::io::Error::from_raw_os_error(13));
        assert!(cannot_watch(Path::new("/w"), &other).message.starts_with("cannot watch `/w`: "));
    }
    use std::fs;

    fn temp(name: &str) -> crate::testing::TempTree {
        crate::testing::TempTree::with(&format!("index-{name}"), &[("src/deep/a.ts", b"a"), (".gitignore", b"*.log\n")])
    }

    /// An index whose keeper has ended (told to stop): only what a test
    /// applies by hand changes its tree.
    fn open_without_keeper(dir: &Path) -> Arc<Index> {
        let index = Index::open(dir.to_path_buf(), ContentCaps::default()).unwrap();
        lock(&index.keeper).as_ref().unwrap().stop.store(true, Ordering::SeqCst);
        wait_for("the keeper to end", || lock(&index.keeper).as_ref().unwrap().thread.is_finished());
        index
    }

    /// Every path the tree holds, read directly (no check that the index still answers).
    fn held_paths(index: &Index) -> Vec<String> {
        let tree = unpoisoned(index.tree.read());
        let mut held: Vec<String> = Vec::new();
        let mut stack = vec![ROOT];
        while let Some(id) = stack.pop() {
            for &c in &tree.node(id).children {
                held.push(String::from_utf8_lossy(&tree.path(c)).into_owned());
                stack.push(c);
            }
        }
        held.sort();
        held
    }

    /// Every path the tree holds, once the index is known to still answer.
    fn paths(index: &Index) -> Vec<String> {
        drop(index.read().unwrap());
        held_paths(index)
    }

    #[test]
    fn a_dropped_event_queue_is_answered_by_comparing_the_whole_tree() {
        let dir = temp("overflow");
        let index = Index::open(dir.to_path_buf(), ContentCaps::default()).unwrap();
        assert_eq!(paths(&index), [".gitignore", "src", "src/deep", "src/deep/a.ts"]);
        // Changes whose events are taken to be lost: only the rescan can see them.
        fs::remove_dir_all(dir.join("src/deep")).unwrap();
        fs::create_dir_all(dir.join("new/inner")).unwrap();
        fs::write(dir.join("new/inner/b.log"), "b").unwrap();
        let overflow = notify::Event::new(notify::EventKind::Other).set_flag(notify::event::Flag::Rescan);
        index.apply(vec![Ok(overflow)]);
        assert_eq!(paths(&index), [".gitignore", "new", "new/inner", "new/inner/b.log", "src"]);
        let stats = index.stats();
        assert_eq!(stats.rescans, 1);
        assert!(stats.last_rescan.unwrap().contains("overflow"));
        index.close();
        assert!(index.read().is_err() && index.stats().closed);
    }

    /// Waits (at most 10 s) for `done`.
    fn wait_for(what: &str, done: impl Fn() -> bool) {
        let until = Instant::now() + Duration::from_secs(10);
        while !done() {
            assert!(Instant::now() < until, "waited 10 s for {what}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_panic_in_the_keeper_is_caught_and_the_tree_walked_again() {
        let dir = temp("panic");
        let index = Index::open(dir.to_path_buf(), ContentCaps::default()).unwrap();
        index.status.panic_next.store(true, Ordering::SeqCst);
        fs::write(dir.join("src/new.ts"), "n").unwrap();
        wait_for("the rebuild", || index.stats().rescans == 1);
        index.settle(&Cancel::never()).unwrap();
        assert!(paths(&index).contains(&"src/new.ts".to_string()), "{:?}", paths(&index));
        let stats = index.stats();
        assert!(stats.last_error.unwrap().contains("internal error in the index's thread"));
        assert!(stats.last_rescan.unwrap().contains("internal error"));
        // The keeper goes on following changes.
        fs::write(dir.join("later.ts"), "l").unwrap();
        wait_for("a change after the rebuild", || paths(&index).contains(&"later.ts".to_string()));
        index.settle(&Cancel::never()).unwrap();
        index.close();
    }

    #[test]
    fn a_panic_that_cannot_be_recovered_from_fails_every_later_call() {
        let dir = temp("panic-gone");
        let root = dir.join("src");
        let index = Index::open(root.clone(), ContentCaps::default()).unwrap();
        // The panic, then the rebuild finds no root: the index fails for good.
        // (Which the keeper sees first, the panic or the root's absence,
        // depends on how the removal's events are batched: either way every
        // later call fails.)
        index.status.panic_next.store(true, Ordering::SeqCst);
        fs::remove_dir_all(&root).unwrap();
        wait_for("the index to fail", || index.settle(&Cancel::never()).is_err());
        let e = index.settle(&Cancel::never()).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound, "{e:?}");
        assert!(index.read().is_err());
        // Failed first, then freed (a query in between is refused, never answered from an empty tree).
        wait_for("the tree to be freed", || index.stats().entries == 0);
        index.close();
    }

    #[test]
    fn a_keeper_that_ended_is_never_waited_for_silently() {
        let dir = temp("died");
        // As if the keeper had ended without a word: told to stop, not closed.
        let index = open_without_keeper(&dir);
        let e = index.settle(&Cancel::never()).unwrap_err();
        assert_eq!(e.code, ErrorCode::FsError);
        assert!(e.message.contains("the index's thread ended"), "{}", e.message);
        assert_eq!(index.read().unwrap_err(), e);
        index.close();
    }

    #[test]
    fn a_deleted_or_replaced_root_fails_every_call_and_frees_the_tree() {
        let dir = temp("root");
        let root = dir.join("src");
        let index = Index::open(root.clone(), ContentCaps::default()).unwrap();
        assert_eq!(index.stats().entries, 2);
        fs::remove_dir_all(&root).unwrap();
        let e = index.read().unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("was deleted or moved away"), "{}", e.message);
        // Re-created: another folder, still refused.
        fs::create_dir(&root).unwrap();
        assert_eq!(index.settle(&Cancel::never()).unwrap_err(), e);
        assert_eq!(index.stats().entries, 0);
        assert!(lock(&index.dir).is_none(), "the folder's handle is closed");
        index.close();

        let index = Index::open(root.clone(), ContentCaps::default()).unwrap();
        fs::rename(&root, dir.join("moved")).unwrap();
        fs::create_dir(&root).unwrap();
        let e = index.read().unwrap_err();
        // `NotFound` when the keeper looked between the rename and the mkdir.
        match e.code {
            ErrorCode::FsError => assert!(e.message.contains("moved away or replaced"), "{}", e.message),
            _ => assert_eq!(e.code, ErrorCode::NotFound, "{e:?}"),
        }
        index.close();
    }

    #[test]
    fn close_frees_the_tree_and_the_folder_handle_and_a_drop_never_joins() {
        let dir = temp("close");
        let index = Index::open(dir.to_path_buf(), ContentCaps::default()).unwrap();
        assert!(index.stats().entries > 0);
        index.close();
        assert_eq!(index.stats().entries, 0);
        assert!(lock(&index.dir).is_none());
        assert_eq!(index.read().unwrap_err().code, ErrorCode::InvalidArgument);
        index.close();
        // Dropped unclosed: the keeper is told to stop and ends by itself.
        let index = Index::open(dir.to_path_buf(), ContentCaps::default()).unwrap();
        let stop = Arc::clone(&lock(&index.keeper).as_ref().unwrap().stop);
        drop(index);
        assert!(stop.load(Ordering::SeqCst));
    }

    #[test]
    fn a_folder_renamed_away_and_recreated_under_its_name_is_listed_anew() {
        let dir = temp("recreate");
        let index = Index::open(dir.to_path_buf(), ContentCaps::default()).unwrap();
        // Only the events given below are applied.
        lock(&index.keeper).as_ref().unwrap().stop.store(true, Ordering::SeqCst);
        wait_for("the keeper to end", || lock(&index.keeper).as_ref().unwrap().thread.is_finished());
        fs::rename(dir.join("src"), dir.join("old")).unwrap();
        fs::create_dir(dir.join("src")).unwrap();
        fs::write(dir.join("src/new.ts"), "n").unwrap();
        // One event, on the root's listing: `src` is still a folder there.
        let created =
            notify::Event::new(notify::EventKind::Create(notify::event::CreateKind::Folder)).add_path(dir.join("src"));
        index.apply(vec![Ok(created)]);
        assert_eq!(held_paths(&index), [".gitignore", "old", "old/deep", "old/deep/a.ts", "src", "src/new.ts"]);
        index.close();
    }

    /// A folder deleted and made again at once usually gets the same inode
    /// number back; what tells it apart is that the kernel dropped the old
    /// one's watch. Here the events on the deleted folder's own watch are
    /// left out (as if they had been applied while it was gone), so only
    /// its parent's listing can find the new one.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_deleted_and_made_again_with_the_same_inode_is_listed_anew() {
        use std::os::unix::fs::MetadataExt;
        let dir = temp("remade");
        let index = open_without_keeper(&dir);
        let inotify = lock(&index.inotify).clone().unwrap();
        let old_ino = fs::metadata(dir.join("src")).unwrap().ino();
        fs::remove_dir_all(dir.join("src")).unwrap();
        fs::create_dir(dir.join("src")).unwrap();
        fs::write(dir.join("src/new.ts"), "n").unwrap();
        let reused = fs::metadata(dir.join("src")).unwrap().ino() == old_ino;
        let root_wd = inotify.wd_of(unpoisoned(index.tree.read()).handle(ROOT));
        let mut raw = Vec::new();
        for _ in 0..20 {
            raw.extend(inotify.wait(Duration::from_millis(20)).unwrap());
        }
        let kept: Vec<_> =
            raw.into_iter().filter(|r| r.mask & libc::IN_IGNORED != 0 || Some(r.wd) == root_wd).collect();
        let batch = index.translate(kept);
        index.apply(batch);
        let held = held_paths(&index);
        assert!(held.contains(&"src/new.ts".to_string()), "inode reused: {reused}; held {held:?}");
        assert!(!held.iter().any(|p| p.starts_with("src/deep")), "inode reused: {reused}; held {held:?}");
        index.close();
    }

    /// A file with more than one name, written through a name outside the
    /// index (no event in its folder): its own watch sees it. Once it has
    /// one name left, the watch is dropped.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_with_more_than_one_name_is_watched_itself() {
        let dir = temp("links");
        let store = dir.join("store");
        fs::create_dir(&store).unwrap();
        fs::write(store.join("f"), "old").unwrap();
        fs::hard_link(store.join("f"), dir.join("src/deep/f")).unwrap();
        let index = Index::open(dir.join("src"), ContentCaps::default()).unwrap();
        let size = |index: &Index| {
            let tree = index.read().unwrap();
            tree.find(b"deep/f").map(|id| tree.node(id).meta.size)
        };
        assert_eq!(size(&index), Some(3));
        fs::write(store.join("f"), "written elsewhere").unwrap();
        wait_for("the write through the other name", || size(&index) == Some(17));
        let inotify = lock(&index.inotify).clone().unwrap();
        assert_eq!(inotify.watched_files(), 1);
        // A whole-tree comparison (dropped events) makes the file's watch anew, leaving no other.
        let watches = inotify.kernel_watches();
        let overflow = notify::Event::new(notify::EventKind::Other).set_flag(notify::event::Flag::Rescan);
        index.apply(vec![Ok(overflow)]);
        assert_eq!((inotify.watched_files(), inotify.kernel_watches()), (1, watches));
        fs::write(store.join("f"), "written elsewhere again").unwrap();
        wait_for("a write after the comparison", || size(&index) == Some(23));
        fs::remove_file(store.join("f")).unwrap();
        wait_for("the watch to be dropped", || inotify.watched_files() == 0);
        assert_eq!(index.stats().watch_errors, 0);
        index.close();
    }

    /// A whole-tree comparison after the file's name in the index went
    /// unseen: the file's watch is stopped, not left behind.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_comparison_of_the_whole_tree_stops_the_watch_of_a_file_gone_from_it() {
        let dir = temp("links-gone");
        let store = dir.join("store");
        fs::create_dir(&store).unwrap();
        fs::write(store.join("f"), "kept").unwrap();
        fs::hard_link(store.join("f"), dir.join("src/deep/f")).unwrap();
        let index = Index::open(dir.join("src"), ContentCaps::default()).unwrap();
        lock(&index.keeper).as_ref().unwrap().stop.store(true, Ordering::SeqCst);
        wait_for("the keeper to end", || lock(&index.keeper).as_ref().unwrap().thread.is_finished());
        let inotify = lock(&index.inotify).clone().unwrap();
        let watches = inotify.kernel_watches();
        assert_eq!(inotify.watched_files(), 1);
        fs::remove_file(dir.join("src/deep/f")).unwrap();
        let overflow = notify::Event::new(notify::EventKind::Other).set_flag(notify::event::Flag::Rescan);
        index.apply(vec![Ok(overflow)]);
        assert_eq!((inotify.watched_files(), inotify.kernel_watches()), (0, watches - 1));
        index.close();
    }

    #[test]
    fn an_event_names_the_folder_to_list_again() {
        let dir = temp("folder");
        let index = Index::open(dir.to_path_buf(), ContentCaps::default()).unwrap();
        let folder = |p: &str| index.changed_folder(&dir.join(p)).map(|f| String::from_utf8(f).unwrap());
        assert_eq!(folder("src/deep/a.ts").as_deref(), Some("src/deep"));
        assert_eq!(folder("top.txt").as_deref(), Some(""));
        assert_eq!(folder(".git/info/exclude").as_deref(), Some(""));
        assert_eq!(folder("sub/.git/HEAD").as_deref(), Some("sub"));
        let modules = |p: &str| -> Vec<String> {
            index.submodule_folders(&dir.join(p)).into_iter().map(|f| String::from_utf8(f).unwrap()).collect()
        };
        assert_eq!(modules("sub/.git/modules/lib/info/exclude"), ["sub/lib", "sub/lib/info"]);
        assert_eq!(modules(".git/modules/a/b/config"), ["a", "a/b"]);
        assert!(modules(".git/info/exclude").is_empty() && modules("src/deep/a.ts").is_empty());
        assert_eq!(index.changed_folder(Path::new("/elsewhere/x")), None);
        index.close();
    }
}
