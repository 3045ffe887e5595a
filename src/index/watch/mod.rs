//! Where the live index's events come from, behind one `Watcher` trait.
//! The keeper waits on it for changes (`wait`); a watcher that keeps one
//! watch per folder itself, rather than watching the whole folder at once,
//! also offers `FolderWatches`, through which the index tells it which
//! folders (and which files with more than one name) the tree holds, and
//! learns which of them it could not watch.
//!
//! Which watcher an index uses is chosen at open (`WatcherChoice`): the
//! platform's own by default, inotify used directly on Linux (`inotify`),
//! the `notify` crate's recommended watcher elsewhere (FSEvents,
//! ReadDirectoryChangesW), which watches the whole folder by itself; or
//! that recursive watcher on any platform (on Linux, `notify`'s inotify
//! backend: the event path macOS and Windows take, run by Linux tests); or
//! a poller (`poll`), for folders whose file system sends no events
//! (network mounts). A `cfg` here only says which one is the platform's own.

#[cfg(target_os = "linux")]
pub mod inotify;
mod notify;
mod poll;

use super::tree::{Handle, Tree};
use crate::dir::Dir;
use crate::error::{clip, ErrorCode, FindError, Result};
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// An event as the keeper applies it: at a path (or the OS's word that
/// events were dropped, `need_rescan`), or a watch the OS refused.
pub type Message = ::notify::Result<::notify::Event>;

/// A source of file-system events for one index.
pub trait Watcher: Send + Sync {
    /// Starts watching the indexed folder (its real path `root`; `shown`,
    /// as the caller named it, for the error) before the first walk. A
    /// watcher that watches folder by folder does nothing here: the first
    /// walk watches each folder as it opens it (`FolderWatches::watch_unplaced`).
    fn start(&self, root: &Path, shown: &Path) -> Result<()>;

    /// Waits up to `timeout` for changes.
    fn wait(&self, timeout: Duration) -> Waited;

    /// What it watches with, as `stats().watcher` names it.
    fn name(&self) -> &'static str;

    /// Where it is now, for `caught_up`: a watcher whose events come late
    /// (a poller's, with its next look) tells when it has seen every change
    /// made before this moment; one the OS tells at once has nothing to say.
    fn mark(&self) -> u64 {
        0
    }

    /// Whether every change made before `mark` was taken has raised its
    /// event (`settled()` waits for it).
    fn caught_up(&self, _mark: u64) -> bool {
        true
    }

    /// Whether it may name an entry by the path it had before its folder was
    /// moved, and lose its watches of a moved folder: `notify`'s inotify
    /// backend labels what happens in a moved folder by the folder's old
    /// path until it has watched it anew, and keeps its watches by path
    /// while the kernel keeps one per folder, so a folder its walk of a new
    /// folder found there (moved in before the walk) loses its watches when
    /// the move's first half is read. The index then reads events through
    /// the moves reported before them (`events::Moves`), after a folder is
    /// moved has it `renew` its watches and compares the whole tree again,
    /// and has it `renew` each new folder's before that folder's second look
    /// (its walk of a new folder stops at a folder removed meanwhile).
    fn names_stale_paths(&self) -> bool {
        false
    }

    /// Watches `folder` (the root, or a new folder below it) and all below
    /// it anew, once every event already read is handled (see
    /// `names_stale_paths`); before it is listed again.
    fn renew(&self, _folder: &Path) -> Result<()> {
        Ok(())
    }

    /// Its watches folder by folder, for a watcher that keeps them itself;
    /// `None` for one that watches the whole folder by itself (its events
    /// name paths, and it has no folder it could not watch).
    fn folder_watches(&self) -> Option<&dyn FolderWatches> {
        None
    }
}

/// What one wait for events gave.
pub enum Waited {
    /// Nothing came.
    Quiet,
    /// The watcher can report nothing more.
    Ended,
    /// Some changes (none, when what came changes nothing).
    Changes(Vec<Change>),
}

/// One change as a watcher reports it; the keeper places it in the tree.
// `InFolder` and `OnFile` are made only by a watcher that watches folder by
// folder, which not every platform compiles.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub enum Change {
    /// At a path, as `notify` reports it (or its error, or the OS's word
    /// that events were dropped).
    At(Message),
    /// On a folder of the tree that has a watch of its own, or on a folder
    /// in that folder's `.git` (`git`: its path from the folder, `.git/info`),
    /// naming `name` in it (empty: the folder itself).
    InFolder { folder: Handle, git: Option<Vec<u8>>, name: Vec<u8>, kind: ::notify::EventKind },
    /// On a file's own watch: at each of the tree's names of that file
    /// (none once every name is gone).
    OnFile { files: Vec<Handle>, kind: ::notify::EventKind },
}

/// The watches of a watcher that keeps one per folder of the tree, and one
/// per file with more than one name (written through a name outside its
/// folder, such a file raises no event there). Each names the tree's
/// folder or file by `Handle`, not by path, so a renamed folder keeps its
/// watch. What it could not watch is counted, and each call looks at it
/// again (see `Index::relist_unwatched`, `Index::look_at_unwatched_files`).
pub trait FolderWatches: Send + Sync {
    /// The first walk: watches the folder at `rel` (from the root), open as
    /// `dir`, before the tree that will hold it is built (`place_unplaced`).
    fn watch_unplaced(&self, dir: &Dir, rel: &[u8]);

    /// Points the watches made by `watch_unplaced`, and the folders it
    /// could not watch, at the folders of the tree just built.
    fn place_unplaced(&self, tree: &Tree);

    /// Watches the tree's folder `folder`, open as `dir` (before it is
    /// listed); true when it was not watched as that folder before (a new
    /// folder, or one renamed).
    fn watch_folder(&self, dir: &Dir, folder: Handle) -> bool;

    /// Watches the `.git` folder of the tree's folder `folder` (open as
    /// `dir`) and the folders in it that ignore rules are read from.
    fn watch_git(&self, dir: &Dir, folder: Handle);

    /// Whether the folder's watch ended because the folder was deleted: a
    /// folder found under its name since, even with the same inode number
    /// (file systems reuse them at once), is another one.
    fn was_deleted(&self, folder: Handle) -> bool;

    /// Stops the watches of folders and files no longer in `tree`, and
    /// forgets those of them it could not watch.
    fn sweep(&self, tree: &Tree);

    /// After the tree was built anew (`new` replacing `old`): each folder's
    /// watch follows its folder's path into `new`; those with no folder
    /// there stop. Files' watches are left to `clear_files`.
    fn remap(&self, old: &Tree, new: &Tree);

    /// The folders of the tree that have a watch.
    fn watched(&self) -> HashSet<Handle>;

    /// The folders of the tree that could not be watched (past the OS's limit).
    fn unwatched_folders(&self) -> Vec<Handle>;

    /// How many folders and files with more than one name of the tree are
    /// not watched, and the last reason.
    fn unwatched(&self) -> (usize, Option<String>);

    /// Watches the file `name` of the folder open as `dir`, the tree's file
    /// `file`, unless it is watched already or cannot be (then it is noted
    /// as not watched).
    fn watch_file(&self, dir: &Dir, name: &[u8], file: Handle) -> FileWatch;

    /// Stops watching the tree's file `file` (it has one name now, or is
    /// gone), and forgets it was not watched.
    fn unwatch_file(&self, file: Handle);

    /// Stops every file's watch and forgets the files not watched: the tree
    /// they named was replaced.
    fn clear_files(&self);

    /// The files among `files` that have more than one name and no watch.
    fn unwatched_among(&self, files: &[Handle]) -> Vec<Handle>;
}

/// Whether a file is watched (see `FolderWatches::watch_file`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// `Already` and `Not` are made only by a watcher that watches folder by
// folder, which not every platform compiles.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub enum FileWatch {
    /// Watched from now on: what changed before is not known from events.
    New,
    Already,
    /// Past the watcher's share or the OS's limit: calls look at it again.
    Not,
}

/// Which watcher an index uses (`openIndex`'s `watcher`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WatcherChoice {
    /// The platform's own: inotify used directly on Linux, `notify`'s
    /// recommended watcher elsewhere.
    #[default]
    Native,
    /// `notify`'s recommended watcher, watching the whole folder by itself
    /// (on macOS and Windows the same as `Native`).
    Recursive,
    /// `poll::Poller`: every folder and file looked at again each interval,
    /// for file systems that send no events.
    Poll(Duration),
}

/// The watcher `choice` names, for the folder whose real path is `root`
/// (which names the folder in the error).
pub fn new_watcher(choice: WatcherChoice, root: &Path) -> Result<Arc<dyn Watcher>> {
    match choice {
        #[cfg(target_os = "linux")]
        WatcherChoice::Native => match inotify::Inotify::new() {
            Ok(watcher) => Ok(Arc::new(watcher) as Arc<dyn Watcher>),
            Err(e) => Err(cannot_watch(root, &::notify::Error::io(e))),
        },
        #[cfg(not(target_os = "linux"))]
        WatcherChoice::Native => notify::Recursive::recommended().map(|w| Arc::new(w) as Arc<dyn Watcher>),
        WatcherChoice::Recursive => notify::Recursive::recommended().map(|w| Arc::new(w) as Arc<dyn Watcher>),
        WatcherChoice::Poll(every) => Ok(Arc::new(poll::Poller::new(every)) as Arc<dyn Watcher>),
    }
    .map_err(|e| match e.code {
        ErrorCode::FsError if !e.message.starts_with("cannot watch") => FindError::new(
            ErrorCode::FsError,
            format!("cannot watch `{}`: {}", clip(&root.to_string_lossy(), 300), e.message),
        ),
        _ => e,
    })
}

/// The failure to start watching `folder`. inotify answers EMFILE both for
/// its own per-user limit on instances and for the process's open files, so
/// the message names both rather than only "Too many open files".
#[cfg(target_os = "linux")]
pub fn cannot_watch(folder: &Path, e: &::notify::Error) -> FindError {
    let path = folder.to_string_lossy();
    let shown = clip(&path, 300);
    let emfile = matches!(&e.kind, ::notify::ErrorKind::Io(io) if io.raw_os_error() == Some(24));
    let message = match emfile {
        true => {
            let limit = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_instances")
                .map(|t| format!(" = {}", t.trim()))
                .unwrap_or_default();
            format!(
                "cannot watch `{shown}`: the limit on inotify instances (fs.inotify.max_user_instances{limit}; each open index takes one) or on this process's open files is reached; close indexes no longer in use (index.close()), or raise the limit"
            )
        }
        false => format!("cannot watch `{shown}`: {e}"),
    };
    FindError::new(ErrorCode::FsError, message)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn running_out_of_inotify_instances_is_named_as_such() {
        let emfile = ::notify::Error::io(std::io::Error::from_raw_os_error(24));
        let message = cannot_watch(Path::new("/w"), &emfile).message;
        assert!(message.contains("limit on inotify instances") && message.contains("index.close()"), "{message}");
        let other = ::notify::Error::io(std::io::Error::from_raw_os_error(13));
        assert!(cannot_watch(Path::new("/w"), &other).message.starts_with("cannot watch `/w`: "));
    }
}
