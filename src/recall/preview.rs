//! Opening a hit: the event's document is rebuilt from the entry lines it comes from, read
//! from the session file at the byte spans the index stored, exactly as `history` builds it.
//! The match is then found again in that text; a hit whose text no longer matches (the file
//! was rewritten since the last refresh) is dropped, never shown.

use std::fs::File;
use std::os::unix::fs::FileExt;

use super::query::Alternative;
use super::schema::{Flags, SourceKind};
use crate::history::{event_document, EventSource, Role};
use crate::redact::Masking;
use crate::session::{Entry, EntryKind, Harness, Message, Session};
use crate::text;

/// Where an indexed event's lines are in its file, and how its document is built.
#[derive(Debug, Clone)]
pub struct Located {
    pub flags: Flags,
    pub entry: (u64, u64),
    pub result: Option<(u64, u64)>,
    pub line: u64,
    pub version: Option<u64>,
    /// The file's harness (the catalog's, recognized when it was indexed), which reads the
    /// lines.
    pub harness: Harness,
}

/// An event rebuilt from its lines.
pub struct Rebuilt {
    pub document: String,
    pub entry_id: String,
    pub created_at: Option<String>,
}

/// Lines longer than this are not read back for a preview.
const MAX_LINE_BYTES: u64 = 256 << 20;

/// The event's document as indexed: masked as `masking` says, so a preview shows what the
/// index holds.
pub fn rebuild(file: &File, located: &Located, masking: Masking) -> Option<Rebuilt> {
    // The lines are read into the one buffer the session parses (an event's line can be
    // hundreds of megabytes: no copy of it is made on the way).
    let mut text = Vec::new();
    let first_line = match located.harness.header_for_lines(located.version) {
        Some(header) => {
            text.extend_from_slice(header.as_bytes());
            2
        }
        None => 1,
    };
    let multi_line = located.harness.records_span_lines();
    read_line_into(file, located.entry, &mut text, multi_line)?;
    // A call answered in its own record (Gemini CLI's) has its result on the same line.
    if let Some(span) = located.result.filter(|span| *span != located.entry) {
        read_line_into(file, span, &mut text, multi_line)?;
    }
    let session = Session::from_bytes_as(located.harness, text);
    let (index, source) = source_of(&session, located, first_line)?;
    let entry = &session.entries[index];
    let entry_id = match session.entry_id(&entry.id) {
        id if id.starts_with("line:") => format!("line:{}", located.line),
        id => id.into_owned(),
    };
    let created_at = session.timestamp(entry);
    let document = event_document(&session, index, &source);
    drop(session);
    Some(Rebuilt {
        document: masking.apply_owned(document),
        entry_id,
        created_at,
    })
}

/// Appends the line at `span` and a newline to `text`; `None` unless the span is still exactly
/// one line of UTF-8 (ended by its newline, or by the end of the file: a settled last line
/// without one, which the index takes). With `multi_line` (a harness whose records can span
/// lines: a message of Gemini CLI's older whole-file chats), the span is one record over many
/// lines: its line breaks are JSON whitespace (a JSON string holds none), made spaces, so that
/// it reads as one line; a changed file fails to parse and shows nothing.
fn read_line_into(
    file: &File,
    (start, len): (u64, u64),
    text: &mut Vec<u8>,
    multi_line: bool,
) -> Option<()> {
    if len > MAX_LINE_BYTES {
        return None;
    }
    if multi_line {
        let at = text.len();
        text.resize(at + len as usize, 0);
        if read_up_to(file, &mut text[at..], start)? != len as usize {
            return None;
        }
        let record = &mut text[at..];
        if record.contains(&b'\n') {
            std::str::from_utf8(record).ok()?;
            for byte in record.iter_mut().filter(|b| **b == b'\n' || **b == b'\r') {
                *byte = b' ';
            }
            text.push(b'\n');
            return Some(());
        }
        text.truncate(at);
    }
    let at = text.len();
    text.resize(at + len as usize + 1, 0);
    let read = read_up_to(file, &mut text[at..], start)?;
    let ended = match read {
        n if n == len as usize + 1 => text.last() == Some(&b'\n'),
        n => n as u64 == len,
    };
    text.truncate(at + len as usize);
    let line = &text[at..];
    if !ended || memchr::memchr(b'\n', line).is_some() || std::str::from_utf8(line).is_err() {
        return None;
    }
    text.push(b'\n');
    Some(())
}

/// Reads at `offset` until `buffer` is full or the file ends; how many bytes were read.
fn read_up_to(file: &File, buffer: &mut [u8], offset: u64) -> Option<usize> {
    let mut read = 0;
    while read < buffer.len() {
        match file.read_at(&mut buffer[read..], offset + read as u64) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(read)
}

/// The entry the event comes from and its source, among the rebuilt lines' entries: the event's
/// line is `first_line`, its result's the next. A line of another harness can hold several
/// entries (a Claude Code record of tool results and text): the one of the event's kind is
/// taken, and a call's result is the one that answers its id.
fn source_of(
    session: &Session,
    located: &Located,
    first_line: usize,
) -> Option<(usize, EventSource)> {
    let on_line = |line: usize, wanted: &dyn Fn(&Entry) -> bool| {
        (0..session.entries.len())
            .find(|&i| session.entries[i].line == line && wanted(&session.entries[i]))
    };
    let content = |entry: &Entry| match &entry.kind {
        EntryKind::Message(
            Message::User { content }
            | Message::Assistant {
                content,
                own_event: true,
                ..
            }
            | Message::Custom { content },
        )
        | EntryKind::CustomMessage { content, .. } => Some(*content),
        _ => None,
    };
    let summary = |entry: &Entry| match &entry.kind {
        EntryKind::Compaction { summary }
        | EntryKind::BranchSummary { summary }
        | EntryKind::Message(
            Message::CompactionSummary { summary } | Message::BranchSummary { summary },
        ) => Some(*summary),
        _ => None,
    };
    let is_result =
        |entry: &Entry| matches!(entry.kind, EntryKind::Message(Message::ToolResult { .. }));
    Some(match located.flags.kind {
        SourceKind::Content => {
            // A line can hold content of two roles (Gemini CLI's hook context and the user's
            // words in one message): the entry of the event's role, else the line's first.
            let i = on_line(first_line, &|e| {
                content(e).is_some() && content_role(e) == located.flags.role
            })
            .or_else(|| on_line(first_line, &|e| content(e).is_some()))?;
            (i, EventSource::Content(content(&session.entries[i])?))
        }
        SourceKind::Summary => {
            let i = on_line(first_line, &|e| summary(e).is_some())?;
            (i, EventSource::Summary(summary(&session.entries[i])?))
        }
        SourceKind::Call => {
            let index = located.flags.call_index;
            let i = on_line(
                first_line,
                &|e| matches!(&e.kind, EntryKind::Message(Message::Assistant { tool_calls, .. }) if index < tool_calls.len()),
            )?;
            let result_line = if located.result == Some(located.entry) {
                first_line
            } else {
                first_line + 1
            };
            let result = match located.result {
                Some(_) => Some(answer(session, i, index, result_line)?),
                None => None,
            };
            (i, EventSource::Call { index, result })
        }
        SourceKind::OrphanResult => (on_line(first_line, &is_result)?, EventSource::OrphanResult),
        SourceKind::Bash => (on_line(first_line, &|_| true)?, EventSource::Bash),
    })
}

/// The role of the event a content entry makes.
fn content_role(entry: &Entry) -> Role {
    match &entry.kind {
        EntryKind::Message(Message::User { .. }) => Role::User,
        EntryKind::Message(Message::Assistant { .. }) => Role::Assistant,
        _ => Role::Context,
    }
}

/// The result on `line` that answers call `index` of the assistant entry `call`: the one with
/// the call's id, else the line's first result.
fn answer(session: &Session, call: usize, index: usize, line: usize) -> Option<usize> {
    let call_id = match &session.entries[call].kind {
        EntryKind::Message(Message::Assistant { tool_calls, .. }) => tool_calls[index].id,
        _ => None,
    };
    let results: Vec<usize> = (0..session.entries.len())
        .filter(|&i| session.entries[i].line == line)
        .filter(|&i| {
            matches!(
                session.entries[i].kind,
                EntryKind::Message(Message::ToolResult { .. })
            )
        })
        .collect();
    let answers = |&i: &usize| match (&session.entries[i].kind, call_id) {
        (
            EntryKind::Message(Message::ToolResult {
                tool_call_id: Some(id),
                ..
            }),
            Some(call_id),
        ) => session.atom(*id) == session.atom(call_id),
        _ => false,
    };
    results
        .iter()
        .copied()
        .find(answers)
        .or(results.first().copied())
}

/// Where the query matches a document, in code points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The first match.
    pub first: usize,
    /// The matching words and phrases that start from the first match up to `window` code
    /// points after it (what a preview starting at or before the first match can show),
    /// `(start, end)` in code points, in order.
    pub ranges: Vec<(usize, usize)>,
    /// Whether some alternative matches with all its words (in some form) and phrases.
    pub complete: bool,
}

/// Finds the query's words (as written or in another form: the same stem) and phrases in
/// `document`; `None` when no alternative's word is there (phrases rank, they never decide a
/// match). Ranges are kept only up to `window` code points past the first match.
///
/// One pass over the document's tokens, holding only the last few of them (the longest
/// phrase's length) and the ranges a preview can show: a hit inside a tool output of hundreds
/// of megabytes costs no more than the document itself (collecting every token first cost ten
/// times the document).
pub fn find(document: &str, alternatives: &[Alternative], window: usize) -> Option<Found> {
    let mut scan = Scan::new(alternatives);
    let mut analyzer = super::schema::analyzer();
    let mut stream = analyzer.token_stream(document);
    // A code point is at most 4 bytes: ranges starting this many bytes past the first match are
    // past any preview.
    let window_bytes = window.saturating_mul(4);
    while let Some(token) = stream.next() {
        scan.token(
            &token.text,
            token.offset_from,
            token.offset_to,
            window_bytes,
        );
        if scan.done(token.offset_from, window_bytes) {
            break;
        }
    }
    scan.found(document, alternatives, window)
}

/// The state of [`find`]'s one pass.
struct Scan<'q> {
    /// Every distinct word of every alternative, its stem, and whether the document holds it
    /// (in some form).
    words: Vec<(&'q str, &'q str, bool)>,
    /// Stems the document's tokens are stemmed to compare with, by their first two bytes: a
    /// token is stemmed only when it starts like one of them.
    stem_starts: Vec<&'q [u8]>,
    stemmer: super::words::WordStemmer,
    /// Every phrase of every alternative, and whether the document holds it.
    phrases: Vec<(&'q [String], bool)>,
    /// The last tokens read, `(text, start, end)`, at most the longest phrase's length.
    recent: std::collections::VecDeque<(String, usize, usize)>,
    longest: usize,
    /// Byte ranges of matches that a preview may show.
    hits: Vec<(usize, usize)>,
    first: Option<usize>,
}

impl<'q> Scan<'q> {
    fn new(alternatives: &'q [Alternative]) -> Scan<'q> {
        let mut words: Vec<(&str, &str, bool)> = Vec::new();
        let mut phrases: Vec<(&[String], bool)> = Vec::new();
        for alternative in alternatives {
            for (word, stem) in alternative.words.iter().zip(&alternative.stems) {
                if !words.iter().any(|(w, _, _)| w == word) {
                    words.push((word, stem, false));
                }
            }
            for phrase in alternative.phrases.iter().filter(|p| !p.is_empty()) {
                if !phrases.iter().any(|(p, _)| *p == phrase.as_slice()) {
                    phrases.push((phrase, false));
                }
            }
        }
        let longest = phrases.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
        let mut stem_starts: Vec<&[u8]> = words
            .iter()
            .map(|(_, stem, _)| &stem.as_bytes()[..stem.len().min(2)])
            .collect();
        stem_starts.sort_unstable();
        stem_starts.dedup();
        Scan {
            words,
            stem_starts,
            stemmer: super::words::WordStemmer::new(),
            phrases,
            recent: std::collections::VecDeque::with_capacity(longest),
            longest,
            hits: Vec::new(),
            first: None,
        }
    }

    fn token(&mut self, text: &str, start: usize, end: usize, window_bytes: usize) {
        if self.matches_a_word(text) {
            self.hit(start, end, window_bytes);
        }
        if self.longest == 0 {
            return;
        }
        if self.recent.len() == self.longest {
            self.recent.pop_front();
        }
        self.recent.push_back((text.to_string(), start, end));
        for i in 0..self.phrases.len() {
            let n = self.phrases[i].0.len();
            if n > self.recent.len() {
                continue;
            }
            let tail = self.recent.range(self.recent.len() - n..);
            if tail.zip(self.phrases[i].0).all(|((t, _, _), w)| t == w) {
                self.phrases[i].1 = true;
                let phrase_start = self.recent[self.recent.len() - n].1;
                self.hit(phrase_start, end, window_bytes);
            }
        }
    }

    /// Whether `token` is one of the words, as written or in another form; marks them seen.
    fn matches_a_word(&mut self, token: &str) -> bool {
        let mut matched = false;
        for (word, _, seen) in self.words.iter_mut() {
            if *word == token {
                *seen = true;
                matched = true;
            }
        }
        let start = &token.as_bytes()[..token.len().min(2)];
        if matched || !self.stem_starts.iter().any(|s| start.starts_with(s)) {
            return matched;
        }
        let stemmed = self.stemmer.stem(token);
        // The index holds an agent noun under its root too: "signing" finds "signer".
        let root = super::words::agent_root(&stemmed);
        for (_, stem, seen) in self.words.iter_mut() {
            if *stem == stemmed || root.as_deref() == Some(*stem) {
                *seen = true;
                matched = true;
            }
        }
        matched
    }

    fn hit(&mut self, start: usize, end: usize, window_bytes: usize) {
        let first = *self.first.get_or_insert(start);
        self.first = Some(first.min(start));
        if start <= first.saturating_add(window_bytes) {
            self.hits.push((start, end));
        }
    }

    /// Whether nothing later can change the answer: every word and phrase was seen, and the
    /// tokens are past the ranges a preview shows.
    fn done(&self, offset: usize, window_bytes: usize) -> bool {
        self.first
            .is_some_and(|first| offset > first.saturating_add(window_bytes))
            && self.words.iter().all(|(_, _, seen)| *seen)
            && self.phrases.iter().all(|(_, seen)| *seen)
    }

    fn holds_word(&self, word: &str) -> bool {
        self.words.iter().any(|(w, _, seen)| *w == word && *seen)
    }

    fn holds_phrase(&self, phrase: &[String]) -> bool {
        phrase.is_empty() || self.phrases.iter().any(|(p, seen)| *p == phrase && *seen)
    }

    fn found(
        mut self,
        document: &str,
        alternatives: &[Alternative],
        window: usize,
    ) -> Option<Found> {
        let mut matched = false;
        let mut complete = false;
        for alternative in alternatives {
            let words_found = alternative
                .words
                .iter()
                .filter(|w| self.holds_word(w))
                .count();
            let phrases = alternative.phrases.iter().all(|p| self.holds_phrase(p));
            if words_found > 0 {
                matched = true;
                complete |= phrases && words_found == alternative.words.len();
            }
        }
        if !matched {
            return None;
        }
        let first_byte = self.first?;
        self.hits.retain(|&(a, _)| a >= first_byte);
        self.hits.sort_unstable();
        self.hits.dedup();
        let to_chars = char_offsets(
            document,
            std::iter::once(first_byte).chain(self.hits.iter().flat_map(|&(a, b)| [a, b])),
        );
        let first = to_chars(first_byte);
        let ranges: Vec<(usize, usize)> = self
            .hits
            .iter()
            .map(|&(a, b)| (to_chars(a), to_chars(b)))
            .filter(|&(a, _)| a <= first.saturating_add(window))
            .collect();
        Some(Found {
            first,
            ranges,
            complete,
        })
    }
}

/// The code point offsets of byte offsets of `document` (each on a char boundary), counted in
/// one pass over the document however many there are: a document of megabytes can match
/// tens of thousands of times.
fn char_offsets(document: &str, bytes: impl Iterator<Item = usize>) -> impl Fn(usize) -> usize {
    let mut offsets: Vec<usize> = bytes.collect();
    offsets.sort_unstable();
    offsets.dedup();
    let mut chars = Vec::with_capacity(offsets.len());
    let (mut byte, mut char) = (0, 0);
    for &offset in &offsets {
        char += text::char_len(&document[byte..offset]);
        byte = offset;
        chars.push(char);
    }
    move |byte| match offsets.binary_search(&byte) {
        Ok(i) => chars[i],
        Err(_) => unreachable!("every offset asked for was counted"),
    }
}

/// Code points of context shown before the first match.
pub const LEAD_CHARS: usize = 40;

/// Where a preview of a document starts: up to [`LEAD_CHARS`] before the first match, moved
/// forward to the start of a word when that stays before the match.
pub fn preview_start(document: &str, first_match: usize) -> usize {
    let start = first_match.saturating_sub(LEAD_CHARS);
    if start == 0 {
        return 0;
    }
    let lead: Vec<char> = document
        .chars()
        .skip(start)
        .take(first_match - start)
        .collect();
    match lead.iter().position(|c| c.is_whitespace()) {
        Some(i) => start + i + 1,
        None => start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::query::{self, Alternative};
    use crate::redact::Masking;

    fn parse(queries: &[String]) -> Result<Vec<Alternative>, crate::recall::RecallError> {
        query::parse(queries, Masking::On).map(|parsed| parsed.alternatives)
    }

    #[test]
    fn finds_words_phrases_and_offsets_in_code_points() {
        let alternatives = parse(&[r#"café "exit code""#.to_string()]).unwrap();
        let doc = "😀 the CAFE said: exit  code 137, exit";
        let found = find(doc, &alternatives, 400).unwrap();
        assert_eq!(found.first, 6);
        assert!(found.complete);
        assert_eq!(
            found.ranges,
            vec![(6, 10), (17, 21), (17, 27), (23, 27), (33, 37)]
        );
        // A quoted phrase ranks; its words match without it.
        let apart = find("exit then code", &alternatives, 400).unwrap();
        assert!(!apart.complete);
        assert_eq!(apart.ranges, vec![(0, 4), (10, 14)]);
        assert!(find("nothing here", &alternatives, 400).is_none());
    }

    #[test]
    fn finds_other_forms_of_a_word() {
        let alternatives = parse(&["retries".to_string()]).unwrap();
        let found = find("we retried twice, then the retry held", &alternatives, 400).unwrap();
        assert_eq!(found.ranges, vec![(3, 10), (27, 32)]);
        assert!(find("retro terminal", &alternatives, 400).is_none());
    }

    /// A document that matches thousands of times, words and overlapping phrases among
    /// multibyte text: every range is in code points, as counting from the start gives.
    #[test]
    fn many_matches_get_the_code_point_offsets_counting_from_the_start_gives() {
        let alternatives = parse(&[r#"kite "kite ü""#.to_string()]).unwrap();
        let doc = "é kite ü 😀 kite kite ü\n".repeat(2_000);
        let found = find(&doc, &alternatives, usize::MAX).unwrap();
        let chars: Vec<char> = doc.chars().collect();
        let matched: Vec<String> = found
            .ranges
            .iter()
            .map(|&(a, b)| chars[a..b].iter().collect())
            .collect();
        // Per line: three "kite", two "ü" (a quoted phrase's words are words) and two phrases.
        assert_eq!(found.ranges.len(), 14_000);
        assert!(found.ranges.windows(2).all(|w| w[0] < w[1]));
        assert!(
            matched
                .iter()
                .all(|m| m == "kite" || m == "ü" || m == "kite ü"),
            "{:?}",
            &matched[..10]
        );
        assert_eq!(found.first, 2);
    }

    #[test]
    fn previews_start_at_a_word_before_the_match() {
        let doc = format!("{} needle", "word ".repeat(20));
        let first = doc.find("needle").unwrap();
        let start = preview_start(&doc, first);
        assert!(start < first && first - start <= LEAD_CHARS);
        assert_eq!(&doc[start..start + 4], "word");
        assert_eq!(preview_start("short needle", 6), 0);
    }
}
