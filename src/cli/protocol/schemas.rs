//! The model-facing names, descriptions and parameter schemas of every tool: the one place
//! they are written. The extension registers tools from `pi-context tool --schemas`.

use serde_json::{json, Value};

use pi_context::recall::{DEFAULT_HITS, DEFAULT_LIST_LIMIT, DEFAULT_SEARCH_LIMIT};
use pi_context::wire::{
    DEFAULT_PAGE_LIMIT, DEFAULT_PREVIEW_CHARS, DEFAULT_READ_CHARS, MAX_QUERIES, MAX_QUERY_CHARS,
    MAX_READ_CHARS,
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
    Tool {
        name: "sessions_list",
        label: "Sessions list",
        description: "List past Pi sessions, most recently updated first: id, file, project, name, dates, size and the first user message. \
Use it when this session is fresh and needs earlier work, or when the user refers to \"last time\" or another session. \
scope \"project\" (default) is this project's sessions; \"all\" is every project. Open one with history_list / history_read and its session_id.",
        parameters: sessions_list_parameters,
        execution_mode: "parallel",
    },
    Tool {
        name: "sessions_search",
        label: "Sessions search",
        description: "Search everything said in past Pi sessions (user, assistant, tool calls with output, summaries) by words, ranked: \
use it when the user asks about earlier work (\"where did we fix…\", \"last time\", \"what did we decide about…\") or when a fresh session needs \
what an earlier one found. Words match case- and accent-insensitively; a query in double quotes is a phrase; an array of queries means any of them. \
Sessions holding every word rank first; each hit has session_id, seq, leaf_id and a preview starting shortly before the match at offset_chars. \
Read a hit in full with history_read {session_id, seq, leaf_id, offset_chars}. scope \"project\" (default) or \"all\"; branches \"all\" also searches abandoned branches.",
        parameters: sessions_search_parameters,
        execution_mode: "parallel",
    },
    Tool {
        name: "notes_write",
        label: "Notes write",
        description: "Create or overwrite a markdown note. Where it lives is set by its address: a bare path (`plan`, `todo/today`) \
belongs to this session; `@project/…` is shared by every session in this project (linked git worktrees included); `@human/…` holds \
what the human told you or wants kept; `@self/…` is yours in every project; `@model/…` serves every agent on your model. `.md` is added \
when missing. Overwriting keeps the note's creation time, access counts and origin (unless you pass origin) and takes it out of the \
wastebasket. Addresses are not file paths: use the notes tools on them, not file tools.",
        parameters: notes_write_parameters,
        execution_mode: "sequential",
    },
    Tool {
        name: "notes_edit",
        label: "Notes edit",
        description: "Change a note in place. Each edit replaces oldText with newText in the body, in order, each on the result of \
the previous one; if any edit fails, nothing changes. oldText must occur exactly once unless replace_all is true (an ambiguous one is \
refused with its line numbers; add surrounding text). crumpled:true moves the note to the wastebasket (hidden from notes_list and \
notes_search), crumpled:false brings it back; origin relabels who wrote it. Returns a unified diff of what changed.",
        parameters: notes_edit_parameters,
        execution_mode: "sequential",
    },
    Tool {
        name: "notes_move",
        label: "Notes move",
        description: "Move a note to another address, in one atomic step: it is never at both addresses or at neither. It keeps \
its creation time, origin, access counts and any other metadata; its update time becomes now. Use it to rename a note or to file it \
in the right home (for example a session note that turned out to matter to the whole project: `plan` to `@project/plan`). A \
crumpled note at the target is replaced; a live note there is refused (crumple it first or pick another address). Both homes must be \
yours.",
        parameters: notes_move_parameters,
        execution_mode: "sequential",
    },
    Tool {
        name: "notes_read",
        label: "Notes read",
        description: "Read a note's body as a READ WINDOW: the address and metadata lines, the chars range, next_offset_chars, \
a blank line, then the text. Offsets count Unicode code points of the body (notes_search gives them); a negative offset_chars \
counts from the end. When next_offset_chars is not null, call again with it: the windows concatenate to the exact body. \
Reading records an access on the note.",
        parameters: notes_read_parameters,
        execution_mode: "parallel",
    },
    Tool {
        name: "notes_list",
        label: "Notes list",
        description: "List notes, most recently updated first. Without a pattern: this session's notes, @project, @human, @self \
and @model. pattern is a glob over addresses: * stays within a path segment, ** crosses segments, ? is one character; for example \
`@project/**`, `**/MAP.md`, or `@agents/*/**` for every agent's notes. Crumpled notes are hidden and counted in crumpled_excluded; \
wastebasket:true lists only them. The page stops at limit or at the response budget, and more says how many notes it left out: \
narrow the pattern to reach them.",
        parameters: notes_list_parameters,
        execution_mode: "parallel",
    },
    Tool {
        name: "notes_search",
        label: "Notes search",
        description: "Search note bodies for literal text, case-insensitive; several queries are OR-ed and regex characters match \
literally. Each matching line is one match with its line number and offset_chars; pass the address and offset_chars to notes_read \
to read on from there. Homes, pattern, wastebasket, limit and more work as in notes_list; files come most recently updated first.",
        parameters: notes_search_parameters,
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
    json!({ "tools": tools, "facts": super::facts::all() })
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

/// `session_id` and `leaf_id`, which every history tool takes.
fn session_properties() -> serde_json::Map<String, Value> {
    into_map(json!({
        "session_id": {"type": "string", "minLength": 1, "description": "Read another past session: its full id or a unique prefix of at least 8 characters (from sessions_search or sessions_list). Default: this session."},
        "leaf_id": {"type": "string", "minLength": 1, "description": "The entry that ends the branch to read (a sessions_search hit's leaf_id for an abandoned branch). Default: this session's current leaf, or the last entry of another session."}
    }))
}

fn windows_parameters() -> Value {
    object(Value::Object(session_properties()), &[])
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
    into_map(properties)
}

/// `query` of both searches: a non-empty string or a non-empty array of them, within the
/// query limits of `wire`.
fn query_property() -> Value {
    let string = json!({"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS});
    json!({
        "anyOf": [
            string,
            {"type": "array", "minItems": 1, "maxItems": MAX_QUERIES, "items": string}
        ],
        "description": format!("Literal text to find, case-insensitive; an array means any of them (at most {MAX_QUERIES} strings of at most {MAX_QUERY_CHARS} characters each).")
    })
}

/// The properties of a `json!` object literal.
fn into_map(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

fn list_parameters() -> Value {
    let mut properties = page_properties();
    properties.extend(session_properties());
    object(Value::Object(properties), &[])
}

fn search_parameters() -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert("query".into(), query_property());
    properties.extend(page_properties());
    properties.extend(session_properties());
    object(Value::Object(properties), &["query"])
}

fn read_parameters() -> Value {
    let mut properties = into_map(json!({
        "seq": {"type": "integer", "minimum": 1, "description": "The event's seq, from history_list, history_search or sessions_search."},
        "offset_chars": {"type": "integer", "description": "Start here (code points); negative counts from the end. Default 0."},
        "limit_chars": {"type": "integer", "minimum": 1, "maximum": MAX_READ_CHARS, "description": format!("Code points to read (default {DEFAULT_READ_CHARS}, at most {MAX_READ_CHARS}).")}
    }));
    properties.extend(session_properties());
    object(Value::Object(properties), &["seq"])
}

fn scope_properties() -> serde_json::Map<String, Value> {
    into_map(json!({
        "scope": {"type": "string", "enum": ["project", "all"], "description": "\"project\" (default): this project's sessions; \"all\": every project's, this project's ranked higher."},
        "since": {"type": "string", "minLength": 1, "description": "Only what happened this recently: 30m, 12h, 7d, 4w, or an RFC 3339 date."}
    }))
}

fn sessions_list_parameters() -> Value {
    let mut properties = scope_properties();
    properties.insert(
        "limit".into(),
        json!({"type": "integer", "minimum": 1, "description": format!("At most this many sessions (default {DEFAULT_LIST_LIMIT}).")}),
    );
    object(Value::Object(properties), &[])
}

fn sessions_search_parameters() -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "query".into(),
{
            let string = json!({"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS});
            json!({
                "anyOf": [
                    string,
                    {"type": "array", "minItems": 1, "maxItems": MAX_QUERIES, "items": string}
                ],
                "description": format!("Words to find (\"double quotes\" for a phrase); an array means any of them (at most {MAX_QUERIES} strings of at most {MAX_QUERY_CHARS} characters each).")
            })
        },
    );
    properties.extend(scope_properties());
    properties.extend(into_map(json!({
        "roles": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "enum": ["user", "assistant", "tool", "context"]},
            "description": "Only events of these roles."
        },
        "branches": {"type": "string", "enum": ["current", "all"], "description": "\"current\" (default): each session's current branch; \"all\": abandoned branches too."},
        "limit": {"type": "integer", "minimum": 1, "description": format!("At most this many sessions (default {DEFAULT_SEARCH_LIMIT}).")},
        "hits_per_session": {"type": "integer", "minimum": 1, "description": format!("At most this many hits per session (default {DEFAULT_HITS}).")}
    })));
    object(Value::Object(properties), &["query"])
}

const ADDRESS_DESCRIPTION: &str = "Note address: `path` (this session), `@project/path`, `@human/path`, `@self/path`, \
`@model/path`, or `@agents/<name>/path` / `@models/<name>/path` (other agents' and models' notes are read-only).";

fn origin_property() -> Value {
    json!({
        "type": "string",
        "enum": ["user", "self", "external"],
        "description": "Who the content comes from: the user, yourself (self), or an external source."
    })
}

fn notes_write_parameters() -> Value {
    object(
        json!({
            "address": {"type": "string", "minLength": 1, "description": ADDRESS_DESCRIPTION},
            "content": {"type": "string", "description": "The whole new body (markdown). A leading frontmatter block is dropped."},
            "origin": origin_property()
        }),
        &["address", "content"],
    )
}

fn notes_move_parameters() -> Value {
    object(
        json!({
            "from": {"type": "string", "minLength": 1, "description": "The note's address now."},
            "to": {"type": "string", "minLength": 1, "description": "Its new address."}
        }),
        &["from", "to"],
    )
}

fn notes_edit_parameters() -> Value {
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

fn notes_read_parameters() -> Value {
    object(
        json!({
            "address": {"type": "string", "minLength": 1, "description": ADDRESS_DESCRIPTION},
            "offset_chars": {"type": "integer", "description": "Start here (code points of the body); negative counts from the end. Default 0."},
            "limit_chars": {"type": "integer", "minimum": 1, "maximum": MAX_READ_CHARS, "description": format!("Code points to read (default {DEFAULT_READ_CHARS}, at most {MAX_READ_CHARS}).")}
        }),
        &["address"],
    )
}

fn notes_page_properties() -> serde_json::Map<String, Value> {
    let properties = json!({
        "pattern": {"type": "string", "description": "Glob over addresses: * within a segment, ** across segments, ? one character. Start with @project/, @human/, @self/, @model/, @agents/<name>/ or @models/<name>/ to read only that home."},
        "limit": {"type": "integer", "minimum": 1, "description": "At most this many notes (default: as many as fit the response)."},
        "wastebasket": {"type": "boolean", "description": "List only crumpled notes instead of only live ones."}
    });
    into_map(properties)
}

fn notes_list_parameters() -> Value {
    object(Value::Object(notes_page_properties()), &[])
}

fn notes_search_parameters() -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert("query".into(), query_property());
    properties.extend(notes_page_properties());
    properties.insert(
        "max_matches_per_file".into(),
        json!({"type": "integer", "minimum": 1, "description": "Show at most this many matching lines per note (matches_total still counts all)."}),
    );
    object(Value::Object(properties), &["query"])
}
