//! `history_windows`, `history_list`, `history_read`, `history_search`: one session's branch.

use serde_json::{json, Value};

use pi_context::history::{
    with_history, Branch, History, HistoryError, Item, Leaf, ListParams, RawScan, ReadParams,
    SearchParams, SessionInput,
};
use pi_context::redact::Masking;
use pi_context::wire::{
    self, QueryError, DEFAULT_PAGE_LIMIT, DEFAULT_PREVIEW_CHARS, DEFAULT_READ_CHARS,
    MAX_READ_CHARS, RESULT_BUDGET_BYTES,
};

use super::registry::{Mode, Tool, EVERY_DOOR};
use super::schema::{into_map, object, query_property, roles_property};
use super::{Call, Params, Refusal, ToolContext, ToolResponse};

pub const TOOLS: [Tool; 4] = [
    Tool {
        name: "history_windows",
        label: "History windows",
        description: "List the context windows of this session, oldest first, with the seq range and event count of each. \
Every wipe_memory starts a new window; everything said before stays readable with history_list, history_search and history_read.",
        parameters: windows_parameters,
        mode: Mode::Parallel,
        answer: windows,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: true,
        live_session: true,
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
        mode: Mode::Parallel,
        answer: list,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: true,
        live_session: true,
    },
    Tool {
        name: "history_search",
        label: "History search",
        description: "Search this session's events (all windows of the current branch) for literal text, case-insensitive; \
several queries are OR-ed, and regex characters match literally. Each row's preview starts at the earliest match and carries offset_chars; \
pass that seq and offset to history_read to read on from the match. Paging and filters work as in history_list.",
        parameters: search_parameters,
        mode: Mode::Parallel,
        answer: search,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: true,
        live_session: true,
    },
    Tool {
        name: "history_read",
        label: "History read",
        description: "Read the full text of one event by seq as a READ WINDOW. Offsets and lengths count Unicode code points; \
a negative offset_chars counts from the end. When next_offset_chars is not null, call again with it to continue: \
the windows concatenate to the exact text. Reading a tool result's seq shows the call it belongs to.",
        parameters: read_parameters,
        mode: Mode::Parallel,
        answer: read,
        activity: false,
        saves_notes: false,
        doors: EVERY_DOOR,
        read_only: true,
        live_session: true,
    },
];

const PAGE_KEYS: [&str; 6] = [
    "limit",
    "roles",
    "before",
    "after",
    "window_id",
    "max_chars_per_item",
];

fn windows(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(value, &keys(&[]))?;
    answer(HistoryCall::Windows, target(&params)?, call)
}

fn list(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(value, &keys(&PAGE_KEYS))?;
    answer(
        HistoryCall::List(list_params(&params)?),
        target(&params)?,
        call,
    )
}

fn search(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let mut own = PAGE_KEYS.to_vec();
    own.push("query");
    let params = Params::new(value, &keys(&own))?;
    // The query is checked before anything else, the window id included.
    let queries = queries(params.get("query"))?;
    let search = HistoryCall::Search(SearchParams {
        queries,
        list: list_params(&params)?,
    });
    answer(search, target(&params)?, call)
}

fn read(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = Params::new(value, &keys(&["seq", "offset_chars", "limit_chars"]))?;
    let seq = params
        .positive("seq")?
        .ok_or_else(|| Refusal::new("invalid_params", "seq is required"))?;
    let read = HistoryCall::Read(ReadParams {
        seq,
        offset_chars: params.int("offset_chars", i64::MIN, i64::MAX)?.unwrap_or(0),
        limit_chars: params
            .int("limit_chars", 1, MAX_READ_CHARS as i64)?
            .map_or(DEFAULT_READ_CHARS, |n| n as usize),
    });
    answer(read, target(&params)?, call)
}

/// Answers a call whose parameters are valid: reads the session the target names,
/// consistently, and projects its branch.
fn answer(call: HistoryCall, target: Target, ctx: &Call) -> Result<ToolResponse, Refusal> {
    let env = ctx.environment()?;
    let source = Source::resolve(&target, ctx.context, env)?;
    let options = env.session_open_options();
    let no_lines = Vec::new();
    let input = match &source.file {
        Some(path) => SessionInput::File {
            path,
            options: &options,
        },
        None => SessionInput::Lines(source.entries.map_or(&no_lines, |lines| lines)),
    };
    let branch = Branch {
        leaf: &source.leaf,
        session_id: source.session_id.as_deref(),
        masking: source.masking,
    };
    let scan_for = match &call {
        HistoryCall::Search(params) => Some(params.queries.as_slice()),
        _ => None,
    };
    Ok(with_history(input, branch, scan_for, |history, scan| {
        answer_call(&call, history, scan)
    })?)
}

/// Which session and branch a history call reads: `session_id` and `leaf_id` params.
#[derive(Debug, Default)]
struct Target {
    session_id: Option<String>,
    leaf_id: Option<String>,
}

/// The session a call reads, resolved: this session (the context's file or entries) or
/// another past session found by id under the session roots.
struct Source<'c> {
    file: Option<std::path::PathBuf>,
    entries: Option<&'c Vec<String>>,
    leaf: Leaf,
    session_id: Option<String>,
    /// Another session's secrets are masked (docs/recall.md, "Secrets"); this one's are not.
    masking: Masking,
}

impl<'c> Source<'c> {
    fn resolve(
        target: &Target,
        context: &'c ToolContext,
        env: &pi_context::environment::Environment,
    ) -> Result<Source<'c>, Refusal> {
        let own_id = context.session_id.as_deref();
        let other = target
            .session_id
            .as_deref()
            .filter(|id| Some(*id) != own_id);
        let Some(query) = other else {
            let leaf = target.leaf_id.as_deref().or(context.leaf_id.as_deref());
            return Ok(Source {
                file: context.session_file.clone(),
                entries: context.entries.as_ref(),
                leaf: Leaf::from_wire(leaf),
                session_id: context.session_id.clone(),
                masking: Masking::Off,
            });
        };
        let found = pi_context::recall::resolve_session(&env.sessions_roots(), query)?;
        // Naming this very session by a prefix keeps its live leaf.
        let same = context
            .session_file
            .as_deref()
            .is_some_and(|f| f == found.path)
            || own_id == Some(found.session_id.as_str());
        let leaf = match (&target.leaf_id, same) {
            (Some(leaf), _) => Leaf::from_wire(Some(leaf)),
            (None, true) => Leaf::from_wire(context.leaf_id.as_deref()),
            (None, false) => Leaf::Last,
        };
        Ok(Source {
            file: Some(found.path),
            entries: None,
            leaf,
            session_id: Some(found.session_id),
            masking: if same { Masking::Off } else { env.masking() },
        })
    }
}

/// Answers a parsed call on the projected branch; a search uses `scan` (the raw-byte scan done
/// alongside loading) when given.
fn answer_call(
    call: &HistoryCall,
    history: &History,
    scan: Option<&RawScan>,
) -> Result<ToolResponse, HistoryError> {
    match call {
        HistoryCall::Windows => {
            let result = history.windows_result(RESULT_BUDGET_BYTES);
            let text = wire::to_compact_json(&result);
            if text.len() > RESULT_BUDGET_BYTES {
                // Not even the session id fits (a hand-made file): refuse rather than overflow.
                return Err(HistoryError::OutputTooLarge {
                    budget: RESULT_BUDGET_BYTES,
                });
            }
            let details =
                json!({"windows": result.windows.len(), "more": result.more.unwrap_or(0)});
            Ok(ToolResponse::ok(text, details))
        }
        HistoryCall::List(params) => Ok(page_response(history.list(params, RESULT_BUDGET_BYTES)?)),
        HistoryCall::Search(params) => Ok(page_response(history.search_scanned(
            params,
            RESULT_BUDGET_BYTES,
            scan,
        )?)),
        HistoryCall::Read(params) => {
            let result = history.read(params, RESULT_BUDGET_BYTES)?;
            Ok(ToolResponse::ok(result.window.render(), result.details()))
        }
    }
}

enum HistoryCall {
    Windows,
    List(ListParams),
    Search(SearchParams),
    Read(ReadParams),
}

/// The parameters every history tool takes besides its own.
const TARGET_KEYS: [&str; 2] = ["session_id", "leaf_id"];

fn target(params: &Params) -> Result<Target, Refusal> {
    let non_empty = |key: &str| -> Result<Option<String>, Refusal> {
        match params.string(key)? {
            Some("") => Err(Refusal::new(
                "invalid_params",
                format!("{key} must not be empty"),
            )),
            other => Ok(other.map(str::to_string)),
        }
    };
    Ok(Target {
        session_id: non_empty("session_id")?,
        leaf_id: non_empty("leaf_id")?,
    })
}

fn keys(own: &[&'static str]) -> Vec<&'static str> {
    own.iter().chain(TARGET_KEYS.iter()).copied().collect()
}

fn list_params(params: &Params) -> Result<ListParams, Refusal> {
    let roles = params.roles("roles")?;
    let window_id = params.string("window_id")?;
    if window_id == Some("") {
        return Err(Refusal::new(
            "invalid_params",
            "window_id must not be empty",
        ));
    }
    Ok(ListParams {
        limit: params
            .positive("limit")?
            .map_or(DEFAULT_PAGE_LIMIT, |n| n as usize),
        roles,
        before: params.positive("before")?,
        after: params.positive("after")?,
        window_id: window_id.map(str::to_string),
        max_chars_per_item: params
            .positive("max_chars_per_item")?
            .map_or(DEFAULT_PREVIEW_CHARS, |n| n as usize),
    })
}

/// `query`: a string or an array of strings, within the limits of `wire::check_queries`. The
/// count is checked before any string is copied.
pub(super) fn queries(value: Option<&Value>) -> Result<Vec<String>, Refusal> {
    let invalid = |e: QueryError| Refusal::new("invalid_query", e.to_string());
    let queries = match value {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => {
            wire::check_query_count(items.len()).map_err(invalid)?;
            items
                .iter()
                .map(|v| {
                    v.as_str().map(str::to_string).ok_or_else(|| {
                        Refusal::new("invalid_query", "query array elements must be strings")
                    })
                })
                .collect::<Result<Vec<_>, _>>()?
        }
        _ => return Err(invalid(QueryError::Missing)),
    };
    wire::check_queries(&queries).map_err(invalid)?;
    Ok(queries)
}

fn page_response(page: pi_context::history::Page) -> ToolResponse {
    let rows = page
        .items
        .iter()
        .filter(|i| matches!(i, Item::Row(_)))
        .count();
    let details = json!({
        "rows": rows,
        "older_before": page.older_before,
        "newer_after": page.newer_after,
    });
    ToolResponse::ok(wire::to_compact_json(&page), details)
}

/// `session_id` and `leaf_id`, which every history tool takes.
fn session_properties() -> serde_json::Map<String, Value> {
    into_map(json!({
        "session_id": {"type": "string", "minLength": 1, "description": "Read another past session, of Pi, Claude Code, Codex or Gemini CLI: its full id or a unique prefix of at least 8 characters (from sessions_search or sessions_list). Default: this session."},
        "leaf_id": {"type": "string", "minLength": 1, "description": "The entry that ends the branch to read (a sessions_search hit's leaf_id for an abandoned branch). Default: this session's current leaf, or the last entry of another session."}
    }))
}

fn windows_parameters() -> Value {
    object(Value::Object(session_properties()), &[])
}

fn page_properties() -> serde_json::Map<String, Value> {
    into_map(json!({
        "limit": {"type": "integer", "minimum": 1, "description": format!("Rows per page (default {DEFAULT_PAGE_LIMIT}); fold rows are extra.")},
        "roles": roles_property("Only these roles. Omit for the conversation view (history_list) or every role (history_search)."),
        "before": {"type": "integer", "minimum": 1, "description": "Only seqs below this (exclusive). Pass older_before here to page back."},
        "after": {"type": "integer", "minimum": 1, "description": "Only seqs above this (exclusive). Pass newer_after here to page forward."},
        "window_id": {"type": "string", "minLength": 1, "description": "Only events of this window (ids from history_windows)."},
        "max_chars_per_item": {"type": "integer", "minimum": 1, "description": format!("Preview length per row in code points (default {DEFAULT_PREVIEW_CHARS}).")}
    }))
}

fn list_parameters() -> Value {
    let mut properties = page_properties();
    properties.extend(session_properties());
    object(Value::Object(properties), &[])
}

fn search_parameters() -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "query".into(),
        query_property("Literal text to find, case-insensitive"),
    );
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
