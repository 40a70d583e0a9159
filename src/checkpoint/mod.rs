//! Checkpoints: the task-state handoff that survives a wipe, follows the branch and greets the
//! next session (docs/lifecycle.md, "Checkpoints").
//!
//! A checkpoint is a `custom` entry of type [`CHECKPOINT_TYPE`] on the session's branch. Its
//! `data` is built here (the `checkpoint` tool's handler checks the authored fields and builds
//! it; the extension appends it, since only Pi's hooks write to a session):
//!
//! ```json
//! {"generation": 3, "current": "…", "completed": […], "findings": […], "decisions": […],
//!  "failed_approaches": […], "blockers": […], "verification": […], "next_action": "…",
//!  "activity": {"files": [{"path","tools"}], "files_omitted": 0,
//!               "commands": [{"command","exit_code"}], "commands_omitted": 0}}
//! ```
//!
//! The checkpoint that applies is the latest one on the branch that reads back as one (a
//! malformed entry, for example one edited by hand, is skipped and counted, never fatal). Its
//! generation numbers the checkpoints of the branch: the next one is the latest's plus one.
//!
//! - [`fields`]: the authored fields, their roles and bounds, and their check
//! - [`activity`]: the deterministic facts the extension adds (files, commands)
//! - [`read`] / [`read_if_any`] / [`latest_in_file`]: the applicable checkpoint of a session's
//!   branch
//! - [`render`]: the block the boot shows

pub mod activity;
pub mod fields;
mod render;

use std::path::Path;

use serde::Serialize;
use serde_json::{json, Map, Value};

pub use activity::Activity;
pub use fields::{Authored, FieldsError, Violation};
pub use render::{body, render, Origin};

use crate::history::{branch_entries, HistoryError, Leaf, SessionInput};
use crate::session::{self, EntryKind, OpenOptions, Session};

/// The custom type of a checkpoint entry (a fact shared with the extension).
pub const CHECKPOINT_TYPE: &str = "pi-context/checkpoint";
/// The custom type of the hidden message `/checkpoint` sends to ask the agent for one.
pub const CHECKPOINT_REQUEST_TYPE: &str = "pi-context/checkpoint-request";
/// The name of the tool that writes one (the extension's texts name it).
pub const TOOL_NAME: &str = "checkpoint";

/// One checkpoint: its generation on the branch, what the model wrote, what the extension saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub generation: u64,
    pub authored: Authored,
    pub activity: Activity,
}

impl Checkpoint {
    /// The entry's `data`, fields in a fixed order.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("generation".into(), json!(self.generation));
        map.extend(self.authored.to_json());
        map.insert("activity".into(), json!(self.activity));
        Value::Object(map)
    }

    /// Reads an entry's `data` back; `None` when it is not a checkpoint this binary writes (no
    /// positive generation, a field of the wrong type or outside its bounds).
    pub fn from_json(data: &Value) -> Option<Checkpoint> {
        let object = data.as_object()?;
        let generation = object.get("generation")?.as_u64().filter(|&g| g > 0)?;
        let authored = Authored::from_json(object).ok()?;
        Some(Checkpoint {
            generation,
            authored,
            activity: Activity::from_json(object.get("activity")),
        })
    }
}

impl Serialize for Checkpoint {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// A checkpoint found on a branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    /// The id of its entry.
    pub entry_id: String,
    /// Its entry's timestamp, as written.
    pub saved_at: Option<String>,
    /// The entry's `data`.
    #[serde(rename = "data")]
    pub checkpoint: Checkpoint,
}

impl Found {
    /// When it was saved, when its timestamp is a time.
    pub fn saved_time(&self) -> Option<jiff::Timestamp> {
        self.saved_at.as_deref().and_then(|t| t.parse().ok())
    }
}

/// The checkpoints of one branch, as far as they matter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OnBranch {
    /// The session's id, from its header.
    pub session_id: Option<String>,
    /// The applicable checkpoint: the latest on the branch that reads back as one.
    pub latest: Option<Found>,
    /// Checkpoint entries after it (newer) that could not be read and were skipped.
    pub malformed: usize,
}

impl OnBranch {
    /// The generation the next checkpoint of this branch gets.
    pub fn next_generation(&self) -> u64 {
        self.latest
            .as_ref()
            .map_or(1, |found| found.checkpoint.generation.saturating_add(1))
    }
}

/// What `pi-context checkpoint show` reports: the session read and its branch's checkpoint.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    pub session_file: String,
    pub session_id: Option<String>,
    /// The leaf that ends the branch, as given (`null`: the last entry).
    pub leaf_id: Option<String>,
    /// The applicable checkpoint; `null` when the branch has none.
    pub checkpoint: Option<Found>,
    /// Newer checkpoint entries of the branch that could not be read and were skipped.
    pub malformed: usize,
}

/// Why checkpoints cannot be read or a checkpoint cannot be accepted.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// A parameter of the wrong type or an unknown one.
    #[error("{0}")]
    InvalidParams(String),
    /// Authored fields outside their bounds (every one is listed; none is echoed).
    #[error("{}", fields::refusal_message(.0))]
    OutOfBounds(Vec<Violation>),
    /// The session could not be read, or the leaf is not in it.
    #[error(transparent)]
    History(#[from] HistoryError),
}

impl From<session::SessionError> for CheckpointError {
    fn from(e: session::SessionError) -> Self {
        CheckpointError::History(e.into())
    }
}

impl From<FieldsError> for CheckpointError {
    fn from(e: FieldsError) -> Self {
        match e {
            FieldsError::Type(message) => CheckpointError::InvalidParams(message),
            FieldsError::OutOfBounds(violations) => CheckpointError::OutOfBounds(violations),
        }
    }
}

impl CheckpointError {
    /// The stable code of the refusal on the wire.
    pub fn code(&self) -> &'static str {
        match self {
            CheckpointError::InvalidParams(_) => "invalid_params",
            CheckpointError::OutOfBounds(_) => "checkpoint_out_of_bounds",
            CheckpointError::History(e) => e.code(),
        }
    }

    /// Flat snake_case details for the wire: `violations` (path, size, unit, min, max).
    pub fn details(&self) -> Map<String, Value> {
        match self {
            CheckpointError::OutOfBounds(violations) => {
                let mut map = Map::new();
                map.insert("violations".into(), json!(violations));
                map
            }
            CheckpointError::History(e) => e.details(),
            CheckpointError::InvalidParams(_) => Map::new(),
        }
    }
}

/// The checkpoints of the branch of `session` that ends at `leaf`.
pub fn on_branch(session: &Session, leaf: &Leaf) -> Result<OnBranch, HistoryError> {
    let mut result = OnBranch {
        session_id: session.id().map(str::to_string),
        ..OnBranch::default()
    };
    for index in branch_entries(session, leaf)?.into_iter().rev() {
        let entry = &session.entries[index];
        let EntryKind::Custom {
            custom_type: Some(custom_type),
            ..
        } = &entry.kind
        else {
            continue;
        };
        if session.str(*custom_type) != CHECKPOINT_TYPE {
            continue;
        }
        match entry_checkpoint(session, index) {
            Some(checkpoint) => {
                result.latest = Some(Found {
                    entry_id: session.entry_id(&entry.id).into_owned(),
                    saved_at: session.timestamp(entry),
                    checkpoint,
                });
                break;
            }
            None => result.malformed += 1,
        }
    }
    Ok(result)
}

/// The checkpoint in the `data` of the entry at `index`, when it reads back as one.
fn entry_checkpoint(session: &Session, index: usize) -> Option<Checkpoint> {
    let line = session.raw(session.entries[index].span);
    let entry: Value = serde_json::from_str(&line).ok()?;
    Checkpoint::from_json(entry.get("data")?)
}

/// The checkpoints of a session's branch, read consistently (a file rewritten while it is read
/// is read again, as `history` does).
pub fn read(input: SessionInput, leaf: &Leaf) -> Result<OnBranch, CheckpointError> {
    match input {
        SessionInput::File { path, options } => Ok(session::read_consistently(path, |file| {
            on_branch(&file.session(options), leaf)
        })?),
        SessionInput::Lines(lines) => Ok(on_branch(&Session::from_lines(lines), leaf)?),
    }
}

/// Like [`read`], for the boot: a session file whose bytes never hold a checkpoint entry's type
/// is not parsed (it has no checkpoint on any branch, so its leaf is not checked either).
pub fn read_if_any(input: SessionInput, leaf: &Leaf) -> Result<OnBranch, CheckpointError> {
    match input {
        SessionInput::File { path, options } => Ok(session::read_consistently(path, |file| {
            if !mentions_checkpoint(file.bytes()) {
                return Ok(OnBranch::default());
            }
            on_branch(&file.session(options), leaf)
        })?),
        lines => read(lines, leaf),
    }
}

/// The checkpoint that applies where a session file ends (the branch of its last entry: where
/// Pi resumes it). A file without a checkpoint entry is not parsed.
pub fn latest_in_file(path: &Path, options: &OpenOptions) -> Result<OnBranch, CheckpointError> {
    read_if_any(SessionInput::File { path, options }, &Leaf::Last)
}

/// Whether the bytes hold a checkpoint entry's type as a JSON string (`"pi-context/checkpoint"`,
/// which the type of `/checkpoint`'s request does not match). A type written with escapes
/// (`\/`, `\u…`) would be missed; Pi's JSON escapes neither.
fn mentions_checkpoint(bytes: &[u8]) -> bool {
    let needle = format!("\"{CHECKPOINT_TYPE}\"");
    memchr::memmem::find(bytes, needle.as_bytes()).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> Value {
        json!({
            "generation": 2,
            "current": "c",
            "next_action": "n",
            "findings": ["f"],
            "activity": {"files": [{"path": "a", "tools": ["edit"]}]}
        })
    }

    #[test]
    fn data_round_trips() {
        let checkpoint = Checkpoint::from_json(&data()).unwrap();
        assert_eq!(checkpoint.generation, 2);
        assert_eq!(checkpoint.authored.findings, ["f"]);
        assert_eq!(
            Checkpoint::from_json(&checkpoint.to_json()),
            Some(checkpoint)
        );
    }

    #[test]
    fn malformed_data_is_no_checkpoint() {
        let mut cases = vec![json!(null), json!([]), json!("x")];
        for (key, value) in [
            ("generation", json!(0)),
            ("generation", json!("2")),
            ("current", json!(7)),
            ("current", json!("")),
            ("findings", json!("not a list")),
            ("next_action", json!("n".repeat(3000))),
        ] {
            let mut d = data();
            d[key] = value;
            cases.push(d);
        }
        let mut without = data();
        without.as_object_mut().unwrap().remove("generation");
        cases.push(without);
        for case in cases {
            assert_eq!(Checkpoint::from_json(&case), None, "{case}");
        }
    }

    #[test]
    fn only_the_entry_type_as_a_string_counts_as_a_mention() {
        assert!(mentions_checkpoint(
            br#"{"type":"custom","customType":"pi-context/checkpoint","data":{}}"#
        ));
        assert!(!mentions_checkpoint(
            br#"{"customType":"pi-context/checkpoint-request"} checkpoint"#
        ));
    }

    #[test]
    fn generations_follow_the_latest() {
        assert_eq!(OnBranch::default().next_generation(), 1);
        let found = Found {
            entry_id: "e".into(),
            saved_at: None,
            checkpoint: Checkpoint::from_json(&data()).unwrap(),
        };
        let branch = OnBranch {
            latest: Some(found),
            ..OnBranch::default()
        };
        assert_eq!(branch.next_generation(), 3);
    }
}
