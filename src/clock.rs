//! The process's clock, and spans of time as people write them on the command line: `30m`,
//! `12h`, `7d`, `4w`.

use std::time::Duration;

use jiff::Timestamp;

/// Where "now" comes from: the system clock, or a fixed instant (`PI_CONTEXT_NOW`, for tests and
/// reproducible runs; resolved once in [`crate::environment`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Clock {
    #[default]
    System,
    Fixed(Timestamp),
}

impl Clock {
    pub fn now(self) -> Timestamp {
        match self {
            Clock::System => Timestamp::now(),
            Clock::Fixed(at) => at,
        }
    }

    pub fn system_time(self) -> std::time::SystemTime {
        std::time::SystemTime::from(self.now())
    }
}

/// `then` relative to `now`: `just now`, else the largest whole unit of days, hours, minutes or
/// seconds, as `3m ago` (past) or `in 3m` (future).
pub fn relative_time(now: Timestamp, then: Timestamp) -> String {
    let seconds = now.as_second() - then.as_second();
    if seconds == 0 {
        return "just now".to_string();
    }
    let (n, unit) = largest_whole_unit(seconds.unsigned_abs());
    let letter = &unit[..1];
    if seconds > 0 {
        format!("{n}{letter} ago")
    } else {
        format!("in {n}{letter}")
    }
}

/// How long before `now` the instant `then` was, in words: `just now` (under a minute),
/// `5 minutes ago`, `3 hours ago`, `12 days ago` (`in the future` for a later time).
pub fn age_in_words(now: Timestamp, then: Timestamp) -> String {
    let seconds = now.as_second() - then.as_second();
    match u64::try_from(seconds) {
        Err(_) => "in the future".to_string(),
        Ok(0..=59) => "just now".to_string(),
        Ok(seconds) => match largest_whole_unit(seconds) {
            (1, unit) => format!("1 {unit} ago"),
            (n, unit) => format!("{n} {unit}s ago"),
        },
    }
}

/// A number of seconds in the largest unit (day, hour, minute, second) it holds once, rounded
/// down.
fn largest_whole_unit(seconds: u64) -> (u64, &'static str) {
    match seconds {
        s if s >= 86_400 => (s / 86_400, "day"),
        s if s >= 3_600 => (s / 3_600, "hour"),
        s if s >= 60 => (s / 60, "minute"),
        s => (s, "second"),
    }
}

/// `<n>m`, `<n>h`, `<n>d` or `<n>w` (minutes, hours, days, weeks), or `0`.
pub fn parse_span(text: &str) -> Option<Duration> {
    let text = text.trim();
    if text == "0" {
        return Some(Duration::ZERO);
    }
    let unit = text.chars().last()?;
    let number = &text[..text.len() - unit.len_utf8()];
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = number.parse().ok()?;
    let seconds: u64 = match unit {
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        'w' => 7 * 86_400,
        _ => return None,
    };
    Some(Duration::from_secs(n.checked_mul(seconds)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn relative_times() {
        let now = at("2026-03-01T09:00:00Z");
        assert_eq!(relative_time(now, now), "just now");
        assert_eq!(relative_time(now, at("2026-03-01T08:59:30Z")), "30s ago");
        assert_eq!(relative_time(now, at("2026-03-01T08:57:00Z")), "3m ago");
        assert_eq!(relative_time(now, at("2026-03-01T06:59:00Z")), "2h ago");
        assert_eq!(relative_time(now, at("2026-02-20T09:00:00Z")), "9d ago");
        assert_eq!(relative_time(now, at("2026-03-01T09:03:00Z")), "in 3m");
        assert_eq!(relative_time(now, now), "just now");
        assert_eq!(relative_time(now, at("2026-03-01T09:05:00Z")), "in 5m");
    }

    #[test]
    fn ages_read_in_words() {
        let now = at("2026-03-01T09:00:00Z");
        let ago = |s: &str| age_in_words(now, at(s));
        assert_eq!(ago("2026-03-01T08:59:30Z"), "just now");
        assert_eq!(ago("2026-03-01T08:59:00Z"), "1 minute ago");
        assert_eq!(ago("2026-03-01T06:00:00Z"), "3 hours ago");
        assert_eq!(ago("2026-01-30T09:00:00Z"), "30 days ago");
        assert_eq!(ago("2026-03-02T09:00:00Z"), "in the future");
    }

    #[test]
    fn spans() {
        assert_eq!(parse_span("30m"), Some(Duration::from_secs(1800)));
        assert_eq!(parse_span("12h"), Some(Duration::from_secs(43_200)));
        assert_eq!(parse_span("7d"), Some(Duration::from_secs(604_800)));
        assert_eq!(parse_span("4w"), Some(Duration::from_secs(2_419_200)));
        assert_eq!(parse_span("0"), Some(Duration::ZERO));
        for bad in ["", "d", "7", "-1d", "1.5h", "7x", "99999999999999999999w"] {
            assert_eq!(parse_span(bad), None, "{bad}");
        }
    }
}
