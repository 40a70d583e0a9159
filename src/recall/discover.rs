//! Finding session files under the roots, and opening them safely.
//!
//! Each root is read in its harness's layout ([`discover`]). A directory whose stamp is the one
//! the catalog recorded when it last listed it has the same names: its files are taken from the
//! catalog, and only those it is asked to check are looked at ([`Known`]). Anything that is not a regular file once opened (a FIFO, a
//! socket, a dangling symlink, a directory named `*.jsonl`) or cannot be opened is skipped and
//! counted as unreadable. Files are opened with `O_NONBLOCK`, so a FIFO never blocks the reader.

use std::fs::{self, Metadata};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rustc_hash::FxHashMap;

use crate::session::{Harness, Layout, Root};

/// A session file found under a root, with its metadata at discovery time.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub stat: Stat,
    /// The harness whose layout the file was found in (its content decides how it is read).
    pub harness: Harness,
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
    /// Why each unreadable name was: its harness and the reason.
    pub problems: Vec<(Harness, String)>,
    /// The directories whose listing the catalog may stand for next time.
    pub dirs: Vec<DirRecord>,
    /// How many session files were looked at (`stat`); the others' stamps came from the catalog.
    pub checked: usize,
}

/// A directory listed for the session files of one glob, as it was when listed: a name
/// created, removed or renamed in it changes its modification and change times, so while its
/// stamp holds, its files are the catalog's files of that directory and glob, `files` of them.
/// Only a plain listing is recorded (every name a regular file, not a link, in UTF-8), and only
/// once its stamp has settled.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DirRecord {
    pub path: String,
    pub glob: String,
    pub stamp: Stat,
    pub files: u32,
}

/// What the catalog knows of the session directories, for a discovery that does not look at
/// every file.
#[derive(Debug, Default)]
pub struct Known<'a> {
    /// The recorded directories' stamps, by path and glob.
    pub dirs: FxHashMap<(&'a str, &'a str), (Stat, u32)>,
    /// The indexed files by directory, in name order.
    pub files: FxHashMap<&'a str, Vec<KnownFile<'a>>>,
}

/// An indexed file of a directory: its name, its stamp when indexed, and whether to look at it
/// all the same (a recently changed file, the sweep's share, the live session).
#[derive(Debug, Clone, Copy)]
pub struct KnownFile<'a> {
    pub name: &'a str,
    pub stat: Stat,
    pub check: bool,
}

/// How a discovery reads the directories.
#[derive(Debug, Clone, Copy)]
pub struct Watch<'a> {
    /// What the catalog knows; `None`: every file is looked at (`sessions index`, no index).
    pub known: Option<&'a Known<'a>>,
    /// A directory changed since then is not recorded (a change in the same tick of the file
    /// system's clock could leave its stamp as it is).
    pub settled_before: SystemTime,
}

impl Watch<'_> {
    /// Every file looked at, no directory recorded.
    pub fn everything() -> Watch<'static> {
        Watch {
            known: None,
            settled_before: SystemTime::UNIX_EPOCH,
        }
    }
}

/// The session files under `roots`, each root read in its harness's [`Layout`]
/// (docs/recall.md): every pattern has a fixed depth, so a directory link that loops back is
/// read at most once per pattern and never walked into; a link that fails to resolve is
/// skipped.
pub fn discover(roots: &[Root], watch: Watch) -> Discovery {
    let mut dirs: Vec<(PathBuf, Wanted, Harness)> = Vec::new();
    let mut discovery = Discovery::default();
    for root in roots {
        for problem in root.prepare() {
            discovery.unreadable += 1;
            discovery.problems.push((root.harness, problem));
        }
        if let Some(listed) = root.listed() {
            layout_dirs(listed, root.harness, &mut dirs);
        }
    }
    let listings = list_all(&dirs, watch);
    // Sized once: growing the lists of thousands of files copied them into fresh pages.
    let files = listings.iter().map(|l| l.files.len()).sum();
    discovery.files.reserve_exact(files);
    let mut seen: rustc_hash::FxHashSet<(u64, u64)> =
        rustc_hash::FxHashSet::with_capacity_and_hasher(files, Default::default());
    for listing in listings {
        discovery.unreadable += listing.unreadable;
        discovery.problems.extend(listing.problems);
        discovery.checked += listing.checked;
        discovery.dirs.extend(listing.record);
        for found in listing.files {
            if seen.insert((found.stat.dev, found.stat.ino)) {
                discovery.files.push(found);
            }
        }
    }
    discovery
}

/// The names of a directory that are session files: a glob of the layout with one `*`.
type Wanted = &'static str;

/// The directories a layout's patterns name under `root`, in pattern order, each with the file
/// names it takes.
fn layout_dirs(root: &Path, harness: Harness, out: &mut Vec<(PathBuf, Wanted, Harness)>) {
    let Layout(patterns) = harness.layout();
    for pattern in patterns {
        let (dir_parts, file) = pattern.rsplit_once('/').unwrap_or(("", pattern));
        let mut dirs = vec![root.to_path_buf()];
        for part in dir_parts.split('/').filter(|p| !p.is_empty()) {
            dirs = if part == "*" {
                dirs.iter().flat_map(|d| subdirs(d)).collect()
            } else {
                dirs.into_iter().map(|d| d.join(part)).collect()
            };
        }
        out.extend(dirs.into_iter().map(|d| (d, file, harness)));
    }
}

/// Whether a file name matches a glob of at most one `*`.
fn matches_glob(name: &str, glob: &str) -> bool {
    match glob.split_once('*') {
        Some((head, tail)) => {
            name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
        }
        None => name == glob,
    }
}

/// The files of one directory, in name order, and how many of its names were not files.
#[derive(Default)]
struct Listing {
    files: Vec<Found>,
    unreadable: usize,
    problems: Vec<(Harness, String)>,
    /// Files looked at.
    checked: usize,
    record: Option<DirRecord>,
}

/// The listings of `dirs`, in their order. A `stat` of each file is most of what finding the
/// sessions costs when every file is looked at (9,330 of them at 10 GB): the directories are
/// read on two threads.
fn list_all(dirs: &[(PathBuf, Wanted, Harness)], watch: Watch) -> Vec<Listing> {
    const THREADS: usize = 2;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some((dir, wanted, harness)) = dirs.get(i) else {
                return done;
            };
            done.push((i, list(dir, wanted, *harness, watch)));
        }
    };
    let mut listed: Vec<(usize, Listing)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..THREADS).map(|_| scope.spawn(work)).collect();
        let mut listed = work();
        for helper in helpers {
            listed.extend(
                helper
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        listed
    });
    listed.sort_unstable_by_key(|(i, _)| *i);
    listed.into_iter().map(|(_, listing)| listing).collect()
}

/// The files of `dir` whose names `wanted` accepts, in name order: the catalog's, when the
/// directory is as it recorded it, else read from the directory.
fn list(dir: &Path, wanted: &'static str, harness: Harness, watch: Watch) -> Listing {
    // Taken before the names are read: a name added meanwhile changes it after.
    let stamp = fs::metadata(dir).ok().map(|m| Stat::of(&m));
    let key = dir.to_str().map(dir_key);
    if let (Some(known), Some(stamp), Some(key)) = (watch.known, stamp, key) {
        if let Some(listing) = list_known(dir, (key, wanted), stamp, harness, known) {
            return listing;
        }
    }
    let (mut listing, plain) = list_read(dir, wanted, harness);
    if let (true, Some(stamp), Some(key)) = (plain, stamp, key) {
        if stamp.changed_before(watch.settled_before) {
            listing.record = Some(DirRecord {
                path: key.to_string(),
                glob: wanted.to_string(),
                stamp,
                files: u32::try_from(listing.files.len()).unwrap_or(u32::MAX),
            });
        }
    }
    listing
}

/// A directory's path as the catalog's file paths have it before their last `/`.
pub fn dir_key(path: &str) -> &str {
    match path.trim_end_matches('/') {
        "" => path,
        trimmed => trimmed,
    }
}

/// The directory's files from the catalog, when its stamp and its number of files are the ones
/// recorded; the files it is asked to check are looked at (one gone or no longer a regular
/// file, which a directory left alone cannot have, makes it read whole).
fn list_known(
    dir: &Path,
    (key, wanted): (&str, &'static str),
    stamp: Stat,
    harness: Harness,
    known: &Known,
) -> Option<Listing> {
    let &(recorded, files) = known.dirs.get(&(key, wanted))?;
    if recorded != stamp {
        return None;
    }
    let mut listing = Listing::default();
    let indexed = known.files.get(key).map_or(&[][..], Vec::as_slice);
    listing.files.reserve_exact(indexed.len());
    for file in indexed.iter().filter(|f| matches_glob(f.name, wanted)) {
        let path = dir.join(file.name);
        let stat = if file.check {
            listing.checked += 1;
            match fs::symlink_metadata(&path) {
                Ok(metadata) if metadata.is_file() => Stat::of(&metadata),
                _ => return None,
            }
        } else {
            file.stat
        };
        listing.files.push(Found {
            path,
            stat,
            harness,
        });
    }
    (listing.files.len() as u64 == u64::from(files)).then(|| {
        listing.record = Some(DirRecord {
            path: key.to_string(),
            glob: wanted.to_string(),
            stamp,
            files,
        });
        listing
    })
}

/// The files of `dir` whose names `wanted` accepts, in name order, each looked at; and whether
/// the listing is plain (every name a regular file, not a link, in UTF-8), so that the catalog
/// may stand for it.
fn list_read(dir: &Path, wanted: &str, harness: Harness) -> (Listing, bool) {
    let mut listing = Listing::default();
    let Ok(entries) = fs::read_dir(dir) else {
        return (listing, false);
    };
    let mut files: Vec<fs::DirEntry> = entries
        .flatten()
        .filter(|e| matches_glob(&e.file_name().to_string_lossy(), wanted))
        .collect();
    sort_by_name(&mut files);
    let mut plain = true;
    for entry in files {
        listing.checked += 1;
        let linked = entry.file_type().map_or(true, |kind| kind.is_symlink());
        plain &= !linked && entry.file_name().to_str().is_some();
        match followed_metadata(&entry) {
            Ok(metadata) if metadata.is_file() => listing.files.push(Found {
                path: entry.path(),
                stat: Stat::of(&metadata),
                harness,
            }),
            // A directory named `*.jsonl`, a FIFO, a socket, a dangling symlink.
            Ok(_) => {
                plain = false;
                listing.unreadable += 1;
                listing
                    .problems
                    .push((harness, "not a regular file".to_string()));
            }
            Err(e) => {
                plain = false;
                listing.unreadable += 1;
                listing.problems.push((harness, reason(&e)));
            }
        }
    }
    (listing, plain)
}

/// An entry's metadata with symlinks followed. Anything but a link is read relative to its
/// directory (`statx` on the directory's descriptor, no walk of the whole path), which is most
/// of what a search costs before the engine runs on a large corpus.
fn followed_metadata(entry: &fs::DirEntry) -> io::Result<Metadata> {
    match entry.file_type() {
        Ok(kind) if !kind.is_symlink() => entry.metadata(),
        _ => fs::metadata(entry.path()),
    }
}

/// Entries of one directory in the byte order of their names (every path shares the parent,
/// so this is the order of the paths, without comparing them component by component).
fn sort_by_name(entries: &mut [fs::DirEntry]) {
    entries.sort_by_cached_key(|e| e.file_name());
}

/// The directories in `dir` (links to directories included), in name order; nothing when
/// `dir` cannot be read.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<fs::DirEntry> = entries
        .flatten()
        .filter(|e| !is_jsonl(Path::new(&e.file_name())))
        .filter(|e| followed_metadata(e).is_ok_and(|m| m.is_dir()))
        .collect();
    sort_by_name(&mut dirs);
    dirs.iter().map(fs::DirEntry::path).collect()
}

fn is_jsonl(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl")
}

/// Why a file could not be read, in a few words (`permission denied`, `a dangling link`).
pub fn reason(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::NotFound => "a dangling link or a file gone meanwhile".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::InvalidInput => "not a regular file".to_string(),
        _ => error.to_string(),
    }
}

/// Opens a session file for reading without blocking on a FIFO; refuses anything that is not
/// a regular file once opened (the name may have been swapped since discovery).
pub use crate::sidefile::open_regular;

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "{}\n").unwrap();
    }

    fn names(discovery: &Discovery, root: &Path) -> Vec<String> {
        discovery
            .files
            .iter()
            .map(|f| f.path.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn each_harness_is_read_in_its_layout() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join("claude");
        let codex = dir.path().join("codex");
        for file in [
            "-w-p/s1.jsonl",
            "-w-p/agent-old.jsonl",
            "-w-p/s1/subagents/agent-a.jsonl",
            "-w-p/s1/tool-results/x.jsonl",
            "-w-p/deep/er/s2.jsonl",
        ] {
            touch(&claude.join(file));
        }
        for file in [
            "sessions/2026/02/28/rollout-a.jsonl",
            "sessions/2026/02/28/other.jsonl",
            "sessions/2026/02/rollout-shallow.jsonl",
            "archived_sessions/rollout-b.jsonl",
            "history.jsonl",
        ] {
            touch(&codex.join(file));
        }
        let found = discover(&[Root::new(Harness::Claude, &claude)], Watch::everything());
        assert_eq!(
            names(&found, &claude),
            [
                "-w-p/agent-old.jsonl",
                "-w-p/s1.jsonl",
                "-w-p/s1/subagents/agent-a.jsonl"
            ]
        );
        let found = discover(&[Root::new(Harness::Codex, &codex)], Watch::everything());
        assert_eq!(
            names(&found, &codex),
            [
                "sessions/2026/02/28/rollout-a.jsonl",
                "archived_sessions/rollout-b.jsonl"
            ]
        );
    }

    #[test]
    fn links_that_loop_are_read_once_and_never_walked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("projects");
        touch(&root.join("-w-p/s1.jsonl"));
        touch(&root.join("-w-p/s1/subagents/agent-a.jsonl"));
        std::os::unix::fs::symlink("subagents", root.join("-w-p/s1/subagents/subagents")).unwrap();
        fs::create_dir_all(root.join("-w-p/s2")).unwrap();
        std::os::unix::fs::symlink("subagents", root.join("-w-p/s2/subagents")).unwrap();
        std::os::unix::fs::symlink("..", root.join("-w-p/s3")).unwrap();
        std::os::unix::fs::symlink(".", root.join("-w-p/s1/subagents/again")).unwrap();
        let found = discover(&[Root::new(Harness::Claude, &root)], Watch::everything());
        assert_eq!(
            names(&found, &root),
            ["-w-p/s1.jsonl", "-w-p/s1/subagents/agent-a.jsonl"]
        );
        assert_eq!(found.unreadable, 0);
    }

    /// Directories are read on two threads, yet the files come in walk order (directories in
    /// name order, files by name), a file linked from two places comes once, at the first, and
    /// names that are not files are counted wherever they are.
    #[test]
    fn many_directories_come_in_walk_order_each_file_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        let mut expected = Vec::new();
        for project in 0..60 {
            for session in 0..3 {
                let name = format!("--p{project:02}--/s{session}.jsonl");
                touch(&root.join(&name));
                expected.push(name);
            }
        }
        std::os::unix::fs::symlink(root.join("--p03--/s1.jsonl"), root.join("--p50--/s9.jsonl"))
            .unwrap();
        fs::create_dir_all(root.join("--p20--/dir.jsonl")).unwrap();
        std::os::unix::fs::symlink("missing", root.join("--p40--/gone.jsonl")).unwrap();
        let found = discover(&[Root::new(Harness::Pi, &root)], Watch::everything());
        assert_eq!(names(&found, &root), expected);
        assert_eq!(found.unreadable, 2);
    }
}
