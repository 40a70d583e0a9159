//! The tool protocol between the Pi extension and this binary.
//!
//! `pi-context tool <name>` reads one request object on stdin,
//! `{"params":{…},"context":{…}}`, and writes one response object on stdout,
//! `{"text","details","is_error"}`. A refusal is `is_error: true` with
//! `{"error":{"code","message",…details}}` as text, and exit status 0; a non-zero status means
//! the binary itself failed.

pub mod facts;
mod history;
mod notes;
mod params;
pub mod schemas;
mod sessions;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use pi_context::wire::{self, RESULT_BUDGET_BYTES};

pub use params::Params;

/// What Pi knows about the live session, sent with every call.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolContext {
    pub session_file: Option<String>,
    pub leaf_id: Option<String>,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub agent: Option<String>,
    pub model: Option<String>,
    pub notes_home: Option<String>,
    /// Pi's `getSessionDir()`: where the live session's directory is, searched by recall.
    pub session_dir: Option<String>,
    /// The header and entries as JSON lines, when Pi keeps the session only in memory.
    pub entries: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRequest {
    #[serde(default)]
    pub params: Value,
    #[serde(default)]
    pub context: ToolContext,
}

#[derive(Debug, Serialize)]
pub struct ToolResponse {
    pub text: String,
    pub details: Value,
    pub is_error: bool,
}

/// A refusal: a stable code, a message, and flat snake_case details.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
    pub details: Map<String, Value>,
}

impl Refusal {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Refusal {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }
}

impl From<pi_context::history::HistoryError> for Refusal {
    fn from(e: pi_context::history::HistoryError) -> Self {
        Refusal {
            code: e.code(),
            message: e.to_string(),
            details: e.details(),
        }
    }
}

impl From<pi_context::notes::NotesError> for Refusal {
    fn from(e: pi_context::notes::NotesError) -> Self {
        Refusal {
            code: e.code(),
            message: e.to_string(),
            details: e.details(),
        }
    }
}

impl From<pi_context::recall::RecallError> for Refusal {
    fn from(e: pi_context::recall::RecallError) -> Self {
        Refusal {
            code: e.code(),
            message: e.to_string(),
            details: e.details(),
        }
    }
}

impl ToolResponse {
    pub fn ok(text: String, details: Value) -> Self {
        ToolResponse {
            text,
            details,
            is_error: false,
        }
    }

    /// The refusal as the model sees it, cut to the budget if its details are long.
    pub fn refusal(refusal: Refusal) -> Self {
        let mut error = Map::new();
        error.insert("code".into(), json!(refusal.code));
        error.insert("message".into(), json!(capped(&refusal.message)));
        let mut details = refusal.details;
        let mut text = wire::to_compact_json(&json!({ "error": merged(&error, &details) }));
        while text.len() > RESULT_BUDGET_BYTES && !details.is_empty() {
            if let Some(last) = details.keys().next_back().cloned() {
                details.remove(&last);
            }
            text = wire::to_compact_json(&json!({ "error": merged(&error, &details) }));
        }
        ToolResponse {
            text,
            details: json!({ "code": refusal.code }),
            is_error: true,
        }
    }
}

/// Messages can quote what the caller sent (a leaf id, a parameter name); past this many code
/// points they are cut, so that a refusal always fits the budget.
const MESSAGE_MAX_CHARS: usize = 2000;

fn capped(message: &str) -> String {
    match message.char_indices().nth(MESSAGE_MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message.to_string(),
    }
}

fn merged(error: &Map<String, Value>, details: &Map<String, Value>) -> Value {
    let mut all = error.clone();
    for (k, v) in details {
        all.entry(k.clone()).or_insert_with(|| v.clone());
    }
    Value::Object(all)
}

/// Answers one tool call. `Err` is a request the binary cannot serve at all (unknown tool).
pub fn answer(name: &str, request: ToolRequest) -> Result<ToolResponse, String> {
    let outcome = match name {
        "history_windows" | "history_list" | "history_read" | "history_search" => {
            history::answer(name, &request.params, &request.context)
        }
        "notes_write" | "notes_edit" | "notes_move" | "notes_read" | "notes_list"
        | "notes_search" => notes::answer(name, &request.params, &request.context),
        "sessions_list" | "sessions_search" => {
            sessions::answer(name, &request.params, &request.context)
        }
        _ => return Err(format!("unknown tool {name:?}")),
    };
    Ok(outcome.unwrap_or_else(ToolResponse::refusal))
}
