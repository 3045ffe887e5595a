//! Every default and cap of a call in one place: what `find` and
//! `searchFiles` return by default, the most they return, and the bounds on
//! what a caller may pass. Options, rendering, the tool schemas' texts and
//! the tests read them from here.

/// `find`'s `limit` when none is given.
pub const DEFAULT_LIMIT: usize = 1000;
/// `find`'s `maxLimit` when none is given: `limit` above it is clamped.
pub const DEFAULT_MAX_LIMIT: usize = 1000;
/// The byte cap on the model text when `maxBytes` is not given.
pub const DEFAULT_MAX_BYTES: usize = 51200;
/// Below this, the header and the truncation notice alone may not fit.
pub const MIN_MAX_BYTES: usize = 256;
/// How many of the most crowded folders `omitted` names.
pub const OMITTED_DIRS: usize = 5;

/// `searchFiles`' `maxResults` when none is given.
pub const DEFAULT_MAX_RESULTS: usize = 50;
/// `maxResults` above this is clamped.
pub const MAX_RESULTS: usize = 500;
/// Longer matching lines are cut to this many characters and marked.
pub const MAX_LINE_CHARS: usize = 500;

/// The longest pattern (glob or regex) accepted.
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;
/// The largest ignore file read: git skips pattern files larger than this
/// (dir.c, `PATTERN_MAX_FILE_SIZE`).
pub const MAX_IGNORE_FILE_BYTES: u64 = 100 << 20;
