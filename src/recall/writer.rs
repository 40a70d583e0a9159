//! The index's writer: a refresh (find the session files, plan what changed against the
//! catalog, index it in one commit, merge what a large build leaves), and how it is sized. The
//! facade (`mod.rs`) asks for one with a [`RefreshRequest`]; a search, a list, a boot and a hint
//! differ only in what they ask.

use std::path::Path;
use std::time::SystemTime;

use super::catalog::Catalog;
use super::store::{self, Snapshot, Store};
use super::types::View;
use super::{discover, refresh, watch, Progress, Recall, RecallError};

/// What a refresh is asked for.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RefreshRequest<'a> {
    /// Start from nothing (`sessions index --rebuild`).
    pub rebuild: bool,
    /// Wait for another process's refresh rather than answer from the last commit.
    pub wait: bool,
    /// Answer from the last commit when the refresh would read more than this (a hint, a boot).
    pub max_bytes: Option<u64>,
    /// A file left as the last commit has it (the live session, for a hint).
    pub skip: Option<&'a Path>,
}

impl Recall {
    /// Refreshes the index as `request` says and returns a view of it, and how many files were
    /// (re)indexed. Every file the index creates, readers' lock files included, is private
    /// (umask 077).
    pub(super) fn refresh(
        &self,
        request: RefreshRequest<'_>,
        progress: Option<&mut dyn Progress>,
    ) -> Result<(View, usize), RecallError> {
        store::with_private_umask(|| self.refresh_private(request, progress))
    }

    fn refresh_private(
        &self,
        request: RefreshRequest<'_>,
        mut progress: Option<&mut dyn Progress>,
    ) -> Result<(View, usize), RecallError> {
        let RefreshRequest {
            rebuild,
            wait,
            max_bytes,
            skip,
        } = request;
        let settled_before = SystemTime::now()
            .checked_sub(self.settle)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let opened = self.open_current()?;
        // `sessions index` (and a rebuild) looks at every file.
        let every_file = rebuild || wait;
        let watched = opened
            .as_ref()
            .filter(|_| !every_file)
            .map(|(_, snapshot)| &snapshot.catalog);
        let discovery = self.discover(watched, settled_before);
        let skip = skip.and_then(|p| std::fs::metadata(p).ok());
        let plan = |catalog: &Catalog| {
            let (mut changes, skipped) = self.plan(catalog, &discovery);
            if let Some(skip) = &skip {
                changes.retain(|change| !is_file(change, &discovery, skip));
            }
            (changes, skipped)
        };
        let mut unreadable = discovery.unreadable;
        let nothing = Catalog::empty();
        let catalog = opened.as_ref().map_or(&nothing, |(_, s)| &s.catalog);
        let (changes, skipped) = plan(catalog);
        // Without an index, everything is to be read: too much for a caller with a limit.
        let too_much =
            max_bytes.is_some_and(|max| change_bytes(&changes, &discovery, catalog) > max);
        let up_to_date = changes.is_empty() && opened.is_some();
        if (too_much || up_to_date) && !rebuild {
            let (store, snapshot) = opened.map_or((None, None), |(st, sn)| (Some(st), Some(sn)));
            return Ok((
                View {
                    store,
                    snapshot,
                    stale: too_much,
                    unreadable: unreadable + skipped,
                    checked: discovery.checked,
                },
                0,
            ));
        }
        let lock = if wait {
            Some(store::lock(&self.dir)?)
        } else {
            store::try_lock(&self.dir)?
        };
        let Some(lock) = lock else {
            // Another process is indexing: answer from the last commit.
            let (store, snapshot) = match opened {
                Some((store, snapshot)) => (Some(store), Some(snapshot)),
                None => (None, None),
            };
            let skipped = snapshot
                .as_ref()
                .map_or(0, |s| self.plan(&s.catalog, &discovery).1);
            return Ok((
                View {
                    store,
                    snapshot,
                    stale: true,
                    unreadable: unreadable + skipped,
                    checked: discovery.checked,
                },
                0,
            ));
        };
        let (store, snapshot, fresh) = self.writable_store(rebuild, &lock, opened)?;
        let (changes, skipped) = plan(&snapshot.catalog);
        unreadable += skipped;
        let mut refreshed = 0;
        let snapshot = if changes.is_empty() {
            snapshot
        } else {
            if !fresh {
                store.remove_uncommitted_segments()?;
            }
            let big = change_bytes(&changes, &discovery, &snapshot.catalog);
            let (threads, budget) = writer_size(big);
            let mut writer = store.writer(threads, budget)?;
            writer.set_merge_policy(merge_policy(big));
            // The catalog the plan read is the one the writer changes (no other writer can
            // commit while the lock is held); the searcher's segments are let go.
            let Snapshot { catalog, .. } = snapshot;
            let stats = refresh::apply(
                &store,
                &mut writer,
                catalog,
                &discovery,
                &changes,
                refresh::Reading {
                    session_options: &self.session_options,
                    settled_before,
                    masking: self.masking,
                    threads: reader_threads(big),
                },
                progress.as_mut().map(|p| &mut **p as &mut dyn Progress),
            )?;
            unreadable += stats.unreadable;
            refreshed = stats.files_indexed;
            if big >= LARGE_REFRESH_BYTES && stats.committed {
                merge_built_segments(&store, &mut writer, progress)?;
            }
            writer
                .wait_merging_threads()
                .map_err(RecallError::corrupt)?;
            store.snapshot()?
        };
        if fresh {
            store::publish(&self.dir, &store, &lock)?;
        }
        store::remove_others(&self.dir, store.name(), &lock);
        drop(lock);
        Ok((
            View {
                store: Some(store),
                snapshot: Some(snapshot),
                stale: false,
                unreadable,
                checked: discovery.checked,
            },
            refreshed,
        ))
    }

    /// The session files under the roots. With the last commit's `catalog`, a search's look
    /// (docs/recall.md, "Incremental refresh"): the directories whose stamps changed are read,
    /// and of the others' files only those the watch names are looked at; without, every file.
    fn discover(
        &self,
        catalog: Option<&Catalog>,
        settled_before: SystemTime,
    ) -> discover::Discovery {
        let Some(catalog) = catalog else {
            return discover::discover(
                &self.roots,
                discover::Watch {
                    known: None,
                    settled_before,
                },
            );
        };
        let cursor = watch::read_cursor(&self.dir);
        let known = watch::known(catalog, self.checks, cursor, self.live.as_deref());
        let discovery = discover::discover(
            &self.roots,
            discover::Watch {
                known: Some(&known),
                settled_before,
            },
        );
        watch::advance_cursor(&self.dir, cursor, self.checks, catalog.len());
        discovery
    }

    /// The current generation and its snapshot; `None` when there is none or it cannot be
    /// used. A generation that a rebuild replaced and removed since `current` was read cannot
    /// be opened: the one `current` names now is, a few times while it keeps changing.
    fn open_current(&self) -> Result<Option<(Store, Snapshot)>, RecallError> {
        let mut failed: Option<String> = None;
        for _ in 0..4 {
            let Some(name) = store::current(&self.dir) else {
                return Ok(None);
            };
            if failed.as_ref() == Some(&name) {
                return Ok(None);
            }
            let opened = Store::open(&self.dir, &name).and_then(|store| {
                let snapshot = store.snapshot()?;
                Ok((store, snapshot))
            });
            match opened {
                // Built with other rules, or masking switched: as good as none (rebuilt).
                Ok((_, snapshot)) if !self.built_alike(&snapshot) => return Ok(None),
                Ok(opened) => return Ok(Some(opened)),
                Err(RecallError::Corrupt(_)) => failed = Some(name),
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// The generation a writer holding `lock` changes, its last commit (which stays the last
    /// while the lock is held), and whether it is a new one (built aside, published when done):
    /// the current one, unless a rebuild is asked for or it cannot be used. `opened`, what was
    /// read before the lock was taken, is kept when it is still the current generation's last
    /// commit: opening a large index's segments again is much of a refresh's cost.
    fn writable_store(
        &self,
        rebuild: bool,
        lock: &store::WriterLock,
        opened: Option<(Store, Snapshot)>,
    ) -> Result<(Store, Snapshot, bool), RecallError> {
        let opened = opened.filter(|_| !rebuild);
        if !rebuild {
            let current = store::current(&self.dir);
            if let Some((store, snapshot)) = opened {
                let unchanged = current.as_deref() == Some(store.name())
                    && store.last_opstamp().ok() == Some(snapshot.opstamp);
                if unchanged {
                    return Ok((store, snapshot, false));
                }
            }
            if let Some(name) = current {
                let opened = Store::open(&self.dir, &name)
                    .and_then(|s| s.snapshot().map(|snapshot| (s, snapshot)));
                match opened {
                    Ok((store, snapshot)) if self.built_alike(&snapshot) => {
                        return Ok((store, snapshot, false))
                    }
                    Ok(_) => {}
                    Err(RecallError::Corrupt(_)) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        let store = Store::create(&self.dir, lock)?;
        let snapshot = store.snapshot()?;
        Ok((store, snapshot, true))
    }

    /// Whether a commit's documents were built with this masking (the same rules' version, or
    /// off both times); an index without a commit yet holds no document.
    fn built_alike(&self, snapshot: &Snapshot) -> bool {
        snapshot
            .masking
            .as_ref()
            .is_none_or(|stamp| *stamp == self.masking.stamp())
    }

    /// The changes to make, and how many new files are unreadable (those are not changes).
    fn plan(
        &self,
        catalog: &Catalog,
        discovery: &discover::Discovery,
    ) -> (Vec<refresh::ChangeRef>, usize) {
        let mut skipped = 0;
        let changes = refresh::plan(catalog, discovery, &self.roots);
        if changes.is_empty() {
            return (changes, 0);
        }
        let changes = changes
            .into_iter()
            .filter(|change| match change {
                refresh::ChangeRef::Index { found, known } => {
                    let readable = discover::open_regular(&discovery.files[*found].path).is_ok();
                    if !readable && known.is_none() {
                        skipped += 1;
                    }
                    readable || known.is_some()
                }
                refresh::ChangeRef::Drop(_) => true,
            })
            .collect();
        (changes, skipped)
    }
}

/// Bytes a set of changes reads and indexes: of a file that grew, what was appended (the
/// indexed prefix is kept); of a new or shrunken file, all of it. A grown file that turns out
/// to be rewritten is indexed whole all the same; this only sizes the writer. `catalog` is the
/// one the changes were planned from.
fn change_bytes(
    changes: &[refresh::ChangeRef],
    discovery: &discover::Discovery,
    catalog: &Catalog,
) -> u64 {
    changes
        .iter()
        .map(|c| match c {
            refresh::ChangeRef::Index { found, known } => {
                let size = discovery.files[*found].stat.size;
                let indexed_len = known.and_then(|p| catalog.record(p)).map(|r| r.indexed_len);
                match indexed_len {
                    Some(done) if done <= size => size - done,
                    _ => size,
                }
            }
            refresh::ChangeRef::Drop(_) => 0,
        })
        .sum()
}

/// Whether a change indexes the file `metadata` describes (by device and inode).
fn is_file(
    change: &refresh::ChangeRef,
    discovery: &discover::Discovery,
    metadata: &std::fs::Metadata,
) -> bool {
    use std::os::unix::fs::MetadataExt;
    match change {
        refresh::ChangeRef::Index { found, .. } => {
            let stat = &discovery.files[*found].stat;
            stat.dev == metadata.dev() && stat.ino == metadata.ino()
        }
        refresh::ChangeRef::Drop(_) => false,
    }
}

/// A refresh indexing more than this runs the writer with two threads and merges nothing.
const LARGE_REFRESH_BYTES: u64 = 32 << 20;
/// A small refresh merges only segments of fewer documents than this (its own, and earlier
/// small refreshes'), eight of a size at a time.
const SMALL_SEGMENT_DOCS: usize = 20_000;

/// Which segments a refresh merges (docs/recall.md, "Segments"). A large one merges none: its
/// segments are large already, and merging them is what made a build's throughput and peak
/// memory fall as the corpus grew (each document merged once more, and the segments merged
/// mapped whole). A small one merges the small segments that refreshes leave, never a large
/// one, so the search that follows an append never waits for a large merge.
fn merge_policy(bytes: u64) -> Box<dyn tantivy::indexer::MergePolicy> {
    if bytes >= LARGE_REFRESH_BYTES {
        return Box::new(tantivy::indexer::NoMergePolicy);
    }
    let mut policy = tantivy::indexer::LogMergePolicy::default();
    policy.set_max_docs_before_merge(SMALL_SEGMENT_DOCS);
    Box::new(policy)
}

/// A segment of fewer documents than this was left by a build or a refresh and is merged after
/// the next large refresh; a merged segment holds at most [`MERGED_SEGMENT_DOCS`].
const UNMERGED_SEGMENT_DOCS: u32 = 200_000;
const MERGED_SEGMENT_DOCS: u32 = 800_000;

/// After a large refresh, which leaves segments of about 100,000 documents each (the writer's
/// budget), merges them into segments of up to [`MERGED_SEGMENT_DOCS`], one merge at a time
/// (docs/recall.md, "Segments"): every search pays for each segment it opens, and the same
/// 10 GB index searched 1.1–1.2× faster in 8 segments than in 56. Each merge is a commit of its
/// own, so a process killed during one leaves the index as the large refresh committed it (its
/// unfinished files are removed by the next writer).
fn merge_built_segments(
    store: &Store,
    writer: &mut store::IndexWriter,
    mut progress: Option<&mut dyn Progress>,
) -> Result<(), RecallError> {
    let groups = merge_groups(&store.segment_docs()?);
    if groups.is_empty() {
        return Ok(());
    }
    if let Some(p) = progress.as_deref_mut() {
        p.merging(groups.len());
    }
    for group in groups {
        writer.merge(&group).wait().map_err(RecallError::corrupt)?;
    }
    if let Some(p) = progress {
        p.finish();
    }
    Ok(())
}

/// The groups of segments to merge: the unmerged ones, in order, each group as many as fit in
/// [`MERGED_SEGMENT_DOCS`]; a segment left alone is not a group.
fn merge_groups<Id: Copy>(segments: &[(Id, u32)]) -> Vec<Vec<Id>> {
    let mut groups: Vec<(Vec<Id>, u32)> = Vec::new();
    for &(id, docs) in segments
        .iter()
        .filter(|(_, docs)| *docs < UNMERGED_SEGMENT_DOCS)
    {
        match groups.last_mut() {
            Some((group, total)) if *total + docs <= MERGED_SEGMENT_DOCS => {
                group.push(id);
                *total += docs;
            }
            _ => groups.push((vec![id], docs)),
        }
    }
    groups
        .into_iter()
        .map(|(group, _)| group)
        .filter(|group| group.len() > 1)
        .collect()
}

/// A refresh indexing at least this many bytes (a megabyte appended to a long session) but less
/// than [`LARGE_REFRESH_BYTES`] tokenizes on two threads too, each with a small budget.
const PARALLEL_INDEXING_BYTES: u64 = 256 << 10;

/// The writer's threads and memory budget for a refresh indexing `bytes`: tokenizing is the
/// larger half of the refresh after a megabyte's append, so 256 KiB or more are split across
/// two threads (two segments, merged with the other small ones); a turn's few kilobytes stay on
/// one.
fn writer_size(bytes: u64) -> (usize, usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    if bytes >= LARGE_REFRESH_BYTES {
        (cores, cores * (64 << 20))
    } else if bytes >= PARALLEL_INDEXING_BYTES {
        (cores, cores * (20 << 20))
    } else {
        (1, 20 << 20)
    }
}

/// How many session files a refresh reads at once: a large one reads on every core (the
/// writer's threads tokenize meanwhile), a small one on the caller's thread alone.
fn reader_threads(bytes: u64) -> usize {
    if bytes >= LARGE_REFRESH_BYTES {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_merges_its_segments_into_few_large_ones() {
        let built: Vec<(usize, u32)> = (0..10).map(|i| (i, 100_000)).collect();
        assert_eq!(
            merge_groups(&built),
            vec![(0..8).collect::<Vec<_>>(), vec![8, 9]]
        );
        // A merged segment is never merged again; an odd one out is left alone.
        let later = [
            (0, 790_000),
            (1, 30_000),
            (2, 640_000),
            (3, 12_000),
            (4, 9_000),
        ];
        assert_eq!(merge_groups(&later), vec![vec![1, 3, 4]]);
        assert!(merge_groups(&[(0, 100_000), (1, 800_000)]).is_empty());
        assert!(merge_groups::<u8>(&[]).is_empty());
    }
}
