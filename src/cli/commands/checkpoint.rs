//! `pi-context checkpoint show`: the checkpoint that applies on a session's branch, for people
//! and scripts (the boot shows the same one to the model).

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueHint};

use pi_context::checkpoint::{self, Shown};
use pi_context::environment::{Environment, Inputs, Vars};
use pi_context::history::{Leaf, SessionInput};
use pi_context::recall::Harness;

use crate::cli::error::{exit, CommandError};
use crate::cli::printer;
use crate::cli::ui::Ui;

/// The task-state checkpoint of a Pi session's branch
#[derive(Debug, Args)]
pub struct CheckpointArgs {
    #[command(subcommand)]
    command: CheckpointCommand,
}

#[derive(Debug, Subcommand)]
enum CheckpointCommand {
    Show(ShowArgs),
}

/// Print the checkpoint that applies on a session's branch (exit 1 when it has none)
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The Pi session JSONL file, or a session id or unique prefix of at least 8 characters
    /// found under Pi's session dirs [default: PI_CONTEXT_SESSION_ID, else the most recently
    /// updated session of the current project]
    #[arg(long, short = 's', value_name = "FILE|ID", value_hint = ValueHint::FilePath)]
    session: Option<PathBuf>,
    /// The entry id that ends the branch, or `none` for an empty branch [default: the last entry]
    #[arg(long, value_name = "ID")]
    leaf: Option<String>,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

pub fn run(args: CheckpointArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    match args.command {
        CheckpointCommand::Show(args) => show(args, ui, vars),
    }
}

fn show(args: ShowArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = Environment::resolve(Inputs::default(), vars)?;
    let path = session_path(&args, &env)?;
    let options = env.session_open_options();
    let input = SessionInput::File {
        path: &path,
        options: &options,
    };
    let branch = checkpoint::read(input, &Leaf::from_wire(args.leaf.as_deref()))?;
    let shown = Shown {
        session_file: path.to_string_lossy().into_owned(),
        session_id: branch.session_id,
        leaf_id: args.leaf,
        checkpoint: branch.latest,
        malformed: branch.malformed,
    };
    printer::checkpoint(args.json, ui.color, env.now()).show(ui.out(), &shown)?;
    Ok(match shown.checkpoint {
        Some(_) => exit::SUCCESS,
        None => exit::NEGATIVE,
    })
}

/// `--session`, else the session `PI_CONTEXT_SESSION_ID` names, else the most recently updated
/// session of the current directory's project.
fn session_path(args: &ShowArgs, env: &Environment) -> Result<PathBuf, CommandError> {
    if let Some(given) = &args.session {
        return super::session_file(given, env);
    }
    if let Some(id) = &env.session_id {
        return Ok(pi_context::recall::resolve_session(&env.sessions_roots(), id)?.path);
    }
    let latest = env
        .recall()?
        .only(&Harness::holding_checkpoints())
        .recent_sessions(env.project_key(), None, 1, u64::MAX)?
        .into_iter()
        .next();
    latest
        .map(|s| PathBuf::from(s.session_file))
        .ok_or_else(|| {
            CommandError::usage(format!(
                "no session of this project ({}) was found",
                env.project_key()
            ))
            .with_hint("name one with --session FILE|ID (or set PI_CONTEXT_SESSION_ID)")
        })
}
