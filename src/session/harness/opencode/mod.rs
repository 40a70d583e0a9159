//! OpenCode sessions: its SQLite database (`${XDG_DATA_HOME:-~/.local/share}/opencode/
//! opencode.db`, `OPENCODE_DB`), tables `session`, `message` and `part` (or `session_message`),
//! and its older JSON storage beside it (`storage/`, [`storage`]) (docs/harnesses.md).
//!
//! Both are mirrored first ([`mirror`]): each session becomes a JSONL file of its own records
//! (a session line, then each message followed by its parts), which this reader reads like any
//! other transcript. A session is linear (OpenCode appends; a fork is a new session), but for a
//! pending revert, whose messages are an abandoned branch; a child session (`parent_id`, a
//! `task` tool's subagent) is a session of its own with its parent.
//!
//! A user message's `text` part is a `user` event (a `synthetic` one, which OpenCode or a
//! plugin added, a `context` event); an assistant message's `text` part an `assistant` event,
//! or the compaction's `context` event when the message is a compaction's summary
//! (`summary: true`); a `tool` part a call (`callID`, `tool`, `state.input`) with its result
//! (`state.output`, or `state.error` when it failed) once it completed. `reasoning` parts are
//! never text; every other known part (`step-start`, `step-finish`, `compaction`, `file`,
//! `patch`, `snapshot`, `agent`, `subtask`, `retry`) holds its place as an inert entry, and an
//! unknown one is counted by name.

pub(super) mod mirror;
mod session_message;
mod storage;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::super::record::{intern, is_true, push_atom, span_in, string, PendingEntry, Read};
use super::super::{EntryId, EntryKind, Header, Message, ToolCall};
use super::{AgentConfig, AgentFacts, ContextOutput, Layout};

/// OpenCode names an MCP server's tools `<server>_<tool>` (each with every character but
/// letters, digits, `_` and `-` made `_`); pi-context's plugin (`pi-context setup opencode`)
/// folds the boot into the system prompt of every request of a session (so nothing of it stays
/// in the conversation: a new process boots again), adds the hint to the prompt's message as a
/// synthetic text part (`chat.message`), and hands the compaction's request to
/// `experimental.session.compacting`, whose `context` enters the summary's prompt. Found by
/// running OpenCode 1.18.33 against the lab's model server (docs/agents.md).
pub(super) const AGENT: AgentFacts = AgentFacts {
    agent_name: "opencode",
    mcp_tool: "{server}_{}",
    mcp_server_dash_as_underscore: false,
    precompact_reaches_summary: true,
    prompt_event: "chat.message",
    boot_survives_restart: false,
    context_output: ContextOutput::Plugin,
    config: AgentConfig::OpenCode,
};

/// Where the mirror keeps the sessions: one directory per database.
pub(super) const LAYOUT: Layout = Layout(&["*/*.jsonl"]);

/// The mirror's record types (the marks that recognize an OpenCode session).
pub(super) const RECORD_TYPES: [&str; 3] = [mirror::SESSION, mirror::MESSAGE, mirror::PART];

/// Every part type of OpenCode 1.18 (`MessageV2.Part`); any other is a format change, counted.
const KNOWN_PART_TYPES: [&str; 12] = [
    "text",
    "reasoning",
    "tool",
    "file",
    "step-start",
    "step-finish",
    "snapshot",
    "patch",
    "agent",
    "subtask",
    "retry",
    "compaction",
];

/// The message roles OpenCode writes.
const ROLES: [&str; 2] = ["user", "assistant"];

#[derive(Deserialize)]
struct LineRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    record_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(rename = "parentID", borrow, default)]
    parent_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    directory: Option<&'a RawValue>,
    #[serde(borrow, default)]
    title: Option<&'a RawValue>,
    #[serde(borrow, default)]
    role: Option<&'a RawValue>,
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    part: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MessageRepr<'a> {
    #[serde(borrow, default)]
    role: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct PartRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    part_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    synthetic: Option<&'a RawValue>,
    #[serde(borrow, default)]
    ignored: Option<&'a RawValue>,
    #[serde(rename = "callID", borrow, default)]
    call_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool: Option<&'a RawValue>,
    #[serde(borrow, default)]
    state: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ToolStateRepr<'a> {
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// What the reader remembers between lines: the last entry, the next one's parent (a session
/// is one chain; a line can give two entries, a tool's call and its result), and where a
/// pending revert forked off (the last entry before the messages it hides).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(in crate::session) struct State {
    last: Option<String>,
    lines: u64,
    #[serde(default)]
    fork: Option<String>,
}

/// Reads one line of a mirrored OpenCode session: its entries chained after the last one,
/// each id the record's (`<id>`, then `<id>#1` for a tool's result). The messages after a
/// [`mirror::REVERT`] line are a branch that the [`mirror::REVERTED`] line leaves: its entry
/// goes on from before them, so they are abandoned, never the current branch.
pub(in crate::session) fn read_line(
    state: &mut State,
    line: &str,
    base: usize,
    header: &mut Option<Header>,
    atoms: &mut String,
) -> Read {
    state.lines += 1;
    let mut read = read_record(line, base, header, atoms);
    let marks = serde_json::from_str::<IdRepr>(line).unwrap_or_default();
    match marks.record_type.as_deref() {
        Some(mirror::REVERT) => state.fork = state.last.clone(),
        Some(mirror::REVERTED) => {
            if let Some(fork) = state.fork.take() {
                state.last = Some(fork);
            }
        }
        _ => {}
    }
    if let Read::Entries(entries) | Read::Unknown { entries, .. } = &mut read {
        let record_id = marks.id.unwrap_or_else(|| format!("line:{}", state.lines));
        for (i, entry) in entries.iter_mut().enumerate() {
            let id = match i {
                0 => record_id.clone(),
                _ => format!("{record_id}#{i}"),
            };
            entry.parent_id = state
                .last
                .as_deref()
                .map(|last| EntryId::Atom(push_atom(atoms, last)));
            entry.id = Some(EntryId::Atom(push_atom(atoms, &id)));
            state.last = Some(id);
        }
    }
    read
}

#[derive(Deserialize, Default)]
struct IdRepr {
    #[serde(default)]
    id: Option<String>,
    #[serde(rename = "type", default)]
    record_type: Option<String>,
}

fn read_record(line: &str, base: usize, header: &mut Option<Header>, atoms: &mut String) -> Read {
    if !line.trim_start().starts_with('{') {
        return Read::Malformed;
    }
    let Ok(record) = serde_json::from_str::<LineRepr>(line) else {
        return Read::Malformed;
    };
    let timestamp = record.timestamp.map(|raw| span_in(raw, base));
    let entry = |kind| PendingEntry::ready(None, None, timestamp, kind);
    let record_type = record.record_type.and_then(string).unwrap_or_default();
    match record_type.as_str() {
        mirror::SESSION => {
            learn_session(&record, header);
            Read::Entries(vec![entry(EntryKind::Other)])
        }
        mirror::MESSAGE => {
            let role = record
                .message
                .and_then(|raw| serde_json::from_str::<MessageRepr>(raw.get()).ok())
                .and_then(|m| m.role.and_then(string));
            match role {
                Some(role) if !ROLES.contains(&role.as_str()) => Read::Unknown {
                    record_type: format!("role:{role}"),
                    entries: vec![entry(EntryKind::Other)],
                },
                _ => Read::Entries(vec![entry(EntryKind::Other)]),
            }
        }
        mirror::REVERT => Read::Entries(Vec::new()),
        mirror::REVERTED => Read::Entries(vec![entry(EntryKind::Other)]),
        mirror::PART => {
            let Some(part) = record
                .part
                .and_then(|raw| serde_json::from_str::<PartRepr>(raw.get()).ok())
            else {
                return Read::Entries(vec![entry(EntryKind::Other)]);
            };
            let part_type = part.part_type.and_then(string).unwrap_or_default();
            let kinds = part_kinds(&record, &part, &part_type, base, atoms);
            let entries: Vec<PendingEntry> = if kinds.is_empty() {
                vec![entry(EntryKind::Other)]
            } else {
                kinds.into_iter().map(entry).collect()
            };
            if KNOWN_PART_TYPES.contains(&part_type.as_str()) {
                Read::Entries(entries)
            } else {
                Read::Unknown {
                    record_type: format!("part:{part_type}"),
                    entries,
                }
            }
        }
        _ => Read::Unknown {
            record_type,
            entries: vec![entry(EntryKind::Other)],
        },
    }
}

/// The session line gives the session's id, cwd, title, start and parent.
fn learn_session(record: &LineRepr, header: &mut Option<Header>) {
    let header = header.get_or_insert_with(Header::default);
    header.id = record.id.and_then(string);
    header.cwd = record.directory.and_then(string).filter(|d| !d.is_empty());
    header.name = record.title.and_then(string).filter(|t| !t.is_empty());
    header.timestamp = record.timestamp.and_then(string);
    header.parent_session_id = record.parent_id.and_then(string);
}

/// What a part is in the event model.
fn part_kinds(
    record: &LineRepr,
    part: &PartRepr,
    part_type: &str,
    base: usize,
    atoms: &mut String,
) -> Vec<EntryKind> {
    let role = record.role.map_or("", RawValue::get);
    let text = part
        .text
        .filter(|raw| raw.get().starts_with('"') && raw.get() != "\"\"")
        .map(|raw| span_in(raw, base));
    match part_type {
        "text" if part.ignored.is_some_and(is_true) => Vec::new(),
        "text" if role == "\"user\"" => {
            let message = if part.synthetic.is_some_and(is_true) {
                Message::Custom { content: text }
            } else {
                Message::User { content: text }
            };
            text.map(|_| EntryKind::Message(message))
                .into_iter()
                .collect()
        }
        "text" if record.summary.is_some_and(is_true) => text
            .map(|summary| EntryKind::Compaction {
                summary: Some(summary),
            })
            .into_iter()
            .collect(),
        "text" if role == "\"assistant\"" => text
            .map(|content| {
                EntryKind::Message(Message::Assistant {
                    content: Some(content),
                    tool_calls: Vec::new(),
                    own_event: true,
                })
            })
            .into_iter()
            .collect(),
        "tool" => tool_kinds(part, base, atoms),
        _ => Vec::new(),
    }
}

/// A tool part: its call, and its result once it completed or failed.
fn tool_kinds(part: &PartRepr, base: usize, atoms: &mut String) -> Vec<EntryKind> {
    let state = part
        .state
        .and_then(|raw| serde_json::from_str::<ToolStateRepr>(raw.get()).ok());
    let id = part.call_id.and_then(|raw| intern(atoms, raw));
    let name = part.tool.and_then(|raw| intern(atoms, raw));
    let call = ToolCall {
        id,
        name,
        arguments: state
            .as_ref()
            .and_then(|s| s.input)
            .map(|raw| span_in(raw, base)),
        arguments_in_string: false,
    };
    let mut kinds = vec![EntryKind::Message(Message::Assistant {
        content: None,
        tool_calls: vec![call],
        own_event: false,
    })];
    let status = state
        .as_ref()
        .and_then(|s| s.status)
        .map_or("", RawValue::get);
    let failed = status == "\"error\"";
    let output = state
        .as_ref()
        .and_then(|s| if failed { s.error } else { s.output });
    if failed || status == "\"completed\"" {
        kinds.push(EntryKind::Message(Message::ToolResult {
            tool_call_id: id,
            tool_name: name,
            is_error: failed,
            content: output.map(|raw| span_in(raw, base)),
            output_truncated: false,
            full_output_path: None,
        }));
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(state: &mut State, line: &str) -> Read {
        let mut header = None;
        let mut atoms = String::new();
        let base = line.as_ptr() as usize;
        read_line(state, line, base, &mut header, &mut atoms)
    }

    /// Lines a torn or hostile mirror could hold never panic: not JSON is malformed, a part
    /// whose fields have the wrong shapes is an inert entry that still chains.
    #[test]
    fn hostile_lines_are_malformed_or_inert() {
        let mut state = State::default();
        for line in ["", "not json", "{\"type\":\"opencode.part\"", "[1,2]"] {
            assert!(matches!(read(&mut state, line), Read::Malformed), "{line}");
        }
        for line in [
            r#"{"type":"opencode.part","part":7}"#,
            r#"{"type":"opencode.part","role":"user","part":{"type":"text","text":5}}"#,
            r#"{"type":"opencode.part","part":{"type":"tool","state":"x","callID":[]}}"#,
            r#"{"type":"opencode.message","message":"user"}"#,
        ] {
            match read(&mut state, line) {
                Read::Entries(entries) => assert!(!entries.is_empty(), "{line}"),
                _ => panic!("{line}: not read as entries"),
            }
        }
        assert!(state.last.is_some());
    }

    /// The entries after a revert line are a branch the reverted line leaves: it goes on from
    /// the last entry before them.
    #[test]
    fn a_reverted_line_goes_on_from_before_the_revert() {
        let mut state = State::default();
        let user = r#"{"type":"opencode.message","id":"m1","message":{"role":"user"}}"#;
        let hidden = r#"{"type":"opencode.message","id":"m2","message":{"role":"user"}}"#;
        read(&mut state, user);
        assert!(
            matches!(read(&mut state, r#"{"type":"opencode.revert"}"#), Read::Entries(e) if e.is_empty())
        );
        read(&mut state, hidden);
        assert_eq!(state.last.as_deref(), Some("m2"));
        let Read::Entries(entries) = read(&mut state, r#"{"type":"opencode.reverted"}"#) else {
            panic!("entries");
        };
        assert_eq!(entries.len(), 1);
        assert_eq!(state.last.as_deref(), Some("line:4"));
        assert!(state.fork.is_none());
        // A reverted line without its revert line (a hostile mirror) only chains on.
        read(&mut state, r#"{"type":"opencode.reverted"}"#);
        assert_eq!(state.last.as_deref(), Some("line:5"));
    }

    /// A tool still running is a call without a result; a line of an unknown record type is
    /// counted by its name.
    #[test]
    fn a_running_tool_has_no_result_and_unknown_records_are_counted() {
        let mut state = State::default();
        let running = r#"{"type":"opencode.part","id":"p1","role":"assistant","part":{"type":"tool","callID":"c","tool":"bash","state":{"status":"running","input":{}}}}"#;
        let Read::Entries(entries) = read(&mut state, running) else {
            panic!("entries");
        };
        assert_eq!(entries.len(), 1);
        let Read::Unknown { record_type, .. } = read(&mut state, r#"{"type":"opencode.hint"}"#)
        else {
            panic!("unknown");
        };
        assert_eq!(record_type, "opencode.hint");
    }
}
