//! Configuration read from the environment, in one place.

use std::path::PathBuf;

use pi_context::session::OpenOptions;

/// Sessions smaller than this are parsed directly; larger ones keep an index in the cache.
const DEFAULT_INDEX_MIN_BYTES: u64 = 1 << 20;

/// Where session indexes live: `$PI_CONTEXT_CACHE_DIR` (empty disables the index), else
/// `$XDG_CACHE_HOME/pi-context/sessions`, else `~/.cache/pi-context/sessions`.
pub fn session_open_options() -> OpenOptions {
    let cache_dir = match std::env::var_os("PI_CONTEXT_CACHE_DIR") {
        Some(dir) if dir.is_empty() => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => non_empty_env("XDG_CACHE_HOME")
            .or_else(|| non_empty_env("HOME").map(|home| home.join(".cache")))
            .map(|cache| cache.join("pi-context").join("sessions")),
    };
    let cache_min_bytes = std::env::var("PI_CONTEXT_CACHE_MIN_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_INDEX_MIN_BYTES);
    OpenOptions {
        cache_dir,
        cache_min_bytes,
    }
}

fn non_empty_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}
