//! Gemini CLI: the hooks and the MCP server both in `settings.json` of its directory
//! (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`). Its hooks are `SessionStart` (the boot) and
//! `BeforeAgent` (the hint); their timeouts are in milliseconds; `PreCompress` is advisory and
//! reaches no summary, so none is installed. Gemini loads the hooks of `settings.json` only in a
//! trusted folder (its extensions' hooks always): the status says so.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::json::{object_at, JsonFile, Syntax};
use super::{hooks, FileChange, McpStatus, Plan, SetupError, Status, Target, MCP_NAME};
use crate::push::Event;

/// The events Gemini CLI's hooks answer with context for its model.
const EVENTS: [Event; 2] = [Event::SessionStart, Event::Prompt];

fn settings_file(target: &Target) -> PathBuf {
    target.config_dir.join("settings.json")
}

fn server(target: &Target) -> Value {
    let agent = target
        .agent
        .agent_facts()
        .map_or("gemini-cli", |f| f.agent_name);
    json!({
        "command": target.binary.to_string_lossy(),
        "args": ["mcp", "--agent", agent],
    })
}

/// Whether a registered server is pi-context's (any binary named `pi-context…`).
fn is_ours(server: &Value) -> bool {
    server
        .get("command")
        .and_then(Value::as_str)
        .and_then(|c| {
            std::path::Path::new(c)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .is_some_and(|name| name.starts_with("pi-context"))
}

pub fn plan(target: &Target, remove: bool) -> Result<Plan, SetupError> {
    let path = settings_file(target);
    let read = JsonFile::read(&path, Syntax::Comments)?;
    let (before, original) = (read.text.clone(), read.object.clone());
    let mut settings = original.clone();
    let mut plan = Plan::default();
    let shape = |what: &str| SetupError::Shape {
        path: path.clone(),
        what: what.to_string(),
    };
    let table = object_at(&mut settings, "hooks")
        .ok_or_else(|| shape("a `hooks` that is not an object"))?;
    let mut removed = 0;
    for event in EVENTS {
        if remove {
            removed += hooks::remove(table, target, event).len();
        } else if hooks::install(table, target, event).is_none() {
            return Err(shape(&format!(
                "a `hooks.{}` that is not a list",
                hooks::event_key(target, event)
            )));
        }
    }
    // A `hooks` left empty by taking ours out goes (Gemini CLI may have rewritten the file
    // since the setup added it); one the user left empty stays.
    if table.is_empty() && (!original.contains_key("hooks") || removed > 0) {
        settings.remove("hooks");
    }
    mcp_change(&mut settings, &original, target, remove, &mut plan).map_err(|what| shape(&what))?;
    let after = if remove {
        read.render_removal(settings)?
    } else {
        read.render(settings)?
    };
    plan.files.push(FileChange {
        path,
        before,
        after,
    });
    Ok(plan)
}

/// Registers (or takes out) pi-context's server in `mcpServers`; a server of that name that is
/// not pi-context's stays, with a note. `Err`: what the file holds instead of an object.
fn mcp_change(
    settings: &mut Map<String, Value>,
    original: &Map<String, Value>,
    target: &Target,
    remove: bool,
    plan: &mut Plan,
) -> Result<(), String> {
    let current = original
        .get("mcpServers")
        .and_then(|s| s.get(MCP_NAME))
        .cloned();
    if current.as_ref().is_some_and(|c| !is_ours(c)) {
        plan.notes.push(format!(
            "an MCP server named {MCP_NAME} that is not pi-context's is registered in {}: left as it is",
            settings_file(target).display()
        ));
        return Ok(());
    }
    if remove && current.is_none() {
        return Ok(());
    }
    let servers = object_at(settings, "mcpServers")
        .ok_or_else(|| "an `mcpServers` that is not an object".to_string())?;
    if remove {
        servers.remove(MCP_NAME);
        if servers.is_empty() {
            settings.remove("mcpServers");
        }
    } else {
        servers.insert(MCP_NAME.to_string(), server(target));
    }
    Ok(())
}

pub fn status(target: &Target) -> Result<Status, SetupError> {
    let path = settings_file(target);
    let settings = JsonFile::read(&path, Syntax::Comments)?.object;
    let empty = Map::new();
    let table = settings
        .get("hooks")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let hooks = hooks::statuses(table, target, &EVENTS);
    let server = settings.get("mcpServers").and_then(|s| s.get(MCP_NAME));
    let mut notes = vec![
        "Gemini CLI runs the hooks of settings.json only in folders it trusts (`gemini` asks once per folder; `--skip-trust` or GEMINI_CLI_TRUST_WORKSPACE=true trust it)".to_string(),
    ];
    let disabled = settings
        .get("hooksConfig")
        .and_then(|c| c.get("enabled"))
        .is_some_and(|enabled| enabled == &Value::Bool(false));
    if disabled {
        notes.push(format!(
            "{} sets hooksConfig.enabled to false: Gemini CLI runs no hook",
            path.display()
        ));
    }
    Ok(Status {
        agent: target.agent,
        mcp: McpStatus {
            registered: server.is_some_and(is_ours),
            file: path,
            command: server
                .and_then(|s| s.get("command"))
                .and_then(Value::as_str)
                .map(str::to_string),
            binary_present: None,
        },
        hooks,
        notes,
    })
}
