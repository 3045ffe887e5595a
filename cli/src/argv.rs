//! The command line read as Node's `util.parseArgs` reads it in
//! js/cli.js (`strict: true`, `allowPositionals: true`): the same
//! tokens (`--flag value`, `--flag=value`, `-f value`, `-fvalue`, groups of
//! short switches, `--` ending the flags), the same values (repeatable flags
//! as lists, the last of a repeated single flag wins) and the same error
//! messages, so that both CLIs print the same usage error. Arguments are
//! handled as JS strings (UTF-16 code units) because Node splits and quotes
//! them that way.

/// A flag the command takes.
#[derive(Debug, Clone)]
pub struct Spec {
    pub long: &'static str,
    pub short: Option<char>,
    /// Takes a value (`type: 'string'`); else a switch (`type: 'boolean'`).
    pub takes_value: bool,
    /// `multiple: true`.
    pub repeats: bool,
}

/// A JS string: UTF-16 code units.
pub type JsString = Vec<u16>;

/// What a flag was given.
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    Switch,
    Text(JsString),
    Texts(Vec<JsString>),
}

#[derive(Debug, Default)]
pub struct Parsed {
    /// By long name, in the order first given.
    pub values: Vec<(&'static str, Given)>,
    pub positionals: Vec<JsString>,
}

impl Parsed {
    pub fn get(&self, long: &str) -> Option<&Given> {
        self.values.iter().find(|(name, _)| *name == long).map(|(_, g)| g)
    }

    pub fn has(&self, long: &str) -> bool {
        self.get(long).is_some()
    }
}

struct Token {
    /// The long name, or the short letter (or code unit) when no flag has it.
    name: JsString,
    raw: JsString,
    value: Option<JsString>,
    inline: bool,
}

enum Item {
    Flag(Token),
    Positional(JsString),
}

pub fn js(text: &str) -> JsString {
    text.encode_utf16().collect()
}

const DASH: u16 = b'-' as u16;
const EQUALS: u16 = b'=' as u16;

fn find_spec<'a>(specs: &'a [Spec], name: &[u16]) -> Option<&'a Spec> {
    specs.iter().find(|s| js(s.long) == name)
}

/// The long name of the flag whose short letter is `unit`, else `unit` itself.
fn long_for_short(specs: &[Spec], unit: u16) -> JsString {
    specs
        .iter()
        .find(|s| s.short.is_some_and(|c| u32::from(c) == u32::from(unit)))
        .map_or_else(|| vec![unit], |s| js(s.long))
}

fn takes_value(specs: &[Spec], name: &[u16]) -> bool {
    find_spec(specs, name).is_some_and(|s| s.takes_value)
}

fn tokens(specs: &[Spec], args: Vec<JsString>) -> Vec<Item> {
    let mut remaining: std::collections::VecDeque<JsString> = args.into();
    let mut items = Vec::new();
    while let Some(arg) = remaining.pop_front() {
        if arg == js("--") {
            items.extend(remaining.drain(..).map(Item::Positional));
            break;
        }
        let short_like = arg.len() >= 2 && arg[0] == DASH && arg[1] != DASH;
        if short_like && arg.len() == 2 {
            // `-f`, its value the next argument when it takes one.
            let name = long_for_short(specs, arg[1]);
            let value = if takes_value(specs, &name) { remaining.pop_front() } else { None };
            items.push(Item::Flag(Token { name, raw: arg, value, inline: false }));
            continue;
        }
        if short_like {
            let first = long_for_short(specs, arg[1]);
            if !takes_value(specs, &first) {
                // A group `-abc` is `-a -b -c`; a flag taking a value inside it takes the rest.
                let mut expanded = Vec::new();
                for index in 1..arg.len() {
                    let name = long_for_short(specs, arg[index]);
                    if !takes_value(specs, &name) || index == arg.len() - 1 {
                        expanded.push(vec![DASH, arg[index]]);
                    } else {
                        let mut rest = vec![DASH];
                        rest.extend_from_slice(&arg[index..]);
                        expanded.push(rest);
                        break;
                    }
                }
                for a in expanded.into_iter().rev() {
                    remaining.push_front(a);
                }
            } else {
                // `-fVALUE`.
                items.push(Item::Flag(Token {
                    name: first,
                    raw: vec![DASH, arg[1]],
                    value: Some(arg[2..].to_vec()),
                    inline: true,
                }));
            }
            continue;
        }
        if arg.len() > 2 && arg[0] == DASH && arg[1] == DASH {
            match arg[3.min(arg.len())..].iter().position(|&u| u == EQUALS) {
                None => {
                    let name = arg[2..].to_vec();
                    let value = if takes_value(specs, &name) { remaining.pop_front() } else { None };
                    items.push(Item::Flag(Token { name, raw: arg, value, inline: false }));
                }
                Some(at) => {
                    let at = at + 3;
                    let name = arg[2..at].to_vec();
                    let mut raw = vec![DASH, DASH];
                    raw.extend_from_slice(&name);
                    items.push(Item::Flag(Token { name, raw, value: Some(arg[at + 1..].to_vec()), inline: true }));
                }
            }
            continue;
        }
        items.push(Item::Positional(arg));
    }
    items
}

/// Node's `JSON.stringify` of a string (its quoting in the unknown-flag message).
pub fn json_quote(text: &[u16]) -> JsString {
    let mut out = js("\"");
    for &u in text {
        match u {
            0x22 => out.extend(js("\\\"")),
            0x5c => out.extend(js("\\\\")),
            0x08 => out.extend(js("\\b")),
            0x0c => out.extend(js("\\f")),
            0x0a => out.extend(js("\\n")),
            0x0d => out.extend(js("\\r")),
            0x09 => out.extend(js("\\t")),
            u if u < 0x20 => out.extend(js(&format!("\\u{u:04x}"))),
            _ => out.push(u),
        }
    }
    // A lone surrogate is written as an escape too.
    let mut fixed = Vec::with_capacity(out.len());
    let mut i = 0;
    while i < out.len() {
        let u = out[i];
        if (0xd800..0xdc00).contains(&u) && out.get(i + 1).is_some_and(|n| (0xdc00..0xe000).contains(n)) {
            fixed.extend_from_slice(&out[i..i + 2]);
            i += 2;
            continue;
        }
        if (0xd800..0xe000).contains(&u) {
            fixed.extend(js(&format!("\\u{u:04x}")));
        } else {
            fixed.push(u);
        }
        i += 1;
    }
    fixed.push(0x22);
    fixed
}

fn concat(parts: &[&[u16]]) -> JsString {
    parts.concat()
}

/// Parses `args` against `specs`; the error is Node's message for the first bad token.
pub fn parse(specs: &[Spec], args: Vec<JsString>) -> Result<Parsed, JsString> {
    let mut parsed = Parsed::default();
    for item in tokens(specs, args) {
        let token = match item {
            Item::Positional(p) => {
                parsed.positionals.push(p);
                continue;
            }
            Item::Flag(token) => token,
        };
        let Some(spec) = find_spec(specs, &token.name) else {
            let raw = &token.raw;
            return Err(concat(&[
                &js("Unknown option '"),
                raw,
                &js("'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- "),
                &json_quote(raw),
            ]));
        };
        let short_and_long = format!("{}--{}", spec.short.map(|c| format!("-{c}, ")).unwrap_or_default(), spec.long);
        if spec.takes_value && token.value.is_none() {
            return Err(js(&format!("Option '{short_and_long} <value>' argument missing")));
        }
        if !spec.takes_value && token.value.is_some() {
            return Err(js(&format!("Option '{short_and_long}' does not take an argument")));
        }
        if let Some(value) = &token.value {
            if !token.inline && value.len() > 1 && value[0] == DASH {
                let raw = &token.raw;
                let long_raw = raw.starts_with(&[DASH, DASH]);
                let example = if long_raw {
                    concat(&[&js("'"), raw, &js("=-XYZ'")])
                } else {
                    concat(&[&js(&format!("'--{}=-XYZ' or '", spec.long)), raw, &js("-XYZ'")])
                };
                return Err(concat(&[
                    &js("Option '"),
                    raw,
                    &js("' argument is ambiguous.\nDid you forget to specify the option argument for '"),
                    raw,
                    &js("'?\nTo specify an option argument starting with a dash use "),
                    &example,
                    &js("."),
                ]));
            }
        }
        let given = match token.value {
            None => Given::Switch,
            Some(v) if spec.repeats => match parsed.values.iter_mut().find(|(name, _)| *name == spec.long) {
                Some((_, Given::Texts(list))) => {
                    list.push(v);
                    continue;
                }
                _ => Given::Texts(vec![v]),
            },
            Some(v) => Given::Text(v),
        };
        match parsed.values.iter_mut().find(|(name, _)| *name == spec.long) {
            Some((_, old)) => *old = given,
            None => parsed.values.push((spec.long, given)),
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<Spec> {
        vec![
            Spec { long: "type", short: Some('t'), takes_value: true, repeats: true },
            Spec { long: "regex", short: None, takes_value: false, repeats: false },
            Spec { long: "help", short: Some('h'), takes_value: false, repeats: false },
            Spec { long: "limit", short: None, takes_value: true, repeats: false },
            Spec { long: "i", short: Some('i'), takes_value: false, repeats: false },
        ]
    }

    fn run(args: &[&str]) -> Result<Parsed, String> {
        parse(&specs(), args.iter().map(|a| js(a)).collect()).map_err(|e| String::from_utf16_lossy(&e))
    }

    #[test]
    fn reads_values_as_node_does() {
        let p = run(&["-t", "a", "--type=b", "-tc", "--limit", "1", "--limit", "2", "x", "--", "--regex"]).unwrap();
        assert_eq!(p.get("type"), Some(&Given::Texts(vec![js("a"), js("b"), js("c")])));
        assert_eq!(p.get("limit"), Some(&Given::Text(js("2"))));
        assert_eq!(p.positionals, vec![js("x"), js("--regex")]);
        assert_eq!(run(&["-hi"]).unwrap().values.len(), 2);
        assert_eq!(run(&["-ti"]).unwrap().get("type"), Some(&Given::Texts(vec![js("i")])));
        assert_eq!(run(&["--limit=-5"]).unwrap().get("limit"), Some(&Given::Text(js("-5"))));
        assert_eq!(run(&["-"]).unwrap().positionals, vec![js("-")]);
    }

    #[test]
    fn refuses_with_nodes_messages() {
        assert!(run(&["--bogus"]).unwrap_err().starts_with("Unknown option '--bogus'. To specify"));
        assert_eq!(run(&["-h=1"]).unwrap_err().split('.').next(), Some("Unknown option '-='"));
        assert_eq!(run(&["-t"]).unwrap_err(), "Option '-t, --type <value>' argument missing");
        assert_eq!(run(&["--regex=1"]).unwrap_err(), "Option '--regex' does not take an argument");
        assert!(run(&["--limit", "-5"]).unwrap_err().ends_with("use '--limit=-XYZ'."));
        assert!(run(&["-t", "-x"]).unwrap_err().ends_with("use '--type=-XYZ' or '-t-XYZ'."));
        assert!(run(&["-\u{1F600}"]).unwrap_err().ends_with("'-- \"-\\ud83d\""));
    }
}
