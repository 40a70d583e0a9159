//! Memory pushed into other agents through their hooks (docs/agents.md): what `pi-context hook
//! <agent> <event>` answers. Agents do not call memory tools on their own, so, as Pi's extension
//! does from inside, pi-context puts into their context at the right moments:
//!
//! - at session start (`startup`, `clear`): a boot block ([`blocks::boot`]): the project's
//!   earlier sessions of every agent, the notes index, how to open exact history;
//! - on `resume`: one line, or the boot if the session never got one;
//! - after a compaction (`SessionStart` with source `compact`): the way back to what left the
//!   context ([`blocks::compacted`]);
//! - before a compaction, where the agent lets it reach the summary: what the summary must keep;
//! - with each prompt: recall's hint (docs/recall.md, "The hint"), at most once per session and
//!   context window.
//!
//! What a session was given lives in the cache ([`state`]); every run leaves a record of how it
//! ended ([`status`]), so `setup --status` shows hooks that never ran or failed. The library
//! answers and records; the command (`cli/commands/hook.rs`) owns the deadline and the agent's
//! output format.

pub mod blocks;
pub mod state;
pub mod stats;
pub mod status;

use std::path::PathBuf;

use serde::Deserialize;

use crate::environment::{Environment, EnvironmentError, Inputs, Vars};
use crate::recall::{HintParams, RecallError};
use crate::session::{AgentFacts, Harness, MCP_SERVER};

/// A hook event pi-context answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    SessionStart,
    Prompt,
    PreCompact,
}

impl Event {
    /// The names `pi-context hook <agent> <event>` takes (kebab case, or the agents' own).
    pub fn parse(name: &str) -> Option<Event> {
        Some(match name {
            "session-start" | "SessionStart" | "sessionStart" => Event::SessionStart,
            "prompt"
            | "user-prompt-submit"
            | "UserPromptSubmit"
            | "userPromptSubmitted"
            | "BeforeAgent" => Event::Prompt,
            "pre-compact" | "PreCompact" | "preCompact" => Event::PreCompact,
            _ => return None,
        })
    }

    /// The name the command line, the status records and `setup` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Event::SessionStart => "session-start",
            Event::Prompt => "prompt",
            Event::PreCompact => "pre-compact",
        }
    }

    /// The agents' own name of the event (Claude Code's and Codex's hook configurations).
    pub fn hook_name(self) -> &'static str {
        match self {
            Event::SessionStart => "SessionStart",
            Event::Prompt => "UserPromptSubmit",
            Event::PreCompact => "PreCompact",
        }
    }

    /// `agent`'s own name of the event: the prompt's event is Gemini CLI's `BeforeAgent`.
    pub fn hook_name_for(self, agent: &AgentFacts) -> &'static str {
        match self {
            Event::Prompt => agent.prompt_event,
            event => event.hook_name(),
        }
    }

    pub const ALL: [Event; 3] = [Event::SessionStart, Event::Prompt, Event::PreCompact];
}

/// Why a session starts (`SessionStart`'s `source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Startup,
    Resume,
    Clear,
    Compact,
}

impl Source {
    fn parse(name: Option<&str>) -> Source {
        match name {
            Some("resume") => Source::Resume,
            Some("clear") => Source::Clear,
            Some("compact") => Source::Compact,
            // `startup`, `fork` (a new session copying another), Copilot's `new` and anything
            // newer start fresh.
            _ => Source::Startup,
        }
    }
}

/// What the agent sends on stdin, as Claude Code and Codex both name it, or in Copilot CLI's
/// camelCase (`sessionId`, `transcriptPath`); unknown fields are ignored, missing ones are
/// `None`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    #[serde(default, alias = "sessionId")]
    pub session_id: Option<String>,
    #[serde(default, alias = "transcriptPath")]
    pub transcript_path: Option<PathBuf>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
}

impl HookInput {
    /// The hook's input: one JSON object.
    pub fn parse(text: &str) -> Result<HookInput, PushError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| PushError::Input(e.to_string()))?;
        if !value.is_object() {
            return Err(PushError::Input("the input is not a JSON object".into()));
        }
        serde_json::from_value(value).map_err(|e| PushError::Input(e.to_string()))
    }
}

/// What a hook gives the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Push {
    /// The text that reaches the model; `None`: nothing to say.
    pub text: Option<String>,
    /// What happened, for the status record (`boot`, `hint`, `no hint: common_words`, …).
    pub summary: String,
}

impl Push {
    fn nothing(summary: impl Into<String>) -> Push {
        Push {
            text: None,
            summary: summary.into(),
        }
    }

    fn pushed(text: String, what: &str) -> Push {
        Push {
            summary: format!("{what} ({} bytes)", text.len()),
            text: Some(text),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PushError {
    #[error("{0} takes no hooks (its own extension pushes memory)")]
    NotAnAgent(Harness),
    #[error("the hook input is not valid: {0}")]
    Input(String),
    #[error("the hook input has no session_id")]
    NoSession,
    #[error(transparent)]
    Environment(#[from] EnvironmentError),
    #[error(transparent)]
    Recall(#[from] RecallError),
    #[error("cannot keep the session's state in {path}: {source}")]
    State {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// How the agent's model names pi-context's MCP tools: the agent's way of naming them, and
/// the name the server is registered under (`pi-context` by `pi-context setup`; Claude Code's
/// plugin passes its own, `plugin_pi-context_pi-context`, with `--mcp-server`).
#[derive(Debug, Clone)]
pub struct Tools {
    facts: AgentFacts,
    server: String,
}

impl Tools {
    /// The tools of the server registered as `server` (`None`: [`MCP_SERVER`]).
    pub fn new(facts: AgentFacts, server: Option<&str>) -> Tools {
        Tools {
            facts,
            server: server.unwrap_or(MCP_SERVER).to_string(),
        }
    }

    /// The name the model calls `tool` by.
    pub fn name(&self, tool: &str) -> String {
        self.facts.tool_of(&self.server, tool)
    }
}

/// Whether `name` can be an MCP server's name in a hook's arguments: letters, digits, `-` and
/// `_`, at most 64 (anything else is ignored: the hook keeps [`MCP_SERVER`]).
pub fn is_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Answers one hook run of `agent` for `event`; `server`: the name the agent registered
/// pi-context's MCP server under, when it is not [`MCP_SERVER`].
pub fn answer(
    agent: Harness,
    event: Event,
    input: &HookInput,
    vars: &Vars,
    server: Option<&str>,
) -> Result<Push, PushError> {
    let facts = agent.agent_facts().ok_or(PushError::NotAnAgent(agent))?;
    let tools = Tools::new(facts, server);
    let session_id = input
        .session_id
        .clone()
        .filter(|id| !id.trim().is_empty())
        .ok_or(PushError::NoSession)?;
    let env = environment(facts, input, vars, &session_id)?;
    let cache = env.cache_dir().ok_or(EnvironmentError::NoCacheDir)?;
    let mut state = state::SessionState::load(&cache, agent, &session_id);
    let push = match event {
        Event::SessionStart => session_start(&env, &tools, input, &session_id, &mut state)?,
        Event::Prompt => prompt(&env, &tools, input, &session_id, &mut state)?,
        Event::PreCompact if facts.precompact_reaches_summary => {
            Push::pushed(blocks::compaction_request(&tools, &session_id), "request")
        }
        Event::PreCompact => Push::nothing("nothing reaches this agent's summary"),
    };
    state.save(&cache, agent, &session_id)?;
    Ok(push)
}

/// The environment of the agent's session: its project (the hook's `cwd`), its notes identity.
fn environment(
    facts: AgentFacts,
    input: &HookInput,
    vars: &Vars,
    session_id: &str,
) -> Result<Environment, EnvironmentError> {
    let inputs = Inputs {
        cwd: input.cwd.clone(),
        agent: Some(facts.agent_name.to_string()),
        model: input.model.clone(),
        session_id: Some(session_id.to_string()),
        ..Inputs::default()
    };
    // An agent's session id that is not a safe directory name only leaves the session home out.
    Environment::resolve(inputs.clone(), vars).or_else(|_| {
        Environment::resolve(
            Inputs {
                session_id: None,
                ..inputs
            },
            vars,
        )
    })
}

fn session_start(
    env: &Environment,
    tools: &Tools,
    input: &HookInput,
    session_id: &str,
    state: &mut state::SessionState,
) -> Result<Push, PushError> {
    match Source::parse(input.source.as_deref()) {
        Source::Compact => {
            state.new_window();
            let out_of_context = input
                .transcript_path
                .as_deref()
                .and_then(|path| blocks::last_compaction_seq(env, path));
            Ok(Push::pushed(
                blocks::compacted(tools, session_id, out_of_context),
                "way back",
            ))
        }
        // An agent that drops the session start's context on a restart gets the boot again.
        Source::Resume if state.booted && tools.facts.boot_survives_restart => Ok(Push::pushed(
            blocks::resumed(tools, session_id),
            "resume line",
        )),
        source => {
            if source == Source::Clear {
                state.new_window();
            }
            let text = blocks::boot(env, tools, session_id);
            state.booted = true;
            Ok(Push::pushed(text, "boot"))
        }
    }
}

/// The user's words of a prompt a hook is given: Gemini CLI hands its prompt hook the prompt
/// with its `SessionStart` hook's context before it (`<hook_context>…</hook_context>`, the boot
/// of a headless run), which is not what the user asked.
fn users_words(prompt: &str) -> &str {
    const CLOSE: &str = "</hook_context>";
    let trimmed = prompt.trim_start();
    if !trimmed.starts_with("<hook_context>") {
        return prompt;
    }
    trimmed
        .find(CLOSE)
        .map_or(prompt, |end| &trimmed[end + CLOSE.len()..])
}

fn prompt(
    env: &Environment,
    tools: &Tools,
    input: &HookInput,
    session_id: &str,
    state: &mut state::SessionState,
) -> Result<Push, PushError> {
    let Some(prompt) = input
        .prompt
        .as_deref()
        .map(users_words)
        .filter(|p| !p.trim().is_empty())
    else {
        return Ok(Push::nothing("no prompt"));
    };
    let recall = env.recall()?;
    let outcome = recall.hint(&HintParams {
        prompt: prompt.to_string(),
        project_key: env.project_key().to_string(),
        session_id: Some(session_id.to_string()),
        session_file: input.transcript_path.clone(),
        hinted: state.hinted.clone(),
        leads: state.leads.clone(),
        read_tool: tools.name("history_read"),
    })?;
    if let Some(lead) = outcome.lead {
        state.add_lead(lead);
    }
    match outcome.hint {
        Some(hint) => {
            state.hinted.push(hint.session_id.clone());
            Ok(Push::pushed(hint.text, "hint"))
        }
        None => Ok(Push::nothing(match outcome.miss {
            Some(miss) => format!(
                "no hint: {}",
                serde_json::json!(miss).as_str().unwrap_or("")
            ),
            None => "no hint".to_string(),
        })),
    }
}
