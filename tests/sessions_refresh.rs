//! The index follows the session files: appends, rewrites, deletions and torn last lines,
//! with the projection recomputed on every append.

use crate::common;

use std::io::Write;

use common::recall::{hits, project_dir, read_hit, search_all, session_id, write_pi_session};
use common::session::SessionBuilder;
use common::TestEnv;
use serde_json::Value;

fn session(n: u32, cwd: &std::path::Path) -> SessionBuilder {
    SessionBuilder::with_id(&session_id(n)).cwd(&cwd.to_string_lossy())
}

fn index(env: &TestEnv) -> Value {
    let output = env
        .cmd()
        .args(["sessions", "index", "--json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn append(path: &std::path::Path, text: &str) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

#[test]
fn an_appended_event_is_found_and_nothing_is_indexed_twice() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("first mention of the lighthouse");
    let path = write_pi_session(&env, &project, &s);
    assert_eq!(index(&env)["events"], 1);
    let before = std::fs::read_to_string(&path).unwrap();
    s.assistant("second lighthouse mention");
    let after = s.text();
    append(&path, &after[before.len()..]);

    let result = search_all(&env, &["lighthouse", "--hits", "10"]);
    assert_eq!(hits(&result), vec![(session_id(1), 2), (session_id(1), 1)]);
    let counts = index(&env);
    assert_eq!(counts["events"], 2);
    assert_eq!(counts["sessions"], 1);
}

#[test]
fn an_appended_result_pairs_with_its_indexed_call() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("list the files");
    s.assistant_with_calls("", &[("c1", "ls", r#"{"path":"."}"#)]);
    let path = write_pi_session(&env, &project, &s);
    index(&env);
    let before = s.text();
    s.tool_result("c1", "ls", "marmoset.txt", false);
    append(&path, &s.text()[before.len()..]);

    let result = search_all(&env, &["marmoset"]);
    // The output is found in the call's event (seq 3), not as a result of its own (seq 4).
    assert_eq!(hits(&result), vec![(session_id(1), 3)], "{result}");
    assert!(read_hit(&env, &session_id(1), 3, None).contains("marmoset.txt"));
}

#[test]
fn an_append_that_moves_the_default_branch_abandons_the_old_one() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    let root = s.user("the question");
    s.assistant("first answer about a gondola");
    let path = write_pi_session(&env, &project, &s);
    assert_eq!(hits(&search_all(&env, &["gondola"])).len(), 1);
    let before = s.text();
    s.branch_from(&root);
    s.assistant("second answer about a canoe");
    append(&path, &s.text()[before.len()..]);

    assert!(hits(&search_all(&env, &["gondola"])).is_empty());
    let all = search_all(&env, &["gondola", "--branches", "all"]);
    let hit = &all["sessions"][0]["hits"][0];
    assert_eq!(hit["on_branch"], false);
    assert!(hit["leaf_id"].is_string());
    assert_eq!(
        hits(&search_all(&env, &["canoe"])),
        vec![(session_id(1), 3)]
    );
}

#[test]
fn a_torn_last_line_waits_until_it_is_complete() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("stable text");
    let path = write_pi_session(&env, &project, &s);
    let before = s.text();
    s.user("the pangolin arrives");
    let line = &s.text()[before.len()..];
    let cut = line.len() / 2;
    append(&path, &line[..line.len() - cut - 1]);
    assert!(hits(&search_all(&env, &["stable"])).len() == 1);
    // Half a line: not indexed, and the search does not fail.
    let (torn, code) = common::recall::json_in(
        &env,
        &env.work(),
        &["sessions", "search", "--all", "pangolin"],
    );
    assert_eq!(code, 1, "{torn}");
    append(&path, &line[line.len() - cut - 1..]);
    assert_eq!(
        hits(&search_all(&env, &["pangolin"])),
        vec![(session_id(1), 2)]
    );
    assert_eq!(index(&env)["events"], 2);
}

#[test]
fn a_rewritten_file_is_indexed_afresh() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the original ocelot text");
    s.user("more original text");
    let path = write_pi_session(&env, &project, &s);
    assert_eq!(hits(&search_all(&env, &["ocelot"])).len(), 1);
    // Rewritten in place with other words (Pi migrates old files this way).
    let mut other = session(1, &project);
    other.user("the replaced jaguar text");
    other.user("more replaced  text");
    std::fs::write(&path, other.text()).unwrap();
    assert!(hits(&search_all(&env, &["ocelot"])).is_empty());
    assert_eq!(
        hits(&search_all(&env, &["jaguar"])),
        vec![(session_id(1), 1)]
    );
    // Shrunk to less than what was indexed.
    let mut short = session(1, &project);
    short.user("tapir");
    std::fs::write(&path, short.text()).unwrap();
    assert!(hits(&search_all(&env, &["jaguar"])).is_empty());
    assert_eq!(hits(&search_all(&env, &["tapir"])).len(), 1);
    assert_eq!(index(&env)["events"], 1);
}

#[test]
fn a_deleted_file_leaves_the_index() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut a = session(1, &project);
    a.user("the ibis");
    let path = write_pi_session(&env, &project, &a);
    let mut b = session(2, &project);
    b.user("the ibis too");
    write_pi_session(&env, &project, &b);
    assert_eq!(search_all(&env, &["ibis"])["indexed_sessions"], 2);
    std::fs::remove_file(&path).unwrap();
    let result = search_all(&env, &["ibis"]);
    assert_eq!(hits(&result), vec![(session_id(2), 1)]);
    assert_eq!(result["indexed_sessions"], 1);
}

#[test]
fn rebuild_starts_from_nothing_and_finds_the_same() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the quokka");
    write_pi_session(&env, &project, &s);
    let first = index(&env);
    let output = env
        .cmd()
        .args(["sessions", "index", "--rebuild", "--json"])
        .output()
        .unwrap();
    let rebuilt: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(first["sessions"], rebuilt["sessions"]);
    assert_eq!(first["events"], rebuilt["events"]);
    assert_eq!(rebuilt["unreadable"], 0);
    assert!(rebuilt["seconds"].is_number());
    assert_eq!(hits(&search_all(&env, &["quokka"])).len(), 1);
}

/// `sessions search --all QUERY --json` with `PI_CONTEXT_SETTLE_MS` set: how long a session
/// file must be left alone before recall trusts its stamp and indexes an unterminated last line.
fn search_settling(env: &TestEnv, settle_ms: u64, query: &str) -> (Value, i32) {
    let output = env
        .cmd()
        .env("PI_CONTEXT_SETTLE_MS", settle_ms.to_string())
        .args([
            "sessions", "search", "--all", "--json", "--hits", "10", query,
        ])
        .output()
        .unwrap();
    let code = output.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "search failed with {code}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (serde_json::from_slice(&output.stdout).unwrap(), code)
}

/// Puts the file's modification time back to `mtime` (its change time moves all the same).
fn set_mtime(path: &std::path::Path, mtime: std::time::SystemTime) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_modified(mtime).unwrap();
}

#[test]
fn a_same_size_rewrite_in_place_with_the_old_mtime_is_indexed_again() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the old walrus sleeps");
    let path = write_pi_session(&env, &project, &s);
    let old = std::fs::read(&path).unwrap();
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    // Settling 0: the stamp alone must tell the rewrite (no racily-clean recheck).
    assert_eq!(search_settling(&env, 0, "walrus").1, 0);

    let text = String::from_utf8(old.clone())
        .unwrap()
        .replace("walrus", "beaver");
    assert_eq!(text.len(), old.len());
    let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
    drop(file);
    set_mtime(&path, mtime);
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(
        (meta.len(), meta.modified().unwrap()),
        (old.len() as u64, mtime)
    );

    let (found, code) = search_settling(&env, 0, "beaver");
    assert_eq!(code, 0, "{found}");
    assert_eq!(hits(&found), vec![(session_id(1), 1)]);
    assert_eq!(search_settling(&env, 0, "walrus").1, 1);
}

#[test]
fn a_racily_clean_file_rechecked_on_each_refresh_keeps_its_events_once() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the old marten sleeps");
    let path = write_pi_session(&env, &project, &s);
    // A long settling time: the file just written is racily clean, its content is recorded.
    assert_eq!(search_settling(&env, 600_000, "marten").1, 0);
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("marten", "weasel");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    assert_eq!(
        hits(&search_settling(&env, 600_000, "weasel").0),
        vec![(session_id(1), 1)]
    );
    assert_eq!(search_settling(&env, 600_000, "marten").1, 1);
    // Unchanged and still racy: rechecked, the same answer.
    assert_eq!(search_settling(&env, 600_000, "weasel").1, 0);
    assert_eq!(index(&env)["events"], 1);
}

#[test]
fn a_settled_last_line_without_newline_is_indexed_like_history_reads_it() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("stable text");
    s.user("the unterminated axolotl");
    let full = s.text();
    let path = write_pi_session(&env, &project, &s);
    std::fs::write(&path, full.trim_end_matches('\n')).unwrap();

    // Just written: Pi may be writing it, so it waits (a long settling time).
    assert_eq!(search_settling(&env, 600_000, "axolotl").1, 1);
    // Settled: indexed, as `history` already reads it.
    let (found, code) = search_settling(&env, 0, "axolotl");
    assert_eq!(code, 0, "{found}");
    assert_eq!(hits(&found), vec![(session_id(1), 2)]);
    assert!(read_hit(&env, &session_id(1), 2, None).contains("axolotl"));

    // The newline arrives, then another line: each event once, none lost.
    append(&path, "\n");
    assert_eq!(
        hits(&search_settling(&env, 0, "axolotl").0),
        vec![(session_id(1), 2)]
    );
    let before = s.text();
    s.assistant("an axolotl answer");
    append(&path, &s.text()[before.len()..]);
    let (all, _) = search_settling(&env, 0, "axolotl");
    assert_eq!(hits(&all), vec![(session_id(1), 2), (session_id(1), 3)]);
    let (stable, _) = search_settling(&env, 0, "stable");
    assert_eq!(hits(&stable), vec![(session_id(1), 1)]);
    assert_eq!(index(&env)["events"], 3);
}

#[test]
fn a_settled_last_line_followed_by_more_lines_in_one_append_is_indexed_once() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the unterminated capybara");
    let path = write_pi_session(&env, &project, &s);
    let full = s.text();
    std::fs::write(&path, full.trim_end_matches('\n')).unwrap();
    assert_eq!(search_settling(&env, 0, "capybara").1, 0);
    let before = s.text();
    s.assistant("a capybara reply");
    s.user("a capybara question");
    append(&path, &format!("\n{}", &s.text()[before.len()..]));
    let (all, _) = search_settling(&env, 0, "capybara");
    assert_eq!(
        hits(&all),
        vec![(session_id(1), 3), (session_id(1), 1), (session_id(1), 2)]
    );
    assert_eq!(index(&env)["events"], 3);
}

#[test]
fn a_twenty_megabyte_tool_output_line_is_indexed_and_found() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("dump the big log");
    s.assistant_with_calls("", &[("c1", "bash", r#"{"command":"cat big.log"}"#)]);
    let mut output = String::from("firstmarker\n");
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
    let mut i = 0;
    while output.len() < 20 << 20 {
        // Escapes too: the output is decoded where it lies.
        output.push_str(&format!("{}{} \"q\"\t", words[i % words.len()], i % 500));
        if i == 1_000_000 {
            output.push_str("middlemarker é ");
        }
        i += 1;
    }
    output.push_str("\nlastmarker");
    s.tool_result("c1", "bash", &output, false);
    write_pi_session(&env, &project, &s);

    assert_eq!(index(&env)["events"], 3);
    for word in ["firstmarker", "middlemarker", "lastmarker", "charlie8"] {
        let result = search_all(&env, &[word]);
        // The call's event (seq 3), with its output.
        assert_eq!(hits(&result), vec![(session_id(1), 3)], "{word}");
        let content = result["sessions"][0]["hits"][0]["content"]
            .as_str()
            .unwrap();
        assert!(content.contains(word), "{word}: {content}");
    }
}
