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
