//! A search prefilter over the raw session bytes.
//!
//! Decoding every event's document to search it costs a full JSON decode of the session. Instead,
//! each query's longest run of characters that JSON never escapes and that no document joins
//! across (no whitespace, quotes, backslashes, slashes or control characters) is searched in the
//! raw bytes, the way `rg` would, and only events whose lines contain a run are decoded and
//! matched for real.
//!
//! Soundness: a match of a query inside a document contains its run; the run cannot span the
//! pieces a document is joined from, so it lies inside one piece, whose raw JSON shows it
//! verbatim, except (a) lines that escape non-ASCII characters or slashes, which are always
//! candidates, and (b) text the projection synthesizes for tool documents (`unknown`, `bash`,
//! `{}`, `--- output ---`, …): when a run could match those, every tool event is a candidate.

use regex::bytes::{Regex, RegexBuilder};

use super::project::{Event, History, Source};
use crate::text::LiteralMatcher;

/// Text that tool documents contain without it being in the session bytes.
const SYNTHESIZED: [&str; 5] = [
    "unknown",
    "bash",
    "{}",
    "{\"command\":}",
    "\n--- output ---\n",
];

pub(super) struct Prefilter {
    /// Per entry: its line contains a run (or cannot be judged from its bytes).
    flagged: Vec<bool>,
    tools_always: bool,
}

impl Prefilter {
    /// `None` when some query has no run to look for: then every event is a candidate.
    pub fn build(history: &History, queries: &[String]) -> Option<Prefilter> {
        let runs: Vec<&str> = queries
            .iter()
            .map(|q| longest_run(q))
            .collect::<Option<_>>()?;
        let regex = runs_regex(&runs)?;
        let tools_always = LiteralMatcher::new(&runs)
            .map(|m| SYNTHESIZED.iter().any(|piece| m.is_match(piece)))
            .unwrap_or(true);
        let session = history.session;
        let mut flagged: Vec<bool> = session
            .entries
            .iter()
            .map(|e| e.irregular_escapes)
            .collect();
        let bytes = session.bytes();
        let mut at = 0;
        while let Some(m) = regex.find_at(bytes, at) {
            at = match session.entry_at_byte(m.start()) {
                Some(i) => {
                    flagged[i] = true;
                    session.entries[i].span.end
                }
                None => memchr::memchr(b'\n', &bytes[m.start()..])
                    .map_or(bytes.len(), |n| m.start() + n + 1),
            };
        }
        Some(Prefilter {
            flagged,
            tools_always,
        })
    }

    /// Whether the event's document may contain a match.
    pub fn may_match(&self, event: &Event) -> bool {
        let flagged = |entry: usize| self.flagged.get(entry).copied().unwrap_or(true);
        match &event.source {
            Source::Content(_) | Source::Summary(_) => flagged(event.entry),
            Source::Call { result, .. } => {
                self.tools_always || flagged(event.entry) || result.is_some_and(flagged)
            }
            Source::OrphanResult | Source::Bash => self.tools_always || flagged(event.entry),
        }
    }
}

/// Characters that JSON may escape or that documents join pieces with.
fn breaks_run(c: char) -> bool {
    c.is_control() || c.is_whitespace() || matches!(c, '"' | '\\' | '/' | '\u{2028}' | '\u{2029}')
}

fn longest_run(query: &str) -> Option<&str> {
    query
        .split(breaks_run)
        .max_by_key(|run| run.chars().count())
        .filter(|run| !run.is_empty())
}

fn runs_regex(runs: &[&str]) -> Option<Regex> {
    let alternation = runs
        .iter()
        .map(|r| regex::escape(r))
        .collect::<Vec<_>>()
        .join("|");
    RegexBuilder::new(&alternation)
        .case_insensitive(true)
        .unicode(true)
        .size_limit(64 << 20)
        .build()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_avoid_escaped_and_joining_characters() {
        assert_eq!(
            longest_run("cargo test --all-targets"),
            Some("--all-targets")
        );
        assert_eq!(longest_run("src/main.rs"), Some("main.rs"));
        assert_eq!(longest_run("say \"hello\""), Some("hello"));
        assert_eq!(longest_run("日本語 テキスト"), Some("テキスト"));
        assert_eq!(longest_run(" \n"), None);
    }
}
