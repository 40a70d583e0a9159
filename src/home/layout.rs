//! The fixed names in a notes home besides the notes themselves, in one place: the store, the
//! dream, its audit and `dream doctor` all read them from here.

/// The homes' directories (docs/notes.md, "Addresses").
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

/// Whether `text` holds a kept conflict: a start, a separator and an end marker line, in order.
pub fn has_conflict_markers(text: &str) -> bool {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    marker_block(&lines).is_some()
}

/// The indices of a start, a separator and an end marker line, in order, if `lines` (each with
/// its terminator) has them.
pub fn marker_block(lines: &[&str]) -> Option<(usize, usize, usize)> {
    let start = lines.iter().position(|l| l.starts_with(CONFLICT_START))?;
    let separator = start
        + 1
        + lines[start + 1..]
            .iter()
            .position(|l| l.trim_end_matches(['\n', '\r']) == CONFLICT_SEPARATOR)?;
    let end = separator
        + 1
        + lines[separator + 1..]
            .iter()
            .position(|l| l.starts_with(CONFLICT_END))?;
    Some((start, separator, end))
}

/// Temp files of the atomic writes are `.pi-context.<pid>.<nanos>.<n>.tmp`: hidden, never `.md`.
pub const TEMP_PREFIX: &str = ".pi-context.";
pub const TEMP_SUFFIX: &str = ".tmp";

/// Whether a file name is a temp file of an atomic write in progress (or of a killed writer).
pub fn is_temp_file(name: &str) -> bool {
    name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)
}

/// The entries at the root of a home that are the store's own machinery: the repository, the
/// note locks, the dream's and the sync's locks and the live-write journal.
pub const ROOT_MACHINERY: [&str; 6] = [
    GIT_DIR,
    LOCK_DIR,
    DREAM_LOCK,
    LAST_RUN,
    JOURNAL_DIR,
    SYNC_LOCK,
];

/// Whether the entry `name` (directly in the home when `at_root`) is the store's machinery
/// rather than content: one of [`ROOT_MACHINERY`] at the root, a temp file of a write anywhere.
/// Machinery is never a note, never committed as a change, never taken from a sync's remote.
pub fn is_machinery(name: &str, at_root: bool) -> bool {
    is_temp_file(name) || (at_root && ROOT_MACHINERY.contains(&name))
}
