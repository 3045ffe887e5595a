//! Gathering a call's matches under its `limit`: each walker thread keeps
//! only its best `limit` entries in the result order (compacting when it
//! holds twice that, and turning away anything worse than its cut-off before
//! allocating for it), and counts every match per folder. Memory stays flat
//! however many entries match, and `omitted` still knows where the rest are.

use crate::entry::{EntryKind, Found, Meta};
use crate::sort::{Order, SortKey};
use crate::sync::lock;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// Matches per folder (relative, `""` for the search directory).
pub type DirCounts = HashMap<String, usize, FolderHash>;

/// A map keyed by folder paths, hashed with `FolderHash`.
pub type FolderMap<'a> = HashMap<&'a str, usize, FolderHash>;

/// A keyed multiply-rotate hash for folder paths: folders are counted once
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

/// What all threads gathered.
#[derive(Debug, Default)]
pub struct Gathered {
    /// The best `limit` entries of each thread (at most threads × limit), unsorted.
    pub best: Vec<Found>,
    /// Every match, before any cap.
    pub matched: usize,
    /// Matches per folder (relative, `""` for the search directory).
    pub per_dir: DirCounts,
}

/// The folder part of a relative `/`-separated path.
pub fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// One walker thread's share; it hands everything over when dropped.
pub struct Best<'a> {
    order: Order,
    limit: usize,
    kept: Vec<Found>,
    /// The worst entry kept at the last compaction: nothing after it can make the cut.
    cutoff: Option<Found>,
    matched: usize,
    per_dir: DirCounts,
    /// The folder of the last match and its count not yet in `per_dir`: a
    /// walker thread lists a folder's entries together, so most matches
    /// only compare a string instead of hashing one.
    current_dir: (String, usize),
    out: &'a Mutex<Gathered>,
}

impl<'a> Best<'a> {
    pub fn new(order: Order, limit: usize, out: &'a Mutex<Gathered>) -> Self {
        let current_dir = (String::new(), 0);
        Best {
            order,
            limit,
            kept: Vec::new(),
            cutoff: None,
            matched: 0,
            per_dir: DirCounts::default(),
            current_dir,
            out,
        }
    }

    /// Counts a match and keeps it if it may be among the best `limit`.
    /// `raw` is the name's bytes when it is not UTF-8 (see `Found::raw`).
    pub fn offer(&mut self, path: &str, raw: Option<&[u8]>, kind: EntryKind, meta: Option<Meta>) {
        self.matched += 1;
        let dir = parent_dir(path);
        if self.current_dir.0 != dir {
            self.flush_dir_count();
            dir.clone_into(&mut self.current_dir.0);
        }
        self.current_dir.1 += 1;
        if self.limit == 0 {
            return;
        }
        if let Some(cutoff) = &self.cutoff {
            let meta = meta.unwrap_or(Meta { size: 0, mtime_ms: 0.0 });
            let key = SortKey { bytes: raw.unwrap_or(path.as_bytes()), size: meta.size, mtime_ms: meta.mtime_ms };
            if self.order.cmp(key, cutoff.key()).is_ge() {
                return;
            }
        }
        self.kept.push(Found { path: path.to_string(), kind, meta, raw: raw.map(<[u8]>::to_vec) });
        if self.kept.len() >= self.limit.saturating_mul(2).max(1024) {
            self.compact();
        }
    }

    fn flush_dir_count(&mut self) {
        let (dir, n) = &mut self.current_dir;
        if *n > 0 {
            match self.per_dir.get_mut(dir.as_str()) {
                Some(total) => *total += *n,
                None => {
                    self.per_dir.insert(dir.clone(), *n);
                }
            }
            *n = 0;
        }
    }

    fn compact(&mut self) {
        if self.kept.len() <= self.limit {
            return;
        }
        let order = self.order;
        self.kept.select_nth_unstable_by(self.limit - 1, |a, b| order.cmp(a.key(), b.key()));
        self.kept.truncate(self.limit);
        self.cutoff = Some(self.kept[self.limit - 1].clone());
    }
}

impl Drop for Best<'_> {
    fn drop(&mut self) {
        self.compact();
        self.flush_dir_count();
        let mut out = lock(self.out);
        out.best.append(&mut self.kept);
        out.matched += self.matched;
        for (dir, n) in self.per_dir.drain() {
            *out.per_dir.entry(dir).or_default() += n;
        }
    }
}

/// A relative path as a `&str` for ordering and counting (lossy only for
/// names that are not UTF-8).
pub fn path_text(relative: &Path) -> std::borrow::Cow<'_, str> {
    if std::path::MAIN_SEPARATOR == '/' {
        relative.to_string_lossy()
    } else {
        std::borrow::Cow::Owned(crate::walk::posix_string(relative))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::SortBy;

    fn gather(limit: usize, order: Order, items: &[(&str, u64)]) -> Gathered {
        let out = Mutex::new(Gathered::default());
        {
            let mut best = Best::new(order, limit, &out);
            for (path, size) in items {
                best.offer(path, None, EntryKind::File, Some(Meta { size: *size, mtime_ms: 0.0 }));
            }
        }
        out.into_inner().unwrap()
    }

    #[test]
    fn keeps_the_best_and_counts_everything() {
        let items: Vec<(String, u64)> = (0..5000).map(|i| (format!("d{}/f{i:05}", i % 3), i as u64)).collect();
        let refs: Vec<(&str, u64)> = items.iter().map(|(p, s)| (p.as_str(), *s)).collect();
        let g = gather(10, Order { by: SortBy::Size, reverse: true }, &refs);
        assert_eq!(g.matched, 5000);
        assert_eq!(g.best.len(), 10);
        let mut sizes: Vec<u64> = g.best.iter().map(|f| f.size()).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, (4990..5000).collect::<Vec<u64>>());
        assert_eq!(g.per_dir.values().sum::<usize>(), 5000);
        assert_eq!(g.per_dir["d0"], 1667);
    }

    #[test]
    fn unlimited_keeps_all_and_zero_keeps_none() {
        let items = [("a", 1), ("b/c", 2), ("b/d", 3)];
        let name = Order { by: SortBy::Name, reverse: false };
        assert_eq!(gather(usize::MAX, name, &items).best.len(), 3);
        let none = gather(0, name, &items);
        assert_eq!((none.best.len(), none.matched), (0, 3));
        assert_eq!(none.per_dir[""], 1);
        assert_eq!(parent_dir("a/b/c"), "a/b");
        assert_eq!(parent_dir("c"), "");
    }
}
