//! A session path that names no regular file (issue 9, item 7).
//!
//! A FIFO given as `--session`, or as `session_file` in the tool context, used to hang the binary
//! (opening it waits for a writer); a directory was an `io_error` and a device an empty session.
//! Each is now an input error that names the path: exit 2 on the command line, the refusal
//! `invalid_session_file` from the tool. A missing file stays an empty session.

use crate::common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::session::{refusal, request};
use common::TestEnv;
use serde_json::{json, Value};

/// Only a guard against a hang; a healthy call takes milliseconds.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// Every kind of path that is not a regular file, and how the error names it.
fn special_files(env: &TestEnv) -> Vec<(PathBuf, &'static str)> {
    let fifo = env.work().join("fifo.jsonl");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let socket = env.work().join("socket.jsonl");
    // The listener is leaked so that the socket stays bound for the whole test.
    std::mem::forget(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let directory = env.work().join("directory.jsonl");
    std::fs::create_dir(&directory).unwrap();
    vec![
        (fifo, "a FIFO (named pipe)"),
        (socket, "a socket"),
        (directory, "a directory"),
        (PathBuf::from("/dev/null"), "a device"),
        (PathBuf::from("/dev/zero"), "a device"),
    ]
}

fn cli(env: &TestEnv, args: &[&str], session: &Path) -> std::process::Output {
    env.cmd()
        .arg("history")
        .args(args)
        .arg("--session")
        .arg(session)
        .timeout(HANG_GUARD)
        .output()
        .unwrap()
}

fn tool(env: &TestEnv, name: &str, session: &Path, params: Value) -> Value {
    let output = env
        .cmd()
        .args(["tool", name])
        .write_stdin(request(session, params).to_string())
        .timeout(HANG_GUARD)
        .output()
        .unwrap();
    assert_eq!(
        output.status.signal(),
        None,
        "tool {name} on {} hung or was killed",
        session.display()
    );
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_command_line_refuses_a_session_that_is_not_a_regular_file() {
    let env = TestEnv::new();
    for (path, kind) in special_files(&env) {
        for args in [
            &["windows"][..],
            &["list"],
            &["read", "1"],
            &["search", "x"],
        ] {
            let output = cli(&env, args, &path);
            assert_eq!(
                output.status.signal(),
                None,
                "{args:?} on {} hung or was killed",
                path.display()
            );
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(output.stdout.is_empty());
            assert_eq!(
                stderr.lines().next(),
                Some(
                    format!(
                        "error: session file {} is {kind}, not a regular file",
                        path.display()
                    )
                    .as_str()
                ),
                "{args:?}"
            );
            assert!(
                stderr.contains("hint: --session takes a Pi session JSONL file"),
                "{stderr}"
            );
        }
    }
}

#[test]
fn the_tool_refuses_a_session_file_that_is_not_a_regular_file() {
    let env = TestEnv::new();
    for (path, kind) in special_files(&env) {
        for (name, params) in [
            ("history_windows", json!({})),
            ("history_list", json!({})),
            ("history_read", json!({"seq": 1})),
            ("history_search", json!({"query": "x"})),
        ] {
            let response = tool(&env, name, &path, params);
            assert_eq!(response["details"], json!({"code": "invalid_session_file"}));
            assert_eq!(
                refusal(&response),
                json!({
                    "code": "invalid_session_file",
                    "message": format!("session file {} is {kind}, not a regular file", path.display()),
                    "session_file": path.to_str().unwrap(),
                }),
                "{name}"
            );
        }
    }
}

#[test]
fn a_missing_session_file_is_still_an_empty_session() {
    let env = TestEnv::new();
    let missing = env.work().join("not-yet.jsonl");
    let output = cli(&env, &["list", "--json"], &missing);
    assert!(output.status.success(), "{output:?}");
    let response = tool(&env, "history_list", &missing, json!({}));
    assert_eq!(response["is_error"], json!(false));
}
