//! The repository a git-scoped call reads (`git`, `changedSince`,
//! `gitStatus`), found and opened so that reading it is safe whatever the
//! folder holds: it is found from the search folder as git finds it, with
//! the project's own bounded reads (`dir::read_file_following`); with
//! `roots`, its work tree, git dir, common dir and object stores must lie
//! inside them, else the call is `outside-root`; the metadata files gix opens
//! by name must be regular files (or absent) of bounded size, else the call
//! is `fs-error`, before gix opens any of them; and gix opens it without
//! config includes (as the ignore rules' own config reader, `gitconfig`) and
//! with every `filter.<driver>` section taken out of its configuration in
//! memory, so hashing a work-tree file never starts a program. The names of
//! those drivers are kept: a file they apply to is judged on its raw bytes,
//! and the result says so (see `git_status`).
//!
//! Hand-written rather than left to `gix::discover` because gix opens these
//! files by path with plain `open` (a FIFO blocks it, a device reads for
//! ever) and follows a `.git` file wherever it points, and because it has no
//! option to run no filter driver. What gix still opens by itself are the
//! files whose names it learns while reading (a pack, a loose object, a
//! ref): the checks here list those folders (`refs/`, `objects/`) first, so
//! a FIFO or device there fails the call instead of blocking it. A file
//! swapped for a FIFO between the check and gix's open is the one gap left.

use crate::error::{clip, ErrorCode, FindError, Result};
use crate::git_status::InsideRoots;
use crate::gitconfig::MAX_CONFIG_BYTES;
use crate::gitdir::{parse_gitfile, DOT_GIT, MAX_GITFILE_BYTES};
use std::path::{Path, PathBuf};

/// A repository opened for git scoping.
pub struct Opened {
    pub repo: gix::Repository,
    /// The real path of its work tree's top.
    pub workdir: PathBuf,
    /// The filter drivers its configuration names, which are not run.
    pub drivers: Vec<String>,
}

/// How deep `objects/info/alternates` may chain (git's own limit).
const MAX_ALTERNATE_DEPTH: usize = 5;

/// How deep `refs/` may nest before the check gives up on it (real refs are
/// a few levels deep; a deeper tree is refused rather than walked for ever).
const MAX_REFS_DEPTH: usize = 64;

/// Opens the repository whose work tree holds `folder` (a real path). With
/// `roots`, every part of the repository must lie inside them.
pub fn open(folder: &Path, roots: Option<InsideRoots<'_>>) -> Result<Opened> {
    let (top, git_dir) = find_top(folder)?;
    let git_dir = real(&git_dir);
    let common_dir = real(&common_dir_of(&git_dir));
    if let Some(roots) = roots {
        for (what, path) in [("work tree", &top), ("git dir", &git_dir), ("common dir", &common_dir)] {
            confine(path, roots, &top, what)?;
        }
    }
    let mut checked = vec![common_dir.join("objects")];
    check_metadata(&git_dir, &common_dir)?;
    check_objects(&common_dir.join("objects"), roots, &top, 0, &mut checked)?;

    let mut options = gix::open::Options::default();
    // Includes are not followed, as `gitconfig` does not follow them: a
    // repository's config cannot make the call read a file anywhere.
    options.permissions.config.includes = false;
    let mut repo = options.open(&top).map_err(|e| git_failed("setup", e))?;
    let drivers = take_out_filter_drivers(&mut repo)?;
    let workdir = match repo.workdir() {
        Some(dir) => real(dir),
        None => return Err(not_a_repository(folder, "it is in a bare repository, which has no work tree")),
    };
    if let Some(roots) = roots {
        confine(&workdir, roots, &top, "work tree")?;
    }
    Ok(Opened { repo, workdir, drivers })
}

/// The folder whose `.git` makes `folder` part of a work tree, and the git
/// dir that `.git` leads to: the nearest ancestor (or `folder` itself) with
/// a `.git` folder, or a `.git` file naming a git dir, as git's discovery
/// finds it. A `.git` file that names no git dir is an error there, as in git.
fn find_top(folder: &Path) -> Result<(PathBuf, PathBuf)> {
    for top in folder.ancestors() {
        let dot_git = top.join(DOT_GIT);
        let Ok(meta) = std::fs::metadata(&dot_git) else { continue };
        let git_dir = if meta.is_dir() {
            dot_git.clone()
        } else if meta.is_file() {
            let named = crate::dir::read_file_following(&dot_git, MAX_GITFILE_BYTES).and_then(|b| parse_gitfile(&b));
            match named {
                Some(named) => top.join(named),
                None => return Err(not_a_repository(folder, &format!("`{}` names no git dir", shown(&dot_git)))),
            }
        } else {
            continue;
        };
        if looks_like_git_dir(&git_dir) {
            return Ok((top.to_path_buf(), git_dir));
        }
        if !meta.is_dir() {
            return Err(not_a_repository(
                folder,
                &format!("`{}` names `{}`, which is no git dir", shown(&dot_git), shown(&git_dir)),
            ));
        }
    }
    Err(not_a_repository(folder, "no folder on the way up holds a `.git`"))
}

/// Whether `git_dir` is a repository as git checks it: a `HEAD` file, and
/// `objects/` and `refs/` folders in its common dir.
fn looks_like_git_dir(git_dir: &Path) -> bool {
    let common = common_dir_of(git_dir);
    std::fs::metadata(git_dir.join("HEAD")).is_ok_and(|m| m.is_file())
        && std::fs::metadata(common.join("objects")).is_ok_and(|m| m.is_dir())
        && std::fs::metadata(common.join("refs")).is_ok_and(|m| m.is_dir())
}

/// The common dir of `git_dir`: what its `commondir` file names (linked
/// worktrees), else itself.
fn common_dir_of(git_dir: &Path) -> PathBuf {
    let commondir = crate::dir::read_file_following(&git_dir.join("commondir"), MAX_GITFILE_BYTES);
    crate::gitdir::common_of(git_dir, commondir.as_deref())
}

fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `outside-root` unless `path` (a part of the repository at `top`) lies
/// inside one of `roots`.
fn confine(path: &Path, roots: InsideRoots<'_>, top: &Path, what: &str) -> Result<()> {
    if roots(&real(path)) {
        return Ok(());
    }
    Err(FindError::new(
        ErrorCode::OutsideRoot,
        format!(
            "git scoping would read the repository at `{}`, whose {what} `{}` is outside the allowed roots; \
             search without `git`, `changedSince` and `gitStatus`, or give `roots` that hold the whole repository",
            shown(top),
            shown(path),
        ),
    ))
}

/// The files of the git dir and the common dir that gix opens by name, each
/// a regular file (or absent) of at most its cap, and the folders whose
/// files it opens by names it reads (`refs/`), each holding only regular
/// files and folders.
fn check_metadata(git_dir: &Path, common_dir: &Path) -> Result<()> {
    const ANY: u64 = u64::MAX;
    let small = MAX_GITFILE_BYTES;
    let files: [(&Path, &str, u64); 13] = [
        (git_dir, "HEAD", small),
        (git_dir, "commondir", small),
        (git_dir, "gitdir", small),
        (git_dir, "index", ANY),
        (git_dir, "config.worktree", MAX_CONFIG_BYTES),
        (git_dir, "info/sparse-checkout", ANY),
        (common_dir, "config", MAX_CONFIG_BYTES),
        (common_dir, "packed-refs", ANY),
        (common_dir, "shallow", ANY),
        (common_dir, "info/grafts", ANY),
        (common_dir, "objects/info/alternates", small),
        (common_dir, "objects/info/commit-graph", ANY),
        (common_dir, "objects/info/commit-graphs/commit-graph-chain", small),
    ];
    for (dir, name, cap) in files {
        regular_or_absent(&dir.join(name), cap)?;
    }
    // Files at the top of a git dir are refs too (`ORIG_HEAD`, `FETCH_HEAD`),
    // and a split index's shared file lives there.
    for dir in [git_dir, common_dir] {
        check_folder(dir, false, 0)?;
        check_folder(&dir.join("refs"), true, 0)?;
    }
    Ok(())
}

/// `objects/` of a repository (or of an alternate): its `pack/`, `info/`
/// and fan-out folders hold only regular files, and each alternate it names
/// is inside `roots` and checked the same way.
fn check_objects(
    objects: &Path,
    roots: Option<InsideRoots<'_>>,
    top: &Path,
    depth: usize,
    checked: &mut Vec<PathBuf>,
) -> Result<()> {
    let Ok(listing) = std::fs::read_dir(objects) else { return Ok(()) };
    for entry in listing.flatten() {
        let name = entry.file_name();
        let is_fanout = name.len() == 2 && name.to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_hexdigit()));
        if is_fanout || name == "pack" || name == "info" {
            check_folder(&entry.path(), name == "info", 0)?;
        }
    }
    let alternates = objects.join("info/alternates");
    let Some(text) = crate::dir::read_file_following(&alternates, MAX_GITFILE_BYTES) else { return Ok(()) };
    for line in text.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        let Some(named) = parse_gitfile(&[b"gitdir: ", line].concat()) else { continue };
        let other = real(&objects.join(named));
        if checked.contains(&other) {
            continue;
        }
        if depth >= MAX_ALTERNATE_DEPTH {
            return Err(unusable(&alternates, "chains alternates deeper than git follows"));
        }
        if let Some(roots) = roots {
            confine(&other, roots, top, "object store (from `objects/info/alternates`)")?;
        }
        checked.push(other.clone());
        check_objects(&other, roots, top, depth + 1, checked)?;
    }
    Ok(())
}

/// No entry of `dir` is a FIFO or a device (following symlinks); with
/// `nested`, its folders are checked the same way. A missing `dir` is fine.
fn check_folder(dir: &Path, nested: bool, depth: usize) -> Result<()> {
    let Ok(listing) = std::fs::read_dir(dir) else { return Ok(()) };
    if depth > MAX_REFS_DEPTH {
        return Err(unusable(dir, "nests folders deeper than any repository"));
    }
    for entry in listing.flatten() {
        let path = entry.path();
        let kind = match entry.file_type() {
            Ok(kind) if kind.is_symlink() => match std::fs::metadata(&path) {
                Ok(meta) => meta.file_type(),
                Err(_) => continue,
            },
            Ok(kind) => kind,
            Err(_) => continue,
        };
        if kind.is_dir() {
            if nested {
                check_folder(&path, true, depth + 1)?;
            }
        } else if blocks_or_never_ends(kind) {
            return Err(not_regular(&path, kind));
        }
    }
    Ok(())
}

/// Whether opening and reading a file of this kind may wait for ever (a
/// FIFO waits for a writer) or never end (a device). A socket is left be: it
/// cannot be opened (`ENXIO` at once), and git's own daemon keeps one in the
/// git dir (`fsmonitor--daemon.ipc`).
fn blocks_or_never_ends(kind: std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        kind.is_fifo() || kind.is_char_device() || kind.is_block_device()
    }
    #[cfg(not(unix))]
    {
        !kind.is_file() && !kind.is_dir() && !kind.is_symlink()
    }
}

/// `path`, followed through symlinks, is a regular file of at most `cap`
/// bytes, or nothing.
fn regular_or_absent(path: &Path, cap: u64) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() > cap => {
            Err(unusable(path, &format!("is larger than {cap} bytes, more than git reads there")))
        }
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) if meta.is_dir() && path.ends_with("info/sparse-checkout") => Ok(()),
        Ok(meta) => Err(not_regular(path, meta.file_type())),
        Err(_) => Ok(()),
    }
}

fn not_regular(path: &Path, kind: std::fs::FileType) -> FindError {
    let what = describe(kind);
    unusable(path, &format!("is {what}, not a regular file"))
}

/// What a file that is not regular is, in words.
fn describe(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

fn unusable(path: &Path, why: &str) -> FindError {
    FindError::new(
        ErrorCode::FsError,
        format!(
            "git scoping cannot read the repository: `{}` {why}; git scoping reads only regular files of a \
             usual size, so fix or remove it, or search without `git`, `changedSince` and `gitStatus`",
            shown(path)
        ),
    )
}

/// Removes every `filter.<name>` section from the repository's configuration
/// in memory (nothing is written), so gix knows no driver to run, and
/// returns the names of the drivers that had a command.
fn take_out_filter_drivers(repo: &mut gix::Repository) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let mut subsections: Vec<Option<gix::bstr::BString>> = Vec::new();
    if let Some(sections) = repo.config_snapshot().plumbing().sections_by_name("filter") {
        for section in sections {
            let sub = section.header().subsection_name().map(ToOwned::to_owned);
            let runs = ["clean", "smudge", "process"].iter().any(|key| section.value(key).is_some());
            if let (true, Some(name)) = (runs, &sub) {
                let name = name.to_string();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            if !subsections.contains(&sub) {
                subsections.push(sub);
            }
        }
    }
    if subsections.is_empty() {
        return Ok(names);
    }
    let mut config = repo.config_snapshot_mut();
    for sub in &subsections {
        use gix::bstr::ByteSlice;
        while config.remove_section("filter", sub.as_ref().map(|s| s.as_bstr())).is_some() {}
    }
    config.commit().map_err(|e| git_failed("configuration", e))?;
    names.sort();
    Ok(names)
}

/// The error for a search folder that is in no git work tree.
pub fn not_a_repository(folder: &Path, why: &str) -> FindError {
    FindError::new(
        ErrorCode::NotARepository,
        format!(
            "`{}` is not inside a git work tree ({why}), so `git`/`changedSince` cannot scope the search; search without them, or pass a `path` inside a repository",
            shown(folder)
        ),
    )
}

pub fn git_failed(what: &str, err: impl std::fmt::Display) -> FindError {
    FindError::new(
        ErrorCode::FsError,
        format!("cannot read the git repository's {what}: {}", clip(&err.to_string(), 300)),
    )
}

fn shown(path: &Path) -> String {
    clip(&path.to_string_lossy(), 300).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TempTree;
    use std::fs;

    /// A folder laid out as git checks a repository, without running git.
    fn bare_bones(at: &Path) {
        fs::create_dir_all(at.join(".git/objects/pack")).unwrap();
        fs::create_dir_all(at.join(".git/refs/heads")).unwrap();
        fs::write(at.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    }

    #[test]
    fn the_top_is_the_nearest_folder_with_a_git_dir() {
        let tree = TempTree::new("git-repo-top");
        let root = real(&tree);
        bare_bones(&root.join("r"));
        fs::create_dir_all(root.join("r/a/b")).unwrap();
        let (top, git_dir) = find_top(&root.join("r/a/b")).unwrap();
        assert_eq!((top, git_dir), (root.join("r"), root.join("r/.git")));
        // A `.git` folder that is no repository is passed over, as git does.
        fs::create_dir_all(root.join("r/a/.git")).unwrap();
        assert_eq!(find_top(&root.join("r/a/b")).unwrap().0, root.join("r"));
        // A `.git` file naming nothing usable is an error where it stands.
        fs::write(root.join("r/a/b/.git"), "gitdir: ../../nowhere\n").unwrap();
        let err = find_top(&root.join("r/a/b")).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotARepository, "{}", err.message);
        fs::write(root.join("r/a/b/.git"), "not a gitfile\n").unwrap();
        assert!(find_top(&root.join("r/a/b")).unwrap_err().message.contains("names no git dir"));
        // One naming a real git dir elsewhere is followed.
        fs::write(root.join("r/a/b/.git"), format!("gitdir: {}\n", root.join("r/.git").display())).unwrap();
        assert_eq!(find_top(&root.join("r/a/b")).unwrap(), (root.join("r/a/b"), root.join("r/.git")));
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_in_the_git_dir_are_refused_before_anything_opens_them() {
        let tree = TempTree::new("git-repo-fifo");
        let root = real(&tree);
        bare_bones(&root.join("r"));
        let git = root.join("r/.git");
        check_metadata(&git, &git).unwrap();
        let fifo = |p: &Path| {
            let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        };
        for name in ["index", "packed-refs", "refs/heads/main", "ORIG_HEAD"] {
            fifo(&git.join(name));
            let err = check_metadata(&git, &git).unwrap_err();
            assert_eq!(err.code, ErrorCode::FsError);
            assert!(err.message.contains("is a FIFO"), "{name}: {}", err.message);
            fs::remove_file(git.join(name)).unwrap();
        }
        std::os::unix::fs::symlink("/dev/zero", git.join("config")).unwrap();
        assert!(check_metadata(&git, &git).unwrap_err().message.contains("is a device"));
        fs::remove_file(git.join("config")).unwrap();
        fs::create_dir_all(git.join("objects/ab")).unwrap();
        fifo(&git.join("objects/ab/cdef"));
        let err = check_objects(&git.join("objects"), None, &root, 0, &mut Vec::new()).unwrap_err();
        assert!(err.message.contains("objects/ab/cdef"), "{}", err.message);
        fs::write(git.join("HEAD"), vec![b'x'; MAX_GITFILE_BYTES as usize + 1]).unwrap();
        assert!(check_metadata(&git, &git).unwrap_err().message.contains("larger than"));
    }

    #[test]
    fn an_alternate_object_store_outside_the_roots_is_refused() {
        let tree = TempTree::new("git-repo-alt");
        let root = real(&tree);
        bare_bones(&root.join("ws/r"));
        bare_bones(&root.join("elsewhere"));
        let objects = root.join("ws/r/.git/objects");
        fs::create_dir_all(objects.join("info")).unwrap();
        fs::write(
            objects.join("info/alternates"),
            format!("# comment\n{}\n", root.join("elsewhere/.git/objects").display()),
        )
        .unwrap();
        let ws = root.join("ws");
        let in_ws = |p: &Path| p.starts_with(&ws);
        let err = check_objects(&objects, Some(&in_ws), &root.join("ws/r"), 0, &mut Vec::new()).unwrap_err();
        assert_eq!(err.code, ErrorCode::OutsideRoot, "{}", err.message);
        assert!(err.message.contains("elsewhere"), "{}", err.message);
        check_objects(&objects, None, &root.join("ws/r"), 0, &mut Vec::new()).unwrap();
        let anywhere = |_: &Path| true;
        check_objects(&objects, Some(&anywhere), &root.join("ws/r"), 0, &mut Vec::new()).unwrap();
    }
}
