//! Reading a Pi session file: an append-only JSONL tree of entries.
//!
//! The reader is tolerant by design. Pi appends while we read, third-party tools write their own
//! entry types, and old files predate ids. So: a line that is not UTF-8, not JSON or not an object
//! is skipped and counted; unknown entry types and roles are kept as inert entries; a missing file
//! is an empty session. The file is never locked or written.
//!
//! Heavy payloads (message content, tool arguments, summaries) are not decoded here. Each entry
//! records the byte [`Span`] of the raw JSON value, and callers decode only what they need; that
//! keeps a full read of a large session close to the cost of one JSON scan.

mod parse;

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::path::Path;

pub use parse::parse_line_for_fuzzing;

/// The byte range of a raw JSON value inside the session text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// The session header: the first `type:"session"` object of the file.
#[derive(Debug, Clone, Default)]
pub struct Header {
    pub id: Option<String>,
    /// `None` when the header has no numeric `version` (a v1 file).
    pub version: Option<u64>,
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: usize,
    /// The entry id, or a synthetic `line:<N>` id for v1 files and entries without one.
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: Option<String>,
    pub kind: EntryKind,
}

#[derive(Debug, Clone)]
pub enum EntryKind {
    Message(Message),
    Compaction { summary: Option<Span> },
    BranchSummary { summary: Option<Span> },
    /// An extension message that enters the model's context (pi-context boot and continuation).
    CustomMessage { custom_type: Option<String>, content: Option<Span> },
    /// Extension state that never enters the context; pi-context reset markers are these.
    Custom { custom_type: Option<String>, window_id: Option<String> },
    /// Every other entry type (`model_change`, `label`, `session_info`, unknown types, …).
    Other { entry_type: String },
}

#[derive(Debug, Clone)]
pub enum Message {
    User {
        content: Option<Span>,
    },
    Assistant {
        content: Option<Span>,
        tool_calls: Vec<ToolCall>,
    },
    ToolResult {
        tool_call_id: Option<String>,
        tool_name: Option<String>,
        is_error: bool,
        content: Option<Span>,
        output_truncated: bool,
        full_output_path: Option<String>,
    },
    BashExecution {
        command: Option<Span>,
        output: Option<Span>,
        truncated: bool,
        full_output_path: Option<String>,
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
    Unknown {
        role: String,
    },
}

#[derive(Debug, Clone)]
pub struct ToolCall {
    pub id: Option<String>,
    pub name: Option<String>,
    /// The raw `arguments` JSON exactly as written, when present.
    pub arguments: Option<Span>,
}

/// A parsed session: the text, its header and entries in file order.
#[derive(Debug, Default)]
pub struct Session {
    text: String,
    pub header: Option<Header>,
    pub entries: Vec<Entry>,
    /// Lines that were not UTF-8, not JSON, or not JSON objects.
    pub skipped_lines: usize,
    index_by_id: HashMap<String, usize>,
}

impl Session {
    /// Reads a session file. A missing file is an empty session (Pi creates the file lazily).
    pub fn open(path: &Path) -> io::Result<Session> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(Session::from_bytes(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Session::default()),
            Err(e) => Err(e),
        }
    }

    /// Parses session bytes. Lines that are not UTF-8 are blanked (and counted as skipped) so
    /// that line numbers and byte spans stay meaningful.
    pub fn from_bytes(bytes: Vec<u8>) -> Session {
        let (text, invalid_lines) = match String::from_utf8(bytes) {
            Ok(text) => (text, 0),
            Err(e) => blank_invalid_lines(e.into_bytes()),
        };
        let mut session = parse::parse_text(text);
        session.skipped_lines += invalid_lines;
        session
    }

    /// Parses a list of JSON lines (the extension's in-memory session fallback).
    pub fn from_lines<S: AsRef<str>>(lines: &[S]) -> Session {
        let mut text = String::new();
        for line in lines {
            // A line that itself contains a newline would shift every later line number; JSON
            // text never needs a raw newline, so such a line is malformed and becomes two lines
            // that fail to parse, which is the honest outcome.
            text.push_str(line.as_ref());
            text.push('\n');
        }
        parse::parse_text(text)
    }

    /// The session id from the header, if it has one.
    pub fn id(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.id.as_deref())
    }

    /// The whole session text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The raw JSON text of a span.
    pub fn raw(&self, span: Span) -> &str {
        &self.text[span.start..span.end]
    }

    /// The index of the entry with this id (a repeated id: the later line wins).
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.index_by_id.get(id).copied()
    }

    /// Decodes a JSON string value; anything else (null, number, missing) is empty.
    pub fn string_value(&self, span: Option<Span>) -> Cow<'_, str> {
        span.and_then(|s| decode_json_string(self.raw(s)))
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
            Some(b'"') => decode_json_string(raw).unwrap_or(Cow::Borrowed("")),
            Some(b'[') => Cow::Owned(join_text_blocks(raw)),
            _ => Cow::Borrowed(""),
        }
    }

    /// Whether content has no text at all, decided without decoding it.
    pub fn content_is_empty(&self, span: Option<Span>) -> bool {
        let Some(span) = span else { return true };
        let raw = self.raw(span);
        match raw.as_bytes().first() {
            Some(b'"') => raw == "\"\"",
            Some(b'[') => parse::text_blocks(raw).iter().all(|t| t.get() == "\"\""),
            _ => true,
        }
    }
}

fn decode_json_string(raw: &str) -> Option<Cow<'_, str>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
}

fn join_text_blocks(raw: &str) -> String {
    let mut out = String::new();
    for (i, text) in parse::text_blocks(raw).iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&decode_json_string(text.get()).unwrap_or_default());
    }
    out
}

fn blank_invalid_lines(bytes: Vec<u8>) -> (String, usize) {
    let mut text = String::with_capacity(bytes.len());
    let mut invalid = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        match std::str::from_utf8(line) {
            Ok(valid) => text.push_str(valid),
            Err(_) => {
                invalid += 1;
                if line.ends_with(b"\n") {
                    text.push('\n');
                }
            }
        }
    }
    (text, invalid)
}

#[cfg(test)]
mod tests;
