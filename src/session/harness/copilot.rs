//! GitHub Copilot CLI sessions: `~/.copilot/session-state/<sessionId>/events.jsonl`
//! (docs/harnesses.md).
//!
//! Each line is an event `{id, timestamp, parentId, ephemeral, agentId, type, data}` (the types
//! are listed in the package's `schemas/session-events.schema.json`). Copilot chains every event
//! to the one before it in time (`parentId`), the main agent's and its subagents' interleaved;
//! the reader keeps a tree instead: each event hangs under the last event of the same agent, and
//! a subagent's first event (its `agentId`, which the main agent's events lack) under the main
//! agent's last one, so a subagent is a branch of its parent's tree that the main branch never
//! walks (its report comes back to the main branch as the `task` call's result).
//!
//! `user.message` is a `user` event of its `content` (what was typed; `transformedContent`, the
//! same text with the harness's wrapping and the hook's context, is skipped), a `context` event
//! when it has a `source` (a subagent's prompt, a skill's injection) or is an autopilot
//! continuation; `assistant.message` an `assistant` event of its `content` with a tool call per
//! `toolRequests` item (`reasoningText` is never text); `tool.execution_complete` the result of
//! the call with its `toolCallId`; `session.compaction_complete` the compaction's `context`
//! event (its `summaryContent`); a hook's `additionalContext` (`hook.end`), a developer
//! `system.message`, a `system.notification` and an invoked skill's content are `context`
//! events (the model saw them); the system prompt (`system.message` role `system`) is never
//! projected. Ephemeral events (never written by Copilot itself) and `model.*` records (a
//! compaction's model call, with a whole copy of the conversation) are skipped; every other
//! event, known or not, holds its place in the tree as an inert entry.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::super::record::{
    blocks, intern, is_true, push_atom, span_in, string, PendingEntry, Read,
};
use super::super::{Atom, EntryId, EntryKind, Header, Message, Span, ToolCall};
use super::{AgentConfig, AgentFacts, ContextOutput, Layout};

/// Where Copilot keeps its sessions under its home: one directory per session.
pub(super) const LAYOUT: Layout = Layout(&["session-state/*/events.jsonl"]);

/// Copilot names an MCP server's tools `<server>-<tool>`; its hooks answer with a top-level
/// `additionalContext`, which reaches the model (the session start's as a user message of its
/// own, given afresh at every start; a prompt's appended to it): found by running Copilot CLI
/// 1.0.102 against the lab's model server (docs/agents.md). No `preCompact` output reaches the
/// compaction's summary.
pub(super) const AGENT: AgentFacts = AgentFacts {
    agent_name: "copilot",
    mcp_tool: "{server}-{}",
    mcp_server_dash_as_underscore: false,
    precompact_reaches_summary: false,
    prompt_event: "userPromptSubmitted",
    boot_survives_restart: false,
    context_output: ContextOutput::AdditionalContext,
    config: AgentConfig::Copilot,
};

/// The event types that mark a Copilot session (with a `data` object): those a reader meets
/// first and most often.
pub(super) const RECORD_TYPES: [&str; 12] = [
    "session.start",
    "session.resume",
    "session.shutdown",
    "session.model_change",
    "user.message",
    "system.message",
    "assistant.turn_start",
    "assistant.message",
    "assistant.turn_end",
    "tool.execution_start",
    "tool.execution_complete",
    "hook.start",
];

/// Every event type of the schema Copilot CLI 1.0.102 ships (`schemas/session-events.schema.json`
/// in its package), persisted or ephemeral; any other is a format change, counted by name.
const KNOWN_TYPES: [&str; 163] = [
    "abort",
    "agent.interrupted",
    "assistant.fusion_phase_activity",
    "assistant.fusion_phase_completed",
    "assistant.fusion_phase_failed",
    "assistant.fusion_phase_started",
    "assistant.idle",
    "assistant.intent",
    "assistant.message",
    "assistant.message_delta",
    "assistant.message_start",
    "assistant.reasoning",
    "assistant.reasoning_delta",
    "assistant.server_tool_progress",
    "assistant.streaming_delta",
    "assistant.tool_call_delta",
    "assistant.turn_end",
    "assistant.turn_retry",
    "assistant.turn_start",
    "assistant.usage",
    "auto_mode_switch.completed",
    "auto_mode_switch.requested",
    "capabilities.changed",
    "command.completed",
    "command.execute",
    "command.queued",
    "commands.changed",
    "elicitation.completed",
    "elicitation.requested",
    "exit_plan_mode.completed",
    "exit_plan_mode.requested",
    "external_tool.completed",
    "external_tool.requested",
    "hook.end",
    "hook.progress",
    "hook.start",
    "human_response.recorded",
    "mcp.headers_refresh_completed",
    "mcp.headers_refresh_required",
    "mcp.oauth_completed",
    "mcp.oauth_recovery_completed",
    "mcp.oauth_required",
    "mcp.prompts.list_changed",
    "mcp.resources.list_changed",
    "mcp.tools.list_changed",
    "mcp_app.tool_call_complete",
    "model.call_failure",
    "model.call_final_result",
    "model.call_finished",
    "model.call_start",
    "pending_messages.modified",
    "permission.assentDetected",
    "permission.carriedForward",
    "permission.completed",
    "permission.contextualAuthorization",
    "permission.messageAuthorization",
    "permission.messageAuthorizationDegraded",
    "permission.messageAuthorizationRead",
    "permission.requested",
    "prompt_cache_break",
    "sampling.completed",
    "sampling.requested",
    "sandbox.decision",
    "session.auto_mode_resolved",
    "session.auto_tier_recommendation",
    "session.auto_tier_switch_failed",
    "session.autopilot_objective_changed",
    "session.autopilot_stopped",
    "session.background_tasks_changed",
    "session.binary_asset",
    "session.canvas.closed",
    "session.canvas.opened",
    "session.canvas.recorded",
    "session.canvas.registry_changed",
    "session.canvas.removed",
    "session.canvas.unavailable",
    "session.compaction_complete",
    "session.compaction_start",
    "session.completion_receipt",
    "session.context_changed",
    "session.context_cleared",
    "session.custom_agents_updated",
    "session.custom_notification",
    "session.error",
    "session.extensions.attachments_pushed",
    "session.extensions_loaded",
    "session.fusion_change_checkpoint",
    "session.fusion_commit_started",
    "session.fusion_completed",
    "session.fusion_handoff",
    "session.fusion_resolved",
    "session.fusion_route_failed",
    "session.fusion_route_started",
    "session.handoff",
    "session.idle",
    "session.indexed_search",
    "session.info",
    "session.managed_plugin_progress",
    "session.managed_settings_enforced",
    "session.managed_settings_resolved",
    "session.mcp_server_needs_reconnect",
    "session.mcp_server_removed",
    "session.mcp_server_status_changed",
    "session.mcp_server_tools_loaded",
    "session.mcp_servers_loaded",
    "session.memory_changed",
    "session.mode_changed",
    "session.mode_notice_delivered",
    "session.model_change",
    "session.model_deselected",
    "session.permission_recovery",
    "session.permissions_changed",
    "session.plan_changed",
    "session.quota_observation",
    "session.remote_steerable_changed",
    "session.request_body_compression_disabled",
    "session.resume",
    "session.schedule_cancelled",
    "session.schedule_created",
    "session.schedule_rearmed",
    "session.session_limits_changed",
    "session.shutdown",
    "session.skills_loaded",
    "session.snapshot_rewind",
    "session.start",
    "session.task_complete",
    "session.title_changed",
    "session.todos_changed",
    "session.tools_updated",
    "session.truncation",
    "session.usage_checkpoint",
    "session.usage_info",
    "session.usage_record",
    "session.warning",
    "session.workspace_file_changed",
    "session_limits_exhausted.completed",
    "session_limits_exhausted.requested",
    "skill.context_delivered",
    "skill.context_delivered_ref",
    "skill.invoked",
    "skill.invoked_ref",
    "subagent.completed",
    "subagent.configured",
    "subagent.deselected",
    "subagent.failed",
    "subagent.selected",
    "subagent.started",
    "system.message",
    "system.notification",
    "tool.execution_complete",
    "tool.execution_partial_result",
    "tool.execution_progress",
    "tool.execution_start",
    "tool.shell_output",
    "tool.user_requested",
    "tool_search.activated",
    "ui.ephemeral_query",
    "user.message",
    "user_input.completed",
    "user_input.requested",
    "workflow.run_settled",
    "workflow.run_started",
    "workflow.run_updated",
];

/// What the reader remembers between lines.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(in crate::session) struct State {
    /// A `session.start` was read: later ones do not change the header.
    started: bool,
    /// The id of the main agent's last entry.
    main: Option<String>,
    /// Each subagent's `agentId` and the id of its last entry, in order of appearance.
    agents: Vec<(String, String)>,
    /// Events read that are entries, for the ids of events that carry none.
    records: u64,
}

#[derive(Deserialize)]
struct RecordRepr<'a> {
    #[serde(rename = "type", borrow, default)]
    record_type: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow, default)]
    ephemeral: Option<&'a RawValue>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
}

/// The fields of an event's `data` the reader uses (each type has a few of them).
#[derive(Deserialize, Default)]
struct DataRepr<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    source: Option<&'a RawValue>,
    #[serde(rename = "isAutopilotContinuation", borrow, default)]
    autopilot: Option<&'a RawValue>,
    #[serde(rename = "toolRequests", borrow, default)]
    tool_requests: Option<&'a RawValue>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    success: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(rename = "summaryContent", borrow, default)]
    summary: Option<&'a RawValue>,
    #[serde(borrow, default)]
    role: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<&'a RawValue>,
    #[serde(rename = "startTime", borrow, default)]
    start_time: Option<&'a RawValue>,
    #[serde(borrow, default)]
    context: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ToolRequestRepr<'a> {
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// A tool's `result`, or its `error`: the text the model was given.
#[derive(Deserialize)]
struct TextRepr<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
}

/// A hook's `output`: what it added to the context.
#[derive(Deserialize)]
struct HookOutputRepr<'a> {
    #[serde(rename = "additionalContext", borrow, default)]
    additional_context: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ContextRepr {
    #[serde(default)]
    cwd: Option<serde_json::Value>,
}

/// Reads one line of a Copilot CLI session.
pub(in crate::session) fn read_line(
    state: &mut State,
    line: &str,
    base: usize,
    header: &mut Option<Header>,
    atoms: &mut String,
) -> Read {
    if !line.trim_start().starts_with('{') {
        return Read::Malformed;
    }
    let Ok(record) = serde_json::from_str::<RecordRepr>(line) else {
        // A JSON object of an unexpected shape (a repeated key) still holds its place.
        return match serde_json::from_str::<serde::de::IgnoredAny>(line) {
            Ok(_) => Read::Entries(vec![entry(
                state,
                None,
                None,
                None,
                EntryKind::Other,
                atoms,
            )]),
            Err(_) => Read::Malformed,
        };
    };
    let record_type = record.record_type.and_then(string).unwrap_or_default();
    if record.ephemeral.is_some_and(is_true) || is_skipped(&record_type) {
        return Read::Entries(Vec::new());
    }
    let data = record
        .data
        .filter(|raw| raw.get().starts_with('{'))
        .and_then(|raw| serde_json::from_str::<DataRepr>(raw.get()).ok())
        .unwrap_or_default();
    if record_type == "session.start" {
        learn_session(state, &data, record.timestamp, header);
    }
    let kind = event_kind(&record_type, &data, base, atoms);
    let timestamp = record.timestamp.map(|raw| span_in(raw, base));
    let agent = record.agent_id.and_then(string).filter(|a| !a.is_empty());
    let entries = vec![entry(state, record.id, agent, timestamp, kind, atoms)];
    if record_type.is_empty() || KNOWN_TYPES.contains(&record_type.as_str()) {
        Read::Entries(entries)
    } else {
        Read::Unknown {
            record_type,
            entries,
        }
    }
}

/// Records that are no entry: `model.*` (a compaction's model call, with a whole copy of the
/// conversation, outside Copilot's own chain) and the streaming deltas (ephemeral anyway).
fn is_skipped(record_type: &str) -> bool {
    record_type.starts_with("model.") || record_type.ends_with("_delta")
}

/// The entry of one event: its own id (or `copilot:<n>`), under the last entry of its agent.
fn entry(
    state: &mut State,
    id: Option<&RawValue>,
    agent: Option<String>,
    timestamp: Option<Span>,
    kind: EntryKind,
    atoms: &mut String,
) -> PendingEntry {
    state.records += 1;
    let id = id
        .and_then(|raw| intern(atoms, raw))
        .unwrap_or_else(|| push_atom(atoms, &format!("copilot:{}", state.records)));
    let own = atom_text(atoms, id);
    let parent = match agent {
        None => state.main.replace(own),
        Some(agent) => match state.agents.iter_mut().find(|(a, _)| *a == agent) {
            Some((_, last)) => Some(std::mem::replace(last, own)),
            None => {
                state.agents.push((agent, own));
                state.main.clone()
            }
        },
    };
    let parent = parent.map(|p| EntryId::Atom(push_atom(atoms, &p)));
    PendingEntry::ready(Some(EntryId::Atom(id)), parent, timestamp, kind)
}

fn atom_text(atoms: &str, atom: Atom) -> String {
    let start = atom.start as usize;
    atoms
        .get(start..start + atom.len as usize)
        .unwrap_or("")
        .to_string()
}

/// The first `session.start` gives the session's id, cwd and start.
fn learn_session(
    state: &mut State,
    data: &DataRepr,
    record_timestamp: Option<&RawValue>,
    header: &mut Option<Header>,
) {
    if std::mem::replace(&mut state.started, true) {
        return;
    }
    let header = header.get_or_insert_with(Header::default);
    header.id = data.session_id.and_then(string);
    header.cwd = data
        .context
        .and_then(|raw| serde_json::from_str::<ContextRepr>(raw.get()).ok())
        .and_then(|c| match c.cwd {
            Some(serde_json::Value::String(cwd)) => Some(cwd),
            _ => None,
        });
    header.timestamp = data.start_time.or(record_timestamp).and_then(string);
}

/// What an event is in the event model.
fn event_kind(record_type: &str, data: &DataRepr, base: usize, atoms: &mut String) -> EntryKind {
    let span = |raw: &RawValue| span_in(raw, base);
    let text = |raw: Option<&RawValue>| raw.filter(|r| r.get().starts_with('"')).map(span);
    let message = match record_type {
        "user.message" => {
            let content = text(data.content);
            let from_harness = data.source.and_then(string).is_some_and(|s| !s.is_empty())
                || data.autopilot.is_some_and(is_true);
            if from_harness {
                Message::Custom { content }
            } else {
                Message::User { content }
            }
        }
        "assistant.message" => return assistant(data, base, atoms),
        "tool.execution_complete" => Message::ToolResult {
            tool_call_id: data.tool_call_id.and_then(|raw| intern(atoms, raw)),
            tool_name: None,
            is_error: data.success.is_some_and(|raw| raw.get() == "false"),
            content: result_text(data).map(span),
            output_truncated: false,
            full_output_path: None,
        },
        "session.compaction_complete" => {
            return match text(data.summary) {
                Some(summary) => EntryKind::Compaction {
                    summary: Some(summary),
                },
                None => EntryKind::Other,
            };
        }
        "system.message" if data.role.is_some_and(|r| r.get() == "\"system\"") => Message::System,
        "system.message" | "system.notification" | "skill.invoked" => Message::Custom {
            content: text(data.content),
        },
        "hook.end" => match hook_context(data) {
            Some(context) => Message::Custom {
                content: Some(span(context)),
            },
            None => return EntryKind::Other,
        },
        _ => return EntryKind::Other,
    };
    EntryKind::Message(message)
}

/// An assistant message: its text (an event of its own when it is not empty) and a tool call
/// per tool request; nothing but an inert entry when it has neither (reasoning only).
fn assistant(data: &DataRepr, base: usize, atoms: &mut String) -> EntryKind {
    let content = data.content.filter(|raw| raw.get().starts_with('"'));
    let has_text = content.is_some_and(|raw| raw.get() != "\"\"");
    let calls: Vec<ToolCall> = data
        .tool_requests
        .map(|raw| blocks::<ToolRequestRepr>(raw.get()))
        .unwrap_or_default()
        .iter()
        .map(|request| ToolCall {
            id: request.tool_call_id.and_then(|raw| intern(atoms, raw)),
            name: request.name.and_then(|raw| intern(atoms, raw)),
            arguments: request.arguments.map(|raw| span_in(raw, base)),
            arguments_in_string: request
                .arguments
                .is_some_and(|raw| raw.get().starts_with('"')),
        })
        .collect();
    if !has_text && calls.is_empty() {
        return EntryKind::Other;
    }
    EntryKind::Message(Message::Assistant {
        content: content.map(|raw| span_in(raw, base)),
        tool_calls: calls,
        own_event: has_text,
    })
}

/// The text a tool call gave the model: its `result.content`, or its `error.message`.
fn result_text<'a>(data: &DataRepr<'a>) -> Option<&'a RawValue> {
    let field = |raw: Option<&'a RawValue>, message: bool| {
        let repr = serde_json::from_str::<TextRepr>(raw?.get()).ok()?;
        let text = if message { repr.message } else { repr.content };
        text.filter(|t| t.get().starts_with('"'))
    };
    field(data.result, false).or_else(|| field(data.error, true))
}

/// The context a hook added (`output.additionalContext`, a string).
fn hook_context<'a>(data: &DataRepr<'a>) -> Option<&'a RawValue> {
    let output = data.output.filter(|raw| raw.get().starts_with('{'))?;
    serde_json::from_str::<HookOutputRepr>(output.get())
        .ok()?
        .additional_context
        .filter(|raw| raw.get().starts_with('"') && raw.get() != "\"\"")
}
