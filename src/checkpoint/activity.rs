//! The deterministic facts a checkpoint carries besides what the model wrote: the files written
//! or edited and the test, build and failing commands since the previous checkpoint on the
//! branch. The extension observes them (only Pi's hooks see tool calls as they happen) and sends
//! them with the call; they are bounded here, where the entry is built.
//!
//! Unlike the authored fields these are summaries, not the model's words: a path or command that
//! is too long is shortened (with `…`), and only the most recent ones are kept, with a count of
//! the rest.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::text::{char_len, char_slice};

/// The most recent files kept (a file changed again moves to the end).
pub const MAX_FILES: usize = 50;
/// The most recent commands kept.
pub const MAX_COMMANDS: usize = 10;
/// A path longer than this many characters is shortened.
pub const MAX_PATH_CHARS: usize = 300;
/// A command (whitespace runs collapsed to one space) longer than this is shortened.
pub const MAX_COMMAND_CHARS: usize = 200;
/// At most this many tool names per file, each at most this long.
const MAX_TOOLS_PER_FILE: usize = 4;
const MAX_TOOL_CHARS: usize = 32;

/// A file written or edited, and by which tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: String,
    pub tools: Vec<String>,
}

/// A test, build or failing command and how it ended (`None`: it did not finish with a status,
/// for example it timed out or was aborted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandRun {
    pub command: String,
    pub exit_code: Option<i64>,
}

/// What happened on the branch since the previous checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activity {
    pub files: Vec<FileChange>,
    /// Earlier files left out (beyond [`MAX_FILES`]).
    pub files_omitted: usize,
    pub commands: Vec<CommandRun>,
    /// Earlier commands left out (beyond [`MAX_COMMANDS`]).
    pub commands_omitted: usize,
}

impl Activity {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
            && self.commands.is_empty()
            && self.files_omitted == 0
            && self.commands_omitted == 0
    }

    /// Reads activity from JSON, leniently: anything that is not an object, and any item
    /// without a string `path` or `command`, is left out. Files are `{"path","tool"}` (what the
    /// extension sends, in the order they happened, repeats allowed) or `{"path","tools"}` (as
    /// stored); commands are `{"command","exit_code"}`. The result is bounded.
    pub fn from_json(value: Option<&Value>) -> Activity {
        let Some(Value::Object(object)) = value else {
            return Activity::default();
        };
        let count = |key: &str| {
            object
                .get(key)
                .and_then(Value::as_u64)
                .map_or(0, |n| n as usize)
        };
        let items = |key: &str| {
            object
                .get(key)
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(Value::as_object)
        };
        let mut activity = Activity {
            files_omitted: count("files_omitted"),
            commands_omitted: count("commands_omitted"),
            ..Activity::default()
        };
        for file in items("files") {
            let Some(path) = file.get("path").and_then(Value::as_str) else {
                continue;
            };
            let tools: Vec<&str> = match (file.get("tools"), file.get("tool")) {
                (Some(Value::Array(tools)), _) => tools.iter().filter_map(Value::as_str).collect(),
                (_, Some(Value::String(tool))) => vec![tool.as_str()],
                _ => Vec::new(),
            };
            activity.record_file(path, &tools);
        }
        for command in items("commands") {
            let Some(text) = command.get("command").and_then(Value::as_str) else {
                continue;
            };
            activity.commands.push(CommandRun {
                command: shorten(&one_line(text), MAX_COMMAND_CHARS),
                exit_code: command.get("exit_code").and_then(Value::as_i64),
            });
        }
        activity.bound();
        activity
    }

    /// A file changed: it moves to the end, its tools merged in the order first seen.
    fn record_file(&mut self, path: &str, tools: &[&str]) {
        let path = shorten(path.trim(), MAX_PATH_CHARS);
        if path.is_empty() {
            return;
        }
        let mut change = match self.files.iter().position(|f| f.path == path) {
            Some(i) => self.files.remove(i),
            None => FileChange {
                path,
                tools: Vec::new(),
            },
        };
        for tool in tools {
            let tool = shorten(tool.trim(), MAX_TOOL_CHARS);
            if !tool.is_empty()
                && !change.tools.contains(&tool)
                && change.tools.len() < MAX_TOOLS_PER_FILE
            {
                change.tools.push(tool);
            }
        }
        self.files.push(change);
    }

    /// Keeps the most recent [`MAX_FILES`] files and [`MAX_COMMANDS`] commands.
    fn bound(&mut self) {
        let extra = self.files.len().saturating_sub(MAX_FILES);
        self.files.drain(..extra);
        self.files_omitted += extra;
        let extra = self.commands.len().saturating_sub(MAX_COMMANDS);
        self.commands.drain(..extra);
        self.commands_omitted += extra;
    }
}

/// Whitespace runs (newlines included) collapsed to one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to `max` code points, the last one `…`, when it is longer.
fn shorten(text: &str, max: usize) -> String {
    if char_len(text) <= max {
        return text.to_string();
    }
    format!("{}…", char_slice(text, 0, max.saturating_sub(1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn files_are_deduplicated_latest_last_with_their_tools() {
        let a = Activity::from_json(Some(&json!({
            "files": [
                {"path": "a.rs", "tool": "write"},
                {"path": "b.rs", "tool": "edit"},
                {"path": "a.rs", "tool": "edit"},
                {"path": 3},
                "junk"
            ],
            "commands": [{"command": "cargo\n  test", "exit_code": 101}, {"command": "make", "exit_code": null}, {"exit_code": 1}]
        })));
        assert_eq!(
            a.files,
            [
                FileChange {
                    path: "b.rs".into(),
                    tools: vec!["edit".into()]
                },
                FileChange {
                    path: "a.rs".into(),
                    tools: vec!["write".into(), "edit".into()]
                }
            ]
        );
        assert_eq!(
            a.commands,
            [
                CommandRun {
                    command: "cargo test".into(),
                    exit_code: Some(101)
                },
                CommandRun {
                    command: "make".into(),
                    exit_code: None
                }
            ]
        );
    }

    #[test]
    fn only_the_most_recent_are_kept_and_long_texts_are_shortened() {
        let files: Vec<Value> = (0..60)
            .map(|i| json!({"path": format!("f{i}"), "tool": "edit"}))
            .collect();
        let commands: Vec<Value> = (0..12)
            .map(|i| json!({"command": format!("c{i} {}", "x".repeat(400)), "exit_code": 0}))
            .collect();
        let a = Activity::from_json(Some(&json!({"files": files, "commands": commands})));
        assert_eq!(a.files.len(), MAX_FILES);
        assert_eq!(a.files_omitted, 10);
        assert_eq!(a.files[0].path, "f10");
        assert_eq!(a.commands.len(), MAX_COMMANDS);
        assert_eq!(a.commands_omitted, 2);
        assert!(a.commands[0].command.starts_with("c2 "));
        assert_eq!(char_len(&a.commands[0].command), MAX_COMMAND_CHARS);
        assert!(a.commands[0].command.ends_with('…'));
        // Stored activity reads back to itself.
        let stored = serde_json::to_value(&a).unwrap();
        assert_eq!(Activity::from_json(Some(&stored)), a);
    }

    #[test]
    fn anything_else_is_no_activity() {
        for value in [json!(null), json!([]), json!("x"), json!({"files": "x"})] {
            assert!(Activity::from_json(Some(&value)).is_empty());
        }
        assert!(Activity::from_json(None).is_empty());
    }
}
