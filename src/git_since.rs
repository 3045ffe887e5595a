//! What `changedSince` names and the tree it is compared with: the ref as
//! the option takes it (`RefSpec`: a ref or commit gix resolves without
//! searching history, then `~N`/`^N` steps back), the steps taken one commit
//! at a time, and the merge base with HEAD read through object lookups that
//! fail once the call is interrupted, so none of it outlives the call's
//! deadline or abort. Hand-written over gix's `rev_parse` for the steps
//! because gix's takes no interrupt, and a step count or a history search
//! (`:/text`) could walk every commit.

use crate::error::{clip, ErrorCode, FindError, Result};
use crate::git_repo::git_failed;
use std::sync::atomic::{AtomicBool, Ordering};

/// What `changedSince` names, as it takes it: a ref or commit that gix
/// resolves without searching history (a branch, tag, remote branch,
/// `HEAD`, a hex id, with an optional `@{upstream}`/`@{u}`/`@{push}`),
/// then any number of `~N` (first parents) and `^N` (the Nth parent) steps,
/// each taken here while the call's interrupt is watched. Forms that search
/// every commit (`:/text`, `^{/text}`) or name anything but a commit
/// (`:path`, ranges) are refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefSpec {
    pub name: String,
    pub steps: Vec<Step>,
}

/// One step back from a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `~N`: N first parents back.
    Back(u64),
    /// `^N`: the Nth parent (`^0` is the commit itself).
    Parent(u64),
}

impl RefSpec {
    /// Parses `text` (already trimmed); `Err` says what is wrong with it.
    pub fn parse(text: &str) -> std::result::Result<RefSpec, String> {
        let split = text.find(['~', '^']).unwrap_or(text.len());
        let (name, mut rest) = text.split_at(split);
        let base = ["@{upstream}", "@{u}", "@{push}"].iter().find_map(|s| name.strip_suffix(s)).unwrap_or(name);
        if name.is_empty() {
            return Err("it names no ref before its `~` or `^`".to_string());
        }
        if let Some(bad) = base.chars().find(|c| c.is_whitespace() || c.is_control() || ":?*[\\{}".contains(*c)) {
            return Err(format!("it holds {bad:?}, which no ref name holds"));
        }
        if base.contains("..") || base.contains("@{") || base.starts_with('-') {
            return Err("ranges, reflog entries and history searches are not taken".to_string());
        }
        let mut steps = Vec::new();
        while let Some(kind) = rest.chars().next() {
            let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
            let count = match digits {
                0 => 1,
                _ => rest[1..=digits].parse::<u64>().map_err(|_| "a step count is too large".to_string())?,
            };
            steps.push(if kind == '~' { Step::Back(count) } else { Step::Parent(count) });
            rest = &rest[1 + digits..];
            if !rest.is_empty() && !rest.starts_with(['~', '^']) {
                return Err(format!("`{}` follows a step; only `~N` and `^N` may follow the ref", clip(rest, 40)));
            }
        }
        Ok(RefSpec { name: name.to_string(), steps })
    }
}

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

    #[test]
    fn ref_specs_a_name_then_steps_back() {
        let parsed = |text: &str| RefSpec::parse(text).map(|s| (s.name, s.steps));
        assert_eq!(parsed("origin/main"), Ok(("origin/main".into(), vec![])));
        assert_eq!(parsed("HEAD~3"), Ok(("HEAD".into(), vec![Step::Back(3)])));
        assert_eq!(parsed("v1.2^2~"), Ok(("v1.2".into(), vec![Step::Parent(2), Step::Back(1)])));
        assert_eq!(parsed("main@{u}^"), Ok(("main@{u}".into(), vec![Step::Parent(1)])));
        assert_eq!(parsed("abc123^0"), Ok(("abc123".into(), vec![Step::Parent(0)])));
        for refused in [
            ":/fix",
            "HEAD^{/fix}",
            "HEAD:a.txt",
            "a..b",
            "a...b",
            "HEAD@{1}",
            "@{-1}",
            "~1",
            "-n",
            "a b",
            "HEAD^{tree}",
            "x~1y",
        ] {
            assert!(RefSpec::parse(refused).is_err(), "{refused}");
        }
        assert!(RefSpec::parse("HEAD~99999999999999999999999").is_err(), "a count past u64");
    }

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
