//! Matches counted by folder, for the `omitted` line ("Most left-out entries
//! are in: src/ (812), test/ (120)"). The folders are held as a tree of
//! names, each node storing only its own name, so memory grows with the
//! number of folders, not with the length of their paths: on a chain of
//! 20,000 nested folders a map keyed by whole paths held 20,000 paths of up
//! to 40 KB each. A walk offers folders one run of matches at a time, mostly
//! next to the previous one, so `add` starts from the path it added last and
//! looks up only the names that differ.

use crate::result::OmittedDir;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// How many matches each folder holds (relative, `""` for the search directory).
#[derive(Debug)]
pub struct FolderCounts {
    /// FolderNode 0 is the search directory; a parent always has a smaller id than its children.
    nodes: Vec<FolderNode>,
    /// Each folder by its parent's id (4 bytes) and its name.
    children: HashMap<Box<[u8]>, u32, FolderHash>,
    /// The key of the last lookup, reused so a known name costs no allocation.
    key: Vec<u8>,
    /// The folder `add` reached last, and the node and end (in it) of each of its names.
    last: String,
    last_nodes: Vec<(u32, usize)>,
}

#[derive(Debug)]
struct FolderNode {
    parent: u32,
    name: Box<str>,
    count: usize,
}

impl Default for FolderCounts {
    fn default() -> Self {
        FolderCounts {
            nodes: vec![FolderNode { parent: 0, name: "".into(), count: 0 }],
            children: HashMap::default(),
            key: Vec::new(),
            last: String::new(),
            last_nodes: Vec::new(),
        }
    }
}

impl FolderCounts {
    /// Counts `n` more matches in the folder `dir` (`/`-separated).
    pub fn add(&mut self, dir: &str, n: usize) {
        let id = self.reach(dir);
        self.nodes[id as usize].count += n;
    }

    /// Counts `n` fewer matches in `dir` (never below zero).
    pub fn remove(&mut self, dir: &str, n: usize) {
        let id = self.reach(dir);
        let count = &mut self.nodes[id as usize].count;
        *count = count.saturating_sub(n);
    }

    /// The counts of `other` added to these.
    pub fn merge(&mut self, other: FolderCounts) {
        if self.nodes.len() == 1 && self.nodes[0].count == 0 {
            *self = other;
            return;
        }
        let mut mapped = Vec::with_capacity(other.nodes.len());
        for (i, node) in other.nodes.into_iter().enumerate() {
            let id = match i {
                0 => 0,
                _ => self.child(mapped[node.parent as usize], &node.name),
            };
            self.nodes[id as usize].count += node.count;
            mapped.push(id);
        }
        self.last.clear();
        self.last_nodes.clear();
    }

    /// The total count.
    #[cfg(test)]
    pub fn total(&self) -> usize {
        self.nodes.iter().map(|n| n.count).sum()
    }

    /// The node of `dir`, made if missing.
    fn reach(&mut self, dir: &str) -> u32 {
        // Names shared with the folder reached last are already known.
        let same =
            dir.bytes().zip(self.last.bytes()).position(|(a, b)| a != b).unwrap_or(dir.len().min(self.last.len()));
        let boundary = |text: &str, end: usize| text.len() == end || text.as_bytes()[end] == b'/';
        let kept = self.last_nodes.iter().take_while(|&&(_, end)| end <= same && boundary(dir, end)).count();
        self.last_nodes.truncate(kept);
        let (mut id, mut start) = match self.last_nodes.last() {
            Some(&(id, end)) => (id, end + 1),
            None => (0, 0),
        };
        while start < dir.len() {
            let end = dir[start..].find('/').map_or(dir.len(), |i| start + i);
            id = self.child(id, &dir[start..end]);
            self.last_nodes.push((id, end));
            start = end + 1;
        }
        dir.clone_into(&mut self.last);
        id
    }

    fn child(&mut self, parent: u32, name: &str) -> u32 {
        self.key.clear();
        self.key.extend_from_slice(&parent.to_le_bytes());
        self.key.extend_from_slice(name.as_bytes());
        if let Some(&id) = self.children.get(self.key.as_slice()) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(FolderNode { parent, name: name.into(), count: 0 });
        self.children.insert(self.key.as_slice().into(), id);
        id
    }

    /// The full path of a node.
    fn path(&self, id: u32) -> String {
        let mut names = Vec::new();
        let mut at = id;
        while at != 0 {
            names.push(&*self.nodes[at as usize].name);
            at = self.nodes[at as usize].parent;
        }
        names.reverse();
        names.join("/")
    }

    /// Groups the counts: below the deepest folder that holds them all, each
    /// next-level folder (or that folder itself, for what is directly in
    /// it) with its count; the `most` largest, ties by name.
    pub fn grouped(&self, most: usize) -> Vec<OmittedDir> {
        let mut below = vec![0usize; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate().rev() {
            below[i] += node.count;
            if i > 0 {
                below[node.parent as usize] += below[i];
            }
        }
        if below[0] == 0 {
            return Vec::new();
        }
        // The children holding something, by parent.
        let mut holding: HashMap<u32, Vec<u32>, FolderHash> = HashMap::default();
        for (i, node) in self.nodes.iter().enumerate().skip(1) {
            if below[i] > 0 {
                holding.entry(node.parent).or_default().push(i as u32);
            }
        }
        let mut common = 0u32;
        while self.nodes[common as usize].count == 0 {
            match holding.get(&common).map(Vec::as_slice) {
                Some(&[only]) => common = only,
                _ => break,
            }
        }
        // Candidates share the common folder's path: order them by count,
        // then the folder itself before its children, then by name.
        let mut groups: Vec<(usize, bool, &str, u32)> = Vec::new();
        if self.nodes[common as usize].count > 0 {
            groups.push((self.nodes[common as usize].count, false, "", common));
        }
        for &child in holding.get(&common).into_iter().flatten() {
            groups.push((below[child as usize], true, &self.nodes[child as usize].name, child));
        }
        groups.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then_with(|| a.2.cmp(b.2)));
        groups.truncate(most);
        groups
            .into_iter()
            .map(|(count, _, _, id)| {
                let dir = self.path(id);
                OmittedDir { dir: if dir.is_empty() { ".".into() } else { dir }, count }
            })
            .collect()
    }
}

/// A keyed multiply-rotate hash for folder names: folders are counted once
/// per run of matches on every search, and SipHash was a fifth of a repeated
/// search's time. The key is random per process, so names in a hostile tree
/// cannot be chosen to collide.
#[derive(Clone, Copy)]
pub struct FolderHash(u64);

impl Default for FolderHash {
    fn default() -> Self {
        static KEY: OnceLock<u64> = OnceLock::new();
        FolderHash(*KEY.get_or_init(|| std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) | 1))
    }
}

impl BuildHasher for FolderHash {
    type Hasher = FolderHasher;
    fn build_hasher(&self) -> FolderHasher {
        FolderHasher(self.0)
    }
}

pub struct FolderHasher(u64);

impl Hasher for FolderHasher {
    fn write(&mut self, bytes: &[u8]) {
        const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            self.0 = (self.0 ^ word).wrapping_mul(MUL).rotate_left(29);
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.0 = (self.0 ^ u64::from_le_bytes(last) ^ bytes.len() as u64).wrapping_mul(MUL).rotate_left(29);
    }

    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ (h >> 29)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(dirs: &[(&str, usize)]) -> FolderCounts {
        let mut counts = FolderCounts::default();
        for (dir, n) in dirs {
            counts.add(dir, *n);
        }
        counts
    }

    fn pairs(groups: &[OmittedDir]) -> Vec<(&str, usize)> {
        groups.iter().map(|g| (g.dir.as_str(), g.count)).collect()
    }

    #[test]
    fn groups_below_the_common_folder() {
        let c = counts(&[("src/a", 3), ("src/a/deep", 2), ("src/b", 1), ("src", 4), ("src/b", 1)]);
        assert_eq!(pairs(&c.grouped(5)), [("src/a", 5), ("src", 4), ("src/b", 2)]);
        let c = counts(&[("x", 1), ("lib/y", 1), ("lib/z/w", 1)]);
        assert_eq!(pairs(&c.grouped(5)), [("lib", 2), ("x", 1)]);
        let c = counts(&[("", 2), ("a", 1)]);
        assert_eq!(pairs(&c.grouped(5)), [(".", 2), ("a", 1)]);
        assert!(FolderCounts::default().grouped(5).is_empty());
    }

    #[test]
    fn names_that_look_alike_stay_apart_and_order_breaks_ties() {
        // `ab` after `a/b`: the byte prefix `a` is shared, the folder `a` is not `ab`'s.
        let c = counts(&[("a/b", 1), ("ab", 1), ("a/b/c", 1), ("a", 1), ("b", 1), ("ab/x", 1)]);
        assert_eq!(pairs(&c.grouped(5)), [("a", 3), ("ab", 2), ("b", 1)]);
        assert_eq!(c.total(), 6);
    }

    #[test]
    fn remove_and_merge() {
        let mut c = counts(&[("a/b", 2), ("c", 1)]);
        c.remove("a/b", 1);
        c.remove("c", 5);
        c.remove("never/seen", 1);
        assert_eq!(pairs(&c.grouped(5)), [("a/b", 1)]);
        let mut other = counts(&[("c", 4), ("a/b", 1), ("a/d", 1)]);
        other.merge(c);
        assert_eq!(pairs(&other.grouped(5)), [("c", 4), ("a", 3)]);
        assert_eq!(other.total(), 7);
    }

    #[test]
    fn a_deep_chain_costs_its_names_not_its_paths() {
        let mut c = FolderCounts::default();
        let mut dir = String::new();
        for i in 0..5_000 {
            if i > 0 {
                dir.push('/');
            }
            dir.push('d');
            c.add(&dir, 1);
        }
        let names: usize = c.nodes.iter().map(|n| n.name.len()).sum();
        assert_eq!((c.nodes.len(), names), (5_001, 5_000));
        let groups = c.grouped(5);
        assert_eq!(pairs(&groups), [("d/d", 4_999), ("d", 1)]);
    }
}
