//! One `find` call from validated options to the answer: sandbox, walk,
//! filter, sort, cap, explain.

mod hint;

use crate::call::{join_sentences, prepare, CallOptions, Prepared};
use crate::cancel::Cancel;
use crate::collect::{parent_dir, path_text, Best, Gathered};
use crate::dir::Dir;
use crate::entry::{EntryKind, Found, Meta};
use crate::error::{ErrorCode, Result};
use crate::filter::Filters;
use crate::git_status::GitAsk;
use crate::page::{paginate_leaving, Caps};
use crate::path_bytes::{posix_string, raw_bytes};
use crate::pattern::NameMatcher;
use crate::result::FindOutcome;
use crate::sandbox::Scope;
use crate::skipped::SkippedReport;
use crate::sort::{sort_and_split, SortBy, SortOrder};
use crate::source::{collect, Source};
use crate::walk::{Collector, Entry, WalkRules};
use std::path::{Path, PathBuf};

/// Above this many returned entries, metadata is read by the walker threads
/// in parallel rather than for the final page alone.
const STAT_IN_WALK_ABOVE: usize = 4096;

/// Everything a search needs, validated (see `options`).
#[derive(Debug, Clone)]
pub struct FindConfig {
    /// The pattern as the caller wrote it, for messages.
    pub pattern: String,
    pub matcher: NameMatcher,
    pub case_sensitive: bool,
    pub rules: WalkRules,
    pub filters: Filters,
    pub sort: SortBy,
    pub reverse: bool,
    pub caps: Caps,
    pub scope: Scope,
    /// What is walked: the disk, a storage or an index.
    pub source: Source,
    pub timeout_ms: Option<u64>,
    /// Fill `size`/`mtimeMs` of returned entries (false for `findFiles`).
    pub want_meta: bool,
    /// Only files changed in git (`git`, `changedSince`), and their status
    /// letters (`gitStatus`); see `git_scope`.
    pub git: GitAsk,
    /// When the result carries `skipped`.
    pub skipped: SkippedReport,
}

/// Whether the pattern and filters accept an entry: `Some` with its
/// metadata when `stat` is set (read only then), `None` to leave it out.
pub fn admit(
    matcher: &NameMatcher,
    filters: &Filters,
    stat: bool,
    relative: &Path,
    kind: EntryKind,
    entry: &Entry,
) -> Option<Option<Meta>> {
    if !filters.kind.accepts(kind) || !matcher.is_match(relative) {
        return None;
    }
    if !stat {
        return Some(None);
    }
    // An entry that vanished is skipped; one whose metadata cannot be read
    // (a folder listable but not enterable) is kept with zeros, as every
    // order then lists the same entries.
    let meta = match entry.stat() {
        Ok(st) => st.meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(_) => Meta { size: 0, mtime_ms: 0.0 },
    };
    filters.accepts_meta(kind, &meta).then_some(Some(meta))
}

/// `admit` as a selector that makes each accepted entry a `Found`.
pub fn select<'a>(
    matcher: &'a NameMatcher,
    filters: &'a Filters,
    stat: bool,
) -> impl Fn(&Path, EntryKind, &Entry) -> Option<Found> + Sync + 'a {
    move |relative, kind, entry| {
        let meta = admit(matcher, filters, stat, relative, kind, entry)?;
        Some(Found { path: posix_string(relative), kind, meta, raw: raw_bytes(relative).map(<[u8]>::to_vec) })
    }
}

impl CallOptions for FindConfig {
    fn source(&self) -> &Source {
        &self.source
    }
    fn scope(&self) -> &Scope {
        &self.scope
    }
    fn rules(&self) -> &WalkRules {
        &self.rules
    }
    fn with_rules(&self, rules: WalkRules) -> FindConfig {
        FindConfig { rules, ..self.clone() }
    }
}

pub fn run(config: &FindConfig, cancel: &Cancel) -> Result<FindOutcome> {
    let Prepared { options: config, root, status, git_note, in_flight: _in_flight } =
        prepare(config, &config.git, cancel)?;
    let config = config.as_ref();
    // A storage's listing carries the metadata: taking it costs nothing.
    let stat = config.filters.needs_meta()
        || config.sort.needs_meta()
        || (config.want_meta && config.caps.limit > STAT_IN_WALK_ABOVE)
        || root.local_dir().is_none();
    let order = SortOrder { by: config.sort, reverse: config.reverse };
    let walked =
        collect(&root, &config.rules, cancel, || Matches { config, stat, best: Best::new(order, config.caps.limit) })?;
    if let Some(err) = config.matcher.failure() {
        return Err(err);
    }
    let Gathered { best: mut found, matched, per_dir: mut left_out } = Gathered::merge(walked.found);
    // What falls past the limit here is already counted, by folder, in `left_out`.
    sort_and_split(&mut found, order, config.caps.limit);
    for f in &found {
        left_out.remove(parent_dir(&f.path), 1);
    }
    if let (true, false, Some(dir)) = (config.want_meta, stat, root.local_dir()) {
        fill_meta(dir, &mut found);
    }
    let path = config.source.display(&config.scope);
    // Short: empty, past the limit, or more than the byte cap holds.
    let short = || {
        matched == 0
            || matched > found.len()
            || config.caps.max_bytes.is_some_and(|max| !crate::page::fits(&path, &found, max))
    };
    let skipped = (!walked.tally.is_empty() && config.skipped.carries(short))
        .then(|| crate::skipped::groups(&walked.tally, &root, &config.rules));
    // The hint is extra work after a complete answer: when `timeoutMs` runs
    // out during it, the answer is returned without a hint; an abort by the
    // caller still rejects.
    let hint = match matched {
        0 => match hint::explain_no_match(config, &root, cancel) {
            Err(e) if e.code == ErrorCode::Aborted && !cancel.is_aborted_by_caller() => None,
            other => other?,
        },
        _ => None,
    };
    let hint = join_sentences(hint, git_note);
    let reserve = crate::render::skipped_line(skipped.as_deref().unwrap_or_default()).map_or(0, |line| line.len() + 1);
    let page = paginate_leaving(&path, found, left_out, matched, config.caps, reserve);
    let git_status = status.map(|changed| changed.porcelain_of(page.entries.iter().map(|f| f.path.as_str())));
    let mut outcome = FindOutcome {
        path,
        entries: page.entries,
        matched,
        truncated_by: page.truncated_by,
        notice: page.notice,
        hint,
        omitted: page.omitted,
        skipped,
        git_status,
    };
    // Within the byte cap, the hint (what to change) goes before the
    // `skipped` line (what was not searched), and either before neither.
    // (A cut answer already kept room for the line; only an empty one can
    // lack it.)
    let extras = outcome.hint.is_some() || outcome.skipped.is_some();
    if let (Some(max_bytes), true) = (config.caps.max_bytes, extras) {
        let (hint, skipped) = (outcome.hint.take(), outcome.skipped.take());
        let tries = [(true, true), (true, false), (false, true), (false, false)];
        for (with_hint, with_skipped) in tries {
            outcome.hint = hint.clone().filter(|_| with_hint);
            outcome.skipped = skipped.clone().filter(|_| with_skipped);
            if crate::render::render(&outcome).len() <= max_bytes {
                break;
            }
        }
    }
    Ok(outcome)
}

/// One walker thread's matches: what the pattern and filters admit, kept
/// under the limit (see `Best`).
struct Matches<'a> {
    config: &'a FindConfig,
    stat: bool,
    best: Best,
}

impl Collector for Matches<'_> {
    type Out = Gathered;

    fn offer(&mut self, relative: &Path, kind: EntryKind, entry: &Entry) {
        let config = self.config;
        if let Some(meta) = admit(&config.matcher, &config.filters, self.stat, relative, kind, entry) {
            match relative.to_str().filter(|_| std::path::MAIN_SEPARATOR == '/') {
                Some(text) => self.best.offer(text, None, kind, meta),
                None => self.best.offer(&path_text(relative), raw_bytes(relative), kind, meta),
            }
        }
    }

    fn finish(self) -> Gathered {
        self.best.finish()
    }
}

/// Reads size and mtime for the returned page only. An entry that vanished
/// since the walk keeps zeros rather than being dropped from the count.
fn fill_meta(root: &Dir, found: &mut [Found]) {
    // Entries of one folder usually sit together: open each folder once per run of them.
    let mut held: Option<(PathBuf, std::io::Result<Option<Dir>>)> = None;
    for f in found.iter_mut() {
        let relative = f.relative_path();
        let (Some(folder), Some(name)) = (relative.parent(), relative.file_name()) else { continue };
        if held.as_ref().is_none_or(|(open, _)| open != folder) {
            held = Some((folder.to_path_buf(), root.folder_beneath(folder)));
        }
        let Some((_, Ok(dir))) = &held else { continue };
        if let Ok(st) = dir.as_ref().unwrap_or(root).stat(name) {
            f.meta = Some(st.meta);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Value;
    use crate::options::{parse, Purpose};
    use crate::result::Truncation;
    use std::fs;

    struct FindTree(crate::testing::TempTree);

    impl FindTree {
        fn new(name: &str, files: &[(&str, usize)]) -> FindTree {
            let tree = crate::testing::TempTree::new(&format!("find-{name}"));
            for (path, size) in files {
                tree.write(path, vec![b'x'; *size]);
            }
            FindTree(tree)
        }

        fn find(&self, pairs: &[(&str, Value)]) -> Result<FindOutcome> {
            let mut fields = vec![("cwd".to_string(), Value::Text(self.0.to_string_lossy().into_owned()))];
            fields.extend(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())));
            run(&parse(&fields, Purpose::Find, Source::Disk)?, &Cancel::never())
        }
    }

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    fn paths(o: &FindOutcome) -> Vec<&str> {
        o.entries.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn largest_files_are_sorted_before_the_limit() {
        let t = FindTree::new("largest", &[("a", 10), ("b/c", 300), ("b/d", 20), ("e", 200)]);
        let o = t
            .find(&[
                ("pattern", text("**/*")),
                ("sortBy", text("size")),
                ("reverse", Value::Bool(true)),
                ("limit", Value::Number(2.0)),
            ])
            .unwrap();
        assert_eq!(paths(&o), ["b/c", "e"]);
        assert_eq!(o.entries[0].size(), 300);
        assert_eq!(o.matched, 4);
        assert_eq!(o.truncated_by, Some(Truncation::Limit));
        assert_eq!(o.omitted.iter().map(|d| (d.dir.as_str(), d.count)).collect::<Vec<_>>(), [(".", 1), ("b", 1)]);
    }

    #[test]
    fn maximum_and_bytes_caps() {
        let files: Vec<(String, usize)> = (0..50).map(|i| (format!("dir/file-{i:02}.txt"), 1)).collect();
        let refs: Vec<(&str, usize)> = files.iter().map(|(p, s)| (p.as_str(), *s)).collect();
        let t = FindTree::new("caps", &refs);
        let o = t
            .find(&[("pattern", text("**/*.txt")), ("maxLimit", Value::Number(10.0)), ("limit", Value::Number(99.0))])
            .unwrap();
        assert_eq!((o.entries.len(), o.truncated_by), (10, Some(Truncation::Maximum)));
        let o = t.find(&[("pattern", text("**/*.txt")), ("maxBytes", Value::Number(300.0))]).unwrap();
        assert_eq!(o.truncated_by, Some(Truncation::Bytes));
        assert!(crate::render::render(&o).len() <= 300);
        assert!(!o.entries.is_empty() && o.entries.len() < 50);
    }

    #[test]
    fn stats_the_page_when_no_sort_needs_it() {
        let t = FindTree::new("meta", &[("a.txt", 7)]);
        let o = t.find(&[("pattern", text("*.txt")), ("sortBy", text("name"))]).unwrap();
        assert_eq!(o.entries[0].size(), 7);
        assert!(o.entries[0].mtime_ms() > 0.0);
    }

    #[test]
    fn hints_for_top_level_globs_and_skipped_places() {
        let t = FindTree::new("hint", &[("src/deep/a.py", 1), ("node_modules/m/x.js", 1), (".cache/y.js", 1)]);
        fs::create_dir_all(t.0.join(".git")).unwrap();
        fs::write(t.0.join(".gitignore"), "node_modules\n").unwrap();
        let o = t.find(&[("pattern", text("*.py"))]).unwrap();
        let hint = o.hint.unwrap();
        assert!(hint.contains("'**/*.py' matches 1 file") && hint.contains("src/deep/a.py"), "{hint}");
        let o = t.find(&[("pattern", text("**/*.js")), ("hidden", Value::Bool(false))]).unwrap();
        let hint = o.hint.unwrap();
        assert!(hint.contains("`node_modules/` (1, ignored by .gitignore"), "{hint}");
        assert!(hint.contains("`.cache/` (1, hidden; set `hidden: true`)"), "{hint}");
        let o = t.find(&[("pattern", text("**/*.nothing"))]).unwrap();
        assert_eq!(o.hint, None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn names_that_are_not_utf8_are_listed_with_their_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let t = FindTree::new("raw", &[("ok.txt", 1)]);
        for name in [&b"caf\xe9.txt"[..], &b"caf\xe8.txt"[..]] {
            fs::write(t.0.join(std::ffi::OsStr::from_bytes(name)), "x").unwrap();
        }
        let o = t.find(&[("pattern", text("*")), ("sortBy", text("name"))]).unwrap();
        assert_eq!(o.entries.len(), 3);
        let raw: Vec<&[u8]> = o.entries.iter().filter_map(|f| f.raw.as_deref()).collect();
        assert_eq!(raw, [&b"caf\xe8.txt"[..], &b"caf\xe9.txt"[..]]);
        assert_eq!(o.entries[0].path, "caf\u{fffd}.txt");
        assert_eq!(o.entries[0].size(), 1, "metadata read through the real name");
        let text = crate::render::render(&o);
        assert!(text.contains("caf\u{fffd}.txt [name is not valid UTF-8]"), "{text}");
    }

    #[test]
    fn sandbox_and_path_errors() {
        let t = FindTree::new("errs", &[("in/f", 1), ("file", 1)]);
        let root = t.0.join("in").to_string_lossy().into_owned();
        let e = t.find(&[("pattern", text("*")), ("roots", Value::List(vec![text(&root)]))]).unwrap_err();
        assert_eq!(e.code, ErrorCode::OutsideRoot);
        let e = t.find(&[("pattern", text("*")), ("path", text("missing"))]).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        let e = t.find(&[("pattern", text("*")), ("path", text("file"))]).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotADir);
    }
}
