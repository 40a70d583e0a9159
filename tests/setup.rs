//! `pi-context setup claude|codex|gemini|copilot|cursor|opencode` on configuration files that already hold
//! the user's own keys, hooks and comments (docs/agents.md): merged, idempotent to the byte,
//! removed exactly, shown as a diff, refused whole when a file cannot be parsed.

use crate::common;

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use common::TestEnv;
use serde_json::{json, Value};

fn setup(env: &TestEnv, args: &[&str]) -> (i32, String, String) {
    let output = env
        .cmd()
        .arg("setup")
        .args(args)
        .output()
        .expect("run setup");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn ok(env: &TestEnv, args: &[&str]) -> String {
    let (code, out, err) = setup(env, args);
    assert_eq!(code, 0, "setup {args:?}: {out}{err}");
    out
}

fn put(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_of(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap()
}

fn binary() -> String {
    std::fs::canonicalize(assert_cmd::cargo::cargo_bin("pi-context"))
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "UserPromptSubmit": [
      {"matcher": "", "hooks": [{"type": "command", "command": "echo mine"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  }
}
"#;

#[test]
fn claude_settings_keep_the_users_keys_and_hooks_and_a_second_run_changes_no_byte() {
    let env = TestEnv::new();
    let settings = put(&env.home().join(".claude/settings.json"), CLAUDE_SETTINGS);
    let out = ok(&env, &["claude"]);
    assert!(
        out.contains("updated") && out.contains("settings.json"),
        "{out}"
    );
    let after = json_of(&settings);
    let before: Value = serde_json::from_str(CLAUDE_SETTINGS).unwrap();
    assert_eq!(after["model"], before["model"]);
    assert_eq!(after["permissions"], before["permissions"]);
    assert_eq!(after["hooks"]["Stop"], before["hooks"]["Stop"]);
    let prompt = after["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(
        prompt[0], before["hooks"]["UserPromptSubmit"][0],
        "the user's hook stays first"
    );
    let ours = format!("{} hook claude prompt", binary());
    assert_eq!(prompt[1]["hooks"][0]["command"], ours);
    for event in ["SessionStart", "PreCompact"] {
        let command = after["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(
            command.starts_with(&binary()),
            "by absolute path: {command}"
        );
    }
    assert_eq!(
        read(&env.home().join(".claude/settings.json.bak")),
        CLAUDE_SETTINGS
    );
    // The MCP server, registered at user scope (no `claude` on PATH: in Claude Code's file).
    let state = json_of(&env.home().join(".claude.json"));
    assert_eq!(
        state["mcpServers"]["pi-context"],
        json!({"type": "stdio", "command": binary(), "args": ["mcp", "--agent", "claude-code"], "env": {}})
    );

    // Again: nothing changes, not even a file's time.
    let bytes = read(&settings);
    let modified = std::fs::metadata(&settings).unwrap().modified().unwrap();
    let again = ok(&env, &["claude"]);
    assert!(again.contains("already set up"), "{again}");
    assert_eq!(read(&settings), bytes);
    assert_eq!(
        std::fs::metadata(&settings).unwrap().modified().unwrap(),
        modified
    );

    // Removed: exactly what was added.
    ok(&env, &["claude", "--remove"]);
    assert_eq!(json_of(&settings), before);
    assert!(
        !env.home().join(".claude.json").exists(),
        "the setup created it: it goes"
    );
    assert!(ok(&env, &["claude", "--remove"]).contains("nothing of pi-context's to remove"));
}

#[test]
fn a_moved_binary_replaces_its_hooks_instead_of_adding_more() {
    let env = TestEnv::new();
    let settings = put(
        &env.home().join(".claude/settings.json"),
        r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/old/place/pi-context hook claude prompt", "timeout": 10}]}]}}"#,
    );
    ok(&env, &["claude"]);
    let groups = json_of(&settings)["hooks"]["UserPromptSubmit"].clone();
    assert_eq!(groups.as_array().unwrap().len(), 1, "{groups}");
    assert_eq!(
        groups[0]["hooks"][0]["command"],
        format!("{} hook claude prompt", binary())
    );
}

const CODEX_CONFIG: &str = r#"# My Codex configuration.
model = "gpt-5" # the default model

[mcp_servers.github]
command = "github-mcp" # keep me

# trust of my own hook
[hooks.state."/somewhere/hooks.json:stop:0:0"]
trusted_hash = "sha256:0000"
"#;

#[test]
fn codex_config_keeps_comments_trusts_exactly_its_hooks_and_is_removed_to_the_byte() {
    let env = TestEnv::new();
    let config = put(&env.home().join(".codex/config.toml"), CODEX_CONFIG);
    let user_hooks =
        r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo mine"}]}]}}"#;
    let hooks = put(&env.home().join(".codex/hooks.json"), user_hooks);
    let out = ok(&env, &["codex"]);
    assert!(
        out.contains("trusted"),
        "the setup says it trusts its hooks: {out}"
    );
    let text = read(&config);
    let mut at = 0;
    for line in CODEX_CONFIG.lines() {
        let found = text[at..]
            .find(line)
            .unwrap_or_else(|| panic!("{line:?} kept, in order:\n{text}"));
        at += found + line.len();
    }
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let server = &doc["mcp_servers"]["pi-context"];
    assert_eq!(server["command"].as_str(), Some(binary().as_str()));
    let env_vars: Vec<&str> = server["env_vars"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        env_vars.contains(&"HOME") && env_vars.contains(&"PI_NOTES_HOME"),
        "{env_vars:?}"
    );
    // Our hooks come after the user's, and each is trusted under its place in hooks.json.
    let file = json_of(&hooks);
    assert_eq!(
        file.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hooks"]
    );
    assert_eq!(
        file["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "echo mine"
    );
    let hooks_path = env.home().join(".codex/hooks.json");
    let state = doc["hooks"]["state"].as_table_like().unwrap();
    let keys: Vec<&str> = state.iter().map(|(k, _)| k).collect();
    assert_eq!(
        keys,
        [
            "/somewhere/hooks.json:stop:0:0".to_string(),
            format!("{}:session_start:1:0", hooks_path.display()),
            format!("{}:user_prompt_submit:0:0", hooks_path.display()),
        ],
        "the user's trust first, then exactly ours"
    );
    let status = ok(&env, &["--status", "--json", "codex"]);
    let status: Value = serde_json::from_str(&status).unwrap();
    for hook in status["agents"][0]["hooks"].as_array().unwrap() {
        assert_eq!(hook["trusted"], true, "{hook}");
        assert_eq!(hook["binary_present"], true, "{hook}");
        assert_eq!(hook["current_version"], true, "{hook}");
    }
    assert_eq!(status["agents"][0]["mcp"]["registered"], true);

    let bytes = read(&config);
    assert!(ok(&env, &["codex"]).contains("already set up"));
    assert_eq!(read(&config), bytes, "idempotent to the byte");

    ok(&env, &["codex", "--remove"]);
    assert_eq!(read(&config), CODEX_CONFIG, "removed to the byte");
    assert_eq!(
        json_of(&hooks),
        serde_json::from_str::<Value>(user_hooks).unwrap()
    );
}

/// The agents start without these files (found by running them: tests/agents/test_hooks.py):
/// a removal leaves none of the files the setup created, not even an empty one or a `.bak`.
#[test]
fn a_removal_deletes_the_files_the_setup_created() {
    let env = TestEnv::new();
    let created = [
        env.home().join(".claude/settings.json"),
        env.home().join(".claude.json"),
        env.home().join(".codex/hooks.json"),
        env.home().join(".codex/config.toml"),
    ];
    ok(&env, &["claude"]);
    ok(&env, &["codex"]);
    for file in &created {
        assert!(file.exists(), "{} created", file.display());
    }
    ok(&env, &["claude", "--remove"]);
    ok(&env, &["codex", "--remove"]);
    for file in &created {
        assert!(!file.exists(), "{}: {}", file.display(), read(file));
        assert!(
            !pi_context::setup::backup_path(file).exists(),
            "{}",
            file.display()
        );
    }
    // A file the user made, even one as empty as ours, stays.
    let empty = put(
        &env.home().join(".claude/settings.json"),
        "{\"hooks\": {}}\n",
    );
    assert!(ok(&env, &["claude", "--remove"]).contains("nothing of pi-context's to remove"));
    assert_eq!(read(&empty), "{\"hooks\": {}}\n");
}

#[test]
fn a_dry_run_shows_a_diff_and_writes_nothing() {
    let env = TestEnv::new();
    let config = put(&env.home().join(".codex/config.toml"), CODEX_CONFIG);
    let out = ok(&env, &["codex", "--dry-run"]);
    assert!(out.contains("+[mcp_servers.pi-context]"), "{out}");
    assert!(out.contains("+++ ") && out.contains("hooks.json"), "{out}");
    assert_eq!(read(&config), CODEX_CONFIG);
    assert!(!env.home().join(".codex/hooks.json").exists());
    assert!(!env.home().join(".codex/config.toml.bak").exists());
}

#[test]
fn a_file_that_cannot_be_parsed_stops_the_setup_before_anything_is_written() {
    let env = TestEnv::new();
    let config = put(
        &env.home().join(".codex/config.toml"),
        "model = \"x\"\n[broken\n",
    );
    let (code, out, err) = setup(&env, &["codex"]);
    assert_eq!(code, 74, "{out}{err}");
    assert!(
        err.contains("config.toml") && err.contains("line 2"),
        "{err}"
    );
    assert!(
        !env.home().join(".codex/hooks.json").exists(),
        "nothing written"
    );
    assert_eq!(read(&config), "model = \"x\"\n[broken\n");

    let settings = put(
        &env.home().join(".claude/settings.json"),
        "{\n  \"model\": \"x\",\n  oops\n}\n",
    );
    let (code, _, err) = setup(&env, &["claude"]);
    assert_eq!(code, 74);
    assert!(
        err.contains("settings.json") && err.contains("line 3"),
        "{err}"
    );
    assert!(!env.home().join(".claude.json").exists());
    assert!(read(&settings).contains("oops"));
}

#[test]
fn a_hooks_file_codex_would_ignore_is_named() {
    let env = TestEnv::new();
    put(
        &env.home().join(".codex/hooks.json"),
        r#"{"version": 1, "hooks": {}}"#,
    );
    let out = ok(&env, &["codex"]);
    assert!(
        out.contains("`version`") && out.contains("ignores every hook"),
        "{out}"
    );
}

#[test]
fn status_shows_installed_hooks_that_never_ran_and_a_missing_binary() {
    let env = TestEnv::new();
    put(
        &env.home().join(".claude/settings.json"),
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "/gone/pi-context hook claude session-start"}]}]}}"#,
    );
    let out = ok(&env, &["--status", "claude"]);
    assert!(
        out.contains("hook session-start: installed, its binary is missing; never ran"),
        "{out}"
    );
    assert!(out.contains("hook prompt: not installed"), "{out}");
    assert!(
        out.contains("MCP server pi-context: not registered"),
        "{out}"
    );
}

/// The Claude Code plugin brings hooks of its own: `--status` names it, and says so when setup's
/// hooks are installed too (each would push its own boot block).
#[test]
fn status_names_the_claude_plugin_and_a_second_set_of_hooks() {
    let env = TestEnv::new();
    let settings = put(
        &env.home().join(".claude/settings.json"),
        r#"{"enabledPlugins": {"pi-context@pi-context": true, "other@x": true}}"#,
    );
    let out = ok(&env, &["--status", "claude"]);
    assert!(
        out.contains("the Claude Code plugin pi-context@pi-context is enabled: its own MCP server"),
        "{out}"
    );
    ok(&env, &["claude"]);
    assert_eq!(json_of(&settings)["enabledPlugins"]["other@x"], true);
    let out = ok(&env, &["--status", "claude"]);
    assert!(
        out.contains("pi-context@pi-context is enabled too, with hooks of its own")
            && out.contains("claude plugin uninstall pi-context@pi-context"),
        "{out}"
    );
    put(
        &settings,
        r#"{"enabledPlugins": {"pi-context@pi-context": false}}"#,
    );
    let out = ok(&env, &["--status", "claude"]);
    assert!(!out.contains("plugin"), "{out}");
}

/// Copilot CLI's own hooks file and MCP file: a dry run writes nothing, a file that cannot be
/// parsed stops everything (exit 74, file and line), a person's handler in pi-context's hooks
/// file stays through a setup and a removal.
#[test]
fn setup_copilot_dry_runs_refuses_a_broken_file_and_keeps_a_persons_handler() {
    let env = TestEnv::new();
    let home = env.home().join(".copilot");
    let out = ok(&env, &["copilot", "--dry-run"]);
    assert!(
        out.contains("hooks/pi-context.json") && out.contains("+    \"sessionStart\": ["),
        "{out}"
    );
    assert!(out.contains("mcp-config.json") && out.contains("+    \"pi-context\": {"));
    assert!(!home.exists(), "a dry run writes nothing");

    let broken = put(
        &home.join("mcp-config.json"),
        "{\n  \"mcpServers\": {\n    \"x\": oops\n  }\n}\n",
    );
    let (code, out, err) = setup(&env, &["copilot"]);
    assert_eq!(code, 74, "{out}{err}");
    assert!(
        err.contains("mcp-config.json") && err.contains("line 3"),
        "{err}"
    );
    assert!(!home.join("hooks").exists(), "nothing written");
    std::fs::remove_file(&broken).unwrap();

    let mine = json!({"type": "command", "bash": "echo mine"});
    put(
        &home.join("hooks/pi-context.json"),
        &serde_json::to_string_pretty(&json!({"version": 1, "hooks": {"sessionStart": [mine]}}))
            .unwrap(),
    );
    ok(&env, &["copilot"]);
    let hooks = json_of(&home.join("hooks/pi-context.json"));
    assert_eq!(hooks["hooks"]["sessionStart"][0], mine);
    assert_eq!(
        hooks["hooks"]["sessionStart"][1]["bash"],
        format!("{} hook copilot session-start", binary())
    );
    // Copilot's switch that turns every hook off is named by the status.
    put(&home.join("settings.json"), "{\"disableAllHooks\": true}\n");
    let status: Value =
        serde_json::from_str(&ok(&env, &["--status", "--json", "copilot"])).unwrap();
    let notes = status["agents"][0]["notes"].to_string();
    assert!(notes.contains("disableAllHooks"), "{status}");
    ok(&env, &["copilot", "--remove"]);
    assert_eq!(
        json_of(&home.join("hooks/pi-context.json")),
        json!({"version": 1, "hooks": {"sessionStart": [mine]}})
    );
    assert!(!home.join("mcp-config.json").exists());
}

/// A removal with nothing of pi-context's to remove leaves the user's MCP file as it was, to the
/// byte: an empty `mcpServers` the user keeps is not taken out.
#[test]
fn a_removal_with_nothing_to_remove_leaves_the_mcp_file_as_it_was() {
    let env = TestEnv::new();
    let file = env.home().join(".copilot/mcp-config.json");
    let text = "{\n  \"mcpServers\": {},\n  \"theirs\": 1\n}\n";
    put(&file, text);
    ok(&env, &["copilot", "--remove"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

const GEMINI_SETTINGS: &str = r#"{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "mcpServers": {"other": {"command": "other-server", "args": []}},
  "hooks": {
    "BeforeAgent": [{"hooks": [{"type": "command", "command": "echo mine", "timeout": 500}]}],
    "AfterAgent": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  }
}
"#;

/// Gemini CLI: the boot at `SessionStart`, the hint at `BeforeAgent` (its name of the prompt's
/// event), timeouts in milliseconds, the MCP server in the same settings.json; the user's keys,
/// hooks and servers kept; idempotent to the byte; removed exactly; a `.bak` of the first state.
#[test]
fn gemini_settings_get_the_boot_and_the_hint_in_milliseconds_and_lose_them_exactly() {
    let env = TestEnv::new();
    let settings = put(&env.home().join(".gemini/settings.json"), GEMINI_SETTINGS);
    let before: Value = serde_json::from_str(GEMINI_SETTINGS).unwrap();
    let out = ok(&env, &["gemini"]);
    assert!(out.contains("settings.json"), "{out}");
    let after = json_of(&settings);
    assert_eq!(after["security"], before["security"]);
    assert_eq!(after["hooks"]["AfterAgent"], before["hooks"]["AfterAgent"]);
    assert_eq!(after["mcpServers"]["other"], before["mcpServers"]["other"]);
    let prompt = after["hooks"]["BeforeAgent"].as_array().unwrap();
    assert_eq!(
        prompt[0], before["hooks"]["BeforeAgent"][0],
        "the user's hook stays first"
    );
    assert_eq!(
        prompt[1]["hooks"][0],
        json!({"type": "command", "command": format!("{} hook gemini prompt", binary()), "timeout": 10000})
    );
    assert_eq!(
        after["hooks"]["SessionStart"][0]["hooks"][0],
        json!({"type": "command", "command": format!("{} hook gemini session-start", binary()), "timeout": 10000})
    );
    for absent in ["UserPromptSubmit", "PreCompact", "PreCompress"] {
        assert!(after["hooks"].get(absent).is_none(), "{absent}: {after}");
    }
    assert_eq!(
        after["mcpServers"]["pi-context"],
        json!({"command": binary(), "args": ["mcp", "--agent", "gemini-cli"]})
    );
    assert_eq!(
        read(&env.home().join(".gemini/settings.json.bak")),
        GEMINI_SETTINGS
    );

    let bytes = read(&settings);
    let again = ok(&env, &["gemini"]);
    assert!(again.contains("already set up"), "{again}");
    assert_eq!(read(&settings), bytes);

    let status: Value = serde_json::from_str(&ok(&env, &["--status", "--json", "gemini"])).unwrap();
    let agent = &status["agents"][0];
    assert_eq!(agent["agent"], "gemini", "{status}");
    assert_eq!(agent["mcp"]["registered"], true, "{status}");
    let installed: Vec<(&str, bool)> = agent["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["event"].as_str().unwrap(),
                h["installed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        installed,
        [("session-start", true), ("prompt", true)],
        "{status}"
    );

    ok(&env, &["gemini", "--remove"]);
    assert_eq!(json_of(&settings), before);
    assert!(ok(&env, &["gemini", "--remove"]).contains("nothing of pi-context's to remove"));
}

#[test]
fn gemini_setup_honours_its_home_variable_shows_a_dry_run_and_refuses_a_broken_file() {
    let env = TestEnv::new();
    let elsewhere = env.work().join("gemini-home");
    let run = |args: &[&str]| {
        env.run_with(|cmd| {
            cmd.env("GEMINI_CLI_HOME", &elsewhere)
                .arg("setup")
                .args(args)
        })
    };
    let dry = run(&["gemini", "--dry-run"]).success();
    assert!(
        dry.stdout.contains("+++ ") && dry.stdout.contains("\"BeforeAgent\""),
        "{dry}"
    );
    assert!(
        !elsewhere.join(".gemini/settings.json").exists(),
        "a dry run writes nothing"
    );
    let _ = run(&["gemini"]).success();
    let settings = elsewhere.join(".gemini/settings.json");
    assert!(json_of(&settings)["hooks"]["SessionStart"].is_array());
    assert!(!env.home().join(".gemini").exists());
    let _ = run(&["gemini", "--remove"]).success();
    assert!(!settings.exists(), "the setup created it: it goes");

    // Gemini CLI reads comments (strip-json-comments) but not a trailing comma (JSON.parse).
    let text = "{\n  \"general\": {},\n  // a comment\n}\n";
    let broken = put(&env.home().join(".gemini/settings.json"), text);
    let (code, out, err) = setup(&env, &["gemini"]);
    assert_eq!(code, 74, "{out}{err}");
    assert!(
        err.contains("settings.json") && err.contains("line 2") && err.contains("railing comma"),
        "{err}"
    );
    assert_eq!(read(&broken), text);
    assert!(!pi_context::setup::backup_path(&broken).exists());
}

const OPENCODE_CONFIG: &str = r#"{
  "$schema": "https://opencode.ai/config.json",
  "theme": "tokyonight",
  "mcp": {
    "other": {"type": "local", "command": ["other-server", "--stdio"], "enabled": false}
  },
  "plugin": ["opencode-wakatime"]
}
"#;

/// OpenCode (in `$XDG_CONFIG_HOME/opencode`): the MCP server in `opencode.json` beside the
/// user's keys and servers, and pi-context's plugin naming this binary; a `.bak` of the first
/// state, idempotent to the byte, removed exactly (the JSON re-rendered, as for every agent);
/// the status shows the plugin's three hooks.
#[test]
fn opencode_gets_the_mcp_server_and_the_plugin_in_its_xdg_directory_and_loses_them_exactly() {
    let env = TestEnv::new();
    let xdg = env.work().join("xdg-config");
    let run = |args: &[&str]| {
        env.run_with(|cmd| cmd.env("XDG_CONFIG_HOME", &xdg).arg("setup").args(args))
    };
    let config = put(&xdg.join("opencode/opencode.json"), OPENCODE_CONFIG);
    let plugin = xdg.join("opencode/plugin/pi-context.js");

    let dry = run(&["opencode", "--dry-run"]).success();
    assert!(
        dry.stdout.contains("+++ ") && dry.stdout.contains("+    \"pi-context\": {"),
        "{dry}"
    );
    assert!(dry.stdout.contains("plugin/pi-context.js"), "{dry}");
    assert!(!plugin.exists(), "a dry run writes nothing");
    assert_eq!(read(&config), OPENCODE_CONFIG);

    let out = run(&["opencode"]).success();
    assert!(
        out.stdout.contains("updated") && out.stdout.contains("created"),
        "{out}"
    );
    let before: Value = serde_json::from_str(OPENCODE_CONFIG).unwrap();
    let after = json_of(&config);
    for key in ["$schema", "theme", "plugin"] {
        assert_eq!(after[key], before[key], "{key}");
    }
    assert_eq!(after["mcp"]["other"], before["mcp"]["other"]);
    assert_eq!(
        after["mcp"]["pi-context"],
        json!({"type": "local", "command": [binary(), "mcp", "--agent", "opencode"], "enabled": true})
    );
    assert_eq!(
        read(&pi_context::setup::backup_path(&config)),
        OPENCODE_CONFIG
    );
    let script = read(&plugin);
    assert!(
        script.contains(&format!("const BIN = {};", json!(binary()))),
        "the binary by its absolute path"
    );
    for hook in [
        "\"experimental.chat.system.transform\"",
        "\"chat.message\"",
        "\"experimental.session.compacting\"",
    ] {
        assert!(script.contains(hook), "{hook}");
    }
    assert!(!env.home().join(".config/opencode").exists());

    let (config_bytes, plugin_bytes) = (read(&config), read(&plugin));
    let again = run(&["opencode"]).success();
    assert!(again.stdout.contains("already set up"), "{again}");
    assert_eq!((read(&config), read(&plugin)), (config_bytes, plugin_bytes));

    let status: Value =
        serde_json::from_str(&run(&["--status", "--json", "opencode"]).success().stdout).unwrap();
    let agent = &status["agents"][0];
    assert_eq!(agent["agent"], "opencode", "{status}");
    assert_eq!(agent["mcp"]["registered"], true, "{status}");
    assert_eq!(agent["mcp"]["binary_present"], true, "{status}");
    let hooks: Vec<(&str, bool, &str)> = agent["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["event"].as_str().unwrap(),
                h["binary_present"].as_bool().unwrap(),
                h["command"].as_str().unwrap(),
            )
        })
        .collect();
    let command = |event: &str| format!("{} hook opencode {event}", binary());
    assert_eq!(
        hooks,
        [
            ("session-start", true, command("session-start").as_str()),
            ("prompt", true, command("prompt").as_str()),
            ("pre-compact", true, command("pre-compact").as_str()),
        ],
        "{status}"
    );

    let _ = run(&["opencode", "--remove"]).success();
    assert_eq!(json_of(&config), before, "every value and key in its place");
    assert!(!plugin.exists());
    let none = run(&["opencode", "--remove"]).success();
    assert!(
        none.stdout.contains("nothing of pi-context's to remove"),
        "{none}"
    );
}

/// Without `XDG_CONFIG_HOME`: `~/.config/opencode`, its files created and, removed, gone.
/// A `opencode.jsonc` that is not JSONC is refused whole (exit 74, naming the file and the
/// line), as is a plugin of the same name that pi-context did not write.
#[test]
fn opencode_setup_refuses_a_file_that_is_not_jsonc_and_a_plugin_not_its_own() {
    let env = TestEnv::new();
    let dir = env.home().join(".config/opencode");
    ok(&env, &["opencode"]);
    assert!(dir.join("opencode.json").is_file() && dir.join("plugin/pi-context.js").is_file());
    ok(&env, &["opencode", "--remove"]);
    assert!(!dir.join("opencode.json").exists() && !dir.join("plugin/pi-context.js").exists());

    let not_jsonc = "{\n  \"theme\": \"x\",\n  // my comment\n  mcp: {}\n}\n";
    let jsonc = put(&dir.join("opencode.jsonc"), not_jsonc);
    let (code, out, err) = setup(&env, &["opencode"]);
    assert_eq!(code, 74, "{out}{err}");
    assert!(
        err.contains("opencode.jsonc") && err.contains("line 4"),
        "{err}"
    );
    assert_eq!(read(&jsonc), not_jsonc);
    assert!(
        !dir.join("plugin/pi-context.js").exists(),
        "nothing written"
    );
    assert!(!dir.join("opencode.json").exists());
    // Only the .jsonc: it is the file edited.
    put(&jsonc, "{\n  \"theme\": \"x\"\n}\n");
    ok(&env, &["opencode"]);
    assert_eq!(json_of(&jsonc)["mcp"]["pi-context"]["type"], "local");
    ok(&env, &["opencode", "--remove"]);
    assert_eq!(read(&jsonc), "{\n  \"theme\": \"x\"\n}\n");

    let mine = put(
        &dir.join("plugin/pi-context.js"),
        "export const Mine = async () => ({});\n",
    );
    let (code, out, err) = setup(&env, &["opencode"]);
    assert_eq!(code, 74, "{out}{err}");
    assert!(err.contains("pi-context.js"), "{err}");
    assert_eq!(read(&mine), "export const Mine = async () => ({});\n");
    assert!(json_of(&jsonc).get("mcp").is_none(), "nothing written");
    ok(&env, &["opencode", "--remove"]);
    assert!(mine.exists(), "not pi-context's: left");
}

/// A JSONC file's value (comments, trailing commas and a byte-order mark allowed).
fn jsonc_of(path: &Path) -> Value {
    let text = read(path);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    jsonc_parser::cst::CstRootNode::parse(text, &Default::default())
        .unwrap()
        .value()
        .and_then(|v| v.to_serde_value())
        .unwrap()
}

const GEMINI_COMMENTED: &str = r#"// My Gemini settings.
{
  /* auth: the API key */
  "security": {"auth": {"selectedType": "gemini-api-key"}}, // keep
  "mcpServers": {
    // a server of mine
    "other": {"command": "other-server", "args": []}
  },
  "hooks": {
    "BeforeAgent": [
      {
        "hooks": [
          {"type": "command", "command": "echo mine", "timeout": 500} // my hook
        ]
      }
    ]
  }
  // the end
}
"#;

/// Gemini CLI reads comments in its settings.json, so a person's are kept: the setup adds its
/// entries and nothing else (the diff has no line taken out), a second run changes no byte, a
/// comment the person writes inside pi-context's entry survives a re-run, and the removal gives
/// back the file as it was, to the byte.
#[test]
fn gemini_settings_with_comments_keep_them_and_are_given_back_to_the_byte() {
    let env = TestEnv::new();
    let settings = put(&env.home().join(".gemini/settings.json"), GEMINI_COMMENTED);
    let dry = ok(&env, &["gemini", "--dry-run"]);
    let lines: Vec<&str> = dry.lines().collect();
    for line in lines
        .iter()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
    {
        let with_comma = format!("+{},", &line[1..]);
        assert!(
            lines.contains(&with_comma.as_str()),
            "a line changed only by a comma:\n{dry}"
        );
    }
    assert_eq!(
        read(&settings),
        GEMINI_COMMENTED,
        "a dry run writes nothing"
    );

    ok(&env, &["gemini"]);
    let text = read(&settings);
    for comment in [
        "// My Gemini settings.",
        "/* auth: the API key */",
        "// keep",
        "// a server of mine",
        "// my hook",
        "// the end",
    ] {
        assert!(text.contains(comment), "{comment}:\n{text}");
    }
    let after = jsonc_of(&settings);
    assert_eq!(
        after["mcpServers"]["pi-context"]["command"],
        binary(),
        "{text}"
    );
    assert_eq!(after["hooks"]["BeforeAgent"].as_array().unwrap().len(), 2);
    assert!(after["hooks"]["SessionStart"].is_array(), "{text}");
    assert_eq!(
        read(&pi_context::setup::backup_path(&settings)),
        GEMINI_COMMENTED
    );
    assert!(ok(&env, &["gemini"]).contains("already set up"));
    assert_eq!(read(&settings), text, "idempotent to the byte");
    let status: Value = serde_json::from_str(&ok(&env, &["--status", "--json", "gemini"])).unwrap();
    assert_eq!(status["agents"][0]["mcp"]["registered"], true, "{status}");

    // A comment inside pi-context's own entry stays through a re-run.
    let annotated = text.replacen(
        "\"pi-context\": {",
        "\"pi-context\": {\n      // memory, added by pi-context setup",
        1,
    );
    assert_ne!(annotated, text);
    put(&settings, &annotated);
    ok(&env, &["gemini"]);
    assert_eq!(read(&settings), annotated);

    ok(&env, &["gemini", "--remove"]);
    assert_eq!(
        read(&settings),
        GEMINI_COMMENTED,
        "every comment, and nothing of pi-context's"
    );
}

/// OpenCode reads `opencode.jsonc` with comments and trailing commas; a file with both, CRLF
/// line ends and a byte-order mark keeps all of them through a setup, and a removal gives it back
/// to the byte.
#[test]
fn opencode_jsonc_keeps_comments_trailing_commas_crlf_and_a_bom_to_the_byte() {
    let env = TestEnv::new();
    let dir = env.home().join(".config/opencode");
    let original = "\u{feff}{\r\n    // my theme\r\n    \"theme\": \"x\", /* beside */\r\n    \"mcp\": {\r\n        \"other\": {\"type\": \"remote\", \"url\": \"https://x\",}, // mine\r\n    },\r\n    \"plugin\": [\"a\",],\r\n}\r\n";
    let jsonc = put(&dir.join("opencode.jsonc"), original);
    ok(&env, &["opencode"]);
    let text = read(&jsonc);
    assert!(text.starts_with('\u{feff}'), "{text:?}");
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "CRLF only: {text:?}"
    );
    for kept in [
        "// my theme",
        "/* beside */",
        "\"https://x\",}, // mine",
        "[\"a\",]",
    ] {
        assert!(text.contains(kept), "{kept}: {text:?}");
    }
    assert!(
        text.contains("\r\n        \"pi-context\": {\r\n"),
        "in the file's own indentation: {text:?}"
    );
    let config = jsonc_of(&jsonc);
    assert_eq!(config["mcp"]["pi-context"]["command"][0], binary());
    assert_eq!(config["mcp"]["other"]["type"], "remote");
    ok(&env, &["opencode"]);
    assert_eq!(read(&jsonc), text, "idempotent to the byte");
    let status: Value =
        serde_json::from_str(&ok(&env, &["--status", "--json", "opencode"])).unwrap();
    assert_eq!(status["agents"][0]["mcp"]["registered"], true, "{status}");
    ok(&env, &["opencode", "--remove"]);
    assert_eq!(read(&jsonc), original);
    assert!(!dir.join("opencode.json").exists());
}

/// A key a setup must edit, written twice in one object, is refused (exit 74, the file named
/// and untouched): which of the two an agent reads is its parser's choice. A key written twice
/// elsewhere is the user's business: the setup goes on.
#[test]
fn a_key_written_twice_where_the_setup_edits_is_refused() {
    let env = TestEnv::new();
    let dir = env.home().join(".config/opencode");
    let twice = "{\n  \"mcp\": {},\n  // again\n  \"mcp\": {\"other\": {\"type\": \"remote\", \"url\": \"https://x\"}}\n}\n";
    let jsonc = put(&dir.join("opencode.jsonc"), twice);
    let (code, out, err) = setup(&env, &["opencode"]);
    assert_eq!(code, 74, "{out}{err}");
    assert!(
        err.contains("opencode.jsonc") && err.contains("`mcp` twice"),
        "{err}"
    );
    assert_eq!(read(&jsonc), twice);
    assert!(
        !dir.join("plugin/pi-context.js").exists(),
        "nothing written"
    );

    let elsewhere = "{\n  \"theme\": \"a\",\n  \"theme\": \"b\"\n}\n";
    put(&jsonc, elsewhere);
    ok(&env, &["opencode"]);
    assert_eq!(jsonc_of(&jsonc)["theme"], "b");
    ok(&env, &["opencode", "--remove"]);
    assert_eq!(read(&jsonc), elsewhere);
}

/// Claude Code, Codex, Copilot CLI and Cursor read their files as JSON: a comment there is
/// still refused (exit 74, naming the line), the file untouched; a file they read is edited in
/// place all the same: its layout kept, but for the one-line object pi-context's entry went into,
/// which becomes several lines and stays so after the removal.
#[test]
fn a_comment_in_a_file_its_agent_reads_as_json_is_refused() {
    let env = TestEnv::new();
    let text = "{\n  // mine\n  \"mcpServers\": {}\n}\n";
    let cursor = put(&env.home().join(".cursor/mcp.json"), text);
    let (code, out, err) = setup(&env, &["cursor"]);
    assert_eq!(code, 74, "{out}{err}");
    assert!(err.contains("mcp.json") && err.contains("line 2"), "{err}");
    assert_eq!(read(&cursor), text);

    let compact = "{\"mcpServers\": {\"other\": {\"command\": \"x\"}}, \"z\": [1,2]}";
    put(&cursor, compact);
    ok(&env, &["cursor"]);
    let edited = read(&cursor);
    assert!(
        edited.starts_with("{\"mcpServers\": {") && edited.contains("\"z\": [1,2]"),
        "{edited}"
    );
    ok(&env, &["cursor", "--remove"]);
    assert_eq!(
        read(&cursor),
        "{\"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }, \"z\": [1,2]}"
    );
}

/// A FIFO in place of an agent's config is no config: the setup neither blocks on it (opening
/// a FIFO for reading waits for a writer) nor writes anything; it stops with exit 74 naming it.
#[test]
fn a_fifo_in_place_of_the_agents_config_is_refused_not_waited_on() {
    let env = TestEnv::new();
    let settings = env.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(&settings)
        .status()
        .unwrap()
        .success());
    let cmd = common::recall::spawnable(&env, &["setup", "claude"]);
    let (code, _) = common::recall::run_within(cmd, std::time::Duration::from_secs(30));
    assert_eq!(code, 74);
    let (_, _, err) = setup(&env, &["claude"]);
    assert!(
        err.contains("settings.json") && err.contains("not a regular file"),
        "{err}"
    );
    assert!(
        std::fs::symlink_metadata(&settings)
            .unwrap()
            .file_type()
            .is_fifo(),
        "left as it was"
    );
    assert!(!env.home().join(".claude/settings.json.bak").exists());
}
