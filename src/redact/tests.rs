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

/// One token of each prefixed kind: its kept prefix and its body, varied by `i`.
fn tokens_of_every_kind(i: usize) -> Vec<(&'static str, String)> {
    let b = |n: usize| {
        B62.chars()
            .cycle()
            .skip(i % B62.len())
            .take(n)
            .collect::<String>()
    };
    vec![
        ("AKIA", "Q3ZXN5TL7WJ2RB4M".to_string()),
        ("ASIA", "Q3ZXN5TL7WJ2RB4M".to_string()),
        ("ghp_", b(36)),
        ("gho_", b(36)),
        ("github_pat_", format!("11ABCDEFG0_{}", b(59))),
        ("glpat-", b(20)),
        ("sk-ant-", format!("api03-{}-{}AA", b(40), b(40))),
        ("sk-", b(48)),
        ("sk-", format!("proj-{}_{}", b(30), b(40))),
        ("xoxb-", format!("1234567890-0987654321-{}", b(16))),
        ("sk_live_", b(24)),
        ("rk_test_", b(24)),
        ("AIza", format!("Sy{}", b(33))),
        ("hf_", b(34)),
        ("npm_", b(36)),
        ("eyJ", format!("hbGciOiJIUzI1NiJ9.eyJ{}.{}", b(20), b(43))),
    ]
}

/// Tokens of one kind written back to back (no space between them) are masked whole: the
/// first prefix stays, everything after it is masked, in one pass.
#[test]
fn back_to_back_tokens_of_every_kind_are_masked() {
    for kind in 0..tokens_of_every_kind(0).len() {
        let run: Vec<(&str, String)> = (0..40)
            .map(|i| tokens_of_every_kind(i)[kind].clone())
            .collect();
        let prefix = run[0].0;
        let text: String = run.iter().map(|(p, body)| format!("{p}{body}")).collect();
        assert_masks("run {} end", prefix, &text[prefix.len()..]);
    }
}

/// Tokens of every kind glued together in one run: masked to its end.
#[test]
fn a_run_of_tokens_of_every_kind_is_masked_to_its_end() {
    let text: String = (0..5)
        .flat_map(tokens_of_every_kind)
        .map(|(p, body)| format!("{p}{body}"))
        .collect();
    assert_masks("output: {}\n", "AKIA", &text["AKIA".len()..]);
}

/// A token glued to more letters is masked to the end of what is glued; a single token alone
/// keeps everything around it.
#[test]
fn what_is_glued_to_a_token_is_masked_with_it() {
    let key = "Q3ZXN5TL7WJ2RB4M";
    assert_masks("id {} end", "AKIA", &format!("{key}extra_part-2.txt"));
    assert_masks("id {}, end", "AKIA", key);
    assert_masks("{}/repo", "ghp_", &format!("{}{}", b62(36), b62(300)));
    assert_kept("MAKIAQ3ZXN5TL7WJ2RB4M and xghp_Xk9fQ2mZ7pL4vR8tW1yBn3Hc5Jd6Ge0Ks8Uq");
}

/// Secrets after a key or a keyword, one right after another: every value is masked.
#[test]
fn keyed_secrets_one_after_another_are_masked() {
    let values: Vec<String> = (0..30)
        .map(|i| B62.chars().cycle().skip(i).take(20).collect())
        .collect();
    let aws: Vec<String> = (0..30)
        .map(|i| B62.chars().cycle().skip(i).take(40).collect())
        .collect();
    let texts = [
        values
            .iter()
            .map(|v| format!("password: {v}\n"))
            .collect::<String>(),
        values.iter().map(|v| format!("API_KEY={v}")).collect(),
        values
            .iter()
            .map(|v| format!("postgres://app:{v}@db/app"))
            .collect(),
        values
            .iter()
            .map(|v| format!("Authorization: Bearer {v}{v}\n"))
            .collect(),
        aws.iter()
            .map(|v| format!("aws_secret_access_key={v}"))
            .collect(),
        aws.iter()
            .map(|v| format!("-----BEGIN PRIVATE KEY-----\n{v}\n-----END PRIVATE KEY-----"))
            .collect(),
    ];
    for text in texts {
        let out = masked(&text);
        for value in values.iter().chain(&aws) {
            assert!(!out.contains(value.as_str()), "{value} left in {out}");
        }
    }
}

/// The inputs that took seconds to minutes when masking compared every match with every other
/// and masked again until nothing changed: every secret is found (how fast is measured by
/// `examples/mask_worst_case.rs`, docs/recall.md).
#[test]
fn many_secrets_in_one_text_are_all_masked() {
    let google: String = (0..4000)
        .map(|i| tokens_of_every_kind(i)[12].1.clone())
        .map(|b| format!("AIza{b}"))
        .collect();
    assert_masks("{}", "AIza", &google["AIza".len()..]);
    let lines: String = (0..20_000)
        .map(|i| format!("password: {}\n", &b62(20 + i % 7)[i % 7..]))
        .collect();
    let out = mask(&lines);
    assert_eq!(out.lines().count(), 20_000);
    assert!(
        out.lines()
            .all(|l| l == format!("password: {}", "*".repeat(20))),
        "{}",
        &out[..200]
    );
}

/// A secret spelled with JSON string escapes (a tool call's raw arguments) is masked in the
/// raw text, escapes and all, at the offsets of the raw text.
#[test]
fn json_escaped_secrets_are_masked_in_the_raw_text() {
    assert_masks(
        r#"{"dsn":"postgres:\/\/app:{}@db\/app"}"#,
        "",
        "Sup3rS3cr3tPw",
    );
    assert_masks(r#"{"command":"echo {}"}"#, r"\u0067hp_", &b62(36));
    assert_masks(r#"{"content":"line\n{}\n"}"#, "AKIA", "Q3ZXN5TL7WJ2RB4M");
    assert_masks(r#"{"content":"a\tghp_{}"}"#, "", &b62(36));
    // An escape inside the secret is masked whole.
    let body = format!("{}\\u0066{}", b62(20), b62(16));
    assert_masks(r#"{"token":"ghp_{}"}"#, "", &body);
    assert_masks(r#"{"env":"API_KEY\u003d{}"}"#, "", "Q2mZ7pL4vR8tW1yBn3Hc");
    assert_kept(r#"{"path":"C:\\Users\\someone\\token\\notes.txt"}"#);
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
                Just("\\/".to_string()),
                Just("\\n".to_string()),
                Just("\\\"".to_string()),
                Just("\\u0067hp_".to_string()),
                Just("\\u0041".to_string()),
                Just("AIza".to_string()),
                Just("github_pat_".to_string()),
                Just("sk-ant-api03-".to_string()),
                Just("xoxb-".to_string()),
                Just("hf_".to_string()),
                Just("npm_".to_string()),
                Just("sk_live_".to_string()),
                Just("glpat-".to_string()),
                Just("password: ".to_string()),
                Just("key=".to_string()),
                Just("aws_secret_access_key=".to_string()),
                Just("Basic ".to_string()),
                Just("https://".to_string()),
                Just("-----END PRIVATE KEY-----".to_string()),
                Just("\\u003d".to_string()),
                Just("\\u002f".to_string()),
                Just("\\t".to_string()),
                Just("\\\\".to_string()),
                Just("\"".to_string()),
                Just("é".to_string()),
                prop_oneof![Just("-"), Just("."), Just("_")].prop_map(str::to_string),
                "[A-Za-z0-9]{16,48}",
                "[A-Z0-9]{16}",
                "[a-z/=+:@]{1,5}",
            ],
            0..24,
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
