//! The secret shapes: each a kind, the literals that must occur for it to be tried, a regex,
//! which group is the secret, and a check its value must pass. Order is priority: a match that
//! overlaps one of an earlier rule is dropped (`GITHUB_TOKEN=ghp_…` stays a GitHub token, its
//! `ghp_` kept, rather than an assignment masked whole).

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
    pub kind: &'static str,
    /// Any of these (ASCII case-insensitive) must occur in the text for the regex to run.
    pub triggers: &'static [&'static str],
    pub pattern: &'static str,
    /// The capture group whose characters become `*`.
    pub secret: usize,
    pub check: Check,
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

/// Word boundary on ASCII only: the DFA never falls back to the slow engine on non-ASCII text.
macro_rules! b {
    () => {
        r"(?-u:\b)"
    };
}

pub const SPECS: &[RuleSpec] = &[
    RuleSpec {
        kind: "private_key",
        triggers: &["private key-----"],
        pattern: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----((?:[A-Za-z0-9+/=\s:,]|\\[nrt]|-[A-Za-z0-9])+)",
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "jwt",
        triggers: &["eyj"],
        pattern: concat!(
            b!(),
            r"eyJ([A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})"
        ),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "aws_access_key",
        triggers: &["akia", "asia", "abia", "acca"],
        pattern: concat!(b!(), r"(?:AKIA|ASIA|ABIA|ACCA)([0-9A-Z]{16})", b!()),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "aws_secret_key",
        triggers: &["secret_access_key", "secretaccesskey"],
        pattern: r#"(?i)aws_?secret_?access_?key(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?([A-Za-z0-9/+]{40})(?-u:\b)"#,
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "github",
        triggers: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        pattern: concat!(b!(), r"gh[pousr]_([0-9A-Za-z]{36,255})", b!()),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "github",
        triggers: &["github_pat_"],
        pattern: concat!(b!(), r"github_pat_([0-9A-Za-z_]{22,255})"),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "gitlab",
        triggers: &["glpat-"],
        pattern: concat!(b!(), r"glpat-([0-9A-Za-z_\-]{20,})"),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "anthropic",
        triggers: &["sk-ant-"],
        pattern: concat!(
            b!(),
            r"sk-ant-((?:api|admin|oat)[0-9]{2}-[0-9A-Za-z_\-]{20,}|[0-9A-Za-z_\-]{32,})"
        ),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "openai",
        triggers: &["sk-"],
        pattern: concat!(
            b!(),
            r"sk-((?:proj|svcacct|admin)-[0-9A-Za-z_\-]{20,}|[0-9A-Za-z]{32,})"
        ),
        secret: 1,
        check: Check::LeftFreeRandom,
    },
    RuleSpec {
        kind: "slack",
        triggers: &["xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"],
        pattern: concat!(b!(), r"xox[abprs]-([0-9A-Za-z\-]{10,})"),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "stripe",
        triggers: &["sk_live_", "rk_live_", "sk_test_", "rk_test_"],
        pattern: concat!(b!(), r"[sr]k_(?:live|test)_([0-9A-Za-z]{16,})"),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "google",
        triggers: &["aiza"],
        pattern: concat!(b!(), r"AIza([0-9A-Za-z_\-]{35})"),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "huggingface",
        triggers: &["hf_"],
        pattern: concat!(b!(), r"hf_([0-9A-Za-z]{30,})", b!()),
        secret: 1,
        check: Check::Random,
    },
    RuleSpec {
        kind: "npm",
        triggers: &["npm_"],
        pattern: concat!(b!(), r"npm_([0-9A-Za-z]{36})", b!()),
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "url_password",
        triggers: &["://"],
        pattern: r#"(?-u:\b)[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s:/?#@"'<>\\]+:([^\s/?#@"'<>\\*]+)@"#,
        secret: 1,
        check: Check::Shape,
    },
    RuleSpec {
        kind: "http_auth",
        triggers: &["bearer", "basic"],
        pattern: concat!(
            b!(),
            r"(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s+([A-Za-z0-9\-._~+/]{16,}=*)"
        ),
        secret: 1,
        check: Check::Random,
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

/// Whether a matched value passes its rule's check; `before` is the text before the match.
pub fn passes(check: Check, before: &str, value: &str) -> bool {
    match check {
        Check::Shape => true,
        Check::Random => random::looks_random(value),
        Check::LeftFreeRandom => !before.ends_with('-') && random::looks_random(value),
    }
}
