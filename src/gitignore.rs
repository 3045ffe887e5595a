//! Ignore files as git reads them: `.gitignore` and `.ignore` in every folder,
//! `.git/info/exclude` of each repository, read through the walk's directory
//! handles (see `dir`) and matched with the `ignore` crate's `Gitignore`.
//!
//! Rules form a chain, one node per folder that adds something, deepest
//! first. As in ripgrep: a `.ignore` match beats a `.gitignore` match, which
//! beats `.git/info/exclude`; within each, the deepest folder with a matching
//! line decides, and in a file the last matching line. `.gitignore` and
//! `exclude` stop at the nearest enclosing repository root (a nested
//! repository does not inherit its parent's rules).
//!
//! What the `ignore` crate alone would lose is kept: a UTF-8 byte order mark
//! starting a file is skipped (as git does), a file whose globs outgrow the
//! regex size limit is compiled in parts (the last matching line still
//! wins), and a line that is not valid UTF-8 still matches the file whose
//! name has those bytes.

use crate::dir::Dir;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::sync::Arc;

/// The rules in force in one folder of the walk.
#[derive(Debug, Clone, Default)]
pub struct Rules(Option<Arc<Node>>);

#[derive(Debug)]
struct Node {
    parent: Option<Arc<Node>>,
    at: Place,
    rules: Arc<FolderRules>,
}

/// One folder's ignore files, compiled: what a walk adds on entering it.
/// Shared, so a live index compiles each folder's files once.
#[derive(Debug)]
pub struct FolderRules {
    ignore: Lines,
    gitignore: Lines,
    exclude: Lines,
    /// The folder holds `.git`: rules from above it are not its own.
    has_git: bool,
}

impl FolderRules {
    /// Compiles the files; `None` when they add nothing.
    pub fn compile(files: IgnoreFiles) -> Option<Arc<FolderRules>> {
        let has_git = files.has_git;
        let ignore = Lines::parse(files.ignore);
        let gitignore = Lines::parse(files.gitignore);
        let exclude = if has_git { Lines::parse(files.exclude) } else { Lines::default() };
        if !has_git && ignore.is_empty() && gitignore.is_empty() {
            return None;
        }
        Some(Arc::new(FolderRules { ignore, gitignore, exclude, has_git }))
    }

    pub fn has_git(&self) -> bool {
        self.has_git
    }
}

/// Where a node's folder is, to turn a walked path into one relative to it.
#[derive(Debug)]
enum Place {
    /// In the walk: its relative path is the first `n` bytes of its entries'
    /// paths, plus a separator (0 for the root).
    Walked(usize),
    /// Above the search root: the root's path relative to this folder.
    Above(OsString),
}

/// One file's lines, compiled in as few parts as the regex limit allows.
#[derive(Debug, Default)]
struct Lines(Vec<Gitignore>);

impl Lines {
    /// Compiles a file's lines (after a UTF-8 byte order mark, which git skips).
    fn parse(bytes: Option<Vec<u8>>) -> Lines {
        let Some(bytes) = bytes else { return Lines::default() };
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        let lines: Vec<Cow<'_, str>> =
            bytes.split(|&b| b == b'\n').map(|line| text_of(line.strip_suffix(b"\r").unwrap_or(line))).collect();
        Lines(compile(&lines))
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The last matching line's verdict.
    fn matched(&self, path: &Path, is_dir: bool) -> Option<bool> {
        self.0.iter().rev().find_map(|g| match g.matched(path, is_dir) {
            Match::None => None,
            Match::Ignore(_) => Some(true),
            Match::Whitelist(_) => Some(false),
        })
    }
}

/// Compiles lines into one `Gitignore`, or, past the regex size limit, into
/// halves (recursively). A single line too large to compile never matches.
fn compile(lines: &[Cow<'_, str>]) -> Vec<Gitignore> {
    let mut builder = GitignoreBuilder::new(".");
    for line in lines {
        // A line that is not a valid glob never matches, as in git.
        let _ = builder.add_line(None, line);
    }
    match builder.build() {
        Ok(g) if g.is_empty() => Vec::new(),
        Ok(g) => vec![g],
        Err(_) if lines.len() > 1 => {
            let (first, second) = lines.split_at(lines.len() / 2);
            let mut parts = compile(first);
            parts.extend(compile(second));
            parts
        }
        Err(_) => Vec::new(),
    }
}

/// Bytes as text, every byte that is not valid UTF-8 turned into a private-use
/// character of its own, the same way for ignore lines and for names, so a
/// line written in another encoding matches the name with those bytes.
fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut text = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(chunk.invalid().iter().map(|&b| char::from_u32(0x10_FE00 + u32::from(b)).unwrap_or('\u{FFFD}')));
    }
    Cow::Owned(text)
}

#[cfg(unix)]
fn path_text(path: &Path) -> Cow<'_, Path> {
    use std::os::unix::ffi::OsStrExt;
    match text_of(path.as_os_str().as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(path),
        Cow::Owned(text) => Cow::Owned(text.into()),
    }
}

#[cfg(not(unix))]
fn path_text(path: &Path) -> Cow<'_, Path> {
    Cow::Borrowed(path)
}

/// The bytes of `path` from `start` on, as a path.
#[cfg(unix)]
fn tail(path: &Path, start: usize) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    Path::new(OsStr::from_bytes(path.as_os_str().as_bytes().get(start..).unwrap_or_default()))
}

#[cfg(not(unix))]
fn tail(path: &Path, start: usize) -> &Path {
    Path::new(path.to_str().and_then(|s| s.get(start..)).unwrap_or_default())
}

/// The ignore files of one folder, however they were read.
#[derive(Debug, Default)]
pub struct IgnoreFiles {
    pub ignore: Option<Vec<u8>>,
    pub gitignore: Option<Vec<u8>>,
    /// `.git/info/exclude`, when the folder is a repository root.
    pub exclude: Option<Vec<u8>>,
    /// The folder holds `.git` (a folder, or a file as git's worktrees use).
    pub has_git: bool,
}

pub const GITIGNORE: &str = ".gitignore";
pub const IGNORE: &str = ".ignore";
/// Below a repository root's `.git` folder.
pub const EXCLUDE: &str = "info/exclude";

impl IgnoreFiles {
    /// Reads them through an open folder.
    pub fn read(dir: &Dir) -> IgnoreFiles {
        IgnoreFiles::read_knowing_git(dir, dir.stat(OsStr::new(".git")).is_ok_and(|st| st.kind.is_some()))
    }

    /// `read`, when the caller already knows whether the folder holds `.git`.
    pub fn read_knowing_git(dir: &Dir, has_git: bool) -> IgnoreFiles {
        let exclude = has_git
            .then(|| {
                let info = dir.open_dir(OsStr::new(".git")).ok()?.open_dir(OsStr::new("info")).ok()?;
                info.read_ignore_file(OsStr::new("exclude"))
            })
            .flatten();
        IgnoreFiles {
            ignore: dir.read_ignore_file(OsStr::new(IGNORE)),
            gitignore: dir.read_ignore_file(OsStr::new(GITIGNORE)),
            exclude,
            has_git,
        }
    }
}

impl Rules {
    /// The rules of the folders above the search root that apply to it: from
    /// the root of the repository holding it (if any) down to its parent.
    pub fn above(root: &Path) -> Rules {
        Rules::above_folders(root).into_iter().fold(Rules::default(), |rules, (folder, compiled)| {
            rules.above_root_compiled(root, &folder, compiled.as_ref())
        })
    }

    /// The folders `above` takes rules from, outermost first, with their rules.
    pub fn above_folders(root: &Path) -> Vec<(std::path::PathBuf, Option<Arc<FolderRules>>)> {
        let Some(repository) = root.ancestors().find(|d| d.join(".git").exists()) else {
            return Vec::new();
        };
        let chain: Vec<&Path> = root.ancestors().skip(1).take_while(|d| d.starts_with(repository)).collect();
        chain
            .into_iter()
            .rev()
            .filter_map(|folder| {
                let dir = Dir::open(folder).ok()?;
                Some((folder.to_path_buf(), FolderRules::compile(IgnoreFiles::read(&dir))))
            })
            .collect()
    }

    /// These rules with those of `folder`, an ancestor of the search `root`
    /// (outermost first), added.
    pub fn above_root(&self, root: &Path, folder: &Path, files: IgnoreFiles) -> Rules {
        self.above_root_compiled(root, folder, FolderRules::compile(files).as_ref())
    }

    /// The rules inside `dir`, a folder of the walk whose entries' relative
    /// paths start with `prefix_len` bytes (its own path and a separator).
    pub fn enter(&self, dir: &Dir, prefix_len: usize) -> Rules {
        self.enter_with(IgnoreFiles::read(dir), prefix_len)
    }

    /// `enter` with the folder's ignore files read by the caller.
    pub fn enter_with(&self, files: IgnoreFiles, prefix_len: usize) -> Rules {
        self.push(files, Place::Walked(prefix_len))
    }

    fn push(&self, files: IgnoreFiles, at: Place) -> Rules {
        self.push_compiled(FolderRules::compile(files).as_ref(), at)
    }

    fn push_compiled(&self, rules: Option<&Arc<FolderRules>>, at: Place) -> Rules {
        match rules {
            Some(rules) => Rules(Some(Arc::new(Node { parent: self.0.clone(), at, rules: Arc::clone(rules) }))),
            None => self.clone(),
        }
    }

    /// `enter_with` for rules already compiled.
    pub fn enter_compiled(&self, rules: Option<&Arc<FolderRules>>, prefix_len: usize) -> Rules {
        self.push_compiled(rules, Place::Walked(prefix_len))
    }

    /// `above_root` for rules already compiled.
    pub fn above_root_compiled(&self, root: &Path, folder: &Path, rules: Option<&Arc<FolderRules>>) -> Rules {
        let below = root.strip_prefix(folder).unwrap_or(root).as_os_str().to_owned();
        self.push_compiled(rules, Place::Above(below))
    }

    /// Whether the entry at `relative` (from the search root) is ignored.
    pub fn is_ignored(&self, relative: &Path, is_dir: bool) -> bool {
        let Some(mut node) = self.0.as_deref() else { return false };
        let text = path_text(relative);
        let (mut by_ignore, mut by_gitignore, mut by_exclude) = (None, None, None);
        let mut saw_git = false;
        loop {
            let joined;
            let path = match &node.at {
                Place::Walked(start) => tail(&text, *start),
                Place::Above(below) => {
                    joined = Path::new(below).join(&*text);
                    joined.as_path()
                }
            };
            if by_ignore.is_none() {
                by_ignore = node.rules.ignore.matched(path, is_dir);
            }
            if !saw_git {
                if by_gitignore.is_none() {
                    by_gitignore = node.rules.gitignore.matched(path, is_dir);
                }
                if by_exclude.is_none() {
                    by_exclude = node.rules.exclude.matched(path, is_dir);
                }
            }
            saw_git |= node.rules.has_git;
            match node.parent.as_deref() {
                Some(parent) => node = parent,
                None => break,
            }
        }
        by_ignore.or(by_gitignore).or(by_exclude).unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::PathBuf;

    fn tree(name: &str, files: &[(&str, &[u8])]) -> PathBuf {
        let root = std::env::temp_dir().join(format!("af-gitignore-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        for (path, content) in files {
            let p = root.join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, content).unwrap();
        }
        root
    }

    #[test]
    fn deeper_lines_and_ignore_files_win() {
        let root = tree(
            "order",
            &[
                (".gitignore", b"*.log\n!keep.log\nbuild/\n"),
                ("sub/.gitignore", b"!*.log\n"),
                ("sub/.ignore", b"secret.log\n"),
            ],
        );
        let top = Rules::default().enter(&Dir::open(&root).unwrap(), 0);
        assert!(top.is_ignored(Path::new("a.log"), false));
        assert!(!top.is_ignored(Path::new("keep.log"), false));
        assert!(top.is_ignored(Path::new("build"), true));
        assert!(!top.is_ignored(Path::new("build"), false), "`build/` matches folders only");
        let sub = top.enter(&Dir::open(&root.join("sub")).unwrap(), "sub/".len());
        assert!(!sub.is_ignored(Path::new("sub/a.log"), false), "the deeper .gitignore re-includes");
        assert!(sub.is_ignored(Path::new("sub/secret.log"), false), ".ignore beats .gitignore");
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_nested_repository_keeps_its_own_rules() {
        let root = tree("nested", &[(".gitignore", b"*.tmp\n"), ("inner/.git/info/exclude", b"*.bak\n")]);
        let top = Rules::default().enter(&Dir::open(&root).unwrap(), 0);
        let inner = top.enter(&Dir::open(&root.join("inner")).unwrap(), "inner/".len());
        assert!(!inner.is_ignored(Path::new("inner/a.tmp"), false));
        assert!(inner.is_ignored(Path::new("inner/a.bak"), false));
        assert!(top.is_ignored(Path::new("a.tmp"), false));
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn rules_above_the_root_apply_up_to_the_repository() {
        let root = tree("above", &[(".git/HEAD", b""), (".gitignore", b"src/gen/\n*.o\n"), ("src/gen/x", b"")]);
        let rules = Rules::above(&root.join("src")).enter(&Dir::open(&root.join("src")).unwrap(), 0);
        assert!(rules.is_ignored(Path::new("gen"), true), "anchored at the repository root");
        assert!(rules.is_ignored(Path::new("deep/a.o"), false));
        assert!(!rules.is_ignored(Path::new("a.c"), false));
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn huge_files_compile_in_parts_and_the_last_line_still_wins() {
        let mut text = String::from("*.log\n");
        for i in 0..20_000 {
            text.push_str(&format!("a*b{i}*c\n"));
        }
        text.push_str("!keep.log\n");
        let root = tree("huge", &[(".gitignore", text.as_bytes())]);
        let rules = Rules::default().enter(&Dir::open(&root).unwrap(), 0);
        assert!(rules.is_ignored(Path::new("x.log"), false));
        assert!(rules.is_ignored(Path::new("a-b123-c"), false));
        assert!(!rules.is_ignored(Path::new("keep.log"), false));
        assert!(!rules.is_ignored(Path::new("y.txt"), false));
        fs::remove_dir_all(root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn lines_that_are_not_utf8_match_their_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let root = tree("bytes", &[(".gitignore", b"bad-\xff.txt\n*.tmp\n")]);
        let rules = Rules::default().enter(&Dir::open(&root).unwrap(), 0);
        assert!(rules.is_ignored(Path::new(OsStr::from_bytes(b"bad-\xff.txt")), false));
        assert!(!rules.is_ignored(Path::new(OsStr::from_bytes(b"bad-\xfe.txt")), false));
        assert!(rules.is_ignored(Path::new("a.tmp"), false));
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let root = tree(
            "bom",
            &[
                (".git/info/exclude", b"\xEF\xBB\xBF*.log\n"),
                (".gitignore", b"\xEF\xBB\xBF*.tmp\n"),
                (".ignore", b"\xEF\xBB\xBFout/\n"),
            ],
        );
        let rules = Rules::default().enter(&Dir::open(&root).unwrap(), 0);
        assert!(rules.is_ignored(Path::new("a.log"), false));
        assert!(rules.is_ignored(Path::new("a.tmp"), false));
        assert!(rules.is_ignored(Path::new("out"), true));
        assert!(!rules.is_ignored(Path::new("a.txt"), false));
        fs::remove_dir_all(root).unwrap();
    }
}
