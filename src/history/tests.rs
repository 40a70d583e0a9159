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

// ----- pairing calls with results ---------------------------------------------------------------

use super::project::{allocate_seqs_from, Source};

/// One entry of a linear Pi session: an assistant message calling tools with these ids, or a
/// tool result answering one.
#[derive(Debug, Clone)]
enum Step {
    Calls(Vec<&'static str>),
    Result(&'static str),
}

fn chain(steps: &[Step]) -> Session {
    let mut lines = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        let parent = if i == 0 {
            "null".to_string()
        } else {
            format!("\"e{}\"", i - 1)
        };
        let message = match step {
            Step::Calls(ids) => {
                let calls: Vec<String> = ids
                    .iter()
                    .map(|id| {
                        format!(r#"{{"type":"toolCall","id":"{id}","name":"t","arguments":{{}}}}"#)
                    })
                    .collect();
                format!(r#"{{"role":"assistant","content":[{}]}}"#, calls.join(","))
            }
            Step::Result(id) => format!(
                r#"{{"role":"toolResult","toolCallId":"{id}","content":[{{"type":"text","text":"r{i}"}}]}}"#
            ),
        };
        lines.push(format!(
            r#"{{"type":"message","id":"e{i}","parentId":{parent},"message":{message}}}"#
        ));
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    session(&lines)
}

/// The contract's rule, by brute force: in seq order, each call takes the first result with
/// its id after it that no call before it took. Returns each call's seq with its result's seq.
fn paired_by_the_rule(steps: &[Step]) -> Vec<(u64, Option<u64>)> {
    // (seq, is a call, id)
    let mut items: Vec<(u64, bool, &str)> = Vec::new();
    let mut seq = 1;
    for step in steps {
        match step {
            Step::Calls(ids) => {
                seq += 1; // the assistant message's own event
                for id in ids {
                    items.push((seq, true, id));
                    seq += 1;
                }
            }
            Step::Result(id) => {
                items.push((seq, false, id));
                seq += 1;
            }
        }
    }
    let mut taken = vec![false; items.len()];
    let mut pairs = Vec::new();
    for &(call_seq, is_call, id) in &items {
        if !is_call {
            continue;
        }
        let result = items
            .iter()
            .enumerate()
            .find(|(r, &(seq, call, rid))| !call && rid == id && seq > call_seq && !taken[*r])
            .map(|(r, &(seq, ..))| {
                taken[r] = true;
                seq
            });
        pairs.push((call_seq, result));
    }
    pairs
}

/// Each call event's seq with its result's seq, from a projection.
fn paired_by(history: &History) -> Vec<(u64, Option<u64>)> {
    let session = history.session;
    let starts = allocate_seqs_from(session.entries.iter(), 1);
    history
        .events()
        .iter()
        .filter_map(|e| match e.source() {
            Source::Call { result, .. } => Some((e.seq, result.map(|r| starts[r]))),
            _ => None,
        })
        .collect()
}

/// The projection of the whole chain built as the stored projection builds it: the first
/// `cut` entries projected, then the rest paired with the calls still open.
fn extended(s: &Session, cut: usize) -> History<'_> {
    let count = s.entries.len();
    let cut = cut.min(count);
    let mut history = History::project_prefix(s, cut, cut.checked_sub(1), None);
    let open: Vec<usize> = (0..history.events.len())
        .filter(|&i| history.events[i].is_open_call())
        .collect();
    let starts = allocate_seqs_from(s.entries.iter(), 1);
    let appended: Vec<usize> = (cut..count).collect();
    let from = history.events.len();
    let items = history.raw_items(&appended, &starts[cut..], cut);
    history.pair(items, &open);
    history.count_windows(from);
    history
}

fn steps() -> impl proptest::strategy::Strategy<Value = Vec<Step>> {
    use proptest::prelude::*;
    let id = prop::sample::select(vec!["same", "same", "same", "other", "third"]);
    let step = prop_oneof![
        prop::collection::vec(id.clone(), 1..4).prop_map(Step::Calls),
        id.prop_map(Step::Result),
    ];
    prop::collection::vec(step, 0..120)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    #[test]
    fn a_call_takes_the_first_result_after_it_that_no_call_before_it_took(
        steps in steps(),
        cut in proptest::prelude::any::<proptest::sample::Index>(),
    ) {
        let s = chain(&steps);
        let expected = paired_by_the_rule(&steps);
        let history = History::project(&s, &Leaf::Last, None).unwrap();
        proptest::prop_assert_eq!(&paired_by(&history), &expected);
        let cut = cut.index(steps.len() + 1);
        proptest::prop_assert_eq!(&paired_by(&extended(&s, cut)), &expected);
    }
}

#[test]
fn thousands_of_calls_sharing_one_id_pair_by_the_rule() {
    // Results before any call (orphans), calls all open then answered, and alternation.
    let mut steps = vec![Step::Result("same"); 50];
    steps.extend(std::iter::repeat_n(Step::Calls(vec!["same"]), 2_000));
    steps.extend(std::iter::repeat_n(Step::Result("same"), 1_500));
    for _ in 0..2_000 {
        steps.push(Step::Calls(vec!["same", "same"]));
        steps.push(Step::Result("same"));
    }
    steps.extend(std::iter::repeat_n(Step::Result("same"), 3_000));
    let s = chain(&steps);
    let expected = paired_by_the_rule(&steps);
    let history = History::project(&s, &Leaf::Last, None).unwrap();
    assert_eq!(paired_by(&history), expected);
    for cut in [0, 1_000, 2_100, 4_000, steps.len()] {
        assert_eq!(paired_by(&extended(&s, cut)), expected, "cut at {cut}");
    }
}
