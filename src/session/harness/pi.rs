//! Pi's session JSONL (docs/history.md): a header line, then entries that form a tree by
//! `id`/`parentId` (version 2 and 3), or a chain in file order (version 1, no ids). Pi's
//! files are named `<timestamp>_<session id>.jsonl`, one directory per cwd under its sessions
//! directory, or flat in a custom session directory.

use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::super::record::{
    blocks, intern, is_true, number, push_atom, string, PendingEntry, PendingKind, Read,
};
use super::super::{
    EntryId, EntryKind, Header, JsonStr, Message, Span, ToolCall, RESET_MARKER_TYPE,
};
use super::Layout;

/// Where Pi's sessions are under a root: in it (a custom session directory) and one
/// directory below it (`--<encoded cwd>--/`).
pub(super) const LAYOUT: Layout = Layout(&["*.jsonl", "*/*.jsonl"]);

/// The entry types Pi writes (docs/history.md), its header's included.
pub(super) const ENTRY_TYPES: [&str; 10] = [
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

/// The id a Pi file's name carries: the part after `<timestamp>_`, else the whole stem.
pub(super) fn id_from_path(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    Some(match stem.rsplit_once('_') {
        Some((_, id)) if !id.is_empty() => id.to_string(),
        _ => stem,
    })
}

/// Reads one line of a Pi session: the first `session` line is the header, a later one is
/// ignored; every other object is an entry.
pub(in crate::session) fn read_line(
    line: &str,
    base: usize,
    header: &mut Option<Header>,
    atoms: &mut String,
) -> Read {
    match parse_line(line, base, header.is_none(), atoms) {
        Parsed::Header(h) => {
            *header = Some(h);
            Read::Entries(Vec::new())
        }
        Parsed::Entry(p) => Read::Entries(vec![p]),
        Parsed::Unknown(record_type, p) => Read::Unknown {
            record_type,
            entries: vec![p],
        },
        Parsed::Ignored => Read::Entries(Vec::new()),
        Parsed::Malformed => Read::Malformed,
    }
}

/// Whether entries under a header of this version form one chain in file order (v1), as Pi's
/// `migrateV1ToV2` makes them for any header version below 2.
pub(in crate::session) fn is_linear(version: Option<u64>) -> bool {
    version.is_none_or(|v| v < 2)
}

#[derive(Deserialize)]
struct LineRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    entry_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(rename = "parentId", borrow, default)]
    parent_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow, default)]
    version: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cwd: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<MessageRepr<'a>>,
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
    #[serde(rename = "customType", borrow, default)]
    custom_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

/// The fallback when the typed parse fails (for example `message` is not an object, or a key is
/// repeated): only the tree fields are kept.
#[derive(Deserialize)]
struct TreeOnlyRepr {
    #[serde(rename = "type", default)]
    entry_type: Option<serde_json::Value>,
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(rename = "parentId", default)]
    parent_id: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct MessageRepr<'a> {
    #[serde(borrow, default)]
    role: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<&'a RawValue>,
    #[serde(rename = "toolName", borrow, default)]
    tool_name: Option<&'a RawValue>,
    #[serde(rename = "isError", borrow, default)]
    is_error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    command: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    truncated: Option<&'a RawValue>,
    #[serde(rename = "fullOutputPath", borrow, default)]
    full_output_path: Option<&'a RawValue>,
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
    #[serde(borrow, default)]
    details: Option<&'a RawValue>,
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
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ToolDetailsRepr<'a> {
    #[serde(borrow, default)]
    truncation: Option<&'a RawValue>,
    #[serde(rename = "fullOutputPath", borrow, default)]
    full_output_path: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct TruncationRepr<'a> {
    #[serde(borrow, default)]
    truncated: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MarkerDataRepr {
    #[serde(rename = "windowId", default)]
    window_id: Option<serde_json::Value>,
}

enum Parsed {
    Header(Header),
    Entry(PendingEntry),
    /// An entry of a type Pi does not write (kept in the tree, inert): its type.
    Unknown(String, PendingEntry),
    /// A valid object that is not an entry (a second header).
    Ignored,
    Malformed,
}

/// Parses one line for the fuzz target: returns whether the line was accepted.
pub fn parse_line_for_fuzzing(line: &str) -> bool {
    let parsed = parse_line(line, line.as_ptr() as usize, true, &mut String::new());
    !matches!(parsed, Parsed::Malformed)
}

fn parse_line(line: &str, base: usize, want_header: bool, atoms: &mut String) -> Parsed {
    // serde would also read a struct from a JSON array; only objects are entries.
    if !line.trim_start().starts_with('{') {
        return Parsed::Malformed;
    }
    let span = |raw: &RawValue| {
        let start = (raw.get().as_ptr() as usize).wrapping_sub(base);
        Span {
            start,
            end: start + raw.get().len(),
        }
    };
    let repr: LineRepr = match serde_json::from_str(line) {
        Ok(repr) => repr,
        Err(_) => return parse_tree_only(line, atoms),
    };
    let json_str = |raw: &RawValue| raw.get().starts_with('"').then(|| JsonStr(span(raw)));
    let entry_type = repr.entry_type.map_or("", RawValue::get);
    if entry_type == "\"session\"" {
        if !want_header {
            return Parsed::Ignored;
        }
        return Parsed::Header(Header {
            id: repr.id.and_then(string),
            version: repr.version.and_then(number),
            timestamp: repr.timestamp.and_then(string),
            cwd: repr.cwd.and_then(string),
            ..Header::default()
        });
    }
    let kind = match entry_type {
        "\"message\"" => match repr.message {
            Some(message) => message_kind(&message, &span, atoms),
            None => PendingKind::Ready(EntryKind::Other),
        },
        "\"compaction\"" => PendingKind::Ready(EntryKind::Compaction {
            summary: repr.summary.map(&span),
        }),
        "\"branch_summary\"" => PendingKind::Ready(EntryKind::BranchSummary {
            summary: repr.summary.map(&span),
        }),
        "\"custom_message\"" => PendingKind::Ready(EntryKind::CustomMessage {
            custom_type: repr.custom_type.and_then(json_str),
            content: repr.content.map(&span),
        }),
        "\"custom\"" => {
            let is_marker = repr.custom_type.and_then(string).as_deref() == Some(RESET_MARKER_TYPE);
            PendingKind::Ready(EntryKind::Custom {
                custom_type: repr.custom_type.and_then(json_str),
                window_id: repr.data.filter(|_| is_marker).and_then(marker_window_id),
            })
        }
        _ => PendingKind::Ready(EntryKind::Other),
    };
    let unknown = repr
        .entry_type
        .and_then(string)
        .filter(|t| !ENTRY_TYPES.contains(&t.as_str()));
    let entry = PendingEntry {
        id: repr
            .id
            .and_then(|raw| intern(atoms, raw))
            .map(EntryId::Atom),
        parent_id: repr
            .parent_id
            .and_then(|raw| intern(atoms, raw))
            .map(EntryId::Atom),
        parent_before: false,
        timestamp: repr.timestamp.map(&span),
        kind,
        record: None,
    };
    match unknown {
        Some(record_type) => Parsed::Unknown(record_type, entry),
        None => Parsed::Entry(entry),
    }
}

fn parse_tree_only(line: &str, atoms: &mut String) -> Parsed {
    let Ok(repr) = serde_json::from_str::<TreeOnlyRepr>(line) else {
        return Parsed::Malformed;
    };
    let text = |v: Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => Some(s),
        _ => None,
    };
    let entry_type = text(repr.entry_type).unwrap_or_default();
    if entry_type == "session" {
        return Parsed::Ignored;
    }
    let kind = if entry_type == "message" {
        EntryKind::Message(Message::Unknown)
    } else {
        EntryKind::Other
    };
    Parsed::Entry(PendingEntry {
        id: text(repr.id).map(|id| EntryId::Atom(push_atom(atoms, &id))),
        parent_id: text(repr.parent_id).map(|id| EntryId::Atom(push_atom(atoms, &id))),
        parent_before: false,
        timestamp: None,
        kind: PendingKind::Ready(kind),
        record: None,
    })
}

fn message_kind(
    m: &MessageRepr,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> PendingKind {
    let json_str = |raw: &RawValue| raw.get().starts_with('"').then(|| JsonStr(span(raw)));
    let message = match m.role.map_or("", RawValue::get) {
        "\"user\"" => Message::User {
            content: m.content.map(span),
        },
        "\"assistant\"" => Message::Assistant {
            content: m.content.map(span),
            tool_calls: m
                .content
                .map(|c| tool_calls(c, span, atoms))
                .unwrap_or_default(),
            own_event: true,
        },
        "\"toolResult\"" => {
            let (output_truncated, full_output_path) = m
                .details
                .map(|d| tool_truncation(d, span))
                .unwrap_or_default();
            Message::ToolResult {
                tool_call_id: m.tool_call_id.and_then(|raw| intern(atoms, raw)),
                tool_name: m.tool_name.and_then(|raw| intern(atoms, raw)),
                is_error: m.is_error.is_some_and(is_true),
                content: m.content.map(span),
                output_truncated,
                full_output_path,
            }
        }
        "\"bashExecution\"" => Message::BashExecution {
            command: m.command.map(span),
            output: m.output.map(span),
            truncated: m.truncated.is_some_and(is_true),
            full_output_path: m.full_output_path.and_then(json_str),
        },
        "\"custom\"" => Message::Custom {
            content: m.content.map(span),
        },
        "\"hookMessage\"" => return PendingKind::HookMessage(m.content.map(span)),
        "\"compactionSummary\"" => Message::CompactionSummary {
            summary: m.summary.map(span),
        },
        "\"branchSummary\"" => Message::BranchSummary {
            summary: m.summary.map(span),
        },
        "\"system\"" => Message::System,
        _ => Message::Unknown,
    };
    PendingKind::Ready(EntryKind::Message(message))
}

fn tool_calls(
    content: &RawValue,
    span: &impl Fn(&RawValue) -> Span,
    atoms: &mut String,
) -> Vec<ToolCall> {
    blocks::<BlockRepr>(content.get())
        .into_iter()
        .filter(|b| b.block_type.is_some_and(|t| t.get() == "\"toolCall\""))
        .map(|b| ToolCall {
            id: b.id.and_then(|raw| intern(atoms, raw)),
            name: b.name.and_then(|raw| intern(atoms, raw)),
            arguments: b.arguments.map(span),
            arguments_in_string: false,
        })
        .collect()
}

fn tool_truncation(
    details: &RawValue,
    span: &impl Fn(&RawValue) -> Span,
) -> (bool, Option<JsonStr>) {
    let Ok(details) = serde_json::from_str::<ToolDetailsRepr>(details.get()) else {
        return (false, None);
    };
    let path = details
        .full_output_path
        .filter(|raw| raw.get().starts_with('"'))
        .map(|raw| JsonStr(span(raw)));
    let truncated = details
        .truncation
        .and_then(|t| serde_json::from_str::<TruncationRepr>(t.get()).ok())
        .and_then(|t| t.truncated)
        .is_some_and(is_true);
    (truncated || path.is_some(), path)
}

fn marker_window_id(data: &RawValue) -> Option<String> {
    match serde_json::from_str::<MarkerDataRepr>(data.get())
        .ok()?
        .window_id?
    {
        serde_json::Value::String(s) if !s.is_empty() => Some(s),
        _ => None,
    }
}
