//! The content layer's sketches, stored bit-sliced: sketches of one size
//! (a power of two from 64 to 65,536 bits, see `content_sketch`) are kept
//! 64 files to a block, word `i` of a block holding bit `i` of each of its
//! files' filters. A query tests 64 files with each read (`Masks`), a few
//! reads a block for a rare literal, where a sketch per file costs a likely
//! cache miss per file. The bits are the same as the files' own sketches,
//! so the memory is the same too (plus at most one part-filled block per
//! size), and the answer is the same: a file is ruled out exactly when its
//! own sketch would rule it out.
//!
//! Hand-written: bit-sliced signature files (as in BitFunnel) are a known
//! layout, but no crate keeps them updatable file by file with the Bloom
//! filters `content_sketch` makes.

use crate::content_sketch::{Prefilter, Sketch};

/// Sizes from 2^6 to 2^16 bits.
const SIZES: usize = 11;
const SMALLEST_LOG2: u32 = 6;

/// Where one file's sketch is: its size and its position among that size's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    size: u8,
    position: u32,
}

/// The sketches of one size.
#[derive(Default, Clone)]
struct SizeClass {
    /// `bits` words a block.
    blocks: Vec<Box<[u64]>>,
    /// Which positions of each block hold a file.
    occupied: Vec<u64>,
    /// Positions given back, to be taken again before new ones.
    free: Vec<u32>,
}

/// Every sketch of the layer.
#[derive(Clone)]
pub struct SlicedSketches {
    sizes: [SizeClass; SIZES],
}

impl Default for SlicedSketches {
    fn default() -> SlicedSketches {
        SlicedSketches { sizes: std::array::from_fn(|_| SizeClass::default()) }
    }
}

fn bits_of(size: usize) -> usize {
    1 << (size as u32 + SMALLEST_LOG2)
}

fn shift_of(size: usize) -> u32 {
    64 - (size as u32 + SMALLEST_LOG2)
}

impl SlicedSketches {
    /// Stores `sketch`; where it went.
    pub fn insert(&mut self, sketch: &Sketch) -> Place {
        let log2 = 64 - sketch.shift();
        let size = (log2.clamp(SMALLEST_LOG2, SMALLEST_LOG2 + SIZES as u32 - 1) - SMALLEST_LOG2) as usize;
        let bits = bits_of(size);
        let class = &mut self.sizes[size];
        let position = match class.free.pop() {
            Some(free) => free,
            None => {
                let next = class.blocks.len() * 64;
                class.blocks.push(vec![0; bits].into_boxed_slice());
                class.occupied.push(0);
                class.free.extend((next as u32 + 1..next as u32 + 64).rev());
                next as u32
            }
        };
        let (block, bit) = (position as usize / 64, 1u64 << (position % 64));
        let words = &mut class.blocks[block];
        for (w, &word) in sketch.words().iter().enumerate().take(bits / 64) {
            let mut rest = word;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                words[w * 64 + i] |= bit;
                rest &= rest - 1;
            }
        }
        class.occupied[block] |= bit;
        Place { size: size as u8, position }
    }

    /// Clears the sketch at `place` and gives the position back.
    pub fn remove(&mut self, place: Place) {
        let class = &mut self.sizes[place.size as usize];
        let (block, bit) = (place.position as usize / 64, 1u64 << (place.position % 64));
        for word in class.blocks[block].iter_mut() {
            *word &= !bit;
        }
        class.occupied[block] &= !bit;
        class.free.push(place.position);
    }

    /// The sketch at `place`, gathered back from its block.
    pub fn sketch_at(&self, place: Place, binary: bool) -> Option<Sketch> {
        let size = place.size as usize;
        let bits = bits_of(size);
        let (block, bit) = (place.position as usize / 64, 1u64 << (place.position % 64));
        let mut words = vec![0u64; bits / 64];
        for (i, &word) in self.sizes[size].blocks[block].iter().enumerate() {
            if word & bit != 0 {
                words[i / 64] |= 1 << (i % 64);
            }
        }
        let log2 = size as u32 + SMALLEST_LOG2;
        Sketch::from_saved(words, log2, binary)
    }

    /// Heap bytes held by the blocks (in full, filled or not) and their
    /// occupancy; the free lists, at most 4 bytes a position, are not counted.
    pub fn bytes(&self) -> usize {
        self.sizes.iter().enumerate().map(|(size, class)| class.blocks.len() * (bits_of(size) * 8 + 8)).sum()
    }

    /// Which files may hold a match of `prefilter`, every block tested.
    pub fn masks(&self, prefilter: &Prefilter) -> Masks {
        let sizes = std::array::from_fn(|size| {
            let class = &self.sizes[size];
            class
                .blocks
                .iter()
                .zip(&class.occupied)
                .map(|(block, &occupied)| match occupied {
                    0 => 0,
                    _ => prefilter.may_match_block(block, shift_of(size), occupied),
                })
                .collect()
        });
        Masks { sizes }
    }
}

/// A query's answer for every sketch held: which may hold a match.
pub struct Masks {
    sizes: [Vec<u64>; SIZES],
}

impl Masks {
    /// Whether the file whose sketch is at `place` may hold a match.
    pub fn may_match(&self, place: Place) -> bool {
        self.sizes[place.size as usize][place.position as usize / 64] >> (place.position % 64) & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content_sketch::Sketcher;

    /// Contents of many sizes, with words from a small vocabulary.
    fn contents(seed: u64, words: usize) -> String {
        const VOCABULARY: [&str; 12] =
            ["alpha", "needle", "haystack", "fn", "return", "zqx", "import", "Widget", "const", "x", "42", "quux"];
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..words)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                VOCABULARY[(state % VOCABULARY.len() as u64) as usize]
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_file_is_ruled_out_exactly_when_its_own_sketch_rules_it_out() {
        let mut sketcher = Sketcher::default();
        let mut sliced = SlicedSketches::default();
        // Sizes from a few bytes to ~100 KB, so that several size classes fill several blocks.
        let sketches: Vec<Sketch> = (0..400)
            .map(|i| sketcher.sketch(contents(i, [1, 3, 20, 200, 2_000, 20_000][i as usize % 6]).as_bytes()))
            .collect();
        let mut places: Vec<Option<Place>> = sketches.iter().map(|s| Some(sliced.insert(s))).collect();
        // Some removed, and their positions taken again by others.
        for i in (0..400).step_by(7) {
            sliced.remove(places[i].take().unwrap());
        }
        let again: Vec<Sketch> = (0..30).map(|i| sketcher.sketch(contents(1_000 + i, 50).as_bytes())).collect();
        let again_places: Vec<Place> = again.iter().map(|s| sliced.insert(s)).collect();
        for pattern in ["needle", "zqx", "nowhere at all", "needle.*quux", "(Widget|gadget)", "fn return", "a"] {
            let Some(prefilter) = Prefilter::new(pattern, false) else { continue };
            let masks = sliced.masks(&prefilter);
            for (sketch, place) in sketches.iter().zip(&places) {
                if let Some(place) = place {
                    assert_eq!(masks.may_match(*place), prefilter.may_match(sketch), "{pattern}");
                }
            }
            for (sketch, place) in again.iter().zip(&again_places) {
                assert_eq!(masks.may_match(*place), prefilter.may_match(sketch), "{pattern}, reused position");
            }
        }
    }

    #[test]
    fn memory_is_the_sketches_own_plus_part_filled_blocks() {
        let mut sketcher = Sketcher::default();
        let mut sliced = SlicedSketches::default();
        let sketches: Vec<Sketch> = (0..640).map(|i| sketcher.sketch(contents(i, 100).as_bytes())).collect();
        let own: usize = sketches.iter().map(|s| s.words().len() * 8).sum();
        let places: Vec<Place> = sketches.iter().map(|s| sliced.insert(s)).collect();
        let held = sliced.bytes();
        assert!(held >= own && held <= own + own / 4 + 64 * 1024, "held {held}, the sketches' own {own}");
        // Removing and inserting again reuses positions: no growth.
        for place in &places[..320] {
            sliced.remove(*place);
        }
        for sketch in &sketches[..320] {
            sliced.insert(sketch);
        }
        assert_eq!(sliced.bytes(), held);
    }
}
