//! The walk over a live index (see `index`): the same rules as on disk,
//! applied to the tree held in memory, with the metadata it holds; the
//! folders' ignore files are already compiled, so a query reads no file.
//!
//! What passes the rules (hidden, ignore files, skipped folders, `exclude`,
//! depth) depends on the rules and the tree only, not on the pattern: it is
//! kept per set of rules (`Visible`) until the tree changes, so a repeated
//! search only tests its pattern against a flat list, on every core.
//!
//! A content search hands the walk its `Prefilter` (`screen`): files whose
//! sketch in the content layer rules out a match are tested a whole run at
//! a time, in one tight loop, and never offered to the collector.

use super::content::{ContentLayer, LayerMasks, Learnt};
use super::tree::{Handle, Id, Tree};
use super::Index;
use crate::cancel::Cancel;
use crate::content_sketch::{Prefilter, RuledOut, Sketch};
use crate::entry::{EntryKind, Meta};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::gitignore::Rules;
use crate::path_bytes::os_str;
use crate::result::{SkipReason, Tally};
use crate::sandbox::{search_path_error, Asked};
use crate::sync::{lock, unpoisoned};
use crate::walk::{
    gated, thread_count, Collector, Entry, Gate, KnownContents, KnownFile, OpenedFolders, Pending, Screen, WalkRules,
    CANCEL_EVERY,
};
use std::cell::{Cell, RefCell};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLockReadGuard};

/// How many sets of rules keep their `Visible` list.
const VISIBLE_KEPT: usize = 4;

/// What one set of rules lets through from one folder of the index: the
/// relative paths (back to back), kinds and metadata, in walk order.
#[derive(Debug, Default)]
pub struct Visible {
    paths: Vec<u8>,
    ends: Vec<u32>,
    kinds: Vec<EntryKind>,
    metas: Vec<Meta>,
    handles: Vec<Handle>,
    /// Folders not entered because of `skip_dirs`.
    pub skipped: Vec<String>,
    /// With `record_ignored`: what ignore files hid (relative, whether a
    /// folder). Kept with the list, so a search answered from it again still
    /// says where matches were not looked for.
    pub ignored: Vec<(String, bool)>,
    /// With `WalkRules::tally`: what the rules left out, by reason.
    pub tally: Tally,
    /// Where each entry's sketch is in the content layer, for the layer's
    /// version it was made at (see `places_of`).
    places: Mutex<Option<(u64, Arc<Places>)>>,
}

/// Each visible entry's sketch in the content layer (its place, and whether
/// its file is binary), `None` where the layer knows none: a query's screen
/// then reads these in order and tests a bit of its masks (a few KB, in the
/// processor's cache) rather than looking up every file's slot.
type Places = Vec<Option<(super::sliced::Place, bool)>>;

impl Visible {
    fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Its files: each one's path, handle and metadata, in walk order.
    fn files(&self) -> Vec<(Vec<u8>, Handle, Meta)> {
        (0..self.len())
            .filter(|&i| self.kinds[i] == EntryKind::File)
            .map(|i| (self.path(i).to_vec(), self.handles[i], self.metas[i]))
            .collect()
    }

    fn path(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.paths[start..self.ends[i] as usize]
    }

    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        let ignored: usize =
            self.ignored.iter().map(|(p, _)| p.capacity() + std::mem::size_of::<(String, bool)>()).sum();
        self.paths.capacity()
            + self.ends.capacity() * 4
            + self.kinds.capacity()
            + self.metas.capacity() * 16
            + self.handles.capacity() * 8
            + lock(&self.places)
                .as_ref()
                .map_or(0, |(_, p)| p.capacity() * std::mem::size_of::<Option<(super::sliced::Place, bool)>>())
            + ignored
    }
}

/// What a `Visible` list depends on besides the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct VisibleKey {
    pub folder: Vec<u8>,
    pub rules: WalkRules,
}

/// The lists kept for recent queries' rules, each with the generation of
/// the tree it was made from.
pub type KeptVisible = Vec<(VisibleKey, u64, Arc<Visible>)>;

impl Index {
    /// What `key`'s rules let through in the current tree: kept from an
    /// earlier query if the tree has not changed since, else made by `build`.
    fn visible(&self, key: &VisibleKey, build: impl FnOnce(&Tree) -> Result<Visible>) -> Result<Arc<Visible>> {
        let tree = self.read()?;
        let generation = self.generation.load(Ordering::SeqCst);
        let kept =
            lock(&self.visible).iter().find(|(k, g, _)| k == key && *g == generation).map(|(.., v)| Arc::clone(v));
        if let Some(visible) = kept {
            return Ok(visible);
        }
        let visible = Arc::new(build(&tree)?);
        let mut cache = lock(&self.visible);
        cache.retain(|(k, g, _)| *g == generation && k != key);
        if cache.len() >= VISIBLE_KEPT {
            cache.remove(0);
        }
        cache.push((key.clone(), generation, Arc::clone(&visible)));
        Ok(visible)
    }

    /// The content layer, for a query to read.
    pub(super) fn content(&self) -> RwLockReadGuard<'_, ContentLayer> {
        unpoisoned(self.content.read())
    }

    /// Keeps what a query learnt of files' contents (see `ContentLayer::keep`).
    pub(super) fn keep_learnt(&self, epoch: u64, learnt: Vec<Learnt>) {
        unpoisoned(self.content.write()).keep(epoch, learnt);
    }

    /// The ignore rules that apply to the folder `start` from above it, as
    /// `rules_above_on_disk` gives them: from the nearest folder holding
    /// `.git` (in the index or above it) down to `start`'s parent.
    fn rules_above(&self, tree: &Tree, start: Id) -> Rules {
        let start_path = self.real_path.join(os_str(&tree.path(start)));
        let has_git = |id: Id| tree.node(id).rules.as_ref().is_some_and(|r| r.has_git());
        if has_git(start) {
            return Rules::default();
        }
        let chain = tree.ancestors(start);
        let from = chain.iter().rposition(|&id| has_git(id));
        let mut rules = Rules::default();
        if from.is_none() {
            for (folder, compiled) in &self.above {
                rules = rules.above(&start_path, folder, compiled.as_ref());
            }
        }
        for &id in &chain[from.unwrap_or(0)..] {
            let folder = self.real_path.join(os_str(&tree.path(id)));
            rules = rules.above(&start_path, &folder, tree.node(id).rules.as_ref());
        }
        rules
    }
}

/// Walks the index from the folder at `rel` (relative to the index's root),
/// with a collector per walker thread over the entries the rules let through.
/// With `screen`, the files whose sketch rules out a match of it are not
/// offered (counted as binary when their sketch says they are).
pub fn walk<C, M>(
    index: &Index,
    rel: &[u8],
    root: &Path,
    gate: &Gate,
    screen: Option<Screen>,
    new_collector: M,
) -> Result<Vec<C::Out>>
where
    C: Collector,
    M: Fn() -> C + Sync,
{
    let cancel = gate.cancel();
    let visible = visible_below(index, rel, root, gate)?;
    // Files are opened from the search folder, by handle (content search).
    // A search folder the OS refuses to open (mode 000 or --x, or below an
    // r-- folder) is refused as a walk on disk refuses it, never answered
    // from memory nor read from another folder.
    let root_dir = index.dir()?;
    let start_dir = match rel.is_empty() {
        true => None,
        false => root_dir
            .folder_beneath(Path::new(os_str(rel)))
            .map_err(|e| search_path_error(&clip(&root.to_string_lossy(), 300), &e, Asked::Os))?,
    };
    let base = start_dir.as_ref().unwrap_or(&root_dir);
    // Until the background build has looked at every file, a search reads
    // as a fresh search does: sketching and copying each file as it goes
    // would make the first searches of a session slower than a fresh one.
    let learns = index.status.sketches.settled();
    // The screen's answer for every file the layer knows, made once and
    // again only when the layer changed (it may between runs).
    let masks: Mutex<Option<Arc<LayerMasks>>> = Mutex::new(None);
    // Threads take runs of `RUN` entries in turn, so one with slow files
    // (large, or not in memory) does not leave the others idle at the end.
    let next = AtomicUsize::new(0);
    let collect = || -> Result<C::Out> {
        let mut collector = new_collector();
        let folders = OpenedFolders::new(base);
        loop {
            let start = next.fetch_add(RUN, Ordering::Relaxed);
            if start >= visible.len() {
                return Ok(collector.finish());
            }
            let end = visible.len().min(start + RUN);
            let mut i = start;
            while i < end {
                // The content layer is read under its lock for a run at
                // most, and what the run learnt kept at its end (sooner
                // once `LEARNT_BYTES` of contents wait), so events are
                // applied meanwhile and memory stays bounded.
                let layer = index.content();
                let known = SliceContents::new(&visible, &layer, learns);
                let from = i;
                let ruled_out = screen.map(|screen| {
                    let masks = masks_of(&masks, &layer, screen.prefilter);
                    let places = places_of(&visible, &layer);
                    places[from..end].iter().map(|p| p.and_then(|p| masks.rules_out(p))).collect::<Vec<_>>()
                });
                // Counted once a run, not under the gate's lock at each file.
                let mut binary = 0;
                while i < end && known.pending.get() < LEARNT_BYTES {
                    if i.is_multiple_of(CANCEL_EVERY as usize) {
                        cancel.check()?;
                    }
                    if let Some(out) = ruled_out.as_ref().and_then(|out| out[i - from]) {
                        // A search would have read it to its NUL, if it looks at it at all:
                        // counted as it would be.
                        let considered = || screen.is_some_and(|s| (s.considers)(Path::new(os_str(visible.path(i)))));
                        binary += u64::from(out == RuledOut::Binary && considered());
                        i += 1;
                        continue;
                    }
                    let path = Path::new(os_str(visible.path(i)));
                    let entry = Entry::indexed(visible.kinds[i], visible.metas[i], path, &folders, i, &known);
                    collector.offer(path, visible.kinds[i], &entry);
                    i += 1;
                }
                gate.count_files(SkipReason::Binary, binary);
                let (epoch, learnt) = (known.epoch, known.learnt.into_inner());
                drop(layer);
                if !learnt.is_empty() {
                    index.keep_learnt(epoch, learnt);
                }
            }
        }
    };
    let threads = thread_count().min(index.bounds.threads).min(visible.len().div_ceil(RUN)).max(1);
    let parts: Vec<Result<C::Out>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads).map(|_| scope.spawn(collect)).collect();
        let mut parts = vec![collect()];
        parts.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(panicked()))));
        parts
    });
    parts.into_iter().collect()
}

/// The files below the index's root that `rules` let through, each with its
/// path, handle and metadata, in walk order: for the background build, so
/// read without the checks that fail an index (and not kept).
pub(super) fn files_searched(index: &Index, rules: &WalkRules) -> Result<Vec<(Vec<u8>, Handle, Meta)>> {
    let walked = gated(rules, &Cancel::never(), |gate| {
        let tree = index.read_in_background()?;
        Ok(list_visible(index, &tree, b"", &index.logical_path, gate)?.files())
    })?;
    Ok(walked.found)
}

/// Makes and keeps the list of what `rules` let through from the root, and
/// where its files' sketches lie in the content layer as it is, as the first
/// search with those rules would (see `Index::open_saved`).
pub(super) fn make_visible(index: &Index, rules: &WalkRules) {
    let _ = gated(rules, &Cancel::never(), |gate| {
        let visible = visible_below(index, b"", &index.logical_path, gate)?;
        places_of(&visible, &index.content());
        Ok(Vec::<()>::new())
    });
}

/// What the rules let through below the folder at `rel`, with what they
/// left out reported to the gate, as a walk on disk reports it.
fn visible_below(index: &Index, rel: &[u8], root: &Path, gate: &Gate) -> Result<Arc<Visible>> {
    // The search folder opened as a fresh call opens it, by its path: the
    // index reads through handles it opened earlier, which a mode changed
    // since (the indexed folder's own, or a folder's above it) does not
    // close, so only this tells that the OS now refuses it.
    if let Err(e) = crate::dir::Dir::open(&index.real_path().join(os_str(rel))) {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            return Err(search_path_error(&clip(&root.to_string_lossy(), 300), &e, Asked::Os));
        }
    }
    let key = VisibleKey { folder: rel.to_vec(), rules: gate.rules().clone() };
    let mut visible = index.visible(&key, |tree| list_visible(index, tree, rel, root, gate))?;
    // Hard-linked files without a watch of their own may have changed
    // unseen: looked at again, and the list made anew if one had.
    if index.look_at_unwatched_files(&visible.handles)? {
        visible = index.visible(&key, |tree| list_visible(index, tree, rel, root, gate))?;
    }
    gate.add_skipped(visible.skipped.iter().cloned());
    gate.add_ignored(visible.ignored.iter().cloned());
    gate.add_tally(&visible.tally);
    Ok(visible)
}

/// Entries a walker thread takes at a time.
const RUN: usize = 1024;
/// File contents a run may read for the cache before it hands them over.
const LEARNT_BYTES: usize = 16 << 20;

/// What the index knows of the contents of `Visible`'s files, and what a
/// run of the walk learnt of them (kept once it is done).
struct SliceContents<'a> {
    visible: &'a Visible,
    layer: &'a ContentLayer,
    /// Whether the run keeps what it reads (see `walk`).
    learns: bool,
    epoch: u64,
    learnt: RefCell<Vec<Learnt>>,
    /// Bytes of contents in `learnt`.
    pending: Cell<usize>,
}

impl<'a> SliceContents<'a> {
    fn new(visible: &'a Visible, layer: &'a ContentLayer, learns: bool) -> SliceContents<'a> {
        SliceContents {
            visible,
            layer,
            learns,
            epoch: layer.epoch(),
            learnt: RefCell::default(),
            pending: Cell::new(0),
        }
    }
}

impl KnownContents for SliceContents<'_> {
    fn known(&self, at: usize) -> Option<KnownFile<'_>> {
        self.layer.get(self.visible.handles[at], self.visible.metas[at])
    }

    fn wants_sketch(&self) -> bool {
        self.learns && self.layer.wants_sketch()
    }

    fn wants_contents(&self, size: u64) -> bool {
        self.learns && self.layer.wants_contents(size)
    }

    fn remember(&self, at: usize, sketch: Option<Sketch>, contents: Option<Box<[u8]>>) {
        let (handle, meta) = (self.visible.handles[at], self.visible.metas[at]);
        self.pending.set(self.pending.get() + contents.as_ref().map_or(0, |c| c.len()));
        self.learnt.borrow_mut().push(Learnt { handle, meta, sketch, contents, stamp: None });
    }
}

/// Where `visible`'s entries' sketches are in the layer as it is, made
/// again only when the layer changed since (its version).
fn places_of(visible: &Visible, layer: &ContentLayer) -> Arc<Places> {
    let mut kept = lock(&visible.places);
    match &*kept {
        Some((version, places)) if *version == layer.version() => Arc::clone(places),
        _ => {
            let places: Places = (0..visible.len())
                .map(|i| match visible.kinds[i] {
                    EntryKind::File => layer.place_of(visible.handles[i], visible.metas[i]),
                    _ => None,
                })
                .collect();
            Arc::clone(&kept.insert((layer.version(), Arc::new(places))).1)
        }
    }
}

/// The masks of `prefilter` for the layer as it is, from `kept` when they
/// are of its version.
fn masks_of(kept: &Mutex<Option<Arc<LayerMasks>>>, layer: &ContentLayer, prefilter: &Prefilter) -> Arc<LayerMasks> {
    let mut kept = lock(kept);
    match &*kept {
        Some(masks) if masks.version == layer.version() => Arc::clone(masks),
        _ => Arc::clone(kept.insert(Arc::new(layer.masks(prefilter)))),
    }
}

fn panicked() -> FindError {
    FindError::new(
        ErrorCode::FsError,
        "internal error in agent-find (please report it): an index search thread panicked",
    )
}

/// The walk proper: every entry below the folder `rel` that the rules let through.
fn list_visible(index: &Index, tree: &Tree, rel: &[u8], root: &Path, gate: &Gate) -> Result<Visible> {
    let Some(start) = tree.find(rel).filter(|&id| tree.node(id).kind == EntryKind::Dir) else {
        return Err(FindError::new(
            ErrorCode::NotFound,
            format!("search path `{}` is no longer in the index (it was removed)", clip(&root.to_string_lossy(), 300)),
        ));
    };
    let above = gate.rules().gitignore.then(|| index.rules_above(tree, start));
    let mut pending: Vec<Pending<Id>> = vec![Pending::root(start, above)];
    let mut visible = Visible::default();
    while let Some(work) = pending.pop() {
        let node = tree.node(work.folder);
        // Refused to the index as a walk is refused it (the search folder
        // itself is refused before this, as on disk).
        if node.denied && !work.is_root() {
            gate.count(SkipReason::Denied, work.rel(), true);
            continue;
        }
        let (_, mut visit) = gate.visit(work, |_| Ok(node.rules.clone()))?;
        for &child in &node.children {
            let entry = tree.node(child);
            let Some(rel) = visit.child(os_str(tree.name(child)), entry.kind)? else { continue };
            visible.paths.extend_from_slice(rel.as_os_str().as_encoded_bytes());
            visible.ends.push(visible.paths.len() as u32);
            visible.kinds.push(entry.kind);
            visible.metas.push(entry.meta);
            visible.handles.push(tree.handle(child));
            pending.extend(visit.descend(|| child));
        }
    }
    visible.skipped = gate.take_skipped();
    visible.ignored = gate.take_ignored();
    visible.tally = gate.take_tally();
    Ok(visible)
}
