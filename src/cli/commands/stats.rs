//! `pi-context stats [--since DUR] [--json]`: how the memory was used, per agent, read from the
//! transcripts (docs/agents.md, "Is it helping?").

use clap::Args;
use pi_context::environment::{Environment, Inputs, Vars};
use pi_context::push::stats;

use crate::cli::error::{exit, CommandError};
use crate::cli::ui::Ui;

/// How the memory was used, per agent: sessions, boot blocks and hints pushed, hints followed,
/// bytes pushed, pi-context tool calls (read from the transcripts)
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Only sessions updated this recently: 30m, 12h, 7d, 4w or an RFC 3339 date; `all` for
    /// every session
    #[arg(long, value_name = "DUR", default_value = "30d")]
    since: String,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: StatsArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = Environment::resolve(Inputs::default(), vars)?;
    let since_ms = match args.since.as_str() {
        "all" => None,
        since => Some(pi_context::recall::parse_since(
            since,
            env.clock.now().as_millisecond(),
        )?),
    };
    let stats = stats::stats(&env, since_ms).map_err(push_error)?;
    if args.json {
        writeln!(
            ui.out(),
            "{}",
            serde_json::to_string(&stats).expect("stats serialize")
        )?;
        return Ok(exit::SUCCESS);
    }
    let since = stats.since.as_deref().unwrap_or("the first session");
    writeln!(ui.out(), "since {since}")?;
    if stats.agents.is_empty() {
        writeln!(ui.out(), "no sessions")?;
    }
    for agent in &stats.agents {
        writeln!(
            ui.out(),
            "{}: {} sessions, {} boots, {} hints ({} followed), {} compactions, {} bytes pushed",
            agent.agent,
            agent.sessions,
            agent.boots,
            agent.hints,
            agent.hints_followed,
            agent.compactions,
            agent.bytes_pushed
        )?;
        if !agent.tool_calls.is_empty() {
            let calls: Vec<String> = agent
                .tool_calls
                .iter()
                .map(|(tool, n)| format!("{tool} ×{n}"))
                .collect();
            writeln!(ui.out(), "  tool calls: {}", calls.join(", "))?;
        }
    }
    if stats.unreadable > 0 {
        eprintln!("note: {} session files could not be read", stats.unreadable);
    }
    Ok(exit::SUCCESS)
}

fn push_error(error: pi_context::push::PushError) -> CommandError {
    use pi_context::push::PushError;
    match error {
        PushError::Recall(e) => e.into(),
        PushError::Environment(e) => e.into(),
        other => CommandError::new(crate::cli::error::Kind::Io, other),
    }
}
