//! Test fixtures (compiled for tests only): a temporary tree that removes
//! itself when it goes out of scope, also when the test fails, as fd's
//! `TestEnv` does.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh folder under the system's temp dir, its real path, removed on drop.
pub struct TempTree(PathBuf);

impl TempTree {
    /// An empty tree; `name` only helps to tell trees apart when one is left.
    pub fn new(name: &str) -> TempTree {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("af-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temp dir");
        TempTree(dir.canonicalize().expect("its real path"))
    }

    /// A tree holding `files` (relative path, contents); folders are made as needed.
    pub fn with(name: &str, files: &[(&str, &[u8])]) -> TempTree {
        let tree = TempTree::new(name);
        for (rel, bytes) in files {
            tree.write(rel, bytes);
        }
        tree
    }

    /// Writes a file at `rel`, making its folders; its path.
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("its folders");
        std::fs::write(&path, bytes).expect("the file");
        path
    }
}

impl std::ops::Deref for TempTree {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempTree {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
