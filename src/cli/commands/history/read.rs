use clap::Args;
use pi_context::history::ReadParams;

use super::SessionArgs;
use crate::cli::commands::WindowArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Read an event's full text as a READ WINDOW; follow `next_offset_chars` for more
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The event's seq (from list or search)
    #[arg(value_name = "SEQ", value_parser = clap::value_parser!(u64).range(1..))]
    seq: u64,
    #[command(flatten)]
    session: SessionArgs,
    #[command(flatten)]
    window: WindowArgs,
}

pub fn run(args: ReadArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let params = ReadParams {
        seq: args.seq,
        offset_chars: args.window.offset_chars,
        limit_chars: args.window.limit_chars as usize,
    };
    let budget = args.session.max_bytes;
    let (result, skipped_lines) = args.session.with_history(ui, vars, None, |history, _| {
        Ok((history.read(&params, budget)?, history.skipped_lines()))
    })?;
    args.session
        .printer(ui)
        .read(ui.out(), &result, skipped_lines)?;
    Ok(exit::SUCCESS)
}
