use serde_json::{json, Map, Value};

use crate::session::SessionError;

/// At most this many window ids are named in an `unknown_window_id` refusal.
const MAX_REPORTED_WINDOWS: usize = 25;

/// A refusal of a history operation. Each has a stable `code` and flat details for the wire.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("{}", unknown_seq_message(*seq, *highest))]
    UnknownSeq { seq: u64, highest: u64 },
    #[error("seq {seq} carries no readable event")]
    NoEvent { seq: u64 },
    #[error("seq {seq} is on another branch and is not readable here")]
    NotOnBranch { seq: u64 },
    #[error(
        "offset_chars {offset} is past the end: the item has {total} chars; the largest legal offset is {total} (an empty end-read)"
    )]
    InvalidOffset {
        seq: u64,
        window_id: String,
        offset: i64,
        total: usize,
    },
    #[error("unknown window_id {window_id:?}")]
    UnknownWindow {
        window_id: String,
        known: Vec<String>,
    },
    #[error("{0}")]
    InvalidQuery(String),
    #[error("unknown leaf id {0:?}: no entry of the session has it")]
    UnknownLeaf(String),
    #[error("{0}")]
    InvalidParams(String),
    #[error("the result cannot fit the {budget}-byte budget")]
    OutputTooLarge { budget: usize },
    /// The session file could not be read, is not a regular file, or kept changing.
    #[error(transparent)]
    Session(#[from] SessionError),
}

fn unknown_seq_message(seq: u64, highest: u64) -> String {
    if highest == 0 {
        format!("unknown seq {seq}: this session has no items yet")
    } else {
        format!("unknown seq {seq}: this session's items run 1..{highest}")
    }
}

impl HistoryError {
    pub fn code(&self) -> &'static str {
        match self {
            HistoryError::UnknownSeq { .. } | HistoryError::NoEvent { .. } => "unknown_seq",
            HistoryError::NotOnBranch { .. } => "not_on_branch",
            HistoryError::InvalidOffset { .. } => "invalid_offset",
            HistoryError::UnknownWindow { .. } => "unknown_window_id",
            HistoryError::InvalidQuery(_) => "invalid_query",
            HistoryError::UnknownLeaf(_) => "unknown_leaf",
            HistoryError::InvalidParams(_) => "invalid_params",
            HistoryError::OutputTooLarge { .. } => "output_too_large",
            HistoryError::Session(e) => e.code(),
        }
    }

    /// Details that go flat inside the wire error object, in snake_case.
    pub fn details(&self) -> Map<String, Value> {
        let value = match self {
            HistoryError::UnknownSeq { seq, highest } => {
                json!({"seq": seq, "highest_seq": highest})
            }
            HistoryError::NoEvent { seq } | HistoryError::NotOnBranch { seq } => {
                json!({"seq": seq})
            }
            HistoryError::InvalidOffset {
                seq,
                window_id,
                offset,
                total,
            } => {
                json!({"seq": seq, "window_id": window_id, "offset_chars": offset, "total_chars": total})
            }
            HistoryError::UnknownWindow { window_id, known } => {
                let shown = &known[..known.len().min(MAX_REPORTED_WINDOWS)];
                let mut details = json!({"window_id": window_id, "known_windows": shown});
                if known.len() > shown.len() {
                    details["known_windows_omitted"] = json!(known.len() - shown.len());
                }
                details
            }
            HistoryError::UnknownLeaf(leaf) => json!({"leaf_id": leaf}),
            HistoryError::OutputTooLarge { budget } => json!({"budget_bytes": budget}),
            HistoryError::Session(e) => json!({"session_file": e.path().to_string_lossy()}),
            HistoryError::InvalidQuery(_) | HistoryError::InvalidParams(_) => json!({}),
        };
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }
}
