//! The two gates that decide whether a scheduled dream is worth running.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::lock::LAST_RUN_FILE;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Gate {
    pub ok: bool,
    /// `time gate: …` or `material gate: …`.
    pub reason: String,
}

/// When the last dream that took the lock started (the mtime of `.dream.lock.last-run`).
pub fn last_run(home: &Path) -> Option<SystemTime> {
    fs::metadata(home.join(LAST_RUN_FILE))
        .and_then(|m| m.modified())
        .ok()
}

pub fn time_gate(home: &Path, now: SystemTime, min_hours: f64) -> Gate {
    let Some(last) = last_run(home) else {
        return Gate {
            ok: true,
            reason: "time gate: no prior dream".into(),
        };
    };
    let hours = now
        .duration_since(last)
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
        / 3600.0;
    if hours >= min_hours {
        Gate {
            ok: true,
            reason: format!("time gate: last dream {hours:.1} h ago"),
        }
    } else {
        Gate {
            ok: false,
            reason: format!(
                "time gate: last dream {hours:.1} h ago, under --min-hours {min_hours}"
            ),
        }
    }
}

/// Counts session homes (`pi/session/<id>/`) holding a file changed since the last run, at any
/// depth.
pub fn material_gate(home: &Path, min_sessions: u64) -> Gate {
    let since = last_run(home).unwrap_or(SystemTime::UNIX_EPOCH);
    let changed = changed_sessions(home, since);
    if changed >= min_sessions {
        Gate {
            ok: true,
            reason: format!(
                "material gate: {} changed notes since the last dream",
                sessions(changed)
            ),
        }
    } else {
        Gate {
            ok: false,
            reason: format!(
                "material gate: only {} changed notes, under --min-sessions {min_sessions}",
                sessions(changed)
            ),
        }
    }
}

fn sessions(n: u64) -> String {
    if n == 1 {
        "1 session".into()
    } else {
        format!("{n} sessions")
    }
}

fn changed_sessions(home: &Path, since: SystemTime) -> u64 {
    let Ok(sessions) = fs::read_dir(home.join("pi").join("session")) else {
        return 0;
    };
    sessions
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| changed_since(&e.path(), since))
        .count() as u64
}

/// Whether any regular file under `dir` (symlinks not followed) changed after `since`.
fn changed_since(dir: &Path, since: SystemTime) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    entries
        .filter_map(Result::ok)
        .any(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => changed_since(&entry.path(), since),
            Ok(t) if t.is_file() => entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|modified| modified > since),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_counts_sessions_with_nested_changes() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("pi/session/s1/deep/er");
        fs::create_dir_all(&nested).unwrap();
        fs::write(nested.join("n.md"), "x").unwrap();
        fs::create_dir_all(dir.path().join("pi/session/s2")).unwrap();
        fs::write(dir.path().join("pi/session/s2/a.md"), "x").unwrap();
        fs::create_dir_all(dir.path().join("pi/session/empty")).unwrap();
        let gate = material_gate(dir.path(), 2);
        assert!(gate.ok, "{}", gate.reason);
        assert!(!material_gate(dir.path(), 3).ok);
    }

    #[test]
    fn time_gate_reads_the_last_run_mtime() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            time_gate(dir.path(), SystemTime::now(), 24.0).reason,
            "time gate: no prior dream"
        );
        fs::write(dir.path().join(LAST_RUN_FILE), "").unwrap();
        assert!(!time_gate(dir.path(), SystemTime::now(), 24.0).ok);
        let later = SystemTime::now() + Duration::from_secs(25 * 3600);
        assert!(time_gate(dir.path(), later, 24.0).ok);
    }
}
