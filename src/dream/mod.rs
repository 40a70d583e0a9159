//! `dream`: consolidate the notes store with a dreamer agent, under an exclusive lock and a git
//! audit trail.
//!
//! Pipeline: gates → lock → baseline commit → dreamer (`pi`, jailed) → post-run audit (restore
//! out-of-scope writes of the dreamer) → report → final commit → release. A failed run commits
//! what happened as `(failed)` and restores the last-run time, so the next schedule retries.

pub mod doctor;
pub mod dreamer;
pub mod gates;
pub mod interrupt;
pub mod lock;
mod options;
mod postrun;
pub mod purge;
mod report;
mod resolve;
mod restore;
pub mod undo;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

use crate::home::audit::{Audit, Change};
use crate::home::repo::{self, RepositoryError};
use crate::home::snapshot::{self, Snapshot};
use dreamer::{DreamerCommand, DreamerObserver};
use gates::Gate;
pub use interrupt::Interrupt;
pub use options::{DreamOptions, DreamRequest};
pub use postrun::Conflict;

use crate::home::journal;
use crate::home::layout::DREAMS_DIR;
use purge::Purged;

/// The compiled-in playbook; `--playbook` overrides it.
pub const DEFAULT_PLAYBOOK: &str = include_str!("../../playbook/playbook.md");

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The dreamer ran and finished.
    Ran,
    /// The dreamer (or an audit after it) failed; the state is committed as `(failed)`.
    Failed,
    /// A gate said no.
    Skipped,
    /// Another run holds the lock.
    Locked,
    /// `--dry-run`: gates and lock checked, nothing done.
    Planned,
}

/// A write the run refused, undid, or could not undo.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Violation {
    /// `refused` (the jail blocked it), `restored` (it happened and was put back), `kept` (it
    /// happened, but the file changed again after it, not by the dreamer), or `outside` (it
    /// wrote outside the notes home, where the audit cannot put it back).
    pub kind: &'static str,
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct DreamOutcome {
    pub status: Status,
    pub report: Option<PathBuf>,
    pub commits: Vec<String>,
    pub changes: Vec<Change>,
    pub violations: Vec<Violation>,
    /// Notes both the dreamer and a live agent wrote during the run.
    pub conflicts: Vec<Conflict>,
    /// Notes the wastebasket gave up (crumpled longer ago than `--purge-after`).
    pub purged: Vec<Purged>,
    pub gates: Vec<Gate>,
    /// Why the run failed (every reason, in the order they happened).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The homes the dreamer may write (relative prefixes).
    pub writable: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum DreamError {
    #[error("cannot use the notes home {path}")]
    Home { path: PathBuf, source: io::Error },
    #[error("cannot take the dream lock in {path}")]
    Lock { path: PathBuf, source: io::Error },
    #[error("the notes home's repository cannot carry the audit trail")]
    Repository(#[source] RepositoryError),
    #[error("the baseline audit commit failed, so the dreamer did not start")]
    Baseline(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error("cannot read the playbook {path}")]
    Playbook { path: PathBuf, source: io::Error },
    #[error("{0}")]
    InvalidOption(String),
    #[error(transparent)]
    Environment(#[from] crate::environment::EnvironmentError),
}

impl DreamError {
    /// What to do about it, when there is something to do.
    pub fn hint(&self) -> Option<String> {
        match self {
            DreamError::Repository(e) => e.hint(),
            _ => None,
        }
    }
}

/// Progress while the dream runs (the library never prints).
pub trait DreamObserver: DreamerObserver {
    fn gate(&mut self, gate: &Gate);
    fn dreamer_starting(&mut self);
    fn dreamer_finished(&mut self);
}

/// Runs (or plans) one dream.
pub fn dream(
    options: &DreamOptions,
    observer: &mut dyn DreamObserver,
) -> Result<DreamOutcome, DreamError> {
    // The dreamer runs with the home as its cwd and gets the home's path for its jail, so a
    // relative home would name a different directory there.
    let absolute;
    let options = if options.home.is_absolute() {
        options
    } else {
        absolute = DreamOptions {
            home: std::path::absolute(&options.home).map_err(|source| DreamError::Home {
                path: options.home.clone(),
                source,
            })?,
            ..options.clone()
        };
        &absolute
    };
    let home = &options.home;
    if !options.dry_run {
        fs::create_dir_all(home).map_err(|source| DreamError::Home {
            path: home.clone(),
            source,
        })?;
    }
    let gates = vec![
        gates::time_gate(home, options.now, options.min_hours),
        gates::material_gate(home, options.min_sessions),
    ];
    for gate in &gates {
        observer.gate(gate);
    }
    let mut outcome = DreamOutcome {
        status: Status::Skipped,
        report: None,
        commits: Vec::new(),
        changes: Vec::new(),
        violations: Vec::new(),
        conflicts: Vec::new(),
        purged: Vec::new(),
        gates,
        error: None,
        writable: writable_homes(options),
    };
    if !options.force && outcome.gates.iter().any(|g| !g.ok) {
        return Ok(outcome);
    }
    if home.exists() {
        repo::check(home).map_err(DreamError::Repository)?;
    }
    if options.dry_run {
        outcome.status = match lock::state(home) {
            lock::LockState::Absent => Status::Planned,
            _ => Status::Locked,
        };
        return Ok(outcome);
    }
    if let Some(signal) = options.interrupt.signal() {
        outcome.status = Status::Failed;
        outcome.error = Some(format!("interrupted by {signal} before the dream started"));
        return Ok(outcome);
    }
    let Some(held) = lock::acquire(home, options.now).map_err(|source| DreamError::Lock {
        path: home.join(lock::LOCK_FILE),
        source,
    })?
    else {
        outcome.status = Status::Locked;
        return Ok(outcome);
    };
    let result = run_locked(options, held.token(), &mut outcome, observer);
    let released = match (&result, outcome.status) {
        (Ok(()), Status::Ran) => held.release(),
        _ => held.fail(),
    };
    result?;
    if let Err(e) = released {
        outcome.status = Status::Failed;
        push_failure(
            &mut outcome.error,
            format!("cannot release the dream lock: {e}"),
        );
    }
    Ok(outcome)
}

fn push_failure(error: &mut Option<String>, reason: String) {
    *error = Some(match error.take() {
        Some(earlier) => format!("{earlier}; {reason}"),
        None => reason,
    });
}

fn run_locked(
    options: &DreamOptions,
    token: &str,
    outcome: &mut DreamOutcome,
    observer: &mut dyn DreamObserver,
) -> Result<(), DreamError> {
    let home = &options.home;
    let stamp = stamp(options.now);
    let now = jiff::Timestamp::try_from(options.now).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    // What an earlier, crashed run's live agents recorded is of no use to this one.
    let _ = journal::clear(home);
    let audit = Audit::open_or_init(home).map_err(|e| match e {
        RepositoryError::Refused { .. } => DreamError::Repository(e),
        other => DreamError::Baseline(Box::new(other)),
    })?;
    let protected_before =
        snapshot::protected(home).map_err(|e| DreamError::Baseline(Box::new(e)))?;
    let (baseline_commit, before) = audit
        .commit_home(home, &format!("baseline {stamp}"), now)
        .map_err(|e| DreamError::Baseline(Box::new(e)))?;
    let baseline_tree = before
        .content_tree(audit.repo())
        .map_err(|e| DreamError::Baseline(Box::new(e)))?;
    outcome
        .commits
        .extend(baseline_commit.map(|c| c.to_string()));

    observer.dreamer_starting();
    let prompt = format!(
        "{}\n{}",
        scope_header(options, &outcome.writable),
        options.playbook
    );
    let run = dreamer::run(
        &DreamerCommand {
            pi: &options.pi,
            home,
            writable: &outcome.writable,
            model: options.model.as_deref(),
            prompt: &prompt,
            agent: &options.agent,
            model_slug: &options.model_slug,
            token,
            interrupt: &options.interrupt,
        },
        observer,
    );
    observer.dreamer_finished();

    let mut failure = run.failure.clone();
    outcome.violations = refusals(&run.tools);
    let writable = outcome.writable.clone();
    let post = postrun::Run {
        home,
        user_home: &options.user_home,
        writable: &writable,
        tools: &run.tools,
        stamp: &stamp,
        started: options.now,
        token: Some(token),
    };
    let audited = post_run_audit(&post, &before, &protected_before, baseline_tree, outcome);
    match &audited {
        Err(e) => push_failure(&mut failure, format!("the post-run audit failed: {e}")),
        Ok(false) => push_failure(
            &mut failure,
            "the dreamer wrote outside the notes home (see the violations)".into(),
        ),
        Ok(true) => {}
    }
    if audited.is_ok() {
        match empty_wastebasket(options) {
            Ok(purged) => outcome.purged = purged,
            Err(e) => push_failure(&mut failure, format!("cannot empty the wastebasket: {e}")),
        }
    }
    let report_path = home.join(DREAMS_DIR).join(format!("{stamp}.md"));
    let report = report::render(&report::Report {
        stamp: &stamp,
        failed: failure.is_some(),
        answer: &run.answer,
        error: failure.as_deref(),
        changes: audited.is_ok().then_some(outcome.changes.as_slice()),
        violations: &outcome.violations,
        conflicts: &outcome.conflicts,
        purged: &outcome.purged,
        now: options.now,
    });
    match restore::write_file(
        home,
        &format!("{DREAMS_DIR}/{stamp}.md"),
        report.as_bytes(),
        None,
    ) {
        Ok(()) => outcome.report = Some(report_path),
        Err(e) => push_failure(
            &mut failure,
            format!("cannot write the report {}: {e}", report_path.display()),
        ),
    }
    let message = format!(
        "dream {stamp}{}",
        if failure.is_some() { " (failed)" } else { "" }
    );
    let committed = Audit::open_or_init(home)
        .map_err(|e| e.to_string())
        .and_then(|audit| {
            audit
                .commit_home(home, &message, now)
                .map_err(|e| e.to_string())
        });
    match committed {
        Ok((commit, _)) => outcome.commits.extend(commit.map(|c| c.to_string())),
        Err(e) => {
            let error = format!("the final audit commit failed: {e}");
            // The report is on disk but not committed: say there why, so it does not read
            // as a clean run.
            if let Some(report) = &outcome.report {
                let _ = fs::OpenOptions::new()
                    .append(true)
                    .open(report)
                    .and_then(|mut f| {
                        io::Write::write_all(
                            &mut f,
                            format!("\n## Final audit failed\n\n{error}\n").as_bytes(),
                        )
                    });
            }
            push_failure(&mut failure, error);
        }
    }
    let _ = journal::clear(home);
    outcome.status = if failure.is_some() {
        Status::Failed
    } else {
        Status::Ran
    };
    outcome.error = failure;
    Ok(())
}

/// Removes the notes crumpled longer ago than `--purge-after`.
fn empty_wastebasket(options: &DreamOptions) -> Result<Vec<Purged>, crate::notes::NotesError> {
    let now = jiff::Timestamp::try_from(options.now).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let after =
        jiff::SignedDuration::try_from(options.purge_after).unwrap_or(jiff::SignedDuration::MAX);
    let cutoff = now.checked_sub(after).unwrap_or(jiff::Timestamp::MIN);
    purge::purge_crumpled(&options.home, cutoff)
}

/// The dreamer's calls the jail refused (they touched nothing).
fn refusals(tools: &[dreamer::ToolUse]) -> Vec<Violation> {
    tools
        .iter()
        .filter_map(|t| {
            Some(Violation {
                kind: "refused",
                path: t.path.clone()?,
                reason: t.refused.clone()?,
            })
        })
        .collect()
}

/// Puts back what the dreamer must not have changed (see [`postrun`]) and fills in the changes,
/// violations and conflicts of `outcome`. `Ok(false)`: the dreamer wrote outside the home.
fn post_run_audit(
    run: &postrun::Run,
    before: &Snapshot,
    protected_before: &snapshot::Protected,
    baseline_tree: git2::Oid,
    outcome: &mut DreamOutcome,
) -> Result<bool, String> {
    let home = run.home;
    // The protected files first, without git: a rewritten .git/config must not steer the rest.
    outcome
        .violations
        .extend(postrun::restore_protected(run, protected_before)?);
    let audit = Audit::open_or_init(home).map_err(|e| e.to_string())?;
    let take = || Snapshot::take(audit.repo(), home).map_err(|e| e.to_string());
    let after = take()?;
    let findings = postrun::audit(audit.repo(), run, before, &after)?;
    outcome.violations.extend(findings.violations);
    outcome.conflicts = findings.conflicts;
    let tree = take()?
        .content_tree(audit.repo())
        .map_err(|e| e.to_string())?;
    let ours = format!("{DREAMS_DIR}/{}", run.stamp);
    outcome.changes = audit
        .changes(baseline_tree, tree)
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|c| !c.path.starts_with(&ours))
        .collect();
    Ok(!findings.escaped)
}

/// A store-wide dream may write `human/`, every `project/<key>/`, and its own agent and model
/// homes. A `*` segment stands for any one directory.
fn writable_homes(options: &DreamOptions) -> Vec<String> {
    use crate::home::layout::{AGENTS_DIR, HUMAN_DIR, MODELS_DIR, PROJECT_DIR};
    vec![
        format!("{HUMAN_DIR}/"),
        format!("{PROJECT_DIR}/*/"),
        format!("{AGENTS_DIR}/{}/", options.agent),
        format!("{MODELS_DIR}/{}/", options.model_slug),
    ]
}

fn scope_header(options: &DreamOptions, writable: &[String]) -> String {
    let time = jiff::Timestamp::try_from(options.now)
        .map(|t| t.to_string())
        .unwrap_or_default();
    format!(
        "# Scope of this dream\n\n\
         - Notes home: `{home}` (your working directory). Paths below are relative to it.\n\
         - Time: {time}\n\
         - You are agent `{agent}` dreaming with model `{model}`.\n\
         - Scope: store-wide. You may read every home.\n\
         - Writable: {writable}.\n\
         - Read-only: `pi/session/` (session notes), other agents' and models' homes, `dreams/`, `.git/`.\n\
         - You never delete files: crumple instead. After you finish, this dream removes notes crumpled more than {purge} ago.\n\
         - Move notes with `notes_move` (paths relative to the home): it keeps their metadata.\n\
         - Writes outside the writable homes are refused and listed in the dream report.\n",
        home = options.home.display(),
        agent = options.agent,
        model = options.model_slug,
        purge = crate::notes::clock::span_words(options.purge_after),
        writable = writable.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", "),
    )
}

/// The UTC start time with `:` and `.` replaced by `-`, e.g. `2026-09-18T16-48-02-758Z`.
pub fn stamp(now: SystemTime) -> String {
    let time = jiff::Timestamp::try_from(now).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    time.strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
        .replace([':', '.'], "-")
}

/// Reads the playbook: the given file, else the compiled-in one.
pub fn load_playbook(path: Option<&Path>) -> Result<String, DreamError> {
    match path {
        None => Ok(DEFAULT_PLAYBOOK.to_string()),
        Some(path) => fs::read_to_string(path).map_err(|source| DreamError::Playbook {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_replaces_colons_and_dots() {
        let t: jiff::Timestamp = "2026-09-18T16:48:02.758Z".parse().unwrap();
        assert_eq!(stamp(SystemTime::from(t)), "2026-09-18T16-48-02-758Z");
    }
}
