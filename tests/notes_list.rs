//! `notes list` and `notes_list`: recent-first snapshots, patterns, the wastebasket, budgets and
//! unavailable homes.

use crate::common;

use common::notes::*;
use common::TestEnv;
use serde_json::{json, Value};

fn write_at(env: &TestEnv, address: &str, now: &str) {
    let _ = notes(env, &["write", address, "-c", "x"])
        .env("PI_CONTEXT_NOW", now)
        .run()
        .success();
}

#[test]
fn an_empty_store_lists_nothing_without_error() {
    let env = TestEnv::new();
    let result = tool_ok(&env, "notes_list", json!({}));
    assert_eq!(
        result,
        json!({"files": [], "more": 0, "crumpled_excluded": 0, "homes_unavailable": []})
    );
    assert_eq!(ok(&env, &["list"]), "no notes\n");
    assert!(
        snapshot(&env.notes_home()).is_empty(),
        "listing creates nothing"
    );
}

#[test]
fn notes_come_most_recently_updated_first_then_by_address() {
    let env = TestEnv::new();
    write_at(&env, "@human/old", "2026-01-01T00:00:00Z");
    write_at(&env, "@project/new", "2026-02-01T00:00:00Z");
    write_at(&env, "b-tie", "2026-01-15T00:00:00Z");
    write_at(&env, "a-tie", "2026-01-15T00:00:00Z");
    write_at(&env, "@self/mine", "2026-01-10T00:00:00Z");
    let result = tool_ok(&env, "notes_list", json!({}));
    assert_eq!(
        addresses(&result),
        [
            "@project/new.md",
            "a-tie.md",
            "b-tie.md",
            "@self/mine.md",
            "@human/old.md"
        ]
    );
    let key = pi_context::notes::project_key(&env.work());
    assert_eq!(
        result["files"][0],
        json!({"address": "@project/new.md", "updated_at": "2026-02-01T00:00:00.000+00:00", "project_key": key})
    );
    assert_eq!(
        result["files"][1],
        json!({"address": "a-tie.md", "updated_at": "2026-01-15T00:00:00.000+00:00"})
    );
    let human = ok(&env, &["list"]);
    assert!(
        human.starts_with("2026-02-01T00:00:00.000+00:00  @project/new.md\n"),
        "{human}"
    );
}

#[test]
fn hand_written_offsets_sort_by_instant() {
    let env = TestEnv::new();
    let dir = env.notes_home().join("human");
    std::fs::create_dir_all(&dir).unwrap();
    // 10:00+05:00 is 05:00Z, earlier than 06:00Z.
    std::fs::write(
        dir.join("east.md"),
        "---\nupdatedAt: 2026-01-01T10:00:00.000+05:00\n---\n\nx",
    )
    .unwrap();
    std::fs::write(
        dir.join("west.md"),
        "---\nupdatedAt: 2026-01-01T06:00:00.000Z\n---\n\nx",
    )
    .unwrap();
    let result = tool_ok(&env, "notes_list", json!({}));
    assert_eq!(addresses(&result), ["@human/west.md", "@human/east.md"]);
    assert_eq!(
        result["files"][1]["updated_at"], "2026-01-01T10:00:00.000+05:00",
        "kept as written"
    );
}

#[test]
fn crumpled_notes_are_hidden_counted_and_listed_alone_in_the_wastebasket() {
    let env = TestEnv::new();
    write(&env, "@human/live", "x");
    write(&env, "@human/gone", "x");
    ok(&env, &["edit", "@human/gone", "--crumple"]);
    let live = tool_ok(&env, "notes_list", json!({}));
    assert_eq!(addresses(&live), ["@human/live.md"]);
    assert_eq!(live["crumpled_excluded"], 1);
    let basket = tool_ok(&env, "notes_list", json!({"wastebasket": true}));
    assert_eq!(addresses(&basket), ["@human/gone.md"]);
    assert_eq!(
        basket["files"][0]["crumpled_at"],
        "2026-03-01T09:00:00.000+00:00"
    );
    // The list counts the hidden notes; the wastebasket shows how long ago each note was
    // crumpled.
    let human = run_notes(&env, &["list"]).success();
    let later = notes(&env, &["list", "--wastebasket"])
        .env("PI_CONTEXT_NOW", "2026-03-13T10:00:00Z")
        .run()
        .success();
    insta::assert_snapshot!(format!("{human}{later}"));
}

#[test]
fn patterns_filter_canonical_addresses_and_narrow_homes() {
    let env = TestEnv::new();
    for address in [
        "shared",
        "@project/shared",
        "@human/shared",
        "@human/deep/shared",
        "@human/other",
        "@self/x",
    ] {
        write(&env, address, "x");
    }
    let list = |pattern: &str| {
        let mut found = addresses(&tool_ok(&env, "notes_list", json!({"pattern": pattern})));
        found.sort();
        found
    };
    assert_eq!(
        list("**/shared.md"),
        [
            "@human/deep/shared.md",
            "@human/shared.md",
            "@project/shared.md",
            "shared.md"
        ]
    );
    assert_eq!(
        list("@human/**"),
        [
            "@human/deep/shared.md",
            "@human/other.md",
            "@human/shared.md"
        ]
    );
    assert_eq!(list("@human/*"), ["@human/other.md", "@human/shared.md"]);
    assert_eq!(
        list("*.md"),
        ["shared.md"],
        "bare patterns match session addresses as written"
    );
    assert_eq!(list("@human/sh?red.md"), ["@human/shared.md"]);
    assert_eq!(list("@agents/anonymous/*"), ["@self/x.md"]);
    assert_eq!(list(""), list("**"));
    let cli = ok(&env, &["list", "--pattern", "@self/**"]);
    assert!(cli.ends_with("  @self/x.md\n"), "{cli}");
}

#[test]
fn foreign_homes_are_reached_only_through_explicit_patterns() {
    let env = TestEnv::new();
    let _ = notes(
        &env,
        &["write", "@self/theirs", "-c", "x", "--agent", "other"],
    )
    .run()
    .success();
    let _ = notes(&env, &["write", "@model/m", "-c", "x", "--model", "gpt-5"])
        .run()
        .success();
    write(&env, "@self/mine", "x");
    assert_eq!(
        addresses(&tool_ok(&env, "notes_list", json!({}))),
        ["@self/mine.md"]
    );
    let mut all = addresses(&tool_ok(
        &env,
        "notes_list",
        json!({"pattern": "@agents/*/**"}),
    ));
    all.sort();
    assert_eq!(all, ["@agents/other/theirs.md", "@self/mine.md"]);
    assert_eq!(
        addresses(&tool_ok(
            &env,
            "notes_list",
            json!({"pattern": "@models/gpt-5/*"})
        )),
        ["@models/gpt-5/m.md"]
    );
}

#[test]
fn limit_and_budget_leave_rows_out_and_say_how_many() {
    let env = TestEnv::new();
    let dir = env.notes_home().join("human");
    std::fs::create_dir_all(&dir).unwrap();
    let long = "n".repeat(200);
    for i in 0..400 {
        std::fs::write(
            dir.join(format!("{long}-{i:03}.md")),
            "---\nupdatedAt: 2026-01-01T00:00:00.000+00:00\n---\n\nx",
        )
        .unwrap();
    }
    let limited = tool_ok(&env, "notes_list", json!({"limit": 5}));
    assert_eq!(limited["files"].as_array().unwrap().len(), 5);
    assert_eq!(limited["more"], 395);
    let response = tool(&env, "notes_list", json!({}));
    let page: Value = serde_json::from_str(text(&response)).unwrap();
    let shown = page["files"].as_array().unwrap().len();
    assert!(shown > 50 && shown < 400, "{shown}");
    assert_eq!(page["more"].as_u64().unwrap() as usize, 400 - shown);
    assert!(text(&response).len() <= 32 * 1024);
    let cli = json(&env, &["list"]);
    assert_eq!(
        cli["files"].as_array().unwrap().len(),
        400,
        "the CLI has no byte budget"
    );
    insta::assert_snapshot!(run_notes(&env, &["list", "--limit", "2"]).success());
}

#[test]
fn unreadable_homes_are_reported_not_fatal() {
    let env = TestEnv::new();
    write(&env, "@human/fine", "x");
    let key = pi_context::notes::project_key(&env.work());
    std::fs::create_dir_all(env.notes_home().join("project")).unwrap();
    std::fs::write(
        env.notes_home().join("project").join(&key),
        "not a directory",
    )
    .unwrap();
    let result = tool_ok(&env, "notes_list", json!({}));
    assert_eq!(addresses(&result), ["@human/fine.md"]);
    assert_eq!(result["homes_unavailable"], json!(["@project"]));
    let output = notes(&env, &["list"]).run().success();
    assert!(output
        .stderr
        .contains("warning: @project could not be read"));

    std::fs::write(env.notes_home().join("agents"), "not a directory").unwrap();
    let agents = tool_ok(&env, "notes_list", json!({"pattern": "@agents/*/**"}));
    assert_eq!(agents["homes_unavailable"], json!(["@agents"]));
    let default = tool_ok(&env, "notes_list", json!({}));
    assert_eq!(default["homes_unavailable"], json!(["@project", "@self"]));
}

#[test]
fn bad_patterns_are_refused_never_silently_empty() {
    let env = TestEnv::new();
    write(&env, "@human/x", "x");
    for (pattern, code) in [
        ("@glboal/**", "invalid_address"),
        ("@unknown/x", "invalid_address"),
        ("@agents/Not_A_Slug/x", "invalid_address"),
        ("a\\b", "invalid_pattern"),
        ("@human/", "invalid_pattern"),
    ] {
        let refusal = tool_refusal(&env, "notes_list", json!({"pattern": pattern}));
        assert_eq!(refusal["code"], code, "{pattern}");
    }
    assert_eq!(
        tool_refusal(&env, "notes_list", json!({"pattern": 5}))["code"],
        "invalid_pattern"
    );
    assert_eq!(
        tool_refusal(&env, "notes_list", json!({"limit": 0}))["code"],
        "invalid_params"
    );
    assert_eq!(
        tool_refusal(&env, "notes_list", json!({"bogus": 1}))["code"],
        "invalid_params"
    );
    insta::assert_snapshot!(run_notes(&env, &["list", "--pattern", "@glboal/**"]).expect_code(2));
}

#[test]
fn lock_files_and_temp_files_are_never_listed() {
    let env = TestEnv::new();
    write(&env, "@human/a", "x");
    ok(&env, &["read", "@human/a"]);
    assert!(env.notes_home().join(".locks").is_dir());
    std::fs::write(
        env.notes_home().join("human/.pi-context.1.2.3.tmp"),
        "partial",
    )
    .unwrap();
    let result = tool_ok(&env, "notes_list", json!({"pattern": "**"}));
    assert_eq!(addresses(&result), ["@human/a.md"]);
}

#[test]
fn without_a_session_id_the_session_home_is_skipped() {
    let env = TestEnv::new();
    write(&env, "mine", "x");
    write(&env, "@human/h", "x");
    let result = tool_in(
        &env,
        "notes_list",
        json!({}),
        json!({"notes_home": env.notes_home(), "cwd": env.work()}),
    );
    let page: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(addresses(&page), ["@human/h.md"]);
}

/// A note file written by hand with its `updatedAt`, and `extra` frontmatter lines.
fn hand_note(path: &std::path::Path, updated: &str, extra: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!(
            "---\norigin: user\ncreatedAt: {updated}\nupdatedAt: {updated}\n{extra}---\n\nbody\n"
        ),
    )
    .unwrap();
}

#[test]
fn a_store_of_many_directories_lists_each_note_once_in_order() {
    let env = TestEnv::new();
    let home = env.notes_home();
    let mut expected = Vec::new();
    // Enough directories and notes for the walk to hand work to several threads.
    for d in 0..30 {
        for n in 0..(d % 7) * 9 {
            let minute = (d * 13 + n * 7) % 60;
            let updated = format!("2026-03-01T10:{minute:02}:00.000+00:00");
            let (path, address) = if n % 2 == 0 {
                let rel = format!("d{d}/sub{}/n{n}.md", n % 3);
                (home.join("human").join(&rel), format!("@human/{rel}"))
            } else {
                let rel = format!("d{d}/n{n}.md");
                (home.join("pi/session").join(SESSION).join(&rel), rel)
            };
            hand_note(&path, &updated, "");
            expected.push((updated, address));
        }
    }
    // A frontmatter block longer than the 1 KiB head that list reads first.
    let long = format!("note: {}\n", "x".repeat(1500));
    hand_note(
        &home.join("human/long.md"),
        "2026-03-01T11:00:00.000+00:00",
        &long,
    );
    expected.push((
        "2026-03-01T11:00:00.000+00:00".into(),
        "@human/long.md".into(),
    ));
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    assert!(expected.len() > 300, "{}", expected.len());

    let result = json(&env, &["list"]);
    let listed: Vec<(String, String)> = result["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let text = |k: &str| f[k].as_str().unwrap().to_string();
            (text("updated_at"), text("address"))
        })
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(result["more"], 0);

    let some = json(&env, &["list", "--pattern", "@human/d1*/**"]);
    let wanted: Vec<String> = expected
        .iter()
        .map(|(_, a)| a.clone())
        .filter(|a| a.starts_with("@human/d1"))
        .collect();
    assert!(!wanted.is_empty());
    assert_eq!(addresses(&some), wanted);
}
