//! Secrets masked in text before it is indexed or shown from another session (docs/recall.md,
//! "Secrets").
//!
//! Masking is length-preserving in code points: a secret's characters become `*` (whitespace
//! inside a private key block stays, so its lines do too), and its recognizable prefix
//! (`ghp_`, `sk-ant-`, `AKIA`, the PEM header, the `password=` key) is left as it is, so
//! offsets into the text keep pointing at the same places. Most text holds none of the
//! literals any rule needs: one Aho-Corasick pass over the text decides that, and no regex runs.
//! Masking is linear in the text, and one pass finds everything (masking twice changes
//! nothing).

mod json;
mod random;
mod rules;
mod spans;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

pub use random::{looks_random, MIN_CHARS, MIN_ENTROPY_BITS, MIN_SWITCH_RATIO};

/// The version of the rules. Text indexed under another version is indexed again; bump it
/// whenever what is masked changes (2: one pass, tokens masked with what is glued to them,
/// `\/` and `\uXXXX` escapes seen through).
pub const RULES_VERSION: u32 = 2;

/// Whether text is masked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Masking {
    #[default]
    On,
    /// `PI_CONTEXT_REDACT=off`: secrets reach the index as they are (unsafe).
    Off,
}

impl Masking {
    /// What an index records of the masking it was built with: the rules' version, or `off`.
    pub fn stamp(self) -> String {
        match self {
            Masking::On => format!("rules-{RULES_VERSION}"),
            Masking::Off => "off".to_string(),
        }
    }

    /// `text` masked when masking is on.
    pub fn apply(self, text: &str) -> Cow<'_, str> {
        match self {
            Masking::On => mask(text),
            Masking::Off => Cow::Borrowed(text),
        }
    }

    /// `text` masked in place when masking is on.
    pub fn apply_owned(self, text: String) -> String {
        match self {
            Masking::On => match mask(&text) {
                Cow::Borrowed(_) => text,
                Cow::Owned(masked) => masked,
            },
            Masking::Off => text,
        }
    }
}

struct Rules {
    rules: Vec<rules::Rule>,
    prefilter: AhoCorasick,
    /// The prefilter's pattern index → the rules it triggers (a bit set over `rules`).
    triggers: Vec<u32>,
}

static RULES: LazyLock<Rules> = LazyLock::new(|| {
    let rules = rules::compile();
    let mut literals: Vec<&'static str> = Vec::new();
    let mut triggers: Vec<u32> = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        for literal in rule.spec.triggers {
            match literals.iter().position(|l| l == literal) {
                Some(at) => triggers[at] |= 1 << i,
                None => {
                    literals.push(literal);
                    triggers.push(1 << i);
                }
            }
        }
    }
    let prefilter = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(&literals)
        .expect("the redaction literals build an automaton");
    Rules {
        rules,
        prefilter,
        triggers,
    }
});

/// The byte ranges of `text` that masking hides: sorted, disjoint, on character boundaries.
///
/// The rules apply in priority order, each once: its regex runs over the text as the rules
/// before it masked it ([`rules`] says why one pass is enough), so masking is linear in the
/// text. A text holding `\/` or `\uXXXX` escapes is matched as its decoded view, and what is
/// found there masks the raw characters it was decoded from ([`json`]).
pub fn find(text: &str) -> Vec<Range<usize>> {
    let rules = &*RULES;
    let decoded = json::hides(text).then(|| json::Decoded::of(text)).flatten();
    let view = decoded.as_ref().map_or(text, |d| d.text.as_str());
    let triggered = triggered_rules(rules, view);
    if triggered == 0 {
        return Vec::new();
    }
    let mut view = Cow::Borrowed(view);
    let mut masked: Vec<Range<usize>> = Vec::new();
    for (i, rule) in rules.rules.iter().enumerate() {
        if triggered & (1 << i) == 0 {
            continue;
        }
        let found = rule_matches(rule, &view);
        if found.is_empty() {
            continue;
        }
        view = Cow::Owned(star_bytes(view.into_owned(), &found));
        masked = spans::union(&masked, &found);
    }
    match &decoded {
        Some(decoded) => decoded.to_raw(&masked),
        None => masked,
    }
}

/// Whether masking hides anything of `text`.
pub fn holds_secret(text: &str) -> bool {
    !find(text).is_empty()
}

/// What `rule` masks of `text`, in order: one pass of its regex, and of a token, what is glued
/// to it (the search goes on after the glue, so a token's glue is read once).
fn rule_matches(rule: &rules::Rule, text: &str) -> Vec<Range<usize>> {
    let regex = rule.regex();
    let mut found = Vec::new();
    let mut at = 0;
    while at <= text.len() {
        let Some(captures) = regex.captures_at(text, at) else {
            break;
        };
        let (Some(whole), Some(secret)) = (captures.get(0), captures.get(rule.spec.secret)) else {
            break;
        };
        at = whole.end().max(whole.start() + 1);
        if !rules::passes(rule.spec.check, &text[..whole.start()], secret.as_str()) {
            continue;
        }
        let end = if rule.spec.glued {
            rules::glue_end(text, secret.end())
        } else {
            secret.end()
        };
        found.push(secret.start()..end);
        at = at.max(end);
    }
    found
}

/// `text` with the bytes of the characters in `ranges` (whitespace aside) turned into `*`: the
/// rules see a masked character as `*`, and every offset stays where it was.
fn star_bytes(text: String, ranges: &[Range<usize>]) -> String {
    let mut bytes = text.into_bytes();
    for range in ranges {
        let mut at = range.start;
        while at < range.end {
            let len = utf8_len(bytes[at]);
            let whitespace = std::str::from_utf8(&bytes[at..at + len])
                .ok()
                .and_then(|c| c.chars().next())
                .is_some_and(char::is_whitespace);
            if !whitespace {
                bytes[at..at + len].fill(b'*');
            }
            at += len;
        }
    }
    String::from_utf8(bytes).expect("masking replaces whole characters with ASCII")
}

/// The length of the UTF-8 sequence that starts with `first`.
fn utf8_len(first: u8) -> usize {
    match first {
        0..0x80 => 1,
        0xC0..0xE0 => 2,
        0xE0..0xF0 => 3,
        _ => 4,
    }
}

/// The rules whose literals occur in `text`, as a bit set. Overlapping matches: a literal
/// inside another (`key` in `PRIVATE KEY-----`, `sk-` in `sk-ant-`) must not hide it.
fn triggered_rules(rules: &Rules, text: &str) -> u32 {
    let all = (1u32 << rules.rules.len()) - 1;
    let mut triggered = 0;
    for m in rules.prefilter.find_overlapping_iter(text) {
        triggered |= rules.triggers[m.pattern().as_usize()];
        if triggered == all {
            break;
        }
    }
    triggered
}

/// `text` with every secret masked; borrowed when it holds none. One pass: masking never
/// frees a boundary the rules look at (`rules`), so masking again changes nothing.
pub fn mask(text: &str) -> Cow<'_, str> {
    let found = find(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(star(text, &found))
}

/// Replaces the characters of `ranges` (sorted, disjoint), whitespace aside, with `*`.
fn star(text: &str, ranges: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for range in ranges {
        out.push_str(&text[at..range.start]);
        out.extend(
            text[range.clone()]
                .chars()
                .map(|c| if c.is_whitespace() { c } else { '*' }),
        );
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests;
