//! Pi session corpora for the `sessions` tests: files in Pi's own layout under the test's agent
//! dir, and helpers to run `sessions …` and `history …` on them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::session::SessionBuilder;
use super::TestEnv;

/// `<agent dir>/sessions`, Pi's default root.
pub fn sessions_root(env: &TestEnv) -> PathBuf {
    env.root().join("pi-agent").join("sessions")
}

/// A project directory under the work dir (created), for session cwds.
pub fn project_dir(env: &TestEnv, name: &str) -> PathBuf {
    let dir = env.work().join(name);
    std::fs::create_dir_all(&dir).expect("create project dir");
    dir
}

/// A session id that looks like Pi's (a UUID), distinct per `n`.
pub fn session_id(n: u32) -> String {
    format!("0192aaaa-{n:04x}-7000-8000-{n:012x}")
}

/// Appends `text` to the file at `path`.
pub fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// Appends to the file at `path` what `s` holds past it; returns how many bytes.
pub fn append_what_is_new(path: &Path, s: &SessionBuilder) -> usize {
    let before = std::fs::metadata(path).unwrap().len() as usize;
    append(path, &s.text()[before..]);
    s.text().len() - before
}

/// Writes the session where Pi would: `<root>/--<encoded cwd>--/<timestamp>_<id>.jsonl`.
pub fn write_pi_session(env: &TestEnv, cwd: &Path, session: &SessionBuilder) -> PathBuf {
    let encoded = cwd
        .to_string_lossy()
        .trim_start_matches('/')
        .replace(['/', '\\', ':'], "-");
    let dir = sessions_root(env).join(format!("--{encoded}--"));
    std::fs::create_dir_all(&dir).expect("create session dir");
    let path = dir.join(format!(
        "2026-03-01T09-00-00-000Z_{}.jsonl",
        session.session_id()
    ));
    session.write_to(&path)
}

/// Runs `pi-context <args> --json` in `cwd` (it must exit 0 or 1) and returns its JSON and exit
/// code.
pub fn json_in(env: &TestEnv, cwd: &Path, args: &[&str]) -> (Value, i32) {
    let output = env.run_with(|cmd| cmd.current_dir(cwd).args(args).arg("--json"));
    assert!(output.code == 0 || output.code == 1, "{output}");
    (output.json(), output.code)
}

/// `sessions search QUERY… --all --json` from the work dir.
pub fn search_all(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["sessions", "search", "--all"];
    all.extend_from_slice(args);
    json_in(env, &env.work(), &all).0
}

/// The session ids of a search or list result, in order.
pub fn ids(result: &Value) -> Vec<String> {
    result["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["session_id"].as_str().expect("id").to_string())
        .collect()
}

/// The content of every hit of a `sessions search --json` answer, in order.
pub fn hit_contents(result: &Value) -> Vec<String> {
    result["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .flat_map(|s| s["hits"].as_array().expect("hits").clone())
        .map(|h| h["content"].as_str().expect("content").to_string())
        .collect()
}

/// Every hit of a search result as `(session_id, seq)`.
pub fn hits(result: &Value) -> Vec<(String, u64)> {
    result["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .flat_map(|s| {
            let id = s["session_id"].as_str().expect("id").to_string();
            s["hits"]
                .as_array()
                .expect("hits")
                .iter()
                .map(move |h| (id.clone(), h["seq"].as_u64().expect("seq")))
        })
        .collect()
}

/// `history read SEQ --session ID [--leaf LEAF] --limit 50000 --json` → the read's content.
pub fn read_hit(env: &TestEnv, session: &str, seq: u64, leaf: Option<&str>) -> String {
    let seq = seq.to_string();
    let mut args = vec![
        "history",
        "read",
        &seq,
        "--session",
        session,
        "--limit",
        "50000",
    ];
    if let Some(leaf) = leaf {
        args.extend(["--leaf", leaf]);
    }
    let (value, code) = json_in(env, &env.work(), &args);
    assert_eq!(code, 0, "read failed: {value}");
    value["content"].as_str().expect("content").to_string()
}

/// `<cache>/recall` under the test's HOME.
pub fn recall_dir(env: &TestEnv) -> PathBuf {
    env.home().join(".cache").join("pi-context").join("recall")
}

/// The index generation readers use now (`<recall>/current` names it; before generations,
/// `<recall>/index`, so a test of the layout can be run against the code before it).
pub fn generation_dir(env: &TestEnv) -> PathBuf {
    let dir = recall_dir(env);
    match std::fs::read_to_string(dir.join("current")) {
        Ok(name) => dir.join(name.trim()),
        Err(_) => dir.join("index"),
    }
}

/// The files of the current generation whose names satisfy `pick`.
pub fn generation_files(env: &TestEnv, pick: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(generation_dir(env))
        .expect("generation")
        .map(|e| e.expect("entry").path())
        .filter(|p| pick(&p.file_name().unwrap().to_string_lossy()))
        .collect();
    files.sort();
    files
}

/// A `std` command with `env.cmd()`'s hermetic environment, which can be spawned and killed.
#[must_use]
pub fn spawnable(env: &TestEnv, args: &[&str]) -> std::process::Command {
    let mut cmd = env.process();
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    cmd
}

/// Runs `cmd`, killing it and failing the test when it runs longer than `limit` (a hang must
/// fail the test, not hang the suite); its exit code and stdout.
pub fn run_within(mut cmd: std::process::Command, limit: std::time::Duration) -> (i32, Vec<u8>) {
    let mut child = cmd.spawn().expect("spawn");
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            let output = child.wait_with_output().expect("output");
            let code = output.status.code().unwrap_or(-1);
            return (code, output.stdout);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
