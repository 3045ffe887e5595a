//! Which files can hold a match of a content regex, told without reading
//! them: a `Sketch` of each file's contents (a Bloom filter of its
//! trigrams, ASCII letters lowercased), kept by the live index, and a
//! `Prefilter` that turns a regex into the trigrams every match must
//! contain (an AND/OR of them). A file whose sketch lacks them holds no
//! match and is not opened; any other file is read and searched as usual,
//! so the answer stays exactly what a full search gives.
//!
//! Hand-written because no crate does this for a `regex-syntax` HIR with a
//! per-file filter: `regex-syntax`'s literal extractor gives prefixes and
//! suffixes (what a match starts or ends with), not the inner literals an
//! `a.*b` or a case-insensitive word requires, and trigram crates index
//! whole corpora rather than answering per file. The analysis follows the
//! classic trigram-index query (each node's exact strings when they are
//! few, else what it requires), kept sound by answering "anything" for what
//! it does not model.
//!
//! The filter's size scales with the file: about `BITS_PER_TRIGRAM` bits
//! per distinct trigram, two probes each (at most 1 in 6 absent trigrams
//! answers "maybe"), up to `MAX_SKETCH_BITS`, where a large file's filter
//! fills up and lets more through; files above `MAX_SKETCHED_FILE_BYTES`
//! get none and are always read.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Bits of filter per distinct trigram (rounded up to a power of two in all).
const BITS_PER_TRIGRAM: usize = 4;
/// The most bits a file's filter takes (8 KiB).
const MAX_SKETCH_BITS: usize = 1 << 16;
/// The smallest filter.
const MIN_SKETCH_BITS: usize = 64;
/// Files larger than this get no sketch (always read).
pub const MAX_SKETCHED_FILE_BYTES: u64 = 16 << 20;
/// The most strings a node of the regex is tracked as exactly (beyond, what
/// it requires is kept instead).
const MAX_EXACT: usize = 64;
/// The most characters a class may hold to be tracked as exact strings.
const MAX_CLASS_CHARS: u32 = 8;

/// A trigram: three bytes, ASCII letters lowercased.
fn trigram(a: u8, b: u8, c: u8) -> u32 {
    (a.to_ascii_lowercase() as u32) << 16 | (b.to_ascii_lowercase() as u32) << 8 | c.to_ascii_lowercase() as u32
}

/// The two probes of a trigram, before they are cut to a filter's size.
fn probes(t: u32) -> (u64, u64) {
    let h = (t as u64 ^ 0x5851_F42D_4C95_7F2D).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let h2 = (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (h, h2 ^ (h2 >> 32))
}

/// How common a (lowercased) byte is in source code, 1-10.
fn byte_commonness(b: u8) -> u32 {
    match b {
        b' ' => 10,
        b'e' => 9,
        b't' => 8,
        b'a' | b'o' | b'i' | b'n' | b's' | b'r' => 7,
        b'l' | b'c' | b'd' | b'u' | b'h' | b'm' | b'p' | b'(' | b')' | b';' | b'.' | b',' | b'=' => 6,
        b'f' | b'g' | b'b' | b'y' | b'w' | b'_' | b'\'' | b'"' | b'{' | b'}' | b'\t' => 5,
        b'v' | b'k' | b'0'..=b'9' | b'/' | b'-' | b':' | b'[' | b']' | b'<' | b'>' => 4,
        b'x' | b'j' | b'q' | b'z' => 2,
        0x80.. => 1,
        _ => 3,
    }
}

/// A file's contents, as far as trigrams go.
#[derive(Debug, Clone)]
pub struct Sketch {
    words: Box<[u64]>,
    /// `64 - log2(bits)`: a probe's top bits pick its bit.
    shift: u32,
    /// The contents hold a NUL byte: a search that reads the file (and
    /// finds no match first) stops there and counts it as binary.
    binary: bool,
}

/// What a prefilter asks of a file's sketch, wherever the sketch is held:
/// in memory (`Sketch`), or in the bytes of a saved file (`SavedSketch`).
pub trait Probe {
    /// Whether both bits of a trigram's probe are set.
    fn has(&self, probe: (u64, u64)) -> bool;
    /// The contents hold a NUL byte.
    fn binary(&self) -> bool;
}

impl Probe for Sketch {
    fn has(&self, (p1, p2): (u64, u64)) -> bool {
        let bit = |p: u64| {
            let i = (p >> self.shift) as usize;
            self.words[i / 64] >> (i % 64) & 1 == 1
        };
        bit(p1) && bit(p2)
    }

    fn binary(&self) -> bool {
        self.binary
    }
}

/// A sketch as a saved file holds it (see `index::saved`): its words as
/// little-endian bytes, read where they lie.
#[derive(Debug, Clone, Copy)]
pub struct SavedSketch<'a> {
    bytes: &'a [u8],
    shift: u32,
    binary: bool,
}

impl<'a> SavedSketch<'a> {
    /// The sketch of `2^log2` bits in `bytes`; `None` for an impossible
    /// size or one `bytes` does not hold exactly.
    pub fn new(bytes: &'a [u8], log2: u32, binary: bool) -> Option<SavedSketch<'a>> {
        (Sketch::words_for(log2)? * 8 == bytes.len()).then_some(SavedSketch { bytes, shift: 64 - log2, binary })
    }

    /// `64 - log2(bits)`, as `Sketch::shift`.
    pub fn shift(&self) -> u32 {
        self.shift
    }

    /// The sketch in memory.
    pub fn to_sketch(self) -> Sketch {
        let words = self.bytes.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default())).collect();
        Sketch { words, shift: self.shift, binary: self.binary }
    }
}

impl Probe for SavedSketch<'_> {
    fn has(&self, (p1, p2): (u64, u64)) -> bool {
        // Bit `i` of little-endian words is bit `i % 8` of byte `i / 8`.
        let bit = |p: u64| {
            let i = (p >> self.shift) as usize;
            self.bytes[i / 8] >> (i % 8) & 1 == 1
        };
        bit(p1) && bit(p2)
    }

    fn binary(&self) -> bool {
        self.binary
    }
}

impl Sketch {
    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8 + std::mem::size_of::<Sketch>()
    }

    /// The filter's bits, 64 a word (`1 << (64 - shift)` in all).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The contents hold a NUL byte.
    pub fn binary(&self) -> bool {
        self.binary
    }

    /// `64 - log2(bits)`: the same for every sketch of one size.
    pub fn shift(&self) -> u32 {
        self.shift
    }

    /// Whether the filter is so full that it rules out little: a file too
    /// large for the largest filter, more than half of whose bits are set
    /// (then an absent trigram answers "maybe" more than one time in four).
    pub fn rules_out_little(&self) -> bool {
        let bits = self.words.len() * 64;
        let set: usize = self.words.iter().map(|w| w.count_ones() as usize).sum();
        bits == MAX_SKETCH_BITS && set * 2 > bits
    }

    /// A sketch as saved (see `index::saved`): its words, `log2` of its
    /// bits, and whether its file is binary; `None` for an impossible size.
    pub fn from_saved(words: Vec<u64>, log2: u32, binary: bool) -> Option<Sketch> {
        (Sketch::words_for(log2)? == words.len()).then(|| Sketch { words: words.into(), shift: 64 - log2, binary })
    }

    /// How many words a sketch of `2^log2` bits takes, when that is a size
    /// sketches have.
    pub fn words_for(log2: u32) -> Option<usize> {
        let bits = 1usize.checked_shl(log2)?;
        (MIN_SKETCH_BITS..=MAX_SKETCH_BITS).contains(&bits).then_some(bits / 64)
    }
}

/// Makes sketches, reusing its scratch space (one per thread).
///
/// A file's trigrams go straight into a filter as large as the file could
/// need (at most 8 KiB, so it stays in the processor's nearest cache), which
/// is then folded down to the size its number of distinct trigrams calls
/// for, estimated from how full it is. Folding a filter whose bits are
/// picked by a probe's top bits gives exactly the filter those trigrams
/// would have made at the smaller size: bit `i` of the half-size filter is
/// bits `2i` and `2i + 1` of the larger one.
#[derive(Default)]
pub struct Sketcher {
    words: Vec<u64>,
}

impl Sketcher {
    /// The sketch of `contents`. Trigrams across a line break are left out:
    /// a match never holds one (searches go line by line).
    pub fn sketch(&mut self, contents: &[u8]) -> Sketch {
        // At most one distinct trigram per byte.
        let mut bits = (contents.len() * BITS_PER_TRIGRAM).next_power_of_two().clamp(MIN_SKETCH_BITS, MAX_SKETCH_BITS);
        self.words.clear();
        self.words.resize(bits / 64, 0);
        let shift = 64 - bits.trailing_zeros();
        let words = &mut self.words[..];
        // `bits` is a power of two: the mask keeps every index in bounds
        // without a check the loop would pay at each byte.
        let last = words.len() - 1;
        let (mut t, mut run, mut previous) = (0u32, 0u32, u32::MAX);
        for &b in contents {
            if b == b'\n' {
                run = 0;
                continue;
            }
            t = (t << 8 | b.to_ascii_lowercase() as u32) & 0xFF_FFFF;
            run += 1;
            // A trigram again at once (a run of spaces) sets nothing new.
            if run >= 3 && t != previous {
                previous = t;
                let (p1, p2) = probes(t);
                let (i1, i2) = ((p1 >> shift) as usize, (p2 >> shift) as usize);
                words[(i1 / 64) & last] |= 1 << (i1 % 64);
                words[(i2 / 64) & last] |= 1 << (i2 % 64);
            }
        }
        // Distinct trigrams, from the share of bits set (the usual estimate
        // for a Bloom filter of m bits and two probes: -m/2 ln(1 - set/m)).
        let set: u32 = self.words.iter().map(|w| w.count_ones()).sum();
        let m = bits as f64;
        let distinct = if set as usize >= bits { f64::INFINITY } else { -m / 2.0 * (1.0 - set as f64 / m).ln() };
        let wanted = ((distinct.ceil().min(MAX_SKETCH_BITS as f64) as usize) * BITS_PER_TRIGRAM)
            .next_power_of_two()
            .clamp(MIN_SKETCH_BITS, MAX_SKETCH_BITS);
        while bits > wanted {
            fold_in_half(&mut self.words);
            bits /= 2;
        }
        Sketch {
            words: self.words.as_slice().into(),
            shift: 64 - bits.trailing_zeros(),
            binary: memchr::memchr(0, contents).is_some(),
        }
    }
}

/// Halves a filter: bit `i` of the result is bit `2i` or `2i + 1` of `words`.
fn fold_in_half(words: &mut Vec<u64>) {
    /// Bit `k` of the result (k < 32): bit `2k` or `2k + 1` of `x`.
    fn pairs(x: u64) -> u64 {
        let mut x = (x | x >> 1) & 0x5555_5555_5555_5555;
        x = (x | x >> 1) & 0x3333_3333_3333_3333;
        x = (x | x >> 2) & 0x0F0F_0F0F_0F0F_0F0F;
        x = (x | x >> 4) & 0x00FF_00FF_00FF_00FF;
        x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF;
        (x | x >> 16) & 0x0000_0000_FFFF_FFFF
    }
    let half = words.len() / 2;
    for w in 0..half {
        words[w] = pairs(words[2 * w]) | pairs(words[2 * w + 1]) << 32;
    }
    words.truncate(half);
}

/// What every match of a regex contains, in trigrams.
#[derive(Debug, Clone, PartialEq)]
enum Need {
    /// Nothing known: any file may match.
    Any,
    Trigram(u32, (u64, u64)),
    All(Vec<Need>),
    OneOf(Vec<Need>),
}

impl Need {
    fn all(parts: Vec<Need>) -> Need {
        let mut kept: Vec<Need> = Vec::new();
        for part in parts {
            match part {
                Need::Any => {}
                Need::All(inner) => kept.extend(inner),
                other => kept.push(other),
            }
        }
        // Rarest first: most files lack a rare trigram, so most checks stop
        // at the first probe (each a likely cache miss).
        kept.sort_by_key(|need| match need {
            Need::Trigram(t, _) => (need.commonness(), *t),
            _ => (u32::MAX, 0),
        });
        kept.dedup();
        match kept.len() {
            0 => Need::Any,
            1 => kept.pop().unwrap_or(Need::Any),
            _ => Need::All(kept),
        }
    }

    /// How often a need is met by a source file, roughly (trigrams by their
    /// letters' frequency in code and prose; anything else after them).
    fn commonness(&self) -> u32 {
        match self {
            Need::Trigram(t, _) => [t >> 16, t >> 8, *t].iter().map(|&b| byte_commonness(b as u8)).sum(),
            _ => u32::MAX,
        }
    }

    fn one_of(parts: Vec<Need>) -> Need {
        if parts.is_empty() || parts.contains(&Need::Any) {
            return Need::Any;
        }
        let mut parts = parts;
        parts.dedup();
        match parts.len() {
            1 => parts.pop().unwrap_or(Need::Any),
            _ => Need::OneOf(parts),
        }
    }

    /// The trigrams of one string (those across a line break left out).
    fn of_string(s: &[u8]) -> Need {
        let parts = s
            .windows(3)
            .filter(|w| !w.contains(&b'\n'))
            .map(|w| {
                let t = trigram(w[0], w[1], w[2]);
                Need::Trigram(t, probes(t))
            })
            .collect();
        Need::all(parts)
    }

    fn of_strings(set: &[Vec<u8>]) -> Need {
        Need::one_of(set.iter().map(|s| Need::of_string(s)).collect())
    }

    fn met_by<P: Probe + ?Sized>(&self, sketch: &P) -> bool {
        match self {
            Need::Any => true,
            Need::Trigram(_, p) => sketch.has(*p),
            Need::All(parts) => parts.iter().all(|n| n.met_by(sketch)),
            Need::OneOf(parts) => parts.iter().any(|n| n.met_by(sketch)),
        }
    }

    /// `met_by` for 64 files at once (see `Prefilter::may_match_block`),
    /// stopping as soon as the answer is known for all of `present`.
    fn met_by_block(&self, block: &[u64], shift: u32, present: u64) -> u64 {
        match self {
            Need::Any => present,
            Need::Trigram(_, (p1, p2)) => block[(p1 >> shift) as usize] & block[(p2 >> shift) as usize] & present,
            Need::All(parts) => {
                let mut left = present;
                for part in parts {
                    if left == 0 {
                        break;
                    }
                    left &= part.met_by_block(block, shift, left);
                }
                left
            }
            Need::OneOf(parts) => {
                let mut met = 0;
                for part in parts {
                    if met == present {
                        break;
                    }
                    met |= part.met_by_block(block, shift, present & !met);
                }
                met
            }
        }
    }
}

/// What the analysis knows of one node of the regex.
struct Known {
    /// The strings it matches (ASCII lowercased), when they are few.
    exact: Option<Vec<Vec<u8>>>,
    /// What it requires otherwise.
    need: Need,
}

impl Known {
    fn exactly(set: Vec<Vec<u8>>) -> Known {
        Known { exact: Some(set), need: Need::Any }
    }

    fn anything() -> Known {
        Known { exact: None, need: Need::Any }
    }

    fn into_need(self) -> Need {
        match self.exact {
            Some(set) => Need::of_strings(&set),
            None => self.need,
        }
    }
}

fn dedup(mut set: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    set.sort();
    set.dedup();
    set
}

fn known(hir: &Hir) -> Known {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Known::exactly(vec![Vec::new()]),
        HirKind::Literal(lit) => Known::exactly(vec![lit.0.to_ascii_lowercase()]),
        HirKind::Class(class) => class_strings(class).map_or_else(Known::anything, Known::exactly),
        HirKind::Capture(capture) => known(&capture.sub),
        HirKind::Repetition(rep) => {
            let sub = known(&rep.sub);
            match (rep.min, rep.max) {
                (1, Some(1)) => sub,
                (0, Some(1)) => match sub.exact {
                    Some(mut set) if set.len() < MAX_EXACT => {
                        set.push(Vec::new());
                        Known::exactly(dedup(set))
                    }
                    _ => Known::anything(),
                },
                (0, _) => Known::anything(),
                // At least one copy: what one copy needs.
                _ => Known { exact: None, need: sub.into_need() },
            }
        }
        HirKind::Concat(subs) => {
            let mut needs = Vec::new();
            let mut run: Option<Vec<Vec<u8>>> = Some(vec![Vec::new()]);
            for sub in subs {
                let sub = known(sub);
                match (run.take(), sub.exact) {
                    (Some(left), Some(right)) if left.len() * right.len() <= MAX_EXACT => {
                        let joined = left.iter().flat_map(|l| right.iter().map(move |r| [&l[..], &r[..]].concat()));
                        run = Some(dedup(joined.collect()));
                    }
                    (left, Some(right)) => {
                        if let Some(left) = left {
                            needs.push(Need::of_strings(&left));
                        }
                        run = Some(right);
                    }
                    (left, None) => {
                        if let Some(left) = left {
                            needs.push(Need::of_strings(&left));
                        }
                        needs.push(sub.need);
                        run = Some(vec![Vec::new()]);
                    }
                }
            }
            match (needs.is_empty(), run) {
                (true, Some(run)) => Known::exactly(run),
                (_, run) => {
                    needs.extend(run.map(|r| Need::of_strings(&r)));
                    Known { exact: None, need: Need::all(needs) }
                }
            }
        }
        HirKind::Alternation(subs) => {
            let subs: Vec<Known> = subs.iter().map(known).collect();
            // Exact only when every branch is (a branch that is not would be lost).
            let total: Option<usize> = subs.iter().map(|k| k.exact.as_ref().map(Vec::len)).sum();
            if total.is_some_and(|total| total <= MAX_EXACT) {
                Known::exactly(dedup(subs.into_iter().flat_map(|k| k.exact.unwrap_or_default()).collect()))
            } else {
                Known { exact: None, need: Need::one_of(subs.into_iter().map(Known::into_need).collect()) }
            }
        }
    }
}

/// The strings a small class matches (each character as UTF-8, ASCII
/// lowercased), or `None` for a large one.
fn class_strings(class: &Class) -> Option<Vec<Vec<u8>>> {
    let ranges: Vec<(u32, u32)> = match class {
        Class::Unicode(c) => c.ranges().iter().map(|r| (r.start() as u32, r.end() as u32)).collect(),
        Class::Bytes(c) => c.ranges().iter().map(|r| (r.start() as u32, r.end() as u32)).collect(),
    };
    if ranges.iter().map(|(start, end)| end - start + 1).sum::<u32>() > MAX_CLASS_CHARS {
        return None;
    }
    let one = |v: u32| match class {
        Class::Unicode(_) => char::from_u32(v).map(|c| c.encode_utf8(&mut [0; 4]).as_bytes().to_ascii_lowercase()),
        Class::Bytes(_) => Some(vec![(v as u8).to_ascii_lowercase()]),
    };
    let set = ranges.into_iter().flat_map(|(start, end)| start..=end).map(one).collect::<Option<Vec<_>>>()?;
    Some(dedup(set))
}

/// The trigrams every match of a content regex contains.
#[derive(Debug, Clone)]
pub struct Prefilter {
    need: Need,
}

impl Prefilter {
    /// The prefilter of `pattern` (Rust `regex` syntax, as the content
    /// search reads it), or `None` when it requires no trigram (or does not
    /// parse here): every file is then read.
    pub fn new(pattern: &str, ignore_case: bool) -> Option<Prefilter> {
        let hir =
            regex_syntax::ParserBuilder::new().utf8(false).case_insensitive(ignore_case).build().parse(pattern).ok()?;
        match known(&hir).into_need() {
            Need::Any => None,
            need => Some(Prefilter { need }),
        }
    }

    /// The prefilter of any of `patterns` (each a regex, or with `literal`
    /// a fixed string): a file may match when it may match one of them, so
    /// the need is the alternation of theirs, built as ripgrep joins
    /// `-e A -e B` (each pattern in a group of its own, so its flags stay
    /// inside). A multiline pattern needs no change: a trigram across a
    /// line break is never required (see `Need::of_string`).
    pub fn any_of<P: AsRef<str>>(patterns: &[P], ignore_case: bool, literal: bool) -> Option<Prefilter> {
        let joined: Vec<String> = patterns
            .iter()
            .map(|p| match literal {
                true => format!("(?:{})", regex_syntax::escape(p.as_ref())),
                false => format!("(?:{})", p.as_ref()),
            })
            .collect();
        match joined.len() {
            0 => None,
            _ => Prefilter::new(&joined.join("|"), ignore_case),
        }
    }

    /// Whether a file with this sketch may hold a match (false: it holds none).
    pub fn may_match<P: Probe + ?Sized>(&self, sketch: &P) -> bool {
        self.need.met_by(sketch)
    }

    /// Of the (up to) 64 files of a bit-sliced `block` of sketches with
    /// `shift` (word `i` holds bit `i` of each file's filter, so one read
    /// tests 64 files), those that may hold a match, as bits; `present` are
    /// the block's files (a bit outside it may be set or not).
    pub fn may_match_block(&self, block: &[u64], shift: u32, present: u64) -> u64 {
        self.need.met_by_block(block, shift, present)
    }

    /// `Some` when a file with this sketch holds no match: it need not be
    /// read, and what the search it saves would have met is told.
    pub fn rules_out<P: Probe + ?Sized>(&self, sketch: &P) -> Option<RuledOut> {
        match (self.may_match(sketch), sketch.binary()) {
            (true, _) => None,
            (false, false) => Some(RuledOut::Text),
            (false, true) => Some(RuledOut::Binary),
        }
    }
}

/// A file a sketch rules out, by what a search reading it would have met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuledOut {
    Text,
    /// It holds a NUL byte: the search would have stopped there, so
    /// `skipped` counts it as binary.
    Binary,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn may(pattern: &str, ignore_case: bool, contents: &str) -> bool {
        let sketch = Sketcher::default().sketch(contents.as_bytes());
        Prefilter::new(pattern, ignore_case).is_none_or(|p| p.may_match(&sketch))
    }

    /// What the regex itself says, line by line (the search's semantics).
    fn matches(pattern: &str, ignore_case: bool, contents: &str) -> bool {
        let re = regex::RegexBuilder::new(pattern).case_insensitive(ignore_case).build().unwrap();
        contents.lines().any(|line| re.is_match(line))
    }

    /// The filter of these distinct trigrams made directly at `bits` bits.
    fn direct(trigrams: &std::collections::BTreeSet<u32>, bits: usize) -> Vec<u64> {
        let mut words = vec![0u64; bits / 64];
        let shift = 64 - bits.trailing_zeros();
        for &t in trigrams {
            let (p1, p2) = probes(t);
            for p in [p1, p2] {
                let i = (p >> shift) as usize;
                words[i / 64] |= 1 << (i % 64);
            }
        }
        words
    }

    #[test]
    fn a_folded_filter_is_the_filter_made_at_its_size() {
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        let mut sketcher = Sketcher::default();
        for len in [0usize, 2, 3, 10, 100, 1_000, 5_000, 40_000, 300_000] {
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    b"abcdefghij KLMNOP\n(){}_0123456789xyzw"[(rng % 37) as usize]
                })
                .collect();
            let trigrams: std::collections::BTreeSet<u32> =
                text.windows(3).filter(|w| !w.contains(&b'\n')).map(|w| trigram(w[0], w[1], w[2])).collect();
            let sketch = sketcher.sketch(&text);
            let bits = sketch.words.len() * 64;
            assert_eq!(sketch.shift, 64 - bits.trailing_zeros(), "{len}");
            assert_eq!(&*sketch.words, direct(&trigrams, bits).as_slice(), "{len} bytes, {} trigrams", trigrams.len());
            // Sized for the trigrams it holds (within the estimate's error: one power of two).
            let exact = (trigrams.len() * BITS_PER_TRIGRAM).next_power_of_two().clamp(MIN_SKETCH_BITS, MAX_SKETCH_BITS);
            assert!(
                bits == exact || bits == exact * 2 || bits * 2 == exact,
                "{len}: {bits} bits for {} trigrams",
                trigrams.len()
            );
        }
    }

    #[test]
    fn patterns_that_need_nothing_have_no_prefilter() {
        for p in [".", "a", "ab", "\\w+", "a*", "[a-z]{3}", "(abc)?", "x|yz", "(?s).*"] {
            assert!(Prefilter::new(p, false).is_none(), "{p}");
        }
    }

    #[test]
    fn literals_alternations_and_classes_require_their_trigrams() {
        let text = "fn main() {\n    let deadlock = Mutex::new(1);\n    println!(\"ok\");\n}\n";
        let cases = [
            ("deadlock", false),
            ("Deadlock", false),
            ("DEADLOCK", true),
            ("dead(lock|line)", false),
            ("dead(line|zone)", false),
            ("Mutex::new\\(\\d\\)", false),
            ("let\\s+\\w+\\s*=", false),
            ("print(ln)?!", false),
            ("never_written", false),
            ("(?i)MUTEX", false),
            ("mu[tT]ex", false),
            ("mu[xy]ex", false),
            ("main.*deadlock", false),
            ("fn main\\(\\) \\{", false),
            ("\\bdeadlock\\b", false),
            ("^    let", false),
            ("ok\"\\);$", false),
            ("a{2}dead", false),
            ("(dead){2,}", false),
            ("é|deadl", false),
            ("naïve", true),
            ("(x\\w|y\\w|z\\w|dead\\w)lock", false),
        ];
        for (pattern, ignore_case) in cases {
            let truth = matches(pattern, ignore_case, text);
            let maybe = may(pattern, ignore_case, text);
            assert!(maybe || !truth, "{pattern}: a file holding a match was filtered out");
        }
        // And it does filter: absent literals are told absent.
        for pattern in ["never_written", "dead(line|zone)", "mu[xy]ex", "main.*zzzz", "naïve", "(x\\w|y\\w|z\\w)never"]
        {
            assert!(!may(pattern, true, text), "{pattern} should be ruled out");
        }
        assert!(!may("DEADLOCK", false, "nothing here\n"));
    }

    #[test]
    fn case_insensitive_words_with_unicode_folds_are_filtered_soundly() {
        // (?i)k also matches KELVIN SIGN, (?i)s LONG S: both kept as alternatives.
        let text = "the \u{212A}ind of \u{17F}kip\n";
        assert!(matches("kind", true, text) && may("kind", true, text));
        assert!(matches("skip", true, text) && may("skip", true, text));
        assert!(!may("kindle", true, text));
    }

    #[test]
    fn any_of_several_patterns_needs_one_of_theirs() {
        let text = "fn main() {\n    let deadlock = Mutex::new(1);\n    println!(\"ok\");\n}\n";
        let sketch = Sketcher::default().sketch(text.as_bytes());
        let may = |patterns: &[&str], ignore_case: bool, literal: bool| {
            Prefilter::any_of(patterns, ignore_case, literal).is_none_or(|p| p.may_match(&sketch))
        };
        // One present is enough; all absent rule the file out.
        assert!(may(&["never_written", "deadlock"], false, false));
        assert!(may(&["zzzz_one", "(?i)MUTEX::NEW"], false, false));
        assert!(!may(&["never_written", "zzzz_two"], false, false));
        // A pattern's own flags do not leak into the next (each is a group of its own).
        assert!(may(&["(?i)never_WRITTEN", "mutex::NEW"], true, false));
        assert!(!may(&["(?i)never_written", "zzzz_three"], false, false));
        // Literal text: regex characters are plain, and required as written.
        assert!(may(&["Mutex::new(", "never"], false, true));
        assert!(may(&["println!(\"ok\")"], false, true));
        assert!(!may(&["dead.lock", "Mutex::new(2"], false, true));
        assert!(may(&["DEADLOCK"], true, true));
        // A multiline pattern is never ruled out for its line break.
        assert!(may(&["Mutex::new\\(1\\);\\n\\s+println"], false, false));
        assert!(may(&["\\{\\n    let"], false, false));
        assert!(Prefilter::any_of::<&str>(&[], false, false).is_none());
    }

    #[test]
    fn a_trigram_across_a_line_break_is_never_required() {
        let sketch = Sketcher::default().sketch(b"ab\ncd");
        assert!(Prefilter::new("b\\nc", false).is_none_or(|p| p.may_match(&sketch)));
    }

    #[test]
    fn random_patterns_never_filter_out_a_matching_file() {
        // A small deterministic generator of patterns and texts over a tiny alphabet.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let atoms =
            ["a", "b", "c", "ab", "abc", "[ab]", "[a-c]", ".", "\\w", "(a|bc)", "x", "A", "(?i)b", "\\b", "^", "$"];
        let quants = ["", "", "", "?", "*", "+", "{2}", "{1,3}"];
        for _ in 0..3000 {
            let pattern: String = (0..1 + next(5))
                .map(|_| {
                    format!(
                        "{}{}",
                        atoms[next(atoms.len() as u64) as usize],
                        quants[next(quants.len() as u64) as usize]
                    )
                })
                .collect::<Vec<_>>()
                .join(if next(4) == 0 { "|" } else { "" });
            let text: String =
                (0..next(40)).map(|_| ["a", "b", "c", "x", "A", " ", "\n", "B"][next(8) as usize]).collect();
            let ignore_case = next(3) == 0;
            if regex::RegexBuilder::new(&pattern).case_insensitive(ignore_case).build().is_err() {
                continue;
            }
            if matches(&pattern, ignore_case, &text) {
                assert!(may(&pattern, ignore_case, &text), "{pattern:?} (ignore case {ignore_case}) on {text:?}");
            }
        }
    }

    #[test]
    fn a_large_file_gets_a_bounded_filter() {
        let text: String = (0..200_000u32).map(|i| char::from_u32(0x4E00 + i % 20_000).unwrap()).collect();
        let sketch = Sketcher::default().sketch(text.as_bytes());
        assert!(sketch.bytes() <= MAX_SKETCH_BITS / 8 + 64);
        assert!(sketch.rules_out_little());
        let source = "fn main() {\n    let deadlock = Mutex::new(1);\n}\n".repeat(1_000);
        assert!(!Sketcher::default().sketch(source.as_bytes()).rules_out_little());
    }
}
