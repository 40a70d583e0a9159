//! Which agent wrote a transcript, and the one place each format's line reader is chosen.
//!
//! Every format turns its lines into the same [`Entry`](super::Entry) values (kinds, byte
//! spans, ids and parents), so that `history`, the stored projection, the search prefilter and
//! the recall index read a Claude Code or Codex transcript exactly as they read a Pi session.
//! The format is recognized from the file's first records, never from its path: the first
//! line that is a JSON object with a decisive mark ([`detect_line`]) decides, and lines before
//! it (none in a real file) are read as Pi reads them.
//!
//! Adding a harness is one file here (its line reader and its marks) and a variant of
//! [`Harness`] and [`Reader`]; nothing above `session` changes (docs/architecture.md).

pub(super) mod claude;
pub(super) mod codex;

use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The agent that wrote a session file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Harness {
    /// Pi (the default: a file nothing marks as another format reads as Pi's).
    #[default]
    Pi,
    /// Claude Code (`~/.claude/projects/<enc-cwd>/<uuid>.jsonl`).
    Claude,
    /// OpenAI Codex CLI (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`).
    Codex,
}

impl Harness {
    /// Every harness, in the order the wire lists them.
    pub const ALL: [Harness; 3] = [Harness::Pi, Harness::Claude, Harness::Codex];
    /// The wire names (`harness` in results and tool parameters).
    pub const NAMES: [&'static str; 3] = ["pi", "claude", "codex"];

    pub fn as_str(self) -> &'static str {
        match self {
            Harness::Pi => "pi",
            Harness::Claude => "claude",
            Harness::Codex => "codex",
        }
    }
}

impl std::fmt::Display for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown harness name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown harness {0:?} (expected pi, claude or codex)")]
pub struct UnknownHarness(pub String);

impl FromStr for Harness {
    type Err = UnknownHarness;

    fn from_str(name: &str) -> Result<Harness, UnknownHarness> {
        Harness::ALL
            .into_iter()
            .find(|h| h.as_str() == name)
            .ok_or_else(|| UnknownHarness(name.to_string()))
    }
}

/// How many leading bytes [`detect`] looks at: a decisive record is the first or second line
/// of every real transcript, but a Pi header or a Claude summary line can be long.
pub const DETECT_BYTES: usize = 1 << 20;

/// The harness of a transcript from its first bytes (at most [`DETECT_BYTES`] are read): the
/// first line that [`detect_line`] decides; Pi when none does (an empty or missing file, or
/// garbage).
pub fn detect(bytes: &[u8]) -> Harness {
    let head = &bytes[..bytes.len().min(DETECT_BYTES)];
    head.split(|&b| b == b'\n')
        .filter_map(|line| std::str::from_utf8(line).ok())
        .find_map(detect_line)
        .unwrap_or_default()
}

/// The harness of the file at `path`, from its first bytes (see [`detect`]). A file that
/// cannot be read is Pi's, as a missing session is an empty Pi session.
pub fn detect_file(path: &Path) -> Harness {
    use std::io::Read;
    let Ok(file) = super::file::open_for_detection(path) else {
        return Harness::Pi;
    };
    let mut head = Vec::new();
    match file.take(DETECT_BYTES as u64).read_to_end(&mut head) {
        Ok(_) => detect(&head),
        Err(_) => Harness::Pi,
    }
}

/// The fields that mark a record's format.
#[derive(Deserialize)]
struct MarksRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    record_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uuid: Option<&'a RawValue>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<&'a RawValue>,
}

/// The harness one line marks, if any: a Pi header or entry type; a Codex rollout item (a
/// `type` of its own with a `payload`); a Claude record (a `type` of its own, or a `uuid` or
/// `sessionId`). Anything else (not an object, an unknown type) decides nothing.
pub fn detect_line(line: &str) -> Option<Harness> {
    if !line.trim_start().starts_with('{') {
        return None;
    }
    let marks: MarksRepr = serde_json::from_str(line).ok()?;
    let record_type = marks
        .record_type
        .and_then(|raw| raw.get().strip_prefix('"')?.strip_suffix('"'))
        .unwrap_or("");
    if codex::RECORD_TYPES.contains(&record_type) && marks.payload.is_some() {
        return Some(Harness::Codex);
    }
    if PI_ENTRY_TYPES.contains(&record_type) {
        return Some(Harness::Pi);
    }
    if claude::RECORD_TYPES.contains(&record_type)
        || marks.uuid.is_some()
        || marks.session_id.is_some()
    {
        return Some(Harness::Claude);
    }
    None
}

/// The entry types Pi writes (research/history.md §1), its header's included.
const PI_ENTRY_TYPES: [&str; 10] = [
    "session",
    "message",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "model_change",
    "thinking_level_change",
    "label",
    "session_info",
];

/// The line reader of a file being parsed, with what it must remember between lines (saved
/// in the session index, so that an append is read as a whole read would read it).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) enum Reader {
    /// No line has decided the format yet; lines are read as Pi reads them.
    #[default]
    Undecided,
    Pi,
    Claude(claude::State),
    Codex(codex::State),
}

impl Reader {
    /// The reader for a harness, before its first line.
    pub(super) fn new(harness: Harness) -> Reader {
        match harness {
            Harness::Pi => Reader::Pi,
            Harness::Claude => Reader::Claude(claude::State::default()),
            Harness::Codex => Reader::Codex(codex::State::default()),
        }
    }

    /// Whether entries form one chain in file order under synthetic ids (a Codex rollout); Pi
    /// decides this from its header's version instead.
    pub(super) fn is_linear(&self) -> bool {
        matches!(self, Reader::Codex(_))
    }

    pub(super) fn harness(&self) -> Harness {
        match self {
            Reader::Undecided | Reader::Pi => Harness::Pi,
            Reader::Claude(_) => Harness::Claude,
            Reader::Codex(_) => Harness::Codex,
        }
    }
}

/// What a session learns from its file's path: a Codex rollout without a `session_meta` takes
/// its id from the uuid in its file name (`rollout-<time>-<uuid>.jsonl`).
pub(super) fn complete_from_path(session: &mut super::Session, path: &Path) {
    if session.harness != Harness::Codex || session.id().is_some() {
        return;
    }
    if let Some(id) = codex::id_from_file_name(path) {
        session.header.get_or_insert_with(Default::default).id = Some(id);
    }
}
