//! A dream interrupted by SIGINT, SIGTERM or SIGHUP while its dreamer runs ends like a failed
//! one: the dreamer is stopped, the audit runs, `(failed)` is committed with its report, the
//! last-run time is put back, the lock and the jail's temp directory are removed — and the next
//! dream runs.

use crate::common;

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use common::dream::*;
use common::TestEnv;

fn wait_for(path: &Path, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for the child, killing it after a generous limit (a hang guard, not a speed check).
fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the interrupted dream did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[test]
fn an_interrupted_dream_fails_cleanly_and_the_next_one_runs() {
    for (name, signal) in [
        ("sigint", libc::SIGINT),
        ("sigterm", libc::SIGTERM),
        ("sighup", libc::SIGHUP),
    ] {
        let env = TestEnv::new();
        let home = env.notes_home();
        put(&home, "human/keep.md", "keep\n");
        let prior = hours_before_now(30);
        let last_run = set_last_run(&home, prior);
        let ready = env.work().join(format!("{name}.ready"));
        let pid_file = env.work().join(format!("{name}.pid"));
        let pi = FakePi::new(
            &env.work(),
            &format!("pi-{name}"),
            &format!(
                "mkdir -p human && printf half > human/partial.md\n\
                 echo $$ > {pid}\n\
                 touch {ready}\n\
                 sleep 60\n",
                pid = sh_quote(&pid_file),
                ready = sh_quote(&ready),
            ),
        );
        let mut child = std_dream_cmd(&env)
            .args(["--force", "--pi"])
            .arg(&pi.path)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        wait_for(&ready, "the dreamer to start");
        // SAFETY: signalling the dream process this test started.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = wait_exit(&mut child);
        let output = env.wait_for("pi-context dream", child);
        assert_eq!(status.code(), Some(1), "{name}: {status:?}\n{output}");
        assert!(output.stderr.contains("interrupted"), "{name}: {output}");

        let dreamer: i32 = fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(!alive(dreamer), "{name}: the dreamer still runs");
        assert!(!home.join(".dream.lock").exists(), "{name}: lock left");
        assert_eq!(mtime(&last_run), prior, "{name}: last-run not restored");
        assert_eq!(
            git_subjects(&home)[0],
            format!("dream {STAMP} (failed)"),
            "{name}"
        );
        let report = fs::read_to_string(report_path(&home)).unwrap();
        assert!(report.contains("interrupted by SIG"), "{name}: {report}");
        assert_eq!(
            head_file(&home, "human/partial.md").as_deref(),
            Some("half")
        );
        let leaked: Vec<_> = fs::read_dir(env.root().join("tmp"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("pi-context-dream-")
            })
            .collect();
        assert!(leaked.is_empty(), "{name}: the jail's temp dir leaked");

        let next = FakePi::done(&env.root().join("next"), "next");
        let _ = forced_dream(&env, &next.path)
            .env("PI_CONTEXT_NOW", "2026-03-02T09:00:00Z")
            .run()
            .expect_code(0);
        assert!(next.ran(), "{name}");
    }
}
