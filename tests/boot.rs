//! `pi-context boot`: the boot block rendered from a JSON request and one snapshot of the notes
//! store (hermetic: temp notes home, fixed clock, TZ=UTC; notes are written with the real
//! `pi-context notes` commands at chosen times).

use crate::common;

use common::TestEnv;
use pi_context::boot::PROTOCOL;
use serde_json::{json, Value};

const SESSION: &str = "01a2b3c4-5d6e-7f80-9a0b-c1d2e3f40516";
const SNAPSHOT: &str = "2026-03-01T09:00:00.000Z";

fn request(env: &TestEnv) -> Value {
    json!({
        "reason": "wipe_memory",
        "session_id": SESSION,
        "window_id": "pcw:01a2b3c4:9f8e7d6c",
        "previous_window_id": "pcw:01a2b3c4:root",
        "snapshot_time": SNAPSHOT,
        "cwd": env.work(),
        "project_key": "proj-1234abcd",
        "agent": "Tester",
        "model": "faux/faux-1",
        "notes_home": env.notes_home(),
    })
}

/// Writes a note with `notes write`, as of `at` (the store's clock is `PI_CONTEXT_NOW`).
fn write(env: &TestEnv, address: &str, body: &str, at: &str) {
    let _ = env
        .run_with(|cmd| {
            cmd.env("PI_CONTEXT_NOW", at).args([
                "notes",
                "write",
                address,
                "--content",
                body,
                "--session-id",
                SESSION,
                "--project-key",
                "proj-1234abcd",
                "--agent",
                "tester",
                "--model",
                "faux-1",
            ])
        })
        .success();
}

fn crumple(env: &TestEnv, address: &str) {
    let _ = env
        .run([
            "notes",
            "edit",
            address,
            "--crumple",
            "--session-id",
            SESSION,
            "--project-key",
            "proj-1234abcd",
            "--agent",
            "tester",
            "--model",
            "faux-1",
        ])
        .success();
}

fn boot(env: &TestEnv, request: &Value, json: bool) -> String {
    let args: &[&str] = if json { &["boot", "--json"] } else { &["boot"] };
    env.run_stdin(args, request.to_string()).success().stdout
}

/// A boot block as a snapshot shows it: the protocol (pinned by the library's constant, not
/// here) as `[PROTOCOL]`.
fn shown(text: &str) -> String {
    text.replace(PROTOCOL, "[PROTOCOL]")
}

const IDENTITY: &str = "<context_window>
Agent name: tester (brain: faux-1)
Project key: proj-1234abcd
First context window id: pcw:01a2b3c4:root
Current context window id: pcw:01a2b3c4:9f8e7d6c
Previous context window id: pcw:01a2b3c4:root
Opened: 2026-03-01T09:00:00Z (wipe_memory)
</context_window>";

#[test]
fn renders_identity_protocol_and_the_notes_index_exactly() {
    let env = TestEnv::new();
    write(
        &env,
        "@human/MAP",
        "- @human/prefs.md: how the human likes things\n",
        "2026-02-20T09:00:00.000Z",
    );
    write(
        &env,
        "@human/prefs",
        "Tabs, not spaces.\n",
        "2026-03-01T08:57:00.000Z",
    );
    write(
        &env,
        "@self/diary",
        "Day one: ünïcode counts as characters here.\n",
        "2026-02-28T07:00:00.000Z",
    );
    write(&env, "@self/old", "stale\n", "2026-02-27T07:00:00.000Z");
    crumple(&env, "@self/old");
    write(
        &env,
        "@project/MAP",
        "- decisions.md: what we chose\n",
        "2026-02-25T09:00:00.000Z",
    );
    write(
        &env,
        "plan",
        "1. boot\n2. test\n",
        "2026-03-01T08:59:30.000Z",
    );
    write(&env, "notes/scratch", "x\n", "2026-03-01T06:00:00.000Z");

    let text = boot(&env, &request(&env), false);
    let expected = format!(
        "{IDENTITY}

{PROTOCOL}

# Your notes

## The human | @human
●  MAP.md
- @human/prefs.md: how the human likes things
●  Recent notes
- @human/prefs.md | 18 chars | 3m ago

## You | @self → @agents/tester
●  Recent notes
- @self/diary.md | 44 chars | 1d ago

## This project | @project (proj-1234abcd)
●  MAP.md
- decisions.md: what we chose

## This session | bare paths
●  Recent notes
- plan.md | 16 chars | 30s ago
- notes/scratch.md | 2 chars | 3h ago
"
    );
    assert_eq!(text, expected);
    // The same snapshot renders the same bytes, and a boot records no access.
    let before = std::fs::read_to_string(env.notes_home().join("human/MAP.md")).unwrap();
    assert_eq!(boot(&env, &request(&env), false), expected);
    let after = std::fs::read_to_string(env.notes_home().join("human/MAP.md")).unwrap();
    assert_eq!(before, after, "the boot never rewrites a note");
}

#[test]
fn json_output_and_an_empty_store() {
    let env = TestEnv::new();
    let mut req = request(&env);
    req["reason"] = json!("session_start");
    req["window_id"] = json!("pcw:01a2b3c4:root");
    req["previous_window_id"] = Value::Null;
    let mut out: Value = serde_json::from_str(&boot(&env, &req, true)).unwrap();
    let text = out["text"].as_str().unwrap().to_string();
    assert!(!text.contains('\u{1b}'), "no colors");
    // No previous window; the empty store says so.
    out["text"] = json!("[below]");
    let pretty = serde_json::to_string_pretty(&out).unwrap();
    insta::assert_snapshot!(format!("{pretty}\ntext:\n{}", shown(&text)));
}

#[test]
fn a_map_longer_than_4096_code_points_is_cut_with_a_notice() {
    let env = TestEnv::new();
    let body = "é".repeat(5000);
    write(&env, "@model/MAP", &body, "2026-03-01T08:00:00.000Z");
    let text = boot(&env, &request(&env), false);
    let shown = "é".repeat(4096);
    let section = format!(
        "## Your model | @model → @models/faux-1\n●  MAP.md\n{shown}\n[MAP.md cut at 4096 of 5000 characters: slim it down; the rest is at notes_read @model/MAP.md with offset_chars 4096]\n"
    );
    assert!(
        text.ends_with(&section),
        "{}",
        &text[text.len().saturating_sub(400)..]
    );
    assert!(!text.contains(&"é".repeat(4097)));

    // Exactly 4096 is not cut.
    write(&env, "@model/MAP", &shown, "2026-03-01T08:00:00.000Z");
    let text = boot(&env, &request(&env), false);
    assert!(text.ends_with(&format!("●  MAP.md\n{shown}\n")));
}

#[test]
fn a_crumpled_map_is_left_out_and_at_most_five_recent_notes_show() {
    let env = TestEnv::new();
    write(&env, "@human/MAP", "old map\n", "2026-02-01T00:00:00.000Z");
    crumple(&env, "@human/MAP");
    for i in 0..7 {
        write(
            &env,
            &format!("@human/n{i}"),
            "x\n",
            &format!("2026-03-01T0{i}:00:00.000Z"),
        );
    }
    let text = boot(&env, &request(&env), false);
    insta::assert_snapshot!(shown(&text));
}

#[test]
fn rows_as_the_seed_shows_them_map_first_sizes_in_characters_three_for_the_model() {
    let env = TestEnv::new();
    // The MAP is the oldest note of its home and six newer notes follow: it still leads.
    write(
        &env,
        "@project/MAP",
        "- a.md: the map\n",
        "2026-02-01T00:00:00.000Z",
    );
    for i in 0..6 {
        write(
            &env,
            &format!("@project/p{i}"),
            "日本語😀\n",
            &format!("2026-03-01T0{i}:00:00.000Z"),
        );
    }
    // A MAP.md in a folder is an ordinary note, listed by its time like the others.
    write(
        &env,
        "@project/area/MAP",
        "- b.md\n",
        "2026-02-02T00:00:00.000Z",
    );
    for i in 0..5 {
        write(
            &env,
            &format!("@model/m{i}"),
            "ü\n",
            &format!("2026-03-01T0{i}:00:00.000Z"),
        );
    }
    // The project's MAP first and five recent notes (area/MAP.md is older than the five
    // shown), three for the model.
    let text = boot(&env, &request(&env), false);
    insta::assert_snapshot!(shown(&text));
}

#[test]
fn a_home_that_cannot_be_read_is_left_out_with_a_retry_line() {
    let env = TestEnv::new();
    write(&env, "@human/prefs", "Tabs.\n", "2026-03-01T08:00:00.000Z");
    write(&env, "@project/MAP", "- a.md\n", "2026-03-01T08:00:00.000Z");
    // A project home reached through a symlink cannot be read (the store never follows one).
    let project = env.notes_home().join("project/proj-1234abcd");
    let elsewhere = env.root().join("elsewhere");
    std::fs::rename(&project, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &project).unwrap();

    let text = boot(&env, &request(&env), false);
    insta::assert_snapshot!(shown(&text));
    let out: Value = serde_json::from_str(&boot(&env, &request(&env), true)).unwrap();
    assert_eq!(out["homes_unavailable"], json!(["@project"]));
}

#[test]
fn bad_requests_are_usage_errors() {
    let env = TestEnv::new();
    let mut text = String::new();
    for stdin in [
        "not json".to_string(),
        "[]".to_string(),
        json!({"reason": "nap", "session_id": "s", "window_id": "w", "snapshot_time": SNAPSHOT}).to_string(),
        json!({"reason": "manual", "session_id": "s", "window_id": "w", "snapshot_time": "yesterday"}).to_string(),
        json!({"reason": "manual", "session_id": "", "window_id": "w", "snapshot_time": SNAPSHOT}).to_string(),
    ] {
        let output = env.run_stdin(["boot"], stdin.as_str()).expect_code(2);
        assert!(output.stdout.is_empty(), "{output}");
        text.push_str(&format!("(stdin: {stdin})\n{output}"));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn identity_falls_back_to_the_environment() {
    let env = TestEnv::new();
    let req = json!({
        "reason": "session_start",
        "session_id": SESSION,
        "window_id": "pcw:01a2b3c4:root",
        "snapshot_time": SNAPSHOT,
        "project_key": "proj-1234abcd",
    });
    let text = env
        .run_with(|cmd| {
            cmd.env("PI_NOTES_AGENT", "Some Agent")
                .env("PI_CONTEXT_MODEL", "openai/GPT-5")
                .arg("boot")
                .write_stdin(req.to_string())
        })
        .success()
        .stdout;
    assert!(
        text.contains("Agent name: some-agent (brain: gpt-5)\n"),
        "{text}"
    );
}
