//! `pi-context notes write|edit|move|read|list|search|log|diff|restore|sync`: the five-home
//! markdown notes store.

mod diff;
mod edit;
mod list;
mod log;
mod r#move;
mod read;
mod restore;
mod search;
mod sync;
mod write;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum, ValueHint};
use pi_context::environment::{Environment, Inputs, Vars};
use pi_context::notes::migrate::Migration;
use pi_context::notes::{Origin, Recorded, Store};

use crate::cli::error::CommandError;
use crate::cli::printer::{self, NotesPrinter};
use crate::cli::ui::Ui;

const NOTES_HELP: &str = "\
Addresses:
  plan, todo/today          this session's notes (needs --session-id or PI_CONTEXT_SESSION_ID)
  @project/decisions        this project's notes (the git checkout of --cwd; worktrees share them)
  @human/preferences        notes for and about the human
  @self/lessons             the current agent's notes (--agent)
  @model/quirks             the current model's notes (--model)
  @agents/NAME/x            another agent's notes (read-only)
  @models/NAME/x            another model's notes (read-only)
  `.md` is added when missing. Notes are files under the notes home:
  human/, project/<key>/, agents/<agent>/, models/<model>/, pi/session/<id>/.

Patterns (list, search): a glob over addresses. * stays within a path segment, ** crosses
segments, ? is one character. `@project/**` reads only the project home, `**/MAP.md` finds MAP
notes in every default home, `@agents/*/**` reads every agent's home.

Examples:
  echo 'Use sqlite for the cache.' | pi-context notes write @project/decisions
  pi-context notes edit @project/decisions --old sqlite --new 'sqlite (WAL mode)'
  pi-context notes edit @project/decisions --crumple
  pi-context notes move plan @project/plan
  pi-context notes search cache --pattern '@project/**'
  pi-context notes read @project/decisions --offset -200
  pi-context notes sync --remote git@example.com:me/notes.git";

/// Read and write the five-home markdown notes store.
#[derive(Debug, Args)]
#[command(after_long_help = NOTES_HELP)]
pub struct NotesArgs {
    #[command(subcommand)]
    command: NotesCommand,
}

#[derive(Debug, Subcommand)]
enum NotesCommand {
    Write(write::WriteArgs),
    Edit(edit::EditArgs),
    Move(r#move::MoveArgs),
    Read(read::ReadArgs),
    List(list::ListArgs),
    Search(search::SearchArgs),
    Log(log::LogArgs),
    Diff(diff::DiffArgs),
    Restore(restore::RestoreArgs),
    Sync(sync::SyncArgs),
}

pub fn run(args: NotesArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    match args.command {
        NotesCommand::Write(args) => write::run(args, ui, vars),
        NotesCommand::Edit(args) => edit::run(args, ui, vars),
        NotesCommand::Move(args) => r#move::run(args, ui, vars),
        NotesCommand::Read(args) => read::run(args, ui, vars),
        NotesCommand::List(args) => list::run(args, ui, vars),
        NotesCommand::Search(args) => search::run(args, ui, vars),
        NotesCommand::Log(args) => log::run(args, ui, vars),
        NotesCommand::Diff(args) => diff::run(args, ui, vars),
        NotesCommand::Restore(args) => restore::run(args, ui, vars),
        NotesCommand::Sync(args) => sync::run(args, ui, vars),
    }
}

/// Who is asking, and how to print.
#[derive(Debug, Args)]
struct CommonArgs {
    // The environment variables are read by the library (empty means unset), not by clap, which
    // would refuse an empty value.
    /// The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    notes_home: Option<PathBuf>,
    /// The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]
    #[arg(long, value_name = "ID")]
    session_id: Option<String>,
    /// The project key for @project/ [default: derived from --cwd]
    #[arg(long, value_name = "KEY", conflicts_with = "cwd")]
    project_key: Option<String>,
    /// Derive the project key from this directory's git checkout [default: the current directory]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    cwd: Option<PathBuf>,
    /// The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL]
    /// [default: default]
    #[arg(long, value_name = "ID")]
    model: Option<String>,
    /// Print JSON (the tool protocol's result object) instead of text
    #[arg(long)]
    json: bool,
}

impl CommonArgs {
    /// The environment these flags and the process's variables resolve to.
    fn environment(&self, vars: &Vars) -> Result<Environment, CommandError> {
        Ok(Environment::resolve(
            Inputs {
                notes_home: self.notes_home.clone(),
                session_id: self.session_id.clone(),
                project_key: self.project_key.clone(),
                cwd: self.cwd.clone(),
                agent: self.agent.clone(),
                model: self.model.clone(),
                ..Inputs::default()
            },
            vars,
        )?)
    }

    /// The notes store, after the step that moves this project's notes to its key (said on
    /// stderr).
    fn store(&self, env: &Environment, ui: &mut Ui) -> Result<Store, CommandError> {
        report_migration(ui, env);
        Ok(env.notes_store()?)
    }

    fn printer(&self, ui: &Ui, env: &Environment) -> Box<dyn NotesPrinter> {
        printer::notes(self.json, ui.color, env.now())
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum OriginArg {
    /// The human said or wrote it
    User,
    /// You (the agent) wrote it
    #[value(name = "self")]
    Agent,
    /// It comes from elsewhere (a web page, a tool, another agent)
    External,
}

impl From<OriginArg> for Origin {
    fn from(o: OriginArg) -> Origin {
        match o {
            OriginArg::User => Origin::User,
            OriginArg::Agent => Origin::Agent,
            OriginArg::External => Origin::External,
        }
    }
}

/// A change that landed without its commit is said on stderr (the result stays the result).
fn warn_unrecorded(ui: &mut Ui, history: &Recorded) {
    if let Some(failure) = history.failure() {
        ui.warn(&failure);
    }
}

/// One line on stderr when this command moved the project's notes to its remote-based key, and
/// a warning for what it could not move.
fn report_migration(ui: &mut Ui, env: &Environment) {
    let Some(outcome) = env.migrate_project_notes() else {
        return;
    };
    let new_key = env.project_key();
    let old_key = env.project_keys().path_key.as_deref().unwrap_or_default();
    match outcome {
        Ok(migration) => {
            if let Some(line) = moved_line(migration) {
                ui.note(&line);
            }
            if let Some(line) = left_line(migration) {
                ui.warn(&line);
            }
            for history in &migration.history {
                warn_unrecorded(ui, history);
            }
        }
        Err(e) => ui.warn(&format!(
            "the @project notes under project/{old_key}/ were not moved to project/{new_key}/ (the project key now comes from its origin remote): {e}"
        )),
    }
}

fn moved_line(migration: &Migration) -> Option<String> {
    if migration.moved.is_empty() {
        return None;
    }
    let count = migration.moved.len();
    let mut line = format!(
        "moved {count} @project note{} from project/{}/ to project/{}/: the project key now comes from its origin remote",
        if count == 1 { "" } else { "s" },
        migration.from_key,
        migration.to_key
    );
    let beside: Vec<String> = migration
        .moved
        .iter()
        .filter(|m| m.kept_beside())
        .map(|m| format!("@project/{}", m.to))
        .collect();
    if !beside.is_empty() {
        line.push_str(&format!(
            "; kept beside a note already there: {}",
            beside.join(", ")
        ));
    }
    Some(line)
}

fn left_line(migration: &Migration) -> Option<String> {
    if migration.left.is_empty() {
        return None;
    }
    let notes: Vec<String> = migration
        .left
        .iter()
        .map(|left| format!("{} ({})", left.path, left.reason))
        .collect();
    Some(format!(
        "{} @project note{} stayed under project/{}/: {}",
        notes.len(),
        if notes.len() == 1 { "" } else { "s" },
        migration.from_key,
        notes.join("; ")
    ))
}
