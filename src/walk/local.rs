//! The walk on the local disk. Folders are opened by handle from their
//! parent (see `dir`), so nothing is reached through a symlink, even one
//! swapped in mid-walk. The threads are `threads`'; each has its own
//! collector and hands over what it finished with once, at the end. The
//! user's git settings (`GitEnv`) are shared by the threads, read once per
//! walk when the first repository is met.

use super::threads::{listing_ended, walk_folders, FolderAt, ListFolder};
use super::{At, Collector, Entry, Gate, Pending};
use crate::dir::Dir;
use crate::error::Result;
use crate::gitignore::{rules_above_on_disk, unreadable, FolderRules, GitEnv, IgnoreFiles};
use std::path::Path;
use std::sync::Arc;

/// Walks the folder `dir`, whose real path is `root`, with a collector per
/// thread; returns what each finished with.
pub(super) fn walk<C, M>(dir: &Arc<Dir>, root: &Path, gate: &Gate, new_collector: M) -> Result<Vec<C::Out>>
where
    C: Collector,
    M: Fn() -> C + Sync,
{
    // Ignore files apply from the root of the repository holding the search
    // directory down; outside any repository, only those at and below it.
    // The user's git settings are read once, when a repository needs them.
    let git = GitEnv::from_process();
    let above = match gate.rules().gitignore {
        true => Some(rules_above_on_disk(root, &git)?),
        false => None,
    };
    let first = Pending::root(FolderAt::Open(Arc::clone(dir)), above);
    let lister = Lister { git: &git, root, gate, collector: std::marker::PhantomData };
    walk_folders(&lister, first, root, gate, new_collector)
}

/// The search walk's folder step: the rules on each child, which the
/// collector is offered.
struct Lister<'a, C> {
    root: &'a Path,
    git: &'a GitEnv,
    gate: &'a Gate<'a>,
    collector: std::marker::PhantomData<fn() -> C>,
}

impl<C: Collector> ListFolder for Lister<'_, C> {
    type Worker = C;
    type Out = C::Out;

    fn finish(&self, collector: C) -> C::Out {
        collector.finish()
    }

    fn list(
        &self,
        collector: &mut C,
        dir: Arc<Dir>,
        work: Pending<FolderAt>,
        children: &mut Vec<Pending<FolderAt>>,
    ) -> Result<()> {
        let is_root = work.is_root();
        let own = |rel: &Path| match IgnoreFiles::read(&dir, self.git) {
            Ok(files) => Ok(FolderRules::compile(files)),
            Err(e) => Err(unreadable(&self.root.join(rel), &e)),
        };
        let (_, mut visit) = self.gate.visit(work, own)?;
        let mut stopped = None;
        let listed = dir.for_each(|name, kind| {
            let Some(kind) = kind else { return };
            if stopped.is_some() {
                return;
            }
            let rel = match visit.child(name, kind) {
                Ok(Some(rel)) => rel,
                Ok(None) => return,
                Err(e) => {
                    stopped = Some(e);
                    return;
                }
            };
            collector.offer(rel, kind, &Entry(At::InDir { dir: &dir, name }));
            children.extend(visit.descend(|| FolderAt::Child(Arc::clone(&dir), name.to_owned())));
        });
        if let Some(e) = stopped {
            return Err(e);
        }
        listing_ended(self.gate, self.root, is_root, &visit.folder_rel(), listed)
    }
}
