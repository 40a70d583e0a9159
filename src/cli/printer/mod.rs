//! Printers: the human one and the JSON one are separate implementations of one trait, so no
//! command branches on `--json` itself.

mod human;
mod json;

use std::io::{self, Write};
use std::path::Path;

use pi_context::boot::Rendered;
use pi_context::checkpoint::Shown;
use pi_context::dream::doctor::DoctorReport;
use pi_context::dream::undo::UndoOutcome;
use pi_context::dream::DreamOutcome;
use pi_context::history::{Page, ReadResult, WindowsResult};
use pi_context::notes::{
    EditReceipt, ListPage, LogPage, MoveReceipt, NoteDiff, RestoreReceipt, SearchPage, WriteReceipt,
};
use pi_context::readwindow::ReadWindow;
use pi_context::recall::{IndexResult, ListResult, SearchResult};
use pi_context::sync::SyncOutcome;

/// One JSON document on a line: the tool protocol's answers and `tool --schemas`, which are
/// always JSON.
pub fn json_document(out: &mut dyn Write, value: &impl serde::Serialize) -> io::Result<()> {
    json::emit(out, value)
}

pub trait HistoryPrinter {
    fn windows(&self, out: &mut dyn Write, result: &WindowsResult) -> io::Result<()>;
    fn page(&self, out: &mut dyn Write, page: &Page) -> io::Result<()>;
    fn read(
        &self,
        out: &mut dyn Write,
        result: &ReadResult,
        skipped_lines: usize,
    ) -> io::Result<()>;
}

pub fn history(json: bool, color: bool) -> Box<dyn HistoryPrinter> {
    if json {
        Box::new(json::JsonPrinter)
    } else {
        Box::new(human::HumanPrinter { color, now: None })
    }
}

pub trait NotesPrinter {
    fn written(&self, out: &mut dyn Write, receipt: &WriteReceipt) -> io::Result<()>;
    fn edited(&self, out: &mut dyn Write, receipt: &EditReceipt) -> io::Result<()>;
    fn moved(&self, out: &mut dyn Write, receipt: &MoveReceipt) -> io::Result<()>;
    fn read(&self, out: &mut dyn Write, window: &ReadWindow) -> io::Result<()>;
    fn list(&self, out: &mut dyn Write, page: &ListPage) -> io::Result<()>;
    fn search(&self, out: &mut dyn Write, page: &SearchPage) -> io::Result<()>;
    fn log(&self, out: &mut dyn Write, page: &LogPage) -> io::Result<()>;
    fn diff(&self, out: &mut dyn Write, diff: &NoteDiff) -> io::Result<()>;
    fn restored(&self, out: &mut dyn Write, receipt: &RestoreReceipt) -> io::Result<()>;
    /// A sync's outcome; `verbose` (stdout is a terminal): also what went well, else only what
    /// needs attention (cron stays quiet).
    fn synced(&self, out: &mut dyn Write, outcome: &SyncOutcome, verbose: bool) -> io::Result<()>;
}

/// The notes printer; `now` dates the wastebasket's ages.
pub fn notes(json: bool, color: bool, now: jiff::Timestamp) -> Box<dyn NotesPrinter> {
    if json {
        Box::new(json::JsonPrinter)
    } else {
        Box::new(human::HumanPrinter {
            color,
            now: Some(now),
        })
    }
}

pub trait SessionsPrinter {
    fn list(&self, out: &mut dyn Write, result: &ListResult) -> io::Result<()>;
    fn search(&self, out: &mut dyn Write, result: &SearchResult) -> io::Result<()>;
    fn indexed(&self, out: &mut dyn Write, result: &IndexResult) -> io::Result<()>;
}

pub fn sessions(json: bool, color: bool) -> Box<dyn SessionsPrinter> {
    if json {
        Box::new(json::JsonPrinter)
    } else {
        Box::new(human::HumanPrinter { color, now: None })
    }
}

/// What the human dream printer shows besides the outcome.
pub struct DreamView<'a> {
    pub home: &'a Path,
    pub dry_run: bool,
    /// stdout is a terminal: the changes, violations and conflicts are listed (cron gets only
    /// the gate lines and the report path).
    pub terminal: bool,
}

pub trait DreamPrinter {
    fn dream(
        &self,
        out: &mut dyn Write,
        outcome: &DreamOutcome,
        view: &DreamView,
    ) -> io::Result<()>;
    fn doctor(&self, out: &mut dyn Write, report: &DoctorReport) -> io::Result<()>;
    fn undone(&self, out: &mut dyn Write, outcome: &UndoOutcome) -> io::Result<()>;
}

pub fn dream(json: bool, color: bool) -> Box<dyn DreamPrinter> {
    if json {
        Box::new(json::JsonPrinter)
    } else {
        Box::new(human::HumanPrinter { color, now: None })
    }
}

pub trait BootPrinter {
    fn boot(&self, out: &mut dyn Write, boot: &Rendered) -> io::Result<()>;
}

/// The boot printer: the block itself, or `--json`'s object.
pub fn boot(json: bool) -> Box<dyn BootPrinter> {
    if json {
        Box::new(json::JsonPrinter)
    } else {
        Box::new(human::HumanPrinter {
            color: false,
            now: None,
        })
    }
}

pub trait CheckpointPrinter {
    fn show(&self, out: &mut dyn Write, shown: &Shown) -> io::Result<()>;
}

/// The checkpoint printer; `now` dates the checkpoint's age.
pub fn checkpoint(json: bool, color: bool, now: jiff::Timestamp) -> Box<dyn CheckpointPrinter> {
    if json {
        Box::new(json::JsonPrinter)
    } else {
        Box::new(human::HumanPrinter {
            color,
            now: Some(now),
        })
    }
}
