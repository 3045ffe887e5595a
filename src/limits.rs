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
/// How far a content search's line buffer may grow (per walker thread); a
/// file with a longer line is searched in pieces (see `search::content`).
pub const MAX_LINE_BUFFER_BYTES: usize = 4 << 20;
/// The pieces an over-long line is searched in.
pub const LINE_PIECE_BYTES: usize = 256 << 10;
/// What each piece repeats of the one before: a match up to this long is
/// found across a cut.
pub const PIECE_OVERLAP_BYTES: usize = 4 << 10;

/// The longest pattern (glob or regex) accepted.
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;
/// The largest ignore file read: git skips pattern files larger than this
/// (dir.c, `PATTERN_MAX_FILE_SIZE`).
pub const MAX_IGNORE_FILE_BYTES: u64 = 100 << 20;
