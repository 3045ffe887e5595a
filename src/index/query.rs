//! The walk over a live index (see `index`): the same rules as on disk,
//! applied to the tree held in memory, with the metadata it holds; the
//! folders' ignore files are already compiled, so a query reads no file.
//!
//! What passes the rules (hidden, ignore files, skipped folders, `exclude`,
//! depth) depends on the rules and the tree only, not on the pattern: it is
//! kept per set of rules (`Visible`) until the tree changes, so a repeated
//! search only tests its pattern against a flat list, on every core.

use super::content::Sketches;
use super::tree::{Handle, Id, Tree};
use super::{os, Index};
use crate::content_sketch::Sketch;
use crate::entry::{EntryKind, Meta};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::sandbox::{search_path_error, Asked};
use crate::walk::{
    thread_count, Collector, Entry, Gate, KnownContents, OpenedFolders, Pending, WalkRules, CANCEL_EVERY,
};
use std::cell::RefCell;
use std::path::Path;

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
}

impl Visible {
    fn len(&self) -> usize {
        self.kinds.len()
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
            + ignored
    }
}

/// What a `Visible` list depends on besides the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct VisibleKey {
    pub folder: Vec<u8>,
    pub rules: WalkRules,
}

/// Walks the index from the folder at `rel` (relative to the index's root),
/// with a collector per slice of the entries the rules let through.
pub fn walk<C, M>(index: &Index, rel: &[u8], root: &Path, gate: &Gate, new_collector: M) -> Result<Vec<C::Out>>
where
    C: Collector,
    M: Fn() -> C + Sync,
{
    let cancel = gate.cancel();
    let key = VisibleKey { folder: rel.to_vec(), rules: gate.rules().clone() };
    let visible = index.visible(&key, |tree| list_visible(index, tree, rel, root, gate))?;
    gate.add_skipped(visible.skipped.iter().cloned());
    gate.add_ignored(visible.ignored.iter().cloned());
    let chunk = visible.len().div_ceil(thread_count()).max(4096);
    // Files are opened from the search folder, by handle (content search).
    // A search folder the OS refuses to open (mode 000 or --x, or below an
    // r-- folder) is refused as a walk on disk refuses it, never answered
    // from memory nor read from another folder.
    let root_dir = index.dir()?;
    let start_dir = match rel.is_empty() {
        true => None,
        false => root_dir
            .folder_beneath(Path::new(os(rel)))
            .map_err(|e| search_path_error(&clip(&root.to_string_lossy(), 300), &e, Asked::Os))?,
    };
    let base = start_dir.as_ref().unwrap_or(&root_dir);
    let collect_range = |start: usize| {
        let mut collector = new_collector();
        let folders = OpenedFolders::new(base);
        let sketches = index.sketches();
        let known =
            SliceContents { visible: &visible, epoch: sketches.epoch(), sketches: &sketches, made: RefCell::default() };
        for i in start..visible.len().min(start + chunk) {
            if i % CANCEL_EVERY as usize == 0 {
                cancel.check()?;
            }
            let path = Path::new(os(visible.path(i)));
            let entry = Entry::indexed(visible.kinds[i], visible.metas[i], path, &folders, i, &known);
            collector.offer(path, visible.kinds[i], &entry);
        }
        let (epoch, made) = (known.epoch, known.made.into_inner());
        drop(sketches);
        if !made.is_empty() {
            index.keep_sketches(epoch, made);
        }
        Ok(collector.finish())
    };
    let parts: Vec<Result<C::Out>> = std::thread::scope(|scope| {
        let starts: Vec<usize> = (0..visible.len()).step_by(chunk).collect();
        let (first, rest) = starts.split_first().map_or((None, &[][..]), |(f, r)| (Some(*f), r));
        let handles: Vec<_> = rest.iter().map(|&start| scope.spawn(move || collect_range(start))).collect();
        let mut parts = vec![first.map_or_else(|| Ok(new_collector().finish()), collect_range)];
        parts.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(panicked()))));
        parts
    });
    parts.into_iter().collect()
}

/// What the index knows of the contents of a slice of `Visible`'s files,
/// and the sketches made while it is searched (kept once it is done).
struct SliceContents<'a> {
    visible: &'a Visible,
    sketches: &'a Sketches,
    epoch: u64,
    made: RefCell<Vec<(Handle, Meta, Sketch)>>,
}

impl KnownContents for SliceContents<'_> {
    fn sketch(&self, at: usize) -> Option<&Sketch> {
        self.sketches.get(self.visible.handles[at], self.visible.metas[at])
    }

    fn wants_sketch(&self) -> bool {
        self.sketches.has_room()
    }

    fn remember(&self, at: usize, sketch: Sketch) {
        self.made.borrow_mut().push((self.visible.handles[at], self.visible.metas[at], sketch));
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
        let (_, mut visit) = gate.visit(work, |_| Ok(node.rules.clone()))?;
        for &child in &node.children {
            let entry = tree.node(child);
            let is_dir = entry.kind == EntryKind::Dir;
            let Some(rel) = visit.child(os(tree.name(child)), is_dir)? else { continue };
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
    Ok(visible)
}
