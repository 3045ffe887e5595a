//! What the live index reads of one entry or folder on disk, as its tree
//! holds it: an entry's metadata (none for one that may be listed but not
//! looked at, as a fresh walk shows it), and a folder's compiled ignore
//! files. The first walk (`build`) and the listings after events
//! (`reconcile`) read them the same way.

use super::tree::{Id, Tree};
use crate::dir::{Dir, FullStat, Stat};
use crate::entry::{EntryKind, Meta};
use crate::gitignore::{FolderRules, GitEnv, IgnoreFiles, GITIGNORE, IGNORE};
use crate::path_bytes::os_str;
use std::sync::Arc;

/// The size and time of an entry that is listed but cannot be looked at (in a
/// folder that is readable but not searchable): what a fresh walk shows.
pub const UNKNOWN_META: Meta = Meta { size: 0, mtime_ms: 0.0 };

/// The metadata of `name`, listed in `dir` as `kind`, with its inode number
/// and whether it is a file with more than one name (see `FullStat`):
/// `None` if it is gone or no longer that kind; no size or time (nor inode
/// number) if it may be listed but not looked at (`dir` is readable but not
/// searchable), as a fresh walk shows it.
pub fn meta_of(dir: &Dir, name: &[u8], kind: EntryKind) -> Option<FullStat> {
    match dir.stat_full(os_str(name)) {
        Ok(full) => (full.stat.kind == Some(kind)).then_some(full),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            Some(FullStat { stat: Stat { kind: Some(kind), meta: UNKNOWN_META }, ino: 0, linked: false })
        }
        Err(_) => None,
    }
}

/// A folder's compiled ignore files, read when it holds any (or `.git`,
/// which the caller saw while listing it: then its repository's
/// `info/exclude` and config are read again, the user's settings being
/// those read at open).
pub fn folder_rules(dir: &Dir, tree: &Tree, id: Id, has_git: bool, git: &GitEnv) -> Option<Arc<FolderRules>> {
    let node = tree.node(id);
    let named = |name: &str| node.children.iter().any(|&c| tree.name(c) == name.as_bytes());
    if !has_git && !named(GITIGNORE) && !named(IGNORE) {
        return None;
    }
    FolderRules::compile(IgnoreFiles::read_knowing_git(dir, has_git, git))
}
