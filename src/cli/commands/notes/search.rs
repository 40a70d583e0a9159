use clap::Args;
use pi_context::notes::{Query, SearchPage};

use super::CommonArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Search note bodies for literal text (case-insensitive; several queries are OR-ed).
/// Exits 1 when nothing matches.
///
/// Each matching line is printed with its line number and the code-point offset of the match in
/// the body: pass that to `pi-context notes read ADDRESS --offset N`. Notes come most recently
/// updated first; the homes, --pattern and --wastebasket work as in `notes list`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The text to find; regex characters are literal
    #[arg(value_name = "QUERY", required = true)]
    queries: Vec<String>,
    /// Only addresses matching this glob (`*`, `**`, `?`)
    #[arg(long, short = 'p', value_name = "GLOB")]
    pattern: Option<String>,
    /// At most this many notes
    #[arg(long, short = 'n', value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    /// At most this many matching lines per note
    #[arg(long = "max-matches", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_matches: Option<u64>,
    /// Search only crumpled notes
    #[arg(long)]
    wastebasket: bool,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: SearchArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.common.environment(vars)?;
    let store = args.common.store(&env, ui)?;
    let query = Query {
        pattern: args.pattern,
        home: None,
        wastebasket: args.wastebasket,
    };
    let listing = store.search(&args.queries, &query)?;
    let page = SearchPage::of(
        &listing,
        args.limit.map(|n| n as usize),
        args.max_matches.map(|n| n as usize),
        usize::MAX,
    )?;
    args.common.printer(ui, &env).search(ui.out(), &page)?;
    let found = !listing.rows.is_empty();
    // The process ends next: freeing every matching line one at a time would only delay it.
    std::mem::forget(page);
    std::mem::forget(listing);
    Ok(if found { exit::SUCCESS } else { exit::NEGATIVE })
}
