//! Where output goes, and whether it is colored.

use std::io::{self, IsTerminal, Write};

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use pi_context::environment::Vars;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Color when writing to a terminal and NO_COLOR is unset.
    #[default]
    Auto,
    Always,
    Never,
}

/// Results of a megabyte or more (a list of 10,000 notes) go out in a few large writes.
const OUT_BUFFER_BYTES: usize = 64 * 1024;

/// The output side of a command run.
pub struct Ui {
    pub color: bool,
    pub stderr_color: bool,
    out: io::BufWriter<io::Stdout>,
}

impl Ui {
    pub fn new(choice: ColorChoice, vars: &Vars) -> Ui {
        let no_color = vars.text(pi_context::environment::vars::NO_COLOR).is_some();
        let decide = |tty: bool| match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => tty && !no_color,
        };
        Ui {
            color: decide(io::stdout().is_terminal()),
            stderr_color: decide(io::stderr().is_terminal()),
            out: io::BufWriter::with_capacity(OUT_BUFFER_BYTES, io::stdout()),
        }
    }

    pub fn out(&mut self) -> &mut dyn Write {
        &mut self.out
    }

    /// A `warning: …` line on stderr (stdout stays exactly the result).
    pub fn warn(&mut self, message: &str) {
        use owo_colors::OwoColorize;
        let label = if self.stderr_color {
            "warning:".yellow().bold().to_string()
        } else {
            "warning:".to_string()
        };
        let _ = writeln!(io::stderr(), "{label} {message}");
    }

    /// A `note: …` line on stderr: something worth knowing that is not a problem.
    pub fn note(&mut self, message: &str) {
        use owo_colors::OwoColorize;
        let label = if self.stderr_color {
            "note:".cyan().bold().to_string()
        } else {
            "note:".to_string()
        };
        let _ = writeln!(io::stderr(), "{label} {message}");
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A spinner with its message, for a command's progress on a terminal.
pub fn spinner() -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar
}
