//! The content layer filled in the background: once the tree is built, the
//! files a default `searchFiles` reads (its own rules, as its option parser
//! makes them: ignored files and always-skipped folders left out) are read and
//! sketched, so the first content search of a session passes over the
//! files that cannot hold a match instead of reading them all.
//!
//! It is work no caller waits for, so it yields to everything: its threads
//! run at the lowest priority (`Lowered::Background`), wait while any call
//! runs (`calls_in_flight`), stop at `close` (or once the index is dropped
//! or broken) and when the sketch cap is reached. Memory is the sketches'
//! own, within the layer's cap; contents are kept only of the files whose
//! sketch rules out little (`Sketch::rules_out_little`: large bundles,
//! which nearly every search would read), within the cache's cap; the
//! first searches fill the cache with the rest of what they read. What it
//! learns goes through the layer's `keep` with the epoch of its run, so a
//! run that overlapped an event is dropped, as a query's is: a content
//! search during the build is as exact as one without it (a file not yet
//! sketched is read).

use super::content::Learnt;
use super::lifecycle::Index;
use super::query::{files_searched, make_visible};
use super::saved::{now_ns, stamp_of};
use crate::calls_in_flight::wait_while_calls;
use crate::content_sketch::{Sketcher, MAX_SKETCHED_FILE_BYTES};
use crate::option_table::SKIPPED_DIRS;
use crate::path_bytes::os_str;
use crate::sync::lock;
use crate::thread_priority::{lower_this_thread, Lowered};
use crate::walk::{thread_count, Excludes, WalkRules};
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// Files a thread reads between looks at calls and at `close`.
const RUN: usize = 64;

/// Where the background build is, for `stats()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildState {
    /// Not started (the tree is being built), or the layer takes no sketches.
    Waiting = 0,
    Running = 1,
    /// Every file a default search reads was looked at.
    Done = 2,
    /// Stopped before the end: the index closed, or the sketch cap was reached.
    Stopped = 3,
}

/// The background build's progress.
#[derive(Debug, Default)]
pub struct Progress {
    state: AtomicU8,
    /// Files a default search reads.
    pub total: AtomicUsize,
    /// Of those, looked at so far (sketched, or passed over as too large or unreadable).
    pub done: AtomicUsize,
}

impl Progress {
    pub fn state(&self) -> BuildState {
        match self.state.load(Ordering::SeqCst) {
            1 => BuildState::Running,
            2 => BuildState::Done,
            3 => BuildState::Stopped,
            _ => BuildState::Waiting,
        }
    }

    /// The build is over (done, or stopped): searches may learn again.
    pub fn settled(&self) -> bool {
        matches!(self.state(), BuildState::Done | BuildState::Stopped)
    }

    fn set(&self, state: BuildState) {
        self.state.store(state as u8, Ordering::SeqCst);
    }
}

/// The background threads, and how to tell them to stop.
#[derive(Default)]
pub struct Background {
    stop: Arc<AtomicBool>,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

impl Background {
    /// Tells the threads to stop; they end within one file.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Waits for the threads to end (after `stop`), unless called from one of them.
    pub fn join(&self) {
        let threads = std::mem::take(&mut *lock(&self.threads));
        for thread in threads {
            if thread.thread().id() != std::thread::current().id() {
                let _ = thread.join();
            }
        }
    }
}

/// The rules of a default `searchFiles`, for an index opened without the
/// option parser's own (`Index::open`, which the binding does not use).
fn default_search_rules() -> WalkRules {
    // As `search::options` makes them with no option given: every name,
    // ignore files and the always-skipped folders applied.
    WalkRules {
        hidden: true,
        gitignore: true,
        exclude: Excludes::default(),
        case_sensitive: false,
        max_depth: None,
        skip_dirs: SKIPPED_DIRS,
        record_ignored: false,
        changed: None,
        tally: false,
    }
}

/// Starts the build of `index`'s content layer: one thread lists the files
/// (at the lowest priority, like the rest), then reads them with
/// `thread_count() - 1` more.
pub fn start(index: &Arc<Index>) {
    if !index.content().wants_sketch() {
        index.status.sketches.set(BuildState::Stopped);
        return;
    }
    let weak = Arc::downgrade(index);
    let stop = Arc::clone(&index.background.stop);
    let lead = std::thread::Builder::new().name("agent-find-sketch".into()).spawn(move || {
        lower_this_thread(Lowered::Background);
        let ended = build_layer(&weak, &stop);
        if let Some(index) = weak.upgrade() {
            index.status.sketches.set(ended);
        }
    });
    match lead {
        Ok(thread) => lock(&index.background.threads).push(thread),
        Err(_) => index.status.sketches.set(BuildState::Stopped),
    }
}

/// The whole build, on the lead thread; how it ended.
fn build_layer(weak: &Weak<Index>, stop: &AtomicBool) -> BuildState {
    wait_while_calls(&|| stop.load(Ordering::SeqCst));
    // The saved sketches first: a search soon after a process starts gains
    // most from them.
    if let Some(index) = weak.upgrade() {
        index.status.sketches.set(BuildState::Running);
        index.load_saved(thread_count().min(index.bounds.threads), &stop_of(stop));
    }
    let files = {
        let Some(index) = weak.upgrade() else { return BuildState::Stopped };
        let rules = index.searched_rules.clone().unwrap_or_else(default_search_rules);
        match files_searched(&index, &rules) {
            Ok(files) => files,
            Err(_) => return BuildState::Stopped,
        }
    };
    if let Some(index) = weak.upgrade() {
        index.status.sketches.total.store(files.len(), Ordering::SeqCst);
    }
    let next = AtomicUsize::new(0);
    let ends: Vec<BuildState> = std::thread::scope(|scope| {
        let threads = weak.upgrade().map_or(1, |index| thread_count().min(index.bounds.threads));
        let helpers: Vec<_> = (1..threads)
            .filter_map(|n| {
                std::thread::Builder::new()
                    .name(format!("agent-find-sketch-{n}"))
                    .spawn_scoped(scope, || {
                        lower_this_thread(Lowered::Background);
                        sketch_files(weak, &files, &next, stop)
                    })
                    .ok()
            })
            .collect();
        let mut ends = vec![sketch_files(weak, &files, &next, stop)];
        ends.extend(helpers.into_iter().map(|h| h.join().unwrap_or(BuildState::Stopped)));
        ends
    });
    match ends.iter().all(|&end| end == BuildState::Done) {
        true => {
            if let Some(index) = weak.upgrade() {
                index.save();
                // The list the first expected search takes (as it would make it).
                if let Some(rules) = &index.searched_rules {
                    wait_while_calls(&stop_of(stop));
                    make_visible(&index, rules);
                }
            }
            BuildState::Done
        }
        false => BuildState::Stopped,
    }
}

fn stop_of(stop: &AtomicBool) -> impl Fn() -> bool + '_ {
    move || stop.load(Ordering::SeqCst)
}

/// One thread's share: runs of files taken in turn until none is left;
/// how the build ended as this thread saw it.
fn sketch_files(
    weak: &Weak<Index>,
    files: &[(Vec<u8>, super::tree::Handle, crate::entry::Meta)],
    next: &AtomicUsize,
    stop: &AtomicBool,
) -> BuildState {
    let mut sketcher = Sketcher::default();
    let mut contents = Vec::new();
    loop {
        if stop.load(Ordering::SeqCst) {
            return BuildState::Stopped;
        }
        wait_while_calls(&|| stop.load(Ordering::SeqCst));
        let start = next.fetch_add(RUN, Ordering::SeqCst);
        if start >= files.len() {
            return BuildState::Done;
        }
        // Held for one run only: a dropped index ends the build.
        let Some(index) = weak.upgrade() else { return BuildState::Stopped };
        let Ok(dir) = index.dir() else { return BuildState::Stopped };
        let (epoch, wants) = {
            let layer = index.content();
            (layer.epoch(), layer.wants_sketch())
        };
        if !wants {
            return BuildState::Stopped;
        }
        let mut learnt = Vec::new();
        let run = &files[start..files.len().min(start + RUN)];
        for (path, handle, meta) in run {
            if stop.load(Ordering::SeqCst) {
                return BuildState::Stopped;
            }
            // An empty file is never opened by a search: nothing to sketch.
            if meta.size == 0 || meta.size > MAX_SKETCHED_FILE_BYTES || index.content().get(*handle, *meta).is_some() {
                continue;
            }
            let Ok(file) = dir.open_beneath(Path::new(os_str(path))) else { continue };
            contents.clear();
            if (&file).take(MAX_SKETCHED_FILE_BYTES + 1).read_to_end(&mut contents).is_err() {
                continue;
            }
            // Kept only when read as long as the tree says the file is: one
            // written to meanwhile is read again once its event comes.
            if contents.len() as u64 == meta.size {
                let sketch = sketcher.sketch(&contents);
                // A file whose filter rules out little (a large bundle) would
                // be read by nearly every search: its contents are kept too,
                // within the cache's cap, so the first search does not.
                let keep = sketch.rules_out_little() && index.content().wants_contents(meta.size);
                learnt.push(Learnt {
                    handle: *handle,
                    meta: *meta,
                    sketch: Some(sketch),
                    contents: keep.then(|| contents.as_slice().into()),
                    stamp: stamp_of(&file, now_ns()).filter(|s| s.size == meta.size),
                });
            }
        }
        index.status.sketches.done.fetch_add(run.len(), Ordering::SeqCst);
        if !learnt.is_empty() {
            index.keep_learnt(epoch, learnt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls_in_flight::CallInFlight;
    use crate::index::IndexOptions;
    use std::time::{Duration, Instant};

    #[test]
    fn the_first_build_waits_while_a_call_runs_then_the_files_a_search_reads_are_sketched() {
        let dir = crate::testing::TempTree::with(
            "index-background",
            &[
                ("src/a.ts", b"needle"),
                ("src/b.ts", b"other"),
                ("e.txt", b""),
                ("node_modules/x/y.js", b"y"),
                (".hidden/h.txt", b"h"),
                ("b.log", b"log"),
                (".gitignore", b"*.log\n"),
            ],
        );
        let call = CallInFlight::begin();
        let (opened, done) = std::sync::mpsc::channel();
        let root = dir.to_path_buf();
        let opening = std::thread::spawn(move || {
            let index = Index::open(root, IndexOptions::default());
            let _ = opened.send(());
            index
        });
        assert!(done.recv_timeout(Duration::from_millis(300)).is_err(), "the first build waits while a call runs");
        drop(call);
        let index = opening.join().unwrap().unwrap();
        let start = Instant::now();
        while index.stats().content_build.0 != BuildState::Done {
            assert!(start.elapsed() < Duration::from_secs(20), "{:?}", index.stats().content_build);
            std::thread::sleep(Duration::from_millis(10));
        }
        let stats = index.stats();
        // src/a.ts, src/b.ts, e.txt, .hidden/h.txt and .gitignore (a search reads hidden
        // names); not node_modules or ignored files.
        assert_eq!((stats.content_build.1, stats.content_build.2), (5, 5));
        assert_eq!(stats.content.sketched_files, 4, "the empty file is not sketched");
        assert_eq!(stats.content.cached_files, 0, "no contents are kept of files a sketch rules out");
        index.close();
        assert_eq!(index.stats().content.sketched_files, 0);
    }

    /// A file too varied for the largest filter (a bundle) is kept whole,
    /// within the cache's cap: nearly every search would read it.
    #[test]
    fn the_contents_of_a_file_a_sketch_rules_out_little_are_kept_within_the_cap() {
        let varied: String = (0..200_000u32).map(|i| char::from_u32(0x4E00 + i % 20_000).unwrap()).collect();
        let dir = crate::testing::TempTree::with(
            "index-background-bundle",
            &[("lib/bundle.js", varied.as_bytes()), ("src/a.ts", b"needle"), ("src/b.ts", b"other")],
        );
        let built = |contents: usize| {
            let caps = crate::index::ContentCaps { contents, ..Default::default() };
            let index = Index::open(dir.to_path_buf(), IndexOptions { caps, ..IndexOptions::default() }).unwrap();
            let start = Instant::now();
            while index.stats().content_build.0 != BuildState::Done {
                assert!(start.elapsed() < Duration::from_secs(20), "{:?}", index.stats().content_build);
                std::thread::sleep(Duration::from_millis(10));
            }
            let size = index.stats().content;
            index.close();
            (size.sketched_files, size.cached_files, size.cached_bytes)
        };
        assert_eq!(built(1 << 20), (3, 1, varied.len()));
        assert_eq!(built(1000), (3, 0, 0), "not past the cap");
    }
}
