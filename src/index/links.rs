//! Files with more than one name (hard links, as pnpm's store and `cp -al`
//! make them). Written through a name outside its folder, such a file
//! raises no event there, so with a watcher that watches folder by folder
//! each one (a link count above 1 when its folder is listed) gets a watch of
//! its own, on the file, which sees writes through any name; it is dropped
//! once the file has one name left. The files the watcher could not watch
//! are looked at again by every call that would show them (`unwatched`).

use super::disk::meta_of;
use super::lifecycle::Index;
use super::tree::{Id, Tree};
use super::watch::FileWatch;
use crate::dir::Dir;
use crate::entry::EntryKind;
use crate::path_bytes::os_str;
use std::path::Path;

impl Index {
    /// After a tree was built anew: the files with more than one name it
    /// found (`files`) are watched, each file's watch made anew; each is
    /// looked at again once watched, as the walk saw it before.
    pub(super) fn watch_links(&self, root: &Dir, tree: &mut Tree, files: &[Id]) {
        self.with_watches(|watches| {
            watches.clear_files();
            let mut by_folder: Vec<(Id, Id)> = files.iter().map(|&f| (tree.node(f).parent(), f)).collect();
            by_folder.sort_unstable();
            for group in by_folder.chunk_by(|a, b| a.0 == b.0) {
                let Ok(held) = root.folder_beneath(Path::new(os_str(&tree.path(group[0].0)))) else { continue };
                let dir = held.as_ref().unwrap_or(root);
                for &(_, file) in group {
                    self.track_file(dir, tree, file, true);
                }
            }
        })
    }

    /// Keeps the watch on the file `id` of the folder open as `dir` as its
    /// link count asks: a file with more than one name is watched (and
    /// looked at again once it is, for what changed before), one with a
    /// single name is not.
    pub(super) fn track_file(&self, dir: &Dir, tree: &mut Tree, id: Id, linked: bool) {
        self.with_watches(|watches| {
            let handle = tree.handle(id);
            if !linked {
                watches.unwatch_file(handle);
                return;
            }
            if watches.watch_file(dir, tree.name(id), handle) == FileWatch::New {
                // Gone or changed meanwhile: its folder's event follows.
                if let Some(full) = meta_of(dir, tree.name(id), EntryKind::File) {
                    tree.node_mut(id).meta = full.stat.meta;
                }
            }
        })
    }
}

/// On Linux, where inotify watches files too.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::super::testing::{open_on_inotify, stop_keeper, temp, wait_for};
    use super::*;
    use std::fs;

    /// A file with more than one name, written through a name outside the
    /// index (no event in its folder): its own watch sees it. Once it has
    /// one name left, the watch is dropped.
    #[test]
    fn a_file_with_more_than_one_name_is_watched_itself() {
        let dir = temp("links");
        let store = dir.join("store");
        fs::create_dir(&store).unwrap();
        fs::write(store.join("f"), "old").unwrap();
        fs::hard_link(store.join("f"), dir.join("src/deep/f")).unwrap();
        let (index, inotify) = open_on_inotify(&dir.join("src"));
        let size = |index: &Index| {
            let tree = index.read().unwrap();
            tree.find(b"deep/f").map(|id| tree.node(id).meta.size)
        };
        assert_eq!(size(&index), Some(3));
        fs::write(store.join("f"), "written elsewhere").unwrap();
        wait_for("the write through the other name", || size(&index) == Some(17));
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
    #[test]
    fn a_comparison_of_the_whole_tree_stops_the_watch_of_a_file_gone_from_it() {
        let dir = temp("links-gone");
        let store = dir.join("store");
        fs::create_dir(&store).unwrap();
        fs::write(store.join("f"), "kept").unwrap();
        fs::hard_link(store.join("f"), dir.join("src/deep/f")).unwrap();
        let (index, inotify) = open_on_inotify(&dir.join("src"));
        stop_keeper(&index);
        let watches = inotify.kernel_watches();
        assert_eq!(inotify.watched_files(), 1);
        fs::remove_file(dir.join("src/deep/f")).unwrap();
        let overflow = notify::Event::new(notify::EventKind::Other).set_flag(notify::event::Flag::Rescan);
        index.apply(vec![Ok(overflow)]);
        assert_eq!((inotify.watched_files(), inotify.kernel_watches()), (0, watches - 1));
        index.close();
    }
}
