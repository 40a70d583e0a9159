//! What a word of a query means: whether it is a stop word, and its stem.
//!
//! A question typed as people type it ("what did we decide about the retry backoff?") holds
//! function words and question words that say nothing about which event answers it. They never
//! decide a match (docs/recall.md, "What a query means"). Word forms are folded by English
//! stemming (`retries`, `retried`, `retrying` → `retri`), on both sides: the index holds each
//! event's stems in a field of their own ([`super::schema::Fields::stem`]).
//!
//! Only tokens of ASCII letters up to 24 bytes are stemmed; the rest are their own stem, on
//! both sides.

use std::borrow::Cow;

use rustc_hash::FxHashMap;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Whether `token` (an analyzer token: lowercased, folded) is a stop word, or one typed with
/// two neighbouring letters swapped ("waht", "teh", "hwo"; [`is_swapped`]).
pub fn is_stop_word(token: &str) -> bool {
    is_listed_stop_word(token) || is_swapped(token, is_listed_stop_word)
}

fn is_listed_stop_word(token: &str) -> bool {
    STOP_WORDS.binary_search(&token).is_ok()
}

/// Whether `token` is a word of `listed` (three letters or more) typed with two neighbouring
/// letters swapped, and is not itself an English word ([`SWAPS_THAT_ARE_WORDS`]: "form" is
/// "from" swapped). People type fast: an unknown "waht" counted as the rarest word of a
/// prompt, and its weight halved the share of the prompt an earlier session held.
pub fn is_swapped(token: &str, listed: impl Fn(&str) -> bool) -> bool {
    let bytes = token.as_bytes();
    let length = 3..=MAX_SWAPPED_BYTES;
    if !length.contains(&bytes.len()) || !bytes.iter().all(u8::is_ascii_lowercase) {
        return false;
    }
    if listed(token) {
        return false;
    }
    if SWAPS_THAT_ARE_WORDS.binary_search(&token).is_ok() {
        return false;
    }
    let mut swapped = bytes.to_vec();
    (0..bytes.len() - 1).any(|i| {
        if bytes[i] == bytes[i + 1] {
            return false;
        }
        swapped.swap(i, i + 1);
        let hit = std::str::from_utf8(&swapped).is_ok_and(&listed);
        swapped.swap(i, i + 1);
        hit
    })
}

/// The longest token [`is_swapped`] looks at: every listed word is shorter, and trying each
/// swap of a long token (a query's word may be thousands of bytes) would cost its square.
pub const MAX_SWAPPED_BYTES: usize = 16;

/// English words that are a stop word or a hint's filler with two neighbouring letters
/// swapped: they stay content words. Sorted (binary search).
const SWAPS_THAT_ARE_WORDS: &[&str] = &[
    "aer",
    "amy",
    "arne",
    "aws",
    "bene",
    "dose",
    "eben",
    "elt",
    "ese",
    "form",
    "fro",
    "hand",
    "hans",
    "heer",
    "herse",
    "hsi",
    "ilke",
    "ins",
    "inst",
    "ist",
    "lese",
    "mien",
    "mya",
    "nad",
    "nay",
    "nito",
    "oaky",
    "oto",
    "pervious",
    "perviously",
    "sin",
    "sue",
    "suer",
    "tec",
    "theer",
    "three",
    "toady",
    "toher",
    "veen",
    "veer",
    "vie",
    "wheer",
];

/// Tokens longer than this many bytes are their own stem: hashes, ids and words run together
/// gain nothing from stemming, and stemming them was a good part of a build's cost.
const MAX_STEM_BYTES: usize = 24;

/// The English stemmer of analyzer tokens, the same for the index and the query.
#[derive(Clone, Copy)]
pub struct WordStemmer(frostem::Stemmer);

impl WordStemmer {
    pub fn new() -> WordStemmer {
        WordStemmer(frostem::Stemmer::new(frostem::Algorithm::English))
    }

    /// The stem of `token` (Snowball English), or the token itself when it holds a digit or a
    /// letter outside ASCII, or is longer than [`MAX_STEM_BYTES`].
    pub fn stem<'a>(&self, token: &'a str) -> Cow<'a, str> {
        let stemmable =
            token.len() <= MAX_STEM_BYTES && token.bytes().all(|b| b.is_ascii_lowercase());
        if stemmable {
            self.0.stem(token)
        } else {
            Cow::Borrowed(token)
        }
    }
}

/// The shortest root [`agent_root`] leaves: shorter ones ("us" of "user", "ord" of "order")
/// would join unrelated words.
const MIN_ROOT_BYTES: usize = 4;

/// The root an agent noun's stem is indexed under too, beside the stem itself: Snowball keeps
/// `signer`, `mailer`, `watcher` and `compressor` whole (their suffix is not in its region R2),
/// so a prompt that says "signing", "mailing", "watch" or "compressing" missed the session that
/// named the component. An `-er`/`-or` ending comes off when a root of at least
/// [`MIN_ROOT_BYTES`] is left, then a doubled final consonant is undoubled as Snowball does
/// after `-ing` (`emitter` → `emitt` → `emit`, as `emitting` → `emit`). `None`: no root.
///
/// Only the index holds it, not the query: "signing" finds the signer, but "runner" does not
/// find every "run" nor "shoulder" every "should" (folding both sides cost the natural-question
/// set three questions that way).
pub fn agent_root(stem: &str) -> Option<String> {
    if !stem.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let root = ["er", "or"]
        .iter()
        .find_map(|suffix| stem.strip_suffix(suffix))
        .filter(|root| root.len() >= MIN_ROOT_BYTES)
        .unwrap_or(stem);
    let root = undoubled(root);
    (root.len() < stem.len()).then(|| root.to_string())
}

/// `root` without the second of a doubled final consonant (Snowball's list: bb dd ff gg mm nn
/// pp rr tt), when at least three letters remain.
fn undoubled(root: &str) -> &str {
    let bytes = root.as_bytes();
    match bytes {
        [.., a, b] if a == b && b"bdfgmnprt".contains(b) && bytes.len() > 3 => {
            &root[..root.len() - 1]
        }
        _ => root,
    }
}

impl Default for WordStemmer {
    fn default() -> Self {
        WordStemmer::new()
    }
}

/// The stem of one analyzer token.
pub fn stem(token: &str) -> String {
    WordStemmer::new().stem(token).into_owned()
}

/// A token filter replacing each token by its stem ([`WordStemmer`]), remembering the stems
/// of the words it has seen: words repeat (a transcript's vocabulary is small), and stemming
/// each occurrence again took a fifth of a build.
#[derive(Clone, Copy, Default)]
pub struct CachedStemmer;

/// Distinct words remembered per analyzer; past it the memory starts again.
const STEM_CACHE_WORDS: usize = 1 << 16;

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            inner: tokenizer,
            stemmer: WordStemmer::new(),
            stems: FxHashMap::default(),
        }
    }
}

pub struct CachedStemmerFilter<T> {
    inner: T,
    stemmer: WordStemmer,
    stems: FxHashMap<Box<str>, Stemmed>,
}

/// A word's stem, and the root it is indexed under too ([`agent_root`]).
#[derive(Clone)]
struct Stemmed {
    stem: Box<str>,
    root: Option<Box<str>>,
}

/// A copy starts with an empty memory (the analyzer is copied for each indexing thread).
impl<T: Clone> Clone for CachedStemmerFilter<T> {
    fn clone(&self) -> Self {
        CachedStemmerFilter {
            inner: self.inner.clone(),
            stemmer: self.stemmer,
            stems: FxHashMap::default(),
        }
    }
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            stemmer: self.stemmer,
            stems: &mut self.stems,
            root: None,
        }
    }
}

pub struct CachedStemmerStream<'a, S> {
    tail: S,
    stemmer: WordStemmer,
    stems: &'a mut FxHashMap<Box<str>, Stemmed>,
    /// The root of the token just given, given next at the same position.
    root: Option<Box<str>>,
}

impl<S: TokenStream> TokenStream for CachedStemmerStream<'_, S> {
    fn advance(&mut self) -> bool {
        if let Some(root) = self.root.take() {
            let token = self.tail.token_mut();
            token.text.clear();
            token.text.push_str(&root);
            return true;
        }
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        let stemmed = match self.stems.get(token.text.as_str()) {
            Some(stemmed) => stemmed.clone(),
            None => {
                let stem = self.stemmer.stem(&token.text);
                let stemmed = Stemmed {
                    root: agent_root(&stem).map(String::into_boxed_str),
                    stem: stem.into(),
                };
                if self.stems.len() == STEM_CACHE_WORDS {
                    self.stems.clear();
                }
                self.stems
                    .insert(token.text.as_str().into(), stemmed.clone());
                stemmed
            }
        };
        token.text.clear();
        token.text.push_str(&stemmed.stem);
        self.root = stemmed.root;
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

/// English function words, and the words a question is asked with ("what", "did", "how"):
/// they hold no fact. Sorted (binary search); analyzer tokens (lowercase, no apostrophes:
/// "don't" is "don" and "t"; typed without one, "dont" and "whats" are listed too).
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren",
    "arent",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cant",
    "could",
    "couldn",
    "couldnt",
    "d",
    "did",
    "didn",
    "didnt",
    "do",
    "does",
    "doesn",
    "doesnt",
    "doing",
    "don",
    "dont",
    "down",
    "during",
    "each",
    "either",
    "else",
    "ever",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn",
    "hadnt",
    "has",
    "hasn",
    "hasnt",
    "have",
    "haven",
    "havent",
    "having",
    "he",
    "her",
    "here",
    "heres",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "hows",
    "i",
    "if",
    "im",
    "in",
    "into",
    "is",
    "isn",
    "isnt",
    "it",
    "its",
    "itself",
    "ive",
    "just",
    "ll",
    "m",
    "may",
    "me",
    "might",
    "mine",
    "more",
    "most",
    "much",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "re",
    "s",
    "same",
    "shall",
    "she",
    "should",
    "shouldn",
    "shouldnt",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "thats",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "theres",
    "these",
    "they",
    "theyre",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "ve",
    "very",
    "was",
    "wasn",
    "wasnt",
    "we",
    "were",
    "weren",
    "werent",
    "weve",
    "what",
    "whatever",
    "whats",
    "when",
    "where",
    "wheres",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whos",
    "whose",
    "why",
    "will",
    "with",
    "won",
    "wont",
    "would",
    "wouldn",
    "wouldnt",
    "you",
    "your",
    "youre",
    "yours",
    "yourself",
    "yourselves",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_analyzer_tokens() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]), "sorted");
        assert!(STOP_WORDS
            .iter()
            .all(|w| super::super::query::tokens(w) == [w.to_string()]));
    }

    #[test]
    fn word_forms_share_a_stem() {
        for form in ["retry", "retries", "retried", "retrying"] {
            assert_eq!(stem(form), "retri", "{form}");
        }
        assert_eq!(stem("researched"), stem("research"));
        assert_eq!(stem("日本語"), "日本語");
        assert_eq!(stem("v2retries"), "v2retries");
        assert_eq!(stem(""), "");
    }

    #[test]
    fn the_cached_filter_stems_as_the_query_does() {
        use tantivy::tokenizer::{SimpleTokenizer, TextAnalyzer};
        let mut analyzer = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(CachedStemmer)
            .build();
        let text = "retries retried retries running runs abc123 running";
        for _ in 0..2 {
            let mut stream = analyzer.token_stream(text);
            let mut got = Vec::new();
            while let Some(token) = stream.next() {
                got.push(token.text.clone());
            }
            let want: Vec<String> = text.split(' ').map(stem).collect();
            assert!(want.iter().all(|w| agent_root(w).is_none()));
            assert_eq!(got, want);
        }
    }

    #[test]
    fn swapped_exceptions_are_sorted_swaps_of_listed_words() {
        assert!(
            SWAPS_THAT_ARE_WORDS.windows(2).all(|w| w[0] < w[1]),
            "sorted"
        );
        for word in SWAPS_THAT_ARE_WORDS {
            assert!(!is_stop_word(word), "{word}");
        }
    }

    #[test]
    fn stop_words_typed_with_two_letters_swapped_are_stop_words() {
        for word in [
            "waht", "teh", "hwo", "wsa", "ddi", "whcih", "taht", "wyh", "wiht",
        ] {
            assert!(is_stop_word(word), "{word}");
        }
        for word in [
            "form", "three", "aws", "wheat", "shard", "golden", "ab", "wha",
        ] {
            assert!(!is_stop_word(word), "{word}");
        }
    }

    #[test]
    fn every_listed_word_is_short_enough_to_be_found_swapped() {
        assert!(STOP_WORDS.iter().all(|w| w.len() <= MAX_SWAPPED_BYTES));
    }

    #[test]
    fn a_long_token_is_not_tried_swap_by_swap() {
        let looked_up = std::cell::Cell::new(0);
        let listed = |_: &str| {
            looked_up.set(looked_up.get() + 1);
            false
        };
        assert!(!is_swapped(&"ab".repeat(50_000), listed));
        assert_eq!(looked_up.get(), 0);
        assert!(!is_swapped("abcd", listed));
        assert!(looked_up.get() > 0);
    }

    #[test]
    fn contractions_typed_without_an_apostrophe_are_stop_words() {
        for word in ["whats", "dont", "didnt", "thats", "hows", "ive"] {
            assert!(is_stop_word(word), "{word}");
        }
    }

    /// What the stem analyzer makes of `text`.
    fn indexed(text: &str) -> Vec<String> {
        use tantivy::tokenizer::{SimpleTokenizer, TextAnalyzer};
        let mut analyzer = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(CachedStemmer)
            .build();
        let mut stream = analyzer.token_stream(text);
        let mut got = Vec::new();
        while let Some(token) = stream.next() {
            got.push(token.text.clone());
        }
        got
    }

    #[test]
    fn an_agent_noun_is_indexed_under_its_verbs_stem_too() {
        for (agent, verb) in [
            ("signer", "signing"),
            ("mailer", "mailing"),
            ("watcher", "watch"),
            ("compressor", "compressing"),
            ("collector", "collection"),
            ("emitter", "emitting"),
            ("planner", "planning"),
            ("stitcher", "stitched"),
            ("sampler", "samples"),
            ("workers", "working"),
        ] {
            let tokens = indexed(agent);
            assert_eq!(tokens, [stem(agent), stem(verb)], "{agent} {verb}");
        }
    }

    #[test]
    fn the_query_keeps_an_agent_nouns_own_stem() {
        assert_eq!(stem("runner"), "runner");
        assert_eq!(stem("shoulder"), "shoulder");
        assert_eq!(indexed("runner runs"), ["runner", "run", "run"]);
    }

    #[test]
    fn short_roots_are_not_made() {
        for word in [
            "user", "order", "error", "users", "add", "digester", "retries",
        ] {
            assert_eq!(indexed(word), [stem(word)], "{word}");
        }
        assert_eq!(agent_root("v2er"), None);
    }

    #[test]
    fn question_words_are_stop_words_and_facts_are_not() {
        for word in ["what", "did", "how", "the", "we", "when", "which", "why"] {
            assert!(is_stop_word(word), "{word}");
        }
        for word in ["caroline", "research", "backoff", "retry", "decide"] {
            assert!(!is_stop_word(word), "{word}");
        }
    }
}
