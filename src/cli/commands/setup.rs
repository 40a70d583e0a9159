//! `pi-context setup <agent> [--dry-run | --remove | --status]`: the MCP server and the hooks
//! installed into Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, Cursor or OpenCode
//! (docs/agents.md): args → the agent's [`Target`] from the environment → `pi_context::setup`
//! plans → shown, applied or reported.

use std::path::PathBuf;

use clap::Args;
use pi_context::environment::{Environment, Inputs, Vars};
use pi_context::session::Harness;
use pi_context::setup::{self, Plan, Status, Target};

use crate::cli::error::{exit, CommandError, Kind};
use crate::cli::ui::Ui;

/// Install pi-context into an agent: its MCP server and the hooks that push the boot, the
/// recall hint and the way back after a compaction (docs/agents.md)
#[derive(Debug, Args)]
pub struct SetupArgs {
    /// The agent: claude, codex, gemini, copilot, cursor or opencode (every agent with --status when left out)
    #[arg(value_name = "AGENT", value_parser = agent_parser(), required_unless_present = "status")]
    agent: Option<Harness>,
    /// Show what would change, as a diff, and change nothing
    #[arg(long, conflicts_with_all = ["remove", "status"])]
    dry_run: bool,
    /// Take out exactly what a setup adds (the user's own entries stay)
    #[arg(long, conflicts_with = "status")]
    remove: bool,
    /// Show what is installed, whether the binary the hooks name is there and is this version,
    /// and how each hook last ran
    #[arg(long)]
    status: bool,
    /// With --status: print JSON
    #[arg(long, requires = "status")]
    json: bool,
}

/// The agents `setup` knows: those with hooks.
fn agent_parser() -> impl clap::builder::TypedValueParser<Value = Harness> {
    let names: Vec<&'static str> = Harness::ALL
        .into_iter()
        .filter(|h| h.agent_facts().is_some())
        .map(Harness::as_str)
        .collect();
    clap::builder::TypedValueParser::try_map(
        clap::builder::PossibleValuesParser::new(names),
        |name| name.parse::<Harness>(),
    )
}

pub fn run(args: SetupArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = Environment::resolve(Inputs::default(), vars)?;
    let agents: Vec<Harness> = match args.agent {
        Some(agent) => vec![agent],
        None => Harness::ALL
            .into_iter()
            .filter(|h| h.agent_facts().is_some())
            .collect(),
    };
    if args.status {
        return status(&env, &agents, args.json, ui);
    }
    let target = target(&env, agents[0])?;
    let plan = if args.remove {
        setup::plan_remove(&target)
    } else {
        setup::plan_install(&target)
    }
    .map_err(setup_error)?;
    if args.dry_run {
        write!(ui.out(), "{}", plan.diff())?;
        print_notes(ui, &plan)?;
        return Ok(exit::SUCCESS);
    }
    if !plan.changes() {
        let what = if args.remove {
            "nothing of pi-context's to remove"
        } else {
            "already set up: nothing changed"
        };
        writeln!(ui.out(), "{} {what}", target.agent.label())?;
        print_notes(ui, &plan)?;
        return Ok(exit::SUCCESS);
    }
    setup::apply(&plan).map_err(setup_error)?;
    for file in plan.files.iter().filter(|f| f.changes()) {
        let did = match (&file.before, &file.after) {
            (_, None) => "removed",
            (None, Some(_)) => "created",
            (Some(_), Some(_)) => "updated",
        };
        writeln!(ui.out(), "{did} {}", file.path.display())?;
    }
    for command in &plan.commands {
        writeln!(ui.out(), "ran {}", command.join(" "))?;
    }
    print_notes(ui, &plan)?;
    Ok(exit::SUCCESS)
}

fn print_notes(ui: &mut Ui, plan: &Plan) -> Result<(), CommandError> {
    for note in &plan.notes {
        writeln!(ui.out(), "note: {note}")?;
    }
    Ok(())
}

/// The agent's configuration as this environment finds it, and this binary by its absolute
/// path (a launcher that moves is then seen by `--status`, not silently broken).
fn target(env: &Environment, agent: Harness) -> Result<Target, CommandError> {
    let (config_dir, config_dir_from_env) = env.agent_config_dir(agent).ok_or_else(|| {
        CommandError::new(
            Kind::Io,
            format!("no configuration directory for {}: set HOME", agent.label()),
        )
    })?;
    let binary = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| CommandError::io("cannot find this binary's path", e))?;
    let agent_command = agent
        .agent_facts()
        .filter(|f| f.config == pi_context::session::AgentConfig::Claude)
        .and_then(|_| on_path(env, "claude"));
    Ok(Target {
        agent,
        binary,
        config_dir,
        home: env.user_home.clone().unwrap_or_default(),
        config_dir_from_env,
        agent_command,
        forwarded_vars: Environment::documented_vars(),
    })
}

/// A program on `PATH`, by name.
fn on_path(env: &Environment, name: &str) -> Option<PathBuf> {
    let path = env.program_path()?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn status(
    env: &Environment,
    agents: &[Harness],
    json: bool,
    ui: &mut Ui,
) -> Result<u8, CommandError> {
    let cache = env.cache_dir();
    let mut all: Vec<Status> = Vec::new();
    for agent in agents {
        let target = target(env, *agent)?;
        all.push(setup::status(&target, cache.as_deref()).map_err(setup_error)?);
    }
    if json {
        writeln!(ui.out(), "{}", serde_json::json!({ "agents": all }))?;
        return Ok(exit::SUCCESS);
    }
    for status in &all {
        write!(ui.out(), "{}", human_status(status))?;
    }
    Ok(exit::SUCCESS)
}

fn human_status(status: &Status) -> String {
    let mut out = format!("{}\n", status.agent.label());
    let mcp = if status.mcp.registered {
        format!(
            "registered ({}){}",
            status.mcp.command.as_deref().unwrap_or("?"),
            match status.mcp.binary_present {
                Some(false) => ": its binary is missing",
                _ => "",
            }
        )
    } else {
        "not registered".to_string()
    };
    out.push_str(&format!(
        "  MCP server pi-context: {mcp} in {}\n",
        status.mcp.file.display()
    ));
    for hook in &status.hooks {
        let mut line = format!("  hook {}: ", hook.event);
        if !hook.installed {
            line.push_str("not installed");
        } else {
            line.push_str("installed");
            match hook.binary_present {
                Some(false) => line.push_str(", its binary is missing"),
                _ => {
                    if hook.current_version == Some(false) {
                        line.push_str(&format!(
                            ", its binary is another version ({})",
                            hook.binary_version.as_deref().unwrap_or("?")
                        ));
                    }
                }
            }
            if hook.trusted == Some(false) {
                line.push_str(", not trusted (the agent will not run it)");
            }
        }
        match &hook.last_run {
            Some(run) => line.push_str(&format!(
                "; last ran {} ({}: {}, {} ms)",
                run.at, run.outcome, run.detail, run.millis
            )),
            None if hook.installed => line.push_str("; never ran"),
            None => {}
        }
        out.push_str(&line);
        out.push('\n');
    }
    for note in &status.notes {
        out.push_str(&format!("  note: {note}\n"));
    }
    out
}

/// A setup error's kind: a file that cannot be parsed or shaped is an environment failure
/// (74), nothing written.
fn setup_error(error: setup::SetupError) -> CommandError {
    let kind = match &error {
        setup::SetupError::NotAnAgent { .. } => Kind::Usage,
        setup::SetupError::Command { .. } => Kind::Failed,
        setup::SetupError::Parse { .. }
        | setup::SetupError::Shape { .. }
        | setup::SetupError::Read { .. }
        | setup::SetupError::Write { .. } => Kind::Io,
    };
    CommandError::new(kind, error)
}
