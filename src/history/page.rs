//! `list` and `search`: paging with exclusive seq anchors, conversation-view folding, previews,
//! and the byte budget.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use super::prefilter::{Prefilter, RawScan, Scanner};
use super::project::{Event, History};
use super::{HistoryError, Role, WindowsResult};
use crate::text::{self, LiteralMatcher};
use crate::wire::{self, DEFAULT_PAGE_LIMIT, DEFAULT_PREVIEW_CHARS};

/// Parameters shared by `list` and `search`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListParams {
    pub limit: usize,
    /// `None`: the conversation view (list) or every role (search).
    pub roles: Option<Vec<Role>>,
    /// Exclusive upper seq bound.
    pub before: Option<u64>,
    /// Exclusive lower seq bound.
    pub after: Option<u64>,
    pub window_id: Option<String>,
    pub max_chars_per_item: usize,
}

impl Default for ListParams {
    fn default() -> Self {
        ListParams {
            limit: DEFAULT_PAGE_LIMIT,
            roles: None,
            before: None,
            after: None,
            window_id: None,
            max_chars_per_item: DEFAULT_PREVIEW_CHARS,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchParams {
    /// Non-empty strings, combined with OR.
    pub queries: Vec<String>,
    pub list: ListParams,
}

/// One event row.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Row {
    pub seq: u64,
    pub window_id: String,
    pub role: Role,
    pub created_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tool_error: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub output_truncated: bool,
    /// Present (possibly null) exactly when `output_truncated` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<Option<String>>,
    pub truncated: bool,
    pub total_chars: usize,
    /// Search rows only: the code-point offset of the earliest match, where `content` starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset_chars: Option<usize>,
    pub content: String,
}

/// Tool and context events folded between conversation rows.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Fold {
    pub folded: bool,
    pub first_seq: u64,
    pub last_seq: u64,
    pub count: usize,
    pub tools: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Item {
    Row(Row),
    Fold(Fold),
}

impl Item {
    fn sort_key(&self) -> u64 {
        match self {
            Item::Row(r) => r.seq,
            Item::Fold(f) => f.first_seq,
        }
    }
}

/// A page of `list` or `search`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Page {
    pub items: Vec<Item>,
    pub older_before: Option<u64>,
    pub newer_after: Option<u64>,
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_lines: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A selected event with, for search, the match offset.
#[derive(Clone, Copy)]
struct Candidate<'h> {
    event: &'h Event,
    match_offset: Option<usize>,
}

impl<'s> History<'s> {
    /// `history windows`: every window oldest first, cut to the budget (`more` counts the rest).
    pub fn windows_result(&self, budget: usize) -> WindowsResult {
        let mut result = WindowsResult {
            session_id: self.session_id().to_string(),
            windows: self.windows.clone(),
            more: None,
            skipped_lines: self.skipped_lines(),
        };
        while wire::to_compact_json(&result).len() > budget && !result.windows.is_empty() {
            // Drop newest windows in halves until the rest fits, then add back one by one.
            let keep = result.windows.len() / 2;
            result.windows.truncate(keep);
            result.more = Some(self.windows.len() - keep);
        }
        while result.windows.len() < self.windows.len() {
            let mut grown = result.clone();
            grown
                .windows
                .push(self.windows[result.windows.len()].clone());
            let remaining = self.windows.len() - grown.windows.len();
            grown.more = (remaining > 0).then_some(remaining);
            if wire::to_compact_json(&grown).len() > budget {
                break;
            }
            result = grown;
        }
        result
    }

    /// `history list`.
    pub fn list(&self, params: &ListParams, budget: usize) -> Result<Page, HistoryError> {
        self.validate(params)?;
        let conversation_view = params.roles.is_none();
        let candidates = self.filtered(params).filter(|e| {
            if conversation_view {
                matches!(e.role, Role::User | Role::Assistant) && !self.document_is_empty(e)
            } else {
                true
            }
        });
        let candidates = candidates.map(|event| Candidate {
            event,
            match_offset: None,
        });
        self.page(params, candidates, conversation_view, budget)
    }

    /// `history search`.
    pub fn search(&self, params: &SearchParams, budget: usize) -> Result<Page, HistoryError> {
        let scan = Scanner::new(&params.queries).map(|s| s.scan(self.session.bytes()));
        self.search_scanned(params, budget, scan.as_ref())
    }

    /// `history search` with the raw-byte scan already done (see [`with_history`]).
    ///
    /// [`with_history`]: super::with_history
    pub fn search_scanned(
        &self,
        params: &SearchParams,
        budget: usize,
        scan: Option<&RawScan>,
    ) -> Result<Page, HistoryError> {
        let matcher = build_matcher(&params.queries)?;
        self.validate(&params.list)?;
        let prefilter = scan.map(|scan| Prefilter::from_scan(self, scan));
        let may_match = move |e: &&Event| prefilter.as_ref().is_none_or(|p| p.may_match(e));
        let candidates = self
            .filtered(&params.list)
            .filter(may_match)
            .filter_map(|event| {
                let document = self.document(event);
                matcher.find_chars(&document).map(|offset| Candidate {
                    event,
                    match_offset: Some(offset),
                })
            });
        self.page(&params.list, candidates, false, budget)
    }

    fn validate(&self, params: &ListParams) -> Result<(), HistoryError> {
        if params.limit == 0 {
            return Err(HistoryError::InvalidParams(
                "limit must be at least 1".into(),
            ));
        }
        if params.max_chars_per_item == 0 {
            return Err(HistoryError::InvalidParams(
                "max_chars_per_item must be at least 1".into(),
            ));
        }
        if params.before == Some(0) || params.after == Some(0) {
            return Err(HistoryError::InvalidParams(
                "before and after must be at least 1".into(),
            ));
        }
        if params.roles.as_ref().is_some_and(|r| r.is_empty()) {
            return Err(HistoryError::InvalidParams(
                "roles must not be empty".into(),
            ));
        }
        if let Some(id) = &params.window_id {
            if !self.windows.iter().any(|w| &w.window_id == id) {
                return Err(HistoryError::UnknownWindow {
                    window_id: id.clone(),
                    known: self.windows.iter().map(|w| w.window_id.clone()).collect(),
                });
            }
        }
        Ok(())
    }

    fn window_index(&self, params: &ListParams) -> Option<usize> {
        let id = params.window_id.as_ref()?;
        self.windows.iter().position(|w| &w.window_id == id)
    }

    /// Events inside the window filter and the exclusive bounds, in seq order, with the roles
    /// filter applied when roles are given.
    fn in_range<'h>(
        &'h self,
        params: &ListParams,
    ) -> impl DoubleEndedIterator<Item = &'h Event> + 'h {
        let window = self.window_index(params);
        let after = params.after.unwrap_or(0);
        let before = params.before.unwrap_or(u64::MAX);
        let from = self.events.partition_point(|e| e.seq <= after);
        let to = self.events.partition_point(|e| e.seq < before).max(from);
        self.events[from..to]
            .iter()
            .filter(move |e| window.is_none_or(|w| e.window == w))
    }

    /// Candidates in growth order: ascending when `after` is given, otherwise newest first.
    fn filtered<'h>(&'h self, params: &ListParams) -> Box<dyn Iterator<Item = &'h Event> + 'h> {
        let roles = params.roles.clone();
        let events = self
            .in_range(params)
            .filter(move |e| roles.as_ref().is_none_or(|r| r.contains(&e.role)));
        if params.after.is_some() {
            Box::new(events)
        } else {
            Box::new(events.rev())
        }
    }

    /// Grows the page in candidate order while the whole response fits the budget. Each row is
    /// measured once: a page's length is its frame's (anchors and fold rows) plus its rows'.
    fn page<'h>(
        &'h self,
        params: &ListParams,
        mut candidates: impl Iterator<Item = Candidate<'h>>,
        fold: bool,
        budget: usize,
    ) -> Result<Page, HistoryError> {
        let ascending = params.after.is_some();
        let mut rows: Vec<(u64, Row)> = Vec::new();
        let mut seqs: Vec<u64> = Vec::new();
        let mut rows_len = 0;
        // Whether more candidates follow the rows kept so far.
        let mut kept_has_more = false;
        let mut pending = candidates.next();
        while let Some(candidate) = pending {
            if rows.len() == params.limit {
                break;
            }
            let next = candidates.next();
            let has_more = next.is_some();
            let row = self.row(candidate, params.max_chars_per_item);
            let row_len = wire::to_compact_json(&row).len();
            let at = seqs.partition_point(|&seq| seq < row.seq);
            seqs.insert(at, row.seq);
            let frame = self.frame(params, &seqs, has_more, ascending, fold);
            if page_len(&frame, rows.len() + 1, rows_len + row_len) <= budget {
                rows.push((row.seq, row));
                rows_len += row_len;
                kept_has_more = has_more;
                pending = next;
                continue;
            }
            seqs.remove(at);
            if rows.is_empty() {
                let page = self.shrink_single(params, row, has_more, ascending, fold, budget)?;
                return checked(page, budget);
            }
            break;
        }
        let page = self.assemble(params, &rows, kept_has_more, ascending, fold);
        debug_assert!(
            rows.is_empty()
                || wire::to_compact_json(&page).len()
                    == page_len(
                        &self.frame(params, &seqs, kept_has_more, ascending, fold),
                        rows.len(),
                        rows_len
                    ),
            "a page measured by its parts is as long as the whole"
        );
        checked(page, budget)
    }

    /// The first candidate alone does not fit: cut its content (then its tool name) until it does.
    fn shrink_single(
        &self,
        params: &ListParams,
        mut row: Row,
        has_more: bool,
        ascending: bool,
        fold: bool,
        budget: usize,
    ) -> Result<Page, HistoryError> {
        let build =
            |row: &Row| self.assemble(params, &[(row.seq, row.clone())], has_more, ascending, fold);
        let full = row.content.clone();
        row.truncated = true;
        row.content.clear();
        if !fits(&build(&row), budget) {
            if let Some(name) = row.tool.take() {
                row.tool = Some(middle_truncate(&name, budget / 4));
            }
            if !fits(&build(&row), budget) {
                return Err(HistoryError::OutputTooLarge { budget });
            }
        }
        let chars: Vec<usize> = full
            .char_indices()
            .map(|(i, _)| i)
            .chain([full.len()])
            .collect();
        let keep = wire::longest_fitting(chars.len() - 1, |n| {
            row.content = full[..chars[n]].to_string();
            fits(&build(&row), budget)
        })
        .unwrap_or(0);
        row.content = full[..chars[keep]].to_string();
        Ok(build(&row))
    }

    fn row(&self, candidate: Candidate, max_chars: usize) -> Row {
        let event = candidate.event;
        let document = self.document(event);
        let total_chars = text::char_len(&document);
        let start = candidate.match_offset.unwrap_or(0);
        let content = text::char_slice(&document, start, max_chars).to_string();
        let truncated = start > 0 || start + max_chars < total_chars;
        let facts = self.tool_facts(event);
        let output_truncated = facts.as_ref().is_some_and(|f| f.output_truncated);
        Row {
            seq: event.seq,
            window_id: self.window_id(event).to_string(),
            role: event.role,
            created_at: self.created_at(event),
            tool_error: facts.as_ref().is_some_and(|f| f.error),
            output_truncated,
            full_output_path: output_truncated
                .then(|| facts.as_ref().and_then(|f| f.full_output_path.clone())),
            tool: facts.map(|f| f.name),
            truncated,
            total_chars,
            offset_chars: candidate.match_offset,
            content,
        }
    }

    /// Builds the response for the delivered rows: anchors, then (list only) fold rows.
    fn assemble(
        &self,
        params: &ListParams,
        rows: &[(u64, Row)],
        has_more: bool,
        ascending: bool,
        fold: bool,
    ) -> Page {
        let mut seqs: Vec<u64> = rows.iter().map(|(seq, _)| *seq).collect();
        seqs.sort_unstable();
        let mut page = self.frame(params, &seqs, has_more, ascending, fold);
        page.items
            .extend(rows.iter().map(|(_, row)| Item::Row(row.clone())));
        page.items.sort_by_key(Item::sort_key);
        page
    }

    /// The response for rows of the seqs `seqs` (sorted) without the rows: their anchors and
    /// (list only) the fold rows around them.
    fn frame(
        &self,
        params: &ListParams,
        seqs: &[u64],
        has_more: bool,
        ascending: bool,
        fold: bool,
    ) -> Page {
        let (first, last) = (seqs.first().copied(), seqs.last().copied());
        let older_before = if ascending {
            None
        } else {
            first.filter(|_| has_more)
        };
        let newer_after = if ascending {
            last.filter(|_| has_more)
        } else {
            None
        };
        let items = if fold {
            self.folds(params, seqs, older_before.is_none(), newer_after.is_none())
                .into_iter()
                .map(Item::Fold)
                .collect()
        } else {
            Vec::new()
        };
        // Part of the response, so part of every fitting check.
        Page {
            items,
            older_before,
            newer_after,
            skipped_lines: self.skipped_lines(),
        }
    }

    /// Fold rows of the conversation view around the delivered rows `seqs` (sorted).
    fn folds(&self, params: &ListParams, seqs: &[u64], leading: bool, trailing: bool) -> Vec<Fold> {
        let after = params.after.unwrap_or(0);
        let before = params.before.unwrap_or(u64::MAX);
        let mut gaps: Vec<(u64, u64)> = Vec::new();
        match (seqs.first(), seqs.last()) {
            (Some(&first), Some(&last)) => {
                if leading {
                    gaps.push((after, first));
                }
                gaps.extend(seqs.windows(2).map(|pair| (pair[0], pair[1])));
                if trailing {
                    gaps.push((last, before));
                }
            }
            _ => gaps.push((after, before)),
        }
        gaps.into_iter()
            .filter_map(|(low, high)| self.fold_between(params, low, high))
            .collect()
    }

    /// One fold row for the tool and context events strictly between two seqs, if any.
    fn fold_between(&self, params: &ListParams, low: u64, high: u64) -> Option<Fold> {
        let window = self.window_index(params);
        let from = self.events.partition_point(|e| e.seq <= low);
        let to = self.events.partition_point(|e| e.seq < high).max(from);
        let group: Vec<&Event> = self.events[from..to]
            .iter()
            .filter(|e| window.is_none_or(|w| e.window == w))
            .filter(|e| matches!(e.role, Role::Tool | Role::Context))
            .collect();
        (!group.is_empty()).then(|| self.fold(&group))
    }

    fn fold(&self, group: &[&Event]) -> Fold {
        let mut tools: BTreeMap<Cow<str>, usize> = BTreeMap::new();
        for event in group {
            if let Some(name) = self.tool_name(event) {
                *tools.entry(name).or_insert(0) += 1;
            }
        }
        Fold {
            folded: true,
            first_seq: group[0].seq,
            last_seq: group[group.len() - 1].seq,
            count: group.len(),
            tools: tools
                .into_iter()
                .map(|(name, n)| (name.to_string(), n))
                .collect(),
        }
    }
}

fn fits(page: &Page, budget: usize) -> bool {
    wire::to_compact_json(page).len() <= budget
}

/// The compact JSON length of `frame` with `rows` more items, `rows_len` long together: items
/// are joined by commas alone, so each adds its own length and a comma after the first.
fn page_len(frame: &Page, rows: usize, rows_len: usize) -> usize {
    let commas = (frame.items.len() + rows).saturating_sub(1) - frame.items.len().saturating_sub(1);
    wire::to_compact_json(frame).len() + rows_len + commas
}

/// The page, once checked against the budget: a page without rows was never measured (its
/// fold rows alone, a session of tools with huge names, or even its anchors, a tiny budget,
/// may not fit).
fn checked(mut page: Page, budget: usize) -> Result<Page, HistoryError> {
    if !fits(&page, budget) && !cut_fold_tool_names(&mut page, budget) {
        return Err(HistoryError::OutputTooLarge { budget });
    }
    Ok(page)
}

/// Cuts the tool names of fold rows, shorter and shorter, until the page fits; false if it
/// never does. Names that become equal have their counts added.
fn cut_fold_tool_names(page: &mut Page, budget: usize) -> bool {
    for keep in [256, 32, 8] {
        for item in &mut page.items {
            if let Item::Fold(fold) = item {
                let mut cut = BTreeMap::new();
                for (name, count) in std::mem::take(&mut fold.tools) {
                    *cut.entry(middle_truncate(&name, keep)).or_insert(0) += count;
                }
                fold.tools = cut;
            }
        }
        if fits(page, budget) {
            return true;
        }
    }
    false
}

/// Validates search queries (shape and limits, `wire::check_queries`) and builds the matcher.
fn build_matcher(queries: &[String]) -> Result<LiteralMatcher, HistoryError> {
    wire::check_queries(queries).map_err(|e| HistoryError::InvalidQuery(e.to_string()))?;
    LiteralMatcher::new(queries)
        .map_err(|e| HistoryError::InvalidQuery(format!("query cannot be searched: {e}")))
}

/// `abc…[truncated N chars]…xyz`, keeping about `keep` code points.
fn middle_truncate(name: &str, keep: usize) -> String {
    let total = text::char_len(name);
    if total <= keep {
        return name.to_string();
    }
    let half = keep / 2;
    let head = text::char_slice(name, 0, half);
    let tail = text::char_slice(name, total - half, half);
    format!("{head}…[truncated {} chars]…{tail}", total - 2 * half)
}
