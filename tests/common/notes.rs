//! Helpers shared by the notes tests: running `pi-context notes …` and the notes tools in a
//! hermetic [`TestEnv`], and looking at the files they leave.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

pub use super::Run;
use super::{CommandOutput, TestEnv};

/// The session id every notes command sees unless a test says otherwise.
pub const SESSION: &str = "test-session";

/// `pi-context notes <args>` with the test session id.
pub fn notes(env: &TestEnv, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = env.cmd();
    cmd.env("PI_CONTEXT_SESSION_ID", SESSION)
        .arg("notes")
        .args(args);
    cmd
}

/// Runs `pi-context notes <args>` with the test session id.
pub fn run_notes(env: &TestEnv, args: &[&str]) -> CommandOutput {
    env.output_of(&mut notes(env, args))
}

/// Runs a notes command that must succeed and returns its stdout.
pub fn ok(env: &TestEnv, args: &[&str]) -> String {
    run_notes(env, args).success().stdout
}

/// Runs a notes command with `--json` that must succeed and returns the parsed document.
pub fn json(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    run_notes(env, &all).success().json()
}

/// Runs a notes command that must fail; returns (exit code, stderr).
pub fn fails(env: &TestEnv, args: &[&str]) -> (i32, String) {
    let output = run_notes(env, args);
    assert_ne!(output.code, 0, "unexpectedly succeeded:\n{output}");
    (output.code, output.stderr)
}

/// CONTRACT §1's path-based project key of a checkout root: its name and the first 8 hex digits
/// of a SHA-1 of its real path.
pub fn path_key(root: &Path) -> String {
    let root = root.canonicalize().unwrap();
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    format!("{name}-{}", sha1_prefix(&root.to_string_lossy()))
}

/// The first 8 hex digits of the SHA-1 of `text`.
pub fn sha1_prefix(text: &str) -> String {
    use sha1::Digest;
    let digest = sha1::Sha1::digest(text.as_bytes());
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

/// The project key the binary uses in `cwd`, read back from a write receipt.
pub fn key_in(env: &TestEnv, cwd: &Path) -> String {
    let receipt = json(
        env,
        &[
            "write",
            "@project/probe",
            "-c",
            "x",
            "--cwd",
            cwd.to_str().unwrap(),
        ],
    );
    receipt["project_key"]
        .as_str()
        .expect("a project key")
        .to_string()
}

/// Writes a note through the CLI.
pub fn write(env: &TestEnv, address: &str, content: &str) {
    ok(env, &["write", address, "--content", content]);
}

/// The tool context of the test session.
pub fn context(env: &TestEnv) -> Value {
    json!({
        "notes_home": env.notes_home(),
        "session_id": SESSION,
        "cwd": env.work(),
        "agent": "anonymous",
        "model": "default",
    })
}

/// Calls a notes tool with the test session's context.
pub fn tool(env: &TestEnv, name: &str, params: Value) -> Value {
    tool_in(env, name, params, context(env))
}

pub fn tool_in(env: &TestEnv, name: &str, params: Value, context: Value) -> Value {
    env.tool(name, &json!({"params": params, "context": context}))
}

/// The result object a successful JSON-text tool returned.
pub fn tool_ok(env: &TestEnv, name: &str, params: Value) -> Value {
    let response = tool(env, name, params);
    assert_eq!(
        response["is_error"], false,
        "{name} refused: {}",
        response["text"]
    );
    serde_json::from_str(text(&response)).expect("text is JSON")
}

/// The `error` object of a refused tool call.
pub fn tool_refusal(env: &TestEnv, name: &str, params: Value) -> Value {
    refusal_of(&tool(env, name, params))
}

pub fn refusal_of(response: &Value) -> Value {
    assert_eq!(
        response["is_error"], true,
        "expected a refusal: {}",
        response["text"]
    );
    let parsed: Value = serde_json::from_str(text(response)).expect("refusal text is JSON");
    parsed["error"].clone()
}

pub fn text(response: &Value) -> &str {
    response["text"].as_str().expect("text")
}

/// The file of a session note of the test session.
pub fn session_file(env: &TestEnv, path: &str) -> PathBuf {
    env.notes_home().join("pi/session").join(SESSION).join(path)
}

pub fn read_file(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Every file and directory under `dir` with its bytes (directories map to empty), to show that
/// a refused operation changed nothing.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    collect(dir, dir, &mut files);
    files
}

fn collect(root: &Path, dir: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            files.insert(relative, Vec::new());
            collect(root, &path, files);
        } else if kind.is_symlink() {
            let target = std::fs::read_link(&path).expect("read link");
            files.insert(relative, target.to_string_lossy().as_bytes().to_vec());
        } else {
            files.insert(relative, std::fs::read(&path).expect("read file"));
        }
    }
}

/// The value of a `key: value` frontmatter line of a note file.
pub fn frontmatter_value(text: &str, key: &str) -> Option<String> {
    let block = text.strip_prefix("---\n")?;
    let end = block.find("\n---\n")?;
    block[..end]
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{key}: ")).map(str::to_string))
}

/// The addresses of a `list` or `search` result's files, in order.
pub fn addresses(result: &Value) -> Vec<String> {
    result["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["address"].as_str().unwrap().to_string())
        .collect()
}
