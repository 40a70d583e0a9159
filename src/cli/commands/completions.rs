//! `pi-context completions <shell>`: shell completions generated from the clap definition.

use clap::Args;
use clap_complete::Shell;

use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Print shell completions.
///
/// Install for bash with `pi-context completions bash > ~/.local/share/bash-completion/completions/pi-context`;
/// zsh: write `_pi-context` into a directory on `$fpath`; fish: `~/.config/fish/completions/pi-context.fish`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate completions for
    #[arg(value_enum)]
    shell: Shell,
}

pub fn run(args: CompletionsArgs, ui: &mut Ui, _vars: &Vars) -> Result<u8, CommandError> {
    let mut command = crate::cli::command();
    clap_complete::generate(args.shell, &mut command, "pi-context", ui.out());
    Ok(exit::SUCCESS)
}
