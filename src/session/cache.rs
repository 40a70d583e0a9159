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
//! An index file is a fixed header (magic, format, payload length) and a postcard payload. It is
//! opened with `O_NOFOLLOW | O_NONBLOCK`, must be a regular file of exactly the header's length,
//! and is written as a 0600 temp file in a 0700 directory, then renamed into place.

use std::borrow::Cow;
use std::fs::{self, Metadata};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use super::entries::{Entries, StoredEntries, CHUNK_LEN};
use super::guard::GuardedMap;
use super::harness::Reader;
use super::parse::Parser;
use super::{Header, Session, SessionFile, Span};

/// The first bytes of every index file.
const MAGIC: &[u8; 8] = b"PICTXIDX";
/// Bumped whenever the index layout or the meaning of a parsed entry changes.
const FORMAT: u32 = 12;
/// Magic, format (u32 LE), payload length (u64 LE).
const HEADER_LEN: usize = 8 + 4 + 8;
/// An index takes at most this many bytes per session byte, plus [`MAX_INDEX_OVERHEAD`]; the
/// densest session (a line `{}` per entry) indexes to about ten.
const MAX_INDEX_RATIO: u64 = 16;
const MAX_INDEX_OVERHEAD: u64 = 64 * 1024;
/// How many bytes at each end of the indexed prefix are hashed to detect a rewritten file.
const CHECK_BYTES: usize = 4096;
/// The index is rewritten once this many bytes were appended since it was written.
pub(super) const REWRITE_AFTER_BYTES: usize = 256 * 1024;
/// The same, for a reader that reads the session once and moves on (a recall refresh):
/// re-encoding a large session's index costs more than parsing a few megabytes again later.
pub(super) const LAZY_REWRITE_AFTER_BYTES: usize = 4 << 20;
/// Bytes per entry of the span column: start and end, u64 LE each.
const SPAN_BYTES: usize = 16;

/// The small part of an index, postcard-encoded after its length (u64 LE); the columns and
/// the entry chunks follow it as raw bytes (see [`encode`]).
#[derive(Serialize, Deserialize)]
struct IndexMeta {
    path: String,
    dev: u64,
    ino: u64,
    indexed_len: u64,
    head_check: [u8; 20],
    tail_check: [u8; 20],
    header: Option<Header>,
    reader: Reader,
    skipped: usize,
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
    let (index_file, key) = cache_file(dir, file.path(), "idx");
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
                    let _ = save(&index_file, &data);
                }
            }
        }
    }
    // The partial last line (Pi may be writing it right now) is parsed but never indexed.
    parser.feed(bytes, complete);
    parser.into_session(file.source().clone())
}

/// The cache file with extension `ext` of the session at `path`, and the key it records (the
/// canonical path when it resolves, else the path as given).
pub(crate) fn cache_file(dir: &Path, path: &Path, ext: &str) -> (PathBuf, String) {
    let key = path_key(path);
    let file = dir.join(format!("{}.{ext}", hex(&Sha1::digest(key.as_bytes()))));
    (file, key)
}

/// The index key: the canonical path when it resolves, else the path as given.
fn path_key(path: &Path) -> String {
    fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
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
        Decode::Lazily => map_cache_file(index_file, MAGIC, FORMAT, max)?,
        Decode::All => CachePayload(Payload::Owned(read_cache_file(
            index_file, MAGIC, FORMAT, max,
        )?)),
    };
    let data = payload.bytes();
    let (meta_bytes, mut raw) = split_meta(data)?;
    // Copied before it is decoded: the strings in it must stay the bytes checked as UTF-8.
    let copy = meta_bytes.to_vec();
    let meta: IndexMeta = postcard::from_bytes(&copy).ok()?;
    let indexed_len = usize::try_from(meta.indexed_len).ok()?;
    let valid = meta.path == key
        && meta.dev == metadata.dev()
        && meta.ino == metadata.ino()
        && indexed_len <= bytes.len()
        && (indexed_len == 0 || bytes[indexed_len - 1] == b'\n')
        && checks(&bytes[..indexed_len]) == (meta.head_check, meta.tail_check);
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
        reader: meta.reader,
        entries: Entries::with_stored(Some(stored)),
        skipped: meta.skipped,
        lines: meta.lines,
        ..Parser::default()
    };
    Some((parser, indexed_len))
}

/// The meta of a cache payload (after its u64 LE length) and the raw bytes after it.
pub(crate) fn split_meta(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let meta_len = usize::try_from(u64::from_le_bytes(data.get(..8)?.try_into().ok()?)).ok()?;
    let meta = data.get(8..8usize.checked_add(meta_len)?)?;
    Some((meta, &data[8 + meta_len..]))
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

/// The span column: spans in file order, each non-empty, within the indexed bytes and after
/// the one before; `None` otherwise.
fn span_column(raw: &[u8], indexed_len: usize) -> Option<Vec<Span>> {
    if !raw.len().is_multiple_of(SPAN_BYTES) {
        return None;
    }
    let mut spans = Vec::with_capacity(raw.len() / SPAN_BYTES);
    let mut last_end = 0;
    for pair in raw.chunks_exact(SPAN_BYTES) {
        let (start, end) = pair.split_at(8);
        let start = usize::try_from(u64::from_le_bytes(start.try_into().ok()?)).ok()?;
        let end = usize::try_from(u64::from_le_bytes(end.try_into().ok()?)).ok()?;
        if start < last_end || end < start || end > indexed_len {
            return None;
        }
        last_end = end;
        spans.push(Span { start, end });
    }
    Some(spans)
}

/// The payload of a cache file, read only when the file is a regular file (never through a
/// symlink, never blocking on a FIFO) whose header promises a payload of exactly its size, of
/// this kind and format, no larger than `max_payload`.
pub(crate) fn read_cache_file(
    index_file: &Path,
    magic: &[u8; 8],
    format: u32,
    max_payload: u64,
) -> Option<Vec<u8>> {
    let (file, payload_len) = open_cache_file(index_file, magic, format, max_payload)?;
    read_payload(file, payload_len)
}

fn read_payload(mut file: fs::File, payload_len: u64) -> Option<Vec<u8>> {
    let mut payload = Vec::with_capacity(usize::try_from(payload_len).ok()?);
    (&mut file)
        .take(payload_len)
        .read_to_end(&mut payload)
        .ok()?;
    (payload.len() as u64 == payload_len).then_some(payload)
}

/// [`read_cache_file`], mapped when a guarded map can be set up (read otherwise): the payload
/// then costs no fresh memory, and only the pages used are touched. Cache files are replaced by
/// a rename, never written in place; one truncated by someone else under the map reads as
/// zeros past its end and reports [`CachePayload::damaged`].
pub(crate) fn map_cache_file(
    index_file: &Path,
    magic: &[u8; 8],
    format: u32,
    max_payload: u64,
) -> Option<CachePayload> {
    let (file, payload_len) = open_cache_file(index_file, magic, format, max_payload)?;
    let len = usize::try_from(payload_len).ok()?.checked_add(HEADER_LEN)?;
    let payload = match GuardedMap::map(&file, len) {
        Some(map) => Payload::Mapped(map),
        None => Payload::Owned(read_payload(file, payload_len)?),
    };
    Some(CachePayload(payload))
}

/// The payload of a cache file: mapped or read.
pub(crate) struct CachePayload(Payload);

enum Payload {
    Mapped(GuardedMap),
    Owned(Vec<u8>),
}

impl CachePayload {
    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.0 {
            Payload::Mapped(map) => map.bytes().get(HEADER_LEN..).unwrap_or_default(),
            Payload::Owned(bytes) => bytes,
        }
    }

    /// Whether a read of the map faulted past the file's end (it was truncated), so that some
    /// bytes read were zeros.
    pub(crate) fn damaged(&self) -> bool {
        matches!(&self.0, Payload::Mapped(map) if map.damaged())
    }
}

/// A cache file opened and checked as [`read_cache_file`] says, with its payload length.
fn open_cache_file(
    index_file: &Path,
    magic: &[u8; 8],
    format: u32,
    max_payload: u64,
) -> Option<(fs::File, u64)> {
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(index_file)
        .ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.file_type().is_file() {
        return None;
    }
    let mut header = [0; HEADER_LEN];
    file.read_exact(&mut header).ok()?;
    let payload_len = payload_len(&header, magic, format)?;
    let plausible = payload_len <= max_payload
        && metadata.len() == (HEADER_LEN as u64).checked_add(payload_len)?;
    plausible.then_some((file, payload_len))
}

/// The payload length a header promises; `None` for another file kind or format.
fn payload_len(header: &[u8; HEADER_LEN], magic: &[u8; 8], format: u32) -> Option<u64> {
    let (file_magic, rest) = header.split_at(magic.len());
    let (file_format, len) = rest.split_at(4);
    (file_magic == magic && file_format == format.to_le_bytes())
        .then(|| u64::from_le_bytes(len.try_into().unwrap_or_default()))
}

/// The most an index of a session of `session_len` bytes can take. An entry needs a line of at
/// least three bytes (`{}` and its newline) and encodes in at most a few dozen; the atoms, the
/// header and the key are bounded by the session and the path.
pub(crate) fn max_payload_len(session_len: usize) -> u64 {
    (session_len as u64).saturating_mul(MAX_INDEX_RATIO) + MAX_INDEX_OVERHEAD
}

fn encode(key: &str, metadata: &Metadata, parser: &Parser, indexed: &[u8]) -> Option<Vec<u8>> {
    let (head_check, tail_check) = checks(indexed);
    let entries = &parser.entries;
    let atoms = parser.atoms.text(entries);
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
        reader: parser.reader.clone(),
        skipped: parser.skipped,
        lines: parser.lines,
        atoms: atoms.len() as u64,
        entries: entries.len() as u64,
        chunks: encoded.len() as u64,
    };
    let meta = postcard::to_stdvec(&meta).ok()?;
    let chunk_bytes: usize = encoded.iter().map(|c| c.len()).sum();
    // Built in the file's frame: a large index is not copied again to be framed.
    let mut data = frame_start(
        MAGIC,
        FORMAT,
        8 + meta.len()
            + entries.len() * (SPAN_BYTES + 4)
            + atoms.len()
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
    Some(frame_end(data))
}

/// A cache file's bytes begun: magic, format, and the payload's length (0 until
/// [`frame_end`]); the payload is appended after them.
pub(crate) fn frame_start(magic: &[u8; 8], format: u32, payload_capacity: usize) -> Vec<u8> {
    let mut data = Vec::with_capacity(HEADER_LEN + payload_capacity);
    data.extend_from_slice(magic);
    data.extend_from_slice(&format.to_le_bytes());
    data.extend_from_slice(&0u64.to_le_bytes());
    data
}

/// The cache file `frame_start` began, its payload appended: the payload's length goes into
/// the header.
pub(crate) fn frame_end(mut data: Vec<u8>) -> Vec<u8> {
    let payload_len = (data.len() - HEADER_LEN) as u64;
    data[HEADER_LEN - 8..HEADER_LEN].copy_from_slice(&payload_len.to_le_bytes());
    data
}

/// A cache file's bytes: magic, format, payload length, payload.
pub(crate) fn framed(magic: &[u8; 8], format: u32, payload: &[u8]) -> Vec<u8> {
    let mut data = frame_start(magic, format, payload.len());
    data.extend_from_slice(payload);
    frame_end(data)
}

/// Writes an index file: a new 0600 temp file in the 0700 cache directory (created without
/// following a symlink at its name), renamed over the old index.
pub(crate) fn save(index_file: &Path, data: &[u8]) -> std::io::Result<()> {
    let dir = index_file.parent().unwrap_or(Path::new("."));
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let temp = temp_path(index_file);
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&temp)
        .and_then(|mut f| f.write_all(data));
    match written.and_then(|()| fs::rename(&temp, index_file)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// A temp name no other writer uses: this process's id and a per-process counter.
fn temp_path(index_file: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut name = index_file.as_os_str().to_owned();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    name.push(format!(".{}.{n}.tmp", std::process::id()));
    PathBuf::from(name)
}

/// SHA-1 of the first and of the last 4 KiB of a prefix of the session: a prefix whose checks
/// are unchanged is taken to be the same bytes.
pub(crate) fn checks(prefix: &[u8]) -> ([u8; 20], [u8; 20]) {
    let head = &prefix[..prefix.len().min(CHECK_BYTES)];
    let tail = &prefix[prefix.len().saturating_sub(CHECK_BYTES)..];
    (Sha1::digest(head).into(), Sha1::digest(tail).into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_built_in_place_is_read_back_with_its_payload_length() {
        for payload in [&b""[..], b"x", b"a payload of some length"] {
            let mut data = frame_start(MAGIC, 7, payload.len());
            data.extend_from_slice(payload);
            let data = frame_end(data);
            assert_eq!(data.len(), HEADER_LEN + payload.len());
            let header: [u8; HEADER_LEN] = data[..HEADER_LEN].try_into().unwrap();
            assert_eq!(payload_len(&header, MAGIC, 7), Some(payload.len() as u64));
            assert_eq!(payload_len(&header, MAGIC, 8), None);
            assert_eq!(&data[HEADER_LEN..], payload);
        }
    }
}
