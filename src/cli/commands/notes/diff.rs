use clap::Args;

use super::CommonArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Compare a note with a past version of it.
///
/// Without --rev: the version before the note's last recorded change, so the diff shows that
/// change (and anything since). With --rev: that commit's version (any git revision: an id
/// from `notes log`, HEAD~3, …). The read counters (accessCount, lastAccessed) are left out.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The note's address
    #[arg(value_name = "ADDRESS")]
    address: String,
    /// The older side: a commit of the notes history
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: DiffArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.common.environment(vars)?;
    let store = args.common.store(&env, ui)?;
    let diff = store.diff(&args.address, args.rev.as_deref())?;
    args.common.printer(ui, &env).diff(ui.out(), &diff)?;
    Ok(exit::SUCCESS)
}
