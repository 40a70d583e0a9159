//! The `edits` JSON of `notes_edit` and `notes edit --edits`, as Pi's edit tool takes it:
//! `[{"oldText": …, "newText": …}]`.

use serde_json::Value;

use super::Edit;

/// `edits` (or one of its items, `edits[index]`) is not what [`edits_from_json`] accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} must be an array of {{\"oldText\": string, \"newText\": string}} objects", at(*.index))]
pub struct EditsShapeError {
    /// The item that is wrong; `None` when `edits` itself is not an array.
    pub index: Option<usize>,
}

fn at(index: Option<usize>) -> String {
    index.map_or_else(|| "edits".to_string(), |i| format!("edits[{i}]"))
}

/// An array of objects with exactly the string keys `oldText` and `newText`.
pub fn edits_from_json(value: &Value) -> Result<Vec<Edit>, EditsShapeError> {
    let items = value.as_array().ok_or(EditsShapeError { index: None })?;
    items
        .iter()
        .enumerate()
        .map(|(index, item)| edit_from_json(item).ok_or(EditsShapeError { index: Some(index) }))
        .collect()
}

fn edit_from_json(item: &Value) -> Option<Edit> {
    let object = item.as_object()?;
    if object.keys().any(|k| k != "oldText" && k != "newText") {
        return None;
    }
    let text = |key: &str| object.get(key)?.as_str().map(str::to_string);
    Some(Edit {
        old_text: text("oldText")?,
        new_text: text("newText")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_pairs_and_names_the_wrong_item() {
        let edits = edits_from_json(&json!([{"oldText": "a", "newText": ""}])).unwrap();
        assert_eq!(edits[0].old_text, "a");
        assert_eq!(edits[0].new_text, "");
        assert_eq!(
            edits_from_json(&json!({})),
            Err(EditsShapeError { index: None })
        );
        let extra =
            json!([{"oldText": "a", "newText": "b"}, {"oldText": "a", "newText": "b", "x": 1}]);
        let error = edits_from_json(&extra).unwrap_err();
        assert_eq!(
            error.to_string(),
            r#"edits[1] must be an array of {"oldText": string, "newText": string} objects"#
        );
        assert!(edits_from_json(&json!([{"oldText": "a"}])).is_err());
    }
}
