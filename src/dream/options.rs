//! What a dream run needs, resolved from the command line and the [`Environment`].

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::interrupt::Interrupt;
use super::{load_playbook, DreamError};
use crate::environment::Environment;
use crate::notes::identity::model_slug;

/// What the `dream` command line asked for. `None` and zero values mean "the default".
#[derive(Debug, Clone)]
pub struct DreamRequest {
    /// Skip unless this many hours passed since the last run (24).
    pub min_hours: f64,
    /// Skip unless this many sessions changed notes since the last run (3).
    pub min_sessions: u64,
    pub force: bool,
    pub dry_run: bool,
    /// `--dreamer`; else the `pi-context.dreamer` setting; else Pi's default model.
    pub dreamer: Option<String>,
    /// `--playbook`; else the compiled-in one.
    pub playbook: Option<PathBuf>,
    /// `--pi`; else `$PI_CONTEXT_PI`; else `pi` on `PATH`.
    pub pi: Option<PathBuf>,
    /// Empty the wastebasket of notes crumpled longer ago than this.
    pub purge_after: Duration,
}

impl Default for DreamRequest {
    fn default() -> Self {
        DreamRequest {
            min_hours: 24.0,
            min_sessions: 3,
            force: false,
            dry_run: false,
            dreamer: None,
            playbook: None,
            pi: None,
            purge_after: Duration::from_secs(30 * 86_400),
        }
    }
}

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct DreamOptions {
    pub home: PathBuf,
    pub now: SystemTime,
    pub min_hours: f64,
    pub min_sessions: u64,
    pub force: bool,
    pub dry_run: bool,
    pub pi: PathBuf,
    /// The dreamer model pattern; `None` lets Pi choose its default.
    pub model: Option<String>,
    pub playbook: String,
    /// The dreamer's agent slug (its writable `agents/<agent>/`).
    pub agent: String,
    /// The dreamer model's slug (its writable `models/<model>/`).
    pub model_slug: String,
    /// Notes crumpled longer ago than this are removed from the wastebasket after the audit.
    pub purge_after: Duration,
    /// The user's home directory (what `~` means in the dreamer's paths).
    pub user_home: PathBuf,
    /// Set by SIGINT, SIGTERM or SIGHUP; an interrupted run fails cleanly.
    pub interrupt: Interrupt,
}

impl DreamOptions {
    /// The options of a run: the notes home, agent, clock and settings from `env`, the rest from
    /// `request`. The dreamer's model slug is the same rule as every model's
    /// ([`model_slug`]).
    pub fn resolve(
        env: &Environment,
        request: &DreamRequest,
        interrupt: Interrupt,
    ) -> Result<DreamOptions, DreamError> {
        if !(request.min_hours.is_finite() && request.min_hours >= 0.0) {
            return Err(DreamError::InvalidOption(
                "--min-hours must be a number of hours, 0 or more".into(),
            ));
        }
        let model = request
            .dreamer
            .clone()
            .or_else(|| env.settings().dreamer.clone());
        Ok(DreamOptions {
            home: env.notes_home()?.to_path_buf(),
            now: env.clock.system_time(),
            min_hours: request.min_hours,
            min_sessions: request.min_sessions,
            force: request.force,
            dry_run: request.dry_run,
            pi: resolve_pi(request.pi.clone(), env),
            model_slug: model
                .as_deref()
                .map_or_else(|| crate::environment::DEFAULT_MODEL.to_string(), model_slug),
            model,
            playbook: load_playbook(request.playbook.as_deref())?,
            agent: env.agent.clone(),
            purge_after: request.purge_after,
            user_home: env.user_home.clone().unwrap_or_else(|| PathBuf::from("/")),
            interrupt,
        })
    }
}

/// Where `pi` is: the flag, else `$PI_CONTEXT_PI`, else `pi` on `PATH`. A relative path with a
/// directory part is made absolute, since the dreamer runs in the home.
fn resolve_pi(flag: Option<PathBuf>, env: &Environment) -> PathBuf {
    let pi = flag
        .filter(|p| !p.as_os_str().is_empty())
        .or_else(|| {
            env.var(crate::environment::vars::PI_CONTEXT_PI)
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from("pi"));
    if pi.is_relative() && pi.components().count() > 1 {
        return env.cwd.join(pi);
    }
    pi
}
