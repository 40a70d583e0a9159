//! What the recall facade answers with (`sessions list|search|index`, the tools), and the index
//! view a refresh hands to a search.

use std::collections::BTreeMap;

use serde::Serialize;

use super::store::{Snapshot, Store};
use crate::history::Role;
use crate::session::Harness;

/// Which sessions a list or search covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Sessions of one project key.
    Project(String),
    /// Every session; the current project's (if known) are boosted in search.
    All { current: Option<String> },
}

#[derive(Debug, Clone)]
pub struct ListParams {
    pub scope: Scope,
    pub since_ms: Option<i64>,
    pub limit: usize,
}

#[derive(Debug, Clone)]
pub struct SearchParams {
    pub queries: Vec<String>,
    pub scope: Scope,
    pub since_ms: Option<i64>,
    pub roles: Option<Vec<Role>>,
    pub all_branches: bool,
    pub limit: usize,
    pub hits: usize,
    pub preview_chars: usize,
}

/// A session as `sessions list` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ListedSession {
    pub session_id: String,
    pub harness: Harness,
    pub parent_session_id: Option<String>,
    pub session_file: String,
    pub cwd: Option<String>,
    pub project_key: Option<String>,
    pub name: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    /// `updated_at` is the file's modification time, not an event's: the agent writes no times
    /// (Cursor); shown only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub updated_from_file: bool,
    pub entries: usize,
    pub bytes: u64,
    pub first_user_preview: Option<String>,
    /// The id's shortest unique prefix among every indexed session (at least 8 characters).
    #[serde(skip)]
    pub short_id: String,
    /// The parent's id shown the same way.
    #[serde(skip)]
    pub short_parent_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ListResult {
    pub sessions: Vec<ListedSession>,
    pub more: usize,
    pub indexed_sessions: usize,
    pub stale: bool,
    pub unreadable: usize,
}

/// One hit: an event, with a preview starting shortly before the first match.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub seq: u64,
    pub entry_id: String,
    pub leaf_id: Option<String>,
    pub window_id: String,
    pub role: Role,
    pub created_at: Option<String>,
    pub on_branch: bool,
    pub score: f32,
    pub offset_chars: usize,
    pub content: String,
    pub truncated: bool,
    pub total_chars: usize,
    /// Matches inside `content`, `(start, end)` in code points (for highlighting).
    #[serde(skip)]
    pub highlights: Vec<(usize, usize)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionHits {
    pub session_id: String,
    pub harness: Harness,
    pub parent_session_id: Option<String>,
    pub session_file: String,
    pub cwd: Option<String>,
    pub project_key: Option<String>,
    pub name: Option<String>,
    pub updated_at: Option<String>,
    /// As [`ListedSession::updated_from_file`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub updated_from_file: bool,
    pub score: f32,
    pub hits: Vec<Hit>,
    /// For human output: the first user message.
    #[serde(skip)]
    pub first_user_preview: Option<String>,
    /// The id's shortest unique prefix among every indexed session (at least 8 characters).
    #[serde(skip)]
    pub short_id: String,
    /// The parent's id shown the same way.
    #[serde(skip)]
    pub short_parent_id: Option<String>,
    /// What `history read --session` opens this session by: `short_id` when that names this
    /// file alone, else the file's path.
    #[serde(skip)]
    pub session_arg: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    pub sessions: Vec<SessionHits>,
    pub more: usize,
    pub indexed_sessions: usize,
    pub stale: bool,
    pub unreadable: usize,
    /// How many query alternatives held a secret and were not searched: masking keeps secrets
    /// out of the index, so they cannot be found (docs/recall.md, "Secrets"). Shown only when
    /// some were.
    #[serde(skip_serializing_if = "is_zero")]
    pub secret_queries: usize,
    /// How many session files the refresh before the search looked at (`stat`); only with the
    /// test hook `PI_CONTEXT_RECALL_CHECKS` set (docs/recall.md, "Incremental refresh").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_checked: Option<usize>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What `sessions index` reports.
#[derive(Debug, Clone, Serialize)]
pub struct IndexResult {
    pub sessions: usize,
    pub events: u64,
    pub bytes: u64,
    pub seconds: f64,
    pub unreadable: usize,
    /// Per agent: files read, files that could not be read and why, record types its reader
    /// did not know (docs/recall.md, "Format drift").
    pub agents: Vec<AgentReport>,
    /// Sessions (re)indexed by this run.
    #[serde(skip)]
    pub refreshed: usize,
}

/// One agent's part of an index: what a format change would show up in.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AgentReport {
    pub agent: Harness,
    /// Session files indexed.
    pub files: usize,
    /// Files found in the agent's layout that could not be read, by reason.
    pub unreadable: BTreeMap<String, usize>,
    /// Records of types the reader did not know, by type, summed over its files.
    pub unknown_types: BTreeMap<String, u64>,
    /// Files holding such records.
    pub files_with_unknown_types: usize,
}

/// The index after a refresh: a consistent snapshot (none when no index could be opened).
pub(super) struct View {
    pub store: Option<Store>,
    pub snapshot: Option<Snapshot>,
    pub stale: bool,
    pub unreadable: usize,
    /// How many session files the refresh looked at (`stat`).
    pub checked: usize,
}
