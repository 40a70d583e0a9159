//! `pi-context tool --schemas` → `facts`: the values the Pi extension shares with the binary
//! (docs/protocol.md). Each fact is checked against what the binary does with it, so a fact that
//! no longer describes the binary fails here; the extension's golden test
//! (`extension/test/facts.test.mjs`) pins its own fallback copy to these values.

use crate::common;

use common::session::{ok_json, request, SessionBuilder};
use common::{tool_names, Run, TestEnv};
use serde_json::{json, Value};

fn facts(env: &TestEnv) -> Value {
    let all = env.tool_schemas();
    assert!(all["tools"].is_array(), "the tools are still listed");
    all["facts"].clone()
}

fn text<'a>(facts: &'a Value, key: &str) -> &'a str {
    facts[key]
        .as_str()
        .unwrap_or_else(|| panic!("fact {key} is a string: {facts}"))
}

fn number(facts: &Value, key: &str) -> u64 {
    facts[key]
        .as_u64()
        .unwrap_or_else(|| panic!("fact {key} is a number: {facts}"))
}

/// The root window id the facts describe for a session id.
fn root_window(facts: &Value, session_id: &str) -> String {
    let chars = number(facts, "window_id_session_chars") as usize;
    let session: String = session_id.chars().take(chars).collect();
    format!(
        "{}{session}{}",
        text(facts, "window_id_prefix"),
        text(facts, "root_window_suffix")
    )
}

#[test]
fn schemas_name_the_binarys_version_the_one_cargo_and_the_npm_package_carry() {
    let env = TestEnv::new();
    let version = env.tool_schemas()["version"].clone();
    assert_eq!(version, json!(env!("CARGO_PKG_VERSION")));
    let printed = env.run(["--version"]).success().stdout;
    assert_eq!(
        printed.trim(),
        format!("pi-context {}", version.as_str().unwrap())
    );
    // The extension compares this with its package.json: scripts/package refuses to pack two
    // versions, and this keeps the checkout honest between releases.
    let package: Value = serde_json::from_str(include_str!("../extension/package.json")).unwrap();
    assert_eq!(
        package["version"], version,
        "extension/package.json and Cargo.toml disagree"
    );
}

#[test]
fn every_fact_is_a_non_empty_string_a_positive_number_or_a_list_of_strings() {
    let env = TestEnv::new();
    let facts = facts(&env);
    let object = facts.as_object().expect("facts is an object");
    assert_eq!(object.len(), 24, "{facts}");
    let non_empty = |v: &Value| v.as_str().is_some_and(|s| !s.is_empty());
    for (key, value) in object {
        let ok = non_empty(value)
            || value.as_u64().is_some_and(|n| n > 0)
            || value
                .as_array()
                .is_some_and(|list| !list.is_empty() && list.iter().all(non_empty));
        assert!(ok, "{key}: {value}");
    }
}

#[test]
fn the_notes_save_tools_are_tools_the_binary_lists() {
    let env = TestEnv::new();
    let schemas = env.tool_schemas();
    let names = tool_names(&schemas);
    let saves = schemas["facts"]["notes_save_tools"].as_array().unwrap();
    assert_eq!(saves, &[json!("notes_write"), json!("notes_edit")]);
    for save in saves {
        assert!(names.contains(&save.as_str().unwrap()), "{save}");
    }
}

#[test]
fn the_window_facts_are_the_ids_and_markers_history_reads() {
    let env = TestEnv::new();
    let facts = facts(&env);
    let mut session = SessionBuilder::with_id("7c6b5a49-3827-4160-a5f4-e3d2c1b0a998");
    session.user("in the root window");
    session.custom(
        text(&facts, "marker_type"),
        json!({"windowId": "pcw:7c6b5a49:1"}),
    );
    session.user("in the reset window");
    let path = session.write_to(env.work().join("session.jsonl"));
    let result = ok_json(&env.tool("history_windows", &request(&path, json!({}))));
    let ids: Vec<&str> = result["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["window_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            root_window(&facts, session.session_id()).as_str(),
            "pcw:7c6b5a49:1"
        ]
    );
}

#[test]
fn the_checkpoint_facts_are_the_tool_and_the_entry_type_the_binary_writes_and_reads() {
    let env = TestEnv::new();
    let facts = facts(&env);
    let tool = text(&facts, "checkpoint_tool");
    let kind = text(&facts, "checkpoint_type");
    assert_ne!(kind, text(&facts, "checkpoint_request_type"));
    let path = SessionBuilder::new().write_to(env.work().join("s.jsonl"));
    let response = env.tool(
        tool,
        &request(&path, json!({"current": "c", "next_action": "n"})),
    );
    assert_eq!(response["append_entry"]["custom_type"], kind);
    // An entry of that type is the checkpoint `checkpoint show` reads.
    let mut session = SessionBuilder::new();
    session.user("go");
    session.custom(kind, response["append_entry"]["data"].clone());
    let path = session.write_to(env.work().join("with.jsonl"));
    let output = env
        .cmd()
        .args(["checkpoint", "show", "--json", "--session"])
        .arg(&path)
        .run()
        .success();
    let shown = output.json();
    assert_eq!(shown["checkpoint"]["data"]["current"], "c");
}

#[test]
fn the_boot_header_facts_are_the_lines_boot_renders() {
    let env = TestEnv::new();
    let facts = facts(&env);
    let session_id = "01a2b3c4-5d6e-7f80-9a0b-c1d2e3f40516";
    let boot_request = json!({
        "reason": "wipe_memory",
        "session_id": session_id,
        "window_id": "pcw:01a2b3c4:9f8e7d6c",
        "previous_window_id": "pcw:01a2b3c4:0a0b0c0d",
        "snapshot_time": "2026-03-01T09:00:00.000Z",
        "notes_home": env.notes_home(),
    });
    let output = env
        .cmd()
        .arg("boot")
        .write_stdin(boot_request.to_string())
        .run()
        .success();
    let boot = output.stdout;
    let lines: Vec<&str> = boot.lines().collect();
    assert_eq!(lines[0], text(&facts, "boot_header_open"));
    let first = format!(
        "{}: {}",
        text(&facts, "first_window_label"),
        root_window(&facts, session_id)
    );
    let current = format!(
        "{}: pcw:01a2b3c4:9f8e7d6c",
        text(&facts, "current_window_label")
    );
    let previous = format!(
        "{}: pcw:01a2b3c4:0a0b0c0d",
        text(&facts, "previous_window_label")
    );
    let close = text(&facts, "boot_header_close");
    let at = |line: &str| lines.iter().position(|l| *l == line);
    let (first, current, previous, close) = (at(&first), at(&current), at(&previous), at(close));
    assert!(
        first.is_some() && first < current && current < previous && previous < close,
        "{boot}"
    );
}

#[test]
fn the_settings_facts_are_the_keys_the_binary_reads() {
    let env = TestEnv::new();
    let facts = facts(&env);
    let agent = env.root().join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    let defaults = pi_context::settings::load(Some(&agent), &env.work());
    assert_eq!(
        defaults.reminder_margin_tokens,
        number(&facts, "default_reminder_margin_tokens")
    );

    let mut section = serde_json::Map::new();
    section.insert(text(&facts, "reminder_margin_setting").into(), json!(1234));
    section.insert(text(&facts, "dreamer_setting").into(), json!("a/b"));
    let mut file = serde_json::Map::new();
    file.insert(
        text(&facts, "settings_section").into(),
        Value::Object(section),
    );
    std::fs::write(agent.join("settings.json"), Value::Object(file).to_string()).unwrap();
    let settings = pi_context::settings::load(Some(&agent), &env.work());
    assert_eq!(settings.reminder_margin_tokens, 1234);
    assert_eq!(settings.dreamer.as_deref(), Some("a/b"));
    assert!(settings.warnings.is_empty(), "{:?}", settings.warnings);
}
