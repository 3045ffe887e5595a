//! The live index's content layer: a `Sketch` of each file's contents (see
//! `content_sketch`), made by the content searches that read the file and
//! used by later ones to pass over files that cannot hold a match.
//!
//! A sketch stands for the file as it was when read: it is kept with the
//! entry's size and mtime and used only while the tree still shows those,
//! and an event naming the file drops it (`forget`), so a file rewritten
//! with the same size and time is read again too. Sketches made while an
//! event was being applied are not kept (`epoch`): they may describe the
//! contents before it. The layer holds at most `cap` bytes; past it, files
//! without a sketch are read by every search, as without the layer.

use super::tree::{Handle, Id, Tree};
use crate::content_sketch::Sketch;
use crate::entry::Meta;

struct Slot {
    handle: Handle,
    meta: Meta,
    sketch: Sketch,
}

/// The sketches, by the entry's slot in the tree.
pub struct Sketches {
    slots: Vec<Option<Slot>>,
    bytes: usize,
    files: usize,
    cap: usize,
    /// Bumped each time a sketch is dropped for a change.
    epoch: u64,
}

impl Sketches {
    pub fn new(cap: usize) -> Sketches {
        Sketches { slots: Vec::new(), bytes: 0, files: 0, cap, epoch: 0 }
    }

    /// The sketch of the entry `handle`, if it was made for the contents
    /// the entry has at `meta`.
    pub fn get(&self, handle: Handle, meta: Meta) -> Option<&Sketch> {
        match self.slots.get(handle.id() as usize) {
            Some(Some(slot)) if slot.handle == handle && slot.meta == meta => Some(&slot.sketch),
            _ => None,
        }
    }

    /// Whether another sketch would be kept.
    pub fn has_room(&self) -> bool {
        self.bytes < self.cap
    }

    /// The epoch to pass to `keep` for sketches made from now on.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Keeps sketches made since `epoch` (none if a change came meanwhile,
    /// or once the cap is reached).
    pub fn keep(&mut self, epoch: u64, made: Vec<(Handle, Meta, Sketch)>) {
        if epoch != self.epoch {
            return;
        }
        for (handle, meta, sketch) in made {
            if !self.has_room() {
                return;
            }
            let id = handle.id() as usize;
            if self.slots.len() <= id {
                self.slots.resize_with(id + 1, || None);
            }
            self.drop_slot(id);
            self.bytes += sketch.bytes();
            self.files += 1;
            self.slots[id] = Some(Slot { handle, meta, sketch });
        }
    }

    fn drop_slot(&mut self, id: usize) {
        if let Some(old) = self.slots.get_mut(id).and_then(Option::take) {
            self.bytes -= old.sketch.bytes();
            self.files -= 1;
        }
    }

    /// Drops the sketch in slot `id` (its file changed, or was removed).
    pub fn forget(&mut self, id: Id) {
        self.epoch += 1;
        self.drop_slot(id as usize);
    }

    /// Drops every sketch whose entry is no longer in `tree`.
    pub fn sweep(&mut self, tree: &Tree) {
        for id in 0..self.slots.len() {
            if self.slots[id].as_ref().is_some_and(|slot| tree.resolve(slot.handle).is_none()) {
                self.drop_slot(id);
            }
        }
    }

    /// Drops them all (the tree was made anew).
    pub fn clear(&mut self) {
        self.epoch += 1;
        self.slots = Vec::new();
        (self.bytes, self.files) = (0, 0);
    }

    /// Heap bytes held, and how many files have a sketch.
    pub fn size(&self) -> (usize, usize) {
        (self.bytes + self.slots.capacity() * std::mem::size_of::<Option<Slot>>(), self.files)
    }
}
