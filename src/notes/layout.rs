//! The fixed names in a notes home besides the notes themselves, in one place: the store, the
//! dream, its audit and `dream doctor` all read them from here.

/// The homes' directories (CONTRACT §3.1).
pub const HUMAN_DIR: &str = "human";
pub const PROJECT_DIR: &str = "project";
pub const AGENTS_DIR: &str = "agents";
pub const MODELS_DIR: &str = "models";
/// Session homes are `pi/session/<id>/`.
pub const SESSIONS_DIR: [&str; 2] = ["pi", "session"];

/// Per-note lock files (`<home>/.locks/<sha1>.lock`).
pub const LOCK_DIR: &str = ".locks";
/// Below `.locks`: a mark per note whose change is saved but not committed yet.
pub const PENDING_DIR: &str = "pending";
/// The dream lock, created with `O_CREAT|O_EXCL` by the run that holds it.
pub const DREAM_LOCK: &str = ".dream.lock";
/// Its mtime is when the last dream that took the lock started (the time gate).
pub const LAST_RUN: &str = ".dream.lock.last-run";
/// What live agents wrote while a dream ran, for that dream's audit (`<dir>/<lock token>/`).
pub const JOURNAL_DIR: &str = ".dream.journal";
/// Dream reports (`dreams/<stamp>.md`) and the versions a dream kept aside on a conflict.
pub const DREAMS_DIR: &str = "dreams";
/// The git repository of the notes history and the dream's audit trail.
pub const GIT_DIR: &str = ".git";
/// Held by `notes sync` (and `dream undo`) for the whole run, like the dream lock; a dream and
/// a sync never run at the same time.
pub const SYNC_LOCK: &str = ".sync.lock";

/// A note that holds two versions (a sync's merge conflict, or a forced `dream undo`) shows
/// them between these lines, as git does: `<<<<<<< <label>`, the one version, `=======`, the
/// other, `>>>>>>> <label>`. `dream doctor` flags every note that has them.
pub const CONFLICT_START: &str = "<<<<<<< ";
pub const CONFLICT_SEPARATOR: &str = "=======";
pub const CONFLICT_END: &str = ">>>>>>> ";

/// Temp files of the atomic writes are `.pi-context.<pid>.<nanos>.<n>.tmp`: hidden, never `.md`.
pub const TEMP_PREFIX: &str = ".pi-context.";
pub const TEMP_SUFFIX: &str = ".tmp";

/// Whether a file name is a temp file of an atomic write in progress (or of a killed writer).
pub fn is_temp_file(name: &str) -> bool {
    name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)
}
