//! `pi-context sessions list|search|index`: every past session, ranked full-text recall.

mod index;
mod list;
mod search;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueHint};
use pi_context::recall::{self, Harness, Recall, Root, Scope};

use crate::cli::error::CommandError;
use crate::cli::printer::{self, SessionsPrinter};
use crate::cli::ui::Ui;
use pi_context::environment::{self, Environment, Inputs, Vars};

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
    #[command(flatten)]
    dirs: DirArgs,
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
                roots: self.dirs.roots.clone(),
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

/// `--<harness>-dir DIR` of every harness (`--sessions-dir` for Pi's, `--claude-dir`, …),
/// repeatable: the session roots a command names. One flag per harness, made from the harness
/// table, so a new harness brings its flag with it.
#[derive(Debug, Clone, Default)]
pub struct DirArgs {
    roots: Vec<Root>,
}

impl clap::FromArgMatches for DirArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let roots = Harness::ALL
            .into_iter()
            .flat_map(|harness| {
                matches
                    .get_many::<PathBuf>(harness.dir_flag())
                    .into_iter()
                    .flatten()
                    .map(move |dir| Root::new(harness, dir))
            })
            .collect();
        Ok(DirArgs { roots })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = DirArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for DirArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        Harness::ALL.into_iter().fold(cmd, |cmd, harness| {
            cmd.arg(
                clap::Arg::new(harness.dir_flag())
                    .long(harness.dir_flag())
                    .value_name("DIR")
                    .value_hint(ValueHint::DirPath)
                    .value_parser(clap::value_parser!(PathBuf))
                    .action(clap::ArgAction::Append)
                    .help(format!(
                        "Look for {} sessions in this {} (repeatable); any such flag names the only places looked in [default: {}]",
                        harness.label(),
                        harness.dir_help(),
                        environment::default_roots_help(harness)
                    )),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        DirArgs::augment_args(cmd)
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
