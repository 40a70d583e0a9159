//! The events a session contributes to the index: every event of the default branch (root →
//! last entry in file order), plus the events that exist only on abandoned branches, each
//! projected on its own branch, with the same seqs `history` gives.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::history::{EventSource, History, Role};
use crate::session::{EntryKind, Session};

/// Custom messages that repeat notes and protocol rather than conversation: not indexed.
const NOT_INDEXED: [&str; 2] = ["pi-context/boot", "pi-context/continuation"];

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
/// by seq.
pub fn describe(session: &Session, entries: usize, session_id: &str) -> Vec<EventDesc> {
    let entries = entries.min(session.entries.len());
    if entries == 0 {
        return Vec::new();
    }
    let default = History::project_prefix(session, entries, Some(entries - 1), Some(session_id));
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
    let parents = parents(session, entries);
    mark_branch_entries(&parents, &mut on_default);
    let tips = tips(&parents);
    // Abandoned entries grouped by the tip of their branch, the latest tip first: the first
    // branch that shows an event is the one of the last childless entry descending from it.
    let mut abandoned_tips: Vec<usize> = (0..entries)
        .filter(|&i| !on_default[i] && yields_events(session, i))
        .map(|i| tips[i])
        .collect::<FxHashSet<usize>>()
        .into_iter()
        .collect();
    abandoned_tips.sort_unstable_by(|a, b| b.cmp(a));
    for tip in abandoned_tips {
        let path = path_to(&parents, tip);
        let branch = History::project_path(session, entries, path, Some(session_id));
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

/// Whether an entry's event belongs in the index (boot blocks and continuations do not).
fn indexed(session: &Session, entry: usize) -> bool {
    match &session.entries[entry].kind {
        EntryKind::CustomMessage {
            custom_type: Some(t),
            ..
        } => !NOT_INDEXED.contains(&session.str(*t).as_ref()),
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

/// Each entry's parent index among the first `entries` (a repeated id: the later line wins).
fn parents(session: &Session, entries: usize) -> Vec<Option<usize>> {
    let slice = &session.entries[..entries];
    let mut ids: FxHashMap<std::borrow::Cow<'_, str>, usize> = FxHashMap::default();
    ids.reserve(entries);
    for (i, entry) in slice.iter().enumerate() {
        ids.insert(session.entry_id(&entry.id), i);
    }
    slice
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            entry
                .parent_id
                .as_ref()
                .and_then(|p| ids.get(session.entry_id(p).as_ref()).copied())
                .filter(|&p| p != i)
        })
        .collect()
}

/// For each entry, the last entry in file order that has no children and descends from it
/// (itself when it has none). Entries caught in a parent cycle are their own tip.
fn tips(parents: &[Option<usize>]) -> Vec<usize> {
    let entries = parents.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); entries];
    for (i, parent) in parents.iter().enumerate() {
        if let Some(p) = parent {
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
        let events = describe(&s, s.entries.len(), "s1");
        let view: Vec<(u64, bool, Option<usize>)> = events
            .iter()
            .map(|e| (e.seq, e.on_branch, e.leaf))
            .collect();
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
        let before = describe(&s, 4, "s1");
        assert!(before.iter().all(|e| e.seq != 5));
        assert!(before.iter().find(|e| e.seq == 2).unwrap().on_branch);
    }

    #[test]
    fn boot_blocks_are_not_indexed() {
        let s = session(&[
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}"#,
            r#"{"type":"custom_message","customType":"pi-context/boot","content":"notes","display":false,"id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z"}"#,
            r#"{"type":"custom_message","customType":"other","content":"kept","display":false,"id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02Z"}"#,
        ]);
        let seqs: Vec<u64> = describe(&s, 2, "s1").iter().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![2]);
    }
}
