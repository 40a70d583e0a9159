use clap::Args;
use pi_context::notes::{ListPage, Query};

use super::CommonArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// List notes, most recently updated first.
///
/// Without --pattern: this session's notes (when a session id is set), @project, @human, @self
/// and @model. Crumpled notes are hidden unless --wastebasket is given (then only they are listed).
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only addresses matching this glob (`*`, `**`, `?`), e.g. '@project/**' or '**/MAP.md'
    #[arg(long, short = 'p', value_name = "GLOB")]
    pattern: Option<String>,
    /// At most this many notes
    #[arg(long, short = 'n', value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    /// List only crumpled notes
    #[arg(long)]
    wastebasket: bool,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: ListArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.common.environment(vars)?;
    let store = args.common.store(&env, ui)?;
    let query = Query {
        pattern: args.pattern,
        home: None,
        wastebasket: args.wastebasket,
    };
    let listing = store.list(&query)?;
    let page = ListPage::of(&listing, args.limit.map(|n| n as usize), usize::MAX)?;
    args.common.printer(ui, &env).list(ui.out(), &page)?;
    // The process ends next: freeing 10,000 rows one allocation at a time would only delay it.
    std::mem::forget((listing, page));
    Ok(exit::SUCCESS)
}
