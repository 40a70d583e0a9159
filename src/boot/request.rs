//! A boot request (what the extension sends when a context window opens) and everything it takes
//! to answer it: the identity from the [`Environment`], one snapshot of the five notes homes, and
//! the project's recent sessions.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{
    render, Boot, BootCheckpoint, Home, HomeKind, HomeState, Identity, Reason, RecentSession,
    Window,
};
use crate::checkpoint::{self, OnBranch};
use crate::environment::{Environment, EnvironmentError, Inputs, Vars};
use crate::history::{Leaf, SessionInput};
use crate::notes::Store;
use crate::recall::ListedSession;

/// The boot request (see `pi-context boot --help`); unknown fields are ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct Request {
    pub reason: String,
    pub session_id: String,
    pub window_id: String,
    #[serde(default)]
    pub previous_window_id: Option<String>,
    pub snapshot_time: String,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub project_key: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub notes_home: Option<PathBuf>,
    /// Pi's `getSessionDir()`, searched for the project's earlier sessions.
    #[serde(default)]
    pub session_dir: Option<PathBuf>,
    /// The live session, as in a tool request's context: its file (`null` while Pi keeps it
    /// only in memory: then `entries`), and the leaf that ends the branch (absent or `null`: the
    /// last entry; `"none"`: an empty branch). The branch's checkpoint opens the block.
    #[serde(default)]
    pub session_file: Option<PathBuf>,
    #[serde(default)]
    pub leaf_id: Option<String>,
    #[serde(default)]
    pub entries: Option<Vec<String>>,
}

/// Why a boot request cannot be answered.
#[derive(Debug, thiserror::Error)]
pub enum BootError {
    #[error("the request on stdin is not a valid boot request")]
    Malformed(#[source] serde_json::Error),
    #[error("unknown boot reason {0:?}")]
    UnknownReason(String),
    #[error("the boot request has an empty {0}")]
    Empty(&'static str),
    #[error("snapshot_time {value:?} is not an RFC 3339 time")]
    SnapshotTime {
        value: String,
        #[source]
        source: jiff::Error,
    },
    #[error(transparent)]
    Environment(#[from] EnvironmentError),
}

/// What `pi-context boot` prints: the block, and (`--json`) what the extension needs with it.
#[derive(Debug, Clone, Serialize)]
pub struct Rendered {
    pub text: String,
    pub window_id: String,
    pub previous_window_id: Option<String>,
    pub reason: &'static str,
    pub homes_unavailable: Vec<&'static str>,
}

impl Request {
    /// Parses one JSON object (an array or a scalar is refused too).
    pub fn parse(text: &str) -> Result<Request, BootError> {
        serde_json::from_str::<serde_json::Value>(text)
            .and_then(|value| match value {
                serde_json::Value::Object(_) => serde_json::from_value(value),
                _ => Err(serde::de::Error::custom("the request is not a JSON object")),
            })
            .map_err(BootError::Malformed)
    }
}

/// A boot refreshes the session index only when little changed (a first build over a large
/// history is left to the first search).
const BOOT_REFRESH_MAX_BYTES: u64 = 16 << 20;

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

/// Everything the boot block of `request` shows. Identity fields the request leaves out fall back
/// like every notes command's ([`Environment`]). When the notes home cannot be resolved, every
/// home is unavailable and the block says `notes_list` can retry.
pub fn prepare(request: Request, vars: &Vars) -> Result<Boot, BootError> {
    let reason = Reason::parse(&request.reason)
        .ok_or_else(|| BootError::UnknownReason(request.reason.clone()))?;
    let session_id = non_empty(Some(request.session_id)).ok_or(BootError::Empty("session_id"))?;
    let current = non_empty(Some(request.window_id)).ok_or(BootError::Empty("window_id"))?;
    let opened_at: jiff::Timestamp =
        request
            .snapshot_time
            .parse()
            .map_err(|source| BootError::SnapshotTime {
                value: request.snapshot_time.clone(),
                source,
            })?;
    let live = LiveSession {
        file: request.session_file.clone(),
        leaf: Leaf::from_wire(request.leaf_id.as_deref()),
        entries: request.entries.clone(),
    };
    let inputs = Inputs {
        notes_home: request.notes_home,
        session_id: Some(session_id.clone()),
        project_key: non_empty(request.project_key),
        cwd: request.cwd,
        agent: non_empty(request.agent),
        model: non_empty(request.model),
        roots: Vec::new(),
        live_session_dir: request.session_dir,
    };
    // A session id that is not a safe directory name leaves the session home unusable, not the
    // whole boot.
    let (env, session_usable) = match Environment::resolve(inputs.clone(), vars) {
        Ok(env) => (env, true),
        Err(EnvironmentError::Identity(_)) => (
            Environment::resolve(
                Inputs {
                    session_id: None,
                    ..inputs
                },
                vars,
            )?,
            false,
        ),
        Err(other) => return Err(other.into()),
    };
    let identity = Identity {
        agent: env.agent.clone(),
        model: env.model.clone(),
        project_key: Some(env.project_key().to_string()),
    };
    // The project's notes move to its remote-based key before the boot shows them (silently:
    // the migration's commit records it).
    env.migrate_project_notes();
    let homes = match env.notes_identity() {
        Ok(notes) if session_usable => super::snapshot(
            &Store::with_clock(notes, env.clock).with_list_cache(env.notes_list_cache()),
        ),
        _ => HomeKind::ALL
            .into_iter()
            .map(|kind| Home {
                kind,
                state: HomeState::Unavailable,
            })
            .collect(),
    };
    let others = other_sessions(&env, &session_id);
    let checkpoint = match live_checkpoints(&env, &live) {
        Ok(branch) => match branch.latest {
            Some(found) => Some(BootCheckpoint {
                found,
                inherited_from: None,
                skipped: branch.malformed,
            }),
            None => inherited_checkpoint(&env, &others),
        },
        // A session that cannot be read may well have a checkpoint: claim neither.
        Err(_) => None,
    };
    let sessions = others
        .into_iter()
        .take(super::RECENT_SESSIONS)
        .map(|s| RecentSession {
            short_id: s.short_id,
            harness: s.harness,
            updated_at: s.updated_at.and_then(|t| t.parse().ok()),
            title: s.name.or(s.first_user_preview),
        })
        .collect();
    Ok(Boot {
        identity,
        window: Window {
            first: super::root_window_id(&session_id),
            current,
            previous: non_empty(request.previous_window_id),
            opened_at,
            reason,
        },
        checkpoint,
        homes,
        sessions,
    })
}

/// The live session a boot belongs to.
struct LiveSession {
    file: Option<PathBuf>,
    leaf: Leaf,
    entries: Option<Vec<String>>,
}

/// At most this many of the project's other sessions, newest first, are looked at for an
/// inherited checkpoint (the boot lists the first [`super::RECENT_SESSIONS`] of them).
const INHERIT_CANDIDATES: usize = 5;

/// The project's most recently updated other sessions; none when the index cannot say.
fn other_sessions(env: &Environment, session_id: &str) -> Vec<ListedSession> {
    let Ok(recall) = env.recall() else {
        return Vec::new();
    };
    recall
        .recent_sessions(
            env.project_key(),
            Some(session_id),
            INHERIT_CANDIDATES.max(super::RECENT_SESSIONS),
            BOOT_REFRESH_MAX_BYTES,
        )
        .unwrap_or_default()
}

/// The checkpoints of the live branch (none when the request names no session, as an older
/// extension's does).
fn live_checkpoints(
    env: &Environment,
    live: &LiveSession,
) -> Result<OnBranch, checkpoint::CheckpointError> {
    let options = env.session_open_options();
    let input = match (&live.file, &live.entries) {
        (Some(path), _) => SessionInput::File {
            path,
            options: &options,
        },
        (None, Some(lines)) => SessionInput::Lines(lines),
        (None, None) => return Ok(OnBranch::default()),
    };
    checkpoint::read_if_any(input, &live.leaf)
}

/// For a branch without a checkpoint: the latest checkpoint of the most recently updated other
/// session of the project that has one, labelled with that session.
fn inherited_checkpoint(env: &Environment, others: &[ListedSession]) -> Option<BootCheckpoint> {
    let options = env.session_open_options();
    let holding = others.iter().filter(|s| s.harness.holds_checkpoints());
    holding.take(INHERIT_CANDIDATES).find_map(|session| {
        let path = std::path::Path::new(&session.session_file);
        let found = checkpoint::latest_in_file(path, &options).ok()?.latest?;
        Some(BootCheckpoint {
            found,
            inherited_from: Some(session.short_id.clone()),
            skipped: 0,
        })
    })
}

impl Boot {
    /// The block and the fields `--json` adds to it.
    pub fn rendered(&self) -> Rendered {
        Rendered {
            text: render(self),
            window_id: self.window.current.clone(),
            previous_window_id: self.window.previous.clone(),
            reason: self.window.reason.as_str(),
            homes_unavailable: self.homes_unavailable(),
        }
    }
}
