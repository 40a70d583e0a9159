//! An on-disk index of a large session, so that a call does not re-parse what it parsed before.
//!
//! Pi only appends to a session file. The index records the parsed entries of the file's complete
//! lines up to `indexed_len`, plus checks that the indexed prefix is still the same bytes (the
//! file's identity and hashes of its first and last indexed bytes). A later call loads the index,
//! parses only what was appended, and refreshes the index. Anything unexpected (another format,
//! a rewritten file, an unreadable or unwritable cache) silently falls back to a full parse: the
//! index is an accelerator, never a source of truth.

use std::fs::{self, Metadata};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use super::parse::Parser;
use super::{Entry, Header, Session, Source};

/// Bumped whenever the index layout or the meaning of a parsed entry changes.
const FORMAT: u32 = 6;
/// How many bytes at each end of the indexed prefix are hashed to detect a rewritten file.
const CHECK_BYTES: usize = 4096;
/// The index is rewritten once this many bytes were appended since it was written.
const REWRITE_AFTER_BYTES: usize = 256 * 1024;
/// Entries are stored in this many separately encoded chunks, decoded in parallel on load.
const CHUNKS: usize = 4;

#[derive(Serialize)]
struct IndexOut<'a> {
    format: u32,
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
    format: u32,
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
    source: Source,
    path: &Path,
    metadata: &Metadata,
    dir: &Path,
) -> Session {
    let bytes = source.bytes();
    let complete = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    let key = path_key(path);
    let index_file = dir.join(format!("{}.idx", hex(&Sha1::digest(key.as_bytes()))));
    let (mut parser, indexed_len) =
        load(&index_file, &key, metadata, bytes).unwrap_or_else(|| (Parser::default(), 0));
    if indexed_len < complete {
        parser.feed(&bytes[..complete], indexed_len);
        // Re-encoding the whole index costs more than parsing a small tail again, so the index is
        // rewritten only once enough has been appended. Best effort: a cache that cannot be
        // written only costs speed.
        if indexed_len == 0 || complete - indexed_len >= REWRITE_AFTER_BYTES {
            let _ = save(&index_file, &key, metadata, &parser, &bytes[..complete]);
        }
    }
    // The partial last line (Pi may be writing it right now) is parsed but never indexed.
    parser.feed(bytes, complete);
    parser.into_session(source)
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
    let data = fs::read(index_file).ok()?;
    let index: IndexIn = postcard::from_bytes(&data).ok()?;
    let indexed_len = usize::try_from(index.indexed_len).ok()?;
    let valid = index.format == FORMAT
        && index.path == key
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
    };
    Some((parser, indexed_len))
}

/// Decodes the entry chunks side by side; `None` if any chunk is corrupt.
fn decode_chunks(chunks: &[&[u8]]) -> Option<Vec<Entry>> {
    let decoded: Vec<Option<Vec<Entry>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .skip(1)
            .map(|chunk| scope.spawn(move || decode_chunk(chunk)))
            .collect();
        let first = chunks.first().map(|c| decode_chunk(c));
        first
            .into_iter()
            .chain(handles.into_iter().map(|h| h.join().ok().flatten()))
            .collect()
    });
    let chunks: Vec<Vec<Entry>> = decoded.into_iter().collect::<Option<_>>()?;
    // One allocation of the final size: growing a vector of this size page by page costs more
    // (in fresh pages the kernel must zero) than decoding it.
    let mut entries = Vec::with_capacity(chunks.iter().map(Vec::len).sum());
    for mut chunk in chunks {
        entries.append(&mut chunk);
    }
    Some(entries)
}

/// Decodes one chunk (a postcard sequence of entries) into a vector allocated once at its final
/// size; serde's own sequence decoding would grow it step by step.
fn decode_chunk(chunk: &[u8]) -> Option<Vec<Entry>> {
    let (len, mut rest) = postcard::take_from_bytes::<u64>(chunk).ok()?;
    // Every entry takes at least one byte, so a corrupt length cannot ask for more.
    let len = usize::try_from(len).ok().filter(|&n| n <= rest.len())?;
    let mut entries = Vec::with_capacity(len);
    for _ in 0..len {
        let (entry, tail) = postcard::take_from_bytes::<Entry>(rest).ok()?;
        entries.push(entry);
        rest = tail;
    }
    rest.is_empty().then_some(entries)
}

fn save(
    index_file: &Path,
    key: &str,
    metadata: &Metadata,
    parser: &Parser,
    indexed: &[u8],
) -> std::io::Result<()> {
    let (head_check, tail_check) = checks(indexed);
    let chunk_len = parser.entries.len().div_ceil(CHUNKS).max(1);
    let encoded: Vec<Vec<u8>> = parser
        .entries
        .chunks(chunk_len)
        .map(postcard::to_stdvec)
        .collect::<Result<_, _>>()
        .map_err(std::io::Error::other)?;
    let index = IndexOut {
        format: FORMAT,
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
    let data = postcard::to_stdvec(&index).map_err(std::io::Error::other)?;
    let dir = index_file.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let temp = temp_path(index_file);
    let written = fs::File::create(&temp).and_then(|mut f| f.write_all(&data));
    match written.and_then(|()| fs::rename(&temp, index_file)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(e)
        }
    }
}

fn temp_path(index_file: &Path) -> PathBuf {
    let mut name = index_file.as_os_str().to_owned();
    name.push(format!(".{}.tmp", std::process::id()));
    PathBuf::from(name)
}

fn checks(prefix: &[u8]) -> ([u8; 20], [u8; 20]) {
    let head = &prefix[..prefix.len().min(CHECK_BYTES)];
    let tail = &prefix[prefix.len().saturating_sub(CHECK_BYTES)..];
    (Sha1::digest(head).into(), Sha1::digest(tail).into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
