//! GitHub Copilot CLI sessions read by `history`, `sessions`, `stats` and pushed into by `hook
//! copilot` and `setup copilot` (docs/harnesses.md, docs/agents.md). Fixtures:
//! tests/fixtures/copilot-real (written by Copilot CLI 1.0.102 itself, see its ORIGIN.md).

use crate::common;

use std::path::{Path, PathBuf};

use common::harness::{harness_fixture, history, history_indexed, list_all, row_seqs, rows};
use common::recall::project_dir;
use common::TestEnv;
use pi_context::session::{detect_file, Harness, Session};
use serde_json::{json, Value};

/// `bash` and `view` calls, then a `--resume` turn.
const TOOLS: &str = "copilot-real/session-state/00000000-0000-4000-8000-000000000001/events.jsonl";
/// A `task` subagent that calls `bash` itself.
const SUBAGENT: &str =
    "copilot-real/session-state/00000000-0000-4000-8000-000000000002/events.jsonl";
/// A `bash` turn, `-p /compact --resume`, one more turn.
const COMPACTED: &str =
    "copilot-real/session-state/00000000-0000-4000-8000-000000000003/events.jsonl";

fn row(seq: u64, role: &str, tool: &str, content: &str) -> (u64, String, String, String) {
    (seq, role.into(), tool.into(), content.into())
}

/// `sessions <args> --copilot-dir <dir>`, as JSON.
fn sessions(env: &TestEnv, dir: &Path, args: &[&str]) -> Value {
    let output = env
        .cmd()
        .arg("sessions")
        .args(args)
        .arg("--json")
        .arg("--copilot-dir")
        .arg(dir)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn fixtures_home() -> PathBuf {
    harness_fixture("copilot-real")
}

/// A Copilot home in the test's work directory holding `lines` as session `id`.
fn write_session(env: &TestEnv, id: &str, lines: &[Value]) -> PathBuf {
    let path = env
        .work()
        .join("copilot/session-state")
        .join(id)
        .join("events.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn event(id: &str, kind: &str, data: Value) -> Value {
    json!({"type": kind, "data": data, "id": id, "timestamp": "2026-02-28T11:00:00.000Z", "parentId": null})
}

fn start(id: &str, cwd: &Path) -> Value {
    event(
        "start",
        "session.start",
        json!({"sessionId": id, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.102",
               "startTime": "2026-02-28T11:00:00.000Z", "context": {"cwd": cwd}}),
    )
}

#[test]
fn tool_calls_pair_with_their_results_and_a_resume_continues_the_session() {
    let env = TestEnv::new();
    let list = list_all(&env, &harness_fixture(TOOLS), &[]);
    let rows = rows(&list);
    let notes = rows[4].3.clone();
    assert_eq!(
        rows,
        vec![
            row(1, "user", "", "P1: print the marker with bash, then read notes.txt"),
            row(2, "assistant", "", "Running it."),
            row(
                3,
                "tool",
                "bash",
                "bash {\"command\":\"echo hello-from-bash\",\"description\":\"Print a marker\"}\n--- output ---\nhello-from-bash\n<shellId: 0 completed with exit code 0>"
            ),
            row(5, "assistant", "", "Reading it."),
            row(6, "tool", "view", &notes),
            row(
                8,
                "assistant",
                "",
                "The command printed hello-from-bash and notes.txt says view-marker-line."
            ),
            row(9, "user", "", "P2: what did it print?"),
            row(10, "assistant", "", "It printed hello-from-bash."),
        ]
    );
    assert!(
        notes.starts_with("view {\"path\":\"/tmp/")
            && notes.ends_with("--- output ---\nview-marker-line\n"),
        "{notes}"
    );
    // A result's seq reads as its call.
    let read = history(&env, &harness_fixture(TOOLS), &["read", "4", "--json"]).json();
    assert_eq!(read["seq"], 3);
    let windows = history(&env, &harness_fixture(TOOLS), &["windows", "--json"]).json();
    assert_eq!(
        windows["session_id"],
        "00000000-0000-4000-8000-000000000001"
    );
    assert_eq!(windows["windows"][0]["window_id"], "pcw:00000000:root");
}

#[test]
fn the_header_gives_the_id_cwd_and_start_and_the_format_is_known_by_its_events() {
    let path = harness_fixture(TOOLS);
    assert_eq!(detect_file(&path), Harness::Copilot);
    let session = Session::open(&path).unwrap();
    assert_eq!(session.harness, Harness::Copilot);
    assert_eq!(session.id(), Some("00000000-0000-4000-8000-000000000001"));
    let header = session.header.as_ref().unwrap();
    assert!(header.cwd.as_deref().unwrap().ends_with("/project"));
    assert!(header
        .timestamp
        .as_deref()
        .unwrap()
        .starts_with("2026-12-06T"));
    assert_eq!(session.parent_session_id(), None);
    assert_eq!(session.skipped_lines, 0);
}

#[test]
fn a_subagent_is_a_branch_under_its_task_call_and_its_report_the_calls_result() {
    let env = TestEnv::new();
    let path = harness_fixture(SUBAGENT);
    let main = rows(&list_all(&env, &path, &[]));
    assert_eq!(
        main.iter().map(|r| (r.0, r.1.as_str())).collect::<Vec<_>>(),
        [
            (1, "user"),
            (2, "assistant"),
            (3, "tool"),
            (10, "assistant")
        ]
    );
    assert!(
        main[2]
            .3
            .ends_with("--- output ---\nSUB-REPORT: the answer is 42."),
        "{:?}",
        main[2]
    );
    // The subagent's own work is off the main branch, and read by its last event.
    let run = history(&env, &path, &["search", "sub-agent-bash", "--json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let leaf = last_id_of(&path, "subagent.completed");
    let sub = rows(&list_all(&env, &path, &["--leaf", &leaf]));
    assert_eq!(
        sub.iter().map(|r| (r.0, r.1.as_str())).collect::<Vec<_>>(),
        [
            (1, "user"),
            (2, "assistant"),
            (3, "tool"),
            (4, "context"),
            (5, "assistant"),
            (6, "tool"),
            (8, "assistant")
        ]
    );
    assert_eq!(sub[3].3, "SUB-TASK: find the answer with bash");
    assert!(
        sub[5].3.contains("--- output ---\nsub-agent-bash"),
        "{:?}",
        sub[5]
    );
    let found = history(
        &env,
        &path,
        &["search", "sub-agent-bash", "--leaf", &leaf, "--json"],
    );
    assert_eq!(row_seqs(&found.json()), [6]);
}

/// The id of the last event of a type in a file.
fn last_id_of(path: &Path, kind: &str) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["type"] == kind)
        .and_then(|r| r["id"].as_str().map(str::to_string))
        .expect("an event of the type")
}

#[test]
fn a_compaction_is_one_context_event_and_the_model_records_copying_the_conversation_are_skipped() {
    let env = TestEnv::new();
    let path = harness_fixture(COMPACTED);
    let list = rows(&list_all(&env, &path, &[]));
    assert_eq!(
        list.iter().map(|r| (r.0, r.1.as_str())).collect::<Vec<_>>(),
        [
            (1, "user"),
            (2, "assistant"),
            (3, "tool"),
            (5, "assistant"),
            (6, "context"),
            (7, "user"),
            (8, "assistant")
        ]
    );
    assert_eq!(
        list[4].3,
        "LAB-COPILOT-SUMMARY: the user ran echo before-compaction."
    );
    // Each said once: the `model.*` records hold the whole conversation again, the summary
    // request and the reply; the system prompt and the harness's wrapping are never text.
    let once = history(&env, &path, &["search", "before-compaction", "--json"]);
    assert_eq!(row_seqs(&once.json()), [3, 5, 6, 8]);
    for hidden in [
        "Please create a detailed summary",
        "You are the GitHub Copilot CLI",
        "current_datetime",
        "messages_snapshot",
    ] {
        let run = history(&env, &path, &["search", hidden, "--json"]);
        assert_eq!(run.code, 1, "{hidden}: {}", run.stdout);
    }
}

#[test]
fn the_fixtures_read_the_same_through_the_session_index() {
    let env = TestEnv::new();
    let cache = env.work().join("cache");
    for fixture in [TOOLS, SUBAGENT, COMPACTED] {
        let path = harness_fixture(fixture);
        let plain = list_all(&env, &path, &[]);
        let args = [
            "list",
            "--role",
            "user",
            "--role",
            "assistant",
            "--role",
            "tool",
            "--role",
            "context",
            "--limit",
            "100",
            "--json",
        ];
        for _ in 0..2 {
            let indexed = history_indexed(&env, &cache, &path, &args);
            assert_eq!(indexed.code, 0, "{}", indexed.stderr);
            assert_eq!(rows(&indexed.json()), rows(&plain), "{fixture}");
        }
    }
}

#[test]
fn sessions_are_found_under_the_copilot_home_searched_and_their_secrets_masked() {
    let env = TestEnv::new();
    let listed = sessions(&env, &fixtures_home(), &["list", "--all"]);
    let mut ids: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert_eq!(s["harness"], "copilot");
            s["session_id"].as_str().unwrap()
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "00000000-0000-4000-8000-000000000001",
            "00000000-0000-4000-8000-000000000002",
            "00000000-0000-4000-8000-000000000003",
            "00000000-0000-4000-8000-000000000004"
        ]
    );
    let secret = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session_id"] == "00000000-0000-4000-8000-000000000004")
        .unwrap();
    assert_eq!(
        secret["first_user_preview"],
        "S1: my key is AKIA****************, keep it safe"
    );
    let found = sessions(
        &env,
        &fixtures_home(),
        &["search", "--all", "hello-from-bash"],
    );
    assert_eq!(
        found["sessions"][0]["session_id"],
        "00000000-0000-4000-8000-000000000001"
    );
    let key = sessions(
        &env,
        &fixtures_home(),
        &["search", "--all", "AKIALABFAKEKEY012345"],
    );
    assert_eq!(key["sessions"], json!([]), "{key}");
    // The variable names the home when no flag does.
    let run = env
        .cmd()
        .env("COPILOT_HOME", fixtures_home())
        .args([
            "sessions",
            "list",
            "--all",
            "--json",
            "--harness",
            "copilot",
        ])
        .output()
        .unwrap();
    let by_var: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(by_var["sessions"].as_array().unwrap().len(), 4, "{by_var}");
}

#[test]
fn unknown_and_ephemeral_events_are_inert_and_a_torn_last_line_waits() {
    let env = TestEnv::new();
    let cwd = env.work();
    let lines = [
        start("c0ffee00-0000-4000-8000-000000000001", &cwd),
        event(
            "u1",
            "user.message",
            json!({"content": "first prompt", "transformedContent": "<x>first prompt</x>"}),
        ),
        event("f1", "some.future_event", json!({"content": "futuretext"})),
        json!({"type": "assistant.message_delta", "ephemeral": true, "id": "d1", "data": {"deltaContent": "deltatext"}}),
        event(
            "a1",
            "assistant.message",
            json!({"messageId": "m", "content": "an answer", "reasoningText": "reasoningtext", "toolRequests": []}),
        ),
        event(
            "s1",
            "user.message",
            json!({"content": "skill text", "source": "skill-pdf"}),
        ),
    ];
    let path = write_session(&env, "c0ffee00-0000-4000-8000-000000000001", &lines);
    let list = rows(&list_all(&env, &path, &[]));
    assert_eq!(
        list,
        vec![
            row(1, "user", "", "first prompt"),
            row(2, "assistant", "", "an answer"),
            row(3, "context", "", "skill text"),
        ]
    );
    for hidden in ["futuretext", "deltatext", "reasoningtext", "<x>"] {
        let run = history(&env, &path, &["search", hidden, "--json"]);
        assert_eq!(run.code, 1, "{hidden}: {}", run.stdout);
    }
    // A last line still being written is skipped until it is whole.
    let whole = event("u2", "user.message", json!({"content": "second prompt"})).to_string();
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&whole[..whole.len() / 2]);
    std::fs::write(&path, &text).unwrap();
    let torn = list_all(&env, &path, &[]);
    assert_eq!(row_seqs(&torn), [1, 2, 3]);
    assert_eq!(torn["skipped_lines"], 1);
    text.push_str(&whole[whole.len() / 2..]);
    text.push('\n');
    std::fs::write(&path, &text).unwrap();
    assert_eq!(row_seqs(&list_all(&env, &path, &[])), [1, 2, 3, 4]);
}

#[test]
fn a_50_mb_tool_result_lists_and_searches() {
    let env = TestEnv::new();
    let big = format!(
        "{}needle-at-the-end",
        "0123456789abcdef\\n".repeat((50 << 20) / 18)
    );
    let cwd = env.work();
    let head = [
        start("c0ffee00-0000-4000-8000-000000000002", &cwd).to_string(),
        event("u1", "user.message", json!({"content": "run it"})).to_string(),
        event(
            "a1",
            "assistant.message",
            json!({"messageId": "m", "content": "", "toolRequests": [{"toolCallId": "c1", "name": "bash", "arguments": {"command": "yes"}}]}),
        )
        .to_string(),
    ];
    let text = format!(
        "{}\n{{\"type\":\"tool.execution_complete\",\"data\":{{\"toolCallId\":\"c1\",\"success\":true,\"result\":{{\"content\":\"{big}\"}}}},\"id\":\"r1\",\"timestamp\":\"2026-02-28T11:00:01.000Z\",\"parentId\":\"a1\"}}\n",
        head.join("\n")
    );
    assert!(text.len() > 50 << 20);
    let path = env.work().join("big/events.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    assert_eq!(row_seqs(&list_all(&env, &path, &[])), [1, 2]);
    let search = history(&env, &path, &["search", "needle-at-the-end", "--json"]);
    assert_eq!(search.code, 0, "{}", search.stderr);
    assert_eq!(search.json()["items"][0]["seq"], 2);
}

#[test]
fn a_hooks_context_kept_in_the_transcript_is_a_pushed_block_never_indexed_and_counted() {
    let env = TestEnv::new();
    let project = project_dir(&env, "p");
    let home = env.home().join(".copilot");
    let path = home.join("session-state/c0ffee00-0000-4000-8000-000000000003/events.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let hook_end = |id: &str, hook: &str, context: &str| {
        event(
            id,
            "hook.end",
            json!({"hookInvocationId": id, "hookType": hook, "success": true, "output": {"additionalContext": context}}),
        )
    };
    let lines = [
        start("c0ffee00-0000-4000-8000-000000000003", &project),
        hook_end(
            "h1",
            "sessionStart",
            "<pi_context_boot>\nquokkaboot earlier sessions\n</pi_context_boot>",
        ),
        hook_end(
            "h2",
            "userPromptSubmitted",
            "quokkaplain from a hook of the user's",
        ),
        event("u1", "user.message", json!({"content": "the prompt"})),
        hook_end(
            "h3",
            "userPromptSubmitted",
            "<recall_hint>\nTo read it: pi-context-history_read {\"session_id\":\"earlier-1\",\"seq\":2,\"leaf_id\":null}\n</recall_hint>",
        ),
        event("u2", "user.message", json!({"content": "go on"})),
        event(
            "a1",
            "assistant.message",
            json!({"messageId": "m", "content": "", "toolRequests": [
                {"toolCallId": "t1", "name": "pi-context-history_read", "arguments": {"session_id": "earlier-1", "seq": 2}},
                {"toolCallId": "t2", "name": "github-mcp-server-search_code", "arguments": {}}]}),
        ),
        event("r1", "tool.execution_complete", json!({"toolCallId": "t1", "success": true, "result": {"content": "the event"}})),
        event("r2", "tool.execution_complete", json!({"toolCallId": "t2", "success": true, "result": {"content": "none"}})),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let list = rows(&list_all(&env, &path, &[]));
    assert_eq!(
        list.iter().map(|r| (r.0, r.1.as_str())).collect::<Vec<_>>(),
        [
            (1, "context"),
            (2, "context"),
            (3, "user"),
            (4, "context"),
            (5, "user"),
            (6, "tool"),
            (7, "tool")
        ]
    );
    let found = env
        .cmd()
        .args([
            "sessions",
            "search",
            "--all",
            "--json",
            "quokkaboot",
            "quokkaplain",
        ])
        .output()
        .unwrap();
    let found: Value = serde_json::from_slice(&found.stdout).unwrap();
    let hits = common::recall::hit_contents(&found);
    assert_eq!(hits.len(), 1, "the boot is never indexed: {hits:?}");
    assert!(hits[0].contains("quokkaplain"), "{hits:?}");
    let stats = env.cmd().args(["stats", "--json"]).output().unwrap();
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let copilot = stats["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "copilot")
        .unwrap_or_else(|| panic!("{stats}"));
    assert_eq!(
        (copilot["sessions"].as_u64(), copilot["boots"].as_u64()),
        (Some(1), Some(1))
    );
    // Copilot's model calls the tools `pi-context-<tool>`; another server's are not ours.
    assert_eq!(copilot["hints"], 1, "{copilot}");
    assert_eq!(copilot["hints_followed"], 1, "{copilot}");
    assert_eq!(
        copilot["tool_calls"],
        json!({"history_read": 1}),
        "{copilot}"
    );
}

// ----- push: hook copilot, setup copilot ---------------------------------------------------------

fn hook(env: &TestEnv, event: &str, input: &Value) -> (i32, String) {
    let output = env
        .cmd()
        .args(["hook", "copilot", event])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
    )
}

/// Copilot's answer shape: a top-level `additionalContext` (it ignores the nested form).
fn context_of(stdout: &str) -> Option<String> {
    if stdout.trim().is_empty() {
        return None;
    }
    let answer: Value = serde_json::from_str(stdout).unwrap();
    assert!(answer.get("hookSpecificOutput").is_none(), "{answer}");
    Some(answer["additionalContext"].as_str().unwrap().to_string())
}

#[test]
fn copilots_hooks_get_the_boot_at_every_start_in_its_own_shape_and_names() {
    let env = TestEnv::new();
    let project = project_dir(&env, "p");
    let input = |source: &str| {
        json!({"sessionId": "live-cp", "timestamp": 1_796_554_906_969_i64, "cwd": project,
               "source": source, "initialPrompt": "hello"})
    };
    let (code, out) = hook(&env, "session-start", &input("new"));
    assert_eq!(code, 0);
    let boot = context_of(&out).expect("a boot");
    assert!(boot.starts_with("<pi_context_boot>"), "{boot}");
    assert!(boot.contains("This session's id: live-cp"), "{boot}");
    assert!(
        boot.contains("pi-context-history_read") && boot.contains("pi-context-sessions_search"),
        "Copilot's names for the tools: {boot}"
    );
    // Copilot gives a session start's context afresh at each start: a resume gets the boot
    // again, not the one line Claude Code and Codex get.
    let (_, resumed) = hook(&env, "session-start", &input("resume"));
    let again = context_of(&resumed).expect("a boot");
    assert!(again.starts_with("<pi_context_boot>"), "{again}");
    // camelCase input, and nothing to say is nothing printed.
    let (code, none) = hook(
        &env,
        "prompt",
        &json!({"sessionId": "live-cp", "cwd": project, "prompt": "add a dark mode toggle"}),
    );
    assert_eq!((code, none.as_str()), (0, ""));
    let (code, nothing) = hook(&env, "pre-compact", &json!({"sessionId": "live-cp"}));
    assert_eq!((code, nothing.as_str()), (0, ""));
}

fn setup(env: &TestEnv, args: &[&str]) -> String {
    let output = env.cmd().arg("setup").args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn binary() -> String {
    std::fs::canonicalize(assert_cmd::cargo::cargo_bin("pi-context"))
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn setup_copilot_installs_its_own_hooks_file_and_the_mcp_server_and_removes_them_exactly() {
    let env = TestEnv::new();
    let home = env.home().join(".copilot");
    std::fs::create_dir_all(&home).unwrap();
    let mcp = home.join("mcp-config.json");
    let theirs = "{\n  \"mcpServers\": {\n    \"github\": {\n      \"type\": \"local\",\n      \"command\": \"gh-mcp\",\n      \"args\": []\n    }\n  }\n}\n";
    std::fs::write(&mcp, theirs).unwrap();
    setup(&env, &["copilot"]);
    let hooks: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("hooks/pi-context.json")).unwrap())
            .unwrap();
    let bin = binary();
    assert_eq!(
        hooks,
        json!({"version": 1, "hooks": {
            "sessionStart": [{"type": "command", "bash": format!("{bin} hook copilot session-start"), "timeoutSec": 10}],
            "userPromptSubmitted": [{"type": "command", "bash": format!("{bin} hook copilot prompt"), "timeoutSec": 10}],
        }})
    );
    let servers: Value = serde_json::from_str(&std::fs::read_to_string(&mcp).unwrap()).unwrap();
    assert_eq!(servers["mcpServers"]["github"]["command"], "gh-mcp");
    assert_eq!(
        servers["mcpServers"]["pi-context"],
        json!({"type": "local", "command": bin, "args": ["mcp", "--agent", "copilot"], "tools": ["*"], "env": {}})
    );
    assert!(home.join("mcp-config.json.bak").exists());
    // A second run changes nothing; the status says what is there.
    let again = setup(&env, &["copilot"]);
    assert!(again.contains("already set up: nothing changed"), "{again}");
    let status: Value =
        serde_json::from_str(&setup(&env, &["copilot", "--status", "--json"])).unwrap();
    let agent = &status["agents"][0];
    assert_eq!(agent["agent"], "copilot");
    assert_eq!(agent["mcp"]["registered"], true);
    assert_eq!(
        agent["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (
                h["event"].as_str().unwrap(),
                h["installed"].as_bool().unwrap()
            ))
            .collect::<Vec<_>>(),
        [("session-start", true), ("prompt", true)]
    );
    setup(&env, &["copilot", "--remove"]);
    assert!(!home.join("hooks/pi-context.json").exists());
    assert_eq!(std::fs::read_to_string(&mcp).unwrap(), theirs);
}

#[test]
fn setup_cursor_registers_the_mcp_server_only() {
    let env = TestEnv::new();
    let out = setup(&env, &["cursor"]);
    assert!(out.contains("MCP server only"), "{out}");
    let home = env.home().join(".cursor");
    let mcp: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("mcp.json")).unwrap()).unwrap();
    assert_eq!(
        mcp,
        json!({"mcpServers": {"pi-context": {"command": binary(), "args": ["mcp", "--agent", "cursor"]}}})
    );
    let entries: Vec<_> = std::fs::read_dir(&home).unwrap().collect();
    assert_eq!(entries.len(), 1, "nothing but mcp.json: {entries:?}");
    setup(&env, &["cursor", "--remove"]);
    assert!(!home.join("mcp.json").exists());
}
