//! Opening a hit: the event's document is rebuilt from the entry lines it comes from, read
//! from the session file at the byte spans the index stored, exactly as `history` builds it.
//! The match is then found again in that text; a hit whose text no longer matches (the file
//! was rewritten since the last refresh) is dropped, never shown.

use std::fs::File;
use std::os::unix::fs::FileExt;

use super::query::{token_spans, Alternative};
use super::schema::{Flags, SourceKind};
use crate::history::{event_document, EventSource};
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
    let entry_line = read_line(file, located.entry)?;
    let result_line = match located.result {
        Some(span) => Some(read_line(file, span)?),
        None => None,
    };
    let (session, first_line) = match located.harness {
        Harness::Pi => {
            let header = match located.version {
                Some(v) => format!("{{\"type\":\"session\",\"version\":{v}}}"),
                None => "{\"type\":\"session\"}".to_string(),
            };
            let mut lines = vec![header, entry_line];
            lines.extend(result_line);
            (Session::from_lines(&lines), 2)
        }
        harness => {
            let mut lines = vec![entry_line];
            lines.extend(result_line);
            (Session::from_lines_as(harness, &lines), 1)
        }
    };
    let (index, source) = source_of(&session, located, first_line)?;
    let entry = &session.entries[index];
    let entry_id = match session.entry_id(&entry.id) {
        id if id.starts_with("line:") => format!("line:{}", located.line),
        id => id.into_owned(),
    };
    Some(Rebuilt {
        document: masking.apply_owned(event_document(&session, index, &source)),
        entry_id,
        created_at: session.timestamp(entry),
    })
}

fn read_line(file: &File, (start, len): (u64, u64)) -> Option<String> {
    if len > MAX_LINE_BYTES {
        return None;
    }
    let mut buffer = vec![0u8; len as usize + 1];
    let read = read_up_to(file, &mut buffer, start)?;
    // The span must still be exactly one line: ended by its newline, or by the end of the file
    // (a settled last line without one, which the index takes).
    let ended = match read {
        n if n == buffer.len() => buffer.pop() == Some(b'\n'),
        n => n as u64 == len && buffer.pop().is_some(),
    };
    if !ended || memchr::memchr(b'\n', &buffer).is_some() {
        return None;
    }
    String::from_utf8(buffer).ok()
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
            let i = on_line(first_line, &|e| content(e).is_some())?;
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
            let result = match located.result {
                Some(_) => Some(answer(session, i, index, first_line + 1)?),
                None => None,
            };
            (i, EventSource::Call { index, result })
        }
        SourceKind::OrphanResult => (on_line(first_line, &is_result)?, EventSource::OrphanResult),
        SourceKind::Bash => (on_line(first_line, &|_| true)?, EventSource::Bash),
    })
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
    /// Every matching word, `(start, end)` in code points, in order.
    pub ranges: Vec<(usize, usize)>,
    /// Whether some alternative matches with all its words and phrases.
    pub complete: bool,
}

/// Finds the query's words and phrases in `document`; `None` when no alternative matches (all
/// its phrases, and at least one word when it has words).
pub fn find(document: &str, alternatives: &[Alternative]) -> Option<Found> {
    let tokens = token_spans(document);
    let mut hits: Vec<(usize, usize)> = Vec::new();
    let mut complete = false;
    let mut matched = false;
    for alternative in alternatives {
        let mut words_found = 0;
        for word in &alternative.words {
            let before = hits.len();
            hits.extend(
                tokens
                    .iter()
                    .filter(|(t, _, _)| t == word)
                    .map(|(_, a, b)| (*a, *b)),
            );
            if hits.len() > before {
                words_found += 1;
            }
        }
        let mut phrases_found = 0;
        for phrase in &alternative.phrases {
            let n = phrase.len();
            let before = hits.len();
            for start in 0..tokens.len().saturating_sub(n - 1) {
                if tokens[start..start + n]
                    .iter()
                    .zip(phrase)
                    .all(|((t, _, _), w)| t == w)
                {
                    hits.push((tokens[start].1, tokens[start + n - 1].2));
                }
            }
            if hits.len() > before {
                phrases_found += 1;
            }
        }
        let phrases_ok = phrases_found == alternative.phrases.len();
        if phrases_ok && (words_found > 0 || alternative.words.is_empty()) {
            matched = true;
            complete |= words_found == alternative.words.len();
        }
    }
    if !matched {
        return None;
    }
    hits.sort_unstable();
    hits.dedup();
    let to_chars = char_offsets(document, hits.iter().flat_map(|&(a, b)| [a, b]));
    let ranges: Vec<(usize, usize)> = hits
        .iter()
        .map(|&(a, b)| (to_chars(a), to_chars(b)))
        .collect();
    Some(Found {
        first: ranges.first().map_or(0, |r| r.0),
        ranges,
        complete,
    })
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
        let found = find(doc, &alternatives).unwrap();
        assert_eq!(found.first, 6);
        assert!(found.complete);
        assert_eq!(found.ranges, vec![(6, 10), (17, 27)]);
        assert!(find("exit then code", &alternatives).is_none());
    }

    /// A document that matches thousands of times, words and overlapping phrases among
    /// multibyte text: every range is in code points, as counting from the start gives.
    #[test]
    fn many_matches_get_the_code_point_offsets_counting_from_the_start_gives() {
        let alternatives = parse(&[r#"kite "kite ü""#.to_string()]).unwrap();
        let doc = "é kite ü 😀 kite kite ü\n".repeat(2_000);
        let found = find(&doc, &alternatives).unwrap();
        let chars: Vec<char> = doc.chars().collect();
        let matched: Vec<String> = found
            .ranges
            .iter()
            .map(|&(a, b)| chars[a..b].iter().collect())
            .collect();
        assert_eq!(found.ranges.len(), 10_000);
        assert!(found.ranges.windows(2).all(|w| w[0] < w[1]));
        assert!(
            matched.iter().all(|m| m == "kite" || m == "kite ü"),
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
