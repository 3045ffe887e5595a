//! The walk that builds the live index's tree: at open, and again whole
//! when the OS dropped events or the keeper's work panicked. It lists every
//! entry (hidden and ignored ones too: a query may ask for them), with its
//! metadata, in parallel, then reads the ignore files of the few folders
//! that hold any.
//!
//! It runs on the disk walk's threads (`walk::walk_folders`) with a folder
//! step of its own (`BuildLister`): with a watcher that watches folder by
//! folder, each folder is watched once opened and before it is listed, so
//! every change after the walk saw a folder raises an event (one parallel
//! pass: no walk of its own for the watches); the search walk's step knows
//! nothing of watches.

use super::disk::{folder_rules, UNKNOWN_META};
use super::tree::{Id, Tree, ROOT};
use super::watch::FolderWatches;
use crate::calls_in_flight::wait_while_calls;
use crate::cancel::Cancel;
use crate::dir::Dir;
use crate::entry::{EntryKind, Meta};
use crate::error::{ErrorCode, FindError, Result};
use crate::gitignore::{GitEnv, GITIGNORE, IGNORE};
use crate::limits::{INDEX_BUILD_STEP_ASIDE_MS, INDEX_BYTES_PER_ENTRY};
use crate::path_bytes::os_str;
use crate::result::SkipReason;
use crate::walk::{gated, listing_ended, walk_folders, Excludes, FolderAt, Gate, ListFolder, Pending, WalkRules};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsStr;
use std::io::ErrorKind;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A new tree of the folder `dir`, whose real path is `root`, and the files
/// in it with more than one name (for `Index::watch_links`). With
/// `watches`, each folder is watched as the walk opens it, before listing
/// it, and each `.git` before its rules are read. `steps_aside`: the walk
/// waits between folders while a call runs (the first build, which no call
/// waits for; a rescan, which calls may wait for, never does). Past
/// `max_entries` entries, or the memory that many take (`too_large`), the
/// walk stops and what it held is dropped.
pub fn build(
    dir: &Arc<Dir>,
    root: &Path,
    git: &GitEnv,
    watches: Option<&dyn FolderWatches>,
    steps_aside: bool,
    bounds: Bounds,
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
    let so_far = SoFar::new(bounds.max_entries);
    let walked = gated(&everything, &Cancel::never(), |gate| {
        list_all(dir, root, gate, watches, steps_aside, &so_far, bounds.threads)
    })?;
    let mut listings: Vec<ListedFolder> = walked.found.into_iter().flatten().collect();
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
struct ListedFolder {
    rel: Vec<u8>,
    own: Option<(Meta, u64)>,
    names: Vec<u8>,
    children: Vec<(usize, EntryKind, Meta, bool)>,
}

impl ListedFolder {
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
    fn add(&mut self, listing: ListedFolder) {
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

/// Lists every folder below `dir` (real path `root`): each thread's listings.
fn list_all(
    dir: &Arc<Dir>,
    root: &Path,
    gate: &Gate,
    watches: Option<&dyn FolderWatches>,
    steps_aside: bool,
    so_far: &SoFar,
    threads: usize,
) -> Result<Vec<Vec<ListedFolder>>> {
    let first = Pending::root(FolderAt::Open(Arc::clone(dir)), None);
    let lister = BuildLister { root, gate, watches, steps_aside, waited_ms: AtomicU64::new(0), so_far, threads };
    walk_folders(&lister, first, root, gate, Vec::new)
}

/// The build's folder step: watch, then list every child.
struct BuildLister<'a> {
    root: &'a Path,
    gate: &'a Gate<'a>,
    watches: Option<&'a dyn FolderWatches>,
    steps_aside: bool,
    /// How long it stepped aside so far, in ms (at most `INDEX_BUILD_STEP_ASIDE_MS`).
    waited_ms: AtomicU64,
    so_far: &'a SoFar,
    /// The most threads it may run on (`Bounds::threads`).
    threads: usize,
}

/// What a live index's whole walk is held to: the entries it may hold, and
/// the threads it may run on (`openIndex`'s `maxEntries` and `threads`).
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub max_entries: u64,
    pub threads: usize,
}

/// What a build has listed so far, against what it may hold: entries, and
/// the memory they take (estimated from their names' bytes and
/// `INDEX_BYTES_PER_ENTRY` each), counted as each folder is listed.
struct SoFar {
    max_entries: u64,
    /// What `max_entries` entries of names of average length take.
    max_bytes: u64,
    entries: AtomicU64,
    bytes: AtomicU64,
}

impl SoFar {
    fn new(max_entries: u64) -> SoFar {
        let max_bytes = max_entries.saturating_mul(INDEX_BYTES_PER_ENTRY + AVERAGE_NAME_BYTES);
        SoFar { max_entries, max_bytes, entries: AtomicU64::new(0), bytes: AtomicU64::new(0) }
    }

    /// Counts one folder's listing; the failure once past either bound.
    fn count(&self, listing: &ListedFolder) -> Result<()> {
        let n = listing.children.len() as u64;
        let entries = self.entries.fetch_add(n, Ordering::Relaxed) + n;
        let more = listing.names.len() as u64 + listing.rel.len() as u64 + n * INDEX_BYTES_PER_ENTRY;
        let bytes = self.bytes.fetch_add(more, Ordering::Relaxed) + more;
        match entries > self.max_entries || bytes > self.max_bytes {
            true => Err(too_large(entries, bytes, self.max_entries)),
            false => Ok(()),
        }
    }
}

/// Name bytes an entry is allowed on average before the memory bound is
/// reached ahead of the entry count (real trees: 15-25).
const AVERAGE_NAME_BYTES: u64 = 100;

/// The failure of a build past its bound (the index names its folder first).
fn too_large(entries: u64, bytes: u64, max_entries: u64) -> FindError {
    FindError::new(
        ErrorCode::TooLarge,
        format!(
            "holds more than a live index may: {entries} entries listed (about {} MB of memory) when the walk stopped, past `maxEntries` ({max_entries}); open the index on a narrower folder (a project rather than a home folder or a disk), or raise `maxEntries`",
            bytes >> 20
        ),
    )
}

impl BuildLister<'_> {
    /// Waits while a call runs, within what is left of the build's bound.
    fn step_aside(&self) {
        let left = INDEX_BUILD_STEP_ASIDE_MS.saturating_sub(self.waited_ms.load(Ordering::Relaxed));
        if left == 0 {
            return;
        }
        let start = Instant::now();
        if wait_while_calls(&|| start.elapsed() > Duration::from_millis(left)) {
            self.waited_ms.fetch_add(start.elapsed().as_millis() as u64, Ordering::Relaxed);
        }
    }
}

impl ListFolder for BuildLister<'_> {
    type Worker = Vec<ListedFolder>;
    type Out = Vec<ListedFolder>;

    fn threads(&self) -> usize {
        crate::walk::thread_count().min(self.threads)
    }

    fn finish(&self, listings: Vec<ListedFolder>) -> Vec<ListedFolder> {
        listings
    }

    /// Watches and lists one folder into `listings`, and queues its child folders.
    fn list(
        &self,
        listings: &mut Vec<ListedFolder>,
        dir: Arc<Dir>,
        work: Pending<FolderAt>,
        children: &mut Vec<Pending<FolderAt>>,
    ) -> Result<()> {
        if self.steps_aside {
            self.step_aside();
        }
        let is_root = work.is_root();
        // No ignore files: the rules are off (each folder's are read once the tree is built).
        let (_, mut visit) = self.gate.visit(work, |_| Ok(None))?;
        let rel = visit.folder_rel().as_os_str().as_encoded_bytes().to_vec();
        if let Some(watches) = self.watches {
            watches.watch_unplaced(&dir, &rel);
        }
        // After the watch: a change to the folder from now on raises an event.
        let own = dir.stat_full(OsStr::new(".")).ok().map(|full| (full.stat.meta, full.ino));
        let mut listing = ListedFolder { rel, own, names: Vec::new(), children: Vec::new() };
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
        self.so_far.count(&listing)?;
        listings.push(listing);
        if let Some(e) = stopped {
            return Err(e);
        }
        listing_ended(self.gate, self.root, is_root, &folder_rel, listed)
    }
}
