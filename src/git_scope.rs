//! Git scoping and status joined to a search: once the search folder is
//! open, the changed files of its repository (`git_status`) are computed for
//! it and put into the walk's rules, so every engine (the disk walk, a live
//! index) keeps only them and skips every folder that holds none; with
//! `gitStatus` the same set gives the letters of the paths a result shows.
//! Computed afresh for each call, from the repository's files on disk, also
//! on an index: the answer is then what `git status` says at that moment,
//! with no second copy of git's state to keep current. gix's own threads do
//! the reading; an abort or the deadline interrupts them (`interruptible`).
//!
//! A build without the `git` cargo feature has no gix: `parse` refuses the
//! three options there (`no_git_support`), so nothing reaches `compute`.

use crate::args::{TableReader, Value};
use crate::cancel::Cancel;
use crate::error::{clip, FindError, Result};
#[cfg(feature = "git")]
use crate::git_changes::compute;
use crate::git_status::{ChangedPaths, GitAsk, GitScope, GitWhich, RefSpec, MAX_REF_BYTES};
use crate::source::{Root, Source};
use crate::walk::WalkRules;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

/// What git scoping and status make of one call: `rules` narrowed to the
/// changed files (with a scope), and the set whose letters the result shows
/// (with `gitStatus`).
#[derive(Default)]
pub struct Applied {
    pub rules: Option<WalkRules>,
    pub status: Option<ChangedPaths>,
    /// A sentence for the result when some file was judged without running
    /// its filter driver (see `ChangedPaths::driver_note`).
    pub note: Option<String>,
}

/// Computes the changed files below `root` when `git` asks for them: once
/// for both the scope and the letters. Without a scope, `gitStatus` reads
/// every kind of change ('changed') and narrows nothing.
pub fn apply(
    git: &GitAsk,
    root: &Root,
    roots: Option<&[PathBuf]>,
    rules: &WalkRules,
    cancel: &Cancel,
) -> Result<Applied> {
    let scope = match (&git.scope, git.status) {
        (None, false) => return Ok(Applied::default()),
        (Some(scope), _) => scope.clone(),
        (None, true) => GitScope::Status(GitWhich::Changed),
    };
    // The options refuse git scoping with a reader (see `refuse_reader`).
    let folder = root.repository_folder().ok_or_else(refuse_reader)?;
    cancel.check()?;
    let inside = |real: &std::path::Path| roots.is_some_and(|roots| crate::sandbox::inside_really(real, roots));
    let inside_roots = roots.map(|_| &inside as crate::git_status::InsideRoots<'_>);
    let changed = interruptible(cancel, |interrupt| compute(&folder, inside_roots, &scope, git.status, interrupt))?;
    Ok(Applied {
        note: changed.driver_note(),
        status: git.status.then(|| changed.clone()),
        rules: git.scope.is_some().then(|| WalkRules { changed: Some(changed), ..rules.clone() }),
    })
}

/// Runs `work` with a flag that is set once `cancel` stops (the caller
/// aborts, or the deadline passes), as gix takes it, watched from a thread
/// of its own while `work` runs: gix checks the flag, not a deadline. When
/// `cancel` has stopped, its error is the answer, not what `work` made of
/// being interrupted.
fn interruptible<T>(cancel: &Cancel, work: impl FnOnce(Arc<AtomicBool>) -> Result<T>) -> Result<T> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let (done, finished) = mpsc::channel::<()>();
    let out = std::thread::scope(|scope| {
        let flag = interrupt.clone();
        scope.spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(WATCH_EVERY) {
                if cancel.check().is_err() {
                    flag.store(true, Ordering::Relaxed);
                    return;
                }
            }
        });
        let out = work(interrupt);
        drop(done);
        out
    });
    cancel.check()?;
    out
}

/// How often `interruptible` looks at the caller's flag and the clock.
const WATCH_EVERY: Duration = Duration::from_millis(5);

/// The error for git scoping asked of a host's reader.
pub fn refuse_reader() -> FindError {
    FindError::invalid_argument(
        "`git`, `changedSince` and `gitStatus` need the repository on the local disk, and this search reads through a `reader`; leave them out, or search the folder on disk",
    )
}

/// The error for git scoping asked of a build without git support (the
/// `git` cargo feature off, so no gix): the one place it is said.
pub fn no_git_support() -> FindError {
    FindError::invalid_argument(
        "`git`, `changedSince` and `gitStatus` read a git repository, and this build of agent-find has no git support (it was built without the `git` feature); leave them out",
    )
}

/// Without gix, no repository is read: `parse` has refused every option
/// that would ask for one.
#[cfg(not(feature = "git"))]
fn compute(
    _: &std::path::Path,
    _: Option<crate::git_status::InsideRoots<'_>>,
    _: &GitScope,
    _: bool,
    _: Arc<AtomicBool>,
) -> Result<ChangedPaths> {
    Err(no_git_support())
}

/// `git`, `changedSince` and `gitStatus` from the options of `find` or
/// `searchFiles`. Touches no file.
pub fn parse(r: &TableReader, source: &Source) -> Result<GitAsk> {
    let status = r.flag("gitStatus")?;
    let scope = parse_scope(r)?;
    let asked = scope.is_some() || status;
    if let (Source::Storage(_), true) = (source, asked) {
        return Err(refuse_reader());
    }
    if asked && !cfg!(feature = "git") {
        return Err(no_git_support());
    }
    Ok(GitAsk { scope, status })
}

/// `git` and `changedSince`: `None` when neither is given.
fn parse_scope(r: &TableReader) -> Result<Option<GitScope>> {
    let which = r.given_choice("git", GitWhich::from_name)?;
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
        Value::Text(name) => {
            let name = name.trim();
            if let Err(why) = RefSpec::parse(name) {
                return Err(FindError::invalid_argument(format!(
                    "`changedSince` is not taken as written ('{}'): {why}; pass a branch, tag or commit such as 'origin/main', 'v1.2', 'HEAD~3' or a commit id",
                    clip(name, 100)
                )));
            }
            Some(name.to_string())
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelFlag;
    use crate::error::ErrorCode;
    use std::time::Instant;

    /// Work that ends only when interrupted, as gix's status does when told.
    fn until_interrupted(flag: Arc<AtomicBool>) -> Result<u32> {
        let start = Instant::now();
        while !flag.load(Ordering::Relaxed) {
            assert!(start.elapsed() < Duration::from_secs(20), "never interrupted");
            std::thread::sleep(Duration::from_millis(1));
        }
        Err(FindError::invalid_argument("interrupted work reports its own error"))
    }

    #[test]
    fn the_deadline_interrupts_the_work_and_is_the_answer() {
        let cancel = Cancel::new(CancelFlag::default(), Some(30));
        let start = Instant::now();
        let err = interruptible(&cancel, until_interrupted).unwrap_err();
        assert_eq!(err.code, ErrorCode::Aborted, "{}", err.message);
        assert!(err.message.contains("timeoutMs"), "{}", err.message);
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn an_abort_interrupts_the_work() {
        let flag = CancelFlag::default();
        let cancel = Cancel::new(flag.clone(), None);
        let aborter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            flag.cancel();
        });
        let err = interruptible(&cancel, until_interrupted).unwrap_err();
        assert_eq!(err.code, ErrorCode::Aborted);
        assert!(!err.message.contains("timeoutMs"), "{}", err.message);
        aborter.join().unwrap();
    }

    #[test]
    fn git_options_are_refused_only_by_a_build_without_git() {
        let parsed = |name: &str, value: Value| {
            let fields = [(name.to_string(), value)];
            parse(&TableReader::new(&fields, crate::option_table::Call::Find), &Source::Disk)
        };
        for (name, value) in [
            ("git", Value::Text("changed".into())),
            ("changedSince", Value::Text("main".into())),
            ("gitStatus", Value::Bool(true)),
        ] {
            let result = parsed(name, value);
            assert_eq!(result.is_ok(), cfg!(feature = "git"), "{name}");
            match result {
                Ok(ask) => assert_ne!(ask, GitAsk::default(), "{name}"),
                Err(e) => assert_eq!((e.code, e.message), (ErrorCode::InvalidArgument, no_git_support().message)),
            }
        }
        // Left out, or `gitStatus: false`, asks nothing of git: every build takes it.
        assert_eq!(parsed("gitStatus", Value::Bool(false)).unwrap(), GitAsk::default());
        assert_eq!(parsed("git", Value::Absent).unwrap(), GitAsk::default());
    }

    #[test]
    fn work_that_ends_gives_its_answer_and_the_watch_ends_with_it() {
        let cancel = Cancel::never();
        assert_eq!(interruptible(&cancel, |_| Ok(7)).unwrap(), 7);
        let err = interruptible(&cancel, |_| -> Result<u32> { Err(FindError::invalid_argument("its own")) });
        assert_eq!(err.unwrap_err().message, "its own");
    }
}
