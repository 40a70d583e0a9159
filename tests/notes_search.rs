//! `notes search` and `notes_search`: case-insensitive literal OR over body lines.

use crate::common;

use common::notes::*;
use common::TestEnv;
use serde_json::{json, Value};

fn search(env: &TestEnv, params: Value) -> Value {
    tool_ok(env, "notes_search", params)
}

#[test]
fn matches_carry_line_text_offset_and_truncated() {
    let env = TestEnv::new();
    write(
        &env,
        "@human/n",
        "Needle first\nnothing\nsecond NEEDLE and needle\n",
    );
    let result = search(&env, json!({"query": "needle"}));
    assert_eq!(
        result,
        json!({
            "files": [{
                "address": "@human/n.md",
                "updated_at": "2026-03-01T09:00:00.000+00:00",
                "matches_total": 2,
                "matches": [
                    {"line": 1, "text": "Needle first", "offset_chars": 0, "truncated": false},
                    {"line": 3, "text": "second NEEDLE and needle", "offset_chars": 28, "truncated": false}
                ]
            }],
            "more": 0, "crumpled_excluded": 0, "homes_unavailable": []
        })
    );
    let read = tool(
        &env,
        "notes_read",
        json!({"address": "@human/n", "offset_chars": 28, "limit_chars": 6}),
    );
    assert!(text(&read).ends_with("\n\nNEEDLE"));
}

#[test]
fn queries_are_or_ed_literal_and_unicode_case_insensitive() {
    let env = TestEnv::new();
    write(&env, "@human/a", "ÉCOLE here");
    write(&env, "@human/b", "price: $5.00 (approx)");
    write(&env, "@human/c", "nothing relevant");
    let found = search(&env, json!({"query": ["école", "$5.00 ("]}));
    let mut addresses: Vec<&str> = found["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["address"].as_str().unwrap())
        .collect();
    addresses.sort();
    assert_eq!(addresses, ["@human/a.md", "@human/b.md"]);
    let regexy = tool(&env, "notes_search", json!({"query": "p.ice"}));
    assert_eq!(
        serde_json::from_str::<Value>(text(&regexy)).unwrap()["files"],
        json!([])
    );
}

#[test]
fn no_hits_exit_one_and_hits_exit_zero() {
    let env = TestEnv::new();
    write(&env, "@human/n", "alpha\nbeta");
    let output = notes(&env, &["search", "gamma"]).run().expect_code(1);
    assert_eq!(output.stdout, "no matches\n");
    let out = ok(&env, &["search", "BETA", "gamma"]);
    assert_eq!(
        out,
        "@human/n.md  updated 2026-03-01T09:00:00.000+00:00 · 1 match\n  line 2, offset 6: beta\n"
    );
    let doc = json(&env, &["search", "alpha"]);
    assert_eq!(doc["files"][0]["matches"][0]["offset_chars"], 0);
}

#[test]
fn crumpled_matches_are_counted_and_found_in_the_wastebasket() {
    let env = TestEnv::new();
    write(&env, "@human/live", "needle");
    write(&env, "@human/gone", "needle");
    write(&env, "@human/gone-nomatch", "hay");
    ok(&env, &["edit", "@human/gone", "--crumple"]);
    ok(&env, &["edit", "@human/gone-nomatch", "--crumple"]);
    let live = search(&env, json!({"query": "needle"}));
    assert_eq!(live["files"].as_array().unwrap().len(), 1);
    assert_eq!(live["crumpled_excluded"], 1);
    let basket = search(&env, json!({"query": "needle", "wastebasket": true}));
    assert_eq!(basket["files"][0]["address"], "@human/gone.md");
    assert_eq!(
        basket["crumpled_excluded"], 1,
        "the live match is the one left out"
    );
}

#[test]
fn max_matches_per_file_caps_lines_but_not_the_total() {
    let env = TestEnv::new();
    write(&env, "@human/n", &"hit\n".repeat(10));
    let result = search(&env, json!({"query": "hit", "max_matches_per_file": 3}));
    assert_eq!(result["files"][0]["matches_total"], 10);
    assert_eq!(result["files"][0]["matches"].as_array().unwrap().len(), 3);
    let human = ok(&env, &["search", "hit", "--max-matches", "2"]);
    assert!(human.contains("10 matches, 2 shown"), "{human}");
}

#[test]
fn long_lines_are_previewed_from_the_match() {
    let env = TestEnv::new();
    let line = format!("{}needle{}", "a".repeat(3000), "b".repeat(3000));
    write(&env, "@human/n", &line);
    let result = search(&env, json!({"query": "needle"}));
    let hit = &result["files"][0]["matches"][0];
    assert_eq!(hit["truncated"], true);
    assert_eq!(hit["offset_chars"], 3000);
    assert!(hit["text"].as_str().unwrap().starts_with("needle"));
    assert_eq!(hit["text"].as_str().unwrap().chars().count(), 1200);
}

#[test]
fn the_first_file_shrinks_to_fit_the_budget_and_the_rest_are_counted() {
    let env = TestEnv::new();
    let body: String = (0..2000)
        .map(|i| format!("needle number {i} {}\n", "x".repeat(40)))
        .collect();
    tool_ok(
        &env,
        "notes_write",
        json!({"address": "@human/big", "content": body}),
    );
    let _ = notes(&env, &["write", "@human/older", "-c", "needle"])
        .env("PI_CONTEXT_NOW", "2026-01-01T00:00:00Z")
        .run()
        .success();
    let response = tool(&env, "notes_search", json!({"query": "needle"}));
    assert!(text(&response).len() <= 32 * 1024);
    let page: Value = serde_json::from_str(text(&response)).unwrap();
    let first = &page["files"][0];
    assert_eq!(first["address"], "@human/big.md");
    assert_eq!(first["matches_total"], 2000);
    let shown = first["matches"].as_array().unwrap().len();
    assert!(shown > 100 && shown < 2000, "{shown}");
    assert_eq!(page["files"].as_array().unwrap().len(), 1);
    assert_eq!(page["more"], 1);
}

#[test]
fn many_long_matching_lines_keep_the_whole_previews_that_fit() {
    let env = TestEnv::new();
    // A hundred matching lines, each longer than the preview: the first (and only) file keeps
    // as many whole previews as fit.
    let body: String = (0..100)
        .map(|_| format!("needle {}\n", "é".repeat(2000)))
        .collect();
    tool_ok(
        &env,
        "notes_write",
        json!({"address": "@human/wide", "content": body}),
    );
    let response = tool(&env, "notes_search", json!({"query": "needle"}));
    assert!(text(&response).len() <= 32 * 1024);
    let page: Value = serde_json::from_str(text(&response)).unwrap();
    let matches = page["files"][0]["matches"].as_array().unwrap();
    assert!(!matches.is_empty() && matches.len() < 100);
    assert!(matches.iter().all(|m| m["truncated"] == true));
}

#[test]
fn bad_queries_and_patterns_are_refused() {
    let env = TestEnv::new();
    for query in [json!(""), json!([]), json!([""]), json!(["a", 1]), json!(3)] {
        assert_eq!(
            tool_refusal(&env, "notes_search", json!({"query": query}))["code"],
            "invalid_query",
            "{query}"
        );
    }
    assert_eq!(
        tool_refusal(&env, "notes_search", json!({}))["code"],
        "invalid_query"
    );
    assert_eq!(
        tool_refusal(
            &env,
            "notes_search",
            json!({"query": "a", "pattern": "a\\b"})
        )["code"],
        "invalid_pattern"
    );
    assert_eq!(
        tool_refusal(
            &env,
            "notes_search",
            json!({"query": "a", "pattern": "@nope/*"})
        )["code"],
        "invalid_address"
    );
    let (code, _) = fails(&env, &["search", ""]);
    assert_eq!(code, 2);
}

#[test]
fn search_reads_do_not_touch_access_counters() {
    let env = TestEnv::new();
    write(&env, "@human/n", "needle");
    let before = snapshot(&env.notes_home());
    search(&env, json!({"query": "needle"}));
    ok(&env, &["list"]);
    assert_eq!(snapshot(&env.notes_home()), before);
}

#[test]
fn a_search_of_many_notes_finds_every_body_hit_and_nothing_else() {
    let env = TestEnv::new();
    let human = env.notes_home().join("human");
    let mut expected = Vec::new();
    for d in 0..20 {
        for n in 0..(d % 5) * 8 {
            let dir = human.join(format!("d{d}"));
            std::fs::create_dir_all(&dir).unwrap();
            let hits = (d + n) % 4;
            let mut body = String::from("# title\n");
            for line in 0..6 {
                if line < hits {
                    body.push_str(&format!("line {line} has a KESTREL in it\r\n"));
                } else {
                    body.push_str("nothing here, é 😀\n");
                }
            }
            std::fs::write(
                dir.join(format!("n{n}.md")),
                format!(
                    "---\norigin: user\nupdatedAt: 2026-03-01T10:00:00.000+00:00\n---\n\n{body}"
                ),
            )
            .unwrap();
            if hits > 0 {
                expected.push((format!("@human/d{d}/n{n}.md"), hits));
            }
        }
    }
    // The word only in the frontmatter is no hit; a note that is not UTF-8 is skipped.
    std::fs::write(
        human.join("meta-only.md"),
        "---\norigin: user\ntopic: kestrel\n---\n\nbody\n",
    )
    .unwrap();
    std::fs::write(human.join("latin1.md"), b"kestrel caf\xe9\n").unwrap();
    expected.sort();
    assert!(expected.len() > 100, "{}", expected.len());

    let found = json(&env, &["search", "kestrel"]);
    let mut got: Vec<(String, u64)> = found["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let matches = f["matches"].as_array().unwrap();
            for (i, m) in matches.iter().enumerate() {
                assert_eq!(m["line"], i + 2, "{f}");
                assert_eq!(m["text"], format!("line {i} has a KESTREL in it"));
                // The body starts with "# title\n" (8 code points), then 28 per hit line.
                assert_eq!(m["offset_chars"], 8 + 28 * i + 13);
            }
            (
                f["address"].as_str().unwrap().to_string(),
                f["matches_total"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    let expected: Vec<(String, u64)> = expected.into_iter().map(|(a, n)| (a, n as u64)).collect();
    assert_eq!(got, expected);

    // A line feed in a query never matches: matches are within lines.
    let (code, _) = fails(&env, &["search", "KESTREL in it\r\nline"]);
    assert_eq!(code, 1);
}
