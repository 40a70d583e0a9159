use clap::Args;
use pi_context::history::{HistoryError, SearchParams};
use pi_context::wire::check_queries;

use super::{PageArgs, SessionArgs};
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Search event text for literal strings (case-insensitive; several queries are OR-ed).
/// Exits 1 when nothing matches
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The text to find; regex characters are literal
    #[arg(value_name = "QUERY", required = true)]
    queries: Vec<String>,
    #[command(flatten)]
    session: SessionArgs,
    #[command(flatten)]
    page: PageArgs,
}

pub fn run(args: SearchArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    // Refused before the session is read or a matcher is built.
    check_queries(&args.queries).map_err(|e| HistoryError::InvalidQuery(e.to_string()))?;
    let params = SearchParams {
        queries: args.queries,
        list: args.page.params()?,
    };
    let budget = args.session.max_bytes;
    // The raw bytes are scanned on another thread while the session loads and projects.
    let page = args
        .session
        .with_history(ui, vars, Some(&params.queries), |history, scan| {
            history.search_scanned(&params, budget, scan)
        })?;
    args.session.printer(ui).page(ui.out(), &page)?;
    Ok(if page.items.is_empty() {
        exit::NEGATIVE
    } else {
        exit::SUCCESS
    })
}
