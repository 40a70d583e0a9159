//! The git audit trail of the notes home, with git2 (no `git` executable needed).
//!
//! Commits are built from [`Snapshot`] trees, never through the index, so the repository's own
//! ignore rules cannot hide a change. The repository must be the home's own: a `.git` that is a
//! symlink or a gitfile, a repository whose work tree is elsewhere, or a `.git` with links inside
//! would make a dream write into somebody else's repository, so each is refused. So are a
//! repository in the middle of a merge (or rebase, cherry-pick, …) and a detached HEAD: committing
//! there would record conflict markers as notes or leave commits on no branch.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use git2::{Delta, Oid, Repository, RepositoryState, Signature};
use serde::Serialize;

use super::snapshot::Snapshot;
use crate::notes::layout::GIT_DIR;

/// Kept out of `git status` for people who look at the home with git: the lock files of the
/// store and the dream, temp files of writes in progress, and the live-write journal.
const EXCLUDE_LINES: [&str; 4] = [
    ".dream.lock*",
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

/// One path that differs between two snapshots.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Change {
    /// `added`, `modified` or `deleted`.
    pub kind: &'static str,
    /// Relative to the notes home, `/`-separated.
    pub path: String,
}

/// Why the home's repository cannot carry the audit trail.
#[derive(Debug, thiserror::Error)]
pub enum RepositoryError {
    #[error("{message}")]
    Refused { message: String, hint: String },
    #[error(transparent)]
    Git(#[from] git2::Error),
    #[error("{what}: {source}")]
    Io { what: String, source: io::Error },
}

impl RepositoryError {
    fn refused(message: impl Into<String>, hint: impl Into<String>) -> Self {
        RepositoryError::Refused {
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// What to do about it, when there is something to do.
    pub fn hint(&self) -> Option<&str> {
        match self {
            RepositoryError::Refused { hint, .. } => Some(hint),
            _ => None,
        }
    }
}

pub struct Audit {
    repo: Repository,
}

impl Audit {
    /// Opens the home's repository, creating it if absent, after checking that it is the home's
    /// own and in a state a commit can be made in. Keeps the store's lock files out of
    /// `git status`.
    pub fn open_or_init(home: &Path) -> Result<Audit, RepositoryError> {
        let repo = match check(home)? {
            Some(repo) => repo,
            None => Repository::init(home)?,
        };
        let audit = Audit { repo };
        audit
            .ensure_excluded()
            .map_err(|source| RepositoryError::Io {
                what: "cannot write .git/info/exclude".into(),
                source,
            })?;
        Ok(audit)
    }

    pub fn repo(&self) -> &Repository {
        &self.repo
    }

    fn ensure_excluded(&self) -> io::Result<()> {
        let info = self.repo.path().join("info");
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

    fn head_commit(&self) -> Option<git2::Commit<'_>> {
        self.repo.head().ok()?.peel_to_commit().ok()
    }

    /// Commits `snapshot`'s content on HEAD's branch when it differs from HEAD, or when the
    /// repository has no commit yet (then possibly empty). Returns the commit made, if any, and
    /// the tree. The index is then set to the committed tree when it can be, so `git status`
    /// shows a clean home (the index is a convenience for people; the audit never reads it).
    pub fn commit(
        &self,
        snapshot: &Snapshot,
        message: &str,
    ) -> Result<(Option<Oid>, Oid), git2::Error> {
        let tree_id = snapshot.content_tree(&self.repo)?;
        let head = self.head_commit();
        if head.as_ref().is_some_and(|h| h.tree_id() == tree_id) {
            return Ok((None, tree_id));
        }
        let tree = self.repo.find_tree(tree_id)?;
        let signature = self.signature()?;
        let parents: Vec<&git2::Commit> = head.iter().collect();
        let oid = self.repo.commit(
            Some("HEAD"),
            &signature,
            &signature,
            message,
            &tree,
            &parents,
        )?;
        let _ = self.repo.index().and_then(|mut index| {
            index.read_tree(&tree)?;
            index.write()
        });
        Ok((Some(oid), tree_id))
    }

    /// The user's git identity when configured, else `pi-context dream <dream@localhost>`.
    fn signature(&self) -> Result<Signature<'static>, git2::Error> {
        match self.repo.signature() {
            Ok(sig) => Ok(sig.to_owned()),
            Err(_) => Signature::now("pi-context dream", "dream@localhost"),
        }
    }

    /// Paths that differ between two trees, sorted.
    pub fn changes(&self, from: Oid, to: Oid) -> Result<Vec<Change>, git2::Error> {
        let (from, to) = (self.repo.find_tree(from)?, self.repo.find_tree(to)?);
        let diff = self.repo.diff_tree_to_tree(Some(&from), Some(&to), None)?;
        let mut changes: Vec<Change> = diff
            .deltas()
            .filter_map(|delta| {
                let kind = match delta.status() {
                    Delta::Added | Delta::Copied | Delta::Untracked => "added",
                    Delta::Deleted => "deleted",
                    Delta::Modified | Delta::Renamed | Delta::Typechange => "modified",
                    _ => return None,
                };
                let file = if kind == "deleted" {
                    delta.old_file()
                } else {
                    delta.new_file()
                };
                let path = file.path()?.to_string_lossy().replace('\\', "/");
                Some(Change { kind, path })
            })
            .collect();
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
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
            format!("a dream never commits through a link into another repository; replace the link with a real repository or remove it: rm {}", dot_git.display()),
        ));
    }
    if !meta.is_dir() {
        return Err(RepositoryError::refused(
            format!("{} is not a directory (a gitfile of a worktree or submodule, or something else)", dot_git.display()),
            "a dream commits only into a repository whose .git directory lives in the notes home; move the notes home out of that worktree or submodule".to_string(),
        ));
    }
    check_no_links(&dot_git)?;
    let repo = match Repository::open(home) {
        Ok(repo) => repo,
        // An empty or half-made `.git` (a concurrent first run is initializing it): init
        // completes it, as `git init` would.
        Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
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
            format!("the notes home's repository is in the middle of {what}; a dream would commit its conflict markers as notes"),
            hint.replace("<home>", &home.display().to_string()),
        ));
    }
    if repo.head_detached()? {
        return Err(RepositoryError::refused(
            "the notes home's repository has a detached HEAD; dream commits would land on no branch",
            format!("check out a branch first: git -C {} switch <branch> (or switch -c notes)", home.display()),
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
