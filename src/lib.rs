//! agent-find's core: file search for AI agents, with no Node dependency.
//! Find files by glob or regex with git's ignore rules, filter, sort and
//! cap the answer for a language model, and search file contents, on the
//! local disk, in a host's storage (`storage::Storage`) or in a live index.
//! The napi binding (`napi/`), the fuzz targets and the property tests link
//! this crate; `docs/ARCHITECTURE.md` shows its layers.

pub mod args;
pub mod cancel;
pub mod collect;
pub mod dir;
pub mod entry;
pub mod error;
pub mod filter;
pub mod find;
pub mod gitconfig;
pub mod gitdir;
pub mod gitignore;
pub mod index;
pub mod js_regex;
pub mod limits;
pub mod options;
pub mod page;
pub mod pattern;
pub mod render;
pub mod result;
pub mod sandbox;
pub mod search;
pub mod shared;
pub mod sort;
pub mod source;
pub mod storage;
pub mod sync;
#[cfg(test)]
mod testing;
pub mod walk;
