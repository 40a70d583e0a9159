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

/// The most strings one search `query` may have (`history search`, `notes search`, their tools,
/// and `sessions search`). More is refused before any matcher is built.
pub const MAX_QUERIES: usize = 64;
/// The most code points one query string may have.
pub const MAX_QUERY_CHARS: usize = 1024;
/// The largest request `pi-context tool` reads from stdin; a larger one is refused unparsed.
pub const MAX_REQUEST_BYTES: u64 = 256 << 20;

/// Why a search query was refused. Every search checks its queries with [`check_queries`]
/// before it builds a matcher or reads anything, and words the refusal in its own error type
/// (`invalid_query` for history and notes).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("query must be a string or a non-empty array of strings")]
    Missing,
    #[error("query strings must be non-empty: an empty query matches everything")]
    EmptyString,
    #[error(
        "query has {count} strings; at most {MAX_QUERIES} are searched at once (split the search, or search for a shared piece)"
    )]
    TooMany { count: usize },
    #[error(
        "query string {index} has {chars} code points; each may have at most {MAX_QUERY_CHARS} (search for a distinctive part of it)"
    )]
    TooLong { index: usize, chars: usize },
}

/// Checks the shape and the limits of a search query: 1 to [`MAX_QUERIES`] strings, each
/// non-empty and at most [`MAX_QUERY_CHARS`] code points. Every query that passes compiles.
pub fn check_queries<S: AsRef<str>>(queries: &[S]) -> Result<(), QueryError> {
    check_query_count(queries.len())?;
    for (index, query) in queries.iter().enumerate() {
        let query = query.as_ref();
        if query.is_empty() {
            return Err(QueryError::EmptyString);
        }
        // A long string is refused without counting all of it.
        if query.len() > MAX_QUERY_CHARS {
            let chars = crate::text::char_len(query);
            if chars > MAX_QUERY_CHARS {
                return Err(QueryError::TooLong { index, chars });
            }
        }
    }
    Ok(())
}

/// The count half of [`check_queries`], for callers that can refuse before collecting strings.
pub fn check_query_count(count: usize) -> Result<(), QueryError> {
    match count {
        0 => Err(QueryError::Missing),
        n if n > MAX_QUERIES => Err(QueryError::TooMany { count: n }),
        _ => Ok(()),
    }
}

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
    fn queries_are_checked_for_shape_and_limits() {
        assert_eq!(check_queries::<&str>(&[]), Err(QueryError::Missing));
        assert_eq!(check_queries(&["a", ""]), Err(QueryError::EmptyString));
        let many = vec!["q"; MAX_QUERIES + 1];
        assert_eq!(
            check_queries(&many),
            Err(QueryError::TooMany {
                count: MAX_QUERIES + 1
            })
        );
        assert!(check_queries(&many[..MAX_QUERIES]).is_ok());
        // The cap counts code points, not bytes.
        let longest = "é".repeat(MAX_QUERY_CHARS);
        assert!(check_queries(&[longest.as_str()]).is_ok());
        let over = "x".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(
            check_queries(&["ok", over.as_str()]),
            Err(QueryError::TooLong {
                index: 1,
                chars: MAX_QUERY_CHARS + 1
            })
        );
    }

    #[test]
    fn longest_fitting_finds_the_boundary() {
        assert_eq!(longest_fitting(100, |n| n <= 37), Some(37));
        assert_eq!(longest_fitting(10, |_| true), Some(10));
        assert_eq!(longest_fitting(10, |_| false), None);
        assert_eq!(longest_fitting(0, |_| true), Some(0));
    }
}
