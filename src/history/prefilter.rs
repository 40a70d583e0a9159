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

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use regex::bytes::{Regex, RegexBuilder};
use regex_automata::util::prefilter::Prefilter as LiteralPrefilter;
use regex_automata::util::syntax;
use regex_automata::{MatchKind, Span};

use super::project::{Event, History, Source};
use crate::session::SessionFile;
use crate::text::LiteralMatcher;

/// The scan copies about this many bytes at a time (more when a line is longer).
const SCAN_CHUNK_BYTES: usize = 128 << 10;
/// A map is scanned in pieces of about this many bytes (whole lines), which the threads
/// sharing the scan take one at a time.
const PIECE_BYTES: usize = 4 << 20;

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
    /// The literal prefixes of the runs' case variants, searched in a map (see
    /// [`Scanner::scan_map_lines`]); `None` when there are too many to search fast.
    prefixes: Option<LiteralPrefilter>,
    tools_always: bool,
}

/// What a [`Scanner`] found: the start of every line holding a run, in the first
/// `scanned_len` bytes (a file may grow between the scan and the parse).
pub struct RawScan {
    line_starts: Vec<usize>,
    scanned_len: usize,
    tools_always: bool,
}

/// A scan of a session file that threads share. A map is cut into pieces of whole lines; each
/// thread that calls [`SharedScan::work`] takes the next piece not yet taken until none is left.
/// [`with_history`](super::with_history) starts it on a thread of its own while the session
/// loads, then lends the reader's thread once the branch is projected: both cores scan to the
/// end, and neither waits for a half the other has not finished.
pub struct SharedScan<'a> {
    scanner: &'a Scanner,
    bytes: &'a [u8],
    method: Method<'a>,
    pieces: Vec<Range<usize>>,
    /// The next piece to take.
    next: AtomicUsize,
    /// Per piece, once scanned.
    found: Mutex<Vec<Option<PieceScan>>>,
}

/// What the scan of a piece found.
struct PieceScan {
    /// The starts of its lines that hold a run.
    line_starts: Vec<usize>,
    /// The end of the bytes it covered (short of the piece's when a read ended early).
    covered: usize,
}

/// How a piece of the session bytes is scanned.
#[derive(Clone, Copy)]
enum Method<'a> {
    /// The literal prefixes in the map itself (see [`Scanner::scan_map_lines`]).
    Map(&'a LiteralPrefilter),
    /// The regex over copies read from the file (a map, without prefixes fast enough).
    Read(&'a SessionFile),
    /// The regex over bytes that hold still.
    Owned,
}

impl SharedScan<'_> {
    /// Scans pieces until none is left to take. A piece whose scan panics is left unscanned:
    /// its lines stay candidates.
    pub fn work(&self) {
        loop {
            let piece = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(range) = self.pieces.get(piece) else {
                return;
            };
            if let Ok(found) = catch_unwind(AssertUnwindSafe(|| self.scan_piece(range.clone()))) {
                self.found.lock().unwrap_or_else(PoisonError::into_inner)[piece] = Some(found);
            }
        }
    }

    fn scan_piece(&self, range: Range<usize>) -> PieceScan {
        let scanner = self.scanner;
        match self.method {
            Method::Map(prefixes) => PieceScan {
                covered: range.end,
                line_starts: scanner.scan_map_lines(prefixes, self.bytes, range),
            },
            Method::Read(file) => {
                let scan = scanner.scan_with(range.end, |buffer, at| file.read_at(buffer, at));
                PieceScan {
                    line_starts: scan.line_starts,
                    covered: scan.scanned_len,
                }
            }
            Method::Owned => {
                let mut line_starts = Vec::new();
                scanner.scan_chunk(&self.bytes[range.clone()], range.start, &mut line_starts);
                PieceScan {
                    line_starts,
                    covered: range.end,
                }
            }
        }
    }

    /// Leaves the pieces not yet taken unscanned: the scan is not needed after all.
    pub fn cancel(&self) {
        self.next.store(self.pieces.len(), Ordering::Relaxed);
    }

    /// What the scan found, once every thread working on it has stopped. The scan covers the
    /// pieces up to the first one not scanned whole; every line past it stays a candidate.
    pub fn finish(&self) -> RawScan {
        let found = std::mem::take(&mut *self.found.lock().unwrap_or_else(PoisonError::into_inner));
        let mut line_starts = Vec::new();
        let mut scanned_len = 0;
        for (piece, found) in self.pieces.iter().zip(found) {
            let Some(found) = found else {
                break;
            };
            line_starts.extend(found.line_starts);
            scanned_len = found.covered;
            if found.covered < piece.end {
                break;
            }
        }
        RawScan {
            line_starts,
            scanned_len,
            tools_always: self.scanner.tools_always,
        }
    }
}

/// Cuts `bytes` into ranges of whole lines, each ending at the first line end at least `piece`
/// bytes past its start (or at the end of the bytes).
fn cut_at_lines(bytes: &[u8], piece: usize) -> Vec<Range<usize>> {
    let mut pieces = Vec::with_capacity(bytes.len() / piece + 1);
    let mut start = 0;
    while start < bytes.len() {
        let cut = start + piece;
        let end = match bytes.get(cut - 1..) {
            Some(rest) => memchr::memchr(b'\n', rest).map_or(bytes.len(), |i| cut + i),
            None => bytes.len(),
        };
        pieces.push(start..end);
        start = end;
    }
    pieces
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
            prefixes: runs_prefixes(&runs),
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

    /// A scan of a session file that threads share (see [`SharedScan`]).
    pub fn share_file<'a>(&'a self, file: &'a SessionFile) -> SharedScan<'a> {
        let method = match (&self.prefixes, file.is_mapped()) {
            (Some(prefixes), true) => Method::Map(prefixes),
            (None, true) => Method::Read(file),
            (_, false) => Method::Owned,
        };
        self.share(file.bytes(), method, PIECE_BYTES)
    }

    fn share<'a>(&'a self, bytes: &'a [u8], method: Method<'a>, piece: usize) -> SharedScan<'a> {
        let pieces = match method {
            // `scan_with` reads its one piece from the start.
            Method::Read(_) => std::iter::once(0..bytes.len()).collect(),
            Method::Map(_) | Method::Owned => cut_at_lines(bytes, piece),
        };
        SharedScan {
            scanner: self,
            bytes,
            method,
            found: Mutex::new(pieces.iter().map(|_| None).collect()),
            pieces,
            next: AtomicUsize::new(0),
        }
    }

    /// The starts of the lines in `range` of a map that hold a run; `range` starts a line and
    /// ends one (or the bytes). The map may change under the search (a rewrite in place); its
    /// bytes are not copied all.
    ///
    /// The literal prefixes of the runs' case variants (`regex_automata`'s prefilter: Teddy,
    /// `memmem` or Aho-Corasick, the searchers `rg` runs first) are searched in the map itself.
    /// Those searchers only move forward, read within the bounds of the slice they are given
    /// and report a position where bytes equal to a prefix were read; bytes that change under
    /// them can make them report a position that no longer holds a prefix, or miss one that
    /// appeared, never read out of bounds or panic. Only the regex engine must not see changing
    /// bytes (its reverse search can disagree with its forward one), so each line holding a
    /// candidate is copied and the regex confirms it on the copy. A line the regex rejects is
    /// skipped whole: it cannot hold a run. Every line holding a run starts with a prefix at
    /// the run's start, so none is lost while the bytes hold still; if they did not, the
    /// reader's consistency check has the operation done again, as for every other read of a
    /// map.
    fn scan_map_lines(
        &self,
        prefixes: &LiteralPrefilter,
        bytes: &[u8],
        range: std::ops::Range<usize>,
    ) -> Vec<usize> {
        let mut line_starts = Vec::new();
        let mut line = Vec::new();
        let (mut at, to) = (range.start, range.end);
        while at < to {
            let Some(found) = prefixes.find(bytes, Span::from(at..to)) else {
                break;
            };
            let start = memchr::memrchr(b'\n', &bytes[at..found.start]).map_or(at, |i| at + i + 1);
            let end =
                memchr::memchr(b'\n', &bytes[found.start..to]).map_or(to, |i| found.start + i + 1);
            line.clear();
            line.extend_from_slice(&bytes[start..end]);
            if self.regex.is_match(&line) {
                line_starts.push(start);
            }
            at = end.max(found.start + 1);
        }
        line_starts
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
    /// Reads the entries' line spans and flags from the index's columns, decoding no entry.
    pub fn from_scan(history: &History, scan: &RawScan) -> Prefilter {
        let entries = &history.session.entries;
        let mut matched = scan.line_starts.iter().peekable();
        let flagged = (0..entries.len())
            .map(|i| {
                let (Some(span), Some(irregular)) = (entries.span(i), entries.irregular_escapes(i))
                else {
                    return true;
                };
                while matched.next_if(|&&start| start < span.start).is_some() {}
                // Peeked, not taken: entries of one line share its span (a Claude Code record
                // of several tool results).
                let hit = matched.peek().is_some_and(|&&start| start == span.start);
                hit || irregular || span.end > scan.scanned_len
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
    RegexBuilder::new(&alternation(runs))
        .case_insensitive(true)
        .unicode(true)
        .size_limit(crate::text::MATCHER_SIZE_LIMIT)
        .dfa_size_limit(crate::text::MATCHER_DFA_SIZE_LIMIT)
        .build()
        .ok()
}

/// A fast searcher of the literal prefixes every match of the runs starts with (their
/// Unicode case variants included: `k` also as the Kelvin sign); `None` when there is none.
fn runs_prefixes(runs: &[&str]) -> Option<LiteralPrefilter> {
    let config = syntax::Config::new().case_insensitive(true).unicode(true);
    let hir = syntax::parse_with(&alternation(runs), &config).ok()?;
    LiteralPrefilter::from_hir_prefix(MatchKind::LeftmostFirst, &hir).filter(|p| p.is_fast())
}

fn alternation(runs: &[&str]) -> String {
    runs.iter()
        .map(|r| regex::escape(r))
        .collect::<Vec<_>>()
        .join("|")
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

    /// The map scan (literal prefixes on the bytes, the regex on each candidate line's copy)
    /// finds exactly the lines the regex finds, Unicode case variants included (the Kelvin sign
    /// and the long s fold to `k` and `s`).
    #[test]
    fn the_map_scan_finds_what_the_regex_finds() {
        let lines = [
            "{\"t\":\"a kestrel flew\"}",
            "{\"t\":\"KESTREL\"}",
            "{\"t\":\"\u{212A}e\u{17F}trel, raw\"}",
            "{\"t\":\"kes trel\"}",
            "{\"t\":\"kestre\"}",
            "",
            "{\"t\":\"xkestrelx kestrel\"}",
            "{\"t\":\"caf\u{e9} Caf\u{c9}\"}",
            "{\"t\":\"no newline at the end: kestrel\"}",
        ];
        let bytes = lines.join("\n").into_bytes();
        for query in ["kestrel", "KESTREL", "trel", "caf\u{e9}", "k", "absent"] {
            let scanner = Scanner::new(&[query.to_string()]).unwrap();
            let Some(prefixes) = &scanner.prefixes else {
                continue;
            };
            let expected = scanner.scan(&bytes).line_starts;
            let found = scan_shared(&scanner, &bytes, Method::Map(prefixes), 1 << 20);
            assert_eq!(found.line_starts, expected, "{query}");
            assert_eq!(found.scanned_len, bytes.len());
        }
        let kestrel = Scanner::new(&["kestrel".to_string()]).unwrap();
        assert!(kestrel.prefixes.is_some());
        assert_eq!(kestrel.scan(&bytes).line_starts.len(), 5);
    }

    /// Scans `bytes` in pieces of about `piece` bytes, shared by three threads.
    fn scan_shared(scanner: &Scanner, bytes: &[u8], method: Method, piece: usize) -> RawScan {
        let shared = scanner.share(bytes, method, piece);
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| shared.work());
            }
            shared.work();
        });
        shared.finish()
    }

    /// Pieces are whole lines that cover the bytes, however the cuts fall.
    #[test]
    fn pieces_are_whole_lines_covering_the_bytes() {
        let bytes = b"a\nbb\n\nccc\ndddd";
        for piece in 1..=bytes.len() + 1 {
            let pieces = cut_at_lines(bytes, piece);
            assert_eq!(pieces.first().map(|r| r.start), Some(0), "{piece}");
            assert_eq!(pieces.last().map(|r| r.end), Some(bytes.len()), "{piece}");
            for pair in pieces.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
                assert_eq!(bytes[pair[0].end - 1], b'\n', "{piece}: {pieces:?}");
                assert!(pair[0].len() >= piece.min(bytes.len()));
            }
        }
        assert!(cut_at_lines(b"", 4).is_empty());
    }

    /// A map scanned in many small pieces by several threads gives the lines a whole scan
    /// gives, around every cut too.
    #[test]
    fn a_map_scanned_in_pieces_finds_every_line() {
        let mut bytes = Vec::new();
        let mut n = 0;
        while bytes.len() < 200_000 {
            let text = if n % 7 == 0 { "Needle" } else { "hay" };
            bytes.extend_from_slice(
                format!("{{\"n\":{n},\"t\":\"{text} {}\"}}\n", "x".repeat(n % 300)).as_bytes(),
            );
            n += 1;
        }
        let scanner = Scanner::new(&["needle".to_string()]).unwrap();
        let prefixes = scanner.prefixes.as_ref().unwrap();
        let expected = scanner.scan(&bytes).line_starts;
        assert!(expected.len() > 100);
        for piece in [1, 100, 4096, 65_536, 1 << 20] {
            let found = scan_shared(&scanner, &bytes, Method::Map(prefixes), piece);
            assert_eq!(found.line_starts, expected, "{piece}");
            assert_eq!(found.scanned_len, bytes.len());
            let owned = scan_shared(&scanner, &bytes, Method::Owned, piece);
            assert_eq!(owned.line_starts, expected, "{piece}");
        }
    }

    /// A piece left unscanned (its thread panicked) ends what the scan covers there.
    #[test]
    fn a_piece_left_unscanned_ends_the_scanned_bytes() {
        let bytes = b"{\"t\":\"needle\"}\n{\"t\":\"hay\"}\n{\"t\":\"needle\"}\n".to_vec();
        let scanner = Scanner::new(&["needle".to_string()]).unwrap();
        let prefixes = scanner.prefixes.as_ref().unwrap();
        let shared = scanner.share(&bytes, Method::Map(prefixes), 1);
        assert_eq!(shared.pieces.len(), 3);
        shared.work();
        shared.found.lock().unwrap()[1] = None;
        let first_line_end = shared.pieces[0].end;
        let scan = shared.finish();
        assert_eq!(scan.line_starts, vec![0]);
        assert_eq!(scan.scanned_len, first_line_end);
    }
}
