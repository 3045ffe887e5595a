//! Entries and paths as they cross into JS: in columns rather than one
//! object each, a large answer in slices that JS takes a few at a time
//! (`js/columns.js` decodes them), and the entry kind codes both sides share.

use agent_find_core::{lock, EntryKind, Found};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Entries in columns: `paths` joined by NUL (which no file name holds) and
/// typed arrays, because building one JS object per entry through napi is
/// slow, while JS builds them from columns in a fraction of the time.
#[napi(object, object_from_js = false)]
pub struct EntrySlice {
    pub count: u32,
    pub paths: String,
    /// 0 file, 1 dir, 2 symlink.
    pub kinds: Uint8Array,
    pub sizes: Float64Array,
    pub mtimes: Float64Array,
    /// Entries whose names are not valid UTF-8: their index in this slice and bytes.
    pub raw: Vec<RawName>,
}

#[napi(object, object_from_js = false)]
pub struct RawName {
    pub index: u32,
    pub bytes: Vec<u32>,
}

/// `findFiles` paths, joined by NUL.
#[napi(object, object_from_js = false)]
pub struct PathSlice {
    pub count: u32,
    pub paths: String,
}

fn entry_slice(found: impl Iterator<Item = Found>) -> EntrySlice {
    let (mut paths, mut kinds, mut sizes, mut mtimes, mut raw) =
        (String::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for f in found {
        if let Some(bytes) = &f.raw {
            raw.push(RawName { index: kinds.len() as u32, bytes: bytes.iter().map(|&b| u32::from(b)).collect() });
        }
        if !kinds.is_empty() {
            paths.push('\0');
        }
        paths.push_str(&f.path);
        kinds.push(kind_code(f.kind));
        sizes.push(f.size() as f64);
        mtimes.push(f.mtime_ms());
    }
    EntrySlice {
        count: kinds.len() as u32,
        paths,
        kinds: Uint8Array::new(kinds),
        sizes: Float64Array::new(sizes),
        mtimes: Float64Array::new(mtimes),
        raw,
    }
}

fn path_slice(paths: impl Iterator<Item = String>) -> PathSlice {
    let mut joined = String::new();
    let mut count = 0;
    for p in paths {
        if count > 0 {
            joined.push('\0');
        }
        joined.push_str(&p);
        count += 1;
    }
    PathSlice { count, paths: joined }
}

/// Entries (or paths) per slice handed to JS. Turning Rust values into JS
/// values happens on the event loop, so a large answer crosses in slices,
/// which `js/columns.js` takes within a time budget per turn of the loop.
/// A slice of 1,000 entries takes well under a millisecond to cross and
/// decode.
const ENTRIES_PER_SLICE: usize = 1_000;
const PATHS_PER_SLICE: usize = 2_000;
/// The first slice crosses with the answer, when the call resolves: many
/// calls can resolve in one turn of the loop (napi hands over every
/// finished call at once), so it is small, and the rest comes through the
/// budgeted queue. Small answers still cross whole, in one go.
const FIRST_ENTRIES: usize = 500;
const FIRST_PATHS: usize = 1_000;

/// What a `Remaining` still holds.
enum Pending {
    Entries(std::vec::IntoIter<Found>),
    Paths(std::vec::IntoIter<String>),
}

/// Entries as they cross: the first slice now, and the rest, if any, for JS to take.
pub fn split_entries(entries: Vec<Found>) -> (EntrySlice, Option<Remaining>) {
    let mut entries = entries.into_iter();
    let first = entry_slice(entries.by_ref().take(FIRST_ENTRIES));
    let remaining =
        (entries.len() > 0).then(|| Remaining { pending: std::sync::Mutex::new(Pending::Entries(entries)) });
    (first, remaining)
}

/// Paths as they cross: the first slice now, and the rest, if any, for JS to take.
pub fn split_paths(paths: Vec<String>) -> (PathSlice, Option<Remaining>) {
    let mut paths = paths.into_iter();
    let first = path_slice(paths.by_ref().take(FIRST_PATHS));
    let remaining = (paths.len() > 0).then(|| Remaining { pending: std::sync::Mutex::new(Pending::Paths(paths)) });
    (first, remaining)
}

/// The part of a large answer not yet handed over; JS takes it slice by slice.
#[napi]
pub struct Remaining {
    pending: std::sync::Mutex<Pending>,
}

#[napi]
impl Remaining {
    /// The next slice of `FindResult.entries` (`count` 0 when done).
    #[napi(catch_unwind)]
    pub fn take_entries(&self) -> EntrySlice {
        match &mut *lock(&self.pending) {
            Pending::Entries(rest) => entry_slice(rest.by_ref().take(ENTRIES_PER_SLICE)),
            Pending::Paths(_) => entry_slice(std::iter::empty()),
        }
    }

    /// The next slice of `findFiles` paths (`count` 0 when done).
    #[napi(catch_unwind)]
    pub fn take_paths(&self) -> PathSlice {
        match &mut *lock(&self.pending) {
            Pending::Paths(rest) => path_slice(rest.by_ref().take(PATHS_PER_SLICE)),
            Pending::Entries(_) => path_slice(std::iter::empty()),
        }
    }
}

/// The entry kinds as they cross between JS and Rust: a kind's code is its
/// index here. JS reads the same table through `entryKinds()`.
pub const KIND_CODES: [EntryKind; 3] = [EntryKind::File, EntryKind::Dir, EntryKind::Symlink];

fn kind_code(kind: EntryKind) -> u8 {
    KIND_CODES.iter().position(|k| *k == kind).unwrap_or(0) as u8
}

/// The entry kinds' names, in code order.
#[napi]
pub fn entry_kinds() -> Vec<&'static str> {
    KIND_CODES.iter().map(|k| k.as_str()).collect()
}
