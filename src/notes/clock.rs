//! Time as notes write and show it: the process's local time zone (`TZ`), ISO 8601 with
//! milliseconds and an explicit offset; spans in words. (Now itself is the process's
//! [`crate::clock::Clock`], ages are [`crate::clock::age_in_words`].)

use jiff::tz::TimeZone;
use jiff::Timestamp;

/// `2026-03-01T10:00:00.000+01:00`: local time, milliseconds, explicit offset (never `Z`).
pub fn local_iso(at: Timestamp) -> String {
    let zoned = at.to_zoned(TimeZone::system());
    zoned.strftime("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string()
}

/// Reads a timestamp as written in a note (any RFC 3339 offset, `Z` included).
pub fn parse(value: &str) -> Option<Timestamp> {
    value.trim().parse::<Timestamp>().ok()
}

/// A span of time in words, in its largest whole unit: `30 days`, `12 hours`, `0 seconds`.
pub fn span_words(span: std::time::Duration) -> String {
    let seconds = span.as_secs();
    let (n, unit) = match seconds {
        s if s >= 86_400 && s % 86_400 == 0 => (s / 86_400, "day"),
        s if s >= 3_600 && s % 3_600 == 0 => (s / 3_600, "hour"),
        s if s >= 60 && s % 60 == 0 => (s / 60, "minute"),
        s => (s, "second"),
    };
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_milliseconds_and_an_explicit_offset() {
        let at: Timestamp = "2026-03-01T09:00:00.5Z".parse().unwrap();
        let text = local_iso(at);
        assert!(!text.ends_with('Z'), "{text}");
        assert_eq!(text.len(), "2026-03-01T09:00:00.500+00:00".len(), "{text}");
        assert!(text.contains(":00.500"), "{text}");
        assert_eq!(parse(&text), Some(at));
    }

    #[test]
    fn parses_other_offsets() {
        let a = parse("2026-03-01T10:00:00.000+01:00").unwrap();
        let b = parse("2026-03-01T09:00:00Z").unwrap();
        assert_eq!(a, b);
        assert_eq!(parse("yesterday"), None);
    }
}
