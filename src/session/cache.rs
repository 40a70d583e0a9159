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

use std::fs::{self, Metadata};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use super::parse::Parser;
use super::{Entry, Header, Session, SessionFile};

/// The first bytes of every index file.
const MAGIC: &[u8; 8] = b"PICTXIDX";
/// Bumped whenever the index layout or the meaning of a parsed entry changes.
const FORMAT: u32 = 7;
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
/// Entries are stored in this many separately encoded chunks, decoded in parallel on load.
const CHUNKS: usize = 4;

#[derive(Serialize)]
struct IndexOut<'a> {
    path: &'a str,
    dev: u64,
    ino: u64,
    indexed_len: u64,
    head_check: [u8; 20],
    tail_check: [u8; 20],
    header: &'a Option<Header>,
    skipped: usize,
    lines: usize,
    atoms: &'a str,
    /// Each chunk is the postcard encoding of a run of entries.
    entry_chunks: Vec<&'a [u8]>,
}

#[derive(Deserialize)]
struct IndexIn<'a> {
    path: String,
    dev: u64,
    ino: u64,
    indexed_len: u64,
    head_check: [u8; 20],
    tail_check: [u8; 20],
    header: Option<Header>,
    skipped: usize,
    lines: usize,
    atoms: String,
    #[serde(borrow)]
    entry_chunks: Vec<&'a [u8]>,
}

pub(super) fn open_indexed(
    file: &SessionFile,
    metadata: &Metadata,
    dir: &Path,
    rewrite_after: usize,
) -> Session {
    let bytes = file.bytes();
    let complete = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    let (index_file, key) = cache_file(dir, file.path(), "idx");
    let (mut parser, indexed_len) =
        load(&index_file, &key, metadata, bytes).unwrap_or_else(|| (Parser::default(), 0));
    if indexed_len < complete {
        parser.feed(&bytes[..complete], indexed_len);
        // Re-encoding the whole index costs more than parsing a small tail again, so the index is
        // rewritten only once enough has been appended. Best effort: a cache that cannot be
        // written only costs speed.
        if indexed_len == 0 || complete - indexed_len >= rewrite_after {
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
) -> Option<(Parser, usize)> {
    let data = read_cache_file(index_file, MAGIC, FORMAT, max_payload_len(bytes.len()))?;
    let index: IndexIn = postcard::from_bytes(&data).ok()?;
    let indexed_len = usize::try_from(index.indexed_len).ok()?;
    let valid = index.path == key
        && index.dev == metadata.dev()
        && index.ino == metadata.ino()
        && indexed_len <= bytes.len()
        && (indexed_len == 0 || bytes[indexed_len - 1] == b'\n')
        && checks(&bytes[..indexed_len]) == (index.head_check, index.tail_check);
    if !valid {
        return None;
    }
    let parser = Parser {
        header: index.header,
        entries: decode_chunks(&index.entry_chunks)?,
        skipped: index.skipped,
        lines: index.lines,
        atoms: index.atoms,
        ..Parser::default()
    };
    Some((parser, indexed_len))
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
    if !plausible {
        return None;
    }
    let mut payload = Vec::with_capacity(usize::try_from(payload_len).ok()?);
    file.take(payload_len).read_to_end(&mut payload).ok()?;
    (payload.len() as u64 == payload_len).then_some(payload)
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

/// Decodes the entry chunks side by side into one vector of the final size; `None` if any
/// chunk is corrupt. Each chunk is decoded in place into its own part of the vector: decoding
/// into a vector per chunk and joining them would need twice the memory, and fresh pages cost
/// more (the kernel zeroes them) than decoding does.
fn decode_chunks(chunks: &[&[u8]]) -> Option<Vec<Entry>> {
    let mut parts = Vec::with_capacity(chunks.len());
    let mut total = 0usize;
    for chunk in chunks {
        let (len, rest) = postcard::take_from_bytes::<u64>(chunk).ok()?;
        // Every entry takes at least one byte, so a corrupt length cannot ask for more.
        let len = usize::try_from(len).ok().filter(|&n| n <= rest.len())?;
        total = total.checked_add(len)?;
        parts.push((len, rest));
    }
    let mut entries = Vec::with_capacity(total);
    entries.resize_with(total, Entry::placeholder);
    let mut slots: Vec<&mut [Entry]> = Vec::with_capacity(parts.len());
    let mut rest: &mut [Entry] = &mut entries;
    for (len, _) in &parts {
        let (slot, tail) = rest.split_at_mut(*len);
        slots.push(slot);
        rest = tail;
    }
    let decoded = std::thread::scope(|scope| {
        let mut work = parts.iter().zip(slots);
        let first = work.next();
        let handles: Vec<_> = work
            .map(|((_, bytes), slot)| scope.spawn(move || decode_chunk_into(bytes, slot)))
            .collect();
        let first_ok = first.is_none_or(|((_, bytes), slot)| decode_chunk_into(bytes, slot));
        handles
            .into_iter()
            .fold(first_ok, |ok, h| h.join().unwrap_or(false) && ok)
    });
    decoded.then_some(entries)
}

/// Decodes a chunk's entries (after its length) into `slot`, which has room for exactly them.
fn decode_chunk_into(mut bytes: &[u8], slot: &mut [Entry]) -> bool {
    for place in slot {
        match postcard::take_from_bytes::<Entry>(bytes) {
            Ok((entry, tail)) => {
                *place = entry;
                bytes = tail;
            }
            Err(_) => return false,
        }
    }
    bytes.is_empty()
}

fn encode(key: &str, metadata: &Metadata, parser: &Parser, indexed: &[u8]) -> Option<Vec<u8>> {
    let (head_check, tail_check) = checks(indexed);
    let chunk_len = parser.entries.len().div_ceil(CHUNKS).max(1);
    let encoded: Vec<Vec<u8>> = parser
        .entries
        .chunks(chunk_len)
        .map(postcard::to_stdvec)
        .collect::<Result<_, _>>()
        .ok()?;
    let index = IndexOut {
        path: key,
        dev: metadata.dev(),
        ino: metadata.ino(),
        indexed_len: indexed.len() as u64,
        head_check,
        tail_check,
        header: &parser.header,
        skipped: parser.skipped,
        lines: parser.lines,
        atoms: &parser.atoms,
        entry_chunks: encoded.iter().map(Vec::as_slice).collect(),
    };
    let payload = postcard::to_stdvec(&index).ok()?;
    Some(framed(MAGIC, FORMAT, &payload))
}

/// A cache file's bytes: magic, format, payload length, payload.
pub(crate) fn framed(magic: &[u8; 8], format: u32, payload: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(HEADER_LEN + payload.len());
    data.extend_from_slice(magic);
    data.extend_from_slice(&format.to_le_bytes());
    data.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    data.extend_from_slice(payload);
    data
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
