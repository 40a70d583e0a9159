//! Commits made after the answer, for a process that lives on (`pi-context mcp`).
//!
//! A notes change is saved first and committed second ([`super::history`]). A process that
//! runs one call and exits must commit before it exits; a long-lived one can answer as soon as
//! the note is safely on disk and leave the commit to a worker thread. The history stays what
//! it would have been:
//!
//! - **One commit per change, in the order of the changes.** Jobs are committed one at a time,
//!   first in first out, each with the bytes its change wrote and its own identity.
//! - **No other writer in between.** The notes' locks pass from the change to the job and are
//!   held until the job's commit is made: another process that wants the note waits, exactly
//!   as it waits for a writer that commits before it answers. A change of this process to a
//!   note with a queued job waits for that job's commit too; a read borrows the lock the
//!   queue holds instead (it moves only the access counters).
//! - **Nothing lost to a kill.** Each change leaves its pending mark ([`super::pending`])
//!   before it writes, and the mark goes when the note's queued job is committed. A note has
//!   at most one queued job (the change after it waits), and that change is the note on disk:
//!   a process killed at any instant leaves marks whose notes, adopted as they are on disk by
//!   the next commit of any writer, are every answered change that no commit holds.
//!
//! Reading the history ([`Committer::flush`]) first waits for the queue, so this process reads
//! its own commits; another process sees them once they are made (milliseconds later).

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use jiff::Timestamp;

use super::files;
use super::history::{self, Recorded};
use super::identity::Identity;
use super::lock::{self, LockError, NoteLock};
use super::pending;
use crate::beneath::Dir;
use crate::home::repo::PathChange;

/// Jobs queued at most; a change waits for room beyond this (the queue never grows without
/// bound when changes come faster than commits).
const MAX_JOBS: usize = 1024;
/// Bytes of queued changes at most, for the same reason.
const MAX_QUEUED_BYTES: usize = 64 << 20;

/// What the worker says about a commit that failed (the change is on disk and marked: the
/// next commit records it).
pub type Reporter = Box<dyn Fn(&str) + Send + Sync>;

/// The worker and its queue; shared by every store of the process that commits through it.
pub struct Committer {
    shared: Arc<Shared>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    report: Reporter,
}

#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    queued_bytes: usize,
    /// A job taken by the worker and not done yet.
    committing: bool,
    stopping: bool,
    /// The worker has stopped (after the last queued job): changes commit themselves.
    worker_gone: bool,
    /// The notes whose locks the queue holds, or that a call of this process has borrowed.
    held: HashMap<NoteKey, Holding>,
}

/// A note: its notes home and its home-relative path.
type NoteKey = (PathBuf, String);

struct Holding {
    /// The process's lock on the note.
    _lock: NoteLock,
    /// Queued jobs that changed the note and are not committed yet.
    jobs: usize,
    /// A call of this process is changing or reading the note now, under the queue's lock.
    borrowed: bool,
}

/// One change to commit: the operation, owned, as [`history::Operation`] describes it.
pub(super) struct Job {
    pub identity: Identity,
    pub now: Timestamp,
    pub name: String,
    pub target: String,
    pub on_note: bool,
    pub extra: Vec<(String, String)>,
    pub changes: Vec<(String, Option<Vec<u8>>)>,
}

impl Job {
    pub fn of(identity: &Identity, now: Timestamp, operation: &history::Operation) -> Job {
        Job {
            identity: identity.clone(),
            now,
            name: operation.name.to_string(),
            target: operation.target.to_string(),
            on_note: operation.on_note,
            extra: (operation.extra.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            changes: (operation.changes.iter())
                .map(|c| (c.path.to_string(), c.content.map(<[u8]>::to_vec)))
                .collect(),
        }
    }

    /// `f` of the job as the [`history::Operation`] it was queued from.
    fn with_operation<R>(&self, f: impl FnOnce(&history::Operation) -> R) -> R {
        let changes: Vec<PathChange> = (self.changes.iter())
            .map(|(path, content)| PathChange {
                path,
                content: content.as_deref(),
            })
            .collect();
        let extra: Vec<(&str, &str)> = (self.extra.iter())
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        f(&history::Operation {
            name: &self.name,
            target: &self.target,
            on_note: self.on_note,
            extra: &extra,
            changes: &changes,
        })
    }

    fn bytes(&self) -> usize {
        (self.changes.iter())
            .map(|(path, content)| path.len() + content.as_ref().map_or(0, Vec::len))
            .sum()
    }

    fn keys(&self) -> impl Iterator<Item = NoteKey> + '_ {
        (self.changes.iter()).map(|(path, _)| (self.identity.home.clone(), path.clone()))
    }
}

/// The lock of one note, held by a change until its commit.
#[must_use = "the note stays locked until the guard is dropped"]
pub struct Held {
    /// Home-relative.
    relative: String,
    lock: NoteLock,
}

impl Held {
    pub(super) fn own(relative: &str, lock: NoteLock) -> Held {
        Held {
            relative: relative.to_string(),
            lock,
        }
    }
}

/// The lock of one note while a read moves its access counters: the process's own, or the one
/// the queue holds for the note's queued changes (borrowed, given back when dropped).
#[must_use = "the lock is released when the guard is dropped"]
pub struct ReadLock {
    _own: Option<NoteLock>,
    _borrowed: Option<Borrow>,
}

impl ReadLock {
    pub(super) fn own(lock: NoteLock) -> ReadLock {
        ReadLock {
            _own: Some(lock),
            _borrowed: None,
        }
    }
}

struct Borrow {
    shared: Arc<Shared>,
    key: NoteKey,
}

impl Drop for Borrow {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        if let Some(holding) = state.held.get_mut(&self.key) {
            holding.borrowed = false;
            if holding.jobs == 0 {
                state.held.remove(&self.key);
            }
        }
        self.shared.changed.notify_all();
    }
}

impl Committer {
    /// Starts the worker; `report` hears of commits that failed.
    pub fn start(report: Reporter) -> Arc<Committer> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            report,
        });
        let worker = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("pi-context-commits".into())
                .spawn(move || shared.work())
                .expect("cannot start the notes commit thread")
        };
        Arc::new(Committer {
            shared,
            worker: Mutex::new(Some(worker)),
        })
    }

    /// The lock of the note at `relative` in `home` (`root`) for a change: once the queue no
    /// longer holds it, taken as any writer takes it. A change to a note whose earlier change
    /// waits for its commit waits for that commit first, so that a note never has two answered
    /// changes out of the history: a kill at any instant leaves at most one, the note on disk
    /// under its pending mark, which the next commit of any writer adopts (docs/mcp.md).
    pub(super) fn lock_to_change(
        &self,
        root: &Dir,
        home: &std::path::Path,
        relative: &str,
    ) -> Result<Held, LockError> {
        let key = (home.to_path_buf(), relative.to_string());
        let mut state = self.shared.lock();
        while state.held.contains_key(&key) {
            state = self.shared.wait(state);
        }
        drop(state);
        // Not held by the queue: the lock is taken as any writer takes it. Once this process
        // has it, the queue cannot hold it too (a lock is the queue's only once a job of this
        // process hands it over), so there is nothing to look up again.
        lock::lock(root, relative).map(|lock| Held::own(relative, lock))
    }

    /// The lock of the note at `relative` in `home` (`root`) for a read, which moves only the
    /// access counters on disk: borrowed from the queue when it holds it (waiting while another
    /// call of this process has it), else taken. A read never waits for a commit.
    pub(super) fn lock_to_read(
        &self,
        root: &Dir,
        home: &std::path::Path,
        relative: &str,
    ) -> Result<ReadLock, LockError> {
        let key = (home.to_path_buf(), relative.to_string());
        let mut state = self.shared.lock();
        loop {
            match state.held.get_mut(&key) {
                Some(holding) if !holding.borrowed => {
                    holding.borrowed = true;
                    let borrow = Borrow {
                        shared: Arc::clone(&self.shared),
                        key,
                    };
                    return Ok(ReadLock {
                        _own: None,
                        _borrowed: Some(borrow),
                    });
                }
                Some(_) => state = self.shared.wait(state),
                None => break,
            }
        }
        drop(state);
        lock::lock(root, relative).map(ReadLock::own)
    }

    /// Queues the commit of `job`, whose change holds `held` (the lock of every path it
    /// changed); the locks stay held until the job is committed. Once the worker has stopped,
    /// commits it now instead and says how that went.
    pub(super) fn queue(&self, root: &Dir, job: Job, held: Vec<Held>) -> Recorded {
        let mut state = self.shared.lock();
        while !state.worker_gone
            && (state.jobs.len() >= MAX_JOBS || state.queued_bytes >= MAX_QUEUED_BYTES)
        {
            state = self.shared.wait(state);
        }
        if state.worker_gone {
            // Stopped, and every earlier job is committed: this one commits now, in order.
            drop(state);
            let recorded =
                job.with_operation(|operation| record_now(root, &job.identity, job.now, operation));
            drop(held);
            return recorded;
        }
        let home = job.identity.home.clone();
        for held in held {
            // A change takes its lock only once the queue no longer holds the note
            // ([`Committer::lock_to_change`]): the holding is new.
            let holding = state
                .held
                .entry((home.clone(), held.relative))
                .or_insert(Holding {
                    _lock: held.lock,
                    jobs: 0,
                    borrowed: false,
                });
            holding.jobs += 1;
        }
        state.queued_bytes += job.bytes();
        state.jobs.push_back(job);
        self.shared.changed.notify_all();
        Recorded::Queued
    }

    /// Waits until every change queued so far is committed (or its commit failed).
    pub fn flush(&self) {
        let mut state = self.shared.lock();
        while !state.jobs.is_empty() || state.committing {
            state = self.shared.wait(state);
        }
    }

    /// Commits what is queued, then stops the worker; changes after this commit before they
    /// answer.
    pub fn finish(&self) {
        self.shared.lock().stopping = true;
        self.shared.changed.notify_all();
        let worker = self.worker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(worker) = worker {
            let _ = worker.join();
        }
    }
}

impl std::fmt::Debug for Committer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("Committer")
            .field("queued", &state.jobs.len())
            .field("committing", &state.committing)
            .finish()
    }
}

impl Drop for Committer {
    fn drop(&mut self) {
        self.finish();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed.wait(state).unwrap_or_else(|e| e.into_inner())
    }

    fn work(&self) {
        loop {
            let job = {
                let mut state = self.lock();
                loop {
                    if let Some(job) = state.jobs.pop_front() {
                        state.committing = true;
                        break job;
                    }
                    if state.stopping {
                        state.worker_gone = true;
                        return;
                    }
                    state = self.wait(state);
                }
            };
            let root = files::create_root(&job.identity.home);
            let recorded = match &root {
                // A panic must not take the worker down with the queue's locks held.
                Ok(root) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    job.with_operation(|operation| {
                        record_with_adopted(root, &job.identity, job.now, operation)
                    })
                }))
                .unwrap_or_else(|_| Recorded::unrecorded(&"its commit panicked", None)),
                Err(e) => Recorded::unrecorded(e, None),
            };
            self.done(&job, root.ok().as_ref(), &recorded);
            self.report_failure(&recorded);
        }
    }

    /// Releases what `job` held: a note whose last queued job this was loses its pending mark
    /// (when the commit holds its change) and, unless a read borrows it, its lock.
    fn done(&self, job: &Job, root: Option<&Dir>, recorded: &Recorded) {
        let committed = recorded.holds_change();
        let mut state = self.lock();
        for key in job.keys() {
            let Some(holding) = state.held.get_mut(&key) else {
                continue;
            };
            holding.jobs -= 1;
            if holding.jobs > 0 {
                continue;
            }
            // A read that borrows the lock moves only counters, no change to recover.
            if let (true, Some(root)) = (committed, root) {
                pending::clear(root, &key.1);
            }
            if !holding.borrowed {
                state.held.remove(&key);
            }
        }
        state.queued_bytes -= job.bytes();
        state.committing = false;
        self.changed.notify_all();
    }

    fn report_failure(&self, recorded: &Recorded) {
        if let Some(failure) = recorded.failure() {
            (self.report)(&failure);
        }
    }
}

/// Commits `operation` before answering: [`record_with_adopted`], then the operation's own
/// marks go once the history holds its change.
pub(super) fn record_now(
    root: &Dir,
    identity: &Identity,
    now: Timestamp,
    operation: &history::Operation,
) -> Recorded {
    let recorded = record_with_adopted(root, identity, now, operation);
    if recorded.holds_change() {
        for change in operation.changes {
            pending::clear(root, change.path);
        }
    }
    recorded
}

/// Commits `operation` with the marked changes of dead writers ([`pending::adopt`]) and, when
/// the commit holds them, clears the adopted marks (the operation's own marks are the
/// caller's to clear).
fn record_with_adopted(
    root: &Dir,
    identity: &Identity,
    now: Timestamp,
    operation: &history::Operation,
) -> Recorded {
    let own: Vec<&str> = operation.changes.iter().map(|c| c.path).collect();
    let adopted = pending::adopt(root, &own);
    let recorded = if adopted.is_empty() {
        history::record(identity, now, operation)
    } else {
        let mut changes = operation.changes.to_vec();
        changes.extend(adopted.iter().map(|a| PathChange {
            path: &a.relative,
            content: a.content.as_deref(),
        }));
        let mut extra = operation.extra.to_vec();
        extra.extend((adopted.iter()).map(|a| (history::RECOVERED, a.relative.as_str())));
        let with_adopted = history::Operation {
            changes: &changes,
            extra: &extra,
            ..*operation
        };
        history::record(identity, now, &with_adopted)
    };
    if recorded.holds_change() {
        for adopted in &adopted {
            pending::clear(root, &adopted.relative);
        }
    }
    recorded
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notes::{EditRequest, Store};

    fn identity(home: &std::path::Path, agent: &str) -> Identity {
        Identity {
            home: home.to_path_buf(),
            session_id: Some("s1".into()),
            project_key: "p-0123abcd".into(),
            agent: agent.into(),
            model: "m".into(),
        }
    }

    fn store(home: &std::path::Path, committer: &Arc<Committer>) -> Store {
        Store::new(identity(home, "mcp"))
            .with_history(true)
            .with_committer(Some(Arc::clone(committer)))
    }

    fn committer() -> Arc<Committer> {
        Committer::start(Box::new(|failure| panic!("a commit failed: {failure}")))
    }

    /// The note at `relative` in HEAD's tree, and on disk.
    fn head_and_disk(home: &std::path::Path, relative: &str) -> (Option<String>, String) {
        let repo = git2::Repository::open(home).unwrap();
        let tree = repo.head().unwrap().peel_to_tree().unwrap();
        let head = tree
            .get_path(std::path::Path::new(relative))
            .ok()
            .map(|entry| {
                let blob = repo.find_blob(entry.id()).unwrap();
                String::from_utf8(blob.content().to_vec()).unwrap()
            });
        (head, std::fs::read_to_string(home.join(relative)).unwrap())
    }

    fn pending_marks(home: &std::path::Path) -> usize {
        std::fs::read_dir(home.join(".locks/pending")).map_or(0, |d| d.count())
    }

    #[test]
    fn queued_changes_are_committed_one_each_in_order_with_their_own_bytes() {
        let home = tempfile::tempdir().unwrap();
        let committer = committer();
        let store = store(home.path(), &committer);
        for i in 0..30 {
            let written = store.write("plan", &format!("step {i}"), None).unwrap();
            assert_eq!(written.history, Recorded::Queued);
        }
        // The log flushes the queue first: this process reads its own commits.
        let log = store.log(Some("plan"), 100).unwrap();
        assert_eq!(log.entries.len(), 30);
        let repo = git2::Repository::open(home.path()).unwrap();
        for (i, entry) in log.entries.iter().rev().enumerate() {
            let commit = repo
                .revparse_single(&entry.commit)
                .unwrap()
                .peel_to_commit()
                .unwrap();
            let blob = commit
                .tree()
                .unwrap()
                .get_path("pi/session/s1/plan.md".as_ref())
                .unwrap();
            let text =
                String::from_utf8(repo.find_blob(blob.id()).unwrap().content().to_vec()).unwrap();
            assert!(text.ends_with(&format!("step {i}")), "commit {i}: {text}");
            assert_eq!(entry.agent.as_deref(), Some("mcp"));
        }
        let (head, disk) = head_and_disk(home.path(), "pi/session/s1/plan.md");
        assert_eq!(head.as_deref(), Some(disk.as_str()));
        assert_eq!(pending_marks(home.path()), 0);
    }

    #[test]
    fn another_writer_gets_the_note_only_after_its_queued_commits() {
        let home = tempfile::tempdir().unwrap();
        let committer = committer();
        let store = store(home.path(), &committer);
        store.write("@human/a", "one", None).unwrap();
        committer.flush();
        // Git's own lock on the branch: the queued commit of "two" waits for it (a lock is
        // stale only after 5 s).
        let ref_lock = home.path().join(".git/refs/heads/main.lock");
        std::fs::write(&ref_lock, "").unwrap();
        store.write("@human/a", "two", None).unwrap();
        let other = {
            let home = home.path().to_path_buf();
            std::thread::spawn(move || {
                // Another process's store: no committer, it waits for the note's lock.
                let edit = crate::notes::Edit {
                    old_text: "two".into(),
                    new_text: "three".into(),
                };
                let request = EditRequest {
                    edits: vec![edit],
                    ..EditRequest::default()
                };
                let other = Store::new(identity(&home, "cli")).with_history(true);
                other.edit("@human/a", &request).unwrap();
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(
            !other.is_finished(),
            "the other writer did not wait for the queued commit"
        );
        std::fs::remove_file(&ref_lock).unwrap();
        other.join().unwrap();
        let log = store.log(Some("@human/a"), 10).unwrap();
        let agents: Vec<_> = log
            .entries
            .iter()
            .map(|e| e.agent.clone().unwrap())
            .collect();
        assert_eq!(agents, ["cli", "mcp", "mcp"]);
        let (head, disk) = head_and_disk(home.path(), "human/a.md");
        assert_eq!(head.as_deref(), Some(disk.as_str()));
        assert!(disk.ends_with("three"), "{disk}");
        assert_eq!(pending_marks(home.path()), 0);
    }

    #[test]
    fn a_change_waits_for_the_notes_queued_commit_and_a_read_borrows_its_lock() {
        let home = tempfile::tempdir().unwrap();
        let committer = committer();
        let store = store(home.path(), &committer);
        store.write("@human/a", "one", None).unwrap();
        committer.flush();
        let lock = home.path().join(".git/refs/heads/main.lock");
        std::fs::write(&lock, "").unwrap();
        // The commit of "two" waits for the ref lock; a read of the note goes on meanwhile.
        store.write("@human/a", "two", None).unwrap();
        assert!(store.read("@human/a").unwrap().body.ends_with("two"));
        // The next change waits for that commit: a kill now leaves one answered change out
        // of the history, the note on disk under its mark.
        let next = {
            let store = store.clone();
            std::thread::spawn(move || store.write("@human/a", "three", None).unwrap())
        };
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(
            !next.is_finished(),
            "the change did not wait for the commit"
        );
        let (head, disk) = head_and_disk(home.path(), "human/a.md");
        assert!(head.unwrap().ends_with("one"));
        assert!(disk.ends_with("two"), "{disk}");
        assert_eq!(pending_marks(home.path()), 1);
        std::fs::remove_file(&lock).unwrap();
        next.join().unwrap();
        let log = store.log(Some("@human/a"), 10).unwrap();
        assert_eq!(log.entries.len(), 3);
        assert_eq!(pending_marks(home.path()), 0);
        let (head, disk) = head_and_disk(home.path(), "human/a.md");
        assert_eq!(head.as_deref(), Some(disk.as_str()));
    }

    /// A read that borrows the lock while the note's commit is made leaves no mark behind: the
    /// commit holds the change, the read moved only counters.
    #[test]
    fn a_commit_made_while_a_read_borrows_the_lock_clears_the_mark() {
        let home = tempfile::tempdir().unwrap();
        let committer = committer();
        let store = store(home.path(), &committer);
        store.write("@human/a", "one", None).unwrap();
        committer.flush();
        let lock = home.path().join(".git/refs/heads/main.lock");
        std::fs::write(&lock, "").unwrap();
        store.write("@human/a", "two", None).unwrap();
        let root = Dir::open_root(home.path()).unwrap().unwrap();
        let borrowed = committer
            .lock_to_read(&root, home.path(), "human/a.md")
            .unwrap();
        std::fs::remove_file(&lock).unwrap();
        committer.flush();
        assert_eq!(pending_marks(home.path()), 0);
        drop(borrowed);
        store.write("@human/a", "three", None).unwrap();
        assert_eq!(store.log(Some("@human/a"), 10).unwrap().entries.len(), 3);
    }

    #[test]
    fn after_finish_changes_commit_before_they_answer() {
        let home = tempfile::tempdir().unwrap();
        let committer = committer();
        let store = store(home.path(), &committer);
        store.write("plan", "queued", None).unwrap();
        committer.finish();
        assert_eq!(store.log(None, 10).unwrap().entries.len(), 1);
        let after = store.write("plan", "after", None).unwrap().history;
        assert!(after.commit().is_some(), "{after:?}");
        assert_eq!(store.log(None, 10).unwrap().entries.len(), 2);
        let (head, disk) = head_and_disk(home.path(), "pi/session/s1/plan.md");
        assert_eq!(head.as_deref(), Some(disk.as_str()));
    }
}
