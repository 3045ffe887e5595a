//! What the index's unit tests share: a small tree, indexes opened with a
//! watcher the test keeps (or with their keeper stopped, so only what a
//! test applies by hand changes them), the paths a tree holds, and a
//! watcher that panics in the keeper's work on demand.

use super::lifecycle::Index;
use super::lifecycle::IndexOptions;
use super::tree::ROOT;
use super::watch::{FolderWatches, Waited, Watcher};
use crate::error::Result;
use crate::sync::{lock, unpoisoned};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// A folder with `src/deep/a.ts` and a `.gitignore`.
pub fn temp(name: &str) -> crate::testing::TempTree {
    crate::testing::TempTree::with(&format!("index-{name}"), &[("src/deep/a.ts", b"a"), (".gitignore", b"*.log\n")])
}

/// An index of `dir` watched by `new_watcher`'s watcher, and that watcher.
pub fn open_watched<W: Watcher + 'static>(dir: &Path, new_watcher: impl FnOnce(&Path) -> W) -> (Arc<Index>, Arc<W>) {
    open_watched_with(dir, IndexOptions::default(), new_watcher)
}

/// `open_watched`, with `options`.
pub fn open_watched_with<W: Watcher + 'static>(
    dir: &Path,
    options: IndexOptions,
    new_watcher: impl FnOnce(&Path) -> W,
) -> (Arc<Index>, Arc<W>) {
    let mut made = None;
    let index = Index::open_with(dir.to_path_buf(), options, |root| {
        let watcher = Arc::new(new_watcher(root));
        made = Some(Arc::clone(&watcher));
        Ok(watcher as Arc<dyn Watcher>)
    })
    .unwrap();
    (index, made.unwrap())
}

/// An index of `dir` watched by inotify, and the watcher.
#[cfg(target_os = "linux")]
pub fn open_on_inotify(dir: &Path) -> (Arc<Index>, Arc<super::watch::inotify::Inotify>) {
    open_watched(dir, |_| super::watch::inotify::Inotify::new().unwrap())
}

/// Tells the keeper to stop and waits for it to end (as if it had ended
/// without a word): only what a test applies by hand changes the tree.
pub fn stop_keeper(index: &Index) {
    lock(&index.keeper).as_ref().unwrap().stop.store(true, Ordering::SeqCst);
    wait_for("the keeper to end", || lock(&index.keeper).as_ref().unwrap().thread.is_finished());
}

/// An index whose keeper has ended (see `stop_keeper`).
pub fn open_without_keeper(dir: &Path) -> Arc<Index> {
    let index = Index::open(dir.to_path_buf(), IndexOptions::default()).unwrap();
    stop_keeper(&index);
    index
}

/// Every path the tree holds, read directly (no check that the index still answers).
pub fn held_paths(index: &Index) -> Vec<String> {
    let tree = unpoisoned(index.tree.read());
    let mut held: Vec<String> = Vec::new();
    let mut stack = vec![ROOT];
    while let Some(id) = stack.pop() {
        for &c in &tree.node(id).children {
            held.push(String::from_utf8_lossy(&tree.path(c)).into_owned());
            stack.push(c);
        }
    }
    held.sort();
    held
}

/// Every path the tree holds, once the index is known to still answer.
pub fn paths(index: &Index) -> Vec<String> {
    drop(index.read().unwrap());
    held_paths(index)
}

/// Waits (at most 10 s) for `done`.
pub fn wait_for(what: &str, done: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < until, "waited 10 s for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Leaves `lock` poisoned, as a panic while it is held does.
pub fn poison<T: Send + Sync>(lock: &RwLock<T>) {
    let panicked = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let _held = lock.write();
                panic!("a panic made by a test while the tree is locked");
            })
            .join()
    });
    assert!(panicked.is_err() && lock.is_poisoned());
}

/// The default watcher, except that once `armed` it panics in the keeper's
/// work at the next changes it reports, as a bug in applying them would.
pub struct PanicOnChanges {
    inner: Arc<dyn Watcher>,
    pub armed: AtomicBool,
}

impl PanicOnChanges {
    pub fn new(root: &Path) -> PanicOnChanges {
        PanicOnChanges {
            inner: super::watch::new_watcher(super::watch::WatcherChoice::Native, root).unwrap(),
            armed: AtomicBool::new(false),
        }
    }
}

impl Watcher for PanicOnChanges {
    fn name(&self) -> &'static str {
        "test"
    }

    fn start(&self, root: &Path, shown: &Path) -> Result<()> {
        self.inner.start(root, shown)
    }

    fn wait(&self, timeout: Duration) -> Waited {
        let waited = self.inner.wait(timeout);
        if matches!(&waited, Waited::Changes(changes) if !changes.is_empty())
            && self.armed.swap(false, Ordering::SeqCst)
        {
            panic!("a panic made by a test in the keeper's work");
        }
        waited
    }

    fn folder_watches(&self) -> Option<&dyn FolderWatches> {
        self.inner.folder_watches()
    }
}
