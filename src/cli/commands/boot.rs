//! `pi-context boot`: renders the boot block for a fresh context window.
//!
//! Reads one JSON object on stdin (the boot request, `docs/protocol.md` "Boot"), takes one
//! snapshot of the five notes homes, and prints the boot block (`pi_context::boot`) with no colors.
//! `--json` prints `{"text","window_id","previous_window_id","reason","homes_unavailable"}`.

use std::io::Read;
use std::path::PathBuf;

use clap::Args;
use serde::Deserialize;

use pi_context::boot::{self, Boot, Home, HomeKind, HomeState, Identity, Reason, Window};
use pi_context::notes::{model_slug, slugify, IdentityInput, Store};

use crate::cli::error::{exit, CommandError, Outcome};
use crate::cli::ui::Ui;

/// Render the boot block for a fresh context window from a JSON request on stdin
#[derive(Debug, Args)]
#[command(after_long_help = REQUEST_HELP)]
pub struct BootArgs {
    /// Print {"text","window_id","previous_window_id","reason","homes_unavailable"} instead of the text
    #[arg(long)]
    json: bool,
}

const REQUEST_HELP: &str = r#"The request on stdin (one JSON object):
  {"reason": "session_start"|"wipe_memory"|"manual"|"budget"|"hard_reserve"|"overflow"|"repair",
   "session_id": "…", "window_id": "pcw:…", "previous_window_id": "pcw:…"|null,
   "snapshot_time": "<RFC 3339>",
   "cwd": "<dir>"|null, "project_key": "<key>"|null,
   "agent": "<name>"|null, "model": "<provider/id>"|null, "notes_home": "<dir>"|null,
   "session_dir": "<dir>"|null}
Unset identity fields fall back like every notes command: PI_NOTES_AGENT, PI_CONTEXT_MODEL,
PI_NOTES_HOME, the project key of cwd (else of the current directory)."#;

/// The boot request (see `REQUEST_HELP`); unknown fields are ignored.
#[derive(Debug, Deserialize)]
struct Request {
    reason: String,
    session_id: String,
    window_id: String,
    #[serde(default)]
    previous_window_id: Option<String>,
    snapshot_time: String,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default)]
    project_key: Option<String>,
    #[serde(default)]
    agent: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    notes_home: Option<PathBuf>,
    /// Pi's `getSessionDir()`, searched for the project's earlier sessions.
    #[serde(default)]
    session_dir: Option<PathBuf>,
}

pub fn run(args: BootArgs, ui: &mut Ui) -> Result<u8, Outcome> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| CommandError::io("cannot read the boot request from stdin", e))?;
    let request: Request = serde_json::from_str::<serde_json::Value>(&input)
        .and_then(|value| match value {
            serde_json::Value::Object(_) => serde_json::from_value(value),
            _ => Err(serde::de::Error::custom("the request is not a JSON object")),
        })
        .map_err(|e| {
            CommandError::usage("the request on stdin is not a valid boot request")
                .with_cause(e)
                .with_hint("see `pi-context boot --help` for the request's fields")
        })?;
    let boot = prepare(request)?;
    let text = boot::render(&boot);
    if args.json {
        let value = serde_json::json!({
            "text": text,
            "window_id": boot.window.current,
            "previous_window_id": boot.window.previous,
            "reason": boot.window.reason.as_str(),
            "homes_unavailable": boot.homes_unavailable(),
        });
        serde_json::to_writer(ui.out(), &value).map_err(std::io::Error::from)?;
        writeln!(ui.out())?;
    } else {
        writeln!(ui.out(), "{text}")?;
    }
    Ok(exit::SUCCESS)
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

fn prepare(request: Request) -> Result<Boot, CommandError> {
    let reason = Reason::parse(&request.reason).ok_or_else(|| {
        CommandError::usage(format!("unknown boot reason {:?}", request.reason))
            .with_hint(format!("reasons: {}", Reason::NAMES.join(", ")))
    })?;
    let session_id = non_empty(Some(request.session_id))
        .ok_or_else(|| CommandError::usage("the boot request has an empty session_id"))?;
    let current = non_empty(Some(request.window_id))
        .ok_or_else(|| CommandError::usage("the boot request has an empty window_id"))?;
    let opened_at: jiff::Timestamp = request.snapshot_time.parse().map_err(|e| {
        CommandError::usage(format!(
            "snapshot_time {:?} is not an RFC 3339 time",
            request.snapshot_time
        ))
        .with_cause(e)
    })?;
    let session_dir = request.session_dir.clone();
    let input_cwd = request.cwd.clone();
    let input = IdentityInput {
        notes_home: request.notes_home,
        session_id: Some(session_id.clone()),
        project_key: non_empty(request.project_key),
        cwd: request.cwd.clone(),
        agent: non_empty(request.agent),
        model: non_empty(request.model),
    }
    .with_env_defaults();
    let fallback = Identity {
        agent: slugify(input.agent.as_deref().unwrap_or("anonymous")),
        model: input
            .model
            .as_deref()
            .map_or_else(|| "default".to_string(), model_slug),
        project_key: input.project_key.clone(),
    };
    let window = Window {
        first: boot::root_window_id(&session_id),
        current,
        previous: non_empty(request.previous_window_id),
        opened_at,
        reason,
    };
    // One snapshot of the five homes. When the identity cannot be resolved (no notes home, an
    // unusable session id), every home is unavailable and the boot says notes_list can retry.
    let (identity, homes) = match input.resolve() {
        Ok(resolved) => {
            let identity = Identity {
                agent: resolved.agent.clone(),
                model: resolved.model.clone(),
                project_key: Some(resolved.project_key.clone()),
            };
            (identity, boot::snapshot(&Store::new(resolved)))
        }
        Err(_) => {
            let homes = HomeKind::ALL
                .into_iter()
                .map(|kind| Home {
                    kind,
                    state: HomeState::Unavailable,
                })
                .collect();
            (fallback, homes)
        }
    };
    let sessions = identity
        .project_key
        .as_deref()
        .map(|key| recent_sessions(key, &session_id, input_cwd.as_deref(), session_dir))
        .unwrap_or_default();
    Ok(Boot {
        identity,
        window,
        homes,
        sessions,
    })
}

/// A boot refreshes the session index only when little changed (a first build over a large
/// history is left to the first search).
const BOOT_REFRESH_MAX_BYTES: u64 = 16 << 20;

/// The project's most recently updated other sessions; none when the index cannot say.
fn recent_sessions(
    project_key: &str,
    session_id: &str,
    cwd: Option<&std::path::Path>,
    session_dir: Option<PathBuf>,
) -> Vec<boot::RecentSession> {
    let cwd = cwd
        .map(std::path::Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let Ok(recall) = crate::cli::config::recall_at(&[], &cwd, session_dir) else {
        return Vec::new();
    };
    let listed = recall
        .recent_sessions(
            project_key,
            Some(session_id),
            boot::RECENT_SESSIONS,
            BOOT_REFRESH_MAX_BYTES,
        )
        .unwrap_or_default();
    listed
        .into_iter()
        .map(|s| boot::RecentSession {
            short_id: s.short_id,
            updated_at: s.updated_at.and_then(|t| t.parse().ok()),
            title: s.name.or(s.first_user_preview),
        })
        .collect()
}
