//! `pi-context sessions list` and naming a session by its id for `history`.

use crate::common;

use common::recall::{ids, json_in, project_dir, session_id, write_pi_session};
use common::session::SessionBuilder;
use common::{Run, TestEnv};

fn session(n: u32, cwd: &std::path::Path) -> SessionBuilder {
    SessionBuilder::with_id(&session_id(n)).cwd(&cwd.to_string_lossy())
}

#[test]
fn list_shows_sessions_most_recently_updated_first() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    let beta = project_dir(&env, "beta");
    let mut old = session(1, &alpha).time_offset(-86_400);
    old.user(&format!("an old question {}", "é".repeat(300)));
    old.entry("session_info", serde_json::json!({"name": "Old work"}));
    let old_path = write_pi_session(&env, &alpha, &old);
    let mut new = session(2, &alpha);
    new.user("a new question");
    new.assistant("an answer");
    write_pi_session(&env, &alpha, &new);
    let mut other = session(3, &beta);
    other.user("elsewhere");
    write_pi_session(&env, &beta, &other);

    let (list, code) = json_in(&env, &alpha, &["sessions", "list"]);
    assert_eq!(code, 0);
    assert_eq!(ids(&list), vec![session_id(2), session_id(1)]);
    assert_eq!(list["more"], 0);
    let first = &list["sessions"][1];
    assert_eq!(first["name"], "Old work");
    assert_eq!(first["session_file"], old_path.to_str().unwrap());
    assert_eq!(first["cwd"], alpha.to_str().unwrap());
    assert_eq!(first["entries"], 2);
    assert_eq!(first["bytes"], std::fs::metadata(&old_path).unwrap().len());
    assert_eq!(first["created_at"], "2026-02-28T09:00:00.000Z");
    assert_eq!(first["updated_at"], "2026-02-28T09:00:02.000Z");
    let preview = first["first_user_preview"].as_str().unwrap();
    assert_eq!(preview.chars().count(), 200);
    assert!(preview.starts_with("an old question é"));
    assert!(list["sessions"][0]["name"].is_null());

    let (all, _) = json_in(&env, &alpha, &["sessions", "list", "--all", "--limit", "2"]);
    assert_eq!(ids(&all), vec![session_id(2), session_id(3)]);
    assert_eq!(all["more"], 1);
    let (recent, _) = json_in(&env, &alpha, &["sessions", "list", "--since", "12h"]);
    assert_eq!(ids(&recent), vec![session_id(2)]);
}

#[test]
fn sessions_dir_flags_and_the_environment_name_the_roots() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    let custom = env.work().join("custom");
    std::fs::create_dir_all(&custom).unwrap();
    let mut flat = session(7, &alpha);
    flat.user("kept flat in a custom dir");
    flat.write_to(custom.join("flat.jsonl"));
    let mut default = session(8, &alpha);
    default.user("in the default dir");
    write_pi_session(&env, &alpha, &default);

    let (only_custom, _) = json_in(
        &env,
        &alpha,
        &[
            "sessions",
            "list",
            "--sessions-dir",
            custom.to_str().unwrap(),
        ],
    );
    assert_eq!(ids(&only_custom), vec![session_id(7)]);
    let output = env
        .cmd()
        .current_dir(&alpha)
        .env("PI_CODING_AGENT_SESSION_DIR", &custom)
        .args(["sessions", "list", "--json"])
        .run();
    let both: serde_json::Value = output.json();
    let mut found = ids(&both);
    found.sort();
    assert_eq!(found, vec![session_id(7), session_id(8)]);
}

#[test]
fn history_session_takes_an_id_or_a_unique_prefix() {
    let env = TestEnv::new();
    let alpha = project_dir(&env, "alpha");
    let mut a = session(1, &alpha);
    a.user("text of the first session");
    write_pi_session(&env, &alpha, &a);
    let mut b = session(2, &alpha);
    b.user("text of the second session");
    write_pi_session(&env, &alpha, &b);

    let read = |id: &str| {
        env.cmd()
            .args(["history", "read", "1", "--json", "--session", id])
            .run()
    };
    let full = read(&session_id(2)).success();
    assert!(full.stdout.contains("second session"));
    let prefix = read(&session_id(1)[..14]);
    assert!(prefix.stdout.contains("first session"));
    // Both ids start with 0192aaaa: ambiguous, with the candidates listed.
    let ambiguous = read("0192aaaa").expect_code(2);
    let unknown = read("ffffffff-none").expect_code(2);
    insta::assert_snapshot!(format!("{ambiguous}{unknown}"));
    // A short name, or one with a slash, is a (missing) file: an empty session.
    let _ = env
        .cmd()
        .args(["history", "list", "--json", "--session", "nofile"])
        .run()
        .success();
}
