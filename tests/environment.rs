//! One resolver decides every default: the notes home, the clock and the identity are the same
//! for `notes`, `dream`, `boot` and the tool protocol, and a missing or bad one is the same error
//! with the same exit status everywhere.

use crate::common;

use common::{Run, TestEnv};
use serde_json::json;

#[test]
fn without_home_there_is_no_notes_home_for_any_command() {
    let env = TestEnv::new();
    for args in [
        vec!["notes", "list"],
        vec!["notes", "write", "@human/x", "--content", "x"],
        vec!["dream", "--force", "--pi", "/nonexistent/pi"],
        vec!["dream", "doctor"],
    ] {
        let output = env
            .cmd()
            .env_remove("HOME")
            .env_remove("PI_NOTES_HOME")
            .args(&args)
            .run();
        assert_eq!(output.code, 74, "{args:?}: {}", output.stderr);
        assert!(
            output.stderr.contains("no notes home"),
            "{args:?}: {}",
            output.stderr
        );
    }
    // Nothing was written at the file system root (dream used to fall back to `/`).
    assert!(!std::path::Path::new("/.agents").exists());
    // The tool protocol refuses instead of failing.
    let output = env
        .cmd()
        .env_remove("HOME")
        .env_remove("PI_NOTES_HOME")
        .args(["tool", "notes_list"])
        .write_stdin(json!({"params": {}, "context": {}}).to_string())
        .run();
    assert_eq!(output.code, 0);
    let response = output.json();
    assert_eq!(response["is_error"], true);
    assert!(
        response["text"].as_str().unwrap().contains("io_error"),
        "{response}"
    );
}

#[test]
fn a_bad_clock_is_the_same_usage_error_everywhere() {
    let env = TestEnv::new();
    for args in [
        vec!["notes", "write", "@human/x", "--content", "x"],
        vec!["dream", "--dry-run"],
        vec!["sessions", "list"],
    ] {
        let output = env
            .cmd()
            .env("PI_CONTEXT_NOW", "half past nine")
            .args(&args)
            .run();
        assert_eq!(output.code, 2, "{args:?}: {}", output.stderr);
        assert!(output.stderr.contains("PI_CONTEXT_NOW"), "{args:?}");
    }
}

#[test]
fn a_relative_notes_home_means_the_same_directory_for_notes_and_dream() {
    let env = TestEnv::new();
    let write = env
        .cmd()
        .env("PI_NOTES_HOME", "rel-home")
        .args(["notes", "write", "@human/x", "--content", "x"])
        .run();
    assert_eq!(write.code, 0, "{}", write.stderr);
    assert!(env.work().join("rel-home/human/x.md").is_file());
    let doctor = env
        .cmd()
        .env("PI_NOTES_HOME", "rel-home")
        .args(["dream", "doctor", "--json"])
        .run();
    let report = doctor.json();
    assert_eq!(
        report["home"],
        env.work().join("rel-home").display().to_string()
    );
}

#[test]
fn the_model_slug_is_the_same_rule_for_notes_and_the_dreamer() {
    let env = TestEnv::new();
    let written = env
        .cmd()
        .env("PI_CONTEXT_MODEL", "acme/Big.Model-2")
        .args(["notes", "write", "@model/quirks", "--content", "x"])
        .run();
    assert_eq!(written.code, 0, "{}", written.stderr);
    assert!(env
        .notes_home()
        .join("models/big-model-2/quirks.md")
        .is_file());
    let planned = env
        .cmd()
        .args([
            "dream",
            "--dry-run",
            "--force",
            "--json",
            "--dreamer",
            "acme/Big.Model-2",
        ])
        .run();
    let plan = planned.json();
    let writable: Vec<&str> = plan["writable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(writable.contains(&"models/big-model-2/"), "{writable:?}");
}

#[test]
fn an_io_failure_is_74_not_a_usage_error() {
    let env = TestEnv::new();
    // A file where the notes home's `human/` directory should be.
    std::fs::create_dir_all(env.notes_home()).unwrap();
    std::fs::write(env.notes_home().join("human"), "in the way").unwrap();
    let output = env
        .cmd()
        .args(["notes", "write", "@human/x", "--content", "x"])
        .run();
    assert_eq!(output.code, 74, "{}", output.stderr);
    assert!(output.stderr.starts_with("error: "), "{}", output.stderr);
}
