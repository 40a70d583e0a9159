//! `pi-context boot`: renders the boot block for a fresh context window.

use clap::Args;

use crate::cli::error::{CommandError, Outcome};
use crate::cli::ui::Ui;

/// Render the boot block for a fresh context window from a JSON description on stdin.
#[derive(Debug, Args)]
pub struct BootArgs {}

pub fn run(_args: BootArgs, _ui: &mut Ui) -> Result<u8, Outcome> {
    Err(CommandError::not_implemented("pi-context boot").into())
}
