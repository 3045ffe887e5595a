//! The live index's watcher for file systems that send no events (network
//! mounts, some container and WSL mounts): every interval it looks at every
//! entry below the folder again and reports each path whose stamp changed
//! (kind, size, mtime, ctime, inode, mode), appeared or went away, as an
//! event naming it; the keeper then lists its folder again, as for any
//! event.
//!
//! Hand-written rather than `notify`'s `PollWatcher`: that one compares
//! mtimes in whole seconds, and only forward, so a second write within the
//! same second, a `chmod`, or a rewrite with the mtime set back raise no
//! event, and an index would answer from a stale picture without a word.
//! Here ctime (which every write and mode change sets) and the inode are
//! compared too.
//!
//! A change is seen by the first look that starts after it: at most two
//! intervals and a look's time later; `settled()` waits for that look to
//! end (`caught_up`), however long the machine's other work makes it.
//! Inside a `.git` only the folder itself and `info/` are looked at: the
//! ignore rules and the repository's configuration the index reads are
//! there.

use super::{Change, Message, Waited, Watcher};
use crate::error::Result;
use crate::sync::lock;
use notify::event::{CreateKind, MetadataKind, ModifyKind, RemoveKind};
use notify::{Event, EventKind};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What a look compares of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    dir: bool,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
    mode: u32,
}

/// Every entry below a folder as one look saw it, by path.
type Look = HashMap<PathBuf, Seen>;

/// The poller: its events, and the thread that looks.
pub struct Poller {
    every: Duration,
    events: Mutex<Receiver<Message>>,
    sender: Mutex<Option<Sender<Message>>>,
    stop: Arc<AtomicBool>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Where the looks and their events are (see `caught_up`).
    progress: Arc<Progress>,
}

/// How far the looks, and the keeper's work on their events, have come.
#[derive(Default)]
struct Progress {
    /// Looks begun.
    begun: AtomicU64,
    /// The last look ended, and the events sent by its end.
    ended: Mutex<(u64, u64)>,
    /// Events sent, taken by the keeper, and applied (all it took before
    /// its latest wait: it waits again only once it applied the last batch).
    sent: AtomicU64,
    taken: AtomicU64,
    applied: AtomicU64,
}

impl Poller {
    pub fn new(every: Duration) -> Poller {
        let (sender, events) = channel();
        Poller {
            every,
            events: Mutex::new(events),
            sender: Mutex::new(Some(sender)),
            stop: Arc::new(AtomicBool::new(false)),
            thread: Mutex::new(None),
            progress: Arc::default(),
        }
    }
}

impl Watcher for Poller {
    fn name(&self) -> &'static str {
        "poll"
    }

    fn mark(&self) -> u64 {
        self.progress.begun.load(Ordering::SeqCst)
    }

    /// A look begun after the mark has ended, and the keeper applied its events.
    fn caught_up(&self, mark: u64) -> bool {
        let (look, sent) = *lock(&self.progress.ended);
        (look > mark && self.progress.applied.load(Ordering::SeqCst) >= sent) || self.stop.load(Ordering::SeqCst)
    }

    /// Takes the first look now (what the first walk sees is what later
    /// looks compare with), then looks again every interval on a thread of
    /// its own (at a call's lowered priority), until dropped.
    fn start(&self, root: &Path, _shown: &Path) -> Result<()> {
        let Some(sender) = lock(&self.sender).take() else { return Ok(()) };
        let (root, every, stop, progress) =
            (root.to_path_buf(), self.every, Arc::clone(&self.stop), Arc::clone(&self.progress));
        let mut before = look(&root);
        let thread = std::thread::Builder::new()
            .name("agent-find-poll".into())
            .spawn(move || {
                crate::thread_priority::lower_this_thread(crate::thread_priority::Lowered::Call);
                while sleep_unless_stopped(every, &stop) {
                    let begun = progress.begun.fetch_add(1, Ordering::SeqCst) + 1;
                    let now = look(&root);
                    for event in differences(&before, &now) {
                        progress.sent.fetch_add(1, Ordering::SeqCst);
                        if sender.send(Ok(event)).is_err() {
                            return;
                        }
                    }
                    before = now;
                    *lock(&progress.ended) = (begun, progress.sent.load(Ordering::SeqCst));
                }
            })
            .map_err(|e| {
                crate::error::FindError::new(crate::error::ErrorCode::FsError, format!("cannot start polling: {e}"))
            })?;
        *lock(&self.thread) = Some(thread);
        Ok(())
    }

    fn wait(&self, timeout: Duration) -> Waited {
        let progress = &self.progress;
        // The keeper waits again only once it applied what it took.
        progress.applied.store(progress.taken.load(Ordering::SeqCst), Ordering::SeqCst);
        let events = lock(&self.events);
        match events.recv_timeout(timeout) {
            Ok(message) => {
                let mut batch = vec![Change::At(message)];
                batch.extend(events.try_iter().map(Change::At));
                progress.taken.fetch_add(batch.len() as u64, Ordering::SeqCst);
                Waited::Changes(batch)
            }
            Err(RecvTimeoutError::Timeout) => Waited::Quiet,
            Err(RecvTimeoutError::Disconnected) => match lock(&self.thread).is_some() {
                true => Waited::Ended,
                // Not started yet: nothing to report.
                false => Waited::Quiet,
            },
        }
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // The thread ends within a step of its sleep; not joined (a drop never waits).
    }
}

/// Sleeps `every` in short steps; false once told to stop.
fn sleep_unless_stopped(every: Duration, stop: &AtomicBool) -> bool {
    let step = Duration::from_millis(20).min(every);
    let mut slept = Duration::ZERO;
    while slept < every {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        std::thread::sleep(step);
        slept += step;
    }
    !stop.load(Ordering::SeqCst)
}

/// Every entry below `root` (not following symlinks), and `root` itself.
fn look(root: &Path) -> Look {
    let mut seen = Look::new();
    if let Some(own) = seen_of(root) {
        seen.insert(root.to_path_buf(), own);
    }
    let mut folders = vec![(root.to_path_buf(), false)];
    while let Some((folder, in_git)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(one) = seen_of(&path) else { continue };
            seen.insert(path.clone(), one);
            let name = entry.file_name();
            match (one.dir, in_git) {
                (true, false) => folders.push((path, name == ".git")),
                // In a `.git`, only `info/`.
                (true, true) if name == "info" && folder.file_name().is_some_and(|n| n == ".git") => {
                    folders.push((path, true))
                }
                _ => {}
            }
        }
    }
    seen
}

fn seen_of(path: &Path) -> Option<Seen> {
    let md = std::fs::symlink_metadata(path).ok()?;
    let ns = |t: std::io::Result<std::time::SystemTime>| {
        t.ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as i128)
    };
    #[cfg(unix)]
    let (ctime_ns, ino, mode) = {
        use std::os::unix::fs::MetadataExt;
        (md.ctime() as i128 * 1_000_000_000 + md.ctime_nsec() as i128, md.ino(), md.mode())
    };
    #[cfg(not(unix))]
    let (ctime_ns, ino, mode) = (ns(md.created()), 0, u32::from(md.permissions().readonly()));
    Some(Seen { dir: md.is_dir(), size: md.len(), mtime_ns: ns(md.modified()), ctime_ns, ino, mode })
}

/// An event for each path that appeared, went away or changed from `before` to `now`.
fn differences(before: &Look, now: &Look) -> Vec<Event> {
    let mut events = Vec::new();
    for (path, seen) in now {
        let kind = match before.get(path) {
            None => EventKind::Create(CreateKind::Any),
            Some(old) if old != seen => EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)),
            Some(_) => continue,
        };
        events.push(Event::new(kind).add_path(path.clone()));
    }
    for path in before.keys().filter(|p| !now.contains_key(*p)) {
        events.push(Event::new(EventKind::Remove(RemoveKind::Any)).add_path(path.clone()));
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TempTree;

    fn paths(events: &[Event]) -> Vec<String> {
        let mut names: Vec<String> = events
            .iter()
            .flat_map(|e| &e.paths)
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_look_sees_what_a_second_poller_would_miss() {
        let tree = TempTree::with("poll", &[("a.txt", b"one"), ("sub/b.txt", b"two"), (".git/info/exclude", b"x")]);
        let first = look(&tree);
        assert!(differences(&first, &look(&tree)).is_empty(), "nothing changed");
        // The same size, the mtime set back: the ctime moved.
        let mtime = std::fs::metadata(tree.join("a.txt")).unwrap().modified().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(tree.join("a.txt"), b"ONE").unwrap();
        std::fs::File::options().write(true).open(tree.join("a.txt")).unwrap().set_modified(mtime).unwrap();
        std::fs::write(tree.join("sub/new.txt"), b"").unwrap();
        std::fs::remove_file(tree.join("sub/b.txt")).unwrap();
        std::fs::write(tree.join(".git/info/exclude"), b"y").unwrap();
        assert_eq!(paths(&differences(&first, &look(&tree))), ["a.txt", "b.txt", "exclude", "new.txt", "sub"]);
        // A mode changed, nothing else.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let second = look(&tree);
            std::fs::set_permissions(tree.join("sub/new.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
            assert_eq!(paths(&differences(&second, &look(&tree))), ["new.txt"]);
        }
    }
}
