//! Matching and ranking: BM25 from the engine × a role boost × a recency factor (× a project
//! boost), hits grouped by session, sessions ranked by their best hit.
//!
//! Documents that hold every word (and phrase) of some alternative rank above all documents
//! that hold only some of them (searched only for alternatives of several words, and only when
//! the first kind fills fewer sessions than asked for).

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use tantivy::columnar::Column;
use tantivy::query::Weight;
use tantivy::query::{
    BooleanQuery, ConstScoreQuery, EnableScoring, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::{
    DocAddress, DocId, DocSet, Score, Searcher, SegmentOrdinal, SegmentReader, Term,
    COLLECT_BLOCK_BUFFER_LEN, TERMINATED,
};

use super::error::RecallError;
use super::query::Alternative;
use super::schema::{Fields, Flags};
use crate::history::Role;

/// Role boosts: what people and the model said ranks over tool output.
pub fn role_boost(role: Role) -> f32 {
    match role {
        Role::User => 1.5,
        Role::Assistant => 1.25,
        Role::Context => 1.0,
        Role::Tool => 0.75,
    }
}

/// Recency: `1 + 0.5 · 2^(−age / 30 days)`, from 1.5 for an event of today down to 1.
pub fn recency(age_ms: i64) -> f32 {
    const HALF_LIFE_DAYS: f64 = 30.0;
    let days = (age_ms.max(0) as f64) / 86_400_000.0;
    (1.0 + 0.5 * (-days / HALF_LIFE_DAYS).exp2()) as f32
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
}

impl Filter {
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
        let (role, ts) = self.admitted(columns, doc)?;
        let mut score = bm25 * role_boost(role) * recency(self.now_ms - ts);
        if self.boosted.get(file as usize).copied().unwrap_or(false) {
            score *= PROJECT_BOOST;
        }
        Some((file, score))
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
            None => role_boost(Role::User),
        };
        let project = if self.boosted.iter().any(|b| *b) {
            PROJECT_BOOST
        } else {
            1.0
        };
        WeightBound {
            role_and_project: role * project,
            now_ms: self.now_ms,
        }
    }
}

/// The largest role and project weight a document can get, to bound its final score by.
#[derive(Debug, Clone, Copy)]
struct WeightBound {
    role_and_project: f32,
    now_ms: i64,
}

impl WeightBound {
    /// The bound in a segment whose newest event is from `newest_ts` (recency only falls with
    /// age).
    fn at(&self, newest_ts: i64) -> f32 {
        self.role_and_project * recency(self.now_ms - newest_ts)
    }
}

/// A document that matched, with its rank key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub doc: DocAddress,
    /// 1: it holds every word of an alternative; 0: some of them.
    pub tier: u8,
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
        (other.tier, other.score)
            .partial_cmp(&(self.tier, self.score))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(other.seq.cmp(&self.seq))
    }
}

/// The best candidates of every matching file, best first.
pub type ByFile = FxHashMap<u64, Vec<Candidate>>;

/// The sessions a search shows, best first: the `limit` files whose best candidate ranks
/// highest (ties: the more recently updated session, then the lower file id), each with up to
/// `per_file` of its best candidates.
///
/// Finding them skips what cannot enter the top: the engine's block-max pruning runs on a
/// bound of each document's final score (its BM25 score times the largest role, recency and
/// project weight it could get), so a common word does not score every document that holds it.
/// Only then are the chosen files' candidates collected, each file's documents alone.
pub fn top_files(
    segments: &Segments,
    alternatives: &[Alternative],
    filter: &Filter,
    limit: usize,
    per_file: usize,
) -> Result<Vec<(u64, Vec<Candidate>)>, RecallError> {
    let fields = &segments.fields;
    let full = either(alternatives.iter().map(|a| full_query(fields, a)).collect());
    let partial: Vec<Box<dyn Query>> = alternatives
        .iter()
        .filter_map(|a| partial_query(fields, a))
        .collect();
    let partial = (!partial.is_empty()).then(|| either(partial));
    let mut best = best_files(segments, full.as_ref(), 1, filter, limit)?;
    if let Some(partial) = &partial {
        if best.len() < limit {
            // Every file with a document of the first kind is in `best`: the rest rank below.
            let rest = filter.without(best.iter().map(|b| b.file));
            let more = best_files(segments, partial.as_ref(), 0, &rest, limit - best.len())?;
            best.extend(more);
        }
    }
    let chosen: Vec<u64> = best.iter().map(|b| b.file).collect();
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    // Only the files of the first kind hold a document of it.
    let whole: Vec<u64> = best
        .iter()
        .filter(|b| b.candidate.tier == 1)
        .map(|b| b.file)
        .collect();
    let mut by_file = ByFile::default();
    if !whole.is_empty() {
        by_file = run(segments, only(full, fields, &whole), 1, filter, per_file)?;
    }
    if let Some(partial) = partial {
        // A file with `per_file` candidates of the first kind shows none of the second.
        let wanting: Vec<u64> = chosen
            .iter()
            .copied()
            .filter(|file| by_file.get(file).map_or(0, Vec::len) < per_file)
            .collect();
        if !wanting.is_empty() {
            let query = only(partial, fields, &wanting);
            merge(
                &mut by_file,
                run(segments, query, 0, filter, per_file)?,
                per_file,
            );
        }
    }
    Ok(chosen
        .into_iter()
        .map(|file| (file, by_file.remove(&file).unwrap_or_default()))
        .collect())
}

/// How many files hold a document that counts, of either kind.
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

/// Queries whose matches together are the documents that hold all or some of an
/// alternative: each word of an alternative without phrases, else its phrases (its words are
/// then optional).
fn any_queries(fields: &Fields, alternatives: &[Alternative]) -> Vec<Box<dyn Query>> {
    let mut queries: Vec<Box<dyn Query>> = Vec::new();
    for alternative in alternatives {
        if alternative.phrases.is_empty() {
            queries.extend(alternative.words.iter().map(|w| term_query(fields, w)));
        } else {
            let phrases = alternative.phrases.iter();
            queries.push(Box::new(BooleanQuery::new(
                phrases
                    .map(|p| (Occur::Must, phrase_query(fields, p)))
                    .collect(),
            )));
        }
    }
    queries
}

pub fn sort_best_first(list: &mut [Candidate]) {
    list.sort_by(Candidate::rank);
}

fn merge(into: &mut ByFile, more: ByFile, per_file: usize) {
    for (file, candidates) in more {
        let list = into.entry(file).or_default();
        for candidate in candidates {
            if !list.iter().any(|c| c.doc == candidate.doc) {
                list.push(candidate);
            }
        }
        sort_best_first(list);
        list.truncate(per_file);
    }
}

fn either(mut queries: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    if queries.len() == 1 {
        return queries.remove(0);
    }
    Box::new(BooleanQuery::new(
        queries.into_iter().map(|q| (Occur::Should, q)).collect(),
    ))
}

/// `query` restricted to the documents of `files`, scored as `query` alone.
fn only(query: Box<dyn Query>, fields: &Fields, files: &[u64]) -> Box<dyn Query> {
    let files = either(
        files
            .iter()
            .map(|f| -> Box<dyn Query> {
                Box::new(TermQuery::new(
                    Term::from_field_u64(fields.file, *f),
                    IndexRecordOption::Basic,
                ))
            })
            .collect(),
    );
    Box::new(BooleanQuery::new(vec![
        (Occur::Must, query),
        (Occur::Must, Box::new(ConstScoreQuery::new(files, 0.0))),
    ]))
}

fn term_query(fields: &Fields, word: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(fields.text, word),
        IndexRecordOption::WithFreqs,
    ))
}

fn phrase_query(fields: &Fields, phrase: &[String]) -> Box<dyn Query> {
    let terms = phrase
        .iter()
        .map(|w| Term::from_field_text(fields.text, w))
        .collect();
    Box::new(PhraseQuery::new(terms))
}

/// Every word and phrase of the alternative.
fn full_query(fields: &Fields, alternative: &Alternative) -> Box<dyn Query> {
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = alternative
        .words
        .iter()
        .map(|w| (Occur::Must, term_query(fields, w)))
        .collect();
    clauses.extend(
        alternative
            .phrases
            .iter()
            .map(|p| (Occur::Must, phrase_query(fields, p))),
    );
    if clauses.len() == 1 {
        return clauses.remove(0).1;
    }
    Box::new(BooleanQuery::new(clauses))
}

/// Some of the words (and every phrase), for alternatives where that differs from the full
/// query.
fn partial_query(fields: &Fields, alternative: &Alternative) -> Option<Box<dyn Query>> {
    let words = alternative.words.len();
    let phrases = alternative.phrases.len();
    if words == 0 || (words == 1 && phrases == 0) {
        return None;
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = alternative
        .words
        .iter()
        .map(|w| (Occur::Should, term_query(fields, w)))
        .collect();
    clauses.extend(
        alternative
            .phrases
            .iter()
            .map(|p| (Occur::Must, phrase_query(fields, p))),
    );
    Some(Box::new(BooleanQuery::new(clauses)))
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
    tier: u8,
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
                        candidate: Candidate {
                            doc,
                            tier,
                            score,
                            seq,
                        },
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
            (b.candidate.tier, b.candidate.score)
                .partial_cmp(&(a.candidate.tier, a.candidate.score))
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

    fn weight(&self, query: &dyn Query, scoring: bool) -> Result<Box<dyn Weight>, RecallError> {
        let scoring = if scoring {
            EnableScoring::enabled_from_searcher(self.searcher)
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

    fn columns(&self, ord: usize, reader: &SegmentReader) -> tantivy::Result<&Columns> {
        let cell = &self.columns[ord];
        if let Some(columns) = cell.get() {
            return Ok(columns);
        }
        let opened = Columns::open(reader, &self.fields)?;
        Ok(cell.get_or_init(|| opened))
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

/// Every matching document (of the few files a query is restricted to), up to `per_file` best
/// of each file.
fn run(
    segments: &Segments,
    query: Box<dyn Query>,
    tier: u8,
    filter: &Filter,
    per_file: usize,
) -> Result<ByFile, RecallError> {
    let weight = segments.weight(query.as_ref(), true)?;
    let mut by_file = ByFile::default();
    for found in segments.matching(weight.as_ref()) {
        let Matching {
            ord,
            reader,
            columns,
            mut scorer,
        } = found?;
        let alive = reader.alive_bitset();
        // Opened here, for the segments holding the chosen sessions' matches only.
        let seqs = reader
            .fast_fields()
            .u64(reader.schema().get_field_name(segments.fields.seq))
            .map_err(RecallError::corrupt)?;
        let mut doc = scorer.doc();
        while doc != TERMINATED {
            let deleted = alive.is_some_and(|a| a.is_deleted(doc));
            let weighed = (!deleted)
                .then(|| filter.weigh(columns, doc, scorer.score()))
                .flatten();
            if let Some((file, score)) = weighed {
                let candidate = Candidate {
                    doc: DocAddress::new(ord, doc),
                    tier,
                    score,
                    seq: seqs.first(doc).unwrap_or(0),
                };
                keep_best(by_file.entry(file).or_default(), candidate, per_file);
            }
            doc = scorer.advance();
        }
    }
    for list in by_file.values_mut() {
        sort_best_first(list);
    }
    Ok(by_file)
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
        assert!((recency(0) - 1.5).abs() < 1e-6);
        assert!((recency(30 * 86_400_000) - 1.25).abs() < 1e-6);
        assert!(recency(3650 * 86_400_000) < 1.001);
        assert!((recency(-5) - 1.5).abs() < 1e-6);
    }

    #[test]
    fn people_rank_over_tools() {
        assert!(role_boost(Role::User) > role_boost(Role::Assistant));
        assert!(role_boost(Role::Assistant) > role_boost(Role::Tool));
    }
}
