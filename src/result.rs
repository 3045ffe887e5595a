//! The answer of a search, as the binding hands it to JavaScript.

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
    pub skipped: Option<Vec<crate::walk::SkippedGroup>>,
    /// With `gitStatus`: the `git status --porcelain` letters of each
    /// returned entry git has a change of, by path.
    pub git_status: Option<std::collections::BTreeMap<String, String>>,
}
