//! `--json` output: the same result objects the tool protocol returns, one document per run.

use std::io::{self, Write};

use pi_context::history::{Page, ReadResult, WindowsResult};
use serde_json::{json, Value};

use super::HistoryPrinter;

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
