//! `pi-context history …` on the command line: human output, `--json`, exit codes, errors on
//! stderr, closed pipes (contract §2, §7).

use crate::common;

use std::io::Read;
use std::path::PathBuf;
use std::process::Stdio;

use common::session::{ok_json, request, request_at, SessionBuilder};
use common::{CommandOutput, TestEnv};
use serde_json::{json, Value};

struct Cli {
    env: TestEnv,
    path: PathBuf,
}

impl Cli {
    fn new(session: &SessionBuilder) -> Self {
        let env = TestEnv::new();
        let path = session.write_to(env.work().join("session.jsonl"));
        Cli { env, path }
    }

    fn run(&self, args: &[&str]) -> CommandOutput {
        self.env.run_with(|cmd| {
            cmd.arg("history")
                .args(args)
                .arg("--session")
                .arg(&self.path)
        })
    }

    /// The runs of `args_list`, one after the other, as a snapshot shows them.
    fn transcript(&self, args_list: &[&[&str]]) -> String {
        args_list
            .iter()
            .map(|args| self.run(args).to_string())
            .collect()
    }

    fn tool(&self, name: &str, params: Value) -> Value {
        self.env.tool(name, &request(&self.path, params))
    }
}

fn session() -> SessionBuilder {
    let mut s = SessionBuilder::new();
    let first = s.user("first needle"); // 1
    s.assistant_with_calls("abandoned", &[("x", "bash", r#"{"command":"rm -rf"}"#)]); // 2, 3
    s.branch_from(&first);
    s.assistant_with_calls("let me check", &[("c1", "bash", r#"{"command":"ls"}"#)]); // 4, call 5
    s.tool_result("c1", "bash", "Cargo.toml\nsrc", false); // 6
    s.custom_message("pi-context/boot", "boot text"); // 7
    s.reset_marker("pcw:0f1e2d3c:0000000a");
    s.user("second needle"); // 8
    s.assistant("done"); // 9
    s
}

#[test]
fn search_exits_0_with_hits_and_1_without() {
    let cli = Cli::new(&session());
    // Previews start at the match; a miss prints nothing on stderr.
    insta::assert_snapshot!(cli.transcript(&[&["search", "needle"], &["search", "absent"]]));
    let miss = cli.run(&["search", "absent", "--json"]).expect_code(1);
    assert_eq!(
        miss.json(),
        json!({"items": [], "older_before": null, "newer_after": null})
    );
    // Several queries are OR-ed.
    let either = cli.run(&["search", "absent", "DONE", "--json"]).success();
    assert_eq!(either.json()["items"][0]["seq"], 9);
}

#[test]
fn json_output_equals_the_tool_text() {
    let cli = Cli::new(&session());
    let cases: Vec<(Vec<&str>, &str, Value)> = vec![
        (vec!["windows"], "history_windows", json!({})),
        (vec!["list"], "history_list", json!({})),
        (vec!["list", "-n", "2"], "history_list", json!({"limit": 2})),
        (
            vec![
                "list",
                "--role",
                "tool",
                "--role",
                "context",
                "--max-chars",
                "5",
            ],
            "history_list",
            json!({"roles": ["tool", "context"], "max_chars_per_item": 5}),
        ),
        (
            vec!["list", "--after", "1", "--before", "9", "--limit", "1"],
            "history_list",
            json!({"after": 1, "before": 9, "limit": 1}),
        ),
        (
            vec!["list", "--window", "pcw:0f1e2d3c:0000000a"],
            "history_list",
            json!({"window_id": "pcw:0f1e2d3c:0000000a"}),
        ),
        (
            vec!["search", "needle"],
            "history_search",
            json!({"query": ["needle"]}),
        ),
        (
            vec!["search", "NEEDLE", "ls", "-r", "user", "-r", "tool"],
            "history_search",
            json!({"query": ["NEEDLE", "ls"], "roles": ["user", "tool"]}),
        ),
    ];
    for (args, tool, params) in cases {
        let mut args = args;
        args.push("--json");
        let run = cli.run(&args).success();
        let response = cli.tool(tool, params);
        assert_eq!(
            run.stdout,
            format!("{}\n", response["text"].as_str().unwrap()),
            "{args:?}"
        );
    }
}

#[test]
fn read_prints_the_read_window_and_json_gives_its_fields() {
    let cli = Cli::new(&session());
    let response = cli.tool(
        "history_read",
        json!({"seq": 6, "offset_chars": 3, "limit_chars": 10}),
    );
    let run = cli
        .run(&["read", "6", "--offset", "3", "--limit", "10"])
        .success();
    assert_eq!(
        run.stdout,
        format!("{}\n", response["text"].as_str().unwrap())
    );
    assert!(run.stdout.starts_with(
        "--- READ WINDOW ---\nseq: 5\nwindow_id: pcw:0f1e2d3c:root\nchars: [3,13) of "
    ));

    let run = cli.run(&["read", "6", "--offset", "3", "--limit", "10", "--json"]);
    let mut expected = response["details"].clone();
    expected["content"] =
        json!(common::session::parse_block(response["text"].as_str().unwrap()).content);
    assert_eq!(expected["content"], "h {\"comman");
    assert_eq!(run.success().json(), expected);

    // A negative offset counts from the end.
    let run = cli.run(&["read", "9", "--offset", "-2", "--json"]);
    assert_eq!(
        run.success().json(),
        json!({"seq": 9, "window_id": "pcw:0f1e2d3c:0000000a", "offset_chars": 2, "total_chars": 4, "next_offset_chars": null, "content": "ne"})
    );
}

#[test]
fn human_list_shows_rows_folds_and_cursors() {
    let cli = Cli::new(&session());
    // The branch's rows (not the abandoned one), the folded tool call, the cursor to older rows
    // and both windows of the session.
    let text = cli.transcript(&[&["list"], &["list", "-n", "1"], &["windows"]]);
    assert!(!text.contains('\u{1b}'), "no colors when not a terminal");
    insta::assert_snapshot!(text);
    let run = cli.run(&["list", "--color", "always"]);
    assert!(
        run.stdout.contains('\u{1b}'),
        "forced colors: {}",
        run.stdout
    );
}

#[test]
fn refusals_exit_2_with_an_error_line_on_stderr() {
    let cli = Cli::new(&session());
    let cases: [(&[&str], &str); 7] = [
        (
            &["read", "99"],
            "error: unknown seq 99: this session's items run 1..9",
        ),
        (
            &["read", "2"],
            "error: seq 2 is on another branch and is not readable here",
        ),
        (
            &["read", "9", "--offset", "5"],
            "error: offset_chars 5 is past the end",
        ),
        (
            &["list", "--window", "nope"],
            "error: unknown window_id \"nope\"",
        ),
        (
            &["search", "needle", "--window", "nope"],
            "error: unknown window_id \"nope\"",
        ),
        (
            &["list", "--leaf", "deadbeef"],
            "error: unknown leaf id \"deadbeef\"",
        ),
        (&["search", ""], "error: query strings must be non-empty"),
    ];
    for (args, message) in cases {
        let run = cli.run(args).expect_code(2);
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(run.stderr.starts_with(message), "{run}");
    }
    // The whole error lines and hints; off-branch text never leaks, and the hint says how to
    // read another branch.
    let mut all: Vec<&[&str]> = cases.iter().map(|(args, _)| *args).collect();
    all.push(&["read", "2", "--json"]);
    let text = cli.transcript(&all);
    assert!(!text.contains("abandoned"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn usage_errors_exit_2() {
    let cli = Cli::new(&session());
    for args in [
        &["read", "0"][..],
        &["read", "x"],
        &["read", "1", "--limit", "50001"],
        &["list", "--before", "0"],
        &["list", "--role", "system"],
        &["list", "--max-chars", "0"],
        &["search"],
        &["frobnicate"],
    ] {
        let run = cli.run(args).expect_code(2);
        assert!(run.stderr.starts_with("error: "), "{run}");
    }
    let run = cli.env.run(["history", "list"]).expect_code(2);
    assert!(
        run.stderr.contains("--session"),
        "--session is required: {run}"
    );
}

#[test]
fn leaf_flag_selects_the_branch() {
    let mut s = SessionBuilder::new();
    let first = s.user("first");
    let abandoned = s.assistant("abandoned reply");
    s.branch_from(&first);
    s.user("new branch");
    let cli = Cli::new(&s);
    let run = cli.run(&["read", "2", "--leaf", &abandoned]).success();
    assert!(
        run.stdout.ends_with("\n\nabandoned reply\n"),
        "{}",
        run.stdout
    );
    let run = cli.run(&["list", "--leaf", "none", "--json"]).success();
    assert_eq!(
        run.json(),
        json!({"items": [], "older_before": null, "newer_after": null})
    );
    let _ = cli
        .run(&["search", "first", "--leaf", "none"])
        .expect_code(1);
}

#[test]
fn skipped_lines_are_reported_in_json_and_warned_about_in_text() {
    let mut s = session();
    s.raw_line("garbage");
    let mut text = s.text();
    text.push_str("{\"type\":\"message\",\"id\":\"half"); // Pi is still writing
    let env = TestEnv::new();
    let path = env.write("session.jsonl", &text);
    let cli = Cli { env, path };
    for args in [
        &["windows", "--json"][..],
        &["list", "--json"],
        &["search", "needle", "--json"],
        &["read", "1", "--json"],
    ] {
        let run = cli.run(args).success();
        assert_eq!(run.json()["skipped_lines"], 2, "{args:?}");
    }
    // The warning is on stderr; stdout stays the result.
    insta::assert_snapshot!(cli.run(&["list", "-n", "1"]).success());
    // A clean file says nothing about skipped lines.
    let clean = Cli::new(&session());
    let run = clean.run(&["list", "--json"]).success();
    assert!(run.json().get("skipped_lines").is_none(), "{run}");
    assert_eq!(clean.run(&["list"]).success().stderr, "");
}

#[test]
fn a_missing_session_file_is_an_empty_session() {
    let env = TestEnv::new();
    let path = env.work().join("lazy.jsonl");
    let cli = Cli { env, path };
    let run = cli.run(&["list", "--json"]).success();
    assert_eq!(run.json()["items"], json!([]));
    let run = cli.run(&["windows", "--json", "--session-id", "abcdefgh-1"]);
    assert_eq!(
        run.success().json()["windows"][0]["window_id"],
        "pcw:abcdefgh:root"
    );
    let _ = cli.run(&["search", "x"]).expect_code(1);
    let run = cli.run(&["read", "1"]).expect_code(2);
    assert!(
        run.stderr.starts_with("error: unknown seq 1"),
        "{}",
        run.stderr
    );
    assert!(!cli.path.exists());
}

#[test]
fn a_missing_session_file_says_there_is_no_file_at_its_path() {
    // A typo in --session reads as an empty session (Pi creates files lazily); every
    // subcommand says so, with its usual exit code.
    let env = TestEnv::new();
    let path = env.work().join("typo.jsonl");
    let cli = Cli {
        env,
        path: path.clone(),
    };
    let note = format!(
        "no file at {} (Pi creates a session file lazily, so it reads as empty)",
        path.display()
    );
    let read = cli.run(&["read", "5"]).expect_code(2);
    assert_eq!(
        read.stderr.lines().collect::<Vec<_>>(),
        [
            "error: unknown seq 5: this session has no items yet",
            format!("hint: {note}").as_str()
        ]
    );
    let unknown_leaf = cli.run(&["list", "--leaf", "a1b2c3d4"]).expect_code(2);
    assert!(
        unknown_leaf.stderr.ends_with(&format!("hint: {note}\n")),
        "{}",
        unknown_leaf.stderr
    );
    for (args, code) in [
        (&["list"][..], 0),
        (&["list", "--json"], 0),
        (&["windows"], 0),
        (&["search", "anything"], 1),
    ] {
        let run = cli.run(args).expect_code(code);
        assert_eq!(run.stderr, format!("note: {note}\n"), "{args:?}");
    }
    // A file that exists and is empty is not a typo.
    std::fs::write(&path, "").unwrap();
    assert_eq!(cli.run(&["list"]).stderr, "");
    assert!(!cli.run(&["read", "5"]).stderr.contains("no file at"));
}

#[test]
fn an_unreadable_session_path_is_an_error_not_a_panic() {
    let env = TestEnv::new();
    let path = env.work().join("dir.jsonl");
    std::fs::create_dir(&path).unwrap();
    let cli = Cli { env, path };
    let run = cli.run(&["list"]).expect_code(2);
    assert!(run.stderr.starts_with("error: "), "{run}");
}

fn large_session(env: &TestEnv) -> PathBuf {
    let mut s = SessionBuilder::new();
    for i in 0..40 {
        s.user(&format!("{i} {}", "😀 text ".repeat(2000)));
    }
    s.write_to(env.work().join("large.jsonl"))
}

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("pi-context")
}

#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    let env = TestEnv::new();
    let path = large_session(&env);
    let err = env.work().join("stderr.txt");
    for args in [
        "history list --max-bytes 100000000 --max-chars 50000 -n 100",
        "history list --max-bytes 100000000 --max-chars 50000 -n 100 --json",
        "history search text --max-bytes 100000000 --max-chars 50000 -n 100",
        "history read 1 --max-bytes 100000000 --limit 50000",
    ] {
        let script = format!(
            "'{}' {args} --session '{}' 2>'{}' | head -c 10 >/dev/null",
            binary().display(),
            path.display(),
            err.display()
        );
        let output = std::process::Command::new("sh")
            .args(["-c", &script])
            .env("HOME", env.home())
            .output()
            .unwrap();
        assert!(output.status.success(), "{args}");
        let stderr = std::fs::read_to_string(&err).unwrap();
        assert_eq!(stderr, "", "{args}: a closed pipe prints nothing");
    }
}

#[test]
fn a_closed_stdout_pipe_exits_0() {
    let env = TestEnv::new();
    let path = large_session(&env);
    let mut child = std::process::Command::new(binary())
        .args([
            "history",
            "list",
            "--max-bytes",
            "100000000",
            "--max-chars",
            "50000",
            "-n",
            "100",
        ])
        .arg("--session")
        .arg(&path)
        .env("HOME", env.home())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap(); // then dropped: the pipe closes
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(stderr, "");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn max_bytes_sets_the_budget() {
    let cli = Cli::new(&session());
    // The block header is 97 bytes here, so 105 bytes leave room for 8 characters.
    let value = cli
        .run(&["read", "1", "--max-bytes", "105", "--json"])
        .success()
        .json();
    assert_eq!(
        (value["next_offset_chars"].clone(), value["content"].clone()),
        (json!(8), json!("first ne"))
    );
    let run = cli.run(&["read", "1", "--max-bytes", "105"]).success();
    assert_eq!(run.stdout.len(), 105 + 1, "{run}");
}

// ----- the tool subcommand ---------------------------------------------------------------------

#[test]
fn tool_refusals_exit_0_and_broken_requests_exit_2() {
    let env = TestEnv::new();
    let path = session().write_to(env.work().join("s.jsonl"));
    let response = env
        .run_stdin(
            ["tool", "history_read"],
            request(&path, json!({"seq": 99})).to_string(),
        )
        .success()
        .json();
    assert_eq!(response["is_error"], true);
    assert_eq!(response["details"], json!({"code": "unknown_seq"}));

    let mut text = String::new();
    for (tool, stdin) in [
        ("history_read", "not json"),
        ("history_read", "[]"),
        ("no_such_tool", "{}"),
    ] {
        let run = env.run_stdin(["tool", tool], stdin).expect_code(2);
        assert_eq!(run.stdout, "", "{run}");
        text.push_str(&format!("(stdin: {stdin})\n{run}"));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn tool_without_a_name_is_an_error_that_lists_the_tools() {
    let env = TestEnv::new();
    let run = env.run(["tool"]).expect_code(2);
    assert_eq!(run.stdout, "");
    let stderr = &run.stderr;
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines[0], "error: which tool? `pi-context tool` needs a tool name",
        "{stderr}"
    );
    let schemas = env.tool_schemas();
    let names = common::tool_names(&schemas);
    let expected = format!("hint: tools: {}", names.join(", "));
    assert!(lines.contains(&expected.as_str()), "{stderr}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("hint: ") && l.contains("--schemas")),
        "{stderr}"
    );
}

#[test]
fn read_on_an_empty_session_says_it_has_no_items() {
    let env = TestEnv::new();
    let path = SessionBuilder::new().write_to(env.work().join("s.jsonl"));
    let run = env
        .run_with(|cmd| cmd.args(["history", "read", "3", "--session"]).arg(&path))
        .expect_code(2);
    assert_eq!(
        run.stderr.lines().next(),
        Some("error: unknown seq 3: this session has no items yet")
    );
}

#[test]
fn the_tool_reads_the_leaf_from_the_context() {
    let mut s = SessionBuilder::new();
    let first = s.user("first");
    let abandoned = s.assistant("abandoned reply");
    s.branch_from(&first);
    s.user("new branch");
    let env = TestEnv::new();
    let path = s.write_to(env.work().join("s.jsonl"));
    let page = ok_json(&env.tool(
        "history_list",
        &request_at(&path, Some(&abandoned), json!({})),
    ));
    assert_eq!(common::session::seqs(&page), [1, 2]);
    // `leaf_id` absent means the last entry.
    let absent = json!({"params": {}, "context": {"session_file": path.to_str().unwrap()}});
    assert_eq!(
        common::session::seqs(&ok_json(&env.tool("history_list", &absent))),
        [1, 3]
    );
}

/// A session of several megabytes is scanned in pieces by two threads (the raw-byte prefilter
/// of `history search`); every line holding the word is found wherever the pieces are cut,
/// with and without the session index.
#[test]
fn a_search_of_a_large_session_finds_every_match_across_the_scan_pieces() {
    let mut s = SessionBuilder::new();
    let mut expected = Vec::new();
    let filler = "lorem ipsum dolor ".repeat(60);
    // About 1 KiB a message: 13,000 messages make a 13 MB file, several scan pieces. Every
    // third message holds the word, so every cut has matching lines on both of its sides.
    for n in 0..13_000u64 {
        if n % 3 == 0 {
            s.user(&format!("{filler} Quetzal {n}"));
            expected.push(n + 1);
        } else {
            s.user(&format!("{filler} plain {n}"));
        }
    }
    let cli = Cli::new(&s);
    assert!(std::fs::metadata(&cli.path).unwrap().len() > 12 << 20);
    for indexed in ["on", "off"] {
        let page = cli
            .env
            .run_with(|cmd| {
                cmd.env("PI_CONTEXT_SESSION_INDEX", indexed)
                    .env("PI_CONTEXT_CACHE_MIN_BYTES", "0")
                    .args(["history", "search", "quetzal", "--json", "--limit", "5000"])
                    .args(["--max-bytes", "100000000", "--session"])
                    .arg(&cli.path)
            })
            .success()
            .json();
        assert_eq!(common::session::seqs(&page), expected, "index {indexed}");
    }
}
