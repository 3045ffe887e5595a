//! What a call runs: the options parsed into a `Job` (a find with the
//! shape its answer takes, or a search), and the run itself, on the
//! blocking pool, into the `RunOutput` JS receives.

use crate::columns::split_paths;
use crate::results::{find_output, RunOutput};
use agent_find_core::{
    clip, explain, parse_find_options, parse_search_options, run_find, run_search, Cancel, CancelFlag, ErrorCode,
    FindConfig, FindError, Purpose, SearchConfig, Source, Value,
};
use std::sync::Arc;

/// What a plan runs.
#[derive(Clone)]
pub enum Job {
    Find(Arc<FindConfig>, FindShape),
    Search(Arc<SearchConfig>),
}

/// The shape a find's answer crosses into JS in.
#[derive(Clone)]
pub enum FindShape {
    /// A `FindResult`, entries in columnar slices.
    Entries,
    /// `findFiles`: absolute paths.
    Paths,
    /// Why this path (absolute) is or is not among the entries.
    Explain(Arc<std::path::Path>),
}

/// The options as read from JS, not yet parsed: parsing compiles the
/// patterns (globs, `exclude`, regexes), which can take a good part of a
/// second, so it runs on the blocking pool (`Plan.prepare`), never on the
/// event loop.
pub struct UnparsedJob {
    pub fields: Vec<(String, Value)>,
    pub source: Source,
    pub purpose: String,
}

impl UnparsedJob {
    /// Options into a `Job`: validation and pattern compiling. Off the loop.
    pub fn parse(self) -> std::result::Result<Job, FindError> {
        let UnparsedJob { mut fields, source, purpose } = self;
        let mut explained = None;
        if purpose == "explain" {
            // The JS wrapper resolves the path asked about (against `cwd`) and passes it in `explain`.
            let at = fields.iter().position(|(name, _)| name == "explain");
            explained = match at.map(|i| fields.remove(i).1) {
                Some(Value::Text(path)) if std::path::Path::new(&path).is_absolute() => {
                    Some(Arc::from(std::path::Path::new(&path)))
                }
                _ => return Err(FindError::invalid_argument("`explain(path, options)` takes the path as a string")),
            };
            // With no pattern, only the walk's rules (and the filters) decide.
            if !fields.iter().any(|(name, _)| name == "pattern") {
                fields.push(("pattern".to_string(), Value::Text("**".to_string())));
            }
        }
        let find = |purpose, shape: FindShape| {
            parse_find_options(&fields, purpose, source.clone()).map(|c| Job::Find(Arc::new(c), shape))
        };
        match purpose.as_str() {
            "search" => parse_search_options(&fields, source.clone()).map(|c| Job::Search(Arc::new(c))),
            "findFiles" => find(Purpose::FindFiles, FindShape::Paths),
            "find" => find(Purpose::Find, FindShape::Entries),
            "explain" => find(
                Purpose::Find,
                FindShape::Explain(explained.unwrap_or_else(|| Arc::from(std::path::Path::new("/")))),
            ),
            other => Err(FindError::invalid_argument(format!(
                "internal: unknown purpose `{}`; it is find, findFiles, search or explain",
                clip(other, 40)
            ))),
        }
    }
}

impl Job {
    pub fn source(&self) -> &Source {
        match self {
            Job::Find(config, _) => &config.source,
            Job::Search(config) => &config.source,
        }
    }

    /// What stops its wait for a slot: `flag`, and `timeoutMs` counted from
    /// `made` (as `run_job` makes it), except for a `partial` search, which
    /// answers (with nothing searched) once its time is out.
    pub fn slot_wait_cancel(&self, flag: CancelFlag, made: std::time::Instant) -> Cancel {
        let timeout_ms = match self {
            Job::Find(config, _) => config.timeout_ms,
            Job::Search(config) if config.page.partial => None,
            Job::Search(config) => config.timeout_ms,
        };
        Cancel::since(flag, timeout_ms, made)
    }
}

/// Runs on tokio's blocking pool.
pub fn run_job(job: &Job, flag: CancelFlag, made: std::time::Instant) -> RunOutput {
    let done = match job {
        Job::Find(config, FindShape::Explain(target)) => {
            let cancel = Cancel::since(flag, config.timeout_ms, made);
            explain(config, target, &cancel).map(|e| RunOutput { explanation: Some(e.into()), ..RunOutput::empty() })
        }
        Job::Find(config, shape) => {
            let cancel = Cancel::since(flag, config.timeout_ms, made);
            run_find(config, &cancel).map(|outcome| match shape {
                FindShape::Entries => {
                    let (result, remaining) = find_output(outcome);
                    RunOutput { result: Some(result), remaining, ..RunOutput::empty() }
                }
                FindShape::Explain(_) => unreachable_explain(),
                FindShape::Paths => {
                    let root = &config.scope.logical_path;
                    let paths: Vec<String> =
                        outcome.entries.iter().map(|f| root.join(&f.path).to_string_lossy().into_owned()).collect();
                    let (first, remaining) = split_paths(paths);
                    RunOutput { paths: Some(first), remaining, ..RunOutput::empty() }
                }
            })
        }
        Job::Search(config) => {
            let cancel = Cancel::since(flag, config.timeout_ms, made);
            run_search(config, &cancel).map(|outcome| RunOutput { search: Some(outcome.into()), ..RunOutput::empty() })
        }
    };
    done.unwrap_or_else(RunOutput::failed)
}

/// Explain answers are matched before `run_find`.
fn unreachable_explain() -> RunOutput {
    RunOutput::failed(FindError::new(ErrorCode::FsError, "internal error in agent-find: explain ran as find"))
}
