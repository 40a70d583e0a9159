//! `pi-context dream` end to end with the real `pi` and the scripted faux model: the dreamer
//! really reads, writes and edits notes through Pi's tools, and really tries forbidden writes
//! that the write jail must refuse.
//!
//! Every test here starts Pi (about half a second each); the failure paths that need no real
//! model use fake `pi` scripts in `dream_failures.rs`.

use crate::common;

use std::fs;
use std::path::Path;

use common::dream::*;
use common::pi::{faux_pi, FAUX_MODEL};
use common::TestEnv;
use serde_json::{json, Value};

/// `pi-context dream` with the faux model and `script` as its steps.
fn faux_dream(env: &TestEnv, script: &Value) -> assert_cmd::Command {
    let pi = faux_pi(env.root());
    let mut cmd = dream_cmd(env);
    cmd.env("FAUX_SCRIPT", script.to_string())
        .arg("--pi")
        .arg(pi)
        .args(["--dreamer", FAUX_MODEL]);
    cmd
}

fn write(path: &str, content: &str) -> Value {
    json!({"tool": "write", "args": {"path": path, "content": content}})
}

fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({"tool": "edit", "args": {"path": path, "edits": [{"oldText": old, "newText": new}]}})
}

fn read(path: &str) -> Value {
    json!({"tool": "read", "args": {"path": path}})
}

fn text(text: &str) -> Value {
    json!({ "text": text })
}

fn report(home: &Path) -> String {
    fs::read_to_string(report_path(home)).expect("the report exists")
}

/// How the report spells a path: control characters escaped.
fn one_line(path: &str) -> String {
    path.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn report_lines(report: &str, prefix: &str) -> Vec<String> {
    report
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_dream_reads_writes_edits_commits_and_reports() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/coffee.md", "# Coffee\n\nold beans\n");
    put(&home, "project/shop-1a2b3c4d/MAP.md", "# Map\n");
    // Three changed sessions: both gates pass without --force.
    seed_sessions(&home, &["s1", "s2", "s3"], hours_before_now(1));
    let sessions_before = snapshot(&home.join("pi"));

    let script = json!([
        read("human/coffee.md"),
        edit("human/coffee.md", "old beans", "fresh beans"),
        write("project/shop-1a2b3c4d/notes.md", "# Notes\n"),
        write("agents/anonymous/self.md", "# Me\n"),
        write("models/faux-1/quirks.md", "# Quirks\n"),
        // A write that changes nothing is not a change.
        write("human/same.md", "same\n"),
        edit("human/same.md", "same", "same"),
        text("Consolidated the coffee notes."),
    ]);
    put(&home, "human/same.md", "same\n");
    // Extensions the user installed, globally or in the home's `.pi/`, never load in the dreamer.
    let spy = |marker: &str| {
        format!(
            "import * as fs from \"node:fs\";\nexport default function () {{ fs.writeFileSync({:?}, \"loaded\"); }}\n",
            env.root().join(marker).display().to_string()
        )
    };
    put(
        &env.root().join("pi-agent"),
        "extensions/spy.ts",
        &spy("global-spy"),
    );
    put(&home, ".pi/extensions/spy.ts", &spy("project-spy"));
    let output = faux_dream(&env, &script).run().expect_code(0);
    assert!(
        !env.root().join("global-spy").exists(),
        "a global extension loaded"
    );
    assert!(
        !env.root().join("project-spy").exists(),
        "a project extension loaded"
    );
    // No session file was written for the dreamer's run.
    let sessions: Vec<String> = snapshot(&env.root().join("pi-agent"))
        .into_keys()
        .filter(|p| p.ends_with(".jsonl"))
        .collect();
    assert!(sessions.is_empty(), "{sessions:?}");

    // Not a terminal: the gate lines, then the report path, nothing else. The report: the
    // dreamer's summary and every change, no violations.
    assert_eq!(
        output.lines().last().map(Path::new),
        Some(report_path(&home).as_path())
    );
    let report = report(&home);
    insta::assert_snapshot!(format!("{output}{}", output.normalize(&report)));
    assert_eq!(
        fs::read_to_string(home.join("human/coffee.md")).unwrap(),
        "# Coffee\n\nfresh beans\n"
    );

    // The audit trail: baseline (the notes as they were), then the dream with its report.
    let log = git_log(&home);
    let subjects: Vec<&str> = log.iter().map(|c| c.summary.as_str()).collect();
    assert_eq!(
        subjects,
        [format!("dream {STAMP}"), format!("baseline {STAMP}")]
    );
    assert_eq!(
        head_file(&home, &format!("dreams/{STAMP}.md")).as_deref(),
        Some(report.as_str())
    );
    assert_eq!(
        head_file(&home, "human/coffee.md").as_deref(),
        Some("# Coffee\n\nfresh beans\n")
    );
    let repo = git2::Repository::open(&home).unwrap();
    let baseline = repo
        .find_commit(git2::Oid::from_str(&log[1].id).unwrap())
        .unwrap();
    let old = baseline
        .tree()
        .unwrap()
        .get_path(Path::new("human/coffee.md"))
        .unwrap();
    assert_eq!(
        repo.find_blob(old.id()).unwrap().content(),
        b"# Coffee\n\nold beans\n"
    );
    assert!(git_status(&home).is_empty(), "{:?}", git_status(&home));
    assert!(
        head_paths(&home)
            .iter()
            .all(|p| !p.starts_with(".dream.lock")),
        "{:?}",
        head_paths(&home)
    );
    let exclude = fs::read_to_string(home.join(".git/info/exclude")).unwrap();
    assert!(exclude.lines().any(|l| l == ".dream.lock*"), "{exclude}");

    // The lock is released; the last-run time is the start of this run.
    assert!(!home.join(".dream.lock").exists());
    assert_eq!(mtime(&home.join(".dream.lock.last-run")), fixed_now());
    // Session notes are read-only to the dreamer and nobody else touched them.
    assert_same_tree(&sessions_before, &snapshot(&home.join("pi")));
}

#[test]
fn the_jail_refuses_every_write_outside_the_writable_homes() {
    let env = TestEnv::new();
    let home = env.notes_home();
    let outside = env.root().join("outside");
    fs::create_dir_all(&outside).unwrap();
    put(&outside, "keep.md", "outside\n");
    put(&outside, "linked.md", "linked outside\n");
    put(&home, "pi/session/s1/a.md", "session note\n");
    put(&home, "agents/other/mine.md", "other agent\n");
    put(&home, "models/other-model/m.md", "other model\n");
    put(&home, "human/keep.md", "keep\n");
    std::os::unix::fs::symlink(&outside, home.join("human/out")).unwrap();
    std::os::unix::fs::symlink(outside.join("new.md"), home.join("human/dangling.md")).unwrap();
    std::os::unix::fs::symlink(
        home.join("pi/session/s1/a.md"),
        home.join("human/to-session.md"),
    )
    .unwrap();
    fs::hard_link(outside.join("linked.md"), home.join("human/linked.md")).unwrap();
    let outside_abs = outside.join("abs.md");
    let file_url = format!("file://{}", outside.join("url.md").display());

    let forbidden = [
        "pi/session/s1/evil.md".to_string(),
        "pi/session/s2/new.md".to_string(),
        "../escape.md".to_string(),
        "human/../../escape2.md".to_string(),
        outside_abs.display().to_string(),
        "~/tilde.md".to_string(),
        file_url.clone(),
        ".git/hooks/post-commit".to_string(),
        ".git/config".to_string(),
        "dreams/fake.md".to_string(),
        ".dream.lock".to_string(),
        ".dream.lock.last-run".to_string(),
        "agents/other/x.md".to_string(),
        "models/other-model/x.md".to_string(),
        "human/out/through-link.md".to_string(),
        "human/dangling.md".to_string(),
        "human/to-session.md".to_string(),
        "human/linked.md".to_string(),
        "stray.md".to_string(),
        "project/stray.md".to_string(),
        "@unknown/x.md".to_string(),
        "human/nul\0.md".to_string(),
        "human/new\nline.md".to_string(),
        "human/back\\slash.md".to_string(),
        "human\\..\\..\\backslash-escape.md".to_string(),
    ];
    let mut steps: Vec<Value> = forbidden.iter().map(|p| write(p, "forbidden\n")).collect();
    steps.push(edit("pi/session/s1/a.md", "session note", "edited"));
    steps.push(edit("agents/other/mine.md", "other agent", "edited"));
    // Only the file tools exist: no shell.
    let shell_marker = env.root().join("shell-ran");
    steps.push(
        json!({"tool": "bash", "args": {"command": format!("touch {}", shell_marker.display())}}),
    );
    steps.push(write("human/ok.md", "allowed\n"));
    steps.push(text("tried everything"));
    let before_sessions = snapshot(&home.join("pi"));
    let before_other = snapshot(&home.join("agents/other"));
    let before_outside = snapshot(&outside);
    let before_git_config = fs::read(home.join(".git/config")).ok();

    let output = faux_dream(&env, &Value::Array(steps)).arg("--force").run();
    // Refusals are reported; they do not fail the dream.
    let _ = output.expect_code(0);
    let report = report(&home);
    assert_eq!(
        report_lines(&report, "- added:"),
        ["- added: human/ok.md"],
        "{report}"
    );
    assert!(report_lines(&report, "- modified:").is_empty(), "{report}");
    assert!(report.contains("## Violations"), "{report}");
    let refused = report_lines(&report, "- refused: ");
    for path in forbidden.iter().chain(
        [
            "pi/session/s1/a.md".to_string(),
            "agents/other/mine.md".to_string(),
        ]
        .iter(),
    ) {
        assert!(
            refused
                .iter()
                .any(|l| l.starts_with(&format!("- refused: {} (", one_line(path)))),
            "{path} is not listed as refused:\n{report}"
        );
    }
    assert_eq!(refused.len(), forbidden.len() + 2, "{report}");
    assert!(report_lines(&report, "- restored:").is_empty(), "{report}");

    // Nothing outside the home, nothing in the read-only parts of it.
    assert_same_tree(&before_outside, &snapshot(&outside));
    assert!(!shell_marker.exists(), "the dreamer ran a shell command");
    assert!(!env.root().join("escape.md").exists());
    assert!(!env.root().join("escape2.md").exists());
    assert!(!env.home().join("tilde.md").exists());
    assert_same_tree(&before_sessions, &snapshot(&home.join("pi")));
    assert_same_tree(&before_other, &snapshot(&home.join("agents/other")));
    assert!(!home.join("models/other-model/x.md").exists());
    assert!(!home.join("stray.md").exists());
    assert!(!home.join("unknown").exists());
    let human: Vec<String> = fs::read_dir(home.join("human"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let mut human = human;
    human.sort();
    assert_eq!(
        human,
        [
            "dangling.md",
            "keep.md",
            "linked.md",
            "ok.md",
            "out",
            "to-session.md"
        ]
    );
    assert!(!home.join(".git/hooks/post-commit").exists());
    if let Some(config) = before_git_config {
        assert_eq!(fs::read(home.join(".git/config")).unwrap(), config);
    }
    let dreams: Vec<_> = fs::read_dir(home.join("dreams"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(dreams, [format!("{STAMP}.md")]);
    assert!(!home.join(".dream.lock").exists());
    assert!(git_status(&home).is_empty(), "{:?}", git_status(&home));
}

#[test]
fn json_output_is_one_object() {
    let env = TestEnv::new();
    let home = env.notes_home();
    // The home is reached through a symlink: the jail and the audit still agree on what is
    // inside it.
    let link = env.root().join("notes-link");
    std::os::unix::fs::symlink(&home, &link).unwrap();
    let script = json!([
        write("human/a.md", "a\n"),
        write(&format!("{}/human/b.md", link.display()), "b\n"),
        write("pi/session/s1/x.md", "no\n"),
        text("done")
    ]);
    let output = faux_dream(&env, &script)
        .args(["--force", "--json", "--notes-home"])
        .arg(&link)
        .run()
        .expect_code(0);
    let out = output.json();
    assert_eq!(out["status"], "ran");
    assert_eq!(
        out["report"].as_str().map(Path::new),
        Some(report_path(&link).as_path())
    );
    let commits = out["commits"].as_array().unwrap();
    let log = git_log(&home);
    assert_eq!(commits.len(), 2, "{out}");
    assert_eq!(commits[0], log[1].id.as_str(), "baseline first");
    assert_eq!(commits[1], log[0].id.as_str());
    assert_eq!(
        out["changes"],
        json!([{"kind": "added", "path": "human/a.md"}, {"kind": "added", "path": "human/b.md"}])
    );
    let violations = out["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1, "{out}");
    assert_eq!(violations[0]["kind"], "refused");
    assert_eq!(violations[0]["path"], "pi/session/s1/x.md");
    assert!(violations[0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("write jail:"));
    let gates = out["gates"].as_array().unwrap();
    assert_eq!(gates.len(), 2);
    assert!(gates[0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("time gate: "));
    assert!(gates[1]["reason"]
        .as_str()
        .unwrap()
        .starts_with("material gate: "));
    assert_eq!(gates[1]["ok"], false, "no sessions: --force ran it");
}

#[test]
fn a_provider_error_fails_the_dream_and_commits_the_partial_writes() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/keep.md", "keep\n");
    let prior = set_last_run(&home, hours_before_now(48));
    // The faux model runs out of replies after the write: a provider error.
    let script = json!([write("human/partial.md", "half")]);
    let output = faux_dream(&env, &script)
        .arg("--force")
        .run()
        .expect_code(1);
    assert!(
        output.stderr.contains("error: the dream failed"),
        "{}",
        output.stderr
    );
    assert_eq!(
        output.lines().last().map(Path::new),
        Some(report_path(&home).as_path())
    );
    let report = report(&home);
    assert!(
        report.starts_with(&format!("# Dream {STAMP} (failed)\n")),
        "{report}"
    );
    assert!(report.contains("No more faux responses"), "{report}");
    assert!(report.contains("- added: human/partial.md"), "{report}");
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
    assert!(git_status(&home).is_empty(), "{:?}", git_status(&home));
    // The failure does not delay the next dream.
    assert_eq!(mtime(&prior), hours_before_now(48));
    assert!(!home.join(".dream.lock").exists());
}

#[test]
fn an_unresolvable_model_fails_the_dream() {
    let env = TestEnv::new();
    let home = env.notes_home();
    let mut cmd = dream_cmd(&env);
    cmd.arg("--pi").arg(faux_pi(env.root())).args([
        "--force",
        "--dreamer",
        "nowhere/definitely-not-a-real-model",
    ]);
    let output = cmd.run().expect_code(1);
    assert!(
        output.stderr.contains("definitely-not-a-real-model"),
        "{}",
        output.stderr
    );
    let report = report(&home);
    assert!(report.contains("(failed)"), "{report}");
    assert!(report.contains("definitely-not-a-real-model"), "{report}");
    assert!(report.contains("- no changes"), "{report}");
    assert_eq!(
        git_subjects(&home),
        [
            format!("dream {STAMP} (failed)"),
            format!("baseline {STAMP}")
        ]
    );
    // There was no last run before: none is recorded for a failed one.
    assert!(!home.join(".dream.lock.last-run").exists());
    assert!(!home.join(".dream.lock").exists());
}

#[test]
fn the_dreamer_setting_picks_the_model() {
    let env = TestEnv::new();
    let home = env.notes_home();
    fs::write(
        env.root().join("pi-agent/settings.json"),
        json!({"pi-context": {"dreamer": FAUX_MODEL}}).to_string(),
    )
    .unwrap();
    let script = json!([
        write("models/faux-1/from-settings.md", "x\n"),
        text("dreamt by the setting")
    ]);
    let mut cmd = dream_cmd(&env);
    cmd.env("FAUX_SCRIPT", script.to_string())
        .arg("--pi")
        .arg(faux_pi(env.root()))
        .arg("--force");
    let output = cmd.run().expect_code(0);
    assert!(!output.stderr.contains("warning"), "{}", output.stderr);
    let report = report(&home);
    assert!(report.contains("dreamt by the setting"), "{report}");
    // The model's own home is writable: its slug comes from the setting too.
    assert!(
        report.contains("- added: models/faux-1/from-settings.md"),
        "{report}"
    );
}

fn note(body: &str, crumpled: Option<&str>) -> String {
    let crumpled = crumpled
        .map(|at| format!("crumpledAt: {at}\n"))
        .unwrap_or_default();
    format!(
        "---\norigin: self\ncreatedAt: 2026-01-01T10:00:00.000+01:00\nupdatedAt: 2026-01-01T10:00:00.000+01:00\n\
lastAccessed: 2026-01-01T10:00:00.000+01:00\naccessCount: 3\n{crumpled}---\n\n{body}\n"
    )
}

#[test]
fn the_dreamer_moves_notes_through_the_jail_and_the_dream_empties_the_wastebasket() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(
        &home,
        "human/misfiled.md",
        &note("belongs to the project", None),
    );
    put(&home, "pi/session/s1/plan.md", &note("session plan", None));
    put(
        &home,
        "human/ancient.md",
        &note("crumpled long ago", Some("2026-01-01T00:00:00.000+00:00")),
    );
    put(
        &home,
        "pi/session/s2/old.md",
        &note("old session scrap", Some("2026-01-02T00:00:00.000+00:00")),
    );
    put(
        &home,
        "human/recent.md",
        &note("crumpled last week", Some("2026-02-25T00:00:00.000+00:00")),
    );
    let script = json!([
        {"tool": "notes_move", "args": {"from": "human/misfiled.md", "to": "project/shop-1a2b3c4d/facts.md"}},
        // Session notes are read-only to the dreamer: moving one away is refused.
        {"tool": "notes_move", "args": {"from": "pi/session/s1/plan.md", "to": "human/plan.md"}},
        {"tool": "notes_move", "args": {"from": "human/recent.md", "to": "../outside.md"}},
        text("Filed the misfiled note."),
    ]);
    let output = faux_dream(&env, &script)
        .args(["--force", "--json"])
        .run()
        .expect_code(0);
    let out = output.json();
    assert_eq!(out["status"], "ran", "{out}");

    // The move happened, with the note's metadata.
    assert!(!home.join("human/misfiled.md").exists());
    let moved = fs::read_to_string(home.join("project/shop-1a2b3c4d/facts.md")).unwrap();
    assert!(moved.contains("accessCount: 3"), "{moved}");
    assert!(
        moved.contains("createdAt: 2026-01-01T10:00:00.000+01:00"),
        "{moved}"
    );
    // The refused moves touched nothing.
    assert!(home.join("pi/session/s1/plan.md").exists());
    assert!(!home.join("human/plan.md").exists());
    assert!(!env.root().join("outside.md").exists());
    let refused: Vec<&str> = out["violations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["kind"] == "refused")
        .map(|v| v["path"].as_str().unwrap())
        .collect();
    assert_eq!(refused.len(), 2, "{out}");

    // The wastebasket lost what was crumpled over 30 days ago, in every home; git keeps it.
    assert!(!home.join("human/ancient.md").exists());
    assert!(!home.join("pi/session/s2/old.md").exists());
    assert!(home.join("human/recent.md").exists());
    let purged: Vec<&str> = out["purged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(purged, ["human/ancient.md", "pi/session/s2/old.md"]);
    let report = report(&home);
    assert!(
        report.contains("- purged: human/ancient.md (crumpled 59 days ago)"),
        "{report}"
    );
    let baseline = git_log(&home).last().unwrap().id.clone();
    let repo = git2::Repository::open(&home).unwrap();
    let tree = repo
        .find_commit(git2::Oid::from_str(&baseline).unwrap())
        .unwrap()
        .tree()
        .unwrap();
    assert!(tree.get_path(Path::new("human/ancient.md")).is_ok());
    assert!(head_file(&home, "human/ancient.md").is_none());
    // The move went through the store as the dreamer, not as a live agent: no conflicts.
    assert_eq!(out["conflicts"], json!([]));
}

#[test]
fn purge_after_is_configurable_and_zero_empties_the_whole_wastebasket() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(
        &home,
        "human/recent.md",
        &note("crumpled last week", Some("2026-02-25T00:00:00.000+00:00")),
    );
    put(&home, "human/live.md", &note("live", None));
    let pi = FakePi::done(&env.work(), "nothing to do");
    let _ = forced_dream(&env, &pi.path)
        .args(["--purge-after", "7d"])
        .run()
        .expect_code(0);
    assert!(home.join("human/recent.md").exists(), "crumpled 4 days ago");
    let _ = forced_dream(&env, &pi.path)
        .args(["--purge-after", "0"])
        .env("PI_CONTEXT_NOW", "2026-03-02T09:00:00Z")
        .run()
        .expect_code(0);
    assert!(!home.join("human/recent.md").exists());
    assert!(home.join("human/live.md").exists());
    let _ = forced_dream(&env, &pi.path)
        .args(["--purge-after", "soon"])
        .run()
        .expect_code(2);
}
