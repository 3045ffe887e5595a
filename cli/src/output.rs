//! The `--json` answers: a find's, a search's and an explanation's result as
//! the JS API hands it back (`FindResult` as js/columns.js builds it,
//! `SearchResult` and `Explanation` as napi/src/lib.rs converts them), with
//! the same keys in the same order and the same absent fields (napi sets an
//! object's always-present fields before its `Option` ones), so that
//! `JSON.stringify(result, null, 2)` and `Json::stringify` print the same bytes.

use crate::js::Json;
use agent_find_core::{ContextLine, Explanation, FindOutcome, IgnoreLine, SearchItems, SearchOutcome, SkippedGroup};
use std::collections::BTreeMap;

fn num(n: impl Into<f64>) -> Option<Json> {
    Some(Json::Number(n.into()))
}

fn count(n: u64) -> Option<Json> {
    num(n as f64)
}

fn text(t: impl Into<String>) -> Option<Json> {
    Some(Json::Text(t.into()))
}

fn flag(b: bool) -> Option<Json> {
    Some(Json::Bool(b))
}

fn skipped(groups: Option<Vec<SkippedGroup>>) -> Option<Json> {
    let groups = groups?.into_iter().map(|g| {
        let folders = g
            .folders
            .into_iter()
            .map(|f| Json::Object(vec![("path", text(f.path)), ("rule", f.rule.map(Json::Text))]))
            .collect();
        Json::Object(vec![
            ("reason", text(g.reason.name())),
            ("count", count(g.count)),
            ("folders", Some(Json::Array(folders))),
        ])
    });
    Some(Json::Array(groups.collect()))
}

/// `gitStatus`, by path, in the order a JS object holds its keys: those
/// that read as array indexes first, by number, then the rest as inserted
/// (napi inserts them in the map's order).
fn git_status(letters: Option<BTreeMap<String, String>>) -> Option<Json> {
    let index = |key: &str| key.parse::<u32>().ok().filter(|n| *n != u32::MAX && n.to_string() == key);
    let (mut indexes, others): (Vec<_>, Vec<_>) = letters?.into_iter().partition(|(key, _)| index(key).is_some());
    indexes.sort_by_key(|(key, _)| index(key));
    Some(Json::Map(indexes.into_iter().chain(others).map(|(key, l)| (key, Json::Text(l))).collect()))
}

/// A `FindResult`: keys in the order js/columns.js sets them.
pub fn find(o: FindOutcome) -> Json {
    let entries = o
        .entries
        .into_iter()
        .map(|f| {
            let bytes = f.raw.as_ref().map(|b| Json::Array(b.iter().map(|&b| Json::Number(f64::from(b))).collect()));
            Json::Object(vec![
                ("path", text(f.path.as_str())),
                ("type", text(f.kind.as_str())),
                ("size", count(f.size())),
                ("mtimeMs", num(f.mtime_ms())),
                ("pathBytes", bytes),
            ])
        })
        .collect();
    let omitted = (!o.omitted.is_empty()).then(|| {
        Json::Array(
            o.omitted
                .into_iter()
                .map(|d| Json::Object(vec![("dir", text(d.dir)), ("count", count(d.count as u64))]))
                .collect(),
        )
    });
    Json::Object(vec![
        ("path", text(o.path)),
        ("entries", Some(Json::Array(entries))),
        ("matched", count(o.matched as u64)),
        ("truncated", flag(o.truncated_by.is_some())),
        ("truncatedBy", o.truncated_by.map(|t| Json::Text(t.as_str().to_string()))),
        ("notice", o.notice.map(Json::Text)),
        ("hint", o.hint.map(Json::Text)),
        ("omitted", omitted),
        ("skipped", skipped(o.skipped)),
        ("gitStatus", git_status(o.git_status)),
    ])
}

/// Context lines: left out when there are none.
fn context(lines: Vec<ContextLine>) -> Option<Json> {
    (!lines.is_empty()).then(|| {
        Json::Array(
            lines.into_iter().map(|c| Json::Object(vec![("line", count(c.line)), ("text", text(c.text))])).collect(),
        )
    })
}

/// A `SearchResult`: keys in the order napi sets them on the JS object, the
/// fields that are always there first (in declaration order), then the
/// optional ones (`JsSearchResult` in napi/src/lib.rs).
pub fn search(o: SearchOutcome) -> Json {
    let (mut matches, mut files, mut counts) = (None, None, None);
    match o.items {
        SearchItems::Matches(m) => {
            matches = Some(Json::Array(
                m.into_iter()
                    .map(|m| {
                        let patterns = m
                            .patterns
                            .map(|p| Json::Array(p.into_iter().map(|i| Json::Number(f64::from(i))).collect()));
                        Json::Object(vec![
                            ("file", text(m.file)),
                            ("line", count(m.line)),
                            ("match", text(m.text)),
                            ("patterns", patterns),
                            ("column", m.column.and_then(count)),
                            ("before", context(m.before)),
                            ("after", context(m.after)),
                        ])
                    })
                    .collect(),
            ))
        }
        SearchItems::Files(f) => files = Some(Json::Array(f.into_iter().map(Json::Text).collect())),
        SearchItems::Counts(c) => {
            counts = Some(Json::Array(
                c.into_iter().map(|(file, n)| Json::Object(vec![("file", text(file)), ("count", count(n))])).collect(),
            ))
        }
    }
    Json::Object(vec![
        ("path", text(o.path)),
        ("matchCount", count(o.match_count)),
        ("truncated", flag(o.truncated)),
        ("matches", matches),
        ("files", files),
        ("counts", counts),
        ("fileCount", count(o.file_count)),
        ("notice", o.notice.map(Json::Text)),
        ("cursor", o.cursor.map(Json::Text)),
        ("offset", o.offset.and_then(count)),
        ("incomplete", o.incomplete.then_some(Json::Bool(true))),
        ("indexChanged", o.index_changed.then_some(Json::Bool(true))),
        ("skipped", skipped(o.skipped)),
        ("spread", o.spread.then_some(Json::Bool(true))),
        ("gitStatus", git_status(o.git_status)),
    ])
}

fn ignore_line(l: IgnoreLine) -> Json {
    Json::Object(vec![
        ("file", text(l.file)),
        ("line", count(l.line as u64)),
        ("pattern", text(l.text)),
        ("ignores", flag(l.ignores)),
    ])
}

/// An `Explanation`: keys in napi's order (always-set fields of
/// `JsExplanation` first, then the optional ones).
pub fn explanation(e: Explanation) -> Json {
    Json::Object(vec![
        ("path", text(e.path)),
        ("found", flag(e.found)),
        ("reason", text(e.reason.name())),
        ("text", text(e.text)),
        ("at", e.at.map(Json::Text)),
        ("rule", e.rule.map(ignore_line)),
        ("overrides", e.overrides.map(ignore_line)),
        ("exclude", e.exclude.map(Json::Text)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_status_keys_in_a_js_objects_order() {
        let letters: BTreeMap<String, String> =
            [("src/a.rs", " M"), ("10", "??"), ("9", "A "), ("01", "M "), ("4294967295", "??")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let Some(Json::Map(fields)) = git_status(Some(letters)) else { panic!("a map") };
        let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
        // As `Object.keys` orders them: array indexes by number, then the rest as inserted.
        assert_eq!(keys, ["9", "10", "01", "4294967295", "src/a.rs"]);
        assert!(git_status(None).is_none());
    }
}
