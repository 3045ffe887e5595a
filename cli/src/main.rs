//! The `agent-find` command: `agent-find <pattern> [path]` finds files,
//! `agent-find search <regex> [path]` searches their contents, `agent-find
//! explain <path> [pattern]` says why find lists a path or not, and
//! `agent-find mcp` is handed to Node (`mcp`). The model text by default,
//! the result object with `--json`. Exit 0 on success (also when nothing
//! matched), 2 on bad usage, 1 on any other error, the error code leading the
//! line on stderr. It only converts: argv to the core's option fields
//! (`args`, flags from the option table), the core's parse and run, its text
//! or `--json` (`output`) to stdout; no search logic of its own.

mod args;
mod mcp;
mod output;
mod usage;

use agent_find_core::{
    default_cache_dir, explain, file_types, parse_find_options, parse_search_options, render_find, render_search,
    run_find, run_search, Cancel, CancelFlag, ErrorCode, FindError, Purpose, Source,
};
use args::{Command, Parsed};
use std::ffi::OsString;
use std::io::Write;
use std::time::Instant;

/// How the command ends: its exit status.
type Status = i32;

fn main() {
    // A bug must not end in a backtrace: the same line as the binding's `fs-error` for a panic.
    std::panic::set_hook(Box::new(|info| {
        let _ = writeln!(
            std::io::stderr().lock(),
            "agent-find: fs-error: internal error in agent-find (please report it): {info}"
        );
    }));
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let status = if args.first().is_some_and(|a| a == "mcp") {
        mcp::run(&args[1..]).unwrap_or_else(|(code, message)| fail(code, &message, 1))
    } else {
        // The hook has said what went wrong.
        std::panic::catch_unwind(|| run(args)).unwrap_or(1)
    };
    std::process::exit(status);
}

/// Writes to stdout; a reader that closed the pipe early (`agent-find ... | head -1`) has all it wanted.
fn print(text: &str) -> Status {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => fail("fs-error", &format!("cannot write the answer to stdout: {e}"), 1),
    }
}

fn fail(code: &str, message: &str, status: Status) -> Status {
    // Nothing is left to do if stderr is gone too.
    let _ = writeln!(std::io::stderr().lock(), "agent-find: {code}: {message}");
    status
}

fn run(mut args: Vec<OsString>) -> Status {
    // `timeoutMs` counts from here, as the binding counts it from the call.
    let made = Instant::now();
    let (command, word) = match args.first().and_then(|a| a.to_str()) {
        Some("search") => (Command::Search, " search"),
        Some("explain") => (Command::Explain, " explain"),
        _ => (Command::Find, ""),
    };
    if command != Command::Find {
        args.remove(0);
    }
    let parsed = match args::parse(command, args) {
        Ok(parsed) => parsed,
        Err(message) => return fail("invalid-argument", &format!("{message} (see agent-find{word} --help)"), 2),
    };
    if parsed.has("help") {
        return print(&usage::text(command));
    }
    if parsed.has("version") {
        return print(&version());
    }
    if parsed.has("type-list") {
        let lines: Vec<String> =
            file_types().into_iter().map(|(name, globs)| format!("{name}: {}", globs.join(", "))).collect();
        return print(&lines.join("\n"));
    }
    let json = parsed.has("json");
    let saved = !parsed.has("no-index");
    match answer(command, parsed, json, saved, made) {
        Ok(text) => print(&text),
        Err(e) => {
            let usage = matches!(e.code, ErrorCode::InvalidArgument | ErrorCode::InvalidPattern);
            fail(e.code.as_str(), &e.message, if usage { 2 } else { 1 })
        }
    }
}

/// The package's version, from package.json at build time.
fn version() -> String {
    let package: serde_json::Value = serde_json::from_str(include_str!("../../package.json")).unwrap_or_default();
    package["version"].as_str().unwrap_or("unknown").to_string()
}

fn pretty(value: serde_json::Value) -> String {
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// With `saved`, a content search passes over the files whose sketch an
/// index saved (in the cache folder, see `default_cache_dir`) rules out,
/// while their stamp is the saved one; a cache file that cannot be used is
/// passed over itself (the search is exact without it).
fn answer(command: Command, parsed: Parsed, json: bool, saved: bool, made: Instant) -> Result<String, FindError> {
    let cancel = |timeout_ms| Cancel::since(CancelFlag::default(), timeout_ms, made);
    match command {
        Command::Find => {
            let mut config = parse_find_options(&args::fields(command, parsed)?, Purpose::Find, Source::Disk)?;
            // The text shows no size or date: read them only where a filter or the order needs them.
            config.want_meta &= json;
            let outcome = run_find(&config, &cancel(config.timeout_ms))?;
            Ok(if json { pretty(output::find(outcome)) } else { render_find(&outcome) })
        }
        Command::Search => {
            let mut config = parse_search_options(&args::fields(command, parsed)?, Source::Disk)?;
            if let Some(dir) = default_cache_dir().filter(|_| saved) {
                let _ = config.use_saved_sketches(&dir);
            }
            let outcome = run_search(&config, &cancel(config.timeout_ms))?;
            Ok(if json { pretty(output::search(outcome)) } else { render_search(&outcome) })
        }
        Command::Explain => {
            let (target, fields) = args::explain(parsed)?;
            let config = parse_find_options(&fields, Purpose::Find, Source::Disk)?;
            let explanation = explain(&config, &target, &cancel(config.timeout_ms))?;
            Ok(if json { pretty(output::explanation(explanation)) } else { explanation.text })
        }
    }
}
