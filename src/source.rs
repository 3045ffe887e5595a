//! What a search walks, behind one interface: the local disk, a host's
//! storage (a JS reader) or a live index. `Source` is the caller's choice;
//! `Source::open` confines the search path to the roots and opens it in that
//! backend, giving a `Root`; `walk` runs that backend's engine with the one
//! `Gate` of `walk`; `Root::read_one` and `Root::read_each` give file
//! contents; `Source::display` is how the search directory shows.
//! `find` and `search` reach the backends only through here: a new backend
//! is a variant of `Source` and `Backend` and its engine, nothing else.

use crate::cancel::Cancel;
use crate::dir::Dir;
use crate::entry::EntryKind;
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::index::{query, IndexRef};
use crate::sandbox::{
    check_roots, not_a_dir, open_confined, open_search_dir, outside_roots, real_path, search_path_error, Asked,
    CwdBase, Scope,
};
use crate::storage::{block_on, in_flight, is_skipped, join, reader_failed, StorageRef};
use crate::walk::{walk_dir, walk_storage, Collector, Entry, Keep, Screen, WalkRules, Walked};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What a search walks.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Source {
    /// The local disk.
    #[default]
    Disk,
    /// A host's storage (a JS reader).
    Storage(StorageRef),
    /// A live index of a local folder (see `index`).
    Index(IndexRef),
}

/// The opened search directory: where its entries come from, and its path
/// (real on disk; logical in a storage and an index) for messages and, on
/// disk, the ignore rules above it (an index's are those of the real folder,
/// see `folder_on_disk`).
#[derive(Debug)]
pub struct Root {
    pub backend: Backend,
    pub path: PathBuf,
}

/// An opened backend.
#[derive(Debug, Clone)]
pub enum Backend {
    /// The local disk, by handle from this open folder.
    Disk(Arc<Dir>),
    /// A host's storage, by path.
    Storage(StorageRef),
    /// A live index, from the folder at this path relative to its root.
    Index(IndexRef, Vec<u8>),
}

/// A file's contents as its backend gives them: a file opened on disk
/// (`Err` when it could not be, which a search skips), bytes a host's
/// storage read, or a large file of a storage that reads ranges, read in
/// chunks as the search consumes it.
pub enum Contents {
    Opened(std::io::Result<std::fs::File>),
    Bytes(Vec<u8>),
    Chunks(Chunks),
}

impl Contents {
    /// For chunks: what stopped the reading, to check once the scan is done
    /// (a scan sees a failed read as an unreadable file, which it skips).
    pub fn failure(&self) -> Option<ChunkFailure> {
        match self {
            Contents::Chunks(chunks) => Some(chunks.failure.clone()),
            _ => None,
        }
    }
}

/// The most bytes a storage that reads ranges has in flight while the
/// contents of many files are read at once: each read asks for at most
/// this divided by the storage's `concurrency` (within `MIN_CHUNK` and
/// `CHUNK`).
const BYTES_IN_FLIGHT: u64 = 32 << 20;
const MIN_CHUNK: u64 = 64 << 10;
/// How much of a large file one read asks for.
const CHUNK: u64 = 1 << 20;

/// A file of a storage, read `CHUNK` bytes at a time as `Read` asks, each
/// wait bounded by the call's cancel. A failure other than "gone" or
/// "denied" (which make the file unreadable, so skipped) is kept in
/// `failure` for the caller to raise.
pub struct Chunks {
    storage: StorageRef,
    path: String,
    offset: u64,
    buf: Vec<u8>,
    at: usize,
    ended: bool,
    cancel: Cancel,
    failure: ChunkFailure,
}

/// What stopped a `Chunks` (shared with the caller, who checks it after the scan).
#[derive(Clone, Default)]
pub struct ChunkFailure(Arc<Mutex<Option<FindError>>>);

impl ChunkFailure {
    /// `Err` with what stopped the reading, if something other than a vanished file did.
    pub fn check(&self) -> Result<()> {
        match self.0.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn set(&self, e: FindError) -> std::io::Error {
        let message = e.message.clone();
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
        std::io::Error::other(message)
    }
}

impl Chunks {
    fn new(storage: &StorageRef, path: String, cancel: &Cancel) -> Chunks {
        Chunks {
            storage: storage.clone(),
            path,
            offset: 0,
            buf: Vec::new(),
            at: 0,
            ended: false,
            cancel: cancel.clone(),
            failure: ChunkFailure::default(),
        }
    }
}

/// A file's contents read in order, which a search can read again from the
/// start (the second pass over a file with an over-long line, see
/// `search::content`).
pub trait Rewind: std::io::Read {
    fn rewind_to_start(&mut self) -> std::io::Result<()>;
}

impl Rewind for &std::fs::File {
    fn rewind_to_start(&mut self) -> std::io::Result<()> {
        std::io::Seek::seek(self, std::io::SeekFrom::Start(0)).map(|_| ())
    }
}

impl Rewind for std::io::Cursor<&[u8]> {
    fn rewind_to_start(&mut self) -> std::io::Result<()> {
        self.set_position(0);
        Ok(())
    }
}

impl Rewind for Chunks {
    fn rewind_to_start(&mut self) -> std::io::Result<()> {
        (self.offset, self.buf, self.at, self.ended) = (0, Vec::new(), 0, false);
        Ok(())
    }
}

impl std::io::Read for Chunks {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.buf.len() {
            if self.ended {
                return Ok(0);
            }
            let asked = self.storage.read_range(&self.path, self.offset, CHUNK);
            let bytes = match block_on(asked, &self.cancel) {
                Err(stopped) => return Err(self.failure.set(stopped)),
                Ok(Err(e)) if is_unreadable(&e) => return Err(e),
                Ok(Err(e)) => return Err(self.failure.set(reader_failed(&self.path, &e))),
                Ok(Ok(bytes)) => bytes,
            };
            if bytes.len() as u64 > CHUNK {
                return Err(self.failure.set(too_long(&self.path, bytes.len(), CHUNK)));
            }
            self.ended = (bytes.len() as u64) < CHUNK;
            self.offset += bytes.len() as u64;
            (self.buf, self.at) = (bytes, 0);
            if self.buf.is_empty() {
                return Ok(0);
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A ranged read that answered more than it was asked for.
fn too_long(path: &str, got: usize, asked: u64) -> FindError {
    FindError::new(
        ErrorCode::FsError,
        format!(
            "the reader answered {got} bytes for read('{}', {{ offset, length: {asked} }}); a ranged read returns at most `length` bytes",
            clip(path, 300)
        ),
    )
}

impl Root {
    /// The open folder, for a local tree.
    pub fn local_dir(&self) -> Option<&Dir> {
        match &self.backend {
            Backend::Disk(dir) => Some(dir),
            Backend::Storage(_) | Backend::Index(..) => None,
        }
    }

    /// The folder of the local disk the search runs in, where a repository
    /// holding it is looked for: the search folder on disk, or a live
    /// index's folder below its root; `None` for a host's storage.
    pub fn repository_folder(&self) -> Option<PathBuf> {
        match &self.backend {
            Backend::Disk(_) => Some(self.path.clone()),
            Backend::Index(index, rel) => Some(index.real_path().join(crate::path_bytes::os_str(rel))),
            Backend::Storage(_) => None,
        }
    }

    /// The version of the tree a live index answers from: its identity and
    /// the generation of its tree; `None` off an index, where no tree is kept.
    pub fn tree_version(&self) -> Option<(u64, u64)> {
        match &self.backend {
            Backend::Index(index, _) => Some(index.generation()),
            Backend::Disk(_) | Backend::Storage(_) => None,
        }
    }

    /// The search folder opened on the local disk, to read its ignore files
    /// again, with its real path: the walk's own handle on disk, a new one
    /// for a live index's folder; `None` for a host's storage (or a folder
    /// that no longer opens). An index's `path` is the search path as
    /// written, which may pass through symlinks: the ignore files above
    /// and the labels relative to the folder are those of where it leads,
    /// as on disk.
    pub fn folder_on_disk(&self) -> Option<(Arc<Dir>, PathBuf)> {
        match &self.backend {
            Backend::Disk(dir) => Some((Arc::clone(dir), self.path.clone())),
            Backend::Index(index, rel) => {
                let real = index.real_path().join(crate::path_bytes::os_str(rel));
                Dir::open(&real).ok().map(|dir| (Arc::new(dir), real))
            }
            Backend::Storage(_) => None,
        }
    }

    /// Whether a walk's selector opens files itself (`Entry::open`, on the
    /// walker threads); if not (a storage), their contents come after the
    /// walk, through `read_each`.
    pub fn opens_in_walk(&self) -> bool {
        matches!(self.backend, Backend::Disk(_) | Backend::Index(..))
    }

    /// The contents of the file at `relative` (from the root, its real
    /// name); `None` when a storage says it vanished or cannot be read.
    /// Waiting for a storage ends when `cancel` stops the call.
    pub fn read_one(&self, relative: &Path, cancel: &Cancel) -> Result<Option<Contents>> {
        match &self.backend {
            Backend::Storage(storage) if storage.ranges() => {
                Ok(Some(Contents::Chunks(Chunks::new(storage, self.storage_path(relative), cancel))))
            }
            Backend::Storage(storage) => {
                let path = self.storage_path(relative);
                match block_on(storage.read(&path), cancel)? {
                    Ok(bytes) => Ok(Some(Contents::Bytes(bytes))),
                    Err(e) if is_unreadable(&e) => Ok(None),
                    Err(e) => Err(reader_failed(&path, &e)),
                }
            }
            _ => Ok(Some(Contents::Opened(self.open_on_disk(relative)))),
        }
    }

    /// Hands the contents of each file of `items` (`relative` names its
    /// path) to `each`, in the order they arrive: on disk one after the
    /// other, in a storage with up to its `concurrency` reads in flight.
    /// Files that vanished or cannot be read are passed over; any other
    /// failure of a storage fails the call. A storage that reads ranges is
    /// asked for the first chunk of each file; the files longer than that
    /// are then read chunk by chunk, one at a time, so the bytes in flight
    /// stay bounded whatever the files' sizes.
    pub fn read_each<T: Send + 'static>(
        &self,
        items: Vec<T>,
        relative: impl Fn(&T) -> &Path,
        cancel: &Cancel,
        mut each: impl FnMut(T, Contents) -> Result<()>,
    ) -> Result<()> {
        let Backend::Storage(storage) = &self.backend else {
            for (i, item) in items.into_iter().enumerate() {
                if i % 64 == 0 {
                    cancel.check()?;
                }
                let opened = self.open_on_disk(relative(&item));
                each(item, Contents::Opened(opened))?;
            }
            return Ok(());
        };
        let ranges = storage.ranges();
        let probe = (BYTES_IN_FLIGHT / storage.concurrency().max(1) as u64).clamp(MIN_CHUNK, CHUNK);
        let start = |item: T| {
            let (storage, path) = (storage.clone(), self.storage_path(relative(&item)));
            async move {
                let read = match ranges {
                    true => storage.read_range(&path, 0, probe).await,
                    false => storage.read(&path).await,
                };
                (read, path, item)
            }
        };
        let mut longer = Vec::new();
        let reading = in_flight(storage.concurrency(), items, cancel, start, |(read, path, item), _| match read {
            Ok(bytes) if ranges && bytes.len() as u64 > probe => Err(too_long(&path, bytes.len(), probe)),
            // Longer than the first chunk: read again in chunks below (not kept, which would hold a chunk per file).
            Ok(bytes) if ranges && bytes.len() as u64 == probe => {
                longer.push((item, path));
                Ok(())
            }
            Ok(bytes) => each(item, Contents::Bytes(bytes)),
            Err(e) if is_unreadable(&e) => Ok(()),
            Err(e) => Err(reader_failed(&path, &e)),
        });
        block_on(reading, cancel)??;
        for (item, path) in longer {
            let chunks = Chunks::new(storage, path, cancel);
            let failure = chunks.failure.clone();
            each(item, Contents::Chunks(chunks))?;
            failure.check()?;
        }
        Ok(())
    }

    /// The path in a storage's namespace of the file at `relative`.
    fn storage_path(&self, relative: &Path) -> String {
        join(&self.path.to_string_lossy(), &relative.to_string_lossy())
    }

    /// Opens a file below the root on disk (a local tree, or a live index's folder).
    fn open_on_disk(&self, relative: &Path) -> std::io::Result<std::fs::File> {
        match &self.backend {
            Backend::Disk(dir) => dir.open_beneath(relative),
            Backend::Index(index, rel) => index.open_file(rel, relative),
            Backend::Storage(_) => Err(std::io::Error::from(std::io::ErrorKind::Unsupported)),
        }
    }
}

/// A storage's answer for a file that is passed over, as a vanished or
/// unreadable file is on disk.
fn is_unreadable(e: &std::io::Error) -> bool {
    is_skipped(e) || e.kind() == std::io::ErrorKind::IsADirectory
}

#[cfg(test)]
impl Root {
    /// A local root opened as it is, without `Source::open`'s checks.
    pub fn open_local(path: &Path) -> std::io::Result<Root> {
        let dir = Dir::open(path)?;
        let path = dir.real_path(path)?;
        Ok(Root { backend: Backend::Disk(Arc::new(dir)), path })
    }
}

impl Source {
    /// Where `cwd` starts in this source (see `CwdBase`).
    pub fn cwd_base(&self) -> CwdBase {
        match self {
            Source::Disk => CwdBase::Process,
            Source::Storage(_) => CwdBase::StorageRoot,
            Source::Index(index) => CwdBase::Folder(index.logical_path.clone()),
        }
    }

    /// Confines the path to the roots, then opens it: the directory to walk.
    /// On disk the roots are checked on the path as written and resolved
    /// (for the clearest error), then by identity: the folder is opened
    /// again beneath the root's handle and must be the same folder (see
    /// `sandbox::open_confined`), so neither a symlink flipped in between
    /// nor a path string that lies can lead outside. Waiting for a storage
    /// ends when `cancel` stops the call.
    pub fn open(&self, scope: &Scope, cancel: &Cancel) -> Result<Root> {
        match self {
            Source::Disk => {}
            Source::Storage(storage) => return self.open_in(storage, scope, cancel),
            Source::Index(index) => return self.open_in_index(index, scope),
        }
        open_on_disk(scope)
    }

    /// `open` in a storage. The walk never follows a symlink there, and the
    /// storage cannot say where one leads: a search path that is a symlink is
    /// refused, and with `roots`, so is one that passes through a symlink
    /// below its root (the storage's `list` might follow it out).
    fn open_in(&self, storage: &StorageRef, scope: &Scope, cancel: &Cancel) -> Result<Root> {
        let mut checked: Vec<PathBuf> = vec![scope.logical_path.clone()];
        if let Some(roots) = &scope.roots {
            let Some(root) =
                roots.iter().filter(|r| scope.logical_path.starts_with(r)).max_by_key(|r| r.as_os_str().len())
            else {
                return Err(outside_roots(&scope.logical_path, roots, false));
            };
            let below_root = scope.logical_path.ancestors().skip(1).take_while(|a| a != root);
            checked.extend(below_root.map(Path::to_path_buf));
        }
        let shown = clip(&self.display(scope), 300).into_owned();
        let start = |i: usize| {
            let (storage, path) = (storage.clone(), checked[i].to_string_lossy().into_owned());
            async move { (i, storage.stat(&path).await) }
        };
        let mut answers = Vec::new();
        let asking = in_flight(storage.concurrency(), (0..checked.len()).collect(), cancel, start, |answer, _| {
            answers.push(answer);
            Ok(())
        });
        block_on(asking, cancel)??;
        answers.sort_by_key(|(i, _)| *i);
        let kinds = answers
            .into_iter()
            .map(|(_, stat)| stat.map(|s| s.kind).map_err(|e| search_path_error(&shown, &e, Asked::Reader)))
            .collect::<Result<Vec<_>>>()?;
        // A way out of the roots comes first, whatever the path itself is.
        let through_link = kinds.iter().skip(1).any(|k| *k == Some(EntryKind::Symlink));
        match (kinds[0], &scope.roots) {
            (_, Some(roots)) if through_link => return Err(outside_roots(&scope.logical_path, roots, true)),
            (Some(EntryKind::Symlink), Some(roots)) => return Err(outside_roots(&scope.logical_path, roots, true)),
            (Some(EntryKind::Symlink), None) => {
                return Err(FindError::new(
                    ErrorCode::NotADir,
                    format!("search path `{shown}` is a symlink in the reader, and the walk follows no symlink; pass the folder it leads to"),
                ))
            }
            (Some(EntryKind::File), _) => return Err(not_a_dir(&shown)),
            _ => {}
        }
        Ok(Root { backend: Backend::Storage(storage.clone()), path: scope.logical_path.clone() })
    }

    /// `open` in a live index: the path must lie in the indexed folder, as
    /// written and where it leads.
    fn open_in_index(&self, index: &IndexRef, scope: &Scope) -> Result<Root> {
        let outside = |how: &str| {
            FindError::new(
                ErrorCode::OutsideRoot,
                format!(
                    "`{}` {how} the index's folder `{}`; pass a `path` inside it (or search without the index)",
                    clip(&self.display(scope), 300),
                    clip(&index.logical_path.to_string_lossy(), 300)
                ),
            )
        };
        if !scope.logical_path.starts_with(&index.logical_path) {
            return Err(outside("is outside"));
        }
        if let Some(roots) = &scope.roots {
            check_roots(&scope.logical_path, roots)?;
        }
        let shown = clip(&self.display(scope), 300).into_owned();
        let tree = index.read_for_call()?;
        // The tree holds what is there, symlinks as themselves: a folder
        // found as written needs no look at the disk; a search path through
        // a symlink is looked up where it leads, as on disk.
        let written = scope.logical_path.strip_prefix(&index.logical_path).unwrap_or(Path::new(""));
        let written = written.as_os_str().as_encoded_bytes();
        let rel = match tree.find(written).map(|id| tree.node(id).kind) {
            Some(EntryKind::Dir) => written.to_vec(),
            _ => {
                let real = real_path(&scope.logical_path);
                let Ok(rel) = real.strip_prefix(index.real_path()) else {
                    return Err(outside("leads (through a symlink) outside"));
                };
                rel.as_os_str().as_encoded_bytes().to_vec()
            }
        };
        match tree.find(&rel).map(|id| tree.node(id).kind) {
            // Not held: gone, or below a folder the index may not list (mode
            // --x) that a path still passes through. Asked on disk and walked
            // there, as find does; the error, if any, is find's.
            None => {
                drop(tree);
                open_on_disk(scope)
            }
            Some(EntryKind::Dir) => {
                Ok(Root { backend: Backend::Index(index.clone(), rel), path: scope.logical_path.clone() })
            }
            Some(_) => Err(not_a_dir(&shown)),
        }
    }

    /// The search directory as results and messages show it: the logical
    /// path, except in a plain (not mounted) storage, where it keeps relative
    /// POSIX syntax: `docs`, and `.` for the storage's root.
    pub fn display(&self, scope: &Scope) -> String {
        match self {
            Source::Storage(storage) if !storage.mounted() => relative_to_storage_root(&scope.logical_path),
            _ => scope.logical(),
        }
    }
}

/// The search directory on disk, confined to the roots if there are any.
fn open_on_disk(scope: &Scope) -> Result<Root> {
    let (dir, path) = match &scope.roots {
        Some(roots) => open_confined(&scope.logical_path, roots)?,
        None => open_search_dir(&scope.logical_path)?,
    };
    Ok(Root { backend: Backend::Disk(Arc::new(dir)), path })
}

/// A storage path (`/docs/a`) relative to the storage's root (`docs/a`).
fn relative_to_storage_root(path: &Path) -> String {
    let text = path.to_string_lossy();
    match text.trim_start_matches('/') {
        "" => ".".to_string(),
        relative => relative.to_string(),
    }
}

/// Walks the root. `new_collector` makes a collector for each thread of
/// the walk (see `Collector`); the walk returns what each finished with.
pub fn collect<C, M>(root: &Root, rules: &WalkRules, cancel: &Cancel, new_collector: M) -> Result<Walked<C::Out>>
where
    C: Collector,
    M: Fn() -> C + Sync,
{
    collect_screened(root, rules, cancel, None, new_collector)
}

/// `collect`, where a live index need not offer the files whose sketch
/// `screen` rules out (see `index::query::walk`).
fn collect_screened<C, M>(
    root: &Root,
    rules: &WalkRules,
    cancel: &Cancel,
    screen: Option<Screen>,
    new_collector: M,
) -> Result<Walked<C::Out>>
where
    C: Collector,
    M: Fn() -> C + Sync,
{
    match &root.backend {
        Backend::Disk(dir) => walk_dir(dir, &root.path, rules, cancel, new_collector),
        Backend::Storage(storage) => walk_storage(storage, &root.path, rules, cancel, new_collector()),
        Backend::Index(index, rel) => {
            crate::walk::gated(rules, cancel, |gate| query::walk(index, rel, &root.path, gate, screen, new_collector))
        }
    }
}

/// Walks the root with a selector per thread: given each entry below the
/// root, with its relative path and kind, it returns what to keep.
pub fn walk<T, M, S>(root: &Root, rules: &WalkRules, cancel: &Cancel, new_selector: M) -> Result<Walked<T>>
where
    T: Send,
    M: Fn() -> S + Sync,
    S: FnMut(&Path, EntryKind, &Entry) -> Option<T> + Send,
{
    walk_screened(root, rules, cancel, None, new_selector)
}

/// `walk`, where a live index need not offer the files whose sketch
/// `screen` rules out (see `index::query::walk`).
pub fn walk_screened<T, M, S>(
    root: &Root,
    rules: &WalkRules,
    cancel: &Cancel,
    screen: Option<Screen>,
    new_selector: M,
) -> Result<Walked<T>>
where
    T: Send,
    M: Fn() -> S + Sync,
    S: FnMut(&Path, EntryKind, &Entry) -> Option<T> + Send,
{
    let walked = collect_screened(root, rules, cancel, screen, || Keep::new(new_selector()))?;
    Ok(walked.map_found(|parts| parts.into_iter().flatten().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::Shared;
    use crate::storage::memory::MemoryStorage;
    use std::io::Read;
    use std::sync::atomic::Ordering;

    fn ranged(files: &[(&str, Vec<u8>)]) -> (Arc<MemoryStorage>, Root) {
        let mut storage = MemoryStorage::slow(64, 0);
        storage.ranges = true;
        let storage = Arc::new(storage);
        for (path, bytes) in files {
            storage.file(path, bytes, 0.0);
        }
        let root = Root { backend: Backend::Storage(Shared(Arc::new(Arc::clone(&storage)))), path: PathBuf::from("/") };
        (storage, root)
    }

    fn drain(contents: Contents) -> Vec<u8> {
        match contents {
            Contents::Bytes(bytes) => bytes,
            Contents::Chunks(mut chunks) => {
                let mut out = Vec::new();
                chunks.read_to_end(&mut out).unwrap();
                out
            }
            Contents::Opened(_) => panic!("a storage gives no open file"),
        }
    }

    #[test]
    fn a_storage_that_reads_ranges_is_read_in_bounded_chunks() {
        let big: Vec<u8> = (0..(3 * CHUNK as usize + 5)).map(|i| (i % 251) as u8).collect();
        let (storage, root) = ranged(&[("/big", big.clone()), ("/small", b"tiny".to_vec())]);
        let mut seen = Vec::new();
        let items = vec![PathBuf::from("big"), PathBuf::from("small")];
        root.read_each(
            items,
            |p| p,
            &Cancel::never(),
            |p, contents| {
                seen.push((p, drain(contents)));
                Ok(())
            },
        )
        .unwrap();
        seen.sort();
        assert_eq!(seen, vec![(PathBuf::from("big"), big.clone()), (PathBuf::from("small"), b"tiny".to_vec())]);
        assert!(storage.largest_range.load(Ordering::SeqCst) as u64 <= CHUNK);
        let one = root.read_one(Path::new("big"), &Cancel::never()).unwrap().unwrap();
        assert_eq!(drain(one), big);
    }
}
