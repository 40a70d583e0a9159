//! A tantivy directory that makes a commit durable with one batch of syncs instead of one per
//! file.
//!
//! tantivy's `MmapDirectory` syncs every segment file as it is finished and rewrites
//! `.managed.json` (temp file, sync, rename) for every file it registers: about twenty
//! `fdatasync` calls one after the other for a small commit, each waiting for the file system's
//! journal. This directory writes the same files but syncs none of them as they are written; at
//! the commit (tantivy calls [`Directory::sync_directory`] right before it writes `meta.json`)
//! it syncs all of them at once, from as many threads (so the journal commits them together),
//! then the directory, and only then does `meta.json` get written (temp file, sync, rename).
//!
//! Why that is safe: a commit is the rename of `meta.json`, and it happens after every file
//! the new meta names (segment files, and the catalog the commit's payload names, written in
//! this directory and handed over with [`BatchSyncDirectory::sync_with_commit`]) and their
//! directory entries are on disk. A
//! crash before it leaves the previous commit, whose files were synced by the commit before.
//! `.managed.json` lists the files tantivy may garbage-collect: a registration that only adds
//! files is kept in memory until the commit's batch writes it; a crash before then can only
//! leave a new, uncommitted segment's files unlisted, so never collected by tantivy (the next
//! writer removes them: `Store::remove_uncommitted_segments`). A change that removes files (garbage collection) is written
//! and synced at once, as tantivy does.
//!
//! Every file is reached from a handle on the directory itself, never through a path: opened
//! with `O_NOFOLLOW | O_NONBLOCK` (a link or FIFO put in place of a file is refused, never
//! followed or waited on), checked to be a regular file by `fstat`, and the small files
//! (`meta.json`, `.managed.json`, catalogs) read up to a size cap. Segment files are mapped, not
//! read. Anything else is an error, which makes the index corrupt (rebuilt), never a hang.
//! tantivy's own `MmapDirectory` resolves the directory's path (following a link put there) and
//! opens files by path, so it is not used.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, Lock, OwnedBytes, TerminatingWrite,
    WatchCallback, WatchHandle, WritePtr,
};

use crate::cachefile::{self, Durability};

const MANAGED: &str = ".managed.json";
const META: &str = "meta.json";
/// The largest `meta.json`, `.managed.json` or catalog read; a larger one is corrupt.
pub const MAX_SMALL_FILE: u64 = 256 << 20;

#[derive(Clone, Debug)]
pub struct BatchSyncDirectory {
    dir: Arc<OwnedFd>,
    /// For messages only.
    root: PathBuf,
    state: Arc<Mutex<Pending>>,
}

/// What the next batch must make durable.
#[derive(Debug, Default)]
struct Pending {
    /// Files written and finished, not yet synced.
    files: Vec<File>,
    /// The `.managed.json` content to write, when a registration was deferred.
    managed: Option<Vec<u8>>,
    /// The paths `.managed.json` lists as last written (or deferred); `None` before the first.
    managed_paths: Option<BTreeSet<String>>,
}

impl BatchSyncDirectory {
    /// Opens the directory at `root`, which must be a directory and not a link to one.
    pub fn open(root: &Path) -> io::Result<BatchSyncDirectory> {
        let fd = rfs::open(
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(BatchSyncDirectory {
            dir: Arc::new(fd),
            root: root.to_path_buf(),
            state: Arc::new(Mutex::new(Pending::default())),
        })
    }

    /// Has `file` (already written in this directory, not synced) made durable with the next
    /// commit's batch, before `meta.json` is written.
    pub fn sync_with_commit(&self, file: File) {
        self.state().files.push(file);
    }

    fn state(&self) -> MutexGuard<'_, Pending> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens the regular file `name` for reading, without following a link or blocking on a
    /// FIFO; its size with it.
    pub fn open_regular(&self, name: &str) -> io::Result<(File, u64)> {
        let name = single_name(name)?;
        let fd = rfs::openat(
            &self.dir,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let stat = rfs::fstat(&fd)?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is not a regular file", self.root.join(name).display()),
            ));
        }
        Ok((File::from(fd), u64::try_from(stat.st_size).unwrap_or(0)))
    }

    /// The whole of the regular file `name`, at most [`MAX_SMALL_FILE`] bytes.
    pub fn read_small(&self, name: &str) -> io::Result<Vec<u8>> {
        let (file, size) = self.open_small(name)?;
        read_whole(file, size)
    }

    /// The whole of the regular file `name` (at most [`MAX_SMALL_FILE`] bytes), mapped behind the
    /// SIGBUS guard when a guarded map can be set up, read otherwise. A map costs no fresh
    /// memory: reading a 5.6 MB catalog into a new buffer (the kernel zeroing and copying every
    /// page) was a fifth of loading it. The caller checks [`SmallFile::damaged`] after reading:
    /// a file cut short under the map reads as zeros past its end.
    pub fn map_small(&self, name: &str) -> io::Result<SmallFile> {
        let (file, size) = self.open_small(name)?;
        match usize::try_from(size)
            .ok()
            .and_then(|len| cachefile::GuardedMap::map(&file, len))
        {
            Some(map) => Ok(SmallFile::Mapped(map)),
            None => read_whole(file, size).map(SmallFile::Read),
        }
    }

    /// The regular file `name` and its size, refused when over [`MAX_SMALL_FILE`] bytes.
    fn open_small(&self, name: &str) -> io::Result<(File, u64)> {
        let (file, size) = self.open_regular(name)?;
        if size > MAX_SMALL_FILE {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is too large", self.root.join(name).display()),
            ));
        }
        Ok((file, size))
    }

    /// Creates the new file `name` (0600, refused when anything has that name).
    pub fn create_new(&self, name: &str) -> io::Result<File> {
        let fd = rfs::openat(
            &self.dir,
            single_name(name)?,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )?;
        Ok(File::from(fd))
    }

    pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        Ok(rfs::renameat(
            &self.dir,
            single_name(from)?,
            &self.dir,
            single_name(to)?,
        )?)
    }

    /// Removes the file `name`; a missing one is not an error.
    pub fn remove(&self, name: &str) -> io::Result<()> {
        match rfs::unlinkat(&self.dir, single_name(name)?, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// The names in the directory.
    pub fn names(&self) -> io::Result<Vec<String>> {
        let fd = rfs::openat(
            &self.dir,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let mut names = Vec::new();
        for entry in rfs::Dir::read_from(&fd)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name != "." && name != ".." {
                names.push(name);
            }
        }
        Ok(names)
    }

    fn sync(&self) -> io::Result<()> {
        Ok(rfs::fsync(&self.dir)?)
    }

    /// Whether `content` (a `.managed.json`) only adds paths to what is listed now.
    fn only_adds(&self, state: &mut Pending, content: &[u8]) -> bool {
        let Ok(new) = serde_json::from_slice::<BTreeSet<String>>(content) else {
            return false;
        };
        if state.managed_paths.is_none() {
            let on_disk = self
                .read_small(MANAGED)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<BTreeSet<String>>(&bytes).ok())
                .unwrap_or_default();
            state.managed_paths = Some(on_disk);
        }
        let adds = state
            .managed_paths
            .as_ref()
            .is_some_and(|old| old.is_subset(&new));
        state.managed_paths = Some(new);
        adds
    }

    /// Syncs everything pending at once, then the directory.
    fn sync_batch(&self) -> io::Result<()> {
        let (mut files, managed) = {
            let mut state = self.state();
            (std::mem::take(&mut state.files), state.managed.take())
        };
        let managed_temp = match managed {
            Some(content) => {
                let (file, temp) = self.write_temp(&content)?;
                files.push(file);
                Some(temp)
            }
            None => None,
        };
        sync_all_at_once(&files)?;
        if let Some(temp) = managed_temp {
            self.rename(&temp, MANAGED)?;
        }
        self.sync()
    }

    /// A new temp file holding `content` (not synced), and its name.
    fn write_temp(&self, content: &[u8]) -> io::Result<(File, String)> {
        let temp = format!(
            ".managed.{}.{}.tmp",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        );
        let mut file = self.create_new(&temp)?;
        if let Err(e) = file.write_all(content) {
            let _ = self.remove(&temp);
            return Err(e);
        }
        Ok((file, temp))
    }

    /// Replaces `name` with `data`: a synced temp file renamed over it, then the directory
    /// synced (what tantivy's own directory does for `meta.json`).
    fn replace_durably(&self, name: &str, data: &[u8]) -> io::Result<()> {
        cachefile::save_in(&*self.dir, single_name(name)?, data, Durability::Durable)
    }

    fn path_name<'p>(&self, path: &'p Path) -> io::Result<&'p str> {
        path.to_str()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a plain name"))
    }
}

/// `name` when it names an entry of the directory itself (no `/`, not `.` or `..`).
fn single_name(name: &str) -> io::Result<&OsStr> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name:?} is not a name in the index directory"),
        ));
    }
    Ok(OsStr::new(name))
}

fn not_found(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound
}

/// The whole of the just opened small `file` of `size` bytes, refused when it grew past
/// [`MAX_SMALL_FILE`].
fn read_whole(file: File, size: u64) -> io::Result<Vec<u8>> {
    let mut data = Vec::with_capacity(size as usize);
    file.take(MAX_SMALL_FILE + 1).read_to_end(&mut data)?;
    if data.len() as u64 > MAX_SMALL_FILE {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "grew too large"));
    }
    Ok(data)
}

/// A small file of the directory, mapped or read ([`BatchSyncDirectory::map_small`]).
pub enum SmallFile {
    Mapped(cachefile::GuardedMap),
    Read(Vec<u8>),
}

impl SmallFile {
    pub fn bytes(&self) -> &[u8] {
        match self {
            SmallFile::Mapped(map) => map.bytes(),
            SmallFile::Read(data) => data,
        }
    }

    /// Whether some bytes read were zeros standing for a part of the file cut off under the map.
    pub fn damaged(&self) -> bool {
        match self {
            SmallFile::Mapped(map) => map.damaged(),
            SmallFile::Read(_) => false,
        }
    }
}

/// A failed open as tantivy asks to be told: a missing file, or why it could not be read.
fn open_read_error(e: io::Error, path: &Path) -> OpenReadError {
    if not_found(&e) {
        OpenReadError::FileDoesNotExist(path.to_path_buf())
    } else {
        OpenReadError::wrap_io_error(e, path.to_path_buf())
    }
}

impl Directory for BatchSyncDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let wrap = |e: io::Error| open_read_error(e, path);
        let name = self.path_name(path).map_err(wrap)?;
        let (file, size) = self.open_regular(name).map_err(wrap)?;
        if size == 0 {
            return Ok(Arc::new(OwnedBytes::empty()));
        }
        // SAFETY: the index's files are written once and never changed in place; a file cut
        // short under the map (by another process) is what any mmap reader risks.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(wrap)?;
        Ok(Arc::new(OwnedBytes::new(map)))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        let name = self.path_name(path).map_err(|e| DeleteError::IoError {
            io_error: Arc::new(e),
            filepath: path.to_path_buf(),
        })?;
        let result = rfs::unlinkat(&self.dir, OsStr::new(name), AtFlags::empty());
        match result {
            Ok(()) => Ok(()),
            Err(Errno::NOENT) => Err(DeleteError::FileDoesNotExist(path.to_path_buf())),
            Err(e) => Err(DeleteError::IoError {
                io_error: Arc::new(e.into()),
                filepath: path.to_path_buf(),
            }),
        }
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        let name = self
            .path_name(path)
            .map_err(|e| OpenReadError::wrap_io_error(e, path.to_path_buf()))?;
        match rfs::statat(&self.dir, OsStr::new(name), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(_) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(OpenReadError::wrap_io_error(e.into(), path.to_path_buf())),
        }
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let file = self
            .path_name(path)
            .and_then(|name| self.create_new(name))
            .map_err(|e| {
                if e.kind() == io::ErrorKind::AlreadyExists {
                    OpenWriteError::FileAlreadyExists(path.to_path_buf())
                } else {
                    OpenWriteError::wrap_io_error(e, path.to_path_buf())
                }
            })?;
        Ok(BufWriter::new(Box::new(DeferredSyncWriter {
            file: Some(file),
            state: Arc::clone(&self.state),
        })))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let wrap = |e: io::Error| open_read_error(e, path);
        let name = self.path_name(path).map_err(wrap)?;
        self.read_small(name).map_err(wrap)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        if path == Path::new(MANAGED) {
            let mut state = self.state();
            if self.only_adds(&mut state, data) {
                state.managed = Some(data.to_vec());
                return Ok(());
            }
            state.managed = None;
        }
        if path == Path::new(META) {
            // tantivy syncs the directory right before, but a caller that did not still gets
            // everything pending on disk before the commit.
            self.sync_batch()?;
        }
        let name = self.path_name(path)?.to_string();
        self.replace_durably(&name, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.sync_batch()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        let wrap = LockError::wrap_io_error;
        let name = self.path_name(&lock.filepath).map_err(wrap)?;
        let fd = rfs::openat(
            &self.dir,
            single_name(name).map_err(wrap)?,
            OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| wrap(e.into()))?;
        let stat = rfs::fstat(&fd).map_err(|e| wrap(e.into()))?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(wrap(io::Error::other("a lock that is not a regular file")));
        }
        let file = File::from(fd);
        if lock.is_blocking {
            file.lock().map_err(wrap)?;
        } else if file.try_lock().is_err() {
            return Err(LockError::LockBusy);
        }
        // Closing the file releases the lock.
        Ok(DirectoryLock::from(Box::new(file)))
    }

    fn watch(&self, _: WatchCallback) -> tantivy::Result<WatchHandle> {
        // Readers reload by hand (`ReloadPolicy::Manual`): nothing watches `meta.json`.
        Ok(WatchHandle::empty())
    }
}

/// A segment file being written; finishing it hands it to the next batch instead of syncing.
struct DeferredSyncWriter {
    file: Option<File>,
    state: Arc<Mutex<Pending>>,
}

impl Write for DeferredSyncWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(file) => file.write(buf),
            None => Err(io::Error::other("write after terminate")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl TerminatingWrite for DeferredSyncWriter {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        if let Some(file) = self.file.take() {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.files.push(file);
        }
        Ok(())
    }
}

/// `fdatasync` of every file, side by side: the file system commits its journal once for
/// all of them instead of once per file.
fn sync_all_at_once(files: &[File]) -> io::Result<()> {
    match files {
        [] => Ok(()),
        [file] => file.sync_data(),
        _ => std::thread::scope(|scope| {
            let handles: Vec<_> = files
                .iter()
                .map(|file| scope.spawn(move || rfs::fdatasync(file.as_fd())))
                .collect();
            handles
                .into_iter()
                .try_for_each(|h| h.join().unwrap_or(Err(Errno::IO)).map_err(io::Error::from))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use tantivy::schema::{Schema, STORED, TEXT};
    use tantivy::{doc, Index, IndexSettings};

    /// A small file (a catalog) cut short while it is mapped reads as zeros past its new end,
    /// and says so: the reader takes it for unreadable instead of dying of SIGBUS.
    #[test]
    fn a_small_file_cut_short_under_its_map_reads_as_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let page = 4096;
        fs::write(dir.path().join("catalog-x.bin"), vec![7u8; 4 * page]).unwrap();
        let directory = BatchSyncDirectory::open(dir.path()).unwrap();
        let file = directory.map_small("catalog-x.bin").unwrap();
        assert!(matches!(file, SmallFile::Mapped(_)));
        assert_eq!(file.bytes()[3 * page], 7);
        assert!(!file.damaged());
        fs::OpenOptions::new()
            .write(true)
            .open(dir.path().join("catalog-x.bin"))
            .unwrap()
            .set_len(page as u64)
            .unwrap();
        let after_the_cut: u64 = file.bytes()[2 * page..].iter().map(|b| u64::from(*b)).sum();
        assert_eq!(after_the_cut, 0);
        assert!(file.damaged());
        assert!(directory.map_small("catalog-x.bin").unwrap().bytes().len() == page);
    }

    /// A commit through this directory leaves an index tantivy's own directory reads, with
    /// every segment file listed in `.managed.json` (the deferred registrations were written)
    /// and nothing left to sync.
    #[test]
    fn a_commit_writes_every_deferred_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut builder = Schema::builder();
        let text = builder.add_text_field("text", TEXT | STORED);
        let schema = builder.build();
        let directory = BatchSyncDirectory::open(dir.path()).unwrap();
        let index = Index::create(directory.clone(), schema, IndexSettings::default()).unwrap();
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for commit in 0..3 {
            writer
                .add_document(doc!(text => format!("kestrel {commit}")))
                .unwrap();
            writer.commit().unwrap();
        }
        writer.wait_merging_threads().unwrap();
        let pending = directory.state();
        assert!(
            pending.files.is_empty() && pending.managed.is_none(),
            "{pending:?}"
        );
        drop(pending);

        let reopened = Index::open_in_dir(dir.path()).unwrap();
        let searcher = reopened.reader().unwrap().searcher();
        assert_eq!(searcher.num_docs(), 3);
        let managed: BTreeSet<String> =
            serde_json::from_slice(&fs::read(dir.path().join(MANAGED)).unwrap()).unwrap();
        let segment_files: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with('.') && name != META)
            .collect();
        assert!(!segment_files.is_empty());
        for name in segment_files {
            assert!(managed.contains(&name), "{name} is not in {managed:?}");
        }
    }

    /// Garbage collection (a registration that removes files) is written at once.
    #[test]
    fn a_removal_from_the_managed_list_is_written_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let directory = BatchSyncDirectory::open(dir.path()).unwrap();
        directory
            .atomic_write(Path::new(MANAGED), br#"["a","b"]"#)
            .unwrap();
        assert!(
            !dir.path().join(MANAGED).exists(),
            "an addition waits for the commit"
        );
        directory.sync_directory().unwrap();
        assert_eq!(fs::read(dir.path().join(MANAGED)).unwrap(), br#"["a","b"]"#);
        directory
            .atomic_write(Path::new(MANAGED), br#"["a"]"#)
            .unwrap();
        assert_eq!(fs::read(dir.path().join(MANAGED)).unwrap(), br#"["a"]"#);
    }
}
