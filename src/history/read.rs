//! `read`: one READ WINDOW over an event's document.

use super::project::History;
use super::{HistoryError, ReadResult};
use crate::readwindow::{self, WindowError};
use crate::wire::{DEFAULT_READ_CHARS, MAX_READ_CHARS};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadParams {
    pub seq: u64,
    /// Negative counts from the end.
    pub offset_chars: i64,
    /// Clamped to `1..=MAX_READ_CHARS`.
    pub limit_chars: usize,
}

impl ReadParams {
    pub fn new(seq: u64) -> Self {
        ReadParams {
            seq,
            offset_chars: 0,
            limit_chars: DEFAULT_READ_CHARS,
        }
    }
}

impl History<'_> {
    /// Refusals in order: a seq above the highest, a seq on another branch, an offset past the
    /// end. Reading a result that was shown inside its call serves the call's event.
    pub fn read(&self, params: &ReadParams, budget: usize) -> Result<ReadResult, HistoryError> {
        let seq = params.seq;
        if seq == 0 {
            return Err(HistoryError::InvalidParams("seq must be at least 1".into()));
        }
        if seq > self.highest_seq() {
            return Err(HistoryError::UnknownSeq {
                seq,
                highest: self.highest_seq(),
            });
        }
        if !self.is_on_branch(seq) {
            return Err(HistoryError::NotOnBranch { seq });
        }
        let shown_seq = self.alias_of(seq).unwrap_or(seq);
        let event = self
            .event_at(shown_seq)
            .ok_or(HistoryError::NoEvent { seq })?;
        let window_id = self.window_id(event).to_string();
        let document = self.document(event);
        let total = crate::text::char_len(&document);
        let start = readwindow::resolve_offset(params.offset_chars, total).map_err(|_| {
            HistoryError::InvalidOffset {
                seq: shown_seq,
                window_id: window_id.clone(),
                offset: params.offset_chars,
                total,
            }
        })?;
        let limit = params.limit_chars.clamp(1, MAX_READ_CHARS);
        let identity = vec![
            ("seq", shown_seq.to_string()),
            ("window_id", window_id.clone()),
        ];
        let window =
            readwindow::cut(identity, &document, start, limit, budget).map_err(|e| match e {
                WindowError::HeaderTooLarge | WindowError::OffsetPastEnd { .. } => {
                    HistoryError::OutputTooLarge { budget }
                }
            })?;
        Ok(ReadResult {
            seq: shown_seq,
            window_id,
            window,
        })
    }
}
