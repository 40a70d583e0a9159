//! `pi-context history windows|list|read|search`: read a session's current branch (Pi, Claude
//! Code or Codex).

mod list;
mod read;
mod search;
mod windows;

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueHint};
use pi_context::history::{
    with_history, Branch, History, HistoryError, Leaf, ListParams, RawScan, Role, SessionInput,
};
use pi_context::wire::{DEFAULT_PAGE_LIMIT, DEFAULT_PREVIEW_CHARS, RESULT_BUDGET_BYTES};

use crate::cli::error::CommandError;
use crate::cli::printer::{self, HistoryPrinter};
use crate::cli::ui::Ui;
use pi_context::environment::{Environment, Inputs, Vars};
use pi_context::redact::Masking;

/// Read a session of any agent pi-context reads (Pi, Claude Code, Codex, Gemini CLI, GitHub Copilot
/// CLI, Cursor, OpenCode): context windows, events, full text, search.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(subcommand)]
    command: HistoryCommand,
}

#[derive(Debug, Subcommand)]
enum HistoryCommand {
    Windows(windows::WindowsArgs),
    List(list::ListArgs),
    Read(read::ReadArgs),
    Search(search::SearchArgs),
}

pub fn run(args: HistoryArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    match args.command {
        HistoryCommand::Windows(args) => windows::run(args, ui, vars),
        HistoryCommand::List(args) => list::run(args, ui, vars),
        HistoryCommand::Read(args) => read::run(args, ui, vars),
        HistoryCommand::Search(args) => search::run(args, ui, vars),
    }
}

/// Which session and branch to read, and how to print.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// The session file of any agent read (a missing file is an empty session), or a session id
    /// or unique prefix of at least 8 characters, found under every agent's session dirs
    #[arg(long, short = 's', value_name = "FILE|ID", value_hint = ValueHint::FilePath)]
    session: PathBuf,
    /// The entry id that ends the branch, or `none` for an empty branch [default: the last entry]
    #[arg(long, value_name = "ID")]
    leaf: Option<String>,
    /// The session id naming the root window when the file has no header id
    /// [env: PI_CONTEXT_SESSION_ID]
    #[arg(long, value_name = "ID")]
    session_id: Option<String>,
    /// The result budget in UTF-8 bytes, as for a tool result
    #[arg(long, value_name = "BYTES", default_value_t = RESULT_BUDGET_BYTES)]
    max_bytes: usize,
    /// Print JSON (the tool protocol's result object) instead of text
    #[arg(long)]
    json: bool,
    /// Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those
    /// of the exact text
    #[arg(long)]
    redact: bool,
}

impl SessionArgs {
    /// Runs `op` on the session's branch, read consistently (see [`with_history`]); with
    /// `scan_for`, the raw bytes are scanned for those queries while the session loads. When
    /// the path names no file, a note (or the error's hint) says so: the session reads as empty,
    /// as Pi's lazily created files do, and so does a mistyped path.
    fn with_history<T>(
        &self,
        ui: &mut Ui,
        vars: &Vars,
        scan_for: Option<&[String]>,
        op: impl FnMut(&History, Option<&RawScan>) -> Result<T, HistoryError>,
    ) -> Result<T, CommandError> {
        let env = Environment::resolve(
            Inputs {
                session_id: self.session_id.clone(),
                ..Inputs::default()
            },
            vars,
        )?;
        let options = env.session_open_options();
        let path = self.path(&env)?;
        let input = SessionInput::File {
            path: &path,
            options: &options,
        };
        let branch = Branch {
            leaf: &Leaf::from_wire(self.leaf.as_deref()),
            session_id: env.session_id.as_deref(),
            masking: if self.redact {
                Masking::On
            } else {
                Masking::Off
            },
        };
        let result = with_history(input, branch, scan_for, op);
        let no_file = no_file_at(&path);
        match (result, no_file) {
            (Ok(value), Some(note)) => {
                ui.note(&note);
                Ok(value)
            }
            (Ok(value), None) => Ok(value),
            (Err(e), Some(note)) => Err(CommandError::from(e).with_hint(note)),
            (Err(e), None) => Err(e.into()),
        }
    }

    fn path(&self, env: &Environment) -> Result<PathBuf, CommandError> {
        super::session_file(&self.session, env)
    }

    fn printer(&self, ui: &Ui) -> Box<dyn HistoryPrinter> {
        printer::history(self.json, ui.color)
    }
}

/// What to tell when `path` names no file (checked after the read, so a file Pi created
/// meanwhile is not reported missing).
fn no_file_at(path: &Path) -> Option<String> {
    let missing =
        matches!(std::fs::metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
    missing.then(|| {
        format!(
            "no file at {} (Pi creates a session file lazily, so it reads as empty)",
            path.display()
        )
    })
}

/// `--role ROLE`: one of the four history roles, parsed by [`Role`]'s `FromStr`.
pub fn role_parser() -> impl clap::builder::TypedValueParser<Value = Role> {
    clap::builder::TypedValueParser::try_map(
        clap::builder::PossibleValuesParser::new(Role::NAMES),
        |name| name.parse::<Role>(),
    )
}

/// Page selection shared by `list` and `search`.
#[derive(Debug, Args)]
struct PageArgs {
    /// Rows per page (fold rows are extra)
    #[arg(long, short = 'n', value_name = "N", default_value_t = DEFAULT_PAGE_LIMIT)]
    limit: usize,
    /// Only these roles (repeatable); without it, `list` shows the conversation view
    #[arg(long = "role", short = 'r', value_name = "ROLE", value_parser = role_parser())]
    roles: Vec<Role>,
    /// Only events with a seq below this (exclusive); page older with the printed `older_before`
    #[arg(long, value_name = "SEQ", value_parser = clap::value_parser!(u64).range(1..))]
    before: Option<u64>,
    /// Only events with a seq above this (exclusive); page newer with the printed `newer_after`
    #[arg(long, value_name = "SEQ", value_parser = clap::value_parser!(u64).range(1..))]
    after: Option<u64>,
    /// Only events of this context window
    #[arg(long = "window", value_name = "WINDOW_ID")]
    window_id: Option<String>,
    /// Code points of preview per row
    #[arg(long = "max-chars", value_name = "N", default_value_t = DEFAULT_PREVIEW_CHARS as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_chars_per_item: u64,
}

impl PageArgs {
    fn params(&self) -> Result<ListParams, CommandError> {
        if self.limit == 0 {
            return Err(CommandError::usage("--limit must be at least 1"));
        }
        Ok(ListParams {
            limit: self.limit,
            roles: (!self.roles.is_empty()).then(|| self.roles.clone()),
            before: self.before,
            after: self.after,
            window_id: self.window_id.clone(),
            max_chars_per_item: self.max_chars_per_item as usize,
        })
    }
}
