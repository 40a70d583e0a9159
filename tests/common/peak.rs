//! Running a child while measuring what it costs: its peak resident memory, with a kill guard
//! against a hang.
//!
//! The peak is taken by a small Python parent that runs the command and reads
//! `RUSAGE_CHILDREN` once it has exited. `wait4` on a child of the test binary itself reports
//! the wrong peak: a child forked (or vforked) from the test process starts with that
//! process's resident pages counted, and Linux keeps that high-water mark across `exec`, so in
//! a full run (a test binary of hundreds of MiB) every child seemed to peak at that size.
#![allow(dead_code)]

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// Only a guard against a hang; a healthy call takes seconds at most.
pub const HANG_GUARD: Duration = Duration::from_secs(120);

/// What the measuring parent prints last on stderr: the peak in KiB.
const PEAK_MARK: &str = "\npi-context-test-peak-kib:";

/// The measuring parent: runs its arguments after the first (an address-space limit in bytes,
/// or `-`) with the same stdin, stdout and stderr, then prints the child's peak and exits
/// with its status (a signal as 128 + its number).
const MEASURE: &str = r#"
import resource, subprocess, sys
limit = sys.argv[1]
def limited():
    if limit != "-":
        resource.setrlimit(resource.RLIMIT_AS, (int(limit), int(limit)))
code = subprocess.call(sys.argv[2:], preexec_fn=limited)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stderr.write("\npi-context-test-peak-kib:%d\n" % peak)
sys.exit(code if code >= 0 else 128 - code)
"#;

/// Runs `cmd` (stdout and stderr piped), killing it if it outlives [`HANG_GUARD`]; its output
/// and its peak resident size in bytes.
pub fn run_measured(cmd: Command) -> (Output, u64) {
    run_measured_within(cmd, None)
}

/// [`run_measured`] with the command's address space limited to `limit` bytes, so that a
/// runaway read ends before the machine's memory does.
pub fn run_measured_within(cmd: Command, limit: Option<u64>) -> (Output, u64) {
    let mut measured = Command::new("python3");
    measured
        .arg("-c")
        .arg(MEASURE)
        .arg(limit.map_or_else(|| "-".to_string(), |l| l.to_string()))
        .arg(cmd.get_program())
        .args(cmd.get_args());
    measured.env_clear();
    for (key, value) in cmd.get_envs() {
        if let Some(value) = value {
            measured.env(key, value);
        }
    }
    if let Some(dir) = cmd.get_current_dir() {
        measured.current_dir(dir);
    }
    measured
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (mut output, _) = run_guarded(measured);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let (rest, peak) = stderr
        .rsplit_once(PEAK_MARK)
        .unwrap_or_else(|| panic!("the measuring parent printed no peak: {stderr}"));
    let kib: u64 = peak.trim().parse().expect("a peak in KiB");
    output.stderr = rest.as_bytes().to_vec();
    (output, kib * 1024)
}

/// Runs `cmd`, killing it if it outlives [`HANG_GUARD`].
#[allow(clippy::zombie_processes)] // reaped with wait4
fn run_guarded(mut cmd: Command) -> (Output, u64) {
    let mut child = cmd.spawn().expect("spawn");
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
            panic!("the command hung (killed after {HANG_GUARD:?}, status {status:?})");
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
