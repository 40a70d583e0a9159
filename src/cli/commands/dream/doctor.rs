use clap::Args;
use pi_context::dream;
use pi_context::environment::{Inputs, Vars};

use crate::cli::error::{exit, CommandError};
use crate::cli::printer;
use crate::cli::ui::{Progress, Ui};

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    home: super::HomeArgs,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

/// `dream doctor`: read-only; exit 0 when clean, 1 when it found issues.
pub fn run(args: DoctorArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.home.environment(Inputs::default(), vars)?;
    let home = env.notes_home()?;
    let mut progress = Progress::on_terminal(true);
    let report = dream::doctor::check(home, &mut |checked: usize| {
        // Only a large store is worth a progress line.
        if checked.is_multiple_of(500) {
            progress.step(format!("dream doctor: {checked} notes checked"));
        }
    });
    progress.finish();
    printer::dream(args.json, ui.color).doctor(ui.out(), &report)?;
    Ok(if report.issues.is_empty() {
        exit::SUCCESS
    } else {
        exit::NEGATIVE
    })
}
