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
/// Bytes counted as one token for `maxTokens` (a common estimate for English
/// and code with the tokenizers models use; documented with the option).
pub const BYTES_PER_TOKEN: usize = 4;
/// The smallest `maxTokens`: `MIN_MAX_BYTES` worth.
pub const MIN_MAX_TOKENS: usize = MIN_MAX_BYTES / BYTES_PER_TOKEN;

/// The bytes of model text `maxTokens` allows, for both calls: `find` cuts
/// its list to them (`page`), `searchFiles` spreads its lines within them
/// (`search::budget`).
pub fn token_bytes(max_tokens: usize) -> usize {
    max_tokens.saturating_mul(BYTES_PER_TOKEN)
}
/// How many of the most crowded folders `omitted` names.
pub const OMITTED_DIRS: usize = 5;

/// `searchFiles`' `maxResults` when none is given.
pub const DEFAULT_MAX_RESULTS: usize = 50;
/// `maxResults` above this is clamped.
pub const MAX_RESULTS: usize = 500;
/// The most lines of context (`before`, `after`, `context`) shown on each
/// side of a matching line; more is lowered to it. Twenty lines either side
/// is most of a function, and keeps 500 matches' context under ~20k lines.
pub const MAX_CONTEXT_LINES: usize = 20;
/// A matching line longer than this (in characters) is shown in the model
/// text as a window of about this many characters around its match; lines
/// longer than this many bytes carry the match's `column` for it.
pub const MODEL_LINE_CHARS: usize = 200;
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

/// A multiline content search reads each file whole (as rg -U does): files
/// larger than this are passed over in that mode (per walker thread).
pub const MAX_MULTILINE_FILE_BYTES: usize = 32 << 20;
/// The most lines of one multiline match shown (each cut as a line is).
pub const MAX_MATCH_LINES: usize = 20;
/// The most patterns a content search takes (`patterns`).
pub const MAX_SEARCH_PATTERNS: usize = 1000;

/// The longest pattern (glob or regex) accepted.
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;
/// The largest ignore file read: git skips pattern files larger than this
/// (dir.c, `PATTERN_MAX_FILE_SIZE`).
pub const MAX_IGNORE_FILE_BYTES: u64 = 100 << 20;

/// How deep a walk through a host's storage goes before it stops with
/// `fs-error`: a storage gives no folder identity to find a cycle by (a
/// reader whose listing follows `loop -> .` lists folders without end), so
/// depth is what bounds it.
pub const MAX_STORAGE_DEPTH: usize = 1_000;

/// How many entries a walk through a host's storage lists before it stops
/// with `fs-error`, for a cycle that branches (each level doubling).
pub const MAX_STORAGE_ENTRIES: usize = 10_000_000;

// Compiling a pattern is bounded by size, so that no call spends seconds
// compiling (off the event loop, but holding a thread): measured on 2 busy
// cores, a 16 KiB glob took at most ~0.2 s, and each `exclude` glob at least
// ~0.6 ms however short.

/// The most `exclude` globs one call takes.
pub const MAX_EXCLUDE_GLOBS: usize = 1000;
/// The most bytes the `exclude` globs of one call hold in all.
pub const MAX_EXCLUDE_BYTES: usize = 64 * 1024;
/// The most a content search's regex may compile to (the `regex` crate's
/// own default; ripgrep's, 100 MiB, took seconds to reach for a 17-byte
/// pattern such as `\w{1000}{1000}`).
pub const MAX_CONTENT_REGEX_BYTES: usize = 10 << 20;

/// The most bytes a live index's content layer keeps (the sketches of its
/// files' contents, see `content_sketch`): about 0.5-1 byte per distinct
/// trigram of a file, 330-380 bytes a file measured on real JavaScript
/// (37 MB for 100k files), so room for about 700k. Past it, files without a
/// sketch are read by every content search, as without the layer.
pub const INDEX_SKETCH_BYTES: usize = 256 << 20;
/// The most bytes of file contents a live index keeps in memory by default
/// (`openIndex`'s `contentCacheBytes`): enough for the searched text of most
/// repositories (dependency and build folders are not searched unless
/// asked), and a small share of a machine that runs an agent.
pub const DEFAULT_INDEX_CONTENT_CACHE_BYTES: usize = 256 << 20;

/// The most entries a live index holds unless `maxEntries` says otherwise:
/// about 250 bytes each in memory (tree, names, metadata, watches), so
/// about 500 MB at most, far more than any repository holds and far less
/// than a home folder or a whole disk.
pub const DEFAULT_INDEX_MAX_ENTRIES: u64 = 2_000_000;
/// Bytes an index's tree takes per entry beyond its name, as measured
/// (`stats().bytesPerEntry`, about 216 on real JavaScript, names included):
/// what its build's memory estimate counts.
pub const INDEX_BYTES_PER_ENTRY: u64 = 200;

/// The longest a live index's first build waits, in all, for the calls
/// that run meanwhile (see `calls_in_flight`): past it, it shares the cores
/// with them, so a call that never ends cannot keep an index from opening.
pub const INDEX_BUILD_STEP_ASIDE_MS: u64 = 10_000;
