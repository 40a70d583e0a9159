//! `pi-context man`: the man page (roff) generated from the clap definition.

use clap::Args;

use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Print the man page (roff); e.g. `pi-context man > ~/.local/share/man/man1/pi-context.1`.
#[derive(Debug, Args)]
pub struct ManArgs {}

pub fn run(_args: ManArgs, ui: &mut Ui, _vars: &Vars) -> Result<u8, CommandError> {
    clap_mangen::Man::new(crate::cli::command()).render(ui.out())?;
    Ok(exit::SUCCESS)
}
