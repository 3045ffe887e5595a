//! The `--json` answers: a find's, a search's and an explanation's result
//! with the fields, names and values of the library's `FindResult`,
//! `SearchResult` and `Explanation` (js/columns.js and napi/src/lib.rs make
//! those), in the same order, an absent field left out rather than `null`.
//! serde_json prints them (its `preserve_order` keeps the order written here).

use agent_find_core::{ContextLine, Explanation, FindOutcome, IgnoreLine, SearchItems, SearchOutcome, SkippedGroup};
use serde_json::{json, Value};

/// `value` without its `null` fields: where the library leaves a field out, so does the CLI.
fn compact(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k, compact(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(compact).collect()),
        other => other,
    }
}

/// Milliseconds: a whole number as an integer (`1714521600000`, not `1714521600000.0`).
fn millis(ms: f64) -> Value {
    if ms.fract() == 0.0 && ms.abs() < 9e15 {
        json!(ms as i64)
    } else {
        json!(ms)
    }
}

fn skipped(groups: Option<Vec<SkippedGroup>>) -> Option<Value> {
    let groups = groups?.into_iter().map(|g| {
        let folders: Vec<Value> = g.folders.into_iter().map(|f| json!({ "path": f.path, "rule": f.rule })).collect();
        json!({ "reason": g.reason.name(), "count": g.count, "folders": folders })
    });
    Some(Value::Array(groups.collect()))
}

pub fn find(o: FindOutcome) -> Value {
    let entries: Vec<Value> = o
        .entries
        .into_iter()
        .map(|f| {
            let (size, mtime) = (f.size(), millis(f.mtime_ms()));
            json!({ "path": f.path, "type": f.kind.as_str(), "size": size, "mtimeMs": mtime, "pathBytes": f.raw })
        })
        .collect();
    let omitted = (!o.omitted.is_empty())
        .then(|| o.omitted.into_iter().map(|d| json!({ "dir": d.dir, "count": d.count })).collect::<Vec<_>>());
    compact(json!({
        "path": o.path, "entries": entries, "matched": o.matched,
        "truncated": o.truncated_by.is_some(), "truncatedBy": o.truncated_by.map(|t| t.as_str()),
        "notice": o.notice, "hint": o.hint, "omitted": omitted, "skipped": skipped(o.skipped), "gitStatus": o.git_status,
    }))
}

/// Context lines: left out when there are none.
fn context(lines: Vec<ContextLine>) -> Option<Value> {
    (!lines.is_empty()).then(|| lines.into_iter().map(|c| json!({ "line": c.line, "text": c.text })).collect())
}

pub fn search(o: SearchOutcome) -> Value {
    let (mut matches, mut files, mut counts) = (None, None, None);
    match o.items {
        SearchItems::Matches(m) => {
            let each = m.into_iter().map(|m| {
                json!({
                    "file": m.file, "line": m.line, "match": m.text, "patterns": m.patterns, "column": m.column,
                    "before": context(m.before), "after": context(m.after),
                })
            });
            matches = Some(each.collect::<Vec<_>>());
        }
        SearchItems::Files(f) => files = Some(f),
        SearchItems::Counts(c) => {
            counts = Some(c.into_iter().map(|(file, n)| json!({ "file": file, "count": n })).collect::<Vec<_>>());
        }
    }
    // `incomplete`, `indexChanged` and `spread` are there only when true.
    compact(json!({
        "path": o.path, "matchCount": o.match_count, "truncated": o.truncated,
        "matches": matches, "files": files, "counts": counts, "fileCount": o.file_count,
        "notice": o.notice, "cursor": o.cursor, "offset": o.offset, "incomplete": o.incomplete.then_some(true),
        "indexChanged": o.index_changed.then_some(true), "skipped": skipped(o.skipped),
        "spread": o.spread.then_some(true), "gitStatus": o.git_status,
    }))
}

fn ignore_line(l: IgnoreLine) -> Value {
    json!({ "file": l.file, "line": l.line, "pattern": l.text, "ignores": l.ignores })
}

pub fn explanation(e: Explanation) -> Value {
    compact(json!({
        "path": e.path, "found": e.found, "reason": e.reason.name(), "text": e.text, "at": e.at,
        "rule": e.rule.map(ignore_line), "overrides": e.overrides.map(ignore_line), "exclude": e.exclude,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_fields_are_left_out_and_millis_are_integers() {
        let value =
            compact(json!({ "a": null, "b": [{ "c": null, "d": 1 }], "e": millis(1714521600000.0), "f": millis(1.5) }));
        assert_eq!(serde_json::to_string(&value).unwrap(), r#"{"b":[{"d":1}],"e":1714521600000,"f":1.5}"#);
    }
}
