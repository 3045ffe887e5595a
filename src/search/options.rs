//! Reading `searchFiles` options into a validated `SearchConfig`, and the
//! file types of `type` (ripgrep's own list, from the `ignore` crate).
//! Defaults, choices and bounds are the option table's
//! (`args::TableReader`); what each value means is said here.

use super::cursor::{fingerprint, Cursor, Paging};
use super::fuzzy::FuzzyQuery;
use super::matcher::{ContentMatcher, Modes};
use super::{Context, OutputMode, SearchConfig, Target};
use crate::args::{wrong, Reader, TableReader, Value};
use crate::error::{FindError, Result};
use crate::limits::{token_bytes, DEFAULT_MAX_BYTES, MAX_SEARCH_PATTERNS};
use crate::option_table::{Call, SKIPPED_DIRS};
use crate::pattern::{NameMatcher, PatternMode};
use crate::sandbox::Scope;
use crate::skipped::SkippedReport;
use crate::source::Source;
use crate::walk::{Excludes, WalkRules};
use ignore::types::{Types, TypesBuilder};
use std::sync::Arc;

/// The files of some of ripgrep's file types (`type`: `rg -t`), matched by
/// file name exactly as ripgrep matches them.
#[derive(Debug, Clone)]
pub struct FileTypes(Arc<Types>);

impl FileTypes {
    /// The types named, or an `invalid-argument` error naming the close
    /// matches of a name that is not one.
    pub fn new(names: &[String]) -> Result<FileTypes> {
        let mut builder = TypesBuilder::new();
        builder.add_defaults();
        let known: Vec<String> = builder.definitions().into_iter().map(|d| d.name().to_string()).collect();
        for name in names {
            if name != "all" && !known.iter().any(|k| k == name) {
                let close = close_names(name, &known);
                let hint = match close.is_empty() {
                    true => "fileTypes() (CLI: --type-list) lists them".to_string(),
                    false => {
                        format!("did you mean {}? fileTypes() (CLI: --type-list) lists them all", close.join(", "))
                    }
                };
                return Err(FindError::invalid_argument(format!(
                    "`type` '{}' is not a ripgrep file type; {hint}",
                    crate::error::clip(name, 100)
                )));
            }
            builder.select(name);
        }
        let types = builder.build().map_err(|e| FindError::invalid_argument(format!("`type`: {e}")))?;
        Ok(FileTypes(Arc::new(types)))
    }

    /// Whether the file at `relative` is of one of the types.
    pub fn is_match(&self, relative: &std::path::Path) -> bool {
        self.0.matched(relative, false).is_whitelist()
    }
}

/// Every file type `type` takes, with its globs, in name order.
pub fn file_types() -> Vec<(String, Vec<String>)> {
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    builder.definitions().into_iter().map(|d| (d.name().to_string(), d.globs().to_vec())).collect()
}

/// The known names close to `name`: within two edits, or holding it or held
/// by it (at most five, closest first).
fn close_names(name: &str, known: &[String]) -> Vec<String> {
    let name = name.to_ascii_lowercase();
    let mut scored: Vec<(usize, &String)> = known
        .iter()
        .filter_map(|k| {
            let d = edit_distance(&name, k);
            let related = name.len() >= 2 && (k.contains(&name) || name.contains(k.as_str()));
            (d <= 2 || related).then_some((d, k))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(5).map(|(_, k)| format!("'{k}'")).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != cb)).min(row[j] + 1).min(here + 1);
            previous = here;
        }
    }
    row[b.len()]
}

/// One string or an array of strings.
fn one_or_many(r: &Reader, name: &str) -> Result<Option<Vec<String>>> {
    match r.get(name) {
        Value::Text(t) => Ok(Some(vec![t.clone()])),
        _ => r.texts(name),
    }
}

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

/// `before`, `after` and `context` (which sets both; `before` and `after`
/// win over it, as `-B`/`-A` over `-C` in rg), each clamped to the table's
/// ceiling (`MAX_CONTEXT_LINES`). Only matching lines have context: in
/// another output mode a count above 0 is refused.
fn context(r: &TableReader, content_lines: Option<&str>) -> Result<Context> {
    let read = |name| r.count(name, false).map(|n| n.flatten().map(|n| n.min(r.most(name))));
    let both = read("context")?;
    let side = |name| Ok::<_, FindError>(read(name)?.or(both).unwrap_or(r.default_number(name)));
    let context = Context { before: side("before")?, after: side("after")? };
    if let (Some(why), true) = (content_lines, context != Context::default()) {
        let given = ["before", "after", "context"]
            .into_iter()
            .find(|n| !matches!(r.get(n), Value::Absent | Value::Number(0.0)));
        return Err(FindError::invalid_argument(format!(
            "`{}` shows lines around matching lines, and {why} lists none: use `outputMode: 'content'` (the default), or leave `before`, `after` and `context` out",
            given.unwrap_or("context")
        )));
    }
    Ok(context)
}

/// What `target` names: whether file names are matched (not contents).
fn names_target(name: &str) -> Option<bool> {
    match name {
        "content" => Some(false),
        "files" => Some(true),
        _ => None,
    }
}

/// What `outputMode` names.
fn output_mode(name: &str) -> Option<OutputMode> {
    match name {
        "content" => Some(OutputMode::Content),
        "files" => Some(OutputMode::Files),
        "count" => Some(OutputMode::Count),
        _ => None,
    }
}

pub fn parse(fields: &[(String, Value)], source: Source) -> Result<SearchConfig> {
    let r = TableReader::new(fields, Call::Search);
    r.only()?;
    let target = parse_target(&r)?;
    let context = context(
        &r,
        match &target {
            Target::Files { .. } | Target::Fuzzy { .. } => Some("`target: 'files'`"),
            Target::Content { mode: OutputMode::Files, .. } => Some("`outputMode: 'files'`"),
            Target::Content { mode: OutputMode::Count, .. } => Some("`outputMode: 'count'`"),
            Target::Content { mode: OutputMode::Content, .. } => None,
        },
    )?;
    // An empty list is the default: no filter.
    let types = match one_or_many(&r, "type")? {
        Some(names) if !names.is_empty() => Some(FileTypes::new(&names)?),
        _ => None,
    };
    let max_results = parse_max_results(&r)?;
    let scope = Scope::from_options(&r, &source.cwd_base())?;
    let timeout_ms = r.timeout_ms()?;
    let git = crate::git_scope::parse(&r, &source)?;
    let skipped = SkippedReport::parse(&r)?;
    let rules = parse_rules(&r, &skipped)?;
    let page = parse_page(&r, fields, &target)?;
    // `maxTokens`: a budget for the model text (see `budget`), under the byte cap it never passes.
    let max_text_bytes =
        r.count("maxTokens", false)?.flatten().map(|tokens| token_bytes(tokens).min(DEFAULT_MAX_BYTES));
    let config = SearchConfig {
        target,
        types,
        rules,
        max_results,
        scope,
        source,
        timeout_ms,
        search_binary: false,
        max_text_bytes,
        context,
        page,
        git,
        skipped,
        saved: None,
    };
    if let Some(cursor) = &config.page.cursor {
        cursor.check(config.page.fingerprint, config.order())?;
    }
    Ok(config)
}

/// `pattern` and `patterns`: the regexes of a content search (at least
/// one), or the name of a name search (`patterns` refused). With
/// `patterns`, `pattern` may be left out (or empty): it is then not one of
/// them; given, it comes first (index 0).
fn parse_patterns(r: &TableReader, names: bool) -> Result<(Option<String>, Option<Vec<String>>)> {
    // An empty list is the default: as if left out.
    let patterns = r.texts("patterns")?.filter(|p| !p.is_empty());
    if let Some(patterns) = &patterns {
        if names {
            return Err(FindError::invalid_argument(
                "`patterns` applies to content search only; with `target: 'files'` put one glob in `pattern`",
            ));
        }
        if patterns.iter().any(String::is_empty) {
            return Err(FindError::invalid_argument(
                "`patterns` holds an empty pattern, which would match every line; give regexes such as ['TODO', 'FIXME']",
            ));
        }
        if patterns.len() > MAX_SEARCH_PATTERNS {
            return Err(FindError::invalid_argument(format!(
                "`patterns` holds {} patterns; the limit is {MAX_SEARCH_PATTERNS}: search in several calls",
                patterns.len()
            )));
        }
    }
    let pattern =
        match (r.get("pattern"), &patterns) {
            (Value::Text(t), _) if !t.is_empty() => Some(t.clone()),
            (Value::Text(_) | Value::Absent, Some(_)) => None,
            (Value::Text(_) | Value::Absent, None) => return Err(FindError::invalid_argument(
                "`pattern` is empty: pass a regex to search file contents, or a file-name glob with `target: 'files'`",
            )),
            (other, _) => return Err(wrong("pattern", "a string", other)),
        };
    Ok((pattern, patterns))
}

/// What is matched: `target`, the patterns and the options that shape
/// each kind of search, each refused where it does not apply.
fn parse_target(r: &TableReader) -> Result<Target> {
    let names = r.pick("target", names_target)?;
    let (pattern, patterns) = parse_patterns(r, names)?;
    let ignore_case = r.flag("ignoreCase")?;
    let literal = r.flag("literal")?;
    let multiline = r.flag("multiline")?;
    let least_per_file = r.minimum("maxPerFile") as f64;
    let max_per_file = match r.get("maxPerFile") {
        Value::Absent => None,
        Value::Number(n) if *n >= least_per_file && (n.fract() == 0.0 || n.is_infinite()) => {
            n.is_finite().then_some(n.min(u64::MAX as f64) as u64)
        }
        other => return Err(wrong("maxPerFile", "a positive whole number", other)),
    };
    let mode = r.pick("outputMode", output_mode)?;
    let file_glob = r.text("fileGlob")?;
    let fuzzy = r.flag("fuzzy")?;
    if !names {
        if fuzzy {
            return Err(FindError::invalid_argument(
                "`fuzzy` ranks file names, not file contents: pass `target: 'files'` with it (then `pattern` is the file name to look for, typos allowed), or leave `fuzzy` out to search contents with a regex",
            ));
        }
        let all: Vec<&str> = pattern.iter().chain(patterns.iter().flatten()).map(String::as_str).collect();
        let modes = Modes { ignore_case, literal, multiline, max_per_file };
        let regex = ContentMatcher::build(&all, modes, patterns.is_some())?;
        let file_glob = match file_glob {
            Some("") => {
                return Err(FindError::invalid_argument("`fileGlob` is empty; omit it or pass a glob such as '*.py'"))
            }
            Some(glob) => Some(name_glob(&file_glob_pattern(glob), false)?),
            None => None,
        };
        return Ok(Target::Content { regex, file_glob, mode });
    }
    let given = [("literal", literal), ("multiline", multiline), ("maxPerFile", max_per_file.is_some())];
    if let Some((name, _)) = given.iter().find(|(_, set)| *set) {
        return Err(FindError::invalid_argument(format!(
            "`{name}` applies to content search only; with `target: 'files'` leave it out"
        )));
    }
    if file_glob.is_some() {
        return Err(FindError::invalid_argument(
            "`fileGlob` applies to content search only; with `target: 'files'` put the glob in `pattern`",
        ));
    }
    // `patterns` was refused above, so `pattern` is given.
    let pattern = pattern.unwrap_or_default();
    if !fuzzy {
        return Ok(Target::Files { name: name_glob(&name_pattern(&pattern), !ignore_case)? });
    }
    let query = FuzzyQuery::new(&pattern).ok_or_else(|| {
        FindError::invalid_argument(
            "`pattern` holds no name to look for: with `fuzzy: true` pass a file name or part of a path, such as 'index.js' or 'src/util'",
        )
    })?;
    Ok(Target::Fuzzy { query })
}

/// `maxResults`, clamped to the table's largest.
fn parse_max_results(r: &TableReader) -> Result<usize> {
    let (least_results, most_results) = (r.minimum("maxResults") as f64, r.most("maxResults"));
    match r.get("maxResults") {
        Value::Absent => Ok(r.default_number("maxResults")),
        Value::Number(n) if *n >= least_results && (n.fract() == 0.0 || n.is_infinite()) => {
            Ok(n.min(most_results as f64) as usize)
        }
        other => Err(wrong(
            "maxResults",
            &format!("a positive whole number (values above {most_results} are clamped)"),
            other,
        )),
    }
}

/// The walk's rules: every name, `.gitignore` unless `noIgnore`, dependency
/// and build folders skipped unless `noIgnore`, `exclude`.
fn parse_rules(r: &TableReader, skipped: &SkippedReport) -> Result<WalkRules> {
    let no_ignore = r.flag("noIgnore")?;
    Ok(WalkRules {
        hidden: true,
        gitignore: !no_ignore,
        // As in `find` (the same code): gitignore-style globs, case-insensitive.
        exclude: Excludes::new(r.list("exclude")?, false)?,
        case_sensitive: false,
        max_depth: None,
        // `.git/` stays skipped even then, as in `find`: its objects are never what a search wants.
        skip_dirs: if no_ignore { &[".git"] } else { SKIPPED_DIRS },
        // A search that finds nothing looks in what was ignored (see `elsewhere`).
        record_ignored: !no_ignore,
        changed: None,
        tally: skipped.counts(),
    })
}

/// `offset`, `cursor` and `partial`, and the fingerprint a cursor carries.
fn parse_page(r: &TableReader, fields: &[(String, Value)], target: &Target) -> Result<Paging> {
    let least_offset = r.minimum("offset") as f64;
    let offset = match r.get("offset") {
        Value::Absent => r.default_number("offset") as u64,
        // At most `Number.MAX_SAFE_INTEGER`: past it a JS number skips whole numbers.
        Value::Number(n) if *n >= least_offset && n.fract() == 0.0 && *n <= 9_007_199_254_740_991.0 => *n as u64,
        other => return Err(wrong("offset", "a whole number, 0 or more (how many results to pass over)", other)),
    };
    let cursor = match r.get("cursor") {
        Value::Absent => None,
        Value::Text(t) => Some(Cursor::decode(t)?),
        other => return Err(wrong("cursor", "the `cursor` string of an earlier result", other)),
    };
    let partial = r.flag("partial")?;
    // File lists and counts page by file, whatever a match spans; matching
    // lines are paged by their count, which multiline is not (see `run`).
    if matches!(target, Target::Content { regex, mode: OutputMode::Content, .. } if regex.modes.multiline)
        && (offset > 0 || cursor.is_some())
    {
        return Err(FindError::invalid_argument(
            "`offset` and `cursor` do not page a `multiline` search in `content` output (a match there may span lines); raise `maxResults` or narrow the pattern or `path`, or use `outputMode: 'count'` or `'files'`, which page by file",
        ));
    }
    Ok(Paging { offset, cursor, fingerprint: fingerprint(fields), partial })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::limits::{DEFAULT_MAX_RESULTS, MAX_CONTEXT_LINES, MAX_RESULTS};
    use crate::option_table::{self, Default, Kind};
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

    /// The name among the option table's choices of `name` that `meaning` reads as `value`.
    fn choice_of<T: PartialEq + Copy>(name: &str, meaning: impl Fn(&str) -> Option<T>, value: T) -> Default {
        let spec = option_table::spec(Call::Search, name).unwrap();
        let choice = spec.choices().iter().find(|c| meaning(c) == Some(value)).unwrap();
        Default::Text(choice)
    }

    #[test]
    fn every_default_is_the_option_tables() {
        // Only the required pattern given: every other option takes its default.
        let c = parse_disk(&opts(&[("pattern", text("x"))])).unwrap();
        let here = std::env::current_dir().unwrap();
        let none_if = |absent: bool| if absent { Default::None } else { Default::Text("(given)") };
        let empty_if = |empty: bool| if empty { Default::Empty } else { Default::Text("(given)") };
        let Target::Content { regex, file_glob, mode } = &c.target else { panic!("content is the default target") };
        for spec in option_table::of(Call::Search).filter(|o| o.kind != Kind::Host && o.name != "pattern") {
            let parsed = match spec.name {
                "path" | "cwd" => none_if(c.scope.logical_path == here),
                "target" => choice_of("target", names_target, matches!(c.target, Target::Files { .. })),
                "fuzzy" => Default::Bool(matches!(c.target, Target::Fuzzy { .. })),
                "fileGlob" => none_if(file_glob.is_none()),
                "type" => empty_if(c.types.is_none()),
                // A single pattern's matches do not say which pattern matched.
                "patterns" => empty_if(regex.which(b"x").is_none()),
                "literal" => Default::Bool(regex.modes.literal),
                "multiline" => Default::Bool(regex.modes.multiline),
                "maxPerFile" => none_if(regex.modes.max_per_file.is_none()),
                "outputMode" => choice_of("outputMode", output_mode, *mode),
                "ignoreCase" => Default::Bool(regex.modes.ignore_case),
                "noIgnore" => {
                    assert_eq!(c.rules.gitignore, c.rules.skip_dirs == SKIPPED_DIRS);
                    Default::Bool(!c.rules.gitignore)
                }
                "maxResults" => Default::Count(c.max_results),
                "context" => match c.context.before == c.context.after {
                    true => Default::Count(c.context.before),
                    false => Default::Text("(before and after differ)"),
                },
                "before" => Default::Count(c.context.before),
                "after" => Default::Count(c.context.after),
                "offset" => Default::Count(c.page.offset as usize),
                "cursor" => none_if(c.page.cursor.is_none()),
                "partial" => Default::Bool(c.page.partial),
                "maxTokens" => none_if(c.max_text_bytes.is_none()),
                "exclude" => empty_if(c.rules.exclude.is_empty()),
                "git" | "changedSince" => none_if(c.git.scope.is_none()),
                "gitStatus" => Default::Bool(c.git.status),
                // Counted, and reported only with a short answer: what leaving it out means.
                "skipped" => none_if(c.skipped == crate::skipped::SkippedReport::WhenShort),
                "timeoutMs" => none_if(c.timeout_ms.is_none()),
                "roots" => none_if(c.scope.roots.is_none()),
                other => panic!("`{other}` is in the option table: say here which field of SearchConfig holds it"),
            };
            assert_eq!(parsed, spec.default, "`{}`", spec.name);
        }
    }

    #[test]
    fn the_page_options_are_left_out_of_the_fingerprint() {
        let base = opts(&[("pattern", text("x"))]);
        let page_only: Vec<&str> = option_table::of(Call::Search).filter(|o| o.page_only).map(|o| o.name).collect();
        assert_eq!(page_only, ["maxResults", "offset", "cursor", "gitStatus", "timeoutMs", "partial"]);
        for name in option_table::native_names(Call::Search) {
            let mut given = base.clone();
            given.push((name.to_string(), text("some value")));
            let moved = fingerprint(&given) != fingerprint(&base);
            assert_eq!(moved, !page_only.contains(&name), "{name}");
        }
    }

    #[test]
    fn context_is_read_clamped_and_refused_where_no_lines_are_shown() {
        let n = Value::Number;
        let c = |pairs: &[(&str, Value)]| {
            let mut all = vec![("pattern", text("x"))];
            all.extend_from_slice(pairs);
            parse_disk(&opts(&all))
        };
        assert_eq!(c(&[]).unwrap().context, Context::default());
        assert_eq!(c(&[("context", n(2.0))]).unwrap().context, Context { before: 2, after: 2 });
        assert_eq!(c(&[("context", n(2.0)), ("after", n(0.0))]).unwrap().context, Context { before: 2, after: 0 });
        assert_eq!(c(&[("before", n(1e9))]).unwrap().context, Context { before: MAX_CONTEXT_LINES, after: 0 });
        for mode in [("outputMode", text("files")), ("outputMode", text("count")), ("target", text("files"))] {
            let e = c(&[mode.clone(), ("after", n(1.0))]).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgument);
            assert!(e.message.starts_with("`after` shows lines around matching lines"), "{}", e.message);
            assert!(c(&[mode, ("context", n(0.0))]).is_ok(), "0 lines of context is no context");
        }
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
            ("context", Value::Number(-1.0)),
            ("before", Value::Number(1.5)),
            ("after", text("2")),
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
        assert!(
            e.message.ends_with(
                "unclosed group; to search for the text as written, set `literal: true` (or escape the `(` as `\\(`)"
            ),
            "{}",
            e.message
        );
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
