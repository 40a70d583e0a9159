//! Codex: the hooks in `hooks.json` of its home, the MCP server and the hooks' trust in its
//! `config.toml` (edited with `toml_edit`: the user's comments, order and layout stay).
//!
//! Found by running Codex 0.169 (docs/agents.md): a `hooks.json` with any top-level key but
//! `hooks` makes Codex ignore every hook in it; MCP servers start with a stripped environment,
//! so the variables pi-context reads are forwarded (`env_vars`); and a hook runs only once
//! trusted, which a setup does for exactly the hooks it installs:
//! `[hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"`, the
//! SHA-256 of the handler's normalized identity ([`trust_hash`]).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use toml_edit::{Array, DocumentMut, Item, Table};

use super::json::{object_at, JsonFile, Syntax};
use super::{hooks, read_text, FileChange, McpStatus, Plan, SetupError, Status, Target, MCP_NAME};
use crate::push::Event;

/// The events whose hook output reaches Codex's model (its `PreCompact` output reaches no one).
const EVENTS: [Event; 2] = [Event::SessionStart, Event::Prompt];

fn hooks_file(target: &Target) -> PathBuf {
    target.config_dir.join("hooks.json")
}

fn config_file(target: &Target) -> PathBuf {
    target.config_dir.join("config.toml")
}

/// Codex's name of an event in a trust key.
fn event_label(event: Event) -> &'static str {
    match event {
        Event::SessionStart => "session_start",
        Event::Prompt => "user_prompt_submit",
        Event::PreCompact => "pre_compact",
    }
}

/// The key Codex keeps a hook's trust under.
fn trust_key(hooks_json: &Path, event: Event, group: usize) -> String {
    format!("{}:{}:{group}:0", hooks_json.display(), event_label(event))
}

/// The hash Codex trusts a command hook by: SHA-256 of its identity as compact JSON with sorted
/// keys, `{"event_name", "hooks": [{"async", "command", "timeout", "type"}]}` (no `matcher`:
/// ours match every source). Checked against Codex 0.169 itself (`tests/agents`).
pub fn trust_hash(event: Event, handler: &Value) -> String {
    let command = handler.get("command").and_then(Value::as_str).unwrap_or("");
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .max(1);
    let identity = format!(
        "{{\"event_name\":{},\"hooks\":[{{\"async\":false,\"command\":{},\"timeout\":{timeout},\"type\":\"command\"}}]}}",
        json!(event_label(event)),
        json!(command)
    );
    let digest = Sha256::digest(identity.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

fn server_args(target: &Target) -> Vec<String> {
    let agent = target.agent.agent_facts().map_or("codex", |f| f.agent_name);
    vec!["mcp".to_string(), "--agent".to_string(), agent.to_string()]
}

pub fn plan(target: &Target, remove: bool) -> Result<Plan, SetupError> {
    let mut plan = Plan::default();
    let hooks_path = hooks_file(target);
    let read = JsonFile::read(&hooks_path, Syntax::Json)?;
    let (before, original) = (read.text.clone(), read.object.clone());
    let mut file = original.clone();
    note_unknown_keys(&hooks_path, &original, &mut plan);
    let shape = |what: &str| SetupError::Shape {
        path: hooks_path.clone(),
        what: what.to_string(),
    };
    let table =
        object_at(&mut file, "hooks").ok_or_else(|| shape("a `hooks` that is not an object"))?;
    let mut trusted: Vec<(Event, usize, Value)> = Vec::new();
    let mut untrust: Vec<(Event, Value)> = Vec::new();
    for event in EVENTS {
        if let Some((_, old)) = hooks::find(table, target, event) {
            untrust.push((event, old));
        }
        if remove {
            hooks::remove(table, target, event);
        } else {
            let group = hooks::install(table, target, event).ok_or_else(|| {
                shape(&format!(
                    "a `hooks.{}` that is not a list",
                    event.hook_name()
                ))
            })?;
            trusted.push((event, group, hooks::handler(target, event)));
        }
    }
    if table.is_empty() && !original.contains_key("hooks") {
        file.remove("hooks");
    }
    let after = if remove {
        read.render_removal(file)?
    } else {
        read.render(file)?
    };
    plan.files.push(FileChange {
        path: hooks_path.clone(),
        before: before.clone(),
        after,
    });
    plan.files.push(config_change(
        target,
        &hooks_path,
        remove,
        &trusted,
        &untrust,
        &mut plan.notes,
    )?);
    if !remove {
        plan.notes.push(format!(
            "Codex runs a hook only once it is trusted: the {} hooks this setup installs are trusted in {}",
            trusted.len(),
            config_file(target).display()
        ));
    }
    Ok(plan)
}

fn note_unknown_keys(path: &Path, object: &Map<String, Value>, plan: &mut Plan) {
    let unknown: Vec<&String> = object.keys().filter(|k| k.as_str() != "hooks").collect();
    if !unknown.is_empty() {
        plan.notes.push(format!(
            "{} has top-level keys other than `hooks` ({}): Codex then ignores every hook in it; remove them",
            path.display(),
            unknown.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
        ));
    }
}

fn config_change(
    target: &Target,
    hooks_json: &Path,
    remove: bool,
    trusted: &[(Event, usize, Value)],
    untrust: &[(Event, Value)],
    notes: &mut Vec<String>,
) -> Result<FileChange, SetupError> {
    let path = config_file(target);
    let before = read_text(&path)?;
    let mut doc = parse_toml(&path, before.as_deref().unwrap_or(""))?;
    mcp_server(&mut doc, target, remove, &path, notes);
    trust(&mut doc, hooks_json, trusted, untrust);
    let text = doc.to_string();
    // A file left empty goes: pi-context's entries were all it held.
    let after = if text.trim().is_empty() && before.as_deref() != Some(text.as_str()) {
        None
    } else {
        Some(text)
    };
    Ok(FileChange {
        path,
        before,
        after,
    })
}

fn parse_toml(path: &Path, text: &str) -> Result<DocumentMut, SetupError> {
    text.parse::<DocumentMut>().map_err(|e| {
        let at = e.span().map_or(0, |s| s.start).min(text.len());
        let line = text[..at].matches('\n').count() + 1;
        let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
        SetupError::Parse {
            path: path.to_path_buf(),
            line,
            column,
            message: e.message().to_string(),
        }
    })
}

/// Whether a `[mcp_servers.pi-context]` table is pi-context's (its command a `pi-context…`).
fn is_ours(server: &Item) -> bool {
    server
        .get("command")
        .and_then(Item::as_str)
        .and_then(|c| {
            Path::new(c)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .is_some_and(|name| name.starts_with("pi-context"))
}

fn mcp_server(
    doc: &mut DocumentMut,
    target: &Target,
    remove: bool,
    path: &Path,
    notes: &mut Vec<String>,
) {
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| implicit_table().into());
    let Some(servers) = servers.as_table_like_mut() else {
        notes.push(format!(
            "{}: `mcp_servers` is not a table: left as it is",
            path.display()
        ));
        return;
    };
    if let Some(current) = servers.get(MCP_NAME) {
        if !is_ours(current) {
            notes.push(format!(
                "an MCP server named {MCP_NAME} that is not pi-context's is configured in {}: left as it is",
                path.display()
            ));
            return;
        }
    }
    if remove {
        servers.remove(MCP_NAME);
    } else {
        let wanted = server_table(target);
        let same = servers
            .get(MCP_NAME)
            .and_then(Item::as_table)
            .is_some_and(|t| t.to_string() == wanted.to_string());
        if !same {
            servers.insert(MCP_NAME, Item::Table(wanted));
        }
    }
    if servers.is_empty() {
        doc.remove("mcp_servers");
    }
}

fn server_table(target: &Target) -> Table {
    let mut table = Table::new();
    table.insert(
        "command",
        toml_edit::value(target.binary.to_string_lossy().into_owned()),
    );
    table.insert("args", toml_edit::value(strings(&server_args(target))));
    let vars: Vec<String> = target
        .forwarded_vars
        .iter()
        .map(|v| v.to_string())
        .collect();
    table.insert("env_vars", toml_edit::value(strings(&vars)));
    table
}

fn strings(items: &[String]) -> Array {
    items.iter().map(String::as_str).collect()
}

fn implicit_table() -> Table {
    let mut table = Table::new();
    table.set_implicit(true);
    table
}

/// Trusts our handlers (entries after the user's) and forgets the trust of the ones removed.
fn trust(
    doc: &mut DocumentMut,
    hooks_json: &Path,
    trusted: &[(Event, usize, Value)],
    untrust: &[(Event, Value)],
) {
    let prefix = format!("{}:", hooks_json.display());
    let stale: Vec<String> = untrust
        .iter()
        .map(|(event, handler)| trust_hash(*event, handler))
        .collect();
    let wanted: Vec<(String, String)> = trusted
        .iter()
        .map(|(event, group, handler)| {
            (
                trust_key(hooks_json, *event, *group),
                trust_hash(*event, handler),
            )
        })
        .collect();
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| implicit_table().into());
    let Some(hooks) = hooks.as_table_like_mut() else {
        return;
    };
    let state = hooks
        .entry("state")
        .or_insert_with(|| implicit_table().into());
    let Some(state) = state.as_table_like_mut() else {
        return;
    };
    let ours_before: Vec<String> = state
        .iter()
        .filter(|(key, item)| {
            key.starts_with(&prefix)
                && item
                    .get("trusted_hash")
                    .and_then(Item::as_str)
                    .is_some_and(|h| {
                        stale.iter().any(|s| s == h) || wanted.iter().any(|(_, w)| w == h)
                    })
        })
        .map(|(key, _)| key.to_string())
        .collect();
    for key in ours_before {
        if !wanted.iter().any(|(k, _)| *k == key) {
            state.remove(&key);
        }
    }
    for (key, hash) in wanted {
        let current = state
            .get(&key)
            .and_then(|i| i.get("trusted_hash"))
            .and_then(Item::as_str);
        if current != Some(hash.as_str()) {
            let mut entry = Table::new();
            entry.insert("trusted_hash", toml_edit::value(hash));
            state.insert(&key, Item::Table(entry));
        }
    }
    let state_empty = state.is_empty();
    if state_empty {
        hooks.remove("state");
    }
    if hooks.is_empty() {
        doc.remove("hooks");
    }
}

pub fn status(target: &Target) -> Result<Status, SetupError> {
    let hooks_path = hooks_file(target);
    let file = JsonFile::read(&hooks_path, Syntax::Json)?.object;
    let mut notes = Vec::new();
    let mut plan = Plan::default();
    note_unknown_keys(&hooks_path, &file, &mut plan);
    notes.extend(plan.notes);
    let config_path = config_file(target);
    let doc = parse_toml(
        &config_path,
        read_text(&config_path)?.as_deref().unwrap_or(""),
    )?;
    let empty = Map::new();
    let table = file
        .get("hooks")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut hooks = hooks::statuses(table, target, &EVENTS);
    for (status, event) in hooks.iter_mut().zip(EVENTS) {
        status.trusted = hooks::find(table, target, event).map(|(group, handler)| {
            doc.get("hooks")
                .and_then(|h| h.get("state"))
                .and_then(|s| s.get(trust_key(&hooks_path, event, group)))
                .and_then(|t| t.get("trusted_hash"))
                .and_then(Item::as_str)
                == Some(trust_hash(event, &handler).as_str())
        });
    }
    let server = doc.get("mcp_servers").and_then(|s| s.get(MCP_NAME));
    Ok(Status {
        agent: target.agent,
        mcp: McpStatus {
            registered: server.is_some_and(is_ours),
            file: config_path,
            command: server
                .and_then(|s| s.get("command"))
                .and_then(Item::as_str)
                .map(str::to_string),
            binary_present: None,
        },
        hooks,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash Codex 0.169 accepted for this handler (found by running it: the hook ran only
    /// with this trust entry).
    #[test]
    fn the_trust_hash_is_of_the_normalized_identity() {
        let handler = json!({"type": "command", "command": "echo hi", "timeout": 10});
        let identity = r#"{"event_name":"session_start","hooks":[{"async":false,"command":"echo hi","timeout":10,"type":"command"}]}"#;
        let expected: String = Sha256::digest(identity.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            trust_hash(Event::SessionStart, &handler),
            format!("sha256:{expected}")
        );
        assert_ne!(
            trust_hash(Event::Prompt, &handler),
            trust_hash(Event::SessionStart, &handler)
        );
    }
}
