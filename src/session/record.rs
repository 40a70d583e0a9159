//! What every harness's line reader makes of a line ([`Read`]: pending entries, before the
//! parser settles their ids), and the raw-JSON helpers the readers share: atoms, spans, strings,
//! the text blocks of a content array.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Atom, EntryId, EntryKind, Span};

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
    /// The record's bytes when they are not the line's: a message of a whole-file JSON
    /// document (Gemini CLI's older chats), which spans many lines. The search prefilter cannot
    /// judge such a record from one line, so its entries are always its candidates.
    pub record: Option<Span>,
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
            record: None,
        }
    }
}

/// What a harness's reader made of one line.
pub(super) enum Read {
    /// The line's entries, in order (none: a record that is not an entry).
    Entries(Vec<PendingEntry>),
    /// Not UTF-8 JSON object, or not one the format can read: skipped and counted.
    Malformed,
    /// The line closes a whole-file JSON document that began at this byte of the session: the
    /// parser hands the reader the document's bytes ([`Reader::read_document`]).
    ///
    /// [`Reader::read_document`]: super::harness::Reader
    Document(usize),
    /// A record of a type the reader does not know (a format that changed): its entries keep
    /// its place in the tree, inert, and its type is counted by name, so a format change shows
    /// up as a number (`sessions index --json`) instead of silently missing history.
    Unknown {
        record_type: String,
        entries: Vec<PendingEntry>,
    },
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

pub(super) fn push_atom(atoms: &mut String, text: &str) -> Atom {
    let start = atoms.len();
    atoms.push_str(text);
    Atom {
        start: start as u32,
        len: text.len() as u32,
    }
}

/// The block types whose `text` is message text: Pi's and Claude Code's `text`, Codex's
/// `input_text` and `output_text`.
const TEXT_BLOCK_TYPES: [&str; 3] = ["\"text\"", "\"input_text\"", "\"output_text\""];

/// The raw `text` values of the text blocks of a content array: blocks of a text type, and
/// blocks without a `type` (Gemini's parts, `{"text": …}`) unless they are the model's
/// thoughts (`"thought": true`).
pub(super) fn text_blocks(raw: &str) -> Vec<&RawValue> {
    blocks::<TextBlockRepr>(raw)
        .into_iter()
        .filter(|b| match b.block_type {
            Some(t) => TEXT_BLOCK_TYPES.contains(&t.get()),
            None => !b.thought.is_some_and(is_true),
        })
        .filter_map(|b| b.text.filter(|t| t.get().starts_with('"')))
        .collect()
}

#[derive(Deserialize)]
struct TextBlockRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    block_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    thought: Option<&'a RawValue>,
}

/// The blocks of a content array; elements that are not objects are dropped.
pub(super) fn blocks<'a, T: Deserialize<'a>>(raw: &'a str) -> Vec<T> {
    if let Ok(blocks) = serde_json::from_str::<Vec<T>>(raw) {
        return blocks;
    }
    serde_json::from_str::<Vec<&RawValue>>(raw)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|element| serde_json::from_str(element.get()).ok())
        .collect()
}

pub(super) fn string(raw: &RawValue) -> Option<String> {
    serde_json::from_str::<String>(raw.get()).ok()
}

pub(super) fn number(raw: &RawValue) -> Option<u64> {
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
