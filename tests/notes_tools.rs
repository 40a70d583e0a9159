//! The notes tools over the tool protocol: schemas, strict parameters, result and refusal shapes.

use crate::common;

use common::notes::*;
use common::TestEnv;
use serde_json::{json, Value};

#[test]
fn the_notes_tools_are_described_and_writes_run_sequentially() {
    let env = TestEnv::new();
    let all = env.tool_schemas();
    let tools: Vec<&Value> = all["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().unwrap().starts_with("notes_"))
        .collect();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "notes_write",
            "notes_edit",
            "notes_move",
            "notes_read",
            "notes_list",
            "notes_search",
            "notes_log",
            "notes_restore"
        ]
    );
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let mode = if ["notes_write", "notes_edit", "notes_move", "notes_restore"].contains(&name) {
            "sequential"
        } else {
            "parallel"
        };
        assert_eq!(tool["execution_mode"], mode, "{name}");
        assert_eq!(tool["parameters"]["additionalProperties"], false, "{name}");
        assert!(tool["description"].as_str().unwrap().len() > 100, "{name}");
        assert!(!tool["label"].as_str().unwrap().is_empty());
    }
    let edit = tools[1];
    let properties: Vec<&str> = edit["parameters"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        properties,
        ["address", "edits", "origin", "crumpled", "replace_all"]
    );
    assert_eq!(
        edit["parameters"]["properties"]["edits"]["items"]["additionalProperties"],
        false
    );
    assert!(
        tools[0]["parameters"]["properties"]
            .get("crumpled")
            .is_none(),
        "write takes no crumpled"
    );
    assert!(tools[5]["parameters"]["properties"]["wastebasket"].is_object());
    assert_eq!(tools[5]["parameters"]["required"], json!(["query"]));
}

#[test]
fn unknown_parameters_are_refused_before_anything_is_written() {
    let env = TestEnv::new();
    for (name, params) in [
        (
            "notes_write",
            json!({"address": "x", "content": "y", "crumpled": true}),
        ),
        (
            "notes_write",
            json!({"address": "x", "content": "y", "stale": true}),
        ),
        ("notes_edit", json!({"address": "x", "status": "done"})),
        ("notes_read", json!({"address": "x", "extra": 1})),
        ("notes_list", json!({"query": "x"})),
        ("notes_search", json!({"query": "x", "offset": 1})),
        ("notes_edit", json!({"address": "x", "crumpled": "yes"})),
        ("notes_list", json!({"wastebasket": 1})),
    ] {
        let refusal = tool_refusal(&env, name, params.clone());
        assert_eq!(refusal["code"], "invalid_params", "{name} {params}");
    }
    assert!(snapshot(&env.notes_home()).is_empty());
}

#[test]
fn refusals_are_flat_error_objects_with_exit_status_zero() {
    let env = TestEnv::new();
    let response = tool(&env, "notes_read", json!({"address": "@human/none"}));
    assert_eq!(response["is_error"], true);
    assert_eq!(
        serde_json::from_str::<Value>(text(&response)).unwrap(),
        json!({"error": {"code": "not_found", "message": "note not found: @human/none.md", "address": "@human/none.md"}})
    );
    assert_eq!(response["details"], json!({"code": "not_found"}));
}

#[test]
fn results_are_compact_json_without_ascii_escaping() {
    let env = TestEnv::new();
    let response = tool(
        &env,
        "notes_write",
        json!({"address": "@human/ünï", "content": "x"}),
    );
    assert_eq!(
        text(&response),
        r#"{"address":"@human/ünï.md","outcome":"created"}"#
    );
}

#[test]
fn read_details_carry_cursors_never_content() {
    let env = TestEnv::new();
    write(&env, "@human/n", "secret content");
    let response = tool(
        &env,
        "notes_read",
        json!({"address": "@human/n", "limit_chars": 6}),
    );
    let details = &response["details"];
    assert_eq!(details["offset_chars"], 0);
    assert_eq!(details["next_offset_chars"], 6);
    assert_eq!(details["total_chars"], 14);
    assert!(!details.to_string().contains("secret"));
}
