//! agent-find's core: file search for AI agents, with no Node dependency.
//! Find files by glob or regex with git's ignore rules, filter, sort and
//! cap the answer for a language model, and search file contents, on the
//! local disk, in a host's storage (`Storage`) or in a live index (`Index`).
//! The napi binding (`napi/`), the fuzz targets and the property tests link
//! this crate; `docs/ARCHITECTURE.md` shows its layers.
//!
//! The modules are private; what a caller uses is re-exported here: the two
//! calls (`parse_find_options` + `run_find`, `parse_search_options` +
//! `run_search`) and the text a model reads of their answers, the values
//! that cross into and out of them, the places a search can run (the disk,
//! a `Storage`, an `Index`), the option table, and for fuzzing and property
//! tests the matchers and parsers.

mod args;
mod call;
mod calls_in_flight;
mod cancel;
mod collect;
mod content_sketch;
mod dir;
mod entry;
mod error;
mod explain;
mod filter;
mod find;
mod folder_counts;
// The gix side of git scoping, left out of a build without the `git`
// feature (see `git_scope`, which refuses the options there).
#[cfg(feature = "git")]
mod git_changes;
#[cfg(feature = "git")]
mod git_repo;
mod git_scope;
#[cfg(feature = "git")]
mod git_since;
mod git_status;
mod gitconfig;
mod gitdir;
mod gitignore;
mod index;
mod js_regex;
pub mod limits;
mod names;
pub mod option_table;
mod options;
mod page;
mod path_bytes;
mod pattern;
mod render;
mod result;
mod sandbox;
mod search;
mod shared;
mod skipped;
mod sort;
mod source;
mod storage;
mod sync;
#[cfg(test)]
mod testing;
mod thread_priority;
mod walk;
mod windows_path;

// The calls, and the text a model reads of their answers.
pub use explain::{run as explain, Explanation, Reason as ExplainReason};
pub use find::{run as run_find, FindConfig};
pub use gitignore::IgnoreLine;
pub use options::{parse as parse_find_options, Purpose};
pub use render::{default_notice, render as render_find};
pub use result::{FindOutcome, OmittedDir, Truncation};
pub use result::{SkipReason, SkippedFolder, SkippedGroup};
pub use search::options::{file_types, parse as parse_search_options};
pub use search::render::render as render_search;
pub use search::{
    default_search_rules, run as run_search, Context, ContextLine, LineMatch, SearchConfig, SearchItems, SearchOutcome,
};

// The values that cross into and out of a call.
pub use args::Value;
pub use calls_in_flight::CallQueued;
pub use cancel::{Cancel, CancelFlag};
pub use entry::{EntryKind, Found, Meta};
pub use error::{clip, ErrorCode, FindError, Result};

// Where a search runs: the disk, a host's storage, a live index.
pub use dir::Stat;
pub use index::{
    default_cache_dir, BuildState, ContentCaps, Index, IndexOptions, IndexRef, LayerSize, SavedSketches, WatcherChoice,
};
pub use names::NameRule;
pub use sandbox::resolve_logical;
pub use shared::Shared;
pub use source::Source;
pub use storage::{error_from_code, Listed, Reply, Storage};
pub use sync::lock;
pub use thread_priority::{lower_this_thread, Lowered};

// The matchers and parsers, for the fuzz targets and property tests (with
// `limits`, every default and cap).
pub use filter::{size, time};
pub use pattern::{normalize_glob, NameMatcher, PatternMode};
pub use walk::Excludes;
