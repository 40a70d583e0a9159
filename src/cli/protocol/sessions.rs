//! `sessions_list` and `sessions_search`: recall across every past session, fitted to the
//! result budget (fewer sessions and hits; `more` counts the sessions left out).

use std::path::PathBuf;

use serde_json::{json, Value};

use pi_context::history::Role;
use pi_context::recall::{
    self, ListParams, ListResult, Recall, Scope, SearchParams, SearchResult, SessionHits,
    DEFAULT_HITS, DEFAULT_LIST_LIMIT, DEFAULT_PREVIEW_CHARS, DEFAULT_SEARCH_LIMIT,
};
use pi_context::wire::{self, RESULT_BUDGET_BYTES};

use super::history::queries;
use super::{Params, Refusal, ToolContext, ToolResponse};

const SCOPE_KEYS: [&str; 3] = ["scope", "since", "limit"];

pub fn answer(name: &str, params: &Value, context: &ToolContext) -> Result<ToolResponse, Refusal> {
    match name {
        "sessions_list" => list(&Params::new(params, &SCOPE_KEYS)?, context),
        _ => {
            let mut keys = SCOPE_KEYS.to_vec();
            keys.extend(["query", "roles", "branches", "hits_per_session"]);
            search(&Params::new(params, &keys)?, context)
        }
    }
}

/// The recall of a tool call: its cwd, and the live session's directory as an extra root.
pub fn recall_for(context: &ToolContext) -> Result<Recall, Refusal> {
    let cwd = cwd(context);
    let live = context
        .session_dir
        .as_deref()
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    crate::cli::config::recall_at(&[], &cwd, live).map_err(|e| Refusal::new("io_error", e.message))
}

fn cwd(context: &ToolContext) -> PathBuf {
    context
        .cwd
        .as_deref()
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

fn scope(params: &Params, context: &ToolContext) -> Result<Scope, Refusal> {
    let current = recall::project_key_of(&cwd(context));
    match params.string("scope")? {
        None | Some("project") => Ok(Scope::Project(current)),
        Some("all") => Ok(Scope::All {
            current: Some(current),
        }),
        Some(other) => Err(Refusal::new(
            "invalid_params",
            format!("unknown scope {other:?}; scopes are project, all"),
        )),
    }
}

fn since(params: &Params, recall: &Recall) -> Result<Option<i64>, Refusal> {
    params
        .string("since")?
        .map(|s| recall::parse_since(s, recall.now_ms))
        .transpose()
        .map_err(Refusal::from)
}

fn list(params: &Params, context: &ToolContext) -> Result<ToolResponse, Refusal> {
    let scope = scope(params, context)?;
    let limit = params
        .positive("limit")?
        .map_or(DEFAULT_LIST_LIMIT, |n| n.min(10_000) as usize);
    let recall = recall_for(context)?;
    let params = ListParams {
        scope,
        since_ms: since(params, &recall)?,
        limit,
    };
    let mut result = recall.list(&params)?;
    fit_list(&mut result);
    let details = json!({
        "sessions": result.sessions.len(),
        "more": result.more,
        "stale": result.stale,
        "unreadable": result.unreadable,
    });
    Ok(ToolResponse::ok(wire::to_compact_json(&result), details))
}

fn search(params: &Params, context: &ToolContext) -> Result<ToolResponse, Refusal> {
    let queries = queries(params.get("query"))?;
    let scope = scope(params, context)?;
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
    let all_branches = match params.string("branches")? {
        None | Some("current") => false,
        Some("all") => true,
        Some(other) => {
            return Err(Refusal::new(
                "invalid_params",
                format!("unknown branches {other:?}; use current or all"),
            ))
        }
    };
    let limit = params
        .positive("limit")?
        .map_or(DEFAULT_SEARCH_LIMIT, |n| n.min(1000) as usize);
    let hits = params
        .positive("hits_per_session")?
        .map_or(DEFAULT_HITS, |n| n.min(100) as usize);
    let recall = recall_for(context)?;
    let params = SearchParams {
        queries,
        scope,
        since_ms: since(params, &recall)?,
        roles,
        all_branches,
        limit,
        hits,
        preview_chars: DEFAULT_PREVIEW_CHARS,
    };
    let mut result = recall.search(&params)?;
    fit_search(&mut result);
    let details = json!({
        "sessions": result.sessions.len(),
        "hits": result.sessions.iter().map(|s| s.hits.len()).sum::<usize>(),
        "more": result.more,
        "stale": result.stale,
        "unreadable": result.unreadable,
    });
    Ok(ToolResponse::ok(wire::to_compact_json(&result), details))
}

fn fits<T: serde::Serialize>(value: &T) -> bool {
    wire::to_compact_json(value).len() <= RESULT_BUDGET_BYTES
}

/// Drops the last sessions until the list fits; `more` counts them.
fn fit_list(result: &mut ListResult) {
    while !fits(result) && !result.sessions.is_empty() {
        result.sessions.pop();
        result.more += 1;
    }
}

/// Keeps the best sessions with as many of their hits as fit: sessions are added in rank
/// order, each with its hits cut until it fits; a session that does not fit even with one hit
/// (cut to a shorter preview) ends the page. `more` counts every matching session left out.
fn fit_search(result: &mut SearchResult) {
    if fits(result) {
        return;
    }
    let all = std::mem::take(&mut result.sessions);
    let total = all.len() + result.more;
    // Whether the page fits with `session` added (and `more` counting the rest).
    let fits_with = |result: &mut SearchResult, session: &SessionHits| {
        result.sessions.push(session.clone());
        result.more = total - result.sessions.len();
        let ok = fits(result);
        result.sessions.pop();
        result.more = total - result.sessions.len();
        ok
    };
    result.more = total;
    for mut session in all {
        let hits = std::mem::take(&mut session.hits);
        let most = (1..=hits.len()).rev().find(|&n| {
            session.hits = hits[..n].to_vec();
            fits_with(result, &session)
        });
        if let Some(n) = most {
            session.hits = hits[..n].to_vec();
        } else {
            // One hit with its preview cut to what fits, or the page ends here.
            let Some(mut first) = hits.into_iter().next() else {
                break;
            };
            let chars: Vec<char> = first.content.chars().collect();
            first.truncated = true;
            let keep = wire::longest_fitting(chars.len(), |n| {
                first.content = chars[..n].iter().collect();
                session.hits = vec![first.clone()];
                fits_with(result, &session)
            });
            let Some(n) = keep.filter(|&n| n > 0) else {
                break;
            };
            first.content = chars[..n].iter().collect();
            session.hits = vec![first];
        }
        result.sessions.push(session);
        result.more = total - result.sessions.len();
    }
}
