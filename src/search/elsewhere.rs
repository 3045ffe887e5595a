//! When a search finds nothing: the notice that says where it did not look
//! and whether matches are there. The walk that found nothing recorded what
//! it passed over (always-skipped folders, and what ignore files hid); only
//! those places are searched again, with the ignore rules off, and only until
//! enough of them are known to hold a match. The files already searched are
//! never read twice.

use super::select::gather;
use super::SearchConfig;
use crate::cancel::{Cancel, CancelFlag};
use crate::error::{ErrorCode, Result};
use crate::source::Root;
use crate::sync::{lock, unpoisoned};
use crate::walk::WalkRules;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;

/// How many places the notice names.
const NAMED: usize = 10;

/// Why the first walk passed a place over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// An always-skipped folder (`node_modules`, `dist`, ...).
    AlwaysSkipped,
    /// Hidden by `.gitignore`, `.ignore` or an exclude file.
    Ignored,
}

/// One place the first walk did not search.
#[derive(Debug, Clone, Copy)]
struct PassedOver {
    why: Why,
    is_dir: bool,
}

/// The notice for a search that found nothing, if there is something to say.
/// `skipped` are the always-skipped folders, `ignored` what ignore files hid
/// (both relative to the search directory). A deadline that passes while
/// looking leaves the notice at what the walk alone knows; an abort by the
/// caller still rejects.
pub(super) fn notice(
    config: &SearchConfig,
    root: &Root,
    skipped: &[String],
    ignored: Vec<(String, bool)>,
    cancel: &Cancel,
) -> Result<Option<String>> {
    let mut places: HashMap<String, PassedOver> =
        ignored.into_iter().map(|(path, is_dir)| (path, PassedOver { why: Why::Ignored, is_dir })).collect();
    places.extend(skipped.iter().map(|dir| (dir.clone(), PassedOver { why: Why::AlwaysSkipped, is_dir: true })));
    if places.is_empty() {
        return Ok(None);
    }
    let holding = match holding_matches(config, root, &places, cancel) {
        Ok(holding) => Some(holding),
        Err(e) if e.code == ErrorCode::Aborted && !cancel.is_aborted_by_caller() => None,
        Err(e) => return Err(e),
    };
    Ok(match holding {
        Some(holding) if !holding.is_empty() => Some(matches_notice(&holding, &places, skipped)),
        Some(_) if !skipped.is_empty() => Some(format!("{} They hold no match either.", skipped_notice(skipped))),
        None if !skipped.is_empty() => Some(skipped_notice(skipped)),
        _ => None,
    })
}

/// The places (keys of `places`) that hold a match, up to `NAMED` of them,
/// in path order.
fn holding_matches(
    config: &SearchConfig,
    root: &Root,
    places: &HashMap<String, PassedOver>,
    cancel: &Cancel,
) -> Result<BTreeMap<String, PassedOver>> {
    let rules = WalkRules { gitignore: false, skip_dirs: &[".git"], record_ignored: false, ..config.rules.uncounted() };
    let found: Mutex<BTreeMap<String, PassedOver>> = Mutex::new(BTreeMap::new());
    let enough = CancelFlag::default();
    let stopping = cancel.stopping(enough.clone());
    let place_of = |relative: &Path| place_of(places, &relative.to_string_lossy());
    // A place already known to hold a match needs no more reading.
    let wanted = |relative: &Path| place_of(relative).is_some_and(|p| !lock(&found).contains_key(p));
    let on_match = |relative: &Path| {
        if let Some(place) = place_of(relative) {
            let mut found = lock(&found);
            found.insert(place.to_string(), places[place]);
            if found.len() >= NAMED.min(places.len()) {
                enough.cancel();
            }
        }
    };
    match gather(config, root, &rules, &stopping, &wanted, &on_match, None) {
        Err(e) if !(e.code == ErrorCode::Aborted && enough.is_set() && !cancel.is_aborted_by_caller()) => {
            return Err(e)
        }
        _ => {}
    }
    Ok(unpoisoned(found.into_inner()))
}

/// The place `relative` lies in: itself, or the nearest folder above it
/// that is a place. Places never nest (the walk entered none of them).
fn place_of<'p>(places: &'p HashMap<String, PassedOver>, relative: &str) -> Option<&'p str> {
    let mut at = relative;
    loop {
        if let Some((key, _)) = places.get_key_value(at) {
            return Some(key);
        }
        at = &at[..at.rfind('/')?];
    }
}

/// Names the places holding matches, then the other always-skipped folders
/// (the seed's notice names every one of them).
fn matches_notice(
    holding: &BTreeMap<String, PassedOver>,
    places: &HashMap<String, PassedOver>,
    skipped: &[String],
) -> String {
    let named: Vec<String> = holding
        .iter()
        .map(|(path, place)| {
            let why = match place.why {
                Why::AlwaysSkipped => "always skipped",
                Why::Ignored => "ignored by an ignore file",
            };
            format!("{path}{} ({why})", if place.is_dir { "/" } else { "" })
        })
        .collect();
    let more = if holding.len() >= NAMED && places.len() > NAMED { " and maybe more" } else { "" };
    let others: Vec<&String> = skipped.iter().filter(|s| !holding.contains_key(*s)).collect();
    let also = match others.len() {
        0 => String::new(),
        n => {
            let listed: Vec<String> = others.iter().take(NAMED).map(|s| format!("{s}/")).collect();
            let rest = if n > NAMED { format!(" and {} more", n - NAMED) } else { String::new() };
            format!(" Also skipped: {}{rest}.", listed.join(", "))
        }
    };
    format!(
        "Nothing matched in the files searched, but there are matches in places that were skipped: {}{more}.{also} Set `noIgnore: true` to search them.",
        named.join(", ")
    )
}

/// The seed's notice: which always-skipped folders were passed over.
fn skipped_notice(skipped: &[String]) -> String {
    let named: Vec<String> = skipped.iter().take(NAMED).map(|s| format!("{s}/")).collect();
    let more = if skipped.len() > NAMED { format!(" and {} more", skipped.len() - NAMED) } else { String::new() };
    format!(
        "Nothing matched, but these folders were skipped: {}{more}. Set `noIgnore: true` to search them (and gitignored files).",
        named.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notice_names_skipped_folders() {
        let n = skipped_notice(&["node_modules".into(), "web/dist".into()]);
        assert!(n.contains("node_modules/, web/dist/"), "{n}");
        assert!(n.contains("`noIgnore: true`"));
        let many: Vec<String> = (0..12).map(|i| format!("p{i}/node_modules")).collect();
        assert!(skipped_notice(&many).contains("and 2 more"));
    }

    #[test]
    fn a_path_lies_in_the_nearest_place_above_it() {
        let dir = PassedOver { why: Why::Ignored, is_dir: true };
        let places: HashMap<String, PassedOver> =
            [("a/b", dir), ("a/b.txt", PassedOver { is_dir: false, ..dir }), ("node_modules", dir)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        assert_eq!(place_of(&places, "a/b/c/d.js"), Some("a/b"));
        assert_eq!(place_of(&places, "a/b.txt"), Some("a/b.txt"));
        assert_eq!(place_of(&places, "a/bc"), None);
        assert_eq!(place_of(&places, "node_modules/x/y.js"), Some("node_modules"));
        assert_eq!(place_of(&places, "src/node_modules.js"), None);
    }

    #[test]
    fn matches_notice_names_each_place_and_why() {
        let places: HashMap<String, PassedOver> = [
            ("node_modules".to_string(), PassedOver { why: Why::Ignored, is_dir: true }),
            ("dist".to_string(), PassedOver { why: Why::AlwaysSkipped, is_dir: true }),
        ]
        .into_iter()
        .collect();
        let holding: BTreeMap<String, PassedOver> = places.clone().into_iter().collect();
        let n = matches_notice(&holding, &places, &["dist".into(), "web/build".into()]);
        assert!(n.contains("dist/ (always skipped), node_modules/ (ignored by an ignore file)."), "{n}");
        assert!(n.ends_with("Also skipped: web/build/. Set `noIgnore: true` to search them."), "{n}");
    }
}
