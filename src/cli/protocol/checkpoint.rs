//! `checkpoint`: the task-state handoff of this branch (docs/lifecycle.md, "Checkpoints").
//!
//! The handler checks the authored fields against their bounds (refusing with each field's path
//! and measured size, never its text, never cutting it), reads the branch for the generation,
//! bounds the activity the extension observed, and returns the entry for the extension to append
//! (`append_entry`): only Pi's hooks write to a session.

use serde_json::{json, Map, Value};

use pi_context::checkpoint::fields::{
    Shape, ADVISED_ITEM_CHARS, ADVISED_LIST_ITEMS, FIELDS, ITEM_MAX_CHARS,
};
use pi_context::checkpoint::{
    self, Activity, Authored, Checkpoint, CheckpointError, CHECKPOINT_TYPE,
};
use pi_context::history::{Leaf, SessionInput};
use pi_context::wire;

use super::registry::{Mode, Tool, PI_ONLY};
use super::schema::object;
use super::{AppendEntry, Call, Params, Refusal, ToolResponse};

/// The bounds and the recommended budget appear in this text as numbers; a unit test checks
/// them against the field table.
pub const TOOLS: [Tool; 1] = [Tool {
    name: checkpoint::TOOL_NAME,
    label: "Checkpoint",
    description: "Save the task state of this branch as its checkpoint: the handoff that opens every fresh context window \
(after wipe_memory, or when the window fills up), follows the branch after /tree, and greets the next session of this project. It \
is task state, not general notes: what you are doing now, what is done, what you found and decided, what failed, what blocks you, \
how you verified, and the one next action. Each field has one role: put each fact in exactly one field (verification never in \
completed, next_action never a restatement of current), and do not copy the files and commands pi-context records by itself. Keep \
it small: current at most 400 characters, next_action at most 250, at most 3 items per list and 180 characters per item; no plans, \
logs, raw test output or file lists. Hard limits: current and next_action 1-2048 characters, list items 1-1024, completed, \
findings, decisions and verification at most 40 items, failed_approaches and blockers at most 30. A call over a limit is refused \
with the field and its size and nothing is cut: summarize and call again. Each call replaces the whole checkpoint. Write one after \
real progress, before wipe_memory, and when asked.",
    parameters,
    mode: Mode::Sequential,
    activity: true,
    saves_notes: false,
    doors: PI_ONLY,
    read_only: false,
    live_session: false,
    answer: save,
}];

fn parameters() -> Value {
    let mut properties = Map::new();
    for field in &FIELDS {
        // Bounds are described, not declared (no maxLength or maxItems): Pi's own validator
        // would refuse first and echo every argument back; the handler refuses with the
        // field's path and size instead.
        let schema = match field.shape {
            Shape::Text {
                max_chars,
                advised_chars,
            } => json!({
                "type": "string",
                "description": format!(
                    "{}. 1-{max_chars} characters; aim for at most {advised_chars}.",
                    capitalized(field.role)
                ),
            }),
            Shape::List { max_items } => json!({
                "type": "array",
                "items": {"type": "string"},
                "description": format!(
                    "{}. At most {max_items} items of 1-{ITEM_MAX_CHARS} characters; aim for at most {ADVISED_LIST_ITEMS} items of at most {ADVISED_ITEM_CHARS}.",
                    capitalized(field.role)
                ),
            }),
        };
        properties.insert(field.name.to_string(), schema);
    }
    let required: Vec<&str> = FIELDS
        .iter()
        .filter(|f| matches!(f.shape, Shape::Text { .. }))
        .map(|f| f.name)
        .collect();
    object(Value::Object(properties), &required)
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect::<String>()
    })
}

fn save(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    Params::new(value, &checkpoint::fields::names())?;
    let empty = Map::new();
    let authored =
        Authored::from_json(value.as_object().unwrap_or(&empty)).map_err(CheckpointError::from)?;
    let checkpoint = Checkpoint {
        generation: branch_of(call)?.next_generation(),
        activity: Activity::from_json(call.context.activity.as_ref()),
        authored,
    };
    let mut receipt = json!({
        "status": "saved",
        "generation": checkpoint.generation,
        "message": format!(
            "Checkpoint generation {} is this branch's handoff now: every new context window starts from it.",
            checkpoint.generation
        ),
    });
    let advice = checkpoint.authored.advice();
    if !advice.is_empty() {
        receipt["advice"] = json!(advice);
    }
    let details = json!({
        "generation": checkpoint.generation,
        "files": checkpoint.activity.files.len() + checkpoint.activity.files_omitted,
        "commands": checkpoint.activity.commands.len() + checkpoint.activity.commands_omitted,
    });
    let mut response = ToolResponse::ok(wire::to_compact_json(&receipt), details);
    response.append_entry = Some(AppendEntry {
        custom_type: CHECKPOINT_TYPE,
        data: checkpoint.to_json(),
    });
    Ok(response)
}

/// The checkpoints of the live branch (the context's file or entries, its leaf).
fn branch_of(call: &Call) -> Result<checkpoint::OnBranch, Refusal> {
    let context = call.context;
    let options = call.environment()?.session_open_options();
    let input = match (&context.session_file, &context.entries) {
        (Some(path), _) => SessionInput::File {
            path,
            options: &options,
        },
        (None, Some(lines)) => SessionInput::Lines(lines),
        (None, None) => return Ok(checkpoint::OnBranch::default()),
    };
    Ok(checkpoint::read(
        input,
        &Leaf::from_wire(context.leaf_id.as_deref()),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_context::checkpoint::fields::{
        ADVISED_CURRENT_CHARS, ADVISED_NEXT_ACTION_CHARS, LONG_LIST_MAX_ITEMS,
        SHORT_LIST_MAX_ITEMS, TEXT_MAX_CHARS,
    };

    #[test]
    fn the_description_states_the_bounds_of_the_field_table() {
        let d = TOOLS[0].description;
        for phrase in [
            format!("current at most {ADVISED_CURRENT_CHARS} characters"),
            format!("next_action at most {ADVISED_NEXT_ACTION_CHARS}"),
            format!("at most {ADVISED_LIST_ITEMS} items per list and {ADVISED_ITEM_CHARS} characters per item"),
            format!("current and next_action 1-{TEXT_MAX_CHARS} characters"),
            format!("list items 1-{ITEM_MAX_CHARS}"),
            format!("verification at most {LONG_LIST_MAX_ITEMS} items"),
            format!("blockers at most {SHORT_LIST_MAX_ITEMS}"),
        ] {
            assert!(d.contains(&phrase), "description lacks {phrase:?}");
        }
        for field in &FIELDS {
            assert!(d.contains(field.name), "description lacks {}", field.name);
        }
    }

    #[test]
    fn the_schema_lists_every_field_and_requires_the_texts() {
        let schema = parameters();
        let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, checkpoint::fields::names());
        assert_eq!(schema["required"], json!(["current", "next_action"]));
        assert!(!schema.to_string().contains("maxLength"));
    }
}
