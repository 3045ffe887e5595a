//! Result order: `recent` (newest first), `name` (path ascending), `mtime`
//! and `size` (ascending), `none`, each flipped by `reverse`. Ties always
//! fall back to the path so that the same tree gives the same answer.

use crate::entry::Found;
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    Recent,
    Name,
    Mtime,
    Size,
    /// No order asked for; results still come in path order, because a
    /// parallel walk's own order changes from run to run.
    None,
}

impl SortBy {
    pub fn needs_meta(self) -> bool {
        matches!(self, SortBy::Recent | SortBy::Mtime | SortBy::Size)
    }
}

/// What the order looks at in an entry; borrowed, so a candidate can be
/// compared before anything is allocated for it.
#[derive(Debug, Clone, Copy)]
pub struct SortKey<'a> {
    /// The name's real bytes (see `Found::name_bytes`).
    pub bytes: &'a [u8],
    pub size: u64,
    pub mtime_ms: f64,
}

impl Found {
    pub fn key(&self) -> SortKey<'_> {
        SortKey { bytes: self.name_bytes(), size: self.size(), mtime_ms: self.mtime_ms() }
    }
}

/// The result order of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortOrder {
    pub by: SortBy,
    pub reverse: bool,
}

impl SortOrder {
    pub fn cmp(self, a: SortKey, b: SortKey) -> Ordering {
        let by_path = || a.bytes.cmp(b.bytes);
        let order = match self.by {
            SortBy::Recent => b.mtime_ms.total_cmp(&a.mtime_ms).then_with(by_path),
            SortBy::Mtime => a.mtime_ms.total_cmp(&b.mtime_ms).then_with(by_path),
            SortBy::Size => a.size.cmp(&b.size).then_with(by_path),
            SortBy::Name | SortBy::None => by_path(),
        };
        if self.reverse {
            order.reverse()
        } else {
            order
        }
    }
}

/// Orders `found` and splits off everything past the first `keep`: the
/// returned vector holds the left-out entries, in no particular order. With a
/// small `keep`, only the kept part is fully sorted.
pub fn sort_and_split(found: &mut Vec<Found>, order: SortOrder, keep: usize) -> Vec<Found> {
    let cmp = |a: &Found, b: &Found| order.cmp(a.key(), b.key());
    if keep < found.len() {
        if keep > 0 {
            found.select_nth_unstable_by(keep - 1, cmp);
        }
        let rest = found.split_off(keep);
        found.sort_unstable_by(cmp);
        rest
    } else {
        found.sort_unstable_by(cmp);
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::{EntryKind, Meta};

    fn f(path: &str, size: u64, mtime_ms: f64) -> Found {
        Found::new(path.into(), EntryKind::File, Some(Meta { size, mtime_ms }))
    }

    fn sample() -> Vec<Found> {
        vec![f("b", 30, 100.0), f("a", 10, 300.0), f("c", 20, 300.0), f("d/e", 20, 50.0)]
    }

    fn order(sort: SortBy, reverse: bool, keep: usize) -> (Vec<String>, usize) {
        let mut v = sample();
        let rest = sort_and_split(&mut v, SortOrder { by: sort, reverse }, keep);
        (v.into_iter().map(|x| x.path).collect(), rest.len())
    }

    #[test]
    fn recent_is_newest_first_ties_by_path() {
        assert_eq!(order(SortBy::Recent, false, 10).0, ["a", "c", "b", "d/e"]);
        assert_eq!(order(SortBy::Recent, true, 10).0, ["d/e", "b", "c", "a"]);
    }

    #[test]
    fn name_mtime_size_ascend() {
        assert_eq!(order(SortBy::Name, false, 10).0, ["a", "b", "c", "d/e"]);
        assert_eq!(order(SortBy::None, false, 10).0, ["a", "b", "c", "d/e"]);
        assert_eq!(order(SortBy::Mtime, false, 10).0, ["d/e", "b", "a", "c"]);
        assert_eq!(order(SortBy::Size, false, 10).0, ["a", "c", "d/e", "b"]);
        assert_eq!(order(SortBy::Size, true, 10).0, ["b", "d/e", "c", "a"]);
    }

    #[test]
    fn split_keeps_the_top_in_order() {
        assert_eq!(order(SortBy::Size, true, 2), (vec!["b".into(), "d/e".into()], 2));
        assert_eq!(order(SortBy::Recent, false, 1), (vec!["a".into()], 3));
        assert_eq!(order(SortBy::Name, false, 0), (vec![], 4));
    }
}
