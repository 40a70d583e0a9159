//! Matching and ranking: BM25 from the engine × a role boost × a recency factor (× a project
//! boost), hits grouped by session, sessions ranked by their best hit.
//!
//! A search runs the engine twice at most: once for documents that hold every word (and
//! phrase) of some alternative, once — only for alternatives of several words — for documents
//! that hold some of them. Hits of the first kind always rank above hits of the second.

use rustc_hash::FxHashMap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, Score, Searcher, SegmentOrdinal, SegmentReader, Term};

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
    pub roles: Option<Vec<Role>>,
    pub all_branches: bool,
    pub since_ms: Option<i64>,
    pub now_ms: i64,
}

/// A document that matched, with its rank key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub doc: DocAddress,
    /// 1: it holds every word of an alternative; 0: some of them.
    pub tier: u8,
    pub score: f32,
}

impl Candidate {
    pub fn better_than(&self, other: &Candidate) -> bool {
        (self.tier, self.score) > (other.tier, other.score)
    }
}

/// The best candidates of every matching file, best first.
pub type ByFile = FxHashMap<u64, Vec<Candidate>>;

/// Runs the search and returns up to `per_file` candidates per matching file.
pub fn candidates(
    searcher: &Searcher,
    fields: &Fields,
    alternatives: &[Alternative],
    filter: &Filter,
    per_file: usize,
) -> Result<ByFile, RecallError> {
    let full: Vec<Box<dyn Query>> = alternatives.iter().map(|a| full_query(fields, a)).collect();
    let partial: Vec<Box<dyn Query>> = alternatives
        .iter()
        .filter_map(|a| partial_query(fields, a))
        .collect();
    let mut by_file = run(searcher, fields, either(full), 1, filter, per_file)?;
    if !partial.is_empty() {
        let more = run(searcher, fields, either(partial), 0, filter, per_file)?;
        for (file, candidates) in more {
            let list = by_file.entry(file).or_default();
            for candidate in candidates {
                if !list.iter().any(|c| c.doc == candidate.doc) {
                    list.push(candidate);
                }
            }
        }
        for list in by_file.values_mut() {
            sort_best_first(list);
            list.truncate(per_file);
        }
    }
    Ok(by_file)
}

pub fn sort_best_first(list: &mut [Candidate]) {
    list.sort_by(|a, b| {
        (b.tier, b.score)
            .partial_cmp(&(a.tier, a.score))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
}

fn either(mut queries: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    if queries.len() == 1 {
        return queries.remove(0);
    }
    Box::new(BooleanQuery::new(
        queries.into_iter().map(|q| (Occur::Should, q)).collect(),
    ))
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

fn run(
    searcher: &Searcher,
    fields: &Fields,
    query: Box<dyn Query>,
    tier: u8,
    filter: &Filter,
    per_file: usize,
) -> Result<ByFile, RecallError> {
    let collector = GroupCollector {
        fields: *fields,
        filter,
        tier,
        per_file,
    };
    searcher
        .search(query.as_ref(), &collector)
        .map_err(RecallError::corrupt)
}

struct GroupCollector<'a> {
    fields: Fields,
    filter: &'a Filter,
    tier: u8,
    per_file: usize,
}

struct GroupSegment {
    segment: SegmentOrdinal,
    file: Column<u64>,
    flags: Column<u64>,
    ts: Column<i64>,
    filter: Filter,
    tier: u8,
    per_file: usize,
    groups: ByFile,
}

impl Collector for GroupCollector<'_> {
    type Fruit = ByFile;
    type Child = GroupSegment;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<GroupSegment> {
        let schema = reader.schema();
        let name = |f| schema.get_field_name(f).to_string();
        let fast = reader.fast_fields();
        Ok(GroupSegment {
            segment,
            file: fast.u64(&name(self.fields.file))?,
            flags: fast.u64(&name(self.fields.flags))?,
            ts: fast.i64(&name(self.fields.ts))?,
            filter: self.filter.clone(),
            tier: self.tier,
            per_file: self.per_file,
            groups: ByFile::default(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<ByFile>) -> tantivy::Result<ByFile> {
        let mut merged = ByFile::default();
        for fruit in fruits {
            for (file, mut list) in fruit {
                let into = merged.entry(file).or_default();
                into.append(&mut list);
                sort_best_first(into);
                into.truncate(self.per_file);
            }
        }
        Ok(merged)
    }
}

impl SegmentCollector for GroupSegment {
    type Fruit = ByFile;

    fn collect(&mut self, doc: DocId, score: Score) {
        let Some(file) = self.file.first(doc) else {
            return;
        };
        if !self
            .filter
            .files
            .get(file as usize)
            .copied()
            .unwrap_or(false)
        {
            return;
        }
        let flags = self.flags.first(doc).unwrap_or(0);
        let role = Flags::role_of(flags);
        if !self.filter.all_branches && !Flags::on_branch_of(flags) {
            return;
        }
        if let Some(roles) = &self.filter.roles {
            if !roles.contains(&role) {
                return;
            }
        }
        let ts = self.ts.first(doc).unwrap_or(0);
        if self.filter.since_ms.is_some_and(|since| ts < since) {
            return;
        }
        let mut score = score * role_boost(role) * recency(self.filter.now_ms - ts);
        if self
            .filter
            .boosted
            .get(file as usize)
            .copied()
            .unwrap_or(false)
        {
            score *= PROJECT_BOOST;
        }
        let candidate = Candidate {
            doc: DocAddress::new(self.segment, doc),
            tier: self.tier,
            score,
        };
        let list = self.groups.entry(file).or_default();
        if list.len() < self.per_file {
            list.push(candidate);
            if list.len() == self.per_file {
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

    fn harvest(mut self) -> ByFile {
        for list in self.groups.values_mut() {
            sort_best_first(list);
        }
        self.groups
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
