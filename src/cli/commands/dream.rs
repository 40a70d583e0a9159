//! `pi-context dream` (alias `dream`) and `dream doctor`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueHint};

use crate::cli::error::{CommandError, Outcome};
use crate::cli::ui::Ui;

/// Consolidate the notes store with a dreamer agent, under a lock and a git audit trail.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DreamArgs {
    #[command(subcommand)]
    command: Option<DreamCommand>,

    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum DreamCommand {
    /// Check the notes store without changing it
    Doctor(DoctorArgs),
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The notes home [default: $PI_NOTES_HOME or ~/.agents/notes]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    notes_home: Option<PathBuf>,
    /// Skip unless this many hours passed since the last run
    #[arg(long, value_name = "N", default_value_t = 24.0)]
    min_hours: f64,
    /// Skip unless this many sessions changed notes since the last run
    #[arg(long, value_name = "N", default_value_t = 3)]
    min_sessions: u64,
    /// Run even when the time or material gate says no (never bypasses the lock)
    #[arg(long)]
    force: bool,
    /// The dreamer model pattern [default: settings `pi-context.dreamer`, else Pi's default]
    #[arg(long, value_name = "PATTERN")]
    dreamer: Option<String>,
    /// A playbook file to use instead of the built-in one
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath)]
    playbook: Option<PathBuf>,
    /// The `pi` executable [default: $PI_CONTEXT_PI, else `pi` on PATH]
    #[arg(long, value_name = "PATH", value_hint = ValueHint::ExecutablePath)]
    pi: Option<PathBuf>,
    /// Evaluate the gates and the lock, print the plan, change nothing
    #[arg(long)]
    dry_run: bool,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct DoctorArgs {
    /// The notes home [default: $PI_NOTES_HOME or ~/.agents/notes]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    notes_home: Option<PathBuf>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(args: DreamArgs, _ui: &mut Ui) -> Result<u8, Outcome> {
    let what = match args.command {
        Some(DreamCommand::Doctor(_)) => "pi-context dream doctor",
        None => "pi-context dream",
    };
    Err(CommandError::not_implemented(what).into())
}
