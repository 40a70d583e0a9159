//! OpenCode's `session_message` rows (its V2 session runner's history: one row per message,
//! `id, session_id, type, seq, data`, `data` the message without its `id` and `type`), and the
//! older JSON storage's first message shape (its parts inside the message), both turned into
//! the messages and parts the mirror writes, so one reader reads them all (docs/harnesses.md,
//! "OpenCode").

use serde_json::{json, Map, Value};

use super::mirror::{Message, MessageRow, PartRow};

/// A `session_message` row as a message with its parts:
///
/// - `user`: its `text` a user text part;
/// - `synthetic` (text OpenCode or a plugin added) and `system` (a context update): a synthetic
///   text part of a user message, a `context` event;
/// - `assistant`: each of its `content` items a part (`text`, `reasoning`, `tool` with its
///   `state`, the output the text of its `content`);
/// - `shell` (a command the user ran): a `bash` tool part;
/// - `compaction`: its `summary` the text of a summary message;
/// - `agent-switched`, `model-switched`: a message without parts;
/// - another type: a message of the role `session_message:<type>`, counted as unknown.
pub(super) fn message(id: String, kind: &str, created_ms: i64, data: Value) -> Message {
    let part = |i: usize, data: Value| PartRow {
        id: format!("{id}.{i}"),
        data,
    };
    let text = |key: &str| data.get(key).cloned().unwrap_or(Value::Null);
    let (info, parts) = match kind {
        "user" => (
            json!({"role": "user"}),
            vec![part(0, json!({"type": "text", "text": text("text")}))],
        ),
        "synthetic" | "system" => (
            json!({"role": "user"}),
            vec![part(
                0,
                json!({"type": "text", "text": text("text"), "synthetic": true}),
            )],
        ),
        "assistant" => {
            let content = data.get("content").and_then(Value::as_array);
            let parts = content
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(i, item)| part(i, assistant_part(item)))
                .collect();
            (json!({"role": "assistant"}), parts)
        }
        "shell" => {
            let state = json!({
                "status": "completed",
                "input": {"command": text("command")},
                "output": text("output"),
            });
            let tool =
                json!({"type": "tool", "callID": text("callID"), "tool": "bash", "state": state});
            (json!({"role": "assistant"}), vec![part(0, tool)])
        }
        "compaction" => (
            json!({"role": "assistant", "summary": true}),
            vec![part(0, json!({"type": "text", "text": text("summary")}))],
        ),
        "agent-switched" | "model-switched" => (json!({"type": kind}), Vec::new()),
        other => (
            json!({"role": format!("session_message:{other}")}),
            Vec::new(),
        ),
    };
    let row = MessageRow {
        id: id.clone(),
        created_ms,
        data: info,
    };
    (row, parts)
}

/// An assistant's `content` item as a part: a text or reasoning as it is, a tool with the state
/// the reader knows (`input`, and `output` or `error`).
fn assistant_part(item: &Value) -> Value {
    if item.get("type").and_then(Value::as_str) != Some("tool") {
        return item.clone();
    }
    let state = item.get("state").cloned().unwrap_or(Value::Null);
    let mut out = Map::new();
    for key in ["status", "input"] {
        if let Some(value) = state.get(key) {
            out.insert(key.to_string(), value.clone());
        }
    }
    out.insert("output".to_string(), tool_output(&state));
    if let Some(error) = state.get("error") {
        let message = error
            .get("message")
            .cloned()
            .unwrap_or_else(|| error.clone());
        out.insert("error".to_string(), message);
    }
    json!({
        "type": "tool",
        "callID": item.get("id").cloned().unwrap_or(Value::Null),
        "tool": item.get("name").cloned().unwrap_or(Value::Null),
        "state": Value::Object(out),
    })
}

/// A tool's output: the text of its `content` items, else its `result` when that is text.
fn tool_output(state: &Value) -> Value {
    let texts: Vec<&str> = state
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    if !texts.is_empty() {
        return Value::String(texts.join("\n"));
    }
    match state.get("result") {
        Some(Value::String(result)) => Value::String(result.clone()),
        _ => Value::Null,
    }
}

/// A message of the JSON storage's first shape (`parts` inside it, its times and tool details
/// in `metadata`), as OpenCode's own reader turns it into a message with parts: `text`,
/// `step-start` and `file` as they are, a `tool-invocation` a `tool` part (its `result` the
/// output once its state is `result`; the assistant's `summary` and `path` kept). Answers `None`
/// for a message of the current shape.
pub(super) fn from_first_shape(id: &str, data: &Value) -> Option<(Value, Vec<PartRow>, i64)> {
    let parts = data.get("parts")?.as_array()?;
    let metadata = data.get("metadata")?;
    let created_ms = metadata
        .pointer("/time/created")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let role = data.get("role").cloned().unwrap_or(Value::Null);
    let assistant = |key: &str| {
        metadata
            .pointer(&format!("/assistant/{key}"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let rows = parts
        .iter()
        .enumerate()
        .map(|(i, part)| PartRow {
            id: format!("{id}.{i}"),
            data: first_shape_part(part),
        })
        .collect();
    let info = json!({"role": role, "summary": assistant("summary"), "path": assistant("path")});
    Some((info, rows, created_ms))
}

fn first_shape_part(part: &Value) -> Value {
    if part.get("type").and_then(Value::as_str) != Some("tool-invocation") {
        return part.clone();
    }
    let invocation = part.get("toolInvocation").cloned().unwrap_or(Value::Null);
    let field = |key: &str| invocation.get(key).cloned().unwrap_or(Value::Null);
    let state = match invocation.get("state").and_then(Value::as_str) {
        Some("result") => {
            json!({"status": "completed", "input": field("args"), "output": field("result")})
        }
        Some("call") => json!({"status": "running", "input": field("args")}),
        _ => json!({"status": "pending"}),
    };
    json!({"type": "tool", "callID": field("toolCallId"), "tool": field("toolName"), "state": state})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assistant_row_becomes_its_parts_with_the_tool_output_of_its_content() {
        let data = json!({"content": [
            {"type": "text", "id": "t", "text": "Listing."},
            {"type": "reasoning", "id": "r", "text": "hmm"},
            {"type": "tool", "id": "call_1", "name": "bash", "state": {
                "status": "completed", "input": {"command": "ls"},
                "content": [{"type": "text", "text": "a.rs"}], "structured": {}}},
            {"type": "tool", "id": "call_2", "name": "read", "state": {
                "status": "error", "input": {}, "content": [],
                "error": {"type": "unknown", "message": "gone"}}},
        ]});
        let (row, parts) = message("msg_a".into(), "assistant", 5, data);
        assert_eq!(row.data["role"], "assistant");
        assert_eq!(parts.len(), 4);
        assert_eq!(parts[0].id, "msg_a.0");
        assert_eq!(parts[2].data["callID"], "call_1");
        assert_eq!(parts[2].data["state"]["output"], "a.rs");
        assert_eq!(parts[3].data["state"]["error"], "gone");
    }

    #[test]
    fn unknown_and_hostile_rows_never_panic() {
        for (kind, data) in [
            ("hologram", json!({})),
            ("assistant", json!({"content": 7})),
            (
                "assistant",
                json!({"content": [{"type": "tool", "state": "x"}]}),
            ),
            ("user", Value::Null),
            ("shell", json!([1])),
        ] {
            let (row, _) = message("m".into(), kind, 0, data);
            assert!(row.data.is_object(), "{kind}");
        }
        let (row, _) = message("m".into(), "hologram", 0, json!({}));
        assert_eq!(row.data["role"], "session_message:hologram");
    }

    #[test]
    fn a_first_shape_message_gives_its_parts_and_a_current_one_none() {
        let v1 = json!({"id": "msg_1", "role": "assistant", "metadata": {"time": {"created": 9}},
            "parts": [{"type": "text", "text": "hi"}, {"type": "tool-invocation", "toolInvocation":
                {"state": "result", "toolCallId": "c", "toolName": "bash", "args": {"command": "ls"},
                 "result": "out"}}]});
        let (info, parts, created) = from_first_shape("msg_1", &v1).unwrap();
        assert_eq!((info["role"].as_str(), created), (Some("assistant"), 9));
        assert_eq!(parts[1].data["state"]["output"], "out");
        assert!(from_first_shape("m", &json!({"role": "user", "time": {"created": 1}})).is_none());
    }
}
