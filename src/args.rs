//! Reading the plain values of a JS options object: each accessor takes an
//! option's name and returns its value or an `invalid-argument` error that
//! names the option, says what it must be and what it got.

use crate::error::{clip, FindError, Result};
use crate::filter::size;
use crate::option_table::{self, Call, Default as TableDefault, OptionSpec};

/// A JS value, as far as options need to see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `undefined` or `null`: the option's default.
    Absent,
    Bool(bool),
    Number(f64),
    Text(String),
    List(Vec<Value>),
    /// Anything else, by its JS type name (`object`, `function`, ...).
    Other(&'static str),
}

impl Value {
    pub fn type_name(&self) -> String {
        match self {
            Value::Absent => "undefined".into(),
            Value::Bool(_) => "boolean".into(),
            Value::Number(n) => format!("number {n}"),
            Value::Text(t) => format!("string '{}'", t.chars().take(60).collect::<String>()),
            Value::List(_) => "array".into(),
            Value::Other(t) => (*t).into(),
        }
    }
}

/// Options by name; the last of repeated names wins.
pub struct Reader<'a> {
    pub fields: &'a [(String, Value)],
}

pub fn wrong(name: &str, expected: &str, got: &Value) -> FindError {
    FindError::invalid_argument(format!("`{name}` must be {expected}; got {}", got.type_name()))
}

impl<'a> Reader<'a> {
    pub fn get(&self, name: &str) -> &'a Value {
        self.fields.iter().rev().find(|(k, _)| k == name).map_or(&Value::Absent, |(_, v)| v)
    }

    pub fn text(&self, name: &str) -> Result<Option<&'a str>> {
        match self.get(name) {
            Value::Absent => Ok(None),
            Value::Text(t) => Ok(Some(t)),
            other => Err(wrong(name, "a string", other)),
        }
    }

    pub fn non_empty_text(&self, name: &str) -> Result<Option<&'a str>> {
        match self.text(name)? {
            Some("") => Err(FindError::invalid_argument(format!("`{name}` is empty; omit it or pass a directory"))),
            other => Ok(other),
        }
    }

    pub fn flag(&self, name: &str, default: bool) -> Result<bool> {
        match self.get(name) {
            Value::Absent => Ok(default),
            Value::Bool(b) => Ok(*b),
            other => Err(wrong(name, "true or false", other)),
        }
    }

    /// A whole number `>= min`, or `Infinity` when `infinite_ok` (as `None`).
    pub fn count(&self, name: &str, min: f64, infinite_ok: bool) -> Result<Option<Option<usize>>> {
        match self.get(name) {
            Value::Absent => Ok(None),
            Value::Number(n) if *n == f64::INFINITY && infinite_ok => Ok(Some(None)),
            Value::Number(n) if n.is_finite() && n.fract() == 0.0 && *n >= min => {
                Ok(Some(Some(n.min(usize::MAX as f64) as usize)))
            }
            other => {
                let what = if min > 0.0 { "a positive whole number" } else { "a whole number, 0 or more" };
                let inf = if infinite_ok { " (or Infinity)" } else { "" };
                Err(wrong(name, &format!("{what}{inf}"), other))
            }
        }
    }

    pub fn choice<T: Copy>(&self, name: &str, choices: &[(&str, T)], default: T) -> Result<T> {
        let listed = || choices.iter().map(|(k, _)| format!("'{k}'")).collect::<Vec<_>>().join(", ");
        match self.get(name) {
            Value::Absent => Ok(default),
            Value::Text(t) => choices.iter().find(|(k, _)| k == t).map(|&(_, v)| v).ok_or_else(|| {
                FindError::invalid_argument(format!("`{name}` must be one of {}; got '{}'", listed(), clip(t, 100)))
            }),
            other => Err(wrong(name, &format!("one of {}", listed()), other)),
        }
    }

    pub fn texts(&self, name: &str) -> Result<Option<Vec<String>>> {
        match self.get(name) {
            Value::Absent => Ok(None),
            Value::List(items) => items
                .iter()
                .map(|item| match item {
                    Value::Text(t) => Ok(t.clone()),
                    other => Err(wrong(name, "an array of strings", other)),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            other => Err(wrong(name, "an array of strings", other)),
        }
    }

    pub fn size(&self, name: &str) -> Result<Option<u64>> {
        match self.get(name) {
            Value::Absent => Ok(None),
            Value::Number(n) => size::size_from_number(name, *n).map(Some),
            Value::Text(t) => size::size_from_text(name, t).map(Some),
            other => Err(wrong(name, "a byte count or a size such as '10KB'", other)),
        }
    }

    /// `timeoutMs`: a positive number of milliseconds (`Infinity`: none).
    pub fn timeout_ms(&self) -> Result<Option<u64>> {
        match self.get("timeoutMs") {
            Value::Absent => Ok(None),
            Value::Number(n) if n.is_finite() && *n > 0.0 => Ok(Some(n.ceil() as u64)),
            Value::Number(n) if *n == f64::INFINITY => Ok(None),
            other => Err(wrong("timeoutMs", "a positive number of milliseconds", other)),
        }
    }

    /// Fails on a name that is not an option of `call` the binding reads
    /// (see `option_table`), listing every option of the call.
    pub fn only(&self, call: Call) -> Result<()> {
        let known = option_table::native_names(call);
        match self.fields.iter().find(|(k, _)| !known.contains(&k.as_str())) {
            Some((unknown, _)) => Err(FindError::invalid_argument(format!(
                "unknown option `{}`; the options are: {}",
                clip(unknown, 100),
                option_table::of(call).map(|o| o.name).collect::<Vec<_>>().join(", ")
            ))),
            None => Ok(()),
        }
    }
}

/// A call's options read against its rows of the option table: each
/// option's default, choices and bounds are the table's, so a parser names
/// an option and says what its value means, and restates nothing else.
/// Derefs to the plain `Reader` for what the table does not hold.
pub struct TableReader<'a> {
    reader: Reader<'a>,
    call: Call,
}

impl<'a> std::ops::Deref for TableReader<'a> {
    type Target = Reader<'a>;

    fn deref(&self) -> &Reader<'a> {
        &self.reader
    }
}

impl<'a> TableReader<'a> {
    pub fn new(fields: &'a [(String, Value)], call: Call) -> TableReader<'a> {
        TableReader { reader: Reader { fields }, call }
    }

    /// Fails on a name that is not one of the call's options (see `Reader::only`).
    pub fn only(&self) -> Result<()> {
        self.reader.only(self.call)
    }

    /// The option's row. A name the table lacks is a mistake in the parser,
    /// which the tests that parse every option find.
    pub fn spec(&self, name: &str) -> &'static OptionSpec {
        option_table::spec(self.call, name)
            .unwrap_or_else(|| panic!("`{name}` is no option of {} in the option table", self.call.as_str()))
    }

    /// A `Bool`: true or false, the table's default when absent.
    pub fn flag(&self, name: &str) -> Result<bool> {
        match self.spec(name).default {
            TableDefault::Bool(default) => self.reader.flag(name, default),
            other => panic!("`{name}` has no true-or-false default in the option table: {other:?}"),
        }
    }

    /// The table's default of a number option; `None` when it has none.
    pub fn default_count(&self, name: &str) -> Option<usize> {
        match self.spec(name).default {
            TableDefault::Count(n) => Some(n),
            TableDefault::None => None,
            other => panic!("`{name}` has no number default in the option table: {other:?}"),
        }
    }

    /// The table's default of a number option that has one.
    pub fn default_number(&self, name: &str) -> usize {
        self.default_count(name).unwrap_or_else(|| panic!("`{name}` has no default in the option table"))
    }

    /// A whole number at least the table's minimum, or `Infinity` when
    /// `infinite_ok` (as `None`); see `Reader::count`.
    pub fn count(&self, name: &str, infinite_ok: bool) -> Result<Option<Option<usize>>> {
        self.reader.count(name, self.minimum(name) as f64, infinite_ok)
    }

    /// The least value of a number option, from the table (0 when it says none).
    pub fn minimum(&self, name: &str) -> usize {
        self.spec(name).minimum().unwrap_or(0)
    }

    /// The value a number option is lowered to, from the table.
    pub fn most(&self, name: &str) -> usize {
        self.spec(name).most.unwrap_or_else(|| panic!("`{name}` has no ceiling in the option table"))
    }

    /// A `Texts` option whose default is the empty list.
    pub fn list(&self, name: &str) -> Result<Vec<String>> {
        match self.spec(name).default {
            TableDefault::Empty => Ok(self.reader.texts(name)?.unwrap_or_default()),
            other => panic!("`{name}` has no empty-list default in the option table: {other:?}"),
        }
    }

    /// A `Choice` given, as `meaning` reads it, or `None` when absent; a
    /// value not among the table's choices is refused, listing them.
    pub fn given_choice<T: Copy>(&self, name: &str, meaning: impl Fn(&str) -> Option<T>) -> Result<Option<T>> {
        if *self.get(name) == Value::Absent {
            return Ok(None);
        }
        let choices = self.choices(name, &meaning);
        // The first choice only fills `choice`'s default, which an option given never takes.
        self.reader.choice(name, &choices, choices[0].1).map(Some)
    }

    /// A `Choice`, as `meaning` reads it: the table's default when absent.
    pub fn pick<T: Copy>(&self, name: &str, meaning: impl Fn(&str) -> Option<T>) -> Result<T> {
        match self.given_choice(name, &meaning)? {
            Some(value) => Ok(value),
            None => Ok(self.default_choice(name, meaning)),
        }
    }

    /// The table's default of a `Choice`, as `meaning` reads it.
    pub fn default_choice<T>(&self, name: &str, meaning: impl Fn(&str) -> Option<T>) -> T {
        match self.spec(name).default {
            TableDefault::Text(default) => meaning(default)
                .unwrap_or_else(|| panic!("`{name}`: the option table's default '{default}' has no meaning")),
            other => panic!("`{name}` has no choice for a default in the option table: {other:?}"),
        }
    }

    /// The table's choices of `name`, each with its meaning, in the table's order.
    fn choices<T>(&self, name: &str, meaning: impl Fn(&str) -> Option<T>) -> Vec<(&'static str, T)> {
        let choices = self.spec(name).choices();
        assert!(!choices.is_empty(), "`{name}` is no choice in the option table");
        choices
            .iter()
            .map(|&choice| {
                let value = meaning(choice)
                    .unwrap_or_else(|| panic!("`{name}`: the option table's choice '{choice}' has no meaning"));
                (choice, value)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(name: &str, value: Value) -> Vec<(String, Value)> {
        vec![(name.to_string(), value)]
    }

    #[test]
    fn a_long_choice_or_option_name_gives_a_short_message() {
        let big = "x".repeat(1 << 20);
        let f = fields("sortBy", Value::Text(big.clone()));
        let e = Reader { fields: &f }.choice("sortBy", &[("name", 0), ("size", 1)], 0).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::InvalidArgument);
        assert!(e.message.len() < 1024, "{} bytes", e.message.len());
        assert!(e.message.starts_with("`sortBy` must be one of 'name', 'size'; got 'xxx"), "{}", e.message);
        assert!(e.message.contains("(1048576 bytes in all)"), "{}", e.message);

        let f = fields(&big, Value::Number(1.0));
        let e = Reader { fields: &f }.only(Call::Search).unwrap_err();
        assert!(e.message.len() < 1024, "{} bytes", e.message.len());
        assert!(e.message.starts_with("unknown option `xxx"), "{}", e.message);
        // Every search option is named, in the option table's order.
        let names: Vec<&str> = crate::option_table::of(Call::Search).map(|o| o.name).collect();
        assert!(e.message.ends_with(&format!("; the options are: {}", names.join(", "))), "{}", e.message);
        assert!(names.starts_with(&["pattern", "path"]) && names.ends_with(&["reader", "priority"]), "{names:?}");
    }
}
