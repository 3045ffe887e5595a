//! Where a search may run, as path logic: turning `cwd` + `path` into the
//! logical absolute path the policy sees, confining it to `roots` (through
//! `..` and through symlinks), and the errors for a search path that cannot
//! be searched. Opening it in its backend is `source`'s; on disk with
//! `roots`, `open_confined` opens it so that it is inside a root by identity,
//! not only by its path's text: a path string can lie (a symlink to
//! `/proc/<pid>/root/...` of a process in another mount namespace has a
//! real path inside the roots and leads to another folder).

use crate::args::Reader;
use crate::dir::Dir;
use crate::error::{clip, ErrorCode, FindError, Result};
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// Where one call may look: the search path as the caller named it
/// (`cwd` + `path`, resolved) and the sandbox roots, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    /// Absolute and normalized: what the policy is asked about and results show.
    pub logical_path: PathBuf,
    pub roots: Option<Vec<PathBuf>>,
}

/// Where `cwd` starts when the caller gives none, or gives a relative one.
#[derive(Debug, Clone, PartialEq)]
pub enum CwdBase {
    /// The local disk: the process's working directory.
    Process,
    /// A host's storage: its root `/` (its paths are not the process's).
    StorageRoot,
    /// A live index: a missing `cwd` is its folder.
    Folder(PathBuf),
}

impl Scope {
    /// Reads `cwd`, `path` and `roots`, `cwd` starting at `base`; touches no file.
    pub fn from_options(r: &Reader, base: &CwdBase) -> Result<Scope> {
        let given = r.non_empty_text("cwd")?;
        let cwd: Option<std::borrow::Cow<'_, str>> = match (base, given) {
            (CwdBase::StorageRoot, None) => Some("/".into()),
            (CwdBase::StorageRoot, Some(c)) if !c.starts_with('/') => Some(format!("/{c}").into()),
            (CwdBase::Folder(folder), None) => Some(folder.to_string_lossy()),
            (_, c) => c.map(Into::into),
        };
        let cwd = cwd.as_deref();
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
        Ok(Scope { logical_path, roots })
    }

    /// The logical path in its namespace, rooted: what the policy is asked
    /// about and what a storage is called with.
    pub fn logical(&self) -> String {
        self.logical_path.to_string_lossy().into_owned()
    }
}

/// `path` resolved against `cwd` (itself resolved against the process's
/// working directory), with `.` and `..` folded lexically, as Node's
/// `path.resolve` does.
pub fn resolve_logical(cwd: Option<&str>, path: Option<&str>) -> Result<PathBuf> {
    for (name, value) in [("`cwd`", cwd), ("`path`", path)] {
        if let Some(value) = value {
            check_path_text(name, value)?;
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

/// Refuses a path whose text no file can have: one holding a NUL byte (the
/// OS would read it only up to the NUL, another path). Every path a call
/// takes goes through it (`cwd`, `path`, `roots`, the path `explain` is asked
/// about), so each is refused alike, before anything is opened.
pub fn check_path_text(what: &str, value: &str) -> Result<()> {
    if value.contains('\0') {
        return Err(FindError::invalid_argument(format!("{what} contains a NUL byte, which no file name can hold")));
    }
    // On Windows, the forms whose text names something else (see `windows_path`).
    if let Some(why) = cfg!(windows).then(|| crate::windows_path::refused(value)).flatten() {
        return Err(FindError::invalid_argument(format!("{what} `{}` {why}", clip(value, 300))));
    }
    Ok(())
}

/// True when the OS refused a path for its text, not for what is on disk: a
/// name longer than the file system allows or a path longer than the OS
/// takes (`ENAMETOOLONG`), or on Windows a name with characters it forbids.
pub fn is_unusable_name(e: &std::io::Error) -> bool {
    e.kind() == ErrorKind::InvalidFilename
}

/// The error for such a path (see `is_unusable_name`): `invalid-argument`,
/// as for a NUL byte, since nothing can be reached by that name and only
/// another argument helps (`fix` says which). `subject` names the path.
pub fn unusable_name(subject: &str, e: &std::io::Error, fix: &str) -> FindError {
    FindError::invalid_argument(format!(
        "{subject} is refused for its name: {e} (a name is at most 255 bytes on most file systems, a path 4096 on Linux); {fix}"
    ))
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
            check_path_text("a path in `roots`", r)?;
            resolve_logical(cwd, Some(r))
        })
        .collect()
}

/// The real path of `p`: its deepest existing ancestor resolved (symlinks
/// included) with the rest appended, so a missing path below a link that
/// leads out is judged by where the link leads.
pub fn real_path(p: &Path) -> PathBuf {
    for ancestor in p.ancestors() {
        if let Ok(real) = std::fs::canonicalize(ancestor) {
            let rest = p.strip_prefix(ancestor).unwrap_or(Path::new(""));
            return if rest.as_os_str().is_empty() { real } else { real.join(rest) };
        }
    }
    p.to_path_buf()
}

/// Fails with `outside-root` unless `logical` lies inside one of `roots`,
/// both as written and once symlinks are resolved. On Unix "as written" is
/// the path's text; on Windows, where one folder has many texts (8.3 short
/// names, case, `\\?\` and UNC forms), it is a folder on the path that is
/// a root by identity (see `on_a_root`).
pub fn check_roots(logical: &Path, roots: &[PathBuf]) -> Result<()> {
    check_roots_by(logical, roots, &root_identities(roots))
}

/// `check_roots`, with the roots' identities (`root_identities`) taken once for the call.
fn check_roots_by(logical: &Path, roots: &[PathBuf], ids: &[Identity]) -> Result<()> {
    let inside_as_written =
        roots.iter().any(|r| logical.starts_with(r)) || (cfg!(windows) && on_a_root(logical, ids, identify));
    if inside_as_written && really_inside(&real_path(logical), roots, ids) {
        return Ok(());
    }
    Err(outside_roots(logical, roots, inside_as_written))
}

/// Whether the real path `real` lies in one of `roots`: by the real paths'
/// text on Unix (where `open_confined` then checks by identity), by
/// identity on Windows.
pub fn inside_really(real: &Path, roots: &[PathBuf]) -> bool {
    really_inside(real, roots, &root_identities(roots))
}

fn really_inside(real: &Path, roots: &[PathBuf], ids: &[Identity]) -> bool {
    match cfg!(windows) {
        true => on_a_root(real, ids, identify),
        false => roots.iter().any(|r| real.starts_with(real_path(r))),
    }
}

/// The roots' identities where the checks compare them (Windows); none
/// elsewhere, whose checks compare real paths' text here.
fn root_identities(roots: &[PathBuf]) -> Vec<Identity> {
    match cfg!(windows) {
        true => identities(roots),
        false => Vec::new(),
    }
}

/// What a folder is, whatever its path's text: `(st_dev, st_ino)` on Unix,
/// the volume serial number and file ID on Windows (`same_file::Handle`,
/// which holds the folder open).
#[cfg(unix)]
type Identity = (u64, u64);
#[cfg(windows)]
type Identity = same_file::Handle;
#[cfg(not(any(unix, windows)))]
type Identity = PathBuf;

/// The identity of the folder (or file) at `path`, following links.
fn identify(path: &Path) -> std::io::Result<Identity> {
    #[cfg(unix)]
    return Dir::open(path)?.identity();
    #[cfg(windows)]
    return same_file::Handle::from_path(path);
    #[cfg(not(any(unix, windows)))]
    return std::fs::canonicalize(path);
}

/// The identities of the roots that can be opened (one that cannot holds nothing to search).
fn identities(roots: &[PathBuf]) -> Vec<Identity> {
    roots.iter().filter_map(|r| identify(r).ok()).collect()
}

/// Whether `path` or a folder above it is one of the folders `roots` by
/// identity, as `identify` tells it: how two texts of one folder are found
/// to be one, on any platform. A part of the path that cannot be opened is
/// passed over (a missing tail is judged by what lies above it).
pub fn on_a_root<I: PartialEq>(path: &Path, roots: &[I], identify: impl Fn(&Path) -> std::io::Result<I>) -> bool {
    !roots.is_empty()
        && path
            .ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .any(|a| identify(a).is_ok_and(|id| roots.contains(&id)))
}

pub fn outside_roots(logical: &Path, roots: &[PathBuf], inside_lexically: bool) -> FindError {
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
/// root is walked once, as itself): the open folder and its real path.
pub fn open_search_dir(logical: &Path) -> Result<(Dir, PathBuf)> {
    let shown = clip(&logical.to_string_lossy(), 300).into_owned();
    let refused = |e: std::io::Error| search_path_error(&shown, &e, Asked::Os);
    let md = std::fs::metadata(logical).map_err(refused)?;
    if !md.is_dir() {
        return Err(not_a_dir(&shown));
    }
    let dir = Dir::open(logical).map_err(refused)?;
    let real = dir.real_path(logical).map_err(refused)?;
    Ok((dir, real))
}

/// Opens the search path on disk with `roots`: the folder the path leads
/// to, reached again beneath a root's own handle (see `Dir::open_dir_confined`:
/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)` on Linux 5.6+, else a
/// component walk with `O_NOFOLLOW` and an identity check of the ancestors),
/// and the same folder by identity (`st_dev`, `st_ino`) as the one the path
/// opened. The walk then goes from that handle. Anything else is
/// `outside-root`: a path that only names a place inside the roots.
#[cfg(unix)]
pub fn open_confined(logical: &Path, roots: &[PathBuf]) -> Result<(Dir, PathBuf)> {
    check_roots(logical, roots)?;
    let (target, real) = open_search_dir(logical)?;
    let shown = clip(&logical.to_string_lossy(), 300).into_owned();
    let wanted = target.identity().map_err(|e| search_path_error(&shown, &e, Asked::Os))?;
    drop(target);
    match beneath_a_root(wanted, &real, roots, beneath()).map_err(|e| search_path_error(&shown, &e, Asked::Os))? {
        Some(dir) => Ok((dir, real)),
        None => Err(outside_roots(logical, roots, true)),
    }
}

/// The folder `wanted` (an identity), whose real path is `real`, opened
/// beneath one of `roots` by `how`; `None` when it is beneath none of them.
#[cfg(unix)]
fn beneath_a_root(
    wanted: (u64, u64),
    real: &Path,
    roots: &[PathBuf],
    how: crate::dir::Beneath,
) -> std::io::Result<Option<Dir>> {
    // Any root the folder really lies in (a symlink in one root may lead into another).
    for root in roots {
        let Ok(root_dir) = Dir::open(root) else { continue };
        let Ok(root_real) = root_dir.real_path(root) else { continue };
        let Ok(rel) = real.strip_prefix(&root_real) else { continue };
        match root_dir.open_dir_confined(rel, how) {
            Ok(dir) if dir.identity()? == wanted => return Ok(Some(dir)),
            // Another folder at that place, or no way to it beneath the root:
            // the path does not lead where its text says.
            Ok(_) => {}
            Err(e) if leads_elsewhere(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// Off Unix: the search path and its real path (junctions and links
/// resolved by the OS) each inside a root by identity (`check_roots`), and
/// the folder the path opened the same, by identity, as the one at its
/// real path. The walk then goes by path (see docs/RELIABILITY.md for what
/// that leaves open).
#[cfg(not(unix))]
pub fn open_confined(logical: &Path, roots: &[PathBuf]) -> Result<(Dir, PathBuf)> {
    let ids = root_identities(roots);
    check_roots_by(logical, roots, &ids)?;
    let (dir, real) = open_search_dir(logical)?;
    let same = matches!((identify(logical), identify(&real)), (Ok(a), Ok(b)) if a == b);
    if !same || !really_inside(&real, roots, &ids) {
        return Err(outside_roots(logical, roots, true));
    }
    Ok((dir, real))
}

/// The errors of a path that is not beneath a root after all: a symlink or
/// magic link on the way (`ELOOP`), a step out (`EXDEV`), or nothing there
/// (the real path named a place that, from the root, is not the folder).
#[cfg(unix)]
fn leads_elsewhere(e: &std::io::Error) -> bool {
    crate::dir::is_gone(e) || e.raw_os_error() == Some(libc::EXDEV)
}

/// How the sandbox opens beneath a root: `openat2` where the kernel has it.
/// `AGENT_FIND_SANDBOX=components` forces the walk older kernels get, so
/// the tests can run it on a new one.
#[cfg(unix)]
fn beneath() -> crate::dir::Beneath {
    use crate::dir::Beneath;
    static CHOSEN: std::sync::OnceLock<Beneath> = std::sync::OnceLock::new();
    *CHOSEN.get_or_init(|| match std::env::var_os("AGENT_FIND_SANDBOX") {
        Some(v) if v == "components" => Beneath::Components,
        _ => Beneath::Openat2,
    })
}

/// Who answered about the search path, for the messages.
#[derive(Clone, Copy)]
pub enum Asked {
    Os,
    Reader,
}

/// Why the search path cannot be opened, as an error docs/API.md lists.
pub fn search_path_error(shown: &str, e: &std::io::Error, asked: Asked) -> FindError {
    let (place, refuser) = match asked {
        Asked::Os => ("", "the OS refused to open"),
        Asked::Reader => (" in the reader", "the reader refused"),
    };
    if is_unusable_name(e) {
        return unusable_name(&format!("search path `{shown}`"), e, "check `path` (it is relative to `cwd`)");
    }
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

pub fn not_a_dir(shown: &str) -> FindError {
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
    fn a_name_too_long_is_the_argument_at_fault() {
        let dir = crate::testing::TempTree::new("long-name");
        let long = dir.join("x".repeat(5000));
        let e = open_search_dir(&long).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument, "{}", e.message);
        assert!(e.message.contains("refused for its name") && e.message.contains("`path`"), "{}", e.message);
        // A missing path of ordinary length stays not-found.
        assert_eq!(open_search_dir(&dir.join("x".repeat(200))).unwrap_err().code, ErrorCode::NotFound);
    }

    #[test]
    fn roots_confine_lexically_and_through_links() {
        let dir = crate::testing::TempTree::new("sandbox");
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
    }

    #[cfg(unix)]
    #[test]
    fn the_roots_are_checked_by_identity() {
        use crate::dir::Beneath;
        let dir = crate::testing::TempTree::new("identity");
        let (root, outside) = (dir.join("root"), dir.join("outside"));
        std::fs::create_dir_all(root.join("inner/deep")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
        let id = |p: &Path| Dir::open(p).unwrap().identity().unwrap();
        let roots = vec![root.clone()];
        for how in [Beneath::Openat2, Beneath::Components] {
            let inner = beneath_a_root(id(&root.join("inner")), &root.join("inner"), &roots, how).unwrap();
            assert_eq!(inner.unwrap().identity().unwrap(), id(&root.join("inner")), "{how:?}");
            let top = beneath_a_root(id(&root), &root, &roots, how).unwrap();
            assert!(top.is_some(), "{how:?}: the root itself");
            // A real path that names a folder inside while the path led to
            // another one (as through `/proc/<pid>/root` of another mount
            // namespace): the identities differ.
            let lying = beneath_a_root(id(&outside), &root.join("inner"), &roots, how).unwrap();
            assert!(lying.is_none(), "{how:?}");
            let missing = beneath_a_root(id(&outside), &root.join("gone/x"), &roots, how).unwrap();
            assert!(missing.is_none(), "{how:?}");
            let through_link = beneath_a_root(id(&outside), &root.join("out"), &roots, how).unwrap();
            assert!(through_link.is_none(), "{how:?}");
            assert!(beneath_a_root(id(&outside), &outside, &roots, how).unwrap().is_none(), "{how:?}");
        }
        // End to end: a symlink inside the root to a folder inside it is
        // followed; one leading out is refused.
        std::os::unix::fs::symlink(root.join("inner"), root.join("abs-in")).unwrap();
        std::os::unix::fs::symlink("inner/deep", root.join("rel-in")).unwrap();
        for inside in ["abs-in", "rel-in", "inner"] {
            let (opened, real) = open_confined(&root.join(inside), &roots).unwrap();
            assert_eq!(opened.identity().unwrap(), id(&real), "{inside}");
            assert!(real.starts_with(&root), "{inside}");
        }
        assert_eq!(open_confined(&root.join("out"), &roots).unwrap_err().code, ErrorCode::OutsideRoot);
        assert_eq!(open_confined(&root.join("missing"), &roots).unwrap_err().code, ErrorCode::NotFound);
    }

    /// One folder under many texts, as Windows has them (8.3 short names,
    /// case, verbatim and UNC forms), told apart by identity only: the
    /// identities here are a table, so the logic runs with those forms on
    /// any platform.
    #[test]
    fn a_root_is_found_on_a_path_by_identity_whatever_its_text() {
        let table: &[(&str, u32)] = &[
            ("C:/Program Files/app", 1),
            ("C:/PROGRA~1/app", 1),
            ("c:/program files/APP", 1),
            ("//?/C:/Program Files/app", 1),
            ("//localhost/C$/Program Files/app", 1),
            ("C:/Program Files/app/src", 2),
            ("C:/PROGRA~1/app/src", 2),
            ("C:/Program Files", 3),
            ("C:/Other", 4),
            ("C:/Program Files/app/junction", 4),
        ];
        let identify = |p: &Path| {
            let text = p.to_str().unwrap();
            table.iter().find(|(t, _)| *t == text).map(|&(_, id)| id).ok_or(std::io::ErrorKind::NotFound.into())
        };
        let root = [identify(Path::new("C:/Program Files/app")).unwrap()];
        for inside in [
            "C:/PROGRA~1/app/src",
            "c:/program files/APP/new/file",
            "//?/C:/Program Files/app/src",
            "//localhost/C$/Program Files/app/x",
            "C:/Program Files/app",
        ] {
            assert!(on_a_root(Path::new(inside), &root, identify), "{inside}");
        }
        // The folder a junction leads to is another, whatever its text says.
        for outside in ["C:/Other/x", "C:/Program Files/other", "C:/Program Files", "D:/app"] {
            assert!(!on_a_root(Path::new(outside), &root, identify), "{outside}");
        }
        assert!(!on_a_root(Path::new("C:/Program Files/app/src"), &[] as &[u32], identify));
    }

    /// The same logic with the OS's identities: a root named through a
    /// symlinked parent (macOS's `/var` and `/private/var`) is found on the
    /// real path, and a link leading out is not inside.
    #[cfg(unix)]
    #[test]
    fn a_root_is_found_on_a_path_by_the_identity_the_os_gives() {
        let dir = crate::testing::TempTree::new("on-a-root");
        std::fs::create_dir_all(dir.join("private/var/project/src")).unwrap();
        std::fs::create_dir_all(dir.join("outside")).unwrap();
        std::os::unix::fs::symlink(dir.join("private/var"), dir.join("var")).unwrap();
        std::os::unix::fs::symlink(dir.join("outside"), dir.join("private/var/project/out")).unwrap();
        let roots = identities(&[dir.join("var/project")]);
        assert_eq!(roots.len(), 1);
        assert!(on_a_root(&dir.join("private/var/project/src"), &roots, identify));
        assert!(on_a_root(&dir.join("var/project/src/missing/x"), &roots, identify));
        assert!(!on_a_root(&real_path(&dir.join("var/project/out")), &roots, identify));
        assert!(!on_a_root(&dir.join("private/var"), &roots, identify));
    }

    #[test]
    fn opening_reports_missing_and_files() {
        let dir = crate::testing::TempTree::new("open");
        std::fs::write(dir.join("f.txt"), "x").unwrap();
        assert!(open_search_dir(&dir).is_ok());
        assert_eq!(open_search_dir(&dir.join("nope")).unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(open_search_dir(&dir.join("f.txt")).unwrap_err().code, ErrorCode::NotADir);
    }
}
