//! What a walk left out, as results carry it (the `skipped` option): the
//! walk's `Tally` grouped by reason, with the first folders of each, and for
//! a folder an ignore file hid, the line that hides it, looked up after the
//! walk by reading only the ignore files on the folder's way (as `explain`
//! follows a path), so the walk itself does no extra work for it.

use crate::dir::Dir;
use crate::gitignore::{rules_above_on_disk, FolderRules, GitEnv, IgnoreFiles, IgnoreLine, Rules};
use crate::source::{Backend, Root};
use crate::walk::{SkipReason, SkippedGroup, Tally, WalkRules};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// How many folders `skipped` names for each reason.
pub const SKIPPED_FOLDERS: usize = 5;

/// A walk's tally as results carry it: the reasons in order, the first
/// folders of each, and for a folder an ignore file hid (on the local
/// disk), the line that hides it, found as `explain` finds it (reading
/// only the folders on its way).
pub fn groups(tally: &Tally, root: &Root, rules: &WalkRules) -> Vec<SkippedGroup> {
    let mut groups = tally.groups(SKIPPED_FOLDERS);
    // A live index's folder is on the local disk too: its ignore files are read there.
    let opened;
    let dir = match &root.backend {
        Backend::Disk(dir) => dir.as_ref(),
        Backend::Index(..) => match Dir::open(&root.path) {
            Ok(dir) => {
                opened = dir;
                &opened
            }
            Err(_) => return groups,
        },
        Backend::Storage(_) => return groups,
    };
    if !rules.gitignore || !groups.iter().any(|g| g.reason == SkipReason::Ignored) {
        return groups;
    }
    // The rules above the root are the same for every folder: read once.
    let git = GitEnv::from_process();
    let Ok(above) = rules_above_on_disk(&root.path, &git) else { return groups };
    for group in groups.iter_mut().filter(|g| g.reason == SkipReason::Ignored) {
        for folder in &mut group.folders {
            folder.rule = ignore_line(dir, &above, Path::new(&folder.path), &git).map(|line| line.cite());
        }
    }
    groups
}

/// The ignore line that decides for the folder `rel` below the walk's root
/// `dir`, whose rules from above are `above`; `None` when a folder on the
/// way cannot be read.
fn ignore_line(dir: &Dir, above: &Rules, rel: &Path, git: &GitEnv) -> Option<IgnoreLine> {
    let mut rules = above.clone();
    let names: Vec<&OsStr> = rel.iter().collect();
    let mut folder: Option<Dir> = None;
    let mut at = PathBuf::new();
    for (i, name) in names.iter().enumerate() {
        let here: &Dir = folder.as_ref().unwrap_or(dir);
        let prefix = if at.as_os_str().is_empty() { 0 } else { at.as_os_str().len() + 1 };
        let files = IgnoreFiles::read(here, git).ok()?;
        rules = rules.enter(FolderRules::compile(files).as_ref(), prefix);
        at.push(name);
        if i + 1 == names.len() {
            return rules.matching_lines(&at, true).into_iter().next();
        }
        folder = Some(here.open_dir(name).ok()?);
    }
    None
}
