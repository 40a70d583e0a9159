//! OpenCode: a plugin file of pi-context's, `plugin/pi-context.js` of its configuration
//! directory (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`; OpenCode loads every
//! `*.js` there), and the MCP server in its `opencode.json` (`opencode.jsonc` when only that
//! one exists).
//!
//! OpenCode has no command hooks: its plugins are JavaScript run inside it. The plugin
//! (`opencode_plugin.js`, the binary named by its absolute path) runs `pi-context hook opencode
//! <event>` and puts the answer where it goes: `experimental.chat.system.transform` → the boot
//! folded into the first system message (asked once per session), `chat.message` → the hint as
//! a synthetic text part of the prompt's message, `experimental.session.compacting` → the
//! compaction's request into its `context`. Found by running OpenCode 1.18.33 against the lab's
//! model server (docs/agents.md). The configuration is read as OpenCode reads it, comments and
//! trailing commas allowed, and edited in place ([`super::json`]): they all stay.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::json::{JsonFile, Syntax};
use super::mcp_json;
use super::{
    read_text, shell_words, FileChange, HookStatus, McpStatus, Plan, SetupError, Status, Target,
    MCP_NAME,
};
use crate::push::Event;

/// The events the plugin asks the hook about.
const EVENTS: [Event; 3] = [Event::SessionStart, Event::Prompt, Event::PreCompact];

/// The plugin, its binary a placeholder.
const PLUGIN: &str = include_str!("opencode_plugin.js");
/// The placeholder, a JavaScript string literal in [`PLUGIN`].
const BINARY_PLACEHOLDER: &str = "\"__PI_CONTEXT_BIN__\"";
/// How the plugin file begins: how a setup knows it wrote it.
const PLUGIN_MARK: &str = "// pi-context's plugin for OpenCode";
/// The line of the plugin that names the binary.
const BINARY_LINE: &str = "const BIN = ";

/// The configuration file the MCP server is registered in: `opencode.json`, or
/// `opencode.jsonc` when only that one exists.
fn config_file(target: &Target) -> PathBuf {
    let json = target.config_dir.join("opencode.json");
    let jsonc = target.config_dir.join("opencode.jsonc");
    if !json.exists() && jsonc.exists() {
        jsonc
    } else {
        json
    }
}

fn plugin_file(target: &Target) -> PathBuf {
    target.config_dir.join("plugin").join("pi-context.js")
}

/// The plugin a setup writes for `target`'s binary.
fn plugin_text(target: &Target) -> String {
    let binary = serde_json::to_string(&target.binary.to_string_lossy()).expect("a string");
    PLUGIN.replacen(BINARY_PLACEHOLDER, &binary, 1)
}

fn is_our_plugin(text: &str) -> bool {
    text.starts_with(PLUGIN_MARK)
}

/// The binary a plugin of ours runs.
fn plugin_binary(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with(BINARY_LINE))?;
    let literal = line[BINARY_LINE.len()..].trim().trim_end_matches(';');
    serde_json::from_str(literal).ok()
}

fn server(target: &Target) -> Value {
    let agent = target
        .agent
        .agent_facts()
        .map_or("opencode", |f| f.agent_name);
    json!({
        "type": "local",
        "command": [target.binary.to_string_lossy(), "mcp", "--agent", agent],
        "enabled": true,
    })
}

/// The program of a registered server (`command` is a list: the program, then its arguments).
fn server_program(server: &Value) -> Option<&str> {
    server.get("command")?.as_array()?.first()?.as_str()
}

/// Whether a registered server is pi-context's (any binary named `pi-context…`).
fn is_our_server(server: &Value) -> bool {
    server_program(server)
        .and_then(|c| std::path::Path::new(c).file_name())
        .is_some_and(|name| name.to_string_lossy().starts_with("pi-context"))
}

pub fn plan(target: &Target, remove: bool) -> Result<Plan, SetupError> {
    let mut plan = Plan::default();
    let config = config_change(target, remove, &mut plan)?;
    let plugin = plugin_change(target, remove, &mut plan)?;
    plan.files.extend([config, plugin]);
    Ok(plan)
}

/// The plugin file: written (a moved binary's rewritten), or deleted by a removal; a file of
/// that name pi-context did not write is left alone.
fn plugin_change(target: &Target, remove: bool, plan: &mut Plan) -> Result<FileChange, SetupError> {
    let path = plugin_file(target);
    let before = read_text(&path)?;
    if before.as_deref().is_some_and(|text| !is_our_plugin(text)) {
        if remove {
            plan.notes.push(format!(
                "{} is not pi-context's plugin: left as it is",
                path.display()
            ));
            return Ok(FileChange {
                path,
                after: before.clone(),
                before,
            });
        }
        return Err(SetupError::Shape {
            path,
            what: "a plugin that is not pi-context's".into(),
        });
    }
    let after = (!remove).then(|| plugin_text(target));
    Ok(FileChange {
        path,
        before,
        after,
    })
}

/// pi-context's server in `mcp` of the configuration ([`mcp_json::change_at`]).
fn config_change(target: &Target, remove: bool, plan: &mut Plan) -> Result<FileChange, SetupError> {
    let path = config_file(target);
    mcp_json::change_at(
        path,
        Syntax::Jsonc,
        "mcp",
        is_our_server,
        server(target),
        remove,
        plan,
    )
}

pub fn status(target: &Target) -> Result<Status, SetupError> {
    let path = config_file(target);
    let config = JsonFile::read(&path, Syntax::Jsonc)?.object;
    let server = config.get("mcp").and_then(|s| s.get(MCP_NAME));
    let plugin = read_text(&plugin_file(target))?.filter(|text| is_our_plugin(text));
    let binary = plugin.as_deref().and_then(plugin_binary);
    let hooks = EVENTS
        .into_iter()
        .map(|event| {
            let asked = plugin
                .as_deref()
                .is_some_and(|text| text.contains(&format!("ask(\"{}\"", event.as_str())));
            let command = binary.as_ref().filter(|_| asked).map(|binary| {
                format!(
                    "{} hook {} {}",
                    shell_words(std::slice::from_ref(binary)),
                    target.agent.as_str(),
                    event.as_str()
                )
            });
            HookStatus::of(event, command)
        })
        .collect();
    let mut notes = Vec::new();
    if server.is_some_and(|s| s.get("enabled") == Some(&Value::Bool(false))) {
        notes.push(format!(
            "{} sets mcp.{MCP_NAME}.enabled to false: OpenCode does not start it",
            path.display()
        ));
    }
    Ok(Status {
        agent: target.agent,
        mcp: McpStatus {
            registered: server.is_some_and(is_our_server),
            command: server.and_then(server_program).map(str::to_string),
            file: path,
            binary_present: None,
        },
        hooks,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target {
            agent: crate::session::Harness::OpenCode,
            binary: "/opt/my \"tools\"/pi-context".into(),
            config_dir: "/home/u/.config/opencode".into(),
            home: "/home/u".into(),
            config_dir_from_env: false,
            agent_command: None,
            forwarded_vars: Vec::new(),
        }
    }

    #[test]
    fn the_plugin_names_the_binary_as_a_javascript_string_and_is_known_as_ours() {
        let text = plugin_text(&target());
        assert!(is_our_plugin(&text));
        assert!(!text.contains(BINARY_PLACEHOLDER));
        assert_eq!(
            plugin_binary(&text).as_deref(),
            Some("/opt/my \"tools\"/pi-context")
        );
        for event in EVENTS {
            assert!(
                text.contains(&format!("ask(\"{}\"", event.as_str())),
                "{event:?}"
            );
        }
        assert!(!is_our_plugin("export const Mine = async () => ({});\n"));
    }

    #[test]
    fn a_server_is_ours_by_the_program_it_runs() {
        assert!(is_our_server(&server(&target())));
        assert!(!is_our_server(
            &json!({"type": "local", "command": ["other", "mcp"]})
        ));
        assert!(!is_our_server(
            &json!({"type": "remote", "url": "https://x"})
        ));
    }
}
