//! `checkpoint show`: which session and checkpoint, then its fields as the boot shows them.

use std::io::{self, Write};

use pi_context::checkpoint::{self, Shown};
use pi_context::clock::relative_time;

use super::HumanPrinter;
use crate::cli::printer::CheckpointPrinter;

impl CheckpointPrinter for HumanPrinter {
    fn show(&self, out: &mut dyn Write, shown: &Shown) -> io::Result<()> {
        let session = shown.session_id.as_deref().unwrap_or("(no id)");
        writeln!(
            out,
            "{}",
            self.dim(&format!("session {session} · {}", shown.session_file))
        )?;
        if shown.malformed > 0 {
            writeln!(
                out,
                "{}",
                self.dim(&match shown.malformed {
                    1 => "1 newer checkpoint entry could not be read and was skipped".to_string(),
                    n => format!("{n} newer checkpoint entries could not be read and were skipped"),
                })
            )?;
        }
        let Some(found) = &shown.checkpoint else {
            return writeln!(out, "No checkpoint on this branch.");
        };
        let saved = match (found.saved_time(), self.now) {
            (Some(at), Some(now)) => format!("saved {at} ({})", relative_time(now, at)),
            (Some(at), None) => format!("saved {at}"),
            (None, _) => "saved at an unknown time".to_string(),
        };
        writeln!(
            out,
            "{} · {saved} · entry {}",
            self.bold(&format!(
                "Checkpoint generation {}",
                found.checkpoint.generation
            )),
            found.entry_id
        )?;
        writeln!(out)?;
        writeln!(out, "{}", checkpoint::body(found))
    }
}
