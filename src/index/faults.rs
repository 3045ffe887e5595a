//! A fault-injecting event source between a watcher and the index, and the
//! stress test that runs the index through it: what the watcher libraries'
//! users report of every backend (events dropped, merged, reordered and
//! delayed; renames reported as unrelated paths; a folder's events merged
//! into one on the folder; "rescan" flags in place of what was lost), made
//! on purpose from a seed. The index must stay exact as long as each change
//! still raises at least one event naming its folder, or a rescan: that is
//! what FSEvents promises, and all the faults here keep to it.
//!
//! On a volume that folds case or normal form (macOS, Windows), a watcher
//! may also name an entry in another case or form than its folder lists it
//! (`RECASED`): a second run simulates such a volume on Linux, where none
//! folds, by giving the index a folding `NameRule` and a tree whose names
//! are distinct once folded, and re-casing the paths of events.
//!
//! `AF_FAULT_SEEDS` (default 3, as in CI) sets how many seeds run, and
//! `AF_FAULT_OPS` how many changes each makes (default 300); a failure
//! names its seed.

use super::lifecycle::Index;
use super::lifecycle::IndexOptions;
use super::testing::{held_paths, open_watched_with, temp};
use super::watch::{Change, FolderWatches, Waited, Watcher, WatcherChoice};
use crate::cancel::Cancel;
use crate::error::Result;
use crate::names::NameRule;
use crate::sync::lock;
use notify::event::{CreateKind, ModifyKind, RemoveKind};
use notify::{Event, EventKind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A small seeded generator (xorshift64*): the same seed, the same faults.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The watcher `inner`, its events mangled as a seed says.
pub struct Faulty {
    inner: Arc<dyn Watcher>,
    rng: Mutex<Rng>,
    /// Changes held back, given with a later batch (or when all is quiet).
    held: Mutex<Vec<Change>>,
    /// Faults made, for the report.
    pub made: Mutex<[u64; KINDS]>,
    /// Whether events name entries in another case or normal form (`RECASED`).
    recasing: bool,
    /// The faults made, when not every kind (`AF_FAULT_KINDS` otherwise).
    only: Option<usize>,
    /// The watched folder's real path, which events' paths start with.
    root: Mutex<PathBuf>,
}

const DROPPED: usize = 0;
const MERGED: usize = 1;
const REORDERED: usize = 2;
const DELAYED: usize = 3;
const UNPAIRED: usize = 4;
const RESCAN: usize = 5;
const RECASED: usize = 6;
const KINDS: usize = 7;

impl Faulty {
    pub fn new(inner: Arc<dyn Watcher>, seed: u64) -> Faulty {
        Faulty {
            inner,
            rng: Mutex::new(Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)),
            held: Mutex::new(Vec::new()),
            made: Mutex::new([0; KINDS]),
            recasing: false,
            only: None,
            root: Mutex::new(PathBuf::new()),
        }
    }

    /// `new`, its events also naming entries in another case or normal form.
    pub fn recasing(inner: Arc<dyn Watcher>, seed: u64, only: Option<usize>) -> Faulty {
        Faulty { recasing: true, only, ..Faulty::new(inner, seed) }
    }

    /// Whether `fault` is made (`only`, else `AF_FAULT_KINDS`, indexes; all by default).
    fn on(&self, fault: usize) -> bool {
        if let Some(only) = self.only {
            return fault == only;
        }
        if fault == RECASED && !self.recasing {
            return false;
        }
        std::env::var("AF_FAULT_KINDS").map_or(true, |k| k.split(',').any(|f| f == fault.to_string()))
    }

    /// `path` (below the root) with some of its names in another case or
    /// normal form, as a folding volume's watcher may give it.
    fn recase(&self, rng: &mut Rng, path: &Path) -> PathBuf {
        let root = lock(&self.root).clone();
        let Ok(rel) = path.strip_prefix(&root) else { return path.to_path_buf() };
        let mut out = root;
        for part in rel {
            let name = part.to_string_lossy();
            out.push(match rng.below(3) {
                0 => name.to_uppercase(),
                1 => unicode_normalization::UnicodeNormalization::nfd(&*name).collect(),
                _ => name.into_owned(),
            });
        }
        out
    }

    fn count(&self, fault: usize) {
        lock(&self.made)[fault] += 1;
    }

    /// One batch as a faulty watcher would give it.
    fn mangle(&self, mut changes: Vec<Change>) -> Vec<Change> {
        if std::env::var_os("AF_FAULT_NONE").is_some() {
            return changes;
        }
        let mut rng = lock(&self.rng);
        // Now and then the OS says it lost events, and nothing else.
        if self.on(RESCAN) && rng.one_in(40) {
            self.count(RESCAN);
            let rescan = Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
            return vec![Change::At(Ok(rescan))];
        }
        for change in &mut changes {
            if self.on(RECASED) && rng.one_in(2) {
                match change {
                    Change::At(Ok(event)) if !event.need_rescan() => {
                        let paths = std::mem::take(&mut event.paths);
                        event.paths = paths.iter().map(|p| self.recase(&mut rng, p)).collect();
                        self.count(RECASED);
                    }
                    Change::InFolder { name, .. } if !name.is_empty() => {
                        let recased = self.recase(&mut rng, &lock(&self.root).join(crate::path_bytes::os_str(name)));
                        *name = recased.file_name().unwrap_or_default().as_encoded_bytes().to_vec();
                        self.count(RECASED);
                    }
                    _ => {}
                }
            }
            match change {
                // Merged: an event on a name in a folder becomes one on the folder itself.
                Change::InFolder { name, .. } if self.on(MERGED) && !name.is_empty() && rng.one_in(4) => {
                    name.clear();
                    self.count(MERGED);
                }
                Change::At(Ok(event)) if self.on(UNPAIRED) && rng.one_in(4) => {
                    // Unpaired: a rename told as a create or a remove at one path.
                    if let EventKind::Modify(ModifyKind::Name(_)) = event.kind {
                        event.kind = match rng.one_in(2) {
                            true => EventKind::Create(CreateKind::Any),
                            false => EventKind::Remove(RemoveKind::Any),
                        };
                        self.count(UNPAIRED);
                    }
                }
                // A name's event of no kind told as a create, a remove or a rename
                // (what a mode change raises is left as it is: its kind is what
                // says a folder's access changed).
                Change::InFolder { kind, .. } if self.on(UNPAIRED) && rng.one_in(4) => {
                    if matches!(kind, EventKind::Any | EventKind::Modify(ModifyKind::Name(_))) {
                        *kind = match rng.below(3) {
                            0 => EventKind::Create(CreateKind::Any),
                            1 => EventKind::Remove(RemoveKind::Any),
                            _ => EventKind::Modify(ModifyKind::Name(notify::event::RenameMode::Any)),
                        };
                        self.count(UNPAIRED);
                    }
                }
                _ => {}
            }
        }
        // Dropped: an event whose folder another event of the batch names too.
        let mut kept: Vec<Change> = Vec::new();
        let keys: Vec<Option<FolderKey>> = changes.iter().map(folder_key).collect();
        for (i, change) in changes.into_iter().enumerate() {
            let named_again = keys[i].is_some() && keys[i + 1..].contains(&keys[i]);
            if self.on(DROPPED) && named_again && rng.one_in(3) {
                self.count(DROPPED);
                continue;
            }
            kept.push(change);
        }
        // Reordered.
        if self.on(REORDERED) && kept.len() > 1 && rng.one_in(3) {
            for i in (1..kept.len()).rev() {
                kept.swap(i, rng.below(i + 1));
            }
            self.count(REORDERED);
        }
        // Delayed: the tail of the batch held back for the next one.
        if self.on(DELAYED) && kept.len() > 1 && rng.one_in(4) {
            let cut = 1 + rng.below(kept.len() - 1);
            lock(&self.held).extend(kept.split_off(cut));
            self.count(DELAYED);
        }
        kept
    }
}

/// What names a change's folder, to tell which events could go unmissed.
#[derive(PartialEq)]
enum FolderKey {
    Folder(super::tree::Handle),
    Path(PathBuf),
}

fn folder_key(change: &Change) -> Option<FolderKey> {
    match change {
        Change::InFolder { folder, git: None, name, .. } if !name.is_empty() => Some(FolderKey::Folder(*folder)),
        Change::At(Ok(event)) if !event.need_rescan() => {
            event.paths.first().and_then(|p| p.parent()).map(|p| FolderKey::Path(p.to_path_buf()))
        }
        _ => None,
    }
}

impl Watcher for Faulty {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn start(&self, root: &Path, shown: &Path) -> Result<()> {
        *lock(&self.root) = root.to_path_buf();
        self.inner.start(root, shown)
    }

    fn wait(&self, timeout: Duration) -> Waited {
        let held = !lock(&self.held).is_empty();
        let waited = self.inner.wait(if held { Duration::from_millis(5) } else { timeout });
        match waited {
            Waited::Changes(changes) => {
                let mut batch = std::mem::take(&mut *lock(&self.held));
                batch.extend(changes);
                Waited::Changes(self.mangle(batch))
            }
            // Quiet: what was held back comes now, as it is.
            Waited::Quiet if held => Waited::Changes(std::mem::take(&mut *lock(&self.held))),
            other => other,
        }
    }

    fn mark(&self) -> u64 {
        self.inner.mark()
    }

    fn caught_up(&self, mark: u64) -> bool {
        lock(&self.held).is_empty() && self.inner.caught_up(mark)
    }

    fn folder_watches(&self) -> Option<&dyn FolderWatches> {
        self.inner.folder_watches()
    }

    fn names_stale_paths(&self) -> bool {
        self.inner.names_stale_paths()
    }

    fn renew(&self, folder: &Path) -> Result<()> {
        self.inner.renew(folder)
    }
}

/// Every path below `root` on disk (not inside a `.git`), as the index holds them.
fn on_disk(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else { continue };
        for entry in entries.flatten() {
            let child = rel.join(entry.file_name());
            found.push(child.to_string_lossy().into_owned());
            if entry.file_type().is_ok_and(|t| t.is_dir()) && entry.file_name() != ".git" {
                stack.push(child);
            }
        }
    }
    found.sort();
    found
}

/// One change to the tree below `root`, chosen by `rng`; what it did. The
/// names it makes hold `accent` (so that a normal form can differ).
fn change_tree(root: &Path, rng: &mut Rng, n: usize, accent: &str) -> String {
    let all = on_disk(root);
    let pick = |rng: &mut Rng, dirs: bool| -> Option<String> {
        let of: Vec<&String> = all.iter().filter(|p| root.join(p).is_dir() == dirs).collect();
        (!of.is_empty()).then(|| of[rng.below(of.len())].clone())
    };
    let folder = |rng: &mut Rng| pick(rng, true).unwrap_or_default();
    let at = |rel: &str| root.join(rel);
    match rng.below(9) {
        0 | 1 => {
            let path = format!("{}/f{accent}{n}.txt", folder(rng));
            let _ = std::fs::write(at(&path), format!("file {n}\n"));
            format!("create {path}")
        }
        2 => {
            let path = format!("{}/d{accent}{n}", folder(rng));
            let _ = std::fs::create_dir(at(&path));
            let _ = std::fs::write(at(&format!("{path}/inside.txt")), "inside\n");
            format!("mkdir {path}")
        }
        3 => match pick(rng, false) {
            Some(file) => {
                let _ = std::fs::remove_file(at(&file));
                format!("delete {file}")
            }
            None => "nothing".into(),
        },
        4 => match pick(rng, false) {
            Some(file) => {
                let to = format!("{}/r{accent}{n}.txt", folder(rng));
                let _ = std::fs::rename(at(&file), at(&to));
                format!("rename {file} -> {to}")
            }
            None => "nothing".into(),
        },
        5 => match pick(rng, true) {
            // A folder renamed away and another made under its name.
            Some(dir) => {
                let away = format!("away{n}");
                let _ = std::fs::rename(at(&dir), at(&away));
                let _ = std::fs::create_dir(at(&dir));
                let _ = std::fs::write(at(&format!("{dir}/new{n}.txt")), "new\n");
                format!("replace folder {dir} (old one now {away})")
            }
            None => "nothing".into(),
        },
        6 => match pick(rng, true) {
            // Moved away and back.
            Some(dir) => {
                let _ = std::fs::rename(at(&dir), at(&format!("tmp{n}")));
                let _ = std::fs::write(at(&format!("tmp{n}/during{n}.txt")), "x\n");
                let _ = std::fs::rename(at(&format!("tmp{n}")), at(&dir));
                format!("away and back {dir}")
            }
            None => "nothing".into(),
        },
        7 => match pick(rng, true) {
            Some(dir) => {
                let _ = std::fs::remove_dir_all(at(&dir));
                format!("rm -r {dir}")
            }
            None => "nothing".into(),
        },
        _ => match pick(rng, false) {
            // The same size, the mtime set back.
            Some(file) => {
                let path = at(&file);
                if let Ok(md) = std::fs::metadata(&path) {
                    let _ = std::fs::write(&path, "y".repeat(md.len() as usize));
                    if let (Ok(f), Ok(t)) = (std::fs::File::options().write(true).open(&path), md.modified()) {
                        let _ = f.set_modified(t);
                    }
                }
                format!("rewrite {file}")
            }
            None => "nothing".into(),
        },
    }
}

fn int(var: &str, default: u64) -> u64 {
    std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A volume that folds names, simulated: the index's rule, and the one
/// fault made (all, with `RECASED`, when `None`).
struct Folding {
    rule: NameRule,
    only: Option<usize>,
}

/// Runs `ops` changes in bursts through the faulty watcher; after each burst,
/// `settle` and compare what the index holds with the disk.
fn run_seed(seed: u64, ops: u64, folding: Option<Folding>) -> std::result::Result<[u64; KINDS], String> {
    let dir = temp(&format!("faults-{seed}"));
    let (watcher, accent) = match folding {
        // Events by path, where a folder's path can be re-cased too.
        Some(_) => (WatcherChoice::Poll(Duration::from_millis(10)), "\u{e9}"),
        None => (WatcherChoice::Native, ""),
    };
    let options = IndexOptions { names: folding.as_ref().map(|f| f.rule), ..IndexOptions::default() };
    let (index, faulty): (Arc<Index>, Arc<Faulty>) = open_watched_with(&dir, options, |root| {
        let inner = super::watch::new_watcher(watcher, root).unwrap();
        match &folding {
            Some(f) => Faulty::recasing(inner, seed, f.only),
            None => Faulty::new(inner, seed),
        }
    });
    let mut rng = Rng(seed | 1);
    let mut done = Vec::new();
    let mut n = 0;
    while (n as u64) < ops {
        for _ in 0..1 + rng.below(12) {
            done.push(change_tree(&dir, &mut rng, n, accent));
            n += 1;
        }
        index.settle(&Cancel::never()).map_err(|e| format!("seed {seed}: settle: {}", e.message))?;
        let (held, disk) = (held_paths(&index), on_disk(&dir));
        if held != disk {
            let only_index: Vec<&String> = held.iter().filter(|p| !disk.contains(p)).take(8).collect();
            let only_disk: Vec<&String> = disk.iter().filter(|p| !held.contains(p)).take(8).collect();
            let last: Vec<&String> = done.iter().rev().take(12).collect();
            return Err(format!(
                "seed {seed}, after {n} changes: only in the index {only_index:?}, only on disk {only_disk:?}; last changes (newest first): {last:?}"
            ));
        }
    }
    index.close();
    let made = *lock(&faulty.made);
    Ok(made)
}

#[test]
fn the_index_stays_exact_through_dropped_merged_reordered_delayed_and_unpaired_events() {
    let (seeds, ops) = (int("AF_FAULT_SEEDS", 3), int("AF_FAULT_OPS", 300));
    let mut failures = Vec::new();
    let mut total = [0u64; KINDS];
    let only: Option<u64> = std::env::var("AF_FAULT_SEED").ok().and_then(|s| s.parse().ok());
    for seed in (1..=seeds).filter(|s| only.is_none_or(|o| o == *s)) {
        match run_seed(seed, ops, None) {
            Ok(made) => (0..KINDS).for_each(|i| total[i] += made[i]),
            Err(why) => failures.push(why),
        }
    }
    eprintln!(
        "{seeds} seeds x {ops} changes; faults made: {} dropped, {} merged, {} reordered batches, {} delayed, {} unpaired, {} rescans",
        total[DROPPED], total[MERGED], total[REORDERED], total[DELAYED], total[UNPAIRED], total[RESCAN]
    );
    assert!(failures.is_empty(), "{} of {seeds} seeds failed:\n{}", failures.len(), failures.join("\n"));
    // The faults were made, or the test proves little.
    assert!(
        std::env::var_os("AF_FAULT_NONE").is_some()
            || only.is_some()
            || (total[DROPPED] > 0 && total[MERGED] > 0 && total[DELAYED] > 0 && total[RESCAN] > 0),
        "{total:?}"
    );
}

/// A volume that folds case and normal form (macOS's), simulated.
const FOLDS_ALL: NameRule = NameRule { folds_case: true, folds_form: true };

#[test]
fn the_index_stays_exact_when_events_name_entries_in_another_case_or_form() {
    let (seeds, ops) = (int("AF_FAULT_SEEDS", 3), int("AF_FAULT_OPS", 300));
    let mut failures = Vec::new();
    let mut total = [0u64; KINDS];
    for seed in 1..=seeds {
        match run_seed(seed, ops, Some(Folding { rule: FOLDS_ALL, only: None })) {
            Ok(made) => (0..KINDS).for_each(|i| total[i] += made[i]),
            Err(why) => failures.push(why),
        }
    }
    eprintln!("{seeds} seeds x {ops} changes on a simulated folding volume; {} events re-cased", total[RECASED]);
    assert!(failures.is_empty(), "{} of {seeds} seeds failed:\n{}", failures.len(), failures.join("\n"));
    assert!(total[RECASED] > 0, "{total:?}");
}

/// The run above proves something: with names compared as bytes, the
/// same re-cased events leave the index wrong.
#[test]
fn re_cased_events_read_as_bytes_leave_the_index_wrong() {
    let wrong =
        (1..=3).any(|seed| run_seed(seed, 200, Some(Folding { rule: NameRule::EXACT, only: Some(RECASED) })).is_err());
    assert!(wrong, "re-cased events were placed without the volume's rule");
}
