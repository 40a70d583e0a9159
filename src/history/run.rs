//! The one way a history operation reads its session: [`with_history`].
//!
//! It opens the session, runs the raw-byte search scan (when asked) on another thread over the
//! same bytes while they are parsed and projected (then on this one too), runs the operation, and then checks that the
//! file was not rewritten under it; if it was, the whole operation runs again on a fresh open
//! (see [`crate::session::read_consistently`]). The command line and the tool protocol both call
//! it, so neither can forget the check.

use std::path::Path;

use super::prefilter::{RawScan, Scanner, SharedScan};
use super::{History, HistoryError, Leaf, ProjectionStore};
use crate::redact::Masking;
use crate::session::{self, OpenOptions, Session};

/// Where a history operation's session comes from.
#[derive(Debug, Clone, Copy)]
pub enum SessionInput<'a> {
    /// A session file; a missing file is an empty session.
    File {
        path: &'a Path,
        options: &'a OpenOptions,
    },
    /// The session's JSON lines held in memory (Pi's `--no-session`, or a file not yet written).
    Lines(&'a [String]),
}

/// Which branch of the session to project.
#[derive(Debug, Clone, Copy)]
pub struct Branch<'a> {
    pub leaf: &'a Leaf,
    /// Names the root window when the session has no header id.
    pub session_id: Option<&'a str>,
    /// How documents are shown: masked for another session's reads (docs/recall.md, "Secrets").
    pub masking: Masking,
}

/// Runs `op` on the projected branch. With `scan_for`, the raw bytes are scanned for those
/// queries while the session loads, and `op` gets the scan (for
/// [`History::search_scanned`]); `None` when there is nothing to prefilter with.
///
/// `op` may run more than once: again on a fresh read when the file was rewritten in place or
/// shrank while it ran. A file that keeps changing is
/// [`SessionError::Changed`](crate::session::SessionError::Changed).
pub fn with_history<T>(
    input: SessionInput,
    branch: Branch,
    scan_for: Option<&[String]>,
    mut op: impl FnMut(&History, Option<&RawScan>) -> Result<T, HistoryError>,
) -> Result<T, HistoryError> {
    let scanner = scan_for.and_then(Scanner::new);
    match input {
        SessionInput::File { path, options } => session::read_consistently(path, |file| {
            let shared = scanner.as_ref().map(|scanner| scanner.share_file(file));
            std::thread::scope(|scope| {
                let helper = shared.as_ref().map(|scan| scope.spawn(|| scan.work()));
                // Entries are decoded from the index only as the operation reaches them.
                let session = file.session_decoding_lazily(options);
                let store = ProjectionStore::for_file(file, options);
                let history = History::project_stored(
                    &session,
                    store.as_ref(),
                    branch.leaf,
                    branch.session_id,
                );
                // This thread scans too once the branch is projected.
                if let Some(scan) = &shared {
                    match history {
                        Ok(_) => scan.work(),
                        Err(_) => scan.cancel(),
                    }
                }
                if let Some(helper) = helper {
                    // A panic left its piece unscanned, which `finish` accounts for.
                    let _ = helper.join();
                }
                let scan = shared.as_ref().map(SharedScan::finish);
                let history = history?.with_masking(branch.masking);
                let result = op(&history, scan.as_ref());
                if !session.index_damaged() {
                    return result;
                }
                // A corrupt index gave stand-in entries. Decoding every entry up front never
                // takes a corrupt index: the file is parsed (and its index rewritten), and the
                // branch projected afresh.
                drop(history);
                let session = file.session(options);
                let history = History::project(&session, branch.leaf, branch.session_id)?
                    .with_masking(branch.masking);
                op(&history, scan.as_ref())
            })
        }),
        SessionInput::Lines(lines) => {
            let session = Session::from_lines(lines);
            let history = History::project(&session, branch.leaf, branch.session_id)?
                .with_masking(branch.masking);
            let scan = scanner.map(|scanner| scanner.scan(session.bytes()));
            op(&history, scan.as_ref())
        }
    }
}
