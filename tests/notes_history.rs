//! The notes history: every notes write, edit, move and restore is a commit in the notes home's
//! repository (not reads), with who and what in its message; `notes log`, `notes diff`,
//! `notes restore` and the `notes_log` / `notes_restore` tools read and use it; concurrent
//! writers keep a linear, `git fsck`-clean history with a commit per change.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::notes::*;
use common::TestEnv;
use serde_json::json;

/// One commit, newest first, with its message and the paths it changed against its parent.
#[derive(Debug)]
struct Commit {
    id: String,
    message: String,
    author: String,
    parents: usize,
    paths: Vec<String>,
}

fn history(home: &Path) -> Vec<Commit> {
    let repo = git2::Repository::open(home).expect("the notes home is a repository");
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    walk.map(|oid| {
        let commit = repo.find_commit(oid.unwrap()).unwrap();
        let tree = commit.tree().unwrap();
        let parent = commit.parent(0).ok().map(|p| p.tree().unwrap());
        let diff = repo
            .diff_tree_to_tree(parent.as_ref(), Some(&tree), None)
            .unwrap();
        let paths = diff
            .deltas()
            .map(|d| {
                let file = if d.new_file().id().is_zero() {
                    d.old_file()
                } else {
                    d.new_file()
                };
                file.path().unwrap().to_string_lossy().into_owned()
            })
            .collect();
        let author = commit.author();
        Commit {
            id: commit.id().to_string(),
            message: commit.message().unwrap().to_string(),
            author: format!("{} <{}>", author.name().unwrap(), author.email().unwrap()),
            parents: commit.parent_count(),
            paths,
        }
    })
    .collect()
}

fn subjects(home: &Path) -> Vec<String> {
    history(home)
        .into_iter()
        .map(|c| c.message.lines().next().unwrap().to_string())
        .collect()
}

/// A file's bytes in HEAD.
fn at_head(home: &Path, rel: &str) -> Option<String> {
    let repo = git2::Repository::open(home).ok()?;
    let tree = repo.head().ok()?.peel_to_tree().ok()?;
    let entry = tree.get_path(Path::new(rel)).ok()?;
    let blob = repo.find_blob(entry.id()).ok()?;
    Some(String::from_utf8_lossy(blob.content()).into_owned())
}

fn git_fsck(home: &Path) {
    let output = Command::new("git")
        .args(["fsck", "--full", "--strict", "--no-dangling"])
        .current_dir(home)
        .output()
        .expect("run git fsck");
    assert!(
        output.status.success() && output.stdout.is_empty(),
        "git fsck: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn project_file(env: &TestEnv, name: &str) -> String {
    let dir = env.notes_home().join("project");
    let key = std::fs::read_dir(&dir)
        .expect("a project home")
        .next()
        .expect("one project key")
        .unwrap()
        .file_name();
    format!("project/{}/{name}", key.to_string_lossy())
}

#[test]
fn every_change_is_one_commit_naming_operation_address_agent_session_and_model() {
    let env = TestEnv::new();
    let home = env.notes_home();
    let run = |args: &[&str]| {
        let output = notes(&env, args)
            .env("PI_NOTES_AGENT", "Builder")
            .env("PI_CONTEXT_MODEL", "anthropic/claude-x")
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        assert!(output.stderr.is_empty(), "no warning: {output:?}");
    };
    run(&["write", "@project/decisions", "--content", "use git\n"]);
    run(&[
        "edit",
        "@project/decisions",
        "--old",
        "git",
        "--new",
        "git2",
    ]);
    run(&["read", "@project/decisions"]);
    run(&["read", "@project/decisions"]);
    run(&["edit", "@project/decisions", "--crumple"]);
    run(&["edit", "@project/decisions", "--smooth"]);
    run(&["move", "@project/decisions", "@human/decisions"]);
    assert_eq!(
        subjects(&home),
        [
            "move @human/decisions.md",
            "smooth @project/decisions.md",
            "crumple @project/decisions.md",
            "edit @project/decisions.md",
            "write @project/decisions.md",
        ],
        "one commit per change, none for the reads"
    );
    let commits = history(&home);
    let write = commits.last().unwrap();
    assert_eq!(write.author, "builder <builder@pi-context>");
    for trailer in [
        "Operation: write",
        "Address: @project/decisions.md",
        "Agent: builder",
        "Session: test-session",
        "Model: claude-x",
    ] {
        assert!(
            write.message.contains(trailer),
            "{trailer}: {}",
            write.message
        );
    }
    assert!(commits[0].message.contains("From: @project/decisions.md"));
    let decisions = project_file(&env, "decisions.md");
    assert_eq!(commits[0].paths, ["human/decisions.md", decisions.as_str()]);
    // The commit holds the note as written; the reads' counters wait for the next change.
    assert_eq!(
        at_head(&home, "human/decisions.md").as_deref(),
        Some(read_file(&home.join("human/decisions.md")).as_str())
    );
    assert!(commits.iter().all(|c| c.parents <= 1));
    let exclude = read_file(&home.join(".git/info/exclude"));
    for line in [
        "/.locks/",
        ".pi-context.*.tmp",
        ".dream.lock*",
        ".sync.lock*",
    ] {
        assert!(exclude.lines().any(|l| l == line), "{line} in {exclude}");
    }
    git_fsck(&home);
}

#[test]
fn the_users_git_identity_is_the_author_when_configured() {
    let env = TestEnv::new();
    std::fs::write(
        env.home().join(".gitconfig"),
        "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n",
    )
    .unwrap();
    write(&env, "@human/prefs", "tabs");
    let commits = history(&env.notes_home());
    assert_eq!(commits[0].author, "Ada Lovelace <ada@example.com>");
    assert!(commits[0].message.contains("Agent: anonymous"));
}

#[test]
fn the_history_can_be_turned_off_by_variable_or_setting_and_the_dreamer_never_commits() {
    for value in ["off", "0", "false", "no", "OFF"] {
        let env = TestEnv::new();
        let output = notes(&env, &["write", "@human/a", "--content", "x"])
            .env("PI_CONTEXT_NOTES_HISTORY", value)
            .output()
            .unwrap();
        assert!(output.status.success());
        assert!(env.notes_home().join("human/a.md").exists());
        assert!(
            !env.notes_home().join(".git").exists(),
            "{value}: no repository"
        );
    }
    let env = TestEnv::new();
    std::fs::write(
        env.root().join("pi-agent/settings.json"),
        r#"{"pi-context": {"notesHistory": false}}"#,
    )
    .unwrap();
    write(&env, "@human/a", "x");
    assert!(!env.notes_home().join(".git").exists(), "the setting");
    // The variable wins over the setting.
    let output = notes(&env, &["write", "@human/b", "--content", "y"])
        .env("PI_CONTEXT_NOTES_HISTORY", "on")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(subjects(&env.notes_home()), ["write @human/b.md"]);

    let env = TestEnv::new();
    let output = notes(&env, &["write", "@human/a", "--content", "x"])
        .env(
            "PI_CONTEXT_DREAM_TOKEN",
            "0f0e0d0c-0000-4000-8000-000000000000",
        )
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(!env.notes_home().join(".git").exists(), "the dreamer");
}

#[test]
fn a_commit_that_cannot_be_made_warns_and_loses_nothing() {
    let env = TestEnv::new();
    let home = env.notes_home();
    let elsewhere = env.root().join("elsewhere");
    git2::Repository::init(&elsewhere).unwrap();
    std::os::unix::fs::symlink(elsewhere.join(".git"), home.join(".git")).unwrap();
    let output = notes(&env, &["write", "@human/a", "--content", "kept"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning:") && stderr.contains("not in the notes history"),
        "{stderr}"
    );
    assert!(read_file(&home.join("human/a.md")).ends_with("kept"));
    let repo = git2::Repository::open(&elsewhere).unwrap();
    assert!(repo.head().is_err(), "nothing committed through the link");
    let response = tool(
        &env,
        "notes_write",
        json!({"address": "@human/b", "content": "c"}),
    );
    assert_eq!(response["is_error"], false);
    assert!(response["details"]["commit_error"]
        .as_str()
        .is_some_and(|e| e.contains("symbolic link")));
    assert!(response["details"].get("commit").is_none());
}

/// The binary as a plain process, for many at once.
fn process(env: &TestEnv, args: &[&str]) -> Command {
    let mut cmd = env.process();
    cmd.env("PI_CONTEXT_SESSION_ID", SESSION)
        .arg("notes")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

#[test]
fn eight_processes_times_a_hundred_edits_make_a_linear_history_with_a_commit_each() {
    const WORKERS: usize = 8;
    const EDITS: usize = 100;
    let env = TestEnv::new();
    let home = env.notes_home();
    write(&env, "@human/shared", "END\n");
    for worker in 0..WORKERS {
        write(&env, &format!("@human/own-{worker}"), "END\n");
    }
    std::thread::scope(|scope| {
        for worker in 0..WORKERS {
            let env = &env;
            scope.spawn(move || {
                for i in 0..EDITS {
                    // Half on the note every worker edits (ordered by its lock), half on the
                    // worker's own note (commits racing for the branch).
                    let note = if i % 2 == 0 {
                        "@human/shared".to_string()
                    } else {
                        format!("@human/own-{worker}")
                    };
                    let line = format!("worker {worker} edit {i}\nEND");
                    let output = process(env, &["edit", &note, "--old", "END", "--new", &line])
                        .output()
                        .unwrap();
                    assert!(
                        output.status.success() && output.stderr.is_empty(),
                        "{}",
                        String::from_utf8_lossy(&output.stderr)
                    );
                }
            });
        }
    });
    let commits = history(&home);
    assert_eq!(
        commits.len(),
        WORKERS * EDITS + WORKERS + 1,
        "a commit for every write and edit"
    );
    assert!(commits.iter().all(|c| c.parents <= 1), "linear");
    assert_eq!(commits.last().unwrap().parents, 0);
    for commit in &commits {
        assert_eq!(commit.paths.len(), 1, "{}", commit.message);
    }
    // Each edit commit adds exactly its own line to the note it names.
    let edits = commits.iter().filter(|c| c.message.starts_with("edit "));
    assert_eq!(edits.count(), WORKERS * EDITS);
    for path in std::iter::once("human/shared.md".to_string())
        .chain((0..WORKERS).map(|w| format!("human/own-{w}.md")))
    {
        assert_eq!(
            at_head(&home, &path).as_deref(),
            Some(read_file(&home.join(&path)).as_str()),
            "HEAD holds {path} as on disk"
        );
    }
    let shared = read_file(&home.join("human/shared.md"));
    assert_eq!(
        shared.lines().filter(|l| l.starts_with("worker ")).count(),
        WORKERS * EDITS / 2
    );
    git_fsck(&home);
}

#[test]
fn log_shows_a_notes_commits_newest_first_with_who_and_when() {
    let env = TestEnv::new();
    write(&env, "@project/a", "one");
    write(&env, "@human/b", "two");
    ok(
        &env,
        &["edit", "@project/a", "--old", "one", "--new", "uno"],
    );
    let log = json(&env, &["log", "@project/a"]);
    let commits = log["commits"].as_array().unwrap();
    let ops: Vec<&str> = commits
        .iter()
        .map(|c| c["operation"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["edit", "write"]);
    let newest = &commits[0];
    assert_eq!(newest["agent"], "anonymous");
    assert_eq!(newest["session"], SESSION);
    assert_eq!(newest["model"], "default");
    assert_eq!(newest["time"], "2026-03-01T09:00:00.000+00:00");
    assert_eq!(newest["changes"][0]["address"], "@project/a.md");
    assert_eq!(newest["changes"][0]["kind"], "modified");
    assert_eq!(commits[1]["changes"][0]["kind"], "added");
    assert_eq!(log["more"], false);

    let all = json(&env, &["log"]);
    assert_eq!(all["commits"].as_array().unwrap().len(), 3);
    let limited = json(&env, &["log", "--limit", "1"]);
    assert_eq!(limited["commits"].as_array().unwrap().len(), 1);
    assert_eq!(limited["more"], true);
    let pattern = json(&env, &["log", "@human/**"]);
    assert_eq!(pattern["commits"].as_array().unwrap().len(), 1);
    assert_eq!(
        pattern["commits"][0]["changes"][0]["address"],
        "@human/b.md"
    );

    let human = ok(&env, &["log", "@project/a"]);
    let lines: Vec<&str> = human.lines().collect();
    assert!(
        lines[0].ends_with("2026-03-01T09:00:00.000+00:00 edit @project/a.md"),
        "{human}"
    );
    assert_eq!(
        lines[1],
        "    agent anonymous · session test-session · model default"
    );
    assert_eq!(lines[2], "    M @project/a.md");

    // No history yet: an empty log, not an error.
    let fresh = TestEnv::new();
    assert_eq!(json(&fresh, &["log"])["commits"], json!([]));
    assert_eq!(ok(&fresh, &["log"]), "no commits\n");
}

#[test]
fn diff_shows_the_last_change_or_the_change_since_a_revision_without_counters() {
    let env = TestEnv::new();
    write(&env, "@human/plan", "step one\nstep two\n");
    ok(&env, &["edit", "@human/plan", "--old", "two", "--new", "2"]);
    ok(&env, &["read", "@human/plan"]);
    let last = json(&env, &["diff", "@human/plan"]);
    let text = last["diff"].as_str().unwrap();
    assert!(text.contains("-step two\n+step 2\n"), "{text}");
    assert!(
        !text.contains("accessCount"),
        "the read's counters are not content: {text}"
    );
    assert_eq!(last["previous"], true);

    let first = history(&env.notes_home()).last().unwrap().id.clone();
    let since = json(&env, &["diff", "@human/plan", "--rev", &first]);
    assert_eq!(since["from"], first.as_str());
    assert!(since["diff"].as_str().unwrap().contains("+step 2"));
    let none = json(&env, &["diff", "@human/plan", "--rev", "HEAD"]);
    assert_eq!(none["diff"], "");
    assert!(ok(&env, &["diff", "@human/plan", "--rev", "HEAD"]).starts_with("no difference"));

    let (code, stderr) = fails(&env, &["diff", "@human/plan", "--rev", "no-such-rev"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("names no commit"), "{stderr}");
}

#[test]
fn a_revision_that_matches_nothing_is_named_in_a_usage_error() {
    // libgit2 fails a search that finds no commit (`HEAD^{/text}`, `:/text`) without a
    // message ("no error"): the refusal must say what was not found.
    let env = TestEnv::new();
    write(&env, "@human/plan", "step one");
    write(&env, "@human/plan", "step two");
    for rev in ["HEAD^{/no such subject}", ":/no such subject"] {
        let expected = format!("no revision matches {rev:?} in the notes history");
        for command in ["diff", "restore"] {
            let (code, stderr) = fails(&env, &[command, "@human/plan", "--rev", rev]);
            assert_eq!(code, 2, "{command}: {stderr}");
            assert_eq!(
                stderr.lines().next(),
                Some(format!("error: {expected}").as_str()),
                "{command}"
            );
        }
        let refusal = tool_refusal(
            &env,
            "notes_restore",
            json!({"address": "@human/plan", "rev": rev}),
        );
        assert_eq!(refusal["code"], "invalid_revision");
        assert_eq!(refusal["message"], expected.as_str());
    }
    // A revision that names something other than a commit says what it names.
    let (code, stderr) = fails(&env, &["diff", "@human/plan", "--rev", "HEAD^{tree}"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr.lines().next(),
        Some(r#"error: "HEAD^{tree}" names a tree of the notes history, not a commit"#)
    );
    // `dream undo` takes a report stamp, found among commit subjects (no revision parsing).
    let output = env
        .cmd()
        .args(["dream", "undo", "2020-01-01T00-00-00-000Z"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: no dream 2020-01-01T00-00-00-000Z in the notes history"),
        "{stderr}"
    );
}

#[test]
fn restore_puts_a_past_version_back_as_a_new_commit_keeping_the_counters() {
    let env = TestEnv::new();
    let home = env.notes_home();
    write(&env, "@human/plan", "good plan");
    let good = history(&home)[0].id.clone();
    write(&env, "@human/plan", "bad overwrite");
    ok(&env, &["read", "@human/plan"]);
    let receipt = json(&env, &["restore", "@human/plan", "--rev", &good[..12]]);
    assert_eq!(receipt["outcome"], "restored");
    assert_eq!(receipt["from"], good.as_str());
    let text = read_file(&home.join("human/plan.md"));
    assert!(text.ends_with("good plan"), "{text}");
    assert_eq!(
        frontmatter_value(&text, "accessCount").as_deref(),
        Some("1")
    );
    assert_eq!(
        subjects(&home),
        [
            "restore @human/plan.md",
            "write @human/plan.md",
            "write @human/plan.md"
        ],
        "history is never rewritten"
    );
    let newest = &history(&home)[0];
    assert_eq!(receipt["commit"], newest.id.as_str());
    assert!(newest.message.contains(&format!("Restored-From: {good}")));
    // Restoring again changes nothing.
    assert_eq!(
        json(&env, &["restore", "@human/plan", "--rev", &good])["outcome"],
        "unchanged"
    );
    assert_eq!(history(&home).len(), 3);

    // A note moved away comes back at its address.
    ok(&env, &["move", "@human/plan", "@human/old-plan"]);
    let back = json(&env, &["restore", "@human/plan", "--rev", &good]);
    assert_eq!(back["outcome"], "recreated");
    assert!(read_file(&home.join("human/plan.md")).ends_with("good plan"));

    let (code, stderr) = fails(&env, &["restore", "@human/never", "--rev", &good]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not found"), "{stderr}");
    let fresh = TestEnv::new();
    let (code, stderr) = fails(&fresh, &["restore", "@human/plan", "--rev", "HEAD"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no history"), "{stderr}");
}

#[test]
fn the_log_and_restore_tools_let_an_agent_undo_its_own_mistake() {
    let env = TestEnv::new();
    tool_ok(
        &env,
        "notes_write",
        json!({"address": "plan", "content": "careful plan"}),
    );
    let written = tool(
        &env,
        "notes_write",
        json!({"address": "plan", "content": "oops"}),
    );
    assert!(written["details"]["commit"]
        .as_str()
        .is_some_and(|c| c.len() == 40));
    let log = tool_ok(&env, "notes_log", json!({"address": "plan"}));
    let commits = log["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 2);
    let before_mistake = commits[1]["commit"].as_str().unwrap();
    let restored = tool_ok(
        &env,
        "notes_restore",
        json!({"address": "plan", "rev": before_mistake}),
    );
    assert_eq!(restored["outcome"], "restored");
    assert!(read_file(&session_file(&env, "plan.md")).ends_with("careful plan"));
    let refusal = tool_refusal(
        &env,
        "notes_restore",
        json!({"address": "plan", "rev": "zzz"}),
    );
    assert_eq!(refusal["code"], "invalid_revision");
    let refusal = tool_refusal(&env, "notes_restore", json!({"address": "plan"}));
    assert_eq!(refusal["code"], "invalid_params");
    let refusal = tool_refusal(&env, "notes_log", json!({"limit": 0}));
    assert_eq!(refusal["code"], "invalid_params");
}

#[test]
fn a_log_page_fits_the_tool_budget_and_says_there_is_more() {
    let env = TestEnv::new();
    let big = "x".repeat(200);
    for i in 0..300 {
        tool_ok(
            &env,
            "notes_write",
            json!({"address": format!("@human/{big}-{i}"), "content": "c"}),
        );
    }
    let response = tool(&env, "notes_log", json!({"limit": 300}));
    let page: serde_json::Value = serde_json::from_str(text(&response)).unwrap();
    let shown = page["commits"].as_array().unwrap().len();
    assert!(shown > 0 && shown < 300, "{shown}");
    assert_eq!(page["more"], true);
}

/// Sets a file's modification time `seconds` into the past.
fn age(path: &Path, seconds: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(seconds);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

/// Whether every note on disk is in HEAD exactly as it is on disk.
fn assert_disk_is_head(home: &Path) {
    let mut stack = vec![home.join("human")];
    let mut seen = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path
                    .strip_prefix(home)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                assert_eq!(
                    at_head(home, &rel).as_deref(),
                    Some(read_file(&path).as_str()),
                    "{rel} on disk is in HEAD"
                );
                seen += 1;
            }
        }
    }
    assert!(seen > 0, "notes were checked");
}

#[test]
fn a_stale_branch_lock_is_taken_over_and_the_write_is_committed_without_a_warning() {
    let env = TestEnv::new();
    let home = env.notes_home();
    write(&env, "@human/first", "one");
    let lock = home.join(".git/refs/heads/main.lock");
    std::fs::write(&lock, "").unwrap();
    age(&lock, 60);
    let output = notes(&env, &["write", "@human/second", "--content", "two"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!lock.exists(), "the stale lock is gone");
    assert_eq!(subjects(&home)[0], "write @human/second.md");
    assert_disk_is_head(&home);
    git_fsck(&home);
}

#[test]
fn a_held_branch_lock_is_named_and_the_change_it_blocked_is_committed_with_the_next_write() {
    let env = TestEnv::new();
    let home = env.notes_home();
    write(&env, "@human/first", "one");
    let lock = home.join(".git/refs/heads/main.lock");
    std::fs::write(&lock, "").unwrap();
    // A live holder: the lock stays fresh for longer than any commit waits.
    let done = std::sync::atomic::AtomicBool::new(false);
    let blocked = std::thread::scope(|scope| {
        let keeper = scope.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::File::options()
                    .write(true)
                    .open(&lock)
                    .and_then(|f| f.set_modified(std::time::SystemTime::now()));
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        });
        let output = notes(&env, &["write", "@human/blocked", "--content", "kept"])
            .output()
            .unwrap();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        keeper.join().unwrap();
        output
    });
    assert!(
        blocked.status.success(),
        "the write itself succeeds: {blocked:?}"
    );
    let stderr = String::from_utf8_lossy(&blocked.stderr);
    assert!(stderr.contains("warning:"), "{stderr}");
    assert!(
        stderr.contains(&lock.display().to_string()),
        "names the lock: {stderr}"
    );
    assert!(!stderr.contains("race"), "a lock is not a race: {stderr}");
    assert!(
        stderr.contains(&format!("rm {}", lock.display())),
        "{stderr}"
    );
    assert!(read_file(&home.join("human/blocked.md")).ends_with("kept"));
    assert_eq!(
        at_head(&home, "human/blocked.md"),
        None,
        "not committed yet"
    );
    let (status, doctor) = {
        let output = env.cmd().args(["dream", "doctor"]).output().unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    assert_eq!(status, Some(1), "{doctor}");
    assert!(
        doctor.contains("uncommitted_changes") || doctor.contains("not in the notes history"),
        "{doctor}"
    );
    // The holder finishes; the next write records the change that missed its commit.
    std::fs::remove_file(&lock).unwrap();
    write(&env, "@human/later", "three");
    let head = &history(&home)[0];
    assert!(
        head.paths.contains(&"human/blocked.md".to_string()),
        "{head:?}"
    );
    assert!(
        head.message.contains("Recovered: human/blocked.md"),
        "{}",
        head.message
    );
    assert_disk_is_head(&home);
    assert!(!home
        .join(".locks/pending")
        .read_dir()
        .unwrap()
        .any(|_| true));
    let output = env.cmd().args(["dream", "doctor"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&output.stdout).contains("uncommitted"));
}

#[test]
fn doctor_names_a_stale_git_lock() {
    let env = TestEnv::new();
    let home = env.notes_home();
    write(&env, "@human/first", "one");
    for name in ["refs/heads/main.lock", "index.lock"] {
        let lock = home.join(".git").join(name);
        std::fs::write(&lock, "").unwrap();
        age(&lock, 120);
    }
    let fresh = home.join(".git/HEAD.lock");
    std::fs::write(&fresh, "").unwrap();
    let output = env
        .cmd()
        .args(["dream", "doctor", "--json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let stale: Vec<&str> = report["issues"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["code"] == "git_lock_stale")
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        stale,
        [".git/index.lock", ".git/refs/heads/main.lock"],
        "a fresh lock is a live update"
    );
    let human =
        String::from_utf8_lossy(&env.cmd().args(["dream", "doctor"]).output().unwrap().stdout)
            .into_owned();
    assert!(
        human.contains(&format!("rm {}", home.join(".git/index.lock").display())),
        "{human}"
    );
}

#[test]
fn writers_killed_at_random_points_leave_no_change_out_of_the_history() {
    let env = TestEnv::new();
    let home = env.notes_home();
    write(&env, "@human/seed", "seed");
    let mut rounds = 0;
    for round in 0..60u64 {
        let mut children: Vec<_> = (0..4)
            .map(|w| {
                process(
                    &env,
                    &[
                        "write",
                        &format!("@human/n{w}"),
                        "--content",
                        &format!("round {round}"),
                    ],
                )
                .spawn()
                .unwrap()
            })
            .collect();
        // Spread the kills over the whole of a write (a few milliseconds).
        std::thread::sleep(std::time::Duration::from_micros(500 + (round * 977) % 9000));
        for child in &mut children {
            let _ = child.kill();
        }
        for mut child in children {
            let _ = child.wait();
        }
        rounds += 1;
    }
    assert_eq!(rounds, 60);
    // One write that can commit records every change the killed writers left.
    let output = notes(&env, &["write", "@human/after", "--content", "done"])
        .output()
        .unwrap();
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "{output:?}"
    );
    assert_disk_is_head(&home);
    git_fsck(&home);
    let refs_locks: Vec<_> = std::fs::read_dir(home.join(".git/refs/heads"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".lock"))
        .collect();
    assert!(refs_locks.is_empty(), "{refs_locks:?}");
}

/// `git` run in the notes home as a person would, with a fixed identity and no user config.
fn person_git(env: &TestEnv, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(env.notes_home())
        .env("HOME", env.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "person")
        .env("GIT_AUTHOR_EMAIL", "person@example.com")
        .env("GIT_COMMITTER_NAME", "person")
        .env("GIT_COMMITTER_EMAIL", "person@example.com")
        .output()
        .expect("run git")
}

#[test]
fn git_status_and_commit_a_in_the_home_see_every_note_as_committed() {
    let env = TestEnv::new();
    let home = env.notes_home();
    write(&env, "@human/a", "a");
    std::thread::scope(|scope| {
        for worker in 0..4 {
            let env = &env;
            scope.spawn(move || {
                for i in 0..10 {
                    let address = format!("@human/w{worker}-{i}");
                    let output = process(env, &["write", &address, "--content", "x"])
                        .output()
                        .unwrap();
                    assert!(output.status.success(), "{output:?}");
                }
            });
        }
    });
    let status = person_git(&env, &["status", "--porcelain", "--untracked-files=all"]);
    assert!(status.status.success(), "{status:?}");
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "",
        "git status is clean"
    );
    let head_before = subjects(&home).len();
    let commit = person_git(&env, &["commit", "-a", "-m", "by hand"]);
    assert!(!commit.status.success(), "nothing to commit: {commit:?}");
    assert_eq!(subjects(&home).len(), head_before);
    // After a person's commit, writes go on and git still sees them as committed.
    std::fs::write(home.join("human/a.md"), "changed by hand\n").unwrap();
    assert!(person_git(&env, &["commit", "-a", "-m", "by hand"])
        .status
        .success());
    write(&env, "@human/b", "b");
    let status = person_git(&env, &["status", "--porcelain"]);
    assert_eq!(String::from_utf8_lossy(&status.stdout), "");
    assert_disk_is_head(&home);
}

#[test]
fn writes_while_a_person_holds_the_index_lock_are_in_the_index_once_it_is_released() {
    let env = TestEnv::new();
    let home = env.notes_home();
    write(&env, "@human/a", "a");
    // A person's `git commit` holds index.lock while their editor is open.
    let lock = home.join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    for name in ["b", "c"] {
        let output = notes(
            &env,
            &["write", &format!("@human/{name}"), "--content", name],
        )
        .output()
        .unwrap();
        assert!(
            output.status.success() && output.stderr.is_empty(),
            "{output:?}"
        );
    }
    assert!(lock.exists(), "a person's lock is never taken away");
    assert!(
        home.join(".locks/index-stale").exists(),
        "the missed edits are marked"
    );
    std::fs::remove_file(&lock).unwrap();
    write(&env, "@human/d", "d");
    assert!(!home.join(".locks/index-stale").exists());
    let status = person_git(&env, &["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "",
        "git status is clean"
    );
    assert_disk_is_head(&home);
}

/// A notes home whose index lists `count` committed notes, so that a write holds
/// `.git/index.lock` long enough (its edit reads and writes the whole index) to be caught.
fn home_with_a_large_index(env: &TestEnv, count: usize) {
    let home = env.notes_home();
    write(env, "@human/seed", "seed");
    for i in 0..count {
        let dir = home.join(format!("human/bulk/d{}", i % 50));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("n{i}.md")), format!("note {i}\n")).unwrap();
    }
    for args in [&["add", "-A"][..], &["commit", "-q", "-m", "bulk"][..]] {
        let output = person_git(env, args);
        assert!(output.status.success(), "{output:?}");
    }
}

fn send_signal(child: &std::process::Child, signal: libc::c_int) {
    // SAFETY: kill(2) on our own child's pid.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    assert_eq!(sent, 0);
}

/// A `notes write` of `address` caught with `signal` (SIGKILL or SIGSTOP) while it holds
/// `.git/index.lock`: writes are started until one is caught in that instant.
fn caught_holding_the_index_lock(
    env: &TestEnv,
    address: &str,
    signal: libc::c_int,
) -> std::process::Child {
    let lock = env.notes_home().join(".git/index.lock");
    for attempt in 0..40 {
        let content = format!("attempt {attempt}");
        let mut child = process(env, &["write", address, "--content", &content])
            .spawn()
            .unwrap();
        while !lock.exists() {
            if child.try_wait().unwrap().is_some() {
                break;
            }
        }
        if lock.exists() {
            send_signal(&child, signal);
            if signal == libc::SIGKILL {
                child.wait().unwrap();
            }
            if lock.exists() {
                return child;
            }
            if signal == libc::SIGSTOP {
                send_signal(&child, libc::SIGCONT);
            }
        }
        assert!(child.wait().unwrap().success() || signal == libc::SIGKILL);
    }
    panic!("no write was caught holding the index lock");
}

#[test]
fn a_writer_killed_holding_the_index_lock_leaves_it_to_the_next_write() {
    let env = TestEnv::new();
    let home = env.notes_home();
    home_with_a_large_index(&env, 2000);
    let lock = home.join(".git/index.lock");
    let mut killed = caught_holding_the_index_lock(&env, "@human/a", libc::SIGKILL);
    assert!(!killed.wait().unwrap().success());
    // Age says nothing (a person's `git commit` holds the lock for minutes): the lock is
    // known to be a dead writer's.
    age(&lock, 3600);
    let doctor = env
        .cmd()
        .args(["dream", "doctor", "--json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let issue = (report["issues"].as_array().unwrap().iter())
        .find(|i| i["path"] == ".git/index.lock")
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(issue["code"], "git_lock_stale");
    assert!(
        issue["message"]
            .as_str()
            .unwrap()
            .contains("the next notes write takes it over"),
        "{issue}"
    );
    let output = notes(&env, &["write", "@human/b", "--content", "b"])
        .output()
        .unwrap();
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "{output:?}"
    );
    assert!(!lock.exists(), "the dead writer's lock is taken over");
    assert!(!home.join(".locks/index-stale").exists());
    let status = person_git(&env, &["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "",
        "git status is clean: the index holds the dead writer's commit too"
    );
    assert_disk_is_head(&home);
    git_fsck(&home);
}

#[test]
fn the_index_lock_of_a_live_writer_is_never_taken_however_old() {
    let env = TestEnv::new();
    let home = env.notes_home();
    home_with_a_large_index(&env, 2000);
    let lock = home.join(".git/index.lock");
    let mut stopped = caught_holding_the_index_lock(&env, "@human/a", libc::SIGSTOP);
    let held = std::fs::read(&lock).unwrap();
    age(&lock, 3600);
    let output = notes(&env, &["write", "@human/b", "--content", "b"])
        .output()
        .unwrap();
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "{output:?}"
    );
    assert_eq!(
        std::fs::read(&lock).ok(),
        Some(held),
        "the stopped writer's lock is left to it"
    );
    assert!(
        home.join(".locks/index-stale").exists(),
        "the missed edit is marked"
    );
    send_signal(&stopped, libc::SIGCONT);
    assert!(stopped.wait().unwrap().success());
    assert!(!lock.exists(), "its writer removed it");
    write(&env, "@human/c", "c");
    assert!(!home.join(".locks/index-stale").exists());
    let status = person_git(&env, &["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(String::from_utf8_lossy(&status.stdout), "");
    assert_disk_is_head(&home);
}
