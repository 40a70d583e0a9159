use clap::Args;
use pi_context::recall;

use super::RootArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::ui::{Progress, Ui};
use pi_context::environment::Vars;

/// Bring the session index up to date (never required: list and search refresh it first)
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Start from an empty index
    #[arg(long)]
    rebuild: bool,
    #[command(flatten)]
    roots: RootArgs,
}

pub fn run(args: IndexArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let recall = args.roots.recall(&args.roots.environment(vars, None)?)?;
    let mut progress = Progress::on_terminal(true);
    let result = recall.index(args.rebuild, Some(&mut progress))?;
    args.roots.printer(ui).indexed(ui.out(), &result)?;
    Ok(exit::SUCCESS)
}

/// Work smaller than this is not worth a progress bar during a search.
pub const SEARCH_BAR_MIN_BYTES: u64 = 32 << 20;

/// The session index's progress: a bar over the bytes to index, then a spinner while the new
/// segments merge (only after a bar).
impl recall::Progress for Progress {
    fn start(&mut self, files: usize, bytes: u64) {
        self.bar(
            bytes,
            "indexing {msg} sessions {wide_bar} {binary_bytes}/{binary_total_bytes} {eta}",
            files.to_string(),
        );
    }

    fn advance(&mut self, bytes: u64) {
        Progress::advance(self, bytes);
    }

    fn finish(&mut self) {
        Progress::finish(self);
    }

    fn merging(&mut self, merges: usize) {
        if self.bar_drawn() {
            let plural = if merges == 1 { "" } else { "s" };
            self.spin(format!(
                "merging the new segments into {merges} large one{plural}"
            ));
        }
    }
}
