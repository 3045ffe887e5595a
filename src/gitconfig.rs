//! A small reader of git's config files, for the two settings ignore rules
//! depend on: `core.excludesFile` (the global excludes file) and
//! `core.ignoreCase` (match ignore rules without regard to case).
//!
//! **Which files**, in git's order (a later definition wins): the system file
//! (`$GIT_CONFIG_SYSTEM`, else `/etc/gitconfig`; neither when
//! `GIT_CONFIG_NOSYSTEM` is true), the global files (`$GIT_CONFIG_GLOBAL`
//! alone when set, else `$XDG_CONFIG_HOME/git/config`, or
//! `~/.config/git/config` when `XDG_CONFIG_HOME` is unset or empty, then
//! `~/.gitconfig`), then the repository's own `config` in its common dir
//! (read by the caller, see `gitignore`). Without a `core.excludesFile`, the
//! excludes file is `$XDG_CONFIG_HOME/git/ignore` (or `~/.config/git/ignore`).
//! A value `~` or starting with `~/` is expanded with `$HOME`; a relative
//! path is left relative (the caller resolves it against the repository's
//! top folder, where git runs). An empty value means no excludes file.
//!
//! **Syntax** (as git's `config.c` parses it): an optional UTF-8 BOM;
//! sections `[name]`, `[name "subsection"]` and the old `[name.subsection]`,
//! section and key names case-insensitive; only `[core]` itself counts
//! (`[core "x"]` holds other keys); `key = value` or a bare `key` (true);
//! values with leading and trailing blanks dropped, double quotes, the
//! escapes `\"`, `\\`, `\n`, `\t`, `\b`, and a trailing `\` joining the next
//! line; `#` and `;` start a comment outside quotes; a section header may be
//! followed by a key on the same line. Booleans as git reads them: `true`,
//! `yes`, `on`, `false`, `no`, `off`, the empty string, or an integer
//! (optionally with a `k`, `m` or `g` suffix), any case.
//!
//! **Not read**: `include.path` and `includeIf` (a setting made only in an
//! included file is not seen), `config.worktree` (`extensions.worktreeConfig`),
//! the command line's `-c` (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`),
//! `GIT_DIR`/`GIT_COMMON_DIR`, `~user/` and `%(prefix)/` paths (such a value
//! names no file here), and an install-specific system file other than
//! `/etc/gitconfig`. Where git would refuse to run (a syntax error, a bad
//! boolean, `excludesFile` without a value), the reading stops at that line
//! (a syntax error) or the bad definition is passed over; nothing fails.
//!
//! Files are read only when they are regular files (after following
//! symlinks, as git does) of at most `MAX_CONFIG_BYTES`, without blocking on
//! a FIFO; a missing or unreadable file counts as empty, as in git.

use crate::dir::read_file_following;
use crate::path_bytes::path_from_bytes;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Config files larger than this are not read (git has no limit; real ones
/// are a few KiB).
pub const MAX_CONFIG_BYTES: u64 = 10 << 20;

/// The settings of `[core]` that ignore rules use, as a sequence of config
/// files leaves them (unset when no file defines them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Core {
    /// `core.excludesFile`, as written (before `~` expansion).
    pub excludes_file: Option<Vec<u8>>,
    pub ignore_case: Option<bool>,
}

impl Core {
    /// Applies the definitions of one config file's text over these.
    pub fn read_over(&mut self, text: &[u8]) {
        for (key, value) in core_entries(text) {
            match (key.as_str(), value) {
                ("excludesfile", Some(value)) => self.excludes_file = Some(value),
                ("ignorecase", value) => {
                    if let Some(yes) = parse_bool(value.as_deref()) {
                        self.ignore_case = Some(yes);
                    }
                }
                _ => {}
            }
        }
    }

    /// These settings with `over`'s definitions taking their place.
    fn then(&self, over: &Core) -> Core {
        Core {
            excludes_file: over.excludes_file.clone().or_else(|| self.excludes_file.clone()),
            ignore_case: over.ignore_case.or(self.ignore_case),
        }
    }
}

/// The process environment git looks at to find its files.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub config_global: Option<OsString>,
    pub config_system: Option<OsString>,
    pub no_system: bool,
}

impl Env {
    /// This process's environment.
    pub fn from_process() -> Env {
        let var = |name: &str| std::env::var_os(name);
        let home = var("HOME").filter(|h| !h.is_empty());
        #[cfg(windows)]
        let home = home.or_else(|| var("USERPROFILE").filter(|h| !h.is_empty()));
        Env {
            home: home.map(PathBuf::from),
            xdg_config_home: var("XDG_CONFIG_HOME").filter(|x| !x.is_empty()).map(PathBuf::from),
            config_global: var("GIT_CONFIG_GLOBAL"),
            config_system: var("GIT_CONFIG_SYSTEM"),
            no_system: var("GIT_CONFIG_NOSYSTEM")
                .is_some_and(|v| parse_bool(Some(v.as_encoded_bytes())).unwrap_or(true)),
        }
    }

    /// `$XDG_CONFIG_HOME/git/<name>`, or `~/.config/git/<name>`.
    fn xdg_git(&self, name: &str) -> Option<PathBuf> {
        match (&self.xdg_config_home, &self.home) {
            (Some(xdg), _) => Some(xdg.join("git").join(name)),
            (None, Some(home)) => Some(home.join(".config/git").join(name)),
            (None, None) => None,
        }
    }

    /// The system and global config files, in the order git reads them.
    pub fn config_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        if !self.no_system {
            files.push(self.config_system.as_ref().map_or_else(|| PathBuf::from("/etc/gitconfig"), PathBuf::from));
        }
        match &self.config_global {
            Some(global) => files.push(PathBuf::from(global)),
            None => {
                files.extend(self.xdg_git("config"));
                files.extend(self.home.as_ref().map(|home| home.join(".gitconfig")));
            }
        }
        files
    }
}

/// The user's settings (system and global config files), and what is needed
/// to finish them for one repository.
#[derive(Debug, Clone, Default)]
pub struct User {
    core: Core,
    home: Option<PathBuf>,
    /// The excludes file when no config names one.
    default_excludes: Option<PathBuf>,
}

/// The settings in force in one repository.
#[derive(Debug, Clone, PartialEq)]
pub struct Repository {
    /// Absolute, or relative to the repository's top folder.
    pub excludes_file: Option<PathBuf>,
    pub ignore_case: bool,
}

impl User {
    /// Reads the system and global config files `env` names.
    pub fn load(env: &Env) -> User {
        let mut core = Core::default();
        for file in env.config_files() {
            if let Some(text) = read_file_following(&file, MAX_CONFIG_BYTES) {
                core.read_over(&text);
            }
        }
        User { core, home: env.home.clone(), default_excludes: env.xdg_git("ignore") }
    }

    /// No user settings at all (no global excludes file either).
    pub fn none() -> User {
        User::default()
    }

    /// The settings of a repository whose own `config` holds `repo_config`.
    pub fn for_repository(&self, repo_config: Option<&[u8]>) -> Repository {
        let mut own = Core::default();
        if let Some(text) = repo_config {
            own.read_over(text);
        }
        let core = self.core.then(&own);
        let excludes_file = match &core.excludes_file {
            Some(value) => expand_path(value, self.home.as_deref()),
            None => self.default_excludes.clone(),
        };
        Repository { excludes_file, ignore_case: core.ignore_case.unwrap_or(false) }
    }
}

/// A path value as git's `git_config_pathname` reads it: `~` and `~/...`
/// from `home`; `None` for an empty value or one this reader cannot expand.
pub fn expand_path(value: &[u8], home: Option<&Path>) -> Option<PathBuf> {
    if value.is_empty() {
        return None;
    }
    if value == b"~" {
        return home.map(Path::to_path_buf);
    }
    if let Some(rest) = value.strip_prefix(b"~/") {
        let rest = &rest[rest.iter().take_while(|&&b| b == b'/').count()..];
        let rest = if rest.is_empty() { PathBuf::new() } else { path_from_bytes(rest)? };
        return home.map(|home| home.join(rest));
    }
    if value.starts_with(b"~") || value.starts_with(b"%(") {
        return None;
    }
    path_from_bytes(value)
}

/// A boolean as git reads one; `None` (no `=`) is true, `None` back for a
/// value git would refuse.
pub fn parse_bool(value: Option<&[u8]>) -> Option<bool> {
    let Some(value) = value else { return Some(true) };
    let text = std::str::from_utf8(value).ok()?.to_ascii_lowercase();
    match text.as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" | "" => Some(false),
        _ => {
            let digits = text.strip_suffix(['k', 'm', 'g']).unwrap_or(&text);
            let n: i64 = digits.parse().ok()?;
            Some(n != 0)
        }
    }
}

/// The definitions in `[core]` sections of a config file's text, in order:
/// the key in lower case and its value (`None` for a key without `=`). A
/// syntax error ends the list there.
pub fn core_entries(text: &[u8]) -> Vec<(String, Option<Vec<u8>>)> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut source = ConfigText { text, at: 0, eof: false };
    let mut entries = Vec::new();
    let mut in_core = false;
    let mut comment = false;
    loop {
        let c = source.next();
        if c == b'\n' {
            if source.eof {
                return entries;
            }
            comment = false;
            continue;
        }
        if comment || is_space(c) {
            continue;
        }
        match c {
            b'#' | b';' => comment = true,
            b'[' => match source.section() {
                Some(name) => in_core = name == b"core",
                None => return entries,
            },
            c if c.is_ascii_alphabetic() => match source.entry(c) {
                Some((key, value)) if in_core => entries.push((key, value)),
                Some(_) => {}
                None => return entries,
            },
            _ => return entries,
        }
    }
}

/// git's `isspace`.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// A config file's text read as git's `get_next_char` does: `\r\n` is one
/// `\n`, and the end reads as `\n` with `eof` set.
struct ConfigText<'a> {
    text: &'a [u8],
    at: usize,
    eof: bool,
}

impl ConfigText<'_> {
    fn next(&mut self) -> u8 {
        let Some(&c) = self.text.get(self.at) else {
            self.eof = true;
            return b'\n';
        };
        self.at += 1;
        if c == b'\r' && self.text.get(self.at) == Some(&b'\n') {
            self.at += 1;
            return b'\n';
        }
        c
    }

    /// A section header after its `[`: the name in lower case, with
    /// `.subsection` for the other forms; `None` for a syntax error.
    fn section(&mut self) -> Option<Vec<u8>> {
        let mut name = Vec::new();
        loop {
            let c = self.next();
            if self.eof {
                return None;
            }
            if c == b']' {
                return (!name.is_empty()).then_some(name);
            }
            if is_space(c) {
                return self.subsection(name, c);
            }
            if !is_key_char(c) && c != b'.' {
                return None;
            }
            name.push(c.to_ascii_lowercase());
        }
    }

    /// `[name "subsection"]`, after the blank following the name.
    fn subsection(&mut self, mut name: Vec<u8>, mut c: u8) -> Option<Vec<u8>> {
        while is_space(c) {
            if c == b'\n' {
                return None;
            }
            c = self.next();
        }
        if c != b'"' || name.is_empty() {
            return None;
        }
        name.push(b'.');
        loop {
            let mut c = self.next();
            if c == b'\n' {
                return None;
            }
            if c == b'"' {
                break;
            }
            if c == b'\\' {
                c = self.next();
                if c == b'\n' {
                    return None;
                }
            }
            name.push(c);
        }
        (self.next() == b']').then_some(name)
    }

    /// A definition starting with `first`: the key in lower case and the
    /// value; `None` for a syntax error.
    fn entry(&mut self, first: u8) -> Option<(String, Option<Vec<u8>>)> {
        let mut key = String::from(char::from(first.to_ascii_lowercase()));
        let mut c;
        loop {
            c = self.next();
            if self.eof || !is_key_char(c) {
                break;
            }
            key.push(char::from(c.to_ascii_lowercase()));
        }
        while c == b' ' || c == b'\t' {
            c = self.next();
        }
        if c == b'\n' {
            return Some((key, None));
        }
        if c != b'=' {
            return None;
        }
        Some((key, Some(self.value()?)))
    }

    /// A value after its `=`, up to the end of its (last) line.
    fn value(&mut self) -> Option<Vec<u8>> {
        let mut value = Vec::new();
        let (mut quote, mut comment) = (false, false);
        // Where trailing blanks outside quotes began (0: none pending).
        let mut trim = 0;
        loop {
            let c = self.next();
            if c == b'\n' {
                if quote {
                    return None;
                }
                if trim > 0 {
                    value.truncate(trim);
                }
                return Some(value);
            }
            if comment {
                continue;
            }
            if is_space(c) && !quote {
                if trim == 0 {
                    trim = value.len();
                }
                if !value.is_empty() {
                    value.push(c);
                }
                continue;
            }
            if !quote && (c == b';' || c == b'#') {
                comment = true;
                continue;
            }
            trim = 0;
            match c {
                b'\\' => {
                    let escaped = match self.next() {
                        b'\n' => continue,
                        b't' => b'\t',
                        b'b' => 0x08,
                        b'n' => b'\n',
                        c @ (b'\\' | b'"') => c,
                        _ => return None,
                    };
                    value.push(escaped);
                }
                b'"' => quote = !quote,
                c => value.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(text: &str) -> Vec<(String, Option<String>)> {
        core_entries(text.as_bytes()).into_iter().map(|(k, v)| (k, v.map(|v| String::from_utf8(v).unwrap()))).collect()
    }

    fn pair(k: &str, v: Option<&str>) -> (String, Option<String>) {
        (k.to_string(), v.map(str::to_string))
    }

    #[test]
    fn sections_keys_and_comments() {
        let text = "# top\n[user]\n\tname = x\n[Core]\n\tIgnoreCase = true ; why\n\texcludesFile=~/x # note\n\
                    [core \"sub\"]\n\tignorecase = false\n[core.sub]\n\tignorecase = false\n[CORE]\n\tbare\n";
        assert_eq!(
            entries(text),
            [pair("ignorecase", Some("true")), pair("excludesfile", Some("~/x")), pair("bare", None)]
        );
        // A key on the header's line, a BOM, CRLF line ends.
        assert_eq!(entries("\u{feff}[core] ignoreCase = yes\r\n"), [pair("ignorecase", Some("yes"))]);
        // A key at the very end without a newline.
        assert_eq!(entries("[core]\nignorecase"), [pair("ignorecase", None)]);
        // Keys outside any section or in other sections are not core's.
        assert_eq!(entries("[alias]\n  st = status\n"), []);
    }

    #[test]
    fn values_quotes_escapes_and_continuations() {
        let e = |v: &str| entries(&format!("[core]\nexcludesfile = {v}\n"))[0].1.clone().unwrap();
        assert_eq!(e("  a b  "), "a b");
        assert_eq!(e("\"  a b  \""), "  a b  ");
        assert_eq!(e("a\\\"b\\\\c\\td\\ne"), "a\"b\\c\td\ne");
        assert_eq!(e("\"x # y ; z\" # comment"), "x # y ; z");
        assert_eq!(e("one \\\n two"), "one  two");
        assert_eq!(e("a\"b c\"d"), "ab cd");
        assert_eq!(e(""), "");
    }

    #[test]
    fn a_syntax_error_ends_the_reading() {
        // An unknown escape, an unterminated quote, a bad header, a key with junk after it.
        for bad in ["x = a\\qb", "x = \"open", "[core", "x ! y", "[co re]", "[core \"a\" ]"] {
            let text = format!("[core]\nignorecase = true\n{bad}\nexcludesfile = after\n");
            assert_eq!(entries(&text), [pair("ignorecase", Some("true"))], "{bad}");
        }
        assert_eq!(entries("[]\n[core]\nignorecase\n"), []);
    }

    #[test]
    fn booleans_as_git_reads_them() {
        for (text, want) in [
            (Some("true"), Some(true)),
            (Some("YES"), Some(true)),
            (Some("on"), Some(true)),
            (Some("1"), Some(true)),
            (Some("-2"), Some(true)),
            (Some("1k"), Some(true)),
            (None, Some(true)),
            (Some("False"), Some(false)),
            (Some("no"), Some(false)),
            (Some("off"), Some(false)),
            (Some("0"), Some(false)),
            (Some(""), Some(false)),
            (Some("maybe"), None),
        ] {
            assert_eq!(parse_bool(text.map(str::as_bytes)), want, "{text:?}");
        }
    }

    #[test]
    fn the_last_definition_wins_and_paths_expand() {
        let mut core = Core::default();
        core.read_over(b"[core]\nignorecase = true\nexcludesfile = ~/a\n");
        core.read_over(b"[core]\nignorecase = maybe\nexcludesfile\n[core]\nignorecase = false\n");
        assert_eq!(core, Core { excludes_file: Some(b"~/a".to_vec()), ignore_case: Some(false) });
        let home = Path::new("/home/u");
        assert_eq!(expand_path(b"~/a/b", Some(home)), Some(PathBuf::from("/home/u/a/b")));
        assert_eq!(expand_path(b"~", Some(home)), Some(PathBuf::from("/home/u")));
        assert_eq!(expand_path(b"~/a", None), None);
        assert_eq!(expand_path(b"~bob/a", Some(home)), None);
        assert_eq!(expand_path(b"", Some(home)), None);
        assert_eq!(expand_path(b"rel/x", Some(home)), Some(PathBuf::from("rel/x")));
        assert_eq!(expand_path(b"/abs", Some(home)), Some(PathBuf::from("/abs")));
    }

    #[test]
    fn files_are_found_where_git_looks() {
        let env = Env { home: Some("/h".into()), ..Env::default() };
        assert_eq!(
            env.config_files(),
            [PathBuf::from("/etc/gitconfig"), "/h/.config/git/config".into(), "/h/.gitconfig".into()]
        );
        let env = Env { xdg_config_home: Some("/x".into()), no_system: true, ..env };
        assert_eq!(env.config_files(), [PathBuf::from("/x/git/config"), "/h/.gitconfig".into()]);
        assert_eq!(env.xdg_git("ignore"), Some(PathBuf::from("/x/git/ignore")));
        let env = Env { config_global: Some("/g".into()), config_system: Some("/s".into()), no_system: false, ..env };
        assert_eq!(env.config_files(), [PathBuf::from("/s"), "/g".into()]);
        assert_eq!(Env::default().config_files(), [PathBuf::from("/etc/gitconfig")]);
    }

    #[test]
    fn a_repository_finishes_the_user_settings() {
        let user = User {
            core: Core { excludes_file: None, ignore_case: Some(true) },
            home: Some("/h".into()),
            default_excludes: Some("/h/.config/git/ignore".into()),
        };
        let plain = user.for_repository(None);
        assert_eq!(plain, Repository { excludes_file: Some("/h/.config/git/ignore".into()), ignore_case: true });
        let own = user.for_repository(Some(b"[core]\n\tignorecase = false\n\texcludesfile = ~/mine\n"));
        assert_eq!(own, Repository { excludes_file: Some("/h/mine".into()), ignore_case: false });
        let off = user.for_repository(Some(b"[core]\nexcludesfile =\n"));
        assert_eq!(off.excludes_file, None, "an empty value means no file");
        assert_eq!(User::none().for_repository(None), Repository { excludes_file: None, ignore_case: false });
    }
}
