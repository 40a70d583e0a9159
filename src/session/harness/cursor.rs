//! Cursor's agent CLI transcripts: `~/.cursor/projects/<encoded cwd>/agent-transcripts/`
//! (docs/harnesses.md). Read from public fixtures only: no Cursor was run.
//!
//! A transcript is linear, one line per message, `{"role", "message": {"content"}}` with
//! Anthropic-style blocks: a user message is a `user` event of its text blocks; an assistant
//! message an `assistant` event of its text with a tool call per `tool_use` block (Cursor
//! writes no tool results in the transcript: its calls stay without output). `tool_result`
//! blocks, where a build writes them, are the results of the calls they name. Other records
//! (`turn_ended`, `metadata`, unknown ones) hold their place as inert entries; a `metadata`
//! record's `overview` names the session. Nothing in the file gives the session's id, cwd or
//! any time: the id is the file's name, a subagent's parent the directory its `subagents/` is
//! in, the cwd the one directory the project directory's name stands for ([`cwd_from_path`]),
//! and the file's modification time stands in for the session's last update.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use rustc_hash::FxHashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::super::record::{blocks, intern, is_true, span_in, string, PendingEntry, Read};
use super::super::{EntryKind, Header, Message, ToolCall};
use super::{AgentConfig, AgentFacts, ContextOutput, Layout};

/// Where Cursor's transcripts are under its home: `<id>/<id>.jsonl` per session (older builds:
/// `<id>.jsonl`), a session's subagents in `<id>/subagents/`.
pub(super) const LAYOUT: Layout = Layout(&[
    "projects/*/agent-transcripts/*.jsonl",
    "projects/*/agent-transcripts/*/*.jsonl",
    "projects/*/agent-transcripts/*/subagents/*.jsonl",
]);

/// Cursor takes pi-context's MCP server only (`~/.cursor/mcp.json`): its hooks were not run
/// here, so nothing is pushed (docs/agents.md). The name its model gives an MCP tool is not
/// verified.
pub(super) const AGENT: AgentFacts = AgentFacts {
    agent_name: "cursor",
    mcp_tool: "mcp_{server}_{}",
    mcp_server_dash_as_underscore: false,
    precompact_reaches_summary: false,
    prompt_event: "UserPromptSubmit",
    boot_survives_restart: false,
    context_output: ContextOutput::AdditionalContext,
    config: AgentConfig::Cursor,
};

/// The record types of Cursor's own (the messages carry a `role` instead).
pub(super) const RECORD_TYPES: [&str; 2] = ["turn_ended", "metadata"];

/// The roles of Cursor's messages.
pub(super) const ROLES: [&str; 2] = ["user", "assistant"];

#[derive(Deserialize)]
struct RecordRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    record_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    role: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    metadata: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MessageRepr<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MetadataRepr {
    #[serde(default)]
    overview: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct BlockRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    block_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    is_error: Option<&'a RawValue>,
}

/// Reads one line of a Cursor transcript.
pub(in crate::session) fn read_line(
    line: &str,
    base: usize,
    header: &mut Option<Header>,
    atoms: &mut String,
) -> Read {
    if !line.trim_start().starts_with('{') {
        return Read::Malformed;
    }
    let Ok(record) = serde_json::from_str::<RecordRepr>(line) else {
        return match serde_json::from_str::<serde::de::IgnoredAny>(line) {
            Ok(_) => Read::Entries(vec![inert()]),
            Err(_) => Read::Malformed,
        };
    };
    if record
        .record_type
        .is_some_and(|t| t.get() == "\"metadata\"")
    {
        learn_name(record.metadata, header);
    }
    let content = record
        .message
        .filter(|raw| raw.get().starts_with('{'))
        .and_then(|raw| serde_json::from_str::<MessageRepr>(raw.get()).ok())
        .and_then(|m| m.content);
    let kinds = match (record.role.map_or("", RawValue::get), content) {
        ("\"user\"", Some(content)) => user_kinds(content, base, atoms),
        ("\"assistant\"", Some(content)) => assistant_kinds(content, base, atoms),
        _ => Vec::new(),
    };
    let entries = if kinds.is_empty() {
        vec![inert()]
    } else {
        kinds
            .into_iter()
            .map(|kind| PendingEntry::ready(None, None, None, kind))
            .collect()
    };
    match unknown_type(&record) {
        Some(record_type) => Read::Unknown {
            record_type,
            entries,
        },
        None => Read::Entries(entries),
    }
}

/// The name of a record this reader does not know: a `type` other than Cursor's own, or a
/// message of another role (`role:<role>`); a format change, counted by name.
fn unknown_type(record: &RecordRepr) -> Option<String> {
    if let Some(record_type) = record.record_type.and_then(string) {
        return (!RECORD_TYPES.contains(&record_type.as_str())).then_some(record_type);
    }
    let role = record.role.and_then(string)?;
    (!ROLES.contains(&role.as_str())).then(|| format!("role:{role}"))
}

fn inert() -> PendingEntry {
    PendingEntry::ready(None, None, None, EntryKind::Other)
}

/// A `metadata` record's `overview` is the session's name.
fn learn_name(metadata: Option<&RawValue>, header: &mut Option<Header>) {
    let overview = metadata
        .and_then(|raw| serde_json::from_str::<MetadataRepr>(raw.get()).ok())
        .and_then(|m| match m.overview {
            Some(serde_json::Value::String(text)) if !text.trim().is_empty() => Some(text),
            _ => None,
        });
    if let Some(name) = overview {
        header.get_or_insert_with(Header::default).name = Some(name);
    }
}

/// A user message: its tool results (where a build writes them), then its text.
fn user_kinds(content: &RawValue, base: usize, atoms: &mut String) -> Vec<EntryKind> {
    let span = Some(span_in(content, base));
    if content.get().starts_with('"') {
        return vec![EntryKind::Message(Message::User { content: span })];
    }
    let blocks: Vec<BlockRepr> = blocks(content.get());
    let mut kinds: Vec<EntryKind> = blocks
        .iter()
        .filter(|b| block_type(b) == "\"tool_result\"")
        .map(|b| {
            EntryKind::Message(Message::ToolResult {
                tool_call_id: b.tool_use_id.and_then(|raw| intern(atoms, raw)),
                tool_name: None,
                is_error: b.is_error.is_some_and(is_true),
                content: b.content.map(|raw| span_in(raw, base)),
                output_truncated: false,
                full_output_path: None,
            })
        })
        .collect();
    if blocks.iter().any(is_text) {
        kinds.push(EntryKind::Message(Message::User { content: span }));
    }
    kinds
}

/// An assistant message: its text blocks and a call per `tool_use` block (Cursor's calls carry
/// no id when its builds write none).
fn assistant_kinds(content: &RawValue, base: usize, atoms: &mut String) -> Vec<EntryKind> {
    let span = Some(span_in(content, base));
    if content.get().starts_with('"') {
        let has_text = content.get() != "\"\"";
        return has_text
            .then(|| assistant(span, Vec::new(), true))
            .into_iter()
            .collect();
    }
    let blocks: Vec<BlockRepr> = blocks(content.get());
    let calls: Vec<ToolCall> = blocks
        .iter()
        .filter(|b| block_type(b) == "\"tool_use\"")
        .map(|b| ToolCall {
            id: b.id.and_then(|raw| intern(atoms, raw)),
            name: b.name.and_then(|raw| intern(atoms, raw)),
            arguments: b.input.map(|raw| span_in(raw, base)),
            arguments_in_string: false,
        })
        .collect();
    let has_text = blocks.iter().any(is_text);
    if !has_text && calls.is_empty() {
        return Vec::new();
    }
    vec![assistant(span, calls, has_text)]
}

fn assistant(content: Option<super::super::Span>, calls: Vec<ToolCall>, own: bool) -> EntryKind {
    EntryKind::Message(Message::Assistant {
        content,
        tool_calls: calls,
        own_event: own,
    })
}

fn block_type<'a>(block: &BlockRepr<'a>) -> &'a str {
    block.block_type.map_or("", RawValue::get)
}

fn is_text(block: &BlockRepr) -> bool {
    block_type(block) == "\"text\"" && block.text.is_some_and(|t| t.get().starts_with('"'))
}

/// The session a subagent's transcript belongs to: the directory its `subagents/` is in
/// (`agent-transcripts/<id>/subagents/<sub>.jsonl`).
pub(super) fn parent_from_path(path: &Path) -> Option<String> {
    let dir = path.parent()?;
    if dir.file_name()? != "subagents" {
        return None;
    }
    let name = dir.parent()?.file_name()?.to_str()?;
    (!name.is_empty()).then(|| name.to_string())
}

/// The cwd of a transcript's session: the directory its project directory
/// (`projects/<encoded cwd>/`) stands for ([`project_cwd`]).
pub(super) fn cwd_from_path(path: &Path) -> Option<String> {
    let transcripts = path
        .ancestors()
        .find(|dir| dir.file_name().is_some_and(|n| n == "agent-transcripts"))?;
    project_cwd(transcripts.parent()?)
}

/// The directory a project directory of Cursor's stands for, remembered for the process.
/// Cursor names it by the path with every run of characters other than ASCII letters and
/// digits made one `-`, trimmed (`/home/me/my-app.v2` → `home-me-my-app-v2`), which cannot be
/// decoded alone: the path is the one its `.workspace-trusted` names (Cursor writes it when a
/// person trusts the directory) when that path encodes to the name, else the one existing
/// directory whose path encodes to it; none, or more than one: no cwd.
fn project_cwd(project: &Path) -> Option<String> {
    static FOUND: OnceLock<Mutex<FxHashMap<PathBuf, Option<String>>>> = OnceLock::new();
    let found = FOUND.get_or_init(Default::default);
    if let Some(cwd) = found.lock().ok()?.get(project) {
        return cwd.clone();
    }
    let name = project.file_name()?.to_str()?;
    let cwd = trusted_workspace(project, name).or_else(|| {
        let matches = directories_encoded_as(Path::new("/"), name, 2);
        match matches.as_slice() {
            [only] => only.to_str().map(str::to_string),
            _ => None,
        }
    });
    found
        .lock()
        .ok()?
        .insert(project.to_path_buf(), cwd.clone());
    cwd
}

/// Cursor's name for a path (or a path's segment): each run of characters other than ASCII
/// letters and digits one `-`, none at either end.
pub(super) fn encoded(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    if out.ends_with('-') {
        out.pop();
    }
    out
}

#[derive(Deserialize)]
struct TrustRepr {
    #[serde(rename = "workspacePath")]
    workspace_path: String,
}

/// The path `.workspace-trusted` names (`{"trustedAt", "workspacePath", "trustMethod"}`), when
/// it encodes to the project directory's name.
fn trusted_workspace(project: &Path, name: &str) -> Option<String> {
    let text = super::side_file(&project.join(".workspace-trusted"))?;
    let trust: TrustRepr = serde_json::from_str(&text).ok()?;
    (trust.workspace_path.starts_with('/') && encoded(&trust.workspace_path) == name)
        .then_some(trust.workspace_path)
}

/// The existing directories under `root` whose path below it encodes to `rest`, at most
/// `enough` of them (two tell an ambiguity). Only entries whose name encodes to a prefix of
/// what is left are entered, so the walk reads the directories along the candidate paths only;
/// a name with no letter or digit (which encodes to nothing) is not entered.
fn directories_encoded_as(root: &Path, rest: &str, enough: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return found;
    };
    for entry in entries.flatten() {
        if found.len() >= enough {
            break;
        }
        let name = entry.file_name();
        let Some(segment) = name.to_str().map(encoded).filter(|s| !s.is_empty()) else {
            continue;
        };
        let path = entry.path();
        if rest == segment {
            if path.is_dir() {
                found.push(path);
            }
        } else if let Some(below) = rest
            .strip_prefix(segment.as_str())
            .and_then(|r| r.strip_prefix('-'))
        {
            if path.is_dir() {
                found.extend(directories_encoded_as(&path, below, enough - found.len()));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_encodes_as_cursor_names_its_project_directory() {
        assert_eq!(encoded("/Users/me/work/my-app"), "Users-me-work-my-app");
        assert_eq!(
            encoded("/home/jane.doe/my app/v2_"),
            "home-jane-doe-my-app-v2"
        );
        assert_eq!(encoded("/tmp/.x/__/y"), "tmp-x-y");
        assert_eq!(encoded("/é/a"), "a");
    }

    #[test]
    fn the_walk_finds_the_one_directory_a_name_stands_for() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for made in [
            "work/my-app.v2/src",
            "work/plain",
            "two/a-b",
            "two/a/b",
            "gone",
        ] {
            std::fs::create_dir_all(root.join(made)).unwrap();
        }
        std::fs::write(root.join("work/file"), "").unwrap();
        let walk = |name: &str| directories_encoded_as(root, name, 2);
        assert_eq!(walk("work-plain"), [root.join("work/plain")]);
        assert_eq!(walk("work-my-app-v2"), [root.join("work/my-app.v2")]);
        assert_eq!(
            walk("work-my-app-v2-src"),
            [root.join("work/my-app.v2/src")]
        );
        let mut both = walk("two-a-b");
        both.sort();
        assert_eq!(both, [root.join("two/a/b"), root.join("two/a-b")]);
        assert!(walk("work-file").is_empty(), "a file is no cwd");
        assert!(walk("work-nowhere").is_empty());
        assert!(walk("wor").is_empty(), "a name matches whole segments only");
    }

    #[test]
    fn a_trusted_workspace_names_the_path_when_it_encodes_to_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("home-me-my-app");
        std::fs::create_dir_all(&project).unwrap();
        let trust = |path: &str| {
            std::fs::write(
                project.join(".workspace-trusted"),
                format!(r#"{{"trustedAt":"2026-08-02T02:06:46.038Z","workspacePath":"{path}","trustMethod":"cli-flag"}}"#),
            )
            .unwrap();
            trusted_workspace(&project, "home-me-my-app")
        };
        assert_eq!(trust("/home/me/my-app").as_deref(), Some("/home/me/my-app"));
        assert_eq!(trust("/home/me/my.app").as_deref(), Some("/home/me/my.app"));
        assert_eq!(trust("/home/me/other"), None, "not this directory's");
    }
}
