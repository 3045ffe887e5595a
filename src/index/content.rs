//! The live index's content layer: a `Sketch` of each file's contents (see
//! `content_sketch`), made by the content searches that read the file and
//! used by later ones to pass over files that cannot hold a match, and a
//! bounded cache of the contents themselves, so the files that may match are
//! searched from memory rather than opened and read again.
//!
//! What the layer holds for a file stands for the file as it was when read:
//! it is kept with the entry's size and mtime and used only while the tree
//! still shows those, and an event naming the file drops it (`forget`), so a
//! file rewritten with the same size and time is read again too. What was
//! made while an event was being applied is not kept (`epoch`): it may
//! describe the contents before it.
//!
//! The sketches are stored bit-sliced (`sliced`): a content search asks
//! for `masks` once (again only when the layer changed) and each file's
//! answer is then a bit (`ruled_out`).
//!
//! Sketches take at most `sketch_cap` bytes; past it, files without one are
//! read by every search, as without the layer. Contents take at most
//! `cache_cap` bytes, and when a file does not fit, the largest files held
//! make room for it (never a file as large as it or larger). Keeping the
//! smallest files is what saves the most per byte: a file's cost to search
//! from disk is an open, a read and a close whatever its size, plus a copy
//! that grows with it, while searching it costs the same from memory or from
//! the page cache. It is also steady under the searches an agent runs, each
//! of which reads every candidate file in the same order: a policy by
//! recency (LRU, CLOCK) would evict every file before its next use there
//! whenever the candidates outgrow the cap.

use super::saved::{Record, Stamp};
use super::sliced::{Masks, Place, SlicedSketches};
use super::tree::{Handle, Id, Tree};
use crate::content_sketch::{Prefilter, RuledOut, Sketch};
use crate::entry::Meta;
use crate::walk::KnownFile;
use std::collections::BTreeSet;

struct Slot {
    handle: Handle,
    meta: Meta,
    /// Where its sketch is in `sketches`.
    place: Place,
    /// Its contents hold a NUL byte.
    binary: bool,
    /// The file's contents, while the cache holds them.
    contents: Option<Box<[u8]>>,
    /// What the file was when its sketch was made, where known: only a
    /// sketch with a stamp is saved (see `saved`).
    stamp: Option<Stamp>,
}

/// What a query learnt of a file it read whole: its sketch and, when the
/// cache wanted them, its contents.
pub struct Learnt {
    pub handle: Handle,
    pub meta: Meta,
    /// `None`: the sketch the layer holds of this file is still right (a
    /// search that read a sketched file for its contents).
    pub sketch: Option<Sketch>,
    pub contents: Option<Box<[u8]>>,
    pub stamp: Option<Stamp>,
}

/// The caps of the content layer, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct ContentCaps {
    pub sketches: usize,
    pub contents: usize,
}

impl Default for ContentCaps {
    fn default() -> ContentCaps {
        ContentCaps {
            sketches: crate::limits::INDEX_SKETCH_BYTES,
            contents: crate::limits::DEFAULT_INDEX_CONTENT_CACHE_BYTES,
        }
    }
}

/// The sketches and cached contents, by the entry's slot in the tree.
pub struct ContentLayer {
    slots: Vec<Option<Slot>>,
    sketches: SlicedSketches,
    sketched_files: usize,
    cached_bytes: usize,
    /// The files whose contents are held, by size, for evicting the largest.
    cached: BTreeSet<(usize, Id)>,
    caps: ContentCaps,
    /// Bumped each time something is dropped for a change.
    epoch: u64,
    /// Bumped each time a sketch is placed or removed: `Masks` made before
    /// are stale.
    version: u64,
}

/// The layer's sketches as a save takes them (see `ContentLayer::snapshot`).
pub struct SaveSnapshot {
    entries: Vec<(Vec<u8>, Stamp, Place, bool)>,
    sketches: SlicedSketches,
}

impl SaveSnapshot {
    /// Each sketch gathered back from its block, as a record to save.
    pub fn records(self) -> Vec<Record> {
        let sketches = self.sketches;
        self.entries
            .into_iter()
            .filter_map(|(path, stamp, place, binary)| {
                Some(Record { path, stamp, sketch: sketches.sketch_at(place, binary)? })
            })
            .collect()
    }
}

/// A content search's answer for every file the layer knows, as of one
/// `version` of the layer.
pub struct LayerMasks {
    pub version: u64,
    masks: Masks,
}

impl LayerMasks {
    /// `Some` when the file whose sketch is at `place` (from
    /// `ContentLayer::place_of`, of this version of the layer) holds no match.
    pub fn rules_out(&self, (place, binary): (Place, bool)) -> Option<RuledOut> {
        match self.masks.may_match(place) {
            true => None,
            false => Some(if binary { RuledOut::Binary } else { RuledOut::Text }),
        }
    }
}

/// The sizes `stats()` reports.
#[derive(Debug, Clone, Copy, Default)]
pub struct LayerSize {
    /// Heap bytes held by sketches (and the slot table).
    pub sketch_bytes: usize,
    pub sketched_files: usize,
    /// Bytes of file contents held.
    pub cached_bytes: usize,
    pub cached_files: usize,
}

impl ContentLayer {
    pub fn new(caps: ContentCaps) -> ContentLayer {
        ContentLayer {
            slots: Vec::new(),
            sketches: SlicedSketches::default(),
            sketched_files: 0,
            cached_bytes: 0,
            cached: BTreeSet::new(),
            caps,
            epoch: 0,
            version: 0,
        }
    }

    /// What is known of the entry `handle`, if it was learnt from the
    /// contents the entry has at `meta`.
    pub fn get(&self, handle: Handle, meta: Meta) -> Option<KnownFile<'_>> {
        match self.slots.get(handle.id() as usize) {
            Some(Some(slot)) if slot.handle == handle && slot.meta == meta => {
                Some(KnownFile { contents: slot.contents.as_deref() })
            }
            _ => None,
        }
    }

    /// The layer's version (see `LayerMasks`).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Which of the files the layer knows may hold a match of `prefilter`.
    pub fn masks(&self, prefilter: &Prefilter) -> LayerMasks {
        LayerMasks { version: self.version, masks: self.sketches.masks(prefilter) }
    }

    /// Where the sketch of entry `handle`, at `meta`, is, and whether its
    /// file is binary, when the layer knows it (see `query::Places`).
    pub fn place_of(&self, handle: Handle, meta: Meta) -> Option<(Place, bool)> {
        match self.slots.get(handle.id() as usize) {
            Some(Some(slot)) if slot.handle == handle && slot.meta == meta => Some((slot.place, slot.binary)),
            _ => None,
        }
    }

    /// Whether another sketch would be kept.
    pub fn wants_sketch(&self) -> bool {
        self.sketches.bytes() < self.caps.sketches
    }

    /// Whether the contents of a file of `size` bytes would be kept: there
    /// is room, or larger files to make room.
    pub fn wants_contents(&self, size: u64) -> bool {
        let Ok(size) = usize::try_from(size) else { return false };
        size <= self.caps.contents
            && (self.cached_bytes + size <= self.caps.contents
                || self.cached.last().is_some_and(|&(largest, _)| largest > size))
    }

    /// The epoch to pass to `keep` for what is learnt from now on.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Keeps what was learnt since `epoch` (nothing if a change came
    /// meanwhile; no new sketch once their cap is reached).
    pub fn keep(&mut self, epoch: u64, learnt: Vec<Learnt>) {
        if epoch != self.epoch {
            return;
        }
        for Learnt { handle, meta, sketch, contents, stamp } in learnt {
            let id = handle.id() as usize;
            let held = match self.slots.get(id) {
                Some(Some(s)) if s.handle == handle && s.meta == meta => Some(s.stamp),
                _ => None,
            };
            let same_file = held.is_some();
            let stamp = stamp.or(held.flatten());
            if !same_file && !self.wants_sketch() {
                continue;
            }
            // The same file learnt again without its contents (the background
            // build, after a search kept them): nothing new to keep.
            if same_file && contents.is_none() {
                continue;
            }
            // Its contents only, beside the sketch held (`contents` is
            // `Some` for the same file, from the test above).
            let Some(sketch) = sketch else {
                if let (true, Some(contents)) = (same_file, contents) {
                    self.add_contents(id, contents);
                }
                continue;
            };
            if self.slots.len() <= id {
                self.slots.resize_with(id + 1, || None);
            }
            self.drop_slot(id);
            let contents = contents.filter(|c| self.make_room(c.len()));
            if let Some(c) = &contents {
                self.cached_bytes += c.len();
                self.cached.insert((c.len(), handle.id()));
            }
            let place = self.sketches.insert(&sketch);
            self.version += 1;
            self.sketched_files += 1;
            self.slots[id] = Some(Slot { handle, meta, place, binary: sketch.binary(), contents, stamp });
        }
    }

    /// Evicts the largest files held, each larger than `size`, until `size`
    /// more bytes fit; whether they do.
    fn make_room(&mut self, size: usize) -> bool {
        while self.cached_bytes + size > self.caps.contents {
            match self.cached.last().copied() {
                Some((largest, id)) if largest > size => self.drop_contents(id as usize),
                _ => return false,
            }
        }
        true
    }

    /// Keeps `contents` for the file in slot `id` (which the caller knows
    /// is held) unless it holds them already, when there is room.
    fn add_contents(&mut self, id: usize, contents: Box<[u8]>) {
        let held = self.slots[id].as_ref().is_some_and(|s| s.contents.is_some());
        // `make_room` evicts only files holding contents: not this one.
        if held || !self.make_room(contents.len()) {
            return;
        }
        if let Some(slot) = self.slots[id].as_mut() {
            self.cached_bytes += contents.len();
            self.cached.insert((contents.len(), id as Id));
            slot.contents = Some(contents);
        }
    }

    fn drop_contents(&mut self, id: usize) {
        if let Some(contents) = self.slots.get_mut(id).and_then(Option::as_mut).and_then(|s| s.contents.take()) {
            self.cached_bytes -= contents.len();
            self.cached.remove(&(contents.len(), id as Id));
        }
    }

    fn drop_slot(&mut self, id: usize) {
        self.drop_contents(id);
        if let Some(old) = self.slots.get_mut(id).and_then(Option::take) {
            self.sketches.remove(old.place);
            self.version += 1;
            self.sketched_files -= 1;
        }
    }

    /// Drops what is known of slot `id` (its file changed, or was removed).
    pub fn forget(&mut self, id: Id) {
        self.epoch += 1;
        self.drop_slot(id as usize);
    }

    /// Drops what is known of every entry no longer in `tree`.
    pub fn sweep(&mut self, tree: &Tree) {
        for id in 0..self.slots.len() {
            if self.slots[id].as_ref().is_some_and(|slot| tree.resolve(slot.handle).is_none()) {
                self.drop_slot(id);
            }
        }
    }

    /// Drops it all (the tree was made anew, or the index closed).
    pub fn clear(&mut self) {
        self.epoch += 1;
        self.slots = Vec::new();
        self.sketches = SlicedSketches::default();
        self.version += 1;
        self.cached = BTreeSet::new();
        (self.sketched_files, self.cached_bytes) = (0, 0);
    }

    /// What a save needs, taken quickly under the layer's lock: the
    /// sketches with a stamp, each with its path in `tree` (a slot whose
    /// entry is gone is left out), and a copy of the blocks they are in.
    pub fn snapshot(&self, tree: &Tree) -> SaveSnapshot {
        let entries = self
            .slots
            .iter()
            .flatten()
            .filter_map(|slot| Some((tree.path(tree.resolve(slot.handle)?), slot.stamp?, slot.place, slot.binary)))
            .collect();
        SaveSnapshot { entries, sketches: self.sketches.clone() }
    }

    pub fn size(&self) -> LayerSize {
        LayerSize {
            sketch_bytes: self.sketches.bytes() + self.slots.capacity() * std::mem::size_of::<Option<Slot>>(),
            sketched_files: self.sketched_files,
            cached_bytes: self.cached_bytes,
            cached_files: self.cached.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content_sketch::Sketcher;

    fn learnt(id: Id, size: usize) -> Learnt {
        let contents = vec![b'a' + (id % 26) as u8; size];
        let meta = Meta { size: size as u64, mtime_ms: 1.0 };
        let sketch = Sketcher::default().sketch(&contents);
        Learnt {
            handle: Handle::for_test(id),
            meta,
            sketch: Some(sketch),
            contents: Some(contents.into()),
            stamp: None,
        }
    }

    fn cached(layer: &ContentLayer, id: Id, size: usize) -> bool {
        let meta = Meta { size: size as u64, mtime_ms: 1.0 };
        layer.get(Handle::for_test(id), meta).is_some_and(|known| known.contents.is_some())
    }

    #[test]
    fn the_largest_files_make_room_and_never_for_a_larger_one() {
        let mut layer = ContentLayer::new(ContentCaps { sketches: 1 << 20, contents: 1_500 });
        layer.keep(0, vec![learnt(0, 1_000), learnt(1, 400)]);
        assert_eq!(layer.size().cached_bytes, 1_400);
        // 200 more do not fit: the 1,000-byte file makes room.
        assert!(layer.wants_contents(200));
        layer.keep(0, vec![learnt(2, 200)]);
        assert!(!cached(&layer, 0, 1_000) && cached(&layer, 1, 400) && cached(&layer, 2, 200));
        assert!(layer.get(Handle::for_test(0), Meta { size: 1_000, mtime_ms: 1.0 }).is_some(), "its sketch stays");
        // A file no smaller than every file held is not kept when it does not fit.
        layer.keep(0, vec![learnt(3, 900), learnt(4, 1_000)]);
        assert!(cached(&layer, 3, 900) && !cached(&layer, 4, 1_000));
        assert!(!layer.wants_contents(1_000) && !layer.wants_contents(1_501));
        let size = layer.size();
        assert_eq!((size.cached_bytes, size.cached_files, size.sketched_files), (1_500, 3, 5));
        assert!(size.cached_bytes <= 1_500);
    }

    #[test]
    fn a_change_drops_what_was_learnt_and_stale_learning_is_not_kept() {
        let mut layer = ContentLayer::new(ContentCaps { sketches: 1 << 20, contents: 10_000 });
        let epoch = layer.epoch();
        layer.keep(epoch, vec![learnt(0, 100), learnt(1, 200)]);
        layer.forget(0);
        assert!(!cached(&layer, 0, 100) && cached(&layer, 1, 200));
        assert_eq!((layer.size().cached_bytes, layer.size().sketched_files), (200, 1));
        // Learnt before the change: dropped whole.
        layer.keep(epoch, vec![learnt(2, 300)]);
        assert!(!cached(&layer, 2, 300));
        // Other metadata than when learnt: not known.
        assert!(layer.get(Handle::for_test(1), Meta { size: 200, mtime_ms: 2.0 }).is_none());
        layer.clear();
        let size = layer.size();
        assert_eq!((size.cached_bytes, size.cached_files, size.sketched_files), (0, 0, 0));
    }

    #[test]
    fn a_file_learnt_again_without_contents_keeps_the_contents_held() {
        let mut layer = ContentLayer::new(ContentCaps { sketches: 1 << 20, contents: 10_000 });
        layer.keep(0, vec![learnt(3, 100)]);
        let mut again = learnt(3, 100);
        again.contents = None;
        layer.keep(0, vec![again]);
        let meta = Meta { size: 100, mtime_ms: 1.0 };
        assert!(layer.get(Handle::for_test(3), meta).unwrap().contents.is_some());
        assert_eq!((layer.size().cached_files, layer.size().sketched_files), (1, 1));
    }

    /// A search that read a sketched file for its contents hands them over
    /// without a sketch: they are kept beside the sketch held, for that file only.
    #[test]
    fn contents_learnt_without_a_sketch_join_the_sketch_held() {
        let mut layer = ContentLayer::new(ContentCaps { sketches: 1 << 20, contents: 10_000 });
        let mut first = learnt(5, 100);
        first.contents = None;
        layer.keep(0, vec![first]);
        assert!(!cached(&layer, 5, 100));
        let mut again = learnt(5, 100);
        again.sketch = None;
        let version = layer.version();
        layer.keep(0, vec![again]);
        assert!(cached(&layer, 5, 100) && layer.version() == version, "the place of its sketch is unchanged");
        assert_eq!((layer.size().cached_files, layer.size().sketched_files), (1, 1));
        // A file with no sketch held gets nothing from contents alone.
        let mut unknown = learnt(6, 100);
        unknown.sketch = None;
        layer.keep(0, vec![unknown]);
        assert_eq!((layer.size().cached_files, layer.size().sketched_files), (1, 1));
    }

    #[test]
    fn a_zero_cap_keeps_sketches_only() {
        let mut layer = ContentLayer::new(ContentCaps { sketches: 1 << 20, contents: 0 });
        assert!(!layer.wants_contents(1));
        layer.keep(0, vec![learnt(0, 10)]);
        assert!(!cached(&layer, 0, 10));
        assert_eq!((layer.size().cached_bytes, layer.size().sketched_files), (0, 1));
    }
}
