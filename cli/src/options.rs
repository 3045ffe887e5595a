//! From parsed flags to the option fields the core parses (`Value`s by
//! name), as js/cli.js builds its options object: the flags come
//! from the option table (`option_table`), plus the CLI's own (`--json`,
//! `--help`, `--version`, `--type-list`); the pattern and path from the
//! positionals; a flag's text read as JS's `valueOf` there reads it
//! (numbers with `Number`, digits-only sizes and dates as numbers). The
//! fields are in the order the JS object has its keys.

use crate::argv::{Given, Parsed, Spec};
use crate::js;
use agent_find_core::option_table::{self, Call, Kind, OptionSpec};
use agent_find_core::{FindError, Value};
use std::path::PathBuf;

fn table_flags(call: Call) -> Vec<Spec> {
    option_table::of(call)
        .filter_map(|o| o.flag)
        .map(|f| Spec { long: f.long, short: f.short, takes_value: f.arg.is_some(), repeats: f.repeats })
        .collect()
}

fn switch(long: &'static str, short: Option<char>) -> Spec {
    Spec { long, short, takes_value: false, repeats: false }
}

/// The CLI's own flags after the table's, as `CLI_FLAGS` in the JS CLI.
fn with_cli_flags(mut specs: Vec<Spec>) -> Vec<Spec> {
    specs.push(switch("json", None));
    specs.push(switch("help", Some('h')));
    specs
}

/// The flags of `agent-find` (`version`: with `-V, --version`) and of `agent-find explain` (without).
pub fn find_flags(version: bool) -> Vec<Spec> {
    let mut specs = table_flags(Call::Find);
    if version {
        specs.push(switch("version", Some('V')));
    }
    with_cli_flags(specs)
}

pub fn search_flags() -> Vec<Spec> {
    let mut specs = table_flags(Call::Search);
    specs.push(switch("type-list", None));
    with_cli_flags(specs)
}

fn text(t: &[u16]) -> Value {
    Value::Text(String::from_utf16_lossy(t))
}

fn is_digits(t: &[u16]) -> bool {
    !t.is_empty() && t.iter().all(|&u| (u16::from(b'0')..=u16::from(b'9')).contains(&u))
}

/// A flag's text as the option's value (`valueOf` in the JS CLI).
fn value_of(option: &OptionSpec, given: &[u16]) -> Value {
    match option.kind {
        Kind::Integer { .. } | Kind::Number => Value::Number(js::number(given)),
        Kind::Size | Kind::Date if is_digits(given) => Value::Number(js::number(given)),
        _ => text(given),
    }
}

/// The table's options set by flags, after `fields` (`optionsFrom` in the JS CLI).
fn flag_fields(call: Call, parsed: &Parsed, fields: &mut Vec<(String, Value)>) {
    for option in option_table::of(call) {
        let Some(flag) = option.flag else { continue };
        let value = match parsed.get(flag.long) {
            None => continue,
            Some(Given::Switch) => match flag.sets {
                None => Value::Bool(true),
                Some("false") => Value::Bool(false),
                Some(sets) => Value::Text(sets.to_string()),
            },
            Some(Given::Text(t)) => value_of(option, t),
            Some(Given::Texts(list)) => Value::List(list.iter().map(|t| text(t)).collect()),
        };
        fields.push((option.name.to_string(), value));
    }
}

fn lossy(t: &[u16]) -> String {
    String::from_utf16_lossy(t)
}

/// The pattern and path from the positionals, then the flags.
fn fields_of(call: Call, parsed: &Parsed, example: &str) -> Result<Vec<(String, Value)>, FindError> {
    // With -e (as in rg), the regexes come from the flags and the positional is the path.
    let with_e = call == Call::Search && parsed.has("regexp");
    let what = if call == Call::Search { "regex" } else { "pattern" };
    let mut positionals = parsed.positionals.iter();
    let pattern = if with_e { None } else { positionals.next() };
    let (path, extra) = (positionals.next(), positionals.next());
    if pattern.is_none() && !with_e {
        return Err(FindError::invalid_argument(format!("missing <{what}>; try: {example}")));
    }
    if let Some(extra) = extra {
        return Err(FindError::invalid_argument(format!(
            "unexpected argument '{}': give one {what} and at most one path",
            lossy(extra)
        )));
    }
    let mut fields = Vec::new();
    if let Some(pattern) = pattern {
        fields.push(("pattern".to_string(), text(pattern)));
    }
    if let Some(path) = path {
        fields.push(("path".to_string(), text(path)));
    }
    flag_fields(call, parsed, &mut fields);
    Ok(fields)
}

pub fn find_fields(parsed: &Parsed) -> Result<Vec<(String, Value)>, FindError> {
    fields_of(Call::Find, parsed, "agent-find \"**/*.ts\" src")
}

pub fn search_fields(parsed: &Parsed) -> Result<Vec<(String, Value)>, FindError> {
    fields_of(Call::Search, parsed, "agent-find search 'TODO' src --glob '*.py'")
}

/// `agent-find explain <path> [pattern]`: the path asked about, resolved as
/// js/search.js's `explain` resolves it (against `--cwd`), and find's fields
/// (with no pattern, `**`: only the walk's rules and filters decide).
pub fn explain_fields(parsed: &Parsed) -> Result<(PathBuf, Vec<(String, Value)>), FindError> {
    let mut positionals = parsed.positionals.iter();
    let (target, pattern, extra) = (positionals.next(), positionals.next(), positionals.next());
    let Some(target) = target else {
        return Err(FindError::invalid_argument("missing <path>; try: agent-find explain build/out.js"));
    };
    if let Some(extra) = extra {
        return Err(FindError::invalid_argument(format!(
            "unexpected argument '{}': give one path and at most one pattern",
            lossy(extra)
        )));
    }
    let mut fields = Vec::new();
    if let Some(pattern) = pattern {
        fields.push(("pattern".to_string(), text(pattern)));
    }
    flag_fields(Call::Find, parsed, &mut fields);
    if target.is_empty() {
        return Err(FindError::invalid_argument(
            "explain(path, options?) takes the path to explain as a non-empty string, such as 'build/out.js'",
        ));
    }
    let cwd = match parsed.get("cwd") {
        Some(Given::Text(cwd)) if !cwd.is_empty() => lossy(cwd),
        _ => ".".to_string(),
    };
    let target = resolve(&cwd, &lossy(target))?;
    if pattern.is_none() {
        fields.push(("pattern".to_string(), Value::Text("**".to_string())));
    }
    Ok((target, fields))
}

/// Node's `path.resolve(cwd, target)`: absolute, with `.`, `..` and repeated separators gone.
fn resolve(cwd: &str, target: &str) -> Result<PathBuf, FindError> {
    let here = std::env::current_dir()
        .map_err(|e| FindError::invalid_argument(format!("cannot read the current directory: {e}")))?;
    let joined = here.join(cwd).join(target);
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Parsed {
        crate::argv::parse(&find_flags(true), args.iter().map(|a| crate::argv::js(a)).collect()).unwrap()
    }

    #[test]
    fn flags_become_fields_in_the_js_order() {
        let fields =
            find_fields(&parse(&["--limit", "0x10", "*.ts", "--min-size", "10KB", "--no-hidden", "src"])).unwrap();
        let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["pattern", "path", "limit", "minSize", "hidden"]);
        assert_eq!(fields[2].1, Value::Number(16.0));
        assert_eq!(fields[3].1, Value::Text("10KB".into()));
        assert_eq!(fields[4].1, Value::Bool(false));
        let sized = find_fields(&parse(&["*", "--max-size", "100"])).unwrap();
        assert_eq!(sized[1].1, Value::Number(100.0));
    }

    #[test]
    fn resolves_as_node_path_resolve() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(resolve(".", "a/./b/../c/").unwrap(), here.join("a/c"));
        assert_eq!(resolve("/x/y", "../z").unwrap(), PathBuf::from("/x/z"));
        assert_eq!(resolve(".", "/").unwrap(), PathBuf::from("/"));
    }
}
