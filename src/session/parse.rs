//! Line-level parsing of session JSONL into [`Entry`] values with raw spans.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::entries::Atoms;
use super::harness::{self, Reader};
use super::{
    Atom, Entries, Entry, EntryId, EntryKind, Header, JsonStr, Message, Session, Source, Span,
    ToolCall, RESET_MARKER_TYPE,
};

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
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
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

/// The kind of a parsed entry, before `hookMessage` is resolved against the header version.
pub(super) enum PendingKind {
    Ready(EntryKind),
    /// A `hookMessage`, which is `custom` below version 3.
    HookMessage(Option<Span>),
}

/// An entry as parsed from its line, before its id is settled.
pub(super) struct PendingEntry {
    pub id: Option<EntryId>,
    pub parent_id: Option<EntryId>,
    /// See [`Entry::parent_before`].
    pub parent_before: bool,
    pub timestamp: Option<Span>,
    pub kind: PendingKind,
}

impl PendingEntry {
    /// An entry of a settled kind.
    pub fn ready(
        id: Option<EntryId>,
        parent_id: Option<EntryId>,
        timestamp: Option<Span>,
        kind: EntryKind,
    ) -> PendingEntry {
        PendingEntry {
            id,
            parent_id,
            parent_before: false,
            timestamp,
            kind: PendingKind::Ready(kind),
        }
    }
}

/// What a harness's reader made of one line.
pub(super) enum Read {
    /// The line's entries, in order (none: a record that is not an entry).
    Entries(Vec<PendingEntry>),
    /// Not UTF-8 JSON object, or not one the format can read: skipped and counted.
    Malformed,
}

/// Incremental line parser: [`Parser::feed`] may be called for a prefix and later for what Pi
/// appended, with spans always absolute in the session bytes.
#[derive(Debug, Default)]
pub(super) struct Parser {
    pub header: Option<Header>,
    pub entries: Entries,
    pub skipped: usize,
    /// Lines seen so far, blank ones included.
    pub lines: usize,
    /// The atom table the entries' ids and tool names point into.
    pub atoms: Atoms,
    /// The line being parsed, copied out of the session bytes (see [`Parser::feed`]).
    pub(super) line: Vec<u8>,
    /// The format's line reader and what it remembers between lines.
    pub(super) reader: Reader,
}

impl Parser {
    /// Parses the lines of `bytes[from..]`. Each line is copied before it is parsed: the bytes
    /// of a mapped file can change under the map (a rewrite in place), and the JSON parser must
    /// see the text it checked to be UTF-8. A changed file costs a wrong parse, which the
    /// reader's consistency check discards, never a panic.
    pub fn feed(&mut self, bytes: &[u8], from: usize) {
        if from >= bytes.len() {
            return;
        }
        let mut line = std::mem::take(&mut self.line);
        let mut atoms = self.atoms.take(&self.entries);
        let mut start = from;
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            self.lines += 1;
            line.clear();
            line.extend_from_slice(&bytes[start..end]);
            self.feed_line(&line, start, &mut atoms);
            start = end + 1;
        }
        self.line = line;
        self.atoms = Atoms::owned(atoms);
    }

    /// Decodes every stored entry and the atom table: `false` when the index turned out
    /// corrupt.
    pub fn decode_all(&self) -> bool {
        if !self.entries.decode_all() {
            return false;
        }
        self.atoms.text(&self.entries);
        !self.entries.damaged()
    }

    /// Parses one line, which starts at byte `start` of the session.
    fn feed_line(&mut self, line: &[u8], start: usize, atoms: &mut String) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            self.skipped += 1;
            return;
        };
        // Spans are offsets in the session bytes: a pointer into the copy, less `base`.
        let base = (line.as_ptr() as usize).wrapping_sub(start);
        if matches!(self.reader, Reader::Undecided) {
            if let Some(harness) = harness::detect_line(text) {
                self.reader = Reader::new(harness);
            }
        }
        let span = Span {
            start,
            end: start + line.len(),
        };
        let irregular = has_irregular_escapes(line);
        let read = match &mut self.reader {
            Reader::Undecided | Reader::Pi => {
                match parse_line(text, base, self.header.is_none(), atoms) {
                    Parsed::Header(h) => {
                        self.header = Some(h);
                        return;
                    }
                    Parsed::Entry(p) => {
                        let entry = self.settle(p, span, irregular);
                        self.entries.push(entry);
                        return;
                    }
                    Parsed::Ignored => return,
                    Parsed::Malformed => Read::Malformed,
                }
            }
            Reader::Claude(state) => {
                harness::claude::read_line(state, text, base, &mut self.header, atoms)
            }
            Reader::Codex(state) => {
                harness::codex::read_line(state, text, base, &mut self.header, atoms)
            }
        };
        match read {
            Read::Entries(entries) => {
                for p in entries {
                    let entry = self.settle(p, span, irregular);
                    self.entries.push(entry);
                }
            }
            Read::Malformed => self.skipped += 1,
        }
    }

    /// Gives the entry its id. A v1 file (a header without a numeric version, a version below
    /// 2, or no header yet) is linear: Pi migrates it by chaining its entries in file order
    /// under fresh ids, whatever ids and parents they carry, so every entry gets the synthetic
    /// id `line:<N>` and the previous entry as its parent.
    fn settle(&self, p: PendingEntry, span: Span, irregular_escapes: bool) -> Entry {
        let version = self.header.as_ref().and_then(|h| h.version);
        let synthetic = EntryId::Line(self.lines);
        let linear = match self.reader {
            Reader::Undecided | Reader::Pi => is_linear(version),
            _ => self.reader.is_linear(),
        };
        let (id, parent_id) = if linear {
            (synthetic, self.entries.last().map(|e| e.id))
        } else {
            (p.id.unwrap_or(synthetic), p.parent_id)
        };
        let kind = match p.kind {
            PendingKind::Ready(kind) => kind,
            PendingKind::HookMessage(content) if version.unwrap_or(1) < 3 => {
                EntryKind::Message(Message::Custom { content })
            }
            PendingKind::HookMessage(_) => EntryKind::Message(Message::Unknown),
        };
        Entry {
            line: self.lines,
            span,
            irregular_escapes,
            id,
            parent_id,
            parent_before: p.parent_before && !linear,
            timestamp: p.timestamp,
            kind,
        }
    }

    pub fn into_session(self, source: Source) -> Session {
        Session {
            source,
            header: self.header,
            entries: self.entries,
            skipped_lines: self.skipped,
            atoms: self.atoms,
            harness: self.reader.harness(),
        }
    }
}

/// Whether entries under a header of this version form one chain in file order (v1), as Pi's
/// `migrateV1ToV2` makes them for any header version below 2.
fn is_linear(version: Option<u64>) -> bool {
    version.is_none_or(|v| v < 2)
}

/// Whether a line escapes a character that search runs may contain: anything but a control
/// character as `\uXXXX` (Python's `\u00e9`, Go's `\u003c`), or a slash (`\/`). Conservative: an
/// escaped backslash followed by `u` also counts.
fn has_irregular_escapes(line: &[u8]) -> bool {
    memchr::memchr_iter(b'\\', line).any(|i| match line.get(i + 1) {
        Some(b'/') => true,
        Some(b'u') => line
            .get(i + 2..i + 6)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .is_some_and(|code| code >= 0x20),
        _ => false,
    })
}

enum Parsed {
    Header(Header),
    Entry(PendingEntry),
    /// A valid object that is not an entry (a second header).
    Ignored,
    Malformed,
}

/// Parses one line for the fuzz target: returns whether the line was accepted.
pub fn parse_line_for_fuzzing(line: &str) -> bool {
    let parsed = parse_line(line, line.as_ptr() as usize, true, &mut String::new());
    !matches!(parsed, Parsed::Malformed)
}

/// Decodes a JSON string value into the atom table.
pub(super) fn intern(atoms: &mut String, raw: &RawValue) -> Option<Atom> {
    let text = raw.get();
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        let decoded = serde_json::from_str::<String>(text).ok()?;
        Some(push_atom(atoms, &decoded))
    } else {
        Some(push_atom(atoms, inner))
    }
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
    Parsed::Entry(PendingEntry {
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
    })
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
    })
}

pub(super) fn push_atom(atoms: &mut String, text: &str) -> Atom {
    let start = atoms.len();
    atoms.push_str(text);
    Atom {
        start: start as u32,
        len: text.len() as u32,
    }
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
    blocks(content.get())
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

/// The block types whose `text` is message text: Pi's and Claude Code's `text`, Codex's
/// `input_text` and `output_text`.
const TEXT_BLOCK_TYPES: [&str; 3] = ["\"text\"", "\"input_text\"", "\"output_text\""];

/// The raw `text` values of the text blocks of a content array.
pub(super) fn text_blocks(raw: &str) -> Vec<&RawValue> {
    blocks(raw)
        .into_iter()
        .filter(|b| {
            b.block_type
                .is_some_and(|t| TEXT_BLOCK_TYPES.contains(&t.get()))
        })
        .filter_map(|b| b.text.filter(|t| t.get().starts_with('"')))
        .collect()
}

/// The blocks of a content array; elements that are not objects are dropped.
fn blocks(raw: &str) -> Vec<BlockRepr<'_>> {
    if let Ok(blocks) = serde_json::from_str::<Vec<BlockRepr>>(raw) {
        return blocks;
    }
    serde_json::from_str::<Vec<&RawValue>>(raw)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|element| serde_json::from_str(element.get()).ok())
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

pub(super) fn string(raw: &RawValue) -> Option<String> {
    serde_json::from_str::<String>(raw.get()).ok()
}

fn number(raw: &RawValue) -> Option<u64> {
    let n: serde_json::Number = serde_json::from_str(raw.get()).ok()?;
    n.as_u64()
        .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
}

pub(super) fn is_true(raw: &RawValue) -> bool {
    raw.get() == "true"
}

/// The span of a raw JSON value borrowed from a line copy that starts at `base` (a pointer
/// into the copy, less the line's offset in the session bytes).
pub(super) fn span_in(raw: &RawValue, base: usize) -> Span {
    let start = (raw.get().as_ptr() as usize).wrapping_sub(base);
    Span {
        start,
        end: start + raw.get().len(),
    }
}
