//! `history_windows`, `history_list`, `history_read`, `history_search`.

use serde_json::{json, Value};

use pi_context::history::{
    with_history, Branch, History, HistoryError, Item, Leaf, ListParams, RawScan, ReadParams, Role,
    SearchParams, SessionInput,
};
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
    let options = crate::cli::config::session_open_options();
    let no_lines = Vec::new();
    let input = match &context.session_file {
        Some(path) => SessionInput::File {
            path: std::path::Path::new(path),
            options: &options,
        },
        None => SessionInput::Lines(context.entries.as_deref().unwrap_or(&no_lines)),
    };
    let branch = Branch {
        leaf: &Leaf::from_wire(context.leaf_id.as_deref()),
        session_id: context.session_id.as_deref(),
    };
    let scan_for = match &call {
        Call::Search(params) => Some(params.queries.as_slice()),
        _ => None,
    };
    Ok(with_history(input, branch, scan_for, |history, scan| {
        answer_call(&call, history, scan)
    })?)
}

/// Answers a parsed call on the projected branch; a search uses `scan` (the raw-byte scan done
/// alongside loading) when given.
fn answer_call(
    call: &Call,
    history: &History,
    scan: Option<&RawScan>,
) -> Result<ToolResponse, HistoryError> {
    match call {
        Call::Windows => {
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
        Call::List(params) => Ok(page_response(history.list(params, RESULT_BUDGET_BYTES)?)),
        Call::Search(params) => Ok(page_response(history.search_scanned(
            params,
            RESULT_BUDGET_BYTES,
            scan,
        )?)),
        Call::Read(params) => {
            let result = history.read(params, RESULT_BUDGET_BYTES)?;
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
