//! Address grammar, canonical rendering, and path escapes refused by every notes operation with
//! nothing written anywhere.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::notes::*;
use common::TestEnv;
use serde_json::{json, Value};

/// Calls every notes operation with `address` (and a pattern made from it for list and search)
/// and returns the refusal codes.
fn codes_for_every_operation(env: &TestEnv, address: &str) -> Vec<(String, String)> {
    let calls = [
        ("notes_write", json!({"address": address, "content": "x"})),
        (
            "notes_edit",
            json!({"address": address, "edits": [{"oldText": "x", "newText": "y"}]}),
        ),
        ("notes_edit", json!({"address": address, "crumpled": true})),
        ("notes_read", json!({"address": address})),
    ];
    calls
        .into_iter()
        .map(|(name, params)| {
            let response = tool(env, name, params);
            (
                name.to_string(),
                refusal_of(&response)["code"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect()
}

type Files = BTreeMap<PathBuf, Vec<u8>>;

/// Everything under the notes home and the outside directory, to compare before and after.
fn world(env: &TestEnv, outside: &Path) -> (Files, Files) {
    (snapshot(&env.notes_home()), snapshot(outside))
}

fn outside(env: &TestEnv) -> PathBuf {
    let dir = env.root().join("outside");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("secret.md"), "secret\n").unwrap();
    dir
}

#[test]
fn textual_escapes_are_invalid_addresses_for_every_operation() {
    let env = TestEnv::new();
    let outside = outside(&env);
    write(&env, "@human/existing", "x");
    let before = world(&env, &outside);
    for address in [
        "../evil",
        "a/../../evil",
        "@project/../escape",
        "/abs",
        "/etc/passwd",
        "@human//etc/passwd",
        "a\\b",
        "..\\evil",
        "a\u{0}b",
        "./x",
        "a//b",
        "a/",
        "",
        "@glboal/x",
        "@Project/x",
        "@project",
        "@agents/Foo/x",
        "bad@name.md",
        "x\ny",
    ] {
        for (operation, code) in codes_for_every_operation(&env, address) {
            let expected = if address.is_empty() {
                ["invalid_address", "invalid_params"]
            } else {
                ["invalid_address"; 2]
            };
            assert!(
                expected.contains(&code.as_str()),
                "{operation} {address:?} → {code}"
            );
        }
    }
    assert_eq!(world(&env, &outside), before);
}

#[test]
fn the_cli_refuses_escapes_with_exit_two_and_writes_nothing() {
    let env = TestEnv::new();
    let outside = outside(&env);
    let before = world(&env, &outside);
    for address in ["../evil", "/abs", "a\\b", "@unknown/x"] {
        for args in [
            vec!["write", address, "-c", "x"],
            vec!["edit", address, "--old", "x", "--new", "y"],
            vec!["read", address],
        ] {
            let (code, stderr) = fails(&env, &args);
            assert_eq!(code, 2, "{args:?}");
            assert!(
                stderr.starts_with("error: invalid note address"),
                "{args:?}: {stderr}"
            );
        }
    }
    assert_eq!(world(&env, &outside), before);
}

#[test]
fn unknown_heads_and_escapes_in_patterns_are_refused() {
    let env = TestEnv::new();
    for pattern in ["@unknown/**", "@glboal/*.md", "@Human/**", "@project"] {
        for (name, params) in [
            ("notes_list", json!({"pattern": pattern})),
            ("notes_search", json!({"query": "x", "pattern": pattern})),
        ] {
            assert_eq!(
                tool_refusal(&env, name, params)["code"],
                "invalid_address",
                "{name} {pattern}"
            );
        }
    }
    for pattern in ["..\\x", "a\u{0}b"] {
        assert_eq!(
            tool_refusal(&env, "notes_list", json!({"pattern": pattern}))["code"],
            "invalid_pattern"
        );
    }
    // `..` in a pattern can never match: addresses never contain it, and nothing outside is read.
    let outside = outside(&env);
    let escaped = tool_ok(
        &env,
        "notes_search",
        json!({"query": "secret", "pattern": "../**"}),
    );
    assert_eq!(escaped["files"], json!([]));
    assert!(outside.join("secret.md").exists());
}

#[test]
fn a_symlinked_note_pointing_outside_is_refused_and_the_target_untouched() {
    let env = TestEnv::new();
    let outside = outside(&env);
    let human = env.notes_home().join("human");
    std::fs::create_dir_all(&human).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.md"), human.join("link.md")).unwrap();
    std::os::unix::fs::symlink(outside.join("absent.md"), human.join("dangling.md")).unwrap();
    let before = world(&env, &outside);
    for address in ["@human/link", "@human/dangling"] {
        for (operation, code) in codes_for_every_operation(&env, address) {
            assert_eq!(code, "invalid_address", "{operation} {address}");
        }
    }
    assert_eq!(world(&env, &outside), before);
    let listed = tool_ok(&env, "notes_search", json!({"query": "secret"}));
    assert_eq!(
        listed["files"],
        json!([]),
        "symlinked notes are never listed or searched"
    );
}

#[test]
fn a_hard_link_to_an_outside_file_is_refused_and_the_target_untouched() {
    let env = TestEnv::new();
    let outside = outside(&env);
    let human = env.notes_home().join("human");
    std::fs::create_dir_all(&human).unwrap();
    std::fs::hard_link(outside.join("secret.md"), human.join("hard.md")).unwrap();
    let before = world(&env, &outside);
    for (operation, code) in codes_for_every_operation(&env, "@human/hard") {
        assert_eq!(code, "invalid_address", "{operation}");
    }
    assert_eq!(world(&env, &outside), before);
    assert_eq!(tool_ok(&env, "notes_list", json!({}))["files"], json!([]));
}

#[test]
fn a_symlinked_directory_on_the_path_is_refused() {
    let env = TestEnv::new();
    let outside = outside(&env);
    let human = env.notes_home().join("human");
    std::fs::create_dir_all(&human).unwrap();
    std::os::unix::fs::symlink(&outside, human.join("dir")).unwrap();
    let before = world(&env, &outside);
    for address in ["@human/dir/secret", "@human/dir/new", "@human/dir/sub/new"] {
        for (operation, code) in codes_for_every_operation(&env, address) {
            assert_eq!(code, "invalid_address", "{operation} {address}");
        }
    }
    assert_eq!(world(&env, &outside), before);
}

#[test]
fn a_symlinked_home_is_refused_and_reported_unavailable() {
    let env = TestEnv::new();
    let outside = outside(&env);
    std::fs::create_dir_all(env.notes_home()).unwrap();
    std::os::unix::fs::symlink(&outside, env.notes_home().join("human")).unwrap();
    let before = world(&env, &outside);
    for (operation, code) in codes_for_every_operation(&env, "@human/secret") {
        assert_eq!(code, "invalid_address", "{operation}");
    }
    let listed = tool_ok(&env, "notes_list", json!({}));
    assert_eq!(listed["homes_unavailable"], json!(["@human"]));
    assert_eq!(world(&env, &outside), before);
}

#[test]
fn addresses_render_canonically() {
    let env = TestEnv::new();
    let address = |a: &str| {
        tool_ok(&env, "notes_write", json!({"address": a, "content": "x"}))["address"].clone()
    };
    assert_eq!(address("a/b"), "a/b.md");
    assert_eq!(address("a/b.md"), "a/b.md");
    assert_eq!(address("a.MD"), "a.MD.md");
    assert_eq!(address("@self/x"), "@self/x.md");
    assert_eq!(address("@agents/anonymous/x"), "@self/x.md");
    assert_eq!(address("@models/default/y"), "@model/y.md");
    assert_eq!(address("日本語/メモ"), "日本語/メモ.md");
    assert!(session_file(&env, "a/b.md").is_file());
    assert!(session_file(&env, "a.MD.md").is_file());
    assert!(session_file(&env, "日本語/メモ.md").is_file());
    let list = tool_ok(&env, "notes_list", json!({"pattern": "a/*"}));
    assert_eq!(
        list["files"].as_array().unwrap().len(),
        1,
        "a/b and a/b.md are one note"
    );
}

#[test]
fn each_prefix_routes_to_one_home_without_fallback() {
    let env = TestEnv::new();
    write(&env, "@project/only-project", "x");
    for address in [
        "only-project",
        "@human/only-project",
        "@self/only-project",
        "@model/only-project",
    ] {
        assert_eq!(
            tool_refusal(&env, "notes_read", json!({"address": address}))["code"],
            "not_found",
            "{address}"
        );
    }
    let message =
        tool_refusal(&env, "notes_read", json!({"address": "@glboal/x"}))["message"].clone();
    assert!(
        message
            .as_str()
            .unwrap()
            .contains("@project/<path>, @human/<path>, @self/<path>"),
        "{message}"
    );
}

#[test]
fn non_string_addresses_are_refused() {
    let env = TestEnv::new();
    let refusal: Value = tool_refusal(&env, "notes_write", json!({"address": 5, "content": "x"}));
    assert_eq!(refusal["code"], "invalid_params");
    assert!(snapshot(&env.notes_home()).is_empty());
}
