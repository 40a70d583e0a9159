use clap::Args;

use super::SessionArgs;
use crate::cli::error::{exit, Outcome};
use crate::cli::ui::Ui;

/// List the context windows of the current branch, oldest first
#[derive(Debug, Args)]
pub struct WindowsArgs {
    #[command(flatten)]
    session: SessionArgs,
}

pub fn run(args: WindowsArgs, ui: &mut Ui) -> Result<u8, Outcome> {
    let session = args.session.load()?;
    let history = super::project(&session, &args.session)?;
    let result = history.windows_result(args.session.max_bytes);
    args.session.printer(ui).windows(ui.out(), &result)?;
    Ok(exit::SUCCESS)
}
