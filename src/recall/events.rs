//! The events a session contributes to the index: every event of the default branch (root →
//! last entry in file order), plus the events that exist only on abandoned branches, each
//! projected on its own branch, with the same seqs `history` gives.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::history::{EventSource, History, ProjectionStore, Role, Seqs};
use crate::session::{self, shape, EntryKind, Message, Session};

/// Custom messages that repeat notes, protocol or earlier sessions rather than conversation:
/// not indexed.
const NOT_INDEXED: [&str; 3] = [
    "pi-context/boot",
    "pi-context/continuation",
    "pi-context/hint",
];

/// One event as the index records it. Two descriptions compare equal exactly when the indexed
/// document, its branch flag, window and leaf are the same (the file's prefix being unchanged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDesc {
    pub seq: u64,
    pub role: Role,
    pub entry: usize,
    pub source: EventSource,
    pub on_branch: bool,
    pub window_id: String,
    /// The tip of the event's branch when it is not on the default branch.
    pub leaf: Option<usize>,
}

impl EventDesc {
    /// The entry of the result paired with a call.
    pub fn result_entry(&self) -> Option<usize> {
        match self.source {
            EventSource::Call { result, .. } => result,
            _ => None,
        }
    }
}

/// The events of the session as it was when it held only its first `entries` entries, sorted
/// by seq. The default branch comes through `store` (history's stored projection) when given.
pub fn describe(
    session: &Session,
    entries: usize,
    session_id: &str,
    store: Option<&ProjectionStore>,
) -> Vec<EventDesc> {
    let entries = entries.min(session.entries.len());
    if entries == 0 {
        return Vec::new();
    }
    let default = History::project_prefix_stored(
        session,
        store,
        entries,
        Some(entries - 1),
        Some(session_id),
    );
    let mut events: Vec<EventDesc> = Vec::with_capacity(default.events().len());
    let mut on_default = vec![false; entries];
    let mut taken: FxHashSet<u64> = FxHashSet::default();
    for event in default.events() {
        on_default[event.entry()] = true;
        if let EventSource::Call {
            result: Some(r), ..
        } = event.source()
        {
            on_default[*r] = true;
        }
        taken.insert(event.seq);
        if indexed(session, event.entry()) {
            events.push(desc(&default, event, true, None));
        }
    }
    let Tree { parents, shadowed } = tree(session, entries);
    mark_branch_entries(&parents, &mut on_default);
    let tips = tips(&parents, &shadowed);
    // Abandoned entries grouped by the tip of their branch, the latest tip first: the first
    // branch that shows an event is the one of the last childless entry descending from it.
    let mut abandoned_tips: Vec<usize> = (0..entries)
        .filter(|&i| !on_default[i] && !shadowed[i] && yields_events(session, i))
        .map(|i| tips[i])
        .collect::<FxHashSet<usize>>()
        .into_iter()
        .collect();
    abandoned_tips.sort_unstable_by(|a, b| b.cmp(a));
    // A tip on a branch projected already is an entry of a parent cycle (in a tree, a tip is
    // on no other branch): its branch is that cycle again, projected once. Each projection
    // reads the whole session, so a cycle of thousands of entries, each its own tip, would be
    // read thousands of times.
    let mut projected = vec![false; entries];
    // Allocated once for every branch, when there is one.
    let seqs = std::cell::OnceCell::new();
    for tip in abandoned_tips {
        if projected[tip] {
            continue;
        }
        let path = path_to(&parents, tip);
        for &i in &path {
            projected[i] = true;
        }
        let branch = History::project_path_with(
            session,
            seqs.get_or_init(|| Seqs::of(session, entries)),
            path,
            Some(session_id),
        );
        for event in branch.events() {
            if on_default[event.entry()] || !taken.insert(event.seq) {
                continue;
            }
            if indexed(session, event.entry()) {
                events.push(desc(&branch, event, false, Some(tip)));
            }
        }
    }
    events.sort_by_key(|e| e.seq);
    events
}

/// What an append changed, when it only extended the default branch: the file's last indexed
/// entry is on the new default branch and so is every appended entry (the common case: Pi
/// appending to the current branch). Then no indexed event moved off the branch, no window or
/// leaf changed, and the only indexed events that change are calls whose result was appended.
pub struct Append {
    /// Indexed events whose document changed (a call that got its result).
    pub changed: Vec<EventDesc>,
    /// Events of the appended entries.
    pub added: Vec<EventDesc>,
}

/// The events of an append that only extended the default branch; `None` for any other
/// change (the caller then describes the file before and after in full). The default branch
/// comes through `store` (history's stored projection, extended with the append) when given.
pub fn describe_append(
    session: &Session,
    old_entries: usize,
    entries: usize,
    session_id: &str,
    store: Option<&ProjectionStore>,
) -> Option<Append> {
    let entries = entries.min(session.entries.len());
    if old_entries == 0 || old_entries > entries {
        return None;
    }
    let history = History::project_appended_stored(session, store, entries, Some(session_id));
    let path = history.branch();
    let appended_on_path = path.iter().filter(|&&i| i >= old_entries).count();
    if !path.contains(&(old_entries - 1)) || appended_on_path != entries - old_entries {
        return None;
    }
    // An appended id that repeats an indexed entry's takes that entry off its branch. A
    // stored projection has checked the entries it covered (decoding none of them).
    let checked = history.stored_entries().unwrap_or(0).min(old_entries);
    if repeats_an_id(session, checked, old_entries, entries) {
        return None;
    }
    let mut append = Append {
        changed: Vec::new(),
        added: Vec::new(),
    };
    // Whether an event is indexed is asked only of the appended ones and the calls an appended
    // result completes: asking every event decodes the session's older custom messages.
    for event in history.events() {
        let appended = event.entry() >= old_entries;
        let completed = match event.source() {
            EventSource::Call {
                result: Some(r), ..
            } => *r >= old_entries,
            _ => false,
        };
        if !(appended || completed) || !indexed(session, event.entry()) {
            continue;
        }
        let description = desc(&history, event, true, None);
        if appended {
            append.added.push(description);
        } else {
            append.changed.push(description);
        }
    }
    Some(append)
}

fn desc(
    history: &History,
    event: &crate::history::Event,
    on_branch: bool,
    leaf: Option<usize>,
) -> EventDesc {
    EventDesc {
        seq: event.seq,
        role: event.role,
        entry: event.entry(),
        source: event.source().clone(),
        on_branch,
        window_id: history.window_id(event).to_string(),
        leaf,
    }
}

/// Whether an entry's event belongs in the index: boot blocks and continuations do not, nor a
/// block pi-context pushed into another agent, which that agent kept in its transcript
/// (`session::pushed_block`). Only custom messages are decoded to tell: the others are known
/// by their shape.
fn indexed(session: &Session, entry: usize) -> bool {
    let shape = session.entries.shape(entry).map(shape::kind);
    if shape.is_some_and(|kind| kind != shape::CUSTOM_MESSAGE && kind != shape::CUSTOM_MESSAGE_ROLE)
    {
        return true;
    }
    match &session.entries[entry].kind {
        EntryKind::CustomMessage {
            custom_type: Some(t),
            ..
        } => !NOT_INDEXED.contains(&session.str(*t).as_ref()),
        EntryKind::Message(Message::Custom { content }) => {
            session::pushed_block(&session.content_text(*content)).is_none()
        }
        _ => true,
    }
}

fn yields_events(session: &Session, entry: usize) -> bool {
    !matches!(
        session.entries[entry].kind,
        EntryKind::Custom { .. } | EntryKind::Other
    )
}

/// Marks every entry on the default branch (events alone miss entries that show none).
fn mark_branch_entries(parents: &[Option<usize>], on_default: &mut [bool]) {
    for i in path_to(parents, parents.len() - 1) {
        on_default[i] = true;
    }
}

/// Entry indices from the root to `leaf`; a parent cycle ends the walk, as in `history`.
fn path_to(parents: &[Option<usize>], leaf: usize) -> Vec<usize> {
    let mut path = vec![leaf];
    let mut seen = FxHashSet::default();
    seen.insert(leaf);
    let mut current = leaf;
    while let Some(parent) = parents[current] {
        if !seen.insert(parent) {
            break;
        }
        path.push(parent);
        current = parent;
    }
    path.reverse();
    path
}

/// The tree of the first `entries` entries.
struct Tree {
    /// Each entry's parent index (a repeated id: the later line wins).
    parents: Vec<Option<usize>>,
    /// Whether a later entry repeats the entry's id: Pi keeps only the later line, so no
    /// branch holds this one (an id names the later line, as a parent or as a leaf).
    shadowed: Vec<bool>,
}

fn tree(session: &Session, entries: usize) -> Tree {
    let slice = session.entries.range(0..entries);
    let mut ids: FxHashMap<std::borrow::Cow<'_, str>, usize> = FxHashMap::default();
    ids.reserve(entries);
    for (i, entry) in slice.clone().enumerate() {
        ids.insert(session.entry_id(&entry.id), i);
    }
    let shadowed = slice
        .enumerate()
        .map(|(i, entry)| ids[session.entry_id(&entry.id).as_ref()] != i)
        .collect();
    let parents = (0..entries)
        .map(|i| {
            session
                .parent_of(i, |id| ids.get(id).copied())
                .filter(|&p| p != i)
        })
        .collect();
    Tree { parents, shadowed }
}

/// Whether an entry in `from..to` repeats the id of an entry in `checked..from`, which moves
/// the entries of that id off every branch.
fn repeats_an_id(session: &Session, checked: usize, from: usize, to: usize) -> bool {
    let appended = session.ids_in(from..to);
    session
        .entries
        .range(checked..from)
        .any(|entry| appended.contains_key(session.entry_id(&entry.id).as_ref()))
}

/// For each entry, the last entry in file order that has no children and descends from it
/// (itself when it has none). Entries caught in a parent cycle are their own tip; a shadowed
/// entry is no one's child.
fn tips(parents: &[Option<usize>], shadowed: &[bool]) -> Vec<usize> {
    let entries = parents.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); entries];
    for (i, parent) in parents.iter().enumerate() {
        if let (Some(p), false) = (parent, shadowed[i]) {
            children[*p].push(i);
        }
    }
    let mut tip: Vec<usize> = (0..entries).collect();
    let mut done = vec![false; entries];
    // Iterative post-order from every root; cycle members are never reached and keep
    // themselves.
    for root in (0..entries).filter(|&i| parents[i].is_none()) {
        let mut stack = vec![(root, false)];
        while let Some((node, expanded)) = stack.pop() {
            if expanded {
                let best = children[node].iter().map(|&c| tip[c]).max().unwrap_or(node);
                tip[node] = best;
                done[node] = true;
                continue;
            }
            if done[node] {
                continue;
            }
            stack.push((node, true));
            stack.extend(children[node].iter().map(|&c| (c, false)));
        }
    }
    tip
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each event's seq, whether it is on the default branch, and the tip of its branch.
    fn branches_of(s: &Session) -> Vec<(u64, bool, Option<usize>)> {
        describe(s, s.entries.len(), "s1", None)
            .iter()
            .map(|e| (e.seq, e.on_branch, e.leaf))
            .collect()
    }

    fn session(lines: &[&str]) -> Session {
        Session::from_lines(lines)
    }

    #[test]
    fn abandoned_events_get_the_latest_tip_of_their_branch() {
        let s = session(&[
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}"#,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"root"}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"old branch"}}"#,
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03Z","message":{"role":"user","content":"old tip 1"}}"#,
            r#"{"type":"message","id":"d","parentId":"b","timestamp":"2026-01-01T00:00:04Z","message":{"role":"user","content":"old tip 2"}}"#,
            r#"{"type":"message","id":"e","parentId":"a","timestamp":"2026-01-01T00:00:05Z","message":{"role":"user","content":"current"}}"#,
        ]);
        let view = branches_of(&s);
        assert_eq!(
            view,
            vec![
                (1, true, None),
                (2, false, Some(3)),
                (3, false, Some(2)),
                (4, false, Some(3)),
                (5, true, None)
            ]
        );
        // The file as it was before the last line: `d` was the default branch.
        let before = describe(&s, 4, "s1", None);
        assert!(before.iter().all(|e| e.seq != 5));
        assert!(before.iter().find(|e| e.seq == 2).unwrap().on_branch);
    }

    /// The cheap delta of an append, applied to the events as indexed before it, gives exactly
    /// the events of the whole file, at every split of real and branchy sessions.
    #[test]
    fn an_append_delta_equals_the_full_description() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sessions");
        let mut branchy = vec![
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}"#.to_string(),
        ];
        let mut parent = "null".to_string();
        for i in 0..60 {
            // Every 7th entry goes back two steps (a branch); calls and results interleave.
            let id = format!("e{i}");
            let line = match i % 3 {
                0 => format!(
                    r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01Z","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c{i}","name":"ls","arguments":{{}}}}]}}}}"#
                ),
                1 => format!(
                    r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01Z","message":{{"role":"toolResult","toolCallId":"c{}","toolName":"ls","content":[{{"type":"text","text":"out"}}]}}}}"#,
                    i - 1
                ),
                _ => format!(
                    r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01Z","message":{{"role":"user","content":"u{i}"}}}}"#
                ),
            };
            branchy.push(line);
            parent = if i % 7 == 6 {
                format!("\"e{}\"", i - 2)
            } else {
                format!("\"{id}\"")
            };
        }
        let mut sessions = vec![Session::from_lines(&branchy)];
        for name in ["pi-mono-large-session.jsonl", "kuato-pi-session.jsonl"] {
            let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
            sessions.push(Session::from_bytes(bytes));
        }
        let mut fast = 0;
        for s in &sessions {
            let n = s.entries.len();
            let full = describe(s, n, "sid", None);
            for old in (1..n).step_by(1.max(n / 50)) {
                let Some(append) = describe_append(s, old, n, "sid", None) else {
                    continue;
                };
                fast += 1;
                let changed: FxHashSet<u64> = append.changed.iter().map(|e| e.seq).collect();
                let mut merged: Vec<EventDesc> = describe(s, old, "sid", None)
                    .into_iter()
                    .filter(|e| !changed.contains(&e.seq))
                    .chain(append.changed)
                    .chain(append.added)
                    .collect();
                merged.sort_by_key(|e| e.seq);
                assert_eq!(merged, full, "split at {old} of {n}");
            }
        }
        assert!(fast > 10, "the fast path was exercised {fast} times");
    }

    /// Pi keeps the later of two lines with one id: the earlier one is on no branch, and an
    /// entry whose only child it was is a tip of its own.
    #[test]
    fn a_repeated_id_leaves_the_earlier_line_on_no_branch() {
        let s = session(&[
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}"#,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"root"}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"shadowed"}}"#,
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03Z","message":{"role":"user","content":"third"}}"#,
            r#"{"type":"message","id":"b","parentId":"c","timestamp":"2026-01-01T00:00:04Z","message":{"role":"user","content":"again"}}"#,
        ]);
        let view = branches_of(&s);
        assert_eq!(
            view,
            vec![(1, false, Some(0)), (3, true, None), (4, true, None)]
        );
        assert!(describe_append(&s, 3, 4, "s1", None).is_none());
    }

    /// Entries whose parents form a cycle (ids repeated so that the chain closes on itself)
    /// are each their own tip: the cycle is projected once, and each event indexed once.
    #[test]
    fn a_parent_cycle_of_many_entries_is_projected_once() {
        let mut lines = vec![
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}"#.to_string(),
        ];
        let n = 20_000;
        for i in 0..n {
            // e0's parent is the last entry: one cycle of every entry.
            let parent = if i == 0 { n - 1 } else { i - 1 };
            lines.push(format!(
                r#"{{"type":"message","id":"e{i}","parentId":"e{parent}","timestamp":"2026-01-01T00:00:01Z","message":{{"role":"user","content":"turn {i}"}}}}"#
            ));
        }
        lines.push(r#"{"type":"message","id":"tail","parentId":null,"timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"last"}}"#.to_string());
        let s = Session::from_lines(&lines);
        let events = describe(&s, s.entries.len(), "s1", None);
        assert_eq!(events.len(), n + 1);
        let mut seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
        seqs.dedup();
        assert_eq!(seqs.len(), n + 1, "each event once");
        assert_eq!(events.iter().filter(|e| e.on_branch).count(), 1);
    }

    #[test]
    fn boot_blocks_are_not_indexed() {
        let s = session(&[
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}"#,
            r#"{"type":"custom_message","customType":"pi-context/boot","content":"notes","display":false,"id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z"}"#,
            r#"{"type":"custom_message","customType":"other","content":"kept","display":false,"id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02Z"}"#,
        ]);
        let seqs: Vec<u64> = describe(&s, 2, "s1", None).iter().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![2]);
    }
}
