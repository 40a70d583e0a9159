//! The notes history: every change a notes operation makes is a commit in the notes home's git
//! repository ([`crate::home::repo`]), and the history can be read back (`log`), compared (`diff`) and
//! brought back (`Store::restore`).
//!
//! A commit names its operation, address, agent, session and model twice: in its subject
//! (`write @project/decisions`) for people reading `git log`, and as trailers
//! (`Operation: write`) for [`log`] to read back without parsing prose.

use std::path::Path;

use git2::{Oid, Repository, Sort};
use jiff::Timestamp;
use serde::Serialize;

use super::address::{Location, Pattern};
use super::clock;
use super::error::NotesError;
use super::frontmatter::{Document, Key};
use super::identity::Identity;
use crate::home::repo::{self, PathChange, RepositoryError};

/// What happened to the history of one change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// The notes history is off (`PI_CONTEXT_NOTES_HISTORY=off`, the `notesHistory` setting, or
    /// the dreamer, whose changes the dream's own commit records).
    Off,
    /// The repository's tree already held this change: nothing to commit.
    Unchanged,
    Committed(Oid),
    /// The change is on disk and its commit is queued: a long-lived process commits it after
    /// answering ([`super::committer`]).
    Queued,
    /// The change is on disk, but the commit failed (the note is not lost: the next commit of
    /// the note, or the next dream, records it).
    Failed {
        message: String,
        hint: Option<String>,
    },
}

impl Recorded {
    pub fn commit(&self) -> Option<String> {
        match self {
            Recorded::Committed(oid) => Some(oid.to_string()),
            _ => None,
        }
    }

    /// The change is on disk, its commit failed for `cause`.
    pub fn unrecorded(cause: &dyn std::fmt::Display, hint: Option<String>) -> Recorded {
        Recorded::Failed {
            message: format!("the change is saved but not in the notes history yet (the next change that can commit records it): {cause}"),
            hint,
        }
    }

    /// Whether the history now holds the change (committed, or already there).
    pub fn holds_change(&self) -> bool {
        matches!(self, Recorded::Committed(_) | Recorded::Unchanged)
    }

    /// Why the change has no commit, when that is a failure.
    pub fn failure(&self) -> Option<String> {
        match self {
            Recorded::Failed { message, hint } => Some(match hint {
                Some(hint) => format!("{message} ({hint})"),
                None => message.clone(),
            }),
            _ => None,
        }
    }
}

/// The trailers of a notes commit, in order.
pub const OPERATION: &str = "Operation";
pub const ADDRESS: &str = "Address";
pub const AGENT: &str = "Agent";
pub const SESSION: &str = "Session";
pub const MODEL: &str = "Model";
/// A note another writer saved but could not commit, committed along with this change.
pub const RECOVERED: &str = "Recovered";

/// One operation to record: `name` on `target` (both in the subject), its trailers, and the
/// paths it changed.
pub struct Operation<'a> {
    pub name: &'a str,
    /// A note's address, or `dream <stamp>` for an operation on a whole dream.
    pub target: &'a str,
    /// Whether `target` is a note's address (then also the `Address:` trailer).
    pub on_note: bool,
    /// `(key, value)` trailers after the standard ones, such as `From:` of a move.
    pub extra: &'a [(&'a str, &'a str)],
    pub changes: &'a [PathChange<'a>],
}

impl<'a> Operation<'a> {
    /// `name` on the note at `address`.
    pub fn on_note(
        name: &'a str,
        address: &'a str,
        extra: &'a [(&'a str, &'a str)],
        changes: &'a [PathChange<'a>],
    ) -> Self {
        Operation {
            name,
            target: address,
            on_note: true,
            extra,
            changes,
        }
    }
}

/// Commits `operation` on HEAD's branch of the home's repository (created when missing), as
/// the user's git identity when configured, else as the agent. Never fails: a failure is the
/// [`Recorded::Failed`] result.
pub fn record(identity: &Identity, now: Timestamp, operation: &Operation) -> Recorded {
    match commit(identity, now, operation) {
        Ok(Some(oid)) => Recorded::Committed(oid),
        Ok(None) => Recorded::Unchanged,
        Err(e) => Recorded::unrecorded(&e, e.hint()),
    }
}

fn commit(
    identity: &Identity,
    now: Timestamp,
    operation: &Operation,
) -> Result<Option<Oid>, RepositoryError> {
    let repo = repo::open_or_init(&identity.home)?;
    let signature = repo::signature(
        &repo,
        &identity.agent,
        &format!("{}@pi-context", identity.agent),
        now,
    )?;
    let message = message(identity, operation);
    repo::commit_cas(
        &repo,
        &signature,
        &message,
        &[],
        Some(operation.changes),
        |tip| {
            let tree = repo::tree_with(&repo, tip, operation.changes)?;
            Ok(repo::is_new_tree(&repo, tip, tree)?.then_some(tree))
        },
    )
}

/// `<operation> <address>`, a blank line, then the trailers.
pub fn message(identity: &Identity, operation: &Operation) -> String {
    let target = if operation.on_note {
        format!("{ADDRESS}: {}\n", operation.target)
    } else {
        String::new()
    };
    let mut text = format!(
        "{} {}\n\n{OPERATION}: {}\n{target}{AGENT}: {}\n{SESSION}: {}\n{MODEL}: {}\n",
        operation.name,
        operation.target,
        operation.name,
        identity.agent,
        identity.session_id.as_deref().unwrap_or("none"),
        identity.model,
    );
    for (key, value) in operation.extra {
        text.push_str(&format!("{key}: {value}\n"));
    }
    text
}

/// One commit of the history, as `notes log` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    pub commit: String,
    /// The commit's time, local, ISO 8601 with offset.
    pub time: String,
    pub author: String,
    /// The commit message's first line.
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The paths of interest it changed.
    pub changes: Vec<LoggedChange>,
    /// Changed paths left out of `changes` (by a page's cap).
    #[serde(skip_serializing_if = "is_zero")]
    pub changes_more: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize)]
pub struct LoggedChange {
    /// `added`, `modified` or `deleted`.
    pub kind: &'static str,
    /// Relative to the notes home.
    pub path: String,
    /// The note's address, when the path is a note's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
}

/// Which commits `log` shows.
pub enum LogFilter {
    All,
    /// The commits that changed this path (relative to the home).
    Path(String),
    /// The commits that changed a note whose address matches.
    Pattern(Pattern),
}

#[derive(Debug, Clone, Serialize)]
pub struct Log {
    pub entries: Vec<LogEntry>,
    /// Whether older matching commits were left out by the limit.
    pub more: bool,
}

/// The commits on HEAD's branch that changed what `filter` names, newest first, at most
/// `limit`. A merge shows only the paths it changed relative to every parent (what the merge
/// itself decided), as `git log` does. An empty history is an empty log.
pub fn log(identity: &Identity, filter: &LogFilter, limit: usize) -> Result<Log, NotesError> {
    let Some(repo) = open(&identity.home)? else {
        return Ok(Log {
            entries: Vec::new(),
            more: false,
        });
    };
    let mut walk = repo.revwalk().map_err(git_error)?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
        .map_err(git_error)?;
    match walk.push_head() {
        Ok(()) => {}
        Err(e) if e.code() == git2::ErrorCode::UnbornBranch => {
            return Ok(Log {
                entries: Vec::new(),
                more: false,
            })
        }
        Err(e) => return Err(git_error(e)),
    }
    let mut entries = Vec::new();
    for oid in walk {
        let commit = repo
            .find_commit(oid.map_err(git_error)?)
            .map_err(git_error)?;
        let changes = changed_paths(&repo, &commit, filter, identity).map_err(git_error)?;
        if changes.is_empty() {
            continue;
        }
        if entries.len() == limit {
            return Ok(Log {
                entries,
                more: true,
            });
        }
        entries.push(entry(&commit, changes));
    }
    Ok(Log {
        entries,
        more: false,
    })
}

fn entry(commit: &git2::Commit, changes: Vec<LoggedChange>) -> LogEntry {
    let message = String::from_utf8_lossy(commit.message_bytes());
    let trailer = |key: &str| trailer(&message, key);
    let time = Timestamp::from_second(commit.time().seconds()).unwrap_or(Timestamp::UNIX_EPOCH);
    LogEntry {
        commit: commit.id().to_string(),
        time: clock::local_iso(time),
        author: String::from_utf8_lossy(commit.author().name_bytes()).into_owned(),
        summary: message.lines().next().unwrap_or_default().to_string(),
        operation: trailer(OPERATION),
        agent: trailer(AGENT),
        session: trailer(SESSION).filter(|s| s != "none"),
        model: trailer(MODEL),
        changes,
        changes_more: 0,
    }
}

/// The value of the trailer `key` in a commit message's last paragraph.
pub fn trailer(message: &str, key: &str) -> Option<String> {
    let (_, last) = message.trim_end().rsplit_once("\n\n")?;
    last.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

/// The paths `commit` changed that `filter` names: against its parent, or for a merge, the
/// paths that differ from every parent.
fn changed_paths(
    repo: &Repository,
    commit: &git2::Commit,
    filter: &LogFilter,
    identity: &Identity,
) -> Result<Vec<LoggedChange>, git2::Error> {
    let tree = commit.tree()?;
    if let LogFilter::Path(path) = filter {
        let mine = entry_id(&tree, path);
        let mut parents = commit.parents().peekable();
        let changed = if parents.peek().is_none() {
            mine.is_some()
        } else {
            let mut all_differ = true;
            for parent in parents {
                all_differ &= entry_id(&parent.tree()?, path) != mine;
            }
            all_differ
        };
        let before = commit
            .parent(0)
            .ok()
            .and_then(|p| p.tree().ok())
            .and_then(|t| entry_id(&t, path));
        return Ok(if changed {
            vec![logged(kind_of(before, mine), path, identity)]
        } else {
            Vec::new()
        });
    }
    let mut per_parent: Vec<Vec<(String, &'static str)>> = Vec::new();
    if commit.parent_count() == 0 {
        per_parent.push(tree_diff(repo, None, &tree)?);
    }
    for parent in commit.parents() {
        per_parent.push(tree_diff(repo, Some(&parent.tree()?), &tree)?);
    }
    let (first, others) = per_parent
        .split_first()
        .map_or((Vec::new(), &[][..]), |(f, o)| (f.clone(), o));
    Ok(first
        .into_iter()
        .filter(|(path, _)| others.iter().all(|o| o.iter().any(|(p, _)| p == path)))
        .map(|(path, kind)| LoggedChange {
            kind,
            address: address_of(&path, identity),
            path,
        })
        .filter(|change| match filter {
            LogFilter::Pattern(pattern) => Location::from_home_path(&change.path, identity)
                .is_ok_and(|location| pattern.matches(&location)),
            _ => true,
        })
        .collect())
}

fn tree_diff(
    repo: &Repository,
    from: Option<&git2::Tree>,
    to: &git2::Tree,
) -> Result<Vec<(String, &'static str)>, git2::Error> {
    let diff = repo.diff_tree_to_tree(from, Some(to), None)?;
    Ok(diff
        .deltas()
        .filter_map(|delta| {
            let (file, kind) = match delta.status() {
                git2::Delta::Added => (delta.new_file(), "added"),
                git2::Delta::Deleted => (delta.old_file(), "deleted"),
                _ => (delta.new_file(), "modified"),
            };
            Some((file.path()?.to_string_lossy().into_owned(), kind))
        })
        .collect())
}

fn entry_id(tree: &git2::Tree, path: &str) -> Option<Oid> {
    tree.get_path(Path::new(path)).ok().map(|e| e.id())
}

fn kind_of(before: Option<Oid>, after: Option<Oid>) -> &'static str {
    match (before, after) {
        (None, Some(_)) => "added",
        (Some(_), None) => "deleted",
        _ => "modified",
    }
}

fn logged(kind: &'static str, path: &str, identity: &Identity) -> LoggedChange {
    LoggedChange {
        kind,
        path: path.to_string(),
        address: address_of(path, identity),
    }
}

fn address_of(path: &str, identity: &Identity) -> Option<String> {
    Location::from_home_path(path, identity)
        .ok()
        .map(|l| l.address())
}

/// The home's repository for reading its history: `None` when there is none yet.
pub(crate) fn open(home: &Path) -> Result<Option<Repository>, NotesError> {
    repo::check(home).map_err(history_error)
}

/// The commit `rev` names (`HEAD~2`, an abbreviated id, a branch…).
pub(crate) fn resolve_rev<'r>(
    repo: &'r Repository,
    rev: &str,
) -> Result<git2::Commit<'r>, NotesError> {
    let object = repo
        .revparse_single(rev)
        .map_err(|e| unknown_revision(rev, &e))?;
    let kind = object.kind();
    object.peel_to_commit().map_err(|_| {
        NotesError::InvalidRevision(format!(
            "{rev:?} names a {} of the notes history, not a commit",
            kind.map_or("object", |k| k.str())
        ))
    })
}

/// The refusal for a revision libgit2 cannot resolve, with its reason when it gives one (a
/// search that finds no commit, `HEAD^{/text}` or `:/text`, fails without).
fn unknown_revision(rev: &str, e: &git2::Error) -> NotesError {
    NotesError::InvalidRevision(match reason(e) {
        Some(reason) => format!("{rev:?} names no commit of the notes history: {reason}"),
        None => format!("no revision matches {rev:?} in the notes history"),
    })
}

/// libgit2's message when it says something: a failure for which libgit2 set no message
/// reads "no error" (or nothing).
fn reason(e: &git2::Error) -> Option<&str> {
    let message = e.message().trim();
    (!message.is_empty() && message != "no error").then_some(message)
}

/// The note's bytes at `commit`, or `None` when it did not exist there.
pub(crate) fn content_at(
    repo: &Repository,
    commit: &git2::Commit,
    path: &str,
) -> Result<Option<Vec<u8>>, NotesError> {
    let tree = commit.tree().map_err(git_error)?;
    let Ok(entry) = tree.get_path(Path::new(path)) else {
        return Ok(None);
    };
    let blob = repo.find_blob(entry.id()).map_err(git_error)?;
    Ok(Some(blob.content().to_vec()))
}

/// What `notes diff` compares: the note at a past commit against the note now.
#[derive(Debug, Clone, Serialize)]
pub struct NoteDiff {
    pub address: String,
    /// The commit of the older side, or `None` when there is no older version.
    pub from: Option<String>,
    /// Whether the older side is the version before the note's last recorded change (no
    /// `--rev` given).
    pub previous: bool,
    /// The note does not exist now.
    pub deleted: bool,
    /// A unified diff; empty when nothing changed. The read counters (`accessCount`,
    /// `lastAccessed`) are left out of both sides.
    pub diff: String,
}

/// The note's version at `rev` (by default: before its last recorded change) against the note
/// as it is now (`now`, `None` when it does not exist).
pub fn diff(
    identity: &Identity,
    location: &Location,
    path: &str,
    rev: Option<&str>,
    now: Option<&str>,
) -> Result<NoteDiff, NotesError> {
    let repo = open(&identity.home)?;
    let (from, older) = match (&repo, rev) {
        (None, Some(rev)) => {
            return Err(NotesError::InvalidRevision(format!(
                "{rev:?}: the notes home has no history yet"
            )))
        }
        (None, None) => (None, None),
        (Some(repo), Some(rev)) => {
            let commit = resolve_rev(repo, rev)?;
            let content = content_at(repo, &commit, path)?;
            (Some(commit.id().to_string()), content)
        }
        (Some(repo), None) => previous_version(repo, identity, path)?,
    };
    let older = older.map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let address = location.address();
    let text = unified(
        &without_counters(older.as_deref().unwrap_or("")),
        &without_counters(now.unwrap_or("")),
        &format!("{address}@{}", from.as_deref().map_or("(none)", short)),
        &address,
    );
    Ok(NoteDiff {
        address,
        from,
        previous: rev.is_none(),
        deleted: now.is_none(),
        diff: text,
    })
}

/// The version before the last commit that changed `path`: that commit's first parent (and
/// what it held there, `None` when the change added the note).
fn previous_version(
    repo: &Repository,
    identity: &Identity,
    path: &str,
) -> Result<(Option<String>, Option<Vec<u8>>), NotesError> {
    let last = log(identity, &LogFilter::Path(path.to_string()), 1)?;
    let Some(entry) = last.entries.first() else {
        return Ok((None, None));
    };
    let oid = Oid::from_str(&entry.commit).map_err(git_error)?;
    let commit = repo.find_commit(oid).map_err(git_error)?;
    match commit.parent(0) {
        Ok(parent) => Ok((
            Some(parent.id().to_string()),
            content_at(repo, &parent, path)?,
        )),
        Err(_) => Ok((None, None)),
    }
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// A note's text without the counters a read moves: they are not content.
pub fn without_counters(text: &str) -> String {
    let mut doc = Document::parse(text);
    if !doc.has_frontmatter() {
        return text.to_string();
    }
    doc.remove(Key::AccessCount);
    doc.remove(Key::LastAccessed);
    doc.render()
}

fn unified(before: &str, after: &str, from: &str, to: &str) -> String {
    if before == after {
        return String::new();
    }
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(from, to)
        .to_string()
}

pub(crate) fn git_error(e: git2::Error) -> NotesError {
    NotesError::History(match reason(&e) {
        Some(reason) => reason.to_string(),
        None => format!(
            "the notes history cannot be read (libgit2 gave no reason: {:?}, {:?})",
            e.class(),
            e.code()
        ),
    })
}

pub(crate) fn history_error(e: RepositoryError) -> NotesError {
    NotesError::History(match e.hint() {
        Some(hint) => format!("{e} ({hint})"),
        None => e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailers_come_from_the_last_paragraph() {
        let message = "write @project/a\n\nOperation: write\nAddress: @project/a\nAgent: pi\n";
        assert_eq!(trailer(message, OPERATION).as_deref(), Some("write"));
        assert_eq!(trailer(message, AGENT).as_deref(), Some("pi"));
        assert_eq!(trailer(message, MODEL), None);
        assert_eq!(trailer("dream 2026-01-01", OPERATION), None);
    }

    #[test]
    fn counters_are_not_content() {
        let text = "---\norigin: agent\naccessCount: 3\nlastAccessed: x\n---\n\nbody\n";
        let stripped = without_counters(text);
        assert!(!stripped.contains("accessCount"));
        assert!(!stripped.contains("lastAccessed"));
        assert!(stripped.contains("origin: agent"));
        assert!(stripped.ends_with("body\n"));
    }
}
