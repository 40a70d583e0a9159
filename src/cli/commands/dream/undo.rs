use clap::Args;
use pi_context::dream::undo::{self, UndoOptions};
use pi_context::environment::{Inputs, Vars};

use crate::cli::error::{exit, CommandError};
use crate::cli::printer;
use crate::cli::ui::Ui;

/// Revert one dream's changes as a new commit (history is never rewritten).
///
/// Without STAMP: the last dream. The dream's report stays. A note that changed again after the
/// dream is refused by name (exit 1) unless --force, which keeps both versions in the note
/// between conflict markers (`dream doctor` flags them until resolved). Exit status: 0 undone,
/// 1 refused or nothing to undo, 74 the notes home cannot be used, 75 a dream holds the lock.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The dream to undo: the stamp of its report (`dreams/<STAMP>.md`)
    #[arg(value_name = "STAMP")]
    stamp: Option<String>,
    /// Undo even notes changed after the dream, keeping both versions visibly
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    home: super::HomeArgs,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(args: UndoArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.home.environment(Inputs::default(), vars)?;
    let outcome = undo::undo(&UndoOptions {
        identity: env.notes_identity()?,
        now: env.now(),
        stamp: args.stamp,
        force: args.force,
    })?;
    printer::dream(args.json, ui.color).undone(ui.out(), &outcome)?;
    Ok(exit::SUCCESS)
}
