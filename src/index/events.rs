//! What a batch of events says, by path alone: the folders to list again
//! (an event only says which folder changed), the entries whose contents
//! may have changed, those whose mode or owner did, and whether the OS
//! dropped events (then the whole tree is compared again). Nothing here
//! reads the tree or the disk.
//!
//! A watcher that may name an entry by the path it had before its folder
//! was moved (`Watcher::names_stale_paths`) has its events read through the
//! folder moves it reported last (`Moves`): an event under a moved folder's
//! old path also names the same place under its new path. Naming one place
//! too many only lists a folder again; naming one too few loses a change.
//!
//! An event inside a `.git` lists again the folder holding it, which reads
//! its repository's `info/exclude` and `config` again; an event in a
//! submodule's git dir under the superproject's `.git/modules/` lists again
//! the folders the submodule may be checked out in (`submodule_folders`).

use super::watch::Message;
use std::collections::{BTreeSet, VecDeque};
use std::path::Path;

/// How many folder moves `Moves` remembers.
const MOVES_KEPT: usize = 256;

/// The folder moves a watcher reported last (old and new path, relative to
/// the root), newest last.
#[derive(Default)]
pub struct Moves(VecDeque<(Vec<u8>, Vec<u8>)>);

impl Moves {
    fn note(&mut self, from: Vec<u8>, to: Vec<u8>) {
        if self.0.len() == MOVES_KEPT {
            self.0.pop_front();
        }
        self.0.push_back((from, to));
    }

    /// `rel` under the new path of each move whose old path holds it.
    fn moved(&self, rel: &[u8]) -> Vec<Vec<u8>> {
        let mut found = Vec::new();
        for (from, to) in &self.0 {
            let rest = match rel.strip_prefix(from.as_slice()) {
                Some([]) => &[][..],
                Some([b'/', rest @ ..]) => rest,
                _ => continue,
            };
            let mut path = to.clone();
            if !rest.is_empty() {
                path.push(b'/');
                path.extend_from_slice(rest);
            }
            found.push(path);
        }
        found
    }
}

/// A batch of events, sorted out (paths relative to the root).
#[derive(Default)]
pub struct Sorted {
    /// Folders to list again and compare with the tree.
    pub dirty: BTreeSet<Vec<u8>>,
    /// Entries whose mode or owner changed: a folder among them may have
    /// become enterable or not, which changes what lies below it.
    pub access: BTreeSet<Vec<u8>>,
    /// Entries an event names: their contents may have changed.
    pub touched: BTreeSet<Vec<u8>>,
    /// Entries an event says were created or renamed to or from: a folder
    /// of the tree at such a path may be another one now, whatever its
    /// inode (file systems reuse them at once), and is listed anew with all
    /// it holds. A watcher that watches the whole folder (FSEvents, `notify`)
    /// tells nothing else of a folder renamed away and made again.
    pub renewed: BTreeSet<Vec<u8>>,
    /// Entries an event says were renamed to or from.
    pub renamed: BTreeSet<Vec<u8>>,
    /// Why the whole tree is to be compared again, if it is.
    pub rescan: Option<&'static str>,
    /// The root's own metadata changed (its mode, say).
    pub root_metadata: bool,
    /// Watches the OS refused, in order.
    pub watch_errors: Vec<String>,
}

impl Sorted {
    /// The batch of events on the folder whose real path is `root`; with
    /// `moves`, each path is also read through the folder moves reported
    /// before it (see the module doc), and the batch's moves are noted.
    pub fn of(root: &Path, batch: Vec<Message>, mut moves: Option<&mut Moves>) -> Sorted {
        use notify::event::{ModifyKind, RenameMode};
        let mut sorted = Sorted::default();
        for event in batch {
            match event {
                Ok(event) if event.need_rescan() => sorted.rescan = Some("the OS dropped events (queue overflow)"),
                Ok(mut event) => {
                    let metadata = matches!(event.kind, notify::EventKind::Modify(ModifyKind::Metadata(_)));
                    let renewed = matches!(
                        event.kind,
                        notify::EventKind::Create(_) | notify::EventKind::Modify(ModifyKind::Name(_))
                    );
                    if let Some(moves) = moves.as_deref_mut() {
                        let also: Vec<std::path::PathBuf> = event
                            .paths
                            .iter()
                            .filter_map(|p| Some(p.strip_prefix(root).ok()?.as_os_str().as_encoded_bytes()))
                            .flat_map(|rel| moves.moved(rel))
                            .map(|rel| root.join(crate::path_bytes::os_str(&rel)))
                            .collect();
                        if let (notify::EventKind::Modify(ModifyKind::Name(RenameMode::Both)), [from, to]) =
                            (event.kind, &event.paths[..])
                        {
                            if let (Ok(from), Ok(to)) = (from.strip_prefix(root), to.strip_prefix(root)) {
                                moves.note(
                                    from.as_os_str().as_encoded_bytes().to_vec(),
                                    to.as_os_str().as_encoded_bytes().to_vec(),
                                );
                            }
                        }
                        event.paths.extend(also);
                    }
                    for path in &event.paths {
                        sorted.root_metadata |=
                            metadata && path.strip_prefix(root).is_ok_and(|r| r.as_os_str().is_empty());
                        if let Some(folder) = changed_folder(root, path) {
                            sorted.dirty.insert(folder);
                        }
                        let entry = entry_at(root, path);
                        // An event on a folder itself (a watcher that merges what
                        // happened in a folder into one event on it): listed too.
                        sorted.dirty.extend(entry.clone());
                        sorted.dirty.extend(submodule_folders(root, path));
                        if metadata {
                            sorted.access.extend(entry.clone());
                        }
                        if renewed {
                            sorted.renewed.extend(entry.clone());
                        }
                        if matches!(event.kind, notify::EventKind::Modify(ModifyKind::Name(_))) {
                            sorted.renamed.extend(entry.clone());
                        }
                        sorted.touched.extend(entry);
                    }
                }
                Err(e) => sorted.watch_errors.push(e.to_string()),
            }
        }
        sorted
    }
}

/// The entry (relative to `root`) an event on `path` is about, unless it is
/// the root itself or inside a `.git`.
fn entry_at(root: &Path, path: &Path) -> Option<Vec<u8>> {
    let rel = path.strip_prefix(root).ok()?.as_os_str().as_encoded_bytes();
    let parts: Vec<&[u8]> = rel.split(|&b| b == b'/').filter(|p| !p.is_empty()).collect();
    (!parts.is_empty() && !parts.contains(&&b".git"[..])).then(|| parts.join(&b'/'))
}

/// The folder (relative to `root`) to compare again after an event on
/// `path`: its parent, or for anything inside a `.git`, the folder holding it.
fn changed_folder(root: &Path, path: &Path) -> Option<Vec<u8>> {
    let rel = path.strip_prefix(root).ok()?.as_os_str().as_encoded_bytes();
    let parts: Vec<&[u8]> = rel.split(|&b| b == b'/').filter(|p| !p.is_empty()).collect();
    let cut = match parts.iter().position(|&p| p == b".git") {
        Some(git) => git,
        None => parts.len().saturating_sub(1),
    };
    Some(parts[..cut].join(&b'/'))
}

/// For an event inside a submodule's git dir (`<folder>/.git/modules/<name>/...`),
/// the folders the submodule may be checked out in (`<folder>/<name>`, the
/// name being a path that may hold `/`): listed again, those that exist
/// read their repository's `info/exclude` and config anew.
fn submodule_folders(root: &Path, path: &Path) -> Vec<Vec<u8>> {
    let Ok(rel) = path.strip_prefix(root) else { return Vec::new() };
    let parts: Vec<&[u8]> =
        rel.as_os_str().as_encoded_bytes().split(|&b| b == b'/').filter(|p| !p.is_empty()).collect();
    let Some(git) = parts.windows(2).position(|w| w == [&b".git"[..], &b"modules"[..]]) else {
        return Vec::new();
    };
    let (holder, name) = (&parts[..git], &parts[git + 2..]);
    (1..name.len()).map(|n| [holder, &name[..n]].concat().join(&b'/')).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_under_a_moved_folder_s_old_path_names_its_new_one_too() {
        use notify::event::{CreateKind, ModifyKind, RenameMode};
        let root = Path::new("/w");
        let event =
            |kind, paths: &[&str]| Ok(paths.iter().fold(notify::Event::new(kind), |e, p| e.add_path(root.join(p))));
        let mut moves = Moves::default();
        let moved = notify::EventKind::Modify(ModifyKind::Name(RenameMode::Both));
        let created = notify::EventKind::Create(CreateKind::File);
        let batch = vec![event(moved, &["a/b", "x"]), event(created, &["a/b/c/new.txt"])];
        let sorted = Sorted::of(root, batch, Some(&mut moves));
        let dirty: Vec<&[u8]> = sorted.dirty.iter().map(Vec::as_slice).collect();
        assert!(dirty.contains(&&b"x/c"[..]) && dirty.contains(&&b"a/b/c"[..]), "{:?}", sorted.dirty);
        assert!(sorted.touched.contains(&b"x/c/new.txt"[..]));
        // Noted across batches; a path merely starting with the old one's text is not under it.
        let later = Sorted::of(root, vec![event(created, &["a/b/d.txt", "a/bc/e.txt"])], Some(&mut moves));
        assert!(later.touched.contains(&b"x/d.txt"[..]) && !later.touched.iter().any(|t| t.starts_with(b"xc")));
        // Without `moves`, paths are taken as they are.
        let plain = Sorted::of(root, vec![event(created, &["a/b/d.txt"])], None);
        assert_eq!(plain.touched.len(), 1);
    }

    #[test]
    fn an_event_names_the_folder_to_list_again() {
        let root = Path::new("/w");
        let folder = |p: &str| changed_folder(root, &root.join(p)).map(|f| String::from_utf8(f).unwrap());
        assert_eq!(folder("src/deep/a.ts").as_deref(), Some("src/deep"));
        assert_eq!(folder("top.txt").as_deref(), Some(""));
        assert_eq!(folder(".git/info/exclude").as_deref(), Some(""));
        assert_eq!(folder("sub/.git/HEAD").as_deref(), Some("sub"));
        let modules = |p: &str| -> Vec<String> {
            submodule_folders(root, &root.join(p)).into_iter().map(|f| String::from_utf8(f).unwrap()).collect()
        };
        assert_eq!(modules("sub/.git/modules/lib/info/exclude"), ["sub/lib", "sub/lib/info"]);
        assert_eq!(modules(".git/modules/a/b/config"), ["a", "a/b"]);
        assert!(modules(".git/info/exclude").is_empty() && modules("src/deep/a.ts").is_empty());
        assert_eq!(changed_folder(root, Path::new("/elsewhere/x")), None);
    }
}
