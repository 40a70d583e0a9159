//! The projection of a branch, kept in the session cache beside the session index and extended
//! with what Pi appended, so that a call on a large session does not project its whole branch
//! again (seq allocation over every entry, the id map, the walk, the pairing).
//!
//! A `.proj` file holds the projection of the branch ending at one leaf over the entries of the
//! file's complete lines up to `covered_len`, with the same checks as the index (device, inode,
//! SHA-1 of the first and last 4 KiB of that prefix). A call whose file still starts with those
//! bytes takes it and, when it asks for the same branch, extends it with the appended entries:
//!
//! - the appended entries get the seqs after the stored ones (seqs run in file order);
//! - the new leaf's parent chain through appended entries must reach the stored leaf (or the
//!   stored branch is empty and the chain ends among appended entries); any other chain (the
//!   leaf moved to another branch) is projected afresh;
//! - an appended entry that repeats the id of a stored entry, or that has the id the stored
//!   branch's root names as its (dangling) parent, changes how stored parents resolve: projected
//!   afresh too;
//! - calls of the stored branch still waiting for their result claim appended results first, in
//!   seq order, exactly as a projection of the whole branch pairs them; appended reset markers
//!   open windows after the stored ones.
//!
//! Anything unexpected (another format, a rewritten file, an index out of range, an event whose
//! entry does not have its kind) falls back to a fresh projection: the store is an accelerator,
//! never a source of truth. A fresh projection is stored when it covers exactly the complete
//! lines and the file did not change while it was read; an extended one once 256 KiB were
//! appended since the stored one.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::project::{
    allocate_seqs_from, seq_count, session_id_of, Event, History, Source, WindowInfo,
};
use super::Role;
use crate::cachefile::{self, Durability, Kind};
use crate::history::root_window_id;
use crate::session::{shape, Atom, OpenOptions, Session, SessionFile, Span};

/// A stored projection file: its magic, and its format, bumped whenever the layout or the
/// meaning of a stored projection changes.
const PROJECTION: Kind = Kind::new(b"PICTXPRJ", 5);
/// An extended projection is stored again once this many bytes were appended since.
const STORE_AFTER_BYTES: usize = 256 * 1024;
/// The same for a reader that reads the session once and moves on (a recall refresh).
const LAZY_STORE_AFTER_BYTES: usize = 4 << 20;
/// Bytes per stored event: seq, entry, window, result, call index (u32 each), role, kind, pad
/// (u8 each), the content or summary span as an offset from the start of the entry's line and
/// a length, and the tool name as an atom (start and length) (u32 each), so that an event is
/// loaded, and its tool counted, without decoding its entry.
const EVENT_BYTES: usize = 40;
/// `result` of a call without one.
const NO_RESULT: u32 = u32::MAX;
/// The span offset of an event without one.
const NO_SPAN: u32 = u32::MAX;

/// Where the projection of one session file is stored, and what it must match.
pub struct ProjectionStore<'f> {
    file: &'f SessionFile,
    path: PathBuf,
    key: String,
    dev: u64,
    ino: u64,
    /// An extended projection is stored again once this many bytes were appended since.
    store_after: usize,
}

/// The small part of a stored projection; the large arrays follow it as raw little-endian
/// values.
#[derive(Serialize, Deserialize)]
struct Meta {
    path: String,
    dev: u64,
    ino: u64,
    covered_len: u64,
    head_check: [u8; 20],
    tail_check: [u8; 20],
    entries: u64,
    leaf: Option<u64>,
    highest_seq: u64,
    windows: Vec<StoredWindow>,
    /// Array lengths, in elements.
    id_hashes: u64,
    branch: u64,
    branch_seqs: u64,
    events: u64,
    aliases: u64,
}

#[derive(Serialize, Deserialize)]
struct StoredWindow {
    window_id: String,
    created_at: Option<String>,
    first_seq: Option<u64>,
    last_seq: Option<u64>,
    item_count: u64,
}

/// Which stored events a load keeps (every one is checked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keep {
    All,
    /// The calls without a result, which an appended result may complete.
    OpenCalls,
}

/// A stored projection, checked against the session it is loaded for.
pub(super) struct Stored {
    covered_len: usize,
    entries: usize,
    leaf: Option<usize>,
    highest_seq: u64,
    windows: Vec<WindowInfo>,
    /// FNV-1a hashes of the ids of the covered entries, sorted; empty when the file holds
    /// nothing past them, which needs no id checked (and a save needs something appended).
    id_hashes: Vec<u64>,
    branch: Vec<usize>,
    branch_seqs: Vec<u64>,
    events: Vec<Event>,
    aliases: Vec<(u64, u64)>,
}

impl<'f> ProjectionStore<'f> {
    /// The store of `file`'s projection, when the options keep an index for it.
    pub fn for_file(file: &'f SessionFile, options: &OpenOptions) -> Option<ProjectionStore<'f>> {
        let dir = options.cache_dir.as_deref()?;
        if (file.bytes().len() as u64) < options.cache_min_bytes {
            return None;
        }
        let (dev, ino) = file.identity()?;
        let (path, key) = cachefile::for_path(dir, file.path(), "proj");
        Some(ProjectionStore {
            file,
            path,
            key,
            dev,
            ino,
            store_after: STORE_AFTER_BYTES,
        })
    }

    /// [`for_file`](Self::for_file) for a reader that reads the file once and moves on (a
    /// recall refresh): an extended projection is stored again only after 4 MiB were
    /// appended, as the session index is ([`SessionFile::session_rewriting_lazily`]).
    pub fn for_file_lazily(
        file: &'f SessionFile,
        options: &OpenOptions,
    ) -> Option<ProjectionStore<'f>> {
        Self::for_file(file, options).map(|store| ProjectionStore {
            store_after: LAZY_STORE_AFTER_BYTES,
            ..store
        })
    }

    /// The projection of the branch ending at `leaf` over the first `entries` entries of
    /// `session` (which was read from this store's file), keeping of the stored events those
    /// `keep` says unless the extended projection is stored again (then all).
    pub(super) fn project<'s>(
        &self,
        session: &'s Session,
        entries: usize,
        leaf: Option<usize>,
        fallback_session_id: Option<&str>,
        keep: Keep,
    ) -> History<'s> {
        let entries = entries.min(session.entries.len());
        let complete = complete_len(self.file.bytes());
        let complete_entries = session.entries.partition_point(|span| span.end < complete);
        let saves = |covered_len: usize| {
            complete - covered_len >= self.store_after && entries == complete_entries
        };
        // A projection stored again needs every event.
        let keep_for = |covered_len| if saves(covered_len) { Keep::All } else { keep };
        if let Some(stored) = self.load(session, keep_for) {
            let save = saves(stored.covered_len);
            // The stored entries' id hashes, kept for the new store: computing them again
            // would decode every entry.
            let known_ids = save.then(|| KnownIds {
                entries: stored.entries,
                hashes: stored.id_hashes.clone(),
            });
            if let Some(history) = extend(session, stored, entries, leaf, fallback_session_id) {
                if let Some(known_ids) = known_ids {
                    self.save(&history, complete, Some(known_ids));
                }
                return history;
            }
        }
        let history = History::project_prefix(session, entries, leaf, fallback_session_id);
        if entries == complete_entries {
            self.save(&history, complete, None);
        }
        history
    }

    /// The stored projection, when it is one of this file as it is now; `keep` says, from the
    /// length it covers, which of its events are kept.
    fn load(&self, session: &Session, keep: impl FnOnce(usize) -> Keep) -> Option<Stored> {
        let bytes = self.file.bytes();
        let max = (bytes.len() as u64).saturating_mul(16) + (64 << 10);
        let payload = cachefile::map(&self.path, PROJECTION, max)?;
        let (meta, arrays) = split_payload(payload.bytes())?;
        let covered_len = usize::try_from(meta.covered_len).ok()?;
        let valid = meta.path == self.key
            && (meta.dev, meta.ino) == (self.dev, self.ino)
            && covered_len <= bytes.len()
            && (covered_len == 0 || bytes[covered_len - 1] == b'\n')
            && cachefile::prefix_checks(&bytes[..covered_len])
                == (meta.head_check, meta.tail_check);
        if !valid {
            return None;
        }
        let entries = session
            .entries
            .partition_point(|span| span.end < covered_len);
        if meta.entries != entries as u64 {
            return None;
        }
        let grown = bytes.len() > covered_len;
        // A map read past the end of a file truncated under it gave zeros: not used.
        let keep = keep(covered_len);
        decode(session, &meta, arrays, covered_len, entries, grown, keep)
            .filter(|_| !payload.damaged())
    }

    /// Stores `history` as the projection of the bytes up to `covered_len` (complete lines),
    /// when the file did not change while it was read. Best effort: a store that cannot be
    /// written only costs speed.
    fn save(&self, history: &History, covered_len: usize, known_ids: Option<KnownIds>) {
        let Some(data) = encode(self, history, covered_len, known_ids) else {
            return;
        };
        if self.file.is_unchanged() {
            let _ = cachefile::save(&self.path, &data, Durability::Rebuildable);
        }
    }
}

/// The length of the complete lines of `bytes`.
fn complete_len(bytes: &[u8]) -> usize {
    memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1)
}

/// The stored projection extended to the first `entries` entries and the branch ending at
/// `leaf`; `None` when it is not that branch grown (then the caller projects afresh).
fn extend<'s>(
    session: &'s Session,
    stored: Stored,
    entries: usize,
    leaf: Option<usize>,
    fallback_session_id: Option<&str>,
) -> Option<History<'s>> {
    let old = stored.entries;
    if entries < old {
        return None;
    }
    // As in a fresh projection, a leaf outside the projected entries is an empty branch.
    let leaf = leaf.filter(|&l| l < entries);
    let appended = session.entries.range(old..entries);
    let appended_ids = session.ids_in(old..entries);
    if appended_ids
        .keys()
        .any(|id| id_hash_in(&stored.id_hashes, id))
    {
        return None;
    }
    // The stored branch's root may name a parent that only now exists.
    if let Some(&root) = stored.branch.first().filter(|_| !appended_ids.is_empty()) {
        let parent = session.entries[root].parent_id.as_ref();
        if parent.is_some_and(|p| appended_ids.contains_key(session.entry_id(p).as_ref())) {
            return None;
        }
    }
    let new_path = appended_path(session, &stored, old, leaf, &appended_ids)?;
    let session_id = session_id_of(session, fallback_session_id);
    let mut windows = stored.windows;
    windows[0].window_id = root_window_id(&session_id);
    let seq_starts = allocate_seqs_from(appended.clone(), stored.highest_seq + 1);
    let highest_seq = stored.highest_seq + appended.map(seq_count).sum::<u64>();
    let mut branch = stored.branch;
    branch.extend_from_slice(&new_path);
    let mut history = History {
        session,
        session_id,
        highest_seq,
        branch_seqs: stored.branch_seqs,
        windows,
        events: stored.events,
        result_aliases: stored.aliases,
        entries,
        branch: Vec::new(),
        stored_entries: Some(old),
        masking: crate::redact::Masking::Off,
    };
    if !new_path.is_empty() {
        let open_calls: Vec<usize> = history
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_open_call())
            .map(|(i, _)| i)
            .collect();
        let from = history.events.len();
        let items = history.raw_items(&new_path, &seq_starts, old);
        history.pair(items, &open_calls);
        history.count_windows(from);
    }
    history.branch = branch;
    Some(history)
}

/// The appended part of the branch ending at `leaf` (root to leaf), when that branch is the
/// stored one grown; `None` otherwise.
fn appended_path(
    session: &Session,
    stored: &Stored,
    old: usize,
    leaf: Option<usize>,
    appended_ids: &rustc_hash::FxHashMap<std::borrow::Cow<'_, str>, usize>,
) -> Option<Vec<usize>> {
    let Some(leaf) = leaf else {
        return stored.leaf.is_none().then(Vec::new);
    };
    if leaf < old {
        return (stored.leaf == Some(leaf)).then(Vec::new);
    }
    let mut path = vec![leaf];
    let mut seen = vec![false; session.entries.len() - old];
    seen[leaf - old] = true;
    let mut current = leaf;
    let reached = loop {
        // The parent as a fresh projection finds it: an appended entry, a stored one by its
        // id (hashed), or for an entry whose parent must come before it and is nowhere, the
        // entry before it.
        let mut stored_id = None;
        let parent = session.parent_of(current, |id| {
            appended_ids.get(id).copied().or_else(|| {
                let stored = id_hash_in(&stored.id_hashes, id);
                stored_id = stored.then(|| id.to_string());
                // Stands for the stored entry of that id, which comes before every appended one.
                stored.then_some(0)
            })
        });
        match (parent, stored_id) {
            // A cycle ends the walk, as in a fresh projection.
            (Some(p), _) if p >= old && std::mem::replace(&mut seen[p - old], true) => {
                break Reached::Nothing
            }
            (Some(p), _) if p >= old => {
                path.push(p);
                current = p;
            }
            (Some(_), Some(id)) => break Reached::Id(id),
            (Some(p), None) => break Reached::Index(p),
            // A dangling parent ends the walk.
            (None, _) => break Reached::Nothing,
        }
    };
    let grows_stored = match (reached, stored.leaf) {
        (Reached::Nothing, None) => true,
        // The walk reached a stored entry: it must be the stored leaf, the last entry with
        // that id among the stored ones (no appended entry repeats a stored id).
        (Reached::Id(id), Some(old_leaf)) => session.entry_id(&session.entries[old_leaf].id) == id,
        (Reached::Index(p), Some(old_leaf)) => p == old_leaf,
        _ => false,
    };
    path.reverse();
    grows_stored.then_some(path)
}

/// Where the walk through appended entries toward the root ended.
enum Reached {
    /// At a root or a dangling parent.
    Nothing,
    /// At the stored entry with this id.
    Id(String),
    /// At the stored entry just before an entry whose parent is nowhere before it.
    Index(usize),
}

/// FNV-1a, 64 bits: a hash that stays the same across builds and runs.
fn id_hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Whether a stored entry may have this id (a hash collision only costs a fresh projection).
fn id_hash_in(hashes: &[u64], id: &str) -> bool {
    hashes.binary_search(&id_hash(id)).is_ok()
}

/// The id hashes of a stored projection's first `entries` entries, sorted and deduplicated.
struct KnownIds {
    entries: usize,
    hashes: Vec<u64>,
}

fn encode(
    store: &ProjectionStore,
    history: &History,
    covered_len: usize,
    known_ids: Option<KnownIds>,
) -> Option<Vec<u8>> {
    let session = history.session;
    let known_ids = known_ids.filter(|k| k.entries <= history.entries);
    let (from, mut id_hashes) = known_ids.map_or((0, Vec::new()), |k| (k.entries, k.hashes));
    let entries = session.entries.range(from..history.entries);
    let (head_check, tail_check) = cachefile::prefix_checks(&store.file.bytes()[..covered_len]);
    id_hashes.extend(entries.map(|e| id_hash(&session.entry_id(&e.id))));
    id_hashes.sort_unstable();
    id_hashes.dedup();
    let leaf = history.branch.last().map(|&l| l as u64);
    let meta = Meta {
        path: store.key.clone(),
        dev: store.dev,
        ino: store.ino,
        covered_len: covered_len as u64,
        head_check,
        tail_check,
        entries: history.entries as u64,
        leaf,
        highest_seq: history.highest_seq,
        windows: history
            .windows
            .iter()
            .map(|w| StoredWindow {
                window_id: w.window_id.clone(),
                created_at: w.created_at.clone(),
                first_seq: w.first_seq,
                last_seq: w.last_seq,
                item_count: w.item_count as u64,
            })
            .collect(),
        id_hashes: id_hashes.len() as u64,
        branch: history.branch.len() as u64,
        branch_seqs: history.branch_seqs.len() as u64,
        events: history.events.len() as u64,
        aliases: history.result_aliases.len() as u64,
    };
    let meta = postcard::to_stdvec(&meta).ok()?;
    // Built in the file's frame: a large projection is not copied again to be framed.
    let mut data = PROJECTION.start(
        8 + meta.len()
            + 8 * id_hashes.len()
            + 4 * (history.branch.len() + history.branch_seqs.len())
            + EVENT_BYTES * history.events.len()
            + 8 * history.result_aliases.len(),
    );
    data.extend_from_slice(&(meta.len() as u64).to_le_bytes());
    data.extend_from_slice(&meta);
    for hash in &id_hashes {
        data.extend_from_slice(&hash.to_le_bytes());
    }
    let u32_of = |n: u64| u32::try_from(n).ok();
    for &i in &history.branch {
        data.extend_from_slice(&u32_of(i as u64)?.to_le_bytes());
    }
    for &seq in &history.branch_seqs {
        data.extend_from_slice(&u32_of(seq)?.to_le_bytes());
    }
    for event in &history.events {
        let (kind, call_index, result) = match event.source {
            Source::Content(_) => (0, 0, NO_RESULT),
            Source::Summary(_) => (1, 0, NO_RESULT),
            Source::Call { index, result } => (
                2,
                u32_of(index as u64)?,
                match result {
                    Some(r) => u32_of(r as u64).filter(|&r| r != NO_RESULT)?,
                    None => NO_RESULT,
                },
            ),
            Source::OrphanResult => (3, 0, NO_RESULT),
            Source::Bash => (4, 0, NO_RESULT),
        };
        for value in [
            u32_of(event.seq)?,
            u32_of(event.entry as u64)?,
            u32_of(event.window as u64)?,
            result,
            call_index,
        ] {
            data.extend_from_slice(&value.to_le_bytes());
        }
        data.extend_from_slice(&[role_code(event.role), kind, 0, 0]);
        let (offset, len) = match event.source {
            Source::Content(span) | Source::Summary(span) => {
                relative_span(session.entries.span(event.entry)?, span)?
            }
            _ => (NO_SPAN, 0),
        };
        data.extend_from_slice(&offset.to_le_bytes());
        data.extend_from_slice(&len.to_le_bytes());
        let (name_start, name_len) = event.name.map_or((NO_SPAN, 0), |a| (a.start, a.len));
        if name_start == NO_SPAN && event.name.is_some() {
            return None;
        }
        data.extend_from_slice(&name_start.to_le_bytes());
        data.extend_from_slice(&name_len.to_le_bytes());
    }
    for &(result, call) in &history.result_aliases {
        data.extend_from_slice(&u32_of(result)?.to_le_bytes());
        data.extend_from_slice(&u32_of(call)?.to_le_bytes());
    }
    Some(cachefile::end(data))
}

fn split_payload(data: &[u8]) -> Option<(Meta, &[u8])> {
    let (meta, arrays) = cachefile::split_meta(data)?;
    // Copied before it is decoded: the strings in it must stay the bytes checked as UTF-8,
    // and a mapped file could change under the decoder.
    let copy = meta.to_vec();
    let meta: Meta = postcard::from_bytes(&copy).ok()?;
    Some((meta, arrays))
}

/// Reads the arrays after the meta, checking every index against the session: a stored
/// projection that does not fit the session it is loaded for is not used. The id hashes are
/// read only for a file `grown` past the stored projection.
fn decode(
    session: &Session,
    meta: &Meta,
    arrays: &[u8],
    covered_len: usize,
    entries: usize,
    grown: bool,
    keep: Keep,
) -> Option<Stored> {
    let mut reader = Arrays(arrays);
    let id_hashes = reader.take(meta.id_hashes, 8)?;
    let id_hashes: Vec<u64> = if grown {
        id_hashes.map(le_u64).collect()
    } else {
        Vec::new()
    };
    let branch: Vec<usize> = reader
        .take(meta.branch, 4)?
        .map(|b| le_u32(b) as usize)
        .collect();
    let branch_seqs: Vec<u64> = reader
        .take(meta.branch_seqs, 4)?
        .map(|b| u64::from(le_u32(b)))
        .collect();
    let event_records = reader.take(meta.events, EVENT_BYTES)?;
    let aliases: Vec<(u64, u64)> = reader
        .take(meta.aliases, 8)?
        .map(|b| (u64::from(le_u32(&b[..4])), u64::from(le_u32(&b[4..]))))
        .collect();
    if !reader.0.is_empty() {
        return None;
    }
    let highest_seq = meta.highest_seq;
    let leaf = match meta.leaf {
        Some(l) => Some(usize::try_from(l).ok()?),
        None => None,
    };
    let windows: Vec<WindowInfo> = meta
        .windows
        .iter()
        .map(|w| WindowInfo {
            window_id: w.window_id.clone(),
            created_at: w.created_at.clone(),
            first_seq: w.first_seq,
            last_seq: w.last_seq,
            item_count: w.item_count as usize,
        })
        .collect();
    let sorted = |seqs: &mut dyn Iterator<Item = u64>| {
        let mut last = 0;
        for seq in seqs {
            if seq <= last || seq > highest_seq {
                return false;
            }
            last = seq;
        }
        true
    };
    let valid = !windows.is_empty()
        && id_hashes.windows(2).all(|w| w[0] < w[1])
        && branch.iter().all(|&i| i < entries)
        && branch.last().copied() == leaf
        && sorted(&mut branch_seqs.iter().copied())
        && sorted(&mut aliases.iter().map(|&(result, _)| result))
        && aliases.iter().all(|&(_, call)| call <= highest_seq)
        && highest_seq < u64::from(u32::MAX);
    if !valid {
        return None;
    }
    // Room for the events of the entries appended since (about one each, more for calls):
    // extending the projection then adds them without copying every stored event again.
    let appended = if grown {
        session.entries.len().saturating_sub(entries)
    } else {
        0
    };
    let kept = match keep {
        Keep::All => event_records.len(),
        Keep::OpenCalls => 0,
    };
    let mut events = Vec::with_capacity(kept + 2 * appended);
    let mut last_seq = 0;
    for record in event_records {
        let event = decode_event(session, record, entries, windows.len())?;
        if event.seq <= last_seq || event.seq > highest_seq {
            return None;
        }
        last_seq = event.seq;
        if keep == Keep::All || event.is_open_call() {
            events.push(event);
        }
    }
    Some(Stored {
        covered_len,
        entries,
        leaf,
        highest_seq,
        windows,
        id_hashes,
        branch,
        branch_seqs,
        events,
        aliases,
    })
}

fn decode_event(session: &Session, record: &[u8], entries: usize, windows: usize) -> Option<Event> {
    let field = |i: usize| le_u32(&record[4 * i..4 * i + 4]);
    let (seq, entry, window, result, call_index) = (
        u64::from(field(0)),
        field(1) as usize,
        field(2) as usize,
        field(3),
        field(4) as usize,
    );
    let (role, kind) = (role_of(record[20])?, record[21]);
    if entry >= entries || window >= windows {
        return None;
    }
    // The entry is checked against the index's columns, never decoded.
    let shape = session.entries.shape(entry)?;
    let span = || stored_span(session.entries.span(entry)?, field(6), field(7));
    let source = match kind {
        0 => is_content(shape).then(span)?.map(Source::Content)?,
        1 => is_summary(shape).then(span)?.map(Source::Summary)?,
        2 => {
            let has_call =
                shape::kind(shape) == shape::ASSISTANT && call_index < shape::calls(shape);
            has_call.then_some(())?;
            let result = match result {
                NO_RESULT => None,
                r => {
                    let r = r as usize;
                    (r < entries && is_tool_result(session.entries.shape(r)?)).then_some(r)?;
                    Some(r)
                }
            };
            Source::Call {
                index: call_index,
                result,
            }
        }
        3 => {
            is_tool_result(shape).then_some(())?;
            Source::OrphanResult
        }
        4 => (shape::kind(shape) == shape::BASH_EXECUTION).then_some(Source::Bash)?,
        _ => return None,
    };
    let name = match (field(8), field(9)) {
        (NO_SPAN, _) => None,
        (start, len) => Some(Atom { start, len }),
    };
    Some(Event {
        seq,
        window,
        role,
        entry,
        source,
        name,
    })
}

/// A content or summary span as its offset from the start of its entry's line and its length.
fn relative_span(line: Span, span: Option<Span>) -> Option<(u32, u32)> {
    let Some(span) = span else {
        return Some((NO_SPAN, 0));
    };
    let inside = line.start <= span.start && span.start <= span.end && span.end <= line.end;
    inside.then_some(())?;
    let offset = u32::try_from(span.start - line.start)
        .ok()
        .filter(|&o| o != NO_SPAN)?;
    Some((offset, u32::try_from(span.end - span.start).ok()?))
}

/// The span a stored event names inside its entry's line: `Some(None)` for no span, `None`
/// when it does not lie inside the line.
fn stored_span(line: Span, offset: u32, len: u32) -> Option<Option<Span>> {
    if offset == NO_SPAN {
        return Some(None);
    }
    let start = line.start.checked_add(offset as usize)?;
    let end = start.checked_add(len as usize)?;
    (end <= line.end).then_some(Some(Span { start, end }))
}

fn is_tool_result(shape: u32) -> bool {
    shape::kind(shape) == shape::TOOL_RESULT
}

/// Whether a `Content` event can come from an entry of this shape (as the projection takes it).
fn is_content(shape: u32) -> bool {
    matches!(
        shape::kind(shape),
        shape::USER | shape::ASSISTANT | shape::CUSTOM_MESSAGE_ROLE | shape::CUSTOM_MESSAGE
    )
}

/// Whether a `Summary` event can come from an entry of this shape.
fn is_summary(shape: u32) -> bool {
    matches!(
        shape::kind(shape),
        shape::COMPACTION_SUMMARY
            | shape::BRANCH_SUMMARY_ROLE
            | shape::COMPACTION
            | shape::BRANCH_SUMMARY
    )
}

fn role_code(role: Role) -> u8 {
    match role {
        Role::User => 0,
        Role::Assistant => 1,
        Role::Tool => 2,
        Role::Context => 3,
    }
}

fn role_of(code: u8) -> Option<Role> {
    Role::ALL.get(usize::from(code)).copied()
}

/// The raw arrays after the meta, taken in order.
struct Arrays<'a>(&'a [u8]);

impl<'a> Arrays<'a> {
    /// The next `count` elements of `size` bytes each.
    fn take(&mut self, count: u64, size: usize) -> Option<std::slice::ChunksExact<'a, u8>> {
        let len = usize::try_from(count).ok()?.checked_mul(size)?;
        if len > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(head.chunks_exact(size))
    }
}

fn le_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes.try_into().unwrap_or_default())
}

fn le_u64(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().unwrap_or_default())
}
