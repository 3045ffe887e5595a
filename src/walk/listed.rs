//! The walk over a host's storage (see `storage`): the same rules as on disk,
//! with up to the storage's `concurrency` folders being listed at once, so a
//! slow remote store is not walked one folder at a time. One thread drives
//! it: the answers are awaited together, and each listing, once it arrives,
//! is judged entry by entry here. A folder's ignore files are read through
//! the storage before its entries are judged; a folder holding `.git` also
//! has its repository's `info/exclude` and `config` read through it, found
//! in the storage's own namespace (see `repo_files`: a `.git` folder, or a
//! `.git` file with a relative `gitdir:`). The user's git config and global
//! excludes file live on the local disk, not in the storage: not used here.

use super::{cannot_list, At, Collector, Entry, Gate, Pending};
use crate::cancel::Cancel;
use crate::dir::MAX_IGNORE_FILE_BYTES;
use crate::entry::EntryKind;
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::gitconfig::{User, MAX_CONFIG_BYTES};
use crate::gitdir::{common_of, parse_gitfile, DOT_GIT, MAX_GITFILE_BYTES};
use crate::gitignore::{FolderRules, IgnoreFiles, RepoFiles, Rules, CONFIG, EXCLUDE, GITIGNORE, IGNORE};
use crate::limits::{MAX_STORAGE_DEPTH, MAX_STORAGE_ENTRIES};
use crate::storage::{block_on, in_flight, is_skipped, join, reader_failed, Listed, StorageRef};
use std::collections::HashSet;
use std::ffi::OsStr;
use std::io;
use std::path::Path;

/// Walks the storage from `root` (a normalized absolute path in it).
pub(super) fn walk<C: Collector>(storage: &StorageRef, root: &Path, gate: &Gate, mut collector: C) -> Result<C::Out> {
    let root_text = root.to_string_lossy().into_owned();
    let cancel = gate.cancel();
    let walking = async {
        let above = match gate.rules().gitignore {
            true => Some(rules_above(storage, &root_text, cancel).await?),
            false => None,
        };
        let start = |work: Pending<()>| {
            let (storage, path) = (storage.clone(), join(&root_text, &work.rel().to_string_lossy()));
            let with_ignores = work.reads_ignore_files();
            async move { (list_folder(&storage, path, with_ignores).await, work) }
        };
        let first = vec![Pending::root((), above)];
        let mut listed = 0usize;
        in_flight(storage.concurrency(), first, cancel, start, |(listing, work), pending| {
            let listing = match listing {
                Ok(listing) => listing,
                // Vanished, not a folder, or not ours to read: skipped below the root.
                Err(Failed::List(e)) if !work.is_root() && is_skipped(&e) => return Ok(()),
                Err(Failed::List(e)) => return Err(cannot_list(root, work.rel(), &e, "the reader")),
                Err(Failed::Other(path, e)) => return Err(reader_failed(&path, &e)),
            };
            listed += listing.entries.len();
            within_bounds(&work, listed, &root_text)?;
            visit(listing, work, gate, &mut collector, pending, &root_text)
        })
        .await?;
        Ok(collector.finish())
    };
    block_on(walking, cancel)?
}

/// A folder's children, and its ignore files when the rules need them.
struct Listing {
    entries: Vec<Listed>,
    ignore_files: IgnoreFiles,
}

/// Why a folder's listing cannot be used.
enum Failed {
    /// The listing itself failed.
    List(io::Error),
    /// Reading an ignore file (or looking for `.git`) at this path failed.
    Other(String, io::Error),
}

/// Fails once the walk is deeper than `MAX_STORAGE_DEPTH` or has listed
/// more than `MAX_STORAGE_ENTRIES` (`listed`): what a storage whose listing
/// holds a cycle looks like.
fn within_bounds(work: &Pending<()>, listed: usize, root: &str) -> Result<()> {
    let (too_deep, too_many) = (work.depth() > MAX_STORAGE_DEPTH, listed > MAX_STORAGE_ENTRIES);
    if !too_deep && !too_many {
        return Ok(());
    }
    let what = match too_deep {
        true => format!("folders nested more than {MAX_STORAGE_DEPTH} deep"),
        false => format!("more than {MAX_STORAGE_ENTRIES} entries"),
    };
    Err(FindError::new(
        ErrorCode::FsError,
        format!(
            "the reader listed {what} below `{}` (at `{}`): its listing likely holds a cycle, a folder that lists itself or an ancestor; stop the reader from following links to folders, or search a smaller folder",
            clip(root, 200),
            clip(&join(root, &work.rel().to_string_lossy()), 300)
        ),
    ))
}

/// Judges each child of a listed folder: rules, selector, and folders to list next.
fn visit<C: Collector>(
    listing: Listing,
    work: Pending<()>,
    gate: &Gate,
    collector: &mut C,
    pending: &mut Vec<Pending<()>>,
    root: &str,
) -> Result<()> {
    if let Some(bad) = listing.entries.iter().find(|listed| !is_valid_name(&listed.name)) {
        return Err(FindError::new(
            ErrorCode::FsError,
            format!(
                "the reader listed `{}` with a child named `{}`; a name must be non-empty, not `.` or `..`, and hold no `/` or NUL",
                clip(&join(root, &work.rel().to_string_lossy()), 300),
                clip(&bad.name, 100)
            ),
        ));
    }
    let (_, mut visit) = gate.visit(work, |_| Ok(FolderRules::compile(listing.ignore_files)))?;
    // A name listed twice in one folder is one entry, as a folder holds each name once.
    let mut names: HashSet<&str> = HashSet::with_capacity(listing.entries.len());
    for listed in &listing.entries {
        if !names.insert(&listed.name) {
            continue;
        }
        let Some(rel) = visit.child(OsStr::new(&listed.name), listed.kind)? else { continue };
        collector.offer(rel, listed.kind, &Entry(At::Listed(listed)));
        pending.extend(visit.descend(|| ()));
    }
    Ok(())
}

fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0'])
}

async fn list_folder(storage: &StorageRef, path: String, with_ignores: bool) -> std::result::Result<Listing, Failed> {
    let entries = storage.list(&path).await.map_err(Failed::List)?;
    let kind_of = |name: &str| entries.iter().find(|e| e.name == name).map(|e| e.kind);
    let ignore_files = match with_ignores {
        true => {
            let (ignore, gitignore, git) = (kind_of(IGNORE), kind_of(GITIGNORE), kind_of(DOT_GIT));
            ignore_files(storage, &path, ignore, gitignore, git).await?
        }
        false => IgnoreFiles::default(),
    };
    Ok(Listing { entries, ignore_files })
}

/// The ignore files of the folder at `path`, given the kinds of its `.ignore`,
/// `.gitignore` and `.git` (only regular files are read, as on disk).
async fn ignore_files(
    storage: &StorageRef,
    path: &str,
    ignore: Option<EntryKind>,
    gitignore: Option<EntryKind>,
    git: Option<EntryKind>,
) -> std::result::Result<IgnoreFiles, Failed> {
    let file = |kind: Option<EntryKind>, name: &str| {
        let at = (kind == Some(EntryKind::File)).then(|| join(path, name));
        async move {
            match at {
                Some(at) => read_ignore_file(storage, at).await,
                None => Ok(None),
            }
        }
    };
    Ok(IgnoreFiles {
        ignore: file(ignore, IGNORE).await?,
        gitignore: file(gitignore, GITIGNORE).await?,
        repo: match git {
            Some(kind) => Some(repo_files(storage, path, kind).await?),
            None => None,
        },
    })
}

/// What the repository whose top is the folder at `holder` adds, its `.git`
/// being of `kind`. In a reader's namespace: `.git` a folder, or a file
/// whose `gitdir:` (and the git dir's `commondir`) is relative, resolved
/// through the reader's paths; an absolute one names a path on some host's
/// disk, not in the namespace, and a symlink is never followed (as readers
/// never follow one): then only the boundary counts. The repository's
/// `config` gives `core.ignoreCase`; the user's config files and global
/// excludes file, on the local disk, are not used.
async fn repo_files(storage: &StorageRef, holder: &str, kind: EntryKind) -> std::result::Result<RepoFiles, Failed> {
    let common = match kind {
        EntryKind::Dir => Some(join(holder, DOT_GIT)),
        EntryKind::File => match read_capped(storage, join(holder, DOT_GIT), MAX_GITFILE_BYTES).await? {
            Some(text) => match parse_gitfile(&text).and_then(|git_dir| within(holder, &git_dir)) {
                Some(git_dir) => {
                    let commondir = read_capped(storage, join(&git_dir, "commondir"), MAX_GITFILE_BYTES).await?;
                    let common = common_of(Path::new(""), commondir.as_deref());
                    within(&git_dir, &common)
                }
                None => None,
            },
            None => None,
        },
        EntryKind::Symlink => None,
    };
    let Some(common) = common else { return Ok(RepoFiles::default()) };
    let exclude = read_ignore_file(storage, join(&common, EXCLUDE)).await?;
    let config = read_capped(storage, join(&common, CONFIG), MAX_CONFIG_BYTES).await?;
    let ignore_case = User::none().for_repository(config.as_deref()).ignore_case;
    Ok(RepoFiles { exclude, global: None, ignore_case })
}

/// The relative path `rel` from the folder `base` of a reader's namespace,
/// `.` and `..` resolved; `None` when it is absolute, not UTF-8, or climbs
/// above `/`.
fn within(base: &str, rel: &Path) -> Option<String> {
    if rel.has_root() || rel.is_absolute() {
        return None;
    }
    let rel = rel.to_str()?;
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// An ignore file's contents; `None` when it is missing, not a file, not
/// readable, or larger than git reads.
async fn read_ignore_file(storage: &StorageRef, path: String) -> std::result::Result<Option<Vec<u8>>, Failed> {
    read_capped(storage, path, MAX_IGNORE_FILE_BYTES).await
}

/// A file's contents; `None` when it is missing, not a file, not readable,
/// or larger than `cap`.
async fn read_capped(storage: &StorageRef, path: String, cap: u64) -> std::result::Result<Option<Vec<u8>>, Failed> {
    match storage.read(&path).await {
        Ok(bytes) if bytes.len() as u64 > cap => Ok(None),
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if is_skipped(&e) || e.kind() == io::ErrorKind::IsADirectory => Ok(None),
        Err(e) => Err(Failed::Other(path, e)),
    }
}

/// The rules of the folders above the search root that apply to it: from the
/// nearest folder holding `.git` (the root included) down to the root's parent.
async fn rules_above(storage: &StorageRef, root: &str, cancel: &Cancel) -> Result<Rules> {
    let folders: Vec<&Path> = Path::new(root).ancestors().collect();
    let start = |i: usize| {
        let (storage, git) = (storage.clone(), join(&folders[i].to_string_lossy(), DOT_GIT));
        async move { (i, storage.stat(&git).await, git) }
    };
    // The nearest folder holding `.git`, and what its `.git` is.
    let mut repository: Option<(usize, Option<EntryKind>)> = None;
    in_flight(storage.concurrency(), (0..folders.len()).collect(), cancel, start, |answer, _| {
        match answer {
            (i, Ok(st), _) => {
                if repository.is_none_or(|(r, _)| i < r) {
                    repository = Some((i, st.kind));
                }
            }
            (_, Err(e), _) if is_skipped(&e) => {}
            (_, Err(e), git) => return Err(reader_failed(&git, &e)),
        }
        Ok(())
    })
    .await?;
    let mut rules = Rules::default();
    let Some((repository, git_kind)) = repository else { return Ok(rules) };
    for (i, folder) in folders.iter().enumerate().skip(1).take(repository).rev() {
        let text = folder.to_string_lossy();
        // The repository's `.git`; one of no kind a walk lists (a FIFO) only marks the boundary.
        let git = (i == repository).then_some(git_kind.unwrap_or(EntryKind::Symlink));
        let files = ignore_files(storage, &text, Some(EntryKind::File), Some(EntryKind::File), git).await;
        let files = files.map_err(|failed| match failed {
            Failed::List(e) => reader_failed(&text, &e),
            Failed::Other(path, e) => reader_failed(&path, &e),
        })?;
        rules = rules.above(Path::new(root), folder, FolderRules::compile(files).as_ref());
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::super::tests::rules;
    use super::super::WalkRules;
    use crate::cancel::{Cancel, CancelFlag};
    use crate::entry::EntryKind;
    use crate::error::ErrorCode;
    use crate::shared::Shared;
    use crate::source::{walk, Backend, Root};
    use crate::storage::memory::MemoryStorage;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    fn root_of(storage: &Arc<MemoryStorage>, path: &str) -> Root {
        Root { backend: Backend::Storage(Shared(Arc::new(Arc::clone(storage)))), path: PathBuf::from(path) }
    }

    fn paths(root: &Root, rules: &WalkRules) -> crate::error::Result<Vec<String>> {
        let walked = walk(root, rules, &Cancel::never(), || {
            |rel: &Path, kind: EntryKind, _: &super::Entry| {
                Some(format!("{}{}", rel.display(), if kind == EntryKind::Dir { "/" } else { "" }))
            }
        })?;
        let mut found = walked.found;
        found.sort();
        Ok(found)
    }

    #[test]
    fn ignore_files_are_read_through_the_storage() {
        let s = MemoryStorage::new(&[
            ("/repo/.git/info/exclude", "secret.txt\n"),
            ("/repo/.gitignore", "*.log\nbuild/\n"),
            ("/repo/sub/.gitignore", "!keep.log\n"),
            ("/repo/sub/keep.log", ""),
            ("/repo/sub/drop.log", ""),
            ("/repo/sub/build/x", ""),
            ("/repo/secret.txt", ""),
            ("/repo/.ignore", "notes.md\n"),
            ("/repo/notes.md", ""),
            ("/repo/a.txt", ""),
        ]);
        let found = paths(&root_of(&s, "/repo"), &rules()).unwrap();
        assert_eq!(found, [".gitignore", ".ignore", "a.txt", "sub/", "sub/.gitignore", "sub/keep.log"]);
        // From a folder inside the repository, the rules above it still apply.
        assert_eq!(paths(&root_of(&s, "/repo/sub"), &rules()).unwrap(), [".gitignore", "keep.log"]);
        let all = paths(&root_of(&s, "/repo"), &WalkRules { gitignore: false, ..rules() }).unwrap();
        assert!(all.contains(&"sub/build/x".to_string()) && !all.iter().any(|p| p.starts_with(".git/")));
    }

    #[test]
    fn repository_files_are_found_in_the_namespace() {
        let s = MemoryStorage::new(&[
            // A superproject whose config asks for case-insensitive rules; a BOM on its .gitignore.
            ("/app/.git/config", "[core]\n\tignorecase = true\n"),
            ("/app/.gitignore", "\u{feff}*.LOG\n"),
            ("/app/a.log", ""),
            // A submodule: a relative gitdir, resolved in the namespace; its own config says nothing.
            ("/app/.git/modules/lib/info/exclude", "local-*\n"),
            ("/app/lib/.git", "gitdir: ../.git/modules/lib\n"),
            ("/app/lib/local-notes", ""),
            ("/app/lib/api.js", ""),
            ("/app/lib/.gitignore", "*.TMP\n"),
            ("/app/lib/b.tmp", ""),
            // A worktree whose gitdir is relative, with a commondir.
            ("/app/.git/worktrees/wt/commondir", "../..\n"),
            ("/app/.git/info/exclude", "secret\n"),
            ("/wt/.git", "gitdir: ../app/.git/worktrees/wt\n"),
            ("/wt/secret", ""),
            ("/wt/.gitignore", "*.log\n"),
            ("/wt/c.LOG", ""),
            // An absolute gitdir names a host path: a boundary only.
            ("/abs/.git", "gitdir: /app/.git\n"),
            ("/abs/secret", ""),
        ]);
        let found = paths(&root_of(&s, "/app"), &rules()).unwrap();
        assert_eq!(found, [".gitignore", "lib/", "lib/.gitignore", "lib/api.js", "lib/b.tmp"]);
        assert_eq!(paths(&root_of(&s, "/app/lib"), &rules()).unwrap(), [".gitignore", "api.js", "b.tmp"]);
        assert_eq!(
            paths(&root_of(&s, "/wt"), &rules()).unwrap(),
            [".gitignore"],
            "the common dir's exclude and config"
        );
        assert_eq!(paths(&root_of(&s, "/abs"), &rules()).unwrap(), ["secret"]);
        assert_eq!(super::within("/a/b", Path::new("../c/./d")).as_deref(), Some("/a/c/d"));
        assert_eq!(super::within("/a", Path::new("../../x")), None);
        assert_eq!(super::within("/a", Path::new("/x")), None);
    }

    #[test]
    fn many_folders_are_listed_at_once_within_the_bound() {
        let s = MemoryStorage::slow(6, 20);
        for i in 0..24 {
            s.file(&format!("/d{i}/f.txt"), b"x", 0.0);
        }
        let s = Arc::new(s);
        let started = std::time::Instant::now();
        assert_eq!(paths(&root_of(&s, "/"), &rules()).unwrap().len(), 48);
        let peak = s.peak.load(Ordering::SeqCst);
        assert!((2..=6).contains(&peak), "peak {peak}");
        // 25 listings of 20 ms one at a time would take 500 ms.
        assert!(started.elapsed().as_millis() < 400, "{:?}", started.elapsed());
    }

    #[test]
    fn failures_below_the_root_skip_or_fail_by_kind() {
        let s = MemoryStorage::new(&[("/a/f", ""), ("/b/g", "")]);
        s.failing("/locked", "EACCES");
        s.failing("/gone", "ENOENT");
        assert_eq!(paths(&root_of(&s, "/"), &rules()).unwrap(), ["a/", "a/f", "b/", "b/g", "gone/", "locked/"]);
        s.failing("/broken", "EIO");
        let err = paths(&root_of(&s, "/"), &rules()).unwrap_err();
        assert_eq!(err.code, ErrorCode::FsError);
        assert!(err.message.contains("`/broken`") && err.message.contains("EIO"), "{}", err.message);
        s.failing("/root", "EACCES");
        assert_eq!(paths(&root_of(&s, "/root"), &rules()).unwrap_err().code, ErrorCode::PermissionDenied);
    }

    #[test]
    fn a_slow_storage_is_cancelled_promptly() {
        let s = MemoryStorage::slow(2, 5_000);
        s.file("/a/b", b"", 0.0);
        let s = Arc::new(s);
        let root = root_of(&s, "/");
        let flag = CancelFlag::default();
        let cancel = Cancel::new(flag.clone(), None);
        let started = std::time::Instant::now();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            flag.cancel();
        });
        let err = walk(&root, &rules(), &cancel, || |_: &Path, _, _: &super::Entry| None::<()>).unwrap_err();
        stopper.join().unwrap();
        assert_eq!(err.code, ErrorCode::Aborted);
        assert!(started.elapsed().as_millis() < 1_000, "{:?}", started.elapsed());
    }

    /// Every folder lists `loop` (a folder, itself again) and `a.txt` twice,
    /// as a reader following `loop -> .` would, with `branches` loops.
    struct Cyclic {
        branches: usize,
    }

    impl crate::storage::Storage for Cyclic {
        fn list(&self, _: &str) -> crate::storage::Reply<Vec<crate::storage::Listed>> {
            let meta = crate::entry::Meta { size: 0, mtime_ms: 0.0 };
            let mut listing: Vec<crate::storage::Listed> = (0..self.branches)
                .map(|i| crate::storage::Listed { name: format!("loop{i}"), kind: EntryKind::Dir, meta })
                .collect();
            for _ in 0..2 {
                listing.push(crate::storage::Listed { name: "a.txt".into(), kind: EntryKind::File, meta });
            }
            Box::pin(async move { Ok(listing) })
        }
        fn stat(&self, _: &str) -> crate::storage::Reply<crate::dir::Stat> {
            let meta = crate::entry::Meta { size: 0, mtime_ms: 0.0 };
            Box::pin(async move { Ok(crate::dir::Stat { kind: Some(EntryKind::Dir), meta }) })
        }
        fn read(&self, _: &str) -> crate::storage::Reply<Vec<u8>> {
            Box::pin(async move { Ok(Vec::new()) })
        }
        fn concurrency(&self) -> usize {
            4
        }
        fn mounted(&self) -> bool {
            true
        }
    }

    fn cyclic(branches: usize) -> Root {
        let storage: Arc<dyn crate::storage::Storage> = Arc::new(Cyclic { branches });
        Root { backend: Backend::Storage(Shared(storage)), path: PathBuf::from("/") }
    }

    #[test]
    fn a_cyclic_listing_ends_with_an_error_that_names_it() {
        let err = paths(&cyclic(1), &WalkRules { gitignore: false, ..rules() }).unwrap_err();
        assert_eq!(err.code, ErrorCode::FsError);
        assert!(err.message.contains("folders nested more than 1000 deep"), "{}", err.message);
        assert!(err.message.contains("likely holds a cycle"), "{}", err.message);
        // Under a depth the caller set, the walk ends on its own.
        let shallow = paths(&cyclic(1), &WalkRules { gitignore: false, max_depth: Some(2), ..rules() }).unwrap();
        assert_eq!(
            shallow,
            ["a.txt", "loop0/", "loop0/a.txt", "loop0/loop0/", "loop0/loop0/a.txt", "loop0/loop0/loop0/"]
        );
    }

    #[test]
    fn a_name_listed_twice_is_one_entry() {
        let found = paths(&cyclic(2), &WalkRules { gitignore: false, max_depth: Some(0), ..rules() }).unwrap();
        assert_eq!(found, ["a.txt", "loop0/", "loop1/"]);
    }
}
