//! An on-disk index of a large session, so that a call does not re-parse what it parsed before.
//!
//! The index records the parsed entries of the file's complete lines up to `indexed_len`, plus
//! checks that the indexed prefix is still the same bytes (the file's identity and hashes of its
//! first and last indexed bytes). A later call loads the index, parses only what was appended,
//! and refreshes the index. Anything unexpected (another format, a rewritten file, an unreadable
//! or unwritable cache, a cache file that is not a regular file or promises more than an index
//! can hold) silently falls back to a full parse: the index is an accelerator, never a source of
//! truth, and a bad one only costs speed.
//!
//! An index file is a cache file (`crate::cachefile`: a header of magic, format and payload
//! length, read or mapped only when it is a regular file of exactly that length, saved whole by a
//! rename) whose payload is laid out as [`encode`] says.

use std::borrow::Cow;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::entries::{Entries, StoredEntries, CHUNK_LEN};
use super::harness::{Harness, Reader};
use super::parse::Parser;
use super::{Header, Session, SessionFile, Span};
use crate::cachefile::{self, Durability, Kind, Payload};

/// An index file: its magic, and its format, bumped whenever the index layout or the meaning of
/// a parsed entry changes.
const INDEX: Kind = Kind::new(b"PICTXIDX", 14);
/// An index takes at most this many bytes per session byte, plus [`MAX_INDEX_OVERHEAD`]; the
/// densest session (a line `{}` per entry) indexes to about ten.
const MAX_INDEX_RATIO: u64 = 16;
const MAX_INDEX_OVERHEAD: u64 = 64 * 1024;
/// The index is rewritten once this many bytes were appended since it was written.
pub(super) const REWRITE_AFTER_BYTES: usize = 256 * 1024;
/// The same, for a reader that reads the session once and moves on (a recall refresh):
/// re-encoding a large session's index costs more than parsing a few megabytes again later.
pub(super) const LAZY_REWRITE_AFTER_BYTES: usize = 4 << 20;
/// Bytes per entry of the span column: start and end, u64 LE each.
const SPAN_BYTES: usize = 16;

/// The small part of an index, postcard-encoded after its length (u64 LE); the columns, the
/// reader's state and the entry chunks follow it as raw bytes (see [`encode`]).
#[derive(Serialize, Deserialize)]
struct IndexMeta {
    path: String,
    dev: u64,
    ino: u64,
    indexed_len: u64,
    head_check: [u8; 20],
    tail_check: [u8; 20],
    header: Option<Header>,
    /// The format the lines were read as; `None` while no line has decided it.
    harness: Option<Harness>,
    /// The length of the reader's state (what it remembers between lines, postcard-encoded),
    /// which follows the atom table. It is decoded only when the file holds bytes past the
    /// index: a Gemini CLI reader remembers every message, and decoding that on each call cost
    /// a search on an unchanged chat a fifth of its CPU.
    reader_state: u64,
    skipped: usize,
    /// Records of types the reader does not know, by type.
    unknown: std::collections::BTreeMap<String, u32>,
    lines: usize,
    /// The atom table's length in bytes: it follows the columns, raw (see `Atoms`).
    atoms: u64,
    entries: u64,
    chunks: u64,
}

/// How a reader of an indexed session takes its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decode {
    /// Every entry up front; a corrupt index is parsed around.
    All,
    /// A chunk at a time when first used; the reader checks [`Session::index_damaged`].
    Lazily,
}

pub(super) fn open_indexed(
    file: &SessionFile,
    metadata: &Metadata,
    dir: &Path,
    rewrite_after: usize,
    decode: Decode,
) -> Session {
    let bytes = file.bytes();
    let complete = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    let (index_file, key) = cachefile::for_path(dir, file.path(), "idx");
    let (mut parser, indexed_len) = load(&index_file, &key, metadata, bytes, decode)
        .filter(|(parser, _)| decode == Decode::Lazily || parser.decode_all())
        .unwrap_or_else(|| (Parser::default(), 0));
    if indexed_len < complete {
        parser.feed(&bytes[..complete], indexed_len);
        // Re-encoding the whole index costs more than parsing a small tail again, so the index is
        // rewritten only once enough has been appended. Best effort: a cache that cannot be
        // written only costs speed; a corrupt one is left for the reader to find.
        let rewrite = indexed_len == 0 || complete - indexed_len >= rewrite_after;
        if rewrite {
            if let Some(data) = encode(&key, metadata, &parser, &bytes[..complete]) {
                // The index outlives this call: it is written only when the file did not change
                // while it was parsed, or it could describe a mix of two versions.
                if file.is_unchanged() {
                    let _ = cachefile::save(&index_file, &data, Durability::Rebuildable);
                }
            }
        }
    }
    // The partial last line (Pi may be writing it right now) is parsed but never indexed.
    parser.feed(bytes, complete);
    parser.into_session(file.source().clone())
}

fn load(
    index_file: &Path,
    key: &str,
    metadata: &Metadata,
    bytes: &[u8],
    decode: Decode,
) -> Option<(Parser, usize)> {
    let max = max_payload_len(bytes.len());
    let payload = match decode {
        // A lazy reader keeps the index for its chunks: mapped, it costs no fresh memory.
        Decode::Lazily => cachefile::map(index_file, INDEX, max)?,
        Decode::All => Payload::owned(cachefile::read(index_file, INDEX, max)?),
    };
    let data = payload.bytes();
    let (meta_bytes, mut raw) = cachefile::split_meta(data)?;
    // Copied before it is decoded: the strings in it must stay the bytes checked as UTF-8.
    let copy = meta_bytes.to_vec();
    let meta: IndexMeta = postcard::from_bytes(&copy).ok()?;
    let indexed_len = usize::try_from(meta.indexed_len).ok()?;
    let valid = meta.path == key
        && meta.dev == metadata.dev()
        && meta.ino == metadata.ino()
        && indexed_len <= bytes.len()
        && (indexed_len == 0 || bytes[indexed_len - 1] == b'\n')
        && cachefile::prefix_checks(&bytes[..indexed_len]) == (meta.head_check, meta.tail_check);
    if !valid {
        return None;
    }
    let entries = usize::try_from(meta.entries).ok()?;
    let chunk_count = usize::try_from(meta.chunks).ok()?;
    let spans = span_column(
        take(&mut raw, entries.checked_mul(SPAN_BYTES)?)?,
        indexed_len,
    )?;
    let shapes: Vec<u32> = take(&mut raw, entries.checked_mul(4)?)?
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap_or_default()))
        .collect();
    let atoms_len = usize::try_from(meta.atoms).ok()?;
    let atoms_at = data.len() - raw.len();
    take(&mut raw, atoms_len)?;
    let reader_state = take(&mut raw, usize::try_from(meta.reader_state).ok()?)?;
    // Only the lines past the index are read with the reader; a file that ends where its index
    // does (the partial last line included) needs the format alone.
    let reader = if indexed_len < bytes.len() {
        Some(decode_reader(meta.harness, reader_state)?)
    } else {
        None
    };
    let ends = take(&mut raw, chunk_count.checked_mul(8)?)?;
    let chunks_at = data.len() - raw.len();
    let mut chunks = Vec::with_capacity(chunk_count);
    let mut start = 0usize;
    for end in ends.chunks_exact(8) {
        let end = usize::try_from(u64::from_le_bytes(end.try_into().ok()?)).ok()?;
        if end < start || end > raw.len() {
            return None;
        }
        chunks.push(chunks_at + start..chunks_at + end);
        start = end;
    }
    if start != raw.len() || payload.damaged() {
        return None;
    }
    let atoms = atoms_at..atoms_at + atoms_len;
    let stored = StoredEntries::new(payload, chunks, spans, shapes, atoms)?;
    let parser = Parser {
        header: meta.header,
        reader_state_skipped: reader.is_none(),
        reader: reader.unwrap_or_else(|| Reader::resting(meta.harness)),
        entries: Entries::with_stored(Some(stored)),
        skipped: meta.skipped,
        unknown: meta.unknown,
        lines: meta.lines,
        ..Parser::default()
    };
    Some((parser, indexed_len))
}

/// The reader's state as the index stored it, which must be of the index's format. Copied before
/// it is decoded, as the meta is.
fn decode_reader(harness: Option<Harness>, state: &[u8]) -> Option<Reader> {
    let copy = state.to_vec();
    let reader: Reader = postcard::from_bytes(&copy).ok()?;
    (reader.decided() == harness).then_some(reader)
}

/// The bytes of an index file that hold the reader's state (for tests that damage it).
#[cfg(test)]
pub(super) fn reader_state_range(index_file: &Path) -> Option<std::ops::Range<usize>> {
    let file_len = usize::try_from(std::fs::metadata(index_file).ok()?.len()).ok()?;
    let payload = cachefile::read(index_file, INDEX, u64::MAX)?;
    let (meta_bytes, raw) = cachefile::split_meta(&payload)?;
    let meta: IndexMeta = postcard::from_bytes(meta_bytes).ok()?;
    let columns = usize::try_from(meta.entries).ok()? * (SPAN_BYTES + 4);
    let start = file_len - raw.len() + columns + usize::try_from(meta.atoms).ok()?;
    Some(start..start + usize::try_from(meta.reader_state).ok()?)
}

/// The next `len` bytes of `raw`, which moves past them.
fn take<'a>(raw: &mut &'a [u8], len: usize) -> Option<&'a [u8]> {
    if len > raw.len() {
        return None;
    }
    let (head, rest) = raw.split_at(len);
    *raw = rest;
    Some(head)
}

/// The span column: spans in file order, within the indexed bytes, none starting before the
/// one before it (the entries of one line share its span); `None` otherwise.
fn span_column(raw: &[u8], indexed_len: usize) -> Option<Vec<Span>> {
    if !raw.len().is_multiple_of(SPAN_BYTES) {
        return None;
    }
    let mut spans = Vec::with_capacity(raw.len() / SPAN_BYTES);
    // Entries come in file order, but the entries of one line share its span (a Gemini CLI
    // message written again with its calls and their results): starts never go back.
    let mut last_start = 0;
    for pair in raw.chunks_exact(SPAN_BYTES) {
        let (start, end) = pair.split_at(8);
        let start = usize::try_from(u64::from_le_bytes(start.try_into().ok()?)).ok()?;
        let end = usize::try_from(u64::from_le_bytes(end.try_into().ok()?)).ok()?;
        if start < last_start || end < start || end > indexed_len {
            return None;
        }
        last_start = start;
        spans.push(Span { start, end });
    }
    Some(spans)
}

/// The most an index of a session of `session_len` bytes can take. An entry needs a line of at
/// least three bytes (`{}` and its newline) and encodes in at most a few dozen; the atoms, the
/// header and the key are bounded by the session and the path.
fn max_payload_len(session_len: usize) -> u64 {
    (session_len as u64).saturating_mul(MAX_INDEX_RATIO) + MAX_INDEX_OVERHEAD
}

fn encode(key: &str, metadata: &Metadata, parser: &Parser, indexed: &[u8]) -> Option<Vec<u8>> {
    if parser.reader_state_skipped {
        return None;
    }
    let (head_check, tail_check) = cachefile::prefix_checks(indexed);
    let entries = &parser.entries;
    let atoms = parser.atoms.text(entries);
    let reader_state = postcard::to_stdvec(&parser.reader).ok()?;
    let mut encoded: Vec<Cow<[u8]>> = Vec::with_capacity(entries.len().div_ceil(CHUNK_LEN));
    for (chunk, from) in (0..entries.len()).step_by(CHUNK_LEN).enumerate() {
        if let Some(stored) = entries.stored_full_chunk(chunk) {
            encoded.push(Cow::Borrowed(stored));
            continue;
        }
        let mut bytes = Vec::new();
        for entry in entries.range(from..from + CHUNK_LEN) {
            bytes = postcard::to_extend(entry, bytes).ok()?;
        }
        encoded.push(Cow::Owned(bytes));
    }
    let meta = IndexMeta {
        path: key.to_string(),
        dev: metadata.dev(),
        ino: metadata.ino(),
        indexed_len: indexed.len() as u64,
        head_check,
        tail_check,
        header: parser.header.clone(),
        harness: parser.reader.decided(),
        reader_state: reader_state.len() as u64,
        skipped: parser.skipped,
        unknown: parser.unknown.clone(),
        lines: parser.lines,
        atoms: atoms.len() as u64,
        entries: entries.len() as u64,
        chunks: encoded.len() as u64,
    };
    let meta = postcard::to_stdvec(&meta).ok()?;
    let chunk_bytes: usize = encoded.iter().map(|c| c.len()).sum();
    // Built in the file's frame: a large index is not copied again to be framed.
    let mut data = INDEX.start(
        8 + meta.len()
            + entries.len() * (SPAN_BYTES + 4)
            + atoms.len()
            + reader_state.len()
            + encoded.len() * 8
            + chunk_bytes,
    );
    data.extend_from_slice(&(meta.len() as u64).to_le_bytes());
    data.extend_from_slice(&meta);
    for i in 0..entries.len() {
        let span = entries.span(i)?;
        data.extend_from_slice(&(span.start as u64).to_le_bytes());
        data.extend_from_slice(&(span.end as u64).to_le_bytes());
    }
    for i in 0..entries.len() {
        data.extend_from_slice(&entries.column_value(i)?.to_le_bytes());
    }
    data.extend_from_slice(atoms.as_bytes());
    data.extend_from_slice(&reader_state);
    let mut end = 0u64;
    for chunk in &encoded {
        end += chunk.len() as u64;
        data.extend_from_slice(&end.to_le_bytes());
    }
    for chunk in &encoded {
        data.extend_from_slice(chunk);
    }
    // A stand-in decoded from a corrupt chunk, or a stored chunk read as zeros from an index
    // truncated under its map, must not be written.
    if entries.damaged() {
        return None;
    }
    Some(cachefile::end(data))
}
