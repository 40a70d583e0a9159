use clap::Args;

use super::{PageArgs, SessionArgs};
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// List events, newest page first; without --role, the conversation view folds tool and
/// context events between user and assistant rows
#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    session: SessionArgs,
    #[command(flatten)]
    page: PageArgs,
}

pub fn run(args: ListArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let params = args.page.params()?;
    let budget = args.session.max_bytes;
    let page = args
        .session
        .with_history(ui, vars, None, |history, _| history.list(&params, budget))?;
    args.session.printer(ui).page(ui.out(), &page)?;
    Ok(exit::SUCCESS)
}
