//! `modifiedSince`: an instant given as epoch milliseconds, an ISO date or
//! date-time, or an age such as `30m`, `1h`, `24h`, `7d` counted back from now.
//!
//! ISO text is read as JavaScript's `Date` reads it: a bare date is UTC
//! midnight, a date-time without an offset is local time.

use crate::error::{FindError, Result};
use jiff::{civil, tz::TimeZone, Timestamp};

/// Milliseconds since the Unix epoch.
pub type EpochMs = f64;

pub fn since_from_number(n: f64) -> Result<EpochMs> {
    if !n.is_finite() {
        return Err(FindError::invalid_argument(format!(
            "`modifiedSince` must be epoch milliseconds, an ISO date such as '2024-05-01', or an age such as '30m', '24h', '7d'; got {n}"
        )));
    }
    Ok(n)
}

pub fn since_from_text(text: &str, now_ms: EpochMs) -> Result<EpochMs> {
    let trimmed = text.trim();
    if let Some(age) = parse_age_ms(trimmed) {
        return Ok(now_ms - age);
    }
    parse_iso_ms(trimmed).ok_or_else(|| {
        FindError::invalid_argument(format!(
            "`modifiedSince` must be an ISO date or date-time ('2024-05-01', '2024-05-01T12:00:00Z'), epoch milliseconds, or an age such as '30m', '1h', '24h', '7d'; got '{}'",
            crate::error::clip(text, 100)
        ))
    })
}

/// `90s`, `30m`, `1h`, `7d`, `2w`, also `1.5h`: the age in milliseconds.
fn parse_age_ms(text: &str) -> Option<f64> {
    let unit_at = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(unit_at);
    let value: f64 = number.parse().ok()?;
    let unit_ms = match unit.trim().to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60_000.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000.0,
        "d" | "day" | "days" => 86_400_000.0,
        "w" | "week" | "weeks" => 604_800_000.0,
        _ => return None,
    };
    Some(value * unit_ms)
}

fn parse_iso_ms(text: &str) -> Option<f64> {
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Some(ts.as_millisecond() as f64);
    }
    if let Ok(date) = text.parse::<civil::Date>() {
        if text.len() <= 10 {
            let ts = TimeZone::UTC.to_timestamp(date.to_datetime(civil::Time::midnight())).ok()?;
            return Some(ts.as_millisecond() as f64);
        }
    }
    let local: civil::DateTime = text.parse().ok()?;
    let ts = TimeZone::system().to_timestamp(local).ok()?;
    Some(ts.as_millisecond() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: f64 = 1_700_000_000_000.0;

    #[test]
    fn ages_count_back_from_now() {
        assert_eq!(since_from_text("30m", NOW).unwrap(), NOW - 1_800_000.0);
        assert_eq!(since_from_text("1h", NOW).unwrap(), NOW - 3_600_000.0);
        assert_eq!(since_from_text("24h", NOW).unwrap(), NOW - 86_400_000.0);
        assert_eq!(since_from_text("7d", NOW).unwrap(), NOW - 7.0 * 86_400_000.0);
        assert_eq!(since_from_text("2w", NOW).unwrap(), NOW - 14.0 * 86_400_000.0);
        assert_eq!(since_from_text("90s", NOW).unwrap(), NOW - 90_000.0);
    }

    #[test]
    fn iso_text_reads_like_js_date() {
        assert_eq!(since_from_text("2024-01-01", NOW).unwrap(), 1_704_067_200_000.0);
        assert_eq!(since_from_text("2024-01-01T00:00:00Z", NOW).unwrap(), 1_704_067_200_000.0);
        assert_eq!(since_from_text("2024-01-01T02:00:00+02:00", NOW).unwrap(), 1_704_067_200_000.0);
        assert!(since_from_text("2024-01-01T10:30:00", NOW).is_ok());
    }

    #[test]
    fn rejects_nonsense() {
        for bad in ["", "yesterday", "7x", "2024-13-01", "h", "12"] {
            assert!(since_from_text(bad, NOW).is_err(), "{bad}");
        }
        assert!(since_from_number(f64::NAN).is_err());
        assert_eq!(since_from_number(5.0).unwrap(), 5.0);
    }
}
