//! Where a search may run: turning `cwd` + `path` into the logical absolute
//! path the policy sees, confining it to `roots` (through `..` and through
//! symlinks), and opening the search directory with the errors docs/API.md lists,
//! on the local disk or in a host's storage.

use crate::args::{Reader, Value};
use crate::cancel::Cancel;
use crate::entry::EntryKind;
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::index::IndexRef;
use crate::storage::{block_on, in_flight, StorageRef};
use crate::walk::{Root, Tree};
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// Where one call may look: the search path as the caller named it
/// (`cwd` + `path`, resolved) and the sandbox roots, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    /// Absolute and normalized: what the policy is asked about and results show.
    pub logical_path: PathBuf,
    pub roots: Option<Vec<PathBuf>>,
    /// Where the paths live.
    pub source: Source,
}

/// What a search walks.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Source {
    /// The local disk.
    #[default]
    Disk,
    /// A host's storage (a JS reader).
    Storage(StorageRef),
    /// A live index of a local folder (see `index`).
    Index(IndexRef),
}

impl Scope {
    /// Reads `cwd`, `path` and `roots`; touches no file.
    pub fn from_options(r: &Reader) -> Result<Scope> {
        let cwd = r.non_empty_text("cwd")?;
        let logical_path = resolve_logical(cwd, r.non_empty_text("path")?)?;
        let roots = match r.texts("roots")? {
            Some(roots) if roots.iter().any(String::is_empty) => {
                return Err(FindError::invalid_argument(
                    "`roots` holds an empty string; every root must be a directory",
                ));
            }
            Some(roots) => Some(resolve_roots(cwd, &roots)?),
            None => None,
        };
        Ok(Scope { logical_path, roots, source: Source::Disk })
    }

    /// Confines the path to the roots, then opens it: the directory to walk.
    /// The roots are checked twice: before opening (as the caller wrote the
    /// path, for the clearest error) and on the real path of the handle that
    /// was opened, so a symlink flipped in between cannot lead outside.
    pub fn open(&self) -> Result<Root> {
        match &self.source {
            Source::Disk => {}
            Source::Storage(storage) => return self.open_in(storage),
            Source::Index(index) => return self.open_in_index(index),
        }
        if let Some(roots) = &self.roots {
            check_roots(&self.logical_path, roots)?;
        }
        let root = open_search_dir(&self.logical_path)?;
        match &self.roots {
            Some(roots) if !inside_really(&root.path, roots) => Err(outside_roots(&self.logical_path, roots, true)),
            _ => Ok(root),
        }
    }

    /// `open` in a storage. The walk never follows a symlink there, and the
    /// storage cannot say where one leads: a search path that is a symlink is
    /// refused, and with `roots`, so is one that passes through a symlink
    /// below its root (the storage's `list` might follow it out).
    fn open_in(&self, storage: &StorageRef) -> Result<Root> {
        let mut checked: Vec<PathBuf> = vec![self.logical_path.clone()];
        if let Some(roots) = &self.roots {
            let Some(root) =
                roots.iter().filter(|r| self.logical_path.starts_with(r)).max_by_key(|r| r.as_os_str().len())
            else {
                return Err(outside_roots(&self.logical_path, roots, false));
            };
            let below_root = self.logical_path.ancestors().skip(1).take_while(|a| a != root);
            checked.extend(below_root.map(Path::to_path_buf));
        }
        let shown = clip(&self.display(), 300).into_owned();
        let start = |i: usize| {
            let (storage, path) = (storage.clone(), checked[i].to_string_lossy().into_owned());
            async move { (i, storage.stat(&path).await) }
        };
        let (mut answers, never) = (Vec::new(), Cancel::never());
        let asking = in_flight(storage.concurrency(), (0..checked.len()).collect(), &never, start, |answer, _| {
            answers.push(answer);
            Ok(())
        });
        block_on(asking).map_err(|e| search_path_error(&shown, &e, Asked::Reader))??;
        answers.sort_by_key(|(i, _)| *i);
        let kinds = answers
            .into_iter()
            .map(|(_, stat)| stat.map(|s| s.kind).map_err(|e| search_path_error(&shown, &e, Asked::Reader)))
            .collect::<Result<Vec<_>>>()?;
        // A way out of the roots comes first, whatever the path itself is.
        let through_link = kinds.iter().skip(1).any(|k| *k == Some(EntryKind::Symlink));
        match (kinds[0], &self.roots) {
            (_, Some(roots)) if through_link => return Err(outside_roots(&self.logical_path, roots, true)),
            (Some(EntryKind::Symlink), Some(roots)) => return Err(outside_roots(&self.logical_path, roots, true)),
            (Some(EntryKind::Symlink), None) => {
                return Err(FindError::new(
                    ErrorCode::NotADir,
                    format!("search path `{shown}` is a symlink in the reader, and the walk follows no symlink; pass the folder it leads to"),
                ))
            }
            (Some(EntryKind::File), _) => return Err(not_a_dir(&shown)),
            _ => {}
        }
        Ok(Root { tree: Tree::Storage(storage.clone()), path: self.logical_path.clone() })
    }

    /// `open` in a live index: the path must lie in the indexed folder (as
    /// written: the index holds no symlink it would follow).
    fn open_in_index(&self, index: &IndexRef) -> Result<Root> {
        if !self.logical_path.starts_with(&index.logical_path) {
            return Err(FindError::new(
                ErrorCode::OutsideRoot,
                format!(
                    "`{}` is outside the index's folder `{}`; pass a `path` inside it (or search without the index)",
                    clip(&self.display(), 300),
                    clip(&index.logical_path.to_string_lossy(), 300)
                ),
            ));
        }
        if let Some(roots) = &self.roots {
            if !roots.iter().any(|r| self.logical_path.starts_with(r)) {
                return Err(outside_roots(&self.logical_path, roots, false));
            }
        }
        let rel = self.logical_path.strip_prefix(&index.logical_path).unwrap_or(Path::new(""));
        let rel = rel.as_os_str().as_encoded_bytes().to_vec();
        let shown = clip(&self.display(), 300).into_owned();
        let tree = index.read()?;
        match tree.find(&rel).map(|id| tree.node(id).kind) {
            None => Err(FindError::new(
                ErrorCode::NotFound,
                format!("search path `{shown}` does not exist; check `path` (it is relative to `cwd`)"),
            )),
            Some(EntryKind::Dir) => Ok(Root { tree: Tree::Index(index.clone(), rel), path: self.logical_path.clone() }),
            Some(_) => Err(not_a_dir(&shown)),
        }
    }

    /// The search directory as results and messages show it: the logical
    /// path, except in a plain (not mounted) storage, where it keeps relative
    /// POSIX syntax: `docs`, and `.` for the storage's root.
    pub fn display(&self) -> String {
        match &self.source {
            Source::Storage(storage) if !storage.mounted() => relative_to_storage_root(&self.logical_path),
            _ => self.logical(),
        }
    }

    /// The logical path in its namespace, rooted: what the policy is asked
    /// about and what a storage is called with.
    pub fn logical(&self) -> String {
        self.logical_path.to_string_lossy().into_owned()
    }
}

/// A storage path (`/docs/a`) relative to the storage's root (`docs/a`).
fn relative_to_storage_root(path: &Path) -> String {
    let text = path.to_string_lossy();
    match text.trim_start_matches('/') {
        "" => ".".to_string(),
        relative => relative.to_string(),
    }
}

/// In a storage, `cwd` is a path of the storage's namespace: it defaults to
/// its root `/`, and a relative `cwd` starts there (not at the process's
/// working directory).
pub fn anchor_cwd_at_storage_root(fields: &mut Vec<(String, Value)>) {
    match fields.iter_mut().rev().find(|(k, _)| k == "cwd") {
        Some((_, Value::Text(cwd))) if !cwd.is_empty() && !cwd.starts_with('/') => *cwd = format!("/{cwd}"),
        Some((_, Value::Absent)) | None => fields.push(("cwd".into(), Value::Text("/".into()))),
        Some(_) => {}
    }
}

/// `path` resolved against `cwd` (itself resolved against the process's
/// working directory), with `.` and `..` folded lexically, as Node's
/// `path.resolve` does.
pub fn resolve_logical(cwd: Option<&str>, path: Option<&str>) -> Result<PathBuf> {
    for (name, value) in [("cwd", cwd), ("path", path)] {
        if value.is_some_and(|v| v.contains('\0')) {
            return Err(FindError::invalid_argument(format!(
                "`{name}` contains a NUL byte, which no file name can hold"
            )));
        }
    }
    let base = match cwd {
        Some(c) if Path::new(c).is_absolute() => PathBuf::from(c),
        other => {
            let process_cwd = std::env::current_dir().map_err(|e| {
                FindError::new(
                    ErrorCode::FsError,
                    format!("cannot read the process working directory: {e}; pass `cwd`"),
                )
            })?;
            match other {
                Some(c) => process_cwd.join(c),
                None => process_cwd,
            }
        }
    };
    let joined = match path {
        Some(p) => base.join(p),
        None => base,
    };
    Ok(normalize_lexically(&joined))
}

fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !matches!(out.components().next_back(), Some(Component::RootDir | Component::Prefix(_)) | None) {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Resolves each root the same way as the search path.
pub fn resolve_roots(cwd: Option<&str>, roots: &[String]) -> Result<Vec<PathBuf>> {
    roots
        .iter()
        .map(|r| {
            if r.contains('\0') {
                return Err(FindError::invalid_argument("`roots` holds a path with a NUL byte"));
            }
            resolve_logical(cwd, Some(r))
        })
        .collect()
}

/// The real path of `p`: its deepest existing ancestor resolved (symlinks
/// included) with the rest appended, so a missing path below a link that
/// leads out is judged by where the link leads.
fn real_path(p: &Path) -> PathBuf {
    for ancestor in p.ancestors() {
        if let Ok(real) = std::fs::canonicalize(ancestor) {
            let rest = p.strip_prefix(ancestor).unwrap_or(Path::new(""));
            return if rest.as_os_str().is_empty() { real } else { real.join(rest) };
        }
    }
    p.to_path_buf()
}

/// Fails with `outside-root` unless `logical` lies inside one of `roots`,
/// both as written and once symlinks are resolved.
pub fn check_roots(logical: &Path, roots: &[PathBuf]) -> Result<()> {
    let inside_lexically = roots.iter().any(|r| logical.starts_with(r));
    if inside_lexically && inside_really(&real_path(logical), roots) {
        return Ok(());
    }
    Err(outside_roots(logical, roots, inside_lexically))
}

fn inside_really(real: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|r| real.starts_with(real_path(r)))
}

fn outside_roots(logical: &Path, roots: &[PathBuf], inside_lexically: bool) -> FindError {
    const SHOWN: usize = 3;
    let mut listed = roots
        .iter()
        .take(SHOWN)
        .map(|r| format!("`{}`", clip(&r.to_string_lossy(), 150)))
        .collect::<Vec<_>>()
        .join(", ");
    if roots.len() > SHOWN {
        listed.push_str(&format!(" and {} more", roots.len() - SHOWN));
    }
    let via_link = if inside_lexically { " (through a symlink)" } else { "" };
    FindError::new(
        ErrorCode::OutsideRoot,
        if roots.is_empty() {
            format!(
                "`{}` is outside the allowed roots: `roots` is empty, so no path may be searched",
                clip(&logical.to_string_lossy(), 300)
            )
        } else {
            format!(
                "`{}` resolves outside the allowed roots{via_link}: {listed}; pass a `path` inside one of them",
                clip(&logical.to_string_lossy(), 300)
            )
        },
    )
}

/// Opens the search path, which must be a readable directory (a symlinked
/// root is walked once, as itself).
pub fn open_search_dir(logical: &Path) -> Result<Root> {
    let shown = clip(&logical.to_string_lossy(), 300).into_owned();
    let refused = |e: std::io::Error| search_path_error(&shown, &e, Asked::Os);
    let md = std::fs::metadata(logical).map_err(refused)?;
    if !md.is_dir() {
        return Err(not_a_dir(&shown));
    }
    Root::open(logical).map_err(refused)
}

/// Who answered about the search path, for the messages.
#[derive(Clone, Copy)]
enum Asked {
    Os,
    Reader,
}

/// Why the search path cannot be opened, as an error docs/API.md lists.
fn search_path_error(shown: &str, e: &std::io::Error, asked: Asked) -> FindError {
    let (place, refuser) = match asked {
        Asked::Os => ("", "the OS refused to open"),
        Asked::Reader => (" in the reader", "the reader refused"),
    };
    match e.kind() {
        ErrorKind::NotFound => FindError::new(
            ErrorCode::NotFound,
            format!("search path `{shown}` does not exist{place}; check `path` (it is relative to `cwd`)"),
        ),
        ErrorKind::NotADirectory => FindError::new(
            ErrorCode::NotFound,
            format!("search path `{shown}` does not exist{place}: a part of it is a file, not a directory"),
        ),
        ErrorKind::PermissionDenied => {
            FindError::new(ErrorCode::PermissionDenied, format!("permission denied: {refuser} `{shown}`"))
        }
        _ => match asked {
            Asked::Os => FindError::new(ErrorCode::FsError, format!("cannot open search path `{shown}`: {e}")),
            Asked::Reader => FindError::new(ErrorCode::FsError, format!("the reader failed on `{shown}`: {e}")),
        },
    }
}

fn not_a_dir(shown: &str) -> FindError {
    FindError::new(
        ErrorCode::NotADir,
        format!(
            "search path `{shown}` is a file, not a directory; pass its folder as `path` and its name as `pattern`"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_path_resolve() {
        let p = resolve_logical(Some("/work/a"), Some("../b/./c")).unwrap();
        assert_eq!(p, PathBuf::from("/work/b/c"));
        assert_eq!(resolve_logical(Some("/w"), None).unwrap(), PathBuf::from("/w"));
        assert_eq!(resolve_logical(Some("/w"), Some("/abs")).unwrap(), PathBuf::from("/abs"));
        assert_eq!(resolve_logical(Some("/"), Some("../../x")).unwrap(), PathBuf::from("/x"));
        assert_eq!(resolve_logical(Some("/"), Some("a\0b")).unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(resolve_roots(Some("/"), &["x\0".into()]).unwrap_err().code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn roots_confine_lexically_and_through_links() {
        let dir = std::env::temp_dir().join(format!("af-sandbox-{}", std::process::id()));
        let inside = dir.join("root");
        let outside = dir.join("elsewhere");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, inside.join("link")).unwrap();
        let roots = vec![inside.clone()];
        assert!(check_roots(&inside, &roots).is_ok());
        assert_eq!(check_roots(&dir.join("elsewhere"), &roots).unwrap_err().code, ErrorCode::OutsideRoot);
        let via_dots = resolve_logical(Some(inside.to_str().unwrap()), Some("../elsewhere")).unwrap();
        assert_eq!(check_roots(&via_dots, &roots).unwrap_err().code, ErrorCode::OutsideRoot);
        #[cfg(unix)]
        {
            let err = check_roots(&inside.join("link"), &roots).unwrap_err();
            assert!(err.message.contains("symlink"), "{}", err.message);
            let missing = check_roots(&inside.join("link/missing/deeper"), &roots).unwrap_err();
            assert_eq!(missing.code, ErrorCode::OutsideRoot);
            assert!(check_roots(&inside.join("missing"), &roots).is_ok());
        }
        assert_eq!(check_roots(&inside, &[]).unwrap_err().code, ErrorCode::OutsideRoot);
        let many: Vec<PathBuf> = (0..1000).map(|i| dir.join(format!("{i}{}", "r".repeat(5000)))).collect();
        let e = check_roots(&outside.join("p".repeat(5000)), &many).unwrap_err();
        assert!(e.message.len() < 1024 && e.message.contains(" and 997 more;"), "{}", e.message);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn opening_reports_missing_and_files() {
        let dir = std::env::temp_dir().join(format!("af-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("f.txt"), "x").unwrap();
        assert!(open_search_dir(&dir).is_ok());
        assert_eq!(open_search_dir(&dir.join("nope")).unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(open_search_dir(&dir.join("f.txt")).unwrap_err().code, ErrorCode::NotADir);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
