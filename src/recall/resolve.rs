//! Naming a session by its id or a unique prefix of it, and the shortest prefixes that stay
//! unique (how every human output shows session ids).

use std::path::{Path, PathBuf};

use super::discover;
use super::error::RecallError;
use crate::session::Root;
use crate::session::{self, Harness};

/// The shortest prefix a person may type, and that human output shows.
pub const MIN_PREFIX_CHARS: usize = 8;
/// Candidates listed when a prefix is ambiguous.
const MAX_CANDIDATES: usize = 5;
/// How much of a file is read first for its id, and at most (a Pi header line, or the first
/// records of another harness, longer than that give none).
const FIRST_HEAD_BYTES: usize = 16 * 1024;
const MAX_HEAD_BYTES: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRef {
    pub session_id: String,
    pub path: PathBuf,
}

/// Finds the session whose id is `query`, or starts with it, under the roots. An exact id wins
/// over longer ids it prefixes.
pub fn resolve_session(roots: &[Root], query: &str) -> Result<SessionRef, RecallError> {
    let sessions: Vec<SessionRef> = discover::discover(roots, discover::Watch::everything())
        .files
        .into_iter()
        .filter_map(|found| {
            let id = header_id(&found.path, found.harness)?;
            Some(SessionRef {
                session_id: id,
                path: found.path,
            })
        })
        .collect();
    pick(sessions, query)
}

fn pick(sessions: Vec<SessionRef>, query: &str) -> Result<SessionRef, RecallError> {
    let exact: Vec<&SessionRef> = sessions.iter().filter(|s| s.session_id == query).collect();
    let matching: Vec<&SessionRef> =
        if exact.is_empty() && query.chars().count() >= MIN_PREFIX_CHARS {
            sessions
                .iter()
                .filter(|s| s.session_id.starts_with(query))
                .collect()
        } else {
            exact
        };
    match matching.as_slice() {
        [] => Err(RecallError::UnknownSession {
            query: query.to_string(),
        }),
        [one] => Ok((*one).clone()),
        many => Err(RecallError::AmbiguousSession {
            query: query.to_string(),
            count: many.len(),
            candidates: many
                .iter()
                .take(MAX_CANDIDATES)
                .map(|s| format!("{} {}", s.session_id, s.path.display()))
                .collect(),
        }),
    }
}

/// The session id a file gives: its first records', read as its reader reads them; else the
/// one its name carries (in the layout of the harness whose root it was found under).
fn header_id(path: &Path, harness: Harness) -> Option<String> {
    let head = head_with_id(path).ok()?;
    head.or_else(|| harness.id_from_path(path))
}

/// The id in the file's first records, reading more of the file (up to [`MAX_HEAD_BYTES`])
/// while its complete lines do not give one.
fn head_with_id(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::Read;
    let (file, _) = discover::open_regular(path)?;
    let mut reader = file.take(MAX_HEAD_BYTES as u64);
    let mut head: Vec<u8> = Vec::new();
    let mut want = FIRST_HEAD_BYTES;
    loop {
        let before = head.len();
        (&mut reader)
            .take((want - before) as u64)
            .read_to_end(&mut head)?;
        let at_end = head.len() < want;
        let complete = if at_end {
            head.len()
        } else {
            memchr::memrchr(b'\n', &head).map_or(0, |i| i + 1)
        };
        if let Some(id) = session::id_in_head(&head[..complete]) {
            return Ok(Some(id));
        }
        if at_end || want >= MAX_HEAD_BYTES {
            return Ok(None);
        }
        want = (want * 4).min(MAX_HEAD_BYTES);
    }
}

/// The ids of the indexed sessions, each one's shortest unique prefix computed when asked (a
/// search shows a few of thousands).
pub struct UniquePrefixes<'a> {
    sorted: Vec<&'a str>,
}

impl<'a> UniquePrefixes<'a> {
    pub fn new(ids: impl IntoIterator<Item = &'a str>) -> UniquePrefixes<'a> {
        let mut sorted: Vec<&str> = ids.into_iter().collect();
        sorted.sort_unstable();
        sorted.dedup();
        UniquePrefixes { sorted }
    }

    /// The id's shortest prefix of at least [`MIN_PREFIX_CHARS`] characters that no other id
    /// shares (the whole id when it is shorter or another id extends it); `None` when it is not
    /// one of the ids.
    pub fn of(&self, id: &str) -> Option<String> {
        let at = self.sorted.binary_search(&id).ok()?;
        let common = |other: &str| {
            id.chars()
                .zip(other.chars())
                .take_while(|(x, y)| x == y)
                .count()
        };
        let before = at
            .checked_sub(1)
            .and_then(|i| self.sorted.get(i))
            .map_or(0, |other| common(other));
        let after = self.sorted.get(at + 1).map_or(0, |other| common(other));
        let len = MIN_PREFIX_CHARS.max(before.max(after) + 1);
        Some(id.chars().take(len).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: &str) -> SessionRef {
        SessionRef {
            session_id: id.into(),
            path: PathBuf::from(format!("/s/{id}.jsonl")),
        }
    }

    #[test]
    fn prefixes_exact_ids_and_ambiguity() {
        let all = vec![r("0192aaaa-1111"), r("0192aaaa-2222"), r("0192aaaa")];
        assert_eq!(pick(all.clone(), "0192aaaa").unwrap(), r("0192aaaa"));
        assert_eq!(pick(all.clone(), "0192aaaa-1").unwrap(), r("0192aaaa-1111"));
        assert!(matches!(
            pick(all.clone(), "0192aaaa-"),
            Err(RecallError::AmbiguousSession { count: 2, .. })
        ));
        assert!(matches!(
            pick(all, "ffff0000"),
            Err(RecallError::UnknownSession { .. })
        ));
    }

    #[test]
    fn shortest_prefixes_are_unique_and_at_least_eight() {
        let ids = ["0192aaaa-1111", "0192aaaa-1222", "7f00bbbb-0000", "short"];
        let prefixes = UniquePrefixes::new(ids);
        let shortest: Vec<Option<String>> = ids.iter().map(|id| prefixes.of(id)).collect();
        let expected = ["0192aaaa-11", "0192aaaa-12", "7f00bbbb", "short"];
        assert_eq!(shortest, expected.map(|p| Some(p.to_string())));
        assert_eq!(prefixes.of("0192aaaa"), None, "not one of the ids");
    }
}
