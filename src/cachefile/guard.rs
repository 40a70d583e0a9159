//! Memory maps that survive the file shrinking under them: the maps of session files and of
//! cache files.
//!
//! Pi rewrites session files in place (`openSync(file, "w")` for migrations and forks), so a page
//! of a mapped session can lie past the file's end by the time it is read, and reading it raises
//! SIGBUS, which kills the process (a cache file truncated by someone else under its map would do
//! the same). A process-wide SIGBUS handler, installed once, recognizes a fault inside one of the
//! maps registered here, replaces the rest of that map with anonymous zero pages, marks the map
//! damaged and returns: the read sees zeros, which the bounds-checked readers survive, and the
//! caller learns from [`GuardedMap::damaged`] that it must read again. Any other SIGBUS goes to
//! the handler that was there before, or to the default action.
//!
//! The handler does only async-signal-safe work: atomic loads and stores over a fixed table of
//! slots, and the `mmap` system call.

use std::ffi::c_void;
use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

/// How many maps can be guarded at once; when all slots are taken the file is read instead.
const SLOTS: usize = 64;

const FREE: u8 = 0;
const CLAIMED: u8 = 1;
const LIVE: u8 = 2;

/// One registered map: the pages `[start, start + len)` and whether a fault zeroed some of them.
struct Slot {
    state: AtomicU8,
    start: AtomicUsize,
    len: AtomicUsize,
    damaged: AtomicBool,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            state: AtomicU8::new(FREE),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            damaged: AtomicBool::new(false),
        }
    }

    fn claim() -> Option<&'static Slot> {
        REGISTRY.iter().find(|slot| {
            slot.state
                .compare_exchange(FREE, CLAIMED, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        })
    }

    fn contains(&self, address: usize) -> bool {
        let start = self.start.load(Ordering::Relaxed);
        address
            .checked_sub(start)
            .is_some_and(|offset| offset < self.len.load(Ordering::Relaxed))
    }
}

static REGISTRY: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];
static PAGE_SIZE: AtomicUsize = AtomicUsize::new(0);
static INSTALL: Once = Once::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);
/// The SIGBUS action before ours, which every fault outside our maps is handed to.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

/// A read-only map of a file, registered with the SIGBUS handler for its lifetime.
pub(crate) struct GuardedMap {
    map: memmap2::Mmap,
    slot: &'static Slot,
}

impl std::fmt::Debug for GuardedMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardedMap")
            .field("len", &self.map.len())
            .field("damaged", &self.damaged())
            .finish()
    }
}

impl GuardedMap {
    /// Maps the first `len` bytes of `file` (`len > 0`). `None` when the map or its guard cannot
    /// be set up; the caller then reads the file instead.
    pub fn map(file: &File, len: usize) -> Option<GuardedMap> {
        GuardedMap::map_range(file, 0, len)
    }

    /// Maps `len` bytes of `file` from `offset`, a multiple of the page size.
    fn map_range(file: &File, offset: u64, len: usize) -> Option<GuardedMap> {
        if len == 0 || !install_handler() {
            return None;
        }
        let slot = Slot::claim()?;
        // SAFETY: a read-only map. The file may shrink or change under it: a read past its end
        // is turned into zeros by the SIGBUS handler (the slot is live before any read), and
        // every access goes through bounds-checked, UTF-8-validated slices, so changed bytes
        // give garbage, never undefined behaviour; `damaged` and the caller's checks catch it.
        let map = match unsafe {
            memmap2::MmapOptions::new()
                .offset(offset)
                .len(len)
                .map(file)
        } {
            Ok(map) => map,
            Err(_) => {
                slot.state.store(FREE, Ordering::Release);
                return None;
            }
        };
        let page = PAGE_SIZE.load(Ordering::Relaxed);
        slot.start.store(map.as_ptr() as usize, Ordering::Relaxed);
        slot.len.store(len.div_ceil(page) * page, Ordering::Relaxed);
        slot.damaged.store(false, Ordering::Relaxed);
        slot.state.store(LIVE, Ordering::Release);
        Some(GuardedMap { map, slot })
    }

    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Whether a read faulted past the file's end, so that some of the bytes read were zeros.
    pub fn damaged(&self) -> bool {
        self.slot.damaged.load(Ordering::Acquire)
    }
}

/// A one-page map of a file's last page, touched once when the file is opened and never again:
/// truncating the file below that page (every in-place rewrite starts with a truncation to
/// zero) removes the page from the page tables of every map of it, this one included, and it
/// stays absent even when the file grows back. So a truncation during a read is recognized
/// even when the file was restored to the same bytes before the read ended.
pub(crate) struct Canary {
    map: GuardedMap,
}

impl Canary {
    /// Maps and touches the page holding the last of the file's first `len` bytes.
    pub fn new(file: &File, len: usize) -> Option<Canary> {
        let page = PAGE_SIZE.load(Ordering::Relaxed).max(1);
        let last_page = len.checked_sub(1)? / page * page;
        let map = GuardedMap::map_range(file, last_page as u64, len - last_page)?;
        // SAFETY: an in-bounds read of the map; a fault past the end is turned into zeros.
        unsafe { std::ptr::read_volatile(map.bytes().as_ptr()) };
        Some(Canary { map })
    }

    /// Whether the file may have been truncated below the page since it was touched: the page
    /// left the page tables, or reading it faulted. Without a way to tell (no
    /// `/proc/self/pagemap`), only the fault counts.
    pub fn tripped(&self) -> bool {
        self.map.damaged() || page_present(self.map.bytes().as_ptr() as usize) == Some(false)
    }
}

impl std::fmt::Debug for Canary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Canary")
            .field("tripped", &self.tripped())
            .finish()
    }
}

/// Whether the page holding `address` is in this process's page tables (bit 63 of its
/// `/proc/self/pagemap` entry, readable without privileges); `None` when that cannot be told.
#[cfg(target_os = "linux")]
fn page_present(address: usize) -> Option<bool> {
    use std::os::unix::fs::FileExt;
    let page = PAGE_SIZE.load(Ordering::Relaxed);
    let pagemap = File::open("/proc/self/pagemap").ok()?;
    let mut entry = [0; 8];
    pagemap
        .read_exact_at(&mut entry, (address / page * 8) as u64)
        .ok()?;
    Some(u64::from_ne_bytes(entry) >> 63 == 1)
}

#[cfg(not(target_os = "linux"))]
fn page_present(_address: usize) -> Option<bool> {
    None
}

impl Drop for GuardedMap {
    fn drop(&mut self) {
        // The slot is freed before the map is unmapped (fields drop after this body).
        self.slot.state.store(FREE, Ordering::Release);
    }
}

/// Installs the SIGBUS handler once per process; false if it could not be installed.
fn install_handler() -> bool {
    INSTALL.call_once(|| {
        // SAFETY: sysconf and sigaction with valid, zero-initialized arguments.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page <= 0 || !(page as usize).is_power_of_two() {
                return;
            }
            PAGE_SIZE.store(page as usize, Ordering::Relaxed);
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) != 0 {
                return;
            }
            let _ = PREVIOUS.set(previous);
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) == 0 {
                INSTALLED.store(true, Ordering::Release);
            }
        }
    });
    INSTALLED.load(Ordering::Acquire)
}

extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let address = unsafe { (*info).si_addr() } as usize;
    let errno = errno();
    let handled = zero_rest_of_map(address);
    set_errno(errno);
    if !handled {
        forward(signal, info, context);
    }
}

/// If `address` lies in a live map, maps zero pages from its page to the map's end, in place.
fn zero_rest_of_map(address: usize) -> bool {
    let Some(slot) = REGISTRY
        .iter()
        .find(|slot| slot.state.load(Ordering::Acquire) == LIVE && slot.contains(address))
    else {
        return false;
    };
    let page = PAGE_SIZE.load(Ordering::Relaxed);
    let from = address & !(page - 1);
    let end = slot.start.load(Ordering::Relaxed) + slot.len.load(Ordering::Relaxed);
    // SAFETY: `[from, end)` lies inside a map this process owns and only reads; replacing its
    // pages with private zero pages keeps every pointer into it valid.
    let mapped = unsafe {
        libc::mmap(
            from as *mut c_void,
            end - from,
            libc::PROT_READ,
            libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if mapped == libc::MAP_FAILED {
        return false;
    }
    slot.damaged.store(true, Ordering::Release);
    true
}

/// Hands a fault that is not ours to the previous handler, else to the default action.
fn forward(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
    if let Some(previous) = PREVIOUS.get() {
        let handler = previous.sa_sigaction;
        if handler != libc::SIG_DFL && handler != libc::SIG_IGN {
            // SAFETY: the previous action's handler, called with the signature its flags name.
            unsafe {
                if previous.sa_flags & libc::SA_SIGINFO != 0 {
                    let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) =
                        std::mem::transmute(handler);
                    handler(signal, info, context);
                } else {
                    let handler: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                    handler(signal);
                }
            }
            return;
        }
    }
    // SAFETY: async-signal-safe calls. The re-raised signal is blocked while this handler runs
    // and is delivered, with the default action (terminate), as soon as it returns.
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut default.sa_mask);
        libc::sigaction(signal, &default, std::ptr::null_mut());
        libc::raise(signal);
    }
}

#[cfg(target_os = "linux")]
fn errno_location() -> *mut libc::c_int {
    // SAFETY: returns the calling thread's errno slot.
    unsafe { libc::__errno_location() }
}

#[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
fn errno_location() -> *mut libc::c_int {
    // SAFETY: returns the calling thread's errno slot.
    unsafe { libc::__error() }
}

fn errno() -> libc::c_int {
    // SAFETY: the thread's own errno slot.
    unsafe { *errno_location() }
}

fn set_errno(value: libc::c_int) {
    // SAFETY: the thread's own errno slot.
    unsafe { *errno_location() = value }
}
