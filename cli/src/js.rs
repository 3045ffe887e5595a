//! JavaScript's own value rules where the JS CLI leans on them: `Number(text)`
//! for a numeric flag, a number's text (`String(n)`), and
//! `JSON.stringify(value, null, 2)` for `--json`. Written out here so that
//! the native CLI reads the same flag values and prints the same bytes.

/// `Number(text)`: surrounding white space ignored, `''` is 0, decimal with an
/// optional sign and exponent, `Infinity`, `0x`/`0o`/`0b` integers (no sign);
/// anything else NaN.
pub fn number(text: &[u16]) -> f64 {
    let text = String::from_utf16_lossy(text);
    let trimmed = text.trim_matches(is_js_space);
    if trimmed.is_empty() {
        return 0.0;
    }
    let bytes = trimmed.as_bytes();
    if bytes.len() > 2 && bytes[0] == b'0' {
        let radix = match bytes[1] {
            b'x' | b'X' => 16,
            b'o' | b'O' => 8,
            b'b' | b'B' => 2,
            _ => 0,
        };
        if radix != 0 {
            return radix_integer(&trimmed[2..], radix);
        }
    }
    let (sign, rest) = match bytes[0] {
        b'+' => (1.0, &trimmed[1..]),
        b'-' => (-1.0, &trimmed[1..]),
        _ => (1.0, trimmed),
    };
    if rest == "Infinity" {
        return sign * f64::INFINITY;
    }
    if !is_decimal(rest) {
        return f64::NAN;
    }
    // The grammar is checked above; Rust's parser rounds as JS does.
    rest.parse::<f64>().map_or(f64::NAN, |n| sign * n)
}

/// JS's StrWhiteSpaceChar: white space and line terminators.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// `digits [. digits] [e [+-] digits]` or `. digits [exponent]`, at least one mantissa digit.
fn is_decimal(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa = digits(&mut i);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

fn radix_integer(digits: &str, radix: u32) -> f64 {
    if digits.is_empty() {
        return f64::NAN;
    }
    let mut exact: u128 = 0;
    let mut approx = 0.0f64;
    let mut fits = true;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { return f64::NAN };
        approx = approx * f64::from(radix) + f64::from(d);
        match exact.checked_mul(u128::from(radix)).and_then(|v| v.checked_add(u128::from(d))) {
            Some(v) => exact = v,
            None => fits = false,
        }
    }
    if fits {
        exact as f64
    } else {
        approx
    }
}

/// A number's text as JS writes it (`String(n)`): the shortest digits that
/// read back the same, in plain notation from 1e-6 up to 1e21, else with an
/// exponent (`1e+21`, `1.5e-7`).
pub fn number_text(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n == 0.0 {
        return "0".into();
    }
    // `{:e}` gives the shortest round-trip digits: `-1.2345e3`.
    let sci = format!("{:e}", n.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i64;
    let point = exp.parse::<i64>().unwrap_or(0) + 1;
    let sign = if n < 0.0 { "-" } else { "" };
    let body = if k <= point && point <= 21 {
        format!("{digits}{}", "0".repeat((point - k) as usize))
    } else if 0 < point && point <= 21 {
        format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
    } else if -6 < point && point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else {
        let e = point - 1;
        let e = if e >= 0 { format!("+{e}") } else { e.to_string() };
        if k == 1 {
            format!("{digits}e{e}")
        } else {
            format!("{}.{}e{e}", &digits[..1], &digits[1..])
        }
    };
    format!("{sign}{body}")
}

/// A JSON value with its keys in the order the JS object has them.
pub enum Json {
    Bool(bool),
    Number(f64),
    Text(String),
    Array(Vec<Json>),
    /// Fields set to `None` are left out, as JSON.stringify leaves out `undefined`.
    Object(Vec<(&'static str, Option<Json>)>),
    /// An object whose keys are data (paths), in the order given.
    Map(Vec<(String, Json)>),
}

impl Json {
    /// `JSON.stringify(self, null, 2)`.
    pub fn stringify(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        match self {
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) if n.is_finite() => out.push_str(&number_text(*n)),
            Json::Number(_) => out.push_str("null"),
            Json::Text(t) => quote(t, out),
            Json::Array(items) if items.is_empty() => out.push_str("[]"),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    indent(out, depth + 1);
                    item.write(out, depth + 1);
                }
                out.push('\n');
                indent(out, depth);
                out.push(']');
            }
            Json::Object(fields) => {
                write_fields(fields.iter().filter_map(|(key, value)| Some((*key, value.as_ref()?))), out, depth)
            }
            Json::Map(fields) => write_fields(fields.iter().map(|(key, value)| (key.as_str(), value)), out, depth),
        }
    }
}

fn write_fields<'a>(fields: impl Iterator<Item = (&'a str, &'a Json)>, out: &mut String, depth: usize) {
    let mut any = false;
    for (key, value) in fields {
        out.push_str(if any { ",\n" } else { "{\n" });
        any = true;
        indent(out, depth + 1);
        quote(key, out);
        out.push_str(": ");
        value.write(out, depth + 1);
    }
    if any {
        out.push('\n');
        indent(out, depth);
        out.push('}');
    } else {
        out.push_str("{}");
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// A JSON string as JSON.stringify writes it: `"` `\` and control characters escaped, nothing else.
fn quote(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> f64 {
        number(&text.encode_utf16().collect::<Vec<_>>())
    }

    #[test]
    fn number_reads_as_js() {
        assert_eq!(n(""), 0.0);
        assert_eq!(n(" 12 "), 12.0);
        assert_eq!(n("0x10"), 16.0);
        assert_eq!(n("0b101"), 5.0);
        assert_eq!(n("1e3"), 1000.0);
        assert_eq!(n(".5"), 0.5);
        assert_eq!(n("5."), 5.0);
        assert_eq!(n("-Infinity"), f64::NEG_INFINITY);
        for bad in ["abc", "1_000", "-0x10", "inf", "infinity", "1e", ".", "+", "0x", "1 2", "NaN"] {
            assert!(n(bad).is_nan(), "{bad}");
        }
    }

    #[test]
    fn numbers_print_as_js() {
        let cases = [
            (1.0, "1"),
            (-0.0, "0"),
            (1.5, "1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789.125, "123456789.125"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (1733331234567.123, "1733331234567.123"),
            (2.5e30, "2.5e+30"),
            (0.1 + 0.2, "0.30000000000000004"),
        ];
        for (value, text) in cases {
            assert_eq!(number_text(value), text);
        }
    }

    #[test]
    fn stringify_indents_as_js() {
        let value = Json::Object(vec![
            ("a", Some(Json::Array(vec![]))),
            ("b", None),
            ("c", Some(Json::Array(vec![Json::Number(1.0), Json::Text("x\"\n\u{1}".into())]))),
            ("d", Some(Json::Object(vec![]))),
            ("e", Some(Json::Map(vec![("b/\"c".into(), Json::Text(" M".into()))]))),
            ("f", Some(Json::Map(vec![]))),
        ]);
        assert_eq!(
            value.stringify(),
            "{\n  \"a\": [],\n  \"c\": [\n    1,\n    \"x\\\"\\n\\u0001\"\n  ],\n  \"d\": {},\n  \"e\": {\n    \"b/\\\"c\": \" M\"\n  },\n  \"f\": {}\n}"
        );
    }
}
