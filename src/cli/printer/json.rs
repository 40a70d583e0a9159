//! `--json` output: the same result objects the tool protocol returns, one document per run.

use std::io::{self, Write};

use pi_context::boot::Rendered;
use pi_context::checkpoint::Shown;
use pi_context::dream::doctor::DoctorReport;
use pi_context::dream::undo::UndoOutcome;
use pi_context::dream::DreamOutcome;
use pi_context::history::{Page, ReadResult, WindowsResult};
use pi_context::notes::{
    EditReceipt, ListPage, LogPage, MoveReceipt, NoteDiff, NotesPage, RestoreReceipt, SearchPage,
    WriteReceipt,
};
use pi_context::readwindow::ReadWindow;
use pi_context::recall::{IndexResult, ListResult, SearchResult};
use pi_context::sync::SyncOutcome;
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

/// Pages with fewer files are written by [`emit`] alone.
const FILES_FOR_A_SECOND_THREAD: usize = 512;
/// Files serialized at a time by one thread: the helper stays at most a chunk ahead, so the
/// page is never held twice in memory.
const FILES_PER_CHUNK: usize = 128;

/// [`emit`] of a notes page, the same bytes, with every other chunk of its files serialized on a
/// second thread while this one writes the chunk before it: a search printing every one of
/// 90,000 matching lines is 27 MB of JSON, and escaping it on one thread after the walk was a
/// quarter of the search's time.
fn emit_notes_page<F: serde::Serialize + Sync>(
    out: &mut dyn Write,
    page: &NotesPage<F>,
) -> io::Result<()> {
    if page.files.len() < FILES_FOR_A_SECOND_THREAD {
        return emit(out, page);
    }
    // The page without its files, `{"files":[],…}`: what comes before and after them.
    let skeleton = serde_json::to_vec(&NotesPage::<F> {
        files: Vec::new(),
        more: page.more,
        crumpled_excluded: page.crumpled_excluded,
        homes_unavailable: page.homes_unavailable.clone(),
        wastebasket: page.wastebasket,
    })?;
    let open = br#"{"files":["#;
    let Some(rest) = skeleton.strip_prefix(open.as_slice()) else {
        return emit(out, page);
    };
    let chunks: Vec<&[F]> = page.files.chunks(FILES_PER_CHUNK).collect();
    let (done, serialized) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(1);
    std::thread::scope(|scope| -> io::Result<()> {
        scope.spawn(|| {
            for chunk in chunks.iter().skip(1).step_by(2) {
                // A closed channel: the writer stopped (a write failed).
                if done.send(serialize_items(chunk)).is_err() {
                    break;
                }
            }
        });
        out.write_all(open)?;
        for (i, chunk) in chunks.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            if i % 2 == 0 {
                write_items(&mut *out, chunk)?;
            } else {
                let bytes = serialized.recv().map_err(io::Error::other)??;
                out.write_all(&bytes)?;
            }
        }
        // Ends the helper if it is still waiting to hand over a chunk.
        drop(serialized);
        Ok(())
    })?;
    out.write_all(rest)?;
    out.write_all(b"\n")
}

fn serialize_items<F: serde::Serialize>(items: &[F]) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    write_items(&mut bytes, items)?;
    Ok(bytes)
}

/// `items` as the elements of a JSON array, comma-separated.
fn write_items<F: serde::Serialize>(mut out: impl Write, items: &[F]) -> io::Result<()> {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut out, item)?;
    }
    Ok(())
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
        emit_notes_page(out, page)
    }

    fn search(&self, out: &mut dyn Write, page: &SearchPage) -> io::Result<()> {
        emit_notes_page(out, page)
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

#[cfg(test)]
mod tests {
    use super::*;
    use pi_context::notes::ListFile;

    fn page(files: usize) -> ListPage {
        NotesPage {
            files: (0..files)
                .map(|i| ListFile {
                    address: format!("@human/n{i}\u{2028}\"quoted\".md"),
                    updated_at: "2026-01-01T00:00:00.000Z".into(),
                    crumpled_at: (i % 3 == 0).then(|| "2026-02-01T00:00:00Z".into()),
                    project_key: None,
                })
                .collect(),
            more: 7,
            crumpled_excluded: 2,
            homes_unavailable: vec!["@models".into()],
            wastebasket: false,
        }
    }

    #[test]
    fn a_page_written_on_two_threads_is_the_bytes_of_one() {
        for files in [0, 1, 2, 511, 512, 513, 2001] {
            let page = page(files);
            let mut one = Vec::new();
            emit(&mut one, &page).unwrap();
            let mut two = Vec::new();
            emit_notes_page(&mut two, &page).unwrap();
            assert_eq!(
                String::from_utf8(two).unwrap(),
                String::from_utf8(one).unwrap(),
                "{files} files"
            );
        }
    }

    /// Takes `room` bytes, then fails every write (a closed pipe).
    struct Closing {
        room: usize,
    }

    impl Write for Closing {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            let taken = bytes.len().min(self.room);
            self.room -= taken;
            Ok(taken)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_that_fails_midway_ends_both_threads_with_the_error() {
        let page = page(5000);
        for room in [0, 10, 20_000, 200_000] {
            let error = emit_notes_page(&mut Closing { room }, &page).unwrap_err();
            assert_eq!(
                error.kind(),
                io::ErrorKind::BrokenPipe,
                "after {room} bytes"
            );
        }
    }
}
