//! The step every walk engine takes in each folder, whatever the folder
//! comes from: its ignore files join the rules from above, each child's
//! relative path is built in one buffer and judged by the `Gate`, the cancel
//! flag is looked at every `CANCEL_EVERY` children, and a child folder is
//! queued when the depth allows. An engine supplies only how it reaches a
//! folder (`F` in `Pending<F>`: a handle, a storage path, an index node),
//! how it lists the children, and the folder's compiled ignore files.

use super::{Gate, CANCEL_EVERY};
use crate::entry::EntryKind;
use crate::error::Result;
use crate::gitignore::{FolderRules, Rules};
use crate::result::SkipReason;
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::sync::Arc;

/// A folder waiting for its visit; `folder` is how its engine reaches it.
pub struct Pending<F> {
    pub folder: F,
    /// Its path relative to the root (empty for the root).
    rel: OsString,
    /// 0 for the root.
    depth: usize,
    /// The rules of its parent (`None` with `gitignore: false`).
    ignore: Option<Rules>,
}

impl<F> Pending<F> {
    /// The search root, under `above`: the rules of the folders above it
    /// (`None` with `gitignore: false`).
    pub fn root(folder: F, above: Option<Rules>) -> Pending<F> {
        Pending { folder, rel: OsString::new(), depth: 0, ignore: above }
    }

    /// Its path relative to the root.
    pub fn rel(&self) -> &Path {
        Path::new(&self.rel)
    }

    pub fn is_root(&self) -> bool {
        self.depth == 0
    }

    /// 0 for the root.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Whether its ignore files are wanted (the rules are on).
    pub fn reads_ignore_files(&self) -> bool {
        self.ignore.is_some()
    }
}

/// One folder being visited: judges its children one by one.
pub struct Visit<'g> {
    gate: &'g Gate<'g>,
    ignore: Option<Rules>,
    path: RelPath,
    child_depth: usize,
    descend: bool,
    seen: u32,
    /// The child last let through is a folder.
    passed_dir: bool,
}

impl<'g> Gate<'g> {
    /// Starts the visit of `pending`, whose own ignore files, compiled, are
    /// `own(its relative path)` (asked only when the rules are on). Returns
    /// how to reach the folder, and the visit; an error once the search is
    /// cancelled, or when `own` fails.
    pub fn visit<F>(
        &'g self,
        pending: Pending<F>,
        own: impl FnOnce(&Path) -> Result<Option<Arc<FolderRules>>>,
    ) -> Result<(F, Visit<'g>)> {
        self.cancel.check()?;
        let prefix = if pending.rel.is_empty() { 0 } else { pending.rel.len() + 1 };
        let ignore = match pending.ignore {
            Some(above) => Some(above.enter(own(Path::new(&pending.rel))?.as_ref(), prefix)),
            None => None,
        };
        let child_depth = pending.depth + 1;
        let visit = Visit {
            gate: self,
            ignore,
            path: RelPath::new(pending.rel),
            child_depth,
            descend: self.descends_at(child_depth),
            seen: 0,
            passed_dir: false,
        };
        Ok((pending.folder, visit))
    }
}

impl Visit<'_> {
    /// The relative path of the child `name` when the rules let it through;
    /// an error once the search is cancelled.
    pub fn child(&mut self, name: &OsStr, kind: EntryKind) -> Result<Option<&Path>> {
        self.seen = self.seen.wrapping_add(1);
        if self.seen.is_multiple_of(CANCEL_EVERY) {
            self.gate.cancel.check()?;
        }
        let is_dir = kind == EntryKind::Dir;
        let rel = self.path.with(name);
        self.passed_dir = is_dir;
        match self.gate.passes(name, rel, is_dir, self.ignore.as_ref()) {
            true => {
                if kind == EntryKind::Symlink {
                    self.gate.count(SkipReason::Symlink, rel, false);
                }
                Ok(Some(Path::new(&self.path.buf)))
            }
            false => {
                self.passed_dir = false;
                Ok(None)
            }
        }
    }

    /// The child folder `child` last let through, to be visited in turn
    /// (reached by `folder()`), unless the depth limit stops here.
    pub fn descend<F>(&self, folder: impl FnOnce() -> F) -> Option<Pending<F>> {
        if self.passed_dir && !self.descend {
            self.gate.count(SkipReason::Depth, Path::new(&self.path.buf), true);
        }
        (self.passed_dir && self.descend).then(|| Pending {
            folder: folder(),
            rel: self.path.buf.clone(),
            depth: self.child_depth,
            ignore: self.ignore.clone(),
        })
    }

    /// The folder's own path, relative to the root.
    pub fn folder_rel(&self) -> std::borrow::Cow<'_, Path> {
        self.path.folder()
    }
}

/// The relative path of each child of one folder, built in one buffer.
struct RelPath {
    buf: OsString,
    /// Bytes of the folder's own path, with its separator.
    base: usize,
}

impl RelPath {
    fn new(mut buf: OsString) -> RelPath {
        if !buf.is_empty() {
            buf.push("/");
        }
        let base = buf.len();
        RelPath { buf, base }
    }

    /// The folder's path joined with `name`.
    fn with(&mut self, name: &OsStr) -> &Path {
        truncate(&mut self.buf, self.base);
        self.buf.push(name);
        Path::new(&self.buf)
    }

    /// The folder's own path (the buffer up to its separator).
    #[cfg(unix)]
    fn folder(&self) -> std::borrow::Cow<'_, Path> {
        use std::os::unix::ffi::OsStrExt;
        let end = self.base.saturating_sub(1);
        std::borrow::Cow::Borrowed(Path::new(OsStr::from_bytes(&self.buf.as_bytes()[..end])))
    }

    #[cfg(not(unix))]
    fn folder(&self) -> std::borrow::Cow<'_, Path> {
        let text = self.buf.to_string_lossy();
        let end = self.base.saturating_sub(1).min(text.len());
        std::borrow::Cow::Owned(std::path::PathBuf::from(text.get(..end).unwrap_or(&text)))
    }
}

#[cfg(unix)]
fn truncate(buf: &mut OsString, len: usize) {
    use std::os::unix::ffi::OsStringExt;
    if buf.len() > len {
        let mut bytes = std::mem::take(buf).into_vec();
        bytes.truncate(len);
        *buf = OsString::from_vec(bytes);
    }
}

#[cfg(not(unix))]
fn truncate(buf: &mut OsString, len: usize) {
    let text = buf.to_string_lossy();
    *buf = OsString::from(text.get(..len).unwrap_or(&text).to_owned());
}
