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
//! verbatim, except (a) lines that escape slashes or any non-control character as `\uXXXX`,
//! which are always candidates, and (b) text the projection synthesizes for tool documents
//! (`unknown`, `bash`, `{}`, `--- output ---`, …): when a run could match those, every tool event
//! is a candidate.

use regex::bytes::{Regex, RegexBuilder};

use super::project::{Event, History, Source};
use crate::session::SessionFile;
use crate::text::LiteralMatcher;

/// The scan copies about this many bytes at a time (more when a line is longer).
const SCAN_CHUNK_BYTES: usize = 128 << 10;

/// Text that tool documents contain without it being in the session bytes.
const SYNTHESIZED: [&str; 5] = [
    "unknown",
    "bash",
    "{}",
    "{\"command\":}",
    "\n--- output ---\n",
];

/// The raw-byte half of the prefilter: finds the lines of the session bytes that hold a run.
/// It needs no parsed session, so it can scan while the index loads.
pub struct Scanner {
    regex: Regex,
    tools_always: bool,
}

/// What a [`Scanner`] found: the start of every line holding a run, in the first
/// `scanned_len` bytes (a file may grow between the scan and the parse).
pub struct RawScan {
    line_starts: Vec<usize>,
    scanned_len: usize,
    tools_always: bool,
}

impl Scanner {
    /// `None` when some query has no run to look for: then every event is a candidate. Also
    /// `None` for queries the search refuses (`wire::check_queries`): nothing is built for them.
    pub fn new(queries: &[String]) -> Option<Scanner> {
        crate::wire::check_queries(queries).ok()?;
        let runs: Vec<&str> = queries
            .iter()
            .map(|q| longest_run(q))
            .collect::<Option<_>>()?;
        let regex = runs_regex(&runs)?;
        let tools_always = LiteralMatcher::new(&runs)
            .map(|m| SYNTHESIZED.iter().any(|piece| m.is_match(piece)))
            .unwrap_or(true);
        Some(Scanner {
            regex,
            tools_always,
        })
    }

    /// Finds the lines of `bytes` that hold a run. The bytes must hold still while they are
    /// searched (owned bytes, never a map: see [`Scanner::scan_with`]).
    pub fn scan(&self, bytes: &[u8]) -> RawScan {
        let mut line_starts = Vec::new();
        self.scan_chunk(bytes, 0, &mut line_starts);
        RawScan {
            line_starts,
            scanned_len: bytes.len(),
            tools_always: self.tools_always,
        }
    }

    /// Finds the lines of a session file that hold a run.
    pub fn scan_file(&self, file: &SessionFile) -> RawScan {
        if file.is_mapped() {
            self.scan_with(file.bytes().len(), |buffer, at| file.read_at(buffer, at))
        } else {
            self.scan(file.bytes())
        }
    }

    /// Finds the lines that hold a run in the first `len` bytes that `read_at` reads (`pread`
    /// on the session file), a chunk of whole lines at a time. The bytes of a mapped file can
    /// change under the map (a rewrite in place), and the regex engine must search bytes that
    /// hold still; reading them into a buffer gives it such bytes in one copy, as `rg` does,
    /// without faulting the map's pages in. A run never spans a line, so no match is lost at a
    /// chunk's edge. A read that ends early (the file shrank) ends the scan there: the reader's
    /// consistency check then has the operation done again.
    pub fn scan_with(
        &self,
        len: usize,
        mut read_at: impl FnMut(&mut [u8], u64) -> std::io::Result<usize>,
    ) -> RawScan {
        let mut line_starts = Vec::new();
        let mut buffer = vec![0; SCAN_CHUNK_BYTES.min(len.max(1))];
        // `buffer[..filled]` holds the session bytes from `start` on.
        let (mut start, mut filled) = (0usize, 0usize);
        while start + filled < len {
            if filled == buffer.len() {
                // A line longer than the buffer: grow it.
                buffer.resize(buffer.len() * 2, 0);
            }
            let want = (buffer.len() - filled).min(len - start - filled);
            let got = match read_at(&mut buffer[filled..filled + want], (start + filled) as u64) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            filled += got;
            let at_end = start + filled == len;
            let complete = if at_end {
                filled
            } else {
                match memchr::memrchr(b'\n', &buffer[..filled]) {
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            self.scan_chunk(&buffer[..complete], start, &mut line_starts);
            buffer.copy_within(complete..filled, 0);
            start += complete;
            filled -= complete;
        }
        // A scan that ended early covers only `start` bytes: the prefilter keeps every line
        // past them as a candidate.
        let scanned_len = start;
        RawScan {
            line_starts,
            scanned_len,
            tools_always: self.tools_always,
        }
    }

    /// Adds the start (in the session) of every line of `chunk` that holds a run; `chunk`
    /// starts a line at byte `offset` of the session.
    fn scan_chunk(&self, chunk: &[u8], offset: usize, line_starts: &mut Vec<usize>) {
        let mut at = 0;
        while let Some(m) = self.regex.find_at(chunk, at) {
            let line_start = memchr::memrchr(b'\n', &chunk[..m.start()]).map_or(0, |i| i + 1);
            line_starts.push(offset + line_start);
            at = memchr::memchr(b'\n', &chunk[m.start()..])
                .map_or(chunk.len(), |n| m.start() + n + 1);
        }
    }
}

pub(super) struct Prefilter {
    /// Per entry: its line contains a run (or cannot be judged from its bytes).
    flagged: Vec<bool>,
    tools_always: bool,
}

impl Prefilter {
    /// Flags the entries whose lines the scan matched, plus every line the scan could not judge:
    /// lines with irregular escapes and lines past the scanned length.
    pub fn from_scan(history: &History, scan: &RawScan) -> Prefilter {
        let entries = &history.session.entries;
        let mut matched = scan.line_starts.iter().peekable();
        let flagged = entries
            .iter()
            .map(|entry| {
                while matched
                    .next_if(|&&start| start < entry.span.start)
                    .is_some()
                {}
                let hit = matched
                    .next_if(|&&start| start == entry.span.start)
                    .is_some();
                hit || entry.irregular_escapes || entry.span.end > scan.scanned_len
            })
            .collect();
        Prefilter {
            flagged,
            tools_always: scan.tools_always,
        }
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
        .size_limit(crate::text::MATCHER_SIZE_LIMIT)
        .dfa_size_limit(crate::text::MATCHER_DFA_SIZE_LIMIT)
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

    #[test]
    fn the_scan_finds_every_line_across_chunk_edges() {
        let mut bytes = Vec::new();
        let mut expected = Vec::new();
        let mut n = 0;
        while bytes.len() < 3 * SCAN_CHUNK_BYTES {
            let start = bytes.len();
            let width = if n == 10 {
                300_000
            } else {
                1 + (n * 7919) % 3000
            };
            let needle = n % 5 == 0;
            if needle {
                expected.push(start);
            }
            let text = if needle { "Needle" } else { "hay" };
            bytes.extend_from_slice(
                format!("{{\"n\":{n},\"t\":\"{}{text}\"}}\n", "x".repeat(width)).as_bytes(),
            );
            n += 1;
        }
        let scanner = Scanner::new(&["needle".to_string()]).unwrap();
        let scan = scanner.scan_with(bytes.len(), |buf, at| {
            let at = at as usize;
            // Short reads, as a file may give them.
            let n = buf.len().min(bytes.len() - at).min(50_000);
            buf[..n].copy_from_slice(&bytes[at..at + n]);
            Ok(n)
        });
        assert_eq!(scan.line_starts, expected);
        assert_eq!(scan.scanned_len, bytes.len());
        let whole = scanner.scan(&bytes);
        assert_eq!(whole.line_starts, expected);
    }
}
