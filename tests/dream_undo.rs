//! `dream undo [STAMP] [--force]`: one dream's changes reverted as a new commit; a note changed
//! again after the dream is refused by name, or with --force kept in both versions; the dream
//! lock keeps a dream from running meanwhile.

use crate::common;

use std::fs;
use std::path::Path;

use common::dream::*;
use common::{CommandOutput, TestEnv};
use serde_json::Value;

fn notes(env: &TestEnv, args: &[&str]) -> CommandOutput {
    env.cmd()
        .env("PI_CONTEXT_SESSION_ID", "s1")
        .arg("notes")
        .args(args)
        .run()
}

fn body(home: &Path, rel: &str) -> String {
    let text = fs::read_to_string(home.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    text.splitn(3, "---\n")
        .nth(2)
        .map(|b| b.trim_start_matches('\n').to_string())
        .unwrap_or(text)
}

/// A store with notes written through the CLI, then a dream that rewrote `@human/prefs` and
/// created `@human/insight`.
fn dreamed(env: &TestEnv) {
    for (address, content) in [("@human/prefs", "baseline prefs"), ("@human/keep", "kept")] {
        let _ = notes(env, &["write", address, "--content", content]).success();
    }
    let events: Vec<String> = ev_write("c1", "human/prefs.md", "dreamer prefs")
        .into_iter()
        .chain(ev_write("c2", "human/insight.md", "dreamer insight"))
        .chain([ev_text("done"), EV_END.to_string()])
        .collect();
    let script = format!(
        "printf 'dreamer prefs' > human/prefs.md\nprintf 'dreamer insight' > human/insight.md\n{}",
        emit(&events)
    );
    let pi = FakePi::new(&env.work(), "pi-dreamer", &script);
    let _ = forced_dream(env, &pi.path).run().success();
    assert_eq!(body(&env.notes_home(), "human/prefs.md"), "dreamer prefs");
}

fn undo(env: &TestEnv, args: &[&str]) -> CommandOutput {
    let mut cmd = dream_cmd(env);
    cmd.arg("undo").args(args);
    cmd.run()
}

fn undo_json(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    undo(env, &all).success().json()
}

#[test]
fn undo_reverts_the_last_dreams_changes_as_a_new_commit_and_keeps_its_report() {
    let env = TestEnv::new();
    let home = env.notes_home();
    dreamed(&env);
    let dream_commit = git_log(&home)[0].id.clone();
    let last_run = home.join(".dream.lock.last-run");
    set_mtime(&last_run, hours_before_now(30));
    let out = undo_json(&env, &[]);
    assert_eq!(out["stamp"], STAMP);
    assert_eq!(out["dream_commit"], dream_commit.as_str());
    let mut actions: Vec<String> = out["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{} {}",
                p["action"].as_str().unwrap(),
                p["address"].as_str().unwrap()
            )
        })
        .collect();
    actions.sort();
    assert_eq!(
        actions,
        ["reverted @human/insight.md", "reverted @human/prefs.md"]
    );
    assert_eq!(body(&home, "human/prefs.md"), "baseline prefs");
    assert!(!home.join("human/insight.md").exists());
    assert_eq!(body(&home, "human/keep.md"), "kept");
    assert!(report_path(&home).exists(), "the report stays");
    let log = git_log(&home);
    assert_eq!(
        log[0].summary.lines().next(),
        Some(format!("undo dream {STAMP}").as_str())
    );
    assert!(log[0].summary.contains(&format!("Reverts: {dream_commit}")));
    assert_eq!(out["commit"], log[0].id.as_str());
    assert_eq!(head_file(&home, "human/insight.md"), None);
    assert!(head_file(&home, "human/prefs.md")
        .unwrap()
        .ends_with("baseline prefs"));
    assert!(!home.join(".dream.lock").exists(), "the lock is released");
    assert_eq!(
        mtime(&last_run),
        hours_before_now(30),
        "an undo is not a dream run: the time gate is untouched"
    );

    // Once only.
    let again = undo(&env, &[]).expect_code(1);
    assert!(again.stderr.contains("already undone"), "{}", again.stderr);
}

#[test]
fn a_note_changed_after_the_dream_is_refused_by_name_unless_forced() {
    let env = TestEnv::new();
    let home = env.notes_home();
    dreamed(&env);
    assert_exit(
        &notes(
            &env,
            &[
                "edit",
                "@human/prefs",
                "--old",
                "dreamer",
                "--new",
                "human-edited",
            ],
        ),
        0,
    );
    let before = snapshot(&home);
    // Only the changed note is named, and --force is offered.
    insta::assert_snapshot!(undo(&env, &[STAMP]).expect_code(1));
    assert_same_tree(&before, &snapshot(&home));

    let out = undo_json(&env, &[STAMP, "--force"]);
    let prefs = fs::read_to_string(home.join("human/prefs.md")).unwrap();
    assert!(
        prefs.starts_with(&format!("<<<<<<< now (changed after dream {STAMP})\n")),
        "{prefs}"
    );
    assert!(prefs.contains("human-edited prefs\n=======\n"), "{prefs}");
    assert!(prefs.contains("baseline prefs\n"), "{prefs}");
    assert!(
        prefs.ends_with(&format!(">>>>>>> before dream {STAMP}\n")),
        "{prefs}"
    );
    assert!(
        !home.join("human/insight.md").exists(),
        "the untouched change is reverted"
    );
    let actions: Vec<&str> = out["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["action"].as_str().unwrap())
        .collect();
    assert!(actions.contains(&"both_kept"), "{out}");
}

#[test]
fn a_note_the_dream_created_and_someone_edited_since_stays_when_forced() {
    let env = TestEnv::new();
    let home = env.notes_home();
    dreamed(&env);
    assert_exit(
        &notes(
            &env,
            &[
                "edit",
                "@human/insight",
                "--old",
                "dreamer",
                "--new",
                "confirmed",
            ],
        ),
        0,
    );
    assert_exit(&undo(&env, &[]), 1);
    let out = undo_json(&env, &["--force"]);
    assert_eq!(body(&home, "human/insight.md"), "confirmed insight");
    assert_eq!(body(&home, "human/prefs.md"), "baseline prefs");
    assert!(out["paths"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["action"] == "later_kept"));
}

#[test]
fn undo_waits_for_no_dream_and_names_what_it_cannot_find() {
    let env = TestEnv::new();
    let home = env.notes_home();
    let mut shown = undo(&env, &[]).expect_code(1).to_string();
    dreamed(&env);
    shown += &undo(&env, &["2020-01-01T00-00-00-000Z"])
        .expect_code(1)
        .to_string();

    fs::write(
        home.join(".dream.lock"),
        "12345 0f0e0d0c-0000-4000-8000-000000000000",
    )
    .unwrap();
    let before = snapshot(&home);
    shown += &undo(&env, &[]).expect_code(75).to_string();
    assert_same_tree(&before, &snapshot(&home));
    fs::remove_file(home.join(".dream.lock")).unwrap();
    shown += &undo(&env, &[]).expect_code(0).to_string();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\(commit [0-9a-f]{7,40}\)", "(commit [COMMIT])");
    settings.bind(|| insta::assert_snapshot!(shown));
}

#[test]
fn log_diff_and_restore_see_through_a_dreams_commits() {
    let env = TestEnv::new();
    let home = env.notes_home();
    dreamed(&env);

    // The log names the dream's commits among the agents' ones, newest first.
    let log = notes(&env, &["log", "--json"]).expect_code(0);
    let log = log.json();
    let summaries: Vec<&str> = log["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["summary"].as_str().unwrap())
        .collect();
    assert_eq!(summaries[0], format!("dream {STAMP}"));
    assert!(
        summaries.contains(&"write @human/prefs.md"),
        "{summaries:?}"
    );

    // One note's log: its write, then the dream that rewrote it.
    let prefs = notes(&env, &["log", "@human/prefs", "--json"]);
    let prefs = prefs.json();
    let prefs: Vec<&str> = prefs["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["summary"].as_str().unwrap())
        .collect();
    assert_eq!(
        prefs,
        [format!("dream {STAMP}").as_str(), "write @human/prefs.md"]
    );

    // The diff of its last change is the dream's.
    let diff = notes(&env, &["diff", "@human/prefs"]).expect_code(0);
    let diff = diff.stdout.clone();
    assert!(diff.contains("-baseline prefs"), "{diff}");
    assert!(diff.contains("+dreamer prefs"), "{diff}");

    // Restoring the version before the dream is a new commit on top of it.
    let _ = notes(
        &env,
        &["restore", "@human/prefs", "--rev", "HEAD~1", "--json"],
    )
    .expect_code(0);
    assert_eq!(body(&home, "human/prefs.md"), "baseline prefs");
    let after = git_log(&home);
    assert_eq!(
        after[0].summary.lines().next(),
        Some("restore @human/prefs.md")
    );
    assert_eq!(
        after[1].summary.lines().next(),
        Some(format!("dream {STAMP}").as_str())
    );
}
