//! An open directory and what the walk does relative to it: list it, open a
//! child folder or file, read a child's metadata, read a small ignore file.
//!
//! The walk goes by handle (`openat` and friends), never by path: a child is
//! opened with `O_NOFOLLOW` from its parent's descriptor, so a folder swapped
//! for a symlink between being listed and being opened is refused rather than
//! followed out of the tree, and depth is not limited by `PATH_MAX`. Ignore
//! files are opened the same way and only read when they are regular files,
//! so a FIFO or a link to `/dev/zero` named `.gitignore` cannot hang the walk
//! or fill memory. Repository metadata (a `.git` file, `info/exclude`, git's
//! config files) is read with `read_following`: through symlinks and out of
//! the tree, as git does, but with the same care (regular files only, size
//! capped, no blocking open). Off Unix the same interface works on paths.

use crate::entry::{EntryKind, Meta};
use std::ffi::OsStr;
use std::io;
use std::path::Path;

pub use crate::limits::MAX_IGNORE_FILE_BYTES;

/// A child's type and metadata, read without following a symlink.
#[derive(Debug, Clone, Copy)]
pub struct Stat {
    /// `None` for sockets, FIFOs and devices, which searches never list.
    pub kind: Option<EntryKind>,
    pub meta: Meta,
}

/// A child's `Stat`, with what a live index also keeps track of: its inode
/// number (a folder replaced under the same name is told apart by it; 0
/// where unknown), and whether it is a regular file with more than one name
/// (a hard link: written through a name elsewhere, it changes with no event
/// in its own folder).
#[derive(Debug, Clone, Copy)]
pub struct FullStat {
    pub stat: Stat,
    pub ino: u64,
    pub linked: bool,
}

/// What vouches for a file's contents without reading them: its size,
/// mtime, ctime and inode. Every write sets ctime to the clock, also one
/// whose mtime is set back after, so contents read with a stamp are the
/// contents while the stamp stays the same (but see `index::saved` on
/// writes within one tick of the clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub ino: u64,
}

/// The stamp of an open file as it is now; `None` where the system gives
/// no ctime or inode.
pub fn stamp_of_file(file: &std::fs::File) -> Option<Stamp> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a valid descriptor and room for the answer.
        if unsafe { libc::fstat(file.as_raw_fd(), st.as_mut_ptr()) } != 0 {
            return None;
        }
        // SAFETY: fstat succeeded, so it filled `st`.
        Some(unix::stamp_of(unsafe { &st.assume_init() }))
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        None
    }
}

/// True for the errors that mean "this child is gone or is not a folder any
/// more": it vanished, it is a file, or it became a symlink (`O_NOFOLLOW`).
pub fn is_gone(err: &io::Error) -> bool {
    matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory)
        || err.raw_os_error().is_some_and(is_loop_errno)
}

/// True for the errors that let a file be passed over: it is gone (see
/// `is_gone`), not ours to read, or not a file anything can be read from (a
/// socket, a device without a driver). Anything else (out of descriptors,
/// an I/O error) must fail the search: skipping would answer with files, or
/// ignore rules, silently missing.
pub fn is_skippable(err: &io::Error) -> bool {
    is_gone(err) || err.kind() == io::ErrorKind::PermissionDenied || err.raw_os_error().is_some_and(is_unopenable_errno)
}

#[cfg(unix)]
fn is_unopenable_errno(code: i32) -> bool {
    matches!(code, libc::ENXIO | libc::ENODEV | libc::EOPNOTSUPP | libc::EISDIR)
}

#[cfg(not(unix))]
fn is_unopenable_errno(_: i32) -> bool {
    false
}

#[cfg(unix)]
fn is_loop_errno(code: i32) -> bool {
    code == libc::ELOOP
}

#[cfg(not(unix))]
fn is_loop_errno(_: i32) -> bool {
    false
}

/// How `Dir::open_dir_confined` keeps a path beneath its folder.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beneath {
    /// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` (Linux 5.6
    /// and later), falling back to `Components` when the kernel lacks it.
    Openat2,
    /// One component at a time from the folder with `O_NOFOLLOW` (so no
    /// symlink, magic or not, is followed), then the opened folder's
    /// ancestors compared by identity (`st_dev`, `st_ino`) with the folder.
    Components,
}

#[cfg(unix)]
pub use unix::Dir;

#[cfg(not(unix))]
pub use portable::Dir;

impl Dir {
    /// Opens `relative` below this folder (a path the walk listed) without
    /// following a symlink anywhere on the way.
    pub fn open_beneath(&self, relative: &Path) -> io::Result<std::fs::File> {
        let name = relative.file_name().ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        let folder = self.folder_beneath(relative.parent().unwrap_or(Path::new("")))?;
        folder.as_ref().unwrap_or(self).open_file(name)
    }

    /// Opens the folder `relative` below this one one component at a time,
    /// each from the last, never following a symlink; `None` for "" (this one).
    pub fn folder_beneath(&self, relative: &Path) -> io::Result<Option<Dir>> {
        let mut held: Option<Dir> = None;
        for folder in relative {
            let next = held.as_ref().unwrap_or(self).open_dir(folder)?;
            held = Some(next);
        }
        Ok(held)
    }

    /// The contents of the regular file `name` in this folder, or `None` when
    /// there is none, it is anything but a regular file (a symlink, FIFO or
    /// device), it cannot be read, or it is larger than git reads.
    pub fn read_ignore_file(&self, name: &OsStr) -> Option<Vec<u8>> {
        self.try_read_ignore_file(name).ok().flatten()
    }

    /// `read_ignore_file`, with an error when the file is there but could
    /// not be opened or read for another reason than `is_skippable` (out of
    /// descriptors, an I/O error): a walk must fail then, not lose its rules.
    pub fn try_read_ignore_file(&self, name: &OsStr) -> io::Result<Option<Vec<u8>>> {
        match self.open_file(name) {
            Ok(file) => try_read_capped(file, MAX_IGNORE_FILE_BYTES),
            Err(e) if is_skippable(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The contents of the regular file at `path` (relative to this folder,
    /// `..` and all, or absolute), following symlinks: for repository
    /// metadata (`.git` files, `info/exclude`, `config`), which git reads
    /// through links and which may lie outside the tree. `None` when it is
    /// missing, not a regular file (nothing else is even opened, and a FIFO
    /// swapped in meanwhile does not block), unreadable, or over `cap` bytes.
    pub fn read_following(&self, path: &Path, cap: u64) -> Option<Vec<u8>> {
        self.try_read_following(path, cap).ok().flatten()
    }

    /// `read_following`, with an error as `try_read_ignore_file` gives one.
    pub fn try_read_following(&self, path: &Path, cap: u64) -> io::Result<Option<Vec<u8>>> {
        if self.kind_following(path) != Some(EntryKind::File) {
            return Ok(None);
        }
        match self.open_following(path) {
            Ok(file) => try_read_capped(file, cap),
            Err(e) if is_skippable(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// `Dir::read_following` for a path from the current folder.
#[cfg(unix)]
pub fn read_file_following(path: &Path, cap: u64) -> Option<Vec<u8>> {
    if unix::kind_following_at(libc::AT_FDCWD, path)? != EntryKind::File {
        return None;
    }
    read_capped(unix::open_following_at(libc::AT_FDCWD, path).ok()?, cap)
}

/// `Dir::read_following` for a path from the current folder.
#[cfg(not(unix))]
pub fn read_file_following(path: &Path, cap: u64) -> Option<Vec<u8>> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    read_capped(std::fs::File::open(path).ok()?, cap)
}

/// The contents of `file` when it is a regular file of at most `cap` bytes.
fn read_capped(file: std::fs::File, cap: u64) -> Option<Vec<u8>> {
    try_read_capped(file, cap).ok().flatten()
}

/// `read_capped`, with an error when reading failed other than `is_skippable`.
fn try_read_capped(file: std::fs::File, cap: u64) -> io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let md = file.metadata()?;
    if !md.is_file() || md.len() > cap {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(md.len() as usize);
    match file.take(cap).read_to_end(&mut bytes) {
        Ok(_) => Ok(Some(bytes)),
        Err(e) if is_skippable(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(unix)]
mod unix {
    use super::{Beneath, EntryKind, FullStat, Meta, Stamp, Stat};
    use std::ffi::{CStr, CString, OsStr};
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::AtomicBool;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    use std::sync::atomic::Ordering;

    /// An open directory descriptor.
    #[derive(Debug)]
    pub struct Dir {
        fd: OwnedFd,
        /// Listed before: the read offset must go back to the start (the
        /// Linux listing reads it; the others list through a stream of their own).
        #[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
        listed: AtomicBool,
    }

    fn c_name(name: &OsStr) -> io::Result<CString> {
        CString::new(name.as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
    }

    fn check(fd: libc::c_int) -> io::Result<OwnedFd> {
        if fd < 0 {
            Err(io::Error::last_os_error())
        } else {
            // SAFETY: a descriptor the kernel just returned, owned by nobody else.
            Ok(unsafe { OwnedFd::from_raw_fd(fd) })
        }
    }

    /// The `Stamp` of an `fstat`/`fstatat` answer (the one conversion both use).
    #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
    pub(super) fn stamp_of(st: &libc::stat) -> Stamp {
        let ns = |s: libc::time_t, n: libc::c_long| s as i128 * 1_000_000_000 + n as i128;
        Stamp {
            size: st.st_size as u64,
            mtime_ns: ns(st.st_mtime, st.st_mtime_nsec as libc::c_long),
            ctime_ns: ns(st.st_ctime, st.st_ctime_nsec as libc::c_long),
            ino: st.st_ino as u64,
        }
    }

    /// `fstatat` of `name` from the folder `fd` (or `AT_FDCWD`).
    fn stat_at(fd: libc::c_int, name: &CStr, flags: libc::c_int) -> io::Result<Stat> {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a valid descriptor (or AT_FDCWD), a NUL-terminated name and room for the answer.
        let rc = unsafe { libc::fstatat(fd, name.as_ptr(), st.as_mut_ptr(), flags) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fstatat succeeded, so it filled `st`.
        Ok(stat_of(unsafe { &st.assume_init() }))
    }

    /// `Dir::kind_following` from the folder `fd` (or `AT_FDCWD`).
    pub(super) fn kind_following_at(fd: libc::c_int, path: &Path) -> Option<EntryKind> {
        stat_at(fd, &c_name(path.as_os_str()).ok()?, 0).ok()?.kind
    }

    /// `Dir::open_following` from the folder `fd` (or `AT_FDCWD`).
    pub(super) fn open_following_at(fd: libc::c_int, path: &Path) -> io::Result<std::fs::File> {
        let path = c_name(path.as_os_str())?;
        let flags = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
        // SAFETY: a valid descriptor (or AT_FDCWD) and a NUL-terminated path; the result is checked.
        let fd = unsafe { libc::openat(fd, path.as_ptr(), flags) };
        check(fd).map(std::fs::File::from)
    }

    fn stat_of(st: &libc::stat) -> Stat {
        let kind = match st.st_mode & libc::S_IFMT {
            libc::S_IFDIR => Some(EntryKind::Dir),
            libc::S_IFREG => Some(EntryKind::File),
            libc::S_IFLNK => Some(EntryKind::Symlink),
            _ => None,
        };
        let meta = Meta::from_stat(kind == Some(EntryKind::Dir), st.st_size as u64, st.st_mtime, st.st_mtime_nsec);
        Stat { kind, meta }
    }

    /// The error of a folder found outside the one it was opened beneath.
    fn moved_out() -> io::Error {
        io::Error::from_raw_os_error(libc::EXDEV)
    }

    /// Whether `openat2` is known to be missing (an old kernel, or a
    /// seccomp filter refusing it): then only the component walk is used.
    #[cfg(target_os = "linux")]
    static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

    /// `struct open_how` of `linux/openat2.h` (libc's is non-exhaustive).
    #[cfg(target_os = "linux")]
    #[repr(C)]
    struct OpenHow {
        flags: u64,
        mode: u64,
        resolve: u64,
    }

    /// Opens `relative` beneath `dir` with `openat2(RESOLVE_BENEATH |
    /// RESOLVE_NO_MAGICLINKS)`: the kernel refuses any step out of `dir`
    /// (`..` above it, an absolute symlink: `EXDEV`) and any `/proc` magic
    /// link (`ELOOP`), atomically. `None` when this kernel has no `openat2`.
    #[cfg(target_os = "linux")]
    fn openat2_beneath(dir: &Dir, relative: &Path) -> Option<io::Result<Dir>> {
        if NO_OPENAT2.load(Ordering::Relaxed) {
            return None;
        }
        let path = if relative.as_os_str().is_empty() { OsStr::new(".") } else { relative.as_os_str() };
        let path = match c_name(path) {
            Ok(path) => path,
            Err(e) => return Some(Err(e)),
        };
        let how = OpenHow {
            flags: (libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) as u64,
            mode: 0,
            resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS,
        };
        // SAFETY: a valid descriptor, a NUL-terminated path, and an `open_how` of the size given.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.fd.as_raw_fd(),
                path.as_ptr(),
                &how as *const OpenHow,
                std::mem::size_of::<OpenHow>(),
            )
        };
        if fd < 0 {
            let err = io::Error::last_os_error();
            // ENOSYS: before 5.6; EPERM: a seccomp filter that does not know it;
            // EINVAL/E2BIG: a kernel that does not know these flags.
            if matches!(err.raw_os_error(), Some(libc::ENOSYS | libc::EPERM | libc::EINVAL | libc::E2BIG)) {
                NO_OPENAT2.store(true, Ordering::Relaxed);
                return None;
            }
            return Some(Err(err));
        }
        Some(check(fd as libc::c_int).map(|fd| Dir { fd, listed: AtomicBool::new(false) }))
    }

    impl Dir {
        /// Opens a folder by path, following symlinks (the search root).
        pub fn open(path: &Path) -> io::Result<Dir> {
            let path = c_name(path.as_os_str())?;
            // SAFETY: a NUL-terminated path; the result is checked.
            let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) };
            check(fd).map(|fd| Dir { fd, listed: AtomicBool::new(false) })
        }

        /// Opens the child folder `name`; a symlink is refused (`ELOOP`/`ENOTDIR`).
        pub fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
            let name = c_name(name)?;
            let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
            // SAFETY: a valid descriptor and a NUL-terminated name; the result is checked.
            let fd = unsafe { libc::openat(self.fd.as_raw_fd(), name.as_ptr(), flags) };
            check(fd).map(|fd| Dir { fd, listed: AtomicBool::new(false) })
        }

        /// Opens the child folder `name` only to open what is below it
        /// (`O_PATH` on Linux: search permission suffices, as for a path
        /// lookup; such a handle cannot be listed); a symlink is refused.
        fn open_dir_to_pass(&self, name: &OsStr) -> io::Result<Dir> {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            let access = libc::O_PATH;
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            let access = libc::O_RDONLY;
            let name = c_name(name)?;
            let flags = access | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
            // SAFETY: a valid descriptor and a NUL-terminated name; the result is checked.
            let fd = unsafe { libc::openat(self.fd.as_raw_fd(), name.as_ptr(), flags) };
            check(fd).map(|fd| Dir { fd, listed: AtomicBool::new(false) })
        }

        /// Opens the child `name` for reading; a symlink is refused, and a
        /// FIFO does not block (`O_NONBLOCK`): callers check it is a regular file.
        pub fn open_file(&self, name: &OsStr) -> io::Result<std::fs::File> {
            let name = c_name(name)?;
            let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
            // SAFETY: as in `open_dir`.
            let fd = unsafe { libc::openat(self.fd.as_raw_fd(), name.as_ptr(), flags) };
            check(fd).map(std::fs::File::from)
        }

        /// The child's type and metadata (`fstatat`, not following symlinks).
        pub fn stat(&self, name: &OsStr) -> io::Result<Stat> {
            let name = c_name(name)?;
            self.stat_c(&name)
        }

        fn stat_c(&self, name: &CStr) -> io::Result<Stat> {
            stat_at(self.fd.as_raw_fd(), name, libc::AT_SYMLINK_NOFOLLOW)
        }

        /// The child's whole `fstatat` answer, not following symlinks.
        fn raw_stat(&self, name: &OsStr) -> io::Result<libc::stat> {
            let name = c_name(name)?;
            let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
            // SAFETY: a valid descriptor, a NUL-terminated name and room for the answer.
            let rc = unsafe {
                libc::fstatat(self.fd.as_raw_fd(), name.as_ptr(), st.as_mut_ptr(), libc::AT_SYMLINK_NOFOLLOW)
            };
            if rc != 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: fstatat succeeded, so it filled `st`.
            Ok(unsafe { st.assume_init() })
        }

        /// The child's `Stamp`, when it is a regular file (a symlink is not followed).
        #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
        pub fn stamp(&self, name: &OsStr) -> io::Result<Stamp> {
            let st = self.raw_stat(name)?;
            if st.st_mode & libc::S_IFMT != libc::S_IFREG {
                return Err(io::Error::from(io::ErrorKind::InvalidInput));
            }
            Ok(stamp_of(&st))
        }

        /// `stat`, with what a live index also keeps track of (see `FullStat`).
        pub fn stat_full(&self, name: &OsStr) -> io::Result<FullStat> {
            let st = self.raw_stat(name)?;
            let stat = stat_of(&st);
            #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
            let (ino, links) = (st.st_ino as u64, st.st_nlink as u64);
            Ok(FullStat { stat, ino, linked: stat.kind == Some(EntryKind::File) && links > 1 })
        }

        /// What `path` (from this folder, or absolute) leads to, following
        /// symlinks: a folder, a regular file, or `None` (missing, or another kind).
        pub fn kind_following(&self, path: &Path) -> Option<EntryKind> {
            kind_following_at(self.fd.as_raw_fd(), path)
        }

        /// Opens `path` (from this folder, or absolute) for reading,
        /// following symlinks, without blocking on a FIFO (`O_NONBLOCK`) or
        /// taking a terminal (`O_NOCTTY`): callers check what it is.
        pub fn open_following(&self, path: &Path) -> io::Result<std::fs::File> {
            open_following_at(self.fd.as_raw_fd(), path)
        }

        /// Calls `each` with every child's name and type (`None` for types the
        /// walk never lists). `d_type` answers without a `stat` on most file
        /// systems; where it is unknown, the child is `stat`ed.
        pub fn for_each(&self, mut each: impl FnMut(&OsStr, Option<EntryKind>)) -> io::Result<()> {
            self.read_names(|name, d_type| {
                let bytes = name.to_bytes();
                if bytes == b"." || bytes == b".." {
                    return;
                }
                let kind = match d_type {
                    libc::DT_DIR => Some(EntryKind::Dir),
                    libc::DT_REG => Some(EntryKind::File),
                    libc::DT_LNK => Some(EntryKind::Symlink),
                    libc::DT_UNKNOWN => match self.stat_c(name) {
                        Ok(st) => st.kind,
                        Err(_) => return, // vanished since it was listed
                    },
                    _ => None,
                };
                each(OsStr::from_bytes(bytes), kind);
            })
        }

        /// Every name in the folder with its `d_type`, straight from
        /// `getdents64` into a buffer on the stack: no stream to open,
        /// duplicate or allocate per folder.
        #[cfg(any(target_os = "linux", target_os = "android"))]
        fn read_names(&self, mut each: impl FnMut(&CStr, u8)) -> io::Result<()> {
            let fd = self.fd.as_raw_fd();
            // From the start, whoever listed this folder before (a folder is
            // listed by one thread at a time).
            // SAFETY: a valid descriptor.
            if self.listed.swap(true, Ordering::Relaxed) && unsafe { libc::lseek(fd, 0, libc::SEEK_SET) } < 0 {
                return Err(io::Error::last_os_error());
            }
            let mut buf = [0u8; 32 * 1024];
            loop {
                // SAFETY: a valid descriptor and a writable buffer of the length given.
                let read = unsafe { libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len()) };
                let read = match read {
                    n if n < 0 => return Err(io::Error::last_os_error()),
                    0 => return Ok(()),
                    n => n as usize,
                };
                // Each record: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name (NUL-terminated).
                let mut at = 0;
                while at + 19 < read {
                    let len = usize::from(u16::from_ne_bytes([buf[at + 16], buf[at + 17]]));
                    let record = buf.get(at..at + len).filter(|_| len > 19);
                    let Some(record) = record else {
                        return Err(io::Error::new(io::ErrorKind::InvalidData, "malformed directory record"));
                    };
                    if let Ok(name) = CStr::from_bytes_until_nul(&record[19..]) {
                        each(name, record[18]);
                    }
                    at += len;
                }
            }
        }

        /// Every name in the folder with its `d_type`, through `readdir`.
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        fn read_names(&self, mut each: impl FnMut(&CStr, u8)) -> io::Result<()> {
            // fdopendir takes ownership of its descriptor: give it a duplicate.
            // A duplicate shares the read offset, so the stream is rewound
            // before reading (a folder is listed by one thread at a time;
            // reopening "." instead would need search permission, which a
            // readable but not enterable folder lacks).
            // SAFETY: duplicating a valid descriptor; checked.
            let fd = check(unsafe { libc::fcntl(self.fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) })?;
            let raw = std::os::fd::IntoRawFd::into_raw_fd(fd);
            // SAFETY: `raw` is ours; on success the stream owns it, on failure we close it.
            let stream = unsafe { libc::fdopendir(raw) };
            if stream.is_null() {
                let err = io::Error::last_os_error();
                // SAFETY: fdopendir failed, so `raw` is still ours to close.
                unsafe { libc::close(raw) };
                return Err(err);
            }
            let stream = Stream(stream);
            // SAFETY: a stream we own.
            unsafe { libc::rewinddir(stream.0) };
            loop {
                // readdir reports errors only through errno: clear it first.
                // SAFETY: the thread's errno, and a stream we own.
                let entry = unsafe {
                    *libc::__error() = 0;
                    libc::readdir(stream.0)
                };
                if entry.is_null() {
                    // SAFETY: reading this thread's errno.
                    let errno = unsafe { *libc::__error() };
                    return if errno == 0 { Ok(()) } else { Err(io::Error::from_raw_os_error(errno)) };
                }
                // SAFETY: readdir returned a valid entry, alive until the next call.
                let (name, d_type) = unsafe { (CStr::from_ptr((*entry).d_name.as_ptr()), (*entry).d_type) };
                each(name, d_type);
            }
        }

        /// The folder's descriptor, for calls that take one (a live index
        /// adds its inotify watch through `/proc/self/fd`).
        pub fn raw_fd(&self) -> std::os::fd::RawFd {
            self.fd.as_raw_fd()
        }

        /// What the folder is, whatever path reached it: `(st_dev, st_ino)`.
        pub fn identity(&self) -> io::Result<(u64, u64)> {
            let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
            // SAFETY: a valid descriptor and room for the answer.
            if unsafe { libc::fstat(self.fd.as_raw_fd(), st.as_mut_ptr()) } != 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: fstat succeeded, so it filled `st`.
            let st = unsafe { st.assume_init() };
            #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
            Ok((st.st_dev as u64, st.st_ino as u64))
        }

        /// Opens the folder `relative` below this one so that it cannot lead
        /// anywhere else: see `Beneath`. `relative` must be plain names (no
        /// `..`, not absolute); "" opens this folder again.
        pub fn open_dir_confined(&self, relative: &Path, how: Beneath) -> io::Result<Dir> {
            use std::path::Component;
            if relative.components().any(|c| !matches!(c, Component::Normal(_))) {
                return Err(io::Error::from_raw_os_error(libc::EXDEV));
            }
            if how == Beneath::Openat2 {
                #[cfg(target_os = "linux")]
                if let Some(opened) = openat2_beneath(self, relative) {
                    return opened;
                }
            }
            // The folders on the way are only passed through: like a path
            // lookup, that needs search permission, not read permission.
            let mut names = relative.iter().peekable();
            let mut held: Option<Dir> = None;
            let folder = loop {
                let at = held.as_ref().unwrap_or(self);
                match names.next() {
                    None => break at.open_dir(OsStr::new("."))?,
                    Some(last) if names.peek().is_none() => break at.open_dir(last)?,
                    Some(name) => held = Some(at.open_dir_to_pass(name)?),
                }
            };
            // Each component was opened from the last without following a
            // link, so the chain is this folder's; check it still is (a
            // folder moved out meanwhile), by identity, up to this folder.
            let mut ancestor = None;
            for _ in relative.components() {
                let up = ancestor.as_ref().unwrap_or(&folder).open_dir_to_pass(OsStr::new(".."))?;
                ancestor = Some(up);
            }
            if ancestor.as_ref().unwrap_or(&folder).identity()? == self.identity()? {
                Ok(folder)
            } else {
                Err(moved_out())
            }
        }

        /// The folder's real path, read from the open descriptor (so it names
        /// what was opened, even if the path has changed since).
        pub fn real_path(&self, opened_as: &Path) -> io::Result<PathBuf> {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                let _ = opened_as;
                std::fs::read_link(format!("/proc/self/fd/{}", self.fd.as_raw_fd()))
            }
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            {
                std::fs::canonicalize(opened_as)
            }
        }
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    struct Stream(*mut libc::DIR);

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    impl Drop for Stream {
        fn drop(&mut self) {
            // SAFETY: a stream from fdopendir, closed once.
            unsafe { libc::closedir(self.0) };
        }
    }
}

#[cfg(not(unix))]
mod portable {
    use super::{EntryKind, FullStat, Meta, Stat};
    use std::ffi::OsStr;
    use std::io;
    use std::path::{Path, PathBuf};

    /// A folder by path (no descriptor-relative calls here).
    #[derive(Debug)]
    pub struct Dir {
        path: PathBuf,
    }

    fn stat_of(md: &std::fs::Metadata) -> Stat {
        let kind = EntryKind::from_file_type(md.file_type());
        Stat { kind, meta: Meta::from_fs(kind.unwrap_or(EntryKind::File), md) }
    }

    impl Dir {
        pub fn open(path: &Path) -> io::Result<Dir> {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(io::Error::from(io::ErrorKind::NotADirectory));
            }
            Ok(Dir { path: path.to_path_buf() })
        }

        pub fn open_dir(&self, name: &OsStr) -> io::Result<Dir> {
            let path = self.path.join(name);
            if !std::fs::symlink_metadata(&path)?.is_dir() {
                return Err(io::Error::from(io::ErrorKind::NotADirectory));
            }
            Ok(Dir { path })
        }

        pub fn open_file(&self, name: &OsStr) -> io::Result<std::fs::File> {
            let path = self.path.join(name);
            if std::fs::symlink_metadata(&path)?.file_type().is_symlink() {
                return Err(io::Error::from(io::ErrorKind::InvalidInput));
            }
            std::fs::File::open(path)
        }

        pub fn stat(&self, name: &OsStr) -> io::Result<Stat> {
            std::fs::symlink_metadata(self.path.join(name)).map(|md| stat_of(&md))
        }

        /// No stamp here: nothing vouches for contents unread.
        pub fn stamp(&self, _name: &OsStr) -> io::Result<super::Stamp> {
            Err(io::Error::from(io::ErrorKind::Unsupported))
        }

        /// `stat`; no inode number (0) nor link count here.
        pub fn stat_full(&self, name: &OsStr) -> io::Result<FullStat> {
            self.stat(name).map(|stat| FullStat { stat, ino: 0, linked: false })
        }

        pub fn kind_following(&self, path: &Path) -> Option<EntryKind> {
            let md = std::fs::metadata(self.path.join(path)).ok()?;
            EntryKind::from_file_type(md.file_type()).filter(|k| *k != EntryKind::Symlink)
        }

        pub fn open_following(&self, path: &Path) -> io::Result<std::fs::File> {
            std::fs::File::open(self.path.join(path))
        }

        pub fn for_each(&self, mut each: impl FnMut(&OsStr, Option<EntryKind>)) -> io::Result<()> {
            for entry in std::fs::read_dir(&self.path)? {
                let entry = entry?;
                let kind = entry.file_type().ok().and_then(EntryKind::from_file_type);
                each(&entry.file_name(), kind);
            }
            Ok(())
        }

        pub fn real_path(&self, opened_as: &Path) -> io::Result<PathBuf> {
            std::fs::canonicalize(opened_as)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn scratch(name: &str) -> crate::testing::TempTree {
        crate::testing::TempTree::with(&format!("dir-{name}"), &[("sub/a.txt", b"hello")])
    }

    #[test]
    fn lists_stats_and_opens_children() {
        let root = scratch("list");
        let dir = Dir::open(&root).unwrap();
        let mut seen = Vec::new();
        dir.for_each(|name, kind| seen.push((name.to_owned(), kind))).unwrap();
        assert_eq!(seen, vec![(std::ffi::OsString::from("sub"), Some(EntryKind::Dir))]);
        let mut again = 0;
        dir.for_each(|_, _| again += 1).unwrap();
        assert_eq!(again, 1, "a second listing starts from the beginning");
        let sub = dir.open_dir(OsStr::new("sub")).unwrap();
        let st = sub.stat(OsStr::new("a.txt")).unwrap();
        assert_eq!((st.kind, st.meta.size), (Some(EntryKind::File), 5));
        let folder = dir.folder_beneath(Path::new("sub")).unwrap().unwrap();
        assert_eq!(folder.stat(OsStr::new("a.txt")).unwrap().meta.size, 5);
        assert!(dir.folder_beneath(Path::new("")).unwrap().is_none());
        assert!(dir.open_beneath(Path::new("sub/a.txt")).is_ok());
        assert_eq!(dir.real_path(&root).unwrap(), fs::canonicalize(&root).unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_never_followed() {
        let root = scratch("links");
        std::os::unix::fs::symlink(root.join("sub"), root.join("link")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join(".gitignore")).unwrap();
        let dir = Dir::open(&root).unwrap();
        let err = dir.open_dir(OsStr::new("link")).unwrap_err();
        assert!(is_gone(&err), "{err}");
        assert!(dir.open_beneath(Path::new("link/a.txt")).is_err());
        assert_eq!(dir.stat(OsStr::new("link")).unwrap().kind, Some(EntryKind::Symlink));
        assert!(dir.read_ignore_file(OsStr::new(".gitignore")).is_none());
    }

    #[cfg(unix)]
    #[test]
    fn confined_opens_stay_beneath_by_either_method() {
        let root = scratch("confined");
        fs::create_dir_all(root.join("sub/deeper")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("sub"), root.join("abs-link")).unwrap();
        let dir = Dir::open(&root).unwrap();
        let sub = Dir::open(&root.join("sub/deeper")).unwrap().identity().unwrap();
        for how in [Beneath::Openat2, Beneath::Components] {
            let opened = dir.open_dir_confined(Path::new("sub/deeper"), how).unwrap();
            assert_eq!(opened.identity().unwrap(), sub, "{how:?}");
            let again = dir.open_dir_confined(Path::new(""), how).unwrap();
            assert_eq!(again.identity().unwrap(), dir.identity().unwrap(), "{how:?}");
            for refused in ["../x", "/etc", "sub/../.."] {
                let e = dir.open_dir_confined(Path::new(refused), how).unwrap_err();
                assert_eq!(e.raw_os_error(), Some(libc::EXDEV), "{how:?} {refused}");
            }
            // An absolute symlink is refused by both; a relative one that
            // stays inside only by `openat2` (the component walk refuses every
            // link: the sandbox gives it real paths, which hold none).
            assert!(dir.open_dir_confined(Path::new("abs-link/deeper"), how).is_err(), "{how:?}");
            if how == Beneath::Components {
                assert!(is_gone(&dir.open_dir_confined(Path::new("link"), how).unwrap_err()));
            }
            assert!(is_gone(&dir.open_dir_confined(Path::new("nope"), how).unwrap_err()), "{how:?}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn magic_links_are_refused_by_either_method() {
        // `/proc/self/root` and `/proc/self/cwd` are magic links: they lead to
        // a process's namespace's root and cwd whatever their text says.
        let proc_self = Dir::open(Path::new("/proc/self")).unwrap();
        for how in [Beneath::Openat2, Beneath::Components] {
            for magic in ["root", "cwd", "root/tmp"] {
                let e = proc_self.open_dir_confined(Path::new(magic), how).unwrap_err();
                // openat2: ELOOP; O_NOFOLLOW | O_DIRECTORY on any link: ENOTDIR.
                let code = e.raw_os_error();
                assert!(
                    code == Some(libc::ELOOP) || (how == Beneath::Components && code == Some(libc::ENOTDIR)),
                    "{how:?} {magic}: {e}"
                );
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn ignore_files_that_cannot_be_read_are_errors_unless_gone_or_denied() {
        let root = scratch("try-ignore");
        fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        fs::create_dir(root.join(".ignore")).unwrap();
        let dir = Dir::open(&root).unwrap();
        assert_eq!(dir.try_read_ignore_file(OsStr::new(".gitignore")).unwrap().as_deref(), Some(&b"*.log\n"[..]));
        assert_eq!(dir.try_read_ignore_file(OsStr::new(".ignore")).unwrap(), None, "a folder");
        assert_eq!(dir.try_read_ignore_file(OsStr::new("missing")).unwrap(), None);
        for (code, skipped) in [
            (libc::ENOENT, true),
            (libc::EACCES, true),
            (libc::EPERM, true),
            (libc::ELOOP, true),
            (libc::ENXIO, true),
            (libc::EMFILE, false),
            (libc::ENFILE, false),
            (libc::EIO, false),
            (libc::ENOMEM, false),
        ] {
            assert_eq!(is_skippable(&io::Error::from_raw_os_error(code)), skipped, "errno {code}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_not_read_and_does_not_block() {
        let root = scratch("fifo");
        let fifo = std::ffi::CString::new(root.join(".ignore").into_os_string().into_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let dir = Dir::open(&root).unwrap();
        assert!(dir.read_ignore_file(OsStr::new(".ignore")).is_none());
        assert_eq!(dir.stat(OsStr::new(".ignore")).unwrap().kind, None);
    }

    #[cfg(unix)]
    #[test]
    fn repository_metadata_is_read_through_links_with_care() {
        let root = scratch("following");
        fs::write(root.join("config"), "[core]\n").unwrap();
        std::os::unix::fs::symlink("sub/a.txt", root.join("link")).unwrap();
        let fifo = std::ffi::CString::new(root.join("fifo").into_os_string().into_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let sub = Dir::open(&root.join("sub")).unwrap();
        assert_eq!(sub.read_following(Path::new("../link"), 100).as_deref(), Some(&b"hello"[..]));
        assert_eq!(sub.read_following(&root.join("config"), 100).as_deref(), Some(&b"[core]\n"[..]));
        assert_eq!(sub.read_following(Path::new("../link"), 4), None, "over the cap");
        assert_eq!(sub.read_following(Path::new("../fifo"), 100), None, "a FIFO, without blocking");
        assert_eq!(sub.read_following(Path::new(".."), 100), None, "a folder");
        assert_eq!(sub.read_following(Path::new("../nope"), 100), None);
        assert_eq!(sub.kind_following(Path::new("../link")), Some(EntryKind::File));
        assert_eq!(read_file_following(&root.join("link"), 100).as_deref(), Some(&b"hello"[..]));
        assert_eq!(read_file_following(&root.join("fifo"), 100), None);
    }
}
