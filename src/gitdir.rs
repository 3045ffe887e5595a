//! Where a repository keeps the files ignore rules read (`info/exclude`,
//! `config`), found from the folder holding its `.git` as git finds them
//! (`setup.c`):
//!
//! - `.git` a folder, or a symlink to one: that folder is the git dir;
//! - `.git` a file (a linked worktree, a submodule, `--separate-git-dir`), or
//!   a symlink to one: its `gitdir: <path>` line names the git dir, a
//!   relative path being relative to the folder holding `.git`;
//! - a `commondir` file in the git dir (linked worktrees) names the common
//!   dir, relative to the git dir; without one the git dir is the common dir.
//!
//! `info/exclude` and `config` are read from the common dir. Paths are kept
//! relative to the folder holding `.git` where git's are relative, so the
//! disk walk opens them from that folder's handle (`..` resolved by the OS,
//! after symlinks, as git's `realpath` does), and a reader resolves them in
//! its own namespace. The git dir is not checked to be a valid repository
//! (git also wants `HEAD`, `objects/`, `refs/`): a `.git` of any kind makes
//! its folder a repository's top, as it always did here.

use crate::dir::Dir;
use crate::entry::EntryKind;
use crate::path_bytes::path_from_bytes;
use std::path::{Path, PathBuf};

/// git refuses `.git` files larger than this (`read_gitfile_gently`); the
/// same cap serves for `commondir`.
pub const MAX_GITFILE_BYTES: u64 = 1 << 20;

/// The name of a repository's metadata in the folder at its top.
pub const DOT_GIT: &str = ".git";

/// The common dir of the repository whose top is `holder` (the folder
/// holding `.git`): relative to `holder`, or absolute; `None` when `.git`
/// leads nowhere readable.
pub fn common_dir(holder: &Dir) -> Option<PathBuf> {
    let dot_git = Path::new(DOT_GIT);
    let git_dir = match holder.kind_following(dot_git)? {
        EntryKind::Dir => dot_git.to_path_buf(),
        EntryKind::File => parse_gitfile(&holder.read_following(dot_git, MAX_GITFILE_BYTES)?)?,
        EntryKind::Symlink => return None,
    };
    let commondir = holder.read_following(&git_dir.join("commondir"), MAX_GITFILE_BYTES);
    Some(common_of(&git_dir, commondir.as_deref()))
}

/// The git dir a `.git` file names (`gitdir: <path>`, trailing line ends
/// dropped), as written: relative to the folder holding the file, or
/// absolute. `None` for anything else, as git refuses it.
pub fn parse_gitfile(bytes: &[u8]) -> Option<PathBuf> {
    let rest = bytes.strip_prefix(b"gitdir: ")?;
    let end = rest.iter().rposition(|&b| b != b'\n' && b != b'\r').map_or(0, |at| at + 1);
    path_from_bytes(&rest[..end])
}

/// The common dir of the git dir `git_dir`, given its `commondir` file's
/// contents (trailing blanks dropped; relative to the git dir).
pub fn common_of(git_dir: &Path, commondir: Option<&[u8]>) -> PathBuf {
    let Some(text) = commondir else { return git_dir.to_path_buf() };
    let end = text.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |at| at + 1);
    match path_from_bytes(&text[..end]) {
        Some(common) => git_dir.join(common),
        None => git_dir.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn scratch(name: &str) -> crate::testing::TempTree {
        crate::testing::TempTree::new(&format!("gitdir-{name}"))
    }

    /// The common dir found from `holder`, made absolute and real.
    fn found(holder: &Path) -> Option<PathBuf> {
        let common = common_dir(&Dir::open(holder).unwrap())?;
        fs::canonicalize(holder.join(common)).ok()
    }

    #[test]
    fn gitfiles_parse_as_git_reads_them() {
        assert_eq!(parse_gitfile(b"gitdir: ../.git/modules/lib\n"), Some(PathBuf::from("../.git/modules/lib")));
        assert_eq!(parse_gitfile(b"gitdir: /r/.git/worktrees/w\r\n\n"), Some(PathBuf::from("/r/.git/worktrees/w")));
        assert_eq!(parse_gitfile(b"gitdir: a b "), Some(PathBuf::from("a b ")), "only line ends are dropped");
        for bad in [&b"gitdir:x"[..], b"gitdir: \n", b"GITDIR: x", b"", b"ref: x", b"gitdir: a\0b"] {
            assert_eq!(parse_gitfile(bad), None, "{bad:?}");
        }
        assert_eq!(common_of(Path::new("g"), None), PathBuf::from("g"));
        assert_eq!(
            common_of(Path::new("/r/.git/worktrees/w"), Some(b"../..\n")),
            PathBuf::from("/r/.git/worktrees/w/../..")
        );
        assert_eq!(common_of(Path::new("g"), Some(b"/abs  \n")), PathBuf::from("/abs"));
        assert_eq!(common_of(Path::new("g"), Some(b" \n")), PathBuf::from("g"));
    }

    #[test]
    fn a_git_folder_is_its_own_common_dir() {
        let root = scratch("folder");
        fs::create_dir_all(root.join("repo/.git/info")).unwrap();
        assert_eq!(found(&root.join("repo")), Some(root.join("repo/.git")));
        fs::create_dir_all(root.join("plain")).unwrap();
        assert_eq!(found(&root.join("plain")), None);
    }

    #[test]
    fn worktrees_submodules_and_symlinks_lead_to_the_common_dir() {
        let root = scratch("files");
        // A linked worktree: an absolute gitdir, whose commondir is relative to it.
        fs::create_dir_all(root.join("main/.git/worktrees/wt")).unwrap();
        fs::write(root.join("main/.git/worktrees/wt/commondir"), "../..\n").unwrap();
        fs::create_dir_all(root.join("wt")).unwrap();
        fs::write(root.join("wt/.git"), format!("gitdir: {}\n", root.join("main/.git/worktrees/wt").display()))
            .unwrap();
        assert_eq!(found(&root.join("wt")), Some(root.join("main/.git")));
        // A submodule: a gitdir relative to the folder holding `.git`, no commondir.
        fs::create_dir_all(root.join("main/.git/modules/lib")).unwrap();
        fs::create_dir_all(root.join("main/lib")).unwrap();
        fs::write(root.join("main/lib/.git"), "gitdir: ../.git/modules/lib\n").unwrap();
        assert_eq!(found(&root.join("main/lib")), Some(root.join("main/.git/modules/lib")));
        #[cfg(unix)]
        {
            // `.git` a symlink to a git folder, and to a `.git` file.
            fs::create_dir_all(root.join("linked")).unwrap();
            std::os::unix::fs::symlink("../main/.git", root.join("linked/.git")).unwrap();
            assert_eq!(found(&root.join("linked")), Some(root.join("main/.git")));
            fs::create_dir_all(root.join("via")).unwrap();
            std::os::unix::fs::symlink(root.join("wt/.git"), root.join("via/.git")).unwrap();
            assert_eq!(found(&root.join("via")), Some(root.join("main/.git")));
            // A dangling link, a FIFO, a `.git` file naming nothing: no common dir to read.
            fs::create_dir_all(root.join("dangling")).unwrap();
            std::os::unix::fs::symlink("nowhere", root.join("dangling/.git")).unwrap();
            assert_eq!(common_dir(&Dir::open(&root.join("dangling")).unwrap()), None);
            fs::create_dir_all(root.join("fifo")).unwrap();
            let fifo = std::ffi::CString::new(root.join("fifo/.git").into_os_string().into_encoded_bytes()).unwrap();
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
            assert_eq!(common_dir(&Dir::open(&root.join("fifo")).unwrap()), None);
        }
        fs::create_dir_all(root.join("junk")).unwrap();
        fs::write(root.join("junk/.git"), "not a gitfile\n").unwrap();
        assert_eq!(common_dir(&Dir::open(&root.join("junk")).unwrap()), None);
    }
}
