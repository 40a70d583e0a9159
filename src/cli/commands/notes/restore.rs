use clap::Args;
use pi_context::notes::RestoreReceipt;

use super::CommonArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Put back a note as it was at a past commit, as a new change: history is never rewritten.
///
/// The note keeps its current access counters and its update time becomes now. A note that is
/// gone is recreated. `notes log ADDRESS` lists the commits to choose from.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The note's address
    #[arg(value_name = "ADDRESS")]
    address: String,
    /// The commit whose version to put back (an id from `notes log`, HEAD~1, …)
    #[arg(long, value_name = "REV")]
    rev: String,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: RestoreArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.common.environment(vars)?;
    let store = args.common.store(&env, ui)?;
    let result = store.restore(&args.address, &args.rev)?;
    args.common
        .printer(ui, &env)
        .restored(ui.out(), &RestoreReceipt::of(&result))?;
    super::warn_unrecorded(ui, &result.history);
    Ok(exit::SUCCESS)
}
