//! Running the dreamer: `pi` in JSON mode, confined by the write jail, with its event stream
//! read as it arrives.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use serde::Serialize;
use serde_json::Value;

use super::interrupt::Interrupt;

/// The jail extension, embedded so the binary is self-contained.
const JAIL_EXTENSION: &str = include_str!("jail.ts");
/// The only tools the dreamer gets.
const DREAMER_TOOLS: &str = "read,grep,find,ls,write,edit,notes_move";

/// How to start the dreamer.
pub struct DreamerCommand<'a> {
    pub pi: &'a Path,
    pub home: &'a Path,
    /// Relative prefixes the dreamer may write, such as `human/` or `agents/me/`.
    pub writable: &'a [String],
    pub model: Option<&'a str>,
    pub prompt: &'a str,
    /// The dreamer's agent slug and model slug (its `notes_move` acts as them).
    pub agent: &'a str,
    pub model_slug: &'a str,
    /// The running dream's lock token: the store does not journal the dreamer's own moves.
    pub token: &'a str,
    /// Set by SIGINT, SIGTERM or SIGHUP: the dreamer is stopped and the run fails.
    pub interrupt: &'a Interrupt,
}

/// A tool call the dreamer made, as the event stream reported it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ToolUse {
    pub tool: String,
    pub path: Option<String>,
    pub is_error: bool,
    /// The refusal text when the write jail blocked the call.
    pub refused: Option<String>,
    /// Whether the stream reported the call's end (a cut stream leaves calls unfinished).
    pub finished: bool,
    /// What a `write` call wrote.
    #[serde(skip)]
    pub content: Option<String>,
    /// The `from` and `to` paths of a `notes_move` call.
    #[serde(skip)]
    pub moved: Option<(String, String)>,
}

impl ToolUse {
    /// A write or edit that may have changed a file: it succeeded, or its end was never seen.
    /// A refused or failed call touched nothing.
    pub fn may_have_written(&self) -> bool {
        matches!(self.tool.as_str(), "write" | "edit" | "notes_move")
            && (!self.finished || !self.is_error)
    }

    /// The paths the call may have changed, as the dreamer named them.
    pub fn written_paths(&self) -> Vec<&str> {
        match &self.moved {
            Some((from, to)) => vec![from.as_str(), to.as_str()],
            None => self.path.iter().map(String::as_str).collect(),
        }
    }
}

/// What a dreamer run produced.
#[derive(Debug, Default)]
pub struct DreamerRun {
    /// The last assistant text.
    pub answer: String,
    pub tools: Vec<ToolUse>,
    /// Why the run counts as failed, if it does.
    pub failure: Option<String>,
}

/// Streams progress while the dreamer runs.
pub trait DreamerObserver {
    fn tool_started(&mut self, tool: &str, path: Option<&str>, count: usize);
}

pub fn run(command: &DreamerCommand, observer: &mut dyn DreamerObserver) -> DreamerRun {
    let jail_dir = match tempfile::Builder::new()
        .prefix("pi-context-dream-")
        .tempdir()
    {
        Ok(dir) => dir,
        Err(e) => return failed(format!("cannot create a directory for the write jail: {e}")),
    };
    let jail = jail_dir.path().join("dream-jail.ts");
    if let Err(e) = std::fs::write(&jail, JAIL_EXTENSION) {
        return failed(format!("cannot write the write jail extension: {e}"));
    }
    if let Some(signal) = command.interrupt.signal() {
        return failed(format!(
            "interrupted by {signal} before the dreamer started"
        ));
    }
    let mut child = match build(command, &jail).spawn() {
        Ok(child) => child,
        Err(e) => {
            return failed(format!(
                "cannot start the dreamer `{}`: {e} (install Pi, or pass --pi / set PI_CONTEXT_PI)",
                command.pi.display()
            ))
        }
    };
    let stderr = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    });
    let done = Arc::new(AtomicBool::new(false));
    let watcher = stop_on_interrupt(child.id(), command.interrupt.clone(), done.clone());
    let mut stream = EventStream::default();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).split(b'\n').map_while(Result::ok) {
            stream.feed(&line, observer);
        }
    }
    let status = child.wait();
    done.store(true, Ordering::SeqCst);
    let _ = watcher.join();
    let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let mut run = stream.finish(status, &stderr);
    if let Some(signal) = command.interrupt.signal() {
        let detail = run
            .failure
            .take()
            .map(|f| format!(" ({f})"))
            .unwrap_or_default();
        run.failure = Some(format!(
            "interrupted by {signal}: the dreamer was stopped{detail}"
        ));
    }
    run
}

/// How long the dreamer gets to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// A thread that, once `interrupt` is set, stops the dreamer's whole process group (SIGTERM,
/// then SIGKILL after a grace period). It ends when `done` is set.
fn stop_on_interrupt(
    pid: u32,
    interrupt: Interrupt,
    done: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !done.load(Ordering::SeqCst) {
            if interrupt.signal().is_some() {
                signal_group(pid, Signal::TERM);
                let deadline = Instant::now() + STOP_GRACE;
                while !done.load(Ordering::SeqCst) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(20));
                }
                if !done.load(Ordering::SeqCst) {
                    signal_group(pid, Signal::KILL);
                }
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    })
}

/// Sends `signal` to the process group the dreamer leads (it was started as its leader).
fn signal_group(leader: u32, signal: Signal) {
    let leader = i32::try_from(leader).ok().and_then(Pid::from_raw);
    if let Some(leader) = leader {
        let _ = rustix::process::kill_process_group(leader, signal);
    }
}

fn failed(reason: String) -> DreamerRun {
    DreamerRun {
        failure: Some(reason),
        ..DreamerRun::default()
    }
}

fn build(command: &DreamerCommand, jail: &Path) -> Command {
    let mut cmd = Command::new(command.pi);
    cmd.current_dir(command.home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("PI_CONTEXT_DREAM_HOME", command.home)
        .env(
            "PI_CONTEXT_DREAM_WRITABLE",
            serde_json::to_string(command.writable).unwrap_or_default(),
        )
        .env(
            crate::environment::vars::PI_CONTEXT_DREAM_TOKEN.name,
            command.token,
        )
        .env("PI_NOTES_AGENT", command.agent)
        .env("PI_CONTEXT_MODEL", command.model_slug)
        .args(["--mode", "json", "--no-session", "--tools", DREAMER_TOOLS])
        .args([
            "--no-extensions",
            "--no-context-files",
            "--no-skills",
            "--no-prompt-templates",
            "--no-mcp",
        ])
        .arg("--extension")
        .arg(jail);
    // Its own process group: a terminal's Ctrl-C reaches only this process, which stops the
    // dreamer and then audits and commits; and the dreamer dies with this process if it is
    // killed outright, rather than writing on unaudited.
    if let Ok(bin) = std::env::current_exe() {
        cmd.env("PI_CONTEXT_BIN", bin);
    }
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    kill_with_parent(&mut cmd);
    if let Some(model) = command.model {
        cmd.args(["--model", model]);
    }
    cmd.arg("--").arg(command.prompt);
    cmd
}

/// The dreamer gets SIGKILL when this process dies. The parent-death signal can only be set in
/// the child between fork and exec, and std offers that moment only through the unsafe
/// `pre_exec`.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn kill_with_parent(cmd: &mut Command) {
    // SAFETY: the closure makes one prctl system call (async-signal-safe, no allocation) that
    // touches only the child's own state.
    unsafe {
        cmd.pre_exec(|| {
            rustix::process::set_parent_process_death_signal(Some(Signal::KILL))
                .map_err(std::io::Error::from)
        });
    }
}

/// Folds the JSONL event stream into a [`DreamerRun`].
#[derive(Default)]
struct EventStream {
    run: DreamerRun,
    events: usize,
    settled: bool,
    provider_error: Option<String>,
    pending: Vec<(String, ToolUse)>,
}

impl EventStream {
    fn feed(&mut self, line: &[u8], observer: &mut dyn DreamerObserver) {
        let Ok(event) = serde_json::from_slice::<Value>(line.strip_suffix(b"\r").unwrap_or(line))
        else {
            return;
        };
        self.events += 1;
        match event["type"].as_str().unwrap_or_default() {
            "tool_execution_start" => {
                let tool = event["toolName"].as_str().unwrap_or("unknown").to_string();
                let args = &event["args"];
                let moved = (tool == "notes_move")
                    .then(|| {
                        Some((
                            args["from"].as_str()?.to_string(),
                            args["to"].as_str()?.to_string(),
                        ))
                    })
                    .flatten();
                // A move is shown (and reported when refused) as `from -> to`.
                let path = match &moved {
                    Some((from, to)) => Some(format!("{from} -> {to}")),
                    None => args["path"].as_str().map(str::to_string),
                };
                let content = (tool == "write")
                    .then(|| args["content"].as_str().map(str::to_string))
                    .flatten();
                let id = event["toolCallId"].as_str().unwrap_or_default().to_string();
                observer.tool_started(
                    &tool,
                    path.as_deref()
                        .or(moved.as_ref().map(|(from, _)| from.as_str())),
                    self.run.tools.len() + self.pending.len() + 1,
                );
                self.pending.push((
                    id,
                    ToolUse {
                        tool,
                        path,
                        is_error: false,
                        refused: None,
                        finished: false,
                        content,
                        moved,
                    },
                ));
            }
            "tool_execution_end" => self.tool_ended(&event),
            "message_end" if event["message"]["role"] == "assistant" => {
                self.assistant(&event["message"])
            }
            "agent_settled" | "agent_end" => self.settled = true,
            _ => {}
        }
    }

    fn tool_ended(&mut self, event: &Value) {
        let id = event["toolCallId"].as_str().unwrap_or_default();
        let Some(position) = self.pending.iter().position(|(pending, _)| pending == id) else {
            return;
        };
        let (_, mut tool) = self.pending.remove(position);
        tool.finished = true;
        tool.is_error = event["isError"].as_bool().unwrap_or(false);
        let text = content_text(&event["result"]["content"]);
        if tool.is_error && text.contains("write jail:") {
            tool.refused = Some(text);
        }
        self.run.tools.push(tool);
    }

    fn assistant(&mut self, message: &Value) {
        if message["stopReason"] == "error" {
            let reason = message["errorMessage"]
                .as_str()
                .unwrap_or("unknown provider error");
            self.provider_error = Some(reason.to_string());
            return;
        }
        let text = content_text(&message["content"]);
        if !text.is_empty() {
            self.run.answer = text;
        }
    }

    fn finish(
        mut self,
        status: std::io::Result<std::process::ExitStatus>,
        stderr: &str,
    ) -> DreamerRun {
        self.run
            .tools
            .extend(self.pending.drain(..).map(|(_, tool)| tool));
        let stderr_tail = tail(stderr, 600);
        self.run.failure = match status {
            Err(e) => Some(format!("the dreamer could not be awaited: {e}")),
            Ok(s) if !s.success() => Some(format!("the dreamer exited with {s}{stderr_tail}")),
            Ok(_) if self.provider_error.is_some() => Some(format!(
                "dreamer failed: {}",
                self.provider_error.unwrap_or_default()
            )),
            Ok(_) if self.events == 0 => {
                Some(format!("the dreamer printed no JSON events{stderr_tail}"))
            }
            Ok(_) if !self.settled => Some(format!(
                "the dreamer's event stream ended before the run did{stderr_tail}"
            )),
            Ok(_) => None,
        };
        self.run
    }
}

fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn tail(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    let start = text.char_indices().rev().nth(max).map_or(0, |(i, _)| i);
    format!(": {}", &text[start..])
}
