//! Readable text for people at a terminal, one file per capability. Colors only when the UI
//! decided so.

mod boot;
mod checkpoint;
mod dream;
mod history;
mod notes;
mod sessions;

use owo_colors::OwoColorize;

pub struct HumanPrinter {
    pub color: bool,
    /// Now, for ages ("crumpled 3 days ago"); without it, times are shown as written.
    pub now: Option<jiff::Timestamp>,
}

impl HumanPrinter {
    fn dim(&self, text: &str) -> String {
        if self.color {
            text.dimmed().to_string()
        } else {
            text.to_string()
        }
    }

    fn bold(&self, text: &str) -> String {
        if self.color {
            text.bold().to_string()
        } else {
            text.to_string()
        }
    }

    fn paint(&self, text: &str, style: fn(&str) -> String) -> String {
        if self.color {
            style(text)
        } else {
            text.to_string()
        }
    }
}
