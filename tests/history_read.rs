//! `history_read`: the READ WINDOW block, refusals in contract order, tool documents and
//! pairing, offsets and the byte budget (contract §2.5–2.7; history.md §3.3, §3.9, §4.1 items
//! 2, 5, 11).

use crate::common;

use common::session::{
    chars, ok_json, pairing_session, parse_block, read_text, refusal, request, request_at, rows,
    Fixture, SessionBuilder,
};
use serde_json::json;

#[test]
fn read_window_block_is_exact() {
    let mut s = SessionBuilder::new();
    s.user("hello wörld");
    let f = Fixture::new(&s);
    let response = f.response(json!({"seq": 1, "offset_chars": 2, "limit_chars": 3}));
    assert_eq!(
        response,
        json!({
            "text": "--- READ WINDOW ---\nseq: 1\nwindow_id: pcw:0f1e2d3c:root\nchars: [2,5) of 11\nnext_offset_chars: 5\n\nllo",
            "details": {"seq": 1, "window_id": "pcw:0f1e2d3c:root", "offset_chars": 2, "total_chars": 11, "next_offset_chars": 5},
            "is_error": false
        })
    );
    // The whole document: next is null.
    assert_eq!(
        read_text(&f.response(json!({"seq": 1}))),
        "--- READ WINDOW ---\nseq: 1\nwindow_id: pcw:0f1e2d3c:root\nchars: [0,11) of 11\nnext_offset_chars: null\n\nhello wörld"
    );
}

#[test]
fn abandoned_branches_are_unreadable_and_seqs_beyond_the_file_unknown() {
    // §4.1 item 2.
    let mut s = SessionBuilder::new();
    let first = s.user("first");
    let abandoned = s.assistant("abandoned reply");
    s.branch_from(&first);
    s.user("new branch");
    let f = Fixture::new(&s);

    let response = f.response(json!({"seq": 2}));
    let error = refusal(&response);
    assert_eq!(
        error,
        json!({"code": "not_on_branch", "message": "seq 2 is on another branch and is not readable here", "seq": 2})
    );
    assert!(!response.to_string().contains("abandoned"), "{response}");

    let error = refusal(&f.response(json!({"seq": 4})));
    assert_eq!(error["code"], "unknown_seq");
    assert!(
        error["message"].as_str().unwrap().contains("run 1..3"),
        "{error}"
    );
    assert_eq!(
        (error["seq"].clone(), error["highest_seq"].clone()),
        (json!(4), json!(3))
    );

    // The current branch reads fine; the abandoned leaf reads its own branch and not ours.
    assert_eq!(f.block(json!({"seq": 3})).content, "new branch");
    let at_abandoned = |seq: u64| {
        f.env.tool(
            "history_read",
            &request_at(&f.path, Some(&abandoned), json!({"seq": seq})),
        )
    };
    assert_eq!(
        parse_block(&read_text(&at_abandoned(2))).content,
        "abandoned reply"
    );
    assert_eq!(refusal(&at_abandoned(3))["code"], "not_on_branch");
}

#[test]
fn off_branch_text_never_leaks_from_any_operation() {
    let mut s = SessionBuilder::new();
    let first = s.user("shared root");
    s.assistant_with_calls(
        "SECRET-ASSISTANT",
        &[("secret-call", "bash", r#"{"command":"echo SECRET-ARGS"}"#)],
    ); // 2, call 3
    s.tool_result("secret-call", "bash", "SECRET-OUTPUT", false); // 4
    s.custom_message("note", "SECRET-CONTEXT"); // 5
    s.branch_from(&first);
    s.user("visible"); // 6
    let f = Fixture::new(&s);
    for seq in 2..=5 {
        for offset in [0, -3, 5] {
            let response = f.response(json!({"seq": seq, "offset_chars": offset}));
            assert_eq!(refusal(&response)["code"], "not_on_branch", "seq {seq}");
            assert!(!response.to_string().contains("SECRET"), "{response}");
        }
    }
    let all_roles = json!(["user", "assistant", "tool", "context"]);
    for (tool, params) in [
        ("history_list", json!({"roles": all_roles})),
        ("history_list", json!({})),
        ("history_search", json!({"query": "secret"})),
        ("history_windows", json!({})),
    ] {
        let response = f.env.tool(tool, &request(&f.path, params));
        assert!(
            !response.to_string().to_lowercase().contains("secret"),
            "{tool}: {response}"
        );
    }
}

#[test]
fn unknown_seq_on_an_empty_session_says_it_has_no_items() {
    let mut s = SessionBuilder::new();
    s.custom("other-extension/state", json!({}));
    for f in [Fixture::new(&SessionBuilder::new()), Fixture::new(&s)] {
        let error = refusal(&f.response(json!({"seq": 1})));
        assert_eq!(
            error,
            json!({"code": "unknown_seq", "message": "unknown seq 1: this session has no items yet", "seq": 1, "highest_seq": 0})
        );
    }
}

#[test]
fn unknown_seq_comes_before_not_on_branch_and_offsets() {
    let mut s = SessionBuilder::new();
    s.user("x");
    let f = Fixture::new(&s);
    let error = refusal(&f.response(json!({"seq": 99, "offset_chars": 1000})));
    assert_eq!(
        error,
        json!({"code": "unknown_seq", "message": "unknown seq 99: this session's items run 1..1", "seq": 99, "highest_seq": 1})
    );
    // An empty branch: seq 1 exists in the file but not on the branch.
    let response = f.env.tool(
        "history_read",
        &request_at(
            &f.path,
            Some("none"),
            json!({"seq": 1, "offset_chars": 1000}),
        ),
    );
    assert_eq!(refusal(&response)["code"], "not_on_branch");
}

#[test]
fn offsets_past_the_end_are_refused_with_the_total() {
    let mut s = SessionBuilder::new();
    s.user("héllo");
    let f = Fixture::new(&s);
    let error = refusal(&f.response(json!({"seq": 1, "offset_chars": 6})));
    assert_eq!(
        error,
        json!({
            "code": "invalid_offset",
            "message": "offset_chars 6 is past the end: the item has 5 chars; the largest legal offset is 5 (an empty end-read)",
            "seq": 1, "window_id": "pcw:0f1e2d3c:root", "offset_chars": 6, "total_chars": 5
        })
    );
    // The end itself is an empty read.
    let block = f.block(json!({"seq": 1, "offset_chars": 5}));
    assert_eq!(
        (block.start, block.end, block.total, block.next),
        (5, 5, 5, None)
    );
    assert_eq!(block.content, "");
}

#[test]
fn negative_offsets_count_from_the_end() {
    let mut s = SessionBuilder::new();
    s.user("0123456789abcdefghij"); // 20 chars
    let f = Fixture::new(&s);
    let block = f.block(json!({"seq": 1, "offset_chars": -10}));
    assert_eq!((block.start, block.end, block.next), (10, 20, None));
    assert_eq!(block.content, "abcdefghij");
    let block = f.block(json!({"seq": 1, "offset_chars": -10, "limit_chars": 4}));
    assert_eq!((block.start, block.end, block.next), (10, 14, Some(14)));
    assert_eq!(block.content, "abcd");
    // Below -total starts at 0.
    let block = f.block(json!({"seq": 1, "offset_chars": -1000, "limit_chars": 3}));
    assert_eq!((block.start, block.content.as_str()), (0, "012"));
}

#[test]
fn limit_chars_is_bounded_by_the_schema() {
    let mut s = SessionBuilder::new();
    s.user("x");
    let f = Fixture::new(&s);
    for params in [
        json!({"seq": 1, "limit_chars": 0}),
        json!({"seq": 1, "limit_chars": 50_001}),
        json!({"seq": 0}),
        json!({}),
        json!({"seq": "1"}),
        json!({"seq": 1, "window_id": "pcw:0f1e2d3c:root"}),
        json!({"seq": 1, "item_id": 1}),
        json!({"seq": 1.5}),
    ] {
        assert_eq!(
            refusal(&f.response(params.clone()))["code"],
            "invalid_params",
            "{params}"
        );
    }
}

#[test]
fn the_default_window_is_12000_code_points() {
    let mut s = SessionBuilder::new();
    s.user(&"ab".repeat(10_000));
    let f = Fixture::new(&s);
    let block = f.block(json!({"seq": 1}));
    assert_eq!(
        (block.start, block.end, block.total, block.next),
        (0, 12_000, 20_000, Some(12_000))
    );
    assert_eq!(chars(&block.content), 12_000);
}

#[test]
fn a_64_kib_event_reads_back_exactly_across_windows() {
    // §4.1 item 11.
    let mut s = SessionBuilder::new();
    s.user("before");
    let big = "z".repeat(65_536);
    s.user(&big);
    let f = Fixture::new(&s);
    let list = ok_json(&f.env.tool(
        "history_list",
        &request(&f.path, json!({"max_chars_per_item": 1, "limit": 1})),
    ));
    let seq = rows(&list)[0]["seq"].as_u64().unwrap();
    assert_eq!(seq, 2);

    let response = f.response(json!({"seq": seq, "limit_chars": 50_000}));
    let text = read_text(&response);
    assert!(text.len() <= 32 * 1024);
    assert!(text.starts_with(&format!("--- READ WINDOW ---\nseq: {seq}\nwindow_id: ")));
    let details = response["details"].as_object().unwrap();
    assert_eq!(
        details.keys().collect::<Vec<_>>(),
        [
            "seq",
            "window_id",
            "offset_chars",
            "total_chars",
            "next_offset_chars"
        ]
    );
    assert_eq!(details["total_chars"], 65_536);
    let next = details["next_offset_chars"].as_u64().expect("more to read");
    let first = parse_block(&text);
    assert!(!first.content.is_empty());
    assert_eq!(first.end as u64, next);
    assert_eq!(first.content.len(), next as usize);

    let second = f.block(json!({"seq": seq, "offset_chars": next, "limit_chars": 50_000}));
    assert_eq!(second.start as u64, next);
    assert_eq!(
        format!("{}{}", first.content, second.content),
        big[..second.end]
    );
    // Following next to the end rebuilds the whole event.
    assert_eq!(f.document(seq), big);
}

#[test]
fn a_multibyte_event_is_rebuilt_exactly_by_following_next_offset_chars() {
    let mut s = SessionBuilder::new();
    let unit = "😀👨\u{200d}👩\u{200d}👧İ日本語e\u{301}\n\t\"\\ ";
    let big: String = unit.repeat(65_536 / unit.len() + 1);
    assert!(big.len() > 64 * 1024);
    s.user(&big);
    let f = Fixture::new(&s);
    let mut offset = 0;
    let mut rebuilt = String::new();
    let mut windows = 0;
    loop {
        let response = f.response(json!({"seq": 1, "offset_chars": offset, "limit_chars": 50_000}));
        let text = read_text(&response);
        assert!(text.len() <= 32 * 1024);
        let block = parse_block(&text);
        assert_eq!(block.start, offset);
        assert_eq!(block.end, offset + chars(&block.content));
        assert_eq!(block.total, chars(&big));
        assert_eq!(response["details"]["next_offset_chars"], json!(block.next));
        assert!(!response["details"].to_string().contains("日本語"));
        rebuilt.push_str(&block.content);
        windows += 1;
        match block.next {
            Some(next) => offset = next,
            None => break,
        }
    }
    assert!(windows >= 3, "{windows} windows");
    assert_eq!(rebuilt, big);
}

#[test]
fn tool_events_pair_calls_and_results() {
    let f = Fixture::new(&pairing_session());
    let page = ok_json(&f.env.tool(
        "history_list",
        &request(&f.path, json!({"roles": ["tool"]})),
    ));
    let rows = rows(&page);
    let seqs: Vec<u64> = rows.iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [2, 5, 6]);
    assert_eq!(
        rows.iter()
            .map(|r| r["content"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [
            "edit {\"path\":\"😀.md\",\"oldText\":\"before\"}\n--- output ---\nreplacement OK",
            "edit {\"path\":\"pending.md\"}",
            "edit {}\n--- output ---\norphan output",
        ]
    );
    assert_eq!(rows[0]["tool_error"], true);
    assert!(rows[1].get("tool_error").is_none() && rows[2].get("tool_error").is_none());
    for row in &rows {
        assert_eq!(row["tool"], "edit");
        assert!(row.get("tool_name").is_none());
    }
}

#[test]
fn reading_a_consumed_result_serves_its_call() {
    let f = Fixture::new(&pairing_session());
    let call = read_text(&f.response(json!({"seq": 2})));
    let result = f.response(json!({"seq": 3}));
    let text = read_text(&result);
    assert!(text.contains("seq: 2\n"), "{text}");
    assert_eq!(text, call);
    assert_eq!(result["details"]["seq"], 2);
    assert_eq!(
        parse_block(&text).content,
        "edit {\"path\":\"😀.md\",\"oldText\":\"before\"}\n--- output ---\nreplacement OK"
    );
    // The pending call has no output section; the orphan reads at its own seq.
    assert_eq!(
        f.block(json!({"seq": 5})).content,
        "edit {\"path\":\"pending.md\"}"
    );
    assert_eq!(
        f.block(json!({"seq": 6})).content,
        "edit {}\n--- output ---\norphan output"
    );
    // A consumed result past its end: the offset is checked against the call's document.
    let total =
        chars("edit {\"path\":\"😀.md\",\"oldText\":\"before\"}\n--- output ---\nreplacement OK");
    let error = refusal(&f.response(json!({"seq": 3, "offset_chars": total + 1})));
    assert_eq!(error["code"], "invalid_offset");
    assert_eq!(error["seq"], 2);
    assert_eq!(error["total_chars"], total);
}

#[test]
fn pairing_takes_the_first_unconsumed_result_after_the_call() {
    let mut s = SessionBuilder::new();
    s.tool_result("early", "read", "result before its call", false); // 1: orphan
    s.assistant_with_calls("", &[("early", "read", r#"{"path":"a"}"#)]); // 2, call 3
    s.tool_result("early", "read", "first answer", false); // 4: pairs with 3
    s.tool_result("early", "read", "duplicate answer", false); // 5: orphan
    s.assistant_with_calls("", &[("early", "read", r#"{"path":"b"}"#)]); // 6, call 7
    s.tool_result("early", "read", "second call's answer", false); // 8: pairs with 7
    let f = Fixture::new(&s);
    let page = ok_json(&f.env.tool(
        "history_list",
        &request(&f.path, json!({"roles": ["tool"]})),
    ));
    assert_eq!(
        common::session::seq_contents(&page),
        [
            (
                1,
                "read {}\n--- output ---\nresult before its call".to_string()
            ),
            (
                3,
                "read {\"path\":\"a\"}\n--- output ---\nfirst answer".to_string()
            ),
            (5, "read {}\n--- output ---\nduplicate answer".to_string()),
            (
                7,
                "read {\"path\":\"b\"}\n--- output ---\nsecond call's answer".to_string()
            ),
        ]
    );
    assert_eq!(
        f.block(json!({"seq": 4})).identity[0],
        ("seq".to_string(), "3".to_string())
    );
    assert_eq!(
        f.block(json!({"seq": 8})).identity[0],
        ("seq".to_string(), "7".to_string())
    );
    assert_eq!(
        f.block(json!({"seq": 5})).identity[0],
        ("seq".to_string(), "5".to_string())
    );
}

#[test]
fn parallel_calls_take_seqs_in_content_order() {
    let mut s = SessionBuilder::new();
    s.user("go"); // 1
    s.assistant_with_calls(
        "three at once",
        &[
            ("a", "read", r#"{"path":"1"}"#),
            ("b", "grep", r#"{"q":"2"}"#),
            ("c", "ls", "{}"),
        ],
    ); // 2, calls 3 4 5
    s.tool_result("c", "ls", "out c", false); // 6
    s.tool_result("a", "read", "out a", false); // 7
    s.user("next"); // 8
    let f = Fixture::new(&s);
    assert_eq!(
        f.block(json!({"seq": 3})).content,
        "read {\"path\":\"1\"}\n--- output ---\nout a"
    );
    assert_eq!(f.block(json!({"seq": 4})).content, "grep {\"q\":\"2\"}");
    assert_eq!(
        f.block(json!({"seq": 5})).content,
        "ls {}\n--- output ---\nout c"
    );
    assert_eq!(f.block(json!({"seq": 6})).identity[0].1, "5");
    assert_eq!(f.block(json!({"seq": 7})).identity[0].1, "3");
    assert_eq!(f.block(json!({"seq": 8})).content, "next");
}

#[test]
fn tool_arguments_are_the_exact_bytes_pi_wrote() {
    // Key order, escapes and number spelling are kept verbatim: offsets match what Pi recorded.
    let arguments = r#"{"z":1,"a":"tab\there \u00e9 é \u2028","n":1e+21,"neg":-0,"nested":{"b":[1.50,true,null]}}"#;
    let mut s = SessionBuilder::new();
    s.assistant_with_calls("", &[("c1", "write", arguments)]); // 1, call 2
    s.tool_result("c1", "write", "done", false); // 3
    let f = Fixture::new(&s);
    assert!(s.text().contains(arguments));
    let expected = format!("write {arguments}\n--- output ---\ndone");
    assert_eq!(f.block(json!({"seq": 2})).content, expected);
    let page = ok_json(&f.env.tool(
        "history_search",
        &request(&f.path, json!({"query": "DONE"})),
    ));
    assert_eq!(rows(&page)[0]["offset_chars"], chars(&expected) - 4);
    assert_eq!(rows(&page)[0]["total_chars"], chars(&expected));
}

#[test]
fn a_call_without_name_or_arguments_reads_as_unknown_with_empty_arguments() {
    let mut s = SessionBuilder::new();
    s.assistant_content(r#"[{"type":"toolCall","id":"nameless"}]"#, "toolUse"); // 1, call 2
    s.tool_result("nameless", "ignored-result-name", "out", false); // 3
    s.message(json!({"role": "toolResult", "toolCallId": "no-call", "content": [{"type": "text", "text": "x"}], "isError": false, "timestamp": 1})); // 4
    let f = Fixture::new(&s);
    assert_eq!(
        f.block(json!({"seq": 2})).content,
        "unknown {}\n--- output ---\nout"
    );
    assert_eq!(
        f.block(json!({"seq": 4})).content,
        "unknown {}\n--- output ---\nx"
    );
    let page = ok_json(&f.env.tool(
        "history_list",
        &request(&f.path, json!({"roles": ["tool"]})),
    ));
    assert_eq!(rows(&page)[0]["tool"], "unknown");
    assert_eq!(rows(&page)[1]["tool"], "unknown");
}

#[test]
fn a_bash_document_quotes_the_command_as_written() {
    let mut s = SessionBuilder::new();
    s.bash_execution("echo \"hi\" | grep é", "", false, None);
    let f = Fixture::new(&s);
    assert_eq!(
        f.block(json!({"seq": 1})).content,
        "bash {\"command\":\"echo \\\"hi\\\" | grep é\"}\n--- output ---\n"
    );
}

#[test]
fn a_read_larger_than_the_budget_delivers_the_longest_fitting_prefix() {
    let mut s = SessionBuilder::new();
    let big = "界".repeat(30_000); // 90,000 bytes
    s.user(&big);
    let f = Fixture::new(&s);
    let response = f.response(json!({"seq": 1, "limit_chars": 50_000}));
    let text = read_text(&response);
    assert!(text.len() <= 32 * 1024);
    // One more code point (3 bytes) would not fit.
    assert!(text.len() + 3 > 32 * 1024, "{} bytes", text.len());
    let block = parse_block(&text);
    assert_eq!(block.next, Some(block.end));
    assert!(big.starts_with(&block.content));
}

#[test]
fn read_details_never_carry_content() {
    let mut s = SessionBuilder::new();
    s.user("the secret content");
    let f = Fixture::new(&s);
    let response = f.response(json!({"seq": 1}));
    assert!(!response["details"].to_string().contains("secret"));
}

#[test]
fn repeated_call_ids_pair_in_seq_order() {
    let mut s = SessionBuilder::new();
    // Two calls with one id in one message, then their two results.
    s.assistant_with_calls(
        "",
        &[
            ("same", "read", r#"{"n":1}"#),
            ("same", "read", r#"{"n":2}"#),
        ],
    ); // 1, calls 2 3
    s.tool_result("same", "read", "first", false); // 4
    s.tool_result("same", "read", "second", false); // 5
                                                    // A call whose id's only later result is taken by an earlier call stays pending.
    s.assistant_with_calls("", &[("x", "grep", r#"{"a":1}"#)]); // 6, call 7
    s.assistant_with_calls("", &[("x", "grep", r#"{"b":2}"#)]); // 8, call 9
    s.tool_result("x", "grep", "only result", false); // 10
    let f = Fixture::new(&s);
    assert_eq!(
        f.block(json!({"seq": 2})).content,
        "read {\"n\":1}\n--- output ---\nfirst"
    );
    assert_eq!(
        f.block(json!({"seq": 3})).content,
        "read {\"n\":2}\n--- output ---\nsecond"
    );
    assert_eq!(
        f.block(json!({"seq": 7})).content,
        "grep {\"a\":1}\n--- output ---\nonly result"
    );
    assert_eq!(f.block(json!({"seq": 9})).content, "grep {\"b\":2}");
    assert_eq!(f.block(json!({"seq": 10})).identity[0].1, "7");
}

#[test]
fn a_result_across_a_window_boundary_stays_with_its_call() {
    let mut s = SessionBuilder::new();
    s.assistant_with_calls("", &[("c", "bash", r#"{"command":"sleep 1"}"#)]); // 1, call 2
    s.reset_marker("w1");
    s.tool_result("c", "bash", "late", false); // 3
    s.user("in w1"); // 4
    let f = Fixture::new(&s);
    let block = f.block(json!({"seq": 3}));
    assert_eq!(
        block.identity,
        [
            ("seq".to_string(), "2".to_string()),
            ("window_id".to_string(), "pcw:0f1e2d3c:root".to_string())
        ]
    );
    assert_eq!(
        block.content,
        "bash {\"command\":\"sleep 1\"}\n--- output ---\nlate"
    );
    let windows = ok_json(&f.env.tool("history_windows", &request(&f.path, json!({}))));
    assert_eq!(windows["windows"][0]["item_count"], 2);
    assert_eq!(windows["windows"][1]["item_count"], 1);
    assert_eq!(windows["windows"][1]["first_seq"], 4);
}

#[test]
fn extreme_offsets_are_handled() {
    let mut s = SessionBuilder::new();
    s.user("abc");
    let f = Fixture::new(&s);
    let block = f.block(json!({"seq": 1, "offset_chars": i64::MIN}));
    assert_eq!((block.start, block.content.as_str()), (0, "abc"));
    let error = refusal(&f.response(json!({"seq": 1, "offset_chars": i64::MAX})));
    assert_eq!(error["code"], "invalid_offset");
    assert_eq!(error["offset_chars"], i64::MAX);
    assert_eq!(
        refusal(&f.response(json!({"seq": u64::MAX})))["code"],
        "unknown_seq"
    );
}
