//! The native `agent-find` command: the same commands, flags, output and exit
//! codes as the JS CLI in js/cli.js (its header says what they are), without
//! Node's start-up. It only converts: argv to option fields (`options`),
//! the core's parse and run, the core's text or `--json` (`output`) to
//! stdout; no search logic of its own. `agent-find mcp` is Node's only: the
//! bin shim never hands it here, and run directly the binary says so.

mod argv;
mod js;
mod options;
mod output;
mod usage;

use agent_find_core::{
    explain, file_types, parse_find_options, parse_search_options, render_find, render_search, run_find, run_search,
    Cancel, CancelFlag, ErrorCode, FindError, Purpose, Source,
};
use argv::JsString;
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
    let status = std::panic::catch_unwind(|| {
        let args: Vec<JsString> = std::env::args_os().skip(1).map(|a| argv::js(&a.to_string_lossy())).collect();
        run(args)
    })
    // The hook has said what went wrong.
    .unwrap_or(1);
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

fn failed(e: &FindError) -> Status {
    let usage = matches!(e.code, ErrorCode::InvalidArgument | ErrorCode::InvalidPattern);
    fail(e.code.as_str(), &e.message, if usage { 2 } else { 1 })
}

/// Node's message for a bad flag, cut as the JS CLI cuts it, then the usage text.
fn usage_error(message: &[u16], usage: &str) -> Status {
    const MAX: usize = 600;
    let text = if message.len() > MAX {
        format!("{}… ({} characters in all)", String::from_utf16_lossy(&message[..MAX]), message.len())
    } else {
        String::from_utf16_lossy(message)
    };
    fail("invalid-argument", &format!("{text}\n\n{usage}"), 2)
}

#[derive(Clone, Copy, PartialEq)]
enum Command {
    Find,
    Search,
    Explain,
}

fn run(mut args: Vec<JsString>) -> Status {
    // `timeoutMs` counts from here, as the binding counts it from the call.
    let made = Instant::now();
    let first = args.first().map(|a| String::from_utf16_lossy(a));
    if first.as_deref() == Some("mcp") {
        return fail(
            "invalid-argument",
            "the MCP server runs on Node: start it through the package's bin (`npx agent-find mcp`)",
            2,
        );
    }
    let command = match first.as_deref() {
        Some("search") => Command::Search,
        Some("explain") => Command::Explain,
        _ => Command::Find,
    };
    if command != Command::Find {
        args.remove(0);
    }
    let (specs, usage) = match command {
        Command::Find => (options::find_flags(true), usage::find()),
        Command::Search => (options::search_flags(), usage::search()),
        Command::Explain => (options::find_flags(false), usage::explain()),
    };
    let parsed = match argv::parse(&specs, args) {
        Ok(parsed) => parsed,
        Err(message) => return usage_error(&message, &usage),
    };
    if parsed.has("help") {
        return print(&usage);
    }
    if parsed.has("version") {
        return print(version());
    }
    if parsed.has("type-list") {
        let lines: Vec<String> =
            file_types().into_iter().map(|(name, globs)| format!("{name}: {}", globs.join(", "))).collect();
        return print(&lines.join("\n"));
    }
    let json = parsed.has("json");
    let answer = match command {
        Command::Find => find(&parsed, json, made),
        Command::Search => search(&parsed, json, made),
        Command::Explain => explain_path(&parsed, json, made),
    };
    match answer {
        Ok(text) => print(&text),
        Err(e) => failed(&e),
    }
}

/// The package's version, from package.json at build time.
fn version() -> &'static str {
    const PACKAGE: &str = include_str!("../../package.json");
    PACKAGE.split_once("\"version\"").and_then(|(_, rest)| rest.split('"').nth(1)).unwrap_or("unknown")
}

fn cancel(timeout_ms: Option<u64>, made: Instant) -> Cancel {
    Cancel::since(CancelFlag::default(), timeout_ms, made)
}

fn find(parsed: &argv::Parsed, json: bool, made: Instant) -> Result<String, FindError> {
    let fields = options::find_fields(parsed)?;
    let mut config = parse_find_options(&fields, Purpose::Find, Source::Disk)?;
    // The text shows no size or date: read them only where a filter or the order needs them (as the binding's findText).
    config.want_meta &= json;
    let outcome = run_find(&config, &cancel(config.timeout_ms, made))?;
    Ok(if json { output::find(outcome).stringify() } else { render_find(&outcome) })
}

fn search(parsed: &argv::Parsed, json: bool, made: Instant) -> Result<String, FindError> {
    let fields = options::search_fields(parsed)?;
    let config = parse_search_options(&fields, Source::Disk)?;
    let outcome = run_search(&config, &cancel(config.timeout_ms, made))?;
    Ok(if json { output::search(outcome).stringify() } else { render_search(&outcome) })
}

fn explain_path(parsed: &argv::Parsed, json: bool, made: Instant) -> Result<String, FindError> {
    let (target, fields) = options::explain_fields(parsed)?;
    let config = parse_find_options(&fields, Purpose::Find, Source::Disk)?;
    let explanation = explain(&config, &target, &cancel(config.timeout_ms, made))?;
    Ok(if json { output::explanation(explanation).stringify() } else { explanation.text })
}
