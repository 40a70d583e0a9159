//! Project keys that survive a move to another machine: a checkout whose repository has an
//! `origin` remote takes its key from the normalized remote URL, so every clone shares
//! `@project` notes; the notes under the old path-based key move to the new key once, with one
//! commit, safely when many processes start at once, never through links.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::notes::*;
use common::{git, CommandOutput, TestEnv};

const ORIGIN: &str = "https://Example.com/owner/repo.git";

/// The remote-based key of a checkout named `name` whose origin normalizes to `normalized`.
fn remote_key(name: &str, normalized: &str) -> String {
    format!("{name}-{}", sha1_prefix(normalized))
}

/// A bare repository with one commit, to clone from: `<work>/remote.git`.
fn bare_remote(env: &TestEnv) -> PathBuf {
    let seed = env.work().join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    git(&seed, &["init", "-q"]);
    std::fs::write(seed.join("README"), "hello\n").unwrap();
    git(&seed, &["add", "README"]);
    git(&seed, &["commit", "-q", "-m", "first"]);
    git(
        &env.work(),
        &["clone", "-q", "--bare", "seed", "remote.git"],
    );
    env.work().join("remote.git")
}

/// A clone of `remote` at `<work>/<parent>/repo`.
fn clone_at(env: &TestEnv, remote: &Path, parent: &str) -> PathBuf {
    let dir = env.work().join(parent);
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["clone", "-q", remote.to_str().unwrap(), "repo"]);
    dir.join("repo")
}

fn set_origin(checkout: &Path, url: &str) {
    git(checkout, &["remote", "set-url", "origin", url]);
}

/// `pi-context notes <args>` run in `cwd` (the process's own working directory, no `--cwd`).
fn notes_in(env: &TestEnv, cwd: &Path, args: &[&str]) -> CommandOutput {
    env.output_of(notes(env, args).current_dir(cwd)).success()
}

/// Writes `@project/<path>` under an explicit key (as the old path-based key had it).
fn write_under(env: &TestEnv, key: &str, path: &str, content: &str) {
    ok(
        env,
        &[
            "write",
            &format!("@project/{path}"),
            "-c",
            content,
            "--project-key",
            key,
        ],
    );
}

/// Every regular file below `dir` (links not followed), relative, sorted.
fn files_below(dir: &Path) -> Vec<String> {
    snapshot(dir)
        .into_keys()
        .filter(|path| std::fs::symlink_metadata(dir.join(path)).is_ok_and(|meta| meta.is_file()))
        .map(|path| path.to_string_lossy().into_owned())
        .collect()
}

/// `(subject, message, changed paths)` of each commit of the notes home, newest first.
fn commits(home: &Path) -> Vec<(String, String, Vec<String>)> {
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
        let mut paths: Vec<String> = diff
            .deltas()
            .flat_map(|d| [d.old_file().path(), d.new_file().path()])
            .flatten()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        paths.sort();
        paths.dedup();
        let message = commit.message().unwrap().to_string();
        (message.lines().next().unwrap().to_string(), message, paths)
    })
    .collect()
}

fn migrate_commits(home: &Path) -> Vec<(String, String, Vec<String>)> {
    commits(home)
        .into_iter()
        .filter(|(subject, _, _)| subject.starts_with("migrate "))
        .collect()
}

/// A file's bytes in the notes home's HEAD.
fn at_head(home: &Path, rel: &str) -> Option<Vec<u8>> {
    let repo = git2::Repository::open(home).ok()?;
    let tree = repo.head().ok()?.peel_to_tree().ok()?;
    let entry = tree.get_path(Path::new(rel)).ok()?;
    let blob = repo.find_blob(entry.id()).ok()?;
    let bytes = blob.content().to_vec();
    Some(bytes)
}

fn git_fsck(home: &Path) {
    let out = git(home, &["fsck", "--full", "--strict", "--no-dangling"]);
    assert!(out.is_empty(), "git fsck: {out}");
}

#[test]
fn clones_at_different_paths_share_the_key_of_their_normalized_origin() {
    let env = TestEnv::new();
    let remote = bare_remote(&env);
    let first = clone_at(&env, &remote, "machine-a");
    let second = clone_at(&env, &remote, "elsewhere/machine-b");
    set_origin(&first, ORIGIN);
    set_origin(&second, "git@EXAMPLE.com:owner/repo");
    let expected = remote_key("repo", "example.com/owner/repo");
    assert_eq!(key_in(&env, &first), expected);
    assert_eq!(key_in(&env, &second.join("src/not-yet")), expected);
    assert_ne!(
        path_key(&first),
        path_key(&second),
        "the paths alone would give two keys"
    );
    // A note written in one clone is the other clone's project note.
    let _ = notes_in(&env, &first, &["write", "@project/shared", "-c", "from a"]);
    let read = notes_in(&env, &second, &["read", "@project/shared"]);
    assert!(read.stdout.ends_with("\n\nfrom a\n"));
    for spelling in [
        "ssh://git@example.com:22/owner/repo",
        "https://user:secret@example.com/owner/repo.git/",
        "git://example.com/owner/repo",
    ] {
        set_origin(&second, spelling);
        assert_eq!(key_in(&env, &second), expected, "{spelling}");
    }
}

#[test]
fn a_local_path_origin_is_keyed_by_its_real_path() {
    let env = TestEnv::new();
    let remote = bare_remote(&env);
    let first = clone_at(&env, &remote, "a");
    let second = clone_at(&env, &remote, "b");
    let alias = env.work().join("alias.git");
    std::os::unix::fs::symlink(&remote, &alias).unwrap();
    set_origin(&second, alias.to_str().unwrap());
    let expected = remote_key("repo", &remote.canonicalize().unwrap().to_string_lossy());
    assert_eq!(key_in(&env, &first), expected);
    assert_eq!(key_in(&env, &second), expected, "through a symlink");
    set_origin(&second, "../../remote.git");
    assert_eq!(key_in(&env, &second), expected, "relative to the checkout");
    set_origin(&second, &format!("file://{}", remote.display()));
    assert_eq!(key_in(&env, &second), expected, "a file:// URL");
}

#[test]
fn without_an_origin_or_a_readable_config_the_key_stays_path_based() {
    let env = TestEnv::new();
    let remote = bare_remote(&env);
    let checkout = clone_at(&env, &remote, "a");
    git(&checkout, &["remote", "rename", "origin", "upstream"]);
    assert_eq!(key_in(&env, &checkout), path_key(&checkout), "no origin");
    let plain = env.work().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    git(&plain, &["init", "-q"]);
    assert_eq!(key_in(&env, &plain), path_key(&plain), "a fresh repository");
    let broken = env.work().join("broken");
    std::fs::create_dir_all(broken.join(".git")).unwrap();
    std::fs::write(
        broken.join(".git/config"),
        "[remote \"origin\"\n\turl = https://example.com/owner/repo\n",
    )
    .unwrap();
    assert_eq!(
        key_in(&env, &broken),
        path_key(&broken),
        "a config that does not parse"
    );
}

#[test]
fn a_linked_worktree_shares_its_main_checkouts_remote_key() {
    let env = TestEnv::new();
    let remote = bare_remote(&env);
    let main = clone_at(&env, &remote, "a");
    set_origin(&main, ORIGIN);
    git(&main, &["worktree", "add", "-q", "../feature-tree"]);
    let worktree = env.work().join("a/feature-tree");
    let expected = remote_key("repo", "example.com/owner/repo");
    assert_eq!(key_in(&env, &main), expected);
    assert_eq!(key_in(&env, &worktree), expected);
}

/// A clone with origin [`ORIGIN`] whose notes are still under its path-based key.
struct Migrating {
    env: TestEnv,
    checkout: PathBuf,
    old: String,
    new: String,
}

fn migrating() -> Migrating {
    let env = TestEnv::new();
    let remote = bare_remote(&env);
    let checkout = clone_at(&env, &remote, "a");
    set_origin(&checkout, ORIGIN);
    let old = path_key(&checkout);
    let new = remote_key("repo", "example.com/owner/repo");
    Migrating {
        env,
        checkout,
        old,
        new,
    }
}

#[test]
fn notes_under_the_path_key_move_to_the_remote_key_once_with_one_commit() {
    let m = migrating();
    let home = m.env.notes_home();
    write_under(&m.env, &m.old, "decisions", "use git\n");
    write_under(&m.env, &m.old, "design/storage", "flat files\n");
    write_under(&m.env, &m.old, "design/deep/api", "json\n");
    let before: Vec<Vec<u8>> = ["decisions.md", "design/storage.md", "design/deep/api.md"]
        .iter()
        .map(|p| std::fs::read(home.join("project").join(&m.old).join(p)).unwrap())
        .collect();
    let commits_before = commits(&home).len();

    let output = notes_in(&m.env, &m.checkout, &["read", "@project/decisions"]);
    assert!(
        output.stdout.ends_with("\n\nuse git\n"),
        "the command sees the moved note"
    );
    let stderr = &output.stderr;
    assert_eq!(
        stderr.lines().count(),
        1,
        "one line says what happened: {stderr}"
    );
    assert!(
        stderr.starts_with(&format!(
            "note: moved 3 @project notes from project/{}/ to project/{}/",
            m.old, m.new
        )),
        "{stderr}"
    );
    assert!(
        !home.join("project").join(&m.old).exists(),
        "the old directory is gone"
    );
    let new_dir = home.join("project").join(&m.new);
    assert_eq!(
        files_below(&new_dir),
        ["decisions.md", "design/deep/api.md", "design/storage.md"]
    );
    // The bytes moved unchanged (the read after the move only bumped the counters of one).
    assert_eq!(
        std::fs::read(new_dir.join("design/storage.md")).unwrap(),
        before[1]
    );
    assert_eq!(
        std::fs::read(new_dir.join("design/deep/api.md")).unwrap(),
        before[2]
    );

    let migrations = migrate_commits(&home);
    assert_eq!(migrations.len(), 1, "one commit");
    assert_eq!(commits(&home).len(), commits_before + 1);
    let (subject, message, paths) = &migrations[0];
    assert_eq!(subject, "migrate @project");
    assert!(
        message.contains(&format!("From-Key: {}\n", m.old)),
        "{message}"
    );
    assert!(
        message.contains(&format!("To-Key: {}\n", m.new)),
        "{message}"
    );
    assert_eq!(paths.len(), 6, "three deleted, three added: {paths:?}");
    for path in ["design/storage.md", "design/deep/api.md"] {
        assert_eq!(
            at_head(&home, &format!("project/{}/{path}", m.new)),
            Some(std::fs::read(new_dir.join(path)).unwrap())
        );
        assert_eq!(at_head(&home, &format!("project/{}/{path}", m.old)), None);
    }

    let log = json(
        &m.env,
        &[
            "log",
            "@project/design/storage",
            "--cwd",
            m.checkout.to_str().unwrap(),
        ],
    );
    assert_eq!(log["commits"][0]["operation"], "migrate", "{log}");
    assert_eq!(log["commits"].as_array().unwrap().len(), 1, "{log}");

    // Idempotent: the next command moves nothing, says nothing and commits nothing.
    let again = notes_in(&m.env, &m.checkout, &["list", "-p", "@project/**"]);
    assert!(again.stderr.is_empty(), "{again}");
    assert_eq!(migrate_commits(&home).len(), 1);
    git_fsck(&home);
}

#[test]
fn a_note_at_both_keys_keeps_both() {
    let m = migrating();
    let home = m.env.notes_home();
    write_under(&m.env, &m.old, "decisions", "old machine\n");
    write_under(&m.env, &m.old, "only-old", "x\n");
    write_under(&m.env, &m.new, "decisions", "new key\n");
    let at_new = std::fs::read(home.join(format!("project/{}/decisions.md", m.new))).unwrap();

    let output = notes_in(&m.env, &m.checkout, &["list", "-p", "@project/**"]);
    let stderr = &output.stderr;
    let beside = format!("decisions.from-{}.md", m.old);
    assert!(stderr.contains("moved 2 @project notes"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "kept beside a note already there: @project/{}",
            beside.trim_end_matches(".md")
        )),
        "{stderr}"
    );
    let new_dir = home.join("project").join(&m.new);
    assert_eq!(
        files_below(&new_dir),
        vec![beside.clone(), "decisions.md".into(), "only-old.md".into()]
    );
    assert_eq!(std::fs::read(new_dir.join("decisions.md")).unwrap(), at_new);
    assert!(read_file(&new_dir.join(&beside)).ends_with("\n\nold machine\n"));
    let read = notes_in(
        &m.env,
        &m.checkout,
        &[
            "read",
            &format!("@project/{}", beside.trim_end_matches(".md")),
        ],
    );
    assert!(read.stdout.ends_with("\n\nold machine\n"));
    assert!(!home.join("project").join(&m.old).exists());
}

/// Puts `count` notes `bulk/<i % 8>/note-<i>.md` under `project/<key>/` directly on disk (as
/// an older binary without a notes history left them); returns their paths below the key.
fn bulk_notes(env: &TestEnv, key: &str, count: usize) -> Vec<String> {
    let dir = env.notes_home().join("project").join(key);
    (0..count)
        .map(|i| {
            let path = format!("bulk/{}/note-{i}.md", i % 8);
            let file = dir.join(&path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, format!("note {i}\n")).unwrap();
            path
        })
        .collect()
}

/// `pi-context notes <args>` in `cwd` as a plain process (stderr captured), for many at once;
/// `limits` are `ulimit` options applied first (`-Sn 300`), through `sh`.
fn spawn_notes(env: &TestEnv, cwd: &Path, args: &[String], limits: &str) -> std::process::Child {
    let binary = assert_cmd::cargo::cargo_bin("pi-context");
    let mut cmd = if limits.is_empty() {
        env.process()
    } else {
        let mut sh = env.process_of(Some(Path::new("sh")));
        sh.args(["-c", &format!("ulimit {limits} && exec \"$0\" \"$@\"")])
            .arg(binary);
        sh
    };
    cmd.env("PI_CONTEXT_SESSION_ID", SESSION)
        .current_dir(cwd)
        .arg("notes")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Every note under the new key is on disk once and in HEAD as on disk; the old key is gone.
fn assert_all_moved(m: &Migrating, expected: &[String]) {
    let home = m.env.notes_home();
    let new_dir = home.join("project").join(&m.new);
    let mut expected = expected.to_vec();
    expected.sort();
    assert_eq!(files_below(&new_dir), expected, "every note once");
    assert!(!home.join("project").join(&m.old).exists());
    for path in &expected {
        let rel = format!("project/{}/{path}", m.new);
        assert_eq!(
            at_head(&home, &rel),
            Some(std::fs::read(home.join(&rel)).unwrap()),
            "HEAD holds {rel} as on disk"
        );
    }
    git_fsck(&home);
}

#[test]
fn eight_processes_migrating_at_once_lose_and_duplicate_nothing() {
    const PROCESSES: usize = 8;
    const NOTES: usize = 400;
    let m = migrating();
    let home = m.env.notes_home();
    let mut expected = bulk_notes(&m.env, &m.old, NOTES);
    write_under(&m.env, &m.old, "decisions", "use git\n");
    expected.push("decisions.md".into());
    let children: Vec<_> = (0..PROCESSES)
        .map(|p| {
            // Half only look, half write a note of their own under the new key.
            let args: Vec<String> = if p % 2 == 0 {
                vec!["list".into(), "-p".into(), "@project/**".into()]
            } else {
                vec![
                    "write".into(),
                    format!("@project/written-{p}"),
                    "-c".into(),
                    format!("by {p}\n"),
                ]
            };
            spawn_notes(&m.env, &m.checkout, &args, "")
        })
        .collect();
    let mut reports = 0;
    for child in children {
        let output = m.env.wait_for("pi-context notes", child).success();
        let stderr = &output.stderr;
        if stderr.is_empty() {
            continue;
        }
        reports += 1;
        assert!(
            stderr.starts_with(&format!("note: moved {} @project notes", NOTES + 1))
                && stderr.lines().count() == 1,
            "{stderr}"
        );
    }
    assert_eq!(reports, 1, "one process moved them all");
    expected.extend((1..PROCESSES).step_by(2).map(|p| format!("written-{p}.md")));
    let migrations = migrate_commits(&home);
    assert_eq!(migrations.len(), 1, "one commit");
    assert_eq!(
        migrations[0].2.len(),
        2 * (NOTES + 1) - NOTES,
        "the bulk notes were never committed"
    );
    for i in [0, 7, NOTES - 1] {
        let text = read_file(
            &home
                .join("project")
                .join(&m.new)
                .join(format!("bulk/{}/note-{i}.md", i % 8)),
        );
        assert_eq!(text, format!("note {i}\n"));
    }
    assert_all_moved(&m, &expected);
}

#[test]
fn a_low_open_file_limit_is_raised_for_one_commit_or_else_gives_batches() {
    const NOTES: usize = 300;
    let list: Vec<String> = vec!["list".into(), "-p".into(), "@project/**".into()];
    // A soft limit below what 300 notes' locks need, a generous hard one: raised, one commit.
    let m = migrating();
    let expected = bulk_notes(&m.env, &m.old, NOTES);
    let child = spawn_notes(&m.env, &m.checkout, &list, "-Sn 300");
    let output = m.env.wait_for("pi-context notes list", child).success();
    let stderr = &output.stderr;
    assert!(
        stderr.starts_with("note: moved 300 @project notes"),
        "{stderr}"
    );
    assert_eq!(migrate_commits(&m.env.notes_home()).len(), 1);
    assert_all_moved(&m, &expected);

    // A hard limit that fits 50 notes' locks beside the spare files: six batches, all moved.
    let m = migrating();
    let expected = bulk_notes(&m.env, &m.old, NOTES);
    let child = spawn_notes(&m.env, &m.checkout, &list, "-n 406");
    let output = m.env.wait_for("pi-context notes list", child).success();
    let stderr = &output.stderr;
    assert!(
        stderr.starts_with("note: moved 300 @project notes"),
        "{stderr}"
    );
    assert_eq!(migrate_commits(&m.env.notes_home()).len(), 6);
    assert_all_moved(&m, &expected);
}

#[test]
fn a_symlinked_old_key_directory_is_not_followed() {
    let m = migrating();
    let home = m.env.notes_home();
    let outside = m.env.work().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.md"), "not a note of this home\n").unwrap();
    std::fs::create_dir_all(home.join("project")).unwrap();
    std::os::unix::fs::symlink(&outside, home.join("project").join(&m.old)).unwrap();
    let before = snapshot(&outside);

    let output = notes_in(&m.env, &m.checkout, &["list", "-p", "@project/**"]);
    let stderr = &output.stderr;
    assert!(
        stderr.starts_with(&format!(
            "warning: the @project notes under project/{}/ were not moved",
            m.old
        )),
        "{stderr}"
    );
    assert_eq!(snapshot(&outside), before, "nothing outside changed");
    assert!(home.join("project").join(&m.old).is_symlink());
    assert!(files_below(&home.join("project").join(&m.new)).is_empty());
}

#[test]
fn links_inside_the_old_key_directory_stay_where_they_are() {
    let m = migrating();
    let home = m.env.notes_home();
    write_under(&m.env, &m.old, "real", "moved\n");
    let outside = m.env.work().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.md"), "outside\n").unwrap();
    let old_dir = home.join("project").join(&m.old);
    std::os::unix::fs::symlink(&outside, old_dir.join("linked-dir")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.md"), old_dir.join("linked.md")).unwrap();
    let before = snapshot(&outside);

    let output = notes_in(&m.env, &m.checkout, &["list", "-p", "@project/**"]);
    let stderr = &output.stderr;
    assert!(
        stderr.starts_with("note: moved 1 @project note "),
        "{stderr}"
    );
    assert_eq!(files_below(&home.join("project").join(&m.new)), ["real.md"]);
    assert!(old_dir.join("linked-dir").is_symlink());
    assert!(old_dir.join("linked.md").is_symlink());
    assert_eq!(snapshot(&outside), before);
}

#[test]
fn the_boot_and_the_tools_migrate_too_without_a_word() {
    let m = migrating();
    let home = m.env.notes_home();
    write_under(&m.env, &m.old, "decisions", "use git\n");
    let response = tool_in(
        &m.env,
        "notes_list",
        serde_json::json!({"pattern": "@project/**"}),
        serde_json::json!({"session_id": SESSION, "cwd": m.checkout}),
    );
    assert!(text(&response).contains("decisions"), "{}", text(&response));
    assert!(home
        .join(format!("project/{}/decisions.md", m.new))
        .is_file());
    assert_eq!(migrate_commits(&home).len(), 1);

    let m = migrating();
    let home = m.env.notes_home();
    write_under(&m.env, &m.old, "decisions", "use git\n");
    let request = serde_json::json!({
        "reason": "session_start",
        "session_id": SESSION,
        "window_id": "pcw:test-ses:root",
        "previous_window_id": null,
        "snapshot_time": common::FIXED_NOW,
        "cwd": m.checkout,
        "notes_home": home,
    });
    let output = m
        .env
        .run_stdin(["boot", "--json"], request.to_string())
        .success();
    assert!(output.stderr.is_empty(), "{output}");
    assert!(home
        .join(format!("project/{}/decisions.md", m.new))
        .is_file());
    assert_eq!(migrate_commits(&home).len(), 1);
    let boot = output.json();
    let block = boot["text"].as_str().unwrap();
    assert!(
        block.contains(&format!("Project key: {}", m.new)),
        "{block}"
    );
    assert!(
        block.contains("@project/decisions"),
        "the block shows the moved note: {block}"
    );
}

/// A FIFO in place of a `.git` file (a worktree's pointer) or of a settings file in the
/// project is read as no such file: a command run there neither blocks on it nor fails.
#[test]
fn a_fifo_in_place_of_dot_git_or_the_projects_settings_does_not_hold_a_command_up() {
    let env = TestEnv::new();
    let project = env.work().join("fifo-project");
    std::fs::create_dir_all(project.join(".pi")).unwrap();
    for fifo in [project.join(".git"), project.join(".pi/settings.json")] {
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
    }
    let mut cmd = common::recall::spawnable(&env, &["sessions", "list", "--json"]);
    cmd.current_dir(&project);
    let (code, stdout) = common::recall::run_within(cmd, std::time::Duration::from_secs(30));
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&stdout));
}
