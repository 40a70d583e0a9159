//! Queries: alternatives of words and quoted phrases, never a query language.
//!
//! Each alternative (a QUERY argument, an element of the tool's `query` array) is split into
//! double-quoted phrases and the words around them; words are the analyzer's tokens (Unicode
//! alphanumeric runs, lowercased, diacritics folded), so `AND`, `:`, `*` or `(` are ordinary
//! text: punctuation separates words and `and` is just a word. An unbalanced quote is ordinary
//! text too. A secret in a query (`ghp_…`, `token=…`: what masking would hide) is searched as a
//! phrase of its words, so its kept prefix alone (`ghp`) does not make it match.

use super::error::RecallError;
use super::schema;

/// Most words (phrase words included) in one alternative. The number and length of the
/// alternatives are the wire's limits (`wire::check_queries`), shared by every search.
pub const MAX_TERMS: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternative {
    /// Single words, in query order, without duplicates.
    pub words: Vec<String>,
    /// Phrases of two or more words (a quoted single word is a word).
    pub phrases: Vec<Vec<String>>,
}

impl Alternative {
    /// Every token the alternative needs, words and phrase words.
    pub fn all_terms(&self) -> impl Iterator<Item = &String> {
        self.words.iter().chain(self.phrases.iter().flatten())
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.phrases.is_empty()
    }
}

/// Parses the alternatives; refuses an empty list, an empty string, one without any word, and
/// queries over the size limits.
pub fn parse(queries: &[String]) -> Result<Vec<Alternative>, RecallError> {
    crate::wire::check_queries(queries).map_err(|e| RecallError::InvalidQuery(e.to_string()))?;
    queries
        .iter()
        .map(|q| {
            let alternative = parse_one(q);
            if alternative.is_empty() {
                return Err(RecallError::InvalidQuery(format!(
                    "{q:?} has no word to search for: sessions search matches words (letters and digits)"
                )));
            }
            if alternative.all_terms().count() > MAX_TERMS {
                return Err(RecallError::InvalidQuery(format!(
                    "a query has at most {MAX_TERMS} words"
                )));
            }
            Ok(alternative)
        })
        .collect()
}

fn parse_one(query: &str) -> Alternative {
    let mut alternative = Alternative {
        words: Vec::new(),
        phrases: Vec::new(),
    };
    let add_words = |alternative: &mut Alternative, text: &str| {
        let mut at = 0;
        for secret in crate::redact::find(text) {
            add_plain_words(alternative, &text[at..secret.whole.start]);
            add_phrase(alternative, tokens(&text[secret.whole.clone()]));
            at = secret.whole.end;
        }
        add_plain_words(alternative, &text[at..]);
    };
    let mut rest = query;
    while let Some(open) = rest.find('"') {
        let Some(close) = rest[open + 1..].find('"') else {
            break;
        };
        add_words(&mut alternative, &rest[..open]);
        add_phrase(&mut alternative, tokens(&rest[open + 1..open + 1 + close]));
        rest = &rest[open + 1 + close + 1..];
    }
    add_words(&mut alternative, rest);
    alternative
}

fn add_plain_words(alternative: &mut Alternative, text: &str) {
    for word in tokens(text) {
        if !alternative.words.contains(&word) {
            alternative.words.push(word);
        }
    }
}

/// A phrase's words: one word is a word, two or more a phrase.
fn add_phrase(alternative: &mut Alternative, mut phrase: Vec<String>) {
    match phrase.len() {
        0 => {}
        1 => {
            let word = phrase.remove(0);
            if !alternative.words.contains(&word) {
                alternative.words.push(word);
            }
        }
        _ => {
            if !alternative.phrases.contains(&phrase) {
                alternative.phrases.push(phrase);
            }
        }
    }
}

/// The analyzer's tokens of `text`.
pub fn tokens(text: &str) -> Vec<String> {
    let mut analyzer = schema::analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(token) = stream.next() {
        out.push(token.text.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(q: &str) -> Alternative {
        parse(&[q.to_string()]).unwrap().remove(0)
    }

    #[test]
    fn words_and_phrases() {
        let a = one(r#"deploy "exit code 137" Café"#);
        assert_eq!(a.words, ["deploy", "cafe"]);
        assert_eq!(a.phrases, [vec!["exit", "code", "137"]]);
    }

    #[test]
    fn query_syntax_is_ordinary_text() {
        let a = one(r#"title:foo AND (bar* OR "baz"#);
        assert_eq!(a.words, ["title", "foo", "and", "bar", "or", "baz"]);
        assert!(a.phrases.is_empty());
    }

    #[test]
    fn a_secret_is_one_phrase() {
        let a = one("deploy ghp_Xk9fQ2mZ7pL4vR8tW1yBn3Hc5Jd6Ge0Ks8Uq failed");
        assert_eq!(a.words, ["deploy", "failed"]);
        assert_eq!(
            a.phrases,
            [vec!["ghp", "xk9fq2mz7pl4vr8tw1ybn3hc5jd6ge0ks8uq"]]
        );
        assert_eq!(one("ghp_short").words, ["ghp", "short"]);
    }

    #[test]
    fn refusals() {
        assert!(parse(&[]).is_err());
        assert!(parse(&[" ".into()]).is_err());
        assert!(parse(&["*** ::".into()]).is_err());
        assert!(parse(&["a".repeat(crate::wire::MAX_QUERY_CHARS + 1)]).is_err());
        assert!(parse(&vec!["a".to_string(); crate::wire::MAX_QUERIES + 1]).is_err());
    }
}
