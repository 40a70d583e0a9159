//! `pi-context notes …`: the five-home markdown notes store.

use clap::{Args, Subcommand};

use crate::cli::error::{CommandError, Outcome};
use crate::cli::ui::Ui;

/// Read and write the five-home markdown notes store.
#[derive(Debug, Args)]
pub struct NotesArgs {
    #[command(subcommand)]
    command: NotesCommand,
}

#[derive(Debug, Subcommand)]
enum NotesCommand {
    /// Create or overwrite a note
    Write(Pending),
    /// Apply exact text replacements, or crumple / smooth a note
    Edit(Pending),
    /// Read a window of a note's body
    Read(Pending),
    /// List notes, most recently updated first
    List(Pending),
    /// Search note bodies for literal text
    Search(Pending),
}

#[derive(Debug, Args)]
struct Pending {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

pub fn run(args: NotesArgs, _ui: &mut Ui) -> Result<u8, Outcome> {
    let verb = match args.command {
        NotesCommand::Write(_) => "write",
        NotesCommand::Edit(_) => "edit",
        NotesCommand::Read(_) => "read",
        NotesCommand::List(_) => "list",
        NotesCommand::Search(_) => "search",
    };
    Err(CommandError::not_implemented(&format!("pi-context notes {verb}")).into())
}
