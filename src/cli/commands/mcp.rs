//! `pi-context mcp`: serve the tools to any MCP client over stdio.

use std::path::PathBuf;

use clap::{Args, ValueHint};

use crate::cli::error::{exit, CommandError};
use crate::cli::mcp::{self, Identity};
use crate::cli::ui::Ui;
use pi_context::environment::{Environment, Inputs, Vars};

const MCP_HELP: &str = "\
stdin and stdout carry the protocol (one JSON-RPC message per line); everything else goes to
stderr. The server ends when stdin ends or on SIGTERM, after the calls under way.

Identity: the agent is --agent, else the client's name (clientInfo.name, slugified, without a
trailing -mcp-client: Claude Code writes as claude-code, Codex as codex); the project is the server's working directory or --cwd; bare (session)
note addresses use --session-id, else PI_CONTEXT_SESSION_ID, else an id made at start (printed
on stderr). Every write is a notes commit as that agent.

Register it (Codex, Gemini CLI and Cursor: see the README):
  claude mcp add --scope user pi-context -- pi-context mcp
  codex mcp add pi-context -- pi-context mcp";

/// Serve the notes, sessions and history tools to any MCP client over stdio
#[derive(Debug, Args)]
#[command(after_long_help = MCP_HELP)]
pub struct McpArgs {
    // The environment variables are read by the library (empty means unset), not by clap.
    /// The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    notes_home: Option<PathBuf>,
    /// The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID] [default: a new
    /// id each start, printed on stderr]
    #[arg(long, value_name = "ID")]
    session_id: Option<String>,
    /// The project's directory, for @project/ and sessions' default scope [default: the current
    /// directory]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    cwd: Option<PathBuf>,
    /// The agent whose home is @self/ and who signs the notes commits (slugified) [default: the
    /// client's name]
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// The model whose home is @model/; `provider/id` uses `id`, slugified [env:
    /// PI_CONTEXT_MODEL] [default: default]
    #[arg(long, value_name = "ID")]
    model: Option<String>,
    /// The Pi session history_* tools read when no session_id is given: a session file, or a
    /// session id or unique prefix of at least 8 characters
    #[arg(long, short = 's', value_name = "FILE|ID", value_hint = ValueHint::FilePath)]
    session: Option<PathBuf>,
}

pub fn run(args: McpArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let mut environment = Environment::resolve(
        Inputs {
            notes_home: args.notes_home,
            session_id: args.session_id,
            cwd: args.cwd,
            agent: args.agent.clone(),
            model: args.model,
            ..Inputs::default()
        },
        vars,
    )?;
    environment.notes_home()?;
    let session_file = match &args.session {
        Some(given) => Some(
            environment
                .cwd
                .join(super::session_file(given, &environment)?),
        ),
        None => None,
    };
    if environment.session_id.is_none() {
        let made = uuid::Uuid::new_v4().to_string();
        ui.note(&format!(
            "session id {made}: bare note addresses of this server are notes of that session"
        ));
        environment.session_id = Some(made);
    }
    ui.flush()?;
    let identity = Identity {
        environment,
        agent_named: args.agent.is_some(),
        session_file,
    };
    mcp::serve(identity).map_err(|e| CommandError::io("the MCP server failed", e))?;
    Ok(exit::SUCCESS)
}
