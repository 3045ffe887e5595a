//! Reading the options object a caller passed (already converted from JS into
//! `Value`s) into a validated `FindConfig`: every default docs/API.md gives,
//! and an `invalid-argument` naming the option for anything else. Defaults,
//! choices and bounds are the option table's (`args::TableReader`); what
//! each value means is said here.

use crate::args::{wrong, TableReader, Value};
use crate::error::{FindError, Result};
use crate::filter::{time, Filters, TypeFilter};
use crate::find::FindConfig;
use crate::option_table::Call;
use crate::page::Caps;
use crate::pattern::{NameMatcher, PatternMode};
use crate::sandbox::Scope;
use crate::skipped::SkippedReport;
use crate::sort::SortBy;
use crate::source::Source;
use crate::walk::{Excludes, WalkRules};

use crate::limits::token_bytes;

/// What the options are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `find`: model text, caps, metadata.
    Find,
    /// `findFiles`: every matching file, path order, no text and no metadata.
    FindFiles,
}

fn now_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// What `type` names.
fn type_filter(name: &str) -> Option<TypeFilter> {
    match name {
        "file" => Some(TypeFilter::File),
        "dir" => Some(TypeFilter::Dir),
        "any" => Some(TypeFilter::Any),
        _ => None,
    }
}

/// What `sortBy` names.
fn sort_by(name: &str) -> Option<SortBy> {
    match name {
        "recent" => Some(SortBy::Recent),
        "name" => Some(SortBy::Name),
        "mtime" => Some(SortBy::Mtime),
        "size" => Some(SortBy::Size),
        "none" => Some(SortBy::None),
        _ => None,
    }
}

/// Validates every option; touches no file.
pub fn parse(fields: &[(String, Value)], purpose: Purpose, source: Source) -> Result<FindConfig> {
    let r = TableReader::new(fields, Call::Find);
    r.only()?;
    let (pattern, matcher, case_sensitive) = parse_matcher(&r)?;
    let scope = Scope::from_options(&r, &source.cwd_base())?;
    let caps = parse_caps(&r, purpose)?;
    let sort = match (purpose, r.get("sortBy")) {
        // `findFiles` answers in path order unless told otherwise.
        (Purpose::FindFiles, Value::Absent) => SortBy::Name,
        _ => r.pick("sortBy", sort_by)?,
    };
    let filters = parse_filters(&r)?;
    let timeout_ms = r.timeout_ms()?;
    let git = crate::git_scope::parse(&r, &source)?;
    if git.status && purpose == Purpose::FindFiles {
        return Err(FindError::invalid_argument(
            "`gitStatus` adds a field to a result, and `findFiles` returns paths only; call `find` for the status letters",
        ));
    }
    let skipped = SkippedReport::parse(&r)?;
    let rules = WalkRules {
        hidden: r.flag("hidden")?,
        gitignore: r.flag("gitignore")?,
        // Compiled now, once: a bad glob fails before any file is touched.
        exclude: Excludes::new(r.list("exclude")?, case_sensitive)?,
        case_sensitive,
        max_depth: r.count("maxDepth", true)?.flatten(),
        skip_dirs: &[".git"],
        record_ignored: false,
        changed: None,
        tally: skipped.counts(),
    };
    Ok(FindConfig {
        source,
        pattern,
        matcher,
        case_sensitive,
        rules,
        filters,
        sort,
        reverse: r.flag("reverse")?,
        caps,
        scope,
        timeout_ms,
        want_meta: purpose == Purpose::Find,
        git,
        skipped,
    })
}

/// `pattern` and how to read it: the text, its compiled matcher, and the case rule.
fn parse_matcher(r: &TableReader) -> Result<(String, NameMatcher, bool)> {
    let pattern = match r.get("pattern") {
        Value::Text(t) => t.clone(),
        Value::Absent => {
            return Err(FindError::invalid_argument("`pattern` is missing: pass a glob such as '**/*.ts'"));
        }
        other => return Err(wrong("pattern", "a string (a glob, or a regex with `regex: true`)", other)),
    };
    let case_sensitive = r.flag("caseSensitive")?;
    let mode = if r.flag("regex")? {
        PatternMode::BaseRegex
    } else if r.flag("matchBase")? {
        PatternMode::BaseGlob
    } else {
        PatternMode::PathGlob
    };
    let matcher = NameMatcher::new(&pattern, mode, case_sensitive)?;
    Ok((pattern, matcher, case_sensitive))
}

/// `limit`, `maxLimit`, `maxBytes` and `maxTokens`. `findFiles` returns every
/// matching file, so it takes none of the table's caps.
fn parse_caps(r: &TableReader, purpose: Purpose) -> Result<Caps> {
    let (default_limit, default_max) = match purpose {
        Purpose::Find => (r.default_count("limit"), r.default_count("maxLimit")),
        Purpose::FindFiles => (None, None),
    };
    let max_limit = r.count("maxLimit", true)?.unwrap_or(default_max);
    let requested = r.count("limit", true)?.unwrap_or(default_limit);
    let limit = match (requested, max_limit) {
        (Some(l), Some(m)) => l.min(m),
        (Some(l), None) => l,
        (None, Some(m)) => m,
        (None, None) => usize::MAX,
    };
    let min_max_bytes = r.minimum("maxBytes");
    let max_bytes = match (purpose, r.get("maxBytes")) {
        (Purpose::FindFiles, _) => None,
        (Purpose::Find, Value::Absent) => r.default_count("maxBytes"),
        (Purpose::Find, Value::Number(n)) if *n == f64::INFINITY => None,
        (Purpose::Find, Value::Number(n)) if n.is_finite() && n.fract() == 0.0 && *n >= min_max_bytes as f64 => {
            Some(*n as usize)
        }
        (Purpose::Find, other) => {
            return Err(wrong(
                "maxBytes",
                &format!(
                    "a whole number of at least {min_max_bytes} (room for the header and the notice), or Infinity"
                ),
                other,
            ))
        }
    };
    // `maxTokens` lowers the byte cap to its estimate; `maxBytes` (the host's) still holds.
    let max_tokens = match purpose {
        Purpose::Find => r.count("maxTokens", false)?.flatten(),
        Purpose::FindFiles => None,
    };
    let token_bytes = max_tokens.map(token_bytes);
    let (max_bytes, max_tokens) = match (max_bytes, token_bytes) {
        (Some(bytes), Some(tb)) if tb >= bytes => (Some(bytes), None),
        (_, Some(tb)) => (Some(tb), max_tokens),
        (bytes, None) => (bytes, None),
    };
    Ok(Caps { limit, max_limit, max_bytes, max_tokens })
}

/// `type`, `minSize`, `maxSize` and `modifiedSince`.
fn parse_filters(r: &TableReader) -> Result<Filters> {
    let kind = r.pick("type", type_filter)?;
    let modified_since = match r.get("modifiedSince") {
        Value::Absent => None,
        Value::Number(n) => Some(time::since_from_number(*n)?),
        Value::Text(t) => Some(time::since_from_text(t, now_ms())?),
        other => return Err(wrong("modifiedSince", "an ISO date, epoch ms, a Date, or an age such as '24h'", other)),
    };
    let min_size = r.size("minSize")?;
    let max_size = r.size("maxSize")?;
    if let (Some(min), Some(max)) = (min_size, max_size) {
        if min > max {
            return Err(FindError::invalid_argument(format!(
                "`minSize` ({min} bytes) is larger than `maxSize` ({max} bytes), so nothing could match"
            )));
        }
    }
    Ok(Filters { kind, min_size, max_size, modified_since })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Value;
    use crate::error::ErrorCode;
    use crate::option_table::{self, Default, Kind};

    fn opts(pairs: &[(&str, Value)]) -> Vec<(String, Value)> {
        let mut v =
            vec![("pattern".to_string(), Value::Text("**/*.rs".into())), ("cwd".to_string(), Value::Text("/w".into()))];
        v.extend(pairs.iter().map(|(k, val)| (k.to_string(), val.clone())));
        v
    }

    fn err(pairs: &[(&str, Value)]) -> FindError {
        parse(&opts(pairs), Purpose::Find, Source::Disk).unwrap_err()
    }

    #[test]
    fn defaults_are_the_contracts() {
        let c = parse(&opts(&[]), Purpose::Find, Source::Disk).unwrap();
        assert_eq!(c.caps, Caps { limit: 1000, max_limit: Some(1000), max_bytes: Some(51200), max_tokens: None });
        assert_eq!(c.sort, SortBy::Recent);
        assert!(!c.reverse);
        assert_eq!(c.filters.kind, TypeFilter::File);
        assert!(c.rules.hidden && c.rules.gitignore && c.rules.exclude.is_empty());
        assert_eq!(c.rules.max_depth, None);
        assert_eq!(c.scope.logical_path, std::path::PathBuf::from("/w"));
        assert!(c.scope.roots.is_none() && c.timeout_ms.is_none());
    }

    /// The name among the option table's choices of `name` that `meaning` reads as `value`.
    fn choice_of<T: PartialEq + Copy>(name: &str, meaning: impl Fn(&str) -> Option<T>, value: T) -> Default {
        let spec = option_table::spec(Call::Find, name).unwrap();
        let choice = spec.choices().iter().find(|c| meaning(c) == Some(value)).unwrap();
        Default::Text(choice)
    }

    #[test]
    fn every_default_is_the_option_tables() {
        // Only the required pattern given: every other option takes its default.
        let fields = [("pattern".to_string(), Value::Text("*.rs".into()))];
        let c = parse(&fields, Purpose::Find, Source::Disk).unwrap();
        let here = std::env::current_dir().unwrap();
        let none_if = |absent: bool| if absent { Default::None } else { Default::Text("(given)") };
        for spec in option_table::of(Call::Find).filter(|o| o.kind != Kind::Host && o.name != "pattern") {
            let parsed = match spec.name {
                "path" | "cwd" => none_if(c.scope.logical_path == here),
                "type" => choice_of("type", type_filter, c.filters.kind),
                "regex" => Default::Bool(c.matcher.mode() == PatternMode::BaseRegex),
                "matchBase" => Default::Bool(c.matcher.mode() == PatternMode::BaseGlob),
                "caseSensitive" => Default::Bool(c.case_sensitive),
                "limit" => Default::Count(c.caps.limit),
                "maxLimit" => c.caps.max_limit.map_or(Default::None, Default::Count),
                "maxDepth" => c.rules.max_depth.map_or(Default::None, Default::Count),
                "sortBy" => choice_of("sortBy", sort_by, c.sort),
                "reverse" => Default::Bool(c.reverse),
                "modifiedSince" => none_if(c.filters.modified_since.is_none()),
                "minSize" => none_if(c.filters.min_size.is_none()),
                "maxSize" => none_if(c.filters.max_size.is_none()),
                "hidden" => Default::Bool(c.rules.hidden),
                "gitignore" => Default::Bool(c.rules.gitignore),
                "exclude" => match c.rules.exclude.is_empty() {
                    true => Default::Empty,
                    false => Default::Text("(given)"),
                },
                "maxBytes" => c.caps.max_bytes.map_or(Default::None, Default::Count),
                "maxTokens" => c.caps.max_tokens.map_or(Default::None, Default::Count),
                "git" | "changedSince" => none_if(c.git.scope.is_none()),
                "gitStatus" => Default::Bool(c.git.status),
                // Counted, and reported only with a short answer: what leaving it out means.
                "skipped" => none_if(c.skipped == SkippedReport::WhenShort),
                "timeoutMs" => none_if(c.timeout_ms.is_none()),
                "roots" => none_if(c.scope.roots.is_none()),
                other => panic!("`{other}` is in the option table: say here which field of FindConfig holds it"),
            };
            assert_eq!(parsed, spec.default, "`{}`", spec.name);
        }
        // `findFiles` takes the same options with its own order and no caps.
        let f = parse(&fields, Purpose::FindFiles, Source::Disk).unwrap();
        assert_eq!((f.sort, f.caps.limit, f.caps.max_limit, f.caps.max_bytes), (SortBy::Name, usize::MAX, None, None));
    }

    #[test]
    fn limits_clamp_to_max_limit() {
        let c = parse(&opts(&[("limit", Value::Number(5000.0))]), Purpose::Find, Source::Disk).unwrap();
        assert_eq!(c.caps.limit, 1000);
        let c = parse(
            &opts(&[("limit", Value::Number(5000.0)), ("maxLimit", Value::Number(f64::INFINITY))]),
            Purpose::Find,
            Source::Disk,
        )
        .unwrap();
        assert_eq!((c.caps.limit, c.caps.max_limit), (5000, None));
        let c = parse(&opts(&[("limit", Value::Number(f64::INFINITY))]), Purpose::Find, Source::Disk).unwrap();
        assert_eq!(c.caps.limit, 1000);
        let f = parse(&opts(&[]), Purpose::FindFiles, Source::Disk).unwrap();
        assert_eq!((f.caps.limit, f.caps.max_bytes, f.sort), (usize::MAX, None, SortBy::Name));
    }

    #[test]
    fn bad_limits_are_invalid_arguments() {
        for bad in [0.0, -1.0, 1.5, f64::NAN] {
            let e = err(&[("limit", Value::Number(bad))]);
            assert_eq!(e.code, ErrorCode::InvalidArgument);
            assert!(e.message.contains("`limit`"), "{}", e.message);
        }
        assert_eq!(err(&[("limit", Value::Text("10".into()))]).code, ErrorCode::InvalidArgument);
        assert_eq!(err(&[("maxDepth", Value::Number(-1.0))]).code, ErrorCode::InvalidArgument);
        assert!(parse(&opts(&[("maxDepth", Value::Number(0.0))]), Purpose::Find, Source::Disk).is_ok());
        assert_eq!(err(&[("maxBytes", Value::Number(0.0))]).code, ErrorCode::InvalidArgument);
        assert!(err(&[("maxBytes", Value::Number(255.0))]).message.contains("at least 256"));
        assert!(parse(&opts(&[("maxBytes", Value::Number(256.0))]), Purpose::Find, Source::Disk).is_ok());
        let unlimited =
            parse(&opts(&[("maxBytes", Value::Number(f64::INFINITY))]), Purpose::Find, Source::Disk).unwrap();
        assert_eq!(unlimited.caps.max_bytes, None);
    }

    #[test]
    fn wrong_types_name_the_option() {
        let cases = [
            ("type", Value::Text("folder".into()), "`type`"),
            ("sortBy", Value::Number(1.0), "`sortBy`"),
            ("hidden", Value::Text("yes".into()), "`hidden`"),
            ("exclude", Value::Text("dist".into()), "`exclude`"),
            ("exclude", Value::List(vec![Value::Number(1.0)]), "`exclude`"),
            ("minSize", Value::Text("big".into()), "`minSize`"),
            ("modifiedSince", Value::Text("last week".into()), "`modifiedSince`"),
            ("modifiedSince", Value::Other("object"), "`modifiedSince`"),
            ("path", Value::Text("".into()), "`path`"),
            ("roots", Value::Other("object"), "`roots`"),
            ("timeoutMs", Value::Number(-5.0), "`timeoutMs`"),
            ("maxdepth", Value::Number(1.0), "`maxdepth`"),
        ];
        for (name, value, needle) in cases {
            let e = err(&[(name, value)]);
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{name}");
            assert!(e.message.contains(needle), "{name}: {}", e.message);
        }
    }

    #[test]
    fn pattern_errors() {
        let e = parse(&[("pattern".into(), Value::Text("".into()))], Purpose::Find, Source::Disk).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        let e = parse(&[("pattern".into(), Value::Absent)], Purpose::Find, Source::Disk).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        let e = parse(&[("pattern".into(), Value::Number(3.0))], Purpose::Find, Source::Disk).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert_eq!(err(&[("exclude", Value::List(vec![Value::Text("[".into())]))]).code, ErrorCode::InvalidPattern);
    }

    #[test]
    fn sizes_and_dates() {
        let c = parse(
            &opts(&[("minSize", Value::Text("1KB".into())), ("maxSize", Value::Number(4096.0))]),
            Purpose::Find,
            Source::Disk,
        )
        .unwrap();
        assert_eq!((c.filters.min_size, c.filters.max_size), (Some(1024), Some(4096)));
        assert_eq!(
            err(&[("minSize", Value::Number(10.0)), ("maxSize", Value::Number(5.0))]).code,
            ErrorCode::InvalidArgument
        );
        let c = parse(&opts(&[("modifiedSince", Value::Number(1000.0))]), Purpose::Find, Source::Disk).unwrap();
        assert_eq!(c.filters.modified_since, Some(1000.0));
    }

    #[test]
    fn null_means_default() {
        let c =
            parse(&opts(&[("limit", Value::Absent), ("path", Value::Absent)]), Purpose::Find, Source::Disk).unwrap();
        assert_eq!(c.caps.limit, 1000);
    }
}
