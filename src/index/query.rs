//! The walk over a live index (see `index`): the same rules as on disk,
//! applied to the tree held in memory, with the metadata it holds; the
//! folders' ignore files are already compiled, so a query reads no file.
//!
//! What passes the rules (hidden, ignore files, skipped folders, `exclude`,
//! depth) depends on the rules and the tree only, not on the pattern: it is
//! kept per set of rules (`Visible`) until the tree changes, so a repeated
//! search only tests its pattern against a flat list, on every core.

use super::tree::{Id, Tree};
use super::{os, Index};
use crate::cancel::Cancel;
use crate::entry::{EntryKind, Meta};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::gitignore::Rules;
use crate::walk::{thread_count, Entry, Gate, WalkRules, CANCEL_EVERY};
use std::path::Path;

/// What one set of rules lets through from one folder of the index: the
/// relative paths (back to back), kinds and metadata, in walk order.
#[derive(Debug, Default)]
pub struct Visible {
    paths: Vec<u8>,
    ends: Vec<u32>,
    kinds: Vec<EntryKind>,
    metas: Vec<Meta>,
    /// Folders not entered because of `skip_dirs`.
    pub skipped: Vec<String>,
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
        self.paths.capacity() + self.ends.capacity() * 4 + self.kinds.capacity() + self.metas.capacity() * 16
    }
}

/// What a `Visible` list depends on besides the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct VisibleKey {
    pub folder: Vec<u8>,
    pub rules: WalkRules,
}

/// Walks the index from the folder at `rel` (relative to the index's root).
pub fn walk<T, M, S>(
    index: &Index,
    rel: &[u8],
    root: &Path,
    gate: &Gate,
    cancel: &Cancel,
    new_selector: M,
) -> Result<Vec<T>>
where
    T: Send,
    M: Fn() -> S + Sync,
    S: FnMut(&Path, EntryKind, &Entry) -> Option<T> + Send,
{
    let key = VisibleKey { folder: rel.to_vec(), rules: gate.rules().clone() };
    let visible = index.visible(&key, |tree| list_visible(index, tree, rel, root, gate, cancel))?;
    gate.add_skipped(visible.skipped.iter().cloned());
    let chunk = visible.len().div_ceil(thread_count()).max(4096);
    let select_range = |start: usize| {
        let mut select = new_selector();
        let mut found = Vec::new();
        for i in start..visible.len().min(start + chunk) {
            if i % CANCEL_EVERY as usize == 0 {
                cancel.check()?;
            }
            let entry = Entry::known(visible.kinds[i], visible.metas[i]);
            if let Some(item) = select(Path::new(os(visible.path(i))), visible.kinds[i], &entry) {
                found.push(item);
            }
        }
        Ok(found)
    };
    let parts: Vec<Result<Vec<T>>> = std::thread::scope(|scope| {
        let starts: Vec<usize> = (0..visible.len()).step_by(chunk).collect();
        let (first, rest) = starts.split_first().map_or((None, &[][..]), |(f, r)| (Some(*f), r));
        let handles: Vec<_> = rest.iter().map(|&start| scope.spawn(move || select_range(start))).collect();
        let mut parts = vec![first.map_or(Ok(Vec::new()), select_range)];
        parts.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(panicked()))));
        parts
    });
    let mut found = Vec::new();
    for part in parts {
        found.extend(part?);
    }
    Ok(found)
}

fn panicked() -> FindError {
    FindError::new(
        ErrorCode::FsError,
        "internal error in agent-find (please report it): an index search thread panicked",
    )
}

/// The walk proper: every entry below the folder `rel` that the rules let through.
fn list_visible(index: &Index, tree: &Tree, rel: &[u8], root: &Path, gate: &Gate, cancel: &Cancel) -> Result<Visible> {
    let Some(start) = tree.find(rel).filter(|&id| tree.node(id).kind == EntryKind::Dir) else {
        return Err(FindError::new(
            ErrorCode::NotFound,
            format!("search path `{}` is no longer in the index (it was removed)", clip(&root.to_string_lossy(), 300)),
        ));
    };
    let ignore = gate.rules().gitignore.then(|| index.rules_above(tree, start));
    let mut pending: Vec<(Id, Vec<u8>, usize, Option<Rules>)> = vec![(start, Vec::new(), 0, ignore)];
    let mut visible = Visible::default();
    let mut seen = 0u32;
    while let Some((id, mut rel, depth, ignore)) = pending.pop() {
        let node = tree.node(id);
        let prefix = if rel.is_empty() { 0 } else { rel.len() + 1 };
        let ignore = ignore.map(|rules| rules.enter_compiled(node.rules.as_ref(), prefix));
        let descend = gate.descends_at(depth + 1);
        if prefix > 0 {
            rel.push(b'/');
        }
        for &child in &node.children {
            seen = seen.wrapping_add(1);
            if seen.is_multiple_of(CANCEL_EVERY) {
                cancel.check()?;
            }
            let entry = tree.node(child);
            let name = tree.name(child);
            rel.truncate(prefix);
            rel.extend_from_slice(name);
            let is_dir = entry.kind == EntryKind::Dir;
            if !gate.passes(os(name), Path::new(os(&rel)), is_dir, ignore.as_ref()) {
                continue;
            }
            visible.paths.extend_from_slice(&rel);
            visible.ends.push(visible.paths.len() as u32);
            visible.kinds.push(entry.kind);
            visible.metas.push(entry.meta);
            if is_dir && descend {
                pending.push((child, rel.clone(), depth + 1, ignore.clone()));
            }
        }
    }
    visible.skipped = gate.take_skipped();
    Ok(visible)
}
