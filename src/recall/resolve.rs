//! Naming a session by its id or a unique prefix of it, and the shortest prefixes that stay
//! unique (how every human output shows session ids).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::discover;
use super::error::RecallError;
use super::roots::Root;

/// The shortest prefix a person may type, and that human output shows.
pub const MIN_PREFIX_CHARS: usize = 8;
/// Candidates listed when a prefix is ambiguous.
const MAX_CANDIDATES: usize = 5;
/// Header lines longer than this are not read.
const MAX_HEADER_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRef {
    pub session_id: String,
    pub path: PathBuf,
}

/// Finds the session whose id is `query`, or starts with it, under the roots. An exact id wins
/// over longer ids it prefixes.
pub fn resolve_session(roots: &[Root], query: &str) -> Result<SessionRef, RecallError> {
    let sessions: Vec<SessionRef> = discover::discover(roots)
        .files
        .into_iter()
        .filter_map(|found| {
            let id = header_id(&found.path)?;
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

/// The session id in a file's header, else the one its name carries (`<timestamp>_<id>.jsonl`).
fn header_id(path: &Path) -> Option<String> {
    #[derive(Deserialize)]
    struct Header {
        #[serde(rename = "type")]
        kind: Option<String>,
        id: Option<serde_json::Value>,
    }
    let line = discover::first_line(path, MAX_HEADER_BYTES).ok()?;
    let from_header = line
        .and_then(|l| serde_json::from_slice::<Header>(&l).ok())
        .filter(|h| h.kind.as_deref() == Some("session"))
        .and_then(|h| match h.id {
            Some(serde_json::Value::String(id)) if !id.is_empty() => Some(id),
            _ => None,
        });
    from_header.or_else(|| {
        let stem = path.file_stem()?.to_string_lossy().into_owned();
        Some(match stem.rsplit_once('_') {
            Some((_, id)) if !id.is_empty() => id.to_string(),
            _ => stem,
        })
    })
}

/// For each id, its shortest prefix of at least [`MIN_PREFIX_CHARS`] characters that no other
/// id shares (the whole id when it is shorter or another id extends it).
pub fn shortest_unique_prefixes(ids: &[&str]) -> Vec<String> {
    let mut sorted: Vec<&str> = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    ids.iter()
        .map(|id| {
            let at = sorted.binary_search(id).unwrap_or(0);
            let before = at
                .checked_sub(1)
                .and_then(|i| sorted.get(i))
                .map_or(0, |other| common(id, other));
            let after = sorted.get(at + 1).map_or(0, |other| common(id, other));
            let len = MIN_PREFIX_CHARS.max(before.max(after) + 1);
            id.chars().take(len).collect()
        })
        .collect()
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
        assert_eq!(
            shortest_unique_prefixes(&ids),
            ["0192aaaa-11", "0192aaaa-12", "7f00bbbb", "short"]
        );
    }
}
