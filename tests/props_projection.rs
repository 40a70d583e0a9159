//! The stored projection (issue 11): a branch projected from the session cache and extended
//! with what was appended must equal a fresh projection of the file, for every file.
//!
//! Each case writes a random session to a file in steps, as Pi would: appends that extend the
//! current branch, branch off an earlier entry, open windows, call tools and return results
//! (paired with calls made steps before, or orphaned), repeat ids, name dangling parents; now and
//! then the file is rewritten in place or truncated to an earlier line, and now and then the
//! first step is long enough for an index of several chunks. After each step a call asks for a
//! branch (mostly the last entry, sometimes another entry or none), through the store, and the
//! answer is compared with a fresh projection of the same session: events, windows, the branch,
//! and every operation (windows, list, search, read). Some calls also compare what the commands
//! answer through the cache (`with_history`: the lazily decoded index, the stored projection,
//! the scan of the mapped file) with what they answer without it.

use std::io::Write;
use std::path::Path;

use pi_context::history::{
    with_history, Branch, Event, EventSource, History, HistoryError, Item, Leaf, ListParams,
    ProjectionStore, RawScan, ReadParams, Role, SearchParams, SessionInput,
};
use pi_context::session::{read_consistently, OpenOptions, Session, SessionError};
use pi_context::wire::to_compact_json;
use proptest::prelude::*;
use serde_json::json;

use crate::common::Rng;

/// The session being written: its lines and ids, so that appends can name real parents.
struct Writer {
    ids: Vec<String>,
    last: Option<String>,
    open_calls: Vec<String>,
    next_id: usize,
    next_call: usize,
}

impl Writer {
    fn new() -> Writer {
        Writer {
            ids: Vec::new(),
            last: None,
            open_calls: Vec::new(),
            next_id: 0,
            next_call: 0,
        }
    }

    fn fresh_id(&mut self, rng: &mut Rng) -> String {
        // Now and then an id that an earlier entry already has, or that an earlier entry
        // named as its (dangling) parent.
        if rng.chance(3) && !self.ids.is_empty() {
            return self.ids[rng.below(self.ids.len())].clone();
        }
        if rng.chance(3) {
            return format!("dangling{}", rng.below(4));
        }
        self.next_id += 1;
        format!("e{}", self.next_id)
    }

    fn parent(&mut self, rng: &mut Rng) -> Option<String> {
        match rng.below(100) {
            0..=79 => self.last.clone(),
            80..=91 if !self.ids.is_empty() => Some(self.ids[rng.below(self.ids.len())].clone()),
            92..=94 => Some(format!("dangling{}", rng.below(4))),
            95..=96 => None,
            _ => self.last.clone(),
        }
    }

    fn entry(&mut self, rng: &mut Rng) -> String {
        let id = self.fresh_id(rng);
        let parent = self.parent(rng);
        let ts = "2026-01-01T00:00:00.000Z";
        let message = |m: serde_json::Value| json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts, "message": m});
        let line = match rng.below(100) {
            0..=24 => message(
                json!({"role": "user", "content": format!("question needle {}", rng.below(50))}),
            ),
            25..=44 => {
                let calls: Vec<serde_json::Value> = (0..rng.below(3))
                    .map(|_| {
                        self.next_call += 1;
                        let call = if rng.chance(15) {
                            format!("c{}", rng.below(self.next_call))
                        } else {
                            format!("c{}", self.next_call)
                        };
                        self.open_calls.push(call.clone());
                        json!({"type": "toolCall", "id": call, "name": "read", "arguments": {"path": "x.md"}})
                    })
                    .collect();
                let mut content =
                    vec![json!({"type": "text", "text": format!("answer hay {}", rng.below(50))})];
                content.extend(calls);
                message(json!({"role": "assistant", "content": content}))
            }
            45..=69 => {
                let call = if !self.open_calls.is_empty() && rng.chance(85) {
                    let i = rng.below(self.open_calls.len());
                    if rng.chance(70) {
                        self.open_calls.remove(i)
                    } else {
                        self.open_calls[i].clone()
                    }
                } else {
                    format!("c{}", rng.below(self.next_call + 2))
                };
                message(
                    json!({"role": "toolResult", "toolCallId": call, "toolName": "read",
                    "content": [{"type": "text", "text": format!("output needle {}", rng.below(9))}]}),
                )
            }
            70..=74 => message(json!({"role": "bashExecution", "command": "ls", "output": "a b"})),
            75..=79 => json!({"type": "custom", "customType": "pi-context/reset-marker",
                "data": {"windowId": format!("w{}", rng.below(1000))},
                "id": id, "parentId": parent, "timestamp": ts}),
            80..=84 => json!({"type": "compaction", "summary": "summary needle",
                "id": id, "parentId": parent, "timestamp": ts}),
            85..=89 => {
                json!({"type": "custom_message", "customType": "note", "content": "context hay",
                "id": id, "parentId": parent, "timestamp": ts})
            }
            90..=93 => json!({"type": "label", "id": id, "parentId": parent, "timestamp": ts}),
            _ => message(json!({"role": "custom", "content": "custom needle"})),
        };
        self.ids.push(id.clone());
        self.last = Some(id);
        line.to_string()
    }
}

/// The end (after the newline) of every line.
fn memchr_ends(bytes: &[u8]) -> Vec<usize> {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .map(|(i, _)| i + 1)
        .collect()
}

fn append(path: &Path, lines: &[String]) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    file.write_all(text.as_bytes()).unwrap();
}

/// What a projection shows, in a form that compares.
fn view(history: &History) -> String {
    let events: Vec<String> = history
        .events()
        .iter()
        .map(|e| {
            format!(
                "{} {} {:?} {} {:?}",
                e.seq,
                e.window,
                e.role,
                e.entry(),
                e.source()
            )
        })
        .collect();
    format!(
        "highest {} branch {:?}\nwindows {}\nevents {:#?}",
        history.highest_seq(),
        history.branch(),
        to_compact_json(&history.windows()),
        events
    )
}

/// Every operation's answer, as JSON.
fn answers(history: &History) -> Vec<String> {
    let budget = 1 << 20;
    let mut out = vec![to_compact_json(&history.windows_result(budget))];
    let lists = [
        ListParams::default(),
        ListParams {
            roles: Some(Role::ALL.to_vec()),
            limit: 1000,
            ..ListParams::default()
        },
        ListParams {
            after: Some(3),
            limit: 5,
            ..ListParams::default()
        },
        ListParams {
            window_id: history.windows().last().map(|w| w.window_id.clone()),
            ..ListParams::default()
        },
    ];
    for list in &lists {
        out.push(format!(
            "{:?}",
            history.list(list, budget).map(|p| to_compact_json(&p))
        ));
        let search = SearchParams {
            queries: vec!["needle".into(), "read".into()],
            list: list.clone(),
        };
        out.push(format!(
            "{:?}",
            history.search(&search, budget).map(|p| {
                p.items
                    .iter()
                    .map(|i| match i {
                        Item::Row(r) => r.seq,
                        Item::Fold(f) => f.first_seq,
                    })
                    .collect::<Vec<_>>()
            })
        ));
    }
    let step = (history.highest_seq() / 25).max(1) as usize;
    for seq in (1..=history.highest_seq() + 1).step_by(step) {
        out.push(format!(
            "{:?}",
            history
                .read(&ReadParams::new(seq), budget)
                .map(|r| r.window.render())
        ));
    }
    out
}

/// What the commands answer: the session read by [`with_history`] (entries decoded from the
/// index as they are reached, the stored projection, the raw scan of the file for searches).
fn command_answers(path: &Path, options: &OpenOptions, leaf: &Leaf) -> Vec<String> {
    let budget = 1 << 20;
    let queries: [&[&str]; 1] = [&["NEEDLE 1", "read", "hay 2", "x.md"]];
    let mut out = Vec::new();
    for query in queries {
        let queries: Vec<String> = query.iter().map(|q| q.to_string()).collect();
        let branch = Branch {
            leaf,
            session_id: Some("fallback"),
            masking: pi_context::redact::Masking::Off,
        };
        let input = SessionInput::File { path, options };
        let answer = with_history(
            input,
            branch,
            Some(&queries),
            |history: &History, scan: Option<&RawScan>| {
                let mut answers = Vec::new();
                for list in [
                    ListParams::default(),
                    ListParams {
                        roles: Some(Role::ALL.to_vec()),
                        limit: 1000,
                        ..ListParams::default()
                    },
                ] {
                    let search = SearchParams {
                        queries: queries.clone(),
                        list: list.clone(),
                    };
                    answers.push(format!(
                        "{:?}",
                        history
                            .search_scanned(&search, budget, scan)
                            .map(|p| to_compact_json(&p))
                    ));
                    answers.push(format!(
                        "{:?}",
                        history.list(&list, budget).map(|p| to_compact_json(&p))
                    ));
                }
                for seq in [1, history.highest_seq() / 2, history.highest_seq()] {
                    answers.push(format!(
                        "{:?}",
                        history
                            .read(&ReadParams::new(seq.max(1)), budget)
                            .map(|r| r.window.render())
                    ));
                }
                Ok::<_, HistoryError>(answers)
            },
        );
        match answer {
            Ok(answers) => out.extend(answers),
            Err(e) => out.push(e.code().to_string()),
        }
    }
    out
}

/// One call: the branch through the store, compared with a fresh projection.
/// Returns whether the store's projection was used.
fn check_call(path: &Path, options: &OpenOptions, leaf: &Leaf) -> Result<bool, TestCaseError> {
    check_call_and_commands(path, options, leaf, false)
}

/// [`check_call`], and with `commands` also what the commands answer through the cache,
/// compared with what they answer without it (a search compiles its queries, so not on every
/// call).
fn check_call_and_commands(
    path: &Path,
    options: &OpenOptions,
    leaf: &Leaf,
    commands: bool,
) -> Result<bool, TestCaseError> {
    let (cached, fresh) = if commands {
        let cached = command_answers(path, options, leaf);
        (cached, command_answers(path, &OpenOptions::default(), leaf))
    } else {
        (Vec::new(), Vec::new())
    };
    prop_assert!(
        cached == fresh,
        "the commands answer differently with the cache for {leaf:?}:\n{cached:#?}\nwithout:\n{fresh:#?}"
    );
    let outcome = read_consistently(path, |file| {
        let session = file.session(options);
        let store = ProjectionStore::for_file(file, options);
        // First, before the store may be saved again: what a recall refresh reads of an append.
        check_appended(&session, store.as_ref());
        let stored = History::project_stored(&session, store.as_ref(), leaf, Some("fallback"));
        let fresh = History::project(&session, leaf, Some("fallback"));
        let result = match (stored, fresh) {
            (Ok(stored), Ok(fresh)) => {
                let same_view = view(&stored) == view(&fresh);
                let same_answers = answers(&stored) == answers(&fresh);
                Some((
                    same_view,
                    same_answers,
                    view(&stored),
                    view(&fresh),
                    stored.from_store(),
                ))
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.code(), b.code());
                None
            }
            (a, b) => panic!("stored {:?} vs fresh {:?}", a.is_ok(), b.is_ok()),
        };
        Ok::<_, SessionError>(result)
    })
    .unwrap();
    match outcome {
        Some((same_view, same_answers, stored, fresh, from_store)) => {
            prop_assert!(same_view, "stored:\n{stored}\nfresh:\n{fresh}");
            prop_assert!(same_answers, "the operations differ for {leaf:?}");
            Ok(from_store)
        }
        None => Ok(false),
    }
}

/// The projection a recall refresh reads of an append (the last entry's branch) holds, of a
/// fresh projection's events, every appended one and every call an appended result completes,
/// each as the fresh projection has it, and nothing else; one projected afresh holds them all.
fn check_appended(session: &Session, store: Option<&ProjectionStore>) {
    let entries = session.entries.len();
    let leaf = entries.checked_sub(1);
    let lean = History::project_appended_stored(session, store, entries, Some("fallback"));
    let fresh = History::project_prefix(session, entries, leaf, Some("fallback"));
    assert_eq!(lean.branch(), fresh.branch());
    let describe = |h: &History, e: &Event| {
        format!(
            "{} {} {:?} {} {:?}",
            e.seq,
            h.window_id(e),
            e.role,
            e.entry(),
            e.source()
        )
    };
    let lean_events: Vec<String> = lean.events().iter().map(|e| describe(&lean, e)).collect();
    let Some(stored) = lean.stored_entries() else {
        let all: Vec<String> = fresh.events().iter().map(|e| describe(&fresh, e)).collect();
        assert_eq!(lean_events, all, "projected afresh");
        return;
    };
    let fresh_events: Vec<String> = fresh.events().iter().map(|e| describe(&fresh, e)).collect();
    for event in &lean_events {
        assert!(fresh_events.contains(event), "{event} is not a fresh event");
    }
    for event in fresh.events() {
        let completed =
            matches!(event.source(), EventSource::Call { result: Some(r), .. } if *r >= stored);
        if event.entry() >= stored || completed {
            let event = describe(&fresh, event);
            assert!(
                lean_events.contains(&event),
                "{event} is missing (stored {stored})"
            );
        }
    }
}

/// Runs one random case; returns how many calls there were and how many used the store.
fn run_case(seed: u64) -> Result<(usize, usize), TestCaseError> {
    let mut rng = Rng::new(seed | 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let options = OpenOptions {
        cache_dir: Some(dir.path().join("cache")),
        cache_min_bytes: 0,
    };
    let header = if rng.chance(90) {
        r#"{"type":"session","version":3,"id":"sess0001","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}"#
    } else {
        r#"{"type":"session","timestamp":"2026-01-01T00:00:00Z"}"#
    };
    std::fs::write(&path, format!("{header}\n")).unwrap();
    let mut writer = Writer::new();
    let (mut calls, mut from_store) = (0, 0);
    for step in 0..10 {
        if rng.chance(5) {
            // Rewritten in place: the same header, other entries.
            let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            file.set_len(0).unwrap();
            drop(file);
            std::fs::write(&path, format!("{header}\n")).unwrap();
            writer = Writer::new();
        } else if rng.chance(5) {
            // Truncated to an earlier line: what the cache covered is gone (later entries may
            // name the lost ones as parents, which then dangle).
            let bytes = std::fs::read(&path).unwrap();
            let ends: Vec<usize> = memchr_ends(&bytes);
            let keep = ends[rng.below(ends.len())];
            let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            file.set_len(keep as u64).unwrap();
        }
        // Now and then a first step of many entries: an index of several chunks.
        let count = if step == 0 && rng.chance(20) {
            150 + rng.below(300)
        } else {
            1 + rng.below(12)
        };
        let lines: Vec<String> = (0..count).map(|_| writer.entry(&mut rng)).collect();
        append(&path, &lines);
        for _ in 0..1 + rng.below(2) {
            let leaf = match rng.below(10) {
                0..=6 => Leaf::Last,
                7 => Leaf::None,
                _ if writer.ids.is_empty() => Leaf::Last,
                _ => Leaf::Id(writer.ids[rng.below(writer.ids.len())].clone()),
            };
            calls += 1;
            let commands = rng.chance(30);
            from_store += usize::from(check_call_and_commands(&path, &options, &leaf, commands)?);
        }
    }
    Ok((calls, from_store))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_stored_projection_extended_equals_a_fresh_one(seed in any::<u64>()) {
        run_case(seed)?;
    }
}

/// The comparison above means something only if the store is used: most calls (the last entry
/// asked for again, after appends to the same branch) extend a stored projection.
#[test]
fn most_calls_extend_a_stored_projection() {
    let (mut calls, mut from_store) = (0, 0);
    for seed in 1..=20u64 {
        let (c, s) = run_case(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)).unwrap();
        calls += c;
        from_store += s;
    }
    assert!(
        from_store * 3 > calls,
        "{from_store} of {calls} calls used the store"
    );
}

/// The first call on a session stores its projection.
#[test]
fn the_first_call_stores_the_projection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let options = OpenOptions {
        cache_dir: Some(dir.path().join("cache")),
        cache_min_bytes: 0,
    };
    std::fs::write(
        &path,
        "{\"type\":\"session\",\"version\":3,\"id\":\"s1\"}\n\
         {\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    )
    .unwrap();
    check_call(&path, &options, &Leaf::Last).unwrap();
    let stored: Vec<_> = std::fs::read_dir(dir.path().join("cache"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "proj"))
        .collect();
    assert_eq!(stored.len(), 1, "one stored projection");
}

/// Writes `lines` after a header, calls once (storing the projection), appends `more`, and
/// checks the next call against a fresh projection.
fn store_then_append(lines: &[&str], more: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let options = OpenOptions {
        cache_dir: Some(dir.path().join("cache")),
        cache_min_bytes: 0,
    };
    let mut text = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s1\"}\n");
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    check_call(&path, &options, &Leaf::Last).unwrap();
    append(
        &path,
        &more.iter().map(|l| l.to_string()).collect::<Vec<_>>(),
    );
    check_call(&path, &options, &Leaf::Last).unwrap();
}

fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent,
        "message": {"role": "user", "content": text}})
    .to_string()
}

/// The stored branch starts at an entry whose parent did not exist; an appended entry with that
/// id becomes its parent, so the branch grows at its root too.
#[test]
fn an_appended_entry_can_become_the_parent_of_the_stored_root() {
    let (a, b) = (user("a", Some("ghost"), "one"), user("b", Some("a"), "two"));
    let (ghost, d) = (user("ghost", None, "zero"), user("d", Some("b"), "three"));
    store_then_append(&[&a, &b], &[&ghost, &d]);
}

/// An appended entry repeats the id of a stored one: the later line wins, and parents that
/// named the id now name the appended entry.
#[test]
fn an_appended_entry_can_take_the_id_of_a_stored_one() {
    let (a, b, c) = (
        user("a", None, "one"),
        user("b", Some("a"), "two"),
        user("c", Some("b"), "three"),
    );
    let (b2, d) = (user("b", None, "other two"), user("d", Some("c"), "four"));
    store_then_append(&[&a, &b, &c], &[&b2, &d]);
}

/// A projection extended and stored again (once enough was appended) is the same file a fresh
/// projection of the session stores: its id hashes are the stored ones and the appended
/// entries' (carried over rather than computed again by decoding every entry).
#[test]
fn a_projection_stored_again_after_an_append_is_the_one_a_fresh_projection_stores() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let options = OpenOptions {
        cache_dir: Some(dir.path().join("cache")),
        cache_min_bytes: 0,
    };
    let (a, b) = (user("a", None, "one"), user("b", Some("a"), "two"));
    std::fs::write(
        &path,
        format!("{{\"type\":\"session\",\"version\":3,\"id\":\"s1\"}}\n{a}\n{b}\n"),
    )
    .unwrap();
    check_call(&path, &options, &Leaf::Last).unwrap();
    let big = user("c", Some("b"), &"long output ".repeat(40_000));
    append(&path, &[big, user("d", Some("c"), "four")]);
    check_call(&path, &options, &Leaf::Last).unwrap();
    let stored_file = || {
        std::fs::read_dir(dir.path().join("cache"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "proj"))
            .expect("a stored projection")
    };
    let extended = std::fs::read(stored_file()).unwrap();
    std::fs::remove_file(stored_file()).unwrap();
    check_call(&path, &options, &Leaf::Last).unwrap();
    let fresh = std::fs::read(stored_file()).unwrap();
    assert!(extended == fresh, "the stored projections differ");
}

/// A Claude Code record (the stored projection is the same for every harness).
fn claude(kind: &str, uuid: &str, parent: Option<&str>, text: &str) -> String {
    json!({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s-claude",
        "message": {"role": kind, "content": [{"type": "text", "text": text}]}})
    .to_string()
}

/// A compaction boundary whose logical parent is `logical`.
fn boundary(uuid: &str, logical: &str) -> String {
    json!({"type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": null,
        "logicalParentUuid": logical, "sessionId": "s-claude"})
    .to_string()
}

/// Writes the Claude Code records `lines`, calls once (storing the projection), appends
/// `more`, and checks the next call against a fresh projection; returns whether it extended
/// the stored one.
fn claude_store_then_append(lines: &[String], more: &[String]) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("claude.jsonl");
    let options = OpenOptions {
        cache_dir: Some(dir.path().join("cache")),
        cache_min_bytes: 0,
    };
    std::fs::write(&path, "").unwrap();
    append(&path, lines);
    check_call(&path, &options, &Leaf::Last).unwrap();
    append(&path, more);
    let extended = read_consistently(&path, |file| {
        let session = file.session(&options);
        let store = ProjectionStore::for_file(file, &options);
        let history = History::project_stored(&session, store.as_ref(), &Leaf::Last, None);
        Ok::<_, SessionError>(history.unwrap().from_store())
    })
    .unwrap();
    check_call_and_commands(&path, &options, &Leaf::Last, true).unwrap();
    extended
}

/// An appended compaction whose logical parent was never written hangs under the stored leaf,
/// the record before it: the stored branch grows.
#[test]
fn an_appended_compaction_without_its_logical_parent_extends_the_stored_branch() {
    let stored = [
        claude("user", "u1", None, "question needle"),
        claude("assistant", "a1", Some("u1"), "answer hay"),
    ];
    let appended = [
        boundary("cb1", "never-written"),
        claude("user", "cs1", Some("cb1"), "summary needle"),
        claude("user", "u2", Some("cs1"), "again"),
    ];
    assert!(claude_store_then_append(&stored, &appended));
}

/// A stored compaction without its logical parent keeps the record before it as its parent
/// when a record with that uuid is appended after it.
#[test]
fn a_record_taking_a_stored_compactions_missing_parent_moves_nothing() {
    let stored = [
        claude("user", "u1", None, "question needle"),
        claude("assistant", "a1", Some("u1"), "answer hay"),
        boundary("cb1", "late"),
        claude("user", "cs1", Some("cb1"), "summary needle"),
    ];
    let appended = [
        claude("user", "late", Some("cs1"), "late needle"),
        claude("assistant", "a2", Some("late"), "after hay"),
    ];
    assert!(claude_store_then_append(&stored, &appended));
}

/// An appended compaction whose logical parent is a stored entry other than the leaf starts
/// another branch: projected afresh, and equal to a fresh projection.
#[test]
fn an_appended_compaction_under_an_earlier_entry_is_projected_afresh() {
    let stored = [
        claude("user", "u1", None, "question needle"),
        claude("assistant", "a1", Some("u1"), "answer hay"),
    ];
    let appended = [
        boundary("cb1", "u1"),
        claude("user", "cs1", Some("cb1"), "summary needle"),
    ];
    assert!(!claude_store_then_append(&stored, &appended));
}

fn calls(id: &str, parent: &str, call_ids: &[&str]) -> String {
    let content: Vec<serde_json::Value> = call_ids
        .iter()
        .map(|c| json!({"type": "toolCall", "id": c, "name": "read", "arguments": {}}))
        .collect();
    json!({"type": "message", "id": id, "parentId": parent,
        "message": {"role": "assistant", "content": content}})
    .to_string()
}

fn result(id: &str, parent: &str, call_id: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent,
        "message": {"role": "toolResult", "toolCallId": call_id, "toolName": "read",
            "content": [{"type": "text", "text": format!("output needle {id}")}]}})
    .to_string()
}

/// Calls sharing one id, some open when the projection is stored: the open ones take the
/// appended results first, in seq order, then the appended calls take what is left after them.
#[test]
fn calls_sharing_an_id_pair_the_same_when_a_stored_projection_is_extended() {
    let stored = [
        user("u", None, "go"),
        result("r0", "u", "c"),
        calls("a1", "r0", &["c", "c"]),
        result("r1", "a1", "c"),
        calls("a2", "r1", &["c"]),
    ];
    let appended = [
        result("r2", "a2", "c"),
        calls("a3", "r2", &["c", "c"]),
        result("r3", "a3", "c"),
        result("r4", "r3", "c"),
        result("r5", "r4", "c"),
        result("r6", "r5", "c"),
    ];
    let stored: Vec<&str> = stored.iter().map(String::as_str).collect();
    let appended: Vec<&str> = appended.iter().map(String::as_str).collect();
    store_then_append(&stored, &appended);
}
