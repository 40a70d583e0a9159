//! Matching and ranking (docs/recall.md, "What a query means").
//!
//! An event matches when it holds some of an alternative's words, as written or in another
//! form (the same stem). It scores BM25 over the words it holds (a word as written scores in
//! both fields, another form only in the stem field, so exact forms rank above folded ones),
//! plus a boost for a quoted phrase and for two of the query's words close together, × a role
//! weight × a recency factor (× a project boost). A session ranks by its best event weighed by
//! its evidence: how much of the query's information (inverse document frequencies of the
//! words) its events hold between them.
//!
//! Finding the sessions runs in three steps. The pool: [`CANDIDATE_SESSIONS`] sessions, from
//! the part documents ([`SessionMatches`]: the sessions whose events hold the most of the
//! query's information between them) when no role or date filter asks about single events,
//! else the sessions whose best event scores highest on the words' stems alone (the engine's
//! block-max pruning skips most documents of common words). Then their events scored on the
//! words, and the best [`BOOSTED_PER_SESSION`] of each given the phrase and proximity boosts;
//! and their evidence, read from the posting lists of their documents' ranges.

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use tantivy::columnar::Column;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::Weight;
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, EnableScoring, Occur, Query, TermQuery,
};
use tantivy::schema::Field;
use tantivy::schema::IndexRecordOption;
use tantivy::{
    DocAddress, DocId, DocSet, Score, Searcher, SegmentOrdinal, SegmentReader, Term,
    COLLECT_BLOCK_BUFFER_LEN, TERMINATED,
};

use super::error::RecallError;
use super::query::Alternative;
use super::schema::{Fields, Flags, PART_OFF_BRANCH, PART_ON_BRANCH};
use crate::history::Role;

/// Role weights: what people and the model said ranks over tool output. The user's words and
/// the assistant's weigh the same: the answer to a question is as often in what the assistant
/// said (issue 42: a user weight above the assistant's buried it).
pub fn role_boost(role: Role) -> f32 {
    match role {
        Role::User | Role::Assistant | Role::Context => 1.0,
        Role::Tool => 0.75,
    }
}

/// How many sessions compete on their evidence in a search: the best on the words alone,
/// whatever the limit up to this many (so `--limit 3` shows the first three of `--limit 20`);
/// a larger limit widens the pool to itself.
pub const CANDIDATE_SESSIONS: usize = 24;
/// The events of a session whose phrase and proximity boosts are read: its best on the words
/// alone (reading positions for every event of two dozen long sessions cost more than the
/// rest of a search).
pub const BOOSTED_PER_SESSION: usize = 8;
/// A session's weight is `EVIDENCE_FLOOR + (1 − EVIDENCE_FLOOR) · evidence`: a session whose
/// events hold all of the query's information keeps its best event's score, one holding only
/// its common words keeps little more than this share. Chosen on the natural-question set's
/// tuning half (0.1, 0.3 and 0.5 within a point of each other; docs/benchmarks.md).
pub const EVIDENCE_FLOOR: f32 = 0.1;
/// A quoted phrase found as written adds this times the sum of its words' inverse document
/// frequencies (about what the words themselves score once each).
pub const PHRASE_BOOST: f32 = 1.0;
/// Two consecutive words of the query found within [`PROXIMITY_SLOP`] words of each other
/// (either order) add this times the sum of their inverse document frequencies.
pub const PROXIMITY_BOOST: f32 = 0.5;
pub const PROXIMITY_SLOP: u32 = 3;
/// Pairs of consecutive words looked for close together, per alternative.
const MAX_PROXIMITY_PAIRS: usize = 8;

/// How much more an event of today weighs than an old one, in a search: `RECENCY_BONUS`.
pub const RECENCY_BONUS: f32 = 0.5;

/// Recency: `1 + bonus · 2^(−age / 30 days)`, from `1 + bonus` for an event of today down to 1.
pub fn recency(age_ms: i64, bonus: f32) -> f32 {
    const HALF_LIFE_DAYS: f64 = 30.0;
    let days = (age_ms.max(0) as f64) / 86_400_000.0;
    (1.0 + f64::from(bonus) * (-days / HALF_LIFE_DAYS).exp2()) as f32
}

/// Under `--all`, the current project's sessions are boosted by this factor.
pub const PROJECT_BOOST: f32 = 1.5;

/// Which documents count, decided from fast fields.
#[derive(Debug, Clone)]
pub struct Filter {
    /// Indexed by file id: whether the file is in scope.
    pub files: Vec<bool>,
    /// Indexed by file id: whether the file gets [`PROJECT_BOOST`].
    pub boosted: Vec<bool>,
    /// Indexed by file id: when the session was last updated (ties rank the newer first).
    pub updated_ms: Vec<i64>,
    pub roles: Option<Vec<Role>>,
    pub all_branches: bool,
    pub since_ms: Option<i64>,
    pub now_ms: i64,
    /// The weight of recency ([`recency`]): [`RECENCY_BONUS`] in a search.
    pub recency_bonus: f32,
}

impl Filter {
    /// Whether the filter is decided by session and branch alone (no role, no date): what the
    /// part documents answer.
    fn per_session(&self) -> bool {
        self.roles.is_none() && self.since_ms.is_none()
    }

    fn in_scope(&self, file: u64) -> bool {
        self.files.get(file as usize).copied().unwrap_or(false)
    }

    pub fn without(&self, files: impl IntoIterator<Item = u64>) -> Filter {
        let mut filter = self.clone();
        for file in files {
            if let Some(kept) = filter.files.get_mut(file as usize) {
                *kept = false;
            }
        }
        filter
    }

    /// A document's file and final score, when it counts.
    fn weigh(&self, columns: &Columns, doc: DocId, bm25: Score) -> Option<(u64, f32)> {
        let file = columns.file.first(doc)?;
        if !self.in_scope(file) {
            return None;
        }
        Some((file, self.weighed(columns, doc, file, bm25)?))
    }

    /// The final score of a document of `file` (in scope), when the filters admit it.
    fn weighed(&self, columns: &Columns, doc: DocId, file: u64, bm25: Score) -> Option<f32> {
        let (role, ts) = self.admitted(columns, doc)?;
        let mut score = bm25 * role_boost(role) * recency(self.now_ms - ts, self.recency_bonus);
        if self.boosted.get(file as usize).copied().unwrap_or(false) {
            score *= PROJECT_BOOST;
        }
        Some(score)
    }

    /// Whether the branch, role and date filters admit a document: its role and timestamp.
    fn admitted(&self, columns: &Columns, doc: DocId) -> Option<(Role, i64)> {
        let role = self.admitted_role(columns, doc)?;
        let ts = columns.ts.first(doc).unwrap_or(0);
        if self.since_ms.is_some_and(|since| ts < since) {
            return None;
        }
        Some((role, ts))
    }

    /// Whether the filters admit a document, its timestamp read only when a date filter asks.
    fn admits(&self, columns: &Columns, doc: DocId) -> bool {
        match self.since_ms {
            Some(_) => self.admitted(columns, doc).is_some(),
            None => self.admitted_role(columns, doc).is_some(),
        }
    }

    /// Whether the branch and role filters admit a document: its role.
    fn admitted_role(&self, columns: &Columns, doc: DocId) -> Option<Role> {
        let flags = columns.flags.first(doc).unwrap_or(0);
        let role = Flags::role_of(flags);
        if !self.all_branches && !Flags::on_branch_of(flags) {
            return None;
        }
        if self
            .roles
            .as_ref()
            .is_some_and(|roles| !roles.contains(&role))
        {
            return None;
        }
        Some(role)
    }

    /// The most a document's BM25 score can be multiplied by.
    fn weight_bound(&self) -> WeightBound {
        let role = match &self.roles {
            Some(roles) => roles.iter().map(|r| role_boost(*r)).fold(0.0, f32::max),
            None => Role::ALL.iter().map(|r| role_boost(*r)).fold(0.0, f32::max),
        };
        let project = if self.boosted.iter().any(|b| *b) {
            PROJECT_BOOST
        } else {
            1.0
        };
        WeightBound {
            role_and_project: role * project,
            now_ms: self.now_ms,
            recency_bonus: self.recency_bonus,
        }
    }
}

/// The largest role and project weight a document can get, to bound its final score by.
#[derive(Debug, Clone, Copy)]
struct WeightBound {
    role_and_project: f32,
    now_ms: i64,
    recency_bonus: f32,
}

impl WeightBound {
    /// The bound in a segment whose newest event is from `newest_ts` (recency only falls with
    /// age). A segment of part documents alone has no timestamp at all (the column's least
    /// value).
    fn at(&self, newest_ts: i64) -> f32 {
        self.role_and_project * recency(self.now_ms.saturating_sub(newest_ts), self.recency_bonus)
    }
}

/// A document that matched, with its rank key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub doc: DocAddress,
    pub score: f32,
    /// The event's seq: of two equal candidates the later event ranks first (as recency
    /// would have it), so that the hits shown do not depend on how the index is cut into
    /// segments (a rebuild answers as the index refreshed in steps does).
    pub seq: u64,
}

impl Candidate {
    pub fn better_than(&self, other: &Candidate) -> bool {
        self.rank(other) == std::cmp::Ordering::Less
    }

    /// `Less` when `self` ranks before `other`.
    fn rank(&self, other: &Candidate) -> std::cmp::Ordering {
        other
            .score
            .partial_cmp(&self.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(other.seq.cmp(&self.seq))
    }
}

/// The best candidates of every matching file, best first.
pub type ByFile = FxHashMap<u64, Vec<Candidate>>;

/// A session a search chose: its rank score, its evidence, and its best candidates.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub file: u64,
    /// Its best event's score × its evidence weight ([`EVIDENCE_FLOOR`]).
    pub score: f32,
    /// The share of the query's information its events hold, 0 to 1.
    pub evidence: f32,
    /// The stems of the query (in the order of [`distinct_stems`]) some event of it holds.
    pub held: Vec<bool>,
    /// Its best candidates, best first (at most `per_file`).
    pub candidates: Vec<Candidate>,
}

/// The sessions a search shows, best first: the `limit` files that rank highest (ties: the
/// more recently updated session, then the lower file id), each with up to `per_file` of its
/// best candidates.
pub fn top_files(
    segments: &Segments,
    alternatives: &[Alternative],
    filter: &Filter,
    limit: usize,
    per_file: usize,
    pool: usize,
    matches: Option<&SessionMatches>,
) -> Result<Top, RecallError> {
    let fields = &segments.fields;
    let (Some(stems), Some(words)) = (
        stems_query(fields, alternatives),
        words_query(fields, alternatives),
    ) else {
        return Ok(Top::default());
    };
    let found;
    let matches = match matches {
        Some(matches) => Some(matches),
        None => {
            found = SessionMatches::of(segments, alternatives, filter)?;
            found.as_ref()
        }
    };
    let mut chosen: Vec<u64> = match matches {
        Some(matches) => matches.best(filter, limit.max(pool)),
        None => best_files(segments, stems.as_ref(), filter, limit.max(pool))?
            .into_iter()
            .map(|best| best.file)
            .collect(),
    };
    let rare = holders_of_rare_forms(segments, alternatives, filter, &chosen, pool)?;
    chosen.extend(rare);
    if chosen.is_empty() {
        return Ok(Top::default());
    }
    let kept = per_file.max(BOOSTED_PER_SESSION);
    let mut by_file = run_in_halves(segments, words.as_ref(), filter, kept, &chosen)?;
    if let Some(boosts) = Boosts::of(segments, alternatives) {
        add_boosts(segments, &boosts, filter, &mut by_file)?;
    }
    for list in by_file.values_mut() {
        sort_best_first(list);
        list.truncate(per_file);
    }
    let known_idf = matches.map(|m| m.idf.as_slice());
    let evidence = evidence(segments, alternatives, filter, &chosen, known_idf)?;
    let empty: Vec<u64> = chosen
        .iter()
        .filter(|file| by_file.get(file).is_none_or(Vec::is_empty))
        .copied()
        .collect();
    let mut ranked: Vec<Ranked> = chosen
        .iter()
        .zip(evidence)
        .filter_map(|(file, (evidence, held))| {
            let candidates = by_file.remove(file)?;
            let best = candidates.first()?.score;
            Some(Ranked {
                file: *file,
                score: best * (EVIDENCE_FLOOR + (1.0 - EVIDENCE_FLOOR) * evidence),
                evidence,
                held,
                candidates,
            })
        })
        .collect();
    let updated = |file: u64| filter.updated_ms.get(file as usize).copied().unwrap_or(0);
    ranked.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| updated(b.file).cmp(&updated(a.file)))
            .then(a.file.cmp(&b.file))
    });
    ranked.truncate(limit);
    Ok(Top { ranked, empty })
}

/// The sessions a search shows ([`top_files`]).
#[derive(Debug, Default)]
pub struct Top {
    pub ranked: Vec<Ranked>,
    /// The pool's sessions that hold no event the filter admits (their part documents said
    /// they might): a next search leaves them out with the ranked ones.
    pub empty: Vec<u64>,
}

/// Every distinct stem of the alternatives, and which alternatives hold it.
pub fn distinct_stems(alternatives: &[Alternative]) -> Vec<(&str, Vec<usize>)> {
    let mut stems: Vec<(&str, Vec<usize>)> = Vec::new();
    for (a, alternative) in alternatives.iter().enumerate() {
        for stem in &alternative.stems {
            match stems.iter_mut().find(|(s, _)| s == stem) {
                Some((_, holders)) if !holders.contains(&a) => holders.push(a),
                Some(_) => {}
                None => stems.push((stem, vec![a])),
            }
        }
    }
    stems
}

/// For each of `files`, in order: the share of the query's information its events hold
/// between them (the filters admit), for its best alternative: the inverse document
/// frequencies of the stems some event holds over those of all the alternative's stems; and
/// which stems it holds.
///
/// Read from posting lists only: a file's documents in a segment are a few ranges (the `file`
/// field's postings), and each stem's postings are sought to each range in order. `known_idf`:
/// the stems' weights when the session level already looked them up ([`SessionMatches`]).
fn evidence(
    segments: &Segments,
    alternatives: &[Alternative],
    filter: &Filter,
    files: &[u64],
    known_idf: Option<&[f32]>,
) -> Result<Vec<(f32, Vec<bool>)>, RecallError> {
    let fields = &segments.fields;
    let searcher = segments.searcher;
    let stems = distinct_stems(alternatives);
    let idf = match known_idf {
        Some(idf) => std::borrow::Cow::Borrowed(idf),
        None => std::borrow::Cow::Owned(stem_idfs(segments, &stems)?),
    };
    let mut held = vec![vec![false; stems.len()]; files.len()];
    for (ord, reader) in searcher.segment_readers().iter().enumerate() {
        let ranges = doc_ranges(reader, fields, files)?;
        if ranges.is_empty() {
            continue;
        }
        let columns = segments
            .columns(ord, reader)
            .map_err(RecallError::corrupt)?;
        let index = reader
            .inverted_index(fields.stem)
            .map_err(RecallError::corrupt)?;
        let alive = reader.alive_bitset();
        for (s, (stem, _)) in stems.iter().enumerate() {
            let term = Term::from_field_text(fields.stem, stem);
            let Some(mut postings) = index
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(RecallError::corrupt)?
            else {
                continue;
            };
            let mut doc = postings.doc();
            for &(start, end, f) in &ranges {
                if doc == TERMINATED {
                    break;
                }
                if held[f][s] {
                    continue;
                }
                if doc < start {
                    doc = postings.seek(start);
                }
                while doc < end {
                    let deleted = alive.is_some_and(|a| a.is_deleted(doc));
                    if !deleted && filter.admits(columns, doc) {
                        held[f][s] = true;
                        break;
                    }
                    doc = postings.advance();
                }
            }
        }
    }
    Ok(held
        .into_iter()
        .map(|holds| {
            let share = (0..alternatives.len())
                .map(|a| {
                    let of_a = |s: &usize| stems[*s].1.contains(&a);
                    let all: f32 = (0..stems.len()).filter(of_a).map(|s| idf[s]).sum();
                    let some: f32 = (0..stems.len())
                        .filter(of_a)
                        .filter(|s| holds[*s])
                        .map(|s| idf[s])
                        .sum();
                    if all > 0.0 {
                        some / all
                    } else {
                        0.0
                    }
                })
                .fold(0.0, f32::max);
            (share, holds)
        })
        .collect())
}

/// Each stem's inverse document frequency over the events.
fn stem_idfs(segments: &Segments, stems: &[(&str, Vec<usize>)]) -> Result<Vec<f32>, RecallError> {
    let events = segments.events();
    stems
        .iter()
        .map(|(stem, _)| {
            let docs = segments
                .searcher
                .doc_freq(&Term::from_field_text(segments.fields.stem, stem))
                .map_err(RecallError::corrupt)?;
            Ok(inverse_document_frequency(docs, events))
        })
        .collect()
}

/// BM25's inverse document frequency of a word in `docs` of `events` events.
pub fn inverse_document_frequency(docs: u64, events: u64) -> f32 {
    let (n, total) = (docs as f64, events as f64);
    (1.0 + (total - n + 0.5) / (n + 0.5)).ln() as f32
}

/// The documents of `files` in one segment, as ranges `(start, end, index in files)` sorted
/// by start (a file indexed in one go is one range; appends add more).
fn doc_ranges(
    reader: &SegmentReader,
    fields: &Fields,
    files: &[u64],
) -> Result<Vec<(DocId, DocId, usize)>, RecallError> {
    let index = reader
        .inverted_index(fields.file)
        .map_err(RecallError::corrupt)?;
    let mut ranges = Vec::new();
    for (f, file) in files.iter().enumerate() {
        let term = Term::from_field_u64(fields.file, *file);
        let Some(mut postings) = index
            .read_postings(&term, IndexRecordOption::Basic)
            .map_err(RecallError::corrupt)?
        else {
            continue;
        };
        let start = postings.doc();
        if start == TERMINATED {
            continue;
        }
        // A file written in one go is one range: its last document is where its count says,
        // and none follows it (else another file's documents lie between its own).
        let last = start + postings.doc_freq().saturating_sub(1);
        if postings.seek(last) == last && postings.advance() == TERMINATED {
            ranges.push((start, last + 1, f));
            continue;
        }
        let Some(mut postings) = index
            .read_postings(&term, IndexRecordOption::Basic)
            .map_err(RecallError::corrupt)?
        else {
            continue;
        };
        let mut doc = postings.doc();
        while doc != TERMINATED {
            let start = doc;
            let mut end = doc + 1;
            doc = postings.advance();
            while doc == end {
                end += 1;
                doc = postings.advance();
            }
            ranges.push((start, end, f));
        }
    }
    ranges.sort_unstable();
    Ok(ranges)
}

/// What the part documents say of a query: each session in scope holding some of its stems,
/// how often it holds each, and the stems' weights. Found once per search: it gives both the
/// pool ([`SessionMatches::best`]) and the count of matching sessions.
#[derive(Debug)]
pub struct SessionMatches {
    held: Vec<(u64, Vec<u32>)>,
    idf: Vec<f32>,
}

impl SessionMatches {
    /// `None` when the filter asks what only the events tell (a role, a date).
    pub fn of(
        segments: &Segments,
        alternatives: &[Alternative],
        filter: &Filter,
    ) -> Result<Option<SessionMatches>, RecallError> {
        if !filter.per_session() {
            return Ok(None);
        }
        let stems = distinct_stems(alternatives);
        Ok(Some(SessionMatches {
            held: session_stems(segments, &stems, filter)?,
            idf: stem_idfs(segments, &stems)?,
        }))
    }

    /// How many sessions hold some of the query's words.
    pub fn count(&self) -> usize {
        self.held.len()
    }

    /// The pool: the `limit` sessions `filter` keeps whose events hold the most of the query's
    /// information between them (each stem weighed by its inverse document frequency and,
    /// saturating, by how often the session holds it), × the session's recency and project
    /// boost; ties go to the more recently updated session.
    fn best(&self, filter: &Filter, limit: usize) -> Vec<u64> {
        let updated = |file: u64| filter.updated_ms.get(file as usize).copied().unwrap_or(0);
        let mut scored: Vec<(u64, f32)> = self
            .held
            .iter()
            .filter(|(file, _)| filter.in_scope(*file))
            .map(|(file, counts)| {
                let information: f32 = counts
                    .iter()
                    .zip(&self.idf)
                    .map(|(&count, idf)| {
                        let count = count as f32;
                        idf * count / (count + SESSION_COUNT_SATURATION)
                    })
                    .sum();
                let mut score =
                    information * recency(filter.now_ms - updated(*file), filter.recency_bonus);
                if filter.boosted.get(*file as usize).copied().unwrap_or(false) {
                    score *= PROJECT_BOOST;
                }
                (*file, score)
            })
            .collect();
        scored.sort_by(|a, b| {
            b.1.partial_cmp(&a.1)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| updated(b.0).cmp(&updated(a.0)))
                .then(a.0.cmp(&b.0))
        });
        scored.truncate(limit);
        scored.into_iter().map(|(file, _)| file).collect()
    }
}

/// A word is rare as written when at most this many events hold it so: the sessions holding
/// it join the pool ([`holders_of_rare_forms`]).
const RARE_FORM_DOCS: u64 = 256;
/// ... and its stem is this many times as common: else the pool's stems weigh it already.
const RARE_FORM_RATIO: u64 = 4;

/// The sessions in scope, outside `chosen`, that hold a word of the query as written when the
/// word is rare so but its stem is common ("paginator" among many "pagination"s): the pool
/// weighs stems, so a session that names the rare thing could be left out behind sessions
/// holding only the query's common words. At most `most`, those holding the rare forms most
/// often first.
fn holders_of_rare_forms(
    segments: &Segments,
    alternatives: &[Alternative],
    filter: &Filter,
    chosen: &[u64],
    most: usize,
) -> Result<Vec<u64>, RecallError> {
    let fields = &segments.fields;
    let searcher = segments.searcher;
    let doc_freq = |term: &Term| searcher.doc_freq(term).map_err(RecallError::corrupt);
    let mut held: FxHashMap<u64, u32> = FxHashMap::default();
    for alternative in alternatives {
        for (word, stem) in alternative.words.iter().zip(&alternative.stems) {
            let written = Term::from_field_text(fields.text, word);
            let exact = doc_freq(&written)?;
            if exact == 0 || exact > RARE_FORM_DOCS {
                continue;
            }
            if doc_freq(&Term::from_field_text(fields.stem, stem))? < exact * RARE_FORM_RATIO {
                continue;
            }
            for (ord, reader) in searcher.segment_readers().iter().enumerate() {
                let Some((mut postings, columns)) =
                    segments.postings(ord, reader, &written, IndexRecordOption::Basic)?
                else {
                    continue;
                };
                let alive = reader.alive_bitset();
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    let deleted = alive.is_some_and(|a| a.is_deleted(doc));
                    let file = columns.file.first(doc).filter(|f| filter.in_scope(*f));
                    if let Some(file) = file.filter(|f| !deleted && !chosen.contains(f)) {
                        *held.entry(file).or_default() += 1;
                    }
                    doc = postings.advance();
                }
            }
        }
    }
    let updated = |file: u64| filter.updated_ms.get(file as usize).copied().unwrap_or(0);
    let mut files: Vec<(u64, u32)> = held.into_iter().collect();
    files.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then_with(|| updated(b.0).cmp(&updated(a.0)))
            .then(a.0.cmp(&b.0))
    });
    files.truncate(most);
    Ok(files.into_iter().map(|(file, _)| file).collect())
}

/// How often a session must hold a stem for half its weight in the pool.
const SESSION_COUNT_SATURATION: f32 = 1.2;

/// The sessions in scope whose part documents (on the default branch unless the filter takes
/// every branch) hold some of `stems`: how often each stem, in `stems`' order.
fn session_stems(
    segments: &Segments,
    stems: &[(&str, Vec<usize>)],
    filter: &Filter,
) -> Result<Vec<(u64, Vec<u32>)>, RecallError> {
    let fields = &segments.fields;
    let width = stems.len();
    let mut part_fields = vec![fields.part_stem];
    if filter.all_branches {
        part_fields.push(fields.part_stem_off);
    }
    // Indexed by file id × stem: file ids are the catalog's, dense from 0.
    let mut counts = vec![0u32; filter.files.len() * width];
    let mut docs = [0; COLLECT_BLOCK_BUFFER_LEN];
    let mut held = [0; COLLECT_BLOCK_BUFFER_LEN];
    let mut files = [None; COLLECT_BLOCK_BUFFER_LEN];
    for (ord, reader) in segments.searcher.segment_readers().iter().enumerate() {
        let alive = reader.alive_bitset();
        for &field in &part_fields {
            for (s, (stem, _)) in stems.iter().enumerate() {
                let term = Term::from_field_text(field, stem);
                let Some((mut postings, columns)) =
                    segments.postings(ord, reader, &term, IndexRecordOption::WithFreqs)?
                else {
                    continue;
                };
                // The parts' files read 64 at a time.
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    let mut filled = 0;
                    while doc != TERMINATED && filled < docs.len() {
                        if !alive.is_some_and(|a| a.is_deleted(doc)) {
                            docs[filled] = doc;
                            held[filled] = postings.term_freq();
                            filled += 1;
                        }
                        doc = postings.advance();
                    }
                    columns
                        .file
                        .first_vals(&docs[..filled], &mut files[..filled]);
                    for (file, count) in files[..filled].iter().zip(&held[..filled]) {
                        if let Some(file) = file.filter(|f| filter.in_scope(*f)) {
                            counts[file as usize * width + s] += count;
                        }
                    }
                }
            }
        }
    }
    Ok(counts
        .chunks(width.max(1))
        .enumerate()
        .filter(|(_, held)| held.iter().any(|c| *c > 0))
        .map(|(file, held)| (file as u64, held.to_vec()))
        .collect())
}

/// How many files hold a document that counts, of either kind, counted from the events: for
/// the filters the session level cannot answer (`--role`, `--since`; [`SessionMatches::of`]
/// is `None`).
///
/// Each word is counted on its own (a union's merging costs more than the words' lists
/// apart), a file is weighed only until it counts once, and the count stops as soon as every
/// file in scope is counted.
pub fn matching_files(
    segments: &Segments,
    alternatives: &[Alternative],
    filter: &Filter,
) -> Result<usize, RecallError> {
    let mut counted = vec![false; filter.files.len()];
    let in_scope = filter.files.iter().filter(|f| **f).count();
    let mut count = 0;
    for query in any_queries(&segments.fields, alternatives) {
        let weight = segments.weight(query.as_ref(), false)?;
        for found in segments.matching(weight.as_ref()) {
            if count == in_scope {
                return Ok(count);
            }
            let Matching {
                ord,
                reader,
                columns,
                scorer: mut docs,
            } = found?;
            let mut counting = Counting {
                filter,
                columns,
                reader,
                counted: &mut counted,
                count: &mut count,
                in_scope,
            };
            if docs.size_hint() >= RANGES_WORTH_IT {
                let ranges = segments.file_ranges(ord as usize, reader)?;
                counting.skipping_counted_files(docs.as_mut(), ranges);
            } else {
                counting.doc_by_doc(docs.as_mut());
            }
        }
    }
    Ok(count)
}

/// A segment holding at least this many matches is counted with its files' document ranges
/// (finding them costs a few microseconds per file of the segment).
const RANGES_WORTH_IT: u32 = 4096;

/// The count of matching files, through one segment's matches.
struct Counting<'c> {
    filter: &'c Filter,
    columns: &'c Columns,
    reader: &'c SegmentReader,
    counted: &'c mut Vec<bool>,
    count: &'c mut usize,
    in_scope: usize,
}

impl Counting<'_> {
    fn all_counted(&self) -> bool {
        *self.count == self.in_scope
    }

    /// Whether `file` needs no more looking at; counts it when `doc` is a live document that
    /// the filter admits.
    fn settle(&mut self, file: u64, doc: DocId) -> bool {
        let seen = self.counted.get(file as usize).copied().unwrap_or(true);
        if seen || !self.filter.in_scope(file) {
            return true;
        }
        let deleted = self
            .reader
            .alive_bitset()
            .is_some_and(|a| a.is_deleted(doc));
        if deleted || !self.filter.admits(self.columns, doc) {
            return false;
        }
        self.counted[file as usize] = true;
        *self.count += 1;
        true
    }

    /// Every match, its file read from the fast field, 64 at a time.
    fn doc_by_doc(&mut self, docs: &mut dyn DocSet) {
        let mut buffer = [0; COLLECT_BLOCK_BUFFER_LEN];
        let mut files = [None; COLLECT_BLOCK_BUFFER_LEN];
        loop {
            let filled = docs.fill_buffer(&mut buffer);
            let batch = &buffer[..filled];
            self.columns.file.first_vals(batch, &mut files[..filled]);
            for (&doc, file) in batch.iter().zip(&files) {
                if let Some(file) = *file {
                    self.settle(file, doc);
                }
            }
            if filled < COLLECT_BLOCK_BUFFER_LEN || self.all_counted() {
                return;
            }
        }
    }

    /// The matches of files whose documents are one range: once such a file is settled, the
    /// rest of its range is skipped (a posting list's seek), not read.
    fn skipping_counted_files(&mut self, docs: &mut dyn DocSet, ranges: &[FileRange]) {
        let max_doc = self.reader.max_doc();
        let mut at = 0;
        let mut doc = docs.doc();
        while doc != TERMINATED && !self.all_counted() {
            while ranges.get(at).is_some_and(|r| r.end <= doc) {
                at += 1;
            }
            let range = ranges.get(at).filter(|r| r.start <= doc);
            let file = match range {
                Some(range) => Some(range.file),
                None => self.columns.file.first(doc),
            };
            let settled = file.is_some_and(|file| self.settle(file, doc));
            doc = match range {
                Some(range) if settled && range.end >= max_doc => TERMINATED,
                Some(range) if settled => docs.seek(range.end),
                _ => docs.advance(),
            };
        }
    }
}

/// The documents of one file in a segment, `start..end`, when they are all of it there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct FileRange {
    start: DocId,
    end: DocId,
    file: u64,
}

/// The files of a segment whose documents are one contiguous range, by start. A segment is
/// written file by file, so most are; a file indexed again in parts (an append) and merged can
/// be split, and is left out (its matches are read one by one). Read from the `file` field's
/// terms: a file's first document, and a seek to where its last would be.
fn file_ranges(
    reader: &SegmentReader,
    fields: &Fields,
    columns: &Columns,
) -> tantivy::Result<Vec<FileRange>> {
    let inverted = reader.inverted_index(fields.file)?;
    let mut terms = inverted.terms().stream()?;
    let mut ranges = Vec::new();
    while terms.advance() {
        let info = terms.value().clone();
        let mut postings = inverted.read_postings_from_terminfo(&info, IndexRecordOption::Basic)?;
        let start = postings.doc();
        if start == TERMINATED || info.doc_freq == 0 {
            continue;
        }
        let last = start + (info.doc_freq - 1);
        let contiguous = postings.seek(last) == last && postings.advance() == TERMINATED;
        let Some(file) = columns.file.first(start) else {
            continue;
        };
        if contiguous && columns.file.first(last) == Some(file) {
            ranges.push(FileRange {
                start,
                end: last + 1,
                file,
            });
        }
    }
    ranges.sort_unstable();
    Ok(ranges)
}

/// Queries whose matches together are the documents that hold some word of an alternative,
/// in some form: one per distinct stem.
fn any_queries(fields: &Fields, alternatives: &[Alternative]) -> Vec<Box<dyn Query>> {
    distinct_stems(alternatives)
        .into_iter()
        .map(|(stem, _)| term_query(fields.stem, stem))
        .collect()
}

pub fn sort_best_first(list: &mut [Candidate]) {
    list.sort_by(Candidate::rank);
}

fn either(mut queries: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    if queries.len() == 1 {
        return queries.remove(0);
    }
    Box::new(BooleanQuery::new(
        queries.into_iter().map(|q| (Occur::Should, q)).collect(),
    ))
}

fn term_query(field: Field, word: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, word),
        IndexRecordOption::WithFreqs,
    ))
}

/// The stems of every alternative as one union of term queries: what finds the pool (every
/// document holding a word in some form, scored on half the posting lists of
/// [`words_query`]).
fn stems_query(fields: &Fields, alternatives: &[Alternative]) -> Option<Box<dyn Query>> {
    let clauses: Vec<Box<dyn Query>> = distinct_stems(alternatives)
        .into_iter()
        .map(|(stem, _)| term_query(fields.stem, stem))
        .collect();
    (!clauses.is_empty()).then(|| either(clauses))
}

/// The words of every alternative, each as written (`text`) and in any form (`stem`), as one
/// union of term queries (which the engine prunes block by block); `None` without words.
fn words_query(fields: &Fields, alternatives: &[Alternative]) -> Option<Box<dyn Query>> {
    let mut terms: Vec<Term> = Vec::new();
    for alternative in alternatives {
        for (word, stem) in alternative.words.iter().zip(&alternative.stems) {
            for term in [
                Term::from_field_text(fields.text, word),
                Term::from_field_text(fields.stem, stem),
            ] {
                if !terms.contains(&term) {
                    terms.push(term);
                }
            }
        }
    }
    let clauses: Vec<Box<dyn Query>> = terms
        .into_iter()
        .map(|t| -> Box<dyn Query> { Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)) })
        .collect();
    (!clauses.is_empty()).then(|| either(clauses))
}

/// What the boosts look for: each quoted phrase as written, and pairs of consecutive words of
/// the query close together, with the weight each adds when found.
struct Boosts {
    /// The distinct words (as written) the boosts need the positions of.
    words: Vec<String>,
    /// (indexes into `words`, the slop, the score added when found).
    patterns: Vec<(Vec<usize>, u32, f32)>,
}

impl Boosts {
    /// `None` when there is nothing to look for.
    fn of(segments: &Segments, alternatives: &[Alternative]) -> Option<Boosts> {
        let (searcher, fields) = (segments.searcher, &segments.fields);
        let mut boosts = Boosts {
            words: Vec::new(),
            patterns: Vec::new(),
        };
        let events = segments.events();
        let mut add = |phrase: &[String], slop: u32, boost: f32| {
            let mut idf = 0.0;
            let mut at = Vec::new();
            for word in phrase {
                let docs = searcher
                    .doc_freq(&Term::from_field_text(fields.text, word))
                    .unwrap_or(0);
                idf += inverse_document_frequency(docs, events);
                at.push(match boosts.words.iter().position(|w| w == word) {
                    Some(i) => i,
                    None => {
                        boosts.words.push(word.clone());
                        boosts.words.len() - 1
                    }
                });
            }
            boosts.patterns.push((at, slop, boost * idf));
        };
        for alternative in alternatives {
            for phrase in &alternative.phrases {
                add(phrase, 0, PHRASE_BOOST);
            }
            for pair in alternative.words.windows(2).take(MAX_PROXIMITY_PAIRS) {
                add(pair, PROXIMITY_SLOP, PROXIMITY_BOOST);
            }
        }
        (!boosts.patterns.is_empty()).then_some(boosts)
    }

    /// The score a document adds, from its words' positions (`None`: the word is not in it).
    fn score(&self, positions: &[Option<Vec<u32>>]) -> f32 {
        self.patterns
            .iter()
            .filter(|(at, slop, _)| found(at, *slop, positions))
            .map(|(_, _, boost)| boost)
            .sum()
    }
}

/// Whether the words at `at` occur in order, each within `slop` positions of the one before
/// (`slop` 0: as a phrase), or, for two words, in either order within `slop`.
fn found(at: &[usize], slop: u32, positions: &[Option<Vec<u32>>]) -> bool {
    let lists: Option<Vec<&Vec<u32>>> = at.iter().map(|i| positions[*i].as_ref()).collect();
    let Some(lists) = lists else {
        return false;
    };
    let Some((first, rest)) = lists.split_first() else {
        return false;
    };
    first.iter().any(|&start| {
        let mut at = start;
        rest.iter().all(|list| {
            let next = if slop == 0 {
                list.binary_search(&(at + 1)).ok().map(|_| at + 1)
            } else {
                list.iter()
                    .copied()
                    .find(|&p| p != at && p.abs_diff(at) <= slop + 1)
            };
            next.map(|p| at = p).is_some()
        })
    })
}

/// Adds the boosts' scores (weighed as the candidate is) to each candidate: each boost word's
/// postings sought to each candidate of a segment in document order, its positions read there.
fn add_boosts(
    segments: &Segments,
    boosts: &Boosts,
    filter: &Filter,
    by_file: &mut ByFile,
) -> Result<(), RecallError> {
    let fields = &segments.fields;
    let mut by_segment: FxHashMap<SegmentOrdinal, Vec<&mut Candidate>> = FxHashMap::default();
    for candidate in by_file.values_mut().flatten() {
        by_segment
            .entry(candidate.doc.segment_ord)
            .or_default()
            .push(candidate);
    }
    let readers = segments.searcher.segment_readers();
    for (ord, mut candidates) in by_segment {
        let reader = &readers[ord as usize];
        let columns = segments
            .columns(ord as usize, reader)
            .map_err(RecallError::corrupt)?;
        let index = reader
            .inverted_index(fields.text)
            .map_err(RecallError::corrupt)?;
        let mut postings = Vec::with_capacity(boosts.words.len());
        for word in &boosts.words {
            let term = Term::from_field_text(fields.text, word);
            postings.push(
                index
                    .read_postings(&term, IndexRecordOption::WithFreqsAndPositions)
                    .map_err(RecallError::corrupt)?,
            );
        }
        candidates.sort_by_key(|c| c.doc.doc_id);
        let mut positions: Vec<Option<Vec<u32>>> = vec![None; boosts.words.len()];
        for candidate in candidates {
            let doc = candidate.doc.doc_id;
            for (list, at) in postings.iter_mut().zip(positions.iter_mut()) {
                *at = None;
                let Some(list) = list else {
                    continue;
                };
                if list.doc() < doc {
                    list.seek(doc);
                }
                if list.doc() == doc {
                    let mut found = Vec::new();
                    list.positions(&mut found);
                    *at = Some(found);
                }
            }
            let boost = boosts.score(&positions);
            if boost > 0.0 {
                if let Some((_, weighed)) = filter.weigh(columns, doc, boost) {
                    candidate.score += weighed;
                }
            }
        }
    }
    Ok(())
}

/// A file's best candidate.
#[derive(Debug, Clone, Copy)]
struct FileBest {
    file: u64,
    candidate: Candidate,
}

/// The best `limit` files for one query, by their best document (block-max pruning).
fn best_files(
    segments: &Segments,
    query: &dyn Query,
    filter: &Filter,
    limit: usize,
) -> Result<Vec<FileBest>, RecallError> {
    let weight = segments.weight(query, true)?;
    let mut top = TopFiles::new(limit, &filter.updated_ms);
    let bound = filter.weight_bound();
    for found in segments.matching(weight.as_ref()) {
        // The pruning runs on a scorer of its own (the engine's block-max one).
        let Matching {
            ord,
            reader,
            columns,
            ..
        } = found?;
        let most = bound.at(columns.ts.max_value());
        let alive = reader.alive_bitset();
        weight
            .for_each_pruning(top.bm25_threshold(most), reader, &mut |doc, bm25| {
                if alive.is_some_and(|a| a.is_deleted(doc)) {
                    return top.bm25_threshold(most);
                }
                if let Some((file, score)) = filter.weigh(columns, doc, bm25) {
                    let doc = DocAddress::new(ord, doc);
                    // A file ranks by its best score alone: which of its equal documents is
                    // its best does not matter here, and its seq is not read.
                    let seq = 0;
                    top.offer(FileBest {
                        file,
                        candidate: Candidate { doc, score, seq },
                    });
                }
                top.bm25_threshold(most)
            })
            .map_err(RecallError::corrupt)?;
    }
    Ok(top.into_best())
}

/// The best `limit` files seen so far, best first, and each file's best candidate.
struct TopFiles<'a> {
    limit: usize,
    updated_ms: &'a [i64],
    best: FxHashMap<u64, Candidate>,
    top: Vec<FileBest>,
}

impl<'a> TopFiles<'a> {
    fn new(limit: usize, updated_ms: &'a [i64]) -> TopFiles<'a> {
        TopFiles {
            limit,
            updated_ms,
            best: FxHashMap::default(),
            top: Vec::with_capacity(limit + 1),
        }
    }

    fn offer(&mut self, offered: FileBest) {
        let best = self.best.entry(offered.file).or_insert(offered.candidate);
        if offered.candidate.better_than(best) {
            *best = offered.candidate;
        } else if *best != offered.candidate {
            return;
        }
        let offered = FileBest {
            file: offered.file,
            candidate: *best,
        };
        match self.top.iter_mut().find(|t| t.file == offered.file) {
            Some(kept) => *kept = offered,
            None => self.top.push(offered),
        }
        let updated = |file: u64| self.updated_ms.get(file as usize).copied().unwrap_or(0);
        self.top.sort_by(|a, b| {
            b.candidate
                .score
                .partial_cmp(&a.candidate.score)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| updated(b.file).cmp(&updated(a.file)))
                .then(a.file.cmp(&b.file))
        });
        self.top.truncate(self.limit);
    }

    /// The BM25 score a document must pass to be able to enter the top, when its weight is at
    /// most `most`. Slightly under the exact bound: a tie with the last file may still win on
    /// its date.
    fn bm25_threshold(&self, most: f32) -> Score {
        if self.top.len() < self.limit {
            return Score::MIN;
        }
        let last = self.top[self.top.len() - 1].candidate.score;
        last / most * (1.0 - 1e-4)
    }

    fn into_best(self) -> Vec<FileBest> {
        self.top
    }
}

/// A search's view of the index: the searcher, and each segment's fast fields, opened once
/// and only for segments where a query matches (opening a column reads its block index).
pub struct Segments<'a> {
    searcher: &'a Searcher,
    fields: Fields,
    statistics: EventStatistics<'a>,
    columns: Vec<OnceLock<Columns>>,
    ranges: Vec<OnceLock<Vec<FileRange>>>,
}

struct Columns {
    file: Column<u64>,
    flags: Column<u64>,
    ts: Column<i64>,
}

/// A segment where a query matches.
struct Matching<'s> {
    ord: SegmentOrdinal,
    reader: &'s SegmentReader,
    columns: &'s Columns,
    scorer: Box<dyn tantivy::query::Scorer>,
}

impl<'a> Segments<'a> {
    pub fn new(searcher: &'a Searcher, fields: &Fields) -> Segments<'a> {
        Segments {
            searcher,
            fields: *fields,
            statistics: EventStatistics::of(searcher, fields),
            columns: searcher
                .segment_readers()
                .iter()
                .map(|_| OnceLock::new())
                .collect(),
            ranges: searcher
                .segment_readers()
                .iter()
                .map(|_| OnceLock::new())
                .collect(),
        }
    }

    pub fn searcher(&self) -> &'a Searcher {
        self.searcher
    }

    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// The live event documents (the part documents left out).
    pub fn events(&self) -> u64 {
        self.statistics.live_events
    }

    fn weight(&self, query: &dyn Query, scoring: bool) -> Result<Box<dyn Weight>, RecallError> {
        let scoring = if scoring {
            EnableScoring::enabled_from_statistics_provider(&self.statistics, self.searcher)
        } else {
            EnableScoring::disabled_from_searcher(self.searcher)
        };
        query.weight(scoring).map_err(RecallError::corrupt)
    }

    /// The segments where `weight` matches some document, with their columns and the scorer
    /// that found it (on its first match).
    fn matching<'s>(
        &'s self,
        weight: &'s dyn Weight,
    ) -> impl Iterator<Item = Result<Matching<'s>, RecallError>> + 's {
        self.searcher
            .segment_readers()
            .iter()
            .enumerate()
            .filter_map(move |(ord, reader)| {
                let found = weight.scorer(reader, 1.0).and_then(|scorer| {
                    if scorer.doc() == TERMINATED {
                        return Ok(None);
                    }
                    let columns = self.columns(ord, reader)?;
                    Ok(Some(Matching {
                        ord: ord as SegmentOrdinal,
                        reader,
                        columns,
                        scorer,
                    }))
                });
                found.map_err(RecallError::corrupt).transpose()
            })
    }

    fn file_ranges(&self, ord: usize, reader: &SegmentReader) -> Result<&[FileRange], RecallError> {
        let cell = &self.ranges[ord];
        if let Some(ranges) = cell.get() {
            return Ok(ranges);
        }
        let columns = self.columns(ord, reader).map_err(RecallError::corrupt)?;
        let found = file_ranges(reader, &self.fields, columns).map_err(RecallError::corrupt)?;
        Ok(cell.get_or_init(|| found))
    }

    /// The postings of `term` in the segment `ord`, with the segment's columns; `None` when the
    /// segment does not hold the term.
    fn postings(
        &self,
        ord: usize,
        reader: &SegmentReader,
        term: &Term,
        option: IndexRecordOption,
    ) -> Result<Option<(SegmentPostings, &Columns)>, RecallError> {
        let index = reader
            .inverted_index(term.field())
            .map_err(RecallError::corrupt)?;
        let Some(postings) = index
            .read_postings(term, option)
            .map_err(RecallError::corrupt)?
        else {
            return Ok(None);
        };
        let columns = self.columns(ord, reader).map_err(RecallError::corrupt)?;
        Ok(Some((postings, columns)))
    }

    fn columns(&self, ord: usize, reader: &SegmentReader) -> tantivy::Result<&Columns> {
        let cell = &self.columns[ord];
        if let Some(columns) = cell.get() {
            return Ok(columns);
        }
        let opened = Columns::open(reader, &self.fields)?;
        Ok(cell.get_or_init(|| opened))
    }
}

/// BM25's statistics over the event documents alone: the part documents hold none of the
/// fields events are scored on, but would count as documents.
struct EventStatistics<'a> {
    searcher: &'a Searcher,
    /// Every event document, deleted ones too (as the engine counts documents).
    all_events: u64,
    live_events: u64,
}

impl<'a> EventStatistics<'a> {
    fn of(searcher: &'a Searcher, fields: &Fields) -> EventStatistics<'a> {
        let (mut parts, mut live_parts) = (0, 0);
        for reader in searcher.segment_readers() {
            let (all, live) = part_documents(reader, fields);
            parts += all;
            live_parts += live;
        }
        let max_docs: u64 = searcher
            .segment_readers()
            .iter()
            .map(|r| u64::from(r.max_doc()))
            .sum();
        EventStatistics {
            searcher,
            all_events: max_docs.saturating_sub(parts),
            live_events: searcher.num_docs().saturating_sub(live_parts),
        }
    }
}

/// A segment's part documents: all of them, and the live ones.
fn part_documents(reader: &SegmentReader, fields: &Fields) -> (u64, u64) {
    let Ok(index) = reader.inverted_index(fields.part) else {
        return (0, 0);
    };
    let alive = reader.alive_bitset();
    let (mut all, mut live) = (0, 0);
    for kind in [PART_ON_BRANCH, PART_OFF_BRANCH] {
        let term = Term::from_field_u64(fields.part, kind);
        let Ok(Some(mut postings)) = index.read_postings(&term, IndexRecordOption::Basic) else {
            continue;
        };
        all += u64::from(postings.doc_freq());
        let mut doc = postings.doc();
        while doc != TERMINATED {
            if !alive.is_some_and(|a| a.is_deleted(doc)) {
                live += 1;
            }
            doc = postings.advance();
        }
    }
    (all, live)
}

impl Bm25StatisticsProvider for EventStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.searcher.total_num_tokens(field)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.all_events)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        self.searcher.doc_freq(term)
    }
}

impl Columns {
    fn open(reader: &SegmentReader, fields: &Fields) -> tantivy::Result<Columns> {
        let schema = reader.schema();
        let name = |f| schema.get_field_name(f).to_string();
        let fast = reader.fast_fields();
        Ok(Columns {
            file: fast.u64(&name(fields.file))?,
            flags: fast.u64(&name(fields.flags))?,
            ts: fast.i64(&name(fields.ts))?,
        })
    }
}

/// Every document of `files` that holds some of the alternatives' words, up to `per_file` best
/// of each file. The words' scorer is sought to each file's ranges of documents in a segment
/// (`doc_ranges`), so only those files' documents are read and scored.
fn run(
    segments: &Segments,
    words: &dyn Query,
    filter: &Filter,
    per_file: usize,
    files: &[u64],
) -> Result<ByFile, RecallError> {
    let weight = segments.weight(words, true)?;
    let bound = filter.weight_bound();
    let mut by_file = ByFile::default();
    for (ord, reader) in segments.searcher.segment_readers().iter().enumerate() {
        let ranges = doc_ranges(reader, &segments.fields, files)?;
        if ranges.is_empty() {
            continue;
        }
        let mut scorer = weight.scorer(reader, 1.0).map_err(RecallError::corrupt)?;
        let columns = segments
            .columns(ord, reader)
            .map_err(RecallError::corrupt)?;
        let alive = reader.alive_bitset();
        let most = bound.at(columns.ts.max_value());
        // Opened here, for the segments holding the chosen sessions only.
        let seqs = reader
            .fast_fields()
            .u64(reader.schema().get_field_name(segments.fields.seq))
            .map_err(RecallError::corrupt)?;
        for (start, end, f) in ranges {
            let file = files[f];
            let mut doc = scorer.doc();
            if doc < start {
                doc = scorer.seek(start);
            }
            if doc >= end || !filter.in_scope(file) {
                continue;
            }
            let list = by_file.entry(file).or_default();
            while doc < end {
                if !alive.is_some_and(|a| a.is_deleted(doc)) {
                    let bm25 = scorer.score();
                    // A document that cannot enter its file's full list is not weighed.
                    let hopeless = list.len() == per_file
                        && list
                            .last()
                            .is_some_and(|last| bm25 * most * (1.0 + 1e-4) < last.score);
                    let weighed = (!hopeless)
                        .then(|| filter.weighed(columns, doc, file, bm25))
                        .flatten();
                    if let Some(score) = weighed {
                        let candidate = Candidate {
                            doc: DocAddress::new(ord as SegmentOrdinal, doc),
                            score,
                            seq: seqs.first(doc).unwrap_or(0),
                        };
                        keep_best(list, candidate, per_file);
                    }
                }
                doc = scorer.advance();
            }
        }
    }
    by_file.retain(|_, list| !list.is_empty());
    for list in by_file.values_mut() {
        sort_best_first(list);
    }
    Ok(by_file)
}

/// [`run`] over `files`, half of them on another thread: scoring the pool's events is most of
/// a search of common words.
fn run_in_halves(
    segments: &Segments,
    words: &dyn Query,
    filter: &Filter,
    per_file: usize,
    files: &[u64],
) -> Result<ByFile, RecallError> {
    if files.len() < 2 {
        return run(segments, words, filter, per_file, files);
    }
    // Alternate files, so that each half gets as many of the best as the other.
    let half = |parity: usize| files.iter().skip(parity).step_by(2).copied().collect();
    let (first, second): (Vec<u64>, Vec<u64>) = (half(0), half(1));
    std::thread::scope(|scope| {
        let other = scope.spawn(|| run(segments, words, filter, per_file, &second));
        let mut by_file = run(segments, words, filter, per_file, &first)?;
        let others = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        by_file.extend(others);
        Ok(by_file)
    })
}

/// Adds a candidate to a file's list of at most `per_file` (sorted once full).
fn keep_best(list: &mut Vec<Candidate>, candidate: Candidate, per_file: usize) {
    if list.len() < per_file {
        list.push(candidate);
        if list.len() == per_file {
            sort_best_first(list);
        }
    } else if let Some(last) = list.last() {
        if candidate.better_than(last) {
            list.pop();
            let at = list
                .iter()
                .position(|c| candidate.better_than(c))
                .unwrap_or(list.len());
            list.insert(at, candidate);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recency_halves_its_bonus_every_30_days() {
        let recency = |age| recency(age, RECENCY_BONUS);
        assert!((recency(0) - 1.5).abs() < 1e-6);
        assert!((recency(30 * 86_400_000) - 1.25).abs() < 1e-6);
        assert!(recency(3650 * 86_400_000) < 1.001);
        assert!((recency(-5) - 1.5).abs() < 1e-6);
    }

    #[test]
    fn people_rank_over_tools_and_the_assistant_as_the_user() {
        assert_eq!(role_boost(Role::User), role_boost(Role::Assistant));
        assert!(role_boost(Role::Assistant) > role_boost(Role::Tool));
    }
}
