//! Gathering a call's matches under its `limit`: each walker thread keeps
//! only its best `limit` entries in the result order (compacting when it
//! holds twice that, and turning away anything worse than its cut-off before
//! allocating for it), and counts every match per folder. Memory stays flat
//! however many entries match, and `omitted` still knows where the rest are.

use crate::entry::{EntryKind, Found, Meta};
use crate::folder_counts::FolderCounts;
use crate::sort::{SortKey, SortOrder};
use std::path::Path;

/// What one or more threads gathered.
#[derive(Debug, Default)]
pub struct Gathered {
    /// The best `limit` entries of each thread (at most threads × limit), unsorted.
    pub best: Vec<Found>,
    /// Every match, before any cap.
    pub matched: usize,
    /// Matches per folder.
    pub per_dir: FolderCounts,
}

impl Gathered {
    /// What every thread gathered, together.
    pub fn merge(parts: Vec<Gathered>) -> Gathered {
        let mut all = Gathered::default();
        for mut part in parts {
            all.best.append(&mut part.best);
            all.matched += part.matched;
            all.per_dir.merge(part.per_dir);
        }
        all
    }
}

/// The folder part of a relative `/`-separated path.
pub fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// One walker thread's share of the matches; `finish` gives what it gathered.
pub struct Best {
    order: SortOrder,
    limit: usize,
    kept: Vec<Found>,
    /// The worst entry kept at the last compaction: nothing after it can make the cut.
    cutoff: Option<Found>,
    matched: usize,
    per_dir: FolderCounts,
    /// The folder of the last match and its count not yet in `per_dir`: a
    /// walker thread lists a folder's entries together, so most matches
    /// only compare a string instead of hashing one.
    current_dir: (String, usize),
}

impl Best {
    pub fn new(order: SortOrder, limit: usize) -> Self {
        let current_dir = (String::new(), 0);
        Best { order, limit, kept: Vec::new(), cutoff: None, matched: 0, per_dir: FolderCounts::default(), current_dir }
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
            self.per_dir.add(dir, *n);
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

    /// The best `limit` entries offered, every match counted, and the counts by folder.
    pub fn finish(mut self) -> Gathered {
        self.compact();
        self.flush_dir_count();
        Gathered { best: self.kept, matched: self.matched, per_dir: self.per_dir }
    }
}

/// A relative path as a `&str` for ordering and counting (lossy only for
/// names that are not UTF-8).
pub fn path_text(relative: &Path) -> std::borrow::Cow<'_, str> {
    if std::path::MAIN_SEPARATOR == '/' {
        relative.to_string_lossy()
    } else {
        std::borrow::Cow::Owned(crate::path_bytes::posix_string(relative))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::SortBy;

    fn gather(limit: usize, order: SortOrder, items: &[(&str, u64)]) -> Gathered {
        let mut best = Best::new(order, limit);
        for (path, size) in items {
            best.offer(path, None, EntryKind::File, Some(Meta { size: *size, mtime_ms: 0.0 }));
        }
        best.finish()
    }

    #[test]
    fn keeps_the_best_and_counts_everything() {
        let items: Vec<(String, u64)> = (0..5000).map(|i| (format!("d{}/f{i:05}", i % 3), i as u64)).collect();
        let refs: Vec<(&str, u64)> = items.iter().map(|(p, s)| (p.as_str(), *s)).collect();
        let g = gather(10, SortOrder { by: SortBy::Size, reverse: true }, &refs);
        assert_eq!(g.matched, 5000);
        assert_eq!(g.best.len(), 10);
        let mut sizes: Vec<u64> = g.best.iter().map(|f| f.size()).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, (4990..5000).collect::<Vec<u64>>());
        assert_eq!(g.per_dir.total(), 5000);
        assert_eq!(g.per_dir.grouped(1)[0].count, 1667);
    }

    #[test]
    fn unlimited_keeps_all_and_zero_keeps_none() {
        let items = [("a", 1), ("b/c", 2), ("b/d", 3)];
        let name = SortOrder { by: SortBy::Name, reverse: false };
        assert_eq!(gather(usize::MAX, name, &items).best.len(), 3);
        let none = gather(0, name, &items);
        assert_eq!((none.best.len(), none.matched), (0, 3));
        assert_eq!(
            none.per_dir.grouped(5).iter().map(|g| (g.dir.as_str(), g.count)).collect::<Vec<_>>(),
            [("b", 2), (".", 1)]
        );
        assert_eq!(parent_dir("a/b/c"), "a/b");
        assert_eq!(parent_dir("c"), "");
    }
}
