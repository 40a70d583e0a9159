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
//! the new meta names (segment files, and the catalog the commit's payload names, handed over
//! with [`BatchSyncDirectory::sync_with_commit`]) and their directory entries are on disk. A
//! crash before it leaves the previous commit, whose files were synced by the commit before.
//! `.managed.json` lists the files tantivy may garbage-collect: a registration that only adds
//! files is kept in memory until the commit's batch writes it; a crash before then can only
//! leave a new, uncommitted segment's files unlisted, so never collected (they are removed with
//! the index when it is rebuilt). A change that removes files (garbage collection) is written
//! and synced at once, as tantivy does.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, TerminatingWrite,
    WatchCallback, WatchHandle, WritePtr,
};

const MANAGED: &str = ".managed.json";
const META: &str = "meta.json";

#[derive(Clone, Debug)]
pub struct BatchSyncDirectory {
    inner: MmapDirectory,
    root: PathBuf,
    state: Arc<Mutex<Pending>>,
}

/// What the next batch must make durable.
#[derive(Debug, Default)]
struct Pending {
    /// Files written and finished, not yet synced.
    files: Vec<File>,
    /// Directories whose entries changed outside the index directory (the catalog's).
    dirs: BTreeSet<PathBuf>,
    /// The `.managed.json` content to write, when a registration was deferred.
    managed: Option<Vec<u8>>,
    /// The paths `.managed.json` lists as last written (or deferred); `None` before the first.
    managed_paths: Option<BTreeSet<String>>,
}

impl BatchSyncDirectory {
    pub fn open(root: &Path) -> tantivy::Result<BatchSyncDirectory> {
        Ok(BatchSyncDirectory {
            inner: MmapDirectory::open(root)?,
            root: root.to_path_buf(),
            state: Arc::new(Mutex::new(Pending::default())),
        })
    }

    /// Has `file` (already written, not synced) and the entry of `dir` made durable with the
    /// next commit's batch, before `meta.json` is written.
    pub fn sync_with_commit(&self, file: File, dir: &Path) {
        let mut state = self.state();
        state.files.push(file);
        state.dirs.insert(dir.to_path_buf());
    }

    fn state(&self) -> MutexGuard<'_, Pending> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `content` (a `.managed.json`) only adds paths to what is listed now.
    fn only_adds(&self, state: &mut Pending, content: &[u8]) -> bool {
        let Ok(new) = serde_json::from_slice::<BTreeSet<String>>(content) else {
            return false;
        };
        if state.managed_paths.is_none() {
            let on_disk = fs::read(self.root.join(MANAGED))
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

    /// Syncs everything pending at once, then the directories.
    fn sync_batch(&self) -> io::Result<()> {
        let (mut files, dirs, managed) = {
            let mut state = self.state();
            (
                std::mem::take(&mut state.files),
                std::mem::take(&mut state.dirs),
                state.managed.take(),
            )
        };
        let managed_temp = match managed {
            Some(content) => {
                let (file, temp) = write_temp(&self.root, &content)?;
                files.push(file);
                Some(temp)
            }
            None => None,
        };
        sync_all_at_once(&files)?;
        if let Some(temp) = managed_temp {
            fs::rename(temp, self.root.join(MANAGED))?;
        }
        for dir in &dirs {
            sync_dir(dir)?;
        }
        sync_dir(&self.root)
    }
}

impl Directory for BatchSyncDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.root.join(path))
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
        self.inner.atomic_read(path)
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
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.sync_batch()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
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

/// A new temp file in `dir` holding `content` (not synced), and its path.
fn write_temp(dir: &Path, content: &[u8]) -> io::Result<(File, PathBuf)> {
    let temp = dir.join(format!(
        ".managed.{}.{}.tmp",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)?;
    if let Err(e) = file.write_all(content) {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    Ok((file, temp))
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
                .map(|file| scope.spawn(move || file.sync_data()))
                .collect();
            handles.into_iter().try_for_each(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("a sync thread failed")))
            })
        }),
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::schema::{Schema, STORED, TEXT};
    use tantivy::{doc, Index, IndexSettings};

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
