//! Secrets masked in text before it is indexed or shown from another session (docs/recall.md,
//! "Secrets").
//!
//! Masking is length-preserving in code points: a secret's characters become `*` (whitespace
//! inside a private key block stays, so its lines do too), and its recognizable prefix
//! (`ghp_`, `sk-ant-`, `AKIA`, the PEM header, the `password=` key) is left as it is, so
//! offsets into the text keep pointing at the same places. Most text holds none of the
//! literals any rule needs: one Aho-Corasick pass over the text decides that, and no regex runs.

mod random;
mod rules;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

pub use random::{looks_random, MIN_CHARS, MIN_ENTROPY_BITS, MIN_SWITCH_RATIO};

/// The version of the rules. Text indexed under another version is indexed again; bump it
/// whenever what is masked changes.
pub const RULES_VERSION: u32 = 1;

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

/// One secret found in a text, byte ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    pub kind: &'static str,
    /// The whole match, prefix or key included.
    pub whole: Range<usize>,
    /// What is masked.
    pub masked: Range<usize>,
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

/// The secrets in `text`, in order, none overlapping another.
pub fn find(text: &str) -> Vec<Secret> {
    let rules = &*RULES;
    let triggered = triggered_rules(rules, text);
    if triggered == 0 {
        return Vec::new();
    }
    let mut found: Vec<Secret> = Vec::new();
    for (i, rule) in rules.rules.iter().enumerate() {
        if triggered & (1 << i) == 0 {
            continue;
        }
        for captures in rule.regex().captures_iter(text) {
            let (Some(whole), Some(secret)) = (captures.get(0), captures.get(rule.spec.secret))
            else {
                continue;
            };
            let overlaps = found
                .iter()
                .any(|s| s.whole.start < whole.end() && whole.start() < s.whole.end);
            if overlaps || !rules::passes(rule.spec.check, &text[..whole.start()], secret.as_str())
            {
                continue;
            }
            found.push(Secret {
                kind: rule.spec.kind,
                whole: whole.range(),
                masked: secret.range(),
            });
        }
    }
    found.sort_by_key(|s| s.whole.start);
    found
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

/// `text` with every secret masked; borrowed when it holds none. Masking until nothing more is
/// found makes it idempotent (a masked span can free a neighbour's boundary).
pub fn mask(text: &str) -> Cow<'_, str> {
    let secrets = find(text);
    if secrets.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut masked = star(text, &secrets);
    loop {
        let more = find(&masked);
        if more.is_empty() {
            return Cow::Owned(masked);
        }
        let next = star(&masked, &more);
        if next == masked {
            return Cow::Owned(masked);
        }
        masked = next;
    }
}

/// Replaces the masked ranges' characters (whitespace aside) with `*`.
fn star(text: &str, secrets: &[Secret]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for secret in secrets {
        let range = &secret.masked;
        if range.start < at {
            continue;
        }
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
