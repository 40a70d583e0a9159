//! A session's entries in file order. Those an index holds are decoded a chunk at a time, when
//! first used, so that an operation that needs few of them (a search, a page of a list) does not
//! decode a large session's every entry.
//!
//! An index stores its entries in chunks of [`CHUNK_LEN`] entries, each decodable on its own,
//! and beside them two raw columns that need no decoding: each entry's line [`Span`] with its
//! `irregular_escapes` flag, and its [shape](Entries::shape) (its kind and how many tool calls
//! it has). [`Entries::span`], [`Entries::partition_point`] and [`Entries::shape`] read the
//! columns; every other access decodes the chunk holding the entry, once.
//!
//! A chunk that fails to decode, or decodes to entries that disagree with the columns (a
//! corrupt index), is replaced with stand-ins that keep the column's span and is recorded
//! ([`Entries::damaged`]); a reader that decodes lazily checks that afterwards and reads the
//! session again without the index. A reader that wants every entry decodes them all up front
//! ([`Entries::decode_all`]) and parses the file instead when that fails.

use std::borrow::Cow;
use std::ops::{Index, Range};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use super::{Atom, Entry, EntryKind, Message, Span};
use crate::cachefile::Payload;

/// How many entries an index chunk holds: a search for a rare word decodes one chunk per
/// matching line, so smaller chunks decode less (128 measured faster than 512 on 100 MB).
pub(super) const CHUNK_LEN: usize = 128;

/// The entries of a session, in file order.
#[derive(Default)]
pub struct Entries {
    stored: Option<StoredEntries>,
    /// The entries parsed by this call: all of them without an index, those after it with one.
    parsed: Vec<Entry>,
}

/// The entries an index holds, decoded on first use.
pub(super) struct StoredEntries {
    /// The index payload (mapped, or read) the chunks' byte ranges point into.
    payload: Payload,
    chunks: Vec<StoredChunk>,
    /// Per entry: its line's span.
    spans: Vec<Span>,
    /// Per entry: [`shape_code`] | the `irregular_escapes` flag in bit 31.
    shapes: Vec<u32>,
    /// The byte range of the payload holding the atom table (see [`Atoms`]).
    atoms: Range<usize>,
    damaged: AtomicBool,
}

/// The atom table: the text of every [`Atom`], back to back. A session loaded from its index
/// leaves the table there: the ids it mostly holds (two UUIDs per Claude Code record) are
/// needed to walk the tree, never to read a stored projection, and copying them cost a search
/// of a 100 MB session 10 MB of fresh memory. An atom read before the table is (a tool name in
/// a document a search builds) is copied out alone ([`Atoms::get`]): a common word's search
/// shows tool events, and copying the table for their names was 44% of the page faults of one
/// over a 100 MB Copilot CLI session.
#[derive(Debug, Default)]
pub(super) struct Atoms(OnceLock<String>);

struct StoredChunk {
    bytes: Range<usize>,
    decoded: OnceLock<Box<[Entry]>>,
}

const IRREGULAR: u32 = 1 << 31;

/// Every entry, as a vector of them prints.
impl std::fmt::Debug for Entries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Entries {
    pub(super) fn with_stored(stored: Option<StoredEntries>) -> Entries {
        Entries {
            stored,
            parsed: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, entry: Entry) {
        self.parsed.push(entry);
    }

    fn stored_len(&self) -> usize {
        self.stored.as_ref().map_or(0, |s| s.spans.len())
    }

    pub fn len(&self) -> usize {
        self.stored_len() + self.parsed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, index: usize) -> Option<&Entry> {
        let stored = self.stored_len();
        match &self.stored {
            Some(s) if index < stored => Some(s.get(index)),
            _ => self.parsed.get(index.checked_sub(stored)?),
        }
    }

    pub fn first(&self) -> Option<&Entry> {
        self.get(0)
    }

    pub fn last(&self) -> Option<&Entry> {
        self.get(self.len().checked_sub(1)?)
    }

    /// Every entry, in file order (decoding every chunk it reaches).
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Entry> + ExactSizeIterator + Clone + '_ {
        self.range(0..self.len())
    }

    /// The entries `range` (clamped to the entries there are).
    pub fn range(
        &self,
        range: Range<usize>,
    ) -> impl DoubleEndedIterator<Item = &Entry> + ExactSizeIterator + Clone + '_ {
        let end = range.end.min(self.len());
        (range.start.min(end)..end).map(move |i| &self[i])
    }

    /// The span of the entry's line, without decoding it.
    pub fn span(&self, index: usize) -> Option<Span> {
        let stored = self.stored_len();
        match &self.stored {
            Some(s) if index < stored => Some(s.spans[index]),
            _ => self.parsed.get(index.checked_sub(stored)?).map(|e| e.span),
        }
    }

    /// The entry's `irregular_escapes` flag, without decoding it.
    pub fn irregular_escapes(&self, index: usize) -> Option<bool> {
        let stored = self.stored_len();
        match &self.stored {
            Some(s) if index < stored => Some(s.shapes[index] & IRREGULAR != 0),
            _ => self
                .parsed
                .get(index.checked_sub(stored)?)
                .map(|e| e.irregular_escapes),
        }
    }

    /// The entry's kind and how many tool calls it has ([`shape_code`]), without decoding it.
    pub fn shape(&self, index: usize) -> Option<u32> {
        let stored = self.stored_len();
        match &self.stored {
            Some(s) if index < stored => Some(s.shapes[index] & !IRREGULAR),
            _ => self.parsed.get(index.checked_sub(stored)?).map(shape_code),
        }
    }

    /// The number of leading entries whose line spans satisfy `pred` (which must hold for a
    /// prefix of them), found without decoding any entry.
    pub fn partition_point(&self, mut pred: impl FnMut(Span) -> bool) -> usize {
        let stored = self.stored_len();
        if let Some(s) = &self.stored {
            let point = s.spans.partition_point(|&span| pred(span));
            if point < stored {
                return point;
            }
        }
        stored + self.parsed.partition_point(|e| pred(e.span))
    }

    /// The entry's column value ([`column_value`]), without decoding it.
    pub(super) fn column_value(&self, index: usize) -> Option<u32> {
        let stored = self.stored_len();
        match &self.stored {
            Some(s) if index < stored => Some(s.shapes[index]),
            _ => self
                .parsed
                .get(index.checked_sub(stored)?)
                .map(column_value),
        }
    }

    /// The encoded bytes of chunk `chunk` (entries `chunk * CHUNK_LEN..`) as the index holds
    /// it, when the index holds the whole chunk: a rewritten index copies them rather than
    /// decoding and encoding its entries again. They are not checked here; a reader decoding
    /// them checks them against the columns, as it does any chunk.
    pub(super) fn stored_full_chunk(&self, chunk: usize) -> Option<&[u8]> {
        let stored = self.stored.as_ref()?;
        if (chunk + 1) * CHUNK_LEN > stored.spans.len() {
            return None;
        }
        stored
            .payload
            .bytes()
            .get(stored.chunks.get(chunk)?.bytes.clone())
    }

    /// Decodes every stored chunk (side by side); false when one is corrupt.
    pub(super) fn decode_all(&self) -> bool {
        self.stored.as_ref().is_none_or(StoredEntries::decode_all)
    }

    /// The stored atom table (empty without an index).
    fn stored_atoms(&self) -> String {
        self.stored
            .as_ref()
            .map_or_else(String::new, StoredEntries::atoms)
    }

    /// Whether a stored chunk turned out corrupt, so that some entries read were stand-ins.
    pub fn damaged(&self) -> bool {
        self.stored
            .as_ref()
            .is_some_and(|s| s.damaged.load(Ordering::Acquire) || s.payload.damaged())
    }
}

impl Index<usize> for Entries {
    type Output = Entry;

    fn index(&self, index: usize) -> &Entry {
        match self.get(index) {
            Some(entry) => entry,
            None => panic!(
                "entry index {index} out of range for {} entries",
                self.len()
            ),
        }
    }
}

impl StoredEntries {
    /// The stored entries: `chunks` are byte ranges of `payload` holding [`CHUNK_LEN`] entries
    /// each (the last one the rest); `spans` and `shapes` the columns; `atoms` the byte range
    /// of the atom table. `None` when they do not fit together.
    pub(super) fn new(
        payload: Payload,
        chunks: Vec<Range<usize>>,
        spans: Vec<Span>,
        shapes: Vec<u32>,
        atoms: Range<usize>,
    ) -> Option<StoredEntries> {
        let within =
            |range: &Range<usize>| range.start <= range.end && range.end <= payload.bytes().len();
        let fits = spans.len() == shapes.len()
            && chunks.len() == spans.len().div_ceil(CHUNK_LEN)
            && chunks.iter().all(within)
            && within(&atoms);
        fits.then(|| StoredEntries {
            payload,
            chunks: chunks
                .into_iter()
                .map(|bytes| StoredChunk {
                    bytes,
                    decoded: OnceLock::new(),
                })
                .collect(),
            spans,
            shapes,
            atoms,
            damaged: AtomicBool::new(false),
        })
    }

    /// The atom table; empty (and the damage recorded) when it is not UTF-8.
    fn atoms(&self) -> String {
        self.checked_text(self.atoms.clone())
    }

    /// The payload's bytes in `range` as text, copied before they are checked, as a chunk is
    /// (see `decode_chunk`); empty (and the damage recorded) when they are not UTF-8.
    fn checked_text(&self, range: std::ops::Range<usize>) -> String {
        let bytes = self.payload.bytes()[range].to_vec();
        match String::from_utf8(bytes)
            .ok()
            .filter(|_| !self.payload.damaged())
        {
            Some(text) => text,
            None => {
                self.damaged.store(true, Ordering::Release);
                String::new()
            }
        }
    }

    /// The `len` bytes at `start` of the atom table, copied and checked as [`atoms`](Self::atoms)
    /// checks the table; empty (and the damage recorded) when they are not UTF-8.
    fn atom(&self, start: usize, len: usize) -> String {
        let within = start
            .checked_add(self.atoms.start)
            .and_then(|from| Some(from..from.checked_add(len)?))
            .filter(|range| range.end <= self.atoms.end);
        let Some(range) = within else {
            return String::new();
        };
        self.checked_text(range)
    }

    fn get(&self, index: usize) -> &Entry {
        let chunk = index / CHUNK_LEN;
        &self.chunk(chunk)[index % CHUNK_LEN]
    }

    fn chunk(&self, chunk: usize) -> &[Entry] {
        self.chunks[chunk]
            .decoded
            .get_or_init(|| self.decode_chunk(chunk))
    }

    /// The entries of a chunk; stand-ins (and the damage recorded) when it is corrupt.
    fn decode_chunk(&self, chunk: usize) -> Box<[Entry]> {
        let first = chunk * CHUNK_LEN;
        let count = CHUNK_LEN.min(self.spans.len() - first);
        // Copied before it is decoded: a mapped index could change under the decoder, and the
        // strings it decodes must stay the bytes it checked as UTF-8.
        let bytes = self.payload.bytes()[self.chunks[chunk].bytes.clone()].to_vec();
        let decoded = decode_entries(&bytes, count).filter(|entries| self.agree(first, entries));
        match decoded.filter(|_| !self.payload.damaged()) {
            Some(entries) => entries.into_boxed_slice(),
            None => {
                self.damaged.store(true, Ordering::Release);
                (first..first + count)
                    .map(|i| Entry::placeholder(self.spans[i]))
                    .collect()
            }
        }
    }

    /// Whether decoded entries have the columns' spans, flags and shapes.
    fn agree(&self, first: usize, entries: &[Entry]) -> bool {
        entries.iter().enumerate().all(|(i, entry)| {
            self.spans[first + i] == entry.span && self.shapes[first + i] == column_value(entry)
        })
    }

    fn decode_all(&self) -> bool {
        const THREADS: usize = 4;
        let per_thread = self.chunks.len().div_ceil(THREADS).max(1);
        let indices: Vec<usize> = (0..self.chunks.len()).collect();
        std::thread::scope(|scope| {
            let mut groups = indices.chunks(per_thread);
            let first = groups.next();
            let handles: Vec<_> = groups
                .map(|group| {
                    scope.spawn(move || {
                        for &c in group {
                            self.chunk(c);
                        }
                    })
                })
                .collect();
            for &c in first.unwrap_or_default() {
                self.chunk(c);
            }
            for handle in handles {
                if handle.join().is_err() {
                    self.damaged.store(true, Ordering::Release);
                }
            }
        });
        !self.damaged.load(Ordering::Acquire)
    }
}

impl Atoms {
    /// A table held in memory (a parse's).
    pub(super) fn owned(text: String) -> Atoms {
        Atoms(OnceLock::from(text))
    }

    /// The table: the one held, else the one stored with `entries`, read now.
    pub(super) fn text<'a>(&'a self, entries: &Entries) -> &'a str {
        self.0.get_or_init(|| entries.stored_atoms())
    }

    /// The text of `atom`: borrowed from the table when it is held, else copied alone out of
    /// the index (the table stays there); empty when the atom lies outside the table.
    pub(super) fn get<'a>(&'a self, entries: &Entries, atom: Atom) -> Cow<'a, str> {
        let (start, len) = (atom.start as usize, atom.len as usize);
        match (self.0.get(), &entries.stored) {
            (Some(text), _) => Cow::Borrowed(text.get(start..start + len).unwrap_or("")),
            (None, Some(stored)) => Cow::Owned(stored.atom(start, len)),
            (None, None) => Cow::Borrowed(""),
        }
    }

    /// Whether the table is held (a parse's, or read out of the index).
    #[cfg(test)]
    pub(super) fn is_held(&self) -> bool {
        self.0.get().is_some()
    }

    /// The table, taken to append to (see [`Atoms::owned`] to put it back).
    pub(super) fn take(&mut self, entries: &Entries) -> String {
        self.0.take().unwrap_or_else(|| entries.stored_atoms())
    }
}

/// Exactly `count` entries, the whole of `bytes`; `None` otherwise.
fn decode_entries(mut bytes: &[u8], count: usize) -> Option<Vec<Entry>> {
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        let (entry, rest) = postcard::take_from_bytes::<Entry>(bytes).ok()?;
        entries.push(entry);
        bytes = rest;
    }
    bytes.is_empty().then_some(entries)
}

/// An entry's kind in the low byte and its tool calls above it (saturating): what a stored
/// projection checks its events against without decoding the entry.
pub fn shape_code(entry: &Entry) -> u32 {
    let (kind, calls) = match &entry.kind {
        EntryKind::Message(message) => match message {
            Message::User { .. } => (1, 0),
            Message::Assistant { tool_calls, .. } => (2, tool_calls.len()),
            Message::ToolResult { .. } => (3, 0),
            Message::BashExecution { .. } => (4, 0),
            Message::Custom { .. } => (5, 0),
            Message::CompactionSummary { .. } => (6, 0),
            Message::BranchSummary { .. } => (7, 0),
            Message::System => (8, 0),
            Message::Unknown => (9, 0),
        },
        EntryKind::Compaction { .. } => (10, 0),
        EntryKind::BranchSummary { .. } => (11, 0),
        EntryKind::CustomMessage { .. } => (12, 0),
        EntryKind::Custom { .. } => (13, 0),
        EntryKind::Other => (0, 0),
    };
    kind | (calls.min(0x7f_ffff) as u32) << 8
}

/// The shape codes [`shape_code`] gives, by kind (the low byte).
pub mod shape {
    /// An entry of no kind the reader knows (`EntryKind::Other`), which has no tool calls.
    pub const OTHER: u32 = 0;
    pub const USER: u32 = 1;
    pub const ASSISTANT: u32 = 2;
    pub const TOOL_RESULT: u32 = 3;
    pub const BASH_EXECUTION: u32 = 4;
    pub const CUSTOM_MESSAGE_ROLE: u32 = 5;
    pub const COMPACTION_SUMMARY: u32 = 6;
    pub const BRANCH_SUMMARY_ROLE: u32 = 7;
    pub const COMPACTION: u32 = 10;
    pub const BRANCH_SUMMARY: u32 = 11;
    pub const CUSTOM_MESSAGE: u32 = 12;

    /// The kind of a shape code.
    pub fn kind(code: u32) -> u32 {
        code & 0xff
    }

    /// How many tool calls an entry of this shape has.
    pub fn calls(code: u32) -> usize {
        (code >> 8) as usize
    }
}

/// The column value of an entry: its shape and its `irregular_escapes` flag.
pub(super) fn column_value(entry: &Entry) -> u32 {
    shape_code(entry)
        | if entry.irregular_escapes {
            IRREGULAR
        } else {
            0
        }
}
