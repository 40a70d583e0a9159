//! Gemini CLI chats read by `history … --session FILE`, found by `sessions`, and indexed
//! (contract §14; docs/harnesses.md). Fixtures: tests/fixtures/gemini-real (written by Gemini CLI
//! 0.61.0 itself, see its ORIGIN.md) and tests/fixtures/gemini (hand-written for what the CLI
//! writes only interactively: a rewind; and the older whole-file JSON chats).

use crate::common;

use std::path::{Path, PathBuf};

use common::harness::{
    copy_fixture, harness_fixture, history, history_indexed, history_unindexed, list_all, rows,
};
use common::recall::{ids, json_in, project_dir};
use common::{Run, TestEnv};
use pi_context::session::{detect_file, Harness, Session};
use serde_json::{json, Value};

/// A chat with `run_shell_command` and `read_file` calls, resumed with `--resume` (its second
/// prompt holds a fake GitHub token).
const REAL_RESUMED: &str = "gemini-real/tmp/project/chats/session-2026-12-06T11-51-ad387888.jsonl";
const REAL_RESUMED_ID: &str = "ad387888-d15b-44fa-8f20-ea0298140f52";
/// A chat that ran a subagent (`invoke_agent`), and the subagent's own chat.
const REAL_PARENT: &str = "gemini-real/tmp/project/chats/session-2026-12-06T11-51-48152b94.jsonl";
const REAL_PARENT_ID: &str = "48152b94-424f-4c11-80f5-c1b65fe42e1a";
const REAL_SUBAGENT: &str = "gemini-real/tmp/project/chats/48152b94-424f-4c11-80f5-c1b65fe42e1a/c5ecdf2a-0a53-40ac-84b0-d564ed18ec75.jsonl";
const REAL_SUBAGENT_ID: &str = "c5ecdf2a-0a53-40ac-84b0-d564ed18ec75";
/// A chat rewound with the interactive `/rewind` (driven in tmux), then continued.
const REAL_REWOUND: &str = "gemini-real/tmp/project/chats/session-2026-12-06T11-51-a6c51d16.jsonl";
const REAL_REWOUND_ID: &str = "a6c51d16-0c92-40d7-a757-5d66d2fdec30";
/// Hand-written: a rewind, a `$set.summary`, thoughts, an `info` notice, two records of a newer CLI.
const REWOUND: &str = "gemini/tmp/shop/chats/session-2026-01-08T10-00-5e55a0aa.jsonl";
const REWOUND_ID: &str = "5e55a0aa-1111-4222-8333-944455556666";
/// Hand-written: an older whole-file JSON chat.
const LEGACY: &str = "gemini/tmp/legacy/chats/session-2025-07-01T09-00-0a1b2c3d.json";
const FAKE_TOKEN: &str = "ghp_LabFakeToken01234567890123456789abcd";

fn row(seq: u64, role: &str, tool: &str, content: &str) -> (u64, String, String, String) {
    (seq, role.into(), tool.into(), content.into())
}

fn without_context(list: &Value) -> Vec<(u64, String, String, String)> {
    rows(list)
        .into_iter()
        .filter(|(_, role, _, _)| role != "context")
        .collect()
}

#[test]
fn a_real_chat_pairs_its_tool_calls_and_reads_a_resume_once() {
    let env = TestEnv::new();
    let path = harness_fixture(REAL_RESUMED);
    let list = list_all(&env, &path, &[]);
    let shell = "run_shell_command {\"command\":\"echo hello-from-gemini\"}\n--- output ---\n<untrusted_context>\nOutput: hello-from-gemini\nProcess Group PGID: 27249\n</untrusted_context>";
    assert_eq!(
        without_context(&list),
        vec![
            row(2, "user", "", "G1: print the marker with the shell, then read notes.txt"),
            row(3, "assistant", "", "Running it."),
            row(4, "tool", "run_shell_command", shell),
            row(
                6,
                "tool",
                "read_file",
                "read_file {\"file_path\":\"notes.txt\"}\n--- output ---\nthe launch code is amber-42\n"
            ),
            row(
                8,
                "assistant",
                "",
                "The command printed hello-from-gemini and notes.txt holds the launch code."
            ),
            row(
                9,
                "user",
                "",
                &format!("G2: what did it print? my token is {FAKE_TOKEN}")
            ),
            row(10, "assistant", "", "It printed hello-from-gemini."),
        ]
    );
    // Gemini's session context is one context event: the resume restates it, and the history,
    // under the same ids, which add nothing.
    let contexts: Vec<_> = rows(&list)
        .into_iter()
        .filter(|(_, role, _, _)| role == "context")
        .collect();
    assert_eq!(contexts.len(), 1, "{contexts:?}");
    assert!(contexts[0].3.starts_with("<session_context>"));
    assert_eq!(list["skipped_lines"].as_u64().unwrap_or(0), 0, "{list}");

    let session = Session::open(&path).unwrap();
    assert_eq!(session.harness, Harness::Gemini);
    assert_eq!(session.id(), Some(REAL_RESUMED_ID));
    let header = session.header.as_ref().unwrap();
    assert_eq!(
        header.timestamp.as_deref(),
        Some("2026-12-06T11:51:36.809Z")
    );
    assert!(
        session.unknown_types.is_empty(),
        "{:?}",
        session.unknown_types
    );
}

#[test]
fn a_real_chats_project_root_comes_from_its_directory() {
    let session = Session::open(&harness_fixture(REAL_RESUMED)).unwrap();
    let marker =
        std::fs::read_to_string(harness_fixture("gemini-real/tmp/project/.project_root")).unwrap();
    assert_eq!(cwd_of(&session), Some(marker.trim()));
    // Without the marker, projects.json maps the directory's name to its root.
    let env = TestEnv::new();
    let gemini = env.work().join(".gemini");
    let chats = gemini.join("tmp/shop/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::copy(
        harness_fixture("gemini/projects.json"),
        gemini.join("projects.json"),
    )
    .unwrap();
    std::fs::copy(harness_fixture(REWOUND), chats.join("session-a.jsonl")).unwrap();
    let session = Session::open(&chats.join("session-a.jsonl")).unwrap();
    assert_eq!(cwd_of(&session), Some("/home/dev/shop"));
}

#[test]
fn a_real_subagent_is_a_session_of_its_own_with_its_parent() {
    let env = TestEnv::new();
    let sub = Session::open(&harness_fixture(REAL_SUBAGENT)).unwrap();
    assert_eq!(sub.harness, Harness::Gemini);
    assert_eq!(sub.id(), Some(REAL_SUBAGENT_ID));
    assert_eq!(sub.parent_session_id(), Some(REAL_PARENT_ID));
    let parent = Session::open(&harness_fixture(REAL_PARENT)).unwrap();
    assert_eq!(parent.parent_session_id(), None);
    // The subagent's work is in its own chat, not in the parent's.
    let sub_rows = without_context(&list_all(&env, &harness_fixture(REAL_SUBAGENT), &[]));
    assert_eq!(sub_rows[0], row(1, "user", "", "SUB-TASK: find the answer"));
    assert!(sub_rows
        .iter()
        .any(|(_, _, tool, content)| tool == "complete_task" && content.contains("SUB-REPORT")));
    let parent_rows = without_context(&list_all(&env, &harness_fixture(REAL_PARENT), &[]));
    assert!(!parent_rows
        .iter()
        .any(|(_, _, tool, _)| tool == "run_shell_command"));
    let invoke = parent_rows
        .iter()
        .find(|(_, _, tool, _)| tool == "invoke_agent")
        .expect("the invoke_agent call");
    assert!(
        invoke.3.contains("SUB-REPORT: the answer is 42."),
        "{invoke:?}"
    );
}

#[test]
fn a_rewind_abandons_the_rewound_messages_which_leaf_still_reads() {
    let env = TestEnv::new();
    let path = harness_fixture(REWOUND);
    let list = list_all(&env, &path, &[]);
    assert_eq!(
        rows(&list),
        vec![
            row(
                1,
                "context",
                "",
                "<session_context>\nThis is the Gemini CLI.\n- **Workspace Directories:**\n  - /home/dev/shop\n</session_context>"
            ),
            row(2, "user", "", "add a discount code to checkout"),
            row(3, "assistant", "", "Looking at checkout first."),
            row(
                4,
                "tool",
                "run_shell_command",
                "run_shell_command {\"command\":\"grep -n 'def checkout' checkout.py\"}\n--- output ---\n1:def checkout(cart):"
            ),
            row(6, "assistant", "", "Added a 10% discount code to checkout."),
            row(9, "user", "", "thanks, write the tests"),
            row(10, "assistant", "", "Tests written for the discount code."),
        ]
    );
    // The abandoned branch ends at the rewound reply; `--leaf` reads it.
    let abandoned = list_all(&env, &path, &["--leaf", "g3"]);
    let seqs: Vec<(u64, String)> = rows(&abandoned)
        .into_iter()
        .map(|(seq, _, _, content)| (seq, content))
        .filter(|(seq, _)| *seq >= 6)
        .collect();
    assert_eq!(
        seqs,
        vec![
            (6, "Added a 10% discount code to checkout.".to_string()),
            (7, "now make it 50% off everything".to_string()),
            (
                8,
                "Abandoned answer: fifty percent off everything.".to_string()
            ),
        ]
    );
    let session = Session::open(&path).unwrap();
    assert_eq!(session.id(), Some(REWOUND_ID));
    assert_eq!(
        session.header.as_ref().unwrap().name.as_deref(),
        Some("Discount code for checkout")
    );
}

#[test]
fn a_real_rewind_leaves_the_rewound_turn_on_an_abandoned_branch() {
    let env = TestEnv::new();
    let path = harness_fixture(REAL_REWOUND);
    let text = std::fs::read_to_string(&path).unwrap();
    let rewound_answer = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["content"] == "Second answer: BRAVO, to be rewound.")
        .expect("the rewound answer")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let current = without_context(&list_all(&env, &path, &[]));
    assert_eq!(
        current,
        vec![
            row(2, "user", "", "R1: first question"),
            row(3, "assistant", "", "First answer: ALPHA."),
            row(6, "user", "", "R3: third question"),
            row(
                7,
                "assistant",
                "",
                "Third answer: CHARLIE after the rewind."
            ),
        ]
    );
    let abandoned = without_context(&list_all(&env, &path, &["--leaf", &rewound_answer]));
    assert_eq!(
        abandoned[2..],
        [
            row(4, "user", "", "R2: second question"),
            row(5, "assistant", "", "Second answer: BRAVO, to be rewound."),
        ]
    );
}

#[test]
fn a_rewind_is_never_found_as_what_happened() {
    let env = TestEnv::new();
    let project = project_dir(&env, "shop");
    gemini_home(&env, &project);
    let found = json_in(&env, &project, &["sessions", "search", "discount"]).0;
    assert_eq!(ids(&found), [REWOUND_ID], "{found}");
    let (abandoned, code) = json_in(&env, &project, &["sessions", "search", "fifty percent"]);
    assert_eq!(code, 1, "{abandoned}");
    assert_eq!(ids(&abandoned), Vec::<String>::new());
}

#[test]
fn thoughts_notices_and_unknown_records_are_never_text_and_are_counted() {
    let env = TestEnv::new();
    let path = harness_fixture(REWOUND);
    let all = serde_json::to_string(&list_all(&env, &path, &[])).unwrap();
    for never in [
        "private reasoning",
        "Rewinding to an earlier",
        "newer Gemini CLI",
    ] {
        assert!(!all.contains(never), "{never}: {all}");
    }
    let session = Session::open(&path).unwrap();
    assert_eq!(
        json!(session.unknown_types),
        json!({"$newOperation": 1, "sparkle": 1})
    );
    // And per agent in the index's report.
    let project = project_dir(&env, "shop");
    gemini_home(&env, &project);
    let report = env.run(["sessions", "index", "--json"]).success().json();
    let gemini = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "gemini")
        .unwrap_or_else(|| panic!("gemini in {report}"))
        .clone();
    assert_eq!(
        gemini["unknown_types"],
        json!({"$newOperation": 1, "sparkle": 1}),
        "{report}"
    );
    assert_eq!(gemini["files_with_unknown_types"], 1, "{report}");
}

#[test]
fn an_older_whole_file_json_chat_is_read_whole() {
    let env = TestEnv::new();
    let path = harness_fixture(LEGACY);
    assert_eq!(detect_file(&path), Harness::Gemini);
    let list = list_all(&env, &path, &[]);
    let found = rows(&list);
    assert_eq!(
        found[0],
        row(1, "user", "", "why does the legacy importer fail?")
    );
    assert_eq!(found[1], row(2, "assistant", "", "Reading the importer."));
    assert_eq!(found[2].2, "read_file");
    assert!(
        found[2]
            .3
            .contains("def import_rows(rows): return rows[1:]"),
        "{found:?}"
    );
    assert_eq!(
        found[3],
        row(
            5,
            "assistant",
            "",
            "The importer drops the first row: an off-by-one."
        )
    );
    assert_eq!(found.len(), 4);
    let session = Session::open(&path).unwrap();
    assert_eq!(session.id(), Some("0a1b2c3d-4444-4555-8666-977788889999"));
    // A search finds words inside the document's messages.
    let hit = history(&env, &path, &["search", "off-by-one", "--json"])
        .success()
        .json();
    assert_eq!(hit["items"][0]["seq"], 5, "{hit}");
}

#[test]
fn the_session_index_reads_what_a_plain_read_reads_and_follows_appends() {
    let env = TestEnv::new();
    let path = copy_fixture(&env, REAL_RESUMED, "chat.jsonl");
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
    let indexed = || history_indexed(&env, &cache, &path, &all).success().stdout;
    let plain = || history_unindexed(&env, &path, &all).stdout;
    let first = indexed();
    assert_eq!(first, plain());
    // A message written again with its tool call, a result, then a rewind to the last prompt.
    let mut text = std::fs::read_to_string(&path).unwrap();
    for line in [
        json!({"id":"n1","timestamp":"2026-12-06T12:00:00Z","type":"user","content":[{"text":"G3: appended words"}]}),
        json!({"id":"n2","timestamp":"2026-12-06T12:00:01Z","type":"gemini","content":"Checking."}),
        json!({"id":"n2","timestamp":"2026-12-06T12:00:01Z","type":"gemini","content":"Checking.","toolCalls":[{"id":"c9","name":"run_shell_command","args":{"command":"ls"},"result":[{"functionResponse":{"id":"c9","name":"run_shell_command","response":{"output":"notes.txt"}}}],"status":"success"}]}),
        json!({"id":"n3","timestamp":"2026-12-06T12:00:02Z","type":"user","content":[{"functionResponse":{"id":"c9","name":"run_shell_command","response":{"output":"notes.txt"}}}]}),
    ] {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(&path, &text).unwrap();
    let grown = indexed();
    assert_eq!(grown, plain());
    assert!(grown.contains("G3: appended words"), "{grown}");
    assert_eq!(
        grown.matches("\"tool\":\"run_shell_command\"").count(),
        2,
        "{grown}"
    );
    text.push_str("{\"$rewindTo\":\"n1\"}\n");
    std::fs::write(&path, &text).unwrap();
    let rewound = indexed();
    assert_eq!(rewound, plain());
    assert!(!rewound.contains("G3: appended words"), "{rewound}");
}

#[test]
fn a_torn_last_line_is_skipped_until_it_is_whole() {
    let env = TestEnv::new();
    let path = copy_fixture(&env, REWOUND, "chat.jsonl");
    let cache = env.root().join("cache");
    let whole = json!({"id":"t1","timestamp":"2026-01-08T11:00:00Z","type":"user","content":[{"text":"torn words arrive"}]}).to_string();
    let (head, tail) = whole.split_at(whole.len() / 2);
    common::recall::append(&path, head);
    let args = ["list", "--role", "user", "--json"];
    let torn = history_indexed(&env, &cache, &path, &args).success().json();
    assert!(!torn.to_string().contains("torn words"), "{torn}");
    assert_eq!(torn, history_unindexed(&env, &path, &args).json());
    common::recall::append(&path, &format!("{tail}\n"));
    let mended = history_indexed(&env, &cache, &path, &args).success().json();
    assert_eq!(mended, history_unindexed(&env, &path, &args).json());
    assert!(mended.to_string().contains("torn words arrive"), "{mended}");
    assert_eq!(mended["skipped_lines"].as_u64().unwrap_or(0), 0, "{mended}");
}

#[test]
fn a_huge_message_and_a_huge_tool_output_are_read_whole() {
    let env = TestEnv::new();
    let path = copy_fixture(&env, REWOUND, "chat.jsonl");
    let big = "needle ".repeat(2_000_000);
    let output = "x".repeat(8 << 20);
    for line in [
        json!({"id":"h1","timestamp":"2026-01-08T11:00:00Z","type":"user","content":[{"text":big}]}),
        json!({"id":"h2","timestamp":"2026-01-08T11:00:01Z","type":"gemini","content":"","toolCalls":[{"id":"hc","name":"read_file","args":{"file_path":"big"},"result":[{"functionResponse":{"id":"hc","name":"read_file","response":{"output":output}}}],"status":"success"}]}),
        json!({"id":"h3","timestamp":"2026-01-08T11:00:02Z","type":"gemini","content":"after the huge lines"}),
    ] {
        common::recall::append(&path, &format!("{line}\n"));
    }
    let list = list_all(&env, &path, &[]);
    let found = rows(&list);
    let last = found.last().unwrap();
    assert_eq!(last.3, "after the huge lines");
    let user = found
        .iter()
        .find(|(_, role, _, content)| role == "user" && content.starts_with("needle"))
        .expect("the huge prompt");
    let read = history(&env, &path, &["read", &user.0.to_string(), "--json"])
        .success()
        .json();
    assert_eq!(read["total_chars"], big.len(), "{}", read["total_chars"]);
    assert!(found.iter().any(|(_, _, tool, _)| tool == "read_file"));
}

#[test]
fn secrets_are_masked_in_what_search_shows_and_never_found() {
    let env = TestEnv::new();
    let project = project_dir(&env, "shop");
    real_gemini_home(&env, &project);
    let (found, _) = json_in(&env, &project, &["sessions", "search", "token"]);
    assert_eq!(ids(&found), [REAL_RESUMED_ID], "{found}");
    let preview = found["sessions"][0]["hits"][0]["content"].as_str().unwrap();
    assert!(!preview.contains(FAKE_TOKEN), "{preview}");
    assert!(
        preview.contains(&format!("ghp_{}", "*".repeat(36))),
        "{preview}"
    );
    let (secret, code) = json_in(&env, &project, &["sessions", "search", FAKE_TOKEN]);
    assert_eq!(code, 1, "{secret}");
    assert_eq!(ids(&secret), Vec::<String>::new());
}

#[test]
fn sessions_are_found_under_home_the_variable_and_the_flag_and_filtered_by_harness() {
    let env = TestEnv::new();
    let project = project_dir(&env, "project");
    real_gemini_home(&env, &project);
    let listed = json_in(&env, &project, &["sessions", "list", "--harness", "gemini"]).0;
    let mut found: Vec<(String, String)> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let parent = s["parent_session_id"].as_str().unwrap_or("");
            (
                s["session_id"].as_str().unwrap().to_string(),
                parent.to_string(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        vec![
            (REAL_PARENT_ID.to_string(), String::new()),
            (REAL_REWOUND_ID.to_string(), String::new()),
            (REAL_RESUMED_ID.to_string(), String::new()),
            (REAL_SUBAGENT_ID.to_string(), REAL_PARENT_ID.to_string()),
        ],
        "{listed}"
    );
    for s in listed["sessions"].as_array().unwrap() {
        assert_eq!(s["harness"], "gemini");
        assert_eq!(s["cwd"], project.to_string_lossy().as_ref());
    }
    let none = json_in(&env, &project, &["sessions", "list", "--harness", "codex"]).0;
    assert_eq!(ids(&none), Vec::<String>::new());
    // Moved: GEMINI_CLI_HOME holds the .gemini directory, `--gemini-dir` names it.
    let moved = env.work().join("elsewhere");
    std::fs::create_dir_all(&moved).unwrap();
    std::fs::rename(env.home().join(".gemini"), moved.join(".gemini")).unwrap();
    let gone = json_in(&env, &project, &["sessions", "list", "--harness", "gemini"]).0;
    assert_eq!(ids(&gone), Vec::<String>::new());
    let by_var = env.run_with(|cmd| {
        cmd.current_dir(&project)
            .env("GEMINI_CLI_HOME", &moved)
            .args(["sessions", "list", "--harness", "gemini", "--json"])
    });
    assert_eq!(ids(&by_var.success().json()).len(), 4);
    let dir = moved.join(".gemini");
    let by_flag = json_in(
        &env,
        &project,
        &["sessions", "list", "--gemini-dir", &dir.to_string_lossy()],
    )
    .0;
    assert_eq!(ids(&by_flag).len(), 4, "{by_flag}");
}

#[test]
fn a_gemini_session_is_opened_by_id_through_history() {
    let env = TestEnv::new();
    let project = project_dir(&env, "project");
    real_gemini_home(&env, &project);
    let read = env.run_with(|cmd| {
        cmd.current_dir(&project).args([
            "history",
            "list",
            "--session",
            &REAL_RESUMED_ID[..8],
            "--role",
            "assistant",
            "--json",
        ])
    });
    let list = read.success().json();
    assert_eq!(
        rows(&list).last().unwrap().3,
        "It printed hello-from-gemini.",
        "{list}"
    );
}

/// The hand-written Gemini directory as `~/.gemini`, its `shop` project's root being `project`.
fn gemini_home(env: &TestEnv, project: &Path) -> PathBuf {
    let gemini = env.home().join(".gemini");
    copy_tree(&harness_fixture("gemini"), &gemini);
    let projects =
        json!({"projects": {project.to_string_lossy(): "shop", "/home/dev/legacy": "legacy"}});
    std::fs::write(gemini.join("projects.json"), projects.to_string()).unwrap();
    gemini
}

/// The real Gemini directory as `~/.gemini`, its `project` project's root being `project`.
fn real_gemini_home(env: &TestEnv, project: &Path) -> PathBuf {
    let gemini = env.home().join(".gemini");
    copy_tree(&harness_fixture("gemini-real"), &gemini);
    std::fs::write(
        gemini.join("tmp/project/.project_root"),
        project.to_string_lossy().as_bytes(),
    )
    .unwrap();
    gemini
}

fn cwd_of(session: &Session) -> Option<&str> {
    session.header.as_ref()?.cwd.as_deref()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A headless Gemini CLI puts its `SessionStart` hook's context (pi-context's boot, `<` and `>`
/// escaped) before the prompt in one text part, and a `BeforeAgent` hook's context (the hint)
/// in a part after it (as tests/agents/test_gemini.py saw): the user's words are a user event,
/// found and previewed by search; the pushed blocks are context events, never found.
#[test]
fn pushed_blocks_before_and_after_a_prompt_are_context_and_the_prompt_is_the_users() {
    let env = TestEnv::new();
    let project = project_dir(&env, "shop");
    let gemini = gemini_home(&env, &project);
    let boot = "<hook_context>&lt;pi_context_boot&gt;\npi-context: your memory across sessions. quokka boot words\n&lt;/pi_context_boot&gt;</hook_context>\n\nWhy does the walrus importer drop rows?";
    let hint = "<hook_context>&lt;recall_hint&gt;\nRecalled from an earlier session: quokka hint words\n&lt;/recall_hint&gt;</hook_context>";
    let lines = [
        json!({"sessionId":"9e000000-1111-4222-8333-944455556666","projectHash":"ab","startTime":"2026-01-09T10:00:00.000Z","lastUpdated":"2026-01-09T10:00:00.000Z","kind":"main"}),
        json!({"id":"p1","timestamp":"2026-01-09T10:00:01.000Z","type":"user","content":[{"text":boot},{"text":hint}]}),
        json!({"id":"p2","timestamp":"2026-01-09T10:00:02.000Z","type":"gemini","content":"Looking at the walrus importer."}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let chat = gemini.join("tmp/shop/chats/session-2026-01-09T10-00-9e000000.jsonl");
    std::fs::write(&chat, text).unwrap();
    let list = list_all(&env, &chat, &[]);
    let roles: Vec<(String, String)> = rows(&list)
        .into_iter()
        .map(|(_, role, _, content)| (role, content))
        .collect();
    assert_eq!(roles[0].0, "context");
    assert!(
        roles[0]
            .1
            .starts_with("<hook_context>&lt;pi_context_boot&gt;"),
        "{roles:?}"
    );
    assert!(!roles[0].1.contains("walrus"), "{roles:?}");
    assert_eq!(
        roles[1],
        (
            "user".to_string(),
            "Why does the walrus importer drop rows?".to_string()
        )
    );
    assert_eq!(roles[2].0, "context");
    assert!(roles[2].1.contains("quokka hint words"), "{roles:?}");
    let found = json_in(&env, &project, &["sessions", "search", "walrus importer"]).0;
    let hits = &found["sessions"][0]["hits"];
    let user_hit = hits
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["role"] == "user")
        .unwrap_or_else(|| panic!("{found}"));
    assert_eq!(
        user_hit["content"],
        "Why does the walrus importer drop rows?"
    );
    let (pushed, code) = json_in(&env, &project, &["sessions", "search", "quokka"]);
    assert_eq!(code, 1, "{pushed}");
}

/// Everywhere the other agents are: the MCP tools' `harness` parameter takes `gemini`, and the
/// boot names a Gemini CLI session by its agent (subagents left out).
#[test]
fn the_tools_take_gemini_and_the_boot_names_its_sessions() {
    let env = TestEnv::new();
    let project = project_dir(&env, "project");
    real_gemini_home(&env, &project);
    let context = json!({"session_file": null, "leaf_id": null, "session_id": "current-session", "cwd": project});
    let listed = env.tool(
        "sessions_list",
        &json!({"params": {"harness": ["gemini"]}, "context": context}),
    );
    let text = listed.to_string();
    for id in [REAL_RESUMED_ID, REAL_PARENT_ID, REAL_REWOUND_ID] {
        assert!(text.contains(id), "{id}: {text}");
    }
    let found = env.tool(
        "sessions_search",
        &json!({"params": {"query": ["launch code"], "harness": ["gemini"]}, "context": context}),
    );
    assert!(found.to_string().contains(REAL_RESUMED_ID), "{found}");
    let request = json!({
        "reason": "session_start", "session_id": "fresh-session", "window_id": "pcw:fresh-se:root",
        "previous_window_id": null, "snapshot_time": "2026-12-07T09:00:00.000Z",
        "cwd": project, "agent": "t", "model": "m", "notes_home": env.notes_home(),
    });
    let boot = env
        .cmd()
        .arg("boot")
        .write_stdin(request.to_string())
        .run()
        .success()
        .stdout;
    let lines: Vec<&str> = boot
        .lines()
        .filter(|l| l.contains(" (Gemini CLI) | "))
        .collect();
    assert_eq!(lines.len(), 3, "{boot}");
    assert!(!boot.contains(&REAL_SUBAGENT_ID[..8]), "{boot}");
}

/// Search previews rebuild a hit from its record alone: a tool's output answered in its call's
/// own record (every Gemini chat), and a message of an older whole-file chat, whose record spans
/// many lines, are shown, not dropped.
#[test]
fn search_shows_tool_outputs_and_messages_of_whole_file_chats() {
    let env = TestEnv::new();
    let project = project_dir(&env, "project");
    let gemini = real_gemini_home(&env, &project);
    copy_tree(
        &harness_fixture("gemini/tmp/legacy"),
        &gemini.join("tmp/legacy"),
    );
    let hit = |query: &str| {
        let found = common::recall::search_all(&env, &[query]);
        let hit = found["sessions"][0]["hits"][0].clone();
        assert!(hit.is_object(), "{query}: {found}");
        (
            hit["role"].as_str().unwrap().to_string(),
            hit["content"].as_str().unwrap().to_string(),
        )
    };
    let (role, content) = hit("amber");
    assert_eq!(role, "tool");
    assert!(content.contains("the launch code is amber-42"), "{content}");
    let (role, content) = hit("off-by-one");
    assert_eq!(
        (role.as_str(), content.as_str()),
        (
            "assistant",
            "The importer drops the first row: an off-by-one."
        )
    );
    let (role, content) = hit("import_rows");
    assert_eq!(role, "tool");
    assert!(
        content.contains("def import_rows(rows): return rows[1:]"),
        "{content}"
    );
}

/// A FIFO where Gemini keeps its project marker and its project map is no file: the reader
/// neither blocks on it (opening a FIFO for reading waits for a writer) nor fails the session,
/// which is read without a cwd.
#[test]
fn a_fifo_in_place_of_the_project_marker_or_map_does_not_hold_the_reader_up() {
    let env = TestEnv::new();
    let gemini = env.work().join(".gemini");
    let chats = gemini.join("tmp/shop/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::copy(harness_fixture(REAL_RESUMED), chats.join("session-a.jsonl")).unwrap();
    for fifo in [
        gemini.join("projects.json"),
        gemini.join("tmp/shop/.project_root"),
    ] {
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }
    let dir = gemini.to_string_lossy();
    let cmd = common::recall::spawnable(
        &env,
        &["sessions", "list", "--all", "--json", "--gemini-dir", &dir],
    );
    let (code, stdout) = common::recall::run_within(cmd, std::time::Duration::from_secs(30));
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&stdout));
    let listed: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(
        listed["sessions"][0]["session_id"], REAL_RESUMED_ID,
        "{listed}"
    );
    assert_eq!(listed["sessions"][0]["cwd"], Value::Null, "{listed}");
}
