//! Gemini CLI chats: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`, subagents in
//! `chats/<parent session id>/<id>.jsonl` (docs/harnesses.md).
//!
//! The first line is the session's metadata (`sessionId`, `projectHash`, `startTime`, `kind`);
//! every later line is a message (`id`, `type`: `user`, `gemini`, `info`, `error`, `warning`),
//! a patch of the metadata (`{"$set": {…}}`) or a rewind (`{"$rewindTo": <message id>}`).
//! Gemini writes a message again under the same id when it has more to say (its tool calls,
//! their results, its token counts): the reader remembers what each message gave already and
//! adds only what is new, so seqs never move. Messages form one chain in the order they first
//! appear; a rewind abandons the messages from the one it names on (an abandoned branch,
//! readable with `--leaf`), and a `$set.messages` that restates the conversation adds only the
//! messages it has not seen. The older whole-file `.json` chats are one JSON document, read
//! whole when its last line comes ([`read_document`]).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::super::record::{blocks, intern, push_atom, span_in, string, PendingEntry, Read};
use super::super::{EntryId, EntryKind, Header, Message, Span, ToolCall};
use super::{AgentConfig, AgentFacts, ContextOutput, Layout, MarksRepr};

/// Where Gemini CLI's chats are under its directory (`~/.gemini`): each project's
/// `tmp/<project>/chats/`, the older whole-file `.json` chats beside the JSONL ones, and
/// subagents one directory below, in a directory named by their parent session.
pub(super) const LAYOUT: Layout = Layout(&[
    "tmp/*/chats/session-*.jsonl",
    "tmp/*/chats/session-*.json",
    "tmp/*/chats/*/*.jsonl",
]);

/// Gemini CLI names an MCP server's tools `mcp_<server>_<tool>` (the server's name must hold no
/// `_`: Gemini splits the name at the first one after `mcp_`); its prompt hook is `BeforeAgent`;
/// nothing reaches its compression (`PreCompress` is advisory).
pub(super) const AGENT: AgentFacts = AgentFacts {
    agent_name: "gemini-cli",
    mcp_tool: "mcp_{server}_{}",
    mcp_server_dash_as_underscore: false,
    precompact_reaches_summary: false,
    prompt_event: "BeforeAgent",
    boot_survives_restart: true,
    context_output: ContextOutput::HookSpecific,
    config: AgentConfig::Gemini,
};

/// The message types Gemini writes.
const MESSAGE_TYPES: [&str; 5] = ["user", "gemini", "info", "error", "warning"];

/// Text a user message's part opens with when Gemini wrote it, not the user: the session's
/// context (date, workspace, files), a hook's context (pi-context's blocks among them), a
/// compression's summary.
const HARNESS_MARKERS: [&str; 3] = ["<session_context>", "<hook_context>", "<state_snapshot>"];

/// What the reader remembers between lines.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(in crate::session) struct State {
    /// The metadata line was read: later ones (a resume writes one again) are ignored.
    meta_seen: bool,
    /// The first line was `{` alone: the file is one JSON document, which starts at this byte.
    document: Option<usize>,
    /// The live conversation, in order.
    chain: Vec<Link>,
    /// The entry the next message hangs under.
    tail: Option<String>,
    /// Every message met, by its id.
    messages: FxHashMap<String, Seen>,
    /// The tool calls read, and those answered, by a hash of their id.
    called: FxHashSet<u64>,
    answered: FxHashSet<u64>,
    /// Inert entries of records that have no id (rewinds, unknown records), which their count
    /// names.
    marks: u32,
}

/// A message of the live conversation, and the entry it was appended under.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Link {
    id: String,
    before: Option<String>,
}

/// What a message gave so far.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Seen {
    /// Its entries: the first is named by the message's id, the later ones `<id>#<n>`.
    entries: u32,
    /// Its place in the live conversation; `None` once rewound.
    live: Option<u32>,
    /// A hash of the content its text event was read from (0: none yet).
    text: u64,
}

#[derive(Deserialize)]
struct RecordRepr<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(rename = "type", borrow, default)]
    message_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<&'a RawValue>,
    #[serde(rename = "$set", borrow, default)]
    set: Option<&'a RawValue>,
    #[serde(rename = "$rewindTo", borrow, default)]
    rewind_to: Option<&'a RawValue>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<&'a RawValue>,
    #[serde(rename = "startTime", borrow, default)]
    start_time: Option<&'a RawValue>,
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
    #[serde(borrow, default)]
    directories: Option<&'a RawValue>,
    /// The messages of a whole-file document, or of a metadata line that carries them.
    #[serde(borrow, default)]
    messages: Option<&'a RawValue>,
}

/// A `$set` patch: the fields the reader uses.
#[derive(Deserialize)]
struct SetRepr<'a> {
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
    #[serde(borrow, default)]
    directories: Option<&'a RawValue>,
    #[serde(borrow, default)]
    messages: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ToolCallRepr<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
}

/// A part of a message's content (Gemini's `Part`).
#[derive(Deserialize)]
struct PartRepr<'a> {
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    thought: Option<&'a RawValue>,
    #[serde(rename = "functionCall", borrow, default)]
    function_call: Option<&'a RawValue>,
    #[serde(rename = "functionResponse", borrow, default)]
    function_response: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct FunctionRepr<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
}

/// A function response's `response`: the tool's output, or its error.
#[derive(Deserialize)]
struct ResponseRepr<'a> {
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

/// Whether a line is a Gemini record by its marks: a `$set` or `$rewindTo`; a metadata line (a
/// `sessionId` with a `projectHash`, and no `type` or `uuid`); a message (an `id` and one of
/// Gemini's types, and neither a `uuid` nor a `sessionId`, which Claude Code's records carry).
pub(super) fn is_gemini_record(record_type: &str, marks: &MarksRepr) -> bool {
    if marks.set.is_some() || marks.rewind_to.is_some() {
        return true;
    }
    if marks.uuid.is_some() {
        return false;
    }
    if record_type.is_empty() {
        return marks.session_id.is_some() && marks.project_hash.is_some();
    }
    marks.session_id.is_none()
        && (record_type == "gemini" || (marks.id.is_some() && MESSAGE_TYPES.contains(&record_type)))
}

/// Reads one line of a Gemini chat.
pub(in crate::session) fn read_line(
    state: &mut State,
    line: &str,
    base: usize,
    header: &mut Option<Header>,
    atoms: &mut String,
) -> Read {
    if let Some(start) = state.document {
        return if line.trim_end() == "}" {
            Read::Document(start)
        } else {
            Read::Entries(Vec::new())
        };
    }
    let trimmed = line.trim();
    if trimmed == "{" && !state.meta_seen && state.chain.is_empty() {
        state.document = Some((trimmed.as_ptr() as usize).wrapping_sub(base));
        return Read::Entries(Vec::new());
    }
    if !trimmed.starts_with('{') {
        return Read::Malformed;
    }
    let record: RecordRepr = match serde_json::from_str(line) {
        Ok(record) => record,
        Err(_) if serde_json::from_str::<serde::de::IgnoredAny>(line).is_ok() => {
            return Read::Unknown {
                record_type: first_key(line),
                entries: inert_record(state, atoms),
            };
        }
        Err(_) => return Read::Malformed,
    };
    let span = |raw: &RawValue| span_in(raw, base);
    let entries = if let Some(target) = record.rewind_to {
        rewind(state, string(target).as_deref(), atoms)
    } else if let Some(set) = record.set {
        apply_set(state, set, header, &span, atoms)
    } else if record.id.is_some_and(|raw| raw.get().starts_with('"')) {
        message(state, &record, None, &span, atoms)
    } else if record.session_id.is_some() {
        learn_session(state, &record, header);
        restate(state, record.messages, &span, atoms)
    } else {
        return Read::Unknown {
            record_type: first_key(line),
            entries: inert_record(state, atoms),
        };
    };
    match unknown_message_type(&record) {
        Some(record_type) => Read::Unknown {
            record_type,
            entries,
        },
        None => Read::Entries(entries),
    }
}

/// The type of a message this reader does not know (Gemini's are [`MESSAGE_TYPES`]); a message
/// without a type counts as `message`.
fn unknown_message_type(record: &RecordRepr) -> Option<String> {
    if record.rewind_to.is_some() || record.set.is_some() || record.id.is_none() {
        return None;
    }
    match record.message_type.and_then(string) {
        Some(t) if MESSAGE_TYPES.contains(&t.as_str()) => None,
        Some(t) => Some(t),
        None => Some("message".to_string()),
    }
}

/// The name of a record that is neither a message, nor metadata, nor a patch: its first key
/// (a new operation such as `$rewindTo` once was).
fn first_key(line: &str) -> String {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(line)
        .ok()
        .and_then(|map| map.keys().next().cloned())
        .unwrap_or_else(|| "record".to_string())
}

/// Reads a whole-file JSON chat (`{"sessionId", …, "messages": [...]}`, written by Gemini CLI
/// before its JSONL chats): the session from its fields, each message an entry whose bytes are
/// the message's object in the document.
pub(in crate::session) fn read_document(
    state: &mut State,
    document: &str,
    base: usize,
    header: &mut Option<Header>,
    atoms: &mut String,
) -> Read {
    state.document = None;
    let Ok(record) = serde_json::from_str::<RecordRepr>(document) else {
        return Read::Malformed;
    };
    learn_session(state, &record, header);
    let span = |raw: &RawValue| span_in(raw, base);
    let mut entries = Vec::new();
    for raw in record
        .messages
        .map(|raw| blocks::<&RawValue>(raw.get()))
        .unwrap_or_default()
    {
        let Ok(message_record) = serde_json::from_str::<RecordRepr>(raw.get()) else {
            continue;
        };
        if message_record
            .id
            .is_none_or(|id| !id.get().starts_with('"'))
        {
            continue;
        }
        entries.extend(message(
            state,
            &message_record,
            Some(span(raw)),
            &span,
            atoms,
        ));
    }
    Read::Entries(entries)
}

/// The first metadata record gives the session's id, start, name and (a subagent's) workspace;
/// a later one is a resume writing it again.
fn learn_session(state: &mut State, record: &RecordRepr, header: &mut Option<Header>) {
    if std::mem::replace(&mut state.meta_seen, true) {
        return;
    }
    let header = header.get_or_insert_with(Header::default);
    header.id = record.session_id.and_then(string);
    header.timestamp = record.start_time.and_then(string);
    if let Some(summary) = record.summary.and_then(string) {
        header.name = Some(summary);
    }
    if let Some(first) = record.directories.and_then(first_directory) {
        header.cwd = Some(first);
    }
}

fn first_directory(raw: &RawValue) -> Option<String> {
    blocks::<&RawValue>(raw.get())
        .first()
        .and_then(|first| string(first))
}

/// A `$set` patch: a summary names the session, the first workspace directory is its cwd when
/// none is known, and restated messages add what was not read yet.
fn apply_set(
    state: &mut State,
    set: &RawValue,
    header: &mut Option<Header>,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> Vec<PendingEntry> {
    let Ok(set) = serde_json::from_str::<SetRepr>(set.get()) else {
        return Vec::new();
    };
    if let Some(summary) = set.summary.and_then(string) {
        header.get_or_insert_with(Header::default).name = Some(summary);
    }
    if let Some(first) = set.directories.and_then(first_directory) {
        let header = header.get_or_insert_with(Header::default);
        header.cwd.get_or_insert(first);
    }
    restate(state, set.messages, span, atoms)
}

/// The messages of a restated conversation (`$set.messages`, at every start, resume and
/// rewind): a message already read is kept as it was recorded (a restatement can drop its tool
/// calls and text); one not read yet is read as if written here, at the end of the
/// conversation (a compression's summary, a copy of the history in a resumed chat).
fn restate(
    state: &mut State,
    messages: Option<&RawValue>,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> Vec<PendingEntry> {
    let Some(messages) = messages else {
        return Vec::new();
    };
    let mut entries = Vec::new();
    for raw in blocks::<&RawValue>(messages.get()) {
        let Ok(record) = serde_json::from_str::<RecordRepr>(raw.get()) else {
            continue;
        };
        let Some(id) = record.id.and_then(string) else {
            continue;
        };
        if state.messages.contains_key(&id) {
            continue;
        }
        entries.extend(message(state, &record, None, span, atoms));
    }
    entries
}

/// A rewind: the message it names and every one after it leave the live conversation (an
/// abandoned branch); an inert entry marks where it goes on, so a file that ends here reads the
/// conversation as it now is. A rewind to a message not in the conversation empties it, as
/// Gemini's own loader does.
fn rewind(state: &mut State, target: Option<&str>, atoms: &mut String) -> Vec<PendingEntry> {
    let position = target
        .and_then(|id| state.messages.get(id))
        .and_then(|seen| seen.live)
        .map_or(0, |p| p as usize)
        .min(state.chain.len());
    let before = match state.chain.get(position) {
        Some(link) => link.before.clone(),
        None if position == 0 => None,
        None => state.tail.clone(),
    };
    for link in state.chain.drain(position..) {
        if let Some(seen) = state.messages.get_mut(&link.id) {
            seen.live = None;
        }
    }
    state.tail = before;
    inert_record(state, atoms)
}

/// An inert entry at the end of the conversation, for a record that has no id of its own (a
/// rewind; a record of a type this reader does not know).
fn inert_record(state: &mut State, atoms: &mut String) -> Vec<PendingEntry> {
    state.marks += 1;
    let id = format!("record:{}", state.marks);
    let parent = state.tail.replace(id.clone());
    vec![PendingEntry::ready(
        Some(EntryId::Atom(push_atom(atoms, &id))),
        parent.map(|p| EntryId::Atom(push_atom(atoms, &p))),
        None,
        EntryKind::Other,
    )]
}

/// A message record (or a restated message, or one of a whole-file document, whose bytes are
/// `record_span`): its new entries.
fn message(
    state: &mut State,
    record: &RecordRepr,
    record_span: Option<Span>,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> Vec<PendingEntry> {
    let Some(id) = record.id.and_then(string) else {
        return Vec::new();
    };
    let prior_text = state.messages.get(&id).map(|seen| seen.text);
    let first = prior_text.is_none();
    let content_hash = record.content.map_or(0, |raw| hash(raw.get()));
    let text_is_new = content_hash != 0 && Some(content_hash) != prior_text;
    let mut kinds = match record.message_type.map_or("", RawValue::get) {
        "\"gemini\"" => gemini_kinds(state, record, text_is_new, span, atoms),
        "\"user\"" => user_kinds(state, record, text_is_new, span, atoms),
        // `info`, `error` and `warning` are the CLI's notices to the user, never sent to the
        // model; an unknown type is kept in its place too.
        _ => Vec::new(),
    };
    let seen = state.messages.entry(id.clone()).or_default();
    if text_is_new && has_text_kind(&kinds) {
        seen.text = content_hash;
    }
    if first && kinds.is_empty() {
        kinds.push(EntryKind::Other);
    }
    if kinds.is_empty() {
        return Vec::new();
    }
    let live = first || seen.live.is_some();
    let mut parent = if live {
        state.tail.clone()
    } else {
        Some(entry_id(&id, seen.entries))
    };
    if first {
        seen.live = Some(state.chain.len() as u32);
        state.chain.push(Link {
            id: id.clone(),
            before: parent.clone(),
        });
    }
    let timestamp = record.timestamp.map(span);
    let mut entries = Vec::with_capacity(kinds.len());
    for kind in kinds {
        seen.entries += 1;
        let own = entry_id(&id, seen.entries);
        let mut entry = PendingEntry::ready(
            Some(EntryId::Atom(push_atom(atoms, &own))),
            parent
                .as_deref()
                .map(|p| EntryId::Atom(push_atom(atoms, p))),
            timestamp,
            kind,
        );
        entry.record = record_span;
        entries.push(entry);
        parent = Some(own);
    }
    if live {
        state.tail = parent;
    }
    entries
}

/// The id of a message's `n`th entry: the message's own id, then `<id>#2`, `<id>#3`, ….
fn entry_id(id: &str, n: u32) -> String {
    if n <= 1 {
        id.to_string()
    } else {
        format!("{id}#{n}")
    }
}

fn has_text_kind(kinds: &[EntryKind]) -> bool {
    kinds.iter().any(|kind| {
        matches!(
            kind,
            EntryKind::Message(
                Message::User { .. }
                    | Message::Custom { .. }
                    | Message::Assistant {
                        own_event: true,
                        ..
                    }
            )
        )
    })
}

/// A model message: its text when it is new, its tool calls not read yet (from `toolCalls`,
/// or, in a restated message, its `functionCall` parts), then the results not read yet of its
/// calls. Thoughts are never text.
fn gemini_kinds(
    state: &mut State,
    record: &RecordRepr,
    text_is_new: bool,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> Vec<EntryKind> {
    let content = record.content;
    let own_event = text_is_new && content.is_some_and(has_text);
    let calls_field = record
        .tool_calls
        .map(|raw| blocks::<ToolCallRepr>(raw.get()))
        .unwrap_or_default();
    let parts = content
        .filter(|raw| raw.get().starts_with('['))
        .map(|raw| blocks::<PartRepr>(raw.get()))
        .unwrap_or_default();
    let message_id = record.id.and_then(string).unwrap_or_default();
    let mut calls = Vec::new();
    let mut results = Vec::new();
    for (i, call) in calls_field.iter().enumerate() {
        let call_id = call_id(call.id, &message_id, i);
        if state.called.insert(hash(&call_id)) {
            calls.push(ToolCall {
                id: Some(push_atom(atoms, &call_id)),
                name: call.name.and_then(|raw| intern(atoms, raw)),
                arguments: call.args.map(span),
                arguments_in_string: false,
            });
        }
        let Some(result) = call.result.filter(|raw| raw.get() != "null") else {
            continue;
        };
        if state.answered.insert(hash(&call_id)) {
            let error = call.status.is_some_and(|raw| raw.get() == "\"error\"");
            results.push(EntryKind::Message(Message::ToolResult {
                tool_call_id: Some(push_atom(atoms, &call_id)),
                tool_name: None,
                is_error: error,
                content: result_content(result, call.id).map(span),
                output_truncated: false,
                full_output_path: None,
            }));
        }
    }
    for (i, part) in parts.iter().enumerate() {
        let Some(function) = part
            .function_call
            .and_then(|raw| serde_json::from_str::<FunctionRepr>(raw.get()).ok())
        else {
            continue;
        };
        let call_id = call_id(function.id, &message_id, calls_field.len() + i);
        if state.called.insert(hash(&call_id)) {
            calls.push(ToolCall {
                id: Some(push_atom(atoms, &call_id)),
                name: function.name.and_then(|raw| intern(atoms, raw)),
                arguments: function.args.map(span),
                arguments_in_string: false,
            });
        }
    }
    let mut kinds = Vec::with_capacity(1 + results.len());
    if own_event || !calls.is_empty() {
        kinds.push(EntryKind::Message(Message::Assistant {
            content: content.filter(|_| own_event).map(span),
            tool_calls: calls,
            own_event,
        }));
    }
    kinds.extend(results);
    kinds
}

/// A user message: the results it holds of calls not answered yet (`functionResponse` parts),
/// then its text when it is new: one `user` event of the user's words, and a `context` event
/// of each part Gemini wrote itself (its session context, a hook's context, a compression's
/// summary).
fn user_kinds(
    state: &mut State,
    record: &RecordRepr,
    text_is_new: bool,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> Vec<EntryKind> {
    let Some(content) = record.content else {
        return Vec::new();
    };
    if content.get().starts_with('"') {
        if !text_is_new || !has_text(content) {
            return Vec::new();
        }
        let text = string(content).unwrap_or_default();
        return vec![text_kind(is_harness_text(&text), span(content))];
    }
    let parts = blocks::<PartRepr>(content.get());
    let mut kinds = Vec::new();
    for part in &parts {
        let Some(function) = part
            .function_response
            .and_then(|raw| serde_json::from_str::<FunctionRepr>(raw.get()).ok())
        else {
            continue;
        };
        let Some(call_id) = function.id.and_then(string) else {
            continue;
        };
        if state.answered.insert(hash(&call_id)) {
            kinds.push(function_result(&function, &call_id, span, atoms));
        }
    }
    if !text_is_new {
        return kinds;
    }
    let texts: Vec<(&RawValue, bool)> = parts
        .iter()
        .filter(|part| part.thought.is_none_or(|raw| raw.get() != "true"))
        .filter_map(|part| part.text.filter(|raw| raw.get().starts_with('"')))
        .filter(|raw| raw.get() != "\"\"")
        .map(|raw| (raw, is_harness_text(&string(raw).unwrap_or_default())))
        .collect();
    if texts.iter().all(|(_, harness)| !harness) {
        if !texts.is_empty() {
            kinds.push(text_kind(false, span(content)));
        }
        return kinds;
    }
    for (raw, harness) in texts {
        let whole = span(raw);
        match hook_context_end(raw.get()) {
            Some((head, tail)) => {
                kinds.push(text_kind(
                    true,
                    Span {
                        start: whole.start,
                        end: whole.start + head,
                    },
                ));
                if tail + 1 < raw.get().len() {
                    kinds.push(text_kind(
                        false,
                        Span {
                            start: whole.start + tail,
                            end: whole.end,
                        },
                    ));
                }
            }
            None => kinds.push(text_kind(harness, whole)),
        }
    }
    kinds
}

/// Where a text part that opens with a hook's context (`<hook_context>…</hook_context>`, which
/// Gemini CLI puts before the user's words in the same part: a `SessionStart` hook's context in
/// a headless run) splits, in the part's raw JSON string: the end of the closing tag (the head,
/// a context event) and the start of the words after it and the blank lines that part them (the
/// tail, the user's). The spans are a string's head and tail ([`crate::session::Span`]).
fn hook_context_end(raw: &str) -> Option<(usize, usize)> {
    const CLOSE: &str = "</hook_context>";
    if !raw.starts_with("\"<hook_context>") {
        return None;
    }
    let head = raw.find(CLOSE)? + CLOSE.len();
    let mut tail = head;
    loop {
        let rest = &raw[tail..];
        if rest.starts_with("\\n") || rest.starts_with("\\r") || rest.starts_with("\\t") {
            tail += 2;
        } else if rest.starts_with(' ') {
            tail += 1;
        } else {
            break;
        }
    }
    Some((head, tail))
}

fn text_kind(harness: bool, content: Span) -> EntryKind {
    EntryKind::Message(if harness {
        Message::Custom {
            content: Some(content),
        }
    } else {
        Message::User {
            content: Some(content),
        }
    })
}

/// The result a `functionResponse` part holds.
fn function_result(
    function: &FunctionRepr,
    call_id: &str,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> EntryKind {
    let response = function
        .response
        .filter(|raw| raw.get().starts_with('{'))
        .and_then(|raw| serde_json::from_str::<ResponseRepr>(raw.get()).ok());
    let error = response
        .as_ref()
        .is_some_and(|r| r.error.is_some() && r.output.is_none());
    EntryKind::Message(Message::ToolResult {
        tool_call_id: Some(push_atom(atoms, call_id)),
        tool_name: function.name.and_then(|raw| intern(atoms, raw)),
        is_error: error,
        content: function.response.map(response_text).map(span),
        output_truncated: false,
        full_output_path: None,
    })
}

/// What a tool's result shows: its `output` (else its `error`, else an MCP tool's `content`) of
/// the `functionResponse` part answering the call in `result` (the first such part when none
/// names it); a result that is a string, as it is.
fn result_content<'a>(result: &'a RawValue, call_id: Option<&RawValue>) -> Option<&'a RawValue> {
    if result.get().starts_with('"') {
        return Some(result);
    }
    let wanted = call_id.and_then(string);
    let responses: Vec<FunctionRepr> = blocks::<PartRepr>(result.get())
        .into_iter()
        .filter_map(|part| part.function_response)
        .filter_map(|raw| serde_json::from_str::<FunctionRepr>(raw.get()).ok())
        .collect();
    let answer = responses
        .iter()
        .find(|f| wanted.is_some() && f.id.and_then(string) == wanted)
        .or(responses.first())?;
    answer.response.map(response_text)
}

fn response_text(response: &RawValue) -> &RawValue {
    if !response.get().starts_with('{') {
        return response;
    }
    serde_json::from_str::<ResponseRepr>(response.get())
        .ok()
        .and_then(|r| r.output.or(r.error).or(r.content))
        .unwrap_or(response)
}

/// A call's id: its own, else one made of its message's id and its place (older chats wrote
/// calls without ids).
fn call_id(raw: Option<&RawValue>, message_id: &str, index: usize) -> String {
    raw.and_then(string)
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| format!("{message_id}:call{index}"))
}

/// Whether content has text of its own: a non-empty string, or a part with non-empty text that
/// is not a thought.
fn has_text(content: &RawValue) -> bool {
    match content.get().as_bytes().first() {
        Some(b'"') => content.get() != "\"\"",
        Some(b'[') => super::super::record::text_blocks(content.get())
            .iter()
            .any(|t| t.get() != "\"\""),
        _ => false,
    }
}

/// Whether text is Gemini's own (its session context, a hook's, a compression's summary).
fn is_harness_text(text: &str) -> bool {
    let text = text.trim_start();
    HARNESS_MARKERS
        .iter()
        .any(|marker| text.starts_with(marker))
}

/// FNV-1a (64 bits), never 0: the same in every build, so that the hashes kept in a session
/// index stay valid.
fn hash(text: &str) -> u64 {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    h.max(1)
}

/// What a chat's path tells: a subagent's chat (`chats/<parent session id>/<id>.jsonl`) belongs
/// to the session its directory names; the session's cwd is the project root Gemini recorded
/// for the chat's project directory ([`project_root`]), which files the chat under its project
/// as Gemini does; a chat found nowhere in that layout keeps its first workspace directory.
pub(super) fn complete_from_path(header: &mut Header, path: &Path) {
    let Some(dir) = path.parent() else {
        return;
    };
    let project = if dir.file_name().is_some_and(|n| n == "chats") {
        dir.parent()
    } else if dir
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == "chats")
    {
        if header.parent_session_id.is_none() {
            header.parent_session_id = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .filter(|id| header.id.as_deref() != Some(id.as_str()));
        }
        dir.parent().and_then(Path::parent)
    } else {
        None
    };
    if let Some(root) = project.and_then(project_root) {
        header.cwd = Some(root);
    }
}

/// The project root of a project directory (`<gemini dir>/tmp/<project>`): its ownership
/// marker `.project_root` (Gemini 0.6x), else the path `projects.json` maps to the directory's
/// name, else, for an older directory named by the SHA-256 of its project's path, the path in
/// `projects.json` with that hash. Found roots are remembered for the process.
fn project_root(project: &Path) -> Option<String> {
    static FOUND: OnceLock<Mutex<FxHashMap<PathBuf, String>>> = OnceLock::new();
    let found = FOUND.get_or_init(Default::default);
    if let Some(root) = found.lock().ok()?.get(project) {
        return Some(root.clone());
    }
    let root = marker(project).or_else(|| registered(project))?;
    found
        .lock()
        .ok()?
        .insert(project.to_path_buf(), root.clone());
    Some(root)
}

fn marker(project: &Path) -> Option<String> {
    let text = super::side_file(&project.join(".project_root"))?;
    Some(text.trim().to_string()).filter(|root| !root.is_empty())
}

#[derive(Deserialize)]
struct RegistryRepr {
    #[serde(default)]
    projects: FxHashMap<String, String>,
}

fn registered(project: &Path) -> Option<String> {
    let name = project.file_name()?.to_str()?;
    let gemini_dir = project.parent()?.parent()?;
    let text = super::side_file(&gemini_dir.join("projects.json"))?;
    let registry: RegistryRepr = serde_json::from_str(&text).ok()?;
    let by_slug = registry
        .projects
        .iter()
        .find(|(_, slug)| slug.as_str() == name)
        .map(|(root, _)| root.clone());
    by_slug.or_else(|| {
        let hashed = name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit());
        hashed.then(|| {
            registry
                .projects
                .into_keys()
                .find(|root| sha256_hex(root).eq_ignore_ascii_case(name))
        })?
    })
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_never_zero_and_stable() {
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_ne!(hash("a"), hash("b"));
    }

    #[test]
    fn a_legacy_hash_directory_is_found_by_the_hash_of_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let gemini = dir.path().join(".gemini");
        let root = "/home/u/work/app";
        let hashed = gemini.join("tmp").join(sha256_hex(root));
        std::fs::create_dir_all(&hashed).unwrap();
        std::fs::write(
            gemini.join("projects.json"),
            format!(r#"{{"projects":{{"{root}":"app","/other":"other"}}}}"#),
        )
        .unwrap();
        assert_eq!(registered(&hashed).as_deref(), Some(root));
        assert_eq!(registered(&gemini.join("tmp/app")).as_deref(), Some(root));
        assert_eq!(registered(&gemini.join("tmp/none")), None);
    }
}
