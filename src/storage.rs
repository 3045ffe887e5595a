//! Storage the host supplies instead of the local disk (a JS reader, see
//! `js_reader`): what the walk needs from it (list a folder, stat a path,
//! read a file) as asynchronous calls with `io::Error`s, so a slow remote
//! store is asked many things at once rather than one at a time.
//!
//! Paths are absolute POSIX paths in the storage's own namespace. Errors
//! keep the meaning the walk acts on (`NotFound`, `NotADirectory`,
//! `PermissionDenied` below the root are skipped; anything else fails).

use crate::cancel::Cancel;
use crate::dir::Stat;
use crate::entry::{EntryKind, Meta};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::shared::Shared;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::time::Duration;
use tokio::task::JoinSet;

/// An answer that arrives later.
pub type Reply<T> = Pin<Box<dyn Future<Output = io::Result<T>> + Send>>;

/// One child of a listed folder, with the metadata the listing gave
/// (missing size or time count as 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub name: String,
    pub kind: EntryKind,
    pub meta: Meta,
}

pub trait Storage: Send + Sync {
    /// The children of the folder at `dir`.
    fn list(&self, dir: &str) -> Reply<Vec<Listed>>;
    /// What `path` leads to.
    fn stat(&self, path: &str) -> Reply<Stat>;
    /// The contents of the file at `path`.
    fn read(&self, path: &str) -> Reply<Vec<u8>>;
    /// Whether `read_range` works: the storage reads part of a file, so a
    /// large one is searched in chunks rather than held whole.
    fn ranges(&self) -> bool {
        false
    }
    /// Up to `length` bytes of the file at `path` from `offset`: fewer only
    /// where the file ends. Only called when `ranges()` is true.
    fn read_range(&self, path: &str, offset: u64, length: u64) -> Reply<Vec<u8>> {
        let _ = (offset, length);
        let path = path.to_string();
        Box::pin(async move { Err(io::Error::new(io::ErrorKind::Unsupported, format!("no ranged read for `{path}`"))) })
    }
    /// How many calls may be waiting for an answer at once.
    fn concurrency(&self) -> usize;
    /// A mounted storage shows its search directories as the rooted paths of
    /// its namespace (`/workspace/docs`); a plain one, relative to its root
    /// in POSIX syntax (`docs`, `.`).
    fn mounted(&self) -> bool;
}

/// A shared storage.
pub type StorageRef = Shared<dyn Storage>;

/// An error as a reader reports it, by Node's error codes: the kinds the
/// walk tells apart, and the reader's own message.
pub fn error_from_code(code: &str, message: String) -> io::Error {
    let kind = match code {
        "ENOENT" => io::ErrorKind::NotFound,
        "ENOTDIR" => io::ErrorKind::NotADirectory,
        "EACCES" | "EPERM" => io::ErrorKind::PermissionDenied,
        "EISDIR" => io::ErrorKind::IsADirectory,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, message)
}

/// Runs `work` on this (blocking) thread until it ends, or until `cancel`
/// stops the call (the caller's signal or the deadline): then `aborted`,
/// however long the storage takes to answer, so a reader call that never
/// answers cannot hold the call (and its slot) past its deadline. The calls
/// still in flight are dropped with the runtime; their late answers go
/// nowhere. Each call gets its own small runtime: the storage's answers come
/// through channels, so no particular runtime is needed.
pub fn block_on<F: Future>(work: F, cancel: &Cancel) -> Result<F::Output> {
    cancel.check()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().map_err(|e| {
        FindError::new(ErrorCode::FsError, format!("cannot start the thread that waits for the reader: {e}"))
    })?;
    runtime.block_on(async {
        let mut work = std::pin::pin!(work);
        loop {
            match tokio::time::timeout(CHECK_EVERY, &mut work).await {
                Ok(out) => return Ok(out),
                Err(_) => cancel.check()?,
            }
        }
    })
}

/// How often a call waiting for slow answers looks at the cancel flag and the clock.
const CHECK_EVERY: Duration = Duration::from_millis(20);

/// Starts `start(item)` for each item, at most `concurrency` at once, and
/// hands each answer to `on_answer` as it arrives; `on_answer` may add
/// items. Stops with `aborted` when the caller cancels or time runs out,
/// however slow the storage.
pub async fn in_flight<W, F>(
    concurrency: usize,
    mut pending: Vec<W>,
    cancel: &Cancel,
    start: impl Fn(W) -> F,
    mut on_answer: impl FnMut(F::Output, &mut Vec<W>) -> Result<()>,
) -> Result<()>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let mut running = JoinSet::new();
    loop {
        while running.len() < concurrency.max(1) {
            let Some(item) = pending.pop() else { break };
            running.spawn(start(item));
        }
        let next = tokio::time::timeout(CHECK_EVERY, running.join_next()).await;
        cancel.check()?;
        match next {
            Err(_) => {}
            Ok(None) => return Ok(()),
            Ok(Some(Ok(answer))) => on_answer(answer, &mut pending)?,
            Ok(Some(Err(e))) => {
                return Err(FindError::new(
                    ErrorCode::FsError,
                    format!("internal error in agent-find (please report it): a reader task failed: {e}"),
                ))
            }
        }
    }
}

/// Errors that skip a folder below the root, as on disk.
pub fn is_skipped(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory | io::ErrorKind::PermissionDenied)
}

/// `rel` below `root`, both in the storage's namespace.
pub fn join(root: &str, rel: &str) -> String {
    match (root, rel) {
        (_, "") => root.to_string(),
        ("/", _) => format!("/{rel}"),
        _ => format!("{root}/{rel}"),
    }
}

/// A failure of the storage on `path`, for a call that cannot go on.
pub fn reader_failed(path: &str, e: &io::Error) -> FindError {
    FindError::new(ErrorCode::FsError, format!("the reader failed on `{}`: {e}", clip(path, 300)))
}

/// A storage held in memory, for tests of everything built on `Storage`.
#[cfg(test)]
pub mod memory {
    use super::*;
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    enum StoredEntry {
        File(Vec<u8>, f64),
        Dir(f64),
        /// A folder whose listing fails with this code.
        Failing(&'static str),
        /// A file whose reading fails with this code.
        Unreadable(&'static str),
    }

    /// Paths (`/a/b`) to files and folders; parents are implied.
    #[derive(Default)]
    pub struct MemoryStorage {
        nodes: Mutex<BTreeMap<String, StoredEntry>>,
        pub concurrency: usize,
        /// The most calls that were ever waiting at once.
        pub peak: AtomicUsize,
        waiting: AtomicUsize,
        /// Each listing waits this long, as a remote store would.
        pub delay_ms: u64,
        /// Whether it reads ranges; `largest_range` is the longest one asked for.
        pub ranges: bool,
        pub largest_range: AtomicUsize,
    }

    impl MemoryStorage {
        /// An empty storage answering `concurrency` calls at once, each listing after `delay_ms`.
        pub fn slow(concurrency: usize, delay_ms: u64) -> MemoryStorage {
            MemoryStorage { concurrency, delay_ms, ..Default::default() }
        }

        pub fn new(files: &[(&str, &str)]) -> Arc<MemoryStorage> {
            let storage = MemoryStorage::slow(8, 0);
            for (path, content) in files {
                storage.file(path, content.as_bytes(), 0.0);
            }
            Arc::new(storage)
        }

        pub fn file(&self, path: &str, content: &[u8], mtime_ms: f64) {
            let mut nodes = self.nodes.lock().unwrap();
            let mut at = 0;
            while let Some(i) = path[at + 1..].find('/') {
                at += i + 1;
                nodes.entry(path[..at].to_string()).or_insert(StoredEntry::Dir(0.0));
            }
            nodes.insert(path.to_string(), StoredEntry::File(content.to_vec(), mtime_ms));
        }

        /// `path` is a folder whose listing fails with `code`.
        pub fn failing(&self, path: &str, code: &'static str) {
            self.nodes.lock().unwrap().insert(path.to_string(), StoredEntry::Failing(code));
        }

        /// `path` is a file whose reading fails with `code`.
        pub fn unreadable(&self, path: &str, code: &'static str) {
            self.nodes.lock().unwrap().insert(path.to_string(), StoredEntry::Unreadable(code));
        }

        fn listing(&self, dir: &str) -> io::Result<Vec<Listed>> {
            let nodes = self.nodes.lock().unwrap();
            match nodes.get(dir) {
                Some(StoredEntry::File(..) | StoredEntry::Unreadable(_)) => {
                    return Err(error_from_code("ENOTDIR", format!("ENOTDIR: {dir}")))
                }
                Some(StoredEntry::Failing(code)) => return Err(error_from_code(code, format!("{code}: list '{dir}'"))),
                None if dir != "/" => return Err(error_from_code("ENOENT", format!("ENOENT: {dir}"))),
                _ => {}
            }
            let prefix = if dir == "/" { "/".to_string() } else { format!("{dir}/") };
            Ok(nodes
                .range(prefix.clone()..)
                .take_while(|(p, _)| p.starts_with(&prefix))
                .filter(|(p, _)| !p[prefix.len()..].contains('/'))
                .map(|(p, node)| {
                    let (kind, meta) = match node {
                        StoredEntry::File(bytes, t) => {
                            (EntryKind::File, Meta { size: bytes.len() as u64, mtime_ms: *t })
                        }
                        StoredEntry::Dir(t) => (EntryKind::Dir, Meta { size: 0, mtime_ms: *t }),
                        StoredEntry::Failing(_) => (EntryKind::Dir, Meta { size: 0, mtime_ms: 0.0 }),
                        StoredEntry::Unreadable(_) => (EntryKind::File, Meta { size: 0, mtime_ms: 0.0 }),
                    };
                    Listed { name: p[prefix.len()..].to_string(), kind, meta }
                })
                .collect())
        }
    }

    impl Storage for Arc<MemoryStorage> {
        fn list(&self, dir: &str) -> Reply<Vec<Listed>> {
            let (this, dir) = (Arc::clone(self), dir.to_string());
            Box::pin(async move {
                let now = this.waiting.fetch_add(1, Ordering::SeqCst) + 1;
                this.peak.fetch_max(now, Ordering::SeqCst);
                if this.delay_ms > 0 {
                    tokio::time::sleep(std::time::Duration::from_millis(this.delay_ms)).await;
                }
                this.waiting.fetch_sub(1, Ordering::SeqCst);
                this.listing(&dir)
            })
        }

        fn stat(&self, path: &str) -> Reply<Stat> {
            let found = match self.nodes.lock().unwrap().get(path) {
                Some(StoredEntry::File(bytes, t)) => {
                    Ok(Stat { kind: Some(EntryKind::File), meta: Meta { size: bytes.len() as u64, mtime_ms: *t } })
                }
                Some(_) => Ok(Stat { kind: Some(EntryKind::Dir), meta: Meta { size: 0, mtime_ms: 0.0 } }),
                None if path == "/" => Ok(Stat { kind: Some(EntryKind::Dir), meta: Meta { size: 0, mtime_ms: 0.0 } }),
                None => Err(error_from_code("ENOENT", format!("ENOENT: stat '{path}'"))),
            };
            Box::pin(async move { found })
        }

        fn read(&self, path: &str) -> Reply<Vec<u8>> {
            let found = match self.nodes.lock().unwrap().get(path) {
                Some(StoredEntry::File(bytes, _)) => Ok(bytes.clone()),
                Some(StoredEntry::Unreadable(code)) => Err(error_from_code(code, format!("{code}: read '{path}'"))),
                Some(_) => Err(error_from_code("EISDIR", format!("EISDIR: read '{path}'"))),
                None => Err(error_from_code("ENOENT", format!("ENOENT: read '{path}'"))),
            };
            Box::pin(async move { found })
        }

        fn ranges(&self) -> bool {
            self.ranges
        }

        fn read_range(&self, path: &str, offset: u64, length: u64) -> Reply<Vec<u8>> {
            self.largest_range.fetch_max(length as usize, Ordering::SeqCst);
            let whole = self.read(path);
            Box::pin(async move {
                let bytes = whole.await?;
                let from = (offset as usize).min(bytes.len());
                Ok(bytes[from..(from + length as usize).min(bytes.len())].to_vec())
            })
        }

        fn concurrency(&self) -> usize {
            self.concurrency
        }

        fn mounted(&self) -> bool {
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelFlag;

    #[test]
    fn a_wait_that_never_ends_stops_at_the_deadline_or_the_flag() {
        let started = std::time::Instant::now();
        let err = block_on(std::future::pending::<()>(), &Cancel::new(CancelFlag::default(), Some(60))).unwrap_err();
        assert_eq!(err.code, ErrorCode::Aborted);
        assert!(err.message.contains("timeoutMs"), "{}", err.message);
        assert!(started.elapsed() < Duration::from_secs(2));

        let flag = CancelFlag::default();
        let cancel = Cancel::new(flag.clone(), None);
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            flag.cancel();
        });
        let err = block_on(std::future::pending::<()>(), &cancel).unwrap_err();
        setter.join().unwrap();
        assert_eq!(err.code, ErrorCode::Aborted);
        assert!(block_on(async { 7 }, &Cancel::never()).is_ok_and(|n| n == 7));
    }
}
