//! Hostile races on the real binary: directories swapped for symlinks to the outside, and notes
//! swapped for FIFOs, while thousands of notes calls run in parallel processes. Nothing may land
//! outside the home, no call may hang or panic, and every call either succeeds or fails with an
//! `error:` line.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::notes::*;
use common::TestEnv;
use rustix::fs::{renameat_with, RenameFlags, CWD};

/// A hang guard only: a call still running after this long has blocked for good.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// How one call ended.
#[derive(Debug)]
enum Ending {
    Exited { code: i32, stderr: String },
    Hung,
}

/// The binary as a plain process, with the hermetic environment of `env`.
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

/// Runs one call; a call that outlives the hang guard is killed and reported as hung.
fn run_guarded(env: &TestEnv, args: &[&str]) -> Ending {
    let mut child = process(env, args).spawn().expect("spawn pi-context");
    let started = Instant::now();
    loop {
        match child.try_wait().expect("wait for pi-context") {
            Some(status) => {
                let mut stderr = String::new();
                if let Some(mut pipe) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
                }
                // A signal death (no exit code) is reported as -1, which no check accepts.
                return Ending::Exited {
                    code: status.code().unwrap_or(-1),
                    stderr,
                };
            }
            None if started.elapsed() > HANG_GUARD => {
                let _ = child.kill();
                let _ = child.wait();
                return Ending::Hung;
            }
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
}

/// Success, a search without hits, or a refusal / I/O failure with an `error:` line; never a
/// panic, a signal or a hang.
fn check_ending(args: &[&str], ending: &Ending) -> Result<bool, String> {
    match ending {
        Ending::Hung => Err(format!("{args:?} hung")),
        Ending::Exited { code, stderr } if stderr.contains("panicked") => {
            Err(format!("{args:?} panicked ({code}): {stderr}"))
        }
        Ending::Exited { code: 0, .. } => Ok(true),
        Ending::Exited { code: 1, .. } if args[0] == "search" => Ok(false),
        Ending::Exited {
            code: 2 | 74,
            stderr,
        } if stderr.starts_with("error: ") => Ok(false),
        Ending::Exited { code, stderr } => Err(format!("{args:?} exited {code}: {stderr}")),
    }
}

/// Swaps `a` and `b` (`renameat2(RENAME_EXCHANGE)`) as fast as it can until `stop` is set, then
/// leaves them as they were (an even number of swaps).
fn swap_until(a: &Path, b: &Path, stop: &AtomicBool) -> usize {
    let mut swaps = 0;
    while !stop.load(Ordering::Relaxed) || swaps % 2 == 1 {
        renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).expect("RENAME_EXCHANGE");
        swaps += 1;
    }
    swaps
}

/// Every path under `dir`, for the failure message.
fn everything_under(dir: &Path) -> Vec<PathBuf> {
    snapshot(dir).into_keys().collect()
}

/// Sets the flag when dropped, so that swapper threads stop even when a check panics.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `calls(worker, i)` on `workers` threads, `per_worker` each, checking every ending; the
/// first problem stops every worker. Returns how many calls succeeded, or the first problem.
fn hammer(
    env: &TestEnv,
    workers: usize,
    per_worker: usize,
    calls: impl Fn(usize, usize) -> Vec<String> + Sync,
) -> Result<usize, String> {
    let succeeded = AtomicUsize::new(0);
    let problem = std::sync::Mutex::new(None::<String>);
    let failed = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let (calls, succeeded, problem, failed) = (&calls, &succeeded, &problem, &failed);
            scope.spawn(move || {
                for i in 0..per_worker {
                    if failed.load(Ordering::Relaxed) {
                        return;
                    }
                    let args = calls(worker, i);
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    match check_ending(&args, &run_guarded(env, &args)) {
                        Ok(true) => {
                            succeeded.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(false) => {}
                        Err(found) => {
                            failed.store(true, Ordering::Relaxed);
                            problem.lock().unwrap().get_or_insert(found);
                        }
                    }
                }
            });
        }
    });
    match problem.into_inner().unwrap() {
        Some(found) => Err(found),
        None => Ok(succeeded.into_inner()),
    }
}

#[test]
fn swapping_homes_and_the_lock_dir_for_outside_symlinks_never_lands_outside() {
    const WORKERS: usize = 4;
    const CALLS: usize = 750;
    let env = TestEnv::new();
    let home = env.notes_home();
    write(&env, "@human/seed", "needle seed\n");
    for worker in 0..WORKERS {
        write(&env, &format!("@human/w{worker}"), "needle body\n");
    }
    let outside = env.root().join("outside");
    let outside_locks = env.root().join("outside-locks");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&outside_locks).unwrap();
    std::os::unix::fs::symlink(&outside, home.join("human-swap")).unwrap();
    std::os::unix::fs::symlink(&outside_locks, home.join("locks-swap")).unwrap();

    let stop = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        let _stop = StopOnDrop(&stop);
        let stop = &stop;
        let human = (home.join("human"), home.join("human-swap"));
        let locks = (home.join(".locks"), home.join("locks-swap"));
        scope.spawn(move || swap_until(&human.0, &human.1, stop));
        scope.spawn(move || swap_until(&locks.0, &locks.1, stop));
        hammer(&env, WORKERS, CALLS, |worker, i| {
            let note = format!("@human/w{worker}");
            let fresh = format!("@human/new/w{worker}-{}", i % 7);
            let origin = if i % 2 == 0 { "user" } else { "self" };
            let args: Vec<&str> = match i % 6 {
                0 => vec!["write", &fresh, "--content", "needle fresh"],
                1 => vec!["write", &note, "--content", "needle body"],
                2 => vec!["edit", &note, "--origin", origin],
                3 => vec!["read", "@human/seed"],
                4 => vec!["list", "--pattern", "@human/**"],
                _ => vec!["search", "needle", "--pattern", "@human/**"],
            };
            args.into_iter().map(str::to_string).collect()
        })
    });

    assert!(
        everything_under(&outside).is_empty(),
        "notes, temp files or directories landed outside the home: {:?}",
        everything_under(&outside)
    );
    assert!(
        everything_under(&outside_locks).is_empty(),
        "lock files landed outside the home: {:?}",
        everything_under(&outside_locks)
    );
    let succeeded = result.unwrap_or_else(|problem| panic!("{problem}"));
    assert!(
        succeeded > 0,
        "no call succeeded: the race test tested nothing"
    );
    // The home is intact after the storm: the seed note still reads.
    assert!(ok(&env, &["read", "@human/seed"]).contains("needle seed"));
}

#[test]
fn a_note_swapped_for_a_fifo_never_blocks_a_call() {
    const WORKERS: usize = 3;
    const CALLS: usize = 150;
    let env = TestEnv::new();
    let human = env.notes_home().join("human");
    write(&env, "@human/target", "needle\n");
    let fifo = human.join("fifo");
    rustix::fs::mkfifoat(CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o644)).unwrap();

    let stop = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        let _stop = StopOnDrop(&stop);
        let stop = &stop;
        let pair = (human.join("target.md"), fifo.clone());
        scope.spawn(move || swap_until(&pair.0, &pair.1, stop));
        hammer(&env, WORKERS, CALLS, |_, i| {
            let args: Vec<&str> = match i % 5 {
                0 => vec!["read", "@human/target"],
                1 => vec!["edit", "@human/target", "--crumple"],
                2 => vec!["edit", "@human/target", "--smooth"],
                3 => vec!["list", "--pattern", "@human/**"],
                _ => vec!["search", "needle", "--pattern", "@human/**"],
            };
            args.into_iter().map(str::to_string).collect()
        })
    });
    let succeeded = result.unwrap_or_else(|problem| panic!("{problem}"));
    assert!(succeeded > 0, "no call succeeded");
}

#[test]
fn fifos_sockets_and_directories_where_notes_should_be_are_refused_or_skipped() {
    let env = TestEnv::new();
    write(&env, "@human/real", "needle\n");
    let human = env.notes_home().join("human");
    rustix::fs::mkfifoat(
        CWD,
        human.join("pipe.md"),
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(human.join("sock.md")).unwrap();
    std::fs::create_dir(human.join("dir.md")).unwrap();
    let mut names = vec!["pipe", "sock"];
    // A character device (/dev/zero's numbers) where the system allows making one (root).
    let zero = rustix::fs::mknodat(
        CWD,
        human.join("zero.md"),
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::from_raw_mode(0o644),
        rustix::fs::makedev(1, 5),
    );
    if zero.is_ok() {
        names.push("zero");
    }
    for name in names {
        let address = format!("@human/{name}");
        for args in [
            vec!["read", address.as_str()],
            vec!["write", address.as_str(), "--content", "x"],
            vec!["edit", address.as_str(), "--crumple"],
        ] {
            let ending = run_guarded(&env, &args);
            match &ending {
                Ending::Exited { code: 2, stderr } => {
                    assert!(stderr.contains("not a regular file"), "{args:?}: {stderr}")
                }
                other => panic!("{args:?}: {other:?}"),
            }
        }
    }
    // The directory named like a note is refused too, and list and search skip all three.
    assert_eq!(fails(&env, &["read", "@human/dir"]).0, 2);
    let listed = json(&env, &["list", "--pattern", "@human/**"]);
    let addresses: Vec<&str> = listed["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["address"].as_str().unwrap())
        .collect();
    assert_eq!(addresses, ["@human/real.md"]);
    let found = json(&env, &["search", "needle", "--pattern", "@human/**"]);
    assert_eq!(found["files"].as_array().unwrap().len(), 1);
}
