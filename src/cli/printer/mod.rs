//! Printers: the human one and the JSON one are separate implementations of one trait, so no
//! command branches on `--json` itself.

mod human;
mod json;

use std::io::{self, Write};

use pi_context::history::{Page, ReadResult, WindowsResult};

pub use json::read_details;

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
        Box::new(human::HumanPrinter { color })
    }
}
