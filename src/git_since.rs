//! The tree `changedSince` is compared with: the ref it names (a
//! `RefSpec`, see `git_status`) resolved by gix without searching history,
//! its `~N`/`^N` steps taken one commit at a time, and the merge base with
//! HEAD read through object lookups that fail once the call is interrupted,
//! so none of it outlives the call's deadline or abort. Hand-written over
//! gix's `rev_parse` for the steps because gix's takes no interrupt, and a
//! step count or a history search (`:/text`) could walk every commit.

use crate::error::{clip, ErrorCode, FindError, Result};
use crate::git_repo::git_failed;
use crate::git_status::{RefSpec, Step};
use std::sync::atomic::{AtomicBool, Ordering};

/// The error of an interrupted step (the caller answers with the reason).
pub fn interrupted() -> FindError {
    FindError::new(ErrorCode::Aborted, "the search was stopped while reading the git repository")
}

/// Object lookups that fail once `interrupt` is set, so that a walk over
/// history (the merge base) stops with the call.
struct Interruptible<'a> {
    objects: &'a gix::OdbHandle,
    interrupt: &'a AtomicBool,
}

impl gix::objs::Find for Interruptible<'_> {
    fn try_find<'b>(&self, id: &gix::oid, buffer: &'b mut Vec<u8>) -> gix::Result<Option<gix::objs::Data<'b>>> {
        if self.interrupt.load(Ordering::Relaxed) {
            return Err(gix::Error::from(gix::error::message("interrupted")));
        }
        self.objects.try_find(id, buffer)
    }
}

/// The tree of the merge base of HEAD and `name`: `invalid-argument` naming
/// the ref when it resolves to no commit.
pub fn merge_base_tree(repo: &gix::Repository, name: &str, interrupt: &AtomicBool) -> Result<gix::ObjectId> {
    let unknown = |why: String| {
        FindError::invalid_argument(format!(
            "`changedSince` names '{}', which {why}; pass a branch, tag or commit the repository has (list them with `git branch -a` and `git tag`), such as 'origin/main' or 'HEAD~3'",
            clip(name, 200)
        ))
    };
    let spec = RefSpec::parse(name).map_err(|why| unknown(format!("is not taken: {why}")))?;
    let stopped =
        |e: gix::Error| if interrupt.load(Ordering::Relaxed) { interrupted() } else { git_failed("history", e) };
    let id = repo
        .rev_parse_single(spec.name.as_str())
        .map_err(|e| unknown(format!("is not a ref or commit here ({})", first_line(&e.to_string()))))?;
    let mut commit = id
        .object()
        .map_err(|e| git_failed("objects", e))?
        .peel_to_commit()
        .map_err(|_| unknown("is not a commit".to_string()))?
        .id;
    for step in &spec.steps {
        let (count, nth) = match *step {
            Step::Back(n) => (n, 1),
            Step::Parent(0) => continue,
            Step::Parent(n) => (1, n),
        };
        for _ in 0..count {
            if interrupt.load(Ordering::Relaxed) {
                return Err(interrupted());
            }
            let found = repo.find_commit(commit).map_err(|e| git_failed("objects", e))?;
            let parent = usize::try_from(nth - 1).ok().and_then(|at| found.parent_ids().nth(at));
            commit = match parent {
                Some(parent) => parent.detach(),
                None => return Err(unknown("goes back past the first commit of its history".to_string())),
            };
        }
    }
    let head = match repo.head_commit() {
        Ok(head) => head.id,
        Err(_) => return Err(unknown("cannot be compared: HEAD has no commit yet".to_string())),
    };
    let cache = repo.commit_graph_if_enabled().map_err(|e| git_failed("commit graph", e))?;
    let mut graph = gix::revwalk::Graph::new(Interruptible { objects: &repo.objects, interrupt }, cache.as_ref());
    let base = gix::revision::plumbing::merge_base(head, &[commit], &mut graph)
        .map_err(stopped)?
        .map(|bases| *bases.first())
        .ok_or_else(|| unknown("shares no history with HEAD".to_string()))?;
    let tree = repo
        .find_commit(base)
        .map_err(|e| git_failed("objects", e))?
        .tree_id()
        .map_err(|e| git_failed("objects", e))?;
    Ok(tree.detach())
}

/// The first line of an error's text (gix chains its causes below it).
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A repository made by git in a temp folder, with `commits` commits on `main`.
    fn history(name: &str, commits: usize) -> (crate::testing::TempTree, PathBuf) {
        let tree = crate::testing::TempTree::new(name);
        let repo = std::fs::canonicalize(&*tree).unwrap();
        let run = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(args)
                .current_dir(&repo)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", &repo)
                .env("GIT_AUTHOR_NAME", "a")
                .env("GIT_AUTHOR_EMAIL", "a@a")
                .env("GIT_COMMITTER_NAME", "a")
                .env("GIT_COMMITTER_EMAIL", "a@a")
                .output()
                .expect("git runs");
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        };
        run(&["init", "-q", "-b", "main"]);
        for i in 0..commits {
            std::fs::write(repo.join("f.txt"), format!("{i}\n")).unwrap();
            run(&["add", "f.txt"]);
            run(&["commit", "-q", "-m", &format!("c{i}")]);
        }
        (tree, repo)
    }

    #[test]
    fn an_interrupt_stops_the_steps_and_the_merge_base() {
        let (_tree, repo) = history("git-history", 4);
        let opened = crate::git_repo::open(&repo, None).unwrap();
        let go = AtomicBool::new(false);
        merge_base_tree(&opened.repo, "HEAD~3", &go).unwrap();
        let err = merge_base_tree(&opened.repo, "HEAD~4", &go).unwrap_err();
        assert!(err.message.contains("past the first commit"), "{}", err.message);
        let stop = AtomicBool::new(true);
        for name in ["HEAD~2", "main"] {
            let err = merge_base_tree(&opened.repo, name, &stop).unwrap_err();
            assert_eq!(err.code, ErrorCode::Aborted, "{name}: {}", err.message);
        }
    }
}
