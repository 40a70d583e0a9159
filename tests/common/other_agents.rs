//! Claude Code and Codex sessions written where those agents write them, from
//! `tests/fixtures/harnesses/` (see its README), for the recall tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use super::recall::{project_dir, session_id, write_pi_session};
use super::session::SessionBuilder;
use super::TestEnv;

pub const CLAUDE_ID: &str = "c1a0de00-1111-4aaa-8bbb-000000000001";
pub const SUBAGENT_FILE: &str = "agent-a7e3b2c9.jsonl";
pub const CODEX_ID: &str = "0199c0de-2222-7ccc-8ddd-000000000002";
pub const CODEX_FILE: &str =
    "rollout-2026-02-28T11-00-00-0199c0de-2222-7ccc-8ddd-000000000002.jsonl";

/// A fixture of `tests/fixtures/harnesses/` with `__CWD__` replaced by `cwd` (JSON-escaped).
pub fn fixture_for(name: &str, cwd: &Path) -> String {
    let text =
        std::fs::read_to_string(super::fixture(&format!("harnesses/{name}"))).expect("fixture");
    let escaped = serde_json::to_string(&cwd.to_string_lossy()).expect("json");
    text.replace("__CWD__", &escaped[1..escaped.len() - 1])
}

pub fn write(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
    path.to_path_buf()
}

/// Claude Code's directory name for a cwd: every character but ASCII letters and digits
/// becomes `-`.
pub fn claude_encoded(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Writes the Claude Code session and its subagent under `projects` (a Claude `projects`
/// directory) as Claude Code lays them out; returns the session's file.
pub fn write_claude(projects: &Path, cwd: &Path) -> PathBuf {
    let dir = projects.join(claude_encoded(cwd));
    write(
        &dir.join(CLAUDE_ID).join("subagents").join(SUBAGENT_FILE),
        &fixture_for("claude/subagent.jsonl", cwd),
    );
    write(
        &dir.join(format!("{CLAUDE_ID}.jsonl")),
        &fixture_for("claude/session.jsonl", cwd),
    )
}

/// Writes the Codex rollout under `codex_home` as Codex lays it out.
pub fn write_codex(codex_home: &Path, cwd: &Path) -> PathBuf {
    write(
        &codex_home.join("sessions/2026/02/28").join(CODEX_FILE),
        &fixture_for("codex/rollout.jsonl", cwd),
    )
}

pub fn write_pi(env: &TestEnv, cwd: &Path) -> PathBuf {
    let mut s = SessionBuilder::with_id(&session_id(1)).cwd(&cwd.to_string_lossy());
    s.user("Pi looked at the heliotrope API too");
    s.assistant("the heliotrope API has no flamingo adapter");
    write_pi_session(env, cwd, &s)
}

/// One checkout worked on by all three agents, each writing where it does by default.
pub fn three_agents(env: &TestEnv) -> PathBuf {
    let project = project_dir(env, "orchard");
    write_pi(env, &project);
    write_claude(&env.home().join(".claude/projects"), &project);
    write_codex(&env.home().join(".codex"), &project);
    project
}
