//! Finding session files under the roots, and opening them safely.
//!
//! A root holds `*.jsonl` files directly (a custom session dir) or one directory below (Pi's
//! `--<encoded cwd>--/` layout). Anything that is not a regular file once opened (a FIFO, a
//! socket, a dangling symlink, a directory named `*.jsonl`) or cannot be opened is skipped and
//! counted as unreadable. Files are opened with `O_NONBLOCK`, so a FIFO never blocks the reader.

use std::fs::{self, File, Metadata};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A session file found under a root, with its metadata at discovery time.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub stat: Stat,
}

/// What identifies a file's version cheaply: device, inode, size, and modification and change
/// times. A rewrite in place that keeps the size, even with its modification time put back,
/// gets a new change time (no call sets it back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stat {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
}

impl Stat {
    pub fn of(metadata: &Metadata) -> Stat {
        Stat {
            dev: metadata.dev(),
            ino: metadata.ino(),
            size: metadata.len(),
            mtime_ns: metadata
                .mtime()
                .saturating_mul(1_000_000_000)
                .saturating_add(metadata.mtime_nsec()),
            ctime_ns: metadata
                .ctime()
                .saturating_mul(1_000_000_000)
                .saturating_add(metadata.ctime_nsec()),
        }
    }

    /// Whether the file was last changed (content or inode) before `time`.
    pub fn changed_before(&self, time: SystemTime) -> bool {
        nanos_since_epoch(time).is_some_and(|t| self.ctime_ns < t)
    }

    /// Whether the file's content was last modified before `time`.
    pub fn modified_before(&self, time: SystemTime) -> bool {
        nanos_since_epoch(time).is_some_and(|t| self.mtime_ns < t)
    }
}

fn nanos_since_epoch(time: SystemTime) -> Option<i64> {
    let since = time.duration_since(std::time::UNIX_EPOCH).ok()?;
    i64::try_from(since.as_nanos()).ok()
}

/// Every session file under the roots (each file once, by device and inode), and how many
/// `*.jsonl` names were not readable regular files.
#[derive(Debug, Default)]
pub struct Discovery {
    pub files: Vec<Found>,
    pub unreadable: usize,
}

pub fn discover(roots: &[PathBuf]) -> Discovery {
    let mut discovery = Discovery::default();
    let mut seen = rustc_hash::FxHashSet::default();
    for root in roots {
        let Ok(entries) = fs::read_dir(root) else {
            continue;
        };
        let mut names: Vec<(PathBuf, bool)> = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if is_jsonl(&path) {
                names.push((path, false));
            } else if fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                names.push((path, true));
            }
        }
        names.sort();
        for (path, is_dir) in names {
            if is_dir {
                let Ok(inner) = fs::read_dir(&path) else {
                    continue;
                };
                let mut files: Vec<PathBuf> = inner
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| is_jsonl(p))
                    .collect();
                files.sort();
                for file in files {
                    consider(&mut discovery, &mut seen, file);
                }
            } else {
                consider(&mut discovery, &mut seen, path);
            }
        }
    }
    discovery
}

fn consider(
    discovery: &mut Discovery,
    seen: &mut rustc_hash::FxHashSet<(u64, u64)>,
    path: PathBuf,
) {
    match fs::metadata(&path) {
        Ok(metadata) if metadata.is_file() => {
            let stat = Stat::of(&metadata);
            if seen.insert((stat.dev, stat.ino)) {
                discovery.files.push(Found { path, stat });
            }
        }
        // A directory named `*.jsonl`, a FIFO, a socket, a dangling symlink.
        _ => discovery.unreadable += 1,
    }
}

fn is_jsonl(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl")
}

/// Opens a session file for reading without blocking on a FIFO; refuses anything that is not
/// a regular file once opened (the name may have been swapped since discovery).
pub fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok((file, metadata))
}

/// The first line of a session file (its header, as Pi writes it), read without loading the
/// file; `None` past `limit` bytes.
pub fn first_line(path: &Path, limit: usize) -> io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let (mut file, _) = open_regular(path)?;
    let mut line = Vec::new();
    let mut chunk = [0u8; 4096];
    while line.len() < limit {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if let Some(end) = memchr::memchr(b'\n', &chunk[..n]) {
            line.extend_from_slice(&chunk[..end]);
            return Ok(Some(line));
        }
        line.extend_from_slice(&chunk[..n]);
    }
    Ok((line.len() <= limit).then_some(line))
}
