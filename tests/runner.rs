//! The one integration-test binary: every feature's end-to-end tests are a module here, so the
//! suite links once (jj's `cli/tests/runner.rs`, ripgrep's `tests/tests.rs`). Run one feature
//! with `cargo test --test runner <module>::`, one test with its name. A new file in `tests/`
//! must be named below: `every_test_file_is_a_module_of_the_runner` fails otherwise.

mod common;

mod architecture;
mod boot;
mod checkpoint;
mod dream_audit;
mod dream_cli;
mod dream_doctor;
mod dream_failures;
mod dream_lock;
mod dream_run;
mod dream_signals;
mod dream_undo;
mod environment;
mod generate;
mod harness_claude;
mod harness_codex;
mod harness_copilot;
mod harness_cursor;
mod history_cache;
mod history_cli;
mod history_list;
mod history_read;
mod history_reader;
mod history_rewrite;
mod history_schemas;
mod history_search;
mod history_special_files;
mod history_windows;
mod human_output;
mod mcp;
mod notes_addresses;
mod notes_concurrency;
mod notes_edit;
mod notes_frontmatter;
mod notes_history;
mod notes_identity;
mod notes_limits;
mod notes_list;
mod notes_list_cache;
mod notes_lookalikes;
mod notes_move;
mod notes_races;
mod notes_read;
mod notes_readonly;
mod notes_search;
mod notes_sync;
mod notes_tools;
mod notes_write;
mod package;
mod project_keys;
mod props_harness;
mod props_notes;
mod props_projection;
mod props_session;
mod push;
mod query_limits;
mod sessions_faults;
mod sessions_harnesses;
mod sessions_hint;
mod sessions_list;
mod sessions_ranking;
mod sessions_refresh;
mod sessions_search;
mod sessions_secrets;
mod sessions_tools;
mod setup;
mod tool_facts;

#[test]
fn every_test_file_is_a_module_of_the_runner() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let runner = std::fs::read_to_string(dir.join("runner.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = match name.strip_suffix(".rs") {
            Some(module) if module != "runner" => module.to_string(),
            _ if path.join("mod.rs").is_file() => name.clone(),
            _ => continue,
        };
        assert!(
            runner.lines().any(|l| l == format!("mod {module};")),
            "tests/{name} is not a module of tests/runner.rs: its tests would never run"
        );
    }
}
