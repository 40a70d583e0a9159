//! Seq allocation, the branch walk, windows and call/result pairing.

use std::borrow::Cow;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::stored::{Keep, ProjectionStore};
use super::{HistoryError, Role};
use crate::redact::Masking;
use crate::session::{Atom, Entry, EntryKind, Message, Session, Span};
use crate::text;

/// Which entry ends the branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leaf {
    /// The last entry in file order (Pi's leaf after reopening a file).
    Last,
    /// An empty branch (Pi's `getLeafId()` is null).
    None,
    Id(String),
}

impl Leaf {
    /// `None`/absent → last entry; `"none"` → empty branch; anything else is an id.
    pub fn from_wire(leaf: Option<&str>) -> Leaf {
        match leaf {
            None => Leaf::Last,
            Some("none") => Leaf::None,
            Some(id) => Leaf::Id(id.to_string()),
        }
    }
}

/// One context window of the branch.
#[derive(Debug, Clone, Serialize)]
pub struct WindowInfo {
    pub window_id: String,
    pub created_at: Option<String>,
    pub first_seq: Option<u64>,
    pub last_seq: Option<u64>,
    pub item_count: usize,
}

/// One projected event. Its document is decoded on demand by [`History::document`].
#[derive(Debug, Clone)]
pub struct Event {
    pub seq: u64,
    /// Index into [`History::windows`].
    pub window: usize,
    pub role: Role,
    /// The entry whose timestamp dates the event (for a call: its assistant message).
    pub(super) entry: usize,
    pub(super) source: Source,
    /// A tool event's tool name: the call's, or an orphan result's (`None`: not a tool event,
    /// or the name is missing). Kept here so that counting the tools of many events (fold
    /// rows) decodes none of their entries.
    pub(super) name: Option<Atom>,
}

pub(super) use EventSource as Source;

impl Event {
    /// The index of the entry the event comes from (for a call: its assistant message).
    pub fn entry(&self) -> usize {
        self.entry
    }

    /// Whether the event is a tool call no result was paired to (yet).
    pub(super) fn is_open_call(&self) -> bool {
        matches!(self.source, Source::Call { result: None, .. })
    }

    /// What the event's document is built from.
    pub fn source(&self) -> &EventSource {
        &self.source
    }
}

/// What an event's document is built from (entries are indices into the session's entries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventSource {
    /// Message content: a string or text blocks.
    Content(Option<Span>),
    /// A JSON string field (summaries).
    Summary(Option<Span>),
    /// A tool call, with the entry of the result paired to it.
    Call { index: usize, result: Option<usize> },
    /// A tool result that no call claimed.
    OrphanResult,
    /// A `bashExecution` message: a standalone shell run.
    Bash,
}

/// The projection of one branch of a session.
pub struct History<'s> {
    pub(super) session: &'s Session,
    pub(super) session_id: String,
    pub(super) highest_seq: u64,
    /// Seqs of branch entries and their calls, sorted.
    pub(super) branch_seqs: Vec<u64>,
    pub(super) windows: Vec<WindowInfo>,
    /// Events sorted by seq.
    pub(super) events: Vec<Event>,
    /// A consumed result's seq → the seq of the call that shows it.
    /// Sorted by result seq.
    pub(super) result_aliases: Vec<(u64, u64)>,
    /// How many of the session's entries the projection covers (a prefix).
    pub(super) entries: usize,
    /// The branch's entries from the root to the leaf.
    pub(super) branch: Vec<usize>,
    /// When the projection was a stored one, extended (see [`ProjectionStore`]): how many
    /// entries the stored one covered. No later entry repeats the id of one of those.
    pub(super) stored_entries: Option<usize>,
    /// Whether documents are shown with their secrets masked (another session's, read by a
    /// tool; `history --redact`).
    pub(super) masking: Masking,
}

/// Seqs an entry takes: 1 for every event-bearing entry, plus one per tool call.
pub(super) fn seq_count(entry: &Entry) -> u64 {
    match &entry.kind {
        EntryKind::Compaction { .. }
        | EntryKind::BranchSummary { .. }
        | EntryKind::CustomMessage { .. } => 1,
        EntryKind::Message(Message::Assistant {
            tool_calls,
            own_event,
            ..
        }) => u64::from(*own_event) + tool_calls.len() as u64,
        EntryKind::Message(Message::System | Message::Unknown) => 0,
        EntryKind::Message(_) => 1,
        EntryKind::Custom { .. } | EntryKind::Other => 0,
    }
}

/// A raw item before pairing.
pub(super) struct RawItem {
    pub seq: u64,
    pub window: usize,
    pub entry: usize,
    pub kind: RawKind,
}

pub(super) enum RawKind {
    Event(Role, Source),
    Call { index: usize, id: Option<Atom> },
    Result { call_id: Option<Atom> },
}

impl<'s> History<'s> {
    /// Projects the branch ending at `leaf`. `fallback_session_id` names the root window when the
    /// file has no header id.
    pub fn project(
        session: &'s Session,
        leaf: &Leaf,
        fallback_session_id: Option<&str>,
    ) -> Result<Self, HistoryError> {
        let leaf = resolve_leaf(session, leaf)?;
        Ok(Self::project_prefix(
            session,
            session.entries.len(),
            leaf,
            fallback_session_id,
        ))
    }

    /// Projects the branch ending at entry `leaf` (`None`: an empty branch) as if the file held
    /// only its first `entries` entries: what an earlier read of a file that has since grown saw.
    pub fn project_prefix(
        session: &'s Session,
        entries: usize,
        leaf: Option<usize>,
        fallback_session_id: Option<&str>,
    ) -> Self {
        let count = entries.min(session.entries.len());
        let branch = match leaf.filter(|&l| l < count) {
            Some(leaf) => walk_branch(session, count, leaf),
            None => Vec::new(),
        };
        Self::project_path(session, count, branch, fallback_session_id)
    }

    /// [`project`](Self::project) through a [`ProjectionStore`]: the stored projection of the
    /// session's indexed prefix, extended with what was appended since, when it can be
    /// (the same branch, grown or not); otherwise a fresh projection, which is stored.
    pub fn project_stored(
        session: &'s Session,
        store: Option<&ProjectionStore>,
        leaf: &Leaf,
        fallback_session_id: Option<&str>,
    ) -> Result<Self, HistoryError> {
        let leaf = resolve_leaf(session, leaf)?;
        Ok(Self::project_prefix_stored(
            session,
            store,
            session.entries.len(),
            leaf,
            fallback_session_id,
        ))
    }

    /// [`project_prefix`](Self::project_prefix) through a [`ProjectionStore`].
    pub fn project_prefix_stored(
        session: &'s Session,
        store: Option<&ProjectionStore>,
        entries: usize,
        leaf: Option<usize>,
        fallback_session_id: Option<&str>,
    ) -> Self {
        Self::project_keeping(
            session,
            store,
            entries,
            leaf,
            fallback_session_id,
            Keep::All,
        )
    }

    /// [`project_prefix_stored`](Self::project_prefix_stored) for a reader that wants only what
    /// an append changed (a recall refresh): when the stored projection is extended and not
    /// stored again, its events hold only the stored calls still without a result and the
    /// appended events; every other stored event is checked but not kept (decoding them all
    /// was a sixth of the refresh after a 1 MB append to a 70 MB session). Such a projection
    /// answers [`events`](Self::events), [`branch`](Self::branch) and
    /// [`window_id`](Self::window_id) for those events, and nothing that counts events. The
    /// branch is the one ending at the last of the `entries` first entries.
    pub fn project_appended_stored(
        session: &'s Session,
        store: Option<&ProjectionStore>,
        entries: usize,
        fallback_session_id: Option<&str>,
    ) -> Self {
        let leaf = entries.checked_sub(1);
        let keep = Keep::OpenCalls;
        Self::project_keeping(session, store, entries, leaf, fallback_session_id, keep)
    }

    fn project_keeping(
        session: &'s Session,
        store: Option<&ProjectionStore>,
        entries: usize,
        leaf: Option<usize>,
        fallback_session_id: Option<&str>,
        keep: Keep,
    ) -> Self {
        let Some(store) = store else {
            return Self::project_prefix(session, entries, leaf, fallback_session_id);
        };
        store.project(session, entries, leaf, fallback_session_id, keep)
    }

    /// Projects a branch given as entry indices from the root to the leaf (each below
    /// `entries`), for callers that walked the tree themselves.
    pub fn project_path(
        session: &'s Session,
        entries: usize,
        branch: Vec<usize>,
        fallback_session_id: Option<&str>,
    ) -> Self {
        let seqs = Seqs::of(session, entries);
        Self::project_path_with(session, &seqs, branch, fallback_session_id)
    }

    /// [`project_path`](Self::project_path) with the seqs of the entries allocated already,
    /// for callers that project many branches of the same entries.
    pub fn project_path_with(
        session: &'s Session,
        seqs: &Seqs,
        branch: Vec<usize>,
        fallback_session_id: Option<&str>,
    ) -> Self {
        let count = seqs.starts.len();
        let branch: Vec<usize> = branch.into_iter().filter(|&i| i < count).collect();
        let session_id = session_id_of(session, fallback_session_id);
        let seq_starts = &seqs.starts;
        let highest_seq = seqs.highest;
        let mut history = History {
            session,
            windows: vec![WindowInfo {
                window_id: root_window_id(&session_id),
                created_at: None,
                first_seq: None,
                last_seq: None,
                item_count: 0,
            }],
            session_id,
            highest_seq,
            branch_seqs: Vec::new(),
            events: Vec::new(),
            result_aliases: Vec::new(),
            entries: count,
            branch: Vec::new(),
            stored_entries: None,
            masking: Masking::Off,
        };
        let items = history.raw_items(&branch, seq_starts, 0);
        history.pair(items, &[]);
        history.count_windows(0);
        history.branch = branch;
        history
    }

    /// The branch's entries from the root to the leaf.
    pub fn branch(&self) -> &[usize] {
        &self.branch
    }

    /// How many of the session's entries the projection covers.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Whether the projection is a stored one extended, rather than projected afresh.
    pub fn from_store(&self) -> bool {
        self.stored_entries.is_some()
    }

    /// How many entries the stored projection this one extends covered (`None`: projected
    /// afresh). No entry after them repeats the id of one of them.
    pub fn stored_entries(&self) -> Option<usize> {
        self.stored_entries
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    pub fn highest_seq(&self) -> u64 {
        self.highest_seq
    }

    pub fn windows(&self) -> &[WindowInfo] {
        &self.windows
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub fn skipped_lines(&self) -> usize {
        self.session.skipped_lines
    }

    pub fn window_id(&self, event: &Event) -> &str {
        &self.windows[event.window].window_id
    }

    pub fn created_at(&self, event: &Event) -> Option<String> {
        self.session.timestamp(&self.session.entries[event.entry])
    }

    /// The custom type of a context event from a Pi custom message (`pi-context/boot`, …).
    pub fn custom_type(&self, event: &Event) -> Option<String> {
        match &self.session.entries[event.entry].kind {
            crate::session::EntryKind::CustomMessage {
                custom_type: Some(t),
                ..
            } => Some(self.session.str(*t).into_owned()),
            _ => None,
        }
    }

    pub(super) fn is_on_branch(&self, seq: u64) -> bool {
        self.branch_seqs.binary_search(&seq).is_ok()
    }

    pub(super) fn alias_of(&self, seq: u64) -> Option<u64> {
        self.result_aliases
            .binary_search_by_key(&seq, |&(result, _)| result)
            .ok()
            .map(|i| self.result_aliases[i].1)
    }

    pub(super) fn event_at(&self, seq: u64) -> Option<&Event> {
        self.events
            .binary_search_by_key(&seq, |e| e.seq)
            .ok()
            .map(|i| &self.events[i])
    }

    /// The raw items of `branch` (entries from `offset` on, whose seqs start at
    /// `seq_starts[entry - offset]`), continuing the windows projected so far.
    pub(super) fn raw_items(
        &mut self,
        branch: &[usize],
        seq_starts: &[u64],
        offset: usize,
    ) -> Vec<RawItem> {
        let seqs: usize = branch
            .iter()
            .map(|&i| seq_count(&self.session.entries[i]) as usize)
            .sum();
        let mut items = Vec::with_capacity(seqs);
        self.branch_seqs.reserve(seqs);
        let mut window = self.windows.len() - 1;
        for &index in branch {
            let entry = &self.session.entries[index];
            let seq = seq_starts[index - offset];
            let count = seq_count(entry);
            self.branch_seqs.extend(seq..seq + count);
            if let EntryKind::Custom {
                window_id: Some(window_id),
                ..
            } = &entry.kind
            {
                self.windows.push(WindowInfo {
                    window_id: window_id.clone(),
                    created_at: self.session.timestamp(entry),
                    first_seq: None,
                    last_seq: None,
                    item_count: 0,
                });
                window = self.windows.len() - 1;
                continue;
            }
            let item = |kind| RawItem {
                seq,
                window,
                entry: index,
                kind,
            };
            let event = |role, source| item(RawKind::Event(role, source));
            match &entry.kind {
                EntryKind::Message(message) => match message {
                    Message::User { content } => {
                        items.push(event(Role::User, Source::Content(*content)))
                    }
                    Message::Assistant {
                        content,
                        tool_calls,
                        own_event,
                    } => {
                        if *own_event {
                            items.push(event(Role::Assistant, Source::Content(*content)));
                        }
                        let first_call = seq + u64::from(*own_event);
                        for (i, call) in tool_calls.iter().enumerate() {
                            items.push(RawItem {
                                seq: first_call + i as u64,
                                window,
                                entry: index,
                                kind: RawKind::Call {
                                    index: i,
                                    id: call.id,
                                },
                            });
                        }
                    }
                    Message::ToolResult { tool_call_id, .. } => items.push(item(RawKind::Result {
                        call_id: *tool_call_id,
                    })),
                    Message::BashExecution { .. } => items.push(event(Role::Tool, Source::Bash)),
                    Message::Custom { content } => {
                        items.push(event(Role::Context, Source::Content(*content)))
                    }
                    Message::CompactionSummary { summary } | Message::BranchSummary { summary } => {
                        items.push(event(Role::Context, Source::Summary(*summary)))
                    }
                    Message::System | Message::Unknown => {}
                },
                EntryKind::Compaction { summary } | EntryKind::BranchSummary { summary } => {
                    items.push(event(Role::Context, Source::Summary(*summary)))
                }
                EntryKind::CustomMessage { content, .. } => {
                    items.push(event(Role::Context, Source::Content(*content)))
                }
                EntryKind::Custom { .. } | EntryKind::Other => {}
            }
        }
        self.branch_seqs.sort_unstable();
        self.branch_seqs.dedup();
        items.sort_by_key(|i| i.seq);
        items
    }

    /// Pairs each call with the first not-yet-consumed result of the same id after it, and
    /// appends the events of `items`. `open_calls` are events already projected (all before
    /// `items`) whose call has no result yet: they claim results first, in seq order, as they
    /// would in a projection of the whole branch.
    ///
    /// Calls claim in seq order, so a result at or before a call can never be taken by it or
    /// by a later call, and every result after the last one taken is still free: the first
    /// result a call of an id can take is always at a cursor that only moves forward, through
    /// the results of that id in seq order. Linear in the items, however many calls share an
    /// id.
    pub(super) fn pair(&mut self, items: Vec<RawItem>, open_calls: &[usize]) {
        let session = self.session;
        // For each call id, the first result not yet passed; for each result, the next one
        // with the same id: chains in position order without a vector per id.
        let mut cursor: FxHashMap<Cow<str>, Option<usize>> = FxHashMap::default();
        let mut next_same: Vec<Option<usize>> = vec![None; items.len()];
        for (position, item) in items.iter().enumerate().rev() {
            if let RawKind::Result { call_id: Some(id) } = &item.kind {
                next_same[position] = cursor.insert(session.atom(*id), Some(position)).flatten();
            }
        }
        let mut consumed = vec![false; items.len()];
        let aliases_from = self.result_aliases.len();
        let mut last_call_seq = 0;
        let mut claim = |id: Atom, seq: u64, consumed: &mut Vec<bool>| {
            debug_assert!(seq >= last_call_seq, "calls claim in seq order");
            last_call_seq = seq;
            let cursor = cursor.get_mut(session.atom(id).as_ref())?;
            while let Some(r) = *cursor {
                *cursor = next_same[r];
                if items[r].seq > seq {
                    consumed[r] = true;
                    return Some(r);
                }
            }
            None
        };
        for &e in open_calls {
            let event = &self.events[e];
            let Source::Call {
                index,
                result: None,
            } = event.source
            else {
                continue;
            };
            let Some(id) = call_id(session, event.entry, index) else {
                continue;
            };
            if let Some(r) = claim(id, event.seq, &mut consumed) {
                self.result_aliases.push((items[r].seq, event.seq));
                self.events[e].source = Source::Call {
                    index,
                    result: Some(items[r].entry),
                };
            }
        }
        let mut claimed: Vec<Option<usize>> = vec![None; items.len()];
        for (position, item) in items.iter().enumerate() {
            if let RawKind::Call { id: Some(id), .. } = &item.kind {
                claimed[position] = claim(*id, item.seq, &mut consumed);
            }
        }
        self.events.reserve(items.len());
        for (position, item) in items.iter().enumerate() {
            let (role, source) = match &item.kind {
                RawKind::Event(role, source) => (*role, source.clone()),
                RawKind::Call { index, .. } => {
                    let result = claimed[position].map(|r| {
                        self.result_aliases.push((items[r].seq, item.seq));
                        items[r].entry
                    });
                    (
                        Role::Tool,
                        Source::Call {
                            index: *index,
                            result,
                        },
                    )
                }
                RawKind::Result { .. } if consumed[position] => continue,
                RawKind::Result { .. } => (Role::Tool, Source::OrphanResult),
            };
            let name = tool_name_atom(session, item.entry, &source);
            self.events.push(Event {
                seq: item.seq,
                window: item.window,
                role,
                entry: item.entry,
                source,
                name,
            });
        }
        // Every result seq of `items` is above those paired before.
        self.result_aliases[aliases_from..].sort_unstable();
    }

    /// Counts the events from `from` on into their windows.
    pub(super) fn count_windows(&mut self, from: usize) {
        for event in &self.events[from..] {
            let window = &mut self.windows[event.window];
            window.first_seq.get_or_insert(event.seq);
            window.last_seq = Some(event.seq);
            window.item_count += 1;
        }
    }
}

/// Every window id starts with this prefix and the session id's first
/// [`WINDOW_ID_SESSION_CHARS`] characters.
pub const WINDOW_ID_PREFIX: &str = "pcw:";
pub const WINDOW_ID_SESSION_CHARS: usize = 8;
/// What follows the session characters in the root window's id.
pub const ROOT_WINDOW_SUFFIX: &str = ":root";

/// The root window of a session: `pcw:<first 8 chars of the session id>:root`. (JavaScript's
/// `slice(0, 8)` in the extension agrees for the ASCII ids Pi mints.)
pub fn root_window_id(session_id: &str) -> String {
    let session: String = session_id.chars().take(WINDOW_ID_SESSION_CHARS).collect();
    format!("{WINDOW_ID_PREFIX}{session}{ROOT_WINDOW_SUFFIX}")
}

/// The session id that names the root window: the header's, else the fallback.
pub(super) fn session_id_of(session: &Session, fallback: Option<&str>) -> String {
    session.id().or(fallback).unwrap_or_default().to_string()
}

/// The first seq of each of a session's first entries, and the highest seq they hold.
pub struct Seqs {
    starts: Vec<u64>,
    highest: u64,
}

impl Seqs {
    /// The seqs of the first `entries` entries of `session`.
    pub fn of(session: &Session, entries: usize) -> Seqs {
        let count = entries.min(session.entries.len());
        let entries = session.entries.range(0..count);
        let starts = allocate_seqs_from(entries.clone(), 1);
        let highest = entries
            .zip(&starts)
            .map(|(e, start)| start + seq_count(e))
            .max()
            .map_or(0, |end| end - 1);
        Seqs { starts, highest }
    }
}

/// The first seq of each entry, numbering from `first` (seqs run over the whole file, in file
/// order, whatever the branch).
pub(super) fn allocate_seqs_from<'e>(
    entries: impl Iterator<Item = &'e Entry>,
    first: u64,
) -> Vec<u64> {
    let mut next = first;
    entries
        .map(|entry| {
            let start = next;
            next += seq_count(entry);
            start
        })
        .collect()
}

/// The index of the entry `leaf` names (`None`: an empty branch). A repeated id: the later line
/// wins, so the search runs from the end.
fn resolve_leaf(session: &Session, leaf: &Leaf) -> Result<Option<usize>, HistoryError> {
    Ok(match leaf {
        Leaf::None => None,
        Leaf::Last => session.entries.len().checked_sub(1),
        Leaf::Id(id) => Some(
            session
                .entries
                .iter()
                .rposition(|e| session.entry_id(&e.id) == id.as_str())
                .ok_or_else(|| HistoryError::UnknownLeaf(id.clone()))?,
        ),
    })
}

/// Entry indices of the branch that ends at `leaf`, root first: the entries
/// [`History::project`] projects, for readers of other entry kinds (checkpoints).
pub fn branch_entries(session: &Session, leaf: &Leaf) -> Result<Vec<usize>, HistoryError> {
    Ok(match resolve_leaf(session, leaf)? {
        Some(leaf) => walk_branch(session, session.entries.len(), leaf),
        None => Vec::new(),
    })
}

/// Entry indices from the root to the leaf, among the first `count` entries of the session. A
/// dangling parent or a cycle ends the walk.
fn walk_branch(session: &Session, count: usize, start: usize) -> Vec<usize> {
    let ids = id_index(session, count);
    let mut branch = vec![start];
    let mut seen = vec![false; count];
    seen[start] = true;
    let mut current = start;
    while let Some(p) = session.parent_of(current, |id| ids.get(id).copied()) {
        if std::mem::replace(&mut seen[p], true) {
            break;
        }
        branch.push(p);
        current = p;
    }
    branch.reverse();
    branch
}

/// Entry indices by id among the first `count` entries (a repeated id: the later line wins).
fn id_index(session: &Session, count: usize) -> FxHashMap<std::borrow::Cow<'_, str>, usize> {
    if count == session.entries.len() {
        return session.id_index();
    }
    let mut index = FxHashMap::default();
    index.reserve(count);
    for (i, entry) in session.entries.range(0..count).enumerate() {
        index.insert(session.entry_id(&entry.id), i);
    }
    index
}

/// The id of call `index` of the assistant message at `entry`.
fn call_id(session: &Session, entry: usize, index: usize) -> Option<Atom> {
    match &session.entries.get(entry)?.kind {
        EntryKind::Message(Message::Assistant { tool_calls, .. }) => tool_calls.get(index)?.id,
        _ => None,
    }
}

/// The tool name a tool event built from `entry` shows, read from the entry.
pub(super) fn tool_name_atom(session: &Session, entry: usize, source: &Source) -> Option<Atom> {
    match (source, &session.entries.get(entry)?.kind) {
        (Source::Call { index, .. }, EntryKind::Message(Message::Assistant { tool_calls, .. })) => {
            tool_calls.get(*index).and_then(|call| call.name)
        }
        (Source::OrphanResult, EntryKind::Message(Message::ToolResult { tool_name, .. })) => {
            *tool_name
        }
        _ => None,
    }
}

/// What a tool event shows besides its document.
pub(super) struct ToolFacts {
    pub name: String,
    pub error: bool,
    pub output_truncated: bool,
    pub full_output_path: Option<String>,
}

impl<'s> History<'s> {
    /// The event's document: the single text that previews, search offsets and reads address
    /// (masked when the history is; masking keeps every offset).
    pub fn document(&self, event: &Event) -> String {
        self.masking
            .apply_owned(event_document(self.session, event.entry, &event.source))
    }

    /// The same history with its documents masked as `masking` says.
    pub fn with_masking(mut self, masking: Masking) -> Self {
        self.masking = masking;
        self
    }

    /// Whether the document is empty, decided without decoding where possible.
    pub(super) fn document_is_empty(&self, event: &Event) -> bool {
        match &event.source {
            Source::Content(span) => self.session.content_is_empty(*span),
            Source::Summary(span) => self.session.string_value(*span).is_empty(),
            Source::Call { .. } | Source::OrphanResult | Source::Bash => false,
        }
    }

    /// The code-point length of the event's document.
    pub fn total_chars(&self, event: &Event) -> usize {
        text::char_len(&self.document(event))
    }

    pub(super) fn tool_facts(&self, event: &Event) -> Option<ToolFacts> {
        let s = self.session;
        let name = self.tool_name(event)?.to_string();
        let result_facts = |entry: usize, name: String| match &s.entries[entry].kind {
            EntryKind::Message(Message::ToolResult {
                is_error,
                output_truncated,
                full_output_path,
                ..
            }) => ToolFacts {
                name,
                error: *is_error,
                output_truncated: *output_truncated,
                full_output_path: s.string(*full_output_path),
            },
            _ => ToolFacts {
                name,
                error: false,
                output_truncated: false,
                full_output_path: None,
            },
        };
        Some(match &event.source {
            Source::Content(_) | Source::Summary(_) => return None,
            Source::Call { result, .. } => result_facts(result.unwrap_or(event.entry), name),
            Source::OrphanResult => result_facts(event.entry, name),
            Source::Bash => match &s.entries[event.entry].kind {
                EntryKind::Message(Message::BashExecution {
                    truncated,
                    full_output_path,
                    ..
                }) => ToolFacts {
                    name,
                    error: false,
                    output_truncated: *truncated,
                    full_output_path: s.string(*full_output_path).filter(|_| *truncated),
                },
                _ => result_facts(event.entry, name),
            },
        })
    }

    /// The tool name of an event (`None` for non-tool events): the call's name, else the
    /// result's, else `unknown`. Cheap: fold rows count names of many events.
    pub(super) fn tool_name(&self, event: &Event) -> Option<Cow<'s, str>> {
        match &event.source {
            Source::Content(_) | Source::Summary(_) => None,
            Source::Bash => Some(Cow::Borrowed("bash")),
            Source::Call { .. } | Source::OrphanResult => Some(
                event
                    .name
                    .map_or(Cow::Borrowed("unknown"), |atom| self.session.atom(atom)),
            ),
        }
    }
}

fn tool_head(name: &str, arguments: &str) -> String {
    let mut doc = String::with_capacity(name.len() + 1 + arguments.len());
    doc.push_str(name);
    doc.push(' ');
    doc.push_str(arguments);
    doc
}

const OUTPUT_MARKER: &str = "\n--- output ---\n";

fn push_output(doc: &mut String, output: &str) {
    doc.push_str(OUTPUT_MARKER);
    doc.push_str(output);
}

/// The document of the event that `source` builds from entry `entry` of `session`: what
/// [`History::document`] returns, for callers that rebuild one event from its lines alone.
pub fn event_document(s: &Session, entry_index: usize, source: &EventSource) -> String {
    let Some(entry) = s.entries.get(entry_index) else {
        return String::new();
    };
    match source {
        Source::Content(span) => s.content_text_after("", *span),
        Source::Summary(span) => s.string_value(*span).into_owned(),
        Source::Call { index, result } => {
            let (name, arguments) = match &entry.kind {
                EntryKind::Message(Message::Assistant { tool_calls, .. }) => {
                    tool_calls.get(*index).map_or((None, None), |call| {
                        let arguments = match call.arguments {
                            Some(a) if call.arguments_in_string => Some(s.string_value(Some(a))),
                            a => a.map(|a| s.raw(a)),
                        };
                        (call.name.map(|n| s.atom(n)), arguments)
                    })
                }
                _ => (None, None),
            };
            let arguments = arguments.unwrap_or(Cow::Borrowed("{}"));
            let head = tool_head(name.as_deref().unwrap_or("unknown"), &arguments);
            match result {
                Some(result) => with_output(s, head, *result),
                None => head,
            }
        }
        Source::OrphanResult => {
            let name = match &entry.kind {
                EntryKind::Message(Message::ToolResult { tool_name, .. }) => *tool_name,
                _ => None,
            };
            let name = name.map_or(Cow::Borrowed("unknown"), |n| s.atom(n));
            let head = tool_head(&name, "{}");
            with_output(s, head, entry_index)
        }
        Source::Bash => {
            let (command, output) = match &entry.kind {
                EntryKind::Message(Message::BashExecution {
                    command, output, ..
                }) => (*command, *output),
                _ => (None, None),
            };
            let arguments = command.map_or_else(
                || "{}".to_string(),
                |c| format!("{{\"command\":{}}}", s.raw(c)),
            );
            let mut doc = tool_head("bash", &arguments);
            push_output(&mut doc, &s.string_value(output));
            doc
        }
    }
}

/// `head`, the output marker and the text of the tool result `entry`, built in one buffer (a
/// huge output is copied once).
fn with_output(s: &Session, mut head: String, entry: usize) -> String {
    head.push_str(OUTPUT_MARKER);
    match s.entries.get(entry).map(|e| &e.kind) {
        Some(EntryKind::Message(Message::ToolResult { content, .. })) => {
            s.content_text_after(&head, *content)
        }
        _ => head,
    }
}
