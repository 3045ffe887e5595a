//! Git scoping joined to a search: once the search folder is open, the
//! changed files of its repository (`git_status`) are computed for it and
//! put into the walk's rules, so every engine (the disk walk, a live index)
//! keeps only them and skips every folder that holds none. Computed afresh
//! for each call, from the repository's files on disk, also on an index: the
//! answer is then what `git status` says at that moment, with no second copy
//! of git's state to keep current.

use crate::args::{Reader, Value};
use crate::cancel::Cancel;
use crate::error::{clip, FindError, Result};
use crate::git_status::{compute, GitScope, GitWhich, MAX_REF_BYTES};
use crate::index::os;
use crate::source::{Backend, Root, Source};
use crate::walk::WalkRules;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// `rules` narrowed to the changed files below `root`, or `None` without
/// git scoping.
pub fn rules(git: Option<&GitScope>, root: &Root, rules: &WalkRules, cancel: &Cancel) -> Result<Option<WalkRules>> {
    let Some(git) = git else { return Ok(None) };
    let folder = match &root.backend {
        Backend::Disk(_) => root.path.clone(),
        Backend::Index(index, rel) => index.real_path().join(os(rel)),
        // The options refuse git scoping with a reader (see `refuse_reader`).
        Backend::Storage(_) => return Err(refuse_reader()),
    };
    cancel.check()?;
    let changed = compute(&folder, git, Arc::new(AtomicBool::new(false)))?;
    cancel.check()?;
    Ok(Some(WalkRules { changed: Some(changed), ..rules.clone() }))
}

/// The error for git scoping asked of a host's reader.
pub fn refuse_reader() -> FindError {
    FindError::invalid_argument(
        "`git` and `changedSince` need the repository on the local disk, and this search reads through a `reader`; leave them out, or search the folder on disk",
    )
}

/// `git` and `changedSince` from the options of `find` or `searchFiles`:
/// `None` when neither is given. Touches no file.
pub fn parse(r: &Reader, source: &Source) -> Result<Option<GitScope>> {
    let choices: Vec<(&str, GitWhich)> =
        GitWhich::NAMES.iter().filter_map(|name| Some((*name, GitWhich::from_name(name)?))).collect();
    let which = match r.get("git") {
        Value::Absent => None,
        _ => Some(r.choice("git", &choices, GitWhich::Changed)?),
    };
    let since = match r.get("changedSince") {
        Value::Absent => None,
        Value::Text(name) if name.trim().is_empty() => {
            return Err(FindError::invalid_argument(
                "`changedSince` is empty; omit it or pass a ref such as 'origin/main', 'main' or 'HEAD~3'",
            ))
        }
        Value::Text(name) if name.len() > MAX_REF_BYTES || name.contains('\0') => {
            return Err(FindError::invalid_argument(format!(
                "`changedSince` is not a ref name ('{}'); pass a branch, tag or commit such as 'origin/main'",
                clip(name, 100)
            )))
        }
        Value::Text(name) => Some(name.trim().to_string()),
        other => return Err(crate::args::wrong("changedSince", "a git ref such as 'origin/main'", other)),
    };
    let scope = match (which, since) {
        (None, None) => return Ok(None),
        (Some(which), None) => GitScope::Status(which),
        // Changes since a ref already hold every change in the work tree and the index.
        (None | Some(GitWhich::Changed), Some(name)) => GitScope::Since(name),
        (Some(_), Some(_)) => {
            return Err(FindError::invalid_argument(
                "`changedSince` already keeps every file changed since the ref (committed, staged, modified or untracked); pass it alone, or `git` alone",
            ))
        }
    };
    if let Source::Storage(_) = source {
        return Err(refuse_reader());
    }
    Ok(Some(scope))
}
