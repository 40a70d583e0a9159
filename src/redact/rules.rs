//! The secret shapes: each a kind, the literals that must occur for it to be tried, a regex,
//! which group is the secret, a check its value must pass, and whether it is a token masked
//! with what is glued to it. Order is priority: the rules apply one after the other, each to
//! the text as the rules before it masked it, so `GITHUB_TOKEN=ghp_…` is a GitHub token whose
//! `ghp_` stays (the assignment rule then sees `ghp_****`, too short for a value).
//!
//! One pass is enough because nothing a rule masks changes what an earlier rule saw. A masked
//! letter or digit is never followed by one left as it is (a token's mask runs on over the
//! letters, digits, `_`, `-` and inner `.` glued to it: a token written right after it, a
//! longer token than its shape says; a key's value runs to a space, quote or bracket), so no
//! mask frees the word boundary a token needs before it. And a later rule's value covers an
//! earlier rule's token whole or not at all (a key or keyword needs a separator no token
//! holds), so it never cuts one the earlier rule turned down into one it would take. Masking
//! twice changes nothing (the property test in `redact::tests`).

use std::sync::OnceLock;

use regex::Regex;

use super::random;

/// What a matched secret must also satisfy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The shape alone is enough (a distinctive prefix and a fixed alphabet and length).
    Shape,
    /// The value must look random (docs/recall.md, "Secrets": the entropy rule).
    Random,
    /// Not glued to a word on the left by `-` (`task-sk-list`), and random.
    LeftFreeRandom,
}

pub struct RuleSpec {
    /// What the secret is (docs/recall.md's table); named in the tests' messages.
    #[cfg_attr(not(test), allow(dead_code))]
    pub kind: &'static str,
    /// Any of these (ASCII case-insensitive) must occur in the text for the regex to run.
    pub triggers: &'static [&'static str],
    pub pattern: &'static str,
    /// The capture group whose characters become `*`.
    pub secret: usize,
    pub check: Check,
    /// A token: what is glued to its end is masked with it ([`glue_end`]).
    pub glued: bool,
}

pub struct Rule {
    pub spec: &'static RuleSpec,
    /// Compiled when its literals first occur: most texts trigger few rules, and compiling
    /// them all cost a search of a few hits more than masking its previews.
    regex: OnceLock<Regex>,
}

impl Rule {
    pub fn regex(&self) -> &Regex {
        self.regex
            .get_or_init(|| Regex::new(self.spec.pattern).expect("a redaction pattern compiles"))
    }
}

/// Where a token may start: a word boundary (ASCII only, so the DFA never falls back to the
/// slow engine on non-ASCII text), or right after a JSON escape of a control character
/// (`\nAKIA…` in a tool call's raw arguments), kept with the prefix. Only ever before a
/// token, never after one: a token ends where its glue ends.
macro_rules! start {
    () => {
        r"(?:\\[nrtbf]|(?-u:\b))"
    };
}

pub const SPECS: &[RuleSpec] = &[
    RuleSpec {
        kind: "private_key",
        triggers: &["private key-----"],
        pattern: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----((?:[A-Za-z0-9+/=\s:,]|\\[nrt]|-[A-Za-z0-9])+)",
        secret: 1,
        check: Check::Shape,
        glued: false,
    },
    RuleSpec {
        kind: "jwt",
        triggers: &["eyj"],
        pattern: concat!(
            start!(),
            r"eyJ([A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})"
        ),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "aws_access_key",
        triggers: &["akia", "asia", "abia", "acca"],
        pattern: concat!(start!(), r"(?:AKIA|ASIA|ABIA|ACCA)([0-9A-Z]{16})"),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "aws_secret_key",
        triggers: &["secret_access_key", "secretaccesskey"],
        pattern: r#"(?i)aws_?secret_?access_?key(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?([A-Za-z0-9/+]{40,})"#,
        secret: 1,
        check: Check::Shape,
        glued: false,
    },
    RuleSpec {
        kind: "github",
        triggers: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        pattern: concat!(start!(), r"gh[pousr]_([0-9A-Za-z]{36,})"),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "github",
        triggers: &["github_pat_"],
        pattern: concat!(start!(), r"github_pat_([0-9A-Za-z_]{22,})"),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "gitlab",
        triggers: &["glpat-"],
        pattern: concat!(start!(), r"glpat-([0-9A-Za-z_\-]{20,})"),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "anthropic",
        triggers: &["sk-ant-"],
        pattern: concat!(
            start!(),
            r"sk-ant-((?:api|admin|oat)[0-9]{2}-[0-9A-Za-z_\-]{20,}|[0-9A-Za-z_\-]{32,})"
        ),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "openai",
        triggers: &["sk-"],
        pattern: concat!(
            start!(),
            r"sk-((?:proj|svcacct|admin)-[0-9A-Za-z_\-]{20,}|[0-9A-Za-z]{32,})"
        ),
        secret: 1,
        check: Check::LeftFreeRandom,
        glued: true,
    },
    RuleSpec {
        kind: "slack",
        triggers: &["xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"],
        pattern: concat!(start!(), r"xox[abprs]-([0-9A-Za-z\-]{10,})"),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "stripe",
        triggers: &["sk_live_", "rk_live_", "sk_test_", "rk_test_"],
        pattern: concat!(start!(), r"[sr]k_(?:live|test)_([0-9A-Za-z]{16,})"),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "google",
        triggers: &["aiza"],
        pattern: concat!(start!(), r"AIza([0-9A-Za-z_\-]{35})"),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "huggingface",
        triggers: &["hf_"],
        pattern: concat!(start!(), r"hf_([0-9A-Za-z]{30,})"),
        secret: 1,
        check: Check::Random,
        glued: true,
    },
    RuleSpec {
        kind: "npm",
        triggers: &["npm_"],
        pattern: concat!(start!(), r"npm_([0-9A-Za-z]{36})"),
        secret: 1,
        check: Check::Shape,
        glued: true,
    },
    RuleSpec {
        kind: "url_password",
        triggers: &["://"],
        pattern: r#"(?-u:\b)[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s:/?#@"'<>\\*]+:([^\s/?#@"'<>\\*]+)@"#,
        secret: 1,
        check: Check::Shape,
        glued: false,
    },
    RuleSpec {
        kind: "http_auth",
        triggers: &["bearer", "basic"],
        pattern: concat!(
            start!(),
            r"(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s+([A-Za-z0-9\-._~+/]{16,}=*)"
        ),
        secret: 1,
        check: Check::Random,
        glued: false,
    },
    RuleSpec {
        kind: "assignment",
        triggers: &[
            "key",
            "secret",
            "token",
            "password",
            "passwd",
            "pwd",
            "authorization",
        ],
        pattern: r#"(?i)(?:key|secret|token|password|passwd|pwd|authorization)(?:\\?["'])?\s*(?:=|:=|:|=>)\s*(?:\\?["'])?([^\s"'`,;<>(){}\[\]\\*]{16,})"#,
        secret: 1,
        check: Check::Random,
        glued: false,
    },
];

pub fn compile() -> Vec<Rule> {
    SPECS
        .iter()
        .map(|spec| Rule {
            spec,
            regex: OnceLock::new(),
        })
        .collect()
}

/// Where what is glued to a token ending at `end` ends: letters, digits, `_` and `-`, and a `.`
/// followed by one of them. What follows is never a letter or a digit.
pub fn glue_end(text: &str, mut end: usize) -> usize {
    let bytes = text.as_bytes();
    let glue = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    while let Some(&b) = bytes.get(end) {
        if glue(b) {
            end += 1;
        } else if b == b'.' && bytes.get(end + 1).is_some_and(|&n| glue(n)) {
            end += 2;
        } else {
            break;
        }
    }
    end
}

/// Whether a matched value passes its rule's check; `before` is the text before the match.
pub fn passes(check: Check, before: &str, value: &str) -> bool {
    match check {
        Check::Shape => true,
        Check::Random => random::looks_random(value),
        Check::LeftFreeRandom => !before.ends_with('-') && random::looks_random(value),
    }
}
