//! The parallel directory walk, on `ignore`'s work-stealing walker: ignore
//! files, hidden entries, `exclude` globs, depth, always-skipped folders
//! (`.git/`) and symlinks are all decided here. Each walker thread gets its
//! own selector (so it can own buffers), which decides which entries become
//! results; each thread keeps its own batch and hands it over in one lock.

use crate::cancel::Cancel;
use crate::entry::EntryKind;
use crate::error::{ErrorCode, FindError, Result};
use crate::pattern::{normalize_glob, NameMatcher, PatternMode};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use std::io::ErrorKind;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Which entries the walk skips before any pattern is tested.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkRules {
    /// Include dotfiles and dot-folders.
    pub hidden: bool,
    /// Apply `.gitignore` (nested, negations), `.ignore` and `.git/info/exclude`.
    pub gitignore: bool,
    /// Extra globs to leave out, gitignore-style (see `Excludes`).
    pub exclude: Vec<String>,
    pub case_sensitive: bool,
    /// 0 = only the direct children of the root.
    pub max_depth: Option<usize>,
    /// Folder names never entered, at any depth (`.git` is also skipped as a file).
    pub skip_dirs: &'static [&'static str],
}

/// What a walk returns: the selected entries, in no defined order, and the
/// folders it did not enter because of `skip_dirs` (relative, `.git` left out).
#[derive(Debug)]
pub struct Walked<T> {
    pub found: Vec<T>,
    pub skipped: Vec<String>,
}

impl WalkRules {
    /// The same rules with every skip that the model could turn off turned off.
    pub fn relaxed(&self) -> WalkRules {
        WalkRules { hidden: true, gitignore: false, exclude: Vec::new(), ..self.clone() }
    }

    /// True when some rule hides entries that an option could bring back.
    pub fn skips_anything(&self) -> bool {
        !self.hidden || self.gitignore || !self.exclude.is_empty()
    }
}

/// The compiled `exclude` globs. Each is matched the way a `.gitignore` line
/// is: without `/` against every name at any depth, with `/` against the path
/// from the root; an excluded folder is not entered.
#[derive(Debug, Clone, Default)]
pub struct Excludes(Vec<NameMatcher>);

impl Excludes {
    pub fn new(rules: &WalkRules) -> Result<Excludes> {
        let compile = |glob: &String| {
            let trimmed = glob.strip_prefix("./").unwrap_or(glob);
            if trimmed.is_empty() {
                return Err(FindError::invalid_argument(
                    "`exclude` holds an empty glob; remove it or write a glob such as 'dist' or '*.log'",
                ));
            }
            let mode =
                if normalize_glob(trimmed).contains('/') { PatternMode::PathGlob } else { PatternMode::BaseGlob };
            NameMatcher::new(trimmed, mode, rules.case_sensitive)
                .map_err(|e| FindError::new(e.code, format!("in `exclude`: {}", e.message)))
        };
        rules.exclude.iter().map(compile).collect::<Result<_>>().map(Excludes)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn is_excluded(&self, relative: &Path) -> bool {
        self.0.iter().any(|m| m.is_match(relative))
    }
}

/// The folder holding `.git` at or above `dir`, if any.
fn repository_root(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| d.join(".git").exists())
}

/// Walks `root` (a real, absolute directory) in parallel. `new_selector`
/// makes one selector per walker thread; a selector gets each entry below the
/// root with its relative path and kind, and returns what to keep.
pub fn walk<T, M, S>(root: &Path, rules: &WalkRules, cancel: &Cancel, new_selector: M) -> Result<Walked<T>>
where
    T: Send,
    M: Fn() -> S + Sync,
    S: FnMut(&Path, EntryKind, &DirEntry) -> Option<T> + Send,
{
    cancel.check()?;
    let mut builder = WalkBuilder::new(root);
    // Ignore files apply from the root up to the repository boundary; outside
    // any repository, only those at and below the root apply.
    let in_repository = rules.gitignore && repository_root(root).is_some();
    builder
        .hidden(!rules.hidden)
        .ignore(rules.gitignore)
        .git_ignore(rules.gitignore)
        .git_exclude(rules.gitignore)
        .git_global(false)
        .require_git(in_repository)
        .parents(in_repository)
        .follow_links(false)
        .max_depth(rules.max_depth.map(|d| d.saturating_add(1)))
        .threads(thread_count());
    let skipped = Arc::new(Mutex::new(Vec::new()));
    let excludes = Excludes::new(rules)?;
    if !rules.skip_dirs.is_empty() || !rules.exclude.is_empty() {
        let (skip_dirs, skipped, prefix) = (rules.skip_dirs, Arc::clone(&skipped), prefix_len(root));
        builder.filter_entry(move |entry| {
            let name = entry.file_name();
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if skip_dirs.iter().any(|skip| name == *skip) && (is_dir || name == ".git") {
                if name != ".git" {
                    if let Some(relative) = relative_path(entry.path(), prefix) {
                        skipped.lock().unwrap_or_else(|p| p.into_inner()).push(posix_string(relative));
                    }
                }
                return false;
            }
            excludes.is_empty() || relative_path(entry.path(), prefix).is_none_or(|rel| !excludes.is_excluded(rel))
        });
    }
    let shared =
        Shared { found: Mutex::new(Vec::new()), failure: Mutex::new(None), root, prefix: prefix_len(root), cancel };
    builder.build_parallel().visit(&mut VisitorBuilder { shared: &shared, new_selector: &new_selector });
    if let Some(err) = shared.failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(err);
    }
    cancel.check()?;
    let mut skipped = std::mem::take(&mut *skipped.lock().unwrap_or_else(|p| p.into_inner()));
    skipped.sort_unstable();
    Ok(Walked { found: shared.found.into_inner().unwrap_or_else(|p| p.into_inner()), skipped })
}

/// The length of `root` and the separator after it in every walked path.
fn prefix_len(root: &Path) -> usize {
    let len = root.as_os_str().len();
    if root.as_os_str().to_string_lossy().ends_with(std::path::MAIN_SEPARATOR) {
        len
    } else {
        len + 1
    }
}

/// An entry's path relative to the walk's root. The walker builds every path
/// as `root` + separator + rest, so cutting bytes is exact, and much cheaper
/// than `Path::strip_prefix`, which compares component by component.
#[inline]
fn relative_path(path: &Path, prefix: usize) -> Option<&Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let rest = path.as_os_str().as_bytes().get(prefix..).filter(|rest| !rest.is_empty())?;
        Some(Path::new(std::ffi::OsStr::from_bytes(rest)))
    }
    #[cfg(not(unix))]
    {
        let rest = path.as_os_str().to_str()?.get(prefix..).filter(|rest| !rest.is_empty())?;
        Some(Path::new(rest))
    }
}

/// A relative path as results show it: `/` separators, lossy UTF-8.
pub fn posix_string(relative: &Path) -> String {
    let text = relative.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

fn thread_count() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).min(12)
}

const BATCH: usize = 512;
const CANCEL_EVERY: u32 = 256;

struct Shared<'a, T> {
    found: Mutex<Vec<T>>,
    failure: Mutex<Option<FindError>>,
    root: &'a Path,
    /// Bytes of `root` plus its separator: where relative paths start.
    prefix: usize,
    cancel: &'a Cancel,
}

struct VisitorBuilder<'a, T, M> {
    shared: &'a Shared<'a, T>,
    new_selector: &'a M,
}

impl<'s, T, M, S> ParallelVisitorBuilder<'s> for VisitorBuilder<'s, T, M>
where
    T: Send,
    M: Fn() -> S + Sync,
    S: FnMut(&Path, EntryKind, &DirEntry) -> Option<T> + Send + 's,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor { shared: self.shared, select: (self.new_selector)(), batch: Vec::new(), seen: 0 })
    }
}

struct Visitor<'a, T, S> {
    shared: &'a Shared<'a, T>,
    select: S,
    batch: Vec<T>,
    seen: u32,
}

impl<T, S> Visitor<'_, T, S> {
    fn flush(&mut self) {
        if !self.batch.is_empty() {
            let mut found = self.shared.found.lock().unwrap_or_else(|p| p.into_inner());
            found.append(&mut self.batch);
        }
    }

    fn fail(&self, err: FindError) -> WalkState {
        let mut failure = self.shared.failure.lock().unwrap_or_else(|p| p.into_inner());
        failure.get_or_insert(err);
        WalkState::Quit
    }
}

impl<T, S> Drop for Visitor<'_, T, S> {
    fn drop(&mut self) {
        self.flush();
    }
}

impl<T, S> ParallelVisitor for Visitor<'_, T, S>
where
    T: Send,
    S: FnMut(&Path, EntryKind, &DirEntry) -> Option<T> + Send,
{
    fn visit(&mut self, entry: std::result::Result<DirEntry, ignore::Error>) -> WalkState {
        self.seen = self.seen.wrapping_add(1);
        if self.seen.is_multiple_of(CANCEL_EVERY) {
            if let Err(err) = self.shared.cancel.check() {
                return self.fail(err);
            }
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                return match classify(&err, self.shared.root) {
                    None => WalkState::Continue,
                    Some(fatal) => self.fail(fatal),
                }
            }
        };
        if entry.depth() == 0 {
            return WalkState::Continue;
        }
        let Some(kind) = entry.file_type().and_then(EntryKind::from_file_type) else {
            return WalkState::Continue;
        };
        let Some(relative) = relative_path(entry.path(), self.shared.prefix) else {
            return WalkState::Continue;
        };
        if let Some(found) = (self.select)(relative, kind, &entry) {
            self.batch.push(found);
            if self.batch.len() >= BATCH {
                self.flush();
            }
        }
        WalkState::Continue
    }
}

/// Decides what a walk error means: `None` to skip the entry (it vanished,
/// is not a directory, denies permission below the root, or is an unreadable
/// ignore file), or the error that fails the whole call.
fn classify(err: &ignore::Error, root: &Path) -> Option<FindError> {
    // Errors without a depth come from reading ignore files: never fatal.
    let depth = err.depth()?;
    let io = err.io_error()?;
    match io.kind() {
        ErrorKind::NotFound | ErrorKind::NotADirectory => None,
        ErrorKind::PermissionDenied if depth == 0 => Some(FindError::new(
            ErrorCode::PermissionDenied,
            format!("permission denied: the OS refused to list `{}`", root.display()),
        )),
        ErrorKind::PermissionDenied => None,
        _ => Some(FindError::new(
            ErrorCode::FsError,
            format!("cannot list a directory under `{}`: {err}", root.display()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::Found;
    use std::fs;

    fn tree(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("af-walk-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    fn rules() -> WalkRules {
        WalkRules {
            hidden: true,
            gitignore: true,
            exclude: vec![],
            case_sensitive: false,
            max_depth: None,
            skip_dirs: &[".git"],
        }
    }

    fn paths(root: &Path, rules: &WalkRules) -> Vec<String> {
        let mut out: Vec<String> = walk(root, rules, &Cancel::never(), || {
            |rel: &Path, kind, _: &DirEntry| Some(Found::new(rel.to_string_lossy().into_owned(), kind, None))
        })
        .unwrap()
        .found
        .into_iter()
        .map(|f| f.path)
        .collect();
        out.sort();
        out
    }

    #[test]
    fn gitignore_nested_with_negation_and_git_dir_skipped() {
        let root = tree("gi");
        fs::create_dir_all(root.join(".git/info")).unwrap();
        fs::write(root.join(".git/info/exclude"), "secret.txt\n").unwrap();
        fs::write(root.join(".gitignore"), "*.log\nbuild/\n").unwrap();
        fs::create_dir_all(root.join("sub/build")).unwrap();
        fs::write(root.join("sub/.gitignore"), "!keep.log\n").unwrap();
        fs::write(root.join("sub/keep.log"), "").unwrap();
        fs::write(root.join("sub/drop.log"), "").unwrap();
        fs::write(root.join("sub/build/x"), "").unwrap();
        fs::write(root.join("secret.txt"), "").unwrap();
        fs::write(root.join(".ignore"), "notes.md\n").unwrap();
        fs::write(root.join("notes.md"), "").unwrap();
        fs::write(root.join("a.txt"), "").unwrap();
        assert_eq!(
            paths(&root, &rules()),
            vec![".gitignore", ".ignore", "a.txt", "sub", "sub/.gitignore", "sub/keep.log"]
        );
        let all = paths(&root, &WalkRules { gitignore: false, ..rules() });
        assert!(all.contains(&"sub/build/x".to_string()));
        assert!(!all.iter().any(|p| p.starts_with(".git/") || p == ".git"));
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn hidden_exclude_and_depth() {
        let root = tree("hx");
        fs::create_dir_all(root.join(".cache/deep")).unwrap();
        fs::create_dir_all(root.join("src/dist")).unwrap();
        fs::write(root.join(".cache/deep/f"), "").unwrap();
        fs::write(root.join("src/dist/bundle.js"), "").unwrap();
        fs::write(root.join("src/a.LOG"), "").unwrap();
        fs::write(root.join("top.txt"), "").unwrap();
        let no_hidden = paths(&root, &WalkRules { hidden: false, ..rules() });
        assert_eq!(no_hidden, vec!["src", "src/a.LOG", "src/dist", "src/dist/bundle.js", "top.txt"]);
        let excluded = paths(&root, &WalkRules { exclude: vec!["dist".into(), "*.log".into()], ..rules() });
        assert!(!excluded.iter().any(|p| p.contains("dist") || p.ends_with(".LOG")), "{excluded:?}");
        let shallow = paths(&root, &WalkRules { max_depth: Some(0), ..rules() });
        assert_eq!(shallow, vec![".cache", "src", "top.txt"]);
        fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_listed_not_followed() {
        let root = tree("ln");
        fs::create_dir_all(root.join("d")).unwrap();
        fs::write(root.join("d/f"), "").unwrap();
        std::os::unix::fs::symlink(&root, root.join("d/loop")).unwrap();
        std::os::unix::fs::symlink("/nonexistent", root.join("dangling")).unwrap();
        assert_eq!(paths(&root, &rules()), vec!["d", "d/f", "d/loop", "dangling"]);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn cancelled_walk_aborts() {
        let root = tree("cx");
        for i in 0..600 {
            fs::write(root.join(format!("f{i}")), "").unwrap();
        }
        let flag = crate::cancel::CancelFlag::default();
        flag.cancel();
        let err =
            walk(&root, &rules(), &Cancel::new(flag, None), || |_: &Path, _, _: &DirEntry| None::<()>).unwrap_err();
        assert_eq!(err.code, ErrorCode::Aborted);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn relative_paths_cut_the_root_prefix() {
        let root = Path::new("/work/tree");
        let prefix = prefix_len(root);
        assert_eq!(relative_path(Path::new("/work/tree/a/b.txt"), prefix), Some(Path::new("a/b.txt")));
        assert_eq!(relative_path(Path::new("/work/tree"), prefix), None);
        let slash = prefix_len(Path::new("/"));
        assert_eq!(relative_path(Path::new("/etc"), slash), Some(Path::new("etc")));
    }

    #[test]
    fn bad_exclude_globs_are_reported() {
        let root = tree("bx");
        let err = walk(&root, &WalkRules { exclude: vec!["[".into()], ..rules() }, &Cancel::never(), || {
            |_: &Path, _, _: &DirEntry| None::<()>
        })
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidPattern);
        let err = walk(&root, &WalkRules { exclude: vec!["".into()], ..rules() }, &Cancel::never(), || {
            |_: &Path, _, _: &DirEntry| None::<()>
        })
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        fs::remove_dir_all(&root).unwrap();
    }
}
