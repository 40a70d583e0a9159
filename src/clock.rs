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
    let magnitude = seconds.unsigned_abs();
    let (n, unit) = if magnitude >= 86_400 {
        (magnitude / 86_400, "d")
    } else if magnitude >= 3_600 {
        (magnitude / 3_600, "h")
    } else if magnitude >= 60 {
        (magnitude / 60, "m")
    } else {
        (magnitude, "s")
    };
    if seconds > 0 {
        format!("{n}{unit} ago")
    } else {
        format!("in {n}{unit}")
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
        assert_eq!(relative_time(now, at("2026-03-01T09:05:00Z")), "in 5m");
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
