use std::io::IsTerminal;

use clap::Args;
use indicatif::ProgressBar;
use pi_context::dream;
use pi_context::environment::{Inputs, Vars};

use crate::cli::error::{exit, Outcome};
use crate::cli::printer;
use crate::cli::ui::Ui;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    home: super::HomeArgs,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

/// `dream doctor`: read-only; exit 0 when clean, 1 when it found issues.
pub fn run(args: DoctorArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, Outcome> {
    let env = args.home.environment(Inputs::default(), vars)?;
    let home = env.notes_home()?;
    let spinner = std::io::stderr()
        .is_terminal()
        .then(ProgressBar::new_spinner);
    let mut progress = |checked: usize| {
        // Only a large store is worth a progress line.
        if let Some(bar) = spinner.as_ref().filter(|_| checked.is_multiple_of(500)) {
            bar.set_message(format!("dream doctor: {checked} notes checked"));
            bar.tick();
        }
    };
    let report = dream::doctor::check(home, &mut progress);
    if let Some(bar) = spinner {
        bar.finish_and_clear();
    }
    printer::dream(args.json, ui.color).doctor(ui.out(), &report)?;
    Ok(if report.issues.is_empty() {
        exit::SUCCESS
    } else {
        exit::NEGATIVE
    })
}
