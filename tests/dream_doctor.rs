//! `dream doctor`: every check, read-only, exit codes, JSON, live versus stale locks.

use crate::common;

use std::fs;
use std::path::Path;

use common::dream::{assert_same_tree, put, snapshot};
use common::{CommandOutput, Run, TestEnv};

const GOOD_META: &str = "---\norigin: user\ncreatedAt: 2026-01-01T10:00:00.000+01:00\nupdatedAt: 2026-01-01T10:00:00.000+01:00\nlastAccessed: 2026-01-02T10:00:00.000+01:00\naccessCount: 2\n---\n\n";

fn note(body: &str) -> String {
    format!("{GOOD_META}{body}\n")
}

fn doctor(env: &TestEnv, home: &Path, json: bool) -> CommandOutput {
    let mut cmd = env.cmd();
    cmd.args(["dream", "doctor", "--notes-home"]).arg(home);
    if json {
        cmd.arg("--json");
    }
    cmd.run()
}

/// A healthy store with every kind of home, a MAP with bare and @ addresses that resolve.
fn healthy_store(home: &Path) {
    put(
        home,
        "human/MAP.md",
        &note("- `prefs.md`: how I like things\n- `@human/prefs.md`"),
    );
    put(home, "human/prefs.md", &note("tea, not coffee"));
    put(
        home,
        "project/app-1a2b3c4d/MAP.md",
        &note("- `design.md`\n- `@project/design.md`"),
    );
    put(
        home,
        "project/app-1a2b3c4d/design.md",
        &note("see `@agents/night-owl/lessons.md`"),
    );
    put(
        home,
        "agents/night-owl/lessons.md",
        &note("examples like `@human/<name>.md` or `@human/*.md` are prose"),
    );
    put(
        home,
        "models/big-model/quirks.md",
        &note("crumpled one below"),
    );
    put(
        home,
        "models/big-model/old.md",
        &GOOD_META.replace(
            "accessCount: 2\n",
            "accessCount: 2\ncrumpledAt: 2026-01-03T10:00:00.000+01:00\n",
        ),
    );
    put(
        home,
        "pi/session/s1/scratch.md",
        &note("bare `notes.md` outside a MAP is not checked"),
    );
    put(home, "dreams/2026-01-01T00-00-00-000Z.md", "# Dream\n");
    put(home, ".dream.lock.last-run", "2026-01-01T00:00:00Z");
    put(home, ".locks/abc.lock", "");
    // A dream's live-write journal is the store's machinery, not a stray file.
    put(home, ".dream.journal/token/1.json", "{}");
}

#[test]
fn a_healthy_store_is_ok() {
    let env = TestEnv::new();
    let home = env.notes_home();
    healthy_store(&home);
    let before = snapshot(&home);
    let output = doctor(&env, &home, false).expect_code(0);
    assert_eq!(
        output.lines(),
        [format!("dream doctor: OK ({})", home.display())]
    );
    let json = doctor(&env, &home, true).json();
    assert_eq!(json["issues"], serde_json::json!([]));
    assert_eq!(json["home"], home.display().to_string());
    assert_same_tree(&before, &snapshot(&home));
}

#[test]
fn one_example_of_every_issue_is_reported_exactly_once_and_nothing_changes() {
    let env = TestEnv::new();
    let home = env.notes_home();
    healthy_store(&home);
    let outside = env.work().join("outside.md");
    fs::write(&outside, note("elsewhere")).unwrap();
    put(&home, "global/old.md", &note("legacy"));
    put(&home, "personal/old.md", &note("legacy"));
    put(&home, "notes.txt", "stray at the root");
    put(&home, "agents/Night_Owl/x.md", &note("bad slug"));
    put(&home, "project/no-key/x.md", &note("bad key"));
    put(&home, "pi/other/x.md", &note("not a session dir"));
    put(&home, "human/stray.bin", "not a note");
    put(
        &home,
        "human/.pi-context.123.abc.0.tmp",
        "interrupted write",
    );
    std::os::unix::fs::symlink(&outside, home.join("human/link.md")).unwrap();
    fs::hard_link(
        home.join("human/prefs.md"),
        home.join("human/prefs-again.md"),
    )
    .unwrap();
    put(&home, "human/no-meta.md", "just a body\n");
    put(
        &home,
        "human/unclosed.md",
        "---\norigin: user\nbody without a closing fence\n",
    );
    put(
        &home,
        "human/bad-origin.md",
        &note("x").replace("origin: user", "origin: robot"),
    );
    put(
        &home,
        "human/bad-time.md",
        &note("x").replace(
            "updatedAt: 2026-01-01T10:00:00.000+01:00",
            "updatedAt: yesterday",
        ),
    );
    put(
        &home,
        "human/bad-count.md",
        &note("x").replace("accessCount: 2", "accessCount: many"),
    );
    put(
        &home,
        "human/bad-crumple.md",
        &GOOD_META.replace("accessCount: 2\n", "accessCount: 2\ncrumpledAt: soon\n"),
    );
    put(
        &home,
        "human/dup.md",
        &GOOD_META.replace("accessCount: 2\n", "accessCount: 2\naccessCount: 3\n"),
    );
    put(
        &home,
        "human/scoped.md",
        &GOOD_META.replace("accessCount: 2\n", "accessCount: 2\nscope: global\n"),
    );
    put(
        &home,
        "human/refs.md",
        &note("`@human/gone.md` `@nowhere/x.md` `@project/p.md`"),
    );
    put(
        &home,
        "human/MAP.md",
        &note("- `prefs.md`\n- `missing-entry.md`"),
    );
    put(
        &home,
        ".dream.lock",
        "4242 1c0e8d6e-5f6a-4b8e-9a53-0d7f3a1b2c4d",
    );
    let before = snapshot(&home);

    let output = doctor(&env, &home, false).expect_code(1);
    let lines = output.lines();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "issues are sorted");
    // One line per issue, each with its advice.
    insta::assert_snapshot!(output);

    let json = doctor(&env, &home, true).json();
    let issues = json["issues"].as_array().unwrap();
    assert_eq!(issues.len(), lines.len());
    assert!(issues
        .iter()
        .all(|i| i["path"].is_string() && i["code"].is_string() && i["message"].is_string()));
    let codes: Vec<&str> = issues.iter().map(|i| i["code"].as_str().unwrap()).collect();
    for code in [
        "lock_stale",
        "invalid_slug",
        "legacy_home",
        "stray_temp_file",
        "missing_target",
        "invalid_access_count",
        "invalid_timestamp",
        "invalid_origin",
        "duplicate_key",
        "symlink",
        "frontmatter",
        "hard_link",
        "invalid_address",
        "unresolved_reference",
        "obsolete_scope",
        "unexpected_file",
        "unexpected_entry",
        "invalid_project_key",
    ] {
        assert!(codes.contains(&code), "no {code} in {codes:?}");
    }
    assert_same_tree(&before, &snapshot(&home));
    assert_eq!(fs::read_to_string(&outside).unwrap(), note("elsewhere"));
}

#[test]
fn a_held_lock_is_live_with_its_pid() {
    let env = TestEnv::new();
    let home = env.notes_home();
    healthy_store(&home);
    put(
        &home,
        ".dream.lock",
        "31337 1c0e8d6e-5f6a-4b8e-9a53-0d7f3a1b2c4d",
    );
    let holder = fs::File::open(home.join(".dream.lock")).unwrap();
    holder.lock().unwrap();
    let output = doctor(&env, &home, false).expect_code(1);
    assert_eq!(output.lines().len(), 1);
    assert!(output.lines()[0].starts_with(".dream.lock: live lock: a dream is running (pid 31337)"));
    holder.unlock().unwrap();
    let output = doctor(&env, &home, false);
    assert!(output.lines()[0].starts_with(".dream.lock: stale lock"));
}

#[test]
fn a_missing_home_is_an_issue_and_is_not_created() {
    let env = TestEnv::new();
    let home = env.root().join("no-such-home");
    let output = doctor(&env, &home, false).expect_code(1);
    assert_eq!(output.lines(), [".: the notes home does not exist"]);
    assert!(!home.exists());
}

#[test]
fn a_file_as_home_is_reported() {
    let env = TestEnv::new();
    let home = env.root().join("file-home");
    fs::write(&home, "not a directory").unwrap();
    let output = doctor(&env, &home, false).expect_code(1);
    assert!(output.lines()[0].starts_with(".: expected a directory"));
}

#[test]
fn the_home_defaults_to_pi_notes_home() {
    let env = TestEnv::new();
    healthy_store(&env.notes_home());
    let output = env.cmd().args(["dream", "doctor"]).run().expect_code(0);
    assert_eq!(
        output.lines(),
        [format!("dream doctor: OK ({})", env.notes_home().display())]
    );
}

#[test]
fn usage_errors_exit_2() {
    let env = TestEnv::new();
    let _ = env
        .cmd()
        .args(["dream", "doctor", "--bogus"])
        .run()
        .expect_code(2);
}

#[test]
fn notes_the_store_reads_are_never_reported_as_missing_frontmatter() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(
        &home,
        "human/bom.md",
        &format!("\u{feff}{}", note("with a byte order mark")),
    );
    put(
        &home,
        "human/spaced.md",
        &note("spaced fences").replace("---\n", "  ---  \n"),
    );
    put(&home, "human/crlf.md", &note("crlf").replace('\n', "\r\n"));
    // The store reads each one's metadata.
    let listed = env
        .cmd()
        .args([
            "notes",
            "list",
            "--pattern",
            "@human/*",
            "--json",
            "--notes-home",
        ])
        .arg(&home)
        .run();
    let listed = listed.json();
    let files = listed["files"].as_array().unwrap();
    assert_eq!(files.len(), 3, "{listed}");
    for file in files {
        assert_eq!(
            file["updated_at"], "2026-01-01T10:00:00.000+01:00",
            "{file}"
        );
    }
    let _ = doctor(&env, &home, false).expect_code(0);
}
