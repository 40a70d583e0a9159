//! Cursor: the MCP server in its `mcp.json`, nothing else. Cursor has hooks (`hooks.json`:
//! `sessionStart`, `beforeSubmitPrompt`, …, documented by peers that ran it), but no Cursor
//! could be run here to find out whether their output reaches its model, so none is installed
//! (docs/agents.md).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{mcp_json, Plan, SetupError, Status, Target};

fn mcp_file(target: &Target) -> PathBuf {
    target.config_dir.join("mcp.json")
}

fn server(target: &Target) -> Value {
    let agent = target
        .agent
        .agent_facts()
        .map_or("cursor", |f| f.agent_name);
    json!({
        "command": target.binary.to_string_lossy(),
        "args": mcp_json::server_args(agent),
    })
}

pub fn plan(target: &Target, remove: bool) -> Result<Plan, SetupError> {
    let mut plan = Plan::default();
    let change = mcp_json::change(mcp_file(target), server(target), remove, &mut plan)?;
    plan.files.push(change);
    if !remove {
        plan.notes.push(
            "Cursor gets the MCP server only: its hooks are not installed (their effect on its model is unverified)"
                .into(),
        );
    }
    Ok(plan)
}

pub fn status(target: &Target) -> Result<Status, SetupError> {
    Ok(Status {
        agent: target.agent,
        mcp: mcp_json::status(mcp_file(target))?,
        hooks: Vec::new(),
        notes: Vec::new(),
    })
}
