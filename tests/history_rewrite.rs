//! A session file that changes while history calls read it (issue 9, item 5).
//!
//! Pi rewrites session files in place (`openSync(file, "w")`: truncate, then write) for
//! migrations and forks. A reader that maps the file then touches pages past the new end, which
//! used to kill the binary with SIGBUS (signal 7) and no message. Here a thread rewrites and
//! truncates a session in a loop while hundreds of `history` calls (CLI and tool) read it: no
//! call may die of a signal, and each either answers as one version of the file would (any
//! prefix of a version, since a reader may catch a write half-done) or fails with the clear
//! `session_changed` error. Appending, the normal case, must never fail a call.

use crate::common;

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::session::SessionBuilder;
use common::TestEnv;
use serde_json::{json, Value};

/// Calls per reading thread; two threads read at once.
const CALLS_PER_THREAD: usize = 120;

/// One version of the session file. Message `n` (seq `n`) has the text `contents[n - 1]`, which
/// names the version and the seq, so a row shows which version it came from; every seventh
/// starts with `needle`.
struct Version {
    session_id: &'static str,
    text: Vec<u8>,
    contents: Vec<String>,
}

impl Version {
    fn new(tag: &str, session_id: &'static str, messages: usize, fill: usize) -> Version {
        let mut s = SessionBuilder::with_id(session_id);
        let mut contents = Vec::new();
        for n in 1..=messages {
            let needle = if n % 7 == 0 { "needle " } else { "" };
            let text = format!("{needle}{tag} item {n} {}", tag.repeat(fill));
            if n % 2 == 1 {
                s.user(&text);
            } else {
                s.assistant(&text);
            }
            contents.push(text);
        }
        Version {
            session_id,
            text: s.text().into_bytes(),
            contents,
        }
    }

    fn content(&self, seq: u64) -> Option<&str> {
        let index = usize::try_from(seq).ok()?.checked_sub(1)?;
        self.contents.get(index).map(String::as_str)
    }
}

/// The two versions a writer alternates between: different ids, line lengths and counts.
fn versions() -> Arc<[Version; 2]> {
    Arc::new([
        Version::new("v1", "11111111-aaaa-4aaa-8aaa-aaaaaaaaaaaa", 1200, 150),
        Version::new("v2", "22222222-bbbb-4bbb-8bbb-bbbbbbbbbbbb", 600, 330),
    ])
}

// ----- the oracle: is an answer one that some prefix of some version gives? ---------------------

/// The version whose text a row's content is, if any.
fn version_of<'v>(versions: &'v [Version; 2], content: &str) -> Option<&'v Version> {
    let tag = content.trim_start_matches("needle ").get(..2)?;
    versions
        .iter()
        .find(|v| v.contents.first().is_some_and(|c| c.starts_with(tag)))
}

/// Rows of a list or search page: every row is the exact text of its seq in one single version.
fn check_rows(versions: &[Version; 2], page: &Value, search: bool) -> Result<(), String> {
    let items = page["items"].as_array().ok_or("no items array")?;
    let Some(first) = items.first() else {
        return Ok(());
    };
    let version = version_of(versions, first["content"].as_str().unwrap_or_default())
        .ok_or_else(|| format!("a row of no version: {first}"))?;
    for row in items {
        if row["folded"] == json!(true) {
            return Err(format!("a fold row in a session of messages only: {row}"));
        }
        let seq = row["seq"].as_u64().ok_or("a row without a seq")?;
        let expected = version
            .content(seq)
            .ok_or_else(|| format!("seq {seq} is beyond its version"))?;
        if row["content"] != json!(expected) || row["truncated"] != json!(false) {
            return Err(format!("row {seq} is not its version's text: {row}"));
        }
        if search && !expected.starts_with("needle") {
            return Err(format!("search returned a row without the needle: {row}"));
        }
    }
    Ok(())
}

/// A windows result: one root window named after one version's session id, holding seqs 1..n of
/// that version (or an empty session, when the file was caught empty).
fn check_windows(versions: &[Version; 2], result: &Value) -> Result<(), String> {
    let session_id = result["session_id"].as_str().ok_or("no session_id")?;
    let windows = result["windows"].as_array().ok_or("no windows")?;
    let [window] = windows.as_slice() else {
        return Err(format!("not one window: {result}"));
    };
    let count = window["item_count"].as_u64().ok_or("no item_count")?;
    if session_id.is_empty() && count == 0 {
        return Ok(());
    }
    let version = versions
        .iter()
        .find(|v| v.session_id == session_id)
        .ok_or_else(|| format!("a session id of no version: {result}"))?;
    let expected = json!({
        "window_id": format!("pcw:{}:root", &session_id[..8]),
        "created_at": null,
        "first_seq": if count == 0 { json!(null) } else { json!(1) },
        "last_seq": if count == 0 { json!(null) } else { json!(count) },
        "item_count": count,
    });
    if *window != expected || count as usize > version.contents.len() {
        return Err(format!("not a window of its version: {result}"));
    }
    Ok(())
}

/// A READ WINDOW: its content is the full text of the seq in one version.
fn check_read(versions: &[Version; 2], seq: u64, text: &str) -> Result<(), String> {
    let (head, content) = text
        .split_once("\n\n")
        .ok_or_else(|| format!("not a READ WINDOW: {text:?}"))?;
    if !head.contains(&format!("\nseq: {seq}\n")) {
        return Err(format!("the block is not seq {seq}: {head}"));
    }
    if versions.iter().any(|v| v.content(seq) == Some(content)) {
        Ok(())
    } else {
        Err(format!(
            "seq {seq} read as text of no version: {content:.80}"
        ))
    }
}

// ----- the calls -------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Op {
    Windows,
    List,
    Search,
    Read(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Answered,
    /// A read of a seq that the version (or prefix) caught does not have.
    UnknownSeq,
    /// The clear error: the file kept changing while it was read.
    Changed,
}

/// Runs one call on the CLI or through `tool`, and judges what it printed.
fn call(
    env: &TestEnv,
    versions: &[Version; 2],
    path: &Path,
    op: Op,
    tool: bool,
    indexed: bool,
) -> Result<Outcome, String> {
    let mut cmd = env.cmd();
    if indexed {
        cmd.env("PI_CONTEXT_CACHE_MIN_BYTES", "0");
    } else {
        cmd.env("PI_CONTEXT_SESSION_INDEX", "off");
    }
    let session = path.to_str().unwrap();
    let (name, params, args): (&str, Value, Vec<String>) = match op {
        Op::Windows => ("history_windows", json!({}), vec!["windows".into()]),
        Op::List => ("history_list", json!({}), vec!["list".into()]),
        Op::Search => (
            "history_search",
            json!({"query": "needle"}),
            vec!["search".into(), "needle".into()],
        ),
        Op::Read(seq) => (
            "history_read",
            json!({"seq": seq}),
            vec!["read".into(), seq.to_string()],
        ),
    };
    let output = if tool {
        let request = json!({"params": params, "context": {"session_file": session}});
        cmd.args(["tool", name])
            .write_stdin(request.to_string())
            .output()
    } else {
        let mut argv = vec!["history".to_string()];
        argv.extend(args);
        argv.extend(["--session".into(), session.into()]);
        if !matches!(op, Op::Read(_)) {
            argv.push("--json".into());
        }
        cmd.args(&argv).output()
    }
    .map_err(|e| format!("cannot run the binary: {e}"))?;
    let what = format!("{op:?} (tool: {tool}, indexed: {indexed})");
    if let Some(signal) = output.status.signal() {
        return Err(format!("{what} was killed by signal {signal}"));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code().unwrap_or(-1);
    let judged = if tool {
        judge_tool(versions, op, code, &stdout)
    } else {
        judge_cli(versions, op, code, &stdout, &stderr)
    };
    judged.map_err(|e| format!("{what}: {e}\nstdout: {stdout:.300}\nstderr: {stderr:.300}"))
}

fn judge_cli(
    versions: &[Version; 2],
    op: Op,
    code: i32,
    stdout: &str,
    stderr: &str,
) -> Result<Outcome, String> {
    let changed = code == 74
        && stderr.starts_with("error: the session file ")
        && stderr.contains("changed while it was read");
    if changed {
        return Ok(Outcome::Changed);
    }
    match (op, code) {
        (Op::Read(_), 2) if stderr.starts_with("error: unknown seq ") => Ok(Outcome::UnknownSeq),
        (Op::Read(seq), 0) => {
            // The command line ends the content with a newline.
            let block = stdout.strip_suffix('\n').unwrap_or(stdout);
            check_read(versions, seq, block).map(|()| Outcome::Answered)
        }
        (Op::Search, 0 | 1) | (Op::List | Op::Windows, 0) => {
            let value: Value =
                serde_json::from_str(stdout).map_err(|e| format!("not JSON: {e}"))?;
            match op {
                Op::Windows => check_windows(versions, &value),
                _ => check_rows(versions, &value, matches!(op, Op::Search)),
            }
            .map(|()| Outcome::Answered)
        }
        _ => Err(format!("exit {code}")),
    }
}

fn judge_tool(versions: &[Version; 2], op: Op, code: i32, stdout: &str) -> Result<Outcome, String> {
    if code != 0 {
        return Err(format!("exit {code}"));
    }
    let response: Value = serde_json::from_str(stdout).map_err(|e| format!("not JSON: {e}"))?;
    let text = response["text"].as_str().ok_or("no text")?;
    if response["is_error"] == json!(true) {
        let error: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        return match error["error"]["code"].as_str() {
            Some("session_changed") => Ok(Outcome::Changed),
            Some("unknown_seq") if matches!(op, Op::Read(_)) => Ok(Outcome::UnknownSeq),
            _ => Err("an unexpected refusal".into()),
        };
    }
    match op {
        Op::Read(seq) => check_read(versions, seq, text),
        Op::Windows => check_windows(
            versions,
            &serde_json::from_str(text).map_err(|e| e.to_string())?,
        ),
        Op::List | Op::Search => check_rows(
            versions,
            &serde_json::from_str(text).map_err(|e| e.to_string())?,
            matches!(op, Op::Search),
        ),
    }
    .map(|()| Outcome::Answered)
}

/// The i-th call of a reading thread: every operation, CLI and tool, index off and on.
fn nth_call(i: usize) -> (Op, bool, bool) {
    let op = match i % 4 {
        0 => Op::Windows,
        1 => Op::List,
        2 => Op::Search,
        _ => Op::Read(1 + (i as u64 * 37) % 500),
    };
    (op, (i / 4) % 2 == 1, (i / 8) % 2 == 1)
}

/// Runs the reading threads against `path` while `writer` changes it; returns every call's
/// outcome, or the failures.
fn read_while_writing(
    env: &Arc<TestEnv>,
    versions: &Arc<[Version; 2]>,
    path: &Path,
    writer: impl FnOnce(&AtomicBool) + Send + 'static,
) -> Vec<Result<Outcome, String>> {
    let stop = Arc::new(AtomicBool::new(false));
    let writing = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || writer(&stop))
    };
    let readers: Vec<_> = (0..2)
        .map(|thread| {
            let (env, versions, path) = (Arc::clone(env), Arc::clone(versions), path.to_owned());
            std::thread::spawn(move || {
                (0..CALLS_PER_THREAD)
                    .map(|i| {
                        let (op, tool, indexed) = nth_call(i + thread);
                        call(&env, &versions, &path, op, tool, indexed)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let outcomes = readers
        .into_iter()
        .flat_map(|r| r.join().expect("reader thread"))
        .collect();
    stop.store(true, Ordering::Relaxed);
    writing.join().expect("writer thread");
    outcomes
}

/// What Pi's `openSync(file, "w")` and a write do: truncate in place, then write.
fn rewrite_in_place(path: &Path, bytes: &[u8]) {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .expect("open for rewrite");
    file.write_all(bytes).expect("rewrite");
}

fn truncate_to(path: &Path, len: usize) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open for truncation")
        .set_len(len as u64)
        .expect("truncate");
}

fn session_path(env: &TestEnv, first: &Version) -> PathBuf {
    let path = env.work().join("session.jsonl");
    std::fs::write(&path, &first.text).unwrap();
    path
}

fn failures(outcomes: &[Result<Outcome, String>]) -> Vec<&String> {
    outcomes.iter().filter_map(|o| o.as_ref().err()).collect()
}

#[test]
fn reads_survive_a_session_rewritten_and_truncated_in_place() {
    let env = Arc::new(TestEnv::new());
    let versions = versions();
    let path = session_path(&env, &versions[0]);
    let writer = {
        let (versions, path) = (Arc::clone(&versions), path.clone());
        move |stop: &AtomicBool| {
            while !stop.load(Ordering::Relaxed) {
                // Each version stays a while, so that some reads see one version throughout.
                for version in versions.iter() {
                    rewrite_in_place(&path, &version.text);
                    std::thread::sleep(Duration::from_millis(60));
                    truncate_to(&path, version.text.len() / 2);
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        }
    };
    let outcomes = read_while_writing(&env, &versions, &path, writer);
    let failed = failures(&outcomes);
    assert!(
        failed.is_empty(),
        "{} of {} calls failed; the first: {}",
        failed.len(),
        outcomes.len(),
        failed[0]
    );
    let count = |wanted: Outcome| outcomes.iter().filter(|o| **o == Ok(wanted)).count();
    let answered = count(Outcome::Answered);
    eprintln!(
        "{} calls: {answered} answered, {} unknown seq, {} changed",
        outcomes.len(),
        count(Outcome::UnknownSeq),
        count(Outcome::Changed)
    );
    assert!(
        answered > 0,
        "no call answered at all, so no answer was checked"
    );
}

#[test]
fn appending_never_fails_a_read() {
    let env = Arc::new(TestEnv::new());
    let versions = versions();
    let full = &versions[0].text;
    let path = env.work().join("session.jsonl");
    std::fs::write(&path, &full[..full.len() / 4]).unwrap();
    let writer = {
        let (versions, path) = (Arc::clone(&versions), path.clone());
        move |stop: &AtomicBool| {
            let full = &versions[0].text;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            // Appends in pieces that end anywhere, like a line Pi is still writing.
            let mut at = full.len() / 4;
            while !stop.load(Ordering::Relaxed) && at < full.len() {
                let end = (at + 97).min(full.len());
                file.write_all(&full[at..end]).unwrap();
                at = end;
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    };
    let outcomes = read_while_writing(&env, &versions, &path, writer);
    let failed = failures(&outcomes);
    assert!(
        failed.is_empty(),
        "{} of {} calls failed; the first: {}",
        failed.len(),
        outcomes.len(),
        failed[0]
    );
    let changed = outcomes
        .iter()
        .filter(|o| matches!(o, Ok(Outcome::Changed)))
        .count();
    assert_eq!(changed, 0, "an append made a call fail");
}
