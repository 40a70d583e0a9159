//! Reading a session file of Pi, Claude Code, Codex, Gemini CLI, GitHub Copilot CLI or Cursor
//! (JSONL; Gemini CLI's older chats are whole-file JSON) as a tree of entries.
//!
//! The reader is tolerant by design. Pi appends while we read (and sometimes rewrites the file in
//! place), third-party tools write their own entry types, and old files predate ids. So: a line
//! that is not UTF-8, not JSON or not an object is skipped and counted; unknown entry types and
//! roles are kept as inert entries; a missing file is an empty session; a read that may have seen
//! two versions of a rewritten file is done again ([`read_consistently`]). The file is never
//! locked or written.
//!
//! Heavy payloads (message content, tool arguments, summaries) are not decoded here. Each entry
//! records the byte [`Span`] of the raw JSON value, and callers decode only what they need; that
//! keeps a full read of a large session close to the cost of one JSON scan.

mod cache;
mod entries;
mod error;
mod file;
mod harness;
mod parse;
mod record;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::cachefile::GuardedMap;

pub use entries::{shape, shape_code, Entries};
pub use error::SessionError;
pub use file::{detect_file, id_in_head, read_consistently, SessionFile};
pub use harness::pi::parse_line_for_fuzzing;
pub use harness::{
    detect, detect_line, AgentConfig, AgentFacts, ContextOutput, Harness, Layout, Root,
    UnknownHarness, DETECT_BYTES, MCP_SERVER,
};

// The custom types pi-context writes into Pi sessions (docs/lifecycle.md). The extension reads
// them from `pi-context tool --schemas` (`facts`; docs/protocol.md, "The facts").

/// A `custom` entry `{windowId}`: the start of a context window.
pub const RESET_MARKER_TYPE: &str = "pi-context/reset-marker";
/// The hidden boot block at a window head.
pub const BOOT_MESSAGE_TYPE: &str = "pi-context/boot";
/// The hidden "your memory was just wiped" message after a reset boot.
pub const CONTINUATION_MESSAGE_TYPE: &str = "pi-context/continuation";
/// The hidden recall hint given with a user prompt (not indexed: it repeats another session).
pub const HINT_MESSAGE_TYPE: &str = "pi-context/hint";
/// The hidden budget reminder.
pub const GUIDANCE_MESSAGE_TYPE: &str = "pi-context/guidance";
/// The hidden close-out warning.
pub const WARNING_MESSAGE_TYPE: &str = "pi-context/warning";
/// The hidden request an idle `/wipe-memory` sends to start its turn.
pub const MANUAL_WIPE_MESSAGE_TYPE: &str = "pi-context/manual-wipe";

/// The blocks pi-context pushes into other agents through their hooks (docs/agents.md), by the
/// tag that opens each, with the custom type a Pi session would give it. An agent may keep such
/// a block in its transcript (Codex as a `developer` message): there it is a context event that
/// is never indexed, never hinted and never counted as anyone's words ([`pushed_block`]).
pub const PUSHED_BLOCKS: [(&str, &str); 5] = [
    ("<pi_context_boot>", BOOT_MESSAGE_TYPE),
    ("<recall_hint>", HINT_MESSAGE_TYPE),
    ("<pi_context_compacted>", COMPACTED_MESSAGE_TYPE),
    ("<pi_context_resumed>", RESUMED_MESSAGE_TYPE),
    ("<pi_context_compaction_request>", COMPACTION_REQUEST_TYPE),
];
/// The block pushed after an agent's compaction: what left the context, and the way back.
pub const COMPACTED_MESSAGE_TYPE: &str = "pi-context/compacted";
/// The line pushed when an agent resumes a session that already got its boot.
pub const RESUMED_MESSAGE_TYPE: &str = "pi-context/resumed";
/// What is asked of an agent's compaction summary.
pub const COMPACTION_REQUEST_TYPE: &str = "pi-context/compaction-request";

/// The custom type of the pushed block `text` is (its first non-blank characters are the
/// block's tag), if it is one. Gemini CLI keeps a hook's context wrapped in `<hook_context>` with
/// `<` and `>` escaped: `<hook_context>&lt;recall_hint&gt;…` is the hint too.
pub fn pushed_block(text: &str) -> Option<&'static str> {
    let text = text.trim_start();
    let wrapped = text
        .strip_prefix("<hook_context>")
        .map(|inner| inner.trim_start().strip_prefix("&lt;"));
    PUSHED_BLOCKS
        .iter()
        .find(|(tag, _)| match wrapped {
            Some(Some(escaped)) => escaped.starts_with(&tag[1..tag.len() - 1]),
            Some(None) => text["<hook_context>".len()..].trim_start().starts_with(tag),
            None => text.starts_with(tag),
        })
        .map(|(_, custom_type)| *custom_type)
}

/// The byte range of a raw JSON value (or a line) inside the session bytes. A span may also hold
/// the head or the tail of a JSON string, cut between two characters: its raw bytes open with
/// the string's quote and do not close with one (the head), or close with it and do not open
/// with one (the tail). A string is cut where an agent put its own text and the user's words in
/// one string (Gemini CLI's hook context before a prompt): the two parts are two events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// A JSON string value inside the session bytes (its span includes the quotes); decoded with
/// [`Session::str`]. Keeping strings as spans makes the index cheap to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonStr(pub Span);

/// A short string (an id or a tool name) kept in the session's atom table, so that projecting
/// a branch never touches the session file and the index loads without an allocation per string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Atom {
    pub start: u32,
    pub len: u32,
}

/// An entry id: the string the file gives, or a synthetic `line:<N>` id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EntryId {
    Atom(Atom),
    /// `line:<N>`: v1 files and entries without an id.
    Line(usize),
}

impl Entry {
    /// A stand-in for an entry of a corrupt index chunk, with its line's span.
    fn placeholder(span: Span) -> Entry {
        Entry {
            line: 0,
            span,
            irregular_escapes: false,
            id: EntryId::Line(0),
            parent_id: None,
            parent_before: false,
            timestamp: None,
            kind: EntryKind::Other,
        }
    }
}

/// The session header: the first `type:"session"` object of a Pi file; for another harness,
/// what its records say of the session (docs/harnesses.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Header {
    pub id: Option<String>,
    /// `None` when the header has no numeric `version` (a v1 file; always for other harnesses).
    pub version: Option<u64>,
    /// When the session started.
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
    /// The session's name, when the file gives one (Claude Code's `summary` records).
    pub name: Option<String>,
    /// The session a subagent's transcript belongs to (Claude Code's `sessionId` in a sidechain,
    /// the directory above a Cursor subagent's `subagents/`).
    pub parent_session_id: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: usize,
    /// The bytes of the whole line.
    pub span: Span,
    /// The line escapes a non-ASCII character or `/` (`\u00e9`, `\/`), so its raw bytes do not
    /// show the text verbatim; search prefilters must always look at such a line.
    pub irregular_escapes: bool,
    /// The entry id, or a synthetic `line:<N>` id for v1 files and entries without one.
    pub id: EntryId,
    pub parent_id: Option<EntryId>,
    /// The parent is an entry before this one in the file, and when none before it has
    /// `parent_id`, the entry just before it is the parent: a Claude Code compaction boundary,
    /// whose logical parent can be a record that was never written (see [`Session::parent_of`]).
    pub parent_before: bool,
    /// The raw `timestamp` value; [`Session::timestamp`] decodes it.
    pub timestamp: Option<Span>,
    pub kind: EntryKind,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum EntryKind {
    Message(Message),
    Compaction {
        summary: Option<Span>,
    },
    BranchSummary {
        summary: Option<Span>,
    },
    /// An extension message that enters the model's context (pi-context boot and continuation).
    CustomMessage {
        custom_type: Option<JsonStr>,
        content: Option<Span>,
    },
    /// Extension state that never enters the context; pi-context reset markers are these.
    Custom {
        custom_type: Option<JsonStr>,
        window_id: Option<String>,
    },
    /// Every other entry type (`model_change`, `label`, `session_info`, unknown types, …).
    Other,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Message {
    User {
        content: Option<Span>,
    },
    Assistant {
        content: Option<Span>,
        tool_calls: Vec<ToolCall>,
        /// Whether the message is an assistant event of its own before its calls (Pi: always;
        /// a Claude Code or Codex record that only calls a tool: no, so it takes no seq).
        own_event: bool,
    },
    ToolResult {
        tool_call_id: Option<Atom>,
        tool_name: Option<Atom>,
        is_error: bool,
        content: Option<Span>,
        output_truncated: bool,
        full_output_path: Option<JsonStr>,
    },
    BashExecution {
        command: Option<Span>,
        output: Option<Span>,
        truncated: bool,
        full_output_path: Option<JsonStr>,
    },
    /// `custom` (and `hookMessage` before version 3).
    Custom {
        content: Option<Span>,
    },
    CompactionSummary {
        summary: Option<Span>,
    },
    BranchSummary {
        summary: Option<Span>,
    },
    /// A 1.6 `system` message: the prompt and tool declarations; never projected.
    System,
    /// A role this reader does not know (or a `message` that is not an object).
    Unknown,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: Option<Atom>,
    pub name: Option<Atom>,
    /// The raw `arguments` JSON exactly as written, when present.
    pub arguments: Option<Span>,
    /// The arguments are a JSON string holding their text (Codex's `arguments` and `input`):
    /// the document shows the string's text, not its JSON literal.
    pub arguments_in_string: bool,
}

/// How [`Session::open_with`] may use an on-disk index of a large session.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// Where index files live; `None` disables the index.
    pub cache_dir: Option<PathBuf>,
    /// Files smaller than this are parsed directly and never indexed.
    pub cache_min_bytes: u64,
}

/// The bytes a session's spans point into; cheap to clone, so that a search can scan them on
/// another thread while they are parsed.
#[derive(Debug, Default, Clone)]
enum Source {
    #[default]
    Empty,
    Owned(Arc<Vec<u8>>),
    /// A read-only memory map of the session file, guarded against the file shrinking.
    Mapped(Arc<GuardedMap>),
}

impl Source {
    fn bytes(&self) -> &[u8] {
        match self {
            Source::Empty => &[],
            Source::Owned(bytes) => bytes,
            Source::Mapped(map) => map.bytes(),
        }
    }

    /// Whether a read past the end of a shrunk file was answered with zeros.
    fn damaged(&self) -> bool {
        matches!(self, Source::Mapped(map) if map.damaged())
    }
}

/// A parsed session: its bytes, its header and entries in file order.
#[derive(Debug, Default)]
pub struct Session {
    source: Source,
    pub header: Option<Header>,
    pub entries: Entries,
    /// Lines that were not UTF-8, not JSON, or not JSON objects.
    pub skipped_lines: usize,
    /// Records of types the file's reader does not know, by type (kept in the tree, inert).
    pub unknown_types: std::collections::BTreeMap<String, u32>,
    /// The text of every [`Atom`], back to back.
    atoms: entries::Atoms,
    /// The agent that wrote the file, recognized from its first records.
    pub harness: Harness,
}

impl Session {
    /// Reads a session file without an index. A missing file is an empty session (Pi creates
    /// the file lazily).
    pub fn open(path: &Path) -> Result<Session, SessionError> {
        Session::open_with(path, &OpenOptions::default())
    }

    /// Reads a session file, using (and refreshing) an on-disk index when the options allow it,
    /// so that a large session is not re-parsed on every call. The parse is done again when the
    /// file was rewritten while it was read; the spans of the result still point into the file's
    /// bytes, so an operation that must be consistent to its end runs inside
    /// [`read_consistently`] instead.
    pub fn open_with(path: &Path, options: &OpenOptions) -> Result<Session, SessionError> {
        read_consistently(path, |file| Ok(file.session(options)))
    }

    /// Parses session bytes held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Session {
        Session::parse(Source::Owned(Arc::new(bytes)))
    }

    /// Parses a list of JSON lines (the extension's in-memory session fallback).
    pub fn from_lines<S: AsRef<str>>(lines: &[S]) -> Session {
        let mut text = String::new();
        for line in lines {
            text.push_str(line.as_ref());
            text.push('\n');
        }
        Session::from_bytes(text.into_bytes())
    }

    /// Parses a list of JSON lines as the given harness reads them (a line re-read on its own,
    /// without the records before it that would have told its format).
    pub fn from_lines_as<S: AsRef<str>>(harness: Harness, lines: &[S]) -> Session {
        let mut text = String::new();
        for line in lines {
            text.push_str(line.as_ref());
            text.push('\n');
        }
        Session::from_bytes_as(harness, text.into_bytes())
    }

    /// Parses JSON lines as the given harness reads them (see [`Session::from_lines_as`]).
    pub fn from_bytes_as(harness: Harness, bytes: Vec<u8>) -> Session {
        let source = Source::Owned(Arc::new(bytes));
        let mut parser = parse::Parser {
            reader: harness::Reader::new(harness),
            ..parse::Parser::default()
        };
        parser.feed(source.bytes(), 0);
        parser.into_session(source)
    }

    fn parse(source: Source) -> Session {
        let mut parser = parse::Parser::default();
        parser.feed(source.bytes(), 0);
        parser.into_session(source)
    }

    /// An optional JSON string, decoded to an owned string.
    pub fn string(&self, s: Option<JsonStr>) -> Option<String> {
        s.map(|s| self.str(s).into_owned())
    }

    /// The session id from the header, if it has one.
    pub fn id(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.id.as_deref())
    }

    /// The session's name, when the file gives one.
    pub fn name(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.name.as_deref())
    }

    /// The session a subagent's transcript belongs to.
    pub fn parent_session_id(&self) -> Option<&str> {
        self.header
            .as_ref()
            .and_then(|h| h.parent_session_id.as_deref())
    }

    /// The session bytes.
    pub fn bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    /// The raw JSON text of a span (empty if the span no longer holds UTF-8). The bytes of a
    /// mapped file are copied first: they can change under the map (a rewrite in place), and
    /// text that was checked to be UTF-8 must stay what was checked.
    pub fn raw(&self, span: Span) -> Cow<'_, str> {
        let Some(bytes) = self.bytes().get(span.start..span.end) else {
            return Cow::Borrowed("");
        };
        match &self.source {
            Source::Mapped(_) => Cow::Owned(String::from_utf8(bytes.to_vec()).unwrap_or_default()),
            Source::Empty | Source::Owned(_) => {
                Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or(""))
            }
        }
    }

    /// Decodes the JSON string a span holds; `None` when it holds something else.
    fn decoded(&self, span: Span) -> Option<Cow<'_, str>> {
        match self.raw(span) {
            Cow::Borrowed(raw) => decode_json_string(raw),
            Cow::Owned(raw) => decode_json_string(&raw).map(|s| Cow::Owned(s.into_owned())),
        }
    }

    /// Entry indices by id (a repeated id: the later line wins).
    pub fn id_index(&self) -> rustc_hash::FxHashMap<Cow<'_, str>, usize> {
        // Every id is read: the table once, not an atom at a time.
        self.atoms.text(&self.entries);
        let mut index = rustc_hash::FxHashMap::default();
        index.reserve(self.entries.len());
        for (i, entry) in self.entries.iter().enumerate() {
            index.insert(self.entry_id(&entry.id), i);
        }
        index
    }

    /// The index of entry `index`'s parent, `find` giving the entry an id names (the later
    /// line of a repeated id). An entry whose parent must come before it
    /// ([`Entry::parent_before`]) hangs under the entry just before it when no entry before it
    /// has that id, so that an append can never move it.
    pub fn parent_of(
        &self,
        index: usize,
        find: impl FnOnce(&str) -> Option<usize>,
    ) -> Option<usize> {
        let entry = &self.entries[index];
        let found = find(&self.entry_id(entry.parent_id.as_ref()?));
        if !entry.parent_before {
            return found;
        }
        found.filter(|&p| p < index).or(index.checked_sub(1))
    }

    /// The text of an entry id.
    pub fn entry_id(&self, id: &EntryId) -> Cow<'_, str> {
        match id {
            EntryId::Atom(atom) => self.atom(*atom),
            EntryId::Line(n) => Cow::Owned(format!("line:{n}")),
        }
    }

    /// The ids of the entries in `range`, each to its entry (a repeated id: the later line
    /// wins).
    pub fn ids_in(
        &self,
        range: std::ops::Range<usize>,
    ) -> rustc_hash::FxHashMap<Cow<'_, str>, usize> {
        let start = range.start;
        let mut ids = rustc_hash::FxHashMap::default();
        for (i, entry) in self.entries.range(range).enumerate() {
            ids.insert(self.entry_id(&entry.id), start + i);
        }
        ids
    }

    /// The text of an atom (copied out of the index alone while its atom table is not read).
    pub fn atom(&self, atom: Atom) -> Cow<'_, str> {
        self.atoms.get(&self.entries, atom)
    }

    /// Decodes a JSON string held as a span.
    pub fn str(&self, s: JsonStr) -> Cow<'_, str> {
        self.decoded(s.0).unwrap_or(Cow::Borrowed(""))
    }

    /// The entry whose line holds byte `offset`.
    pub fn entry_at_byte(&self, offset: usize) -> Option<usize> {
        let i = self.entries.partition_point(|span| span.start <= offset);
        let candidate = i.checked_sub(1)?;
        (offset < self.entries.span(candidate)?.end).then_some(candidate)
    }

    /// Whether entries read from the index turned out corrupt (see [`Entries::damaged`]).
    pub fn index_damaged(&self) -> bool {
        self.entries.damaged()
    }

    /// The entry's ISO timestamp, when it is a string.
    pub fn timestamp(&self, entry: &Entry) -> Option<String> {
        entry
            .timestamp
            .and_then(|span| self.decoded(span))
            .map(Cow::into_owned)
    }

    /// Decodes a JSON string value; anything else (null, number, missing) is empty.
    pub fn string_value(&self, span: Option<Span>) -> Cow<'_, str> {
        span.and_then(|s| self.decoded(s))
            .unwrap_or(Cow::Borrowed(""))
    }

    /// The text of message content: a string, or the `text` blocks of an array joined by `\n`
    /// (images, thinking and tool calls are not text). Anything else is empty.
    pub fn content_text(&self, span: Option<Span>) -> Cow<'_, str> {
        let Some(span) = span else {
            return Cow::Borrowed("");
        };
        let raw = self.raw(span);
        match raw.as_bytes().first() {
            Some(b'[') => Cow::Owned(join_text_blocks(&raw)),
            _ if is_string_part(&raw) => self.decoded(span).unwrap_or(Cow::Borrowed("")),
            _ => Cow::Borrowed(""),
        }
    }

    /// `prefix` followed by the text of message content ([`content_text`](Self::content_text)),
    /// built in one buffer: the content's JSON is copied once, after the prefix, and decoded
    /// where it lies. A huge content (a 100 MB tool output) then costs one copy, not the three
    /// of copying, decoding and appending it.
    pub fn content_text_after(&self, prefix: &str, span: Option<Span>) -> String {
        let in_place = span
            .and_then(|span| self.bytes().get(span.start..span.end))
            .and_then(|raw| {
                let mut buffer = Vec::with_capacity(prefix.len() + raw.len());
                buffer.extend_from_slice(prefix.as_bytes());
                buffer.extend_from_slice(raw);
                decode_content_in_place(String::from_utf8(buffer).ok()?, prefix.len())
            });
        in_place.unwrap_or_else(|| format!("{prefix}{}", self.content_text(span)))
    }

    /// Whether content has no text at all, decided without decoding it.
    pub fn content_is_empty(&self, span: Option<Span>) -> bool {
        let Some(span) = span else { return true };
        let raw = self.raw(span);
        match raw.as_bytes().first() {
            Some(b'[') => record::text_blocks(&raw).iter().all(|t| t.get() == "\"\""),
            _ if is_string_part(&raw) => raw.trim_matches('"').is_empty(),
            _ => true,
        }
    }
}

/// Whether raw JSON is a string, or the head or the tail of one ([`Span`]).
fn is_string_part(raw: &str) -> bool {
    raw.starts_with('"') || (raw.ends_with('"') && !raw.starts_with('{'))
}

fn decode_json_string(raw: &str) -> Option<Cow<'_, str>> {
    let opens = raw.starts_with('"');
    let closes = raw.len() > usize::from(opens) && raw.ends_with('"');
    if opens != closes {
        let whole = format!(
            "{}{raw}{}",
            if opens { "" } else { "\"" },
            if closes { "" } else { "\"" }
        );
        return serde_json::from_str::<String>(&whole).ok().map(Cow::Owned);
    }
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
}

fn join_text_blocks(raw: &str) -> String {
    let mut out = String::new();
    for (i, text) in record::text_blocks(raw).iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&decode_json_string(text.get()).unwrap_or_default());
    }
    out
}

/// Decodes the content JSON at `text[at..]` (a string, or an array of blocks) into its text,
/// where it lies, keeping `text[..at]`; `None` when that cannot be done exactly as
/// [`Session::content_text`] would (the caller then takes that path).
fn decode_content_in_place(text: String, at: usize) -> Option<String> {
    let raw = &text[at..];
    let literals: Vec<(usize, usize)> = match raw.as_bytes().first() {
        Some(b'"') if raw.len() > 1 && raw.ends_with('"') => vec![(at, text.len())],
        Some(b'[') => record::text_blocks(raw)
            .iter()
            .map(|block| {
                let start = block.get().as_ptr() as usize - text.as_ptr() as usize;
                (start, start + block.get().len())
            })
            .collect(),
        // The head or the tail of a string: decoded apart.
        _ if is_string_part(raw) => return None,
        _ => Vec::new(),
    };
    let mut bytes = text.into_bytes();
    let mut end = at;
    for (i, &(start, stop)) in literals.iter().enumerate() {
        if i > 0 {
            bytes[end] = b'\n';
            end += 1;
        }
        end = unescape_into(&mut bytes, start, stop, end)?;
    }
    bytes.truncate(end);
    String::from_utf8(bytes).ok()
}

/// Decodes the JSON string literal `bytes[start..stop]` (quotes included) to `bytes[to..]`,
/// `to <= start` (a decoded string is never longer than its literal, so writing never overtakes
/// reading); the end of what was written. `None` for anything serde_json would refuse.
fn unescape_into(bytes: &mut [u8], start: usize, stop: usize, to: usize) -> Option<usize> {
    if stop < start + 2 || bytes[start] != b'"' || bytes[stop - 1] != b'"' {
        return None;
    }
    let (mut read, end, mut write) = (start + 1, stop - 1, to);
    while read < end {
        let byte = bytes[read];
        if byte != b'\\' {
            if byte < 0x20 || byte == b'"' {
                return None;
            }
            bytes[write] = byte;
            write += 1;
            read += 1;
            continue;
        }
        let (ch, escape_len) = escaped_char(&bytes[read..end])?;
        read += escape_len;
        write += ch
            .encode_utf8(&mut bytes[write..write + ch.len_utf8()])
            .len();
    }
    Some(write)
}

/// The character an escape at the start of `bytes` stands for, and the escape's length.
fn escaped_char(bytes: &[u8]) -> Option<(char, usize)> {
    let simple = match bytes.get(1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => return unicode_escape(bytes),
        _ => return None,
    };
    Some((simple, 2))
}

/// `\uXXXX`, or a surrogate pair of two; a lone surrogate is refused, as serde_json does.
fn unicode_escape(bytes: &[u8]) -> Option<(char, usize)> {
    let hex = |at: usize| {
        let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
        u32::from_str_radix(digits, 16).ok()
    };
    let high = hex(2)?;
    if !(0xD800..0xDC00).contains(&high) {
        return Some((char::from_u32(high)?, 6));
    }
    if bytes.get(6..8)? != b"\\u" {
        return None;
    }
    let low = hex(8)?;
    if !(0xDC00..0xE000).contains(&low) {
        return None;
    }
    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)).map(|c| (c, 12))
}

#[cfg(test)]
mod tests;
