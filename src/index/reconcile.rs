//! One folder compared with the disk: listed again (watched first, so what
//! changes after the listing raises an event) and its children in the tree
//! made to match, which covers creates, deletes, renames, mass deletes and
//! edits of ignore files alike. A folder replaced by another under the same
//! name (renamed away and recreated) is told apart by its inode, and one
//! deleted and made again (often with the same inode number) by the watcher
//! having dropped the old one's watch: either is listed anew.

use super::disk::{folder_rules, meta_of};
use super::lifecycle::Index;
use super::tree::{Handle, Id, Tree};
use crate::dir::{Dir, FullStat};
use crate::entry::EntryKind;
use crate::path_bytes::os_str;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::Path;
use std::sync::atomic::Ordering;

impl Index {
    /// Lists the folder `id` again and makes its children in the index match:
    /// gone ones removed (with what they held), new ones added (new folders
    /// pushed on `new_folders`), metadata and the folder's ignore rules renewed.
    pub(super) fn reconcile(&self, root: &Dir, tree: &mut Tree, id: Id, new_folders: &mut Vec<Handle>) {
        self.status.folders_reconciled.fetch_add(1, Ordering::Relaxed);
        let rel = tree.path(id);
        let held = match root.folder_beneath(Path::new(os_str(&rel))) {
            Ok(held) => held,
            // No longer to be entered: a fresh walk lists nothing in it.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return forget_denied(tree, id),
            // Gone or no longer a folder: its parent's event removes it.
            Err(_) => return,
        };
        let dir = held.as_ref().unwrap_or(root);
        // Watched before it is listed: what changes after the listing raises an event.
        let newly_watched = self.with_watches(|watches| watches.watch_folder(dir, tree.handle(id)));
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
        self.match_children(dir, tree, id, &mut listed);
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
            self.with_watches(|watches| watches.watch_git(dir, tree.handle(id)));
        }
    }

    /// The children the tree holds of the folder `id` (open as `dir`),
    /// against `listed`, what its listing holds now: each kept (its
    /// metadata renewed) or removed; what is left in `listed` is to be added.
    fn match_children(&self, dir: &Dir, tree: &mut Tree, id: Id, listed: &mut HashMap<Vec<u8>, EntryKind>) {
        for child in tree.node(id).children.clone() {
            let name = tree.name(child).to_vec();
            match listed.remove(&name) {
                // A folder: the same one, or another put in its place (renamed
                // away and recreated), listed anew with all it holds.
                Some(EntryKind::Dir) if tree.node(child).kind == EntryKind::Dir => {
                    match meta_of(dir, &name, EntryKind::Dir) {
                        Some(FullStat { ino, .. })
                            if tree.ino(child).is_some_and(|known| ino != 0 && known != ino)
                                || self.with_watches(|watches| watches.was_deleted(tree.handle(child))) =>
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
    }

    /// Lists the folders `start` (those still in the tree) and every folder
    /// below them again.
    pub(super) fn relist_below(&self, root: &Dir, tree: &mut Tree, start: Vec<Handle>) {
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
}

/// `forget_children` for a folder the OS now refuses to open or list.
fn forget_denied(tree: &mut Tree, id: Id) {
    forget_children(tree, id);
    tree.node_mut(id).denied = true;
}

/// Removes everything below the folder `id`.
fn forget_children(tree: &mut Tree, id: Id) {
    for child in tree.node(id).children.clone() {
        tree.remove(child);
    }
    tree.node_mut(id).rules = None;
}

#[cfg(test)]
mod tests {
    use super::super::testing::{held_paths, open_without_keeper, temp};
    use std::fs;

    #[test]
    fn a_folder_renamed_away_and_recreated_under_its_name_is_listed_anew() {
        let dir = temp("recreate");
        // Only the events given below are applied.
        let index = open_without_keeper(&dir);
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
        use super::super::testing::{open_on_inotify, stop_keeper};
        use super::super::tree::ROOT;
        use crate::sync::unpoisoned;
        use std::os::unix::fs::MetadataExt;
        use std::time::Duration;
        let dir = temp("remade");
        let (index, inotify) = open_on_inotify(&dir);
        stop_keeper(&index);
        let old_ino = fs::metadata(dir.join("src")).unwrap().ino();
        fs::remove_dir_all(dir.join("src")).unwrap();
        fs::create_dir(dir.join("src")).unwrap();
        fs::write(dir.join("src/new.ts"), "n").unwrap();
        let reused = fs::metadata(dir.join("src")).unwrap().ino() == old_ino;
        let root_wd = inotify.wd_of(unpoisoned(index.tree.read()).handle(ROOT));
        let mut raw = Vec::new();
        for _ in 0..20 {
            raw.extend(inotify.read(Duration::from_millis(20)).unwrap());
        }
        let kept: Vec<_> =
            raw.into_iter().filter(|r| r.mask & libc::IN_IGNORED != 0 || Some(r.wd) == root_wd).collect();
        let batch = index.place(inotify.changes(kept));
        index.apply(batch);
        let held = held_paths(&index);
        assert!(held.contains(&"src/new.ts".to_string()), "inode reused: {reused}; held {held:?}");
        assert!(!held.iter().any(|p| p.starts_with("src/deep")), "inode reused: {reused}; held {held:?}");
        index.close();
    }
}
