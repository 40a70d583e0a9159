//! Reading session files: real fixtures, malformed and truncated lines, missing files, leaves,
//! v1/v2 files, repeated ids, cycles, seq allocation and the in-memory fallback (contract §2.1,
//! §2.2, §2.7; history.md §1).

use crate::common;

use std::path::{Path, PathBuf};

use common::session::{
    ok_json, parse_block, read_text, refusal, request, request_at, rows, seq_contents, seqs,
    SessionBuilder,
};
use common::{fixture, Run, TestEnv};
use pi_context::history::{History, HistoryError, Leaf, ReadParams, Role};
use pi_context::session::Session;
use pi_context::wire::RESULT_BUDGET_BYTES;
use serde_json::{json, Value};

const ALL_ROLES: [&str; 4] = ["user", "assistant", "tool", "context"];

fn session_fixture(name: &str) -> PathBuf {
    fixture(&format!("sessions/{name}"))
}

fn tool(env: &TestEnv, name: &str, path: &Path, params: Value) -> Value {
    env.tool(name, &request(path, params))
}

fn role_counts(history: &History) -> [usize; 4] {
    let mut counts = [0; 4];
    for event in history.events() {
        counts[Role::ALL.iter().position(|r| *r == event.role).unwrap()] += 1;
    }
    counts
}

/// Every seq of the file reads (none is on another branch): the branch is the whole file.
fn assert_linear(history: &History) {
    for seq in 1..=history.highest_seq() {
        match history.read(&ReadParams::new(seq), RESULT_BUDGET_BYTES) {
            Ok(_) => {}
            Err(e) => panic!("seq {seq}: {e}"),
        }
    }
}

// ----- real sessions ---------------------------------------------------------------------------

#[test]
fn pi_mono_large_session_v1_projects_on_one_linear_branch() {
    let path = session_fixture("pi-mono-large-session.jsonl");
    let session = Session::open(&path).unwrap();
    assert_eq!(session.skipped_lines, 0);
    assert_eq!(session.header.as_ref().unwrap().version, None);
    // Synthetic ids from line numbers, chained linearly.
    assert_eq!(session.entry_id(&session.entries[0].id), "line:2");
    assert_eq!(session.entries[0].parent_id, None);
    assert_eq!(
        session.entries[1]
            .parent_id
            .map(|p| session.entry_id(&p).into_owned()),
        Some("line:2".to_string())
    );
    let history = History::project(&session, &Leaf::Last, None).unwrap();
    assert_eq!(history.highest_seq(), 1305);
    assert_eq!(history.events().len(), 932);
    // user, assistant, tool (391 calls: 373 paired, 18 pending), context.
    assert_eq!(role_counts(&history), [88, 453, 391, 0]);
    assert_eq!(history.windows().len(), 1);
    assert_linear(&history);

    let env = TestEnv::new();
    let windows = ok_json(&tool(&env, "history_windows", &path, json!({})));
    assert_eq!(
        windows["session_id"],
        "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"
    );
    assert_eq!(windows["windows"][0]["window_id"], "pcw:d703a1a9:root");
    assert_eq!(windows["windows"][0]["item_count"], 932);
    assert_eq!(windows["windows"][0]["first_seq"], 1);
    let page = ok_json(&tool(&env, "history_list", &path, json!({})));
    assert!(!seqs(&page).is_empty());
    let hits = ok_json(&tool(
        &env,
        "history_search",
        &path,
        json!({"query": "tui-renderer"}),
    ));
    assert!(!seqs(&hits).is_empty());
    let error = refusal(&tool(&env, "history_read", &path, json!({"seq": 1306})));
    assert!(error["message"].as_str().unwrap().contains("run 1..1305"));
}

#[test]
fn pi_mono_before_compaction_v1_compactions_become_context_events() {
    let path = session_fixture("pi-mono-before-compaction.jsonl");
    let session = Session::open(&path).unwrap();
    assert_eq!(session.skipped_lines, 0);
    let history = History::project(&session, &Leaf::Last, None).unwrap();
    assert_eq!(history.highest_seq(), 1446);
    assert_eq!(history.events().len(), 998);
    // 454 calls + 3 bash executions are tool events; the 2 v1 compactions are context events.
    assert_eq!(role_counts(&history), [55, 484, 457, 2]);
    // Native compactions open no window.
    assert_eq!(history.windows().len(), 1);
    assert_linear(&history);

    let env = TestEnv::new();
    let context = ok_json(&tool(
        &env,
        "history_list",
        &path,
        json!({"roles": ["context"], "max_chars_per_item": 40}),
    ));
    let rows = rows(&context);
    assert_eq!(rows.len(), 2);
    let heading: String = "# Context Checkpoint: Coding Agent Refactoring"
        .chars()
        .take(40)
        .collect();
    for row in &rows {
        assert_eq!(row["content"], heading);
        assert_eq!(row["truncated"], true);
    }
    // Everything before a compaction stays listed and readable.
    let first = parse_block(&read_text(&tool(
        &env,
        "history_read",
        &path,
        json!({"seq": 1}),
    )));
    assert!(
        first
            .content
            .starts_with("alright, read @packages/coding-agent/src/main.ts"),
        "{}",
        first.content
    );
    let bash = ok_json(&tool(
        &env,
        "history_list",
        &path,
        json!({"roles": ["tool"], "limit": 500}),
    ));
    assert!(common::session::rows(&bash).iter().any(|r| r["content"]
        .as_str()
        .unwrap()
        .starts_with("bash {\"command\":")));
}

#[test]
fn episodic_memory_v3_tree_hides_thinking_and_folds_tools() {
    let env = TestEnv::new();
    let path = session_fixture("episodic-memory-pi-session.jsonl");
    let windows = ok_json(&tool(&env, "history_windows", &path, json!({})));
    assert_eq!(
        windows,
        json!({"session_id": "test-pi-session-001", "windows": [
            {"window_id": "pcw:test-pi-:root", "created_at": null, "first_seq": 1, "last_seq": 10, "item_count": 8}
        ]})
    );
    let page = ok_json(&tool(&env, "history_list", &path, json!({})));
    assert_eq!(seqs(&page), [1, 2, 5, 6, 10]);
    assert_eq!(
        common::session::folds(&page),
        [
            json!({"folded": true, "first_seq": 3, "last_seq": 3, "count": 1, "tools": {"bash": 1}}),
            json!({"folded": true, "first_seq": 8, "last_seq": 8, "count": 1, "tools": {"read": 1}}),
        ]
    );
    let thinking = ok_json(&tool(
        &env,
        "history_search",
        &path,
        json!({"query": "Let me explore the project structure"}),
    ));
    assert!(seqs(&thinking).is_empty());
    let block = parse_block(&read_text(&tool(
        &env,
        "history_read",
        &path,
        json!({"seq": 9}),
    )));
    assert_eq!(block.identity[0].1, "8");
    assert_eq!(
        block.content,
        "read {\"path\":\"./src/main.ts\"}\n--- output ---\nimport { greet } from './utils';\n\nconsole.log(greet('world'));"
    );
}

/// The raw `arguments` JSON text of the tool call named `name` in a file.
fn raw_arguments(text: &str, name: &str) -> String {
    let at = text
        .find(&format!("\"name\":\"{name}\",\"arguments\":"))
        .expect("call in file");
    let rest = &text[at..];
    let rest = &rest[rest.find("\"arguments\":").unwrap() + "\"arguments\":".len()..];
    let mut de = serde_json::Deserializer::from_str(rest);
    let raw: &serde_json::value::RawValue =
        serde::Deserialize::deserialize(&mut de).expect("raw arguments");
    raw.get().to_string()
}

#[test]
fn kuato_dangling_parent_ends_the_branch_and_the_pending_call_has_no_output() {
    let env = TestEnv::new();
    let path = session_fixture("kuato-pi-session.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let session = Session::open(&path).unwrap();
    assert_eq!(session.entries.len(), 5);
    let history = History::project(&session, &Leaf::Last, None).unwrap();
    let events: Vec<(u64, Role)> = history.events().iter().map(|e| (e.seq, e.role)).collect();
    assert_eq!(
        events,
        [
            (1, Role::User),
            (2, Role::Assistant),
            (3, Role::Tool),
            (5, Role::Assistant),
            (6, Role::Tool)
        ]
    );

    let windows = ok_json(&tool(&env, "history_windows", &path, json!({})));
    assert_eq!(
        windows["windows"],
        json!([{"window_id": "pcw:b486ac6d:root", "created_at": null, "first_seq": 1, "last_seq": 6, "item_count": 5}])
    );
    // The pending write: its document is the call alone, arguments as written.
    let block = parse_block(&read_text(&tool(
        &env,
        "history_read",
        &path,
        json!({"seq": 6, "limit_chars": 50_000}),
    )));
    assert_eq!(
        block.content,
        format!("write {}", raw_arguments(&text, "write"))
    );
    assert!(!block.content.contains("--- output ---"));
    // The paired bash call, read through its result's seq.
    let block = parse_block(&read_text(&tool(
        &env,
        "history_read",
        &path,
        json!({"seq": 4}),
    )));
    assert_eq!(block.identity[0].1, "3");
    assert_eq!(
        block.content,
        format!(
            "bash {}\n--- output ---\nsrc/monitor.ts\npackage.json\nREADME.md",
            raw_arguments(&text, "bash")
        )
    );

    // The model_change (the only root) is not on the branch: as a leaf it is a branch of its own.
    let alone = ok_json(&env.tool(
        "history_windows",
        &request_at(&path, Some("1480e831"), json!({})),
    ));
    assert_eq!(alone["windows"][0]["item_count"], 0);
}

#[test]
fn a_dangling_parent_leaves_earlier_entries_off_the_branch() {
    // The kuato file with its model_change replaced by a user message: that message takes seq 1
    // and is not on the branch, because the walk stops at the dangling parent.
    let env = TestEnv::new();
    let text = std::fs::read_to_string(session_fixture("kuato-pi-session.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[1] = r#"{"type":"message","id":"1480e831","parentId":null,"timestamp":"2024-02-20T15:30:01.000Z","message":{"role":"user","content":"OFF-BRANCH ROOT","timestamp":1}}"#.into();
    let path = env.write("kuato-variant.jsonl", &(lines.join("\n") + "\n"));
    let response = tool(&env, "history_read", &path, json!({"seq": 1}));
    assert_eq!(refusal(&response)["code"], "not_on_branch");
    assert!(!response.to_string().contains("OFF-BRANCH"));
    let windows = ok_json(&tool(&env, "history_windows", &path, json!({})));
    assert_eq!(windows["windows"][0]["first_seq"], 2);
    assert_eq!(windows["windows"][0]["item_count"], 5);
}

#[test]
fn every_fixture_answers_every_tool_within_the_budget() {
    let env = TestEnv::new();
    for name in [
        "pi-mono-large-session.jsonl",
        "pi-mono-before-compaction.jsonl",
        "episodic-memory-pi-session.jsonl",
        "kuato-pi-session.jsonl",
    ] {
        let path = session_fixture(name);
        // The harness checks the 32 KiB budget of every response.
        ok_json(&tool(&env, "history_windows", &path, json!({})));
        let list = ok_json(&tool(
            &env,
            "history_list",
            &path,
            json!({"roles": ALL_ROLES, "limit": 1000}),
        ));
        assert!(!seqs(&list).is_empty(), "{name}");
        ok_json(&tool(
            &env,
            "history_list",
            &path,
            json!({"max_chars_per_item": 50_000}),
        ));
        ok_json(&tool(
            &env,
            "history_search",
            &path,
            json!({"query": ["e", "the"], "limit": 1000}),
        ));
        let first = seqs(&list)[0];
        read_text(&tool(
            &env,
            "history_read",
            &path,
            json!({"seq": first, "limit_chars": 50_000}),
        ));
    }
}

// ----- malformed files --------------------------------------------------------------------------

fn good_session() -> SessionBuilder {
    let mut s = SessionBuilder::new();
    s.user("one");
    s.assistant("two");
    s
}

#[test]
fn malformed_lines_are_skipped_and_counted() {
    let env = TestEnv::new();
    let mut s = good_session();
    for bad in [
        "not json",
        "[1,2,3]",
        "42",
        "\"a string\"",
        "null",
        r#"{"type":"message","id":"nan","parentId":null,"message":{"role":"user","content":"x","n":NaN}}"#,
        r#"{"type":"message","id":"inf","parentId":null,"message":{"role":"user","content":"x","n":Infinity}}"#,
        "{\"type\":\"message\"",
    ] {
        s.raw_line(bad);
    }
    s.raw_line("");
    s.raw_line("   ");
    s.user("three");
    let mut bytes = s.text().into_bytes();
    // A line that is not UTF-8, then Pi's half-written last line.
    bytes.extend_from_slice(b"{\"type\":\"message\",\"id\":\"\xff\xfe\"}\n");
    bytes.extend_from_slice(
        br#"{"type":"message","id":"half","parentId":"x","message":{"role":"user","cont"#,
    );
    let path = env.work().join("malformed.jsonl");
    std::fs::write(&path, bytes).unwrap();

    let page = ok_json(&tool(&env, "history_list", &path, json!({})));
    assert_eq!(
        seq_contents(&page),
        [(1, "one".into()), (2, "two".into()), (3, "three".into())]
    );
    assert_eq!(page["skipped_lines"], 10);
    let windows = ok_json(&tool(&env, "history_windows", &path, json!({})));
    assert_eq!(windows["skipped_lines"], 10);
    assert_eq!(windows["windows"][0]["item_count"], 3);
    let search = ok_json(&tool(
        &env,
        "history_search",
        &path,
        json!({"query": "three"}),
    ));
    assert_eq!(
        (seqs(&search), search["skipped_lines"].clone()),
        (vec![3], json!(10))
    );
    assert_eq!(
        parse_block(&read_text(&tool(
            &env,
            "history_read",
            &path,
            json!({"seq": 3})
        )))
        .content,
        "three"
    );
}

#[test]
fn a_clean_file_reports_no_skipped_lines() {
    let env = TestEnv::new();
    let path = good_session().write_to(env.work().join("clean.jsonl"));
    let page = ok_json(&tool(&env, "history_list", &path, json!({})));
    assert!(page.get("skipped_lines").is_none(), "{page}");
}

#[test]
fn a_truncated_last_line_is_skipped_while_pi_appends() {
    let env = TestEnv::new();
    let s = good_session();
    let mut next = SessionBuilder::new();
    next.user("one");
    next.assistant("two");
    next.user("being written");
    let full_line = next.lines().last().unwrap().clone();
    let path = env.work().join("appending.jsonl");
    for cut in [1, full_line.len() / 2, full_line.len() - 1] {
        std::fs::write(&path, format!("{}{}", s.text(), &full_line[..cut])).unwrap();
        let page = ok_json(&tool(&env, "history_list", &path, json!({})));
        assert_eq!(seqs(&page), [1, 2], "cut at {cut}");
        assert_eq!(page["skipped_lines"], 1);
    }
    // Once the line is complete it is read, newline or not.
    std::fs::write(&path, format!("{}{}", s.text(), full_line)).unwrap();
    let page = ok_json(&tool(&env, "history_list", &path, json!({})));
    assert_eq!(seqs(&page), [1, 2, 3]);
    assert!(page.get("skipped_lines").is_none());
}

#[test]
fn a_missing_file_is_an_empty_session() {
    let env = TestEnv::new();
    let path = env.work().join("not-yet-created.jsonl");
    let context = |params: Value| json!({"params": params, "context": {"session_file": path.to_str().unwrap(), "leaf_id": null, "session_id": "abcdef12-3456"}});
    let windows = ok_json(&env.tool("history_windows", &context(json!({}))));
    assert_eq!(
        windows,
        json!({"session_id": "abcdef12-3456", "windows": [
            {"window_id": "pcw:abcdef12:root", "created_at": null, "first_seq": null, "last_seq": null, "item_count": 0}
        ]})
    );
    let page = ok_json(&env.tool("history_list", &context(json!({}))));
    assert_eq!(
        page,
        json!({"items": [], "older_before": null, "newer_after": null})
    );
    let page = ok_json(&env.tool("history_search", &context(json!({"query": "x"}))));
    assert_eq!(page["items"], json!([]));
    let error = refusal(&env.tool("history_read", &context(json!({"seq": 1}))));
    assert_eq!(error["code"], "unknown_seq");
    assert!(!path.exists(), "the reader never creates the file");
}

#[test]
fn leaf_none_is_an_empty_branch() {
    let env = TestEnv::new();
    let path = good_session().write_to(env.work().join("s.jsonl"));
    let at_none =
        |name: &str, params: Value| env.tool(name, &request_at(&path, Some("none"), params));
    let page = ok_json(&at_none("history_list", json!({"roles": ALL_ROLES})));
    assert_eq!(
        page,
        json!({"items": [], "older_before": null, "newer_after": null})
    );
    assert_eq!(
        ok_json(&at_none("history_search", json!({"query": "one"})))["items"],
        json!([])
    );
    assert_eq!(
        ok_json(&at_none("history_windows", json!({})))["windows"][0]["item_count"],
        0
    );
    let response = at_none("history_read", json!({"seq": 1}));
    assert_eq!(refusal(&response)["code"], "not_on_branch");
    assert!(!response.to_string().contains("one"));
}

#[test]
fn an_unknown_leaf_is_refused_by_every_tool() {
    let env = TestEnv::new();
    let path = good_session().write_to(env.work().join("s.jsonl"));
    for (name, params) in [
        ("history_windows", json!({})),
        ("history_list", json!({})),
        ("history_search", json!({"query": "one"})),
        ("history_read", json!({"seq": 1})),
    ] {
        let error = refusal(&env.tool(name, &request_at(&path, Some("deadbeef"), params)));
        assert_eq!(
            error,
            json!({"code": "unknown_leaf", "message": "unknown leaf id \"deadbeef\": no entry of the session has it", "leaf_id": "deadbeef"}),
            "{name}"
        );
    }
}

#[test]
fn an_explicit_leaf_ends_the_branch_there() {
    // Pi's `/tree` moves the leaf without writing: the extension passes it as leaf_id.
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("one"); // 1
    let two = s.assistant("two"); // 2
    s.user("three"); // 3
    let path = s.write_to(env.work().join("s.jsonl"));
    let page = ok_json(&env.tool("history_list", &request_at(&path, Some(&two), json!({}))));
    assert_eq!(seqs(&page), [1, 2]);
    // A leaf that is not a message (a label, a custom entry) works the same.
    let mut s = SessionBuilder::new();
    s.user("one");
    let label = s.entry("label", json!({"targetId": "x", "label": "bookmark"}));
    s.user("two");
    let path = s.write_to(env.work().join("t.jsonl"));
    let page = ok_json(&env.tool("history_list", &request_at(&path, Some(&label), json!({}))));
    assert_eq!(seqs(&page), [1]);
}

#[test]
fn the_default_leaf_is_the_last_entry_in_file_order_whatever_its_type() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    let first = s.user("first");
    s.assistant("abandoned");
    s.branch_from(&first);
    s.entry("label", json!({"targetId": first, "label": "here"}));
    let path = s.write_to(env.work().join("s.jsonl"));
    let page = ok_json(&tool(&env, "history_list", &path, json!({})));
    assert_eq!(seqs(&page), [1]);
}

#[test]
fn seqs_are_allocated_over_all_entries_and_non_events_take_none() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.entry(
        "model_change",
        json!({"provider": "anthropic", "modelId": "x"}),
    );
    s.entry("thinking_level_change", json!({"thinkingLevel": "high"}));
    s.user("u1"); // 1
    s.entry("label", json!({"targetId": "x", "label": "l"}));
    s.entry("session_info", json!({"name": "named"}));
    s.custom("pi-context/state", json!({"k": 1}));
    s.entry(
        "usage",
        json!({"kind": "cache_warm", "provider": "p", "model": "m", "usage": {}}),
    );
    s.entry(
        "context_edit",
        json!({"targetId": "x", "replacement": null}),
    );
    s.entry("totally-unknown", json!({"x": 1}));
    s.message(json!({"role": "system", "content": "SYSTEM PROMPT", "sections": {}, "toolsAdded": [], "toolsRemoved": [], "timestamp": 1}));
    s.message(json!({"role": "developer", "content": "UNKNOWN ROLE", "timestamp": 1}));
    s.message(json!({"role": "hookMessage", "customType": "h", "content": "V3 HOOK", "display": true, "timestamp": 1}));
    s.assistant("a2"); // 2
    let path = s.write_to(env.work().join("s.jsonl"));
    let page = ok_json(&tool(
        &env,
        "history_list",
        &path,
        json!({"roles": ALL_ROLES}),
    ));
    assert_eq!(seq_contents(&page), [(1, "u1".into()), (2, "a2".into())]);
    let hidden = ok_json(&tool(
        &env,
        "history_search",
        &path,
        json!({"query": ["SYSTEM PROMPT", "UNKNOWN ROLE", "V3 HOOK"]}),
    ));
    assert_eq!(hidden["items"], json!([]));
    assert_eq!(
        refusal(&tool(&env, "history_read", &path, json!({"seq": 3})))["code"],
        "unknown_seq"
    );
}

#[test]
fn assistant_messages_take_one_seq_per_tool_call_even_without_text() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.assistant_content(
        r#"[{"type":"thinking","thinking":"only thinking"}]"#,
        "stop",
    ); // 1
    s.assistant_content("null", "stop"); // 2
    s.assistant_with_calls("", &[("a", "x", "{}"), ("b", "y", "{}"), ("c", "z", "{}")]); // 3, calls 4 5 6
    s.user("after"); // 7
    let path = s.write_to(env.work().join("s.jsonl"));
    let page = ok_json(&tool(
        &env,
        "history_list",
        &path,
        json!({"roles": ALL_ROLES}),
    ));
    assert_eq!(seqs(&page), [1, 2, 3, 4, 5, 6, 7]);
    let windows = ok_json(&tool(&env, "history_windows", &path, json!({})));
    assert_eq!(windows["windows"][0]["item_count"], 7);
    // The conversation view drops the empty assistants.
    assert_eq!(
        seqs(&ok_json(&tool(&env, "history_list", &path, json!({})))),
        [7]
    );
}

#[test]
fn hook_messages_are_custom_context_below_version_3() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new().version(Some(2));
    s.user("u");
    s.message(json!({"role": "hookMessage", "customType": "h", "content": "from a v2 hook", "display": true, "timestamp": 1}));
    let path = s.write_to(env.work().join("v2.jsonl"));
    let page = ok_json(&tool(
        &env,
        "history_list",
        &path,
        json!({"roles": ["context"]}),
    ));
    assert_eq!(seq_contents(&page), [(2, "from a v2 hook".into())]);
}

#[test]
fn a_header_without_a_numeric_version_means_v1() {
    let env = TestEnv::new();
    let build = |version: Value| {
        let mut lines = vec![
            json!({"type": "session", "version": version, "id": "v1-session", "timestamp": "t"})
                .to_string(),
        ];
        lines.push(r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"first"}}"#.into());
        lines.push(r#"{"type":"message","id":"b","parentId":null,"message":{"role":"user","content":"second"}}"#.into());
        lines.join("\n") + "\n"
    };
    // With version 3 the two messages are separate roots; the leaf's branch holds only "second".
    let path = env.write("v3.jsonl", &build(json!(3)));
    assert_eq!(
        seqs(&ok_json(&tool(&env, "history_list", &path, json!({})))),
        [2]
    );
    // Without a numeric version the file is v1: ids are synthetic and the chain is linear.
    for version in [json!("3"), json!(null)] {
        let path = env.write("v1.jsonl", &build(version.clone()));
        assert_eq!(
            seqs(&ok_json(&tool(&env, "history_list", &path, json!({})))),
            [1, 2],
            "{version}"
        );
        let at_line = ok_json(&env.tool(
            "history_list",
            &request_at(&path, Some("line:2"), json!({})),
        ));
        assert_eq!(seq_contents(&at_line), [(1, "first".into())]);
        let error = refusal(&env.tool("history_list", &request_at(&path, Some("a"), json!({}))));
        assert_eq!(error["code"], "unknown_leaf");
    }
}

#[test]
fn a_header_version_below_2_is_v1_and_linear_whatever_ids_the_entries_carry() {
    // Pi migrates any header version below 2 by chaining the entries in file order under fresh
    // ids (`migrateV1ToV2`); ids and parents that do not chain must not cut the branch.
    let env = TestEnv::new();
    let entries = [
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"first"}}"#,
        r#"{"type":"message","id":"b","parentId":"gone","message":{"role":"assistant","content":[{"type":"text","text":"second"}]}}"#,
        r#"{"type":"message","id":"c","parentId":null,"message":{"role":"user","content":"third"}}"#,
    ];
    for version in [json!(1), json!(0), json!(1.5)] {
        let header =
            json!({"type": "session", "version": version, "id": "v1-ids", "timestamp": "t"});
        let text = format!("{header}\n{}\n", entries.join("\n"));
        let path = env.write("v1-ids.jsonl", &text);
        let run = env
            .cmd()
            .args(["history", "list", "--json", "--session"])
            .arg(&path)
            .run()
            .success();
        let page = run.json();
        assert_eq!(
            seq_contents(&page),
            [
                (1, "first".into()),
                (2, "second".into()),
                (3, "third".into())
            ],
            "version {version}"
        );
        let at_line = ok_json(&env.tool(
            "history_list",
            &request_at(&path, Some("line:3"), json!({})),
        ));
        assert_eq!(seqs(&at_line), [1, 2], "version {version}");
        // The file's own ids are gone, as after Pi's migration.
        let error = refusal(&env.tool("history_list", &request_at(&path, Some("c"), json!({}))));
        assert_eq!(error["code"], "unknown_leaf", "version {version}");
    }
}

/// A compaction carrying Pi 2's `retainedTail`: copies of the messages its context keeps.
fn compaction_with_tail(s: &mut SessionBuilder, summary: &str, first_kept: Option<&str>) {
    let tail = json!([
        {"role": "user", "content": "alpha request", "timestamp": 1},
        {"role": "assistant", "content": [
            {"type": "text", "text": "alpha answer"},
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}
        ], "timestamp": 2},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
         "content": [{"type": "text", "text": "alpha listing"}], "isError": false, "timestamp": 3}
    ]);
    let mut extra = json!({"summary": summary, "tokensBefore": 1000, "retainedTail": tail});
    if let Some(id) = first_kept {
        extra["firstKeptEntryId"] = json!(id);
    }
    s.entry("compaction", extra);
}

#[test]
fn a_compaction_retained_tail_is_one_context_event_and_its_messages_keep_their_own_seqs() {
    // history.md "Compactions": the tail copies messages the branch already holds; it takes no
    // seq and adds nothing to the compaction's text.
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    let first_kept = s.user("alpha request"); // 1
    s.assistant_with_calls("alpha answer", &[("c1", "bash", r#"{"command":"ls"}"#)]); // 2, 3
    s.tool_result("c1", "bash", "alpha listing", false); // 4
    compaction_with_tail(&mut s, "the summary", Some(&first_kept)); // 5
    s.user("after the compaction"); // 6
    let path = s.write_to(env.work().join("tail.jsonl"));

    let all = ok_json(&tool(
        &env,
        "history_list",
        &path,
        json!({"roles": ALL_ROLES}),
    ));
    assert_eq!(seqs(&all), [1, 2, 3, 5, 6]);
    let context = ok_json(&tool(
        &env,
        "history_list",
        &path,
        json!({"roles": ["context"]}),
    ));
    assert_eq!(seq_contents(&context), [(5, "the summary".into())]);
    let read = parse_block(&read_text(&tool(
        &env,
        "history_read",
        &path,
        json!({"seq": 5}),
    )));
    assert_eq!(read.content, "the summary");
    for query in ["alpha request", "alpha answer", "alpha listing"] {
        let found = ok_json(&tool(
            &env,
            "history_search",
            &path,
            json!({"query": query, "roles": ALL_ROLES}),
        ));
        let expected: &[u64] = match query {
            "alpha request" => &[1],
            "alpha answer" => &[2],
            _ => &[3],
        };
        assert_eq!(
            seqs(&found),
            expected,
            "{query}: the original, never the tail"
        );
    }

    // A compaction that starts a file (a self-contained checkpoint) shows only its summary:
    // its tail's messages are no entries of this file, so they take no seq.
    let mut root = SessionBuilder::new();
    compaction_with_tail(&mut root, "checkpoint summary", None); // 1
    root.user("next"); // 2
    let path = root.write_to(env.work().join("checkpoint.jsonl"));
    let all = ok_json(&tool(
        &env,
        "history_list",
        &path,
        json!({"roles": ALL_ROLES}),
    ));
    assert_eq!(
        seq_contents(&all),
        [(1, "checkpoint summary".into()), (2, "next".into())]
    );
}

#[test]
fn the_first_session_object_is_the_header() {
    let env = TestEnv::new();
    let text = [
        "garbage before the header",
        r#"{"type":"session","version":3,"id":"first-header","timestamp":"t"}"#,
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hello"}}"#,
        r#"{"type":"session","version":3,"id":"second-header","timestamp":"t"}"#,
    ]
    .join("\n");
    let path = env.write("headers.jsonl", &text);
    let windows = ok_json(&tool(&env, "history_windows", &path, json!({})));
    assert_eq!(windows["session_id"], "first-header");
    assert_eq!(windows["windows"][0]["window_id"], "pcw:first-he:root");
    assert_eq!(windows["windows"][0]["item_count"], 1);
    assert_eq!(windows["skipped_lines"], 1);
}

#[test]
fn a_repeated_id_resolves_to_the_later_line() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.raw_line(r#"{"type":"message","id":"root","parentId":null,"message":{"role":"user","content":"root"}}"#); // 1
    s.raw_line(r#"{"type":"message","id":"dup","parentId":"root","message":{"role":"user","content":"first dup"}}"#); // 2
    s.raw_line(r#"{"type":"message","id":"child","parentId":"dup","message":{"role":"user","content":"child"}}"#); // 3
    s.raw_line(r#"{"type":"message","id":"dup","parentId":null,"message":{"role":"user","content":"second dup"}}"#); // 4
    let path = s.write_to(env.work().join("dup.jsonl"));
    let page = ok_json(&env.tool("history_list", &request_at(&path, Some("child"), json!({}))));
    assert_eq!(
        seq_contents(&page),
        [(3, "child".into()), (4, "second dup".into())]
    );
    // These lines carry no timestamp.
    assert!(rows(&page).iter().all(|r| r["created_at"].is_null()));
    let response = env.tool(
        "history_read",
        &request_at(&path, Some("child"), json!({"seq": 2})),
    );
    assert_eq!(refusal(&response)["code"], "not_on_branch");
    let page = ok_json(&env.tool("history_list", &request_at(&path, Some("dup"), json!({}))));
    assert_eq!(seq_contents(&page), [(4, "second dup".into())]);
}

#[test]
fn a_parent_cycle_ends_the_walk() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.raw_line(
        r#"{"type":"message","id":"x","parentId":"y","message":{"role":"user","content":"x"}}"#,
    );
    s.raw_line(
        r#"{"type":"message","id":"y","parentId":"x","message":{"role":"user","content":"y"}}"#,
    );
    s.raw_line(
        r#"{"type":"message","id":"z","parentId":"z","message":{"role":"user","content":"z"}}"#,
    );
    let path = s.write_to(env.work().join("cycle.jsonl"));
    let page = ok_json(&env.tool("history_list", &request_at(&path, Some("y"), json!({}))));
    assert_eq!(seqs(&page), [1, 2]);
    let page = ok_json(&tool(&env, "history_list", &path, json!({})));
    assert_eq!(seqs(&page), [3]);
}

#[test]
fn odd_but_parseable_entries_never_crash() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("start");
    for line in [
        r#"{"type":"message","message":{"role":"user","content":"no id"}}"#,
        r#"{"type":"message","id":"m1","parentId":null,"message":"not an object"}"#,
        r#"{"type":"message","id":"m2","parentId":null,"message":{"role":"user","content":null}}"#,
        r#"{"type":"message","id":"m3","parentId":null,"message":{"role":"user"}}"#,
        r#"{"type":"message","id":"m4","parentId":null,"message":{"role":"assistant","content":[1,"x",{"type":"toolCall"},{"type":"text","text":7}]}}"#,
        r#"{"type":"message","id":"m5","parentId":null,"message":{"role":"toolResult","content":"string content"}}"#,
        r#"{"type":"message","id":"m6","parentId":null,"message":{"role":"bashExecution","command":7,"output":null}}"#,
        r#"{"type":"compaction","id":"m7","parentId":null,"summary":null}"#,
        r#"{"type":"custom_message","id":"m8","parentId":null,"content":{"weird":true}}"#,
        r#"{"id":"m9","parentId":null}"#,
        r#"{"type":7,"id":"m10","parentId":7,"timestamp":7}"#,
        r#"{"type":"message","id":"m11","parentId":null,"message":{"role":"user","content":"dup key"},"message":{"role":"user","content":"again"}}"#,
    ] {
        s.raw_line(line);
    }
    let path = s.write_to(env.work().join("odd.jsonl"));
    for leaf in [
        None,
        Some("m1"),
        Some("m4"),
        Some("m6"),
        Some("m8"),
        Some("m10"),
        Some("m11"),
    ] {
        for (name, params) in [
            ("history_windows", json!({})),
            ("history_list", json!({"roles": ALL_ROLES})),
            ("history_search", json!({"query": "x"})),
        ] {
            let response = env.tool(name, &request_at(&path, leaf, params));
            assert_eq!(
                response["is_error"], false,
                "{name} at {leaf:?}: {response}"
            );
        }
    }
    let page = ok_json(&env.tool(
        "history_list",
        &request_at(&path, Some("m4"), json!({"roles": ALL_ROLES})),
    ));
    // The odd assistant: one seq for the message and one for its nameless call.
    assert_eq!(
        rows(&page)
            .iter()
            .map(|r| r["content"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["", "unknown {}"]
    );
}

// ----- in-memory sessions ------------------------------------------------------------------------

fn in_memory_request(lines: &[String], leaf: Option<&str>, params: Value) -> Value {
    json!({"params": params, "context": {"session_file": null, "leaf_id": leaf, "session_id": null, "entries": lines}})
}

fn branched_session() -> SessionBuilder {
    let mut s = SessionBuilder::new();
    let first = s.user("first needle");
    s.assistant_with_calls("abandoned needle", &[("c", "bash", r#"{"command":"ls"}"#)]);
    s.tool_result("c", "bash", "out", false);
    s.branch_from(&first);
    s.reset_marker("pcw:0f1e2d3c:12345678");
    s.custom_message("pi-context/boot", "boot needle");
    s.assistant_with_calls("current needle", &[("d", "read", r#"{"path":"😀"}"#)]);
    s.tool_result("d", "read", "contents needle", false);
    s
}

#[test]
fn in_memory_entries_give_the_same_results_as_the_file() {
    let env = TestEnv::new();
    let mut sessions: Vec<(Vec<String>, PathBuf)> = Vec::new();
    let s = branched_session();
    sessions.push((s.lines(), s.write_to(env.work().join("branched.jsonl"))));
    let kuato = session_fixture("kuato-pi-session.jsonl");
    let kuato_lines = std::fs::read_to_string(&kuato)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    sessions.push((kuato_lines, kuato));

    let calls = [
        ("history_windows", json!({})),
        ("history_list", json!({})),
        (
            "history_list",
            json!({"roles": ALL_ROLES, "max_chars_per_item": 7}),
        ),
        ("history_search", json!({"query": "needle"})),
        ("history_search", json!({"query": "E", "roles": ["tool"]})),
        ("history_read", json!({"seq": 1})),
        ("history_read", json!({"seq": 2})),
        ("history_read", json!({"seq": 4, "offset_chars": -5})),
        ("history_read", json!({"seq": 9})),
        ("history_read", json!({"seq": 100})),
    ];
    for (lines, path) in &sessions {
        let leaves: Vec<Option<String>> = vec![
            None,
            Some("none".into()),
            lines.last().and_then(|l| {
                serde_json::from_str::<Value>(l)
                    .ok()?
                    .get("id")?
                    .as_str()
                    .map(str::to_string)
            }),
        ];
        for leaf in &leaves {
            for (name, params) in &calls {
                let from_file = env.tool(name, &request_at(path, leaf.as_deref(), params.clone()));
                let from_memory = env.tool(
                    name,
                    &in_memory_request(lines, leaf.as_deref(), params.clone()),
                );
                assert_eq!(from_file, from_memory, "{name} {params} at {leaf:?}");
            }
        }
    }
    // The fallback really reads the entries: a branch-off read is refused there too.
    let s = branched_session();
    let response = env.tool(
        "history_read",
        &in_memory_request(&s.lines(), None, json!({"seq": 2})),
    );
    assert_eq!(refusal(&response)["code"], "not_on_branch");
    assert!(!response.to_string().contains("abandoned"));
}

#[test]
fn in_memory_entries_without_a_header_use_the_context_session_id() {
    let env = TestEnv::new();
    let s = good_session();
    let entries: Vec<String> = s.lines().into_iter().skip(1).collect();
    let request = json!({"params": {}, "context": {"session_file": null, "session_id": "memory-1234", "entries": entries}});
    let windows = ok_json(&env.tool("history_windows", &request));
    assert_eq!(windows["session_id"], "memory-1234");
    assert_eq!(windows["windows"][0]["window_id"], "pcw:memory-1:root");
}

#[test]
fn no_file_and_no_entries_is_an_empty_session() {
    let env = TestEnv::new();
    let request = json!({"params": {}, "context": {"session_file": null, "session_id": "s-1"}});
    let windows = ok_json(&env.tool("history_windows", &request));
    assert_eq!(windows["windows"][0]["item_count"], 0);
}

#[test]
fn the_session_file_is_never_written() {
    let env = TestEnv::new();
    let path = branched_session().write_to(env.work().join("s.jsonl"));
    let before = std::fs::read(&path).unwrap();
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    for (name, params) in [
        ("history_windows", json!({})),
        ("history_list", json!({})),
        ("history_search", json!({"query": "needle"})),
        ("history_read", json!({"seq": 1})),
    ] {
        tool(&env, name, &path, params);
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        modified
    );
    let names: Vec<_> = std::fs::read_dir(env.work())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        ["s.jsonl"],
        "no lock or index files beside the session"
    );
}

#[test]
fn an_unreadable_session_path_is_a_refusal_not_a_crash() {
    let env = TestEnv::new();
    let dir = env.work().join("a-directory.jsonl");
    std::fs::create_dir(&dir).unwrap();
    let error = refusal(&tool(&env, "history_list", &dir, json!({})));
    assert_eq!(error["code"], "invalid_session_file");
    assert_eq!(error["session_file"], dir.to_str().unwrap());
}

#[test]
fn library_projection_agrees_with_the_tool() {
    // The library is usable from Rust: the same session through `History` directly.
    let s = branched_session();
    let session = Session::from_lines(&s.lines());
    let history = History::project(&session, &Leaf::Last, None).unwrap();
    let seqs: Vec<u64> = history.events().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 5, 6, 7]);
    assert!(matches!(
        history
            .read(&ReadParams::new(2), RESULT_BUDGET_BYTES)
            .unwrap_err(),
        HistoryError::NotOnBranch { seq: 2 }
    ));
    let windows: Vec<&str> = history
        .windows()
        .iter()
        .map(|w| w.window_id.as_str())
        .collect();
    assert_eq!(windows, ["pcw:0f1e2d3c:root", "pcw:0f1e2d3c:12345678"]);
}

// ----- the session index (an accelerator, never a source of truth) ------------------------------

/// Every session is indexed, however small.
const INDEX_ALWAYS: [(&str, &str); 1] = [("PI_CONTEXT_CACHE_MIN_BYTES", "0")];

fn indexed(env: &TestEnv, name: &str, path: &Path, params: Value) -> Value {
    common::session::tool_with_env(env, &INDEX_ALWAYS, name, &request(path, params))
}

fn unindexed(env: &TestEnv, name: &str, path: &Path, params: Value) -> Value {
    common::session::tool_with_env(
        env,
        &[("PI_CONTEXT_SESSION_INDEX", "off")],
        name,
        &request(path, params),
    )
}

fn index_files(env: &TestEnv) -> usize {
    let dir = env.home().join(".cache/pi-context/sessions");
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

#[test]
fn appends_after_an_indexed_read_are_seen() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("one");
    let path = s.write_to(env.work().join("s.jsonl"));
    assert_eq!(
        seqs(&ok_json(&indexed(&env, "history_list", &path, json!({})))),
        [1]
    );
    assert!(
        index_files(&env) > 0,
        "an index was written under the cache dir"
    );
    for i in 2..=5 {
        s.user(&format!("message {i}"));
        s.write_to(&path);
        let page = ok_json(&indexed(&env, "history_list", &path, json!({})));
        assert_eq!(seqs(&page), (1..=i).collect::<Vec<u64>>());
        assert_eq!(
            page,
            ok_json(&unindexed(&env, "history_list", &path, json!({})))
        );
    }
}

#[test]
fn a_half_written_line_is_read_once_complete_after_an_indexed_read() {
    let env = TestEnv::new();
    let s = good_session();
    let mut next = good_session();
    next.assistant_with_calls("", &[("c", "bash", r#"{"command":"ls"}"#)]);
    let line = next.lines().last().unwrap().clone();
    let path = env.work().join("s.jsonl");
    std::fs::write(&path, format!("{}{}", s.text(), &line[..line.len() / 2])).unwrap();
    let page = ok_json(&indexed(
        &env,
        "history_list",
        &path,
        json!({"roles": ALL_ROLES}),
    ));
    assert_eq!(
        (seqs(&page), page["skipped_lines"].clone()),
        (vec![1, 2], json!(1))
    );
    std::fs::write(&path, format!("{}{line}\n", s.text())).unwrap();
    let page = ok_json(&indexed(
        &env,
        "history_list",
        &path,
        json!({"roles": ALL_ROLES}),
    ));
    assert_eq!(seqs(&page), [1, 2, 3, 4]);
    assert!(page.get("skipped_lines").is_none(), "{page}");
}

#[test]
fn a_rewritten_file_is_reparsed_not_served_from_the_index() {
    let env = TestEnv::new();
    let mut a = SessionBuilder::new();
    a.user("alpha alpha");
    a.assistant("first answer");
    let path = a.write_to(env.work().join("s.jsonl"));
    ok_json(&indexed(&env, "history_list", &path, json!({})));

    // Same length, same inode, different bytes (a migration or a hand edit).
    let mut b = SessionBuilder::new();
    b.user("bravo bravo");
    b.assistant("other answer");
    assert_eq!(a.text().len(), b.text().len());
    b.write_to(&path);
    let page = ok_json(&indexed(&env, "history_list", &path, json!({})));
    assert_eq!(
        seq_contents(&page),
        [(1, "bravo bravo".into()), (2, "other answer".into())]
    );

    // A shorter file.
    let mut c = SessionBuilder::new();
    c.user("c");
    c.write_to(&path);
    let page = ok_json(&indexed(&env, "history_list", &path, json!({})));
    assert_eq!(seq_contents(&page), [(1, "c".into())]);

    // Replaced by rename (a new inode) with a longer file that shares no prefix.
    let mut d = SessionBuilder::with_id("ffffffff-0000");
    d.user("delta");
    d.user("echo");
    d.user("foxtrot");
    let tmp = d.write_to(env.work().join("s.tmp"));
    std::fs::rename(&tmp, &path).unwrap();
    let windows = ok_json(&indexed(&env, "history_windows", &path, json!({})));
    assert_eq!(windows["session_id"], "ffffffff-0000");
    assert_eq!(windows["windows"][0]["item_count"], 3);
}

#[test]
fn a_corrupt_or_unwritable_index_falls_back_to_a_full_parse() {
    let env = TestEnv::new();
    let path = branched_session().write_to(env.work().join("s.jsonl"));
    let expected = ok_json(&unindexed(
        &env,
        "history_list",
        &path,
        json!({"roles": ALL_ROLES}),
    ));
    assert_eq!(
        index_files(&env),
        0,
        "PI_CONTEXT_SESSION_INDEX=off writes no index"
    );
    ok_json(&indexed(&env, "history_list", &path, json!({})));
    let dir = env.home().join(".cache/pi-context/sessions");
    for entry in std::fs::read_dir(&dir).unwrap() {
        std::fs::write(entry.unwrap().path(), b"\x00garbage{not an index").unwrap();
    }
    assert_eq!(
        ok_json(&indexed(
            &env,
            "history_list",
            &path,
            json!({"roles": ALL_ROLES})
        )),
        expected
    );

    // A cache dir that cannot be created (a file is in the way).
    let blocker = env.work().join("not-a-dir");
    std::fs::write(&blocker, "x").unwrap();
    let vars = [
        ("PI_CONTEXT_CACHE_MIN_BYTES", "0"),
        ("PI_CONTEXT_CACHE_DIR", blocker.to_str().unwrap()),
    ];
    let page = common::session::tool_with_env(
        &env,
        &vars,
        "history_list",
        &request(&path, json!({"roles": ALL_ROLES})),
    );
    assert_eq!(ok_json(&page), expected);
}

#[test]
fn indexed_and_unindexed_reads_of_the_fixtures_agree() {
    let env = TestEnv::new();
    for name in ["pi-mono-before-compaction.jsonl", "kuato-pi-session.jsonl"] {
        let path = session_fixture(name);
        for (tool_name, params) in [
            ("history_windows", json!({})),
            ("history_list", json!({"roles": ALL_ROLES, "limit": 50})),
            ("history_search", json!({"query": "bash"})),
            ("history_read", json!({"seq": 4})),
        ] {
            let cold = indexed(&env, tool_name, &path, params.clone());
            let warm = indexed(&env, tool_name, &path, params.clone());
            let plain = unindexed(&env, tool_name, &path, params.clone());
            assert_eq!(cold, plain, "{name} {tool_name}");
            assert_eq!(warm, plain, "{name} {tool_name}");
        }
    }
}

// ----- hostile sizes: every response fits the budget --------------------------------------------

#[test]
fn oversized_ids_and_names_never_break_the_budget() {
    // The harness asserts the 32 KiB budget of every response below.
    let env = TestEnv::new();
    let huge = "x".repeat(40_000);
    let mut s = SessionBuilder::with_id(&huge);
    s.user("a"); // 1
    s.reset_marker(&"w".repeat(40_000));
    s.user("b"); // 2
    let path = s.write_to(env.work().join("huge-ids.jsonl"));
    for (name, params) in [
        ("history_windows", json!({})),
        ("history_list", json!({})),
        ("history_search", json!({"query": "b"})),
        ("history_read", json!({"seq": 2})),
    ] {
        let error = refusal(&tool(&env, name, &path, params));
        assert_eq!(error["code"], "output_too_large", "{name}");
    }
    // The root window's event is still readable.
    assert_eq!(
        parse_block(&read_text(&tool(
            &env,
            "history_read",
            &path,
            json!({"seq": 1})
        )))
        .content,
        "a"
    );

    let path = good_session().write_to(env.work().join("small.jsonl"));
    let cases = [
        (
            "unknown_leaf",
            env.tool("history_list", &request_at(&path, Some(&huge), json!({}))),
        ),
        (
            "unknown_window_id",
            tool(&env, "history_list", &path, json!({"window_id": huge})),
        ),
        (
            "invalid_params",
            tool(&env, "history_list", &path, json!({ huge.clone(): 1 })),
        ),
        (
            "invalid_params",
            tool(&env, "history_list", &path, json!({"roles": [huge]})),
        ),
    ];
    for (code, response) in cases {
        let error = refusal(&response);
        assert_eq!(error["code"], code);
        let message = error["message"].as_str().unwrap();
        assert!(
            message.chars().count() <= 2001 && message.ends_with('…'),
            "{code}: {} chars",
            message.len()
        );
    }
}
