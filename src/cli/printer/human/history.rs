//! `history windows|list|read|search`.

use std::io::{self, Write};

use pi_context::history::{Fold, Item, Page, ReadResult, Row, WindowsResult};

use super::{visible, visible_line, HumanPrinter};
use crate::cli::printer::HistoryPrinter;

impl HumanPrinter {
    fn row(&self, out: &mut dyn Write, row: &Row) -> io::Result<()> {
        let mut label = row.role.as_str().to_string();
        if let Some(tool) = &row.tool {
            label = format!("{label}:{}", visible_line(tool));
        }
        let mut flags = Vec::new();
        if row.tool_error {
            flags.push("error".to_string());
        }
        if row.output_truncated {
            match row.full_output_path.as_ref().and_then(|p| p.as_deref()) {
                Some(path) => flags.push(format!(
                    "output truncated, full output at {}",
                    visible_line(path)
                )),
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
            self.dim(&visible_line(row.created_at.as_deref().unwrap_or("-"))),
            self.dim(&format!("({})", flags.join(", "))),
        )?;
        for line in row.content.lines() {
            writeln!(out, "       {}", visible(line))?;
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
            .map(|(name, n)| format!("{} ×{n}", visible_line(name)))
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
        writeln!(
            out,
            "session {}",
            self.bold(&visible_line(&result.session_id))
        )?;
        for window in &result.windows {
            let seqs = match (window.first_seq, window.last_seq) {
                (Some(a), Some(b)) => format!("seqs {a}-{b}"),
                _ => "no events".to_string(),
            };
            writeln!(
                out,
                "{}  {}  {} events  {}",
                self.bold(&visible_line(&window.window_id)),
                seqs,
                window.item_count,
                self.dim(&visible_line(
                    window.created_at.as_deref().unwrap_or("(session start)")
                )),
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
        write!(out, "{}", self.dim(&visible(&result.window.header())))?;
        out.write_all(visible(&result.window.content).as_bytes())?;
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
