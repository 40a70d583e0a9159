//! The per-file state that goes with one commit of the index: which files are indexed, up to
//! which byte, and what each session is (id, cwd, project, name, dates).
//!
//! The catalog is written to `catalog-<n>.bin` in the index's generation before the commit
//! whose payload names it, so a reader that opens the commit finds exactly the catalog that
//! describes it.

use std::borrow::Cow;
use std::fs;
use std::io::Write;

use serde::{Deserialize, Serialize};

use super::directory::BatchSyncDirectory;
use super::discover::{DirRecord, Stat};
use crate::session::Harness;

/// Bumped whenever the catalog or the index schema changes meaning; an index of another format
/// is rebuilt (format 3 added the change time to a file's stamp; format 4 each session's
/// harness and parent session; format 5 a CRC-32 for the racy-clean check instead of SHA-1; format 6 that CRC kept for
/// every file and extended as it grows; format 7 the round-4 fixes: session names masked like
/// first prompts, words over 80 bytes indexed cut to their first 80 bytes instead of left out, a
/// Codex compaction's reply no longer an assistant event, Codex event copies before their roled
/// twins read once, Claude Code's harness words context events, a compaction's missing logical
/// parent; the record types a reader did not know, by file; format 9 the listed directories'
/// stamps, so a search need not look at every file; format 10 each event's stems indexed
/// beside its words, issue 42; format 11 a part document per file and refresh holding its
/// events' stems, the session level of a search's pool and count; format 12 an agent noun's root
/// indexed beside its stem, `signer` also as `sign`; format 13 the catalog read in place: a row of
/// fixed width per file with what a search needs of every file, the rest of each record decoded
/// when asked for).
pub const FORMAT: u32 = 13;

/// What `sessions list` shows of a session (docs/recall.md, "Output").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub session_id: String,
    /// The agent that wrote the session, recognized from the file's content.
    pub harness: Harness,
    /// The session that started this one (a Claude Code subagent's parent).
    pub parent_session_id: Option<String>,
    pub cwd: Option<String>,
    pub project_key: Option<String>,
    /// Masked when masking is on (docs/recall.md, "Secrets").
    pub name: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    /// `updated_at` in Unix milliseconds (0 when unknown), for sorting and `--since`.
    pub updated_ms: i64,
    pub entries: usize,
    pub bytes: u64,
    pub first_user_preview: Option<String>,
}

/// One indexed session file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    /// The value of the index's `file` field for this file's documents.
    pub file_id: u64,
    pub path: String,
    pub stat: Stat,
    /// The file's lines up to here are indexed: its complete lines, and a last line without
    /// its newline once it parsed and had settled.
    pub indexed_len: u64,
    /// Entries in the indexed prefix.
    pub indexed_entries: usize,
    /// SHA-1 of the first and of the last 4 KiB of the indexed prefix.
    pub head_check: [u8; 20],
    pub tail_check: [u8; 20],
    /// CRC-32 of the whole indexed prefix, extended (CRCs combine) as the file grows, so
    /// keeping it costs a read of what was appended, not of the whole file.
    pub prefix_crc: u32,
    /// The file is "racily clean": it was changed within the settling time before the
    /// refresh that read it, so a change in the same tick of the file system's clock would
    /// leave its stamp as it is. The next refresh compares the content (`prefix_crc`) instead
    /// of trusting the stamp. A change detector, not a seal (the size and the SHA-1 of both
    /// ends must match too): a CRC runs at memory speed, where the SHA-1 of a 70 MB session's
    /// prefix took 60 ms of the search after an append.
    pub racy: bool,
    /// The header's `version` (None: v1), needed to re-read single lines as the file's reader
    /// would.
    pub version: Option<u64>,
    pub events: u64,
    pub info: SessionInfo,
    /// Records of types the file's reader does not know, by type (a format that changed).
    pub unknown_types: std::collections::BTreeMap<String, u32>,
}

/// The catalog of one commit. A loaded catalog is read in place from its file: what a search
/// needs of every file (a [`Key`]) from fixed-width rows, a file's whole [`FileRecord`] decoded
/// only when asked for; a writer's catalog holds its records decoded.
#[derive(Debug, Default)]
pub struct Catalog {
    pub format: u32,
    pub next_file_id: u64,
    /// The session directories whose listing these files stand for while their stamps hold
    /// (docs/recall.md, "Incremental refresh").
    pub dirs: Vec<DirRecord>,
    files: Files,
}

#[derive(Debug)]
enum Files {
    Decoded(Vec<FileRecord>),
    Mapped(Mapped),
}

impl Files {
    fn into_records(self) -> Option<Vec<FileRecord>> {
        match self {
            Files::Decoded(files) => Some(files),
            Files::Mapped(mapped) => mapped.records(),
        }
    }
}

impl Default for Files {
    fn default() -> Files {
        Files::Decoded(Vec::new())
    }
}

/// What a search needs of every indexed file, read in place: its id, path and stamp (the
/// refresh), harness, project and parent (the scope), session id (short ids) and last update
/// (recency). Each is read from the file's row when asked for: a search passes over every key
/// several times, each pass for a field or two.
#[derive(Debug, Clone, Copy)]
pub struct Key<'a>(KeyOf<'a>);

#[derive(Debug, Clone, Copy)]
enum KeyOf<'a> {
    Record(&'a FileRecord),
    Row { row: &'a [u8], heap: &'a [u8] },
}

impl<'a> Key<'a> {
    pub fn file_id(&self) -> u64 {
        match self.0 {
            KeyOf::Record(r) => r.file_id,
            KeyOf::Row { row, .. } => u64_at(row, FILE_ID),
        }
    }

    pub fn path(&self) -> &'a str {
        match self.0 {
            KeyOf::Record(r) => &r.path,
            KeyOf::Row { row, heap } => text(row, heap, PATH).unwrap_or_default(),
        }
    }

    pub fn stat(&self) -> Stat {
        match self.0 {
            KeyOf::Record(r) => r.stat,
            KeyOf::Row { row, .. } => Stat {
                dev: u64_at(row, DEV),
                ino: u64_at(row, INO),
                size: u64_at(row, SIZE),
                mtime_ns: u64_at(row, MTIME) as i64,
                ctime_ns: u64_at(row, CTIME) as i64,
            },
        }
    }

    /// The stamp's later of its modification and change times.
    pub fn changed_ns(&self) -> i64 {
        let stat = self.stat();
        stat.ctime_ns.max(stat.mtime_ns)
    }

    pub fn updated_ms(&self) -> i64 {
        match self.0 {
            KeyOf::Record(r) => r.info.updated_ms,
            KeyOf::Row { row, .. } => u64_at(row, UPDATED) as i64,
        }
    }

    pub fn racy(&self) -> bool {
        match self.0 {
            KeyOf::Record(r) => r.racy,
            KeyOf::Row { row, .. } => row.get(RACY).is_some_and(|b| *b != 0),
        }
    }

    pub fn harness(&self) -> Harness {
        match self.0 {
            KeyOf::Record(r) => r.info.harness,
            KeyOf::Row { row, .. } => harness_at(row).unwrap_or_default(),
        }
    }

    pub fn session_id(&self) -> &'a str {
        match self.0 {
            KeyOf::Record(r) => &r.info.session_id,
            KeyOf::Row { row, heap } => text(row, heap, SESSION_ID).unwrap_or_default(),
        }
    }

    pub fn parent_session_id(&self) -> Option<&'a str> {
        match self.0 {
            KeyOf::Record(r) => r.info.parent_session_id.as_deref(),
            KeyOf::Row { row, heap } => text(row, heap, PARENT),
        }
    }

    pub fn project_key(&self) -> Option<&'a str> {
        match self.0 {
            KeyOf::Record(r) => r.info.project_key.as_deref(),
            KeyOf::Row { row, heap } => text(row, heap, PROJECT),
        }
    }
}

/// The string of a row's span; `None` for an absent one. The load checked it; a file changed
/// under the map since reads as garbage, never as a panic.
fn text<'a>(row: &[u8], heap: &'a [u8], field: usize) -> Option<&'a str> {
    let span = span_at(row, field)?;
    Some(std::str::from_utf8(heap.get(span).unwrap_or_default()).unwrap_or_default())
}

impl Catalog {
    pub fn empty() -> Catalog {
        Catalog::of(1, Vec::new())
    }

    /// A catalog of `files` (sorted by file id here), the next new file to get `next_file_id`.
    pub fn of(next_file_id: u64, mut files: Vec<FileRecord>) -> Catalog {
        files.sort_by_key(|r| r.file_id);
        Catalog {
            format: FORMAT,
            next_file_id,
            dirs: Vec::new(),
            files: Files::Decoded(files),
        }
    }

    /// The catalog `name` of a generation; `None` when it is missing, not a regular file,
    /// too large, cut short while it was read, or does not parse as this format.
    pub fn load(directory: &BatchSyncDirectory, name: &str) -> Option<Catalog> {
        let file = directory.map_small(name).ok()?;
        let (head, layout) = Layout::read(file.bytes())?;
        if file.damaged() {
            return None;
        }
        Some(Catalog {
            format: head.format,
            next_file_id: head.next_file_id,
            dirs: head.dirs,
            files: Files::Mapped(Mapped { file, layout }),
        })
    }

    /// How many files are indexed.
    pub fn len(&self) -> usize {
        match &self.files {
            Files::Decoded(files) => files.len(),
            Files::Mapped(mapped) => mapped.layout.count,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key of the file at `position` (in file id order).
    pub fn key(&self, position: usize) -> Key<'_> {
        match &self.files {
            Files::Decoded(files) => Key(KeyOf::Record(&files[position])),
            Files::Mapped(mapped) => mapped.key(position),
        }
    }

    /// Every file's key, in file id order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = Key<'_>> + Clone + '_ {
        (0..self.len()).map(|position| self.key(position))
    }

    /// The position of the file `file_id`.
    pub fn position(&self, file_id: u64) -> Option<usize> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = low + (high - low) / 2;
            match self.key(middle).file_id().cmp(&file_id) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(middle),
            }
        }
        None
    }

    /// The whole record of the file at `position`; `None` when its bytes no longer decode (the
    /// catalog's file was cut or changed under its map since it was loaded).
    pub fn record(&self, position: usize) -> Option<Cow<'_, FileRecord>> {
        match &self.files {
            Files::Decoded(files) => files.get(position).map(Cow::Borrowed),
            Files::Mapped(mapped) => mapped.record(position).map(Cow::Owned),
        }
    }

    /// The records of the files, decoded (the whole catalog: a writer changes them), leaving
    /// the catalog without files. `None` when a record no longer decodes.
    pub fn take_records(&mut self) -> Option<Vec<FileRecord>> {
        std::mem::take(&mut self.files).into_records()
    }

    /// Replaces the files (sorted by file id here).
    pub fn set_records(&mut self, mut files: Vec<FileRecord>) {
        files.sort_by_key(|r| r.file_id);
        self.files = Files::Decoded(files);
    }

    /// The catalog's bytes ([`Layout`]).
    fn encode(&self) -> Option<Vec<u8>> {
        let mut rows = Vec::with_capacity(self.len() * ROW_BYTES);
        let mut heap = Vec::new();
        let mut previous = None;
        for position in 0..self.len() {
            let record = self.record(position)?;
            // Rows are found by file id in halves.
            if previous.is_some_and(|id| id >= record.file_id) {
                return None;
            }
            previous = Some(record.file_id);
            encode_row(&record, &mut rows, &mut heap)?;
        }
        let head = Head {
            format: self.format,
            next_file_id: self.next_file_id,
            dirs: self.dirs.clone(),
            files: self.len() as u64,
            heap_bytes: heap.len() as u64,
            crc: {
                let mut crc = crc32fast::Hasher::new();
                crc.update(&rows);
                crc.update(&heap);
                crc.finalize().to_le_bytes()
            },
        };
        let mut data = postcard::to_stdvec(&head).ok()?;
        data.extend_from_slice(&rows);
        data.extend_from_slice(&heap);
        Some(data)
    }

    #[cfg(test)]
    fn decode(data: &[u8]) -> Option<Catalog> {
        let (head, layout) = Layout::read(data)?;
        let mapped = Mapped {
            file: super::directory::SmallFile::Read(data.to_vec()),
            layout,
        };
        Some(Catalog {
            format: head.format,
            next_file_id: head.next_file_id,
            dirs: head.dirs,
            files: Files::Decoded(mapped.records()?),
        })
    }

    /// Writes the catalog to a new file of the generation (temp, rename) and returns its name
    /// and the file, which the caller syncs (with the commit that names it) before the commit.
    pub fn save(&self, directory: &BatchSyncDirectory) -> std::io::Result<(String, fs::File)> {
        let data = self.encode().ok_or_else(|| {
            std::io::Error::other("the catalog's records could not be read back to be saved")
        })?;
        let id = uuid::Uuid::new_v4().simple().to_string();
        let name = format!("catalog-{}.bin", &id[..16]);
        let temp = format!(".{name}.tmp");
        let written = directory.create_new(&temp).and_then(|mut f| {
            f.write_all(&data)?;
            Ok(f)
        });
        match written.and_then(|f| directory.rename(&temp, &name).map(|()| f)) {
            Ok(file) => Ok((name, file)),
            Err(e) => {
                let _ = directory.remove(&temp);
                Err(e)
            }
        }
    }
}

/// What a catalog file starts with (postcard): all but its files, how many files and heap
/// bytes follow, and the CRC-32 of what follows. Then one [`ROW_BYTES`] row per file in file id
/// order, then the heap the rows' spans point into: each file's key strings and the rest of its
/// record ([`Detail`], postcard).
#[derive(Serialize, Deserialize)]
struct Head {
    format: u32,
    next_file_id: u64,
    dirs: Vec<DirRecord>,
    files: u64,
    heap_bytes: u64,
    /// Little-endian, of fixed width (a varint would make the head's length depend on it).
    crc: [u8; 4],
}

/// Where a catalog file's rows and heap are.
#[derive(Debug, Clone, Copy)]
struct Layout {
    rows: usize,
    count: usize,
    heap: usize,
    heap_bytes: usize,
}

/// A row: file id, the stamp's five numbers, last update (all 8 bytes, little-endian), the
/// racy flag and the harness (a byte each, then padding to 64), and five spans (offset and
/// length in the heap, 4 bytes each; a length of `u32::MAX` is an absent string): path, session
/// id, parent session id, project key, and the record's [`Detail`]. Each field's offset is
/// named once here, for the writer and the readers alike.
const ROW_BYTES: usize = 104;
const ABSENT: u32 = u32::MAX;
const FILE_ID: usize = 0;
const DEV: usize = 8;
const INO: usize = 16;
const SIZE: usize = 24;
const MTIME: usize = 32;
const CTIME: usize = 40;
const UPDATED: usize = 48;
const RACY: usize = 56;
const HARNESS: usize = 57;
const PATH: usize = 64;
const SESSION_ID: usize = 72;
const PARENT: usize = 80;
const PROJECT: usize = 88;
const DETAIL: usize = 96;

impl Layout {
    /// The head and layout of a catalog file's bytes; `None` unless every row is whole, every
    /// span lies in the heap, every key string is UTF-8 and every harness is known, the file
    /// ids rise, nothing follows the heap, and the rows and heap have the head's CRC. Checked
    /// once here, so reading a key later needs no check that can fail on a file as it was
    /// written, and a record decoded later (which is not checked here: that is the decoding a
    /// search no longer does) is one of a file as it was written: a changed byte anywhere is a
    /// catalog that does not parse, and the index is rebuilt.
    fn read(data: &[u8]) -> Option<(Head, Layout)> {
        let (head, rest) = postcard::take_from_bytes::<Head>(data).ok()?;
        if head.format != FORMAT {
            return None;
        }
        let count = usize::try_from(head.files).ok()?;
        let heap_bytes = usize::try_from(head.heap_bytes).ok()?;
        let rows_len = count.checked_mul(ROW_BYTES)?;
        if rows_len.checked_add(heap_bytes)? != rest.len()
            || heap_bytes > ABSENT as usize
            || crc32fast::hash(rest).to_le_bytes() != head.crc
        {
            return None;
        }
        let layout = Layout {
            rows: data.len() - rest.len(),
            count,
            heap: data.len() - rest.len() + rows_len,
            heap_bytes,
        };
        let heap = &data[layout.heap..];
        let mut previous: Option<u64> = None;
        for row in rest[..rows_len].chunks_exact(ROW_BYTES) {
            let id = u64_at(row, FILE_ID);
            if previous.is_some_and(|p| p >= id) || harness_at(row).is_none() {
                return None;
            }
            previous = Some(id);
            for field in [PATH, SESSION_ID, PARENT, PROJECT] {
                if let Some(span) = span_at(row, field) {
                    std::str::from_utf8(heap.get(span)?).ok()?;
                }
            }
            heap.get(span_at(row, DETAIL)?)?;
        }
        Some((head, layout))
    }
}

/// A loaded catalog's file and where its parts are.
struct Mapped {
    file: super::directory::SmallFile,
    layout: Layout,
}

impl std::fmt::Debug for Mapped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapped")
            .field("layout", &self.layout)
            .field("damaged", &self.file.damaged())
            .finish()
    }
}

impl Mapped {
    fn row(&self, position: usize) -> &[u8] {
        let start = self.layout.rows + position * ROW_BYTES;
        self.file
            .bytes()
            .get(start..start + ROW_BYTES)
            .unwrap_or(&[0; ROW_BYTES])
    }

    fn heap(&self) -> &[u8] {
        let heap = self.layout.heap;
        self.file
            .bytes()
            .get(heap..heap + self.layout.heap_bytes)
            .unwrap_or_default()
    }

    fn key(&self, position: usize) -> Key<'_> {
        Key(KeyOf::Row {
            row: self.row(position),
            heap: self.heap(),
        })
    }

    fn record(&self, position: usize) -> Option<FileRecord> {
        let key = self.key(position);
        let span = span_at(self.row(position), DETAIL)?;
        let detail: Detail = postcard::from_bytes(self.heap().get(span)?).ok()?;
        Some(detail.with(key))
    }

    /// Every record, decoded on two threads when there are many (their strings are most of
    /// what reading a catalog of thousands of sessions whole costs). `None` when one does not
    /// decode, or the file was cut under its map meanwhile (zeros can decode as a record, and
    /// these records are saved again).
    fn records(&self) -> Option<Vec<FileRecord>> {
        let decode = |positions: std::ops::Range<usize>| -> Option<Vec<FileRecord>> {
            positions.map(|p| self.record(p)).collect()
        };
        let count = self.layout.count;
        let files = if count < MIN_SPLIT_FILES {
            decode(0..count)?
        } else {
            let half = count / 2;
            std::thread::scope(|scope| {
                let second = scope.spawn(|| decode(half..count));
                let mut files = decode(0..half)?;
                files.extend(second.join().ok()??);
                Some(files)
            })?
        };
        (!self.file.damaged()).then_some(files)
    }
}

/// A catalog of fewer files is decoded whole on one thread: a thread costs more.
const MIN_SPLIT_FILES: usize = 2048;

fn u64_at(row: &[u8], at: usize) -> u64 {
    row.get(at..at + 8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

fn u32_at(row: &[u8], at: usize) -> u32 {
    row.get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

/// The heap range of a row's span; `None` for an absent string.
fn span_at(row: &[u8], field: usize) -> Option<std::ops::Range<usize>> {
    let (offset, len) = (u32_at(row, field), u32_at(row, field + 4));
    (len != ABSENT).then(|| offset as usize..offset as usize + len as usize)
}

/// A record's fields that are not in its row.
#[derive(Serialize, Deserialize)]
struct Detail {
    indexed_len: u64,
    indexed_entries: usize,
    head_check: [u8; 20],
    tail_check: [u8; 20],
    prefix_crc: u32,
    version: Option<u64>,
    events: u64,
    cwd: Option<String>,
    name: Option<String>,
    created_at: Option<String>,
    updated_at: Option<String>,
    entries: usize,
    bytes: u64,
    first_user_preview: Option<String>,
    unknown_types: std::collections::BTreeMap<String, u32>,
}

impl Detail {
    fn of(record: &FileRecord) -> Detail {
        Detail {
            indexed_len: record.indexed_len,
            indexed_entries: record.indexed_entries,
            head_check: record.head_check,
            tail_check: record.tail_check,
            prefix_crc: record.prefix_crc,
            version: record.version,
            events: record.events,
            cwd: record.info.cwd.clone(),
            name: record.info.name.clone(),
            created_at: record.info.created_at.clone(),
            updated_at: record.info.updated_at.clone(),
            entries: record.info.entries,
            bytes: record.info.bytes,
            first_user_preview: record.info.first_user_preview.clone(),
            unknown_types: record.unknown_types.clone(),
        }
    }

    fn with(self, key: Key) -> FileRecord {
        FileRecord {
            file_id: key.file_id(),
            path: key.path().to_string(),
            stat: key.stat(),
            indexed_len: self.indexed_len,
            indexed_entries: self.indexed_entries,
            head_check: self.head_check,
            tail_check: self.tail_check,
            prefix_crc: self.prefix_crc,
            racy: key.racy(),
            version: self.version,
            events: self.events,
            info: SessionInfo {
                session_id: key.session_id().to_string(),
                harness: key.harness(),
                parent_session_id: key.parent_session_id().map(str::to_string),
                cwd: self.cwd,
                project_key: key.project_key().map(str::to_string),
                name: self.name,
                created_at: self.created_at,
                updated_at: self.updated_at,
                updated_ms: key.updated_ms(),
                entries: self.entries,
                bytes: self.bytes,
                first_user_preview: self.first_user_preview,
            },
            unknown_types: self.unknown_types,
        }
    }
}

/// Appends `record`'s row to `rows` and its strings and detail to `heap`; `None` when the
/// detail does not encode or the heap outgrows its 32-bit offsets.
fn encode_row(record: &FileRecord, rows: &mut Vec<u8>, heap: &mut Vec<u8>) -> Option<()> {
    let mut row = [0u8; ROW_BYTES];
    let numbers = [
        (FILE_ID, record.file_id),
        (DEV, record.stat.dev),
        (INO, record.stat.ino),
        (SIZE, record.stat.size),
        (MTIME, record.stat.mtime_ns as u64),
        (CTIME, record.stat.ctime_ns as u64),
        (UPDATED, record.info.updated_ms as u64),
    ];
    for (field, n) in numbers {
        row[field..field + 8].copy_from_slice(&n.to_le_bytes());
    }
    row[RACY] = u8::from(record.racy);
    row[HARNESS] = harness_code(record.info.harness);
    let info = &record.info;
    let detail = postcard::to_stdvec(&Detail::of(record)).ok()?;
    let spans: [(usize, Option<&[u8]>); 5] = [
        (PATH, Some(record.path.as_bytes())),
        (SESSION_ID, Some(info.session_id.as_bytes())),
        (PARENT, info.parent_session_id.as_deref().map(str::as_bytes)),
        (PROJECT, info.project_key.as_deref().map(str::as_bytes)),
        (DETAIL, Some(&detail)),
    ];
    for (field, bytes) in spans {
        let (offset, len) = match bytes {
            Some(bytes) => {
                let offset = u32::try_from(heap.len()).ok()?;
                let len = u32::try_from(bytes.len())
                    .ok()
                    .filter(|len| *len != ABSENT)?;
                heap.extend_from_slice(bytes);
                (offset, len)
            }
            None => (0, ABSENT),
        };
        row[field..field + 4].copy_from_slice(&offset.to_le_bytes());
        row[field + 4..field + 8].copy_from_slice(&len.to_le_bytes());
    }
    rows.extend_from_slice(&row);
    Some(())
}

/// A harness's byte in a row: its place in [`Harness::ALL`] (a new harness goes at the end of
/// that list, or the format changes).
fn harness_code(harness: Harness) -> u8 {
    Harness::ALL
        .iter()
        .position(|h| *h == harness)
        .map_or(0, |p| p as u8)
}

/// The harness of a row's byte; `None` for a byte no harness has.
fn harness_at(row: &[u8]) -> Option<Harness> {
    Harness::ALL.get(usize::from(*row.get(HARNESS)?)).copied()
}

/// Removes every catalog file of the generation but `keep` (older commits' catalogs,
/// abandoned temp files).
pub fn remove_others(directory: &BatchSyncDirectory, keep: &str) {
    let Ok(names) = directory.names() else {
        return;
    };
    for name in names {
        let is_catalog = name.starts_with("catalog-") || name.starts_with(".catalog-");
        if is_catalog && name != keep {
            let _ = directory.remove(&name);
        }
    }
}

/// The commit payload: the format, the catalog file it goes with, and the masking its
/// documents were built with ([`crate::redact::Masking::stamp`]: the rules' version, or `off`).
#[derive(Debug, Serialize, Deserialize)]
pub struct Payload {
    pub format: u32,
    pub catalog: String,
    /// Absent in indexes built before secrets were masked: those are rebuilt.
    #[serde(default)]
    pub masking: String,
}

impl Payload {
    pub fn parse(text: &str) -> Option<Payload> {
        serde_json::from_str::<Payload>(text)
            .ok()
            .filter(|p| p.format == FORMAT)
            .filter(|p| is_catalog_name(&p.catalog))
    }
}

/// A catalog name the payload may point at (never a path outside the index directory).
fn is_catalog_name(name: &str) -> bool {
    name.starts_with("catalog-")
        && name.ends_with(".bin")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(file_id: u64) -> FileRecord {
        FileRecord {
            file_id,
            path: format!("/sessions/{file_id}.jsonl"),
            stat: Stat {
                dev: 1,
                ino: file_id,
                size: 10 * file_id,
                mtime_ns: 7,
                ctime_ns: 8,
            },
            indexed_len: 10 * file_id,
            indexed_entries: 3,
            head_check: [1; 20],
            tail_check: [2; 20],
            prefix_crc: 9,
            racy: false,
            version: Some(3),
            events: 4,
            info: SessionInfo {
                session_id: format!("s{file_id}"),
                harness: Harness::Pi,
                parent_session_id: None,
                cwd: Some("/work".into()),
                project_key: None,
                name: None,
                created_at: None,
                updated_at: None,
                updated_ms: file_id as i64,
                entries: 3,
                bytes: 10 * file_id,
                first_user_preview: Some(format!("question {file_id}")),
            },
            unknown_types: Default::default(),
        }
    }

    fn catalog(files: u64) -> Catalog {
        let mut records: Vec<FileRecord> = (1..=files).map(record).collect();
        for (i, r) in records.iter_mut().enumerate() {
            r.info.harness = Harness::ALL[i % Harness::ALL.len()];
            r.info.parent_session_id = (i % 3 == 0).then(|| format!("p{i}"));
            r.info.project_key = (i % 2 == 0).then(|| "proj".into());
            r.racy = i % 5 == 0;
        }
        let mut catalog = Catalog::of(files + 1, records);
        catalog.dirs = vec![DirRecord {
            path: "/sessions".into(),
            glob: "*.jsonl".into(),
            stamp: record(1).stat,
            files: files as u32,
        }];
        catalog
    }

    fn ids(catalog: &Catalog) -> Vec<u64> {
        catalog.keys().map(|k| k.file_id()).collect()
    }

    fn infos(mut catalog: Catalog) -> Vec<(String, SessionInfo, bool, Stat)> {
        catalog
            .take_records()
            .unwrap()
            .into_iter()
            .map(|r| (r.path, r.info, r.racy, r.stat))
            .collect()
    }

    #[test]
    fn a_catalog_reads_back_whole_keys_and_records_alike() {
        for files in [0, 5, MIN_SPLIT_FILES as u64 * 2 + 7] {
            let written = catalog(files);
            let data = written.encode().unwrap();
            let (head, layout) = Layout::read(&data).unwrap();
            let mapped = Catalog {
                format: head.format,
                next_file_id: head.next_file_id,
                dirs: head.dirs,
                files: Files::Mapped(Mapped {
                    file: super::super::directory::SmallFile::Read(data.clone()),
                    layout,
                }),
            };
            assert_eq!(ids(&mapped), ids(&written));
            let fields = |k: Key| {
                (
                    k.file_id(),
                    k.path().to_string(),
                    k.stat(),
                    k.racy(),
                    k.harness(),
                    k.session_id().to_string(),
                    k.parent_session_id().map(str::to_string),
                    k.project_key().map(str::to_string),
                    k.updated_ms(),
                )
            };
            assert!(mapped.keys().map(fields).eq(written.keys().map(fields)));
            for id in [1, files / 2 + 1, files] {
                let position = mapped.position(id);
                assert_eq!(position, written.position(id));
                if let Some(p) = position.filter(|_| files > 0) {
                    assert_eq!(mapped.key(p).file_id(), id);
                    assert_eq!(
                        mapped.record(p).unwrap().info,
                        written.record(p).unwrap().info
                    );
                }
            }
            assert_eq!(mapped.position(files + 1), None);
            assert_eq!(mapped.next_file_id, files + 1);
            assert_eq!(mapped.dirs.len(), 1);
            let read = Catalog::decode(&data).unwrap();
            assert_eq!(infos(read), infos(catalog(files)));
            assert_eq!(infos(mapped), infos(catalog(files)));
        }
    }

    #[test]
    fn a_cut_or_padded_catalog_is_refused() {
        let data = catalog(40).encode().unwrap();
        for cut in [1, 100, data.len() / 2, data.len() - 1] {
            assert!(Catalog::decode(&data[..cut]).is_none(), "cut at {cut}");
        }
        let mut padded = data.clone();
        padded.push(0);
        assert!(Catalog::decode(&padded).is_none());
        // A head that claims more files than its bytes hold is refused before any is read.
        let huge = postcard::to_stdvec(&Head {
            format: FORMAT,
            next_file_id: 1,
            dirs: Vec::new(),
            files: u64::MAX / 2,
            heap_bytes: 0,
            crc: [0; 4],
        })
        .unwrap();
        assert!(Catalog::decode(&huge).is_none());
        // Every byte flipped in turn: it is refused, or it decodes to other values; it never
        // panics, and what loads reads whole.
        for at in 0..data.len() {
            let mut flipped = data.clone();
            flipped[at] ^= 0xff;
            if let Some(read) = Catalog::decode(&flipped) {
                for key in read.keys() {
                    let _ = (
                        key.path(),
                        key.session_id(),
                        key.project_key(),
                        key.harness(),
                    );
                }
            }
        }
    }

    #[test]
    fn a_row_out_of_order_or_of_an_unknown_harness_or_a_span_past_the_heap_is_refused() {
        let data = catalog(3).encode().unwrap();
        let (_, layout) = Layout::read(&data).unwrap();
        // Each change below is sealed with a new CRC, so each check is seen refusing it.
        let sealed = |data: &[u8]| {
            let (mut head, rest) = postcard::take_from_bytes::<Head>(data).unwrap();
            head.crc = crc32fast::hash(rest).to_le_bytes();
            let mut sealed = postcard::to_stdvec(&head).unwrap();
            sealed.extend_from_slice(rest);
            assert_eq!(sealed.len(), data.len(), "the head kept its length");
            sealed
        };
        assert!(Layout::read(&sealed(&data)).is_some());
        let row = |i: usize| layout.rows + i * ROW_BYTES;
        let mut swapped = data.clone();
        swapped[row(1)..row(1) + 8].copy_from_slice(&1u64.to_le_bytes());
        assert!(
            Layout::read(&sealed(&swapped)).is_none(),
            "file ids must rise"
        );
        let mut harness = data.clone();
        harness[row(0) + HARNESS] = Harness::ALL.len() as u8;
        assert!(Layout::read(&sealed(&harness)).is_none(), "unknown harness");
        let mut span = data.clone();
        let at = row(2) + PATH + 4;
        span[at..at + 4].copy_from_slice(&(layout.heap_bytes as u32).to_le_bytes());
        assert!(
            Layout::read(&sealed(&span)).is_none(),
            "a span past the heap"
        );
        let mut text = data.clone();
        let path = u32_at(&text[row(0)..], PATH) as usize;
        text[layout.heap + path] = 0xff;
        assert!(
            Layout::read(&sealed(&text)).is_none(),
            "a key that is not UTF-8"
        );
        // A record's detail is not decoded when the catalog is loaded: a changed byte in it
        // is caught by the CRC.
        let mut detail = data;
        let (offset, len) = (
            u32_at(&detail[row(1)..], DETAIL) as usize,
            u32_at(&detail[row(1)..], DETAIL + 4) as usize,
        );
        for at in offset..offset + len {
            let mut changed = detail.clone();
            changed[layout.heap + at] ^= 0x40;
            assert!(Layout::read(&changed).is_none(), "detail byte {at}");
        }
        detail[layout.heap + offset] ^= 0x40;
        assert!(Layout::read(&sealed(&detail)).is_some());
    }

    #[test]
    fn every_harness_has_its_own_byte() {
        for harness in Harness::ALL {
            assert_eq!(Harness::ALL[usize::from(harness_code(harness))], harness);
        }
    }

    mod generated {
        use super::*;
        use proptest::prelude::*;

        fn any_record() -> impl Strategy<Value = FileRecord> {
            (
                (
                    "\\PC{0,40}",
                    "\\PC{0,12}",
                    proptest::option::of("\\PC{0,12}"),
                    proptest::option::of("\\PC{0,12}"),
                    proptest::option::of("\\PC{0,30}"),
                ),
                (
                    any::<[u64; 3]>(),
                    any::<[i64; 3]>(),
                    any::<bool>(),
                    0..Harness::ALL.len(),
                ),
                proptest::collection::btree_map("[a-z_]{1,8}", any::<u32>(), 0..3),
            )
                .prop_map(
                    |((path, id, parent, project, preview), numbers, unknown)| {
                        let ([dev, ino, size], [mtime_ns, ctime_ns, updated_ms], racy, harness) =
                            numbers;
                        let mut r = record(0);
                        r.path = path;
                        r.stat = Stat {
                            dev,
                            ino,
                            size,
                            mtime_ns,
                            ctime_ns,
                        };
                        r.racy = racy;
                        r.info.session_id = id;
                        r.info.parent_session_id = parent;
                        r.info.project_key = project;
                        r.info.first_user_preview = preview;
                        r.info.harness = Harness::ALL[harness];
                        r.info.updated_ms = updated_ms;
                        r.unknown_types = unknown;
                        r
                    },
                )
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(128))]

            /// Whatever the records hold, the catalog reads back the same keys and records.
            #[test]
            fn any_records_read_back_as_written(
                records in proptest::collection::vec(any_record(), 0..12),
                flip in any::<proptest::sample::Index>(),
            ) {
                let records: Vec<FileRecord> = records
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut r)| {
                        r.file_id = 3 * i as u64 + 1;
                        r
                    })
                    .collect();
                let written = Catalog::of(99, records);
                let data = written.encode().unwrap();
                let read = Catalog::decode(&data).unwrap();
                prop_assert_eq!(read.len(), written.len());
                for p in 0..written.len() {
                    let (a, b) = (read.record(p).unwrap(), written.record(p).unwrap());
                    prop_assert_eq!(&a.path, &b.path);
                    prop_assert_eq!(a.stat, b.stat);
                    prop_assert_eq!(a.racy, b.racy);
                    prop_assert_eq!(&a.info, &b.info);
                    prop_assert_eq!(&a.unknown_types, &b.unknown_types);
                    prop_assert_eq!(read.position(a.file_id), Some(p));
                }
                // A byte changed anywhere is refused (the CRC, or the head no longer parses
                // to this layout), never a panic.
                let mut changed = data.clone();
                let at = flip.index(changed.len());
                changed[at] ^= 0x5a;
                if let Some(read) = Catalog::decode(&changed) {
                    let (_, layout) = Layout::read(&data).unwrap();
                    prop_assert!(at < layout.rows, "only a head's byte can change and parse");
                    let _ = read.keys().map(|k| k.path().len()).sum::<usize>();
                }
            }
        }
    }
}
