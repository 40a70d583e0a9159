use super::*;
use proptest::prelude::*;

/// Masks `text` and checks the invariants every masking keeps: the same code points, every
/// change a `*`, and masking again changes nothing.
fn masked(text: &str) -> String {
    let out = mask(text).into_owned();
    assert_eq!(
        out.chars().count(),
        text.chars().count(),
        "length of {text:?}"
    );
    for (a, b) in text.chars().zip(out.chars()) {
        assert!(a == b || b == '*', "{a:?} became {b:?} in {text:?}");
    }
    assert_eq!(mask(&out), out, "masking {text:?} twice");
    out
}

/// `secret` is masked after `prefix` inside `context`, the rest of the text unchanged.
fn assert_masks(context: &str, prefix: &str, secret: &str) {
    let text = context.replace("{}", &format!("{prefix}{secret}"));
    let expected = context.replace(
        "{}",
        &format!("{prefix}{}", "*".repeat(secret.chars().count())),
    );
    assert_eq!(masked(&text), expected, "in {text:?}");
}

fn assert_kept(text: &str) {
    assert_eq!(masked(text), text, "{text:?} was masked");
}

const B62: &str = "Xk9fQ2mZ7pL4vR8tW1yBn3Hc5Jd6Ge0Ks8Uq2Ow4Ia7Ep";

fn b62(n: usize) -> String {
    B62.chars().cycle().take(n).collect()
}

#[test]
fn aws_keys() {
    assert_masks("export AWS_ACCESS_KEY_ID={}\n", "AKIA", "Q3ZXN5TL7WJ2RB4M");
    assert_masks("id ASIA… {} end", "ASIA", "Q3ZXN5TL7WJ2RB4M");
    assert_masks(
        "aws_secret_access_key = {}\n",
        "",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    );
    assert_masks(
        "{\"AWS_SECRET_ACCESS_KEY\": \"{}\"}",
        "",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    );
}

#[test]
fn forge_tokens() {
    let t36 = b62(36);
    for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
        assert_masks("token {} here", prefix, &t36);
    }
    assert_masks("GITHUB_TOKEN={}", "ghp_", &t36);
    assert_masks("pat: {}", "github_pat_", &format!("11ABCDEFG0_{}", b62(59)));
    assert_masks("CI_TOKEN {}", "glpat-", "xY9-zK2mP7qL4vR8tW1b");
}

#[test]
fn model_provider_keys() {
    assert_masks(
        "ANTHROPIC_API_KEY={}",
        "sk-ant-",
        &format!("api03-{}-{}AA", b62(40), b62(40)),
    );
    assert_masks("key: {}", "sk-", &b62(48));
    assert_masks("\"{}\"", "sk-", &format!("proj-{}_{}", b62(30), b62(40)));
    assert_masks("HF_TOKEN {}", "hf_", &b62(34));
    assert_masks("//registry.npmjs.org/:_authToken {}", "npm_", &b62(36));
    assert_masks("maps {}&q=", "AIza", &format!("Sy{}", b62(33)));
}

#[test]
fn chat_and_payment_tokens() {
    assert_masks(
        "SLACK {}",
        "xoxb-",
        "1234567890-0987654321-Xk9fQ2mZ7pL4vR8t",
    );
    assert_masks("stripe {}", "sk_live_", &b62(24));
    assert_masks("stripe {}", "rk_live_", &b62(24));
    assert_masks("stripe {}", "sk_test_", &b62(24));
}

#[test]
fn private_key_blocks_keep_their_lines() {
    let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n";
    let text = format!(
        "cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\n"
    );
    let out = masked(&text);
    assert!(out.starts_with("cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n****"));
    assert!(out.ends_with("\n-----END RSA PRIVATE KEY-----\n"));
    assert_eq!(out.lines().count(), text.lines().count());
    assert!(!out.contains("MIIE"));
    // In a tool call's JSON arguments, the newlines are escapes.
    let json = format!(
        "write {{\"content\":\"-----BEGIN OPENSSH PRIVATE KEY-----\\n{}\\n-----END OPENSSH PRIVATE KEY-----\"}}",
        b62(64)
    );
    let out = masked(&json);
    assert!(!out.contains(&b62(64)) && out.contains("-----END OPENSSH PRIVATE KEY-----"));
}

#[test]
fn jwts_urls_and_http_auth() {
    let jwt_rest =
        "hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    assert_masks("Cookie: session={}", "eyJ", jwt_rest);
    assert_masks("postgres://app:{}@db.internal:5432/app", "", "s3cr3t-Pa55");
    assert_masks("Authorization: Bearer {}", "", &b62(40));
    assert_masks(
        "curl -H 'Authorization: Basic {}'",
        "",
        "dXNlcjpodW50ZXIyMDI2IQ==",
    );
}

#[test]
fn assignments_of_random_values() {
    let value = "Q2mZ7pL4vR8tW1yBn3Hc";
    assert_masks("API_KEY={}", "", value);
    assert_masks("client_secret: {}", "", value);
    assert_masks("{\"access_token\": \"{}\"}", "", value);
    assert_masks("DB_PASSWORD => '{}'", "", value);
    assert_masks("passwd={}", "", value);
    assert_masks("{\\\"apiKey\\\": \\\"{}\\\"}", "", value);
    assert_masks("hex api_key={}", "", "3f7c9a1e5b2d8f4a6c0e9b7d1a2b3c4d");
}

#[test]
fn look_alikes_stay() {
    for text in [
        "token=placeholder_for_the_documentation",
        "the token: 'abcdefghijklmnopqrstuvwxyz' is just letters",
        "password: hunter2",
        "password = correct horse battery staple",
        "key: /home/someone/projects/pi-context/src/main.rs",
        "secret_path=~/.config/pi-context/settings.json",
        "session_key: 0190a5e4-7b1c-7d2e-8f3a-9b4c5d6e7f80",
        "cache_key: da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "key=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "token=VGhpcyBpcyBqdXN0IGEgc2VudGVuY2Uu",
        "const token = getTokenFromEnvironment();",
        "password: process.env.DATABASE_PASSWORD",
        "max_tokens: 4096000000000000000",
        "see task-sk-list-of-all-the-remaining-things-to-do-tomorrow",
        "refactor-sk-Xk9fQ2mZ7pL4vR8tW1yBn3Hc5Jd6Ge0Ks8Uq",
        "MAKIAQ3ZXN5TL7WJ2RB4M is a word",
        "hf_hub_download(repo_id, filename)",
        "Basic authentication is configured here",
        "Bearer tokenization is explained below",
        "git@github.com:someone/repo.git and https://github.com/a/b",
        "ghp_short and sk-ant- and AKIA",
        "VGhpcyBpcyBqdXN0IGEgc2VudGVuY2Uu",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    ] {
        assert_kept(text);
    }
}

#[test]
fn text_without_triggers_is_borrowed() {
    assert!(matches!(
        mask("nothing to see in this sentence"),
        Cow::Borrowed(_)
    ));
    assert!(matches!(
        Masking::Off.apply("AKIAQ3ZXN5TL7WJ2RB4M"),
        Cow::Borrowed(_)
    ));
}

#[test]
fn offsets_count_code_points() {
    let text = format!("ünïcødé 😀 token={} ✓", "Q2mZ7pL4vR8tW1yBn3Hc");
    let out = masked(&text);
    assert!(out.ends_with(&format!("token={} ✓", "*".repeat(20))));
}

#[test]
fn the_stamp_names_the_rules() {
    assert_eq!(Masking::On.stamp(), format!("rules-{RULES_VERSION}"));
    assert_eq!(Masking::Off.stamp(), "off");
}

/// How often the entropy rule takes a truly random value of the minimum length for a secret
/// (docs/recall.md, "Secrets"): a fixed generator, so the figure is the same every run.
#[test]
fn random_values_of_the_minimum_length_are_mostly_caught() {
    let alphabet: Vec<char> = ('a'..='z').chain('A'..='Z').chain('0'..='9').collect();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let trials = 2000;
    let caught = (0..trials)
        .filter(|_| {
            let value: String = (0..MIN_CHARS)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            looks_random(&value)
        })
        .count();
    assert!(caught * 100 >= trials * 99, "{caught} of {trials}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn masking_keeps_length_and_is_idempotent(
        parts in proptest::collection::vec(
            prop_oneof![
                "[ -~]{0,40}",
                "\\PC{0,10}",
                Just("ghp_".to_string()),
                Just("sk-".to_string()),
                Just("token=".to_string()),
                Just("AKIA".to_string()),
                Just("://u:".to_string()),
                Just("@".to_string()),
                Just("-----BEGIN PRIVATE KEY-----\n".to_string()),
                Just("Bearer ".to_string()),
                Just("eyJ".to_string()),
                "[A-Za-z0-9]{16,48}",
            ],
            0..12,
        )
    ) {
        let text: String = parts.concat();
        masked(&text);
    }
}

#[test]
fn every_rule_compiles() {
    for rule in super::rules::compile() {
        assert!(!rule.regex().as_str().is_empty(), "{}", rule.spec.kind);
    }
}
