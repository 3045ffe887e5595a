//! Which files of the repository that holds a search folder are changed,
//! read with gix (no `git` binary is run): the status of the index against
//! HEAD's tree (or the merge base `changedSince` names, see `git_since`) and
//! of the work tree against the index, and the untracked files, as the set
//! a walk keeps (`ChangedPaths`). The set is computed once per call from
//! the repository's index, objects and work tree, so a live index answers
//! from the same files as the disk does. Built with the `git` feature only:
//! without it `git_scope` refuses every option that would come here.

use crate::error::Result;
use crate::git_repo::{git_failed, not_a_repository, Opened};
use crate::git_since::{interrupted, merge_base_tree};
use crate::git_status::{ChangedPaths, GitScope, GitWhich, InsideRoots, Letters};
use crate::path_bytes::repo_path;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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
