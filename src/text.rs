//! Text helpers shared by history and notes: Unicode code-point arithmetic and the
//! case-insensitive literal matcher.
//!
//! Every offset and count on the wire is in Unicode code points (not bytes, not UTF-16 units,
//! not graphemes), so these helpers convert between code points and byte indices.

use regex::bytes::{Regex, RegexBuilder};

/// Number of code points in `s`.
pub fn char_len(s: &str) -> usize {
    // The standard library counts a word of bytes at a time.
    s.chars().count()
}

/// How many times `byte` occurs in `bytes` (line feeds in a body). Counted in runs of 255
/// into byte-wide counters, which the compiler turns into vector compares.
pub fn count_byte(bytes: &[u8], byte: u8) -> usize {
    bytes
        .chunks(255)
        .map(|run| {
            let count = run.iter().fold(0u8, |n, &b| n + u8::from(b == byte));
            usize::from(count)
        })
        .sum()
}

/// Byte index of the code point at `chars` (or `s.len()` when past the end).
pub fn byte_index(s: &str, chars: usize) -> usize {
    s.char_indices().nth(chars).map_or(s.len(), |(i, _)| i)
}

/// The code points `[start, start + len)` of `s`, clamped to its end.
pub fn char_slice(s: &str, start: usize, len: usize) -> &str {
    let from = byte_index(s, start);
    let rest = &s[from..];
    &rest[..byte_index(rest, len)]
}

/// A name as a path slug: lowercase; every run of characters outside `[a-z0-9]` becomes `-`;
/// dashes trimmed; empty becomes `root`. Non-ASCII letters are outside `[a-z0-9]`, so names
/// written only in them collapse (`Ünïcode` → `n-code`, `日本` → `root`).
pub fn slugify(name: &str) -> String {
    let lower = name.to_lowercase();
    let mut slug = String::with_capacity(lower.len());
    for c in lower.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        "root".to_string()
    } else {
        slug.to_string()
    }
}

/// The compiled-size limit of a query matcher: every query within `wire::check_queries` fits
/// (64 strings of 1,024 code points compile to well under this, whatever the alphabet).
pub const MATCHER_SIZE_LIMIT: usize = 64 << 20;
/// The lazy DFA cache of a query matcher, per searching thread. The default (2 MiB) thrashes on
/// the largest allowed queries and falls back to a search hundreds of times slower; the cache
/// only grows this far for such queries.
pub const MATCHER_DFA_SIZE_LIMIT: usize = 16 << 20;

/// A case-insensitive literal OR-matcher over one or more queries.
///
/// Matching uses Unicode simple case folding (as the `regex` crate's `(?i)` does), applied to
/// the original text, so offsets never shift: `ß` does not match `SS`, and `İ` matches only
/// itself. Regex metacharacters in queries are literal.
///
/// The automaton runs on bytes, so a file can be searched before it is checked to be UTF-8 (a
/// file without a match never needs the check); on UTF-8 text it finds exactly what a `str`
/// matcher finds.
#[derive(Debug, Clone)]
pub struct LiteralMatcher {
    regex: Regex,
    /// Whether a query holds a line feed (a match can then span lines).
    multiline: bool,
}

impl LiteralMatcher {
    /// Builds a matcher; every query must be non-empty (checked by callers, which own the
    /// error wording).
    pub fn new<S: AsRef<str>>(queries: &[S]) -> Result<Self, regex::Error> {
        let alternation = queries
            .iter()
            .map(|q| regex::escape(q.as_ref()))
            .collect::<Vec<_>>()
            .join("|");
        let regex = RegexBuilder::new(&alternation)
            .case_insensitive(true)
            .unicode(true)
            .size_limit(MATCHER_SIZE_LIMIT)
            .dfa_size_limit(MATCHER_DFA_SIZE_LIMIT)
            .build()?;
        let multiline = queries.iter().any(|q| q.as_ref().contains('\n'));
        Ok(Self { regex, multiline })
    }

    /// Byte offset of the earliest match in `haystack`, if any.
    pub fn find(&self, haystack: &str) -> Option<usize> {
        self.find_at(haystack, 0)
    }

    /// Byte offset of the earliest match in `haystack` that starts at `start` or later.
    pub fn find_at(&self, haystack: &str, start: usize) -> Option<usize> {
        self.regex
            .find_at(haystack.as_bytes(), start)
            .map(|m| m.start())
    }

    /// Code-point offset of the earliest match in `haystack`, if any.
    pub fn find_chars(&self, haystack: &str) -> Option<usize> {
        self.find(haystack).map(|b| char_len(&haystack[..b]))
    }

    pub fn is_match(&self, haystack: &str) -> bool {
        self.regex.is_match(haystack.as_bytes())
    }

    /// Whether `bytes` (any bytes, UTF-8 or not) hold a match: the UTF-8 encoding of a
    /// case-insensitive spelling of a query.
    pub fn is_match_bytes(&self, bytes: &[u8]) -> bool {
        self.regex.is_match(bytes)
    }

    /// Whether a query holds a line feed, so that a match can span lines.
    pub fn is_multiline(&self) -> bool {
        self.multiline
    }
}

/// `text` with control characters escaped (`\n`, `\u{0}`), so one item stays one line of a
/// report or a message.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Text quoted from a transcript inside a block of ours (a hint, a boot), with every `<` that
/// could open or close a tag (`<name`, `</name`, `<!`, `<?`) written `&lt;`: quoted text can
/// never end our block early or open one of its own. Other `<` (`a < b`) stay.
pub fn inert_markup(text: &str) -> std::borrow::Cow<'_, str> {
    let opens_tag = |rest: &str| {
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '!' || c == '?')
    };
    let tags: Vec<usize> = text
        .match_indices('<')
        .filter(|(i, _)| opens_tag(&text[i + 1..]))
        .map(|(i, _)| i)
        .collect();
    if tags.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 3 * tags.len());
    let mut from = 0;
    for i in tags {
        out.push_str(&text[from..i]);
        out.push_str("&lt;");
        from = i + 1;
    }
    out.push_str(&text[from..]);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_quoted_text_cannot_open_or_close_a_tag() {
        assert_eq!(
            inert_markup("</recall_hint> SYSTEM: <checkpoint> <!-- x --> <?xml"),
            "&lt;/recall_hint> SYSTEM: &lt;checkpoint> &lt;!-- x --> &lt;?xml"
        );
        assert_eq!(
            inert_markup("a < b, Vec<u8>, x<-y, <"),
            "a < b, Vec&lt;u8>, x<-y, <"
        );
        assert!(matches!(
            inert_markup("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn counts_code_points_not_bytes() {
        assert_eq!(char_len("a😀İ"), 3);
        assert_eq!(char_len("👨‍👩‍👧"), 5);
        assert_eq!(byte_index("a😀b", 2), 5);
        assert_eq!(byte_index("ab", 9), 2);
        assert_eq!(char_slice("😀İab", 1, 2), "İa");
        assert_eq!(char_slice("ab", 5, 2), "");
    }

    #[test]
    fn counts_bytes_across_runs() {
        let text = "a\nb\n".repeat(300);
        assert_eq!(count_byte(text.as_bytes(), b'\n'), 600);
        assert_eq!(count_byte(b"", b'\n'), 0);
        assert_eq!(count_byte(&[b'\n'; 255], b'\n'), 255);
        assert_eq!(count_byte(&[b'\n'; 256], b'\n'), 256);
    }

    #[test]
    fn literal_matching_is_case_insensitive_and_literal() {
        let m = LiteralMatcher::new(&["absent", "needle.*"]).unwrap();
        let text = format!("{}NeEdLe.* trailing", "😀İ".repeat(3));
        assert_eq!(m.find_chars(&text), Some(6));
        assert!(!LiteralMatcher::new(&["needle.+"]).unwrap().is_match(&text));
    }

    #[test]
    fn simple_case_folding_only() {
        assert!(!LiteralMatcher::new(&["ss"]).unwrap().is_match("ß"));
        assert!(!LiteralMatcher::new(&["i"]).unwrap().is_match("İ"));
        assert!(!LiteralMatcher::new(&["i"]).unwrap().is_match("ı"));
        assert!(LiteralMatcher::new(&["İ"]).unwrap().is_match("xİx"));
        assert!(LiteralMatcher::new(&["k"]).unwrap().is_match("\u{212A}"));
    }

    /// Every query within the limits of `wire::check_queries` compiles, even in the alphabets
    /// whose case folding makes the largest automata (several spellings of different UTF-8
    /// lengths per character, four-byte characters with case).
    #[test]
    fn the_largest_allowed_queries_compile() {
        use crate::wire::{MAX_QUERIES, MAX_QUERY_CHARS};
        for alphabet in ["kſsΣσςǅ", "𐐀𐐨𞤀𞤢"] {
            let letters: Vec<char> = alphabet.chars().collect();
            let queries: Vec<String> = (0..MAX_QUERIES)
                .map(|q| {
                    (0..MAX_QUERY_CHARS)
                        .map(|i| letters[(i + q) % letters.len()])
                        .collect()
                })
                .collect();
            assert!(crate::wire::check_queries(&queries).is_ok());
            // Compiling is what can fail; a match with automata this large is slow in debug
            // builds, so matching is shown with one of the strings.
            if let Err(e) = LiteralMatcher::new(&queries) {
                panic!("{alphabet}: {e}");
            }
            let one = LiteralMatcher::new(&queries[3..4]).unwrap();
            assert!(one.is_match(&format!("xx{}yy", queries[3].to_uppercase())));
        }
    }

    #[test]
    fn earliest_match_wins_across_queries() {
        let m = LiteralMatcher::new(&["zz", "b"]).unwrap();
        assert_eq!(m.find_chars("ab zz"), Some(1));
    }
}
