pub mod boot;
pub mod completions;
pub mod dream;
pub mod history;
pub mod man;
pub mod notes;
pub mod sessions;
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
