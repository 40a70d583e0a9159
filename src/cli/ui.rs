//! Where output goes, whether it is colored, and the progress shown on stderr.

use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};
use std::time::Duration;

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

/// A command's progress on stderr: a spinner with a message, or a bar over a known amount of
/// work. Drawn only when wanted and stderr is a terminal (stdout stays exactly the result), and
/// cleared when finished or dropped. Every command shows its progress through it: a dream's
/// dreamer, a sync's stages, the session index's bar and merges, `dream doctor`'s count.
pub struct Progress {
    enabled: bool,
    /// Work smaller than this is not worth a bar.
    min_bar_total: u64,
    shown: Option<ProgressBar>,
    bar_drawn: bool,
}

/// How often a spinner that turns by itself turns.
const SPIN_EVERY: Duration = Duration::from_millis(120);

impl Progress {
    /// Progress that is drawn when `wanted` and stderr is a terminal.
    pub fn on_terminal(wanted: bool) -> Progress {
        Progress {
            enabled: wanted && io::stderr().is_terminal(),
            min_bar_total: 0,
            shown: None,
            bar_drawn: false,
        }
    }

    /// Draws no bar for less work than `total` (a spinner still shows).
    pub fn bars_from(mut self, total: u64) -> Progress {
        self.min_bar_total = total;
        self
    }

    /// A spinner that turns by itself, saying `message` (instead of anything shown before).
    pub fn spin(&mut self, message: impl Into<Cow<'static, str>>) {
        if let Some(spinner) = self.show(ProgressBar::new_spinner, SPINNER) {
            spinner.set_message(message);
            spinner.enable_steady_tick(SPIN_EVERY);
        }
    }

    /// One turn of a spinner, saying `message`: for work that reports its own steps.
    pub fn step(&mut self, message: impl Into<Cow<'static, str>>) {
        if self.shown.is_none() {
            self.show(ProgressBar::new_spinner, SPINNER);
        }
        if let Some(spinner) = &self.shown {
            spinner.set_message(message);
            spinner.tick();
        }
    }

    /// What the spinner (or the bar) says now.
    pub fn say(&mut self, message: impl Into<Cow<'static, str>>) {
        if let Some(shown) = &self.shown {
            shown.set_message(message);
        }
    }

    /// A bar over `total` units of work, drawn by indicatif's `template`, saying `message`.
    pub fn bar(&mut self, total: u64, template: &str, message: impl Into<Cow<'static, str>>) {
        if total < self.min_bar_total {
            return;
        }
        if let Some(bar) = self.show(|| ProgressBar::new(total), template) {
            bar.set_message(message);
            self.bar_drawn = true;
        }
    }

    /// Whether a bar was drawn since this progress began.
    pub fn bar_drawn(&self) -> bool {
        self.bar_drawn
    }

    /// `units` more of the bar's work are done.
    pub fn advance(&mut self, units: u64) {
        if let Some(bar) = &self.shown {
            bar.inc(units);
        }
    }

    /// Clears what is shown.
    pub fn finish(&mut self) {
        if let Some(shown) = self.shown.take() {
            shown.finish_and_clear();
        }
    }

    /// Shows a new bar or spinner in `template`, instead of what was shown; `None` when disabled.
    fn show(&mut self, new: impl FnOnce() -> ProgressBar, template: &str) -> Option<&ProgressBar> {
        if !self.enabled {
            return None;
        }
        self.finish();
        let shown = new();
        if let Ok(style) = ProgressStyle::with_template(template) {
            shown.set_style(style);
        }
        self.shown = Some(shown);
        self.shown.as_ref()
    }
}

/// A spinner and its message.
const SPINNER: &str = "{spinner} {msg}";

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Progress as on a terminal (indicatif itself draws nothing when stderr is not one).
    fn drawn() -> Progress {
        let mut progress = Progress::on_terminal(false);
        progress.enabled = true;
        progress
    }

    #[test]
    fn a_bar_for_less_work_than_its_threshold_is_not_drawn_and_a_spinner_replaces_a_bar() {
        let mut progress = drawn().bars_from(100);
        progress.bar(99, "{wide_bar}", "small");
        assert!(progress.shown.is_none() && !progress.bar_drawn());
        progress.bar(100, "{wide_bar}", "large");
        assert_eq!(progress.shown.as_ref().map(|b| b.length()), Some(Some(100)));
        assert!(progress.bar_drawn());
        progress.spin("merging");
        let spinner = progress.shown.as_ref().expect("a spinner");
        assert_eq!(
            (spinner.length(), spinner.message()),
            (None, "merging".into())
        );
        progress.finish();
        assert!(progress.shown.is_none() && progress.bar_drawn());
    }

    #[test]
    fn progress_off_the_terminal_shows_nothing() {
        let mut progress = Progress::on_terminal(false);
        progress.step("1 checked");
        progress.spin("spinning");
        progress.bar(10, "{wide_bar}", "bar");
        assert!(progress.shown.is_none() && !progress.bar_drawn());
    }
}
