//! The core's tables as JS reads them: every option of every call
//! (`optionTable`) and ripgrep's file types (`fileTypes`).

use napi_derive::napi;

/// One row of the option table (see the core's `option_table`), as JS reads it.
#[napi(object)]
pub struct OptionRow {
    /// `find` or `search`.
    pub call: String,
    pub name: String,
    /// `boolean`, `integer`, `number`, `string`, `choice`, `size`, `date`,
    /// `strings`, or `host` (a JS value the binding never sees).
    pub kind: String,
    /// For `choice`: the values.
    pub choices: Option<Vec<String>>,
    /// For `integer`: the least value.
    pub minimum: Option<u32>,
    /// The default, when it is a value (a boolean, a number, a string or
    /// an empty list), as JSON text.
    pub default_json: Option<String>,
    /// What a model reads; absent when the host sets the option.
    pub model: Option<String>,
    pub flag: Option<FlagRow>,
}

/// An option's command-line flag.
#[napi(object)]
pub struct FlagRow {
    pub long: String,
    pub short: Option<String>,
    /// The value's name in the usage text; absent for a switch.
    pub arg: Option<String>,
    /// For a switch, the value it sets (`false`, or a string) as JSON text; absent: `true`.
    pub sets_json: Option<String>,
    pub repeats: bool,
    pub help: String,
}

/// Every option of every call, one row per call that takes it, in the
/// order the schemas and usage texts list them: validation reads the same
/// table, and `js/tools.js` and a test of `index.d.ts` read this export.
#[napi]
pub fn option_table() -> Vec<OptionRow> {
    use agent_find_core::option_table::{fill, Default, Kind, OPTIONS};
    // The texts in the table hold no quote or backslash to escape.
    let default = |d: Default| match d {
        Default::None => None,
        Default::Bool(b) => Some(b.to_string()),
        Default::Count(n) => Some(n.to_string()),
        Default::Text(t) => Some(format!("\"{t}\"")),
        Default::Empty => Some("[]".to_string()),
    };
    OPTIONS
        .iter()
        .flat_map(|o| o.calls.iter().map(move |call| (call, o)))
        .map(|(call, o)| OptionRow {
            call: call.as_str().to_string(),
            name: o.name.to_string(),
            kind: o.kind.as_str().to_string(),
            choices: match o.kind {
                Kind::Choice(values) => Some(values.iter().map(|v| v.to_string()).collect()),
                _ => None,
            },
            minimum: match o.kind {
                Kind::Integer { minimum } => Some(minimum),
                _ => None,
            },
            default_json: default(o.default),
            model: o.model.map(fill),
            flag: o.flag.map(|f| FlagRow {
                long: f.long.to_string(),
                short: f.short.map(String::from),
                arg: f.arg.map(String::from),
                sets_json: f.sets.map(|v| match v {
                    "false" => v.to_string(),
                    text => format!("\"{text}\""),
                }),
                repeats: f.repeats,
                help: fill(f.help),
            }),
        })
        .collect()
}

/// ripgrep's file types, as `searchFiles`' `type` takes them: each name
/// with its globs, in name order.
#[napi]
pub fn file_types() -> Vec<FileType> {
    agent_find_core::file_types().into_iter().map(|(name, globs)| FileType { name, globs }).collect()
}

#[napi(object, object_from_js = false)]
pub struct FileType {
    pub name: String,
    pub globs: Vec<String>,
}
