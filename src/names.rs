//! How names are compared: the Unicode normal form a name is matched in,
//! and `NameRule`, how a volume tells two names apart.
//!
//! A name can be stored in NFD (macOS HFS+ stores every name so; a file
//! copied from there keeps it) while a model types NFC: the two look alike
//! and are different bytes. Every glob and every name it tests is matched
//! in NFC (`nfc`), on every platform, and shown as the OS lists it (a
//! JavaScript regex tests names as listed, as V8 would); unicode-
//! normalization does the normalizing.
//!
//! A volume may also fold case (NTFS, APFS and HFS+ by default) and, on
//! macOS, the normal form: a watcher there may name a file in another case
//! or form than its folder lists it, and the live index looks such a path
//! up by `NameRule::key`. `NameRule::of_volume` asks the OS; tests set a
//! rule to simulate a folding volume on Linux, whose file systems do not.

use std::borrow::Cow;
use std::path::Path;
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// `name` in NFC: itself when it is ASCII, not UTF-8, or already NFC.
pub fn nfc(name: &[u8]) -> Cow<'_, [u8]> {
    if name.is_ascii() {
        return Cow::Borrowed(name);
    }
    let Ok(text) = std::str::from_utf8(name) else { return Cow::Borrowed(name) };
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => Cow::Borrowed(name),
        _ => {
            let normal: String = text.nfc().collect();
            match normal.as_bytes() == name {
                true => Cow::Borrowed(name),
                false => Cow::Owned(normal.into_bytes()),
            }
        }
    }
}

/// `text` in NFC (see `nfc`).
pub fn nfc_text(text: &str) -> Cow<'_, str> {
    match nfc(text.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        // NFC of valid UTF-8 is valid UTF-8.
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())),
    }
}

/// How a volume tells two names apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NameRule {
    /// `Foo.ts` and `foo.ts` are one name.
    pub folds_case: bool,
    /// A name in NFD and the same in NFC are one name.
    pub folds_form: bool,
}

impl NameRule {
    /// Names are their bytes (Linux, and a case-sensitive APFS).
    pub const EXACT: NameRule = NameRule { folds_case: false, folds_form: false };

    /// Whether two names are the same name on this volume without being the same bytes is possible.
    pub fn folds(self) -> bool {
        self.folds_case || self.folds_form
    }

    /// What names `name` on this volume: two names with one key are one.
    pub fn key(self, name: &[u8]) -> Cow<'_, [u8]> {
        let name = if self.folds_form { nfc(name) } else { Cow::Borrowed(name) };
        if !self.folds_case {
            return name;
        }
        match std::str::from_utf8(&name) {
            Ok(text) if !text.is_ascii() => Cow::Owned(text.to_lowercase().into_bytes()),
            _ => Cow::Owned(name.to_ascii_lowercase()),
        }
    }

    /// Whether `a` and `b` name one entry on this volume.
    pub fn same(self, a: &[u8], b: &[u8]) -> bool {
        a == b || (self.folds() && self.key(a) == self.key(b))
    }

    /// The rule of the volume `folder` is on, as the OS says: macOS asks
    /// `pathconf(_PC_CASE_SENSITIVE)` and folds the form always (APFS is
    /// normalization-insensitive, HFS+ stores NFD); Windows folds case (a
    /// folder made case-sensitive with `fsutil` is taken as folding, which
    /// only costs a lookup); anything else is exact.
    pub fn of_volume(folder: &Path) -> NameRule {
        #[cfg(target_os = "macos")]
        {
            use std::os::unix::ffi::OsStrExt;
            let Ok(c_path) = std::ffi::CString::new(folder.as_os_str().as_bytes()) else {
                return NameRule { folds_case: true, folds_form: true };
            };
            // SAFETY: a NUL-terminated path; pathconf reads it only.
            let sensitive = unsafe { libc::pathconf(c_path.as_ptr(), libc::_PC_CASE_SENSITIVE) };
            NameRule { folds_case: sensitive != 1, folds_form: true }
        }
        #[cfg(windows)]
        {
            let _ = folder;
            NameRule { folds_case: true, folds_form: false }
        }
        #[cfg(not(any(target_os = "macos", windows)))]
        {
            let _ = folder;
            NameRule::EXACT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NFD: &str = "cafe\u{301}.txt";
    const NFC: &str = "caf\u{e9}.txt";

    #[test]
    fn names_are_matched_in_nfc() {
        assert_eq!(&*nfc(NFD.as_bytes()), NFC.as_bytes());
        assert!(matches!(nfc(NFC.as_bytes()), Cow::Borrowed(_)));
        assert!(matches!(nfc(b"plain.txt"), Cow::Borrowed(_)));
        // Not UTF-8: the bytes as they are.
        assert_eq!(&*nfc(b"caf\xe9.txt"), b"caf\xe9.txt");
        assert_eq!(nfc_text(NFD), NFC);
    }

    #[test]
    fn a_volume_rule_says_which_names_are_one() {
        let exact = NameRule::EXACT;
        assert!(!exact.same(b"Foo.ts", b"foo.ts") && !exact.same(NFD.as_bytes(), NFC.as_bytes()));
        let case = NameRule { folds_case: true, folds_form: false };
        assert!(case.same(b"Foo.ts", b"foo.ts") && case.same("\u{c9}T\u{c9}".as_bytes(), "\u{e9}t\u{e9}".as_bytes()));
        assert!(!case.same(NFD.as_bytes(), NFC.as_bytes()) && !case.same(b"foo.ts", b"foo.js"));
        let mac = NameRule { folds_case: true, folds_form: true };
        assert!(mac.same("CAFE\u{301}.TXT".as_bytes(), NFC.as_bytes()));
        assert!(!NameRule::of_volume(Path::new("/")).folds() || !cfg!(target_os = "linux"));
    }
}
