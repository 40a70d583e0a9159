//! Configuration read from the environment, in one place.

use std::path::PathBuf;

use pi_context::session::OpenOptions;

/// Sessions smaller than this are parsed directly; larger ones keep an index in the cache.
const DEFAULT_INDEX_MIN_BYTES: u64 = 1 << 20;

/// Where session indexes live: `<cache>/sessions`, where `<cache>` is `$PI_CONTEXT_CACHE_DIR`,
/// else `$XDG_CACHE_HOME/pi-context`, else `~/.cache/pi-context`. `PI_CONTEXT_SESSION_INDEX=off`
/// turns the index off; `PI_CONTEXT_CACHE_MIN_BYTES` sets the smallest session that is indexed.
pub fn session_open_options() -> OpenOptions {
    let disabled = std::env::var("PI_CONTEXT_SESSION_INDEX").is_ok_and(|v| v == "off" || v == "0");
    let cache_dir = (!disabled)
        .then(cache_root)
        .flatten()
        .map(|root| root.join("sessions"));
    let cache_min_bytes = std::env::var("PI_CONTEXT_CACHE_MIN_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_INDEX_MIN_BYTES);
    OpenOptions {
        cache_dir,
        cache_min_bytes,
    }
}

/// The recall index directory `<cache>/recall` and the session roots (CONTRACT §10.1): the
/// `--sessions-dir` flags, else `$PI_CODING_AGENT_SESSION_DIR`, else Pi's `sessionDir` setting;
/// always `<agent dir>/sessions`; and the live session's directory when a tool call sends one.
pub fn recall(
    sessions_dirs: &[PathBuf],
    live_session_dir: Option<PathBuf>,
) -> Result<pi_context::recall::Recall, crate::cli::error::CommandError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    recall_at(sessions_dirs, &cwd, live_session_dir)
}

/// [`recall`] for a given working directory (a tool call's `cwd`).
pub fn recall_at(
    sessions_dirs: &[PathBuf],
    cwd: &std::path::Path,
    live_session_dir: Option<PathBuf>,
) -> Result<pi_context::recall::Recall, crate::cli::error::CommandError> {
    let dir = cache_root()
        .map(|root| root.join("recall"))
        .ok_or_else(|| {
            crate::cli::error::CommandError::usage("no cache directory")
                .with_hint("set PI_CONTEXT_CACHE_DIR or HOME")
        })?;
    let now = now().map_err(crate::cli::error::CommandError::usage)?;
    Ok(pi_context::recall::Recall {
        dir,
        roots: session_roots(sessions_dirs, cwd, live_session_dir),
        session_options: session_open_options(),
        now_ms: jiff::Timestamp::try_from(now)
            .map(|t| t.as_millisecond())
            .unwrap_or(0),
    })
}

/// The session roots as [`recall`] resolves them, for a given working directory.
pub fn session_roots(
    sessions_dirs: &[PathBuf],
    cwd: &std::path::Path,
    live_session_dir: Option<PathBuf>,
) -> Vec<PathBuf> {
    let home = home_dir();
    pi_context::recall::session_roots(&pi_context::recall::RootsInput {
        explicit: sessions_dirs.to_vec(),
        env_session_dir: non_empty_env("PI_CODING_AGENT_SESSION_DIR"),
        agent_dir: pi_context::settings::agent_dir(&home),
        cwd: cwd.to_path_buf(),
        home,
        live_session_dir,
    })
}

fn cache_root() -> Option<PathBuf> {
    non_empty_env("PI_CONTEXT_CACHE_DIR").or_else(|| {
        non_empty_env("XDG_CACHE_HOME")
            .or_else(|| non_empty_env("HOME").map(|home| home.join(".cache")))
            .map(|cache| cache.join("pi-context"))
    })
}

fn non_empty_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The notes home: the flag, else `$PI_NOTES_HOME` (if non-empty), else `~/.agents/notes`.
pub fn notes_home(flag: Option<PathBuf>) -> PathBuf {
    flag.or_else(|| non_empty_env("PI_NOTES_HOME"))
        .unwrap_or_else(|| home_dir().join(".agents").join("notes"))
}

pub fn home_dir() -> PathBuf {
    non_empty_env("HOME").unwrap_or_else(|| PathBuf::from("/"))
}

/// Now: `$PI_CONTEXT_NOW` (RFC 3339, for tests and reproducible runs) when set, else the clock.
pub fn now() -> Result<std::time::SystemTime, String> {
    match std::env::var("PI_CONTEXT_NOW") {
        Ok(value) if !value.is_empty() => value
            .parse::<jiff::Timestamp>()
            .map(std::time::SystemTime::from)
            .map_err(|e| format!("PI_CONTEXT_NOW={value:?} is not an RFC 3339 time: {e}")),
        _ => Ok(std::time::SystemTime::now()),
    }
}
