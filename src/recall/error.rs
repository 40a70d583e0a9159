//! Errors of the recall library.

use std::path::Path;

use serde_json::{json, Map, Value};

#[derive(Debug, thiserror::Error)]
pub enum RecallError {
    /// The index exists but cannot be used; it is rebuilt.
    #[error("the session index is unusable: {0}")]
    Corrupt(String),
    /// Another process holds the writer lock while the index must be created.
    #[error("another process is building the session index")]
    Busy,
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    InvalidQuery(String),
    #[error("{0}")]
    InvalidParams(String),
    #[error("no session matches {query:?}")]
    UnknownSession { query: String },
    #[error("{query:?} matches {count} sessions; give more of the id")]
    AmbiguousSession {
        query: String,
        count: usize,
        candidates: Vec<String>,
    },
}

impl RecallError {
    pub fn corrupt(e: impl std::fmt::Display) -> RecallError {
        RecallError::Corrupt(e.to_string())
    }

    pub fn io(path: &Path, source: std::io::Error) -> RecallError {
        RecallError::Io {
            what: format!("cannot use {}", path.display()),
            source,
        }
    }

    /// The stable code of a refusal.
    pub fn code(&self) -> &'static str {
        match self {
            RecallError::Corrupt(_) | RecallError::Busy | RecallError::Io { .. } => "io_error",
            RecallError::InvalidQuery(_) => "invalid_query",
            RecallError::InvalidParams(_) => "invalid_params",
            RecallError::UnknownSession { .. } | RecallError::AmbiguousSession { .. } => {
                "unknown_session"
            }
        }
    }

    /// Flat details for a refusal.
    pub fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        match self {
            RecallError::UnknownSession { query } => {
                details.insert("session_id".into(), json!(query));
            }
            RecallError::AmbiguousSession {
                query, candidates, ..
            } => {
                details.insert("session_id".into(), json!(query));
                details.insert("candidates".into(), json!(candidates));
            }
            _ => {}
        }
        details
    }
}
