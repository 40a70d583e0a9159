use clap::{ArgAction, Args};
use pi_context::notes::{edits_from_json, Edit, EditReceipt, EditRequest};

use super::{CommonArgs, OriginArg};
use crate::cli::error::{exit, CommandError, Kind};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Replace exact text in a note's body, relabel its origin, or crumple / smooth it.
///
/// Each --old/--new pair (or each object of --edits) replaces text that must occur exactly once
/// in the body (every occurrence with --replace-all). Edits apply in order, each to the result of
/// the previous one, and nothing is written unless all of them succeed. --crumple moves the note
/// to the wastebasket (hidden from list and search); --smooth brings it back. Prints a unified
/// diff of the change.
#[derive(Debug, Args)]
pub struct EditArgs {
    /// The note's address (see `pi-context notes --help`)
    #[arg(value_name = "ADDRESS")]
    address: String,
    /// Text to replace; pairs with the --new at the same position (repeatable)
    #[arg(long = "old", value_name = "TEXT", action = ArgAction::Append, allow_hyphen_values = true)]
    old: Vec<String>,
    /// The replacement for the --old at the same position (repeatable; may be empty)
    #[arg(long = "new", value_name = "TEXT", action = ArgAction::Append, allow_hyphen_values = true)]
    new: Vec<String>,
    /// Edits as JSON, as Pi's edit tool takes them: '[{"oldText":"a","newText":"b"}]'
    #[arg(long, value_name = "JSON", conflicts_with_all = ["old", "new"])]
    edits: Option<String>,
    /// Replace every occurrence of each old text instead of requiring exactly one
    #[arg(long)]
    replace_all: bool,
    /// Relabel who the content comes from
    #[arg(long, value_enum, value_name = "ORIGIN")]
    origin: Option<OriginArg>,
    /// Move the note to the wastebasket (keeps the first crumple time)
    #[arg(long, conflicts_with = "smooth")]
    crumple: bool,
    /// Take the note out of the wastebasket
    #[arg(long)]
    smooth: bool,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: EditArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let request = EditRequest {
        edits: edits(&args)?,
        origin: args.origin.map(Into::into),
        crumpled: match (args.crumple, args.smooth) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
        replace_all: args.replace_all,
        // The command line prints the whole diff (its search is still bounded in time).
        diff_max_bytes: None,
    };
    let env = args.common.environment(vars)?;
    let store = args.common.store(&env, ui)?;
    let result = store.edit(&args.address, &request)?;
    let receipt = EditReceipt::of(&result, usize::MAX)?;
    args.common.printer(ui, &env).edited(ui.out(), &receipt)?;
    super::warn_unrecorded(ui, &result.history);
    Ok(exit::SUCCESS)
}

fn edits(args: &EditArgs) -> Result<Vec<Edit>, CommandError> {
    if let Some(json) = &args.edits {
        return edits_from_argument(json);
    }
    if args.old.len() != args.new.len() {
        return Err(CommandError::usage(format!(
            "{} --old but {} --new: give them in pairs",
            args.old.len(),
            args.new.len()
        ))
        .with_hint("use --new '' to delete the old text"));
    }
    Ok(args
        .old
        .iter()
        .zip(&args.new)
        .map(|(old, new)| Edit {
            old_text: old.clone(),
            new_text: new.clone(),
        })
        .collect())
}

fn edits_from_argument(json: &str) -> Result<Vec<Edit>, CommandError> {
    let shape_error = |cause: crate::cli::error::BoxError| {
        CommandError::caused(
            Kind::Usage,
            r#"--edits must be a JSON array of {"oldText": …, "newText": …} objects"#,
            cause,
        )
    };
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| shape_error(e.into()))?;
    edits_from_json(&value).map_err(|e| shape_error(e.into()))
}
