//! `pi-context sessions list|search|index`: every past session, ranked full-text recall.

mod index;
mod list;
mod search;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueHint};
use pi_context::recall::{self, Harness, Recall, Scope};

use crate::cli::error::CommandError;
use crate::cli::printer::{self, SessionsPrinter};
use crate::cli::ui::Ui;
use pi_context::environment::{Environment, Inputs, Vars};

/// Find and search every past session of Pi, Claude Code and Codex: list, ranked search, index.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    command: SessionsCommand,
}

#[derive(Debug, Subcommand)]
enum SessionsCommand {
    List(list::ListArgs),
    Search(search::SearchArgs),
    Index(index::IndexArgs),
}

pub fn run(
    args: SessionsArgs,
    ui: &mut Ui,
    vars: &Vars,
) -> Result<u8, crate::cli::error::CommandError> {
    match args.command {
        SessionsCommand::List(args) => list::run(args, ui, vars),
        SessionsCommand::Search(args) => search::run(args, ui, vars),
        SessionsCommand::Index(args) => index::run(args, ui, vars),
    }
}

/// Where sessions are and how to print.
#[derive(Debug, Args)]
pub struct RootArgs {
    /// Look for Pi sessions in this directory (repeatable); any root flag names the only
    /// places looked in [default: Pi's, Claude Code's and Codex's session dirs]
    #[arg(long = "sessions-dir", value_name = "DIR", value_hint = ValueHint::DirPath)]
    sessions_dirs: Vec<PathBuf>,
    /// Look for Claude Code sessions in this `projects` directory (repeatable)
    /// [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]
    #[arg(long = "claude-dir", value_name = "DIR", value_hint = ValueHint::DirPath)]
    claude_dirs: Vec<PathBuf>,
    /// Look for Codex sessions in this Codex home (repeatable) [default: $CODEX_HOME, else
    /// ~/.codex]
    #[arg(long = "codex-dir", value_name = "DIR", value_hint = ValueHint::DirPath)]
    codex_dirs: Vec<PathBuf>,
    /// Only the sessions of this agent (repeatable)
    #[arg(long = "harness", value_name = "HARNESS", value_parser = harness_parser())]
    harnesses: Vec<Harness>,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

impl RootArgs {
    /// The environment of a sessions command: its session roots, and the project of `cwd`.
    fn environment(&self, vars: &Vars, cwd: Option<PathBuf>) -> Result<Environment, CommandError> {
        Ok(Environment::resolve(
            Inputs {
                sessions_dirs: self.sessions_dirs.clone(),
                claude_dirs: self.claude_dirs.clone(),
                codex_dirs: self.codex_dirs.clone(),
                cwd,
                ..Inputs::default()
            },
            vars,
        )?)
    }

    /// The recall of a command, which exits once it has printed its answer.
    fn recall(&self, env: &Environment) -> Result<Recall, CommandError> {
        Ok(env.recall()?.only(&self.harnesses).for_one_answer())
    }

    fn printer(&self, ui: &Ui) -> Box<dyn SessionsPrinter> {
        printer::sessions(self.json, ui.color)
    }
}

/// `--harness NAME`: `pi`, `claude` or `codex`.
fn harness_parser() -> impl clap::builder::TypedValueParser<Value = Harness> {
    clap::builder::TypedValueParser::try_map(
        clap::builder::PossibleValuesParser::new(Harness::NAMES),
        |name| name.parse::<Harness>(),
    )
}

/// Which sessions: the current project (default), another project, or all.
#[derive(Debug, Args)]
pub struct ScopeArgs {
    /// Every project's sessions (the current project's rank higher)
    #[arg(long, conflicts_with_all = ["project_key", "cwd"])]
    all: bool,
    /// The sessions of this project key
    #[arg(long, value_name = "KEY", conflicts_with = "cwd")]
    project_key: Option<String>,
    /// The sessions of the project holding this directory [default: the current directory]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub cwd: Option<PathBuf>,
    /// Only what happened this recently: 30m, 12h, 7d, 4w, or an RFC 3339 date
    #[arg(long, value_name = "DUR")]
    since: Option<String>,
}

impl ScopeArgs {
    fn scope(&self, env: &Environment) -> Scope {
        let current = || pi_context::project::project_key_of(&env.cwd);
        if self.all {
            Scope::All {
                current: Some(current()),
            }
        } else if let Some(key) = &self.project_key {
            Scope::Project(key.clone())
        } else {
            Scope::Project(current())
        }
    }

    fn since_ms(&self, recall: &Recall) -> Result<Option<i64>, CommandError> {
        self.since
            .as_deref()
            .map(|s| recall::parse_since(s, recall.now_ms))
            .transpose()
            .map_err(CommandError::from)
    }
}
