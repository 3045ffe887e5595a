//! The forms a Windows path's text can take, and which of them a call
//! refuses: those that name something other than their text seems to (a
//! trailing dot or space Windows drops, a name that is a device, a
//! drive-relative path that depends on a per-process current folder) or a
//! place no folder walk can be confined to (an alternate data stream, the
//! device namespace, `.` and `..` that verbatim paths do not fold).
//!
//! Pure text logic, compiled everywhere: `sandbox::check_path_text` asks it
//! about every path a call takes (`cwd`, `path`, `roots`, `explain`'s path)
//! on Windows only, and Linux unit tests drive it with Windows-form inputs.
//! Which folder an accepted form leads to (junctions, symlinks, 8.3 short
//! names, case) is the OS's answer, read from the folder opened (its real
//! path), never from the text; see docs/RELIABILITY.md.

/// What a Windows path's text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `C:\dir\file` or `C:/dir/file`.
    Drive,
    /// `\\server\share\dir`.
    Unc,
    /// `\\?\C:\dir` (no folding of `.` and `..`, no `/`, long paths).
    Verbatim,
    /// `\\?\UNC\server\share\dir`.
    VerbatimUnc,
    /// `\\.\` and `\??\`: the device namespace.
    Device,
    /// `C:dir`: relative to drive C's current folder in this process.
    DriveRelative,
    /// `\dir`: relative to the current drive.
    RootRelative,
    /// `dir\file`: relative to the current folder.
    Relative,
}

/// The form of `text`.
pub fn form(text: &str) -> Form {
    let b = text.as_bytes();
    let sep = |c: u8| c == b'\\' || c == b'/';
    let drive_at = |i: usize| b.len() > i + 1 && b[i].is_ascii_alphabetic() && b[i + 1] == b':';
    if b.len() >= 4 && sep(b[0]) && sep(b[1]) && (b[2] == b'?' || b[2] == b'.') && sep(b[3]) {
        if b[2] == b'.' {
            return Form::Device;
        }
        let rest = &text[4..];
        return match rest.get(..4) {
            Some(unc) if unc.eq_ignore_ascii_case("UNC\\") => Form::VerbatimUnc,
            _ if drive_at(4) => Form::Verbatim,
            _ => Form::Device,
        };
    }
    if text.starts_with("\\??\\") {
        return Form::Device;
    }
    if b.len() >= 2 && sep(b[0]) && sep(b[1]) {
        return Form::Unc;
    }
    if drive_at(0) {
        return match b.get(2) {
            Some(&c) if sep(c) => Form::Drive,
            _ => Form::DriveRelative,
        };
    }
    if b.first().is_some_and(|&c| sep(c)) {
        return Form::RootRelative;
    }
    Form::Relative
}

/// Names Windows reserves for devices, in any folder, with any extension.
const RESERVED: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9", "LPT1", "LPT2",
    "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9", "CONIN$", "CONOUT$",
];

/// Why a call refuses the Windows path `text`, said for a model (what it
/// would name, and what to pass instead); `None` when it is taken.
pub fn refused(text: &str) -> Option<String> {
    let form = form(text);
    match form {
        Form::Device => return Some("is a device path (`\\\\.\\` or `\\\\?\\` not followed by a drive or UNC): pass a folder's path such as `C:\\work\\project`".into()),
        Form::DriveRelative => return Some("is relative to a drive's current folder (`C:dir`), which differs from process to process: pass the full path (`C:\\dir`)".into()),
        Form::RootRelative => return Some("has no drive (`\\dir` is on whichever drive is current): pass the full path (`C:\\dir`)".into()),
        _ => {}
    }
    // The part after the prefix: its components, split as this form splits them.
    let (body, seps): (&str, &[char]) = match form {
        Form::Verbatim => (&text[6..], &['\\']),
        Form::VerbatimUnc => (&text[8..], &['\\']),
        Form::Unc => (&text[2..], &['\\', '/']),
        Form::Drive => (&text[2..], &['\\', '/']),
        _ => (text, &['\\', '/']),
    };
    for part in body.split(seps).filter(|p| !p.is_empty()) {
        let verbatim = matches!(form, Form::Verbatim | Form::VerbatimUnc);
        if verbatim && (part == "." || part == "..") {
            return Some(format!("holds `{part}` in a verbatim path (`\\\\?\\`), where Windows does not fold it: pass the path without `\\\\?\\`, or without `{part}`"));
        }
        if part == "." || part == ".." {
            continue;
        }
        if part.contains(':') {
            return Some(format!(
                "names an alternate data stream (`{part}`), not a file or folder: pass the path without `:`"
            ));
        }
        if part.ends_with('.') || part.ends_with(' ') {
            return Some(format!("has a name ending in a dot or a space (`{part}`), which Windows drops, so it names another entry: pass the name without it"));
        }
        let stem = part.split('.').next().unwrap_or(part).trim_end();
        if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(stem)) {
            return Some(format!(
                "has a name Windows reserves for a device (`{part}`): it names the device, not a file"
            ));
        }
        if part.chars().any(|c| matches!(c, '<' | '>' | '"' | '|' | '?' | '*') || (c as u32) < 32) {
            return Some(format!("has a character no Windows name can hold (`{part}`)"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_is_told_apart() {
        for (text, want) in [
            (r"C:\work\project", Form::Drive),
            ("C:/work/project", Form::Drive),
            (r"\\server\share\dir", Form::Unc),
            ("//server/share", Form::Unc),
            (r"\\?\C:\work", Form::Verbatim),
            (r"\\?\UNC\server\share", Form::VerbatimUnc),
            (r"\\.\PhysicalDrive0", Form::Device),
            (r"\\?\GLOBALROOT\Device", Form::Device),
            (r"\??\C:\work", Form::Device),
            ("C:work", Form::DriveRelative),
            ("C:", Form::DriveRelative),
            (r"\work", Form::RootRelative),
            (r"work\src", Form::Relative),
        ] {
            assert_eq!(form(text), want, "{text}");
        }
    }

    #[test]
    fn the_forms_that_name_something_else_are_refused_and_the_rest_taken() {
        for taken in [
            r"C:\work\project",
            "C:/work/project/src",
            r"\\server\share\project",
            r"\\?\C:\a very\long\path",
            r"\\?\UNC\server\share\dir",
            r"C:\PROGRA~1\app",
            r"C:\work\..\other",
            r"src\lib",
            "console.log.d",
            r"C:\work\CONFIG",
        ] {
            assert_eq!(refused(taken), None, "{taken}");
        }
        for (text, says) in [
            (r"\\.\PhysicalDrive0", "device path"),
            ("C:work", "drive's current folder"),
            (r"\work", "no drive"),
            (r"C:\work\file.txt:secret", "alternate data stream"),
            (r"C:\work\file.txt::$DATA", "alternate data stream"),
            (r"C:\work\folder.", "ending in a dot or a space"),
            (r"C:\work\folder \x", "ending in a dot or a space"),
            (r"C:\work\NUL", "reserves for a device"),
            (r"C:\work\com1.txt", "reserves for a device"),
            (r"C:\work\a|b", "no Windows name can hold"),
            (r"\\?\C:\work\..\other", "verbatim"),
        ] {
            let why = refused(text).unwrap_or_else(|| panic!("{text} was taken"));
            assert!(why.contains(says), "{text}: {why}");
        }
    }
}
