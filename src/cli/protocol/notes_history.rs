//! `notes_log`, `notes_restore`: the notes history, so an agent can see who changed a note and
//! undo its own mistake.

use serde_json::{json, Value};

use pi_context::notes::{LogPage, RestoreReceipt};
use pi_context::wire::{self, RESULT_BUDGET_BYTES};

use super::notes::{required, store, with_history, ADDRESS_DESCRIPTION};
use super::registry::{Mode, Tool, EVERY_DOOR};
use super::schema::object;
use super::{Call, Params, Refusal, ToolResponse};

/// Commits a log shows when the call names no limit.
const DEFAULT_LOG_LIMIT: usize = 20;

pub const TOOLS: [Tool; 2] = [
    Tool {
        name: "notes_log",
        label: "Notes log",
        description: "The history of notes, newest first: every notes_write, notes_edit, notes_move and restore is a commit, \
and so is every dream. Each commit gives its id, time, operation, agent, session and model, and the notes it changed. Pass an \
address for one note's history, a glob (`@project/**`) for several, or nothing for all. Use it to see who changed a note and \
when, and to find the commit to give notes_restore.",
        parameters: log_parameters,
        mode: Mode::Parallel,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: true,
        live_session: false,
        answer: log,
    },
    Tool {
        name: "notes_restore",
        label: "Notes restore",
        description: "Put a note back as it was at a commit of notes_log (a commit id, or a git revision such as HEAD~1), as \
a new change: nothing in the history is rewritten, so a restore can itself be undone. The note keeps its access counts; a note \
that is gone is recreated. Use it to undo your own mistaken write or edit: take the id of the commit BEFORE the mistake.",
        parameters: restore_parameters,
        mode: Mode::Sequential,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: false,
        live_session: false,
        answer: restore,
    },
];

fn log(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(value, &["address", "limit"])?;
    let target = params.string("address")?;
    let limit = params
        .positive("limit")?
        .map_or(DEFAULT_LOG_LIMIT, |n| n as usize);
    let log = store(call)?.log(target, limit)?;
    let page = LogPage::of(&log, RESULT_BUDGET_BYTES);
    let details = json!({"commits": page.commits.len(), "more": page.more});
    Ok(ToolResponse::ok(wire::to_compact_json(&page), details))
}

fn restore(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(value, &["address", "rev"])?;
    let (address, rev) = (required(&params, "address")?, required(&params, "rev")?);
    let result = store(call)?.restore(&address, &rev)?;
    let receipt = RestoreReceipt::of(&result);
    Ok(ToolResponse::ok(
        wire::to_compact_json(&receipt),
        with_history(json!(receipt), &result.history),
    ))
}

fn log_parameters() -> Value {
    object(
        json!({
            "address": {"type": "string", "minLength": 1, "description": "A note's address, or a glob over addresses (* within a segment, ** across segments). Omit for every commit."},
            "limit": {"type": "integer", "minimum": 1, "description": format!("At most this many commits (default {DEFAULT_LOG_LIMIT}).")}
        }),
        &[],
    )
}

fn restore_parameters() -> Value {
    object(
        json!({
            "address": {"type": "string", "minLength": 1, "description": ADDRESS_DESCRIPTION},
            "rev": {"type": "string", "minLength": 1, "description": "The commit whose version to put back: an id from notes_log (12 characters are enough) or a revision such as HEAD~1."}
        }),
        &["address", "rev"],
    )
}
