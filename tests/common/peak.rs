//! Running a child while measuring what it costs: its peak resident memory (`wait4`, which
//! reports the resources of that one child), with a kill guard against a hang.
#![allow(dead_code)]

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Output};
use std::time::{Duration, Instant};

/// Only a guard against a hang; a healthy call takes seconds at most.
pub const HANG_GUARD: Duration = Duration::from_secs(120);

/// Runs `cmd` (stdout and stderr piped), killing it if it outlives [`HANG_GUARD`]; its output
/// and its peak resident size in bytes.
#[allow(clippy::zombie_processes)] // reaped with wait4, which also reports its peak memory
pub fn run_measured(mut cmd: Command) -> (Output, u64) {
    let mut child = cmd.spawn().expect("spawn pi-context");
    let pid = child.id() as libc::pid_t;
    let stdout = read_in_background(child.stdout.take().expect("piped stdout"));
    let stderr = read_in_background(child.stderr.take().expect("piped stderr"));
    let started = Instant::now();
    let (status, peak) = loop {
        if let Some(reaped) = wait4(pid, libc::WNOHANG) {
            break reaped;
        }
        if started.elapsed() > HANG_GUARD {
            child.kill().ok();
            let (status, _) = wait4(pid, 0).expect("the child exits");
            panic!("pi-context hung (killed after {HANG_GUARD:?}, status {status:?})");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let output = Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    };
    (output, peak)
}

fn read_in_background(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        pipe.read_to_end(&mut bytes).expect("read a pipe");
        bytes
    })
}

fn wait4(pid: libc::pid_t, options: libc::c_int) -> Option<(ExitStatus, u64)> {
    let mut status = 0;
    // SAFETY: wait4 fills the zeroed rusage and the status it is given.
    let (reaped, usage) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let reaped = libc::wait4(pid, &mut status, options, &mut usage);
        (reaped, usage)
    };
    assert!(reaped >= 0, "wait4: {}", std::io::Error::last_os_error());
    // Linux reports the peak in kilobytes.
    (reaped == pid).then(|| (ExitStatus::from_raw(status), usage.ru_maxrss as u64 * 1024))
}
