//! `pi-context boot`: renders the boot block for a fresh context window.
//!
//! Reads one JSON object on stdin (the boot request, `docs/protocol.md` "Boot"), reads the live
//! branch's checkpoint, takes one snapshot of the five notes homes, and prints the boot block
//! (`pi_context::boot`) with no colors. `--json` prints
//! `{"text","window_id","previous_window_id","reason","homes_unavailable"}`.

use std::io::Read;

use clap::Args;

use pi_context::boot::{self, Request};

use crate::cli::error::{exit, CommandError};
use crate::cli::printer;
use crate::cli::ui::Ui;
use pi_context::environment::Vars;

/// Render the boot block for a fresh context window from a JSON request on stdin
#[derive(Debug, Args)]
#[command(after_long_help = REQUEST_HELP)]
pub struct BootArgs {
    /// Print {"text","window_id","previous_window_id","reason","homes_unavailable"} instead of the text
    #[arg(long)]
    json: bool,
}

const REQUEST_HELP: &str = r#"The request on stdin (one JSON object):
  {"reason": "session_start"|"wipe_memory"|"manual"|"budget"|"hard_reserve"|"overflow"|"repair",
   "session_id": "…", "window_id": "pcw:…", "previous_window_id": "pcw:…"|null,
   "snapshot_time": "<RFC 3339>",
   "cwd": "<dir>"|null, "project_key": "<key>"|null,
   "agent": "<name>"|null, "model": "<provider/id>"|null, "notes_home": "<dir>"|null,
   "session_dir": "<dir>"|null,
   "session_file": "<session.jsonl>"|null, "leaf_id": "<entry id>"|"none"|null,
   "entries": ["<json line>", …]}
Unset identity fields fall back like every notes command: PI_NOTES_AGENT, PI_CONTEXT_MODEL,
PI_NOTES_HOME, the project key of cwd (else of the current directory). The live session
(session_file, or entries while Pi keeps it in memory, and leaf_id) gives the branch whose
checkpoint opens the block; a branch without one shows the project's latest other checkpoint."#;

pub fn run(args: BootArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| CommandError::io("cannot read the boot request from stdin", e))?;
    let boot = Request::parse(&input).and_then(|request| boot::prepare(request, vars))?;
    printer::boot(args.json).boot(ui.out(), &boot.rendered())?;
    Ok(exit::SUCCESS)
}
