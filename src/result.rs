//! The answer of a search, as the binding hands it to JavaScript, and what
//! a walk left out (`Tally`, by `SkipReason`), which the answer reports.

use crate::entry::Found;

/// Which cap cut the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// `limit`, below `maxLimit`.
    Limit,
    /// `limit` reached `maxLimit`.
    Maximum,
    /// The rendered text reached `maxBytes`.
    Bytes,
}

impl Truncation {
    pub fn as_str(self) -> &'static str {
        match self {
            Truncation::Limit => "limit",
            Truncation::Maximum => "maximum",
            Truncation::Bytes => "bytes",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "limit" => Some(Truncation::Limit),
            "maximum" => Some(Truncation::Maximum),
            "bytes" => Some(Truncation::Bytes),
            _ => None,
        }
    }
}

/// A folder holding many of the entries a cap left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OmittedDir {
    /// Relative to the search directory, `/`-separated; `.` for the directory itself.
    pub dir: String,
    pub count: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FindOutcome {
    /// The search directory, absolute, as the caller named it (`cwd` + `path`).
    pub path: String,
    pub entries: Vec<Found>,
    /// Matches before any cap.
    pub matched: usize,
    pub truncated_by: Option<Truncation>,
    /// The truncation sentence shown to the model.
    pub notice: Option<String>,
    pub hint: Option<String>,
    pub omitted: Vec<OmittedDir>,
    /// With `skipped: true`: what the walk left out, by reason.
    /// `None` unless asked.
    pub skipped: Option<Vec<SkippedGroup>>,
    /// With `gitStatus`: the `git status --porcelain` letters of each
    /// returned entry git has a change of, by path.
    pub git_status: Option<std::collections::BTreeMap<String, String>>,
}

/// Why the walk (or a search) left an entry out, as `skipped` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// By an ignore file's line.
    Ignored,
    Hidden,
    /// By an `exclude` glob.
    Excluded,
    /// A folder named in `skip_dirs` (`node_modules`, `dist`, ... for a search).
    AlwaysSkipped,
    /// A folder at the `maxDepth` limit, listed but not entered.
    Depth,
    /// A symlink: listed, never followed.
    Symlink,
    /// A folder (or, in a search, a file) the OS would not let the walk read.
    Denied,
    /// A file a content search stopped reading at a NUL byte.
    Binary,
    /// A file too large for the search to read: with `multiline`, over
    /// `MAX_MULTILINE_FILE_BYTES` (a match may span the whole file).
    TooLarge,
}

impl SkipReason {
    pub const ALL: [SkipReason; 9] = [
        SkipReason::Ignored,
        SkipReason::Hidden,
        SkipReason::Excluded,
        SkipReason::AlwaysSkipped,
        SkipReason::Depth,
        SkipReason::Symlink,
        SkipReason::Denied,
        SkipReason::Binary,
        SkipReason::TooLarge,
    ];

    /// The reason `name` names.
    pub fn parse(name: &str) -> Option<SkipReason> {
        SkipReason::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The name results carry.
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::Ignored => "ignored",
            SkipReason::Hidden => "hidden",
            SkipReason::Excluded => "excluded",
            SkipReason::AlwaysSkipped => "always-skipped",
            SkipReason::Depth => "depth",
            SkipReason::Symlink => "symlink",
            SkipReason::Denied => "denied",
            SkipReason::Binary => "binary",
            SkipReason::TooLarge => "too-large",
        }
    }
}

/// What a walk left out, counted as it went: entries by reason (a folder
/// left out counts once: it is not entered, so nothing below it is
/// counted), and the folders among them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    counts: [u64; SkipReason::ALL.len()],
    /// Folders left out, relative; in no order until `groups` sorts them.
    folders: Vec<(SkipReason, String)>,
}

/// One reason's share of a `Tally`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedGroup {
    pub reason: SkipReason,
    /// Entries left out for it (a folder counted once).
    pub count: u64,
    /// The first folders left out for it, in path order, at most `top`.
    pub folders: Vec<SkippedFolder>,
}

/// A folder left out whole.
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedFolder {
    /// Relative, no trailing `/`.
    pub path: String,
    /// For an ignored folder on the local disk: the ignore line that hides
    /// it, as `file:line: pattern`.
    pub rule: Option<String>,
}

impl Tally {
    pub fn add(&mut self, reason: SkipReason, entries: u64) {
        self.counts[reason as usize] += entries;
    }

    /// A folder left out, not entered.
    pub fn add_folder(&mut self, reason: SkipReason, rel: String) {
        self.add(reason, 1);
        self.folders.push((reason, rel));
    }

    pub fn merge(&mut self, other: &Tally) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine += theirs;
        }
        self.folders.extend(other.folders.iter().cloned());
    }

    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0)
    }

    /// The folders left out for `reason`, in no order.
    pub fn folders_of(&self, reason: SkipReason) -> impl Iterator<Item = &str> {
        self.folders.iter().filter(move |(r, _)| *r == reason).map(|(_, path)| path.as_str())
    }

    /// The reasons with a count, in `SkipReason::ALL` order, each with its
    /// first `top` folders in path order (so the answer does not depend on
    /// which thread met which folder first).
    pub fn groups(&self, top: usize) -> Vec<SkippedGroup> {
        SkipReason::ALL
            .iter()
            .filter(|&&reason| self.counts[reason as usize] > 0)
            .map(|&reason| {
                let mut folders: Vec<&str> = self.folders_of(reason).collect();
                folders.sort_unstable();
                SkippedGroup {
                    reason,
                    count: self.counts[reason as usize],
                    folders: folders
                        .into_iter()
                        .take(top)
                        .map(|path| SkippedFolder { path: path.to_string(), rule: None })
                        .collect(),
                }
            })
            .collect()
    }
}
