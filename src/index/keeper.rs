//! The keeper: the index's thread that keeps its tree exact. It waits on
//! the watcher, places the changes it reports at their paths in the tree
//! (`place`), and applies each batch: the folders events name are listed
//! again and compared with the tree (`events` says which, `reconcile` does
//! it), and when the OS dropped events the whole tree is walked again
//! (`rescan`). A new folder is watched only once its creation has been
//! reported, so what was put in it before raises no event: each new folder
//! is listed again once events go quiet (its second look).
//!
//! It never dies silently: a panic in its work is caught and the tree
//! walked again whole (`recover`); if that fails too, the index fails for
//! good and every later call says why. A call that lists folders itself
//! (those the watcher could not watch, see `unwatched`) recovers the same way.

use super::build::build;
use super::content::ContentLayer;
use super::disk::UNKNOWN_META;
use super::events::Sorted;
use super::lifecycle::{access_of, Index};
use super::tree::{Handle, Tree, ROOT};
use super::watch::{Change, Message, Waited, Watcher};
use crate::dir::Dir;
use crate::entry::EntryKind;
use crate::error::{ErrorCode, FindError, Result};
use crate::path_bytes::os_str;
use crate::sync::{lock, unpoisoned};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// How long one wait for events lasts: also how soon the keeper sees it
/// was told to stop.
const WAIT: Duration = Duration::from_millis(20);

/// Starts the keeper thread of `index`, with its `watcher`, until `stop`.
pub fn spawn(
    index: Weak<Index>,
    watcher: Arc<dyn Watcher>,
    stop: Arc<AtomicBool>,
) -> Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("agent-find-index".into())
        .spawn(move || keep(index, watcher, stop))
        .map_err(|e| FindError::new(ErrorCode::FsError, format!("cannot start the index thread: {e}")))
}

/// The keeper thread: applies batches of events until told to stop, and
/// gives new folders their second look once events go quiet. Holds the
/// index weakly, so a dropped index stops it too; holds the watcher, so its
/// end removes every watch once the index let go of it too.
fn keep(index: Weak<Index>, watcher: Arc<dyn Watcher>, stop: Arc<AtomicBool>) {
    let mut second_look: Vec<Vec<u8>> = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        let go_on = match catch_unwind(AssertUnwindSafe(|| keep_step(&index, &*watcher, &mut second_look))) {
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
    drop(watcher);
}

/// One wait for events and what follows: a batch applied, or new folders'
/// second look. False when the keeper is to end.
fn keep_step(index: &Weak<Index>, watcher: &dyn Watcher, second_look: &mut Vec<Vec<u8>>) -> bool {
    // Waited for without holding the index, so dropping it stops the keeper.
    let waited = watcher.wait(WAIT);
    let Some(index) = index.upgrade() else { return false };
    let changes = match waited {
        Waited::Quiet => {
            if !second_look.is_empty() {
                index.look_again(std::mem::take(second_look));
                index.status.busy.store(false, Ordering::SeqCst);
            }
            return true;
        }
        Waited::Ended => return false,
        Waited::Changes(changes) => changes,
    };
    let batch = index.place(changes);
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

/// What a caught panic said.
pub(super) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => text.to_string(),
        (_, Some(text)) => text.clone(),
        _ => "a panic".to_string(),
    }
}

impl Index {
    /// The changes the watcher reported, as the index applies them: each at
    /// its path in the tree now (a change on a folder or file no longer in
    /// it is let go). None once the index let go of its watcher (closed or
    /// failed).
    pub(super) fn place(&self, changes: Vec<Change>) -> Vec<Message> {
        if self.watcher().is_none() {
            return Vec::new();
        }
        let tree = unpoisoned(self.tree.read());
        let at = |rel: &[u8], kind| Ok(notify::Event::new(kind).add_path(self.real_path.join(os_str(rel))));
        let mut batch = Vec::new();
        for change in changes {
            match change {
                Change::At(message) => batch.push(message),
                Change::OnFile { files, kind } => {
                    batch.extend(files.into_iter().filter_map(|f| tree.resolve(f)).map(|id| at(&tree.path(id), kind)));
                }
                Change::InFolder { folder, git, name, kind } => {
                    let Some(id) = tree.resolve(folder) else { continue };
                    let mut rel = tree.path(id);
                    for part in [git.as_deref(), Some(&name[..]).filter(|n| !n.is_empty())].into_iter().flatten() {
                        if !rel.is_empty() {
                            rel.push(b'/');
                        }
                        rel.extend_from_slice(part);
                    }
                    batch.push(at(&rel, kind));
                }
            }
        }
        batch
    }

    /// Turns a batch of events into the folders to compare again, and does
    /// it; returns the new folders found, for their second look.
    pub(super) fn apply(&self, batch: Vec<Message>) -> Vec<Vec<u8>> {
        self.status.events.fetch_add(batch.len() as u64, Ordering::Relaxed);
        let Ok(root) = self.dir() else { return Vec::new() };
        // What the watcher is, asked once a batch.
        let watcher = self.watcher();
        let stale = watcher.as_ref().is_some_and(|w| w.names_stale_paths());
        // A watcher with a watch per folder knows which were deleted
        // (`FolderWatches::was_deleted`) and names no folder by a stale path.
        let by_folder = watcher.as_ref().is_some_and(|w| w.folder_watches().is_some());
        drop(watcher);
        let mut moves = stale.then(|| lock(&self.moves));
        let mut sorted = Sorted::of(&self.real_path, batch, moves.as_deref_mut());
        drop(moves);
        // A folder the OS would not watch (its limit): counted, as
        // comparing again would not make it watched.
        for error in sorted.watch_errors {
            self.status.watch_errors.fetch_add(1, Ordering::Relaxed);
            *lock(&self.status.last_error) = Some(error);
        }
        let mut tree = unpoisoned(self.tree.write());
        let mut content = unpoisoned(self.content.write());
        for rel in &sorted.touched {
            if let Some(id) = tree.find_as(rel, self.names) {
                content.forget(id);
            }
        }
        // A folder moved, with a watcher that may have lost its watches of it
        // (see `Watcher::names_stale_paths`): watched anew and compared whole.
        if stale && sorted.rescan.is_none() {
            let folder_moved = sorted.renamed.iter().any(|rel| {
                tree.find_as(rel, self.names).is_some_and(|id| tree.node(id).kind == EntryKind::Dir)
                    || matches!(root.folder_beneath(Path::new(os_str(rel))), Ok(Some(_)))
            });
            if folder_moved {
                sorted.rescan = Some("a folder was moved, and this watcher may have lost its watches of it");
            }
        }
        let mut new_folders = Vec::new();
        let events_folders = &sorted.dirty;
        match sorted.rescan {
            Some(why) => self.rescan(&root, &mut tree, &mut content, why),
            None => {
                // A folder created or renamed under a name the tree holds is
                // another: dropped here, its parent's listing adds it as new.
                for rel in sorted.renewed.iter().filter(|_| !by_folder) {
                    if let Some(id) = tree.find_as(rel, self.names).filter(|&id| tree.node(id).kind == EntryKind::Dir) {
                        tree.remove(id);
                    }
                }
                // Shallowest first: a folder removed with its parent is not looked for.
                let mut dirty: Vec<Vec<u8>> = sorted.dirty.iter().cloned().collect();
                dirty.sort_by_key(|rel| rel.iter().filter(|&&b| b == b'/').count());
                for rel in dirty {
                    if let Some(id) = tree.find_as(&rel, self.names).filter(|&id| tree.node(id).kind == EntryKind::Dir)
                    {
                        self.reconcile(&root, &mut tree, id, &mut new_folders);
                    }
                }
                let mut changed: Vec<Handle> = sorted
                    .access
                    .iter()
                    .filter_map(|rel| tree.find_as(rel, self.names))
                    .map(|id| tree.handle(id))
                    .collect();
                // As for a folder below it: what lies below the root may now be
                // listed, looked at or entered, or no longer.
                if sorted.root_metadata && self.root_access_changed(&root) {
                    changed.push(tree.handle(ROOT));
                }
                self.relist_below(&root, &mut tree, changed);
            }
        }
        // New folders are listed down their whole subtree (a later listing
        // may have removed one already: its handle then resolves to nothing).
        let mut new_roots: Vec<Vec<u8>> =
            new_folders.iter().filter_map(|&h| tree.resolve(h)).map(|id| tree.path(id)).collect();
        self.list_new(&root, &mut tree, &mut new_folders);
        // A watcher on the whole folder may name a folder by a path it no
        // longer has (`notify`'s inotify backend keeps the old path of what
        // lies in a renamed folder): an event's folder that is on disk but
        // not in the tree, once the batch is applied, means the events
        // cannot be placed, and the whole tree is compared again.
        // Only paths the tree does not hold are looked up on disk: an event's
        // file, held as such, costs no `openat`.
        if !by_folder && sorted.rescan.is_none() {
            let lost = events_folders.iter().find(|rel| {
                tree.find_as(rel, self.names).is_none()
                    && matches!(root.folder_beneath(Path::new(os_str(rel))), Ok(Some(_)))
            });
            if lost.is_some() {
                let why = "an event named a folder by a path it no longer has";
                self.rescan(&root, &mut tree, &mut content, why);
                sorted.rescan = Some(why);
            }
        }
        // A folder made while the tree was walked again may not be watched
        // yet by a watcher that watches new folders itself, late (see
        // `Watcher::names_stale_paths`): what is put in it before it is
        // would raise no event. The whole tree has its second look.
        if stale && sorted.rescan.is_some() {
            new_roots = vec![Vec::new()];
        }
        self.with_watches(|watches| watches.sweep(&tree));
        content.sweep(&tree);
        self.generation.fetch_add(1, Ordering::SeqCst);
        new_roots
    }

    /// After the OS dropped events (`why`): the tree is walked again whole,
    /// in parallel; the old tree answers nothing meanwhile.
    /// See `watch_anew` for the watches.
    pub(super) fn rescan(&self, root: &Arc<Dir>, tree: &mut Tree, content: &mut ContentLayer, why: &str) {
        self.status.rescans.fetch_add(1, Ordering::Relaxed);
        *lock(&self.status.last_rescan) = Some(why.to_string());
        // Before the walk, so what changes after it raises events.
        if let Some(Err(e)) = self.watcher().map(|w| w.renew(&self.real_path)) {
            *lock(&self.status.last_error) = Some(e.message);
        }
        match build(root, &self.real_path, &self.git, None, false, self.bounds) {
            Ok((fresh, linked)) => {
                let old = std::mem::replace(tree, fresh);
                content.clear();
                self.watch_anew(root, &old, tree);
                self.watch_links(root, tree, &linked);
            }
            // Grown past its bound: it fails for good (every call says why),
            // and frees the tree now (`release` would wait for this lock).
            Err(e) if e.code == ErrorCode::TooLarge => {
                if self.mark_failed(super::lifecycle::too_large_at(e, &self.logical_path)) {
                    *tree = Tree::new(UNKNOWN_META);
                    content.clear();
                }
            }
            Err(e) => *lock(&self.status.last_error) = Some(e.message),
        }
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
    pub(super) fn recover(&self, what: &str) -> bool {
        let error = format!("internal error in the index's thread (please report it): {what}");
        if let Some(lost) = self.root_changed() {
            self.fail(lost);
            return false;
        }
        let Ok(root) = self.dir() else { return false };
        let failed =
            match catch_unwind(AssertUnwindSafe(|| build(&root, &self.real_path, &self.git, None, false, self.bounds)))
            {
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

    /// After `old` was replaced by `new` (built anew): the watches follow,
    /// and the folders in `new` with none get one.
    /// After a whole walk made `tree` in place of `old`: every folder is
    /// watched anew (a watch that followed a folder's path may be on another
    /// folder now, one moved away and replaced), then listed again, now that
    /// it is watched: what changed between the walk's listing and its watch
    /// is found.
    fn watch_anew(&self, root: &Arc<Dir>, old: &Tree, tree: &mut Tree) {
        let nothing = Tree::new(UNKNOWN_META);
        self.with_watches(|watches| watches.remap(old, &nothing));
        self.rewatch(root, &nothing, tree);
        if self.with_watches(|_| true) {
            let all = vec![tree.handle(ROOT)];
            self.relist_below(root, tree, all);
        }
    }

    fn rewatch(&self, root: &Arc<Dir>, old: &Tree, new: &Tree) {
        self.with_watches(|watches| {
            watches.remap(old, new);
            let watched = watches.watched();
            let mut stack = vec![ROOT];
            while let Some(id) = stack.pop() {
                let handle = new.handle(id);
                if !watched.contains(&handle) {
                    if let Ok(held) = root.folder_beneath(Path::new(os_str(&new.path(id)))) {
                        let dir = held.as_ref().unwrap_or(root);
                        let has_git = new.node(id).rules.as_ref().is_some_and(|r| r.has_git());
                        if watches.watch_folder(dir, handle) && has_git {
                            watches.watch_git(dir, handle);
                        }
                    }
                }
                stack.extend(new.node(id).children.iter().copied().filter(|&c| new.node(c).kind == EntryKind::Dir));
            }
        })
    }

    /// Lists the folders `new_folders` and every folder below them (a
    /// listing may find more new ones: they are listed too).
    fn list_new(&self, root: &Dir, tree: &mut Tree, new_folders: &mut Vec<Handle>) {
        while let Some(handle) = new_folders.pop() {
            if let Some(id) = tree.resolve(handle) {
                self.reconcile(root, tree, id, new_folders);
            }
        }
    }

    /// Lists new folders (and all below them) once more, now that the
    /// watcher watches them: what was put in them before it did is found.
    fn look_again(&self, folders: Vec<Vec<u8>>) {
        let Ok(root) = self.dir() else { return };
        // A watcher that may have lost its watches of them (see
        // `Watcher::names_stale_paths`) watches them anew first.
        if let Some(watcher) = self.watcher().filter(|w| w.names_stale_paths()) {
            for rel in &folders {
                if let Err(e) = watcher.renew(&self.real_path.join(os_str(rel))) {
                    *lock(&self.status.last_error) = Some(e.message);
                }
            }
        }
        let mut tree = unpoisoned(self.tree.write());
        let start: Vec<Handle> =
            folders.iter().filter_map(|rel| tree.find_as(rel, self.names)).map(|id| tree.handle(id)).collect();
        self.relist_below(&root, &mut tree, start);
        self.with_watches(|watches| watches.sweep(&tree));
        self.generation.fetch_add(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::super::lifecycle::IndexOptions;
    use super::super::testing::{open_watched, paths, poison, temp, wait_for, PanicOnChanges};
    use super::*;
    use crate::cancel::Cancel;
    use std::fs;

    #[test]
    fn a_dropped_event_queue_is_answered_by_comparing_the_whole_tree() {
        let dir = temp("overflow");
        let index = Index::open(dir.to_path_buf(), IndexOptions::default()).unwrap();
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

    /// On a volume that folds case and normal form, an event may name a
    /// file as `SRC/DEEP/A.TS`: what was learnt of `src/deep/a.ts` is
    /// dropped all the same (a rewrite of the same size with its time set
    /// back shows in nothing but that event).
    #[test]
    fn an_event_in_another_case_drops_what_was_learnt_of_the_file_on_a_folding_volume() {
        use super::super::content::Learnt;
        use super::super::testing::stop_keeper;
        use crate::names::NameRule;
        let learnt_after = |names: NameRule| {
            let dir = temp(&format!("folding-{}", names.folds_case));
            let index =
                Index::open(dir.to_path_buf(), IndexOptions { names: Some(names), ..IndexOptions::default() }).unwrap();
            stop_keeper(&index);
            let (handle, meta) = {
                let tree = unpoisoned(index.tree.read());
                let id = tree.find(b"src/deep/a.ts").unwrap();
                (tree.handle(id), tree.node(id).meta)
            };
            let sketch = crate::content_sketch::Sketcher::default().sketch(b"a");
            let mut content = unpoisoned(index.content.write());
            let epoch = content.epoch();
            content.keep(
                epoch,
                vec![Learnt { handle, meta, sketch: Some(sketch), contents: Some(b"a"[..].into()), stamp: None }],
            );
            drop(content);
            let written = notify::Event::new(notify::EventKind::Modify(notify::event::ModifyKind::Any))
                .add_path(dir.join("SRC/DEEP/A.TS"));
            index.apply(vec![Ok(written)]);
            let still = unpoisoned(index.content.read()).get(handle, meta).is_some();
            index.close();
            still
        };
        assert!(!learnt_after(NameRule { folds_case: true, folds_form: true }));
        // Read as bytes, the event names nothing the tree holds.
        assert!(learnt_after(NameRule::EXACT));
    }

    /// A case-only rename on a folding volume, told as FSEvents tells it:
    /// both paths in the new case, as renames that cannot be paired.
    #[test]
    fn a_case_only_rename_on_a_folding_volume_is_seen() {
        use super::super::testing::{held_paths, stop_keeper};
        use crate::names::NameRule;
        let dir = temp("case-rename");
        let names = Some(NameRule { folds_case: true, folds_form: true });
        let index = Index::open(dir.to_path_buf(), IndexOptions { names, ..IndexOptions::default() }).unwrap();
        stop_keeper(&index);
        fs::rename(dir.join("src/deep"), dir.join("src/Deep")).unwrap();
        fs::rename(dir.join("src/Deep/a.ts"), dir.join("src/Deep/A.ts")).unwrap();
        let renamed = |rel: &str| {
            let kind = notify::EventKind::Modify(notify::event::ModifyKind::Name(notify::event::RenameMode::Any));
            Ok(notify::Event::new(kind).add_path(dir.join(rel)))
        };
        index.apply(vec![renamed("src/Deep/A.ts"), renamed("src/Deep")]);
        assert_eq!(held_paths(&index), [".gitignore", "src", "src/Deep", "src/Deep/A.ts"]);
        index.close();
    }

    #[test]
    fn a_panic_in_the_keeper_is_caught_and_the_tree_walked_again() {
        let dir = temp("panic");
        let (index, watcher) = open_watched(&dir, PanicOnChanges::new);
        // As a panic while the tree is locked leaves it.
        poison(&index.tree);
        watcher.armed.store(true, Ordering::SeqCst);
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
        let (index, watcher) = open_watched(&root, PanicOnChanges::new);
        // The panic, then the rebuild finds no root: the index fails for good.
        // (Which the keeper sees first, the panic or the root's absence,
        // depends on how the removal's events are batched: either way every
        // later call fails.)
        watcher.armed.store(true, Ordering::SeqCst);
        fs::remove_dir_all(&root).unwrap();
        wait_for("the index to fail", || index.settle(&Cancel::never()).is_err());
        let e = index.settle(&Cancel::never()).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound, "{e:?}");
        assert!(index.read().is_err());
        // Failed first, then freed (a query in between is refused, never answered from an empty tree).
        wait_for("the tree to be freed", || index.stats().entries == 0);
        index.close();
    }
}
