//! `notes read` and `notes_read`: READ WINDOWs over the body, code-point cursors, access counts.

use crate::common;

use common::notes::*;
use common::TestEnv;
use serde_json::{json, Value};

fn read(env: &TestEnv, params: Value) -> Value {
    let response = tool(env, "notes_read", params);
    assert_eq!(response["is_error"], false, "{}", response["text"]);
    response
}

/// The content after the READ WINDOW header.
fn content(response: &Value) -> String {
    let text = text(response);
    text.split_once("\n\n")
        .map(|(_, c)| c.to_string())
        .expect("a blank line ends the header")
}

#[test]
fn the_read_window_block_is_exact() {
    let env = TestEnv::new();
    write(&env, "@human/n", "line one\nline two");
    let response = read(&env, json!({"address": "@human/n"}));
    assert_eq!(
        text(&response),
        "--- READ WINDOW ---\naddress: @human/n.md\norigin: self\ncreated_at: 2026-03-01T09:00:00.000+00:00\n\
updated_at: 2026-03-01T09:00:00.000+00:00\nchars: [0,17) of 17\nnext_offset_chars: null\n\nline one\nline two"
    );
    assert_eq!(response["details"]["total_chars"], 17);
    assert_eq!(response["details"]["next_offset_chars"], Value::Null);
    assert!(response["details"].get("content").is_none());
}

#[test]
fn project_notes_name_their_key_and_crumpled_notes_their_time() {
    let env = TestEnv::new();
    let key = pi_context::notes::project_key(&env.work());
    write(&env, "@project/p", "x");
    ok(&env, &["edit", "@project/p", "--crumple"]);
    let text = text(&read(&env, json!({"address": "@project/p"}))).to_string();
    assert!(
        text.starts_with(&format!(
            "--- READ WINDOW ---\naddress: @project/p.md\nproject_key: {key}\norigin: self\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("\ncrumpled_at: 2026-03-01T09:00:00.000+00:00\nchars: [0,1) of 1\n"),
        "{text}"
    );
}

#[test]
fn a_read_returns_the_body_only_and_bumps_the_counters() {
    let env = TestEnv::new();
    write(&env, "n", "body text");
    let path = session_file(&env, "n.md");
    let _ = notes(&env, &["read", "n"])
        .env("PI_CONTEXT_NOW", "2026-03-04T00:00:00Z")
        .run()
        .success();
    let text = read_file(&path);
    assert_eq!(
        frontmatter_value(&text, "accessCount").as_deref(),
        Some("1")
    );
    assert_eq!(
        frontmatter_value(&text, "lastAccessed").as_deref(),
        Some("2026-03-04T00:00:00.000+00:00")
    );
    assert_eq!(
        frontmatter_value(&text, "updatedAt").as_deref(),
        Some("2026-03-01T09:00:00.000+00:00")
    );
    let response = read(&env, json!({"address": "n"}));
    assert_eq!(content(&response), "body text");
    assert!(!content(&response).contains("---"));
    assert_eq!(
        frontmatter_value(&read_file(&path), "accessCount").as_deref(),
        Some("2")
    );
}

#[test]
fn code_point_offsets_with_emoji_and_cjk() {
    let env = TestEnv::new();
    write(&env, "@human/cp", "🐑字\nneedle tail");
    let search = tool_ok(&env, "notes_search", json!({"query": "needle"}));
    assert_eq!(search["files"][0]["matches"][0]["offset_chars"], 3);
    let at_match = read(&env, json!({"address": "@human/cp", "offset_chars": 3}));
    assert!(content(&at_match).starts_with("needle"));
    let tail = read(&env, json!({"address": "@human/cp", "offset_chars": -4}));
    assert_eq!(content(&tail), "tail");
    assert_eq!(tail["details"]["next_offset_chars"], Value::Null);
    let limited = read(&env, json!({"address": "@human/cp", "limit_chars": 3}));
    assert_eq!(content(&limited), "🐑字\n");
    assert_eq!(limited["details"]["next_offset_chars"], 3);
    assert!(text(&limited).contains("\nchars: [0,3) of 14\nnext_offset_chars: 3\n\n"));
    let end = read(&env, json!({"address": "@human/cp", "offset_chars": 14}));
    assert_eq!(content(&end), "");
    let far_back = read(&env, json!({"address": "@human/cp", "offset_chars": -100}));
    assert_eq!(content(&far_back), "🐑字\nneedle tail");
    let past = tool_refusal(
        &env,
        "notes_read",
        json!({"address": "@human/cp", "offset_chars": 99999}),
    );
    assert_eq!(past["code"], "invalid_offset");
    assert_eq!(past["total_chars"], 14);
}

#[test]
fn following_next_offset_reconstructs_a_body_larger_than_the_budget() {
    let env = TestEnv::new();
    let body: String = (0..6000).map(|i| format!("{i} 🐑 строка 字\n")).collect();
    tool_ok(
        &env,
        "notes_write",
        json!({"address": "big", "content": body}),
    );
    let (mut offset, mut rebuilt, mut calls) = (0u64, String::new(), 0);
    loop {
        let response = read(
            &env,
            json!({"address": "big", "offset_chars": offset, "limit_chars": 50000}),
        );
        assert!(text(&response).len() <= 32 * 1024);
        rebuilt.push_str(&content(&response));
        calls += 1;
        match response["details"]["next_offset_chars"].as_u64() {
            Some(next) => offset = next,
            None => break,
        }
    }
    assert_eq!(rebuilt, body);
    assert!(calls > 3, "{calls} calls");
}

#[test]
fn a_missing_note_is_not_found_and_creates_nothing() {
    let env = TestEnv::new();
    let refusal = tool_refusal(&env, "notes_read", json!({"address": "@human/missing"}));
    assert_eq!(refusal["code"], "not_found");
    assert!(snapshot(&env.notes_home()).is_empty());
    insta::assert_snapshot!(run_notes(&env, &["read", "@human/missing"]).expect_code(2));
    assert!(snapshot(&env.notes_home()).is_empty());
}

#[test]
fn search_offsets_stay_valid_across_reads_and_ignore_a_long_frontmatter() {
    let env = TestEnv::new();
    let path = env.notes_home().join("human/stable.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let extra = format!("padding: {}\n", "p".repeat(200));
    std::fs::write(
        &path,
        format!("---\norigin: self\n{extra}accessCount: 8\n---\n\nfirst line\nthe needle here\n"),
    )
    .unwrap();
    for _ in 0..12 {
        let hit = tool_ok(
            &env,
            "notes_search",
            json!({"query": "needle", "pattern": "@human/**"}),
        );
        assert_eq!(hit["files"][0]["matches"][0]["offset_chars"], 15);
        let response = read(
            &env,
            json!({"address": "@human/stable", "offset_chars": 15, "limit_chars": 6}),
        );
        assert_eq!(content(&response), "needle");
    }
    assert_eq!(
        frontmatter_value(&read_file(&path), "accessCount").as_deref(),
        Some("20")
    );
    assert!(read_file(&path).contains(&extra));
}

#[test]
fn cli_read_prints_the_block_and_json_the_fields() {
    let env = TestEnv::new();
    write(&env, "@human/n", "abcdef");
    let human = ok(
        &env,
        &["read", "@human/n", "--offset", "-3", "--limit", "2"],
    );
    assert!(
        human.ends_with("chars: [3,5) of 6\nnext_offset_chars: 5\n\nde\n"),
        "{human}"
    );
    let doc = json(&env, &["read", "@human/n", "--offset", "2"]);
    assert_eq!(doc["address"], "@human/n.md");
    assert_eq!(doc["content"], "cdef");
    assert_eq!(doc["offset_chars"], 2);
    assert_eq!(doc["total_chars"], 6);
    assert_eq!(doc["next_offset_chars"], Value::Null);
    assert_eq!(doc["origin"], "self");
    let (code, _) = fails(&env, &["read", "@human/n", "--offset", "7"]);
    assert_eq!(code, 2);
}

#[test]
fn read_limits_are_checked() {
    let env = TestEnv::new();
    write(&env, "n", "x");
    for params in [
        json!({"address": "n", "limit_chars": 0}),
        json!({"address": "n", "limit_chars": 50001}),
        json!({"address": "n", "offset_chars": "1"}),
    ] {
        assert_eq!(
            tool_refusal(&env, "notes_read", params.clone())["code"],
            "invalid_params",
            "{params}"
        );
    }
    assert_eq!(
        tool_refusal(&env, "notes_read", json!({}))["code"],
        "invalid_params"
    );
}
