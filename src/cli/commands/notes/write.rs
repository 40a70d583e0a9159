use std::io::{IsTerminal, Read};

use clap::Args;
use pi_context::notes::WriteReceipt;

use super::{CommonArgs, OriginArg};
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Create or overwrite a note; the body comes from --content or stdin.
///
/// Overwriting keeps the note's creation time, access counts, origin (unless --origin is given)
/// and any frontmatter lines you added by hand, and takes a crumpled note out of the wastebasket.
/// A frontmatter block at the start of the content is dropped.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// The note's address, e.g. `plan`, `@project/decisions` (see `pi-context notes --help`)
    #[arg(value_name = "ADDRESS")]
    address: String,
    /// The whole body; without it, the body is read from stdin
    #[arg(long, short = 'c', value_name = "TEXT", allow_hyphen_values = true)]
    content: Option<String>,
    /// Who the content comes from [default: self for a new note, unchanged on overwrite]
    #[arg(long, value_enum, value_name = "ORIGIN")]
    origin: Option<OriginArg>,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: WriteArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let content = match args.content {
        Some(text) => text,
        None => read_stdin()?,
    };
    let env = args.common.environment(vars)?;
    let store = args.common.store(&env, ui)?;
    let result = store.write(&args.address, &content, args.origin.map(Into::into))?;
    args.common
        .printer(ui, &env)
        .written(ui.out(), &WriteReceipt::of(&result))?;
    super::warn_unrecorded(ui, &result.history);
    Ok(exit::SUCCESS)
}

fn read_stdin() -> Result<String, CommandError> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(CommandError::usage("no content given")
            .with_hint("pass --content TEXT, or pipe the body in: `echo text | pi-context notes write ADDRESS`"));
    }
    let mut bytes = Vec::new();
    stdin
        .read_to_end(&mut bytes)
        .map_err(|e| CommandError::io("cannot read the content from stdin", e))?;
    String::from_utf8(bytes)
        .map_err(|_| CommandError::usage("the content on stdin is not valid UTF-8"))
}
