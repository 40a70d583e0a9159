//! `pi-context hook <agent> <event>` (docs/agents.md): what is pushed into Claude Code and Codex
//! at session start, on resume, after a compaction, before one and with each prompt, in each
//! agent's output format; once per session and window; never failing the agent.

use crate::common;

use std::path::{Path, PathBuf};

use common::other_agents::{claude_encoded, write};
use common::recall::{project_dir, session_id, write_pi_session};
use common::session::SessionBuilder;
use common::TestEnv;
use serde_json::{json, Value};

/// Runs `pi-context hook <agent> <event>` with `input` on stdin: exit status, stdout.
fn hook(env: &TestEnv, agent: &str, event: &str, input: &Value) -> (i32, String) {
    hook_raw(env, &[agent, event], &input.to_string())
}

fn hook_raw(env: &TestEnv, args: &[&str], stdin: &str) -> (i32, String) {
    let output = env
        .cmd()
        .arg("hook")
        .args(args)
        .write_stdin(stdin.to_string())
        .output()
        .expect("run the hook");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).expect("utf-8 stdout"),
    )
}

/// The `additionalContext` of a hook's JSON answer (`None`: nothing printed).
fn context_of(stdout: &str, event_name: &str) -> Option<String> {
    if stdout.trim().is_empty() {
        return None;
    }
    let answer: Value = serde_json::from_str(stdout).expect("the answer is JSON");
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"], event_name,
        "{answer}"
    );
    Some(
        answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .expect("additionalContext")
            .to_string(),
    )
}

fn input(live: &str, cwd: &Path, extra: Value) -> Value {
    let mut value = json!({"session_id": live, "cwd": cwd, "hook_event_name": "x"});
    for (k, v) in extra.as_object().unwrap() {
        value[k] = v.clone();
    }
    value
}

const FACT: &str = "The thumbnailer crashes on CMYK jpegs during the nightly media import.";

/// A project with an earlier Pi session holding a fact, another of Codex, and a note.
fn project(env: &TestEnv) -> PathBuf {
    let project = project_dir(env, "shop");
    let mut planted = SessionBuilder::with_id(&session_id(1))
        .cwd(&project.to_string_lossy())
        .time_offset(-7200);
    planted.user(FACT);
    planted.assistant("Fixed: CMYK images are converted to RGB before decoding.");
    write_pi_session(env, &project, &planted);
    for n in 2..=6 {
        let mut filler = SessionBuilder::with_id(&session_id(n))
            .cwd(&project.to_string_lossy())
            .time_offset(-3600);
        filler.user("the build failed on the server again, please check the tests");
        filler.assistant("The server build failed because a test timed out.");
        write_pi_session(env, &project, &filler);
    }
    let rollout = env
        .home()
        .join(".codex/sessions/2026/02/28/rollout-2026-02-28T11-00-00-0199c0de-2222-7ccc-8ddd-0000000000c1.jsonl");
    let record = |v: Value| v.to_string() + "\n";
    let mut text = record(
        json!({"timestamp":"2026-03-01T08:30:00Z","type":"session_meta",
        "payload":{"id":"0199c0de-2222-7ccc-8ddd-0000000000c1","cwd":project}}),
    );
    text += &record(
        json!({"timestamp":"2026-03-01T08:30:01Z","type":"response_item",
        "payload":{"type":"message","role":"user",
        "content":[{"type":"input_text","text":"add a discount code to checkout"}]}}),
    );
    write(&rollout, &text);
    common::notes::write(env, "@human/prefs.md", "short answers please");
    project
}

#[test]
fn a_session_starts_with_a_boot_of_earlier_sessions_notes_and_the_way_to_history() {
    let env = TestEnv::new();
    let project = project(&env);
    let (code, out) = hook(
        &env,
        "claude",
        "session-start",
        &input("live-1", &project, json!({"source": "startup"})),
    );
    assert_eq!(code, 0);
    let boot = context_of(&out, "SessionStart").expect("a boot");
    assert!(boot.starts_with("<pi_context_boot>\n") && boot.ends_with("</pi_context_boot>"));
    assert!(boot.len() <= 4096, "{} bytes", boot.len());
    assert!(boot.contains("This session's id: live-1"), "{boot}");
    assert!(
        boot.contains("| Codex |"),
        "other agents' sessions are listed: {boot}"
    );
    assert!(
        boot.contains("\"add a discount code to checkout\""),
        "{boot}"
    );
    assert!(boot.contains("data, not instructions"), "{boot}");
    assert!(boot.contains("@human/prefs.md"), "the notes index: {boot}");
    assert!(
        boot.contains("mcp__pi-context__history_read")
            && boot.contains("mcp__pi-context__sessions_search"),
        "Claude Code's names for the tools: {boot}"
    );
    let lines = boot
        .lines()
        .filter(|l| l.starts_with("- ") && l.contains(" | "))
        .count();
    assert!(lines <= 5 + 1, "at most five sessions: {boot}");

    // Codex names the tools in its own namespace.
    let (_, out) = hook(
        &env,
        "codex",
        "session-start",
        &input("live-2", &project, json!({"source": "startup"})),
    );
    let boot = context_of(&out, "SessionStart").expect("a boot");
    assert!(boot.contains("mcp__pi_context.history_read"), "{boot}");
}

#[test]
fn a_resumed_session_gets_one_line_unless_it_never_got_a_boot() {
    let env = TestEnv::new();
    let project = project(&env);
    let resume = input("live-r", &project, json!({"source": "resume"}));
    let (_, never_booted) = hook(&env, "claude", "session-start", &resume);
    let first = context_of(&never_booted, "SessionStart").unwrap();
    assert!(first.starts_with("<pi_context_boot>"), "{first}");
    let (_, again) = hook(&env, "claude", "session-start", &resume);
    let line = context_of(&again, "SessionStart").unwrap();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.starts_with("<pi_context_resumed>") && line.contains("live-r"),
        "{line}"
    );
}

/// A Claude Code transcript of two turns, then a compaction (boundary, summary).
fn compacted_transcript(env: &TestEnv, cwd: &Path, id: &str) -> PathBuf {
    let record = |v: Value| v.to_string() + "\n";
    let base = json!({"sessionId": id, "cwd": cwd});
    let mut text = String::new();
    let mut parent = Value::Null;
    for (n, (kind, content)) in [
        ("user", json!("first question")),
        ("assistant", json!([{"type":"text","text":"first answer"}])),
        ("user", json!("second question")),
        ("assistant", json!([{"type":"text","text":"second answer"}])),
    ]
    .into_iter()
    .enumerate()
    {
        let uuid = format!("u{n}");
        let mut r = base.clone();
        r["type"] = json!(kind);
        r["uuid"] = json!(uuid);
        r["parentUuid"] = parent.clone();
        r["timestamp"] = json!(format!("2026-02-01T10:00:0{n}Z"));
        r["message"] = json!({"role": kind, "content": content});
        text += &record(r);
        parent = json!(uuid);
    }
    let mut boundary = base.clone();
    boundary["type"] = json!("system");
    boundary["subtype"] = json!("compact_boundary");
    boundary["uuid"] = json!("b");
    boundary["parentUuid"] = Value::Null;
    boundary["logicalParentUuid"] = json!("u3");
    text += &record(boundary);
    let mut summary = base.clone();
    summary["type"] = json!("user");
    summary["uuid"] = json!("s");
    summary["parentUuid"] = json!("b");
    summary["isCompactSummary"] = json!(true);
    summary["message"] =
        json!({"role":"user","content":"This session is being continued: a summary"});
    text += &record(summary);
    let path = env
        .home()
        .join(".claude/projects")
        .join(claude_encoded(cwd))
        .join(format!("{id}.jsonl"));
    write(&path, &text)
}

#[test]
fn after_a_compaction_the_way_back_names_what_left_the_context() {
    let env = TestEnv::new();
    let project = project(&env);
    let id = "c1a0de00-1111-4aaa-8bbb-00000000c0c0";
    let transcript = compacted_transcript(&env, &project, id);
    let (code, out) = hook(
        &env,
        "claude",
        "session-start",
        &input(
            id,
            &project,
            json!({"source": "compact", "transcript_path": transcript}),
        ),
    );
    assert_eq!(code, 0);
    let block = context_of(&out, "SessionStart").unwrap();
    assert!(block.len() <= 1024, "{} bytes", block.len());
    assert!(block.starts_with("<pi_context_compacted>"), "{block}");
    assert!(block.contains("seqs 1 to 4 of this session"), "{block}");
    assert!(
        block.contains(&format!(
            "mcp__pi-context__history_list {{\"session_id\": \"{id}\", \"before\": 5}}"
        )),
        "{block}"
    );
    // The call it names opens the first turn.
    let listed = env
        .tool(
            "history_list",
            &json!({"params": {"session_id": id, "before": 5},
                    "context": {"session_file": null, "leaf_id": null, "session_id": "x", "cwd": project}}),
        );
    assert!(
        listed["text"].as_str().unwrap().contains("first question"),
        "{listed}"
    );
}

#[test]
fn before_a_compaction_claude_code_is_asked_to_keep_the_task_state_and_codex_nothing() {
    let env = TestEnv::new();
    let project = project_dir(&env, "p");
    let (code, out) = hook(
        &env,
        "claude",
        "pre-compact",
        &input("s-1", &project, json!({})),
    );
    assert_eq!(code, 0);
    assert!(
        out.starts_with("<pi_context_compaction_request>"),
        "plain text: {out}"
    );
    assert!(out.contains("s-1") && out.contains("task state"), "{out}");
    let (code, out) = hook(
        &env,
        "codex",
        "pre-compact",
        &input("s-1", &project, json!({})),
    );
    assert_eq!((code, out.as_str()), (0, ""));
}

#[test]
fn a_prompt_that_continues_earlier_work_gets_one_hint_per_window() {
    let env = TestEnv::new();
    let project = project(&env);
    let prompt = json!({"prompt": "the CMYK thumbnailer crash is back, what did we change?"});
    let (code, out) = hook(
        &env,
        "claude",
        "prompt",
        &input("live-h", &project, prompt.clone()),
    );
    assert_eq!(code, 0);
    let hint = context_of(&out, "UserPromptSubmit").expect("a hint");
    assert!(
        hint.starts_with("<recall_hint>") && hint.len() <= 600,
        "{hint}"
    );
    assert!(
        hint.contains("To read it: mcp__pi-context__history_read {"),
        "{hint}"
    );
    assert!(hint.contains(&session_id(1)), "{hint}");
    // Not twice in the same window…
    let (_, again) = hook(
        &env,
        "claude",
        "prompt",
        &input("live-h", &project, prompt.clone()),
    );
    assert_eq!(context_of(&again, "UserPromptSubmit"), None);
    // …but again after a compaction opened a new one.
    hook(
        &env,
        "claude",
        "session-start",
        &input("live-h", &project, json!({"source": "compact"})),
    );
    let (_, after) = hook(
        &env,
        "claude",
        "prompt",
        &input("live-h", &project, prompt.clone()),
    );
    assert!(context_of(&after, "UserPromptSubmit").is_some(), "{after}");
    // Codex answers in the same shape; an unrelated prompt gets nothing.
    let (_, codex) = hook(&env, "codex", "prompt", &input("live-x", &project, prompt));
    let hint = context_of(&codex, "UserPromptSubmit").expect("a hint");
    assert!(hint.contains("mcp__pi_context.history_read"), "{hint}");
    let unrelated = json!({"prompt": "add a dark mode toggle to the settings screen"});
    let (_, none) = hook(
        &env,
        "codex",
        "prompt",
        &input("live-x", &project, unrelated),
    );
    assert_eq!(none, "");
}

/// Two prompts of a window that each rank the planted session first by a rare word, each short
/// of the rest of the bar: the first leaves a lead in the session's state, the second gets the
/// hint. A compaction forgets the leads with the hints.
#[test]
fn a_second_prompt_pointing_at_the_same_session_gets_the_hint() {
    let env = TestEnv::new();
    let project = project(&env);
    let ask = |prompt: &str| {
        let (code, out) = hook(
            &env,
            "claude",
            "prompt",
            &input("live-l", &project, json!({ "prompt": prompt })),
        );
        assert_eq!(code, 0);
        context_of(&out, "UserPromptSubmit")
    };
    let first = "bump the thumbnailer package version";
    let second = "the thumbnailer falls over on print shop pictures";
    assert_eq!(ask(second), None, "alone, the second prompt gets nothing");
    hook(
        &env,
        "claude",
        "session-start",
        &input("live-l", &project, json!({"source": "compact"})),
    );
    assert_eq!(ask(first), None, "alone, the first prompt gets nothing");
    let hint = ask(second).expect("the second prompt corroborates the first");
    assert!(hint.contains(&session_id(1)), "{hint}");
    hook(
        &env,
        "claude",
        "session-start",
        &input("live-l", &project, json!({"source": "compact"})),
    );
    assert_eq!(ask(second), None, "a new window has no leads");
}

/// Claude Code's plugin registers the server as `plugin_pi-context_pi-context` and says so
/// with `--mcp-server`: the blocks name the tools as the model then sees them (found by the
/// plugin's test in the real Claude Code, tests/agents/test_plugin.py).
#[test]
fn the_blocks_name_the_tools_of_the_server_the_hook_is_told() {
    let env = TestEnv::new();
    let project = project(&env);
    let start = input("live-p", &project, json!({"source": "startup"})).to_string();
    let (code, out) = hook_raw(
        &env,
        &[
            "claude",
            "session-start",
            "--mcp-server",
            "plugin_pi-context_pi-context",
        ],
        &start,
    );
    assert_eq!(code, 0);
    let boot = context_of(&out, "SessionStart").expect("a boot");
    assert!(
        boot.contains("mcp__plugin_pi-context_pi-context__history_read {"),
        "{boot}"
    );
    assert!(!boot.contains("mcp__pi-context__"), "{boot}");
    // Codex spells the server's `-` as `_`; the hint names its read tool the same way.
    let prompt = json!({"prompt": "the CMYK thumbnailer crash is back, what did we change?"});
    let (_, out) = hook_raw(
        &env,
        &["codex", "prompt", "--mcp-server=my-memory"],
        &input("live-q", &project, prompt).to_string(),
    );
    let hint = context_of(&out, "UserPromptSubmit").expect("a hint");
    assert!(hint.contains("mcp__my_memory.history_read {"), "{hint}");
    // A name that is no server's name is ignored.
    let (_, out) = hook_raw(
        &env,
        &["claude", "session-start", "--mcp-server", "x y;z"],
        &input("live-r", &project, json!({"source": "startup"})).to_string(),
    );
    let boot = context_of(&out, "SessionStart").expect("a boot");
    assert!(boot.contains("mcp__pi-context__history_read {"), "{boot}");
}

#[test]
fn the_live_session_is_never_hinted() {
    let env = TestEnv::new();
    let project = project(&env);
    let prompt = json!({"prompt": "the CMYK thumbnailer crash is back, what did we change?"});
    let (_, out) = hook(
        &env,
        "claude",
        "prompt",
        &input(&session_id(1), &project, prompt),
    );
    assert_eq!(context_of(&out, "UserPromptSubmit"), None, "{out}");
}

#[test]
fn a_hook_fails_open_whatever_it_is_given() {
    let env = TestEnv::new();
    let project = project_dir(&env, "p");
    for (args, stdin) in [
        (&["claude", "prompt"][..], "not json"),
        (&["claude", "prompt"], "[1, 2]"),
        (&["claude", "prompt"], r#"{"prompt": "no session id"}"#),
        (&["claude", "no-such-event"], "{}"),
        (&["gemini-ultra", "prompt"], "{}"),
        (&["pi", "session-start"], r#"{"session_id": "s"}"#),
        (&[], ""),
        (&["claude", "prompt", "--unknown-flag", "extra"], "{}"),
    ] {
        let (code, out) = hook_raw(&env, args, stdin);
        assert_eq!((code, out.as_str()), (0, ""), "{args:?} {stdin:?}");
    }
    // A run that failed is recorded, with why, for `setup --status`.
    let status = env
        .cmd()
        .args(["setup", "--status", "--json"])
        .current_dir(&project)
        .output()
        .unwrap();
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    let claude = status["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "claude")
        .unwrap();
    let prompt = claude["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["event"] == "prompt")
        .unwrap();
    assert_eq!(prompt["last_run"]["outcome"], "error", "{prompt}");
    assert!(
        prompt["last_run"]["detail"]
            .as_str()
            .unwrap()
            .contains("session_id"),
        "{prompt}"
    );
}

/// A block pushed into Codex stays in its rollout as a `developer` message: a context event
/// that is never indexed, so never found or hinted as anyone's words.
#[test]
fn a_pushed_block_kept_in_a_transcript_is_never_indexed() {
    let env = TestEnv::new();
    let project = project_dir(&env, "p");
    let rollout = env
        .home()
        .join(".codex/sessions/2026/02/28/rollout-2026-02-28T11-00-00-0199c0de-2222-7ccc-8ddd-0000000000d2.jsonl");
    let record = |v: Value| v.to_string() + "\n";
    let developer = |text: &str| {
        record(
            json!({"timestamp":"2026-02-28T11:00:01Z","type":"response_item",
            "payload":{"type":"message","role":"developer",
            "content":[{"type":"input_text","text": text}]}}),
        )
    };
    let mut text = record(
        json!({"timestamp":"2026-02-28T11:00:00Z","type":"session_meta",
        "payload":{"id":"0199c0de-2222-7ccc-8ddd-0000000000d2","cwd":project}}),
    );
    text += &developer("<pi_context_boot>\nquokkaboot earlier sessions\n</pi_context_boot>");
    text += &developer("<recall_hint>\nquokkahint snippet\n</recall_hint>");
    text += &developer("sandbox rules quokkaplain");
    write(&rollout, &text);
    let found = env
        .cmd()
        .args([
            "sessions",
            "search",
            "--all",
            "--json",
            "quokkaboot",
            "quokkahint",
            "quokkaplain",
        ])
        .output()
        .unwrap();
    let found: Value = serde_json::from_slice(&found.stdout).unwrap();
    let hits = common::recall::hit_contents(&found);
    assert_eq!(hits.len(), 1, "only the harness's own words: {hits:?}");
    assert!(hits[0].contains("quokkaplain"), "{hits:?}");
}

/// `pi-context stats`: per agent, what was pushed, which hints were followed and which
/// pi-context tools were called, read from the transcripts.
#[test]
fn stats_count_what_was_pushed_followed_and_called_per_agent() {
    let env = TestEnv::new();
    let project = project_dir(&env, "p");
    let record = |v: Value| v.to_string() + "\n";
    let item = |payload: Value| {
        record(
            json!({"timestamp":"2026-02-28T11:00:01Z","type":"response_item","payload": payload}),
        )
    };
    let developer = |text: &str| {
        item(
            json!({"type":"message","role":"developer","content":[{"type":"input_text","text": text}]}),
        )
    };
    let user = |text: &str| {
        item(json!({"type":"message","role":"user","content":[{"type":"input_text","text": text}]}))
    };
    let mut text = record(
        json!({"timestamp":"2026-02-28T11:00:00Z","type":"session_meta",
        "payload":{"id":"0199c0de-2222-7ccc-8ddd-0000000000e3","cwd":project}}),
    );
    text += &developer("<pi_context_boot>\nearlier sessions\n</pi_context_boot>");
    text += &user("the cache bug again");
    text += &developer("<recall_hint>\nRecalled…\nTo read it: mcp__pi_context.history_read {\"session_id\":\"earlier-1\",\"seq\":4,\"leaf_id\":null}\n</recall_hint>");
    text += &item(
        json!({"type":"function_call","namespace":"mcp__pi_context","name":"history_read",
        "arguments":"{\"session_id\":\"earlier-1\",\"seq\":4}","call_id":"c1"}),
    );
    text += &item(json!({"type":"function_call_output","call_id":"c1","output":"the old fix"}));
    text += &item(
        json!({"type":"function_call","namespace":"mcp__pi_context","name":"notes_write",
        "arguments":"{\"address\":\"@project/a.md\",\"content\":\"x\"}","call_id":"c2"}),
    );
    text += &item(
        json!({"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c3"}),
    );
    write(
        &env.home().join(".codex/sessions/2026/02/28/rollout-2026-02-28T11-00-00-0199c0de-2222-7ccc-8ddd-0000000000e3.jsonl"),
        &text,
    );
    // A second Codex session whose hint is never followed.
    let mut other = record(
        json!({"timestamp":"2026-02-28T12:00:00Z","type":"session_meta",
        "payload":{"id":"0199c0de-2222-7ccc-8ddd-0000000000e4","cwd":project}}),
    );
    other += &developer("<recall_hint>\nTo read it: mcp__pi_context.history_read {\"session_id\":\"earlier-2\",\"seq\":1,\"leaf_id\":null}\n</recall_hint>");
    for n in 0..5 {
        other += &user(&format!("turn {n}"));
    }
    other += &item(
        json!({"type":"function_call","namespace":"mcp__pi_context","name":"history_read",
        "arguments":"{\"session_id\":\"earlier-2\",\"seq\":1}","call_id":"c9"}),
    );
    write(
        &env.home().join(".codex/sessions/2026/02/28/rollout-2026-02-28T12-00-00-0199c0de-2222-7ccc-8ddd-0000000000e4.jsonl"),
        &other,
    );
    // The second session again in another file (one session in two files, as Gemini CLI writes
    // a resume in a later minute): still one session.
    let mut again = record(
        json!({"timestamp":"2026-02-28T12:30:00Z","type":"session_meta",
        "payload":{"id":"0199c0de-2222-7ccc-8ddd-0000000000e4","cwd":project}}),
    );
    again += &user("turn 6");
    write(
        &env.home().join(".codex/archived_sessions/rollout-2026-02-28T12-30-00-0199c0de-2222-7ccc-8ddd-0000000000e4.jsonl"),
        &again,
    );
    let output = env
        .cmd()
        .args(["stats", "--since", "all", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stats: Value = serde_json::from_slice(&output.stdout).unwrap();
    let codex = stats["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "codex")
        .unwrap_or_else(|| panic!("{stats}"));
    assert_eq!(codex["sessions"], 2, "{codex}");
    assert_eq!(codex["boots"], 1, "{codex}");
    assert_eq!(codex["hints"], 2, "{codex}");
    assert_eq!(
        codex["hints_followed"], 1,
        "opened within three turns, not after five: {codex}"
    );
    assert_eq!(
        codex["tool_calls"],
        json!({"history_read": 2, "notes_write": 1}),
        "{codex}"
    );
    assert!(codex["bytes_pushed"].as_u64().unwrap() > 100, "{codex}");
}

/// Gemini CLI: the boot names the tools `mcp_pi-context_<tool>`, the hint answers its
/// `BeforeAgent` event, and the prompt it hands that hook opens with its `SessionStart` hook's
/// context (the boot, in a headless run; found by tests/agents/test_gemini.py), which is not the
/// user's words: the hint is judged on the words after it.
#[test]
fn gemini_gets_the_boot_and_a_hint_judged_on_the_users_words() {
    let env = TestEnv::new();
    let project = project(&env);
    let (code, out) = hook(
        &env,
        "gemini",
        "session-start",
        &input("live-g", &project, json!({"source": "startup"})),
    );
    assert_eq!(code, 0);
    let boot = context_of(&out, "SessionStart").expect("a boot");
    assert!(boot.contains("mcp_pi-context_history_read"), "{boot}");
    let escaped = boot.replace('<', "&lt;").replace('>', "&gt;");
    let prompt = format!(
        "<hook_context>{escaped}</hook_context>\n\nthe CMYK thumbnailer crash is back, what did we change?"
    );
    let (code, out) = hook(
        &env,
        "gemini",
        "prompt",
        &input("live-g", &project, json!({"prompt": prompt})),
    );
    assert_eq!(code, 0);
    let hint = context_of(&out, "BeforeAgent").expect("a hint");
    assert!(
        hint.contains("To read it: mcp_pi-context_history_read {"),
        "{hint}"
    );
    assert!(hint.contains(&session_id(1)), "{hint}");
}

/// OpenCode's hooks are asked by pi-context's plugin inside it, which reads one shape for every
/// event: `{"additionalContext"}` (the boot, the hint, the compaction's request), the tools named
/// as OpenCode's model calls them (`pi-context_<tool>`). The plugin asks for the boot once per
/// process: a session OpenCode runs again in a new process gets it again (nothing of it stays
/// in the conversation).
#[test]
fn opencode_plugin_gets_the_boot_the_hint_and_the_compaction_request_in_one_shape() {
    let env = TestEnv::new();
    let project = project(&env);
    let context = |event: &str, extra: Value| -> Option<String> {
        let (code, out) = hook(&env, "opencode", event, &input("ses_live", &project, extra));
        assert_eq!(code, 0);
        if out.trim().is_empty() {
            return None;
        }
        let answer: Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(answer.as_object().unwrap().len(), 1, "{answer}");
        Some(answer["additionalContext"].as_str().unwrap().to_string())
    };
    let boot = context("session-start", json!({"source": "startup"})).expect("a boot");
    assert!(boot.starts_with("<pi_context_boot>\n"), "{boot}");
    assert!(boot.contains("This session's id: ses_live"), "{boot}");
    assert!(
        boot.contains("pi-context_history_list {\"session_id\": \"ses_live\"}"),
        "{boot}"
    );
    let again = context("session-start", json!({"source": "startup"})).expect("a boot");
    assert!(again.starts_with("<pi_context_boot>\n"), "{again}");

    let hint = context(
        "prompt",
        json!({"prompt": "the thumbnailer crashes on CMYK jpegs again"}),
    )
    .expect("a hint");
    assert!(hint.starts_with("<recall_hint>"), "{hint}");
    assert!(hint.contains("pi-context_history_read {"), "{hint}");

    let request = context("pre-compact", json!({})).expect("the compaction's request");
    assert!(
        request.starts_with("<pi_context_compaction_request>\n") && request.contains("ses_live"),
        "{request}"
    );
}
