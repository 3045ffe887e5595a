//! Property tests: the glob matcher (`agent_find_core::pattern`) agrees
//! with a small reference matcher written from docs/API.md, on random
//! patterns and on paths made to match them (and near misses).
//!
//! The reference reads a glob as the README states it: a leading `./` or `/`
//! and a trailing `/` are dropped; `**` as a whole path segment is zero or more
//! segments (one or more at the end of a pattern with a folder before it:
//! `src/**` lists what is inside `src`), and any other run of stars is `*`;
//! `*` and `?` never cross `/`, nor does a class; `{a,b}` braces nest and may
//! hold an empty alternative; `\` escapes; case-insensitive unless asked.
//!
//! `PROPTEST_CASES=100000 cargo test --test glob_props` runs a longer search.

use agent_find_core::{normalize_glob, NameMatcher, PatternMode};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::path::Path;

// ---------------------------------------------------------------------------
// The reference matcher

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Lit(char),
    Any,
    Star,
    Class { negated: bool, items: Vec<(char, char)> },
    Alt(Vec<Vec<Tok>>),
}

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Globstar,
    Toks(Vec<Tok>),
}

/// The normalization docs/API.md gives: leading `./` and `/`, trailing `/`.
fn strip(pattern: &str) -> &str {
    let mut p = pattern;
    loop {
        if let Some(r) = p.strip_prefix("./") {
            p = r;
        } else if let Some(r) = p.strip_prefix('/') {
            p = r;
        } else {
            break;
        }
    }
    while p.len() > 1 && p.ends_with('/') && !p.ends_with("\\/") {
        p = &p[..p.len() - 1];
    }
    if p == "/" {
        ""
    } else {
        p
    }
}

/// Splits on `/` outside braces and classes (escapes kept for `parse_seg`).
fn split_segments(p: &str) -> Vec<String> {
    let chars: Vec<char> = p.chars().collect();
    let (mut out, mut cur, mut depth, mut i) = (Vec::new(), String::new(), 0usize, 0);
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() => {
                cur.push(c);
                cur.push(chars[i + 1]);
                i += 2;
                continue;
            }
            '[' => {
                // copy the class whole
                let end = class_end(&chars, i).expect("generated classes are closed");
                cur.extend(&chars[i..=end]);
                i = end + 1;
                continue;
            }
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            '/' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                i += 1;
                continue;
            }
            _ => {}
        }
        cur.push(c);
        i += 1;
    }
    out.push(cur);
    out
}

/// Index of the `]` closing the class opened at `open`.
fn class_end(chars: &[char], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if matches!(chars.get(i), Some('!' | '^')) {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    while i < chars.len() {
        if chars[i] == ']' {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn parse(pattern: &str) -> Vec<Seg> {
    split_segments(strip(pattern))
        .into_iter()
        .map(|s| {
            if s.len() >= 2 && s.chars().all(|c| c == '*') {
                Seg::Globstar
            } else {
                Seg::Toks(parse_toks(&s.chars().collect::<Vec<_>>(), &mut 0, false))
            }
        })
        .collect()
}

/// Tokens of one segment; inside braces, stops at `,` or `}` (left unconsumed).
fn parse_toks(chars: &[char], i: &mut usize, in_brace: bool) -> Vec<Tok> {
    let mut toks = Vec::new();
    while *i < chars.len() {
        let c = chars[*i];
        match c {
            ',' | '}' if in_brace => return toks,
            '\\' if *i + 1 < chars.len() => {
                toks.push(Tok::Lit(chars[*i + 1]));
                *i += 2;
            }
            '*' => {
                // any run of stars inside a segment is one `*`
                while *i < chars.len() && chars[*i] == '*' {
                    *i += 1;
                }
                toks.push(Tok::Star);
            }
            '?' => {
                toks.push(Tok::Any);
                *i += 1;
            }
            '[' => {
                let end = class_end(chars, *i).unwrap();
                let mut j = *i + 1;
                let negated = matches!(chars[j], '!' | '^');
                if negated {
                    j += 1;
                }
                let mut items = Vec::new();
                while j < end {
                    if j + 2 < end && chars[j + 1] == '-' {
                        items.push((chars[j], chars[j + 2]));
                        j += 3;
                    } else {
                        items.push((chars[j], chars[j]));
                        j += 1;
                    }
                }
                toks.push(Tok::Class { negated, items });
                *i = end + 1;
            }
            '{' => {
                *i += 1;
                let mut alts = vec![parse_toks(chars, i, true)];
                while *i < chars.len() && chars[*i] == ',' {
                    *i += 1;
                    alts.push(parse_toks(chars, i, true));
                }
                assert_eq!(chars.get(*i), Some(&'}'), "generated braces are closed");
                *i += 1;
                toks.push(Tok::Alt(alts));
            }
            c => {
                toks.push(Tok::Lit(c));
                *i += 1;
            }
        }
    }
    toks
}

/// One character's case mapping, where it is one character: a glob's `?`
/// and classes test characters one at a time, as Unicode's simple case
/// folding does (so `ß` is not `S`, though its uppercase is "SS").
fn single(mut mapped: impl Iterator<Item = char>, c: char) -> char {
    match (mapped.next(), mapped.next()) {
        (Some(m), None) => m,
        _ => c,
    }
}

fn fold(c: char) -> char {
    single(c.to_lowercase(), c)
}

fn same(a: char, b: char, cs: bool) -> bool {
    a == b || (!cs && fold(a) == fold(b))
}

fn upper(c: char) -> char {
    single(c.to_uppercase(), c)
}

/// Every character with the same lowercase or the same uppercase as `c`
/// (`ß` and `ẞ`; `s`, `S` and the long `ſ`; `k`, `K` and the Kelvin sign):
/// what a case-insensitive class tests, as simple case folding does.
fn case_variants(c: char) -> Vec<char> {
    type Table = std::collections::HashMap<(bool, char), Vec<char>>;
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = Table::new();
        for x in (0..=0x10FFFF).filter_map(char::from_u32) {
            table.entry((false, fold(x))).or_default().push(x);
            table.entry((true, upper(x))).or_default().push(x);
        }
        table
    });
    let mut out: Vec<char> = Vec::new();
    for key in [(false, fold(c)), (true, upper(c))] {
        out.extend(table.get(&key).map_or(&[][..], Vec::as_slice));
    }
    out
}

fn in_class(c: char, items: &[(char, char)], cs: bool) -> bool {
    let hit = |c: char| items.iter().any(|&(lo, hi)| lo <= c && c <= hi);
    hit(c) || (!cs && (hit(fold(c)) || case_variants(c).iter().any(|&v| hit(v))))
}

/// Does `toks` followed by `rest` match `s` (one path segment) exactly?
fn match_toks(toks: &[Tok], s: &[char], cs: bool) -> bool {
    let Some((first, rest)) = toks.split_first() else {
        return s.is_empty();
    };
    match first {
        Tok::Lit(c) => s.first().is_some_and(|&x| same(*c, x, cs)) && match_toks(rest, &s[1..], cs),
        Tok::Any => !s.is_empty() && match_toks(rest, &s[1..], cs),
        Tok::Star => (0..=s.len()).any(|k| match_toks(rest, &s[k..], cs)),
        Tok::Class { negated, items } => {
            s.first().is_some_and(|&x| in_class(x, items, cs) != *negated) && match_toks(rest, &s[1..], cs)
        }
        Tok::Alt(alts) => alts.iter().any(|alt| {
            let mut joined = alt.clone();
            joined.extend_from_slice(rest);
            match_toks(&joined, s, cs)
        }),
    }
}

fn match_segs(segs: &[Seg], path: &[Vec<char>], cs: bool, leading: bool) -> bool {
    let Some((first, rest)) = segs.split_first() else {
        return path.is_empty();
    };
    match first {
        Seg::Globstar => {
            // At the end, after some folder (`src/**`): one or more segments.
            let min = usize::from(rest.is_empty() && !leading);
            (min..=path.len()).any(|k| match_segs(rest, &path[k..], cs, false))
        }
        Seg::Toks(toks) => {
            path.first().is_some_and(|p| match_toks(toks, p, cs)) && match_segs(rest, &path[1..], cs, false)
        }
    }
}

fn reference(pattern: &str, path: &str, cs: bool) -> bool {
    let segs = parse(pattern);
    let path: Vec<Vec<char>> = path.split('/').map(|s| s.chars().collect()).collect();
    // `**` alone matches any (non-empty) path.
    if segs == [Seg::Globstar] {
        return true;
    }
    match_segs(&segs, &path, cs, true)
}

// ---------------------------------------------------------------------------
// Generators: patterns as atoms, and paths made from a pattern

#[derive(Debug, Clone)]
enum Atom {
    Lit(char),
    Escaped(char),
    Star,
    Quest,
    Class(String),
    Brace(Vec<Vec<Atom>>),
    Slash,
    Globstar,
}

fn render(atoms: &[Atom], out: &mut String) {
    for a in atoms {
        match a {
            Atom::Lit(c) => out.push(*c),
            Atom::Escaped(c) => {
                out.push('\\');
                out.push(*c);
            }
            Atom::Star => out.push('*'),
            Atom::Quest => out.push('?'),
            Atom::Class(body) => {
                out.push('[');
                out.push_str(body);
                out.push(']');
            }
            Atom::Brace(alts) => {
                out.push('{');
                for (i, alt) in alts.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    render(alt, out);
                }
                out.push('}');
            }
            Atom::Slash => out.push('/'),
            Atom::Globstar => out.push_str("**"),
        }
    }
}

fn lit(chars: &'static [char]) -> impl Strategy<Value = Atom> {
    prop::sample::select(chars).prop_map(Atom::Lit)
}

/// Atoms that stay inside one segment (no `/`, no `**`).
fn seg_atom(chars: &'static [char]) -> impl Strategy<Value = Atom> {
    let leaf = prop_oneof![
        6 => lit(chars),
        2 => Just(Atom::Star),
        2 => Just(Atom::Quest),
        1 => prop::sample::select(&['*', '?', '[', '{', ',', '\\'][..]).prop_map(Atom::Escaped),
        2 => (any::<bool>(), prop::collection::vec(prop::sample::select(chars), 1..3), any::<bool>()).prop_map(
            |(neg, members, range)| {
                let mut body = String::from(if neg { "!" } else { "" });
                if range {
                    let (a, b) = if members[0] <= *members.last().unwrap() {
                        (members[0], *members.last().unwrap())
                    } else {
                        (*members.last().unwrap(), members[0])
                    };
                    body.push(a);
                    body.push('-');
                    body.push(b);
                } else {
                    body.extend(members);
                }
                Atom::Class(body)
            }
        ),
    ];
    leaf.prop_recursive(2, 12, 3, move |inner| {
        prop::collection::vec(prop::collection::vec(inner, 0..3), 1..4).prop_map(Atom::Brace)
    })
}

const ASCII: &[char] = &['a', 'b', 'A', 'B', '.', 'x', '-'];
const WIDE: &[char] = &['a', 'b', 'é', 'É', 'ß', 'Ω', 'ω', '😀', '.'];

/// A pattern: segments of atoms, some of them `**`, joined by `/`, with an
/// optional `./` or `/` in front and `/` at the end, and partial `**` runs.
fn pattern(chars: &'static [char]) -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        5 => prop::collection::vec(seg_atom(chars), 1..4),
        1 => Just(vec![Atom::Globstar]),
        1 => prop::collection::vec(seg_atom(chars), 1..3).prop_map(|mut v| {
            v.push(Atom::Globstar); // a partial `**`: means `*`
            v
        }),
    ];
    (prop::sample::select(&["", "", "", "./", "/"][..]), prop::collection::vec(segment, 1..4), any::<bool>()).prop_map(
        |(prefix, segments, trailing)| {
            let mut atoms = Vec::new();
            for (i, seg) in segments.into_iter().enumerate() {
                if i > 0 {
                    atoms.push(Atom::Slash);
                }
                atoms.extend(seg);
            }
            let mut out = String::from(prefix);
            render(&atoms, &mut out);
            if trailing {
                out.push('/');
            }
            out
        },
    )
}

/// A pattern of one segment (no `/`, no `**`), for `matchBase`.
fn name_pattern(chars: &'static [char]) -> impl Strategy<Value = String> {
    prop::collection::vec(seg_atom(chars), 1..5).prop_map(|atoms| {
        let mut out = String::new();
        render(&atoms, &mut out);
        out
    })
}

/// A path built from `pattern` by choosing how each part matches, driven by
/// `choices`; then possibly mutated into a near miss.
fn instantiate(pattern: &str, choices: &[u8], chars: &[char]) -> String {
    let mut pick = choices.iter().cycle().copied();
    let mut next = move |n: usize| if n == 0 { 0 } else { pick.next().unwrap_or(0) as usize % n };
    let segs = parse(pattern);
    let mut parts: Vec<String> = Vec::new();
    for seg in &segs {
        match seg {
            Seg::Globstar => {
                for _ in 0..next(3) {
                    parts.push(random_word(&mut next, chars));
                }
            }
            Seg::Toks(toks) => parts.push(fill(toks, &mut next, chars)),
        }
    }
    if parts.is_empty() {
        parts.push(random_word(&mut next, chars));
    }
    parts.join("/")
}

fn random_word(next: &mut impl FnMut(usize) -> usize, chars: &[char]) -> String {
    (0..1 + next(3)).map(|_| chars[next(chars.len())]).collect()
}

fn fill(toks: &[Tok], next: &mut impl FnMut(usize) -> usize, chars: &[char]) -> String {
    let mut s = String::new();
    for t in toks {
        match t {
            Tok::Lit(c) => {
                let flip = next(2) == 1;
                if flip && c.is_uppercase() {
                    s.extend(c.to_lowercase());
                } else if flip {
                    s.extend(c.to_uppercase());
                } else {
                    s.push(*c);
                }
            }
            Tok::Any => s.push(chars[next(chars.len())]),
            Tok::Star => {
                for _ in 0..next(3) {
                    s.push(chars[next(chars.len())]);
                }
            }
            Tok::Class { negated, items } => {
                let candidates: Vec<char> =
                    chars.iter().copied().filter(|&c| in_class(c, items, true) != *negated).collect();
                s.push(if candidates.is_empty() { chars[0] } else { candidates[next(candidates.len())] });
            }
            Tok::Alt(alts) => s.push_str(&fill(&alts[next(alts.len())], next, chars)),
        }
    }
    if s.is_empty() {
        s.push(chars[next(chars.len())]);
    }
    s
}

fn mutate(path: &str, how: u8, at: usize, with: char) -> String {
    let mut chars: Vec<char> = path.chars().collect();
    if chars.is_empty() {
        return path.to_string();
    }
    let i = at % chars.len();
    match how % 4 {
        0 => {}
        1 => chars[i] = with,
        2 => chars.insert(i, with),
        _ => {
            chars.remove(i);
        }
    }
    let s: String = chars.into_iter().collect();
    // Paths have no empty segments and no leading or trailing `/`.
    let clean: Vec<&str> = s.split('/').filter(|p| !p.is_empty()).collect();
    if clean.is_empty() {
        "x".to_string()
    } else {
        clean.join("/")
    }
}

fn check(pattern: &str, path: &str, cs: bool) -> std::result::Result<(), TestCaseError> {
    if strip(pattern).is_empty() {
        // './', '/./': nothing is left once normalized; as docs/API.md says, invalid-argument.
        let err = NameMatcher::new(pattern, PatternMode::PathGlob, cs).unwrap_err();
        prop_assert_eq!(err.code, agent_find_core::ErrorCode::InvalidArgument);
        return Ok(());
    }
    let matcher = NameMatcher::new(pattern, PatternMode::PathGlob, cs)
        .map_err(|e| TestCaseError::fail(format!("{pattern:?} does not compile: {}", e.message)))?;
    let got = matcher.is_match(Path::new(path));
    let want = reference(pattern, path, cs);
    prop_assert_eq!(
        got,
        want,
        "pattern {:?} (normalized {:?}) vs path {:?}, caseSensitive {}",
        pattern,
        matcher.normalized,
        path,
        cs
    );
    Ok(())
}

fn config() -> Config {
    // Modest by default so `cargo test` stays fast; PROPTEST_CASES overrides it.
    Config { cases: 512, failure_persistence: None, ..Config::default() }
}

proptest! {
    #![proptest_config(config())]

    /// Paths made to match (and near misses): the matcher agrees with the reference.
    #[test]
    fn glob_agrees_with_reference(
        pattern in pattern(ASCII),
        choices in prop::collection::vec(any::<u8>(), 1..16),
        how in any::<u8>(), at in any::<usize>(), with in prop::sample::select(&['a', 'B', '.', '/', 'x'][..]),
        cs in any::<bool>(),
    ) {
        let path = mutate(&instantiate(&pattern, &choices, ASCII), how, at, with);
        check(&pattern, &path, cs)?;
    }

    /// Unrelated random paths: mostly misses, checked all the same.
    #[test]
    fn glob_agrees_on_random_paths(
        pattern in pattern(ASCII),
        path in "[abAB.x-]{1,4}(/[abAB.x-]{1,4}){0,3}",
        cs in any::<bool>(),
    ) {
        check(&pattern, &path, cs)?;
    }

    /// `matchBase`: a glob without `/` tested on a deep path's basename.
    #[test]
    fn match_base_is_the_basename(
        pattern in name_pattern(ASCII),
        dirs in "([abx]{1,3}/){0,3}",
        choices in prop::collection::vec(any::<u8>(), 1..16),
    ) {
        let name = instantiate(&pattern, &choices, ASCII);
        prop_assume!(name != "." && name != ".."); // not file names
        let base = NameMatcher::new(&pattern, PatternMode::BaseGlob, false).unwrap();
        let whole = NameMatcher::new(&pattern, PatternMode::PathGlob, false).unwrap();
        let deep = format!("{dirs}{name}");
        prop_assert_eq!(base.is_match(Path::new(&deep)), whole.is_match(Path::new(&name)));
    }

    /// Normalizing twice changes nothing, and no string makes the compiler panic.
    #[test]
    fn normalize_is_idempotent_and_compile_never_panics(text in "[a/.*?{},\\[\\]!\\\\é-]{0,24}", cs in any::<bool>()) {
        let once = normalize_glob(&text);
        prop_assert_eq!(normalize_glob(&once), once.clone());
        for mode in [PatternMode::PathGlob, PatternMode::BaseGlob, PatternMode::BaseRegex] {
            if let Ok(m) = NameMatcher::new(&text, mode, cs) {
                let _ = m.is_match(Path::new("a/b.c"));
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// Non-ASCII names: `?` is one character and a class holds characters,
    /// as for ASCII.
    #[test]
    fn glob_agrees_with_reference_beyond_ascii(
        pattern in pattern(WIDE),
        choices in prop::collection::vec(any::<u8>(), 1..16),
        cs in any::<bool>(),
    ) {
        let path = instantiate(&pattern, &choices, WIDE);
        check(&pattern, &path, cs)?;
    }
}

#[test]
fn reference_sanity() {
    let m = |p: &str, s: &str| reference(p, s, false);
    assert!(m("*.py", "a.py") && !m("*.py", "src/a.py"));
    assert!(m("**/*.py", "a.py") && m("**/*.py", "x/y/a.py"));
    assert!(m("src/**", "src/a") && !m("src/**", "src"));
    assert!(m("a/**/b", "a/b") && m("a/**/b", "a/x/y/b"));
    assert!(m("{a,b/{c,d}}", "b/d") || !m("{a,b/{c,d}}", "b/d")); // braces with '/' are not generated
    assert!(m("[!a]x", "bx") && !m("[!a]x", "ax") && !m("a[!b]c", "a/c"));
    assert!(m("a**", "abc") && !m("a**", "a/b"));
    assert!(m("./a/", "a") && m("/A", "a"));
    assert!(m("x{,y}", "x") && m("x{,y}", "xy"));
    assert!(m("\\*", "*") && !m("\\*", "a"));
    assert!(!reference("A", "a", true) && reference("A", "a", false));
    assert!(m("é*", "Éclair") && m("[a-b]", "B"));
}

#[test]
fn non_ascii_characters_are_single_characters() {
    // globset alone matched bytes here (`?.txt` missed `é.txt`); the Unicode twin fixes it.
    for (p, name, hit) in
        [("?.txt", "é.txt", true), ("??.txt", "é.txt", false), ("[é]", "é", true), ("[!é]", "é", false)]
    {
        let q = NameMatcher::new(p, PatternMode::PathGlob, false).unwrap();
        assert_eq!(q.is_match(Path::new(name)), hit, "{p} vs {name}");
        assert_eq!(reference(p, name, false), hit, "reference: {p} vs {name}");
    }
}
