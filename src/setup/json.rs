//! The agents' JSON configuration files, read and written back with every key in its place
//! (`serde_json`'s `preserve_order`), indented by two spaces as the agents write them.

use std::path::Path;

use serde_json::{Map, Value};

use super::SetupError;

/// The object a file holds: `{}` for a missing or blank file; a parse error names the line.
pub fn parse_object(path: &Path, text: Option<&str>) -> Result<Map<String, Value>, SetupError> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(Map::new());
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(SetupError::Shape {
            path: path.to_path_buf(),
            what: format!("a JSON {}", kind(&other)),
        }),
        Err(e) => Err(SetupError::Parse {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }),
    }
}

/// The text a file gets for `object`: the text it had when the value did not change (so an
/// unchanged file keeps every byte), else two-space JSON ending in a newline.
pub fn render(
    before: Option<&str>,
    original: &Map<String, Value>,
    object: Map<String, Value>,
) -> Option<String> {
    if object.is_empty() && before.is_none() {
        return None;
    }
    if let Some(before) = before {
        if &object == original {
            return Some(before.to_string());
        }
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(object)).expect("JSON renders");
    text.push('\n');
    Some(text)
}

/// The text a removal leaves in a file: as [`render`], but `None` (the file goes) when the
/// removal changed it and left nothing but an empty `hooks` object: a file that held only what
/// a setup adds, so one the setup created (the agents start without these files).
pub fn render_removal(
    before: Option<&str>,
    original: &Map<String, Value>,
    object: Map<String, Value>,
) -> Option<String> {
    if before.is_some() && &object != original && is_empty_shell(&object) {
        return None;
    }
    render(before, original, object)
}

fn is_empty_shell(object: &Map<String, Value>) -> bool {
    object
        .iter()
        .all(|(key, value)| key == "hooks" && value.as_object().is_some_and(Map::is_empty))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The array at `key` of `object`, created when missing; `None` when the key holds something
/// else (a file the user shaped differently: left alone).
pub fn array_at<'a>(object: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Vec<Value>> {
    object
        .entry(key.to_string())
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
}

/// The object at `key` of `object`, created when missing; `None` when the key holds something
/// else.
pub fn object_at<'a>(
    object: &'a mut Map<String, Value>,
    key: &str,
) -> Option<&'a mut Map<String, Value>> {
    object
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
}
