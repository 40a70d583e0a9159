//! `dream`: consolidate the notes store with a dreamer agent, under an exclusive lock and a git
//! audit trail.
//!
//! Pipeline: gates → lock → baseline commit → dreamer (`pi`, jailed) → post-run audit (restore
//! out-of-scope writes of the dreamer) → report → final commit → release. A failed run commits
//! what happened as `(failed)` and restores the last-run time, so the next schedule retries.

pub mod audit;
pub mod doctor;
pub mod dreamer;
pub mod gates;
pub mod lock;
mod report;

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

use audit::{Audit, Change};
use dreamer::{DreamerCommand, DreamerObserver, ToolUse};
use gates::Gate;

/// The compiled-in playbook; `--playbook` overrides it.
pub const DEFAULT_PLAYBOOK: &str = include_str!("../../playbook/playbook.md");

/// Everything a run needs, resolved by the caller.
#[derive(Debug, Clone)]
pub struct DreamOptions {
    pub home: PathBuf,
    pub now: SystemTime,
    pub min_hours: f64,
    pub min_sessions: u64,
    pub force: bool,
    pub dry_run: bool,
    pub pi: PathBuf,
    /// The dreamer model pattern; `None` lets Pi choose its default.
    pub model: Option<String>,
    pub playbook: String,
    /// The dreamer's agent slug (its writable `agents/<agent>/`).
    pub agent: String,
    /// The dreamer model's slug (its writable `models/<model>/`).
    pub model_slug: String,
}

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

/// A write the run refused or undid.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Violation {
    /// `refused` (the jail blocked it) or `restored` (it happened and was put back).
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
    pub gates: Vec<Gate>,
    /// Why the run failed.
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
    #[error("the baseline audit commit failed, so the dreamer did not start")]
    Baseline(#[source] git2::Error),
    #[error("cannot read the playbook {path}")]
    Playbook { path: PathBuf, source: io::Error },
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
        gates,
        error: None,
        writable: writable_homes(options),
    };
    if !options.force && outcome.gates.iter().any(|g| !g.ok) {
        return Ok(outcome);
    }
    if options.dry_run {
        outcome.status = match lock::state(home) {
            lock::LockState::Absent => Status::Planned,
            _ => Status::Locked,
        };
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
    let result = run_locked(options, &mut outcome, observer);
    let released = match (&result, outcome.status) {
        (Ok(()), Status::Ran) => held.release(),
        _ => held.fail(),
    };
    result?;
    if let Err(e) = released {
        outcome.status = Status::Failed;
        outcome.error = Some(format!("cannot release the dream lock: {e}"));
    }
    Ok(outcome)
}

fn run_locked(
    options: &DreamOptions,
    outcome: &mut DreamOutcome,
    observer: &mut dyn DreamObserver,
) -> Result<(), DreamError> {
    let home = &options.home;
    let stamp = stamp(options.now);
    let audit = Audit::open_or_init(home).map_err(DreamError::Baseline)?;
    let (baseline_commit, baseline) = audit
        .commit_all(&format!("baseline {stamp}"))
        .map_err(DreamError::Baseline)?;
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
        },
        observer,
    );
    observer.dreamer_finished();

    let mut failure = run.failure.clone();
    let audited = match post_run_audit(&audit, baseline, home, &outcome.writable, &run.tools) {
        Ok((changes, violations)) => {
            outcome.changes = changes;
            outcome.violations = violations;
            true
        }
        Err(e) => {
            failure.get_or_insert(format!("the post-run audit failed: {e}"));
            false
        }
    };
    let failed = failure.is_some();
    let report_path = home.join("dreams").join(format!("{stamp}.md"));
    let report = report::render(
        &stamp,
        failed,
        &run.answer,
        failure.as_deref(),
        audited.then_some(outcome.changes.as_slice()),
        &outcome.violations,
    );
    let written = fs::create_dir_all(report_path.parent().unwrap_or(home))
        .and_then(|()| fs::write(&report_path, report));
    if let Err(e) = written {
        failure.get_or_insert(format!(
            "cannot write the report {}: {e}",
            report_path.display()
        ));
    } else {
        outcome.report = Some(report_path);
    }
    let message = format!(
        "dream {stamp}{}",
        if failure.is_some() { " (failed)" } else { "" }
    );
    match audit.commit_all(&message) {
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
            failure.get_or_insert(error);
        }
    }
    outcome.status = if failure.is_some() {
        Status::Failed
    } else {
        Status::Ran
    };
    outcome.error = failure;
    Ok(())
}

/// Diffs the home against the baseline; puts back what the dreamer changed outside its
/// writable homes. Changes nobody can attribute to the dreamer (live agents keep writing session
/// notes during a dream) are kept and committed as they are.
fn post_run_audit(
    audit: &Audit,
    baseline: git2::Oid,
    home: &Path,
    writable: &[String],
    tools: &[ToolUse],
) -> Result<(Vec<Change>, Vec<Violation>), git2::Error> {
    let touched = touched_paths(home, tools);
    let mut violations: Vec<Violation> = tools
        .iter()
        .filter_map(|t| {
            Some(Violation {
                kind: "refused",
                path: t.path.clone()?,
                reason: t.refused.clone()?,
            })
        })
        .collect();
    let after = audit.stage_all()?;
    for change in audit.changes(baseline, after)? {
        if touched.contains(&change.path) && !is_writable(&change.path, writable) {
            audit.restore(baseline, &change.path)?;
            violations.push(Violation {
                kind: "restored",
                path: change.path.clone(),
                reason: format!(
                    "{} outside the dreamer's writable homes; put back as it was",
                    change.kind
                ),
            });
        }
    }
    let after = audit.stage_all()?;
    Ok((audit.changes(baseline, after)?, violations))
}

/// The home-relative paths the dreamer's write and edit calls named (symlinks resolved).
fn touched_paths(home: &Path, tools: &[ToolUse]) -> BTreeSet<String> {
    let real_home = fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    tools
        .iter()
        .filter(|t| matches!(t.tool.as_str(), "write" | "edit"))
        .filter_map(|t| t.path.as_deref())
        .filter_map(|p| {
            let joined = real_home.join(p.strip_prefix('@').unwrap_or(p));
            let resolved = fs::canonicalize(&joined).unwrap_or(joined);
            let relative = resolved.strip_prefix(&real_home).ok()?;
            Some(relative.to_string_lossy().replace('\\', "/"))
        })
        .collect()
}

fn is_writable(path: &str, writable: &[String]) -> bool {
    writable.iter().any(|home| is_inside(path, home))
}

/// Whether `path` lies inside the home `home` (`a/b/`, where a `*` segment matches any one
/// segment): the path has more segments, and the home's segments are its first ones.
fn is_inside(path: &str, home: &str) -> bool {
    let home: Vec<&str> = home.split('/').filter(|s| !s.is_empty()).collect();
    let path: Vec<&str> = path.split('/').collect();
    path.len() > home.len() && home.iter().zip(&path).all(|(h, p)| *h == "*" || h == p)
}

/// A store-wide dream may write `human/`, every `project/<key>/`, and its own agent and model
/// homes. A `*` segment stands for any one directory.
fn writable_homes(options: &DreamOptions) -> Vec<String> {
    vec![
        "human/".to_string(),
        "project/*/".to_string(),
        format!("agents/{}/", options.agent),
        format!("models/{}/", options.model_slug),
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
         - You cannot delete files in this run: list wastebasket candidates in your report.\n\
         - Writes outside the writable homes are refused and listed in the dream report.\n",
        home = options.home.display(),
        agent = options.agent,
        model = options.model_slug,
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
    fn project_homes_are_writable_but_not_the_project_root() {
        let writable = ["human/".to_string(), "project/*/".to_string()];
        assert!(is_writable("project/app-1a2b3c4d/notes.md", &writable));
        assert!(is_writable("human/MAP.md", &writable));
        assert!(!is_writable("project/stray.md", &writable));
        assert!(!is_writable("humans/x.md", &writable));
        assert!(!is_writable("human", &writable));
    }

    #[test]
    fn stamp_replaces_colons_and_dots() {
        let t: jiff::Timestamp = "2026-09-18T16:48:02.758Z".parse().unwrap();
        assert_eq!(stamp(SystemTime::from(t)), "2026-09-18T16-48-02-758Z");
    }
}
