use clap::Args;
use pi_context::notes::MoveReceipt;

use super::CommonArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Move a note to another address, atomically.
///
/// The note keeps its creation time, origin, access counts and any frontmatter lines you added by
/// hand; its update time moves to now. A crumpled note at the target is replaced; a live one is
/// refused (crumple it first, or pick another address). Both homes must be writable.
#[derive(Debug, Args)]
pub struct MoveArgs {
    /// The note's address now, e.g. `plan` or `@project/old-name`
    #[arg(value_name = "FROM")]
    from: String,
    /// Its new address, e.g. `@project/decisions/cache`
    #[arg(value_name = "TO")]
    to: String,
    /// FROM and TO are note files below the notes home (`human/a.md`, `project/<key>/b.md`),
    /// as the dreamer names them
    #[arg(long)]
    files: bool,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: MoveArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.common.environment(vars)?;
    let store = args.common.store(&env, ui)?;
    let result = if args.files {
        store.move_files(&args.from, &args.to)?
    } else {
        store.move_note(&args.from, &args.to)?
    };
    args.common
        .printer(ui, &env)
        .moved(ui.out(), &MoveReceipt::of(&result))?;
    super::warn_unrecorded(ui, &result.history);
    Ok(exit::SUCCESS)
}
