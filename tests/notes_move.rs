//! `notes move` and `notes_move`: metadata kept, the session boundary, crumpled and live
//! targets, refusals that change nothing, and atomicity against concurrent readers and movers.

use crate::common;

use std::fs;

use common::notes::*;
use common::TestEnv;
use serde_json::json;

/// A note with hand-written frontmatter: a counter, an unknown line, an old access.
fn seed(env: &TestEnv, rel: &str, extra: &str) -> std::path::PathBuf {
    let path = env.notes_home().join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(
        &path,
        format!(
            "---\norigin: user\ncreatedAt: 2026-01-01T10:00:00.000+01:00\nupdatedAt: 2026-01-02T10:00:00.000+01:00\n\
lastAccessed: 2026-01-03T10:00:00.000+01:00\naccessCount: 7\n{extra}tags: [a, b]   # kept as written\n---\n\nthe body\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn a_move_keeps_the_metadata_and_moves_updated_at_to_now() {
    let env = TestEnv::new();
    let from = seed(&env, "human/old.md", "");
    let receipt = tool_ok(
        &env,
        "notes_move",
        json!({"from": "@human/old", "to": "@human/topic/new"}),
    );
    assert_eq!(
        receipt,
        json!({"from": "@human/old.md", "to": "@human/topic/new.md", "outcome": "moved"})
    );
    assert!(!from.exists());
    let text = read_file(&env.notes_home().join("human/topic/new.md"));
    assert_eq!(
        text,
        "---\norigin: user\ncreatedAt: 2026-01-01T10:00:00.000+01:00\nupdatedAt: 2026-03-01T09:00:00.000+00:00\n\
lastAccessed: 2026-01-03T10:00:00.000+01:00\naccessCount: 7\ntags: [a, b]   # kept as written\n---\n\nthe body\n"
    );
}

#[test]
fn the_project_key_follows_the_session_boundary() {
    let env = TestEnv::new();
    let key = pi_context::notes::project_key(&env.work());
    write(&env, "plan", "steps");
    let session_note = read_file(&session_file(&env, "plan.md"));
    assert_eq!(
        frontmatter_value(&session_note, "project"),
        Some(key.clone())
    );
    ok(&env, &["move", "plan", "@project/plan"]);
    let promoted = read_file(&env.notes_home().join(format!("project/{key}/plan.md")));
    assert_eq!(frontmatter_value(&promoted, "project"), None, "{promoted}");
    ok(&env, &["move", "@project/plan", "back"]);
    let back = read_file(&session_file(&env, "back.md"));
    assert_eq!(frontmatter_value(&back, "project"), Some(key), "{back}");
    let human = seed(&env, "human/h.md", "");
    ok(&env, &["move", "@human/h", "@self/h"]);
    assert!(!human.exists());
    let mine = read_file(&env.notes_home().join("agents/anonymous/h.md"));
    assert_eq!(frontmatter_value(&mine, "project"), None);
}

#[test]
fn a_crumpled_target_is_replaced_and_a_live_one_refused() {
    let env = TestEnv::new();
    seed(&env, "human/a.md", "");
    seed(&env, "human/live.md", "");
    seed(
        &env,
        "human/old.md",
        "crumpledAt: 2026-02-01T00:00:00.000+00:00\n",
    );
    let before = snapshot(&env.notes_home());
    let refusal = tool_refusal(
        &env,
        "notes_move",
        json!({"from": "@human/a", "to": "@human/live"}),
    );
    assert_eq!(refusal["code"], "already_exists", "{refusal}");
    assert_eq!(
        snapshot(&env.notes_home()),
        before,
        "a refusal changes nothing"
    );
    let receipt = tool_ok(
        &env,
        "notes_move",
        json!({"from": "@human/a", "to": "@human/old"}),
    );
    assert_eq!(receipt["outcome"], "replaced_crumpled");
    let text = read_file(&env.notes_home().join("human/old.md"));
    assert!(!text.contains("crumpledAt"), "{text}");
    assert!(text.contains("createdAt: 2026-01-01T10:00:00.000+01:00"));
    let human = ok(&env, &["move", "@human/old", "@human/renamed"]);
    assert_eq!(human.trim(), "moved @human/old.md -> @human/renamed.md");
}

#[test]
fn refusals_name_the_problem_and_touch_nothing() {
    let env = TestEnv::new();
    seed(&env, "human/a.md", "");
    seed(&env, "agents/other/theirs.md", "");
    let before = snapshot(&env.notes_home());
    for (params, code) in [
        (
            json!({"from": "@human/missing", "to": "@human/x"}),
            "not_found",
        ),
        (
            json!({"from": "@human/a", "to": "@human/a.md"}),
            "nothing_to_do",
        ),
        (
            json!({"from": "@human/a", "to": "@agents/other/x"}),
            "invalid_scope",
        ),
        (
            json!({"from": "@agents/other/theirs", "to": "@human/t"}),
            "invalid_scope",
        ),
        (
            json!({"from": "@human/a", "to": "@human/../escape"}),
            "invalid_address",
        ),
        (
            json!({"from": "@human/a", "to": "@nowhere/x"}),
            "invalid_address",
        ),
        (
            json!({"from": "@human/a", "to": "@human/a\u{200b}b"}),
            "invalid_address",
        ),
        (json!({"from": "@human/a"}), "invalid_params"),
    ] {
        let refusal = tool_refusal(&env, "notes_move", params.clone());
        assert_eq!(refusal["code"], code, "{params}: {refusal}");
    }
    assert_eq!(snapshot(&env.notes_home()), before);
    let (code, stderr) = fails(&env, &["move", "@human/a", "@agents/other/x"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn a_symlinked_target_directory_is_refused() {
    let env = TestEnv::new();
    seed(&env, "human/a.md", "");
    let outside = env.root().join("outside");
    fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, env.notes_home().join("human/linked")).unwrap();
    let refusal = tool_refusal(
        &env,
        "notes_move",
        json!({"from": "@human/a", "to": "@human/linked/a"}),
    );
    assert_eq!(refusal["code"], "invalid_address", "{refusal}");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
    assert!(env.notes_home().join("human/a.md").exists());
}

#[test]
fn files_name_notes_below_the_home_for_the_dreamer() {
    let env = TestEnv::new();
    seed(&env, "human/a.md", "");
    seed(&env, "project/app-1a2b3c4d/p.md", "");
    let out = json(&env, &["move", "--files", "human/a.md", "human/b.md"]);
    assert_eq!(out["to"], "@human/b.md");
    let out = json(
        &env,
        &[
            "move",
            "--files",
            "project/app-1a2b3c4d/p.md",
            "project/app-1a2b3c4d/q.md",
        ],
    );
    assert_eq!(out["project_key"], "app-1a2b3c4d");
    assert!(env.notes_home().join("project/app-1a2b3c4d/q.md").exists());
    for bad in [
        "human/b",
        "dreams/x.md",
        "../human/b.md",
        "agents/other/x.md",
    ] {
        let (code, _) = fails(&env, &["move", "--files", "human/b.md", bad]);
        assert_eq!(code, 2, "{bad}");
    }
    assert!(env.notes_home().join("human/b.md").exists());
}

/// Two movers racing the same note back and forth never lose it or duplicate it, and readers
/// always find it whole or not at all.
#[test]
fn racing_moves_never_lose_or_duplicate_a_note() {
    let env = TestEnv::new();
    seed(&env, "human/ping.md", "");
    let run = |args: &[&str]| env.process().args(args).run();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                for _ in 0..60 {
                    // Either direction may be refused (the note is elsewhere, or its target is
                    // taken): never an error of another kind.
                    for (from, to) in [
                        ("@human/ping", "@human/pong"),
                        ("@human/pong", "@human/ping"),
                    ] {
                        let out = run(&["notes", "move", from, to, "--json"]);
                        let stderr = out.stderr;
                        assert!(
                            out.code == 0
                                || stderr.contains("not found")
                                || stderr.contains("live note"),
                            "{stderr}"
                        );
                    }
                }
            });
        }
        scope.spawn(|| {
            for _ in 0..150 {
                for address in ["@human/ping", "@human/pong"] {
                    let out = run(&["notes", "read", address]);
                    let stdout = out.stdout;
                    let stderr = out.stderr;
                    if out.code == 0 {
                        assert!(stdout.ends_with("the body\n"), "a torn note: {stdout}");
                    } else {
                        assert!(stderr.contains("not found"), "{stderr}");
                    }
                }
            }
        });
    });
    let home = env.notes_home().join("human");
    let present: Vec<_> = ["ping.md", "pong.md"]
        .iter()
        .filter(|n| home.join(n).exists())
        .collect();
    assert_eq!(present.len(), 1, "{present:?}");
    let leftovers: Vec<_> = fs::read_dir(&home)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| !n.to_string_lossy().ends_with(".md"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
