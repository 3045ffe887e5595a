//! A live index of one folder: built by one parallel walk, then kept exact
//! by file-system events, so repeated searches are answered from memory
//! with the same results as a fresh walk.
//!
//! Every folder is watched before it is listed: by the first walk, as it
//! opens each folder, and later ones before their own listing; so every
//! change after a folder was listed raises an event. An event only says
//! which folder changed: that folder is listed again and compared with the
//! index, so renames, mass deletes and edits of ignore files all come down
//! to the same step. The user's git config and global excludes file are
//! read once, at open (`GitEnv`).
//!
//! The parts, in the order they build on each other (each part's `impl
//! Index` block also reads the state `lifecycle` holds):
//! - `tree`: the compact tree (arena, interned names, compiled rules per
//!   folder, handles checked by serial); `content`: the content layer,
//!   its sketches bit-sliced (`sliced`).
//! - `watch`: where events come from, behind the `Watcher` trait (inotify
//!   used directly on Linux, `notify` elsewhere).
//! - `disk`: what is read of one entry or folder on disk; `build`: the walk
//!   that builds a tree (and adds the first watches).
//! - `links`: files with more than one name, watched on their own;
//!   `reconcile`: one folder listed again and compared with the tree.
//! - `events`: what a batch of events says, by path; `keeper`: the thread
//!   that applies them, and its recovery from dropped events and panics.
//! - `unwatched`: what each call looks at again that no watch covers;
//!   `query`: the walk over the tree that answers a search.
//! - `background`: the content layer filled once the tree is built.
//! - `lifecycle`: `Index` itself: open, close, stats, settle, and what every
//!   call checks first.

mod background;
mod build;
pub mod content;
mod disk;
mod events;
#[cfg(test)]
mod faults;
mod keeper;
mod lifecycle;
mod links;
pub mod query;
mod reconcile;
mod saved;
mod sliced;
#[cfg(test)]
mod testing;
pub mod tree;
mod unwatched;
mod watch;

pub use background::BuildState;
pub use content::{ContentCaps, LayerSize};
pub use lifecycle::{Index, IndexOptions, IndexRef};
pub use saved::{default_dir as default_cache_dir, SavedSketches};
pub use watch::WatcherChoice;
