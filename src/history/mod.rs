//! The history projection: a session's current branch (of any harness) as context windows and a
//! seq-numbered stream of `user` / `assistant` / `tool` / `context` events.
//!
//! [`History::project`] does the structural work once (seq allocation over the whole file, the
//! branch walk, windows, call/result pairing). Event documents are decoded lazily, so a query
//! only pays for the events it shows or searches.

mod error;
mod page;
mod prefilter;
mod project;
mod read;
mod run;
mod stored;

use serde::Serialize;

pub use error::HistoryError;
pub use page::{Fold, Item, ListParams, Page, Row, SearchParams};
pub use prefilter::{RawScan, Scanner};
pub use project::{
    branch_entries, event_document, root_window_id, Event, EventSource, History, Leaf, Seqs,
    WindowInfo, ROOT_WINDOW_SUFFIX, WINDOW_ID_PREFIX, WINDOW_ID_SESSION_CHARS,
};
pub use read::ReadParams;
pub use run::{with_history, Branch, SessionInput};
pub use stored::ProjectionStore;

/// The four event roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    Tool,
    Context,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::User, Role::Assistant, Role::Tool, Role::Context];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Context => "context",
        }
    }

    /// The names `--role` and the `roles` parameter accept, in [`Role::ALL`] order.
    pub const NAMES: [&'static str; 4] = ["user", "assistant", "tool", "context"];
}

/// A string that names none of the four roles.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown role {0:?}; roles are user, assistant, tool, context")]
pub struct UnknownRole(pub String);

impl std::str::FromStr for Role {
    type Err = UnknownRole;

    fn from_str(s: &str) -> Result<Role, UnknownRole> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRole(s.to_string()))
    }
}

/// The result of `history windows`.
#[derive(Debug, Clone, Serialize)]
pub struct WindowsResult {
    pub session_id: String,
    pub windows: Vec<WindowInfo>,
    /// How many of the newest windows were left out to fit the budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<usize>,
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_lines: usize,
}

/// The result of `history read`: one READ WINDOW over an event's document.
#[derive(Debug, Clone)]
pub struct ReadResult {
    pub seq: u64,
    pub window_id: String,
    pub window: crate::readwindow::ReadWindow,
}

impl ReadResult {
    /// The small fields of a read: which event and the cursors, never the content (a tool
    /// result's `details`, and the `--json` object without its `content`).
    pub fn details(&self) -> serde_json::Value {
        serde_json::json!({
            "seq": self.seq,
            "window_id": self.window_id,
            "offset_chars": self.window.offset_chars,
            "total_chars": self.window.total_chars,
            "next_offset_chars": self.window.next_offset_chars,
        })
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod role_tests {
    use super::Role;

    #[test]
    fn every_role_parses_from_its_name() {
        for (role, name) in Role::ALL.into_iter().zip(Role::NAMES) {
            assert_eq!(role.as_str(), name);
            assert_eq!(name.parse::<Role>(), Ok(role));
        }
        assert_eq!(
            "User".parse::<Role>().unwrap_err().to_string(),
            r#"unknown role "User"; roles are user, assistant, tool, context"#
        );
    }
}
