//! Queries: alternatives of words and quoted phrases, never a query language.
//!
//! Each alternative (a QUERY argument, an element of the tool's `query` array) is split into
//! double-quoted phrases and the words around them; words are the analyzer's tokens (Unicode
//! alphanumeric runs, lowercased, diacritics folded), so `AND`, `:`, `*` or `(` are ordinary
//! text: punctuation separates words and `and` is just a word. An unbalanced quote is ordinary
//! text too.
//!
//! While masking is on, an alternative holding a secret (`ghp_…`, `token=…`: what masking
//! hides) is not searched: the index holds no secret, so it could only match the secret's kept
//! prefix (`ghp`) elsewhere. It is counted instead, so the answer can say why it found nothing.
//! With masking off, the index holds the text as it is and so is the query: a secret is words.

use super::error::RecallError;
use super::{schema, words};
use crate::redact::Masking;

/// Most words (phrase words included) in one alternative. The number and length of the
/// alternatives are the wire's limits (`wire::check_queries`), shared by every search.
pub const MAX_TERMS: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternative {
    /// The words a document is matched and ranked by, in query order, without duplicates: the
    /// content words, quoted ones included. Stop words are left out (`words::is_stop_word`),
    /// unless the alternative holds nothing else.
    pub words: Vec<String>,
    /// Each word's stem, in the same order: a document holding another form of a word matches
    /// it, below one holding the word as written.
    pub stems: Vec<String>,
    /// Quoted phrases of two or more words (stop words included): a document holding one ranks
    /// higher; a document without it still matches by its words.
    pub phrases: Vec<Vec<String>>,
}

impl Alternative {
    /// An alternative of `words` (analyzer tokens) and quoted `phrases`.
    pub fn new(words: Vec<String>, phrases: Vec<Vec<String>>) -> Alternative {
        Alternative::with_compounds(words, phrases, Vec::new())
    }

    /// An alternative of `words`, quoted `phrases`, and `compounds`: words written joined
    /// without a space (`off-by-one`, `user_id`), which are phrases whose every word counts,
    /// stop words included.
    fn with_compounds(
        words: Vec<String>,
        mut phrases: Vec<Vec<String>>,
        compounds: Vec<Vec<String>>,
    ) -> Alternative {
        let mut all: Vec<String> = Vec::new();
        let every = words
            .into_iter()
            .chain(phrases.iter().flatten().cloned())
            .chain(compounds.iter().flatten().cloned());
        for word in every {
            if !all.contains(&word) {
                all.push(word);
            }
        }
        let kept = |w: &String| compounds.iter().flatten().any(|c| c == w);
        let content: Vec<String> = all
            .iter()
            .filter(|w| kept(w) || !words::is_stop_word(w))
            .cloned()
            .collect();
        for compound in compounds {
            if !phrases.contains(&compound) {
                phrases.push(compound);
            }
        }
        let words = if content.is_empty() { all } else { content };
        Alternative {
            stems: words.iter().map(|w| words::stem(w)).collect(),
            words,
            phrases,
        }
    }

    /// Every token the alternative needs, words and phrase words.
    pub fn all_terms(&self) -> impl Iterator<Item = &String> {
        self.words.iter().chain(self.phrases.iter().flatten())
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.phrases.is_empty()
    }
}

/// A parsed query: the alternatives to search, and how many were left out for holding a
/// secret (masking on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub alternatives: Vec<Alternative>,
    pub secret_queries: usize,
}

/// Parses the alternatives; refuses an empty list, an empty string, one without any word (nor
/// a secret), and queries over the size limits.
pub fn parse(queries: &[String], masking: Masking) -> Result<Parsed, RecallError> {
    crate::wire::check_queries(queries).map_err(|e| RecallError::InvalidQuery(e.to_string()))?;
    let mut parsed = Parsed {
        alternatives: Vec::new(),
        secret_queries: 0,
    };
    for q in queries {
        if masking == Masking::On && crate::redact::holds_secret(q) {
            parsed.secret_queries += 1;
            continue;
        }
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
        parsed.alternatives.push(alternative);
    }
    Ok(parsed)
}

fn parse_one(query: &str) -> Alternative {
    let mut words = Vec::new();
    let mut phrases: Vec<Vec<String>> = Vec::new();
    let mut compounds: Vec<Vec<String>> = Vec::new();
    let mut plain = |text: &str, words: &mut Vec<String>| {
        for chunk in text.split_whitespace() {
            let chunk_words = tokens(chunk);
            if chunk_words.len() > 1 && !compounds.contains(&chunk_words) {
                compounds.push(chunk_words.clone());
            }
            words.extend(chunk_words);
        }
    };
    let mut rest = query;
    while let Some(open) = rest.find('"') {
        let Some(close) = rest[open + 1..].find('"') else {
            break;
        };
        plain(&rest[..open], &mut words);
        let phrase = tokens(&rest[open + 1..open + 1 + close]);
        words.extend(phrase.iter().cloned());
        if phrase.len() > 1 && !phrases.contains(&phrase) {
            phrases.push(phrase);
        }
        rest = &rest[open + 1 + close + 1..];
    }
    plain(rest, &mut words);
    Alternative::with_compounds(words, phrases, compounds)
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
        parse(&[q.to_string()], Masking::On)
            .unwrap()
            .alternatives
            .remove(0)
    }

    #[test]
    fn words_and_phrases() {
        let a = one(r#"deploy "exit code 137" Café"#);
        assert_eq!(a.words, ["deploy", "exit", "code", "137", "cafe"]);
        assert_eq!(a.phrases, [vec!["exit", "code", "137"]]);
        assert_eq!(a.stems, ["deploy", "exit", "code", "137", "cafe"]);
    }

    #[test]
    fn query_syntax_is_ordinary_text() {
        let a = one(r#"title:foo AND (bar* OR "baz"#);
        assert_eq!(a.words, ["title", "foo", "bar", "baz"]);
        assert_eq!(a.phrases, [vec!["title", "foo"]]);
    }

    #[test]
    fn stop_and_question_words_never_decide_unless_nothing_else_is_asked() {
        let a = one("What did Caroline research?");
        assert_eq!(a.words, ["caroline", "research"]);
        let a = one(r#"what did I think of "The Night Circus""#);
        assert_eq!(a.words, ["think", "night", "circus"]);
        assert_eq!(a.phrases, [vec!["the", "night", "circus"]]);
        assert_eq!(one("to be or not to be").words, ["to", "be", "or", "not"]);
    }

    #[test]
    fn words_joined_without_a_space_are_a_phrase_whose_every_word_counts() {
        let a = one("the off-by-one in user_id");
        assert_eq!(a.words, ["off", "by", "one", "user", "id"]);
        assert_eq!(a.phrases, [vec!["off", "by", "one"], vec!["user", "id"]]);
    }

    #[test]
    fn words_are_stemmed_for_their_other_forms() {
        let a = one("retries retried");
        assert_eq!(a.words, ["retries", "retried"]);
        assert_eq!(a.stems, ["retri", "retri"]);
    }

    /// Masking on, an alternative holding a secret is counted, not searched, whatever else
    /// it holds (even no word at all); masking off, it is words like any other.
    #[test]
    fn a_secret_leaves_its_alternative_out_while_masking_is_on() {
        let token = "ghp_Xk9fQ2mZ7pL4vR8tW1yBn3Hc5Jd6Ge0Ks8Uq";
        let long_words = format!(
            "eyJ{}.eyJ{}.{}",
            "a1B2".repeat(25),
            "c3D4".repeat(25),
            "e5F6".repeat(25)
        );
        let queries = [
            format!("deploy {token} failed"),
            "deploy".into(),
            long_words.clone(),
        ];
        let on = parse(&queries, Masking::On).unwrap();
        assert_eq!(on.secret_queries, 2);
        assert_eq!(on.alternatives.len(), 1);
        assert_eq!(on.alternatives[0].words, ["deploy"]);
        let off = parse(&queries[..2], Masking::Off).unwrap();
        assert_eq!(off.secret_queries, 0);
        assert_eq!(
            off.alternatives[0].words,
            [
                "deploy",
                "ghp",
                "xk9fq2mz7pl4vr8tw1ybn3hc5jd6ge0ks8uq",
                "failed"
            ]
        );
        assert_eq!(one("ghp_short").words, ["ghp", "short"]);
    }

    #[test]
    fn refusals() {
        let parse = |queries: &[String]| parse(queries, Masking::On);
        assert!(parse(&[]).is_err());
        assert!(parse(&[" ".into()]).is_err());
        assert!(parse(&["*** ::".into()]).is_err());
        assert!(parse(&["a".repeat(crate::wire::MAX_QUERY_CHARS + 1)]).is_err());
        assert!(parse(&vec!["a".to_string(); crate::wire::MAX_QUERIES + 1]).is_err());
    }
}
