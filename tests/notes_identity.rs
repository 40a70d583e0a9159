//! Identity: notes home, session id, project key (git checkouts and linked worktrees), agent and
//! model homes, from flags, environment and the tool context.

use crate::common;

use std::path::{Path, PathBuf};

use common::notes::*;
use common::TestEnv;
use serde_json::{json, Value};

/// A main checkout with a `.git` directory and a registered linked worktree.
fn main_checkout(env: &TestEnv) -> PathBuf {
    let main = env.work().join("main-repo");
    std::fs::create_dir_all(main.join(".git/worktrees/feature")).unwrap();
    std::fs::create_dir_all(main.join("src")).unwrap();
    main
}

fn linked_worktree(env: &TestEnv, name: &str, gitdir: &str) -> PathBuf {
    let worktree = env.work().join(name);
    std::fs::create_dir_all(worktree.join("src")).unwrap();
    std::fs::write(worktree.join(".git"), format!("gitdir: {gitdir}\n")).unwrap();
    worktree
}

#[test]
fn the_project_key_is_the_checkout_basename_and_a_sha1_prefix() {
    let env = TestEnv::new();
    let main = main_checkout(&env);
    let key = key_in(&env, &main.join("src"));
    assert_eq!(key, path_key(&main));
    assert!(
        key.starts_with("main-repo-") && key.len() == "main-repo-".len() + 8,
        "{key}"
    );
    let plain = env.work().join("no git here");
    std::fs::create_dir_all(&plain).unwrap();
    assert_eq!(
        key_in(&env, &plain),
        path_key(&plain),
        "outside git the cwd is the root"
    );
}

#[test]
fn linked_worktrees_share_the_main_checkout_key() {
    let env = TestEnv::new();
    let main = main_checkout(&env);
    let absolute = linked_worktree(
        &env,
        "wt-abs",
        &main.join(".git/worktrees/feature").to_string_lossy(),
    );
    let relative = linked_worktree(&env, "wt-rel", "../main-repo/.git/worktrees/feature");
    let key = path_key(&main);
    assert_eq!(key_in(&env, &absolute), key);
    assert_eq!(key_in(&env, &relative.join("src")), key);
    assert_eq!(
        key_in(&env, &absolute.join("not/created/yet")),
        key,
        "a future subdirectory too"
    );
    // A note written from the worktree is the main checkout's project note.
    let _ = notes(
        &env,
        &[
            "write",
            "@project/shared",
            "-c",
            "from the worktree",
            "--cwd",
            absolute.to_str().unwrap(),
        ],
    )
    .run()
    .success();
    let read = ok(
        &env,
        &["read", "@project/shared", "--cwd", main.to_str().unwrap()],
    );
    assert!(read.ends_with("\n\nfrom the worktree\n"), "{read}");
}

#[test]
fn other_git_files_make_their_own_directory_the_root() {
    let env = TestEnv::new();
    let main = main_checkout(&env);
    std::fs::create_dir_all(main.join(".git/modules/sub")).unwrap();
    let submodule = main.join("sub");
    std::fs::create_dir_all(&submodule).unwrap();
    std::fs::write(submodule.join(".git"), "gitdir: ../.git/modules/sub\n").unwrap();
    assert_eq!(key_in(&env, &submodule), path_key(&submodule));
    let broken = linked_worktree(&env, "broken", "");
    assert_eq!(key_in(&env, &broken), path_key(&broken));
}

#[test]
fn symlinked_spellings_of_one_checkout_share_a_key() {
    let env = TestEnv::new();
    let main = main_checkout(&env);
    let alias = env.work().join("alias");
    std::os::unix::fs::symlink(&main, &alias).unwrap();
    assert_eq!(key_in(&env, &alias.join("src")), key_in(&env, &main));
}

#[test]
fn session_notes_keep_the_project_they_were_created_in() {
    let env = TestEnv::new();
    let first = env.work().join("first");
    let second = env.work().join("second");
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    let first_key = path_key(&first);
    let in_dir = |dir: &Path, args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--cwd", dir.to_str().unwrap()]);
        ok(&env, &all);
    };
    in_dir(&first, &["write", "mine", "-c", "x"]);
    in_dir(&second, &["write", "mine", "-c", "y"]);
    in_dir(&second, &["edit", "mine", "--old", "y", "--new", "z"]);
    in_dir(&second, &["read", "mine"]);
    let text = read_file(&session_file(&env, "mine.md"));
    assert_eq!(frontmatter_value(&text, "project"), Some(first_key));
    in_dir(&second, &["write", "other", "-c", "x"]);
    let other = read_file(&session_file(&env, "other.md"));
    assert_eq!(
        frontmatter_value(&other, "project"),
        Some(path_key(&second))
    );
}

#[test]
fn an_invalid_project_value_is_preserved() {
    let env = TestEnv::new();
    let path = session_file(&env, "odd.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "---\nproject: 17\n---\n\nbody").unwrap();
    ok(&env, &["write", "odd", "-c", "new body"]);
    assert_eq!(
        frontmatter_value(&read_file(&path), "project").as_deref(),
        Some("17")
    );
}

#[test]
fn project_key_flag_overrides_and_is_validated() {
    let env = TestEnv::new();
    let out = json(
        &env,
        &[
            "write",
            "@project/x",
            "-c",
            "x",
            "--project-key",
            "my-key-00000000",
        ],
    );
    assert_eq!(out["project_key"], "my-key-00000000");
    assert!(env
        .notes_home()
        .join("project/my-key-00000000/x.md")
        .is_file());
    for bad in ["a/b", "..", "."] {
        let (code, stderr) = fails(
            &env,
            &["write", "@project/x", "-c", "x", "--project-key", bad],
        );
        assert_eq!(code, 2, "{bad}");
        assert!(stderr.contains("project key"), "{stderr}");
    }
}

#[test]
fn session_ids_must_be_one_safe_directory_name() {
    let env = TestEnv::new();
    for bad in ["../escape", "a/b", ".."] {
        let refusal = tool_in(
            &env,
            "notes_write",
            json!({"address": "x", "content": "x"}),
            json!({"notes_home": env.notes_home(), "session_id": bad}),
        );
        assert_eq!(refusal_of(&refusal)["code"], "invalid_scope", "{bad}");
    }
    assert!(snapshot(&env.notes_home()).is_empty());
}

#[test]
fn the_default_agent_is_anonymous_and_names_are_slugified() {
    let env = TestEnv::new();
    write(&env, "@self/private", "x");
    assert!(env
        .notes_home()
        .join("agents/anonymous/private.md")
        .is_file());
    let _ = notes(&env, &["write", "@self/private", "-c", "x"])
        .env("PI_NOTES_AGENT", "Test Agent")
        .env("PI_CONTEXT_MODEL", "provider/First.Model")
        .run()
        .success();
    assert!(env
        .notes_home()
        .join("agents/test-agent/private.md")
        .is_file());
    let _ = notes(&env, &["write", "@model/m", "-c", "x"])
        .env("PI_CONTEXT_MODEL", "provider/First.Model")
        .run()
        .success();
    assert!(env.notes_home().join("models/first-model/m.md").is_file());
    let _ = notes(&env, &["write", "@self/u", "-c", "x", "--agent", "模型"])
        .run()
        .success();
    assert!(
        env.notes_home().join("agents/root/u.md").is_file(),
        "non-ASCII names collapse"
    );
    let foreign = tool_in(
        &env,
        "notes_list",
        json!({"pattern": "@agents/anonymous/*"}),
        json!({"notes_home": env.notes_home(), "agent": "Test Agent"}),
    );
    let page: Value = serde_json::from_str(text(&foreign)).unwrap();
    assert_eq!(page["files"][0]["address"], "@agents/anonymous/private.md");
}

#[test]
fn the_tool_context_is_normalized_like_the_flags() {
    let env = TestEnv::new();
    let context = json!({
        "notes_home": env.notes_home(),
        "session_id": SESSION,
        "cwd": env.work(),
        "agent": "Test Agent",
        "model": "provider/First.Model",
    });
    for address in ["@self/a", "@model/b"] {
        let response = tool_in(
            &env,
            "notes_write",
            json!({"address": address, "content": "x"}),
            context.clone(),
        );
        assert_eq!(response["is_error"], false);
    }
    assert!(env.notes_home().join("agents/test-agent/a.md").is_file());
    assert!(env.notes_home().join("models/first-model/b.md").is_file());
}

#[test]
fn after_a_model_switch_the_old_home_is_readable_but_not_writable() {
    let env = TestEnv::new();
    let as_model = |model: &str| json!({"notes_home": env.notes_home(), "session_id": SESSION, "cwd": env.work(), "model": model});
    let written = tool_in(
        &env,
        "notes_write",
        json!({"address": "@model/private", "content": "old model"}),
        as_model("provider/First.Model"),
    );
    assert_eq!(written["is_error"], false);
    let second = as_model("second-model");
    let missing = tool_in(
        &env,
        "notes_read",
        json!({"address": "@model/private"}),
        second.clone(),
    );
    assert_eq!(refusal_of(&missing)["code"], "not_found");
    let foreign = tool_in(
        &env,
        "notes_read",
        json!({"address": "@models/first-model/private"}),
        second.clone(),
    );
    assert_eq!(foreign["is_error"], false);
    assert!(text(&foreign).ends_with("\n\nold model"));
    let file = env.notes_home().join("models/first-model/private.md");
    assert_eq!(
        frontmatter_value(&read_file(&file), "accessCount").as_deref(),
        Some("1"),
        "foreign reads count"
    );
    let before = read_file(&file);
    for (name, params) in [
        (
            "notes_edit",
            json!({"address": "@models/first-model/private", "edits": [{"oldText": "old", "newText": "new"}]}),
        ),
        (
            "notes_edit",
            json!({"address": "@models/first-model/private", "crumpled": true}),
        ),
        (
            "notes_write",
            json!({"address": "@models/first-model/private", "content": "overwrite"}),
        ),
    ] {
        let refusal = refusal_of(&tool_in(&env, name, params, second.clone()));
        assert_eq!(refusal["code"], "invalid_scope");
        assert!(refusal["message"]
            .as_str()
            .unwrap()
            .contains("not your home"));
    }
    assert_eq!(read_file(&file), before);
    let listed = tool_in(&env, "notes_list", json!({}), second);
    assert_eq!(
        serde_json::from_str::<Value>(text(&listed)).unwrap()["files"],
        json!([])
    );
}

#[test]
fn the_notes_home_defaults_to_the_home_directory() {
    let env = TestEnv::new();
    let _ = notes(&env, &["write", "@human/h", "-c", "x"])
        .env("PI_NOTES_HOME", "")
        .run()
        .success();
    assert!(env.home().join(".agents/notes/human/h.md").is_file());
    let elsewhere = env.root().join("flag-home");
    let _ = notes(
        &env,
        &[
            "write",
            "@human/h",
            "-c",
            "x",
            "--notes-home",
            elsewhere.to_str().unwrap(),
        ],
    )
    .run()
    .success();
    assert!(elsewhere.join("human/h.md").is_file());
}
