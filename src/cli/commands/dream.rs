//! `pi-context dream` (alias `dream`) and `dream doctor`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand, ValueHint};
use indicatif::{ProgressBar, ProgressStyle};
use pi_context::dream::dreamer::{self, DreamerObserver};
use pi_context::dream::gates::Gate;
use pi_context::dream::{
    self, DreamError, DreamObserver, DreamOptions, DreamOutcome, Interrupt, Status,
};

use crate::cli::config;
use crate::cli::error::{exit, CommandError, Outcome};
use crate::cli::ui::Ui;

/// Consolidate the notes store with a dreamer agent, under a lock and a git audit trail.
///
/// Runs `pi` with the dreamer playbook over the notes home, once the time and material gates
/// agree (or with --force). The home becomes a git repository: a `baseline` commit before the
/// dreamer, a `dream` commit after it, and a report in `dreams/<stamp>.md`. Exit status: 0 ran or
/// skipped by a gate, 1 the dream failed, 75 another dream holds the lock.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DreamArgs {
    #[command(subcommand)]
    command: Option<DreamCommand>,

    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum DreamCommand {
    /// Check the notes store without changing it (exit 0 clean, 1 issues found)
    Doctor(DoctorArgs),
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The notes home [default: $PI_NOTES_HOME or ~/.agents/notes]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    notes_home: Option<PathBuf>,
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
    /// The dreamer's agent name (its writable home is agents/<name>/)
    #[arg(
        long,
        value_name = "NAME",
        env = "PI_NOTES_AGENT",
        default_value = "anonymous"
    )]
    agent: String,
    /// Empty the wastebasket: remove notes crumpled longer ago than this (`30d`, `12h`, `4w`, `0`)
    #[arg(long, value_name = "AGE", default_value = "30d", value_parser = parse_purge_after)]
    purge_after: std::time::Duration,
    /// A playbook file to use instead of the built-in one
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath)]
    playbook: Option<PathBuf>,
    /// The `pi` executable [default: $PI_CONTEXT_PI, else `pi` on PATH]
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

#[derive(Debug, Args)]
struct DoctorArgs {
    /// The notes home [default: $PI_NOTES_HOME or ~/.agents/notes]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    notes_home: Option<PathBuf>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(args: DreamArgs, ui: &mut Ui) -> Result<u8, Outcome> {
    match args.command {
        Some(DreamCommand::Doctor(args)) => run_doctor(args, ui),
        None => run_dream(args.run, ui),
    }
}

/// `dream doctor`: read-only; exit 0 when clean, 1 when it found issues.
fn run_doctor(args: DoctorArgs, ui: &mut Ui) -> Result<u8, Outcome> {
    let home = config::notes_home(args.notes_home);
    let spinner = std::io::stderr()
        .is_terminal()
        .then(ProgressBar::new_spinner);
    let mut progress = |checked: usize| {
        // Only a large store is worth a progress line.
        if let Some(bar) = spinner.as_ref().filter(|_| checked.is_multiple_of(500)) {
            bar.set_message(format!("dream doctor: {checked} notes checked"));
            bar.tick();
        }
    };
    let report = dream::doctor::check(&home, &mut progress);
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    if args.json {
        serde_json::to_writer(ui.out(), &report).map_err(std::io::Error::from)?;
        writeln!(ui.out())?;
    } else if report.issues.is_empty() {
        writeln!(ui.out(), "dream doctor: OK ({})", home.display())?;
    } else {
        for issue in &report.issues {
            writeln!(ui.out(), "{}: {}", issue.path, issue.message)?;
        }
    }
    Ok(if report.issues.is_empty() {
        exit::SUCCESS
    } else {
        exit::NEGATIVE
    })
}

fn run_dream(args: RunArgs, ui: &mut Ui) -> Result<u8, Outcome> {
    if args.print_playbook {
        let playbook = dream::load_playbook(args.playbook.as_deref()).map_err(dream_error)?;
        ui.out().write_all(playbook.as_bytes())?;
        return Ok(exit::SUCCESS);
    }
    let options = options(&args)?;
    let mut progress = Progress::new(!args.json && std::io::stderr().is_terminal());
    let outcome = dream::dream(&options, &mut progress).map_err(dream_error);
    progress.finish();
    let outcome = outcome?;
    if args.json {
        serde_json::to_writer(ui.out(), &outcome).map_err(std::io::Error::from)?;
        writeln!(ui.out())?;
    } else {
        print_outcome(ui, &outcome, &options)?;
    }
    Ok(match outcome.status {
        Status::Ran | Status::Skipped | Status::Planned => exit::SUCCESS,
        Status::Failed => exit::NEGATIVE,
        Status::Locked => {
            if !args.json {
                ui.flush()?;
                lock_held(&options).print(&mut std::io::stderr(), ui.stderr_color);
            }
            exit::LOCKED
        }
    })
}

fn options(args: &RunArgs) -> Result<DreamOptions, CommandError> {
    let home = config::notes_home(args.notes_home.clone());
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let settings =
        pi_context::settings::load(&pi_context::settings::agent_dir(&config::home_dir()), &cwd);
    for warning in &settings.warnings {
        eprintln!("warning: {warning}");
    }
    let model = args.dreamer.clone().or(settings.dreamer);
    let model_slug = model
        .as_deref()
        .map(|m| pi_context::text::slugify(m.rsplit('/').next().unwrap_or(m)))
        .unwrap_or_else(|| "default".to_string());
    if !(args.min_hours.is_finite() && args.min_hours >= 0.0) {
        return Err(CommandError::usage(
            "--min-hours must be a number of hours, 0 or more",
        ));
    }
    Ok(DreamOptions {
        home,
        now: config::now().map_err(CommandError::usage)?,
        min_hours: args.min_hours,
        min_sessions: args.min_sessions,
        force: args.force,
        dry_run: args.dry_run,
        pi: dreamer::resolve_pi(args.pi.clone()),
        model,
        playbook: dream::load_playbook(args.playbook.as_deref()).map_err(dream_error)?,
        agent: pi_context::text::slugify(&args.agent),
        model_slug,
        purge_after: args.purge_after,
        user_home: config::home_dir(),
        interrupt: interrupt_on_signals()?,
    })
}

fn parse_purge_after(text: &str) -> Result<std::time::Duration, String> {
    pi_context::clock::parse_span(text)
        .ok_or_else(|| format!("{text:?} is not an age such as 30d, 12h, 4w or 0"))
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

fn dream_error(e: DreamError) -> CommandError {
    let exit_code = match e {
        DreamError::Baseline(_) | DreamError::Repository(_) => exit::NEGATIVE,
        _ => exit::USAGE,
    };
    let mut error = CommandError::usage(e.to_string());
    error.exit = exit_code;
    if let Some(source) = std::error::Error::source(&e) {
        error = error.with_cause(source);
    }
    if let Some(hint) = e.hint() {
        error = error.with_hint(hint);
    }
    error
}

fn lock_held(options: &DreamOptions) -> CommandError {
    let lock = options.home.join(dream::lock::LOCK_FILE);
    let mut error = CommandError::usage(format!("another dream holds the lock {}", lock.display()))
        .with_hint("`pi-context dream doctor` tells whether that dream is still running (live) or died (stale)")
        .with_hint(format!("only when no dream is running, remove a stale lock by hand: rm {}", lock.display()));
    error.exit = exit::LOCKED;
    error
}

fn print_outcome(
    ui: &mut Ui,
    outcome: &DreamOutcome,
    options: &DreamOptions,
) -> std::io::Result<()> {
    for gate in &outcome.gates {
        writeln!(ui.out(), "{}", gate.reason)?;
    }
    let chatty = std::io::stdout().is_terminal();
    match outcome.status {
        Status::Planned if chatty || options.dry_run => {
            writeln!(
                ui.out(),
                "plan: dream over {} (writable: {})",
                options.home.display(),
                outcome.writable.join(", ")
            )?;
        }
        Status::Ran | Status::Failed => {
            if chatty {
                for change in &outcome.changes {
                    writeln!(ui.out(), "{}: {}", change.kind, change.path)?;
                }
                for v in &outcome.violations {
                    writeln!(ui.out(), "violation ({}): {}", v.kind, v.path)?;
                }
                for p in &outcome.purged {
                    writeln!(ui.out(), "purged: {} (crumpled {})", p.path, p.crumpled_at)?;
                }
                for c in &outcome.conflicts {
                    writeln!(
                        ui.out(),
                        "conflict: {} (kept the {} version)",
                        c.path,
                        c.kept
                    )?;
                }
            }
            if let Some(error) = &outcome.error {
                eprintln!("error: the dream failed: {error}");
            }
            if let Some(report) = &outcome.report {
                writeln!(ui.out(), "{}", report.display())?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// An indicatif spinner on stderr (only on a terminal): the current tool and path, and a count.
struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    fn new(enabled: bool) -> Progress {
        Progress {
            bar: enabled.then(|| {
                let bar = ProgressBar::new_spinner();
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar
            }),
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl DreamerObserver for Progress {
    fn tool_started(&mut self, tool: &str, path: Option<&str>, count: usize) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "dreaming: {tool} {} ({count} tool calls)",
                path.unwrap_or("")
            ));
        }
    }
}

impl DreamObserver for Progress {
    fn gate(&mut self, _gate: &Gate) {}

    fn dreamer_starting(&mut self) {
        if let Some(bar) = &self.bar {
            bar.enable_steady_tick(Duration::from_millis(120));
            bar.set_message("dreaming: starting pi");
        }
    }

    fn dreamer_finished(&mut self) {
        if let Some(bar) = &self.bar {
            bar.set_message("dreaming: auditing and committing");
        }
    }
}
