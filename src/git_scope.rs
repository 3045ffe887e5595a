//! Git scoping and status joined to a search: once the search folder is
//! open, the changed files of its repository (`git_status`) are computed for
//! it and put into the walk's rules, so every engine (the disk walk, a live
//! index) keeps only them and skips every folder that holds none; with
//! `gitStatus` the same set gives the letters of the paths a result shows. Computed afresh
//! for each call, from the repository's files on disk, also on an index: the
//! answer is then what `git status` says at that moment, with no second copy
//! of git's state to keep current.

use crate::args::{Reader, Value};
use crate::cancel::Cancel;
use crate::error::{clip, FindError, Result};
use crate::git_status::{compute, ChangedPaths, GitAsk, GitScope, GitWhich, MAX_REF_BYTES};
use crate::index::os;
use crate::source::{Backend, Root, Source};
use crate::walk::WalkRules;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What git scoping and status make of one call: `rules` narrowed to the
/// changed files (with a scope), and the set whose letters the result shows
/// (with `gitStatus`).
#[derive(Default)]
pub struct Applied {
    pub rules: Option<WalkRules>,
    pub status: Option<ChangedPaths>,
}

/// Computes the changed files below `root` when `git` asks for them: once
/// for both the scope and the letters. Without a scope, `gitStatus` reads
/// every kind of change ('changed') and narrows nothing.
pub fn apply(git: &GitAsk, root: &Root, rules: &WalkRules, cancel: &Cancel) -> Result<Applied> {
    let scope = match (&git.scope, git.status) {
        (None, false) => return Ok(Applied::default()),
        (Some(scope), _) => scope.clone(),
        (None, true) => GitScope::Status(GitWhich::Changed),
    };
    let folder = match &root.backend {
        Backend::Disk(_) => root.path.clone(),
        Backend::Index(index, rel) => index.real_path().join(os(rel)),
        // The options refuse git scoping with a reader (see `refuse_reader`).
        Backend::Storage(_) => return Err(refuse_reader()),
    };
    cancel.check()?;
    let changed = compute(&folder, &scope, git.status, Arc::new(AtomicBool::new(false)))?;
    cancel.check()?;
    Ok(Applied {
        status: git.status.then(|| changed.clone()),
        rules: git.scope.is_some().then(|| WalkRules { changed: Some(changed), ..rules.clone() }),
    })
}

/// The error for git scoping asked of a host's reader.
pub fn refuse_reader() -> FindError {
    FindError::invalid_argument(
        "`git`, `changedSince` and `gitStatus` need the repository on the local disk, and this search reads through a `reader`; leave them out, or search the folder on disk",
    )
}

/// `git`, `changedSince` and `gitStatus` from the options of `find` or
/// `searchFiles`. Touches no file.
pub fn parse(r: &Reader, source: &Source) -> Result<GitAsk> {
    let status = r.flag("gitStatus", false)?;
    let scope = parse_scope(r)?;
    if let (Source::Storage(_), true) = (source, scope.is_some() || status) {
        return Err(refuse_reader());
    }
    Ok(GitAsk { scope, status })
}

/// `git` and `changedSince`: `None` when neither is given.
fn parse_scope(r: &Reader) -> Result<Option<GitScope>> {
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
    Ok(match (which, since) {
        (None, None) => None,
        (Some(which), None) => Some(GitScope::Status(which)),
        // Changes since a ref already hold every change in the work tree and the index.
        (None | Some(GitWhich::Changed), Some(name)) => Some(GitScope::Since(name)),
        (Some(_), Some(_)) => {
            return Err(FindError::invalid_argument(
                "`changedSince` already keeps every file changed since the ref (committed, staged, modified or untracked); pass it alone, or `git` alone",
            ))
        }
    })
}
