//! Printers: the human one and the JSON one are separate implementations of one trait, so no
//! command branches on `--json` itself.

mod human;
mod json;
mod sessions_human;

use std::io::{self, Write};

use pi_context::history::{Page, ReadResult, WindowsResult};
use pi_context::notes::{EditReceipt, ListPage, MoveReceipt, SearchPage, WriteReceipt};
use pi_context::readwindow::ReadWindow;
use pi_context::recall::{IndexResult, ListResult, SearchResult};

pub use json::{notes_read_details, read_details};

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
}

pub fn notes(json: bool, color: bool) -> Box<dyn NotesPrinter> {
    if json {
        Box::new(json::JsonPrinter)
    } else {
        Box::new(human::HumanPrinter {
            color,
            now: pi_context::notes::clock::now().ok(),
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
