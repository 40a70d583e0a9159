//! Snapshots of what people read: the human output (and error lines) of every command, with
//! the temp paths and the hashes derived from them redacted. The JSON output is checked field by
//! field in each feature's own tests; these pin the wording and layout.
//!
//! Update after an intended change: `INSTA_UPDATE=always cargo test --test human_output`, then
//! review the diff of `tests/snapshots/`.

use crate::common;

use std::path::Path;

use common::dream::{put, FakePi};
use common::recall::{project_dir, session_id, write_pi_session};
use common::session::SessionBuilder;
use common::{fixture, TestEnv};

/// The command, stdout, stderr and the exit status: everything a person sees.
fn run(env: &TestEnv, cwd: &Path, args: &[&str], stdin: &str) -> String {
    env.run_with(|cmd| cmd.current_dir(cwd).args(args).write_stdin(stdin))
        .to_string()
}

/// Snapshots `text` (normalized: `$TEST_ENV` for the temp root, `[HASH]` for the hashes of
/// temp paths in project keys) with the sizes of sessions, which hold temp paths, and the time
/// an index run took redacted.
fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r", [0-9.]+ (B|KB|MB|KiB|MiB)\)", ", [SIZE])");
    // What an index run took: bytes (the sessions hold temp paths) and seconds.
    settings.add_filter(
        r"[0-9.]+ (B|KB|MB) indexed in [0-9.]+ s",
        "[SIZE] indexed in [TIME] s",
    );
    settings.bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn history() {
    let env = TestEnv::new();
    let session = fixture("example-session.jsonl");
    let f = session.to_str().unwrap();
    let mut text = String::new();
    for args in [
        vec!["history", "windows", "--session", f],
        vec!["history", "list", "--session", f],
        vec![
            "history",
            "list",
            "--session",
            f,
            "--role",
            "tool",
            "--limit",
            "2",
        ],
        vec!["history", "search", "--session", f, "kelvin"],
        vec!["history", "search", "--session", f, "nothing-like-this"],
        vec!["history", "read", "6", "--session", f, "--limit", "120"],
        vec!["history", "read", "999", "--session", f],
    ] {
        text.push_str(&run(&env, &env.work(), &args, ""));
    }
    snapshot("history", &text);
}

#[test]
fn notes() {
    let env = TestEnv::new();
    let work = env.work();
    let mut text = String::new();
    let notes = |args: &[&str], stdin: &str| {
        let mut all = vec!["notes"];
        all.extend_from_slice(args);
        run(&env, &work, &all, stdin)
    };
    for (args, stdin) in [
        (
            vec![
                "write",
                "@project/decisions",
                "--content",
                "Use Celsius everywhere.\nRound to one decimal.",
            ],
            "",
        ),
        (vec!["write", "@human/preferences"], "tea, not coffee\n"),
        (
            vec![
                "edit",
                "@project/decisions",
                "--old",
                "Celsius",
                "--new",
                "Kelvin",
            ],
            "",
        ),
        (
            vec![
                "edit",
                "@project/decisions",
                "--old",
                "nowhere",
                "--new",
                "x",
            ],
            "",
        ),
        (vec!["move", "@human/preferences", "@human/drinks"], ""),
        (vec!["read", "@project/decisions"], ""),
        (vec!["list"], ""),
        (vec!["search", "decimal"], ""),
        (vec!["edit", "@human/drinks", "--crumple"], ""),
        (vec!["list", "--wastebasket"], ""),
        (vec!["read", "@human/missing"], ""),
        (vec!["write", "@agents/other/x", "--content", "no"], ""),
        (vec!["log", "@project/decisions"], ""),
        (vec!["diff", "@project/decisions"], ""),
        (vec!["restore", "@project/decisions", "--rev", "HEAD~3"], ""),
        (vec!["log", "--limit", "2"], ""),
    ] {
        text.push_str(&notes(&args, stdin));
    }
    // Commit ids depend on the identity that signs them (the machine's git config may name one).
    let commits = regex::Regex::new(r"\b[0-9a-f]{7,40}\b").unwrap();
    snapshot("notes", &commits.replace_all(&text, "[COMMIT]"));
}

#[test]
fn sessions() {
    let env = TestEnv::new();
    let project = project_dir(&env, "kingfisher");
    let mut session = SessionBuilder::with_id(&session_id(1)).cwd(project.to_str().unwrap());
    session.user("Why does the kingfisher build fail on the cache step?");
    session.assistant(
        "The cache key ignores the lock file; the kingfisher build reuses a stale cache.",
    );
    write_pi_session(&env, &project, &session);
    let mut other = SessionBuilder::with_id(&session_id(2)).cwd(project.to_str().unwrap());
    other.user("Rename the heron module.");
    write_pi_session(&env, &project, &other);
    let mut text = String::new();
    for args in [
        vec!["sessions", "list"],
        vec!["sessions", "search", "kingfisher cache"],
        vec!["sessions", "search", "nothinglikethis"],
        vec!["sessions", "index"],
    ] {
        text.push_str(&run(&env, &project, &args, ""));
    }
    snapshot("sessions", &text);
}

/// Sessions of Claude Code and Codex beside Pi's: each tagged with its agent, a subagent with
/// its parent's id.
#[test]
fn sessions_of_other_agents() {
    let env = TestEnv::new();
    let project = common::other_agents::three_agents(&env);
    let mut text = String::new();
    for args in [
        vec!["sessions", "list"],
        vec!["sessions", "search", "flamingo adapter"],
    ] {
        text.push_str(&run(&env, &project, &args, ""));
    }
    snapshot("sessions_of_other_agents", &text);
}

#[test]
fn dream_and_doctor() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/a.md", "no frontmatter here\n");
    let pi = FakePi::done(&env.work(), "done");
    let pi_path = pi.path.to_str().unwrap().to_string();
    let mut text = String::new();
    for args in [
        vec!["dream", "--dry-run"],
        vec!["dream", "--force", "--pi", pi_path.as_str()],
        vec!["dream", "doctor"],
        vec!["dream", "--min-hours=-1"],
    ] {
        text.push_str(&run(&env, &env.work(), &args, ""));
    }
    put(&home, ".dream.lock", "1 held-by-someone");
    text.push_str(&run(&env, &env.work(), &["dream", "--force"], ""));
    snapshot("dream", &text);
}

#[test]
fn boot_and_tool() {
    let env = TestEnv::new();
    put(
        &env.notes_home(),
        "human/MAP.md",
        "- `prefs.md`: how I like things\n",
    );
    let request = serde_json::json!({
        "reason": "session_start",
        "session_id": "0192aaaa-0001-7000-8000-000000000001",
        "window_id": "pcw:0192aaaa:root",
        "snapshot_time": common::FIXED_NOW,
        "cwd": env.work(),
    })
    .to_string();
    let mut text = run(&env, &env.work(), &["boot"], &request);
    text.push_str(&run(&env, &env.work(), &["boot"], "[1, 2]"));
    text.push_str(&run(&env, &env.work(), &["tool"], ""));
    text.push_str(&run(&env, &env.work(), &["tool", "no_such_tool"], "{}"));
    snapshot("boot_and_tool", &text);
}

#[test]
fn checkpoint() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = SessionBuilder::with_id(&session_id(1))
        .cwd(&project.to_string_lossy())
        .time_offset(-600);
    s.user("port the parser");
    s.custom(
        "pi-context/checkpoint",
        serde_json::json!({
            "generation": 2,
            "current": "Porting the parser to the new AST.",
            "completed": ["lexer ported"],
            "findings": ["spans are bytes in the old AST,\nnot code points"],
            "verification": ["cargo test --test lexer: 12 passed"],
            "next_action": "Port the expression rules.",
            "activity": {
                "files": [{"path": "src/lexer.rs", "tools": ["write", "edit"]}],
                "commands": [{"command": "cargo test --test lexer", "exit_code": 0}]
            }
        }),
    );
    s.custom(
        "pi-context/checkpoint",
        serde_json::json!({"generation": 3}),
    );
    s.assistant("on it");
    write_pi_session(&env, &project, &s);
    let mut text = run(&env, &project, &["checkpoint", "show"], "");
    text.push_str(&run(
        &env,
        &project,
        &[
            "checkpoint",
            "show",
            "--session",
            &session_id(1)[..13],
            "--leaf",
            "none",
        ],
        "",
    ));
    text.push_str(&run(
        &env,
        &project,
        &[
            "checkpoint",
            "show",
            "--session",
            &session_id(1),
            "--leaf",
            "nope",
        ],
        "",
    ));
    let elsewhere = project_dir(&env, "beta");
    text.push_str(&run(&env, &elsewhere, &["checkpoint", "show"], ""));
    snapshot("checkpoint", &text);
}

/// Transcript text can never drive the terminal (issue 38, item 16): escape, bell and OSC bytes
/// in a Claude Code title and prompt, a Codex session id and a Pi window id reach the human
/// output of `sessions` and `history` as visible `\u{…}` escapes, with or without colors.
#[test]
fn control_characters_of_transcripts_are_shown_escaped() {
    let env = TestEnv::new();
    let project = project_dir(&env, "ansi");
    let cwd = project.to_string_lossy().into_owned();
    let hostile = "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[2J\u{9b}31m";
    let claude_dir = env.root().join("claude");
    let claude = claude_dir
        .join("-ansi")
        .join("c1a0de00-1111-4aaa-8bbb-00000000ab01.jsonl");
    let record = |v: serde_json::Value| serde_json::to_string(&v).unwrap() + "\n";
    let mut text = record(serde_json::json!({"type":"custom-title",
        "customTitle": format!("title {hostile} end"),
        "sessionId":"c1a0de00-1111-4aaa-8bbb-00000000ab01"}));
    text += &record(
        serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,
        "sessionId":"c1a0de00-1111-4aaa-8bbb-00000000ab01","cwd":cwd,
        "timestamp":"2026-02-01T10:00:00Z",
        "message":{"role":"user","content": format!("tangerine prompt {hostile} tail")}}),
    );
    common::other_agents::write(&claude, &text);
    let codex_dir = env.root().join("codex");
    let codex = codex_dir.join("sessions/2026/02/01/rollout-2026-02-01T10-00-00-x.jsonl");
    let mut rollout = record(serde_json::json!({"timestamp":"2026-02-01T10:00:00Z",
        "type":"session_meta","payload":{"id": format!("id{hostile}"),"cwd":cwd}}));
    rollout += &record(serde_json::json!({"timestamp":"2026-02-01T10:00:01Z",
        "type":"response_item","payload":{"type":"message","role":"user",
        "content":[{"type":"input_text","text": format!("tangerine codex {hostile}")}]}}));
    common::other_agents::write(&codex, &rollout);
    let mut pi = SessionBuilder::with_id(&session_id(7)).cwd(&cwd);
    pi.user(&format!("tangerine pi {hostile}"));
    pi.reset_marker(&format!("pcw:window{hostile}"));
    pi.user("after the reset");
    let pi_file = write_pi_session(&env, &project, &pi);
    let dirs = [
        "--claude-dir",
        claude_dir.to_str().unwrap(),
        "--codex-dir",
        codex_dir.to_str().unwrap(),
    ];
    let mut runs: Vec<Vec<String>> = Vec::new();
    for color in ["never", "always"] {
        for verb in [
            &["sessions", "list", "--all"][..],
            &["sessions", "search", "tangerine", "--all"],
        ] {
            runs.push(
                verb.iter()
                    .chain(&dirs)
                    .chain(&["--color", color])
                    .map(|s| s.to_string())
                    .collect(),
            );
        }
        for file in [&claude, &codex, &pi_file] {
            let file = file.to_string_lossy().into_owned();
            for verb in [
                &["windows"][..],
                &["list"],
                &["read", "1"],
                &["search", "tangerine"],
            ] {
                let mut args = vec!["history".to_string()];
                args.extend(verb.iter().map(|s| s.to_string()));
                args.extend([
                    "--session".into(),
                    file.clone(),
                    "--color".into(),
                    color.into(),
                ]);
                runs.push(args);
            }
        }
    }
    for args in runs {
        let stdout = env.run_in(&project, &args).stdout;
        let colored = args.contains(&"always".to_string());
        let foreign = stdout
            .chars()
            .find(|&c| c.is_control() && c != '\n' && c != '\t' && !(colored && c == '\u{1b}'));
        assert_eq!(
            foreign, None,
            "{args:?} printed a control character:\n{stdout:?}"
        );
        assert!(
            !stdout.contains("\u{1b}]") && !stdout.contains("\u{1b}[2J"),
            "{args:?} let a sequence through:\n{stdout:?}"
        );
        if !args.contains(&"windows".to_string()) {
            assert!(
                stdout.contains("\\u{1b}"),
                "{args:?} shows the escape:\n{stdout}"
            );
        }
    }
}
