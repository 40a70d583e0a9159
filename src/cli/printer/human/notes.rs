//! `notes write|edit|move|read|list|search`.

use std::io::{self, Write};

use owo_colors::OwoColorize;
use pi_context::clock::age_in_words;
use pi_context::notes::clock;
use pi_context::notes::{
    EditReceipt, ListPage, LogEntry, LogPage, MoveReceipt, NoteDiff, NotesPage, RestoreReceipt,
    SearchPage, WriteReceipt, COUNTERS_KEY,
};
use pi_context::readwindow::ReadWindow;
use pi_context::sync::SyncOutcome;

use super::HumanPrinter;
use crate::cli::printer::NotesPrinter;

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
    fn moved(&self, out: &mut dyn Write, receipt: &MoveReceipt) -> io::Result<()> {
        let replaced = if receipt.outcome == "replaced_crumpled" {
            self.dim(" (replaced a crumpled note)")
        } else {
            String::new()
        };
        writeln!(
            out,
            "moved {} -> {}{replaced}",
            self.bold(&receipt.from),
            self.bold(&receipt.to)
        )
    }

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
                .map(|at| {
                    let when = self
                        .now
                        .zip(clock::parse(at))
                        .map_or_else(|| at.clone(), |(now, at)| age_in_words(now, at));
                    self.dim(&format!("  (crumpled {when})"))
                })
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

    fn log(&self, out: &mut dyn Write, page: &LogPage) -> io::Result<()> {
        if page.commits.is_empty() {
            return writeln!(out, "no commits");
        }
        for entry in &page.commits {
            self.log_entry(out, entry)?;
        }
        if page.more {
            writeln!(
                out,
                "{}",
                self.dim("older commits not shown; raise --limit")
            )?;
        }
        Ok(())
    }

    fn diff(&self, out: &mut dyn Write, diff: &NoteDiff) -> io::Result<()> {
        let from = diff.from.as_deref().map_or("(no earlier version)", short);
        if diff.diff.is_empty() {
            return writeln!(
                out,
                "no difference: {} is as it was at {from}",
                self.bold(&diff.address)
            );
        }
        for line in diff.diff.lines() {
            writeln!(out, "{}", self.diff_line(line))?;
        }
        Ok(())
    }

    fn synced(&self, out: &mut dyn Write, outcome: &SyncOutcome, verbose: bool) -> io::Result<()> {
        if verbose {
            self.sync_summary(out, outcome)?;
        }
        self.sync_attention(out, outcome)
    }

    fn restored(&self, out: &mut dyn Write, receipt: &RestoreReceipt) -> io::Result<()> {
        let commit = receipt
            .commit
            .as_deref()
            .map(|c| self.dim(&format!(" (commit {})", short(c))))
            .unwrap_or_default();
        writeln!(
            out,
            "{} {} from {}{commit}",
            receipt.outcome,
            self.bold(&receipt.address),
            short(&receipt.from)
        )
    }
}

impl HumanPrinter {
    /// The sync's summary and the paths it changed (verbose only), then what needs attention.
    fn sync_summary(&self, out: &mut dyn Write, outcome: &SyncOutcome) -> io::Result<()> {
        let mut parts = Vec::new();
        match outcome.changed.len() {
            0 if outcome.merges.is_empty() => parts.push("nothing new here".to_string()),
            0 => parts.push("merged (no file changed here)".to_string()),
            1 => parts.push("merged 1 change here".to_string()),
            n => parts.push(format!("merged {n} changes here")),
        }
        if outcome.local_commit.is_some() {
            parts.push("committed local changes".to_string());
        }
        parts.push(if outcome.pushed {
            "pushed".to_string()
        } else {
            "nothing to push".to_string()
        });
        writeln!(
            out,
            "synced {} with {}: {}",
            outcome.branch,
            self.bold(&outcome.remote),
            parts.join(", ")
        )?;
        for change in &outcome.changed {
            let name = change.address.as_deref().unwrap_or(&change.path);
            writeln!(out, "  {}: {name}", self.dim(change.kind))?;
        }
        Ok(())
    }

    fn sync_attention(&self, out: &mut dyn Write, outcome: &SyncOutcome) -> io::Result<()> {
        let warn = |text: &str| self.paint(text, |t| t.yellow().bold().to_string());
        for c in &outcome.conflicts {
            let name = c.address.as_deref().unwrap_or(&c.path);
            writeln!(
                out,
                "{} {}: both versions kept between conflict markers in {}; edit it to resolve them",
                warn("conflict:"),
                self.bold(name),
                c.path
            )?;
        }
        for k in &outcome.key_conflicts {
            let name = k.address.as_deref().unwrap_or(&k.path);
            writeln!(
                out,
                "{} {}: {} changed on both sides; kept {:?} (the later note's), not {:?}",
                warn("metadata:"),
                self.bold(name),
                k.key,
                k.kept,
                k.other
            )?;
        }
        for a in &outcome.kept_aside {
            writeln!(
                out,
                "{} {}: binary, changed on both sides; ours stays, theirs is at {}",
                warn("kept aside:"),
                a.path,
                a.theirs_path
            )?;
        }
        for r in &outcome.refused {
            writeln!(
                out,
                "{} {} from {}: {}",
                warn("refused:"),
                r.path,
                outcome.remote,
                r.reason
            )?;
        }
        Ok(())
    }
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

impl HumanPrinter {
    /// `<id> <time> <summary>`, who made it, then the notes it changed.
    fn log_entry(&self, out: &mut dyn Write, entry: &LogEntry) -> io::Result<()> {
        let id = if self.color {
            short(&entry.commit).yellow().to_string()
        } else {
            short(&entry.commit).to_string()
        };
        writeln!(
            out,
            "{id} {} {}",
            self.dim(&entry.time),
            self.bold(&entry.summary)
        )?;
        let who: Vec<String> = [
            entry.agent.as_ref().map(|a| format!("agent {a}")),
            entry.session.as_ref().map(|s| format!("session {s}")),
            entry.model.as_ref().map(|m| format!("model {m}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        let who = if who.is_empty() {
            format!("by {}", entry.author)
        } else {
            who.join(" · ")
        };
        writeln!(out, "    {}", self.dim(&who))?;
        for change in &entry.changes {
            let mark = match change.kind {
                "added" => "A",
                "deleted" => "D",
                _ => "M",
            };
            let name = change.address.as_deref().unwrap_or(&change.path);
            writeln!(out, "    {mark} {name}")?;
        }
        if entry.changes_more > 0 {
            writeln!(
                out,
                "    {}",
                self.dim(&format!("… and {} more", entry.changes_more))
            )?;
        }
        Ok(())
    }
}
