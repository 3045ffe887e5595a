//! The live index's watcher where inotify is not used directly (macOS,
//! Windows, and on any platform when asked for): `notify`'s recommended
//! watcher on the whole folder (FSEvents, ReadDirectoryChangesW, inotify).
//! Its events name paths, so they need
//! nothing of the tree, and it keeps no watch per folder: it has no
//! `FolderWatches`, and files with more than one name are not watched on
//! their own.

use super::{Change, Message, Waited, Watcher};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::sync::lock;
use notify::{RecursiveMode, Watcher as _};
use std::path::Path;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long `start` waits at most for the events its own watching raised
/// to stop: on a folder written to all the time they never stop.
const DRAIN_AT_MOST: Duration = Duration::from_millis(500);

/// How long no event must come for those events to count as over: half
/// the quiet `settled()` waits for.
const DRAIN_QUIET: Duration = Duration::from_millis(50);

/// How many times `renew` walks a folder that keeps changing under its walk.
const RENEW_ATTEMPTS: usize = 16;

/// A `notify` watcher on the whole folder, and its events.
pub struct Recursive {
    watcher: Mutex<Box<dyn notify::Watcher + Send>>,
    events: Mutex<Receiver<Message>>,
    name: &'static str,
}

impl Recursive {
    /// `notify`'s recommended watcher for this platform.
    pub fn recommended() -> Result<Recursive> {
        let name = match () {
            _ if cfg!(target_vendor = "apple") => "fsevents",
            _ if cfg!(windows) => "windows",
            _ if cfg!(any(target_os = "linux", target_os = "android")) => "inotify",
            _ => "kqueue",
        };
        Recursive::with(name, |handler, config| {
            Ok(Box::new(notify::RecommendedWatcher::new(handler, config)?) as Box<dyn notify::Watcher + Send>)
        })
    }

    fn with(
        name: &'static str,
        make: impl FnOnce(Box<dyn Fn(Message) + Send>, notify::Config) -> notify::Result<Box<dyn notify::Watcher + Send>>,
    ) -> Result<Recursive> {
        let (sender, events) = channel();
        let handler: Box<dyn Fn(Message) + Send> = Box::new(move |event| {
            let _ = sender.send(event);
        });
        let config = notify::Config::default().with_follow_symlinks(false);
        let watcher = make(handler, config).map_err(|e| FindError::new(ErrorCode::FsError, e.to_string()))?;
        Ok(Recursive { watcher: Mutex::new(watcher), events: Mutex::new(events), name })
    }
}

impl Watcher for Recursive {
    fn name(&self) -> &'static str {
        self.name
    }

    fn names_stale_paths(&self) -> bool {
        self.name == "inotify"
    }

    /// `notify`'s `watch` is answered by its event thread once the events
    /// it is handling are, so the watches it dropped meanwhile are made again.
    /// Its walk of the folder stops at the first folder removed while it
    /// walks (and so does the walk it makes of each new folder, silently),
    /// leaving the rest unwatched: walked again then, up to
    /// `RENEW_ATTEMPTS` times, until one walk ends or the folder is gone.
    /// Only that backend needs it: FSEvents and ReadDirectoryChangesW watch
    /// the whole folder with one stream or handle, and `watch` again would
    /// restart it or add another.
    fn renew(&self, folder: &Path) -> Result<()> {
        if !self.names_stale_paths() {
            return Ok(());
        }
        let mut watcher = lock(&self.watcher);
        let mut last = None;
        for _ in 0..RENEW_ATTEMPTS {
            match watcher.watch(folder, RecursiveMode::Recursive) {
                Ok(()) => return Ok(()),
                Err(e) if matches!(e.kind, notify::ErrorKind::PathNotFound) => {
                    // Gone itself: its parent's events tell of it.
                    if !std::fs::symlink_metadata(folder).is_ok_and(|m| m.is_dir()) {
                        return Ok(());
                    }
                    last = Some(e);
                }
                Err(e) => last = Some(e),
            }
        }
        let why = last.map_or_else(String::new, |e| e.to_string());
        Err(FindError::new(ErrorCode::FsError, format!("cannot watch the folder anew: {why}")))
    }

    fn start(&self, root: &Path, shown: &Path) -> Result<()> {
        if let Err(e) = lock(&self.watcher).watch(root, RecursiveMode::Recursive) {
            return Err(FindError::new(
                ErrorCode::FsError,
                format!("cannot watch `{}` for changes: {e}", clip(&shown.to_string_lossy(), 300)),
            ));
        }
        // The watcher lists the whole tree to add its watches, and every
        // folder opened raises an event it does not read meanwhile: the OS's
        // queue overflows on a large tree. Those events are older than the
        // first walk, which sees what they would say: they are let go. Only
        // for a while: on a folder changed all the time they never stop, and
        // what is left goes to the keeper (at worst one more comparison).
        let events = lock(&self.events);
        let until = Instant::now() + DRAIN_AT_MOST;
        let mut quiet_since = Instant::now();
        while quiet_since.elapsed() < DRAIN_QUIET && Instant::now() < until {
            match events.recv_timeout(Duration::from_millis(5)) {
                Ok(message) if !changes_nothing(&message) => quiet_since = Instant::now(),
                Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        Ok(())
    }

    fn wait(&self, timeout: Duration) -> Waited {
        let events = lock(&self.events);
        match events.recv_timeout(timeout) {
            Ok(message) if changes_nothing(&message) => Waited::Changes(Vec::new()),
            Ok(message) => {
                let mut batch = vec![Change::At(message)];
                batch.extend(events.try_iter().filter(|m| !changes_nothing(m)).map(Change::At));
                Waited::Changes(batch)
            }
            Err(RecvTimeoutError::Timeout) => Waited::Quiet,
            Err(RecvTimeoutError::Disconnected) => Waited::Ended,
        }
    }
}

/// Opening, reading and closing (the index's own listings among them) change nothing.
fn changes_nothing(message: &Message) -> bool {
    let Ok(event) = message else { return false };
    matches!(event.kind, notify::EventKind::Access(_)) && !event.need_rescan()
}
