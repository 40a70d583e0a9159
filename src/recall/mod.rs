//! Recall across every past session of Pi, Claude Code and Codex (docs/recall.md): a full-text
//! index of their events (tantivy) kept up to date incrementally, ranked search with previews
//! read back from the session files, and the session list.
//!
//! Every `list` and `search` refreshes the index first; a process that finds another one
//! refreshing answers from the last commit with `stale: true` instead of waiting. The index is
//! a cache: a corrupt one is rebuilt, and deleting it is always safe.

mod ahead;
mod catalog;
// The one other exception to `deny(unsafe_code)`: tantivy reads segment files through maps,
// and mapping a file is unsafe in Rust (another process could cut it short under the map).
#[allow(unsafe_code)]
mod directory;
mod discover;
mod error;
mod events;
mod hint;
mod hits;
mod preview;
mod query;
mod refresh;
mod resolve;
mod schema;
mod search;
mod store;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

pub use crate::session::{Harness, Root};
pub use catalog::SessionInfo;
pub use error::RecallError;
pub use hint::{Hint, HintOutcome, HintParams};
pub use refresh::{Progress, FIRST_USER_PREVIEW_CHARS};
pub use resolve::{resolve_session, SessionRef, UniquePrefixes};
pub use search::{recency, role_boost, PROJECT_BOOST};

use crate::history::Role;
use crate::redact::Masking;
use crate::session::OpenOptions;
use catalog::{Catalog, FileRecord};
use store::{Snapshot, Store};

/// Default number of sessions `search` returns.
pub const DEFAULT_SEARCH_LIMIT: usize = 8;
/// Default number of hits per session.
pub const DEFAULT_HITS: usize = 3;
/// Default number of sessions `list` returns.
pub const DEFAULT_LIST_LIMIT: usize = 20;
/// Default preview length of a hit, in code points.
pub const DEFAULT_PREVIEW_CHARS: usize = 400;

/// Where the index lives and where sessions are.
#[derive(Debug, Clone)]
pub struct Recall {
    /// `<cache>/recall`.
    pub dir: PathBuf,
    pub roots: Vec<Root>,
    /// How session files are opened (the shared session cache).
    pub session_options: OpenOptions,
    /// Now, in Unix milliseconds (recency and `--since` are measured from it).
    pub now_ms: i64,
    /// How long a file must be left alone before its stamp is trusted and its last line
    /// without a newline is indexed (measured on the system clock, never `now_ms`).
    pub settle: Duration,
    /// Only sessions of these harnesses (empty: every harness); see [`Recall::only`].
    pub harnesses: Vec<Harness>,
    /// Whether secrets are masked before indexing and in previews (docs/recall.md, "Secrets").
    pub masking: Masking,
    /// The process exits right after answering (the command line): a list or search leaves
    /// the opened index to the exit rather than closing it (see [`Recall::for_one_answer`]).
    pub one_answer: bool,
}

/// The settling time unless the environment says otherwise.
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(2);

/// Which sessions a list or search covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Sessions of one project key.
    Project(String),
    /// Every session; the current project's (if known) are boosted in search.
    All { current: Option<String> },
}

#[derive(Debug, Clone)]
pub struct ListParams {
    pub scope: Scope,
    pub since_ms: Option<i64>,
    pub limit: usize,
}

#[derive(Debug, Clone)]
pub struct SearchParams {
    pub queries: Vec<String>,
    pub scope: Scope,
    pub since_ms: Option<i64>,
    pub roles: Option<Vec<Role>>,
    pub all_branches: bool,
    pub limit: usize,
    pub hits: usize,
    pub preview_chars: usize,
}

/// A session as `sessions list` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ListedSession {
    pub session_id: String,
    pub harness: Harness,
    pub parent_session_id: Option<String>,
    pub session_file: String,
    pub cwd: Option<String>,
    pub project_key: Option<String>,
    pub name: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub entries: usize,
    pub bytes: u64,
    pub first_user_preview: Option<String>,
    /// The id's shortest unique prefix among every indexed session (at least 8 characters).
    #[serde(skip)]
    pub short_id: String,
    /// The parent's id shown the same way.
    #[serde(skip)]
    pub short_parent_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ListResult {
    pub sessions: Vec<ListedSession>,
    pub more: usize,
    pub indexed_sessions: usize,
    pub stale: bool,
    pub unreadable: usize,
}

/// One hit: an event, with a preview starting shortly before the first match.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub seq: u64,
    pub entry_id: String,
    pub leaf_id: Option<String>,
    pub window_id: String,
    pub role: Role,
    pub created_at: Option<String>,
    pub on_branch: bool,
    pub score: f32,
    pub offset_chars: usize,
    pub content: String,
    pub truncated: bool,
    pub total_chars: usize,
    /// Matches inside `content`, `(start, end)` in code points (for highlighting).
    #[serde(skip)]
    pub highlights: Vec<(usize, usize)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionHits {
    pub session_id: String,
    pub harness: Harness,
    pub parent_session_id: Option<String>,
    pub session_file: String,
    pub cwd: Option<String>,
    pub project_key: Option<String>,
    pub name: Option<String>,
    pub updated_at: Option<String>,
    pub score: f32,
    pub hits: Vec<Hit>,
    /// For human output: the first user message.
    #[serde(skip)]
    pub first_user_preview: Option<String>,
    /// The id's shortest unique prefix among every indexed session (at least 8 characters).
    #[serde(skip)]
    pub short_id: String,
    /// The parent's id shown the same way.
    #[serde(skip)]
    pub short_parent_id: Option<String>,
    /// What `history read --session` opens this session by: `short_id` when that names this
    /// file alone, else the file's path.
    #[serde(skip)]
    pub session_arg: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    pub sessions: Vec<SessionHits>,
    pub more: usize,
    pub indexed_sessions: usize,
    pub stale: bool,
    pub unreadable: usize,
    /// How many query alternatives held a secret and were not searched: masking keeps secrets
    /// out of the index, so they cannot be found (docs/recall.md, "Secrets"). Shown only when
    /// some were.
    #[serde(skip_serializing_if = "is_zero")]
    pub secret_queries: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What `sessions index` reports.
#[derive(Debug, Clone, Serialize)]
pub struct IndexResult {
    pub sessions: usize,
    pub events: u64,
    pub bytes: u64,
    pub seconds: f64,
    pub unreadable: usize,
    /// Sessions (re)indexed by this run.
    #[serde(skip)]
    pub refreshed: usize,
}

/// The index after a refresh: a consistent snapshot (none when no index could be opened).
struct View {
    store: Option<Store>,
    snapshot: Option<Snapshot>,
    stale: bool,
    unreadable: usize,
}

impl Recall {
    /// This recall narrowed to the sessions of `harnesses` (none: every harness): only their
    /// roots are looked in, and a file of another harness found there (the format is
    /// recognized from the content, not the root) is left out of every result.
    pub fn only(mut self, harnesses: &[Harness]) -> Recall {
        if !harnesses.is_empty() {
            self.roots.retain(|root| harnesses.contains(&root.harness));
            self.harnesses = harnesses.to_vec();
        }
        self
    }

    /// This recall for a process that exits once it has answered (the command line). Closing
    /// an index of many segments unmaps its hundreds of files one call at a time (5 ms of a
    /// 50 ms search at 10 GB); the exit releases them all at once. A long-lived process (the
    /// MCP server) must not use this: every answer would keep its index open.
    pub fn for_one_answer(mut self) -> Recall {
        self.one_answer = true;
        self
    }

    /// Closes the index a list or search used, or leaves it to the process's exit.
    fn close(&self, view: View) {
        if self.one_answer {
            std::mem::forget(view);
        }
    }

    /// `sessions index`: brings the index up to date (`rebuild`: from nothing).
    pub fn index(
        &self,
        rebuild: bool,
        progress: Option<&mut dyn Progress>,
    ) -> Result<IndexResult, RecallError> {
        let started = Instant::now();
        let (view, refreshed) = self.refresh(rebuild, true, progress)?;
        let catalog = view.snapshot.as_ref().map(|s| &s.catalog);
        let files: Vec<&FileRecord> = catalog
            .map(|c| c.files.iter().filter(|r| self.covers(r)).collect())
            .unwrap_or_default();
        Ok(IndexResult {
            sessions: files.len(),
            events: files.iter().map(|r| r.events).sum(),
            bytes: files.iter().map(|r| r.stat.size).sum(),
            seconds: started.elapsed().as_secs_f64(),
            unreadable: view.unreadable,
            refreshed,
        })
    }

    /// `sessions list`: sessions in scope, most recently updated first.
    pub fn list(&self, params: &ListParams) -> Result<ListResult, RecallError> {
        let (view, _) = self.refresh(false, false, None)?;
        let empty = Catalog::empty();
        let catalog = view.snapshot.as_ref().map_or(&empty, |s| &s.catalog);
        let mut files: Vec<&FileRecord> = catalog
            .files
            .iter()
            .filter(|r| self.covers(r) && in_scope(r, &params.scope))
            .filter(|r| params.since_ms.is_none_or(|s| r.info.updated_ms >= s))
            .collect();
        files.sort_by(|a, b| {
            b.info
                .updated_ms
                .cmp(&a.info.updated_ms)
                .then_with(|| a.path.cmp(&b.path))
        });
        let more = files.len().saturating_sub(params.limit);
        files.truncate(params.limit);
        let prefixes = short_ids(catalog);
        let result = ListResult {
            sessions: files.into_iter().map(|r| listed(r, &prefixes)).collect(),
            more,
            indexed_sessions: catalog.files.len(),
            stale: view.stale,
            unreadable: view.unreadable,
        };
        self.close(view);
        Ok(result)
    }

    /// `sessions search`.
    pub fn search(&self, params: &SearchParams) -> Result<SearchResult, RecallError> {
        self.search_with_progress(params, None)
    }

    /// `sessions search`, reporting the progress of a refresh that must index much.
    pub fn search_with_progress(
        &self,
        params: &SearchParams,
        progress: Option<&mut dyn Progress>,
    ) -> Result<SearchResult, RecallError> {
        let query::Parsed {
            alternatives,
            secret_queries,
        } = query::parse(&params.queries, self.masking)?;
        if params.limit == 0 || params.hits == 0 || params.preview_chars == 0 {
            return Err(RecallError::InvalidParams(
                "limit, hits and preview length must be at least 1".into(),
            ));
        }
        let (view, _) = self.refresh(false, false, progress)?;
        let (Some(store), Some(snapshot)) = (&view.store, &view.snapshot) else {
            return Ok(SearchResult {
                sessions: Vec::new(),
                more: 0,
                indexed_sessions: 0,
                stale: view.stale,
                unreadable: view.unreadable,
                secret_queries,
            });
        };
        if alternatives.is_empty() {
            let result = SearchResult {
                sessions: Vec::new(),
                more: 0,
                indexed_sessions: snapshot.catalog.files.len(),
                stale: view.stale,
                unreadable: view.unreadable,
                secret_queries,
            };
            self.close(view);
            return Ok(result);
        }
        let catalog = &snapshot.catalog;
        let filter = self.filter(catalog, params);
        let searcher = &snapshot.searcher;
        let fields = &store.fields;
        let records: rustc_hash::FxHashMap<u64, &FileRecord> =
            catalog.files.iter().map(|r| (r.file_id, r)).collect();
        let segments = search::Segments::new(searcher, fields);
        // Counting every matching session reads each matching document, where finding the
        // best ones skips most: the count runs beside the rest of the search.
        let (sessions, matching) = std::thread::scope(|scope| {
            let counting =
                scope.spawn(|| search::matching_files(&segments, &alternatives, &filter));
            let shown = self.best_sessions(&segments, &records, &alternatives, &filter, params);
            let matching = counting
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (shown, matching)
        });
        let (mut sessions, matching) = (sessions?, matching?);
        let prefixes = short_ids(catalog);
        let shared = shared_ids(catalog);
        for session in &mut sessions {
            session.short_id = short_id(&prefixes, &session.session_id);
            session.short_parent_id = session
                .parent_session_id
                .as_deref()
                .map(|parent| short_id(&prefixes, parent));
            session.session_arg = if shared.contains(session.session_id.as_str())
                || !names_a_session(&session.short_id)
            {
                session.session_file.clone()
            } else {
                session.short_id.clone()
            };
        }
        let shown = sessions.len();
        let result = SearchResult {
            sessions,
            more: matching.saturating_sub(shown),
            indexed_sessions: catalog.files.len(),
            stale: view.stale,
            unreadable: view.unreadable,
            secret_queries,
        };
        drop((segments, records));
        self.close(view);
        Ok(result)
    }

    /// The best `params.limit` sessions that can be shown, best first, with their hits. A
    /// file that cannot be shown (gone, or its match no longer found) leaves its place to the
    /// next best.
    fn best_sessions(
        &self,
        segments: &search::Segments,
        records: &rustc_hash::FxHashMap<u64, &FileRecord>,
        alternatives: &[query::Alternative],
        filter: &search::Filter,
        params: &SearchParams,
    ) -> Result<Vec<SessionHits>, RecallError> {
        let reader = hits::HitReader::new(segments.searcher(), segments.fields());
        let mut sessions = Vec::new();
        let mut left = filter.clone();
        while sessions.len() < params.limit {
            let wanted = params.limit - sessions.len();
            let ranked = search::top_files(segments, alternatives, &left, wanted, params.hits + 2)?;
            if ranked.is_empty() {
                break;
            }
            for (file_id, candidates) in &ranked {
                let Some(record) = records.get(file_id) else {
                    continue;
                };
                let opened = hits::open_hits(
                    record,
                    candidates,
                    &reader,
                    alternatives,
                    params,
                    self.masking,
                )?;
                sessions.extend(opened);
            }
            left = left.without(ranked.iter().map(|(file, _)| *file));
        }
        Ok(sessions)
    }

    /// The most recently updated sessions of a project other than `exclude`, for the boot
    /// block, of every harness but without subagents (their work is their parent session's).
    /// The index is refreshed only when that costs little (at most `max_refresh_bytes` to read);
    /// otherwise the last commit answers. No index yet: none.
    pub fn recent_sessions(
        &self,
        project_key: &str,
        exclude: Option<&str>,
        count: usize,
        max_refresh_bytes: u64,
    ) -> Result<Vec<ListedSession>, RecallError> {
        let (view, _) = store::with_private_umask(|| {
            self.refresh_private(false, false, Some(max_refresh_bytes), None, None)
        })?;
        let Some(snapshot) = view.snapshot else {
            return Ok(Vec::new());
        };
        let catalog = &snapshot.catalog;
        let prefixes = short_ids(catalog);
        let mut files: Vec<&FileRecord> = catalog
            .files
            .iter()
            .filter(|r| self.covers(r))
            .filter(|r| r.info.project_key.as_deref() == Some(project_key))
            .filter(|r| Some(r.info.session_id.as_str()) != exclude)
            .filter(|r| r.info.parent_session_id.is_none())
            .collect();
        files.sort_by_key(|r| std::cmp::Reverse(r.info.updated_ms));
        Ok(files
            .into_iter()
            .take(count)
            .map(|r| listed(r, &prefixes))
            .collect())
    }

    /// Whether a record is one of this recall's sessions: a file under its roots, of one of its
    /// harnesses.
    fn covers(&self, record: &FileRecord) -> bool {
        let harness_kept =
            self.harnesses.is_empty() || self.harnesses.contains(&record.info.harness);
        harness_kept && self.roots.iter().any(|root| root.holds(&record.path))
    }

    fn filter(&self, catalog: &Catalog, params: &SearchParams) -> search::Filter {
        let size = catalog
            .files
            .iter()
            .map(|r| r.file_id as usize + 1)
            .max()
            .unwrap_or(0);
        let mut files = vec![false; size];
        let mut boosted = vec![false; size];
        let mut updated_ms = vec![0; size];
        let current = match &params.scope {
            Scope::All { current } => current.as_deref(),
            Scope::Project(_) => None,
        };
        for record in &catalog.files {
            let id = record.file_id as usize;
            files[id] = self.covers(record) && in_scope(record, &params.scope);
            boosted[id] = current.is_some() && record.info.project_key.as_deref() == current;
            updated_ms[id] = record.info.updated_ms;
        }
        search::Filter {
            files,
            boosted,
            updated_ms,
            roles: params.roles.clone(),
            all_branches: params.all_branches,
            since_ms: params.since_ms,
            now_ms: self.now_ms,
        }
    }

    /// Refreshes the index and returns a view of it, and how many files were (re)indexed.
    /// Every file the index creates, readers' lock files included, is private (umask 077).
    /// `wait`: wait for another process's refresh rather than answer from the last commit.
    fn refresh(
        &self,
        rebuild: bool,
        wait: bool,
        progress: Option<&mut dyn Progress>,
    ) -> Result<(View, usize), RecallError> {
        store::with_private_umask(|| self.refresh_private(rebuild, wait, None, None, progress))
    }

    /// `max_bytes`: answer from the last commit when the refresh would read more. `skip`: a
    /// file left as the last commit has it (the live session, for a hint).
    fn refresh_private(
        &self,
        rebuild: bool,
        wait: bool,
        max_bytes: Option<u64>,
        skip: Option<&Path>,
        mut progress: Option<&mut dyn Progress>,
    ) -> Result<(View, usize), RecallError> {
        let settled_before = SystemTime::now()
            .checked_sub(self.settle)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        // Finding the session files (a stat of each) and opening the index are independent,
        // and each is a good part of a search on a large corpus: side by side.
        let (discovery, opened) = std::thread::scope(|scope| {
            let finding = scope.spawn(|| discover::discover(&self.roots));
            let opened = self.open_current();
            let discovery = finding
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (discovery, opened)
        });
        let opened = opened?;
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
                },
                0,
            ));
        };
        drop(opened);
        let (store, fresh) = self.writable_store(rebuild, &lock)?;
        let snapshot = store.snapshot()?;
        let (changes, skipped) = plan(&snapshot.catalog);
        unreadable += skipped;
        let mut refreshed = 0;
        if !changes.is_empty() {
            if !fresh {
                store.remove_uncommitted_segments()?;
            }
            let big = change_bytes(&changes, &discovery, &snapshot.catalog);
            let (threads, budget) = writer_size(big);
            let mut writer = store.writer(threads, budget)?;
            writer.set_merge_policy(merge_policy(big));
            drop(snapshot);
            let stats = refresh::apply(
                &store,
                &mut writer,
                store.snapshot()?.catalog,
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
        }
        let snapshot = store.snapshot()?;
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
            },
            refreshed,
        ))
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

    /// The generation a writer holding `lock` changes, and whether it is a new one (built
    /// aside, published when done): the current one, unless a rebuild is asked for or it
    /// cannot be used.
    fn writable_store(
        &self,
        rebuild: bool,
        lock: &store::WriterLock,
    ) -> Result<(Store, bool), RecallError> {
        if !rebuild {
            if let Some(name) = store::current(&self.dir) {
                let opened = Store::open(&self.dir, &name)
                    .and_then(|s| s.snapshot().map(|snapshot| (s, snapshot)));
                match opened {
                    Ok((store, snapshot)) if self.built_alike(&snapshot) => {
                        return Ok((store, false))
                    }
                    Ok(_) => {}
                    Err(RecallError::Corrupt(_)) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok((Store::create(&self.dir, lock)?, true))
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
        let indexed: rustc_hash::FxHashSet<&str> =
            catalog.files.iter().map(|r| r.path.as_str()).collect();
        let changes = refresh::plan(catalog, discovery, &self.roots)
            .into_iter()
            .filter(|change| match change {
                refresh::ChangeRef::Index(i) => {
                    let found = &discovery.files[*i];
                    let known = indexed.contains(found.path.to_string_lossy().as_ref());
                    let readable = discover::open_regular(&found.path).is_ok();
                    if !readable && !known {
                        skipped += 1;
                    }
                    readable || known
                }
                refresh::ChangeRef::Drop(_) => true,
            })
            .collect();
        (changes, skipped)
    }
}

/// Bytes a set of changes reads and indexes: of a file that grew, what was appended (the
/// indexed prefix is kept); of a new or shrunken file, all of it. A grown file that turns out
/// to be rewritten is indexed whole all the same; this only sizes the writer.
fn change_bytes(
    changes: &[refresh::ChangeRef],
    discovery: &discover::Discovery,
    catalog: &Catalog,
) -> u64 {
    let indexed: rustc_hash::FxHashMap<&str, u64> = catalog
        .files
        .iter()
        .map(|r| (r.path.as_str(), r.indexed_len))
        .collect();
    changes
        .iter()
        .map(|c| match c {
            refresh::ChangeRef::Index(i) => {
                let found = &discovery.files[*i];
                let size = found.stat.size;
                match indexed.get(found.path.to_string_lossy().as_ref()) {
                    Some(&done) if done <= size => size - done,
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
        refresh::ChangeRef::Index(i) => {
            let stat = &discovery.files[*i].stat;
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

fn in_scope(record: &FileRecord, scope: &Scope) -> bool {
    match scope {
        Scope::All { .. } => true,
        Scope::Project(key) => record.info.project_key.as_deref() == Some(key.as_str()),
    }
}

/// The indexed session ids, for their shortest unique prefixes.
fn short_ids(catalog: &Catalog) -> UniquePrefixes<'_> {
    UniquePrefixes::new(catalog.files.iter().map(|r| r.info.session_id.as_str()))
}

/// The ids more than one indexed file carries (a copied or forked session): no prefix of them
/// names one file.
fn shared_ids(catalog: &Catalog) -> rustc_hash::FxHashSet<&str> {
    let mut seen = rustc_hash::FxHashSet::default();
    catalog
        .files
        .iter()
        .map(|r| r.info.session_id.as_str())
        .filter(|id| !seen.insert(*id))
        .collect()
}

/// Whether `--session PREFIX` resolves to a session: long enough to be taken for an id (not a
/// file name), and only the characters Pi's ids have (no `/`, nothing a shell or the argument
/// parser would read otherwise).
fn names_a_session(prefix: &str) -> bool {
    prefix.chars().count() >= resolve::MIN_PREFIX_CHARS
        && prefix.starts_with(|c: char| c.is_ascii_alphanumeric())
        && prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn listed(record: &FileRecord, prefixes: &UniquePrefixes) -> ListedSession {
    let info = &record.info;
    ListedSession {
        session_id: info.session_id.clone(),
        harness: info.harness,
        parent_session_id: info.parent_session_id.clone(),
        session_file: record.path.clone(),
        cwd: info.cwd.clone(),
        project_key: info.project_key.clone(),
        name: info.name.clone(),
        created_at: info.created_at.clone(),
        updated_at: info.updated_at.clone(),
        entries: info.entries,
        bytes: info.bytes,
        first_user_preview: info.first_user_preview.clone(),
        short_id: short_id(prefixes, &info.session_id),
        short_parent_id: info
            .parent_session_id
            .as_deref()
            .map(|parent| short_id(prefixes, parent)),
    }
}

/// An id's shortest unique prefix; an id that is not indexed (a subagent's parent whose file
/// is gone) by its first [`resolve::MIN_PREFIX_CHARS`] characters.
fn short_id(prefixes: &UniquePrefixes, id: &str) -> String {
    prefixes
        .of(id)
        .unwrap_or_else(|| id.chars().take(resolve::MIN_PREFIX_CHARS).collect())
}

/// `--since`: `30m`, `12h`, `7d`, `4w` before now, or an RFC 3339 date-time, or a date
/// (`2026-02-01`, midnight in the local time zone). Returns Unix milliseconds.
pub fn parse_since(text: &str, now_ms: i64) -> Result<i64, RecallError> {
    let text = text.trim();
    let invalid = || {
        RecallError::InvalidParams(format!(
            "since {text:?} is not a duration (30m, 12h, 7d, 4w) or an RFC 3339 date"
        ))
    };
    if let Some(unit) = text.chars().last().filter(|c| c.is_ascii_alphabetic()) {
        let number = &text[..text.len() - 1];
        if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
            let n: i64 = number.parse().map_err(|_| invalid())?;
            let unit_ms: i64 = match unit {
                'm' => 60_000,
                'h' => 3_600_000,
                'd' => 86_400_000,
                'w' => 7 * 86_400_000,
                _ => return Err(invalid()),
            };
            return Ok(now_ms.saturating_sub(n.saturating_mul(unit_ms)));
        }
    }
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    if let Ok(date) = text.parse::<jiff::civil::Date>() {
        let zoned = date
            .to_zoned(jiff::tz::TimeZone::system())
            .map_err(|_| invalid())?;
        return Ok(zoned.timestamp().as_millisecond());
    }
    Err(invalid())
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

    #[test]
    fn since_takes_durations_and_dates() {
        let now = 1_000_000_000_000;
        assert_eq!(parse_since("30m", now).unwrap(), now - 1_800_000);
        assert_eq!(parse_since("2d", now).unwrap(), now - 2 * 86_400_000);
        assert_eq!(parse_since("1w", now).unwrap(), now - 7 * 86_400_000);
        assert_eq!(
            parse_since("2026-03-01T09:00:00Z", now).unwrap(),
            1_772_355_600_000
        );
        assert!(parse_since("2026-03-01", now).is_ok());
        assert!(parse_since("5y", now).is_err());
        assert!(parse_since("soon", now).is_err());
    }
}
