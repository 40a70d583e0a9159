//! A request to stop a running dream, set from a signal handler (SIGINT, SIGTERM, SIGHUP).
//!
//! The library never installs handlers itself: the binary registers the flag for those signals
//! (`signal-hook`), and the dream polls it. An interrupted dream is a failed one: the dreamer is
//! stopped, the audit runs, the state is committed as `(failed)`, the last-run time is put back,
//! and the lock and the jail's temp directory are removed.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<AtomicUsize>);

/// The signal that interrupted a dream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signal(pub i32);

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            libc::SIGINT => f.write_str("SIGINT"),
            libc::SIGTERM => f.write_str("SIGTERM"),
            libc::SIGHUP => f.write_str("SIGHUP"),
            n => write!(f, "signal {n}"),
        }
    }
}

impl Interrupt {
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// The flag a signal handler stores the signal number into.
    pub fn flag(&self) -> Arc<AtomicUsize> {
        self.0.clone()
    }

    /// The first signal received, if any.
    pub fn signal(&self) -> Option<Signal> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            n => Some(Signal(i32::try_from(n).unwrap_or(i32::MAX))),
        }
    }

    /// Records `signal` as if it had been received (the first one wins).
    pub fn raise(&self, signal: i32) {
        let n = usize::try_from(signal).unwrap_or(usize::MAX);
        let _ = self
            .0
            .compare_exchange(0, n, Ordering::SeqCst, Ordering::SeqCst);
    }
}
