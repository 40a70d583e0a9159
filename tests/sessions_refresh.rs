//! The index follows the session files: appends, rewrites, deletions and torn last lines,
//! with the projection recomputed on every append.

mod common;

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
