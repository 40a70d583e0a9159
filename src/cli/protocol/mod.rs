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

use std::cell::OnceCell;
use std::path::PathBuf;
use std::sync::Arc;

use pi_context::environment::{Environment, EnvironmentError, Inputs, Vars};
use pi_context::notes::Committer;
use pi_context::wire::{self, RESULT_BUDGET_BYTES};

pub use params::Params;
use registry::Tool;

/// What Pi knows about the live session, sent with every call. The MCP server gives the live
/// session it was started on (`session_file`, `session_id`) and nothing else: its environment
/// is resolved already.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolContext {
    pub session_file: Option<PathBuf>,
    pub leaf_id: Option<String>,
    pub session_id: Option<String>,
    pub cwd: Option<PathBuf>,
    pub agent: Option<String>,
    pub model: Option<String>,
    pub notes_home: Option<PathBuf>,
    /// Pi's `getSessionDir()`: where the live session's directory is, searched by recall.
    pub session_dir: Option<PathBuf>,
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

/// One tool call: what the door knows about the live session, where the call runs, and where
/// its notes changes are committed.
pub struct Call<'a> {
    pub context: &'a ToolContext,
    /// Where notes changes are committed after the answer (the MCP server); `None`: before.
    pub committer: Option<&'a Arc<Committer>>,
    place: Place<'a>,
    /// The environment of a [`Place::FromContext`], once resolved.
    resolved: OnceCell<Result<Environment, Refusal>>,
}

/// Where a call's [`Environment`] comes from.
enum Place<'a> {
    /// Resolved from the context at the call's first need: `pi-context tool`, one process per
    /// call.
    FromContext(&'a Vars),
    /// Resolved by the door before the call: the MCP server, from what it resolved at start.
    Given(&'a Environment),
}

impl<'a> Call<'a> {
    /// A call of `pi-context tool`: the context says where it runs (its notes home, session,
    /// cwd, agent and model), and what it leaves out falls back like the command line's.
    pub fn from_context(context: &'a ToolContext, vars: &'a Vars) -> Self {
        Call {
            context,
            committer: None,
            place: Place::FromContext(vars),
            resolved: OnceCell::new(),
        }
    }

    /// A call that runs in `environment`, resolved by its door (the MCP server), committing
    /// notes changes through `committer` when given.
    pub fn in_environment(
        context: &'a ToolContext,
        environment: &'a Environment,
        committer: Option<&'a Arc<Committer>>,
    ) -> Self {
        Call {
            context,
            committer,
            place: Place::Given(environment),
            resolved: OnceCell::new(),
        }
    }

    /// Where the call runs; the first need of a [`Call::from_context`] resolves it.
    pub fn environment(&self) -> Result<&Environment, Refusal> {
        match self.place {
            Place::Given(environment) => Ok(environment),
            Place::FromContext(vars) => self
                .resolved
                .get_or_init(|| resolve_context(self.context, vars))
                .as_ref()
                .map_err(Refusal::clone),
        }
    }
}

/// The environment a tool context describes.
fn resolve_context(context: &ToolContext, vars: &Vars) -> Result<Environment, Refusal> {
    Ok(Environment::resolve(
        Inputs {
            notes_home: context.notes_home.clone(),
            session_id: context.session_id.clone(),
            project_key: None,
            cwd: context.cwd.clone(),
            agent: context.agent.clone(),
            model: context.model.clone(),
            roots: Vec::new(),
            live_session_dir: context.session_dir.clone(),
        },
        vars,
    )?)
}

/// Answers one call of `pi-context tool <name>`; `None` for a tool this binary does not have.
pub fn answer(name: &str, request: &ToolRequest, vars: &Vars) -> Option<ToolResponse> {
    let tool = registry::find(name)?;
    let call = Call::from_context(&request.context, vars);
    Some(answer_with(tool, &request.params, &call))
}

/// Answers one call of `tool`, as every door does: a refusal is an error result.
pub fn answer_with(tool: &Tool, params: &Value, call: &Call) -> ToolResponse {
    (tool.answer)(params, call).unwrap_or_else(ToolResponse::refusal)
}

#[cfg(test)]
mod tests {
    use super::registry::{Mode, EVERY_DOOR};
    use super::*;

    fn probe_parameters() -> Value {
        json!({"type": "object", "additionalProperties": false})
    }

    fn probe_answer(params: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
        let env = call.environment()?;
        Ok(ToolResponse::ok(
            format!("{} {} {params}", env.agent, env.cwd.display()),
            Value::Null,
        ))
    }

    /// A tool the registry does not list: only the one the door found answers.
    static PROBE: Tool = Tool {
        name: "probe_not_in_the_registry",
        label: "Probe",
        description: "",
        parameters: probe_parameters,
        mode: Mode::Parallel,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: true,
        live_session: false,
        answer: probe_answer,
    };

    #[test]
    fn the_door_hands_over_the_tool_it_found_and_the_environment_it_resolved() {
        assert!(registry::find(PROBE.name).is_none());
        let vars = Vars::from_pairs([("HOME", "/h")]);
        let environment = Environment::resolve(
            Inputs {
                cwd: Some("/project".into()),
                agent: Some("Codex".into()),
                ..Inputs::default()
            },
            &vars,
        )
        .unwrap();
        let context = ToolContext::default();
        let call = Call::in_environment(&context, &environment, None);
        let response = answer_with(&PROBE, &json!({"x": 1}), &call);
        assert!(!response.is_error, "{}", response.text);
        assert_eq!(response.text, r#"codex /project {"x":1}"#);
    }

    #[test]
    fn a_call_of_the_tool_command_resolves_its_context_at_first_need() {
        let vars = Vars::from_pairs([("HOME", "/h"), ("PI_NOTES_AGENT", "pi")]);
        let context = ToolContext {
            cwd: Some("/elsewhere".into()),
            ..ToolContext::default()
        };
        let call = Call::from_context(&context, &vars);
        let response = answer_with(&PROBE, &json!({}), &call);
        assert_eq!(response.text, "pi /elsewhere {}");
        assert!(std::ptr::eq(
            call.environment().unwrap(),
            call.environment().unwrap()
        ));
        let bad = ToolContext {
            session_id: Some("a/b".into()),
            ..ToolContext::default()
        };
        let response = answer_with(&PROBE, &json!({}), &Call::from_context(&bad, &vars));
        assert!(response.is_error, "{}", response.text);
    }
}
