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

use crate::error::{clip, Result};
use crate::git_repo::{git_failed, not_a_repository, InsideRoots, Opened};
use crate::git_since::{interrupted, merge_base_tree};
use crate::path_bytes::{posix_string, repo_path};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
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
    fn keeping(paths: impl IntoIterator<Item = (PathBuf, Letters)>, which: GitWhich) -> ChangedPaths {
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
    fn with_unfiltered(self, unfiltered: Vec<PathBuf>, drivers: Vec<String>) -> ChangedPaths {
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

/// The changed files of the repository holding `folder` (a real path on
/// disk), relative to `folder`; with `roots`, a repository not wholly inside
/// them is refused (see `git_repo`). `interrupt` stops the work when the
/// call is aborted or its deadline passes: gix's status and directory walk
/// watch it, and so do the ref's resolution and the merge base here. With
/// `all_letters`, both columns of each file's letters are read whatever the
/// scope (`git: 'modified'` alone reads only the work tree's), so
/// `gitStatus` shows what `git status` does.
pub fn compute(
    folder: &Path,
    roots: Option<InsideRoots<'_>>,
    scope: &GitScope,
    all_letters: bool,
    interrupt: Arc<AtomicBool>,
) -> Result<ChangedPaths> {
    let Opened { repo, workdir, drivers } = crate::git_repo::open(folder, roots)?;
    let Ok(below) = folder.strip_prefix(&workdir) else {
        return Err(not_a_repository(folder, "it is outside the repository's work tree"));
    };
    // Inside `.git` itself: git answers "not a work tree" there too.
    if below.components().next().is_some_and(|c| c.as_os_str() == ".git") {
        return Err(not_a_repository(folder, "it is inside the `.git` folder"));
    }
    let (which, base_tree) = match scope {
        GitScope::Status(which) => (*which, None),
        GitScope::Since(name) => (GitWhich::Changed, Some(merge_base_tree(&repo, name, &interrupt)?)),
    };
    // What is read; `which` then chooses the files kept.
    let read = if all_letters { GitWhich::Changed } else { which };
    let index = full_index(&repo, &interrupt)?;
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
    // The untracked files' walk runs beside the status read (gix runs them
    // side by side too), on a handle of its own.
    let walk_untracked = matches!(read, GitWhich::Untracked | GitWhich::Changed);
    let (status, untracked) = std::thread::scope(|scope| {
        let untracked = walk_untracked.then(|| {
            let (repo, workdir, index, patterns, interrupt) = (repo.clone(), &workdir, &index, &patterns, &interrupt);
            scope.spawn(move || untracked_files(&repo, workdir, index, patterns, interrupt))
        });
        let status = match read {
            GitWhich::Untracked => Ok(Vec::new()),
            _ => status_letters(&repo, &index, &patterns, base_tree, read, &interrupt),
        };
        let untracked =
            untracked.map(|walk| walk.join().unwrap_or_else(|_| Err(git_failed("work tree", "the walk failed"))));
        (status, untracked)
    });
    let mut found = status?;
    if let Some(untracked) = untracked {
        found.extend(untracked?.into_iter().map(|path| (path, Letters { staged: None, worktree: Some('?') })));
    }
    let unfiltered = match drivers.is_empty() {
        true => Vec::new(),
        false => judged_without_driver(&repo, &index, &drivers, &found)?,
    };
    let below_bytes = below.as_os_str().as_encoded_bytes();
    let relative = |path: &[u8]| -> Option<PathBuf> {
        let path = repo_path(path);
        let rel = path.strip_prefix(below).ok()?;
        (!rel.as_os_str().is_empty() || below_bytes.is_empty()).then(|| rel.to_path_buf())
    };
    let unfiltered = unfiltered.iter().filter_map(|path| relative(path)).collect();
    let paths = found.into_iter().filter_map(|(path, letters)| Some((relative(&path)?, letters)));
    Ok(ChangedPaths::keeping(paths, which).with_unfiltered(unfiltered, drivers))
}

/// The staged and modified files below `patterns` (the index against the
/// work tree, and `base_tree`, else HEAD's tree, against the index), with
/// their letters; only the work tree's side when `read` is `Modified`.
fn status_letters(
    repo: &gix::Repository,
    index: &gix::index::State,
    patterns: &[gix::bstr::BString],
    base_tree: Option<gix::ObjectId>,
    read: GitWhich,
    interrupt: &Arc<AtomicBool>,
) -> Result<Vec<(Vec<u8>, Letters)>> {
    let mut status = repo
        .status(gix::progress::Discard)
        .map_err(|e| git_failed("status", e))?
        .should_interrupt_owned(interrupt.clone())
        // A submodule is its own repository: its state is not the outer one's change.
        .index_worktree_submodules(None)
        // Untracked files come from `untracked_files`, whatever `status.showUntrackedFiles` says.
        .untracked_files(gix::status::UntrackedFiles::None)
        .index(gix::worktree::IndexPersistedOrInMemory::InMemory(gix::index::File::from_state(
            index.clone(),
            repo.index_path(),
        )));
    if let Some(tree) = base_tree {
        status = status.head_tree(tree);
    }
    let items = match read {
        GitWhich::Modified => status
            .into_index_worktree_iter(patterns.to_vec())
            .map_err(|e| git_failed("status", e))?
            .map(|item| item.map(gix::status::Item::IndexWorktree).map_err(|e| git_failed("status", e)))
            .collect::<Vec<_>>(),
        _ => status
            .into_iter(patterns.to_vec())
            .map_err(|e| git_failed("status", e))?
            .map(|item| item.map_err(|e| git_failed("status", e)))
            .collect::<Vec<_>>(),
    };
    let mut found = Vec::new();
    for item in items {
        found.extend(letters_of(&item?));
    }
    Ok(found)
}

/// The repository's index with every entry a file: a sparse index's
/// folder entries (outside the sparse-checkout cone) are replaced by the
/// files of their trees, as git expands it, since gix compares only full
/// indexes. A repository with no index yet has an empty one.
fn full_index(repo: &gix::Repository, interrupt: &AtomicBool) -> Result<gix::index::State> {
    let index = repo.index_or_empty().map_err(|e| git_failed("index", e))?;
    if !index.is_sparse() {
        return Ok(gix::index::State::clone(&index));
    }
    let mut full = gix::index::State::new(repo.object_hash());
    for entry in index.entries() {
        let path = entry.path(&index);
        if !entry.mode.is_sparse() {
            full.dangerously_push_entry(entry.stat, entry.id, entry.flags, entry.mode, path);
            continue;
        }
        if interrupt.load(Ordering::Relaxed) {
            return Err(interrupted());
        }
        let subtree = gix::index::State::from_tree(&entry.id, &repo.objects, Default::default())
            .map_err(|e| git_failed("sparse index", e))?;
        let mut prefix = path.to_vec();
        if !prefix.ends_with(b"/") {
            prefix.push(b'/');
        }
        for sub in subtree.entries() {
            let mut joined = prefix.clone();
            joined.extend_from_slice(sub.path(&subtree));
            let flags = sub.flags | entry.flags;
            full.dangerously_push_entry(sub.stat, sub.id, flags, sub.mode, joined.as_slice().into());
        }
    }
    full.sort_entries();
    Ok(full)
}

/// The untracked files below the pathspec, as `git status --untracked-files=all`
/// lists them: what the work tree holds that `index` does not and no ignore
/// rule hides. Files outside the sparse-checkout cone count as git counts
/// them, so the walk sees the index without its skip-worktree marks (gix
/// would otherwise pass over a folder whose files are all outside the cone).
/// gix walks nested repositories like folders, so it never reads their `.git`
/// (which may lead anywhere); their files are then dropped here, as git
/// lists no file of a nested repository.
fn untracked_files(
    repo: &gix::Repository,
    workdir: &Path,
    index: &gix::index::State,
    patterns: &[gix::bstr::BString],
    interrupt: &AtomicBool,
) -> Result<Vec<Vec<u8>>> {
    use gix::dir::walk::EmissionMode;
    let skip_worktree = gix::index::entry::Flags::SKIP_WORKTREE;
    let unmarked;
    let index = match index.entries().iter().any(|e| e.flags.contains(skip_worktree)) {
        true => {
            let mut copy = index.clone();
            copy.entries_mut().iter_mut().for_each(|e| e.flags.remove(skip_worktree));
            unmarked = copy;
            &unmarked
        }
        false => index,
    };
    let options = repo
        .dirwalk_options()
        .map_err(|e| git_failed("work tree", e))?
        .emit_untracked(EmissionMode::Matching)
        .emit_ignored(None)
        .emit_tracked(false)
        .emit_pruned(false)
        .emit_empty_directories(false)
        .recurse_repositories(true)
        .classify_untracked_bare_repositories(false);
    let mut files = UntrackedFiles(Vec::new());
    repo.dirwalk(index, patterns, interrupt, options, &mut files).map_err(|e| {
        if interrupt.load(Ordering::Relaxed) {
            interrupted()
        } else {
            git_failed("work tree", e)
        }
    })?;
    let mut in_nested: HashMap<Vec<u8>, bool> = HashMap::new();
    let mut holds_git = |folder: &[u8]| -> bool {
        *in_nested
            .entry(folder.to_vec())
            .or_insert_with(|| std::fs::symlink_metadata(workdir.join(repo_path(folder)).join(".git")).is_ok())
    };
    let mut kept = files.0;
    kept.retain(|path| {
        let mut end = path.len();
        while let Some(slash) = path[..end].iter().rposition(|&b| b == b'/') {
            if holds_git(&path[..slash]) {
                return false;
            }
            end = slash;
        }
        true
    });
    Ok(kept)
}

/// Collects the untracked files (and symlinks) a directory walk emits.
struct UntrackedFiles(Vec<Vec<u8>>);

impl gix::dir::walk::Delegate for UntrackedFiles {
    fn emit(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        _collapsed_directory_status: Option<gix::dir::entry::Status>,
    ) -> gix::dir::walk::Action {
        use gix::dir::entry::{Kind, Status};
        if entry.status == Status::Untracked && matches!(entry.disk_kind, Some(Kind::File | Kind::Symlink)) {
            self.0.push(entry.rela_path.to_vec());
        }
        std::ops::ControlFlow::Continue(())
    }
}

/// The files among `found` whose work-tree letter gix gave from their raw
/// bytes where a filter driver (one of `drivers`, which are not run) would
/// have cleaned them first: their `filter` attribute names one of them.
fn judged_without_driver(
    repo: &gix::Repository,
    index: &gix::index::State,
    drivers: &[String],
    found: &[(Vec<u8>, Letters)],
) -> Result<Vec<Vec<u8>>> {
    use gix::bstr::ByteSlice;
    let modified: Vec<&Vec<u8>> =
        found.iter().filter(|(_, l)| l.worktree.is_some_and(|w| w != '?')).map(|(path, _)| path).collect();
    if modified.is_empty() {
        return Ok(Vec::new());
    }
    let mut stack = repo
        .attributes_only(index, gix::worktree::stack::state::attributes::Source::WorktreeThenIdMapping)
        .map_err(|e| git_failed("attributes", e))?;
    let mut outcome = stack.selected_attribute_matches(["filter"]);
    let mut judged = Vec::new();
    for path in modified {
        let platform = stack.at_entry(path.as_bstr(), None).map_err(|e| git_failed("attributes", e))?;
        platform.matching_attributes(&mut outcome);
        let named = outcome.iter_selected().any(|m| match m.assignment.state {
            gix::attrs::StateRef::Value(value) => drivers.iter().any(|d| d.as_bytes() == value.as_bstr().as_bytes()),
            _ => false,
        });
        if named {
            judged.push(path.clone());
        }
    }
    Ok(judged)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

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
        match compute(&real, None, &GitScope::Status(GitWhich::Changed), false, flag) {
            Err(e) => assert_eq!(e.code, ErrorCode::NotARepository, "{}", e.message),
            Ok(_) => panic!("a temp folder is in no repository"),
        }
    }
}
