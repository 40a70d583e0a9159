use clap::Args;
use pi_context::recall::{ListParams, DEFAULT_LIST_LIMIT};

use super::{RootArgs, ScopeArgs};
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// List sessions, most recently updated first
#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    scope: ScopeArgs,
    /// At most this many sessions
    #[arg(long, short = 'n', value_name = "N", default_value_t = DEFAULT_LIST_LIMIT,
          value_parser = clap::builder::TypedValueParser::map(clap::value_parser!(u64).range(1..), |n| n as usize))]
    limit: usize,
    #[command(flatten)]
    roots: RootArgs,
}

pub fn run(args: ListArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.roots.environment(vars, args.scope.cwd.clone())?;
    let recall = args.roots.recall(&env)?;
    let params = ListParams {
        scope: args.scope.scope(&env),
        since_ms: args.scope.since_ms(&recall)?,
        limit: args.limit,
    };
    let result = recall.list(&params)?;
    args.roots.printer(ui).list(ui.out(), &result)?;
    Ok(exit::SUCCESS)
}
