//! OpenAI Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`
//! (docs/harnesses.md).
//!
//! A rollout is linear: each entry's parent is the entry before it. Each line is
//! `{"timestamp","type","payload"}`. Roled `response_item` messages are user and assistant
//! events (the harness's own instructions and environment context, and developer or system
//! messages, are `context` events); `function_call`, `custom_tool_call` and `local_shell_call`
//! are tool calls paired with their outputs by `call_id`; `compacted` is a `context` event (the
//! model's reply that produced its summary, marked `metadata.compaction_output`, is skipped);
//! `reasoning` is never text. `event_msg` turns are read only until the first roled
//! `response_item` (older rollouts have none), and a roled message that is the twin of such an
//! event read before it makes no entry, so nothing is counted twice. The first `session_meta`
//! gives the session's id, cwd and start.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::super::record::{intern, push_atom, span_in, string, PendingEntry, Read};
use super::super::{EntryKind, Header, Message, Span, ToolCall};
use super::{AgentConfig, AgentFacts, ContextOutput, Layout};

/// Where Codex's rollouts are under its home: `sessions/YYYY/MM/DD/` and `archived_sessions/`.
pub(super) const LAYOUT: Layout = Layout(&[
    "sessions/*/*/*/rollout-*.jsonl",
    "archived_sessions/rollout-*.jsonl",
]);

/// Codex offers an MCP server's tools as one namespace (`mcp__pi_context`: the server's name
/// with `-` as `_`) holding each tool by its own name; no `PreCompact` output reaches its model.
pub(super) const AGENT: AgentFacts = AgentFacts {
    agent_name: "codex",
    mcp_tool: "mcp__{server}.{}",
    mcp_server_dash_as_underscore: true,
    prompt_event: "UserPromptSubmit",
    precompact_reaches_summary: false,
    boot_survives_restart: true,
    context_output: ContextOutput::HookSpecific,
    config: AgentConfig::Codex,
};

/// The rollout item types Codex writes (each with a `payload`).
pub(super) const RECORD_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// What the reader remembers between lines.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(in crate::session) struct State {
    /// A `session_meta` was read: later ones are ignored.
    meta_seen: bool,
    /// A roled `response_item` was read: `event_msg` turns from here on duplicate them.
    roled_seen: bool,
    /// The last few `event_msg` turns read before the first roled item that no roled message
    /// has matched yet, oldest first: older rollouts wrote a turn's event before its roled
    /// twin, which then makes no entry.
    copies: Vec<EventCopy>,
}

/// An `event_msg` turn, as its roled twin is recognized: its role and a hash of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct EventCopy {
    assistant: bool,
    text_hash: u64,
}

/// How many unmatched event copies the reader remembers (a twin follows its copy closely).
const COPIES: usize = 8;

#[derive(Deserialize)]
struct RecordRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    record_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    #[serde(borrow, default)]
    metadata: Option<&'a RawValue>,
}

/// The item metadata Codex writes beside a `response_item`.
#[derive(Deserialize)]
struct MetadataRepr {
    /// The model's reply to a compaction request: its text is the summary the `compacted` item
    /// that follows holds again.
    #[serde(default)]
    compaction_output: bool,
}

#[derive(Deserialize)]
struct PayloadRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    item_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    role: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    /// The tool namespace of a call (an MCP server's tools: `mcp__pi_context`).
    #[serde(borrow, default)]
    namespace: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
    #[serde(borrow, default)]
    call_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    session_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cwd: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct OutputRepr<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct PartRepr {
    #[serde(default)]
    text: Option<serde_json::Value>,
}

/// Text that opens a user message Codex writes itself: project instructions (AGENTS.md) and
/// the environment context it sends with every turn.
const HARNESS_MARKERS: [&str; 4] = [
    "<user_instructions>",
    "<environment_context>",
    "# AGENTS.md instructions for ",
    "<INSTRUCTIONS>",
];

/// Reads one line of a Codex rollout.
pub(in crate::session) fn read_line(
    state: &mut State,
    line: &str,
    base: usize,
    header: &mut Option<Header>,
    atoms: &mut String,
) -> Read {
    if !line.trim_start().starts_with('{') {
        return Read::Malformed;
    }
    let Ok(record) = serde_json::from_str::<RecordRepr>(line) else {
        return if serde_json::from_str::<serde::de::IgnoredAny>(line).is_ok() {
            Read::Entries(Vec::new())
        } else {
            Read::Malformed
        };
    };
    let payload = record
        .payload
        .filter(|raw| raw.get().starts_with('{'))
        .and_then(|raw| serde_json::from_str::<PayloadRepr>(raw.get()).ok());
    let Some(payload) = payload else {
        return Read::Entries(Vec::new());
    };
    let timestamp = record.timestamp.map(|raw| span_in(raw, base));
    let span = |raw: &RawValue| span_in(raw, base);
    let kind = match record.record_type.map_or("", RawValue::get) {
        "\"session_meta\"" => {
            learn_session(state, &payload, record.timestamp, header);
            None
        }
        "\"response_item\"" if is_compaction_output(record.metadata) => None,
        "\"response_item\"" => response_item(state, &payload, &span, atoms),
        "\"compacted\"" => Some(EntryKind::Compaction {
            summary: payload.message.map(span),
        }),
        "\"event_msg\"" if !state.roled_seen => event_message(state, &payload, &span),
        _ => None,
    };
    let entries = kind
        .map(|kind| PendingEntry::ready(None, None, timestamp, kind))
        .into_iter()
        .collect();
    match unknown_type(record.record_type, &payload) {
        Some(record_type) => Read::Unknown {
            record_type,
            entries,
        },
        None => Read::Entries(entries),
    }
}

/// The rollout item types Codex writes that are read or deliberately left out (state, usage
/// and UI records: docs/harnesses.md); any other is a format change, counted by name.
const KNOWN_TYPES: [&str; 15] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "token_usage_record",
    "world_state",
    "dynamic_tools_updated",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
    "security_risk_score",
    "realtime_item",
    "replacement_history",
    "replacement_history_metadata",
    "mcp_resource_origins",
];

/// The `response_item` payload types read or deliberately left out.
const KNOWN_ITEMS: [&str; 12] = [
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "reasoning",
    "web_search_call",
    "compaction",
    "image_generation_call",
    "tool_search_call",
];

/// The name of an item this reader does not know (`response_item:<type>` for an unknown
/// payload of a known item).
fn unknown_type(record_type: Option<&RawValue>, payload: &PayloadRepr) -> Option<String> {
    let record_type = record_type.and_then(string)?;
    if !KNOWN_TYPES.contains(&record_type.as_str()) {
        return Some(record_type);
    }
    if record_type != "response_item" {
        return None;
    }
    let item = payload.item_type.and_then(string)?;
    (!KNOWN_ITEMS.contains(&item.as_str())).then(|| format!("response_item:{item}"))
}

/// Whether an item is the reply to a compaction request (`metadata.compaction_output`): the
/// summary is the `compacted` item's one context event, not also an assistant reply.
fn is_compaction_output(metadata: Option<&RawValue>) -> bool {
    metadata
        .filter(|raw| raw.get().starts_with('{'))
        .and_then(|raw| serde_json::from_str::<MetadataRepr>(raw.get()).ok())
        .is_some_and(|m| m.compaction_output)
}

/// The first `session_meta` gives id (`id`, older files `session_id`), cwd and start.
fn learn_session(
    state: &mut State,
    payload: &PayloadRepr,
    record_timestamp: Option<&RawValue>,
    header: &mut Option<Header>,
) {
    if std::mem::replace(&mut state.meta_seen, true) {
        return;
    }
    let header = header.get_or_insert_with(Header::default);
    header.id = payload.id.or(payload.session_id).and_then(string);
    header.cwd = payload.cwd.and_then(string);
    header.timestamp = payload.timestamp.or(record_timestamp).and_then(string);
}

fn response_item(
    state: &mut State,
    payload: &PayloadRepr,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> Option<EntryKind> {
    match payload.item_type.map_or("", RawValue::get) {
        "\"message\"" => {
            let role = payload.role.and_then(string)?;
            state.roled_seen = true;
            if is_twin_of_a_copy(state, &role, payload.content) {
                return None;
            }
            let content = payload.content.map(span);
            Some(EntryKind::Message(match role.as_str() {
                "user" if !is_harness_text(payload.content) => Message::User { content },
                "assistant" => Message::Assistant {
                    content,
                    tool_calls: Vec::new(),
                    own_event: true,
                },
                "user" | "developer" | "system" => Message::Custom { content },
                _ => return None,
            }))
        }
        "\"function_call\"" => call(payload, payload.name, payload.arguments, span, atoms),
        "\"custom_tool_call\"" => call(payload, payload.name, payload.input, span, atoms),
        "\"local_shell_call\"" => {
            let name = push_atom(atoms, "local_shell");
            let mut kind = call(payload, None, payload.action, span, atoms)?;
            if let EntryKind::Message(Message::Assistant { tool_calls, .. }) = &mut kind {
                tool_calls[0].name = Some(name);
            }
            Some(kind)
        }
        "\"function_call_output\""
        | "\"custom_tool_call_output\""
        | "\"local_shell_call_output\"" => Some(EntryKind::Message(Message::ToolResult {
            tool_call_id: call_id(payload, atoms),
            tool_name: None,
            is_error: false,
            content: output(payload.output).map(span),
            output_truncated: false,
            full_output_path: None,
        })),
        _ => None,
    }
}

/// A tool call record: an assistant message of one call and no text of its own.
fn call(
    payload: &PayloadRepr,
    name: Option<&RawValue>,
    arguments: Option<&RawValue>,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> Option<EntryKind> {
    let name = match (payload.namespace.and_then(string), name.and_then(string)) {
        // An MCP tool is named as the model called it: `<namespace>.<tool>`.
        (Some(namespace), Some(name)) => Some(push_atom(atoms, &format!("{namespace}.{name}"))),
        _ => name.and_then(|raw| intern(atoms, raw)),
    };
    let call = ToolCall {
        id: call_id(payload, atoms),
        name,
        arguments: arguments.map(span),
        arguments_in_string: arguments.is_some_and(|raw| raw.get().starts_with('"')),
    };
    Some(EntryKind::Message(Message::Assistant {
        content: None,
        tool_calls: vec![call],
        own_event: false,
    }))
}

fn call_id(payload: &PayloadRepr, atoms: &mut String) -> Option<super::super::Atom> {
    payload
        .call_id
        .filter(|raw| raw.get().starts_with('"'))
        .or(payload.id)
        .and_then(|raw| intern(atoms, raw))
}

/// A tool output's text: a string, an array of content items, or (some versions) an object
/// holding its `content`.
fn output(raw: Option<&RawValue>) -> Option<&RawValue> {
    let raw = raw?;
    if !raw.get().starts_with('{') {
        return Some(raw);
    }
    serde_json::from_str::<OutputRepr>(raw.get()).ok()?.content
}

/// An `event_msg` of an older rollout: the user's and the agent's turns. Each is remembered,
/// so that its roled twin, when one follows, is not read as a turn of its own.
fn event_message(
    state: &mut State,
    payload: &PayloadRepr,
    span: &impl Fn(&RawValue) -> Span,
) -> Option<EntryKind> {
    let content = payload.message.map(span);
    let message = match payload.item_type.map_or("", RawValue::get) {
        "\"user_message\"" => Message::User { content },
        "\"agent_message\"" => Message::Assistant {
            content,
            tool_calls: Vec::new(),
            own_event: true,
        },
        _ => return None,
    };
    let copy = EventCopy {
        assistant: matches!(message, Message::Assistant { .. }),
        text_hash: text_hash(&payload.message.map(message_text).unwrap_or_default()),
    };
    if state.copies.len() == COPIES {
        state.copies.remove(0);
    }
    state.copies.push(copy);
    Some(EntryKind::Message(message))
}

/// Whether a roled user or assistant message is the twin of an event copy read before it
/// (then it is consumed). The first roled turn that matches none ends the twins: a copy is
/// never matched by a later turn that only says the same words.
fn is_twin_of_a_copy(state: &mut State, role: &str, content: Option<&RawValue>) -> bool {
    if state.copies.is_empty() {
        return false;
    }
    let assistant = match role {
        "assistant" => true,
        "user" if !is_harness_text(content) => false,
        _ => return false,
    };
    let copy = EventCopy {
        assistant,
        text_hash: text_hash(&content.map(message_text).unwrap_or_default()),
    };
    match state.copies.iter().position(|c| *c == copy) {
        Some(i) => {
            state.copies.remove(i);
            true
        }
        None => {
            state.copies.clear();
            false
        }
    }
}

/// The text of a message: a string, or its text parts joined by newlines, as its document
/// shows it.
fn message_text(raw: &RawValue) -> String {
    if raw.get().starts_with('"') {
        string(raw).unwrap_or_default()
    } else {
        super::super::join_text_blocks(raw.get())
    }
}

/// FNV-1a (64 bits) of the text without its surrounding whitespace: the same in every build,
/// so that the hashes stored in a session index stay valid.
fn text_hash(text: &str) -> u64 {
    text.trim().bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Whether every text part of a user message is one the harness wrote itself.
fn is_harness_text(content: Option<&RawValue>) -> bool {
    let Some(content) = content else {
        return false;
    };
    let texts: Vec<String> = if content.get().starts_with('"') {
        string(content).into_iter().collect()
    } else {
        serde_json::from_str::<Vec<PartRepr>>(content.get())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|part| match part.text {
                Some(serde_json::Value::String(text)) => Some(text),
                _ => None,
            })
            .collect()
    };
    !texts.is_empty()
        && texts.iter().all(|text| {
            let text = text.trim_start();
            HARNESS_MARKERS
                .iter()
                .any(|marker| text.starts_with(marker))
        })
}

/// The uuid a rollout's file name ends with (`rollout-2025-01-01T10-00-00-<uuid>.jsonl`).
pub(super) fn id_from_file_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let tail = stem.get(stem.len().checked_sub(36)?..)?;
    is_uuid(tail).then(|| tail.to_ascii_lowercase())
}

fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}
