//! How each hook run ended, so that "installed but never ran" and "ran and failed" are visible
//! (`pi-context setup --status`): one record per agent and event, replaced by every run
//! (`<cache>/push/status/<agent>-<event>.json`), and the errors in a log beside it
//! (`<cache>/push/errors.log`, cut back to its newer half past 256 KiB).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Event;
use crate::session::Harness;

const LOG_MAX_BYTES: u64 = 256 << 10;

/// The last run of one hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastRun {
    /// When it ran (RFC 3339).
    pub at: String,
    /// `ok`, `error` or `timeout`.
    pub outcome: String,
    /// What it did (`boot (2034 bytes)`, `no hint: common_words`) or the error.
    pub detail: String,
    pub millis: u64,
    /// The version of the binary that ran it.
    pub version: String,
}

fn dir(cache: &Path) -> PathBuf {
    cache.join("push")
}

fn record_file(cache: &Path, agent: Harness, event: Event) -> PathBuf {
    dir(cache)
        .join("status")
        .join(format!("{}-{}.json", agent.as_str(), event.as_str()))
}

/// The errors log.
pub fn log_file(cache: &Path) -> PathBuf {
    dir(cache).join("errors.log")
}

/// Records a run (best effort: a hook never fails for its own bookkeeping).
pub fn record(cache: &Path, agent: Harness, event: Event, run: &LastRun) {
    let path = record_file(cache, agent, event);
    let Some(parent) = path.parent() else {
        return;
    };
    if std::fs::create_dir_all(parent).is_err() {
        return;
    }
    let Ok(mut temp) = tempfile::NamedTempFile::new_in(parent) else {
        return;
    };
    let bytes = serde_json::to_vec(run).expect("a run serializes");
    if temp.write_all(&bytes).is_ok() {
        let _ = temp.persist(&path);
    }
    if run.outcome != "ok" {
        log(cache, agent, event, run);
    }
}

/// The last run of a hook, if it ever ran.
pub fn last_run(cache: &Path, agent: Harness, event: Event) -> Option<LastRun> {
    let bytes = std::fs::read(record_file(cache, agent, event)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn log(cache: &Path, agent: Harness, event: Event, run: &LastRun) {
    let path = log_file(cache);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > LOG_MAX_BYTES) {
        if let Ok(text) = std::fs::read_to_string(&path) {
            let half = text.len() / 2;
            let cut = text[half..].find('\n').map_or(text.len(), |i| half + i + 1);
            let _ = std::fs::write(&path, &text[cut..]);
        }
    }
    let line = format!(
        "{} {} {} {}: {}\n",
        run.at,
        agent.as_str(),
        event.as_str(),
        run.outcome,
        crate::text::one_line(&run.detail)
    );
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = file.write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(outcome: &str) -> LastRun {
        LastRun {
            at: "2026-12-06T10:00:00Z".into(),
            outcome: outcome.into(),
            detail: "boom\nsecond line".into(),
            millis: 3,
            version: "0.1.0".into(),
        }
    }

    #[test]
    fn a_run_is_recorded_and_an_error_logged_on_one_line() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(last_run(dir.path(), Harness::Codex, Event::Prompt), None);
        record(dir.path(), Harness::Codex, Event::Prompt, &run("ok"));
        assert_eq!(
            last_run(dir.path(), Harness::Codex, Event::Prompt),
            Some(run("ok"))
        );
        assert!(!log_file(dir.path()).exists());
        record(dir.path(), Harness::Codex, Event::Prompt, &run("error"));
        let log = std::fs::read_to_string(log_file(dir.path())).unwrap();
        assert_eq!(log.lines().count(), 1);
        assert!(
            log.contains("codex prompt error: boom\\nsecond line"),
            "{log}"
        );
    }
}
