//! `pi-context stats`: how the memory was used, read from the transcripts themselves (docs/agents.md,
//! "Is it helping?"). Per agent: sessions; boot blocks, hints and compaction blocks pushed (the
//! pushed blocks an agent kept in its transcript, and Pi's own); the hints followed (the agent
//! opened the hinted session with a history tool within its next turns); the bytes pushed; and
//! the calls of each pi-context tool.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::environment::Environment;
use crate::history::{with_history, Branch, Leaf, Role, SessionInput};
use crate::recall::{ListParams, Scope};
use crate::redact::Masking;
use crate::session::{self, Harness};

/// A hint counts as followed when the agent opens the hinted session within this many user
/// turns after it.
pub const FOLLOW_TURNS: usize = 3;

/// The tools pi-context offers, by the names its registry gives them.
const TOOL_PREFIXES: [&str; 3] = ["history_", "notes_", "sessions_"];

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct AgentStats {
    pub agent: String,
    pub sessions: usize,
    pub boots: usize,
    pub hints: usize,
    pub hints_followed: usize,
    pub compactions: usize,
    pub bytes_pushed: usize,
    /// Calls of each pi-context tool, by its name.
    pub tool_calls: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    /// The sessions looked at were updated at or after this time (RFC 3339).
    pub since: Option<String>,
    pub agents: Vec<AgentStats>,
    /// Session files that could not be read.
    pub unreadable: usize,
}

/// The stats of every session updated at or after `since_ms`.
pub fn stats(env: &Environment, since_ms: Option<i64>) -> Result<Stats, super::PushError> {
    let recall = env.recall()?;
    let listed = recall.list(&ListParams {
        scope: Scope::All { current: None },
        since_ms,
        limit: usize::MAX,
    })?;
    let mut agents: BTreeMap<&'static str, AgentStats> = BTreeMap::new();
    let mut unreadable = listed.unreadable;
    let options = env.session_open_options();
    // A session can be in several files (Gemini CLI starts another file when a resume comes in
    // a later minute; a copied Pi session): it is one session, whose files all count.
    let mut seen: std::collections::HashSet<(Harness, &str)> = std::collections::HashSet::new();
    for listed in &listed.sessions {
        let entry = agents
            .entry(listed.harness.as_str())
            .or_insert_with(|| AgentStats {
                agent: listed.harness.as_str().to_string(),
                ..AgentStats::default()
            });
        if seen.insert((listed.harness, listed.session_id.as_str())) {
            entry.sessions += 1;
        }
        let path = std::path::Path::new(&listed.session_file);
        let counted = with_history(
            SessionInput::File {
                path,
                options: &options,
            },
            Branch {
                leaf: &Leaf::Last,
                session_id: Some(&listed.session_id),
                masking: Masking::Off,
            },
            None,
            |history, _| Ok(count_session(history, listed.harness)),
        );
        match counted {
            Ok(counted) => entry.add(counted),
            Err(_) => unreadable += 1,
        }
    }
    Ok(Stats {
        since: since_ms
            .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
            .map(|t| t.to_string()),
        agents: agents.into_values().collect(),
        unreadable,
    })
}

impl AgentStats {
    fn add(&mut self, other: AgentStats) {
        self.boots += other.boots;
        self.hints += other.hints;
        self.hints_followed += other.hints_followed;
        self.compactions += other.compactions;
        self.bytes_pushed += other.bytes_pushed;
        for (tool, n) in other.tool_calls {
            *self.tool_calls.entry(tool).or_default() += n;
        }
    }
}

/// One session's counts, from its current branch.
fn count_session(history: &crate::history::History, harness: Harness) -> AgentStats {
    let mut stats = AgentStats::default();
    // Hinted sessions still waiting to be opened: (session id, user turns left).
    let mut waiting: Vec<(String, usize)> = Vec::new();
    for event in history.events() {
        match event.role {
            Role::User => {
                waiting.retain_mut(|(_, left)| {
                    *left = left.saturating_sub(1);
                    *left > 0
                });
            }
            Role::Context => {
                let text = history.document(event);
                let kind = history
                    .custom_type(event)
                    .and_then(|t| pushed_type(&t))
                    .or_else(|| session::pushed_block(&text));
                match kind {
                    Some(session::BOOT_MESSAGE_TYPE) => stats.boots += 1,
                    Some(session::HINT_MESSAGE_TYPE) => {
                        stats.hints += 1;
                        if let Some(id) = hinted_session(&text) {
                            waiting.push((id, FOLLOW_TURNS + 1));
                        }
                    }
                    Some(session::COMPACTED_MESSAGE_TYPE) => stats.compactions += 1,
                    _ => {}
                }
                if kind.is_some() {
                    stats.bytes_pushed += text.len();
                }
            }
            Role::Tool => {
                let text = history.document(event);
                let Some(tool) = pi_context_tool(&text, harness) else {
                    continue;
                };
                *stats.tool_calls.entry(tool.to_string()).or_default() += 1;
                if tool.starts_with("history_") {
                    let before = waiting.len();
                    waiting.retain(|(id, _)| !text.contains(id.as_str()));
                    stats.hints_followed += before - waiting.len();
                }
            }
            Role::Assistant => {}
        }
    }
    stats
}

/// A Pi custom message's type as one of the pushed blocks' (the extension pushes Pi's boot and
/// hint as custom messages of these types).
fn pushed_type(custom_type: &str) -> Option<&'static str> {
    session::PUSHED_BLOCKS
        .iter()
        .map(|(_, t)| *t)
        .find(|t| *t == custom_type)
}

/// The session a hint names: the `"session_id"` of its `history_read` call.
fn hinted_session(text: &str) -> Option<String> {
    let at = text.find("\"session_id\":")? + "\"session_id\":".len();
    let rest = text[at..].trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

/// The pi-context tool a tool event calls, by its registry name: the event's document starts
/// with the tool's name as the agent called it (`mcp__pi-context__notes_write`,
/// `mcp__pi_context.notes_write`, a plugin's `mcp__plugin_pi-context_pi-context__notes_write`,
/// Copilot CLI's `pi-context-notes_write`, Pi's `notes_write`): a server whose name holds
/// `pi-context` (or `pi_context`), then the agent's separator, then one of our tools. The
/// separator can be in the server's name too (Copilot's `-`, Cursor's `_`), and `_` is in every
/// tool's: the tool is the first of our tools found after a separator past the last
/// `pi-context` in the name.
fn pi_context_tool(document: &str, harness: Harness) -> Option<&str> {
    let name = document.split([' ', '\n']).next()?;
    let is_ours = |tool: &str| TOOL_PREFIXES.iter().any(|p| tool.starts_with(p));
    let Some(facts) = harness.agent_facts() else {
        return is_ours(name).then_some(name);
    };
    let (prefix, separator) = facts.mcp_tool_parts();
    let rest = name.strip_prefix(prefix)?;
    let server_end = ["pi-context", "pi_context"]
        .iter()
        .filter_map(|ours| rest.rfind(ours).map(|at| at + ours.len()))
        .max()?;
    let after_server = &rest[server_end..];
    after_server
        .match_indices(separator)
        .map(|(at, _)| &after_server[at + separator.len()..])
        .find(|tool| is_ours(tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hinted_session_is_read_from_the_hints_call() {
        let hint = "<recall_hint>\n…\nTo read it: history_read {\"session_id\":\"0192aaaa-1\",\"seq\":4,\"leaf_id\":null}\n</recall_hint>";
        assert_eq!(hinted_session(hint).as_deref(), Some("0192aaaa-1"));
        assert_eq!(hinted_session("no call"), None);
    }

    #[test]
    fn a_tool_is_known_by_the_agents_name_for_it() {
        assert_eq!(
            pi_context_tool(
                "mcp__pi-context__notes_write {\"address\":\"a\"}",
                Harness::Claude
            ),
            Some("notes_write")
        );
        assert_eq!(
            pi_context_tool("mcp__pi_context.history_read {}", Harness::Codex),
            Some("history_read")
        );
        assert_eq!(
            pi_context_tool("notes_read {}", Harness::Pi),
            Some("notes_read")
        );
        assert_eq!(
            pi_context_tool("mcp_pi-context_history_read {}", Harness::Gemini),
            Some("history_read")
        );
        assert_eq!(
            pi_context_tool("mcp_other_notes_write {}", Harness::Gemini),
            None
        );
        assert_eq!(pi_context_tool("Bash {}", Harness::Claude), None);
        assert_eq!(
            pi_context_tool("mcp__other__notes_write {}", Harness::Claude),
            None
        );
        assert_eq!(
            pi_context_tool(
                "mcp__plugin_pi-context_pi-context__notes_write {}",
                Harness::Claude
            ),
            Some("notes_write")
        );
        assert_eq!(
            pi_context_tool("mcp__pi-context-dev__notes_write {}", Harness::Claude),
            Some("notes_write")
        );
        // Copilot CLI: `<server>-<tool>`, a `-` in the server's name too.
        assert_eq!(
            pi_context_tool("pi-context-history_read {}", Harness::Copilot),
            Some("history_read")
        );
        assert_eq!(
            pi_context_tool("pi-context-dev-notes_write {}", Harness::Copilot),
            Some("notes_write")
        );
        assert_eq!(
            pi_context_tool("github-mcp-server-search_code {}", Harness::Copilot),
            None
        );
        assert_eq!(pi_context_tool("bash {}", Harness::Copilot), None);
        assert_eq!(
            pi_context_tool("mcp_pi-context_history_read {}", Harness::Cursor),
            Some("history_read")
        );
    }
}
