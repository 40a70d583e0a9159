//! Claude Code: the hooks in `settings.json` of its configuration directory, the MCP server at
//! user scope. Claude Code keeps user-scope MCP servers in its own state file, `.claude.json`,
//! which it rewrites at every start: when `claude` is on `PATH` the server is registered by
//! `claude mcp add --scope user` (Claude Code edits its own file), else by a careful edit of
//! that file (every other key kept).

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::json::{object_at, JsonFile, Syntax};
use super::{hooks, FileChange, HookStatus, McpStatus, Plan, SetupError, Status, Target, MCP_NAME};
use crate::push::Event;

/// The events Claude Code's hooks answer: all three reach its model.
const EVENTS: [Event; 3] = [Event::SessionStart, Event::Prompt, Event::PreCompact];

fn settings_file(target: &Target) -> PathBuf {
    target.config_dir.join("settings.json")
}

/// Claude Code's state file: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`.
fn state_file(target: &Target) -> PathBuf {
    if target.config_dir_from_env {
        target.config_dir.join(".claude.json")
    } else {
        target.home.join(".claude.json")
    }
}

fn server_args(target: &Target) -> Vec<String> {
    let agent = target
        .agent
        .agent_facts()
        .map_or("claude-code", |f| f.agent_name);
    vec!["mcp".to_string(), "--agent".to_string(), agent.to_string()]
}

fn server(target: &Target) -> Value {
    json!({
        "type": "stdio",
        "command": target.binary.to_string_lossy(),
        "args": server_args(target),
        "env": {},
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
    let mut plan = Plan::default();
    plan.files.push(settings_change(target, remove)?);
    mcp_change(target, remove, &mut plan)?;
    Ok(plan)
}

fn settings_change(target: &Target, remove: bool) -> Result<FileChange, SetupError> {
    let path = settings_file(target);
    let read = JsonFile::read(&path, Syntax::Json)?;
    let (before, original) = (read.text.clone(), read.object.clone());
    let mut settings = original.clone();
    let shape = |what: &str| SetupError::Shape {
        path: path.clone(),
        what: what.to_string(),
    };
    let table = object_at(&mut settings, "hooks")
        .ok_or_else(|| shape("a `hooks` that is not an object"))?;
    for event in EVENTS {
        if remove {
            hooks::remove(table, target, event);
        } else if hooks::install(table, target, event).is_none() {
            return Err(shape(&format!(
                "a `hooks.{}` that is not a list",
                event.hook_name()
            )));
        }
    }
    if table.is_empty() && !original.contains_key("hooks") {
        settings.remove("hooks");
    }
    let after = if remove {
        read.render_removal(settings)?
    } else {
        read.render(settings)?
    };
    Ok(FileChange {
        path,
        before,
        after,
    })
}

fn mcp_change(target: &Target, remove: bool, plan: &mut Plan) -> Result<(), SetupError> {
    let path = state_file(target);
    let read = JsonFile::read(&path, Syntax::Json)?;
    let (before, original) = (read.text.clone(), read.object.clone());
    let current = original
        .get("mcpServers")
        .and_then(|s| s.get(MCP_NAME))
        .cloned();
    let wanted = server(target);
    let ours = current.as_ref().is_some_and(is_ours);
    if current.is_some() && !ours {
        plan.notes.push(format!(
            "an MCP server named {MCP_NAME} that is not pi-context's is registered in {}: left as it is",
            path.display()
        ));
        return Ok(());
    }
    let unchanged = if remove {
        current.is_none()
    } else {
        current.as_ref() == Some(&wanted)
    };
    if unchanged {
        return Ok(());
    }
    if let Some(claude) = &target.agent_command {
        let claude = claude.to_string_lossy().into_owned();
        if current.is_some() {
            plan.commands.push(vec![
                claude.clone(),
                "mcp".into(),
                "remove".into(),
                "--scope".into(),
                "user".into(),
                MCP_NAME.into(),
            ]);
        }
        if !remove {
            let mut add = vec![
                claude,
                "mcp".into(),
                "add".into(),
                "--scope".into(),
                "user".into(),
                MCP_NAME.into(),
                "--".into(),
                target.binary.to_string_lossy().into_owned(),
            ];
            add.extend(server_args(target));
            plan.commands.push(add);
        }
        return Ok(());
    }
    let mut state = original.clone();
    let servers = object_at(&mut state, "mcpServers").ok_or_else(|| SetupError::Shape {
        path: path.clone(),
        what: "an `mcpServers` that is not an object".into(),
    })?;
    if remove {
        servers.remove(MCP_NAME);
        if servers.is_empty() {
            state.remove("mcpServers");
        }
    } else {
        servers.insert(MCP_NAME.to_string(), wanted);
    }
    let after = if remove {
        read.render_removal(state)?
    } else {
        read.render(state)?
    };
    plan.files.push(FileChange {
        path,
        before,
        after,
    });
    Ok(())
}

/// The pi-context plugin (`pi-context@<marketplace>`) when `enabledPlugins` turns it on: it
/// brings its own MCP server and hooks (plugins/claude-code/).
fn enabled_plugin(settings: &Map<String, Value>) -> Option<String> {
    settings
        .get("enabledPlugins")?
        .as_object()?
        .iter()
        .find(|(name, on)| name.starts_with("pi-context@") && on.as_bool() == Some(true))
        .map(|(name, _)| name.clone())
}

fn hooks_installed(hooks: &[HookStatus]) -> bool {
    hooks.iter().any(|h| h.installed)
}

fn plugin_note(plugin: &str, hooks_too: bool) -> String {
    if hooks_too {
        format!(
            "the Claude Code plugin {plugin} is enabled too, with hooks of its own: each pushes its own boot block; keep one (`pi-context setup claude --remove`, or `claude plugin uninstall {plugin}`)"
        )
    } else {
        format!("the Claude Code plugin {plugin} is enabled: its own MCP server and hooks push the memory (a hook's last run below is the plugin's)")
    }
}

pub fn status(target: &Target) -> Result<Status, SetupError> {
    let settings_path = settings_file(target);
    let settings = JsonFile::read(&settings_path, Syntax::Json)?.object;
    let empty = Map::new();
    let table = settings
        .get("hooks")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let hooks = hooks::statuses(table, target, &EVENTS);
    let state_path = state_file(target);
    let state = JsonFile::read(&state_path, Syntax::Json)?.object;
    let server = state.get("mcpServers").and_then(|s| s.get(MCP_NAME));
    let mut notes = Vec::new();
    if let Some(plugin) = enabled_plugin(&settings) {
        notes.push(plugin_note(&plugin, hooks_installed(&hooks)));
    }
    if settings.get("disableAllHooks") == Some(&Value::Bool(true)) {
        notes.push(format!(
            "{} sets disableAllHooks: Claude Code runs no hook",
            settings_path.display()
        ));
    }
    Ok(Status {
        agent: target.agent,
        mcp: McpStatus {
            registered: server.is_some_and(is_ours),
            file: state_path,
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
