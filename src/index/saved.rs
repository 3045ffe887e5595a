//! The content layer kept across processes: the sketches the background
//! build made, saved to a cache file, and loaded by the next index of the
//! same folder, so a new session's first content search passes over the
//! files that cannot match without reading them all again.
//!
//! Only what the disk vouches for is used. The tree itself is never saved:
//! each open lists every folder anew (that walk is the check of every
//! listing). A sketch is saved with its file's stamp (`Stamp`: size, mtime,
//! ctime and inode, read from the open file it was made from) and loaded
//! only when the file, opened again, has exactly that stamp: ctime changes
//! with every write, also one whose mtime was set back. A file changed
//! within `RACY_NS` of its reading gets no stamp (git's "racily clean"
//! rule: a second write in the same timestamp tick would leave the stamp
//! alone), so its sketch is never saved and the next process reads it.
//!
//! The file is untrusted input: it is read whole up to `MAX_FILE_BYTES`,
//! checked (magic, format version, a CRC-32 of everything, the root's path
//! and identity, every length and size within bounds) and ignored whole on
//! any failure; a record's path is only looked up in the tree, never
//! opened as given. It is written to a new file in the same folder
//! (readable by its owner only) and renamed over the old one, so a reader
//! sees the old file or the new one, never a part, and two processes on one
//! folder neither corrupt it nor wait on each other (the last save wins).

use crate::content_sketch::{SavedSketch, Sketch};
use crate::dir::stamp_of_file;
pub use crate::dir::Stamp;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"AFSKETCH";
/// Bumped whenever the layout or the sketches' meaning changes: a file of
/// another version is ignored.
const FORMAT_VERSION: u32 = 1;
/// A cache file larger than this is not read.
const MAX_FILE_BYTES: u64 = 1 << 30;
/// A path longer than this is not a record.
const MAX_PATH_BYTES: usize = 4096;
/// A file written this close to its reading gets no stamp.
pub const RACY_NS: i128 = 2_000_000_000;

/// The stamp of the open `file` read up to `read_at` (ns since the epoch),
/// unless it was changed within `RACY_NS` of that (or the system gives no
/// ctime and inode: then nothing is saved).
pub fn stamp_of(file: &std::fs::File, read_at: i128) -> Option<Stamp> {
    stamp_of_file(file).filter(|stamp| read_at - stamp.ctime_ns.max(stamp.mtime_ns) > RACY_NS)
}

/// Now, in ns since the epoch.
pub fn now_ns() -> i128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128)
}

/// One saved sketch.
#[derive(Debug, Clone)]
pub struct Record {
    /// Relative to the root, `/`-separated.
    pub path: Vec<u8>,
    pub stamp: Stamp,
    pub sketch: Sketch,
}

/// The root a cache file belongs to: its real path and its identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootId {
    pub path: Vec<u8>,
    pub identity: (u64, u64),
}

/// The cache file of `root` in `dir`: named by a hash of the root's real
/// path (the root's path and identity are checked inside too).
pub fn file_for(dir: &Path, root: &RootId) -> PathBuf {
    // FNV-1a: a stable name, not a defence (the contents are checked).
    let hash = root.path.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    dir.join(format!("index-{hash:016x}.sketches"))
}

/// Where cache files go by default: `AGENT_FIND_CACHE_DIR` when set, else
/// the user's cache folder, as each system names it, with an `agent-find`
/// folder of its own; `None` when there is none.
pub fn default_dir() -> Option<PathBuf> {
    let from = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = from("AGENT_FIND_CACHE_DIR").filter(|p| p.is_absolute()) {
        return Some(dir);
    }
    let base = if cfg!(windows) {
        from("LOCALAPPDATA")
    } else if cfg!(target_vendor = "apple") {
        from("HOME").map(|home| home.join("Library/Caches"))
    } else {
        from("XDG_CACHE_HOME").filter(|p| p.is_absolute()).or_else(|| from("HOME").map(|home| home.join(".cache")))
    }?;
    Some(base.join("agent-find"))
}

/// Writes `records` for `root` as the cache file in `dir` (made if missing,
/// owner only): a new file, then renamed over the old.
pub fn save(dir: &Path, root: &RootId, saved_at: i128, records: &[Record]) -> std::io::Result<()> {
    let mut out =
        Vec::with_capacity(64 + records.iter().map(|r| r.path.len() + 48 + r.sketch.words().len() * 8).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(root.path.len() as u32).to_le_bytes());
    out.extend_from_slice(&root.path);
    out.extend_from_slice(&root.identity.0.to_le_bytes());
    out.extend_from_slice(&root.identity.1.to_le_bytes());
    out.extend_from_slice(&saved_at.to_le_bytes());
    out.extend_from_slice(&(records.len() as u64).to_le_bytes());
    for r in records {
        out.extend_from_slice(&(r.path.len() as u32).to_le_bytes());
        out.extend_from_slice(&r.path);
        out.extend_from_slice(&r.stamp.size.to_le_bytes());
        out.extend_from_slice(&r.stamp.mtime_ns.to_le_bytes());
        out.extend_from_slice(&r.stamp.ctime_ns.to_le_bytes());
        out.extend_from_slice(&r.stamp.ino.to_le_bytes());
        out.push(u8::from(r.sketch.binary()));
        out.push((64 - r.sketch.shift()) as u8);
        for w in r.sketch.words() {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());

    make_private_dir(dir)?;
    let target = file_for(dir, root);
    let temp = dir.join(format!(
        ".{}.{}.{}.tmp",
        target.file_name().map_or("index".into(), |n| n.to_string_lossy()),
        std::process::id(),
        now_ns()
    ));
    let written = (|| {
        let mut file = new_private_file(&temp)?;
        file.write_all(&out)?;
        file.sync_all()?;
        std::fs::rename(&temp, &target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    remove_stale_temps(dir, &target);
    written
}

/// Removes what saves of `target` killed midway left (their temporary
/// files, older than `STALE_TEMP`: a save under way now is never that old).
fn remove_stale_temps(dir: &Path, target: &Path) {
    const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(600);
    let Some(name) = target.file_name().map(|n| n.to_string_lossy().into_owned()) else { return };
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if !(file.starts_with(&format!(".{name}.")) && file.ends_with(".tmp")) {
            continue;
        }
        let old = entry.metadata().ok().and_then(|m| m.modified().ok()).and_then(|t| t.elapsed().ok());
        if old.is_some_and(|age| age > STALE_TEMP) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The cache file of `root` in `dir`, read whole and checked; `None` when
/// there is none, why not when it cannot be used.
fn read_checked(dir: &Path, root: &RootId) -> Result<Option<Checked>, String> {
    let path = file_for(dir, root);
    let file = match open_regular(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("the cache file {} cannot be read: {e}", path.display())),
    };
    // Room for the whole file at once (one read, no copies as it grows).
    let size = file.metadata().map_or(0, |m| m.len()).min(MAX_FILE_BYTES + 1);
    let mut bytes = Vec::with_capacity(size as usize + 1);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("the cache file {} cannot be read: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("the cache file {} is larger than {MAX_FILE_BYTES} bytes: not used", path.display()));
    }
    decode(bytes, root)
        .map(Some)
        .map_err(|why| format!("the cache file {} was not used: {why}; it is made anew", path.display()))
}

/// A cache file's bytes, checked whole, and where each record starts.
struct Checked {
    bytes: Vec<u8>,
    starts: Vec<usize>,
}

/// One record where it lies in a checked file.
#[derive(Debug, Clone, Copy)]
pub struct RecordView<'a> {
    pub path: &'a [u8],
    pub stamp: Stamp,
    pub sketch: SavedSketch<'a>,
}

impl Checked {
    /// Record `i` (every record was read once by `decode`, so it reads again).
    fn record(&self, i: usize) -> Option<RecordView<'_>> {
        read_record(&mut Reader { bytes: &self.bytes, at: *self.starts.get(i)? }).ok()
    }

    fn records(&self) -> impl Iterator<Item = RecordView<'_>> {
        (0..self.starts.len()).filter_map(|i| self.record(i))
    }
}

/// A cache file's bytes, checked whole: every record read once.
fn decode(mut bytes: Vec<u8>, root: &RootId) -> Result<Checked, &'static str> {
    let Some((body, crc)) = bytes.split_last_chunk::<4>() else { return Err("it is truncated") };
    let mut r = Reader { bytes: body, at: 0 };
    if r.take(8)? != MAGIC {
        return Err("it is not an agent-find cache file");
    }
    if r.u32()? != FORMAT_VERSION {
        return Err("it was written by another version");
    }
    if crc32fast::hash(body) != u32::from_le_bytes(*crc) {
        return Err("its checksum does not match (truncated or changed)");
    }
    let root_len = r.u32()? as usize;
    if root_len > MAX_PATH_BYTES * 8 || r.take(root_len)? != root.path.as_slice() {
        return Err("it is another folder's");
    }
    if (r.u64()?, r.u64()?) != root.identity {
        return Err("it is of another folder at the same path");
    }
    let _saved_at = r.i128()?;
    let count = r.u64()?;
    // Each record takes at least 50 bytes: a count past that is a lie.
    if count > (body.len() / 50) as u64 {
        return Err("its record count is impossible");
    }
    let mut starts = Vec::with_capacity(count as usize);
    for _ in 0..count {
        starts.push(r.at);
        read_record(&mut r)?;
    }
    if r.at != body.len() {
        return Err("it has bytes past its last record");
    }
    bytes.truncate(bytes.len() - 4);
    Ok(Checked { bytes, starts })
}

/// The record at `r`'s place, its lengths and sizes checked.
fn read_record<'a>(r: &mut Reader<'a>) -> Result<RecordView<'a>, &'static str> {
    let len = r.u32()? as usize;
    if len == 0 || len > MAX_PATH_BYTES {
        return Err("a path is empty or too long");
    }
    let path = r.take(len)?;
    let stamp = Stamp { size: r.u64()?, mtime_ns: r.i128()?, ctime_ns: r.i128()?, ino: r.u64()? };
    let binary = match r.take(1)?[0] {
        0 => false,
        1 => true,
        _ => return Err("a record is malformed"),
    };
    let log2 = r.take(1)?[0] as u32;
    let words = Sketch::words_for(log2).ok_or("a sketch has an impossible size")?;
    let sketch = SavedSketch::new(r.take(words * 8)?, log2, binary).ok_or("a sketch has an impossible size")?;
    Ok(RecordView { path, stamp, sketch })
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len()).ok_or("it is truncated")?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn u32(&mut self) -> Result<u32, &'static str> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().map_err(|_| "it is truncated")?))
    }

    fn u64(&mut self) -> Result<u64, &'static str> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().map_err(|_| "it is truncated")?))
    }

    fn i128(&mut self) -> Result<i128, &'static str> {
        Ok(i128::from_le_bytes(self.take(16)?.try_into().map_err(|_| "it is truncated")?))
    }
}

/// The sketches an index saved of the files below one folder, for a search
/// of that folder on disk (the native CLI's): a file whose stamp, read now,
/// is the saved one need not be read when its sketch rules out a match.
/// Looked up by the path below the folder, `/`-separated, in the file's
/// bytes as read (no copy of each record: a search would spend longer
/// making them than it saves).
pub struct SavedSketches {
    checked: Checked,
    /// Bytes of a record's path before the part below the folder (the
    /// folder's own path below the cache file's root, and its `/`).
    skip: usize,
    /// Open addressing by `hash` of the part below the folder: a record's
    /// number + 1, 0 where none; a power of two long.
    table: Vec<u32>,
    count: usize,
    /// The cache file they came from.
    pub file: PathBuf,
}

impl SavedSketches {
    /// The sketches of the files below `folder` from the cache file in `dir`
    /// of `folder` or of the nearest folder above it that has one; `None`
    /// when there is none (or off Unix, where nothing is saved), `Err` with
    /// why when the one found cannot be used.
    pub fn below(folder: &Path, dir: &Path) -> Result<Option<SavedSketches>, String> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let Ok(real) = std::fs::canonicalize(folder) else { return Ok(None) };
            for above in real.ancestors() {
                let Ok(identity) = super::lifecycle::path_identity(above) else { return Ok(None) };
                let root = RootId { path: above.as_os_str().as_bytes().to_vec(), identity };
                let file = file_for(dir, &root);
                let Some(checked) = read_checked(dir, &root)? else { continue };
                let below = real.strip_prefix(above).unwrap_or(Path::new("")).as_os_str().as_bytes();
                return Ok(Some(SavedSketches::of(checked, below, file)));
            }
            Ok(None)
        }
        #[cfg(not(unix))]
        {
            let _ = (folder, dir);
            Ok(None)
        }
    }

    /// The records of `checked` below the folder at `below` (relative to
    /// the file's root, "" for the root itself), looked up by the rest.
    #[cfg(unix)]
    fn of(checked: Checked, below: &[u8], file: PathBuf) -> SavedSketches {
        let skip = if below.is_empty() { 0 } else { below.len() + 1 };
        let wanted: Vec<(usize, u64)> = checked
            .records()
            .enumerate()
            .filter(|(_, r)| lies_below(r.path, below) && r.path.len() > skip)
            .map(|(i, r)| (i, hash(&r.path[skip..])))
            .collect();
        let mut table = vec![0u32; (wanted.len() * 2).next_power_of_two().max(2)];
        let mask = table.len() - 1;
        for &(i, h) in &wanted {
            let mut slot = h as usize & mask;
            while table[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            table[slot] = i as u32 + 1;
        }
        SavedSketches { checked, skip, table, count: wanted.len(), file }
    }

    /// The saved record of the file at `relative` (`/`-separated).
    pub fn get(&self, relative: &[u8]) -> Option<RecordView<'_>> {
        let mask = self.table.len() - 1;
        let mut slot = hash(relative) as usize & mask;
        loop {
            let record = self.checked.record(self.table[slot].checked_sub(1)? as usize)?;
            if record.path.get(self.skip..) == Some(relative) {
                return Some(record);
            }
            slot = (slot + 1) & mask;
        }
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// A quick hash of a path (8 bytes a step), for `SavedSketches`' table.
fn hash(bytes: &[u8]) -> u64 {
    // An odd constant with its bits spread (FxHash's).
    const SEED: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        h = (h.rotate_left(5) ^ u64::from_le_bytes(chunk.try_into().unwrap_or_default())).wrapping_mul(SEED);
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(SEED);
    h ^ (h >> 29)
}

impl std::fmt::Debug for SavedSketches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SavedSketches({} files from {})", self.count, self.file.display())
    }
}

/// Makes `dir` (and what is missing above it) readable by its owner only
/// where it is made.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// A new file at `path` (never an existing one, nor through a symlink),
/// readable and writable by its owner only.
fn new_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Opens `path` for reading when it is a regular file (never a FIFO or a
/// device, which could block or never end; never through a symlink).
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK | libc::O_NOFOLLOW);
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// An index's side of its cache file: where it goes, and what happened.
pub struct SavedLayer {
    /// The folder of cache files; `None`: nothing is kept.
    dir: Option<PathBuf>,
    status: std::sync::Mutex<SavedStatus>,
}

/// What `stats()` says of the cache file.
#[derive(Debug, Clone, Default)]
pub struct SavedStatus {
    /// The file, once its name is known.
    pub file: Option<PathBuf>,
    /// Sketches loaded from it at open, each checked against its file.
    pub loaded: usize,
    /// Sketches written by the last save.
    pub saved: usize,
    /// Why the file was not used or not written, the last time it was not.
    pub error: Option<String>,
    /// The layer's version at the last save: a save with nothing new is skipped.
    saved_version: Option<u64>,
}

impl SavedLayer {
    pub fn new(dir: Option<PathBuf>) -> SavedLayer {
        SavedLayer { dir, status: std::sync::Mutex::new(SavedStatus::default()) }
    }

    pub fn status(&self) -> SavedStatus {
        crate::sync::lock(&self.status).clone()
    }
}

impl super::Index {
    /// The root as cache files name it: its real path and identity; `None`
    /// where the system gives no identity (then nothing is kept).
    fn root_id(&self) -> Option<RootId> {
        Some(RootId { path: self.real_path.as_os_str().as_encoded_bytes().to_vec(), identity: self.identity? })
    }

    /// Loads the saved sketches whose files are still what they were, into
    /// the content layer (before the background build reads the rest), on
    /// up to `threads` threads.
    pub(super) fn load_saved(&self, threads: usize, stop: &(dyn Fn() -> bool + Sync)) {
        let (Some(dir), Some(root)) = (&self.saved.dir, self.root_id()) else { return };
        crate::sync::lock(&self.saved.status).file = Some(file_for(dir, &root));
        let checked = match read_checked(dir, &root) {
            Ok(Some(checked)) => checked,
            Ok(None) => return,
            Err(why) => {
                crate::sync::lock(&self.saved.status).error = Some(why);
                return;
            }
        };
        let Ok(folder) = self.dir() else { return };
        // What an event drops from now on makes what is loaded here stale:
        // kept only if none came (`keep` checks the epoch).
        let epoch = self.content().epoch();
        // The records whose file the tree holds as saved, looked up under
        // the tree's lock; the files are looked at after it is released (the
        // keeper must not wait on this thread, at the lowest priority).
        let mut candidates = Vec::new();
        {
            let Ok(tree) = self.read_in_background() else { return };
            // Records come folder by folder: the last folder's id is kept.
            let mut last: Option<(&[u8], Option<super::tree::Id>)> = None;
            for record in checked.records() {
                let (parent, name) = parent_and_name(record.path);
                let folder = match last {
                    Some((at, id)) if at == parent => id,
                    _ => {
                        let id = tree.find(parent);
                        last = Some((parent, id));
                        id
                    }
                };
                let Some(id) = folder.and_then(|folder| tree.child(folder, name)) else { continue };
                let node = tree.node(id);
                let expected = crate::entry::Meta::from_stat(
                    false,
                    record.stamp.size,
                    (record.stamp.mtime_ns.div_euclid(1_000_000_000)) as i64,
                    (record.stamp.mtime_ns.rem_euclid(1_000_000_000)) as i64,
                );
                if node.kind == crate::entry::EntryKind::File && node.meta == expected {
                    candidates.push((tree.handle(id), node.meta, record));
                }
            }
        }
        // In path order, cut into one run a thread.
        candidates.sort_unstable_by(|a, b| a.2.path.cmp(b.2.path));
        let per_thread = candidates.len().div_ceil(threads.max(1)).max(1);
        // Kept a part at a time, so a search made meanwhile gains from what
        // is loaded so far.
        let keep = |part: Vec<super::content::Learnt>| {
            let count = part.len();
            self.keep_learnt(epoch, part);
            crate::sync::lock(&self.saved.status).loaded += count;
        };
        std::thread::scope(|scope| {
            for run in candidates.chunks(per_thread) {
                let (folder, keep) = (&folder, &keep);
                scope.spawn(move || {
                    crate::thread_priority::lower_this_thread(crate::thread_priority::Lowered::Background);
                    still_stamped(folder, run, stop, keep)
                });
            }
        });
    }

    /// Saves the content layer's stamped sketches, when anything changed
    /// since the last save; a failure is recorded, never raised.
    pub(super) fn save(&self) {
        let (Some(dir), Some(root)) = (&self.saved.dir, self.root_id()) else { return };
        // Never over a good file from an index that failed (its layer is gone).
        if crate::sync::lock(&self.broken).is_some() {
            return;
        }
        // Taken under the locks (a copy of the blocks), gathered and written after.
        // The tree's lock before the layer's, in the order every writer
        // takes them (the keeper's `release` holds the tree's while it
        // waits for the layer's).
        let (version, snapshot) = {
            let tree = crate::sync::unpoisoned(self.tree.read());
            let layer = self.content();
            if crate::sync::lock(&self.saved.status).saved_version == Some(layer.version()) {
                return;
            }
            (layer.version(), layer.snapshot(&tree))
        };
        let records = snapshot.records();
        let written = save(dir, &root, now_ns(), &records);
        let mut status = crate::sync::lock(&self.saved.status);
        status.file = Some(file_for(dir, &root));
        match written {
            Ok(()) => {
                (status.saved, status.saved_version) = (records.len(), Some(version));
            }
            Err(e) => status.error = Some(format!("the cache file could not be written in {}: {e}", dir.display())),
        }
    }
}

/// Whether the relative path `path` lies below the folder `folder` ("" for
/// the root, below which every path lies).
fn lies_below(path: &[u8], folder: &[u8]) -> bool {
    folder.is_empty() || (path.starts_with(folder) && path.get(folder.len()) == Some(&b'/'))
}

/// A record's path as its folder's path and its name.
fn parent_and_name(path: &[u8]) -> (&[u8], &[u8]) {
    match path.iter().rposition(|&b| b == b'/') {
        Some(cut) => (&path[..cut], &path[cut + 1..]),
        None => (&path[..0], path),
    }
}

/// Hands `keep`, a part at a time, what of `run` (records in path order,
/// with their files' handles and metadata in the tree) is still as saved:
/// each folder opened once beneath
/// `root` (never through a symlink) from its nearest opened ancestor, its
/// files' stamps read from it (`fstatat`), not each file opened through
/// every folder on its path.
fn still_stamped(
    root: &std::sync::Arc<crate::dir::Dir>,
    run: &[(super::tree::Handle, crate::entry::Meta, RecordView<'_>)],
    stop: &(dyn Fn() -> bool + Sync),
    keep: &(dyn Fn(Vec<super::content::Learnt>) + Sync),
) {
    use crate::path_bytes::os_str;
    /// Sketches handed to `keep` at once.
    const PART: usize = 8192;
    let mut learnt = Vec::new();
    // The folders open, each below the one before it: ("", root) first.
    let mut open: Vec<(&[u8], Option<std::sync::Arc<crate::dir::Dir>>)> =
        vec![(&[], Some(std::sync::Arc::clone(root)))];
    for (n, &(handle, meta, record)) in run.iter().enumerate() {
        if n % 1024 == 0 && stop() {
            return;
        }
        if learnt.len() >= PART {
            keep(std::mem::take(&mut learnt));
        }
        let (parent, name) = parent_and_name(record.path);
        while open.last().is_some_and(|(at, _)| *at != parent && !lies_below(parent, at)) {
            open.pop();
        }
        let Some((at, from)) = open.last() else { continue };
        if *at != parent {
            let rest = &parent[if at.is_empty() { 0 } else { at.len() + 1 }..];
            let opened = match from {
                Some(from) => match from.folder_beneath(Path::new(os_str(rest))) {
                    Ok(Some(dir)) => Some(std::sync::Arc::new(dir)),
                    _ => None,
                },
                None => None,
            };
            open.push((parent, opened));
        }
        let Some((_, Some(dir))) = open.last() else { continue };
        if dir.stamp(os_str(name)).ok() == Some(record.stamp) {
            let (sketch, stamp) = (Some(record.sketch.to_sketch()), Some(record.stamp));
            learnt.push(super::content::Learnt { handle, meta, sketch, contents: None, stamp });
        }
    }
    keep(learnt);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content_sketch::Sketcher;

    fn root() -> RootId {
        RootId { path: b"/work/tree".to_vec(), identity: (7, 42) }
    }

    fn encoded(records: &[Record]) -> Vec<u8> {
        let dir = crate::testing::TempTree::with("saved-encode", &[]);
        save(&dir, &root(), 1, records).unwrap();
        std::fs::read(file_for(&dir, &root())).unwrap()
    }

    fn records() -> Vec<Record> {
        let mut sketcher = Sketcher::default();
        (0..20u64)
            .map(|i| Record {
                path: format!("src/f{i}.js").into_bytes(),
                stamp: Stamp { size: i, mtime_ns: i as i128 * 3, ctime_ns: -(i as i128), ino: i * 11 },
                sketch: sketcher.sketch(format!("contents {i} {}", "x".repeat(i as usize * 300)).as_bytes()),
            })
            .collect()
    }

    #[test]
    fn what_is_saved_loads_back_and_any_change_of_a_byte_is_refused() {
        let saved = records();
        let bytes = encoded(&saved);
        let loaded: Vec<Record> = decode(bytes.clone(), &root())
            .unwrap()
            .records()
            .map(|r| Record { path: r.path.to_vec(), stamp: r.stamp, sketch: r.sketch.to_sketch() })
            .collect();
        assert_eq!(loaded.len(), saved.len());
        for (a, b) in saved.iter().zip(&loaded) {
            assert_eq!(
                (&a.path, a.stamp, a.sketch.words(), a.sketch.shift()),
                (&b.path, b.stamp, b.sketch.words(), b.sketch.shift())
            );
        }
        // Every single-byte change and every truncation is refused, never a panic.
        for at in (0..bytes.len()).step_by(7) {
            let mut changed = bytes.clone();
            changed[at] ^= 0x5A;
            assert!(decode(changed, &root()).is_err(), "a change at {at} was accepted");
            assert!(decode(bytes[..at].to_vec(), &root()).is_err(), "a truncation at {at} was accepted");
        }
        let elsewhere = RootId { identity: (7, 43), ..root() };
        assert_eq!(decode(bytes, &elsewhere).err(), Some("it is of another folder at the same path"));
    }

    #[test]
    fn garbage_with_a_valid_checksum_is_refused_without_a_panic() {
        // Well-formed frames around lies: huge counts, lengths and sizes.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2_000 {
            let mut body = MAGIC.to_vec();
            body.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
            body.extend_from_slice(&(root().path.len() as u32).to_le_bytes());
            body.extend_from_slice(&root().path);
            body.extend_from_slice(&7u64.to_le_bytes());
            body.extend_from_slice(&42u64.to_le_bytes());
            for _ in 0..(state % 40) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                body.extend_from_slice(&state.to_le_bytes()[..(state % 9) as usize]);
            }
            let crc = crc32fast::hash(&body);
            body.extend_from_slice(&crc.to_le_bytes());
            let _ = decode(body, &root());
        }
    }
}

#[cfg(all(test, unix))]
mod screen_tests {
    use super::*;
    use crate::args::Value;
    use crate::cancel::Cancel;
    use crate::content_sketch::Sketcher;
    use crate::search::{SearchConfig, SearchItems};
    use crate::source::Source;
    use crate::testing::TempTree;
    use std::os::unix::fs::MetadataExt;

    fn root_of(tree: &TempTree) -> RootId {
        let md = std::fs::metadata(tree.as_ref()).unwrap();
        RootId { path: tree.as_ref().as_os_str().as_encoded_bytes().to_vec(), identity: (md.dev(), md.ino()) }
    }

    fn stamp(tree: &TempTree, rel: &str) -> Stamp {
        stamp_of_file(&std::fs::File::open(tree.join(rel)).unwrap()).unwrap()
    }

    /// The files a search for `needle` below `folder` lists, screened with what `cache` holds.
    fn listed(tree: &TempTree, folder: &str, cache: &Path) -> (Vec<String>, Option<usize>) {
        let fields: Vec<(String, Value)> = [("pattern", "needle"), ("outputMode", "files")]
            .iter()
            .map(|(k, v)| (k.to_string(), Value::Text(v.to_string())))
            .chain([("cwd".to_string(), Value::Text(tree.join(folder).to_string_lossy().into_owned()))])
            .collect();
        let mut config: SearchConfig = crate::search::options::parse(&fields, Source::Disk).unwrap();
        config.use_saved_sketches(cache).unwrap();
        let used = config.saved.as_ref().map(|s| s.len());
        let outcome = crate::search::run(&config, &Cancel::never()).unwrap();
        let SearchItems::Files(files) = outcome.items else { panic!("{:?}", outcome.items) };
        (files, used)
    }

    #[test]
    fn a_search_on_disk_trusts_a_saved_sketch_only_while_its_file_keeps_its_stamp() {
        let tree = TempTree::with(
            "saved-screen",
            &[("sub/a.txt", b"needle here\n"), ("sub/b.txt", b"needle too\n"), ("subx/c.txt", b"needle\n")],
        );
        let cache = TempTree::new("saved-screen-cache");
        // Sketches of other contents, saved as a.txt's and c.txt's with their stamps:
        // a search that trusts them passes those files over (what proves it uses them).
        let lie = Sketcher::default().sketch(b"nothing of the kind\n");
        let records = [
            Record { path: b"sub/a.txt".to_vec(), stamp: stamp(&tree, "sub/a.txt"), sketch: lie.clone() },
            Record { path: b"subx/c.txt".to_vec(), stamp: stamp(&tree, "subx/c.txt"), sketch: lie },
        ];
        save(cache.as_ref(), &root_of(&tree), now_ns(), &records).unwrap();
        assert_eq!(listed(&tree, "", cache.as_ref()), (vec!["sub/b.txt".to_string()], Some(2)));
        // From a folder below the saved root: its own records, by the rest of their path
        // (`subx/` is not below `sub/`).
        assert_eq!(listed(&tree, "sub", cache.as_ref()), (vec!["b.txt".to_string()], Some(1)));
        // The same bytes written again: a new ctime, so the sketch is not trusted.
        std::thread::sleep(std::time::Duration::from_millis(20));
        tree.write("sub/a.txt", b"needle here\n");
        assert_eq!(listed(&tree, "sub", cache.as_ref()).0, ["a.txt", "b.txt"]);
        // A cache of another folder at this path (the identity differs) is never used.
        let elsewhere = RootId { identity: (1, 2), ..root_of(&tree) };
        save(cache.as_ref(), &elsewhere, now_ns(), &records).unwrap();
        let fields = [("pattern".to_string(), Value::Text("needle".into()))];
        let mut config = crate::search::options::parse(&fields, Source::Disk).unwrap();
        config.scope.logical_path = tree.as_ref().to_path_buf();
        let refused = config.use_saved_sketches(cache.as_ref()).unwrap_err();
        assert!(refused.contains("another folder at the same path"), "{refused}");
        assert!(config.saved.is_none());
        // No cache file at all: nothing to use, no error.
        let empty = TempTree::new("saved-screen-none");
        assert_eq!(
            listed(&tree, "", empty.as_ref()),
            (vec!["sub/a.txt".into(), "sub/b.txt".into(), "subx/c.txt".into()], None)
        );
    }
}
