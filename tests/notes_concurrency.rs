//! Concurrency and durability of the real binary: many processes on one note lose nothing, and a
//! writer killed at any instant leaves a whole note.

use crate::common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::notes::*;
use common::TestEnv;

/// The binary as a plain process (to spawn, wait on and kill), with the hermetic environment.
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

fn run(env: &TestEnv, args: &[&str]) {
    let _ = process(env, args).run().success();
}

#[test]
fn eight_processes_times_a_hundred_edits_lose_nothing() {
    const WORKERS: usize = 8;
    const EDITS: usize = 100;
    let env = TestEnv::new();
    write(&env, "@human/log", "log\nEND\n");
    std::thread::scope(|scope| {
        for worker in 0..WORKERS {
            let env = &env;
            scope.spawn(move || {
                for i in 0..EDITS {
                    let line = format!("worker {worker} edit {i}\nEND");
                    run(env, &["edit", "@human/log", "--old", "END", "--new", &line]);
                }
            });
        }
    });
    let text = read_file(&env.notes_home().join("human/log.md"));
    let body = &text[text.find("\n---\n\n").expect("frontmatter") + 6..];
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), WORKERS * EDITS + 2, "every edit landed once");
    for worker in 0..WORKERS {
        let mine: Vec<&&str> = lines
            .iter()
            .filter(|l| l.starts_with(&format!("worker {worker} ")))
            .collect();
        let expected: Vec<String> = (0..EDITS)
            .map(|i| format!("worker {worker} edit {i}"))
            .collect();
        assert_eq!(
            mine.iter().map(|l| l.to_string()).collect::<Vec<_>>(),
            expected,
            "worker {worker} in order"
        );
    }
    assert_eq!(lines.last(), Some(&"END"));
}

#[test]
fn concurrent_reads_never_lose_an_access_count() {
    const WORKERS: usize = 8;
    const READS: usize = 25;
    let env = TestEnv::new();
    write(&env, "shared", "body");
    std::thread::scope(|scope| {
        for worker in 0..WORKERS {
            let env = &env;
            scope.spawn(move || {
                // Half the readers use the `.md` spelling of the same note.
                let address = if worker % 2 == 0 {
                    "shared"
                } else {
                    "shared.md"
                };
                for _ in 0..READS {
                    run(env, &["read", address]);
                }
            });
        }
    });
    let text = read_file(&session_file(&env, "shared.md"));
    assert_eq!(
        frontmatter_value(&text, "accessCount"),
        Some((WORKERS * READS).to_string())
    );
}

#[test]
fn concurrent_writes_and_edits_of_one_note_leave_a_whole_note() {
    let env = TestEnv::new();
    write(&env, "@human/mixed", "start");
    std::thread::scope(|scope| {
        for worker in 0..4 {
            let env = &env;
            scope.spawn(move || {
                for i in 0..20 {
                    let content = format!("writer {worker} round {i}\n{}", "x".repeat(10_000));
                    if i % 2 == 0 {
                        run(env, &["write", "@human/mixed", "-c", &content]);
                    } else {
                        run(env, &["read", "@human/mixed"]);
                    }
                }
            });
        }
    });
    let text = read_file(&env.notes_home().join("human/mixed.md"));
    let body = &text[text.find("\n---\n\n").unwrap() + 6..];
    assert!(
        body.starts_with("writer ") && body.ends_with(&"x".repeat(10_000)),
        "{}",
        &body[..40]
    );
    assert_eq!(
        frontmatter_value(&text, "accessCount").as_deref(),
        Some("40")
    );
}

/// `notes write @human/victim` with its body fed on stdin by a thread.
fn spawn_writer(env: &TestEnv, body: String) -> (std::process::Child, std::thread::JoinHandle<()>) {
    let mut child = process(env, &["write", "@human/victim"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    // The writer may die before it has read everything: a broken pipe is expected then.
    let feeder = std::thread::spawn(move || {
        let _ = std::io::Write::write_all(&mut stdin, body.as_bytes());
    });
    (child, feeder)
}

#[test]
fn writers_killed_at_random_moments_never_leave_a_torn_note() {
    const ROUNDS: usize = 100;
    let env = TestEnv::new();
    // The kill moments: a fixed seed, another one with TEST_SEED (printed, shown on failure).
    let mut random = common::Rng::seeded("writers_killed_at_random_moments", 0x5eed_c0ff_ee15_7a7e);
    let path = env.notes_home().join("human/victim.md");
    let content = |round: usize| {
        format!(
            "round {round}\n{}\n",
            char::from(b'a' + (round % 26) as u8)
                .to_string()
                .repeat(400_000)
        )
    };
    // Time one whole write, so the kills spread over a writer's entire life.
    let started = std::time::Instant::now();
    let (mut child, feeder) = spawn_writer(&env, content(0));
    assert!(child.wait().expect("wait").success());
    let _ = feeder.join();
    let span = started.elapsed().as_micros().max(1000) as u64 * 6 / 5;
    let mut killed = 0;
    let mut finished = 0;
    for round in 0..ROUNDS {
        let (mut child, feeder) = spawn_writer(&env, content(round));
        std::thread::sleep(Duration::from_micros(random.below(span as usize) as u64));
        match child.try_wait().expect("poll") {
            Some(_) => finished += 1,
            None => {
                child.kill().expect("SIGKILL");
                killed += 1;
            }
        }
        let _ = child.wait();
        let _ = feeder.join();
        if !path.exists() {
            continue;
        }
        let text = read_file(&path);
        assert!(
            text.starts_with("---\norigin: self\ncreatedAt: "),
            "round {round}: torn header"
        );
        let body = &text[text.find("\n---\n\n").expect("closed frontmatter") + 6..];
        let whole = (0..=round).any(|r| body == content(r));
        assert!(
            whole,
            "round {round}: the body is not one whole write ({} bytes)",
            body.len()
        );
    }
    let leftovers = std::fs::read_dir(env.notes_home().join("human"))
        .unwrap()
        .count()
        - 1;
    eprintln!("{killed} writers killed, {finished} finished, {leftovers} temp files left by killed writers");
    assert!(
        killed > 0,
        "no writer was killed mid-run; the test proved nothing"
    );
    // After all that, the note still reads and lists, and stray temp files never show up as notes.
    run(&env, &["read", "@human/victim"]);
    let listed = json(&env, &["list", "--pattern", "**"]);
    assert_eq!(listed["files"].as_array().map(Vec::len), Some(1));
    run(&env, &["write", "@human/victim", "-c", "recovered"]);
}
