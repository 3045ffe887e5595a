//! The parallel directory walk: ignore files (see `gitignore`), hidden
//! entries, `exclude` globs, depth, always-skipped folders (`.git/`) and
//! symlinks are all decided here. Folders are opened by handle from their
//! parent (see `dir`), so nothing is reached through a symlink, even one
//! swapped in mid-walk. Threads share a stack of folders to list, each
//! keeping one child for itself (depth first); each thread has its own
//! selector (so it can own buffers), which decides which entries become
//! results, and hands its results over in batches, one lock per batch.

use crate::cancel::Cancel;
use crate::dir::{is_gone, Dir, Stat};
use crate::entry::EntryKind;
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::gitignore::Rules;
use crate::pattern::{normalize_glob, NameMatcher, PatternMode};
use std::ffi::{OsStr, OsString};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

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

/// The opened search directory: its handle, and its real path for messages
/// and for the ignore rules above it.
#[derive(Debug)]
pub struct Root {
    pub dir: Arc<Dir>,
    pub path: PathBuf,
}

impl Root {
    /// Opens `path` (following symlinks: the root itself may be a link).
    pub fn open(path: &Path) -> std::io::Result<Root> {
        let dir = Dir::open(path)?;
        let path = dir.real_path(path)?;
        Ok(Root { dir: Arc::new(dir), path })
    }
}

/// One entry as a selector sees it: metadata and contents are read through
/// its folder's handle, never by path.
pub struct Entry<'a> {
    dir: &'a Dir,
    name: &'a OsStr,
}

impl Entry<'_> {
    /// Type, size and mtime, not following a symlink.
    pub fn stat(&self) -> std::io::Result<Stat> {
        self.dir.stat(self.name)
    }

    /// Opens the file for reading (a symlink is refused).
    pub fn open(&self) -> std::io::Result<std::fs::File> {
        self.dir.open_file(self.name)
    }
}

/// Walks the root in parallel. `new_selector` makes one selector per walker
/// thread; a selector gets each entry below the root with its relative path
/// and kind, and returns what to keep.
pub fn walk<T, M, S>(root: &Root, rules: &WalkRules, cancel: &Cancel, new_selector: M) -> Result<Walked<T>>
where
    T: Send,
    M: Fn() -> S + Sync,
    S: FnMut(&Path, EntryKind, &Entry) -> Option<T> + Send,
{
    cancel.check()?;
    let excludes = Excludes::new(rules)?;
    // Ignore files apply from the root of the repository holding the search
    // directory down; outside any repository, only those at and below it.
    let ignore = rules.gitignore.then(|| Rules::above(&root.path));
    let first = Work { source: Source::Open(Arc::clone(&root.dir)), rel: OsString::new(), depth: 0, ignore };
    let shared = Shared {
        queue: Mutex::new(Queue { pending: vec![first], busy: 0, stop: false }),
        wake: Condvar::new(),
        found: Mutex::new(Vec::new()),
        skipped: Mutex::new(Vec::new()),
        failure: Mutex::new(None),
        root,
        rules,
        excludes,
        cancel,
    };
    std::thread::scope(|scope| {
        for _ in 1..thread_count() {
            scope.spawn(|| shared.work(new_selector()));
        }
        shared.work(new_selector());
    });
    if let Some(err) = shared.failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(err);
    }
    cancel.check()?;
    let mut skipped = shared.skipped.into_inner().unwrap_or_else(|p| p.into_inner());
    skipped.sort_unstable();
    Ok(Walked { found: shared.found.into_inner().unwrap_or_else(|p| p.into_inner()), skipped })
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

/// Results a thread gathers before taking the lock to hand them over.
const BATCH: usize = 512;
/// Entries between two looks at the cancel flag and the clock.
const CANCEL_EVERY: u32 = 256;

/// A folder to list.
struct Work {
    source: Source,
    /// Its path relative to the root (empty for the root).
    rel: OsString,
    /// 0 for the root.
    depth: usize,
    /// The ignore rules of its parent (`None` with `gitignore: false`).
    ignore: Option<Rules>,
}

enum Source {
    Open(Arc<Dir>),
    /// A child of an open folder, opened when its turn comes (so only folders
    /// with children still waiting hold a descriptor).
    Child(Arc<Dir>, OsString),
}

/// Folders waiting to be listed, shared by the walker threads.
struct Queue {
    pending: Vec<Work>,
    /// Threads holding a folder: when none does and nothing is pending, the walk is over.
    busy: usize,
    /// Set when the walk ends early (a failure, a cancel).
    stop: bool,
}

struct Shared<'a, T> {
    queue: Mutex<Queue>,
    wake: Condvar,
    found: Mutex<Vec<T>>,
    skipped: Mutex<Vec<String>>,
    failure: Mutex<Option<FindError>>,
    root: &'a Root,
    rules: &'a WalkRules,
    excludes: Excludes,
    cancel: &'a Cancel,
}

impl<T: Send> Shared<'_, T> {
    /// A walker thread: takes folders until there are none left.
    fn work<S>(&self, mut select: S)
    where
        S: FnMut(&Path, EntryKind, &Entry) -> Option<T>,
    {
        let mut batch = Vec::new();
        let mut children = Vec::new();
        let mut next = None;
        let mut holding = false;
        loop {
            let work = match next.take() {
                Some(work) => work,
                None => match self.take(holding) {
                    Some(work) => work,
                    None => break,
                },
            };
            holding = true;
            if let Err(err) = self.list(work, &mut select, &mut batch, &mut children) {
                self.fail(err);
                break;
            }
            if batch.len() >= BATCH {
                self.found.lock().unwrap_or_else(|p| p.into_inner()).append(&mut batch);
            }
            // Keep one child to list next (depth first, no lock); share the rest.
            next = children.pop();
            if !children.is_empty() {
                let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                queue.pending.append(&mut children);
                drop(queue);
                self.wake.notify_all();
            }
        }
        if !batch.is_empty() {
            self.found.lock().unwrap_or_else(|p| p.into_inner()).append(&mut batch);
        }
    }

    /// The next folder, or `None` once the walk is over. `done` says this
    /// thread finished the folder it held.
    fn take(&self, done: bool) -> Option<Work> {
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        if done {
            queue.busy -= 1;
        }
        loop {
            if queue.stop {
                return None;
            }
            if let Some(work) = queue.pending.pop() {
                queue.busy += 1;
                return Some(work);
            }
            if queue.busy == 0 {
                queue.stop = true;
                self.wake.notify_all();
                return None;
            }
            queue = self.wake.wait(queue).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn fail(&self, err: FindError) {
        self.failure.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(err);
        self.queue.lock().unwrap_or_else(|p| p.into_inner()).stop = true;
        self.wake.notify_all();
    }

    /// Lists one folder: applies the rules to each child, offers it to the
    /// selector, and queues child folders.
    fn list<S>(&self, work: Work, select: &mut S, batch: &mut Vec<T>, children: &mut Vec<Work>) -> Result<()>
    where
        S: FnMut(&Path, EntryKind, &Entry) -> Option<T>,
    {
        self.cancel.check()?;
        let dir = match work.source {
            Source::Open(dir) => dir,
            Source::Child(parent, name) => match parent.open_dir(&name) {
                Ok(dir) => Arc::new(dir),
                // Vanished, replaced by a file or a symlink, or not ours to read: skipped.
                Err(e) if is_gone(&e) || e.kind() == ErrorKind::PermissionDenied => return Ok(()),
                Err(e) => return Err(self.cannot_list(&work.rel, &e)),
            },
        };
        let base = work.rel;
        let prefix = if base.is_empty() { 0 } else { base.len() + 1 };
        let ignore = work.ignore.map(|rules| rules.enter(&dir, prefix));
        let child_depth = work.depth + 1;
        let descend = self.rules.max_depth.is_none_or(|max| child_depth <= max);
        let mut path = RelPath::new(&base);
        let mut seen = 0u32;
        let mut stopped = None;
        let listed = dir.for_each(|name, kind| {
            let Some(kind) = kind else { return };
            if stopped.is_some() {
                return;
            }
            seen = seen.wrapping_add(1);
            if seen.is_multiple_of(CANCEL_EVERY) {
                if let Err(e) = self.cancel.check() {
                    stopped = Some(e);
                    return;
                }
            }
            let is_dir = kind == EntryKind::Dir;
            if !self.rules.hidden && name.as_encoded_bytes().starts_with(b".") {
                return;
            }
            let rel = path.with(name);
            if ignore.as_ref().is_some_and(|rules| rules.is_ignored(rel, is_dir)) {
                return;
            }
            if self.rules.skip_dirs.iter().any(|skip| name == *skip) && (is_dir || name == ".git") {
                if name != ".git" {
                    self.skipped.lock().unwrap_or_else(|p| p.into_inner()).push(posix_string(rel));
                }
                return;
            }
            if !self.excludes.is_empty() && self.excludes.is_excluded(rel) {
                return;
            }
            if let Some(found) = select(rel, kind, &Entry { dir: &dir, name }) {
                batch.push(found);
            }
            if is_dir && descend {
                let source = Source::Child(Arc::clone(&dir), name.to_owned());
                children.push(Work {
                    source,
                    rel: rel.as_os_str().to_owned(),
                    depth: child_depth,
                    ignore: ignore.clone(),
                });
            }
        });
        if let Some(e) = stopped {
            return Err(e);
        }
        match listed {
            // Removed while it was being listed (getdents says ENOENT): what was read is kept.
            Err(e) if work.depth > 0 && is_gone(&e) => return Ok(()),
            listed => listed,
        }
        .map_err(|e| match (work.depth, e.kind()) {
            (0, ErrorKind::PermissionDenied) => FindError::new(
                ErrorCode::PermissionDenied,
                format!("permission denied: the OS refused to list `{}`", clip(&self.root.path.to_string_lossy(), 300)),
            ),
            _ => self.cannot_list(&base, &e),
        })
    }

    fn cannot_list(&self, rel: &OsStr, err: &std::io::Error) -> FindError {
        let at = self.root.path.join(rel);
        FindError::new(
            ErrorCode::FsError,
            format!("cannot list the directory `{}`: {err}", clip(&at.to_string_lossy(), 300)),
        )
    }
}

/// The relative path of each child of one folder, built in one buffer.
struct RelPath {
    buf: OsString,
    base: usize,
}

impl RelPath {
    fn new(base: &OsStr) -> RelPath {
        let mut buf = base.to_owned();
        if !buf.is_empty() {
            buf.push("/");
        }
        let base = buf.len();
        RelPath { buf, base }
    }

    /// The folder's path joined with `name`.
    fn with(&mut self, name: &OsStr) -> &Path {
        truncate(&mut self.buf, self.base);
        self.buf.push(name);
        Path::new(&self.buf)
    }
}

#[cfg(unix)]
fn truncate(buf: &mut OsString, len: usize) {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    if buf.len() > len {
        let mut bytes = std::mem::take(buf).into_vec();
        bytes.truncate(len);
        *buf = OsString::from_vec(bytes);
    }
    debug_assert_eq!(buf.as_bytes().len(), len);
}

#[cfg(not(unix))]
fn truncate(buf: &mut OsString, len: usize) {
    let text = buf.to_string_lossy();
    *buf = OsString::from(text.get(..len).unwrap_or(&text).to_owned());
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
        let mut out: Vec<String> = walk(&Root::open(root).unwrap(), rules, &Cancel::never(), || {
            |rel: &Path, kind, _: &Entry| Some(Found::new(rel.to_string_lossy().into_owned(), kind, None))
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
            walk(
                &Root::open(&root).unwrap(),
                &rules(),
                &Cancel::new(flag, None),
                || |_: &Path, _, _: &Entry| None::<()>,
            )
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Aborted);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn bad_exclude_globs_are_reported() {
        let root = tree("bx");
        let open = Root::open(&root).unwrap();
        let err = walk(&open, &WalkRules { exclude: vec!["[".into()], ..rules() }, &Cancel::never(), || {
            |_: &Path, _, _: &Entry| None::<()>
        })
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidPattern);
        let err = walk(&open, &WalkRules { exclude: vec!["".into()], ..rules() }, &Cancel::never(), || {
            |_: &Path, _, _: &Entry| None::<()>
        })
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        fs::remove_dir_all(&root).unwrap();
    }
}
