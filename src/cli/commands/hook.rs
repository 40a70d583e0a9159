//! `pi-context hook <agent> <event>`: what an agent's hook runs (docs/agents.md). It reads the
//! hook's JSON on stdin and answers in the agent's format, and it fails open: whatever happens
//! (bad arguments, bad input, an unreadable index, a panic, a deadline passed) it exits 0 and
//! prints nothing but that format, so it never blocks or breaks a prompt. An exit status of 2
//! would make Claude Code drop the prompt, so this command does not go through clap's parser:
//! `cli::main` hands it its arguments as they are. How each run ended is recorded in the
//! cache (`setup --status`), errors in a log beside it.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Args;
use pi_context::environment::{Environment, Inputs, Vars};
use pi_context::push::{self, status, Event, HookInput, Push, PushError};
use pi_context::session::{ContextOutput, Harness};

/// Answer an agent's hook: the boot, the recall hint, the way back after a compaction
/// (run by the hooks `pi-context setup` installs; reads the hook's JSON on stdin)
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The agent whose hook runs: claude, codex, gemini, copilot or opencode
    #[arg(value_name = "AGENT")]
    agent: String,
    /// The hook event: session-start, prompt or pre-compact
    #[arg(value_name = "EVENT")]
    event: String,
    /// `--mcp-server NAME`: the name the agent registered pi-context's MCP server under, when
    /// it is not pi-context (Claude Code's plugin); anything else is ignored (a newer setup
    /// may pass more)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

impl HookArgs {
    pub fn agent(&self) -> &str {
        &self.agent
    }

    pub fn event(&self) -> &str {
        &self.event
    }

    pub fn rest(&self) -> &[String] {
        &self.rest
    }
}

/// The most a hook may take, from its start: past it, it prints nothing and exits 0.
pub const DEADLINE: Duration = Duration::from_millis(900);
/// The most of the hook's stdin that is read (a prompt of megabytes adds nothing to a hint).
const MAX_INPUT_BYTES: u64 = 8 << 20;

/// Runs the hook with the arguments after `hook`; always exits 0.
pub fn run_raw(args: &[OsString]) -> ExitCode {
    let started = Instant::now();
    let vars = Vars::capture();
    let arg = |i: usize| {
        args.get(i)
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let (agent, event) = (arg(0).parse::<Harness>(), Event::parse(&arg(1)));
    let (Ok(agent), Some(event)) = (agent, event) else {
        log_unknown(&vars, &arg(0), &arg(1));
        return ExitCode::SUCCESS;
    };
    let server = mcp_server(&args[2..]);
    let (done, answer) = mpsc::channel();
    let worker_vars = vars.clone();
    std::thread::spawn(move || {
        let result = std::panic::catch_unwind(|| {
            read_input().and_then(|input| {
                push::answer(agent, event, &input, &worker_vars, server.as_deref())
            })
        })
        .unwrap_or_else(|panic| Err(PushError::Input(panic_text(panic))));
        let _ = done.send(result);
    });
    let waited = answer.recv_timeout(DEADLINE.saturating_sub(started.elapsed()));
    let millis = started.elapsed().as_millis() as u64;
    let (outcome, detail) = match waited {
        Ok(Ok(push)) => {
            let written = write_answer(agent, event, &push);
            match written {
                Ok(()) => ("ok", push.summary),
                Err(e) => ("error", format!("cannot write the answer: {e}")),
            }
        }
        Ok(Err(e)) => ("error", error_chain(&e)),
        Err(_) => (
            "timeout",
            format!(
                "no answer within {} ms: nothing pushed",
                DEADLINE.as_millis()
            ),
        ),
    };
    record(&vars, agent, event, outcome, detail, millis);
    // The worker may still run (a deadline passed): the process ends without waiting for it.
    let _ = std::io::stdout().flush();
    std::process::exit(0)
}

/// The `--mcp-server NAME` (or `--mcp-server=NAME`) among the arguments after the event, when
/// it is a server's name ([`push::is_server_name`]).
fn mcp_server(rest: &[OsString]) -> Option<String> {
    let rest: Vec<String> = rest
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let value = rest.iter().enumerate().find_map(|(i, arg)| {
        if arg == "--mcp-server" {
            rest.get(i + 1).cloned()
        } else {
            arg.strip_prefix("--mcp-server=").map(str::to_string)
        }
    })?;
    push::is_server_name(&value).then_some(value)
}

/// The hook's input: at most [`MAX_INPUT_BYTES`] of stdin, one JSON object.
fn read_input() -> Result<HookInput, PushError> {
    let mut text = String::new();
    std::io::stdin()
        .take(MAX_INPUT_BYTES)
        .read_to_string(&mut text)
        .map_err(|e| PushError::Input(format!("cannot read stdin: {e}")))?;
    HookInput::parse(&text)
}

/// The answer in the agent's format: `additionalContext` for what enters the context at
/// session start and with a prompt (nested in `hookSpecificOutput`, or at the top for Copilot
/// CLI); plain text before a compaction (appended to the compaction's instructions); a top-level
/// `additionalContext` for every event to pi-context's own plugin (OpenCode). Nothing to say:
/// nothing printed.
fn write_answer(agent: Harness, event: Event, push: &Push) -> std::io::Result<()> {
    let Some(text) = &push.text else {
        return Ok(());
    };
    let shape = agent.agent_facts().map(|f| f.context_output);
    let body = match (event, shape) {
        (_, Some(ContextOutput::Plugin)) => {
            serde_json::json!({ "additionalContext": text }).to_string()
        }
        (Event::PreCompact, _) => text.clone(),
        (_, Some(ContextOutput::AdditionalContext)) => {
            serde_json::json!({ "additionalContext": text }).to_string()
        }
        (Event::SessionStart | Event::Prompt, _) => serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": agent
                    .agent_facts()
                    .map_or(event.hook_name(), |facts| event.hook_name_for(&facts)),
                "additionalContext": text,
            }
        })
        .to_string(),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(body.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.ends_with(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}

fn panic_text(panic: Box<dyn std::any::Any + Send>) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    format!("internal error: {what}")
}

/// The cache the records go to; none without one (nothing is recorded then).
fn cache_dir(vars: &Vars) -> Option<std::path::PathBuf> {
    Environment::resolve(Inputs::default(), vars)
        .ok()?
        .cache_dir()
}

fn record(vars: &Vars, agent: Harness, event: Event, outcome: &str, detail: String, millis: u64) {
    let Some(cache) = cache_dir(vars) else {
        return;
    };
    let at = Environment::resolve(Inputs::default(), vars)
        .map(|env| env.clock.now().to_string())
        .unwrap_or_default();
    status::record(
        &cache,
        agent,
        event,
        &status::LastRun {
            at,
            outcome: outcome.to_string(),
            detail,
            millis,
            version: env!("CARGO_PKG_VERSION").to_string(),
        },
    );
}

/// An agent or event this binary does not know (an older binary under a newer setup): logged,
/// nothing pushed.
fn log_unknown(vars: &Vars, agent: &str, event: &str) {
    let Some(cache) = cache_dir(vars) else {
        return;
    };
    let path = status::log_file(&cache);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = writeln!(
            file,
            "pi-context {} does not answer hook {:?} {:?}: nothing pushed",
            env!("CARGO_PKG_VERSION"),
            pi_context::text::one_line(agent),
            pi_context::text::one_line(event)
        );
    }
}
