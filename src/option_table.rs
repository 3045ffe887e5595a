//! Every option of `find` and `searchFiles`, once: its name, the value it
//! takes, its default, what a model reads about it and its command-line
//! flag. The unknown-option check and its message (`Reader::only`), the
//! tools' JSON Schemas (`js/tools.js`), the CLI's flags and usage text
//! (`cli/`) and the test that holds `index.d.ts` to the same names all read
//! this table; the binding exports it as `optionTable()`.
//! What a value means is read in `options` and `search::options`.
//!
//! The parsers read each option's default, choices and numeric bounds from
//! here (see `args::TableReader`), never restating them; what a value means
//! stays with them. Texts may hold `{name}` for a number or list that lives
//! in `limits` (see `fill`), so a default is written in one place.

use crate::limits;

/// The call an option belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `find` (and `findFiles`, which takes the same options).
    Find,
    /// `searchFiles`.
    Search,
}

impl Call {
    pub fn as_str(self) -> &'static str {
        match self {
            Call::Find => "find",
            Call::Search => "search",
        }
    }
}

/// The value an option takes, as the schemas and the CLI need to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bool,
    /// A whole number, at least `minimum`.
    Integer {
        minimum: u32,
    },
    /// A number (`Infinity` allowed).
    Number,
    Text,
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// Bytes as a number, or a string such as '10KB'.
    Size,
    /// A date, a date-time, epoch milliseconds or an age.
    Date,
    /// An array of strings.
    Texts,
    /// A JS value (a signal, a function, an object) the JS side takes before
    /// the options reach the binding: no schema, no flag.
    Host,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Bool => "boolean",
            Kind::Integer { .. } => "integer",
            Kind::Number => "number",
            Kind::Text => "string",
            Kind::Choice(_) => "choice",
            Kind::Size => "size",
            Kind::Date => "date",
            Kind::Texts => "strings",
            Kind::Host => "host",
        }
    }
}

/// What an option is when the caller leaves it out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Default {
    /// Nothing (no limit, no filter), or a default described in the text.
    None,
    Bool(bool),
    Count(usize),
    Text(&'static str),
    /// An empty list.
    Empty,
}

/// An option's command-line flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    /// Without the leading `--`.
    pub long: &'static str,
    pub short: Option<char>,
    /// The value's name in the usage text; `None` for a switch.
    pub arg: Option<&'static str>,
    /// For a switch: the value it sets (`"false"` for `--no-hidden`,
    /// `"files"` for `--files`); `None` sets `true`.
    pub sets: Option<&'static str>,
    /// Given more than once, the values form a list.
    pub repeats: bool,
    /// One line of usage text.
    pub help: &'static str,
}

/// One option of one call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OptionSpec {
    /// The calls that take it (the same meaning and texts in each).
    pub calls: &'static [Call],
    pub name: &'static str,
    pub kind: Kind,
    pub default: Default,
    /// What a model reads about it in the tool's JSON Schema; `None` when
    /// the host sets it, so the schema leaves it out.
    pub model: Option<&'static str>,
    /// Its flag; `None` when the CLI takes it otherwise (a positional
    /// argument) or not at all.
    pub flag: Option<Flag>,
    /// For a `Number`: the least value taken (an `Integer`'s is its kind's
    /// `minimum`); see `minimum`.
    pub least: Option<usize>,
    /// For a number: values above this are lowered to it.
    pub most: Option<usize>,
    /// It only chooses which part of the answer a page shows, how long to
    /// look, or what is told beside the items, so a `cursor` made with
    /// another value still continues: left out of the cursor's fingerprint.
    pub page_only: bool,
}

const fn opt(calls: &'static [Call], name: &'static str, kind: Kind, default: Default) -> OptionSpec {
    OptionSpec { calls, name, kind, default, model: None, flag: None, least: None, most: None, page_only: false }
}

impl OptionSpec {
    /// The least value a number option takes, if it has one.
    pub fn minimum(&self) -> Option<usize> {
        match self.kind {
            Kind::Integer { minimum } => Some(minimum as usize),
            _ => self.least,
        }
    }

    /// The values a `Choice` takes; none for any other kind.
    pub fn choices(&self) -> &'static [&'static str] {
        match self.kind {
            Kind::Choice(values) => values,
            _ => &[],
        }
    }

    const fn at_least(mut self, least: usize) -> OptionSpec {
        self.least = Some(least);
        self
    }

    const fn at_most(mut self, most: usize) -> OptionSpec {
        self.most = Some(most);
        self
    }

    const fn page_only(mut self) -> OptionSpec {
        self.page_only = true;
        self
    }

    const fn model(mut self, text: &'static str) -> OptionSpec {
        self.model = Some(text);
        self
    }

    const fn flag(mut self, long: &'static str, arg: Option<&'static str>, help: &'static str) -> OptionSpec {
        self.flag = Some(Flag { long, short: None, arg, sets: None, repeats: false, help });
        self
    }

    const fn switch_to(mut self, long: &'static str, sets: &'static str, help: &'static str) -> OptionSpec {
        self.flag = Some(Flag { long, short: None, arg: None, sets: Some(sets), repeats: false, help });
        self
    }

    const fn short(mut self, short: char) -> OptionSpec {
        if let Some(flag) = &mut self.flag {
            flag.short = Some(short);
        }
        self
    }

    const fn repeats(mut self) -> OptionSpec {
        if let Some(flag) = &mut self.flag {
            flag.repeats = true;
        }
        self
    }
}

const FIND: &[Call] = &[Call::Find];
const SEARCH: &[Call] = &[Call::Search];
const BOTH: &[Call] = &[Call::Find, Call::Search];

macro_rules! size_text {
    ($which:literal) => {
        concat!(
            $which,
            " file size, inclusive (directories are never removed by it): bytes as a number, or a string such as '10KB', '1.5MB', '2GB' (1024-based)."
        )
    };
}
const PATH_HELP: &str =
    "Folder to search, relative to the workspace root (or absolute inside it). Default: the workspace root.";

/// Every option, in the order the schemas and usage texts list them: an
/// option both calls take is written once.
pub const OPTIONS: &[OptionSpec] = &[
    opt(FIND, "pattern", Kind::Text, Default::None).model(
        "Glob matched against each path relative to `path`, e.g. '**/*.ts', 'src/**/test_*.py', '*.{md,txt}', 'README*'. \
         With `regex: true`, a JavaScript regular expression tested against each file name instead (case-insensitive unless `caseSensitive`; `/source/flags` also works).",
    ),
    opt(SEARCH, "pattern", Kind::Text, Default::None).model(
        "For target 'content': a regular expression (Rust/ripgrep syntax; lookaround and backreferences also work, as with rg -P) matched against each line; escape literal ( ) [ ] . * + ? { } | \\. \
         For target 'files': a file-name glob ('*.py'); a plain word without * or ? matches names that contain it. With `fuzzy`: a file name or path to rank files against, not a glob.",
    ),
    opt(BOTH, "path", Kind::Text, Default::None).model(PATH_HELP),
    opt(FIND, "type", Kind::Choice(&["file", "dir", "any"]), Default::Text("file"))
        .model("'file' for regular files, 'dir' for folders, 'any' for both (and symlinks).")
        .flag("type", Some("file|dir|any"), "entry type (default file)"),
    opt(FIND, "regex", Kind::Bool, Default::Bool(false))
        .model("`pattern` is a regular expression tested against each file name, not a glob.")
        .flag("regex", None, "pattern is a JavaScript regex tested against each file name"),
    opt(FIND, "matchBase", Kind::Bool, Default::Bool(false))
        .model("Test the glob against the file name only, so '*.rs' matches at any depth.")
        .flag("match-base", None, "glob is tested against the file name, not the path"),
    opt(FIND, "caseSensitive", Kind::Bool, Default::Bool(false))
        .model("Match case exactly (the default is case-insensitive).")
        .flag("case-sensitive", None, "match case (default: case-insensitive)"),
    opt(FIND, "limit", Kind::Integer { minimum: 1 }, Default::Count(limits::DEFAULT_LIMIT))
        .model("Return at most this many entries (values above {maxLimit} are lowered to {maxLimit}).")
        .flag("limit", Some("N"), "at most N entries (default {limit})"),
    opt(FIND, "maxDepth", Kind::Integer { minimum: 0 }, Default::None)
        .model("0 lists only the direct children of `path`, 1 also their children, and so on. Default: no limit.")
        .flag("max-depth", Some("N"), "0 = only direct children of path"),
    opt(FIND, "sortBy", Kind::Choice(&["recent", "name", "mtime", "size", "none"]), Default::Text("recent"))
        .model("'recent': newest first. 'name' (path), 'mtime' (oldest first), 'size' (smallest first) ascend; 'none' is the same as 'name'.")
        .flag("sort", Some("recent|name|mtime|size|none"), "order (default recent)"),
    opt(FIND, "reverse", Kind::Bool, Default::Bool(false))
        .model("Flip the order: with sortBy 'size', the largest first.")
        .flag("reverse", None, "flip the order"),
    opt(FIND, "modifiedSince", Kind::Date, Default::None)
        .model("Only entries modified strictly after this: an ISO date or date-time ('2024-05-01', '2024-05-01T12:00:00Z') or an age ('30m', '24h', '7d').")
        .flag("modified-since", Some("WHEN"), "modified strictly after: ISO date, epoch ms, or an age (30m, 24h, 7d)"),
    opt(FIND, "minSize", Kind::Size, Default::None)
        .model(size_text!("Minimum"))
        .flag("min-size", Some("SIZE"), "bytes, or 10KB, 1.5MB, 2GB (inclusive)"),
    opt(FIND, "maxSize", Kind::Size, Default::None).model(size_text!("Maximum")).flag(
        "max-size",
        Some("SIZE"),
        "bytes, or 10KB, 1.5MB, 2GB (inclusive)",
    ),
    opt(FIND, "hidden", Kind::Bool, Default::Bool(true))
        .model("Include dotfiles and dot-folders.")
        .switch_to("no-hidden", "false", "leave out dotfiles and dot-folders"),
    opt(FIND, "gitignore", Kind::Bool, Default::Bool(true))
        .model("Apply .gitignore, .ignore and .git/info/exclude. Set false to also list ignored files (node_modules, build output).")
        .switch_to("no-gitignore", "false", "do not apply .gitignore, .ignore, .git/info/exclude"),
    opt(BOTH, "exclude", Kind::Texts, Default::Empty)
        .model("Extra globs to leave out, like .gitignore lines: 'dist', '*.min.js', 'src/generated'.")
        .flag("exclude", Some("GLOB"), "leave out matching entries (repeatable)")
        .repeats(),
    opt(FIND, "maxLimit", Kind::Number, Default::Count(limits::DEFAULT_MAX_LIMIT))
        .flag("max-limit", Some("N"), "ceiling for --limit (default {maxLimit}; Infinity allowed)")
        .at_least(1),
    opt(FIND, "maxBytes", Kind::Number, Default::Count(limits::DEFAULT_MAX_BYTES))
        .flag("max-bytes", Some("N"), "cap on the printed text (default {maxBytes})")
        .at_least(limits::MIN_MAX_BYTES),
    opt(BOTH, "maxTokens", Kind::Integer { minimum: limits::MIN_MAX_TOKENS as u32 }, Default::None)
        .model("A budget for the answer's text, in tokens (counted as 4 bytes each; at least {minMaxTokens}): the answer is cut to fit and says how many of how many it shows; matching lines are then spread across files.")
        .flag("max-tokens", Some("N"), "fit the printed text in about N tokens (4 bytes each)"),
    opt(SEARCH, "target", Kind::Choice(&["content", "files"]), Default::Text("content"))
        .model("'content' searches inside files; 'files' matches file names.")
        .switch_to(
            "files",
            "files",
            "match file names instead: <regex> is a name glob (a bare word is a contains-match)",
        ),
    opt(SEARCH, "fuzzy", Kind::Bool, Default::Bool(false))
        .model("With target 'files': `pattern` is a file name you half remember, typos allowed ('indx.js', 'pakage.json', 'readme'); every file is ranked against it, best first: exact name, name prefix, word or folder match, near spelling, letters in order.")
        .flag("fuzzy", None, "with --files: rank file names against <regex> as a name, typos allowed"),
    opt(SEARCH, "fileGlob", Kind::Text, Default::None)
        .model("Content search only: which files to search, e.g. '*.py', '*.{ts,tsx}', 'src/**/*.rs'; '.py' and '.{ts,tsx}' mean '*.py' and '*.{ts,tsx}'.")
        .flag("glob", Some("GLOB"), "only files matching GLOB, e.g. '*.py' or '*.{ts,tsx}'"),
    opt(SEARCH, "type", Kind::Texts, Default::Empty)
        .model("Only files of these ripgrep file types, e.g. ['py'], ['js', 'ts'], ['rust'] (rg --type-list names them). Applies to both targets.")
        .flag("type", Some("TYPE"), "only files of ripgrep's file type TYPE (repeatable; --type-list lists them)")
        .short('t')
        .repeats(),
    opt(SEARCH, "patterns", Kind::Texts, Default::Empty)
        .model("Content search only: several regexes, any of which may match (as rg -e A -e B); each match lists the indexes of those that matched in `patterns` of the result, `pattern` counting as index 0 when given and non-empty.")
        .flag("regexp", Some("REGEX"), "search for REGEX too (repeatable, as rg -e); the first positional is then the path")
        .short('e')
        .repeats(),
    opt(SEARCH, "literal", Kind::Bool, Default::Bool(false))
        .model("Content search only: the pattern(s) are plain text, not regexes (as rg -F): 'foo(' and 'a.b' match exactly that.")
        .flag("fixed-strings", None, "the pattern is plain text, not a regex (as rg -F)")
        .short('F'),
    opt(SEARCH, "multiline", Kind::Bool, Default::Bool(false))
        .model("Content search only: a match may span lines, written with \\n (as rg -U); `.` still stops at a line end unless the pattern starts with (?s). A match is reported at its first line, with all its lines.")
        .flag("multiline", None, "a match may span lines (as rg -U)")
        .short('U'),
    opt(SEARCH, "maxPerFile", Kind::Integer { minimum: 1 }, Default::None)
        .model("Content search only: at most this many matching lines per file (as rg -m); counts then count at most this many per file.")
        .flag("max-count", Some("N"), "at most N matching lines per file (as rg -m)")
        .short('m'),
    opt(SEARCH, "outputMode", Kind::Choice(&["content", "files", "count"]), Default::Text("content"))
        .model("'content': matching lines with file and line number. 'files': only the files that match. 'count': matches per file.")
        .flag("mode", Some("content|files|count"), "matching lines (default), files that matched, or counts per file"),
    opt(SEARCH, "ignoreCase", Kind::Bool, Default::Bool(false))
        .model("Case-insensitive match.")
        .flag("ignore-case", None, "case-insensitive")
        .short('i'),
    opt(SEARCH, "noIgnore", Kind::Bool, Default::Bool(false))
        .model("Also search node_modules, dist, build and the other skipped folders, and gitignored files.")
        .flag("no-ignore", None, "also search skipped folders and gitignored files"),
    opt(SEARCH, "maxResults", Kind::Integer { minimum: 1 }, Default::Count(limits::DEFAULT_MAX_RESULTS))
        .model("At most this many lines, files or counts (values above {maxResultsCap} are lowered to {maxResultsCap}).")
        .flag("max-results", Some("N"), "at most N results (default {maxResults}, max {maxResultsCap})")
        .at_most(limits::MAX_RESULTS)
        .page_only(),
    opt(SEARCH, "context", Kind::Integer { minimum: 0 }, Default::Count(0))
        .model("Content output only: show this many lines before and after each matching line (as rg -C; at most {maxContext}). Lines shared by nearby matches are shown once; `--` separates groups that are apart.")
        .flag("context", Some("N"), "N lines before and after each match (max {maxContext})")
        .short('C')
        .at_most(limits::MAX_CONTEXT_LINES),
    opt(SEARCH, "before", Kind::Integer { minimum: 0 }, Default::Count(0))
        .model("Content output only: lines shown before each matching line (as rg -B); overrides `context` for that side.")
        .flag("before", Some("N"), "N lines before each match (max {maxContext})")
        .short('B')
        .at_most(limits::MAX_CONTEXT_LINES),
    opt(SEARCH, "after", Kind::Integer { minimum: 0 }, Default::Count(0))
        .model("Content output only: lines shown after each matching line (as rg -A); overrides `context` for that side.")
        .flag("after", Some("N"), "N lines after each match (max {maxContext})")
        .short('A')
        .at_most(limits::MAX_CONTEXT_LINES),
    opt(SEARCH, "offset", Kind::Integer { minimum: 0 }, Default::Count(0))
        .model("Skip this many results first (lines, files or counts, in the result's order).")
        .flag("offset", Some("N"), "skip the first N results")
        .page_only(),
    opt(SEARCH, "cursor", Kind::Text, Default::None)
        .model("To get the next page, pass the `cursor` of the previous result here, with the same other options.")
        .flag("cursor", Some("CURSOR"), "continue from the cursor of an earlier result")
        .page_only(),
    opt(BOTH, "git", Kind::Choice(crate::git_status::GitWhich::NAMES), Default::None)
        .model("Only files git has as changed in the repository holding `path`: 'modified' (edited, not staged), 'staged', 'untracked' (new and not ignored), 'changed' (any of those). For \"what did I change\".")
        .flag("git", Some("WHICH"), "only files git has as changed: modified, staged, untracked or changed (any)"),
    opt(BOTH, "changedSince", Kind::Text, Default::None)
        .model("Only files changed since the branch left this git ref ('origin/main', 'main', 'HEAD~3'): committed since the merge base, staged, modified or untracked. For reviewing a branch.")
        .flag("changed-since", Some("REF"), "only files changed since the merge base with REF (and untracked ones)"),
    // Host-only: the letters are in the structured result, not in the model text.
    opt(BOTH, "gitStatus", Kind::Bool, Default::Bool(false))
        .flag("git-status", None, "give the git status letters of each changed file shown (in --json, as gitStatus)")
        .page_only(),
    opt(BOTH, "skipped", Kind::Bool, Default::None)
        .model("What was left out and why (ignored, naming the .gitignore line; hidden; excluded; always-skipped folders; past maxDepth; symlinks, never followed; permission denied; binary files), counted during the walk at no extra walk. By default reported only when the answer is empty or cut, as a `Not searched:` line; true reports it always, false never.")
        .flag("skipped", None, "report what was left out, by reason"),
    opt(BOTH, "timeoutMs", Kind::Number, Default::None)
        .flag("timeout", Some("MS"), "give up after MS milliseconds")
        .page_only(),
    opt(SEARCH, "partial", Kind::Bool, Default::Bool(false))
        .flag(
            "partial",
            None,
            "when --timeout runs out, print what was found (in path order) and a cursor to continue, instead of failing",
        )
        .page_only(),
    opt(BOTH, "roots", Kind::Texts, Default::None)
        .flag("root", Some("DIR"), "only search inside DIR (repeatable)")
        .repeats(),
    opt(BOTH, "cwd", Kind::Text, Default::None).flag("cwd", Some("DIR"), "resolve path against DIR"),
    opt(BOTH, "signal", Kind::Host, Default::None),
    opt(BOTH, "policy", Kind::Host, Default::None),
    opt(BOTH, "approve", Kind::Host, Default::None),
    opt(BOTH, "reader", Kind::Host, Default::None),
    opt(BOTH, "priority", Kind::Host, Default::None),
];

/// Folders `searchFiles` never enters unless `noIgnore` (which still
/// leaves out `.git`, the first, as `find` always does).
pub const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".mypy_cache",
    ".pytest_cache",
    "dist",
    "build",
    ".next",
    "target",
    "vendor",
    ".tox",
    "coverage",
    ".idea",
];

/// The options of `call`.
pub fn of(call: Call) -> impl Iterator<Item = &'static OptionSpec> {
    OPTIONS.iter().filter(move |o| o.calls.contains(&call))
}

/// The option `name` of `call`, if it has one.
pub fn spec(call: Call, name: &str) -> Option<&'static OptionSpec> {
    of(call).find(|o| o.name == name)
}

/// The names of the options of `call` that the binding reads (the JS side
/// takes the `Host` ones).
pub fn native_names(call: Call) -> Vec<&'static str> {
    of(call).filter(|o| o.kind != Kind::Host).map(|o| o.name).collect()
}

/// `text` with each `{name}` of a number or list from `limits` written out.
pub fn fill(text: &str) -> String {
    let values: [(&str, String); 7] = [
        ("{maxContext}", limits::MAX_CONTEXT_LINES.to_string()),
        ("{limit}", limits::DEFAULT_LIMIT.to_string()),
        ("{maxLimit}", limits::DEFAULT_MAX_LIMIT.to_string()),
        ("{maxBytes}", limits::DEFAULT_MAX_BYTES.to_string()),
        ("{maxResults}", limits::DEFAULT_MAX_RESULTS.to_string()),
        ("{maxResultsCap}", limits::MAX_RESULTS.to_string()),
        ("{minMaxTokens}", limits::MIN_MAX_TOKENS.to_string()),
    ];
    values.iter().fold(text.to_string(), |text, (name, value)| text.replace(name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_flags_are_unique_per_call() {
        for call in [Call::Find, Call::Search] {
            let mut names: Vec<&str> = of(call).map(|o| o.name).collect();
            let mut flags: Vec<&str> = of(call).filter_map(|o| o.flag.map(|f| f.long)).collect();
            let (n, f) = (names.len(), flags.len());
            names.sort_unstable();
            names.dedup();
            flags.sort_unstable();
            flags.dedup();
            assert_eq!((names.len(), flags.len()), (n, f), "{call:?}");
        }
    }

    #[test]
    fn texts_name_only_known_values() {
        for o in OPTIONS {
            for text in o.model.into_iter().chain(o.flag.map(|f| f.help)) {
                // A `{word}` left after filling names a value `fill` does not know.
                let filled = fill(text);
                let placeholder = filled.split('{').skip(1).find(|rest| {
                    rest.split_once('}')
                        .is_some_and(|(word, _)| !word.is_empty() && word.chars().all(char::is_alphanumeric))
                });
                assert_eq!(placeholder, None, "{}: {filled}", o.name);
            }
        }
        assert_eq!(fill("at most {maxResults} (max {maxResultsCap})"), "at most 50 (max 500)");
    }
}
