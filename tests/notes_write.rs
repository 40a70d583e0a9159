//! `notes write` and `notes_write`: where notes land, their frontmatter, outcomes, limits.

use crate::common;

use common::notes::*;
use common::TestEnv;
use serde_json::json;

#[test]
fn a_session_note_lands_as_a_real_file_with_canonical_frontmatter() {
    let env = TestEnv::new();
    let receipt = tool_ok(
        &env,
        "notes_write",
        json!({"address": "a/b", "content": "hello"}),
    );
    assert_eq!(receipt, json!({"address": "a/b.md", "outcome": "created"}));
    let text = read_file(&session_file(&env, "a/b.md"));
    let key = pi_context::notes::project_key(&env.work());
    assert_eq!(
        text,
        format!(
            "---\norigin: self\ncreatedAt: 2026-03-01T09:00:00.000+00:00\nupdatedAt: 2026-03-01T09:00:00.000+00:00\n\
lastAccessed: 2026-03-01T09:00:00.000+00:00\naccessCount: 0\nproject: {key}\n---\n\nhello"
        )
    );
    for absent in ["scope:", "status:", "stale:", "crumpledAt:"] {
        assert!(!text.contains(absent), "{absent} in {text}");
    }
    let names: Vec<_> = std::fs::read_dir(session_file(&env, ""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, vec!["a"], "no sidecar files such as .session.json");
}

#[test]
fn homes_map_to_their_directories() {
    let env = TestEnv::new();
    let key = pi_context::notes::project_key(&env.work());
    for (address, file) in [
        ("@project/p", format!("project/{key}/p.md")),
        ("@human/h", "human/h.md".to_string()),
        ("@self/s", "agents/anonymous/s.md".to_string()),
        ("@model/m", "models/default/m.md".to_string()),
        ("bare", format!("pi/session/{SESSION}/bare.md")),
    ] {
        write(&env, address, "x");
        assert!(env.notes_home().join(&file).is_file(), "{address} → {file}");
    }
    let project = read_file(&env.notes_home().join(format!("project/{key}/p.md")));
    assert!(
        !project.contains("project:"),
        "only session notes record a project: {project}"
    );
}

#[test]
fn write_receipt_names_the_project_key_only_for_project_notes() {
    let env = TestEnv::new();
    let key = pi_context::notes::project_key(&env.work());
    let project = tool_ok(
        &env,
        "notes_write",
        json!({"address": "@project/x", "content": "1"}),
    );
    assert_eq!(
        project,
        json!({"address": "@project/x.md", "outcome": "created", "project_key": key})
    );
    let human = tool_ok(
        &env,
        "notes_write",
        json!({"address": "@human/x", "content": "1"}),
    );
    assert_eq!(
        human,
        json!({"address": "@human/x.md", "outcome": "created"})
    );
    let cli = json(&env, &["write", "@project/y", "--content", "2"]);
    assert_eq!(
        cli,
        json!({"address": "@project/y.md", "outcome": "created", "project_key": key})
    );
}

#[test]
fn outcomes_are_created_overwrote_uncrumpled() {
    let env = TestEnv::new();
    let outcome = |address: &str| {
        tool_ok(
            &env,
            "notes_write",
            json!({"address": address, "content": "x"}),
        )["outcome"]
            .clone()
    };
    assert_eq!(outcome("@self/alias"), "created");
    assert_eq!(outcome("@agents/anonymous/alias.md"), "overwrote");
    ok(&env, &["edit", "@self/alias", "--crumple"]);
    assert_eq!(outcome("@self/alias"), "uncrumpled");
    let text = read_file(&env.notes_home().join("agents/anonymous/alias.md"));
    assert!(!text.contains("crumpledAt"), "{text}");
    assert_eq!(
        ok(&env, &["write", "@self/alias", "-c", "y"]),
        "overwrote @self/alias.md\n"
    );
}

#[test]
fn injected_frontmatter_in_the_content_is_dropped() {
    let env = TestEnv::new();
    write(
        &env,
        "n",
        "---\nscope: project\norigin: user\n---\n\nreal body",
    );
    let text = read_file(&session_file(&env, "n.md"));
    assert!(text.ends_with("---\n\nreal body"), "{text}");
    assert!(!text.contains("scope:"));
    assert_eq!(frontmatter_value(&text, "origin").as_deref(), Some("self"));
}

#[test]
fn overwrite_keeps_creation_counters_origin_project_and_unknown_lines() {
    let env = TestEnv::new();
    let path = session_file(&env, "keep.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let hand_written = "---\norigin: user\ncreatedAt: 2025-01-01T10:00:00.000+05:30\nupdatedAt: 2025-01-02T00:00:00.000Z\n\
custom: \"kept\"\n__proto__: {\"polluted\": true}\nlastAccessed: 2025-01-03T00:00:00.000+00:00\naccessCount: 7\n\
sourceWindow: pcw:abc:root\nrecurrenceCount: 3\nrecurrenceWindows:\n  - one\n  - two\nproject: other-project-12345678\n---\n\nold";
    std::fs::write(&path, hand_written).unwrap();
    // A different cwd, so a different current project key: the note keeps its own.
    let elsewhere = env.work().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    ok(
        &env,
        &[
            "write",
            "keep",
            "-c",
            "new",
            "--cwd",
            elsewhere.to_str().unwrap(),
        ],
    );
    let expected = hand_written
        .replace(
            "updatedAt: 2025-01-02T00:00:00.000Z",
            "updatedAt: 2026-03-01T09:00:00.000+00:00",
        )
        .replace("\n\nold", "\n\nnew");
    assert_eq!(read_file(&path), expected);
}

#[test]
fn an_explicit_origin_is_recorded_and_a_bad_one_refused() {
    let env = TestEnv::new();
    ok(&env, &["write", "o", "-c", "x", "--origin", "user"]);
    assert_eq!(
        frontmatter_value(&read_file(&session_file(&env, "o.md")), "origin").as_deref(),
        Some("user")
    );
    let refusal = tool_refusal(
        &env,
        "notes_write",
        json!({"address": "o", "content": "x", "origin": "robot"}),
    );
    assert_eq!(refusal["code"], "invalid_origin");
    let (code, _) = fails(&env, &["write", "o", "-c", "x", "--origin", "robot"]);
    assert_eq!(code, 2);
}

#[test]
fn content_comes_from_stdin_when_not_given() {
    let env = TestEnv::new();
    let _ = notes(&env, &["write", "@human/piped"])
        .write_stdin("line one\nline two\n")
        .run()
        .success();
    let text = read_file(&env.notes_home().join("human/piped.md"));
    assert!(text.ends_with("\n\nline one\nline two\n"), "{text}");
}

#[test]
fn notes_over_a_million_bytes_are_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    let big = "x".repeat(1_000_000);
    let refusal = tool_refusal(
        &env,
        "notes_write",
        json!({"address": "@human/big", "content": big}),
    );
    assert_eq!(refusal["code"], "too_large");
    assert!(refusal["actual_bytes"].as_u64().unwrap() > 1_000_000);
    assert_eq!(refusal["limit_bytes"], 1_000_000);
    assert!(!env.notes_home().join("human").exists());
    // Just under the limit once serialized is fine.
    let header = read_file(&{
        write(&env, "@human/probe", "");
        env.notes_home().join("human/probe.md")
    })
    .len();
    let fits = "y".repeat(1_000_000 - header);
    tool_ok(
        &env,
        "notes_write",
        json!({"address": "@human/probe", "content": fits}),
    );
    assert_eq!(
        std::fs::metadata(env.notes_home().join("human/probe.md"))
            .unwrap()
            .len(),
        1_000_000
    );
}

#[test]
fn paths_over_512_bytes_are_refused() {
    let env = TestEnv::new();
    let long = "a".repeat(513);
    let refusal = tool_refusal(
        &env,
        "notes_write",
        json!({"address": format!("@human/{long}"), "content": "x"}),
    );
    assert_eq!(refusal["code"], "too_large");
    assert_eq!(refusal["actual_bytes"], 513);
    // 512 bytes in segments short enough for the file system are accepted.
    let ok_path = vec!["b".repeat(100); 5].join("/") + "/cccc.md";
    assert_eq!(ok_path.len(), 512);
    tool_ok(
        &env,
        "notes_write",
        json!({"address": format!("@human/{ok_path}"), "content": "x"}),
    );
}

#[test]
fn timestamps_use_the_local_zone_with_an_explicit_offset() {
    let env = TestEnv::new();
    let _ = notes(&env, &["write", "@human/tz", "-c", "x"])
        .env("TZ", "Asia/Kolkata")
        .env("PI_CONTEXT_NOW", "2026-03-01T09:00:00.123Z")
        .run()
        .success();
    let text = read_file(&env.notes_home().join("human/tz.md"));
    assert_eq!(
        frontmatter_value(&text, "createdAt").as_deref(),
        Some("2026-03-01T14:30:00.123+05:30")
    );
    assert!(!text.contains('Z'), "{text}");
}

#[test]
fn writing_without_a_session_id_refuses_bare_addresses() {
    let env = TestEnv::new();
    let output = env
        .cmd()
        .args(["notes", "write", "bare", "-c", "x"])
        .run()
        .expect_code(2);
    let stderr = &output.stderr;
    assert!(stderr.contains("no session id"), "{stderr}");
    let refusal = tool_in(
        &env,
        "notes_write",
        json!({"address": "bare", "content": "x"}),
        json!({"notes_home": env.notes_home(), "cwd": env.work()}),
    );
    assert_eq!(refusal_of(&refusal)["code"], "invalid_scope");
    assert!(snapshot(&env.notes_home()).is_empty());
}
