//! The index under stress: processes indexing and searching at once, another process holding
//! the writer, a corrupt index, unreadable session files, and private file permissions.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use common::recall::{
    append_what_is_new, generation_dir, generation_files, hits, project_dir, recall_dir,
    run_within, search_all, session_id, sessions_root, spawnable, write_pi_session,
};
use common::session::SessionBuilder;
use common::TestEnv;
use serde_json::Value;

fn session(n: u32, cwd: &std::path::Path) -> SessionBuilder {
    SessionBuilder::with_id(&session_id(n)).cwd(&cwd.to_string_lossy())
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
            let mut cmd = env.process();
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

/// Sessions 1..=n of `project`, each with one turn naming `gecko`, and where each was written
/// (to append to).
fn gecko_sessions(
    env: &TestEnv,
    project: &std::path::Path,
    n: u32,
) -> Vec<(SessionBuilder, PathBuf)> {
    (1..=n)
        .map(|i| {
            let mut s = session(i, project);
            s.user(&format!("the gecko appears in session number{i}"));
            let path = write_pi_session(env, project, &s);
            (s, path)
        })
        .collect()
}

/// Writers that all looked at the index before one of them committed: each one that takes the
/// lock after that commit plans again from it (a refresh keeps what it read before the lock only
/// while that is still the last commit), so an append is indexed once, never twice.
#[test]
fn writers_that_raced_to_the_lock_index_an_append_once() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut sessions = gecko_sessions(&env, &project, 12);
    assert_eq!(
        hits(&search_all(&env, &["gecko", "--limit", "50"])).len(),
        12
    );
    for round in 0..3 {
        for (s, path) in &mut sessions {
            s.user(&format!("round {round}: a salamander walked in"));
            append_what_is_new(path, s);
        }
        let children: Vec<_> = (0..4)
            .map(|_| {
                let mut cmd = env.process();
                cmd.args(["sessions", "index", "--json"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let found = search_all(&env, &["salamander", "--hits", "10", "--limit", "50"]);
        let mut seen = hits(&found);
        assert_eq!(seen.len(), 12 * (round + 1), "round {round}: {found}");
        seen.sort();
        seen.dedup();
        assert_eq!(
            seen.len(),
            12 * (round + 1),
            "an event indexed twice: {found}"
        );
    }
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
    lock.lock().unwrap();
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
    lock.unlock().unwrap();
    let fresh = search_all(&env, &["heron", "--hits", "5"]);
    assert_eq!(fresh["stale"], false);
    assert_eq!(hits(&fresh).len(), 2);
}

#[test]
fn a_corrupt_index_is_rebuilt() {
    let env = TestEnv::new();
    corpus(&env, 3);
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
    // Garbage in every index file, meta.json included.
    for entry in std::fs::read_dir(generation_dir(&env)).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::write(&path, b"\x00garbage{").unwrap();
        }
    }
    let result = search_all(&env, &["gecko"]);
    assert_eq!(hits(&result).len(), 3, "{result}");
    // A catalog that no longer parses.
    for entry in std::fs::read_dir(generation_dir(&env)).unwrap() {
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
    for entry in std::fs::read_dir(generation_dir(&env)).unwrap() {
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

/// The catalog is read in place and each file's record decoded only when shown: a byte changed
/// anywhere in it, even in a record no search decodes, or the file cut by a byte, is a catalog
/// that does not parse (its CRC), and the index is rebuilt rather than answering from it.
#[test]
fn a_catalog_with_a_byte_changed_or_cut_is_rebuilt() {
    type Damage = fn(&mut Vec<u8>);
    let damages: [(&str, Damage); 4] = [
        ("the first byte after the middle", |d| {
            let middle = d.len() / 2;
            d[middle] ^= 0x01;
        }),
        ("the last byte", |d| {
            let last = d.len() - 1;
            d[last] ^= 0x20;
        }),
        ("cut by a byte", |d| {
            d.pop();
        }),
        ("a byte added", |d| d.push(0)),
    ];
    for (what, damage) in damages {
        let env = TestEnv::new();
        corpus(&env, 3);
        assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
        let catalogs = generation_files(&env, |n| n.starts_with("catalog-"));
        assert_eq!(catalogs.len(), 1, "{what}");
        let mut bytes = std::fs::read(&catalogs[0]).unwrap();
        damage(&mut bytes);
        std::fs::write(&catalogs[0], &bytes).unwrap();
        let result = search_all(&env, &["gecko"]);
        assert_eq!(hits(&result).len(), 3, "{what}: {result}");
        let now = generation_files(&env, |n| n.starts_with("catalog-"));
        assert!(
            !now.contains(&catalogs[0]),
            "{what}: the damaged catalog is gone"
        );
    }
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

/// `sessions search --all gecko --limit 50 --json`, killed (and failed) past 30 s; its exit
/// code and JSON.
fn search_within(env: &TestEnv) -> (i32, Value) {
    search_for_within(env, "gecko")
}

fn search_for_within(env: &TestEnv, query: &str) -> (i32, Value) {
    let cmd = spawnable(
        env,
        &[
            "sessions", "search", "--all", "--json", query, "--limit", "50",
        ],
    );
    let (code, stdout) = run_within(cmd, Duration::from_secs(30));
    let value = serde_json::from_slice(&stdout).unwrap_or(Value::Null);
    (code, value)
}

/// Every search beside repeated rebuilds answers from a whole index, old or new: by a word as
/// written, by another form of it (found through the stems alone), and by several words (the
/// evidence and the proximity boost read the same segments).
#[test]
fn searches_beside_rebuilds_always_find_the_hits() {
    let env = TestEnv::new();
    corpus(&env, 12);
    assert_eq!(
        hits(&search_all(&env, &["gecko", "--limit", "50"])).len(),
        12
    );
    let queries = ["gecko", "geckos", "the geckos appeared"];
    searches_beside(
        "the rebuilds",
        || {
            for _ in 0..6 {
                let cmd = spawnable(&env, &["sessions", "index", "--rebuild", "--json"]);
                let (code, _) = run_within(cmd, Duration::from_secs(60));
                assert_eq!(code, 0, "a rebuild failed");
            }
        },
        |round| {
            let query = queries[round % queries.len()];
            let (code, value) = search_for_within(&env, query);
            assert_eq!(code, 0, "{query} beside a rebuild found nothing: {value}");
            assert_eq!(hits(&value).len(), 12, "{query}: {value}");
        },
    );
}

/// Runs `write` while two threads run `search` again and again (given a round number, each
/// thread's rounds starting at its own number) until `write` returns; then asserts the searches
/// overlapped it (at least 4 of them). A `write` that panics stops the searches too, so the
/// test fails instead of hanging.
fn searches_beside(what: &str, write: impl FnOnce() + Send, search: impl Fn(usize) + Sync) {
    struct Done<'a>(&'a AtomicBool);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.store(false, Ordering::SeqCst);
        }
    }
    let writing = AtomicBool::new(true);
    let searches = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            let _done = Done(&writing);
            write();
        });
        let searchers: Vec<_> = (0..2)
            .map(|first| {
                let (writing, searches, search) = (&writing, &searches, &search);
                scope.spawn(move || {
                    let mut round = first;
                    while writing.load(Ordering::SeqCst) {
                        search(round);
                        searches.fetch_add(1, Ordering::SeqCst);
                        round += 1;
                    }
                })
            })
            .collect();
        writer.join().unwrap();
        for searcher in searchers {
            searcher.join().unwrap();
        }
    });
    assert!(
        searches.load(Ordering::SeqCst) >= 4,
        "the searches overlapped {what}"
    );
}

/// Every search beside a writer that commits again and again (an append indexed, each commit a
/// new catalog and the one before it removed) reads a whole catalog: a search reads its
/// catalog's rows, and decodes the records of the sessions it shows, from a map of a file the
/// next commit may already have removed.
#[test]
fn searches_beside_repeated_commits_read_their_catalog_whole() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut sessions = gecko_sessions(&env, &project, 8);
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 8);
    let cwd = project.to_string_lossy().to_string();
    searches_beside(
        "the commits",
        || {
            for round in 0..12 {
                let (s, path) = &mut sessions[round % 8];
                s.user(&format!("round {round} adds a salamander"));
                append_what_is_new(path, s);
                let cmd = spawnable(&env, &["sessions", "index", "--json"]);
                let (code, _) = run_within(cmd, Duration::from_secs(60));
                assert_eq!(code, 0, "a refresh failed");
            }
        },
        |_| {
            let (code, value) = search_within(&env);
            assert_eq!(code, 0, "a search beside a commit failed: {value}");
            assert_eq!(hits(&value).len(), 8, "{value}");
            for session in value["sessions"].as_array().unwrap() {
                // From the record's detail, which only a shown session decodes.
                assert_eq!(session["cwd"].as_str(), Some(cwd.as_str()), "{value}");
            }
        },
    );
    // Every round's append is indexed: 12 turns in the 8 sessions.
    let salamanders = search_all(&env, &["salamander", "--hits", "5"]);
    assert_eq!(salamanders["sessions"].as_array().unwrap().len(), 8);
    assert_eq!(hits(&salamanders).len(), 12);
}

/// A rebuild killed at any point leaves an index a search answers from, even while another
/// process holds the writer (so the search cannot rebuild it itself).
#[test]
fn a_rebuild_killed_anywhere_leaves_a_usable_index() {
    let env = TestEnv::new();
    corpus(&env, 12);
    assert_eq!(
        hits(&search_all(&env, &["gecko", "--limit", "50"])).len(),
        12
    );
    for delay_ms in [0, 5, 15, 30, 60, 100, 160, 250] {
        let mut child = spawnable(&env, &["sessions", "index", "--rebuild", "--json"])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();

        let lock = std::fs::File::open(recall_dir(&env).join("writer.lock")).unwrap();
        lock.lock().unwrap();
        let (code, value) = search_within(&env);
        assert_eq!(code, 0, "killed after {delay_ms} ms: {value}");
        assert_eq!(
            hits(&value).len(),
            12,
            "killed after {delay_ms} ms: {value}"
        );
        lock.unlock().unwrap();
    }
    let (code, value) = search_within(&env);
    assert_eq!((code, hits(&value).len()), (0, 12), "{value}");
    // The next writer removes what the killed ones left.
    let (code, _) = run_within(
        spawnable(&env, &["sessions", "index", "--rebuild", "--json"]),
        Duration::from_secs(60),
    );
    assert_eq!(code, 0);
    let generations = std::fs::read_dir(recall_dir(&env))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().starts_with("gen-")
        })
        .count();
    assert!(
        generations <= 1,
        "old generations are removed: {generations}"
    );
}

fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Replaces `path` (a file of the index) with a FIFO.
fn fifo_in_place_of(path: &std::path::Path) {
    std::fs::remove_file(path).unwrap();
    mkfifo(path);
}

/// A search whose index was tampered with still answers, from a rebuilt index, in time.
fn assert_search_rebuilds(env: &TestEnv, what: &str) {
    let (code, value) = search_within(env);
    assert_eq!(code, 0, "{what}: {value}");
    assert_eq!(hits(&value).len(), 3, "{what}: {value}");
}

#[test]
fn a_fifo_anywhere_in_the_index_is_a_corrupt_index_not_a_hang() {
    type Pick = fn(&str) -> bool;
    let cases: [(&str, Pick); 4] = [
        (".managed.json", |n| n == ".managed.json"),
        ("meta.json", |n| n == "meta.json"),
        ("a catalog", |n| n.starts_with("catalog-")),
        ("a segment file", |n| {
            n.ends_with(".idx") || n.ends_with(".term")
        }),
    ];
    for (what, pick) in cases {
        let env = TestEnv::new();
        corpus(&env, 3);
        assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
        let mut catalogs = generation_files(&env, |n| n.starts_with("catalog-"));
        if catalogs.is_empty() {
            // Before generations, catalogs were beside the index directory.
            catalogs = std::fs::read_dir(recall_dir(&env))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().contains("catalog-"))
                .collect();
        }
        let files = match what {
            "a catalog" => catalogs,
            _ => generation_files(&env, pick),
        };
        assert!(!files.is_empty(), "{what} exists");
        for file in &files {
            fifo_in_place_of(file);
        }
        assert_search_rebuilds(&env, what);
    }
}

#[test]
fn meta_json_linked_to_dev_zero_is_not_read() {
    let env = TestEnv::new();
    corpus(&env, 3);
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
    let meta = generation_dir(&env).join("meta.json");
    std::fs::remove_file(&meta).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &meta).unwrap();
    assert_search_rebuilds(&env, "meta.json -> /dev/zero");
}

#[test]
fn the_current_index_replaced_by_a_file_is_rebuilt() {
    let env = TestEnv::new();
    corpus(&env, 3);
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
    let dir = generation_dir(&env);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::write(&dir, b"not a directory").unwrap();
    assert_search_rebuilds(&env, "the index directory is a file");
    assert_search_rebuilds(&env, "and again");
}

#[test]
fn a_fifo_or_link_as_the_current_pointer_is_rebuilt_over() {
    let env = TestEnv::new();
    corpus(&env, 3);
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
    let current = recall_dir(&env).join("current");
    std::fs::remove_file(&current).unwrap();
    mkfifo(&current);
    assert_search_rebuilds(&env, "current is a FIFO");
    std::fs::remove_file(&current).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &current).unwrap();
    assert_search_rebuilds(&env, "current -> /dev/zero");
}

/// Every file below `dir` with its length and modification time.
fn listing(dir: &std::path::Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let meta = std::fs::metadata(&path).unwrap();
            (path, meta.len(), meta.modified().unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_index_directory_as_a_link_is_not_written_through() {
    let env = TestEnv::new();
    corpus(&env, 3);
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
    // The index moved elsewhere, and a link to it in its place.
    let dir = generation_dir(&env);
    let elsewhere = env.work().join("elsewhere");
    std::fs::rename(&dir, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
    let before = listing(&elsewhere);
    // A change to commit: a fourth session.
    let project = project_dir(&env, "alpha");
    let mut s = session(4, &project);
    s.user("the gecko of session four");
    write_pi_session(&env, &project, &s);

    let (code, value) = search_within(&env);
    assert_eq!((code, hits(&value).len()), (0, 4), "{value}");
    assert_eq!(
        listing(&elsewhere),
        before,
        "nothing was written through the link"
    );
}

#[test]
fn a_lock_file_replaced_by_a_link_or_fifo_is_replaced_not_followed() {
    let env = TestEnv::new();
    corpus(&env, 3);
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 3);
    let lock = recall_dir(&env).join("writer.lock");
    let target = env.work().join("outside.txt");
    std::fs::write(&target, b"untouched").unwrap();
    std::fs::remove_file(&lock).unwrap();
    std::os::unix::fs::symlink(&target, &lock).unwrap();
    let (code, value) = spawnable_index(&env);
    assert_eq!(code, 0, "{value}");
    assert_eq!(std::fs::read(&target).unwrap(), b"untouched");
    assert!(std::fs::symlink_metadata(&lock).unwrap().is_file());
    std::fs::remove_file(&lock).unwrap();
    mkfifo(&lock);
    let (code, value) = spawnable_index(&env);
    assert_eq!(code, 0, "{value}");
    assert_search_rebuilds(&env, "after the lock was replaced");
}

/// `sessions index --json`, killed (and failed) past 30 s.
fn spawnable_index(env: &TestEnv) -> (i32, Value) {
    let cmd = spawnable(env, &["sessions", "index", "--json"]);
    let (code, stdout) = run_within(cmd, Duration::from_secs(30));
    (code, serde_json::from_slice(&stdout).unwrap_or(Value::Null))
}

/// The segment ids `meta.json` of the current generation names.
fn committed_segments(env: &TestEnv) -> Vec<String> {
    let meta = std::fs::read_to_string(generation_dir(env).join("meta.json")).unwrap();
    let meta: Value = serde_json::from_str(&meta).unwrap();
    let ids = meta["segments"].as_array().unwrap().iter();
    ids.map(|s| s["segment_id"].as_str().unwrap().replace('-', ""))
        .collect()
}

/// A writer killed before its commit, or during a merge, leaves segment files that no commit
/// names and tantivy never lists; the next writer removes them, and nothing committed.
#[test]
fn segment_files_no_commit_names_are_removed_by_the_next_writer() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = session(1, &project);
    s.user("the gecko is in the first turn");
    let path = write_pi_session(&env, &project, &s);
    assert_eq!(hits(&search_all(&env, &["gecko"])).len(), 1);
    let dir = generation_dir(&env);
    let left = [
        "0123456789abcdef0123456789abcdef.idx",
        "0123456789abcdef0123456789abcdef.pos",
        "0123456789abcdef0123456789abcdef.store",
        "0123456789abcdef0123456789abcdef.7.del",
        "fedcba9876543210fedcba9876543210.fast",
    ];
    for name in left {
        std::fs::write(dir.join(name), vec![7u8; 4096]).unwrap();
    }
    // Not a segment's file: left alone.
    std::fs::write(dir.join("0123456789abcdef.idx"), b"short").unwrap();

    s.assistant("a second gecko, appended");
    append_what_is_new(&path, &s);
    let result = search_all(&env, &["gecko"]);
    assert_eq!(hits(&result).len(), 2, "{result}");
    for name in left {
        assert!(!dir.join(name).exists(), "{name} is still there");
    }
    assert!(dir.join("0123456789abcdef.idx").exists());
    let committed = committed_segments(&env);
    assert!(!committed.is_empty());
    for id in &committed {
        let files = generation_files(&env, |name| name.starts_with(id.as_str()));
        assert!(
            !files.is_empty(),
            "the committed segment {id} has its files"
        );
    }
}
