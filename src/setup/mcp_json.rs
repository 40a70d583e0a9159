//! An `mcpServers` object in an agent's JSON file (Copilot CLI's `mcp-config.json`, Cursor's
//! `mcp.json`): pi-context's server put in, replaced or taken out, every other server and key
//! kept in its place.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::json::{object_at, parse_object, render};
use super::{read_text, FileChange, McpStatus, Plan, SetupError, MCP_NAME};

/// Whether a registered server is pi-context's (any binary named `pi-context…`).
pub fn is_ours(server: &Value) -> bool {
    server
        .get("command")
        .and_then(Value::as_str)
        .and_then(|c| {
            Path::new(c)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .is_some_and(|name| name.starts_with("pi-context"))
}

/// The change that leaves `wanted` registered as pi-context's server in `path` (or, with
/// `remove`, no server of pi-context's). A server of the same name that is not pi-context's is
/// left alone, with a note. A file left with nothing but an empty `mcpServers` it did not have
/// before goes.
pub fn change(
    path: PathBuf,
    wanted: Value,
    remove: bool,
    plan: &mut Plan,
) -> Result<FileChange, SetupError> {
    let before = read_text(&path)?;
    let original = parse_object(&path, before.as_deref())?;
    let current = original.get("mcpServers").and_then(|s| s.get(MCP_NAME));
    if current.is_some_and(|s| !is_ours(s)) {
        plan.notes.push(format!(
            "an MCP server named {MCP_NAME} that is not pi-context's is registered in {}: left as it is",
            path.display()
        ));
        return Ok(FileChange {
            path,
            after: before.clone(),
            before,
        });
    }
    let mut file = original.clone();
    let servers = object_at(&mut file, "mcpServers").ok_or_else(|| SetupError::Shape {
        path: path.clone(),
        what: "an `mcpServers` that is not an object".into(),
    })?;
    if remove {
        servers.remove(MCP_NAME);
        if servers.is_empty() {
            file.remove("mcpServers");
        }
    } else {
        servers.insert(MCP_NAME.to_string(), wanted);
    }
    let emptied = remove && file.is_empty() && current.is_some();
    let after = if emptied {
        None
    } else {
        render(before.as_deref(), &original, file)
    };
    Ok(FileChange {
        path,
        before,
        after,
    })
}

/// How pi-context's server stands in `path`.
pub fn status(path: PathBuf) -> Result<McpStatus, SetupError> {
    let file = parse_object(&path, read_text(&path)?.as_deref())?;
    let server = file.get("mcpServers").and_then(|s| s.get(MCP_NAME));
    Ok(McpStatus {
        registered: server.is_some_and(is_ours),
        command: server
            .and_then(|s| s.get("command"))
            .and_then(Value::as_str)
            .map(str::to_string),
        file: path,
        binary_present: None,
    })
}

/// The arguments pi-context's server runs with for `target`'s agent.
pub fn server_args(agent_name: &str) -> Vec<Value> {
    ["mcp", "--agent", agent_name]
        .into_iter()
        .map(|a| Value::String(a.to_string()))
        .collect()
}

/// An empty object, for a server's `env`.
pub fn no_env() -> Value {
    Value::Object(Map::new())
}
