//! Fuzzy file-name search: `searchFiles` with `target: 'files'` and
//! `fuzzy: true`. `pattern` is then the name a model remembers (perhaps
//! misspelled), not a glob; every file is ranked against it and the best come
//! first. This module owns the query (`FuzzyQuery`), the per-thread scorer
//! (`Scorer`) and the order of the ranks (`Rank`).
//!
//! The classes, best first (ties: the shorter name, then the shorter path,
//! then the path):
//!
//! 1. the name is the query (`index.js`), then names it begins (`readme` →
//!    `README.md`);
//! 2. the query starts a word of the name (`button` → `icon-button.tsx`), then
//!    it is a folder of the path or begins one (`components` →
//!    `src/components/x.ts`), then the name merely contains it;
//! 3. typos: the name is within a few edits of the query (a wrong, missing or
//!    extra letter: `typescropt.ts`, `indx.js`, `pakage.json`);
//! 4. the path merely contains the query;
//! 5. subsequence: the query's letters appear in order in the path
//!    (`srcbtn` → `src/components/Button.tsx`), ranked by `nucleo-matcher`'s
//!    score (word starts, path separators and runs of adjacent letters
//!    score higher, gaps lower: fzf's scoring).
//!
//! A query with `/` is compared with as many trailing segments of the path
//! as it has (`lib/indx.js` with `src/lib/index.js`'s `lib/index.js`).
//! Matching ignores case (Unicode lowercase).
//!
//! Why an edit distance beside `nucleo-matcher`: nucleo scores subsequences,
//! so a missing letter still matches (`indx.js` is a subsequence of
//! `index.js`), but a wrong or an extra letter (`typescropt.ts`,
//! `pakkage.json`) makes the query no subsequence of the name at all, and
//! nucleo drops the file that was meant. Even a missing letter ranks poorly
//! there: the gap costs as much as a scattered match elsewhere. So the name
//! is also compared with the query by Levenshtein distance, bounded (at most
//! 1 edit for queries of 3 to 5 characters, 2 from 6 on, none below 3: more
//! would match nearly every short name), computed with Myers' bit-parallel
//! algorithm (one machine word for a query of up to 64 characters, so a
//! name costs a few operations a character). Two distances are kept: of the
//! query to any part of the name (`contrpller` in `UserController.ts`), and
//! to a start of it (`pakage` in `package.json`); the second breaks ties.
//!
//! Cost: a path lacking more of the query's characters than the typos
//! allowed is passed over after one pass over its bytes (each missing
//! character costs an edit; the other classes need them all), and so is a
//! name's edit distance. The last class is told apart by a plain in-order
//! test during the walk; nucleo's score, which only orders that class, is
//! computed after it (`Scorer::score`), when the page reaches the class.

use memchr::memmem;
use nucleo_matcher::{Config, Matcher, Utf32Str, Utf32String};

/// Queries longer than this (in characters) get no typo tolerance (the
/// bit-parallel distance holds the query in one `u64`); they still match
/// exactly, by substring and by subsequence.
const MAX_TYPO_QUERY_CHARS: usize = 64;

/// A file's place in the order: lower is better; ties go by path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank {
    class: Class,
    /// Within the typo class: edits to some part of the name, then to a
    /// start of it; 0 elsewhere.
    typos: (u8, u8),
    /// `u16::MAX` minus nucleo's score, within the subsequence class.
    fuzziness: u16,
    /// How far the name's length is from the query's.
    length_gap: u32,
    path_len: u32,
}

impl Rank {
    /// Whether the path holds the query as typed (not only a near spelling
    /// or its letters in order): the ranking of such files is exact.
    pub fn is_literal(&self) -> bool {
        self.class < Class::Typo
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Exact,
    Prefix,
    NameWord,
    Folder,
    NameContains,
    Typo,
    PathContains,
    Subsequence,
}

/// A fuzzy query, shared by the walker threads.
#[derive(Debug, Clone)]
pub struct FuzzyQuery {
    /// As given (for messages).
    text: String,
    /// Lowercased.
    lower: String,
    /// Lowercased, as characters (the distance's pattern).
    chars: Vec<char>,
    /// Lowercased, as nucleo takes a needle (a character a grapheme, as it
    /// reads the haystack).
    needle: Utf32String,
    /// How many trailing segments of a path the query is compared with.
    segments: usize,
    /// The longest edit distance a typo match may have.
    max_typos: u32,
    /// Myers' pattern masks: one bit per query position holding the character.
    masks: Masks,
    /// The query's ASCII characters (lowercased), as `CHAR_BITS` gives them:
    /// a path lacking more of them than `max_typos` matches in no class (each
    /// missing one costs an edit, and the literal and subsequence classes
    /// need them all), so it is passed over before any search of it.
    ascii: u64,
}

#[derive(Debug, Clone)]
struct Masks {
    ascii: Box<[u64; 128]>,
    other: Vec<(char, u64)>,
}

impl Masks {
    fn new(chars: &[char]) -> Masks {
        let mut masks = Masks { ascii: Box::new([0; 128]), other: Vec::new() };
        for (i, &c) in chars.iter().enumerate().take(MAX_TYPO_QUERY_CHARS) {
            let bit = 1u64 << i;
            if c.is_ascii() {
                masks.ascii[c as usize] |= bit;
            } else if let Some(slot) = masks.other.iter_mut().find(|(k, _)| *k == c) {
                slot.1 |= bit;
            } else {
                masks.other.push((c, bit));
            }
        }
        masks
    }

    #[inline]
    fn of(&self, c: char) -> u64 {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other.iter().find(|(k, _)| *k == c).map_or(0, |(_, m)| *m)
        }
    }
}

impl FuzzyQuery {
    /// The query for `pattern`, or `None` when nothing is left of it once
    /// surrounding spaces and a leading `./` or `/` are taken off.
    pub fn new(pattern: &str) -> Option<FuzzyQuery> {
        let mut text = pattern.trim();
        while let Some(rest) = text.strip_prefix("./").or_else(|| text.strip_prefix('/')) {
            text = rest;
        }
        let text = text.trim_end_matches('/');
        if text.is_empty() {
            return None;
        }
        let lower = lowercase(text);
        let chars: Vec<char> = lower.chars().collect();
        let max_typos = match chars.len() {
            0..=2 => 0,
            3..=5 => 1,
            6..=MAX_TYPO_QUERY_CHARS => 2,
            _ => 0,
        };
        Some(FuzzyQuery {
            text: text.to_string(),
            segments: lower.matches('/').count() + 1,
            masks: Masks::new(&chars),
            needle: Utf32String::from(lower.as_str()),
            ascii: ascii_set(&lower),
            lower,
            chars,
            max_typos,
        })
    }

    /// Whether `text` (lowercase, or ASCII) lacks more of the query's
    /// characters than the typos allowed: each costs an edit, so no class
    /// can match it.
    fn too_far(&self, text: &str) -> bool {
        (self.ascii & !ascii_set(text)).count_ones() > self.max_typos
    }

    /// The query as the caller wrote it, trimmed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// A scorer for one walker thread.
    pub fn scorer(&self) -> Scorer<'_> {
        Scorer {
            query: self,
            finder: memmem::Finder::new(self.lower.as_bytes()),
            matcher: Matcher::new(path_config()),
            lower: String::new(),
            haystack: Vec::new(),
        }
    }

    /// Myers' bit-parallel edit distance of the query to `text` (lowercase):
    /// the least over every part of `text` (`infix`) and over every start of
    /// it (`prefix`), each `None` above `max_typos`.
    fn distances(&self, text: &str) -> (Option<u32>, Option<u32>) {
        let m = self.chars.len();
        if self.max_typos == 0 || m > MAX_TYPO_QUERY_CHARS {
            return (None, None);
        }
        let (infix, prefix) = match text.is_ascii() {
            true => myers(text.bytes().map(|b| self.masks.ascii[b as usize]), m),
            false => myers(text.chars().map(|c| self.masks.of(c)), m),
        };
        let within = |d: u32| (d <= self.max_typos).then_some(d);
        (within(infix), within(prefix))
    }
}

/// Myers' algorithm over a text given as each character's pattern mask,
/// for a query of `m` characters: the least distance to any part of the
/// text, and to a start of it.
#[inline]
fn myers(text: impl Iterator<Item = u64>, m: usize) -> (u32, u32) {
    let high = 1u64 << (m - 1);
    let full = if m == 64 { u64::MAX } else { (1u64 << m) - 1 };
    // Two machines over the same text: in `infix` a match may start
    // anywhere (row 0 is all zeros), in `prefix` only at the start (row 0
    // counts the skipped characters, a +1 carried into each column).
    let mut machines = [(full, 0u64, m as u32, m as u32, 0u64), (full, 0u64, m as u32, m as u32, 1u64)];
    for eq in text {
        for (pv, mv, score, best, carry) in machines.iter_mut() {
            let xv = eq | *mv;
            let xh = (((eq & *pv).wrapping_add(*pv)) ^ *pv) | eq;
            let mut ph = *mv | !(xh | *pv);
            let mut mh = *pv & xh;
            if ph & high != 0 {
                *score += 1;
            } else if mh & high != 0 {
                *score -= 1;
            }
            ph = (ph << 1) | *carry;
            mh <<= 1;
            *pv = (mh | !(xv | ph)) & full;
            *mv = ph & xv & full;
            *best = (*best).min(*score);
        }
    }
    (machines[0].3, machines[1].3)
}

/// One walker thread's means to rank files: nucleo's matcher and buffers.
pub struct Scorer<'q> {
    query: &'q FuzzyQuery,
    finder: memmem::Finder<'q>,
    matcher: Matcher,
    lower: String,
    haystack: Vec<char>,
}

impl Scorer<'_> {
    /// `path` (relative, `/`-separated)'s rank, or `None` when it does not
    /// match at all.
    pub fn rank(&mut self, path: &str) -> Option<Rank> {
        let q = self.query;
        self.lower.clear();
        // Most paths fail the quick test: for an ASCII one (nearly all) it
        // is made on the bytes, before any copy.
        if path.is_ascii() {
            if q.too_far(path) {
                return None;
            }
            self.lower.push_str(path);
            self.lower.make_ascii_lowercase();
        } else {
            self.lower.push_str(&lowercase(path));
            if q.too_far(&self.lower) {
                return None;
            }
        }
        self.rank_lowered(path)
    }

    /// `rank` past its quick test, with `path` lowercased in `self.lower`.
    fn rank_lowered(&mut self, path: &str) -> Option<Rank> {
        let q = self.query;
        let lower = self.lower.as_str();
        let tail_at = tail_start(lower, q.segments);
        let tail = &lower[tail_at..];
        let query_len = q.chars.len() as u32;
        let tail_len = tail.chars().count() as u32;
        let rank = |class, typos, fuzziness| Rank {
            class,
            typos,
            fuzziness,
            length_gap: tail_len.abs_diff(query_len),
            path_len: path.len() as u32,
        };
        if tail == q.lower {
            return Some(rank(Class::Exact, (0, 0), 0));
        }
        if tail.starts_with(&q.lower) {
            return Some(rank(Class::Prefix, (0, 0), 0));
        }
        let mut literal: Option<Class> = None;
        for at in self.finder.find_iter(lower.as_bytes()) {
            let class = if at >= tail_at {
                if at == tail_at || word_start(path, lower, at) {
                    Class::NameWord
                } else {
                    Class::NameContains
                }
            } else if at == 0 || lower.as_bytes()[at - 1] == b'/' {
                Class::Folder
            } else {
                Class::PathContains
            };
            literal = Some(literal.map_or(class, |best| best.min(class)));
            if class == Class::NameWord {
                break;
            }
        }
        match literal {
            Some(class) if class < Class::Typo => return Some(rank(class, (0, 0), 0)),
            _ => {}
        }
        // Each of the query's characters missing from the name costs an edit:
        // past `max_typos` of them, no distance need be computed.
        let near = !q.too_far(tail);
        let distances = if near { q.distances(tail) } else { (None, None) };
        if let (Some(infix), prefix) = distances {
            let prefix = prefix.unwrap_or(q.max_typos + 1);
            return Some(rank(Class::Typo, (infix as u8, prefix as u8), 0));
        }
        if let Some(class) = literal {
            return Some(rank(class, (0, 0), 0));
        }
        // An ASCII path's letters in order are told apart cheaply; nucleo's
        // score (which orders such files among themselves) is left to
        // `score`, asked only when the page reaches this class.
        if lower.is_ascii() && q.lower.is_ascii() {
            return is_subsequence(q.lower.as_bytes(), lower.as_bytes())
                .then(|| rank(Class::Subsequence, (0, 0), UNSCORED));
        }
        Some(rank(Class::Subsequence, (0, 0), self.fuzziness(path)?))
    }

    /// `rank` with the subsequence class's place among its peers filled in
    /// (`rank` leaves it out for an ASCII path).
    pub fn score(&mut self, path: &str, rank: Rank) -> Rank {
        match rank.unscored() {
            true => Rank { fuzziness: self.fuzziness(path).unwrap_or(UNSCORED), ..rank },
            false => rank,
        }
    }

    /// `u16::MAX` minus nucleo's score of the query's letters in `path`.
    fn fuzziness(&mut self, path: &str) -> Option<u16> {
        let haystack = Utf32Str::new(path, &mut self.haystack);
        let score = self.matcher.fuzzy_match(haystack, self.query.needle.slice(..))?;
        // Never `UNSCORED`: a score of 0 sorts with the worst.
        Some((u16::MAX - score).min(UNSCORED - 1))
    }
}

/// `Rank::fuzziness` of a subsequence match not scored yet.
const UNSCORED: u16 = u16::MAX;

/// Whether `needle`'s bytes appear in `haystack` in order.
fn is_subsequence(needle: &[u8], haystack: &[u8]) -> bool {
    let mut rest = haystack;
    needle.iter().all(|&b| match memchr::memchr(b, rest) {
        Some(at) => {
            rest = &rest[at + 1..];
            true
        }
        None => false,
    })
}

impl Rank {
    /// Whether `Scorer::score` would change it.
    pub fn unscored(&self) -> bool {
        self.class == Class::Subsequence && self.fuzziness == UNSCORED
    }

    /// Whether it is of the subsequence class (the last).
    pub fn is_subsequence(&self) -> bool {
        self.class == Class::Subsequence
    }
}

/// nucleo's settings for paths (`/` a word boundary), case ignored, and no
/// folding of accents: the needle is lowercased here, not normalized, and the
/// other classes tell `a` from `ä` too.
fn path_config() -> Config {
    let mut config = Config::DEFAULT.match_paths();
    config.ignore_case = true;
    config.normalize = false;
    config
}

/// The bit of each ASCII byte, case ignored: a letter, a digit and `./-_@`
/// and space each have their own; the other ASCII bytes share the rest
/// (two sharing a bit read as both present, which only lets more paths
/// through the quick test). Non-ASCII bytes have none: they are never
/// counted as missing.
const CHAR_BITS: [u64; 256] = {
    let mut bits = [0u64; 256];
    let mut b = 0;
    while b < 128 {
        let c = (b as u8).to_ascii_lowercase();
        let bit = match c {
            b'a'..=b'z' => c - b'a',
            b'0'..=b'9' => 26 + c - b'0',
            b'.' => 36,
            b'/' => 37,
            b'-' => 38,
            b'_' => 39,
            b'@' => 40,
            b' ' => 41,
            _ => 42 + c % 22,
        };
        bits[b] = 1 << bit;
        b += 1;
    }
    bits
};

/// The ASCII characters of `text`, as `CHAR_BITS` gives them.
fn ascii_set(text: &str) -> u64 {
    text.bytes().fold(0, |set, b| set | CHAR_BITS[b as usize])
}

/// Where the last `segments` `/`-separated parts of `path` start.
fn tail_start(path: &str, segments: usize) -> usize {
    let mut at = path.len();
    for _ in 0..segments {
        match path[..at].rfind('/') {
            Some(slash) => at = slash,
            None => return 0,
        }
    }
    at + 1
}

/// Whether the match at byte `at` of `lower` (the lowercase `path`) starts a
/// word: after a separator (`-`, `_`, `.`, space), or at a capital after a
/// lowercase letter (`userController`); the case is only known where
/// lowercasing kept every byte in place (an ASCII path).
fn word_start(path: &str, lower: &str, at: usize) -> bool {
    let before = lower.as_bytes()[at - 1];
    if matches!(before, b'-' | b'_' | b'.' | b' ' | b'/') {
        return true;
    }
    let original = path.as_bytes();
    path.len() == lower.len()
        && path.is_ascii()
        && original[at].is_ascii_uppercase()
        && original[at - 1].is_ascii_lowercase()
}

fn lowercase(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// The notice of a search whose best file does not hold the query as typed
/// (only a near spelling or its letters in order): the order is then a
/// guess, and the result says so.
pub fn approximate_notice(query: &FuzzyQuery) -> String {
    format!(
        "No file path contains `{}` as written; these are the closest names (allowing typos), best first: check the first before relying on it.",
        crate::error::clip(query.text(), 200)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(q: &str) -> FuzzyQuery {
        FuzzyQuery::new(q).unwrap()
    }

    fn levenshtein(a: &[char], b: &[char]) -> u32 {
        let mut row: Vec<u32> = (0..=b.len() as u32).collect();
        for (i, ca) in a.iter().enumerate() {
            let mut prev = row[0];
            row[0] = i as u32 + 1;
            for (j, cb) in b.iter().enumerate() {
                let cur = row[j + 1];
                row[j + 1] = (prev + u32::from(ca != cb)).min(row[j] + 1).min(cur + 1);
                prev = cur;
            }
        }
        row[b.len()]
    }

    /// The distances by brute force: Levenshtein to every part and every start.
    fn brute(q: &str, text: &str) -> (u32, u32) {
        let a: Vec<char> = q.chars().collect();
        let t: Vec<char> = text.chars().collect();
        let mut infix = u32::MAX;
        let mut prefix = u32::MAX;
        for i in 0..=t.len() {
            for j in i..=t.len() {
                let d = levenshtein(&a, &t[i..j]);
                infix = infix.min(d);
                if i == 0 {
                    prefix = prefix.min(d);
                }
            }
        }
        (infix, prefix)
    }

    #[test]
    fn distances_agree_with_brute_force() {
        let texts = ["index.js", "typescript.ts", "package.json", "readme.md", "a", "", "ääbc", "usercontroller.ts"];
        let queries = ["indx.js", "typescropt.ts", "pakage.json", "redme", "abc", "äbc", "contrpller", "xyz", "ab"];
        for q in queries {
            let fq = query(q);
            for t in texts {
                let (infix, prefix) = brute(q, t);
                let within = |d: u32| (d <= fq.max_typos).then_some(d);
                let want = if fq.max_typos == 0 { (None, None) } else { (within(infix), within(prefix)) };
                assert_eq!(fq.distances(t), want, "{q} in {t}");
            }
        }
        // A 64-character query (the whole machine word) still works.
        let long = "a".repeat(63) + "b";
        let fq = query(&long);
        assert_eq!(fq.distances(&("a".repeat(63) + "c")), (Some(1), Some(1)));
        assert_eq!(query(&"a".repeat(65)).distances("aaa"), (None, None));
    }

    /// A seeded xorshift: each call a number below its argument.
    fn below(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    /// The quick test of missing characters passes over no path the full
    /// ranking matches: random paths and queries over a small alphabet (so
    /// that typos, subsequences and literal matches all occur), some of them
    /// with non-ASCII letters and capitals.
    #[test]
    fn the_quick_test_drops_no_match() {
        let alphabet: Vec<char> = "abcde./_-ÄäKk".chars().collect();
        let mut next = below(0x2545_F491_4F6C_DD1D);
        let (mut matched, mut dropped) = (0, 0);
        for _ in 0..20_000 {
            let path: String = (0..1 + next(14)).map(|_| alphabet[next(alphabet.len())]).collect();
            let q: String = (0..1 + next(8)).map(|_| alphabet[next(alphabet.len())]).collect();
            let Some(fq) = FuzzyQuery::new(&q) else { continue };
            let mut scorer = fq.scorer();
            let quick = scorer.rank(&path);
            scorer.lower = lowercase(&path);
            let full = scorer.rank_lowered(&path);
            assert_eq!(quick, full.filter(|_| quick.is_some()), "{q:?} in {path:?}");
            assert!(quick.is_some() || full.is_none(), "{q:?} in {path:?}: the quick test dropped {full:?}");
            // The same test on a name: no distance within the typos allowed.
            let lower = lowercase(&path);
            if fq.too_far(&lower) {
                assert_eq!(fq.distances(&lower), (None, None), "{q:?} in {path:?}");
            }
            matched += usize::from(full.is_some());
            dropped += usize::from(full.is_none() && fq.too_far(&lowercase(&path)));
        }
        assert!(matched > 1000 && dropped > 1000, "matched {matched}, dropped {dropped}");
    }

    /// The cheap test of letters in order says what nucleo says, for ASCII
    /// paths and queries (paths with `/`, capitals and repeats).
    #[test]
    fn subsequence_agrees_with_nucleo() {
        let alphabet: Vec<char> = "abAB/._-c".chars().collect();
        let mut next = below(0x9E37_79B9_7F4A_7C15);
        let mut both = [0; 2];
        for _ in 0..20_000 {
            let path: String = (0..1 + next(16)).map(|_| alphabet[next(alphabet.len())]).collect();
            let q: String = (0..1 + next(5)).map(|_| alphabet[next(alphabet.len())]).collect();
            let Some(fq) = FuzzyQuery::new(&q) else { continue };
            let mut scorer = fq.scorer();
            let cheap = is_subsequence(fq.lower.as_bytes(), path.to_ascii_lowercase().as_bytes());
            assert_eq!(cheap, scorer.fuzziness(&path).is_some(), "{q:?} in {path:?}");
            both[usize::from(cheap)] += 1;
            // A match of the last class, once scored, has its place.
            if let Some(rank) = scorer.rank(&path).filter(|r| r.is_subsequence()) {
                assert!(rank.unscored());
                assert!(!scorer.score(&path, rank).unscored());
            }
        }
        assert!(both[0] > 1000 && both[1] > 1000, "{both:?}");
    }

    fn best<'a>(q: &str, paths: &[&'a str]) -> Vec<&'a str> {
        let fq = query(q);
        let mut scorer = fq.scorer();
        let mut ranked: Vec<(Rank, &str)> = paths
            .iter()
            .filter_map(|p| {
                let rank = scorer.rank(p)?;
                Some((scorer.score(p, rank), *p))
            })
            .collect();
        ranked.sort();
        ranked.into_iter().map(|(_, p)| p).collect()
    }

    #[test]
    fn classes_come_in_order() {
        let paths = [
            "src/lib/reindex.js",
            "src/index.js",
            "index.js",
            "src/index.json",
            "docs/index/readme.md",
            "src/in_dex.js",
            "x/i/n/d/e/x.js",
        ];
        assert_eq!(
            best("index.js", &paths),
            ["index.js", "src/index.js", "src/index.json", "src/lib/reindex.js", "src/in_dex.js", "x/i/n/d/e/x.js"]
        );
        assert_eq!(best("indx.js", &paths)[..3], ["index.js", "src/index.js", "src/index.json"]);
        assert_eq!(
            best("README", &["a/README.md", "README.md", "readme-old/x.txt"]),
            ["README.md", "a/README.md", "readme-old/x.txt"]
        );
        assert_eq!(
            best("button", &["src/button/index.ts", "src/ui/icon-button.tsx", "src/Button.tsx", "src/mybuttons.ts"]),
            ["src/Button.tsx", "src/ui/icon-button.tsx", "src/button/index.ts", "src/mybuttons.ts"]
        );
        assert_eq!(
            best("controller", &["a/userController.ts", "a/usercontroller2.ts"]),
            ["a/userController.ts", "a/usercontroller2.ts"]
        );
        assert_eq!(
            best("lib/indx.js", &["src/lib/index.js", "lib/src/index.js"]),
            ["src/lib/index.js", "lib/src/index.js"]
        );
        assert_eq!(best("srcbtn", &["src/components/Button.tsx", "docs/other.md"]), ["src/components/Button.tsx"]);
        assert!(best("zzz", &["a.txt"]).is_empty());
    }

    #[test]
    fn typos_find_the_name() {
        let paths =
            ["src/typescript.ts", "src/types.ts", "package.json", "packages/a/page.json", "src/index.js", "README.md"];
        assert_eq!(best("typescropt.ts", &paths)[0], "src/typescript.ts");
        assert_eq!(best("pakage.json", &paths)[0], "package.json");
        assert_eq!(best("packkage.json", &paths)[0], "package.json");
        assert_eq!(best("redme", &paths)[0], "README.md");
        let fq = query("typescropt.ts");
        let rank = fq.scorer().rank("src/typescript.ts").unwrap();
        assert!(!rank.is_literal());
        assert!(query("typescript").scorer().rank("src/typescript.ts").unwrap().is_literal());
    }

    #[test]
    fn unicode_and_odd_queries() {
        assert_eq!(best("äpfel", &["docs/Äpfel.md", "docs/apfel.md"])[0], "docs/Äpfel.md");
        assert_eq!(best("ノート", &["docs/日本語/ノート.md"]), ["docs/日本語/ノート.md"]);
        assert!(FuzzyQuery::new("  ./ ").is_none());
        assert!(FuzzyQuery::new("/").is_none());
        assert_eq!(query("./src/a.ts").text(), "src/a.ts");
    }
}
