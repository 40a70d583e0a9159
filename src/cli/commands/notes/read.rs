use clap::Args;
use pi_context::notes::read_window;
use pi_context::wire::RESULT_BUDGET_BYTES;

use super::CommonArgs;
use crate::cli::commands::WindowArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Read a window of a note's body as a READ WINDOW; follow `next_offset_chars` for more.
///
/// Offsets count Unicode code points of the body (search prints them). Reading records an
/// access: it updates the note's lastAccessed and accessCount.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The note's address (see `pi-context notes --help`)
    #[arg(value_name = "ADDRESS")]
    address: String,
    #[command(flatten)]
    window: WindowArgs,
    /// The window's budget in UTF-8 bytes, as for a tool result
    #[arg(long, value_name = "BYTES", default_value_t = RESULT_BUDGET_BYTES)]
    max_bytes: usize,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: ReadArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.common.environment(vars)?;
    let store = args.common.store(&env, ui)?;
    let note = store.read(&args.address)?;
    let window = read_window(
        &note,
        args.window.offset_chars,
        args.window.limit_chars as usize,
        args.max_bytes,
    )?;
    args.common.printer(ui, &env).read(ui.out(), &window)?;
    Ok(exit::SUCCESS)
}
