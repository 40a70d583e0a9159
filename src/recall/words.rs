//! What a word of a query means: whether it is a stop word, and its stem.
//!
//! A question typed as people type it ("what did we decide about the retry backoff?") holds
//! function words and question words that say nothing about which event answers it. They never
//! decide a match (docs/recall.md, "What a query means"). Word forms are folded by English
//! stemming (`retries`, `retried`, `retrying` → `retri`), on both sides: the index holds each
//! event's stems in a field of their own ([`super::schema::Fields::stem`]).

use tantivy::tokenizer::{Language, Stemmer, TextAnalyzer, Token, TokenStream, Tokenizer};

/// Whether `token` (an analyzer token: lowercased, folded) is a stop word.
pub fn is_stop_word(token: &str) -> bool {
    STOP_WORDS.binary_search(&token).is_ok()
}

/// The English stem of an analyzer token (itself when stemming leaves it alone).
pub fn stem(token: &str) -> String {
    let mut stemmer = stemmer();
    let mut stream = stemmer.token_stream(token);
    match stream.next() {
        Some(token) => token.text.clone(),
        None => token.to_string(),
    }
}

/// A stemmer of single tokens: the token as it is, stemmed.
pub fn stemmer() -> TextAnalyzer {
    TextAnalyzer::builder(WholeToken)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// A tokenizer that takes its whole input as one token (the input is already a token).
#[derive(Clone, Copy)]
struct WholeToken;

struct WholeTokenStream {
    token: Token,
    done: bool,
}

impl Tokenizer for WholeToken {
    type TokenStream<'a> = WholeTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WholeTokenStream {
        WholeTokenStream {
            token: Token {
                offset_from: 0,
                offset_to: text.len(),
                position: 0,
                text: text.to_string(),
                position_length: 1,
            },
            done: text.is_empty(),
        }
    }
}

impl TokenStream for WholeTokenStream {
    fn advance(&mut self) -> bool {
        let first = !self.done;
        self.done = true;
        first
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
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
        assert_eq!(stem(""), "");
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
