//! `dream undo [STAMP]`: reverts one dream's changes as a new commit (never rewriting history).
//!
//! A dream's changes are its final commit (`dream <stamp>`, or `dream <stamp> (failed)`) against
//! that commit's parent; its report and the versions it kept aside (`dreams/`) stay. A note a
//! later change touched too is refused, by name, unless `force`: then both versions stay in the
//! note between conflict markers (`dream doctor` flags them until someone resolves them). The
//! undo holds the dream lock, so no dream runs meanwhile (and no sync, which waits for it).

use std::collections::HashSet;

use git2::{Oid, Sort};
use jiff::Timestamp;
use serde::Serialize;

use super::lock;
use crate::home::layout::DREAMS_DIR;
use crate::notes::revert::{self, RevertError, RevertedPath};
use crate::notes::{history, Identity, NotesError};

pub struct UndoOptions {
    pub identity: Identity,
    pub now: Timestamp,
    /// The dream to undo (its report's stamp); `None`: the last one.
    pub stamp: Option<String>,
    pub force: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct UndoOutcome {
    pub stamp: String,
    /// The dream's commit that was reverted.
    pub dream_commit: String,
    pub paths: Vec<RevertedPath>,
    /// The undo's own commit (none when every note already was as before the dream).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    #[error("the notes home has no dream to undo")]
    NoDream,
    #[error("no dream {0} in the notes history")]
    UnknownDream(String),
    #[error("dream {stamp} is already undone (commit {commit})")]
    AlreadyUndone { stamp: String, commit: String },
    #[error("a dream or a notes sync is running on the notes home")]
    Locked,
    #[error("cannot take the dream lock: {0}")]
    Lock(std::io::Error),
    #[error("cannot undo dream {stamp}: {source}")]
    Conflicts {
        stamp: String,
        #[source]
        source: RevertError,
    },
    #[error(transparent)]
    Notes(#[from] NotesError),
}

pub fn undo(options: &UndoOptions) -> Result<UndoOutcome, UndoError> {
    let home = &options.identity.home;
    if history::open(home)?.is_none() {
        return Err(UndoError::NoDream);
    }
    let held = lock::acquire_without_run(home)
        .map_err(UndoError::Lock)?
        .ok_or(UndoError::Locked)?;
    let result = undo_locked(options);
    let _ = held.release();
    result
}

fn undo_locked(options: &UndoOptions) -> Result<UndoOutcome, UndoError> {
    let (stamp, dream_commit) = find_dream(&options.identity, options.stamp.as_deref())?;
    let target = format!("dream {stamp}");
    let now_label = format!("now (changed after dream {stamp})");
    let before_label = format!("before dream {stamp}");
    let keep = format!("{DREAMS_DIR}/");
    let reverted = revert::revert(
        &options.identity,
        options.now,
        &revert::Revert {
            commit: dream_commit,
            keep_prefixes: &[&keep],
            force: options.force,
            operation: "undo",
            target: &target,
            labels: (&now_label, &before_label),
        },
    );
    let reverted = match reverted {
        Ok(reverted) => reverted,
        Err(RevertError::Notes(e)) => return Err(e.into()),
        Err(conflicts) => {
            return Err(UndoError::Conflicts {
                stamp,
                source: conflicts,
            })
        }
    };
    Ok(UndoOutcome {
        stamp,
        dream_commit: dream_commit.to_string(),
        paths: reverted.paths,
        commit: reverted.commit,
    })
}

/// The stamp of a dream's final commit subject (`dream <stamp>` or `dream <stamp> (failed)`).
fn dream_stamp(summary: &str) -> Option<&str> {
    let rest = summary.strip_prefix("dream ")?;
    let stamp = rest.strip_suffix(" (failed)").unwrap_or(rest);
    (!stamp.is_empty() && !stamp.contains(' ')).then_some(stamp)
}

/// The dream `stamp` names (else the last one), newest first through the whole history, which
/// must not be undone already.
fn find_dream(identity: &Identity, stamp: Option<&str>) -> Result<(String, Oid), UndoError> {
    let repo = history::open(&identity.home)?.ok_or(UndoError::NoDream)?;
    let git = history::git_error;
    let mut walk = repo.revwalk().map_err(git)?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
        .map_err(git)?;
    if walk.push_head().is_err() {
        return Err(UndoError::NoDream);
    }
    let mut undone: HashSet<String> = HashSet::new();
    let mut undo_commits: Vec<(String, Oid)> = Vec::new();
    for oid in walk {
        let commit = repo.find_commit(oid.map_err(git)?).map_err(git)?;
        let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
        let summary = message.lines().next().unwrap_or_default();
        if let Some(undone_stamp) = summary.strip_prefix("undo dream ") {
            undone.insert(undone_stamp.to_string());
            undo_commits.push((undone_stamp.to_string(), commit.id()));
            continue;
        }
        let Some(found) = dream_stamp(summary) else {
            continue;
        };
        if stamp.is_some_and(|wanted| wanted != found) {
            continue;
        }
        if undone.contains(found) {
            let commit = undo_commits
                .iter()
                .find(|(s, _)| s == found)
                .map(|(_, c)| c.to_string())
                .unwrap_or_default();
            return Err(UndoError::AlreadyUndone {
                stamp: found.to_string(),
                commit,
            });
        }
        return Ok((found.to_string(), commit.id()));
    }
    Err(match stamp {
        Some(stamp) => UndoError::UnknownDream(stamp.to_string()),
        None => UndoError::NoDream,
    })
}

impl UndoError {
    /// The notes a refusal named.
    pub fn conflicts(&self) -> &[RevertedPath] {
        match self {
            UndoError::Conflicts {
                source: RevertError::Conflicts(paths),
                ..
            } => paths,
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dream_stamps_come_from_final_commits_only() {
        assert_eq!(
            dream_stamp("dream 2026-01-01T10-00-00-000Z"),
            Some("2026-01-01T10-00-00-000Z")
        );
        assert_eq!(dream_stamp("dream 2026-x (failed)"), Some("2026-x"));
        assert_eq!(dream_stamp("baseline 2026-x"), None);
        assert_eq!(dream_stamp("write @project/dream notes"), None);
    }
}
