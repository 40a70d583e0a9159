//! One exclusive cross-process lock per note.
//!
//! The lock is an fs2 (flock) lock on `<home>/.locks/<sha1 of the note's home-relative path>.lock`,
//! never on the note itself: the note is replaced by rename, so a lock on its inode would guard a
//! file that is no longer there. Lock files are never removed, because removing one while another
//! process waits on it would let two holders in.

use std::fs::{File, OpenOptions};
use std::path::Path;

use fs2::FileExt;
use sha1::{Digest, Sha1};

use super::error::NotesError;
use super::files;

/// The directory of lock files, directly under the notes home.
pub const LOCK_DIR: &str = ".locks";

/// Held for the life of the value; dropping it closes the file, which releases the lock.
#[derive(Debug)]
pub struct NoteLock {
    _file: File,
}

/// Blocks until this process holds the lock of the note at `relative` (relative to `home`).
pub fn lock(home: &Path, relative: &str) -> Result<NoteLock, NotesError> {
    files::ensure_dirs(home, &[LOCK_DIR])?;
    let path = home.join(LOCK_DIR).join(lock_name(relative));
    let file = files::nofollow(OpenOptions::new().read(true).write(true).create(true))
        .open(&path)
        .map_err(|e| NotesError::io(format!("cannot open lock file {}", path.display()), e))?;
    file.lock_exclusive()
        .map_err(|e| NotesError::io(format!("cannot lock {}", path.display()), e))?;
    Ok(NoteLock { _file: file })
}

fn lock_name(relative: &str) -> String {
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
        let held = lock(dir.path(), "human/a.md").unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path().join(LOCK_DIR))
            .unwrap()
            .collect();
        assert_eq!(names.len(), 1);
        assert!(!dir.path().join("human").exists());
        drop(held);
        // A second lock of the same note succeeds once the first is released.
        let _again = lock(dir.path(), "human/a.md").unwrap();
    }
}
