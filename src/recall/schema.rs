//! The index schema and its text analyzer.
//!
//! One document per event. Only the text is indexed (never stored), twice: its words as written
//! and their stems. Beside them, one *part* document per file and refresh (two when some of its
//! events are off the default branch) holding the stems of the events that refresh indexed, with
//! their counts ([`Fields::part_stem`]): the session level that finds a search's pool and counts
//! its matching sessions without reading every matching event. Everything else is a fast (columnar) field that filtering, ranking and
//! opening a hit need: which file, the seq, the timestamp, role/branch/source flags, the byte
//! spans of the entry lines the document is built from, and the window and leaf ids. Previews
//! are rebuilt from the session file.

use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, FAST,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, SimpleTokenizer, TextAnalyzer, Token, TokenFilter, TokenStream,
    Tokenizer, WhitespaceTokenizer,
};

use crate::history::{EventSource, Role};

/// The analyzer's name in the index's tokenizer manager.
pub const ANALYZER: &str = "recall";
/// The stemming analyzer's name: [`analyzer`]'s tokens, stemmed (English).
pub const STEM_ANALYZER: &str = "recall-stem";
/// The part documents' analyzer's name: their stems, already made, separated by spaces.
pub const PART_ANALYZER: &str = "recall-part";
/// Tokens longer than this many bytes (base64 blobs, long tokens, hashes of hashes) are indexed
/// as their first this many bytes.
pub const MAX_TOKEN_BYTES: usize = 80;

/// Unicode-aware words (runs of alphanumeric characters), lowercased, diacritics folded, cut
/// to [`MAX_TOKEN_BYTES`].
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(CutLong)
        .build()
}

/// [`analyzer`]'s tokens, each replaced by its English stem (`retries` → `retri`): the
/// [`Fields::stem`] field, where a word matches its other forms.
pub fn stem_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(CutLong)
        .filter(super::words::CachedStemmer)
        .build()
}

/// A part document's text: stems [`stem_analyzer`] made, joined by spaces. A stem never holds
/// a space (it is a run of alphanumeric characters, folded to ASCII letters and digits), so
/// splitting on whitespace gives each back as it was.
pub fn part_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(WhitespaceTokenizer::default()).build()
}

/// Cuts a token longer than [`MAX_TOKEN_BYTES`] to its first bytes (at a character boundary),
/// so a long word is still found by the same word: the query's words are cut alike. Left out,
/// a long secret could not be found even with masking off (issue 38).
#[derive(Clone, Copy)]
struct CutLong;

impl TokenFilter for CutLong {
    type Tokenizer<T: Tokenizer> = CutLongTokenizer<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CutLongTokenizer<T> {
        CutLongTokenizer(tokenizer)
    }
}

#[derive(Clone)]
pub struct CutLongTokenizer<T>(T);

impl<T: Tokenizer> Tokenizer for CutLongTokenizer<T> {
    type TokenStream<'a> = CutLongStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CutLongStream(self.0.token_stream(text))
    }
}

pub struct CutLongStream<S>(S);

impl<S: TokenStream> TokenStream for CutLongStream<S> {
    fn advance(&mut self) -> bool {
        if !self.0.advance() {
            return false;
        }
        let text = &mut self.0.token_mut().text;
        if text.len() > MAX_TOKEN_BYTES {
            let mut end = MAX_TOKEN_BYTES;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
        }
        true
    }

    fn token(&self) -> &Token {
        self.0.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.0.token_mut()
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// The event's words as written (folded case and diacritics), with positions: exact
    /// matches and phrases.
    pub text: Field,
    /// The same words stemmed, without positions: a word's other forms.
    pub stem: Field,
    pub file: Field,
    pub seq: Field,
    pub ts: Field,
    /// Role, branch flag and source kind, packed (see [`Flags`]).
    pub flags: Field,
    pub entry_start: Field,
    pub entry_len: Field,
    /// The paired result's line: start + 1 (0: none).
    pub result_start: Field,
    pub result_len: Field,
    /// The entry's 1-based line number (names v1 entries, whose ids are `line:<N>`).
    pub line: Field,
    /// The window id, when it is not the session's root window.
    pub window: Field,
    /// The tip entry id of an abandoned branch.
    pub leaf: Field,
    /// A part document's stems, each as often as the part's events on the default branch hold
    /// it (at most [`PART_MAX_COUNT`]; [`part_analyzer`]); no event document has it.
    pub part_stem: Field,
    /// The same for a part of events off the default branch: a search of the default branch
    /// reads [`Fields::part_stem`] alone.
    pub part_stem_off: Field,
    /// [`PART_ON_BRANCH`] or [`PART_OFF_BRANCH`] on a part document; absent on an event's.
    pub part: Field,
}

/// A part document of events on the default branch.
pub const PART_ON_BRANCH: u64 = 1;
/// A part document of events off the default branch (abandoned branches).
pub const PART_OFF_BRANCH: u64 = 2;
/// How often a part document holds one stem at most: enough to tell a session that dwells on
/// a word from one that mentions it, bounded for a huge session.
pub const PART_MAX_COUNT: u32 = 16;
/// The distinct stems a part document holds at most: a refresh whose events hold more (a
/// session of random tokens) writes several parts, so counting them never holds more than
/// this many at once.
pub const PART_MAX_STEMS: usize = 1 << 16;

pub fn build(positions: bool) -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let record = if positions {
        IndexRecordOption::WithFreqsAndPositions
    } else {
        IndexRecordOption::WithFreqs
    };
    let text = builder.add_text_field(
        "text",
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(ANALYZER)
                .set_index_option(record),
        ),
    );
    let stem = builder.add_text_field(
        "stem",
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(STEM_ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqs),
        ),
    );
    let fast = || NumericOptions::default().set_fast();
    let fields = Fields {
        text,
        stem,
        file: builder.add_u64_field("file", NumericOptions::default().set_fast().set_indexed()),
        seq: builder.add_u64_field("seq", fast()),
        ts: builder.add_i64_field("ts", fast()),
        flags: builder.add_u64_field("flags", fast()),
        entry_start: builder.add_u64_field("entry_start", fast()),
        entry_len: builder.add_u64_field("entry_len", fast()),
        result_start: builder.add_u64_field("result_start", fast()),
        result_len: builder.add_u64_field("result_len", fast()),
        line: builder.add_u64_field("line", fast()),
        window: builder.add_text_field("window", FAST),
        leaf: builder.add_text_field("leaf", FAST),
        part_stem: builder.add_text_field("part_stem", part_options()),
        part_stem_off: builder.add_text_field("part_stem_off", part_options()),
        part: builder.add_u64_field("part", NumericOptions::default().set_indexed()),
    };
    (builder.build(), fields)
}

/// A part document's stems: counted, without positions.
fn part_options() -> TextOptions {
    TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(PART_ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    )
}

/// What the `flags` field packs: the role (2 bits), whether the event is on the default
/// branch (1 bit), the kind of source (3 bits) and a call's index in its message (the rest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    pub role: Role,
    pub on_branch: bool,
    pub kind: SourceKind,
    pub call_index: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Content,
    Summary,
    Call,
    OrphanResult,
    Bash,
}

impl SourceKind {
    pub fn of(source: &EventSource) -> (SourceKind, usize) {
        match source {
            EventSource::Content(_) => (SourceKind::Content, 0),
            EventSource::Summary(_) => (SourceKind::Summary, 0),
            EventSource::Call { index, .. } => (SourceKind::Call, *index),
            EventSource::OrphanResult => (SourceKind::OrphanResult, 0),
            EventSource::Bash => (SourceKind::Bash, 0),
        }
    }

    const ALL: [SourceKind; 5] = [
        SourceKind::Content,
        SourceKind::Summary,
        SourceKind::Call,
        SourceKind::OrphanResult,
        SourceKind::Bash,
    ];
}

impl Flags {
    pub fn encode(self) -> u64 {
        let role = Role::ALL.iter().position(|r| *r == self.role).unwrap_or(0) as u64;
        let kind = SourceKind::ALL
            .iter()
            .position(|k| *k == self.kind)
            .unwrap_or(0) as u64;
        role | (u64::from(self.on_branch) << 2) | (kind << 3) | ((self.call_index as u64) << 6)
    }

    pub fn decode(bits: u64) -> Flags {
        Flags {
            role: Role::ALL[(bits & 3) as usize],
            on_branch: bits & 4 != 0,
            kind: SourceKind::ALL
                .get(((bits >> 3) & 7) as usize)
                .copied()
                .unwrap_or(SourceKind::Content),
            call_index: (bits >> 6) as usize,
        }
    }

    pub fn role_of(bits: u64) -> Role {
        Role::ALL[(bits & 3) as usize]
    }

    pub fn on_branch_of(bits: u64) -> bool {
        bits & 4 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_round_trip() {
        let flags = Flags {
            role: Role::Tool,
            on_branch: true,
            kind: SourceKind::Call,
            call_index: 7,
        };
        assert_eq!(Flags::decode(flags.encode()), flags);
    }

    #[test]
    fn the_analyzer_folds_case_and_diacritics() {
        let mut analyzer = analyzer();
        let mut stream = analyzer.token_stream("Café NAÏVE déjà-vu 日本語");
        let mut tokens = Vec::new();
        while let Some(token) = stream.next() {
            tokens.push(token.text.clone());
        }
        assert_eq!(tokens, ["cafe", "naive", "deja", "vu", "日本語"]);
    }

    #[test]
    fn long_words_are_cut_to_their_first_bytes() {
        let long = format!("{}é{}", "A".repeat(79), "b".repeat(40));
        let mut analyzer = analyzer();
        let mut stream = analyzer.token_stream(&long);
        let token = stream.next().unwrap();
        assert_eq!(token.text, "a".repeat(79) + "e");
        assert_eq!((token.offset_from, token.offset_to), (0, long.len()));
        let short = "ü".repeat(50);
        let mut analyzer = super::analyzer();
        let mut stream = analyzer.token_stream(&short);
        assert_eq!(stream.next().unwrap().text, "u".repeat(50));
    }
}
