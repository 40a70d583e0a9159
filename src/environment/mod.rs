//! The one place where every default is decided.
//!
//! A process reads its environment once ([`Vars::capture`]) and resolves, from that and from
//! what its caller says ([`Inputs`]: command-line flags, a tool call's context, a boot request),
//! one [`Environment`]: the notes home, session, project key, agent and model, the clock, the
//! cache directory, Pi's agent directory and settings, and the session roots. Every command and
//! every tool call reads these from the `Environment` it was given; nothing below looks at the
//! process environment on its own.
//!
//! | what | flag / context | environment | default |
//! |---|---|---|---|
//! | notes home | `--notes-home`, `notes_home` | `PI_NOTES_HOME` | `$HOME/.agents/notes` (an error without `HOME`) |
//! | session id | `--session-id`, `session_id` | `PI_CONTEXT_SESSION_ID` | none |
//! | project key | `--project-key`, or `--cwd`/`cwd` | — | `project_key(cwd)` (notes under its old path-based key are moved to it by the explicit step [`Environment::migrate_project_notes`]) |
//! | agent | `--agent`, `agent` | `PI_NOTES_AGENT` | `anonymous` (slugified) |
//! | model | `--model`, `model` | `PI_CONTEXT_MODEL` | `default` (last `/` segment, slugified) |
//! | clock | — | `PI_CONTEXT_NOW` (RFC 3339) | the system clock |
//! | cache | — | `PI_CONTEXT_CACHE_DIR`, `XDG_CACHE_HOME` | `$HOME/.cache/pi-context` |
//! | session index | — | `PI_CONTEXT_SESSION_INDEX=off`, `PI_CONTEXT_CACHE_MIN_BYTES` | on, 1 MiB |
//! | secrets masked (docs/recall.md, "Secrets") | — | `PI_CONTEXT_REDACT=off` (unsafe) | on |
//! | recall's settling time (hidden, for tests) | — | `PI_CONTEXT_SETTLE_MS` | 2 s |
//! | files a search looks at (hidden, for tests) | — | `PI_CONTEXT_RECALL_CHECKS` (`HOT,SWEEP`) | 64, 256 |
//! | Pi's agent dir | — | `PI_CODING_AGENT_DIR` | `$HOME/.pi/agent` |
//! | session roots | `--sessions-dir`, `--claude-dir`, `--codex-dir`, `session_dir` | `PI_CODING_AGENT_SESSION_DIR`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME` | docs/recall.md, "Where sessions are" |
//! | host name (sync's markers) | — | — | `gethostname`, else the notes home's name |
//!
//! Every variable is declared once, with its meaning and default, in [`vars`]; `Vars` reads
//! only declared ones.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use jiff::Timestamp;

mod roots;
pub mod vars;

pub use roots::{
    agent_config_dir, default_roots_help, session_roots, settings_session_dir, RootsInput,
};

use crate::clock::Clock;
use crate::notes::identity::{self, checked_component, model_slug, slugify, ProjectKeys};
use crate::notes::migrate::{self, Migration};
use crate::notes::{Identity, NotesError, Store};
use crate::recall;
use crate::session::OpenOptions;
use crate::session::Root;
use crate::settings::{self, Settings};
use vars::EnvVar;

pub const DEFAULT_AGENT: &str = "anonymous";
pub const DEFAULT_MODEL: &str = "default";
/// Sessions smaller than this are parsed directly; larger ones keep an index in the cache.
pub const DEFAULT_INDEX_MIN_BYTES: u64 = 1 << 20;

/// The process environment, read once. Empty values count as unset. A clone shares the values.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    vars: Arc<BTreeMap<String, OsString>>,
}

impl Vars {
    /// The variables of this process.
    pub fn capture() -> Vars {
        Vars {
            vars: Arc::new(
                std::env::vars_os()
                    .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
                    .filter(|(_, v)| !v.is_empty())
                    .collect(),
            ),
        }
    }

    /// Given variables (tests, embedders).
    pub fn from_pairs<K: Into<String>, V: Into<OsString>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Vars {
        Vars {
            vars: Arc::new(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .filter(|(_, v)| !v.is_empty())
                    .collect(),
            ),
        }
    }

    pub fn text(&self, var: EnvVar) -> Option<String> {
        self.vars
            .get(var.name)
            .map(|v| v.to_string_lossy().into_owned())
    }

    pub fn path(&self, var: EnvVar) -> Option<PathBuf> {
        self.vars.get(var.name).map(PathBuf::from)
    }
}

/// What the caller knows: flags, a tool call's context or a boot request. Unset (or empty)
/// fields fall back to the environment, then to the defaults.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub notes_home: Option<PathBuf>,
    pub session_id: Option<String>,
    pub project_key: Option<String>,
    /// The directory whose project applies (default: the process's working directory).
    pub cwd: Option<PathBuf>,
    pub agent: Option<String>,
    pub model: Option<String>,
    /// The session roots the command line named (`--sessions-dir`, `--claude-dir`, …): when
    /// any is given, the only ones (plus the live session's directory).
    pub roots: Vec<Root>,
    /// Pi's `getSessionDir()` of the live session (tool calls and boots).
    pub live_session_dir: Option<PathBuf>,
}

/// Why the environment cannot be resolved.
#[derive(Debug, thiserror::Error)]
pub enum EnvironmentError {
    #[error("no notes home: set PI_NOTES_HOME or HOME, or pass --notes-home")]
    NoNotesHome,
    #[error("no cache directory: set PI_CONTEXT_CACHE_DIR, XDG_CACHE_HOME or HOME")]
    NoCacheDir,
    #[error("PI_CONTEXT_NOW={value:?} is not an RFC 3339 time: {reason}")]
    BadClock { value: String, reason: String },
    #[error("cannot read the current directory: {0}")]
    NoCwd(std::io::Error),
    #[error(transparent)]
    Identity(#[from] NotesError),
}

/// Everything a command or a tool call needs to know about where it runs.
#[derive(Debug)]
pub struct Environment {
    vars: Vars,
    /// `$HOME`, when set.
    pub user_home: Option<PathBuf>,
    /// The directory whose project applies, absolute.
    pub cwd: PathBuf,
    notes_home: Option<PathBuf>,
    pub session_id: Option<String>,
    explicit_project_key: Option<String>,
    /// The agent's slug.
    pub agent: String,
    /// The model as given (`provider/id`), when one was.
    pub model_id: Option<String>,
    /// The model's slug.
    pub model: String,
    pub clock: Clock,
    explicit_roots: Vec<Root>,
    live_session_dir: Option<PathBuf>,
    /// Shared with the environments of the calls made from this one ([`Environment::for_call`]).
    once: Arc<OncePerProcess>,
    settings: OnceLock<Settings>,
}

/// What a process works out at most once, however many calls it answers: the project key (a
/// look into the project's git configuration) and the move of the project's notes to it.
#[derive(Debug, Default)]
struct OncePerProcess {
    project_keys: OnceLock<ProjectKeys>,
    migration: OnceLock<Option<Result<Migration, NotesError>>>,
}

impl Environment {
    /// Resolves every default from `inputs` and `vars`. Session ids and project keys are
    /// checked here (one safe directory name each); the notes home and the cache are checked
    /// when they are needed, so a command that needs neither runs without them.
    pub fn resolve(inputs: Inputs, vars: &Vars) -> Result<Environment, EnvironmentError> {
        let non_empty = |v: Option<String>| v.filter(|s| !s.is_empty());
        let non_empty_path = |v: Option<PathBuf>| v.filter(|p| !p.as_os_str().is_empty());
        let process_cwd = std::env::current_dir().map_err(EnvironmentError::NoCwd);
        let cwd = match non_empty_path(inputs.cwd) {
            Some(dir) if dir.is_absolute() => dir,
            Some(dir) => process_cwd?.join(dir),
            None => process_cwd?,
        };
        let absolute = |p: PathBuf| if p.is_absolute() { p } else { cwd.join(p) };
        let notes_home = non_empty_path(inputs.notes_home)
            .or_else(|| vars.path(vars::PI_NOTES_HOME))
            .map(absolute)
            .or_else(|| {
                vars.path(vars::HOME)
                    .map(|h| h.join(".agents").join("notes"))
            });
        let session_id = non_empty(inputs.session_id)
            .or_else(|| vars.text(vars::PI_CONTEXT_SESSION_ID))
            .map(checked_component("session id"))
            .transpose()?;
        let explicit_project_key = non_empty(inputs.project_key)
            .map(checked_component("project key"))
            .transpose()?;
        let agent = slugify(
            &non_empty(inputs.agent)
                .or_else(|| vars.text(vars::PI_NOTES_AGENT))
                .unwrap_or_else(|| DEFAULT_AGENT.to_string()),
        );
        let model_id = non_empty(inputs.model).or_else(|| vars.text(vars::PI_CONTEXT_MODEL));
        let model = model_id
            .as_deref()
            .map_or_else(|| DEFAULT_MODEL.to_string(), model_slug);
        let clock = match vars.text(vars::PI_CONTEXT_NOW) {
            None => Clock::System,
            Some(value) => Clock::Fixed(value.parse::<Timestamp>().map_err(|e| {
                EnvironmentError::BadClock {
                    value: value.clone(),
                    reason: e.to_string(),
                }
            })?),
        };
        Ok(Environment {
            user_home: vars.path(vars::HOME),
            vars: vars.clone(),
            cwd,
            notes_home,
            session_id,
            explicit_project_key,
            agent,
            model_id,
            model,
            clock,
            explicit_roots: inputs.roots,
            live_session_dir: non_empty_path(inputs.live_session_dir),
            once: Arc::default(),
            settings: OnceLock::new(),
        })
    }

    /// The environment of one call of a long-lived process (the MCP server) that resolved
    /// `self` at its start: the same place and identity, as `agent` (slugified) when given and
    /// not empty.
    /// Nothing is resolved again: the project key and the move of the project's notes stay
    /// once per process, shared with `self`. Pi's settings are read again (at the call's first
    /// need), as a process per call would, so a change to them applies from the next call.
    pub fn for_call(&self, agent: Option<&str>) -> Environment {
        Environment {
            vars: self.vars.clone(),
            user_home: self.user_home.clone(),
            cwd: self.cwd.clone(),
            notes_home: self.notes_home.clone(),
            session_id: self.session_id.clone(),
            explicit_project_key: self.explicit_project_key.clone(),
            agent: agent
                .filter(|a| !a.is_empty())
                .map_or_else(|| self.agent.clone(), slugify),
            model_id: self.model_id.clone(),
            model: self.model.clone(),
            clock: self.clock,
            explicit_roots: self.explicit_roots.clone(),
            live_session_dir: self.live_session_dir.clone(),
            once: Arc::clone(&self.once),
            settings: OnceLock::new(),
        }
    }

    /// The notes home, absolute.
    pub fn notes_home(&self) -> Result<&Path, EnvironmentError> {
        self.notes_home
            .as_deref()
            .ok_or(EnvironmentError::NoNotesHome)
    }

    /// The project key: `--project-key`, else `project_key(cwd)` (computed once per process).
    pub fn project_key(&self) -> &str {
        &self.project_keys().key
    }

    /// The project key and, when it comes from the project's `origin` remote, the path-based
    /// key it replaces (never for an explicit `--project-key`).
    pub fn project_keys(&self) -> &ProjectKeys {
        self.once
            .project_keys
            .get_or_init(|| match &self.explicit_project_key {
                Some(key) => ProjectKeys {
                    key: key.clone(),
                    path_key: None,
                },
                None => identity::project_keys(&self.cwd),
            })
    }

    /// Moves this project's notes from its path-based key to its remote-based key
    /// ([`migrate`]), at most once per process; the notes commands and tools and the boot run
    /// it as their first step.
    /// `None` when there was nothing to move; an error is what stopped it (the notes commands
    /// go on: they warn).
    pub fn migrate_project_notes(&self) -> Option<&Result<Migration, NotesError>> {
        self.once
            .migration
            .get_or_init(|| {
                let path_key = self.project_keys().path_key.clone()?;
                let store = self.notes_store().ok()?;
                migrate::migrate_project(&store, &path_key).transpose()
            })
            .as_ref()
    }

    /// The identity the notes store works for.
    pub fn notes_identity(&self) -> Result<Identity, EnvironmentError> {
        Ok(Identity {
            home: self.notes_home()?.to_path_buf(),
            session_id: self.session_id.clone(),
            project_key: self.project_key().to_string(),
            agent: self.agent.clone(),
            model: self.model.clone(),
        })
    }

    /// Now, by this process's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// `$PI_CONTEXT_CACHE_DIR`, else `$XDG_CACHE_HOME/pi-context`, else
    /// `$HOME/.cache/pi-context`.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        self.vars.path(vars::PI_CONTEXT_CACHE_DIR).or_else(|| {
            self.vars
                .path(vars::XDG_CACHE_HOME)
                .or_else(|| self.user_home.as_ref().map(|h| h.join(".cache")))
                .map(|cache| cache.join("pi-context"))
        })
    }

    /// How sessions are opened: their index lives in `<cache>/sessions` unless
    /// `PI_CONTEXT_SESSION_INDEX=off`; `PI_CONTEXT_CACHE_MIN_BYTES` sets the smallest session
    /// that is indexed.
    pub fn session_open_options(&self) -> OpenOptions {
        let disabled = self
            .vars
            .text(vars::PI_CONTEXT_SESSION_INDEX)
            .is_some_and(|v| v == "off" || v == "0");
        OpenOptions {
            cache_dir: (!disabled)
                .then(|| self.cache_dir())
                .flatten()
                .map(|root| root.join("sessions")),
            cache_min_bytes: self
                .vars
                .text(vars::PI_CONTEXT_CACHE_MIN_BYTES)
                .and_then(|v| v.parse().ok())
                .unwrap_or(DEFAULT_INDEX_MIN_BYTES),
        }
    }

    /// An agent's configuration directory, and whether its variable set it (see
    /// [`agent_config_dir`]).
    pub fn agent_config_dir(&self, harness: crate::session::Harness) -> Option<(PathBuf, bool)> {
        agent_config_dir(harness, &self.vars, self.user_home.as_deref())
    }

    /// `$PATH`, where programs are found.
    pub fn program_path(&self) -> Option<std::ffi::OsString> {
        self.vars.path(vars::PATH).map(PathBuf::into_os_string)
    }

    /// The documented variables set in this environment, by name: what an agent that starts
    /// pi-context with a stripped environment (Codex's MCP servers) is asked to pass on.
    pub fn documented_vars() -> Vec<&'static str> {
        vars::ALL
            .iter()
            .filter(|v| !v.hidden)
            .map(|v| v.name)
            .filter(|name| *name != "PATH")
            .chain(["TZ"])
            .collect()
    }

    /// Pi's agent directory: `$PI_CODING_AGENT_DIR`, else `$HOME/.pi/agent`; none without
    /// either (never a directory below `/`).
    pub fn pi_agent_dir(&self) -> Option<PathBuf> {
        self.vars
            .path(vars::PI_CODING_AGENT_DIR)
            .or_else(|| self.user_home.as_ref().map(|h| h.join(".pi").join("agent")))
    }

    /// pi-context's keys in Pi's settings files (read once).
    pub fn settings(&self) -> &Settings {
        self.settings
            .get_or_init(|| settings::load(self.pi_agent_dir().as_deref(), &self.cwd))
    }

    /// The session roots (docs/recall.md, "Where sessions are"), in order.
    pub fn sessions_roots(&self) -> Vec<Root> {
        session_roots(&RootsInput {
            explicit: self.explicit_roots.clone(),
            vars: self.vars.clone(),
            agent_dir: self.pi_agent_dir(),
            cwd: self.cwd.clone(),
            home: self.user_home.clone(),
            live_session_dir: self.live_session_dir.clone(),
            cache: self.cache_dir(),
        })
    }

    /// Whether notes changes are committed to the notes home's repository: on unless
    /// `PI_CONTEXT_NOTES_HISTORY` is `off` (`0`, `false`, `no`) or the `notesHistory` setting is
    /// `false` (the variable wins when it says either way). Always off for the dreamer: the
    /// dream's own commit records its changes.
    pub fn notes_history(&self) -> bool {
        if self.vars.text(vars::PI_CONTEXT_DREAM_TOKEN).is_some() {
            return false;
        }
        match self
            .vars
            .text(vars::PI_CONTEXT_NOTES_HISTORY)
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref()
        {
            Some("off" | "0" | "false" | "no") => false,
            Some("on" | "1" | "true" | "yes") => true,
            _ => self.settings().notes_history,
        }
    }

    /// The notes store of this identity, by this clock, with the notes history as configured.
    /// Asking for it moves no file: a command that works on this project's notes runs
    /// [`Environment::migrate_project_notes`] first, as its own step.
    pub fn notes_store(&self) -> Result<Store, EnvironmentError> {
        Ok(Store::with_clock(self.notes_identity()?, self.clock)
            .with_dreamer_token(self.vars.text(vars::PI_CONTEXT_DREAM_TOKEN))
            .with_history(self.notes_history())
            .with_list_cache(self.notes_list_cache())
            .with_settle(self.settle_time()))
    }

    /// Where `notes list` keeps its record of listings and frontmatter values: `<cache>/notes`,
    /// unless `PI_CONTEXT_NOTES_LIST_CACHE=off`.
    pub fn notes_list_cache(&self) -> Option<PathBuf> {
        let off = self
            .vars
            .text(vars::PI_CONTEXT_NOTES_LIST_CACHE)
            .is_some_and(|v| matches!(v.trim(), "off" | "0" | "false" | "no"));
        (!off)
            .then(|| self.cache_dir())
            .flatten()
            .map(|dir| dir.join("notes"))
    }

    /// The recall index and its inputs.
    pub fn recall(&self) -> Result<recall::Recall, EnvironmentError> {
        let dir = self
            .cache_dir()
            .ok_or(EnvironmentError::NoCacheDir)?
            .join("recall");
        Ok(recall::Recall {
            dir,
            roots: self.sessions_roots(),
            session_options: self.session_open_options(),
            now_ms: self.now().as_millisecond(),
            settle: self.settle_time(),
            harnesses: Vec::new(),
            masking: self.masking(),
            one_answer: false,
            live: None,
            checks: self.recall_checks(),
            report_checks: self.vars.text(vars::PI_CONTEXT_RECALL_CHECKS).is_some(),
        })
    }

    /// Whether secrets are masked in the recall index, its previews and reads of other
    /// sessions: on unless `PI_CONTEXT_REDACT=off` (docs/recall.md, "Secrets").
    pub fn masking(&self) -> crate::redact::Masking {
        let off = self
            .vars
            .text(vars::PI_CONTEXT_REDACT)
            .is_some_and(|v| matches!(v.trim(), "off" | "0" | "false" | "no"));
        if off {
            crate::redact::Masking::Off
        } else {
            crate::redact::Masking::On
        }
    }

    /// How long a file must be left alone before a record trusts what its stamp says (recall's
    /// catalog, the notes list record: docs/recall.md, docs/notes.md): `PI_CONTEXT_SETTLE_MS`
    /// (hidden, so tests need not sleep), else 2 s.
    fn settle_time(&self) -> std::time::Duration {
        self.vars
            .text(vars::PI_CONTEXT_SETTLE_MS)
            .and_then(|v| v.trim().parse().ok())
            .map_or(recall::DEFAULT_SETTLE, std::time::Duration::from_millis)
    }

    /// How many files of unchanged session directories a search looks at:
    /// `PI_CONTEXT_RECALL_CHECKS` (hidden, `HOT,SWEEP`, so tests can make every file cold), else
    /// the defaults (docs/recall.md, "Incremental refresh").
    fn recall_checks(&self) -> recall::Checks {
        self.vars
            .text(vars::PI_CONTEXT_RECALL_CHECKS)
            .and_then(|v| recall::Checks::parse(&v))
            .unwrap_or_default()
    }

    /// This machine's name (`gethostname`), else the notes home's directory name, else `here`:
    /// what a sync's conflict markers call our side.
    pub fn host_name(&self) -> String {
        let uname = rustix::system::uname();
        let host =
            Some(uname.nodename().to_string_lossy().trim().to_string()).filter(|h| !h.is_empty());
        host.or_else(|| {
            self.notes_home
                .as_deref()
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "here".to_string())
    }

    /// A variable of the process environment (for the few that only one command reads, such
    /// as `PI_CONTEXT_PI`).
    pub fn var(&self, var: EnvVar) -> Option<String> {
        self.vars.text(var)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(inputs: Inputs, vars: &[(&str, &str)]) -> Result<Environment, EnvironmentError> {
        Environment::resolve(inputs, &Vars::from_pairs(vars.iter().copied()))
    }

    #[test]
    fn flags_win_over_the_environment_and_empty_values_are_unset() {
        let env = resolve(
            Inputs {
                notes_home: Some("/flag".into()),
                agent: Some("".into()),
                model: Some("acme/Big.Model".into()),
                ..Inputs::default()
            },
            &[
                ("PI_NOTES_HOME", "/env"),
                ("PI_NOTES_AGENT", "Night Owl"),
                ("PI_CONTEXT_MODEL", "ignored"),
                ("HOME", "/home/u"),
            ],
        )
        .unwrap();
        assert_eq!(env.notes_home().unwrap(), Path::new("/flag"));
        assert_eq!(env.agent, "night-owl");
        assert_eq!(env.model, "big-model");
        assert_eq!(env.model_id.as_deref(), Some("acme/Big.Model"));
    }

    #[test]
    fn without_home_there_is_no_notes_home_for_anyone() {
        let env = resolve(Inputs::default(), &[]).unwrap();
        assert!(matches!(
            env.notes_home(),
            Err(EnvironmentError::NoNotesHome)
        ));
        assert!(env.notes_identity().is_err());
        assert!(env.cache_dir().is_none());
        let env = resolve(Inputs::default(), &[("HOME", "/h")]).unwrap();
        assert_eq!(env.notes_home().unwrap(), Path::new("/h/.agents/notes"));
        assert_eq!(env.cache_dir().unwrap(), Path::new("/h/.cache/pi-context"));
        assert_eq!(env.pi_agent_dir().unwrap(), Path::new("/h/.pi/agent"));
    }

    #[test]
    fn the_clock_is_parsed_once_and_a_bad_one_refused() {
        let env = resolve(
            Inputs::default(),
            &[("PI_CONTEXT_NOW", "2026-03-01T09:00:00Z")],
        )
        .unwrap();
        assert_eq!(env.now().to_string(), "2026-03-01T09:00:00Z");
        assert!(matches!(
            resolve(Inputs::default(), &[("PI_CONTEXT_NOW", "soon")]),
            Err(EnvironmentError::BadClock { .. })
        ));
    }

    #[test]
    fn session_ids_and_project_keys_are_one_safe_name() {
        for bad in ["..", "a/b", "a\0b"] {
            let inputs = Inputs {
                session_id: Some(bad.into()),
                ..Inputs::default()
            };
            assert!(resolve(inputs, &[]).is_err(), "{bad:?}");
        }
        let env = resolve(
            Inputs {
                project_key: Some("app-1a2b3c4d".into()),
                ..Inputs::default()
            },
            &[("PI_CONTEXT_SESSION_ID", "s1")],
        )
        .unwrap();
        assert_eq!(env.project_key(), "app-1a2b3c4d");
        assert_eq!(env.session_id.as_deref(), Some("s1"));
    }

    #[test]
    fn a_call_of_a_long_lived_process_shares_what_was_resolved_once() {
        let project = tempfile::tempdir().unwrap();
        let settings = project.path().join(".pi");
        std::fs::create_dir(&settings).unwrap();
        let settings = settings.join("settings.json");
        let base = resolve(
            Inputs {
                cwd: Some(project.path().to_path_buf()),
                agent: Some("Server".into()),
                session_id: Some("s1".into()),
                ..Inputs::default()
            },
            &[("HOME", "/h")],
        )
        .unwrap();
        assert!(base.settings().notes_history);

        let call = base.for_call(Some("Claude Code"));
        assert_eq!(call.agent, "claude-code");
        assert_eq!(base.for_call(None).agent, "server");
        assert_eq!(base.for_call(Some("")).agent, "server");
        assert_eq!(
            (call.cwd.as_path(), call.session_id.as_deref()),
            (project.path(), Some("s1"))
        );
        // The project key and the migration are the process's, not worked out again per call.
        assert!(std::ptr::eq(base.project_keys(), call.project_keys()));
        assert!(std::ptr::eq(&base.once.migration, &call.once.migration));
        // Pi's settings are read again by each call.
        std::fs::write(&settings, r#"{"pi-context": {"notesHistory": false}}"#).unwrap();
        assert!(base.settings().notes_history, "read once per environment");
        assert!(!base.for_call(None).settings().notes_history);
    }
}
