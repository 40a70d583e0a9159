//! The one list of tools. Each entry holds everything about a tool: its name, label,
//! description, JSON Schema, execution mode, and the handler that parses its parameters and
//! answers it (results and details). `pi-context tool --schemas`, dispatch and the extension's
//! registration all read this list; nothing else names the tools.

use serde_json::{json, Value};

use super::{Call, Refusal, ToolResponse};

/// Whether Pi may run a tool's calls side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Parallel,
    /// One at a time (notes writes: each call sees the last one's result).
    Sequential,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Parallel => "parallel",
            Mode::Sequential => "sequential",
        }
    }
}

/// A way a tool reaches a model: Pi's extension, or the MCP server (docs/mcp.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    Pi,
    Mcp,
}

impl Door {
    pub fn as_str(self) -> &'static str {
        match self {
            Door::Pi => "pi",
            Door::Mcp => "mcp",
        }
    }
}

/// Offered to the model by Pi and by the MCP server: the tools that mean something outside Pi.
pub const EVERY_DOOR: &[Door] = &[Door::Pi, Door::Mcp];
/// Offered to the model by Pi only: the tools tied to Pi's context-window lifecycle.
pub const PI_ONLY: &[Door] = &[Door::Pi];

/// One tool.
pub struct Tool {
    pub name: &'static str,
    pub label: &'static str,
    /// What the model reads: when and how to use the tool.
    pub description: &'static str,
    /// The JSON Schema of the parameters (`additionalProperties: false`).
    pub parameters: fn() -> Value,
    pub mode: Mode,
    /// Whether the extension sends `context.activity` with its calls: what it saw happen on the
    /// branch since the last checkpoint (docs/protocol.md, "Activity and appended entries").
    pub activity: bool,
    /// Whether a failed call is a failed notes save, after which the extension's `wipe_memory`
    /// refuses once (the `notes_save_tools` fact).
    pub saves_notes: bool,
    /// Where the tool is offered to a model. Empty: a tool the extension calls itself and no
    /// model sees.
    pub doors: &'static [Door],
    /// Whether the tool leaves what the model sees unchanged: it reads notes or sessions (a
    /// read's access counters and recall's index are bookkeeping, not content). The MCP
    /// server announces it as `readOnlyHint`.
    pub read_only: bool,
    /// Whether the tool reads the live session unless told another (`session_id`): outside
    /// Pi, a door with no live session needs that parameter.
    pub live_session: bool,
    /// Checks the parameters (before anything is read or written) and answers the call.
    pub answer: fn(&Value, &Call) -> Result<ToolResponse, Refusal>,
}

/// Every tool, in the order `--schemas` lists them.
pub fn tools() -> impl Iterator<Item = &'static Tool> {
    super::history::TOOLS
        .iter()
        .chain(super::sessions::TOOLS.iter())
        .chain(super::hint::TOOLS.iter())
        .chain(super::notes::TOOLS.iter())
        .chain(super::notes_history::TOOLS.iter())
        .chain(super::checkpoint::TOOLS.iter())
}

pub fn find(name: &str) -> Option<&'static Tool> {
    tools().find(|tool| tool.name == name)
}

pub fn names() -> Vec<&'static str> {
    tools().map(|tool| tool.name).collect()
}

/// The tools a door offers to its model, in registry order.
pub fn offered_by(door: Door) -> impl Iterator<Item = &'static Tool> {
    tools().filter(move |tool| tool.doors.contains(&door))
}

/// The tools that save notes, in registry order.
pub fn save_tool_names() -> Vec<&'static str> {
    tools()
        .filter(|tool| tool.saves_notes)
        .map(|tool| tool.name)
        .collect()
}

/// `pi-context tool --schemas`: the binary's version (the extension refuses another), every
/// tool, and the facts the extension shares with the binary.
pub fn schemas() -> Value {
    let tools: Vec<Value> = tools()
        .map(|t| {
            let mut entry = json!({
                "name": t.name,
                "label": t.label,
                "description": t.description,
                "parameters": (t.parameters)(),
                "execution_mode": t.mode.as_str(),
            });
            if t.activity {
                entry["activity"] = json!(true);
            }
            entry["doors"] = json!(t.doors.iter().map(|d| d.as_str()).collect::<Vec<_>>());
            entry
        })
        .collect();
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "tools": tools,
        "facts": super::facts::all(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_schemas_strict() {
        let names = names();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        for tool in tools() {
            let schema = (tool.parameters)();
            assert_eq!(schema["type"], "object", "{}", tool.name);
            assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
            assert!(tool.description.len() > 80, "{}", tool.name);
        }
    }

    #[test]
    fn the_lifecycle_tools_are_pi_only() {
        let mcp: Vec<&str> = offered_by(Door::Mcp).map(|t| t.name).collect();
        let pi: Vec<&str> = offered_by(Door::Pi).map(|t| t.name).collect();
        assert!(!mcp.contains(&"checkpoint"), "{mcp:?}");
        assert!(pi.contains(&"checkpoint"), "{pi:?}");
        assert!(
            mcp.contains(&"notes_write") && mcp.contains(&"sessions_search"),
            "{mcp:?}"
        );
    }
}
