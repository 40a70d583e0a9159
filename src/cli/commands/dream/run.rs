use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueHint};
use pi_context::dream::dreamer::DreamerObserver;
use pi_context::dream::gates::Gate;
use pi_context::dream::{
    self, DreamObserver, DreamOptions, DreamOutcome, DreamRequest, Interrupt, Status,
};
use pi_context::environment::{Inputs, Vars};

use crate::cli::error::{exit, CommandError, Kind};
use crate::cli::printer::{self, DreamView};
use crate::cli::ui::{Progress, Ui};

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    home: super::HomeArgs,
    /// Skip unless this many hours passed since the last run
    #[arg(long, value_name = "N", default_value_t = 24.0)]
    min_hours: f64,
    /// Skip unless this many sessions changed notes since the last run
    #[arg(long, value_name = "N", default_value_t = 3)]
    min_sessions: u64,
    /// Run even when the time or material gate says no (never bypasses the lock)
    #[arg(long)]
    force: bool,
    /// The dreamer model pattern [default: settings `pi-context.dreamer`, else Pi's default]
    #[arg(long, value_name = "PATTERN")]
    dreamer: Option<String>,
    /// The dreamer's agent name (its writable home is agents/<name>/) [env: PI_NOTES_AGENT]
    /// [default: anonymous]
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// Empty the wastebasket: remove notes crumpled longer ago than this (`30d`, `12h`, `4w`, `0`)
    #[arg(long, value_name = "AGE", default_value = "30d", value_parser = parse_purge_after)]
    purge_after: Duration,
    /// A playbook file to use instead of the built-in one
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath)]
    playbook: Option<PathBuf>,
    /// The `pi` executable [env: PI_CONTEXT_PI] [default: `pi` on PATH]
    #[arg(long, value_name = "PATH", value_hint = ValueHint::ExecutablePath)]
    pi: Option<PathBuf>,
    /// Evaluate the gates and the lock, print the plan, change nothing
    #[arg(long)]
    dry_run: bool,
    /// Print the playbook (the built-in one, or --playbook) and exit
    #[arg(long)]
    print_playbook: bool,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

fn parse_purge_after(text: &str) -> Result<Duration, String> {
    pi_context::clock::parse_span(text)
        .ok_or_else(|| format!("{text:?} is not an age such as 30d, 12h, 4w or 0"))
}

pub fn run(args: RunArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    if args.print_playbook {
        let playbook = dream::load_playbook(args.playbook.as_deref())?;
        ui.out().write_all(playbook.as_bytes())?;
        return Ok(exit::SUCCESS);
    }
    let env = args.home.environment(
        Inputs {
            agent: args.agent.clone(),
            ..Inputs::default()
        },
        vars,
    )?;
    for warning in &env.settings().warnings {
        ui.warn(warning);
    }
    let options = DreamOptions::resolve(&env, &request(&args), interrupt_on_signals()?)?;
    let mut progress = Progress::on_terminal(!args.json);
    let outcome = dream::dream(&options, &mut progress);
    progress.finish();
    let outcome = outcome?;
    let view = DreamView {
        home: &options.home,
        dry_run: options.dry_run,
        terminal: std::io::stdout().is_terminal(),
    };
    printer::dream(args.json, ui.color).dream(ui.out(), &outcome, &view)?;
    match outcome.status {
        Status::Ran | Status::Skipped | Status::Planned => Ok(exit::SUCCESS),
        Status::Failed => Err(failed(&outcome)),
        Status::Locked => Err(lock_held(&options)),
    }
}

fn request(args: &RunArgs) -> DreamRequest {
    DreamRequest {
        min_hours: args.min_hours,
        min_sessions: args.min_sessions,
        force: args.force,
        dry_run: args.dry_run,
        dreamer: args.dreamer.clone(),
        playbook: args.playbook.clone(),
        pi: args.pi.clone(),
        purge_after: args.purge_after,
    }
}

/// SIGINT, SIGTERM and SIGHUP stop the dreamer; the run then audits, commits `(failed)`, puts
/// back the last-run time and removes its lock, instead of dying with the lock held.
fn interrupt_on_signals() -> Result<Interrupt, CommandError> {
    let interrupt = Interrupt::new();
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register_usize(signal, interrupt.flag(), signal as usize)
            .map_err(|e| CommandError::io("cannot install the dream's signal handlers", e))?;
    }
    Ok(interrupt)
}

fn failed(outcome: &DreamOutcome) -> CommandError {
    let why = outcome.error.as_deref().unwrap_or("see the report");
    let error = CommandError::new(Kind::Failed, format!("the dream failed: {why}"));
    match &outcome.report {
        Some(report) => error.with_hint(format!("the report is {}", report.display())),
        None => error,
    }
}

fn lock_held(options: &DreamOptions) -> CommandError {
    if dream::lock::sync_running(&options.home) {
        return CommandError::new(
            Kind::Locked,
            "a notes sync is running on the notes home; a dream waits for it",
        )
        .with_hint("run the dream again when the sync ends");
    }
    let lock = options.home.join(dream::lock::LOCK_FILE);
    CommandError::new(
        Kind::Locked,
        format!("another dream holds the lock {}", lock.display()),
    )
    .with_hint("`pi-context dream doctor` tells whether that dream is still running (live) or died (stale)")
    .with_hint(format!(
        "only when no dream is running, remove a stale lock by hand: rm {}",
        lock.display()
    ))
}

/// The dream's progress: a spinner from the dreamer's start, saying its current tool and path and
/// a count of its tool calls.
impl DreamerObserver for Progress {
    fn tool_started(&mut self, tool: &str, path: Option<&str>, count: usize) {
        self.say(format!(
            "dreaming: {tool} {} ({count} tool calls)",
            path.unwrap_or("")
        ));
    }
}

impl DreamObserver for Progress {
    fn gate(&mut self, _gate: &Gate) {}

    fn dreamer_starting(&mut self) {
        self.spin("dreaming: starting pi");
    }

    fn dreamer_finished(&mut self) {
        self.say("dreaming: auditing and committing");
    }
}
