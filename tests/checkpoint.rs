//! Checkpoints: the `checkpoint` tool (bounds, refusals, the entry it hands to the extension,
//! generations per branch), `pi-context checkpoint show`, and the boot block that opens with the
//! branch's checkpoint or an inherited one, from fixture sessions written as Pi writes them.

use crate::common;

use std::path::Path;

use common::recall::{project_dir, session_id, write_pi_session};
use common::session::{refusal, request_at, SessionBuilder};
use common::{CommandOutput, TestEnv};
use pi_context::boot::PROTOCOL;
use serde_json::{json, Value};

const CHECKPOINT: &str = "pi-context/checkpoint";

fn data(generation: u64, current: &str) -> Value {
    json!({
        "generation": generation,
        "current": current,
        "completed": [], "findings": [], "decisions": [], "failed_approaches": [],
        "blockers": [], "verification": [],
        "next_action": format!("after {current}"),
        "activity": {"files": [], "files_omitted": 0, "commands": [], "commands_omitted": 0}
    })
}

fn params() -> Value {
    json!({
        "current": "  Porting the parser to the new AST.  ",
        "completed": ["lexer ported"],
        "findings": ["the old AST keeps spans in bytes"],
        "decisions": ["keep spans in code points: the READ WINDOW counts them"],
        "failed_approaches": ["a regex-based lexer: too slow on long lines"],
        "blockers": [],
        "verification": ["cargo test --test lexer: 12 passed"],
        "next_action": "Port the expression rules.",
    })
}

fn save(env: &TestEnv, session: &Path, leaf: Option<&str>, params: Value) -> Value {
    env.tool("checkpoint", &request_at(session, leaf, params))
}

fn saved_text(response: &Value) -> Value {
    assert_eq!(response["is_error"], json!(false), "{response}");
    serde_json::from_str(response["text"].as_str().unwrap()).unwrap()
}

// ----- the tool ------------------------------------------------------------------------------

#[test]
fn a_checkpoint_is_checked_and_handed_back_as_the_entry_to_append() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    s.user("port the parser");
    let path = s.write_to(env.work().join("s.jsonl"));
    let mut request = request_at(&path, None, params());
    request["context"]["activity"] = json!({
        "files": [{"path": "src/lexer.rs", "tool": "write"}, {"path": "src/ast.rs", "tool": "edit"}, {"path": "src/lexer.rs", "tool": "edit"}],
        "commands": [{"command": "cargo test --test lexer", "exit_code": 0}, {"command": "cargo build", "exit_code": 101}]
    });
    let response = env.tool("checkpoint", &request);
    let text = saved_text(&response);
    assert_eq!(text["status"], "saved");
    assert_eq!(text["generation"], 1);
    assert!(
        !response["text"].as_str().unwrap().contains("Porting"),
        "the result does not echo the checkpoint"
    );
    assert_eq!(
        response["details"],
        json!({"generation": 1, "files": 2, "commands": 2})
    );
    let entry = &response["append_entry"];
    assert_eq!(entry["custom_type"], CHECKPOINT);
    let d = &entry["data"];
    assert_eq!(d["generation"], 1);
    assert_eq!(
        d["current"], "Porting the parser to the new AST.",
        "trimmed, not cut"
    );
    assert_eq!(d["next_action"], "Port the expression rules.");
    assert_eq!(d["blockers"], json!([]));
    assert_eq!(
        d["activity"]["files"],
        json!([{"path": "src/ast.rs", "tools": ["edit"]}, {"path": "src/lexer.rs", "tools": ["write", "edit"]}])
    );
    assert_eq!(
        d["activity"]["commands"][1],
        json!({"command": "cargo build", "exit_code": 101})
    );
}

#[test]
fn generations_count_the_checkpoints_of_the_branch_it_is_on() {
    let env = TestEnv::new();
    let mut s = SessionBuilder::new();
    let root = s.user("start");
    s.custom(CHECKPOINT, data(1, "shared"));
    let fork = s.leaf().unwrap().to_string();
    s.custom(CHECKPOINT, data(2, "branch A"));
    // A newer entry that does not read back as a checkpoint is skipped.
    s.custom(CHECKPOINT, json!({"generation": 9, "current": 5}));
    let a = s.assistant("on A");
    s.branch_from(&fork);
    let b = s.assistant("on B");
    let path = s.write_to(env.work().join("s.jsonl"));
    let generation =
        |leaf: &str| saved_text(&save(&env, &path, Some(leaf), params()))["generation"].clone();
    assert_eq!(generation(&a), 3);
    assert_eq!(generation(&b), 2);
    assert_eq!(generation(&root), 1);
    assert_eq!(generation("none"), 1);

    // Pi keeps a new session in memory: the entries stand in for the file.
    let request = json!({"params": params(), "context": {"session_file": null, "leaf_id": a, "entries": s.lines()}});
    assert_eq!(
        saved_text(&env.tool("checkpoint", &request))["generation"],
        3
    );
}

#[test]
fn every_bound_is_refused_with_the_field_and_its_size_never_echoed_never_cut() {
    let env = TestEnv::new();
    let path = SessionBuilder::new().write_to(env.work().join("s.jsonl"));
    let secret = |n: usize| format!("SECRET{}", "x".repeat(n - 6));
    /// A field path, its measured size, the unit and the bound.
    type Expected<'a> = Vec<(&'a str, usize, &'a str, usize)>;
    let cases: Vec<(Value, Expected)> = vec![
        (
            json!({"current": secret(2049)}),
            vec![("current", 2049, "characters", 2048)],
        ),
        (
            json!({"next_action": "   "}),
            vec![("next_action", 0, "characters", 2048)],
        ),
        (
            json!({"findings": ["ok", secret(1025)]}),
            vec![("findings[1]", 1025, "characters", 1024)],
        ),
        (
            json!({"completed": vec!["done"; 41]}),
            vec![("completed", 41, "items", 40)],
        ),
        (
            json!({"verification": vec!["v"; 41]}),
            vec![("verification", 41, "items", 40)],
        ),
        (
            json!({"blockers": vec!["b"; 31]}),
            vec![("blockers", 31, "items", 30)],
        ),
        (
            json!({"failed_approaches": vec!["f"; 31], "decisions": [""]}),
            vec![
                ("decisions[0]", 0, "characters", 1024),
                ("failed_approaches", 31, "items", 30),
            ],
        ),
    ];
    for (change, expected) in cases {
        let mut p = params();
        for (k, v) in change.as_object().unwrap() {
            p[k] = v.clone();
        }
        let response = save(&env, &path, None, p.clone());
        assert!(
            response.get("append_entry").is_none(),
            "{change}: nothing to append"
        );
        let error = refusal(&response);
        assert_eq!(error["code"], "checkpoint_out_of_bounds", "{change}");
        let got: Vec<(String, usize, String, usize)> = error["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["field"].as_str().unwrap().to_string(),
                    v["size"].as_u64().unwrap() as usize,
                    v["unit"].as_str().unwrap().to_string(),
                    v["max"].as_u64().unwrap() as usize,
                )
            })
            .collect();
        let want: Vec<(String, usize, String, usize)> = expected
            .iter()
            .map(|(f, s, u, m)| (f.to_string(), *s, u.to_string(), *m))
            .collect();
        assert_eq!(got, want, "{change}");
        let message = error["message"].as_str().unwrap();
        let (field, size, unit, max) = &expected[0];
        if *size > 0 && *unit == "characters" {
            assert!(
                message.contains(&format!("{field} is {size} characters (at most {max})")),
                "{message}"
            );
        }
        assert!(message.contains("nothing is ever cut"), "{message}");
        assert!(
            !response.to_string().contains("SECRET"),
            "never echoed: {change}"
        );
    }
}

#[test]
fn a_checkpoint_exactly_at_every_bound_is_stored_whole() {
    let env = TestEnv::new();
    let path = SessionBuilder::new().write_to(env.work().join("s.jsonl"));
    let item = "é".repeat(1024);
    let p = json!({
        "current": "ç".repeat(2048),
        "next_action": "n".repeat(2048),
        "completed": vec![item.clone(); 40],
        "findings": vec![item.clone(); 40],
        "decisions": vec![item.clone(); 40],
        "verification": vec![item.clone(); 40],
        "failed_approaches": vec![item.clone(); 30],
        "blockers": vec![item.clone(); 30],
    });
    let response = save(&env, &path, None, p.clone());
    let text = saved_text(&response);
    let advice = text["advice"].as_array().unwrap();
    assert!(
        advice
            .iter()
            .any(|a| a == "current is 2048 characters; aim for at most 400"),
        "{advice:?}"
    );
    let d = &response["append_entry"]["data"];
    for key in p.as_object().unwrap().keys() {
        assert_eq!(d[key], p[key], "{key} is stored whole");
    }
}

#[test]
fn unknown_and_mistyped_parameters_are_refused_by_name() {
    let env = TestEnv::new();
    let path = SessionBuilder::new().write_to(env.work().join("s.jsonl"));
    for (change, wanted) in [
        (json!({"generation": 4}), "unknown parameter \"generation\""),
        (json!({"path": "/tmp/x"}), "unknown parameter \"path\""),
        (
            json!({"completed": {"a": 1}}),
            "completed must be an array of strings",
        ),
        (
            json!({"blockers": ["ok", 3]}),
            "blockers[1] must be a string",
        ),
        (json!({"current": ["a"]}), "current must be a string"),
    ] {
        let mut p = params();
        for (k, v) in change.as_object().unwrap() {
            p[k] = v.clone();
        }
        let error = refusal(&save(&env, &path, None, p));
        assert_eq!(error["code"], "invalid_params", "{change}");
        assert!(
            error["message"].as_str().unwrap().contains(wanted),
            "{error}"
        );
    }
}

#[test]
fn the_schema_describes_the_fields_and_the_extension_contract() {
    let env = TestEnv::new();
    let all = env.tool_schemas();
    let tool = common::schema_of(&all, "checkpoint");
    assert_eq!(tool["execution_mode"], "sequential");
    assert_eq!(tool["activity"], true);
    let parameters = &tool["parameters"];
    let keys: Vec<&str> = parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "current",
            "completed",
            "findings",
            "decisions",
            "failed_approaches",
            "blockers",
            "verification",
            "next_action"
        ]
    );
    assert_eq!(parameters["required"], json!(["current", "next_action"]));
    assert_eq!(parameters["additionalProperties"], false);
    for (name, words) in [
        ("current", "1-2048 characters; aim for at most 400"),
        ("next_action", "aim for at most 250"),
        (
            "findings",
            "At most 40 items of 1-1024 characters; aim for at most 3 items of at most 180",
        ),
        ("blockers", "At most 30 items"),
    ] {
        let d = parameters["properties"][name]["description"]
            .as_str()
            .unwrap();
        assert!(d.contains(words), "{name}: {d}");
    }
    let description = tool["description"].as_str().unwrap();
    assert!(description.contains("one role"), "{description}");
    assert!(
        description.contains("current at most 400 characters"),
        "{description}"
    );
    assert_eq!(all["facts"]["checkpoint_type"], CHECKPOINT);
    assert_eq!(all["facts"]["checkpoint_tool"], "checkpoint");
    // No other tool asks for activity.
    let asking: Vec<&Value> = all["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["activity"] == true)
        .collect();
    assert_eq!(asking.len(), 1);
}

// ----- checkpoint show -------------------------------------------------------------------------

/// A session with two branches: A (checkpoints 1 and 2) and B (checkpoint 1, then one of its own).
struct TwoBranches {
    builder: SessionBuilder,
    a: String,
    b: String,
    /// The entry of branch A's generation-2 checkpoint.
    a_checkpoint: String,
}

fn two_branches(id: &str) -> TwoBranches {
    let mut s = SessionBuilder::with_id(id);
    s.user("start");
    let mut first = data(1, "shared start");
    first["findings"] = json!(["one finding", "two\nlines"]);
    first["activity"]["commands"] = json!([{"command": "cargo test", "exit_code": 101}]);
    s.custom(CHECKPOINT, first);
    let fork = s.leaf().unwrap().to_string();
    let a_checkpoint = s.custom(CHECKPOINT, data(2, "branch A work"));
    let a = s.assistant("on A");
    s.branch_from(&fork);
    s.custom(CHECKPOINT, data(2, "branch B work"));
    let b = s.assistant("on B");
    TwoBranches {
        builder: s,
        a,
        b,
        a_checkpoint,
    }
}

fn show(env: &TestEnv, cwd: &Path, args: &[&str]) -> CommandOutput {
    env.run_with(|cmd| cmd.current_dir(cwd).args(["checkpoint", "show"]).args(args))
}

#[test]
fn show_prints_the_checkpoint_of_the_branch_its_leaf_ends() {
    let env = TestEnv::new();
    let t = two_branches(common::session::SESSION_ID);
    let path = t.builder.write_to(env.work().join("s.jsonl"));
    let file = path.to_str().unwrap();

    // The last entry is on branch B; before the first checkpoint there is none (exit 1); an
    // unknown leaf is an error.
    let mut text = show(&env, &env.work(), &["--session", file])
        .success()
        .to_string();
    assert!(!text.contains("branch A"), "{text}");
    text += &show(&env, &env.work(), &["--session", file, "--leaf", "none"]).to_string();
    text += &show(&env, &env.work(), &["--session", file, "--leaf", "nope"]).to_string();
    insta::assert_snapshot!(text);

    let v = show(
        &env,
        &env.work(),
        &["--session", file, "--leaf", &t.a, "--json"],
    )
    .success()
    .json();
    assert_eq!(v["session_id"], common::session::SESSION_ID);
    assert_eq!(v["leaf_id"], t.a.as_str());
    assert_eq!(v["malformed"], 0);
    assert_eq!(v["checkpoint"]["data"]["current"], "branch A work");
    assert_eq!(v["checkpoint"]["data"]["generation"], 2);
    assert_eq!(v["checkpoint"]["entry_id"], t.a_checkpoint.as_str());
    assert_eq!(
        v["checkpoint"]["saved_at"],
        t.builder.timestamp(&t.a_checkpoint)
    );

    let none = show(
        &env,
        &env.work(),
        &["--session", file, "--leaf", "none", "--json"],
    )
    .expect_code(1);
    assert_eq!(none.json()["checkpoint"], Value::Null);
}

#[test]
fn show_finds_a_session_by_id_prefix_by_environment_or_as_the_projects_latest() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let mut older = SessionBuilder::with_id(&session_id(1))
        .cwd(&project.to_string_lossy())
        .time_offset(-7200);
    older.user("older");
    older.custom(CHECKPOINT, data(1, "the older session"));
    write_pi_session(&env, &project, &older);
    let mut newer = SessionBuilder::with_id(&session_id(2))
        .cwd(&project.to_string_lossy())
        .time_offset(-60);
    newer.user("newer");
    newer.custom(CHECKPOINT, data(4, "the newer session"));
    write_pi_session(&env, &project, &newer);

    let latest = show(&env, &project, &[]).success();
    assert!(
        latest.stdout.contains("the newer session"),
        "the project's latest session: {latest}"
    );
    let by_prefix = show(&env, &project, &["--session", &session_id(1)[..13]]).success();
    assert!(
        by_prefix.stdout.contains("the older session"),
        "by id prefix: {by_prefix}"
    );
    let by_environment = env
        .run_with(|cmd| {
            cmd.current_dir(&project)
                .env("PI_CONTEXT_SESSION_ID", session_id(1))
                .args(["checkpoint", "show"])
        })
        .success();
    assert!(
        by_environment.stdout.contains("the older session"),
        "{by_environment}"
    );
    let elsewhere = project_dir(&env, "nothing-here");
    insta::assert_snapshot!(format!(
        "{latest}{by_prefix}{}",
        show(&env, &elsewhere, &[]).expect_code(2)
    ));
}

// ----- malformed entries -----------------------------------------------------------------------

/// A session whose checkpoint entries are broken in every way a file can break them.
fn malformed_session() -> SessionBuilder {
    let mut s = SessionBuilder::new();
    s.user("start");
    s.custom(CHECKPOINT, data(1, "the good one"));
    s.custom(CHECKPOINT, json!(null));
    s.custom(
        CHECKPOINT,
        json!({"generation": 2, "current": "x".repeat(5000), "next_action": "n"}),
    );
    s.custom(
        CHECKPOINT,
        json!({"generation": -1, "current": "c", "next_action": "n"}),
    );
    s.custom(
        CHECKPOINT,
        json!({"generation": 3, "current": "c", "next_action": "n", "findings": [1, 2]}),
    );
    s.custom(
        CHECKPOINT,
        json!({"generation": 4, "current": "c", "next_action": "n", "activity": "junk"}),
    );
    let parent = s.leaf().unwrap().to_string();
    s.raw_line(&format!(
        r#"{{"type":"custom","customType":"{CHECKPOINT}","id":"torn0001","parentId":"{parent}","timestamp":"2026-03-01T09:00:30.000Z","data":{{"generation":5,"curr"#
    ));
    s.assistant("after the broken ones");
    s
}

#[test]
fn a_malformed_checkpoint_entry_breaks_neither_show_nor_history_nor_boot() {
    let env = TestEnv::new();
    let path = malformed_session().write_to(env.work().join("s.jsonl"));
    let file = path.to_str().unwrap();

    // Junk activity is no activity: that entry still reads as generation 4.
    let v = show(&env, &env.work(), &["--session", file, "--json"])
        .success()
        .json();
    assert_eq!(v["checkpoint"]["data"]["generation"], 4);
    assert_eq!(v["checkpoint"]["data"]["activity"]["files"], json!([]));

    for args in [
        vec!["history", "list", "--session", file, "--json"],
        vec!["history", "windows", "--session", file, "--json"],
        vec!["history", "search", "broken", "--session", file, "--json"],
    ] {
        let _ = env.run(&args).success();
    }

    let mut only_bad = SessionBuilder::new();
    only_bad.user("start");
    only_bad.custom(CHECKPOINT, json!({"generation": 1}));
    only_bad.custom(CHECKPOINT, json!("not an object"));
    only_bad.assistant("still going");
    let bad_path = only_bad.write_to(env.work().join("bad.jsonl"));
    // The two newer entries that cannot be read are counted.
    insta::assert_snapshot!(show(
        &env,
        &env.work(),
        &["--session", bad_path.to_str().unwrap()],
    )
    .expect_code(1));
    let text = boot(&env, &boot_request(&env, Some(&bad_path), None));
    assert!(!text.contains("checkpoint>"), "no checkpoint block: {text}");
    assert!(text.starts_with("<context_window>"));
    // The tool still numbers the next one.
    let response = save(&env, &bad_path, None, params());
    assert_eq!(saved_text(&response)["generation"], 1);
}

// ----- boot ------------------------------------------------------------------------------------

fn boot_request(env: &TestEnv, session: Option<&Path>, leaf: Option<&str>) -> Value {
    json!({
        "reason": "wipe_memory",
        "session_id": common::session::SESSION_ID,
        "window_id": "pcw:0f1e2d3c:9f8e7d6c",
        "previous_window_id": "pcw:0f1e2d3c:root",
        "snapshot_time": "2026-03-01T09:10:00.000Z",
        "cwd": env.work(),
        "project_key": "proj-1234abcd",
        "agent": "tester",
        "model": "faux/faux-1",
        "notes_home": env.notes_home(),
        "session_file": session,
        "leaf_id": leaf,
    })
}

fn boot(env: &TestEnv, request: &Value) -> String {
    env.run_stdin(["boot"], request.to_string())
        .success()
        .stdout
}

const IDENTITY: &str = "<context_window>
Agent name: tester (brain: faux-1)
Project key: proj-1234abcd
First context window id: pcw:0f1e2d3c:root
Current context window id: pcw:0f1e2d3c:9f8e7d6c
Previous context window id: pcw:0f1e2d3c:root
Opened: 2026-03-01T09:10:00Z (wipe_memory)
</context_window>";

#[test]
fn the_boot_opens_with_the_branch_checkpoint_whole() {
    let env = TestEnv::new();
    let t = two_branches(common::session::SESSION_ID);
    let path = t.builder.write_to(env.work().join("s.jsonl"));
    let saved: jiff::Timestamp = t.builder.timestamp(&t.a_checkpoint).parse().unwrap();
    let mut s = t.builder;
    // A long checkpoint is shown whole.
    let mut long = data(3, &"w".repeat(2048));
    long["next_action"] = json!("n".repeat(2048));
    long["findings"] = json!(vec!["f".repeat(1024); 40]);
    s.custom(CHECKPOINT, long);
    let last = s.assistant("long one");
    let long_path = s.write_to(env.work().join("long.jsonl"));

    let text = boot(&env, &boot_request(&env, Some(&path), Some(&t.a)));
    let expected_head = format!(
        "{IDENTITY}

<checkpoint>
Your checkpoint: generation 2 of this branch, saved {saved} (9m ago). It is the task state you handed over; carry on from it.
Current: branch A work
Next action: after branch A work
</checkpoint>

{PROTOCOL}

# Your notes"
    );
    assert!(text.starts_with(&expected_head), "{text}");

    // The other branch: its own checkpoint.
    let text = boot(&env, &boot_request(&env, Some(&path), Some(&t.b)));
    assert!(text.contains("Current: branch B work\n"), "{text}");
    assert!(!text.contains("branch A work"), "{text}");

    let text = boot(&env, &boot_request(&env, Some(&long_path), Some(&last)));
    assert!(text.contains(&format!("Current: {}\n", "w".repeat(2048))));
    assert_eq!(
        text.matches(&format!("- {}\n", "f".repeat(1024))).count(),
        40,
        "every item, whole"
    );
}

#[test]
fn a_new_session_starts_from_the_projects_latest_checkpoint_labelled_as_inherited() {
    let env = TestEnv::new();
    let project = project_dir(&env, "alpha");
    let other = project_dir(&env, "beta");
    let session = |n: u32, cwd: &Path, hours_ago: i64| {
        SessionBuilder::with_id(&session_id(n))
            .cwd(&cwd.to_string_lossy())
            .time_offset(-hours_ago * 3600)
    };
    let mut first = session(1, &project, 5);
    first.user("first");
    first.custom(CHECKPOINT, data(1, "the first session's task"));
    write_pi_session(&env, &project, &first);
    let mut second = session(2, &project, 3);
    second.user("second");
    second.custom(CHECKPOINT, data(1, "an early state"));
    second.custom(CHECKPOINT, data(2, "the second session's task"));
    second.assistant("done for today");
    write_pi_session(&env, &project, &second);
    // The most recent session of the project never wrote one: the one before it is used.
    let mut third = session(3, &project, 1);
    third.user("a quick question");
    write_pi_session(&env, &project, &third);
    // Another project's newer checkpoint is not this project's.
    let mut elsewhere = session(4, &other, 0);
    elsewhere.user("beta");
    elsewhere.custom(CHECKPOINT, data(7, "beta's task"));
    write_pi_session(&env, &other, &elsewhere);

    let new_id = session_id(9);
    let fresh = SessionBuilder::with_id(&new_id).cwd(&project.to_string_lossy());
    let request = |entries: Vec<String>, leaf: Option<&str>| {
        json!({
            "reason": "session_start", "session_id": new_id, "window_id": format!("pcw:{}:root", &new_id[..8]),
            "previous_window_id": null, "snapshot_time": "2026-03-01T09:00:00.000Z",
            "cwd": project, "agent": "t", "model": "m", "notes_home": env.notes_home(),
            "session_file": null, "leaf_id": leaf, "entries": entries,
        })
    };
    let text = boot(&env, &request(fresh.lines(), Some("none")));
    let block = text
        .split("\n\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no second part: {text}"));
    // The second session's latest, not the third's (it has none) nor beta's.
    insta::assert_snapshot!(block);
    assert!(!text.contains("beta's task"));
    assert!(
        text.contains("# Earlier sessions of this project"),
        "the sessions list stays: {text}"
    );

    // Once the session has its own, that one opens the block instead.
    let mut own = SessionBuilder::with_id(&new_id).cwd(&project.to_string_lossy());
    own.user("go");
    own.custom(CHECKPOINT, data(1, "my own task"));
    let text = boot(&env, &request(own.lines(), None));
    assert!(
        text.contains("<checkpoint>\nYour checkpoint: generation 1 of this branch"),
        "{text}"
    );
    assert!(!text.contains("inherited"), "{text}");

    // The session itself is never its own inheritance, even when it is on disk and newest.
    let mut on_disk = session(3, &project, 0);
    on_disk.user("a quick question");
    on_disk.custom(CHECKPOINT, data(1, "the third session's own"));
    write_pi_session(&env, &project, &on_disk);
    let third_boot = json!({
        "reason": "wipe_memory", "session_id": session_id(3), "window_id": "pcw:0192aaaa:1",
        "previous_window_id": "pcw:0192aaaa:root", "snapshot_time": "2026-03-01T09:00:00.000Z",
        "cwd": project, "agent": "t", "model": "m", "notes_home": env.notes_home(),
        "session_file": null, "leaf_id": "none", "entries": [],
    });
    let text = boot(&env, &third_boot);
    assert!(text.contains("session 0192aaaa-0002"), "{text}");
}

#[test]
fn without_a_session_or_an_earlier_checkpoint_the_boot_has_no_checkpoint() {
    let env = TestEnv::new();
    let text = boot(&env, &boot_request(&env, None, None));
    assert!(
        text.starts_with(&format!("{IDENTITY}\n\n{PROTOCOL}")),
        "{text}"
    );
    let mut s = SessionBuilder::new();
    s.user("hello");
    let path = s.write_to(env.work().join("s.jsonl"));
    let text = boot(&env, &boot_request(&env, Some(&path), None));
    assert!(
        text.starts_with(&format!("{IDENTITY}\n\n{PROTOCOL}")),
        "{text}"
    );
    // A branch that cannot be read (its leaf is not in a file that has checkpoints) is not
    // claimed to have none: no block at all, not even an inherited one.
    s.custom(CHECKPOINT, data(1, "somewhere in the file"));
    let path = s.write_to(env.work().join("s.jsonl"));
    let text = boot(&env, &boot_request(&env, Some(&path), Some("no-such-leaf")));
    assert!(
        text.starts_with(&format!("{IDENTITY}\n\n{PROTOCOL}")),
        "{text}"
    );
    let text = boot(&env, &boot_request(&env, Some(&path), None));
    assert!(text.contains("Current: somewhere in the file"), "{text}");
}
