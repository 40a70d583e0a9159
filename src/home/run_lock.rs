//! The locks of runs over the whole notes home: the dream's `.dream.lock` and `notes sync`'s
//! `.sync.lock`.
//!
//! A lock is a file created with one `O_CREAT|O_EXCL` open: an existing file refuses a run. While
//! a run holds it, the process also keeps an advisory (`flock`, `File::lock`) exclusive lock on the file,
//! so a live lock can be told from one a dead run left behind ([`state`]). Only the run that
//! created a lock removes it (it checks the file still holds its own token first).
//!
//! A lock left by a dead run is *stale*. The dream never takes one over (a person decides, see
//! `dream doctor`); a sync does ([`take_over_stale`]), because a killed sync leaves the home
//! consistent and the next sync is what repairs it. Taking over is decided by the `flock` alone:
//! whoever gets it on the file that is still at the lock's path holds the lock.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A held lock. Dropping it without [`RunLock::release`] leaves the file in place, as a crash
/// would (the `flock` goes with the process, so the lock then reads as stale).
#[derive(Debug)]
#[must_use = "a dropped lock leaves its file behind as a crash would: release it"]
pub struct RunLock {
    path: PathBuf,
    /// `<pid> <uuid>`: who holds it, and the token that proves it is still ours.
    content: String,
    /// Kept open: the advisory lock lives as long as this handle.
    file: File,
}

/// What a lock file on disk says about its holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockState {
    Absent,
    /// A process holds the advisory lock: its run is going on (pid from the content, if
    /// readable).
    Live {
        pid: Option<u32>,
    },
    /// No process holds it: left behind by a run that died.
    Stale {
        content: String,
    },
}

/// Tries to create the lock at `path`. `Ok(None)`: a lock is there already (live or stale).
pub fn acquire(path: &Path) -> io::Result<Option<RunLock>> {
    let file = match OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(None),
        Err(e) => return Err(e),
    };
    // A sync that found the new file before this `flock` took it for stale and holds it now:
    // then it is theirs (this run must not remove it either).
    if file.try_lock().is_err() {
        return Ok(None);
    }
    RunLock::claim(path, file).map(Some)
}

/// Takes over the lock at `path` when it is stale: no process holds its `flock`. `Ok(None)`
/// when it is live, gone, or replaced meanwhile (then [`acquire`] again decides).
pub fn take_over_stale(path: &Path) -> io::Result<Option<RunLock>> {
    let file = match OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() || file.try_lock().is_err() {
        return Ok(None);
    }
    // The file locked must still be the one at the path: its run may have removed it (and
    // another made a new one) between the open and the `flock`.
    let held = file.metadata()?;
    let same = fs::symlink_metadata(path)
        .is_ok_and(|now| now.ino() == held.ino() && now.dev() == held.dev());
    if !same {
        return Ok(None);
    }
    file.set_len(0)?;
    RunLock::claim(path, file).map(Some)
}

/// [`acquire`], else [`take_over_stale`]: `Ok(None)` only when a live run holds the lock.
pub fn acquire_or_take_over(path: &Path) -> io::Result<Option<RunLock>> {
    for _ in 0..3 {
        if let Some(lock) = acquire(path)? {
            return Ok(Some(lock));
        }
        if let Some(lock) = take_over_stale(path)? {
            return Ok(Some(lock));
        }
        if matches!(state(path), LockState::Live { .. }) {
            return Ok(None);
        }
    }
    Ok(None)
}

impl RunLock {
    fn claim(path: &Path, mut file: File) -> io::Result<RunLock> {
        let content = format!("{} {}", std::process::id(), uuid::Uuid::new_v4());
        file.rewind()?;
        file.write_all(content.as_bytes())?;
        file.sync_all()?;
        Ok(RunLock {
            path: path.to_path_buf(),
            content,
            file,
        })
    }

    /// The lock's token (the uuid after the pid).
    pub fn token(&self) -> &str {
        self.content.split_whitespace().nth(1).unwrap_or_default()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file at the lock's path still holds this run's token.
    pub fn owned(&self) -> bool {
        crate::sidefile::read(&self.path).is_ok_and(|c| c.trim() == self.content)
    }

    /// Removes the lock (only if it is still ours), then lets go of the advisory lock.
    pub fn release(self) -> io::Result<()> {
        let result = if self.owned() {
            fs::remove_file(&self.path)
        } else {
            Ok(())
        };
        let _ = self.file.unlock();
        result
    }
}

/// Inspects a lock without taking or changing it.
pub fn state(path: &Path) -> LockState {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path);
    let Ok(file) = file else {
        return if fs::symlink_metadata(path).is_ok() {
            LockState::Stale {
                content: String::new(),
            }
        } else {
            LockState::Absent
        };
    };
    // Read through the handle opened non-blocking: a FIFO at the lock's path is no one's lock,
    // and reading it by its path would wait for a writer.
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return LockState::Stale {
            content: String::new(),
        };
    }
    let mut content = String::new();
    let _ = (&file).take(4096).read_to_string(&mut content);
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
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

    /// A FIFO at the lock's path (or a lock file replaced by one) is read as no one's lock at
    /// once: read by its path, it would wait for a writer forever.
    #[test]
    fn a_fifo_at_the_locks_path_is_a_stale_lock_not_a_wait() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".x.lock");
        assert!(std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap()
            .success());
        let (sent, got) = std::sync::mpsc::channel();
        let looked_at = path.clone();
        std::thread::spawn(move || {
            let _ = sent.send(state(&looked_at));
        });
        let state = got
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("state() of a FIFO returned");
        assert_eq!(
            state,
            LockState::Stale {
                content: String::new()
            }
        );

        let held = acquire(&dir.path().join(".y.lock")).unwrap().expect("lock");
        fs::remove_file(held.path()).unwrap();
        assert!(std::process::Command::new("mkfifo")
            .arg(held.path())
            .status()
            .unwrap()
            .success());
        let (sent, got) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = sent.send(held.owned());
        });
        let owned = got
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("owned() of a FIFO returned");
        assert!(!owned, "a FIFO holds no one's token");
    }

    #[test]
    fn a_second_acquire_is_refused_and_release_removes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".x.lock");
        let first = acquire(&path).unwrap().expect("first lock");
        let before = fs::read(&path).unwrap();
        assert!(acquire(&path).unwrap().is_none());
        assert!(take_over_stale(&path).unwrap().is_none(), "live: not taken");
        assert!(acquire_or_take_over(&path).unwrap().is_none());
        assert_eq!(fs::read(&path).unwrap(), before);
        assert!(matches!(state(&path), LockState::Live { pid: Some(_) }));
        first.release().unwrap();
        assert_eq!(state(&path), LockState::Absent);
    }

    #[test]
    fn a_stale_lock_is_taken_over_only_on_request() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".x.lock");
        fs::write(&path, "999999 dead-owner-with-a-longer-token").unwrap();
        assert!(acquire(&path).unwrap().is_none());
        assert!(matches!(state(&path), LockState::Stale { .. }));
        let lock = acquire_or_take_over(&path)
            .unwrap()
            .expect("stale lock taken");
        assert!(lock.owned());
        let content = fs::read_to_string(&path).unwrap();
        assert!(
            content.starts_with(&std::process::id().to_string()),
            "{content}"
        );
        assert!(!content.contains("dead-owner"), "{content}");
        lock.release().unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn a_link_is_never_a_lock_and_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        fs::write(&target, "keep").unwrap();
        let path = dir.path().join(".x.lock");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert!(acquire(&path).unwrap().is_none());
        assert!(take_over_stale(&path).is_err() || take_over_stale(&path).unwrap().is_none());
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
    }

    #[test]
    fn a_released_lock_left_to_another_run_is_not_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".x.lock");
        let first = acquire(&path).unwrap().unwrap();
        // Somebody replaced the file by hand while the run went on.
        fs::remove_file(&path).unwrap();
        fs::write(&path, "1 someone-else").unwrap();
        first.release().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "1 someone-else");
    }
}
