//! Running `pi-context history … --session FILE` on other harnesses' transcripts, and copying
//! their fixtures (tests/fixtures/claude, tests/fixtures/codex) where a test may change them.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{fixture, CommandOutput, TestEnv};

/// `pi-context history <args> --session <path>` with extra environment variables; no panic.
pub fn history_with(
    env: &TestEnv,
    path: &Path,
    args: &[&str],
    vars: &[(&str, &OsStr)],
) -> CommandOutput {
    let run = env.run_with(|cmd| {
        for (name, value) in vars {
            cmd.env(name, value);
        }
        cmd.arg("history").args(args).arg("--session").arg(path)
    });
    assert!(!run.stderr.contains("internal error"), "{run}");
    run
}

/// `pi-context history <args> --session <path>`.
pub fn history(env: &TestEnv, path: &Path, args: &[&str]) -> CommandOutput {
    history_with(env, path, args, &[])
}

/// [`history`] through the session index (a file of any size is indexed, in `cache`).
pub fn history_indexed(env: &TestEnv, cache: &Path, path: &Path, args: &[&str]) -> CommandOutput {
    let vars = [
        ("PI_CONTEXT_CACHE_DIR", cache.as_os_str()),
        ("PI_CONTEXT_CACHE_MIN_BYTES", OsStr::new("0")),
    ];
    history_with(env, path, args, &vars)
}

/// [`history`] with no session index.
pub fn history_unindexed(env: &TestEnv, path: &Path, args: &[&str]) -> CommandOutput {
    history_with(
        env,
        path,
        args,
        &[("PI_CONTEXT_SESSION_INDEX", OsStr::new("off"))],
    )
}

/// `history list` of every role, as JSON.
pub fn list_all(env: &TestEnv, path: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "list",
        "--role",
        "user",
        "--role",
        "assistant",
        "--role",
        "tool",
        "--role",
        "context",
        "--limit",
        "100",
        "--json",
    ];
    args.extend_from_slice(extra);
    history(env, path, &args).success().json()
}

/// `(seq, role, tool or "", content)` of each row.
pub fn rows(list: &Value) -> Vec<(u64, String, String, String)> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|row| {
            (
                row["seq"].as_u64().expect("seq"),
                row["role"].as_str().expect("role").to_string(),
                row["tool"].as_str().unwrap_or("").to_string(),
                row["content"].as_str().expect("content").to_string(),
            )
        })
        .collect()
}

/// The seqs of the rows.
pub fn row_seqs(list: &Value) -> Vec<u64> {
    rows(list).into_iter().map(|(seq, ..)| seq).collect()
}

/// A fixture of another harness (`claude/…`, `codex/…`).
pub fn harness_fixture(name: &str) -> PathBuf {
    fixture(name)
}

/// A copy of a fixture in the test's work directory, under `name`.
pub fn copy_fixture(env: &TestEnv, fixture_name: &str, name: &str) -> PathBuf {
    let path = env.work().join(name);
    std::fs::copy(fixture(fixture_name), &path).expect("copy fixture");
    path
}
