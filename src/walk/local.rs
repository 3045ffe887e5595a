//! The walk on the local disk. Folders are opened by handle from their
//! parent (see `dir`), so nothing is reached through a symlink, even one
//! swapped in mid-walk. Threads share a stack of folders to list, each
//! keeping one child for itself (depth first); each thread has its own
//! selector and hands its results over in batches, one lock per batch. The
//! user's git settings (`GitEnv`) are shared by the threads, read once per
//! walk when the first repository is met.

use super::{cannot_list, thread_count, At, Entry, Gate, CANCEL_EVERY};
use crate::cancel::Cancel;
use crate::dir::{is_gone, Dir};
use crate::entry::EntryKind;
use crate::error::{FindError, Result};
use crate::gitignore::{unreadable, GitEnv, Rules};
use crate::sync::{lock, unpoisoned};
use std::ffi::{OsStr, OsString};
use std::io::ErrorKind;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

/// Walks the folder `dir`, whose real path is `root`, with a selector per thread.
pub(super) fn walk<T, M, S>(
    dir: &Arc<Dir>,
    root: &Path,
    gate: &Gate,
    cancel: &Cancel,
    new_selector: M,
) -> Result<Vec<T>>
where
    T: Send,
    M: Fn() -> S + Sync,
    S: FnMut(&Path, EntryKind, &Entry) -> Option<T> + Send,
{
    // Ignore files apply from the root of the repository holding the search
    // directory down; outside any repository, only those at and below it.
    // The user's git settings are read once, when a repository needs them.
    let git = GitEnv::from_process();
    let ignore = if gate.rules.gitignore { Some(Rules::above(root, &git)?) } else { None };
    let first = Work { source: FolderAt::Open(Arc::clone(dir)), rel: OsString::new(), depth: 0, ignore };
    let shared = Shared {
        git: &git,
        queue: Mutex::new(Queue { pending: vec![first], busy: 0, stop: false }),
        wake: Condvar::new(),
        found: Mutex::new(Vec::new()),
        failure: Mutex::new(None),
        root,
        gate,
        cancel,
    };
    std::thread::scope(|scope| {
        for _ in 1..thread_count() {
            scope.spawn(|| shared.work(new_selector()));
        }
        shared.work(new_selector());
    });
    if let Some(err) = unpoisoned(shared.failure.into_inner()) {
        return Err(err);
    }
    Ok(unpoisoned(shared.found.into_inner()))
}

/// Results a thread gathers before taking the lock to hand them over.
const BATCH: usize = 512;

/// A folder to list.
struct Work {
    source: FolderAt,
    /// Its path relative to the root (empty for the root).
    rel: OsString,
    /// 0 for the root.
    depth: usize,
    /// The ignore rules of its parent (`None` with `gitignore: false`).
    ignore: Option<Rules>,
}

enum FolderAt {
    Open(Arc<Dir>),
    /// A child of an open folder, opened when its turn comes (so only folders
    /// with children still waiting hold a descriptor).
    Child(Arc<Dir>, OsString),
}

/// Folders waiting to be listed, shared by the walker threads.
struct Queue {
    pending: Vec<Work>,
    /// Threads holding a folder: when none does and nothing is pending, the walk is over.
    busy: usize,
    /// Set when the walk ends early (a failure, a cancel).
    stop: bool,
}

struct Shared<'a, T> {
    queue: Mutex<Queue>,
    wake: Condvar,
    found: Mutex<Vec<T>>,
    failure: Mutex<Option<FindError>>,
    root: &'a Path,
    git: &'a GitEnv,
    gate: &'a Gate<'a>,
    cancel: &'a Cancel,
}

impl<T: Send> Shared<'_, T> {
    /// A walker thread: takes folders until there are none left.
    fn work<S>(&self, mut select: S)
    where
        S: FnMut(&Path, EntryKind, &Entry) -> Option<T>,
    {
        let mut batch = Vec::new();
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
            if let Err(err) = self.list(work, &mut select, &mut batch, &mut children) {
                self.fail(err);
                break;
            }
            if batch.len() >= BATCH {
                lock(&self.found).append(&mut batch);
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
        if !batch.is_empty() {
            lock(&self.found).append(&mut batch);
        }
    }

    /// The next folder, or `None` once the walk is over. `done` says this
    /// thread finished the folder it held.
    fn take(&self, done: bool) -> Option<Work> {
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
    /// selector, and queues child folders.
    fn list<S>(&self, work: Work, select: &mut S, batch: &mut Vec<T>, children: &mut Vec<Work>) -> Result<()>
    where
        S: FnMut(&Path, EntryKind, &Entry) -> Option<T>,
    {
        self.cancel.check()?;
        let dir = match work.source {
            FolderAt::Open(dir) => dir,
            FolderAt::Child(parent, name) => match parent.open_dir(&name) {
                Ok(dir) => Arc::new(dir),
                // Vanished, replaced by a file or a symlink, or not ours to read: skipped.
                Err(e) if is_gone(&e) || e.kind() == ErrorKind::PermissionDenied => return Ok(()),
                Err(e) => return Err(cannot_list(self.root, Path::new(&work.rel), &e, "the OS")),
            },
        };
        let base = work.rel;
        let prefix = if base.is_empty() { 0 } else { base.len() + 1 };
        let ignore = match work.ignore {
            Some(rules) => {
                Some(rules.enter(&dir, prefix, self.git).map_err(|e| unreadable(&self.root.join(&base), &e))?)
            }
            None => None,
        };
        let child_depth = work.depth + 1;
        let descend = self.gate.descends_at(child_depth);
        let mut path = RelPath::new(&base);
        let mut seen = 0u32;
        let mut stopped = None;
        let listed = dir.for_each(|name, kind| {
            let Some(kind) = kind else { return };
            if stopped.is_some() {
                return;
            }
            seen = seen.wrapping_add(1);
            if seen.is_multiple_of(CANCEL_EVERY) {
                if let Err(e) = self.cancel.check() {
                    stopped = Some(e);
                    return;
                }
            }
            let is_dir = kind == EntryKind::Dir;
            let rel = path.with(name);
            if !self.gate.passes(name, rel, is_dir, ignore.as_ref()) {
                return;
            }
            if let Some(found) = select(rel, kind, &Entry(At::InDir { dir: &dir, name })) {
                batch.push(found);
            }
            if is_dir && descend {
                let source = FolderAt::Child(Arc::clone(&dir), name.to_owned());
                children.push(Work {
                    source,
                    rel: rel.as_os_str().to_owned(),
                    depth: child_depth,
                    ignore: ignore.clone(),
                });
            }
        });
        if let Some(e) = stopped {
            return Err(e);
        }
        match listed {
            // Removed while it was being listed (getdents says ENOENT): what was read is kept.
            Err(e) if work.depth > 0 && is_gone(&e) => return Ok(()),
            // Opened, but its listing refused (`/proc/<pid>/map_files`): skipped
            // like a folder that cannot be opened.
            Err(e) if work.depth > 0 && e.kind() == ErrorKind::PermissionDenied => return Ok(()),
            listed => listed,
        }
        .map_err(|e| cannot_list(self.root, Path::new(&base), &e, "the OS"))
    }
}

/// The relative path of each child of one folder, built in one buffer.
struct RelPath {
    buf: OsString,
    base: usize,
}

impl RelPath {
    fn new(base: &OsStr) -> RelPath {
        let mut buf = base.to_owned();
        if !buf.is_empty() {
            buf.push("/");
        }
        let base = buf.len();
        RelPath { buf, base }
    }

    /// The folder's path joined with `name`.
    fn with(&mut self, name: &OsStr) -> &Path {
        truncate(&mut self.buf, self.base);
        self.buf.push(name);
        Path::new(&self.buf)
    }
}

#[cfg(unix)]
fn truncate(buf: &mut OsString, len: usize) {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    if buf.len() > len {
        let mut bytes = std::mem::take(buf).into_vec();
        bytes.truncate(len);
        *buf = OsString::from_vec(bytes);
    }
    debug_assert_eq!(buf.as_bytes().len(), len);
}

#[cfg(not(unix))]
fn truncate(buf: &mut OsString, len: usize) {
    let text = buf.to_string_lossy();
    *buf = OsString::from(text.get(..len).unwrap_or(&text).to_owned());
}
