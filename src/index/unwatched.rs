//! What a call does for what the watcher could not watch (past the OS's
//! limit on watches), since changes there raise no event: each call first
//! lists those folders again (and the new folders found in them, trying to
//! watch each), and looks again (a `stat`) at the files with more than one
//! name and no watch of their own that it is about to show, listing their
//! folders again when one changed. So answers stay exact, and a call pays
//! for what it shows only. With a watcher that watches the whole folder by
//! itself there is nothing to look at.

use super::disk::meta_of;
use super::keeper::panic_text;
use super::lifecycle::Index;
use super::tree::Handle;
use crate::entry::{EntryKind, Meta};
use crate::error::Result;
use crate::path_bytes::os_str;
use crate::sync::unpoisoned;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::Ordering;

impl Index {
    /// Lists every folder the watcher could not watch (past the OS's limit)
    /// again, and all new folders found in them, trying to watch each:
    /// changes there raise no event, so a call pays for exactness with these
    /// listings.
    pub(super) fn relist_unwatched(&self) -> Result<()> {
        self.relist(self.with_watches(|watches| watches.unwatched_folders()))
    }

    /// Lists the folders `folders` again (and the new folders found in
    /// them) outside the keeper, for a call. A panic meanwhile is recovered
    /// from as in the keeper (the tree is walked again whole).
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
            self.with_watches(|watches| watches.sweep(&tree));
            self.generation.fetch_add(1, Ordering::SeqCst);
        }));
        if let Err(panic) = relisted {
            if !self.recover(&panic_text(&*panic)) {
                return self.usable();
            }
        }
        Ok(())
    }

    /// Looks again at the files among `files` (those a call is about to
    /// show) that have more than one name and no watch, and lists again the
    /// folders of those that changed since the tree saw them (their size,
    /// time or kind, or they are gone or have one name now): true when it
    /// did (the tree changed). A call pays for the files it shows only.
    pub fn look_at_unwatched_files(&self, files: &[Handle]) -> Result<bool> {
        let files = self.with_watches(|watches| watches.unwatched_among(files));
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
            let held = match root.folder_beneath(Path::new(os_str(&group[0].1))) {
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
