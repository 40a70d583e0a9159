//! The dream lock: `<home>/.dream.lock`, created with one `O_CREAT|O_EXCL` open.
//!
//! An existing lock refuses a run whatever its content or age; only the run that created it
//! removes it. While a run holds it, the process also keeps an advisory (fs2) exclusive lock on
//! the file, so `dream doctor` can tell a live lock from one left by a crashed run.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use fs2::FileExt;

pub use crate::notes::layout::{DREAM_LOCK as LOCK_FILE, LAST_RUN as LAST_RUN_FILE};

/// A held lock. Dropping it without [`DreamLock::release`] or [`DreamLock::fail`] leaves the
/// lock file in place, as a crash would.
#[derive(Debug)]
pub struct DreamLock {
    path: PathBuf,
    last_run: PathBuf,
    content: String,
    /// Kept open: the advisory lock lives as long as this handle.
    file: File,
    prior_last_run: Option<SystemTime>,
}

/// What a lock file on disk says about its holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockState {
    Absent,
    /// A process holds the advisory lock: a dream is running (pid from the content, if readable).
    Live {
        pid: Option<u32>,
    },
    /// No process holds it: left behind by a run that died.
    Stale {
        content: String,
    },
}

/// Tries to take the lock. `Ok(None)`: somebody else's lock is there (or the file could not be
/// created for another reason that an existing lock explains).
pub fn acquire(home: &Path, now: SystemTime) -> io::Result<Option<DreamLock>> {
    let Some(lock) = take(home)? else {
        return Ok(None);
    };
    if let Err(e) = lock.stamp_last_run(now) {
        // Not a run: leave no lock behind, or every later run would be refused.
        let _ = lock.fail();
        return Err(e);
    }
    Ok(Some(lock))
}

/// Takes the lock for work on the store that is not a dream run (`dream undo`): no dream can
/// start meanwhile, and the last-run time (the time gate) is left alone. Release it with
/// [`DreamLock::release`].
pub fn acquire_without_run(home: &Path) -> io::Result<Option<DreamLock>> {
    take(home)
}

fn take(home: &Path) -> io::Result<Option<DreamLock>> {
    let path = home.join(LOCK_FILE);
    let last_run = home.join(LAST_RUN_FILE);
    let prior_last_run = fs::metadata(&last_run).and_then(|m| m.modified()).ok();
    let mut file = match OpenOptions::new().write(true).create_new(true).open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(None),
        Err(e) => return Err(e),
    };
    FileExt::lock_exclusive(&file)?;
    let content = format!("{} {}", std::process::id(), uuid::Uuid::new_v4());
    file.write_all(content.as_bytes())?;
    file.sync_all()?;
    Ok(Some(DreamLock {
        path,
        last_run,
        content,
        file,
        prior_last_run,
    }))
}

impl DreamLock {
    /// The lock's token (the uuid after the pid): names the live-write journal of this run.
    pub fn token(&self) -> &str {
        self.content.split_whitespace().nth(1).unwrap_or_default()
    }

    fn stamp_last_run(&self, now: SystemTime) -> io::Result<()> {
        let stamp = jiff::Timestamp::try_from(now)
            .map(|t| t.to_string())
            .unwrap_or_default();
        fs::write(&self.last_run, stamp)?;
        File::options()
            .write(true)
            .open(&self.last_run)?
            .set_modified(now)
    }

    fn owned(&self) -> bool {
        fs::read_to_string(&self.path).is_ok_and(|c| c.trim() == self.content)
    }

    /// The run succeeded: remove the lock (only if it is still ours); the last-run time stays.
    pub fn release(self) -> io::Result<()> {
        if self.owned() {
            fs::remove_file(&self.path)?;
        }
        let _ = FileExt::unlock(&self.file);
        Ok(())
    }

    /// The run failed: put the last-run time back so the failure does not delay the next dream,
    /// then remove the lock (only if it is still ours).
    pub fn fail(self) -> io::Result<()> {
        let mut result = Ok(());
        if self.owned() {
            // Remove the lock even when the last-run time cannot be put back: a lock left
            // behind would refuse every later run.
            result = self.restore_last_run();
            result = result.and(fs::remove_file(&self.path));
        }
        let _ = FileExt::unlock(&self.file);
        result
    }

    fn restore_last_run(&self) -> io::Result<()> {
        match self.prior_last_run {
            Some(prior) => File::options()
                .write(true)
                .open(&self.last_run)?
                .set_modified(prior),
            None => match fs::remove_file(&self.last_run) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        }
    }
}

/// Inspects a lock without taking or changing it.
pub fn state(home: &Path) -> LockState {
    let path = home.join(LOCK_FILE);
    let Ok(file) = File::open(&path) else {
        return if fs::symlink_metadata(&path).is_ok() {
            LockState::Stale {
                content: String::new(),
            }
        } else {
            LockState::Absent
        };
    };
    let content = fs::read_to_string(&path).unwrap_or_default();
    match FileExt::try_lock_shared(&file) {
        Ok(()) => {
            let _ = FileExt::unlock(&file);
            LockState::Stale { content }
        }
        Err(_) => LockState::Live {
            pid: content
                .split_whitespace()
                .next()
                .and_then(|p| p.parse().ok()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_acquire_is_refused_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let first = acquire(dir.path(), now).unwrap().expect("first lock");
        let before = fs::read(dir.path().join(LOCK_FILE)).unwrap();
        assert!(acquire(dir.path(), now).unwrap().is_none());
        assert_eq!(fs::read(dir.path().join(LOCK_FILE)).unwrap(), before);
        assert!(matches!(
            state(dir.path()),
            LockState::Live { pid: Some(_) }
        ));
        first.release().unwrap();
        assert_eq!(state(dir.path()), LockState::Absent);
        assert!(
            dir.path().join(LAST_RUN_FILE).exists(),
            "release keeps the last-run time"
        );
    }

    #[test]
    fn a_foreign_lock_is_stale_and_never_removed() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(LOCK_FILE), "999999 dead-owner").unwrap();
        assert!(acquire(dir.path(), SystemTime::now()).unwrap().is_none());
        assert_eq!(
            state(dir.path()),
            LockState::Stale {
                content: "999999 dead-owner".into()
            }
        );
        assert_eq!(
            fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap(),
            "999999 dead-owner"
        );
    }

    #[test]
    fn failing_restores_the_prior_last_run_time() {
        let dir = tempfile::tempdir().unwrap();
        let earlier = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let first = acquire(dir.path(), earlier).unwrap().unwrap();
        first.release().unwrap();
        let second = acquire(dir.path(), SystemTime::now()).unwrap().unwrap();
        second.fail().unwrap();
        let mtime = fs::metadata(dir.path().join(LAST_RUN_FILE))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(mtime, earlier);
        assert!(!dir.path().join(LOCK_FILE).exists());
    }

    #[test]
    fn failing_a_first_run_removes_the_last_run_file() {
        let dir = tempfile::tempdir().unwrap();
        acquire(dir.path(), SystemTime::now())
            .unwrap()
            .unwrap()
            .fail()
            .unwrap();
        assert!(!dir.path().join(LAST_RUN_FILE).exists());
    }
}
