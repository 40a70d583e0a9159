//! The model-facing names, descriptions and parameter schemas of every tool: the one place
//! they are written. The extension registers tools from `pi-context tool --schemas`.

use serde_json::{json, Value};

use pi_context::wire::{
    DEFAULT_PAGE_LIMIT, DEFAULT_PREVIEW_CHARS, DEFAULT_READ_CHARS, MAX_READ_CHARS,
};

struct Tool {
    name: &'static str,
    label: &'static str,
    description: &'static str,
    parameters: fn() -> Value,
    /// `parallel` tools may run side by side; `sequential` ones run one at a time.
    execution_mode: &'static str,
}

const TOOLS: &[Tool] = &[
    Tool {
        name: "history_windows",
        label: "History windows",
        description: "List the context windows of this session, oldest first, with the seq range and event count of each. \
Every wipe_memory starts a new window; everything said before stays readable with history_list, history_search and history_read.",
        parameters: windows_parameters,
        execution_mode: "parallel",
    },
    Tool {
        name: "history_list",
        label: "History list",
        description: "List this session's events by seq: the newest page by default, oldest first within the page. \
Roles: user, assistant, tool (one call with its output), context (summaries and injected messages). \
Without roles you get the conversation view: user and assistant rows, with tool and context events between them folded into count rows. \
Page older by passing older_before as before, newer by passing newer_after as after; before and after are exclusive and can be combined. \
Rows show a preview; use history_read with a seq for the full text.",
        parameters: list_parameters,
        execution_mode: "parallel",
    },
    Tool {
        name: "history_search",
        label: "History search",
        description: "Search this session's events (all windows of the current branch) for literal text, case-insensitive; \
several queries are OR-ed, and regex characters match literally. Each row's preview starts at the earliest match and carries offset_chars; \
pass that seq and offset to history_read to read on from the match. Paging and filters work as in history_list.",
        parameters: search_parameters,
        execution_mode: "parallel",
    },
    Tool {
        name: "history_read",
        label: "History read",
        description: "Read the full text of one event by seq as a READ WINDOW. Offsets and lengths count Unicode code points; \
a negative offset_chars counts from the end. When next_offset_chars is not null, call again with it to continue: \
the windows concatenate to the exact text. Reading a tool result's seq shows the call it belongs to.",
        parameters: read_parameters,
        execution_mode: "parallel",
    },
];

pub fn names() -> Vec<&'static str> {
    TOOLS.iter().map(|t| t.name).collect()
}

pub fn all() -> Value {
    let tools: Vec<Value> = TOOLS
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "label": t.label,
                "description": t.description,
                "parameters": (t.parameters)(),
                "execution_mode": t.execution_mode,
            })
        })
        .collect();
    json!({ "tools": tools })
}

fn object(properties: Value, required: &[&str]) -> Value {
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

fn windows_parameters() -> Value {
    object(json!({}), &[])
}

fn page_properties() -> serde_json::Map<String, Value> {
    let properties = json!({
        "limit": {"type": "integer", "minimum": 1, "description": format!("Rows per page (default {DEFAULT_PAGE_LIMIT}); fold rows are extra.")},
        "roles": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "enum": ["user", "assistant", "tool", "context"]},
            "description": "Only these roles. Omit for the conversation view (history_list) or every role (history_search)."
        },
        "before": {"type": "integer", "minimum": 1, "description": "Only seqs below this (exclusive). Pass older_before here to page back."},
        "after": {"type": "integer", "minimum": 1, "description": "Only seqs above this (exclusive). Pass newer_after here to page forward."},
        "window_id": {"type": "string", "minLength": 1, "description": "Only events of this window (ids from history_windows)."},
        "max_chars_per_item": {"type": "integer", "minimum": 1, "description": format!("Preview length per row in code points (default {DEFAULT_PREVIEW_CHARS}).")}
    });
    match properties {
        Value::Object(map) => map,
        _ => unreachable!("a literal object"),
    }
}

fn list_parameters() -> Value {
    object(Value::Object(page_properties()), &[])
}

fn search_parameters() -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "query".into(),
        json!({
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}
            ],
            "description": "Literal text to find, case-insensitive; an array means any of them."
        }),
    );
    properties.extend(page_properties());
    object(Value::Object(properties), &["query"])
}

fn read_parameters() -> Value {
    object(
        json!({
            "seq": {"type": "integer", "minimum": 1, "description": "The event's seq, from history_list or history_search."},
            "offset_chars": {"type": "integer", "description": "Start here (code points); negative counts from the end. Default 0."},
            "limit_chars": {"type": "integer", "minimum": 1, "maximum": MAX_READ_CHARS, "description": format!("Code points to read (default {DEFAULT_READ_CHARS}, at most {MAX_READ_CHARS}).")}
        }),
        &["seq"],
    )
}
