//! Pieces of the tools' JSON Schemas that several tools share.

use serde_json::{json, Map, Value};

use pi_context::wire::{MAX_QUERIES, MAX_QUERY_CHARS};

/// A strict object schema (`additionalProperties: false`).
pub fn object(properties: Value, required: &[&str]) -> Value {
    let mut schema = json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    });
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// The properties of a `json!` object literal.
pub fn into_map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// `query`: a non-empty string or a non-empty array of them, within the query limits of
/// `wire`. `what` says what the strings are (literal text, words).
pub fn query_property(what: &str) -> Value {
    let string = json!({"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS});
    json!({
        "anyOf": [
            string,
            {"type": "array", "minItems": 1, "maxItems": MAX_QUERIES, "items": string}
        ],
        "description": format!("{what}; an array means any of them (at most {MAX_QUERIES} strings of at most {MAX_QUERY_CHARS} characters each).")
    })
}

/// `roles`: a non-empty subset of the four history roles.
/// Every harness by its wire name, with its label when that is not just the name capitalized:
/// `pi, claude (Claude Code), codex, …`.
pub fn harness_names_described() -> String {
    pi_context::recall::Harness::ALL
        .into_iter()
        .map(|h| {
            if h.label().eq_ignore_ascii_case(h.as_str()) {
                h.as_str().to_string()
            } else {
                format!("{} ({})", h.as_str(), h.label())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn harnesses_property(description: &str) -> Value {
    json!({
        "type": "array",
        "minItems": 1,
        "items": {"type": "string", "enum": pi_context::recall::Harness::NAMES},
        "description": description
    })
}

pub fn roles_property(description: &str) -> Value {
    json!({
        "type": "array",
        "minItems": 1,
        "items": {"type": "string", "enum": ["user", "assistant", "tool", "context"]},
        "description": description
    })
}
