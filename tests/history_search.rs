//! `history_search`: case-insensitive literal matching, Unicode offsets, filters, anchor
//! paging and query validation (history.md §3.7–3.8, §4.1 items 5, 8, 9, 10).

use crate::common;

use common::session::{
    chars, ok_json, pairing_session, refusal, rows, seqs, Fixture, SessionBuilder,
};
use serde_json::{json, Value};

#[test]
fn search_finds_paired_pending_and_orphan_tool_events() {
    let f = Fixture::new(&pairing_session());
    assert_eq!(f.hits(json!("edit")), [2, 5, 6]);
    assert_eq!(f.hits(json!("pending.md")), [5]);
    assert_eq!(f.hits(json!("orphan output")), [6]);

    let page = f.search(json!({"query": "replacement ok", "max_chars_per_item": 14}));
    let rows = rows(&page);
    assert_eq!(seqs(&page), [2]);
    assert_eq!(rows[0]["content"], "replacement OK");
    assert_eq!(rows[0]["tool"], "edit");
    assert_eq!(rows[0]["tool_error"], true);
    let offset = rows[0]["offset_chars"].as_u64().unwrap();
    // `edit {"path":"😀.md","oldText":"before"}\n--- output ---\n` in code points.
    assert_eq!(
        offset,
        chars("edit {\"path\":\"😀.md\",\"oldText\":\"before\"}\n--- output ---\n") as u64
    );
    assert_eq!(f.read(2, offset, None), "replacement OK");
}

#[test]
fn search_covers_every_role_and_filters() {
    // §4.1 item 8.
    let mut s = SessionBuilder::new();
    s.user("a needle from the user"); // 1
    s.custom_message("pi-context/boot", "boot needle"); // 2
    s.assistant("assistant needle"); // 3
    let f = Fixture::new(&s);
    let page = f.search(json!({"query": "needle"}));
    let rows = rows(&page);
    let roles: Vec<&str> = rows.iter().map(|r| r["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "context", "assistant"]);
    for row in &rows {
        assert!(row["seq"].is_u64() && row["offset_chars"].is_u64(), "{row}");
        assert!(row.get("folded").is_none());
    }
    assert_eq!(
        rows.iter()
            .map(|r| r["offset_chars"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [2, 5, 10]
    );

    let context = f.search(json!({"query": "needle", "roles": ["context"]}));
    assert_eq!(seqs(&context), [2]);
    assert!(common::session::rows(&context)[0]
        .get("custom_type")
        .is_none());

    let page = f.search(json!({"query": "needle", "after": 1, "limit": 1}));
    assert_eq!(seqs(&page), [2]);
    assert_eq!(page["newer_after"], 2);
    let page = f.search(json!({"query": "needle", "after": 2, "limit": 2}));
    assert_eq!(seqs(&page), [3]);
    assert_eq!(page["newer_after"], Value::Null);
}

#[test]
fn search_pages_follow_newer_after_through_a_range() {
    // §4.1 item 9.
    let mut s = SessionBuilder::new();
    for i in 1..=10 {
        s.user(&format!("needle {i}"));
    }
    let f = Fixture::new(&s);
    let page = f.search(json!({"query": "needle", "after": 2, "before": 10, "limit": 3}));
    assert_eq!(seqs(&page), [3, 4, 5]);
    assert_eq!(
        (page["older_before"].clone(), page["newer_after"].clone()),
        (Value::Null, json!(5))
    );
    let page = f.search(json!({"query": "needle", "after": 5, "before": 10, "limit": 3}));
    assert_eq!(seqs(&page), [6, 7, 8]);
    assert_eq!(page["newer_after"], 8);
    let page = f.search(json!({"query": "needle", "after": 8, "before": 10, "limit": 3}));
    assert_eq!(seqs(&page), [9]);
    assert_eq!(page["newer_after"], Value::Null);

    // Without bounds: the newest hits, with a cursor to older ones.
    let page = f.search(json!({"query": "needle", "limit": 4}));
    assert_eq!(seqs(&page), [7, 8, 9, 10]);
    assert_eq!(page["older_before"], 7);
}

#[test]
fn previews_start_at_case_insensitive_literal_matches_in_unicode_text() {
    // §4.1 item 10.
    let mut s = SessionBuilder::new();
    let text = format!("{}NeEdLe.* trailing", "😀İ".repeat(1000));
    s.user(&text);
    let f = Fixture::new(&s);
    let page = f.search(json!({"query": ["absent", "needle.*"], "max_chars_per_item": 8}));
    let rows = rows(&page);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["offset_chars"], 2000);
    assert!(rows[0].get("match_offset_chars").is_none());
    assert_eq!(rows[0]["content"], "NeEdLe.*");
    assert_eq!(rows[0]["truncated"], true);
    assert_eq!(rows[0]["total_chars"], 2017);
    assert_eq!(f.read(1, 2000, Some(8)), "NeEdLe.*");
    // Regex metacharacters are literal.
    assert!(f.hits(json!("needle.+")).is_empty());
    assert!(f.hits(json!("n.edle")).is_empty());
}

#[test]
fn offsets_count_code_points_through_astral_zwj_cjk_and_combining_text() {
    let family = "👨\u{200d}👩\u{200d}👧\u{200d}👦"; // 7 code points
    let cases = [
        // (text, query, expected offset)
        (format!("{family}{family} find ME"), "me", 20),
        ("日本語のテキストで検索する".to_string(), "検索", 9),
        ("e\u{301}e\u{301} accent target".to_string(), "TARGET", 12),
        ("𝒳𝒴𝒵 astral then word".to_string(), "WORD", 16),
        ("RTL: שלום needle".to_string(), "NEEDLE", 10),
        ("line\u{2028}sep needle".to_string(), "needle", 9),
    ];
    let mut s = SessionBuilder::new();
    for (text, _, _) in &cases {
        s.user(text);
    }
    let f = Fixture::new(&s);
    for (i, (text, query, offset)) in cases.iter().enumerate() {
        let seq = i as u64 + 1;
        let page = f.search(json!({"query": query, "max_chars_per_item": 4}));
        let row = rows(&page)
            .into_iter()
            .find(|r| r["seq"] == seq)
            .unwrap_or_else(|| panic!("{query} in {text}"));
        assert_eq!(row["offset_chars"], *offset, "{text}");
        let expected: String = text.chars().skip(*offset).take(4).collect();
        assert_eq!(row["content"], expected);
        assert_eq!(row["total_chars"], chars(text));
        assert_eq!(f.read(seq, *offset as u64, Some(4)), expected);
    }
}

#[test]
fn case_folding_is_simple_unicode_folding() {
    let mut s = SessionBuilder::new();
    s.user("İstanbul"); // 1
    s.user("ısı"); // 2
    s.user("straße"); // 3
    s.user("STRASSE"); // 4
    s.user("ΣΊΣΥΦΟΣ"); // 5
    s.user("KELVIN \u{212A}"); // 6: the Kelvin sign folds to k
    let f = Fixture::new(&s);
    assert_eq!(f.hits(json!("İ")), [1]);
    assert_eq!(f.hits(json!("istanbul")), Vec::<u64>::new());
    assert_eq!(f.hits(json!("stanbul")), [1]);
    assert_eq!(f.hits(json!("ı")), [2]);
    assert_eq!(f.hits(json!("ISI")), Vec::<u64>::new());
    assert_eq!(f.hits(json!("ısı")), [2]);
    assert_eq!(f.hits(json!("straße")), [3]);
    assert_eq!(f.hits(json!("strasse")), [4]);
    assert_eq!(f.hits(json!("σίσυφοσ")), [5]);
    assert_eq!(f.hits(json!("kelvin k")), [6]);
}

#[test]
fn an_event_matching_several_queries_appears_once_at_the_earliest_match() {
    let mut s = SessionBuilder::new();
    s.user("alpha beta gamma");
    let f = Fixture::new(&s);
    let page = f.search(json!({"query": ["gamma", "beta", "BETA"]}));
    let rows = rows(&page);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["offset_chars"], 6);
    assert_eq!(rows[0]["content"], "beta gamma");
    assert_eq!(rows[0]["truncated"], true);
    // A match at 0 reports offset 0, and a short document is not truncated.
    let first = common::session::rows(&f.search(json!({"query": "ALPHA"})))[0].clone();
    assert_eq!(first["offset_chars"], 0);
    assert_eq!(first["truncated"], false);
}

#[test]
fn search_matches_tool_names_arguments_and_outputs_but_not_hidden_content() {
    let mut s = SessionBuilder::new();
    s.assistant_content(
        r#"[{"type":"thinking","thinking":"hidden musing"},{"type":"toolCall","id":"c1","name":"grep","arguments":{"pattern":"ArgNeedle"}}]"#,
        "toolUse",
    ); // 1, call 2
    s.tool_result("c1", "grep", "OutNeedle found", false); // 3
    s.user_blocks(json!([{"type": "image", "data": "ImageNeedle", "mimeType": "image/png"}])); // 4
    s.custom("pi-context/state", json!({"text": "StateNeedle"})); // no seq
    let f = Fixture::new(&s);
    assert_eq!(f.hits(json!("grep")), [2]);
    assert_eq!(f.hits(json!("argneedle")), [2]);
    assert_eq!(f.hits(json!("outneedle")), [2]);
    assert!(f
        .hits(json!(["hidden musing", "ImageNeedle", "StateNeedle"]))
        .is_empty());
    // Search rows are never fold rows, even without roles.
    let page = f.search(json!({"query": "needle"}));
    assert!(page["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i.get("folded").is_none()));
}

#[test]
fn an_empty_checkpoint_never_matches() {
    let mut s = SessionBuilder::new();
    s.user("x");
    s.compaction("");
    let f = Fixture::new(&s);
    assert_eq!(f.hits(json!(["x", " "])), [1]);
}

#[test]
fn no_hits_is_an_empty_page_not_a_refusal() {
    let mut s = SessionBuilder::new();
    s.user("something");
    let f = Fixture::new(&s);
    let page = f.search(json!({"query": "nothing like it"}));
    assert_eq!(
        page,
        json!({"items": [], "older_before": null, "newer_after": null})
    );
}

#[test]
fn invalid_queries_are_refused() {
    let mut s = SessionBuilder::new();
    s.user("x");
    let f = Fixture::new(&s);
    let cases = [
        (
            json!({"query": ""}),
            "query strings must be non-empty: an empty query matches everything",
        ),
        (
            json!({"query": []}),
            "query must be a string or a non-empty array of strings",
        ),
        (
            json!({"query": ["ok", 3]}),
            "query array elements must be strings",
        ),
        (
            json!({"query": ["ok", ""]}),
            "query strings must be non-empty: an empty query matches everything",
        ),
        (
            json!({"query": 7}),
            "query must be a string or a non-empty array of strings",
        ),
        (
            json!({"query": null}),
            "query must be a string or a non-empty array of strings",
        ),
        (
            json!({}),
            "query must be a string or a non-empty array of strings",
        ),
    ];
    for (params, message) in cases {
        let error = refusal(&f.search_response(params.clone()));
        assert_eq!(
            error,
            json!({"code": "invalid_query", "message": message}),
            "{params}"
        );
    }
}

#[test]
fn the_query_is_checked_before_the_window_id() {
    let mut s = SessionBuilder::new();
    s.user("x");
    let f = Fixture::new(&s);
    let error = refusal(&f.search_response(json!({"query": "", "window_id": "nope"})));
    assert_eq!(error["code"], "invalid_query");
    let error = refusal(&f.search_response(json!({"query": "x", "window_id": "nope"})));
    assert_eq!(error["code"], "unknown_window_id");
}

#[test]
fn search_respects_window_and_role_filters() {
    let mut s = SessionBuilder::new();
    s.user("needle in root"); // 1
    s.reset_marker("w1");
    s.user("needle in w1"); // 2
    s.assistant("needle answer"); // 3
    let f = Fixture::new(&s);
    assert_eq!(
        seqs(&f.search(json!({"query": "needle", "window_id": "w1"}))),
        [2, 3]
    );
    assert_eq!(
        seqs(&f.search(json!({"query": "needle", "window_id": "pcw:0f1e2d3c:root"}))),
        [1]
    );
    assert_eq!(
        seqs(&f.search(json!({"query": "needle", "roles": ["assistant"]}))),
        [3]
    );
    assert_eq!(
        seqs(&f.search(json!({"query": "needle", "before": 3}))),
        [1, 2]
    );
    let row = &rows(&f.search(json!({"query": "needle", "window_id": "w1", "roles": ["user"]})))[0];
    assert_eq!(row["window_id"], "w1");
}

#[test]
fn a_huge_hit_is_cut_to_the_budget() {
    let mut s = SessionBuilder::new();
    s.user(&format!("{}needle{}", "a".repeat(100), "😀".repeat(40_000)));
    let f = Fixture::new(&s);
    let response = f.search_response(json!({"query": "needle", "max_chars_per_item": 50_000}));
    assert!(response["text"].as_str().unwrap().len() <= 32 * 1024);
    let row = &rows(&ok_json(&response))[0];
    assert_eq!(row["offset_chars"], 100);
    assert_eq!(row["truncated"], true);
    assert!(row["content"].as_str().unwrap().starts_with("needle😀"));
}

#[test]
fn text_escaped_in_the_file_is_found_by_its_meaning() {
    // Pi writes raw UTF-8, but other writers escape: Python (`\u00e9`), Go (`\u003c`, `\u0026`),
    // PHP (`\/`). Search matches the decoded text all the same.
    let mut s = SessionBuilder::new();
    s.raw_line(r#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"caf\u00e9 cr\u00e8me"}}"#); // 1
    s.raw_line(r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"t","message":{"role":"user","content":"\u003cdiv\u003e Tom \u0026 Jerry"}}"#); // 2
    s.raw_line(r#"{"type":"message","id":"a3","parentId":"a2","timestamp":"t","message":{"role":"user","content":"path src\/main.rs"}}"#); // 3
    s.raw_line(r#"{"type":"message","id":"a4","parentId":"a3","timestamp":"t","message":{"role":"user","content":"\u0041\u0042\u0043 letters"}}"#); // 4
    s.raw_line(r#"{"type":"message","id":"a5","parentId":"a4","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"gr\u0065p","arguments":{"q":"x"}}]}}"#); // 5, call 6
    let f = Fixture::new(&s);
    assert_eq!(f.hits(json!("CAFÉ")), [1]);
    assert_eq!(f.hits(json!("crème")), [1]);
    assert_eq!(f.hits(json!("<div>")), [2]);
    assert_eq!(f.hits(json!("tom & jerry")), [2]);
    assert_eq!(f.hits(json!("src/main.rs")), [3]);
    assert_eq!(f.hits(json!("abc letters")), [4]);
    assert_eq!(f.hits(json!("grep")), [6]);
    let row = &rows(&f.search(json!({"query": "Jerry"})))[0];
    assert_eq!(row["offset_chars"], 12);
    assert_eq!(row["content"], "Jerry");
}

/// A tiny deterministic generator (xorshift), so the differential test needs no crate.
/// A session mixing every document source, Unicode, and escapes from several JSON writers.
fn varied_session() -> SessionBuilder {
    let mut s = SessionBuilder::new();
    s.user("Hello wörld: \"quoted\" and back\\slash\ttab\nnewline 😀 👨\u{200d}👩\u{200d}👧 İı ß 日本語");
    s.assistant_with_calls(
        "Running tools / checking",
        &[
            (
                "c1",
                "bash",
                r#"{"command":"ls -la /tmp && echo \"done\""}"#,
            ),
            ("c2", "read", r#"{"path":"src/ma\u0069n.rs","limit":10}"#),
            ("c3", "unknown_tool", "{}"),
        ],
    );
    s.tool_result("c1", "bash", "total 0\n--- output ---\nfile.txt", false);
    s.tool_result("c2", "read", "fn main() {}\n", true);
    s.tool_result("orphan", "edit", "orphan {} text", false);
    s.bash_execution(
        "git status --short",
        "M src/lib.rs\n?? new file",
        true,
        Some("/tmp/out.txt"),
    );
    s.bash_execution("", "", false, None);
    s.custom_message("pi-context/boot", "BOOT: window pcw:0f1e2d3c:root / notes");
    s.compaction("Summary with {braces} and [brackets] and a\u{2028}separator");
    let leaf = s.leaf().unwrap().to_string();
    s.raw_line(&format!(
        r#"{{"type":"message","id":"py","parentId":"{leaf}","timestamp":"t","message":{{"role":"user","content":"caf\u00e9 \ud83d\ude00 na\u00efve"}}}}"#
    ));
    s.raw_line(r#"{"type":"message","id":"go","parentId":"py","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"\u003cb\u003ebold\u003c/b\u003e \u0026amp;"},{"type":"toolCall","id":"g1","name":"w\u0072ite","arguments":{"p":"a\u0020b"}}]}}"#);
    s.raw_line(r#"{"type":"message","id":"php","parentId":"go","timestamp":"t","message":{"role":"toolResult","toolCallId":"g1","content":[{"type":"text","text":"http:\/\/example.com\/x"}],"isError":false}}"#);
    s.raw_line(r#"{"type":"message","id":"nameless","parentId":"php","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"n1"}]}}"#);
    s.raw_line(r#"{"type":"message","id":"bashless","parentId":"nameless","timestamp":"t","message":{"role":"bashExecution","output":"no command here"}}"#);
    s
}

#[test]
fn search_agrees_with_matching_every_document() {
    use pi_context::history::{History, Leaf, ListParams, SearchParams};
    use pi_context::session::Session;
    use pi_context::text::LiteralMatcher;

    let s = varied_session();
    let session = Session::from_lines(&s.lines());
    let history = History::project(&session, &Leaf::Last, None).unwrap();
    let documents: Vec<(u64, String)> = history
        .events()
        .iter()
        .map(|e| (e.seq, history.document(e)))
        .collect();
    assert!(documents.len() > 15);

    let mut queries: Vec<String> = [
        "unknown",
        "UNKNOWN {}",
        "bash {",
        "bash {\"command\":\"",
        "{}",
        "} ",
        "\n--- output ---\n",
        "output ---\nfile",
        "{\"command\":",
        ":\"",
        "\"",
        " ",
        "\\",
        "é",
        "É",
        "İ",
        "i",
        "SS",
        "ß",
        "😀",
        "\u{200d}",
        "/",
        "//",
        "http://",
        "<b>",
        "&amp;",
        "a/b",
        "write {",
        "main.rs",
        "src/main.rs",
        "\u{2028}",
        "ıi",
        "write {\"p\":\"a\\u0020b\"}",
        "read {\"path\":\"src/ma\\u0069n.rs\"",
        "bash {}",
        "{}\n--- output ---\nno command",
    ]
    .iter()
    .map(|q| q.to_string())
    .collect();
    let mut rng = common::Rng::new(0x9e37_79b9_7f4a_7c15);
    for _ in 0..600 {
        let (_, doc) = &documents[rng.below(documents.len())];
        let chars: Vec<char> = doc.chars().collect();
        if chars.is_empty() {
            continue;
        }
        let start = rng.below(chars.len());
        let len = 1 + rng.below(14.min(chars.len() - start));
        let mut q: String = chars[start..start + len].iter().collect();
        if rng.below(2) == 0 {
            q = q.to_uppercase();
        }
        queries.push(q);
    }

    let all = |queries: Vec<String>| SearchParams {
        queries,
        list: ListParams {
            limit: 10_000,
            max_chars_per_item: 1,
            ..ListParams::default()
        },
    };
    for query in queries {
        let matcher = LiteralMatcher::new(&[query.as_str()]).unwrap();
        let expected: Vec<(u64, usize)> = documents
            .iter()
            .filter_map(|(seq, doc)| matcher.find_chars(doc).map(|o| (*seq, o)))
            .collect();
        let page = history
            .search(&all(vec![query.clone()]), usize::MAX)
            .unwrap();
        let got: Vec<(u64, usize)> = page
            .items
            .iter()
            .map(|item| match item {
                pi_context::history::Item::Row(r) => (r.seq, r.offset_chars.unwrap()),
                pi_context::history::Item::Fold(_) => panic!("a fold row in search"),
            })
            .collect();
        assert_eq!(got, expected, "query {query:?}");
    }
}
