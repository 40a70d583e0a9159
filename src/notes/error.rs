use serde_json::{json, Map, Value};

/// At most this many line numbers are named in an `ambiguous_edit` message.
const NAMED_LINES: usize = 8;

/// A refusal of a notes operation. Each has a stable `code` (docs/notes.md, "Operations") and
/// flat details for the wire (docs/protocol.md, "Response").
#[derive(Debug, thiserror::Error)]
pub enum NotesError {
    #[error("note not found: {address}")]
    NotFound { address: String },
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{}", ambiguous_message(*edit_index, line_numbers))]
    AmbiguousEdit {
        edit_index: usize,
        line_numbers: Vec<usize>,
    },
    #[error("edits[{edit_index}]: {reason}")]
    NoMatch { edit_index: usize, reason: String },
    #[error("nothing to do: provide edits, or at least one of origin and crumpled")]
    NothingToDo,
    #[error("nothing to do: {0}")]
    NothingToMove(String),
    #[error("note path exceeds {limit} UTF-8 bytes (got {actual})")]
    PathTooLarge { actual: usize, limit: usize },
    #[error("note exceeds {limit} UTF-8 bytes once serialized (got {actual})")]
    NoteTooLarge { actual: usize, limit: usize },
    #[error("the note file is {actual} bytes; files over {limit} bytes are not read as notes")]
    FileTooLarge { actual: u64, limit: u64 },
    #[error("{0}")]
    InvalidScope(String),
    #[error("origin must be one of user, self, external (got {0:?})")]
    InvalidOrigin(String),
    #[error("{message}")]
    InvalidAddress { message: String },
    #[error("{0}")]
    InvalidPattern(String),
    #[error("{0}")]
    InvalidQuery(String),
    #[error(
        "offset_chars {offset} is past the end of the body: the note has {total} body chars; the largest legal offset is {total} (an empty end-read)"
    )]
    InvalidOffset { offset: i64, total: usize },
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Internal(String),
    /// The notes history (the home's git repository) cannot be read or written.
    #[error("{0}")]
    History(String),
    #[error("{0}")]
    InvalidRevision(String),
    #[error("{0}")]
    OutputTooLarge(String),
}

impl NotesError {
    pub fn code(&self) -> &'static str {
        match self {
            NotesError::NotFound { .. } => "not_found",
            NotesError::AlreadyExists(_) => "already_exists",
            NotesError::AmbiguousEdit { .. } => "ambiguous_edit",
            NotesError::NoMatch { .. } => "no_match",
            NotesError::NothingToDo | NotesError::NothingToMove(_) => "nothing_to_do",
            NotesError::PathTooLarge { .. }
            | NotesError::NoteTooLarge { .. }
            | NotesError::FileTooLarge { .. } => "too_large",
            NotesError::InvalidScope(_) => "invalid_scope",
            NotesError::InvalidOrigin(_) => "invalid_origin",
            NotesError::InvalidAddress { .. } => "invalid_address",
            NotesError::InvalidPattern(_) => "invalid_pattern",
            NotesError::InvalidQuery(_) => "invalid_query",
            NotesError::InvalidOffset { .. } => "invalid_offset",
            NotesError::Io { .. } => "io_error",
            NotesError::Internal(_) => "internal_error",
            NotesError::History(_) => "history_error",
            NotesError::InvalidRevision(_) => "invalid_revision",
            NotesError::OutputTooLarge(_) => "output_too_large",
        }
    }

    /// Details that go flat inside the wire error object, in snake_case. `line_numbers` is
    /// complete here; the tool layer shortens it to the budget.
    pub fn details(&self) -> Map<String, Value> {
        let value = match self {
            NotesError::NotFound { address } => json!({"address": address}),
            NotesError::AmbiguousEdit {
                edit_index,
                line_numbers,
            } => json!({"edit_index": edit_index, "line_numbers": line_numbers}),
            NotesError::NoMatch { edit_index, .. } => json!({"edit_index": edit_index}),
            NotesError::PathTooLarge { actual, limit }
            | NotesError::NoteTooLarge { actual, limit } => {
                json!({"actual_bytes": actual, "limit_bytes": limit})
            }
            NotesError::FileTooLarge { actual, limit } => {
                json!({"actual_bytes": actual, "limit_bytes": limit})
            }
            NotesError::InvalidOffset { offset, total } => {
                json!({"offset_chars": offset, "total_chars": total})
            }
            _ => json!({}),
        };
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    pub(crate) fn address(message: impl Into<String>) -> Self {
        NotesError::InvalidAddress {
            message: message.into(),
        }
    }

    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        NotesError::Io {
            what: what.into(),
            source,
        }
    }
}

fn ambiguous_message(edit_index: usize, lines: &[usize]) -> String {
    let named: Vec<String> = lines
        .iter()
        .take(NAMED_LINES)
        .map(usize::to_string)
        .collect();
    let rest = lines.len().saturating_sub(NAMED_LINES);
    let list = if rest > 0 {
        format!("{}, and {rest} more", named.join(", "))
    } else {
        named.join(", ")
    };
    format!(
        "edits[{edit_index}]: oldText occurs {} times (lines {list}); make it unique with more context, or pass replace_all to replace every occurrence",
        lines.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ambiguous_message_names_at_most_eight_lines_and_stays_short() {
        let lines: Vec<usize> = (1..=2000).collect();
        let err = NotesError::AmbiguousEdit {
            edit_index: 0,
            line_numbers: lines,
        };
        let message = err.to_string();
        assert!(message.contains("occurs 2000 times (lines 1, 2, 3, 4, 5, 6, 7, 8, and 1992 more)"));
        assert!(message.len() < 300, "{} bytes", message.len());
        assert_eq!(
            err.details()["line_numbers"].as_array().map(Vec::len),
            Some(2000)
        );
    }

    #[test]
    fn every_variant_has_a_contract_code() {
        let io = NotesError::io("x", std::io::Error::other("boom"));
        assert_eq!(io.code(), "io_error");
        assert_eq!(NotesError::NothingToDo.code(), "nothing_to_do");
        assert_eq!(
            NotesError::PathTooLarge {
                actual: 600,
                limit: 512
            }
            .code(),
            "too_large"
        );
    }
}
