//! The napi binding: converts JS values into the Rust types of the core
//! crate (`agent-find-core`, in the repository's `src/`) and results back,
//! and runs each search on tokio's blocking pool so that the JS event loop
//! never waits for a walk. No search logic lives here.
//!
//! Each `#[napi]` item exports itself to JS from the module that owns it:
//!
//! - `plan`: JS's `Plan`, one call from its options to its answer;
//! - `job`: what a call runs, parsed from its options, and the run;
//! - `js_options`: a JS options object as the core's option fields;
//! - `js_reader`: a host's JS reader as the core's `Storage`;
//! - `slots`: how many calls walk, or parse their options, at once;
//! - `blocking_pool`: work off the event loop;
//! - `results`: the result types as JS sees them, made from the core's outcomes;
//! - `columns`: entries and paths crossing as columns, in slices;
//! - `file_index`: JS's `FileIndex`, the live index;
//! - `format`: a result JS hands back, as the core's outcome again;
//! - `table`: the option table and ripgrep's file types.
//!
//! This root re-exports the functions and classes JS calls (napi registers
//! none of them under `cargo test`, where they would otherwise be dead code)
//! and holds the formatters and the limits JS reads. The formatters stay
//! below the modules: napi-derive writes their argument types under their JS
//! names only once it has expanded those types (see `results`).

mod blocking_pool;
mod columns;
mod file_index;
mod format;
mod job;
mod js_options;
mod js_reader;
mod plan;
mod results;
mod slots;
mod table;

pub use columns::{entry_kinds, Remaining};
pub use file_index::FileIndex;
pub use plan::Plan;
pub use table::{file_types, option_table};

use agent_find_core::{render_find, render_search};
use napi_derive::napi;
use results::{JsFindResult, JsSearchResult};

/// The text a model reads for a `FindResult`.
#[napi(catch_unwind)]
pub fn format_find_result(result: JsFindResult) -> String {
    render_find(&result.into())
}

/// The text a model reads for a `SearchResult`.
#[napi(catch_unwind)]
pub fn format_search_result(result: JsSearchResult) -> String {
    render_search(&result.into())
}

/// The most calls in flight a reader may ask for.
#[napi]
pub const MAX_READER_CONCURRENCY: u32 = js_reader::MAX_CONCURRENCY;

/// The longest matching line `searchFiles` shows whole (longer ones are clipped).
#[napi]
pub const MAX_LINE_CHARS: u32 = agent_find_core::limits::MAX_LINE_CHARS as u32;
/// The longest matching line the model text shows whole (longer ones as a window around the match).
#[napi]
pub const MODEL_LINE_CHARS: u32 = agent_find_core::limits::MODEL_LINE_CHARS as u32;
