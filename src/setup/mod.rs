//! `pi-context setup <agent>`: the MCP server and the hooks installed into an agent's own
//! configuration, at its user scope (docs/agents.md). A setup is planned first ([`Plan`]: the
//! files as they would be, the commands that would run), then shown (`--dry-run`, a diff) or
//! applied: a `.bak` copy of each file before its first change, each file replaced atomically,
//! nothing written when nothing changes (a second run changes no byte). `--remove` plans
//! taking out exactly what a setup adds; every other key, hook and comment of the user's files
//! stays, and a file left holding nothing (one the setup created: the agents start without
//! them) is deleted, with no `.bak`. A file that cannot be parsed stops the whole setup before
//! anything is written.
//!
//! Each agent is one file here ([`claude`], [`codex`], [`gemini`], [`copilot`], [`cursor`],
//! [`opencode`]);
//! which one configures an agent is the harness table's answer
//! ([`crate::session::AgentFacts::config`]).

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
mod hooks;
mod json;
mod mcp_json;
pub mod opencode;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::push::{status, Event};
use crate::session::{AgentConfig, Harness};

/// The name the MCP server is registered under, in every agent.
pub const MCP_NAME: &str = crate::session::MCP_SERVER;
/// The timeout, in seconds, each installed hook gets from its agent: a backstop only, the hook
/// keeps its own deadline of under a second (Gemini CLI counts it in milliseconds).
pub const HOOK_TIMEOUT_SECS: u64 = 10;

/// Where an agent keeps its configuration, and which binary the hooks and the server run.
#[derive(Debug, Clone)]
pub struct Target {
    pub agent: Harness,
    /// The pi-context the installed entries run, absolute.
    pub binary: PathBuf,
    /// The agent's configuration directory (`$CLAUDE_CONFIG_DIR` or `~/.claude`; `$CODEX_HOME`
    /// or `~/.codex`).
    pub config_dir: PathBuf,
    /// The user's home (Claude Code keeps `~/.claude.json` there without `CLAUDE_CONFIG_DIR`).
    pub home: PathBuf,
    /// Whether `$CLAUDE_CONFIG_DIR` (or the agent's own variable) moved the configuration.
    pub config_dir_from_env: bool,
    /// The agent's command, when it is on `PATH` (Claude Code registers MCP servers itself).
    pub agent_command: Option<PathBuf>,
    /// The variables the MCP server needs from the agent's environment (Codex starts servers
    /// with a stripped one).
    pub forwarded_vars: Vec<&'static str>,
}

/// A file as a setup would leave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: PathBuf,
    /// Its text now; `None`: it does not exist.
    pub before: Option<String>,
    /// Its text after; `None`: removed (a file only pi-context's entries were in).
    pub after: Option<String>,
}

impl FileChange {
    pub fn changes(&self) -> bool {
        self.before != self.after
    }
}

/// What a setup (or its removal) does.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub files: Vec<FileChange>,
    /// Commands the agent's own CLI runs (`claude mcp add …`), in order.
    pub commands: Vec<Vec<String>>,
    /// What a person should know (a hook the agent will ignore until it is trusted, …).
    pub notes: Vec<String>,
}

impl Plan {
    /// Whether applying it changes anything.
    pub fn changes(&self) -> bool {
        self.files.iter().any(FileChange::changes) || !self.commands.is_empty()
    }

    /// The plan as a unified diff per file, then the commands it would run.
    pub fn diff(&self) -> String {
        let mut out = String::new();
        for file in self.files.iter().filter(|f| f.changes()) {
            let before = file.before.as_deref().unwrap_or("");
            let after = file.after.as_deref().unwrap_or("");
            let name = file.path.display().to_string();
            out.push_str(
                &similar::TextDiff::from_lines(before, after)
                    .unified_diff()
                    .context_radius(3)
                    .header(&name, &name)
                    .to_string(),
            );
        }
        for command in &self.commands {
            out.push_str(&format!("$ {}\n", shell_words(command)));
        }
        out
    }
}

fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{agent} takes no setup (pi-context's Pi extension is installed with `pi install`)")]
    NotAnAgent { agent: Harness },
    #[error("cannot parse {path}: line {line}, column {column}: {message}; nothing was written")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path} holds {what}, not what a setup can edit; nothing was written")]
    Shape { path: PathBuf, what: String },
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{command}` failed: {message}")]
    Command { command: String, message: String },
}

/// The setup of `target`'s agent.
pub fn plan_install(target: &Target) -> Result<Plan, SetupError> {
    match config_of(target)? {
        AgentConfig::Claude => claude::plan(target, false),
        AgentConfig::Codex => codex::plan(target, false),
        AgentConfig::Copilot => copilot::plan(target, false),
        AgentConfig::Cursor => cursor::plan(target, false),
        AgentConfig::Gemini => gemini::plan(target, false),
        AgentConfig::OpenCode => opencode::plan(target, false),
    }
}

/// The removal of what a setup of `target`'s agent adds.
pub fn plan_remove(target: &Target) -> Result<Plan, SetupError> {
    match config_of(target)? {
        AgentConfig::Claude => claude::plan(target, true),
        AgentConfig::Codex => codex::plan(target, true),
        AgentConfig::Copilot => copilot::plan(target, true),
        AgentConfig::Cursor => cursor::plan(target, true),
        AgentConfig::Gemini => gemini::plan(target, true),
        AgentConfig::OpenCode => opencode::plan(target, true),
    }
}

fn config_of(target: &Target) -> Result<AgentConfig, SetupError> {
    target
        .agent
        .agent_facts()
        .map(|facts| facts.config)
        .ok_or(SetupError::NotAnAgent {
            agent: target.agent,
        })
}

/// Applies a plan: each changed file backed up once (`<file>.bak`, never overwritten) and
/// replaced atomically, then the commands run.
pub fn apply(plan: &Plan) -> Result<(), SetupError> {
    for file in plan.files.iter().filter(|f| f.changes()) {
        write_file(file)?;
    }
    for command in &plan.commands {
        run(command)?;
    }
    Ok(())
}

fn write_file(file: &FileChange) -> Result<(), SetupError> {
    let write_error = |source| SetupError::Write {
        path: file.path.clone(),
        source,
    };
    // A file that goes held nothing but pi-context's entries: no copy of it is kept.
    let Some(after) = &file.after else {
        return std::fs::remove_file(&file.path).map_err(write_error);
    };
    if let Some(before) = &file.before {
        let backup = backup_path(&file.path);
        if !backup.exists() {
            std::fs::write(&backup, before).map_err(write_error)?;
        }
    }
    let dir = file.path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(write_error)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(write_error)?;
    temp.write_all(after.as_bytes()).map_err(write_error)?;
    temp.as_file().sync_all().map_err(write_error)?;
    if let Ok(metadata) = std::fs::metadata(&file.path) {
        let _ = std::fs::set_permissions(temp.path(), metadata.permissions());
    }
    temp.persist(&file.path).map_err(|e| write_error(e.error))?;
    Ok(())
}

/// `<file>.bak`.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

fn run(command: &[String]) -> Result<(), SetupError> {
    let shown = shell_words(command);
    let output = std::process::Command::new(&command[0])
        .args(&command[1..])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| SetupError::Command {
            command: shown.clone(),
            message: e.to_string(),
        })?;
    if output.status.success() {
        return Ok(());
    }
    Err(SetupError::Command {
        command: shown,
        message: format!(
            "{} {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ),
    })
}

/// The text of a file, `None` when it does not exist.
fn read_text(path: &Path) -> Result<Option<String>, SetupError> {
    match crate::sidefile::read(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SetupError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The hook command a setup installs for `event`: the binary by its absolute path.
pub fn hook_command(target: &Target, event: Event) -> String {
    format!(
        "{} hook {} {}",
        shell_words(&[target.binary.to_string_lossy().into_owned()]),
        target.agent.as_str(),
        event.as_str()
    )
}

/// Whether `command` is a hook a setup installed for `agent` (by any binary named
/// `pi-context…`, moved or not): `<binary> hook <agent> <event>`.
pub fn is_our_hook(command: &str, agent: Harness) -> bool {
    let Some(rest) = command
        .trim_end()
        .rsplit_once(&format!(" hook {} ", agent.as_str()))
    else {
        return false;
    };
    let program = rest.0.trim().trim_matches('\'').trim_matches('"');
    let named = Path::new(program)
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("pi-context"));
    named && Event::parse(rest.1.trim()).is_some()
}

/// How the setup of an agent stands (`setup --status`).
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub agent: Harness,
    pub mcp: McpStatus,
    pub hooks: Vec<HookStatus>,
    /// What a person should know (a hook the agent will not run, …).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct McpStatus {
    pub registered: bool,
    /// Where the registration was read.
    pub file: PathBuf,
    pub command: Option<String>,
    pub binary_present: Option<bool>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HookStatus {
    pub event: &'static str,
    pub installed: bool,
    pub command: Option<String>,
    /// Whether the binary the hook names exists and runs.
    pub binary_present: Option<bool>,
    /// Its `--version`, when it runs.
    pub binary_version: Option<String>,
    /// Whether that is this binary's version.
    pub current_version: Option<bool>,
    /// Whether the agent runs it (Codex runs only trusted hooks); `None` when it needs no trust.
    pub trusted: Option<bool>,
    pub last_run: Option<status::LastRun>,
}

impl HookStatus {
    /// The status of the hook for `event` whose command a setup found (`None`: not installed);
    /// the rest is filled in by [`status`], and by the agent's setup where it needs trust.
    pub fn of(event: Event, command: Option<String>) -> HookStatus {
        HookStatus {
            event: event.as_str(),
            installed: command.is_some(),
            command,
            binary_present: None,
            binary_version: None,
            current_version: None,
            trusted: None,
            last_run: None,
        }
    }
}

/// The status of `target`'s agent: what its files hold, and how each hook last ran (from the
/// records in `cache`).
pub fn status(target: &Target, cache: Option<&Path>) -> Result<Status, SetupError> {
    let mut status = match config_of(target)? {
        AgentConfig::Claude => claude::status(target)?,
        AgentConfig::Codex => codex::status(target)?,
        AgentConfig::Copilot => copilot::status(target)?,
        AgentConfig::Cursor => cursor::status(target)?,
        AgentConfig::Gemini => gemini::status(target)?,
        AgentConfig::OpenCode => opencode::status(target)?,
    };
    for hook in &mut status.hooks {
        let event = Event::parse(hook.event).expect("a status names a known event");
        hook.last_run = cache.and_then(|cache| status::last_run(cache, target.agent, event));
        if let Some(command) = &hook.command {
            let (present, version) = binary_of(command);
            hook.binary_present = Some(present);
            hook.current_version = version
                .as_deref()
                .map(|v| v.ends_with(env!("CARGO_PKG_VERSION")));
            hook.binary_version = version;
        }
    }
    if let Some(command) = &status.mcp.command {
        status.mcp.binary_present = Some(binary_of(command).0);
    }
    Ok(status)
}

/// Whether the program a command names exists and runs, and its `--version`.
fn binary_of(command: &str) -> (bool, Option<String>) {
    let program = command
        .split(" hook ")
        .next()
        .unwrap_or(command)
        .trim()
        .trim_matches('\'')
        .to_string();
    let path = Path::new(&program);
    if !path.is_file() {
        return (false, None);
    }
    let version = std::process::Command::new(path)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    (version.is_some(), version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_hooks_are_known_by_their_command_wherever_the_binary_is() {
        let claude = Harness::Claude;
        assert!(is_our_hook(
            "/usr/bin/pi-context hook claude prompt",
            claude
        ));
        assert!(is_our_hook(
            "'/home/a b/.cargo/bin/pi-context' hook claude session-start",
            claude
        ));
        assert!(!is_our_hook(
            "/usr/bin/pi-context hook codex prompt",
            claude
        ));
        assert!(!is_our_hook("/usr/bin/other hook claude prompt", claude));
        assert!(!is_our_hook(
            "/usr/bin/pi-context hook claude nonsense",
            claude
        ));
        assert!(!is_our_hook("echo hi", claude));
    }

    #[test]
    fn a_diff_shows_each_changed_file_and_each_command() {
        let plan = Plan {
            files: vec![
                FileChange {
                    path: "/x/settings.json".into(),
                    before: Some("{}\n".into()),
                    after: Some("{\n  \"a\": 1\n}\n".into()),
                },
                FileChange {
                    path: "/x/same.json".into(),
                    before: Some("{}\n".into()),
                    after: Some("{}\n".into()),
                },
            ],
            commands: vec![vec!["claude".into(), "mcp".into(), "a b".into()]],
            notes: Vec::new(),
        };
        let diff = plan.diff();
        assert!(diff.contains("+++ /x/settings.json") && diff.contains("+  \"a\": 1"));
        assert!(!diff.contains("same.json"));
        assert!(diff.ends_with("$ claude mcp 'a b'\n"), "{diff}");
    }
}
