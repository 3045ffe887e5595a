//! What a walk left out, as results carry it (the `skipped` option): the
//! walk's `Tally` grouped by reason, with the first folders of each, and for
//! a folder an ignore file hid, the line that hides it, looked up after the
//! walk by reading only the ignore files on the folder's way (as `explain`
//! follows a path), so the walk itself does no extra work for it.
//!
//! Counting is on unless `skipped: false`: it costs no extra walk (see
//! `bench:skipped`). Without the option a result carries `skipped` only
//! when its answer is short (empty or cut), the case where its text names
//! what was left out; the ignore lines are looked up only then.

use crate::args::{wrong, Reader, Value};
use crate::dir::Dir;
use crate::error::Result;
use crate::gitignore::{rules_above_on_disk, FolderRules, GitEnv, IgnoreFiles, IgnoreLine, Rules};
use crate::result::{SkipReason, SkippedGroup, Tally};
use crate::source::Root;
use crate::walk::WalkRules;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// When a result carries `skipped`: the option's three values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkippedReport {
    /// `skipped: false`: nothing is counted.
    Never,
    /// The option not given: only with a short answer (empty or cut).
    WhenShort,
    /// `skipped: true`: always.
    Always,
}

impl SkippedReport {
    pub fn parse(r: &Reader) -> Result<SkippedReport> {
        match r.get("skipped") {
            Value::Absent => Ok(SkippedReport::WhenShort),
            Value::Bool(true) => Ok(SkippedReport::Always),
            Value::Bool(false) => Ok(SkippedReport::Never),
            other => Err(wrong("skipped", "true or false", other)),
        }
    }

    /// Whether the walk counts what it leaves out.
    pub fn counts(self) -> bool {
        self != SkippedReport::Never
    }

    /// Whether a result carries `skipped`; `short` tells whether its answer
    /// is empty or cut (asked only when that decides).
    pub fn carries(self, short: impl FnOnce() -> bool) -> bool {
        match self {
            SkippedReport::Never => false,
            SkippedReport::WhenShort => short(),
            SkippedReport::Always => true,
        }
    }
}

/// How many folders `skipped` names for each reason.
pub const SKIPPED_FOLDERS: usize = 5;

/// A walk's tally as results carry it: the reasons in order, the first
/// folders of each, and for a folder an ignore file hid (on the local
/// disk), the line that hides it, found as `explain` finds it (reading
/// only the folders on its way).
pub fn groups(tally: &Tally, root: &Root, rules: &WalkRules) -> Vec<SkippedGroup> {
    let mut groups = tally.groups(SKIPPED_FOLDERS);
    // A live index's folder is on the local disk too: its ignore files are read there.
    let Some((dir, real)) = root.folder_on_disk() else { return groups };
    let dir = dir.as_ref();
    if !rules.gitignore || !groups.iter().any(|g| g.reason == SkipReason::Ignored) {
        return groups;
    }
    // The rules above the root are the same for every folder: read once.
    let git = GitEnv::from_process();
    let Ok(above) = rules_above_on_disk(&real, &git) else { return groups };
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
