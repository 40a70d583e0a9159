//! `sessions_hint`: recall pushed at the prompt. The extension calls it on each user prompt and
//! gives the agent the block it answers; no model is offered it (docs/protocol.md).

use serde_json::{json, Value};

use pi_context::recall::{HintOutcome, HintParams};

use super::registry::{Mode, Tool};
use super::schema::object;
use super::{Call, Params, Refusal, ToolResponse};

pub const TOOLS: [Tool; 1] = [Tool {
    name: "sessions_hint",
    label: "Sessions hint",
    description: "At most one hint for a user prompt: the earlier event of this project's other sessions that the prompt plainly continues, \
as a short block with the history_read call that opens it, or nothing when no event clears the relevance bar. \
Called by the Pi extension before each prompt; not offered to models.",
    parameters,
    mode: Mode::Parallel,
    answer,
    activity: false,
    saves_notes: false,
    doors: &[],
    read_only: true,
    live_session: false,
}];

fn answer(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = &Params::new(value, &["prompt", "hinted", "leads"])?;
    let prompt = params
        .string("prompt")?
        .ok_or_else(|| Refusal::new("invalid_params", "prompt is required"))?;
    let hinted = session_ids(params, "hinted")?;
    let leads = session_ids(params, "leads")?;
    let env = call.environment()?;
    let recall = env.recall()?;
    let outcome = recall.hint(&HintParams {
        prompt: prompt.to_string(),
        project_key: env.project_key().to_string(),
        session_id: env.session_id.clone(),
        session_file: call.context.session_file.clone(),
        hinted,
        leads,
        read_tool: "history_read".to_string(),
    })?;
    let text = outcome
        .hint
        .as_ref()
        .map_or_else(String::new, |h| h.text.clone());
    Ok(ToolResponse::ok(text, details(&outcome)))
}

/// An optional array of session ids; absent, none.
fn session_ids(params: &Params, key: &str) -> Result<Vec<String>, Refusal> {
    Ok(params
        .string_array(key)?
        .unwrap_or_default()
        .into_iter()
        .map(str::to_string)
        .collect())
}

/// `{"hint": bool, …the hint's fields, "miss", "lead", "words", "measure", "stale"}`.
fn details(outcome: &HintOutcome) -> Value {
    let mut details = json!({
        "hint": outcome.hint.is_some(),
        "words": outcome.words,
        "measure": outcome.measure,
        "stale": outcome.stale,
    });
    if let Some(hint) = &outcome.hint {
        details["session_id"] = json!(hint.session_id);
        details["short_id"] = json!(hint.short_id);
        details["seq"] = json!(hint.seq);
        details["leaf_id"] = json!(hint.leaf_id);
        details["entry_id"] = json!(hint.entry_id);
        details["created_at"] = json!(hint.created_at);
        details["snippet"] = json!(hint.snippet);
    }
    if let Some(miss) = outcome.miss {
        details["miss"] = json!(miss);
    }
    if let Some(lead) = &outcome.lead {
        details["lead"] = json!(lead);
    }
    details
}

fn parameters() -> Value {
    object(
        json!({
            "prompt": {"type": "string", "description": "The user's prompt."},
            "hinted": {"type": "array", "items": {"type": "string"}, "description": "Session ids already hinted in this context window: when the best match is one of them, no hint."},
            "leads": {"type": "array", "items": {"type": "string"}, "description": "Session ids this context window's earlier answers gave as `lead` (ranked first by a rare word, no hint): when the best match is one of them, its rare word is enough."}
        }),
        &["prompt"],
    )
}
