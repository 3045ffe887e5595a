//! What a walk finds: one matched entry, its kind, and the metadata the
//! result reports (read only when a filter, a sort or the final page needs it).

/// The kind of a listed entry. Symlinks are never followed, so a link is its
/// own kind whatever it points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Dir => "dir",
            EntryKind::Symlink => "symlink",
        }
    }

    /// Maps a file type from a directory listing; sockets, FIFOs and devices
    /// have no entry type in docs/API.md and are not listed.
    pub fn from_file_type(ft: std::fs::FileType) -> Option<Self> {
        if ft.is_symlink() {
            Some(EntryKind::Symlink)
        } else if ft.is_dir() {
            Some(EntryKind::Dir)
        } else if ft.is_file() {
            Some(EntryKind::File)
        } else {
            None
        }
    }
}

/// Size and modification time, as the result reports them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Meta {
    /// Bytes; 0 for directories.
    pub size: u64,
    /// Milliseconds since the Unix epoch, with sub-millisecond precision.
    pub mtime_ms: f64,
}

impl Meta {
    /// From a `stat`: size (0 for folders) and Node's `Stats.mtimeMs`,
    /// computed as Node does (`sec * 1e3 + nsec / 1e6` in doubles), so a value
    /// read back from `fs.statSync` compares equal.
    pub fn from_stat(is_dir: bool, size: u64, mtime_sec: i64, mtime_nsec: i64) -> Self {
        Meta { size: if is_dir { 0 } else { size }, mtime_ms: mtime_sec as f64 * 1e3 + mtime_nsec as f64 / 1e6 }
    }

    /// From std's metadata, where there is no `stat` (off Unix).
    #[cfg(not(unix))]
    pub fn from_fs(kind: EntryKind, md: &std::fs::Metadata) -> Self {
        let mtime_ms = md
            .modified()
            .ok()
            .map(|t| match t.duration_since(std::time::UNIX_EPOCH) {
                Ok(d) => d.as_secs() as f64 * 1e3 + d.subsec_nanos() as f64 / 1e6,
                Err(before) => -(before.duration().as_secs_f64() * 1e3),
            })
            .unwrap_or(0.0);
        Meta { size: if kind == EntryKind::Dir { 0 } else { md.len() }, mtime_ms }
    }
}

/// One matched entry. `path` is relative to the search directory, with `/`
/// separators and no trailing slash; for a name that is not valid UTF-8 it
/// is the lossy text, and `raw` holds the exact bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub path: String,
    pub kind: EntryKind,
    pub meta: Option<Meta>,
    /// The relative path's bytes, only when they are not valid UTF-8.
    pub raw: Option<Vec<u8>>,
}

impl Found {
    pub fn new(path: String, kind: EntryKind, meta: Option<Meta>) -> Self {
        Found { path, kind, meta, raw: None }
    }

    /// The bytes the order compares: the real name, also when it is not UTF-8.
    pub fn name_bytes(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.path.as_bytes())
    }

    /// The path to open, relative to the search directory.
    pub fn relative_path(&self) -> std::path::PathBuf {
        match &self.raw {
            Some(raw) => std::path::PathBuf::from(crate::path_bytes::os_str(raw)),
            None => std::path::PathBuf::from(&self.path),
        }
    }

    pub fn size(&self) -> u64 {
        self.meta.map_or(0, |m| m.size)
    }

    pub fn mtime_ms(&self) -> f64 {
        self.meta.map_or(0.0, |m| m.mtime_ms)
    }
}
