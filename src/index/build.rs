//! The walk that builds the live index's tree: at open, and again whole
//! when the OS dropped events or the keeper's work panicked. It lists every
//! entry (hidden and ignored ones too: a query may ask for them), with its
//! metadata, in parallel, then reads the ignore files of the few folders
//! that hold any.
//!
//! It is the index's own engine on the walk's `Gate` (as `query` is for
//! queries): threads share a stack of folders, each opened by handle from
//! its parent, as on disk. Its own, because with a watcher that watches
//! folder by folder, each folder is watched once opened and before it is
//! listed, so every change after the walk saw a folder raises an event (one
//! parallel pass: no walk of its own for the watches); the generic disk
//! walk knows nothing of watches.

use super::disk::{folder_rules, UNKNOWN_META};
use super::tree::{Id, Tree, ROOT};
use super::watch::FolderWatches;
use crate::cancel::Cancel;
use crate::dir::{is_gone, Dir};
use crate::entry::{EntryKind, Meta};
use crate::error::{FindError, Result};
use crate::gitignore::{GitEnv, GITIGNORE, IGNORE};
use crate::path_bytes::os_str;
use crate::sync::{lock, unpoisoned};
use crate::walk::{cannot_list, gated, thread_count, Excludes, Gate, Pending, SkipReason, WalkRules};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::io::ErrorKind;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

/// A new tree of the folder `dir`, whose real path is `root`, and the files
/// in it with more than one name (for `Index::watch_links`). With
/// `watches`, each folder is watched as the walk opens it, before listing
/// it, and each `.git` before its rules are read.
pub fn build(
    dir: &Arc<Dir>,
    root: &Path,
    git: &GitEnv,
    watches: Option<&dyn FolderWatches>,
) -> Result<(Tree, Vec<Id>)> {
    let everything = WalkRules {
        hidden: true,
        gitignore: false,
        exclude: Excludes::default(),
        case_sensitive: true,
        max_depth: None,
        skip_dirs: &[".git"],
        record_ignored: false,
        changed: None,
        // For the folders it is refused (`Node::denied`).
        tally: true,
    };
    let walked = gated(&everything, &Cancel::never(), |gate| list_all(dir, root, gate, watches))?;
    let mut listings: Vec<Listing> = walked.found.into_iter().flatten().collect();
    // A folder's listing names it: shallower listings first.
    listings.sort_by_cached_key(|l| l.rel.iter().filter(|&&b| b == b'/').count() + usize::from(!l.rel.is_empty()));
    let root_meta = dir.stat(OsStr::new(".")).map(|s| s.meta).unwrap_or(UNKNOWN_META);
    // Folders with ignore files or a `.git`: the only ones whose rules are read.
    let git_holders: BTreeSet<Vec<u8>> =
        walked.git_holders.iter().map(|p| p.as_os_str().as_encoded_bytes().to_vec()).collect();
    let mut built = Assembly::new(root_meta, listings.len(), git_holders.clone());
    for listing in listings {
        built.add(listing);
    }
    let Assembly { mut tree, folders, with_rules, opened, linked } = built;
    for rel in walked.tally.folders_of(SkipReason::Denied) {
        if let Some(&id) = folders.get(rel.as_bytes()) {
            tree.node_mut(id).denied = true;
        }
    }
    // Folders listed but not opened (not ours to read): their inode number all the same.
    for (rel, &id) in &folders {
        if id != ROOT && !opened.contains(&id) {
            if let Ok(full) = dir.stat_full(os_str(rel)) {
                tree.set_ino(id, full.ino);
            }
        }
    }
    // The watches made by path, now on the tree's folders; each `.git`
    // watched before its `info/exclude` and config are read below.
    if let Some(watches) = watches {
        watches.place_unplaced(&tree);
        for rel in &git_holders {
            if let (Some(&id), Ok(held)) = (folders.get(rel), dir.folder_beneath(Path::new(os_str(rel)))) {
                watches.watch_git(held.as_ref().unwrap_or(dir), tree.handle(id));
            }
        }
    }
    // Opening a folder raises an event on it: only these few are opened again.
    for rel in with_rules {
        let Some(&id) = folders.get(&rel) else { continue };
        if let Ok(held) = dir.folder_beneath(Path::new(os_str(&rel))) {
            let dir = held.as_ref().unwrap_or(dir);
            tree.node_mut(id).rules = folder_rules(dir, &tree, id, git_holders.contains(&rel), git);
        }
    }
    Ok((tree, linked))
}

/// One folder as a walker listed it: its path from the root, its own
/// metadata and inode number (once watched), and its children: their names
/// end to end, and each one's end in `names`, kind, metadata and whether it
/// is a file with more than one name.
struct Listing {
    rel: Vec<u8>,
    own: Option<(Meta, u64)>,
    names: Vec<u8>,
    children: Vec<(usize, EntryKind, Meta, bool)>,
}

impl Listing {
    /// Adds the child `name` of the folder open as `dir`, unless it is gone.
    fn add(&mut self, dir: &Dir, name: &OsStr, kind: EntryKind) {
        // Listed but not to be looked at (its folder is `r--`): kept with
        // no size or time, as a fresh walk lists it.
        let (meta, linked) = match dir.stat_full(name) {
            Ok(full) => (full.stat.meta, full.linked),
            Err(e) if e.kind() == ErrorKind::PermissionDenied => (UNKNOWN_META, false),
            Err(_) => return,
        };
        self.names.extend_from_slice(name.as_encoded_bytes());
        self.children.push((self.names.len(), kind, meta, linked));
    }
}

/// The tree being made from the listings, shallowest first.
struct Assembly {
    tree: Tree,
    /// Each folder added, by its path from the root.
    folders: HashMap<Vec<u8>, Id>,
    /// Folders holding ignore files or a `.git`.
    with_rules: BTreeSet<Vec<u8>>,
    /// Folders the walk opened (their inode number known from the walk).
    opened: HashSet<Id>,
    /// Files with more than one name.
    linked: Vec<Id>,
}

impl Assembly {
    fn new(root_meta: Meta, folders: usize, git_holders: BTreeSet<Vec<u8>>) -> Assembly {
        let mut assembly = Assembly {
            tree: Tree::new(root_meta),
            folders: HashMap::with_capacity(folders),
            with_rules: git_holders,
            opened: HashSet::with_capacity(folders),
            linked: Vec::new(),
        };
        assembly.folders.insert(Vec::new(), ROOT);
        assembly
    }

    /// Adds the children of one folder's listing.
    fn add(&mut self, listing: Listing) {
        let tree = &mut self.tree;
        // A folder that vanished mid-walk (or was not listed in its
        // parent) was skipped: so is what it held.
        let Some(&id) = self.folders.get(&listing.rel) else { return };
        // Its own metadata as its walker saw it once watched (its entry
        // in its parent's listing may be older), and its inode number,
        // to tell it from one that replaces it.
        if let Some((meta, ino)) = listing.own {
            tree.node_mut(id).meta = meta;
            if id != ROOT {
                tree.set_ino(id, ino);
            }
            self.opened.insert(id);
        }
        let mut start = 0;
        for &(end, kind, meta, is_linked) in &listing.children {
            let name = &listing.names[start..end];
            start = end;
            if kind == EntryKind::File && (name == GITIGNORE.as_bytes() || name == IGNORE.as_bytes()) {
                self.with_rules.insert(listing.rel.clone());
            }
            let child = tree.add(id, name, kind, meta);
            if is_linked {
                self.linked.push(child);
            }
            if kind == EntryKind::Dir {
                let rel = match listing.rel.is_empty() {
                    true => name.to_vec(),
                    false => [&listing.rel[..], b"/", name].concat(),
                };
                self.folders.insert(rel, child);
            }
        }
    }
}

/// Lists every folder below `dir` (real path `root`) on `thread_count()`
/// threads: each thread's listings.
fn list_all(
    dir: &Arc<Dir>,
    root: &Path,
    gate: &Gate,
    watches: Option<&dyn FolderWatches>,
) -> Result<Vec<Vec<Listing>>> {
    let first = Pending::root(FolderAt::Open(Arc::clone(dir)), None);
    let walk = Walk {
        queue: Mutex::new(Queue { pending: vec![first], busy: 0, stop: false }),
        wake: Condvar::new(),
        found: Mutex::new(Vec::new()),
        failure: Mutex::new(None),
        root,
        gate,
        watches,
    };
    std::thread::scope(|scope| {
        for _ in 1..thread_count() {
            scope.spawn(|| walk.work());
        }
        walk.work();
    });
    if let Some(err) = unpoisoned(walk.failure.into_inner()) {
        return Err(err);
    }
    Ok(unpoisoned(walk.found.into_inner()))
}

/// How the walk reaches a folder.
enum FolderAt {
    Open(Arc<Dir>),
    /// A child of an open folder, opened when its turn comes (so only folders
    /// with children still waiting hold a descriptor).
    Child(Arc<Dir>, OsString),
}

/// Folders waiting to be listed, shared by the walker threads.
struct Queue {
    pending: Vec<Pending<FolderAt>>,
    /// Threads holding a folder: when none does and nothing is pending, the walk is over.
    busy: usize,
    /// Set when the walk ends early (a failure).
    stop: bool,
}

struct Walk<'a> {
    queue: Mutex<Queue>,
    wake: Condvar,
    found: Mutex<Vec<Vec<Listing>>>,
    failure: Mutex<Option<FindError>>,
    root: &'a Path,
    gate: &'a Gate<'a>,
    watches: Option<&'a dyn FolderWatches>,
}

impl Walk<'_> {
    /// A walker thread: takes folders until there are none left.
    fn work(&self) {
        let mut listings = Vec::new();
        let mut children = Vec::new();
        let mut next = None;
        let mut holding = false;
        loop {
            let work = match next.take() {
                Some(work) => work,
                None => match self.take(holding) {
                    Some(work) => work,
                    None => break,
                },
            };
            holding = true;
            if let Err(err) = self.list(work, &mut listings, &mut children) {
                self.fail(err);
                break;
            }
            // Keep one child to list next (depth first, no lock); share the rest.
            next = children.pop();
            if !children.is_empty() {
                lock(&self.queue).pending.append(&mut children);
                self.wake.notify_all();
            }
        }
        lock(&self.found).push(listings);
    }

    /// The next folder, or `None` once the walk is over. `done` says this
    /// thread finished the folder it held.
    fn take(&self, done: bool) -> Option<Pending<FolderAt>> {
        let mut queue = lock(&self.queue);
        if done {
            queue.busy -= 1;
        }
        loop {
            if queue.stop {
                return None;
            }
            if let Some(work) = queue.pending.pop() {
                queue.busy += 1;
                return Some(work);
            }
            if queue.busy == 0 {
                queue.stop = true;
                self.wake.notify_all();
                return None;
            }
            queue = unpoisoned(self.wake.wait(queue));
        }
    }

    fn fail(&self, err: FindError) {
        lock(&self.failure).get_or_insert(err);
        lock(&self.queue).stop = true;
        self.wake.notify_all();
    }

    /// Opens, watches and lists one folder into `listings`, and queues its
    /// child folders.
    fn list(
        &self,
        work: Pending<FolderAt>,
        listings: &mut Vec<Listing>,
        children: &mut Vec<Pending<FolderAt>>,
    ) -> Result<()> {
        let is_root = work.is_root();
        let dir = match &work.folder {
            FolderAt::Open(dir) => Arc::clone(dir),
            FolderAt::Child(parent, name) => match parent.open_dir(name) {
                Ok(dir) => Arc::new(dir),
                // Vanished, replaced by a file or a symlink, or not ours to read: skipped.
                Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                    self.gate.count(SkipReason::Denied, work.rel(), true);
                    return Ok(());
                }
                Err(e) if is_gone(&e) => return Ok(()),
                Err(e) => return Err(cannot_list(self.root, work.rel(), &e, "the OS")),
            },
        };
        // No ignore files: the rules are off (each folder's are read once the tree is built).
        let (_, mut visit) = self.gate.visit(work, |_| Ok(None))?;
        let rel = visit.folder_rel().as_os_str().as_encoded_bytes().to_vec();
        if let Some(watches) = self.watches {
            watches.watch_unplaced(&dir, &rel);
        }
        // After the watch: a change to the folder from now on raises an event.
        let own = dir.stat_full(OsStr::new(".")).ok().map(|full| (full.stat.meta, full.ino));
        let mut listing = Listing { rel, own, names: Vec::new(), children: Vec::new() };
        let mut stopped = None;
        let listed = dir.for_each(|name, kind| {
            let Some(kind) = kind else { return };
            if stopped.is_some() {
                return;
            }
            match visit.child(name, kind) {
                Ok(Some(_)) => {}
                Ok(None) => return,
                Err(e) => {
                    stopped = Some(e);
                    return;
                }
            }
            listing.add(&dir, name, kind);
            children.extend(visit.descend(|| FolderAt::Child(Arc::clone(&dir), name.to_owned())));
        });
        // What was read is kept, whatever stopped the listing.
        let folder_rel = visit.folder_rel().into_owned();
        listings.push(listing);
        if let Some(e) = stopped {
            return Err(e);
        }
        match listed {
            // Removed while it was being listed (getdents says ENOENT).
            Err(e) if !is_root && is_gone(&e) => Ok(()),
            // Opened, but its listing refused (`/proc/<pid>/map_files`): skipped
            // like a folder that cannot be opened.
            Err(e) if !is_root && e.kind() == ErrorKind::PermissionDenied => {
                self.gate.count(SkipReason::Denied, &folder_rel, true);
                Ok(())
            }
            listed => listed.map_err(|e| cannot_list(self.root, &folder_rel, &e, "the OS")),
        }
    }
}
