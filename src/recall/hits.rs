//! Opening the best candidates of a session as hits: their stored fields, the event rebuilt
//! from its lines (`preview`), the match found again, and the preview cut around it.

use std::path::Path;
use std::sync::OnceLock;

use tantivy::columnar::{Column, StrColumn};
use tantivy::DocAddress;

use super::catalog::FileRecord;
use super::error::RecallError;
use super::{discover, preview, query, schema, search, Hit, SearchParams, SessionHits};
use crate::redact::Masking;

/// Fast-field access to what opening a hit needs. A segment's columns are opened when a hit
/// first needs them: opening a column reads its block index, and a search opens the hits of a
/// few sessions, which sit in a few of the segments.
pub(super) struct HitReader<'a> {
    searcher: &'a tantivy::Searcher,
    fields: schema::Fields,
    segments: Vec<OnceLock<SegmentColumns>>,
}

struct SegmentColumns {
    seq: Column<u64>,
    flags: Column<u64>,
    entry_start: Column<u64>,
    entry_len: Column<u64>,
    result_start: Column<u64>,
    result_len: Column<u64>,
    line: Column<u64>,
    window: Option<StrColumn>,
    leaf: Option<StrColumn>,
}

impl<'a> HitReader<'a> {
    pub(super) fn new(searcher: &'a tantivy::Searcher, fields: &schema::Fields) -> HitReader<'a> {
        let segments = searcher
            .segment_readers()
            .iter()
            .map(|_| OnceLock::new())
            .collect();
        HitReader {
            searcher,
            fields: *fields,
            segments,
        }
    }

    fn columns(&self, segment: usize) -> Result<Option<&SegmentColumns>, RecallError> {
        let (Some(cell), Some(reader)) = (
            self.segments.get(segment),
            self.searcher.segment_readers().get(segment),
        ) else {
            return Ok(None);
        };
        if let Some(columns) = cell.get() {
            return Ok(Some(columns));
        }
        let opened = self.open(reader).map_err(RecallError::corrupt)?;
        Ok(Some(cell.get_or_init(|| opened)))
    }

    fn open(&self, reader: &tantivy::SegmentReader) -> tantivy::Result<SegmentColumns> {
        let schema = self.searcher.schema();
        let name = |f| schema.get_field_name(f).to_string();
        let fast = reader.fast_fields();
        let fields = &self.fields;
        Ok(SegmentColumns {
            seq: fast.u64(&name(fields.seq))?,
            flags: fast.u64(&name(fields.flags))?,
            entry_start: fast.u64(&name(fields.entry_start))?,
            entry_len: fast.u64(&name(fields.entry_len))?,
            result_start: fast.u64(&name(fields.result_start))?,
            result_len: fast.u64(&name(fields.result_len))?,
            line: fast.u64(&name(fields.line))?,
            window: fast.str(&name(fields.window))?,
            leaf: fast.str(&name(fields.leaf))?,
        })
    }

    fn read(&self, doc: DocAddress) -> Result<Option<StoredHit>, RecallError> {
        let Some(columns) = self.columns(doc.segment_ord as usize)? else {
            return Ok(None);
        };
        Ok(Self::stored(columns, doc.doc_id))
    }

    fn stored(columns: &SegmentColumns, d: tantivy::DocId) -> Option<StoredHit> {
        let string = |column: &Option<StrColumn>| {
            let column = column.as_ref()?;
            let ord = column.term_ords(d).next()?;
            let mut text = String::new();
            column.ord_to_str(ord, &mut text).ok()?;
            Some(text)
        };
        let result_start = columns.result_start.first(d).unwrap_or(0);
        Some(StoredHit {
            seq: columns.seq.first(d)?,
            flags: schema::Flags::decode(columns.flags.first(d)?),
            entry: (columns.entry_start.first(d)?, columns.entry_len.first(d)?),
            result: (result_start > 0)
                .then(|| (result_start - 1, columns.result_len.first(d).unwrap_or(0))),
            line: columns.line.first(d).unwrap_or(0),
            window: string(&columns.window),
            leaf: string(&columns.leaf),
        })
    }
}

struct StoredHit {
    seq: u64,
    flags: schema::Flags,
    entry: (u64, u64),
    result: Option<(u64, u64)>,
    line: u64,
    window: Option<String>,
    leaf: Option<String>,
}

/// Opens a session's candidates: rebuilds each event from the file, finds the match again and
/// cuts the preview. `None` when no candidate can be shown.
pub(super) fn open_hits(
    record: &FileRecord,
    candidates: &[search::Candidate],
    reader: &HitReader,
    alternatives: &[query::Alternative],
    params: &SearchParams,
    masking: Masking,
) -> Result<Option<SessionHits>, RecallError> {
    let Ok((file, _)) = discover::open_regular(Path::new(&record.path)) else {
        return Ok(None);
    };
    let mut hits = Vec::new();
    for candidate in candidates {
        if hits.len() == params.hits {
            break;
        }
        let Some(stored) = reader.read(candidate.doc)? else {
            continue;
        };
        let located = preview::Located {
            flags: stored.flags,
            entry: stored.entry,
            result: stored.result,
            line: stored.line,
            version: record.version,
            harness: record.info.harness,
        };
        let Some(rebuilt) = preview::rebuild(&file, &located, masking) else {
            continue;
        };
        let Some(found) = preview::find(&rebuilt.document, alternatives, params.preview_chars)
        else {
            continue;
        };
        let total_chars = crate::text::char_len(&rebuilt.document);
        let start = preview::preview_start(&rebuilt.document, found.first);
        let content =
            crate::text::char_slice(&rebuilt.document, start, params.preview_chars).to_string();
        let end = start + crate::text::char_len(&content);
        let highlights = found
            .ranges
            .iter()
            .filter(|(a, b)| *a >= start && *b <= end)
            .map(|(a, b)| (a - start, b - start))
            .collect();
        hits.push(Hit {
            seq: stored.seq,
            entry_id: rebuilt.entry_id,
            leaf_id: stored.leaf,
            window_id: stored
                .window
                .unwrap_or_else(|| crate::history::root_window_id(&record.info.session_id)),
            role: stored.flags.role,
            created_at: rebuilt.created_at,
            on_branch: stored.flags.on_branch,
            score: round_score(candidate.score),
            offset_chars: start,
            truncated: start > 0 || end < total_chars,
            total_chars,
            content,
            highlights,
        });
    }
    let Some(best) = hits.first().map(|h| h.score) else {
        return Ok(None);
    };
    let info = &record.info;
    Ok(Some(SessionHits {
        session_id: info.session_id.clone(),
        harness: info.harness,
        parent_session_id: info.parent_session_id.clone(),
        session_file: record.path.clone(),
        cwd: info.cwd.clone(),
        project_key: info.project_key.clone(),
        name: info.name.clone(),
        updated_at: info.updated_at.clone(),
        updated_from_file: !info.harness.writes_times(),
        score: best,
        hits,
        first_user_preview: info.first_user_preview.clone(),
        short_id: info.session_id.clone(),
        short_parent_id: None,
        session_arg: record.path.clone(),
    }))
}

pub(super) fn round_score(score: f32) -> f32 {
    (score * 1000.0).round() / 1000.0
}
