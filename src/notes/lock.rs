//! One exclusive cross-process lock per note.
//!
//! The lock is an exclusive `flock` (`File::lock`) on `<home>/.locks/<sha1 of the note's home-relative path>.lock`,
//! never on the note itself: the note is replaced by rename, so a lock on its inode would guard a
//! file that is no longer there. Lock files are never removed, because removing one while another
//! process waits on it would let two holders in. The lock directory and file are reached through
//! the home's handle and never through a link.

use std::fs::File;

use sha1::{Digest, Sha1};

use super::error::NotesError;
use super::files;
use crate::beneath::{BeneathError, Dir};

pub use crate::home::layout::LOCK_DIR;

/// Held for the life of the value; dropping it closes the file, which releases the lock.
#[derive(Debug)]
#[must_use = "the lock is released when the guard is dropped"]
pub struct NoteLock {
    _file: File,
}

/// Why a lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// The home cannot be written (read-only, permission denied, full), or `.locks` is not a
    /// usable directory: a caller that only reads may go on without the lock.
    Unwritable {
        reason: &'static str,
        error: NotesError,
    },
    Failed(NotesError),
}

impl From<LockError> for NotesError {
    fn from(error: LockError) -> NotesError {
        match error {
            LockError::Unwritable { error, .. } | LockError::Failed(error) => error,
        }
    }
}

/// Blocks until this process holds the lock of the note at `relative` (relative to the notes
/// home `root`).
pub fn lock(root: &Dir, relative: &str) -> Result<NoteLock, LockError> {
    let locks = root
        .create_dir(LOCK_DIR)
        .map_err(files::notes_error)
        .map_err(|e| classify(e, true))?;
    let name = lock_name(relative);
    let file = locks.open_or_create_file(&name).map_err(|e| {
        let error = match e {
            BeneathError::Io {
                action,
                path,
                source,
            } => NotesError::io(
                format!("cannot {action} lock file {}", path.display()),
                source,
            ),
            other => files::notes_error(other),
        };
        classify(error, true)
    })?;
    file.lock().map_err(|e| {
        let what = format!("cannot lock {}", locks.path().join(&name).display());
        classify(NotesError::io(what, e), false)
    })?;
    Ok(NoteLock { _file: file })
}

/// Sorts a failure into "cannot write here" (read-only, full, or a lock directory or file that
/// is a link or not what it should be) and anything else.
fn classify(error: NotesError, in_lock_dir: bool) -> LockError {
    if let Some(reason) = files::unwritable_reason(&error) {
        return LockError::Unwritable { reason, error };
    }
    let unusable = matches!(error, NotesError::InvalidAddress { .. })
        || matches!(&error, NotesError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotADirectory);
    if in_lock_dir && unusable {
        return LockError::Unwritable {
            reason: "the lock directory .locks is unusable",
            error,
        };
    }
    LockError::Failed(error)
}

/// The lock of the note at `relative` if no other process holds it now; `None` when one does.
pub fn try_lock(root: &Dir, relative: &str) -> Result<Option<NoteLock>, NotesError> {
    try_lock_named(root, &lock_name(relative))
}

/// [`try_lock`] by the lock file's name ([`lock_name`]).
pub fn try_lock_named(root: &Dir, name: &str) -> Result<Option<NoteLock>, NotesError> {
    let Some(locks) = root.open_dir(LOCK_DIR).map_err(files::notes_error)? else {
        return Ok(None);
    };
    let file = locks
        .open_or_create_file(name)
        .map_err(files::notes_error)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(NoteLock { _file: file })),
        Err(_) => Ok(None),
    }
}

/// Whether `name` is a name [`lock_name`] gives.
pub fn is_lock_name(name: &str) -> bool {
    name.strip_suffix(".lock")
        .is_some_and(|hex| hex.len() == 40 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The lock file's name of the note at `relative`: the SHA-1 of the path, in hex.
pub fn lock_name(relative: &str) -> String {
    let digest = Sha1::digest(relative.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}.lock")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_files_live_under_the_lock_dir() {
        let dir = tempfile::tempdir().unwrap();
        let root = Dir::open_root(dir.path()).unwrap().unwrap();
        let held = lock(&root, "human/a.md").unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path().join(LOCK_DIR))
            .unwrap()
            .collect();
        assert_eq!(names.len(), 1);
        assert!(!dir.path().join("human").exists());
        drop(held);
        // A second lock of the same note succeeds once the first is released.
        let _again = lock(&root, "human/a.md").unwrap();
    }

    #[test]
    fn an_unusable_lock_dir_is_unwritable_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let root = Dir::open_root(dir.path()).unwrap().unwrap();
        std::fs::write(dir.path().join(LOCK_DIR), "").unwrap();
        assert!(matches!(
            lock(&root, "human/a.md"),
            Err(LockError::Unwritable { .. })
        ));
        std::fs::remove_file(dir.path().join(LOCK_DIR)).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(LOCK_DIR)).unwrap();
        assert!(matches!(
            lock(&root, "human/a.md"),
            Err(LockError::Unwritable { .. })
        ));
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
