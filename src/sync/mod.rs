//! `notes sync`: the notes home's history exchanged with a git remote.
//!
//! One run, under `.sync.lock` (never while a dream holds `.dream.lock`):
//!
//! 1. fetch their branch ([`git`], the `git` executable);
//! 2. merge it into our tip path by path ([`merge`]: notes body line by line and frontmatter key
//!    by key, conflicts kept between markers) and bring the home's files to the merge
//!    ([`checkout`]);
//! 3. commit what the home holds that no commit has yet (a note edited by hand, a read's
//!    counters, a write whose commit failed);
//! 4. push; when someone pushed first, fetch, merge and push again (bounded), never forced.
//!
//! The order of step 2 is what makes a killed sync harmless: the files are written first and the
//! branch moves last, each under the note's lock. See `docs/notes.md`, "Sync".

mod checkout;
mod git;
pub mod merge;
pub mod note;
pub mod text;

use std::path::{Path, PathBuf};
use std::time::Duration;

use git2::Repository;
use jiff::Timestamp;
use serde::Serialize;

use crate::home::layout::{DREAM_LOCK, SYNC_LOCK};
use crate::home::repo::{self, RepositoryError};
use crate::home::run_lock::{self, LockState, RunLock};
use crate::notes::address::Location;
use crate::notes::files;
use crate::notes::history;
use crate::notes::identity::Identity;
use crate::notes::NotesError;
pub use git::{GitFailure, THEIRS_REF};
use merge::{KeptAside, Refused};
use text::Labels;

/// How many times a rejected push is followed by a fetch, a merge and another push.
const PUSH_ATTEMPTS: u32 = 12;

/// What to sync, and as whom.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// The home (and the agent named in the commits' trailers).
    pub identity: Identity,
    pub now: Timestamp,
    /// `--remote`: a remote's name or a URL.
    pub remote: Option<String>,
    /// The `notesRemote` setting: used when the flag is absent and the home's repository has
    /// no remote.
    pub setting_remote: Option<String>,
    /// This machine's name, for the conflict markers (`<<<<<<< ours (<host>)`).
    pub host: String,
}

/// Where the run is, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Fetching,
    Merging,
    Pushing,
}

/// Told what the run is doing (the CLI shows a spinner on a terminal; the library never prints).
pub trait SyncObserver {
    fn stage(&mut self, stage: Stage, remote: &str);

    /// The run reached a point where a kill must leave the home consistent: `locked`,
    /// `fetched`, `file-written` (after each file of a merge), `files-written` (all of them,
    /// before the branch moves), `merged` (the branch moved, before the push). The CLI's
    /// test-only pause hook stops here.
    fn reached(&mut self, _point: &'static str) {}
}

/// An observer that ignores everything.
pub struct Quiet;

impl SyncObserver for Quiet {
    fn stage(&mut self, _: Stage, _: &str) {}
}

/// A path of the home the sync changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Changed {
    /// `added`, `modified` or `deleted` (relative to the home before the sync).
    pub kind: &'static str,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
}

/// A note (or other text) that keeps both versions between conflict markers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    pub path: String,
}

/// A frontmatter value both sides changed differently: the later note's value was kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyConflict {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    pub path: String,
    pub key: String,
    pub kept: String,
    pub other: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncOutcome {
    /// The remote as given or configured (a URL without its credentials).
    pub remote: String,
    pub branch: String,
    /// Their tip as last fetched (`None`: the remote has no such branch yet).
    pub fetched: Option<String>,
    /// The merge commits made (or their tip, for a fast-forward).
    pub merges: Vec<String>,
    /// The commit of the home's uncommitted changes, if there were any.
    pub local_commit: Option<String>,
    /// Whether the remote's branch was moved.
    pub pushed: bool,
    /// How many fetch-merge-push rounds the run took (more than one when pushes were rejected).
    pub rounds: u32,
    pub changed: Vec<Changed>,
    pub conflicts: Vec<Conflict>,
    pub key_conflicts: Vec<KeyConflict>,
    pub kept_aside: Vec<KeptAside>,
    pub refused: Vec<Refused>,
}

/// Who holds the lock a sync needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// Another sync runs (pid, when readable).
    Sync(Option<u32>),
    /// A dream runs.
    Dream(Option<u32>),
    /// A dream died holding its lock: its changes are unaudited until a person decides.
    StaleDream,
}

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("{}", locked_message(.holder))]
    Locked { holder: Holder, path: PathBuf },
    #[error("no remote to sync the notes with")]
    NoRemote,
    #[error("invalid remote {0:?}: a remote is a name or a URL and never starts with '-'")]
    InvalidRemote(String),
    #[error("the notes home's repository has several remotes and none is named origin: {0}")]
    AmbiguousRemote(String),
    #[error(transparent)]
    Repository(#[from] RepositoryError),
    #[error("cannot fetch from {remote}: {source}")]
    Fetch {
        remote: String,
        #[source]
        source: GitFailure,
    },
    #[error("cannot push to {remote}: {source}")]
    Push {
        remote: String,
        #[source]
        source: GitFailure,
    },
    #[error("the remote kept moving: {attempts} pushes were rejected because others pushed first; nothing is lost, run the sync again")]
    Contended { attempts: u32 },
    #[error("{remote} refuses every push: its lock file {lock} exists (a git process there died mid-update, or is still running); nothing is lost")]
    RemoteLocked { remote: String, lock: String },
    #[error("the notes home kept changing under the merge ({0} attempts); nothing is lost, run the sync again")]
    Busy(u32),
    #[error(transparent)]
    Notes(#[from] NotesError),
    #[error("cannot take {}: {source}", .path.display())]
    Lock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn locked_message(holder: &Holder) -> String {
    let pid = |pid: &Option<u32>| pid.map_or_else(String::new, |p| format!(" (pid {p})"));
    match holder {
        Holder::Sync(pid_) => format!("another notes sync is running{}", pid(pid_)),
        Holder::Dream(pid_) => format!("a dream is running{}; a sync waits for it", pid(pid_)),
        Holder::StaleDream => {
            "a dream died holding its lock; a sync waits until that is resolved".to_string()
        }
    }
}

impl SyncError {
    /// What to do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            SyncError::Locked { holder: Holder::Sync(_), .. } => {
                "run it again when that sync ends (a sync that died leaves a lock the next sync takes over)".into()
            }
            SyncError::Locked { holder: Holder::Dream(_), .. } => {
                "run the sync again when the dream ends".into()
            }
            SyncError::Locked { path, .. } => format!(
                "`pi-context dream doctor` tells whether a dream still runs; once sure none does, remove the stale lock: rm {}",
                path.display()
            ),
            SyncError::RemoteLocked { lock, .. } => format!(
                "where the remote lives, check that no git process runs in it, then remove the lock: rm {lock}"
            ),
            SyncError::NoRemote => "pass --remote URL, or add one to the notes home's repository (git -C <notes home> remote add origin URL), or set notesRemote in Pi's settings".into(),
            SyncError::AmbiguousRemote(_) => "pass --remote NAME".into(),
            SyncError::Repository(e) => return e.hint(),
            SyncError::Fetch { .. } | SyncError::Push { .. } => {
                "check the remote's URL and your access to it (the same as for `git fetch`)".into()
            }
            _ => return None,
        })
    }
}

/// Runs one sync (see the module docs).
pub fn sync(
    options: &SyncOptions,
    observer: &mut dyn SyncObserver,
) -> Result<SyncOutcome, SyncError> {
    let home = &options.identity.home;
    let existing = repo::check(home)?;
    let (remote, label) = resolve_remote(existing.as_ref(), options)?;
    files::create_root(home)?;
    let lock = take_lock(home)?;
    let result = sync_locked(options, &remote, &label, observer);
    let released = lock.release();
    let outcome = result?;
    released.map_err(|source| SyncError::Lock {
        path: home.join(SYNC_LOCK),
        source,
    })?;
    Ok(outcome)
}

/// `.sync.lock` (a stale one, left by a sync that died, is taken over), then no dream: each run
/// takes its own lock before it looks at the other's, so of a dream and a sync starting
/// together at least one sees the other.
fn take_lock(home: &Path) -> Result<RunLock, SyncError> {
    let path = home.join(SYNC_LOCK);
    let lock_error = |source| SyncError::Lock {
        path: path.clone(),
        source,
    };
    let Some(lock) = run_lock::acquire_or_take_over(&path).map_err(lock_error)? else {
        let pid = match run_lock::state(&path) {
            LockState::Live { pid } => pid,
            _ => None,
        };
        return Err(SyncError::Locked {
            holder: Holder::Sync(pid),
            path,
        });
    };
    let dream = home.join(DREAM_LOCK);
    let holder = match run_lock::state(&dream) {
        LockState::Absent => return Ok(lock),
        LockState::Live { pid } => Holder::Dream(pid),
        LockState::Stale { .. } => Holder::StaleDream,
    };
    lock.release().map_err(lock_error)?;
    Err(SyncError::Locked {
        holder,
        path: dream,
    })
}

/// The remote to use and how to show it: `--remote`, else the home repository's `origin` (or
/// its only remote), else the `notesRemote` setting.
fn resolve_remote(
    repo: Option<&Repository>,
    options: &SyncOptions,
) -> Result<(String, String), SyncError> {
    let configured = || -> Result<Option<String>, SyncError> {
        let Some(repo) = repo else {
            return Ok(None);
        };
        let names: Vec<String> = repo
            .remotes()
            .map_err(RepositoryError::from)?
            .iter()
            .filter_map(|name| name.ok().flatten().map(str::to_string))
            .collect();
        Ok(match names.as_slice() {
            [] => None,
            [only] => Some(only.clone()),
            many if many.iter().any(|n| n == "origin") => Some("origin".to_string()),
            many => return Err(SyncError::AmbiguousRemote(many.join(", "))),
        })
    };
    let remote = match options.remote.clone().filter(|r| !r.is_empty()) {
        Some(flag) => flag,
        None => match configured()? {
            Some(name) => name,
            None => options
                .setting_remote
                .clone()
                .filter(|r| !r.trim().is_empty())
                .ok_or(SyncError::NoRemote)?,
        },
    };
    if remote.starts_with('-') || remote.contains(['\n', '\0']) {
        return Err(SyncError::InvalidRemote(remote));
    }
    let label = git::shown_remote(&remote);
    Ok((remote, label))
}

fn sync_locked(
    options: &SyncOptions,
    remote: &str,
    label: &str,
    observer: &mut dyn SyncObserver,
) -> Result<SyncOutcome, SyncError> {
    let identity = &options.identity;
    let home = &identity.home;
    let repo = repo::open_or_init(home)?;
    let branch_ref = repo::branch_ref(&repo).map_err(RepositoryError::from)?;
    let branch = branch_ref
        .strip_prefix("refs/heads/")
        .unwrap_or(&branch_ref)
        .to_string();
    let git = git::Git::new(home);
    let mut outcome = SyncOutcome {
        remote: label.to_string(),
        branch: branch.clone(),
        ..SyncOutcome::default()
    };
    let labels = Labels {
        ours: format!("ours ({})", options.host),
        theirs: format!("theirs ({label})"),
    };
    observer.reached("locked");
    let mut remote_locked: Option<String> = None;
    for round in 1..=PUSH_ATTEMPTS {
        outcome.rounds = round;
        observer.stage(Stage::Fetching, label);
        // A sync killed while git fetched leaves this lock, which would fail every later fetch.
        let _ = repo::clear_stale_lock(&repo.path().join(format!("{}.lock", git::THEIRS_REF)));
        let theirs = git
            .fetch(remote, &branch)
            .map_err(|source| SyncError::Fetch {
                remote: label.to_string(),
                source,
            })?;
        outcome.fetched = theirs.map(|oid| oid.to_string());
        observer.reached("fetched");
        observer.stage(Stage::Merging, label);
        if let Some(theirs) = theirs {
            let context = checkout::Context {
                repo: &repo,
                identity,
                now: options.now,
                branch_ref: &branch_ref,
                remote: label,
                labels: &labels,
            };
            if let Some(done) = checkout::merge_into_home(&context, theirs, observer)? {
                report(&mut outcome, done, identity);
            }
        }
        observer.reached("merged");
        if let Some(commit) = checkout::commit_local_changes(&repo, identity, options.now)? {
            outcome.local_commit = Some(commit.to_string());
        }
        let Some(tip) = repo::tip(&repo, &branch_ref).map_err(RepositoryError::from)? else {
            // Nothing here and nothing there.
            return Ok(outcome);
        };
        if let Some(theirs) = theirs {
            let has_ours = theirs == tip.id()
                || repo
                    .graph_descendant_of(theirs, tip.id())
                    .map_err(RepositoryError::from)?;
            if has_ours {
                return Ok(outcome);
            }
        }
        observer.stage(Stage::Pushing, label);
        match git.push(remote, &branch) {
            Ok(git::Pushed::Done) => {
                outcome.pushed = true;
                return Ok(outcome);
            }
            Ok(git::Pushed::Rejected(_)) => backoff(round),
            // A push in progress there holds its lock for milliseconds (and the remote's git
            // already waited 100 ms for it): the same refusal twice is a lock nobody removes.
            Ok(git::Pushed::RemoteLocked(lock)) if remote_locked.as_ref() == Some(&lock) => {
                return Err(SyncError::RemoteLocked {
                    remote: label.to_string(),
                    lock,
                })
            }
            Ok(git::Pushed::RemoteLocked(lock)) => {
                remote_locked = Some(lock);
                std::thread::sleep(REMOTE_LOCK_PAUSE);
            }
            Err(source) => {
                return Err(SyncError::Push {
                    remote: label.to_string(),
                    source,
                })
            }
        }
    }
    Err(SyncError::Contended {
        attempts: PUSH_ATTEMPTS,
    })
}

/// How long a sync waits after the remote refused its lock once, before trying again.
const REMOTE_LOCK_PAUSE: Duration = Duration::from_millis(500);

/// A short random wait before the next round, growing with the rounds, so that machines whose
/// pushes collided do not collide again.
fn backoff(round: u32) {
    let jitter = (uuid::Uuid::new_v4().as_u128() % 100) as u64;
    let ms = 20 * u64::from(round.min(10)) + jitter * u64::from(round.min(4));
    std::thread::sleep(Duration::from_millis(ms));
}

fn report(outcome: &mut SyncOutcome, done: checkout::Done, identity: &Identity) {
    let address = |path: &str| {
        Location::from_home_path(path, identity)
            .ok()
            .map(|l| l.address())
    };
    outcome.merges.push(done.commit.to_string());
    for write in &done.merged.writes {
        let kind = match (write.ours, write.merged) {
            (None, _) => "added",
            (Some(_), None) => "deleted",
            (Some(_), Some(_)) => "modified",
        };
        outcome.changed.push(Changed {
            kind,
            address: address(&write.path),
            path: write.path.clone(),
        });
    }
    for path in done.merged.conflicts {
        outcome.conflicts.push(Conflict {
            address: address(&path),
            path,
        });
    }
    for (path, conflict) in done.merged.key_conflicts {
        outcome.key_conflicts.push(KeyConflict {
            address: address(&path),
            path,
            key: conflict.key,
            kept: conflict.kept,
            other: conflict.other,
        });
    }
    outcome.kept_aside.extend(done.merged.kept_aside);
    for refused in done.merged.refused {
        if !outcome.refused.contains(&refused) {
            outcome.refused.push(refused);
        }
    }
}

/// The commit message of a sync's merge.
fn merge_message(identity: &Identity, remote: &str) -> String {
    history::message(
        identity,
        &history::Operation {
            name: "sync",
            target: remote,
            on_note: false,
            extra: &[],
            changes: &[],
        },
    )
}
