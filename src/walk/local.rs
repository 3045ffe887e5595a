//! The walk on the local disk. Folders are opened by handle from their
//! parent (see `dir`), so nothing is reached through a symlink, even one
//! swapped in mid-walk. Threads share a stack of folders to list, each
//! keeping one child for itself (depth first); each thread has its own
//! collector and hands over what it finished with once, at the end. The
//! user's git settings (`GitEnv`) are shared by the threads, read once per
//! walk when the first repository is met.

use super::{cannot_list, thread_count, At, Collector, Entry, Gate, Pending, SkipReason};
use crate::dir::{is_gone, Dir};
use crate::error::{FindError, Result};
use crate::gitignore::{rules_above_on_disk, unreadable, FolderRules, GitEnv, IgnoreFiles};
use crate::sync::{lock, unpoisoned};
use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

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
    let shared = WalkState {
        git: &git,
        queue: Mutex::new(Queue { pending: vec![first], busy: 0, stop: false }),
        wake: Condvar::new(),
        found: Mutex::new(Vec::new()),
        failure: Mutex::new(None),
        root,
        gate,
    };
    std::thread::scope(|scope| {
        for _ in 1..thread_count() {
            scope.spawn(|| shared.work(new_collector()));
        }
        shared.work(new_collector());
    });
    if let Some(err) = unpoisoned(shared.failure.into_inner()) {
        return Err(err);
    }
    Ok(unpoisoned(shared.found.into_inner()))
}

/// How the walk reaches a folder.
enum FolderAt {
    Open(Arc<Dir>),
    /// A child of an open folder, opened when its turn comes (so only folders
    /// with children still waiting hold a descriptor).
    Child(Arc<Dir>, OsString),
}

/// Folders waiting to be listed, shared by the walker threads.
struct Queue {
    pending: Vec<Pending<FolderAt>>,
    /// Threads holding a folder: when none does and nothing is pending, the walk is over.
    busy: usize,
    /// Set when the walk ends early (a failure, a cancel).
    stop: bool,
}

struct WalkState<'a, T> {
    queue: Mutex<Queue>,
    wake: Condvar,
    found: Mutex<Vec<T>>,
    failure: Mutex<Option<FindError>>,
    root: &'a Path,
    git: &'a GitEnv,
    gate: &'a Gate<'a>,
}

impl<T: Send> WalkState<'_, T> {
    /// A walker thread: takes folders until there are none left.
    fn work<C: Collector<Out = T>>(&self, mut collector: C) {
        let mut children = Vec::new();
        let mut next = None;
        let mut holding = false;
        loop {
            let work = match next.take() {
                Some(work) => work,
                None => match self.take(holding) {
                    Some(work) => work,
                    None => break,
                },
            };
            holding = true;
            if let Err(err) = self.list(work, &mut collector, &mut children) {
                self.fail(err);
                break;
            }
            // Keep one child to list next (depth first, no lock); share the rest.
            next = children.pop();
            if !children.is_empty() {
                let mut queue = lock(&self.queue);
                queue.pending.append(&mut children);
                drop(queue);
                self.wake.notify_all();
            }
        }
        let out = collector.finish();
        lock(&self.found).push(out);
    }

    /// The next folder, or `None` once the walk is over. `done` says this
    /// thread finished the folder it held.
    fn take(&self, done: bool) -> Option<Pending<FolderAt>> {
        let mut queue = lock(&self.queue);
        if done {
            queue.busy -= 1;
        }
        loop {
            if queue.stop {
                return None;
            }
            if let Some(work) = queue.pending.pop() {
                queue.busy += 1;
                return Some(work);
            }
            if queue.busy == 0 {
                queue.stop = true;
                self.wake.notify_all();
                return None;
            }
            queue = unpoisoned(self.wake.wait(queue));
        }
    }

    fn fail(&self, err: FindError) {
        lock(&self.failure).get_or_insert(err);
        lock(&self.queue).stop = true;
        self.wake.notify_all();
    }

    /// Lists one folder: applies the rules to each child, offers it to the
    /// collector, and queues child folders.
    fn list<C: Collector>(
        &self,
        work: Pending<FolderAt>,
        collector: &mut C,
        children: &mut Vec<Pending<FolderAt>>,
    ) -> Result<()> {
        let is_root = work.is_root();
        let dir = match &work.folder {
            FolderAt::Open(dir) => Arc::clone(dir),
            FolderAt::Child(parent, name) => match parent.open_dir(name) {
                Ok(dir) => Arc::new(dir),
                // Vanished, replaced by a file or a symlink, or not ours to read: skipped.
                Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                    self.gate.count(SkipReason::Denied, work.rel(), true);
                    return Ok(());
                }
                Err(e) if is_gone(&e) => return Ok(()),
                Err(e) => return Err(cannot_list(self.root, work.rel(), &e, "the OS")),
            },
        };
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
        match listed {
            // Removed while it was being listed (getdents says ENOENT): what was read is kept.
            Err(e) if !is_root && is_gone(&e) => return Ok(()),
            // Opened, but its listing refused (`/proc/<pid>/map_files`): skipped
            // like a folder that cannot be opened.
            Err(e) if !is_root && e.kind() == ErrorKind::PermissionDenied => {
                self.gate.count(SkipReason::Denied, &visit.folder_rel(), true);
                return Ok(());
            }
            listed => listed,
        }
        .map_err(|e| cannot_list(self.root, &visit.folder_rel(), &e, "the OS"))
    }
}
