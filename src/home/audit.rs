//! The git audit trail of a dream, on the notes home's repository ([`super::repo`]).
//!
//! Commits are built from [`Snapshot`] trees, never through the index, so the repository's own
//! ignore rules cannot hide a change; they land on the branch by compare-and-swap, so live
//! agents' own commits (one per notes write) can go on during a dream. The repository must be
//! the home's own and in a state a commit can be made in ([`super::repo::check`]).

use std::path::Path;

use git2::{Delta, Oid, Repository};
use serde::Serialize;

use super::repo::{self, RepositoryError};
use super::snapshot::Snapshot;

/// One path that differs between two snapshots.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Change {
    /// `added`, `modified` or `deleted`.
    pub kind: &'static str,
    /// Relative to the notes home, `/`-separated.
    pub path: String,
}

pub struct Audit {
    repo: Repository,
}

impl Audit {
    /// Opens the home's repository, creating it if absent (see [`repo::open_or_init`]).
    pub fn open_or_init(home: &Path) -> Result<Audit, RepositoryError> {
        Ok(Audit {
            repo: repo::open_or_init(home)?,
        })
    }

    pub fn repo(&self) -> &Repository {
        &self.repo
    }

    /// Commits the whole home as a snapshot sees it, on HEAD's branch, when it differs from
    /// the tip (or when the branch has no commit yet: then possibly empty). When a live agent's
    /// commit moved the branch meanwhile, the home is snapshotted again, so the commit never
    /// undoes a write it did not see. Returns the commit made, if any, and the snapshot.
    /// The index is then set to the committed tree when it can be, so `git status` shows a
    /// clean home (the index is a convenience for people; nothing here reads it).
    pub fn commit_home(
        &self,
        home: &Path,
        message: &str,
        now: jiff::Timestamp,
    ) -> Result<(Option<Oid>, Snapshot), RepositoryError> {
        let signature = repo::signature(&self.repo, "pi-context dream", "dream@localhost", now)?;
        let mut taken = Snapshot::default();
        let commit = repo::commit_cas(&self.repo, &signature, message, &[], None, |tip| {
            taken = Snapshot::take(&self.repo, home)
                .map_err(|e| git2::Error::from_str(&format!("cannot snapshot the home: {e}")))?;
            let tree = taken.content_tree(&self.repo)?;
            Ok(match tip {
                Some(tip) if tip.tree_id() == tree => None,
                // A new repository's first commit: possibly empty (docs/dream.md, "The pipeline").
                _ => Some(tree),
            })
        })?;
        if let Some(oid) = commit {
            let _ = self
                .repo
                .find_commit(oid)
                .and_then(|c| c.tree())
                .and_then(|tree| {
                    let mut index = self.repo.index()?;
                    index.read_tree(&tree)?;
                    index.write()
                });
        }
        Ok((commit, taken))
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
