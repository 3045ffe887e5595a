//! Reading `searchFiles` options into a validated `SearchConfig`.

use super::cursor::{fingerprint, Cursor, Paging};
use super::fuzzy::FuzzyQuery;
use super::matcher::ContentMatcher;
use super::{OutputMode, SearchConfig, Target, DEFAULT_MAX_RESULTS, MAX_RESULTS, SKIPPED_DIRS};
use crate::args::{wrong, Reader, Value};
use crate::error::{FindError, Result};
use crate::option_table::Call;
use crate::pattern::{NameMatcher, PatternMode};
use crate::sandbox::Scope;
use crate::source::Source;
use crate::walk::{Excludes, WalkRules};

/// A glob with no `/` is tested against the file name, one with `/` against
/// the path relative to the search directory.
fn name_glob(glob: &str, case_sensitive: bool) -> Result<NameMatcher> {
    let mode = if glob.trim_start_matches("./").trim_start_matches('/').contains('/') {
        PatternMode::PathGlob
    } else {
        PatternMode::BaseGlob
    };
    NameMatcher::new(glob, mode, case_sensitive)
}

/// A `fileGlob` that is only an extension (`.py`, `.{ts,tsx}`: a leading dot
/// and no `*`, `?`, `[` or `/`) means every file with it: `*.py`.
fn file_glob_pattern(glob: &str) -> std::borrow::Cow<'_, str> {
    match glob.starts_with('.') && glob.len() > 1 && !glob.contains(['*', '?', '[', '/']) {
        true => format!("*{glob}").into(),
        false => glob.into(),
    }
}

/// A bare word (no `*` or `?`) is a contains-match: `ai-news` → `*ai-news*`,
/// with the word's other glob characters taken literally.
fn name_pattern(pattern: &str) -> String {
    if pattern.contains(['*', '?']) {
        return pattern.to_string();
    }
    let mut escaped = String::from("*");
    for c in pattern.chars() {
        match c {
            '[' | ']' | '{' | '}' | '\\' => {
                escaped.push('[');
                escaped.push(c);
                escaped.push(']');
            }
            c => escaped.push(c),
        }
    }
    escaped.push('*');
    escaped
}

pub fn parse(fields: &[(String, Value)], source: Source) -> Result<SearchConfig> {
    let r = Reader { fields };
    r.only(Call::Search)?;
    let pattern =
        match r.get("pattern") {
            Value::Text(t) if !t.is_empty() => t.clone(),
            Value::Text(_) | Value::Absent => return Err(FindError::invalid_argument(
                "`pattern` is empty: pass a regex to search file contents, or a file-name glob with `target: 'files'`",
            )),
            other => return Err(wrong("pattern", "a string", other)),
        };
    let ignore_case = r.flag("ignoreCase", false)?;
    let target = r.choice("target", &[("content", false), ("files", true)], false)?;
    let mode = r.choice(
        "outputMode",
        &[("content", OutputMode::Content), ("files", OutputMode::Files), ("count", OutputMode::Count)],
        OutputMode::Content,
    )?;
    let file_glob = r.text("fileGlob")?;
    let fuzzy = r.flag("fuzzy", false)?;
    if fuzzy && !target {
        return Err(FindError::invalid_argument(
            "`fuzzy` ranks file names, not file contents: pass `target: 'files'` with it (then `pattern` is the file name to look for, typos allowed), or leave `fuzzy` out to search contents with a regex",
        ));
    }
    let target = if target {
        if file_glob.is_some() {
            return Err(FindError::invalid_argument(
                "`fileGlob` applies to content search only; with `target: 'files'` put the glob in `pattern`",
            ));
        }
        if fuzzy {
            let query = FuzzyQuery::new(&pattern).ok_or_else(|| {
                FindError::invalid_argument(
                    "`pattern` holds no name to look for: with `fuzzy: true` pass a file name or part of a path, such as 'index.js' or 'src/util'",
                )
            })?;
            Target::Fuzzy { query }
        } else {
            Target::Files { name: name_glob(&name_pattern(&pattern), !ignore_case)? }
        }
    } else {
        let regex = ContentMatcher::new(&pattern, ignore_case)?;
        let file_glob = match file_glob {
            Some("") => {
                return Err(FindError::invalid_argument("`fileGlob` is empty; omit it or pass a glob such as '*.py'"))
            }
            Some(glob) => Some(name_glob(&file_glob_pattern(glob), false)?),
            None => None,
        };
        Target::Content { regex, file_glob, mode }
    };
    let max_results = match r.get("maxResults") {
        Value::Absent => DEFAULT_MAX_RESULTS,
        Value::Number(n) if *n >= 1.0 && (n.fract() == 0.0 || n.is_infinite()) => n.min(MAX_RESULTS as f64) as usize,
        other => {
            return Err(wrong(
                "maxResults",
                &format!("a positive whole number (values above {MAX_RESULTS} are clamped)"),
                other,
            ))
        }
    };
    let scope = Scope::from_options(&r, &source.cwd_base())?;
    let timeout_ms = r.timeout_ms()?;
    let no_ignore = r.flag("noIgnore", false)?;
    let rules = WalkRules {
        hidden: true,
        gitignore: !no_ignore,
        exclude: Excludes::default(),
        case_sensitive: false,
        max_depth: None,
        // `.git/` stays skipped even then, as in `find`: its objects are never what a search wants.
        skip_dirs: if no_ignore { &[".git"] } else { SKIPPED_DIRS },
        // A search that finds nothing looks in what was ignored (see `elsewhere`).
        record_ignored: !no_ignore,
        tally: r.flag("skipped", false)?,
    };
    let offset = match r.get("offset") {
        Value::Absent => 0,
        Value::Number(n) if *n >= 0.0 && n.fract() == 0.0 && *n <= 9_007_199_254_740_991.0 => *n as u64,
        other => return Err(wrong("offset", "a whole number, 0 or more (how many results to pass over)", other)),
    };
    let cursor = match r.get("cursor") {
        Value::Absent => None,
        Value::Text(t) => Some(Cursor::decode(t)?),
        other => return Err(wrong("cursor", "the `cursor` string of an earlier result", other)),
    };
    let partial = r.flag("partial", false)?;
    let page = Paging { offset, cursor, fingerprint: fingerprint(fields), partial };
    let config = SearchConfig { target, rules, max_results, scope, source, timeout_ms, search_binary: false, page };
    if let Some(cursor) = &config.page.cursor {
        cursor.check(config.page.fingerprint, config.order())?;
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use std::path::Path;

    fn parse_disk(fields: &[(String, Value)]) -> Result<SearchConfig> {
        parse(fields, Source::Disk)
    }

    fn opts(pairs: &[(&str, Value)]) -> Vec<(String, Value)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn bare_words_are_contains_matches() {
        assert_eq!(name_pattern("ai-news"), "*ai-news*");
        assert_eq!(name_pattern("a[1]"), "*a[[]1[]]*");
        assert_eq!(name_pattern("*.py"), "*.py");
        let m = name_glob(&name_pattern("ai-news"), true).unwrap();
        assert!(m.is_match(Path::new("reports/ai-news-report.md")));
        assert!(!m.is_match(Path::new("ai-new.md")));
        assert!(name_glob(&name_pattern("a[1]"), true).unwrap().is_match(Path::new("x/a[1].txt")));
    }

    #[test]
    fn an_extension_alone_is_a_file_glob_for_it() {
        assert_eq!(file_glob_pattern(".py"), "*.py");
        assert_eq!(file_glob_pattern(".{ts,tsx}"), "*.{ts,tsx}");
        assert_eq!(file_glob_pattern("*.py"), "*.py");
        assert_eq!(file_glob_pattern("./src/*.rs"), "./src/*.rs");
        assert_eq!(file_glob_pattern("."), ".");
        let m = name_glob(&file_glob_pattern(".{ts,tsx}"), false).unwrap();
        assert!(
            m.is_match(Path::new("src/App.TSX")) && m.is_match(Path::new("a.ts")) && !m.is_match(Path::new("a.js"))
        );
    }

    #[test]
    fn defaults_and_clamps() {
        let c = parse_disk(&opts(&[("pattern", text("fn main"))])).unwrap();
        assert_eq!(c.max_results, DEFAULT_MAX_RESULTS);
        assert!(matches!(c.target, Target::Content { mode: OutputMode::Content, file_glob: None, .. }));
        assert_eq!(c.rules.skip_dirs, SKIPPED_DIRS);
        assert!(c.rules.gitignore);
        let c = parse_disk(&opts(&[("pattern", text("x")), ("maxResults", Value::Number(10_000.0))])).unwrap();
        assert_eq!(c.max_results, MAX_RESULTS);
        let c = parse_disk(&opts(&[("pattern", text("x")), ("noIgnore", Value::Bool(true))])).unwrap();
        assert!(c.rules.skip_dirs == [".git"] && !c.rules.gitignore);
    }

    #[test]
    fn argument_errors() {
        for (k, v) in [
            ("maxResults", Value::Number(0.0)),
            ("maxResults", Value::Number(-3.0)),
            ("maxResults", Value::Number(f64::NAN)),
            ("maxResults", Value::Number(2.5)),
            ("outputMode", text("lines")),
            ("target", text("names")),
            ("fileGlob", text("")),
            ("ignoreCase", text("yes")),
            ("globs", text("*.py")),
            ("offset", Value::Number(-1.0)),
            ("offset", Value::Number(1.5)),
            ("offset", text("3")),
            ("cursor", Value::Number(3.0)),
            ("cursor", text("not a cursor")),
            ("partial", text("yes")),
        ] {
            let e = parse_disk(&opts(&[("pattern", text("x")), (k, v)])).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{k}");
        }
        assert_eq!(parse_disk(&opts(&[("pattern", text(""))])).unwrap_err().code, ErrorCode::InvalidArgument);
        let e = parse_disk(&opts(&[("pattern", text("(open"))])).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPattern);
        assert!(e.message.contains("regex"), "{}", e.message);
        let e = parse_disk(&opts(&[("pattern", text(&format!("({}", "x".repeat(1 << 20))))])).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidPattern);
        assert!(e.message.len() < 1024, "{} bytes", e.message.len());
        assert!(e.message.ends_with("unclosed group"), "{}", e.message);
        let e = parse_disk(&opts(&[("pattern", text("*.py")), ("target", text("files")), ("fileGlob", text("*.py"))]))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn fuzzy_takes_file_names_only() {
        let fuzzy = |pairs: &[(&str, Value)]| parse_disk(&opts(&[&[("fuzzy", Value::Bool(true))], pairs].concat()));
        let c = fuzzy(&[("pattern", text("indx.js")), ("target", text("files"))]).unwrap();
        assert!(matches!(c.target, Target::Fuzzy { .. }));
        // With content search (the default target) it is refused, and said why.
        for pairs in [vec![("pattern", text("indx.js"))], vec![("pattern", text("x")), ("target", text("content"))]] {
            let e = fuzzy(&pairs).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument);
            assert!(e.message.contains("target: 'files'"), "{}", e.message);
        }
        let e = fuzzy(&[("pattern", text(" ./ ")), ("target", text("files"))]).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        let e = fuzzy(&[("pattern", text("a")), ("target", text("files")), ("fileGlob", text("*.js"))]).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        let e = parse_disk(&opts(&[("pattern", text("a")), ("target", text("files")), ("fuzzy", text("yes"))]))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        // Left out, or false: the glob search, as before.
        let c = parse_disk(&opts(&[("pattern", text("a")), ("target", text("files")), ("fuzzy", Value::Bool(false))]))
            .unwrap();
        assert!(matches!(c.target, Target::Files { .. }));
    }
}
