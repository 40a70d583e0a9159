//! `--json` output: the same result objects the tool protocol returns, one document per run.

use std::io::{self, Write};

use pi_context::history::{Page, ReadResult, WindowsResult};
use pi_context::notes::{
    EditReceipt, ListPage, MoveReceipt, SearchPage, WriteReceipt, COUNTERS_KEY,
};
use pi_context::readwindow::ReadWindow;
use pi_context::recall::{IndexResult, ListResult, SearchResult};
use serde_json::{json, Map, Value};

use super::{HistoryPrinter, NotesPrinter, SessionsPrinter};

pub struct JsonPrinter;

fn emit(out: &mut dyn Write, value: &impl serde::Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// The small cursor fields of a read (never the content).
pub fn read_details(result: &ReadResult) -> Value {
    json!({
        "seq": result.seq,
        "window_id": result.window_id,
        "offset_chars": result.window.offset_chars,
        "total_chars": result.window.total_chars,
        "next_offset_chars": result.window.next_offset_chars,
    })
}

impl HistoryPrinter for JsonPrinter {
    fn windows(&self, out: &mut dyn Write, result: &WindowsResult) -> io::Result<()> {
        emit(out, result)
    }

    fn page(&self, out: &mut dyn Write, page: &Page) -> io::Result<()> {
        emit(out, page)
    }

    fn read(
        &self,
        out: &mut dyn Write,
        result: &ReadResult,
        skipped_lines: usize,
    ) -> io::Result<()> {
        let mut value = read_details(result);
        value["content"] = json!(result.window.content);
        if skipped_lines > 0 {
            value["skipped_lines"] = json!(skipped_lines);
        }
        emit(out, &value)
    }
}

/// The small fields of a notes read (identity and cursors, never the content), and
/// `counters_updated`: whether the read was recorded in the note's access counters.
pub fn notes_read_details(window: &ReadWindow) -> Value {
    let mut details = Map::new();
    for (key, value) in &window.identity {
        details.insert((*key).to_string(), json!(value));
    }
    let updated = !details.contains_key(COUNTERS_KEY);
    details.insert("counters_updated".into(), json!(updated));
    details.insert("offset_chars".into(), json!(window.offset_chars));
    details.insert("total_chars".into(), json!(window.total_chars));
    details.insert("next_offset_chars".into(), json!(window.next_offset_chars));
    Value::Object(details)
}

impl NotesPrinter for JsonPrinter {
    fn written(&self, out: &mut dyn Write, receipt: &WriteReceipt) -> io::Result<()> {
        emit(out, receipt)
    }

    fn edited(&self, out: &mut dyn Write, receipt: &EditReceipt) -> io::Result<()> {
        emit(out, receipt)
    }

    fn moved(&self, out: &mut dyn Write, receipt: &MoveReceipt) -> io::Result<()> {
        emit(out, receipt)
    }

    fn read(&self, out: &mut dyn Write, window: &ReadWindow) -> io::Result<()> {
        let mut value = notes_read_details(window);
        value["content"] = json!(window.content);
        emit(out, &value)
    }

    fn list(&self, out: &mut dyn Write, page: &ListPage) -> io::Result<()> {
        emit(out, page)
    }

    fn search(&self, out: &mut dyn Write, page: &SearchPage) -> io::Result<()> {
        emit(out, page)
    }
}

impl SessionsPrinter for JsonPrinter {
    fn list(&self, out: &mut dyn Write, result: &ListResult) -> io::Result<()> {
        emit(out, result)
    }

    fn search(&self, out: &mut dyn Write, result: &SearchResult) -> io::Result<()> {
        emit(out, result)
    }

    fn indexed(&self, out: &mut dyn Write, result: &IndexResult) -> io::Result<()> {
        emit(out, result)
    }
}
