//! Claude Code's and Codex's sessions found, scoped and opened like Pi's (docs/recall.md,
//! "Where sessions are"): default roots under HOME, the variables and flags that move them,
//! `--harness`, one project scope for one checkout's three agents, search hits opened by id,
//! subagents with their parent, and discovery that survives a symlink loop and a FIFO.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::other_agents::{
    claude_encoded, three_agents, write_claude, write_codex, CLAUDE_ID, CODEX_FILE, CODEX_ID,
    SUBAGENT_FILE,
};
use common::recall::{ids, json_in, project_dir, run_within, session_id, spawnable};
use common::session::{ok_json, read_text};
use common::{Run, TestEnv};
use serde_json::{json, Value};

fn list(env: &TestEnv, cwd: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["sessions", "list"];
    args.extend_from_slice(extra);
    json_in(env, cwd, &args).0
}

fn session<'a>(result: &'a Value, id: &str) -> &'a Value {
    result["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|s| s["session_id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {result}"))
}

fn subagent(result: &Value) -> &Value {
    result["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|s| s["parent_session_id"] == CLAUDE_ID)
        .unwrap_or_else(|| panic!("no subagent in {result}"))
}

fn harnesses(result: &Value) -> Vec<String> {
    let mut names: Vec<String> = result["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["harness"].as_str().expect("harness").to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn the_default_roots_under_home_are_found_in_one_project_scope() {
    let env = TestEnv::new();
    let project = three_agents(&env);
    let listed = list(&env, &project, &[]);
    assert_eq!(
        harnesses(&listed),
        ["claude", "claude", "codex", "pi"],
        "{listed}"
    );
    let key = session(&listed, &session_id(1))["project_key"].clone();
    assert!(key.as_str().unwrap().starts_with("orchard-"), "{listed}");
    for s in listed["sessions"].as_array().unwrap() {
        assert_eq!(s["project_key"], key, "one checkout, one scope: {s}");
    }
    let claude = session(&listed, CLAUDE_ID);
    assert_eq!(claude["harness"], "claude");
    assert_eq!(claude["parent_session_id"], Value::Null);
    assert_eq!(claude["cwd"], project.to_string_lossy().as_ref());
    assert_eq!(claude["name"], "Kumquat migration fails on CI");
    let codex = session(&listed, CODEX_ID);
    assert_eq!(codex["harness"], "codex");
    assert!(codex["session_file"]
        .as_str()
        .unwrap()
        .ends_with(CODEX_FILE));
    assert_eq!(session(&listed, &session_id(1))["harness"], "pi");
    let sub = subagent(&listed);
    assert_eq!(sub["harness"], "claude");
    assert!(sub["session_file"]
        .as_str()
        .unwrap()
        .ends_with(&format!("{CLAUDE_ID}/subagents/{SUBAGENT_FILE}")));
    assert_ne!(
        sub["session_id"], CLAUDE_ID,
        "a subagent is a session of its own"
    );

    // Another project's sessions are out of this scope, in with --all.
    let elsewhere = project_dir(&env, "elsewhere");
    assert_eq!(list(&env, &elsewhere, &[])["sessions"], json!([]));
    assert_eq!(
        list(&env, &elsewhere, &["--all"])["sessions"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn the_variables_move_the_default_roots() {
    let env = TestEnv::new();
    let project = three_agents(&env);
    let moved = project_dir(&env, "moved");
    write_claude(&env.work().join("cc/projects"), &moved);
    write_codex(&env.work().join("cx"), &moved);
    let output = env
        .cmd()
        .current_dir(&project)
        .env("CLAUDE_CONFIG_DIR", env.work().join("cc"))
        .env("CODEX_HOME", env.work().join("cx"))
        .args(["sessions", "list", "--all", "--json"])
        .run()
        .success();
    let listed = output.json();
    let files: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_file"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 4, "{listed}");
    let cc = env.work().join("cc").to_string_lossy().into_owned();
    let cx = env.work().join("cx").to_string_lossy().into_owned();
    assert_eq!(files.iter().filter(|f| f.starts_with(&cc)).count(), 2);
    assert_eq!(files.iter().filter(|f| f.starts_with(&cx)).count(), 1);
    // Pi's own root is untouched by the other agents' variables.
    assert_eq!(session(&listed, &session_id(1))["harness"], "pi");
}

#[test]
fn root_flags_name_the_only_places_looked_in() {
    let env = TestEnv::new();
    let project = three_agents(&env);
    let other = env.work().join("claude-backup");
    write_claude(&other, &project_dir(&env, "backup"));

    let claude_only = list(
        &env,
        &project,
        &["--all", "--claude-dir", &other.to_string_lossy()],
    );
    assert_eq!(
        harnesses(&claude_only),
        ["claude", "claude"],
        "{claude_only}"
    );
    for s in claude_only["sessions"].as_array().unwrap() {
        assert!(s["session_file"]
            .as_str()
            .unwrap()
            .starts_with(other.to_string_lossy().as_ref()));
    }

    let pi_root = common::recall::sessions_root(&env);
    let pi_only = list(
        &env,
        &project,
        &["--sessions-dir", &pi_root.to_string_lossy()],
    );
    assert_eq!(ids(&pi_only), [session_id(1)], "{pi_only}");

    let codex_and_claude = list(
        &env,
        &project,
        &[
            "--codex-dir",
            &env.home().join(".codex").to_string_lossy(),
            "--claude-dir",
            &env.home().join(".claude/projects").to_string_lossy(),
        ],
    );
    assert_eq!(harnesses(&codex_and_claude), ["claude", "claude", "codex"]);
}

#[test]
fn harness_keeps_only_those_agents() {
    let env = TestEnv::new();
    let project = three_agents(&env);
    let claude = list(&env, &project, &["--harness", "claude"]);
    assert_eq!(harnesses(&claude), ["claude", "claude"], "{claude}");
    let two = list(&env, &project, &["--harness", "codex", "--harness", "pi"]);
    assert_eq!(harnesses(&two), ["codex", "pi"], "{two}");
    let (found, code) = json_in(
        &env,
        &project,
        &["sessions", "search", "heliotrope", "--harness", "codex"],
    );
    assert_eq!(code, 0);
    assert_eq!(ids(&found), [CODEX_ID]);
    env.cmd()
        .current_dir(&project)
        .args(["sessions", "list", "--harness", "notepad"])
        .assert()
        .code(2);
}

#[test]
fn a_claude_sessions_words_are_found_and_the_hit_opens_by_id() {
    let env = TestEnv::new();
    let project = three_agents(&env);
    let (found, code) = json_in(&env, &project, &["sessions", "search", "flamingo adapter"]);
    assert_eq!(code, 0, "{found}");
    let sessions = found["sessions"].as_array().unwrap();
    // Pi's, Claude Code's and the subagent's words all hold both words.
    assert_eq!(sessions.len(), 3, "{found}");
    let claude = session(&found, CLAUDE_ID);
    assert_eq!(claude["harness"], "claude");
    assert_eq!(claude["parent_session_id"], Value::Null);
    assert_eq!(subagent(&found)["harness"], "claude");
    let hit = &claude["hits"][0];
    assert_eq!(hit["role"], "assistant", "{claude}");
    let seq = hit["seq"].as_u64().unwrap();
    // By id, by a unique prefix: the hit's event, whole.
    for name in [CLAUDE_ID, &CLAUDE_ID[..8]] {
        let text = common::recall::read_hit(&env, name, seq, hit["leaf_id"].as_str());
        assert!(
            text.contains("pins zeta-orm 3.2, which dropped the flamingo adapter"),
            "{name}: {text}"
        );
    }
    // The human output's command opens it too, run as printed.
    let human = env
        .cmd()
        .current_dir(&project)
        .args([
            "sessions",
            "search",
            "kumquat",
            "zeta-orm",
            "--harness",
            "claude",
        ])
        .run();
    let human = human.stdout;
    let command = human
        .lines()
        .find_map(|l| l.trim().strip_prefix("→ "))
        .unwrap_or_else(|| panic!("{human}"));
    let shown = env.shell(command).run().success();
    assert!(shown.stdout.contains("zeta-orm"));

    // And a Codex session's.
    let (found, _) = json_in(&env, &project, &["sessions", "search", "marzipan"]);
    let codex = session(&found, CODEX_ID);
    let hit = &codex["hits"][0];
    let text = common::recall::read_hit(&env, &CODEX_ID[..10], hit["seq"].as_u64().unwrap(), None);
    assert!(text.contains("marzipan"), "{text}");
}

/// A tool call's hit is the call with its output, paired by the agent's own call ids, and
/// opens as such.
#[test]
fn tool_calls_are_found_with_their_output() {
    let env = TestEnv::new();
    let project = three_agents(&env);
    for (query, id, call, output) in [
        (
            "package-lock",
            CLAUDE_ID,
            "grep zeta-orm package-lock.json",
            "3.2.0",
        ),
        ("Instant", CODEX_ID, "fn evict", "src/cache/evict.rs:42"),
    ] {
        let (found, code) = json_in(&env, &project, &["sessions", "search", query]);
        assert_eq!(code, 0, "{query}: {found}");
        let hit = &session(&found, id)["hits"][0];
        assert_eq!(hit["role"], "tool", "{query}: {found}");
        let content = hit["content"].as_str().unwrap();
        assert!(content.contains(query), "{content}");
        let text = common::recall::read_hit(&env, id, hit["seq"].as_u64().unwrap(), None);
        assert!(
            text.contains(call) && text.contains(output),
            "{query}: {text}"
        );
    }
}

fn context(cwd: &Path) -> Value {
    json!({"session_file": null, "leaf_id": null, "session_id": "current-session", "cwd": cwd})
}

#[test]
fn the_tools_find_and_open_a_claude_hit() {
    let env = TestEnv::new();
    let project = three_agents(&env);
    let found = ok_json(&env.tool(
        "sessions_search",
        &json!({"params": {"query": ["kumquat migration"], "harness": ["claude"]}, "context": context(&project)}),
    ));
    let claude = session(&found, CLAUDE_ID);
    assert_eq!(claude["harness"], "claude");
    let hit = &claude["hits"][0];
    let read = env.tool(
        "history_read",
        &json!({"params": {"session_id": claude["session_id"], "seq": hit["seq"], "leaf_id": hit["leaf_id"]},
                "context": context(&project)}),
    );
    let text = read_text(&read);
    assert!(text.contains("kumquat migration"), "{text}");

    let listed = ok_json(&env.tool(
        "sessions_list",
        &json!({"params": {"harness": ["claude", "codex"]}, "context": context(&project)}),
    ));
    assert_eq!(
        harnesses(&listed),
        ["claude", "claude", "codex"],
        "{listed}"
    );
    assert_eq!(subagent(&listed)["parent_session_id"], CLAUDE_ID);
    let refused = env.tool(
        "sessions_list",
        &json!({"params": {"harness": ["notepad"]}, "context": context(&project)}),
    );
    assert_eq!(common::session::refusal(&refused)["code"], "invalid_params");
}

#[test]
fn the_boot_names_the_other_agents_sessions() {
    let env = TestEnv::new();
    let project = three_agents(&env);
    let request = json!({
        "reason": "session_start", "session_id": "fresh-session", "window_id": "pcw:fresh-se:root",
        "previous_window_id": null, "snapshot_time": "2026-03-01T09:00:00.000Z",
        "cwd": project, "agent": "t", "model": "m", "notes_home": env.notes_home(),
    });
    let output = env
        .cmd()
        .arg("boot")
        .write_stdin(request.to_string())
        .run()
        .success();
    let text = output.stdout;
    let section = text
        .split("# Earlier sessions of this project")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    // Each agent's session, tagged; subagents are left out.
    insta::assert_snapshot!(section);
}

#[test]
fn a_symlink_loop_and_a_fifo_are_harmless() {
    let env = TestEnv::new();
    let project = three_agents(&env);
    let dir = env
        .home()
        .join(".claude/projects")
        .join(claude_encoded(&project));
    // A session directory whose `subagents` is a link to itself, and one that links back up.
    let looped = dir.join("d00d0000-0000-4000-8000-000000000000");
    std::fs::create_dir_all(&looped).unwrap();
    std::os::unix::fs::symlink("subagents", looped.join("subagents")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("e00e0000-0000-4000-8000-000000000000")).unwrap();
    std::os::unix::fs::symlink(".", dir.join(CLAUDE_ID).join("subagents").join("again")).unwrap();
    let fifo = dir.join("f1f0f1f0-0000-4000-8000-000000000000.jsonl");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let codex_fifo = env
        .home()
        .join(".codex/archived_sessions/rollout-fifo.jsonl");
    std::fs::create_dir_all(codex_fifo.parent().unwrap()).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &codex_fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();

    let mut cmd = spawnable(&env, &["sessions", "list", "--json"]);
    cmd.current_dir(&project);
    let (code, stdout) = run_within(cmd, Duration::from_secs(60));
    assert_eq!(code, 0);
    let listed: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(
        harnesses(&listed),
        ["claude", "claude", "codex", "pi"],
        "{listed}"
    );
    assert_eq!(listed["unreadable"], 2, "the two FIFOs: {listed}");

    let mut cmd = spawnable(&env, &["history", "list", "--session", "f1f0f1f0-00"]);
    cmd.current_dir(&project);
    let (code, _) = run_within(cmd, Duration::from_secs(60));
    assert_eq!(code, 2, "a FIFO is no session");
}

#[test]
fn an_old_layout_subagent_without_is_sidechain_is_listed_under_its_parent() {
    let env = TestEnv::new();
    let project = project_dir(&env, "oldest");
    let projects = env.home().join(".claude/projects");
    write_claude(&projects, &project);
    let cwd = serde_json::to_string(&project.to_string_lossy()).unwrap();
    let record = |uuid: &str, parent: &str, kind: &str, content: &str| {
        format!(
            r#"{{"parentUuid":{parent},"userType":"external","cwd":{cwd},"sessionId":"{CLAUDE_ID}","type":"{kind}","message":{{"role":"{kind}","content":{content}}},"uuid":"{uuid}","timestamp":"2026-02-28T10:00:00.000Z","agentId":"5d4c3b2a"}}"#
        )
    };
    let text = [
        record("g-1", "null", "user", r#""Count the marmosets""#),
        record(
            "g-2",
            r#""g-1""#,
            "assistant",
            r#"[{"type":"text","text":"Three marmosets."}]"#,
        ),
    ]
    .join("\n");
    let file = projects
        .join(claude_encoded(&project))
        .join("agent-5d4c3b2a.jsonl");
    std::fs::write(&file, format!("{text}\n")).unwrap();
    let listed = list(&env, &project, &[]);
    let oldest = session(&listed, "5d4c3b2a");
    assert_eq!(oldest["harness"], "claude", "{listed}");
    assert_eq!(oldest["parent_session_id"], CLAUDE_ID, "{listed}");
    assert_eq!(
        oldest["session_file"].as_str().unwrap(),
        file.to_string_lossy()
    );
}

/// Format drift (issue 41, item 5): a record type a reader does not know is kept in the tree,
/// inert, and counted; `sessions index --json` reports per agent the files read, the files
/// not read and why, and the unknown types by name.
#[test]
fn a_format_change_shows_up_as_numbers_in_the_index_report() {
    let env = TestEnv::new();
    let project = project_dir(&env, "drift");
    let cwd = project.to_string_lossy().into_owned();
    let record = |v: Value| v.to_string() + "\n";
    let claude = env
        .home()
        .join(".claude/projects")
        .join(common::other_agents::claude_encoded(&project))
        .join("c1a0de00-1111-4aaa-8bbb-00000000df01.jsonl");
    let id = "c1a0de00-1111-4aaa-8bbb-00000000df01";
    let mut text = record(
        json!({"type":"user","uuid":"u1","parentUuid":null,"sessionId":id,
        "cwd":cwd,"timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"first driftword"}}),
    );
    text += &record(json!({"type":"hologram-note","uuid":"h1","parentUuid":"u1","sessionId":id}));
    text += &record(json!({"type":"hologram-note","uuid":"h2","parentUuid":"h1","sessionId":id}));
    text += &record(
        json!({"type":"assistant","uuid":"a1","parentUuid":"h2","sessionId":id,
        "timestamp":"2026-02-01T10:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":"answer driftword"}]}}),
    );
    common::other_agents::write(&claude, &text);
    let rollout = env
        .home()
        .join(".codex/sessions/2026/02/01/rollout-2026-02-01T10-00-00-0199c0de-2222-7ccc-8ddd-0000000000df.jsonl");
    let mut rollout_text = record(
        json!({"timestamp":"2026-02-01T10:00:00Z","type":"session_meta",
        "payload":{"id":"0199c0de-2222-7ccc-8ddd-0000000000df","cwd":cwd}}),
    );
    rollout_text += &record(
        json!({"timestamp":"2026-02-01T10:00:01Z","type":"quantum_item","payload":{"x":1}}),
    );
    rollout_text += &record(
        json!({"timestamp":"2026-02-01T10:00:02Z","type":"response_item",
        "payload":{"type":"teleport_call","x":1}}),
    );
    rollout_text += &record(
        json!({"timestamp":"2026-02-01T10:00:03Z","type":"response_item",
        "payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"codex driftword"}]}}),
    );
    common::other_agents::write(&rollout, &rollout_text);
    let pi_root = common::recall::sessions_root(&env).join("--drift--");
    std::fs::create_dir_all(&pi_root).unwrap();
    let fifo = std::ffi::CString::new(pi_root.join("2026_fifo.jsonl").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);

    let report = env.run(["sessions", "index", "--json"]).success().json();
    let agent = |name: &str| {
        report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == name)
            .unwrap_or_else(|| panic!("{name} in {report}"))
            .clone()
    };
    assert_eq!(agent("claude")["files"], 1, "{report}");
    assert_eq!(
        agent("claude")["unknown_types"],
        json!({"hologram-note": 2}),
        "{report}"
    );
    assert_eq!(
        agent("codex")["unknown_types"],
        json!({"quantum_item": 1, "response_item:teleport_call": 1}),
        "{report}"
    );
    assert_eq!(agent("codex")["files_with_unknown_types"], 1);
    assert_eq!(
        agent("pi")["unreadable"],
        json!({"not a regular file": 1}),
        "{report}"
    );
    // The unknown records stay in the tree: the reply after them is on the branch, right after
    // the prompt (seq 1, 2), and both are found.
    let rows = env
        .run([
            "history",
            "list",
            "--json",
            "--session",
            claude.to_str().unwrap(),
        ])
        .success()
        .json();
    let seqs: Vec<u64> = rows["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [1, 2], "{rows}");
    let human = env.run(["sessions", "index"]).success();
    assert!(
        human
            .stderr
            .contains("claude: records of types its reader does not know"),
        "{human}"
    );
}

/// Copilot CLI's and Cursor's readers count what they do not know the same way: an event type
/// outside the schema Copilot ships, a Cursor record of another `type` or `role`.
#[test]
fn copilot_and_cursor_records_of_unknown_types_are_counted_in_the_index_report() {
    let env = TestEnv::new();
    let project = project_dir(&env, "drift2");
    let record = |v: Value| v.to_string() + "\n";
    let copilot = env
        .home()
        .join(".copilot/session-state/c0ffee00-0000-4000-8000-0000000000df/events.jsonl");
    let mut text = record(
        json!({"type":"session.start","id":"e0","timestamp":"2026-02-01T10:00:00Z",
        "data":{"sessionId":"c0ffee00-0000-4000-8000-0000000000df","startTime":"2026-02-01T10:00:00Z",
        "context":{"cwd":project}}}),
    );
    text += &record(
        json!({"type":"user.message","id":"e1","timestamp":"2026-02-01T10:00:01Z",
        "data":{"content":"copilot driftword"}}),
    );
    text += &record(
        json!({"type":"session.hologram","id":"e2","timestamp":"2026-02-01T10:00:02Z",
        "data":{"x":1}}),
    );
    text += &record(
        json!({"type":"assistant.message","id":"e3","timestamp":"2026-02-01T10:00:03Z",
        "data":{"content":"an answer","toolRequests":[]}}),
    );
    common::other_agents::write(&copilot, &text);
    let cursor = env
        .home()
        .join(".cursor/projects/p/agent-transcripts/cu1/cu1.jsonl");
    let mut text = record(json!({"role":"user","message":{"content":"cursor driftword"}}));
    text += &record(json!({"type":"quantum_note","x":1}));
    text += &record(json!({"role":"narrator","message":{"content":"aside"}}));
    text += &record(json!({"type":"turn_ended"}));
    common::other_agents::write(&cursor, &text);

    let report = env.run(["sessions", "index", "--json"]).success().json();
    let agent = |name: &str| {
        report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == name)
            .unwrap_or_else(|| panic!("{name} in {report}"))
            .clone()
    };
    assert_eq!(agent("copilot")["files"], 1, "{report}");
    assert_eq!(
        agent("copilot")["unknown_types"],
        json!({"session.hologram": 1}),
        "{report}"
    );
    assert_eq!(agent("cursor")["files"], 1, "{report}");
    assert_eq!(
        agent("cursor")["unknown_types"],
        json!({"quantum_note": 1, "role:narrator": 1}),
        "{report}"
    );
    // The reply after the unknown event is still on the branch, right after the prompt.
    let rows = env
        .run([
            "history",
            "list",
            "--json",
            "--session",
            copilot.to_str().unwrap(),
        ])
        .success()
        .json();
    assert_eq!(rows["items"].as_array().unwrap().len(), 2, "{rows}");
}
