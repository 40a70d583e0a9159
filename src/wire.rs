//! Limits of the tool protocol that every reader of the wire agrees on.

/// Every tool result (its `text`, and separately its `details`) fits this many UTF-8 bytes.
pub const RESULT_BUDGET_BYTES: usize = 32 * 1024;
/// Default `max_chars_per_item`: code points of preview per history row.
pub const DEFAULT_PREVIEW_CHARS: usize = 1200;
/// Default `limit_chars` of a read window, in code points.
pub const DEFAULT_READ_CHARS: usize = 12_000;
/// Largest `limit_chars` of a read window, in code points.
pub const MAX_READ_CHARS: usize = 50_000;
/// Default `limit` of a history page.
pub const DEFAULT_PAGE_LIMIT: usize = 20;

/// Compact JSON without ASCII escaping: the form whose bytes the budget measures.
pub fn to_compact_json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// The largest `n` in `0..=max` for which `fits(n)` holds, or `None` when not even `fits(0)`
/// does. `fits` must be monotone (true up to some `n`, false after): a response only grows as
/// more of it is kept.
pub fn longest_fitting(max: usize, mut fits: impl FnMut(usize) -> bool) -> Option<usize> {
    if !fits(0) {
        return None;
    }
    let (mut lo, mut hi) = (0, max);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_fitting_finds_the_boundary() {
        assert_eq!(longest_fitting(100, |n| n <= 37), Some(37));
        assert_eq!(longest_fitting(10, |_| true), Some(10));
        assert_eq!(longest_fitting(10, |_| false), None);
        assert_eq!(longest_fitting(0, |_| true), Some(0));
    }
}
