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

/// Whether `token` (an analyzer token: lowercased, folded) is a stop word.
pub fn is_stop_word(token: &str) -> bool {
    STOP_WORDS.binary_search(&token).is_ok()
}

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
    stems: FxHashMap<Box<str>, Box<str>>,
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
        }
    }
}

pub struct CachedStemmerStream<'a, S> {
    tail: S,
    stemmer: WordStemmer,
    stems: &'a mut FxHashMap<Box<str>, Box<str>>,
}

impl<S: TokenStream> TokenStream for CachedStemmerStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(stem) = self.stems.get(token.text.as_str()) {
            token.text.clear();
            token.text.push_str(stem);
            return true;
        }
        let stem: Box<str> = self.stemmer.stem(&token.text).into();
        if self.stems.len() == STEM_CACHE_WORDS {
            self.stems.clear();
        }
        self.stems.insert(token.text.as_str().into(), stem.clone());
        token.text.clear();
        token.text.push_str(&stem);
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
/// "don't" is "don" and "t").
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
    "could",
    "couldn",
    "d",
    "did",
    "didn",
    "do",
    "does",
    "doesn",
    "doing",
    "don",
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
    "has",
    "hasn",
    "have",
    "haven",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "itself",
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
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
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
    "we",
    "were",
    "weren",
    "what",
    "whatever",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "won",
    "would",
    "wouldn",
    "you",
    "your",
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
            assert_eq!(got, want);
        }
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
