//! The live index as callers hold it: `Index`, its state, and its life from
//! `open` (the first walk, then the keeper thread started) to `close`; what
//! every call checks first (the index is open, its keeper still runs, its
//! root is still the folder indexed), `stats` and `settle`.
//!
//! What it never does is answer from a picture it cannot vouch for: once
//! the root is gone or another folder took its path, or the keeper thread
//! ended or failed for good, every call fails saying why (`fail`), and the
//! tree and the folder's descriptor are freed at once (`release`), as
//! `close` frees them.

use super::background::{self, Background, BuildState, Progress};
use super::build::{build, Bounds};
use super::content::{ContentCaps, ContentLayer, LayerSize};
use super::disk::UNKNOWN_META;
use super::keeper;
use super::query::KeptVisible;
use super::saved::{SavedLayer, SavedStatus};
use super::tree::Tree;
use super::watch::{new_watcher, FolderWatches, Watcher, WatcherChoice};
use crate::cancel::Cancel;
use crate::dir::Dir;
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::gitignore::{folders_above_on_disk, FolderRules, GitEnv};
use crate::names::NameRule;
use crate::path_bytes::os_str;
use crate::shared::Shared;
use crate::sync::{lock, unpoisoned};
use crate::walk::WalkRules;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

/// How long no event must arrive before the index counts as settled.
const QUIET: Duration = Duration::from_millis(100);

/// A shared index.
pub type IndexRef = Shared<Index>;

/// How an index is opened (`Index::open`); the default is `openIndex`'s
/// with no option but the folder.
#[derive(Clone, Debug, Default)]
pub struct IndexOptions {
    /// What the content layer may hold.
    pub caps: ContentCaps,
    /// Where the content layer is kept across processes (see `saved`):
    /// loaded from there by the background build, saved there when it is
    /// done and at `close`; `None`: not kept.
    pub cache_dir: Option<PathBuf>,
    /// The rules of the searches expected (a default `searchFiles`'s, as its
    /// option parser makes them), whose files the background build sketches
    /// and whose list of what passes it makes, so the first such search does
    /// not; `None`: the same rules, written out in `background`.
    pub searched: Option<WalkRules>,
    /// `maxEntries`: the most entries the tree may hold. `None`:
    /// `DEFAULT_INDEX_MAX_ENTRIES`, and a folder that holds everything (the
    /// file system's root, a drive's, the user's home) is refused.
    pub max_entries: Option<u64>,
    /// `threads`: the most threads its walks, background build and queries
    /// run on (each fewer while other calls run); `None`: every core (up to 12).
    pub threads: Option<usize>,
    /// What tells the index of changes.
    pub watcher: WatcherChoice,
    /// How the volume tells names apart, for the paths events give (see
    /// `names`). `None`: as the OS says (`NameRule::of_volume`); a test sets
    /// it to simulate a volume that folds case or normal form.
    pub names: Option<NameRule>,
}

/// A live index: the tree, the rules above its root, and the thread that
/// keeps it current.
pub struct Index {
    /// The folder as the caller named it (what results show).
    pub logical_path: PathBuf,
    /// Its real path, where events are reported.
    pub(super) real_path: PathBuf,
    /// The folder's handle, `None` once closed or failed (see `release`).
    pub(super) dir: Mutex<Option<Arc<Dir>>>,
    /// The root's `(st_dev, st_ino)` at open, where the OS tells it.
    pub(super) identity: Option<(u64, u64)>,
    /// The root's mode and owner as last seen (see `Index::root_access_changed`).
    pub(super) root_access: Mutex<Option<(u32, u32, u32)>>,
    pub(super) tree: RwLock<Tree>,
    /// The user's git settings and global excludes file, as read at open.
    pub(super) git: Arc<GitEnv>,
    /// The ignore rules of the folders above the root (up to its repository).
    pub(super) above: Vec<(PathBuf, Option<Arc<FolderRules>>)>,
    pub(super) status: Status,
    pub(super) keeper: Mutex<Option<KeeperThread>>,
    /// Why the index no longer answers (its root is gone or replaced, or an
    /// internal error it could not recover from): every call fails with it.
    pub(super) broken: Mutex<Option<FindError>>,
    /// Bumped by every change to the tree.
    pub(super) generation: AtomicU64,
    /// Unique among the indexes of this process, so two indexes' generations never pass for each other.
    id: u64,
    /// Where events come from, `None` once closed or failed (the keeper
    /// thread holds it too, until it ends).
    watcher: Mutex<Option<Arc<dyn Watcher>>>,
    /// What recent queries' rules let through, for the generation it was made in.
    pub(super) visible: Mutex<KeptVisible>,
    /// What content searches learnt of the files' contents (see `content`).
    pub(super) content: RwLock<ContentLayer>,
    /// The threads that fill the content layer once the tree is built.
    pub(super) background: Background,
    /// Where the content layer is kept across processes, and how that went.
    pub(super) saved: SavedLayer,
    /// The rules of the searches expected (a default `searchFiles`'s): the
    /// files the background build sketches, and the list it makes for them.
    pub(super) searched_rules: Option<WalkRules>,
    /// The most entries the tree may hold, and the threads its walks,
    /// background build and queries may run on.
    pub(super) bounds: Bounds,
    /// What tells it of changes, as `stats()` names it.
    watcher_name: &'static str,
    /// How the volume tells names apart: an event may name an entry in
    /// another case or normal form than its folder lists it.
    pub(super) names: NameRule,
    /// The folder moves reported last, for a watcher that may name stale
    /// paths (see `events::Moves`).
    pub(super) moves: Mutex<super::events::Moves>,
}

/// The id the next index opened takes.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Counters for `stats()`, and whether the keeper is at work.
#[derive(Default)]
pub(super) struct Status {
    pub events: AtomicU64,
    pub folders_reconciled: AtomicU64,
    pub rescans: AtomicU64,
    pub watch_errors: AtomicU64,
    /// The keeper is applying a batch, or new folders wait for their second look.
    pub busy: AtomicBool,
    pub last_event: Mutex<Option<Instant>>,
    pub last_rescan: Mutex<Option<String>>,
    pub last_error: Mutex<Option<String>>,
    /// The background build of the content layer.
    pub sketches: Progress,
}

/// The keeper thread, and how to tell it to stop.
pub(super) struct KeeperThread {
    pub stop: Arc<AtomicBool>,
    pub thread: std::thread::JoinHandle<()>,
}

/// An index being closed: from `begin_close`, for `finish_close`.
pub struct Closing(Option<KeeperThread>);

/// What `stats()` reports.
#[derive(Debug, Clone)]
pub struct Stats {
    pub entries: usize,
    pub bytes: usize,
    /// Held by the lists kept for recent queries' rules (`Visible`).
    pub cached_bytes: usize,
    /// What the content layer holds (see `content`).
    pub content: LayerSize,
    /// The background build of the content layer: where it is, files looked at, files to look at.
    pub content_build: (BuildState, usize, usize),
    /// The content layer kept across processes (see `saved`).
    pub saved: SavedStatus,
    pub events: u64,
    pub folders_reconciled: u64,
    pub rescans: u64,
    pub last_rescan: Option<String>,
    pub watch_errors: u64,
    pub last_error: Option<String>,
    pub closed: bool,
    /// What tells it of changes (`Watcher::name`).
    pub watcher: &'static str,
}

impl Index {
    /// Opens `root` (as `open_search_dir` would), walks it and starts
    /// watching it, as `options` say.
    pub fn open(logical_path: PathBuf, options: IndexOptions) -> Result<Arc<Index>> {
        let choice = options.watcher;
        Index::open_with(logical_path, options, |root| new_watcher(choice, root))
    }

    /// `open`, watching with the watcher `new_watcher` makes for the
    /// folder's real path.
    pub(super) fn open_with(
        logical_path: PathBuf,
        options: IndexOptions,
        new_watcher: impl FnOnce(&Path) -> Result<Arc<dyn Watcher>>,
    ) -> Result<Arc<Index>> {
        let IndexOptions { caps, cache_dir, searched, max_entries, threads, watcher: _, names } = options;
        let (dir, real_path) = crate::sandbox::open_search_dir(&logical_path)?;
        if max_entries.is_none() && holds_everything(&real_path) {
            return Err(everything_refused(&logical_path, &real_path));
        }
        let max_entries = max_entries.unwrap_or(crate::limits::DEFAULT_INDEX_MAX_ENTRIES);
        let bounds = Bounds { max_entries, threads: threads.unwrap_or(usize::MAX).max(1) };
        let identity = identity_of(&dir);
        let dir = Arc::new(dir);
        let watcher = new_watcher(&real_path)?;
        let names = names.unwrap_or_else(|| NameRule::of_volume(&real_path));
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
            watcher: Mutex::new(Some(Arc::clone(&watcher))),
            visible: Mutex::new(Vec::new()),
            content: RwLock::new(ContentLayer::new(caps)),
            background: Background::default(),
            saved: SavedLayer::new(cache_dir),
            searched_rules: searched,
            bounds,
            watcher_name: watcher.name(),
            names,
            moves: Mutex::default(),
        });
        watcher.start(&index.real_path, &index.logical_path)?;
        // A watcher that watches folder by folder has each folder watched
        // by the walk itself, once opened and before it is listed.
        let (built, linked) = build(&dir, &index.real_path, &index.git, watcher.folder_watches(), true, bounds)
            .map_err(|e| too_large_at(e, &index.logical_path))?;
        {
            let mut tree = unpoisoned(index.tree.write());
            *tree = built;
            index.watch_links(&dir, &mut tree, &linked);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let thread = keeper::spawn(Arc::downgrade(&index), watcher, Arc::clone(&stop))?;
        *lock(&index.keeper) = Some(KeeperThread { stop, thread });
        background::start(&index);
        Ok(index)
    }

    /// The indexed folder's real path (symlinks resolved), which the tree's
    /// relative paths start from.
    pub fn real_path(&self) -> &Path {
        &self.real_path
    }

    /// Opens the file at `relative` below the folder `folder` (both relative
    /// to the root), by handle, never through a symlink.
    pub fn open_file(&self, folder: &[u8], relative: &Path) -> std::io::Result<std::fs::File> {
        let dir = self.dir().map_err(|e| std::io::Error::other(e.message))?;
        dir.open_beneath(&Path::new(os_str(folder)).join(relative))
    }

    /// The folder's handle while the index is open.
    pub fn dir(&self) -> Result<Arc<Dir>> {
        self.usable()?;
        lock(&self.dir).clone().ok_or_else(closed)
    }

    /// The watcher, while the index has one (until closed or failed).
    pub(super) fn watcher(&self) -> Option<Arc<dyn Watcher>> {
        lock(&self.watcher).clone()
    }

    /// `f` on the watcher's folder-by-folder watches, when it keeps them;
    /// `R`'s default otherwise (a watcher that watches the whole folder by
    /// itself has nothing to be told and nothing it could not watch).
    pub(super) fn with_watches<R: Default>(&self, f: impl FnOnce(&dyn FolderWatches) -> R) -> R {
        self.watcher().and_then(|watcher| watcher.folder_watches().map(f)).unwrap_or_default()
    }

    /// This index and its tree as they are now: `(id, generation)`; the
    /// generation changes whenever the tree may have (a search's cursor
    /// keeps it, to tell when the tree changed between pages).
    pub fn generation(&self) -> (u64, u64) {
        (self.id, self.generation.load(Ordering::SeqCst))
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

    /// The tree, for work no caller waits for (the background build): only
    /// whether the index is closed or failed is asked, never the checks that
    /// fail it (a caller's next call makes those, and says why).
    pub(super) fn read_in_background(&self) -> Result<RwLockReadGuard<'_, Tree>> {
        self.usable()?;
        let tree = unpoisoned(self.tree.read());
        self.usable()?;
        Ok(tree)
    }

    /// Fails once closed or failed: what every call checks first.
    pub(super) fn usable(&self) -> Result<()> {
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
    pub(super) fn root_changed(&self) -> Option<FindError> {
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
    pub(super) fn fail(&self, why: FindError) {
        if self.mark_failed(why) {
            self.release();
        }
    }

    /// `fail` but for freeing what the index holds (for a caller that holds
    /// the tree's lock, which `release` takes); false if it had failed before.
    pub(super) fn mark_failed(&self, why: FindError) -> bool {
        {
            let mut broken = lock(&self.broken);
            if broken.is_some() {
                return false;
            }
            *lock(&self.status.last_error) = Some(why.message.clone());
            *broken = Some(why);
        }
        if let Some(keeper) = lock(&self.keeper).as_ref() {
            keeper.stop.store(true, Ordering::SeqCst);
        }
        self.background.stop();
        self.status.busy.store(false, Ordering::SeqCst);
        true
    }

    /// Frees the tree, the lists kept for queries, the watcher (once the
    /// keeper lets go of it too) and the folder's handle (queries under way
    /// keep what they hold until they end).
    fn release(&self) {
        *lock(&self.dir) = None;
        *lock(&self.watcher) = None;
        *unpoisoned(self.tree.write()) = Tree::new(UNKNOWN_META);
        unpoisoned(self.content.write()).clear();
        lock(&self.visible).clear();
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    pub fn stats(&self) -> Stats {
        let tree = unpoisoned(self.tree.read());
        // Folders (and files with more than one name) not watched now.
        let unwatched = self.with_watches(|watches| watches.unwatched());
        let content = unpoisoned(self.content.read()).size();
        let s = &self.status;
        Stats {
            entries: tree.entries(),
            bytes: tree.bytes(),
            cached_bytes: lock(&self.visible).iter().map(|(.., v)| v.bytes()).sum(),
            content,
            content_build: (
                s.sketches.state(),
                s.sketches.done.load(Ordering::Relaxed).min(s.sketches.total.load(Ordering::Relaxed)),
                s.sketches.total.load(Ordering::Relaxed),
            ),
            saved: self.saved.status(),
            events: s.events.load(Ordering::Relaxed),
            folders_reconciled: s.folders_reconciled.load(Ordering::Relaxed),
            rescans: s.rescans.load(Ordering::Relaxed),
            last_rescan: lock(&s.last_rescan).clone(),
            watch_errors: s.watch_errors.load(Ordering::Relaxed) + unwatched.0 as u64,
            last_error: lock(&s.last_error).clone().or(unwatched.1),
            closed: lock(&self.keeper).is_none(),
            watcher: self.watcher_name,
        }
    }

    /// Blocks until every change made before the call is in the index: no
    /// event for `QUIET` since the call and since the last event, and none
    /// being applied.
    pub fn settle(&self, cancel: &Cancel) -> Result<()> {
        let called = Instant::now();
        let mark = self.watcher().map(|w| (w.mark(), w));
        loop {
            cancel.check()?;
            self.check_open()?;
            let last = lock(&self.status.last_event).unwrap_or(called).max(called);
            let caught_up = mark.as_ref().is_none_or(|(mark, watcher)| watcher.caught_up(*mark));
            if caught_up && !self.status.busy.load(Ordering::SeqCst) && last.elapsed() >= QUIET {
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
        self.background.stop();
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
        self.background.join();
        self.save();
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
        self.background.stop();
    }
}

/// Whether the folder at the real path `real` holds everything a machine
/// has: the file system's root (or a drive's), or the user's home.
fn holds_everything(real: &Path) -> bool {
    let home = ["HOME", "USERPROFILE"]
        .iter()
        .filter_map(std::env::var_os)
        .filter(|h| !h.is_empty())
        .filter_map(|h| std::fs::canonicalize(h).ok());
    real.parent().is_none() || home.into_iter().any(|h| h == real)
}

/// The refusal of a folder that holds everything, unless `maxEntries` is given.
fn everything_refused(logical: &Path, real: &Path) -> FindError {
    let what = if real.parent().is_none() { "the root of a file system" } else { "your home folder" };
    FindError::new(
        ErrorCode::TooLarge,
        format!(
            "`{}` is {what}: an index of it would hold everything on the machine (an agent's files are in a project folder); open an index of the project, or give `maxEntries` to index it anyway",
            clip(&logical.to_string_lossy(), 300)
        ),
    )
}

/// The build's refusal to hold more (`build::too_large`), naming the folder as the caller did.
pub(super) fn too_large_at(e: FindError, logical: &Path) -> FindError {
    match e.code {
        ErrorCode::TooLarge => {
            FindError::new(ErrorCode::TooLarge, format!("`{}` {}", clip(&logical.to_string_lossy(), 300), e.message))
        }
        _ => e,
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
pub(super) fn access_of(dir: &Dir) -> Option<(u32, u32, u32)> {
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
pub(super) fn access_of(_: &Dir) -> Option<(u32, u32, u32)> {
    None
}

/// The `(st_dev, st_ino)` of what is at `path` now.
#[cfg(unix)]
pub(super) fn path_identity(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path)?;
    Ok((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
pub(super) fn path_identity(_: &Path) -> std::io::Result<(u64, u64)> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Nothing at the path, or a file where a folder on the way was.
fn dir_is_gone(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{open_without_keeper, temp};
    use super::*;
    use std::fs;

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
        let index = Index::open(root.clone(), IndexOptions::default()).unwrap();
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

        let index = Index::open(root.clone(), IndexOptions::default()).unwrap();
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
        let index = Index::open(dir.to_path_buf(), IndexOptions::default()).unwrap();
        assert!(index.stats().entries > 0);
        index.close();
        assert_eq!(index.stats().entries, 0);
        assert!(lock(&index.dir).is_none());
        assert_eq!(index.read().unwrap_err().code, ErrorCode::InvalidArgument);
        index.close();
        // Dropped unclosed: the keeper is told to stop and ends by itself.
        let index = Index::open(dir.to_path_buf(), IndexOptions::default()).unwrap();
        let stop = Arc::clone(&lock(&index.keeper).as_ref().unwrap().stop);
        drop(index);
        assert!(stop.load(Ordering::SeqCst));
    }

    #[test]
    fn a_folder_past_max_entries_is_refused_and_one_that_grows_past_it_fails() {
        let dir = temp("bound");
        for i in 0..30 {
            fs::write(dir.join(format!("f{i}.txt")), "x").unwrap();
        }
        let bounded = |n| IndexOptions { max_entries: Some(n), ..IndexOptions::default() };
        let e = Index::open(dir.to_path_buf(), bounded(10)).err().unwrap();
        assert_eq!(e.code, ErrorCode::TooLarge);
        assert!(e.message.contains("`maxEntries` (10)") && e.message.contains("entries listed"), "{}", e.message);
        assert!(e.message.starts_with(&format!("`{}` holds more", dir.display())), "{}", e.message);
        // Within its bound: opened; then it grows past it, and its next full walk fails it for good.
        let index = Index::open(dir.to_path_buf(), bounded(40)).unwrap();
        assert_eq!(index.stats().entries, 34);
        for i in 0..20 {
            fs::write(dir.join(format!("g{i}.txt")), "x").unwrap();
        }
        let root = index.dir().unwrap();
        let mut tree = unpoisoned(index.tree.write());
        let mut content = unpoisoned(index.content.write());
        index.rescan(&root, &mut tree, &mut content, "a test");
        assert_eq!(tree.entries(), 0, "the tree is freed");
        drop((tree, content));
        let e = index.read().unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge, "{}", e.message);
        assert!(e.message.contains("`maxEntries` (40)"), "{}", e.message);
        index.close();
    }

    #[test]
    fn a_folder_that_holds_everything_is_refused_unless_bounded() {
        let e = Index::open(PathBuf::from("/"), IndexOptions::default()).err().unwrap();
        assert_eq!(e.code, ErrorCode::TooLarge);
        assert!(e.message.contains("the root of a file system") && e.message.contains("`maxEntries`"), "{}", e.message);
        assert!(holds_everything(Path::new("/")));
        let dir = temp("not-everything");
        assert!(!holds_everything(&dir));
        if let Some(home) = std::env::var_os("HOME").and_then(|h| fs::canonicalize(h).ok()) {
            assert!(holds_everything(&home));
            let e = Index::open(home, IndexOptions::default()).err().unwrap();
            assert!(e.message.contains("your home folder"), "{}", e.message);
        }
        // Bounded: walked like any folder, and refused at its bound.
        let e = Index::open(PathBuf::from("/"), IndexOptions { max_entries: Some(50), ..IndexOptions::default() });
        assert_eq!(e.err().unwrap().code, ErrorCode::TooLarge);
    }

    #[test]
    fn the_watcher_asked_for_is_the_one_used() {
        let dir = temp("choice");
        let with =
            |watcher| Index::open(dir.to_path_buf(), IndexOptions { watcher, ..IndexOptions::default() }).unwrap();
        // The recursive watcher watches the whole folder by itself: no watches folder by folder.
        let recursive = with(WatcherChoice::Recursive);
        assert!(recursive.watcher().unwrap().folder_watches().is_none());
        recursive.close();
        let polled = with(WatcherChoice::Poll(Duration::from_millis(30)));
        assert_eq!(polled.stats().watcher, "poll");
        fs::write(dir.join("src/new.ts"), "x").unwrap();
        polled.settle(&Cancel::never()).unwrap();
        assert!(polled.read().unwrap().find(b"src/new.ts").is_some(), "the poller saw the new file");
        polled.close();
        #[cfg(target_os = "linux")]
        {
            let native = with(WatcherChoice::Native);
            assert!(native.watcher().unwrap().folder_watches().is_some(), "inotify, folder by folder");
            native.close();
        }
    }
}
