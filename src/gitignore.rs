//! Ignore files as git reads them: `.gitignore` and `.ignore` in every
//! folder, and for each repository (a folder holding `.git`) its
//! `info/exclude` and the user's global excludes file (`core.excludesFile`,
//! by default `~/.config/git/ignore`). Folder files are read through the
//! walk's directory handles (see `dir`); a repository's files are found as
//! git finds them (see `gitdir`: `.git` a folder, a file naming the git dir
//! as linked worktrees and submodules have, or a symlink to either) and read
//! from its common dir; the user's config files are read once per search or
//! index (`GitEnv`, see `gitconfig`). All are matched with the `ignore`
//! crate's `Gitignore`.
//!
//! Rules form a chain, one node per folder that adds something, deepest
//! first. As in ripgrep: a `.ignore` match beats a `.gitignore` match, which
//! beats `info/exclude`, which beats the global excludes file (git's order
//! for the last three); within each, the deepest folder with a matching line
//! decides, and in a file the last matching line. `.gitignore`, `exclude`
//! and the global file stop at the nearest enclosing repository root (a
//! nested repository does not inherit its parent's rules, but has its own
//! `exclude` and global file); the global file's lines are anchored at the
//! repository's top, like its top `.gitignore`.
//!
//! A repository whose config says `core.ignoreCase = true` has its
//! `.gitignore`, `.ignore`, `exclude` and global lines matched without regard
//! to case; each nested repository by its own setting. So a file's lines are
//! kept as text and compiled on first use for the case their repository asks
//! (`Patterns`), once.
//!
//! What the `ignore` crate alone would lose is kept: a UTF-8 byte order mark
//! starting a file is skipped (as git does), a file whose globs outgrow the
//! regex size limit is compiled in parts (the last matching line still
//! wins), and a line that is not valid UTF-8 still matches the file whose
//! name has those bytes.

use crate::dir::{is_skippable, Dir, MAX_IGNORE_FILE_BYTES};
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::gitconfig::{self, User, MAX_CONFIG_BYTES};
use crate::gitdir;
use crate::sync::lock;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The rules in force in one folder of the walk.
#[derive(Debug, Clone, Default)]
pub struct Rules(Option<Arc<RulesLink>>);

#[derive(Debug)]
struct RulesLink {
    parent: Option<Arc<RulesLink>>,
    at: Anchor,
    rules: Arc<FolderRules>,
    /// The enclosing repository (the nearest at or above this folder) says
    /// `core.ignoreCase`.
    ignore_case: bool,
}

/// One folder's ignore files, compiled: what a walk adds on entering it.
/// Shared, so a live index compiles each folder's files once.
#[derive(Debug)]
pub struct FolderRules {
    ignore: Option<Patterns>,
    gitignore: Option<Patterns>,
    /// The folder holds `.git`: rules from above it are not its own.
    repo: Option<RepoRules>,
}

/// What a repository adds at its top folder.
#[derive(Debug)]
struct RepoRules {
    exclude: Option<Patterns>,
    global: Option<Arc<Patterns>>,
    ignore_case: bool,
}

impl FolderRules {
    /// Compiles the files; `None` when they add nothing.
    pub fn compile(files: IgnoreFiles) -> Option<Arc<FolderRules>> {
        let ignore = files.ignore.and_then(Patterns::new);
        let gitignore = files.gitignore.and_then(Patterns::new);
        let repo = files.repo.map(|repo| RepoRules {
            exclude: repo.exclude.and_then(Patterns::new),
            global: repo.global,
            ignore_case: repo.ignore_case,
        });
        if repo.is_none() && ignore.is_none() && gitignore.is_none() {
            return None;
        }
        Some(Arc::new(FolderRules { ignore, gitignore, repo }))
    }

    pub fn has_git(&self) -> bool {
        self.repo.is_some()
    }
}

/// One ignore file's lines, compiled on first use for the case asked (its
/// repository's `core.ignoreCase`), each way at most once.
#[derive(Debug)]
pub struct Patterns {
    text: Box<[u8]>,
    exact: OnceLock<Lines>,
    folded: OnceLock<Lines>,
}

impl Patterns {
    /// `None` when no line of `text` can hold a rule (blank, comments only).
    pub fn new(text: Vec<u8>) -> Option<Patterns> {
        let holds_rules = text.split(|&b| b == b'\n').any(|line| {
            let line = line.trim_ascii_end();
            !line.is_empty() && line[0] != b'#'
        });
        holds_rules.then(|| Patterns { text: text.into(), exact: OnceLock::new(), folded: OnceLock::new() })
    }

    /// The last matching line's verdict.
    fn matched(&self, path: &Path, is_dir: bool, ignore_case: bool) -> Option<bool> {
        let cell = if ignore_case { &self.folded } else { &self.exact };
        cell.get_or_init(|| Lines::parse(&self.text, ignore_case, false)).matched(path, is_dir)
    }

    /// The last matching line itself: its number (from 1), its text, and
    /// whether it ignores (else it re-includes). Compiled afresh each time,
    /// with each line's number kept: only `explain` asks, once per entry.
    fn matched_line(&self, path: &Path, is_dir: bool, ignore_case: bool) -> Option<(usize, String, bool)> {
        Lines::parse(&self.text, ignore_case, true).matched_line(path, is_dir)
    }

    /// The last matching line that ignores, among the file's first `before`
    /// lines: the line a `!` line at `before + 1` overrides in this file.
    fn ignoring_line_before(
        &self,
        before: usize,
        path: &Path,
        is_dir: bool,
        ignore_case: bool,
    ) -> Option<(usize, String, bool)> {
        let mut end = before;
        while end > 0 {
            let text = self.text.split(|&b| b == b'\n').take(end).collect::<Vec<_>>().join(&b'\n');
            let (line, glob, ignores) = Lines::parse(&text, ignore_case, true).matched_line(path, is_dir)?;
            if ignores {
                return Some((line, glob, ignores));
            }
            end = line.saturating_sub(1);
        }
        None
    }
}

impl Lines {
    /// The last matching line of lines parsed `numbered`.
    fn matched_line(&self, path: &Path, is_dir: bool) -> Option<(usize, String, bool)> {
        self.0.iter().rev().find_map(|g| {
            let (glob, ignores) = match g.matched(path, is_dir) {
                Match::None => return None,
                Match::Ignore(glob) => (glob, true),
                Match::Whitelist(glob) => (glob, false),
            };
            let number = glob.from().and_then(|from| from.to_str()?.parse().ok()).unwrap_or(0);
            Some((number, glob.original().to_string(), ignores))
        })
    }
}

/// Where a node's folder is, to turn a walked path into one relative to it.
#[derive(Debug)]
enum Anchor {
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
    /// Compiles a file's text (after a UTF-8 byte order mark, which git skips).
    /// `numbered`: each line's glob carries its number (from 1) as its
    /// `from`, for `Patterns::matched_line`.
    fn parse(text: &[u8], ignore_case: bool, numbered: bool) -> Lines {
        let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        let lines: Vec<(usize, Cow<'_, str>)> = text
            .split(|&b| b == b'\n')
            .map(|line| text_of(line.strip_suffix(b"\r").unwrap_or(line)))
            .enumerate()
            .map(|(i, line)| (if numbered { i + 1 } else { 0 }, line))
            .collect();
        Lines(compile(&lines, ignore_case))
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
/// A line numbered 0 carries no number.
fn compile(lines: &[(usize, Cow<'_, str>)], ignore_case: bool) -> Vec<Gitignore> {
    let mut builder = GitignoreBuilder::new(".");
    // Before any line is added: it applies to lines added after it.
    let _ = builder.case_insensitive(ignore_case);
    for (number, line) in lines {
        let from = (*number > 0).then(|| PathBuf::from(number.to_string()));
        // A line that is not a valid glob never matches, as in git.
        let _ = builder.add_line(from, line);
    }
    match builder.build() {
        Ok(g) if g.is_empty() => Vec::new(),
        Ok(g) => vec![g],
        Err(_) if lines.len() > 1 => {
            let (first, second) = lines.split_at(lines.len() / 2);
            let mut parts = compile(first, ignore_case);
            parts.extend(compile(second, ignore_case));
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
    /// Set when the folder holds `.git` (of any kind): its repository's part.
    pub repo: Option<RepoFiles>,
}

/// What a repository adds at its top folder, however it was read.
#[derive(Debug, Default)]
pub struct RepoFiles {
    /// `info/exclude` in its common dir.
    pub exclude: Option<Vec<u8>>,
    /// The global excludes file in force for it.
    pub global: Option<Arc<Patterns>>,
    /// `core.ignoreCase` as its config (and the user's) leaves it.
    pub ignore_case: bool,
}

pub const GITIGNORE: &str = ".gitignore";
pub const IGNORE: &str = ".ignore";
/// Below a repository's common dir.
pub const EXCLUDE: &str = "info/exclude";
/// A repository's own config file, below its common dir.
pub const CONFIG: &str = "config";

impl IgnoreFiles {
    /// Reads them through an open folder. A file that is missing, denied or
    /// not a regular file adds nothing; one that is there but cannot be
    /// opened or read otherwise (out of descriptors, an I/O error) is an
    /// error: a walk without its rules would list what it hides.
    pub fn read(dir: &Dir, git: &GitEnv) -> io::Result<IgnoreFiles> {
        IgnoreFiles::try_read_knowing_git(dir, has_git(dir), git)
    }

    /// `read`, when the caller already knows whether the folder holds `.git`.
    pub fn try_read_knowing_git(dir: &Dir, has_git: bool, git: &GitEnv) -> io::Result<IgnoreFiles> {
        Ok(IgnoreFiles {
            ignore: dir.try_read_ignore_file(OsStr::new(IGNORE))?,
            gitignore: dir.try_read_ignore_file(OsStr::new(GITIGNORE))?,
            repo: if has_git { Some(RepoFiles::try_read(dir, git)?) } else { None },
        })
    }

    /// `try_read_knowing_git` that passes over a file it cannot read (the
    /// live index's, which has no call to fail).
    pub fn read_knowing_git(dir: &Dir, has_git: bool, git: &GitEnv) -> IgnoreFiles {
        IgnoreFiles {
            ignore: dir.read_ignore_file(OsStr::new(IGNORE)),
            gitignore: dir.read_ignore_file(OsStr::new(GITIGNORE)),
            repo: has_git.then(|| RepoFiles::read(dir, git)),
        }
    }
}

impl RepoFiles {
    /// Reads the repository files of the folder `holder`, which holds `.git`,
    /// passing over any it cannot read.
    pub fn read(holder: &Dir, git: &GitEnv) -> RepoFiles {
        RepoFiles::read_with(holder, git, &|path, cap| Ok(holder.read_following(path, cap)))
            .unwrap_or_else(|_| RepoFiles::default())
    }

    /// `read`, failing as `IgnoreFiles::read` does.
    pub fn try_read(holder: &Dir, git: &GitEnv) -> io::Result<RepoFiles> {
        RepoFiles::read_with(holder, git, &|path, cap| holder.try_read_following(path, cap))
    }

    fn read_with(holder: &Dir, git: &GitEnv, read: &ReadFollowing<'_>) -> io::Result<RepoFiles> {
        let common = gitdir::common_dir(holder);
        let in_common = |name: &str, cap: u64| match &common {
            Some(common) => read(&common.join(name), cap),
            None => Ok(None),
        };
        let exclude = in_common(EXCLUDE, MAX_IGNORE_FILE_BYTES)?;
        let config = in_common(CONFIG, MAX_CONFIG_BYTES)?;
        let settings = git.user().for_repository(config.as_deref());
        let global = match settings.excludes_file {
            Some(path) => git.excludes_file(&path, read)?,
            None => None,
        };
        Ok(RepoFiles { exclude, global, ignore_case: settings.ignore_case })
    }
}

/// Whether the folder holds `.git` of any kind.
fn has_git(dir: &Dir) -> bool {
    dir.stat(OsStr::new(gitdir::DOT_GIT)).is_ok_and(|st| st.kind.is_some())
}

/// Reads a file through symlinks (see `Dir::read_following`), capped.
type ReadFollowing<'a> = dyn Fn(&Path, u64) -> io::Result<Option<Vec<u8>>> + 'a;

/// The error of a walk that could not read a folder's ignore files for a
/// reason other than their absence or a refusal: answering without their
/// rules would list what they hide.
pub fn unreadable(folder: &Path, e: &io::Error) -> FindError {
    FindError::new(
        ErrorCode::FsError,
        format!(
            "cannot read the ignore files in `{}`: {e}{}",
            clip(&folder.to_string_lossy(), 300),
            crate::error::io_advice(e)
        ),
    )
}

/// What ignore rules take from outside the tree: the user's git config
/// files and the global excludes files they name, each read (and compiled)
/// at most once for the searches or index holding this, and only once a
/// repository is met.
#[derive(Debug)]
pub struct GitEnv {
    /// Where to look (`None`: no user settings at all).
    env: Option<gitconfig::Env>,
    user: OnceLock<User>,
    /// Excludes files read so far, by absolute path.
    excludes: Mutex<Vec<(PathBuf, Option<Arc<Patterns>>)>>,
}

impl GitEnv {
    /// The settings of this process's user (`HOME`, `XDG_CONFIG_HOME`, `GIT_CONFIG_*`).
    pub fn from_process() -> Arc<GitEnv> {
        GitEnv::with(Some(gitconfig::Env::from_process()))
    }

    /// No user settings: only what each repository holds (no global excludes file).
    pub fn none() -> Arc<GitEnv> {
        GitEnv::with(None)
    }

    fn with(env: Option<gitconfig::Env>) -> Arc<GitEnv> {
        Arc::new(GitEnv { env, user: OnceLock::new(), excludes: Mutex::new(Vec::new()) })
    }

    fn user(&self) -> &User {
        self.user.get_or_init(|| self.env.as_ref().map_or_else(User::none, User::load))
    }

    /// The excludes file at `path` (absolute, or relative to the folder
    /// at a repository's top, which `read` reads from), `None` when it cannot be read as a
    /// regular file, as git passes over a missing one.
    /// A file that could not be read for another reason than its absence is
    /// an error (through `read`), and is not remembered.
    fn excludes_file(&self, path: &Path, read: &ReadFollowing<'_>) -> io::Result<Option<Arc<Patterns>>> {
        let read = || Ok(read(path, MAX_IGNORE_FILE_BYTES)?.and_then(Patterns::new).map(Arc::new));
        if !path.is_absolute() {
            return read();
        }
        let mut cache = lock(&self.excludes);
        if let Some((_, patterns)) = cache.iter().find(|(p, _)| p == path) {
            return Ok(patterns.clone());
        }
        let patterns = read()?;
        cache.push((path.to_path_buf(), patterns.clone()));
        Ok(patterns)
    }
}

/// The ignore rules of the folders on disk above the search `root` that
/// apply to it: from the root of the repository holding it (if any) down to
/// its parent. A folder or ignore file that cannot be opened or read for
/// another reason than its absence or a refusal fails (see `IgnoreFiles::read`).
pub fn rules_above_on_disk(root: &Path, git: &GitEnv) -> Result<Rules> {
    let folders = folders_above(root, &mut |folder| {
        let dir = match Dir::open(folder) {
            Ok(dir) => dir,
            Err(e) if is_skippable(&e) => return Ok(None),
            Err(e) => return Err(unreadable(folder, &e)),
        };
        IgnoreFiles::read(&dir, git).map(Some).map_err(|e| unreadable(folder, &e))
    })?;
    Ok(folders.into_iter().fold(Rules::default(), |rules, (folder, own)| rules.above(root, &folder, own.as_ref())))
}

/// The folders `rules_above_on_disk` takes rules from, outermost first, with
/// their rules; a folder or file that cannot be read is passed over (for the
/// live index, which has no call to fail).
pub fn folders_above_on_disk(root: &Path, git: &GitEnv) -> Vec<(PathBuf, Option<Arc<FolderRules>>)> {
    folders_above(root, &mut |folder| {
        Ok(Dir::open(folder).ok().map(|dir| IgnoreFiles::read_knowing_git(&dir, has_git(&dir), git)))
    })
    .unwrap_or_default()
}

fn folders_above(
    root: &Path,
    read: &mut dyn FnMut(&Path) -> Result<Option<IgnoreFiles>>,
) -> Result<Vec<(PathBuf, Option<Arc<FolderRules>>)>> {
    // `.git` of any kind, as the walk counts it (a symlink too, even dangling).
    let holds_git = |d: &Path| std::fs::symlink_metadata(d.join(gitdir::DOT_GIT)).is_ok();
    let Some(repository) = root.ancestors().find(|d| holds_git(d)) else {
        return Ok(Vec::new());
    };
    let chain: Vec<&Path> = root.ancestors().skip(1).take_while(|d| d.starts_with(repository)).collect();
    let mut folders = Vec::with_capacity(chain.len());
    for folder in chain.into_iter().rev() {
        if let Some(files) = read(folder)? {
            folders.push((folder.to_path_buf(), FolderRules::compile(files)));
        }
    }
    Ok(folders)
}

impl Rules {
    /// These rules with those of `folder`, an ancestor of the search `root`
    /// (outermost first), added: `own`, its compiled ignore files.
    pub fn above(&self, root: &Path, folder: &Path, own: Option<&Arc<FolderRules>>) -> Rules {
        let below = root.strip_prefix(folder).unwrap_or(root).as_os_str().to_owned();
        self.push(own, Anchor::Above(below))
    }

    /// The rules inside a folder of the walk whose entries' relative paths
    /// start with `prefix_len` bytes (its own path and a separator): these,
    /// with `own`, its compiled ignore files.
    pub fn enter(&self, own: Option<&Arc<FolderRules>>, prefix_len: usize) -> Rules {
        self.push(own, Anchor::Walked(prefix_len))
    }

    fn push(&self, rules: Option<&Arc<FolderRules>>, at: Anchor) -> Rules {
        let Some(rules) = rules else { return self.clone() };
        let ignore_case = match &rules.repo {
            Some(repo) => repo.ignore_case,
            None => self.0.as_ref().is_some_and(|node| node.ignore_case),
        };
        Rules(Some(Arc::new(RulesLink { parent: self.0.clone(), at, rules: Arc::clone(rules), ignore_case })))
    }

    /// Whether the entry at `relative` (from the search root) is ignored.
    pub fn is_ignored(&self, relative: &Path, is_dir: bool) -> bool {
        let Some(mut node) = self.0.as_deref() else { return false };
        let text = path_text(relative);
        let (mut by_ignore, mut by_gitignore, mut by_exclude, mut by_global) = (None, None, None, None);
        let mut saw_git = false;
        loop {
            let joined;
            let path = match &node.at {
                Anchor::Walked(start) => tail(&text, *start),
                Anchor::Above(below) => {
                    joined = Path::new(below).join(&*text);
                    joined.as_path()
                }
            };
            let matched = |patterns: Option<&Patterns>| patterns?.matched(path, is_dir, node.ignore_case);
            let rules = &node.rules;
            if by_ignore.is_none() {
                by_ignore = matched(rules.ignore.as_ref());
            }
            if !saw_git {
                if by_gitignore.is_none() {
                    by_gitignore = matched(rules.gitignore.as_ref());
                }
                if let Some(repo) = &rules.repo {
                    // The nearest repository only: `saw_git` is set just below.
                    by_exclude = matched(repo.exclude.as_ref());
                    by_global = matched(repo.global.as_deref());
                    saw_git = true;
                }
            }
            match node.parent.as_deref() {
                Some(parent) => node = parent,
                None => break,
            }
        }
        by_ignore.or(by_gitignore).or(by_exclude).or(by_global).unwrap_or(false)
    }

    /// The ignore lines that match the entry at `relative`, strongest
    /// first (the order `is_ignored` decides by: `.ignore` files, then
    /// `.gitignore` files, then `info/exclude`, then the global file; the
    /// deepest folder first in each): the first one decides.
    pub fn matching_lines(&self, relative: &Path, is_dir: bool) -> Vec<IgnoreLine> {
        let Some(mut node) = self.0.as_deref() else { return Vec::new() };
        let text = path_text(relative);
        let (mut ignore, mut gitignore, mut exclude, mut global) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut saw_git = false;
        loop {
            let joined;
            let (path, folder) = match &node.at {
                Anchor::Walked(start) => {
                    let folder = text.as_os_str().as_encoded_bytes().get(..start.saturating_sub(1)).unwrap_or_default();
                    (tail(&text, *start), String::from_utf8_lossy(folder).into_owned())
                }
                Anchor::Above(below) => {
                    joined = Path::new(below).join(&*text);
                    (joined.as_path(), vec![".."; Path::new(below).components().count()].join("/"))
                }
            };
            let in_folder = |name: &str| if folder.is_empty() { name.to_string() } else { format!("{folder}/{name}") };
            // A file's deciding line, and when it re-includes, the line it overrides in the same file.
            let add = |into: &mut Vec<IgnoreLine>, patterns: Option<&Patterns>, file: String| {
                let Some(patterns) = patterns else { return };
                let Some((line, text, ignores)) = patterns.matched_line(path, is_dir, node.ignore_case) else { return };
                into.push(IgnoreLine { file: file.clone(), line, text, ignores });
                if !ignores {
                    if let Some((line, text, ignores)) =
                        patterns.ignoring_line_before(line.saturating_sub(1), path, is_dir, node.ignore_case)
                    {
                        into.push(IgnoreLine { file, line, text, ignores });
                    }
                }
            };
            let rules = &node.rules;
            add(&mut ignore, rules.ignore.as_ref(), in_folder(IGNORE));
            if !saw_git {
                add(&mut gitignore, rules.gitignore.as_ref(), in_folder(GITIGNORE));
                if let Some(repo) = &rules.repo {
                    add(&mut exclude, repo.exclude.as_ref(), in_folder(".git/info/exclude"));
                    add(&mut global, repo.global.as_deref(), "core.excludesFile".to_string());
                    saw_git = true;
                }
            }
            match node.parent.as_deref() {
                Some(parent) => node = parent,
                None => break,
            }
        }
        ignore.into_iter().chain(gitignore).chain(exclude).chain(global).collect()
    }
}

/// One ignore-file line that matches an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoreLine {
    /// The file, relative to the search directory (`.gitignore`,
    /// `src/.ignore`, `../.gitignore`, `.git/info/exclude`), or
    /// `core.excludesFile` for the user's global excludes file.
    pub file: String,
    /// From 1.
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// It ignores the entry (else, a `!` line, it re-includes it).
    pub ignores: bool,
}

impl IgnoreLine {
    /// `file:line: pattern`, as `git check-ignore -v` names a line.
    pub fn cite(&self) -> String {
        format!("{}:{}: {}", self.file, self.line, clip(&self.text, 200))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// `rules` inside the folder `dir`, its ignore files read from disk.
    fn enter_dir(rules: &Rules, dir: &Dir, prefix_len: usize, git: &GitEnv) -> Rules {
        rules.enter(FolderRules::compile(IgnoreFiles::read(dir, git).unwrap()).as_ref(), prefix_len)
    }

    fn tree(name: &str, files: &[(&str, &[u8])]) -> crate::testing::TempTree {
        crate::testing::TempTree::with(&format!("gitignore-{name}"), files)
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
        let top = enter_dir(&Rules::default(), &Dir::open(&root).unwrap(), 0, &GitEnv::none());
        assert!(top.is_ignored(Path::new("a.log"), false));
        assert!(!top.is_ignored(Path::new("keep.log"), false));
        assert!(top.is_ignored(Path::new("build"), true));
        assert!(!top.is_ignored(Path::new("build"), false), "`build/` matches folders only");
        let sub = enter_dir(&top, &Dir::open(&root.join("sub")).unwrap(), "sub/".len(), &GitEnv::none());
        assert!(!sub.is_ignored(Path::new("sub/a.log"), false), "the deeper .gitignore re-includes");
        assert!(sub.is_ignored(Path::new("sub/secret.log"), false), ".ignore beats .gitignore");
    }

    #[test]
    fn a_nested_repository_keeps_its_own_rules() {
        let root = tree("nested", &[(".gitignore", b"*.tmp\n"), ("inner/.git/info/exclude", b"*.bak\n")]);
        let top = enter_dir(&Rules::default(), &Dir::open(&root).unwrap(), 0, &GitEnv::none());
        let inner = enter_dir(&top, &Dir::open(&root.join("inner")).unwrap(), "inner/".len(), &GitEnv::none());
        assert!(!inner.is_ignored(Path::new("inner/a.tmp"), false));
        assert!(inner.is_ignored(Path::new("inner/a.bak"), false));
        assert!(top.is_ignored(Path::new("a.tmp"), false));
    }

    #[test]
    fn rules_above_the_root_apply_up_to_the_repository() {
        let root = tree("above", &[(".git/HEAD", b""), (".gitignore", b"src/gen/\n*.o\n"), ("src/gen/x", b"")]);
        let above = rules_above_on_disk(&root.join("src"), &GitEnv::none()).unwrap();
        let rules = enter_dir(&above, &Dir::open(&root.join("src")).unwrap(), 0, &GitEnv::none());
        assert!(rules.is_ignored(Path::new("gen"), true), "anchored at the repository root");
        assert!(rules.is_ignored(Path::new("deep/a.o"), false));
        assert!(!rules.is_ignored(Path::new("a.c"), false));
    }

    #[test]
    fn huge_files_compile_in_parts_and_the_last_line_still_wins() {
        let mut text = String::from("*.log\n");
        for i in 0..20_000 {
            text.push_str(&format!("a*b{i}*c\n"));
        }
        text.push_str("!keep.log\n");
        let root = tree("huge", &[(".gitignore", text.as_bytes())]);
        let rules = enter_dir(&Rules::default(), &Dir::open(&root).unwrap(), 0, &GitEnv::none());
        assert!(rules.is_ignored(Path::new("x.log"), false));
        assert!(rules.is_ignored(Path::new("a-b123-c"), false));
        assert!(!rules.is_ignored(Path::new("keep.log"), false));
        assert!(!rules.is_ignored(Path::new("y.txt"), false));
    }

    #[cfg(unix)]
    #[test]
    fn lines_that_are_not_utf8_match_their_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let root = tree("bytes", &[(".gitignore", b"bad-\xff.txt\n*.tmp\n")]);
        let rules = enter_dir(&Rules::default(), &Dir::open(&root).unwrap(), 0, &GitEnv::none());
        assert!(rules.is_ignored(Path::new(OsStr::from_bytes(b"bad-\xff.txt")), false));
        assert!(!rules.is_ignored(Path::new(OsStr::from_bytes(b"bad-\xfe.txt")), false));
        assert!(rules.is_ignored(Path::new("a.tmp"), false));
    }

    /// The rules inside `rel` below `root`, entered from `root` down with `git`.
    fn inside(root: &Path, rel: &str, git: &GitEnv) -> Rules {
        let mut rules = enter_dir(&Rules::default(), &Dir::open(root).unwrap(), 0, git);
        let mut at = String::new();
        for part in rel.split('/').filter(|p| !p.is_empty()) {
            at = if at.is_empty() { part.to_string() } else { format!("{at}/{part}") };
            rules = enter_dir(&rules, &Dir::open(&root.join(&at)).unwrap(), at.len() + 1, git);
        }
        rules
    }

    /// A user whose home is `home`, with no system config.
    fn user_at(home: &Path) -> Arc<GitEnv> {
        GitEnv::with(Some(gitconfig::Env { home: Some(home.to_path_buf()), no_system: true, ..Default::default() }))
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
        let rules = inside(&root, "", &GitEnv::none());
        assert!(rules.is_ignored(Path::new("a.log"), false));
        assert!(rules.is_ignored(Path::new("a.tmp"), false));
        assert!(rules.is_ignored(Path::new("out"), true));
        assert!(!rules.is_ignored(Path::new("a.txt"), false));
    }

    #[test]
    fn exclude_is_read_from_the_common_dir_of_a_git_file() {
        let root = tree(
            "common",
            &[
                ("main/.git/info/exclude", b"secret\n"),
                ("main/.git/worktrees/wt/commondir", b"../..\n"),
                ("main/.git/modules/lib/info/exclude", b"local-*\n"),
                ("main/lib/.git", b"gitdir: ../.git/modules/lib\n"),
                ("wt/.gitignore", b"*.tmp\n"),
            ],
        );
        let real = root.canonicalize().unwrap();
        fs::write(root.join("wt/.git"), format!("gitdir: {}\n", real.join("main/.git/worktrees/wt").display()))
            .unwrap();
        let wt = inside(&root.join("wt"), "", &GitEnv::none());
        assert!(wt.is_ignored(Path::new("secret"), false), "the main repository's info/exclude");
        assert!(wt.is_ignored(Path::new("a.tmp"), false));
        let main = inside(&root.join("main"), "lib", &GitEnv::none());
        assert!(main.is_ignored(Path::new("lib/local-notes"), false), "the submodule's own info/exclude");
        assert!(!main.is_ignored(Path::new("lib/secret"), false), "not its superproject's");
        // From inside the submodule, and from a folder below the worktree.
        let lib = rules_above_on_disk(&real.join("main/lib"), &GitEnv::none()).unwrap();
        assert!(inside(&root.join("main/lib"), "", &GitEnv::none()).is_ignored(Path::new("local-x"), false));
        assert!(!lib.is_ignored(Path::new("local-x"), false), "the submodule's top is the search root itself");
        fs::create_dir_all(root.join("wt/deep")).unwrap();
        assert!(rules_above_on_disk(&real.join("wt/deep"), &GitEnv::none())
            .unwrap()
            .is_ignored(Path::new("secret"), false));
    }

    #[test]
    fn the_global_file_comes_last_and_is_anchored_at_each_repository() {
        let root = tree(
            "global",
            &[
                ("home/.config/git/ignore", b"\xEF\xBB\xBF*.tmp\n/top.txt\n*.bak\n"),
                ("repo/.git/info/exclude", b"!x.tmp\n"),
                ("repo/.gitignore", b"!kept.tmp\n"),
                ("repo/sub/a", b""),
                ("repo/inner/.git/HEAD", b""),
                ("plain/a", b""),
            ],
        );
        let git = user_at(&root.join("home"));
        let repo = inside(&root.join("repo"), "", &git);
        assert!(repo.is_ignored(Path::new("a.tmp"), false));
        assert!(repo.is_ignored(Path::new("top.txt"), false));
        assert!(!repo.is_ignored(Path::new("sub/top.txt"), false), "anchored at the repository's top");
        assert!(!repo.is_ignored(Path::new("kept.tmp"), false), ".gitignore beats it");
        assert!(!repo.is_ignored(Path::new("x.tmp"), false), "info/exclude beats it");
        let inner = inside(&root.join("repo"), "inner", &git);
        assert!(inner.is_ignored(Path::new("inner/top.txt"), false), "a nested repository has it too");
        assert!(inner.is_ignored(Path::new("inner/kept.tmp"), false), "but not its parent's .gitignore");
        let sub = rules_above_on_disk(&root.join("repo/sub"), &git).unwrap();
        assert!(sub.is_ignored(Path::new("a.tmp"), false) && !sub.is_ignored(Path::new("top.txt"), false));
        assert!(!inside(&root.join("plain"), "", &git).is_ignored(Path::new("a.tmp"), false), "outside a repository");
        assert!(!inside(&root.join("repo"), "", &GitEnv::none()).is_ignored(Path::new("a.tmp"), false));
        // core.excludesFile: from the user's config, then the repository's (relative to its top).
        fs::write(root.join("home/.gitconfig"), "[core]\n\texcludesFile = ~/mine\n").unwrap();
        fs::write(root.join("home/mine"), "*.mine\n").unwrap();
        let repo = inside(&root.join("repo"), "", &user_at(&root.join("home")));
        assert!(repo.is_ignored(Path::new("a.mine"), false) && !repo.is_ignored(Path::new("a.tmp"), false));
        fs::write(root.join("repo/.git/config"), "[core]\n\texcludesfile = own-excludes\n").unwrap();
        fs::write(root.join("repo/own-excludes"), "*.own\n").unwrap();
        let repo = inside(&root.join("repo"), "", &user_at(&root.join("home")));
        assert!(repo.is_ignored(Path::new("a.own"), false) && !repo.is_ignored(Path::new("a.mine"), false));
    }

    #[test]
    fn ignore_case_follows_each_repository_config() {
        let root = tree(
            "case",
            &[
                ("home/.config/git/ignore", b"*.Swp\n"),
                ("repo/.git/config", b"[core]\n\tignoreCase = true\n"),
                ("repo/.git/info/exclude", b"SECRET\n"),
                ("repo/.gitignore", "*.LOG\nÉté\n".as_bytes()),
                ("repo/.ignore", b"Notes.md\n"),
                ("repo/sub/.gitignore", b"Build/\n"),
                ("repo/inner/.git/config", b"[core]\n\tignorecase = false\n"),
                ("repo/inner/.gitignore", b"*.LOG\n"),
            ],
        );
        let git = user_at(&root.join("home"));
        let repo = inside(&root.join("repo"), "sub", &git);
        for (path, is_dir) in
            [("a.log", false), ("secret", false), ("notes.MD", false), ("sub/build", true), ("b.swp", false)]
        {
            assert!(repo.is_ignored(Path::new(path), is_dir), "{path}");
        }
        assert!(
            repo.is_ignored(Path::new("ÉTé"), false) && !repo.is_ignored(Path::new("été"), false),
            "ASCII folds only"
        );
        let inner = inside(&root.join("repo"), "inner", &git);
        assert!(!inner.is_ignored(Path::new("inner/a.log"), false), "the nested repository's own setting");
        assert!(inner.is_ignored(Path::new("inner/a.LOG"), false));
        assert!(inner.is_ignored(Path::new("inner/notes.md"), false), "the parent's .ignore, by the parent's setting");
        // The user's setting applies where the repository's config says nothing.
        fs::write(root.join("repo/.git/config"), "").unwrap();
        assert!(!inside(&root.join("repo"), "", &git).is_ignored(Path::new("a.log"), false));
        fs::write(root.join("home/.gitconfig"), "[core]\n\tignorecase\n").unwrap();
        assert!(inside(&root.join("repo"), "", &user_at(&root.join("home"))).is_ignored(Path::new("a.log"), false));
    }
}
