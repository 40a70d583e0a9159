//! The index under stress: processes indexing and searching at once, another process holding
//! the writer, a corrupt index, unreadable session files, and private file permissions.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use common::recall::{hits, project_dir, search_all, session_id, sessions_root, write_pi_session};
use common::session::SessionBuilder;
use common::TestEnv;
use serde_json::Value;

fn session(n: u32, cwd: &std::path::Path) -> SessionBuilder {
    SessionBuilder::with_id(&session_id(n)).cwd(&cwd.to_string_lossy())
}

fn recall_dir(env: &TestEnv) -> PathBuf {
    env.home().join(".cache").join("pi-context").join("recall")
}

/// A corpus of `n` sessions, each mentioning `gecko` once and its own number word.
fn corpus(env: &TestEnv, n: u32) {
    let project = project_dir(env, "alpha");
    for i in 1..=n {
        let mut s = session(i, &project);
        for turn in 0..40 {
            s.user(&format!(
                "turn {turn} of session {i} talks about parsing and caching"
            ));
            s.assistant(
                "a long answer about files, indexes and tokens "
                    .repeat(8)
                    .trim(),
            );
        }
        s.user(&format!("the gecko appears in session number{i}"));
        write_pi_session(env, &project, &s);
    }
}

#[test]
fn concurrent_index_and_search_processes_agree() {
    let env = TestEnv::new();
    corpus(&env, 30);
    let children: Vec<_> = (0..6)
        .map(|i| {
            // The hermetic environment of `env.cmd()`, on a std command that can be spawned.
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("pi-context"));
            cmd.env_clear();
            for (key, value) in env.cmd().get_envs() {
                if let Some(v) = value {
                    cmd.env(key, v);
                }
            }
            cmd.current_dir(env.work());
            if i % 2 == 0 {
                cmd.args(["sessions", "index", "--json"]);
            } else {
                cmd.args([
                    "sessions", "search", "--all", "--json", "gecko", "--limit", "50",
                ]);
            }
            cmd.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let output = child.wait_with_output().unwrap();
        let code = output.status.code().unwrap();
        assert!(
            code == 0 || (code == 1 && i % 2 == 1),
            "process {i} exited {code}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        if i % 2 == 1 {
            // Either the full answer, or a stale one that says so; never a wrong hit.
            let found = hits(&value);
            if value["stale"] == false {
                assert_eq!(found.len(), 30, "{value}");
            }
            for (_, seq) in found {
                assert_eq!(seq, 81);
            }
        } else {
            assert_eq!(value["sessions"], 30);
        }
    }
    assert_eq!(
        hits(&search_all(&env, &["gecko", "--limit", "50"])).len(),
        30
    );
}

#[test]
fn a_search_never_waits_for_another_writer() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the first heron");
    let path = write_pi_session(&env, &project, &s);
    assert_eq!(hits(&search_all(&env, &["heron"])).len(), 1);
    // Another process holds the writer lock while the session grows.
    let lock = std::fs::File::open(recall_dir(&env).join("writer.lock")).unwrap();
    fs2::FileExt::lock_exclusive(&lock).unwrap();
    let before = s.text();
    s.user("the second heron");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut file, &s.text().as_bytes()[before.len()..]).unwrap();
    let stale = search_all(&env, &["heron"]);
    assert_eq!(stale["stale"], true);
    assert_eq!(
        hits(&stale),
        vec![(session_id(1), 1)],
        "the last commit's answer"
    );
    fs2::FileExt::unlock(&lock).unwrap();
    let fresh = search_all(&env, &["heron", "--hits", "5"]);
    assert_eq!(fresh["stale"], false);
    assert_eq!(hits(&fresh).len(), 2);
}

#[test]
fn a_corrupt_index_is_rebuilt() {
    let env = TestEnv::new();
    corpus(&env, 3);
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
    let index = recall_dir(&env).join("index");
    // Garbage in every index file, meta.json included.
    for entry in std::fs::read_dir(&index).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::write(&path, b"\x00garbage{").unwrap();
        }
    }
    let result = search_all(&env, &["gecko"]);
    assert_eq!(hits(&result).len(), 3, "{result}");
    // A catalog that no longer parses.
    for entry in std::fs::read_dir(recall_dir(&env)).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("catalog-")
        {
            std::fs::write(&path, b"nonsense").unwrap();
        }
    }
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
    // Segment files cut short.
    for entry in std::fs::read_dir(&index).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_file() && !name.ends_with(".json") && !name.starts_with('.') {
            let len = std::fs::metadata(&path).unwrap().len();
            let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            file.set_len(len / 2).unwrap();
        }
    }
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
}

#[test]
fn unreadable_session_files_are_skipped_and_counted() {
    let env = TestEnv::new();
    corpus(&env, 1);
    let root = sessions_root(&env);
    let fifo = root.join("fifo.jsonl");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink(root.join("missing.jsonl"), root.join("dangling.jsonl")).unwrap();
    std::fs::create_dir_all(root.join("dir.jsonl")).unwrap();
    let result = search_all(&env, &["gecko"]);
    assert_eq!(hits(&result).len(), 1);
    assert_eq!(result["unreadable"], 3, "{result}");
    let (listed, _) = common::recall::json_in(&env, &env.work(), &["sessions", "index"]);
    assert_eq!(listed["unreadable"], 3);
    assert_eq!(listed["sessions"], 1);
}

#[test]
fn index_files_are_private() {
    let env = TestEnv::new();
    corpus(&env, 2);
    search_all(&env, &["gecko"]);
    let mut seen = 0;
    let mut stack = vec![env.home().join(".cache").join("pi-context").join("recall")];
    while let Some(dir) = stack.pop() {
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
                assert_eq!(mode, 0o600, "{}", path.display());
                seen += 1;
            }
        }
    }
    assert!(seen > 5, "the index has files");
}
