//! Secrets kept out of the recall index (docs/recall.md, "Secrets"): a search for a secret finds
//! nothing, previews and other sessions' history reads are masked at the offsets of the exact
//! text, the current session and the `history` CLI stay exact (`--redact` masks), and
//! `PI_CONTEXT_REDACT=off` or another rules version rebuilds the index.

use crate::common;

use std::path::{Path, PathBuf};

use common::recall::{generation_dir, ids, json_in, project_dir, session_id, write_pi_session};
use common::session::{ok_json, read_text, tool_with_env, SessionBuilder};
use common::TestEnv;
use serde_json::{json, Value};

/// The secrets, assembled here so no scanner takes this file for a leak.
struct Secrets {
    github: String,
    aws: String,
    stripe: String,
    password: String,
    url_password: String,
}

impl Secrets {
    fn new() -> Secrets {
        Secrets {
            github: ["ghp", "_", "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ0123456"].concat(),
            aws: ["AK", "IA", "Q3ZXN5TL7WJ2RB4M"].concat(),
            stripe: ["sk", "_live_", "51HxYzAbCdEf9GhIjK2LmNoP"].concat(),
            password: "Zx8#qL2!vN7@pR4wT9kM".to_string(),
            url_password: "Sup3rS3cr3tPw".to_string(),
        }
    }

    /// What a search for each secret is given: whole, and the parts a user might paste.
    fn queries(&self) -> Vec<String> {
        vec![
            self.github.clone(),
            self.github["ghp_".len()..].to_string(),
            self.aws.clone(),
            self.stripe.clone(),
            self.password.clone(),
            format!("DB_PASSWORD={}", self.password),
            self.url_password.clone(),
        ]
    }
}

/// A session whose user text and tool output hold secrets of several kinds; its path and the
/// seqs of the user event and the tool event.
fn secret_session(env: &TestEnv, project: &Path, secrets: &Secrets) -> (PathBuf, u64, u64) {
    let mut s = SessionBuilder::with_id(&session_id(1)).cwd(&project.to_string_lossy());
    s.user(&format!(
        "deploy with GITHUB_TOKEN={} and the key {} please",
        secrets.github, secrets.aws
    ));
    s.assistant_with_calls("", &[("c1", "bash", r#"{"command":"cat .env"}"#)]);
    s.tool_result(
        "c1",
        "bash",
        &format!(
            "flamingo rollout notes\nSTRIPE_KEY={}\nDB_PASSWORD={}\nDATABASE_URL=postgres://app:{}@db.internal/app\n",
            secrets.stripe, secrets.password, secrets.url_password
        ),
        false,
    );
    (write_pi_session(env, project, &s), 1, 3)
}

fn search(env: &TestEnv, vars: &[(&str, &str)], query: &str) -> Value {
    let output = env
        .cmd()
        .envs(vars.iter().copied())
        .args(["sessions", "search", "--all", "--json", query])
        .output()
        .expect("run");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "search failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON")
}

fn context(cwd: &Path) -> Value {
    json!({"session_file": null, "leaf_id": null, "session_id": "current-session", "cwd": cwd})
}

/// `masked` is `exact` with some characters turned into `*`, and not `exact` itself.
fn assert_masked_version_of(masked: &str, exact: &str) {
    assert_ne!(masked, exact, "nothing was masked");
    assert_eq!(masked.chars().count(), exact.chars().count());
    for (m, e) in masked.chars().zip(exact.chars()) {
        assert!(m == e || m == '*', "{e:?} shown as {m:?}");
    }
}

#[test]
fn a_search_for_a_secret_finds_nothing_and_previews_are_masked() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let secrets = Secrets::new();
    secret_session(&env, &project, &secrets);

    for query in secrets.queries() {
        let result = search(&env, &[], &query);
        assert_eq!(
            ids(&result),
            Vec::<String>::new(),
            "{query} found: {result}"
        );
    }
    // The words around the secrets, and the kept prefix, are still found; the previews show
    // the secrets masked.
    let result = search(&env, &[], "deploy");
    let preview = result["sessions"][0]["hits"][0]["content"]
        .as_str()
        .unwrap();
    assert!(
        preview.contains(&format!("GITHUB_TOKEN=ghp_{}", "*".repeat(36))),
        "{preview}"
    );
    assert!(
        preview.contains(&format!("AKIA{}", "*".repeat(16))),
        "{preview}"
    );
    let result = search(&env, &[], "flamingo");
    let preview = result["sessions"][0]["hits"][0]["content"]
        .as_str()
        .unwrap();
    for secret in [&secrets.stripe, &secrets.password, &secrets.url_password] {
        assert!(!preview.contains(secret.as_str()), "{preview}");
    }
    assert!(preview.contains("STRIPE_KEY=sk_live_****"), "{preview}");
    assert!(
        preview.contains("postgres://app:*************@db.internal"),
        "{preview}"
    );
    let prefix = search(&env, &[], "ghp");
    assert_eq!(ids(&prefix), [session_id(1)]);
}

#[test]
fn another_sessions_history_tools_mask_and_this_sessions_stay_exact() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let secrets = Secrets::new();
    let (path, user_seq, tool_seq) = secret_session(&env, &project, &secrets);

    for seq in [user_seq, tool_seq] {
        let other = read_text(&env.tool(
            "history_read",
            &json!({"params": {"session_id": session_id(1), "seq": seq}, "context": context(&project)}),
        ));
        let own_context = json!({"session_file": path, "leaf_id": null, "session_id": session_id(1), "cwd": project});
        let own = read_text(&env.tool(
            "history_read",
            &json!({"params": {"seq": seq}, "context": own_context}),
        ));
        let by_id = read_text(&env.tool(
            "history_read",
            &json!({"params": {"session_id": session_id(1), "seq": seq}, "context": own_context}),
        ));
        assert_eq!(own, by_id, "naming this session by its id reads it exactly");
        assert_masked_version_of(&other, &own);

        let seq = seq.to_string();
        let cli = |extra: &[&str]| {
            let mut args = vec!["history", "read", &seq, "--session", path.to_str().unwrap()];
            args.extend_from_slice(extra);
            let (value, code) = json_in(&env, &env.work(), &args);
            assert_eq!(code, 0, "{value}");
            value["content"].as_str().unwrap().to_string()
        };
        let exact = cli(&[]);
        let redacted = cli(&["--redact"]);
        assert_masked_version_of(&redacted, &exact);
        assert!(
            own.contains(&exact),
            "the tool and the CLI read the same text"
        );
        assert!(other.contains(&redacted), "both mask the same spans");
    }
    // A search of the other session for a secret finds nothing; of this one, it does.
    let searched = ok_json(&env.tool(
        "history_search",
        &json!({"params": {"session_id": session_id(1), "query": secrets.aws}, "context": context(&project)}),
    ));
    assert_eq!(searched["items"], json!([]), "{searched}");
    let own = ok_json(&env.tool(
        "history_search",
        &json!({"params": {"query": secrets.aws},
                "context": {"session_file": path, "leaf_id": null, "session_id": session_id(1)}}),
    ));
    assert_eq!(own["items"][0]["seq"], user_seq);
}

#[test]
fn redact_off_rebuilds_the_index_with_the_secrets_and_on_again_without() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let secrets = Secrets::new();
    secret_session(&env, &project, &secrets);
    let off = [("PI_CONTEXT_REDACT", "off")];

    assert_eq!(ids(&search(&env, &[], &secrets.aws)), Vec::<String>::new());
    let found = search(&env, &off, &secrets.aws);
    assert_eq!(ids(&found), [session_id(1)], "{found}");
    let preview = found["sessions"][0]["hits"][0]["content"].as_str().unwrap();
    assert!(preview.contains(&secrets.aws), "unmasked: {preview}");
    assert_eq!(ids(&search(&env, &off, &secrets.github)), [session_id(1)]);
    // Masking on again: the index built without it is not trusted.
    assert_eq!(ids(&search(&env, &[], &secrets.aws)), Vec::<String>::new());
    assert_eq!(
        ids(&search(&env, &[], &secrets.github)),
        Vec::<String>::new()
    );
    // The other session's reads follow the switch too.
    let read = read_text(&tool_with_env(
        &env,
        &off,
        "history_read",
        &json!({"params": {"session_id": session_id(1), "seq": 1}, "context": context(&project)}),
    ));
    assert!(read.contains(&secrets.github), "{read}");
}

#[test]
fn another_rules_version_rebuilds_the_index() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let secrets = Secrets::new();
    secret_session(&env, &project, &secrets);
    let stamp = format!("rules-{}", pi_context::redact::RULES_VERSION);

    assert_eq!(ids(&search(&env, &[], "deploy")), [session_id(1)]);
    let first = generation_dir(&env);
    let meta = std::fs::read_to_string(first.join("meta.json")).unwrap();
    assert!(
        meta.contains(&stamp),
        "the commit records the rules: {meta}"
    );
    // Unchanged rules: the same index answers.
    assert_eq!(ids(&search(&env, &[], "deploy")), [session_id(1)]);
    assert_eq!(generation_dir(&env), first);

    // An index built by other rules (an older version) is rebuilt from the session files.
    std::fs::write(first.join("meta.json"), meta.replace(&stamp, "rules-0")).unwrap();
    assert_eq!(ids(&search(&env, &[], "deploy")), [session_id(1)]);
    let rebuilt = generation_dir(&env);
    assert_ne!(rebuilt, first, "a new generation was built");
    let meta = std::fs::read_to_string(rebuilt.join("meta.json")).unwrap();
    assert!(meta.contains(&stamp), "{meta}");
    assert_eq!(ids(&search(&env, &[], &secrets.aws)), Vec::<String>::new());
}
