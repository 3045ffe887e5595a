//! Where a page of `searchFiles` results starts: the `offset` and `cursor`
//! options, and the cursor a result hands back when more follows.
//!
//! A cursor is opaque to callers. It holds the key of the first item the
//! next page may show (so a page never repeats what an earlier one showed,
//! even when files are added meanwhile), the order that key belongs to, a
//! fingerprint of the options that change the answer (so a cursor is never
//! applied to another search), and on a live index the generation of its
//! tree (so a result can say the tree changed between pages).
//!
//! With `partial`, `timeoutMs` is a budget for reading contents (`Budget`):
//! files not searched in time are noted, and the result covers only the
//! files before the first of them, so it is a prefix of the full answer and
//! its cursor continues exactly where it stops.
//!
//! Items are ordered as the result lists them: by path and then line
//! (content and count modes, and file lists under `partial`), or newest
//! first with ties by path (file lists otherwise, as the contract asks), or
//! by rank (fuzzy name search: the key is a place, as the ranking depends
//! on the names alone).
//!
//! A newest-first key also carries the newest time of the first page's
//! answer (`since`): a file modified between pages would otherwise move
//! before the cursor and be on no page. Later pages list the files modified
//! after it last, oldest change first (see `newest_cmp`), so such a file,
//! and one made meanwhile, comes on a later page.

use crate::args::Value;
use crate::error::{FindError, Result};
use crate::option_table::{self, Call};
use crate::path_bytes::posix_string;
use crate::sync::lock;
use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// Longest cursor text read (a key holds one path).
const MAX_CURSOR_CHARS: usize = 64 * 1024;

const VERSION: u8 = 2;

/// The order of a result's items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// By path, then line.
    Path,
    /// Newest modification first, ties by path.
    Newest,
    /// A fuzzy search's ranking, which depends on the names alone.
    Rank,
}

/// An item's place in its order; a page starts at the first item whose key
/// is at or after the cursor's.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    /// A file (`line` 0) or a matching line (1-based) in path order.
    Path { path: String, line: u64 },
    /// A file in newest-first order, paged from a first page whose newest
    /// file was modified at `since` (see `newest_cmp`).
    Newest { mtime_ms: f64, path: String, since: f64 },
    /// A place in a ranking.
    Rank { at: u64 },
}

impl Key {
    /// How `self` stands to `start` in their order (`Less`: before it).
    pub fn cmp_to(&self, start: &Key) -> Ordering {
        match (self, start) {
            (Key::Path { path, line }, Key::Path { path: p, line: l }) => {
                path.as_str().cmp(p.as_str()).then(line.cmp(l))
            }
            (Key::Newest { mtime_ms, path, .. }, Key::Newest { mtime_ms: m, path: p, since }) => {
                newest_cmp((*mtime_ms, path), (*m, p), *since)
            }
            (Key::Rank { at }, Key::Rank { at: a }) => at.cmp(a),
            // `Cursor::decode` refuses a cursor of another order.
            _ => Ordering::Greater,
        }
    }

    /// The first key after `self`: the next line, or the next file.
    pub fn after(&self) -> Key {
        match self {
            Key::Path { path, line } => Key::Path { path: path.clone(), line: line + 1 },
            // No path holds a NUL: `path` + NUL is the least path after it.
            Key::Newest { mtime_ms, path, since } => {
                Key::Newest { mtime_ms: *mtime_ms, path: format!("{path}\0"), since: *since }
            }
            Key::Rank { at } => Key::Rank { at: at + 1 },
        }
    }
}

/// The newest-first order of files (`(mtime, path)`) paged from a first
/// page whose newest file was modified at `since`: files modified no later,
/// newest first, ties by path; then those modified after it, oldest first.
/// A file modified after the first page was made (its time is then the
/// newest) so moves after every page's cursor, never before one, and a file
/// modified again after being listed there moves on again. On a first page
/// no file is after `since`, which is plain newest first.
pub fn newest_cmp(a: (f64, &str), b: (f64, &str), since: f64) -> Ordering {
    let later = |m: f64| m.total_cmp(&since).is_gt();
    match (later(a.0), later(b.0)) {
        (false, false) => b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)),
        (true, true) => a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)),
        (a_later, b_later) => a_later.cmp(&b_later),
    }
}

/// Where the next page starts, and what it must match.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor {
    pub order: Order,
    pub fingerprint: u64,
    /// The index's tree generation when the page was made; `None` off an index.
    pub generation: Option<u64>,
    pub start: Key,
    /// Items still to pass over from `start` (an `offset` that reached past
    /// what a partial result covered).
    pub skip: u64,
}

/// FNV-1a: stable across runs and builds, unlike `DefaultHasher`.
fn fnv(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

fn hash_value(hash: u64, value: &Value) -> u64 {
    match value {
        Value::Absent => fnv(hash, b"a"),
        Value::Bool(b) => fnv(hash, &[b'b', u8::from(*b)]),
        Value::Number(n) => fnv(fnv(hash, b"n"), &n.to_bits().to_le_bytes()),
        Value::Text(t) => fnv(fnv(fnv(hash, b"t"), &(t.len() as u64).to_le_bytes()), t.as_bytes()),
        Value::List(items) => items.iter().fold(fnv(fnv(hash, b"l"), &(items.len() as u64).to_le_bytes()), hash_value),
        Value::Other(name) => fnv(fnv(hash, b"o"), name.as_bytes()),
    }
}

/// Whether `name` only chooses which part of the answer a page shows, how
/// long to look, or what is told beside the items (the option table's
/// `page_only`).
fn page_only(name: &str) -> bool {
    option_table::spec(Call::Search, name).is_some_and(|o| o.page_only)
}

/// A fingerprint of the options that change the answer: every option given
/// but the page ones, by name (absent ones left out, so `x: undefined` and
/// no `x` agree), in name order.
pub fn fingerprint(fields: &[(String, Value)]) -> u64 {
    let mut given: Vec<&(String, Value)> =
        fields.iter().filter(|(name, v)| *v != Value::Absent && !page_only(name)).collect();
    given.sort_by(|a, b| a.0.cmp(&b.0));
    given.iter().fold(FNV_START, |h, (name, value)| {
        hash_value(fnv(fnv(h, &(name.len() as u64).to_le_bytes()), name.as_bytes()), value)
    })
}

fn refused(why: &str) -> FindError {
    FindError::invalid_argument(format!(
        "`cursor` {why}; pass the `cursor` string of an earlier result unchanged, with the same options, or leave it out to start from the first result"
    ))
}

impl Cursor {
    /// The text a result hands back: hex, so it survives any transport.
    pub fn encode(&self) -> String {
        let order = match self.order {
            Order::Path => b'p',
            Order::Newest => b'n',
            Order::Rank => b'r',
        };
        let mut bytes = vec![VERSION, order];
        bytes.extend(self.fingerprint.to_le_bytes());
        match self.generation {
            Some(g) => {
                bytes.push(1);
                bytes.extend(g.to_le_bytes());
            }
            None => bytes.push(0),
        }
        bytes.extend(self.skip.to_le_bytes());
        let path = match &self.start {
            Key::Path { path, line } => {
                bytes.extend(line.to_le_bytes());
                path.as_str()
            }
            Key::Newest { mtime_ms, path, since } => {
                bytes.extend(mtime_ms.to_bits().to_le_bytes());
                bytes.extend(since.to_bits().to_le_bytes());
                path.as_str()
            }
            Key::Rank { at } => {
                bytes.extend(at.to_le_bytes());
                ""
            }
        };
        bytes.extend(path.as_bytes());
        let check = fnv(FNV_START, &bytes) as u32;
        bytes.extend(check.to_le_bytes());
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Reads a cursor, refused with `invalid-argument` when it is not one a
    /// search made.
    pub fn decode(text: &str) -> Result<Cursor> {
        if text.len() > MAX_CURSOR_CHARS
            || !text.len().is_multiple_of(2)
            || !text.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(refused("is not a cursor a search returned"));
        }
        let bytes: Vec<u8> =
            (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap_or(0)).collect();
        Cursor::from_bytes(&bytes).ok_or_else(|| refused("is not a cursor a search returned (or was cut or altered)"))
    }

    fn from_bytes(bytes: &[u8]) -> Option<Cursor> {
        let (body, check) = bytes.split_at(bytes.len().checked_sub(4)?);
        if u32::from_le_bytes(check.try_into().ok()?) != fnv(FNV_START, body) as u32 {
            return None;
        }
        let mut at = 0;
        let mut take = |n: usize| -> Option<&[u8]> {
            let part = body.get(at..at + n)?;
            at += n;
            Some(part)
        };
        let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        if take(1)? != [VERSION] {
            return None;
        }
        let order = match take(1)? {
            b"p" => Order::Path,
            b"n" => Order::Newest,
            b"r" => Order::Rank,
            _ => return None,
        };
        let fingerprint = u64_at(take(8)?);
        let generation = match take(1)? {
            [0] => None,
            [1] => Some(u64_at(take(8)?)),
            _ => return None,
        };
        let skip = u64_at(take(8)?);
        let number = u64_at(take(8)?);
        let since = match order {
            Order::Newest => f64::from_bits(u64_at(take(8)?)),
            _ => 0.0,
        };
        let path = String::from_utf8(body[at..].to_vec()).ok()?;
        let start = match order {
            Order::Path => Key::Path { path, line: number },
            Order::Newest => Key::Newest { mtime_ms: f64::from_bits(number), path, since },
            Order::Rank if path.is_empty() => Key::Rank { at: number },
            Order::Rank => return None,
        };
        Some(Cursor { order, fingerprint, generation, start, skip })
    }

    /// Refuses a cursor made by a search with other options, or in another order.
    pub fn check(&self, fingerprint: u64, order: Order) -> Result<()> {
        if self.fingerprint != fingerprint {
            return Err(refused(
                "was made by a search with other options (pattern, path, target, outputMode, fileGlob, ignoreCase, noIgnore, ...)",
            ));
        }
        if self.order != order {
            return Err(refused(
                "was made with `partial` set differently, which orders file lists otherwise (by path, not newest first)",
            ));
        }
        Ok(())
    }
}

/// One value for an index and the generation of its tree.
pub fn tree_version(id: u64, generation: u64) -> u64 {
    fnv(fnv(FNV_START, &id.to_le_bytes()), &generation.to_le_bytes())
}

/// How a search's options page its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Paging {
    /// Items to pass over from the start (or from `cursor`).
    pub offset: u64,
    pub cursor: Option<Cursor>,
    /// Of the options that change the answer (see `fingerprint`).
    pub fingerprint: u64,
    /// `timeoutMs` bounds the reading of contents, and the answer is what
    /// was found by then.
    pub partial: bool,
}

/// The time a `partial` search may spend reading contents, and the files
/// it had to leave unsearched.
#[derive(Debug)]
pub struct Budget {
    deadline: Instant,
    /// Each as its path in results and the path to open.
    unsearched: Mutex<Vec<(String, PathBuf)>>,
}

impl Budget {
    pub fn new(deadline: Instant) -> Budget {
        Budget { deadline, unsearched: Mutex::new(Vec::new()) }
    }

    pub fn spent(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// True, with `relative` noted as unsearched, once the time is spent.
    pub fn spent_on(&self, relative: &Path) -> bool {
        if !self.spent() {
            return false;
        }
        self.unsearched(posix_string(relative), relative.to_path_buf());
        true
    }

    /// Notes that a file was not searched.
    pub fn unsearched(&self, path: String, relative: PathBuf) {
        lock(&self.unsearched).push((path, relative));
    }

    /// Takes the first file (in path order) not searched, to search it
    /// anyway: so every call makes progress, however slow its walk.
    pub fn take_first(&self) -> Option<(String, PathBuf)> {
        let mut unsearched = lock(&self.unsearched);
        let first = (0..unsearched.len()).min_by(|&a, &b| unsearched[a].0.cmp(&unsearched[b].0))?;
        Some(unsearched.swap_remove(first))
    }

    /// The first file not searched: the answer covers the files before it.
    pub fn first_unsearched(&self) -> Option<String> {
        lock(&self.unsearched).iter().map(|(path, _)| path).min().cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn a_cursor_reads_back_as_it_was_written() {
        for c in [
            Cursor {
                order: Order::Path,
                fingerprint: 7,
                generation: None,
                start: Key::Path { path: "src/é.rs".into(), line: 12 },
                skip: 0,
            },
            Cursor {
                order: Order::Newest,
                fingerprint: u64::MAX,
                generation: Some(41),
                start: Key::Newest { mtime_ms: 1.7e12 + 0.25, path: "a\0".into(), since: 1.8e12 },
                skip: 3,
            },
        ] {
            assert_eq!(Cursor::decode(&c.encode()).unwrap(), c);
        }
    }

    #[test]
    fn an_altered_cursor_is_refused() {
        let c = Cursor {
            order: Order::Path,
            fingerprint: 1,
            generation: None,
            start: Key::Path { path: "a".into(), line: 1 },
            skip: 0,
        };
        let text = c.encode();
        let mut altered = text.clone().into_bytes();
        altered[6] = if altered[6] == b'0' { b'1' } else { b'0' };
        for bad in ["", "zz", "abc", &text[..text.len() - 2], std::str::from_utf8(&altered).unwrap()] {
            let e = Cursor::decode(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{bad}");
            assert!(e.message.contains("`cursor`"), "{}", e.message);
        }
        let e = c.check(2, Order::Path).unwrap_err();
        assert!(e.message.contains("other options"), "{}", e.message);
        assert!(c.check(1, Order::Newest).unwrap_err().message.contains("partial"));
        assert!(c.check(1, Order::Path).is_ok());
    }

    #[test]
    fn keys_order_as_results_do() {
        let p = |path: &str, line| Key::Path { path: path.into(), line };
        assert_eq!(p("a", 3).cmp_to(&p("a", 3)), Ordering::Equal);
        assert_eq!(p("a", 2).cmp_to(&p("a", 3)), Ordering::Less);
        assert_eq!(p("a", 0).cmp_to(&p("a", 0).after()), Ordering::Less);
        assert_eq!(p("b", 0).cmp_to(&p("a", 9).after()), Ordering::Greater);
        let n = |m: f64, path: &str| Key::Newest { mtime_ms: m, path: path.into(), since: 9.0 };
        assert_eq!(n(5.0, "z").cmp_to(&n(9.0, "a")), Ordering::Greater);
        assert_eq!(n(9.0, "a").cmp_to(&n(9.0, "a").after()), Ordering::Less);
        assert_eq!(n(9.0, "a/b").cmp_to(&n(9.0, "a").after()), Ordering::Greater);
        // Modified after the first page (time 9): after every file of up to
        // that time, the oldest change first.
        assert_eq!(n(12.0, "a").cmp_to(&n(1.0, "z")), Ordering::Greater);
        assert_eq!(n(12.0, "z").cmp_to(&n(13.0, "a")), Ordering::Less);
        assert_eq!(n(3.0, "a").cmp_to(&n(12.0, "a")), Ordering::Less);
    }

    #[test]
    fn only_answer_changing_options_are_fingerprinted() {
        let f = |pairs: &[(&str, Value)]| {
            fingerprint(&pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<Vec<_>>())
        };
        let base = f(&[("pattern", Value::Text("x".into())), ("path", Value::Text("src".into()))]);
        let paged = f(&[
            ("path", Value::Text("src".into())),
            ("maxResults", Value::Number(5.0)),
            ("pattern", Value::Text("x".into())),
            ("cursor", Value::Text("00".into())),
            ("ignoreCase", Value::Absent),
        ]);
        assert_eq!(base, paged);
        assert_ne!(base, f(&[("pattern", Value::Text("x".into())), ("path", Value::Text("lib".into()))]));
        assert_ne!(base, f(&[("pattern", Value::Text("x".into()))]));
    }
}
