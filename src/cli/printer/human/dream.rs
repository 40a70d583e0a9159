//! `dream`, `dream doctor` and `dream undo`.

use std::io::{self, Write};

use pi_context::dream::doctor::DoctorReport;
use pi_context::dream::undo::UndoOutcome;
use pi_context::dream::{DreamOutcome, Status};

use super::HumanPrinter;
use crate::cli::printer::{DreamPrinter, DreamView};

impl DreamPrinter for HumanPrinter {
    /// The gate lines; on a terminal (or for a dry run) the plan or what changed; then the
    /// report path as the last line, so cron and scripts can take it.
    fn dream(
        &self,
        out: &mut dyn Write,
        outcome: &DreamOutcome,
        view: &DreamView,
    ) -> io::Result<()> {
        for gate in &outcome.gates {
            writeln!(out, "{}", gate.reason)?;
        }
        match outcome.status {
            Status::Planned if view.terminal || view.dry_run => writeln!(
                out,
                "plan: dream over {} (writable: {})",
                view.home.display(),
                outcome.writable.join(", ")
            )?,
            Status::Ran | Status::Failed => {
                if view.terminal {
                    self.dream_details(out, outcome)?;
                }
                if let Some(report) = &outcome.report {
                    writeln!(out, "{}", report.display())?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn doctor(&self, out: &mut dyn Write, report: &DoctorReport) -> io::Result<()> {
        if report.issues.is_empty() {
            return writeln!(out, "dream doctor: OK ({})", report.home.display());
        }
        for issue in &report.issues {
            writeln!(out, "{}: {}", self.bold(&issue.path), issue.message)?;
        }
        Ok(())
    }

    fn undone(&self, out: &mut dyn Write, outcome: &UndoOutcome) -> io::Result<()> {
        for path in &outcome.paths {
            let name = path.address.as_deref().unwrap_or(&path.path);
            let action = match path.action {
                "reverted" => "reverted",
                "both_kept" => "both versions kept (resolve the conflict markers)",
                "later_kept" => "kept: the dream made it and a later change edited it",
                _ => "already as before the dream",
            };
            writeln!(out, "{}: {action}", self.bold(name))?;
        }
        let commit = outcome.commit.as_deref().map_or_else(
            || "nothing to commit".to_string(),
            |c| format!("commit {}", &c[..c.len().min(12)]),
        );
        writeln!(out, "undid dream {} ({commit})", outcome.stamp)
    }
}

impl HumanPrinter {
    fn dream_details(&self, out: &mut dyn Write, outcome: &DreamOutcome) -> io::Result<()> {
        for change in &outcome.changes {
            writeln!(out, "{}: {}", change.kind, change.path)?;
        }
        for v in &outcome.violations {
            writeln!(out, "violation ({}): {}", v.kind, v.path)?;
        }
        for p in &outcome.purged {
            writeln!(out, "purged: {} (crumpled {})", p.path, p.crumpled_at)?;
        }
        for c in &outcome.conflicts {
            writeln!(out, "conflict: {} (kept the {} version)", c.path, c.kept)?;
        }
        Ok(())
    }
}
