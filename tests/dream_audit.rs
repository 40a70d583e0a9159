//! The post-run audit against a dreamer whose writes slipped past the jail (fake `pi` scripts
//! that write directly and report their calls in Pi's event stream) and live agents writing
//! notes through `pi-context` during the dream: what is put back, what is kept, and what is
//! reported. Also the repository checks: a `.git` that is not the home's own, a merge in
//! progress, a detached HEAD.

use crate::common;

use std::fs;
use std::path::Path;

use common::dream::*;
use common::TestEnv;
use serde_json::{json, Value};

fn run_json(env: &TestEnv, pi: &FakePi) -> (common::CommandOutput, Value) {
    let output = dream_cmd(env)
        .args(["--force", "--json", "--pi"])
        .arg(&pi.path)
        .run();
    let out = output.json();
    (output, out)
}

fn read(home: &Path, rel: &str) -> String {
    fs::read_to_string(home.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// The body of a note file (after its frontmatter).
fn body(home: &Path, rel: &str) -> String {
    let text = read(home, rel);
    text.splitn(3, "---\n")
        .nth(2)
        .map(|b| b.trim_start_matches('\n').to_string())
        .unwrap_or(text)
}

#[test]
fn a_refused_write_undoes_nothing_a_live_agent_wrote() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "pi/session/s1/plan.md", "baseline plan\n");
    // The jail refused the dreamer's write to plan.md; meanwhile a live agent rewrote it and
    // created another session note.
    let events: Vec<String> = ev_call(
        "c1",
        "write",
        json!({"path": "pi/session/s1/plan.md", "content": "dreamer plan"}),
        Some("write jail: pi/session/s1/plan.md is read-only to the dreamer"),
    )
    .into_iter()
    .chain([ev_text("done"), EV_END.to_string()])
    .collect();
    let body_sh = format!(
        "{}\n{}\n{}",
        live_agent("s1", "notes write plan --content 'live plan'"),
        live_agent(
            "s1",
            "notes write fresh --content 'created during the dream'"
        ),
        emit(&events)
    );
    let pi = FakePi::new(&env.work(), "pi-refused", &body_sh);
    let (output, out) = run_json(&env, &pi);
    let _ = output.expect_code(0);
    assert_eq!(body(&home, "pi/session/s1/plan.md"), "live plan");
    assert_eq!(
        body(&home, "pi/session/s1/fresh.md"),
        "created during the dream"
    );
    assert_eq!(violations(&out), ["refused: pi/session/s1/plan.md"]);
    assert_eq!(out["conflicts"], json!([]));
    let committed = head_file(&home, "pi/session/s1/plan.md").unwrap();
    assert!(committed.ends_with("live plan"), "{committed}");
}

#[test]
fn a_live_write_after_the_dreamers_out_of_scope_write_is_kept_with_both_versions() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "pi/session/s1/plan.md", "baseline plan\n");
    let events: Vec<String> = ev_write("c1", "pi/session/s1/plan.md", "dreamer plan")
        .into_iter()
        .chain([ev_text("done"), EV_END.to_string()])
        .collect();
    let body_sh = format!(
        "printf 'dreamer plan' > pi/session/s1/plan.md\n{}\n{}",
        live_agent("s1", "notes write plan --content 'live plan'"),
        emit(&events)
    );
    let pi = FakePi::new(&env.work(), "pi-then-live", &body_sh);
    let (output, out) = run_json(&env, &pi);
    let _ = output.expect_code(0);
    assert_eq!(body(&home, "pi/session/s1/plan.md"), "live plan");
    let copy = format!("dreams/{STAMP}.conflicts/pi/session/s1/plan.md");
    assert_eq!(read(&home, &copy), "dreamer plan");
    assert_eq!(
        out["conflicts"],
        json!([{"path": "pi/session/s1/plan.md", "kept": "live", "other": copy}])
    );
    assert_eq!(violations(&out), ["restored: pi/session/s1/plan.md"]);
    let report = fs::read_to_string(report_path(&home)).unwrap();
    assert!(report.contains("## Conflicts"), "{report}");
    assert!(report.contains(&copy), "{report}");
    assert_eq!(head_file(&home, &copy).as_deref(), Some("dreamer plan"));
}

#[test]
fn the_dreamers_out_of_scope_write_after_a_live_write_is_put_back_to_the_live_version() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "pi/session/s1/plan.md", "baseline plan\n");
    let events: Vec<String> = ev_write("c1", "pi/session/s1/plan.md", "dreamer plan")
        .into_iter()
        .chain([ev_text("done"), EV_END.to_string()])
        .collect();
    let body_sh = format!(
        "{}\nprintf 'dreamer plan' > pi/session/s1/plan.md\n{}",
        live_agent("s1", "notes write plan --content 'live plan'"),
        emit(&events)
    );
    let pi = FakePi::new(&env.work(), "pi-after-live", &body_sh);
    let (output, out) = run_json(&env, &pi);
    let _ = output.expect_code(0);
    assert_eq!(
        body(&home, "pi/session/s1/plan.md"),
        "live plan",
        "the live agent's write survives"
    );
    let copy = format!("dreams/{STAMP}.conflicts/pi/session/s1/plan.md");
    assert_eq!(read(&home, &copy), "dreamer plan");
    assert_eq!(violations(&out), ["restored: pi/session/s1/plan.md"]);
    assert_eq!(out["conflicts"][0]["kept"], "live");
    assert!(git_status(&home).is_empty(), "{:?}", git_status(&home));
}

#[test]
fn a_note_both_wrote_in_the_dreamers_own_home_keeps_the_last_and_sets_the_other_aside() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/prefs.md", "baseline\n");
    let events: Vec<String> = ev_write("c1", "human/prefs.md", "dreamer prefs")
        .into_iter()
        .chain([ev_text("done"), EV_END.to_string()])
        .collect();
    let body_sh = format!(
        "{}\nprintf 'dreamer prefs' > human/prefs.md\n{}",
        live_agent("s1", "notes write @human/prefs --content 'live prefs'"),
        emit(&events)
    );
    let pi = FakePi::new(&env.work(), "pi-both", &body_sh);
    let (output, out) = run_json(&env, &pi);
    let _ = output.expect_code(0);
    assert_eq!(read(&home, "human/prefs.md"), "dreamer prefs");
    let copy = format!("dreams/{STAMP}.conflicts/human/prefs.md");
    assert!(
        read(&home, &copy).ends_with("live prefs"),
        "{}",
        read(&home, &copy)
    );
    assert_eq!(out["conflicts"][0]["kept"], "dreamer");
    assert_eq!(violations(&out), Vec::<String>::new());
}

#[test]
fn writes_spelled_every_way_pi_reads_a_path_are_put_back() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "pi/session/s1/a.md", "a\n");
    put(&home, "pi/session/s1/b.md", "b\n");
    put(&home, "pi/session/s1/c.md", "c\n");
    put(&home, "pi/session/s1/d e.md", "d\n");
    let url = format!("file://{}/pi/session/s1/a.md", home.display());
    let calls = [
        ("c1", url.as_str(), "pi/session/s1/a.md"),
        ("c2", "human/../pi/session/s1/b.md", "pi/session/s1/b.md"),
        ("c3", "@pi/session/s1/c.md", "pi/session/s1/c.md"),
        ("c4", "pi/session/s1/d\u{00A0}e.md", "pi/session/s1/d e.md"),
    ];
    let mut events = Vec::new();
    let mut script = String::new();
    for (id, spelled, real) in calls {
        events.extend(ev_write(id, spelled, "tampered"));
        script.push_str(&format!("printf tampered > {}\n", sh_quote_rel(real)));
    }
    events.extend([ev_text("done"), EV_END.to_string()]);
    script.push_str(&emit(&events));
    let pi = FakePi::new(&env.work(), "pi-spellings", &script);
    let (output, out) = run_json(&env, &pi);
    let _ = output.expect_code(0);
    for (name, was) in [("a", "a\n"), ("b", "b\n"), ("c", "c\n"), ("d e", "d\n")] {
        assert_eq!(
            read(&home, &format!("pi/session/s1/{name}.md")),
            was,
            "{name}"
        );
    }
    assert_eq!(
        violations(&out),
        [
            "restored: pi/session/s1/a.md",
            "restored: pi/session/s1/b.md",
            "restored: pi/session/s1/c.md",
            "restored: pi/session/s1/d e.md",
        ]
    );
}

fn sh_quote_rel(rel: &str) -> String {
    format!("'{}'", rel.replace('\'', r"'\''"))
}

#[test]
fn a_write_under_a_spelling_nobody_foresaw_is_found_by_its_content() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "pi/session/s1/a.md", "a\n");
    // The event names a path that resolves nowhere near the file that changed.
    let events: Vec<String> = ev_write("c1", "some/other/spelling.md", "exact tampered bytes")
        .into_iter()
        .chain([ev_text("done"), EV_END.to_string()])
        .collect();
    let script = format!(
        "printf 'exact tampered bytes' > pi/session/s1/a.md\n{}",
        emit(&events)
    );
    let pi = FakePi::new(&env.work(), "pi-unforeseen", &script);
    let (output, out) = run_json(&env, &pi);
    let _ = output.expect_code(0);
    assert_eq!(read(&home, "pi/session/s1/a.md"), "a\n");
    assert_eq!(violations(&out), ["restored: pi/session/s1/a.md"]);
}

#[test]
fn git_metadata_and_the_last_run_file_are_put_back() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/a.md", "a\n");
    // A first dream makes the repository.
    let first = FakePi::done(&env.root().join("first"), "first");
    assert_exit(
        &forced_dream(&env, &first.path)
            .env("PI_CONTEXT_NOW", "2026-02-27T09:00:00Z")
            .run(),
        0,
    );
    let config_before = read(&home, ".git/config");
    let last_run = home.join(".dream.lock.last-run");
    let mut events = Vec::new();
    for (id, path) in [
        ("c1", ".git/config"),
        ("c2", ".git/hooks/pre-commit"),
        ("c3", ".dream.lock.last-run"),
    ] {
        events.extend(ev_write(id, path, "x"));
    }
    events.extend([ev_text("done"), EV_END.to_string()]);
    let script = format!(
        "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned-by-dream\\n' >> .git/config\n\
         printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .git/hooks/pre-commit\n\
         chmod +x .git/hooks/pre-commit\n\
         printf forged > .dream.lock.last-run\n{}",
        emit(&events)
    );
    let pi = FakePi::new(&env.work(), "pi-git", &script);
    let (output, out) = run_json(&env, &pi);
    let _ = output.expect_code(0);
    assert_eq!(read(&home, ".git/config"), config_before);
    assert!(!home.join(".git/hooks/pre-commit").exists());
    // The run succeeded, so the last-run time is this run's start again.
    assert_eq!(mtime(&last_run), fixed_now());
    assert_ne!(read(&home, ".dream.lock.last-run"), "forged");
    let v = violations(&out);
    for path in [
        ".git/config",
        ".git/hooks/pre-commit",
        ".dream.lock.last-run",
    ] {
        assert!(v.contains(&format!("restored: {path}")), "{path}: {v:?}");
    }
}

#[test]
fn a_root_gitignore_hides_nothing_from_the_audit_or_the_commits() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, ".gitignore", "pi/\nhuman/\n");
    put(&home, "pi/session/s1/a.md", "a\n");
    let events: Vec<String> = ev_write("c1", "pi/session/s1/a.md", "tampered")
        .into_iter()
        .chain(ev_write("c2", "human/new.md", "new"))
        .chain([ev_text("done"), EV_END.to_string()])
        .collect();
    let script = format!(
        "printf tampered > pi/session/s1/a.md\nmkdir -p human && printf new > human/new.md\n{}",
        emit(&events)
    );
    let pi = FakePi::new(&env.work(), "pi-ignored", &script);
    let (output, out) = run_json(&env, &pi);
    let _ = output.expect_code(0);
    assert_eq!(read(&home, "pi/session/s1/a.md"), "a\n");
    assert_eq!(violations(&out), ["restored: pi/session/s1/a.md"]);
    // Ignored or not, notes are in the audit trail.
    assert_eq!(
        head_file(&home, "pi/session/s1/a.md").as_deref(),
        Some("a\n")
    );
    assert_eq!(head_file(&home, "human/new.md").as_deref(), Some("new"));
    assert_eq!(
        out["changes"],
        json!([{"kind": "added", "path": "human/new.md"}])
    );
}

#[test]
fn a_write_outside_the_home_is_reported_and_fails_the_dream() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/a.md", "a\n");
    let outside = env.root().join("outside.txt");
    let events: Vec<String> = ev_write("c1", &outside.display().to_string(), "escaped")
        .into_iter()
        .chain(ev_write("c2", "../outside.txt", "escaped"))
        .chain([ev_text("done"), EV_END.to_string()])
        .collect();
    let script = format!("printf escaped > ../outside.txt\n{}", emit(&events));
    let pi = FakePi::new(&env.work(), "pi-outside", &script);
    let (output, out) = run_json(&env, &pi);
    let _ = output.expect_code(1);
    assert_eq!(out["status"], "failed");
    let v = violations(&out);
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(
        v.iter()
            .all(|l| l.starts_with("outside: ") && l.ends_with("outside.txt")),
        "{v:?}"
    );
    assert!(out["error"]
        .as_str()
        .unwrap()
        .contains("outside the notes home"));
    assert_eq!(git_subjects(&home)[0], format!("dream {STAMP} (failed)"));
}

/// A repository elsewhere, with one committed file, and a snapshot of it.
fn other_repository(env: &TestEnv) -> std::path::PathBuf {
    let other = env.root().join("other");
    put(&other, "precious.txt", "do not delete\n");
    let repo = git2::Repository::init(&other).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("precious.txt")).unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "init", &tree, &[])
        .unwrap();
    other
}

#[test]
fn a_dot_git_that_is_a_link_or_a_gitfile_is_refused_and_the_other_repository_untouched() {
    for kind in ["symlink", "gitfile"] {
        let env = TestEnv::new();
        let home = env.notes_home();
        put(&home, "human/a.md", "a\n");
        let other = other_repository(&env);
        match kind {
            "symlink" => std::os::unix::fs::symlink(other.join(".git"), home.join(".git")).unwrap(),
            _ => {
                put(
                    &home,
                    ".git",
                    &format!("gitdir: {}\n", other.join(".git").display()),
                );
            }
        }
        let before = snapshot(&other);
        let pi = FakePi::done(&env.work(), "should not run");
        let output = forced_dream(&env, &pi.path).run();
        // The notes home's repository is unusable: an environment failure.
        let output = output.expect_code(74);
        assert!(!pi.ran(), "{kind}");
        let err = &output.stderr;
        assert!(err.contains(".git"), "{kind}: {err}");
        assert!(err.contains("hint:"), "{kind}: {err}");
        assert_same_tree(&before, &snapshot(&other));
        assert!(!home.join(".dream.lock").exists());
        assert!(!home.join(".dream.lock.last-run").exists());
    }
}

#[test]
fn a_merge_in_progress_and_a_detached_head_are_refused_with_a_hint() {
    for state in ["merge", "detached"] {
        let env = TestEnv::new();
        let home = env.notes_home();
        put(&home, "human/a.md", "a\n");
        let first = FakePi::done(&env.root().join("first"), "first");
        assert_exit(
            &forced_dream(&env, &first.path)
                .env("PI_CONTEXT_NOW", "2026-02-27T09:00:00Z")
                .run(),
            0,
        );
        let repo = git2::Repository::open(&home).unwrap();
        let head = repo.head().unwrap().peel_to_commit().unwrap().id();
        match state {
            "merge" => {
                put(&home, ".git/MERGE_HEAD", &format!("{head}\n"));
                put(
                    &home,
                    "human/a.md",
                    "<<<<<<< HEAD\na\n=======\nb\n>>>>>>> other\n",
                );
            }
            _ => repo.set_head_detached(head).unwrap(),
        }
        let subjects = git_subjects(&home);
        let before = snapshot(&home);
        let pi = FakePi::done(&env.work(), "should not run");
        let output = forced_dream(&env, &pi.path).run().expect_code(74);
        assert!(!pi.ran(), "{state}");
        let err = &output.stderr;
        let expected = if state == "merge" {
            "merge --abort"
        } else {
            "switch"
        };
        assert!(err.contains(expected), "{state}: {err}");
        assert_eq!(git_subjects(&home), subjects, "{state}");
        assert_same_tree(&before, &snapshot(&home));
    }
}

#[test]
fn a_failed_dreamer_and_an_unwritable_report_are_both_reported() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "dreams", "a file where the reports should go\n");
    let pi = FakePi::new(&env.work(), "pi-crash", "echo 'boom: crashed' >&2\nexit 3");
    let output = dream_cmd(&env)
        .args(["--force", "--json", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(1);
    let out = output.json();
    let error = out["error"].as_str().unwrap();
    assert!(error.contains("boom: crashed"), "{error}");
    assert!(error.contains("cannot write the report"), "{error}");
    let output = forced_dream(&env, &pi.path).run();
    let err = &output.stderr;
    assert!(
        err.contains("boom: crashed") && err.contains("report"),
        "{err}"
    );
}
