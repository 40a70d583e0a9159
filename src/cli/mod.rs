//! The command line: clap definitions, dispatch, and the `dream` argv[0] alias.
//!
//! Each subcommand (or group) lives in its own module under `commands/` with an `Args` struct and
//! a `run` function; printers live under `printer/`; the tool protocol under `protocol/`.

mod commands;
mod error;
mod mcp;
mod printer;
mod protocol;
mod ui;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use error::{exit, CommandError, Kind};
use pi_context::environment::Vars;
use ui::{ColorChoice, Ui};

/// Durable memory for coding agents: the history of Pi, Claude Code and Codex sessions, notes,
/// and dreams.
#[derive(Debug, Parser)]
#[command(name = "pi-context", version, about)]
pub struct Cli {
    /// When to color human output
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    color: ColorChoice,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    History(commands::history::HistoryArgs),
    Notes(commands::notes::NotesArgs),
    Sessions(commands::sessions::SessionsArgs),
    Dream(commands::dream::DreamArgs),
    Mcp(commands::mcp::McpArgs),
    Hook(commands::hook::HookArgs),
    Setup(commands::setup::SetupArgs),
    Stats(commands::stats::StatsArgs),
    Boot(commands::boot::BootArgs),
    Checkpoint(commands::checkpoint::CheckpointArgs),
    Tool(commands::tool::ToolArgs),
    Completions(commands::completions::CompletionsArgs),
    Man(commands::man::ManArgs),
}

/// The clap definition, for parsing, completions and the man page; `--help` and the man page
/// end with the environment variables and the exit statuses, each from its one declaration.
pub fn command() -> clap::Command {
    Cli::command().after_long_help(format!(
        "{}\n{}",
        pi_context::environment::vars::help(),
        error::exit_status_help()
    ))
}

fn parse(args: Vec<std::ffi::OsString>) -> Result<Cli, clap::Error> {
    let matches = command().try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

pub fn main() -> ExitCode {
    let args = effective_args(std::env::args_os());
    // An agent's hook fails open: never a usage error (exit 2 drops Claude Code's prompt).
    if args.get(1).is_some_and(|a| a == "hook") {
        return commands::hook::run_raw(&args[2..]);
    }
    let cli = match parse(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            let code = if e.use_stderr() {
                Kind::Usage.exit()
            } else {
                exit::SUCCESS
            };
            return ExitCode::from(code);
        }
    };
    let vars = Vars::capture();
    let mut ui = Ui::new(cli.color, &vars);
    let stderr_color = ui.stderr_color;
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        dispatch(cli.command, &mut ui, &vars).and_then(|code| {
            ui.flush()?;
            Ok(code)
        })
    }));
    let outcome = ran.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        Err(CommandError::new(
            Kind::Internal,
            format!("internal error: {what}"),
        ))
    });
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.kind() == Kind::BrokenPipe => ExitCode::from(e.exit()),
        Err(e) => {
            let _ = ui.flush();
            e.print(&mut std::io::stderr(), stderr_color);
            ExitCode::from(e.exit())
        }
    }
}

fn dispatch(command: Command, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    match command {
        Command::History(args) => commands::history::run(args, ui, vars),
        Command::Notes(args) => commands::notes::run(args, ui, vars),
        Command::Sessions(args) => commands::sessions::run(args, ui, vars),
        Command::Dream(args) => commands::dream::run(args, ui, vars),
        Command::Mcp(args) => commands::mcp::run(args, ui, vars),
        Command::Setup(args) => commands::setup::run(args, ui, vars),
        Command::Stats(args) => commands::stats::run(args, ui, vars),
        // `main` runs hooks before clap parses anything (they must never exit 2).
        Command::Hook(args) => {
            let mut raw = vec![OsString::from(args.agent()), OsString::from(args.event())];
            raw.extend(args.rest().iter().map(OsString::from));
            commands::hook::run_raw(&raw);
            Ok(exit::SUCCESS)
        }
        Command::Boot(args) => commands::boot::run(args, ui, vars),
        Command::Checkpoint(args) => commands::checkpoint::run(args, ui, vars),
        Command::Tool(args) => commands::tool::run(args, ui, vars),
        Command::Completions(args) => commands::completions::run(args, ui, vars),
        Command::Man(args) => commands::man::run(args, ui, vars),
    }
}

/// Invoked as `dream` (a link named `dream`), the program behaves as `pi-context dream …`.
fn effective_args(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.collect();
    let invoked_as = args.first().and_then(|a| {
        std::path::Path::new(a)
            .file_stem()
            .map(|s| s.to_os_string())
    });
    if invoked_as.as_deref() == Some(std::ffi::OsStr::new("dream")) {
        args[0] = OsString::from("pi-context");
        args.insert(1, OsString::from("dream"));
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn dream_alias_inserts_the_subcommand() {
        let args = effective_args(
            ["/usr/local/bin/dream", "doctor"]
                .map(OsString::from)
                .into_iter(),
        );
        assert_eq!(args, ["pi-context", "dream", "doctor"].map(OsString::from));
        let args = effective_args(["pi-context", "man"].map(OsString::from).into_iter());
        assert_eq!(args, ["pi-context", "man"].map(OsString::from));
    }
}
