//! The failures a search can end in: one `ErrorCode` per row of the error
//! table in docs/API.md, each carried with a message written for the reader (often a model)
//! that says what was wrong and what to do.

use std::fmt;

/// The `code` a `FindFilesError` carries in JavaScript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidArgument,
    InvalidPattern,
    NotFound,
    NotADir,
    PermissionDenied,
    ApprovalRequired,
    OutsideRoot,
    Aborted,
    FsError,
    /// Git scoping asked for in a folder that is in no git work tree.
    NotARepository,
    /// A live index of a folder holding more than it may (`maxEntries`).
    TooLarge,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid-argument",
            ErrorCode::InvalidPattern => "invalid-pattern",
            ErrorCode::NotFound => "not-found",
            ErrorCode::NotADir => "not-a-dir",
            ErrorCode::PermissionDenied => "permission-denied",
            ErrorCode::ApprovalRequired => "approval-required",
            ErrorCode::OutsideRoot => "outside-root",
            ErrorCode::Aborted => "aborted",
            ErrorCode::FsError => "fs-error",
            ErrorCode::NotARepository => "not-a-repository",
            ErrorCode::TooLarge => "too-large",
        }
    }
}

/// A failed search: the code the caller branches on and the message it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindError {
    pub code: ErrorCode,
    pub message: String,
}

impl FindError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        FindError { code, message: message.into() }
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }

    pub fn invalid_pattern(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidPattern, message)
    }

    pub fn aborted() -> Self {
        Self::new(ErrorCode::Aborted, "the search was aborted before it finished")
    }

    pub fn timed_out(ms: u64) -> Self {
        Self::new(
            ErrorCode::Aborted,
            format!("the search was aborted: it did not finish within timeoutMs ({ms} ms); narrow `path` or raise `timeoutMs`"),
        )
    }
}

impl fmt::Display for FindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FindError {}

pub type Result<T, E = FindError> = std::result::Result<T, E>;

/// `text` cut to about `max` bytes (on a character boundary) for quoting in a
/// message: a model reads these, and inputs can be megabytes long.
pub fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}… ({} bytes in all)", &text[..end], text.len()))
}

/// What to do about an I/O error, to follow its text in a message: for
/// running out of file descriptors (`EMFILE`, `ENFILE`), how to get them
/// back; nothing for the others.
pub fn io_advice(e: &std::io::Error) -> &'static str {
    const EMFILE: i32 = 24;
    const ENFILE: i32 = 23;
    match e.raw_os_error() {
        Some(EMFILE) => "; the process is out of file descriptors: run fewer searches at once, close files, or raise the limit (`ulimit -n`), then retry",
        Some(ENFILE) => "; the system is out of file descriptors: retry when fewer files are open",
        _ => "",
    }
}

/// A regex error's text for a message. The `regex` crate quotes the whole
/// pattern (with a caret line under it), so past `max` bytes only its closing
/// `error: ...` line is kept.
pub fn regex_error(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    match text.lines().rev().find_map(|line| line.strip_prefix("error:")) {
        Some(what) => std::borrow::Cow::Owned(format!(
            "regex parse error (the pattern is too long to quote): {}",
            clip(what.trim(), max)
        )),
        None => clip(text, max),
    }
}
