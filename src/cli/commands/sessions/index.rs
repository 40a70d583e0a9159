use std::io::IsTerminal;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use pi_context::recall::Progress;

use super::RootArgs;
use crate::cli::error::{exit, Outcome};
use crate::cli::ui::Ui;
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

pub fn run(args: IndexArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, Outcome> {
    let recall = args.roots.recall(&args.roots.environment(vars, None)?)?;
    let mut progress = Bar::new(true);
    let result = recall.index(args.rebuild, Some(&mut progress))?;
    args.roots.printer(ui).indexed(ui.out(), &result)?;
    Ok(exit::SUCCESS)
}

/// Work smaller than this is not worth a progress bar during a search.
const SEARCH_BAR_MIN_BYTES: u64 = 32 << 20;

/// A progress bar on stderr, only on a terminal.
pub struct Bar {
    always: bool,
    bar: Option<ProgressBar>,
    /// Whether the indexing bar was drawn (the merges that follow it get a spinner).
    drawn: bool,
}

impl Bar {
    /// `always`: show it for any amount of work (`index`); otherwise only for a large build.
    pub fn new(always: bool) -> Bar {
        Bar {
            always,
            bar: None,
            drawn: false,
        }
    }
}

impl Progress for Bar {
    fn start(&mut self, files: usize, bytes: u64) {
        if !std::io::stderr().is_terminal() || (!self.always && bytes < SEARCH_BAR_MIN_BYTES) {
            return;
        }
        let bar = ProgressBar::new(bytes);
        bar.set_style(
            ProgressStyle::with_template(
                "indexing {msg} sessions {wide_bar} {binary_bytes}/{binary_total_bytes} {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(files.to_string());
        self.bar = Some(bar);
        self.drawn = true;
    }

    fn advance(&mut self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn merging(&mut self, merges: usize) {
        if !self.drawn {
            return;
        }
        let spinner = ProgressBar::new_spinner();
        let plural = if merges == 1 { "" } else { "s" };
        spinner.set_message(format!(
            "merging the new segments into {merges} large one{plural}"
        ));
        spinner.enable_steady_tick(std::time::Duration::from_millis(120));
        self.bar = Some(spinner);
    }
}
