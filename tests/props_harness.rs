//! Properties of the Claude Code, Codex, Gemini CLI, Copilot CLI and Cursor readers, and hostile
//! files (contract §11.2): no line makes a reader panic; seqs are stable under append (a prefix
//! of a file, cut anywhere, gives the same seqs to the same events); a binary file, a truncated
//! last line and a 50 MB line read as they should.

use crate::common;

use common::harness::{history, list_all, row_seqs};
use common::TestEnv;
use pi_context::history::{History, Leaf};
use pi_context::session::{detect, read_consistently, Harness, OpenOptions, Session, SessionError};
use proptest::prelude::*;
use serde_json::{json, Value};

const OUTPUT_MARKER: &str = "\n--- output ---\n";

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "needle",
            "hay",
            " ",
            "\n",
            "é",
            "😀",
            "\"",
            "\\",
            "/",
            "<environment_context>",
            "\u{2028}",
            "{}",
            "\u{0}",
        ]),
        0..6,
    )
    .prop_map(|pieces| pieces.concat())
}

/// A JSON value of any type, for fields that should hold another.
fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::from),
        text().prop_map(|t| json!([{"type": "text", "text": t}])),
        Just(json!({"type": 7})),
        Just(json!([1, "x", null])),
    ]
}

/// One Claude Code record: its kind, a text, and which earlier record (if any) is its parent.
#[derive(Debug, Clone)]
struct ClaudeRecord {
    kind: u8,
    text: String,
    parent: Option<usize>,
    call: u8,
}

fn claude_records() -> impl Strategy<Value = Vec<ClaudeRecord>> {
    prop::collection::vec(
        (0u8..14, text(), prop::option::of(0usize..40), 0u8..4).prop_map(
            |(kind, text, parent, call)| ClaudeRecord {
                kind,
                text,
                parent,
                call,
            },
        ),
        0..30,
    )
}

fn claude_line(i: usize, record: &ClaudeRecord) -> String {
    let uuid = format!("u{i}");
    let parent = record
        .parent
        .filter(|&p| p < i)
        .map_or(Value::Null, |p| json!(format!("u{p}")));
    let call = format!("toolu_{}", record.call);
    let t = &record.text;
    let base = |kind: &str, content: Value| {
        json!({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s-claude",
               "cwd": "/w", "timestamp": format!("2026-01-01T00:00:{:02}Z", i % 60),
               "message": {"role": kind, "content": content}})
    };
    let value = match record.kind {
        0 => base("user", json!(t)),
        1 => base("assistant", json!([{"type": "text", "text": t}])),
        2 => base(
            "assistant",
            json!([{"type": "thinking", "thinking": t},
                                      {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": t}}]),
        ),
        3 => base(
            "user",
            json!([{"type": "tool_result", "tool_use_id": call, "content": t},
                                 {"type": "tool_result", "tool_use_id": "toolu_x", "content": [{"type": "text", "text": t}], "is_error": true}]),
        ),
        4 => base(
            "user",
            json!([{"type": "tool_result", "tool_use_id": call, "content": t}, {"type": "text", "text": t}]),
        ),
        5 => {
            json!({"type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": null,
                    "logicalParentUuid": parent, "sessionId": "s-claude"})
        }
        6 => {
            let mut v = base("user", json!(t));
            v["isCompactSummary"] = json!(true);
            v
        }
        7 => json!({"type": "summary", "summary": t, "leafUuid": "u0"}),
        8 => json!({"type": "file-history-snapshot", "messageId": uuid, "snapshot": {"text": t}}),
        9 => {
            json!({"type": "attachment", "uuid": uuid, "parentUuid": parent, "attachment": {"text": t}})
        }
        // A compaction whose logical parent was never written (or is written later).
        10 => {
            json!({"type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": null,
                    "logicalParentUuid": format!("u{}", i + 1 + record.call as usize), "sessionId": "s-claude"})
        }
        // The harness's words: a background task's notification, a command's output.
        11 => {
            let mut v = base(
                "user",
                json!(format!("<task-notification>{t}</task-notification>")),
            );
            v["origin"] = json!({"kind": "task-notification"});
            v["promptSource"] = json!("system");
            v
        }
        12 => base(
            "user",
            json!(format!("<local-command-stdout>{t}</local-command-stdout>")),
        ),
        // A subagent's record of the oldest layout.
        _ => {
            let mut v = base("user", json!(t));
            v["agentId"] = json!("agent-x");
            v
        }
    };
    value.to_string()
}

/// One Codex rollout item: its kind and a text.
fn codex_line(i: usize, kind: u8, text: &str, call: u8) -> String {
    let call = format!("call_{call}");
    let ts = format!("2026-01-01T00:00:{:02}Z", i % 60);
    let item =
        |payload: Value| json!({"timestamp": ts, "type": "response_item", "payload": payload});
    let message = |role: &str, part: &str| {
        item(json!({"type": "message", "role": role, "content": [{"type": part, "text": text}]}))
    };
    let value = match kind {
        0 => message("user", "input_text"),
        1 => message("assistant", "output_text"),
        2 => message("developer", "input_text"),
        3 => item(
            json!({"type": "function_call", "name": "shell", "call_id": call,
                         "arguments": json!({"command": [text]}).to_string()}),
        ),
        4 => item(json!({"type": "function_call_output", "call_id": call, "output": text})),
        5 => item(
            json!({"type": "custom_tool_call", "name": "apply_patch", "call_id": call, "input": text}),
        ),
        6 => item(
            json!({"type": "local_shell_call", "call_id": call, "action": {"command": [text]}}),
        ),
        7 => {
            item(json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]}))
        }
        8 => {
            json!({"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": text}})
        }
        9 => {
            json!({"timestamp": ts, "type": "event_msg", "payload": {"type": "agent_message", "message": text}})
        }
        10 => json!({"timestamp": ts, "type": "compacted", "payload": {"message": text}}),
        11 => {
            json!({"timestamp": ts, "type": "session_meta", "payload": {"id": format!("s-{i}"), "cwd": text}})
        }
        // An older rollout's turn: the event copy, then its roled twin.
        13 | 14 => {
            let (event, role, part) = if kind == 13 {
                ("user_message", "user", "input_text")
            } else {
                ("agent_message", "assistant", "output_text")
            };
            let copy = json!({"timestamp": ts, "type": "event_msg", "payload": {"type": event, "message": text}});
            return format!("{copy}\n{}", message(role, part));
        }
        _ => json!({"timestamp": ts, "type": "turn_context", "payload": {"cwd": text}}),
    };
    value.to_string()
}

fn codex_records() -> impl Strategy<Value = Vec<(u8, String, u8)>> {
    prop::collection::vec((0u8..15, text(), 0u8..4), 0..30)
}

/// One Gemini CLI chat record: its kind, a text, and which message (of four ids) or call it is.
fn gemini_line(i: usize, kind: u8, text: &str, n: u8) -> String {
    let id = format!("m{n}");
    let call = format!("c{n}");
    let ts = format!("2026-01-01T00:00:{:02}Z", i % 60);
    let result = json!([{"functionResponse": {"id": call, "name": "run_shell_command", "response": {"output": text}}}]);
    let value = match kind {
        0 => {
            json!({"id": format!("u{i}"), "timestamp": ts, "type": "user", "content": [{"text": text}]})
        }
        1 => json!({"id": id, "timestamp": ts, "type": "gemini", "content": text}),
        2 => json!({"id": id, "timestamp": ts, "type": "gemini", "content": text,
                    "toolCalls": [{"id": call, "name": "run_shell_command", "args": {"command": text}, "result": result, "status": "success"}]}),
        3 => json!({"id": format!("r{i}"), "timestamp": ts, "type": "user", "content": result}),
        4 => {
            json!({"$set": {"messages": [{"id": id, "type": "gemini", "content": text}, {"id": format!("s{i}"), "type": "user", "content": [{"text": text}]}]}})
        }
        5 => json!({"$rewindTo": id}),
        6 => json!({"id": format!("i{i}"), "timestamp": ts, "type": "info", "content": text}),
        7 => json!({"id": format!("h{i}"), "timestamp": ts, "type": "user",
                    "content": [{"text": format!("<hook_context>&lt;pi_context_boot&gt; {text}</hook_context>\n\n{text}")}]}),
        8 => json!({"$set": {"summary": text, "lastUpdated": ts}}),
        9 => json!({"sessionId": "s", "projectHash": "p", "startTime": ts, "kind": "main"}),
        _ => {
            json!({"id": id, "timestamp": ts, "type": "gemini", "content": [{"text": text, "thought": true}]})
        }
    };
    value.to_string()
}

fn gemini_records() -> impl Strategy<Value = Vec<(u8, String, u8)>> {
    prop::collection::vec((0u8..11, text(), 0u8..4), 0..30)
}

fn gemini_lines(records: &[(u8, String, u8)]) -> Vec<String> {
    let first = json!({"sessionId": "s", "projectHash": "p", "startTime": "t", "kind": "main"});
    std::iter::once(first.to_string())
        .chain(
            records
                .iter()
                .enumerate()
                .map(|(i, (k, t, n))| gemini_line(i, *k, t, *n)),
        )
        .collect()
}

/// Replaces one field of a record with a value of any type, or garbles the line.
fn garble(line: String, how: u8, field: &str, value: &Value) -> String {
    match how {
        0 => line,
        1 => {
            let mut half = line.len() / 2;
            while !line.is_char_boundary(half) {
                half -= 1;
            }
            line[..half].to_string()
        }
        2 => {
            let mut record: Value = serde_json::from_str(&line).unwrap_or(json!({}));
            if let Some(object) = record.as_object_mut() {
                object.insert(field.to_string(), value.clone());
            }
            record.to_string()
        }
        3 => {
            let mut record: Value = serde_json::from_str(&line).unwrap_or(json!({}));
            if let Some(payload) = record.get_mut("payload").and_then(Value::as_object_mut) {
                payload.insert(field.to_string(), value.clone());
            } else if let Some(message) = record.get_mut("message").and_then(Value::as_object_mut) {
                message.insert(field.to_string(), value.clone());
            }
            record.to_string()
        }
        _ => format!("{line}{line}"),
    }
}

fn field() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "type",
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "sessionId",
        "isSidechain",
        "agentId",
        "content",
        "message",
        "payload",
        "call_id",
        "arguments",
        "output",
        "role",
        "name",
        "input",
        "id",
        "timestamp",
        "summary",
        "isCompactSummary",
        "isMeta",
    ])
    .prop_map(String::from)
}

/// `(seq, role, head)` of every event of the branch ending at `leaf`: a tool event's head is its
/// document before the output (a call answered later gains an output, nothing else changes).
fn events(session: &Session, leaf: &Leaf) -> Vec<(u64, String, String)> {
    let Ok(history) = History::project(session, leaf, None) else {
        return Vec::new();
    };
    history
        .events()
        .iter()
        .map(|event| {
            let document = history.document(event);
            let head = document
                .split_once(OUTPUT_MARKER)
                .map_or(document.as_str(), |(head, _)| head);
            (event.seq, event.role.as_str().to_string(), head.to_string())
        })
        .collect()
}

/// Every event of a prefix cut at `cut` has the same seq, role and head in the whole file,
/// on the branch ending at the prefix's leaf.
fn check_prefix(bytes: &[u8], cut: usize) -> Result<(), TestCaseError> {
    let full = Session::from_bytes(bytes.to_vec());
    let prefix = Session::from_bytes(bytes[..cut.min(bytes.len())].to_vec());
    prop_assert_eq!(prefix.harness, full.harness.min_with(prefix.harness));
    let Some(leaf) = prefix
        .entries
        .last()
        .map(|e| prefix.entry_id(&e.id).into_owned())
    else {
        return Ok(());
    };
    let before = events(&prefix, &Leaf::Last);
    let after = events(&full, &Leaf::Id(leaf));
    prop_assert_eq!(before, after);
    Ok(())
}

/// The harness a prefix was read as is the whole file's, or Pi's when the prefix held no
/// decisive record yet.
trait SameHarness {
    fn min_with(self, prefix: Harness) -> Harness;
}

impl SameHarness for Harness {
    fn min_with(self, prefix: Harness) -> Harness {
        if prefix == Harness::Pi {
            Harness::Pi
        } else {
            self
        }
    }
}

fn survive(bytes: Vec<u8>) {
    let session = Session::from_bytes(bytes);
    for leaf in [Leaf::Last, Leaf::None] {
        let history = History::project(&session, &leaf, None).expect("a leaf of the file");
        for event in history.events() {
            let document = history.document(event);
            assert_eq!(history.total_chars(event), document.chars().count());
        }
        let _ = history.windows();
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn claude_lines_never_panic_the_reader(
        records in claude_records(),
        garbles in prop::collection::vec((0u8..5, field(), any_value()), 30),
        noise in "\\PC{0,80}",
    ) {
        let mut lines: Vec<String> = records.iter().enumerate().map(|(i, r)| claude_line(i, r)).collect();
        for (line, (how, field, value)) in lines.iter_mut().zip(&garbles) {
            *line = garble(std::mem::take(line), *how, field, value);
        }
        lines.insert(lines.len() / 2, noise);
        let bytes = format!("{{\"type\":\"user\",\"uuid\":\"first\",\"message\":{{\"content\":\"hi\"}}}}\n{}", lines.join("\n"));
        prop_assert_eq!(detect(bytes.as_bytes()), Harness::Claude);
        survive(bytes.into_bytes());
    }

    #[test]
    fn codex_lines_never_panic_the_reader(
        records in codex_records(),
        garbles in prop::collection::vec((0u8..5, field(), any_value()), 30),
        noise in "\\PC{0,80}",
    ) {
        let mut lines: Vec<String> = records.iter().enumerate().map(|(i, (k, t, c))| codex_line(i, *k, t, *c)).collect();
        for (line, (how, field, value)) in lines.iter_mut().zip(&garbles) {
            *line = garble(std::mem::take(line), *how, field, value);
        }
        lines.insert(lines.len() / 2, noise);
        let bytes = format!("{{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{{}}}}\n{}", lines.join("\n"));
        prop_assert_eq!(detect(bytes.as_bytes()), Harness::Codex);
        survive(bytes.into_bytes());
    }

    #[test]
    fn gemini_lines_never_panic_the_reader(
        records in gemini_records(),
        garbles in prop::collection::vec((0u8..5, field(), any_value()), 30),
        noise in "\\PC{0,80}",
    ) {
        let mut lines = gemini_lines(&records);
        for (line, (how, field, value)) in lines.iter_mut().skip(1).zip(&garbles) {
            *line = garble(std::mem::take(line), *how, field, value);
        }
        lines.insert(lines.len() / 2 + 1, noise);
        let bytes = lines.join("\n");
        prop_assert_eq!(detect(bytes.as_bytes()), Harness::Gemini);
        survive(bytes.into_bytes());
    }

    #[test]
    fn gemini_seqs_are_stable_under_append(records in gemini_records(), cut in any::<prop::sample::Index>()) {
        let bytes = format!("{}\n", gemini_lines(&records).join("\n")).into_bytes();
        check_prefix(&bytes, cut.index(bytes.len() + 1))?;
    }

    #[test]
    fn gemini_appends_read_through_the_index_equal_a_whole_read(
        records in gemini_records(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
    ) {
        check_appends_through_the_index(&gemini_lines(&records), &cuts)?;
    }

    #[test]
    fn claude_seqs_are_stable_under_append(records in claude_records(), cut in any::<prop::sample::Index>()) {
        let lines: Vec<String> = records.iter().enumerate().map(|(i, r)| claude_line(i, r)).collect();
        let bytes = format!("{}\n", lines.join("\n")).into_bytes();
        check_prefix(&bytes, cut.index(bytes.len() + 1))?;
    }

    #[test]
    fn codex_seqs_are_stable_under_append(records in codex_records(), cut in any::<prop::sample::Index>()) {
        let lines: Vec<String> = records.iter().enumerate().map(|(i, (k, t, c))| codex_line(i, *k, t, *c)).collect();
        let bytes = format!("{}\n", lines.join("\n")).into_bytes();
        check_prefix(&bytes, cut.index(bytes.len() + 1))?;
    }

    #[test]
    fn claude_appends_read_through_the_index_equal_a_whole_read(
        records in claude_records(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
    ) {
        let lines: Vec<String> = records.iter().enumerate().map(|(i, r)| claude_line(i, r)).collect();
        check_appends_through_the_index(&lines, &cuts)?;
    }

    #[test]
    fn codex_appends_read_through_the_index_equal_a_whole_read(
        records in codex_records(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
    ) {
        let lines: Vec<String> = records.iter().enumerate().map(|(i, (k, t, c))| codex_line(i, *k, t, *c)).collect();
        check_appends_through_the_index(&lines, &cuts)?;
    }
}

/// The file written in appends that end at `cuts` (whole lines), each step read through the
/// session index of the step before it (whose reader state carries over to the appended
/// lines), equals at every step a whole read of the same bytes: the same entries and the same
/// events, on the last entry's branch and on every earlier entry's.
fn check_appends_through_the_index(
    lines: &[String],
    cuts: &[prop::sample::Index],
) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = lines.iter().flat_map(|l| l.split('\n')).collect();
    let mut ends: Vec<usize> = cuts.iter().map(|c| c.index(lines.len() + 1)).collect();
    ends.push(lines.len());
    ends.sort_unstable();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("transcript.jsonl");
    let options = OpenOptions {
        cache_dir: Some(dir.path().join("cache")),
        cache_min_bytes: 0,
    };
    std::fs::write(&path, "").unwrap();
    for end in ends {
        let text: String = lines[..end].iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        let whole = Session::from_bytes(text.into_bytes());
        let compared = read_consistently(&path, |file| {
            let indexed = file.session(&options);
            Ok::<_, SessionError>(compare_sessions(&indexed, &whole))
        })
        .unwrap();
        compared?;
        // The next step's index: this prefix's, with the reader's state after it.
        let _ = std::fs::remove_dir_all(dir.path().join("cache"));
        read_consistently(&path, |file| {
            Ok::<_, SessionError>(file.session(&options).entries.len())
        })
        .unwrap();
    }
    Ok(())
}

fn compare_sessions(indexed: &Session, whole: &Session) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        format!("{:?}", indexed.entries),
        format!("{:?}", whole.entries)
    );
    // A Cursor transcript names nothing: its id and parent come from its path, which a read of
    // bytes alone has not.
    if whole.harness != Harness::Cursor {
        prop_assert_eq!(indexed.id(), whole.id());
        prop_assert_eq!(indexed.parent_session_id(), whole.parent_session_id());
    }
    for leaf in whole
        .entries
        .iter()
        .map(|e| whole.entry_id(&e.id).into_owned())
    {
        prop_assert_eq!(
            events(indexed, &Leaf::Id(leaf.clone())),
            events(whole, &Leaf::Id(leaf))
        );
    }
    prop_assert_eq!(events(indexed, &Leaf::Last), events(whole, &Leaf::Last));
    Ok(())
}

// ----- hostile files ---------------------------------------------------------------------------

#[test]
fn a_binary_file_named_jsonl_is_an_empty_session_with_skipped_lines() {
    let env = TestEnv::new();
    let mut bytes: Vec<u8> = (0..=255u8).cycle().take(64 << 10).collect();
    bytes.extend_from_slice(b"\n\xff\xfe{\"type\":\"user\"}\n\x00\x00\n");
    let path = env
        .work()
        .join("rollout-2026-01-01T00-00-00-0199aaaa-0000-7000-8000-000000000000.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    let run = history(&env, &path, &["windows", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let windows = run.json();
    assert_eq!(windows["windows"][0]["item_count"], 0);
    assert!(windows["skipped_lines"].as_u64().unwrap() >= 3, "{windows}");
    let search = history(&env, &path, &["search", "user", "--json"]);
    assert_eq!(search.code, 1, "{}", search.stderr);
}

#[test]
fn a_truncated_last_line_is_skipped_until_it_is_whole() {
    let env = TestEnv::new();
    let whole = concat!(
        r#"{"type":"user","uuid":"a","parentUuid":null,"sessionId":"s1234567","message":{"role":"user","content":"first"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"b","parentUuid":"a","sessionId":"s1234567","message":{"role":"assistant","content":[{"type":"text","text":"second"}]}}"#,
        "\n"
    );
    let path = env.work().join("claude.jsonl");
    std::fs::write(&path, &whole[..whole.len() - 20]).unwrap();
    let cut = list_all(&env, &path, &[]);
    assert_eq!(row_seqs(&cut), [1]);
    assert_eq!(cut["skipped_lines"], 1);
    std::fs::write(&path, whole).unwrap();
    let full = list_all(&env, &path, &[]);
    assert_eq!(row_seqs(&full), [1, 2]);
    assert!(full.get("skipped_lines").is_none());
}

#[test]
fn a_50_mb_tool_output_line_lists_and_searches() {
    let env = TestEnv::new();
    // Written as JSON text directly: serializing 50 MB through serde_json in a debug build
    // would take longer than the reads under test.
    let big = format!(
        "{}needle-at-the-end",
        "0123456789abcdef\\n".repeat((50 << 20) / 18)
    );
    let text = [
        r#"{"type":"user","uuid":"a","parentUuid":null,"sessionId":"s-big-line","message":{"role":"user","content":"run it"}}"#.to_string(),
        r#"{"type":"assistant","uuid":"b","parentUuid":"a","sessionId":"s-big-line","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"yes"}}]}}"#.to_string(),
        format!(r#"{{"type":"user","uuid":"c","parentUuid":"b","sessionId":"s-big-line","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"{big}"}}]}}}}"#),
    ]
    .join("\n");
    assert!(text.len() > 50 << 20);
    let path = env.work().join("big.jsonl");
    std::fs::write(&path, text).unwrap();
    let list = list_all(&env, &path, &[]);
    assert_eq!(row_seqs(&list), [1, 2]);
    let search = history(&env, &path, &["search", "needle-at-the-end", "--json"]);
    assert_eq!(search.code, 0, "{}", search.stderr);
    let hit = &search.json()["items"][0];
    assert_eq!(hit["seq"], 2);
    assert!(hit["content"]
        .as_str()
        .unwrap()
        .starts_with("needle-at-the-end"));
}

// ----- GitHub Copilot CLI and Cursor ------------------------------------------------------------

/// One Copilot CLI event: its kind, a text, a tool call's number, and its agent (0: the main
/// agent, else a subagent's `agentId`).
fn copilot_line(i: usize, kind: u8, text: &str, call: u8, agent: u8) -> String {
    let call = format!("call_{call}");
    let data = match kind {
        0 => json!({"content": text}),
        1 => json!({"content": text, "source": "agent-parent"}),
        2 => json!({"messageId": "m", "content": text, "toolRequests": []}),
        3 => json!({"messageId": "m", "content": "", "reasoningText": text,
                     "toolRequests": [{"toolCallId": call, "name": "bash", "arguments": {"command": text}}]}),
        4 => json!({"toolCallId": call, "success": true, "result": {"content": text}}),
        5 => json!({"toolCallId": call, "success": false, "error": {"message": text}}),
        6 => json!({"success": true, "summaryContent": text}),
        7 => json!({"role": "system", "content": text}),
        8 => json!({"role": "developer", "content": text}),
        9 => {
            json!({"hookType": "userPromptSubmitted", "success": true, "output": {"additionalContext": text}})
        }
        12 => {
            json!({"sessionId": format!("s-{i}"), "startTime": "2026-01-01T00:00:00Z", "context": {"cwd": text}})
        }
        _ => json!({"text": text}),
    };
    let record_type = match kind {
        0 | 1 => "user.message",
        2 | 3 => "assistant.message",
        4 | 5 => "tool.execution_complete",
        6 => "session.compaction_complete",
        7 | 8 => "system.message",
        9 => "hook.end",
        10 => "assistant.message_delta",
        11 => "model.messages_snapshot",
        12 => "session.start",
        13 => "session.resume",
        _ => "some.future_event",
    };
    let mut record = json!({"type": record_type, "data": data, "id": format!("e{i}"),
                            "timestamp": format!("2026-01-01T00:00:{:02}Z", i % 60), "parentId": null});
    if kind == 10 {
        record["ephemeral"] = json!(true);
    }
    if agent > 0 {
        record["agentId"] = json!(format!("agent-{agent}"));
    }
    record.to_string()
}

fn copilot_records() -> impl Strategy<Value = Vec<(u8, String, u8, u8)>> {
    prop::collection::vec((0u8..15, text(), 0u8..4, 0u8..3), 0..30)
}

/// One Cursor transcript line: its kind and a text.
fn cursor_line(kind: u8, text: &str, call: u8) -> String {
    let value = match kind {
        0 => json!({"role": "user", "message": {"content": [{"type": "text", "text": text}]}}),
        1 => json!({"role": "user", "message": {"content": text}}),
        2 => json!({"role": "assistant", "message": {"content": [{"type": "text", "text": text}]}}),
        3 => json!({"role": "assistant", "message": {"content": [
            {"type": "text", "text": text},
            {"type": "tool_use", "name": "Shell", "input": {"command": text}}]}}),
        4 => json!({"role": "assistant", "message": {"content": [
            {"type": "tool_use", "id": format!("t{call}"), "name": "Read", "input": {"path": text}}]}}),
        5 => json!({"role": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": format!("t{call}"), "content": text}]}}),
        6 => json!({"type": "turn_ended", "status": "success"}),
        7 => json!({"type": "metadata", "metadata": {"overview": text}}),
        _ => json!({"type": "something_new", "text": text}),
    };
    value.to_string()
}

fn cursor_records() -> impl Strategy<Value = Vec<(u8, String, u8)>> {
    prop::collection::vec((0u8..9, text(), 0u8..3), 0..30)
}

/// [`garble`], with a replaced field put in a Copilot event's `data`.
fn garble_copilot(line: String, how: u8, field: &str, value: &Value) -> String {
    if how != 3 {
        return garble(line, how, field, value);
    }
    let mut record: Value = serde_json::from_str(&line).unwrap_or(json!({}));
    if let Some(data) = record.get_mut("data").and_then(Value::as_object_mut) {
        data.insert(field.to_string(), value.clone());
    }
    record.to_string()
}

fn copilot_field() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "type",
        "id",
        "agentId",
        "ephemeral",
        "data",
        "content",
        "source",
        "toolRequests",
        "toolCallId",
        "success",
        "result",
        "error",
        "summaryContent",
        "role",
        "output",
        "sessionId",
        "context",
        "message",
    ])
    .prop_map(String::from)
}

const COPILOT_START: &str = r#"{"type":"session.start","data":{"sessionId":"s-copilot","startTime":"2026-01-01T00:00:00Z","context":{"cwd":"/w"}},"id":"start","timestamp":"2026-01-01T00:00:00Z","parentId":null}"#;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn copilot_lines_never_panic_the_reader(
        records in copilot_records(),
        garbles in prop::collection::vec((0u8..5, copilot_field(), any_value()), 30),
        noise in "\\PC{0,80}",
    ) {
        let mut lines: Vec<String> = records.iter().enumerate()
            .map(|(i, (k, t, c, a))| copilot_line(i, *k, t, *c, *a)).collect();
        for (line, (how, field, value)) in lines.iter_mut().zip(&garbles) {
            *line = garble_copilot(std::mem::take(line), *how, field, value);
        }
        lines.insert(lines.len() / 2, noise);
        let bytes = format!("{COPILOT_START}\n{}", lines.join("\n"));
        prop_assert_eq!(detect(bytes.as_bytes()), Harness::Copilot);
        survive(bytes.into_bytes());
    }

    #[test]
    fn cursor_lines_never_panic_the_reader(
        records in cursor_records(),
        garbles in prop::collection::vec((0u8..5, field(), any_value()), 30),
        noise in "\\PC{0,80}",
    ) {
        let mut lines: Vec<String> = records.iter().map(|(k, t, c)| cursor_line(*k, t, *c)).collect();
        for (line, (how, field, value)) in lines.iter_mut().zip(&garbles) {
            *line = garble(std::mem::take(line), *how, field, value);
        }
        lines.insert(lines.len() / 2, noise);
        let bytes = format!("{}\n{}", cursor_line(0, "first", 0), lines.join("\n"));
        prop_assert_eq!(detect(bytes.as_bytes()), Harness::Cursor);
        survive(bytes.into_bytes());
    }

    #[test]
    fn copilot_seqs_are_stable_under_append(records in copilot_records(), cut in any::<prop::sample::Index>()) {
        let lines: Vec<String> = records.iter().enumerate()
            .map(|(i, (k, t, c, a))| copilot_line(i, *k, t, *c, *a)).collect();
        let bytes = format!("{COPILOT_START}\n{}\n", lines.join("\n")).into_bytes();
        check_prefix(&bytes, cut.index(bytes.len() + 1))?;
    }

    #[test]
    fn cursor_seqs_are_stable_under_append(records in cursor_records(), cut in any::<prop::sample::Index>()) {
        let lines: Vec<String> = records.iter().map(|(k, t, c)| cursor_line(*k, t, *c)).collect();
        let bytes = format!("{}\n", lines.join("\n")).into_bytes();
        check_prefix(&bytes, cut.index(bytes.len() + 1))?;
    }

    #[test]
    fn copilot_appends_read_through_the_index_equal_a_whole_read(
        records in copilot_records(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
    ) {
        let mut lines = vec![COPILOT_START.to_string()];
        lines.extend(records.iter().enumerate().map(|(i, (k, t, c, a))| copilot_line(i, *k, t, *c, *a)));
        check_appends_through_the_index(&lines, &cuts)?;
    }

    #[test]
    fn cursor_appends_read_through_the_index_equal_a_whole_read(
        records in cursor_records(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
    ) {
        let lines: Vec<String> = records.iter().map(|(k, t, c)| cursor_line(*k, t, *c)).collect();
        check_appends_through_the_index(&lines, &cuts)?;
    }
}
