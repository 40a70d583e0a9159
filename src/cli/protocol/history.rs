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
    let (call, target) = Call::parse(name, params)?;
    let source = Source::resolve(&target, context)?;
    let options = crate::cli::config::session_open_options();
    let no_lines = Vec::new();
    let input = match &source.file {
        Some(path) => SessionInput::File {
            path: std::path::Path::new(path),
            options: &options,
        },
        None => SessionInput::Lines(source.entries.map_or(&no_lines, |lines| lines)),
    };
    let branch = Branch {
        leaf: &source.leaf,
        session_id: source.session_id.as_deref(),
    };
    let scan_for = match &call {
        Call::Search(params) => Some(params.queries.as_slice()),
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
    file: Option<String>,
    entries: Option<&'c Vec<String>>,
    leaf: Leaf,
    session_id: Option<String>,
}

impl<'c> Source<'c> {
    fn resolve(target: &Target, context: &'c ToolContext) -> Result<Source<'c>, Refusal> {
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
            });
        };
        let recall = super::sessions::recall_for(context)?;
        let found = pi_context::recall::resolve_session(&recall.roots, query)?;
        // Naming this very session by a prefix keeps its live leaf.
        let same = context
            .session_file
            .as_deref()
            .is_some_and(|f| std::path::Path::new(f) == found.path)
            || own_id == Some(found.session_id.as_str());
        let leaf = match (&target.leaf_id, same) {
            (Some(leaf), _) => Leaf::from_wire(Some(leaf)),
            (None, true) => Leaf::from_wire(context.leaf_id.as_deref()),
            (None, false) => Leaf::Last,
        };
        Ok(Source {
            file: Some(found.path.to_string_lossy().into_owned()),
            entries: None,
            leaf,
            session_id: Some(found.session_id),
        })
    }
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

impl Call {
    fn parse(name: &str, value: &Value) -> Result<(Call, Target), Refusal> {
        let (call, params) = Call::parse_own(name, value)?;
        Ok((call, target(&params)?))
    }

    fn parse_own<'v>(name: &str, value: &'v Value) -> Result<(Call, Params<'v>), Refusal> {
        Ok(match name {
            "history_windows" => (Call::Windows, Params::new(value, &keys(&[]))?),
            "history_list" => {
                let params = Params::new(value, &keys(&PAGE_KEYS))?;
                (Call::List(list_params(&params)?), params)
            }
            "history_search" => {
                let mut own = PAGE_KEYS.to_vec();
                own.push("query");
                let params = Params::new(value, &keys(&own))?;
                // The query is checked before anything else, the window id included.
                let queries = queries(params.get("query"))?;
                let call = Call::Search(SearchParams {
                    queries,
                    list: list_params(&params)?,
                });
                (call, params)
            }
            _ => {
                let params = Params::new(value, &keys(&["seq", "offset_chars", "limit_chars"]))?;
                let seq = params
                    .positive("seq")?
                    .ok_or_else(|| Refusal::new("invalid_params", "seq is required"))?;
                let call = Call::Read(ReadParams {
                    seq,
                    offset_chars: params.int("offset_chars", i64::MIN, i64::MAX)?.unwrap_or(0),
                    limit_chars: params
                        .int("limit_chars", 1, MAX_READ_CHARS as i64)?
                        .map_or(DEFAULT_READ_CHARS, |n| n as usize),
                });
                (call, params)
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
