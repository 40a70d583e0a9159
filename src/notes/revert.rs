//! Reverting one commit of the notes history as a new commit (what `dream undo` does to a
//! dream's commit): every path the commit changed goes back to what its parent held, unless a
//! later change touched it too. Such a path is a conflict: refused, or with `force`, kept with
//! both versions visible between the conflict markers of [`crate::home::layout`].
//!
//! All the paths' note locks are held (in sorted order) from the first read of the files to the
//! commit, so no live write slips between the check and the change.

use std::path::Path;

use git2::{Oid, Repository};
use jiff::Timestamp;
use serde::Serialize;

use super::address::Location;
use super::error::NotesError;
use super::files::{self, notes_error};
use super::history::{self, Recorded};
use super::identity::Identity;
use super::lock::{self, NoteLock};
use crate::beneath::Dir;
use crate::home::layout::{CONFLICT_END, CONFLICT_SEPARATOR, CONFLICT_START};
use crate::home::repo::PathChange;

/// What to revert and how to name it.
pub struct Revert<'a> {
    pub commit: Oid,
    /// Paths under these prefixes stay as they are (a dream's own reports).
    pub keep_prefixes: &'a [&'a str],
    /// Keep both versions of a path a later change touched, instead of refusing.
    pub force: bool,
    /// The commit's subject: `<operation> <target>` (`undo dream <stamp>`).
    pub operation: &'a str,
    pub target: &'a str,
    /// How the two versions of a conflict are labelled: (the one now, the one before).
    pub labels: (&'a str, &'a str),
}

/// One path of the reverted commit and what the revert did with it.
#[derive(Debug, Clone, Serialize)]
pub struct RevertedPath {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// `reverted` (back to the version before), `both_kept` (a later change touched it: both
    /// versions between conflict markers), `later_kept` (the commit created it and a later
    /// change edited it: that edit stays), `already` (it already was as before), or, in a
    /// refusal, `conflict`.
    pub action: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Reverted {
    pub paths: Vec<RevertedPath>,
    /// The revert's commit, when anything changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(skip)]
    pub history: Recorded,
}

#[derive(Debug, thiserror::Error)]
pub enum RevertError {
    #[error("{} changed since, so undoing would lose that change: {}", plural(.0.len()), names(.0))]
    Conflicts(Vec<RevertedPath>),
    #[error(transparent)]
    Notes(#[from] NotesError),
}

fn plural(n: usize) -> String {
    if n == 1 {
        "1 note was".to_string()
    } else {
        format!("{n} notes were")
    }
}

fn names(paths: &[RevertedPath]) -> String {
    paths
        .iter()
        .map(|p| p.address.clone().unwrap_or_else(|| p.path.clone()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One path the commit changed: what its parent held and what the commit left.
struct Touched {
    path: String,
    before: Option<Vec<u8>>,
    after: Option<Vec<u8>>,
}

/// Reverts `revert.commit` in the home of `identity` (see the module docs).
pub fn revert(
    identity: &Identity,
    now: Timestamp,
    revert: &Revert,
) -> Result<Reverted, RevertError> {
    let repo = history::open(&identity.home)?
        .ok_or_else(|| NotesError::History("the notes home has no history".into()))?;
    let touched = touched_paths(&repo, revert).map_err(history::git_error)?;
    let root = files::create_root(&identity.home)?;
    let mut sorted: Vec<&str> = touched.iter().map(|t| t.path.as_str()).collect();
    sorted.sort_unstable();
    let _locks: Vec<NoteLock> = sorted
        .iter()
        .map(|path| lock::lock(&root, path).map_err(NotesError::from))
        .collect::<Result<_, _>>()?;
    let mut plan = Vec::new();
    let mut conflicts = Vec::new();
    for t in &touched {
        let now_bytes = files::read_below(&root, &t.path)?;
        let (action, content) = decide(t, now_bytes.as_deref(), revert);
        let entry = RevertedPath {
            path: t.path.clone(),
            address: Location::from_home_path(&t.path, identity)
                .ok()
                .map(|l| l.address()),
            action,
        };
        if action == "conflict" {
            conflicts.push(entry);
            continue;
        }
        plan.push((entry, content));
    }
    if !conflicts.is_empty() {
        return Err(RevertError::Conflicts(conflicts));
    }
    let mut changes = Vec::new();
    for (entry, content) in &plan {
        match content {
            Change::Write(bytes) => {
                write(&root, &entry.path, bytes)?;
                changes.push(PathChange {
                    path: &entry.path,
                    content: Some(bytes),
                });
            }
            Change::Remove => {
                remove(&root, &entry.path)?;
                changes.push(PathChange {
                    path: &entry.path,
                    content: None,
                });
            }
            Change::Keep => {}
        }
    }
    let commit_id = revert.commit.to_string();
    let history = if changes.is_empty() {
        Recorded::Unchanged
    } else {
        history::record(
            identity,
            now,
            &history::Operation {
                name: revert.operation,
                target: revert.target,
                on_note: false,
                extra: &[("Reverts", &commit_id)],
                changes: &changes,
            },
        )
    };
    if let Some(failure) = history.failure() {
        return Err(NotesError::History(failure).into());
    }
    Ok(Reverted {
        paths: plan.into_iter().map(|(entry, _)| entry).collect(),
        commit: history.commit(),
        history,
    })
}

/// What to do with one path.
enum Change {
    Write(Vec<u8>),
    Remove,
    /// Leave the file as it is.
    Keep,
}

fn decide(t: &Touched, now: Option<&[u8]>, revert: &Revert) -> (&'static str, Change) {
    if now == t.before.as_deref() {
        return ("already", Change::Keep);
    }
    if now == t.after.as_deref() {
        return (
            "reverted",
            match &t.before {
                Some(bytes) => Change::Write(bytes.clone()),
                None => Change::Remove,
            },
        );
    }
    if !revert.force {
        return ("conflict", Change::Keep);
    }
    match (&t.before, now) {
        // The commit created it and a later change edited it: that edit is all there is.
        (None, _) => ("later_kept", Change::Keep),
        // A later change removed it: the version before is the only one left to keep.
        (Some(before), None) => ("reverted", Change::Write(before.clone())),
        (Some(before), Some(now)) => (
            "both_kept",
            Change::Write(both_versions(now, before, revert.labels)),
        ),
    }
}

/// The two versions between conflict markers, the one now first.
pub fn both_versions(now: &[u8], before: &[u8], labels: (&str, &str)) -> Vec<u8> {
    let mut text = Vec::with_capacity(now.len() + before.len() + 64);
    let mut part = |marker: String, body: &[u8]| {
        text.extend_from_slice(marker.as_bytes());
        text.push(b'\n');
        text.extend_from_slice(body);
        if !body.is_empty() && !body.ends_with(b"\n") {
            text.push(b'\n');
        }
    };
    part(format!("{CONFLICT_START}{}", labels.0), now);
    part(CONFLICT_SEPARATOR.to_string(), before);
    text.extend_from_slice(format!("{CONFLICT_END}{}\n", labels.1).as_bytes());
    text
}

/// The paths `revert.commit` changed against its first parent, outside the kept prefixes.
fn touched_paths(repo: &Repository, revert: &Revert) -> Result<Vec<Touched>, git2::Error> {
    let commit = repo.find_commit(revert.commit)?;
    let tree = commit.tree()?;
    let parent_tree = match commit.parent(0) {
        Ok(parent) => Some(parent.tree()?),
        Err(_) => None,
    };
    let diff = repo.diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), None)?;
    let blob = |id: Oid| -> Result<Option<Vec<u8>>, git2::Error> {
        if id.is_zero() {
            return Ok(None);
        }
        Ok(Some(repo.find_blob(id)?.content().to_vec()))
    };
    let mut touched = Vec::new();
    for delta in diff.deltas() {
        let file = if delta.new_file().id().is_zero() {
            delta.old_file()
        } else {
            delta.new_file()
        };
        let Some(path) = file.path().and_then(Path::to_str).map(str::to_string) else {
            continue;
        };
        if revert.keep_prefixes.iter().any(|p| path.starts_with(p)) {
            continue;
        }
        touched.push(Touched {
            before: blob(delta.old_file().id())?,
            after: blob(delta.new_file().id())?,
            path,
        });
    }
    Ok(touched)
}

fn write(root: &Dir, path: &str, bytes: &[u8]) -> Result<(), NotesError> {
    let (dirs, name) = files::split_path(path);
    let dir = files::create_dirs(root, &dirs)?;
    files::write_atomic(&dir, name, bytes, None)
}

fn remove(root: &Dir, path: &str) -> Result<(), NotesError> {
    let (dirs, name) = files::split_path(path);
    if let Some(dir) = files::open_dirs(root, &dirs)? {
        dir.remove_file(name).map_err(notes_error)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_versions_are_between_markers_with_the_one_now_first() {
        let text = both_versions(b"now\n", b"before", ("now", "before the dream"));
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "<<<<<<< now\nnow\n=======\nbefore\n>>>>>>> before the dream\n"
        );
    }
}
