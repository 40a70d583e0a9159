//! `notes edit` and `notes_edit`: exact replacements, crumple and smooth, change kinds, diffs,
//! and refusals that leave the note byte-identical.

use crate::common;

use common::notes::*;
use common::TestEnv;
use serde_json::{json, Value};

fn edit(env: &TestEnv, params: Value) -> Value {
    tool_ok(env, "notes_edit", params)
}

fn later(env: &TestEnv, args: &[&str], now: &str) {
    let _ = notes(env, args).env("PI_CONTEXT_NOW", now).run().success();
}

#[test]
fn a_body_edit_reports_kind_body_with_a_unified_diff() {
    let env = TestEnv::new();
    write(&env, "n", "one\ntwo\nthree\n");
    let receipt = edit(
        &env,
        json!({"address": "n", "edits": [{"oldText": "two", "newText": "2"}]}),
    );
    assert_eq!(receipt["address"], "n.md");
    assert_eq!(receipt["applied"], 1);
    assert_eq!(receipt["change_kind"], "body");
    assert_eq!(
        receipt["diff"],
        "--- n.md\n+++ n.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
    );
    assert!(receipt.get("diff_truncated").is_none());
    let keys: Vec<&str> = receipt
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["address", "applied", "change_kind", "diff"]);
    assert!(read_file(&session_file(&env, "n.md")).ends_with("\n\none\n2\nthree\n"));
}

#[test]
fn edits_apply_in_order_and_count_only_real_changes() {
    let env = TestEnv::new();
    write(&env, "n", "alpha beta");
    let two = edit(
        &env,
        json!({"address": "n", "edits": [{"oldText": "alpha", "newText": "gamma"}, {"oldText": "gamma beta", "newText": "done"}]}),
    );
    assert_eq!(two["applied"], 2);
    assert!(read_file(&session_file(&env, "n.md")).ends_with("\n\ndone"));
    let mixed = edit(
        &env,
        json!({"address": "n", "edits": [{"oldText": "done", "newText": "done"}, {"oldText": "do", "newText": "re"}]}),
    );
    assert_eq!(
        (mixed["applied"].clone(), mixed["change_kind"].clone()),
        (json!(1), json!("body"))
    );
}

#[test]
fn a_no_op_edit_changes_nothing_and_writes_nothing() {
    let env = TestEnv::new();
    write(&env, "n", "same");
    let before = snapshot(&env.notes_home());
    let receipt = edit(
        &env,
        json!({"address": "n", "edits": [{"oldText": "same", "newText": "same"}], "crumpled": false}),
    );
    assert_eq!(
        receipt,
        json!({"address": "n.md", "applied": 0, "change_kind": "none", "diff": ""})
    );
    assert_eq!(snapshot(&env.notes_home()), before);
}

#[test]
fn an_ambiguous_anchor_fails_with_every_line_and_changes_nothing() {
    let env = TestEnv::new();
    write(&env, "n", "top\nneedle\nneedle\nend");
    let before = read_file(&session_file(&env, "n.md"));
    let refusal = tool_refusal(
        &env,
        "notes_edit",
        json!({"address": "n", "edits": [{"oldText": "needle", "newText": "x"}]}),
    );
    assert_eq!(refusal["code"], "ambiguous_edit");
    assert_eq!(refusal["line_numbers"], json!([2, 3]));
    assert_eq!(refusal["edit_index"], 0);
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("occurs 2 times"),
        "{refusal}"
    );
    assert_eq!(read_file(&session_file(&env, "n.md")), before);
    // The lines it occurs on, and --replace-all offered.
    insta::assert_snapshot!(
        run_notes(&env, &["edit", "n", "--old", "needle", "--new", "x"]).expect_code(2)
    );
}

#[test]
fn multi_line_anchors_report_their_start_lines() {
    let env = TestEnv::new();
    write(&env, "n", "a\nb\na\nb\na\nb");
    let refusal = tool_refusal(
        &env,
        "notes_edit",
        json!({"address": "n", "edits": [{"oldText": "a\nb", "newText": "x"}]}),
    );
    assert_eq!(refusal["line_numbers"], json!([1, 3, 5]));
}

#[test]
fn two_thousand_matches_are_all_reported_in_a_short_message() {
    let env = TestEnv::new();
    let body = "dup\n".repeat(2000);
    tool_ok(
        &env,
        "notes_write",
        json!({"address": "n", "content": body}),
    );
    let before = read_file(&session_file(&env, "n.md"));
    let refusal = tool_refusal(
        &env,
        "notes_edit",
        json!({"address": "n", "edits": [{"oldText": "dup", "newText": "x"}]}),
    );
    assert_eq!(refusal["line_numbers"].as_array().unwrap().len(), 2000);
    assert!(refusal.get("line_numbers_total").is_none());
    let message = refusal["message"].as_str().unwrap();
    assert!(
        message.contains("occurs 2000 times (lines 1, 2, 3, 4, 5, 6, 7, 8, and 1992 more)"),
        "{message}"
    );
    assert!(message.len() < 300);
    assert_eq!(read_file(&session_file(&env, "n.md")), before);
}

#[test]
fn line_numbers_that_do_not_fit_the_budget_are_cut_with_a_total() {
    let env = TestEnv::new();
    let body = "dup\n".repeat(20_000);
    tool_ok(
        &env,
        "notes_write",
        json!({"address": "n", "content": body}),
    );
    let refusal = tool_refusal(
        &env,
        "notes_edit",
        json!({"address": "n", "edits": [{"oldText": "dup", "newText": "x"}]}),
    );
    let shown = refusal["line_numbers"].as_array().unwrap();
    assert!(
        shown.len() > 1000 && shown.len() < 20_000,
        "{}",
        shown.len()
    );
    assert_eq!(shown[0], 1);
    assert_eq!(refusal["line_numbers_total"], 20_000);
}

#[test]
fn a_missing_anchor_names_its_edit_and_the_batch_is_all_or_nothing() {
    let env = TestEnv::new();
    write(&env, "n", "keep this");
    let before = read_file(&session_file(&env, "n.md"));
    let refusal = tool_refusal(
        &env,
        "notes_edit",
        json!({"address": "n", "edits": [{"oldText": "keep", "newText": "lose"}, {"oldText": "absent", "newText": "x"}]}),
    );
    assert_eq!(
        (refusal["code"].clone(), refusal["edit_index"].clone()),
        (json!("no_match"), json!(1))
    );
    assert_eq!(read_file(&session_file(&env, "n.md")), before);
    let zero = tool_refusal(
        &env,
        "notes_edit",
        json!({"address": "n", "edits": [{"oldText": "zzz", "newText": "x"}], "replace_all": true}),
    );
    assert_eq!(
        (zero["code"].clone(), zero["edit_index"].clone()),
        (json!("no_match"), json!(0))
    );
}

#[test]
fn anchors_only_in_the_frontmatter_do_not_match() {
    let env = TestEnv::new();
    write(&env, "n", "body");
    let refusal = tool_refusal(
        &env,
        "notes_edit",
        json!({"address": "n", "edits": [{"oldText": "accessCount", "newText": "x"}]}),
    );
    assert_eq!(refusal["code"], "no_match");
    assert!(refusal["message"].as_str().unwrap().contains("frontmatter"));
}

#[test]
fn replace_all_replaces_every_occurrence_literally() {
    let env = TestEnv::new();
    write(&env, "n", "a.b a.b a.b");
    let receipt = edit(
        &env,
        json!({"address": "n", "edits": [{"oldText": "a.b", "newText": "$1"}], "replace_all": true}),
    );
    assert_eq!(receipt["applied"], 1);
    assert!(read_file(&session_file(&env, "n.md")).ends_with("\n\n$1 $1 $1"));
}

#[test]
fn nothing_to_do_and_not_found_are_named() {
    let env = TestEnv::new();
    for params in [
        json!({"address": "n"}),
        json!({"address": "n", "edits": []}),
    ] {
        assert_eq!(
            tool_refusal(&env, "notes_edit", params)["code"],
            "nothing_to_do"
        );
    }
    let missing = tool_refusal(
        &env,
        "notes_edit",
        json!({"address": "n", "crumpled": true}),
    );
    assert_eq!(missing["code"], "not_found");
    assert_eq!(missing["message"], "note not found: n.md");
    assert!(snapshot(&env.notes_home())
        .keys()
        .all(|p| p.starts_with(".locks")));
    insta::assert_snapshot!(run_notes(&env, &["edit", "n"]).expect_code(2));
}

#[test]
fn crumpling_is_metadata_keeps_updated_at_and_the_first_time() {
    let env = TestEnv::new();
    write(&env, "n", "body");
    let path = session_file(&env, "n.md");
    let updated = frontmatter_value(&read_file(&path), "updatedAt");
    let crumple = notes(&env, &["edit", "n", "--crumple", "--json"])
        .env("PI_CONTEXT_NOW", "2026-03-02T10:00:00Z")
        .run();
    let receipt = crumple.json();
    assert_eq!(receipt["change_kind"], "metadata");
    assert_eq!(receipt["applied"], 0);
    // A metadata diff: the frontmatter only, the body left out.
    insta::assert_snapshot!(env.normalize(receipt["diff"].as_str().unwrap()));
    let text = read_file(&path);
    assert_eq!(frontmatter_value(&text, "updatedAt"), updated);
    assert_eq!(
        frontmatter_value(&text, "crumpledAt").as_deref(),
        Some("2026-03-02T10:00:00.000+00:00")
    );

    later(&env, &["edit", "n", "--crumple"], "2026-03-03T10:00:00Z");
    assert_eq!(
        read_file(&path),
        text,
        "re-crumpling keeps the first time and writes nothing"
    );
    let again = edit(&env, json!({"address": "n", "crumpled": true}));
    assert_eq!(again["change_kind"], "none");

    let smooth = edit(&env, json!({"address": "n", "crumpled": false}));
    assert_eq!(smooth["change_kind"], "metadata");
    assert!(!read_file(&path).contains("crumpledAt"));
    assert_eq!(frontmatter_value(&read_file(&path), "updatedAt"), updated);
}

#[test]
fn a_body_edit_with_a_crumple_is_a_file_change() {
    let env = TestEnv::new();
    write(&env, "n", "old");
    let receipt = edit(
        &env,
        json!({"address": "n", "edits": [{"oldText": "old", "newText": "new"}], "crumpled": true}),
    );
    assert_eq!(receipt["change_kind"], "file");
    // The frontmatter and the body in one diff.
    insta::assert_snapshot!(env.normalize(receipt["diff"].as_str().unwrap()));
}

#[test]
fn an_origin_change_is_metadata_and_bumps_updated_at() {
    let env = TestEnv::new();
    write(&env, "n", "x");
    let _ = notes(&env, &["edit", "n", "--origin", "external"])
        .env("PI_CONTEXT_NOW", "2026-03-05T00:00:00Z")
        .run()
        .success();
    let text = read_file(&session_file(&env, "n.md"));
    assert_eq!(
        frontmatter_value(&text, "origin").as_deref(),
        Some("external")
    );
    assert_eq!(
        frontmatter_value(&text, "updatedAt").as_deref(),
        Some("2026-03-05T00:00:00.000+00:00")
    );
    assert_eq!(
        tool_refusal(&env, "notes_edit", json!({"address": "n", "origin": "bot"}))["code"],
        "invalid_origin"
    );
}

#[test]
fn cli_pairs_old_and_new_and_accepts_json_edits() {
    let env = TestEnv::new();
    write(&env, "n", "- item one\n- item two\n");
    let out = ok(
        &env,
        &[
            "edit",
            "n",
            "--old",
            "- item one",
            "--new",
            "- first",
            "--old",
            "two",
            "--new",
            "second",
        ],
    );
    insta::assert_snapshot!("pairs_applied", out);
    ok(
        &env,
        &[
            "edit",
            "n",
            "--edits",
            r#"[{"oldText":"first","newText":"1st"}]"#,
        ],
    );
    assert!(read_file(&session_file(&env, "n.md")).ends_with("\n\n- 1st\n- item second\n"));
    insta::assert_snapshot!(
        "pairs_refused",
        run_notes(&env, &["edit", "n", "--old", "1st"]).expect_code(2)
    );
    let (code, stderr) = fails(&env, &["edit", "n", "--edits", r#"[{"old":"x"}]"#]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--edits must be"), "{stderr}");
    let unchanged = ok(&env, &["edit", "n", "--smooth"]);
    assert_eq!(unchanged, "unchanged n.md: nothing to change\n");
}

#[test]
fn wrongly_shaped_edit_params_are_refused() {
    let env = TestEnv::new();
    write(&env, "n", "x");
    for edits in [
        json!("x"),
        json!([{"oldText": 1, "newText": "y"}]),
        json!([{"oldText": "x"}]),
        json!([{"oldText": "x", "newText": "y", "extra": 1}]),
    ] {
        let refusal = tool_refusal(&env, "notes_edit", json!({"address": "n", "edits": edits}));
        assert_eq!(refusal["code"], "invalid_params", "{edits}");
    }
    let empty = tool_refusal(
        &env,
        "notes_edit",
        json!({"address": "n", "edits": [{"oldText": "", "newText": "y"}]}),
    );
    assert_eq!(
        (empty["code"].clone(), empty["edit_index"].clone()),
        (json!("no_match"), json!(0))
    );
}

#[test]
fn a_huge_diff_is_cut_to_the_budget_and_the_edit_still_applies() {
    let env = TestEnv::new();
    let body: String = (0..3000).map(|i| format!("line {i}\n")).collect();
    tool_ok(
        &env,
        "notes_write",
        json!({"address": "n", "content": body}),
    );
    let replaced = body.replace("line", "LINE");
    let receipt = edit(
        &env,
        json!({"address": "n", "edits": [{"oldText": body, "newText": replaced}]}),
    );
    assert_eq!(receipt["diff_truncated"], true);
    assert!(read_file(&session_file(&env, "n.md")).ends_with(&replaced));
}
