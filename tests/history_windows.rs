//! `history_windows` and window derivation: reset markers are the only boundary
//! (history.md §2, §4.1 item 12, §4.2).

use crate::common;

use common::session::{ok_json, refusal, request, request_at, rows, SessionBuilder};
use common::TestEnv;
use serde_json::{json, Value};

fn windows(env: &TestEnv, session: &SessionBuilder) -> Value {
    let path = session.write_to(env.work().join("session.jsonl"));
    ok_json(&env.tool("history_windows", &request(&path, json!({}))))
}

/// Every event of one window, all roles, oldest first: `(role, content)`.
fn window_events(
    env: &TestEnv,
    session: &SessionBuilder,
    window_id: &str,
) -> Vec<(String, String)> {
    let path = session.write_to(env.work().join("session.jsonl"));
    let params = json!({"window_id": window_id, "roles": ["user", "assistant", "tool", "context"], "limit": 100});
    let page = ok_json(&env.tool("history_list", &request(&path, params)));
    rows(&page)
        .iter()
        .map(|r| {
            (
                r["role"].as_str().unwrap().to_string(),
                r["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn ids(result: &Value) -> Vec<String> {
    result["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["window_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn one_message_session_has_one_root_window_with_its_identity() {
    // §4.1 item 12.
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("hello");
    let result = windows(&env, &s);
    assert_eq!(
        result,
        json!({
            "session_id": common::session::SESSION_ID,
            "windows": [{"window_id": "pcw:0f1e2d3c:root", "created_at": null, "first_seq": 1, "last_seq": 1, "item_count": 1}]
        })
    );
}

#[test]
fn windows_text_is_compact_json_with_fields_in_contract_order() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("hello");
    let path = s.write_to(env.work().join("s.jsonl"));
    let response = env.tool("history_windows", &request(&path, json!({})));
    assert_eq!(
        response["text"],
        json!(
            r#"{"session_id":"0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0","windows":[{"window_id":"pcw:0f1e2d3c:root","created_at":null,"first_seq":1,"last_seq":1,"item_count":1}]}"#
        )
    );
}

#[test]
fn root_window_id_takes_the_first_eight_characters_of_the_session_id() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::with_id("12345678-abcd");
    s.user("x");
    assert_eq!(ids(&windows(&env, &s)), ["pcw:12345678:root"]);

    // Characters, not bytes; a short id is used whole.
    let mut s = SessionBuilder::with_id("日本語のセッションです");
    s.user("x");
    assert_eq!(ids(&windows(&env, &s)), ["pcw:日本語のセッショ:root"]);
    let mut s = SessionBuilder::with_id("abc");
    s.user("x");
    assert_eq!(ids(&windows(&env, &s)), ["pcw:abc:root"]);
}

#[test]
fn history_windows_takes_no_parameters() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("x");
    let path = s.write_to(env.work().join("s.jsonl"));
    let error = refusal(&env.tool("history_windows", &request(&path, json!({"limit": 3}))));
    assert_eq!(error["code"], "invalid_params");
}

#[test]
fn markers_open_windows_and_pre_marker_history_stays_in_the_root_window() {
    // §4.2: branch [user, native compaction, marker A, boot A, user, marker B, boot B, assistant].
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("before reset");
    s.compaction("native summary stays in the root window");
    let a = s.reset_marker("window-a");
    s.custom_message("pi-context/boot", "boot window-a");
    s.user("after first reset");
    let b = s.reset_marker("window-b");
    s.custom_message("pi-context/boot", "boot window-b");
    s.assistant("after second reset");

    let result = windows(&env, &s);
    assert_eq!(
        result["windows"],
        json!([
            {"window_id": "pcw:0f1e2d3c:root", "created_at": null, "first_seq": 1, "last_seq": 2, "item_count": 2},
            {"window_id": "window-a", "created_at": s.timestamp(&a), "first_seq": 3, "last_seq": 4, "item_count": 2},
            {"window_id": "window-b", "created_at": s.timestamp(&b), "first_seq": 5, "last_seq": 6, "item_count": 2},
        ])
    );
    let pair = |role: &str, text: &str| (role.to_string(), text.to_string());
    assert_eq!(
        window_events(&env, &s, "pcw:0f1e2d3c:root"),
        [
            pair("user", "before reset"),
            pair("context", "native summary stays in the root window")
        ]
    );
    assert_eq!(
        window_events(&env, &s, "window-a"),
        [
            pair("context", "boot window-a"),
            pair("user", "after first reset")
        ]
    );
    assert_eq!(
        window_events(&env, &s, "window-b"),
        [
            pair("context", "boot window-b"),
            pair("assistant", "after second reset")
        ]
    );
}

#[test]
fn only_valid_reset_markers_are_boundaries() {
    // §4.2 negative cases: wrong customType, numeric windowId, empty windowId, a legacy
    // compaction carrying a window id, a marker without data, and a `custom_message` of the
    // marker type.
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("one");
    s.custom("pi-context/state", json!({"windowId": "not-a-window"}));
    s.custom("pi-context/reset-marker", json!({"windowId": 7}));
    s.custom("pi-context/reset-marker", json!({"windowId": ""}));
    s.custom("pi-context/reset-marker", json!("window-as-string"));
    s.custom("pi-context/reset-marker", json!(null));
    s.custom("pi-context/reset-marker", json!({"window_id": "snake"}));
    s.entry(
        "compaction",
        json!({"summary": "legacy", "firstKeptEntryId": "x", "tokensBefore": 1,
               "details": {"piContext": "reset-v2", "windowId": "legacy-window"}}),
    );
    s.custom_message("pi-context/reset-marker", "not a boundary either");
    s.user("two");
    let result = windows(&env, &s);
    assert_eq!(ids(&result), ["pcw:0f1e2d3c:root"]);
    assert_eq!(result["windows"][0]["item_count"], 4);
    assert_eq!(result["windows"][0]["last_seq"], 4);
}

#[test]
fn an_empty_later_marker_does_not_replace_the_active_window() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("root talk");
    s.reset_marker("pcw:0f1e2d3c:369769fe");
    s.user("in A");
    s.reset_marker("");
    s.user("still in A");
    let result = windows(&env, &s);
    assert_eq!(ids(&result), ["pcw:0f1e2d3c:root", "pcw:0f1e2d3c:369769fe"]);
    assert_eq!(result["windows"][1]["item_count"], 2);
    let last = window_events(&env, &s, "pcw:0f1e2d3c:369769fe");
    assert_eq!(last.last().unwrap().1, "still in A");
}

#[test]
fn window_ids_are_opaque_strings() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    let odd = "550e8400-e29b-41d4-a716-446655440000 / 😀 \"quoted\"";
    s.reset_marker(odd);
    s.user("x");
    let result = windows(&env, &s);
    assert_eq!(ids(&result), ["pcw:0f1e2d3c:root", odd]);
    assert_eq!(
        window_events(&env, &s, odd),
        [("user".to_string(), "x".to_string())]
    );
}

#[test]
fn an_empty_root_window_is_still_listed() {
    // A marker as the very first entry: the root window has no events.
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    let a = s.reset_marker("first");
    s.user("x");
    assert_eq!(
        windows(&env, &s)["windows"],
        json!([
            {"window_id": "pcw:0f1e2d3c:root", "created_at": null, "first_seq": null, "last_seq": null, "item_count": 0},
            {"window_id": "first", "created_at": s.timestamp(&a), "first_seq": 1, "last_seq": 1, "item_count": 1},
        ])
    );
}

#[test]
fn a_reset_as_pi_context_writes_it_splits_the_checkpoint_and_the_boot() {
    // history.md §2.2: checkpoint compaction (empty summary) ends the old window; the boot and
    // the continuation are the first two events of the new one.
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("question"); // 1
    s.assistant("answer"); // 2
    s.compaction(""); // 3: the retain-none checkpoint
    s.reset_marker("pcw:0f1e2d3c:aaaaaaaa");
    s.custom_message("pi-context/boot", "BOOT"); // 4
    s.custom_message("pi-context/continuation", "continue"); // 5
    s.user("next"); // 6
    let path = s.write_to(env.work().join("s.jsonl"));

    let result = ok_json(&env.tool("history_windows", &request(&path, json!({}))));
    assert_eq!(result["windows"][0]["last_seq"], 3);
    assert_eq!(result["windows"][0]["item_count"], 3);
    assert_eq!(result["windows"][1]["first_seq"], 4);
    assert_eq!(result["windows"][1]["item_count"], 3);

    // In the conversation view of the old window, the empty checkpoint is the trailing fold.
    let page = ok_json(&env.tool(
        "history_list",
        &request(&path, json!({"window_id": "pcw:0f1e2d3c:root"})),
    ));
    assert_eq!(
        page["items"][2],
        json!({"folded": true, "first_seq": 3, "last_seq": 3, "count": 1, "tools": {}})
    );
    // The new window starts with its boot and continuation.
    let ctx = ok_json(&env.tool(
        "history_list",
        &request(
            &path,
            json!({"window_id": "pcw:0f1e2d3c:aaaaaaaa", "roles": ["context"]}),
        ),
    ));
    assert_eq!(
        common::session::seq_contents(&ctx),
        [(4, "BOOT".into()), (5, "continue".into())]
    );
}

#[test]
fn windows_follow_the_current_branch_only() {
    // A marker on an abandoned branch opens no window on the current one.
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    let first = s.user("first");
    s.reset_marker("abandoned-window");
    s.user("abandoned");
    s.branch_from(&first);
    s.user("current");
    assert!(s.text().contains("abandoned-window"));
    assert_eq!(ids(&windows(&env, &s)), ["pcw:0f1e2d3c:root"]);
}

#[test]
fn the_leaf_selects_whose_windows_are_listed() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    let first = s.user("first");
    s.reset_marker("abandoned-window");
    let abandoned = s.user("abandoned");
    s.branch_from(&first);
    s.user("current");
    let path = s.write_to(env.work().join("s.jsonl"));
    let result = ok_json(&env.tool(
        "history_windows",
        &request_at(&path, Some(&abandoned), json!({})),
    ));
    assert_eq!(ids(&result), ["pcw:0f1e2d3c:root", "abandoned-window"]);
    let result = ok_json(&env.tool(
        "history_windows",
        &request_at(&path, Some("none"), json!({})),
    ));
    assert_eq!(
        result["windows"],
        json!([{"window_id": "pcw:0f1e2d3c:root", "created_at": null, "first_seq": null, "last_seq": null, "item_count": 0}])
    );
}

#[test]
fn thousands_of_windows_keep_the_oldest_that_fit_and_count_the_rest() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    let total_markers = 3000;
    for i in 0..total_markers {
        s.reset_marker(&format!("pcw:0f1e2d3c:{i:08x}"));
        s.user(&format!("message {i}"));
    }
    let path = s.write_to(env.work().join("s.jsonl"));
    let response = env.tool("history_windows", &request(&path, json!({})));
    let text = response["text"].as_str().unwrap();
    assert!(text.len() <= 32 * 1024);
    let result = ok_json(&response);
    let shown = ids(&result);
    let more = result["more"].as_u64().expect("more is reported") as usize;
    assert!(
        shown.len() > 10 && shown.len() < 1000,
        "{} shown",
        shown.len()
    );
    assert_eq!(shown.len() + more, total_markers + 1);
    // The oldest windows, in order, without gaps.
    assert_eq!(shown[0], "pcw:0f1e2d3c:root");
    for (i, id) in shown.iter().enumerate().skip(1) {
        assert_eq!(id, &format!("pcw:0f1e2d3c:{:08x}", i - 1));
    }
    // As many as fit: one more window would not.
    let one_window = serde_json::to_string(&result["windows"][1]).unwrap().len() + 1;
    assert!(
        text.len() + one_window > 32 * 1024 - 8,
        "{} bytes leave room for another window",
        text.len()
    );
}

#[test]
fn a_small_session_reports_no_more() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    for i in 0..50 {
        s.reset_marker(&format!("w{i}"));
    }
    let result = windows(&env, &s);
    assert_eq!(ids(&result).len(), 51);
    assert!(result.get("more").is_none(), "{result}");
}
