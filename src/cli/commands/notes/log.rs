use clap::Args;
use pi_context::notes::LogPage;

use super::CommonArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Show the notes history: the commits that changed a note, newest first.
///
/// Every notes write, edit, move and restore is a commit in the notes home's git repository
/// (unless PI_CONTEXT_NOTES_HISTORY=off), and so is every dream. Each commit shows its
/// operation, agent, session, model and time.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// A note's address, or a glob over addresses (`@project/**`); without it, every commit
    #[arg(value_name = "ADDRESS|PATTERN")]
    target: Option<String>,
    /// Show at most this many commits
    #[arg(long, short = 'n', value_name = "N", default_value_t = 20)]
    limit: usize,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: LogArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.common.environment(vars)?;
    let store = args.common.store(&env, ui)?;
    let log = store.log(args.target.as_deref(), args.limit)?;
    args.common
        .printer(ui, &env)
        .log(ui.out(), &LogPage::of(&log, usize::MAX))?;
    Ok(exit::SUCCESS)
}
