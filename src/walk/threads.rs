//! The threads of a walk on the local disk, shared by the search walk
//! (`local`) and the live index's build walk (`index::build`): a stack of
//! folders to list, each thread keeping one child of the folder it just
//! listed for itself (depth first, no lock) and sharing the rest. Folders
//! are opened by handle from their parent (see `dir`) only when their turn
//! comes, so only folders with children still waiting hold a descriptor.
//! What each walk does in a folder is its `ListFolder`.

use super::{cannot_list, thread_count, Gate, Pending};
use crate::dir::{is_gone, Dir};
use crate::error::{FindError, Result};
use crate::result::SkipReason;
use crate::sync::{lock, unpoisoned};
use std::ffi::OsString;
use std::io::{self, ErrorKind};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

/// How the walk reaches a folder.
pub enum FolderAt {
    Open(Arc<Dir>),
    /// A child of an open folder, opened when its turn comes.
    Child(Arc<Dir>, OsString),
}

/// What one walk does with each folder the threads open.
pub trait ListFolder: Sync {
    /// Each thread's own state.
    type Worker;
    /// What a thread hands over once, at the end.
    type Out: Send;
    /// Lists the folder `dir`, reached as `work`, into `worker`, and queues
    /// its child folders in `children`. Ends with `listing_ended`.
    fn list(
        &self,
        worker: &mut Self::Worker,
        dir: Arc<Dir>,
        work: Pending<FolderAt>,
        children: &mut Vec<Pending<FolderAt>>,
    ) -> Result<()>;
    fn finish(&self, worker: Self::Worker) -> Self::Out;

    /// Threads the walk may run on: `thread_count()` unless the lister is
    /// held to fewer (a live index's `threads`).
    fn threads(&self) -> usize {
        thread_count()
    }
}

/// Walks from `first` on `lister.threads()` threads, each with a worker from
/// `new_worker`; what each thread finished with, or the first failure.
pub fn walk_folders<L, M>(
    lister: &L,
    first: Pending<FolderAt>,
    root: &Path,
    gate: &Gate,
    new_worker: M,
) -> Result<Vec<L::Out>>
where
    L: ListFolder,
    M: Fn() -> L::Worker + Sync,
{
    let shared = Threads {
        queue: Mutex::new(Queue { pending: vec![first], busy: 0, stop: false }),
        wake: Condvar::new(),
        found: Mutex::new(Vec::new()),
        failure: Mutex::new(None),
        root,
        gate,
        lister,
    };
    std::thread::scope(|scope| {
        for _ in 1..lister.threads().max(1) {
            scope.spawn(|| shared.work(new_worker()));
        }
        shared.work(new_worker());
    });
    if let Some(err) = unpoisoned(shared.failure.into_inner()) {
        return Err(err);
    }
    Ok(unpoisoned(shared.found.into_inner()))
}

/// The end of one folder's listing: a folder removed while it was listed
/// (getdents says ENOENT) keeps what was read, and one opened whose listing
/// is refused (`/proc/<pid>/map_files`) is skipped like a folder that cannot
/// be opened; the root's own failures, and any other, end the walk.
pub fn listing_ended(gate: &Gate, root: &Path, is_root: bool, folder_rel: &Path, listed: io::Result<()>) -> Result<()> {
    match listed {
        Err(e) if !is_root && is_gone(&e) => Ok(()),
        Err(e) if !is_root && e.kind() == ErrorKind::PermissionDenied => {
            gate.count(SkipReason::Denied, folder_rel, true);
            Ok(())
        }
        listed => listed.map_err(|e| cannot_list(root, folder_rel, &e, "the OS")),
    }
}

/// Folders waiting to be listed, shared by the walker threads.
struct Queue {
    pending: Vec<Pending<FolderAt>>,
    /// Threads holding a folder: when none does and nothing is pending, the walk is over.
    busy: usize,
    /// Set when the walk ends early (a failure, a cancel).
    stop: bool,
}

struct Threads<'a, L: ListFolder> {
    queue: Mutex<Queue>,
    wake: Condvar,
    found: Mutex<Vec<L::Out>>,
    failure: Mutex<Option<FindError>>,
    root: &'a Path,
    gate: &'a Gate<'a>,
    lister: &'a L,
}

impl<L: ListFolder> Threads<'_, L> {
    /// A walker thread: takes folders until there are none left.
    fn work(&self, mut worker: L::Worker) {
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
            if let Err(err) = self.open_and_list(work, &mut worker, &mut children) {
                self.fail(err);
                break;
            }
            next = children.pop();
            if !children.is_empty() {
                lock(&self.queue).pending.append(&mut children);
                self.wake.notify_all();
            }
        }
        let out = self.lister.finish(worker);
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

    /// Opens the folder `work` names and hands it to the lister.
    fn open_and_list(
        &self,
        work: Pending<FolderAt>,
        worker: &mut L::Worker,
        children: &mut Vec<Pending<FolderAt>>,
    ) -> Result<()> {
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
        self.lister.list(worker, dir, work, children)
    }
}

#[cfg(test)]
mod bound_tests {
    use super::*;
    use crate::walk::{gated, Excludes, WalkRules};
    use std::collections::HashSet;
    use std::thread::ThreadId;

    /// Lists every folder, noting the thread that listed it.
    struct Noting<'a> {
        threads: usize,
        gate: &'a Gate<'a>,
        root: &'a Path,
    }

    impl ListFolder for Noting<'_> {
        type Worker = HashSet<ThreadId>;
        type Out = HashSet<ThreadId>;

        fn list(
            &self,
            seen: &mut HashSet<ThreadId>,
            dir: Arc<Dir>,
            work: Pending<FolderAt>,
            children: &mut Vec<Pending<FolderAt>>,
        ) -> Result<()> {
            seen.insert(std::thread::current().id());
            let is_root = work.is_root();
            let (_, mut visit) = self.gate.visit(work, |_| Ok(None))?;
            let listed = dir.for_each(|name, kind| {
                let Some(kind) = kind else { return };
                if let Ok(Some(_)) = visit.child(name, kind) {
                    children.extend(visit.descend(|| FolderAt::Child(Arc::clone(&dir), name.to_owned())));
                }
            });
            let rel = visit.folder_rel().into_owned();
            crate::walk::listing_ended(self.gate, self.root, is_root, &rel, listed)
        }

        fn finish(&self, seen: HashSet<ThreadId>) -> HashSet<ThreadId> {
            seen
        }

        fn threads(&self) -> usize {
            self.threads
        }
    }

    #[test]
    fn a_walk_held_to_one_thread_runs_on_one() {
        let files: Vec<(String, &[u8])> = (0..200).map(|i| (format!("d{}/e{}/f.txt", i % 20, i), &b"x"[..])).collect();
        let spec: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), *b)).collect();
        let tree = crate::testing::TempTree::with("threads", &spec);
        let rules = WalkRules {
            hidden: true,
            gitignore: false,
            exclude: Excludes::default(),
            case_sensitive: true,
            max_depth: None,
            skip_dirs: &[],
            record_ignored: false,
            changed: None,
            tally: false,
        };
        let dir = Arc::new(Dir::open(&tree).unwrap());
        for threads in [1, 2] {
            let seen = gated(&rules, &crate::cancel::Cancel::never(), |gate| {
                let lister = Noting { threads, gate, root: &tree };
                walk_folders(&lister, Pending::root(FolderAt::Open(Arc::clone(&dir)), None), &tree, gate, HashSet::new)
            })
            .unwrap()
            .found;
            let all: HashSet<ThreadId> = seen.into_iter().flatten().collect();
            assert!(all.len() <= threads, "{threads} allowed, {} used", all.len());
        }
    }
}
