//! An `mcpServers` object in an agent's JSON file (Copilot CLI's `mcp-config.json`, Cursor's
//! `mcp.json`): pi-context's server put in, replaced or taken out, every other server and key
//! kept in its place.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::json::{object_at, JsonFile, Syntax};
use super::{FileChange, McpStatus, Plan, SetupError, MCP_NAME};

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

/// The change that leaves `wanted` registered as pi-context's server in `mcpServers` of `path`
/// (or, with `remove`, no server of pi-context's): [`change_at`].
pub fn change(
    path: PathBuf,
    wanted: Value,
    remove: bool,
    plan: &mut Plan,
) -> Result<FileChange, SetupError> {
    change_at(
        path,
        Syntax::Json,
        "mcpServers",
        is_ours,
        wanted,
        remove,
        plan,
    )
}

/// The change that leaves `wanted` registered as pi-context's server in the `key` object of
/// `path`, read as `syntax` (or, with `remove`, no server of pi-context's), every other server,
/// key and comment kept in its place. A server of the same name that `ours` does not recognize
/// is left alone, with a note; a removal with nothing to remove leaves the file as it is; a file
/// a removal leaves empty, without a comment, goes.
pub fn change_at(
    path: PathBuf,
    syntax: Syntax,
    key: &str,
    ours: fn(&Value) -> bool,
    wanted: Value,
    remove: bool,
    plan: &mut Plan,
) -> Result<FileChange, SetupError> {
    let read = JsonFile::read(&path, syntax)?;
    let (before, original) = (read.text.clone(), read.object.clone());
    let current = original.get(key).and_then(|s| s.get(MCP_NAME));
    let unchanged = |path, before: Option<String>| FileChange {
        path,
        after: before.clone(),
        before,
    };
    if current.is_some_and(|s| !ours(s)) {
        plan.notes.push(format!(
            "an MCP server named {MCP_NAME} that is not pi-context's is registered in {}: left as it is",
            path.display()
        ));
        return Ok(unchanged(path, before));
    }
    if remove && current.is_none() {
        return Ok(unchanged(path, before));
    }
    let mut file = original.clone();
    let servers = object_at(&mut file, key).ok_or_else(|| SetupError::Shape {
        path: path.clone(),
        what: format!("an `{key}` that is not an object"),
    })?;
    if remove {
        servers.remove(MCP_NAME);
        if servers.is_empty() {
            file.remove(key);
        }
    } else {
        servers.insert(MCP_NAME.to_string(), wanted);
    }
    let after = if remove {
        read.render_removal(file)?
    } else {
        read.render(file)?
    };
    Ok(FileChange {
        path,
        before,
        after,
    })
}

/// How pi-context's server stands in `path` (plain JSON).
pub fn status(path: PathBuf) -> Result<McpStatus, SetupError> {
    let file = JsonFile::read(&path, Syntax::Json)?.object;
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
