//! Unit tests of dense projection logic; the behaviour seen through the binary is tested in
//! `tests/history_*.rs`.

use super::*;
use crate::session::Session;
use crate::text::LiteralMatcher;

fn session(lines: &[&str]) -> Session {
    let mut all = vec![r#"{"type":"session","version":3,"id":"0123456789abcdef"}"#];
    all.extend_from_slice(lines);
    Session::from_lines(&all)
}

/// Lines whose raw bytes hide or synthesize text: escaped non-ASCII, escaped slashes, a tool
/// without a name, a bash run, text blocks joined by newlines, a Kelvin sign.
fn tricky() -> Session {
    session(&[
        r#"{"type":"message","id":"u1","parentId":null,"message":{"role":"user","content":"caf\u00e9 path a\/b"}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"text","text":"first"},{"type":"text","text":"second"},{"type":"toolCall","id":"c1","arguments":{"path":"x"}},{"type":"toolCall","id":"c2","name":"read","arguments":{"path":"y.md"}}]}}"#,
        r#"{"type":"message","id":"r1","parentId":"a1","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"plain"}]}}"#,
        r#"{"type":"message","id":"r2","parentId":"r1","message":{"role":"toolResult","toolCallId":"c2","toolName":"read","content":[{"type":"text","text":"KELVIN \u212a here"}]}}"#,
        r#"{"type":"message","id":"b1","parentId":"r2","message":{"role":"bashExecution","command":"ls -la","output":"total 0","truncated":false}}"#,
        r#"{"type":"message","id":"o1","parentId":"b1","message":{"role":"toolResult","toolCallId":"zz","content":[]}}"#,
        r#"{"type":"compaction","id":"k1","parentId":"o1","summary":"summary with \"quotes\" and\ttab","firstKeptEntryId":"k1"}"#,
    ])
}

fn brute_force(history: &History, queries: &[&str]) -> Vec<u64> {
    let matcher = LiteralMatcher::new(queries).unwrap();
    history
        .events()
        .iter()
        .filter(|e| matcher.is_match(&history.document(e)))
        .map(|e| e.seq)
        .collect()
}

fn searched(history: &History, queries: &[&str]) -> Vec<u64> {
    let params = SearchParams {
        queries: queries.iter().map(|q| q.to_string()).collect(),
        list: ListParams {
            limit: 1000,
            max_chars_per_item: 1,
            ..ListParams::default()
        },
    };
    let page = history.search(&params, usize::MAX).unwrap();
    page.items
        .iter()
        .map(|item| match item {
            Item::Row(row) => row.seq,
            Item::Fold(_) => panic!("search never folds"),
        })
        .collect()
}

#[test]
fn prefiltered_search_finds_exactly_what_a_full_scan_finds() {
    let s = tricky();
    let history = History::project(&s, &Leaf::Last, None).unwrap();
    let queries: &[&[&str]] = &[
        &["café"],
        &["CAFÉ path"],
        &["a/b"],
        &["first\nsecond"],
        &["unknown {\"path\""],
        &["output"],
        &["--- output ---\nplain"],
        &["bash {\"command\":\"ls"],
        &["k here"],
        &["\"quotes\" and\ttab"],
        &["{}"],
        &["read"],
        &["nothing-like-this", "total"],
        &["y.md\"}\n--- output"],
    ];
    for q in queries {
        let expected = brute_force(&history, q);
        assert_eq!(searched(&history, q), expected, "query {q:?}");
    }
    assert_eq!(searched(&history, &["café"]), vec![1]);
    assert_eq!(
        searched(&history, &["k here"]),
        vec![4],
        "the Kelvin sign folds to k"
    );
}

#[test]
fn tool_documents_embed_raw_arguments_and_outputs() {
    let s = tricky();
    let history = History::project(&s, &Leaf::Last, None).unwrap();
    let docs: Vec<String> = history
        .events()
        .iter()
        .filter(|e| e.role == Role::Tool)
        .map(|e| history.document(e))
        .collect();
    assert_eq!(
        docs,
        vec![
            "unknown {\"path\":\"x\"}\n--- output ---\nplain".to_string(),
            "read {\"path\":\"y.md\"}\n--- output ---\nKELVIN \u{212a} here".to_string(),
            "bash {\"command\":\"ls -la\"}\n--- output ---\ntotal 0".to_string(),
            "unknown {}\n--- output ---\n".to_string(),
        ]
    );
}

#[test]
fn seqs_count_tool_calls_and_skip_state_entries() {
    let s = session(&[
        r#"{"type":"model_change","id":"m","parentId":null}"#,
        r#"{"type":"message","id":"u","parentId":"m","message":{"role":"user","content":"hi"}}"#,
        r#"{"type":"message","id":"a","parentId":"u","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"x"},{"type":"toolCall","id":"c2","name":"y"}]}}"#,
        r#"{"type":"custom","id":"c","parentId":"a","customType":"state"}"#,
        r#"{"type":"message","id":"s","parentId":"c","message":{"role":"system","content":"prompt"}}"#,
        r#"{"type":"custom_message","id":"cm","parentId":"s","customType":"pi-context/boot","content":"boot"}"#,
    ]);
    let history = History::project(&s, &Leaf::Last, None).unwrap();
    let seqs: Vec<(u64, Role)> = history.events().iter().map(|e| (e.seq, e.role)).collect();
    assert_eq!(
        seqs,
        vec![
            (1, Role::User),
            (2, Role::Assistant),
            (3, Role::Tool),
            (4, Role::Tool),
            (5, Role::Context)
        ]
    );
    assert_eq!(history.highest_seq(), 5);
}

#[test]
fn a_parent_cycle_ends_the_walk() {
    let s = session(&[
        r#"{"type":"message","id":"a","parentId":"b","message":{"role":"user","content":"one"}}"#,
        r#"{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"two"}}"#,
    ]);
    let history = History::project(&s, &Leaf::Last, None).unwrap();
    assert_eq!(history.events().len(), 2);
}
