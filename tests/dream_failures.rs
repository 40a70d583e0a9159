//! Failed dreams, with fake `pi` scripts: every failure after the lock is committed as
//! `dream <stamp> (failed)` with its report, restores the last-run time and removes the lock; a
//! failed baseline stops the run before the dreamer starts. Also the post-run audit, which puts
//! back what the dreamer changed outside its writable homes and keeps what live agents wrote.

use crate::common;

use std::fs;
use std::path::Path;

use common::dream::*;
use common::TestEnv;

/// Snapshots filtered for what differs between runs: commit ids (the identity that signs them
/// may come from the machine's git config) and the age of a lock on the real clock.
fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\b[0-9a-f]{40}\b", "[COMMIT]");
    settings.add_filter(r"it is \d+ s old", "it is [AGE] s old");
    settings
}

struct Failure {
    name: &'static str,
    /// The fake dreamer's script (runs in the notes home).
    body: String,
    /// A fragment of the error the report and stderr must show.
    error: &'static str,
    /// Whether a last-run time existed before.
    prior_run: bool,
}

fn failures() -> Vec<Failure> {
    let partial = "mkdir -p human && printf half > human/partial.md";
    vec![
        Failure {
            name: "exit-status",
            body: format!("{partial}\necho 'boom: the agent crashed' >&2\nexit 3"),
            error: "boom: the agent crashed",
            prior_run: false,
        },
        Failure {
            name: "garbage",
            body: format!("{partial}\necho 'this is not JSON'\necho '{{broken'"),
            error: "no JSON events",
            prior_run: true,
        },
        Failure {
            name: "provider-error",
            body: format!(
                "{partial}\n{}",
                emit(&[
                    ev_text("thinking about it"),
                    ev_provider_error("Insufficient Balance"),
                    EV_END.to_string()
                ])
            ),
            error: "Insufficient Balance",
            prior_run: true,
        },
        Failure {
            name: "cut-short",
            body: format!("{partial}\n{}", emit(&[ev_text("halfway")])),
            error: "ended before",
            prior_run: false,
        },
    ]
}

#[test]
fn a_failed_dreamer_is_committed_as_failed_and_restores_the_last_run() {
    let mut shown = String::new();
    for failure in failures() {
        let env = TestEnv::new();
        let home = env.notes_home();
        put(&home, "human/keep.md", "keep\n");
        let last_run = home.join(".dream.lock.last-run");
        if failure.prior_run {
            set_last_run(&home, hours_before_now(30));
        }
        let pi = FakePi::new(&env.work(), failure.name, &failure.body);
        let output = forced_dream(&env, &pi.path).run();
        let name = failure.name;
        let output = output.expect_code(1);
        assert!(pi.ran(), "{name}");
        let err = &output.stderr;
        assert!(err.contains("error: the dream failed"), "{name}: {err}");
        assert!(err.contains(failure.error), "{name}: {err}");
        assert_eq!(
            output.lines().last().map(Path::new),
            Some(report_path(&home).as_path()),
            "{name}"
        );
        let report = fs::read_to_string(report_path(&home)).unwrap();
        assert!(report.contains(failure.error), "{name}: {report}");
        // What a person sees: the error and the report's path, and the report (failed, with
        // the error and what the dreamer changed).
        shown += &format!("## {name}\n{output}{}\n", output.normalize(&report));
        assert_eq!(
            git_subjects(&home),
            [
                format!("dream {STAMP} (failed)"),
                format!("baseline {STAMP}")
            ],
            "{name}"
        );
        assert_eq!(
            head_file(&home, "human/partial.md").as_deref(),
            Some("half")
        );
        assert!(head_file(&home, &format!("dreams/{STAMP}.md")).is_some());
        assert!(
            git_status(&home).is_empty(),
            "{name}: {:?}",
            git_status(&home)
        );
        assert!(!home.join(".dream.lock").exists(), "{name}");
        if failure.prior_run {
            assert_eq!(mtime(&last_run), hours_before_now(30), "{name}");
        } else {
            assert!(!last_run.exists(), "{name}");
        }
    }
    insta::assert_snapshot!(shown);
}

#[test]
fn a_missing_pi_is_a_failed_dream() {
    let env = TestEnv::new();
    let home = env.notes_home();
    set_last_run(&home, hours_before_now(30));
    let output = dream_cmd(&env)
        .args(["--force", "--json", "--pi"])
        .arg(env.root().join("no/such/pi"))
        .run()
        .expect_code(1);
    assert_eq!(output.json()["status"], "failed");
    // The error names the missing program, in the result and in the report.
    let report = fs::read_to_string(report_path(&home)).unwrap();
    snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            "missing_pi",
            format!("{output}{}", output.normalize(&report))
        )
    });
    assert_eq!(git_subjects(&home)[0], format!("dream {STAMP} (failed)"));
    assert_eq!(
        mtime(&home.join(".dream.lock.last-run")),
        hours_before_now(30)
    );
    assert!(!home.join(".dream.lock").exists());

    // Not on PATH either.
    let env = TestEnv::new();
    let output = dream_cmd(&env)
        .env("PATH", env.root().join("empty-path"))
        .arg("--force")
        .run()
        .expect_code(1);
    insta::assert_snapshot!("pi_not_on_path", output);
}

#[test]
fn a_failed_baseline_stops_before_the_dreamer() {
    // `.git` is a file: refused before the lock is taken, with a hint.
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/keep.md", "keep\n");
    put(&home, ".git", "not a repository\n");
    let pi = FakePi::done(&env.work(), "should not run");
    let before = snapshot(&home);
    let output = forced_dream(&env, &pi.path).run().expect_code(74);
    assert!(!pi.ran(), "the dreamer started without a baseline");
    insta::assert_snapshot!("git_is_a_file", output);
    assert!(!home.join("dreams").exists());
    // No lock, no last-run time, nothing else changed.
    assert_same_tree(&before, &snapshot(&home));

    // A repository whose branch lock cannot be taken over: a stale lock file is repaired
    // (docs/notes.md), but a directory in its place is left for a person.
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/keep.md", "keep\n");
    let first = FakePi::done(&env.root().join("first"), "first");
    assert_exit(
        &forced_dream(&env, &first.path)
            .env("PI_CONTEXT_NOW", "2026-02-27T09:00:00Z")
            .run(),
        0,
    );
    let subjects = git_subjects(&home);
    let last_run = mtime(&home.join(".dream.lock.last-run"));
    let head = fs::read_to_string(home.join(".git/HEAD")).unwrap();
    let branch = head
        .trim()
        .strip_prefix("ref: ")
        .expect("HEAD names a branch");
    let lock = home.join(format!(".git/{branch}.lock"));
    fs::create_dir_all(&lock).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    fs::File::open(&lock).unwrap().set_modified(old).unwrap();
    put(&home, "human/new.md", "new\n");
    let pi = FakePi::done(&env.work(), "should not run");
    let output = forced_dream(&env, &pi.path).run().expect_code(1);
    assert!(!pi.ran());
    // The baseline failed, naming the lock.
    snapshot_settings().bind(|| insta::assert_snapshot!("branch_lock_is_a_directory", output));
    assert_eq!(git_subjects(&home), subjects);
    assert!(!report_path(&home).exists());
    assert_eq!(mtime(&home.join(".dream.lock.last-run")), last_run);
    assert!(!home.join(".dream.lock").exists());
}

#[test]
fn an_unwritable_report_fails_the_dream_but_commits_the_partial_writes() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "dreams", "a file where the reports should go\n");
    let pi = FakePi::new(
        &env.work(),
        "pi-partial",
        &format!(
            "mkdir -p human && printf half > human/partial.md\n{}",
            emit_done("all fine")
        ),
    );
    let output = forced_dream(&env, &pi.path).run().expect_code(1);
    // No report path on stdout: there is no report.
    insta::assert_snapshot!(output);
    assert_eq!(
        git_subjects(&home),
        [
            format!("dream {STAMP} (failed)"),
            format!("baseline {STAMP}")
        ]
    );
    assert_eq!(
        head_file(&home, "human/partial.md").as_deref(),
        Some("half")
    );
    assert!(!home.join(".dream.lock").exists());
    assert!(!home.join(".dream.lock.last-run").exists());
}

#[test]
fn a_dreamer_that_breaks_the_repository_fails_the_final_audit() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/keep.md", "keep\n");
    let pi = FakePi::new(
        &env.work(),
        "pi-breaks-git",
        &format!("rm -rf .git && echo broken > .git\n{}", emit_done("oops")),
    );
    let output = forced_dream(&env, &pi.path).run().expect_code(1);
    let report = fs::read_to_string(report_path(&home)).expect("the report is still written");
    insta::assert_snapshot!(format!("{output}{}", output.normalize(&report)));
    assert!(!home.join(".dream.lock").exists());
    assert!(!home.join(".dream.lock.last-run").exists());
}

#[test]
fn a_failed_final_commit_is_recorded_in_the_report() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/keep.md", "keep\n");
    // The dreamer leaves locks of the branch that cannot be taken over (directories, where a
    // stale lock file would be repaired): the index still works (the post-run audit
    // succeeds), the final commit cannot move the branch.
    let pi = FakePi::new(
        &env.work(),
        "pi-locks-refs",
        &format!(
            "mkdir -p human && printf new > human/new.md\n\
             for ref in HEAD refs/heads/master refs/heads/main; do mkdir -p .git/$ref.lock; touch -d '1 minute ago' .git/$ref.lock; done\n{}",
            emit_done("all done")
        ),
    );
    let output = forced_dream(&env, &pi.path).run().expect_code(1);
    // The dreamer's summary, its change and why the final commit failed.
    let report = fs::read_to_string(report_path(&home)).unwrap();
    snapshot_settings()
        .bind(|| insta::assert_snapshot!(format!("{output}{}", output.normalize(&report))));
    assert_eq!(git_subjects(&home), [format!("baseline {STAMP}")]);
    assert!(!home.join(".dream.lock").exists());
    assert!(!home.join(".dream.lock.last-run").exists());
}

#[test]
fn the_post_run_audit_restores_the_dreamers_out_of_scope_writes_and_keeps_live_agents_writes() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "pi/session/s1/a.md", "original\n");
    put(
        &home,
        "pi/session/s2/gone.md",
        "a live agent removes this\n",
    );
    put(&home, "agents/other/o.md", "other agent\n");
    // A dreamer whose writes slipped past the jail (as far as the event stream tells): it
    // modified a session note, wrote into another agent's home and into its own. Meanwhile a
    // live agent wrote and removed session notes, with no tool call of the dreamer naming them.
    let mut events = Vec::new();
    for (i, path) in [
        "pi/session/s1/a.md",
        "agents/other/new.md",
        "agents/other/o.md",
        "agents/anonymous/mine.md",
    ]
    .iter()
    .enumerate()
    {
        events.extend(ev_tool(&format!("call-{i}"), "write", path));
    }
    events.push(ev_text("consolidated"));
    events.push(EV_END.to_string());
    let body = format!(
        "printf tampered > pi/session/s1/a.md\n\
         mkdir -p agents/other agents/anonymous pi/session/s3\n\
         printf new > agents/other/new.md\n\
         printf changed > agents/other/o.md\n\
         printf mine > agents/anonymous/mine.md\n\
         printf live > pi/session/s3/live.md\n\
         rm pi/session/s2/gone.md\n\
         {}",
        emit(&events)
    );
    let pi = FakePi::new(&env.work(), "pi-slipped", &body);
    let output = dream_cmd(&env)
        .args(["--force", "--json", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(0);
    let out = output.json();
    assert_eq!(out["status"], "ran");

    // Put back as they were in the baseline.
    assert_eq!(
        fs::read_to_string(home.join("pi/session/s1/a.md")).unwrap(),
        "original\n"
    );
    assert_eq!(
        fs::read_to_string(home.join("agents/other/o.md")).unwrap(),
        "other agent\n"
    );
    assert!(!home.join("agents/other/new.md").exists());
    // Kept: the dreamer's own home and what the live agent did.
    assert_eq!(
        fs::read_to_string(home.join("agents/anonymous/mine.md")).unwrap(),
        "mine"
    );
    assert_eq!(
        fs::read_to_string(home.join("pi/session/s3/live.md")).unwrap(),
        "live"
    );
    assert!(!home.join("pi/session/s2/gone.md").exists());

    let changes: Vec<String> = out["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}: {}",
                c["kind"].as_str().unwrap(),
                c["path"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            "added: agents/anonymous/mine.md",
            "deleted: pi/session/s2/gone.md",
            "added: pi/session/s3/live.md",
        ]
    );
    let mut restored: Vec<String> = out["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            assert_eq!(v["kind"], "restored", "{v}");
            v["path"].as_str().unwrap().to_string()
        })
        .collect();
    restored.sort();
    assert_eq!(
        restored,
        [
            "agents/other/new.md",
            "agents/other/o.md",
            "pi/session/s1/a.md"
        ]
    );
    let report = fs::read_to_string(report_path(&home)).unwrap();
    for path in &restored {
        assert!(
            report.contains(&format!("- restored: {path} (")),
            "{path}:\n{report}"
        );
    }
    assert!(
        report.contains("- deleted: pi/session/s2/gone.md"),
        "{report}"
    );
    assert!(head_file(&home, "agents/other/new.md").is_none());
    assert_eq!(
        head_file(&home, "pi/session/s1/a.md").as_deref(),
        Some("original\n")
    );
    assert!(git_status(&home).is_empty(), "{:?}", git_status(&home));
}

#[test]
fn a_last_run_that_cannot_be_written_leaves_no_lock_behind() {
    let env = TestEnv::new();
    let home = env.notes_home();
    fs::create_dir_all(home.join(".dream.lock.last-run")).unwrap();
    let pi = FakePi::done(&env.work(), "should not run");
    let output = forced_dream(&env, &pi.path).run();
    assert_ne!(output.code, 0, "{output}");
    assert!(!pi.ran());
    assert!(output.stderr.contains("lock"), "{output}");
    assert!(
        !home.join(".dream.lock").exists(),
        "a run that never started must not leave its lock"
    );
}
