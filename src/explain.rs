//! `explain`: why one path is or is not in the results of a `find` with
//! given options. The path is followed from the search directory down,
//! folder by folder, through the same judgement every walk takes
//! (`WalkRules::judge`, with each folder's ignore files read as the walk
//! reads them), then through the pattern and the filters (as `find::admit`
//! tests them); the first rule that leaves the path (or a folder on its
//! way) out is named: for an ignore file, the file, line and text that
//! decide, as `git check-ignore -v` names them, and the line it overrides
//! when a `!` line re-includes. Only the folders on the way are read, never
//! walked. On the local disk only: a host's storage has no `explain`.

use crate::call::{prepare, Prepared};
use crate::cancel::Cancel;
use crate::dir::{is_gone, Dir};
use crate::entry::EntryKind;
use crate::error::{clip, ErrorCode, FindError, Result};
use crate::filter::TypeFilter;
use crate::find::FindConfig;
use crate::gitignore::{rules_above_on_disk, unreadable, FolderRules, GitEnv, IgnoreFiles, IgnoreLine};
use crate::path_bytes::posix_string;
use crate::sandbox::{check_path_text, is_unusable_name, unusable_name};
use crate::source::Source;
use crate::walk::Judgement;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// Why a path is or is not found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// It is in the results (before `limit` cuts the page).
    Found,
    /// Nothing is there.
    Missing,
    /// Not below the search directory.
    Outside,
    /// The search directory itself: never one of its own results.
    SearchDirectory,
    Hidden,
    Ignored,
    /// `.git`, or inside it.
    GitDir,
    AlwaysSkipped,
    Excluded,
    /// Below a symlink, which the walk lists but never follows.
    Symlink,
    /// Deeper than `maxDepth`.
    Depth,
    /// Neither a file, a folder nor a symlink (a socket, FIFO or device).
    Special,
    /// Not of the `type` asked.
    Type,
    /// The pattern does not match it.
    Pattern,
    /// Outside the size bounds or older than `modifiedSince`.
    Metadata,
    /// Not changed in git (or a folder holding no changed file), under `git` or `changedSince`.
    Unchanged,
}

impl Reason {
    /// The name results carry.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Found => "found",
            Reason::Missing => "missing",
            Reason::Outside => "outside",
            Reason::SearchDirectory => "search-directory",
            Reason::Hidden => "hidden",
            Reason::Ignored => "ignored",
            Reason::GitDir => "git-dir",
            Reason::AlwaysSkipped => "always-skipped",
            Reason::Excluded => "excluded",
            Reason::Symlink => "symlink",
            Reason::Depth => "depth",
            Reason::Special => "special",
            Reason::Type => "type",
            Reason::Pattern => "pattern",
            Reason::Metadata => "metadata",
            Reason::Unchanged => "unchanged",
        }
    }
}

/// The answer for one path.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The path asked about, relative to the search directory (`/`
    /// separators), or as given when it is outside it.
    pub path: String,
    pub found: bool,
    pub reason: Reason,
    /// The entry the reason is about: the path itself, or a folder on its
    /// way (relative to the search directory); `None` for `outside` and
    /// `search-directory`.
    pub at: Option<String>,
    /// The ignore line that decides, when one matches: it ignores (reason
    /// `ignored`), or re-includes (a `!` line: the path is not ignored).
    pub rule: Option<IgnoreLine>,
    /// When `rule` re-includes: the strongest matching line that ignores,
    /// which `rule` overrides.
    pub overrides: Option<IgnoreLine>,
    /// The `exclude` glob, for reason `excluded`.
    pub exclude: Option<String>,
    /// One or two sentences for a model.
    pub text: String,
}

/// Explains `target` (absolute) for a `find` with `config`.
pub fn run(config: &FindConfig, target: &Path, cancel: &Cancel) -> Result<Explanation> {
    cancel.check()?;
    if matches!(config.source, Source::Storage(_)) {
        return Err(FindError::invalid_argument(
            "`explain` reads the local disk; it does not take a `reader`: drop `reader`, or call find() on the reader to see what it lists",
        ));
    }
    // Refused as find refuses such a `path`, before anything is read.
    check_path_text("the path to explain", &target.to_string_lossy())?;
    let search_dir = &config.scope.logical_path;
    let shown_target = clip(&target.to_string_lossy(), 300).into_owned();
    let Ok(relative) = target.strip_prefix(search_dir) else {
        let text = format!(
            "`{shown_target}` is not below the search directory `{}`: set `path` (or `cwd`) to a folder that holds it.",
            clip(&search_dir.to_string_lossy(), 300)
        );
        return Ok(answer(shown_target, Reason::Outside, None, text));
    };
    let names: Vec<&OsStr> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    if names.is_empty() {
        let text = format!("`{shown_target}` is the search directory itself, which is never one of its own results.");
        return Ok(answer(shown_target, Reason::SearchDirectory, None, text));
    }
    if matches!(config.source, Source::Index(_)) {
        return Err(FindError::invalid_argument("`explain` reads the local disk; it does not run on an index"));
    }
    // Only the scope decides what is found; status letters are no reason.
    let ask = crate::git_status::GitAsk { status: false, ..config.git.clone() };
    let Prepared { options: config, root, in_flight: _in_flight, .. } = prepare(config, &ask, cancel)?;
    let config = config.as_ref();
    let Some(dir) = root.local_dir() else {
        return Err(FindError::invalid_argument("`explain` reads the local disk; it does not run on an index"));
    };
    walk_down(config, &root, dir, relative, &names, cancel)
}

/// Follows `names` (the path to explain, below the search directory) down
/// from `dir`, judging each step as the walk would, to the first that is
/// left out, or to the entry itself.
fn walk_down(
    config: &FindConfig,
    root: &crate::source::Root,
    dir: &Dir,
    relative: &Path,
    names: &[&OsStr],
    cancel: &Cancel,
) -> Result<Explanation> {
    let git = GitEnv::from_process();
    let mut rules = match config.rules.gitignore {
        true => Some(rules_above_on_disk(&root.path, &git)?),
        false => None,
    };
    let mut folder: Option<Dir> = None;
    let mut rel = PathBuf::new();
    let path = posix_string(relative);
    for (i, name) in names.iter().enumerate() {
        cancel.check()?;
        let last = i + 1 == names.len();
        let here: &Dir = folder.as_ref().unwrap_or(dir);
        let prefix = if rel.as_os_str().is_empty() { 0 } else { rel.as_os_str().len() + 1 };
        if let Some(above) = &rules {
            let files = IgnoreFiles::read(here, &git).map_err(|e| unreadable(&root.path.join(&rel), &e))?;
            rules = Some(above.enter(FolderRules::compile(files).as_ref(), prefix));
        }
        rel.push(name);
        let at = posix_string(&rel);
        let stat = match stat_step(here, name, &at, &path, last)? {
            Ok(stat) => stat,
            Err(missing) => return Ok(missing),
        };
        let Some(kind) = stat.kind else {
            let text = format!("`{at}` is a socket, FIFO or device, which searches never list.");
            return Ok(answer(path, Reason::Special, Some(at), text));
        };
        let is_dir = kind == EntryKind::Dir;
        if let Some(max) = config.rules.max_depth {
            if i > max {
                // Entries `maxDepth + 1` levels down are listed (0: the search directory's own).
                let needed = names.len() - 1;
                let text = format!(
                    "`{path}` is {} levels below the search directory, and `maxDepth: {max}` lists {} level{}: set `maxDepth` to {needed} or more.",
                    names.len(),
                    max + 1,
                    if max == 0 { "" } else { "s" }
                );
                return Ok(answer(path, Reason::Depth, Some(at), text));
            }
        }
        let judged = config.rules.judge(name, &rel, is_dir, rules.as_ref());
        // The lines are looked up (compiled again, numbered) only where the answer names them.
        let lines = || rules.as_ref().map(|r| r.matching_lines(&rel, is_dir)).unwrap_or_default();
        if judged != Judgement::Seen {
            return Ok(left_out(config, path, at, last, is_dir, judged, lines()));
        }
        if !last {
            if kind == EntryKind::Symlink {
                let text = format!(
                    "`{path}` is below `{at}`, a symlink: the walk lists symlinks but never follows them; search `{at}`'s target instead."
                );
                return Ok(answer(path, Reason::Symlink, Some(at), text));
            }
            if !is_dir {
                let text = format!("`{path}` does not exist: `{at}` is a file, not a folder.");
                return Ok(answer(path, Reason::Missing, Some(at), text));
            }
            folder = Some(here.open_dir(name).map_err(|e| {
                FindError::new(
                    ErrorCode::FsError,
                    format!("cannot open the folder `{}`: {e}{}", clip(&at, 300), crate::error::io_advice(&e)),
                )
            })?);
            continue;
        }
        // The entry itself is listed: the pattern and the filters decide.
        return Ok(listed(config, path, at, &rel, kind, &stat.meta, lines()));
    }
    // Not reached: the loop returns at its last name.
    let text = format!("`{path}` does not exist.");
    Ok(answer(path.clone(), Reason::Missing, Some(path), text))
}

/// The stat of the step `name` (at `at`) of `path`: `Ok(Err(..))` is the
/// answer for a step that does not exist; a name no file can have is
/// refused as `find` refuses such a `path`.
fn stat_step(
    here: &Dir,
    name: &OsStr,
    at: &str,
    path: &str,
    last: bool,
) -> Result<std::result::Result<crate::dir::Stat, Explanation>> {
    Ok(Ok(match here.stat(name) {
        Ok(stat) => stat,
        Err(e) if is_gone(&e) || e.kind() == std::io::ErrorKind::NotFound => {
            let text = match last {
                true => format!("`{path}` does not exist."),
                false => format!("`{path}` does not exist: there is no folder `{at}/`."),
            };
            return Ok(Err(answer(path.to_string(), Reason::Missing, Some(at.to_string()), text)));
        }
        // A name too long for the file system: as find answers for such a `path`.
        Err(e) if is_unusable_name(&e) => {
            return Err(unusable_name(
                &format!("the path to explain, at `{}`,", clip(at, 300)),
                &e,
                "no file can have that name, so nothing there is listed",
            ))
        }
        Err(e) => {
            return Err(FindError::new(
                ErrorCode::FsError,
                format!("cannot read `{}`: {e}{}", clip(at, 300), crate::error::io_advice(&e)),
            ))
        }
    }))
}

/// Why the entry `rel` (of `kind`, with `meta`), which the walk lists, is
/// or is not in the results: the type, the pattern, the metadata filters;
/// a `!` line of `lines` that re-includes it is named either way.
fn listed(
    config: &FindConfig,
    path: String,
    at: String,
    rel: &Path,
    kind: EntryKind,
    meta: &crate::entry::Meta,
    lines: Vec<crate::gitignore::IgnoreLine>,
) -> Explanation {
    let mut explained = if !config.filters.kind.accepts(kind) {
        let text = format!(
            "`{path}` is a {}, and the search lists only {} (`type`).",
            kind_name(kind),
            match config.filters.kind {
                TypeFilter::File => "files",
                TypeFilter::Dir => "folders",
                TypeFilter::Any => "entries",
            }
        );
        answer(path, Reason::Type, Some(at), text)
    } else if !config.matcher.is_match(rel) {
        let text = format!("`{path}` is listed, but the pattern `{}` does not match it.", clip(&config.pattern, 200));
        answer(path, Reason::Pattern, Some(at), text)
    } else if config.filters.needs_meta() && !config.filters.accepts_meta(kind, meta) {
        let text = format!(
            "`{path}` matches, but its size ({} bytes) or modification time is outside the `minSize`/`maxSize`/`modifiedSince` filters.",
            meta.size
        );
        answer(path, Reason::Metadata, Some(at), text)
    } else {
        let text = format!("`{path}` is in the results (`limit` may still leave it off the page).");
        answer(path, Reason::Found, Some(at), text)
    };
    // A `!` line that re-includes it is named either way.
    if let Some((rule, overrides)) = reincluded(lines) {
        explained.text.push_str(&format!(" {}", reinclusion_sentence(&rule, overrides.as_ref())));
        explained.rule = Some(rule);
        explained.overrides = overrides;
    }
    explained
}

fn answer(path: String, reason: Reason, at: Option<String>, text: String) -> Explanation {
    Explanation { path, found: reason == Reason::Found, reason, at, rule: None, overrides: None, exclude: None, text }
}

fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::File => "file",
        EntryKind::Dir => "folder",
        EntryKind::Symlink => "symlink",
    }
}

/// When the deciding line re-includes: it, and the line it overrides.
fn reincluded(lines: Vec<IgnoreLine>) -> Option<(IgnoreLine, Option<IgnoreLine>)> {
    let mut lines = lines.into_iter();
    let first = lines.next().filter(|l| !l.ignores)?;
    Some((first, lines.find(|l| l.ignores)))
}

fn reinclusion_sentence(rule: &IgnoreLine, overrides: Option<&IgnoreLine>) -> String {
    match overrides {
        Some(ignoring) => format!("`{}` would ignore it, but `{}` re-includes it.", ignoring.cite(), rule.cite()),
        None => format!("`{}` re-includes it.", rule.cite()),
    }
}

/// The answer for an entry (the path, or a folder on its way) that the walk rules leave out.
fn left_out(
    config: &FindConfig,
    path: String,
    at: String,
    last: bool,
    is_dir: bool,
    judged: Judgement,
    lines: Vec<IgnoreLine>,
) -> Explanation {
    let subject = match last {
        true => format!("`{path}` is not in the results: it"),
        false => format!("`{path}` is not in the results: its folder `{at}/`"),
    };
    let (reason, text) = match judged {
        Judgement::Hidden => {
            (Reason::Hidden, format!("{subject} is hidden (its name starts with a dot): set `hidden: true`."))
        }
        Judgement::Ignored => {
            let decided = lines.first().filter(|l| l.ignores).map(IgnoreLine::cite).unwrap_or_else(|| "an ignore file".into());
            (
                Reason::Ignored,
                format!("{subject} is ignored by `{decided}`: set `gitignore: false` to include ignored entries."),
            )
        }
        Judgement::GitDir => (Reason::GitDir, format!("{subject} is `.git`, which searches never list.")),
        Judgement::AlwaysSkipped => (
            Reason::AlwaysSkipped,
            format!(
                "{subject} is named `{}`, a folder searches never enter: search inside it with `path`.",
                at.rsplit('/').next().unwrap_or(&at)
            ),
        ),
        Judgement::Excluded => {
            let glob = config.rules.exclude.first_match(Path::new(&at), is_dir).unwrap_or_default().to_string();
            let mut e = answer(
                path,
                Reason::Excluded,
                Some(at),
                format!("{subject} matches the `exclude` glob '{}': remove it from `exclude`.", clip(&glob, 200)),
            );
            e.exclude = Some(glob);
            return with_rule(e, lines, judged);
        }
        Judgement::Unchanged => (
            Reason::Unchanged,
            match last {
                true => format!("`{path}` is not in the results: git has no change of it, and `git`/`changedSince` keeps changed files only."),
                false => format!("`{path}` is not in the results: its folder `{at}/` holds no file that git has as changed, and `git`/`changedSince` keeps changed files only."),
            },
        ),
        Judgement::Seen => (Reason::Found, String::new()),
    };
    with_rule(answer(path, reason, Some(at), text), lines, judged)
}

/// Adds the deciding ignore line (and, when it re-includes, the one it overrides).
fn with_rule(mut e: Explanation, lines: Vec<IgnoreLine>, judged: Judgement) -> Explanation {
    if judged == Judgement::Ignored {
        e.rule = lines.into_iter().next();
    } else if let Some((rule, overrides)) = reincluded(lines) {
        e.rule = Some(rule);
        e.overrides = overrides;
    }
    e
}
