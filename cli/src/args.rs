//! The command line of `find`, `search` and `explain`, read with lexopt into
//! the option fields the core parses (`Value`s by name). The flags are the
//! option table's (`option_table`) plus the command's own (`--json`,
//! `--help`, ...); the pattern and path are positionals. A flag's value is
//! read as fd and ripgrep read theirs: a whole number is decimal digits, a
//! number may also have a fraction or an exponent or be `Infinity`, and
//! digits alone for a size or a date are bytes or epoch ms; what a value
//! means beyond that (sizes, dates, choices, ranges) the core judges.

use agent_find_core::option_table::{self, Call, Kind, OptionSpec};
use agent_find_core::{clip, FindError, Value};
use lexopt::Arg;
use std::ffi::OsString;
use std::path::{Component, PathBuf};

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Command {
    Find,
    Search,
    Explain,
}

/// A flag of the command's own, not an option of the call: long name, short letter, help.
pub type OwnFlag = (&'static str, Option<char>, &'static str);

const HELP: OwnFlag = ("help", Some('h'), "show this help");
const NO_INDEX: OwnFlag = ("no-index", None, "read every file, not passing over those an index saved as unchanged");

impl Command {
    pub fn call(self) -> Call {
        if self == Command::Search {
            Call::Search
        } else {
            Call::Find
        }
    }

    /// The command's own flags, in the order its usage lists them (after the table's).
    pub fn own_flags(self) -> &'static [OwnFlag] {
        match self {
            Command::Find => {
                &[("json", None, "print the FindResult as JSON"), HELP, ("version", Some('V'), "show the version")]
            }
            Command::Search => &[
                ("type-list", None, "list the file types --type takes, with their globs"),
                NO_INDEX,
                ("json", None, "print the SearchResult as JSON"),
                HELP,
            ],
            Command::Explain => &[("json", None, "print the Explanation as JSON"), HELP],
        }
    }
}

#[derive(Default, Debug)]
pub struct Parsed {
    /// The options the flags set, in the order first given.
    pub fields: Vec<(String, Value)>,
    /// The command's own flags given, by long name.
    pub own: Vec<&'static str>,
    pub positionals: Vec<String>,
}

impl Parsed {
    pub fn has(&self, own: &str) -> bool {
        self.own.contains(&own)
    }
}

/// Reads `args` (after the command's name); the error says what is wrong with which flag.
pub fn parse(command: Command, args: Vec<OsString>) -> Result<Parsed, String> {
    let mut parser = lexopt::Parser::from_args(args);
    let mut parsed = Parsed::default();
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        let (long, short, shown) = match arg {
            Arg::Value(value) => {
                parsed.positionals.push(value.to_string_lossy().into_owned());
                continue;
            }
            Arg::Long(name) => (Some(name.to_string()), None, format!("--{name}")),
            Arg::Short(c) => (None, Some(c), format!("-{c}")),
        };
        let named = |l: &str, s: Option<char>| long.as_deref() == Some(l) || (short.is_some() && short == s);
        if let Some(&(own, _, _)) = command.own_flags().iter().find(|f| named(f.0, f.1)) {
            parsed.own.push(own);
            continue;
        }
        let found =
            option_table::of(command.call()).find_map(|o| Some((o, o.flag.filter(|f| named(f.long, f.short))?)));
        let Some((option, flag)) = found else {
            return Err(format!("unknown flag '{}'", clip(&shown, 100)));
        };
        let value = match (flag.arg, flag.sets) {
            (Some(_), _) => {
                value_of(option, &shown, parser.value().map_err(|e| e.to_string())?.to_string_lossy().into())?
            }
            (None, None) => Value::Bool(true),
            (None, Some("false")) => Value::Bool(false),
            (None, Some(sets)) => Value::Text(sets.to_string()),
        };
        let given = parsed.fields.iter_mut().find(|(name, _)| name == option.name);
        match (given, value) {
            (Some((_, Value::List(list))), Value::List(more)) => list.extend(more),
            (Some((_, old)), value) => *old = value,
            (None, value) => parsed.fields.push((option.name.to_string(), value)),
        }
    }
    Ok(parsed)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// A flag's text as the option's value.
fn value_of(option: &OptionSpec, shown: &str, text: String) -> Result<Value, String> {
    let refuse = |what: String| Err(format!("{shown} takes {what}; got '{}'", clip(&text, 100)));
    match option.kind {
        // Where the core takes no Infinity (`--context`), it says so.
        Kind::Integer { .. } | Kind::Number if text == "Infinity" => Ok(Value::Number(f64::INFINITY)),
        Kind::Integer { minimum } => match text.parse::<f64>() {
            Ok(n) if is_digits(&text) && n >= f64::from(minimum) => Ok(Value::Number(n)),
            _ if minimum == 0 => refuse("a whole number".into()),
            _ => refuse(format!("a whole number, at least {minimum}")),
        },
        Kind::Number => match text.parse::<f64>() {
            Ok(n) if text.bytes().all(|b| b.is_ascii_digit() || b".eE+-".contains(&b)) => Ok(Value::Number(n)),
            _ => refuse("a number (or Infinity)".into()),
        },
        Kind::Size | Kind::Date if is_digits(&text) => Ok(Value::Number(text.parse::<f64>().unwrap_or(f64::NAN))),
        Kind::Texts => Ok(Value::List(vec![Value::Text(text)])),
        _ => Ok(Value::Text(text)),
    }
}

/// The first two of `given`; a third is refused, saying what to `give`.
fn two(mut given: Vec<Option<String>>, give: &str) -> Result<[Option<String>; 2], FindError> {
    if let Some(Some(extra)) = given.get(2) {
        let extra = clip(extra, 100);
        return Err(FindError::invalid_argument(format!("unexpected argument '{extra}': give {give}")));
    }
    given.resize(2, None);
    Ok([given[0].take(), given[1].take()])
}

/// The options of `agent-find [search] <pattern> [path]`: the pattern and
/// path from the positionals, then the flags. With `-e` (as in rg) the
/// regexes come from the flags and the first positional is the path.
pub fn fields(command: Command, parsed: Parsed) -> Result<Vec<(String, Value)>, FindError> {
    let with_e = command == Command::Search && parsed.fields.iter().any(|(name, _)| name == "patterns");
    let (what, example) = match command {
        Command::Search => ("regex", "agent-find search 'TODO' src --glob '*.py'"),
        _ => ("pattern", "agent-find \"**/*.ts\" src"),
    };
    let skipped = with_e.then_some(None);
    let given = skipped.into_iter().chain(parsed.positionals.into_iter().map(Some)).collect();
    let [pattern, path] = two(given, &format!("one {what} and at most one path"))?;
    if pattern.is_none() && !with_e {
        return Err(FindError::invalid_argument(format!("missing <{what}>; try: {example}")));
    }
    let named = [("pattern", pattern), ("path", path)].into_iter();
    let mut fields: Vec<_> = named.filter_map(|(name, v)| Some((name.to_string(), Value::Text(v?)))).collect();
    fields.extend(parsed.fields);
    Ok(fields)
}

/// `agent-find explain <path> [pattern]`: the path asked about, made
/// absolute against `--cwd` as the library's `explain` does (lexically: `..`
/// takes off the name before it), and find's options (with no pattern, `**`:
/// only the walk's rules and filters decide).
pub fn explain(parsed: Parsed) -> Result<(PathBuf, Vec<(String, Value)>), FindError> {
    let given = parsed.positionals.into_iter().map(Some).collect();
    let [target, pattern] = two(given, "one path and at most one pattern")?;
    let target = match target {
        None => return Err(FindError::invalid_argument("missing <path>; try: agent-find explain build/out.js")),
        Some(t) if t.is_empty() => {
            return Err(FindError::invalid_argument("the path to explain is empty; give one such as 'build/out.js'"))
        }
        Some(target) => target,
    };
    let cwd = parsed.fields.iter().rev().find_map(|(name, value)| match value {
        Value::Text(cwd) if name == "cwd" => Some(cwd.as_str()),
        _ => None,
    });
    let here = std::env::current_dir()
        .map_err(|e| FindError::invalid_argument(format!("cannot read the current directory: {e}")))?;
    let mut absolute = PathBuf::new();
    for part in here.join(cwd.unwrap_or_default()).join(target).components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => _ = absolute.pop(),
            other => absolute.push(other),
        }
    }
    let mut fields = vec![("pattern".to_string(), Value::Text(pattern.unwrap_or_else(|| "**".into())))];
    fields.extend(parsed.fields);
    Ok((absolute, fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(command: Command, args: &[&str]) -> Result<Parsed, String> {
        parse(command, args.iter().map(OsString::from).collect())
    }

    #[test]
    fn reads_flags_values_and_positionals() {
        let p = run(Command::Search, &["-t", "py", "--type=js", "-iC2", "-e", "-x", "src", "--", "--json"]).unwrap();
        let text = |t: &str| Value::Text(t.into());
        let names: Vec<&str> = p.fields.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["type", "ignoreCase", "context", "patterns"]);
        assert_eq!(p.fields[0].1, Value::List(vec![text("py"), text("js")]));
        assert_eq!((&p.fields[2].1, &p.positionals[..]), (&Value::Number(2.0), &["src".into(), "--json".into()][..]));
        assert!(fields(Command::Search, p).unwrap_err().message.starts_with("unexpected argument '--json'"));
        let p =
            run(Command::Find, &["--limit", "1", "--limit=2", "--max-limit", "Infinity", "--min-size", "10", "-hV"]);
        let p = p.unwrap();
        let values: Vec<&Value> = p.fields.iter().map(|(_, v)| v).collect();
        assert_eq!(values, [&Value::Number(2.0), &Value::Number(f64::INFINITY), &Value::Number(10.0)]);
        assert_eq!(p.own, ["help", "version"]);
        let err = |args: &[&str]| run(Command::Find, args).unwrap_err();
        assert_eq!(err(&["--limit", "0x10"]), "--limit takes a whole number, at least 1; got '0x10'");
        assert_eq!(err(&["--max-bytes", "inf"]), "--max-bytes takes a number (or Infinity); got 'inf'");
    }

    #[test]
    fn explains_a_path_made_absolute_lexically() {
        let here = std::env::current_dir().unwrap();
        let (target, f) = explain(run(Command::Explain, &["a/./b/../c/"]).unwrap()).unwrap();
        assert_eq!((target, &f[0].1), (here.join("a/c"), &Value::Text("**".into())));
        let (target, _) = explain(run(Command::Explain, &["../z", "x", "--cwd", "/x/y"]).unwrap()).unwrap();
        assert_eq!(target, PathBuf::from("/x/z"));
    }
}
