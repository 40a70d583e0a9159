pub mod boot;
pub mod checkpoint;
pub mod completions;
pub mod dream;
pub mod history;
pub mod hook;
pub mod man;
pub mod mcp;
pub mod notes;
pub mod sessions;
pub mod setup;
pub mod stats;
pub mod tool;

/// Which part of a text a READ WINDOW shows: shared by `history read` and `notes read`.
#[derive(Debug, clap::Args)]
pub struct WindowArgs {
    /// Start at this code point; negative counts from the end
    #[arg(
        long = "offset",
        value_name = "CHARS",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub offset_chars: i64,
    /// Code points to read (at most 50000)
    #[arg(long = "limit", value_name = "CHARS",
          default_value_t = pi_context::wire::DEFAULT_READ_CHARS as u64,
          value_parser = clap::value_parser!(u64).range(1..=pi_context::wire::MAX_READ_CHARS as u64))]
    pub limit_chars: u64,
}

/// A `--session` value shorter than this is a file name, never an id prefix.
const SESSION_PREFIX_MIN_CHARS: usize = 8;

/// The session file a `--session FILE|ID` value names: an existing path; else an id or unique
/// prefix (no `/`, at least 8 characters) of a session under the roots; else a missing file.
pub fn session_file(
    given: &std::path::Path,
    env: &pi_context::environment::Environment,
) -> Result<std::path::PathBuf, crate::cli::error::CommandError> {
    if given.exists() {
        return Ok(given.to_path_buf());
    }
    let text = given.to_string_lossy();
    if text.contains('/') || text.chars().count() < SESSION_PREFIX_MIN_CHARS {
        return Ok(given.to_path_buf());
    }
    Ok(pi_context::recall::resolve_session(&env.sessions_roots(), &text)?.path)
}
