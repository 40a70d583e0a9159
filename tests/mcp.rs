//! `pi-context mcp` with a real client: rmcp's client over a child process (both the
//! `initialize` handshake of 2025-11-25 and the stateless 2026-07-28 revision), plus raw bytes
//! on stdin for what no SDK client sends (malformed lines), and the process's exits.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use common::notes::{json as notes_json, ok as notes_ok, write as write_note, SESSION};
use common::recall::{project_dir, session_id, write_pi_session};
use common::session::SessionBuilder;
use common::TestEnv;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::TokioChildProcess;
use serde_json::{json, Value};

type Client = RunningService<RoleClient, ClientConfig>;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// `pi-context mcp <args>` in the test's hermetic environment.
fn server_command(env: &TestEnv, args: &[&str]) -> std::process::Command {
    let mut cmd = env.process();
    cmd.arg("mcp").args(args);
    cmd
}

/// An rmcp client named `client_name`, speaking `version`, connected to a new server.
async fn connect_as(
    env: &TestEnv,
    args: &[&str],
    client_name: &str,
    version: ProtocolVersion,
) -> Client {
    let command = tokio::process::Command::from(server_command(env, args));
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn pi-context mcp");
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(client_name, "1.0.0"),
    )
    .with_protocol_version(version)
    .serve(transport)
    .await
    .expect("the client connects")
}

async fn connect(env: &TestEnv, args: &[&str]) -> Client {
    connect_as(env, args, "Claude Code", ProtocolVersion::V_2025_11_25).await
}

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{name} failed at the protocol level: {e}"))
}

fn text_of(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "{result:?}");
    result.content[0]
        .as_text()
        .map(|t| t.text.as_str())
        .expect("a text block")
}

/// The result JSON of a call that must succeed.
fn ok(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    serde_json::from_str(text_of(result)).expect("the result is JSON")
}

/// The `error` object of a refusal.
fn refusal(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let text: Value = serde_json::from_str(text_of(result)).expect("a refusal is JSON");
    text["error"].clone()
}

/// The tools `tool --schemas` says the MCP door offers.
fn registry_mcp_tools(env: &TestEnv) -> Vec<Value> {
    env.tool_schemas()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|t| t["doors"].as_array().unwrap().contains(&json!("mcp")))
        .cloned()
        .collect()
}

#[test]
fn tools_list_is_the_registrys_mcp_set_for_both_protocol_generations() {
    let env = TestEnv::new();
    let registry = registry_mcp_tools(&env);
    let session = env.write("s.jsonl", "");
    runtime().block_on(async {
        for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
            let client = connect_as(&env, &[], "codex", version.clone()).await;
            let listed = client.list_all_tools().await.expect("tools/list");
            let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
            let expected: Vec<&str> = registry
                .iter()
                .map(|t| t["name"].as_str().unwrap())
                .collect();
            assert_eq!(names, expected, "{version}");
            assert!(!names.contains(&"checkpoint"), "{names:?}");
            for (tool, entry) in listed.iter().zip(&registry) {
                assert_eq!(tool.description.as_deref(), entry["description"].as_str());
                let schema = Value::Object((*tool.input_schema).clone());
                let mut want = entry["parameters"].clone();
                if tool.name.starts_with("history_") {
                    // No live session outside Pi: the session is a required parameter.
                    let mut required = want["required"].as_array().cloned().unwrap_or_default();
                    required.push(json!("session_id"));
                    want["required"] = json!(required);
                }
                assert_eq!(schema, want, "{}", tool.name);
                let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
                let writes = ["notes_write", "notes_edit", "notes_move", "notes_restore"];
                assert_eq!(
                    read_only,
                    Some(!writes.contains(&tool.name.as_ref())),
                    "{}",
                    tool.name
                );
            }
            client.cancel().await.expect("close");
        }
        // Started on a session, the history tools read it by default: the schemas are Pi's.
        let path = session.to_string_lossy().into_owned();
        let client = connect(&env, &["--session", &path]).await;
        for tool in client.list_all_tools().await.expect("tools/list") {
            let entry = registry
                .iter()
                .find(|e| e["name"] == tool.name.as_ref())
                .unwrap();
            assert_eq!(
                Value::Object((*tool.input_schema).clone()),
                entry["parameters"]
            );
        }
        client.cancel().await.expect("close");
    });
}

#[test]
fn a_note_written_through_mcp_is_read_searched_seen_by_the_cli_and_signed_by_the_client() {
    let env = TestEnv::new();
    runtime().block_on(async {
        let client = connect(&env, &["--session-id", SESSION]).await;
        let written = ok(&call(
            &client,
            "notes_write",
            json!({"address": "@project/decisions", "content": "Use sqlite for the cache."}),
        )
        .await);
        assert_eq!(written["outcome"], "created");
        assert_eq!(written["address"], "@project/decisions.md");
        ok(&call(
            &client,
            "notes_write",
            json!({"address": "plan", "content": "step one"}),
        )
        .await);
        let read = call(
            &client,
            "notes_read",
            json!({"address": "@project/decisions"}),
        )
        .await;
        assert_eq!(read.is_error, Some(false));
        assert!(
            text_of(&read).ends_with("Use sqlite for the cache."),
            "{}",
            text_of(&read)
        );
        let found = ok(&call(&client, "notes_search", json!({"query": "SQLITE"})).await);
        assert_eq!(found["files"][0]["address"], "@project/decisions.md");
        assert_eq!(found["files"][0]["matches"][0]["line"], 1);
        // @self/ is the client's home.
        let mine = ok(&call(
            &client,
            "notes_write",
            json!({"address": "@self/habits", "content": "x"}),
        )
        .await);
        assert_eq!(mine["address"], "@self/habits.md");
        client.cancel().await.expect("close");
    });
    // The CLI in the same project sees the same notes, and the session note under the id.
    assert!(notes_ok(&env, &["read", "@project/decisions"]).contains("Use sqlite for the cache."));
    assert!(notes_ok(&env, &["read", "plan"]).contains("step one"));
    assert!(env
        .notes_home()
        .join("agents/claude-code/habits.md")
        .is_file());
    let log = notes_json(&env, &["log"]);
    let agents: Vec<&str> = log["commits"]
        .as_array()
        .expect("commits")
        .iter()
        .map(|c| c["agent"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(agents, ["claude-code"; 3], "{log}");
    let git = env
        .process_of(Some(std::path::Path::new("git")))
        .args(["log", "--format=%an <%ae>"])
        .current_dir(env.notes_home())
        .output()
        .expect("git log");
    let authors = String::from_utf8_lossy(&git.stdout);
    assert_eq!(
        authors.lines().collect::<Vec<_>>(),
        ["claude-code <claude-code@pi-context>"; 3],
        "{authors}"
    );
}

#[test]
fn the_agent_flag_wins_over_the_client_name() {
    let env = TestEnv::new();
    runtime().block_on(async {
        let client = connect(&env, &["--agent", "My Bot", "--model", "openai/gpt-5"]).await;
        ok(&call(
            &client,
            "notes_write",
            json!({"address": "@self/a", "content": "x"}),
        )
        .await);
        ok(&call(
            &client,
            "notes_write",
            json!({"address": "@model/b", "content": "y"}),
        )
        .await);
        client.cancel().await.expect("close");
    });
    assert!(env.notes_home().join("agents/my-bot/a.md").is_file());
    assert!(env.notes_home().join("models/gpt-5/b.md").is_file());
}

#[test]
fn refusals_are_error_results_and_unknown_tools_are_protocol_errors() {
    let env = TestEnv::new();
    runtime().block_on(async {
        let client = connect(&env, &[]).await;
        let missing =
            refusal(&call(&client, "notes_read", json!({"address": "@project/nope"})).await);
        assert_eq!(missing["code"], "not_found");
        let bad = refusal(
            &call(
                &client,
                "notes_write",
                json!({"address": "../x", "content": "x"}),
            )
            .await,
        );
        assert_eq!(bad["code"], "invalid_address");
        let extra = refusal(&call(&client, "notes_list", json!({"bogus": 1})).await);
        assert_eq!(extra["code"], "invalid_params");
        let no_session = refusal(&call(&client, "history_list", json!({})).await);
        assert_eq!(no_session["code"], "invalid_params");
        assert!(
            no_session["message"]
                .as_str()
                .unwrap()
                .contains("session_id"),
            "{no_session}"
        );
        for name in ["checkpoint", "no_such_tool"] {
            let error = client
                .call_tool(CallToolRequestParams::new(name))
                .await
                .expect_err("an unknown tool is a protocol error");
            let text = error.to_string();
            assert!(text.contains(&format!("Unknown tool: {name}")), "{text}");
        }
        // The server goes on.
        let listed = ok(&call(&client, "notes_list", json!({})).await);
        assert_eq!(listed["files"], json!([]));
        client.cancel().await.expect("close");
    });
}

#[test]
fn results_are_fitted_to_the_32_kib_budget() {
    let env = TestEnv::new();
    let wide = common::notes::notes(&env, &["write", "@human/wide"])
        .write_stdin("€".repeat(60_000))
        .output()
        .expect("notes write");
    assert!(
        wide.status.success(),
        "{}",
        String::from_utf8_lossy(&wide.stderr)
    );
    let many = env.notes_home().join("human/many");
    std::fs::create_dir_all(&many).unwrap();
    for n in 0..400 {
        std::fs::write(many.join(format!("{n:03}-{}.md", "x".repeat(100))), "x").unwrap();
    }
    runtime().block_on(async {
        let client = connect(&env, &[]).await;
        let read = call(
            &client,
            "notes_read",
            json!({"address": "@human/wide", "limit_chars": 50000}),
        )
        .await;
        assert_eq!(read.is_error, Some(false));
        let text = text_of(&read);
        assert!(text.len() <= 32 * 1024, "{} bytes", text.len());
        assert!(
            text.contains("next_offset_chars: "),
            "the window says where to go on"
        );
        let listed = call(&client, "notes_list", json!({"pattern": "@human/many/*"})).await;
        assert!(text_of(&listed).len() <= 32 * 1024);
        let page = ok(&listed);
        assert!(page["more"].as_u64().unwrap() > 0, "{}", page["more"]);
        client.cancel().await.expect("close");
    });
}

#[test]
fn sessions_search_then_history_read_opens_the_hit() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut s = SessionBuilder::with_id(&session_id(1)).cwd(&project.to_string_lossy());
    s.user("which wire format?");
    s.assistant("we settled on the flamingo protocol");
    let file = write_pi_session(&env, &project, &s);
    let cwd = project.to_string_lossy().into_owned();
    runtime().block_on(async {
        let client = connect(&env, &["--cwd", &cwd]).await;
        let found = ok(&call(&client, "sessions_search", json!({"query": "flamingo"})).await);
        let session = &found["sessions"][0];
        assert_eq!(session["session_id"], session_id(1), "{found}");
        let hit = &session["hits"][0];
        let read = call(
            &client,
            "history_read",
            json!({"session_id": session["session_id"], "seq": hit["seq"]}),
        )
        .await;
        assert_eq!(read.is_error, Some(false), "{read:?}");
        assert!(
            text_of(&read).contains("flamingo protocol"),
            "{}",
            text_of(&read)
        );
        client.cancel().await.expect("close");
        // Started on the session, history tools read it without a session_id.
        let path = file.to_string_lossy().into_owned();
        let client = connect(&env, &["--cwd", &cwd, "--session", &path]).await;
        let listed = call(&client, "history_list", json!({})).await;
        assert!(text_of(&listed).contains("flamingo protocol"), "{listed:?}");
        client.cancel().await.expect("close");
    });
}

#[test]
fn twenty_concurrent_edits_through_one_server_lose_nothing() {
    const EDITS: usize = 20;
    let env = TestEnv::new();
    write_note(&env, "@human/log", "log\nEND\n");
    runtime().block_on(async {
        let client = std::sync::Arc::new(connect(&env, &[]).await);
        let mut edits = tokio::task::JoinSet::new();
        for i in 0..EDITS {
            let client = std::sync::Arc::clone(&client);
            edits.spawn(async move {
                let edit = json!({"address": "@human/log", "edits": [{"oldText": "END", "newText": format!("edit {i}\nEND")}]});
                ok(&call(&client, "notes_edit", edit).await)
            });
        }
        // A CLI writer in other processes edits the same note meanwhile.
        tokio::task::block_in_place(|| {
            for i in 0..5 {
                let new = format!("cli {i}\nEND");
                notes_ok(&env, &["edit", "@human/log", "--old", "END", "--new", &new]);
            }
        });
        while let Some(edited) = edits.join_next().await {
            assert_eq!(edited.expect("an edit task")["applied"], 1);
        }
        // Closed as clients close it: the server makes its queued commits, then exits.
        let client = std::sync::Arc::try_unwrap(client).expect("the only client handle");
        client.cancel().await.expect("close");
    });
    let body = notes_ok(&env, &["read", "@human/log"]);
    for i in 0..EDITS {
        assert_eq!(
            body.matches(&format!("edit {i}\n")).count(),
            1,
            "edit {i}: {body}"
        );
    }
    for i in 0..5 {
        assert_eq!(
            body.matches(&format!("cli {i}\n")).count(),
            1,
            "cli {i}: {body}"
        );
    }
    let log = notes_json(&env, &["log", "--limit", "100"]);
    assert_eq!(
        log["commits"].as_array().unwrap().len(),
        1 + EDITS + 5,
        "{log}"
    );
    assert_history_matches_disk(&env);
}

/// A server driven by raw lines: what no SDK client would send.
struct RawServer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl RawServer {
    fn start(env: &TestEnv) -> Self {
        let mut child = server_command(env, &[])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn pi-context mcp");
        RawServer {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().expect("stdout")),
            child,
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// The next line on stdout, which must be one JSON-RPC 2.0 message.
    fn receive(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read stdout");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a non-JSON line {line:?}: {e}"));
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        message
    }

    fn initialize(&mut self) {
        self.send(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#);
        self.send(b"\n");
        let answer = self.receive();
        assert_eq!(
            answer["result"]["protocolVersion"], "2025-11-25",
            "{answer}"
        );
        assert_eq!(
            answer["result"]["serverInfo"]["name"], "pi-context",
            "{answer}"
        );
        self.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    }

    /// Waits for the exit (at most 20 s) and returns its status code and all it left on stdout.
    fn exit(mut self) -> (Option<i32>, String) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                let mut rest = String::new();
                std::io::Read::read_to_string(&mut self.stdout, &mut rest).expect("stdout");
                return (status.code(), rest);
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn malformed_lines_get_json_rpc_errors_and_the_server_goes_on() {
    let env = TestEnv::new();
    let mut server = RawServer::start(&env);
    server.send(b"{this is not json\n");
    let parse = server.receive();
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert_eq!(parse["id"], Value::Null);
    server.initialize();
    server.send(b"\xff\xfe garbage bytes\n");
    assert_eq!(server.receive()["error"]["code"], -32700);
    server.send(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":7}"#);
    server.send(b"\n[]\n");
    let invalid = server.receive();
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    assert_eq!(invalid["id"], 5);
    assert_eq!(server.receive()["error"]["code"], -32600);
    server.send(br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"notes_list","arguments":{}}}"#);
    server.send(b"\n");
    let listed = server.receive();
    assert_eq!(listed["id"], 6, "{listed}");
    assert_eq!(listed["result"]["isError"], false, "{listed}");
    server.stdin = None;
    let (code, rest) = server.exit();
    assert_eq!(code, Some(0));
    assert_eq!(rest, "", "nothing after the last answer");
}

#[test]
fn eof_and_sigterm_end_the_server_cleanly() {
    let env = TestEnv::new();
    // EOF before any message.
    let mut server = RawServer::start(&env);
    server.stdin = None;
    assert_eq!(server.exit(), (Some(0), String::new()));
    // SIGTERM while idle, stdin still open.
    let mut server = RawServer::start(&env);
    server.initialize();
    let pid = server.child.id() as libc::pid_t;
    // SAFETY: kill(2) on our own child's pid.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(pid, libc::SIGTERM) };
    assert_eq!(sent, 0);
    let (code, rest) = server.exit();
    assert_eq!(code, Some(0));
    assert_eq!(rest, "");
}

#[test]
fn a_made_session_id_is_printed_on_stderr_and_used_for_bare_addresses() {
    let env = TestEnv::new();
    let mut server = RawServer::start(&env);
    server.initialize();
    server.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"notes_write","arguments":{"address":"scratch","content":"hi"}}}"#);
    server.send(b"\n");
    assert_eq!(server.receive()["result"]["isError"], false);
    server.stdin = None;
    let mut stderr = String::new();
    std::io::Read::read_to_string(server.child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(server.exit().0, Some(0));
    let id = stderr
        .split_whitespace()
        .skip_while(|w| *w != "id")
        .nth(1)
        .map(|w| w.trim_end_matches(':'))
        .unwrap_or_else(|| panic!("no session id on stderr: {stderr}"));
    assert!(
        env.notes_home()
            .join(format!("pi/session/{id}/scratch.md"))
            .is_file(),
        "{stderr}"
    );
}

/// `git <args>` in the notes home; its stdout.
fn git(env: &TestEnv, args: &[&str]) -> String {
    let out = env
        .process_of(Some(std::path::Path::new("git")))
        .args(args)
        .current_dir(env.notes_home())
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every note under `human/` is in HEAD's tree as on disk (but for the access counters that
/// reads move without a commit), no change waits for its commit, and the repository is sound.
fn assert_history_matches_disk(env: &TestEnv) {
    let without_counters = |text: &str| {
        (text.lines())
            .filter(|l| !l.starts_with("accessCount:") && !l.starts_with("lastAccessed:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let home = env.notes_home();
    for entry in std::fs::read_dir(home.join("human")).expect("human/") {
        let name = entry.expect("entry").file_name().into_string().unwrap();
        let disk = std::fs::read_to_string(home.join("human").join(&name)).unwrap();
        let head = git(env, &["show", &format!("HEAD:human/{name}")]);
        assert_eq!(without_counters(&head), without_counters(&disk), "{name}");
    }
    let marks: Vec<String> =
        std::fs::read_dir(home.join(".locks/pending")).map_or(Vec::new(), |d| {
            d.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
                .collect()
        });
    assert_eq!(
        marks,
        Vec::<String>::new(),
        "changes still marked as uncommitted"
    );
    git(env, &["fsck", "--strict"]);
}

#[test]
fn writes_answer_before_their_commits_and_a_kill_with_commits_queued_loses_none() {
    const WRITES: usize = 40;
    let env = TestEnv::new();
    write_note(&env, "@human/first", "first");
    // Git's lock on the branch, held: every commit through the server waits in its queue.
    let ref_lock = env.notes_home().join(".git/refs/heads/main.lock");
    std::fs::write(&ref_lock, "").expect("ref lock");
    let mut server = RawServer::start(&env);
    server.initialize();
    let body = "x".repeat(16 << 10);
    for i in 0..WRITES {
        let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {
            "name": "notes_write",
            "arguments": {"address": format!("@human/n{i}"), "content": format!("note {i}\n{body}")},
        }});
        server.send(format!("{call}\n").as_bytes());
    }
    for _ in 0..WRITES {
        let answer = server.receive();
        assert_eq!(answer["result"]["isError"], false, "{answer}");
    }
    assert_eq!(
        git(&env, &["rev-list", "--count", "HEAD"]).trim(),
        "1",
        "the writes answered before any of their commits"
    );
    server.child.kill().expect("SIGKILL");
    server.child.wait().expect("reaped");
    std::fs::remove_file(&ref_lock).expect("ref lock");
    // The next writer anywhere adopts what the killed server marked.
    notes_ok(&env, &["write", "@human/after", "--content", "after"]);
    assert_history_matches_disk(&env);
    let recovered = git(&env, &["log", "-1", "--format=%B"]);
    assert_eq!(
        recovered.matches("Recovered: human/n").count(),
        WRITES,
        "{recovered}"
    );
}

#[test]
fn a_request_whose_id_is_no_string_or_number_is_answered_invalid_with_a_null_id() {
    let env = TestEnv::new();
    let mut server = RawServer::start(&env);
    server.initialize();
    for (n, id) in ["null", r#"{"a":1}"#, "[1,2]", "true", "false"]
        .into_iter()
        .enumerate()
    {
        server
            .send(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes());
        // A good request after it: an odd request taken for a notification would leave this
        // answer the first on stdout.
        server.send(
            format!("{{\"jsonrpc\":\"2.0\",\"id\":\"after-{n}\",\"method\":\"ping\"}}\n")
                .as_bytes(),
        );
        let answer = server.receive();
        assert_eq!(answer["error"]["code"], -32600, "id {id}: {answer}");
        assert_eq!(answer["id"], Value::Null, "id {id}: {answer}");
        let pong = server.receive();
        assert_eq!(pong["id"], format!("after-{n}"), "{pong}");
        assert!(pong.get("result").is_some(), "{pong}");
    }
    // A notification (no id at all) still gets no answer.
    server.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/odd\"}\n");
    server.send(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n");
    assert_eq!(server.receive()["id"], 9);
    server.stdin = None;
    let (code, rest) = server.exit();
    assert_eq!(code, Some(0));
    assert_eq!(rest, "");
}

/// Sends `signal` to the server's process.
fn signal(server: &RawServer, signal: libc::c_int) {
    let pid = server.child.id() as libc::pid_t;
    // SAFETY: kill(2) on our own child's pid.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(pid, signal) };
    assert_eq!(sent, 0, "kill({pid}, {signal})");
}

/// One `tools/call` line of `notes_write`.
fn write_call(id: usize, address: &str, content: &str) -> Vec<u8> {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "notes_write",
        "arguments": {"address": address, "content": content},
    }});
    format!("{call}\n").into_bytes()
}

#[test]
fn sighup_and_sigquit_end_the_server_after_its_commits_like_sigterm() {
    for (name, number) in [("SIGHUP", libc::SIGHUP), ("SIGQUIT", libc::SIGQUIT)] {
        let env = TestEnv::new();
        write_note(&env, "@human/first", "first");
        // Git's lock on the branch: the write's commit waits in the queue.
        let ref_lock = env.notes_home().join(".git/refs/heads/main.lock");
        std::fs::write(&ref_lock, "").expect("ref lock");
        let mut server = RawServer::start(&env);
        server.initialize();
        server.send(&write_call(
            1,
            "@human/queued",
            "answered before its commit",
        ));
        assert_eq!(server.receive()["result"]["isError"], false, "{name}");
        assert_eq!(git(&env, &["rev-list", "--count", "HEAD"]).trim(), "1");
        signal(&server, number);
        std::fs::remove_file(&ref_lock).expect("ref lock");
        let (code, rest) = server.exit();
        assert_eq!(code, Some(0), "{name} ends the server cleanly");
        assert_eq!(rest, "", "{name}");
        assert_history_matches_disk(&env);
        let last = git(&env, &["log", "-1", "--format=%B"]);
        assert!(
            last.contains("Agent: raw"),
            "{name}: committed by the server: {last}"
        );
    }
}

/// The answers the server writes, read on a thread of their own so that a test can wait for
/// them with a deadline.
fn answers_of(stdout: BufReader<ChildStdout>) -> std::sync::mpsc::Receiver<Value> {
    let (sender, answers) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                break;
            };
            if sender.send(message).is_err() {
                break;
            }
        }
    });
    answers
}

/// Every version of `relative` the history holds, oldest first (the note's body only).
fn versions_in_history(env: &TestEnv, relative: &str) -> Vec<String> {
    let commits = git(env, &["log", "--reverse", "--format=%H", "--", relative]);
    commits
        .lines()
        .map(|commit| {
            let text = git(env, &["show", &format!("{commit}:{relative}")]);
            text.rsplit("\n\n").next().unwrap_or_default().to_string()
        })
        .collect()
}

#[test]
fn a_kill_loses_no_answered_version_of_a_note_written_again_before_its_commit() {
    const VERSIONS: usize = 5;
    let env = TestEnv::new();
    write_note(&env, "@human/first", "first");
    let ref_lock = env.notes_home().join(".git/refs/heads/main.lock");
    std::fs::write(&ref_lock, "").expect("ref lock");
    let mut server = RawServer::start(&env);
    server.initialize();
    for v in 1..=VERSIONS {
        server.send(&write_call(v, "@human/plan", &format!("version {v}")));
    }
    let RawServer {
        mut child, stdout, ..
    } = server;
    let answers = answers_of(stdout);
    // Whatever the server answers while the commits wait (before: every version at once).
    let mut answered = Vec::new();
    let mut wait = Duration::from_secs(10);
    while let Ok(answer) = answers.recv_timeout(wait) {
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        answered.push(answer["id"].as_u64().expect("an id"));
        wait = Duration::from_millis(500);
    }
    assert!(
        !answered.is_empty(),
        "the first write answers before its commit"
    );
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    std::fs::remove_file(&ref_lock).expect("ref lock");
    notes_ok(&env, &["write", "@human/after", "--content", "after"]);
    let history = versions_in_history(&env, "human/plan.md");
    for v in answered {
        assert!(
            history.contains(&format!("version {v}")),
            "version {v} was answered as saved but is in no commit: {history:?}"
        );
    }
}

/// The peak resident memory of process `pid` so far (`VmHWM`), in bytes.
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let kib = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .expect("VmHWM");
    kib << 10
}

#[test]
fn a_client_that_sends_faster_than_commits_are_made_waits_in_the_pipe_not_in_memory() {
    const WRITES: usize = 300;
    /// Bytes of a note's body: about 1 MB a request.
    const BODY: usize = 990_000;
    /// Reading every request would hold about 300 MB; the queue of commits holds 64 MiB, the
    /// requests in flight 16 MiB, the line being read at most 16 MiB.
    const PEAK_BOUND: u64 = 200 << 20;
    let env = TestEnv::new();
    write_note(&env, "@human/first", "first");
    // Git's lock on the branch, kept fresh: no commit is made until it goes.
    let ref_lock = env.notes_home().join(".git/refs/heads/main.lock");
    std::fs::write(&ref_lock, "").expect("ref lock");
    let holding = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let refresher = {
        let (holding, ref_lock) = (std::sync::Arc::clone(&holding), ref_lock.clone());
        std::thread::spawn(move || {
            while holding.load(std::sync::atomic::Ordering::SeqCst) {
                std::fs::write(&ref_lock, "").expect("ref lock");
                std::thread::sleep(Duration::from_millis(200));
            }
            std::fs::remove_file(&ref_lock).expect("ref lock");
        })
    };
    let mut server = RawServer::start(&env);
    server.initialize();
    let pid = server.child.id();
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writer = {
        let mut stdin = server.stdin.take().expect("stdin");
        let sent = std::sync::Arc::clone(&sent);
        std::thread::spawn(move || {
            // One content for every note (the clock is fixed): one blob to store.
            let body = "x".repeat(BODY);
            for i in 0..WRITES {
                let line = write_call(i + 1, &format!("@human/big{i}"), &body);
                stdin.write_all(&line).expect("write to the server");
                sent.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            stdin
        })
    };
    let RawServer {
        mut child, stdout, ..
    } = server;
    let answers = answers_of(stdout);
    // Until the server reads no more (the writer stays blocked for a second), or every line
    // is read.
    let mut last = (usize::MAX, Instant::now());
    loop {
        let now = sent.load(std::sync::atomic::Ordering::SeqCst);
        assert!(
            peak_memory(pid) < PEAK_BOUND,
            "{} MB after {now} requests sent",
            peak_memory(pid) >> 20
        );
        if now == WRITES {
            break;
        }
        if now != last.0 {
            last = (now, Instant::now());
        } else if last.1.elapsed() > Duration::from_secs(1) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        sent.load(std::sync::atomic::Ordering::SeqCst) < WRITES,
        "the server read every request while no commit could be made"
    );
    holding.store(false, std::sync::atomic::Ordering::SeqCst);
    refresher.join().expect("the ref lock's refresher");
    let stdin = writer.join().expect("the writer");
    let mut answered = std::collections::BTreeSet::new();
    while answered.len() < WRITES {
        let answer = answers
            .recv_timeout(Duration::from_secs(120))
            .expect("every write is answered");
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        answered.insert(answer["id"].as_u64().expect("an id"));
    }
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    assert_history_matches_disk(&env);
    assert_eq!(
        git(&env, &["ls-tree", "--name-only", "HEAD", "human/"])
            .lines()
            .filter(|name| name.starts_with("human/big"))
            .count(),
        WRITES
    );
}

/// `git <args>` in `dir`.
fn git_in(env: &TestEnv, dir: &std::path::Path, args: &[&str]) {
    let out = env
        .process_of(Some(std::path::Path::new("git")))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// The addresses a `notes_list` result names.
fn listed_addresses(result: &Value) -> Vec<String> {
    let files = result["files"].as_array().expect("files");
    files
        .iter()
        .map(|f| f["address"].as_str().expect("address").to_string())
        .collect()
}

#[test]
fn notes_and_sessions_other_processes_add_between_two_calls_are_seen_by_the_next() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let cwd = project.to_string_lossy().into_owned();
    runtime().block_on(async {
        let client = connect(&env, &["--cwd", &cwd, "--session-id", SESSION]).await;
        let listed = ok(&call(&client, "notes_list", json!({"pattern": "@project/**"})).await);
        assert_eq!(listed_addresses(&listed), Vec::<String>::new(), "{listed}");
        let missing = call(&client, "notes_read", json!({"address": "@project/news"})).await;
        assert_eq!(refusal(&missing)["code"], "not_found", "{missing:?}");
        let sessions = ok(&call(&client, "sessions_list", json!({})).await);
        assert_eq!(sessions["sessions"], json!([]), "{sessions}");

        // Another process writes a note of this project and a session of it starts.
        let written = notes_ok(
            &env,
            &[
                "write",
                "@project/news",
                "--content",
                "fresh",
                "--cwd",
                &cwd,
            ],
        );
        assert!(written.contains("news"), "{written}");
        let mut s = SessionBuilder::with_id(&session_id(7)).cwd(&cwd);
        s.user("which queue?");
        s.assistant("the heron queue");
        write_pi_session(&env, &project, &s);

        let read = call(&client, "notes_read", json!({"address": "@project/news"})).await;
        assert!(text_of(&read).ends_with("fresh"), "{read:?}");
        let listed = ok(&call(&client, "notes_list", json!({"pattern": "@project/**"})).await);
        assert_eq!(listed_addresses(&listed), ["@project/news.md"], "{listed}");
        let found = ok(&call(&client, "sessions_search", json!({"query": "heron"})).await);
        assert_eq!(found["sessions"][0]["session_id"], session_id(7), "{found}");
        client.cancel().await.expect("close");
    });
}

/// The project keys under whose directory a note `name` is.
fn project_keys_holding(env: &TestEnv, name: &str) -> Vec<String> {
    let projects = std::fs::read_dir(env.notes_home().join("project")).expect("project/");
    projects
        .map(|e| e.expect("entry").path())
        .filter(|dir| dir.join(name).is_file())
        .map(|dir| dir.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn project_notes_another_process_moves_to_the_remote_key_are_seen_without_a_restart() {
    let env = TestEnv::new();
    let checkout = project_dir(&env, "repo");
    let cwd = checkout.to_string_lossy().into_owned();
    git_in(&env, &checkout, &["init", "--quiet"]);
    let origin = [
        "remote",
        "add",
        "origin",
        "https://example.com/owner/repo.git",
    ];
    git_in(&env, &checkout, &origin);
    runtime().block_on(async {
        let client = connect(&env, &["--cwd", &cwd, "--session-id", SESSION]).await;
        // The server's own look for notes to move finds none: its project has none yet.
        let listed = ok(&call(&client, "notes_list", json!({"pattern": "@project/**"})).await);
        assert_eq!(listed_addresses(&listed), Vec::<String>::new(), "{listed}");

        // A note lands under the project's path-based key (written where no origin was seen),
        // and another process, the CLI, moves it to the remote-based key.
        git_in(&env, &checkout, &["remote", "remove", "origin"]);
        notes_ok(
            &env,
            &[
                "write",
                "@project/decisions",
                "--content",
                "use git",
                "--cwd",
                &cwd,
            ],
        );
        let path_key = project_keys_holding(&env, "decisions.md");
        git_in(&env, &checkout, &origin);
        let moved = notes_ok(&env, &["read", "@project/decisions", "--cwd", &cwd]);
        assert!(moved.ends_with("use git\n"), "{moved}");
        let remote_key = project_keys_holding(&env, "decisions.md");
        assert_eq!((path_key.len(), remote_key.len()), (1, 1));
        assert_ne!(path_key, remote_key, "the CLI moved the note");

        let read = call(
            &client,
            "notes_read",
            json!({"address": "@project/decisions"}),
        )
        .await;
        assert!(text_of(&read).ends_with("use git"), "{read:?}");
        client.cancel().await.expect("close");
    });
}

#[test]
fn each_request_of_the_stateless_revision_writes_as_the_client_it_names() {
    let env = TestEnv::new();
    let mut server = RawServer::start(&env);
    for (id, client) in [
        (1, "Claude Code"),
        (2, "codex-mcp-client"),
        (3, "Claude Code"),
    ] {
        let request = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {
                "name": "notes_write",
                "arguments": {"address": format!("@self/note-{id}"), "content": "x"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        });
        server.send(format!("{request}\n").as_bytes());
        let answer = server.receive();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["result"]["isError"], false, "{answer}");
    }
    server.stdin = None;
    assert_eq!(server.exit().0, Some(0));
    let home = env.notes_home();
    for note in [
        "claude-code/note-1.md",
        "codex/note-2.md",
        "claude-code/note-3.md",
    ] {
        assert!(home.join("agents").join(note).is_file(), "{note}");
    }
    let log = notes_json(&env, &["log"]);
    let mut agents: Vec<&str> = log["commits"]
        .as_array()
        .expect("commits")
        .iter()
        .map(|c| c["agent"].as_str().unwrap_or_default())
        .collect();
    agents.sort_unstable();
    assert_eq!(agents, ["claude-code", "claude-code", "codex"], "{log}");
}

#[test]
fn the_project_key_is_the_servers_from_its_first_look_for_its_whole_life() {
    let env = TestEnv::new();
    let checkout = project_dir(&env, "repo");
    let cwd = checkout.to_string_lossy().into_owned();
    git_in(&env, &checkout, &["init", "--quiet"]);
    let origin = [
        "remote",
        "add",
        "origin",
        "https://example.com/owner/one.git",
    ];
    git_in(&env, &checkout, &origin);
    runtime().block_on(async {
        let client = connect(&env, &["--cwd", &cwd, "--session-id", SESSION]).await;
        let write = |name: &'static str| {
            call(
                &client,
                "notes_write",
                json!({"address": format!("@project/{name}"), "content": name}),
            )
        };
        ok(&write("first").await);
        git_in(
            &env,
            &checkout,
            &[
                "remote",
                "set-url",
                "origin",
                "https://example.com/owner/two.git",
            ],
        );
        ok(&write("second").await);
        client.cancel().await.expect("close");
    });
    let first = project_keys_holding(&env, "first.md");
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(project_keys_holding(&env, "second.md"), first);
    // A process started now works under the new remote's key.
    notes_ok(
        &env,
        &[
            "write",
            "@project/third",
            "--content",
            "third",
            "--cwd",
            &cwd,
        ],
    );
    let third = project_keys_holding(&env, "third.md");
    assert_eq!(third.len(), 1, "{third:?}");
    assert_ne!(third, first);
}
