//! The live index's watcher on Linux: inotify used directly. Each watch is
//! added on a folder already opened by handle (`/proc/self/fd/N`), so a
//! symlink swapped in is never followed and a path longer than `PATH_MAX` is
//! no obstacle, and each watch descriptor names a folder of the tree by
//! `Handle`, not by path: a folder renamed keeps its watch, and the index's
//! listing of it under its new name points the watch there (the kernel gives
//! the same descriptor for the same folder). Every folder that could not be
//! watched is counted (`unwatched`), and each query lists those again first.

use super::tree::{Handle, Tree};
use crate::dir::Dir;
use crate::sync::lock;
use std::collections::{HashMap, HashSet};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;
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

/// Folders in a `.git` that are not watched: nothing read for ignore rules
/// lives there, and they change on every commit or fetch.
const GIT_SKIPPED: [&[u8]; 3] = [b"objects", b"logs", b"refs"];

/// The folder a watch is on: a folder of the tree, or one in the `.git` of
/// a folder of the tree (`git`: its path from that folder, `.git/info`).
#[derive(Clone, Debug)]
pub struct Target {
    pub folder: Handle,
    pub git: Option<Vec<u8>>,
}

/// One event as read: the watch, what happened, and the name in the folder.
pub struct Raw {
    pub wd: i32,
    pub mask: u32,
    pub name: Vec<u8>,
}

pub struct Inotify {
    fd: OwnedFd,
    targets: Mutex<HashMap<i32, Target>>,
    /// Folders of the tree that could not be watched, with the last reason.
    unwatched: Mutex<(HashSet<Handle>, Option<String>)>,
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
        Ok(Inotify { fd, targets: Mutex::new(HashMap::new()), unwatched: Mutex::new((HashSet::new(), None)) })
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

    /// Watches the tree's folder `folder`, open as `dir`; true when it was
    /// not watched as that folder before (a new folder, or one renamed).
    pub fn watch_folder(&self, dir: &Dir, folder: Handle) -> bool {
        match self.add(dir) {
            Ok(wd) => {
                lock(&self.unwatched).0.remove(&folder);
                let before = lock(&self.targets).insert(wd, Target { folder, git: None });
                !matches!(before, Some(Target { folder: f, git: None }) if f == folder)
            }
            Err(e) => {
                let mut unwatched = lock(&self.unwatched);
                unwatched.0.insert(folder);
                unwatched.1 = Some(why(&e));
                false
            }
        }
    }

    /// Watches the `.git` folder of the tree's folder `folder` (open as
    /// `dir`) and the folders in it that ignore rules are read from.
    pub fn watch_git(&self, dir: &Dir, folder: Handle) {
        let Ok(git) = dir.open_dir(std::ffi::OsStr::new(".git")) else { return };
        let mut stack = vec![(git, b".git".to_vec())];
        while let Some((at, rel)) = stack.pop() {
            if let Ok(wd) = self.add(&at) {
                lock(&self.targets).insert(wd, Target { folder, git: Some(rel.clone()) });
            }
            let mut subs = Vec::new();
            let _ = at.for_each(|name, kind| {
                let name = name.as_encoded_bytes();
                if kind == Some(crate::entry::EntryKind::Dir) && !(rel == b".git" && GIT_SKIPPED.contains(&name)) {
                    subs.push(name.to_vec());
                }
            });
            for name in subs {
                if let Ok(sub) = at.open_dir(super::os(&name)) {
                    stack.push((sub, [&rel[..], b"/", &name].concat()));
                }
            }
        }
    }

    /// Watches the folder open as `dir` before the tree that will hold it
    /// is built (see `adopt`).
    pub fn watch_before(&self, dir: &Dir) -> Result<i32, String> {
        self.add(dir).map_err(|e| why(&e))
    }

    /// Points the watches made by `watch_before` (and the folders it could
    /// not watch), by path, at the folders of the tree just built.
    pub fn adopt(&self, tree: &Tree, watched: Vec<(i32, Vec<u8>)>, failed: Vec<(Vec<u8>, String)>) {
        let mut targets = lock(&self.targets);
        for (wd, rel) in watched {
            match tree.find(&rel) {
                Some(id) => {
                    targets.insert(wd, Target { folder: tree.handle(id), git: None });
                }
                // SAFETY: plain integers.
                None => unsafe {
                    libc::inotify_rm_watch(self.fd.as_raw_fd(), wd);
                },
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

    /// After the tree was built anew (`new` replacing `old`): each watch
    /// follows its folder's path into `new`; those with no folder there stop.
    pub fn remap(&self, old: &Tree, new: &Tree) {
        let same = |h: Handle| old.resolve(h).and_then(|id| new.find(&old.path(id))).map(|id| new.handle(id));
        let mut targets = lock(&self.targets);
        let mut kept = HashMap::new();
        for (wd, target) in targets.drain() {
            match same(target.folder) {
                Some(folder) => {
                    kept.insert(wd, Target { folder, git: target.git });
                }
                // SAFETY: plain integers.
                None => unsafe {
                    libc::inotify_rm_watch(self.fd.as_raw_fd(), wd);
                },
            }
        }
        *targets = kept;
        let mut unwatched = lock(&self.unwatched);
        unwatched.0 = unwatched.0.iter().filter_map(|&h| same(h)).collect();
    }

    /// The folders of the tree that have a watch.
    pub fn watched(&self) -> HashSet<Handle> {
        lock(&self.targets).values().filter(|t| t.git.is_none()).map(|t| t.folder).collect()
    }

    /// Forgets the watches of folders no longer in `tree` (removed, or
    /// moved out of it) and stops them; drops those folders from `unwatched`.
    pub fn sweep(&self, tree: &Tree) {
        let mut targets = lock(&self.targets);
        targets.retain(|&wd, target| {
            let keep = tree.resolve(target.folder).is_some();
            if !keep {
                // SAFETY: plain integers; an error (already gone) is harmless.
                unsafe { libc::inotify_rm_watch(self.fd.as_raw_fd(), wd) };
            }
            keep
        });
        lock(&self.unwatched).0.retain(|&h| tree.resolve(h).is_some());
    }

    /// The folders of the tree not watched now.
    pub fn unwatched_folders(&self) -> Vec<Handle> {
        lock(&self.unwatched).0.iter().copied().collect()
    }

    /// How many folders of the tree are not watched, and the last reason.
    pub fn unwatched(&self) -> (usize, Option<String>) {
        let unwatched = lock(&self.unwatched);
        (unwatched.0.len(), unwatched.1.clone())
    }

    /// Waits up to `timeout` for events and reads every one pending.
    pub fn wait(&self, timeout: Duration) -> io::Result<Vec<Raw>> {
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

    /// The folder a watch is on, if it still names one; forgets it once the
    /// kernel says the watch is gone (`IN_IGNORED`).
    pub fn target(&self, raw: &Raw) -> Option<Target> {
        let mut targets = lock(&self.targets);
        if raw.mask & libc::IN_IGNORED != 0 {
            targets.remove(&raw.wd);
            return None;
        }
        targets.get(&raw.wd).cloned()
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

/// The event `raw` as the index applies it, at `path` (its folder's path
/// now, and its name).
pub fn as_event(raw: &Raw, path: PathBuf) -> notify::Event {
    use notify::event::{Flag, ModifyKind};
    use notify::EventKind;
    if raw.mask & libc::IN_Q_OVERFLOW != 0 {
        return notify::Event::new(EventKind::Other).set_flag(Flag::Rescan);
    }
    let kind = match raw.mask & libc::IN_ATTRIB != 0 {
        true => EventKind::Modify(ModifyKind::Metadata(notify::event::MetadataKind::Any)),
        false => EventKind::Any,
    };
    notify::Event::new(kind).add_path(path)
}
