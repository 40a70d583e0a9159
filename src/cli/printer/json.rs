//! `--json` output: the same result objects the tool protocol returns, one document per run.

use std::io::{self, Write};

use pi_context::boot::Rendered;
use pi_context::checkpoint::Shown;
use pi_context::dream::doctor::DoctorReport;
use pi_context::dream::undo::UndoOutcome;
use pi_context::dream::DreamOutcome;
use pi_context::history::{Page, ReadResult, WindowsResult};
use pi_context::notes::sync::SyncOutcome;
use pi_context::notes::{
    EditReceipt, ListPage, LogPage, MoveReceipt, NoteDiff, RestoreReceipt, SearchPage, WriteReceipt,
};
use pi_context::readwindow::ReadWindow;
use pi_context::recall::{IndexResult, ListResult, SearchResult};
use serde_json::json;

use super::{
    BootPrinter, CheckpointPrinter, DreamPrinter, DreamView, HistoryPrinter, NotesPrinter,
    SessionsPrinter,
};

pub struct JsonPrinter;

pub fn emit(out: &mut dyn Write, value: &impl serde::Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
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
        let mut value = result.details();
        value["content"] = json!(result.window.content);
        if skipped_lines > 0 {
            value["skipped_lines"] = json!(skipped_lines);
        }
        emit(out, &value)
    }
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
        let mut value = pi_context::notes::read_details(window);
        value["content"] = json!(window.content);
        emit(out, &value)
    }

    fn list(&self, out: &mut dyn Write, page: &ListPage) -> io::Result<()> {
        emit(out, page)
    }

    fn search(&self, out: &mut dyn Write, page: &SearchPage) -> io::Result<()> {
        emit(out, page)
    }

    fn log(&self, out: &mut dyn Write, page: &LogPage) -> io::Result<()> {
        emit(out, page)
    }

    fn diff(&self, out: &mut dyn Write, diff: &NoteDiff) -> io::Result<()> {
        emit(out, diff)
    }

    fn restored(&self, out: &mut dyn Write, receipt: &RestoreReceipt) -> io::Result<()> {
        emit(out, receipt)
    }

    fn synced(&self, out: &mut dyn Write, outcome: &SyncOutcome, _verbose: bool) -> io::Result<()> {
        emit(out, outcome)
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

impl DreamPrinter for JsonPrinter {
    fn dream(
        &self,
        out: &mut dyn Write,
        outcome: &DreamOutcome,
        _view: &DreamView,
    ) -> io::Result<()> {
        emit(out, outcome)
    }

    fn doctor(&self, out: &mut dyn Write, report: &DoctorReport) -> io::Result<()> {
        emit(out, report)
    }

    fn undone(&self, out: &mut dyn Write, outcome: &UndoOutcome) -> io::Result<()> {
        emit(out, outcome)
    }
}

impl BootPrinter for JsonPrinter {
    fn boot(&self, out: &mut dyn Write, boot: &Rendered) -> io::Result<()> {
        emit(out, boot)
    }
}

impl CheckpointPrinter for JsonPrinter {
    fn show(&self, out: &mut dyn Write, shown: &Shown) -> io::Result<()> {
        emit(out, shown)
    }
}
