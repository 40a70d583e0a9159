//! The dream lock: `<home>/.dream.lock`, a [`run_lock`](crate::home::run_lock) like the sync's.
//!
//! An existing lock refuses a run whatever its content or age (a stale one included: a person
//! decides, see `dream doctor`); only the run that created it removes it. The time gate's
//! last-run file is stamped when the lock is taken and put back when the run fails.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::home::layout::SYNC_LOCK;
pub use crate::home::layout::{DREAM_LOCK as LOCK_FILE, LAST_RUN as LAST_RUN_FILE};
pub use crate::home::run_lock::LockState;
use crate::home::run_lock::{self, RunLock};

/// A held lock. Dropping it without [`DreamLock::release`] or [`DreamLock::fail`] leaves the
/// lock file in place, as a crash would.
#[derive(Debug)]
#[must_use = "a dropped lock leaves its file behind as a crash would: release or fail it"]
pub struct DreamLock {
    lock: RunLock,
    last_run: PathBuf,
    prior_last_run: Option<SystemTime>,
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

/// Takes the lock for work on the store that is not a dream run (`dream undo`): no dream (and no
/// sync) can start meanwhile, and the last-run time (the time gate) is left alone. Release it
/// with [`DreamLock::release`].
pub fn acquire_without_run(home: &Path) -> io::Result<Option<DreamLock>> {
    take(home)
}

/// Creates the dream lock, then makes sure no sync runs: a sync that started first holds
/// `.sync.lock` live, and one that starts later finds this lock (each takes its own lock before
/// it looks at the other's, so one of two racing runs always sees the other).
fn take(home: &Path) -> io::Result<Option<DreamLock>> {
    let last_run = home.join(LAST_RUN_FILE);
    let prior_last_run = fs::metadata(&last_run).and_then(|m| m.modified()).ok();
    // Looked at first too, so that a dream does not even show a lock while a sync runs (a live
    // write would take it for a running dream and journal itself).
    if sync_running(home) {
        return Ok(None);
    }
    let Some(lock) = run_lock::acquire(&home.join(LOCK_FILE))? else {
        return Ok(None);
    };
    if sync_running(home) {
        lock.release()?;
        return Ok(None);
    }
    Ok(Some(DreamLock {
        lock,
        last_run,
        prior_last_run,
    }))
}

/// Whether a `notes sync` holds its lock now (a stale sync lock does not stop a dream: a killed
/// sync leaves the home consistent).
pub fn sync_running(home: &Path) -> bool {
    matches!(
        run_lock::state(&home.join(SYNC_LOCK)),
        LockState::Live { .. }
    )
}

impl DreamLock {
    /// The lock's token (the uuid after the pid): names the live-write journal of this run.
    pub fn token(&self) -> &str {
        self.lock.token()
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

    /// The run succeeded: remove the lock (only if it is still ours); the last-run time stays.
    pub fn release(self) -> io::Result<()> {
        self.lock.release()
    }

    /// The run failed (or never started): put the last-run time back so the failure does not
    /// delay the next dream, then remove the lock (only if it is still ours).
    pub fn fail(self) -> io::Result<()> {
        let mut result = Ok(());
        if self.lock.owned() {
            // Remove the lock even when the last-run time cannot be put back: a lock left
            // behind would refuse every later run.
            result = self.restore_last_run();
        }
        result.and(self.lock.release())
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

/// Inspects the dream lock without taking or changing it.
pub fn state(home: &Path) -> LockState {
    run_lock::state(&home.join(LOCK_FILE))
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
    fn a_running_sync_refuses_a_dream_and_a_dead_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let sync = run_lock::acquire(&dir.path().join(SYNC_LOCK))
            .unwrap()
            .unwrap();
        assert!(acquire(dir.path(), SystemTime::now()).unwrap().is_none());
        assert!(acquire_without_run(dir.path()).unwrap().is_none());
        assert_eq!(state(dir.path()), LockState::Absent, "the dream let go");
        assert!(
            !dir.path().join(LAST_RUN_FILE).exists(),
            "no run: no last-run time"
        );
        // Dropped without release: the file stays, its flock is gone (a sync that died).
        drop(sync);
        assert!(dir.path().join(SYNC_LOCK).exists());
        acquire(dir.path(), SystemTime::now())
            .unwrap()
            .expect("a stale sync lock does not stop a dream")
            .release()
            .unwrap();
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
