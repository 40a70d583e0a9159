//! `history_list`: seq stability, anchor paging, the conversation view and its folds, rows of
//! every role, previews and the byte budget (history.md §3.4–3.7, §4.1 items 2, 3, 4, 6, 7).

use crate::common;
use common::Run;

use common::session::{
    folds, ok_json, refusal, request, request_at, rows, seq_contents, seqs, Fixture, SessionBuilder,
};
use serde_json::{json, Value};

fn pairs(list: &[(u64, &str)]) -> Vec<(u64, String)> {
    list.iter().map(|(s, t)| (*s, t.to_string())).collect()
}

#[test]
fn seq_is_stable_across_branch_changes() {
    // §4.1 item 2 (the read half lives in history_read.rs).
    let mut s = SessionBuilder::new();
    let first = s.user("first");
    s.assistant("abandoned reply");
    let f = Fixture::new(&s);
    assert_eq!(
        seq_contents(&f.list(json!({}))),
        pairs(&[(1, "first"), (2, "abandoned reply")])
    );

    s.branch_from(&first);
    s.user("new branch");
    f.rewrite(&s);
    assert_eq!(
        seq_contents(&f.list(json!({}))),
        pairs(&[(1, "first"), (3, "new branch")])
    );
}

#[test]
fn default_page_is_the_newest_rows_oldest_first() {
    // §4.1 item 3, first part.
    let mut s = SessionBuilder::new();
    for i in 1..=5 {
        s.user(&format!("message {i}"));
    }
    let f = Fixture::new(&s);
    let page = f.list(json!({"limit": 2}));
    assert_eq!(seqs(&page), [4, 5]);
    assert_eq!(page["older_before"], 4);
    assert_eq!(page["newer_after"], Value::Null);
    assert!(page.get("has_older").is_none() && page.get("has_newer").is_none());

    // Appending renumbers nothing; `before` pages back, `after` pages forward.
    s.user("message 6");
    f.rewrite(&s);
    let page = f.list(json!({"before": 5, "limit": 2}));
    assert_eq!(seqs(&page), [3, 4]);
    assert_eq!(page["older_before"], 3);
    assert_eq!(page["newer_after"], Value::Null);
    let page = f.list(json!({"after": 5, "limit": 2}));
    assert_eq!(seqs(&page), [6]);
    assert_eq!(page["older_before"], Value::Null);
    assert_eq!(page["newer_after"], Value::Null);
}

#[test]
fn combined_bounds_walk_a_range_in_three_pages() {
    // §4.1 item 3, the range walk.
    let mut s = SessionBuilder::new();
    for i in 1..=10 {
        s.user(&format!("message {i}"));
    }
    let f = Fixture::new(&s);
    let page = f.list(json!({"after": 2, "before": 10, "limit": 3}));
    assert_eq!(seqs(&page), [3, 4, 5]);
    assert_eq!(
        (page["older_before"].clone(), page["newer_after"].clone()),
        (Value::Null, json!(5))
    );
    let page = f.list(json!({"after": 5, "before": 10, "limit": 3}));
    assert_eq!(seqs(&page), [6, 7, 8]);
    assert_eq!(page["newer_after"], 8);
    let page = f.list(json!({"after": 8, "before": 10, "limit": 3}));
    assert_eq!(seqs(&page), [9]);
    assert_eq!(
        (page["older_before"].clone(), page["newer_after"].clone()),
        (Value::Null, Value::Null)
    );
}

#[test]
fn paging_back_with_older_before_visits_every_row_once() {
    let mut s = SessionBuilder::new();
    for i in 1..=23 {
        s.user(&format!("message {i}"));
    }
    let f = Fixture::new(&s);
    let mut seen = Vec::new();
    let mut before: Option<u64> = None;
    loop {
        let mut params = json!({"limit": 5});
        if let Some(b) = before {
            params["before"] = json!(b);
        }
        let page = f.list(params);
        let mut page_seqs = seqs(&page);
        page_seqs.extend(seen);
        seen = page_seqs;
        match page["older_before"].as_u64() {
            Some(b) => before = Some(b),
            None => break,
        }
    }
    assert_eq!(seen, (1..=23).collect::<Vec<u64>>());
}

/// §4.1 item 4's session: user, assistant with two calls, their results, an injected message,
/// then an empty assistant.
fn folding_session() -> SessionBuilder {
    let mut s = SessionBuilder::new();
    s.user("list the files"); // 1
    s.assistant_with_calls(
        "let me look",
        &[
            ("call-1", "bash", r#"{"command":"pwd"}"#),
            ("call-2", "read", r#"{"path":"README.md"}"#),
        ],
    ); // 2, calls 3 and 4
    s.tool_result("call-1", "bash", "ok", false); // 5
    s.tool_result("call-2", "read", "contents", false); // 6
    s.custom_message("square", "injected event"); // 7
    s.assistant(""); // 8
    s
}

#[test]
fn conversation_view_folds_tools_and_injected_messages() {
    let f = Fixture::new(&folding_session());
    let response = f.list_response(json!({}));
    let text = response["text"].as_str().unwrap();
    assert!(
        !text.contains("item_id") && !text.contains("custom_type") && !text.contains("developer")
    );
    let page = ok_json(&response);
    assert_eq!(
        page,
        json!({
            "items": [
                {"seq": 1, "window_id": "pcw:0f1e2d3c:root", "role": "user", "created_at": "2026-03-01T09:00:01.000Z",
                 "truncated": false, "total_chars": 14, "content": "list the files"},
                {"seq": 2, "window_id": "pcw:0f1e2d3c:root", "role": "assistant", "created_at": "2026-03-01T09:00:02.000Z",
                 "truncated": false, "total_chars": 11, "content": "let me look"},
                {"folded": true, "first_seq": 3, "last_seq": 7, "count": 3, "tools": {"bash": 1, "read": 1}}
            ],
            "older_before": null,
            "newer_after": null
        })
    );
    // No tool rows and no empty assistant row in the conversation view.
    assert!(rows(&page)
        .iter()
        .all(|r| r["role"] == "user" || r["role"] == "assistant"));
    assert!(!seqs(&page).contains(&8));
}

#[test]
fn folds_between_bounds_and_empty_role_pages() {
    let f = Fixture::new(&folding_session());
    let page = f.list(json!({"roles": ["context"], "before": 2}));
    assert_eq!(
        page,
        json!({"items": [], "older_before": null, "newer_after": null})
    );

    let response = f.list_response(json!({"after": 2, "before": 6}));
    assert_eq!(
        response["text"],
        json!(
            r#"{"items":[{"folded":true,"first_seq":3,"last_seq":4,"count":2,"tools":{"bash":1,"read":1}}],"older_before":null,"newer_after":null}"#
        )
    );
}

#[test]
fn explicit_roles_expand_tool_and_context_events() {
    let f = Fixture::new(&folding_session());
    let page = f.list(json!({"roles": ["tool"]}));
    let got: Vec<(u64, String, String)> = rows(&page)
        .iter()
        .map(|r| {
            (
                r["seq"].as_u64().unwrap(),
                r["role"].as_str().unwrap().to_string(),
                r["tool"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (3, "tool".into(), "bash".into()),
            (4, "tool".into(), "read".into())
        ]
    );
    assert_eq!(
        seq_contents(&page),
        pairs(&[
            (3, "bash {\"command\":\"pwd\"}\n--- output ---\nok"),
            (4, "read {\"path\":\"README.md\"}\n--- output ---\ncontents")
        ])
    );
    for row in rows(&page) {
        for absent in [
            "call_seq",
            "result_seq",
            "tool_name",
            "offset_chars",
            "tool_error",
        ] {
            assert!(row.get(absent).is_none(), "{absent} in {row}");
        }
        // A paired call is dated by its assistant message.
        assert_eq!(row["created_at"], "2026-03-01T09:00:02.000Z");
    }
    assert_eq!(
        seqs(&f.search(json!({"query": "bash", "roles": ["tool"]}))),
        [3]
    );

    let page = f.list(json!({"roles": ["context"]}));
    assert_eq!(seq_contents(&page), pairs(&[(7, "injected event")]));
    assert_eq!(rows(&page)[0]["role"], "context");
    assert!(rows(&page)[0].get("custom_type").is_none());
    assert!(rows(&page)[0].get("tool").is_none());

    // With roles, the empty assistant is a row like any other.
    let page = f.list(json!({"roles": ["assistant"]}));
    assert_eq!(seq_contents(&page), pairs(&[(2, "let me look"), (8, "")]));
    assert!(folds(&page).is_empty());
}

#[test]
fn standalone_bash_execution_row_is_exact() {
    // §4.1 item 6, history.md §3.10.
    let mut s = SessionBuilder::new();
    let id = s.bash_execution(
        "echo needle",
        "needle output",
        true,
        Some("/tmp/bash-output.txt"),
    );
    let f = Fixture::new(&s);
    let response = f.list_response(json!({"roles": ["tool"]}));
    let expected = json!({
        "items": [{
            "seq": 1, "window_id": "pcw:0f1e2d3c:root", "role": "tool", "created_at": s.timestamp(&id),
            "tool": "bash", "output_truncated": true, "full_output_path": "/tmp/bash-output.txt",
            "truncated": false, "total_chars": 59,
            "content": "bash {\"command\":\"echo needle\"}\n--- output ---\nneedle output"
        }],
        "older_before": null,
        "newer_after": null
    });
    // Exact text: field order as the contract lists it.
    assert_eq!(response["text"], json!(expected.to_string()));

    let page = f.search(json!({"query": "NEEDLE OUTPUT"}));
    assert_eq!(seqs(&page), [1]);
    let offset = rows(&page)[0]["offset_chars"].as_u64().unwrap();
    let read = f.env.tool(
        "history_read",
        &request(&f.path, json!({"seq": 1, "offset_chars": offset})),
    );
    assert!(
        read["text"]
            .as_str()
            .unwrap()
            .ends_with("\n\nneedle output"),
        "{read}"
    );
}

#[test]
fn bash_rows_never_carry_tool_error_and_show_truncation_only_when_truncated() {
    let mut s = SessionBuilder::new();
    // Untruncated with a path: no truncation fields at all.
    s.bash_execution("ls", "", false, Some("/tmp/ignored.txt"));
    // Truncated without a path: the path is present and null.
    s.bash_execution("yes", "y\ny", true, None);
    // A failing command (exitCode 1, cancelled) is still no tool_error.
    s.message(
        json!({"role": "bashExecution", "command": "false", "output": "boom", "exitCode": 1,
                     "cancelled": true, "truncated": false, "timestamp": 1}),
    );
    // A missing command: `bash {}`.
    s.message(json!({"role": "bashExecution", "output": "orphan shell", "timestamp": 1}));
    let f = Fixture::new(&s);
    let page = f.list(json!({"roles": ["tool"]}));
    let rows = rows(&page);
    assert_eq!(
        rows[0]["content"],
        "bash {\"command\":\"ls\"}\n--- output ---\n"
    );
    assert!(rows[0].get("output_truncated").is_none() && rows[0].get("full_output_path").is_none());
    assert_eq!(rows[1]["output_truncated"], true);
    assert_eq!(rows[1]["full_output_path"], Value::Null);
    assert!(rows[1]
        .as_object()
        .unwrap()
        .contains_key("full_output_path"));
    assert!(
        rows.iter().all(|r| r.get("tool_error").is_none()),
        "{rows:?}"
    );
    assert_eq!(
        rows[2]["content"],
        "bash {\"command\":\"false\"}\n--- output ---\nboom"
    );
    assert_eq!(rows[3]["content"], "bash {}\n--- output ---\norphan shell");
    assert!(rows.iter().all(|r| r["tool"] == "bash"));
}

#[test]
fn compaction_summary_is_a_folded_context_event() {
    // §4.1 item 7.
    let mut s = SessionBuilder::new();
    s.user("before");
    s.compaction("summary needle");
    s.assistant("after");
    let f = Fixture::new(&s);
    let page = f.list(json!({}));
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(
        (items[0]["role"].clone(), items[2]["role"].clone()),
        (json!("user"), json!("assistant"))
    );
    assert_eq!(
        items[1],
        json!({"folded": true, "first_seq": 2, "last_seq": 2, "count": 1, "tools": {}})
    );
    let context = f.list(json!({"roles": ["context"]}));
    assert_eq!(seq_contents(&context), pairs(&[(2, "summary needle")]));
}

#[test]
fn branch_summaries_and_summary_messages_are_context_events() {
    let mut s = SessionBuilder::new();
    let first = s.user("first"); // 1
    s.assistant("abandoned"); // 2
    s.branch_summary(Some(&first), "what the other branch did"); // 3
    s.message(json!({"role": "compactionSummary", "summary": "compaction message", "tokensBefore": 5, "timestamp": 1})); // 4
    s.message(json!({"role": "branchSummary", "summary": "branch message", "fromId": "x", "timestamp": 1})); // 5
    s.message(json!({"role": "custom", "customType": "note", "content": [{"type": "text", "text": "custom role"}], "display": true, "timestamp": 1})); // 6
    s.custom_message_content("blocks", json!([{"type": "text", "text": "a"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}, {"type": "text", "text": "b"}])); // 7
    let f = Fixture::new(&s);
    let page = f.list(json!({"roles": ["context"]}));
    assert_eq!(
        seq_contents(&page),
        pairs(&[
            (3, "what the other branch did"),
            (4, "compaction message"),
            (5, "branch message"),
            (6, "custom role"),
            (7, "a\nb")
        ])
    );
}

#[test]
fn user_and_assistant_text_joins_text_blocks_only() {
    // §4.2 contentText: text blocks joined by `\n`; images, thinking and tool calls excluded.
    let mut s = SessionBuilder::new();
    s.user_blocks(json!([
        {"type": "text", "text": "look"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "text", "text": "at this"}
    ])); // 1
    s.user_string("plain string content"); // 2
    s.assistant_content(
        r#"[{"type":"thinking","thinking":"secret thoughts","thinkingSignature":"sig"},{"type":"text","text":"one"},{"type":"toolCall","id":"c","name":"ls","arguments":{}},{"type":"text","text":"two"}]"#,
        "toolUse",
    ); // 3, call 4
    let f = Fixture::new(&s);
    let page = f.list(json!({"roles": ["user", "assistant"]}));
    assert_eq!(
        seq_contents(&page),
        pairs(&[
            (1, "look\nat this"),
            (2, "plain string content"),
            (3, "one\ntwo")
        ])
    );
    let response = f.list_response(json!({"roles": ["user", "assistant", "tool", "context"]}));
    let text = response["text"].as_str().unwrap();
    assert!(!text.contains("secret thoughts") && !text.contains("iVBORw0KGgo"));
}

#[test]
fn window_filter_limits_rows_and_folds_to_that_window() {
    let mut s = SessionBuilder::new();
    s.user("root question"); // 1
    s.assistant_with_calls("", &[("c1", "bash", r#"{"command":"ls"}"#)]); // 2, call 3
    s.tool_result("c1", "bash", "files", false); // 4
    s.reset_marker("w1");
    s.custom_message("pi-context/boot", "boot"); // 5
    s.user("window question"); // 6
    let f = Fixture::new(&s);
    let page = f.list(json!({"window_id": "w1"}));
    assert_eq!(seqs(&page), [6]);
    assert_eq!(
        folds(&page),
        [json!({"folded": true, "first_seq": 5, "last_seq": 5, "count": 1, "tools": {}})]
    );
    assert!(rows(&page).iter().all(|r| r["window_id"] == "w1"));
    let page = f.list(json!({"window_id": "pcw:0f1e2d3c:root"}));
    // The empty assistant vanishes; its call folds after the user row.
    assert_eq!(seqs(&page), [1]);
    assert_eq!(
        folds(&page),
        [json!({"folded": true, "first_seq": 3, "last_seq": 3, "count": 1, "tools": {"bash": 1}})]
    );
}

#[test]
fn folds_respect_the_anchors() {
    // A leading fold only when older_before is null; a trailing one only when newer_after is null.
    let mut s = SessionBuilder::new();
    s.custom_message("pi-context/boot", "boot"); // 1
    s.user("u2"); // 2
    s.custom_message("note", "n3"); // 3
    s.user("u4"); // 4
    s.custom_message("note", "n5"); // 5
    s.user("u6"); // 6
    s.custom_message("note", "n7"); // 7
    let f = Fixture::new(&s);
    let fold = |a: u64, b: u64| json!({"folded": true, "first_seq": a, "last_seq": b, "count": 1, "tools": {}});
    // The tail page: more rows are older, so no leading fold; the trailing fold shows.
    let page = f.list(json!({"limit": 1}));
    assert_eq!(page["items"], json!([rows(&page)[0], fold(7, 7)]));
    assert_eq!(seqs(&page), [6]);
    assert_eq!(page["older_before"], 6);
    // Paging forward from the start: the leading fold shows, the trailing one does not.
    let page = f.list(json!({"after": 1, "limit": 1}));
    assert_eq!(seqs(&page), [2]);
    assert_eq!(page["newer_after"], 2);
    assert_eq!(folds(&page), Vec::<Value>::new());
    let page = f.list(json!({"limit": 2, "before": 5}));
    assert_eq!(seqs(&page), [2, 4]);
    assert_eq!(page["older_before"], Value::Null);
    assert_eq!(folds(&page), [fold(1, 1), fold(3, 3)]);
    // Fold rows do not count toward the limit.
    assert_eq!(page["items"].as_array().unwrap().len(), 4);
}

#[test]
fn previews_are_cut_to_max_chars_per_item_in_code_points() {
    let mut s = SessionBuilder::new();
    s.user("😀İ日本👨‍👩‍👧 end");
    s.user("short");
    let f = Fixture::new(&s);
    let response = f.list_response(json!({"max_chars_per_item": 5}));
    // Compact JSON without ASCII escaping: the bytes the budget measures.
    assert!(response["text"]
        .as_str()
        .unwrap()
        .contains(r#""content":"😀İ日本👨""#));
    let page = ok_json(&response);
    let rows = rows(&page);
    assert_eq!(rows[0]["content"], "😀İ日本👨");
    assert_eq!(rows[0]["truncated"], true);
    assert_eq!(rows[0]["total_chars"], 13);
    assert_eq!(rows[1]["content"], "short");
    assert_eq!(rows[1]["truncated"], false);
    assert!(rows.iter().all(|r| r.get("offset_chars").is_none()));
}

#[test]
fn the_default_preview_is_1200_code_points_and_the_default_limit_20() {
    let mut s = SessionBuilder::new();
    for _ in 0..25 {
        s.user(&"é".repeat(1500));
    }
    let f = Fixture::new(&s);
    let page = f.list(json!({"roles": ["user"]}));
    // 20 rows of 1200 two-byte chars would not fit 32 KiB: the budget keeps the newest rows.
    let got = seqs(&page);
    assert!(got.len() < 20 && !got.is_empty());
    assert_eq!(*got.last().unwrap(), 25);
    assert_eq!(page["older_before"], got[0]);
    assert!(rows(&page)
        .iter()
        .all(|r| r["content"].as_str().unwrap().chars().count() == 1200));

    let mut s = SessionBuilder::new();
    for i in 0..25 {
        s.user(&format!("m{i}"));
    }
    let f = Fixture::new(&s);
    assert_eq!(seqs(&f.list(json!({}))), (6..=25).collect::<Vec<u64>>());
}

#[test]
fn a_budget_cut_ascending_page_keeps_the_oldest_rows_and_points_newer() {
    let mut s = SessionBuilder::new();
    for _ in 0..10 {
        s.user(&"x".repeat(10_000));
    }
    let f = Fixture::new(&s);
    let page = f.list(json!({"after": 2, "max_chars_per_item": 10_000}));
    let got = seqs(&page);
    assert_eq!(got, [3, 4, 5]);
    assert_eq!(page["newer_after"], 5);
    assert_eq!(page["older_before"], Value::Null);
}

#[test]
fn a_single_row_larger_than_the_budget_is_cut_and_marked() {
    let mut s = SessionBuilder::new();
    s.user("small");
    let big: String = "界😀a".repeat(20_000); // 60,000 code points, 160,000 bytes
    s.user(&big);
    let f = Fixture::new(&s);
    let response = f.list_response(json!({"max_chars_per_item": 50_000}));
    let text = response["text"].as_str().unwrap();
    assert!(text.len() <= 32 * 1024);
    assert!(
        text.len() > 30 * 1024,
        "the cut keeps the longest prefix that fits: {}",
        text.len()
    );
    let page = ok_json(&response);
    let rows = rows(&page);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["seq"], 2);
    assert_eq!(rows[0]["truncated"], true);
    assert_eq!(rows[0]["total_chars"], 60_000);
    let content = rows[0]["content"].as_str().unwrap();
    assert!(!content.is_empty() && big.starts_with(content));
    assert_eq!(page["older_before"], 2);
}

#[test]
fn a_huge_tool_name_is_cut_too_when_the_row_cannot_fit() {
    let mut s = SessionBuilder::new();
    let name = "n".repeat(40_000);
    s.assistant_with_calls("", &[("c", name.as_str(), "{}")]);
    let f = Fixture::new(&s);
    let response = f.list_response(json!({"roles": ["tool"]}));
    assert!(response["text"].as_str().unwrap().len() <= 32 * 1024);
    let page = ok_json(&response);
    let row = &rows(&page)[0];
    assert_eq!(row["truncated"], true);
    assert_eq!(row["total_chars"], 40_003);
    let tool = row["tool"].as_str().unwrap();
    assert!(
        tool.len() < 40_000 && tool.starts_with("nnn") && tool.ends_with("nnn"),
        "{tool:.80}"
    );
}

#[test]
fn invalid_list_parameters_are_refused() {
    let mut s = SessionBuilder::new();
    s.user("x");
    let f = Fixture::new(&s);
    for params in [
        json!({"roles": []}),
        json!({"roles": ["tool_call"]}),
        json!({"roles": ["system"]}),
        json!({"tool_name": "bash"}),
        json!({"before": 0}),
        json!({"after": 0}),
        json!({"limit": 0}),
        json!({"limit": "3"}),
        json!({"max_chars_per_item": 0}),
        json!({"around": 3}),
        json!({"window_id": ""}),
    ] {
        let response = f.list_response(params.clone());
        assert_eq!(refusal(&response)["code"], "invalid_params", "{params}");
    }
}

#[test]
fn an_unknown_window_id_is_refused_with_the_known_windows() {
    let mut s = SessionBuilder::new();
    s.user("x");
    s.reset_marker("w1");
    let f = Fixture::new(&s);
    let error = refusal(&f.list_response(json!({"window_id": "nope"})));
    assert_eq!(
        error,
        json!({"code": "unknown_window_id", "message": "unknown window_id \"nope\"", "window_id": "nope",
               "known_windows": ["pcw:0f1e2d3c:root", "w1"]})
    );
}

#[test]
fn an_unknown_window_id_names_at_most_25_windows() {
    let mut s = SessionBuilder::new();
    for i in 0..30 {
        s.reset_marker(&format!("w{i}"));
    }
    let f = Fixture::new(&s);
    let error = refusal(&f.list_response(json!({"window_id": "nope"})));
    assert_eq!(error["code"], "unknown_window_id");
    assert_eq!(error["known_windows"].as_array().unwrap().len(), 25);
    assert_eq!(error["known_windows"][0], "pcw:0f1e2d3c:root");
    assert_eq!(error["known_windows_omitted"], 6);
}

#[test]
fn list_details_carry_cursors_not_content() {
    let mut s = SessionBuilder::new();
    for i in 0..3 {
        s.user(&format!("secret {i}"));
    }
    let f = Fixture::new(&s);
    let response = f.list_response(json!({"limit": 2}));
    let details = response["details"].to_string();
    assert!(!details.contains("secret"), "{details}");
    assert_eq!(response["details"]["older_before"], 2);
    assert_eq!(response["details"]["newer_after"], Value::Null);
}

#[test]
fn an_off_branch_leaf_lists_that_branch() {
    let mut s = SessionBuilder::new();
    let first = s.user("first");
    let abandoned = s.assistant("abandoned reply");
    s.branch_from(&first);
    s.user("new branch");
    let f = Fixture::new(&s);
    let page = ok_json(&f.env.tool(
        "history_list",
        &request_at(&f.path, Some(&abandoned), json!({})),
    ));
    assert_eq!(
        seq_contents(&page),
        pairs(&[(1, "first"), (2, "abandoned reply")])
    );
}

#[test]
fn anchors_are_relative_to_the_window_filter() {
    let mut s = SessionBuilder::new();
    s.user("r1"); // 1
    s.user("r2"); // 2
    s.reset_marker("w1");
    s.user("a3"); // 3
    s.user("a4"); // 4
    let f = Fixture::new(&s);
    let page = f.list(json!({"window_id": "w1", "limit": 1}));
    assert_eq!(
        (seqs(&page), page["older_before"].clone()),
        (vec![4], json!(4))
    );
    let page = f.list(json!({"window_id": "w1", "limit": 1, "before": 4}));
    assert_eq!(
        (seqs(&page), page["older_before"].clone()),
        (vec![3], Value::Null)
    );
    let page = f.list(json!({"window_id": "pcw:0f1e2d3c:root", "after": 1}));
    assert_eq!(
        (seqs(&page), page["newer_after"].clone()),
        (vec![2], Value::Null)
    );
}

#[test]
fn fold_tool_counts_name_every_kind_of_tool_event() {
    let mut s = SessionBuilder::new();
    s.user("start"); // 1
    s.assistant_content(r#"[{"type":"toolCall","id":"n"}]"#, "toolUse"); // 2 (empty), call 3
    s.bash_execution("ls", "x", false, None); // 4
    s.assistant_with_calls("", &[("b", "bash", r#"{"command":"pwd"}"#)]); // 5 (empty), call 6
    s.tool_result("b", "bash", "/", false); // 7 (consumed)
    s.tool_result("lost", "edit", "orphan", false); // 8
    s.message(json!({"role": "toolResult", "toolCallId": "lost2", "content": [], "isError": false, "timestamp": 1})); // 9
    s.custom_message("note", "context"); // 10
    s.user(""); // 11: an empty user message is no row either
    s.user("end"); // 12
    let f = Fixture::new(&s);
    let page = f.list(json!({}));
    assert_eq!(seqs(&page), [1, 12]);
    assert_eq!(
        folds(&page),
        [
            json!({"folded": true, "first_seq": 3, "last_seq": 10, "count": 6, "tools": {"bash": 2, "edit": 1, "unknown": 2}})
        ]
    );
    assert_eq!(seqs(&f.list(json!({"roles": ["user"]}))), [1, 11, 12]);
}

#[test]
fn fold_rows_of_huge_tool_names_are_cut_to_fit_the_budget() {
    let mut s = SessionBuilder::new();
    let long = "t".repeat(40_000);
    s.assistant_with_calls("", &[("c1", &long, "{}"), ("c2", "read", "{}")]);
    s.tool_result("c1", &long, "ok", false);
    let f = Fixture::new(&s);
    // `TestEnv::tool` checks that the text fits 32 KiB.
    let page = f.list(json!({}));
    let folds = folds(&page);
    assert_eq!(folds.len(), 1, "{page}");
    let tools = folds[0]["tools"].as_object().unwrap();
    assert_eq!(tools["read"], 1);
    let (cut, count) = tools.iter().find(|(name, _)| *name != "read").unwrap();
    assert!(
        cut.starts_with("tttt") && cut.contains("…[truncated "),
        "{cut}"
    );
    assert_eq!(*count, 1);
}

#[test]
fn skipped_lines_count_against_the_budget() {
    let mut s = SessionBuilder::new();
    s.user("a question");
    s.raw_line("not json at all");
    let f = Fixture::new(&s);
    let run = |budget: usize| {
        f.env
            .cmd()
            .args([
                "history",
                "list",
                "--json",
                "--max-bytes",
                &budget.to_string(),
                "--session",
            ])
            .arg(&f.path)
            .run()
    };
    let full = run(32_768).success();
    let full = full.stdout;
    assert!(full.contains("\"skipped_lines\":1"), "{full}");
    let size = full.trim_end().len();
    for budget in size - 30..=size {
        let output = run(budget);
        let stdout = output.stdout;
        assert!(
            stdout.trim_end().len() <= budget,
            "budget {budget}: {} bytes: {stdout}",
            stdout.trim_end().len()
        );
    }
}
