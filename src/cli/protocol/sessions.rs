//! `sessions_list` and `sessions_search`: recall across every past session, fitted to the
//! result budget (fewer sessions and hits; `more` counts the sessions left out).

use serde_json::{json, Value};

use pi_context::recall::{
    self, Harness, ListParams, ListResult, Recall, Scope, SearchParams, SearchResult, SessionHits,
    DEFAULT_HITS, DEFAULT_LIST_LIMIT, DEFAULT_PREVIEW_CHARS, DEFAULT_SEARCH_LIMIT,
};
use pi_context::wire::{self, RESULT_BUDGET_BYTES};

use pi_context::environment::Environment;

use super::history::queries;
use super::registry::{Mode, Tool, EVERY_DOOR};
use super::schema::{
    harness_names_described, harnesses_property, into_map, object, query_property, roles_property,
};
use super::{Call, Params, Refusal, ToolResponse};

pub const TOOLS: [Tool; 2] = [
    Tool {
        name: "sessions_list",
        label: "Sessions list",
        description: "List past sessions of Pi, Claude Code and Codex (this agent's and the other coding agents' on this machine), most recently updated first: \
id, harness (pi, claude, codex, gemini), parent session of a subagent, file, project, name, dates, size and the first user message. \
Use it when this session is fresh and needs earlier work, or when the user refers to \"last time\" or another session. \
scope \"project\" (default) is this project's sessions; \"all\" is every project; harness narrows to some agents. Open one with history_list / history_read and its session_id.",
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
        name: "sessions_search",
        label: "Sessions search",
        description: "Search everything said in past sessions of Pi, Claude Code and Codex (user, assistant, tool calls with output, summaries) by words, ranked: \
use it when the user asks about earlier work (\"where did we fix…\", \"last time\", \"what did we decide about…\") or when a fresh session needs \
what an earlier one found. Words match case- and accent-insensitively; a query in double quotes is a phrase; an array of queries means any of them. \
Sessions holding every word rank first; each hit has session_id, seq, leaf_id and a preview starting shortly before the match at offset_chars. \
Read a hit in full with history_read {session_id, seq, leaf_id, offset_chars}. scope \"project\" (default) or \"all\"; harness narrows to some agents; branches \"all\" also searches abandoned branches.",
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

const SCOPE_KEYS: [&str; 4] = ["scope", "since", "limit", "harness"];

fn scope(params: &Params, env: &Environment) -> Result<Scope, Refusal> {
    let current = pi_context::project::project_key_of(&env.cwd);
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

/// The `harness` param: the harnesses kept (empty: all).
fn harnesses(params: &Params) -> Result<Vec<Harness>, Refusal> {
    Ok(params.harnesses("harness")?.unwrap_or_default())
}

fn since(params: &Params, recall: &Recall) -> Result<Option<i64>, Refusal> {
    params
        .string("since")?
        .map(|s| recall::parse_since(s, recall.now_ms))
        .transpose()
        .map_err(Refusal::from)
}

fn list(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let params = &Params::new(value, &SCOPE_KEYS)?;
    let env = call.environment()?;
    let scope = scope(params, env)?;
    let limit = params
        .positive("limit")?
        .map_or(DEFAULT_LIST_LIMIT, |n| n.min(10_000) as usize);
    let recall = env
        .recall()?
        .only(&harnesses(params)?)
        .from_session(call.context.session_file.clone());
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

fn search(value: &Value, call: &Call) -> Result<ToolResponse, Refusal> {
    let mut keys = SCOPE_KEYS.to_vec();
    keys.extend(["query", "roles", "branches", "hits_per_session"]);
    let params = &Params::new(value, &keys)?;
    let queries = queries(params.get("query"))?;
    let env = call.environment()?;
    let scope = scope(params, env)?;
    let roles = params.roles("roles")?;
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
    let recall = env
        .recall()?
        .only(&harnesses(params)?)
        .from_session(call.context.session_file.clone());
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

fn scope_properties() -> serde_json::Map<String, Value> {
    into_map(json!({
        "scope": {"type": "string", "enum": ["project", "all"], "description": "\"project\" (default): this project's sessions; \"all\": every project's, this project's ranked higher."},
        "since": {"type": "string", "minLength": 1, "description": "Only what happened this recently: 30m, 12h, 7d, 4w, or an RFC 3339 date."},
        "harness": harnesses_property(&format!("Only the sessions of these agents: {} (default: all).", harness_names_described()))
    }))
}

fn list_parameters() -> Value {
    let mut properties = scope_properties();
    properties.insert(
        "limit".into(),
        json!({"type": "integer", "minimum": 1, "description": format!("At most this many sessions (default {DEFAULT_LIST_LIMIT}).")}),
    );
    object(Value::Object(properties), &[])
}

fn search_parameters() -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "query".into(),
        query_property("Words to find (\"double quotes\" for a phrase)"),
    );
    properties.extend(scope_properties());
    properties.extend(into_map(json!({
        "roles": roles_property("Only events of these roles."),
        "branches": {"type": "string", "enum": ["current", "all"], "description": "\"current\" (default): each session's current branch; \"all\": abandoned branches too."},
        "limit": {"type": "integer", "minimum": 1, "description": format!("At most this many sessions (default {DEFAULT_SEARCH_LIMIT}).")},
        "hits_per_session": {"type": "integer", "minimum": 1, "description": format!("At most this many hits per session (default {DEFAULT_HITS}).")}
    })));
    object(Value::Object(properties), &["query"])
}
