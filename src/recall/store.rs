//! The on-disk index: generations of a tantivy index, each in its own directory
//! `<dir>/gen-<id>` with the catalogs of its commits, and `<dir>/current`, which names the one
//! readers use. Every file is created 0600 in 0700 directories.
//!
//! Writers (a refresh, a rebuild) hold `<dir>/writer.lock`, taken without waiting: a process
//! that cannot take it reads the last commit instead (`stale`). A refresh commits into the
//! current generation: a commit replaces `meta.json` atomically and its payload names the
//! catalog written just before it, so a reader pairs a searcher with the catalog of the same
//! commit. A rebuild (asked for, or of an index that cannot be used) builds a new generation
//! aside and switches `current` to it in one rename once it is committed and on disk, then
//! removes the other generations; a search beside it reads the old generation until the switch,
//! and one that opened a generation just removed opens the new one. A process killed at any
//! point leaves `current` naming a whole generation (or none, before the first).
//!
//! Nothing under `<dir>` is followed through a link: `current` and the lock are opened with
//! `O_NOFOLLOW | O_NONBLOCK` and must be regular files, a generation must be a directory
//! (`BatchSyncDirectory` opens it and every file in it the same way).

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use tantivy::index::SegmentId;
use tantivy::{Index, IndexReader, IndexSettings, ReloadPolicy, Searcher, TantivyDocument};

use super::catalog::{self, Catalog, Payload};
use super::directory::BatchSyncDirectory;
use super::error::RecallError;
use super::schema::{self, Fields};
use crate::cachefile::{self, Durability};

/// Whether term positions are indexed; they make phrase queries exact inside the engine
/// (docs/recall.md explains the measurement behind the choice).
pub const POSITIONS: bool = true;

/// The file naming the generation readers use.
const CURRENT: &str = "current";
const GENERATION_PREFIX: &str = "gen-";
/// The largest `current` read (a generation's name is 20 bytes).
const MAX_CURRENT_BYTES: u64 = 256;

pub struct Store {
    /// The generation's name (`gen-<id>`).
    name: String,
    index: Index,
    /// The generation's directory, through which its catalogs are read and written.
    directory: BatchSyncDirectory,
    pub fields: Fields,
}

/// A consistent view: the searcher of one commit and the catalog that commit names.
pub struct Snapshot {
    pub searcher: Searcher,
    pub catalog: Catalog,
    /// The commit's opstamp: a later commit of the generation has a greater one.
    pub opstamp: u64,
    /// The masking the commit's documents were built with; `None` before the first commit.
    pub masking: Option<String>,
}

/// The exclusive right to change the index, held until dropped.
#[must_use = "the writer lock is released when the guard is dropped"]
pub struct WriterLock {
    _file: fs::File,
}

impl Store {
    /// Opens the generation `name` in `dir`. `Err(Corrupt)` when it cannot be used: missing
    /// (removed by a rebuild since `current` was read), not a directory, or not an index.
    pub fn open(dir: &Path, name: &str) -> Result<Store, RecallError> {
        let directory = BatchSyncDirectory::open(&dir.join(name)).map_err(RecallError::corrupt)?;
        if !Index::exists(&directory).map_err(RecallError::corrupt)? {
            return Err(RecallError::Corrupt(format!("{name} holds no index")));
        }
        let index = Index::open(directory.clone()).map_err(RecallError::corrupt)?;
        let (schema, fields) = schema::build(POSITIONS);
        if index.schema() != schema {
            return Err(RecallError::Corrupt("the index has another schema".into()));
        }
        Ok(Store::with(name, index, directory, fields))
    }

    /// Creates an empty generation beside the others; readers see it once it is
    /// [`publish`]ed. The caller holds the lock.
    pub fn create(dir: &Path, _lock: &WriterLock) -> Result<Store, RecallError> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let name = format!("{GENERATION_PREFIX}{}", &id[..16]);
        let path = dir.join(&name);
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| RecallError::io(&path, e))?;
        let directory = BatchSyncDirectory::open(&path).map_err(|e| RecallError::io(&path, e))?;
        let (schema, fields) = schema::build(POSITIONS);
        let index = with_private_umask(|| {
            Index::create(directory.clone(), schema, IndexSettings::default())
        })
        .map_err(RecallError::corrupt)?;
        Ok(Store::with(&name, index, directory, fields))
    }

    fn with(name: &str, index: Index, directory: BatchSyncDirectory, fields: Fields) -> Store {
        index
            .tokenizers()
            .register(schema::ANALYZER, schema::analyzer());
        index
            .tokenizers()
            .register(schema::STEM_ANALYZER, schema::stem_analyzer());
        index
            .tokenizers()
            .register(schema::PART_ANALYZER, schema::part_analyzer());
        Store {
            name: name.to_string(),
            index,
            directory,
            fields,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The latest commit's searcher and catalog. An index without a commit has an empty
    /// catalog.
    pub fn snapshot(&self) -> Result<Snapshot, RecallError> {
        let reader: IndexReader = self
            .index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(RecallError::corrupt)?;
        // The reader opened the segments of the commit it found; the meta read after it
        // names the catalog. Opening the segments is much of a search's cost on a large index,
        // so they are opened again only when a commit landed in between.
        for attempt in 0..8 {
            if attempt > 0 {
                reader.reload().map_err(RecallError::corrupt)?;
            }
            let metas = self.index.load_metas().map_err(RecallError::corrupt)?;
            let searcher = reader.searcher();
            let mut committed: Vec<_> = metas
                .segments
                .iter()
                .map(|s| (s.id(), s.num_deleted_docs()))
                .collect();
            let mut searched: Vec<_> = searcher
                .segment_readers()
                .iter()
                .map(|r| (r.segment_id(), r.num_deleted_docs()))
                .collect();
            committed.sort();
            searched.sort();
            if committed != searched {
                continue; // a commit landed in between: look again
            }
            let (catalog, masking) = match metas.payload.as_deref() {
                None if metas.segments.is_empty() => (Catalog::empty(), None),
                None => return Err(RecallError::Corrupt("a commit without a catalog".into())),
                Some(text) => {
                    let payload = Payload::parse(text)
                        .ok_or_else(|| RecallError::Corrupt("an unknown commit payload".into()))?;
                    match Catalog::load(&self.directory, &payload.catalog) {
                        Some(catalog) => (catalog, Some(payload.masking)),
                        // Replaced by a newer commit since we read the meta: look again.
                        None => continue,
                    }
                }
            };
            return Ok(Snapshot {
                searcher,
                catalog,
                opstamp: metas.opstamp,
                masking,
            });
        }
        Err(RecallError::Corrupt(
            "the index kept changing while it was read".into(),
        ))
    }

    /// A tantivy writer; the caller holds the [`WriterLock`], so tantivy's own lock is free.
    pub fn writer(&self, threads: usize, budget: usize) -> Result<IndexWriter, RecallError> {
        with_private_umask(|| {
            self.index
                .writer_with_num_threads::<TantivyDocument>(threads, budget)
        })
        .map_err(RecallError::corrupt)
    }

    /// The last commit's opstamp ([`Snapshot::opstamp`]).
    pub fn last_opstamp(&self) -> Result<u64, RecallError> {
        Ok(self
            .index
            .load_metas()
            .map_err(RecallError::corrupt)?
            .opstamp)
    }

    /// Each segment of the last commit, with its number of live documents.
    pub fn segment_docs(&self) -> Result<Vec<(SegmentId, u32)>, RecallError> {
        let metas = self.index.load_metas().map_err(RecallError::corrupt)?;
        Ok(metas
            .segments
            .iter()
            .map(|s| (s.id(), s.num_docs()))
            .collect())
    }

    /// Removes the files of segments that the last commit does not name and tantivy will never
    /// collect: what a writer killed before its commit, or during a merge, left unlisted
    /// (`directory.rs`). Called under the writer lock, before a writer starts, so no segment is
    /// being written; a reader that opened an older commit keeps its files open, as with
    /// tantivy's own collection. Returns how many files were removed.
    pub fn remove_uncommitted_segments(&self) -> Result<usize, RecallError> {
        let metas = self.index.load_metas().map_err(RecallError::corrupt)?;
        let committed: std::collections::HashSet<String> = metas
            .segments
            .iter()
            .map(|s| s.id().uuid_string())
            .collect();
        let Ok(names) = self.directory.names() else {
            return Ok(0);
        };
        let mut removed = 0;
        for name in names {
            let uncommitted = segment_of(&name).is_some_and(|id| !committed.contains(id));
            if uncommitted && self.directory.remove(&name).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Writes `catalog` into the generation, to be made durable with the next commit, and
    /// returns its name.
    pub fn save_catalog(&self, catalog: &Catalog) -> io::Result<String> {
        let (name, file) = catalog.save(&self.directory)?;
        self.directory.sync_with_commit(file);
        Ok(name)
    }

    /// Removes the generation's catalogs but `keep` (older commits', abandoned temp files).
    pub fn remove_other_catalogs(&self, keep: &str) {
        catalog::remove_others(&self.directory, keep);
    }
}

pub type IndexWriter = tantivy::IndexWriter<TantivyDocument>;

/// The segment a file of a generation belongs to: tantivy names them `<32 hex digits>.<ext>`
/// (`<id>.<opstamp>.del` for deletions).
fn segment_of(name: &str) -> Option<&str> {
    let (id, _) = name.split_once('.')?;
    (id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())).then_some(id)
}

/// The generation `current` names; `None` when there is none yet, or `current` is not a
/// regular file naming a generation (a writer then builds one).
pub fn current(dir: &Path) -> Option<String> {
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(dir.join(CURRENT))
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    (&mut file)
        .take(MAX_CURRENT_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    let name = text.trim_end();
    is_generation_name(name).then(|| name.to_string())
}

fn is_generation_name(name: &str) -> bool {
    name.strip_prefix(GENERATION_PREFIX)
        .is_some_and(|id| id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Makes `store`'s generation the one readers use: its directory entry synced, then `current`
/// saved durably over the old one (older generations are removed next, so a crash must not bring
/// back a `current` naming one of them).
pub fn publish(dir: &Path, store: &Store, _lock: &WriterLock) -> Result<(), RecallError> {
    let io_error = |e| RecallError::io(dir, e);
    sync_dir(dir).map_err(io_error)?;
    let target = dir.join(CURRENT);
    let name = format!("{}\n", store.name());
    let save = || cachefile::save(&target, name.as_bytes(), Durability::Durable);
    match save() {
        Err(_) if fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) => {
            // Something put a directory there; ours is the only name that matters.
            fs::remove_dir_all(&target).map_err(io_error)?;
            save().map_err(io_error)
        }
        saved => saved.map_err(io_error),
    }
}

/// Removes everything in `dir` but the lock, `current` and the generation `keep`: older
/// generations (a reader that still maps their files keeps reading them), the ones a killed
/// rebuild left, temp files, and the layout before generations (`index/`, `catalog-*`).
pub fn remove_others(dir: &Path, keep: &str, _lock: &WriterLock) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name == keep
            || name == CURRENT
            || name == "writer.lock"
            || name == super::watch::CURSOR;
        if ours {
            continue;
        }
        let path = entry.path();
        // Never followed: a link is removed itself.
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                let _ = fs::remove_dir_all(&path);
            }
            _ => {
                let _ = fs::remove_file(&path);
            }
        }
    }
}

/// Takes the writer lock, waiting for another process to release it.
pub fn lock(dir: &Path) -> Result<WriterLock, RecallError> {
    let (file, path) = lock_file(dir)?;
    file.lock().map_err(|e| RecallError::io(&path, e))?;
    Ok(WriterLock { _file: file })
}

fn lock_file(dir: &Path) -> Result<(fs::File, PathBuf), RecallError> {
    create_private_dir(dir)?;
    let path = dir.join("writer.lock");
    match open_lock_file(&path) {
        Ok(file) => Ok((file, path)),
        // A link, FIFO or directory put in its place is no one's lock: replaced by one.
        Err(_) if fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) => {
            let removed = match fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => fs::remove_dir_all(&path),
                _ => fs::remove_file(&path),
            };
            removed
                .and_then(|()| open_lock_file(&path))
                .map(|file| (file, path.clone()))
                .map_err(|e| RecallError::io(&path, e))
        }
        Err(e) => Err(RecallError::io(&path, e)),
    }
}

/// Opens (creating) the lock file without following a link or blocking on a FIFO; anything
/// but a regular file is refused.
fn open_lock_file(path: &Path) -> io::Result<fs::File> {
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// Takes the writer lock without waiting; `None` when another process holds it.
pub fn try_lock(dir: &Path) -> Result<Option<WriterLock>, RecallError> {
    let (file, path) = lock_file(dir)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(WriterLock { _file: file })),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(RecallError::io(&path, e)),
    }
}

/// Creates a directory (and its parents) and makes it 0700.
fn create_private_dir(dir: &Path) -> Result<(), RecallError> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| RecallError::io(dir, e))?;
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(|e| RecallError::io(dir, e))
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

/// Runs `f` with the process umask at 077, so every file tantivy creates is 0600. The umask is
/// process-wide; the CLI creates no other files meanwhile.
pub fn with_private_umask<T>(f: impl FnOnce() -> T) -> T {
    let old = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    let result = f();
    rustix::process::umask(old);
    result
}
