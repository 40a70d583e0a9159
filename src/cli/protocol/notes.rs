//! `notes_write`, `notes_edit`, `notes_move`, `notes_read`, `notes_list`, `notes_search`.
//!
//! Parameters are checked before any file is touched: a bad call costs nothing.

use serde_json::{json, Value};

use pi_context::notes::{
    edits_from_json, read_details, read_window, Edit, EditReceipt, EditRequest, ListPage,
    MoveReceipt, NotesPage, Origin, Query, Recorded, SearchPage, Store, WriteReceipt,
};
use pi_context::wire::{self, DEFAULT_READ_CHARS, MAX_READ_CHARS, RESULT_BUDGET_BYTES};

use super::registry::{Mode, Tool, EVERY_DOOR};
use super::schema::{into_map, object, query_property};
use super::{Call, Params, Refusal, ToolResponse};

pub const TOOLS: [Tool; 6] = [
    Tool {
        name: "notes_write",
        label: "Notes write",
        description: "Create or overwrite a markdown note. Where it lives is set by its address: a bare path (`plan`, `todo/today`) \
belongs to this session; `@project/…` is shared by every session in this project (linked git worktrees included); `@human/…` holds \
what the human told you or wants kept; `@self/…` is yours in every project; `@model/…` serves every agent on your model. `.md` is added \
when missing. Overwriting keeps the note's creation time, access counts and origin (unless you pass origin) and takes it out of the \
wastebasket. Addresses are not file paths: use the notes tools on them, not file tools.",
        parameters: write_parameters,
        mode: Mode::Sequential,
        answer: write,
        activity: false,
        saves_notes: true,
        doors: EVERY_DOOR,
        read_only: false,
        live_session: false,
    },
    Tool {
        name: "notes_edit",
        label: "Notes edit",
        description: "Change a note in place. Each edit replaces oldText with newText in the body, in order, each on the result of \
the previous one; if any edit fails, nothing changes. oldText must occur exactly once unless replace_all is true (an ambiguous one is \
refused with its line numbers; add surrounding text). crumpled:true moves the note to the wastebasket (hidden from notes_list and \
notes_search), crumpled:false brings it back; origin relabels who wrote it. Returns a unified diff of what changed.",
        parameters: edit_parameters,
        mode: Mode::Sequential,
        answer: edit,
        activity: false,
        saves_notes: true,
        doors: EVERY_DOOR,
        read_only: false,
        live_session: false,
    },
    Tool {
        name: "notes_move",
        label: "Notes move",
        description: "Move a note to another address, in one atomic step: it is never at both addresses or at neither. It keeps \
its creation time, origin, access counts and any other metadata; its update time becomes now. Use it to rename a note or to file it \
in the right home (for example a session note that turned out to matter to the whole project: `plan` to `@project/plan`). A \
crumpled note at the target is replaced; a live note there is refused (crumple it first or pick another address). Both homes must be \
yours.",
        parameters: move_parameters,
        mode: Mode::Sequential,
        answer: move_note,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: false,
        live_session: false,
    },
    Tool {
        name: "notes_read",
        label: "Notes read",
        description: "Read a note's body as a READ WINDOW: the address and metadata lines, the chars range, next_offset_chars, \
a blank line, then the text. Offsets count Unicode code points of the body (notes_search gives them); a negative offset_chars \
counts from the end. When next_offset_chars is not null, call again with it: the windows concatenate to the exact body. \
Reading records an access on the note.",
        parameters: read_parameters,
        mode: Mode::Parallel,
        answer: read,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: true,
        live_session: false,
    },
    Tool {
        name: "notes_list",
        label: "Notes list",
        description: "List notes, most recently updated first. Without a pattern: this session's notes, @project, @human, @self \
and @model. pattern is a glob over addresses: * stays within a path segment, ** crosses segments, ? is one character; for example \
`@project/**`, `**/MAP.md`, or `@agents/*/**` for every agent's notes. Crumpled notes are hidden and counted in crumpled_excluded; \
wastebasket:true lists only them. The page stops at limit or at the response budget, and more says how many notes it left out: \
narrow the pattern to reach them.",
        parameters: list_parameters,
        mode: Mode::Parallel,
        answer: list,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: true,
        live_session: false,
    },
    Tool {
        name: "notes_search",
        label: "Notes search",
        description: "Search note bodies for literal text, case-insensitive; several queries are OR-ed and regex characters match \
literally. Each matching line is one match with its line number and offset_chars; pass the address and offset_chars to notes_read \
to read on from there. Homes, pattern, wastebasket, limit and more work as in notes_list; files come most recently updated first.",
        parameters: search_parameters,
        mode: Mode::Parallel,
        answer: search,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: true,
        live_session: false,
    },
];

/// The store of the live session, its identity and clock from the tool context, after the
/// step that moves this project's notes to its key.
pub(super) fn store(call: &Call) -> Result<Store, Refusal> {
    let env = call.environment()?;
    env.migrate_project_notes();
    let store = env.notes_store().map_err(Refusal::from)?;
    Ok(store.with_committer(call.committer.cloned()))
}

/// The details of a change name its commit, or why it has none: the result text stays as
/// docs/notes.md, "Tool results", gives it.
pub(super) fn with_history(mut details: Value, history: &Recorded) -> Value {
    if let Value::Object(map) = &mut details {
        if let Some(commit) = history.commit() {
            map.insert("commit".into(), json!(commit));
        }
        if let Some(failure) = history.failure() {
            map.insert("commit_error".into(), json!(failure));
        }
    }
    details
}

fn write(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(value, &["address", "content", "origin"])?;
    let (address, content) = (required(&params, "address")?, required(&params, "content")?);
    let origin = origin(&params)?;
    let result = store(call)?.write(&address, &content, origin)?;
    let receipt = WriteReceipt::of(&result);
    Ok(ToolResponse::ok(
        wire::to_compact_json(&receipt),
        with_history(json!(receipt), &result.history),
    ))
}

fn edit(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(
        value,
        &["address", "edits", "origin", "crumpled", "replace_all"],
    )?;
    let address = required(&params, "address")?;
    let request = EditRequest {
        edits: edits(params.get("edits"))?,
        origin: origin(&params)?,
        crumpled: params.boolean("crumpled")?,
        replace_all: params.boolean("replace_all")?.unwrap_or(false),
        // Never more diff text than the result can show.
        diff_max_bytes: Some(RESULT_BUDGET_BYTES),
    };
    let result = store(call)?.edit(&address, &request)?;
    let receipt = EditReceipt::of(&result, RESULT_BUDGET_BYTES)?;
    let details = json!({
        "address": receipt.address,
        "applied": receipt.applied,
        "change_kind": receipt.change_kind,
        "diff_truncated": receipt.diff_truncated,
    });
    Ok(ToolResponse::ok(
        wire::to_compact_json(&receipt),
        with_history(details, &result.history),
    ))
}

fn move_note(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(value, &["from", "to"])?;
    let (from, to) = (required(&params, "from")?, required(&params, "to")?);
    let result = store(call)?.move_note(&from, &to)?;
    let receipt = MoveReceipt::of(&result);
    Ok(ToolResponse::ok(
        wire::to_compact_json(&receipt),
        with_history(json!(receipt), &result.history),
    ))
}

fn read(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(value, &["address", "offset_chars", "limit_chars"])?;
    let address = required(&params, "address")?;
    let offset_chars = params.int("offset_chars", i64::MIN, i64::MAX)?.unwrap_or(0);
    let limit_chars = params
        .int("limit_chars", 1, MAX_READ_CHARS as i64)?
        .map_or(DEFAULT_READ_CHARS, |n| n as usize);
    let note = store(call)?.read(&address)?;
    let window = read_window(&note, offset_chars, limit_chars, RESULT_BUDGET_BYTES)?;
    Ok(ToolResponse::ok(window.render(), read_details(&window)))
}

fn list(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(value, &["pattern", "limit", "wastebasket"])?;
    let query = query(&params)?;
    let limit = params.positive("limit")?.map(|n| n as usize);
    let page = ListPage::of(&store(call)?.list(&query)?, limit, RESULT_BUDGET_BYTES)?;
    let details = page_details(&page);
    Ok(ToolResponse::ok(wire::to_compact_json(&page), details))
}

fn search(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(
        value,
        &[
            "query",
            "pattern",
            "limit",
            "max_matches_per_file",
            "wastebasket",
        ],
    )?;
    let queries = super::history::queries(params.get("query"))?;
    let query = query(&params)?;
    let limit = params.positive("limit")?.map(|n| n as usize);
    let max_matches = params.positive("max_matches_per_file")?.map(|n| n as usize);
    let listing = store(call)?.search(&queries, &query)?;
    let page = SearchPage::of(&listing, limit, max_matches, RESULT_BUDGET_BYTES)?;
    let details = page_details(&page);
    Ok(ToolResponse::ok(wire::to_compact_json(&page), details))
}

fn page_details<F>(page: &NotesPage<F>) -> Value {
    json!({
        "files": page.files.len(),
        "more": page.more,
        "crumpled_excluded": page.crumpled_excluded,
        "homes_unavailable": page.homes_unavailable,
    })
}

pub(super) fn required(params: &Params, key: &str) -> Result<String, Refusal> {
    params
        .string(key)?
        .map(str::to_string)
        .ok_or_else(|| Refusal::new("invalid_params", format!("{key} is required")))
}

fn origin(params: &Params) -> Result<Option<Origin>, Refusal> {
    params
        .string("origin")?
        .map(Origin::parse)
        .transpose()
        .map_err(Refusal::from)
}

fn query(params: &Params) -> Result<Query, Refusal> {
    let pattern = match params.get("pattern") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(Refusal::new(
                "invalid_pattern",
                "glob pattern must be a string",
            ))
        }
    };
    Ok(Query {
        pattern,
        home: None,
        wastebasket: params.boolean("wastebasket")?.unwrap_or(false),
    })
}

fn edits(value: Option<&Value>) -> Result<Vec<Edit>, Refusal> {
    value.map_or(Ok(Vec::new()), |value| {
        edits_from_json(value).map_err(|e| Refusal::new("invalid_params", e.to_string()))
    })
}

pub(super) const ADDRESS_DESCRIPTION: &str = "Note address: `path` (this session), `@project/path`, `@human/path`, `@self/path`, \
`@model/path`, or `@agents/<name>/path` / `@models/<name>/path` (other agents' and models' notes are read-only).";

fn origin_property() -> Value {
    json!({
        "type": "string",
        "enum": ["user", "self", "external"],
        "description": "Who the content comes from: the user, yourself (self), or an external source."
    })
}

fn write_parameters() -> Value {
    object(
        json!({
            "address": {"type": "string", "minLength": 1, "description": ADDRESS_DESCRIPTION},
            "content": {"type": "string", "description": "The whole new body (markdown). A leading frontmatter block is dropped."},
            "origin": origin_property()
        }),
        &["address", "content"],
    )
}

fn move_parameters() -> Value {
    object(
        json!({
            "from": {"type": "string", "minLength": 1, "description": "The note's address now."},
            "to": {"type": "string", "minLength": 1, "description": "Its new address."}
        }),
        &["from", "to"],
    )
}

fn edit_parameters() -> Value {
    object(
        json!({
            "address": {"type": "string", "minLength": 1, "description": ADDRESS_DESCRIPTION},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "oldText": {"type": "string", "minLength": 1, "description": "Exact text of the body to replace."},
                        "newText": {"type": "string", "description": "The replacement, inserted literally."}
                    },
                    "required": ["oldText", "newText"],
                    "additionalProperties": false
                },
                "description": "Replacements applied in order; all or nothing."
            },
            "origin": origin_property(),
            "crumpled": {"type": "boolean", "description": "true: move to the wastebasket; false: take it out."},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence of each oldText instead of requiring exactly one."}
        }),
        &["address"],
    )
}

fn read_parameters() -> Value {
    object(
        json!({
            "address": {"type": "string", "minLength": 1, "description": ADDRESS_DESCRIPTION},
            "offset_chars": {"type": "integer", "description": "Start here (code points of the body); negative counts from the end. Default 0."},
            "limit_chars": {"type": "integer", "minimum": 1, "maximum": MAX_READ_CHARS, "description": format!("Code points to read (default {DEFAULT_READ_CHARS}, at most {MAX_READ_CHARS}).")}
        }),
        &["address"],
    )
}

fn page_properties() -> serde_json::Map<String, Value> {
    into_map(json!({
        "pattern": {"type": "string", "description": "Glob over addresses: * within a segment, ** across segments, ? one character. Start with @project/, @human/, @self/, @model/, @agents/<name>/ or @models/<name>/ to read only that home."},
        "limit": {"type": "integer", "minimum": 1, "description": "At most this many notes (default: as many as fit the response)."},
        "wastebasket": {"type": "boolean", "description": "List only crumpled notes instead of only live ones."}
    }))
}

fn list_parameters() -> Value {
    object(Value::Object(page_properties()), &[])
}

fn search_parameters() -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "query".into(),
        query_property("Literal text to find, case-insensitive"),
    );
    properties.extend(page_properties());
    properties.insert(
        "max_matches_per_file".into(),
        json!({"type": "integer", "minimum": 1, "description": "Show at most this many matching lines per note (matches_total still counts all)."}),
    );
    object(Value::Object(properties), &["query"])
}
