//! One documented query limit for every search (at most 64 strings of at most 1,024 code points,
//! `docs/protocol.md`), checked before any matcher is built or any file read; every query within
//! it works. And the cap on what `pi-context tool` reads from stdin.

use crate::common;

use std::io::Write;
use std::process::Stdio;

use common::session::{ok_json, refusal, request, Fixture, SessionBuilder};
use common::TestEnv;
use serde_json::{json, Value};

const MAX_QUERIES: usize = 64;
const MAX_QUERY_CHARS: usize = 1024;

/// The largest allowed query: 64 strings of 1,024 code points, in an alphabet whose case folding
/// makes large automata. String 5 is `needle` padded.
fn largest_query() -> Vec<String> {
    let letters: Vec<char> = "kſsΣσςǅ".chars().collect();
    (0..MAX_QUERIES)
        .map(|q| {
            if q == 5 {
                return format!("needle{}", "x".repeat(MAX_QUERY_CHARS - 6));
            }
            (0..MAX_QUERY_CHARS)
                .map(|i| letters[(i * 7 + q * 3 + i / 5) % letters.len()])
                .collect()
        })
        .collect()
}

fn history_fixture() -> Fixture {
    let mut session = SessionBuilder::new();
    session.user(&format!(
        "find the NEEDLE{} here",
        "X".repeat(MAX_QUERY_CHARS - 6)
    ));
    session.assistant("nothing to see");
    Fixture::new(&session)
}

fn history_refusal(f: &Fixture, query: Value) -> Value {
    refusal(&f.env.tool(
        "history_search",
        &request(&f.path, json!({ "query": query })),
    ))
}

#[test]
fn history_search_refuses_too_many_or_too_long_queries_as_invalid_query() {
    let f = history_fixture();
    let many: Vec<String> = (0..1_000_000).map(|i| format!("q{i}")).collect();
    let error = history_refusal(&f, json!(many));
    assert_eq!(error["code"], "invalid_query");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("1000000 strings; at most 64"),
        "{error}"
    );
    let one_mb = "y".repeat(1 << 20);
    let error = history_refusal(&f, json!(one_mb));
    assert_eq!(error["code"], "invalid_query");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("at most 1024"), "{message}");
    assert!(!message.contains("regex"), "{message}");
    let error = history_refusal(&f, json!(["ok", "z".repeat(MAX_QUERY_CHARS + 1)]));
    assert!(error["message"]
        .as_str()
        .unwrap()
        .contains("query string 1 has 1025"));
    // Exactly at the limits is accepted.
    let at_limit: Vec<String> = (0..MAX_QUERIES)
        .map(|_| "é".repeat(MAX_QUERY_CHARS))
        .collect();
    let response = f.env.tool(
        "history_search",
        &request(&f.path, json!({ "query": at_limit })),
    );
    assert_eq!(response["is_error"], false, "{}", response["text"]);
}

#[test]
fn the_largest_allowed_query_searches_history_by_tool_and_command_line() {
    let f = history_fixture();
    let queries = largest_query();
    let page = ok_json(&f.env.tool(
        "history_search",
        &request(&f.path, json!({ "query": queries })),
    ));
    let rows: Vec<&Value> = page["items"].as_array().unwrap().iter().collect();
    assert_eq!(rows.len(), 1, "{page}");
    assert_eq!(rows[0]["offset_chars"], 9);

    let mut args = vec!["history".to_string(), "search".into()];
    args.extend(queries);
    args.extend(["--session".into(), f.path.display().to_string()]);
    f.env.cmd().args(&args).assert().success();
}

#[test]
fn history_search_on_the_command_line_refuses_before_reading_the_session() {
    let env = TestEnv::new();
    let mut args = vec!["history".to_string(), "search".into()];
    args.extend((0..MAX_QUERIES + 1).map(|i| format!("q{i}")));
    // The session does not exist: the query is refused first.
    args.extend(["--session".into(), "/nonexistent/session.jsonl".into()]);
    let output = env.cmd().args(&args).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: query has 65 strings; at most 64"),
        "{stderr}"
    );
}

#[test]
fn notes_search_applies_the_same_limits_and_accepts_the_largest_query() {
    let env = TestEnv::new();
    common::notes::write(
        &env,
        "@human/n",
        &format!(
            "line one\nthe needle{} is here\n",
            "x".repeat(MAX_QUERY_CHARS)
        ),
    );
    let many: Vec<String> = (0..1_000_000).map(|i| format!("q{i}")).collect();
    let error = common::notes::tool_refusal(&env, "notes_search", json!({ "query": many }));
    assert_eq!(error["code"], "invalid_query");
    assert!(error["message"].as_str().unwrap().contains("at most 64"));
    let error = common::notes::tool_refusal(
        &env,
        "notes_search",
        json!({ "query": "w".repeat(1 << 20) }),
    );
    assert_eq!(error["code"], "invalid_query");
    assert!(error["message"].as_str().unwrap().contains("at most 1024"));

    let queries = largest_query();
    let page = common::notes::tool_ok(&env, "notes_search", json!({ "query": queries }));
    assert_eq!(page["files"][0]["matches"][0]["line"], 2, "{page}");

    let (code, stderr) =
        common::notes::fails(&env, &["search", "a", &"b".repeat(MAX_QUERY_CHARS + 1)]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("query string 1 has 1025 code points"),
        "{stderr}"
    );
    let mut args = vec!["search"];
    args.extend(queries.iter().map(String::as_str));
    common::notes::ok(&env, &args);
}

#[test]
fn search_schemas_state_the_query_limits() {
    let env = TestEnv::new();
    let schemas = env.tool_schemas();
    for name in ["history_search", "notes_search"] {
        let tool = common::schema_of(&schemas, name);
        let query = &tool["parameters"]["properties"]["query"]["anyOf"];
        assert_eq!(query[0]["maxLength"], MAX_QUERY_CHARS, "{name}");
        assert_eq!(query[1]["maxItems"], MAX_QUERIES, "{name}");
        assert_eq!(query[1]["items"]["maxLength"], MAX_QUERY_CHARS, "{name}");
    }
}

#[test]
fn a_tool_request_over_256_mib_is_refused_before_parsing() {
    let env = TestEnv::new();
    let mut child = env
        .process()
        .args(["tool", "notes_list"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // A valid object followed by whitespace: only its size is wrong.
        let chunk = vec![b' '; 1 << 20];
        let _ = stdin.write_all(br#"{"params":{},"context":{}}"#);
        for _ in 0..257 {
            if stdin.write_all(&chunk).is_err() {
                break; // the binary stopped reading, as it should
            }
        }
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: the request on stdin is larger than 256 MiB"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}
