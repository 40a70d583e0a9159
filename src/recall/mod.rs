//! Recall across every past session of Pi, Claude Code and Codex (docs/recall.md): a full-text
//! index of their events (tantivy) kept up to date incrementally, ranked search with previews
//! read back from the session files, and the session list.
//!
//! Every `list` and `search` refreshes the index first; a process that finds another one
//! refreshing answers from the last commit with `stale: true` instead of waiting. The index is
//! a cache: a corrupt one is rebuilt, and deleting it is always safe.
//!
//! This file is the facade: [`Recall`]'s entry points (index, list, search, recent sessions,
//! the hint in `hint.rs`). The writer (refresh, plan, merge policy, sizing) is in `writer.rs`,
//! asked with one `RefreshRequest`; the result types are in `types.rs`.

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
mod types;
mod watch;
mod words;
mod writer;

use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use crate::session::{Harness, Root};
pub use catalog::SessionInfo;
pub use error::RecallError;
pub use hint::{Hint, HintOutcome, HintParams};
pub use refresh::{Progress, FIRST_USER_PREVIEW_CHARS};
pub use resolve::{resolve_session, SessionRef, UniquePrefixes};
pub use search::{recency, role_boost, PROJECT_BOOST};
pub use types::{
    AgentReport, Hit, IndexResult, ListParams, ListResult, ListedSession, Scope, SearchParams,
    SearchResult, SessionHits,
};
pub use watch::Checks;

use crate::redact::Masking;
use crate::session::OpenOptions;
use catalog::{Catalog, FileRecord, Key};
use std::borrow::Cow;
use types::View;
use writer::RefreshRequest;

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
    /// The live session's file, looked at by every refresh (the Pi tools' `session_file`).
    pub live: Option<PathBuf>,
    /// How many files of unchanged directories a search looks at (docs/recall.md).
    pub checks: Checks,
    /// Whether a search reports how many files its refresh looked at (the test hook).
    pub report_checks: bool,
}

/// The settling time unless the environment says otherwise.
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(2);

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

    /// This recall for a search from the live session `file`: every refresh looks at it, so
    /// what was appended to it a moment ago is found even when it is not among the files
    /// recently changed (a session resumed after months).
    pub fn from_session(mut self, file: Option<PathBuf>) -> Recall {
        self.live = file;
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
        let (view, refreshed) = self.refresh(
            RefreshRequest {
                rebuild,
                wait: true,
                ..RefreshRequest::default()
            },
            progress,
        )?;
        let empty = Catalog::empty();
        let catalog = view.snapshot.as_ref().map_or(&empty, |s| &s.catalog);
        let files: Vec<Cow<FileRecord>> = (0..catalog.len())
            .filter(|p| self.covers(&catalog.key(*p)))
            .map(|p| record_at(catalog, p))
            .collect::<Result<_, _>>()?;
        let agents = self.agent_reports(&files);
        Ok(IndexResult {
            sessions: files.len(),
            events: files.iter().map(|r| r.events).sum(),
            bytes: files.iter().map(|r| r.stat.size).sum(),
            seconds: started.elapsed().as_secs_f64(),
            unreadable: view.unreadable,
            agents,
            refreshed,
        })
    }

    /// Per agent of the roots: its indexed files and the record types their readers did not
    /// know, and the files of its layout that could not be read, with why (a second look at
    /// the roots: `sessions index` is asked for, so it may pay for it).
    fn agent_reports(&self, files: &[Cow<FileRecord>]) -> Vec<AgentReport> {
        let mut reports: Vec<AgentReport> = Vec::new();
        for root in &self.roots {
            report_of(&mut reports, root.harness);
        }
        let mut indexed: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
        for record in files {
            indexed.insert(record.path.as_str());
            let r = report_of(&mut reports, record.info.harness);
            r.files += 1;
            if !record.unknown_types.is_empty() {
                r.files_with_unknown_types += 1;
            }
            for (record_type, n) in &record.unknown_types {
                *r.unknown_types.entry(record_type.clone()).or_default() += u64::from(*n);
            }
        }
        let discovery = discover::discover(&self.roots, discover::Watch::everything());
        for (harness, reason) in discovery.problems {
            *report_of(&mut reports, harness)
                .unreadable
                .entry(reason)
                .or_default() += 1;
        }
        for found in &discovery.files {
            if indexed.contains(found.path.to_string_lossy().as_ref()) {
                continue;
            }
            if let Err(e) = discover::open_regular(&found.path) {
                *report_of(&mut reports, found.harness)
                    .unreadable
                    .entry(discover::reason(&e))
                    .or_default() += 1;
            }
        }
        reports
    }

    /// `sessions list`: sessions in scope, most recently updated first.
    pub fn list(&self, params: &ListParams) -> Result<ListResult, RecallError> {
        let (view, _) = self.refresh(RefreshRequest::default(), None)?;
        let empty = Catalog::empty();
        let catalog = view.snapshot.as_ref().map_or(&empty, |s| &s.catalog);
        let mut files: Vec<(usize, Key)> = catalog
            .keys()
            .enumerate()
            .filter(|(_, k)| self.covers(k) && in_scope(k, &params.scope))
            .filter(|(_, k)| params.since_ms.is_none_or(|s| k.updated_ms() >= s))
            .collect();
        files.sort_by(|(_, a), (_, b)| {
            b.updated_ms()
                .cmp(&a.updated_ms())
                .then_with(|| a.path().cmp(b.path()))
        });
        let more = files.len().saturating_sub(params.limit);
        files.truncate(params.limit);
        let prefixes = short_ids(catalog);
        let sessions = files
            .into_iter()
            .map(|(p, _)| record_at(catalog, p).map(|r| listed(&r, &prefixes)))
            .collect::<Result<_, _>>()?;
        let result = ListResult {
            sessions,
            more,
            indexed_sessions: catalog.len(),
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
        let (view, _) = self.refresh(RefreshRequest::default(), progress)?;
        let (Some(store), Some(snapshot)) = (&view.store, &view.snapshot) else {
            return Ok(SearchResult {
                sessions: Vec::new(),
                more: 0,
                indexed_sessions: 0,
                stale: view.stale,
                unreadable: view.unreadable,
                secret_queries,
                files_checked: self.report_checks.then_some(view.checked),
            });
        };
        if alternatives.is_empty() {
            let result = SearchResult {
                sessions: Vec::new(),
                more: 0,
                indexed_sessions: snapshot.catalog.len(),
                stale: view.stale,
                unreadable: view.unreadable,
                secret_queries,
                files_checked: self.report_checks.then_some(view.checked),
            };
            self.close(view);
            return Ok(result);
        }
        let catalog = &snapshot.catalog;
        let filter = self.filter(catalog, params);
        let searcher = &snapshot.searcher;
        let fields = &store.fields;
        let segments = search::Segments::new(searcher, fields);
        // Counting every matching session reads each matching document, where finding the
        // best ones skips most: the count runs beside the rest of the search.
        let matches = search::SessionMatches::of(&segments, &alternatives, &filter)?;
        let (sessions, matching) = match &matches {
            // The part documents counted the matching sessions.
            Some(matches) => (
                self.best_sessions(
                    &segments,
                    catalog,
                    &alternatives,
                    &filter,
                    params,
                    Some(matches),
                ),
                Ok(matches.count()),
            ),
            None => std::thread::scope(|scope| {
                let counting =
                    scope.spawn(|| search::matching_files(&segments, &alternatives, &filter));
                let shown =
                    self.best_sessions(&segments, catalog, &alternatives, &filter, params, None);
                let matching = counting
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (shown, matching)
            }),
        };
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
            indexed_sessions: catalog.len(),
            stale: view.stale,
            unreadable: view.unreadable,
            secret_queries,
            files_checked: self.report_checks.then_some(view.checked),
        };
        drop(segments);
        self.close(view);
        Ok(result)
    }

    /// The best `params.limit` sessions that can be shown, best first, with their hits. A
    /// file that cannot be shown (gone, or its match no longer found) leaves its place to the
    /// next best.
    fn best_sessions(
        &self,
        segments: &search::Segments,
        catalog: &Catalog,
        alternatives: &[query::Alternative],
        filter: &search::Filter,
        params: &SearchParams,
        matches: Option<&search::SessionMatches>,
    ) -> Result<Vec<SessionHits>, RecallError> {
        let reader = hits::HitReader::new(segments.searcher(), segments.fields());
        let mut sessions = Vec::new();
        let mut left = filter.clone();
        while sessions.len() < params.limit {
            let wanted = params.limit - sessions.len();
            let search::Top { ranked, empty } = search::top_files(
                segments,
                alternatives,
                &left,
                wanted,
                params.hits + 2,
                search::CANDIDATE_SESSIONS,
                matches,
            )?;
            if ranked.is_empty() && empty.is_empty() {
                break;
            }
            let open = |chosen: &[search::Ranked]| -> Result<Vec<SessionHits>, RecallError> {
                let mut opened = Vec::with_capacity(chosen.len());
                for chosen in chosen {
                    let Some(position) = catalog.position(chosen.file) else {
                        continue;
                    };
                    let session = hits::open_hits(
                        record_at(catalog, position)?.as_ref(),
                        &chosen.candidates,
                        &reader,
                        alternatives,
                        params,
                        self.masking,
                    )?;
                    opened.extend(session.map(|mut session| {
                        session.score = hits::round_score(chosen.score);
                        session
                    }));
                }
                Ok(opened)
            };
            // Each session's hits are read from its file: half of them on another thread.
            let (first, second) = ranked.split_at(ranked.len().div_ceil(2));
            let (first, second) = std::thread::scope(|scope| {
                let other = (!second.is_empty()).then(|| scope.spawn(|| open(second)));
                let first = open(first);
                let second = other.map_or(Ok(Vec::new()), |other| {
                    other
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                });
                (first, second)
            });
            sessions.extend(first?);
            sessions.extend(second?);
            let shown_or_empty = ranked.iter().map(|chosen| chosen.file).chain(empty);
            left = left.without(shown_or_empty);
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
        let (view, _) = self.refresh(
            RefreshRequest {
                max_bytes: Some(max_refresh_bytes),
                ..RefreshRequest::default()
            },
            None,
        )?;
        let Some(snapshot) = view.snapshot else {
            return Ok(Vec::new());
        };
        let catalog = &snapshot.catalog;
        let prefixes = short_ids(catalog);
        let mut files: Vec<(usize, Key)> = catalog
            .keys()
            .enumerate()
            .filter(|(_, k)| self.covers(k))
            .filter(|(_, k)| k.project_key() == Some(project_key))
            .filter(|(_, k)| Some(k.session_id()) != exclude)
            .filter(|(_, k)| k.parent_session_id().is_none())
            .collect();
        files.sort_by_key(|(_, k)| std::cmp::Reverse(k.updated_ms()));
        files
            .into_iter()
            .take(count)
            .map(|(p, _)| record_at(catalog, p).map(|r| listed(&r, &prefixes)))
            .collect()
    }

    /// Whether a record is one of this recall's sessions: a file under its roots, of one of its
    /// harnesses.
    fn covers(&self, key: &Key) -> bool {
        let harness_kept = self.harnesses.is_empty() || self.harnesses.contains(&key.harness());
        harness_kept && self.roots.iter().any(|root| root.holds(key.path()))
    }

    fn filter(&self, catalog: &Catalog, params: &SearchParams) -> search::Filter {
        // Keys are in file id order: the last has the largest.
        let size = catalog
            .len()
            .checked_sub(1)
            .map_or(0, |last| catalog.key(last).file_id() as usize + 1);
        let mut files = vec![false; size];
        let mut boosted = vec![false; size];
        let mut updated_ms = vec![0; size];
        let current = match &params.scope {
            Scope::All { current } => current.as_deref(),
            Scope::Project(_) => None,
        };
        for key in catalog.keys() {
            let id = key.file_id() as usize;
            files[id] = self.covers(&key) && in_scope(&key, &params.scope);
            boosted[id] = current.is_some() && key.project_key() == current;
            updated_ms[id] = key.updated_ms();
        }
        search::Filter {
            files,
            boosted,
            updated_ms,
            roles: params.roles.clone(),
            all_branches: params.all_branches,
            since_ms: params.since_ms,
            now_ms: self.now_ms,
            recency_bonus: search::RECENCY_BONUS,
        }
    }
}

/// The report of `harness` in `reports`, added when missing.
fn report_of(reports: &mut Vec<AgentReport>, harness: Harness) -> &mut AgentReport {
    match reports.iter().position(|r| r.agent == harness) {
        Some(i) => &mut reports[i],
        None => {
            reports.push(AgentReport {
                agent: harness,
                ..AgentReport::default()
            });
            reports.last_mut().expect("just pushed")
        }
    }
}

fn in_scope(key: &Key, scope: &Scope) -> bool {
    match scope {
        Scope::All { .. } => true,
        Scope::Project(project) => key.project_key() == Some(project.as_str()),
    }
}

/// The whole record of the catalog's file at `position`.
fn record_at(catalog: &Catalog, position: usize) -> Result<Cow<'_, FileRecord>, RecallError> {
    catalog
        .record(position)
        .ok_or_else(|| RecallError::Corrupt("a catalog record no longer reads".into()))
}

/// The indexed session ids, for their shortest unique prefixes.
fn short_ids(catalog: &Catalog) -> UniquePrefixes<'_> {
    UniquePrefixes::new(catalog.keys().map(|k| k.session_id()))
}

/// The ids more than one indexed file carries (a copied or forked session): no prefix of them
/// names one file.
fn shared_ids(catalog: &Catalog) -> rustc_hash::FxHashSet<&str> {
    let mut seen = rustc_hash::FxHashSet::default();
    catalog
        .keys()
        .map(|k| k.session_id())
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
        updated_from_file: !info.harness.writes_times(),
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
