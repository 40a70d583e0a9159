//! Property tests of the session reader and every history operation, on every `cargo test`
//! (the cargo-fuzz target `fuzz/fuzz_targets/session_lines.rs` needs nightly and never runs in
//! CI). Arbitrary bytes, and sessions built from Pi's entry shapes and then garbled, must never
//! make parsing or an operation panic; every result must fit its budget; and the raw-byte search
//! prefilter must never change a search's answer.

use pi_context::history::{History, Leaf, ListParams, ReadParams, Role, SearchParams};
use pi_context::session::{parse_line_for_fuzzing, Session};
use pi_context::wire::{to_compact_json, RESULT_BUDGET_BYTES};
use proptest::prelude::*;
use serde_json::json;

/// Small id and text alphabets, so that parents, pairings and search queries often hit.
fn id() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "c", "d", "e", "f", "line:2", ""]).prop_map(String::from)
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "needle",
            "Needle",
            "NEEDLE",
            "hay",
            " ",
            "\n",
            "é",
            "ß",
            "İ",
            "K",
            "k",
            "/",
            "\\",
            "\"",
            "😀",
            "\u{2028}",
            "bash",
            "{}",
            "--- output ---",
            "\u{0}",
        ]),
        0..12,
    )
    .prop_map(|pieces| pieces.concat())
}

fn role() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "user",
        "assistant",
        "toolResult",
        "bashExecution",
        "custom",
        "hookMessage",
        "compactionSummary",
        "branchSummary",
        "system",
        "robot",
    ])
    .prop_map(String::from)
}

/// One JSON line in one of the shapes Pi writes (or nearly).
fn entry_line() -> impl Strategy<Value = String> {
    let content = prop_oneof![
        text().prop_map(|t| json!(t)),
        prop::collection::vec(
            prop_oneof![
                text().prop_map(|t| json!({"type": "text", "text": t})),
                (id(), text(), text()).prop_map(|(id, name, arg)| {
                    json!({"type": "toolCall", "id": id, "name": name, "arguments": {"q": arg}})
                }),
                Just(json!({"type": "image", "data": "AAAA"})),
                text().prop_map(|t| json!({"type": "thinking", "thinking": t})),
            ],
            0..4
        )
        .prop_map(|blocks| json!(blocks)),
        Just(json!(null)),
        Just(json!(42)),
    ];
    let message = (role(), content, id(), text(), any::<bool>()).prop_map(
        |(role, content, call_id, tool, flag)| {
            json!({
                "role": role, "content": content, "toolCallId": call_id, "toolName": tool,
                "isError": flag, "command": tool, "output": tool, "truncated": flag,
                "details": {"truncation": {"truncated": flag}, "fullOutputPath": "/tmp/out"},
            })
        },
    );
    let entry = (
        prop::sample::select(vec![
            "message",
            "message",
            "message",
            "compaction",
            "branch_summary",
            "custom_message",
            "custom",
            "label",
            "session",
        ]),
        id(),
        prop::option::of(id()),
        message,
        text(),
        prop::option::of(id()),
    )
        .prop_map(|(kind, id, parent, message, summary, window)| {
            let mut entry = json!({
                "type": kind, "id": id, "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z", "message": message,
                "summary": summary, "content": summary, "customType": "pi-context/reset-marker",
                "data": {"windowId": window},
            });
            if kind == "session" {
                entry = json!({"type": "session", "version": 3, "id": id});
            }
            entry.to_string()
        });
    prop_oneof![
        8 => entry,
        1 => Just(r#"{"type":"session","version":3,"id":"s1"}"#.to_string()),
        1 => Just(r#"{"type":"session","id":"v1"}"#.to_string()),
        1 => text(),
    ]
}

/// How a built session is garbled before it is read.
#[derive(Debug, Clone)]
enum Garble {
    None,
    Truncate(usize),
    Flip(usize, u8),
    Splice(usize, Vec<u8>),
}

fn garble() -> impl Strategy<Value = Garble> {
    prop_oneof![
        3 => Just(Garble::None),
        1 => any::<usize>().prop_map(Garble::Truncate),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Garble::Flip(at, b)),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 0..8))
            .prop_map(|(at, bytes)| Garble::Splice(at, bytes)),
    ]
}

fn apply(mut bytes: Vec<u8>, garble: &Garble) -> Vec<u8> {
    let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
    match garble {
        Garble::None => {}
        Garble::Truncate(i) => bytes.truncate(at(*i, bytes.len())),
        Garble::Flip(i, b) => {
            if !bytes.is_empty() {
                let i = i % bytes.len();
                bytes[i] ^= b;
            }
        }
        Garble::Splice(i, extra) => {
            let i = at(*i, bytes.len());
            bytes.splice(i..i, extra.iter().copied());
        }
    }
    bytes
}

fn session_bytes() -> impl Strategy<Value = Vec<u8>> {
    let built = (prop::collection::vec(entry_line(), 0..24), garble()).prop_map(|(lines, g)| {
        let mut text = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"prop\"}\n");
        for line in lines {
            text.push_str(&line);
            text.push('\n');
        }
        apply(text.into_bytes(), &g)
    });
    prop_oneof![
        4 => built,
        1 => prop::collection::vec(any::<u8>(), 0..512),
    ]
}

fn queries() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::sample::select(vec![
            "needle",
            "NEEDLE",
            "hay needle",
            "é",
            "SS",
            "k",
            "bash",
            "{}",
            "output",
            "/",
            "\"",
            "a\\b",
            "😀",
        ])
        .prop_map(String::from),
        1..3,
    )
}

fn roles() -> impl Strategy<Value = Option<Vec<Role>>> {
    prop::option::of(prop::collection::vec(
        prop::sample::select(Role::ALL.to_vec()),
        1..4,
    ))
}

/// Every operation on one branch: no panic, every result within its budget, and the prefilter
/// agreeing with a full scan.
fn check_operations(
    history: &History,
    budget: usize,
    list: &ListParams,
    queries: &[String],
) -> Result<(), TestCaseError> {
    let windows = history.windows_result(budget);
    prop_assert!(windows.windows.len() <= history.windows().len());
    if let Ok(page) = history.list(list, budget) {
        prop_assert!(to_compact_json(&page).len() <= budget);
    }
    let search = SearchParams {
        queries: queries.to_vec(),
        list: list.clone(),
    };
    let prefiltered = history.search(&search, budget);
    let full = history.search_scanned(&search, budget, None);
    match (&prefiltered, &full) {
        (Ok(a), Ok(b)) => {
            prop_assert!(to_compact_json(a).len() <= budget);
            prop_assert_eq!(
                to_compact_json(a),
                to_compact_json(b),
                "the prefilter changed the answer"
            );
        }
        (Err(a), Err(b)) => prop_assert_eq!(a.code(), b.code()),
        _ => prop_assert!(false, "prefiltered {prefiltered:?} vs full {full:?}"),
    }
    for seq in 1..=history.highest_seq().min(10) {
        for offset_chars in [0, 3, -2] {
            let params = ReadParams {
                offset_chars,
                ..ReadParams::new(seq)
            };
            if let Ok(read) = history.read(&params, budget) {
                prop_assert!(read.window.render().len() <= budget);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_line_never_panics_the_line_parser(line in "\\PC{0,200}") {
        parse_line_for_fuzzing(&line);
    }

    #[test]
    fn every_history_operation_survives_any_session(
        bytes in session_bytes(),
        leaf in prop::option::of(id()),
        budget in prop_oneof![Just(RESULT_BUDGET_BYTES), 64usize..2048],
        limit in 1usize..30,
        max_chars in 1usize..1500,
        roles in roles(),
        before in prop::option::of(1u64..40),
        after in prop::option::of(1u64..40),
        queries in queries(),
    ) {
        let session = Session::from_bytes(bytes);
        let leaf = Leaf::from_wire(leaf.as_deref());
        let Ok(history) = History::project(&session, &leaf, Some("fallback")) else {
            return Ok(());
        };
        let list = ListParams {
            limit,
            roles,
            before,
            after,
            window_id: None,
            max_chars_per_item: max_chars,
        };
        check_operations(&history, budget, &list, &queries)?;
        let window = ListParams {
            window_id: history.windows().last().map(|w| w.window_id.clone()),
            ..list
        };
        check_operations(&history, budget, &window, &queries)?;
    }
}
