//! Reading a home that cannot be written: the note is served unchanged and the result says that
//! its access counters were not updated (a `counters:` READ WINDOW line, `counters_updated:
//! false` in the tool details, a warning on the command line). Writes still fail clearly.
//!
//! Tests run as root, where permissions do not stop a write; so the read-only home is a
//! read-only bind mount in a private mount namespace (`unshare`), the permission case runs the
//! binary as `nobody`, and the unusable `.locks` cases need neither.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use common::notes::*;
use common::{CommandOutput, TestEnv};
use serde_json::json;

const NOTE: &str = "@human/n";

fn note_path(env: &TestEnv) -> std::path::PathBuf {
    env.notes_home().join("human/n.md")
}

/// A home with one note, read once (so `.locks/` exists and the counters start at 1).
fn home_with_a_read_note() -> TestEnv {
    let env = TestEnv::new();
    write(&env, NOTE, "hello\n");
    ok(&env, &["read", NOTE]);
    env
}

/// Checks a human `notes read` that could not count: the READ WINDOW with the counters line,
/// the body, the warning, and a note file byte-identical to `before`.
fn assert_served_uncounted(env: &TestEnv, output: &CommandOutput, before: &[u8], why: &str) {
    assert_eq!(output.code, 0, "{output}");
    let (stdout, stderr) = (&output.stdout, &output.stderr);
    let line = format!("counters: not updated ({why})\n");
    assert!(stdout.contains(&line), "{stdout}");
    assert!(stdout.ends_with("\n\nhello\n"), "{stdout}");
    assert!(
        stderr.contains(&format!("warning: access counters not updated ({why})")),
        "{stderr}"
    );
    assert_eq!(std::fs::read(note_path(env)).unwrap(), before);
}

#[test]
fn a_lock_dir_that_is_a_file_or_a_link_still_serves_the_note() {
    let env = home_with_a_read_note();
    let locks = env.notes_home().join(".locks");
    std::fs::remove_dir_all(&locks).unwrap();
    std::fs::write(&locks, "").unwrap();
    let before = std::fs::read(note_path(&env)).unwrap();
    let why = "the lock directory .locks is unusable";
    let output = notes(&env, &["read", NOTE]).run();
    assert_served_uncounted(&env, &output, &before, why);

    // The tool says it in the text and in the details.
    let response = tool(&env, "notes_read", json!({"address": NOTE}));
    assert_eq!(response["is_error"], false);
    assert!(text(&response).contains(&format!("\ncounters: not updated ({why})\n")));
    assert_eq!(response["details"]["counters_updated"], false);
    // --json too.
    let read = json(&env, &["read", NOTE]);
    assert_eq!(read["counters_updated"], false);
    assert_eq!(read["content"], "hello\n");

    // A symlinked .locks is unusable as well, and nothing is created where it points.
    std::fs::remove_file(&locks).unwrap();
    let outside = env.root().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, &locks).unwrap();
    let output = notes(&env, &["read", NOTE]).run();
    assert_served_uncounted(&env, &output, &before, why);
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);

    // Writing needs the lock: a clear refusal, the note unchanged.
    let (code, stderr) = fails(&env, &["write", NOTE, "--content", "new"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert_eq!(std::fs::read(note_path(&env)).unwrap(), before);
}

#[test]
fn a_normal_read_counts_and_says_so_in_the_details() {
    let env = home_with_a_read_note();
    let response = tool(&env, "notes_read", json!({"address": NOTE}));
    assert_eq!(response["details"]["counters_updated"], true);
    assert!(!text(&response).contains("counters:"));
    let disk = read_file(&note_path(&env));
    assert_eq!(
        frontmatter_value(&disk, "accessCount").as_deref(),
        Some("2")
    );
}

/// Whether this machine lets an unprivileged user namespace make a read-only bind mount.
fn can_bind_mount_read_only(dir: &Path) -> bool {
    Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(r#"mount --bind "$1" "$1" && mount -o remount,bind,ro "$1""#)
        .args(["sh", &dir.display().to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `pi-context notes <args>` inside a private mount namespace where the notes home is a
/// read-only bind mount of itself.
fn notes_on_read_only_mount(env: &TestEnv, args: &[&str]) -> CommandOutput {
    let script = r#"home="$1"; shift; mount --bind "$home" "$home" && mount -o remount,bind,ro "$home" && exec "$@""#;
    env.process_of(Some(Path::new("unshare")))
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(env.notes_home())
        .arg(assert_cmd::cargo::cargo_bin("pi-context"))
        .arg("notes")
        .args(args)
        .env("PI_CONTEXT_SESSION_ID", SESSION)
        .run()
}

/// `pi-context notes <args>` as a user who may not write the home: `nobody` when the tests run
/// as root (root ignores permissions), else the current user with the home made read-only.
fn notes_without_write_permission(env: &TestEnv, args: &[&str]) -> CommandOutput {
    let mut cmd = notes(env, args);
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        // nobody must be able to reach the binary and the home, and read the note.
        let mut dir = env.notes_home();
        while let Some(parent) = dir.parent() {
            if parent.starts_with(env.root()) || parent == env.root() {
                std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            dir = parent.to_path_buf();
        }
        make_tree_world_readable(&env.notes_home());
        let mut std_cmd = env.process();
        std::os::unix::process::CommandExt::uid(&mut std_cmd, 65534);
        std::os::unix::process::CommandExt::gid(&mut std_cmd, 65534);
        std_cmd
            .env("PI_CONTEXT_SESSION_ID", SESSION)
            .current_dir("/")
            .arg("notes")
            .args(args);
        return std_cmd.run();
    }
    make_tree_read_only(&env.notes_home());
    let output = cmd.run();
    make_tree_writable(&env.notes_home());
    output
}

fn set_modes(dir: &Path, dir_mode: u32, file_mode: u32) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(dir_mode)).unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            set_modes(&entry.path(), dir_mode, file_mode);
        } else if entry.file_type().unwrap().is_file() {
            std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(file_mode))
                .unwrap();
        }
    }
}

fn make_tree_world_readable(dir: &Path) {
    set_modes(dir, 0o755, 0o644);
}

fn make_tree_read_only(dir: &Path) {
    set_modes(dir, 0o555, 0o444);
}

fn make_tree_writable(dir: &Path) {
    set_modes(dir, 0o755, 0o644);
}

#[test]
fn a_home_without_write_permission_serves_the_note_uncounted() {
    let env = home_with_a_read_note();
    let before = std::fs::read(note_path(&env)).unwrap();
    let output = notes_without_write_permission(&env, &["read", NOTE]);
    assert_served_uncounted(&env, &output, &before, "the notes home is read-only");
    let output = notes_without_write_permission(&env, &["write", NOTE, "--content", "new"]);
    // An I/O failure, not bad input.
    assert_eq!(output.code, 74, "{output}");
    let stderr = &output.stderr;
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert_eq!(std::fs::read(note_path(&env)).unwrap(), before);
}

#[test]
fn a_read_only_mount_serves_the_note_uncounted() {
    let env = home_with_a_read_note();
    let before = std::fs::read(note_path(&env)).unwrap();
    if !can_bind_mount_read_only(&env.notes_home()) {
        // No user namespaces here: the permission test above covers the same path (EACCES
        // instead of EROFS); say so rather than pass silently.
        eprintln!("note: unshare cannot make a read-only bind mount here; EROFS not exercised");
        let output = notes_without_write_permission(&env, &["read", NOTE]);
        assert_served_uncounted(&env, &output, &before, "the notes home is read-only");
        return;
    }
    let output = notes_on_read_only_mount(&env, &["read", NOTE]);
    assert_served_uncounted(&env, &output, &before, "the notes home is read-only");
    let output = notes_on_read_only_mount(&env, &["read", NOTE, "--json"]);
    let read = output.json();
    assert_eq!(read["counters_updated"], false);
    let output = notes_on_read_only_mount(&env, &["write", NOTE, "--content", "new"]);
    assert_eq!(output.code, 74, "{output}");
    let stderr = &output.stderr;
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    // A home that is missing its lock directory on a read-only mount reads the same way.
    std::fs::remove_dir_all(env.notes_home().join(".locks")).unwrap();
    let output = notes_on_read_only_mount(&env, &["read", NOTE]);
    assert_served_uncounted(&env, &output, &before, "the notes home is read-only");
    assert!(!env.notes_home().join(".locks").exists());
}
