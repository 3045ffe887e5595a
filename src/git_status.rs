//! Git scoping (`git`, `changedSince`) and status (`gitStatus`) as values:
//! what a call asks of git (`GitAsk`, and `RefSpec` for the ref
//! `changedSince` names), the set of changed files a walk keeps
//! (`ChangedPaths`) and the status letters of the paths a result shows.
//! Reading that set from a repository takes gix (`git_changes`, with
//! `git_repo` and `git_since`), which a build without the `git` feature
//! leaves out; these values stay, since every walk and result carries them.
//!
//! What counts as changed follows `git status`: `staged` is HEAD's tree
//! against the index, `modified` is the index against the work tree,
//! `untracked` is what the work tree holds that the index does not and no
//! ignore rule hides (so gitignored files never count). `changedSince` is
//! the merge base with a ref against the index and the work tree, plus the
//! untracked files. A submodule or nested repository is its own repository:
//! its files are never in the outer one's set (search from inside it to scope
//! to its own changes). Deleted files are on no disk, so no walk lists them.

use crate::error::clip;
use crate::path_bytes::posix_string;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Whether a real path lies inside the call's roots (see `sandbox`).
pub type InsideRoots<'a> = &'a dyn Fn(&Path) -> bool;

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

#[derive(Debug, Clone, Default, PartialEq)]
struct Changed {
    files: HashMap<PathBuf, Letters>,
    folders: HashSet<PathBuf>,
    /// The files by their path as results show it (`/`-separated, lossy for
    /// a name that is not UTF-8), for the letters of a shown path.
    shown: HashMap<String, Letters>,
    /// Kept files whose work-tree letter was given without running the
    /// filter driver their attributes name (see `git_repo`), and the names
    /// of the repository's drivers.
    unfiltered: Vec<PathBuf>,
    drivers: Vec<String>,
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

    /// The letters of a file by its path as a result shows it.
    fn letters_shown(&self, shown: &str) -> Option<Letters> {
        self.letters(Path::new(shown)).or_else(|| self.0.shown.get(shown).copied())
    }

    /// The sentence a result carries when some kept file was judged without
    /// running its filter driver: git, which runs it, may call it unchanged.
    pub fn driver_note(&self) -> Option<String> {
        let first = self.0.unfiltered.first()?;
        let count = self.0.unfiltered.len();
        let (files, count_them) = match count {
            1 => ("1 file".to_string(), "counts"),
            n => (format!("{n} files"), "count"),
        };
        let drivers = self.0.drivers.iter().map(|d| format!("`{}`", clip(d, 40))).collect::<Vec<_>>().join(", ");
        Some(format!(
            "A search runs no program, so the repository's filter drivers ({drivers}) were not run: {files} they apply to {count_them} as modified by size or time and raw contents (e.g. `{}`), where `git status` may call {} unchanged.",
            clip(&posix_string(first), 200),
            if count == 1 { "it" } else { "some" },
        ))
    }

    /// The `git status --porcelain` letters of each of `paths` (relative to
    /// the search folder, `/`-separated) that is changed, by path; a path
    /// git has no change of is left out.
    pub fn porcelain_of<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, String> {
        paths.into_iter().filter_map(|path| Some((path.to_string(), self.letters_shown(path)?.porcelain()))).collect()
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
    pub fn keeping(paths: impl IntoIterator<Item = (PathBuf, Letters)>, which: GitWhich) -> ChangedPaths {
        let mut changed = Changed::default();
        for (path, letters) in paths {
            let slot = changed.files.entry(path).or_default();
            slot.staged = slot.staged.or(letters.staged);
            slot.worktree = slot.worktree.or(letters.worktree);
        }
        changed.files.retain(|_, letters| letters.is(which));
        changed.shown = changed.files.iter().map(|(path, l)| (posix_string(path), *l)).collect();
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

    /// This set, noting the files among `unfiltered` it keeps as judged
    /// without their filter driver (one of `drivers`).
    pub fn with_unfiltered(self, unfiltered: Vec<PathBuf>, drivers: Vec<String>) -> ChangedPaths {
        if unfiltered.is_empty() {
            return self;
        }
        let mut changed = Arc::unwrap_or_clone(self.0);
        changed.unfiltered = unfiltered.into_iter().filter(|p| changed.files.contains_key(p)).collect();
        changed.unfiltered.sort();
        changed.drivers = drivers;
        ChangedPaths(Arc::new(changed))
    }
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
}
