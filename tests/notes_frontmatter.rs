//! The frontmatter on disk: unknown lines survive every operation byte-for-byte, known keys keep
//! their position and spelling, and missing keys are filled in without disturbing the rest.

use crate::common;

use common::notes::*;
use common::TestEnv;
use serde_json::json;

/// A note as a person might write it by hand: comments, nested values, a list, legacy
/// snake_case keys, quoted and unusual spellings, and a timestamp with another offset.
const HAND_WRITTEN: &str = "---\n\
# kept: a comment line\n\
origin: user\n\
created_at: 2024-01-01\n\
createdAt: 2025-06-01T12:00:00.000+02:00\n\
nested:\n  key: value\n  other: [1, 2]\n\
tags:\n  - alpha\n  - beta\n\
updatedAt: 2025-06-02T12:00:00.000+02:00\n\
title: \"Quoted: with colon\"\n\
weird line without a colon\n\
lastAccessed: 2025-06-03T00:00:00Z\n\
accessCount: 4\n\
source_window: pcw:abc:root\n   indented: continuation\n\
---\n\
\n\
first line\n\
second line\n";

/// The unknown lines of HAND_WRITTEN, in order.
const UNKNOWN: [&str; 12] = [
    "# kept: a comment line",
    "created_at: 2024-01-01",
    "nested:",
    "  key: value",
    "  other: [1, 2]",
    "tags:",
    "  - alpha",
    "  - beta",
    "title: \"Quoted: with colon\"",
    "weird line without a colon",
    "source_window: pcw:abc:root",
    "   indented: continuation",
];

fn plant(env: &TestEnv) -> std::path::PathBuf {
    let path = env.notes_home().join("human/hand.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, HAND_WRITTEN).unwrap();
    path
}

fn unknown_lines(text: &str) -> Vec<String> {
    let block = &text[4..text.find("\n---\n").unwrap()];
    block
        .lines()
        .filter(|l| {
            ![
                "origin:",
                "createdAt:",
                "updatedAt:",
                "lastAccessed:",
                "accessCount:",
                "crumpledAt:",
                "project:",
            ]
            .iter()
            .any(|k| l.starts_with(k))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn a_read_changes_only_the_access_lines() {
    let env = TestEnv::new();
    let path = plant(&env);
    ok(&env, &["read", "@human/hand"]);
    let expected = HAND_WRITTEN
        .replace(
            "lastAccessed: 2025-06-03T00:00:00Z",
            "lastAccessed: 2026-03-01T09:00:00.000+00:00",
        )
        .replace("accessCount: 4", "accessCount: 5");
    assert_eq!(read_file(&path), expected);
}

#[test]
fn a_write_changes_only_updated_at_and_the_body() {
    let env = TestEnv::new();
    let path = plant(&env);
    ok(&env, &["write", "@human/hand", "-c", "replaced\n"]);
    let expected = HAND_WRITTEN
        .replace(
            "updatedAt: 2025-06-02T12:00:00.000+02:00",
            "updatedAt: 2026-03-01T09:00:00.000+00:00",
        )
        .replace("first line\nsecond line\n", "replaced\n");
    assert_eq!(read_file(&path), expected);
}

#[test]
fn edits_keep_unknown_lines_in_place() {
    let env = TestEnv::new();
    let path = plant(&env);
    ok(
        &env,
        &["edit", "@human/hand", "--old", "second", "--new", "2nd"],
    );
    let after_body = read_file(&path);
    assert_eq!(unknown_lines(&after_body), UNKNOWN);
    assert!(after_body.ends_with("\n\nfirst line\n2nd line\n"));
    ok(
        &env,
        &["edit", "@human/hand", "--crumple", "--origin", "external"],
    );
    let after_meta = read_file(&path);
    assert_eq!(unknown_lines(&after_meta), UNKNOWN);
    // crumpledAt goes right after accessCount, the last known key before it.
    assert!(
        after_meta
            .contains("accessCount: 4\ncrumpledAt: 2026-03-01T09:00:00.000+00:00\nsource_window:"),
        "{after_meta}"
    );
    assert!(
        after_meta.contains("\norigin: external\ncreated_at:"),
        "{after_meta}"
    );
    ok(&env, &["edit", "@human/hand", "--smooth"]);
    assert_eq!(unknown_lines(&read_file(&path)), UNKNOWN);
}

#[test]
fn the_tool_round_trip_keeps_everything_unknown() {
    let env = TestEnv::new();
    let path = plant(&env);
    tool_ok(
        &env,
        "notes_write",
        json!({"address": "@human/hand", "content": "w"}),
    );
    tool_ok(
        &env,
        "notes_edit",
        json!({"address": "@human/hand", "edits": [{"oldText": "w", "newText": "e"}]}),
    );
    let read = tool(&env, "notes_read", json!({"address": "@human/hand"}));
    assert!(text(&read).ends_with("\n\ne"));
    let text = read_file(&path);
    assert_eq!(unknown_lines(&text), UNKNOWN);
    assert!(
        text.contains("createdAt: 2025-06-01T12:00:00.000+02:00\n"),
        "hand-written times survive: {text}"
    );
}

#[test]
fn a_note_without_frontmatter_gains_one_dated_by_its_file() {
    let env = TestEnv::new();
    let path = env.notes_home().join("human/plain.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "just a body\n").unwrap();
    let mtime = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let listed = tool_ok(&env, "notes_list", json!({}));
    assert_eq!(
        listed["files"][0]["updated_at"],
        "2023-11-14T22:13:20.000+00:00"
    );
    ok(&env, &["read", "@human/plain"]);
    assert_eq!(
        read_file(&path),
        "---\norigin: self\ncreatedAt: 2023-11-14T22:13:20.000+00:00\nupdatedAt: 2023-11-14T22:13:20.000+00:00\n\
lastAccessed: 2026-03-01T09:00:00.000+00:00\naccessCount: 1\n---\n\njust a body\n"
    );
}

#[test]
fn crlf_bodies_and_blocks_survive() {
    let env = TestEnv::new();
    let path = env.notes_home().join("human/crlf.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "---\r\norigin: user\r\nx-custom: 1\r\naccessCount: 0\r\n---\r\n\r\nline one\r\nline two\r\n").unwrap();
    ok(&env, &["read", "@human/crlf"]);
    let text = read_file(&path);
    assert!(
        text.starts_with("---\r\norigin: user\r\ncreatedAt: "),
        "{text:?}"
    );
    assert!(text.contains("\r\nx-custom: 1\r\n"), "{text:?}");
    assert!(
        text.ends_with("\r\n---\r\n\r\nline one\r\nline two\r\n"),
        "{text:?}"
    );
    let hit = tool_ok(&env, "notes_search", json!({"query": "two"}));
    assert_eq!(hit["files"][0]["matches"][0]["text"], "line two");
}

#[test]
fn a_body_that_looks_like_frontmatter_stays_body() {
    let env = TestEnv::new();
    write(&env, "@human/fm", "intro");
    ok(
        &env,
        &[
            "edit",
            "@human/fm",
            "--old",
            "intro",
            "--new",
            "---\nnot: meta\n---\nafter",
        ],
    );
    let read = tool(&env, "notes_read", json!({"address": "@human/fm"}));
    assert!(
        text(&read).ends_with("\n\n---\nnot: meta\n---\nafter"),
        "{}",
        text(&read)
    );
}
