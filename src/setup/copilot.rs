//! GitHub Copilot CLI: pi-context's hooks in a file of their own, `hooks/pi-context.json` of its
//! home (Copilot loads every `*.json` there), and the MCP server in its `mcp-config.json`.
//!
//! Found by running Copilot CLI 1.0.102 against the lab's model server (docs/agents.md): hooks
//! under `hooks/` and in `settings.json` both run, in `-p` too; the camelCase events
//! (`sessionStart`, `userPromptSubmitted`) take camelCase input (`sessionId`, `cwd`, `source`,
//! `prompt`); a top-level `additionalContext` in the answer reaches the model, the session
//! start's as a user message of its own (given afresh at each start, so a resumed session needs
//! its boot again) and a prompt's appended to the prompt; a `preCompact` answer reaches no one,
//! so no `preCompact` hook is installed. `settings.json` is not edited: Copilot writes comments
//! into its configuration files, which a JSON edit would lose.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::json::{array_at, object_at, JsonFile, Syntax};
use super::{
    hook_command, is_our_hook, mcp_json, FileChange, HookStatus, Plan, SetupError, Status, Target,
    HOOK_TIMEOUT_SECS,
};
use crate::push::Event;

/// The events whose hook output reaches Copilot's model.
const EVENTS: [Event; 2] = [Event::SessionStart, Event::Prompt];

/// Copilot's name of an event in a hooks file.
fn event_name(event: Event) -> &'static str {
    match event {
        Event::SessionStart => "sessionStart",
        Event::Prompt => "userPromptSubmitted",
        Event::PreCompact => "preCompact",
    }
}

fn hooks_file(target: &Target) -> PathBuf {
    target.config_dir.join("hooks").join("pi-context.json")
}

fn mcp_file(target: &Target) -> PathBuf {
    target.config_dir.join("mcp-config.json")
}

fn settings_file(target: &Target) -> PathBuf {
    target.config_dir.join("settings.json")
}

/// The handler a setup installs for `event`: a command hook run by `bash`.
fn handler(target: &Target, event: Event) -> Value {
    json!({
        "type": "command",
        "bash": hook_command(target, event),
        "timeoutSec": HOOK_TIMEOUT_SECS,
    })
}

fn is_ours(handler: &Value, target: &Target) -> bool {
    handler
        .get("bash")
        .and_then(Value::as_str)
        .is_some_and(|c| is_our_hook(c, target.agent))
}

fn server(target: &Target) -> Value {
    let agent = target
        .agent
        .agent_facts()
        .map_or("copilot", |f| f.agent_name);
    json!({
        "type": "local",
        "command": target.binary.to_string_lossy(),
        "args": mcp_json::server_args(agent),
        "tools": ["*"],
        "env": mcp_json::no_env(),
    })
}

pub fn plan(target: &Target, remove: bool) -> Result<Plan, SetupError> {
    let mut plan = Plan::default();
    plan.files.push(hooks_change(target, remove)?);
    let change = mcp_json::change(mcp_file(target), server(target), remove, &mut plan)?;
    plan.files.push(change);
    Ok(plan)
}

/// pi-context's hooks file: its handlers put in (a moved binary's replaced), any other handler
/// a person added to it kept; removed whole when nothing else is in it.
fn hooks_change(target: &Target, remove: bool) -> Result<FileChange, SetupError> {
    let path = hooks_file(target);
    let read = JsonFile::read(&path, Syntax::Json)?;
    let (before, original) = (read.text.clone(), read.object.clone());
    let mut file = original.clone();
    let shape = |what: String| SetupError::Shape {
        path: path.clone(),
        what,
    };
    if !remove && !file.contains_key("version") {
        file.insert("version".into(), json!(1));
    }
    let table = object_at(&mut file, "hooks")
        .ok_or_else(|| shape("a `hooks` that is not an object".into()))?;
    for event in EVENTS {
        let name = event_name(event);
        let handlers = array_at(table, name)
            .ok_or_else(|| shape(format!("a `hooks.{name}` that is not a list")))?;
        handlers.retain(|h| !is_ours(h, target));
        if !remove {
            handlers.push(handler(target, event));
        }
        if handlers.is_empty() {
            table.remove(name);
        }
    }
    let only_ours_left = table.is_empty() && file.keys().all(|k| k == "hooks" || k == "version");
    let after = if remove && only_ours_left {
        None
    } else {
        read.render(file)?
    };
    Ok(FileChange {
        path,
        before,
        after,
    })
}

pub fn status(target: &Target) -> Result<Status, SetupError> {
    let hooks_path = hooks_file(target);
    let file = JsonFile::read(&hooks_path, Syntax::Json)?.object;
    let empty = Map::new();
    let table = file
        .get("hooks")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let hooks = EVENTS
        .into_iter()
        .map(|event| {
            let found = table
                .get(event_name(event))
                .and_then(Value::as_array)
                .and_then(|handlers| handlers.iter().find(|h| is_ours(h, target)));
            let command = found
                .and_then(|h| h.get("bash"))
                .and_then(Value::as_str)
                .map(str::to_string);
            HookStatus::of(event, command)
        })
        .collect();
    let mut notes = Vec::new();
    if hooks_disabled(&settings_file(target)) {
        notes.push(format!(
            "{} sets disableAllHooks: Copilot CLI runs no hook",
            settings_file(target).display()
        ));
    }
    Ok(Status {
        agent: target.agent,
        mcp: mcp_json::status(mcp_file(target))?,
        hooks,
        notes,
    })
}

/// Whether Copilot's settings turn every hook off (read with the comments Copilot writes into
/// them; a file that cannot be read is taken not to).
fn hooks_disabled(settings: &std::path::Path) -> bool {
    JsonFile::read(settings, Syntax::Jsonc)
        .is_ok_and(|file| file.object.get("disableAllHooks") == Some(&Value::Bool(true)))
}
