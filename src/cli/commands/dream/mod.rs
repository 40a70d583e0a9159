//! `pi-context dream` (alias `dream`) and `dream doctor`.

mod doctor;
mod run;
mod undo;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueHint};

use crate::cli::error::CommandError;
use crate::cli::ui::Ui;
use pi_context::environment::{Environment, EnvironmentError, Inputs, Vars};

/// Consolidate the notes store with a dreamer agent, under a lock and a git audit trail.
///
/// Runs `pi` with the dreamer playbook over the notes home, once the time and material gates
/// agree (or with --force). The home becomes a git repository: a `baseline` commit before the
/// dreamer, a `dream` commit after it, and a report in `dreams/<stamp>.md`. Exit status: 0 ran or
/// skipped by a gate, 1 the dream failed, 74 the notes home or its repository cannot be used,
/// 75 another dream holds the lock.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DreamArgs {
    #[command(subcommand)]
    command: Option<DreamCommand>,

    #[command(flatten)]
    run: run::RunArgs,
}

#[derive(Debug, Subcommand)]
enum DreamCommand {
    /// Check the notes store without changing it (exit 0 clean, 1 issues found)
    Doctor(doctor::DoctorArgs),
    /// Revert one dream's changes as a new commit (exit 0 undone, 1 refused, 75 locked)
    Undo(undo::UndoArgs),
}

pub fn run(args: DreamArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    match args.command {
        Some(DreamCommand::Doctor(args)) => doctor::run(args, ui, vars),
        Some(DreamCommand::Undo(args)) => undo::run(args, ui, vars),
        None => run::run(args.run, ui, vars),
    }
}

/// The notes home a `dream` command works on.
#[derive(Debug, Args)]
struct HomeArgs {
    /// The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    notes_home: Option<PathBuf>,
}

impl HomeArgs {
    fn environment(&self, inputs: Inputs, vars: &Vars) -> Result<Environment, EnvironmentError> {
        let inputs = Inputs {
            notes_home: self.notes_home.clone(),
            ..inputs
        };
        Environment::resolve(inputs, vars)
    }
}
