//! The tool protocol between the Pi extension and this binary.
//!
//! `pi-context tool <name>` reads one request object on stdin,
//! `{"params":{…},"context":{…}}`, and writes one response object on stdout,
//! `{"text","details","is_error"}`. A refusal is `is_error: true` with
//! `{"error":{"code","message",…details}}` as text, and exit status 0; a non-zero status means
//! the binary itself failed.

mod checkpoint;
pub mod facts;
mod hint;
mod history;
mod notes;
mod notes_history;
mod params;
pub mod registry;
mod schema;
mod sessions;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use std::sync::Arc;

use pi_context::environment::{Environment, EnvironmentError, Inputs, Vars};
use pi_context::notes::Committer;
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
    /// What the extension saw on the branch since the last checkpoint, for tools that ask for it
    /// (`activity: true` in `--schemas`).
    pub activity: Option<Value>,
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
    /// A custom entry the extension appends to the session when the call succeeded (only Pi's
    /// hooks can write one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub append_entry: Option<AppendEntry>,
}

/// `{"custom_type","data"}`: what `pi.appendEntry(custom_type, data)` appends.
#[derive(Debug, Serialize)]
pub struct AppendEntry {
    pub custom_type: &'static str,
    pub data: Value,
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

impl From<EnvironmentError> for Refusal {
    fn from(e: EnvironmentError) -> Self {
        match e {
            EnvironmentError::Identity(e) => e.into(),
            EnvironmentError::BadClock { .. } => Refusal::new("invalid_params", e.to_string()),
            other => Refusal::new("io_error", other.to_string()),
        }
    }
}

/// A library error with a stable code and flat details: each becomes a refusal the same way.
pub trait Coded: std::fmt::Display {
    fn code(&self) -> &'static str;
    fn details(&self) -> Map<String, Value>;
}

/// The library errors' own `code` and `details`, as [`Coded`].
macro_rules! coded {
    ($($error:ty),* $(,)?) => {$(
        impl Coded for $error {
            fn code(&self) -> &'static str {
                <$error>::code(self)
            }

            fn details(&self) -> Map<String, Value> {
                <$error>::details(self)
            }
        }
    )*};
}

coded!(
    pi_context::history::HistoryError,
    pi_context::notes::NotesError,
    pi_context::checkpoint::CheckpointError,
    pi_context::recall::RecallError,
);

impl<E: Coded> From<E> for Refusal {
    fn from(e: E) -> Self {
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
            append_entry: None,
        }
    }

    /// The refusal as the model sees it, fitted to the budget: the one place refusals are cut.
    /// A list in the details (every matching line of an ambiguous edit, every known window)
    /// keeps its longest prefix that fits, with `<key>_total` saying how long it was; if that
    /// is not enough, details are dropped from the last.
    pub fn refusal(refusal: Refusal) -> Self {
        let mut error = Map::new();
        error.insert("code".into(), json!(refusal.code));
        error.insert("message".into(), json!(capped(&refusal.message)));
        let render = |details: &Map<String, Value>| {
            wire::to_compact_json(&json!({ "error": merged(&error, details) }))
        };
        let fits = |details: &Map<String, Value>| render(details).len() <= RESULT_BUDGET_BYTES;
        let mut details = refusal.details;
        let lists: Vec<String> = details
            .iter()
            .filter(|(_, v)| v.is_array())
            .map(|(k, _)| k.clone())
            .collect();
        for key in lists {
            if fits(&details) {
                break;
            }
            let Some(Value::Array(items)) = details.get(&key).cloned() else {
                continue;
            };
            details.insert(format!("{key}_total"), json!(items.len()));
            let keep = wire::longest_fitting(items.len(), |n| {
                details.insert(key.clone(), json!(items[..n]));
                fits(&details)
            })
            .unwrap_or(0);
            details.insert(key.clone(), json!(items[..keep]));
        }
        while !fits(&details) {
            let Some(last) = details.keys().next_back().cloned() else {
                break;
            };
            details.remove(&last);
        }
        ToolResponse {
            text: render(&details),
            details: json!({ "code": refusal.code }),
            is_error: true,
            append_entry: None,
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

/// One tool call: what Pi sent about the live session, and the process's environment.
pub struct Call<'a> {
    pub context: &'a ToolContext,
    pub vars: &'a Vars,
    /// Where notes changes are committed after the answer (the MCP server); `None`: before.
    pub committer: Option<&'a Arc<Committer>>,
}

impl Call<'_> {
    /// The environment of the live session: its notes home, session, cwd (project), agent and
    /// model from the context; what the context leaves out falls back like the command line's.
    pub fn environment(&self) -> Result<Environment, Refusal> {
        let c = self.context;
        let path = |v: &Option<String>| v.clone().map(std::path::PathBuf::from);
        Ok(Environment::resolve(
            Inputs {
                notes_home: path(&c.notes_home),
                session_id: c.session_id.clone(),
                project_key: None,
                cwd: path(&c.cwd),
                agent: c.agent.clone(),
                model: c.model.clone(),
                roots: Vec::new(),
                live_session_dir: path(&c.session_dir),
            },
            self.vars,
        )?)
    }
}

/// Answers one tool call; `None` for a tool this binary does not have.
pub fn answer(name: &str, request: &ToolRequest, vars: &Vars) -> Option<ToolResponse> {
    answer_with(name, request, vars, None)
}

/// [`answer`], committing notes changes through `committer` (after answering) when given.
pub fn answer_with(
    name: &str,
    request: &ToolRequest,
    vars: &Vars,
    committer: Option<&Arc<Committer>>,
) -> Option<ToolResponse> {
    let tool = registry::find(name)?;
    let call = Call {
        context: &request.context,
        vars,
        committer,
    };
    Some((tool.answer)(&request.params, &call).unwrap_or_else(ToolResponse::refusal))
}
