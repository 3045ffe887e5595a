//! Git scoping (`git`, `changedSince`) and status (`gitStatus`): which files
//! of the repository that holds a search folder are changed, read with `gix`
//! (no `git` binary is run), the set a walk keeps (`ChangedPaths`) and the
//! status letters of the paths a result shows. The set is computed once
//! per call from the repository's index, objects and work tree, so a live
//! index answers from the same files as the disk does.
//!
//! What counts as changed follows `git status`: `staged` is HEAD's tree
//! against the index, `modified` is the index against the work tree,
//! `untracked` is what the work tree holds that the index does not and no
//! ignore rule hides (so gitignored files never count). `changedSince` is
//! the merge base with a ref against the index and the work tree, plus the
//! untracked files. A submodule or nested repository is its own repository:
//! its files are never in the outer one's set (search from inside it to scope
//! to its own changes). Deleted files are on no disk, so no walk lists them.

use crate::error::{clip, ErrorCode, FindError, Result};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which changed files a `git` option keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GitWhich {
    /// Changed in the work tree against the index (`git diff`).
    Modified,
    /// Changed in the index against HEAD (`git diff --cached`).
    Staged,
    /// Neither in the index nor ignored.
    Untracked,
    /// Any of the three.
    Changed,
}

impl GitWhich {
    pub const NAMES: &'static [&'static str] = &["modified", "staged", "untracked", "changed"];

    pub fn from_name(name: &str) -> Option<GitWhich> {
        match name {
            "modified" => Some(GitWhich::Modified),
            "staged" => Some(GitWhich::Staged),
            "untracked" => Some(GitWhich::Untracked),
            "changed" => Some(GitWhich::Changed),
            _ => None,
        }
    }
}

/// The git scope of one call, as the options gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitScope {
    /// `git: 'modified' | 'staged' | 'untracked' | 'changed'`.
    Status(GitWhich),
    /// `changedSince: '<ref>'`: changed since the merge base of HEAD and the ref, and untracked files.
    Since(String),
}

/// What a call asks of git: a scope (`git`, `changedSince`), the status
/// letters of what it shows (`gitStatus`), both or neither.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitAsk {
    pub scope: Option<GitScope>,
    pub status: bool,
}

/// The longest ref `changedSince` takes (git's own refs are far shorter).
pub const MAX_REF_BYTES: usize = 1024;

/// The git letters of one changed path, as `git status --porcelain` prints
/// them: the index's (`staged`) and the work tree's, `?` for untracked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Letters {
    pub staged: Option<char>,
    pub worktree: Option<char>,
}

impl Letters {
    /// Whether a file with these letters is one `which` keeps.
    fn is(&self, which: GitWhich) -> bool {
        match which {
            GitWhich::Changed => true,
            GitWhich::Staged => self.staged.is_some(),
            GitWhich::Modified => self.worktree.is_some_and(|l| l != '?'),
            GitWhich::Untracked => self.worktree == Some('?'),
        }
    }

    /// The two columns of `git status --porcelain`: `M `, ` M`, `MM`, `??`, `A `.
    pub fn porcelain(&self) -> String {
        match (self.staged, self.worktree) {
            (None, Some('?')) => "??".to_string(),
            (s, w) => format!("{}{}", s.unwrap_or(' '), w.unwrap_or(' ')),
        }
    }
}

/// The changed files below one search folder, by their path relative to it,
/// and every folder on the way to one of them (which a walk must enter; any
/// other folder it may skip). Shared by every walker thread of the call; two
/// are equal when they hold the same paths, so a live index that is asked
/// the same scope twice reuses its list of visible entries.
#[derive(Debug, Clone, Default)]
pub struct ChangedPaths(Arc<Changed>);

#[derive(Debug, Default, PartialEq)]
struct Changed {
    files: HashMap<PathBuf, Letters>,
    folders: HashSet<PathBuf>,
}

impl PartialEq for ChangedPaths {
    fn eq(&self, other: &ChangedPaths) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl ChangedPaths {
    /// Whether the entry at `rel` (from the search folder) is kept: a file
    /// (or symlink) that is changed, or a folder that holds one.
    pub fn keeps(&self, rel: &Path, is_dir: bool) -> bool {
        match is_dir {
            true => self.0.folders.contains(rel),
            false => self.0.files.contains_key(rel),
        }
    }

    /// The letters of a changed file, `None` for a path not in the set.
    pub fn letters(&self, rel: &Path) -> Option<Letters> {
        self.0.files.get(rel).copied()
    }

    /// The `git status --porcelain` letters of each of `paths` (relative to
    /// the search folder, `/`-separated) that is changed, by path; a path
    /// git has no change of is left out.
    pub fn porcelain_of<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, String> {
        paths
            .into_iter()
            .filter_map(|path| Some((path.to_string(), self.letters(Path::new(path))?.porcelain())))
            .collect()
    }

    /// How many changed files are below the search folder.
    pub fn len(&self) -> usize {
        self.0.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.files.is_empty()
    }

    /// The set from paths relative to the search folder (tests, and `compute`).
    pub fn from_paths(paths: impl IntoIterator<Item = (PathBuf, Letters)>) -> ChangedPaths {
        ChangedPaths::keeping(paths, GitWhich::Changed)
    }

    /// The set of the files `which` keeps: a file's items (one for each
    /// column of its letters) are joined first, so it is judged on both.
    fn keeping(paths: impl IntoIterator<Item = (PathBuf, Letters)>, which: GitWhich) -> ChangedPaths {
        let mut changed = Changed::default();
        for (path, letters) in paths {
            let slot = changed.files.entry(path).or_default();
            slot.staged = slot.staged.or(letters.staged);
            slot.worktree = slot.worktree.or(letters.worktree);
        }
        changed.files.retain(|_, letters| letters.is(which));
        for path in changed.files.keys() {
            let mut above = path.parent();
            while let Some(folder) = above.filter(|f| !f.as_os_str().is_empty()) {
                if !changed.folders.insert(folder.to_path_buf()) {
                    break;
                }
                above = folder.parent();
            }
        }
        ChangedPaths(Arc::new(changed))
    }
}

/// The error for a search folder that is in no git work tree.
fn not_a_repository(folder: &Path, why: &str) -> FindError {
    FindError::new(
        ErrorCode::NotARepository,
        format!(
            "`{}` is not inside a git work tree ({why}), so `git`/`changedSince` cannot scope the search; search without them, or pass a `path` inside a repository",
            clip(&folder.to_string_lossy(), 300)
        ),
    )
}

fn git_failed(what: &str, err: impl std::fmt::Display) -> FindError {
    FindError::new(
        ErrorCode::FsError,
        format!("cannot read the git repository's {what}: {}", clip(&err.to_string(), 300)),
    )
}

/// A repository path (`/`-separated bytes) as a path on this system.
fn repo_path(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).replace('/', "\\"))
    }
}

/// The changed files of the repository holding `folder` (a real path on
/// disk), relative to `folder`; `interrupt` stops gix's work when the call
/// is aborted. With `all_letters`, both columns of each file's letters are
/// read whatever the scope (`git: 'modified'` alone reads only the work
/// tree's), so `gitStatus` shows what `git status` does.
pub fn compute(
    folder: &Path,
    scope: &GitScope,
    all_letters: bool,
    interrupt: Arc<std::sync::atomic::AtomicBool>,
) -> Result<ChangedPaths> {
    let repo = gix::discover(folder).map_err(|e| not_a_repository(folder, &first_line(&e.to_string())))?;
    let Some(workdir) = repo.workdir() else {
        return Err(not_a_repository(folder, "it is in a bare repository, which has no work tree"));
    };
    let workdir = std::fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_path_buf());
    let Ok(below) = folder.strip_prefix(&workdir) else {
        return Err(not_a_repository(folder, "it is outside the repository's work tree"));
    };
    // Inside `.git` itself: git answers "not a work tree" there too.
    if below.components().next().is_some_and(|c| c.as_os_str() == ".git") {
        return Err(not_a_repository(folder, "it is inside the `.git` folder"));
    }
    let (which, base_tree) = match scope {
        GitScope::Status(which) => (*which, None),
        GitScope::Since(name) => (GitWhich::Changed, Some(merge_base_tree(&repo, name)?)),
    };
    // What is read; `which` then chooses the files kept.
    let read = if all_letters { GitWhich::Changed } else { which };
    let mut status = repo
        .status(gix::progress::Discard)
        .map_err(|e| git_failed("status", e))?
        .should_interrupt_owned(interrupt)
        // A submodule is its own repository: its state is not the outer one's change.
        .index_worktree_submodules(None)
        .untracked_files(match read {
            GitWhich::Modified | GitWhich::Staged => gix::status::UntrackedFiles::None,
            GitWhich::Untracked | GitWhich::Changed => gix::status::UntrackedFiles::Files,
        });
    if let Some(tree) = base_tree {
        status = status.head_tree(tree);
    }
    // Only what is below the search folder is read (and walked for untracked
    // files): `top` so the process's directory does not move it, `literal`
    // so a folder name holding `*` or `[` is no glob.
    // (A path git cannot spell reads everything; the paths are narrowed below anyway.)
    let patterns: Vec<gix::bstr::BString> = match gix::path::into_bstr(below) {
        Ok(path) if !path.is_empty() => {
            let mut spec = gix::bstr::BString::from(":(top,literal)");
            spec.extend_from_slice(&gix::path::to_unix_separators_on_windows(path));
            vec![spec]
        }
        _ => Vec::new(),
    };
    let items = match read {
        GitWhich::Modified | GitWhich::Untracked => {
            status
                .into_index_worktree_iter(patterns)
                .map_err(|e| git_failed("status", e))?
                .map(|item| item.map(gix::status::Item::IndexWorktree).map_err(|e| git_failed("status", e)))
        }
        .collect::<Vec<_>>(),
        GitWhich::Staged | GitWhich::Changed => status
            .into_iter(patterns)
            .map_err(|e| git_failed("status", e))?
            .map(|item| item.map_err(|e| git_failed("status", e)))
            .collect::<Vec<_>>(),
    };
    let mut found: Vec<(Vec<u8>, Letters)> = Vec::new();
    for item in items {
        found.extend(letters_of(&item?));
    }
    let below_bytes = below.as_os_str().as_encoded_bytes();
    let paths = found.into_iter().filter_map(|(path, letters)| {
        let path = repo_path(&path);
        let rel = path.strip_prefix(below).ok()?;
        (!rel.as_os_str().is_empty() || below_bytes.is_empty()).then(|| (rel.to_path_buf(), letters))
    });
    Ok(ChangedPaths::keeping(paths, which))
}

/// The first line of an error's text (gix chains its causes below it).
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or(text).to_string()
}

/// One status item as a repository path and its letters, `None` for what
/// is no change of a file (an index entry that only needs its stat updated,
/// an ignored or tracked entry of the directory walk, a nested repository).
fn letters_of(item: &gix::status::Item) -> Option<(Vec<u8>, Letters)> {
    use gix::status::index_worktree::iter::Summary;
    match item {
        gix::status::Item::TreeIndex(change) => {
            use gix::diff::index::ChangeRef;
            let letter = match change {
                ChangeRef::Addition { .. } => 'A',
                ChangeRef::Deletion { .. } => 'D',
                ChangeRef::Modification { .. } => 'M',
                ChangeRef::Rewrite { copy: true, .. } => 'C',
                ChangeRef::Rewrite { .. } => 'R',
            };
            Some((change.location().to_vec(), Letters { staged: Some(letter), worktree: None }))
        }
        gix::status::Item::IndexWorktree(item) => {
            if let gix::status::index_worktree::Item::DirectoryContents { entry, .. } = item {
                if entry.disk_kind.is_some_and(|k| k.is_dir()) {
                    return None;
                }
            }
            let letter = match item.summary()? {
                Summary::Added => '?',
                Summary::Removed => 'D',
                Summary::Modified | Summary::TypeChange => 'M',
                Summary::Renamed => 'R',
                Summary::Copied => 'C',
                Summary::IntentToAdd => 'A',
                Summary::Conflict => 'U',
            };
            Some((item.rela_path().to_vec(), Letters { staged: None, worktree: Some(letter) }))
        }
    }
}

/// The tree of the merge base of HEAD and `name`: `invalid-argument` naming
/// the ref when it resolves to no commit.
fn merge_base_tree(repo: &gix::Repository, name: &str) -> Result<gix::ObjectId> {
    let unknown = |why: String| {
        FindError::invalid_argument(format!(
            "`changedSince` names '{}', which {why}; pass a branch, tag or commit the repository has (list them with `git branch -a` and `git tag`), such as 'origin/main' or 'HEAD~3'",
            clip(name, 200)
        ))
    };
    let id = repo
        .rev_parse_single(name)
        .map_err(|e| unknown(format!("is not a ref or commit here ({})", first_line(&e.to_string()))))?;
    let commit = id
        .object()
        .map_err(|e| git_failed("objects", e))?
        .peel_to_commit()
        .map_err(|_| unknown("is not a commit".to_string()))?;
    let head = match repo.head_commit() {
        Ok(head) => head,
        Err(_) => return Err(unknown("cannot be compared: HEAD has no commit yet".to_string())),
    };
    let base = repo
        .merge_base(head.id, commit.id)
        .map_err(|e| git_failed("history", e))?
        .ok_or_else(|| unknown("shares no history with HEAD".to_string()))?;
    let tree = repo
        .find_commit(base)
        .map_err(|e| git_failed("objects", e))?
        .tree_id()
        .map_err(|e| git_failed("objects", e))?;
    Ok(tree.detach())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_on_the_way_are_kept() {
        let set = ChangedPaths::from_paths([
            (PathBuf::from("a/b/c.txt"), Letters { staged: None, worktree: Some('M') }),
            (PathBuf::from("top.rs"), Letters { staged: Some('A'), worktree: None }),
        ]);
        assert!(set.keeps(Path::new("a"), true) && set.keeps(Path::new("a/b"), true));
        assert!(set.keeps(Path::new("a/b/c.txt"), false) && set.keeps(Path::new("top.rs"), false));
        assert!(!set.keeps(Path::new("a/b/d.txt"), false) && !set.keeps(Path::new("x"), true));
        assert!(!set.keeps(Path::new("a/b/c.txt"), true), "a file path is no folder to enter");
        assert_eq!(set.letters(Path::new("a/b/c.txt")).unwrap().porcelain(), " M");
        assert_eq!(set.len(), 2);
        let shown = set.porcelain_of(["a", "a/b/c.txt", "a/b/d.txt", "top.rs", "a/b/c.txt"]);
        assert_eq!(
            shown.into_iter().collect::<Vec<_>>(),
            [("a/b/c.txt".into(), " M".into()), ("top.rs".into(), "A ".into())]
        );
        let same = ChangedPaths::from_paths([
            (PathBuf::from("top.rs"), Letters { staged: Some('A'), worktree: None }),
            (PathBuf::from("a/b/c.txt"), Letters { staged: None, worktree: Some('M') }),
        ]);
        assert_eq!(set, same);
    }

    #[test]
    fn letters_join_both_columns() {
        let set = ChangedPaths::from_paths([
            (PathBuf::from("f"), Letters { staged: Some('M'), worktree: None }),
            (PathBuf::from("f"), Letters { staged: None, worktree: Some('M') }),
            (PathBuf::from("u"), Letters { staged: None, worktree: Some('?') }),
        ]);
        assert_eq!(set.letters(Path::new("f")).unwrap().porcelain(), "MM");
        assert_eq!(set.letters(Path::new("u")).unwrap().porcelain(), "??");
    }

    #[test]
    fn a_folder_outside_any_repository_is_refused() {
        let tree = crate::testing::TempTree::new("git-none");
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        // TempTree lives in the system temp folder, which is in no repository.
        let real = std::fs::canonicalize(&*tree).unwrap();
        match compute(&real, &GitScope::Status(GitWhich::Changed), false, flag) {
            Err(e) => assert_eq!(e.code, ErrorCode::NotARepository, "{}", e.message),
            Ok(_) => panic!("a temp folder is in no repository"),
        }
    }
}
