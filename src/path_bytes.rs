//! Paths as bytes and back, in one place: a name's bytes read from a file
//! (a `.git` file, a config value, a repository's index) or kept by the
//! index as a path again; a path as the `/`-separated text results show; the
//! bytes of a name that is not UTF-8, which results carry beside the lossy
//! text. On Unix a path is any bytes but NUL; elsewhere (Windows) names are
//! UTF-16 and the bytes seen here are UTF-8 (or the OS's own encoded bytes).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Bytes a path was taken apart into (whole names, or names joined by `/`)
/// as an `OsStr` again.
pub fn os_str(bytes: &[u8]) -> &OsStr {
    #[cfg(unix)]
    return std::os::unix::ffi::OsStrExt::from_bytes(bytes);
    // SAFETY: the bytes come from `as_encoded_bytes`, cut and joined at ASCII `/` only.
    #[cfg(not(unix))]
    return unsafe { OsStr::from_encoded_bytes_unchecked(bytes) };
}

/// Bytes read from a file as a path: `None` for an empty one, one holding
/// NUL (no such file can be opened), or, off Unix, one that is not UTF-8.
pub fn path_from_bytes(bytes: &[u8]) -> Option<PathBuf> {
    if bytes.is_empty() || bytes.contains(&0) {
        return None;
    }
    #[cfg(unix)]
    return Some(PathBuf::from(std::os::unix::ffi::OsStrExt::from_bytes(bytes) as &OsStr));
    #[cfg(not(unix))]
    return std::str::from_utf8(bytes).ok().map(PathBuf::from);
}

/// A `/`-separated path from a repository (git's own form) as a path on
/// this system.
#[cfg_attr(not(feature = "git"), allow(dead_code))]
pub fn repo_path(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    return PathBuf::from(os_str(bytes));
    #[cfg(not(unix))]
    return PathBuf::from(String::from_utf8_lossy(bytes).replace('/', "\\"));
}

/// A relative path as results show it: `/` separators, lossy UTF-8.
pub fn posix_string(relative: &Path) -> String {
    let text = relative.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// The bytes of `relative` when it is not valid UTF-8 (never on Windows,
/// where names are UTF-16 and come out lossless enough to reopen).
pub fn raw_bytes(relative: &Path) -> Option<&[u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        relative.to_str().is_none().then(|| relative.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        let _ = relative;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_paths_round_trip() {
        assert_eq!(path_from_bytes(b""), None);
        assert_eq!(path_from_bytes(b"a\0b"), None);
        assert_eq!(path_from_bytes(b"../x y"), Some(PathBuf::from("../x y")));
        assert_eq!(posix_string(&repo_path(b"src/a.rs")), "src/a.rs");
        assert_eq!(raw_bytes(Path::new("plain.txt")), None);
        #[cfg(unix)]
        {
            let odd = repo_path(b"caf\xe9.txt");
            assert_eq!(raw_bytes(&odd), Some(&b"caf\xe9.txt"[..]));
            assert_eq!(posix_string(&odd), "caf\u{fffd}.txt");
            assert_eq!(os_str(b"a/b"), OsStr::new("a/b"));
        }
    }
}
