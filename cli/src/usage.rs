//! The usage texts of `agent-find`, `agent-find search` and `agent-find
//! explain`, made from the option table the way js/cli.js makes them
//! (`flagLines`): the flags of a call's options, then the command's own.
//! The prose around the flags is the JS CLI's, word for word; the parity
//! test (`__test__/cli-native.test.mjs`) holds the two to the same text.

use agent_find_core::option_table::{self, fill, Call};

/// The usage lines of the flags of `call`'s options, then `own`.
fn flag_lines(call: Call, own: &[(&str, &str)]) -> String {
    let table = option_table::of(call).filter_map(|o| o.flag).map(|f| {
        let short = f.short.map(|c| format!("-{c}, ")).unwrap_or_default();
        let arg = f.arg.map(|a| format!(" {a}")).unwrap_or_default();
        (format!("{short}--{}{arg}", f.long), fill(f.help))
    });
    let own = own.iter().map(|(left, help)| (left.to_string(), help.to_string()));
    table
        .chain(own)
        .map(|(left, help)| {
            let gap = if left.encode_utf16().count() >= 26 { " " } else { "" };
            format!("  {left:<26}{gap}{help}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn find() -> String {
    format!(
        "Usage: agent-find <pattern> [path] [options]

Find files by glob (or regex), respecting .gitignore, newest first.

Options:
{}

Content search: agent-find search --help
Why a path is (not) listed: agent-find explain <path> [pattern]   (agent-find explain --help)
MCP server (stdio): agent-find mcp --root DIR   (agent-find mcp --help)
Exit status: 0 on success (also when nothing matched), 2 on bad usage, 1 on other errors.",
        flag_lines(
            Call::Find,
            &[
                ("--json", "print the FindResult as JSON"),
                ("-h, --help", "show this help"),
                ("-V, --version", "show the version")
            ]
        )
    )
}

pub fn search() -> String {
    format!(
        "Usage: agent-find search <regex> [path] [options]
       agent-find search -e <regex> [-e <regex> ...] [path] [options]

Search file contents with a regex (ripgrep's syntax; lookaround and backreferences
run on PCRE2, as rg -P), skipping .git, node_modules,
dist, build, target, vendor, .venv and other dependency folders, and gitignored files.

Options:
{}",
        flag_lines(
            Call::Search,
            &[
                ("--type-list", "list the file types --type takes, with their globs"),
                ("--json", "print the SearchResult as JSON"),
                ("-h, --help", "show this help"),
            ]
        )
    )
}

pub fn explain() -> String {
    format!(
        "Usage: agent-find explain <path> [pattern] [options]

Say why <path> is or is not listed by `agent-find [pattern]` run here with the same
options: the ignore-file line that hides it (as git check-ignore -v names it), or the
other reason (hidden, --exclude, --max-depth, a symlink on the way, the type, the pattern,
size or date filters, missing). Without a pattern, only the walk's rules and filters decide.

Options:
{}",
        flag_lines(Call::Find, &[("--json", "print the Explanation as JSON"), ("-h, --help", "show this help")])
    )
}
