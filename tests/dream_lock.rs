//! The dream lock, `--dry-run` and the two gates, with fake `pi` scripts (the dreamer's work does
//! not matter here, only whether it ran and what the run left behind).

use crate::common;

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::dream::*;
use common::pi::sh_quote;
use common::{CommandOutput, TestEnv};
use serde_json::Value;

/// A plain `std` command for `pi-context dream` (for runs spawned in the background).
fn spawn_dream(env: &TestEnv, pi: &Path) -> Child {
    std_dream_cmd(env)
        .arg("--force")
        .arg("--pi")
        .arg(pi)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dream")
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A dreamer that blocks until `<dir>/go` exists (then finishes), recording its pid first.
fn blocking_pi(dir: &Path) -> (FakePi, std::path::PathBuf, std::path::PathBuf) {
    let go = dir.join("go");
    let pid = dir.join("pi.pid");
    let pi = FakePi::new(
        dir,
        "pi-blocking",
        &format!(
            "echo $$ > {pid}\n\
             n=0\n\
             while [ ! -e {go} ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done\n\
             {done}",
            pid = sh_quote(&pid),
            go = sh_quote(&go),
            done = emit_done("slow dream done"),
        ),
    );
    (pi, go, pid)
}

#[test]
fn an_existing_lock_refuses_every_run_and_changes_nothing() {
    for (content, flags) in [
        ("999999 dead-owner", &["--force"][..]),
        ("", &["--force"][..]),
        ("not-a-pid", &["--min-sessions", "0"][..]),
        (
            "1 00000000-0000-0000-0000-000000000000",
            &["--force", "--json"][..],
        ),
    ] {
        let env = TestEnv::new();
        let home = env.notes_home();
        put(&home, "human/keep.md", "keep\n");
        let lock = put(&home, ".dream.lock", content);
        set_mtime(&lock, hours_before_now(48));
        let pi = FakePi::done(&env.work(), "should not run");
        let before = snapshot(&home);

        let output = dream_cmd(&env)
            .args(flags)
            .arg("--pi")
            .arg(&pi.path)
            .run()
            .expect_code(75);
        assert!(
            !pi.ran(),
            "the dreamer started despite the lock {content:?}"
        );
        assert_same_tree(&before, &snapshot(&home));
        assert_eq!(fs::read(&lock).unwrap(), content.as_bytes());
        if flags.contains(&"--json") {
            let out = output.json();
            assert_eq!(out["status"], "locked");
            assert_eq!(out["report"], Value::Null);
            assert_eq!(out["commits"], serde_json::json!([]));
        } else {
            let lines = output.lines();
            assert!(
                lines
                    .iter()
                    .all(|l| l.starts_with("time gate: ") || l.starts_with("material gate: ")),
                "{lines:?}"
            );
            let err = &output.stderr;
            assert!(err.starts_with("error: "), "{err}");
            assert!(err.contains(&lock.display().to_string()), "{err}");
            assert!(err.contains("hint: "), "{err}");
        }
    }
}

#[test]
fn two_concurrent_dreams_run_exactly_once() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/keep.md", "keep\n");
    let (pi, go, _) = blocking_pi(&env.work());
    let mut children: Vec<Child> = (0..4).map(|_| spawn_dream(&env, &pi.path)).collect();

    // The runs that did not get the lock give up at once; the one that did waits for `go`.
    let mut refused: Vec<CommandOutput> = Vec::new();
    wait_for("three runs to be refused", || {
        let mut i = 0;
        while i < children.len() {
            if children[i].try_wait().unwrap().is_some() {
                refused.push(env.wait_for("pi-context dream", children.remove(i)));
            } else {
                i += 1;
            }
        }
        refused.len() >= 3
    });
    assert_eq!(children.len(), 1, "exactly one run holds the lock");
    for output in &refused {
        assert_exit(output, 75);
        assert!(
            output.lines().iter().all(|l| !l.contains("dreams/")),
            "a refused run printed a report"
        );
    }
    assert!(home.join(".dream.lock").exists());
    fs::write(&go, "").unwrap();
    let winner = env
        .wait_for("pi-context dream", children.pop().unwrap())
        .expect_code(0);
    assert_eq!(
        winner.lines().last().map(Path::new),
        Some(report_path(&home).as_path())
    );
    assert_eq!(
        git_subjects(&home),
        [format!("dream {STAMP}"), format!("baseline {STAMP}")]
    );
    assert_eq!(fs::read_dir(home.join("dreams")).unwrap().count(), 1);
    assert!(!home.join(".dream.lock").exists());
    assert!(git_status(&home).is_empty());
}

#[test]
fn a_lock_left_by_a_killed_run_refuses_later_runs() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/keep.md", "keep\n");
    let (pi, _go, pid_file) = blocking_pi(&env.work());
    let mut run = spawn_dream(&env, &pi.path);
    wait_for("the dreamer to start", || {
        fs::read_to_string(&pid_file).is_ok_and(|p| p.ends_with('\n'))
    });
    // While the run lives it holds an advisory lock on the lock file (what `dream doctor` uses
    // to tell a live lock from a stale one).
    let lock = home.join(".dream.lock");
    let probe = fs::File::open(&lock).unwrap();
    assert!(
        probe.try_lock_shared().is_err(),
        "a running dream holds its lock file"
    );
    let dream_pid = run.id();
    run.kill().expect("SIGKILL the dream");
    run.wait().unwrap();
    // The orphaned fake dreamer is ours too: end it by its pid.
    let pi_pid = fs::read_to_string(&pid_file).unwrap().trim().to_string();
    let _ = Command::new("kill").args(["-KILL", &pi_pid]).status();

    let content = fs::read_to_string(&lock).expect("the killed run left its lock");
    // Nobody holds it any more: a stale lock.
    probe.try_lock_shared().expect("a dead run holds nothing");
    probe.unlock().unwrap();
    drop(probe);
    let (pid, token) = content.split_once(' ').expect("<pid> <uuid>");
    assert_eq!(pid, dream_pid.to_string());
    assert_eq!(token.len(), 36, "{content}");
    assert_eq!(git_subjects(&home), [format!("baseline {STAMP}")]);
    let before = snapshot(&home);

    let later = FakePi::done(&env.root().join("later"), "should not run");
    let output = dream_cmd(&env)
        .arg("--force")
        .arg("--pi")
        .arg(&later.path)
        .run()
        .expect_code(75);
    assert!(!later.ran());
    assert_same_tree(&before, &snapshot(&home));
    assert!(output.stderr.contains("rm "), "{}", output.stderr);

    // `dream doctor` tells the stale lock apart, and changes nothing either.
    let doctor = env.cmd().args(["dream", "doctor"]).run().expect_code(1);
    let report = doctor.stdout.clone();
    assert!(report.contains(".dream.lock: stale lock"), "{report}");
    assert_same_tree(&before, &snapshot(&home));
}

#[test]
fn dry_run_writes_nothing_at_all() {
    // A home that does not exist yet is not created.
    let env = TestEnv::new();
    let missing = env.root().join("no-such-home");
    let pi = FakePi::done(&env.work(), "should not run");
    let output = dream_cmd(&env)
        .arg("--notes-home")
        .arg(&missing)
        .args(["--dry-run", "--force", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(0);
    assert!(!missing.exists());
    // The two gates and the plan.
    insta::assert_snapshot!(output);

    // An existing home with history, a prior run and changed sessions: nothing moves.
    let home = env.notes_home();
    put(&home, "human/keep.md", "keep\n");
    seed_sessions(&home, &["a", "b", "c"], hours_before_now(1));
    let first = FakePi::done(&env.root().join("first"), "first dream");
    assert_exit(
        &dream_cmd(&env)
            .env("PI_CONTEXT_NOW", "2026-02-27T09:00:00Z")
            .arg("--pi")
            .arg(&first.path)
            .run(),
        0,
    );
    seed_sessions(&home, &["d", "e", "f"], hours_before_now(1));
    for flags in [
        &["--dry-run"][..],
        &["--dry-run", "--json"],
        &["--dry-run", "--min-sessions", "9"],
    ] {
        let before = snapshot(&home);
        let output = dream_cmd(&env)
            .args(flags)
            .arg("--pi")
            .arg(&pi.path)
            .run()
            .expect_code(0);
        assert!(!pi.ran());
        assert_same_tree(&before, &snapshot(&home));
        if flags.contains(&"--json") {
            let out = output.json();
            assert_eq!(out["status"], "planned");
            assert_eq!(out["commits"], serde_json::json!([]));
        }
    }

    // A held lock: 75, still nothing written.
    let lock = put(&home, ".dream.lock", "4242 someone");
    let before = snapshot(&home);
    let _ = dream_cmd(&env)
        .args(["--dry-run", "--force", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(75);
    assert_same_tree(&before, &snapshot(&home));
    assert_eq!(fs::read(&lock).unwrap(), b"4242 someone");
    assert!(!pi.ran());
}

#[test]
fn the_time_gate_skips_a_recent_dream() {
    let env = TestEnv::new();
    let home = env.notes_home();
    seed_sessions(&home, &["s1", "s2", "s3"], hours_before_now(1));
    let last_run = set_last_run(&home, hours_before_now(2));
    let pi = FakePi::done(&env.work(), "ran");
    let before = snapshot(&home);

    let output = dream_cmd(&env)
        .arg("--pi")
        .arg(&pi.path)
        .run()
        .expect_code(0);
    let lines = output.lines();
    assert!(
        lines.iter().any(|l| l.starts_with("time gate: ")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("dreams/")), "{lines:?}");
    assert!(!pi.ran());
    assert_same_tree(&before, &snapshot(&home));
    assert_eq!(mtime(&last_run), hours_before_now(2));
    let output = dream_cmd(&env)
        .args(["--json", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(0);
    let out = output.json();
    assert_eq!(out["status"], "skipped");
    assert_eq!(out["gates"][0]["ok"], false);
    assert_eq!(out["gates"][1]["ok"], true);
    assert!(!pi.ran());

    // --min-hours lowers the bar.
    let _ = dream_cmd(&env)
        .args(["--min-hours", "1.5", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(0);
    assert!(pi.ran());
    assert!(report_path(&home).exists());
    assert_eq!(mtime(&last_run), fixed_now());
}

#[test]
fn the_material_gate_counts_session_homes_with_changed_notes() {
    let env = TestEnv::new();
    let home = env.notes_home();
    set_last_run(&home, hours_before_now(48));
    let recent = hours_before_now(1);
    let old = hours_before_now(72);
    // Counted: a note nested deep in a session home, and one directly in it.
    set_mtime(&put(&home, "pi/session/nested/deep/er/n.md", "x"), recent);
    set_mtime(&put(&home, "pi/session/direct/n.md", "x"), recent);
    // Not counted: an old session, an empty one, a loose file, other homes.
    set_mtime(&put(&home, "pi/session/old/n.md", "x"), old);
    fs::create_dir_all(home.join("pi/session/empty")).unwrap();
    set_mtime(&put(&home, "pi/session/loose.md", "x"), recent);
    set_mtime(&put(&home, "human/h.md", "x"), recent);
    set_mtime(&put(&home, "project/p-12345678/p.md", "x"), recent);
    let pi = FakePi::done(&env.work(), "ran");

    let output = dream_cmd(&env)
        .arg("--pi")
        .arg(&pi.path)
        .run()
        .expect_code(0);
    // Two sessions changed notes.
    insta::assert_snapshot!(output);
    assert!(!pi.ran(), "3 sessions are needed by default");

    let _ = dream_cmd(&env)
        .args(["--min-sessions", "2", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(0);
    assert!(pi.ran());
    assert!(report_path(&home).exists());
}

#[test]
fn force_bypasses_both_gates_but_shows_them() {
    let env = TestEnv::new();
    let home = env.notes_home();
    set_last_run(&home, hours_before_now(1));
    let pi = FakePi::done(&env.work(), "forced");
    let output = dream_cmd(&env)
        .arg("--force")
        .arg("--pi")
        .arg(&pi.path)
        .run()
        .expect_code(0);
    assert!(pi.ran());
    assert_eq!(
        output.lines().last().map(Path::new),
        Some(report_path(&home).as_path())
    );
    // The gates, then the report (forced, no changes).
    let report = fs::read_to_string(report_path(&home)).unwrap();
    insta::assert_snapshot!(format!("{output}{}", output.normalize(&report)));
}

#[test]
fn a_dream_without_changes_still_commits_its_report() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/a.md", "a\n");
    let pi = FakePi::done(&env.work(), "nothing to do");
    // A first dream, then a second one a day later: the baseline of the second is clean, so
    // only its dream commit (with the report) is added.
    assert_exit(
        &forced_dream(&env, &pi.path)
            .env("PI_CONTEXT_NOW", "2026-02-28T09:00:00Z")
            .run(),
        0,
    );
    let output = dream_cmd(&env)
        .args(["--force", "--json", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(0);
    let out = output.json();
    assert_eq!(out["commits"].as_array().unwrap().len(), 1, "{out}");
    assert_eq!(out["changes"], serde_json::json!([]));
    assert_eq!(
        git_subjects(&home),
        [
            format!("dream {STAMP}"),
            "dream 2026-02-28T09-00-00-000Z".to_string(),
            "baseline 2026-02-28T09-00-00-000Z".to_string(),
        ]
    );
    assert!(fs::read_to_string(report_path(&home))
        .unwrap()
        .contains("- no changes"));
}

#[test]
fn a_run_never_removes_a_lock_it_does_not_own() {
    // Someone removed the running dream's lock by hand and a successor took it: neither the
    // successful nor the failed end of the first run touches the successor's lock or last-run.
    for (name, tail, code) in [
        ("succeeds", emit_done("done"), 0),
        ("fails", "exit 3".to_string(), 1),
    ] {
        let env = TestEnv::new();
        let home = env.notes_home();
        let successor = "4242 successor-token";
        let pi = FakePi::new(
            &env.work(),
            name,
            &format!(
                "rm .dream.lock && printf %s {lock} > .dream.lock\n\
                 printf successor > .dream.lock.last-run\n\
                 touch -d 2026-02-01T00:00:00Z .dream.lock.last-run\n{tail}",
                lock = sh_quote(successor),
            ),
        );
        let _ = forced_dream(&env, &pi.path).run().expect_code(code);
        assert_eq!(
            fs::read_to_string(home.join(".dream.lock")).unwrap(),
            successor,
            "{name}"
        );
        let last_run = home.join(".dream.lock.last-run");
        assert_eq!(
            fs::read_to_string(&last_run).unwrap(),
            "successor",
            "{name}"
        );
        assert_eq!(
            mtime(&last_run),
            std::time::UNIX_EPOCH + Duration::from_secs(1_769_904_000),
            "{name}"
        );
    }
}
