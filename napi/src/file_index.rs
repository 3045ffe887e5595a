//! JS's `FileIndex`: a live index as JS holds it, made empty and then
//! opened (walked and watched) off the event loop, until closed.

use crate::blocking_pool::off_the_loop;
use crate::results::Failure;
use agent_find_core::{
    default_cache_dir, default_search_rules, lock, resolve_logical, BuildState, Cancel, ContentCaps, FindError, Index,
    IndexOptions, IndexRef, Shared, WatcherChoice,
};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

/// A live index (see `index`), as JS holds it: made empty, then opened.
#[napi]
pub struct FileIndex {
    index: Arc<std::sync::Mutex<Option<IndexRef>>>,
}

/// What `FileIndex.stats()` returns.
#[napi(object, object_from_js = false)]
pub struct IndexStats {
    /// Files, folders and symlinks held.
    pub entries: f64,
    /// Memory held by the index's structures.
    pub bytes: f64,
    pub bytes_per_entry: f64,
    /// Memory held by the lists kept for recent queries' rules.
    pub cached_bytes: f64,
    /// Memory held by the sketches of files' contents (the content layer).
    pub content_bytes: f64,
    /// Files with a sketch of their contents.
    pub content_files: f64,
    /// Bytes of file contents held in memory (the content layer's cache).
    pub content_cache_bytes: f64,
    /// Files whose contents are held in memory.
    pub content_cache_files: f64,
    /// The background build of the sketches: `waiting` (the tree is being
    /// built, or sketches are off), `running`, `done` or `stopped` (closed,
    /// or the sketch cap reached).
    #[napi(ts_type = "'waiting' | 'running' | 'done' | 'stopped'")]
    pub content_build: String,
    /// Files the background build has looked at, of `contentBuildTotal`
    /// (the files a default `searchFiles` reads).
    pub content_build_files: f64,
    pub content_build_total: f64,
    /// The file the content layer is kept in across processes (absent with
    /// `persist: false`, or where the system gives a folder no identity).
    pub cache_file: Option<String>,
    /// Sketches loaded from it at open, each checked against its file.
    pub cache_loaded: f64,
    /// Sketches written by the last save.
    pub cache_saved: f64,
    /// Why the file was not used or not written, the last time it was not.
    pub cache_error: Option<String>,
    /// File-system events received.
    pub events: f64,
    /// Folders listed again after events.
    pub folders_reconciled: f64,
    /// Whole-tree comparisons after the OS dropped events.
    pub rescans: f64,
    pub last_rescan: Option<String>,
    /// Folders that could not be watched (the OS's limit); every call lists them again.
    pub watch_errors: f64,
    pub last_error: Option<String>,
    pub closed: bool,
    /// What tells the index of changes: inotify (Linux), FSEvents (macOS),
    /// ReadDirectoryChangesW (Windows), kqueue (the BSDs), or polling.
    #[napi(ts_type = "'inotify' | 'fsevents' | 'windows' | 'kqueue' | 'poll'")]
    pub watcher: String,
}

/// `openIndex`'s options but `cwd`, as `js/file-index.js` checked them.
#[napi(object)]
pub struct OpenOptions {
    pub content_cache_bytes: Option<f64>,
    pub cache_dir: Option<String>,
    pub persist: Option<bool>,
    pub max_entries: Option<f64>,
    pub threads: Option<f64>,
    pub watcher: Option<String>,
    pub poll_interval_ms: Option<f64>,
}

impl FileIndex {
    pub fn opened(&self) -> std::result::Result<IndexRef, FindError> {
        lock(&self.index)
            .clone()
            .ok_or_else(|| FindError::invalid_argument("this index is not open; use `await openIndex(path)`"))
    }
}

#[napi]
impl FileIndex {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        FileIndex { index: Arc::new(std::sync::Mutex::new(None)) }
    }

    /// Walks `path` (resolved against `cwd`) and starts watching it.
    #[napi(ts_return_type = "Promise<Failure | null>")]
    pub fn open<'env>(
        &self,
        env: &'env Env,
        path: String,
        cwd: Option<String>,
        options: OpenOptions,
    ) -> Result<PromiseRaw<'env, Option<Failure>>> {
        let OpenOptions { content_cache_bytes, cache_dir, persist, max_entries, threads, watcher, poll_interval_ms } =
            options;
        let holder = Arc::clone(&self.index);
        let mut caps = ContentCaps::default();
        if let Some(bytes) = content_cache_bytes {
            // Checked in JS: a whole number of bytes, not negative.
            caps.contents = bytes.min(usize::MAX as f64) as usize;
        }
        env.spawn_future(async move {
            let opened = off_the_loop(move || {
                let logical = resolve_logical(cwd.as_deref(), Some(&path))?;
                // Kept across processes unless `persist: false`: in `cacheDir`, else the user's cache folder.
                let saved = match persist {
                    Some(false) => None,
                    _ => cache_dir.map(std::path::PathBuf::from).or_else(default_cache_dir),
                };
                // Checked in JS: a whole number of entries, a watcher's name, an interval in ms.
                let watcher = match (watcher.as_deref(), poll_interval_ms) {
                    (Some("recursive"), _) => WatcherChoice::Recursive,
                    (Some("poll"), Some(ms)) => WatcherChoice::Poll(std::time::Duration::from_millis(ms as u64)),
                    _ => WatcherChoice::Native,
                };
                let options = IndexOptions {
                    caps,
                    cache_dir: saved,
                    searched: default_search_rules(),
                    max_entries: max_entries.map(|n| n as u64),
                    threads: threads.map(|n| n as usize),
                    watcher,
                    names: None,
                };
                Index::open(logical, options)
            });
            Ok(match opened.await.and_then(|done| done) {
                Ok(index) => {
                    *lock(&holder) = Some(Shared(index));
                    None
                }
                Err(e) => Some(e.into()),
            })
        })
    }

    /// Resolves once every change made before the call is in the index.
    #[napi(ts_return_type = "Promise<Failure | null>")]
    pub fn settled<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, Option<Failure>>> {
        let index = self.opened();
        env.spawn_future(async move {
            let index = match index {
                Ok(index) => index,
                Err(e) => return Ok(Some(e.into())),
            };
            let settled = off_the_loop(move || index.settle(&Cancel::never())).await;
            Ok(settled.and_then(|done| done).err().map(Failure::from))
        })
    }

    #[napi(catch_unwind)]
    pub fn stats(&self) -> Option<IndexStats> {
        let s = self.opened().ok()?.stats();
        Some(IndexStats {
            entries: s.entries as f64,
            bytes: s.bytes as f64,
            bytes_per_entry: if s.entries == 0 { 0.0 } else { (s.bytes as f64 / s.entries as f64).round() },
            cached_bytes: s.cached_bytes as f64,
            content_bytes: s.content.sketch_bytes as f64,
            content_files: s.content.sketched_files as f64,
            content_cache_bytes: s.content.cached_bytes as f64,
            content_cache_files: s.content.cached_files as f64,
            content_build: match s.content_build.0 {
                BuildState::Waiting => "waiting",
                BuildState::Running => "running",
                BuildState::Done => "done",
                BuildState::Stopped => "stopped",
            }
            .to_string(),
            content_build_files: s.content_build.1 as f64,
            content_build_total: s.content_build.2 as f64,
            cache_file: s.saved.file.map(|f| f.to_string_lossy().into_owned()),
            cache_loaded: s.saved.loaded as f64,
            cache_saved: s.saved.saved as f64,
            cache_error: s.saved.error,
            events: s.events as f64,
            folders_reconciled: s.folders_reconciled as f64,
            rescans: s.rescans as f64,
            last_rescan: s.last_rescan,
            watch_errors: s.watch_errors as f64,
            last_error: s.last_error,
            closed: s.closed,
            watcher: s.watcher.to_string(),
        })
    }

    /// Stops watching: every watch, the index's thread, its tree and its
    /// folder's descriptor are released. Off the event loop: the thread may
    /// be finishing a batch.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        // Later calls fail from here on, even before the promise settles.
        let closing = self.opened().ok().map(|index| (index.begin_close(), index));
        env.spawn_future(async move {
            if let Some((closing, index)) = closing {
                let _ = off_the_loop(move || index.finish_close(closing)).await;
            }
            Ok(())
        })
    }

    /// The indexed folder, as it was named.
    #[napi(getter)]
    pub fn path(&self) -> Option<String> {
        Some(self.opened().ok()?.logical_path.to_string_lossy().into_owned())
    }
}
