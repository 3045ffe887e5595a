//! `agent-find mcp`: the MCP server is JavaScript (js/mcp.js, on the official
//! SDK), so the binary hands the command to Node as
//! `node <package>/bin/agent-find.js mcp ...`, with the same arguments,
//! stdio and environment, and ends as that ends (on Unix it becomes that
//! process, so signals and the exit status are Node's own).
//!
//! The package is found from where this binary lies (links resolved), in each
//! place one is installed: beside it (`agent-find.<platform>`, a dev build or
//! a packed tarball), above it (`<package>/bin/agent-find`, the npm bin that
//! bin/install.js made the binary), or beside or above the platform package
//! (`node_modules/agent-find-<platform>/agent-find`, hoisted or nested).
//! Node is the one npm runs on when npm started this (`npm_node_execpath`,
//! as under `npx`), else `node` on PATH.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why the hand-off failed: the error code and the message.
pub type Failure = (&'static str, String);

fn package() -> Result<PathBuf, Failure> {
    let exe = std::env::current_exe();
    // Windows paths stay as given: a canonical one (`\\?\C:\...`) is not every program's.
    let exe = if cfg!(windows) { exe } else { exe.and_then(|e| e.canonicalize()) };
    let exe = exe.map_err(|e| ("internal", format!("cannot tell where this binary is: {e}")))?;
    let here = exe.parent().unwrap_or(Path::new("."));
    let candidates =
        [here.to_path_buf(), here.join(".."), here.join("..").join("agent-find"), here.join("..").join("..")];
    let is_package =
        |dir: &&PathBuf| dir.join("bin").join("agent-find.js").is_file() && dir.join("js").join("mcp.js").is_file();
    candidates.iter().find(is_package).cloned().ok_or_else(|| {
        let message = format!(
            "`agent-find mcp` runs on Node from the npm package agent-find, and no package is beside or above {}: \
             run it as `npx agent-find mcp`, or install agent-find with npm",
            here.display()
        );
        ("missing-package", message)
    })
}

/// Runs the MCP server; returns its exit status where it cannot take this process's place.
pub fn run(args: &[OsString]) -> Result<i32, Failure> {
    let shim = package()?.join("bin").join("agent-find.js");
    let npm_node = std::env::var_os("npm_node_execpath").filter(|p| Path::new(p).is_file());
    let node = npm_node.unwrap_or_else(|| "node".into());
    let mut command = Command::new(&node);
    command.arg(shim).arg("mcp").args(args);
    #[cfg(unix)]
    let error = std::os::unix::process::CommandExt::exec(&mut command);
    #[cfg(not(unix))]
    let error = match command.status() {
        Ok(status) => return Ok(status.code().unwrap_or(1)),
        Err(e) => e,
    };
    Err(if error.kind() == std::io::ErrorKind::NotFound {
        let message = "`agent-find mcp` runs on Node.js (the MCP server is JavaScript), and no `node` is on PATH: \
                       install Node.js 18 or later";
        ("missing-node", message.to_string())
    } else {
        ("missing-node", format!("cannot start Node ({}): {error}", Path::new(&node).display()))
    })
}
