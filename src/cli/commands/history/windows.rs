use clap::Args;

use super::SessionArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// List the context windows of the current branch, oldest first
#[derive(Debug, Args)]
pub struct WindowsArgs {
    #[command(flatten)]
    session: SessionArgs,
}

pub fn run(args: WindowsArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let budget = args.session.max_bytes;
    let result = args.session.with_history(ui, vars, None, |history, _| {
        Ok(history.windows_result(budget))
    })?;
    args.session.printer(ui).windows(ui.out(), &result)?;
    Ok(exit::SUCCESS)
}
