//! Result objects of the notes operations as the tool protocol and `--json` return them, cut to
//! a byte budget: recent-first snapshots with `more`, receipts, and READ WINDOWs over bodies.
//!
//! The budget measures the compact JSON of the object (no ASCII escaping), or the READ WINDOW
//! text for reads. Pass `usize::MAX` for no budget.

use serde::Serialize;

use super::error::NotesError;
use super::history::{Log, LogEntry};
use super::store::{
    Counters, EditResult, Listing, MoveResult, Note, RestoreResult, Row, SearchListing, WriteResult,
};
use crate::readwindow::{self, ReadWindow, WindowError};
use crate::text;
use crate::wire::{self, longest_fitting};

/// A matching line longer than this many code points is shown from its earliest match, cut.
pub const MATCH_PREVIEW_CHARS: usize = 1200;

#[derive(Debug, Clone, Serialize)]
pub struct WriteReceipt {
    pub address: String,
    pub outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_key: Option<String>,
}

impl WriteReceipt {
    pub fn of(result: &WriteResult) -> WriteReceipt {
        WriteReceipt {
            address: result.location.address(),
            outcome: result.outcome.as_str(),
            project_key: result.location.home.project_key().map(str::to_string),
        }
    }
}

/// What `notes_move` returns.
#[derive(Debug, Clone, Serialize)]
pub struct MoveReceipt {
    pub from: String,
    pub to: String,
    /// `moved`, or `replaced_crumpled` when a crumpled note at the target is gone.
    pub outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_key: Option<String>,
}

impl MoveReceipt {
    pub fn of(result: &MoveResult) -> MoveReceipt {
        MoveReceipt {
            from: result.from.address(),
            to: result.to.address(),
            outcome: if result.replaced_crumpled {
                "replaced_crumpled"
            } else {
                "moved"
            },
            project_key: result.to.home.project_key().map(str::to_string),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct EditReceipt {
    pub address: String,
    pub applied: usize,
    pub change_kind: &'static str,
    pub diff: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub diff_truncated: bool,
}

impl EditReceipt {
    /// The receipt with its unified diff cut to the longest prefix that fits `budget`.
    pub fn of(result: &EditResult, budget: usize) -> Result<EditReceipt, NotesError> {
        let mut receipt = EditReceipt {
            address: result.location.address(),
            applied: result.applied,
            change_kind: result.change.kind.as_str(),
            diff: result.diff.text.clone(),
            diff_truncated: result.diff.truncated,
        };
        if fits(&receipt, budget) {
            return Ok(receipt);
        }
        let full = std::mem::take(&mut receipt.diff);
        receipt.diff_truncated = true;
        let keep = longest_fitting(text::char_len(&full), |n| {
            receipt.diff = text::char_slice(&full, 0, n).to_string();
            fits(&receipt, budget)
        })
        .ok_or_else(|| {
            NotesError::OutputTooLarge(
                "the edit was applied, but its receipt does not fit the response budget".into(),
            )
        })?;
        receipt.diff = text::char_slice(&full, 0, keep).to_string();
        Ok(receipt)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ListFile {
    pub address: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crumpled_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_key: Option<String>,
}

/// A recent-first snapshot of notes (`list` rows or `search` hits) cut to a limit and a budget.
#[derive(Debug, Clone, Serialize)]
pub struct NotesPage<F> {
    pub files: Vec<F>,
    /// Matching notes left out by the limit or the budget.
    pub more: usize,
    pub crumpled_excluded: usize,
    pub homes_unavailable: Vec<String>,
    /// Whether this shows the wastebasket (for printers; not on the wire).
    #[serde(skip)]
    pub wastebasket: bool,
}

pub type ListPage = NotesPage<ListFile>;
/// A page of search hits, borrowing the matching lines from the [`SearchListing`] it shows.
pub type SearchPage<'a> = NotesPage<SearchFile<'a>>;

impl<F> NotesPage<F> {
    /// An empty page that counts every one of `rows` notes as left out.
    fn empty(
        rows: usize,
        crumpled_excluded: usize,
        unavailable: &[String],
        wastebasket: bool,
    ) -> Self {
        NotesPage {
            files: Vec::new(),
            more: rows,
            crumpled_excluded,
            homes_unavailable: unavailable.to_vec(),
            wastebasket,
        }
    }
}

impl ListPage {
    /// The most recent rows, up to `limit`, that fit `budget`.
    pub fn of(
        listing: &Listing,
        limit: Option<usize>,
        budget: usize,
    ) -> Result<ListPage, NotesError> {
        let mut page = ListPage::empty(
            listing.rows.len(),
            listing.crumpled_excluded,
            &listing.homes_unavailable,
            listing.wastebasket,
        );
        let mut used = json_len(&page);
        let shown = listing.rows.len().min(limit.unwrap_or(usize::MAX));
        if budget == usize::MAX {
            // Without a budget every row is shown: one allocation, not a vector doubled a
            // dozen times (fresh memory is dear).
            page.files.reserve_exact(shown);
        }
        for row in listing.rows.iter().take(shown) {
            let file = list_file(row);
            if budget != usize::MAX {
                let cost = json_len(&file) + usize::from(!page.files.is_empty());
                if used.saturating_add(cost) > budget {
                    break;
                }
                used += cost;
            }
            page.files.push(file);
        }
        if page.files.is_empty() && !listing.rows.is_empty() && limit != Some(0) {
            return Err(NotesError::OutputTooLarge(
                "the first matching note cannot fit in a response without losing its identity"
                    .into(),
            ));
        }
        page.more = listing.rows.len() - page.files.len();
        Ok(page)
    }
}

fn list_file(row: &Row) -> ListFile {
    ListFile {
        address: row.location.address(),
        updated_at: row.meta.updated_at.clone(),
        crumpled_at: row.meta.crumpled_at.clone(),
        project_key: row.location.home.project_key().map(str::to_string),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchMatch<'a> {
    pub line: usize,
    /// The line, or a part of it (`truncated`).
    pub text: &'a str,
    pub offset_chars: usize,
    pub truncated: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchFile<'a> {
    pub address: String,
    pub updated_at: &'a str,
    /// Matching lines in the note, before any cap.
    pub matches_total: usize,
    pub matches: Vec<SearchMatch<'a>>,
}

impl<'a> SearchPage<'a> {
    /// The most recent matching notes, up to `limit`, each with at most `max_matches` lines,
    /// that fit `budget`. The first note shrinks to fit rather than be left out.
    pub fn of(
        listing: &'a SearchListing,
        limit: Option<usize>,
        max_matches: Option<usize>,
        budget: usize,
    ) -> Result<SearchPage<'a>, NotesError> {
        let mut page = SearchPage::empty(
            listing.rows.len(),
            listing.crumpled_excluded,
            &listing.homes_unavailable,
            listing.wastebasket,
        );
        let mut used = json_len(&page);
        let cap = max_matches.unwrap_or(usize::MAX);
        if budget == usize::MAX {
            page.files
                .reserve_exact(listing.rows.len().min(limit.unwrap_or(usize::MAX)));
        }
        for (index, hit) in listing
            .rows
            .iter()
            .take(limit.unwrap_or(usize::MAX))
            .enumerate()
        {
            let file = SearchFile {
                address: hit.row.location.address(),
                updated_at: &hit.row.meta.updated_at,
                matches_total: hit.matches.len(),
                matches: hit.matches.iter().take(cap).map(preview).collect(),
            };
            if budget == usize::MAX {
                page.files.push(file);
                continue;
            }
            let comma = usize::from(index > 0);
            let file = if index == 0 {
                shrink_to_fit(file, budget.saturating_sub(used))?
            } else {
                file
            };
            let cost = json_len(&file) + comma;
            if used.saturating_add(cost) > budget {
                break;
            }
            used += cost;
            page.files.push(file);
        }
        page.more = listing.rows.len() - page.files.len();
        Ok(page)
    }
}

fn preview(hit: &super::store::LineMatch) -> SearchMatch<'_> {
    // A line of at most this many bytes has at most as many code points: no need to count.
    if hit.text.len() <= MATCH_PREVIEW_CHARS || text::char_len(&hit.text) <= MATCH_PREVIEW_CHARS {
        return SearchMatch {
            line: hit.line,
            text: &hit.text,
            offset_chars: hit.offset_chars,
            truncated: false,
        };
    }
    SearchMatch {
        line: hit.line,
        text: text::char_slice(&hit.text, hit.column_chars, MATCH_PREVIEW_CHARS),
        offset_chars: hit.offset_chars,
        truncated: true,
    }
}

/// Keeps the largest number of whole match lines that fits; failing that, the first line cut to
/// a fitting prefix.
fn shrink_to_fit(mut file: SearchFile<'_>, room: usize) -> Result<SearchFile<'_>, NotesError> {
    if json_len(&file) <= room {
        return Ok(file);
    }
    let all = std::mem::take(&mut file.matches);
    let whole = longest_fitting(all.len(), |n| {
        file.matches = all[..n].to_vec();
        json_len(&file) <= room
    });
    match whole {
        Some(n) if n > 0 => {
            file.matches = all[..n].to_vec();
            Ok(file)
        }
        _ => {
            let first = all.into_iter().next().ok_or_else(too_large_first)?;
            let source = first.text;
            let keep = longest_fitting(text::char_len(source), |n| {
                file.matches = vec![SearchMatch {
                    text: text::char_slice(source, 0, n),
                    truncated: true,
                    ..first.clone()
                }];
                json_len(&file) <= room
            })
            .ok_or_else(too_large_first)?;
            file.matches = vec![SearchMatch {
                text: text::char_slice(source, 0, keep),
                truncated: true,
                ..first
            }];
            Ok(file)
        }
    }
}

fn too_large_first() -> NotesError {
    NotesError::OutputTooLarge(
        "the first matching note cannot fit in a response without losing its identity".into(),
    )
}

/// A READ WINDOW over a note's body: identity lines `address` (and `project_key` for @project
/// notes), then `origin`, `created_at`, `updated_at`, when crumpled `crumpled_at`, and when the
/// read could not be recorded `counters: not updated (<why>)`.
pub fn read_window(
    note: &Note,
    offset_chars: i64,
    limit_chars: usize,
    budget: usize,
) -> Result<ReadWindow, NotesError> {
    let total = text::char_len(&note.body);
    let start = readwindow::resolve_offset(offset_chars, total)
        .map_err(|e| window_error(e, offset_chars, total))?;
    readwindow::cut(identity_lines(note), &note.body, start, limit_chars, budget)
        .map_err(|e| window_error(e, offset_chars, total))
}

fn identity_lines(note: &Note) -> Vec<(&'static str, String)> {
    let mut lines = vec![("address", note.location.address())];
    if let Some(key) = note.location.home.project_key() {
        lines.push(("project_key", key.to_string()));
    }
    lines.push(("origin", note.meta.origin.clone()));
    lines.push(("created_at", note.meta.created_at.clone()));
    lines.push(("updated_at", note.meta.updated_at.clone()));
    if let Some(at) = &note.meta.crumpled_at {
        lines.push(("crumpled_at", at.clone()));
    }
    if let Counters::NotUpdated { reason } = note.counters {
        lines.push((COUNTERS_KEY, format!("not updated ({reason})")));
    }
    lines
}

/// The identity line of a read whose access was not recorded: `counters: not updated (<why>)`.
pub const COUNTERS_KEY: &str = "counters";

/// The small fields of a notes read (identity and cursors, never the content), and
/// `counters_updated`: whether the read was recorded in the note's access counters. A tool
/// result's `details`, and the `--json` object without its `content`.
pub fn read_details(window: &ReadWindow) -> serde_json::Value {
    let mut details = serde_json::Map::new();
    for (key, value) in &window.identity {
        details.insert((*key).to_string(), serde_json::json!(value));
    }
    let updated = !details.contains_key(COUNTERS_KEY);
    details.insert("counters_updated".into(), serde_json::json!(updated));
    details.insert(
        "offset_chars".into(),
        serde_json::json!(window.offset_chars),
    );
    details.insert("total_chars".into(), serde_json::json!(window.total_chars));
    details.insert(
        "next_offset_chars".into(),
        serde_json::json!(window.next_offset_chars),
    );
    serde_json::Value::Object(details)
}

fn window_error(error: WindowError, offset: i64, total: usize) -> NotesError {
    match error {
        WindowError::OffsetPastEnd { .. } => NotesError::InvalidOffset { offset, total },
        WindowError::HeaderTooLarge => NotesError::OutputTooLarge(
            "the response metadata leaves no room for a progressing read window".into(),
        ),
    }
}

/// The length of `value`'s compact JSON, counted as it is written, without keeping it.
fn json_len<T: Serialize>(value: &T) -> usize {
    let mut counter = ByteCounter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => wire::to_compact_json(value).len(),
    }
}

struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What `notes_restore` returns.
#[derive(Debug, Clone, Serialize)]
pub struct RestoreReceipt {
    pub address: String,
    /// `restored`, `recreated` (the note was gone) or `unchanged`.
    pub outcome: &'static str,
    /// The commit whose version was put back.
    pub from: String,
    /// The new commit, when the history is on and something changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

impl RestoreReceipt {
    pub fn of(result: &RestoreResult) -> RestoreReceipt {
        RestoreReceipt {
            address: result.location.address(),
            outcome: result.outcome.as_str(),
            from: result.from.clone(),
            commit: result.history.commit(),
        }
    }
}

/// At most this many changed paths are named per commit of a log page.
pub const LOG_CHANGES_SHOWN: usize = 20;

/// A page of the notes history: the newest commits that fit.
#[derive(Debug, Clone, Serialize)]
pub struct LogPage {
    pub commits: Vec<LogEntry>,
    /// Whether older matching commits were left out (by the limit or the budget).
    pub more: bool,
}

impl LogPage {
    /// The log's newest commits that fit `budget`, each naming at most [`LOG_CHANGES_SHOWN`]
    /// changed paths (`changes_more` counts the rest).
    pub fn of(log: &Log, budget: usize) -> LogPage {
        let mut page = LogPage {
            commits: Vec::new(),
            more: log.more,
        };
        let mut used = json_len(&page);
        for entry in &log.entries {
            let mut entry = entry.clone();
            if entry.changes.len() > LOG_CHANGES_SHOWN {
                entry.changes_more = entry.changes.len() - LOG_CHANGES_SHOWN;
                entry.changes.truncate(LOG_CHANGES_SHOWN);
            }
            let cost = json_len(&entry) + usize::from(!page.commits.is_empty());
            if used.saturating_add(cost) > budget {
                page.more = true;
                break;
            }
            used += cost;
            page.commits.push(entry);
        }
        page
    }
}

fn fits<T: Serialize>(value: &T, budget: usize) -> bool {
    json_len(value) <= budget
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notes::address::{Home, Location};
    use crate::notes::store::{LineMatch, Meta, SearchRow};

    fn row(path: &str) -> Row {
        Row {
            location: Location {
                home: Home::Human,
                path: path.into(),
            },
            meta: Meta {
                origin: "self".into(),
                created_at: "c".into(),
                updated_at: "u".into(),
                last_accessed: "l".into(),
                access_count: 0,
                crumpled_at: None,
                project: None,
            },
            body_bytes: 0,
            updated: jiff::Timestamp::UNIX_EPOCH,
        }
    }

    fn hit(line: usize, text: &str) -> LineMatch {
        LineMatch {
            line,
            text: text.into(),
            offset_chars: 0,
            column_chars: 0,
        }
    }

    #[test]
    fn list_pages_stop_at_the_budget_and_count_the_rest() {
        let listing = Listing {
            rows: (0..50).map(|i| row(&format!("note-{i:02}.md"))).collect(),
            crumpled_excluded: 2,
            homes_unavailable: vec![],
            wastebasket: false,
        };
        let page = ListPage::of(&listing, None, 500).unwrap();
        assert!(wire::to_compact_json(&page).len() <= 500);
        assert!(!page.files.is_empty() && page.files.len() < 50);
        assert_eq!(page.more, 50 - page.files.len());
        let all = ListPage::of(&listing, None, usize::MAX).unwrap();
        assert_eq!((all.files.len(), all.more), (50, 0));
        let limited = ListPage::of(&listing, Some(3), usize::MAX).unwrap();
        assert_eq!((limited.files.len(), limited.more), (3, 47));
        assert_eq!(
            ListPage::of(&listing, None, 40).unwrap_err().code(),
            "output_too_large"
        );
    }

    #[test]
    fn the_first_search_file_keeps_whole_lines_then_cuts_one() {
        let listing = SearchListing {
            rows: vec![SearchRow {
                row: row("n.md"),
                matches: (1..=40).map(|i| hit(i, &"x".repeat(50))).collect(),
            }],
            crumpled_excluded: 0,
            homes_unavailable: vec![],
            wastebasket: false,
        };
        let page = SearchPage::of(&listing, None, None, 1000).unwrap();
        assert!(wire::to_compact_json(&page).len() <= 1000);
        let shown = page.files[0].matches.len();
        assert!(shown > 1 && shown < 40, "{shown}");
        assert!(page.files[0].matches.iter().all(|m| !m.truncated));
        let tight = SearchPage::of(&listing, None, None, 200).unwrap();
        assert!(wire::to_compact_json(&tight).len() <= 200);
        let only = &tight.files[0].matches;
        assert_eq!(only.len(), 1);
        assert!(only[0].truncated && only[0].text.len() < 50);
        assert_eq!(
            SearchPage::of(&listing, None, None, 60).unwrap_err().code(),
            "output_too_large"
        );
    }
}
