//! `minSize` / `maxSize`: a byte count given as a number or as text such as
//! `10KB`, `1.5MB` or `2GB` (1024-based, case-insensitive, `B` optional).

use crate::error::{FindError, Result};

const UNITS: [(&str, u64); 5] = [("", 1), ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("t", 1 << 40)];

/// Parses a byte count from a JS number: a finite, non-negative whole number.
pub fn size_from_number(name: &str, n: f64) -> Result<u64> {
    if !n.is_finite() || n < 0.0 || n.fract() != 0.0 || n > u64::MAX as f64 {
        return Err(FindError::invalid_argument(format!(
            "`{name}` must be a whole number of bytes (0 or more) or a size such as '10KB', '1.5MB', '2GB'; got {n}"
        )));
    }
    Ok(n as u64)
}

/// Parses `10KB`, `1.5 mb`, `2G`, `512`, `3KiB`: a decimal number and a
/// 1024-based unit. Fractions of a byte are dropped.
pub fn size_from_text(name: &str, text: &str) -> Result<u64> {
    let bad = || {
        FindError::invalid_argument(format!(
            "`{name}` must be a byte count or a size such as '10KB', '1.5MB', '2GB' (1024-based); got '{}'",
            crate::error::clip(text, 100)
        ))
    };
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    if number.is_empty() || number.starts_with('.') && number.len() == 1 {
        return Err(bad());
    }
    let value: f64 = number.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit.strip_suffix("ib").or_else(|| unit.strip_suffix('b')).unwrap_or(&unit);
    let multiplier = UNITS.iter().find(|(suffix, _)| *suffix == unit).map(|&(_, m)| m).ok_or_else(bad)?;
    let bytes = value * multiplier as f64;
    if !bytes.is_finite() || bytes > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes.floor() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_1024_based() {
        assert_eq!(size_from_text("minSize", "10KB").unwrap(), 10 * 1024);
        assert_eq!(size_from_text("minSize", "1.5MB").unwrap(), 1_572_864);
        assert_eq!(size_from_text("minSize", "2GB").unwrap(), 2 * 1024 * 1024 * 1024);
        assert_eq!(size_from_text("minSize", "2g").unwrap(), 2 << 30);
        assert_eq!(size_from_text("minSize", "3 KiB").unwrap(), 3072);
        assert_eq!(size_from_text("minSize", "512").unwrap(), 512);
        assert_eq!(size_from_text("minSize", "512b").unwrap(), 512);
        assert_eq!(size_from_text("minSize", "1TB").unwrap(), 1 << 40);
        assert_eq!(size_from_text("minSize", "0.5k").unwrap(), 512);
    }

    #[test]
    fn rejects_bad_text() {
        for bad in ["", "KB", "ten", "1.2.3MB", "5 parsecs", "-1KB", ".", "1e3"] {
            let err = size_from_text("maxSize", bad).unwrap_err();
            assert_eq!(err.code, crate::error::ErrorCode::InvalidArgument, "{bad}");
            assert!(err.message.contains("`maxSize`"), "{}", err.message);
        }
    }

    #[test]
    fn numbers_must_be_whole_and_non_negative() {
        assert_eq!(size_from_number("minSize", 0.0).unwrap(), 0);
        assert_eq!(size_from_number("minSize", 4096.0).unwrap(), 4096);
        for bad in [-1.0, 1.5, f64::NAN, f64::INFINITY] {
            assert!(size_from_number("minSize", bad).is_err(), "{bad}");
        }
    }
}
