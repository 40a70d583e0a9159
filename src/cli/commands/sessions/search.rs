use clap::{Args, ValueEnum};
use pi_context::recall::{SearchParams, DEFAULT_HITS, DEFAULT_PREVIEW_CHARS, DEFAULT_SEARCH_LIMIT};

use super::{RootArgs, ScopeArgs};
use crate::cli::commands::history::role_parser;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::{Progress, Ui};
use pi_context::environment::Vars;
use pi_context::history::Role;

/// Search every past session by words; "quoted text" is a phrase, several QUERY arguments are
/// alternatives (OR). Exits 1 when nothing matches
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words to find (case and accents ignored); punctuation and query syntax are plain text
    #[arg(value_name = "QUERY", required = true)]
    queries: Vec<String>,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Only events of this role (repeatable)
    #[arg(long = "role", short = 'r', value_name = "ROLE", value_parser = role_parser())]
    roles: Vec<Role>,
    /// `current`: each session's default branch; `all`: abandoned branches too
    #[arg(long, value_enum, default_value_t = Branches::Current)]
    branches: Branches,
    /// At most this many sessions
    #[arg(long, short = 'n', value_name = "N", default_value_t = DEFAULT_SEARCH_LIMIT,
          value_parser = clap::builder::TypedValueParser::map(clap::value_parser!(u64).range(1..), |n| n as usize))]
    limit: usize,
    /// At most this many hits per session
    #[arg(long, value_name = "N", default_value_t = DEFAULT_HITS,
          value_parser = clap::builder::TypedValueParser::map(clap::value_parser!(u64).range(1..), |n| n as usize))]
    hits: usize,
    /// Code points of preview per hit
    #[arg(long = "max-chars", value_name = "N", default_value_t = DEFAULT_PREVIEW_CHARS,
          value_parser = clap::builder::TypedValueParser::map(clap::value_parser!(u64).range(1..), |n| n as usize))]
    max_chars: usize,
    #[command(flatten)]
    roots: RootArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Branches {
    Current,
    All,
}

pub fn run(args: SearchArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.roots.environment(vars, args.scope.cwd.clone())?;
    let recall = args.roots.recall(&env)?;
    let params = SearchParams {
        queries: args.queries,
        scope: args.scope.scope(&env),
        since_ms: args.scope.since_ms(&recall)?,
        roles: (!args.roles.is_empty()).then_some(args.roles),
        all_branches: args.branches == Branches::All,
        limit: args.limit,
        hits: args.hits,
        preview_chars: args.max_chars,
    };
    let mut progress = Progress::on_terminal(true).bars_from(super::index::SEARCH_BAR_MIN_BYTES);
    let result = recall.search_with_progress(&params, Some(&mut progress))?;
    args.roots.printer(ui).search(ui.out(), &result)?;
    Ok(if result.sessions.is_empty() {
        exit::NEGATIVE
    } else {
        exit::SUCCESS
    })
}
