//! `notes_write`, `notes_edit`, `notes_read`, `notes_list`, `notes_search`.

use serde_json::{json, Map, Value};

use pi_context::notes::{
    read_window, Edit, EditReceipt, EditRequest, IdentityInput, ListPage, NotesError, NotesPage,
    Origin, Query, SearchPage, Store, WriteReceipt,
};
use pi_context::wire::{self, DEFAULT_READ_CHARS, MAX_READ_CHARS, RESULT_BUDGET_BYTES};

use super::{Params, Refusal, ToolContext, ToolResponse};
use crate::cli::printer::notes_read_details;

pub fn answer(name: &str, params: &Value, context: &ToolContext) -> Result<ToolResponse, Refusal> {
    // Parameters are checked before any file is touched: a bad call costs nothing.
    let call = Call::parse(name, params)?;
    let store = Store::new(identity(context).map_err(refusal)?);
    call.run(&store).map_err(refusal)
}

/// The identity of the live session, normalized like the command-line flags; a field the
/// context leaves out falls back to the environment, then to the defaults.
fn identity(context: &ToolContext) -> Result<pi_context::notes::Identity, NotesError> {
    IdentityInput {
        notes_home: context.notes_home.clone().map(Into::into),
        session_id: context.session_id.clone(),
        project_key: None,
        cwd: context.cwd.clone().map(Into::into),
        agent: context.agent.clone(),
        model: context.model.clone(),
    }
    .with_env_defaults()
    .resolve()
}

enum Call {
    Write {
        address: String,
        content: String,
        origin: Option<Origin>,
    },
    Edit {
        address: String,
        request: EditRequest,
    },
    Read {
        address: String,
        offset_chars: i64,
        limit_chars: usize,
    },
    List {
        query: Query,
        limit: Option<usize>,
    },
    Search {
        queries: Vec<String>,
        query: Query,
        limit: Option<usize>,
        max_matches: Option<usize>,
    },
}

impl Call {
    fn parse(name: &str, value: &Value) -> Result<Call, Refusal> {
        Ok(match name {
            "notes_write" => {
                let params = Params::new(value, &["address", "content", "origin"])?;
                Call::Write {
                    address: required(&params, "address")?,
                    content: required(&params, "content")?,
                    origin: origin(&params)?,
                }
            }
            "notes_edit" => {
                let params = Params::new(
                    value,
                    &["address", "edits", "origin", "crumpled", "replace_all"],
                )?;
                Call::Edit {
                    address: required(&params, "address")?,
                    request: EditRequest {
                        edits: edits(params.get("edits"))?,
                        origin: origin(&params)?,
                        crumpled: params.boolean("crumpled")?,
                        replace_all: params.boolean("replace_all")?.unwrap_or(false),
                        // Never more diff text than the result can show.
                        diff_max_bytes: Some(RESULT_BUDGET_BYTES),
                    },
                }
            }
            "notes_read" => {
                let params = Params::new(value, &["address", "offset_chars", "limit_chars"])?;
                Call::Read {
                    address: required(&params, "address")?,
                    offset_chars: params.int("offset_chars", i64::MIN, i64::MAX)?.unwrap_or(0),
                    limit_chars: params
                        .int("limit_chars", 1, MAX_READ_CHARS as i64)?
                        .map_or(DEFAULT_READ_CHARS, |n| n as usize),
                }
            }
            "notes_list" => {
                let params = Params::new(value, &["pattern", "limit", "wastebasket"])?;
                Call::List {
                    query: query(&params)?,
                    limit: params.positive("limit")?.map(|n| n as usize),
                }
            }
            _ => {
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
                Call::Search {
                    queries,
                    query: query(&params)?,
                    limit: params.positive("limit")?.map(|n| n as usize),
                    max_matches: params.positive("max_matches_per_file")?.map(|n| n as usize),
                }
            }
        })
    }

    fn run(self, store: &Store) -> Result<ToolResponse, NotesError> {
        match self {
            Call::Write {
                address,
                content,
                origin,
            } => {
                let receipt = WriteReceipt::of(&store.write(&address, &content, origin)?);
                Ok(ToolResponse::ok(
                    wire::to_compact_json(&receipt),
                    json!(receipt),
                ))
            }
            Call::Edit { address, request } => {
                let receipt =
                    EditReceipt::of(&store.edit(&address, &request)?, RESULT_BUDGET_BYTES)?;
                let details = json!({
                    "address": receipt.address,
                    "applied": receipt.applied,
                    "change_kind": receipt.change_kind,
                    "diff_truncated": receipt.diff_truncated,
                });
                Ok(ToolResponse::ok(wire::to_compact_json(&receipt), details))
            }
            Call::Read {
                address,
                offset_chars,
                limit_chars,
            } => {
                let note = store.read(&address)?;
                let window = read_window(&note, offset_chars, limit_chars, RESULT_BUDGET_BYTES)?;
                Ok(ToolResponse::ok(
                    window.render(),
                    notes_read_details(&window),
                ))
            }
            Call::List { query, limit } => {
                let page = ListPage::of(&store.list(&query)?, limit, RESULT_BUDGET_BYTES)?;
                let details = page_details(&page);
                Ok(ToolResponse::ok(wire::to_compact_json(&page), details))
            }
            Call::Search {
                queries,
                query,
                limit,
                max_matches,
            } => {
                let listing = store.search(&queries, &query)?;
                let page = SearchPage::of(&listing, limit, max_matches, RESULT_BUDGET_BYTES)?;
                let details = page_details(&page);
                Ok(ToolResponse::ok(wire::to_compact_json(&page), details))
            }
        }
    }
}

fn page_details<F>(page: &NotesPage<F>) -> Value {
    json!({
        "files": page.files.len(),
        "more": page.more,
        "crumpled_excluded": page.crumpled_excluded,
        "homes_unavailable": page.homes_unavailable,
    })
}

fn required(params: &Params, key: &str) -> Result<String, Refusal> {
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
        .map_err(refusal)
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

/// `edits` mirrors Pi's edit tool: `[{"oldText": …, "newText": …}]`.
fn edits(value: Option<&Value>) -> Result<Vec<Edit>, Refusal> {
    let shape = |index: Option<usize>| {
        let at = index.map_or_else(|| "edits".to_string(), |i| format!("edits[{i}]"));
        Refusal::new(
            "invalid_params",
            format!(
                "{at} must be an array of {{\"oldText\": string, \"newText\": string}} objects"
            ),
        )
    };
    let items = match value {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(shape(None)),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let object = item.as_object().ok_or_else(|| shape(Some(i)))?;
            if object.keys().any(|k| k != "oldText" && k != "newText") {
                return Err(shape(Some(i)));
            }
            let text = |key: &str| {
                object
                    .get(key)
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| shape(Some(i)))
            };
            Ok(Edit {
                old_text: text("oldText")?,
                new_text: text("newText")?,
            })
        })
        .collect()
}

/// A store refusal for the wire. An ambiguous edit lists every matching line when that fits the
/// budget, else the first ones that fit plus `line_numbers_total`.
fn refusal(error: NotesError) -> Refusal {
    let mut refusal = Refusal::from(error);
    let Some(Value::Array(lines)) = refusal.details.get("line_numbers").cloned() else {
        return refusal;
    };
    let text_len = |details: &Map<String, Value>| {
        let mut error = Map::new();
        error.insert("code".into(), json!(refusal.code));
        error.insert("message".into(), json!(refusal.message));
        error.extend(details.clone());
        wire::to_compact_json(&json!({ "error": error })).len()
    };
    if text_len(&refusal.details) <= RESULT_BUDGET_BYTES {
        return refusal;
    }
    let mut details = refusal.details.clone();
    details.insert("line_numbers_total".into(), json!(lines.len()));
    let keep = wire::longest_fitting(lines.len(), |n| {
        details.insert("line_numbers".into(), json!(lines[..n]));
        text_len(&details) <= RESULT_BUDGET_BYTES
    })
    .unwrap_or(0);
    details.insert("line_numbers".into(), json!(lines[..keep]));
    refusal.details = details;
    refusal
}
