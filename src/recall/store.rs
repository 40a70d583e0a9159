//! The on-disk index: a tantivy index in `<dir>/index` plus the catalog files in `<dir>`, all
//! created 0600 in 0700 directories.
//!
//! Writers (a refresh, a rebuild) hold `<dir>/writer.lock`, taken without waiting: a process
//! that cannot take it reads the last commit instead (`stale`). Readers take no lock; a commit
//! replaces `meta.json` atomically and its payload names the catalog written just before it,
//! so a reader pairs a searcher with the catalog of the same commit.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use tantivy::{Index, IndexReader, IndexSettings, ReloadPolicy, Searcher, TantivyDocument};

use super::catalog::{self, Catalog, Payload};
use super::directory::BatchSyncDirectory;
use super::error::RecallError;
use super::schema::{self, Fields};

/// Whether term positions are indexed; they make phrase queries exact inside the engine
/// (docs/recall.md explains the measurement behind the choice).
pub const POSITIONS: bool = true;

pub struct Store {
    dir: PathBuf,
    index: Index,
    /// The index's directory, through which files outside it join a commit's sync.
    directory: BatchSyncDirectory,
    pub fields: Fields,
}

/// A consistent view: the searcher of one commit and the catalog that commit names.
pub struct Snapshot {
    pub searcher: Searcher,
    pub catalog: Catalog,
}

/// The exclusive right to change the index, held until dropped.
pub struct WriterLock {
    _file: fs::File,
}

impl Store {
    /// Opens the index in `dir`, creating it when missing. `Err(Corrupt)` when it exists but
    /// cannot be used (the caller rebuilds it under the writer lock).
    pub fn open(dir: &Path) -> Result<Store, RecallError> {
        create_private_dir(dir)?;
        let index_dir = dir.join("index");
        create_private_dir(&index_dir)?;
        let (schema, fields) = schema::build(POSITIONS);
        let directory = BatchSyncDirectory::open(&index_dir).map_err(RecallError::corrupt)?;
        let index = match Index::exists(&directory) {
            Ok(true) => Index::open(directory.clone()).map_err(RecallError::corrupt)?,
            Ok(false) => {
                // Creating races with another process creating: only the writer-lock holder
                // creates; others see an empty index until it has.
                let Some(_lock) = try_lock(dir)? else {
                    return Err(RecallError::Busy);
                };
                with_private_umask(|| create_index(&directory, schema.clone()))
                    .map_err(RecallError::corrupt)?
            }
            Err(e) => return Err(RecallError::corrupt(e)),
        };
        if index.schema() != schema {
            return Err(RecallError::Corrupt("the index has another schema".into()));
        }
        index
            .tokenizers()
            .register(schema::ANALYZER, schema::analyzer());
        Ok(Store {
            dir: dir.to_path_buf(),
            index,
            directory,
            fields,
        })
    }

    /// Removes the index and its catalogs and creates an empty one. The caller holds the lock.
    pub fn recreate(dir: &Path, _lock: &WriterLock) -> Result<Store, RecallError> {
        let index_dir = dir.join("index");
        match fs::remove_dir_all(&index_dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(RecallError::io(&index_dir, e)),
        }
        catalog::remove_others(dir, "");
        create_private_dir(&index_dir)?;
        let (schema, fields) = schema::build(POSITIONS);
        let directory = BatchSyncDirectory::open(&index_dir).map_err(RecallError::corrupt)?;
        let index = with_private_umask(|| create_index(&directory, schema))
            .map_err(RecallError::corrupt)?;
        index
            .tokenizers()
            .register(schema::ANALYZER, schema::analyzer());
        Ok(Store {
            dir: dir.to_path_buf(),
            index,
            directory,
            fields,
        })
    }

    /// Has a file written outside the index (the catalog), and its directory entry, made
    /// durable with the next commit, before the commit itself.
    pub fn sync_with_commit(&self, file: fs::File, dir: &Path) {
        self.directory.sync_with_commit(file, dir);
    }

    pub fn dir(&self) -> &Path {
        &self.dir
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
        for _ in 0..8 {
            let metas = self.index.load_metas().map_err(RecallError::corrupt)?;
            reader.reload().map_err(RecallError::corrupt)?;
            let searcher = reader.searcher();
            let mut committed: Vec<_> = metas.segments.iter().map(|s| s.id()).collect();
            let mut searched: Vec<_> = searcher
                .segment_readers()
                .iter()
                .map(|r| r.segment_id())
                .collect();
            committed.sort();
            searched.sort();
            if committed != searched {
                continue; // a commit landed in between: look again
            }
            let catalog = match metas.payload.as_deref() {
                None if metas.segments.is_empty() => Catalog::empty(),
                None => return Err(RecallError::Corrupt("a commit without a catalog".into())),
                Some(text) => {
                    let payload = Payload::parse(text)
                        .ok_or_else(|| RecallError::Corrupt("an unknown commit payload".into()))?;
                    match Catalog::load(&payload.path(&self.dir)) {
                        Some(catalog) => catalog,
                        // Replaced by a newer commit since we read the meta: look again.
                        None => continue,
                    }
                }
            };
            return Ok(Snapshot { searcher, catalog });
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
}

pub type IndexWriter = tantivy::IndexWriter<TantivyDocument>;

/// Takes the writer lock, waiting for another process to release it.
pub fn lock(dir: &Path) -> Result<WriterLock, RecallError> {
    let (file, path) = lock_file(dir)?;
    fs2::FileExt::lock_exclusive(&file).map_err(|e| RecallError::io(&path, e))?;
    Ok(WriterLock { _file: file })
}

fn lock_file(dir: &Path) -> Result<(fs::File, PathBuf), RecallError> {
    create_private_dir(dir)?;
    let path = dir.join("writer.lock");
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .map_err(|e| RecallError::io(&path, e))?;
    Ok((file, path))
}

/// Takes the writer lock without waiting; `None` when another process holds it.
pub fn try_lock(dir: &Path) -> Result<Option<WriterLock>, RecallError> {
    let (file, path) = lock_file(dir)?;
    match fs2::FileExt::try_lock_exclusive(&file) {
        Ok(()) => Ok(Some(WriterLock { _file: file })),
        Err(e) if e.kind() == fs2::lock_contended_error().kind() => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
        Err(e) => Err(RecallError::io(&path, e)),
    }
}

/// Creates an empty index in `directory` (refused when one exists there).
fn create_index(
    directory: &BatchSyncDirectory,
    schema: tantivy::schema::Schema,
) -> tantivy::Result<Index> {
    if Index::exists(directory)? {
        return Err(tantivy::TantivyError::IndexAlreadyExists);
    }
    Index::create(directory.clone(), schema, IndexSettings::default())
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

/// Runs `f` with the process umask at 077, so every file tantivy creates is 0600. The umask is
/// process-wide; the CLI creates no other files meanwhile.
pub fn with_private_umask<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: umask only swaps the process's file-creation mask.
    let old = unsafe { libc::umask(0o077) };
    let result = f();
    unsafe { libc::umask(old) };
    result
}
