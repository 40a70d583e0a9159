//! Cursor's agent CLI transcripts read by `history` and `sessions` (docs/harnesses.md).
//! Fixtures: tests/fixtures/cursor (public, copied from vshulcz/deja-vu, MIT; no Cursor was run,
//! see its ORIGIN.md).

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::harness::{harness_fixture, history, list_all, row_seqs, rows};
use common::TestEnv;
use pi_context::session::{detect_file, Harness, Session};
use serde_json::Value;

const WORK: &str = "cursor/projects/Users-me-app/agent-transcripts/s-work/s-work.jsonl";
const FLAT: &str = "cursor/projects/registry-demo/agent-transcripts/registry-cursor.jsonl";
const TEXT_AND_CALL: &str =
    "cursor/projects/Users-me-work-my-app/agent-transcripts/sess-1/sess-1.jsonl";

fn row(seq: u64, role: &str, tool: &str, content: &str) -> (u64, String, String, String) {
    (seq, role.into(), tool.into(), content.into())
}

/// A copy of the fixtures' Cursor home whose transcripts were all last written at `at`.
fn home_written_at(env: &TestEnv, at: SystemTime) -> PathBuf {
    let home = env.work().join("cursor-home");
    copy_dir(&harness_fixture("cursor"), &home);
    for file in files_under(&home) {
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }
    home
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            found.push(path);
        }
    }
    found
}

fn list_sessions(env: &TestEnv, home: &Path) -> Value {
    let output = env
        .cmd()
        .args(["sessions", "list", "--all", "--json", "--cursor-dir"])
        .arg(home)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn a_transcript_is_linear_and_its_calls_have_no_output() {
    let env = TestEnv::new();
    assert_eq!(
        rows(&list_all(&env, &harness_fixture(WORK), &[])),
        vec![
            row(1, "user", "", "fix the greeting"),
            row(2, "tool", "Read", "Read {\"path\":\"/w/app/main.go\"}"),
            row(
                3,
                "tool",
                "StrReplace",
                "StrReplace {\"path\":\"/w/app/main.go\",\"old_string\":\"println(\\\"hello\\\")\",\"new_string\":\"println(\\\"goodbye\\\")\"}"
            ),
            row(
                4,
                "tool",
                "Write",
                "Write {\"path\":\"/w/app/notes.txt\",\"contents\":\"alpha\\n\"}"
            ),
            row(5, "tool", "Delete", "Delete {\"path\":\"/w/app/notes.txt\"}"),
            row(
                6,
                "tool",
                "Shell",
                "Shell {\"command\":\"go test ./...\",\"description\":\"tests\"}"
            ),
            row(7, "tool", "Shell", "Shell {\"command\":\"ls -la\"}"),
        ]
    );
    assert_eq!(
        rows(&list_all(&env, &harness_fixture(TEXT_AND_CALL), &[])),
        vec![
            row(1, "user", "", "transcriptneedle question"),
            row(2, "assistant", "", "Running ls."),
            row(3, "tool", "Bash", "Bash {\"command\":\"ls\"}"),
        ]
    );
    let found = history(
        &env,
        &harness_fixture(TEXT_AND_CALL),
        &["search", "transcriptneedle", "--json"],
    );
    assert_eq!(row_seqs(&found.json()), [1]);
    // `turn_ended` holds its place and is never text.
    let none = history(
        &env,
        &harness_fixture(TEXT_AND_CALL),
        &["search", "success", "--json"],
    );
    assert_eq!(none.code, 1, "{}", none.stdout);
}

#[test]
fn the_id_is_the_file_name_and_a_subagent_names_its_parent_by_its_directory() {
    for (fixture, id) in [
        (FLAT, "registry-cursor"),
        (WORK, "s-work"),
        (TEXT_AND_CALL, "sess-1"),
    ] {
        let path = harness_fixture(fixture);
        assert_eq!(detect_file(&path), Harness::Cursor, "{fixture}");
        let session = Session::open(&path).unwrap();
        assert_eq!((session.harness, session.id()), (Harness::Cursor, Some(id)));
        assert_eq!(session.parent_session_id(), None);
        let header = session.header.as_ref().unwrap();
        assert_eq!(
            (header.cwd.as_deref(), header.timestamp.as_deref()),
            (None, None)
        );
    }
    let child = Session::open(&harness_fixture(
        "cursor/projects/Users-x-app/agent-transcripts/s1/subagents/child.jsonl",
    ))
    .unwrap();
    assert_eq!(
        (child.id(), child.parent_session_id()),
        (Some("child"), Some("s1"))
    );
}

#[test]
fn sessions_take_their_files_time_as_their_last_update_and_say_so() {
    let env = TestEnv::new();
    let written = SystemTime::UNIX_EPOCH + Duration::from_millis(1_772_300_000_123);
    let home = home_written_at(&env, written);
    let listed = list_sessions(&env, &home);
    let sessions = listed["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 6, "{listed}");
    for session in sessions {
        assert_eq!(session["harness"], "cursor");
        assert_eq!(
            session["updated_at"], "2026-02-28T17:33:20.123Z",
            "{session}"
        );
        assert_eq!(session["updated_from_file"], true, "{session}");
        assert_eq!(session["created_at"], Value::Null, "{session}");
    }
    let child = sessions
        .iter()
        .find(|s| s["session_id"] == "child")
        .unwrap();
    assert_eq!(child["parent_session_id"], "s1");
    // The human list marks the time as the file's.
    let human = env
        .cmd()
        .args(["sessions", "list", "--all", "--cursor-dir"])
        .arg(&home)
        .output()
        .unwrap();
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(
        human
            .lines()
            .all(|l| l.starts_with("2026-02-28 17:33 (file time)  ")),
        "{human}"
    );
    // `--since` sees the file's time.
    let since = env
        .cmd()
        .args([
            "sessions",
            "list",
            "--all",
            "--json",
            "--since",
            "1d",
            "--cursor-dir",
        ])
        .arg(&home)
        .output()
        .unwrap();
    let since: Value = serde_json::from_slice(&since.stdout).unwrap();
    assert_eq!(since["sessions"].as_array().unwrap().len(), 6, "{since}");
    // A search says so too, in its JSON and in its human output.
    let search = |json: bool| {
        let mut cmd = env.cmd();
        cmd.args([
            "sessions",
            "search",
            "--all",
            "transcriptneedle",
            "--cursor-dir",
        ])
        .arg(&home);
        if json {
            cmd.arg("--json");
        }
        String::from_utf8(cmd.output().unwrap().stdout).unwrap()
    };
    let found: Value = serde_json::from_str(&search(true)).unwrap();
    assert_eq!(found["sessions"][0]["session_id"], "sess-1", "{found}");
    assert_eq!(found["sessions"][0]["updated_from_file"], true, "{found}");
    let human = search(false);
    assert!(human.contains("2026-02-28 17:33 (file time)"), "{human}");
    // Other agents' sessions keep their events' times and say nothing of files.
    let copilot = env
        .cmd()
        .args(["sessions", "list", "--all", "--json", "--copilot-dir"])
        .arg(harness_fixture("copilot-real"))
        .output()
        .unwrap();
    let copilot: Value = serde_json::from_slice(&copilot.stdout).unwrap();
    assert!(copilot["sessions"][0].get("updated_from_file").is_none());
}

#[test]
fn metadata_names_the_session_and_unknown_records_are_inert() {
    let env = TestEnv::new();
    let home = env.work().join("home-meta");
    let path = home.join("projects/p/agent-transcripts/m1/m1.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"metadata","metadata":{"overview":"Fix the flaky login test"}}"#,
            "\n",
            r#"{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nwhy does login flake\n</user_query>"}]}}"#,
            "\n",
            r#"{"type":"something_new","text":"futuretext"}"#,
            "\n",
            r#"{"role":"assistant","message":{"content":[{"type":"text","text":"a race in the session store"}]}}"#,
            "\n",
            "not json\n",
        ),
    )
    .unwrap();
    let list = list_all(&env, &path, &[]);
    assert_eq!(row_seqs(&list), [1, 2]);
    assert_eq!(list["skipped_lines"], 1);
    let none = history(&env, &path, &["search", "futuretext", "--json"]);
    assert_eq!(none.code, 1, "{}", none.stdout);
    let listed = list_sessions(&env, &home);
    assert_eq!(listed["sessions"][0]["name"], "Fix the flaky login test");
}

/// A Cursor transcript written by the test in its layout under a home.
fn write_transcript(home: &Path, id: &str, text: &str) -> PathBuf {
    let path = home.join(format!("projects/p/agent-transcripts/{id}/{id}.jsonl"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn user_line(text: &str) -> String {
    serde_json::json!({"role": "user", "message": {"content": [{"type": "text", "text": text}]}})
        .to_string()
        + "\n"
}

fn assistant_line(text: &str) -> String {
    serde_json::json!({"role": "assistant", "message": {"content": [{"type": "text", "text": text}]}})
        .to_string()
        + "\n"
}

#[test]
fn secrets_are_masked_and_never_found() {
    let env = TestEnv::new();
    let home = env.work().join("home-secret");
    let text = user_line("my key is AKIALABFAKEKEY012345, keep it") + &assistant_line("kept");
    let path = write_transcript(&home, "sec", &text);
    let listed = list_sessions(&env, &home);
    assert_eq!(
        listed["sessions"][0]["first_user_preview"],
        "my key is AKIA****************, keep it"
    );
    let run = env
        .cmd()
        .args([
            "sessions",
            "search",
            "--all",
            "--json",
            "AKIALABFAKEKEY012345",
            "--cursor-dir",
        ])
        .arg(&home)
        .output()
        .unwrap();
    let found: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(found["sessions"], serde_json::json!([]), "{found}");
    // `history` reads a file exactly; `--redact` masks it as another session's read is.
    let read = history(&env, &path, &["read", "1", "--json", "--redact"]);
    assert_eq!(
        read.json()["content"],
        "my key is AKIA****************, keep it",
        "{}",
        read.stdout
    );
}

#[test]
fn a_torn_last_line_waits_until_it_is_whole() {
    let env = TestEnv::new();
    let home = env.work().join("home-torn");
    let whole = assistant_line("the answer");
    let first = user_line("a question");
    let path = write_transcript(
        &home,
        "torn",
        &format!("{first}{}", &whole[..whole.len() / 2]),
    );
    let torn = list_all(&env, &path, &[]);
    assert_eq!(row_seqs(&torn), [1]);
    assert_eq!(torn["skipped_lines"], 1);
    std::fs::write(&path, format!("{first}{whole}")).unwrap();
    assert_eq!(
        rows(&list_all(&env, &path, &[])),
        vec![
            row(1, "user", "", "a question"),
            row(2, "assistant", "", "the answer")
        ]
    );
}

#[test]
fn a_50_mb_message_lists_and_searches() {
    let env = TestEnv::new();
    let home = env.work().join("home-big");
    let big = format!(
        "{}needle-at-the-end",
        "0123456789abcdef ".repeat((50 << 20) / 17)
    );
    let text = user_line("paste") + &assistant_line(&big);
    assert!(text.len() > 50 << 20);
    let path = write_transcript(&home, "big", &text);
    assert_eq!(row_seqs(&list_all(&env, &path, &[])), [1, 2]);
    let search = history(&env, &path, &["search", "needle-at-the-end", "--json"]);
    assert_eq!(search.code, 0, "{}", search.stderr);
    assert_eq!(search.json()["items"][0]["seq"], 2);
}

/// A user line holding two tool results and text makes three entries: each its own id
/// (`line:N`, `line:N#1`, …) under the one before it, so the branch runs through all of them
/// to the lines after (they shared `line:N`, which cut the branch there).
#[test]
fn a_line_of_several_results_and_text_keeps_the_branch_whole() {
    let env = TestEnv::new();
    let home = env.work().join("home-multi");
    let calls = serde_json::json!({"role": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "a"}},
        {"type": "tool_use", "id": "t2", "name": "Read", "input": {"path": "b"}}]}});
    let results = serde_json::json!({"role": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "alpha"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "bravo"},
        {"type": "text", "text": "now compare them"}]}});
    let text = user_line("read a and b")
        + &(calls.to_string() + "\n")
        + &(results.to_string() + "\n")
        + &assistant_line("they differ");
    let path = write_transcript(&home, "multi", &text);
    let listed = history(&env, &path, &["list", "--json"]).json();
    let items = listed["items"].as_array().unwrap();
    let said: Vec<(&str, &str)> = items
        .iter()
        .filter_map(|i| Some((i["role"].as_str()?, i["content"].as_str()?)))
        .collect();
    assert_eq!(
        said,
        [
            ("user", "read a and b"),
            ("user", "now compare them"),
            ("assistant", "they differ")
        ],
        "{listed}"
    );
    assert_eq!(items[1]["tools"]["Read"], 2, "{listed}");
    for (seq, output) in [("2", "alpha"), ("3", "bravo")] {
        let read = history(&env, &path, &["read", seq, "--json"]).json();
        assert!(read["content"].as_str().unwrap().contains(output), "{read}");
    }
    let windows = history(&env, &path, &["windows", "--json"]).json();
    assert_eq!(windows["windows"].as_array().unwrap().len(), 1, "{windows}");
}

/// Cursor's name for a project directory: the cwd with each run of characters other than ASCII
/// letters and digits one `-`, trimmed.
fn cursor_name(path: &Path) -> String {
    let mut name = String::new();
    for c in path.to_str().unwrap().chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    name.trim_end_matches('-').to_string()
}

/// A transcript of session `id` in the project directory Cursor names after `cwd`.
fn transcript_for(home: &Path, cwd: &Path, id: &str) -> PathBuf {
    let path = home.join(format!(
        "projects/{}/agent-transcripts/{id}/{id}.jsonl",
        cursor_name(cwd)
    ));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, user_line(&format!("hello from {id}"))).unwrap();
    path
}

fn cwd_of(path: &Path) -> Option<String> {
    Session::open(path).unwrap().header.and_then(|h| h.cwd)
}

/// The project directory's name cannot be decoded alone (a `-` was a `/`, a `-`, a `.`, …): the
/// session's cwd is the one existing directory whose path Cursor would name so, or the path
/// `.workspace-trusted` names; two such directories, or none, give no cwd, as before. A session
/// with a cwd is in its project: listed there without `--all`.
#[test]
fn a_session_gets_the_one_existing_directory_its_project_directory_stands_for() {
    let env = TestEnv::new();
    let home = env.work().join("cursor-home");
    let plain = env.work().join("code/plain");
    let dotted = env.work().join("code/my-app.v2");
    let (slashed, dashed) = (env.work().join("two/a/b"), env.work().join("two/a-b"));
    for dir in [&plain, &dotted, &slashed, &dashed] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let gone = env.work().join("code/gone");
    let trusted = env.work().join("moved/x.y");

    let found = |cwd: &Path, id: &str| cwd_of(&transcript_for(&home, cwd, id));
    assert_eq!(
        found(&plain, "s-plain"),
        Some(plain.to_string_lossy().into())
    );
    assert_eq!(
        found(&dotted, "s-dotted"),
        Some(dotted.to_string_lossy().into())
    );
    assert_eq!(found(&slashed, "s-two"), None, "two directories: ambiguous");
    assert_eq!(found(&gone, "s-gone"), None, "no such directory");

    let session = transcript_for(&home, &trusted, "s-trusted");
    let project = session.ancestors().nth(3).unwrap();
    std::fs::write(
        project.join(".workspace-trusted"),
        serde_json::json!({"trustedAt": "2026-08-02T02:06:46.038Z",
            "workspacePath": trusted, "trustMethod": "cli-flag"})
        .to_string(),
    )
    .unwrap();
    assert_eq!(cwd_of(&session), Some(trusted.to_string_lossy().into()));

    let output = env.run_in(
        &plain,
        [
            "sessions".as_ref(),
            "list".as_ref(),
            "--json".as_ref(),
            "--cursor-dir".as_ref(),
            home.as_os_str(),
        ],
    );
    let listed: Value = serde_json::from_str(&output.success().stdout).unwrap();
    let ids: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["s-plain"], "{listed}");
}

/// A FIFO in place of `.workspace-trusted` is no trust file: the reader does not block on it
/// and finds the cwd by the walk instead.
#[test]
fn a_fifo_in_place_of_the_trust_file_does_not_hold_the_reader_up() {
    let env = TestEnv::new();
    let home = env.work().join("cursor-home");
    let cwd = env.work().join("code/fifo-trust");
    std::fs::create_dir_all(&cwd).unwrap();
    let session = transcript_for(&home, &cwd, "s-fifo");
    let trust = session
        .ancestors()
        .nth(3)
        .unwrap()
        .join(".workspace-trusted");
    let c = std::ffi::CString::new(trust.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let dir = home.to_string_lossy();
    let cmd = common::recall::spawnable(
        &env,
        &["sessions", "list", "--all", "--json", "--cursor-dir", &dir],
    );
    let (code, stdout) = common::recall::run_within(cmd, Duration::from_secs(30));
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&stdout));
    let listed: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(listed["sessions"][0]["session_id"], "s-fifo", "{listed}");
    assert_eq!(
        listed["sessions"][0]["cwd"],
        cwd.to_string_lossy().as_ref(),
        "{listed}"
    );
}
