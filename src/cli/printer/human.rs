//! Readable text for people at a terminal. Colors only when the UI decided so.

use std::io::{self, Write};

use owo_colors::OwoColorize;
use pi_context::history::{Fold, Item, Page, ReadResult, Row, WindowsResult};
use pi_context::notes::{EditReceipt, ListPage, NotesPage, SearchPage, WriteReceipt, COUNTERS_KEY};
use pi_context::readwindow::ReadWindow;

use super::{HistoryPrinter, NotesPrinter};

pub struct HumanPrinter {
    pub color: bool,
}

impl HumanPrinter {
    fn dim(&self, text: &str) -> String {
        if self.color {
            text.dimmed().to_string()
        } else {
            text.to_string()
        }
    }

    fn bold(&self, text: &str) -> String {
        if self.color {
            text.bold().to_string()
        } else {
            text.to_string()
        }
    }

    fn row(&self, out: &mut dyn Write, row: &Row) -> io::Result<()> {
        let mut label = row.role.as_str().to_string();
        if let Some(tool) = &row.tool {
            label = format!("{label}:{tool}");
        }
        let mut flags = Vec::new();
        if row.tool_error {
            flags.push("error".to_string());
        }
        if row.output_truncated {
            match row.full_output_path.as_ref().and_then(|p| p.as_deref()) {
                Some(path) => flags.push(format!("output truncated, full output at {path}")),
                None => flags.push("output truncated".into()),
            }
        }
        let span = match row.offset_chars {
            Some(offset) => format!("chars {offset}+ of {}", row.total_chars),
            None if row.truncated => format!("preview of {} chars", row.total_chars),
            None => format!("{} chars", row.total_chars),
        };
        flags.push(span);
        writeln!(
            out,
            "{} {} {} {}",
            self.bold(&format!("{:>6}", row.seq)),
            self.bold(&label),
            self.dim(row.created_at.as_deref().unwrap_or("-")),
            self.dim(&format!("({})", flags.join(", "))),
        )?;
        for line in row.content.lines() {
            writeln!(out, "       {line}")?;
        }
        if row.truncated {
            writeln!(out, "       {}", self.dim("…"))?;
        }
        Ok(())
    }

    fn fold(&self, out: &mut dyn Write, fold: &Fold) -> io::Result<()> {
        let tools: Vec<String> = fold
            .tools
            .iter()
            .map(|(name, n)| format!("{name} ×{n}"))
            .collect();
        let others = fold.count - fold.tools.values().sum::<usize>();
        let mut parts = tools;
        if others > 0 {
            parts.push(format!("context ×{others}"));
        }
        let seqs = if fold.first_seq == fold.last_seq {
            format!("seq {}", fold.first_seq)
        } else {
            format!("seqs {}-{}", fold.first_seq, fold.last_seq)
        };
        writeln!(
            out,
            "{}",
            self.dim(&format!(
                "       ┄ {} folded: {} ({seqs})",
                fold.count,
                parts.join(", ")
            ))
        )
    }
}

impl HistoryPrinter for HumanPrinter {
    fn windows(&self, out: &mut dyn Write, result: &WindowsResult) -> io::Result<()> {
        writeln!(out, "session {}", self.bold(&result.session_id))?;
        for window in &result.windows {
            let seqs = match (window.first_seq, window.last_seq) {
                (Some(a), Some(b)) => format!("seqs {a}-{b}"),
                _ => "no events".to_string(),
            };
            writeln!(
                out,
                "{}  {}  {} events  {}",
                self.bold(&window.window_id),
                seqs,
                window.item_count,
                self.dim(window.created_at.as_deref().unwrap_or("(session start)")),
            )?;
        }
        if let Some(more) = result.more {
            writeln!(
                out,
                "{}",
                self.dim(&format!("… {more} newer windows not shown"))
            )?;
        }
        skipped_note(self, out, result.skipped_lines)
    }

    fn page(&self, out: &mut dyn Write, page: &Page) -> io::Result<()> {
        if page.items.is_empty() {
            writeln!(out, "{}", self.dim("no events match this selection"))?;
        }
        for item in &page.items {
            match item {
                Item::Row(row) => self.row(out, row)?,
                Item::Fold(fold) => self.fold(out, fold)?,
            }
        }
        let mut cursors = Vec::new();
        if let Some(before) = page.older_before {
            cursors.push(format!("older: --before {before}"));
        }
        if let Some(after) = page.newer_after {
            cursors.push(format!("newer: --after {after}"));
        }
        if !cursors.is_empty() {
            writeln!(out, "{}", self.dim(&cursors.join("   ")))?;
        }
        skipped_note(self, out, page.skipped_lines)
    }

    fn read(
        &self,
        out: &mut dyn Write,
        result: &ReadResult,
        skipped_lines: usize,
    ) -> io::Result<()> {
        write!(out, "{}", self.dim(&result.window.header()))?;
        out.write_all(result.window.content.as_bytes())?;
        if !result.window.content.ends_with('\n') {
            writeln!(out)?;
        }
        skipped_note(self, out, skipped_lines)
    }
}

/// A warning on stderr, so that stdout stays exactly the result.
fn skipped_note(_p: &HumanPrinter, _out: &mut dyn Write, skipped: usize) -> io::Result<()> {
    if skipped > 0 {
        let _ = writeln!(
            io::stderr(),
            "warning: {skipped} unreadable lines of the session were skipped"
        );
    }
    Ok(())
}

impl HumanPrinter {
    fn diff_line(&self, line: &str) -> String {
        if !self.color {
            return line.to_string();
        }
        if line.starts_with("+++") || line.starts_with("---") {
            line.bold().to_string()
        } else if line.starts_with('+') {
            line.green().to_string()
        } else if line.starts_with('-') {
            line.red().to_string()
        } else if line.starts_with("@@") {
            line.cyan().to_string()
        } else {
            line.to_string()
        }
    }

    /// Notices about what a page left out, and homes that could not be read (on stderr).
    fn omissions<F>(&self, out: &mut dyn Write, page: &NotesPage<F>) -> io::Result<()> {
        let (more, crumpled) = (page.more, page.crumpled_excluded);
        let (wastebasket, unavailable) = (page.wastebasket, &page.homes_unavailable);
        if more > 0 {
            writeln!(
                out,
                "{}",
                self.dim(&format!(
                    "{more} more not shown; narrow with --pattern or raise --limit"
                ))
            )?;
        }
        if crumpled > 0 {
            let text = if wastebasket {
                format!(
                    "{crumpled} live notes not shown (the wastebasket lists crumpled notes only)"
                )
            } else {
                format!("{crumpled} crumpled notes hidden; --wastebasket lists them")
            };
            writeln!(out, "{}", self.dim(&text))?;
        }
        for home in unavailable {
            let _ = writeln!(io::stderr(), "warning: {home} could not be read");
        }
        Ok(())
    }
}

impl NotesPrinter for HumanPrinter {
    fn written(&self, out: &mut dyn Write, receipt: &WriteReceipt) -> io::Result<()> {
        let project = receipt
            .project_key
            .as_ref()
            .map(|k| self.dim(&format!(" (project {k})")))
            .unwrap_or_default();
        writeln!(
            out,
            "{} {}{project}",
            receipt.outcome,
            self.bold(&receipt.address)
        )
    }

    fn edited(&self, out: &mut dyn Write, receipt: &EditReceipt) -> io::Result<()> {
        if receipt.change_kind == "none" {
            return writeln!(
                out,
                "unchanged {}: nothing to change",
                self.bold(&receipt.address)
            );
        }
        let edits = if receipt.applied == 1 {
            "edit"
        } else {
            "edits"
        };
        writeln!(
            out,
            "updated {}: {} {edits} applied ({} change)",
            self.bold(&receipt.address),
            receipt.applied,
            receipt.change_kind
        )?;
        for line in receipt.diff.lines() {
            writeln!(out, "{}", self.diff_line(line))?;
        }
        if receipt.diff_truncated {
            writeln!(
                out,
                "{}",
                self.dim("… diff shortened; the edit itself was applied in full")
            )?;
        }
        Ok(())
    }

    fn read(&self, out: &mut dyn Write, window: &ReadWindow) -> io::Result<()> {
        write!(out, "{}", self.dim(&window.header()))?;
        out.write_all(window.content.as_bytes())?;
        if !window.content.is_empty() && !window.content.ends_with('\n') {
            writeln!(out)?;
        }
        let counters = window.identity.iter().find(|(key, _)| *key == COUNTERS_KEY);
        if let Some((_, why)) = counters {
            // On stderr, so that stdout stays exactly the READ WINDOW.
            let _ = writeln!(io::stderr(), "warning: access counters {why}");
        }
        Ok(())
    }

    fn list(&self, out: &mut dyn Write, page: &ListPage) -> io::Result<()> {
        if page.files.is_empty() && page.more == 0 {
            writeln!(out, "{}", self.dim("no notes"))?;
        }
        for file in &page.files {
            let crumpled = file
                .crumpled_at
                .as_ref()
                .map(|at| self.dim(&format!("  (crumpled {at})")))
                .unwrap_or_default();
            writeln!(
                out,
                "{}  {}{crumpled}",
                self.dim(&file.updated_at),
                self.bold(&file.address)
            )?;
        }
        self.omissions(out, page)
    }

    fn search(&self, out: &mut dyn Write, page: &SearchPage) -> io::Result<()> {
        if page.files.is_empty() && page.more == 0 {
            writeln!(out, "{}", self.dim("no matches"))?;
        }
        for file in &page.files {
            let shown = if file.matches.len() < file.matches_total {
                format!(", {} shown", file.matches.len())
            } else {
                String::new()
            };
            let plural = if file.matches_total == 1 {
                "match"
            } else {
                "matches"
            };
            writeln!(
                out,
                "{}  {}",
                self.bold(&file.address),
                self.dim(&format!(
                    "updated {} · {} {plural}{shown}",
                    file.updated_at, file.matches_total
                ))
            )?;
            for hit in &file.matches {
                let cut = if hit.truncated {
                    self.dim(" …")
                } else {
                    String::new()
                };
                writeln!(
                    out,
                    "  {} {}{cut}",
                    self.dim(&format!("line {}, offset {}:", hit.line, hit.offset_chars)),
                    hit.text
                )?;
            }
        }
        self.omissions(out, page)
    }
}
