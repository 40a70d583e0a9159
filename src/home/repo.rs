//! The notes home as a git repository (libgit2; no `git` executable needed).
//!
//! Every change a notes operation makes is a commit (unless the notes history is off): the new
//! tree is HEAD's tree with the changed paths replaced — never through the index, so no writer
//! waits for another's index to build its commit — and the branch moves by compare-and-swap on
//! its ref, retried when another process moved it first. Only after the commit is `.git/index`
//! edited to follow it ([`super::index`]). There is no global lock: the per-note locks
//! already order the writers of one note, and commits of different notes touch different paths.
//!
//! The repository must be the home's own: a `.git` that is a symlink or a gitfile, a work tree
//! elsewhere, or links inside `.git` would make a commit land in somebody else's repository, so
//! each is refused; so are a merge (or rebase, …) in progress and a detached HEAD.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use git2::build::TreeUpdateBuilder;
use git2::{
    ErrorCode, FileMode, Oid, Repository, RepositoryInitOptions, RepositoryState, Signature, Time,
};
use jiff::tz::TimeZone;
use jiff::Timestamp;

use super::index;
use super::layout::GIT_DIR;

/// The branch a new notes repository starts on.
pub const DEFAULT_BRANCH: &str = "main";

/// Kept out of `git status` for people who look at the home with git: the lock files of the
/// store and the dream, temp files of writes in progress, and the live-write journal.
const EXCLUDE_LINES: [&str; 5] = [
    ".dream.lock*",
    ".sync.lock*",
    "/.locks/",
    ".pi-context.*.tmp",
    "/.dream.journal/",
];

/// The entries of `.git` that must be real files or directories, never links.
const GIT_ENTRIES: [&str; 9] = [
    "HEAD",
    "config",
    "index",
    "objects",
    "refs",
    "logs",
    "info",
    "hooks",
    "packed-refs",
];

/// How often a commit retries when another process moved the branch first.
const CAS_ATTEMPTS: u32 = 64;

/// A git lock file (`refs/heads/main.lock`, `index.lock`, …) older than this is stale: git and
/// libgit2 hold a ref's lock for the few milliseconds of its update, so a lock this old was
/// left by a process that died mid-update (SIGKILL, power loss), and nothing will ever remove
/// it. docs/notes.md, "A lock is not a race; a stale lock is repaired", explains the choice.
pub const STALE_LOCK_AFTER: Duration = Duration::from_secs(5);

/// Why the home's repository cannot take a commit.
#[derive(Debug, thiserror::Error)]
pub enum RepositoryError {
    #[error("{message}")]
    Refused { message: String, hint: String },
    #[error(transparent)]
    Git(#[from] git2::Error),
    #[error("{what}: {source}")]
    Io { what: String, source: io::Error },
    #[error("the branch kept moving: {0} attempts to commit lost the race")]
    Contended(u32),
    /// The branch's lock file is there and cannot be taken over.
    #[error("{} blocks every commit: {why}", .path.display())]
    RefLocked { path: PathBuf, why: String },
}

impl RepositoryError {
    fn refused(message: impl Into<String>, hint: impl Into<String>) -> Self {
        RepositoryError::Refused {
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// What to do about it, when there is something to do.
    pub fn hint(&self) -> Option<String> {
        match self {
            RepositoryError::Refused { hint, .. } => Some(hint.clone()),
            RepositoryError::RefLocked { path, .. } => Some(format!(
                "if no git process is running in the notes home, remove it: rm {}",
                path.display()
            )),
            _ => None,
        }
    }
}

/// Checks the home's repository without changing anything: `Ok(None)` when there is none yet,
/// the open repository when it is the home's own and ready for a commit, else why not.
pub fn check(home: &Path) -> Result<Option<Repository>, RepositoryError> {
    let dot_git = home.join(GIT_DIR);
    let meta = match fs::symlink_metadata(&dot_git) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RepositoryError::Io {
                what: format!("cannot inspect {}", dot_git.display()),
                source,
            })
        }
    };
    if meta.file_type().is_symlink() {
        return Err(RepositoryError::refused(
            format!("{} is a symbolic link: the notes home's repository must be its own", dot_git.display()),
            format!("nothing commits through a link into another repository; replace the link with a real repository or remove it: rm {}", dot_git.display()),
        ));
    }
    if !meta.is_dir() {
        return Err(RepositoryError::refused(
            format!("{} is not a directory (a gitfile of a worktree or submodule, or something else)", dot_git.display()),
            "the notes history lives only in a repository whose .git directory is in the notes home; move the notes home out of that worktree or submodule".to_string(),
        ));
    }
    check_no_links(&dot_git)?;
    let repo = match Repository::open(home) {
        Ok(repo) => repo,
        // An empty or half-made `.git` (a concurrent first write is initializing it): init
        // completes it, as `git init` would.
        Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let owns_home = repo.workdir().is_some_and(|w| same_dir(w, home));
    if !owns_home {
        return Err(RepositoryError::refused(
            format!(
                "the repository in {} has its work tree elsewhere ({})",
                home.display(),
                repo.workdir()
                    .map_or_else(|| "bare".to_string(), |w| w.display().to_string())
            ),
            "unset core.worktree and core.bare in its .git/config, or use another notes home",
        ));
    }
    check_state(&repo, home)?;
    Ok(Some(repo))
}

/// The home's repository, created (on branch `main`, with the store's files excluded) when
/// there is none yet.
pub fn open_or_init(home: &Path) -> Result<Repository, RepositoryError> {
    let repo = match check(home)? {
        Some(repo) => repo,
        None => {
            let mut options = RepositoryInitOptions::new();
            options.initial_head(DEFAULT_BRANCH);
            match Repository::init_opts(home, &options) {
                Ok(repo) => repo,
                // Another process won the race to create it.
                Err(_) => check(home)?.ok_or_else(|| {
                    RepositoryError::Git(git2::Error::from_str("cannot create the repository"))
                })?,
            }
        }
    };
    ensure_excluded(&repo).map_err(|source| RepositoryError::Io {
        what: "cannot write .git/info/exclude".into(),
        source,
    })?;
    Ok(repo)
}

fn ensure_excluded(repo: &Repository) -> io::Result<()> {
    let info = repo.path().join("info");
    fs::create_dir_all(&info)?;
    let exclude = info.join("exclude");
    let current = fs::read_to_string(&exclude).unwrap_or_default();
    let missing: Vec<&str> = EXCLUDE_LINES
        .into_iter()
        .filter(|line| !current.lines().any(|l| l.trim() == *line))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&exclude)?;
    if !current.is_empty() && !current.ends_with('\n') {
        file.write_all(b"\n")?;
    }
    for line in missing {
        writeln!(file, "{line}")?;
    }
    Ok(())
}

/// The entries git writes into must be the repository's own, not links to another one.
fn check_no_links(dot_git: &Path) -> Result<(), RepositoryError> {
    let mut suspects: Vec<PathBuf> = GIT_ENTRIES.iter().map(|e| dot_git.join(e)).collect();
    for dir in ["objects", "refs", "refs/heads"] {
        if let Ok(entries) = fs::read_dir(dot_git.join(dir)) {
            suspects.extend(entries.filter_map(|e| Some(e.ok()?.path())));
        }
    }
    for path in suspects {
        if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(RepositoryError::refused(
                format!(
                    "{} is a symbolic link: commits would be written outside the notes home",
                    path.display()
                ),
                format!(
                    "replace it with a real file or directory: rm {}",
                    path.display()
                ),
            ));
        }
    }
    Ok(())
}

fn check_state(repo: &Repository, home: &Path) -> Result<(), RepositoryError> {
    let state = repo.state();
    if state != RepositoryState::Clean {
        let (what, hint) = match state {
            RepositoryState::Merge => (
                "a merge",
                "finish it (commit) or abort it: git -C <home> merge --abort",
            ),
            RepositoryState::Rebase
            | RepositoryState::RebaseInteractive
            | RepositoryState::RebaseMerge => (
                "a rebase",
                "finish it or abort it: git -C <home> rebase --abort",
            ),
            RepositoryState::CherryPick | RepositoryState::CherryPickSequence => (
                "a cherry-pick",
                "finish it or abort it: git -C <home> cherry-pick --abort",
            ),
            RepositoryState::Revert | RepositoryState::RevertSequence => (
                "a revert",
                "finish it or abort it: git -C <home> revert --abort",
            ),
            _ => (
                "a git operation",
                "finish or abort it with git in the notes home",
            ),
        };
        return Err(RepositoryError::refused(
            format!("the notes home's repository is in the middle of {what}; a commit would record its conflict markers as notes"),
            hint.replace("<home>", &home.display().to_string()),
        ));
    }
    if repo.head_detached()? {
        return Err(RepositoryError::refused(
            "the notes home's repository has a detached HEAD; commits would land on no branch",
            format!(
                "check out a branch first: git -C {} switch <branch> (or switch -c notes)",
                home.display()
            ),
        ));
    }
    Ok(())
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The user's git identity when configured, else `name <email>`, at `now` (the process's
/// clock, so a fixed `PI_CONTEXT_NOW` gives fixed commit times) in the local time zone.
pub fn signature(
    repo: &Repository,
    name: &str,
    email: &str,
    now: Timestamp,
) -> Result<Signature<'static>, git2::Error> {
    let offset = TimeZone::system().to_offset(now).seconds() / 60;
    let time = Time::new(now.as_second(), offset);
    match repo.signature() {
        Ok(user) => Signature::new(
            user.name().unwrap_or(name),
            user.email().unwrap_or(email),
            &time,
        ),
        Err(_) => Signature::new(name, email, &time),
    }
}

/// The branch HEAD names (`refs/heads/main`), whether or not it has a commit yet.
pub fn branch_ref(repo: &Repository) -> Result<String, git2::Error> {
    let head = repo.find_reference("HEAD")?;
    head.symbolic_target()?
        .map(str::to_string)
        .ok_or_else(|| git2::Error::from_str("HEAD is detached"))
}

/// The commit the branch points to now, if it has one.
pub fn tip<'r>(
    repo: &'r Repository,
    branch: &str,
) -> Result<Option<git2::Commit<'r>>, git2::Error> {
    match repo.find_reference(branch) {
        Ok(reference) => Ok(Some(reference.peel_to_commit()?)),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Commits on the branch HEAD names, with a compare-and-swap on its ref: `tree_of` builds the
/// new tree from the current tip (`None` on an unborn branch) and returns `None` when there is
/// nothing to commit; `extra_parents` become the merge's other parents. When another process
/// moved the branch meanwhile, the tree is built again on the new tip; when the branch's lock
/// file is held, the commit waits for it, and takes it over once it is stale. Returns the
/// commit made, if any. After a commit, `.git/index` follows it ([`index::follow_commit`]):
/// edited at `changed` when the commit changed only those paths, else rebuilt from the tip.
pub fn commit_cas(
    repo: &Repository,
    signature: &Signature,
    message: &str,
    extra_parents: &[Oid],
    changed: Option<&[PathChange]>,
    mut tree_of: impl FnMut(Option<&git2::Commit>) -> Result<Option<Oid>, git2::Error>,
) -> Result<Option<Oid>, RepositoryError> {
    let branch = branch_ref(repo)?;
    let ref_lock = repo.path().join(format!("{branch}.lock"));
    let mut races = 0;
    let lock_deadline = lock_deadline();
    loop {
        let tip = tip(repo, &branch)?;
        let Some(tree_id) = tree_of(tip.as_ref())? else {
            return Ok(None);
        };
        let tree = repo.find_tree(tree_id)?;
        let mut parents: Vec<git2::Commit> = tip.iter().cloned().collect();
        for oid in extra_parents {
            parents.push(repo.find_commit(*oid)?);
        }
        let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
        let commit = repo.commit(None, signature, signature, message, &tree, &parent_refs)?;
        let moved = match &tip {
            Some(old) => repo.reference_matching(&branch, commit, true, old.id(), message),
            None => repo.reference(&branch, commit, false, message),
        };
        match moved {
            Ok(_) => {
                index::follow_commit(repo, index_edits(changed).as_deref());
                return Ok(Some(commit));
            }
            Err(e) if e.code() == ErrorCode::Locked => {
                wait_for_lock(&ref_lock, lock_deadline)?;
            }
            Err(e) if is_race(&e) => {
                // Another writer moved the branch first: build again on top.
                races += 1;
                if races >= CAS_ATTEMPTS {
                    return Err(RepositoryError::Contended(CAS_ATTEMPTS));
                }
                std::thread::sleep(Duration::from_millis(1 + u64::from(races.min(20))));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

fn is_race(e: &git2::Error) -> bool {
    matches!(e.code(), ErrorCode::Modified | ErrorCode::Exists)
}

/// The age of a git lock file: `None` when it is gone.
pub fn lock_age(path: &Path) -> io::Result<Option<(Duration, fs::Metadata)>> {
    match fs::symlink_metadata(path) {
        Ok(meta) => {
            let modified = meta.modified()?;
            let age = SystemTime::now()
                .duration_since(modified)
                .unwrap_or_default();
            Ok(Some((age, meta)))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Until when a commit waits for a held ref lock: a little past the moment it is stale.
pub fn lock_deadline() -> Instant {
    Instant::now() + STALE_LOCK_AFTER + Duration::from_secs(1)
}

/// Waits a moment for the holder of `lock` to finish, or takes a stale lock over. An error
/// when the lock is not stale by `deadline`, or cannot be removed.
pub fn wait_for_lock(lock: &Path, deadline: Instant) -> Result<(), RepositoryError> {
    let refused = |why: String| RepositoryError::RefLocked {
        path: lock.to_path_buf(),
        why,
    };
    let Some((age, meta)) =
        lock_age(lock).map_err(|e| refused(format!("cannot inspect it: {e}")))?
    else {
        return Ok(());
    };
    if age >= STALE_LOCK_AFTER {
        return break_stale_lock(lock, &meta).map_err(|e| {
            refused(format!(
                "it is {} s old, so its process died mid-update, but it cannot be removed: {e}",
                age.as_secs()
            ))
        });
    }
    if Instant::now() >= deadline {
        return Err(refused(format!(
            "another process has held it for {} ms (a git command running in the notes home?)",
            age.as_millis()
        )));
    }
    std::thread::sleep(Duration::from_millis(20).min(STALE_LOCK_AFTER - age));
    Ok(())
}

/// Removes the git lock file at `path` when it is stale ([`STALE_LOCK_AFTER`]); `true` when
/// it did. A fresh lock is left to its process.
pub fn clear_stale_lock(path: &Path) -> io::Result<bool> {
    match lock_age(path)? {
        Some((age, meta)) if age >= STALE_LOCK_AFTER => {
            break_stale_lock(path, &meta).map(|()| true)
        }
        _ => Ok(false),
    }
}

/// Where a stale lock is moved before it is removed: at the top of the repository's `.git`,
/// where git ignores a file it does not know. Beside the lock, under `refs/`, a process killed
/// between the move and the removal would leave a file git reads as a branch.
fn aside_path(lock: &Path) -> PathBuf {
    let git_dir = lock
        .ancestors()
        .find(|dir| dir.file_name().is_some_and(|name| name == GIT_DIR))
        .or_else(|| lock.parent())
        .unwrap_or(lock);
    git_dir.join(format!(
        "pi-context-stale-lock-{}",
        uuid::Uuid::new_v4().simple()
    ))
}

/// Removes a stale lock file without ever removing a fresh one that replaced it meanwhile:
/// the lock is renamed aside, and removed only when what was moved is the file judged stale.
/// A fresh lock moved by mistake is put back (or, when yet another one was created, left for
/// its process, whose update then fails and is retried).
fn break_stale_lock(lock: &Path, stale: &fs::Metadata) -> io::Result<()> {
    if !stale.file_type().is_file() {
        return Err(io::Error::other(
            "it is not a regular file, so it is left for a person to look at",
        ));
    }
    let aside = aside_path(lock);
    match fs::rename(lock, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    }
    let moved = fs::symlink_metadata(&aside)?;
    // The inode number of a removed lock can be reused at once; the time tells them apart.
    let same_file = moved.dev() == stale.dev()
        && moved.ino() == stale.ino()
        && moved.modified().ok() == stale.modified().ok();
    if same_file {
        return fs::remove_file(&aside);
    }
    match rustix::fs::renameat_with(
        rustix::fs::CWD,
        &aside,
        rustix::fs::CWD,
        lock,
        rustix::fs::RenameFlags::NOREPLACE,
    ) {
        Ok(()) => Ok(()),
        Err(_) => fs::remove_file(&aside),
    }
}

/// The index edits of a commit that changed exactly `changed`.
fn index_edits<'a>(changed: Option<&[PathChange<'a>]>) -> Option<Vec<index::Edit<'a>>> {
    changed?
        .iter()
        .map(|change| {
            let blob = match change.content {
                Some(bytes) => Some(Oid::hash_object(git2::ObjectType::Blob, bytes).ok()?),
                None => None,
            };
            Some(index::Edit {
                path: change.path,
                blob,
            })
        })
        .collect()
}

/// One path changed by a notes operation: its new bytes, or `None` when it is gone.
#[derive(Debug, Clone, Copy)]
pub struct PathChange<'a> {
    /// Relative to the notes home, `/`-separated.
    pub path: &'a str,
    pub content: Option<&'a [u8]>,
}

/// The tree of `base` (empty when `None`) with `changes` applied.
pub fn tree_with(
    repo: &Repository,
    base: Option<&git2::Commit>,
    changes: &[PathChange],
) -> Result<Oid, git2::Error> {
    let Some(base) = base else {
        return first_tree(repo, changes);
    };
    let base_tree = base.tree()?;
    let mut update = TreeUpdateBuilder::new();
    for change in changes {
        match change.content {
            Some(bytes) => {
                let blob = repo.blob(bytes)?;
                update.upsert(change.path, blob, FileMode::Blob);
            }
            // Removing a path the tree does not have is an error to libgit2, and nothing here.
            None if base_tree.get_path(Path::new(change.path)).is_ok() => {
                update.remove(change.path);
            }
            None => {}
        }
    }
    update.create_updated(repo, &base_tree)
}

/// The tree of an unborn branch's first commit: built in memory, so no empty tree object is
/// left dangling in the repository.
fn first_tree(repo: &Repository, changes: &[PathChange]) -> Result<Oid, git2::Error> {
    let mut index = git2::Index::new()?;
    for change in changes {
        if let Some(bytes) = change.content {
            let entry = git2::IndexEntry {
                ctime: git2::IndexTime::new(0, 0),
                mtime: git2::IndexTime::new(0, 0),
                dev: 0,
                ino: 0,
                mode: u32::from(FileMode::Blob),
                uid: 0,
                gid: 0,
                file_size: 0,
                id: repo.blob(bytes)?,
                flags: 0,
                flags_extended: 0,
                path: change.path.as_bytes().to_vec(),
            };
            index.add(&entry)?;
        }
    }
    index.write_tree_to(repo)
}

/// Whether `tree` is worth a commit on top of `tip`: it differs from the tip's tree, or the
/// branch has no commit yet and the tree is not empty.
pub fn is_new_tree(
    repo: &Repository,
    tip: Option<&git2::Commit>,
    tree: Oid,
) -> Result<bool, git2::Error> {
    Ok(match tip {
        Some(tip) => tip.tree_id() != tree,
        None => !repo.find_tree(tree)?.is_empty(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_lock_is_moved_aside_out_of_refs_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let heads = dir.path().join(".git/refs/heads");
        fs::create_dir_all(&heads).unwrap();
        let lock = heads.join("main.lock");
        assert_eq!(
            aside_path(&lock).parent(),
            Some(dir.path().join(".git").as_path())
        );
        fs::write(&lock, "").unwrap();
        let stale = fs::symlink_metadata(&lock).unwrap();
        break_stale_lock(&lock, &stale).unwrap();
        assert!(!lock.exists());
        assert_eq!(
            fs::read_dir(&heads).unwrap().count(),
            0,
            "nothing left under refs/"
        );
        let left: Vec<_> = fs::read_dir(dir.path().join(".git"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("pi-context-stale-lock")
            })
            .collect();
        assert!(left.is_empty(), "the moved lock is removed");
    }

    #[test]
    fn a_fresh_lock_that_replaced_the_stale_one_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        let heads = dir.path().join(".git/refs/heads");
        fs::create_dir_all(&heads).unwrap();
        let lock = heads.join("main.lock");
        fs::write(&lock, "stale").unwrap();
        let stale = fs::symlink_metadata(&lock).unwrap();
        // Another process removed the stale lock and a live one took its name.
        fs::remove_file(&lock).unwrap();
        fs::write(heads.join("other"), "").unwrap();
        fs::write(&lock, "live").unwrap();
        break_stale_lock(&lock, &stale).unwrap();
        assert_eq!(fs::read_to_string(&lock).unwrap(), "live", "never removed");
    }
}
