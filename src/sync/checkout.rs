//! Bringing the merge into the home without losing a live write, and committing what the home
//! holds that no commit has.
//!
//! For one merge: every path the merge changes is locked with its note lock (sorted, as a move
//! does), so no writer can be between its file write and its commit on those paths. Under the
//! locks, each file must still be what our tip holds (then it is replaced), or already what the
//! merge wants (a killed sync wrote it). Anything else is a change no commit holds yet: it is
//! committed first, and the merge is made again on top of it. The files are written
//! (atomically) first and the branch is moved last, by compare-and-swap; when a live writer
//! moved it meanwhile (on another path), the merge is made again on the new tip, and taken when
//! it changes the same paths the same way, else redone from the start. So the branch never
//! points at a merge the files do not hold, and a kill at any point leaves files that are either
//! our tip's or the merge's: the next sync finds the merge's there and commits it.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

use git2::{ErrorCode, ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};
use jiff::Timestamp;

use super::merge::{self, Merged, PathWrite, Sides};
use super::note;
use super::text::Labels;
use super::{merge_message, SyncError, SyncObserver};
use crate::beneath::Dir;
use crate::home::repo::{self, PathChange, RepositoryError};
use crate::home::snapshot;
use crate::home::{index, layout};
use crate::notes::files::{self, notes_error};
use crate::notes::history::{self, Recorded};
use crate::notes::identity::Identity;
use crate::notes::lock::{self, NoteLock};
use crate::notes::NotesError;

/// How many times a merge is made again because the home changed under it.
const MERGE_ATTEMPTS: u32 = 24;
/// How many times the branch move is retried when live writers keep moving the branch.
const MOVE_ATTEMPTS: u32 = 64;

pub struct Context<'a> {
    pub repo: &'a Repository,
    pub identity: &'a Identity,
    pub now: Timestamp,
    /// `refs/heads/main`.
    pub branch_ref: &'a str,
    /// The remote as shown (in the merge commit's subject).
    pub remote: &'a str,
    pub labels: &'a Labels,
}

/// A merge brought into the home.
pub struct Done {
    /// The merge commit (or their tip, for a fast-forward).
    pub commit: Oid,
    pub merged: Merged,
}

/// A merge made on one tip.
struct Plan {
    tip: Option<Oid>,
    merged: Merged,
    /// Our tip is their ancestor and nothing of theirs was refused: the branch just moves to
    /// their commit.
    fast_forward: bool,
}

fn git(e: git2::Error) -> SyncError {
    SyncError::Repository(RepositoryError::Git(e))
}

/// Merges `theirs` into the home: `None` when our tip has it already.
pub fn merge_into_home(
    cx: &Context,
    theirs: Oid,
    observer: &mut dyn SyncObserver,
) -> Result<Option<Done>, SyncError> {
    let home = &cx.identity.home;
    for _ in 0..MERGE_ATTEMPTS {
        let tip = repo::tip(cx.repo, cx.branch_ref)
            .map_err(git)?
            .map(|c| c.id());
        if let Some(tip) = tip {
            if tip == theirs || cx.repo.graph_descendant_of(tip, theirs).map_err(git)? {
                return Ok(None);
            }
        }
        let first = plan(cx, tip, theirs)?;
        let root = files::create_root(home)?;
        let locks = lock_paths(&root, first.merged.writes.iter().map(|w| w.path.as_str()))?;
        // A writer may have committed between the merge and the locks: the merge on the tip
        // now must change the same paths the same way, or it is made again.
        let now = current_tip(cx)?;
        let plan = if now == tip {
            first
        } else {
            let again = plan(cx, now, theirs)?;
            if again.merged.writes != first.merged.writes {
                continue;
            }
            again
        };
        let todo = match on_disk(cx.repo, &root, &plan.merged.writes)? {
            Disk::Ready(todo) => todo,
            Disk::Uncommitted(paths) => {
                drop(locks);
                commit_paths(cx.repo, cx.identity, cx.now, &paths)?;
                continue;
            }
        };
        for (write, now) in todo {
            apply(cx.repo, &root, write, now.as_deref())?;
            observer.reached("file-written");
        }
        observer.reached("files-written");
        if let Some(commit) = move_branch(cx, &plan, theirs)? {
            drop(locks);
            update_index(cx.repo, commit);
            return Ok(Some(Done {
                commit,
                merged: plan.merged,
            }));
        }
    }
    Err(SyncError::Busy(MERGE_ATTEMPTS))
}

fn current_tip(cx: &Context) -> Result<Option<Oid>, SyncError> {
    Ok(repo::tip(cx.repo, cx.branch_ref)
        .map_err(git)?
        .map(|c| c.id()))
}

/// The merge of `theirs` into `tip`.
fn plan(cx: &Context, tip: Option<Oid>, theirs: Oid) -> Result<Plan, SyncError> {
    let repo = cx.repo;
    let theirs_commit = repo.find_commit(theirs).map_err(git)?;
    let theirs_tree = theirs_commit.tree().map_err(git)?;
    let ours_tree = match tip {
        Some(tip) => Some(repo.find_commit(tip).and_then(|c| c.tree()).map_err(git)?),
        None => None,
    };
    let (base_tree, tip_is_base): (Option<Tree>, bool) = match tip {
        None => (None, true),
        Some(tip) => match repo.merge_base(tip, theirs) {
            Ok(base) => (
                Some(repo.find_commit(base).and_then(|c| c.tree()).map_err(git)?),
                base == tip,
            ),
            // Unrelated histories: merged as if from an empty tree.
            Err(e) if e.code() == ErrorCode::NotFound => (None, false),
            Err(e) => return Err(git(e)),
        },
    };
    let short = theirs.to_string()[..7].to_string();
    let merged = merge::merge(&Sides {
        repo,
        base: base_tree.as_ref(),
        ours: ours_tree.as_ref(),
        theirs: &theirs_tree,
        theirs_short: &short,
        labels: cx.labels,
    })
    .map_err(git)?;
    let fast_forward = tip_is_base && merged.tree == theirs_tree.id();
    Ok(Plan {
        tip,
        merged,
        fast_forward,
    })
}

/// Moves the branch to the merge: `None` when the merge must be made again from the start (a
/// live writer changed what it merges).
fn move_branch(cx: &Context, plan: &Plan, theirs: Oid) -> Result<Option<Oid>, SyncError> {
    let repo = cx.repo;
    let signature = repo::signature(
        repo,
        &cx.identity.agent,
        &format!("{}@pi-context", cx.identity.agent),
        cx.now,
    )
    .map_err(git)?;
    let message = merge_message(cx.identity, cx.remote);
    let ref_lock = repo.path().join(format!("{}.lock", cx.branch_ref));
    let lock_deadline = repo::lock_deadline();
    for attempt in 0..MOVE_ATTEMPTS {
        let tip = current_tip(cx)?;
        let replanned;
        let plan = if tip == plan.tip {
            plan
        } else {
            replanned = self::plan(cx, tip, theirs)?;
            if replanned.merged.writes != plan.merged.writes {
                return Ok(None);
            }
            &replanned
        };
        let target = if plan.fast_forward {
            theirs
        } else {
            let tree = repo.find_tree(plan.merged.tree).map_err(git)?;
            let mut parents = Vec::new();
            if let Some(tip) = tip {
                parents.push(repo.find_commit(tip).map_err(git)?);
            }
            parents.push(repo.find_commit(theirs).map_err(git)?);
            let parents: Vec<&git2::Commit> = parents.iter().collect();
            repo.commit(None, &signature, &signature, &message, &tree, &parents)
                .map_err(git)?
        };
        let moved = match tip {
            Some(tip) => repo.reference_matching(cx.branch_ref, target, true, tip, &message),
            None => repo.reference(cx.branch_ref, target, false, &message),
        };
        match moved {
            Ok(_) => {
                index::follow_commit(repo, None);
                return Ok(Some(target));
            }
            Err(e) if e.code() == ErrorCode::Locked => {
                repo::wait_for_lock(&ref_lock, lock_deadline)?;
            }
            Err(e) if is_race(&e) => {
                std::thread::sleep(Duration::from_millis(1 + u64::from(attempt.min(20))));
            }
            Err(e) => return Err(git(e)),
        }
    }
    Ok(None)
}

fn is_race(e: &git2::Error) -> bool {
    matches!(e.code(), ErrorCode::Modified | ErrorCode::Exists)
}

/// The index follows the new tip, so `git status` in the home shows it clean (nothing here reads
/// the index; a failure is harmless).
fn update_index(repo: &Repository, commit: Oid) {
    let _ = repo
        .find_commit(commit)
        .and_then(|c| c.tree())
        .and_then(|tree| {
            let mut index = repo.index()?;
            index.read_tree(&tree)?;
            index.write()
        });
}

/// The note locks of `paths`, taken in sorted order (as every multi-note operation takes them).
/// Each is an open file: a merge of many paths needs many descriptors, so the soft limit is
/// raised to the hard one first.
fn lock_paths<'p>(
    root: &Dir,
    paths: impl Iterator<Item = &'p str>,
) -> Result<Vec<NoteLock>, SyncError> {
    let mut sorted: Vec<&str> = paths.collect();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() > 256 {
        raise_open_file_limit();
    }
    sorted
        .into_iter()
        .map(|path| lock::lock(root, path).map_err(|e| SyncError::Notes(e.into())))
        .collect()
}

fn raise_open_file_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    // An unlimited hard limit still has the kernel's cap: ask for a generous number instead.
    let wanted = limit.maximum.unwrap_or(1 << 20);
    if limit.current.is_some_and(|soft| soft < wanted) {
        let _ = setrlimit(
            Resource::Nofile,
            Rlimit {
                current: Some(wanted),
                maximum: limit.maximum,
            },
        );
    }
}

/// What the files of a merge's paths hold now.
enum Disk<'m> {
    /// Each file is our tip's version or the merge's (read counters aside): these still need
    /// the merge's, with the file's bytes now.
    Ready(Vec<(&'m PathWrite, Option<Vec<u8>>)>),
    /// These hold something else: a change no commit has.
    Uncommitted(Vec<String>),
}

fn on_disk<'m>(
    repo: &Repository,
    root: &Dir,
    writes: &'m [PathWrite],
) -> Result<Disk<'m>, SyncError> {
    let mut todo = Vec::new();
    let mut uncommitted = Vec::new();
    for write in writes {
        let bytes = files::read_below(root, &write.path)?;
        let now = bytes.as_deref().map(blob_id);
        if now == write.merged.map(|e| e.oid) {
            continue;
        }
        if now == write.ours {
            todo.push((write, bytes));
            continue;
        }
        let same = |oid: Option<Oid>| -> Result<bool, SyncError> {
            let (Some(oid), Some(bytes)) = (oid, bytes.as_deref()) else {
                return Ok(false);
            };
            let blob = repo.find_blob(oid).map_err(git)?;
            Ok(write.path.ends_with(".md") && note::same_but_counters(blob.content(), bytes))
        };
        if same(write.merged.map(|e| e.oid))? {
            // Merged already (by a killed sync), then read.
            continue;
        }
        if same(write.ours)? {
            // Our version, read since its commit: the counters are carried into the merge.
            todo.push((write, bytes));
        } else {
            uncommitted.push(write.path.clone());
        }
    }
    Ok(if uncommitted.is_empty() {
        Disk::Ready(todo)
    } else {
        Disk::Uncommitted(uncommitted)
    })
}

fn blob_id(bytes: &[u8]) -> Oid {
    Oid::hash_object(ObjectType::Blob, bytes).unwrap_or(Oid::ZERO_SHA1)
}

/// Puts the merge's version of one path on disk (atomically, never through a link), with the
/// read counters the file has now when they are ahead.
fn apply(
    repo: &Repository,
    root: &Dir,
    write: &PathWrite,
    now: Option<&[u8]>,
) -> Result<(), SyncError> {
    let (dirs, name) = files::split_path(&write.path);
    match write.merged {
        Some(entry) => {
            let blob = repo.find_blob(entry.oid).map_err(git)?;
            let carried = match (now, std::str::from_utf8(blob.content())) {
                (Some(now), Ok(merged)) if write.path.ends_with(".md") => std::str::from_utf8(now)
                    .ok()
                    .map(|now| note::carry_counters(merged, now)),
                _ => None,
            };
            let bytes = carried.as_deref().map_or(blob.content(), str::as_bytes);
            let dir = files::create_dirs(root, &dirs)?;
            files::write_atomic(&dir, name, bytes, None)?;
        }
        None => {
            if let Some(dir) = files::open_dirs(root, &dirs)? {
                dir.remove_file(name).map_err(notes_error)?;
            }
        }
    }
    Ok(())
}

/// Commits what the home's files hold that our tip does not (a note edited by hand, a read's
/// counters, a write whose commit failed, a note a killed sync wrote): `None` when the home
/// equals the tip. Links, special files and files over 64 MiB are left out, as the dream's audit
/// leaves them out.
pub fn commit_local_changes(
    repo: &Repository,
    identity: &Identity,
    now: Timestamp,
) -> Result<Option<Oid>, SyncError> {
    let branch = repo::branch_ref(repo).map_err(git)?;
    let tip = repo::tip(repo, &branch).map_err(git)?;
    let committed = match &tip {
        Some(tip) => blobs(&tip.tree().map_err(git)?).map_err(git)?,
        None => BTreeMap::new(),
    };
    let on_disk = home_files(&identity.home).map_err(|source| NotesError::Io {
        what: format!("cannot read the notes home {}", identity.home.display()),
        source,
    })?;
    let mut changed: Vec<String> = on_disk
        .iter()
        .filter(|(path, oid)| committed.get(*path) != Some(*oid))
        .map(|(path, _)| path.clone())
        .collect();
    changed.extend(
        committed
            .keys()
            .filter(|path| !on_disk.contains_key(*path) && !is_skipped(&identity.home, path))
            .cloned(),
    );
    if changed.is_empty() {
        return Ok(None);
    }
    commit_paths(repo, identity, now, &changed)
}

/// Commits the current content of `paths` (read under their locks, so a live write's own commit
/// has landed first), as `record local changes`. A note whose only change is a read's counters
/// is left alone, as a read never commits.
fn commit_paths(
    repo: &Repository,
    identity: &Identity,
    now: Timestamp,
    paths: &[String],
) -> Result<Option<Oid>, SyncError> {
    let root = files::create_root(&identity.home)?;
    let _locks = lock_paths(&root, paths.iter().map(String::as_str))?;
    let tip = repo::tip(repo, &repo::branch_ref(repo).map_err(git)?).map_err(git)?;
    let tree = match &tip {
        Some(tip) => Some(tip.tree().map_err(git)?),
        None => None,
    };
    let mut contents = Vec::new();
    for path in paths {
        let bytes = files::read_below(&root, path)?;
        let committed = tree
            .as_ref()
            .and_then(|t| t.get_path(Path::new(path)).ok())
            .and_then(|e| repo.find_blob(e.id()).ok());
        if let (Some(bytes), Some(blob)) = (&bytes, &committed) {
            if path.ends_with(".md") && note::same_but_counters(blob.content(), bytes) {
                continue;
            }
        }
        contents.push((path.as_str(), bytes));
    }
    if contents.is_empty() {
        return Ok(None);
    }
    let changes: Vec<PathChange> = contents
        .iter()
        .map(|(path, content)| PathChange {
            path,
            content: content.as_deref(),
        })
        .collect();
    let recorded = history::record(
        identity,
        now,
        &history::Operation {
            name: "record",
            target: "local changes",
            on_note: false,
            extra: &[],
            changes: &changes,
        },
    );
    match recorded {
        Recorded::Committed(oid) => Ok(Some(oid)),
        Recorded::Unchanged | Recorded::Off | Recorded::Queued => Ok(None),
        Recorded::Failed { .. } => {
            Err(NotesError::History(recorded.failure().unwrap_or_default()).into())
        }
    }
}

/// The blob paths of `tree` (links and submodules left out), with their objects.
fn blobs(tree: &Tree) -> Result<BTreeMap<String, Oid>, git2::Error> {
    let mut out = BTreeMap::new();
    tree.walk(TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() == Some(ObjectType::Blob) && entry.filemode() != 0o120000 {
            let name = String::from_utf8_lossy(entry.name_bytes());
            out.insert(format!("{dir}{name}"), entry.id());
        }
        TreeWalkResult::Ok
    })?;
    Ok(out)
}

/// A committed path that is on disk but not a plain file the walk reads (a link, a large file):
/// not a deletion.
fn is_skipped(home: &Path, path: &str) -> bool {
    fs::symlink_metadata(home.join(path)).is_ok()
}

/// Every regular file of the home a commit holds (relative path → blob id): everything but
/// `.git`, the locks, the dream's journal and the temp files of writes in progress.
fn home_files(home: &Path) -> io::Result<BTreeMap<String, Oid>> {
    let mut out = BTreeMap::new();
    walk(home, "", &mut out)?;
    Ok(out)
}

fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Oid>) -> io::Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound && !prefix.is_empty() => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Ok(name) = std::str::from_utf8(name.as_bytes()) else {
            continue;
        };
        if layout::is_machinery(name, prefix.is_empty()) {
            continue;
        }
        let path = format!("{prefix}{name}");
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&entry.path(), &format!("{path}/"), out)?;
        } else if kind.is_file() {
            if let Some((Some(bytes), _, _)) = snapshot::read_regular(&entry.path())? {
                out.insert(path, blob_id(&bytes));
            }
        }
    }
    Ok(())
}
