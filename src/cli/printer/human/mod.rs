//! Readable text for people at a terminal, one file per capability. Colors only when the UI
//! decided so.

mod boot;
mod checkpoint;
mod dream;
mod history;
mod notes;
mod sessions;

use std::borrow::Cow;

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

/// Text another program wrote (a transcript's prompt, title, id or tool output), as a terminal
/// may show it: every control character but newline and tab (C0, DEL, C1) as a `\u{1b}`
/// escape, so such text can never move the cursor, change colors, retitle the window or write
/// the clipboard (OSC 52), whatever `--color` says. The JSON output keeps the text exact.
pub(super) fn visible(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`visible`] for text shown on one line: tabs and newlines are escaped too.
pub(super) fn visible_line(text: &str) -> Cow<'_, str> {
    if text.chars().any(char::is_control) {
        Cow::Owned(pi_context::text::one_line(text))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_as_escapes() {
        assert_eq!(visible("plain\ttext\n"), "plain\ttext\n");
        assert!(matches!(visible("plain"), Cow::Borrowed(_)));
        assert_eq!(
            visible("a\u{1b}]52;c;aGk=\u{7}b\u{9b}2Jc\u{7f}"),
            "a\\u{1b}]52;c;aGk=\\u{7}b\\u{9b}2Jc\\u{7f}"
        );
        assert_eq!(visible_line("a\tb\nc\u{1b}"), "a\\tb\\nc\\u{1b}");
    }
}
