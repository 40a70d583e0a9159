//! Bounded work in `notes edit`: an edit that changes hundreds of thousands of lines finishes, its
//! result is well-formed, and the result matches what landed on disk.

use crate::common;

use std::time::Duration;

use common::notes::*;
use common::TestEnv;
use serde_json::json;

/// A hang guard only (the quadratic diff took minutes): never a speed assertion.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// The body of `@human/big` on disk.
fn big_body(env: &TestEnv) -> String {
    let text = read_file(&env.notes_home().join("human/big.md"));
    let start = text.find("\n---\n\n").expect("frontmatter") + 6;
    text[start..].to_string()
}

/// `notes_edit` through the tool protocol, under the hang guard.
fn tool_guarded(env: &TestEnv, params: serde_json::Value) -> serde_json::Value {
    let request = json!({"params": params, "context": context(env)});
    let output = env
        .cmd()
        .args(["tool", "notes_edit"])
        .write_stdin(request.to_string())
        .timeout(HANG_GUARD)
        .run()
        .success();
    let response: serde_json::Value = output.json();
    assert!(text(&response).len() <= 32 * 1024);
    response
}

fn write_big(env: &TestEnv, body: &str) {
    let _ = notes(env, &["write", "@human/big"])
        .write_stdin(body)
        .timeout(HANG_GUARD)
        .run()
        .success();
}

#[test]
fn an_edit_changing_450000_lines_finishes_with_a_whole_diff_on_the_command_line() {
    let env = TestEnv::new();
    write_big(&env, &"a\n".repeat(450_000));
    let output = notes(
        &env,
        &[
            "edit",
            "@human/big",
            "--old",
            "a",
            "--new",
            "b",
            "--replace-all",
            "--json",
        ],
    )
    .timeout(HANG_GUARD)
    .run()
    .success();
    let receipt: serde_json::Value = output.json();
    assert_eq!(receipt["applied"], 1);
    assert_eq!(receipt["change_kind"], "body");
    assert!(
        receipt.get("diff_truncated").is_none(),
        "{}",
        receipt["address"]
    );
    let diff = receipt["diff"].as_str().unwrap();
    assert!(diff.starts_with("--- @human/big.md\n+++ @human/big.md\n@@ -1,450000 +1,450000 @@\n"));
    assert_eq!(diff.lines().filter(|l| *l == "-a").count(), 450_000);
    assert_eq!(diff.lines().filter(|l| *l == "+b").count(), 450_000);
    assert_eq!(big_body(&env), "b\n".repeat(450_000));
}

#[test]
fn a_tool_edit_of_a_huge_interleaved_change_returns_a_cut_diff_that_matches_the_note() {
    let env = TestEnv::new();
    // Changed lines between unchanged ones: the shape that makes a minimal diff search costly.
    write_big(&env, &"a\n\n".repeat(330_000));
    let response = tool_guarded(
        &env,
        json!({"address": "@human/big", "edits": [{"oldText": "a", "newText": "b"}], "replace_all": true}),
    );
    assert_eq!(response["is_error"], false, "{}", response["text"]);
    let receipt: serde_json::Value = serde_json::from_str(text(&response)).unwrap();
    assert_eq!(receipt["change_kind"], "body");
    assert_eq!(receipt["diff_truncated"], true);
    assert_eq!(response["details"]["diff_truncated"], true);
    let diff = receipt["diff"].as_str().unwrap();
    assert!(
        diff.starts_with("--- @human/big.md\n+++ @human/big.md\n@@ "),
        "{}",
        &diff[..80]
    );
    // Every diff line shown is a line of the change (a coarse diff may also remove and re-add
    // unchanged empty lines; the last line may be cut).
    for line in diff.lines().skip(3) {
        assert!(
            matches!(line, "-a" | "+b" | " " | "-" | "+" | "") || line.starts_with("@@ "),
            "unexpected diff line {line:?}"
        );
    }
    assert_eq!(big_body(&env), "b\n\n".repeat(330_000));
    // The landed change is what the next edit sees.
    let again = tool_guarded(
        &env,
        json!({"address": "@human/big", "edits": [{"oldText": "b\n\nb", "newText": "c\n\nc"}], "replace_all": true}),
    );
    assert_eq!(again["details"]["applied"], 1, "{}", again["text"]);
}
