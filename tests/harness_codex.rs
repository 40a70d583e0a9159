//! Codex CLI rollouts read by `pi-context history … --session FILE` (contract §11.2;
//! docs/harnesses.md). Fixtures: tests/fixtures/codex (written by us, see its ORIGIN.md).

use crate::common;

use common::harness::{
    copy_fixture, harness_fixture, history, history_indexed, history_unindexed, list_all, row_seqs,
    rows,
};
use common::TestEnv;
use pi_context::session::{detect_file, Harness, Session};

const ROLLOUT: &str =
    "codex/sessions/2026/01/05/rollout-2026-01-05T09-30-00-0199c0de-1111-7222-8333-944455556666.jsonl";
const ARCHIVED: &str =
    "codex/archived_sessions/rollout-2025-09-10T08-00-00-0198aaaa-2222-7333-8444-955566667777.jsonl";
const NO_META: &str =
    "codex/sessions/2026/01/06/rollout-2026-01-06T11-00-00-0199d00d-3333-7444-8555-966677778888.jsonl";

/// An older rollout that wrote each turn's `event_msg` before its roled twin.
const EVENTS_FIRST: &str =
    "codex/sessions/2026/01/07/rollout-2026-01-07T08-00-00-0199e0e0-4444-7555-8666-977788889999.jsonl";

fn row(seq: u64, role: &str, tool: &str, content: &str) -> (u64, String, String, String) {
    (seq, role.into(), tool.into(), content.into())
}

#[test]
fn a_rollout_projects_to_linear_events() {
    let env = TestEnv::new();
    let list = list_all(&env, &harness_fixture(ROLLOUT), &[]);
    assert_eq!(
        rows(&list),
        vec![
            row(
                1,
                "context",
                "",
                "<permissions instructions>\nFilesystem sandboxing: workspace-write.\n</permissions instructions>"
            ),
            row(
                2,
                "context",
                "",
                "# AGENTS.md instructions for /home/dev/shop\n\n<INSTRUCTIONS>\nRun make test before committing.\n</INSTRUCTIONS>"
            ),
            row(
                3,
                "context",
                "",
                "<environment_context>\n  <cwd>/home/dev/shop</cwd>\n  <shell>bash</shell>\n</environment_context>"
            ),
            row(4, "user", "", "add a discount code to checkout"),
            row(
                5,
                "tool",
                "shell",
                "shell {\"command\":[\"rg\",\"-n\",\"def checkout\"],\"workdir\":\"/home/dev/shop\"}\n--- output ---\ncheckout.py:1:def checkout(cart):"
            ),
            row(
                7,
                "tool",
                "apply_patch",
                "apply_patch *** Begin Patch\n*** Update File: checkout.py\n+DISCOUNT = 0.1\n*** End Patch\n\n--- output ---\nSuccess. Updated the following files:\nM checkout.py\n"
            ),
            row(
                9,
                "tool",
                "local_shell",
                "local_shell {\"type\":\"exec\",\"command\":[\"make\",\"test\"],\"timeout_ms\":60000}\n--- output ---\nran 4 tests: ok"
            ),
            row(11, "assistant", "", "Added a 10% discount code; make test passes."),
            row(12, "context", "", "Discount added to checkout; make test passes."),
            row(13, "user", "", "thanks"),
            row(
                14,
                "tool",
                "unknown",
                "unknown {}\n--- output ---\nlate output nobody asked for"
            ),
        ]
    );
    assert_eq!(list["skipped_lines"], 1);
}

#[test]
fn one_window_and_the_first_session_meta_wins() {
    let env = TestEnv::new();
    let windows = history(&env, &harness_fixture(ROLLOUT), &["windows", "--json"]).json();
    assert_eq!(
        windows["session_id"],
        "0199c0de-1111-7222-8333-944455556666"
    );
    assert_eq!(windows["windows"].as_array().unwrap().len(), 1);
    assert_eq!(windows["windows"][0]["window_id"], "pcw:0199c0de:root");
    assert_eq!(windows["windows"][0]["item_count"], 11);
    let session = Session::open(&harness_fixture(ROLLOUT)).unwrap();
    assert_eq!(session.harness, Harness::Codex);
    let header = session.header.as_ref().unwrap();
    assert_eq!(header.cwd.as_deref(), Some("/home/dev/shop"));
    assert_eq!(
        header.timestamp.as_deref(),
        Some("2026-01-05T09:30:00.000Z")
    );
    assert_eq!(session.parent_session_id(), None);
}

#[test]
fn reasoning_duplicates_and_unknown_records_are_never_text() {
    let env = TestEnv::new();
    let path = harness_fixture(ROLLOUT);
    for hidden in [
        "private",
        "decimal",
        "token_count",
        "on-request",
        "/elsewhere",
    ] {
        let run = history(&env, &path, &["search", hidden, "--json"]);
        assert_eq!(run.code, 1, "{hidden}: {}", run.stdout);
    }
    // The user's words and the agent's answer once each, though event_msg repeats them.
    let run = history(&env, &path, &["search", "discount code", "--json"]);
    assert_eq!(row_seqs(&run.json()), [4, 11]);
}

#[test]
fn an_output_seq_reads_as_its_call() {
    let env = TestEnv::new();
    let path = harness_fixture(ROLLOUT);
    for (result, call) in [(6, 5), (8, 7), (10, 9)] {
        let read = history(&env, &path, &["read", &result.to_string(), "--json"]);
        assert_eq!(read.code, 0, "{}", read.stderr);
        assert_eq!(read.json()["seq"], call);
    }
    // The arguments are the string's text, so offsets count its characters.
    let read = history(&env, &path, &["read", "5", "--offset", "6", "--json"]).json();
    assert!(read["content"]
        .as_str()
        .unwrap()
        .starts_with("{\"command\":[\"rg\""));
}

#[test]
fn an_older_rollout_of_events_only_reads_them() {
    let env = TestEnv::new();
    let list = list_all(&env, &harness_fixture(ARCHIVED), &[]);
    assert_eq!(
        rows(&list),
        vec![
            row(1, "user", "", "what does make test do"),
            row(2, "assistant", "", "It runs the unit tests."),
        ]
    );
    let windows = history(&env, &harness_fixture(ARCHIVED), &["windows", "--json"]).json();
    assert_eq!(
        windows["session_id"],
        "0198aaaa-2222-7333-8444-955566667777"
    );
}

#[test]
fn a_rollout_without_session_meta_takes_its_id_from_the_file_name() {
    let env = TestEnv::new();
    let windows = history(&env, &harness_fixture(NO_META), &["windows", "--json"]).json();
    assert_eq!(
        windows["session_id"],
        "0199d00d-3333-7444-8555-966677778888"
    );
    assert_eq!(windows["windows"][0]["window_id"], "pcw:0199d00d:root");
    assert_eq!(windows["windows"][0]["item_count"], 2);
}

#[test]
fn the_format_is_read_from_the_content_not_the_path() {
    let env = TestEnv::new();
    let renamed = copy_fixture(&env, ROLLOUT, "session.jsonl");
    assert_eq!(detect_file(&renamed), Harness::Codex);
    assert_eq!(row_seqs(&list_all(&env, &renamed, &[])).len(), 11);
    // A Pi session under a rollout's name is still Pi's.
    let pi = copy_fixture(
        &env,
        "example-session.jsonl",
        "rollout-2026-01-05T09-30-00-0199c0de-1111-7222-8333-944455556666.jsonl",
    );
    assert_eq!(detect_file(&pi), Harness::Pi);
}

#[test]
fn the_session_index_reads_what_a_plain_read_reads_and_follows_appends() {
    let env = TestEnv::new();
    let path = copy_fixture(&env, ROLLOUT, "rollout.jsonl");
    let cache = env.root().join("cache");
    let all = [
        "list",
        "--role",
        "user",
        "--role",
        "assistant",
        "--role",
        "tool",
        "--role",
        "context",
        "--json",
    ];
    let indexed = || {
        let run = history_indexed(&env, &cache, &path, &all);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let plain = || history_unindexed(&env, &path, &all).stdout;
    let first = indexed();
    assert_eq!(first, plain());
    assert_eq!(indexed(), first);
    // An event_msg after the roled items stays a duplicate when read from the index.
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(r#"{"timestamp":"2026-01-05T11:00:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"duplicate"}}"#);
    text.push('\n');
    text.push_str(r#"{"timestamp":"2026-01-05T11:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"appended words"}]}}"#);
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    let grown = indexed();
    assert_eq!(grown, plain());
    assert!(
        grown.contains("\"seq\":15") && grown.contains("appended words"),
        "{grown}"
    );
    assert!(!grown.contains("duplicate"), "{grown}");
}

#[test]
fn recall_indexes_the_events_once_and_shows_their_previews() {
    let env = TestEnv::new();
    let dir = common::recall::sessions_root(&env).join("codex-copies");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(harness_fixture(ROLLOUT), dir.join("rollout.jsonl")).unwrap();
    let result = common::recall::search_all(&env, &["discount", "--hits", "10"]);
    let mut hits = common::recall::hits(&result);
    hits.sort();
    let id = "0199c0de-1111-7222-8333-944455556666".to_string();
    assert_eq!(
        hits,
        [(id.clone(), 4), (id.clone(), 7), (id.clone(), 11), (id, 12)]
    );
    let patch = result["sessions"][0]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|hit| hit["seq"] == 7)
        .expect("the patch's hit");
    assert!(
        patch["content"]
            .as_str()
            .unwrap()
            .contains("DISCOUNT = 0.1"),
        "{patch}"
    );
    let reasoning = common::recall::search_all(&env, &["private"]);
    assert!(common::recall::hits(&reasoning).is_empty(), "{reasoning}");
}

/// Rollouts Codex CLI 0.169.0 wrote itself (tests/fixtures/codex-real, ORIGIN.md there).
const REAL_COMPACTIONS: [&str; 2] = [
    "codex-real/sessions/2026/12/06/rollout-2026-12-06T08-11-55-01a24a68-d9af-7fa2-9d22-618d7b59814e.jsonl",
    "codex-real/sessions/2026/12/06/rollout-2026-12-06T08-11-55-01a24a68-dbb8-7833-8801-8398b8ebdc69.jsonl",
];

/// A compaction's summary is one context event (issue 38, item 3): the model's reply that
/// produced it (`metadata.compaction_output`) is not also an assistant event.
#[test]
fn a_real_compaction_summary_is_shown_once_as_context() {
    let env = TestEnv::new();
    for fixture in REAL_COMPACTIONS {
        let list = list_all(&env, &harness_fixture(fixture), &[]);
        let holding: Vec<(u64, String)> = rows(&list)
            .into_iter()
            .filter(|(_, _, _, content)| content.contains("LAB-CODEX-SUMMARY"))
            .map(|(seq, role, _, _)| (seq, role))
            .collect();
        assert_eq!(holding.len(), 1, "{fixture}: {holding:?}");
        assert_eq!(holding[0].1, "context", "{fixture}: {holding:?}");
    }
}

#[test]
fn an_event_copy_written_before_its_roled_item_is_one_event() {
    let env = TestEnv::new();
    let list = list_all(&env, &harness_fixture(EVENTS_FIRST), &[]);
    assert_eq!(
        rows(&list),
        vec![
            row(1, "user", "", "List the synthetic files."),
            row(
                2,
                "tool",
                "shell",
                "shell {\"command\":[\"ls\",\"synthetic\"]}\n--- output ---\nalpha.txt\nbeta.txt"
            ),
            row(
                4,
                "assistant",
                "",
                "Two synthetic files: alpha.txt and beta.txt."
            ),
        ]
    );
    let search = history(
        &env,
        &harness_fixture(EVENTS_FIRST),
        &["search", "synthetic files", "--json"],
    );
    assert_eq!(row_seqs(&search.json()), [1, 4]);
}

#[test]
fn an_event_copy_and_its_twin_read_line_by_line_through_the_index_keep_their_seqs() {
    let env = TestEnv::new();
    let whole = std::fs::read_to_string(harness_fixture(EVENTS_FIRST)).unwrap();
    let path = env.work().join("rollout.jsonl");
    let cache = env.root().join("cache");
    let all = [
        "list",
        "--role",
        "user",
        "--role",
        "assistant",
        "--role",
        "tool",
        "--role",
        "context",
        "--json",
    ];
    let indexed = || {
        let run = history_indexed(&env, &cache, &path, &all);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let mut text = String::new();
    for line in whole.lines() {
        text.push_str(line);
        text.push('\n');
        std::fs::write(&path, &text).unwrap();
        // The line parsed on top of the index of the lines before it (the reader's state
        // between lines is the index's), then an index of this prefix for the next line.
        assert_eq!(indexed(), history_unindexed(&env, &path, &all).stdout);
        let _ = std::fs::remove_dir_all(&cache);
        indexed();
    }
    assert_eq!(row_seqs(&list_all(&env, &path, &[])), [1, 2, 4]);
}

/// Pairing is linear in the calls sharing an id: each call takes the first result after it
/// not taken yet, found without walking the results taken before (100,000 calls of one id
/// took a quadratic pairing 13-17 s in a release build).
#[test]
fn a_hundred_thousand_calls_sharing_one_call_id_list_and_pair_in_order() {
    let env = TestEnv::new();
    let calls = 100_000;
    let mut text = String::with_capacity(calls * 300);
    text.push_str(r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"0199ffff-0000-7000-8000-000000000001","cwd":"/w"}}"#);
    text.push('\n');
    for i in 0..calls {
        text.push_str(r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"true\"]}","call_id":"call_same"}}"#);
        text.push('\n');
        text.push_str(&format!(r#"{{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{{"type":"function_call_output","call_id":"call_same","output":"run {i}"}}}}"#));
        text.push('\n');
    }
    let path = env.work().join("rollout.jsonl");
    std::fs::write(&path, text).unwrap();
    let list = history(&env, &path, &["list", "--json"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let items = list.json()["items"].clone();
    assert_eq!(items[0]["folded"], true, "{items}");
    assert_eq!(items[0]["tools"], serde_json::json!({"shell": calls}));
    // Call k (seq 2k-1) shows the k-th output (seq 2k).
    let last = (2 * calls).to_string();
    let read = history(&env, &path, &["read", &last, "--json"]);
    assert_eq!(read.code, 0, "{}", read.stderr);
    let read = read.json();
    assert_eq!(read["seq"], 2 * calls - 1);
    assert!(
        read["content"]
            .as_str()
            .unwrap()
            .ends_with(&format!("--- output ---\nrun {}", calls - 1)),
        "{read}"
    );
}
