//! `pi-context tool --schemas` for the history tools: seq and anchor paging, the four roles,
//! strict parameter objects (history.md §4.1 item 1, item 3's `minimum`; contract §4).

use crate::common;

use common::session::{refusal, request, SessionBuilder};
use common::{schema_of, TestEnv};
use serde_json::{json, Value};

fn parameters<'a>(all: &'a Value, name: &str) -> &'a Value {
    &schema_of(all, name)["parameters"]
}

fn keys(schema: &Value) -> Vec<String> {
    schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// The subset of JSON Schema the tool schemas use (the one Pi's typebox validator applies).
fn valid(schema: &Value, value: &Value) -> bool {
    if let Some(options) = schema.get("anyOf") {
        return options.as_array().unwrap().iter().any(|s| valid(s, value));
    }
    if let Some(allowed) = schema.get("enum") {
        if !allowed.as_array().unwrap().contains(value) {
            return false;
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let Some(object) = value.as_object() else {
                return false;
            };
            let properties = schema["properties"].as_object().unwrap();
            if schema["additionalProperties"] == json!(false)
                && object.keys().any(|k| !properties.contains_key(k))
            {
                return false;
            }
            let required = schema
                .get("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if required
                .iter()
                .any(|k| !object.contains_key(k.as_str().unwrap()))
            {
                return false;
            }
            object
                .iter()
                .all(|(k, v)| properties.get(k).is_none_or(|s| valid(s, v)))
        }
        Some("array") => {
            let Some(items) = value.as_array() else {
                return false;
            };
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            items.len() as u64 >= min
                && items
                    .iter()
                    .all(|i| schema.get("items").is_none_or(|s| valid(s, i)))
        }
        Some("string") => {
            let Some(s) = value.as_str() else {
                return false;
            };
            s.chars().count() as u64 >= schema.get("minLength").and_then(Value::as_u64).unwrap_or(0)
        }
        Some("integer") => {
            let Some(n) = value.as_i64() else {
                return false;
            };
            schema
                .get("minimum")
                .and_then(Value::as_i64)
                .is_none_or(|m| n >= m)
                && schema
                    .get("maximum")
                    .and_then(Value::as_i64)
                    .is_none_or(|m| n <= m)
        }
        Some(other) => panic!("type {other} not covered by this validator"),
        None => true,
    }
}

#[test]
fn every_history_tool_is_described_with_a_strict_object_schema() {
    let env = TestEnv::new();
    let all = env.tool_schemas();
    for name in [
        "history_windows",
        "history_list",
        "history_read",
        "history_search",
    ] {
        let t = schema_of(&all, name);
        for field in ["label", "description", "execution_mode"] {
            assert!(
                t[field].as_str().is_some_and(|s| !s.is_empty()),
                "{name}.{field}"
            );
        }
        assert_eq!(t["parameters"]["type"], "object");
        assert_eq!(t["parameters"]["additionalProperties"], false, "{name}");
        assert_eq!(
            t.as_object().unwrap().keys().collect::<Vec<_>>(),
            [
                "name",
                "label",
                "description",
                "parameters",
                "execution_mode",
                "doors"
            ]
        );
    }
}

#[test]
fn history_windows_takes_only_the_session_to_read() {
    let env = TestEnv::new();
    let all = env.tool_schemas();
    let schema = parameters(&all, "history_windows");
    assert_eq!(keys(schema), ["session_id", "leaf_id"]);
    assert!(valid(schema, &json!({})));
    assert!(!valid(schema, &json!({"window_id": "x"})));
}

#[test]
fn read_requires_seq_and_has_no_item_or_window_id() {
    let env = TestEnv::new();
    let all = env.tool_schemas();
    let schema = parameters(&all, "history_read");
    assert_eq!(schema["required"], json!(["seq"]));
    assert_eq!(
        keys(schema),
        [
            "seq",
            "offset_chars",
            "limit_chars",
            "session_id",
            "leaf_id"
        ]
    );
    assert_eq!(schema["properties"]["seq"]["minimum"], 1);
    assert_eq!(schema["properties"]["limit_chars"]["maximum"], 50_000);
    assert!(
        schema["properties"]["offset_chars"]
            .get("minimum")
            .is_none(),
        "negative offsets are allowed"
    );
    assert!(valid(
        schema,
        &json!({"seq": 3, "offset_chars": -10, "limit_chars": 50_000})
    ));
    assert!(!valid(schema, &json!({})));
    assert!(!valid(schema, &json!({"seq": 3, "item_id": 1})));
    assert!(!valid(schema, &json!({"seq": 3, "window_id": "w"})));
    assert!(!valid(schema, &json!({"seq": 3, "limit_chars": 50_001})));
}

#[test]
fn list_pages_by_exclusive_seq_anchors_and_roles_only() {
    let env = TestEnv::new();
    let all = env.tool_schemas();
    let schema = parameters(&all, "history_list");
    assert_eq!(
        keys(schema),
        [
            "limit",
            "roles",
            "before",
            "after",
            "window_id",
            "max_chars_per_item",
            "session_id",
            "leaf_id"
        ]
    );
    for absent in [
        "around",
        "tool_name",
        "custom_type",
        "cursor",
        "recent_first",
    ] {
        assert!(schema["properties"].get(absent).is_none(), "{absent}");
    }
    assert_eq!(schema["properties"]["before"]["minimum"], 1);
    assert_eq!(schema["properties"]["after"]["minimum"], 1);
    assert_eq!(
        schema["properties"]["roles"]["items"]["enum"],
        json!(["user", "assistant", "tool", "context"])
    );
    assert!(schema.get("required").is_none());

    assert!(valid(schema, &json!({"roles": ["tool"]})));
    assert!(valid(
        schema,
        &json!({"before": 10, "after": 2, "limit": 3, "window_id": "w", "max_chars_per_item": 5})
    ));
    for rejected in [
        json!({"roles": ["tool_call"]}),
        json!({"roles": ["system"]}),
        json!({"tool_name": "bash"}),
        json!({"roles": []}),
        json!({"before": 0}),
        json!({"after": 0}),
        json!({"limit": 0}),
        json!({"window_id": ""}),
    ] {
        assert!(!valid(schema, &rejected), "{rejected}");
    }
}

#[test]
fn search_takes_a_query_and_the_list_filters() {
    let env = TestEnv::new();
    let all = env.tool_schemas();
    let schema = parameters(&all, "history_search");
    assert_eq!(schema["required"], json!(["query"]));
    assert!(schema["properties"].get("tool_name").is_none());
    let mut expected = vec!["query".to_string()];
    expected.extend(keys(parameters(&all, "history_list")));
    assert_eq!(keys(schema), expected);
    assert_eq!(
        schema["properties"]["roles"]["items"]["enum"],
        json!(["user", "assistant", "tool", "context"])
    );
    assert!(valid(schema, &json!({"query": "needle"})));
    assert!(valid(
        schema,
        &json!({"query": ["a", "b"], "roles": ["context"]})
    ));
    for rejected in [
        json!({}),
        json!({"query": ""}),
        json!({"query": []}),
        json!({"query": [3]}),
        json!({"query": "x", "tool_name": "bash"}),
        json!({"query": "x", "before": 0}),
    ] {
        assert!(!valid(schema, &rejected), "{rejected}");
    }
}

#[test]
fn the_binary_refuses_what_the_schemas_reject() {
    // The extension may skip validation: the binary holds the same line.
    let env = TestEnv::new();
    let all = env.tool_schemas();
    let mut s = SessionBuilder::new();
    s.user("x");
    let path = s.write_to(env.work().join("s.jsonl"));
    let cases = [
        ("history_windows", json!({"limit": 1})),
        ("history_list", json!({"roles": ["tool_call"]})),
        ("history_list", json!({"roles": ["system"]})),
        ("history_list", json!({"roles": []})),
        ("history_list", json!({"tool_name": "bash"})),
        ("history_list", json!({"before": 0})),
        ("history_list", json!({"after": 0})),
        ("history_list", json!({"cursor": "x"})),
        ("history_search", json!({"query": "x", "tool_name": "bash"})),
        ("history_search", json!({"query": "x", "after": 0})),
        ("history_read", json!({"seq": 1, "window_id": "w"})),
        ("history_read", json!({"seq": 1, "limit_chars": 50_001})),
        ("history_read", json!({"offset_chars": 1})),
    ];
    for (name, params) in cases {
        assert!(!valid(parameters(&all, name), &params), "{name} {params}");
        let error = refusal(&env.tool(name, &request(&path, params.clone())));
        assert_eq!(error["code"], "invalid_params", "{name} {params}");
    }
    // And accepts what they accept.
    for (name, params) in [
        ("history_windows", json!({})),
        (
            "history_list",
            json!({"roles": ["tool"], "before": 1, "after": 1}),
        ),
        ("history_search", json!({"query": ["x"], "limit": 1})),
        ("history_read", json!({"seq": 1, "offset_chars": -1})),
    ] {
        assert!(valid(parameters(&all, name), &params), "{name} {params}");
        assert_eq!(
            env.tool(name, &request(&path, params))["is_error"],
            false,
            "{name}"
        );
    }
}
