//! `notes sync`: notes homes as machines, exchanging their history through a bare repository on
//! disk, with the real binary and the real `git`.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::dream::{emit_done, forced_dream, head_file, head_paths, hermetic_cmd, FakePi};
use common::pi::{sh_quote, write_script};
use common::{git, git_command, CommandOutput, TestEnv};
use serde_json::Value;

// ---- machines and the remote --------------------------------------------------------------

/// A `PATH` whose first `git` writes each of its command lines to the returned log, then runs
/// the real `git`.
fn logging_git(env: &TestEnv) -> (std::ffi::OsString, PathBuf) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let real = std::env::split_paths(&path)
        .map(|dir| dir.join("git"))
        .find(|git| git.is_file())
        .expect("git on PATH");
    let dir = env.root().join("logging-git");
    let log = dir.join("log");
    write_script(
        &dir.join("git"),
        &format!(
            "printf '%s\\n' \"$*\" >> {}\nexec {} \"$@\"",
            sh_quote(&log),
            sh_quote(&real)
        ),
    );
    let mut dirs = vec![dir];
    dirs.extend(std::env::split_paths(&path));
    (std::env::join_paths(dirs).expect("a PATH"), log)
}

/// A bare repository on disk: the remote every machine syncs with.
struct Remote {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Remote {
    fn new() -> Remote {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("notes.git");
        git(dir.path(), &["init", "--quiet", "--bare", "notes.git"]);
        Remote { _dir: dir, path }
    }

    fn url(&self) -> &str {
        self.path.to_str().expect("utf-8 temp path")
    }

    /// The remote's `main`, if it has one.
    fn tip(&self) -> Option<String> {
        let output = git_command(&self.path)
            .args(["rev-parse", "--verify", "--quiet", "refs/heads/main"])
            .output()
            .unwrap();
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    }
}

/// `git fsck --full` passes: exit 0 and no error (dangling objects of a killed run are fine).
fn assert_fsck_clean(git_dir: &Path) {
    let output = git_command(git_dir)
        .args(["fsck", "--full", "--no-progress"])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "git fsck failed:\n{text}");
    for bad in ["error", "missing", "broken", "corrupt", "bad "] {
        assert!(!text.contains(bad), "git fsck reports {bad:?}:\n{text}");
    }
}

/// One machine: a notes home of its own.
struct Machine {
    env: TestEnv,
}

impl Machine {
    fn new() -> Machine {
        Machine {
            env: TestEnv::new(),
        }
    }

    fn home(&self) -> PathBuf {
        self.env.notes_home()
    }

    fn write(&self, address: &str, body: &str, now: &str) {
        let _ = self
            .env
            .run_with(|cmd| {
                cmd.args(["notes", "write", address])
                    .env("PI_CONTEXT_NOW", now)
                    .write_stdin(body)
            })
            .success();
    }

    fn edit(&self, address: &str, old: &str, new: &str, now: &str) {
        let _ = self
            .env
            .run_with(|cmd| {
                cmd.args(["notes", "edit", address, "--old", old, "--new", new])
                    .env("PI_CONTEXT_NOW", now)
            })
            .success();
    }

    fn sync_output(&self, remote: &Remote) -> CommandOutput {
        self.env
            .run(["notes", "sync", "--json", "--remote", remote.url()])
    }

    /// A sync that must succeed; its JSON outcome.
    fn sync(&self, remote: &Remote) -> Value {
        self.sync_output(remote).success().json()
    }

    /// `pi-context ARGS` on this machine, as a snapshot shows it (the remote as `$REMOTE`).
    fn shown(&self, remote: &Remote, args: &[&str]) -> String {
        self.env
            .run(args)
            .to_string()
            .replace(remote.url(), "$REMOTE")
    }

    /// The body of a note file (relative to the home), if it exists.
    fn body(&self, rel: &str) -> Option<String> {
        let text = fs::read_to_string(self.home().join(rel)).ok()?;
        Some(match text.split_once("\n---\n") {
            Some((_, body)) => body.trim_start_matches('\n').to_string(),
            None => text,
        })
    }

    /// Every file of the home a commit holds, with its content.
    fn files(&self) -> BTreeMap<String, String> {
        home_files(&self.home())
    }

    /// The home's files are exactly HEAD's.
    fn assert_files_equal_head(&self) {
        let home = self.home();
        let head: BTreeMap<String, String> = head_paths(&home)
            .into_iter()
            .map(|p| {
                let content = head_file(&home, &p).unwrap();
                (p, content)
            })
            .collect();
        assert_eq!(self.files(), head, "the home's files differ from HEAD");
    }
}

fn home_files(home: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let rel = entry
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let top = rel.split('/').next().unwrap().to_string();
            if [
                ".git",
                ".locks",
                ".sync.lock",
                ".dream.lock",
                ".dream.lock.last-run",
            ]
            .contains(&top.as_str())
                || rel.ends_with(".tmp")
            {
                continue;
            }
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                walk(root, &entry.path(), out);
            } else {
                out.insert(rel, fs::read_to_string(entry.path()).unwrap_or_default());
            }
        }
    }
    let mut out = BTreeMap::new();
    if home.exists() {
        walk(home, home, &mut out);
    }
    out
}

const T0: &str = "2026-03-01T09:00:00.000Z";
const T1: &str = "2026-03-01T10:00:00.000Z";
const T2: &str = "2026-03-01T11:00:00.000Z";

fn lines(prefix: &str) -> String {
    (1..=5).map(|i| format!("{prefix} line {i}\n")).collect()
}

fn paths_of(value: &Value, key: &str) -> Vec<String> {
    value[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is an array: {value}"))
        .iter()
        .map(|c| c["path"].as_str().unwrap().to_string())
        .collect()
}

/// Two machines that share `n1` … `n4` (five lines each) through `remote`.
fn two_machines(remote: &Remote) -> (Machine, Machine) {
    let (a, b) = (Machine::new(), Machine::new());
    for n in 1..=4 {
        a.write(&format!("@human/n{n}"), &lines(&format!("n{n}")), T0);
    }
    let first = a.sync(remote);
    assert_eq!(first["pushed"], true, "{first}");
    b.sync(remote);
    assert_eq!(a.files(), b.files());
    (a, b)
}

// ---- two machines ---------------------------------------------------------------------------

#[test]
fn a_first_sync_pushes_into_an_empty_remote_and_an_empty_home_checks_the_notes_out() {
    let remote = Remote::new();
    let a = Machine::new();
    a.write("@human/prefs", "tabs, not spaces\n", T0);
    let pushed = a.sync(&remote);
    assert_eq!(pushed["pushed"], true);
    assert_eq!(
        pushed["fetched"],
        Value::Null,
        "the remote had no branch yet"
    );
    let a_head = git(&a.home(), &["rev-parse", "HEAD"]);
    assert_eq!(remote.tip().as_deref(), Some(a_head.trim()));

    // A machine that never had a notes home.
    let b = Machine::new();
    fs::remove_dir(b.home()).unwrap();
    let got = b.sync(&remote);
    assert_eq!(got["pushed"], false, "nothing of its own to push");
    assert_eq!(paths_of(&got, "changed"), ["human/prefs.md"]);
    assert_eq!(b.body("human/prefs.md").unwrap(), "tabs, not spaces\n");
    assert_eq!(
        git(&b.home(), &["rev-parse", "HEAD"]),
        a_head,
        "a fast-forward: the same commit"
    );
    b.assert_files_equal_head();
    // Quiet when nothing needs attention and stdout is not a terminal.
    let quiet = b
        .env
        .run(["notes", "sync", "--remote", remote.url()])
        .success();
    assert!(
        quiet.stdout.is_empty() && quiet.stderr.is_empty(),
        "{quiet}"
    );
}

#[test]
fn edits_on_each_side_and_different_lines_of_one_note_merge() {
    let remote = Remote::new();
    let (a, b) = two_machines(&remote);
    a.edit("@human/n1", "n1 line 1", "n1 line 1 (from a)", T1);
    a.write("@human/only-a", "a's own\n", T1);
    b.edit("@human/n1", "n1 line 5", "n1 line 5 (from b)", T2);
    b.edit("@human/n2", "n2 line 3", "n2 line 3 (from b)", T2);
    b.write("@human/only-b", "b's own\n", T2);

    a.sync(&remote);
    let merged = b.sync(&remote);
    assert_eq!(merged["conflicts"], serde_json::json!([]), "{merged}");
    assert_eq!(merged["pushed"], true);
    a.sync(&remote);

    for machine in [&a, &b] {
        let n1 = machine.body("human/n1.md").unwrap();
        assert!(n1.starts_with("n1 line 1 (from a)\n"), "{n1}");
        assert!(n1.ends_with("n1 line 5 (from b)\n"), "{n1}");
        assert!(machine
            .body("human/n2.md")
            .unwrap()
            .contains("n2 line 3 (from b)"));
        assert_eq!(machine.body("human/only-a.md").unwrap(), "a's own\n");
        assert_eq!(machine.body("human/only-b.md").unwrap(), "b's own\n");
        machine.assert_files_equal_head();
    }
    assert_eq!(a.files(), b.files());
    // The metadata merged key by key: the later update time, no conflict on it.
    let n1 = fs::read_to_string(b.home().join("human/n1.md")).unwrap();
    assert!(n1.contains("updatedAt: 2026-03-01T11:00:00.000"), "{n1}");
    assert!(n1.contains("createdAt: 2026-03-01T09:00:00.000"), "{n1}");
}

#[test]
fn a_read_is_no_change_to_sync_and_its_counters_survive_the_merge() {
    let remote = Remote::new();
    let (a, b) = two_machines(&remote);
    for _ in 0..3 {
        let _ = a
            .env
            .run_with(|cmd| {
                cmd.args(["notes", "read", "@human/n1"])
                    .env("PI_CONTEXT_NOW", T1)
            })
            .success();
    }
    let commits = git(&a.home(), &["rev-list", "--count", "HEAD"]);
    let nothing = a.sync(&remote);
    assert_eq!(
        nothing["local_commit"],
        Value::Null,
        "a read is not a commit: {nothing}"
    );
    assert_eq!(nothing["pushed"], false);
    assert_eq!(git(&a.home(), &["rev-list", "--count", "HEAD"]), commits);

    b.edit("@human/n1", "n1 line 3", "n1 line 3 by b", T2);
    b.sync(&remote);
    let merged = a.sync(&remote);
    assert_eq!(merged["local_commit"], Value::Null, "{merged}");
    let text = fs::read_to_string(a.home().join("human/n1.md")).unwrap();
    assert!(text.contains("n1 line 3 by b"), "{text}");
    assert!(
        text.contains("accessCount: 3"),
        "the reads are still counted: {text}"
    );
    assert!(
        text.contains("updatedAt: 2026-03-01T11:00:00.000"),
        "{text}"
    );
}

#[test]
fn the_same_line_changed_on_both_sides_keeps_both_versions_between_markers() {
    let remote = Remote::new();
    let (a, b) = two_machines(&remote);
    a.edit("@human/n1", "n1 line 2", "line two as a says", T1);
    b.edit("@human/n1", "n1 line 2", "line two as b says", T2);
    a.sync(&remote);

    // A conflict is reported even when quiet.
    insta::assert_snapshot!(b.shown(&remote, &["notes", "sync", "--remote", remote.url()]));
    let body = b.body("human/n1.md").unwrap();
    assert!(body.starts_with("n1 line 1\n<<<<<<< ours ("), "{body}");
    assert!(
        body.contains("line two as b says\n=======\nline two as a says\n>>>>>>> theirs ("),
        "{body}"
    );
    assert!(body.ends_with("n1 line 5\n"), "{body}");
    b.assert_files_equal_head();

    // The other machine gets the note with both versions, and a JSON report says nothing new.
    let again = a.sync(&remote);
    assert_eq!(again["conflicts"], serde_json::json!([]));
    assert_eq!(a.body("human/n1.md").unwrap(), body);

    // `dream doctor` flags it on both machines until someone resolves it.
    for machine in [&a, &b] {
        let report = machine.env.run(["dream", "doctor", "--json"]).json();
        let flagged: Vec<&str> = report["issues"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["code"] == "conflict_markers")
            .map(|i| i["path"].as_str().unwrap())
            .collect();
        assert_eq!(flagged, ["human/n1.md"], "{report}");
    }
    a.write("@human/n1", &lines("n1"), T2);
    a.sync(&remote);
    b.sync(&remote);
    let doctor = b.env.run(["dream", "doctor", "--json"]);
    assert!(
        !doctor.stdout.contains("conflict_markers"),
        "resolved: no longer flagged: {doctor}"
    );
}

#[test]
fn a_conflict_in_json_names_the_address_and_the_path() {
    let remote = Remote::new();
    let (a, b) = two_machines(&remote);
    a.edit("@human/n3", "n3 line 1", "first by a", T1);
    b.edit("@human/n3", "n3 line 1", "first by b", T2);
    a.sync(&remote);
    let merged = b.sync(&remote);
    assert_eq!(
        merged["conflicts"],
        serde_json::json!([{"address": "@human/n3.md", "path": "human/n3.md"}])
    );
    assert_eq!(merged["pushed"], true);
}

#[test]
fn delete_against_edit_keeps_the_edit_in_either_direction() {
    let remote = Remote::new();
    let (a, b) = two_machines(&remote);
    // A deletes n1 (by hand) while B edits it; B deletes n2 while A edits it.
    fs::remove_file(a.home().join("human/n1.md")).unwrap();
    b.edit("@human/n1", "n1 line 4", "n1 line 4 (kept)", T1);
    a.edit("@human/n2", "n2 line 4", "n2 line 4 (kept)", T1);
    fs::remove_file(b.home().join("human/n2.md")).unwrap();
    // And both delete n3: it stays deleted.
    fs::remove_file(a.home().join("human/n3.md")).unwrap();
    fs::remove_file(b.home().join("human/n3.md")).unwrap();

    a.sync(&remote);
    b.sync(&remote);
    a.sync(&remote);
    for machine in [&a, &b] {
        assert!(machine
            .body("human/n1.md")
            .unwrap()
            .contains("n1 line 4 (kept)"));
        assert!(machine
            .body("human/n2.md")
            .unwrap()
            .contains("n2 line 4 (kept)"));
        assert!(!machine.home().join("human/n3.md").exists());
        machine.assert_files_equal_head();
    }
    assert_eq!(a.files(), b.files());
}

#[test]
fn a_move_on_one_side_arrives_on_the_other_and_a_move_against_an_edit_loses_nothing() {
    let remote = Remote::new();
    let (a, b) = two_machines(&remote);
    let _ = a
        .env
        .run(["notes", "move", "@human/n1", "@human/renamed"])
        .success();
    let _ = a
        .env
        .run(["notes", "move", "@human/n2", "@human/moved-away"])
        .success();
    b.edit("@human/n2", "n2 line 1", "n2 line 1 (edited on b)", T2);
    a.sync(&remote);
    b.sync(&remote);
    a.sync(&remote);
    for machine in [&a, &b] {
        assert!(!machine.home().join("human/n1.md").exists());
        assert_eq!(machine.body("human/renamed.md").unwrap(), lines("n1"));
        // The moved copy and the edit at the old address are both there.
        assert_eq!(machine.body("human/moved-away.md").unwrap(), lines("n2"));
        assert!(machine
            .body("human/n2.md")
            .unwrap()
            .contains("(edited on b)"));
        machine.assert_files_equal_head();
    }
}

#[test]
fn the_same_new_address_on_two_machines_that_never_synced_keeps_both_notes() {
    let remote = Remote::new();
    let (a, b) = (Machine::new(), Machine::new());
    a.write("@human/plan", "# Plan\nship the cache\nthen docs\n", T1);
    b.write("@human/plan", "# Plan\nfix the parser\nthen docs\n", T2);
    b.write("@human/other", "b only\n", T2);
    a.sync(&remote);
    // Unrelated histories: merged from an empty base.
    let merged = b.sync(&remote);
    assert_eq!(paths_of(&merged, "conflicts"), ["human/plan.md"]);
    let body = b.body("human/plan.md").unwrap();
    assert!(body.starts_with("# Plan\n<<<<<<< ours ("), "{body}");
    assert!(
        body.contains("fix the parser\n=======\nship the cache\n"),
        "{body}"
    );
    assert!(body.ends_with("then docs\n"), "{body}");
    a.sync(&remote);
    assert_eq!(a.files(), b.files());
    assert_eq!(a.body("human/other.md").unwrap(), "b only\n");
}

// ---- exit statuses ----------------------------------------------------------------------------

#[test]
fn without_a_remote_the_sync_is_a_usage_error_and_the_configured_remote_is_used() {
    let remote = Remote::new();
    let a = Machine::new();
    a.write("@human/x", "x\n", T0);
    insta::assert_snapshot!(a.shown(&remote, &["notes", "sync"]));

    // The home repository's origin.
    git(&a.home(), &["remote", "add", "origin", remote.url()]);
    let _ = a.env.run(["notes", "sync", "--json"]).success();
    assert!(remote.tip().is_some());

    // The notesRemote setting, for a home whose repository has no remote.
    let remote2 = Remote::new();
    let b = Machine::new();
    b.write("@human/y", "y\n", T0);
    fs::write(
        b.env.root().join("pi-agent/settings.json"),
        serde_json::json!({"pi-context": {"notesRemote": remote2.url()}}).to_string(),
    )
    .unwrap();
    let _ = b.env.run(["notes", "sync"]).success();
    assert!(remote2.tip().is_some(), "pushed to the setting's remote");
}

#[test]
fn an_unreachable_remote_fails_with_gits_own_message_and_changes_nothing() {
    let a = Machine::new();
    a.write("@human/x", "x\n", T0);
    let head = git(&a.home(), &["rev-parse", "HEAD"]);
    let missing = a.env.root().join("no-such-remote.git");
    // git's own message is shown (its wording is git's, so only checked for a phrase).
    let output = a
        .env
        .run_with(|cmd| cmd.args(["notes", "sync", "--remote"]).arg(&missing))
        .expect_code(1);
    assert!(
        output
            .stderr
            .contains("does not appear to be a git repository"),
        "{output}"
    );
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"(?s)\): fatal: .*\nhint: ", "): [git's message]\nhint: ");
    settings.bind(|| insta::assert_snapshot!(output));
    assert_eq!(git(&a.home(), &["rev-parse", "HEAD"]), head);
    assert!(
        !a.home().join(".sync.lock").exists(),
        "the lock is released"
    );
    // A remote that looks like an option is refused before git sees it.
    let _ = a
        .env
        .run(["notes", "sync", "--remote=--upload-pack=touch /tmp/x"])
        .expect_code(2);
}

#[test]
fn a_refused_repository_is_exit_74() {
    let remote = Remote::new();
    let a = Machine::new();
    a.write("@human/x", "x\n", T0);
    let elsewhere = a.env.root().join("elsewhere.git");
    fs::rename(a.home().join(".git"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, a.home().join(".git")).unwrap();
    let output = a.sync_output(&remote).expect_code(74);
    assert!(output.stderr.contains("symbolic link"), "{output}");
    assert!(remote.tip().is_none());
}

// ---- locks: a sync, another sync, a dream ----------------------------------------------------

/// A sync started in the background that stops at `point` (the test-only pause hook) and says
/// so on stderr before it sleeps.
fn spawn_paused_sync(machine: &Machine, remote: &Remote, pause: &str) -> Child {
    let mut child = hermetic_cmd(&machine.env, &assert_cmd::cargo::cargo_bin("pi-context"))
        .args(["notes", "sync", "--json", "--remote", remote.url()])
        .env("PI_CONTEXT_SYNC_TEST_PAUSE", pause)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sync");
    let point = pause.split(':').next().unwrap();
    let mut reader = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).unwrap();
        assert!(n > 0, "the sync ended before the pause at {point}");
        if line.contains(&format!("test pause at {point}")) {
            break;
        }
    }
    // Keep draining stderr so the child never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = reader.read_to_string(&mut rest);
    });
    child
}

fn kill(mut child: Child) {
    child.kill().expect("SIGKILL the sync");
    child.wait().unwrap();
}

/// A dreamer that blocks until `<dir>/go` exists.
fn blocking_pi(dir: &Path) -> (FakePi, PathBuf) {
    let go = dir.join("go");
    let pi = FakePi::new(
        dir,
        "pi-blocking",
        &format!(
            "n=0\nwhile [ ! -e {go} ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done\n{done}",
            go = sh_quote(&go),
            done = emit_done("slow dream done"),
        ),
    );
    (pi, go)
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_running_sync_refuses_a_dream_a_dream_undo_and_another_sync_with_75() {
    let remote = Remote::new();
    let a = Machine::new();
    a.write("@human/x", "x\n", T0);
    let sync = spawn_paused_sync(&a, &remote, "locked");

    let pi = FakePi::done(&a.env.work(), "dreamt");
    let dream = a.env.output_of(&mut forced_dream(&a.env, &pi.path));
    assert!(dream.expect_code(75).stderr.contains("notes sync"));
    assert!(!pi.ran(), "the dreamer never started");
    assert!(
        !a.home().join(".dream.lock").exists(),
        "the dream let go of its lock"
    );
    let _ = a.env.run(["dream", "undo"]).expect_code(75);
    let second = a.sync_output(&remote).expect_code(75);
    assert!(second.stderr.contains("another notes sync"), "{second}");

    // A sync killed with its lock held: the lock is stale, the next sync takes it over, and a
    // dream is not stopped by it.
    kill(sync);
    assert!(a.home().join(".sync.lock").exists());
    let _ = a
        .env
        .output_of(&mut forced_dream(&a.env, &pi.path))
        .success();
    assert!(pi.ran());
    a.sync(&remote);
    assert!(!a.home().join(".sync.lock").exists());
    assert!(remote.tip().is_some());
}

#[test]
fn a_running_or_dead_dream_refuses_a_sync_with_75() {
    let remote = Remote::new();
    let a = Machine::new();
    a.write("@human/x", "x\n", T0);
    let (pi, go) = blocking_pi(&a.env.work());
    let mut dream = common::dream::std_dream_cmd(&a.env)
        .args(["--force", "--pi"])
        .arg(&pi.path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the dreamer to start", || pi.ran());
    let output = a.sync_output(&remote).expect_code(75);
    assert!(output.stderr.contains("a dream is running"), "{output}");
    assert!(remote.tip().is_none(), "nothing pushed");
    assert!(
        !a.home().join(".sync.lock").exists(),
        "the sync let go of its lock"
    );
    fs::write(&go, "").unwrap();
    assert!(dream.wait().unwrap().success());

    // A dream that died with its lock: a person decides (dream doctor), and a sync waits.
    fs::write(a.home().join(".dream.lock"), "999999 dead-dream").unwrap();
    let output = a.sync_output(&remote).expect_code(75);
    assert!(
        output.stderr.contains("died") && output.stderr.contains("rm "),
        "{output}"
    );
    fs::remove_file(a.home().join(".dream.lock")).unwrap();
    a.sync(&remote);
    assert!(remote.tip().is_some());
}

// ---- crash safety ---------------------------------------------------------------------------

/// A and B diverged on several notes: merged edits, a conflict, a delete against an edit, a
/// delete, and notes of their own. B has pushed; A's sync is the one to kill.
fn diverged(remote: &Remote) -> (Machine, Machine) {
    let (a, b) = two_machines(remote);
    a.edit("@human/n1", "n1 line 1", "n1 line 1 by a", T1);
    b.edit("@human/n1", "n1 line 5", "n1 line 5 by b", T2);
    a.edit("@human/n2", "n2 line 2", "n2 line 2 by a", T1);
    b.edit("@human/n2", "n2 line 2", "n2 line 2 by b", T2);
    fs::remove_file(a.home().join("human/n3.md")).unwrap();
    b.edit("@human/n3", "n3 line 3", "n3 line 3 by b", T2);
    fs::remove_file(b.home().join("human/n4.md")).unwrap();
    a.write("@human/a-own", "from a\n", T1);
    for i in 1..=3 {
        b.write(&format!("@project/b-{i}"), &format!("from b {i}\n"), T2);
    }
    b.sync(remote);
    (a, b)
}

fn assert_everything_merged(a: &Machine, b: &Machine) {
    for machine in [a, b] {
        let n1 = machine.body("human/n1.md").unwrap();
        assert!(
            n1.contains("n1 line 1 by a") && n1.contains("n1 line 5 by b"),
            "{n1}"
        );
        let n2 = machine.body("human/n2.md").unwrap();
        assert!(
            n2.contains("n2 line 2 by a") && n2.contains("n2 line 2 by b"),
            "{n2}"
        );
        assert_eq!(
            n2.matches("<<<<<<< ").count(),
            1,
            "one conflict, not nested: {n2}"
        );
        assert!(machine
            .body("human/n3.md")
            .unwrap()
            .contains("n3 line 3 by b"));
        assert!(!machine.home().join("human/n4.md").exists());
        assert_eq!(machine.body("human/a-own.md").unwrap(), "from a\n");
        let projects = machine.files().keys().filter(|p| p.contains("/b-")).count();
        assert_eq!(projects, 3, "{:?}", machine.files().keys());
        machine.assert_files_equal_head();
        assert_fsck_clean(&machine.home().join(".git"));
    }
    assert_eq!(a.files(), b.files());
}

#[test]
fn a_sync_killed_at_any_point_loses_nothing_and_the_next_sync_repairs_the_home() {
    for point in [
        "locked",
        "fetched",
        "file-written",
        "files-written",
        "merged",
    ] {
        let remote = Remote::new();
        let (a, b) = diverged(&remote);
        let before = a.files();
        let sync = spawn_paused_sync(&a, &remote, point);
        kill(sync);
        assert_fsck_clean(&a.home().join(".git"));
        // Every file is our version or the merge's, never a mix or a temp file in its place.
        for (path, content) in a.files() {
            if let Some(old) = before.get(&path) {
                if *old != content {
                    assert!(
                        point != "locked" && point != "fetched",
                        "{point}: {path} changed before the merge"
                    );
                }
            }
        }
        let rerun = a.sync(&remote);
        assert_eq!(rerun["pushed"], true, "{point}: {rerun}");
        b.sync(&remote);
        assert_everything_merged(&a, &b);
        assert_fsck_clean(&remote.path);
    }
}

// ---- many machines and many writers ----------------------------------------------------------

/// The notes `machine` holds of the simulation's.
fn simulated_notes(machine: &Machine) -> BTreeSet<String> {
    machine
        .files()
        .into_keys()
        .filter(|p| p.starts_with("human/m"))
        .collect()
}

#[test]
fn eight_machines_writing_while_they_sync_converge_and_lose_nothing() {
    const MACHINES: usize = 8;
    const WRITES: usize = 4;
    const MAX_ROUNDS: usize = 12;
    let remote = Remote::new();
    let machines: Vec<Machine> = (0..MACHINES).map(|_| Machine::new()).collect();
    let expected: BTreeSet<String> = (0..MACHINES)
        .flat_map(|m| (0..WRITES).map(move |w| format!("human/m{m}-w{w}.md")))
        .collect();
    // Rounds in lockstep: in each, every machine writes a note (the first WRITES rounds) and
    // syncs, all eight at once against the one remote; the rounds go on until every machine
    // holds every note.
    let started = Instant::now();
    let mut gave_up = 0;
    let mut rounds = 0;
    while rounds < MAX_ROUNDS {
        rounds += 1;
        let outputs: Vec<CommandOutput> = std::thread::scope(|scope| {
            let handles: Vec<_> = machines
                .iter()
                .enumerate()
                .map(|(m, machine)| {
                    let remote = &remote;
                    scope.spawn(move || {
                        if rounds <= WRITES {
                            let w = rounds - 1;
                            machine.write(
                                &format!("@human/m{m}-w{w}"),
                                &format!("machine {m} write {w}\n"),
                                T0,
                            );
                        }
                        machine.sync_output(remote)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (m, output) in outputs.iter().enumerate() {
            match output.code {
                0 => {}
                // Nothing lost: the next round pushes it.
                1 if output.stderr.contains("kept moving") => gave_up += 1,
                _ => panic!("machine {m} round {rounds}: {output}"),
            }
        }
        if machines.iter().all(|m| simulated_notes(m) == expected) {
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{MACHINES} machines x {WRITES} writes: converged after {rounds} rounds of {MACHINES} \
         concurrent syncs ({WRITES} of them writing), {seconds:.1} s; \
         {gave_up} syncs gave up on a remote that kept moving"
    );
    for (m, machine) in machines.iter().enumerate() {
        let have = simulated_notes(machine);
        let missing: Vec<_> = expected.difference(&have).collect();
        assert!(
            missing.is_empty(),
            "machine {m} lacks {missing:?} after {rounds} rounds"
        );
        for path in &expected {
            let (m, w) = path
                .trim_start_matches("human/m")
                .trim_end_matches(".md")
                .split_once("-w")
                .unwrap();
            assert_eq!(
                machine.body(path).as_deref(),
                Some(format!("machine {m} write {w}\n").as_str()),
                "{path}"
            );
        }
        machine.assert_files_equal_head();
    }
    assert_fsck_clean(&remote.path);
}

#[test]
fn eight_writers_during_a_sync_keep_every_write_on_disk_and_in_head() {
    const WRITERS: usize = 8;
    const NOTES: usize = 6;
    let remote = Remote::new();
    let (a, b) = two_machines(&remote);
    // B's changes for A to merge: edits of shared notes and new notes.
    b.edit("@human/n1", "n1 line 5", "n1 line 5 by b", T1);
    b.edit("@human/n2", "n2 line 5", "n2 line 5 by b", T1);
    for i in 0..10 {
        b.write(&format!("@human/from-b-{i}"), &format!("b {i}\n"), T1);
    }
    b.sync(&remote);

    // A's sync stops after its first file for a while; the writers run meanwhile (and two of
    // them edit notes the merge changes, so they wait for its locks).
    let sync = spawn_paused_sync(&a, &remote, "file-written:3000");
    let bin = assert_cmd::cargo::cargo_bin("pi-context");
    let writer_cmd = || {
        let mut cmd = hermetic_cmd(&a.env, &bin);
        cmd.env("PI_CONTEXT_NOW", T2);
        cmd
    };
    std::thread::scope(|scope| {
        for w in 0..WRITERS {
            let writer_cmd = &writer_cmd;
            scope.spawn(move || {
                if w < 2 {
                    let n = w + 1;
                    let output = writer_cmd()
                        .args(["notes", "edit", &format!("@human/n{n}")])
                        .args(["--old", &format!("n{n} line 1")])
                        .args(["--new", &format!("n{n} line 1 by writer {w}")])
                        .output()
                        .unwrap();
                    assert!(
                        output.status.success(),
                        "{}",
                        String::from_utf8_lossy(&output.stderr)
                    );
                }
                for i in 0..NOTES {
                    let mut child = writer_cmd()
                        .args(["notes", "write", &format!("@human/w{w}-{i}")])
                        .stdin(Stdio::piped())
                        .stdout(Stdio::null())
                        .stderr(Stdio::piped())
                        .spawn()
                        .unwrap();
                    child
                        .stdin
                        .take()
                        .unwrap()
                        .write_all(format!("writer {w} note {i}\n").as_bytes())
                        .unwrap();
                    let output = child.wait_with_output().unwrap();
                    assert!(
                        output.status.success(),
                        "{}",
                        String::from_utf8_lossy(&output.stderr)
                    );
                }
            });
        }
    });
    let output = sync.wait_with_output().unwrap();
    let _ = CommandOutput::new(
        "$ pi-context notes sync (paused)".into(),
        output,
        a.env.normalizer(),
    )
    .success();

    let home = a.home();
    for w in 0..WRITERS {
        for i in 0..NOTES {
            let rel = format!("human/w{w}-{i}.md");
            assert_eq!(a.body(&rel).unwrap(), format!("writer {w} note {i}\n"));
            assert!(head_file(&home, &rel).is_some(), "{rel} is in HEAD");
        }
    }
    for (n, w) in [(1, 0), (2, 1)] {
        let body = a.body(&format!("human/n{n}.md")).unwrap();
        assert!(body.contains(&format!("by writer {w}")), "{body}");
        assert!(body.contains(&format!("n{n} line 5 by b")), "{body}");
    }
    for i in 0..10 {
        assert_eq!(
            a.body(&format!("human/from-b-{i}.md")).unwrap(),
            format!("b {i}\n")
        );
    }
    a.assert_files_equal_head();
    assert_fsck_clean(&home.join(".git"));
    // Linear but for the sync's merges: each commit has one parent, a merge is a sync's.
    let log = git(&home, &["log", "--format=%H %P|%s"]);
    let mut merges = 0;
    for line in log.lines() {
        let (ids, subject) = line.split_once('|').unwrap();
        let parents = ids.split_whitespace().count() - 1;
        assert!(parents <= 2, "{line}");
        if parents == 2 {
            merges += 1;
            assert!(subject.starts_with("sync "), "{line}");
        }
    }
    assert_eq!(merges, 1, "{log}");
    let writes = log
        .lines()
        .filter(|l| l.contains("|write @human/w"))
        .count();
    assert_eq!(writes, WRITERS * NOTES, "one commit per write");
    // And B gets all of it.
    a.sync(&remote);
    b.sync(&remote);
    assert_eq!(a.files(), b.files());
}

// ---- a hostile remote -----------------------------------------------------------------------

/// Writes a raw tree object (entries sorted as git sorts them) into the bare repository.
fn raw_tree(git_dir: &Path, entries: &[(&str, &[u8], &str)]) -> String {
    let mut sorted: Vec<&(&str, &[u8], &str)> = entries.iter().collect();
    sorted.sort_by(|a, b| {
        let key = |e: &(&str, &[u8], &str)| {
            let mut k = e.1.to_vec();
            if e.0 == "40000" {
                k.push(b'/');
            }
            k
        };
        key(a).cmp(&key(b))
    });
    let mut bytes = Vec::new();
    for (mode, name, id) in sorted {
        bytes.extend_from_slice(mode.as_bytes());
        bytes.push(b' ');
        bytes.extend_from_slice(name);
        bytes.push(0);
        bytes.extend_from_slice(&hex(id));
    }
    hash_object(git_dir, "tree", &bytes)
}

fn hex(id: &str) -> Vec<u8> {
    (0..id.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&id[i..i + 2], 16).unwrap())
        .collect()
}

fn hash_object(git_dir: &Path, kind: &str, bytes: &[u8]) -> String {
    let mut child = git_command(git_dir)
        .args(["hash-object", "--literally", "-w", "--stdin", "-t", kind])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[test]
fn hostile_entries_of_the_remote_are_refused_and_the_rest_is_synced() {
    let remote = Remote::new();
    let a = Machine::new();
    a.write("@human/mine", "mine\n", T0);
    a.sync(&remote);
    let base = remote.tip().unwrap();
    let dir = &remote.path;
    let blob = |text: &str| hash_object(dir, "blob", text.as_bytes());
    let base_human = git(dir, &["rev-parse", &format!("{base}:human")])
        .trim()
        .to_string();

    let evil = blob("evil\n");
    let hook = blob("#!/bin/sh\ntouch /tmp/pwned-by-notes-sync\n");
    let ok = blob("fine\n");
    let hooks = raw_tree(dir, &[("100755", b"post-merge", &hook)]);
    let dot_git = raw_tree(dir, &[("40000", b"hooks", &hooks)]);
    let up = raw_tree(dir, &[("100644", b"evil.md", &evil)]);
    let link = blob("/etc/passwd");
    let link_dir = blob("/");
    // human/: the base's notes, plus a good note, a link, and names that try to leave.
    let mut human_entries: Vec<(String, Vec<u8>, String)> = git(dir, &["ls-tree", &base_human])
        .lines()
        .map(|l| {
            let (meta, name) = l.split_once('\t').unwrap();
            let parts: Vec<&str> = meta.split_whitespace().collect();
            (
                parts[0].trim_start_matches('0').to_string(),
                name.as_bytes().to_vec(),
                parts[2].to_string(),
            )
        })
        .collect();
    human_entries.push(("100644".into(), b"ok.md".to_vec(), ok.clone()));
    human_entries.push(("120000".into(), b"link.md".to_vec(), link));
    human_entries.push(("120000".into(), b"linkdir".to_vec(), link_dir));
    human_entries.push(("100644".into(), b"../../outside.md".to_vec(), evil.clone()));
    human_entries.push(("40000".into(), b"..".to_vec(), up.clone()));
    human_entries.push((
        "100644".into(),
        b"x.md\nrefused: human/forged.md from nowhere: forged".to_vec(),
        evil.clone(),
    ));
    let human_refs: Vec<(&str, &[u8], &str)> = human_entries
        .iter()
        .map(|(m, n, i)| (m.as_str(), n.as_slice(), i.as_str()))
        .collect();
    let human = raw_tree(dir, &human_refs);
    let root = raw_tree(
        dir,
        &[
            ("40000", b"human", &human),
            ("40000", b".git", &dot_git),
            ("40000", b".GIT", &dot_git),
            ("40000", b"..", &up),
            ("100644", b"/abs.md", &evil),
            ("100644", b".sync.lock", &evil),
        ],
    );
    let commit = hash_object(
        dir,
        "commit",
        format!(
            "tree {root}\nparent {base}\nauthor x <x@x> 1700000000 +0000\ncommitter x <x@x> 1700000000 +0000\n\nhostile\n"
        )
        .as_bytes(),
    );
    git(dir, &["update-ref", "refs/heads/main", &commit]);

    let outside_before = home_files(&a.env.root().join("home"));
    let synced = a.sync(&remote);
    let refused = paths_of(&synced, "refused");
    for path in [
        "human/link.md",
        "human/linkdir",
        "human/../../outside.md",
        "human/..",
        ".git",
        ".GIT",
        "..",
        "/abs.md",
        ".sync.lock",
        "human/x.md\\nrefused: human/forged.md from nowhere: forged",
    ] {
        assert!(
            refused.contains(&path.to_string()),
            "{path} not refused: {refused:?}"
        );
    }
    assert!(!a.home().join("human").read_dir().unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .contains('\n')));
    assert_eq!(
        a.body("human/ok.md").unwrap(),
        "fine\n",
        "the rest is synced"
    );
    assert_eq!(a.body("human/mine.md").unwrap(), "mine\n");
    let root_dir = a.env.root();
    for outside in [
        root_dir.join("outside.md"),
        root_dir.join("evil.md"),
        a.home().join("../evil.md"),
        a.home().join("evil.md"),
        PathBuf::from("/abs.md"),
    ] {
        assert!(!outside.exists(), "{} was written", outside.display());
    }
    assert!(!a.home().join(".git/hooks/post-merge").exists());
    assert!(fs::symlink_metadata(a.home().join("human/link.md")).is_err());
    assert!(fs::symlink_metadata(a.home().join("human/linkdir")).is_err());
    assert_eq!(home_files(&a.env.root().join("home")), outside_before);
    a.assert_files_equal_head();
    // Our merge holds none of it, and is what the remote has now.
    let paths = head_paths(&a.home());
    assert!(
        paths
            .iter()
            .all(|p| !p.contains("..") && !p.starts_with(".git")),
        "{paths:?}"
    );
    assert_eq!(
        remote.tip().unwrap(),
        git(&a.home(), &["rev-parse", "HEAD"]).trim()
    );
}

#[test]
fn a_lock_left_in_the_remote_stops_the_sync_at_once_naming_the_lock() {
    let remote = Remote::new();
    let a = Machine::new();
    a.write("@human/one", "one\n", T0);
    a.sync(&remote);
    a.write("@human/two", "two\n", T1);
    let lock = remote.path.join("refs/heads/main.lock");
    fs::write(&lock, "").unwrap();
    let (path, log) = logging_git(&a.env);
    let output = a
        .env
        .run_with(|cmd| {
            cmd.args(["notes", "sync", "--remote", remote.url()])
                .env("PATH", &path)
        })
        .expect_code(75);
    // It names the lock and how to remove it.
    insta::assert_snapshot!(output.to_string().replace(remote.url(), "$REMOTE"));
    let pushes = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|line| line.split(' ').any(|arg| arg == "push"))
        .count();
    // Refused twice for the same lock (one pause in between for a push in progress there), then
    // stopped: not after 12 pushes.
    assert_eq!(pushes, 2, "stopped at once, not after 12 pushes");
    // Once the lock is gone, the next sync pushes what waited.
    fs::remove_file(&lock).unwrap();
    let synced = a.sync(&remote);
    assert_eq!(synced["pushed"], true, "{synced}");
    a.assert_files_equal_head();
}

#[test]
fn a_stale_fetch_lock_of_a_killed_sync_does_not_block_the_next() {
    let remote = Remote::new();
    let a = Machine::new();
    a.write("@human/one", "one\n", T0);
    a.sync(&remote);
    let lock = a.home().join(".git/refs/pi-context/sync/theirs.lock");
    fs::create_dir_all(lock.parent().unwrap()).unwrap();
    fs::write(&lock, "").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    a.write("@human/two", "two\n", T1);
    let synced = a.sync(&remote);
    assert_eq!(synced["pushed"], true, "{synced}");
    assert!(!lock.exists());
}
