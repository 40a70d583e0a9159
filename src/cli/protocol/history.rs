//! `history_windows`, `history_list`, `history_read`, `history_search`.

use serde_json::{json, Value};

use pi_context::history::{
    scan_in_parallel, History, HistoryError, Item, Leaf, ListParams, PendingScan, ReadParams, Role,
    SearchParams,
};
use pi_context::session::Session;
use pi_context::wire::{
    self, QueryError, DEFAULT_PAGE_LIMIT, DEFAULT_PREVIEW_CHARS, DEFAULT_READ_CHARS,
    MAX_READ_CHARS, RESULT_BUDGET_BYTES,
};

use super::{Params, Refusal, ToolContext, ToolResponse};
use crate::cli::printer::read_details;

const PAGE_KEYS: [&str; 6] = [
    "limit",
    "roles",
    "before",
    "after",
    "window_id",
    "max_chars_per_item",
];

pub fn answer(name: &str, params: &Value, context: &ToolContext) -> Result<ToolResponse, Refusal> {
    // Parameters are checked before the session is read: a bad call costs nothing.
    let call = Call::parse(name, params)?;
    match (&call, &context.session_file) {
        (Call::Search(params), Some(path)) => {
            let queries = params.queries.clone();
            scan_in_parallel(std::path::Path::new(path), &queries, |scan| {
                answer_call(call, context, Some(scan))
            })
        }
        _ => answer_call(call, context, None),
    }
}

/// Answers a parsed call; a search uses `scan` (the raw-byte scan running alongside) when given.
fn answer_call(
    call: Call,
    context: &ToolContext,
    scan: Option<PendingScan>,
) -> Result<ToolResponse, Refusal> {
    let session = load(context)?;
    let leaf = Leaf::from_wire(context.leaf_id.as_deref());
    let history = History::project(&session, &leaf, context.session_id.as_deref())?;
    match call {
        Call::Windows => {
            let result = history.windows_result(RESULT_BUDGET_BYTES);
            let text = wire::to_compact_json(&result);
            if text.len() > RESULT_BUDGET_BYTES {
                // Not even the session id fits (a hand-made file): refuse rather than overflow.
                return Err(HistoryError::OutputTooLarge {
                    budget: RESULT_BUDGET_BYTES,
                }
                .into());
            }
            let details =
                json!({"windows": result.windows.len(), "more": result.more.unwrap_or(0)});
            Ok(ToolResponse::ok(text, details))
        }
        Call::List(params) => page_response(history.list(&params, RESULT_BUDGET_BYTES)?),
        Call::Search(params) => {
            let page = match scan {
                Some(scan) => {
                    history.search_scanned(&params, RESULT_BUDGET_BYTES, scan.wait().as_ref())?
                }
                None => history.search(&params, RESULT_BUDGET_BYTES)?,
            };
            page_response(page)
        }
        Call::Read(params) => {
            let result = history.read(&params, RESULT_BUDGET_BYTES)?;
            Ok(ToolResponse::ok(
                result.window.render(),
                read_details(&result),
            ))
        }
    }
}

enum Call {
    Windows,
    List(ListParams),
    Search(SearchParams),
    Read(ReadParams),
}

impl Call {
    fn parse(name: &str, value: &Value) -> Result<Call, Refusal> {
        Ok(match name {
            "history_windows" => {
                Params::new(value, &[])?;
                Call::Windows
            }
            "history_list" => Call::List(list_params(&Params::new(value, &PAGE_KEYS)?)?),
            "history_search" => {
                let mut keys = PAGE_KEYS.to_vec();
                keys.push("query");
                let params = Params::new(value, &keys)?;
                // The query is checked before anything else, the window id included.
                let queries = queries(params.get("query"))?;
                Call::Search(SearchParams {
                    queries,
                    list: list_params(&params)?,
                })
            }
            _ => {
                let params = Params::new(value, &["seq", "offset_chars", "limit_chars"])?;
                let seq = params
                    .positive("seq")?
                    .ok_or_else(|| Refusal::new("invalid_params", "seq is required"))?;
                Call::Read(ReadParams {
                    seq,
                    offset_chars: params.int("offset_chars", i64::MIN, i64::MAX)?.unwrap_or(0),
                    limit_chars: params
                        .int("limit_chars", 1, MAX_READ_CHARS as i64)?
                        .map_or(DEFAULT_READ_CHARS, |n| n as usize),
                })
            }
        })
    }
}

fn list_params(params: &Params) -> Result<ListParams, Refusal> {
    let roles = match params.string_array("roles")? {
        None => None,
        Some(names) if names.is_empty() => {
            return Err(Refusal::new("invalid_params", "roles must not be empty"))
        }
        Some(names) => Some(
            names
                .iter()
                .map(|n| {
                    Role::parse(n).ok_or_else(|| {
                        Refusal::new(
                            "invalid_params",
                            format!("unknown role {n:?}; roles are user, assistant, tool, context"),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
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

fn load(context: &ToolContext) -> Result<Session, Refusal> {
    match (&context.session_file, &context.entries) {
        (Some(path), _) => Session::open_with(
            std::path::Path::new(path),
            &crate::cli::config::session_open_options(),
        )
        .map_err(|e| {
            let mut refusal =
                Refusal::new("io_error", format!("cannot read session file {path}: {e}"));
            refusal.details.insert("session_file".into(), json!(path));
            refusal
        }),
        (None, Some(lines)) => Ok(Session::from_lines(lines)),
        (None, None) => Ok(Session::default()),
    }
}

fn page_response(page: pi_context::history::Page) -> Result<ToolResponse, Refusal> {
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
    Ok(ToolResponse::ok(wire::to_compact_json(&page), details))
}
