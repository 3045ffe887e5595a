//! Filters applied to every candidate after the name matched: entry type,
//! size bounds and modification time. Each parser lives in its own module.

pub mod size;
pub mod time;

use crate::entry::{EntryKind, Meta};

/// Which kinds of entry a search returns (`type` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeFilter {
    File,
    Dir,
    Any,
}

impl TypeFilter {
    pub fn accepts(self, kind: EntryKind) -> bool {
        match self {
            TypeFilter::File => kind == EntryKind::File,
            TypeFilter::Dir => kind == EntryKind::Dir,
            TypeFilter::Any => true,
        }
    }
}

/// Type, size and time filters; `None` bounds are open.
#[derive(Debug, Clone, PartialEq)]
pub struct Filters {
    pub kind: TypeFilter,
    pub min_size: Option<u64>,
    pub max_size: Option<u64>,
    pub modified_since: Option<time::EpochMs>,
}

impl Filters {
    /// True when a candidate must be stat'ed before it can be kept.
    pub fn needs_meta(&self) -> bool {
        self.min_size.is_some() || self.max_size.is_some() || self.modified_since.is_some()
    }

    /// Size bounds are inclusive and never remove a directory (the size of
    /// a folder entry says nothing about what it holds); `modifiedSince`
    /// keeps entries modified strictly after the instant.
    pub fn accepts_meta(&self, kind: EntryKind, meta: &Meta) -> bool {
        let sized = kind == EntryKind::Dir
            || (self.min_size.is_none_or(|min| meta.size >= min) && self.max_size.is_none_or(|max| meta.size <= max));
        sized && self.modified_since.is_none_or(|since| meta.mtime_ms > since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filters() -> Filters {
        Filters { kind: TypeFilter::File, min_size: None, max_size: None, modified_since: None }
    }

    #[test]
    fn type_filter_keeps_only_the_asked_kind() {
        assert!(TypeFilter::File.accepts(EntryKind::File));
        assert!(!TypeFilter::File.accepts(EntryKind::Symlink));
        assert!(!TypeFilter::File.accepts(EntryKind::Dir));
        assert!(TypeFilter::Dir.accepts(EntryKind::Dir));
        assert!(!TypeFilter::Dir.accepts(EntryKind::File));
        assert!(TypeFilter::Any.accepts(EntryKind::Symlink));
    }

    #[test]
    fn size_bounds_are_inclusive() {
        let f = Filters { min_size: Some(10), max_size: Some(20), ..filters() };
        assert!(f.needs_meta());
        let at = |size| Meta { size, mtime_ms: 0.0 };
        assert!(!f.accepts_meta(EntryKind::File, &at(9)));
        assert!(f.accepts_meta(EntryKind::File, &at(10)));
        assert!(f.accepts_meta(EntryKind::File, &at(20)));
        assert!(!f.accepts_meta(EntryKind::File, &at(21)));
        assert!(!f.accepts_meta(EntryKind::Symlink, &at(21)));
    }

    #[test]
    fn size_bounds_never_remove_directories() {
        let f = Filters { min_size: Some(1024), max_size: Some(2048), ..filters() };
        assert!(f.accepts_meta(EntryKind::Dir, &Meta { size: 0, mtime_ms: 0.0 }));
        assert!(f.accepts_meta(EntryKind::Dir, &Meta { size: 4096, mtime_ms: 0.0 }));
        let recent = Filters { modified_since: Some(1000.0), ..f };
        assert!(!recent.accepts_meta(EntryKind::Dir, &Meta { size: 0, mtime_ms: 10.0 }), "time still applies");
    }

    #[test]
    fn modified_since_is_strictly_after() {
        let f = Filters { modified_since: Some(1000.0), ..filters() };
        assert!(f.accepts_meta(EntryKind::File, &Meta { size: 0, mtime_ms: 1000.5 }));
        assert!(!f.accepts_meta(EntryKind::File, &Meta { size: 0, mtime_ms: 1000.0 }));
        assert!(!f.accepts_meta(EntryKind::File, &Meta { size: 0, mtime_ms: 999.5 }));
        assert!(!filters().needs_meta());
    }
}
