//! What an agent's session was given: its boot, its context window (a compaction or `/clear`
//! opens a new one), the sessions hinted in it and its leads (sessions its prompts ranked first
//! without a hint). Kept in the cache, one small file per
//! session (`<cache>/push/<agent>/<sha1 of the session id>.json`), replaced atomically; a file
//! that cannot be read is a session that was given nothing (at worst a boot or a hint twice).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use super::PushError;
use crate::session::Harness;

/// At most this many hinted sessions, and as many leads, are remembered per window (the oldest
/// go first).
const MAX_KEPT: usize = 64;
/// The lock every save of an agent's session states holds (one per agent, never removed).
const LOCK_FILE: &str = "state.lock";
/// Sessions whose state was not touched for this long are forgotten (at session start).
const FORGET_AFTER: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// The session got its boot block.
    #[serde(default)]
    pub booted: bool,
    /// The context window: 0 at start, one more after each compaction or `/clear`.
    #[serde(default)]
    pub window: u32,
    /// The sessions hinted in the current window.
    #[serde(default)]
    pub hinted: Vec<String>,
    /// The sessions the window's prompts ranked first by a rare word without a hint
    /// (`recall::HintParams::leads`).
    #[serde(default)]
    pub leads: Vec<String>,
}

impl SessionState {
    /// The session's state; a new one when none was kept or it cannot be read.
    pub fn load(cache: &Path, agent: Harness, session_id: &str) -> SessionState {
        std::fs::read(file(cache, agent, session_id))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// A compaction or `/clear`: what was hinted is no longer in the context.
    pub fn new_window(&mut self) {
        self.window += 1;
        self.hinted.clear();
        self.leads.clear();
    }

    /// Remembers a lead of the window once.
    pub fn add_lead(&mut self, session_id: String) {
        if !self.leads.contains(&session_id) {
            self.leads.push(session_id);
        }
    }

    /// Keeps the state (temp file, then rename over the old one), with what another run of
    /// the same session saved since this one loaded it ([`SessionState::merge`]): one agent may
    /// run two hooks of a session at once (Copilot CLI its first prompt's beside its session
    /// start's). The merge and the write hold the agent's state lock, a moment.
    pub fn save(
        &mut self,
        cache: &Path,
        agent: Harness,
        session_id: &str,
    ) -> Result<(), PushError> {
        let path = file(cache, agent, session_id);
        let error = |source| PushError::State {
            path: path.clone(),
            source,
        };
        let dir = path.parent().expect("a state file has a directory");
        std::fs::create_dir_all(dir).map_err(error)?;
        let lock = std::fs::File::create(dir.join(LOCK_FILE)).map_err(error)?;
        lock.lock().map_err(error)?;
        self.merge(SessionState::load(cache, agent, session_id));
        keep_newest(&mut self.hinted);
        keep_newest(&mut self.leads);
        let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(error)?;
        temp.write_all(&serde_json::to_vec(self).expect("state serializes"))
            .map_err(error)?;
        temp.persist(&path).map_err(|e| error(e.error))?;
        Ok(())
    }

    /// Takes in what was saved meanwhile: a boot given is given; in the same window the hints
    /// and leads of both runs are kept, the saved ones first; a newer window (a compaction the
    /// other run saw) wins with its own.
    fn merge(&mut self, saved: SessionState) {
        self.booted |= saved.booted;
        match saved.window.cmp(&self.window) {
            std::cmp::Ordering::Greater => {
                self.window = saved.window;
                self.hinted = saved.hinted;
                self.leads = saved.leads;
            }
            std::cmp::Ordering::Equal => {
                self.hinted = union(saved.hinted, std::mem::take(&mut self.hinted));
                self.leads = union(saved.leads, std::mem::take(&mut self.leads));
            }
            std::cmp::Ordering::Less => {}
        }
    }
}

/// `first`, then what of `then` it lacks.
fn union(mut first: Vec<String>, then: Vec<String>) -> Vec<String> {
    for id in then {
        if !first.contains(&id) {
            first.push(id);
        }
    }
    first
}

fn keep_newest(ids: &mut Vec<String>) {
    if ids.len() > MAX_KEPT {
        let extra = ids.len() - MAX_KEPT;
        ids.drain(..extra);
    }
}

fn file(cache: &Path, agent: Harness, session_id: &str) -> PathBuf {
    let digest = Sha1::digest(session_id.as_bytes());
    let name: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    cache
        .join("push")
        .join(agent.as_str())
        .join(format!("{name}.json"))
}

/// Removes the state of sessions untouched for 30 days (best effort).
pub fn forget_old(cache: &Path, agent: Harness) {
    let Ok(entries) = std::fs::read_dir(cache.join("push").join(agent.as_str())) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > FORGET_AFTER);
        if old && entry.file_name().to_string_lossy().ends_with(".json") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_kept_per_agent_and_session_and_a_window_forgets_its_hints() {
        let dir = tempfile::tempdir().unwrap();
        let agent = Harness::Claude;
        let mut state = SessionState::load(dir.path(), agent, "s/1");
        assert_eq!(state, SessionState::default());
        state.booted = true;
        state.hinted.push("other".into());
        state.add_lead("lead".into());
        state.add_lead("lead".into());
        assert_eq!(state.leads, ["lead"]);
        state.save(dir.path(), agent, "s/1").unwrap();
        let mut again = SessionState::load(dir.path(), agent, "s/1");
        assert_eq!(again, state);
        again.new_window();
        assert_eq!(
            (again.window, again.hinted.len(), again.leads.len()),
            (1, 0, 0)
        );
        assert!(again.booted);
        assert_eq!(
            SessionState::load(dir.path(), agent, "s/2"),
            SessionState::default()
        );
        std::fs::write(file(dir.path(), agent, "s/1"), "not json").unwrap();
        assert_eq!(
            SessionState::load(dir.path(), agent, "s/1"),
            SessionState::default()
        );
    }

    /// Copilot CLI runs a session's first prompt hook while its session-start hook still runs
    /// (tests/agents/test_copilot.py): two runs load the same state, and neither save may lose
    /// what the other did.
    #[test]
    fn two_hook_runs_of_one_session_at_once_keep_both_their_changes() {
        let dir = tempfile::tempdir().unwrap();
        let agent = Harness::Copilot;
        let mut start = SessionState::load(dir.path(), agent, "s");
        let mut prompt = SessionState::load(dir.path(), agent, "s");
        prompt.hinted.push("hinted".into());
        prompt.add_lead("first".into());
        prompt.save(dir.path(), agent, "s").unwrap();
        start.booted = true;
        start.add_lead("second".into());
        start.add_lead("first".into());
        start.save(dir.path(), agent, "s").unwrap();
        let kept = SessionState::load(dir.path(), agent, "s");
        assert_eq!(
            (kept.booted, kept.hinted, kept.leads),
            (
                true,
                vec!["hinted".to_string()],
                vec!["first".to_string(), "second".to_string()]
            )
        );
        // A window the other run opened meanwhile wins, with its own (empty) hints.
        let mut old = SessionState::load(dir.path(), agent, "s");
        let mut compacted = SessionState::load(dir.path(), agent, "s");
        compacted.new_window();
        compacted.save(dir.path(), agent, "s").unwrap();
        old.hinted.push("late".into());
        old.add_lead("late".into());
        old.save(dir.path(), agent, "s").unwrap();
        let kept = SessionState::load(dir.path(), agent, "s");
        assert_eq!(
            (kept.window, kept.hinted.len(), kept.leads.len()),
            (1, 0, 0)
        );
    }

    #[test]
    fn only_the_newest_hints_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let agent = Harness::Claude;
        let mut state = SessionState {
            hinted: (0..100).map(|n| n.to_string()).collect(),
            leads: (0..100).map(|n| format!("lead {n}")).collect(),
            ..SessionState::default()
        };
        state.save(dir.path(), agent, "s").unwrap();
        assert_eq!(state.hinted.len(), MAX_KEPT);
        assert_eq!(state.hinted.last().map(String::as_str), Some("99"));
        assert_eq!(state.leads.len(), MAX_KEPT);
        assert_eq!(state.leads.first().map(String::as_str), Some("lead 36"));
    }
}
