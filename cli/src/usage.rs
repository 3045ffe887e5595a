//! The usage texts of `agent-find`, `agent-find search` and `agent-find
//! explain`: the flags of the call's options from the option table, then the
//! command's own (`args::Command::own_flags`), each with its one line of help,
//! inside the prose of each command.

use crate::args::Command;
use agent_find_core::option_table::{self, fill};

/// `-s, --long ARG` and the help of each flag, in columns.
fn flag_lines(command: Command) -> String {
    let table = option_table::of(command.call()).filter_map(|o| o.flag).map(|f| (f.short, f.long, f.arg, fill(f.help)));
    let own = command.own_flags().iter().map(|&(long, short, help)| (short, long, None, help.to_string()));
    let lines = table.chain(own).map(|(short, long, arg, help)| {
        let short = short.map(|c| format!("-{c}, ")).unwrap_or_default();
        let left = format!("{short}--{long}{}", arg.map(|a| format!(" {a}")).unwrap_or_default());
        let gap = if left.len() >= 26 { " " } else { "" };
        format!("  {left:<26}{gap}{help}")
    });
    lines.collect::<Vec<_>>().join("\n")
}

pub fn text(command: Command) -> String {
    let flags = flag_lines(command);
    match command {
        Command::Find => format!(
            "Usage: agent-find <pattern> [path] [options]

Find files by glob (or regex), respecting .gitignore, newest first.

Options:
{flags}

Content search: agent-find search --help
Why a path is (not) listed: agent-find explain <path> [pattern]   (agent-find explain --help)
MCP server (stdio): agent-find mcp --root DIR   (agent-find mcp --help)
Exit status: 0 on success (also when nothing matched), 2 on bad usage, 1 on other errors."
        ),
        Command::Search => format!(
            "Usage: agent-find search <regex> [path] [options]
       agent-find search -e <regex> [-e <regex> ...] [path] [options]

Search file contents with a regex (ripgrep's syntax; lookaround and backreferences
run on PCRE2, as rg -P), skipping .git, node_modules,
dist, build, target, vendor, .venv and other dependency folders, and gitignored files.

Options:
{flags}"
        ),
        Command::Explain => format!(
            "Usage: agent-find explain <path> [pattern] [options]

Say why <path> is or is not listed by `agent-find [pattern]` run here with the same
options: the ignore-file line that hides it (as git check-ignore -v names it), or the
other reason (hidden, --exclude, --max-depth, a symlink on the way, the type, the pattern,
size or date filters, missing). Without a pattern, only the walk's rules and filters decide.

Options:
{flags}"
        ),
    }
}
