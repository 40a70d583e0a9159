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

/// A random-looking run of `n` characters, varied by `shift`, assembled so no scanner takes
/// this file for a leak.
fn random_run(n: usize, shift: usize) -> String {
    const ALPHABET: &str = "Xk9fQ2mZ7pL4vR8tW1yBn3Hc5Jd6Ge0Ks8Uq2Ow4Ia7Ep";
    ALPHABET
        .chars()
        .cycle()
        .skip(shift % ALPHABET.len())
        .take(n)
        .collect()
}

fn search_output(env: &TestEnv, vars: &[(&str, &str)], query: &str) -> (i32, Value, String) {
    let output = env
        .cmd()
        .envs(vars.iter().copied())
        .args(["sessions", "search", "--all", "--json", query])
        .output()
        .expect("run");
    let value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (
        output.status.code().unwrap_or(-1),
        value,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A query that is one secret, masking on: nothing can be found (the index holds no secret),
/// so the answer is "nothing found" (exit 1) and says why, even when the secret has no word of
/// 80 bytes or less; masking off, the index holds it and the same query finds it.
#[test]
fn a_query_that_is_a_secret_finds_nothing_and_says_so_unless_masking_is_off() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let jwt = format!(
        "{}.{}.{}",
        ["ey", "J", &random_run(95, 0)].concat(),
        ["ey", "J", &random_run(95, 3)].concat(),
        random_run(90, 7)
    );
    let github = ["ghp", "_", &random_run(36, 1)].concat();
    let mut s = SessionBuilder::with_id(&session_id(1)).cwd(&project.to_string_lossy());
    s.user(&format!("deploy with {jwt} and {github} please"));
    write_pi_session(&env, &project, &s);

    for secret in [&jwt, &github] {
        let (code, result, stderr) = search_output(&env, &[], secret);
        assert_eq!(code, 1, "{result} {stderr}");
        assert_eq!(ids(&result), Vec::<String>::new());
        assert_eq!(result["secret_queries"], 1, "{result}");
        let human = env
            .cmd()
            .args(["sessions", "search", "--all", secret])
            .output()
            .unwrap();
        assert_eq!(human.status.code(), Some(1));
        let note = String::from_utf8_lossy(&human.stderr);
        assert!(
            note.contains("secrets are masked") && note.contains("cannot be searched"),
            "{note}"
        );
    }
    // Other alternatives are searched as ever, and say nothing of secrets.
    let (code, result, _) = search_output(&env, &[], "deploy");
    assert_eq!((code, ids(&result)), (0, vec![session_id(1)]));
    assert!(result.get("secret_queries").is_none(), "{result}");
    let output = env
        .cmd()
        .args(["sessions", "search", "--all", "--json", &jwt, "deploy"])
        .output()
        .unwrap();
    let both: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(ids(&both), [session_id(1)]);
    assert_eq!(both["secret_queries"], 1);

    let off = [("PI_CONTEXT_REDACT", "off")];
    for secret in [&jwt, &github] {
        let (code, result, stderr) = search_output(&env, &off, secret);
        assert_eq!(
            code, 0,
            "{secret} not found with masking off: {result} {stderr}"
        );
        assert_eq!(ids(&result), [session_id(1)]);
        let preview = result["sessions"][0]["hits"][0]["content"]
            .as_str()
            .unwrap();
        assert!(preview.contains(secret.as_str()), "{preview}");
    }
}

/// A session's name is masked like its first prompt, at the source: the catalog holds it
/// masked, so `sessions list`/`search` (human, JSON, tool), the boot's earlier sessions and the
/// hint's title all show it masked.
#[test]
fn session_names_are_masked_everywhere_they_are_shown() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let github = ["ghp", "_", &random_run(36, 2)].concat();
    let aws = ["AK", "IA", "Q3ZXN5TL7WJ2RB4M"].concat();
    let masked_github = format!("ghp_{}", "*".repeat(36));
    let masked_aws = format!("AKIA{}", "*".repeat(16));

    // A Claude Code session named by a custom title, where Claude Code writes it.
    let claude = env.home().join(".claude/projects");
    let claude_id = "c1a0de00-1111-4aaa-8bbb-00000000abcd";
    let lines = [
        json!({"type": "custom-title", "customTitle": format!("deploy with {github}"), "sessionId": claude_id}),
        json!({"parentUuid": null, "isSidechain": false, "userType": "external",
               "cwd": project, "sessionId": claude_id, "version": "2.1.3", "type": "user",
               "message": {"role": "user", "content": "deploy the kumquat service"},
               "uuid": "3b1f0c2a-0001-4000-8000-000000000001",
               "timestamp": "2026-02-27T10:00:01.000Z"}),
    ];
    let dir = claude.join(common::other_agents::claude_encoded(&project));
    std::fs::create_dir_all(&dir).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join(format!("{claude_id}.jsonl")), text).unwrap();

    // A Pi session named by `/name`, with the facts the hint needs, and fillers.
    let mut named = SessionBuilder::with_id(&session_id(1)).cwd(&project.to_string_lossy());
    named.user("The thumbnailer crashes on CMYK jpegs during the nightly media import.");
    named.assistant("Fixed in src/media/thumbnailer.rs: CMYK images are converted to RGB first.");
    named.entry(
        "session_info",
        json!({"name": format!("thumbnailer with {aws}")}),
    );
    write_pi_session(&env, &project, &named);
    for n in 2..=6 {
        let mut filler = SessionBuilder::with_id(&session_id(n))
            .cwd(&project.to_string_lossy())
            .time_offset(-3600);
        filler.user("the build failed on the server again, please check the tests");
        filler.assistant("The server build failed because a test timed out; I reran the tests.");
        write_pi_session(&env, &project, &filler);
    }
    let claude_dir = claude.to_string_lossy().into_owned();
    let pi_dir = common::recall::sessions_root(&env)
        .to_string_lossy()
        .into_owned();
    let roots = ["--claude-dir", &claude_dir, "--sessions-dir", &pi_dir];
    let shown = |what: &str, text: &str| {
        for secret in [&github, &aws] {
            assert!(
                !text.contains(secret.as_str()),
                "{what} shows {secret}: {text}"
            );
        }
    };

    let mut args = vec!["sessions", "list", "--all"];
    args.extend(roots);
    let human = env.cmd().args(&args).output().unwrap();
    let human = String::from_utf8_lossy(&human.stdout).into_owned();
    shown("sessions list", &human);
    assert!(
        human.contains(&format!("deploy with {masked_github}")),
        "{human}"
    );
    assert!(
        human.contains(&format!("thumbnailer with {masked_aws}")),
        "{human}"
    );
    let (listed, code) = json_in(&env, &project, &args);
    assert_eq!(code, 0);
    shown("sessions list --json", &listed.to_string());
    let names: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(
        names.contains(&format!("deploy with {masked_github}").as_str()),
        "{listed}"
    );

    let mut args = vec!["sessions", "search", "--all", "deploy", "thumbnailer"];
    args.extend(roots);
    let (found, _) = json_in(&env, &project, &args);
    assert_eq!(ids(&found).len(), 2, "{found}");
    shown("sessions search", &found.to_string());
    let human = env.cmd().args(&args).output().unwrap();
    shown("sessions search", &String::from_utf8_lossy(&human.stdout));

    let tool_context =
        json!({"session_file": null, "leaf_id": null, "session_id": "live", "cwd": project});
    let listed = env.tool(
        "sessions_list",
        &json!({"params": {"scope": "all"}, "context": tool_context}),
    );
    shown("the sessions_list tool", &listed.to_string());
    assert!(listed.to_string().contains(&masked_aws), "{listed}");
    let searched = env.tool(
        "sessions_search",
        &json!({"params": {"query": ["thumbnailer"]}, "context": tool_context}),
    );
    shown("the sessions_search tool", &searched.to_string());

    let boot = json!({
        "reason": "session_start", "session_id": "fresh-session", "window_id": "pcw:fresh-se:root",
        "previous_window_id": null, "snapshot_time": "2026-03-01T09:00:00.000Z",
        "cwd": project, "agent": "t", "model": "m", "notes_home": env.notes_home(),
    });
    let output = env
        .cmd()
        .arg("boot")
        .write_stdin(boot.to_string())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let boot = String::from_utf8(output.stdout).unwrap();
    shown("the boot", &boot);
    assert!(boot.contains(&masked_aws), "{boot}");

    let hint = env.tool(
        "sessions_hint",
        &json!({"params": {"prompt": "the CMYK thumbnailer crash is back, what did we change?", "hinted": []},
                "context": tool_context}),
    );
    assert_eq!(hint["details"]["hint"], true, "{hint}");
    shown("the hint", &hint.to_string());
    assert!(
        hint["text"].as_str().unwrap().contains(&masked_aws),
        "{hint}"
    );

    for catalog in common::recall::generation_files(&env, |name| name.starts_with("catalog-")) {
        let bytes = std::fs::read(&catalog).unwrap();
        for secret in [&github, &aws] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} holds {secret}",
                catalog.display()
            );
        }
    }
}

/// Secrets by the thousand in one tool output: back to back (no space between them) and line
/// after line. Masking compared every match with every other and masked again until nothing
/// changed: these took seconds to minutes to index; now they index at once, every secret
/// masked (timings: docs/recall.md, "Secrets").
#[test]
fn thousands_of_secrets_in_one_output_are_indexed_and_all_masked() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let google: String = (0..4000)
        .map(|i| ["AI", "za", &random_run(35, i)].concat())
        .collect();
    let github: String = (0..4000)
        .map(|i| ["github", "_pat_", "11ABCDEFG0_", &random_run(59, i)].concat())
        .collect();
    let passwords: String = (0..100_000)
        .map(|i| format!("password: {}\n", random_run(20, i)))
        .collect();
    let mut s = SessionBuilder::with_id(&session_id(1)).cwd(&project.to_string_lossy());
    s.user("dump the credentials");
    let outputs = [
        ("flamingo", &google),
        ("heliotrope", &github),
        ("marzipan", &passwords),
    ];
    for (n, (word, output)) in outputs.iter().enumerate() {
        let id = format!("c{n}");
        s.assistant_with_calls("", &[(&id, "bash", r#"{"command":"cat keys"}"#)]);
        s.tool_result(&id, "bash", &format!("{word} keys\n{output}"), false);
    }
    write_pi_session(&env, &project, &s);

    // A body of each kind, one word each: not one is in the index.
    let samples = [
        google[4..39].to_string(),
        github[39 * 81 + 22..40 * 81].to_string(),
        random_run(20, 5000),
    ];
    for (word, _) in outputs {
        let output = env
            .cmd()
            .args([
                "sessions",
                "search",
                "--all",
                "--json",
                "--max-chars",
                "4000",
                word,
            ])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{word}: {output:?}");
        let found: Value = serde_json::from_slice(&output.stdout).unwrap();
        let preview = found["sessions"][0]["hits"][0]["content"].as_str().unwrap();
        assert!(preview.contains(&"*".repeat(20)), "{preview}");
        for sample in &samples {
            assert!(!preview.contains(sample.as_str()), "{word}: {preview}");
        }
    }
    for sample in &samples {
        let found = search(&env, &[], sample);
        assert_eq!(ids(&found), Vec::<String>::new(), "{sample}: {found}");
    }
}

/// Secrets spelled with JSON string escapes in a tool call's raw arguments (`\/` as PHP writes
/// slashes, `\u0067` for `g`) are masked: not searchable, and masked in another session's
/// `history_read`, at the offsets of the raw text.
#[test]
fn json_escaped_secrets_in_tool_arguments_are_masked() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let password = "Sup3rS3cr3tPw";
    let body = random_run(36, 4);
    let dsn = format!(r#"{{"dsn":"postgres:\/\/app:{password}@db.internal\/app"}}"#);
    let echo = format!(r#"{{"command":"echo \u0067hp_{body} > token.txt"}}"#);
    let mut s = SessionBuilder::with_id(&session_id(1)).cwd(&project.to_string_lossy());
    s.user("configure the flamingo database");
    s.assistant_with_calls("", &[("c1", "configure", &dsn), ("c2", "bash", &echo)]);
    s.tool_result("c1", "configure", "done", false);
    s.tool_result("c2", "bash", "done", false);
    write_pi_session(&env, &project, &s);

    for query in [password, body.as_str()] {
        assert_eq!(
            ids(&search(&env, &[], query)),
            Vec::<String>::new(),
            "{query}"
        );
    }
    let found = search(&env, &[], "dsn");
    let preview = found["sessions"][0]["hits"][0]["content"].as_str().unwrap();
    assert!(
        preview.contains(r"postgres:\/\/app:*************@db.internal"),
        "{preview}"
    );
    let found = search(&env, &[], "echo");
    let preview = found["sessions"][0]["hits"][0]["content"].as_str().unwrap();
    assert!(
        preview.contains(&format!(r"\u0067hp_{}", "*".repeat(36))),
        "{preview}"
    );

    let seq = &found["sessions"][0]["hits"][0]["seq"];
    let other = read_text(&env.tool(
        "history_read",
        &json!({"params": {"session_id": session_id(1), "seq": seq}, "context": context(&project)}),
    ));
    assert!(
        !other.contains(password) && !other.contains(&body),
        "{other}"
    );
    assert!(other.contains(r"\u0067hp_"), "{other}");
}
