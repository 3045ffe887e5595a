//! The live index's watcher on Linux: inotify used directly. Each watch is
//! added on a folder already opened by handle (`/proc/self/fd/N`), so a
//! symlink swapped in is never followed and a path longer than `PATH_MAX` is
//! no obstacle, and each watch descriptor names a folder of the tree by
//! `Handle`, not by path: a folder renamed keeps its watch, and the index's
//! listing of it under its new name points the watch there (the kernel gives
//! the same descriptor for the same folder). Every folder that could not be
//! watched is counted (`unwatched`), and each query lists those again first.
//!
//! A file with more than one name (a hard link) gets a watch of its own:
//! written through a name outside its folder, it raises no event there, but
//! a watch is on the file itself, whatever name is used. Such watches take
//! at most a share of the user's limit (`file_budget`), and give way to a
//! folder's when the limit is reached: a folder not watched costs a listing
//! per query, a file only a `stat`. A file not watched is counted with the
//! folders and looked at again by each query that would show it.
//!
//! Events are read by watch descriptor and given to the keeper by the
//! tree's handles (`Change::InFolder`, `Change::OnFile`), which it places
//! at their paths in the tree as it is then.

use super::{Change, FileWatch, FolderWatches, Waited, Watcher};
use crate::dir::Dir;
use crate::error::Result;
use crate::index::tree::{Handle, Tree};
use crate::path_bytes::os_str;
use crate::sync::lock;
use std::collections::{HashMap, HashSet};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// What is watched: changes to entries, not reads.
const MASK: u32 = libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_MODIFY
    | libc::IN_ATTRIB
    | libc::IN_CLOSE_WRITE
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_ONLYDIR
    | libc::IN_EXCL_UNLINK;

/// What a file's own watch sees: its contents and metadata (link count,
/// mode) changing, through any of its names. Never through a symlink.
const FILE_MASK: u32 = libc::IN_MODIFY | libc::IN_ATTRIB | libc::IN_CLOSE_WRITE | libc::IN_DONT_FOLLOW;

/// The share of the user's inotify watches (`max_user_watches`) the watches
/// on files may take, so that folders, and other programs, keep the rest.
const FILE_SHARE: usize = 4;

/// Folders in a `.git` that are not watched: nothing read for ignore rules
/// lives there, and they change on every commit or fetch.
const GIT_SKIPPED: [&[u8]; 3] = [b"objects", b"logs", b"refs"];

/// The folder a watch is on: a folder of the tree, or one in the `.git` of
/// a folder of the tree (`git`: its path from that folder, `.git/info`).
#[derive(Clone, Debug)]
pub struct WatchTarget {
    pub folder: Handle,
    pub git: Option<Vec<u8>>,
}

/// One event as read: the watch, what happened, and the name in the folder.
pub struct Raw {
    pub wd: i32,
    pub mask: u32,
    pub name: Vec<u8>,
}

/// The watches, by descriptor, and how many name each folder (not its `.git`).
#[derive(Default)]
struct Targets {
    by_wd: HashMap<i32, WatchTarget>,
    folders: HashMap<Handle, u32>,
    /// Folders whose last watch the kernel dropped (`IN_IGNORED`: the
    /// folder was deleted), until the index lists their parent again.
    dropped: HashSet<Handle>,
    /// Watches on files: the tree's files each names (names of one inode).
    files: HashMap<i32, Vec<Handle>>,
    /// Each watched file's watch.
    file_wd: HashMap<Handle, i32>,
}

impl Targets {
    fn insert(&mut self, wd: i32, target: WatchTarget) -> Option<WatchTarget> {
        if target.git.is_none() {
            *self.folders.entry(target.folder).or_default() += 1;
            self.dropped.remove(&target.folder);
        }
        let before = self.by_wd.insert(wd, target);
        if let Some(before) = &before {
            self.uncount(before);
        }
        before
    }

    fn uncount(&mut self, target: &WatchTarget) {
        if target.git.is_none() {
            if let Some(n) = self.folders.get_mut(&target.folder) {
                *n -= 1;
                if *n == 0 {
                    self.folders.remove(&target.folder);
                }
            }
        }
    }

    fn remove(&mut self, wd: i32) -> Option<WatchTarget> {
        let target = self.by_wd.remove(&wd)?;
        self.uncount(&target);
        Some(target)
    }

    fn retain(&mut self, mut keep: impl FnMut(i32, &WatchTarget) -> bool) {
        let gone: Vec<i32> = self.by_wd.iter().filter(|(&wd, t)| !keep(wd, t)).map(|(&wd, _)| wd).collect();
        for wd in gone {
            self.remove(wd);
        }
    }
}

/// The watches made by the first walk before the tree holding their
/// folders was built, by the folder's path from the root (see
/// `FolderWatches::watch_unplaced`), and the folders it could not watch.
#[derive(Default)]
struct Unplaced {
    watched: Vec<(i32, Vec<u8>)>,
    failed: Vec<(Vec<u8>, String)>,
}

pub struct Inotify {
    fd: OwnedFd,
    targets: Mutex<Targets>,
    /// Folders of the tree that could not be watched, with the last reason.
    unwatched: Mutex<(HashSet<Handle>, Option<String>)>,
    /// Files with more than one name that are not watched.
    unwatched_files: Mutex<HashSet<Handle>>,
    /// How many files may have a watch (see `FILE_SHARE`).
    file_budget: usize,
    /// Some file was ever watched or noted as not watched: until then a
    /// file with one name needs no look at the tables (most trees have none).
    any_files: AtomicBool,
    unplaced: Mutex<Unplaced>,
}

impl Inotify {
    pub fn new() -> io::Result<Inotify> {
        // SAFETY: no pointers; the result is checked.
        let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a descriptor the kernel just returned, owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let limit = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
            .ok()
            .and_then(|t| t.trim().parse::<usize>().ok())
            .unwrap_or(8192);
        Ok(Inotify {
            fd,
            targets: Mutex::default(),
            unwatched: Mutex::new((HashSet::new(), None)),
            unwatched_files: Mutex::default(),
            file_budget: limit / FILE_SHARE,
            any_files: AtomicBool::new(false),
            unplaced: Mutex::default(),
        })
    }

    /// Watches the folder open as `dir`: its descriptor, or why not.
    fn add(&self, dir: &Dir) -> io::Result<i32> {
        let path = format!("/proc/self/fd/{}\0", dir.raw_fd());
        // SAFETY: a NUL-terminated path; the result is checked.
        let wd = unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), path.as_ptr().cast(), MASK) };
        if wd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(wd)
    }

    /// Adds a watch on the file `name` of the folder open as `dir`.
    fn add_file(&self, dir: &Dir, name: &[u8]) -> io::Result<i32> {
        let mut path = format!("/proc/self/fd/{}/", dir.raw_fd()).into_bytes();
        path.extend_from_slice(name);
        let path = std::ffi::CString::new(path).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: a NUL-terminated path; the result is checked.
        let wd = unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), path.as_ptr(), FILE_MASK) };
        if wd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(wd)
    }

    /// Stops the watch `wd`.
    fn remove_watch(&self, wd: i32) {
        // SAFETY: plain integers; an error (already gone) is harmless.
        unsafe { libc::inotify_rm_watch(self.fd.as_raw_fd(), wd) };
    }

    /// Takes `file` off the watch `wd`, and stops the watch once it names no file.
    fn forget_file_watch(&self, targets: &mut Targets, wd: i32, file: Handle) {
        let Some(files) = targets.files.get_mut(&wd) else { return };
        files.retain(|&f| f != file);
        if files.is_empty() {
            targets.files.remove(&wd);
            self.remove_watch(wd);
        }
    }

    /// Stops one file's watch (its files are then looked at by each query),
    /// to make room for a folder's; false when there is none.
    fn drop_a_file_watch(&self) -> bool {
        let mut targets = lock(&self.targets);
        let Some(&wd) = targets.files.keys().next() else { return false };
        let files = targets.files.remove(&wd).unwrap_or_default();
        for file in &files {
            targets.file_wd.remove(file);
        }
        self.remove_watch(wd);
        drop(targets);
        lock(&self.unwatched_files).extend(files);
        true
    }

    /// The files a watch on files names (none left in `tree`: all gone),
    /// `None` when it is not a file's; forgets the watch once the kernel
    /// says it is gone (`IN_IGNORED`: every name of the file was removed).
    fn file_target(&self, raw: &Raw) -> Option<Vec<Handle>> {
        let mut targets = lock(&self.targets);
        if raw.mask & libc::IN_IGNORED != 0 {
            let files = targets.files.remove(&raw.wd)?;
            for file in &files {
                targets.file_wd.remove(file);
            }
            return Some(Vec::new());
        }
        targets.files.get(&raw.wd).cloned()
    }

    /// The folder a watch is on, if it still names one; forgets it once the
    /// kernel says the watch is gone (`IN_IGNORED`).
    fn target(&self, raw: &Raw) -> Option<WatchTarget> {
        let mut targets = lock(&self.targets);
        if raw.mask & libc::IN_IGNORED != 0 {
            if let Some(WatchTarget { folder, git: None }) = targets.remove(raw.wd) {
                if !targets.folders.contains_key(&folder) {
                    targets.dropped.insert(folder);
                }
            }
            return None;
        }
        targets.by_wd.get(&raw.wd).cloned()
    }

    /// Waits up to `timeout` for events and reads every one pending.
    pub fn read(&self, timeout: Duration) -> io::Result<Vec<Raw>> {
        let mut poll = libc::pollfd { fd: self.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd; the result is checked.
        let ready = unsafe { libc::poll(&mut poll, 1, timeout.as_millis() as libc::c_int) };
        if ready < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted { Ok(Vec::new()) } else { Err(e) };
        }
        let mut out = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: a buffer of that many bytes; the result is checked.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let mut at = 0usize;
            let head = std::mem::size_of::<libc::inotify_event>();
            while at + head <= n as usize {
                // SAFETY: the kernel wrote whole events; read unaligned.
                let event = unsafe { std::ptr::read_unaligned(buf[at..].as_ptr().cast::<libc::inotify_event>()) };
                let name = &buf[at + head..at + head + event.len as usize];
                let name = name.split(|&b| b == 0).next().unwrap_or_default().to_vec();
                out.push(Raw { wd: event.wd, mask: event.mask, name });
                at += head + event.len as usize;
            }
        }
        Ok(out)
    }

    /// The events read, by what each watch is on now (events of watches
    /// that name nothing any more are let go).
    pub fn changes(&self, raw: Vec<Raw>) -> Vec<Change> {
        let mut changes = Vec::new();
        for event in raw {
            if event.mask & libc::IN_Q_OVERFLOW != 0 {
                let dropped = notify::Event::new(notify::EventKind::Other).set_flag(notify::event::Flag::Rescan);
                changes.push(Change::At(Ok(dropped)));
                continue;
            }
            let kind = kind_of(&event);
            // A file's own watch: the event is at each of its names in the tree.
            if let Some(files) = self.file_target(&event) {
                changes.push(Change::OnFile { files, kind });
                continue;
            }
            let Some(target) = self.target(&event) else { continue };
            changes.push(Change::InFolder { folder: target.folder, git: target.git, name: event.name, kind });
        }
        changes
    }

    /// The watch descriptor on `folder` (tests).
    #[cfg(test)]
    pub fn wd_of(&self, folder: Handle) -> Option<i32> {
        lock(&self.targets).by_wd.iter().find(|(_, t)| t.git.is_none() && t.folder == folder).map(|(&wd, _)| wd)
    }

    /// How many of the tree's files have a watch of their own (tests).
    #[cfg(test)]
    pub fn watched_files(&self) -> usize {
        lock(&self.targets).file_wd.len()
    }

    /// How many watches the kernel holds for this instance (tests).
    #[cfg(test)]
    pub fn kernel_watches(&self) -> usize {
        let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", self.fd.as_raw_fd())).unwrap_or_default();
        info.lines().filter(|l| l.starts_with("inotify wd:")).count()
    }
}

impl Watcher for Inotify {
    fn name(&self) -> &'static str {
        "inotify"
    }

    /// Nothing to start: the first walk watches each folder as it opens it.
    fn start(&self, _root: &Path, _shown: &Path) -> Result<()> {
        Ok(())
    }

    fn wait(&self, timeout: Duration) -> Waited {
        match self.read(timeout) {
            Ok(raw) if raw.is_empty() => Waited::Quiet,
            Ok(raw) => Waited::Changes(self.changes(raw)),
            Err(_) => Waited::Ended,
        }
    }

    fn folder_watches(&self) -> Option<&dyn FolderWatches> {
        Some(self)
    }
}

impl FolderWatches for Inotify {
    fn watch_unplaced(&self, dir: &Dir, rel: &[u8]) {
        let added = self.add(dir);
        let mut unplaced = lock(&self.unplaced);
        match added {
            Ok(wd) => unplaced.watched.push((wd, rel.to_vec())),
            Err(e) => unplaced.failed.push((rel.to_vec(), why(&e))),
        }
    }

    fn place_unplaced(&self, tree: &Tree) {
        let Unplaced { watched, failed } = std::mem::take(&mut *lock(&self.unplaced));
        let mut targets = lock(&self.targets);
        for (wd, rel) in watched {
            match tree.find(&rel) {
                Some(id) => {
                    targets.insert(wd, WatchTarget { folder: tree.handle(id), git: None });
                }
                None => self.remove_watch(wd),
            }
        }
        let mut unwatched = lock(&self.unwatched);
        for (rel, why) in failed {
            if let Some(id) = tree.find(&rel) {
                unwatched.0.insert(tree.handle(id));
                unwatched.1 = Some(why);
            }
        }
    }

    fn watch_folder(&self, dir: &Dir, folder: Handle) -> bool {
        let mut added = self.add(dir);
        // At the limit: a file's watch gives way (see the module's doc).
        if matches!(&added, Err(e) if e.raw_os_error() == Some(libc::ENOSPC)) && self.drop_a_file_watch() {
            added = self.add(dir);
        }
        match added {
            Ok(wd) => {
                lock(&self.unwatched).0.remove(&folder);
                let before = lock(&self.targets).insert(wd, WatchTarget { folder, git: None });
                !matches!(before, Some(WatchTarget { folder: f, git: None }) if f == folder)
            }
            Err(e) => {
                let mut unwatched = lock(&self.unwatched);
                unwatched.0.insert(folder);
                unwatched.1 = Some(why(&e));
                false
            }
        }
    }

    fn watch_git(&self, dir: &Dir, folder: Handle) {
        let Ok(git) = dir.open_dir(std::ffi::OsStr::new(".git")) else { return };
        let mut stack = vec![(git, b".git".to_vec())];
        while let Some((at, rel)) = stack.pop() {
            if let Ok(wd) = self.add(&at) {
                lock(&self.targets).insert(wd, WatchTarget { folder, git: Some(rel.clone()) });
            }
            let mut subs = Vec::new();
            let _ = at.for_each(|name, kind| {
                let name = name.as_encoded_bytes();
                if kind == Some(crate::entry::EntryKind::Dir) && !(rel == b".git" && GIT_SKIPPED.contains(&name)) {
                    subs.push(name.to_vec());
                }
            });
            for name in subs {
                if let Ok(sub) = at.open_dir(os_str(&name)) {
                    stack.push((sub, [&rel[..], b"/", &name].concat()));
                }
            }
        }
    }

    fn was_deleted(&self, folder: Handle) -> bool {
        lock(&self.targets).dropped.contains(&folder)
    }

    fn sweep(&self, tree: &Tree) {
        let mut targets = lock(&self.targets);
        targets.retain(|wd, target| {
            let keep = tree.resolve(target.folder).is_some();
            if !keep {
                self.remove_watch(wd);
            }
            keep
        });
        targets.dropped.retain(|&h| tree.resolve(h).is_some());
        let gone: Vec<(Handle, i32)> =
            targets.file_wd.iter().filter(|(&f, _)| tree.resolve(f).is_none()).map(|(&f, &wd)| (f, wd)).collect();
        for (file, wd) in gone {
            targets.file_wd.remove(&file);
            self.forget_file_watch(&mut targets, wd, file);
        }
        drop(targets);
        lock(&self.unwatched).0.retain(|&h| tree.resolve(h).is_some());
        lock(&self.unwatched_files).retain(|&h| tree.resolve(h).is_some());
    }

    fn remap(&self, old: &Tree, new: &Tree) {
        let same = |h: Handle| old.resolve(h).and_then(|id| new.find(&old.path(id))).map(|id| new.handle(id));
        let mut targets = lock(&self.targets);
        // Files' watches are kept as they are: the caller makes them anew (`clear_files`).
        let mut kept = Targets {
            files: std::mem::take(&mut targets.files),
            file_wd: std::mem::take(&mut targets.file_wd),
            ..Targets::default()
        };
        for (wd, target) in std::mem::take(&mut targets.by_wd) {
            match same(target.folder) {
                Some(folder) => {
                    kept.insert(wd, WatchTarget { folder, git: target.git });
                }
                None => self.remove_watch(wd),
            }
        }
        *targets = kept;
        let mut unwatched = lock(&self.unwatched);
        unwatched.0 = unwatched.0.iter().filter_map(|&h| same(h)).collect();
    }

    fn watched(&self) -> HashSet<Handle> {
        lock(&self.targets).folders.keys().copied().collect()
    }

    fn unwatched_folders(&self) -> Vec<Handle> {
        lock(&self.unwatched).0.iter().copied().collect()
    }

    fn unwatched(&self) -> (usize, Option<String>) {
        let files = lock(&self.unwatched_files).len();
        let unwatched = lock(&self.unwatched);
        (unwatched.0.len() + files, unwatched.1.clone())
    }

    fn watch_file(&self, dir: &Dir, name: &[u8], file: Handle) -> FileWatch {
        self.any_files.store(true, Ordering::Relaxed);
        let mut targets = lock(&self.targets);
        if targets.file_wd.contains_key(&file) {
            return FileWatch::Already;
        }
        // `None`: past this index's share for files.
        let added = match targets.files.len() < self.file_budget {
            true => self.add_file(dir, name).map_err(Some),
            false => Err(None),
        };
        match added {
            Ok(wd) => {
                targets.files.entry(wd).or_default().push(file);
                targets.file_wd.insert(file, wd);
                drop(targets);
                lock(&self.unwatched_files).remove(&file);
                FileWatch::New
            }
            Err(e) => {
                drop(targets);
                lock(&self.unwatched_files).insert(file);
                let why = match e {
                    None => format!(
                        "files with more than one name (hard links) past the share of inotify watches the index gives them ({}, a quarter of fs.inotify.max_user_watches) are looked at again by every call; raise the limit",
                        self.file_budget
                    ),
                    Some(e) => format!("a file with more than one name (a hard link) is not watched, so every call looks at it again: {}", why(&e)),
                };
                lock(&self.unwatched).1 = Some(why);
                FileWatch::Not
            }
        }
    }

    fn unwatch_file(&self, file: Handle) {
        if !self.any_files.load(Ordering::Relaxed) {
            return;
        }
        lock(&self.unwatched_files).remove(&file);
        let mut targets = lock(&self.targets);
        if let Some(wd) = targets.file_wd.remove(&file) {
            self.forget_file_watch(&mut targets, wd, file);
        }
    }

    fn clear_files(&self) {
        let mut targets = lock(&self.targets);
        for &wd in targets.files.keys() {
            self.remove_watch(wd);
        }
        targets.files.clear();
        targets.file_wd.clear();
        drop(targets);
        lock(&self.unwatched_files).clear();
    }

    fn unwatched_among(&self, files: &[Handle]) -> Vec<Handle> {
        let unwatched = lock(&self.unwatched_files);
        match unwatched.is_empty() {
            true => Vec::new(),
            false => files.iter().filter(|f| unwatched.contains(f)).copied().collect(),
        }
    }
}

/// Why a folder is not watched, naming the limit when it is the limit.
pub fn why(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOSPC) => {
            let limit = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
                .map(|t| format!(" = {}", t.trim()))
                .unwrap_or_default();
            format!("the limit on inotify watches is reached (fs.inotify.max_user_watches{limit}): changes in the folders not watched are missed; raise the limit")
        }
        _ => format!("a folder could not be watched: {e}"),
    }
}

/// What an event says happened, as the keeper reads it: a change of
/// metadata (mode, owner, times), or any other.
fn kind_of(raw: &Raw) -> notify::EventKind {
    use notify::event::{MetadataKind, ModifyKind};
    match raw.mask & libc::IN_ATTRIB != 0 {
        true => notify::EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)),
        false => notify::EventKind::Any,
    }
}
