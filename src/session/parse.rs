//! The incremental line parser: each line is handed to the file's harness reader (one
//! dispatch, [`Reader::read_line`]) and the entries it makes are settled: ids, parents, kinds.

use super::entries::Atoms;
use super::harness::{self, Reader};
use super::record::{push_atom, PendingEntry, PendingKind, Read};
use super::{Entries, Entry, EntryId, EntryKind, Header, Message, Session, Source, Span};

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
    /// The reader was loaded from an index without its state (the file held nothing past the
    /// index): it must read no line, and the parser is not indexed again.
    pub(super) reader_state_skipped: bool,
    /// Records of types the reader does not know, by type.
    pub unknown: std::collections::BTreeMap<String, u32>,
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
        debug_assert!(
            !self.reader_state_skipped,
            "lines read without the reader's state"
        );
        let mut line = std::mem::take(&mut self.line);
        let mut atoms = self.atoms.take(&self.entries);
        let mut start = from;
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            self.lines += 1;
            line.clear();
            line.extend_from_slice(&bytes[start..end]);
            self.feed_line(&line, start, bytes, &mut atoms);
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

    /// Parses one line, which starts at byte `start` of the session (`bytes`, of which the
    /// lines are a part: a whole-file document is read from them when its last line comes).
    fn feed_line(&mut self, line: &[u8], start: usize, bytes: &[u8], atoms: &mut String) {
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
            // `{` alone opens a whole-file document only as a whole first line: a first record
            // torn after its `{` (a write under way) decides nothing.
            let whole = start + line.len() < bytes.len();
            let decided = harness::detect_line(text).or_else(|| {
                (self.lines == 1 && whole).then(|| harness::detect_first_line(text))?
            });
            if let Some(harness) = decided {
                self.reader = Reader::new(harness);
            }
        }
        let span = Span {
            start,
            end: start + line.len(),
        };
        let irregular = has_irregular_escapes(line);
        let read = match self.reader.read_line(text, base, &mut self.header, atoms) {
            Read::Document(from) => self.read_document(bytes, from, span.end, atoms),
            read => read,
        };
        match read {
            Read::Entries(entries) => {
                for (k, p) in entries.into_iter().enumerate() {
                    let entry = self.settle(p, span, irregular, k, atoms);
                    self.entries.push(entry);
                }
            }
            Read::Malformed | Read::Document(_) => self.skipped += 1,
            Read::Unknown {
                record_type,
                entries,
            } => {
                *self.unknown.entry(record_type).or_default() += 1;
                for (k, p) in entries.into_iter().enumerate() {
                    let entry = self.settle(p, span, irregular, k, atoms);
                    self.entries.push(entry);
                }
            }
        }
    }

    /// The entries of the whole-file JSON document `bytes[from..end]`, copied first (as a line
    /// is: mapped bytes can change under the reader).
    fn read_document(&mut self, bytes: &[u8], from: usize, end: usize, atoms: &mut String) -> Read {
        let Some(Ok(document)) = bytes
            .get(from..end)
            .map(|raw| String::from_utf8(raw.to_vec()))
        else {
            return Read::Malformed;
        };
        let base = (document.as_ptr() as usize).wrapping_sub(from);
        self.reader
            .read_document(&document, base, &mut self.header, atoms)
    }

    /// Gives the entry its id. A v1 file (a header without a numeric version, a version below
    /// 2, or no header yet) is linear: Pi migrates it by chaining its entries in file order
    /// under fresh ids, whatever ids and parents they carry, so every entry gets the synthetic
    /// id `line:<N>` and the previous entry as its parent.
    /// Settles the `k`-th entry a line made: its id and parent. In a linear file the first
    /// entry of line N is `line:N` and a later one of the same line `line:N#k` (Cursor writes a
    /// message's tool results and its text on one line), each under the entry before it; in a
    /// tree, an entry without an id of its own is `line:N`.
    fn settle(
        &self,
        p: PendingEntry,
        span: Span,
        irregular_escapes: bool,
        k: usize,
        atoms: &mut String,
    ) -> Entry {
        let version = self.header.as_ref().and_then(|h| h.version);
        let lines = self.lines;
        let mut synthetic = || match k {
            0 => EntryId::Line(lines),
            k => EntryId::Atom(push_atom(atoms, &format!("line:{lines}#{k}"))),
        };
        let linear = self.reader.is_linear(self.header.as_ref());
        let (id, parent_id) = if linear {
            (synthetic(), self.entries.last().map(|e| e.id))
        } else {
            (p.id.unwrap_or(EntryId::Line(lines)), p.parent_id)
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
            span: p.record.unwrap_or(span),
            irregular_escapes: irregular_escapes || p.record.is_some(),
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
            unknown_types: self.unknown,
            atoms: self.atoms,
            harness: self.reader.harness(),
        }
    }
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
