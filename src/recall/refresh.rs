//! Bringing the index up to date with the session files, incrementally.
//!
//! For each file the catalog records its stamp (device, inode, size, modification and change
//! times), how far it was indexed and hashes of the first and last 4 KiB of that prefix. A file
//! whose stamp is unchanged is skipped, unless it was racily clean (changed within the settling
//! time before it was read): then its content is compared. One that only grew (same device and
//! inode, larger, prefix hashes unchanged) is re-read through the session cache (so only the
//! appended tail is parsed), its projection is recomputed as it was and as it is, and only the
//! events whose description changed are replaced. Anything else is dropped and indexed again; a
//! deleted file is dropped. A torn last line is not indexed until it is complete, or has
//! settled and parses. All of it is one commit.

use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;

use rustc_hash::FxHashMap;
use tantivy::query::{BooleanQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{TantivyDocument, Term};

use super::ahead;
use super::catalog::{self, Catalog, FileRecord, Payload, SessionInfo};
use super::discover::{Discovery, Found, Stat};
use super::error::RecallError;
use super::events::{self, EventDesc};
use super::schema::{
    Fields, Flags, SourceKind, PART_MAX_COUNT, PART_MAX_STEMS, PART_OFF_BRANCH, PART_ON_BRANCH,
};
use super::store::{IndexWriter, Store};
use crate::cachefile::prefix_checks;
use crate::history::{event_document, ProjectionStore, Role};
use crate::redact::Masking;
use crate::session::Root;
use crate::session::{read_consistently, shape, OpenOptions, Session, SessionError, SessionFile};

/// The first user message shown by `sessions list`, in code points.
pub const FIRST_USER_PREVIEW_CHARS: usize = 200;
/// Past this many runs of scattered seqs to delete (a rewind in a long session with many
/// abandoned branches moves thousands of events off the default branch), the file's documents
/// are replaced instead: each run is a delete query that the commit evaluates over every segment
/// (a rewind to the middle of a generated 59 MB session made the next search take 10.1 s, of
/// which 7 s were these deletes; replacing the file's documents, 2.0 s).
const MAX_DELETE_RUNS: usize = 64;
/// How many bytes of session files are read ahead of the writer at most (a larger file is
/// read alone): what is held besides the writer's own buffers.
const READ_AHEAD_BYTES: u64 = 64 << 20;

/// Reports indexing progress (the CLI draws a bar; the library never prints).
pub trait Progress {
    /// `files` files holding `bytes` bytes are about to be (re)indexed.
    fn start(&mut self, files: usize, bytes: u64);
    /// One more file was indexed.
    fn advance(&mut self, bytes: u64);
    fn finish(&mut self);
    /// After a build's commit, its segments are being merged, `merges` merges one after the
    /// other; [`Progress::finish`] follows when they are done.
    fn merging(&mut self, _merges: usize) {}
}

/// What a refresh did.
#[derive(Debug, Clone, Default)]
pub struct RefreshStats {
    /// Files (re)indexed in this refresh.
    pub files_indexed: usize,
    pub bytes_indexed: u64,
    pub events_indexed: u64,
    pub unreadable: usize,
    /// Whether anything was committed.
    pub committed: bool,
}

/// How session files are read: opened through the session cache, and trusted to hold still
/// when last changed before `settled_before`.
#[derive(Clone, Copy)]
pub struct Reading<'a> {
    pub session_options: &'a OpenOptions,
    pub settled_before: SystemTime,
    /// Secrets are masked in every document before it is tokenized, and in the first user
    /// preview; the commit records which masking built it.
    pub masking: Masking,
    /// How many files are read at once (each on its own thread when more than one).
    pub threads: usize,
}

/// A file that needs work, and why.
enum Change {
    Index(Box<FileChange>),
    Drop(u64),
}

impl Change {
    /// The bytes read for it (its size; what an appended file adds is not known yet).
    fn bytes(&self) -> u64 {
        match self {
            Change::Index(file) => file.found.stat.size,
            Change::Drop(_) => 0,
        }
    }
}

/// A file to index under `file_id`, and its record in the catalog if it has one.
struct FileChange {
    found: Found,
    file_id: u64,
    record: Option<FileRecord>,
}

/// The files under `roots` whose state differs from the catalog's, and the catalog's files
/// that are gone.
pub fn plan(catalog: &Catalog, discovery: &Discovery, roots: &[Root]) -> Vec<ChangeRef> {
    let by_path: FxHashMap<&str, usize> = catalog
        .keys()
        .enumerate()
        .map(|(p, k)| (k.path(), p))
        .collect();
    let mut changes = Vec::new();
    let mut present = vec![false; catalog.len()];
    for (i, found) in discovery.files.iter().enumerate() {
        // `to_str` first: the lossy form's scan is slower, and nearly every path is UTF-8.
        let path = found
            .path
            .to_str()
            .map_or_else(|| found.path.to_string_lossy(), std::borrow::Cow::Borrowed);
        match by_path.get(path.as_ref()) {
            Some(&position) => {
                present[position] = true;
                let record = catalog.key(position);
                if record.stat() != found.stat || record.racy() {
                    changes.push(ChangeRef::Index {
                        found: i,
                        known: Some(position),
                    });
                }
            }
            None => changes.push(ChangeRef::Index {
                found: i,
                known: None,
            }),
        }
    }
    for (record, _) in catalog
        .keys()
        .zip(&present)
        .filter(|(_, present)| !**present)
    {
        let path = Path::new(record.path());
        let under_root = roots.iter().any(|root| path.starts_with(&root.path));
        if under_root || std::fs::metadata(path).is_err() {
            changes.push(ChangeRef::Drop(record.file_id()));
        }
    }
    changes
}

/// A change named by its position in the discovery (or the dropped file's id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeRef {
    /// The file at `found` in the discovery is (re)indexed; `known` is its position in the
    /// catalog the plan read, when that catalog has it.
    Index {
        found: usize,
        known: Option<usize>,
    },
    Drop(u64),
}

/// Applies `changes` to the index in one commit and returns the new catalog's stats.
pub fn apply(
    store: &Store,
    writer: &mut IndexWriter,
    mut catalog: Catalog,
    discovery: &Discovery,
    changes: &[ChangeRef],
    reading: Reading,
    mut progress: Option<&mut dyn Progress>,
) -> Result<RefreshStats, RecallError> {
    let fields = store.fields;
    let mut stats = RefreshStats::default();
    // The catalog's records by path while changes are applied (a rebuild touches every one).
    let mut records: FxHashMap<String, FileRecord> = catalog
        .take_records()
        .ok_or_else(|| RecallError::Corrupt("a catalog record no longer reads".into()))?
        .into_iter()
        .map(|r| (r.path.clone(), r))
        .collect();
    let changes: Vec<Change> = changes
        .iter()
        .map(|c| match c {
            ChangeRef::Index { found, .. } => {
                let found = discovery.files[*found].clone();
                let record = records.remove(found.path.to_string_lossy().as_ref());
                let file_id = record.as_ref().map_or_else(
                    || {
                        catalog.next_file_id += 1;
                        catalog.next_file_id - 1
                    },
                    |r| r.file_id,
                );
                Change::Index(Box::new(FileChange {
                    found,
                    file_id,
                    record,
                }))
            }
            ChangeRef::Drop(id) => Change::Drop(*id),
        })
        .collect();
    if let Some(p) = progress.as_deref_mut() {
        let files = changes
            .iter()
            .filter(|c| matches!(c, Change::Index(_)))
            .count();
        let bytes = changes.iter().map(Change::bytes).sum();
        p.start(files, bytes);
    }
    let project_keys = Mutex::new(FxHashMap::default());
    ahead::in_order(
        &changes,
        reading.threads,
        READ_AHEAD_BYTES,
        Change::bytes,
        |change| match change {
            Change::Index(file) => prepare_file(&fields, file, reading, &project_keys),
            Change::Drop(_) => None,
        },
        |change, prepared| {
            match change {
                Change::Drop(file_id) => {
                    writer.delete_term(Term::from_field_u64(fields.file, *file_id));
                    records.retain(|_, r| r.file_id != *file_id);
                }
                Change::Index(file) => {
                    if let Some(p) = progress.as_deref_mut() {
                        p.advance(file.found.stat.size);
                    }
                    match prepared {
                        Some(prepared) => {
                            let (record, events) = write_file(writer, &fields, file, prepared)?;
                            stats.files_indexed += 1;
                            stats.bytes_indexed += file.found.stat.size;
                            stats.events_indexed += events;
                            records.insert(record.path.clone(), record);
                        }
                        None => {
                            stats.unreadable += 1;
                            if file.record.is_some() {
                                writer.delete_term(Term::from_field_u64(fields.file, file.file_id));
                            }
                        }
                    }
                }
            }
            Ok::<(), RecallError>(())
        },
    )?;
    catalog.set_records(records.into_values().collect());
    catalog.dirs.clone_from(&discovery.dirs);
    if let Some(p) = progress {
        p.finish();
    }
    commit(store, writer, &catalog, reading.masking)?;
    stats.committed = true;
    Ok(stats)
}

/// Writes the catalog, then commits the index with a payload naming it.
fn commit(
    store: &Store,
    writer: &mut IndexWriter,
    catalog: &Catalog,
    masking: Masking,
) -> Result<(), RecallError> {
    // Synced with the commit's own files, before the commit that names it.
    let name = store.save_catalog(catalog).map_err(RecallError::corrupt)?;
    let payload = serde_json::to_string(&Payload {
        format: catalog::FORMAT,
        catalog: name.clone(),
        masking: masking.stamp(),
    })
    .map_err(RecallError::corrupt)?;
    let mut prepared = writer.prepare_commit().map_err(RecallError::corrupt)?;
    prepared.set_payload(&payload);
    prepared.commit().map_err(RecallError::corrupt)?;
    store.remove_other_catalogs(&name);
    Ok(())
}

/// Reads one file and builds its part of the refresh; `None` when it cannot be read (a FIFO
/// swapped in, a permission error).
fn prepare_file(
    fields: &Fields,
    file: &FileChange,
    reading: Reading,
    project_keys: &Mutex<FxHashMap<String, String>>,
) -> Option<Prepared> {
    // The identity before the read: a file replaced in between is recognized next time.
    let metadata = std::fs::metadata(&file.found.path).ok()?;
    // Everything is read and built first, again when the file was rewritten under the read;
    // only a consistent result reaches the index.
    let part = FilePart {
        fields,
        found: &file.found,
        file_id: file.file_id,
        record: file.record.as_ref(),
        stat: Stat::of(&metadata),
        reading,
    };
    read_consistently(&file.found.path, |session_file: &SessionFile| {
        Ok::<_, SessionError>(part.prepare(session_file, project_keys))
    })
    .ok()
}

/// Hands one file's prepared part to the writer; returns its new record and how many
/// documents it added.
fn write_file(
    writer: &IndexWriter,
    fields: &Fields,
    file: &FileChange,
    prepared: Prepared,
) -> Result<(FileRecord, u64), RecallError> {
    if prepared.fresh && file.record.is_some() {
        writer.delete_term(Term::from_field_u64(fields.file, file.file_id));
    }
    delete_seqs(writer, fields, file.file_id, &prepared.stale)?;
    let added = prepared.documents.len() as u64;
    for pending in prepared.documents {
        writer
            .add_document(pending.into_document(fields))
            .map_err(RecallError::corrupt)?;
    }
    for part in prepared.parts {
        writer.add_document(part).map_err(RecallError::corrupt)?;
    }
    Ok((prepared.record, added))
}

/// One file's part of a refresh, read and built but not yet applied.
struct Prepared {
    /// The file's documents are all replaced (a new, rewritten or shrunk file).
    fresh: bool,
    stale: Vec<u64>,
    documents: Vec<PendingDocument>,
    /// The part documents of the events in `documents` ([`Fields::part_stem`]).
    parts: Vec<TantivyDocument>,
    record: FileRecord,
}

/// A document whose text is not in it yet: the text is copied into the document only once the
/// session file is closed and just before the document goes to the writer, then dropped, so a
/// huge event is never held beside the mapped file. The document holds the text twice (it is
/// indexed as written and stemmed, [`Fields::stem`]).
struct PendingDocument {
    text: String,
    document: TantivyDocument,
}

impl PendingDocument {
    fn into_document(self, fields: &Fields) -> TantivyDocument {
        let PendingDocument { text, mut document } = self;
        document.add_text(fields.stem, &text);
        document.add_text(fields.text, text);
        document
    }
}

/// What a refresh needs to know to prepare one file's part.
#[derive(Clone, Copy)]
struct FilePart<'a> {
    fields: &'a Fields,
    found: &'a Found,
    file_id: u64,
    record: Option<&'a FileRecord>,
    stat: Stat,
    reading: Reading<'a>,
}

impl FilePart<'_> {
    fn prepare(
        &self,
        file: &SessionFile,
        project_keys: &Mutex<FxHashMap<String, String>>,
    ) -> Prepared {
        let session_options = self.reading.session_options;
        // The stamp of the version read (the caller's, taken before, covers a missing file).
        let part = FilePart {
            stat: file.metadata().map_or(self.stat, Stat::of),
            ..*self
        };
        // Entries are decoded from the session index only as they are reached: an append
        // reaches the appended ones and few others.
        let session = file.session_rewriting_lazily(session_options);
        let store = ProjectionStore::for_file_lazily(file, session_options);
        let prepared = part.prepare_session(&session, store.as_ref(), project_keys);
        if !session.index_damaged() {
            return prepared;
        }
        // A corrupt index gave stand-in entries. Decoding every entry up front never takes a
        // corrupt index: the file is parsed (and its index rewritten), and projected afresh.
        drop(prepared);
        let session = file.session(session_options);
        part.prepare_session(&session, None, project_keys)
    }

    fn prepare_session(
        &self,
        session: &Session,
        store: Option<&ProjectionStore>,
        project_keys: &Mutex<FxHashMap<String, String>>,
    ) -> Prepared {
        let FilePart {
            fields,
            found,
            file_id,
            record,
            stat,
            ..
        } = *self;
        let Reading {
            settled_before,
            masking,
            ..
        } = self.reading;
        let bytes = session.bytes();
        let settled = stat.modified_before(settled_before);
        let (indexed_len, entries) = indexable(session, settled);
        let (head_check, tail_check) = prefix_checks(&bytes[..indexed_len]);
        let grown_from = record.filter(|r| still_holds(r, &stat, bytes, indexed_len, entries));
        let session_id = session_id(session, &found.path);
        let changes = describe_changes(session, grown_from, entries, &session_id, store);
        let version = session.header.as_ref().and_then(|h| h.version);
        let created_ms = session
            .header
            .as_ref()
            .and_then(|h| h.timestamp.as_deref())
            .and_then(parse_ms)
            .unwrap_or(0);
        let documents: Vec<PendingDocument> = changes
            .added
            .iter()
            .map(|event| document(session, fields, file_id, event, created_ms, masking))
            .collect();
        let parts = part_documents(fields, file_id, &changes.added, &documents);
        let first_user = match (&changes.first_user, grown_from) {
            (Some(event), _) => Some(first_user_preview(session, event, masking)),
            (None, Some(r)) => r.info.first_user_preview.clone(),
            (None, None) => None,
        };
        let info = session_info(
            session,
            entries,
            &session_id,
            first_user,
            (bytes.len() as u64, stat.mtime_ns),
            project_keys,
            masking,
        );
        Prepared {
            fresh: changes.all_stale,
            stale: changes.stale,
            documents,
            parts,
            record: FileRecord {
                file_id,
                path: found.path.to_string_lossy().into_owned(),
                // The identity as read: a file that changed since is looked at again next time.
                stat,
                indexed_len: indexed_len as u64,
                indexed_entries: entries,
                head_check,
                tail_check,
                prefix_crc: prefix_crc(bytes, indexed_len, grown_from),
                racy: !stat.changed_before(settled_before),
                version,
                events: changes.total,
                info,
                unknown_types: session.unknown_types.clone(),
            },
        }
    }
}

/// How much of the session is indexed, in bytes and entries: its complete lines, and a last
/// line without its newline when it parsed as an entry and the file has `settled` (Pi is not
/// in the middle of writing it), as `history` reads it.
fn indexable(session: &Session, settled: bool) -> (usize, usize) {
    let bytes = session.bytes();
    let complete = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    let entries = session.entries.partition_point(|span| span.end < complete);
    let unterminated_entry = session
        .entries
        .range(entries..session.entries.len())
        .any(|entry| entry.span.end == bytes.len());
    if settled && complete < bytes.len() && unterminated_entry {
        (bytes.len(), entries + 1)
    } else {
        (complete, entries)
    }
}

/// Whether what `record` indexed is still the start of the file, so only what follows needs
/// indexing. The file must have grown (the same size with another stamp is a rewrite in place),
/// or, racily clean, still hold the same bytes; an indexed last line without its newline must
/// not have been extended.
fn still_holds(
    record: &FileRecord,
    stat: &Stat,
    bytes: &[u8],
    indexed_len: usize,
    entries: usize,
) -> bool {
    let old_len = record.indexed_len as usize;
    let same_file = record.stat.dev == stat.dev && record.stat.ino == stat.ino;
    if !same_file || old_len > indexed_len || record.indexed_entries > entries {
        return false;
    }
    let prefix = &bytes[..old_len];
    let unchanged = if record.racy && record.stat == *stat {
        crc32fast::hash(prefix) == record.prefix_crc
    } else {
        stat.size > record.stat.size
    };
    let line_kept = old_len == 0
        || prefix[old_len - 1] == b'\n'
        || old_len == bytes.len()
        || bytes[old_len] == b'\n';
    unchanged && line_kept && prefix_checks(prefix) == (record.head_check, record.tail_check)
}

/// The CRC-32 of `bytes[..len]`: of what follows the prefix `grown_from` indexed, combined
/// with that prefix's, when the file grew.
fn prefix_crc(bytes: &[u8], len: usize, grown_from: Option<&FileRecord>) -> u32 {
    let Some(record) = grown_from else {
        return crc32fast::hash(&bytes[..len]);
    };
    let old_len = record.indexed_len as usize;
    let mut whole = crc32fast::Hasher::new_with_initial_len(record.prefix_crc, old_len as u64);
    let mut appended = crc32fast::Hasher::new();
    appended.update(&bytes[old_len..len]);
    whole.combine(&appended);
    whole.finalize()
}

/// The documents a refresh of one file deletes and adds.
struct Changes {
    /// All the file's documents go (a new or rewritten file, or too many scattered changes).
    all_stale: bool,
    /// Indexed seqs whose documents go.
    stale: Vec<u64>,
    /// Events to index.
    added: Vec<EventDesc>,
    /// Events of the file in the index afterwards.
    total: u64,
    /// The default branch's first user event, when this refresh knows it (else the previous
    /// record's preview stands).
    first_user: Option<EventDesc>,
}

/// What to delete and add for a file: everything (a new or rewritten file), the cheap delta of
/// an append that only extended the default branch, or the difference between the file's
/// events as indexed and as they are now. An event that left the default branch, or is gone,
/// makes it everything: the file's part documents (schema.rs) hold its words on the branch.
fn describe_changes(
    session: &Session,
    grown_from: Option<&FileRecord>,
    entries: usize,
    session_id: &str,
    store: Option<&ProjectionStore>,
) -> Changes {
    let Some(record) = grown_from else {
        return Changes::replacing(events::describe(session, entries, session_id, store));
    };
    if record.indexed_entries == entries {
        return Changes {
            all_stale: false,
            stale: Vec::new(),
            added: Vec::new(),
            total: record.events,
            first_user: None,
        };
    }
    if let Some(append) =
        events::describe_append(session, record.indexed_entries, entries, session_id, store)
    {
        let first = record
            .info
            .first_user_preview
            .is_none()
            .then(|| first_user(&append.added))
            .flatten();
        let mut stale: Vec<u64> = append.changed.iter().map(|e| e.seq).collect();
        stale.sort_unstable();
        let total = record.events + append.added.len() as u64;
        let mut added = append.changed;
        added.extend(append.added);
        return Changes {
            all_stale: false,
            stale,
            added,
            total,
            first_user: first,
        };
    }
    let new = events::describe(session, entries, session_id, store);
    let old = events::describe(session, record.indexed_entries, session_id, None);
    let (stale, added) = diff(&old, &new);
    if seq_runs(&stale).len() > MAX_DELETE_RUNS || parts_would_hold_too_much(&stale, &added) {
        return Changes::replacing(new);
    }
    Changes {
        all_stale: false,
        stale,
        added: added.into_iter().cloned().collect(),
        total: new.len() as u64,
        first_user: first_user(&new),
    }
}

impl Changes {
    /// All the file's documents replaced by `events`.
    fn replacing(events: Vec<EventDesc>) -> Changes {
        Changes {
            all_stale: true,
            stale: Vec::new(),
            total: events.len() as u64,
            first_user: first_user(&events),
            added: events,
        }
    }
}

/// The default branch's first user event.
fn first_user(events: &[EventDesc]) -> Option<EventDesc> {
    events
        .iter()
        .find(|e| e.on_branch && e.role == Role::User)
        .cloned()
}

fn first_user_preview(session: &Session, event: &EventDesc, masking: Masking) -> String {
    let text = masking.apply_owned(event_document(session, event.entry, &event.source));
    crate::text::char_slice(&text, 0, FIRST_USER_PREVIEW_CHARS).to_string()
}

/// The events to delete (old seqs whose description changed or vanished) and to add.
fn diff<'a>(old: &[EventDesc], new: &'a [EventDesc]) -> (Vec<u64>, Vec<&'a EventDesc>) {
    let old_by_seq: FxHashMap<u64, &EventDesc> = old.iter().map(|e| (e.seq, e)).collect();
    let new_by_seq: FxHashMap<u64, &EventDesc> = new.iter().map(|e| (e.seq, e)).collect();
    let stale = old
        .iter()
        .filter(|e| new_by_seq.get(&e.seq).is_none_or(|n| *n != *e))
        .map(|e| e.seq)
        .collect();
    let added = new
        .iter()
        .filter(|e| old_by_seq.get(&e.seq).is_none_or(|o| *o != *e))
        .collect();
    (stale, added)
}

/// Whether replacing the `stale` events by the `added` ones would leave the file's part
/// documents holding words that are no longer where they say: an event gone, or a changed event
/// off the default branch (a rewind left it; its words stay in the part of the branch it was
/// on). The file is then indexed afresh.
fn parts_would_hold_too_much(stale: &[u64], added: &[&EventDesc]) -> bool {
    let readded: FxHashMap<u64, bool> = added.iter().map(|e| (e.seq, e.on_branch)).collect();
    stale
        .iter()
        .any(|seq| !readded.get(seq).copied().unwrap_or(false))
}

/// Deletes the file's documents at `seqs` (sorted), one range query per run of consecutive
/// old seqs.
/// The runs of consecutive seqs in sorted `seqs`, first and last of each.
fn seq_runs(seqs: &[u64]) -> Vec<(u64, u64)> {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &seq in seqs {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == seq => *end = seq,
            _ => runs.push((seq, seq)),
        }
    }
    runs
}

fn delete_seqs(
    writer: &IndexWriter,
    fields: &Fields,
    file_id: u64,
    seqs: &[u64],
) -> Result<(), RecallError> {
    for (start, end) in seq_runs(seqs) {
        let file: Box<dyn Query> = Box::new(TermQuery::new(
            Term::from_field_u64(fields.file, file_id),
            IndexRecordOption::Basic,
        ));
        let range: Box<dyn Query> = Box::new(RangeQuery::new(
            std::ops::Bound::Included(Term::from_field_u64(fields.seq, start)),
            std::ops::Bound::Included(Term::from_field_u64(fields.seq, end)),
        ));
        let query = BooleanQuery::new(vec![(Occur::Must, file), (Occur::Must, range)]);
        writer
            .delete_query(Box::new(query))
            .map_err(RecallError::corrupt)?;
    }
    Ok(())
}

fn document(
    session: &Session,
    fields: &Fields,
    file_id: u64,
    event: &EventDesc,
    fallback_ms: i64,
    masking: Masking,
) -> PendingDocument {
    let entry = &session.entries[event.entry];
    let text = masking.apply_owned(event_document(session, event.entry, &event.source));
    let (kind, call_index) = SourceKind::of(&event.source);
    let ts = session
        .timestamp(entry)
        .as_deref()
        .and_then(parse_ms)
        .unwrap_or(fallback_ms);
    let mut doc = TantivyDocument::default();
    doc.add_u64(fields.file, file_id);
    doc.add_u64(fields.seq, event.seq);
    doc.add_i64(fields.ts, ts);
    doc.add_u64(
        fields.flags,
        Flags {
            role: event.role,
            on_branch: event.on_branch,
            kind,
            call_index,
        }
        .encode(),
    );
    doc.add_u64(fields.entry_start, entry.span.start as u64);
    doc.add_u64(fields.entry_len, (entry.span.end - entry.span.start) as u64);
    let result = event.result_entry().map(|r| session.entries[r].span);
    doc.add_u64(
        fields.result_start,
        result.map_or(0, |span| span.start as u64 + 1),
    );
    doc.add_u64(
        fields.result_len,
        result.map_or(0, |span| (span.end - span.start) as u64),
    );
    doc.add_u64(fields.line, entry.line as u64);
    let root = crate::history::root_window_id(session.id().unwrap_or_default());
    if event.window_id != root {
        doc.add_text(fields.window, &event.window_id);
    }
    if let Some(leaf) = event.leaf {
        doc.add_text(fields.leaf, session.entry_id(&session.entries[leaf].id));
    }
    PendingDocument {
        text,
        document: doc,
    }
}

/// The part documents of a file's newly indexed `events`: the stems their texts hold, with
/// their counts, in documents for the events on the default branch and others for the rest
/// (more than one of a kind when their events hold more than [`PART_MAX_STEMS`] stems).
fn part_documents(
    fields: &Fields,
    file_id: u64,
    events: &[EventDesc],
    documents: &[PendingDocument],
) -> Vec<TantivyDocument> {
    let mut on_branch = PartStems::new(fields, file_id, PART_ON_BRANCH);
    let mut off_branch = PartStems::new(fields, file_id, PART_OFF_BRANCH);
    PART_ANALYZER.with_borrow_mut(|analyzer| {
        for (event, document) in events.iter().zip(documents) {
            let stems = if event.on_branch {
                &mut on_branch
            } else {
                &mut off_branch
            };
            stems.add(analyzer, &document.text);
        }
    });
    let mut parts = on_branch.finish();
    parts.extend(off_branch.finish());
    parts
}

thread_local! {
    /// The stemming analyzer of one reading thread (it remembers the stems it has made).
    static PART_ANALYZER: std::cell::RefCell<tantivy::tokenizer::TextAnalyzer> =
        std::cell::RefCell::new(super::schema::stem_analyzer());
}

/// The part documents of one kind being made: the stems counted so far, and the parts done.
struct PartStems<'a> {
    fields: &'a Fields,
    file_id: u64,
    kind: u64,
    counts: FxHashMap<String, u32>,
    done: Vec<TantivyDocument>,
}

impl<'a> PartStems<'a> {
    fn new(fields: &'a Fields, file_id: u64, kind: u64) -> PartStems<'a> {
        PartStems {
            fields,
            file_id,
            kind,
            counts: FxHashMap::default(),
            done: Vec::new(),
        }
    }

    fn add(&mut self, analyzer: &mut tantivy::tokenizer::TextAnalyzer, text: &str) {
        let mut stream = analyzer.token_stream(text);
        while let Some(token) = stream.next() {
            match self.counts.get_mut(token.text.as_str()) {
                Some(count) => *count = count.saturating_add(1),
                None => {
                    self.counts.insert(token.text.clone(), 1);
                    if self.counts.len() >= PART_MAX_STEMS {
                        self.close_part();
                    }
                }
            }
        }
    }

    /// Makes a part document of the stems counted so far.
    fn close_part(&mut self) {
        let mut text = String::new();
        for (stem, count) in self.counts.drain() {
            for _ in 0..count.min(PART_MAX_COUNT) {
                text.push_str(&stem);
                text.push(' ');
            }
        }
        let mut document = TantivyDocument::default();
        document.add_u64(self.fields.file, self.file_id);
        document.add_u64(self.fields.part, self.kind);
        let field = if self.kind == PART_ON_BRANCH {
            self.fields.part_stem
        } else {
            self.fields.part_stem_off
        };
        document.add_text(field, text);
        self.done.push(document);
    }

    fn finish(mut self) -> Vec<TantivyDocument> {
        if !self.counts.is_empty() {
            self.close_part();
        }
        self.done
    }
}

/// The session id: the file's own, else the one its name carries as its harness names files.
pub fn session_id(session: &Session, path: &Path) -> String {
    session
        .id()
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .or_else(|| session.harness.id_from_path(path))
        .unwrap_or_default()
}

/// What the catalog keeps of a session. Its name is masked like its first prompt: every door
/// that shows it (`sessions list`/`search`, the tools, the boot, the hint) reads it from here.
/// A session whose agent writes no times (Cursor) was last updated when its file was
/// (`file`: its length and modification time in nanoseconds).
fn session_info(
    session: &Session,
    entries: usize,
    session_id: &str,
    first_user_preview: Option<String>,
    (bytes, mtime_ns): (u64, i64),
    project_keys: &Mutex<FxHashMap<String, String>>,
    masking: Masking,
) -> SessionInfo {
    let header = session.header.as_ref();
    let cwd = header.and_then(|h| h.cwd.clone());
    let project_key = cwd.as_ref().map(|cwd| project_key(cwd, project_keys));
    let updated_at = if session.harness.writes_times() {
        session
            .entries
            .range(0..entries)
            .rev()
            .find_map(|e| session.timestamp(e))
    } else {
        file_time(mtime_ns)
    };
    SessionInfo {
        session_id: session_id.to_string(),
        harness: session.harness,
        parent_session_id: session.parent_session_id().map(str::to_string),
        cwd,
        project_key,
        name: session_name(session, entries).map(|name| masking.apply_owned(name)),
        created_at: header.and_then(|h| h.timestamp.clone()),
        updated_ms: updated_at.as_deref().and_then(parse_ms).unwrap_or(0),
        updated_at,
        entries,
        bytes,
        first_user_preview,
    }
}

/// The project key of `cwd`, looked up once per refresh (it reads the checkout's git files).
fn project_key(cwd: &str, project_keys: &Mutex<FxHashMap<String, String>>) -> String {
    let known = |keys: &Mutex<FxHashMap<String, String>>| {
        let keys = keys.lock().unwrap_or_else(|p| p.into_inner());
        keys.get(cwd).cloned()
    };
    if let Some(key) = known(project_keys) {
        return key;
    }
    let key = crate::project::project_key_of(Path::new(cwd));
    let mut keys = project_keys.lock().unwrap_or_else(|p| p.into_inner());
    keys.entry(cwd.to_string()).or_insert(key).clone()
}

/// The name of the last `session_info` entry (`/name`), if it has one.
fn session_name(session: &Session, entries: usize) -> Option<String> {
    pi_session_name(session, entries).or_else(|| session.name().map(str::to_string))
}

/// The name of a Pi session's last `session_info` entry.
fn pi_session_name(session: &Session, entries: usize) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Info {
        #[serde(rename = "type")]
        kind: Option<String>,
        name: Option<serde_json::Value>,
    }
    let bytes = session.bytes();
    // Read from the index's columns: no entry is decoded.
    (0..entries.min(session.entries.len()))
        .rev()
        .find_map(|i| {
            if session.entries.shape(i)? != shape::OTHER {
                return None;
            }
            let span = session.entries.span(i)?;
            let line = bytes.get(span.start..span.end)?;
            memchr::memmem::find(line, b"session_info")?;
            let info: Info = serde_json::from_slice(line).ok()?;
            if info.kind.as_deref() != Some("session_info") {
                return None;
            }
            Some(match info.name {
                Some(serde_json::Value::String(name)) if !name.trim().is_empty() => Some(name),
                _ => None,
            })
        })?
}

/// Unix milliseconds of an RFC 3339 timestamp.
/// A modification time in nanoseconds as RFC 3339 (milliseconds, UTC), as the agents write
/// times.
fn file_time(mtime_ns: i64) -> Option<String> {
    let time = jiff::Timestamp::from_nanosecond(i128::from(mtime_ns)).ok()?;
    Some(format!("{time:.3}"))
}

pub fn parse_ms(text: &str) -> Option<i64> {
    text.parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Harness;

    fn record_of(bytes: &[u8], stat: Stat, racy: bool) -> FileRecord {
        let (head_check, tail_check) = prefix_checks(bytes);
        FileRecord {
            file_id: 1,
            path: "/s.jsonl".into(),
            stat,
            indexed_len: bytes.len() as u64,
            indexed_entries: 1,
            head_check,
            tail_check,
            prefix_crc: crc32fast::hash(bytes),
            racy,
            version: Some(3),
            events: 1,
            info: SessionInfo {
                session_id: "s".into(),
                harness: Harness::default(),
                parent_session_id: None,
                cwd: None,
                project_key: None,
                name: None,
                created_at: None,
                updated_at: None,
                updated_ms: 0,
                entries: 1,
                bytes: bytes.len() as u64,
                first_user_preview: None,
            },
            unknown_types: Default::default(),
        }
    }

    fn stat(size: usize, ctime_ns: i64) -> Stat {
        Stat {
            dev: 1,
            ino: 2,
            size: size as u64,
            mtime_ns: 5,
            ctime_ns,
        }
    }

    #[test]
    fn a_grown_files_crc_extends_the_crc_of_its_indexed_prefix() {
        let bytes = b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n";
        let record = record_of(&bytes[..8], stat(8, 1), false);
        assert_eq!(
            prefix_crc(bytes, bytes.len(), Some(&record)),
            crc32fast::hash(bytes)
        );
        assert_eq!(prefix_crc(bytes, 16, None), crc32fast::hash(&bytes[..16]));
    }

    /// A rewrite in place of the same size is never taken for an append; a racily clean
    /// record with an unchanged stamp is checked by content, beyond the hashed ends.
    #[test]
    fn only_an_append_or_the_same_bytes_keep_what_was_indexed() {
        let old = [b"{}\n".as_slice(), &[b'a'; 9000], b"\n"].concat();
        let mut middle = old.clone();
        middle[4500] = b'b';
        let n = old.len();
        let settled = record_of(&old, stat(n, 10), false);
        assert!(!still_holds(&settled, &stat(n, 11), &middle, n, 1));
        assert!(!still_holds(&settled, &stat(n, 11), &old, n, 1));
        let grown = [old.as_slice(), b"{}\n"].concat();
        assert!(still_holds(&settled, &stat(n + 3, 11), &grown, n + 3, 2));

        let racy = record_of(&old, stat(n, 10), true);
        assert!(still_holds(&racy, &stat(n, 10), &old, n, 1));
        assert!(!still_holds(&racy, &stat(n, 10), &middle, n, 1));
    }

    /// An indexed last line without its newline holds only while nothing but a newline follows.
    #[test]
    fn an_indexed_unterminated_line_must_be_followed_by_its_newline() {
        let old = b"{}\n{\"a\":1}".to_vec();
        let record = record_of(&old, stat(old.len(), 10), false);
        let ended = b"{}\n{\"a\":1}\n{}\n".to_vec();
        assert!(still_holds(
            &record,
            &stat(ended.len(), 11),
            &ended,
            ended.len(),
            3
        ));
        let extended = b"{}\n{\"a\":1} \n".to_vec();
        assert!(!still_holds(
            &record,
            &stat(extended.len(), 11),
            &extended,
            extended.len(),
            2
        ));
    }
}
