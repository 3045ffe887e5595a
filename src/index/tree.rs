//! The live index's picture of a folder tree, kept compact: entries in one
//! arena (no per-path strings), names interned (a name shared by many files,
//! such as `index.ts`, is stored once), and each folder's ignore files kept
//! compiled. Paths are rebuilt from parent links when needed.
//!
//! A slot is reused once its entry is removed, so an id kept across changes
//! may name another entry by then: what outlives a change is kept as a
//! `Handle` (the id and the serial of the entry it named), checked with
//! `resolve` before use.

use crate::entry::{EntryKind, Meta};
use crate::gitignore::FolderRules;
use crate::names::NameRule;
use std::collections::HashMap;
use std::sync::Arc;

/// An entry's slot in the arena; the root is 0.
pub type Id = u32;
pub const ROOT: Id = 0;

/// An entry named so that its removal is noticed: `Tree::resolve` gives its
/// id while that entry is in the tree, `None` once it is gone (even if its
/// slot holds another entry since).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Handle {
    id: Id,
    serial: u32,
}

impl Handle {
    /// The slot it names (which may hold another entry since: see `Tree::resolve`).
    pub fn id(&self) -> Id {
        self.id
    }

    /// A handle to slot `id`, for tests of what is kept by handle.
    #[cfg(test)]
    pub fn for_test(id: Id) -> Handle {
        Handle { id, serial: 0 }
    }
}

#[derive(Debug)]
pub struct Node {
    name: u32,
    parent: Id,
    /// Told apart from earlier entries in the same slot (see `Handle`).
    serial: u32,
    pub kind: EntryKind,
    pub meta: Meta,
    /// Children of a folder (empty otherwise).
    pub children: Vec<Id>,
    /// A folder's compiled ignore files, when it has any (or holds `.git`).
    pub rules: Option<Arc<FolderRules>>,
    /// A folder the OS would not let the index open or list: a walk is
    /// refused it too, and `skipped` counts it as `denied`.
    pub denied: bool,
}

impl Node {
    /// The folder holding it (the root for the root).
    pub fn parent(&self) -> Id {
        self.parent
    }
}

/// Names by number, each stored once, counted so unused ones are dropped.
#[derive(Debug, Default)]
struct Names {
    text: Vec<Option<Arc<[u8]>>>,
    uses: Vec<u32>,
    ids: HashMap<Arc<[u8]>, u32>,
    free: Vec<u32>,
}

impl Names {
    fn intern(&mut self, name: &[u8]) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            self.uses[id as usize] += 1;
            return id;
        }
        let text: Arc<[u8]> = Arc::from(name);
        let id = match self.free.pop() {
            Some(id) => {
                self.text[id as usize] = Some(Arc::clone(&text));
                self.uses[id as usize] = 1;
                id
            }
            None => {
                self.text.push(Some(Arc::clone(&text)));
                self.uses.push(1);
                (self.text.len() - 1) as u32
            }
        };
        self.ids.insert(text, id);
        id
    }

    fn release(&mut self, id: u32) {
        let uses = &mut self.uses[id as usize];
        *uses -= 1;
        if *uses == 0 {
            if let Some(text) = self.text[id as usize].take() {
                self.ids.remove(&text);
            }
            self.free.push(id);
        }
    }

    fn get(&self, id: u32) -> &[u8] {
        self.text[id as usize].as_deref().unwrap_or_default()
    }

    fn bytes(&self) -> usize {
        let per_name = std::mem::size_of::<Option<Arc<[u8]>>>() + 4 + std::mem::size_of::<(Arc<[u8]>, u32)>() + 8;
        let text: usize = self.text.iter().flatten().map(|t| t.len() + 16).sum();
        self.text.capacity() * per_name + text + self.free.capacity() * 4
    }
}

/// The tree: the root folder and everything below it.
#[derive(Debug)]
pub struct Tree {
    nodes: Vec<Option<Node>>,
    free: Vec<Id>,
    names: Names,
    /// Entries below the root.
    entries: usize,
    /// The serial the next entry added gets.
    next_serial: u32,
    /// Folders' inode numbers, where known: a folder replaced by another
    /// under the same name is told apart by it.
    inos: HashMap<Id, u64>,
}

impl Tree {
    pub fn new(root_meta: Meta) -> Tree {
        let mut names = Names::default();
        let name = names.intern(b"");
        let root = Node {
            name,
            parent: ROOT,
            serial: 0,
            kind: EntryKind::Dir,
            meta: root_meta,
            children: Vec::new(),
            rules: None,
            denied: false,
        };
        Tree { nodes: vec![Some(root)], free: Vec::new(), names, entries: 0, next_serial: 1, inos: HashMap::new() }
    }

    /// `id`, named so that its later removal is noticed (see `resolve`).
    pub fn handle(&self, id: Id) -> Handle {
        Handle { id, serial: self.node(id).serial }
    }

    /// The folder `id`'s inode number, if known.
    pub fn ino(&self, id: Id) -> Option<u64> {
        self.inos.get(&id).copied()
    }

    /// Records the folder `id`'s inode number (0: unknown).
    pub fn set_ino(&mut self, id: Id, ino: u64) {
        if ino != 0 {
            self.inos.insert(id, ino);
        }
    }

    /// The entry `handle` named, if it is still in the tree.
    pub fn resolve(&self, handle: Handle) -> Option<Id> {
        let node = self.nodes.get(handle.id as usize)?.as_ref()?;
        (node.serial == handle.serial).then_some(handle.id)
    }

    pub fn node(&self, id: Id) -> &Node {
        self.nodes[id as usize].as_ref().expect("a live index entry")
    }

    pub fn node_mut(&mut self, id: Id) -> &mut Node {
        self.nodes[id as usize].as_mut().expect("a live index entry")
    }

    pub fn name(&self, id: Id) -> &[u8] {
        self.names.get(self.node(id).name)
    }

    pub fn entries(&self) -> usize {
        self.entries
    }

    /// The child of `dir` called `name`.
    pub fn child(&self, dir: Id, name: &[u8]) -> Option<Id> {
        let id = *self.names.ids.get(name)?;
        self.node(dir).children.iter().copied().find(|&c| self.node(c).name == id)
    }

    /// The entry at `relative` (components separated by `/`), `ROOT` for "".
    pub fn find(&self, relative: &[u8]) -> Option<Id> {
        relative.split(|&b| b == b'/').filter(|c| !c.is_empty()).try_fold(ROOT, |at, name| self.child(at, name))
    }

    /// The entry at `relative` on a volume whose names are told apart by
    /// `rule`: the entry of those bytes, else the one each of whose names is
    /// the same name as the path's (an event may name an entry in another
    /// case or normal form than its folder lists it).
    pub fn find_as(&self, relative: &[u8], rule: NameRule) -> Option<Id> {
        let exact = self.find(relative);
        if exact.is_some() || !rule.folds() {
            return exact;
        }
        relative.split(|&b| b == b'/').filter(|c| !c.is_empty()).try_fold(ROOT, |at, name| {
            self.child(at, name).or_else(|| {
                let key = rule.key(name);
                self.node(at).children.iter().copied().find(|&c| rule.key(self.name(c)) == key)
            })
        })
    }

    /// Adds `name` below `dir` (which must not hold it yet).
    pub fn add(&mut self, dir: Id, name: &[u8], kind: EntryKind, meta: Meta) -> Id {
        let name = self.names.intern(name);
        let serial = self.next_serial;
        self.next_serial = self.next_serial.wrapping_add(1);
        let node = Node { name, parent: dir, serial, kind, meta, children: Vec::new(), rules: None, denied: false };
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = Some(node);
                id
            }
            None => {
                self.nodes.push(Some(node));
                (self.nodes.len() - 1) as Id
            }
        };
        self.node_mut(dir).children.push(id);
        self.entries += 1;
        id
    }

    /// Removes `id` and everything below it.
    pub fn remove(&mut self, id: Id) {
        let parent = self.node(id).parent;
        self.node_mut(parent).children.retain(|&c| c != id);
        let mut doomed = vec![id];
        while let Some(gone) = doomed.pop() {
            let node = self.nodes[gone as usize].take().expect("a live index entry");
            if node.kind == EntryKind::Dir {
                self.inos.remove(&gone);
            }
            doomed.extend(node.children);
            self.names.release(node.name);
            self.free.push(gone);
            self.entries -= 1;
        }
    }

    /// The path of `id` relative to the root, `/`-separated.
    pub fn path(&self, id: Id) -> Vec<u8> {
        let mut parts = Vec::new();
        let mut at = id;
        while at != ROOT {
            parts.push(self.name(at));
            at = self.node(at).parent;
        }
        parts.reverse();
        parts.join(&b'/')
    }

    /// The folders from the root down to `id`'s parent, outermost first.
    pub fn ancestors(&self, id: Id) -> Vec<Id> {
        let mut chain = Vec::new();
        let mut at = id;
        while at != ROOT {
            at = self.node(at).parent;
            chain.push(at);
        }
        chain.reverse();
        chain
    }

    /// Heap bytes held, as allocated (not counting the allocator's own overhead).
    pub fn bytes(&self) -> usize {
        let slot = std::mem::size_of::<Option<Node>>();
        let children: usize = self.nodes.iter().flatten().map(|n| n.children.capacity() * 4).sum();
        let inos = self.inos.capacity() * (std::mem::size_of::<(Id, u64)>() + 1);
        self.nodes.capacity() * slot + children + self.free.capacity() * 4 + self.names.bytes() + inos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(size: u64) -> Meta {
        Meta { size, mtime_ms: 0.0 }
    }

    #[test]
    fn paths_lookups_and_removal() {
        let mut t = Tree::new(meta(0));
        let src = t.add(ROOT, b"src", EntryKind::Dir, meta(0));
        let a = t.add(src, b"index.ts", EntryKind::File, meta(3));
        let lib = t.add(src, b"lib", EntryKind::Dir, meta(0));
        let b = t.add(lib, b"index.ts", EntryKind::File, meta(4));
        assert_eq!(t.entries(), 4);
        assert_eq!(t.path(b), b"src/lib/index.ts");
        assert_eq!(t.find(b"src/lib/index.ts"), Some(b));
        assert_eq!(t.find(b""), Some(ROOT));
        assert_eq!(t.find(b"src/nope"), None);
        assert_eq!(t.ancestors(b), [ROOT, src, lib]);
        // `index.ts` is stored once for both files.
        assert_eq!(t.names.ids.len(), 4, "'', src, index.ts, lib");
        t.remove(lib);
        assert_eq!((t.entries(), t.find(b"src/lib"), t.child(src, b"index.ts")), (2, None, Some(a)));
        t.remove(src);
        assert_eq!(t.entries(), 0);
        assert_eq!(t.names.ids.len(), 1, "names no entry uses are dropped");
        // Freed slots are reused.
        let again = t.add(ROOT, b"x", EntryKind::File, meta(1));
        assert!(again <= 4);
    }

    #[test]
    fn a_handle_to_a_removed_entry_resolves_to_nothing_even_once_its_slot_is_reused() {
        let mut t = Tree::new(meta(0));
        let a = t.add(ROOT, b"a", EntryKind::Dir, meta(0));
        let c = t.add(a, b"c", EntryKind::Dir, meta(0));
        let (ha, hc) = (t.handle(a), t.handle(c));
        assert_eq!((t.resolve(ha), t.resolve(hc)), (Some(a), Some(c)));
        t.remove(a);
        assert_eq!((t.resolve(ha), t.resolve(hc)), (None, None));
        let reused = t.add(ROOT, b"b", EntryKind::Dir, meta(0));
        let again = t.add(reused, b"d", EntryKind::Dir, meta(0));
        assert!([reused, again].contains(&c) && [reused, again].contains(&a), "the slots were reused");
        assert_eq!((t.resolve(ha), t.resolve(hc)), (None, None));
        assert_eq!(t.resolve(Handle { id: 99, serial: 0 }), None);
    }
}
