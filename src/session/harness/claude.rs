//! Claude Code transcripts: `~/.claude/projects/<enc-cwd>/<session uuid>.jsonl` (docs/harnesses.md).
//!
//! Records form a tree by `uuid`/`parentUuid`; every record with a `uuid` is an entry, so the
//! tree stays whole, and only `user` and `assistant` records make events. A `tool_use` block is
//! a tool call of its own seq, a `tool_result` block a tool result paired by `tool_use_id`, a
//! user record of tool results only makes no user event, thinking is never text; a user
//! record the harness wrote (its marks, or text of the harness's tags only) is a `context`
//! event. A `compact_boundary` record hangs under its `logicalParentUuid` (or, when that record
//! was never written, the record before it), so the branch crosses a compaction, and the
//! `isCompactSummary` record after it is the compaction's one `context` event. Records without
//! a `uuid` take no seq; `summary` and `custom-title` name the session.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::super::record::{
    blocks, intern, is_true, push_atom, span_in, string, PendingEntry, Read,
};
use super::super::{EntryId, EntryKind, Header, Message, Span, ToolCall};
use super::{AgentConfig, AgentFacts, ContextOutput, Layout};

/// Where Claude Code's sessions are under its `projects` directory: `<encoded cwd>/<uuid>.jsonl`
/// (and files put in the root itself), subagents in `<encoded cwd>/<uuid>/subagents/` (one
/// level of nesting below it too) and, in the oldest layout, `agent-*.jsonl` beside the session.
pub(super) const LAYOUT: Layout = Layout(&[
    "*.jsonl",
    "*/subagents/*.jsonl",
    "*/*.jsonl",
    "*/*/subagents/*.jsonl",
    "*/*/subagents/*/*.jsonl",
]);

/// Claude Code names an MCP server's tools `mcp__<server>__<tool>`; the plain output of a
/// `PreCompact` hook is appended to the compaction's instructions.
pub(super) const AGENT: AgentFacts = AgentFacts {
    agent_name: "claude-code",
    mcp_tool: "mcp__{server}__{}",
    mcp_server_dash_as_underscore: false,
    prompt_event: "UserPromptSubmit",
    precompact_reaches_summary: true,
    boot_survives_restart: true,
    context_output: ContextOutput::HookSpecific,
    config: AgentConfig::Claude,
};

/// The record types Claude Code writes (a record with a `uuid` or `sessionId` is Claude's too).
pub(super) const RECORD_TYPES: [&str; 8] = [
    "user",
    "assistant",
    "system",
    "summary",
    "custom-title",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
];

/// What the reader remembers between lines.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(in crate::session) struct State {
    /// A `custom-title` named the session: later `summary` records do not rename it.
    titled: bool,
}

#[derive(Deserialize)]
struct RecordRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    record_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uuid: Option<&'a RawValue>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent_uuid: Option<&'a RawValue>,
    #[serde(rename = "logicalParentUuid", borrow, default)]
    logical_parent_uuid: Option<&'a RawValue>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<&'a RawValue>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", borrow, default)]
    is_sidechain: Option<&'a RawValue>,
    #[serde(rename = "isCompactSummary", borrow, default)]
    is_compact_summary: Option<&'a RawValue>,
    #[serde(rename = "isMeta", borrow, default)]
    is_meta: Option<&'a RawValue>,
    #[serde(borrow, default)]
    origin: Option<&'a RawValue>,
    #[serde(rename = "promptSource", borrow, default)]
    prompt_source: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cwd: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
    #[serde(rename = "customTitle", borrow, default)]
    custom_title: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<MessageRepr<'a>>,
    #[serde(borrow, default)]
    attachment: Option<&'a RawValue>,
}

/// A user record's `origin`: what started its turn (`{"kind":"task-notification"}`).
#[derive(Deserialize)]
struct OriginRepr<'a> {
    #[serde(borrow, default)]
    kind: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MessageRepr<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

/// The fallback when the typed parse fails (a repeated key, a field of an unexpected type): the
/// record still holds its place in the tree.
#[derive(Deserialize)]
struct TreeOnlyRepr {
    #[serde(default)]
    uuid: Option<serde_json::Value>,
    #[serde(rename = "parentUuid", default)]
    parent_uuid: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct BlockRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    block_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    is_error: Option<&'a RawValue>,
}

/// Reads one line of a Claude Code transcript.
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
    let record: RecordRepr = match serde_json::from_str(line) {
        Ok(record) => record,
        Err(_) => return read_tree_only(line, atoms),
    };
    learn_session(state, &record, header);
    let unknown = unknown_type(&record);
    let Some(uuid) = record.uuid.and_then(|raw| intern(atoms, raw)) else {
        return match unknown {
            Some(record_type) => Read::Unknown {
                record_type,
                entries: Vec::new(),
            },
            None => Read::Entries(Vec::new()),
        };
    };
    let (parent, logical) = match record.parent_uuid.filter(|raw| raw.get() != "null") {
        Some(raw) => (intern(atoms, raw), false),
        // A compaction boundary starts a new root; its logical parent keeps the branch whole.
        // That parent can be a record that was never written (`claude -p /compact --resume`):
        // then the boundary hangs under the record before it.
        None => (
            record
                .logical_parent_uuid
                .and_then(|raw| intern(atoms, raw)),
            true,
        ),
    };
    let timestamp = record.timestamp.map(|raw| span_in(raw, base));
    let kinds = record_kinds(&record, base, atoms);
    let mut entries = chain(uuid, parent, timestamp, kinds, atoms);
    if let Some(first) = entries.first_mut() {
        first.parent_before = logical && parent.is_some();
    }
    match unknown {
        Some(record_type) => Read::Unknown {
            record_type,
            entries,
        },
        None => Read::Entries(entries),
    }
}

/// The record types Claude Code writes that are read or deliberately left out (metadata of
/// its own: docs/harnesses.md); any other is a format change, counted by name.
const KNOWN_TYPES: [&str; 52] = [
    "user",
    "assistant",
    "system",
    "attachment",
    "progress",
    "summary",
    "custom-title",
    "ai-title",
    "file-history-snapshot",
    "file-history-delta",
    "queue-operation",
    "last-prompt",
    "continued-in",
    "resume-head-vouch",
    "content-replacement",
    "data-flow-records",
    "data-flow-incomplete",
    "derived-from",
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "api-request-resumed",
    "fork-context-ref",
    "frame-link",
    "ended-by-model",
    "tag",
    "relocated",
    "agent-name",
    "agent-color",
    "agent-setting",
    "pr-link",
    "artifact",
    "bridge-session",
    "history-suppression",
    "attribution-snapshot",
    "mode",
    "permission-mode",
    "isolation-latch",
    "session-owner",
    "dev-mods",
    "memory-mode",
    "atis-latch",
    "tools-used",
    "worktree-state",
    "cost-state",
    "observer-ref",
    "repl-mode",
    "prompt_snapshot",
    "prompt-snapshot",
    "scheduled-task",
    "model-switch",
    "stop-hook-summary",
];

/// The type of a record this reader does not know; `None` for a known one (and for a record
/// without a type, which older versions wrote for messages).
fn unknown_type(record: &RecordRepr) -> Option<String> {
    let record_type = record.record_type.and_then(string)?;
    let known = KNOWN_TYPES.contains(&record_type.as_str()) || record_type.starts_with("artifact-");
    (!known).then_some(record_type)
}

/// The entries of one record: its kinds chained in order, the last one under the record's own
/// uuid (children name it), the ones before it under `<uuid>#<n>`.
fn chain(
    uuid: super::super::Atom,
    parent: Option<super::super::Atom>,
    timestamp: Option<Span>,
    kinds: Vec<EntryKind>,
    atoms: &mut String,
) -> Vec<PendingEntry> {
    let count = kinds.len().max(1);
    let kinds = if kinds.is_empty() {
        vec![EntryKind::Other]
    } else {
        kinds
    };
    let mut parent = parent.map(EntryId::Atom);
    let mut entries = Vec::with_capacity(count);
    for (i, kind) in kinds.into_iter().enumerate() {
        let id = if i + 1 == count {
            uuid
        } else {
            let own = format!("{}#{}", atom_text(atoms, uuid), i + 1);
            push_atom(atoms, &own)
        };
        entries.push(PendingEntry::ready(
            Some(EntryId::Atom(id)),
            parent,
            timestamp,
            kind,
        ));
        parent = Some(EntryId::Atom(id));
    }
    entries
}

fn atom_text(atoms: &str, atom: super::super::Atom) -> String {
    let start = atom.start as usize;
    atoms
        .get(start..start + atom.len as usize)
        .unwrap_or("")
        .to_string()
}

/// The session's id, cwd, start, parent and name, from the first records that give them.
fn learn_session(state: &mut State, record: &RecordRepr, header: &mut Option<Header>) {
    let record_type = record.record_type.and_then(string);
    match record_type.as_deref() {
        Some("summary") => {
            if let Some(summary) = record.summary.and_then(string).filter(|_| !state.titled) {
                header.get_or_insert_with(Header::default).name = Some(summary);
            }
            return;
        }
        Some("custom-title") => {
            if let Some(title) = record.custom_title.and_then(string) {
                state.titled = true;
                header.get_or_insert_with(Header::default).name = Some(title);
            }
            return;
        }
        _ => {}
    }
    let header = header.get_or_insert_with(Header::default);
    if header.id.is_none() {
        if let Some(session_id) = record.session_id.and_then(string) {
            // Older subagent files carry an `agentId` but no `isSidechain`.
            let main = record.is_sidechain.is_some_and(|raw| raw.get() == "false");
            let agent = record.agent_id.and_then(string).filter(|_| !main);
            match agent {
                // A subagent's transcript is a session of its own, under its parent's.
                Some(agent) => {
                    header.id = Some(agent);
                    header.parent_session_id = Some(session_id);
                }
                None => header.id = Some(session_id),
            }
        }
    }
    if header.cwd.is_none() {
        header.cwd = record.cwd.and_then(string);
    }
    if header.timestamp.is_none() {
        header.timestamp = record.timestamp.and_then(string);
    }
}

/// What a record with a uuid holds, in order (empty: a record that makes no event).
fn record_kinds(record: &RecordRepr, base: usize, atoms: &mut String) -> Vec<EntryKind> {
    let content = record.message.as_ref().and_then(|m| m.content);
    let span = |raw: &RawValue| span_in(raw, base);
    match record.record_type.map_or("", RawValue::get) {
        "\"assistant\"" => assistant_kinds(content, base, atoms),
        "\"user\"" if record.is_compact_summary.is_some_and(is_true) => {
            vec![EntryKind::Message(Message::Custom {
                content: content.map(span),
            })]
        }
        "\"user\"" if record.is_meta.is_some_and(is_true) => {
            vec![EntryKind::Message(Message::Custom {
                content: content.map(span),
            })]
        }
        "\"user\"" => user_kinds(content, is_from_harness(record), base, atoms),
        "\"attachment\"" => pushed_attachment(record, base).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// A hook's additional context that is a block pi-context pushed (`hook_additional_context`
/// whose content opens with one of its tags): a context event, as the agent kept it
/// (docs/agents.md); never indexed or counted as anyone's words.
fn pushed_attachment(record: &RecordRepr, base: usize) -> Option<EntryKind> {
    let attachment: AttachmentRepr = serde_json::from_str(record.attachment?.get()).ok()?;
    if attachment.attachment_type.as_deref() != Some("hook_additional_context") {
        return None;
    }
    let first = match attachment.content {
        Some(raw) if raw.get().starts_with('[') => {
            *serde_json::from_str::<Vec<&RawValue>>(raw.get())
                .ok()?
                .first()?
        }
        Some(raw) => raw,
        None => return None,
    };
    let text = string(first)?;
    super::super::pushed_block(&text)?;
    Some(EntryKind::Message(Message::Custom {
        content: Some(span_in(first, base)),
    }))
}

#[derive(Deserialize)]
struct AttachmentRepr<'a> {
    #[serde(rename = "type", default)]
    attachment_type: Option<String>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

/// The tags whose content Claude Code writes itself into a user record: a slash command and
/// its output (`/compact`), the caveat before local command output, a background task's
/// notification.
const HARNESS_TAGS: [&str; 7] = [
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "task-notification",
];

/// Whether a user record's marks say the harness wrote it: `promptSource: "system"` (the user's
/// are `typed` and `sdk`), or an `origin` whose `kind` is not the user (a background task's
/// `task-notification`).
fn is_from_harness(record: &RecordRepr) -> bool {
    let system = record
        .prompt_source
        .is_some_and(|raw| raw.get() == "\"system\"");
    let origin = record
        .origin
        .and_then(|raw| serde_json::from_str::<OriginRepr>(raw.get()).ok())
        .and_then(|origin| origin.kind)
        .and_then(string);
    system || origin.is_some_and(|kind| kind != "user")
}

/// Whether a text is made only of [`HARNESS_TAGS`] elements (and whitespace between them).
fn is_harness_text(text: &str) -> bool {
    let mut rest = text.trim_start();
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let Some(tag) = HARNESS_TAGS.iter().find(|tag| {
            rest.strip_prefix('<')
                .and_then(|r| r.strip_prefix(**tag))
                .is_some_and(|r| r.starts_with('>'))
        }) else {
            return false;
        };
        let close = format!("</{tag}>");
        let Some(end) = rest.find(&close) else {
            return false;
        };
        rest = rest[end + close.len()..].trim_start();
    }
    true
}

fn assistant_kinds(content: Option<&RawValue>, base: usize, atoms: &mut String) -> Vec<EntryKind> {
    let Some(content) = content else {
        return Vec::new();
    };
    let span = span_in(content, base);
    if content.get().starts_with('"') {
        return vec![assistant(Some(span), Vec::new(), true)];
    }
    let blocks: Vec<BlockRepr> = blocks(content.get());
    let has_text = blocks.iter().any(is_text);
    let calls: Vec<ToolCall> = blocks
        .iter()
        .filter(|b| block_type(b) == "\"tool_use\"")
        .map(|b| ToolCall {
            id: b.id.and_then(|raw| intern(atoms, raw)),
            name: b.name.and_then(|raw| intern(atoms, raw)),
            arguments: b.input.map(|raw| span_in(raw, base)),
            arguments_in_string: false,
        })
        .collect();
    if !has_text && calls.is_empty() {
        return Vec::new();
    }
    vec![assistant(Some(span), calls, has_text)]
}

fn assistant(content: Option<Span>, tool_calls: Vec<ToolCall>, own_event: bool) -> EntryKind {
    EntryKind::Message(Message::Assistant {
        content,
        tool_calls,
        own_event,
    })
}

/// A user record: its tool results, then its text (a record of tool results only makes no
/// user event). The text is a `context` event when the harness wrote it: the record's marks
/// say so (`from_harness`), or the text is only the harness's tags.
fn user_kinds(
    content: Option<&RawValue>,
    from_harness: bool,
    base: usize,
    atoms: &mut String,
) -> Vec<EntryKind> {
    let Some(content) = content else {
        return Vec::new();
    };
    let span = Some(span_in(content, base));
    let text = |texts: Vec<String>| {
        let tags_only = !texts.is_empty() && texts.iter().all(|text| is_harness_text(text));
        if from_harness || tags_only {
            EntryKind::Message(Message::Custom { content: span })
        } else {
            EntryKind::Message(Message::User { content: span })
        }
    };
    if content.get().starts_with('"') {
        return vec![text(string(content).into_iter().collect())];
    }
    let blocks: Vec<BlockRepr> = blocks(content.get());
    let mut kinds: Vec<EntryKind> = blocks
        .iter()
        .filter(|b| block_type(b) == "\"tool_result\"")
        .map(|b| {
            EntryKind::Message(Message::ToolResult {
                tool_call_id: b.tool_use_id.and_then(|raw| intern(atoms, raw)),
                tool_name: None,
                is_error: b.is_error.is_some_and(is_true),
                content: b.content.map(|raw| span_in(raw, base)),
                output_truncated: false,
                full_output_path: None,
            })
        })
        .collect();
    if blocks.iter().any(is_text) {
        let texts = blocks.iter().filter(|b| is_text(b));
        kinds.push(text(
            texts.filter_map(|b| b.text.and_then(string)).collect(),
        ));
    }
    kinds
}

fn block_type<'a>(block: &BlockRepr<'a>) -> &'a str {
    block.block_type.map_or("", RawValue::get)
}

fn is_text(block: &BlockRepr) -> bool {
    block_type(block) == "\"text\"" && block.text.is_some_and(|t| t.get().starts_with('"'))
}

fn read_tree_only(line: &str, atoms: &mut String) -> Read {
    let Ok(record) = serde_json::from_str::<TreeOnlyRepr>(line) else {
        return Read::Malformed;
    };
    let text = |v: Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => Some(s),
        _ => None,
    };
    let Some(uuid) = text(record.uuid) else {
        return Read::Entries(Vec::new());
    };
    let parent = text(record.parent_uuid).map(|p| EntryId::Atom(push_atom(atoms, &p)));
    Read::Entries(vec![PendingEntry::ready(
        Some(EntryId::Atom(push_atom(atoms, &uuid))),
        parent,
        None,
        EntryKind::Other,
    )])
}
